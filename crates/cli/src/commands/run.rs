//! `pawl run "<goal>"`: start a run.
//!
//! This issue builds the manual driver (a run driven by hand through the state CLI); the headless
//! and session drivers plug in here.

use pawl_core::ExitCode;
use pawl_core::model::Driver;
use pawl_core::record::RunSettings;
use pawl_store::NewRun;

use crate::cli::RunArgs;
use crate::commands::init::ensure_state;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

pub fn run(ctx: &mut Ctx, args: &RunArgs) -> CliResult<ExitCode> {
    let goal = args.goal.trim();
    if goal.is_empty() {
        return Err(CliError::Usage(
            "the goal is empty: say what the run must achieve".into(),
        ));
    }
    // Configuration first: a bad pawl.toml or flag must stop us before anything is written.
    let eff = ctx.config(&args.limits.overrides())?;
    if args.driver != Driver::Manual {
        return Err(CliError::Failed(format!(
            "the {} driver is not available in this build yet: use `--driver manual`",
            args.driver
        )));
    }
    ensure_state(ctx, &mut Vec::new(), &mut Vec::new())?;
    let mut store = ctx.store()?;
    let settings = RunSettings {
        limits: eff.config.limits.clone(),
        breakers: eff.config.breakers.clone(),
        stall: eff.config.stall.clone(),
    };
    let run = store.create_run(&NewRun {
        goal: goal.to_string(),
        driver: args.driver,
        mode: None,
        settings,
        branch: None,
        pre_run_commit: None,
    })?;
    ctx.emit(&run, || {
        format!(
            "Run {} started ({} driver): {}\n\
             Drive it with the state CLI: `pawl criterion add`, `pawl story add`, `pawl story start`,\n\
             `pawl tdd`, `pawl failure add`, `pawl status`, `pawl resume-context`.",
            run.id, run.driver, run.goal
        )
    })?;
    Ok(ExitCode::Done)
}
