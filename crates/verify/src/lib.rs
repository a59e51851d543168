//! pawl-verify: what pawl needs to check a project's work without trusting the agent.
//!
//! - [`platform`]: recognise the kind of project from data-driven descriptors and resolve the gate
//!   commands (build, test, lint, ...) for it.
//! - [`report`]: the `{report}` placeholder through which a gate command writes a machine-readable
//!   report that a parser then reads.
//! - [`parse`]: turn a test runner's output into a [`parse::TestSummary`].
//!
//! This crate never spawns a process, prints, or reads the environment: the runner (through
//! `pawl-process`) and the CLI own that and hand text in.

pub mod parse;
pub mod platform;
pub mod report;

pub use parse::{Runner, TestSummary, parse_any};
pub use platform::{Detection, ProjectFacts, detect, gates_toml};
