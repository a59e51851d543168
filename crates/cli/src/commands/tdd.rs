//! `pawl tdd <story> red|green|refactor|verify`.

use clap::Args;
use pawl_core::ExitCode;
use pawl_core::tdd::TddPhase;

use crate::ctx::Ctx;
use crate::error::CliResult;

#[derive(Debug, Args)]
pub struct TddArgs {
    pub story: String,
    /// red, green, refactor or verify.
    pub phase: TddPhase,
}

pub fn run(ctx: &mut Ctx, args: &TddArgs) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    let s = store.advance_tdd(&run.id, &args.story, args.phase)?;
    ctx.emit(&s, || {
        format!("{} is now in TDD phase `{}`", s.id, s.tdd_phase)
    })?;
    Ok(ExitCode::Done)
}
