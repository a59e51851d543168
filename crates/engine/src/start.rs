//! Starting a run: every step between "a goal and a repository" and "the first step can run"
//! that does not depend on who asks (the CLI's `pawl run`, its demo, and later `pawl serve`).
//! The caller gathers what only it may read (the user's configuration and pawl state, the
//! process environment) and passes it in as values; this module writes to the repository and
//! the store, and tells what it did as [`Notice`]s for the caller to render.
//!
//! - [`seal`]: the checks a new run is verified with, sealed with their environment;
//! - the baseline ([`crate::baseline::take`]) and what already fails before the run
//!   ([`failing_before`]); recording both on the run ([`record_seal`]);
//! - [`settings`]: what a new run copies from the configuration and keeps for its whole life;
//! - [`rails`]: the git rails every run starts on and their preflight;
//! - [`offer_lessons`]: the lessons of earlier runs here, as a note before the first step;
//! - [`spec`]: the spec gate before a new run's first step, its questions through an
//!   [`crate::Answerer`], its answers and assumptions recorded on the run.
//!
//! - [`start`] ([`entry`]): the one entry over all of it, from a request to a run whose first
//!   step can run, with the front end's part asked of its [`Host`]; [`mode`]: the mode with the
//!   agent it drives; [`questions`]: clarifying questions kept in the store until answered, from
//!   any front end.
//!
//! Not here: parsing flags, prompts and printing (the CLI), the drivers themselves
//! ([`crate::driver`], [`crate::pipeline`], [`crate::parallel`], [`crate::session`]).

pub mod drive;
pub mod entry;
pub mod home;
pub mod mode;
pub mod questions;
pub mod rails;
pub mod sandbox;
pub mod seal;
pub mod spec;

use pawl_core::EventKind;
use pawl_core::config::Config;
use pawl_core::record::RunSettings;
use pawl_core::seal::Seal;
use pawl_store::Store;

use crate::baseline::Baseline;

pub use entry::{Armed, Host, StartRequest, Started, start};
pub use rails::Rails;
pub use seal::SealInput;

/// An armed session run that no session takes within this long expires; the lease its start
/// takes lasts as long.
pub const STALE_GUARD_MS: i64 = 30 * 60 * 1000;

/// Why a run cannot start (nothing about it is written when the refusal comes before the run
/// exists: the preflight's refusals all do).
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The repository is not in a state a run may start from: uncommitted work, a git
    /// operation in progress, a branch that makes the sandbox branch impossible.
    #[error("{0}")]
    Refused(String),
    /// The seal has hidden checks and there is no vault to keep their commands (no key).
    #[error("no vault for the hidden checks' commands")]
    NoVault,
    #[error(transparent)]
    Hidden(#[from] crate::hidden::HiddenError),
    #[error(transparent)]
    Git(#[from] pawl_git::Error),
    #[error(transparent)]
    Store(#[from] pawl_store::StoreError),
    /// The request asks for something that cannot go together (a mode the agent cannot run,
    /// workers without stories): the front end's usage error.
    #[error("{0}")]
    Usage(String),
    /// The run cannot start here (nothing to verify, a scenario missing, a check that cannot
    /// start on the baseline).
    #[error("{0}")]
    Failed(String),
}

/// What starting a run did that its user should be told, in order. The caller renders them
/// (the CLI: lines on stdout or stderr, nothing for some under `--json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The current branch is protected: the run works on its sandbox branch.
    SandboxBranch { from: String, branch: String },
    /// The files the goal names (empty: any file of the repository).
    ExpectedScope { files: Vec<String> },
    /// `[guard] allow_unsafe = true`: the guard is off for this run.
    GuardOff,
    /// Rules of `[guard.rules]` switched off for this run (the guard otherwise on).
    GuardRulesOff { rules: Vec<String> },
    /// The mode the run works in, and why (`auto`: the spec analysis chose it; `planned`: a
    /// plan file's run).
    Mode {
        mode: String,
        reason: String,
        auto: bool,
        planned: bool,
    },
    /// The baseline is about to run this many sealed checks.
    BaselineStarting { checks: usize },
    /// The baseline taken, with what fails before the run ([`failing_before`]).
    Baseline {
        baseline: Baseline,
        failing: Vec<String>,
    },
}

/// What a new run copies from the configuration and keeps for its whole life (its seal, replay
/// scenario and workers are set by the start that knows them).
pub fn settings(config: &Config) -> RunSettings {
    RunSettings {
        limits: config.limits.clone(),
        breakers: config.breakers.clone(),
        stall: config.stall.clone(),
        agent: Some(config.agent.clone()),
        replay_scenario: None,
        git: config.git.clone(),
        guard: Some(pawl_core::must_not::guard_policy(
            &config.guard,
            &config.run.must_not,
        )),
        seal: None,
        sandbox: Some(config.sandbox.clone()),
        must_not: config.run.must_not.clone(),
        workers: None,
    }
}

/// The checks that fail on the pre-run tree, each with up to five of its failing tests: what
/// the run must turn green (empty: every check already passes).
pub fn failing_before(b: &Baseline) -> Vec<String> {
    b.checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| {
            if c.failing.is_empty() {
                c.name.clone()
            } else {
                let shown: Vec<&str> = c.failing.iter().take(5).map(String::as_str).collect();
                format!("{} (failing: {})", c.name, shown.join(", "))
            }
        })
        .collect()
}

