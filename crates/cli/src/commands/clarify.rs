//! `pawl clarify add|list`.

use clap::Subcommand;
use pawl_core::ExitCode;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

#[derive(Debug, Subcommand)]
pub enum ClarifyCommand {
    /// Record a question and its answer.
    Add {
        question: String,
        answer: String,
        #[arg(long, default_value = "execute")]
        phase: String,
        #[arg(long, default_value = "general")]
        category: String,
    },
    /// List clarifications.
    List,
}

pub fn run(ctx: &mut Ctx, cmd: ClarifyCommand) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    match cmd {
        ClarifyCommand::Add {
            question,
            answer,
            phase,
            category,
        } => {
            if question.trim().is_empty() || answer.trim().is_empty() {
                return Err(CliError::Usage(
                    "a clarification needs a question and an answer".into(),
                ));
            }
            let c = store.add_clarification(
                &run.id,
                question.trim(),
                answer.trim(),
                &phase,
                &category,
            )?;
            ctx.emit(&c, || {
                format!(
                    "Clarified ({}/{}): {} → {}",
                    c.phase, c.category, c.question, c.answer
                )
            })?;
        }
        ClarifyCommand::List => {
            let all = store.clarifications(&run.id)?;
            ctx.emit(&all, || {
                if all.is_empty() {
                    return "No clarifications.".into();
                }
                all.iter()
                    .map(|c| format!("[{}/{}] {} → {}", c.phase, c.category, c.question, c.answer))
                    .collect::<Vec<_>>()
                    .join("\n")
            })?;
        }
    }
    Ok(ExitCode::Done)
}
