//! Verification as a library: pawl runs the checks itself on the current tree and records the
//! evidence. Every caller goes through [`verify_checks`] — `pawl verify`, `pawl story done`,
//! `pawl criterion check`, the headless loop, the pipeline and the Stop hook (the last three
//! through the [`Verifier`] seam, whose production form is [`GateVerifier`]).
//!
//! The rules:
//! - evidence is bound to the tree hash computed before the checks ran; a passing result for the
//!   same tree, check name and exact command is reused (and recorded as reused) unless `fresh`;
//!   failures are always re-run here, because they can come from the environment (only the
//!   Stop hook's answer on an unchanged tree stands on a `test` or `code` failure:
//!   [`crate::session`], `pawl_core::reuse`);
//! - with a room ([`Workspace::room`], see [`crate::room`]) the checks run on a pawl-owned copy
//!   of exactly the hashed tree, outside the repository; in place, the tree hash is computed
//!   again after the checks, and if it moved, the evidence records both hashes, is never reused,
//!   and the verification fails: what was checked is not what is there;
//! - one failing verification records one classified failure on the story (the first failing
//!   check in run order, naming the others), so a story's attempts count verifications.
//!
//! What this module is not: printing (the CLI renders a [`Verification`]), the check runner and
//! the output parsers (pawl-verify).

pub mod hidden_tests;
mod lint_fix;
mod locked;
pub(crate) mod probes;
pub mod reviewer;
mod scope;

pub(crate) use scope::read_exercises;

use std::time::Duration;

use pawl_core::EventKind;
use pawl_core::model::{CriterionStatus, VerifyKind};
use pawl_core::proof::{Locked, Outcome, Proof};
use pawl_core::record::{Failure, Run};
use pawl_core::record::{TestOutcome, TestStatus};
use pawl_core::seal::Seal;
use pawl_git::Repo;
use pawl_store::{Evidence, NewEvidence, Store, StoreError, TestCounts};
use pawl_verify::gate::{self, Check};
use pawl_verify::protect;
use pawl_verify::{CheckEnd, CheckRun, RunnerConfig, run_checks};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use lint_fix::{LintFix, lint_fix};
pub use locked::{LeftOut, LockedRun, NewTest, RunStep};

use crate::baseline::Baseline;
pub use crate::workspace::Workspace;
pub(crate) use crate::workspace::check_env;

/// Longest a check may run unless the caller says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Why verification could not run (a check that fails is not an error: it is a result).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("nothing to verify: configure [gates] in pawl.toml or add command criteria")]
    NothingToVerify,
    #[error("git: {0}")]
    Git(#[from] pawl_git::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("lint fix: {0}")]
    Backup(#[from] pawl_verify::backup::BackupError),
    #[error(transparent)]
    Room(#[from] crate::room::RoomError),
    #[error(transparent)]
    Hidden(#[from] crate::hidden::HiddenError),
}

/// What to verify and how.
#[derive(Debug, Clone)]
pub struct Plan {
    pub checks: Vec<Check>,
    pub fresh: bool,
    pub timeout: Duration,
    pub jobs: usize,
    /// The story a failure is recorded on (default: the story in progress).
    pub story: Option<String>,
    /// Whether a failure is recorded at all (not for the re-check after a lint fix).
    pub record_failure: bool,
    /// The run's seal: the checks then run with its environment and timeout only, and their
    /// evidence is reused only for the same seal.
    pub seal: Option<Seal>,
    /// Judge against this run's baseline (a check failing before the run passes when no
    /// worse) without recording anything onto the run: `pawl merge` verifies on no run.
    pub baseline_of: Option<Run>,
}

impl Plan {
    pub fn new(checks: Vec<Check>) -> Plan {
        Plan {
            checks,
            fresh: false,
            timeout: DEFAULT_TIMEOUT,
            jobs: default_jobs(),
            story: None,
            record_failure: true,
            seal: None,
            baseline_of: None,
        }
    }

    /// The fingerprint of a check under this plan's seal (`None` without a seal): its command,
    /// the environment and the timeout it runs with.
    pub fn seal_key(&self, check: &Check, in_room: bool) -> Option<String> {
        let seal = self.seal.as_ref()?;
        let mut h = Sha256::new();
        h.update(if in_room { "room\0" } else { "in place\0" });
        // A hidden check by its code: this key is stored, where the agent reads it.
        let command = crate::hidden::shown_command(Some(seal), check);
        for part in [check.name.as_str(), command.as_str()] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        for (k, v) in &seal.env {
            h.update(k.as_bytes());
            h.update([b'=']);
            h.update(v.as_bytes());
            h.update([0]);
        }
        h.update(seal.timeout_ms.to_le_bytes());
        Some(format!("{:x}", h.finalize()))
    }
}

/// At least two (so independent checks overlap even on one core), at most eight.
fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(2)
        .clamp(2, 8)
}

/// One check's part of a verification.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    pub name: String,
    pub command: String,
    /// The evidence recorded for it (`None` when it was skipped).
    pub evidence: Option<Evidence>,
    /// True when the result was reused from earlier evidence for this exact tree and command.
    pub reused: bool,
    /// Why it did not run.
    pub skipped: Option<String>,
    /// It failed, as it did at the run's baseline, and the goal does not target it: no worse
    /// than before (`pawl_core::against`), said as "clippy: 3 pre-existing item(s) before, the
    /// same 3 after" with the items kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_worse: Option<NoWorse>,
}

/// A baseline failure that is no worse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoWorse {
    pub summary: String,
    /// The pre-existing items still there.
    pub kept: Vec<pawl_core::against::FailureItem>,
}

impl Item {
    /// It ran and passed.
    pub fn passed(&self) -> bool {
        self.skipped.is_none() && self.evidence.as_ref().is_some_and(|e| e.data.passed)
    }

    /// It passed, or it is no worse than at the baseline (a failure the goal does not target).
    pub fn accepted(&self) -> bool {
        self.passed() || self.no_worse.is_some()
    }
}

/// The most paths [`Verification::moved`] names.
pub const MAX_MOVED_PATHS: usize = 20;

/// The result of verifying a set of checks on one tree.
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    /// True only when every check passed and the tree did not change meanwhile.
    pub verified: bool,
    /// The tree the checks ran on.
    pub tree: String,
    /// The tree after the checks, when it differs.
    pub tree_after: Option<String>,
    /// The paths that differ between `tree` and `tree_after` (at most [`MAX_MOVED_PATHS`]): what
    /// moved while the checks ran, usually an output to git-ignore.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<String>,
    pub items: Vec<Item>,
    /// The failure recorded on the story, if any.
    pub failure: Option<Failure>,
    /// Passing evidence for this tree that pawl did not write (its authentication code does not
    /// verify): ignored, and reported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forged: Vec<i64>,
}

pub(crate) fn now_ms() -> u64 {
    u64::try_from(jiff::Timestamp::now().as_millisecond()).unwrap_or(0)
}

fn runner_config(ws: &Workspace, plan: &Plan, step: u64) -> RunnerConfig {
    let mut cfg = match &plan.seal {
        Some(seal) => crate::baseline::runner_for(ws, seal, step),
        None => {
            let mut cfg = RunnerConfig::new(&ws.root, step);
            cfg.logs_dir = ws.state_dir.join("logs");
            cfg.timeout = plan.timeout;
            cfg.env = check_env(None);
            cfg.containment = ws.containment.clone();
            // No seal: the checks' programs as this process's environment finds them.
            let env: std::collections::BTreeMap<String, String> = std::env::vars().collect();
            let programs = crate::baseline::programs_outside(
                plan.checks.iter().map(|c| c.command.as_str()),
                &env,
                &ws.root,
            );
            crate::start::sandbox::keep_programs(&mut cfg.containment, &ws.root, &programs);
            if let Some(room) = &ws.room {
                crate::room::gocache::bind_for_checks(&mut cfg, room);
            }
            cfg
        }
    };
    // (A sealed run's containment is `runner_for`'s: it binds the run's package stores.)
    cfg.jobs = plan.jobs;
    cfg
}

/// The run's command criteria as checks (stories do not link to criteria yet, so a story is
/// held to all of them).
pub fn criterion_checks(store: &Store, run: Option<&Run>) -> Result<Vec<Check>, StoreError> {
    let Some(run) = run else {
        return Ok(Vec::new());
    };
    Ok(store
        .criteria(&run.id)?
        .into_iter()
        .filter(|c| c.verification.kind == VerifyKind::Command)
        .filter_map(|c| {
            c.verification
                .command
                .map(|cmd| Check::criterion(&c.id, cmd))
        })
        .collect())
}

