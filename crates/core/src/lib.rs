//! pawl-core: the domain model and every decision as pure functions.
//!
//! Nothing here does I/O: no files, no environment, no processes, no clock. The CLI, the engine and
//! the hooks gather inputs and hand them in; this crate decides. That keeps every rule unit-testable
//! and shared by both drivers.

pub mod against;
pub mod config;
pub mod coverage;
pub mod envfail;
pub mod envmanifest;
pub mod event;
pub mod evidence;
pub mod exit;
pub mod failure;
pub mod home;
pub mod judge;
pub mod lessons;
pub mod long_session;
pub mod model;
pub mod must_not;
pub mod parallel;
pub mod pipeline;
pub mod probe;
pub mod proof;
pub mod record;
pub mod resume;
pub mod reuse;
pub mod review;
pub mod sandbox;
pub mod scope;
pub mod seal;
pub mod spec;
pub mod tdd;
pub mod tester;
pub mod turn;

pub use event::EventKind;
pub use exit::{ExitCode, StopReason, Verdict, run_exit_code};
pub use failure::{FailureCategory, RetryAdvice};
