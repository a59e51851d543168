//! The pipeline's part of the report (phases, verdicts with their sessions, plan scores, the
//! convergence history, failed directions, clarifications) and the pull-request body of
//! `pawl report --pr`.

use pawl_core::record::Clarification;
use pawl_store::{
    ConvergenceRecord, FailedDirection, PhaseRecord, ScoreRecord, Store, VerdictRecord,
};
use serde::Serialize;

use crate::EngineError;
use crate::report::Report;

#[derive(Debug, Clone, Serialize)]
pub struct PipelineReport {
    pub mode: Option<String>,
    pub phases: Vec<PhaseRecord>,
    pub verdicts: Vec<VerdictRecord>,
    pub scores: Vec<ScoreRecord>,
    pub convergence: Vec<ConvergenceRecord>,
    pub failed_directions: Vec<FailedDirection>,
    pub clarifications: Vec<Clarification>,
}

impl PipelineReport {
    /// Nothing the pipeline recorded (a run of the plain headless loop).
    pub fn is_empty(&self) -> bool {
        self.phases.is_empty() && self.verdicts.is_empty()
    }
}

pub fn build(store: &Store, run_id: &str) -> Result<PipelineReport, EngineError> {
    Ok(PipelineReport {
        mode: store.run(run_id)?.mode,
        phases: store.phases(run_id)?,
        verdicts: store.verdicts(run_id)?,
        scores: store.scores(run_id)?,
        convergence: store.convergence_history(run_id)?,
        failed_directions: store.failed_directions(run_id)?,
        clarifications: store.clarifications(run_id)?,
    })
}

fn cell(s: &str) -> String {
    s.lines()
        .next()
        .unwrap_or("")
        .replace('|', "\\|")
        .chars()
        .take(160)
        .collect()
}

/// The pipeline sections of the Markdown report.
pub fn markdown(p: &PipelineReport) -> String {
    let mut o = String::new();
    o.push_str(&format!(
        "\n## Pipeline (mode {})\n\n| # | phase | round | outcome | note |\n|---|---|---|---|---|\n",
        p.mode.as_deref().unwrap_or("-")
    ));
    for (i, ph) in p.phases.iter().enumerate() {
        o.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            i + 1,
            ph.phase,
            ph.round,
            ph.outcome.as_deref().unwrap_or("running"),
            cell(ph.note.as_deref().unwrap_or(""))
        ));
    }
    if !p.verdicts.is_empty() {
        o.push_str("\n## Verdicts\n\n| role | round | story | verdict | session | iteration | findings |\n|---|---|---|---|---|---|---|\n");
        for v in &p.verdicts {
            let findings: Vec<String> = v
                .findings
                .iter()
                .map(|f| format!("{:?}: {}", f.severity, f.text).to_lowercase())
                .collect();
            o.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                v.role,
                v.round,
                v.story_id.as_deref().unwrap_or("-"),
                if v.clean {
                    "approve (clean)"
                } else if v.approve {
                    "approve"
                } else {
                    "request changes"
                },
                v.session_id.as_deref().unwrap_or("-"),
                v.iteration,
                cell(&findings.join("; "))
            ));
        }
        let notes: Vec<String> = p
            .verdicts
            .iter()
            .flat_map(|v| {
                v.findings
                    .iter()
                    .filter(|f| {
                        f.severity != pawl_core::pipeline::output::FindingSeverity::Blocking
                    })
                    .map(move |f| {
                        format!(
                            "- {} ({}): {}{}",
                            v.role,
                            format!("{:?}", f.severity).to_lowercase(),
                            f.text,
                            f.file
                                .as_deref()
                                .map(|x| format!(" — `{x}`"))
                                .unwrap_or_default()
                        )
                    })
            })
            .collect();
        if !notes.is_empty() {
            o.push_str("\nSuggestions and notes from reviewers:\n");
            for n in notes {
                o.push_str(&format!("{n}\n"));
            }
        }
    }
    if !p.scores.is_empty() {
        o.push_str("\n## Scores\n\n| kind | plan/round | task type | score | threshold | result |\n|---|---|---|---|---|---|\n");
        for s in &p.scores {
            o.push_str(&format!(
                "| {} | {} | {} | {:.2} | {:.2} | {} |\n",
                s.kind,
                s.round,
                s.task_type,
                s.overall,
                s.threshold,
                if s.passed { "pass" } else { "below" }
            ));
        }
    }
    if !p.convergence.is_empty() {
        o.push_str("\n## Convergence\n\n| stage | round | verified before → after | outcome |\n|---|---|---|---|\n");
        for c in &p.convergence {
            o.push_str(&format!(
                "| {} | {} | {:.2} → {:.2} ({}/{}) | {} |\n",
                c.stage, c.round, c.before, c.after, c.verified, c.total, c.outcome
            ));
        }
    }
    if !p.failed_directions.is_empty() {
        o.push_str("\n## Failed directions (rolled back, not retried)\n\n");
        for f in &p.failed_directions {
            o.push_str(&format!(
                "- round {} ({}): {} — {}\n",
                f.round, f.stage, f.direction, f.reason
            ));
        }
    }
    if !p.clarifications.is_empty() {
        o.push_str("\n## Clarifications\n\n");
        for c in &p.clarifications {
            o.push_str(&format!(
                "- {} → {} ({})\n",
                c.question, c.answer, c.category
            ));
        }
    }
    o
}

