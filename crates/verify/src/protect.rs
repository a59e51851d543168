//! The test-protection screen: did the agent reach "passing" by bending the tests?
//!
//! Pure functions over plain data. The caller (the engine) reads git and files and hands in a
//! run's baseline and current state; this module compares them and returns [`Finding`]s. It
//! reads nothing, runs nothing, prints nothing, and never panics: every input may have been
//! written by the agent, so inputs are bounded ([`MAX_SCREEN_BYTES`]) and so is the output
//! ([`MAX_FINDINGS`], [`MAX_HUNK_LINES`], [`MAX_LINE_CHARS`]).
//!
//! Three screens:
//! - [`compare_tests`] / [`compare_runs`]: a test that passed at the baseline and is now
//!   missing, skipped or expected-to-fail ([`Finding::TestGone`]), or a report that is gone
//!   ([`Finding::ReportMissing`]). A test that now *fails* is not a finding: that is a failing
//!   check, judged elsewhere.
//! - [`classify_path`]: which paths hold tests, expected output, runner configuration or
//!   collection hooks — a data table, `protect/paths.tsv`.
//! - [`screen_changes`]: changed files → deleted test files and changed runner configuration
//!   ([`Finding::TestFileChanged`], only the test-relevant part of mixed files such as
//!   `pyproject.toml` counts), and test files whose assertions were removed, disabled or made
//!   trivially true ([`Finding::AssertionsWeakened`], patterns per language in
//!   `protect/assertions.tsv`).
//!
//! What it is not: a proof. The screens are cheap line heuristics tuned to catch the usual ways
//! of bending tests and to stay quiet on ordinary test work (new tests, more assertions,
//! renames, reformatting). What a finding leads to (a message to the agent, a stop, a note for
//! review) is the engine's decision. `crates/verify/protect/README.md` documents the tables and
//! the rules; `tests/data/protect-cases.tsv` holds one row per attack and per ordinary change.

mod asserts;
mod hunk;
mod outcomes;
mod paths;
mod pattern;
mod scope;

use std::fmt;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::parse::TestStatus;

pub use outcomes::{compare_runs, compare_tests};

/// At most this many findings are returned by one call; a final [`Finding::Truncated`] counts
/// the rest.
pub const MAX_FINDINGS: usize = 100;
/// A file side larger than this is not screened line by line: a change to such a test or
/// configuration file is reported as [`Finding::TestFileChanged`] without a hunk.
pub const MAX_SCREEN_BYTES: usize = 1 << 20;
/// A hunk keeps at most this many changed lines (plus its two header lines and a note)...
pub const MAX_HUNK_LINES: usize = 24;
/// ...each cut to this many characters.
pub const MAX_LINE_CHARS: usize = 160;
/// Test ids in findings are cut to this many characters.
pub const MAX_ID_CHARS: usize = 500;
/// A [`Finding::AssertionsWeakened`] lists at most this many reasons.
pub const MAX_WHY: usize = 5;

/// What a path holds, as far as test protection is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PathClass {
    /// Test code (`test_*.py`, `*_test.go`, `tests/**`, ...). A new one is the run's own
    /// work; a deleted one is a finding; a changed one is screened for weakened assertions.
    TestFile,
    /// Recorded expected output (snapshots, golden files, Go `testdata/`). A new one is
    /// ordinary; a changed or deleted one is a finding (it can make a wrong result expected).
    Expectation,
    /// How tests are found, filtered and judged (`pytest.ini`, `jest.config.*`,
    /// `.cargo/config.toml`, the test part of `package.json`, ...). Any change to the
    /// test-relevant part, including adding or deleting the file, is a finding.
    RunnerConfig,
    /// Code that runs around other tests (`conftest.py`, jest setup files, bats helpers). Any
    /// change, including a new one, is a finding.
    CollectionHook,
    /// Anything else.
    Other,
}

impl PathClass {
    /// The name used in `protect/paths.tsv`.
    pub fn as_str(self) -> &'static str {
        match self {
            PathClass::TestFile => "test-file",
            PathClass::Expectation => "expectation",
            PathClass::RunnerConfig => "runner-config",
            PathClass::CollectionHook => "collection-hook",
            PathClass::Other => "other",
        }
    }

    fn parse(s: &str) -> Option<PathClass> {
        [
            PathClass::TestFile,
            PathClass::Expectation,
            PathClass::RunnerConfig,
            PathClass::CollectionHook,
            PathClass::Other,
        ]
        .into_iter()
        .find(|c| c.as_str() == s)
    }
}

/// How a file changed between the baseline and now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Added,
    Modified,
    Deleted,
}

