//! The receipt of a run: what was asked, why it stopped, what was verified on which tree, what it
//! cost, what changed and how to undo it, and a verdict a reviewer can trust.
//!
//! Built only from the store and git, never from the agent's words, so `pawl report` can rebuild
//! it at any time. Written as Markdown and JSON to `.pawl/reports/<run>.{md,json}`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pawl_core::EventKind;
use pawl_core::model::{CriterionStatus, VerifyKind};
use pawl_core::record::{Criterion, Iteration, Run, Story};
use pawl_core::{ExitCode, StopReason};
use pawl_store::Store;
use serde::Serialize;

use crate::EngineError;
use crate::verify::{CheckSummary, VerifyReport};

pub use pawl_core::Verdict;

#[derive(Debug, Clone, Serialize)]
pub struct CriterionLine {
    #[serde(flatten)]
    pub criterion: Criterion,
    /// The check that decided it, with its tree hash.
    pub evidence: Option<CheckSummary>,
    /// An assumption the last verification checked: the evidence (`pawl_core::scope`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<String>,
    /// What the report says of it: "verified" only with its evidence (`pawl_core::evidence`).
    pub shown: pawl_core::evidence::Shown,
}

/// The run's criteria with the evidence each rests on, for the final verification `last`: a
/// command criterion's check in it (or the evidence recorded with its status for that same
/// tree), a review's verdict, an assumption's checking fact.
fn criterion_lines(
    store: &Store,
    run_id: &str,
    last: Option<&VerifyReport>,
) -> Result<Vec<CriterionLine>, EngineError> {
    let criteria = store.criteria(run_id)?;
    // What each status was last recorded with (read only when a criterion needs it).
    let needs_recorded = criteria
        .iter()
        .any(|c| c.status == CriterionStatus::Verified);
    let mut recorded: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    if needs_recorded {
        for e in store.events_of_kind(run_id, EventKind::CriterionStatus)? {
            if let Some(id) = e.data.get("id").and_then(|i| i.as_str()) {
                recorded.insert(
                    id.to_string(),
                    e.data.get("evidence").cloned().unwrap_or_default(),
                );
            }
        }
    }
    let tree = last.map(|r| r.tree_hash.as_str());
    Ok(criteria
        .into_iter()
        .map(|c| {
            let evidence = last.and_then(|r| {
                r.checks
                    .iter()
                    .find(|k| k.name == format!("criterion:{}", c.id))
                    .cloned()
            });
            let checked = last.and_then(|r| {
                r.assumptions
                    .iter()
                    .find(|a| a.id == c.id)
                    .map(|a| a.evidence.clone())
            });
            let rec = recorded.get(&c.id);
            let text = match c.verification.kind {
                VerifyKind::Assumption => checked.clone(),
                VerifyKind::Command => evidence
                    .as_ref()
                    .map(|e| {
                        format!(
                            "{} ({}) on tree {}",
                            e.name,
                            if e.passed { "pass" } else { "fail" },
                            short(tree.unwrap_or("-"))
                        )
                    })
                    .or_else(|| {
                        // Recorded for the final tree by a verification of its own.
                        let rec = rec?;
                        let t = rec.get("tree").and_then(|t| t.as_str())?;
                        let id = rec.get("evidence")?;
                        (Some(t) == tree).then(|| format!("evidence {id} on tree {}", short(t)))
                    }),
                VerifyKind::Review | VerifyKind::Observation => rec.and_then(|r| {
                    let verdict = r.get("verdict").filter(|v| !v.is_null())?;
                    let by = r
                        .get("session_id")
                        .and_then(|s| s.as_str())
                        .map(|s| format!(" by reviewer session {s}"))
                        .unwrap_or_default();
                    Some(format!("review verdict {verdict}{by}"))
                }),
            };
            let shown = pawl_core::evidence::shown(c.verification.kind, c.status, text.as_deref());
            CriterionLine {
                criterion: c,
                evidence,
                checked,
                shown,
            }
        })
        .collect())
}

fn short(tree: &str) -> &str {
    tree.get(..12).unwrap_or(tree)
}

/// Where the agent's transcript of one step is.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Transcript {
    pub iteration: u32,
    /// Relative to the repository root (`.pawl/logs/<run>-iter-<n>.log`).
    pub log: String,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct FileChange {
    pub path: String,
    pub insertions: u64,
    pub deletions: u64,
}

/// Coverage in the report: the figure a coverage tool among the checks reported on the final
/// tree, or that none did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    pub measured: bool,
    /// Total line coverage, percent.
    pub percent: Option<f64>,
    /// The check that reported it.
    pub check: Option<String>,
}

impl Coverage {
    fn of(checks: &[CheckSummary]) -> Coverage {
        match checks.iter().find_map(|c| Some((c, c.coverage?))) {
            Some((c, p)) => Coverage {
                measured: true,
                percent: Some(p),
                check: Some(c.name.clone()),
            },
            None => Coverage {
                measured: false,
                percent: None,
                check: None,
            },
        }
    }

