//! Red-team findings, pinned: programs that run commands (awk, sed e, vim, make, tar, ...) and interpreter one-liners.

#[allow(unused_imports)]
use crate::support::decide;
