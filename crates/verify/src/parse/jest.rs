//! jest: the `--json` report (whose shape vitest's JSON reporter copies, so vitest uses it too)
//! and the human summary (`Tests:       1 failed, 1 skipped, 2 passed, 4 total`) with its
//! `● suite › test` failure blocks.

use serde::Deserialize;

use super::{Runner, TestList, TestStatus, TestSummary, counts};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    num_passed_tests: u64,
    num_failed_tests: u64,
    #[serde(default)]
    num_pending_tests: u64,
    #[serde(default)]
    num_todo_tests: u64,
    #[serde(default)]
    test_results: Vec<FileResult>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileResult {
    #[serde(default)]
    name: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    assertion_results: Vec<Assertion>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Assertion {
    #[serde(default)]
    ancestor_titles: Vec<String>,
    #[serde(default)]
    title: String,
    #[serde(default)]
    full_name: Option<String>,
    #[serde(default)]
    status: String,
    #[serde(default)]
    failure_messages: Vec<String>,
}

/// Parses a jest/vitest JSON report. A test file that failed to run (syntax error, missing
/// import) has no assertions; it counts as one failure named after the file.
pub(crate) fn parse_json(text: &str, runner: Runner) -> Option<TestSummary> {
    let report: Report = serde_json::from_str(text.trim()).ok()?;
    let mut s = TestSummary::new(runner);
    s.passed = report.num_passed_tests;
    s.failed = report.num_failed_tests;
    s.skipped = report
        .num_pending_tests
        .saturating_add(report.num_todo_tests);
    let mut tests = TestList::default();
    for file in &report.test_results {
        for a in &file.assertion_results {
            tests.add(&assertion_id(&file.name, a), json_status(&a.status));
        }
        for a in file
            .assertion_results
            .iter()
            .filter(|a| a.status == "failed")
        {
            let name = a.full_name.clone().unwrap_or_else(|| {
                let mut parts = a.ancestor_titles.clone();
                parts.push(a.title.clone());
                parts.join(" › ")
            });
            s.add_failing(&name);
            if let Some(msg) = a.failure_messages.first() {
                s.set_first_failure(&format!("{name}\n{}", without_stack(msg)));
            }
        }
        if file.status == "failed" && file.assertion_results.is_empty() {
            s.failed = s.failed.saturating_add(1);
            s.add_failing(&file.name);
            s.set_first_failure(&format!("{}\n{}", file.name, without_stack(&file.message)));
            tests.add(&file.name, TestStatus::Failed);
        }
    }
    s.tests = tests.into_vec();
    Some(s)
}

/// The collection pass's listing (`crate::collect`): the command's `--json` report of a run
/// whose name pattern matches no test, so every test is reported and none runs. Each test's
/// id with what the listing says of it: a todo is `Skipped`; a test reported pending would run
/// without the pattern (`Passed`) — a statically skipped one (`test.skip`) is reported pending
/// too and cannot be told apart, so then the counts disagree and the listing is not trusted.
/// A test that ran (the pattern was not applied) makes the listing `None`.
pub(crate) fn listing(text: &str) -> Option<Vec<(String, TestStatus)>> {
    let report: Report = serde_json::from_str(text.trim()).ok()?;
    let mut out = Vec::new();
    for file in &report.test_results {
        for a in &file.assertion_results {
            let status = match a.status.as_str() {
                "todo" => TestStatus::Skipped,
                "pending" | "skipped" | "disabled" => TestStatus::Passed,
                _ => return None,
            };
            out.push((assertion_id(&file.name, a), status));
        }
    }
    Some(out)
}

/// `file > describe > ... > title`, the shape vitest prints and jest's tree implies. The file
/// is as the report names it (absolute: the runner makes it relative to the check's directory).
fn assertion_id(file: &str, a: &Assertion) -> String {
    let mut id = file.trim().to_owned();
    for part in a.ancestor_titles.iter().chain(std::iter::once(&a.title)) {
        if !id.is_empty() {
            id.push_str(" > ");
        }
        id.push_str(part.trim());
    }
    id
}

/// jest: passed, failed, pending, todo, skipped, disabled, focused; vitest: passed, failed,
/// skipped, todo. Anything that neither passed nor failed did not run.
fn json_status(status: &str) -> TestStatus {
    match status {
        "passed" => TestStatus::Passed,
        "failed" => TestStatus::Failed,
        _ => TestStatus::Skipped,
    }
}

/// Drops `    at frame (file:line)` stack lines: the agent needs the assertion, not node internals.
pub(crate) fn without_stack(msg: &str) -> String {
    let msg = super::strip_ansi(msg);
    msg.lines()
        .filter(|l| !l.trim_start().starts_with("at "))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    let mut s = TestSummary::new(Runner::Jest);
    let mut tree = Tree::default();
    let mut seen = false;
    for line in text.lines() {
        tree.line(line);
        let t = line.trim();
        if let Some(list) = t.strip_prefix("Tests:") {
            seen = true;
            for (label, n) in counts(list, &[',']) {
                match label.as_str() {
                    "passed" => s.passed = s.passed.saturating_add(n),
                    "failed" => s.failed = s.failed.saturating_add(n),
                    "skipped" | "todo" | "pending" => s.skipped = s.skipped.saturating_add(n),
                    _ => {}
                }
            }
        } else if let Some(name) = t.strip_prefix("● ") {
            let name = name.trim();
            if name == "Test suite failed to run" {
                continue;
            }
            s.add_failing(name);
        }
    }
    if !seen {
        return None;
    }
    s.tests = tree.tests.into_vec();
    // The first `●` block: the message lines up to the code frame or stack.
    let mut lines = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("● "));
    if let Some(header) = lines.next() {
        let body: Vec<&str> = lines
            .take_while(|l| !l.trim_start().starts_with("● ") && !l.starts_with("Test Suites:"))
            .filter(|l| !is_code_frame(l) && !l.trim_start().starts_with("at "))
            .collect();
        let header = header.trim().trim_start_matches("● ");
        s.set_first_failure(&format!("{header}\n{}", super::dedent(&body).trim()));
    }
    Some(s)
}