    /// One line for people.
    pub fn line(&self) -> String {
        match (self.percent, &self.check) {
            (Some(p), Some(c)) => format!(
                "{} (reported by check `{c}` on the final tree)",
                pawl_core::coverage::percent(p)
            ),
            _ => "not measured: no check ran a coverage tool (pytest-cov or coverage.py, c8 or nyc, cargo llvm-cov or tarpaulin, go test -cover) — add one as a `coverage` gate".into(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub run_id: String,
    pub goal: String,
    pub status: String,
    pub stop_reason: Option<StopReason>,
    pub exit_code: i32,
    pub verdict: Verdict,
    pub verdict_reason: String,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub active_ms: u64,
    pub cost_usd: f64,
    pub cost_estimated: bool,
    pub tokens: u64,
    pub tree_hash: Option<String>,
    pub checks: Vec<CheckSummary>,
    /// The coverage figure of the final verification, or that it was not measured.
    pub coverage: Coverage,
    pub criteria: Vec<CriterionLine>,
    pub stories: Vec<StoryLine>,
    /// For a plan run in parallel: how many workers, how far a limit can be overshot, and what
    /// the stories' worktrees hold on disk (docs/parallel.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallel: Option<ParallelSummary>,
    pub iterations: Vec<Iteration>,
    pub failures_by_class: BTreeMap<String, u32>,
    pub files_changed: Vec<FileChange>,
    pub branch: Option<String>,
    pub pre_run_commit: Option<String>,
    pub rollback_command: Option<String>,
    /// The safety guard was switched off (`[guard] allow_unsafe = true`) for this run.
    pub guard_off: bool,
    /// Commands or file writes the guard denied during the run.
    pub guard_denials: u32,
    /// How the agent steps were sandboxed (the last start of the loop): `sandbox:
    /// landlock+namespaces`, `sandbox: none (...)`; `None` for a run no loop drove.
    pub sandbox: Option<String>,
    /// Paths the sandbox protects that a step created (they did not exist, so nothing could be
    /// bound over them), and whether pawl removed them.
    pub protected_created: Vec<serde_json::Value>,
    /// What steps changed in HOME's persistence places (`crate::start::home`): the path, how,
    /// what it does, whether pawl put it back and where it kept what the step left.
    pub home_changed: Vec<serde_json::Value>,
    /// Phases, verdicts, scores and convergence, for a run of the pipeline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<crate::pipeline::report::PipelineReport>,
    /// What proves the goal: checks and tests that failed on the pre-run code and pass now.
    pub red_to_green: Vec<String>,
    /// The findings of the last verification that decide (REVIEW), each with its hunk.
    pub findings: Vec<String>,
    /// What the test-protection screen noted on a run whose locked run held: shown, not deciding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub noted: Vec<String>,
    /// The locked run of the last verification: the baseline's tests on the baseline plus the
    /// run's product changes; the changes it took and left out (with their diffs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locked: Option<crate::verify::LockedRun>,
    /// The user's acceptance of the run's changes outside product source: who and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes_accepted: Vec<serde_json::Value>,
    /// The run's changes against what the goal's failing tests exercise: in scope with why,
    /// outside with their lines, the decision (`pawl_core::scope`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<pawl_core::scope::Scope>,
    /// How the exported symbols of the changed product files changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface: Option<pawl_core::scope::Interface>,
    /// What the goal targets of the baseline's failures, and how the failing tests were tied to
    /// its terms (`pawl_core::spec::facts::Anchoring`; issue 35 point 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targeting: Option<pawl_core::spec::facts::Anchoring>,
    /// The agent's transcript of each step (its step log, relative to the repository root):
    /// `pawl logs --iteration N` prints one.
    pub transcripts: Vec<Transcript>,
    /// Every seal of the run (at start, `pawl resume --reseal`): why, and the checks.
    pub seals: Vec<serde_json::Value>,
    /// The user's (or a reviewer's) acceptance of the changed tests: who and why.
    pub tests_accepted: Vec<serde_json::Value>,
    /// What was modified in the run's state outside pawl (table, row, field): when not empty,
    /// nothing the run recorded is trusted (the verdict is RESEARCH).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tampering: Vec<pawl_store::Finding>,
    /// The independent reviewer (issue 34 point 3): whether the run has one, from what was
    /// sealed, and its session on the last verified tree.
    pub reviewer: ReviewerSummary,
    /// The independent tester (issue 33 point 2): who wrote the hidden tests, how many, what
    /// it cost. `None`: the run has no tester.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tester: Option<crate::verify::hidden_tests::TesterRecord>,
    /// What the verdict rests on: the locked tests, the probes, the hidden tests (how many,
    /// from which session), the reviewers — one line each.
    pub rests_on: Vec<String>,
    /// What the independent tester's hidden tests that fail on the last verified tree called
    /// and got, and which of them did not run (by name), for the user of a run that ended: read from the user's pawl state by
    /// [`reveal`], never from the store. Always empty in what [`write`] puts under the
    /// repository's `.pawl/reports/` (a step reads it) and in what [`build`] gives.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden_failed: Vec<String>,
}

/// Fills [`Report::hidden_failed`] from the private directory of `vault` (the user's pawl
/// state; a sandboxed step has none): for what `pawl report` and the end of a run show the
/// user, never for [`write`]. Only for a run that ended with hidden tests failing on its last
/// verified tree: while it goes on, the executor is told the behaviour alone.
pub fn reveal(report: &mut Report, vault: Option<&crate::hidden::Vault>) {
    let tree = report
        .locked
        .as_ref()
        .filter(|l| {
            l.hidden
                .as_ref()
                .is_some_and(|h| !h.failing.is_empty() || !h.not_run.is_empty())
        })
        .map(|l| l.tree.clone());
    report.hidden_failed = match (tree, report.stop_reason) {
        (Some(tree), Some(_)) => crate::verify::hidden_tests::details(vault, &report.run_id, &tree),
        _ => Vec::new(),
    };
}

/// What the last verification's verdict rests on, one line per kind of evidence.
fn rests_on(
    last: Option<&VerifyReport>,
    reviewer: &ReviewerSummary,
    tester: Option<&crate::verify::hidden_tests::TesterRecord>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let Some(r) = last else {
        return out;
    };
    let proof = r.proof.as_ref();
    let deciding = proof.map(|p| p.red_to_green.len()).unwrap_or(0);
    match r.locked.as_ref() {
        Some(l) => out.push(format!(
            "locked tests: {deciding} deciding (failing on the pre-run code, passing now), run {} time(s) on the locked tree: {:?}",
            l.runs, l.result
        )),
        None => out.push(format!("locked tests: {deciding} deciding; no locked run")),
    }
    match r
        .locked
        .as_ref()
        .and_then(|l| l.lines.iter().find(|x| x.contains("deciding calls")))
    {
        Some(line) => out.push(line.clone()),
        None => out.push("probes: none ran".into()),
    }
    match (tester, r.locked.as_ref().and_then(|l| l.hidden.as_ref())) {
        (_, Some(h)) => out.push(h.line()),
        (Some(t), None) => out.push(format!(
            "hidden tests: {} file(s) from {}{}; not run on this tree",
            t.files,
            t.who,
            t.failed
                .as_ref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default()
        )),
        (None, None) => out.push("hidden tests: none (no independent tester)".into()),
    }
    out.push(match &reviewer.session {
        Some(s) => format!(
            "reviewers: {} session {}: {}",
            s.agent,
            s.session_id.as_deref().unwrap_or("(none)"),
            s.verdict.word()
        ),
        None => format!("reviewers: none ({})", reviewer.why),
    });
    out
}

/// The independent reviewer as the report shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewerSummary {
    pub on: bool,
    pub why: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<crate::verify::reviewer::ReviewRecord>,
}

/// The reviewer's lines of the Markdown report.
fn reviewer_markdown(r: &ReviewerSummary) -> String {
    let head = format!(
        "\n**Independent reviewer**: {} — {}\n",
        if r.on { "on" } else { "off" },
        r.why
    );
    let Some(s) = &r.session else {
        return head;
    };
    let said = match &s.verdict {
        pawl_core::review::Verdict::Clear => {
            "no special case of the tests or the environment".to_owned()
        }
        pawl_core::review::Verdict::Flagged { findings } => {
            format!(
                "the change special-cases the tests or the environment ({} finding(s), listed below)",
                findings.len()
            )
        }
        pawl_core::review::Verdict::NoAnswer { why } => format!("no usable answer ({why})"),
        pawl_core::review::Verdict::ChangedTree { why } => {
            format!("its session changed the tree ({why}): answer not used")
        }
        pawl_core::review::Verdict::Stopped { why } => {
            format!("ended before it answered ({why}): asked again when the run resumes")
        }
    };
    let again: String = s
        .malformed
        .iter()
        .map(|m| {
            format!(
                "; asked again after session {} gave an answer that could not be used ({})",
                m.session_id.as_deref().unwrap_or("(none)"),
                m.why
            )
        })
        .collect();
    format!(
        "{head}- {} session {} on tree {}: **{}** — {said}{again}{}\n",
        if s.agent.is_empty() { "no" } else { &s.agent },
        s.session_id.as_deref().unwrap_or("(none)"),
        s.tree,
        s.verdict.word(),
        if s.refused > 0 {
            format!("; {} tool use(s) refused by its read-only agent", s.refused)
        } else {
            String::new()
        }
    )
}

/// One story of the report; for a plan run in parallel, with its worktree and what the merge
/// queue said (`attempts` is then the sessions that worked on it).
#[derive(Debug, Clone, Serialize)]
pub struct StoryLine {
    #[serde(flatten)]
    pub story: Story,
    #[serde(flatten)]
    pub parallel: Option<ParallelStory>,
}

/// What the parallel driver kept of a story.
#[derive(Debug, Clone, Serialize)]
pub struct ParallelStory {
    /// The run's own id of the story (the plan's id is `id`).
    pub story_id: String,
    pub state: pawl_core::parallel::WorkState,
    /// merged | conflict | red | pending
    pub merge: pawl_core::parallel::MergeResult,
    /// What the merge queue saw on the merged tree: its tree and commit, each check's result
    /// and evidence id (or the conflicting paths).
    pub evidence: serde_json::Value,
    /// Verifications of its own that failed (in its worktree).
    pub failed_verifications: u32,
    pub branch: String,
    pub worktree: String,
    /// Bytes its worktree holds now (0 once it is removed).
    pub disk_bytes: u64,
    pub merged_commit: Option<String>,
}

/// The parallel driver's summary.
#[derive(Debug, Clone, Serialize)]
pub struct ParallelSummary {
    pub workers: u64,
    /// How far past a limit the run can go: every worker checks the run's limits before each
    /// step, so at most the steps already in flight (one per other worker).
    pub overshoot: String,
    pub worktrees_bytes: u64,
}

fn story_lines(
    store: &Store,
    run_id: &str,
) -> Result<(Vec<StoryLine>, Option<ParallelSummary>), EngineError> {
    let stories = store.stories(run_id)?;
    let works = store.story_works(run_id)?;
    if works.is_empty() {
        return Ok((
            stories
                .into_iter()
                .map(|story| StoryLine {
                    story,
                    parallel: None,
                })
                .collect(),
            None,
        ));
    }
    let mut total = 0;
    let mut lines = Vec::new();
    for w in works {
        let Some(mut story) = stories.iter().find(|s| s.id == w.story_id).cloned() else {
            continue;
        };
        let failed = story.attempts;
        story.id = w.plan.id.clone();
        story.attempts = w.attempts;
        let bytes = crate::parallel::disk_use(std::path::Path::new(&w.worktree));
        total += bytes;
        lines.push(StoryLine {
            story,
            parallel: Some(ParallelStory {
                story_id: w.story_id,
                state: w.state,
                merge: w.merge,
                evidence: w.evidence,
                failed_verifications: failed,
                branch: w.branch,
                worktree: w.worktree,
                disk_bytes: bytes,
                merged_commit: w.merged_commit,
            }),
        });
    }
    let workers = store
        .events_after(Some(run_id), 0, usize::MAX)?
        .iter()
        .rev()
        .filter(|e| e.is(EventKind::StoryWork))
        .find_map(|e| e.data.get("workers").and_then(|v| v.as_u64()))
        .unwrap_or(1);
    Ok((
        lines,
        Some(ParallelSummary {
            workers,
            overshoot: format!(
                "limits are checked before every step across all {workers} worker(s): a limit is overshot by at most {} step(s) already in flight",
                workers.saturating_sub(1)
            ),
            worktrees_bytes: total,
        }),
    ))
}

/// Everything found modified in a run's state outside pawl: what each `tampered` event recorded
/// when the run was stopped (the run row is put back then, so only the event remembers it), and
/// what a check finds now. Empty for an intact run.
pub fn tampering(store: &Store, run_id: &str) -> Vec<pawl_store::Finding> {
    let mut found: Vec<pawl_store::Finding> = store
        .events_after(Some(run_id), 0, usize::MAX)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.is(EventKind::Tampered))
        .filter_map(|e| e.data.get("findings").cloned())
        .filter_map(|f| serde_json::from_value::<Vec<pawl_store::Finding>>(f).ok())
        .flatten()
        .collect();
    if let Ok(Some(now)) = store.tampering(run_id) {
        found.extend(now.findings);
    }
    let mut seen = std::collections::BTreeSet::new();
    found.retain(|f| seen.insert(f.to_string()));
    found
}

/// The step logs of `run_id` under `root`'s `.pawl/logs`, by iteration.
fn transcripts(root: &Path, run_id: &str) -> Vec<Transcript> {
    let prefix = format!("{run_id}-iter-");
    let mut out: Vec<Transcript> = std::fs::read_dir(root.join(".pawl").join("logs"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let n: u32 = name
                .strip_prefix(&prefix)?
                .strip_suffix(".log")?
                .parse()
                .ok()?;
            Some(Transcript {
                iteration: n,
                log: format!(".pawl/logs/{name}"),
            })
        })
        .collect();
    out.sort_by_key(|t| t.iteration);
    out
}

/// Builds the report of `run_id` from the store (and git, for what changed).
///
/// A run whose state was modified outside pawl still gets a report: the run as pawl last signed
/// it, what was modified, and what can still be read — with the verdict RESEARCH.
pub fn build(store: &Store, run_id: &str, root: &Path) -> Result<Report, EngineError> {
    build_at(store, run_id, Some(root))
}

/// [`build`] where the run's clone may not be at hand (`None`: a run of a shared store driven on
/// another machine): what changed and the transcripts are then left empty — the caller fills
/// them from what the run published (`crate::publish`).
pub fn build_at(store: &Store, run_id: &str, root: Option<&Path>) -> Result<Report, EngineError> {
    let (run, _) = store.run_as_signed(run_id)?;
    let tampering = tampering(store, run_id);
    let spent = store.spent(run_id)?;
    let iterations = store.iterations(run_id)?;
    let (stories, parallel) = story_lines(store, run_id)?;
    let events = store.events_after(Some(run_id), 0, usize::MAX)?;
    let guard_off = events.iter().any(|e| e.is(EventKind::GuardOff));
    let guard_denials = events
        .iter()
        .filter(|e| e.is(EventKind::GuardDenied))
        .count() as u32;
    let sandbox = events
        .iter()
        .rev()
        .find(|e| e.is(EventKind::Sandbox))
        .and_then(|e| {
            e.data
                .get("line")
                .and_then(|l| l.as_str())
                .map(str::to_string)
        });
    let protected_created: Vec<serde_json::Value> = events
        .iter()
        .filter(|e| e.is(EventKind::ProtectedCreated))
        .map(|e| e.data.clone())
        .collect();
    let home_changed: Vec<serde_json::Value> = events
        .iter()
        .filter(|e| e.is(EventKind::HomeChanged))
        .map(|e| e.data.clone())
        .collect();
    let seals: Vec<serde_json::Value> = events
        .iter()
        .filter(|e| e.is(EventKind::Sealed))
        .map(|e| e.data.clone())
        .collect();
    let tests_accepted: Vec<serde_json::Value> = events
        .iter()
        .filter(|e| e.is(EventKind::TestsAccepted))
        .map(|e| e.data.clone())
        .collect();
    let changes_accepted: Vec<serde_json::Value> = events
        .iter()
        .filter(|e| e.is(EventKind::ChangesAccepted))
        .map(|e| e.data.clone())
        .collect();
    let last: Option<VerifyReport> = events
        .into_iter()
        .rev()
        .find(|e| e.is(EventKind::Verification))
        .and_then(|e| serde_json::from_value(e.data).ok());
    let checks = last.as_ref().map(|r| r.checks.clone()).unwrap_or_default();
    let criteria = criterion_lines(store, run_id, last.as_ref()).unwrap_or_default();
    let mut failures_by_class = BTreeMap::new();
    for f in store.failures(run_id, None, usize::MAX)? {
        *failures_by_class.entry(f.category.to_string()).or_insert(0) += 1;
    }
    let mut files_changed = Vec::new();
    if let (Some(Ok(git)), Some(pre)) = (
        root.map(pawl_git::Repo::open),
        run.pre_run_commit.clone().and_then(pawl_git::CommitId::new),
    ) && let Ok(stat) = git.diff_stat(&pre)
    {
        for f in stat.files {
            files_changed.push(FileChange {
                path: f.path.display().to_string(),
                insertions: f.insertions,
                deletions: f.deletions,
            });
        }
    }
    let (verdict, verdict_reason) = if tampering.is_empty() {
        verdict(run.stop_reason, &criteria, last.as_ref())
    } else {
        (
            Verdict::Research,
            format!(
                "the run's state was modified outside pawl (tampered: {} finding(s), listed below): nothing it recorded can be trusted",
                tampering.len()
            ),
        )
    };
    let reviewer = crate::verify::reviewer_decision(&run);
    let reviewer = ReviewerSummary {
        on: reviewer.on,
        why: reviewer.why,
        session: last.as_ref().and_then(|r| r.reviewer.clone()),
    };
    let tester: Option<crate::verify::hidden_tests::TesterRecord> = store
        .last_event(run_id, EventKind::Tester)?
        .and_then(|e| serde_json::from_value(e.data).ok());
    let rests_on = rests_on(last.as_ref(), &reviewer, tester.as_ref());
    Ok(Report {
        run_id: run.id.clone(),
        goal: run.goal.clone(),
        status: run.status.to_string(),
        stop_reason: run.stop_reason,
        exit_code: run
            .stop_reason
            .map(|r| pawl_core::run_exit_code(r, verdict).code())
            .unwrap_or(0),
        verdict,
        verdict_reason,
        started_at: run.created_at,
        ended_at: run.ended_at.or(Some(run.updated_at)),
        active_ms: spent.active_ms,
        cost_usd: spent.usd,
        cost_estimated: iterations.iter().any(|i| i.cost_estimated),
        tokens: spent.tokens,
        tree_hash: last.as_ref().map(|r| r.tree_hash.clone()),
        coverage: Coverage::of(&checks),
        checks,
        criteria,
        stories,
        parallel,
        iterations,
        failures_by_class,
        files_changed,
        branch: run.branch.clone(),
        rollback_command: run
            .pre_run_commit
            .as_ref()
            .map(|_| format!("pawl rollback --run {}", run.id)),
        pre_run_commit: run.pre_run_commit,
        guard_off,
        guard_denials,
        sandbox,
        protected_created,
        home_changed,
        red_to_green: last
            .as_ref()
            .and_then(|r| r.proof.as_ref())
            .map(|p| p.red_to_green.clone())
            .unwrap_or_default(),
        findings: last
            .as_ref()
            .map(|r| r.findings.clone())
            .unwrap_or_default(),
        noted: last.as_ref().map(|r| r.noted.clone()).unwrap_or_default(),
        locked: last.as_ref().and_then(|r| r.locked.clone()),
        scope: last.as_ref().and_then(|r| r.scope.clone()),
        interface: last.as_ref().and_then(|r| r.interface.clone()),
        targeting: last.as_ref().and_then(|r| r.targeting.clone()),
        changes_accepted,
        seals,
        tests_accepted,
        tampering,
        reviewer,
        tester,
        rests_on,
        hidden_failed: Vec::new(),
        transcripts: root.map(|r| transcripts(r, run_id)).unwrap_or_default(),
        pipeline: crate::pipeline::report::build(store, run_id)
            .ok()
            .filter(|p| !p.is_empty()),
    })
}

/// The verdict of `run_id` and why, as [`build`] gives it, without the rest of the report (no
/// git, no event scan): for listing many runs (`pawl runs`).
/// Whether a pull request may be opened for the run: only on SHIP — verified by pawl, bound to
/// the goal, the tests intact (the workflow: no PR unless everything passed). `Err` says why
/// not, in one sentence a user can act on.
pub fn pr_allowed(report: &Report) -> Result<(), String> {
    if report.verdict == Verdict::Ship && report.stop_reason == Some(StopReason::Verified) {
        return Ok(());
    }
    let reason = report
        .stop_reason
        .map(|r| format!("it stopped `{r}` (exit code {})", r.exit_code().code()))
        .unwrap_or_else(|| format!("it is {}", report.status));
    let verdict = serde_json::to_value(report.verdict)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    Err(format!(
        "no pull request: run {} is not SHIP — its verdict is {verdict} ({}), and {reason}",
        report.run_id, report.verdict_reason
    ))
}

/// The exit code of a run that stopped: its stop reason's, and for a stop with verified checks
/// its verdict's ([`pawl_core::run_exit_code`]: 0 is SHIP only). `None` while it has not stopped.
pub fn exit_code_of(store: &Store, run_id: &str) -> Result<Option<ExitCode>, EngineError> {
    let run = store.run(run_id)?;
    let Some(reason) = run.stop_reason else {
        return Ok(None);
    };
    let (verdict, _) = verdict_for(store, &run)?;
    Ok(Some(pawl_core::run_exit_code(reason, verdict)))
}

pub fn verdict_of(store: &Store, run_id: &str) -> Result<(Verdict, String), EngineError> {
    verdict_for(store, &store.run(run_id)?)
}

/// [`verdict_of`] for a run already read (listings read every run once, not twice).
pub fn verdict_for(store: &Store, run: &Run) -> Result<(Verdict, String), EngineError> {
    let run_id = run.id.as_str();
    let last: Option<VerifyReport> = store
        .last_event(run_id, EventKind::Verification)?
        .and_then(|e| serde_json::from_value(e.data).ok());
    let criteria = criterion_lines(store, run_id, last.as_ref())?;
    Ok(verdict(run.stop_reason, &criteria, last.as_ref()))
}

fn verdict(
    reason: Option<StopReason>,
    criteria: &[CriterionLine],
    last: Option<&VerifyReport>,
) -> (Verdict, String) {
    if let Some(r) = last
        && r.failing.is_empty()
        && r.unmet.is_empty()
        && !r.done
    {
        let locked = r.locked.as_ref().map(|l| l.result);
        match r.outcome {
            Some(pawl_core::proof::Outcome::Nondeterministic) => {
                return (
                    Verdict::Nondeterministic,
                    format!(
                        "the checks pass, but the tests that decide gave different results when pawl ran them again on the same tree: {}",
                        r.locked
                            .as_ref()
                            .map(|l| l.lines.join("; "))
                            .unwrap_or_default()
                    ),
                );
            }
            Some(pawl_core::proof::Outcome::Review)
                if matches!(
                    locked,
                    Some(
                        pawl_core::proof::Locked::NeedsOtherChanges
                            | pawl_core::proof::Locked::Asked
                    )
                ) =>
            {
                return (
                    Verdict::Review,
                    r.locked
                        .as_ref()
                        .and_then(|l| l.question())
                        .unwrap_or_else(|| {
                            "the baseline's tests could not be run on the run's product changes alone (listed below)".into()
                        }),
                );
            }
            Some(pawl_core::proof::Outcome::Review)
                if r.proof.as_ref().is_some_and(|p| p.findings == 0)
                    && let Some(q) = r.scope.as_ref().and_then(|s| s.question()) =>
            {
                return (Verdict::Review, q);
            }
            Some(pawl_core::proof::Outcome::Unproven)
                if locked == Some(pawl_core::proof::Locked::NothingChanged) =>
            {
                return (
                    Verdict::Unproven,
                    "the checks pass, but the run changed no product source or declaration: what went green did not come from the code (the environment or the tests changed)".into(),
                );
            }
            // What a step left in HOME's persistence places alone keeps the run from SHIP.
            Some(pawl_core::proof::Outcome::Review)
                if r.proof.as_ref().is_some_and(|p| {
                    pawl_core::proof::alone_keeps_from_done(p, |q| q.home_changes = 0)
                }) =>
            {
                return (
                    Verdict::Review,
                    format!(
                        "the checks pass, but a step left {} change(s) in HOME where they run later, outside the repository (listed below): check them, then accept with `pawl accept <run> --changes \"<why>\"` or send the work back",
                        r.proof.as_ref().map_or(0, |p| p.home_changes)
                    ),
                );
            }
            // The independent tester's hidden tests alone keep the run from SHIP.
            Some(pawl_core::proof::Outcome::Review)
                if r.proof.as_ref().is_some_and(|p| {
                    pawl_core::proof::alone_keeps_from_done(p, |q| q.hidden_findings = 0)
                }) =>
            {
                return (
                    Verdict::Review,
                    "the checks pass, but an independent check fails: hidden tests of the goal's behaviour, written before the first step by a session the executor never saw, give other answers (listed below): send the work back, or accept with `pawl accept <run> --changes \"<why>\"`".into(),
                );
            }
            // A tester that was asked for and whose hidden tests did not run alone keeps the
            // run from SHIP (`pawl_core::tester::unrun`).
            Some(pawl_core::proof::Outcome::Review)
                if r.proof.as_ref().is_some_and(|p| {
                    pawl_core::proof::alone_keeps_from_done(p, |q| q.tester_unrun = false)
                }) =>
            {
                return (
                    Verdict::Review,
                    format!(
                        "the checks pass, but {}: the verdict would rest on hidden tests that never ran — run again, or accept with `pawl accept <run> --changes \"<why>\"` (`--no-tester` leaves the tester out)",
                        r.findings
                            .iter()
                            .find(|f| f.ends_with("no hidden test ran"))
                            .map_or(
                                "the independent tester gave no hidden test that ran",
                                String::as_str
                            )
                    ),
                );
            }
            // The independent reviewer alone keeps the run from SHIP.
            Some(pawl_core::proof::Outcome::Review)
                if r.proof.as_ref().is_some_and(|p| {
                    pawl_core::proof::alone_keeps_from_done(p, |q| q.reviewer_findings = 0)
                }) =>
            {
                return (
                    Verdict::Review,
                    format!(
                        "the checks pass, but the independent reviewer {} ({} finding(s), listed below): accept with `pawl accept <run> --changes \"<why>\"` or send the work back",
                        match r.reviewer.as_ref().map(|s| &s.verdict) {
                            Some(pawl_core::review::Verdict::Flagged { .. }) =>
                                "says the change special-cases the tests or the environment",
                            Some(pawl_core::review::Verdict::ChangedTree { .. }) =>
                                "changed the tree during its session",
                            Some(pawl_core::review::Verdict::Stopped { .. }) =>
                                "was ended by the run's stop before it answered",
                            _ => "gave no answer pawl can use",
                        },
                        r.findings.len()
                    ),
                );
            }
            Some(pawl_core::proof::Outcome::Review)
                if crate::verify::only_key_exposed(&r.findings) =>
            {
                return (
                    Verdict::Review,
                    format!("the checks pass, but {}", r.findings.join("; ")),
                );
            }
            // What the locked run, the probes, the environment or the sealed tools found (the
            // typed stop reason `review`): not a change of the tests.
            Some(pawl_core::proof::Outcome::Review)
                if r.proof.as_ref().is_some_and(|p| p.tests_findings == 0) =>
            {
                return (
                    Verdict::Review,
                    format!(
                        "the checks pass, but the run's changes need a person's judgement ({} finding(s), listed below): accept with `pawl accept <run> --tests \"<why>\"` or send the work back",
                        r.findings.len()
                    ),
                );
            }
            Some(pawl_core::proof::Outcome::Review) => {
                return (
                    Verdict::Review,
                    format!(
                        "the checks pass, but the tests were changed ({} finding(s), listed below): accept with `pawl accept <run> --tests \"<why>\"` or send the work back",
                        r.findings.len()
                    ),
                );
            }
            Some(pawl_core::proof::Outcome::Unproven) => {
                return (
                    Verdict::Unproven,
                    "the checks pass, but nothing proves the goal: no check or test failed on the pre-run code and passes now".into(),
                );
            }
            _ => {}
        }
    }
    if reason != Some(StopReason::Verified) || !last.is_some_and(|r| r.done) {
        return (
            Verdict::Research,
            "the run did not reach verified checks".into(),
        );
    }
    // A criterion counts only with its evidence (`pawl_core::evidence`): an assumption once the
    // run's facts checked it (`pawl_core::scope`), a criterion marked verified once the report
    // can show what verified it. One that cannot keeps the run from SHIP.
    if let Some(c) = criteria.iter().find(|c| {
        c.criterion.status != CriterionStatus::Verified
            || (matches!(c.criterion.verification.kind, VerifyKind::Assumption) && !c.shown.counts)
    }) {
        return (
            Verdict::Research,
            format!("{} is unverified or only assumed", c.criterion.id),
        );
    }
    if let Some(c) = criteria.iter().find(|c| !c.shown.counts) {
        return (
            Verdict::Research,
            format!(
                "{} is marked verified, but nothing on the final tree shows it: no evidence",
                c.criterion.id
            ),
        );
    }
    if let Some(c) = criteria.iter().find(|c| {
        matches!(
            c.criterion.verification.kind,
            VerifyKind::Review | VerifyKind::Observation
        )
    }) {
        return (
            Verdict::Monitor,
            format!("{} is verified by review, not by execution", c.criterion.id),
        );
    }
    (
        Verdict::Ship,
        "every check was run by pawl and passes on the final tree".into(),
    )
}

/// The most pre-existing items the Markdown report lists per check (the JSON has them all).
const MAX_PRE_EXISTING: usize = 20;

/// Writes `<dir>/<run>.md` and `.json`; returns the Markdown path. Never what the hidden tests
/// called and got ([`Report::hidden_failed`]): `dir` is the repository's `.pawl/reports/`, which
/// every step reads.
pub fn write(report: &Report, dir: &Path) -> Result<PathBuf, EngineError> {
    let kept;
    let report = if report.hidden_failed.is_empty() {
        report
    } else {
        kept = Report {
            hidden_failed: Vec::new(),
            ..report.clone()
        };
        &kept
    };
    let md = dir.join(format!("{}.md", report.run_id));
    let json = dir.join(format!("{}.json", report.run_id));
    let err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| EngineError::Report { path, source }
    };
    std::fs::create_dir_all(dir).map_err(err(dir))?;
    let text = serde_json::to_string_pretty(report).unwrap_or_default();
    std::fs::write(&json, text).map_err(err(&json))?;
    std::fs::write(&md, markdown(report)).map_err(err(&md))?;
    Ok(md)
}

