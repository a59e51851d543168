//! The environment a child starts with, decided explicitly by the caller.
//!
//! Three starting points (inherit everything, start empty, or start from an allow-list of the
//! parent's variables) plus ordered overrides. pawl can therefore pass exactly what it wants:
//! a gate gets a cleared environment with PATH and HOME, an agent inherits with some removals.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// Where the child's environment starts from.
#[derive(Debug, Clone, Default)]
pub(crate) enum Base {
    /// Everything pawl itself has.
    #[default]
    Inherit,
    /// Nothing.
    Empty,
    /// Only these of pawl's variables (those that are set).
    AllowList(Vec<OsString>),
}

/// The environment specification: a base plus overrides (`Some` sets, `None` removes).
#[derive(Debug, Clone, Default)]
pub(crate) struct EnvSpec {
    pub(crate) base: Base,
    pub(crate) overrides: BTreeMap<OsString, Option<OsString>>,
}

impl EnvSpec {
    pub(crate) fn set(&mut self, key: &OsStr, value: &OsStr) {
        self.overrides
            .insert(key.to_owned(), Some(value.to_owned()));
    }

    pub(crate) fn remove(&mut self, key: &OsStr) {
        self.overrides.insert(key.to_owned(), None);
    }

    /// Applies the specification to a std command.
    pub(crate) fn apply(&self, command: &mut std::process::Command) {
        match &self.base {
            Base::Inherit => {}
            Base::Empty => {
                command.env_clear();
            }
            Base::AllowList(names) => {
                command.env_clear();
                for name in names {
                    // Passing variables through is this crate's job; the caller chose the names.
                    if let Some(value) = std::env::var_os(name) {
                        command.env(name, value);
                    }
                }
            }
        }
        for (key, value) in &self.overrides {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(spec: &EnvSpec) -> Vec<(OsString, Option<OsString>)> {
        let mut command = std::process::Command::new("true");
        spec.apply(&mut command);
        command
            .get_envs()
            .map(|(k, v)| (k.to_owned(), v.map(OsStr::to_owned)))
            .collect()
    }

    #[test]
    fn empty_base_keeps_only_overrides() {
        let mut spec = EnvSpec {
            base: Base::Empty,
            ..EnvSpec::default()
        };
        spec.set(OsStr::new("A"), OsStr::new("1"));
        let envs = resolved(&spec);
        assert_eq!(envs, vec![(OsString::from("A"), Some(OsString::from("1")))]);
    }

    #[test]
    fn later_override_wins() {
        let mut spec = EnvSpec::default();
        spec.set(OsStr::new("A"), OsStr::new("1"));
        spec.remove(OsStr::new("A"));
        assert_eq!(resolved(&spec), vec![(OsString::from("A"), None)]);
    }
}
