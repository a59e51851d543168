//! `pawl logs [--run X] [--iteration N] [-f] [--raw]`: the agent's step logs of a run
//! (`.pawl/logs/<run>-iter-<n>.log`, written by pawl-process: `# ` header and footer lines,
//! every output line prefixed `out| ` or `err| `). Printed without the prefixes unless `--raw`;
//! `--json` gives one object per line. `-f` keeps printing as the logs grow, and new steps' logs
//! as they appear, until the run is no longer being driven.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use pawl_core::ExitCode;
use pawl_core::model::RunStatus;
use pawl_store::Store;
use serde_json::json;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::review::{self, StepLog};

#[derive(Debug, Args)]
pub struct LogsArgs {
    /// Keep printing as the run's newest step log grows, until the run stops.
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// Only this iteration's log.
    #[arg(long, value_name = "N")]
    pub iteration: Option<u32>,
    /// Print the lines as written: the `out| ` / `err| ` prefixes kept.
    #[arg(long)]
    pub raw: bool,
}

/// How often `-f` looks for more.
const POLL: Duration = Duration::from_millis(100);

/// One log being printed: how far, and the start of a line not finished yet.
struct Cursor {
    log: StepLog,
    offset: u64,
    partial: Vec<u8>,
}

pub fn run(ctx: &mut Ctx, args: &LogsArgs) -> CliResult<ExitCode> {
    if args.iteration == Some(0) {
        return Err(CliError::Usage(
            "--iteration counts from 1 (the run's first step)".into(),
        ));
    }
    let store = ctx.store()?;
    let run = store.resolve_run(ctx.run_flag.as_deref())?;
    let dir = ctx.state_dir().join("logs");
    let wanted = |logs: Vec<StepLog>| -> Vec<StepLog> {
        logs.into_iter()
            .filter(|l| args.iteration.is_none_or(|n| l.iteration == n))
            .collect()
    };
    let logs = wanted(review::step_logs(&dir, &run.id)?);
    if logs.is_empty() && !args.follow {
        let all = review::step_logs(&dir, &run.id)?;
        return match (args.iteration, all.first(), all.last()) {
            (Some(n), Some(first), Some(last)) => Err(CliError::Failed(format!(
                "run {} has no log for iteration {n} (its step logs are iterations {} to {})",
                run.id, first.iteration, last.iteration
            ))),
            _ => {
                ctx.emit(&json!({"run": run.id, "logs": []}), || {
                    format!("run {} has no step logs yet", run.id)
                })?;
                Ok(ExitCode::Done)
            }
        };
    }
    let mut cursors: Vec<Cursor> = Vec::new();
    loop {
        // New logs (a new step) join in iteration order.
        for log in wanted(review::step_logs(&dir, &run.id)?) {
            if !cursors.iter().any(|c| c.log.iteration == log.iteration) {
                cursors.push(Cursor {
                    log,
                    offset: 0,
                    partial: Vec::new(),
                });
            }
        }
        cursors.sort_by_key(|c| c.log.iteration);
        // Read the state before the files: what was written before the run stopped is then
        // read by this pass.
        let done = !args.follow || !still_driven(&store, &run.id, args.iteration)?;
        for c in &mut cursors {
            let fresh = c.offset == 0 && c.partial.is_empty();
            let bytes = read_from(&c.log.path, &mut c.offset)?;
            if fresh && !bytes.is_empty() {
                let rel = c
                    .log
                    .path
                    .strip_prefix(&ctx.root)
                    .unwrap_or(&c.log.path)
                    .display()
                    .to_string();
                if !ctx.json && !args.raw {
                    ctx.say(format!("== iteration {} ({rel}) ==", c.log.iteration))?;
                }
            }
            c.partial.extend_from_slice(&bytes);
            let complete = match c.partial.iter().rposition(|&b| b == b'\n') {
                Some(end) => c.partial.drain(..=end).collect::<Vec<u8>>(),
                None if done => std::mem::take(&mut c.partial),
                None => Vec::new(),
            };
            print_lines(ctx, c.log.iteration, &complete, args.raw)?;
            if done && !c.partial.is_empty() {
                let rest = std::mem::take(&mut c.partial);
                print_lines(ctx, c.log.iteration, &rest, args.raw)?;
            }
        }
        if done {
            return Ok(ExitCode::Done);
        }
        std::thread::sleep(POLL);
    }
}

/// Whether more output can come: the run is active and its driver alive (a driver killed
/// outright leaves an expired lease), or — following one iteration — that iteration is open.
fn still_driven(store: &Store, run_id: &str, iteration: Option<u32>) -> CliResult<bool> {
    let run = store.run(run_id)?;
    if run.status != RunStatus::Active {
        return Ok(false);
    }
    if let Some(n) = iteration
        && let Ok(it) = store.iteration(run_id, n)
        && it.ended_at.is_some()
    {
        return Ok(false);
    }
    match store.lease(run_id)? {
        // Nobody holds it yet (a run starting) or any more: an expired lease is a dead driver.
        Some(l) if !review::lease_live(store, &l.run_id)? => Ok(false),
        _ => Ok(true),
    }
}

/// The bytes of `path` from `offset` on; advances `offset`. A log not there yet reads as empty.
fn read_from(path: &PathBuf, offset: &mut u64) -> CliResult<Vec<u8>> {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(CliError::Io {
                context: format!("cannot read {}", path.display()),
                source: e,
            });
        }
    };
    let err = || CliError::io(format!("cannot read {}", path.display()));
    let len = file.metadata().map_err(err())?.len();
    if len < *offset {
        // Rewritten from the start (a rotated log): read it again whole.
        *offset = 0;
    }
    file.seek(SeekFrom::Start(*offset)).map_err(err())?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(err())?;
    *offset += bytes.len() as u64;
    Ok(bytes)
}

fn print_lines(ctx: &mut Ctx, iteration: u32, bytes: &[u8], raw: bool) -> CliResult {
    if bytes.is_empty() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(bytes);
    for line in text.lines() {
        let (stream, body) = if let Some(rest) = line.strip_prefix("out| ") {
            ("out", rest)
        } else if let Some(rest) = line.strip_prefix("err| ") {
            ("err", rest)
        } else {
            ("pawl", line)
        };
        if ctx.json {
            ctx.json_line(&json!({"iteration": iteration, "stream": stream, "text": body}))?;
        } else if raw {
            ctx.say(line)?;
        } else {
            ctx.say(body)?;
        }
    }
    Ok(())
}
