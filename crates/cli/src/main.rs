//! `pawl`: the command-line front end. Owns all terminal I/O and exit codes; the work happens in
//! the library crates.

use std::process::ExitCode as ProcessExit;

use clap::Parser;

mod checks;
mod cli;
mod commands;
mod ctx;
mod edits;
mod error;
mod guard_host;
mod headless;
mod hook_setup;
mod owner;
mod project;
mod rails;
mod render;
mod review;
mod runs;
mod session_mode;
mod state;

use cli::Cli;
use ctx::Ctx;
use error::CliError;

fn main() -> ProcessExit {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version are not errors; clap's usage errors exit 2.
            let _ = e.print();
            return ProcessExit::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(CliError::BrokenPipe) => pawl_core::ExitCode::Done,
        Err(e) => {
            report(&e);
            e.exit_code()
        }
    };
    ProcessExit::from(code.code().clamp(0, 255) as u8)
}

/// The error on stderr. A stderr that cannot be written (a full device, a closed descriptor)
/// loses the message but never turns the exit code into a panic's 101.
fn report(e: &CliError) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "pawl: error: {e}");
}

fn run(cli: Cli) -> Result<pawl_core::ExitCode, CliError> {
    if let Some(result) = commands::dispatch_anywhere(&cli) {
        return result;
    }
    let mut ctx = Ctx::new(cli.dir.as_deref(), cli.json, cli.run.clone())?;
    commands::dispatch(&mut ctx, cli.command)
}
