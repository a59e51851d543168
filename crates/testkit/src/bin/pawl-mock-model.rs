//! `pawl-mock-model`: serves a scenario file on 127.0.0.1 for manual runs of an agent CLI against
//! the mock (see the crate README for the environment each CLI needs).
//!
//! Usage: `pawl-mock-model <scenario.json> [--port N] [--log requests.jsonl]`

use std::path::PathBuf;
use std::process::ExitCode;

use pawl_testkit::{MockServer, Scenario, ServerOptions};

const USAGE: &str = "usage: pawl-mock-model <scenario.json> [--port N] [--log requests.jsonl]";

struct Args {
    scenario: PathBuf,
    options: ServerOptions,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut scenario = None;
    let mut options = ServerOptions::default();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                options.port = value.parse().map_err(|_| format!("bad port: {value}"))?;
            }
            "--log" => options.request_log = Some(args.next().ok_or("--log needs a path")?.into()),
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other if scenario.is_none() => scenario = Some(PathBuf::from(other)),
            other => return Err(format!("unexpected argument {other}")),
        }
    }
    Ok(Args {
        scenario: scenario.ok_or("missing scenario file")?,
        options,
    })
}

// A tool for people at a terminal: it reports on stdout/stderr by design.
#[allow(clippy::print_stdout, clippy::print_stderr)]
fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("pawl-mock-model: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = Scenario::from_file(&args.scenario)
        .and_then(|scenario| MockServer::start_with(scenario, args.options));
    match server {
        Ok(server) => {
            println!("{}", server.base_url());
            server.wait();
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("pawl-mock-model: {err}");
            ExitCode::FAILURE
        }
    }
}
