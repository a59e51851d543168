//! `pawl note "<decision>"`: record a key decision (carried into every resume context).

use clap::Args;
use pawl_core::ExitCode;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct NoteArgs {
    /// The decision, in a sentence.
    pub text: String,
}

pub fn run(ctx: &mut Ctx, args: &NoteArgs) -> CliResult<ExitCode> {
    if args.text.trim().is_empty() {
        return Err(CliError::Usage("the note is empty".into()));
    }
    let mut store = ctx.store()?;
    let run = ctx.open_run(&store)?;
    let n = store.add_note(&run.id, args.text.trim())?;
    ctx.emit(&n, || format!("Noted #{}: {}", n.id, n.text))?;
    Ok(ExitCode::Done)
}
