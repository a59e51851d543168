//! `pawl off`: ends session mode for the current run. The hooks leave every session alone
//! again, what `--autonomous` added to the agent's settings is taken out, and the run stops with
//! a resumable state (its iterations, evidence and limits stay as they are).

use pawl_core::ExitCode;
use pawl_core::StopReason;
use pawl_core::model::RunStatus;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::session_mode;

pub fn run(ctx: &mut Ctx) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let id = match ctx.run_flag.as_deref() {
        Some(id) => store.resolve_run_id(Some(id))?,
        None => match session_mode::read_marker(&ctx.root) {
            Some(m) => m.run_id,
            None => store.resolve_run_id(None)?,
        },
    };
    // The user ends session mode of a run whose state was modified outside pawl too: it is
    // marked tampered first (stopped), then its session mode ends like any other.
    let run = match store.tampering(&id)? {
        Some(t) => store.mark_tampered(&t)?,
        None => store.run(&id)?,
    };
    let arming = match store.arming(&run.id) {
        Ok(Some(a)) => a,
        Ok(None) => {
            return Err(CliError::Failed(format!(
                "run {} was never armed for a session (it uses the {} driver): nothing to turn off",
                run.id, run.driver
            )));
        }
        // An arming row changed outside pawl: session mode ends all the same, and nothing it
        // lists is taken out of the agent's settings (it cannot be trusted).
        Err(pawl_store::StoreError::Tampered(_)) => pawl_store::Arming {
            run_id: run.id.clone(),
            agent: None,
            armed_at: 0,
            expires_at: 0,
            baseline_tree: None,
            autonomous: Vec::new(),
            turn_started_at: 0,
            ended_at: None,
            end_why: None,
        },
        Err(e) => return Err(e.into()),
    };
    let was_on = arming.ended_at.is_none();
    session_mode::end_session_mode(&ctx.root, &mut store, &run.id, "pawl off")?;
    let stopped = run.status == RunStatus::Active;
    if stopped {
        store.set_run_status(&run.id, RunStatus::Stopped, Some(StopReason::Stopped))?;
    }
    let report = serde_json::json!({
        "run_id": run.id, "session_mode_was_on": was_on, "stopped": stopped,
        "autonomous_removed": if was_on { arming.autonomous.clone() } else { Vec::new() },
    });
    ctx.emit(&report, || {
        let mut out = if was_on {
            format!(
                "Session mode off for run {}: pawl's hooks leave every session alone now.",
                run.id
            )
        } else {
            format!("Session mode was already off for run {}.", run.id)
        };
        if was_on && !arming.autonomous.is_empty() {
            out.push_str(&format!(
                "\nRemoved from .claude/settings.json permissions.allow: {}",
                arming.autonomous.join(", ")
            ));
        }
        if stopped {
            out.push_str(
                "\nThe run is stopped and keeps its state (`pawl status`, `pawl report`).",
            );
        }
        out
    })?;
    Ok(ExitCode::Done)
}
