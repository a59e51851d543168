//! pawl-agent integration tests: the scripted and command agents as real child processes,
//! parsers on recorded real streams, and the real Claude Code / Codex CLIs against the mock.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// The real-CLI tests say loudly on stderr when they skip.
#![allow(clippy::print_stderr)]

mod command;
mod common;
mod fixtures;
mod fuzz;
mod real_cli;
mod replay;
