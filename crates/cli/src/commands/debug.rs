//! Hidden commands for pawl's own tests: hold a run's lease, write in a loop.

use std::time::{Duration, Instant};

use clap::Subcommand;
use pawl_core::ExitCode;
use pawl_core::config::Dur;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::owner;

#[derive(Debug, Subcommand)]
pub enum DebugCommand {
    /// Hold the current run's lease (for tests of ownership).
    HoldLease {
        #[arg(long, default_value = "30s")]
        ttl: String,
        #[arg(long, default_value = "10s")]
        hold: String,
    },
    /// Write notes in a loop, printing `ok <i>` after each commit (fault-injection tests).
    WriteLoop {
        #[arg(long, default_value_t = 1000)]
        count: u32,
    },
}

pub fn run(ctx: &mut Ctx, cmd: DebugCommand) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    match cmd {
        DebugCommand::HoldLease { ttl, hold } => {
            let ttl: Dur = ttl.parse().map_err(CliError::Usage)?;
            let hold: Dur = hold.parse().map_err(CliError::Usage)?;
            let ttl_ms = i64::try_from(ttl.0.as_millis()).unwrap_or(i64::MAX);
            let out = store.acquire_lease(
                &run.id,
                std::process::id(),
                &owner::hostname(),
                ttl_ms,
                &owner::holder_alive,
            )?;
            if let Some(prev) = &out.took_over {
                ctx.say(format!("took over from pid {} on {}", prev.pid, prev.host))?;
            }
            ctx.say(format!("holding {}", run.id))?;
            let start = Instant::now();
            while start.elapsed() < hold.0 {
                std::thread::sleep(Duration::from_millis(100).min(ttl.0 / 3));
                store.heartbeat(&run.id, &out.lease.token, ttl_ms)?;
            }
            store.release_lease(&run.id, &out.lease.token)?;
            ctx.say("released")?;
        }
        DebugCommand::WriteLoop { count } => {
            for i in 0..count {
                store.add_note(&run.id, &format!("note {i}"))?;
                // Printed only after the commit returned: every "ok" line is a promise.
                ctx.say(format!("ok {i}"))?;
            }
        }
    }
    Ok(ExitCode::Done)
}