fn new_evidence(
    ws: &Workspace,
    run: Option<&Run>,
    plan: &Plan,
    r: &CheckRun,
    tree: &str,
    tree_after: Option<&str>,
) -> NewEvidence {
    let seal = plan.seal_key(&r.check, ws.room.is_some());
    let e = NewEvidence {
        run_id: run.map(|r| r.id.clone()),
        gate: r.check.name.clone(),
        command: r.check.command.clone(),
        argv: r.argv.clone(),
        cwd: r.cwd.display().to_string(),
        tree_hash: tree.to_owned(),
        tree_after: tree_after.map(str::to_owned),
        passed: r.passed,
        end: r.end.kind().to_owned(),
        exit_code: r.end.exit_code(),
        signal: r.end.signal(),
        duration_ms: u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
        tests: r.tests.as_ref().map(|t| TestCounts {
            runner: serde_json::to_value(t.runner)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned)),
            passed: t.passed,
            failed: t.failed,
            skipped: t.skipped,
        }),
        failing: r
            .tests
            .as_ref()
            .map(|t| t.failing.clone())
            .unwrap_or_default(),
        first_failure: r
            .tests
            .as_ref()
            .and_then(|t| t.first_failure.clone())
            .or_else(|| {
                r.failure
                    .as_ref()
                    .filter(|_| !r.passed)
                    .map(|f| f.message.clone())
            }),
        failure_category: r.failure.as_ref().map(|f| f.category),
        output_digest: r.output_digest.clone(),
        tail: r.tail.clone(),
        log_path: r.log_path.as_deref().map(|p| ws.rel(p)),
        report_path: r.report_path.as_deref().map(|p| ws.rel(p)),
        reused_from: None,
        outcomes: r
            .tests
            .as_ref()
            .map(|t| t.tests.clone())
            .unwrap_or_default(),
        seal,
    };
    if crate::hidden::is_hidden(plan.seal.as_ref(), &r.check.name) {
        redacted(
            e,
            crate::hidden::shown_command(plan.seal.as_ref(), &r.check),
        )
    } else {
        e
    }
}

/// Evidence of a hidden check as it is stored (where the agent reads it): whether it passed,
/// how it ended and its counts — never its command, argv, output, test names or failures. Its
/// log is in the user's pawl state.
fn redacted(e: NewEvidence, command: String) -> NewEvidence {
    NewEvidence {
        command,
        argv: Vec::new(),
        failing: Vec::new(),
        first_failure: None,
        tail: String::new(),
        outcomes: Vec::new(),
        ..e
    }
}

/// Runs (or reuses) `plan.checks` on the current tree, records the evidence, the criteria
/// statuses and at most one failure. Does not print.
pub fn verify_checks(
    ws: &Workspace,
    store: &mut Store,
    run: Option<&Run>,
    plan: &Plan,
) -> Result<Verification, VerifyError> {
    if let Some(run) = run {
        crate::use_run_git(run);
    }
    let repo = Repo::open(&ws.root)?;
    let tree_id = repo.tree_hash()?;
    let tree = tree_id.to_string();

    // The coverage minimum of the story being verified (its size's).
    let bar = match (&ws.coverage_min, run) {
        (Some(mins), Some(run)) => {
            let stories = store.stories(&run.id)?;
            let story = match &plan.story {
                Some(id) => stories.iter().find(|s| &s.id == id),
                None => pawl_core::resume::current_story(&stories),
            };
            pawl_core::coverage::bar(mins, story.map(|s| s.size))
        }
        _ => None,
    };
    let mut reused: Vec<(usize, Evidence)> = Vec::new();
    let mut to_run: Vec<Check> = Vec::new();
    for (i, c) in plan.checks.iter().enumerate() {
        match (!plan.fresh)
            .then(|| {
                store.cached_evidence(
                    &tree,
                    &c.name,
                    &crate::hidden::shown_command(plan.seal.as_ref(), c),
                    plan.seal_key(c, ws.room.is_some()).as_deref(),
                )
            })
            .transpose()?
            .flatten()
            // Evidence judged against another story's coverage minimum is not this one's.
            .filter(|e| {
                pawl_verify::coverage::total_percent(&e.data.tail)
                    .and_then(|c| pawl_core::coverage::shortfall(c, bar.as_ref()))
                    .is_none()
            }) {
            Some(e) => reused.push((i, e)),
            None => to_run.push(c.clone()),
        }
    }

    // The room holds the tree just hashed; whatever happens in the working directory from now
    // on, the checks do not see it.
    let room = match &ws.room {
        Some(dir) if !to_run.is_empty() => {
            let mut room = crate::room::Room::open(&repo, dir)?;
            room.environment_from(ws.seen_at.as_deref());
            room.sync(&repo, &tree_id)?;
            // A story's room takes the project's environment from the main repository the
            // first time (its worktree has none), as the run's room took it at the seal.
            if let Some(main) = ws.seen_at.as_deref()
                && room.environment().is_none()
            {
                let layout = pawl_verify::platform::Descriptors::builtin()
                    .map(|d| d.environment())
                    .unwrap_or_default();
                room.take_environment(&Repo::open(main)?, &layout)?;
            }
            Some(room)
        }
        _ => None,
    };
    let mut room = room;
    let mut cfg = runner_config(ws, plan, now_ms());
    cfg.coverage_bar = bar.clone();
    if let Some(room) = room.as_mut() {
        cfg.in_room(ws.checks_path(), room.root());
        // The project's environment the room took at the seal, first on the checks' PATH, named
        // at the path the checks see the room at.
        if let (Some(seal), Some(state)) = (&plan.seal, room.environment()) {
            let view = cfg.root.clone();
            crate::baseline::in_room_env(&mut cfg, &state, &view, seal);
        }
        // A tree whose dependency manifests are not those the environment was built from gets
        // it rebuilt with the project's install command (`[room] setup`), recorded.
        if let Some(seal) = &plan.seal {
            let setup = crate::baseline::prepare_room(room, &repo, &tree_id, seal, &mut cfg)?;
            if let (Some(setup), Some(run)) = (setup, run) {
                store.append_event(
                    Some(&run.id),
                    EventKind::RoomSetup,
                    serde_json::to_value(&setup).unwrap_or_default(),
                )?;
            }
        }
        // pawl's own build of the tree warms the checks' Go build cache.
        let commands: Vec<&str> = to_run.iter().map(|c| c.command.as_str()).collect();
        crate::room::gocache::warm(&cfg, room.root(), &commands);
        // And its jest cache, by pawl's own transform pass (once per tree).
        crate::room::jestcache::warm(&mut cfg, room, &commands);
    }
    let runs = crate::baseline::run_sealed(ws, plan.seal.as_ref(), &to_run, &cfg);

    // The checks cannot move the working tree from the room, but a process the agent left
    // behind can: a tree that moved while the checks ran is not the tree they verified.
    let tree_after = if runs.is_empty() {
        None
    } else {
        Some(repo.tree_hash()?.to_string()).filter(|t| *t != tree)
    };
    let moved: Vec<String> = match &tree_after {
        Some(after) => repo
            .changes_between(&tree, after)
            .unwrap_or_default()
            .into_iter()
            .take(MAX_MOVED_PATHS)
            .map(|c| c.path.display().to_string())
            .collect(),
        None => Vec::new(),
    };

    // One transaction for the whole verification: reused rows first, then what ran.
    let mut records: Vec<NewEvidence> = Vec::new();
    for (_, e) in &reused {
        let mut d = e.data.clone();
        d.run_id = run.map(|r| r.id.clone());
        d.reused_from = Some(e.id);
        records.push(d);
    }
    let ran: Vec<&CheckRun> = runs
        .iter()
        .filter(|r| !matches!(r.end, CheckEnd::Skipped { .. }))
        .collect();
    for r in &ran {
        records.push(new_evidence(ws, run, plan, r, &tree, tree_after.as_deref()));
    }
    let mut stored = store.record_evidence(&records)?.into_iter();

    let mut items: Vec<Option<Item>> = vec![None; plan.checks.len()];
    for (i, _) in &reused {
        let c = &plan.checks[*i];
        items[*i] = Some(Item {
            name: c.name.clone(),
            command: crate::hidden::shown_command(plan.seal.as_ref(), c),
            evidence: stored.next(),
            reused: true,
            skipped: None,
            no_worse: None,
        });
    }
    for r in &runs {
        let Some(i) = plan.checks.iter().position(|c| c.name == r.check.name) else {
            continue;
        };
        let skipped = match &r.end {
            CheckEnd::Skipped { reason } => Some(reason.clone()),
            _ => None,
        };
        items[i] = Some(Item {
            name: r.check.name.clone(),
            command: crate::hidden::shown_command(plan.seal.as_ref(), &r.check),
            evidence: if skipped.is_none() {
                stored.next()
            } else {
                None
            },
            reused: false,
            skipped,
            no_worse: None,
        });
    }
    let mut items: Vec<Item> = items.into_iter().flatten().collect();
    if let Some(run) = run.or(plan.baseline_of.as_ref()) {
        against_baseline(ws, store, run, &runs, &tree, &mut items)?;
    }
    let verified = tree_after.is_none() && items.iter().all(Item::accepted);

    if let Some(run) = run {
        for item in &items {
            let (Some(id), Some(e)) = (
                item.name.strip_prefix(gate::CRITERION_PREFIX),
                &item.evidence,
            ) else {
                continue;
            };
            let status = if tree_after.is_some() {
                CriterionStatus::Unverified
            } else if e.data.passed {
                CriterionStatus::Verified
            } else {
                CriterionStatus::Failed
            };
            store.set_criterion_status(
                &run.id,
                id,
                status,
                serde_json::json!({"evidence": e.id, "tree": e.data.tree_hash, "reused": item.reused}),
            )?;
        }
    }

    let failure = match run {
        Some(run) if plan.record_failure && !verified => record_failure(store, run, plan, &items)?,
        _ => None,
    };
    let forged = store
        .unauthentic_evidence(&tree)?
        .into_iter()
        .map(|e| e.id)
        .collect();
    Ok(Verification {
        verified,
        tree,
        tree_after,
        moved,
        items,
        failure,
        forged,
    })
}

