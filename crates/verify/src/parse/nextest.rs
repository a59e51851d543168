//! cargo-nextest's human output (written to stderr): status lines such as
//! `FAIL [   0.010s] (2/5) demo tests::adds_wrong` and the closing
//! `Summary [   0.020s] 5 tests run: 3 passed, 2 failed, 1 skipped`.
//! The libtest-json mode is delegated to the libtest-json parser; JUnit goes to the JUnit parser.

use super::{Runner, TestList, TestStatus, TestSummary, counts, libtest_json, rust_panic};

/// Status words nextest prints for a test that did not pass.
const FAIL_STATUSES: &[&str] = &[
    "FAIL",
    "TIMEOUT",
    "SIGSEGV",
    "SIGABRT",
    "SIGKILL",
    "ABORT",
    "LEAK-FAIL",
];

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    if text.contains("\"type\"")
        && let Some(s) = libtest_json::parse(text, Runner::Nextest)
    {
        return Some(s);
    }
    let mut s = TestSummary::new(Runner::Nextest);
    let mut tests = TestList::default();
    let mut seen_summary = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some((status, name)) = status_line(t) {
            tests.add(name, status);
        }
        if let Some(rest) = t.strip_prefix("Summary [") {
            // "   0.020s] 5 tests run: 3 passed, 2 failed, 1 skipped"
            let Some((_, after)) = rest.split_once("run:") else {
                continue;
            };
            seen_summary = true;
            for (label, n) in counts(&drop_parens(after), &[',']) {
                if label == "passed" {
                    s.passed = s.passed.saturating_add(n);
                } else if label == "skipped" {
                    s.skipped = s.skipped.saturating_add(n);
                } else if label == "failed"
                    || label == "timed out"
                    || label.starts_with("exec fail")
                {
                    s.failed = s.failed.saturating_add(n);
                }
            }
        } else if let Some(name) = status_line_name(t) {
            s.add_failing(&name);
        }
    }
    if !seen_summary {
        return None;
    }
    s.tests = tests.into_vec();
    // The first failure's captured output follows its first FAIL line, indented.
    if let Some(first) = s.failing.first().cloned() {
        let after: Vec<&str> = text
            .lines()
            .skip_while(|l| status_line_name(l.trim()).as_deref() != Some(first.as_str()))
            .skip(1)
            .take_while(|l| {
                status_line_name(l.trim()).is_none() && !l.trim().starts_with("Summary [")
            })
            .collect();
        if let Some(msg) = rust_panic(&after.join("\n"), &first) {
            s.set_first_failure(&msg);
        }
    }
    Some(s)
}

/// The test name of a failing status line: `FAIL [ 0.01s] (2/5) binary test::name`.
fn status_line_name(t: &str) -> Option<String> {
    let (word, rest) = t.split_once(" [")?;
    if !FAIL_STATUSES.contains(&word.trim()) {
        return None;
    }
    let (_, after) = rest.split_once(']')?;
    let mut after = after.trim();
    // Newer nextest prints a "(2/5)" progress counter before the name.
    if after.starts_with('(') {
        after = after
            .split_once(')')
            .map(|(_, r)| r.trim())
            .unwrap_or(after);
    }
    (!after.is_empty()).then(|| after.to_owned())
}

/// Any final status line: `PASS [ 0.01s] (1/5) demo tests::adds` → `(Passed, "demo tests::adds")`
/// (nextest's own id: binary id, a space, the test name). `SKIP` lines appear with
/// `--status-level skip` or higher; `FLAKY` (passed on a retry) is a pass. Retry attempts
/// (`TRY 2 FAIL`), `SLOW`, `START` and the like are not final and give `None`.
fn status_line(t: &str) -> Option<(TestStatus, &str)> {
    let (word, rest) = t.split_once(" [")?;
    let word = word.trim();
    let status = if FAIL_STATUSES.contains(&word) {
        TestStatus::Failed
    } else if word == "PASS" || word == "LEAK" || word.starts_with("FLAKY") {
        TestStatus::Passed
    } else if word == "SKIP" {
        TestStatus::Skipped
    } else {
        return None;
    };
    let (_, after) = rest.split_once(']')?;
    let mut after = after.trim();
    if after.starts_with('(') {
        after = after
            .split_once(')')
            .map(|(_, r)| r.trim())
            .unwrap_or(after);
    }
    (!after.is_empty()).then_some((status, after))
}

/// Removes parenthesised details such as `3 passed (1 slow, 1 flaky)`, whose commas would
/// otherwise split the list.
fn drop_parens(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth = depth.saturating_add(1),
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_format_and_flaky_details() {
        let text = "    Starting 3 tests across 1 binary\n        PASS [   0.01s] demo a\n        FAIL [   0.01s] demo b\n------------\n     Summary [   0.02s] 3 tests run: 2 passed (1 flaky, 1 slow), 1 failed, 0 skipped\n";
        let s = parse(text).unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (2, 1, 0));
        assert_eq!(s.failing, ["demo b"]);
        let ids: Vec<(&str, TestStatus)> =
            s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            ids,
            [
                ("demo a", TestStatus::Passed),
                ("demo b", TestStatus::Failed)
            ]
        );
    }

    #[test]
    fn retries_skips_and_flaky_tests() {
        let text = "   TRY 1 FAIL [   0.01s] demo flaky\n   TRY 2 PASS [   0.01s] demo flaky\n        SKIP [         ] demo later\n        SLOW [> 60.0s] demo slow\n        PASS [  61.0s] demo slow\n------------\n     Summary [   0.02s] 2 tests run: 2 passed (1 flaky), 1 skipped\n       FLAKY 2/2 [   0.01s] demo flaky\n";
        let s = parse(text).unwrap();
        let ids: Vec<(&str, TestStatus)> =
            s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            ids,
            [
                ("demo later", TestStatus::Skipped),
                ("demo slow", TestStatus::Passed),
                ("demo flaky", TestStatus::Passed)
            ]
        );
        assert!(s.failing.is_empty());
    }

    #[test]
    fn timeout_counts_as_failure() {
        let text = "     TIMEOUT [  60.0s] demo slow\n     Summary [  60.1s] 2 tests run: 1 passed, 1 timed out, 0 skipped\n";
        let s = parse(text).unwrap();
        assert_eq!((s.passed, s.failed), (1, 1));
        assert_eq!(s.failing, ["demo slow"]);
    }
}
