//! Checks: the gates of `pawl.toml` (`[gates] name = "command"`) and command criteria, as the
//! runner sees them, and the rules that pick and order them.
//!
//! `lint_fix` is not a gate: it is the command the lint-fix loop applies (it changes the tree),
//! so it is never run as a check. `build` is run before the other gates, which run in parallel:
//! tests, lints and type checks commonly need what the build produces, and running them against
//! a broken build only adds noise to what the agent reads.

use std::collections::BTreeMap;

use serde::Serialize;

/// The key of the lint-fix command in `[gates]`; never run as a gate.
pub const LINT_FIX: &str = "lint_fix";
/// The gate that runs first, alone.
pub const BUILD: &str = "build";
/// The gate the lint-fix loop repairs.
pub const LINT: &str = "lint";
/// Check names of command criteria start with this.
pub const CRITERION_PREFIX: &str = "criterion:";

/// One thing pawl runs and judges by itself: a gate or a command criterion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The gate name (`test`) or `criterion:<id>`.
    pub name: String,
    /// The command as configured; `{report}` is substituted by the runner.
    pub command: String,
}

impl Check {
    pub fn gate(name: impl Into<String>, command: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            command: command.into(),
        }
    }

    /// The check for command criterion `id` (e.g. `C2`).
    pub fn criterion(id: &str, command: impl Into<String>) -> Check {
        Check {
            name: format!("{CRITERION_PREFIX}{id}"),
            command: command.into(),
        }
    }

    /// The criterion id when this check is a criterion.
    pub fn criterion_id(&self) -> Option<&str> {
        self.name.strip_prefix(CRITERION_PREFIX)
    }
}

/// The gates of a `[gates]` table in run order: `build` first, then the others by name.
/// `lint_fix` and blank commands are left out.
pub fn gates_from_config(gates: &BTreeMap<String, String>) -> Vec<Check> {
    let mut out: Vec<Check> = gates
        .iter()
        .filter(|(name, cmd)| name.as_str() != LINT_FIX && !cmd.trim().is_empty())
        .map(|(name, cmd)| Check::gate(name.clone(), cmd.clone()))
        .collect();
    out.sort_by_key(|c| (c.name != BUILD, c.name.clone()));
    out
}

/// A `--gate` name that is not configured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no gate `{name}` in [gates] (configured: {known})")]
pub struct UnknownGate {
    pub name: String,
    pub known: String,
}

/// Keeps only the named gates (all when `names` is empty), in run order.
pub fn select(gates: Vec<Check>, names: &[String]) -> Result<Vec<Check>, UnknownGate> {
    if names.is_empty() {
        return Ok(gates);
    }
    for name in names {
        if !gates.iter().any(|g| &g.name == name) {
            let known: Vec<&str> = gates.iter().map(|g| g.name.as_str()).collect();
            return Err(UnknownGate {
                name: name.clone(),
                known: if known.is_empty() {
                    "none".into()
                } else {
                    known.join(", ")
                },
            });
        }
    }
    Ok(gates
        .into_iter()
        .filter(|g| names.contains(&g.name))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_first_lint_fix_never() {
        let map = BTreeMap::from([
            ("test".to_owned(), "t".to_owned()),
            ("build".to_owned(), "b".to_owned()),
            ("lint_fix".to_owned(), "f".to_owned()),
            ("audit".to_owned(), "a".to_owned()),
            ("empty".to_owned(), "  ".to_owned()),
        ]);
        let names: Vec<_> = gates_from_config(&map)
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["build", "audit", "test"]);
    }

    #[test]
    fn select_keeps_order_and_names_unknown() {
        let gates = vec![Check::gate("build", "b"), Check::gate("test", "t")];
        let picked = select(gates.clone(), &["test".into(), "build".into()]).unwrap();
        assert_eq!(picked, gates);
        let err = select(gates, &["lnt".into()]).unwrap_err();
        assert!(err.to_string().contains("build, test"), "{err}");
        assert_eq!(Check::criterion("C2", "x").criterion_id(), Some("C2"));
    }
}
