//! `pawl exit-codes` (and `pawl help exit-codes`): every exit code pawl documents and what it
//! means, from one table (`pawl_core::ExitCode::ALL`), as text or `--json`.

use clap::Args;
use pawl_core::ExitCode;

use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct ExitCodesArgs {}

/// The table as `pawl help exit-codes` shows it.
pub fn text() -> String {
    let mut o = String::from(
        "Exit codes of pawl. 0 is SHIP and nothing else: a script that runs `pawl run … && git push`\n\
         pushes only SHIP. A run that stopped after its checks were verified exits with its verdict's\n\
         code (10–14); any other stop keeps its own (a limit is 3 whatever the report concludes).\n\n",
    );
    for c in ExitCode::ALL {
        o.push_str(&format!("  {:>3}  {}\n", c.code(), c.meaning()));
    }
    o
}

pub fn run(_args: &ExitCodesArgs, json: bool) -> CliResult<ExitCode> {
    use std::io::Write as _;
    let body = if json {
        let rows: Vec<_> = ExitCode::ALL
            .iter()
            .map(|c| serde_json::json!({"code": c.code(), "name": c, "meaning": c.meaning()}))
            .collect();
        format!("{}\n", serde_json::Value::Array(rows))
    } else {
        text()
    };
    let mut out = std::io::stdout().lock();
    out.write_all(body.as_bytes())
        .and_then(|()| out.flush())
        .map_err(CliError::io("cannot write to stdout"))?;
    Ok(ExitCode::Done)
}
