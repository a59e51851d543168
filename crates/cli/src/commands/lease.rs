//! `pawl lease`: who owns the current run.

use pawl_core::ExitCode;
use serde_json::json;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::render;

pub fn run(ctx: &mut Ctx) -> CliResult<ExitCode> {
    let store = ctx.store()?;
    let run = store.resolve_run(ctx.run_flag.as_deref())?;
    let lease = store.lease(&run.id)?;
    ctx.emit(&json!({"run": run.id, "lease": lease}), || match &lease {
        None => format!("Run {} has no owner: nothing drives it right now.", run.id),
        Some(l) => format!(
            "Run {} is owned by pid {} on {} (heartbeat {}, expires {}){}",
            run.id,
            l.pid,
            l.host,
            render::time(l.heartbeat_at),
            render::time(l.expires_at),
            if l.sessions.is_empty() {
                String::new()
            } else {
                format!("; sessions: {}", l.sessions.join(", "))
            }
        ),
    })?;
    Ok(ExitCode::Done)
}
