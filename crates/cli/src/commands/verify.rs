//! `pawl verify [--gate NAME]... [--fresh] [--fix-lint] [--timeout D] [--jobs N]`: run the gates
//! (and the run's command criteria) on the current working tree and record the evidence.
//!
//! Also the shared verification used by `pawl story done` and `pawl criterion check`
//! ([`verify_checks`]). The rules:
//! - evidence is bound to the tree hash computed before the checks ran; a passing result for
//!   the same tree, check name and exact command is reused (and recorded as reused) unless
//!   `--fresh`; failures are always re-run, because they can come from the environment;
//! - the tree hash is computed again after the checks; if it moved, the evidence records both
//!   hashes, is never reused, and the verification fails: what was checked is not what is there;
//! - one failing verification records one classified failure on the story (the first failing
//!   check in run order, naming the others), so a story's attempts count verifications;
//! - exit 0 only when every check passed on an unchanged tree, else 1.

use std::time::Duration;

use pawl_core::ExitCode;
use pawl_core::config::Dur;
use pawl_core::model::{CriterionStatus, VerifyKind};
use pawl_core::record::Run;
use pawl_git::Repo;
use pawl_store::{Evidence, NewEvidence, Store, TestCounts};
use pawl_verify::backup::TreeBackup;
use pawl_verify::gate::{self, Check, LINT, LINT_FIX};
use pawl_verify::outcome::human_ms;
use pawl_verify::{CheckEnd, CheckRun, RunnerConfig, run_check, run_checks};
use serde::Serialize;

use crate::cli::VerifyArgs;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

/// Longest a gate may run unless `--timeout` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// Failing test names shown per check in human output.
const SHOWN_NAMES: usize = 10;
/// Lines of a first failure message shown in human output.
const SHOWN_LINES: usize = 12;

/// What to verify and how: the checked form of the arguments.
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
        }
    }
}

/// At least two (so independent gates overlap even on one core), at most eight.
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
}

impl Item {
    pub fn passed(&self) -> bool {
        self.skipped.is_none() && self.evidence.as_ref().is_some_and(|e| e.data.passed)
    }
}

/// The result of verifying a set of checks on one tree.
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    /// True only when every check passed and the tree did not change meanwhile.
    pub verified: bool,
    /// The tree the checks ran on.
    pub tree: String,
    /// The tree after the checks, when it differs.
    pub tree_after: Option<String>,
    pub items: Vec<Item>,
    /// The failure recorded on the story, if any (`{id, story, category, message}`).
    pub failure: Option<pawl_core::record::Failure>,
}

/// Variables every gate gets on top of pawl's environment. Python must not write bytecode
/// caches from pawl's runs: a `.pyc` written in the same second as an edit of the same size is
/// silently reused by the next run (stale results), and an un-ignored `__pycache__/` would move
/// the tree hash under the evidence.
fn gate_env() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    vec![("PYTHONDONTWRITEBYTECODE".into(), "1".into())]
}

fn git_err(e: pawl_git::Error) -> CliError {
    CliError::Failed(format!("git: {e}"))
}

fn now_ms() -> u64 {
    u64::try_from(jiff::Timestamp::now().as_millisecond()).unwrap_or(0)
}

/// The gates configured in `pawl.toml`, in run order.
pub fn configured_gates(ctx: &Ctx) -> CliResult<Vec<Check>> {
    let eff = ctx.config(&[])?;
    Ok(gate::gates_from_config(&eff.config.gates))
}

