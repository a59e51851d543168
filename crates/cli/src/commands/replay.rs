//! `pawl __replay --scenario <file> --step <n>` (hidden): one step of the scripted agent, run as a
//! child process of the loop exactly like a real agent.

use std::path::PathBuf;

use clap::Args;
use pawl_core::ExitCode;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[arg(long)]
    pub scenario: PathBuf,
    #[arg(long)]
    pub step: u32,
}

pub fn run(ctx: &Ctx, args: &ReplayArgs) -> CliResult<ExitCode> {
    let text = std::fs::read_to_string(&args.scenario).map_err(CliError::io(format!(
        "cannot read the replay scenario {}",
        args.scenario.display()
    )))?;
    let mut out = std::io::stdout().lock();
    let code = pawl_agent::replay::execute(&text, args.step, &ctx.root, &mut out)?;
    drop(out);
    if code != 0 {
        // The step's own exit code, whatever it is: the loop records it as the agent's.
        std::process::exit(code);
    }
    Ok(ExitCode::Done)
}
