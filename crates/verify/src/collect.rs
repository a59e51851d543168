//! The collection pass: the sealed command's runner asked to **list** its tests without running
//! them, for a quiet command whose output names only its failures (`cargo test -q`, unittest
//! without `-v`, jest and vitest on more than one file). The listed ids, with the failures the run named and its counts, give every
//! test an outcome by id (issue 32 point 2: the ids are collected even when the user's command
//! is quiet). The sealed command itself runs unchanged; the listing is a second, cheap process
//! (libtest's `--list` runs no test; unittest's loader imports the test modules and runs none).
//!
//! | runner | listing | what it says |
//! |---|---|---|
//! | cargo test | the command with `-- --list`, then `-- --list --ignored` when the run ignored some | every test and doc-test (`name: test`), then the ignored ones |
//! | unittest | the command's interpreter with `-c <lister>` in place of `-m unittest`, its arguments unchanged (`unittest.main`'s `testRunner`, documented) | every test id the command would run, statically skipped (`@skip`) and expected failures marked |
//!
//! The merge ([`merge`]) is trusted only when the counts agree: every listed test the run did
//! not name is a pass (or the skip the listing marked), and those must add up to the run's
//! own counts; otherwise the run stays judged by its counts. The listing imports the test files
//! (and the product code they import) as the run does, so code that skips a test at run time
//! (a hook, a wrapped `test`) makes the counts disagree, never the listing lie about the run.
//! Not here: nextest, pytest and go (their hooks in [`crate::parse::ids`] name every test
//! already).

use crate::parse::{IdCoverage, Runner, TestOutcome, TestStatus, TestSummary};

/// What a listing's output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// libtest's `--list`: every test.
    Libtest,
    /// libtest's `--list --ignored`: the ignored tests.
    LibtestIgnored,
    /// pawl's unittest lister: `pawl-collect <test|skip|xfail> <id>` lines.
    Unittest,
    /// jest's `--json` report of a run whose name pattern matches no test.
    Jest,
    /// `vitest list --json`.
    Vitest,
}

/// Characters that make a command more than words: then nothing is derived.
const NOT_WORDS: &[char] = &[
    ';', '|', '&', '<', '>', '$', '`', '(', ')', '{', '}', '\'', '"', '\\', '\n', '*', '?', '[',
];

/// The unittest lister: `unittest.main` parses the command's own arguments (discovery, modules,
/// `-k`) and hands the suite to this runner, which prints each test's id and runs none.
const UNITTEST_LISTER: &str = "import unittest\n\
def walk(s):\n    for t in s:\n        if isinstance(t, unittest.TestSuite):\n            yield from walk(t)\n        else:\n            yield t\n\
class Lister:\n    def __init__(self, *a, **k):\n        pass\n    def run(self, suite):\n        for t in walk(suite):\n            m = getattr(t, getattr(t, \"_testMethodName\", \"\"), None)\n            skip = getattr(type(t), \"__unittest_skip__\", False) or getattr(m, \"__unittest_skip__\", False)\n            xfail = getattr(m, \"__unittest_expecting_failure__\", False)\n            print(\"pawl-collect\", \"skip\" if skip else \"xfail\" if xfail else \"test\", t.id())\n        return unittest.TestResult()\n\
unittest.main(module=None, testRunner=Lister, exit=False)\n";

/// A name pattern no test name matches (an empty negative lookahead never matches): jest
/// reports every test, runs none.
const NO_TEST_NAME: &str = "(?!)";

/// Options with which a jest command chose its own report, names or mode: no listing is
/// derived from it (two `--json` or `-t` would not mean what the listing needs).
const JEST_OWN: &[&str] = &[
    "--json",
    "--outputFile",
    "-t",
    "--testNamePattern",
    "--listTests",
    "--watch",
    "--watchAll",
    "--showConfig",
    "--coverage",
    "--collectCoverage",
    "--onlyFailures",
    "-o",
    "--onlyChanged",
    "--changedSince",
    "--lastCommit",
];

/// vitest's subcommands that run the tests (`vitest` alone does too): the listing replaces them
/// with `list`.
const VITEST_RUNS: &[&str] = &["run", "watch", "dev"];

/// The one word of `words` that is the program `name` (or a path to it); `None` when there is
/// none or more than one.
fn program_at(words: &[&str], name: &str) -> Option<usize> {
    let is = |w: &str| w == name || w.rsplit('/').next() == Some(name);
    let at = words.iter().position(|w| is(w))?;
    (words.iter().filter(|w| is(w)).count() == 1).then_some(at)
}

