//! Scope and the assumptions pawl can check (issue 35 point 2): whether a run's changes stay
//! within what the goal's targeted failing tests exercise at the baseline, and which of the
//! spec gate's assumptions the run's facts verify.
//!
//! **Scope.** In scope: the files the targeted failing tests exercise at the baseline (their
//! imports, transitively, and the files their failures name: the caller reads them), the paths
//! the goal names, a changed file an in-scope changed file imports in the run's tree (a new
//! module the fix uses), and every changed test (tests are judged apart: the test-protection
//! screen, the locked run, new tests proven on the pre-run code). Every other change is
//! *outside*: listed always, and REVIEW when the outside changes are more than
//! [`Limits::files`] files or more than [`Limits::lines`] lines in all (`[verify]
//! scope_max_files`, `scope_max_lines`; sealed with the run). With no targeted failing test
//! (a green baseline, a goal that targets none), scope is not checked ([`Decision::Unchecked`]):
//! the paths the goal names only widen a scope, and an assumption on it stays one.
//!
//! **Assumptions.** The spec gate records a goal's gaps as assumption criteria (`assumed
//! (scope): …`). [`check_assumption`] says which the run verified, with the evidence: scope by
//! [`judge`], constraints by the locked run (every test that passed at the baseline passes) and
//! the public interface (unchanged, or its change listed), success by a test gone red → green.
//! The outcome ("the smallest change that makes the goal true") is never checked: it stays an
//! assumption and keeps the run from SHIP.
//!
//! What this is not: reading trees and imports (pawl-verify's `roles::reach`, the engine), the
//! verdict (`crate::proof::judge` reads [`Decision::Review`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How much change outside scope is listed without asking the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// More changed files than this outside scope is REVIEW.
    pub files: usize,
    /// More changed lines (added and removed) than this outside scope is REVIEW.
    pub lines: u64,
}

impl Default for Limits {
    /// One file and 20 lines: a changelog entry or a comment beside the fix, not a second piece
    /// of work.
    fn default() -> Self {
        Limits {
            files: 1,
            lines: 20,
        }
    }
}

/// One path the run changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedFile {
    pub path: String,
    /// Lines added and removed (0 for a binary file).
    pub lines: u64,
    /// New in the run's tree.
    pub added: bool,
    /// A test (by the roles of the locked run).
    pub test: bool,
}

/// What scope is judged on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// What the targeted failing tests exercise at the baseline, each with why.
    pub exercised: BTreeMap<String, String>,
    /// Paths the goal names (a file, or a folder: everything under it).
    pub named: Vec<String>,
    /// What each changed file imports in the run's tree (resolved to files).
    pub imports: BTreeMap<String, Vec<String>>,
    pub changes: Vec<ChangedFile>,
}

/// What scope says about the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Nothing targeted, nothing named: what the work may touch is not known.
    Unchecked,
    /// Every change is in scope.
    Within,
    /// Changes outside scope, within the limits: listed.
    Listed,
    /// Changes outside scope over the limits: a person must say they are part of the work.
    Review,
}

/// A change in scope, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inside {
    pub path: String,
    pub why: String,
}

/// A change outside scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outside {
    pub path: String,
    pub lines: u64,
}

/// The scope of a run's changes, as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    pub decision: Decision,
    pub inside: Vec<Inside>,
    pub outside: Vec<Outside>,
    pub limits: Limits,
    /// The decision in one sentence.
    pub why: String,
}

impl Scope {
    /// The question a REVIEW asks (`None` unless the decision is [`Decision::Review`]).
    pub fn question(&self) -> Option<String> {
        (self.decision == Decision::Review).then(|| {
            let paths: Vec<String> = self
                .outside
                .iter()
                .take(8)
                .map(|o| format!("`{}`", o.path))
                .collect();
            format!(
                "the run changed {} outside what the goal's failing tests exercise ({}): are they part of the work? (accept with `pawl accept --changes \"<why>\"`, or send the work back)",
                paths.join(", "),
                self.why
            )
        })
    }

    /// Lines changed outside scope, in all.
    pub fn outside_lines(&self) -> u64 {
        self.outside.iter().map(|o| o.lines).sum()
    }
}

/// `calc.py` is named by the goal's `calc.py`, `src/calc.py`, or a folder `src`.
fn named_by(path: &str, named: &[String]) -> bool {
    named.iter().any(|n| {
        let n = n.trim_start_matches("./").trim_end_matches('/');
        !n.is_empty()
            && (path == n
                || path.ends_with(&format!("/{n}"))
                || path.starts_with(&format!("{n}/"))
                || path.contains(&format!("/{n}/")))
    })
}