/// The run's command criteria as checks (stories do not link to criteria yet, so a story is
/// held to all of them).
pub fn criterion_checks(store: &Store, run: Option<&Run>) -> CliResult<Vec<Check>> {
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

/// The open run if there is one (`--run` must name an open run when given).
pub fn optional_run(ctx: &Ctx, store: &Store) -> CliResult<Option<Run>> {
    if ctx.run_flag.is_some() {
        return Ok(Some(ctx.open_run(store)?));
    }
    Ok(store.current_run()?.filter(|r| !r.status.is_terminal()))
}

fn rel(ctx: &Ctx, p: &std::path::Path) -> String {
    p.strip_prefix(&ctx.root).unwrap_or(p).display().to_string()
}

fn new_evidence(
    ctx: &Ctx,
    run: Option<&Run>,
    r: &CheckRun,
    tree: &str,
    tree_after: Option<&str>,
) -> NewEvidence {
    NewEvidence {
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
        log_path: r.log_path.as_deref().map(|p| rel(ctx, p)),
        report_path: r.report_path.as_deref().map(|p| rel(ctx, p)),
        reused_from: None,
    }
}

/// Runs (or reuses) `plan.checks` on the current tree, records the evidence, the criteria
/// statuses and at most one failure. Does not print.
pub fn verify_checks(
    ctx: &Ctx,
    store: &mut Store,
    run: Option<&Run>,
    plan: &Plan,
) -> CliResult<Verification> {
    let repo = Repo::open(&ctx.root).map_err(git_err)?;
    let tree = repo.tree_hash().map_err(git_err)?.to_string();

    let mut reused: Vec<(usize, Evidence)> = Vec::new();
    let mut to_run: Vec<Check> = Vec::new();
    for (i, c) in plan.checks.iter().enumerate() {
        match (!plan.fresh)
            .then(|| store.cached_evidence(&tree, &c.name, &c.command))
            .transpose()?
            .flatten()
        {
            Some(e) => reused.push((i, e)),
            None => to_run.push(c.clone()),
        }
    }

    let mut cfg = RunnerConfig::new(&ctx.root, now_ms());
    cfg.logs_dir = ctx.state_dir().join("logs");
    cfg.timeout = plan.timeout;
    cfg.jobs = plan.jobs;
    cfg.env = gate_env();
    let runs = run_checks(&to_run, &cfg);

    let tree_after = if runs.is_empty() {
        None
    } else {
        Some(repo.tree_hash().map_err(git_err)?.to_string()).filter(|t| *t != tree)
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
        records.push(new_evidence(ctx, run, r, &tree, tree_after.as_deref()));
    }
    let mut stored = store.record_evidence(&records)?.into_iter();

    let mut items: Vec<Option<Item>> = vec![None; plan.checks.len()];
    for (i, _) in &reused {
        let c = &plan.checks[*i];
        items[*i] = Some(Item {
            name: c.name.clone(),
            command: c.command.clone(),
            evidence: stored.next(),
            reused: true,
            skipped: None,
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
            command: r.check.command.clone(),
            evidence: if skipped.is_none() {
                stored.next()
            } else {
                None
            },
            reused: false,
            skipped,
        });
    }
    let items: Vec<Item> = items.into_iter().flatten().collect();
    let verified = tree_after.is_none() && items.iter().all(Item::passed);

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
    Ok(Verification {
        verified,
        tree,
        tree_after,
        items,
        failure,
    })
}

/// One failure for a failed verification: the first failing check, naming the others.
fn record_failure(
    store: &mut Store,
    run: &Run,
    plan: &Plan,
    items: &[Item],
) -> CliResult<Option<pawl_core::record::Failure>> {
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
    let story = match &plan.story {
        Some(s) => Some(s.clone()),
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

/// The compact human account of a verification: one line per check, and for each failing one
/// the failing test names, the first failure message and the log path.
pub fn render(v: &Verification) -> String {
    let mut out = String::new();
    let short = |t: &str| t.get(..10).unwrap_or(t).to_owned();
    for item in &v.items {
        let name = &item.name;
        match (&item.skipped, &item.evidence) {
            (Some(reason), _) => out.push_str(&format!("  - {name:<12} skipped: {reason}\n")),
            (None, Some(e)) => {
                let d = &e.data;
                let mark = if d.passed { "✓" } else { "✗" };
                let how = if item.reused {
                    format!(
                        "passed (reused: evidence #{} from this exact tree)",
                        d.reused_from.unwrap_or(e.id)
                    )
                } else if d.passed {
                    format!("passed in {}", human_ms(d.duration_ms))
                } else {
                    let end = match (d.end.as_str(), d.exit_code, d.signal) {
                        ("exited", Some(c), _) => format!("exit {c}"),
                        ("signalled", _, Some(s)) => {
                            format!("killed by {}", pawl_process::signal_name(s))
                        }
                        ("timed_out", _, _) => "timed out".to_owned(),
                        (other, _, _) => other.replace('_', " "),
                    };
                    let cat = d
                        .failure_category
                        .map(|c| format!(" [{c}]"))
                        .unwrap_or_default();
                    format!("FAILED ({end}) in {}{cat}", human_ms(d.duration_ms))
                };
                let counts = d
                    .tests
                    .as_ref()
                    .map(|t| {
                        format!(
                            "  tests: {} passed, {} failed, {} skipped",
                            t.passed, t.failed, t.skipped
                        )
                    })
                    .unwrap_or_default();
                out.push_str(&format!("  {mark} {name:<12} {how}{counts}\n"));
                if !d.passed {
                    if !d.failing.is_empty() {
                        let mut names: Vec<&str> = d
                            .failing
                            .iter()
                            .take(SHOWN_NAMES)
                            .map(String::as_str)
                            .collect();
                        if d.failing.len() > SHOWN_NAMES {
                            names.push("...");
                        }
                        out.push_str(&format!("      failing: {}\n", names.join(", ")));
                    }
                    let message = d
                        .first_failure
                        .clone()
                        .unwrap_or_else(|| last_lines(&d.tail));
                    for (i, line) in message
                        .lines()
                        .filter(|l| !l.trim().is_empty())
                        .take(SHOWN_LINES)
                        .enumerate()
                    {
                        let label = if i == 0 {
                            "first failure:"
                        } else {
                            "              "
                        };
                        out.push_str(&format!("      {label} {line}\n"));
                    }
                    if let Some(log) = &d.log_path {
                        out.push_str(&format!("      log: {log}\n"));
                    }
                }
            }
            (None, None) => out.push_str(&format!("  ? {name:<12} no result\n")),
        }
    }
    if let Some(after) = &v.tree_after {
        out.push_str(&format!(
            "The working tree changed while the checks ran ({} -> {}): the evidence is bound to \
             {} and is not reused. Git-ignore what the checks generate, then verify again.\n",
            short(&v.tree),
            short(after),
            short(&v.tree)
        ));
    }
    let failed = v.items.iter().filter(|i| !i.passed()).count();
    if v.tree_after.is_some() && failed == 0 {
        out.push_str(&format!(
            "NOT verified: the checks passed but the tree they ran on ({}) is no longer the working tree",
            short(&v.tree)
        ));
    } else if v.verified {
        out.push_str(&format!(
            "verified: {} check{} passed on tree {}",
            v.items.len(),
            if v.items.len() == 1 { "" } else { "s" },
            short(&v.tree)
        ));
    } else {
        out.push_str(&format!(
            "NOT verified: {failed} of {} check{} did not pass on tree {}",
            v.items.len(),
            if v.items.len() == 1 { "" } else { "s" },
            short(&v.tree)
        ));
        if let Some(f) = &v.failure {
            out.push_str(&format!(
                "\nrecorded failure #{} [{}]{}",
                f.id,
                f.category,
                f.story_id
                    .as_deref()
                    .map(|s| format!(" on story {s}"))
                    .unwrap_or_default()
            ));
        }
    }
    out
}

fn last_lines(tail: &str) -> String {
    let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(SHOWN_LINES)..].join("\n")
}

/// Turns the raw arguments into a plan (before any work).
fn plan_from_args(
    ctx: &Ctx,
    store: &Store,
    run: Option<&Run>,
    args: &VerifyArgs,
) -> CliResult<Plan> {
    let gates = configured_gates(ctx)?;
    let selected = gate::select(gates, &args.gates).map_err(|e| CliError::Usage(e.to_string()))?;
    let mut checks = selected;
    if args.gates.is_empty() {
        checks.extend(criterion_checks(store, run)?);
    }
    let mut plan = Plan::new(checks);
    plan.fresh = args.fresh;
    if let Some(t) = &args.timeout {
        let d: Dur = t
            .parse()
            .map_err(|e: String| CliError::Usage(format!("--timeout: {e}")))?;
        if d.0.is_zero() {
            return Err(CliError::Usage("--timeout must be more than 0".into()));
        }
        plan.timeout = d.0;
    }
    if let Some(j) = args.jobs {
        if j == 0 {
            return Err(CliError::Usage("--jobs must be at least 1".into()));
        }
        plan.jobs = j;
    }
    Ok(plan)
}

/// What `--json` prints.
#[derive(Serialize)]
struct Report<'a> {
    verified: bool,
    tree: &'a str,
    tree_after: Option<&'a str>,
    evidence: Vec<&'a Evidence>,
    reused: Vec<&'a str>,
    skipped: Vec<&'a str>,
    failure: Option<&'a pawl_core::record::Failure>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lint_fix: Option<&'a LintFix>,
}

fn report<'a>(v: &'a Verification, lint_fix: Option<&'a LintFix>) -> Report<'a> {
    Report {
        verified: v.verified,
        tree: &v.tree,
        tree_after: v.tree_after.as_deref(),
        evidence: v.items.iter().filter_map(|i| i.evidence.as_ref()).collect(),
        reused: v
            .items
            .iter()
            .filter(|i| i.reused)
            .map(|i| i.name.as_str())
            .collect(),
        skipped: v
            .items
            .iter()
            .filter(|i| i.skipped.is_some())
            .map(|i| i.name.as_str())
            .collect(),
        failure: v.failure.as_ref(),
        lint_fix,
    }
}

pub fn run(ctx: &mut Ctx, args: &VerifyArgs) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = optional_run(ctx, &store)?;
    let plan = plan_from_args(ctx, &store, run.as_ref(), args)?;
    if plan.checks.is_empty() {
        return Err(CliError::Failed(
            "nothing to verify: no gates are configured. Add them under [gates] in pawl.toml \
             (e.g. test = \"cargo test\") or run `pawl init` to detect them"
                .into(),
        ));
    }
    let mut v = verify_checks(ctx, &mut store, run.as_ref(), &plan)?;
    let mut fix = None;
    if args.fix_lint && !v.verified {
        let (fixed, after) = lint_fix(ctx, &mut store, run.as_ref(), &plan, &v)?;
        if let Some(after) = after {
            v = after;
        }
        fix = Some(fixed);
    }
    let verified = v.verified;
    ctx.emit(&report(&v, fix.as_ref()), || {
        let mut out = render(&v);
        if let Some(f) = &fix {
            out.push_str(&format!("\nlint fix: {}", f.outcome));
        }
        out
    })?;
    Ok(if verified {
        ExitCode::Done
    } else {
        ExitCode::Error
    })
}