/// One changed file, as the engine hands it in: the path relative to the repository root
/// (`/`-separated) and the text at the baseline and now (`None` = the file is absent).
/// A rename is a deletion plus an addition: moving a test file can take it out of collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

impl FileChange {
    /// The kind of change; `None` when both sides are absent or equal.
    pub fn change(&self) -> Option<Change> {
        match (&self.old, &self.new) {
            (None, Some(_)) => Some(Change::Added),
            (Some(_), None) => Some(Change::Deleted),
            (Some(a), Some(b)) if a != b => Some(Change::Modified),
            _ => None,
        }
    }
}

/// Why a test file's assertions count as weakened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Weakness {
    /// More assertion lines (or test definitions) were removed than added.
    FewerAssertions,
    /// A skip, ignore, expected-failure, conditional-compilation or early-exit marker was added.
    Marker { line: String },
    /// A focus marker (`it.only`, `fdescribe`) was added: it silently skips every other test.
    Focus { line: String },
    /// An added assertion cannot fail (`assert True`, `assert x == x`, `expect(a).toBe(a)`).
    TriviallyTrue { line: String },
    /// An existing assertion now expects other values: the same assertion with other literals
    /// (`assertEqual(add(2, 3), 5)` → `assertEqual(add(2, 3), -1)`). Making a test agree with
    /// the code is not making the code right; a reviewer decides.
    ExpectationChanged { from: String, to: String },
}

/// One thing the screen found. Serialized with a `kind` tag (`test_gone`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Finding {
    /// A test that passed at the baseline is now missing (no longer collected, deselected),
    /// skipped or expected to fail. `now` is its current status, `None` when it is missing.
    TestGone {
        check: String,
        id: String,
        now: Option<TestStatus>,
    },
    /// A test that FAILED at the baseline is now skipped, xfailed or no longer run: put out of
    /// the way rather than fixed (never red to green).
    FailingTestGone {
        check: String,
        id: String,
        now: Option<TestStatus>,
    },
    /// A test file was deleted, an expectation changed or was deleted, or the test-relevant part
    /// of a runner configuration or collection hook was added, changed or deleted. `hunk` is a
    /// short unified-diff-like excerpt of the relevant lines; `None` when the file was too large
    /// to screen.
    TestFileChanged {
        path: String,
        class: PathClass,
        change: Change,
        hunk: Option<String>,
    },
    /// A test file's assertions were removed, disabled or made trivially true (or a new test
    /// file focuses the run on itself). `removed` and `added` count assertion lines (and test
    /// definitions) that differ between the two versions.
    AssertionsWeakened {
        path: String,
        removed: u32,
        added: u32,
        why: Vec<Weakness>,
        hunk: String,
    },
    /// A check produced a test report at the baseline and produces none (or an unreadable one)
    /// now.
    ReportMissing { check: String },
    /// More findings than [`MAX_FINDINGS`]; this many were left off.
    Truncated { omitted: u64 },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::TestGone { check, id, now } => {
                let now = match now {
                    None => "is no longer run",
                    Some(TestStatus::Skipped) => "is now skipped",
                    Some(TestStatus::XFailed) => "is now marked as an expected failure",
                    Some(TestStatus::Passed) => "still passes",
                    Some(TestStatus::Failed) => "now fails",
                };
                write!(
                    f,
                    "test `{id}` of check `{check}` passed at the baseline and {now}"
                )
            }
            Finding::FailingTestGone { check, id, now } => {
                let now = match now {
                    None => "is no longer run",
                    Some(TestStatus::Skipped) => "is now skipped",
                    Some(TestStatus::XFailed) => "is now marked as an expected failure",
                    Some(TestStatus::Passed) => "passes",
                    Some(TestStatus::Failed) => "still fails",
                };
                write!(
                    f,
                    "test `{id}` of check `{check}` failed at the baseline and {now}: it was put out of the way, not fixed"
                )
            }
            Finding::TestFileChanged {
                path,
                class,
                change,
                ..
            } => {
                let what = match class {
                    PathClass::TestFile => "test file",
                    PathClass::Expectation => "expected-output file",
                    PathClass::RunnerConfig => "test runner configuration",
                    PathClass::CollectionHook => "test collection hook",
                    PathClass::Other => "file",
                };
                let how = match change {
                    Change::Added => "added",
                    Change::Modified => "changed",
                    Change::Deleted => "deleted",
                };
                write!(f, "{what} `{path}` was {how}")
            }
            Finding::AssertionsWeakened {
                path,
                removed,
                added,
                why,
                ..
            } => {
                write!(f, "assertions in `{path}` were weakened")?;
                let mut reasons: Vec<String> = Vec::new();
                for w in why {
                    reasons.push(match w {
                        Weakness::FewerAssertions => {
                            format!("{removed} assertion or test lines removed, {added} added")
                        }
                        Weakness::Marker { line } => format!("marker added: `{line}`"),
                        Weakness::Focus { line } => format!("focus marker added: `{line}`"),
                        Weakness::TriviallyTrue { line } => {
                            format!("assertion that cannot fail: `{line}`")
                        }
                        Weakness::ExpectationChanged { from, to } => {
                            format!("expectation changed: `{from}` became `{to}`")
                        }
                    });
                }
                if !reasons.is_empty() {
                    write!(f, " ({})", reasons.join("; "))?;
                }
                Ok(())
            }
            Finding::ReportMissing { check } => write!(
                f,
                "check `{check}` wrote a test report at the baseline and has no readable one now"
            ),
            Finding::Truncated { omitted } => write!(f, "{omitted} more findings left off"),
        }
    }
}

