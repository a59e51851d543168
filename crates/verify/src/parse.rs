//! Test-output parsers: a runner's console output or report file into a [`TestSummary`].
//!
//! The input is whatever a test command printed, possibly written or influenced by the agent,
//! so every parser is total: any bytes in, `Some(summary)` or `None` out, never a panic (a
//! proptest feeds random input to all of them). `None` means "not this runner's output"; the
//! caller then judges the gate by its exit code alone.
//!
//! Counting rules shared by all parsers: `failed` includes errors (pytest/unittest errors, jest
//! suites that failed to run, go packages that failed to build); `skipped` includes ignored,
//! pending, todo and expected failures. `failing` keeps at most [`MAX_FAILING`] names. Every
//! name, id and message a parser returns is free of terminal escapes ([`strip_ansi`]),
//! including the `#x1B[0m` that pytest writes into its JUnit reports.
//!
//! ## Per-test outcomes
//!
//! [`TestSummary::tests`] holds one [`TestOutcome`] per test the output names, under a stable
//! id: the same test gets the same id in every run of the same runner and command, and edits
//! elsewhere in the code do not rename it. An id reported twice (a pytest teardown error after a
//! pass, the repeated failure list at the end of nextest's output) is one entry whose status is
//! the worst reported: failed, then passed, then xfailed, then skipped. At most [`MAX_TESTS`]
//! entries are kept, the first reported; the counts stay exact. `Skipped` covers skipped,
//! ignored, pending, todo and disabled tests that the runner names; `XFailed` is an expected
//! failure (pytest `xfail`, unittest `expectedFailure`); an unexpected pass is `Passed` for
//! pytest (XPASS) and `Failed` for unittest (it fails the run there).
//!
//! | runner | output | id | what gets an entry | what is missing |
//! |---|---|---|---|---|
//! | cargo test | libtest text | `tests::adds`; doc-test `src/lib.rs - sub` (its `(line N)` dropped) | every `test <name> ... ok / FAILED / ignored` | the binary: equal names in two test binaries (or doc-tests of one item) share one id |
//! | cargo test | `-q` (libtest's terse format) | same | the `<name> --- FAILED` lines | passes, ignored (dots) |
//! | cargo test, nextest | libtest JSON | the event's name: `tests::adds`, nextest `demo::demo$tests::adds` | ok, failed, timeout, ignored | |
//! | nextest | human (stderr) | `demo tests::adds` (binary id, test name) | PASS, FAIL / TIMEOUT / SIGSEGV / ..., FLAKY (a pass), SKIP | skipped tests unless `--status-level skip`; retry attempts (`TRY 2 FAIL`) are not outcomes |
//! | nextest | JUnit report | `demo.tests::adds` (`classname.name`) | passed, failed | skipped tests (not in nextest's report) |
//! | pytest | `-v` (and xdist `[gw0] ... PASSED id`) | node id `tests/t.py::TestC::test_b[p 1]` | every outcome | deselected tests |
//! | pytest | `-rA` short summary | node id | PASSED, FAILED, ERROR, XFAIL, XPASS | skips (the summary names `file:line`, not the test), deselected |
//! | pytest | default (dots), `-q` (its closing line unframed) | node id | the short summary's FAILED and ERROR lines | passes, skips, xfails |
//! | pytest | JUnit (`--junitxml={report}`) | `tests.t.TestC.test_b[p 1]` (`classname.name`: the default xunit2 report has no node id) | every test; `<skipped type="pytest.xfail">` is XFailed | deselected tests |
//! | pytest | JUnit of the xunit1 family (what pawl asks for through `PYTEST_ADDOPTS`, [`ids`]) | node id, rebuilt from `file` and `classname`; `classname.name` for a test inherited from another file | same | same |
//! | unittest | `-v` | `module.Class.test_method` (from `test_method (module.Class.test_method)`, or `(module.Class)` before 3.11); a subtest `module.Class.test_method[i=3]`, `[msg]`, `[msg, i=3]` | ok, FAIL, ERROR, skipped, expected failure, unexpected success, documented tests (name and docstring on two lines); a failing subtest and its test (failed) | passing subtests (not printed) |
//! | unittest | default (dots) | same | the `FAIL:`, `ERROR:`, `UNEXPECTED SUCCESS:` sections (subtests as above) | passes, skips, expected failures |
//! | jest, vitest | JSON report (`--json`, `--reporter=json`) | `path/a.test.js > describe > test` (the report's absolute path; the runner makes it relative to the check's directory) | every test; a file that failed to run is its path, failed | |
//! | jest | human, verbose tree (one test file, or `--verbose`) | `path/a.test.js > describe > test` (path as printed) | ✓, ✕, ○ skipped, ✎ todo; `● describe › test` failures | |
//! | jest | human, several files | same | the `● describe › test` failures; `● Test suite failed to run` is the file | passes, skips |
//! | vitest | `--reporter=verbose` | `a.test.js > describe > test` | ✓, ×, ↓ (skipped), □ (todo) | |
//! | vitest | default reporter | same | the `FAIL  file > describe > test` headers | passes, skips: its tree leaves out the describe names |
//! | go test | `-json` | `pkg/TestName/subtest` | pass, fail (the parents of a failing subtest too), skip; a package that failed with no failing test (build error; before Go 1.24 a plain `FAIL pkg [build failed]` line in the stream) is `pkg`, failed | |
//! | go test | plain `-v` | same (the package comes from the `ok` / `FAIL` line after its tests) | `--- PASS`, `--- FAIL`, `--- SKIP`; a package failure as above | |
//! | go test | plain, no `-v` | same | `--- FAIL` lines; package failures | passes, skips: neither named nor counted ([`IdCoverage::FailuresOnly`]) |
//! | dotnet test | VSTest console | `Ns.Class.Method` as printed | `Failed` and `Skipped` lines; `Passed` at normal verbosity | passes at the default (minimal) verbosity |
//! | dotnet test | Microsoft.Testing.Platform console | same | `failed` lines; `passed`, `skipped` with `--output detailed` | passes by default |
//! | dotnet test | TRX report | `testName` | every `UnitTestResult` (not run = skipped) | |
//! | node --test | TAP (its reporter under a pipe up to Node 22) | the path of names, `suite > inner > test` | every test that has no subtests: ok, not ok, `# SKIP`, `# TODO` (skipped); a parent only when it failed with no failing subtest (a hook) | |
//! | node --test | spec (`✔`, `✖`, `﹣`, `▶`; the default from Node 23) | same as its TAP | same | |
//! | tape | TAP | the test's name (its `# name` comment) | every test, the worst of its assertions; `# SKIP name` | |
//! | ava `--tap`, mocha `--reporter tap`, any TAP | TAP | the point's description (mocha: its full title) | every point | |
//! | mocha | spec (default) | the full title, `describe nested test` (titles joined by spaces, as mocha's `fullTitle`) | `✔`, `N)` failing (a failing hook is `describe "before each" hook for "t"`), `- pending` | same titles in two files share an id |
//! | mocha | JSON (`--reporter json`, on stdout or as `{report}`) | `fullTitle` | every test; failing hooks | |
//! | any | JUnit XML report | `classname.name`, or `name` without a classname | every `<testcase>` | |
//!
//! tape counts tests, not assertions as tape's `# tests` line does; node:test and the TAP
//! parser count tests without subtests (node's `# fail` also counts a failing parent); unittest
//! counts failing subtests in `failed` as its `failures=` does. Compiler and linter output
//! (rustc, clippy) has no tests: see [`crate::diagnostics`].
//!
//! **How far the ids go.** Every summary says whether its ids cover every test it counts
//! ([`TestSummary::ids`], [`IdCoverage`]): a run is judged test by test only then, otherwise by
//! its counts. [`ids`] holds the runners' hooks through which pawl gets every id without
//! changing the command (a variable the runner reads, and the report it writes).
//!
//! **Which source wins.** When a report file (`{report}`, see [`crate::report`]) parses, its
//! summary is the result, counts and ids alike: JUnit, TRX and the jest/vitest JSON name every
//! test they count, so the report is at least as rich as any console mode, and one fixed choice
//! keeps the ids of a command in one format from run to run. When the report parses but names no
//! test, the console's ids are taken (the counts stay the report's). When there is no readable
//! report (the run died before writing it), the console is parsed, and its ids are in the
//! console's format (pytest: node ids, not `classname.name`). The runner relativizes ids to the
//! check's directory ([`TestSummary::relativize_ids`]); [`crate::runner::parse_log`] does not
//! know that directory and leaves absolute paths as the report wrote them.

