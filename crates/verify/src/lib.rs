//! pawl-verify: what pawl needs to check a project's work without trusting the agent.
//!
//! - [`platform`]: recognise the kind of project from data-driven descriptors and resolve the gate
//!   commands (build, test, lint, ...) for it.
//! - [`report`]: the `{report}` placeholder through which a gate command writes a machine-readable
//!   report that a parser then reads.
//! - [`parse`]: turn a test runner's output into a [`parse::TestSummary`].
//! - [`gate`]: the checks (gates from `[gates]`, command criteria) and their run order.
//! - [`runner`]: run checks through `pawl-process` (process groups, timeouts, logs), in
//!   parallel, into [`outcome::CheckRun`]s with parsed counts and a classified failure
//!   ([`classify`]).
//! - [`diagnostics`]: the first error of a compiler or linter (rustc, clippy) with its location
//!   and code excerpt, and the counts of errors and warnings, for checks that run no tests.
//! - [`text`]: terminal escapes out of tool output ([`text::strip_ansi`]), for everything that
//!   leaves this crate and for the engine's prompts and reports.
//! - [`backup`]: an exact, restorable copy of the working tree for the lint-fix loop.
//! - [`protect`]: the test-protection screen, pure functions that compare a run's tests, test
//!   files and runner configuration with its baseline (deleted tests, skips, weakened
//!   assertions, changed test configuration).
//! - [`roles`]: what the locked run takes of a run's changes: every path as product source,
//!   declaration, test or everything else, and a manifest's declaration keys merged.
//! - [`syntax`]: parsed code (tree-sitter grammars for Python, JS/TS, Go, Rust and shell): the
//!   inline test items of a source file and their restoration by span, the literal calls a test
//!   makes (probes), and the screen on the syntax of a change.
//!
//! This crate prints nothing and reads no configuration or environment: the CLI passes the
//! gates, the timeout and the environment in. Processes are built only through `pawl-process`
//! (directly in [`runner`], and through `pawl-git`). Binding results to the tree hash, the cache
//! and the store are the caller's: this crate returns plain data.

pub mod backup;
pub mod classify;
pub mod collect;
pub mod coverage;
pub mod diagnostics;
pub mod gate;
pub mod outcome;
pub mod parse;
pub mod platform;
pub mod probes;
pub mod protect;
pub mod report;
pub mod roles;
pub mod runner;
pub mod script;
pub mod select;
pub mod shell;
pub mod syntax;
pub mod text;
pub mod userenv;

pub use diagnostics::{Diagnostics, parse_diagnostics};
pub use gate::{Check, gates_from_config};
pub use outcome::{CheckEnd, CheckFailure, CheckRun};
pub use parse::{IdCoverage, Runner, TestSummary, parse_any};
pub use platform::{Detection, ProjectFacts, detect, gates_toml};
pub use runner::{RunnerConfig, run_check, run_checks};
