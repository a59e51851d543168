//! jest: the `--json` report (whose shape vitest's JSON reporter copies, so vitest uses it too)
//! and the human summary (`Tests:       1 failed, 1 skipped, 2 passed, 4 total`) with its
//! `● suite › test` failure blocks.

use serde::Deserialize;

use super::{Runner, TestSummary, counts};

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
    for file in &report.test_results {
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
        }
    }
    Some(s)
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
    let mut seen = false;
    for line in text.lines() {
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
    fn code_frames_are_recognised() {
        assert!(is_code_frame("    > 4 |   test('x')"));
        assert!(is_code_frame("      |    ^"));
        assert!(!is_code_frame("    Expected: 5"));
    }
}