/// Judged against the baseline: a check that failed at the run's baseline, that the goal does
/// not target (`crate::anchors`), and whose failure items now are the same or fewer
/// (`pawl_core::against::judge`) is no worse. Both runs must have ended by exiting (a timeout
/// or a signal is not compared).
fn against_baseline(
    ws: &Workspace,
    store: &Store,
    run: &Run,
    runs: &[CheckRun],
    tree: &str,
    items: &mut [Item],
) -> Result<(), StoreError> {
    if items.iter().all(Item::passed) {
        return Ok(());
    }
    let Some(baseline) = store
        .last_event(&run.id, EventKind::Baseline)?
        .and_then(|e| serde_json::from_value::<Baseline>(e.data).ok())
    else {
        return Ok(());
    };
    if baseline.checks.iter().all(|c| c.passed) {
        return Ok(());
    }
    let against = AgainstBaseline::new(ws, run, &baseline, tree);
    for item in items
        .iter_mut()
        .filter(|i| !i.passed() && i.skipped.is_none())
    {
        let Some(now) = runs.iter().find(|r| r.check.name == item.name) else {
            continue;
        };
        if let Some(j @ pawl_core::against::Judgement::NoWorse { kept, .. }) = &against.judge(now) {
            item.no_worse = Some(NoWorse {
                summary: j.describe(&item.name),
                kept: kept.clone(),
            });
        }
    }
    Ok(())
}

/// The no-worse rule of one run (the verification's, the re-check's): its baseline, what its
/// goal targets, and the files its tree changed since the baseline.
pub(crate) struct AgainstBaseline<'a> {
    baseline: &'a Baseline,
    /// What the goal targets of the baseline's failures.
    pub(crate) anchoring: pawl_core::spec::facts::Anchoring,
    /// The facts it was read from: the baseline's failures with the goal's symbols each one's
    /// test exercises (`[verify] require_probe` targets those symbols too).
    pub(crate) facts: pawl_core::spec::facts::RunFacts,
    changed: ChangedSinceBaseline<'a>,
}

impl<'a> AgainstBaseline<'a> {
    pub(crate) fn new(ws: &'a Workspace, run: &Run, baseline: &'a Baseline, tree: &'a str) -> Self {
        Self::for_goal(ws, &run.goal, baseline, tree)
    }

    /// The rule of a run whose goal is `goal` (the locked run knows its goal, not the run).
    pub(crate) fn for_goal(
        ws: &'a Workspace,
        goal: &str,
        baseline: &'a Baseline,
        tree: &'a str,
    ) -> Self {
        let facts = crate::anchors::facts_of(&ws.root, goal, baseline);
        AgainstBaseline {
            baseline,
            anchoring: pawl_core::spec::facts::anchor(goal, &facts),
            facts,
            changed: ChangedSinceBaseline::new(&ws.root, &baseline.tree, tree),
        }
    }

    /// A check that fails now, judged against the baseline: `None` when it passed at the
    /// baseline, or either run did not end by exiting (not compared).
    pub(crate) fn judge(&self, now: &CheckRun) -> Option<pawl_core::against::Judgement> {
        if now.passed || now.end.kind() != "exited" {
            return None;
        }
        let before = self
            .baseline
            .check(&now.check.name)
            .filter(|b| !b.passed && b.end == "exited")?;
        let name = now.check.name.clone();
        let targeted = |i: &pawl_core::against::FailureItem| self.anchoring.targets_item(&name, i);
        Some(pawl_core::against::judge(
            before.items.as_deref(),
            now.items.as_deref(),
            &targeted,
            &|f| self.changed.contains(f),
        ))
    }
}

/// The files a tree changed since the baseline's, read from git once and only when asked (a
/// whole-file item, `pawl_core::against::WHOLE_FILE`, is judged by them). A diff git cannot
/// give counts every file as changed: such an item then never passes as no worse.
pub(crate) struct ChangedSinceBaseline<'a> {
    root: &'a std::path::Path,
    base: &'a str,
    tree: &'a str,
    files: std::cell::OnceCell<Option<std::collections::BTreeSet<String>>>,
}

impl<'a> ChangedSinceBaseline<'a> {
    pub(crate) fn new(root: &'a std::path::Path, base: &'a str, tree: &'a str) -> Self {
        ChangedSinceBaseline {
            root,
            base,
            tree,
            files: std::cell::OnceCell::new(),
        }
    }

    pub(crate) fn contains(&self, file: &str) -> bool {
        let files = self.files.get_or_init(|| {
            Repo::open(self.root)
                .and_then(|r| r.changes_between(self.base, self.tree))
                .ok()
                .map(|c| {
                    c.into_iter()
                        .map(|c| c.path.display().to_string())
                        .collect()
                })
        });
        files
            .as_ref()
            .is_none_or(|f| f.contains(file.trim_start_matches("./")))
    }
}

/// One failure for a failed verification: the first failing check, naming the others.
fn record_failure(
    store: &mut Store,
    run: &Run,
    plan: &Plan,
    items: &[Item],
) -> Result<Option<Failure>, StoreError> {
    let failing: Vec<&Evidence> = items
        .iter()
        .filter_map(|i| i.evidence.as_ref())
        .filter(|e| !e.data.passed)
        .collect();
    let Some(first) = failing.first() else {
        return Ok(None);
    };
    let Some(category) = first.data.failure_category else {
        return Ok(None);
    };
    let mut message = first
        .data
        .first_failure
        .clone()
        .map(|m| {
            if m.starts_with(&format!("{}:", first.data.gate)) {
                m
            } else {
                format!("{}: {m}", first.data.gate)
            }
        })
        .unwrap_or_else(|| format!("{} failed", first.data.gate));
    if failing.len() > 1 {
        let others: Vec<&str> = failing[1..].iter().map(|e| e.data.gate.as_str()).collect();
        message.push_str(&format!(" (also failing: {})", others.join(", ")));
    }
    // A failure is an attempt of the story being worked on: one whose sub-loop started it. The
    // pipeline's TDD red step runs before that, while the story is pending, and the failing
    // test it must leave is expected, not a failed attempt (in the run's tree and in a
    // story's worktree alike).
    let story = match &plan.story {
        Some(s) => Some(store.story(&run.id, s)?)
            .filter(|s| s.status != pawl_core::model::StoryStatus::Pending)
            .map(|s| s.id),
        None => pawl_core::resume::current_story(&store.stories(&run.id)?).map(|s| s.id.clone()),
    };
    Ok(Some(store.add_failure(
        &run.id,
        story.as_deref(),
        &message,
        category,
        true,
    )?))
}

// ------------------------------------------------------------------ the loop's view: the seam

/// One check's result as the loop needs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckSummary {
    pub name: String,
    pub passed: bool,
    /// How it ended, e.g. "exited with code 1", "timed out".
    pub end: String,
    pub failing_tests: Vec<String>,
    pub first_failure: Option<String>,
    pub log: Option<String>,
    /// The failure class (pawl-core) for a failing check.
    pub category: Option<pawl_core::FailureCategory>,
    /// Reused from a cached run on the same tree.
    pub cached: bool,
    /// A hidden check: the agent is never shown its command, output or failing tests.
    #[serde(default)]
    pub hidden: bool,
    /// The test counts the runner's output gave (passed, failed, skipped), when it gave them.
    #[serde(default)]
    pub tests: Option<TestCounts>,
    /// The total coverage (percent) a coverage tool's output reported (parsed from the
    /// evidence's tail by `pawl_verify::coverage`); `None` for every other check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<f64>,
    /// It failed as at the baseline, not targeted by the goal, and no worse: passes, with the
    /// pre-existing items listed (`passed` is true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_worse: Option<NoWorse>,
}

