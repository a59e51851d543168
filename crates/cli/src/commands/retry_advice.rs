//! `pawl retry-advice <story>`: machine-facing, always JSON
//! (`{should_retry, backoff_seconds, escalate, reason}`).

use clap::Args;
use pawl_core::ExitCode;
use pawl_core::failure::{RetryAdvice, retry_advice};

use crate::ctx::Ctx;
use crate::error::CliResult;

#[derive(Debug, Args)]
pub struct RetryAdviceArgs {
    pub story: String,
}

pub fn run(ctx: &mut Ctx, args: &RetryAdviceArgs) -> CliResult<ExitCode> {
    let store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    let story = store.story(&run.id, &args.story)?;
    let last = store.failures(&run.id, Some(&story.id), 1)?;
    let advice = match last.first() {
        Some(f) => retry_advice(f.category, story.attempts, story.max_attempts),
        None => RetryAdvice {
            should_retry: false,
            backoff_seconds: 0,
            escalate: false,
            reason: format!("no failure is recorded for {}: nothing to retry", story.id),
        },
    };
    ctx.json_out(&advice)?;
    Ok(ExitCode::Done)
}
