//! pawl-engine: the headless loop. One owner drives a run: it spawns the agent for each step,
//! has pawl verify the tree, records the iteration, and decides from pawl-core's rules what
//! happens next — continue, wait, or stop with a typed reason. Then it writes the report.
//!
//! What this crate is not: the agent programs (pawl-agent), the checks (behind [`Verifier`]),
//! or terminal output (the CLI observes [`LoopEvent`]s and prints them).

pub mod control;
pub mod driver;
pub mod pipeline;
pub mod prompt;
pub mod report;
pub mod step;
pub mod verifier;

pub use control::Control;
pub use driver::{LoopConfig, LoopEnd, LoopEvent, Owner, drive};
pub use pipeline::{Answer, Answerer, Autonomous, PipelineInput};
pub use verifier::{CheckSummary, Verifier, VerifyReport};

/// How long a driver's lease lasts without a heartbeat.
pub const LEASE_TTL_MS: i64 = 60_000;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Store(#[from] pawl_store::StoreError),
    #[error("verification failed to run: {0}")]
    Verify(String),
    #[error("cannot write the report {path}: {source}")]
    Report {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}
