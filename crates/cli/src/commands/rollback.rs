//! `pawl rollback [<run>] [--yes]`: restore the tree to the run's pre-run commit. What it replaces
//! is kept under a backup ref first: nothing is ever lost.

use std::io::BufRead;

use clap::Args;
use pawl_core::EventKind;
use pawl_core::ExitCode;
use pawl_core::model::Driver;
use serde_json::json;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct RollbackArgs {
    /// The run (default: the current one).
    #[arg(id = "run_id", value_name = "RUN")]
    pub run: Option<String>,
    /// Do not ask for confirmation.
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub fn run(ctx: &mut Ctx, args: &RollbackArgs) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = store.resolve_run(args.run.as_deref().or(ctx.run_flag.as_deref()))?;
    let Some(pre) = run.pre_run_commit.clone().and_then(pawl_git::CommitId::new) else {
        return Err(CliError::Failed(format!(
            "run {} recorded no pre-run commit: nothing to roll back to",
            run.id
        )));
    };
    if store
        .lease(&run.id)?
        .is_some_and(|l| l.expires_at > jiff::Timestamp::now().as_millisecond())
    {
        // A session run is driven by the agent's hooks, which `pawl stop` does not reach.
        let how = match run.driver {
            Driver::Session => "end its session mode with `pawl off` first",
            _ => "`pawl stop` it first",
        };
        return Err(CliError::Failed(format!(
            "run {} is being driven right now: {how}",
            run.id
        )));
    }
    let repo = pawl_git::Repo::open(&ctx.root)?;
    if !args.yes {
        if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            return Err(CliError::Usage(
                "rollback asks for confirmation: pass --yes when there is no terminal".into(),
            ));
        }
        ctx.say(format!(
            "Restore the working tree to {} (run {}'s pre-run state)? The current state is kept under a backup ref. [y/N]",
            pre.short(),
            run.id
        ))?;
        let mut answer = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut answer)
            .map_err(CliError::io("cannot read the answer"))?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            ctx.say("Nothing changed.")?;
            return Ok(ExitCode::Cancelled);
        }
    }
    let rb = repo.rollback_to(&pre)?;
    store.append_event(
        Some(&run.id),
        EventKind::Rollback,
        json!({"restored_to": pre.as_str(), "backup_ref": rb.backup_ref, "backup_commit": rb.backup_commit.as_str()}),
    )?;
    ctx.emit(&json!({"run": run.id, "restored_to": pre.as_str(), "backup_ref": rb.backup_ref}), || {
        format!(
            "Restored the tree of run {} to its pre-run state {}. What was there is kept at {} (`git checkout {} -- .` brings it back).",
            run.id,
            pre.short(),
            rb.backup_ref,
            rb.backup_ref
        )
    })?;
    Ok(ExitCode::Done)
}
