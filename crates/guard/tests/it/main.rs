//! The guard's integration tests: the shared corpus, trick classes beyond
//! it, and properties (no panic, bounded time) on hostile input.

mod checkpoint;
mod corpus;
mod effects;
mod exec_bypasses;
mod families;
mod fs_bypasses;
mod git_bypasses;
mod ignored;
mod props;
mod reach;
mod regressions;
mod rows;
mod run_control;
mod shell_bypasses;
mod support;
mod tricks;
mod unescape;
mod variable_targets;
mod worktree;