impl CheckSummary {
    /// `12 passed, 1 failed, 2 skipped` — or nothing when the runner reported no counts.
    pub fn counts(&self) -> Option<String> {
        let t = self.tests.as_ref()?;
        let mut s = format!("{} passed, {} failed", t.passed, t.failed);
        if t.skipped > 0 {
            s.push_str(&format!(", {} skipped", t.skipped));
        }
        Some(s)
    }
}

/// The outcome of verifying the current tree, as the loop sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct VerifyReport {
    pub tree_hash: String,
    /// Gates and command criteria, in order.
    pub checks: Vec<CheckSummary>,
    /// The failing ones (a subset of `checks`).
    pub failing: Vec<CheckSummary>,
    /// Criteria verified / unmet after this verification (ids).
    pub verified: Vec<String>,
    pub unmet: Vec<String>,
    /// The run may end as done: every check passed, every criterion is verified, the tests are
    /// intact and the goal is proven (`pawl_core::proof::judge` says `Done`).
    pub done: bool,
    /// What the verification means for the run, and why (`None` for runs without a baseline).
    #[serde(default)]
    pub outcome: Option<Outcome>,
    #[serde(default)]
    pub proof: Option<Proof>,
    /// The findings that decide (REVIEW), one line each.
    #[serde(default)]
    pub findings: Vec<String>,
    /// What the test-protection screen noted on a run whose locked run holds: shown, not
    /// deciding (the baseline's tests passed without those changes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub noted: Vec<String>,
    /// The locked run (docs/verification.md, "Locked evaluation").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locked: Option<LockedRun>,
    /// The run's changes against what the goal's failing tests exercise (`pawl_core::scope`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<pawl_core::scope::Scope>,
    /// How the exported symbols of the run's changed product files changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface: Option<pawl_core::scope::Interface>,
    /// What the goal targets of the baseline's failures, its anchors, and how the failing
    /// tests were tied to its terms (issue 35 point 3; the report's evidence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targeting: Option<pawl_core::spec::facts::Anchoring>,
    /// The spec gate's assumptions this verification checked, each with its evidence: they
    /// count as verified (`pawl_core::scope::check_assumption`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assumptions: Vec<CheckedAssumption>,
    /// The independent reviewer's session on this tree (`reviewer`; issue 34 point 3), when the
    /// run has one and the checks pass on a changed tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<reviewer::ReviewRecord>,
    /// What the executor is told of the independent tester's hidden tests that fail
    /// (`pawl_core::tester::send_back`): the behaviour, never the inputs — on the send-back (one
    /// of `findings`), and at a REVIEW on them, for the step of a resumed run. The continuation
    /// prompt shows it under a heading of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_back: Option<String>,
    /// The REVIEW finding of the hidden tests (one of `findings`, `pawl_core::tester::review`):
    /// for the user, pointing to `pawl report`; the prompt of a resumed run shows `sent_back` in
    /// its place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_review: Option<String>,
}

/// An assumption criterion the run's facts verify.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckedAssumption {
    /// The criterion's id.
    pub id: String,
    pub evidence: String,
}

/// How a driver asks for verification of a run. The engine depends on this seam, so tests can
/// script it; production plugs in [`GateVerifier`].
pub trait Verifier: Send {
    fn verify(&mut self, store: &mut Store, run_id: &str) -> Result<VerifyReport, VerifyError>;

    /// Verifies again after a backoff (no agent step in between): the same as [`Self::verify`],
    /// except that a failure is not recorded again — a re-check is not a story attempt.
    fn verify_again(
        &mut self,
        store: &mut Store,
        run_id: &str,
    ) -> Result<VerifyReport, VerifyError> {
        self.verify(store, run_id)
    }

    /// Where hidden checks added during the run (QA's reproductions) are kept.
    fn vault(&self) -> Option<&crate::hidden::Vault> {
        None
    }

    /// The workspace the checks run in (the independent tester runs beside them).
    fn workspace(&self) -> Option<Workspace> {
        None
    }

    /// The names of the checks a verification of `run_id` runs now (for progress; empty when
    /// unknown).
    fn check_names(&self, _store: &Store, _run_id: &str) -> Vec<String> {
        Vec::new()
    }
}

/// The run's criteria split into verified and unmet ids.
pub fn criteria_state(
    store: &Store,
    run_id: &str,
) -> Result<(Vec<String>, Vec<String>), StoreError> {
    let criteria = store.criteria(run_id)?;
    let (verified, unmet): (Vec<_>, Vec<_>) = criteria
        .into_iter()
        .partition(|c| c.status == CriterionStatus::Verified);
    Ok((
        verified.into_iter().map(|c| c.id).collect(),
        unmet.into_iter().map(|c| c.id).collect(),
    ))
}

/// The production verifier: the configured gates and the run's command criteria, through
/// [`verify_checks`] (evidence bound to the tree, reused by tree).
pub struct GateVerifier {
    ws: Workspace,
    gates: Vec<Check>,
    /// Whether a failed verification is recorded (a story attempt); off for a re-check.
    record: bool,
    /// A story's verifier (the parallel driver's workers): its failures are recorded on this
    /// story, and of the run's command criteria only these ids run.
    story: Option<(String, Vec<String>)>,
    /// The independent reviewer, for a run that has one (`pawl_core::review::decide`); the
    /// driver that can start agent sessions sets it.
    reviewer: Option<Box<dyn reviewer::Reviewer>>,
}

impl GateVerifier {
    pub fn new(ws: Workspace, gates: Vec<Check>) -> GateVerifier {
        GateVerifier {
            ws,
            gates,
            record: true,
            story: None,
            reviewer: None,
        }
    }

    /// This verifier with the run's independent reviewer.
    pub fn with_reviewer(mut self, reviewer: Box<dyn reviewer::Reviewer>) -> GateVerifier {
        self.reviewer = Some(reviewer);
        self
    }

    /// The independent reviewer's record for this verification, when the run has one, the
    /// checks pass on a changed tree and the verdict would be SHIP or REVIEW: reused from the
    /// run's last verification of the same tree, else one session.
    fn independent_review(
        &mut self,
        store: &Store,
        run: &Run,
        tree: &str,
        proven: &Proven,
    ) -> Result<Option<reviewer::ReviewRecord>, StoreError> {
        let decision = reviewer_decision(run);
        let outcome = pawl_core::proof::judge(&proven.proof);
        if !decision.on
            || self.story.is_some()
            || !proven.proof.tree_changed
            || !matches!(outcome, Outcome::Done | Outcome::Review)
        {
            return Ok(None);
        }
        let prior = store
            .last_event(&run.id, EventKind::Verification)?
            .and_then(|e| serde_json::from_value::<VerifyReport>(e.data).ok())
            .and_then(|r| r.reviewer)
            .filter(|r| r.tree == tree && !r.stopped());
        if prior.is_some() {
            return Ok(prior);
        }
        let baseline: Option<Baseline> = store
            .last_event(&run.id, EventKind::Baseline)?
            .and_then(|e| serde_json::from_value(e.data).ok());
        let Some(baseline) = baseline else {
            return Ok(None);
        };
        let Some(asker) = self.reviewer.as_mut() else {
            return Ok(Some(reviewer::ReviewRecord::unasked(
                decision.why,
                tree,
                "this front end cannot start the reviewer's session",
            )));
        };
        let shown: Vec<String> = proven
            .findings
            .iter()
            .chain(proven.noted.iter())
            .cloned()
            .collect();
        // A cancellation (`pawl cancel`, the store's) ends the session too; a stop reaches it
        // through the run's control (`AgentReviewer::stopped_by`).
        let halt = || {
            store
                .run(&run.id)
                .ok()
                .filter(|r| r.status == pawl_core::model::RunStatus::Cancelled)
                .map(|_| "the run was cancelled (`pawl cancel`)".to_owned())
        };
        Ok(Some(reviewer::review(
            asker.as_mut(),
            &reviewer::Input {
                halt: &halt,
                root: &self.ws.root,
                goal: &run.goal,
                base: &baseline.tree,
                tree,
                findings: &shown,
                why: &decision.why,
            },
        )))
    }

