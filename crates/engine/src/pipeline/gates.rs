//! The independent gates after execution: the code review of the run's whole diff, the
//! adversarial QA session, and the cross-story audit.

use std::collections::{BTreeMap, BTreeSet};

use pawl_core::EventKind;
use pawl_core::StopReason;
use pawl_core::failure::FailureCategory;
use pawl_core::model::{CriterionStatus, StoryStatus, VerifyKind};
use pawl_core::pipeline::output::{ArchitectureStatus, QaOutput, VerdictOutput};
use pawl_core::pipeline::{self as rules, Phase, Role};
use serde_json::json;

use super::session::{self, SessionOut};
use super::{Ctx, Halt, P, plan};

fn changed_files(ctx: &Ctx<'_>) -> Vec<String> {
    let run = ctx.store.run(&ctx.run_id).ok();
    let pre = run
        .and_then(|r| r.pre_run_commit)
        .and_then(pawl_git::CommitId::new);
    match (pawl_git::Repo::open(&ctx.cfg.root), pre) {
        (Ok(g), Some(c)) => g
            .changed_files_since(&c)
            .map(|v| v.into_iter().map(|p| p.display().to_string()).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn diff_summary(ctx: &Ctx<'_>) -> String {
    let run = ctx.store.run(&ctx.run_id).ok();
    let pre = run.and_then(|r| r.pre_run_commit);
    let mut s = String::new();
    if let (Ok(g), Some(c)) = (
        pawl_git::Repo::open(&ctx.cfg.root),
        pre.clone().and_then(pawl_git::CommitId::new),
    ) && let Ok(stat) = g.diff_stat(&c)
    {
        for f in stat.files {
            s.push_str(&format!(
                "- {} +{} -{}\n",
                f.path.display(),
                f.insertions,
                f.deletions
            ));
        }
    }
    if s.is_empty() {
        s.push_str("(no changes)\n");
    }
    match pre {
        Some(c) => format!("Changed since the pre-run commit {c} (see `git diff {c}`):\n{s}"),
        None => format!("Changed files:\n{s}"),
    }
}

/// The code review: clean (approve, architecture clear, nothing blocking) verifies the review
/// criteria it names; anything else returns the work to planning with the findings as the
/// reason. The same blocking finding in `same_finding` review cycles stops the run.
pub(crate) fn review(ctx: &mut Ctx<'_>) -> P<Option<String>> {
    let id = ctx.begin(Phase::Review)?;
    let criteria = ctx.store.criteria(&ctx.run_id)?;
    let mut body = format!("## Goal\n{}\n\n{}\n", ctx.analysis.goal, diff_summary(ctx));
    let review: Vec<_> = criteria
        .iter()
        .filter(|c| c.verification.kind == VerifyKind::Review)
        .collect();
    if !review.is_empty() {
        body.push_str(
            "\n## Review criteria (list in verified_criteria the ids the change meets)\n",
        );
        for c in &review {
            body.push_str(&format!("- {} {}\n", c.id, c.text));
        }
    }
    // The run changed its own tests: the reviewer decides whether those changes are right.
    let findings = ctx.verify()?.findings;
    if !findings.is_empty() {
        body.push_str("\n## The run changed its tests (pawl compared them with the run's start)\n");
        for f in &findings {
            body.push_str(&format!("- {f}\n"));
        }
        body.push_str(
            "If these changes are right (the tests were wrong), say why in accept_test_changes; otherwise request changes.\n",
        );
    }
    let (v, s): (VerdictOutput, SessionOut) =
        session::structured(ctx, Role::Reviewer, None, &body)?;
    let vid = plan::record_verdict(ctx, Phase::Review, Role::Reviewer, ctx.round, None, &s, &v)?;
    if v.clean()
        && !findings.is_empty()
        && let Some(why) = v
            .accept_test_changes
            .as_deref()
            .filter(|w| !w.trim().is_empty())
    {
        ctx.store.append_event(
            Some(&ctx.run_id),
            EventKind::TestsAccepted,
            json!({"who": format!("reviewer session {}", s.session_id.as_deref().unwrap_or("-")),
                   "why": why, "by": "code review", "verdict": vid, "findings": findings}),
        )?;
    }
    if v.clean() {
        // A clean review verifies the review criteria it names (all of them when it names none).
        let named: Vec<String> = v
            .verified_criteria
            .iter()
            .map(|c| c.trim().to_ascii_uppercase())
            .collect();
        for c in &review {
            if c.status != CriterionStatus::Verified && (named.is_empty() || named.contains(&c.id))
            {
                ctx.store.set_criterion_status(
                    &ctx.run_id,
                    &c.id,
                    CriterionStatus::Verified,
                    json!({"verdict": vid, "session_id": s.session_id, "iteration": s.n, "role": "reviewer"}),
                )?;
            }
        }
        ctx.end(
            Phase::Review,
            id,
            "passed",
            "clean: approved, architecture clear",
        )?;
        return Ok(None);
    }
    let cycles: Vec<_> = ctx
        .store
        .verdicts(&ctx.run_id)?
        .into_iter()
        .filter(|r| r.role == Role::Reviewer)
        .map(|r| r.findings)
        .collect();
    let reason = if v.architecture_status != ArchitectureStatus::Clear && v.blocking().count() == 0
    {
        format!(
            "architecture status {:?}; {}",
            v.architecture_status,
            rules::blocking_reason(&v)
        )
        .to_lowercase()
    } else {
        rules::blocking_reason(&v)
    };
    if let Some(f) = rules::repeated_finding(&cycles, ctx.pcfg.same_finding) {
        let why = format!(
            "the same blocking review finding came back in {} review cycles: {}",
            ctx.pcfg.same_finding, f.text
        );
        ctx.store
            .add_failure(&ctx.run_id, None, &why, FailureCategory::Code, false)?;
        ctx.end(Phase::Review, id, "failed", &why)?;
        return Err(Halt::Stop(StopReason::RepeatedFinding));
    }
    ctx.end(Phase::Review, id, "failed", &reason)?;
    Ok(Some(format!("code review (iteration {}): {reason}", s.n)))
}

/// The adversarial QA session, unless the change is docs-only or does not run (the reason is
/// recorded). Failures return the work to planning.
pub(crate) fn qa(ctx: &mut Ctx<'_>) -> P<Option<String>> {
    let id = ctx.begin(Phase::Qa)?;
    let changed = changed_files(ctx);
    if let Some(why) = rules::qa_skip_reason(&changed) {
        ctx.store
            .add_note(&ctx.run_id, &format!("QA skipped: {why}"))?;
        ctx.end(Phase::Qa, id, "skipped", &why)?;
        return Ok(None);
    }
    let body = format!(
        "## Goal\n{}\n\n{}\nExercise the change: run it, run the tests, try edge cases and bad input.",
        ctx.analysis.goal,
        diff_summary(ctx)
    );
    let (q, s): (QaOutput, SessionOut) = session::structured(ctx, Role::Qa, None, &body)?;
    // Stored as a verdict (with its session) like every other reviewer's.
    let as_verdict = VerdictOutput {
        approve: q.passed,
        architecture_status: ArchitectureStatus::Clear,
        findings: q.failures.clone(),
        verified_criteria: Vec::new(),
        accept_test_changes: None,
    };
    plan::record_verdict(ctx, Phase::Qa, Role::Qa, ctx.round, None, &s, &as_verdict)?;
    ctx.store.append_event(
        Some(&ctx.run_id),
        EventKind::Qa,
        json!({"iteration": s.n, "session_id": s.session_id, "exercised": q.exercised, "failures": q.failures}),
    )?;
    if as_verdict.approves() {
        ctx.end(
            Phase::Qa,
            id,
            "passed",
            &format!("exercised: {}", q.exercised.join("; ")),
        )?;
        return Ok(None);
    }
    let reason = rules::blocking_reason(&as_verdict);
    seal_qa_checks(ctx, &q.checks)?;
    ctx.end(Phase::Qa, id, "failed", &reason)?;
    Ok(Some(format!("QA (iteration {}): {reason}", s.n)))
}

/// QA's reproductions become hidden checks of the run: sealed (an event says so), run in the
/// clean room with the gates, never shown to the developer.
fn seal_qa_checks(ctx: &mut Ctx<'_>, checks: &[String]) -> P<()> {
    let run = ctx.store.run(&ctx.run_id)?;
    let mut settings = run.settings.clone();
    let Some(seal) = settings.seal.as_mut() else {
        return Ok(());
    };
    let vault = ctx.verifier.vault().cloned();
    let known = |seal: &pawl_core::seal::Seal, cmd: &str| {
        seal.checks.iter().any(|c| {
            c.command == cmd
                || vault
                    .as_ref()
                    .is_some_and(|v| c.code.as_deref() == Some(v.code(cmd).as_str()))
        })
    };
    let mut added = Vec::new();
    for cmd in checks
        .iter()
        .map(|c| c.trim())
        .filter(|c| !c.is_empty())
        .take(10)
    {
        if known(seal, cmd) {
            continue;
        }
        let n = seal
            .checks
            .iter()
            .filter(|c| c.name.starts_with("qa-"))
            .count();
        let check = pawl_core::seal::SealedCheck::new(
            format!("qa-{}", n + 1),
            cmd,
            pawl_core::seal::CheckRole::Hidden,
        );
        added.push(check.name.clone());
        seal.checks.push(check);
    }
    if added.is_empty() {
        return Ok(());
    }
    // Their commands are kept in the user's pawl state: the store is readable by the agent.
    if let Some(v) = &vault {
        v.stow(seal)
            .map_err(|e| crate::EngineError::Verify(e.into()))?;
    }
    ctx.store.append_event(
        Some(&ctx.run_id),
        EventKind::Sealed,
        json!({"why": "adversarial QA's reproductions, as hidden checks", "added": added, "after": seal.checks}),
    )?;
    ctx.store
        .update_settings(&ctx.run_id, &settings, "QA checks sealed as hidden checks")?;
    Ok(())
}

/// The cross-story audit: files changed by several stories are re-verified; conflicts (checks
/// failing on them) are reported.
pub(crate) fn audit(ctx: &mut Ctx<'_>) -> P<()> {
    let id = ctx.begin(Phase::Audit)?;
    let done: BTreeSet<String> = ctx
        .store
        .stories(&ctx.run_id)?
        .into_iter()
        .filter(|s| s.status == StoryStatus::Done)
        .map(|s| s.id)
        .collect();
    let mut by_file: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for i in ctx.store.iterations(&ctx.run_id)? {
        if let Some(s) = i.story_id.filter(|s| done.contains(s)) {
            for f in i.files {
                by_file.entry(f).or_default().insert(s.clone());
            }
        }
    }
    let shared: Vec<(String, Vec<String>)> = by_file
        .into_iter()
        .filter(|(_, s)| s.len() > 1)
        .map(|(f, s)| (f, s.into_iter().collect()))
        .collect();
    if shared.is_empty() {
        ctx.end(
            Phase::Audit,
            id,
            "passed",
            "no file was changed by more than one story",
        )?;
        return Ok(());
    }
    let report = ctx.verify()?;
    let files: Vec<String> = shared
        .iter()
        .map(|(f, s)| format!("{f} ({})", s.join(", ")))
        .collect();
    ctx.store.append_event(
        Some(&ctx.run_id),
        EventKind::Audit,
        json!({"shared_files": shared, "checks_pass": report.failing.is_empty(),
               "failing": report.failing.iter().map(|f| f.name.clone()).collect::<Vec<_>>()}),
    )?;
    if report.failing.is_empty() {
        ctx.end(
            Phase::Audit,
            id,
            "passed",
            &format!(
                "re-verified files changed by several stories: {}",
                files.join("; ")
            ),
        )?;
    } else {
        let note = format!(
            "conflict: files changed by several stories ({}) and checks failing: {}",
            files.join("; "),
            report
                .failing
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        ctx.store.add_note(&ctx.run_id, &note)?;
        ctx.end(Phase::Audit, id, "failed", &note)?;
    }
    Ok(())
}
