//! Blockers and the user: `pawl blocker add|list`, `pawl await-user`, `pawl check-user-fix`,
//! `pawl user-fixed`.

use std::time::Duration;

use clap::{Args, Subcommand};
use pawl_core::ExitCode;
use pawl_core::model::Severity;
use pawl_core::record::Blocker;
use serde_json::json;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

#[derive(Debug, Subcommand)]
pub enum BlockerCommand {
    /// Add a blocker.
    Add {
        text: String,
        #[arg(long, default_value = "medium")]
        severity: Severity,
    },
    /// List blockers.
    List,
}

#[derive(Debug, Args)]
pub struct AwaitUserArgs {
    pub blocker: String,
    /// Exactly what the user must do.
    pub instructions: String,
    /// A command that succeeds once the user's fix is in place.
    #[arg(long)]
    pub check: Option<String>,
}

#[derive(Debug, Args)]
pub struct UserFixedArgs {
    #[arg(long)]
    pub notes: Option<String>,
    /// Accept even though the check command still fails.
    #[arg(long)]
    pub force: bool,
}

/// How long a user-fix check may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(120);

pub fn run(ctx: &mut Ctx, cmd: BlockerCommand) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    match cmd {
        BlockerCommand::Add { text, severity } => {
            if text.trim().is_empty() {
                return Err(CliError::Usage("the blocker text is empty".into()));
            }
            let b = store.add_blocker(&run.id, text.trim(), severity)?;
            ctx.emit(&b, || {
                format!(
                    "Blocker {} ({}) recorded: {}\nIf only the user can clear it: pawl await-user {} \"<what to do>\" --check \"<cmd>\"",
                    b.id, b.severity, b.text, b.id
                )
            })?;
        }
        BlockerCommand::List => {
            let all = store.blockers(&run.id)?;
            ctx.emit(&all, || {
                if all.is_empty() {
                    return "No blockers.".into();
                }
                all.iter()
                    .map(|b| format!("{:<4} {:<8} {:<13} {}", b.id, b.severity, b.status, b.text))
                    .collect::<Vec<_>>()
                    .join("\n")
            })?;
        }
    }
    Ok(ExitCode::Done)
}

pub fn await_user(ctx: &mut Ctx, args: &AwaitUserArgs) -> CliResult<ExitCode> {
    if args.instructions.trim().is_empty() {
        return Err(CliError::Usage("say exactly what the user must do".into()));
    }
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    let b = store.await_user(
        &run.id,
        &args.blocker,
        args.instructions.trim(),
        args.check.as_deref(),
    )?;
    ctx.emit(&b, || {
        let mut out = format!(
            "Run {} is waiting for the user (blocker {}: {}).\n\nWhat to do: {}\n",
            run.id,
            b.id,
            b.text,
            args.instructions.trim()
        );
        if let Some(check) = &b.check_command {
            out.push_str(&format!(
                "Check that it worked: pawl check-user-fix   (runs `{check}`)\n"
            ));
        }
        out.push_str("Then signal it: pawl user-fixed --notes \"<what you did>\"");
        out
    })?;
    Ok(ExitCode::Done)
}

struct CheckResult {
    passed: bool,
    detail: serde_json::Value,
    tail: String,
}

fn run_check(ctx: &Ctx, check: &str) -> CliResult<CheckResult> {
    let outcome = pawl_process::Command::new("sh")
        .arg("-c")
        .arg(check)
        .current_dir(&ctx.root)
        .timeout(CHECK_TIMEOUT)
        .run();
    match outcome {
        Ok(o) => {
            let tail = o.combined_tail_text();
            Ok(CheckResult {
                passed: o.success(),
                detail: json!({"command": check, "end": o.end.to_string(), "duration_ms": o.duration.as_millis() as u64, "tail": tail}),
                tail,
            })
        }
        Err(e) => Ok(CheckResult {
            passed: false,
            detail: json!({"command": check, "error": e.to_string()}),
            tail: e.to_string(),
        }),
    }
}

fn awaited(ctx: &Ctx, store: &pawl_store::Store, run_id: &str) -> CliResult<Blocker> {
    store.awaited_blocker(run_id)?.ok_or_else(|| {
        CliError::Failed(format!(
            "run {run_id} is not waiting for the user{}",
            ctx.run_flag
                .as_ref()
                .map(|_| "")
                .unwrap_or(" (see `pawl status`)")
        ))
    })
}

pub fn check_user_fix(ctx: &mut Ctx) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    let b = awaited(ctx, &store, &run.id)?;
    let Some(check) = b.check_command.clone() else {
        return Err(CliError::Failed(format!(
            "blocker {} has no check command: confirm by hand with `pawl user-fixed`",
            b.id
        )));
    };
    let result = run_check(ctx, &check)?;
    store.record_check(&run.id, &b.id, result.passed, result.detail.clone())?;
    let value = json!({"blocker": b.id, "passed": result.passed, "detail": result.detail});
    ctx.emit(&value, || {
        if result.passed {
            format!(
                "✓ `{check}` passed: the fix for {} is in place. Run `pawl user-fixed`.",
                b.id
            )
        } else {
            format!(
                "✗ `{check}` failed: {} is not fixed yet.\n{}",
                b.id,
                result.tail.trim_end()
            )
        }
    })?;
    Ok(if result.passed {
        ExitCode::Done
    } else {
        ExitCode::Blocked
    })
}

/// The paths the user changed while the run waited on them: what differs between the tree of
/// the run's last verification (the one that raised the blocker) and the tree now. The locked
/// run takes them as the user's (docs/verification.md).
fn record_user_changes(ctx: &Ctx, store: &mut pawl_store::Store, run_id: &str) -> CliResult<()> {
    let Some(last) = store
        .last_event(run_id, pawl_core::EventKind::Verification)?
        .and_then(|e| {
            e.data
                .get("tree_hash")
                .and_then(|t| t.as_str())
                .map(str::to_owned)
        })
    else {
        return Ok(());
    };
    let repo = pawl_git::Repo::open(&ctx.root)?;
    let now = repo.tree_hash()?.to_string();
    if now == last {
        return Ok(());
    }
    let paths: Vec<String> = repo
        .changes_between(&last, &now)?
        .into_iter()
        .map(|c| c.path.display().to_string())
        .collect();
    store.append_event(
        Some(run_id),
        pawl_core::EventKind::UserChanges,
        json!({"from": last, "tree": now, "paths": paths}),
    )?;
    Ok(())
}

pub fn user_fixed(ctx: &mut Ctx, args: &UserFixedArgs) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    let b = awaited(ctx, &store, &run.id)?;
    // A fix that a check can prove must be proven: the user's word is not evidence either.
    if let Some(check) = &b.check_command {
        let result = run_check(ctx, check)?;
        store.record_check(&run.id, &b.id, result.passed, result.detail)?;
        if !result.passed && !args.force {
            return Err(CliError::Failed(format!(
                "the check for {} still fails (`{check}`):\n{}\nFix it, or pass --force to accept anyway.",
                b.id,
                result.tail.trim_end()
            )));
        }
    }
    let resolved = store.user_fixed(&run.id, args.notes.as_deref())?;
    record_user_changes(ctx, &mut store, &run.id)?;
    let value = json!({"run": run.id, "resolved": resolved});
    ctx.emit(&value, || {
        let ids: Vec<&str> = resolved.iter().map(|b| b.id.as_str()).collect();
        format!(
            "Resolved {}; run {} is active again.",
            ids.join(", "),
            run.id
        )
    })?;
    Ok(ExitCode::Done)
}