/// The one rule for scope (see the module's documentation).
pub fn judge(f: &Facts, limits: Limits) -> Scope {
    let mut inside: BTreeMap<String, String> = BTreeMap::new();
    for c in &f.changes {
        if let Some(why) = f.exercised.get(&c.path) {
            inside.insert(c.path.clone(), why.clone());
        } else if named_by(&c.path, &f.named) {
            inside.insert(c.path.clone(), "the goal names it".into());
        } else if c.test {
            // The run's tests are judged apart: the test screen reads them, the locked run
            // leaves them out, a new one must fail on the pre-run code to prove anything.
            inside.insert(
                c.path.clone(),
                "a test (judged by the test screen and the locked run)".into(),
            );
        }
    }
    // New modules the fix imports: until nothing more joins.
    loop {
        let mut joined: Vec<(String, String)> = Vec::new();
        for c in f.changes.iter().filter(|c| !inside.contains_key(&c.path)) {
            // Only code in scope widens it: a test the run wrote does not bring in what it
            // imports (tests are in scope because they are judged apart).
            let is_test = |p: &str| f.changes.iter().any(|c| c.path == p && c.test);
            let by = inside
                .keys()
                .filter(|i| !is_test(i))
                .find(|i| f.imports.get(*i).is_some_and(|im| im.contains(&c.path)));
            if let Some(by) = by {
                joined.push((
                    c.path.clone(),
                    format!("imported by `{by}` in the run's tree"),
                ));
            }
        }
        if joined.is_empty() {
            break;
        }
        inside.extend(joined);
    }
    let outside: Vec<Outside> = f
        .changes
        .iter()
        .filter(|c| !inside.contains_key(&c.path))
        .map(|c| Outside {
            path: c.path.clone(),
            lines: c.lines,
        })
        .collect();
    let inside: Vec<Inside> = f
        .changes
        .iter()
        .filter_map(|c| {
            Some(Inside {
                path: c.path.clone(),
                why: inside.get(&c.path)?.clone(),
            })
        })
        .collect();
    let lines: u64 = outside.iter().map(|o| o.lines).sum();
    let (decision, why) = if f.exercised.is_empty() {
        (
            Decision::Unchecked,
            "the goal targets no failing test of the baseline: what the work may touch is not known"
                .to_string(),
        )
    } else if outside.is_empty() {
        (
            Decision::Within,
            format!(
                "{} changed file(s), all within what the targeted failing tests exercise or the goal names",
                inside.len()
            ),
        )
    } else if outside.len() > limits.files || lines > limits.lines {
        (
            Decision::Review,
            format!(
                "{} file(s), {lines} line(s) outside; the limit is {} file(s) and {} line(s)",
                outside.len(),
                limits.files,
                limits.lines
            ),
        )
    } else {
        (
            Decision::Listed,
            format!(
                "{} file(s), {lines} line(s) outside, within the limit of {} file(s) and {} line(s)",
                outside.len(),
                limits.files,
                limits.lines
            ),
        )
    };
    Scope {
        decision,
        inside,
        outside,
        limits,
        why,
    }
}

/// How the public interface (exported symbols, by parser) changed in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterfaceChange {
    pub path: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<String>,
}

impl InterfaceChange {
    /// `calc.py: removed `sub`; added `subtract``.
    pub fn line(&self) -> String {
        let list = |v: &[String]| {
            v.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut parts = Vec::new();
        if !self.removed.is_empty() {
            parts.push(format!("removed {}", list(&self.removed)));
        }
        if !self.added.is_empty() {
            parts.push(format!("added {}", list(&self.added)));
        }
        format!("{}: {}", self.path, parts.join("; "))
    }
}

/// The public interface of the run's changed product files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interface {
    /// Files whose exported symbols changed.
    pub changes: Vec<InterfaceChange>,
    /// Changed product files no parser reads (their interface is not known).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
}

/// What a run's verification established, for [`check_assumption`].
#[derive(Debug, Clone, Default)]
pub struct Checks<'a> {
    pub scope: Option<&'a Scope>,
    /// The locked run holds: every test that passed at the baseline passes on the baseline
    /// plus the run's product changes (its lines say where a runner is judged by counts).
    pub baseline_kept: bool,
    pub interface: Option<&'a Interface>,
    pub red_to_green: &'a [String],
}

/// The dimension of an assumption criterion's text (`assumed (scope): …` → `scope`), as the
/// spec gate writes it.
pub fn assumption_dimension(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("assumed (")?;
    let (dim, _) = rest.split_once("):")?;
    Some(dim)
}

