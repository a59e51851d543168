//! `pawl criterion add|list|check`. `check` runs a command criterion through the same
//! verification as `pawl verify` (evidence bound to the tree hash, reused for an unchanged tree)
//! and exits 0 only when it passed.

use clap::Subcommand;
use pawl_core::ExitCode;
use pawl_core::model::{Verification, VerifyKind};
use pawl_verify::Check;

use pawl_engine::verify;

use crate::checks;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::render;

#[derive(Debug, Subcommand)]
pub enum CriterionCommand {
    /// Add a criterion.
    Add {
        text: String,
        /// command:"<cmd>", review, observation or assumption.
        #[arg(long = "verify", value_name = "HOW")]
        verify: Verification,
    },
    /// List criteria.
    List,
    /// Run a command criterion's command on the working tree and record the result.
    Check {
        id: String,
        /// Run it even when evidence for this exact tree exists.
        #[arg(long)]
        fresh: bool,
    },
}

pub fn run(ctx: &mut Ctx, cmd: CriterionCommand) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    match cmd {
        CriterionCommand::Check { id, fresh } => {
            let c = store.criterion(&run.id, &id)?;
            let Some(command) = c
                .verification
                .command
                .clone()
                .filter(|_| c.verification.kind == VerifyKind::Command)
            else {
                return Err(CliError::Usage(format!(
                    "criterion {} is verified by {}, not by a command: only command criteria can be checked by pawl",
                    c.id, c.verification.kind
                )));
            };
            let mut plan = verify::Plan::new(vec![Check::criterion(&c.id, command)]);
            plan.fresh = fresh;
            let v = verify::verify_checks(&checks::workspace(ctx), &mut store, Some(&run), &plan)?;
            let c = store.criterion(&run.id, &c.id)?;
            ctx.emit(
                &serde_json::json!({"criterion": c, "verification": v}),
                || format!("{}\n{}", checks::render(&v), render::criterion_line(&c)),
            )?;
            return Ok(if v.verified {
                ExitCode::Done
            } else {
                ExitCode::Error
            });
        }
        CriterionCommand::Add { text, verify } => {
            if text.trim().is_empty() {
                return Err(CliError::Usage("the criterion text is empty".into()));
            }
            let c = store.add_criterion(&run.id, text.trim(), &verify)?;
            ctx.emit(&c, || {
                format!("Added {}: {}", c.id, render::criterion_line(&c))
            })?;
        }
        CriterionCommand::List => {
            let all = store.criteria(&run.id)?;
            ctx.emit(&all, || {
                if all.is_empty() {
                    return "No criteria yet: add one with `pawl criterion add \"<text>\" --verify command:\"<cmd>\"`."
                        .into();
                }
                all.iter().map(render::criterion_line).collect::<Vec<_>>().join("\n")
            })?;
        }
    }
    Ok(ExitCode::Done)
}
