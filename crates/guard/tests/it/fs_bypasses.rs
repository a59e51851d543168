//! Red-team findings, pinned: files: deleters, symlinks and hard links, copies and archives, allowances.

#[allow(unused_imports)]
use crate::support::decide;