/// Test ids from jest's human output. Under each `PASS file` / `FAIL file` header, the verbose
/// reporter (a single test file, or `--verbose`) prints the tree of describes and tests, two
/// spaces per level, each test behind an icon (`✓` passed, `✕` failed, `○ skipped`, `✎ todo`);
/// a failing file's `● describe › test` blocks name its failures in any mode.
#[derive(Default)]
struct Tree {
    tests: TestList,
    /// The file of the last header, and whether it failed.
    file: Option<(String, bool)>,
    /// Inside the tree of the last header (it ends at the first `●` or summary line).
    in_tree: bool,
    /// The open describes: (indent, title).
    describes: Vec<(usize, String)>,
}

impl Tree {
    fn line(&mut self, line: &str) {
        let t = line.trim();
        if let Some((file, failed)) = header(t) {
            self.file = Some((file.to_owned(), failed));
            self.in_tree = true;
            self.describes.clear();
            return;
        }
        if t.starts_with("Test Suites:") || t.starts_with("Tests:") {
            self.file = None;
            self.in_tree = false;
            return;
        }
        let Some((file, failed)) = &self.file else {
            return;
        };
        if let Some(name) = t.strip_prefix("● ") {
            self.in_tree = false;
            if *failed {
                let name = name.trim();
                if name == "Test suite failed to run" {
                    self.tests.add(file, TestStatus::Failed);
                } else {
                    let parts: Vec<&str> = name.split(" › ").collect();
                    self.tests
                        .add(&join_id(file, &[], &parts), TestStatus::Failed);
                }
            }
            return;
        }
        if !self.in_tree || t.is_empty() {
            return;
        }
        let indent = line.len() - line.trim_start().len();
        self.describes.retain(|(i, _)| *i < indent);
        match test_entry(t) {
            Some((status, title)) => {
                let describes: Vec<&str> = self.describes.iter().map(|(_, d)| d.as_str()).collect();
                self.tests.add(&join_id(file, &describes, &[title]), status);
            }
            None => self.describes.push((indent, t.to_owned())),
        }
    }
}

