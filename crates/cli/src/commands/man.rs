//! `pawl man [--out DIR]`: pawl's manual pages (clap_mangen), made from the same definitions as
//! `--help`. Without `--out`, `pawl(1)` on stdout (`pawl man | man -l -`); with it, `pawl.1` and
//! one `pawl-<verb>.1` per subcommand written into DIR (`pawl man --out ~/.local/share/man/man1`).

use std::path::PathBuf;

use clap::Args;
use pawl_core::ExitCode;
use serde_json::json;

use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write every page into this directory (created if missing) instead of printing pawl(1).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `cmd`: the whole command line, as clap describes it (handed in by the dispatch).
pub fn run(args: &ManArgs, cmd: clap::Command, json: bool) -> CliResult<ExitCode> {
    use std::io::Write as _;
    let Some(dir) = &args.out else {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd)
            .render(&mut page)
            .map_err(CliError::io("cannot render the manual page"))?;
        let mut out = std::io::stdout().lock();
        out.write_all(&page)
            .and_then(|()| out.flush())
            .map_err(CliError::io("cannot write to stdout"))?;
        return Ok(ExitCode::Done);
    };
    std::fs::create_dir_all(dir)
        .map_err(CliError::io(format!("cannot create {}", dir.display())))?;
    // Every visible subcommand, recursively (`pawl-story-add.1`), named by its full command.
    clap_mangen::generate_to(cmd, dir).map_err(CliError::io(format!(
        "cannot write the manual pages to {}",
        dir.display()
    )))?;
    let mut written: Vec<String> = std::fs::read_dir(dir)
        .map_err(CliError::io(format!("cannot list {}", dir.display())))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "1")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("pawl"))
        })
        .map(|p| p.display().to_string())
        .collect();
    written.sort();
    let mut out = std::io::stdout().lock();
    let text = if json {
        json!({"pages": written}).to_string()
    } else {
        format!("wrote {} manual pages to {}", written.len(), dir.display())
    };
    writeln!(out, "{text}").map_err(CliError::io("cannot write to stdout"))?;
    Ok(ExitCode::Done)
}
