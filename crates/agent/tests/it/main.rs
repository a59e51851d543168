//! pawl-agent integration tests: the scripted and command agents as real child processes,
//! parsers on recorded real streams, and the real Claude Code / Codex CLIs against the mock.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod command;
mod common;
mod fuzz;
mod replay;
