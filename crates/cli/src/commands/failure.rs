//! `pawl failure add|list`: failures are classified by the one table in pawl-core.

use clap::Subcommand;
use pawl_core::ExitCode;
use pawl_core::failure::{FailureCategory, classify_with_rule};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::render;

#[derive(Debug, Subcommand)]
pub enum FailureCommand {
    /// Record a failure on a story; classified automatically unless --category is given.
    Add {
        story: String,
        message: String,
        #[arg(long)]
        category: Option<FailureCategory>,
    },
    /// List recent failures.
    List {
        #[arg(long)]
        story: Option<String>,
    },
}

pub fn run(ctx: &mut Ctx, cmd: FailureCommand) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    match cmd {
        FailureCommand::Add {
            story,
            message,
            category,
        } => {
            if message.trim().is_empty() {
                return Err(CliError::Usage("the failure message is empty".into()));
            }
            let (category, auto, why) = match category {
                Some(c) => (c, false, None),
                None => {
                    let (c, needle) = classify_with_rule(&message);
                    (c, true, needle)
                }
            };
            let f = store.add_failure(&run.id, Some(&story), &message, category, auto)?;
            let s = store.story(&run.id, &story)?;
            ctx.emit(&f, || {
                let how = match (auto, why) {
                    (true, Some(n)) => format!("classified as {category} (matched \"{n}\")"),
                    (true, None) => format!("classified as {category} (no rule matched)"),
                    (false, _) => format!("recorded as {category}"),
                };
                format!(
                    "Failure #{} on {}: {how}; attempts {}/{}",
                    f.id, s.id, s.attempts, s.max_attempts
                )
            })?;
        }
        FailureCommand::List { story } => {
            let all = store.failures(&run.id, story.as_deref(), 50)?;
            ctx.emit(&all, || {
                if all.is_empty() {
                    return "No failures recorded.".into();
                }
                all.iter()
                    .map(render::failure_line)
                    .collect::<Vec<_>>()
                    .join("\n")
            })?;
        }
    }
    Ok(ExitCode::Done)
}