mod cargo_test;
mod dotnet;
mod go_test;
pub mod ids;
pub mod items;
mod jest;
mod junit;
mod libtest_json;
mod mocha;
mod nextest;
mod node_spec;
mod pytest;
mod tap;
mod unittest;
mod vitest;

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

pub use crate::text::strip_ansi;

/// At most this many failing test names are kept; counts stay exact.
pub const MAX_FAILING: usize = 200;
/// At most this many tests are kept in [`TestSummary::tests`] (the first ones reported); counts
/// stay exact. A list of exactly this length may have been cut.
pub const MAX_TESTS: usize = 20_000;
/// The first failure message is cut to this many characters...
pub const MAX_MESSAGE_CHARS: usize = 1500;
/// ...and this many lines, enough for an assertion with its left/right values.
pub const MAX_MESSAGE_LINES: usize = 25;

/// Which runner produced the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runner {
    CargoTest,
    Nextest,
    Pytest,
    Unittest,
    Jest,
    Vitest,
    GoTest,
    DotnetTest,
    /// A JUnit XML report from a runner not known otherwise.
    Junit,
    /// A TAP stream: node:test's TAP reporter, tape, `ava --tap`, `mocha --reporter tap`, ...
    Tap,
    /// `node --test`: its TAP reporter (the default under a pipe up to Node 22) or its spec
    /// reporter (the default from Node 23).
    NodeTest,
    /// mocha's spec reporter (its default) or JSON reporter.
    Mocha,
}