    /// The verifier of one story of a plan run in parallel, in its worktree (`ws.root`): the
    /// run's sealed checks and the story's own command criteria (`criteria`: their ids), its
    /// failures recorded on `story`.
    pub fn for_story(
        ws: Workspace,
        gates: Vec<Check>,
        story: String,
        criteria: Vec<String>,
    ) -> GateVerifier {
        GateVerifier {
            story: Some((story, criteria)),
            ..GateVerifier::new(ws, gates)
        }
    }

    /// The run's command criteria this verifier runs (a story's own, or all).
    fn criteria(&self, store: &Store, run: &Run) -> Result<Vec<Check>, StoreError> {
        let all = criterion_checks(store, Some(run))?;
        Ok(match &self.story {
            None => all,
            Some((_, ids)) => {
                let wanted: Vec<String> = ids
                    .iter()
                    .map(|id| Check::criterion(id, String::new()).name)
                    .collect();
                all.into_iter()
                    .filter(|c| wanted.contains(&c.name))
                    .collect()
            }
        })
    }

    /// The checks a verification of `run` runs now: its sealed checks (or, for a run stored
    /// before seals, the gates it was given), then its command criteria.
    pub fn checks(&self, store: &Store, run: &Run) -> Result<Vec<Check>, VerifyError> {
        let mut checks = match (&run.settings.seal, &self.story) {
            (Some(seal), Some(_)) => crate::hidden::story_checks(seal, self.ws.vault.as_ref())?,
            (Some(seal), None) => crate::hidden::checks_of(seal, self.ws.vault.as_ref())?,
            (None, _) => self.gates.clone(),
        };
        checks.extend(self.criteria(store, run)?);
        Ok(checks)
    }
}

impl Verifier for GateVerifier {
    fn vault(&self) -> Option<&crate::hidden::Vault> {
        self.ws.vault.as_ref()
    }

    fn workspace(&self) -> Option<Workspace> {
        // A story's verifier runs in its worktree: the run's tester runs from the main loop.
        self.story.is_none().then(|| self.ws.clone())
    }

    fn verify_again(
        &mut self,
        store: &mut Store,
        run_id: &str,
    ) -> Result<VerifyReport, VerifyError> {
        self.record = false;
        let report = self.verify(store, run_id);
        self.record = true;
        report
    }

    fn check_names(&self, store: &Store, run_id: &str) -> Vec<String> {
        let Ok(run) = store.run(run_id) else {
            return Vec::new();
        };
        let mut names: Vec<String> = match &run.settings.seal {
            Some(seal) => seal
                .checks
                .iter()
                .filter(|c| {
                    self.story.is_none() || c.role != pawl_core::seal::CheckRole::Acceptance
                })
                .map(|c| c.name.clone())
                .collect(),
            None => self.gates.iter().map(|c| c.name.clone()).collect(),
        };
        if let Ok(criteria) = self.criteria(store, &run) {
            names.extend(criteria.into_iter().map(|c| c.name));
        }
        names
    }

