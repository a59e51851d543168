//! Red-team findings, pinned: git: programs git runs, option abbreviations, aliases, protected branches.

#[allow(unused_imports)]
use crate::support::decide;