impl Runner {
    /// Every runner, for tests and listings.
    pub const ALL: [Runner; 12] = [
        Runner::CargoTest,
        Runner::Nextest,
        Runner::Pytest,
        Runner::Unittest,
        Runner::Jest,
        Runner::Vitest,
        Runner::GoTest,
        Runner::DotnetTest,
        Runner::Junit,
        Runner::Tap,
        Runner::NodeTest,
        Runner::Mocha,
    ];

    /// The runner a command line invokes, if it names one directly.
    /// `npm test` names none: its output is sniffed instead. Neither does `ava` without
    /// `--tap` (its own reporter is not parsed).
    pub fn from_command(command: &str) -> Option<Runner> {
        let words: Vec<&str> = command.split_whitespace().collect();
        let has_pair = |a: &str, b: &str| words.windows(2).any(|w| w == [a, b]);
        let has = |w: &str| {
            words
                .iter()
                .any(|x| *x == w || x.rsplit('/').next() == Some(w))
        };
        if has_pair("cargo", "nextest") {
            Some(Runner::Nextest)
        } else if has_pair("cargo", "test") {
            Some(Runner::CargoTest)
        } else if has("pytest") || has("py.test") {
            Some(Runner::Pytest)
        } else if has("unittest") {
            Some(Runner::Unittest)
        } else if has("vitest") {
            Some(Runner::Vitest)
        } else if has("jest") {
            Some(Runner::Jest)
        } else if has_pair("go", "test") {
            Some(Runner::GoTest)
        } else if has_pair("dotnet", "test") {
            Some(Runner::DotnetTest)
        } else if has("node")
            && words
                .iter()
                .any(|w| *w == "--test" || w.starts_with("--test-reporter"))
        {
            Some(Runner::NodeTest)
        } else if has("mocha") || has("_mocha") {
            Some(Runner::Mocha)
        } else if has("tape") || has("ava") && (has("--tap") || has("-t")) {
            Some(Runner::Tap)
        } else {
            None
        }
    }
}

pub use pawl_core::record::{TestOutcome, TestStatus};

/// The collection pass's readers of jest's and vitest's listings.
pub(crate) use jest::listing as jest_listing;
pub(crate) use vitest::listing as vitest_listing;

/// `id` with the first of `roots` it starts with (and the `/` after it) taken off: a test file
/// named by its path from the check's directory.
pub fn relative_id<'a>(id: &'a str, roots: &[&str]) -> &'a str {
    roots
        .iter()
        .find_map(|root| {
            let root = root.trim_end_matches('/');
            if root.is_empty() {
                return None;
            }
            id.strip_prefix(root)?.strip_prefix('/')
        })
        .unwrap_or(id)
}

