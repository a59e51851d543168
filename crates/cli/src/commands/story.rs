//! `pawl story add|start|done|block|list`.
//!
//! `done` is where the harness, not the agent, decides: it runs the gates and the run's command
//! criteria on the current tree (stories do not link to criteria yet, so every command criterion
//! of the run counts) and marks the story done only when all pass on an unchanged tree. Otherwise
//! it prints the failing evidence compactly (what the agent reads), records one classified
//! failure on the story, and exits 1. With no gates and no command criteria it refuses: nothing
//! would have been verified.

use clap::Subcommand;
use pawl_core::ExitCode;
use pawl_core::model::{Size, StoryStatus};

use pawl_engine::verify;

use crate::checks;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::render;

#[derive(Debug, Subcommand)]
pub enum StoryCommand {
    /// Add a story.
    Add {
        title: String,
        /// S, M, L or XL.
        #[arg(long)]
        size: Size,
        /// The story touches security (auth, secrets, crypto...).
        #[arg(long)]
        security: bool,
        /// Failed attempts before the story is escalated.
        #[arg(long, value_name = "N", default_value_t = pawl_core::model::DEFAULT_STORY_ATTEMPTS)]
        max_attempts: u32,
    },
    /// Start working on a story.
    Start { id: String },
    /// Mark a story done.
    Done { id: String },
    /// Mark a story blocked.
    Block {
        id: String,
        #[arg(long)]
        reason: Option<String>,
    },
    /// List stories.
    List,
}

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
        StoryCommand::Done { id } => return done(ctx, &mut store, &run, &id),
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

fn done(
    ctx: &mut Ctx,
    store: &mut pawl_store::Store,
    run: &pawl_core::record::Run,
    id: &str,
) -> CliResult<ExitCode> {
    let story = store.story(&run.id, id)?;
    // Refuse an impossible transition before spending minutes on gates.
    pawl_core::model::story_transition(story.status, StoryStatus::Done)
        .map_err(pawl_store::StoreError::from)?;
    let mut checks = checks::configured_gates(ctx)?;
    checks.extend(verify::criterion_checks(store, Some(run))?);
    if checks.is_empty() {
        return Err(CliError::Failed(format!(
            "story {} was not marked done: there is nothing to verify it with. Configure checks under \
             [gates] in pawl.toml (or run `pawl init` to detect them), or add a command criterion \
             (`pawl criterion add \"<text>\" --verify command:\"<cmd>\"`)",
            story.id
        )));
    }
    let mut plan = verify::Plan::new(checks);
    plan.story = Some(story.id.clone());
    let v = verify::verify_checks(&checks::workspace(ctx), store, Some(run), &plan)?;
    if !v.verified {
        ctx.emit(&serde_json::json!({"story": story, "done": false, "verification": v}), || {
            format!(
                "story {} is NOT done: verification failed. Fix these, then run `pawl story done {}` again.\n{}",
                story.id,
                story.id,
                checks::render(&v)
            )
        })?;
        return Ok(ExitCode::Error);
    }
    let reason = format!("verified on tree {}", v.tree);
    let s = store.set_story_status(&run.id, &story.id, StoryStatus::Done, Some(&reason))?;
    if run.settings.git.auto_commit {
        pawl_engine::driver::commit_story(store, &ctx.root, &run.id, &s)?;
    }
    ctx.emit(
        &serde_json::json!({"story": s, "done": true, "verification": v}),
        || format!("{}\nDone {}: {}", checks::render(&v), s.id, s.title),
    )?;
    Ok(ExitCode::Done)
}