/// `PASS path/a.test.js` or `FAIL path/a.test.js (5.2 s)` → (`path/a.test.js`, failed).
fn header(t: &str) -> Option<(&str, bool)> {
    let (rest, failed) = match t.strip_prefix("PASS ") {
        Some(r) => (r, false),
        None => (t.strip_prefix("FAIL ")?, true),
    };
    let rest = rest.trim();
    let file = match rest.rsplit_once(" (") {
        Some((f, d)) if d.ends_with(" s)") || d.ends_with("ms)") => f.trim(),
        _ => rest,
    };
    (!file.is_empty() && !file.contains(' ')).then_some((file, failed))
}

/// `✓ adds (7 ms)` → (Passed, `adds`); `○ skipped later` → (Skipped, `later`);
/// `✎ todo some day` → (Skipped, `some day`). `√` and `×` are the Windows icons.
fn test_entry(t: &str) -> Option<(TestStatus, &str)> {
    let mut chars = t.chars();
    let icon = chars.next()?;
    let rest = chars.as_str().strip_prefix(' ')?;
    let (status, title) = match icon {
        '✓' | '√' => (TestStatus::Passed, rest),
        '✕' | '×' => (TestStatus::Failed, rest),
        '○' => (
            TestStatus::Skipped,
            rest.strip_prefix("skipped ").unwrap_or(rest),
        ),
        '✎' => (
            TestStatus::Skipped,
            rest.strip_prefix("todo ").unwrap_or(rest),
        ),
        _ => return None,
    };
    Some((status, strip_duration(title)))
}

/// `adds (7 ms)` → `adds`; `slow one (1.2 s)` → `slow one`.
fn strip_duration(title: &str) -> &str {
    if let Some((name, d)) = title.rsplit_once(" (") {
        let d = d.strip_suffix(" ms)").or_else(|| d.strip_suffix(" s)"));
        if d.is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.')) {
            return name;
        }
    }
    title
}

fn join_id(file: &str, describes: &[&str], names: &[&str]) -> String {
    let mut id = file.to_owned();
    for part in describes.iter().chain(names) {
        id.push_str(" > ");
        id.push_str(part.trim());
    }
    id
}

/// jest's code frame lines look like `> 4 |   test(...)` or `    |    ^`.
fn is_code_frame(line: &str) -> bool {
    let t = line.trim_start().trim_start_matches('>').trim_start();
    match t.split_once('|') {
        Some((num, _)) => num.trim().chars().all(|c| c.is_ascii_digit()),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_that_failed_to_run_counts_as_a_failure() {
        let json = r#"{"numPassedTests":0,"numFailedTests":0,"numPendingTests":0,"numTotalTests":0,
            "testResults":[{"name":"/p/a.test.js","status":"failed","message":"SyntaxError: Unexpected token","assertionResults":[]}]}"#;
        let s = parse_json(json, Runner::Jest).unwrap();
        assert_eq!(s.failed, 1);
        assert_eq!(s.failing, ["/p/a.test.js"]);
        assert!(s.first_failure.unwrap().contains("SyntaxError"));
    }

    #[test]
    fn tree_entries() {
        assert_eq!(
            test_entry("✓ fine (with parens) (3 ms)"),
            Some((TestStatus::Passed, "fine (with parens)"))
        );
        assert_eq!(
            test_entry("✕ slow (1.5 s)"),
            Some((TestStatus::Failed, "slow"))
        );
        assert_eq!(
            test_entry("✎ todo some day"),
            Some((TestStatus::Skipped, "some day"))
        );
        assert_eq!(test_entry("math"), None);
        assert_eq!(
            header("FAIL src/a.test.js (5.123 s)"),
            Some(("src/a.test.js", true))
        );
        assert_eq!(header("PASS"), None);
    }

    #[test]
    fn code_frames_are_recognised() {
        assert!(is_code_frame("    > 4 |   test('x')"));
        assert!(is_code_frame("      |    ^"));
        assert!(!is_code_frame("    Expected: 5"));
    }
}