/// A libtest name as its stable id (a doc-test's `(line N)` dropped).
pub(crate) use cargo_test::test_id as libtest_id;

/// What a test run amounted to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestSummary {
    pub runner: Runner,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    /// Names of failing tests, in the order the runner reported them.
    pub failing: Vec<String>,
    /// The first failure's message, trimmed (see [`MAX_MESSAGE_CHARS`]).
    pub first_failure: Option<String>,
    /// Every test the runner reported, by id, when its output names them (the baseline and the
    /// test-protection screen compare these).
    #[serde(default)]
    pub tests: Vec<TestOutcome>,
    /// Whether [`Self::tests`] names every test the counts count: a run is judged test by test
    /// only then; otherwise by its counts, and the report says so. Set by the parsers' common
    /// exit ([`parse_as`]) and kept true by [`Self::relativize_ids`].
    #[serde(default)]
    pub ids: IdCoverage,
}

impl TestSummary {
    /// The counts alone, as pawl-core's decisions take them.
    pub fn counts(&self) -> pawl_core::proof::TestCounts {
        pawl_core::proof::TestCounts {
            passed: self.passed,
            failed: self.failed,
            skipped: self.skipped,
        }
    }
}

/// How much of a run its test ids cover (see [`TestSummary::ids`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IdCoverage {
    /// Every test the runner counted has an outcome by id (or the run counted none).
    PerTest,
    /// The output names `named` of the `counted` tests (pytest `-q`, unittest and cargo test
    /// dots, jest over several files, go test without `-v`, ...): the others are judged by the
    /// counts alone.
    ByCounts { named: u64, counted: u64 },
    /// The output names and counts only its failures (go test without `-v` or `-json`): the
    /// passing tests are known only from the exit code. Set by the parser, kept by
    /// [`IdCoverage::update`].
    FailuresOnly { named: u64 },
}

impl Default for IdCoverage {
    /// What nothing says: nothing named, nothing known.
    fn default() -> Self {
        IdCoverage::ByCounts {
            named: 0,
            counted: 0,
        }
    }
}

impl IdCoverage {
    /// The coverage of `tests` against the `counted` tests. A list cut at [`MAX_TESTS`] names
    /// no more than its length.
    pub fn of(tests: &[TestOutcome], counted: u64) -> IdCoverage {
        let named = u64::try_from(tests.len()).unwrap_or(u64::MAX);
        if named >= counted {
            IdCoverage::PerTest
        } else {
            IdCoverage::ByCounts { named, counted }
        }
    }

    /// The coverage after the ids changed: computed again, except that a parser's
    /// [`IdCoverage::FailuresOnly`] stays (its counts are no better than its names).
    pub fn update(self, tests: &[TestOutcome], counted: u64) -> IdCoverage {
        match self {
            IdCoverage::FailuresOnly { .. } => IdCoverage::FailuresOnly {
                named: u64::try_from(tests.len()).unwrap_or(u64::MAX),
            },
            _ => IdCoverage::of(tests, counted),
        }
    }

    /// Whether the run can be judged test by test.
    pub fn per_test(self) -> bool {
        self == IdCoverage::PerTest
    }

    /// A phrase for reports: `per test`, `by counts (1 of 5 tests named)`, ...
    pub fn describe(self) -> String {
        match self {
            IdCoverage::PerTest => "per test".to_owned(),
            IdCoverage::ByCounts { named, counted } => {
                format!("by counts ({named} of {counted} tests named)")
            }
            IdCoverage::FailuresOnly { named } => format!(
                "by the exit code ({named} failures named; passing tests neither named nor counted)"
            ),
        }
    }
}

impl TestSummary {
    pub(crate) fn new(runner: Runner) -> Self {
        TestSummary {
            runner,
            passed: 0,
            failed: 0,
            skipped: 0,
            failing: Vec::new(),
            first_failure: None,
            tests: Vec::new(),
            ids: IdCoverage::default(),
        }
    }

    /// Records a failing name once, up to [`MAX_FAILING`].
    pub(crate) fn add_failing(&mut self, name: &str) {
        let name = name.trim();
        if name.is_empty() || self.failing.len() >= MAX_FAILING {
            return;
        }
        if !self.failing.iter().any(|n| n == name) {
            self.failing.push(name.to_owned());
        }
    }

