//! `pawl criterion add|list`.

use pawl_core::ExitCode;

use crate::cli::CriterionCommand;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::render;

pub fn run(ctx: &mut Ctx, cmd: CriterionCommand) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    match cmd {
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
