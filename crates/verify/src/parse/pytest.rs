//! pytest's console output: the closing line (`=== 1 failed, 2 passed, 1 skipped in 0.05s ===`)
//! and the short test summary (`FAILED file.py::test - message`, shown by default for failures
//! and errors, and for every outcome with `-rA`). JUnit XML (`--junitxml`) goes to the JUnit parser.

use super::{Runner, TestSummary, counts};

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    let mut s = TestSummary::new(Runner::Pytest);
    let mut seen_summary = false;
    let mut first_summary_msg: Option<(String, String)> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(list) = closing_line(t) {
            seen_summary = true;
            // A run prints one closing line; keep the last in case output was concatenated.
            s.passed = 0;
            s.failed = 0;
            s.skipped = 0;
            for (label, n) in counts(list, &[',']) {
                match label.as_str() {
                    "passed" | "xpassed" => s.passed = s.passed.saturating_add(n),
                    "failed" | "error" | "errors" => s.failed = s.failed.saturating_add(n),
                    "skipped" | "xfailed" => s.skipped = s.skipped.saturating_add(n),
                    _ => {}
                }
            }
        } else if let Some(rest) = t
            .strip_prefix("FAILED ")
            .or_else(|| t.strip_prefix("ERROR "))
        {
            let (name, msg) = rest.split_once(" - ").unwrap_or((rest, ""));
            s.add_failing(name);
            if first_summary_msg.is_none() {
                first_summary_msg = Some((name.trim().to_owned(), msg.trim().to_owned()));
            }
        }
    }
    if !seen_summary {
        return None;
    }
    if let Some((name, msg)) = first_summary_msg {
        // Prefer the `E   ` lines of the test's section, which carry the assertion details.
        let short = name.rsplit("::").next().unwrap_or(&name).to_owned();
        let details = section_errors(text, &short);
        if details.is_empty() {
            s.set_first_failure(&format!("{name} - {msg}"));
        } else {
            s.set_first_failure(&format!("{name}\n{details}"));
        }
    }
    Some(s)
}

/// `1 failed, 2 passed in 0.05s` from a `=====` framed closing line.
fn closing_line(t: &str) -> Option<&str> {
    let inner = t
        .strip_prefix('=')?
        .trim_start_matches('=')
        .trim_end_matches('=')
        .trim();
    let (list, _) = inner.rsplit_once(" in ")?;
    let first = list.split_whitespace().next()?;
    (first.parse::<u64>().is_ok() || list.starts_with("no tests ran")).then_some(list)
}

/// The `E   ...` lines of the section whose header (`____ name ____` or
/// `____ ERROR at setup of name ____`) ends with `short`.
fn section_errors(text: &str, short: &str) -> String {
    let mut in_section = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('_') && t.ends_with('_') {
            if in_section {
                break;
            }
            let title = t.trim_matches('_').trim();
            in_section = title == short || title.ends_with(&format!(" {short}"));
            continue;
        }
        if t.starts_with("====") && in_section {
            break;
        }
        if in_section && let Some(e) = line.strip_prefix("E ") {
            out.push(e.trim().to_owned());
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_summary_without_details() {
        let s = parse("collected 3 items\n\nt.py ...                [100%]\n\n============================== 3 passed in 0.01s ===============================\n").unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (3, 0, 0));
        assert!(s.first_failure.is_none());
    }

    #[test]
    fn no_tests_ran() {
        let s = parse(
            "============================ no tests ran in 0.01s =============================",
        )
        .unwrap();
        assert_eq!(s.total(), 0);
    }
}