fn dur(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else if s > 0 {
        format!("{}.{}s", s, (ms % 1000) / 100)
    } else {
        format!("{ms}ms")
    }
}

/// The locked run as the Markdown report shows it.
fn locked_markdown(l: &crate::verify::LockedRun) -> String {
    use pawl_core::proof::Locked;
    let mut o = String::from("\n## Locked evaluation\n\n");
    o.push_str(match l.result {
        Locked::Holds => "The baseline's tests, under the baseline's configuration, pass on the baseline plus the run's product changes alone",
        Locked::NeedsOtherChanges => "The baseline's tests do NOT pass on the baseline plus the run's product changes alone",
        Locked::NothingChanged => "The run changed no product source or declaration",
        Locked::Differs => "The tests that decide gave different results on the same locked tree",
        Locked::Asked => "The baseline's tests pass on the baseline plus the run's product changes alone, but the goal asks for a change they leave out",
    });
    if l.runs > 0 {
        o.push_str(&format!(
            " (run {} time(s); locked tree {})",
            l.runs, l.tree
        ));
    }
    o.push_str(".\n\n");
    for line in &l.lines {
        o.push_str(&format!("- {line}\n"));
    }
    if let Some(c) = &l.cost {
        o.push_str(&format!(
            "\nCost: {} for the whole locked run ({} for its first pass), against {} for the checks on the run's tree.\n",
            dur(c.total_ms),
            dur(c.first_ms),
            dur(c.gate_ms)
        ));
    }
    if !l.ids.is_empty() {
        o.push_str("\nHow each check's tests were seen on the locked tree:\n\n");
        for m in &l.ids {
            o.push_str(&format!("- {}\n", m.describe()));
        }
    }
    if !l.taken.is_empty() {
        o.push_str("\nTaken (product source and declarations):\n\n");
        for t in &l.taken {
            o.push_str(&format!("- {t}\n"));
        }
    }
    if !l.left_out.is_empty() {
        o.push_str("\nLeft out (the run's other changes):\n\n");
        for c in &l.left_out {
            o.push_str(&format!("- `{}` — {}\n", c.path, c.role));
            if !c.diff.trim().is_empty() {
                o.push_str(&format!("\n```diff\n{}\n```\n", c.diff.trim_end()));
            }
        }
    }
    o
}

