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
mod fleet;
mod guard_host;
mod headless;
mod hidden;
mod hook_setup;
mod knowledge;
mod owner;
mod parallel;
mod project;
mod rails;
mod render;
mod review;
mod runs;
mod sandbox;
mod session_mode;
mod state;

use cli::Cli;
use ctx::Ctx;
use error::CliError;

fn main() -> ProcessExit {
    // The step launcher (pawl-process's sandbox) answers before anything else is set up: it
    // must stay a single-threaded process until it has forked the step.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == pawl_process::sandbox::LAUNCHER_ARG)
    {
        let code = pawl_process::sandbox::launcher_main(std::env::args_os().skip(2).collect());
        return ProcessExit::from(code.clamp(0, 255) as u8);
    }
    // `pawl hook <agent> <event>`, as the installed hooks write it, on every tool call: answered
    // without building the whole command line parser (its cost is a large part of the hook's
    // budget). Any other shape (global flags, help) goes through clap as usual.
    if let Some(code) = hook_fast_path() {
        return ProcessExit::from(code.code().clamp(0, 255) as u8);
    }
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

/// Exactly `pawl hook <agent> <event>` with plain words: the hook, run as clap would run it.
fn hook_fast_path() -> Option<pawl_core::ExitCode> {
    let mut args = std::env::args_os().skip(1);
    let (verb, agent, event) = (args.next()?, args.next()?, args.next()?);
    if args.next().is_some() || verb != "hook" {
        return None;
    }
    let plain = |s: &std::ffi::OsStr| {
        s.to_str()
            .filter(|t| !t.is_empty() && !t.starts_with('-'))
            .map(str::to_owned)
    };
    let args = commands::hook::HookArgs {
        agent: plain(&agent)?,
        event: plain(&event)?,
    };
    Some(commands::hook::run(&args, None))
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
    ctx.verbose = cli.verbose;
    // Inside a story's worktree the step's repository is the run's (docs/parallel.md).
    let step_root = parallel::main_root_of_worktree(&ctx.root).unwrap_or_else(|| ctx.root.clone());
    if sandbox::inside_step(&step_root) {
        let args: Vec<String> = std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        match sandbox::inside(&cli.command) {
            sandbox::Inside::Run => {}
            sandbox::Inside::Mail if cli.dir.is_none() && cli.run.is_none() => {
                let said = sandbox::mail(&step_root, &args)?;
                ctx.say(said)?;
                return Ok(pawl_core::ExitCode::Done);
            }
            sandbox::Inside::Mail | sandbox::Inside::Refuse => {
                return Err(sandbox::refused(&args));
            }
        }
    } else {
        // A pawl killed with -9 may have left a step running: end it before anything else.
        sandbox::end_leftovers(&ctx.root);
    }
    commands::dispatch(&mut ctx, cli.command)
}