/// The evidence that verifies an assumption of `dimension`, or `None`: not checkable, or not
/// true of this run.
pub fn check_assumption(dimension: &str, c: &Checks<'_>) -> Option<String> {
    match dimension {
        "scope" => {
            let s = c.scope?;
            match s.decision {
                Decision::Within | Decision::Listed => Some(format!("scope: {}", s.why)),
                Decision::Unchecked | Decision::Review => None,
            }
        }
        "constraints" => {
            if !c.baseline_kept {
                return None;
            }
            let i = c.interface?;
            if !i.unread.is_empty() {
                return None;
            }
            let api = if i.changes.is_empty() {
                "the public interface is unchanged".to_string()
            } else {
                format!(
                    "the public interface changed, listed: {}",
                    i.changes
                        .iter()
                        .map(InterfaceChange::line)
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            };
            Some(format!(
                "every test that passed at the baseline passes in the locked run; {api}"
            ))
        }
        "success" => (!c.red_to_green.is_empty()).then(|| {
            format!(
                "red → green, both run by pawl: {}",
                c.red_to_green
                    .iter()
                    .take(4)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: &str, lines: u64, added: bool, test: bool) -> ChangedFile {
        ChangedFile {
            path: path.into(),
            lines,
            added,
            test,
        }
    }

    /// The base facts: `test_calc.py` (targeted) imports `calc.py`.
    fn facts(changes: Vec<ChangedFile>) -> Facts {
        Facts {
            exercised: [
                ("test_calc.py".to_string(), "the targeted test".to_string()),
                (
                    "calc.py".to_string(),
                    "imported by test_calc.py".to_string(),
                ),
            ]
            .into(),
            ..Facts::default()
        }
        .with_changes(changes)
    }

    impl Facts {
        fn with_changes(mut self, changes: Vec<ChangedFile>) -> Facts {
            self.changes = changes;
            self
        }
    }

    /// Rows: the run's changes (path, lines, added, test), imports in the run's tree, the
    /// goal's named paths → the decision and what is outside.
    #[test]
    fn the_rule_for_scope() {
        type Row = (
            &'static str,
            Vec<ChangedFile>,
            Vec<(&'static str, &'static str)>,
            Vec<&'static str>,
            Decision,
            Vec<&'static str>,
        );
        let rows: Vec<Row> = vec![
            (
                "the fix alone",
                vec![change("calc.py", 2, false, false)],
                vec![],
                vec![],
                Decision::Within,
                vec![],
            ),
            (
                "the fix and a new module it imports",
                vec![
                    change("calc.py", 2, false, false),
                    change("arith.py", 30, true, false),
                ],
                vec![("calc.py", "arith.py")],
                vec![],
                Decision::Within,
                vec![],
            ),
            (
                "a new module of a new module the fix imports",
                vec![
                    change("calc.py", 2, false, false),
                    change("lib/a.py", 30, true, false),
                    change("lib/b.py", 30, true, false),
                ],
                vec![("calc.py", "lib/a.py"), ("lib/a.py", "lib/b.py")],
                vec![],
                Decision::Within,
                vec![],
            ),
            (
                "a new test of the fixed module",
                vec![
                    change("calc.py", 2, false, false),
                    change("test_more.py", 40, true, true),
                ],
                vec![("test_more.py", "calc.py")],
                vec![],
                Decision::Within,
                vec![],
            ),
            (
                "a new module nothing imports is outside, however small",
                vec![
                    change("calc.py", 2, false, false),
                    change("extra.py", 3, true, false),
                ],
                vec![],
                vec![],
                Decision::Listed,
                vec!["extra.py"],
            ),
            (
                "a changelog line beside the fix",
                vec![
                    change("calc.py", 2, false, false),
                    change("CHANGELOG.md", 1, false, false),
                ],
                vec![],
                vec![],
                Decision::Listed,
                vec!["CHANGELOG.md"],
            ),
            (
                "an unrelated module, the README and a new script",
                vec![
                    change("calc.py", 2, false, false),
                    change("report.py", 5, false, false),
                    change("README.md", 2, false, false),
                    change("deploy.sh", 2, true, false),
                ],
                vec![],
                vec![],
                Decision::Review,
                vec!["report.py", "README.md", "deploy.sh"],
            ),
            (
                "one file outside, but a large change",
                vec![
                    change("calc.py", 2, false, false),
                    change("LICENSE", 21, false, false),
                ],
                vec![],
                vec![],
                Decision::Review,
                vec!["LICENSE"],
            ),
            (
                "a configuration file the goal names",
                vec![
                    change("calc.py", 2, false, false),
                    change("pytest.ini", 3, true, false),
                    change("README.md", 1, false, false),
                ],
                vec![],
                vec!["pytest.ini"],
                Decision::Listed,
                vec!["README.md"],
            ),
            (
                "a folder the goal names",
                vec![
                    change("calc.py", 2, false, false),
                    change("docs/a.md", 30, false, false),
                    change("docs/b.md", 30, false, false),
                ],
                vec![],
                vec!["docs/"],
                Decision::Within,
                vec![],
            ),
            (
                "a test is judged apart; the untested module it tests is outside",
                vec![
                    change("calc.py", 2, false, false),
                    change("test_report.py", 10, true, true),
                    change("report.py", 30, false, false),
                ],
                vec![("test_report.py", "report.py")],
                vec![],
                Decision::Review,
                vec!["report.py"],
            ),
            (
                "an in-scope file importing an existing unrelated module takes it in",
                vec![
                    change("calc.py", 2, false, false),
                    change("util.py", 10, false, false),
                ],
                vec![("calc.py", "util.py")],
                vec![],
                Decision::Within,
                vec![],
            ),
        ];
        for (name, changes, imports, named, want, out) in rows {
            let mut f = facts(changes);
            for (from, to) in imports {
                f.imports
                    .entry(from.to_string())
                    .or_default()
                    .push(to.to_string());
            }
            f.named = named.into_iter().map(str::to_string).collect();
            let s = judge(&f, Limits::default());
            assert_eq!(s.decision, want, "{name}: {s:?}");
            let got: Vec<&str> = s.outside.iter().map(|o| o.path.as_str()).collect();
            assert_eq!(got, out, "{name}");
            assert_eq!(s.inside.len() + s.outside.len(), f.changes.len(), "{name}");
            assert_eq!(s.question().is_some(), want == Decision::Review, "{name}");
        }
    }

    #[test]
    fn nothing_targeted_is_unchecked_and_the_limits_are_configurable() {
        let f = Facts {
            changes: vec![change("a.py", 100, false, false)],
            ..Facts::default()
        };
        assert_eq!(judge(&f, Limits::default()).decision, Decision::Unchecked);
        // A green baseline: the goal's paths alone do not make a scope.
        let f = Facts {
            named: vec!["shared.txt".into()],
            changes: vec![
                change("shared.txt", 1, false, false),
                change("S1.txt", 1, true, false),
                change("S2.txt", 1, true, false),
            ],
            ..Facts::default()
        };
        assert_eq!(judge(&f, Limits::default()).decision, Decision::Unchecked);
        let f = facts(vec![
            change("calc.py", 2, false, false),
            change("a.md", 10, false, false),
            change("b.md", 10, false, false),
        ]);
        assert_eq!(judge(&f, Limits::default()).decision, Decision::Review);
        let wide = Limits {
            files: 2,
            lines: 50,
        };
        assert_eq!(judge(&f, wide).decision, Decision::Listed);
    }

    #[test]
    fn assumptions_pawl_checks_and_the_one_it_cannot() {
        let within = judge(
            &facts(vec![change("calc.py", 2, false, false)]),
            Limits::default(),
        );
        let review = judge(
            &facts(vec![
                change("calc.py", 2, false, false),
                change("x.md", 99, false, false),
            ]),
            Limits::default(),
        );
        let same = Interface::default();
        let changed = Interface {
            changes: vec![InterfaceChange {
                path: "calc.py".into(),
                removed: vec!["sub".into()],
                added: vec![],
            }],
            unread: vec![],
        };
        let unread = Interface {
            changes: vec![],
            unread: vec!["calc.bin".into()],
        };
        let r2g = vec!["test: t::neg".to_string()];
        let base = Checks {
            scope: Some(&within),
            baseline_kept: true,
            interface: Some(&same),
            red_to_green: &r2g,
        };
        // (dimension, checks) -> verified?
        let rows: Vec<(&str, Checks<'_>, bool)> = vec![
            ("scope", base.clone(), true),
            (
                "scope",
                Checks {
                    scope: Some(&review),
                    ..base.clone()
                },
                false,
            ),
            (
                "scope",
                Checks {
                    scope: None,
                    ..base.clone()
                },
                false,
            ),
            ("constraints", base.clone(), true),
            (
                "constraints",
                Checks {
                    interface: Some(&changed),
                    ..base.clone()
                },
                true,
            ),
            (
                "constraints",
                Checks {
                    baseline_kept: false,
                    ..base.clone()
                },
                false,
            ),
            (
                "constraints",
                Checks {
                    interface: Some(&unread),
                    ..base.clone()
                },
                false,
            ),
            ("success", base.clone(), true),
            (
                "success",
                Checks {
                    red_to_green: &[],
                    ..base.clone()
                },
                false,
            ),
            // Never checkable: what the goal means.
            ("outcome", base.clone(), false),
        ];
        for (dim, c, want) in rows {
            assert_eq!(check_assumption(dim, &c).is_some(), want, "{dim}");
        }
        let ev = check_assumption(
            "constraints",
            &Checks {
                interface: Some(&changed),
                ..base
            },
        )
        .unwrap_or_default();
        assert!(ev.contains("calc.py: removed `sub`"), "{ev}");
        assert_eq!(
            assumption_dimension("assumed (scope): only the code the goal names"),
            Some("scope")
        );
        assert_eq!(assumption_dimension("add() adds"), None);
    }
}