/// What `--fix-lint` did.
#[derive(Debug, Clone, Serialize)]
pub struct LintFix {
    /// `not_applicable`, `kept` or `reverted`.
    pub result: &'static str,
    pub outcome: String,
    /// The tree before the fix, to which a reverted fix restored exactly.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree_before: Option<String>,
    /// The ref keeping a snapshot of the tree before the fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup_ref: Option<String>,
}

impl LintFix {
    fn not_applicable(why: impl Into<String>) -> LintFix {
        LintFix {
            result: "not_applicable",
            outcome: why.into(),
            tree_before: None,
            backup_ref: None,
        }
    }
}

/// The lint-fix loop: when only `lint` failed and `[gates] lint_fix` exists, apply the fix,
/// verify every gate again, keep the change only if everything passes, otherwise restore the
/// tree exactly. Returns what happened and, when a fix was tried and kept, the new verification.
fn lint_fix(
    ctx: &Ctx,
    store: &mut Store,
    run: Option<&Run>,
    plan: &Plan,
    v: &Verification,
) -> CliResult<(LintFix, Option<Verification>)> {
    let failing: Vec<&str> = v
        .items
        .iter()
        .filter(|i| !i.passed())
        .map(|i| i.name.as_str())
        .collect();
    if failing != [LINT] || v.tree_after.is_some() {
        return Ok((
            LintFix::not_applicable(format!(
                "not applied: it applies only when `lint` is the only failing check (failing: {})",
                failing.join(", ")
            )),
            None,
        ));
    }
    let eff = ctx.config(&[])?;
    let Some(fix_cmd) = eff
        .config
        .gates
        .get(LINT_FIX)
        .filter(|c| !c.trim().is_empty())
    else {
        return Ok((
            LintFix::not_applicable("not applied: no `lint_fix` command in [gates]"),
            None,
        ));
    };
    let repo = Repo::open(&ctx.root).map_err(git_err)?;
    let step = now_ms();
    let scratch = ctx.state_dir().join("tmp").join(format!("lint-fix-{step}"));
    let backup = TreeBackup::take(&repo, &scratch)
        .map_err(|e| CliError::Failed(format!("lint fix: cannot back up the tree: {e}")))?;

    let mut cfg = RunnerConfig::new(&ctx.root, step);
    cfg.logs_dir = ctx.state_dir().join("logs");
    cfg.timeout = plan.timeout;
    cfg.env = gate_env();
    let fix_run = run_check(&Check::gate(LINT_FIX, fix_cmd.clone()), &cfg);
    let after_fix = repo.tree_hash().map_err(git_err)?.to_string();
    let tree_before = backup.tree.to_string();
    let moved = (after_fix != tree_before).then_some(after_fix.as_str());
    store.record_evidence(&[new_evidence(ctx, run, &fix_run, &tree_before, moved)])?;

    // Every check again on the fixed tree (build, tests, lint, criteria); no failure is recorded
    // for this trial: a reverted fix leaves the story as the first verification found it.
    let mut recheck = plan.clone();
    recheck.record_failure = false;
    recheck.fresh = false;
    let backup_ref = backup.backup_ref.clone();
    let second = if fix_run.passed {
        Some(verify_checks(ctx, store, run, &recheck)?)
    } else {
        None
    };
    if let Some(second) = second.filter(|s| s.verified) {
        backup
            .discard()
            .map_err(|e| CliError::Failed(format!("lint fix: {e}")))?;
        let fix = LintFix {
            result: "kept",
            outcome: format!(
                "`{fix_cmd}` fixed the lint; every check passes on tree {}: the change is kept",
                second.tree.get(..10).unwrap_or(&second.tree)
            ),
            tree_before: Some(tree_before),
            backup_ref: Some(backup_ref),
        };
        return Ok((fix, Some(second)));
    }
    let why = if fix_run.passed {
        "the gates did not all pass after it".to_owned()
    } else {
        format!("`{fix_cmd}` itself failed ({})", fix_run.end.describe())
    };
    backup
        .restore(&repo)
        .map_err(|e| CliError::Failed(format!("lint fix: cannot restore the tree: {e}")))?;
    backup
        .discard()
        .map_err(|e| CliError::Failed(format!("lint fix: {e}")))?;
    Ok((
        LintFix {
            result: "reverted",
            outcome: format!(
                "reverted: {why}; the tree is restored exactly to {} (snapshot kept in {backup_ref})",
                tree_before.get(..10).unwrap_or(&tree_before)
            ),
            tree_before: Some(tree_before),
            backup_ref: Some(backup_ref),
        },
        None,
    ))
}
