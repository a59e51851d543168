//! Which failure class a failed check belongs to, and the one message that says why.
//!
//! The end of the process decides first (a timeout is `timeout`; a command that cannot be found,
//! exit 127, or cannot be executed, exit 126, is `environment`), then failing tests (`test`,
//! unless their first failure is plainly environmental, infrastructural or external, e.g. a
//! missing module), then compiler and linter errors (`code`: the first error whole, with its
//! location and code excerpt, not the end of the output), then pawl-core's message table on
//! the output. Failing tests under exit 0
//! are always `test`: the runner's exit code lied. The table itself lives in
//! `pawl_core::failure`; this module only decides what text to hand it.

use pawl_core::failure::{FailureCategory, classify};

use crate::diagnostics::Diagnostics;
use crate::outcome::{CheckEnd, CheckFailure};
use crate::parse::{TestStatus, TestSummary};

/// Lines of output kept in a failure message when no test runner explained the failure.
const MESSAGE_LINES: usize = 12;
/// At most this many failing names are listed in a message.
const MESSAGE_NAMES: usize = 5;

/// The failure of a check that did not pass; `None` for a pass or a skipped check.
pub fn classify_check(
    name: &str,
    end: &CheckEnd,
    passed: bool,
    tests: Option<&TestSummary>,
    diagnostics: Option<&Diagnostics>,
    tail: &str,
) -> Option<CheckFailure> {
    if passed || matches!(end, CheckEnd::Skipped { .. }) {
        return None;
    }
    let useful = last_lines(tail, MESSAGE_LINES);
    // Failing tests under exit 0 (`|| true`, a wrapper that loses the code): a test failure,
    // whatever the first failure says, and the message says the exit code was wrong.
    if let (CheckEnd::Exited { code: 0 }, Some(t)) = (end, tests)
        && t.reported_failures() > 0
    {
        let first = t.first_failure.clone().unwrap_or_else(|| useful.clone());
        return Some(CheckFailure {
            category: FailureCategory::Test,
            message: format!(
                "{name}: the test runner reported {} failing test(s) but exited 0 ({}): {}",
                t.reported_failures(),
                failing_names(t),
                first_lines(&first, 3)
            ),
        });
    }
    let (category, detail) = match end {
        CheckEnd::TimedOut { .. } | CheckEnd::IdleTimedOut => {
            (FailureCategory::Timeout, end.describe())
        }
        CheckEnd::SpawnFailed { .. } => (FailureCategory::Environment, end.describe()),
        CheckEnd::Exited { code: 126 | 127 } => (
            FailureCategory::Environment,
            format!(
                "{} (command not found or not executable): {useful}",
                end.describe()
            ),
        ),
        CheckEnd::Stopped => (FailureCategory::Infra, end.describe()),
        _ => match (
            tests.filter(|t| t.failed > 0),
            diagnostics.filter(|d| d.errors > 0),
        ) {
            (None, Some(d)) => {
                let first = d.first_error.clone().unwrap_or_default();
                // The header alone: a code excerpt may hold any word (`timeout`, `503`).
                let head = first.lines().next().unwrap_or("");
                let category = match classify(head) {
                    c @ (FailureCategory::Environment
                    | FailureCategory::Infra
                    | FailureCategory::External) => c,
                    _ => FailureCategory::Code,
                };
                (
                    category,
                    format!("{}: {}:\n{first}", end.describe(), d.describe()),
                )
            }
            (Some(t), _) => {
                let first = t.first_failure.clone().unwrap_or_else(|| useful.clone());
                // The runner says the test failed: a test class unless its first failure is
                // plainly the environment's, the network's or a service's — read from its prose,
                // not from the names in it (`tests/test_timeout.py`, `async_timeout`). A test's
                // own timeout is the test's failure; pawl's timeout of the check is the end's.
                let category = match classify(&prose(&first)) {
                    c @ (FailureCategory::Environment
                    | FailureCategory::Infra
                    | FailureCategory::External) => c,
                    _ => FailureCategory::Test,
                };
                (
                    category,
                    format!(
                        "{} failed ({}): {}",
                        plural(t.failed, "test"),
                        failing_names(t),
                        first_lines(&first, 3)
                    ),
                )
            }
            (None, None) => (classify(&useful), format!("{}: {}", end.describe(), useful)),
        },
    };
    Some(CheckFailure {
        category,
        message: format!("{name}: {}", detail.trim()),
    })
}

