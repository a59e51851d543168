//! Red-team findings, pinned: shell semantics: stdin-fed shells, scripts written then run, builtins, wrappers, variables, cwd.

#[allow(unused_imports)]
use crate::support::decide;
