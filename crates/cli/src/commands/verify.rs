//! `pawl verify [--gate NAME]... [--fresh] [--fix-lint] [--timeout D] [--jobs N]`: run the gates
//! (and the run's command criteria) on the current working tree and record the evidence.
//! Exit 0 only when every check passed on an unchanged tree, else 1. The rules of verification
//! live in pawl-engine ([`pawl_engine::verify`]); this command parses, calls and prints.

use clap::Args;
use pawl_core::ExitCode;
use pawl_core::config::Dur;
use pawl_core::record::Run;
use pawl_engine::verify::{self, LintFix, Plan, Verification};
use pawl_store::{Evidence, Store};
use pawl_verify::gate::{self, LINT_FIX};
use serde::Serialize;

use crate::checks::{configured_gates, optional_run, render, workspace};
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Run only this gate (repeatable); command criteria run only without --gate.
    #[arg(long = "gate", value_name = "NAME")]
    pub gates: Vec<String>,
    /// Run every check even when passing evidence for this exact tree exists.
    #[arg(long)]
    pub fresh: bool,
    /// When only `lint` fails, apply `[gates] lint_fix`, re-run every check, and keep the change
    /// only if all pass (otherwise restore the tree exactly).
    #[arg(long)]
    pub fix_lint: bool,
    /// Longest a single check may run (e.g. 90s, 10m); default 30m.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// How many checks may run at once (default: CPUs, 2 to 8).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
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
        checks.extend(verify::criterion_checks(store, run)?);
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
    /// What changed in the working tree while the checks ran.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    moved: &'a [String],
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
        moved: &v.moved,
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
    // `--run` naming a finished run: re-check it on its recorded final tree.
    if let Some(id) = ctx.run_flag.clone()
        && let Ok(run) = store.resolve_run(Some(&id))
        && run.status.is_terminal()
    {
        let r = verify::recheck(&workspace(ctx), &mut store, &run)?;
        let code = if r.verdict == verify::RecheckVerdict::Confirmed {
            ExitCode::Done
        } else {
            ExitCode::Error
        };
        ctx.emit(&r, || {
            let mut out = String::new();
            for (name, ok, end) in &r.checks {
                out.push_str(&format!(
                    "  {} {name:<12} {end}\n",
                    if *ok { "✓" } else { "✗" }
                ));
            }
            let verdict = serde_json::to_value(r.verdict)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            out.push_str(&format!("{verdict}: {}", r.why));
            out
        })?;
        return Ok(code);
    }
    let run = optional_run(ctx, &store)?;
    let plan = plan_from_args(ctx, &store, run.as_ref(), args)?;
    if plan.checks.is_empty() {
        return Err(CliError::Failed(
            "nothing to verify: no gates are configured. Add them under [gates] in pawl.toml \
             (e.g. test = \"cargo test\") or run `pawl init` to detect them"
                .into(),
        ));
    }
    let ws = workspace(ctx);
    let mut v = verify::verify_checks(&ws, &mut store, run.as_ref(), &plan)?;
    let mut fix = None;
    if args.fix_lint && !v.verified {
        let fix_cmd = ctx.config(&[])?.config.gates.get(LINT_FIX).cloned();
        let (fixed, after) =
            verify::lint_fix(&ws, &mut store, run.as_ref(), &plan, &v, fix_cmd.as_deref())?;
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