    pub(crate) fn set_first_failure(&mut self, msg: &str) {
        if self.first_failure.is_none() {
            let m = trim_message(msg);
            if !m.is_empty() {
                self.first_failure = Some(m);
            }
        }
    }

    /// Total tests that ran or were skipped.
    pub fn total(&self) -> u64 {
        self.passed
            .saturating_add(self.failed)
            .saturating_add(self.skipped)
    }

    /// Makes test ids that start with one of `roots` (absolute directories, as jest's and
    /// vitest's JSON reports name test files) relative to it, so they do not change when the
    /// checkout moves. The runner calls this with the check's working directory.
    pub fn relativize_ids(&mut self, roots: &[&str]) {
        let mut list = TestList::default();
        for t in &self.tests {
            list.add(relative_id(&t.id, roots), t.status);
        }
        self.tests = list.into_vec();
        self.ids = self.ids.update(&self.tests, self.total());
    }

    /// How many failing tests the runner reported: the `failed` count, or the number of
    /// [`TestStatus::Failed`] outcomes when that is larger. More than zero means the run failed,
    /// whatever the exit code says.
    pub fn reported_failures(&self) -> u64 {
        let outcomes = self
            .tests
            .iter()
            .filter(|t| t.status == TestStatus::Failed)
            .count();
        self.failed.max(u64::try_from(outcomes).unwrap_or(u64::MAX))
    }
}

/// Which of two reports of the same id wins: a failure anywhere (a pytest teardown error after a
/// pass, one of several doc-tests of an item) fails the id; a run beats a skip.
pub(crate) fn merge_status(this: TestStatus, other: TestStatus) -> TestStatus {
    {
        fn rank(s: TestStatus) -> u8 {
            match s {
                TestStatus::Failed => 3,
                TestStatus::Passed => 2,
                TestStatus::XFailed => 1,
                TestStatus::Skipped => 0,
            }
        }
        if rank(other) > rank(this) {
            other
        } else {
            this
        }
    }
}

/// Collects [`TestOutcome`]s as a parser meets them: one entry per id, in the order first
/// reported, at most [`MAX_TESTS`]; a second report of an id merges into the first
/// ([`merge_status`]).
#[derive(Debug, Default)]
pub(crate) struct TestList {
    items: Vec<TestOutcome>,
    index: HashMap<String, usize>,
}

impl TestList {
    pub(crate) fn add(&mut self, id: &str, status: TestStatus) {
        let id = id.trim();
        if id.is_empty() {
            return;
        }
        if let Some(&i) = self.index.get(id) {
            if let Some(t) = self.items.get_mut(i) {
                t.status = merge_status(t.status, status);
            }
            return;
        }
        if self.items.len() >= MAX_TESTS {
            return;
        }
        self.index.insert(id.to_owned(), self.items.len());
        self.items.push(TestOutcome {
            id: id.to_owned(),
            status,
        });
    }

    pub(crate) fn into_vec(self) -> Vec<TestOutcome> {
        self.items
    }
}

/// Parses a test command's output: the runner comes from `command_hint` when it names one
/// (`cargo test`, `pytest`, `go test`, ...), otherwise from the output itself. A report file's
/// text (see [`crate::report`]) is preferred over the console when it parses.
pub fn parse_any(
    command_hint: &str,
    stdout: &str,
    stderr: &str,
    report: Option<&str>,
) -> Option<TestSummary> {
    if let Some(runner) = Runner::from_command(command_hint)
        && let Some(s) = parse_as(runner, stdout, stderr, report)
    {
        return Some(s);
    }
    let runner_from_report = report.and_then(sniff_report);
    if let Some(r) = runner_from_report
        && let Some(s) = parse_as(r, stdout, stderr, report)
    {
        return Some(s);
    }
    let text = join_output(stdout, stderr);
    let runner = sniff_text(&text)?;
    parse_as(runner, stdout, stderr, None)
}

/// Parses with a known runner: its report format first (when `report` is given), then its
/// console format.
pub fn parse_as(
    runner: Runner,
    stdout: &str,
    stderr: &str,
    report: Option<&str>,
) -> Option<TestSummary> {
    parse_raw(runner, stdout, stderr, report).map(clean)
}

