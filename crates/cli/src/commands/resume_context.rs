//! `pawl resume-context`: everything a fresh agent session needs, as Markdown or JSON.

use pawl_core::ExitCode;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::render;

pub fn run(ctx: &mut Ctx) -> CliResult<ExitCode> {
    let store = ctx.store()?;
    let run = store.resolve_run(ctx.run_flag.as_deref())?;
    let rc = store.resume_context(&run.id)?;
    ctx.emit(&rc, || render::resume_markdown(&rc))?;
    Ok(ExitCode::Done)
}
