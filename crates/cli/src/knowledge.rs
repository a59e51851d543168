//! Knowledge across runs on this machine: the repository's lessons and task-type profiles
//! (`pawl_core::lessons`), kept in `.pawl/lessons.json` (out of the agent's reach like the rest
//! of `.pawl/`). A new run's prompts carry the relevant lessons (a note, so every prompt and
//! resume context has them); a finished run adds what it taught.

use pawl_core::lessons::{Book, RunFacts, StepFacts};
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
    let a = pawl_core::spec::analyze(goal, &facts);
    serde_json::to_value(a.workflow)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "build".into())
}

/// Before a new run's first step: the relevant lessons, as one note every prompt carries
/// (`pawl_engine::start::offer_lessons`, with the book read here). Once per run.
pub fn offer(ctx: &Ctx, store: &mut Store, run: &Run) -> CliResult<Option<String>> {
    pawl_engine::start::offer_lessons(store, run, || Ok((load(ctx)?, task_type(ctx, &run.goal))))
}

/// After a run stopped: what it taught goes into the book. Returns the ids added.
pub fn learn(ctx: &Ctx, store: &Store, run: &Run, verified: bool) -> CliResult<Vec<String>> {
    let iterations = store.iterations(&run.id)?;
    let steps: Vec<StepFacts> = iterations
        .iter()
        // Developer steps only: a planner's or a reviewer's session changes nothing.
        .filter(|i| {
            !i.prompt.starts_with("[pawl role:") || i.prompt.starts_with("[pawl role: developer]")
        })
        .map(|i| StepFacts {
            signature: i.facts.as_ref().and_then(|f| f.failure_signature.clone()),
            files: i.files.clone(),
        })
        .collect();
    let mut facts = RunFacts {
        run_id: run.id.clone(),
        task_type: task_type(ctx, &run.goal),
        verified,
        iterations: u32::try_from(iterations.len()).unwrap_or(u32::MAX),
        steps,
        rejected: store
            .failed_directions(&run.id)
            .unwrap_or_default()
            .into_iter()
            .map(|d| d.direction)
            .collect(),
        decisions: store
            .notes(&run.id)?
            .into_iter()
            .map(|n| n.text)
            // The spec gate's answers are about this goal, not the repository.
            .filter(|t| !t.starts_with("spec:"))
            .collect(),
        ..RunFacts::default()
    };
    for p in store.phases(&run.id).unwrap_or_default() {
        if let Some(end) = p.ended_at {
            let ms = u64::try_from(end.saturating_sub(p.started_at)).unwrap_or(0);
            *facts.phase_ms.entry(p.phase.to_string()).or_default() += ms;
        }
    }
    for s in store.scores(&run.id).unwrap_or_default() {
        facts.thresholds.insert(s.kind.clone(), s.threshold);
        if !s.passed {
            *facts.checkpoint_misses.entry(s.kind).or_default() += 1;
        }
    }
    let mut book = load(ctx)?;
    let ids = book.absorb(&facts, now_ms());
    save(ctx, &book)?;
    Ok(ids)
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
