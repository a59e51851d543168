//! `pawl stop`: ask the running loop to stop after the current step (it leaves the run resumable).

use pawl_core::ExitCode;
use serde_json::json;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

pub fn run(ctx: &mut Ctx) -> CliResult<ExitCode> {
    let store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    let flag = ctx.state_dir().join("stop");
    std::fs::write(&flag, &run.id)
        .map_err(CliError::io(format!("cannot write {}", flag.display())))?;
    let owner = store.lease(&run.id)?;
    ctx.emit(
        &json!({"run": run.id, "stop_requested": true, "driver": owner}),
        || match &owner {
            Some(l) => format!(
                "Asked run {} to stop after its current step (driver pid {} on {}).",
                run.id, l.pid, l.host
            ),
            None => format!(
                "No driver is running run {} now; the stop request stays until one starts.",
                run.id
            ),
        },
    )?;
    Ok(ExitCode::Done)
}
