//! `pawl events [--follow] [--json]`: the event log, as a table or JSON lines.

use std::time::Duration;

use clap::Args;
use pawl_core::ExitCode;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::render;

#[derive(Debug, Args)]
pub struct EventsArgs {
    /// Keep printing new events as they happen.
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// Events of every run, not only the current one.
    #[arg(long)]
    pub all: bool,
    /// Only events after this sequence number.
    #[arg(long, value_name = "SEQ", default_value_t = 0)]
    pub after: i64,
}

const POLL: Duration = Duration::from_millis(200);

pub fn run(ctx: &mut Ctx, args: &EventsArgs) -> CliResult<ExitCode> {
    let store = ctx.store()?;
    let run_id = if args.all {
        None
    } else {
        match store.resolve_run(ctx.run_flag.as_deref()) {
            Ok(r) => Some(r.id),
            // No run yet: with --follow, wait for one's events; without, there is nothing.
            Err(_) if ctx.run_flag.is_none() => None,
            Err(e) => return Err(e.into()),
        }
    };
    let mut after = args.after;
    loop {
        let batch = store.events_after(run_id.as_deref(), after, 500)?;
        for e in &batch {
            if ctx.json {
                ctx.json_line(e)?;
            } else {
                ctx.say(render::event_line(e))?;
            }
            after = e.seq;
        }
        if batch.len() == 500 {
            continue;
        }
        if !args.follow {
            break;
        }
        std::thread::sleep(POLL);
    }
    Ok(ExitCode::Done)
}
