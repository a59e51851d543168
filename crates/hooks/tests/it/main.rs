//! pawl-hooks integration tests: the captured stdin of the real CLIs, and settings round trips.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod install;
mod protocols;
