//! The step launcher alone, and a contained run for pawl-process's own tests.
//!
//! - `pawl-step __pawl-step <spec> -- <program> <args...>`: the launcher, as pawl itself answers
//!   the same hidden argument.
//! - `pawl-step --run <spec> -- <program> <args...>`: runs the program contained through
//!   [`pawl_process::Command::contain`] with this binary as the launcher, as pawl runs an agent
//!   step, and exits as it ended. The tests kill this process to play a pawl killed with -9.

use std::ffi::OsString;

use pawl_process::sandbox::{LAUNCHER_ARG, LaunchSpec, launcher_main};
use pawl_process::{Command, Containment, End};

fn main() {
    let mut args = std::env::args_os().skip(1);
    let code = match args.next() {
        Some(first) if first == LAUNCHER_ARG => launcher_main(args.collect()),
        Some(first) if first == "--run" => run(args.collect()),
        _ => launcher_main(Vec::new()),
    };
    std::process::exit(code);
}

fn run(args: Vec<OsString>) -> i32 {
    let mut args = args.into_iter();
    let spec: Option<LaunchSpec> = args
        .next()
        .and_then(|s| serde_json::from_str(&s.to_string_lossy()).ok());
    let (Some(spec), Some(_), Some(program), Ok(launcher)) =
        (spec, args.next(), args.next(), std::env::current_exe())
    else {
        return launcher_main(Vec::new());
    };
    let outcome = Command::new(program)
        .args(args)
        .contain(Containment {
            launcher,
            spec,
            record_dir: None,
        })
        .run();
    match outcome.map(|o| o.end) {
        Ok(End::Exited(code)) => code,
        _ => 1,
    }
}