/// What the goal targets as the Markdown report shows it: the baseline failures that must pass,
/// what the goal is anchored on, and how the failing tests were tied to its terms.
fn targeting_markdown(t: &pawl_core::spec::facts::Anchoring) -> String {
    let mut o = String::from("\n## Targeting\n\n");
    if t.anchored() {
        o.push_str(&format!("The goal is {}.", t.describe()));
    } else {
        o.push_str("The goal ties to no fact of the run.");
    }
    let targets: Vec<String> = t
        .targets
        .iter()
        .take(8)
        .map(|x| match &x.test {
            Some(test) => format!("`{}: {test}`", x.check),
            None => format!("`{}`", x.check),
        })
        .collect();
    if targets.is_empty() {
        o.push_str(" It targets no baseline failure by name");
        o.push_str(if t.other_aim.is_none() {
            " (every failing test must pass).\n"
        } else {
            ".\n"
        });
    } else {
        let more = if t.targets.len() > 8 { ", …" } else { "" };
        o.push_str(&format!(
            " It targets (must pass): {}{more}.\n",
            targets.join(", ")
        ));
    }
    if let Some(line) = t.read.line() {
        o.push_str(&format!("\nHow: {line}.\n"));
    }
    o
}

/// Scope and the public interface as the Markdown report shows them.
fn scope_markdown(s: &pawl_core::scope::Scope, i: Option<&pawl_core::scope::Interface>) -> String {
    use pawl_core::scope::Decision;
    let mut o = String::from("\n## Scope\n\n");
    o.push_str(match s.decision {
        Decision::Unchecked => "Not checked",
        Decision::Within => "Every change is within what the goal's failing tests exercise",
        Decision::Listed => "Changes outside what the goal's failing tests exercise, within the limits (listed)",
        Decision::Review => "Changes outside what the goal's failing tests exercise, over the limits: a person decides",
    });
    o.push_str(&format!(": {}.\n\n", s.why));
    for c in &s.inside {
        o.push_str(&format!("- in scope: `{}` — {}\n", c.path, c.why));
    }
    for c in &s.outside {
        o.push_str(&format!(
            "- **outside**: `{}` ({} line(s))\n",
            c.path, c.lines
        ));
    }
    if let Some(i) = i {
        o.push_str("\nPublic interface (exported symbols of the changed product files): ");
        if i.changes.is_empty() {
            o.push_str("unchanged.\n");
        } else {
            o.push_str("changed.\n\n");
            for c in &i.changes {
                o.push_str(&format!("- {}\n", c.line()));
            }
        }
        if !i.unread.is_empty() {
            o.push_str(&format!(
                "\nNot read by a parser: {}\n",
                i.unread.join(", ")
            ));
        }
    }
    o
}

