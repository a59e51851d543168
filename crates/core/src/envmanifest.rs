//! The content manifest of a project's installed-package trees (a virtualenv's site-packages and
//! `bin`, `node_modules`, `vendor`), recorded when the room takes the environment at the seal,
//! and the comparison that says what changed in them since and whether the run explains it.
//!
//! A package is an entry of a tree (`site-packages/requests`, `node_modules/@babel/core`, a
//! program in `.venv/bin`), with a digest over its files' paths, modes and contents. A change
//! is explained when the run changed a dependency manifest (`pyproject.toml`, `package.json`,
//! a lockfile …): the room's environment is then rebuilt with the project's install command. A
//! change no manifest explains — a patched `site-packages/pytest`, a package installed without
//! being declared — is a finding the verdict reads.
//!
//! Pure: the engine walks the files (pawl-engine's `room::env`) and hands the manifests in.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// One package: its digest and how many files it has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    pub digest: String,
    pub files: u64,
}

/// Tree (root-relative, `.venv/lib/python3.12/site-packages`) → package name → package.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub trees: BTreeMap<String, BTreeMap<String, Package>>,
}

/// What happened to one package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Added,
    Removed,
    Changed,
}

/// One package that differs from the seal's manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageChange {
    pub tree: String,
    pub package: String,
    pub change: Change,
}

impl fmt::Display for PackageChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.change {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        };
        write!(f, "{}/{} {what}", self.tree, self.package)
    }
}

/// Every package that differs between `sealed` and `now`, in tree then package order.
pub fn compare(sealed: &Manifest, now: &Manifest) -> Vec<PackageChange> {
    let empty = BTreeMap::new();
    let mut trees: Vec<&String> = sealed.trees.keys().chain(now.trees.keys()).collect();
    trees.sort();
    trees.dedup();
    let mut out = Vec::new();
    for tree in trees {
        let before = sealed.trees.get(tree).unwrap_or(&empty);
        let after = now.trees.get(tree).unwrap_or(&empty);
        let mut names: Vec<&String> = before.keys().chain(after.keys()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let change = match (before.get(name), after.get(name)) {
                (Some(a), Some(b)) if a == b => continue,
                (Some(_), Some(_)) => Change::Changed,
                (None, Some(_)) => Change::Added,
                (Some(_), None) => Change::Removed,
                (None, None) => continue,
            };
            out.push(PackageChange {
                tree: tree.clone(),
                package: name.clone(),
                change,
            });
        }
    }
    out
}

/// What a verification makes of the environment's changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum EnvVerdict {
    /// Nothing changed.
    Unchanged,
    /// The run changed these dependency manifests: rebuild the room's environment with the
    /// project's install command.
    Rebuild {
        manifests: Vec<String>,
        changes: Vec<PackageChange>,
    },
    /// Changes no dependency manifest the run changed explains: a finding.
    Unexplained { changes: Vec<PackageChange> },
}

impl EnvVerdict {
    /// The finding's text, when there is one.
    pub fn finding(&self) -> Option<String> {
        match self {
            EnvVerdict::Unexplained { changes } => Some(format!(
                "the project's installed packages changed and no dependency manifest the run changed explains it: {}",
                changes
                    .iter()
                    .take(10)
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            _ => None,
        }
    }
}

/// Judges `changes` given the paths the run changed (root-relative) and the dependency-manifest
/// globs of the platforms (`is_manifest`).
pub fn judge(
    changes: Vec<PackageChange>,
    run_changed: &[String],
    is_manifest: &dyn Fn(&str) -> bool,
) -> EnvVerdict {
    if changes.is_empty() {
        return EnvVerdict::Unchanged;
    }
    let manifests: Vec<String> = run_changed
        .iter()
        .filter(|p| is_manifest(p))
        .cloned()
        .collect();
    if manifests.is_empty() {
        EnvVerdict::Unexplained { changes }
    } else {
        EnvVerdict::Rebuild { manifests, changes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(rows: &[(&str, &str, &str)]) -> Manifest {
        let mut m = Manifest::default();
        for (tree, pkg, digest) in rows {
            m.trees.entry((*tree).into()).or_default().insert(
                (*pkg).into(),
                Package {
                    digest: (*digest).into(),
                    files: 1,
                },
            );
        }
        m
    }

    const SP: &str = ".venv/lib/python3.12/site-packages";

    #[test]
    fn compare_names_each_package() {
        let sealed = manifest(&[(SP, "pytest", "a"), (SP, "yaml", "b"), (SP, "old", "c")]);
        let now = manifest(&[(SP, "pytest", "A"), (SP, "yaml", "b"), (SP, "new", "d")]);
        let got: Vec<String> = compare(&sealed, &now)
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(
            got,
            [
                format!("{SP}/new added"),
                format!("{SP}/old removed"),
                format!("{SP}/pytest changed"),
            ]
        );
        assert!(compare(&sealed, &sealed).is_empty());
        // A whole tree gone is every package removed.
        assert_eq!(compare(&sealed, &Manifest::default()).len(), 3);
    }

    #[test]
    fn a_manifest_the_run_changed_explains_the_change() {
        let is_manifest = |p: &str| matches!(p, "pyproject.toml" | "package.json");
        let changes = compare(
            &manifest(&[(SP, "pytest", "a")]),
            &manifest(&[(SP, "pytest", "a"), (SP, "requests", "r")]),
        );
        match judge(
            changes.clone(),
            &["src/x.py".into(), "pyproject.toml".into()],
            &is_manifest,
        ) {
            EnvVerdict::Rebuild { manifests, .. } => assert_eq!(manifests, ["pyproject.toml"]),
            other => panic!("{other:?}"),
        }
        let v = judge(changes, &["src/x.py".into()], &is_manifest);
        assert!(
            v.finding()
                .is_some_and(|f| f.contains("site-packages/requests added")),
            "{v:?}"
        );
        assert_eq!(judge(Vec::new(), &[], &is_manifest), EnvVerdict::Unchanged);
    }
}