/// Escapes out of every text a summary carries (names, ids, the first failure): consoles are
/// stripped before parsing, but reports are not (pytest's JUnit writes `#x1B[0m`), and a
/// parser must not have to care.
fn clean(mut s: TestSummary) -> TestSummary {
    if let Some(f) = &s.first_failure
        && let Cow::Owned(clean) = strip_ansi(f)
    {
        s.first_failure = Some(clean).filter(|f| !f.trim().is_empty());
    }
    let mut failing = Vec::with_capacity(s.failing.len());
    for name in &s.failing {
        let name = strip_ansi(name);
        let name = name.trim();
        if !name.is_empty() && !failing.iter().any(|n: &String| n == name) {
            failing.push(name.to_owned());
        }
    }
    s.failing = failing;
    if s.tests
        .iter()
        .any(|t| matches!(strip_ansi(&t.id), Cow::Owned(_)))
    {
        let mut list = TestList::default();
        for t in &s.tests {
            list.add(&strip_ansi(&t.id), t.status);
        }
        s.tests = list.into_vec();
    }
    s.ids = s.ids.update(&s.tests, s.total());
    s
}

fn parse_raw(
    runner: Runner,
    stdout: &str,
    stderr: &str,
    report: Option<&str>,
) -> Option<TestSummary> {
    if let Some(report) = report {
        let from_report = match runner {
            Runner::Jest | Runner::Vitest => jest::parse_json(report, runner),
            // Both also write JUnit (node's `--test-reporter=junit`, mocha-junit-reporter).
            Runner::Mocha => mocha::parse_json(report).or_else(|| junit::parse(report, runner)),
            Runner::Tap | Runner::NodeTest => {
                tap::parse(report, runner).or_else(|| junit::parse(report, runner))
            }
            Runner::DotnetTest => {
                dotnet::parse_trx(report).or_else(|| junit::parse(report, runner))
            }
            _ => junit::parse(report, runner),
        };
        if let Some(mut s) = from_report {
            // The report names every test it counts; when it names none, the console may.
            if s.tests.is_empty()
                && let Some(console) = parse_console(runner, stdout, stderr)
            {
                s.tests = console.tests;
            }
            return Some(s);
        }
    }
    parse_console(runner, stdout, stderr)
}

fn parse_console(runner: Runner, stdout: &str, stderr: &str) -> Option<TestSummary> {
    let text = join_output(stdout, stderr);
    match runner {
        Runner::CargoTest => cargo_test::parse(&text),
        Runner::Nextest => nextest::parse(&text),
        Runner::Pytest => pytest::parse(&text),
        Runner::Unittest => unittest::parse(&text),
        Runner::Jest => jest::parse(&text),
        Runner::Vitest => vitest::parse(&text),
        Runner::GoTest => go_test::parse(&text),
        Runner::DotnetTest => dotnet::parse(&text),
        Runner::Junit => junit::parse(&text, Runner::Junit),
        Runner::Tap => tap::parse(&text, Runner::Tap),
        Runner::NodeTest => tap::parse(&text, Runner::NodeTest).or_else(|| node_spec::parse(&text)),
        // `mocha --reporter tap` is TAP.
        Runner::Mocha => mocha::parse(&text).or_else(|| tap::parse(&text, Runner::Mocha)),
    }
}

fn join_output<'a>(stdout: &'a str, stderr: &'a str) -> Cow<'a, str> {
    let joined: Cow<'a, str> = match (stdout.is_empty(), stderr.is_empty()) {
        (_, true) => Cow::Borrowed(stdout),
        (true, false) => Cow::Borrowed(stderr),
        (false, false) => Cow::Owned(format!("{stdout}\n{stderr}")),
    };
    match strip_ansi(&joined) {
        Cow::Borrowed(_) => joined,
        Cow::Owned(s) => Cow::Owned(s),
    }
}

fn sniff_report(report: &str) -> Option<Runner> {
    let head: String = report.trim_start().chars().take(4096).collect();
    if head.starts_with('<') {
        if head.contains("<TestRun") {
            Some(Runner::DotnetTest)
        } else if head.contains("<testsuite") {
            Some(Runner::Junit)
        } else {
            None
        }
    } else if head.starts_with('{') && head.contains("\"numTotalTests\"") {
        // vitest's JSON reporter mimics jest's; the numbers mean the same.
        Some(Runner::Jest)
    } else if head.starts_with('{') && head.contains("\"stats\"") && mocha::sniff(report) {
        Some(Runner::Mocha)
    } else if tap::sniff(report) {
        Some(Runner::Tap)
    } else {
        None
    }
}

