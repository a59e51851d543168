//! The languages the guard reads inside a shell command, each far enough to find what runs and
//! what is written: the interpreters' inline code ([`code`]), awk programs ([`awk`]) and sed
//! scripts ([`sed`]). Pure functions of text, with their own unit and property tests; the rules
//! that judge what they find are in `rules/`.

pub(crate) mod awk;
pub(crate) mod code;
pub(crate) mod sed;
