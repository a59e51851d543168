//! `pawl`: the command-line front end. Owns all terminal I/O and exit codes; the work happens in
//! the library crates.
//!
//! The process starts at pawl's own C `main` (`#![no_main]`), not std's runtime start-up: that
//! start-up cost a tenth of a process start on every hook an agent CLI runs
//! (`pawl_process::start`; docs/hooks.md, "What a hook costs"). Test builds keep std's.
#![cfg_attr(not(test), no_main)]

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
mod limits;
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

/// The entry point, where std's runtime would call `main`: pawl's start-up, the command, then
/// `exit`, which flushes standard output as std's runtime does on return. A panic that
/// escapes the command exits 101, as under std's runtime.
#[cfg(not(test))]
#[allow(unsafe_code)] // `no_mangle` on the C entry point; nothing else is unsafe here
#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    pawl_process::start::init();
    let code = std::panic::catch_unwind(pawl_main).unwrap_or(101);
    std::process::exit(code)
}

/// The command line's work and its exit code.
#[cfg_attr(test, allow(dead_code))]
fn pawl_main() -> i32 {
    // The step launcher (pawl-process's sandbox) answers before anything else is set up: it
    // must stay a single-threaded process until it has forked the step.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == pawl_process::sandbox::LAUNCHER_ARG)
    {
        let code = pawl_process::sandbox::launcher_main(std::env::args_os().skip(2).collect());
        return code.clamp(0, 255);
    }
    // `pawl hook <agent> <event>`, as the installed hooks write it, on every tool call: answered
    // without building the whole command line parser (its cost is a large part of the hook's
    // budget). Any other shape (global flags, help) goes through clap as usual.
    if let Some(code) = hook_fast_path() {
        return code.code().clamp(0, 255);
    }
    // Any other command may look a host name up (a webhook's, a PostgreSQL store's): a `pawl`
    // linked with glibc in resolves them with what it has built in (crates/cli/build.rs).
    #[cfg(pawl_static_glibc)]
    pawl_process::start::pin_name_services();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version are not errors; clap's usage errors exit 2.
            let _ = e.print();
            return e.exit_code().clamp(0, 255);
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
    code.code().clamp(0, 255)
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
    ctx.mail_check = commands::mail_check;
    // Inside a story's worktree the step's repository is the run's (docs/parallel.md).
    let step_root = parallel::main_root_of_worktree(&ctx.root).unwrap_or_else(|| ctx.root.clone());
    if sandbox::inside_step(&step_root) {
        let args: Vec<String> = std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        match commands::inside(&cli.command) {
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
