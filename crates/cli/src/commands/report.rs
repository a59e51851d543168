//! `pawl report [<run>] [--json]`: print a run's report again (rebuilt from the store).

use pawl_core::ExitCode;

use crate::cli::ReportArgs;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

pub fn run(ctx: &mut Ctx, args: &ReportArgs) -> CliResult<ExitCode> {
    let store = ctx.store()?;
    let run = store.resolve_run(args.run.as_deref().or(ctx.run_flag.as_deref()))?;
    let report = pawl_engine::report::build(&store, &run.id, &ctx.root)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    pawl_engine::report::write(&report, &ctx.state_dir().join("reports"))
        .map_err(|e| CliError::Failed(e.to_string()))?;
    ctx.emit(&report, || pawl_engine::report::markdown(&report))?;
    Ok(ExitCode::Done)
}