/// The listing commands for `command`, in order; empty when its runner has none here or the
/// command is more than words.
pub fn listings(command: &str) -> Vec<(String, Listing)> {
    // The runner's own simple command, read with the shell parser: `cd sub && cargo test -q`
    // lists with `cd sub && cargo test -q -- --list`; `| tee log` after it is left out.
    let Some(part) = crate::shell::runner_part(command) else {
        return Vec::new();
    };
    listings_of(&part.command)
        .into_iter()
        .map(|(c, kind)| (part.with_before(&c), kind))
        .collect()
}

/// [`listings`] of the runner's simple command.
fn listings_of(command: &str) -> Vec<(String, Listing)> {
    if command.contains(NOT_WORDS) {
        return Vec::new();
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    match Runner::from_command(command) {
        Some(Runner::CargoTest) => {
            let at = words.windows(2).position(|w| w == ["cargo", "test"]);
            if at.is_none() || words.iter().filter(|w| **w == "cargo").count() != 1 {
                return Vec::new();
            }
            let mut base: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            if !words.contains(&"--") {
                base.push("--".into());
            }
            base.push("--list".into());
            let all = base.join(" ");
            let ignored = format!("{all} --ignored");
            vec![(all, Listing::Libtest), (ignored, Listing::LibtestIgnored)]
        }
        Some(Runner::Unittest) => {
            let Some(m) = words
                .windows(2)
                .position(|w| w == ["-m", "unittest"])
                .filter(|&m| m > 0)
            else {
                return Vec::new();
            };
            let mut out: Vec<String> = words[..m].iter().map(|w| (*w).to_owned()).collect();
            out.push("-c".into());
            out.push(crate::select::quote(UNITTEST_LISTER));
            out.extend(words[m + 2..].iter().map(|w| (*w).to_owned()));
            vec![(out.join(" "), Listing::Unittest)]
        }
        Some(Runner::Jest) => {
            if program_at(&words, "jest").is_none()
                || words.iter().any(|w| {
                    JEST_OWN
                        .iter()
                        .any(|o| *w == *o || w.starts_with(&format!("{o}=")))
                })
            {
                return Vec::new();
            }
            let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            out.push("--json".into());
            out.push("--testNamePattern".into());
            out.push(crate::select::quote(NO_TEST_NAME));
            vec![(out.join(" "), Listing::Jest)]
        }
        Some(Runner::Vitest) => {
            let Some(at) = program_at(&words, "vitest") else {
                return Vec::new();
            };
            if words
                .iter()
                .any(|w| *w == "--json" || w.starts_with("--json="))
            {
                return Vec::new();
            }
            let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            match words.get(at + 1) {
                Some(sub) if VITEST_RUNS.contains(sub) => out[at + 1] = "list".into(),
                // Another subcommand: not the tests' run.
                Some(sub) if ["bench", "typecheck", "list", "init", "related"].contains(sub) => {
                    return Vec::new();
                }
                _ => out.insert(at + 1, "list".into()),
            }
            out.push("--json".into());
            vec![(out.join(" "), Listing::Vitest)]
        }
        _ => Vec::new(),
    }
}

/// The ids a listing names, each with what it says of the test: `Passed` (it runs),
/// `Skipped` (ignored or statically skipped) or `XFailed` (an expected failure).
pub fn parse_listing(kind: Listing, stdout: &str) -> Vec<(String, TestStatus)> {
    let reported = match kind {
        Listing::Jest => Some(crate::parse::jest_listing(stdout)),
        Listing::Vitest => Some(crate::parse::vitest_listing(stdout)),
        _ => None,
    };
    if let Some(found) = reported {
        let mut out: Vec<(String, TestStatus)> = Vec::new();
        for (id, status) in found.unwrap_or_default() {
            if !out.iter().any(|(i, _)| *i == id) {
                out.push((id, status));
            }
        }
        return out;
    }
    let mut out: Vec<(String, TestStatus)> = Vec::new();
    for line in stdout.lines() {
        let found = match kind {
            Listing::Libtest | Listing::LibtestIgnored => line
                .trim_end()
                .strip_suffix(": test")
                .filter(|n| !n.is_empty())
                .map(|n| {
                    let status = if kind == Listing::Libtest {
                        TestStatus::Passed
                    } else {
                        TestStatus::Skipped
                    };
                    (crate::parse::libtest_id(n), status)
                }),
            Listing::Unittest => line.strip_prefix("pawl-collect ").and_then(|rest| {
                let (what, id) = rest.split_once(' ')?;
                let status = match what {
                    "test" => TestStatus::Passed,
                    "skip" => TestStatus::Skipped,
                    "xfail" => TestStatus::XFailed,
                    _ => return None,
                };
                Some((id.trim().to_owned(), status))
            }),
            Listing::Jest | Listing::Vitest => None,
        };
        if let Some((id, status)) = found
            && !out.iter().any(|(i, _)| *i == id)
        {
            out.push((id, status));
        }
    }
    out
}

/// `listed` laid under what the run named: every listed test the run did not name gets the
/// status the listing says (a pass, or its mark). Applied, and the summary's ids made
/// per-test, only when the result agrees with the run's counts (passes and skips alike, and
/// every failure the run named listed); returns whether it was.
pub fn merge(summary: &mut TestSummary, listed: &[(String, TestStatus)]) -> bool {
    if summary.ids.per_test() || listed.is_empty() {
        return false;
    }
    let mut tests: Vec<TestOutcome> = summary.tests.clone();
    for (id, status) in listed {
        if !tests.iter().any(|t| t.id == *id) {
            tests.push(TestOutcome {
                id: id.clone(),
                status: *status,
            });
        }
    }
    let count = |f: &dyn Fn(TestStatus) -> bool| -> u64 {
        tests.iter().filter(|t| f(t.status)).count() as u64
    };
    let passed = count(&|s| s == TestStatus::Passed);
    let skipped = count(&|s| matches!(s, TestStatus::Skipped | TestStatus::XFailed));
    let named_listed = summary
        .tests
        .iter()
        .all(|t| listed.iter().any(|(id, _)| *id == t.id));
    if passed != summary.passed || skipped != summary.skipped || !named_listed {
        return false;
    }
    summary.tests = tests;
    summary.ids = IdCoverage::PerTest;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_commands_get_their_listings_and_others_none() {
        let l = listings("cargo test -q");
        assert_eq!(
            l[0],
            ("cargo test -q -- --list".to_owned(), Listing::Libtest)
        );
        assert_eq!(l[1].0, "cargo test -q -- --list --ignored");
        assert_eq!(
            listings("cargo test -q -- --test-threads=1")[0].0,
            "cargo test -q -- --test-threads=1 --list"
        );
        let u = listings("python3 -m unittest discover -s tests");
        assert!(u[0].0.starts_with("python3 -c 'import unittest"), "{u:?}");
        assert!(u[0].0.ends_with("' discover -s tests"), "{u:?}");
        assert_eq!(
            listings("cd sub && python3 -m unittest 2>&1 | tee log")[0].0,
            format!("cd sub && {}", u[0].0.replace(" discover -s tests", ""))
        );
        assert_eq!(
            listings("cd crate; cargo test -q")[0].0,
            "cd crate && cargo test -q -- --list"
        );
        for command in [
            "cargo test -q && cargo test --doc",
            "python3 -m unittest || true",
            "pytest -q",
            "npx jest --json",
            "npx jest -t adds",
            "npx jest --watchAll",
            "npx vitest bench",
            "npx vitest run --json",
            "jest && jest --ci",
            "sh test.sh",
        ] {
            assert!(listings(command).is_empty(), "{command}");
        }
    }

    #[test]
    fn jest_and_vitest_commands_get_their_listings() {
        assert_eq!(
            listings("npx jest --ci src"),
            vec![(
                "npx jest --ci src --json --testNamePattern '(?!)'".to_owned(),
                Listing::Jest
            )]
        );
        for (command, listing) in [
            ("npx vitest run", "npx vitest list --json"),
            ("npx vitest", "npx vitest list --json"),
            (
                "node_modules/.bin/vitest run --project unit src/",
                "node_modules/.bin/vitest list --project unit src/ --json",
            ),
            ("vitest src/ --run", "vitest list src/ --run --json"),
        ] {
            assert_eq!(
                listings(command),
                vec![(listing.to_owned(), Listing::Vitest)],
                "{command}"
            );
        }
    }

    #[test]
    fn jest_and_vitest_listings_name_every_test_as_the_run_does() {
        let jest = r#"{"numPassedTests":0,"numFailedTests":0,"numPendingTests":3,"numTodoTests":1,
            "testResults":[{"name":"/r/src/mul.test.js","status":"passed","message":"","assertionResults":[
              {"ancestorTitles":["mul"],"title":"multiplies","status":"pending"},
              {"ancestorTitles":["mul"],"title":"by zero","status":"pending"},
              {"ancestorTitles":[],"title":"later","status":"todo"}]},
              {"name":"/r/src/add.test.js","status":"passed","message":"","assertionResults":[
              {"ancestorTitles":[],"title":"adds","status":"pending"}]}]}"#;
        assert_eq!(
            parse_listing(Listing::Jest, jest),
            vec![
                (
                    "/r/src/mul.test.js > mul > multiplies".to_owned(),
                    TestStatus::Passed
                ),
                (
                    "/r/src/mul.test.js > mul > by zero".to_owned(),
                    TestStatus::Passed
                ),
                ("/r/src/mul.test.js > later".to_owned(), TestStatus::Skipped),
                ("/r/src/add.test.js > adds".to_owned(), TestStatus::Passed),
            ]
        );
        // A test that ran: the name pattern was not applied, the listing is not one.
        let ran = jest.replacen("\"pending\"", "\"passed\"", 1);
        assert!(parse_listing(Listing::Jest, &ran).is_empty());
        let vitest = "[\n  {\n    \"name\": \"mul > multiplies\",\n    \"file\": \"/r/src/mul.test.js\"\n  },\n  {\"name\": \"adds\", \"file\": \"/r/src/add.test.js\", \"location\": {\"line\": 3, \"column\": 1}}\n]\n";
        assert_eq!(
            parse_listing(Listing::Vitest, vitest),
            vec![
                (
                    "/r/src/mul.test.js > mul > multiplies".to_owned(),
                    TestStatus::Passed
                ),
                ("/r/src/add.test.js > adds".to_owned(), TestStatus::Passed),
            ]
        );
        assert!(parse_listing(Listing::Vitest, "not json").is_empty());
    }

    #[test]
    fn a_listing_and_the_runs_failures_name_every_test_when_the_counts_agree() {
        let listed = parse_listing(
            Listing::Libtest,
            "tests::adds: test\ntests::subs: test\ntests::slow: test\nsrc/lib.rs - add (line 3): test\nbenches::b: benchmark\n\n4 tests, 1 benchmark\n",
        );
        assert_eq!(listed.len(), 4);
        assert_eq!(listed[3].0, "src/lib.rs - add");
        let ignored = parse_listing(Listing::LibtestIgnored, "tests::slow: test\n");
        let mut all: Vec<(String, TestStatus)> = listed
            .iter()
            .map(|(id, s)| {
                let ig = ignored.iter().any(|(i, _)| i == id);
                (id.clone(), if ig { TestStatus::Skipped } else { *s })
            })
            .collect();
        let mut s = TestSummary::new(Runner::CargoTest);
        (s.passed, s.failed, s.skipped) = (2, 1, 1);
        s.tests = vec![TestOutcome {
            id: "tests::subs".into(),
            status: TestStatus::Failed,
        }];
        s.ids = IdCoverage::of(&s.tests, 4);
        assert!(merge(&mut s, &all));
        assert!(s.ids.per_test());
        let status = |id: &str| s.tests.iter().find(|t| t.id == id).map(|t| t.status);
        assert_eq!(status("tests::adds"), Some(TestStatus::Passed));
        assert_eq!(status("tests::subs"), Some(TestStatus::Failed));
        assert_eq!(status("tests::slow"), Some(TestStatus::Skipped));
        // Counts that disagree (a test skipped at run time): not merged.
        all.retain(|(id, _)| id != "tests::slow");
        let mut s2 = TestSummary::new(Runner::CargoTest);
        (s2.passed, s2.skipped) = (3, 1);
        s2.ids = IdCoverage::of(&[], 4);
        assert!(!merge(&mut s2, &all));
        assert!(!s2.ids.per_test());
        let u = parse_listing(
            Listing::Unittest,
            "pawl-collect test test_calc.Calc.test_add\npawl-collect skip test_calc.Calc.test_later\nnoise\n",
        );
        assert_eq!(
            u,
            vec![
                ("test_calc.Calc.test_add".to_owned(), TestStatus::Passed),
                ("test_calc.Calc.test_later".to_owned(), TestStatus::Skipped)
            ]
        );
    }
}