/// The report as Markdown.
pub fn markdown(r: &Report) -> String {
    let mut o = String::new();
    let reason = r
        .stop_reason
        .map(|s| s.to_string())
        .unwrap_or_else(|| "-".into());
    o.push_str(&format!("# pawl run {}\n\n", r.run_id));
    let verdict = serde_json::to_value(r.verdict)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    o.push_str(&format!(
        "**Verdict: {verdict}** — {}\n\n",
        r.verdict_reason
    ));
    o.push_str(&format!("- Goal: {}\n", r.goal));
    o.push_str(&format!(
        "- Stop reason: `{reason}` (exit code {})\n",
        r.exit_code
    ));
    o.push_str(&format!("- Status: {}\n", r.status));
    if !r.tampering.is_empty() {
        o.push_str("\n## State modified outside pawl (tampered)\n\n");
        o.push_str(
            "These rows of the run's state failed their authentication check: something other than pawl changed, added or removed them. The run was stopped and is never resumed; its work stays on its branch.\n\n",
        );
        for f in &r.tampering {
            o.push_str(&format!("- {f}\n"));
        }
        o.push('\n');
    }
    if r.guard_off {
        o.push_str(
            "- **Guard: OFF** (`[guard] allow_unsafe = true`): nothing the agent ran was checked\n",
        );
    } else if r.guard_denials > 0 {
        o.push_str(&format!(
            "- Guard: {} command(s) or write(s) denied\n",
            r.guard_denials
        ));
    }
    if let Some(line) = &r.sandbox {
        o.push_str(&format!("- {line}\n"));
    }
    for p in &r.protected_created {
        o.push_str(&format!(
            "- **A step created `{}`**, a path pawl protects ({})\n",
            p["path"].as_str().unwrap_or("?"),
            if p["removed"] == true {
                "removed"
            } else {
                "left in place: check it"
            }
        ));
    }
    for h in &r.home_changed {
        o.push_str(&format!(
            "- **A step {} `{}`** outside the repository ({}): {}\n",
            h["change"].as_str().unwrap_or("changed"),
            h["path"].as_str().unwrap_or("?"),
            h["why"].as_str().unwrap_or("a place that runs later"),
            match (h["restored"] == true, h["kept"].as_str()) {
                (true, Some(k)) => format!("restored; what it left is kept in `{k}`"),
                (true, None) => "restored".to_owned(),
                (false, Some(k)) => format!("NOT restored: check it (a copy in `{k}`)"),
                (false, None) => "NOT restored: check it".to_owned(),
            }
        ));
    }
    o.push_str(&format!(
        "- Iterations: {} · active time {} · cost ${:.2}{} · tokens {}\n",
        r.iterations.len(),
        dur(r.active_ms),
        r.cost_usd,
        if r.cost_estimated { " (estimated)" } else { "" },
        r.tokens
    ));
    if let Some(t) = &r.tree_hash {
        o.push_str(&format!("- Final tree: `{t}`\n"));
    }
    if !r.red_to_green.is_empty() {
        o.push_str(&format!(
            "- Proof (failed on the pre-run code, passes now): {}\n",
            r.red_to_green.join("; ")
        ));
    }
    for s in &r.seals {
        o.push_str(&format!(
            "- Sealed ({}): {}\n",
            s["why"].as_str().unwrap_or("-"),
            s.get("after")
                .or_else(|| s.get("checks"))
                .and_then(|c| c.as_array())
                .map(|c| c
                    .iter()
                    .map(|k| format!(
                        "{} = `{}`",
                        k["name"].as_str().unwrap_or(""),
                        if k["role"] == "hidden" {
                            "(hidden)"
                        } else {
                            k["command"].as_str().unwrap_or("")
                        }
                    ))
                    .collect::<Vec<_>>()
                    .join(", "))
                .unwrap_or_default()
        ));
    }
    for a in &r.tests_accepted {
        o.push_str(&format!(
            "- Changed tests accepted by {}: {}\n",
            a["who"].as_str().unwrap_or("?"),
            a["why"].as_str().unwrap_or("")
        ));
    }
    if let Some(l) = &r.locked {
        o.push_str(&locked_markdown(l));
    }
    o.push_str(&reviewer_markdown(&r.reviewer));
    if !r.rests_on.is_empty() {
        o.push_str("\n**What the verdict rests on**:\n");
        for line in &r.rests_on {
            o.push_str(&format!("- {line}\n"));
        }
    }
    if let Some(t) = &r.targeting {
        o.push_str(&targeting_markdown(t));
    }
    if let Some(s) = &r.scope {
        o.push_str(&scope_markdown(s, r.interface.as_ref()));
    }
    for a in &r.changes_accepted {
        o.push_str(&format!(
            "- Changes outside product source accepted by {}: {}\n",
            a["who"].as_str().unwrap_or("?"),
            a["why"].as_str().unwrap_or("")
        ));
    }
    if !r.noted.is_empty() {
        o.push_str("\n## Noted, not deciding (the locked run held without these changes)\n\n");
        for f in &r.noted {
            o.push_str(&format!("- {}\n", f.lines().next().unwrap_or("")));
        }
    }
    if !r.findings.is_empty() {
        o.push_str("\n## Findings\n\n");
        for f in &r.findings {
            let mut lines = f.lines();
            o.push_str(&format!("- {}\n", lines.next().unwrap_or("")));
            let hunk: Vec<&str> = lines.collect();
            if !hunk.is_empty() {
                o.push_str(&format!("\n```diff\n{}\n```\n", hunk.join("\n")));
            }
        }
    }
    if !r.hidden_failed.is_empty() {
        o.push_str(
            "\n## Hidden tests that fail (kept in your pawl state; never shown to the executor)\n\n",
        );
        for line in &r.hidden_failed {
            o.push_str(&format!("- {line}\n"));
        }
    }
    o.push_str("\n## Checks (run by pawl on the final tree)\n\n");
    if r.checks.is_empty() {
        o.push_str("No verification ran.\n");
    } else {
        o.push_str("| check | result | tests | first failure | log |\n|---|---|---|---|---|\n");
        for c in &r.checks {
            let tests = match (c.counts(), c.failing_tests.is_empty()) {
                (None, true) => "-".to_string(),
                (Some(n), true) => n,
                (None, false) => c.failing_tests.join(", "),
                (Some(n), false) => format!("{n}: {}", c.failing_tests.join(", ")),
            };
            let first = c
                .first_failure
                .as_deref()
                .map(|m| m.lines().next().unwrap_or("").replace('|', "\\|"))
                .unwrap_or_default();
            o.push_str(&format!(
                "| {} | {}{} | {} | {} | {} |\n",
                c.name,
                match (c.passed, &c.no_worse) {
                    (true, Some(_)) => "pass (no worse than at the baseline)",
                    (true, None) => "pass",
                    (false, _) => "FAIL",
                },
                if c.cached { " (cached)" } else { "" },
                tests,
                first,
                c.log.as_deref().unwrap_or("")
            ));
        }
    }
    let no_worse: Vec<(&str, &crate::verify::NoWorse)> = r
        .checks
        .iter()
        .filter_map(|c| Some((c.name.as_str(), c.no_worse.as_ref()?)))
        .collect();
    if !no_worse.is_empty() {
        o.push_str("\n## Pre-existing failures (failed at the baseline, not targeted by the goal, no worse)\n\n");
        for (_, n) in &no_worse {
            o.push_str(&format!("- {}\n", n.summary));
            for i in n.kept.iter().take(MAX_PRE_EXISTING) {
                o.push_str(&format!("  - {}\n", i.line()));
            }
            if n.kept.len() > MAX_PRE_EXISTING {
                o.push_str(&format!(
                    "  - … and {} more\n",
                    n.kept.len() - MAX_PRE_EXISTING
                ));
            }
        }
    }
    o.push_str(&format!("\n**Coverage**: {}\n", r.coverage.line()));
    if !r.criteria.is_empty() {
        o.push_str("\n## Criteria\n\n| id | criterion | verified by | status | evidence |\n|---|---|---|---|---|\n");
        for c in &r.criteria {
            // "verified" only with its evidence (`pawl_core::evidence`).
            o.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                c.criterion.id,
                c.criterion.text.replace('|', "\\|"),
                c.criterion.verification.kind,
                c.shown.status,
                c.shown.evidence.replace('|', "\\|")
            ));
        }
    }
    if !r.stories.is_empty() {
        o.push_str(
            "\n## Stories\n\n| id | story | size | status | attempts |\n|---|---|---|---|---|\n",
        );
        for l in &r.stories {
            let s = &l.story;
            o.push_str(&format!(
                "| {} | {} | {} | {} | {}/{} |\n",
                s.id, s.title, s.size, s.status, s.attempts, s.max_attempts
            ));
        }
    }
    if let Some(p) = &r.parallel {
        o.push_str(&format!(
            "\n## Parallel stories\n\n{} worker(s); {}. Worktrees on disk now: {} bytes.\n\n| story | sessions | merge | on the merged tree | worktree |\n|---|---|---|---|---|\n",
            p.workers, p.overshoot, p.worktrees_bytes
        ));
        for l in &r.stories {
            let Some(w) = &l.parallel else { continue };
            let checks = w.evidence["checks"]
                .as_array()
                .map(|cs| {
                    cs.iter()
                        .map(|c| {
                            format!(
                                "{} {}",
                                c["name"].as_str().unwrap_or("?"),
                                if c["passed"] == true { "✓" } else { "✗" }
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .or_else(|| {
                    w.evidence["conflicts"].as_array().map(|c| {
                        format!(
                            "conflicts in {}",
                            c.iter()
                                .filter_map(|p| p.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })
                })
                .unwrap_or_else(|| "-".into());
            o.push_str(&format!(
                "| {} | {} | {} | {} | {} ({} bytes) |\n",
                l.story.id, l.story.attempts, w.merge, checks, w.worktree, w.disk_bytes
            ));
        }
    }
    o.push_str("\n## Iterations\n\n| # | outcome | tokens in/out | cost | duration | after verification |\n|---|---|---|---|---|---|\n");
    for i in &r.iterations {
        o.push_str(&format!(
            "| {} | {} | {}/{} | ${:.2}{} | {} | {} |\n",
            i.n,
            i.outcome.as_deref().unwrap_or("running"),
            i.tokens_in,
            i.tokens_out,
            i.cost_usd,
            if i.cost_estimated { "*" } else { "" },
            dur(i.duration_ms.unwrap_or(0)),
            i.summary.as_deref().unwrap_or("")
        ));
    }
    if !r.transcripts.is_empty() {
        o.push_str("\n## Agent transcripts\n\n");
        for t in &r.transcripts {
            o.push_str(&format!(
                "- iteration {}: [{}]({}) (`pawl logs --run {} --iteration {}`)\n",
                t.iteration,
                t.log,
                t.log.replacen(".pawl/", "../", 1),
                r.run_id,
                t.iteration
            ));
        }
    }
    if !r.failures_by_class.is_empty() {
        o.push_str("\n## Failures by class\n\n");
        for (k, v) in &r.failures_by_class {
            o.push_str(&format!("- {k}: {v}\n"));
        }
    }
    if let Some(p) = &r.pipeline {
        o.push_str(&crate::pipeline::report::markdown(p));
    }
    o.push_str("\n## Changes since the pre-run commit\n\n");
    match &r.pre_run_commit {
        Some(c) => {
            o.push_str(&format!("Pre-run commit `{c}`"));
            if let Some(b) = &r.branch {
                o.push_str(&format!(" on branch `{b}`"));
            }
            o.push_str(".\n\n");
            if r.files_changed.is_empty() {
                o.push_str("No files changed.\n");
            }
            for f in &r.files_changed {
                o.push_str(&format!(
                    "- `{}` +{} −{}\n",
                    f.path, f.insertions, f.deletions
                ));
            }
            if let Some(cmd) = &r.rollback_command {
                o.push_str(&format!(
                    "\nTo undo: `{cmd}` (keeps a backup ref of what it replaces).\n"
                ));
            }
        }
        None => o.push_str("No pre-run commit was recorded.\n"),
    }
    o
}
