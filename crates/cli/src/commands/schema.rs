//! `pawl schema <report|status|events|runs>`: the JSON Schema (draft 2020-12) of a command's
//! `--json` output, embedded in the binary from `crates/cli/schemas/` (a test validates real
//! outputs against them). `events` describes one line of `pawl events --json`.

use clap::{Args, ValueEnum};
use pawl_core::ExitCode;

use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The output whose schema to print.
    #[arg(value_enum)]
    pub of: Output,
}

/// The `--json` outputs with a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// `pawl report --json`
    Report,
    /// `pawl status --json`
    Status,
    /// one line of `pawl events --json`
    Events,
    /// `pawl runs --json`
    Runs,
}

impl Output {
    fn text(self) -> &'static str {
        match self {
            Output::Report => include_str!("../../schemas/report.schema.json"),
            Output::Status => include_str!("../../schemas/status.schema.json"),
            Output::Events => include_str!("../../schemas/events.schema.json"),
            Output::Runs => include_str!("../../schemas/runs.schema.json"),
        }
    }
}

pub fn run(args: &SchemaArgs) -> CliResult<ExitCode> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(args.of.text().as_bytes())
        .and_then(|()| out.flush())
        .map_err(CliError::io("cannot write to stdout"))?;
    Ok(ExitCode::Done)
}