/// A pull-request body: what the run did (stories), the key changes, the checks with their
/// evidence, the reviews, and the metrics.
pub fn pr_body(r: &Report, p: Option<&PipelineReport>) -> String {
    let mut o = format!("## {}\n\n", r.goal.lines().next().unwrap_or(""));
    o.push_str(
        &format!(
            "pawl run `{}` · verdict **{:?}** — {}\n",
            r.run_id, r.verdict, r.verdict_reason
        )
        .replace("Ship", "SHIP")
        .replace("Monitor", "MONITOR")
        .replace("Research", "RESEARCH"),
    );
    if !r.stories.is_empty() {
        o.push_str("\n### Stories\n\n");
        for s in r.stories.iter().map(|l| &l.story) {
            o.push_str(&format!(
                "- [{}] {} {} ({})\n",
                if s.status == pawl_core::model::StoryStatus::Done {
                    "x"
                } else {
                    " "
                },
                s.id,
                s.title,
                s.status
            ));
        }
    }
    o.push_str("\n### Key changes\n\n");
    if r.files_changed.is_empty() {
        o.push_str("No files changed.\n");
    }
    let mut files = r.files_changed.clone();
    files.sort_by_key(|f| std::cmp::Reverse(f.insertions + f.deletions));
    for f in files.iter().take(15) {
        o.push_str(&format!(
            "- `{}` +{} −{}\n",
            f.path, f.insertions, f.deletions
        ));
    }
    o.push_str("\n### Checks (run by pawl");
    if let Some(t) = &r.tree_hash {
        o.push_str(&format!(" on tree `{}`", t.get(..12).unwrap_or(t)));
    }
    o.push_str(")\n\n");
    if r.checks.is_empty() {
        o.push_str("No verification ran.\n");
    }
    // Nothing that exists only on this machine (logs, paths under `.pawl/`): a PR is read
    // elsewhere.
    for c in &r.checks {
        o.push_str(&format!(
            "- {} {} — {}{}\n",
            if c.passed { "✅" } else { "❌" },
            c.name,
            c.end,
            c.counts()
                .map(|n| format!(" · tests: {n}"))
                .unwrap_or_default()
        ));
    }
    for c in &r.criteria {
        // Ticked only with its evidence (`pawl_core::evidence`).
        o.push_str(&format!(
            "- {} {} {} — verified by {} ({}: {})\n",
            if c.shown.counts { "✅" } else { "⬜" },
            c.criterion.id,
            c.criterion.text,
            c.criterion.verification.kind,
            c.shown.status,
            c.shown.evidence
        ));
    }
    if let Some(p) = p
        && !p.verdicts.is_empty()
    {
        o.push_str("\n### Reviews (independent sessions pawl started)\n\n");
        for v in &p.verdicts {
            o.push_str(&format!(
                "- {}{}: {} (session `{}`)\n",
                v.role,
                v.story_id
                    .as_deref()
                    .map(|s| format!(" on {s}"))
                    .unwrap_or_default(),
                if v.approve {
                    "approved"
                } else {
                    "requested changes"
                },
                v.session_id.as_deref().unwrap_or("-")
            ));
        }
    }
    o.push_str(&format!(
        "\n### Metrics\n\n- iterations: {}\n- active time: {}s\n- cost: ${:.2}{}\n- tokens: {}\n",
        r.iterations.len(),
        r.active_ms / 1000,
        r.cost_usd,
        if r.cost_estimated { " (estimated)" } else { "" },
        r.tokens
    ));
    if let Some(p) = p
        && let Some(c) = p.convergence.last()
    {
        o.push_str(&format!(
            "- criteria verified: {}/{} ({:.0}%)\n",
            c.verified,
            c.total,
            c.after * 100.0
        ));
    }
    o.push_str("\n_Generated by `pawl report --pr`._\n");
    o
}
