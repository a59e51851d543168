//! The guard's integration tests: the shared corpus, trick classes beyond
//! it, and properties (no panic, bounded time) on hostile input.

mod corpus;
mod props;
mod regressions;
mod support;
mod tricks;
