//! `pawl-replay [__replay] --scenario <file> --step <n>`: runs one step of a replay scenario in
//! the current directory, printing pawl's event stream on stdout, and exits with the step's code.
//!
//! The same as the CLI's hidden `pawl __replay` subcommand; it exists so pawl-agent's own tests
//! can run the scripted agent as a real child process without the CLI.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut scenario: Option<PathBuf> = None;
    let mut step: Option<u32> = None;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some(pawl_agent::replay::SUBCOMMAND) => {}
            Some("--scenario") => scenario = args.next().map(PathBuf::from),
            Some("--step") => step = args.next().and_then(|s| s.to_str()?.parse().ok()),
            _ => return usage(&format!("unexpected argument {arg:?}")),
        }
    }
    let (Some(scenario), Some(step)) = (scenario, step) else {
        return usage("--scenario <file> and --step <n> are required");
    };
    let text = match std::fs::read_to_string(&scenario) {
        Ok(text) => text,
        Err(err) => return fail(&format!("cannot read {}: {err}", scenario.display())),
    };
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(err) => return fail(&format!("no working directory: {err}")),
    };
    let mut out = std::io::stdout().lock();
    match pawl_agent::replay::execute(&text, step, &cwd, &mut out) {
        Ok(code) => ExitCode::from(u8::try_from(code.rem_euclid(256)).unwrap_or(1)),
        Err(err) => fail(&err.to_string()),
    }
}

fn usage(message: &str) -> ExitCode {
    let _ = writeln!(
        std::io::stderr(),
        "pawl-replay: {message}\nusage: pawl-replay [__replay] --scenario <file> --step <n>"
    );
    ExitCode::from(2)
}

fn fail(message: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "pawl-replay: {message}");
    ExitCode::from(1)
}