fn sniff_text(text: &str) -> Option<Runner> {
    if text.contains("\"Action\":\"") {
        Some(Runner::GoTest)
    } else if text.contains("{\"type\":\"suite\"")
        || text.contains("Summary [") && text.contains(" tests run: ")
        || text.contains("Starting ") && text.contains(" PASS [")
    {
        // libtest JSON comes from nextest (stable flag) far more often than from nightly cargo.
        Some(Runner::Nextest)
    } else if text.contains("test result: ") {
        Some(Runner::CargoTest)
    } else if text.contains("test session starts") || text.contains("short test summary info") {
        Some(Runner::Pytest)
    } else if text.contains("\nRan ") && (text.contains("\nOK") || text.contains("\nFAILED (")) {
        Some(Runner::Unittest)
    } else if text.contains("Test Files ") {
        Some(Runner::Vitest)
    } else if node_spec::sniff(text) {
        Some(Runner::NodeTest)
    } else if mocha::sniff(text) {
        Some(Runner::Mocha)
    } else if tap::sniff(text) {
        // node:test's TAP has `# Subtest:` lines; the parser names its tests by path either way.
        if text.contains("# Subtest: ") {
            Some(Runner::NodeTest)
        } else {
            Some(Runner::Tap)
        }
    } else if text.contains("Tests:") && text.contains(" total") {
        Some(Runner::Jest)
    } else if text.contains("Passed!  - ")
        || text.contains("Failed!  - ")
        || text.contains("Test run summary:")
    {
        Some(Runner::DotnetTest)
    } else if text.contains("--- FAIL: ")
        || text.contains("--- PASS: ")
        || text.contains("\nok  \t")
    {
        Some(Runner::GoTest)
    } else if text.trim_start().starts_with('<') && text.contains("<testsuite") {
        Some(Runner::Junit)
    } else {
        None
    }
}

/// Trims a failure message to something an agent prompt can carry.
pub fn trim_message(msg: &str) -> String {
    let msg = strip_ansi(msg);
    let lines: Vec<&str> = msg.trim().lines().map(str::trim_end).collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i >= MAX_MESSAGE_LINES {
            out.push_str("\n…");
            break;
        }
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
    if out.chars().count() > MAX_MESSAGE_CHARS {
        let mut cut: String = out.chars().take(MAX_MESSAGE_CHARS).collect();
        cut.push('…');
        return cut;
    }
    out
}

/// Reads `"<n> <label>"` pairs from a separated list such as `1 failed, 2 passed, 3 total`.
/// Returns `(label, n)` with the label lowercased; pieces without a leading number are skipped.
pub(crate) fn counts(list: &str, separators: &[char]) -> Vec<(String, u64)> {
    list.split(separators)
        .filter_map(|piece| {
            let piece = piece.trim();
            let (num, label) = piece.split_once(char::is_whitespace)?;
            let n = num.trim().parse::<u64>().ok()?;
            let label = label
                .trim()
                .trim_end_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            Some((label, n))
        })
        .collect()
}

/// Panic text from Rust test output: the `panicked at` line and the message lines after it,
/// up to the backtrace note. `name` prefixes it so the agent sees which test.
pub(crate) fn rust_panic(block: &str, name: &str) -> Option<String> {
    let mut lines = block.lines().skip_while(|l| !l.contains("panicked at"));
    let first = lines.next()?;
    let location = first
        .split_once("panicked at")
        .map(|(_, loc)| loc.trim().trim_end_matches(':'))
        .unwrap_or("");
    let body: Vec<&str> = lines
        .take_while(|l| {
            let t = l.trim_start();
            !(t.starts_with("note: run with `RUST_BACKTRACE")
                || t.starts_with("note: Some details are omitted")
                || t.starts_with("stack backtrace:"))
        })
        .collect();
    let body = dedent(&body);
    Some(format!(
        "{name}: panicked at {location}\n{}",
        body.trim_end()
    ))
}

