//! `pawl cancel`: end the current run for good; its work stays where it is.

use pawl_core::ExitCode;

use crate::ctx::Ctx;
use crate::error::CliResult;

pub fn run(ctx: &mut Ctx) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    // A run whose state was modified outside pawl can be cancelled too (it is marked tampered
    // first, then cancelled).
    let id = store.resolve_run_id(ctx.run_flag.as_deref())?;
    let run = store.cancel_run(&id)?;
    ctx.emit(&run, || {
        format!(
            "Run {} cancelled. Its changes are left in the working tree.",
            run.id
        )
    })?;
    Ok(ExitCode::Done)
}
