//! pawl-engine: the run's turn, once for every driver. It owns verification (pawl runs the checks
//! itself: [`verify`]), one agent attempt ([`attempt`]), the turn that concludes an iteration and
//! decides what comes next ([`turn`]), and the drivers built on them: the headless loop
//! ([`driver`]), the phase pipeline ([`pipeline`]) and the in-session Stop turn ([`session`]).
//! Then the report.
//!
//! What this crate is not: the agent programs (pawl-agent), the check runner and parsers
//! (pawl-verify), terminal output (the CLI observes [`LoopEvent`]s and prints them), or the
//! hook protocols (pawl-hooks and the CLI's `pawl hook`). See README.md for the life of a turn.

pub mod anchors;
pub mod attempt;
pub mod baseline;
pub mod control;
pub mod driver;
pub mod escalate;
pub mod hidden;
pub mod loop_config;
pub mod parallel;
pub mod pipeline;
pub mod prompt;
pub mod publish;
pub mod report;
pub mod room;
pub mod session;
pub mod start;
pub mod step;
pub mod tester;
pub mod turn;
pub mod verify;
pub mod workspace;

pub use control::Control;

/// The repository's pawl state directory (`.pawl/`, beside `pawl.toml`): the store, logs,
/// reports, the step mailbox. Out of the agent's reach during a step.
pub const STATE_DIR: &str = ".pawl";

/// The user's pawl state on this machine (`$XDG_STATE_HOME/pawl`, else `~/.local/state/pawl`):
/// the key, the rooms, the hidden checks. Outside every repository. `None` without either
/// variable (or with a relative one).
pub fn user_state_dir() -> Option<std::path::PathBuf> {
    let from = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    from("XDG_STATE_HOME")
        .map(|d| d.join("pawl"))
        .or_else(|| from("HOME").map(|h| h.join(".local/state/pawl")))
}
pub use driver::{AfterStep, LoopConfig, LoopEnd, LoopEvent, Owner, drive};
pub use pipeline::{Answer, Answerer, Autonomous, PipelineInput};
pub use room::{Room, RoomError, SyncStats};
pub use verify::{CheckSummary, GateVerifier, Verifier, VerifyError, VerifyReport, Workspace};

/// Makes every git call of this process run the git `run` fixed when it started (its seal's
/// `git`): called where a driver or a verification takes a run up, before any git call.
/// Runs sealed before pawl fixed git keep the `git` of `PATH`.
pub fn use_run_git(run: &pawl_core::record::Run) {
    if let Some(git) = run.settings.seal.as_ref().and_then(|s| s.git.as_deref()) {
        pawl_git::set_default_program(git);
    }
}

/// How long a driver's lease lasts without a heartbeat.
pub const LEASE_TTL_MS: i64 = 60_000;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Store(#[from] pawl_store::StoreError),
    #[error("verification failed to run: {0}")]
    Verify(#[from] VerifyError),
    #[error("git: {0}")]
    Git(#[from] pawl_git::Error),
    /// A pipeline rule was broken by pawl's own sequencing (a bug, never the agent's doing).
    #[error("pipeline: {0}")]
    Consensus(#[from] pawl_core::pipeline::ConsensusError),
    /// The parallel driver cannot go on (a branch gone, a worktree that cannot be made).
    #[error("parallel stories: {0}")]
    Parallel(String),
    #[error("cannot write the report {path}: {source}")]
    Report {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

impl EngineError {
    /// The tampering this error reports: rows of the run failed their authentication check
    /// (every driver stops the run `tampered` on it).
    pub fn tampering(&self) -> Option<&pawl_store::Tampering> {
        match self {
            EngineError::Store(e) | EngineError::Verify(VerifyError::Store(e)) => e.tampering(),
            _ => None,
        }
    }
}