/// An embedded table that does not load. Only a defect in this crate's data can cause it; a
/// test loads the tables.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}:{line}: {message}")]
pub struct TableError {
    pub origin: String,
    pub line: usize,
    pub message: String,
}

/// The screen's rules: the path table and the per-language assertion table, parsed and with
/// every row's example checked.
#[derive(Debug)]
pub struct Screen {
    paths: paths::PathTable,
    langs: asserts::LangTable,
}

/// The embedded path table (`protect/paths.tsv`), as `(origin, text)`.
pub const PATHS_TSV: (&str, &str) = ("paths.tsv", include_str!("../protect/paths.tsv"));
/// The embedded assertion table (`protect/assertions.tsv`), as `(origin, text)`.
pub const ASSERTIONS_TSV: (&str, &str) =
    ("assertions.tsv", include_str!("../protect/assertions.tsv"));

static BUILTIN: LazyLock<Result<Screen, TableError>> =
    LazyLock::new(|| Screen::from_tables(PATHS_TSV, ASSERTIONS_TSV));

impl Screen {
    /// The screen built from the embedded tables.
    pub fn builtin() -> Result<&'static Screen, TableError> {
        BUILTIN.as_ref().map_err(Clone::clone)
    }

    /// A screen from table texts (`(origin, text)`), e.g. the embedded ones plus a project's
    /// own rows appended. Every row is checked, including its example.
    pub fn from_tables(
        paths: (&str, &str),
        assertions: (&str, &str),
    ) -> Result<Screen, TableError> {
        let langs = asserts::LangTable::parse(assertions.0, assertions.1)?;
        let paths = paths::PathTable::parse(paths.0, paths.1)?;
        Ok(Screen { paths, langs })
    }

    /// See [`classify_path`].
    pub fn classify_path(&self, path: &str) -> PathClass {
        self.paths.classify(&normalize_path(path)).0
    }

    /// See [`screen_changes`].
    pub fn screen_changes(&self, changes: &[FileChange]) -> Vec<Finding> {
        let mut out = Findings::default();
        for c in changes {
            self.screen_one(c, &mut out);
        }
        out.finish()
    }

    fn screen_one(&self, c: &FileChange, out: &mut Findings) {
        let Some(change) = c.change() else { return };
        let path = normalize_path(&c.path);
        let (class, scope) = self.paths.classify(&path);
        let old = c.old.as_deref().unwrap_or("");
        let new = c.new.as_deref().unwrap_or("");
        let oversized = old.len() > MAX_SCREEN_BYTES || new.len() > MAX_SCREEN_BYTES;
        let changed = |hunk: Option<String>| Finding::TestFileChanged {
            path: path.clone(),
            class,
            change,
            hunk,
        };
        match class {
            PathClass::Other => {
                if change == Change::Modified
                    && !oversized
                    && let Some(lang) = self.langs.for_path(&path)
                {
                    out.extend(lang.screen_inline(&path, old, new));
                }
            }
            PathClass::TestFile => match change {
                Change::Deleted => {
                    let hunk = (!oversized).then(|| match self.langs.for_path(&path) {
                        Some(lang) => lang.deleted_hunk(&path, old),
                        None => hunk::span(&path, &hunk::lines(old), &[]),
                    });
                    out.push(changed(hunk));
                }
                Change::Added | Change::Modified if oversized => {
                    // Too large to screen line by line: a new one is still the run's own work,
                    // a changed one is reported unread rather than trusted.
                    if change == Change::Modified {
                        out.push(changed(None));
                    }
                }
                Change::Added | Change::Modified => {
                    if let Some(lang) = self.langs.for_path(&path) {
                        out.extend(lang.screen(&path, old, new, change == Change::Added));
                    }
                }
            },
            PathClass::Expectation => {
                if change != Change::Added {
                    let hunk = (!oversized)
                        .then(|| hunk::span(&path, &hunk::lines(old), &hunk::lines(new)));
                    out.push(changed(hunk));
                }
            }
            PathClass::RunnerConfig | PathClass::CollectionHook => {
                if oversized {
                    out.push(changed(None));
                    return;
                }
                let (a, b) = (scope.extract(old), scope.extract(new));
                if a != b {
                    out.push(changed(Some(hunk::span(&path, &a, &b))));
                }
            }
        }
    }
}

