//! `pawl lessons [list|add|edit|forget]`: what pawl learnt from earlier runs in this repository
//! (and the lessons the user adds), which the next runs' prompts carry.

use clap::Subcommand;
use pawl_core::ExitCode;
use pawl_core::lessons::{LessonKind, NewLesson};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::knowledge;

#[derive(Debug, Subcommand)]
pub enum LessonsCommand {
    /// List the lessons and the task types' profiles (the default).
    List,
    /// Add a lesson of your own; every run's prompts carry it first.
    Add { text: String },
    /// Replace a lesson's text.
    Edit { id: String, text: String },
    /// Forget a lesson: no run is told it again.
    Forget { id: String },
}

pub fn run(ctx: &mut Ctx, cmd: Option<LessonsCommand>) -> CliResult<ExitCode> {
    let mut book = knowledge::load(ctx)?;
    match cmd.unwrap_or(LessonsCommand::List) {
        LessonsCommand::List => {
            let human = || {
                if book.lessons.is_empty() {
                    return "No lessons yet: pawl learns them from finished runs (or `pawl lessons add \"<text>\"`).".to_owned();
                }
                let mut out = String::new();
                for l in &book.lessons {
                    let kind = serde_json::to_value(l.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default();
                    let from = l
                        .run
                        .as_deref()
                        .map(|r| format!(" (run {r})"))
                        .unwrap_or_default();
                    out.push_str(&format!("{:<4} {kind:<9} {}{from}\n", l.id, l.text));
                }
                for (t, p) in &book.profiles {
                    out.push_str(&format!(
                        "profile {t}: {} run(s), {} verified, {:.1} iterations per run, {} retries\n",
                        p.runs,
                        p.verified,
                        p.mean_iterations(),
                        p.retries
                    ));
                }
                out.trim_end().to_owned()
            };
            let text = human();
            ctx.emit(&book, || text)?;
        }
        LessonsCommand::Add { text } => {
            let text = text.trim();
            if text.is_empty() {
                return Err(CliError::Usage("the lesson is empty".into()));
            }
            let id = book.add(
                NewLesson {
                    kind: LessonKind::User,
                    signature: None,
                    text: text.to_owned(),
                },
                None,
                None,
                0,
            );
            knowledge::save(ctx, &book)?;
            ctx.emit(&serde_json::json!({"id": id}), || {
                format!("Added {id}: {text}")
            })?;
        }
        LessonsCommand::Edit { id, text } => {
            if text.trim().is_empty() {
                return Err(CliError::Usage("the lesson is empty".into()));
            }
            if !book.edit(&id, text.trim()) {
                return Err(CliError::Usage(format!(
                    "no lesson {id} (see `pawl lessons`)"
                )));
            }
            knowledge::save(ctx, &book)?;
            ctx.emit(&serde_json::json!({"id": id}), || format!("Edited {id}"))?;
        }
        LessonsCommand::Forget { id } => {
            if !book.forget(&id) {
                return Err(CliError::Usage(format!(
                    "no lesson {id} (see `pawl lessons`)"
                )));
            }
            knowledge::save(ctx, &book)?;
            ctx.emit(&serde_json::json!({"id": id}), || format!("Forgot {id}"))?;
        }
    }
    Ok(ExitCode::Done)
}
