//! `pawl cancel`: end the current run for good; its work stays where it is.

use pawl_core::ExitCode;

use crate::ctx::Ctx;
use crate::error::CliResult;

pub fn run(ctx: &mut Ctx) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    let run = store.cancel_run(&run.id)?;
    ctx.emit(&run, || {
        format!(
            "Run {} cancelled. Its changes are left in the working tree.",
            run.id
        )
    })?;
    Ok(ExitCode::Done)
}
