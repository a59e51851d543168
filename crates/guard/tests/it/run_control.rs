//! Red-team findings, pinned: the agent cannot switch the guard off or steer pawl's run.

#[allow(unused_imports)]
use crate::support::decide;