/// Records a new run's seal and baseline as events.
pub fn record_seal(
    store: &mut Store,
    run_id: &str,
    seal: &Seal,
    b: &Baseline,
) -> Result<(), StartError> {
    store.append_event(
        Some(run_id),
        EventKind::Sealed,
        serde_json::json!({"why": "run started", "checks": seal.checks, "env": seal.env.keys().collect::<Vec<_>>()}),
    )?;
    store.append_event(
        Some(run_id),
        EventKind::Baseline,
        serde_json::to_value(b).unwrap_or_default(),
    )?;
    Ok(())
}

/// Before a new run's first step: the lessons of the repository's book relevant to the goal,
/// as one note every prompt carries; the ids offered (`None`: nothing to offer). Once per run:
/// a run with an iteration or a lessons note already is left as it is, before `book` (the book
/// and the goal's task type, which the caller reads) is called.
pub fn offer_lessons<E: From<pawl_store::StoreError>>(
    store: &mut Store,
    run: &pawl_core::record::Run,
    book: impl FnOnce() -> Result<(pawl_core::lessons::Book, String), E>,
) -> Result<Option<String>, E> {
    use pawl_core::lessons;
    if !store.iterations(&run.id)?.is_empty()
        || store
            .notes(&run.id)?
            .iter()
            .any(|n| n.text.starts_with(lessons::NOTE_PREFIX))
    {
        return Ok(None);
    }
    let (book, task_type) = book()?;
    let picked = lessons::relevant(&book, &run.goal, &task_type);
    let Some(note) = lessons::prompt_note(&picked) else {
        return Ok(None);
    };
    store.add_note(&run.id, &note)?;
    Ok(Some(
        picked
            .iter()
            .map(|l| l.id.clone())
            .collect::<Vec<_>>()
            .join(", "),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baseline::BaselineCheck;

    fn check(name: &str, passed: bool, failing: &[&str]) -> BaselineCheck {
        BaselineCheck {
            name: name.into(),
            passed,
            end: "exited".into(),
            exit_code: Some(i32::from(!passed)),
            tests: Vec::new(),
            failing: failing.iter().map(|s| s.to_string()).collect(),
            first_failure: None,
            items: None,
            counts: None,
        }
    }

    #[test]
    fn failing_before_names_the_failing_checks_and_at_most_five_tests() {
        let b = Baseline {
            tree: "t".into(),
            checks: vec![
                check("build", true, &[]),
                check("test", false, &["a", "b", "c", "d", "e", "f"]),
                check("lint", false, &[]),
            ],
            environment: None,
            setup: None,
        };
        assert_eq!(
            failing_before(&b),
            vec![
                "test (failing: a, b, c, d, e)".to_string(),
                "lint".to_string()
            ]
        );
    }

    #[test]
    fn settings_carry_the_guard_policy_with_the_runs_must_nots() {
        let mut config = Config::default();
        config.run.must_not = vec!["src/legacy/**".into()];
        let s = settings(&config);
        assert_eq!(s.must_not, config.run.must_not);
        assert!(s.guard.is_some() && s.seal.is_none() && s.workers.is_none());
    }

    #[test]
    fn lessons_are_offered_once_per_run_and_the_book_is_not_read_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open(&dir.path().join("pawl.db")).expect("store");
        let run = store
            .create_run(&pawl_store::NewRun {
                goal: "fix the parser".into(),
                driver: pawl_core::model::Driver::Headless,
                mode: None,
                settings: Default::default(),
                branch: None,
                pre_run_commit: None,
            })
            .expect("run");
        let empty = || Ok::<_, pawl_store::StoreError>((Default::default(), "debug".to_string()));
        assert_eq!(offer_lessons(&mut store, &run, empty).expect("offer"), None);
        assert!(store.notes(&run.id).expect("notes").is_empty());
        store
            .add_note(
                &run.id,
                &format!("{} an earlier note", pawl_core::lessons::NOTE_PREFIX),
            )
            .expect("note");
        let unread = || -> Result<(pawl_core::lessons::Book, String), pawl_store::StoreError> {
            panic!("the book is read for a run that has its lessons note")
        };
        assert_eq!(
            offer_lessons(&mut store, &run, unread).expect("offer"),
            None
        );
    }
}