    fn verify(&mut self, store: &mut Store, run_id: &str) -> Result<VerifyReport, VerifyError> {
        // What a verification reads (the seal, the baseline, accepted test changes, criteria)
        // must be what pawl wrote: a run whose state was modified is never verified.
        store.check_run(run_id)?;
        let run = store.run(run_id)?;
        let checks = self.checks(store, &run)?;
        if checks.is_empty() {
            return Err(VerifyError::NothingToVerify);
        }
        let hidden: Vec<String> = run
            .settings
            .seal
            .as_ref()
            .map(|s| {
                s.checks
                    .iter()
                    .filter(|c| c.role == pawl_core::seal::CheckRole::Hidden)
                    .map(|c| c.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        let mut plan = Plan::new(checks);
        plan.seal = run.settings.seal.clone();
        plan.record_failure = self.record;
        plan.story = self.story.as_ref().map(|(s, _)| s.clone());
        let v = verify_checks(&self.ws, store, Some(&run), &plan)?;
        let summaries: Vec<CheckSummary> = v
            .items
            .iter()
            .map(|item| {
                let e = item.evidence.as_ref().map(|e| &e.data);
                CheckSummary {
                    name: item.name.clone(),
                    passed: item.accepted(),
                    no_worse: item.no_worse.clone(),
                    end: match (e, &item.skipped) {
                        (_, Some(why)) => format!("skipped: {why}"),
                        (Some(d), None) => d.end.clone(),
                        (None, None) => "not run".into(),
                    },
                    failing_tests: e.map(|d| d.failing.clone()).unwrap_or_default(),
                    first_failure: e.and_then(|d| d.first_failure.clone()),
                    log: e.and_then(|d| d.log_path.clone()),
                    category: e.and_then(|d| d.failure_category),
                    cached: item.reused,
                    hidden: hidden.contains(&item.name),
                    tests: e.and_then(|d| d.tests.clone()),
                    coverage: e
                        .filter(|_| !hidden.contains(&item.name))
                        .and_then(|d| pawl_verify::coverage::total_percent(&d.tail)),
                }
            })
            .collect();
        let (verified, unmet) = criteria_state(store, run_id)?;
        // Every check passed on an unchanged tree, and no criterion is left unverified (review,
        // observation and assumption criteria keep the run open) — then the tests must be
        // intact and the goal proven against the baseline.
        let checks_pass = v.verified && unmet.is_empty();
        let mut proven = prove(&self.ws, store, &run, &v, checks_pass)?;
        // The independent reviewer can only add findings (`pawl_core::review`).
        let reviewed = self.independent_review(store, &run, &v.tree, &proven)?;
        if let Some(r) = &reviewed {
            let added = r.findings();
            proven.proof.reviewer_findings = added.len();
            proven.findings.extend(added);
        }
        // The independent tester's hidden tests (`pawl_core::tester::act`): the executor is
        // sent back once, told only the behaviour; a second failure is REVIEW, with the tests.
        hidden_act(store, &run, &mut proven)?;
        // And still what pawl wrote once the checks are over (nothing wrote into it meanwhile).
        store.check_run(run_id)?;
        let outcome = pawl_core::proof::judge(&proven.proof);
        let assumptions = checked_assumptions(store, run_id, &proven)?;
        Ok(VerifyReport {
            tree_hash: v.tree.clone(),
            failing: summaries.iter().filter(|c| !c.passed).cloned().collect(),
            checks: summaries,
            done: outcome == Outcome::Done,
            verified,
            unmet,
            outcome: Some(outcome),
            proof: Some(proven.proof),
            findings: proven.findings,
            noted: proven.noted,
            locked: proven.locked,
            scope: proven.scope,
            interface: proven.interface,
            targeting: proven.targeting,
            assumptions,
            reviewer: reviewed,
            sent_back: proven.sent_back,
            hidden_review: proven.hidden_review,
        })
    }
}

/// What the hidden tests that fail on the locked tree do to the verification
/// (`pawl_core::tester::act`): a finding that names the behaviour, never the inputs, until the
/// executor was sent back once already; then REVIEW, and the user sees the tests and what they
/// got with `pawl report` (from the private directory: never in what this stores).
fn hidden_act(store: &Store, run: &Run, proven: &mut Proven) -> Result<(), StoreError> {
    let run_id = run.id.as_str();
    tester_unrun(store, run_id, proven)?;
    let Some((failing, from)) = proven.locked.as_ref().and_then(|l| {
        l.hidden
            .as_ref()
            .filter(|h| !h.failing.is_empty())
            .map(|h| (h.failing.clone(), h.from.clone()))
    }) else {
        return Ok(());
    };
    let otherwise_ship = pawl_core::proof::judge(&proven.proof) == Outcome::Done;
    let was_sent_back = store
        .events_of_kind(run_id, EventKind::Verification)?
        .into_iter()
        .filter_map(|e| serde_json::from_value::<VerifyReport>(e.data).ok())
        .any(|r| r.proof.is_some_and(|p| p.hidden_send_back));
    let can = pawl_core::tester::can_send_back(
        run.mode.as_deref().and_then(pawl_core::spec::Mode::parse),
    );
    let sent_back_before = was_sent_back || !can;
    proven.proof.hidden_findings = failing.len();
    match pawl_core::tester::act(failing.len(), otherwise_ship, sent_back_before) {
        pawl_core::tester::Act::SendBack => {
            proven.proof.hidden_send_back = true;
            let told = pawl_core::tester::send_back(&failing);
            proven.findings.push(told.clone());
            proven.sent_back = Some(told);
        }
        pawl_core::tester::Act::Review => {
            // The user's finding names the behaviour and where to see the tests: their calls and
            // answers stay in the private directory (`hidden_tests::details`), out of the store
            // and the report under `.pawl/` that a step reads. A resumed run's executor is told
            // what a send-back tells it (`sent_back`), never this finding.
            let finding = pawl_core::tester::review(&failing, &from, was_sent_back, run_id);
            proven.findings.push(finding.clone());
            proven.hidden_review = Some(finding);
            proven.sent_back = Some(pawl_core::tester::send_back(&failing));
        }
        // Work that does not pass everything else: no finding. A finding here reached the
        // executor's next prompt (under the heading of changed tests), a hint beyond the one
        // send-back; the report shows the failing hidden tests (`HiddenRun::line`).
        pawl_core::tester::Act::None => {}
    }
    Ok(())
}

/// A tester that was started and gave no hidden test that ran on this tree
/// (`pawl_core::tester::unrun`): on work that passes everything else, a finding that caps the
/// verdict at REVIEW (fail-closed). Said only then: on work that goes round again, a finding
/// would reach the executor's next prompt and tell it no hidden test will judge its work.
fn tester_unrun(store: &Store, run_id: &str, proven: &mut Proven) -> Result<(), StoreError> {
    if pawl_core::proof::judge(&proven.proof) != Outcome::Done {
        return Ok(());
    }
    let record: Option<hidden_tests::TesterRecord> = store
        .last_event(run_id, EventKind::Tester)?
        .and_then(|e| serde_json::from_value(e.data).ok());
    let ended = record.as_ref().map(|r| pawl_core::tester::Ended {
        failed: r.failed.as_deref(),
        files: r.files,
    });
    let hidden = proven.locked.as_ref().and_then(|l| l.hidden.as_ref());
    let ran = hidden.map(|h| pawl_core::tester::Ran {
        probed: h.probed,
        failing: h.failing.len(),
        inconclusive: h.inconclusive.len(),
        not_run: h.not_run.first().map(String::as_str),
    });
    if let Some(finding) = pawl_core::tester::unrun(ended, ran) {
        proven.proof.tester_unrun = true;
        proven.findings.push(finding);
    }
    Ok(())
}

/// Whether `run` has the independent reviewer: its sealed `[verify] reviewer`, its agent and
/// mode (`pawl_core::review::decide`); a run another driver than the headless one drives has
/// none (no session of pawl's own is started from the agent's hooks).
pub fn reviewer_decision(run: &Run) -> pawl_core::review::Decision {
    if run.driver != pawl_core::model::Driver::Headless {
        return pawl_core::review::Decision {
            on: false,
            why: format!(
                "the {} driver does not start the reviewer's session",
                run.driver
            ),
        };
    }
    let agent = run.settings.agent.clone().unwrap_or_default();
    pawl_core::review::decide(
        run.settings.seal.as_ref().and_then(|s| s.reviewer),
        agent.kind,
        run.mode.as_deref().and_then(pawl_core::spec::Mode::parse),
    )
}

/// The run's assumption criteria that this verification's facts check, with the evidence.
fn checked_assumptions(
    store: &Store,
    run_id: &str,
    proven: &Proven,
) -> Result<Vec<CheckedAssumption>, StoreError> {
    let locked_holds = proven
        .locked
        .as_ref()
        .is_some_and(|l| matches!(l.result, Locked::Holds | Locked::Asked));
    let checks = pawl_core::scope::Checks {
        scope: proven.scope.as_ref(),
        baseline_kept: locked_holds && proven.proof.baseline_kept,
        interface: proven.interface.as_ref(),
        red_to_green: &proven.proof.red_to_green,
    };
    Ok(store
        .criteria(run_id)?
        .into_iter()
        .filter(|c| c.verification.kind == pawl_core::model::VerifyKind::Assumption)
        .filter_map(|c| {
            let dim = pawl_core::scope::assumption_dimension(&c.text)?;
            let evidence = pawl_core::scope::check_assumption(dim, &checks)?;
            Some(CheckedAssumption { id: c.id, evidence })
        })
        .collect())
}

/// What a verification proves against the run's baseline: which checks and tests went from red
/// to green, which tests that passed at the baseline are gone, whether the tree changed.
fn prove(
    ws: &Workspace,
    store: &Store,
    run: &Run,
    v: &Verification,
    checks_pass: bool,
) -> Result<Proven, StoreError> {
    let baseline: Option<Baseline> = store
        .last_event(&run.id, EventKind::Baseline)?
        .and_then(|e| serde_json::from_value(e.data).ok());
    let Some(baseline) = baseline else {
        return Ok(Proven {
            proof: Proof {
                checks_pass,
                no_baseline: true,
                ..Proof::default()
            },
            ..Proven::default()
        });
    };
    let mut red_to_green = Vec::new();
    let mut findings: Vec<protect::Finding> = Vec::new();
    let mut baseline_kept = true;
    for item in &v.items {
        let Some(before) = baseline.check(&item.name) else {
            continue;
        };
        let outcomes: &[TestOutcome] = item
            .evidence
            .as_ref()
            .map(|e| e.data.outcomes.as_slice())
            .unwrap_or(&[]);
        if !before.passed && item.passed() {
            red_to_green.push(item.name.clone());
        }
        if before.passed && !item.passed() {
            baseline_kept = false;
        }
        for t in &before.tests {
            let now = outcomes.iter().find(|o| o.id == t.id).map(|o| o.status);
            match (t.status, now) {
                (TestStatus::Failed, Some(TestStatus::Passed)) => {
                    red_to_green.push(format!("{}: {}", item.name, t.id));
                }
                (TestStatus::Passed, Some(TestStatus::Passed)) => {}
                (TestStatus::Passed, _) => baseline_kept = false,
                _ => {}
            }
        }
        // Only a check that reported tests can tell that a test is gone.
        if !outcomes.is_empty() {
            findings.extend(protect::compare_tests(&item.name, &before.tests, outcomes));
            // A test that failed at the baseline and is now skipped or no longer run was not
            // fixed: it was put out of the way.
            for t in before
                .tests
                .iter()
                .filter(|t| t.status == TestStatus::Failed)
            {
                let now = outcomes.iter().find(|o| o.id == t.id).map(|o| o.status);
                if now.is_none() && pawl_core::record::replaced_by_its_tests(&t.id, outcomes) {
                    continue;
                }
                if matches!(now, None | Some(TestStatus::Skipped | TestStatus::XFailed)) {
                    findings.push(protect::Finding::FailingTestGone {
                        check: item.name.clone(),
                        id: t.id.clone(),
                        now,
                    });
                }
            }
        }
    }
    // Nothing went from red to green among the checks: the command criteria planned during the
    // run are run against the pre-run code in a room of their own; what fails there and passes
    // now proves the change. (The run's new tests prove in the locked run, apart from the
    // sealed tests, on the baseline source and on the locked tree.)
    if checks_pass && red_to_green.is_empty() && v.tree != baseline.tree {
        red_to_green.extend(prove_on_base(ws, run, v, &baseline.tree));
    }
    // The tests themselves: files and runner configuration changed since the baseline, and
    // assertions weakened. Screened when the checks pass (that is when it decides the verdict).
    if checks_pass && v.tree != baseline.tree {
        // The sealed checks' own commands (a criterion's command reads files as data).
        let commands: Vec<&str> = v
            .items
            .iter()
            .filter(|i| !i.name.starts_with(gate::CRITERION_PREFIX))
            .map(|i| i.command.as_str())
            .collect();
        findings.extend(screen_changes(ws, &baseline.tree, &v.tree, &commands));
    }
    let mut findings: Vec<String> = findings.iter().map(finding_line).collect();
    // Of the deciding findings, those about the tests and their configuration (the typed stop
    // reason `tests_changed` rather than `review`).
    let mut tests_findings = findings.len();
    // The locked run decides when the checks pass on a changed tree: the baseline's tests on
    // the baseline plus the run's product changes. Where it holds, what the screen read in the
    // run's changes to tests and configuration cannot have bought the verdict: it is shown,
    // not deciding.
    let mut noted = Vec::new();
    let mut locked = None;
    let mut scoped: Option<pawl_core::scope::Scope> = None;
    let mut interface = None;
    let mut targeting = None;
    if checks_pass && let Some(seal) = run.settings.seal.as_ref() {
        let mut lr = locked_run(ws, store, run, seal, &baseline, v);
        if matches!(lr.result, Locked::Holds | Locked::Asked) {
            noted = std::mem::take(&mut findings);
            tests_findings = 0;
        }
        // The environment the checks read, compared with the seal's (inside the repository's
        // environment directories and outside it). On a tree whose code did not change it is
        // what went green instead: said with the locked run. Otherwise a change that no
        // dependency manifest the run changed explains is a finding.
        let env = crate::room::env::env_change_list(ws, seal);
        if !env.is_empty() {
            let lines = pawl_core::envmanifest::change_lines(&env);
            if lr.result == Locked::NothingChanged {
                lr.lines.extend(lines);
            } else {
                let changed: Vec<String> = pawl_git::Repo::open(&ws.root)
                    .and_then(|r| r.changes_between(&baseline.tree, &v.tree))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|c| c.path.display().to_string())
                    .collect();
                // The platforms' dependency manifests (`[environment] manifests`, data).
                let layout = pawl_verify::platform::Descriptors::builtin()
                    .map(|d| d.environment())
                    .unwrap_or_default()
                    .manifest_set();
                let is_manifest = |p: &str| layout.is_match(p);
                match pawl_core::envmanifest::judge(env, &changed, &is_manifest) {
                    pawl_core::envmanifest::EnvVerdict::Unexplained { .. } => {
                        findings.extend(lines.into_iter().map(|l| {
                            format!("{l} — no dependency manifest the run changed explains it")
                        }));
                    }
                    _ => noted.extend(lines),
                }
            }
        }
        // After a rebuild of the room's environment, a gate's program that resolves
        // differently from the seal (a `node_modules/.bin/jest` the rebuild replaced).
        findings.extend(crate::room::env::moved_programs(ws, seal));
        findings.extend(lr.findings.iter().cloned());
        if let Some(q) = lr.question() {
            findings.push(q);
        }
        // The run's new tests that fail on the baseline source and pass on the locked tree
        // (each in a process of its own, apart from the sealed tests) prove the change — when
        // they exercise what the goal names (issue 32 point 3).
        let proving: Vec<&locked::NewTest> = lr.new_tests.iter().filter(|t| t.proves()).collect();
        let facts: Vec<pawl_core::proof::ProvingTest<'_>> = proving
            .iter()
            .map(|t| pawl_core::proof::ProvingTest {
                id: &t.id,
                exercises: &t.exercises,
            })
            .collect();
        let (counted, off_goal) =
            pawl_core::proof::new_tests_on_goal(&lr.goal_symbols, &facts, !red_to_green.is_empty());
        red_to_green.extend(counted.iter().map(|&i| {
            let t = proving[i];
            format!(
                "{}: {} (a new test: fails on the baseline source, passes on the locked tree)",
                t.check, t.id
            )
        }));
        // About the run's tests (accepting the tests answers it).
        tests_findings += usize::from(off_goal.is_some());
        findings.extend(off_goal);
        locked = Some(lr);
        // Scope: the changes against what the targeted failing tests exercise.
        let anchoring = crate::anchors::of_run(&ws.root, &run.goal, &baseline);
        if let Some((s, i)) = scope::of_run(
            &ws.root, &run.goal, &baseline, &anchoring, &v.tree, seal.scope,
        ) {
            if let Some(q) = s.question() {
                findings.push(q);
            }
            scoped = Some(s);
            interface = Some(i);
        }
        targeting = Some(anchoring);
    }
    // The programs the checks start must be the ones sealed: a fake `python3` dropped into a
    // `PATH` directory since the run started is a finding.
    if let Some(seal) = run.settings.seal.as_ref().filter(|s| !s.tools.is_empty()) {
        let now = crate::baseline::tools_of(seal, ws.vault.as_ref(), &ws.root);
        for (name, was) in &seal.tools {
            let is = now.get(name).map(String::as_str).unwrap_or("<not found>");
            if is != was {
                findings.push(format!(
                    "the program `{name}` the checks start changed since the run started: it was {was}, it is {is}"
                ));
            }
        }
    }
    // Where the checks could read pawl's key, a passing verification cannot be trusted as
    // pawl's own: the agent's code may have forged evidence with it (docs/sandbox.md, "Checks").
    if checks_pass && let Some(why) = &ws.key_exposed {
        findings.push(format!(
            "{why}: the agent's code run by the checks {KEY_EXPOSED}, so the verdict is at most REVIEW"
        ));
    }
    let tests_accepted = store
        .last_event(&run.id, EventKind::TestsAccepted)?
        .is_some();
    let no_behaviour = run.settings.seal.as_ref().is_some_and(|s| s.no_behaviour);
    let changes_accepted = store
        .last_event(&run.id, EventKind::ChangesAccepted)?
        .is_some();
    // The questions the locked run and scope ask are answered by accepting the changes, not
    // the tests.
    let scope_review = scoped
        .as_ref()
        .is_some_and(|s| s.decision == pawl_core::scope::Decision::Review);
    let deciding = findings.len()
        - usize::from(
            locked
                .as_ref()
                .is_some_and(|l: &LockedRun| l.question().is_some()),
        )
        - usize::from(scope_review)
        - usize::from(checks_pass && ws.key_exposed.is_some());
    // What the run's steps left in HOME's persistence places (`crate::start::home`): pawl
    // cannot undo it, so the run does not ship until the user accepts the changes.
    let home: Vec<String> = store
        .events_of_kind(&run.id, EventKind::HomeChanged)?
        .iter()
        .filter_map(|e| e.data["finding"].as_str().map(str::to_owned))
        .collect();
    let home_changes = home.len();
    findings.extend(home);
    Ok(Proven {
        proof: Proof {
            checks_pass,
            red_to_green,
            findings: deciding,
            tests_accepted,
            no_behaviour,
            tree_changed: v.tree != baseline.tree,
            baseline_kept,
            no_baseline: false,
            locked: locked.as_ref().map(|l| l.result),
            changes_accepted,
            scope_review,
            key_exposed: checks_pass && ws.key_exposed.is_some(),
            tests_findings,
            reviewer_findings: 0,
            hidden_findings: 0,
            hidden_send_back: false,
            tester_unrun: false,
            home_changes,
        },
        findings,
        noted,
        locked,
        scope: scoped,
        interface,
        targeting,
        sent_back: None,
        hidden_review: None,
    })
}

/// What [`prove`] found.
#[derive(Default)]
struct Proven {
    proof: Proof,
    findings: Vec<String>,
    noted: Vec<String>,
    locked: Option<LockedRun>,
    scope: Option<pawl_core::scope::Scope>,
    interface: Option<pawl_core::scope::Interface>,
    targeting: Option<pawl_core::spec::facts::Anchoring>,
    /// The send-back of the independent tester's hidden tests ([`VerifyReport::sent_back`]).
    sent_back: Option<String>,
    /// Their REVIEW finding ([`VerifyReport::hidden_review`]).
    hidden_review: Option<String>,
}

/// What the finding of a verification whose checks could read pawl's key says (the verdict
/// is at most REVIEW: [`Workspace::key_exposed`]).
pub const KEY_EXPOSED: &str = "could have read pawl's key and forged evidence";

/// Whether `findings` are only the one of pawl's key readable by the checks: the verdict line
/// says that, not that the tests were changed.
pub fn only_key_exposed(findings: &[String]) -> bool {
    !findings.is_empty() && findings.iter().all(|f| f.contains(KEY_EXPOSED))
}

/// The locked run of the verification `v`, reused from the run's last verification of the
/// same tree (the Stop hook verifies an unchanged tree at every turn); one that cannot be made
/// is a result that keeps the run from SHIP, with why.
fn locked_run(
    ws: &Workspace,
    store: &Store,
    run: &Run,
    seal: &Seal,
    baseline: &Baseline,
    v: &Verification,
) -> LockedRun {
    let prior = store
        .last_event(&run.id, EventKind::Verification)
        .ok()
        .flatten()
        .and_then(|e| serde_json::from_value::<VerifyReport>(e.data).ok())
        .and_then(|r| r.locked)
        .filter(|l| l.from_tree == v.tree && l.base_tree == baseline.tree);
    if let Some(prior) = prior {
        return prior;
    }
    let hidden: Vec<Check> = crate::hidden::checks_of(seal, ws.vault.as_ref())
        .unwrap_or_default()
        .into_iter()
        .filter(|c| crate::hidden::is_hidden(Some(seal), &c.name))
        .collect();
    // What the user changed while resolving a blocker is theirs, not the run's.
    let user_paths: Vec<std::path::PathBuf> = store
        .last_event(&run.id, EventKind::UserChanges)
        .ok()
        .flatten()
        .into_iter()
        .flat_map(|e| {
            e.data["paths"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|p| p.as_str().map(std::path::PathBuf::from))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
        .collect();
    match locked::run(
        ws,
        locked::Input {
            goal: &run.goal,
            seal,
            baseline,
            final_tree: &v.tree,
            items: &v.items,
            hidden: &hidden,
            user_paths: &user_paths,
            tester: hidden_tests::hidden_of(store, &run.id, ws),
        },
    ) {
        Ok(lr) => lr,
        Err(e) => LockedRun {
            result: Locked::NeedsOtherChanges,
            from_tree: v.tree.clone(),
            base_tree: baseline.tree.clone(),
            tree: String::new(),
            taken: Vec::new(),
            left_out: Vec::new(),
            lines: vec![format!("the locked run could not be made: {e}")],
            runs: 0,
            findings: vec![format!(
                "the locked run could not be made ({e}): the baseline's tests were not run on the run's product changes alone"
            )],
            new_tests: Vec::new(),
            ids: Vec::new(),
            cost: None,
            goal_symbols: Vec::new(),
            hidden: None,
            steps: Vec::new(),
        },
    }
}

/// The largest file the test-protection screen reads.
const SCREEN_MAX_BYTES: usize = 1 << 20;

/// The test-relevant files changed between two trees, read as stored, through the screen.
fn screen_changes(
    ws: &Workspace,
    from: &str,
    to: &str,
    commands: &[&str],
) -> Vec<protect::Finding> {
    let Ok(repo) = pawl_git::Repo::open(&ws.root) else {
        return Vec::new();
    };
    let Ok(changes) = repo.changes_between(from, to) else {
        return Vec::new();
    };
    let files: Vec<protect::FileChange> = changes
        .iter()
        .filter(|c| {
            protect::classify_path(&c.path.to_string_lossy()) != protect::PathClass::Other
                || c.path.extension().is_some_and(|e| e == "rs")
        })
        .map(|c| {
            let read = |tree: &str| {
                repo.blob_text(tree, &c.path, SCREEN_MAX_BYTES)
                    .ok()
                    .flatten()
            };
            protect::FileChange {
                path: c.path.to_string_lossy().into_owned(),
                old: (c.kind != pawl_git::ChangeKind::Added)
                    .then(|| read(from))
                    .flatten(),
                new: (c.kind != pawl_git::ChangeKind::Deleted)
                    .then(|| read(to))
                    .flatten(),
            }
        })
        .collect();
    let mut findings = protect::screen_changes(&files);
    // A file a sealed check's command names (`sh ci/check.sh`) is part of the check: changing
    // or deleting it changes what is judged, whatever it is called.
    for c in &changes {
        let path = c.path.to_string_lossy();
        let named = commands
            .iter()
            .any(|cmd| locked::command_words(cmd).any(|w| w == path));
        let screened = findings.iter().any(|f| {
            matches!(f, protect::Finding::TestFileChanged { path: p, .. } | protect::Finding::AssertionsWeakened { path: p, .. } if *p == path)
        });
        if named && !screened && c.kind != pawl_git::ChangeKind::Added {
            findings.push(protect::Finding::TestFileChanged {
                path: path.into_owned(),
                class: protect::PathClass::RunnerConfig,
                change: match c.kind {
                    pawl_git::ChangeKind::Deleted => protect::Change::Deleted,
                    _ => protect::Change::Modified,
                },
                hunk: None,
            });
        }
    }
    findings
}

/// One finding as the report and the prompt show it: what, then its hunk.
fn finding_line(f: &protect::Finding) -> String {
    let hunk = match f {
        protect::Finding::TestFileChanged { hunk: Some(h), .. }
        | protect::Finding::AssertionsWeakened { hunk: h, .. } => Some(h.as_str()),
        _ => None,
    };
    match hunk {
        Some(h) if !h.trim().is_empty() => format!("{f}\n{}", h.trim_end()),
        _ => f.to_string(),
    }
}

/// Runs the command criteria that pass now on the pre-run tree (in a second room), and names
/// those that fail there.
fn prove_on_base(ws: &Workspace, run: &Run, v: &Verification, base: &str) -> Vec<String> {
    let (Some(_), Some(seal)) = (&ws.room, &run.settings.seal) else {
        return Vec::new();
    };
    let criteria: Vec<Check> = v
        .items
        .iter()
        .filter(|i| i.passed() && i.name.starts_with(gate::CRITERION_PREFIX))
        .map(|i| Check::gate(i.name.clone(), i.command.clone()))
        .collect();
    if criteria.is_empty() {
        return Vec::new();
    }
    let Some(base) = pawl_git::TreeHash::new(base.to_owned()) else {
        return Vec::new();
    };
    // With the project's environment, as the run's room: without it a criterion would fail on
    // the pre-run code for want of its tools, and "prove" a change that proves nothing.
    let Ok((_room, cfg)) = crate::baseline::room_apart(ws, "base", &base, seal) else {
        return Vec::new();
    };
    run_checks(&criteria, &cfg)
        .into_iter()
        .filter(|r| !r.passed && !matches!(r.end, CheckEnd::Skipped { .. }))
        .map(|r| format!("{} (fails on the pre-run code)", r.check.name))
        .collect()
}

pub use pawl_core::against::RecheckVerdict;

/// `pawl verify --run <id>` on a finished run.
#[derive(Debug, Clone, Serialize)]
pub struct Recheck {
    pub verdict: RecheckVerdict,
    pub why: String,
    /// The run's final tree, as its last verification recorded it.
    pub tree: Option<String>,
    /// Each sealed check: name, passed, how it ended.
    pub checks: Vec<(String, bool, String)>,
}

impl Recheck {
    fn unverifiable(why: impl Into<String>, tree: Option<String>) -> Recheck {
        Recheck {
            verdict: RecheckVerdict::Unverifiable,
            why: why.into(),
            tree,
            checks: Vec::new(),
        }
    }
}

/// Re-runs a finished run's sealed checks on its recorded final tree, in a room of its own, so
/// that anyone can re-check a SHIP. Records nothing but a `recheck` event.
pub fn recheck(ws: &Workspace, store: &mut Store, run: &Run) -> Result<Recheck, VerifyError> {
    let Some(seal) = &run.settings.seal else {
        return Ok(Recheck::unverifiable(
            "the run has no seal (it was stored before pawl sealed its checks)",
            None,
        ));
    };
    let last: Option<VerifyReport> = store
        .last_event(&run.id, EventKind::Verification)?
        .and_then(|e| serde_json::from_value(e.data).ok());
    let Some(last) = last else {
        return Ok(Recheck::unverifiable(
            "the run recorded no verification",
            None,
        ));
    };
    let tree = Some(last.tree_hash.clone());
    if ws.room.is_none() {
        return Ok(Recheck::unverifiable(
            "no clean room is available (no user state directory)",
            tree,
        ));
    }
    let Some(id) = pawl_git::TreeHash::new(last.tree_hash.clone()) else {
        return Ok(Recheck::unverifiable(
            "the recorded tree id is malformed",
            tree,
        ));
    };
    // With the project's environment, as the run's room had it.
    let (_room, cfg) = match crate::baseline::room_apart(ws, "recheck", &id, seal) {
        Ok(r) => r,
        Err(crate::baseline::ApartError::Room(e @ crate::room::RoomError::Git(_))) => {
            return Ok(Recheck::unverifiable(
                format!(
                    "the run's final tree cannot be checked out ({e}): it is no longer in the repository"
                ),
                tree,
            ));
        }
        Err(e) => return Ok(Recheck::unverifiable(e.to_string(), tree)),
    };
    let mut checks = match crate::hidden::checks_of(seal, ws.vault.as_ref()) {
        Ok(c) => c,
        Err(e) => return Ok(Recheck::unverifiable(e.to_string(), tree)),
    };
    checks.extend(criterion_checks(store, Some(run))?);
    let runs = crate::baseline::run_sealed(ws, Some(seal), &checks, &cfg);
    let results: Vec<(String, bool, String)> = runs
        .iter()
        .map(|r| (r.check.name.clone(), r.passed, r.end.describe()))
        .collect();
    // Judged as the verification judged it: a check that failed at the baseline passes when it
    // is no worse (`pawl_core::against`), not by its exit code alone.
    let baseline = store
        .last_event(&run.id, EventKind::Baseline)?
        .and_then(|e| serde_json::from_value::<Baseline>(e.data).ok());
    let judgements: Vec<Option<pawl_core::against::Judgement>> = match &baseline {
        Some(b) if runs.iter().any(|r| !r.passed) => {
            let against = AgainstBaseline::new(ws, run, b, &last.tree_hash);
            runs.iter().map(|r| against.judge(r)).collect()
        }
        _ => vec![None; runs.len()],
    };
    let rechecked: Vec<pawl_core::against::Rechecked<'_>> = runs
        .iter()
        .zip(&judgements)
        .map(|(r, j)| pawl_core::against::Rechecked {
            name: &r.check.name,
            passed: r.passed,
            against: j.as_ref(),
        })
        .collect();
    let (verdict, why) = pawl_core::against::recheck(
        run.status == pawl_core::model::RunStatus::Done,
        &run.status.to_string(),
        &last.tree_hash,
        &rechecked,
    );
    store.append_event(
        Some(&run.id),
        EventKind::Recheck,
        serde_json::json!({"verdict": verdict, "why": why, "tree": last.tree_hash, "checks": results}),
    )?;
    Ok(Recheck {
        verdict,
        why,
        tree,
        checks: results,
    })
}