/// What a path holds, from the embedded table `protect/paths.tsv` (first matching row wins).
/// `path` is relative to the repository root; `./` and `\` are normalized.
///
/// If the embedded table failed to load (a defect caught by this crate's tests), every path is
/// a [`PathClass::RunnerConfig`]: the screen fails closed.
pub fn classify_path(path: &str) -> PathClass {
    match Screen::builtin() {
        Ok(s) => s.classify_path(path),
        Err(_) => PathClass::RunnerConfig,
    }
}

/// Screens a run's changed files (baseline → now) with the embedded tables: deleted test files,
/// changed expectations, changed test-relevant configuration and collection hooks, weakened
/// assertions in test files (and in Rust's inline `#[cfg(test)]` modules). A new test file is
/// not a finding unless it focuses the run on itself (`it.only`).
///
/// If the embedded tables failed to load (a defect caught by this crate's tests), every change
/// is reported as a changed runner configuration: the screen fails closed.
pub fn screen_changes(changes: &[FileChange]) -> Vec<Finding> {
    match Screen::builtin() {
        Ok(s) => s.screen_changes(changes),
        Err(_) => {
            let mut out = Findings::default();
            for c in changes {
                if let Some(change) = c.change() {
                    out.push(Finding::TestFileChanged {
                        path: normalize_path(&c.path),
                        class: PathClass::RunnerConfig,
                        change,
                        hunk: None,
                    });
                }
            }
            out.finish()
        }
    }
}

/// `./a\b` → `a/b`.
fn normalize_path(path: &str) -> String {
    let p = path.replace('\\', "/");
    let mut s = p.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.trim_start_matches('/').to_string()
}

/// A bounded list of findings: past [`MAX_FINDINGS`] only a count is kept.
#[derive(Default)]
struct Findings {
    items: Vec<Finding>,
    omitted: u64,
}

impl Findings {
    fn push(&mut self, f: Finding) {
        if self.items.len() < MAX_FINDINGS {
            self.items.push(f);
        } else {
            self.omitted += 1;
        }
    }

    fn extend(&mut self, fs: impl IntoIterator<Item = Finding>) {
        for f in fs {
            self.push(f);
        }
    }

    fn finish(mut self) -> Vec<Finding> {
        if self.omitted > 0 {
            self.items.push(Finding::Truncated {
                omitted: self.omitted,
            });
        }
        self.items
    }
}

/// Cuts `s` to `max` characters, marking the cut with `…`.
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_tables_load_and_every_example_holds() {
        let s = Screen::builtin();
        assert!(s.is_ok(), "{:?}", s.err());
    }

    #[test]
    fn change_kind_follows_the_two_sides() {
        let fc = |old: Option<&str>, new: Option<&str>| FileChange {
            path: "a".into(),
            old: old.map(String::from),
            new: new.map(String::from),
        };
        assert_eq!(fc(None, Some("")).change(), Some(Change::Added));
        assert_eq!(fc(Some(""), None).change(), Some(Change::Deleted));
        assert_eq!(fc(Some("a"), Some("b")).change(), Some(Change::Modified));
        assert_eq!(fc(Some("a"), Some("a")).change(), None);
        assert_eq!(fc(None, None).change(), None);
    }

    #[test]
    fn paths_are_normalized() {
        assert_eq!(normalize_path("./tests\\a.py"), "tests/a.py");
        assert_eq!(normalize_path("/x"), "x");
        assert_eq!(classify_path("./tests/test_a.py"), PathClass::TestFile);
    }

    #[test]
    fn findings_are_bounded_with_a_count_of_the_rest() {
        let mut f = Findings::default();
        for i in 0..(MAX_FINDINGS + 7) {
            f.push(Finding::ReportMissing {
                check: i.to_string(),
            });
        }
        let v = f.finish();
        assert_eq!(v.len(), MAX_FINDINGS + 1);
        assert_eq!(v.last(), Some(&Finding::Truncated { omitted: 7 }));
    }

    #[test]
    fn cut_marks_the_cut() {
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("éé€", 2), "éé…");
    }
}
