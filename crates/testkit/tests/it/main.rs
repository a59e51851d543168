//! Integration tests of pawl-testkit: the mock server over real HTTP (`server`), and the real
//! Claude Code and Codex CLIs against it (`claude`, `codex`), which need the binaries that
//! `.ci/install-agents.sh` installs.

// Helpers outside #[test] functions are test code too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod agents;
mod claude;
mod codex;
mod gemini;
mod http;
mod server;
