//! `pawl detect [--json]`: which platforms matched, which one was selected and why, and the
//! gate commands `pawl init` would write. The detection is `crate::project`'s.

use pawl_core::ExitCode;
use pawl_verify::platform::render_human;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::project;

pub fn run(ctx: &mut Ctx) -> CliResult<ExitCode> {
    let d = project::detection(ctx)?;
    ctx.emit(&d, || render_human(&d))?;
    Ok(ExitCode::Done)
}
