//! `pawl reviewer --diff FILE`: asks the independent reviewer a run of this repository would
//! start (`[agent]` of `pawl.toml`, read-only, a fresh session: issue 34 point 3) about one diff,
//! and prints its typed verdict. It measures a user's reviewer on real commits and on cheats
//! (`scripts/screen-corpus.py review`, docs/verification.md); it is no step of any run and
//! changes no run.

use std::path::PathBuf;

use clap::Args;
use pawl_core::ExitCode;
use pawl_engine::verify::reviewer::{self, AgentReviewer};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct ReviewerArgs {
    /// The unified diff to review (`-` reads standard input).
    #[arg(long, value_name = "FILE")]
    pub diff: PathBuf,
    /// The goal the change was made for.
    #[arg(long, default_value = "fix the bug the failing tests show")]
    pub goal: String,
    /// Findings to show the reviewer, as pawl's screen would: one per line.
    #[arg(long, value_name = "FILE")]
    pub findings: Option<PathBuf>,
}

pub fn run(ctx: &mut Ctx, args: &ReviewerArgs) -> CliResult<ExitCode> {
    let read = |p: &PathBuf| -> CliResult<String> {
        if p.as_os_str() == "-" {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .map_err(|e| CliError::Usage(format!("cannot read the diff from stdin: {e}")))?;
            return Ok(s);
        }
        std::fs::read_to_string(p)
            .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", p.display())))
    };
    let diff = read(&args.diff)?;
    let findings: Vec<String> = match &args.findings {
        Some(p) => read(p)?
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect(),
        None => Vec::new(),
    };
    let config = ctx.config(&[])?.config;
    let agent = config.agent.clone();
    let adapter = pawl_engine::start::drive::reviewer_adapter(&ctx.root, &agent, false)
        .map_err(|e| CliError::Usage(e.to_string()))?
        .ok_or_else(|| {
            CliError::Usage(format!(
                "`[agent] kind = \"{}\"` is no reviewer: configure claude, codex or gemini",
                agent.kind
            ))
        })?;
    // The session runs in an empty directory of its own: it sees the diff, nothing else, and
    // anything it writes there is seen.
    let scratch = tempfile::tempdir()
        .map_err(|e| CliError::Usage(format!("cannot make a directory for the reviewer: {e}")))?;
    let cwd = scratch.path().join("review");
    std::fs::create_dir_all(&cwd)
        .map_err(|e| CliError::Usage(format!("cannot make a directory for the reviewer: {e}")))?;
    let mut asker = AgentReviewer::new(
        adapter,
        &config.stall,
        scratch.path().join("logs"),
        "reviewer",
    );
    let changed = || {
        let wrote: Vec<String> = std::fs::read_dir(&cwd)
            .into_iter()
            .flatten()
            .flatten()
            .take(5)
            .map(|e| format!("`{}`", e.file_name().to_string_lossy()))
            .collect();
        (!wrote.is_empty()).then(|| format!("it wrote {}", wrote.join(", ")))
    };
    let record = reviewer::review_diff(
        &mut asker,
        &cwd,
        &args.goal,
        &findings,
        &diff,
        "`pawl reviewer`",
        &changed,
        &|| None,
    );
    ctx.emit(&record, || {
        let mut o = format!(
            "reviewer ({}, session {}): {}\n",
            record.agent,
            record.session_id.as_deref().unwrap_or("(none)"),
            record.verdict.word()
        );
        for f in record.findings() {
            o.push_str(&format!("- {f}\n"));
        }
        o
    })?;
    Ok(ExitCode::Done)
}