/// Removes the indentation common to all non-blank lines (nextest indents captured output).
pub(crate) fn dedent(lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or_else(|| l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A JavaScript error as a test runner prints it (message, diff, stack): the lines up to the
/// stack, then its first frame in the project's code, without node's internals or the error
/// object's properties after the stack. Lines lose the indentation of the first line; runs of
/// blank lines become one.
pub(crate) fn js_excerpt(lines: &[&str]) -> String {
    let first_indent = lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .unwrap_or(0);
    let mut out: Vec<&str> = Vec::new();
    let mut in_stack = false;
    for l in lines {
        let indent = l.len() - l.trim_start().len();
        let l = l.get(indent.min(first_indent)..).unwrap_or(l).trim_end();
        let t = l.trim_start();
        if t.starts_with("at ") {
            if !in_stack {
                in_stack = true;
                if let Some(frame) = lines
                    .iter()
                    .map(|f| f.trim())
                    .filter(|f| f.starts_with("at "))
                    .find(|f| !internal_frame(f))
                {
                    while out.last().is_some_and(|p| p.trim().is_empty()) {
                        out.pop();
                    }
                    out.push(frame.trim_end_matches(" {"));
                }
            }
            continue;
        }
        if in_stack {
            // The error's own properties (`{ code: ..., actual: ... }`) follow the stack.
            continue;
        }
        if t.is_empty() && out.last().is_none_or(|p| p.trim().is_empty()) {
            continue;
        }
        out.push(l);
    }
    out.join("\n").trim().to_owned()
}

/// A stack frame in node itself or in a dependency.
pub(crate) fn internal_frame(frame: &str) -> bool {
    frame.contains("node:")
        || frame.contains("node_modules")
        || frame.contains("(<anonymous>)")
        || frame.contains("internal/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_from_command() {
        assert_eq!(
            Runner::from_command("cargo nextest run"),
            Some(Runner::Nextest)
        );
        assert_eq!(
            Runner::from_command("cargo test --no-fail-fast"),
            Some(Runner::CargoTest)
        );
        assert_eq!(
            Runner::from_command("uv run python -m pytest -rA"),
            Some(Runner::Pytest)
        );
        assert_eq!(
            Runner::from_command("python3 -m unittest discover"),
            Some(Runner::Unittest)
        );
        assert_eq!(Runner::from_command("npx vitest run"), Some(Runner::Vitest));
        assert_eq!(
            Runner::from_command("./node_modules/.bin/jest --json"),
            Some(Runner::Jest)
        );
        assert_eq!(
            Runner::from_command("go test -json ./..."),
            Some(Runner::GoTest)
        );
        assert_eq!(
            Runner::from_command("dotnet test"),
            Some(Runner::DotnetTest)
        );
        assert_eq!(Runner::from_command("npm test"), None);
        assert_eq!(Runner::from_command("node --test"), Some(Runner::NodeTest));
        assert_eq!(
            Runner::from_command("c8 /usr/bin/node --test-reporter=tap --test test/"),
            Some(Runner::NodeTest)
        );
        assert_eq!(Runner::from_command("node index.js"), None);
        assert_eq!(
            Runner::from_command("npx mocha --reporter json"),
            Some(Runner::Mocha)
        );
        assert_eq!(
            Runner::from_command("nyc tape test/*.js"),
            Some(Runner::Tap)
        );
        assert_eq!(Runner::from_command("npx ava --tap"), Some(Runner::Tap));
        assert_eq!(Runner::from_command("npx ava"), None);
    }

    #[test]
    fn trim_message_cuts_lines_and_chars() {
        let long: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let t = trim_message(&long);
        assert_eq!(t.lines().count(), MAX_MESSAGE_LINES + 1);
        let wide = "é".repeat(5000);
        assert_eq!(trim_message(&wide).chars().count(), MAX_MESSAGE_CHARS + 1);
    }

    #[test]
    fn counts_reads_number_label_pairs() {
        assert_eq!(
            counts("1 failed, 2 passed, 1 skipped, 1 error in 0.05s", &[',']),
            [
                ("failed".to_owned(), 1),
                ("passed".to_owned(), 2),
                ("skipped".to_owned(), 1),
                ("error in 0.05s".to_owned(), 1)
            ]
        );
    }
}
