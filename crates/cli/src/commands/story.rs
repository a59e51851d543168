//! `pawl story add|start|done|block|list`.

use pawl_core::ExitCode;
use pawl_core::model::StoryStatus;

use crate::cli::StoryCommand;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::render;

pub fn run(ctx: &mut Ctx, cmd: StoryCommand) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    match cmd {
        StoryCommand::Add {
            title,
            size,
            security,
            max_attempts,
        } => {
            if title.trim().is_empty() {
                return Err(CliError::Usage("the story title is empty".into()));
            }
            if max_attempts == 0 {
                return Err(CliError::Usage("--max-attempts must be at least 1".into()));
            }
            let s = store.add_story(&run.id, title.trim(), size, security, max_attempts)?;
            ctx.emit(&s, || format!("Added {}: {} ({})", s.id, s.title, s.size))?;
        }
        StoryCommand::Start { id } => {
            let s = store.set_story_status(&run.id, &id, StoryStatus::InProgress, None)?;
            ctx.emit(&s, || format!("Started {}: {}", s.id, s.title))?;
        }
        StoryCommand::Done { id } => {
            let s = store.set_story_status(&run.id, &id, StoryStatus::Done, None)?;
            ctx.emit(&s, || format!("Done {}: {}", s.id, s.title))?;
        }
        StoryCommand::Block { id, reason } => {
            let s =
                store.set_story_status(&run.id, &id, StoryStatus::Blocked, reason.as_deref())?;
            ctx.emit(&s, || format!("Blocked {}: {}", s.id, s.title))?;
        }
        StoryCommand::List => {
            let all = store.stories(&run.id)?;
            ctx.emit(&all, || {
                if all.is_empty() {
                    return "No stories yet: add one with `pawl story add \"<title>\" --size M`."
                        .into();
                }
                all.iter()
                    .map(render::story_line)
                    .collect::<Vec<_>>()
                    .join("\n")
            })?;
        }
    }
    Ok(ExitCode::Done)
}