/// `text` without the words that are names (paths, dotted or snake_case identifiers,
/// `file::test` ids): what a message says, not what it names.
fn prose(text: &str) -> String {
    text.split_whitespace()
        .filter(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            !(w.contains('_') || w.contains('/') || w.contains("::") || w.contains('.'))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first failing names, `a, b, c, d, e, ...`; the failed test ids when the runner's output
/// gave no names.
fn failing_names(t: &TestSummary) -> String {
    let mut names: Vec<&str> = t.failing.iter().map(String::as_str).collect();
    if names.is_empty() {
        names = t
            .tests
            .iter()
            .filter(|o| o.status == TestStatus::Failed)
            .map(|o| o.id.as_str())
            .collect();
    }
    let more = names.len() > MESSAGE_NAMES;
    names.truncate(MESSAGE_NAMES);
    if more {
        names.push("...");
    }
    names.join(", ")
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The last `n` non-blank lines of a tail, without the `out| ` / `err| ` prefixes and without
/// tables (a coverage report such as nyc's after the tests is not why a check failed), joined
/// by ` | ` so the message stays one line.
fn last_lines(tail: &str, n: usize) -> String {
    let lines: Vec<&str> = tail
        .lines()
        .map(|l| {
            l.strip_prefix("out| ")
                .or_else(|| l.strip_prefix("err| "))
                .unwrap_or(l)
                .trim_end()
        })
        .filter(|l| !l.trim().is_empty() && !is_table_line(l))
        .collect();
    let start = lines.len().saturating_sub(n);
    lines.get(start..).unwrap_or_default().join(" | ")
}

/// A row or rule of a text table: `----|----|---`, `File | % Stmts | ...`, `calc.js | 100 | ...`.
fn is_table_line(line: &str) -> bool {
    let t = line.trim();
    t.matches('|').count() >= 3
        || t.len() >= 10 && t.chars().all(|c| matches!(c, '-' | '|' | '=' | '+' | ' '))
}

fn first_lines(text: &str, n: usize) -> String {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .collect::<Vec<_>>()
        .join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Runner;

    fn summary(failed: u64, first: &str) -> TestSummary {
        TestSummary {
            runner: Runner::Unittest,
            passed: 1,
            failed,
            skipped: 0,
            failing: vec!["test_a".into(), "test_b".into()],
            first_failure: Some(first.into()),
            tests: Vec::new(),
            ids: crate::parse::IdCoverage::default(),
        }
    }

    #[test]
    fn the_end_decides_first() {
        let c = |end: CheckEnd| {
            classify_check("test", &end, false, None, None, "err| boom\n")
                .unwrap()
                .category
        };
        assert_eq!(
            c(CheckEnd::TimedOut { after_ms: 2000 }),
            FailureCategory::Timeout
        );
        assert_eq!(
            c(CheckEnd::Exited { code: 127 }),
            FailureCategory::Environment
        );
        assert_eq!(
            c(CheckEnd::SpawnFailed {
                message: "command not found: sh".into(),
                not_found: true
            }),
            FailureCategory::Environment
        );
        assert_eq!(c(CheckEnd::Exited { code: 1 }), FailureCategory::Code);
    }

    /// A failing test is read by what its failure says, not by the names in it: the package
    /// `async_timeout`'s `tests/test_timeout.py::test_shift` failing on an assertion is a test
    /// failure (it was `timeout`, a transient class: pawl backed off and re-verified without a
    /// step). Rows: first failure → class.
    #[test]
    fn a_failing_test_is_classed_by_its_prose_not_its_names() {
        let end = CheckEnd::Exited { code: 1 };
        let rows = [
            (
                "tests/test_timeout.py::test_shift FAILED\nE   assert 1.5 == 3.0\nasync_timeout/__init__.py:120: AssertionError",
                FailureCategory::Test,
            ),
            (
                "test_timeout_is_applied: AssertionError: 2 != 1",
                FailureCategory::Test,
            ),
            (
                "asyncio.TimeoutError raised in test_wait",
                FailureCategory::Test,
            ),
            (
                "requests.exceptions.ConnectionError: [Errno 111] Connection refused",
                FailureCategory::Infra,
            ),
            (
                "ModuleNotFoundError: No module named 'yaml'",
                FailureCategory::Environment,
            ),
        ];
        for (first, want) in rows {
            let f =
                classify_check("test", &end, false, Some(&summary(1, first)), None, "").unwrap();
            assert_eq!(f.category, want, "{first}");
        }
    }

    #[test]
    fn failing_tests_are_test_unless_environmental() {
        let end = CheckEnd::Exited { code: 1 };
        let f = classify_check(
            "test",
            &end,
            false,
            Some(&summary(2, "AssertionError: 1 != 2")),
            None,
            "",
        )
        .unwrap();
        assert_eq!(f.category, FailureCategory::Test);
        assert!(
            f.message
                .starts_with("test: 2 tests failed (test_a, test_b): AssertionError"),
            "{}",
            f.message
        );
        let f = classify_check(
            "test",
            &end,
            false,
            Some(&summary(1, "ModuleNotFoundError: No module named 'yaml'")),
            None,
            "",
        )
        .unwrap();
        assert_eq!(f.category, FailureCategory::Environment);
        // A TypeError inside a test is still a failing test for the agent to fix.
        let f = classify_check(
            "test",
            &end,
            false,
            Some(&summary(1, "TypeError: x")),
            None,
            "",
        )
        .unwrap();
        assert_eq!(f.category, FailureCategory::Test);
    }

    #[test]
    fn failing_tests_under_exit_0_are_a_test_failure() {
        let end = CheckEnd::Exited { code: 0 };
        // Even a first failure that reads as environmental: the runner lied about its result.
        let f = classify_check(
            "test",
            &end,
            false,
            Some(&summary(2, "ModuleNotFoundError: No module named 'yaml'")),
            None,
            "",
        )
        .unwrap();
        assert_eq!(f.category, FailureCategory::Test);
        assert!(
            f.message.starts_with(
                "test: the test runner reported 2 failing test(s) but exited 0 (test_a, test_b): ModuleNotFoundError"
            ),
            "{}",
            f.message
        );
        // Failed outcomes count when the counts say nothing.
        let mut t = summary(0, "");
        t.failing.clear();
        t.first_failure = None;
        t.tests = vec![crate::parse::TestOutcome {
            id: "m::t".into(),
            status: TestStatus::Failed,
        }];
        let f = classify_check(
            "test",
            &end,
            false,
            Some(&t),
            None,
            "out| test m::t ... FAILED\n",
        )
        .unwrap();
        assert_eq!(
            f.message,
            "test: the test runner reported 1 failing test(s) but exited 0 (m::t): test m::t ... FAILED"
        );
    }

    #[test]
    fn output_is_classified_by_the_core_table() {
        let tail = "out| Compiling x\nerr| error[E0425]: cannot find value `y`\nerr| \n";
        let f = classify_check(
            "build",
            &CheckEnd::Exited { code: 101 },
            false,
            None,
            None,
            tail,
        )
        .unwrap();
        assert_eq!(f.category, FailureCategory::Code);
        assert!(f.message.contains("error[E0425]"), "{}", f.message);
        assert!(
            classify_check(
                "build",
                &CheckEnd::Exited { code: 0 },
                true,
                None,
                None,
                tail
            )
            .is_none()
        );
    }
}
