//! Knowledge across runs on this machine: the repository's lessons and task-type profiles
//! (`pawl_core::lessons`), kept in `.pawl/lessons.json` (out of the agent's reach like the rest
//! of `.pawl/`). A new run's prompts carry the relevant lessons (a note, so every prompt and
//! resume context has them); a finished run adds what it taught.

use pawl_core::lessons::Book;
use pawl_core::record::Run;
use pawl_store::Store;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

/// Where the book is kept.
pub fn path(ctx: &Ctx) -> std::path::PathBuf {
    ctx.state_dir().join("lessons.json")
}

/// The repository's book (empty when there is none yet).
pub fn load(ctx: &Ctx) -> CliResult<Book> {
    match crate::state::read_optional(&path(ctx))? {
        None => Ok(Book::default()),
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            CliError::Usage(format!(
                "{} is not a lessons file ({e}); fix or remove it",
                path(ctx).display()
            ))
        }),
    }
}

pub fn save(ctx: &Ctx, book: &Book) -> CliResult {
    let text = serde_json::to_string_pretty(book)
        .map_err(|e| CliError::Usage(format!("cannot write the lessons: {e}")))?;
    crate::state::write_atomic(&path(ctx), &text)
}

/// The task type of a goal (`build`, `debug`, `refactor`), as the spec analysis sees it.
pub fn task_type(ctx: &Ctx, goal: &str) -> String {
    let facts = crate::project::spec_facts(ctx).unwrap_or_default();
    pawl_engine::start::drive::task_type(&facts, goal)
}

/// Before a new run's first step: the relevant lessons, as one note every prompt carries
/// (`pawl_engine::start::offer_lessons`, with the book read here). Once per run.
pub fn offer(ctx: &Ctx, store: &mut Store, run: &Run) -> CliResult<Option<String>> {
    pawl_engine::start::offer_lessons(store, run, || Ok((load(ctx)?, task_type(ctx, &run.goal))))
}

/// After a run stopped: what it taught goes into the book (`pawl_engine::start::drive::learn`).
/// Returns the ids added.
pub fn learn(ctx: &Ctx, store: &Store, run: &Run, verified: bool) -> CliResult<Vec<String>> {
    let mut book = load(ctx)?;
    let ids = pawl_engine::start::drive::learn(
        store,
        run,
        verified,
        task_type(ctx, &run.goal),
        &mut book,
    )?;
    save(ctx, &book)?;
    Ok(ids)
}
