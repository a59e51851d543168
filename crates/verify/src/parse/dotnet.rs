//! `dotnet test`: the VSTest console summary (one line per test assembly,
//! `Failed!  - Failed:     1, Passed:     3, Skipped:     0, Total:     4, Duration: 45 ms - X.dll`),
//! its `  Failed Name [12 ms]` / `  Error Message:` blocks, the Microsoft.Testing.Platform
//! summary (`Test run summary: Failed!` then `  total: 4`, `  failed: 1`, ...), and TRX reports.

use super::{Runner, TestList, TestStatus, TestSummary, counts};

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    let mut s = TestSummary::new(Runner::DotnetTest);
    let mut tests = TestList::default();
    let mut seen = false;
    let mut in_mtp_summary = false;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if let Some((status, name)) = result_line(t) {
            tests.add(name, status);
        }
        let vstest = t
            .strip_prefix("Failed!")
            .or_else(|| t.strip_prefix("Passed!"))
            .map(|r| r.trim_start().trim_start_matches('-').trim());
        if let Some(list) = vstest.filter(|l| l.starts_with("Failed:")) {
            seen = true;
            for (label, n) in colon_counts(list) {
                match label.as_str() {
                    "failed" => s.failed = s.failed.saturating_add(n),
                    "passed" => s.passed = s.passed.saturating_add(n),
                    "skipped" => s.skipped = s.skipped.saturating_add(n),
                    _ => {}
                }
            }
            continue;
        }
        if t.starts_with("Test run summary:") {
            seen = true;
            in_mtp_summary = true;
            continue;
        }
        if in_mtp_summary {
            let Some((k, v)) = t.split_once(':') else {
                in_mtp_summary = !t.is_empty();
                continue;
            };
            let n = v.trim().parse::<u64>().unwrap_or(0);
            match k.trim() {
                "failed" => s.failed = s.failed.saturating_add(n),
                "succeeded" => s.passed = s.passed.saturating_add(n),
                "skipped" => s.skipped = s.skipped.saturating_add(n),
                "duration" => in_mtp_summary = false,
                _ => {}
            }
            continue;
        }
        // VSTest: "  Failed Ns.Class.Method [12 ms]"; MTP: "failed Ns.Class.Method (12ms)".
        let failed_name = t
            .strip_prefix("Failed ")
            .or_else(|| t.strip_prefix("failed "))
            .and_then(|r| r.rsplit_once(" [").or_else(|| r.rsplit_once(" (")))
            .map(|(name, _)| name.trim());
        if let Some(name) = failed_name {
            s.add_failing(name);
            if s.first_failure.is_none() {
                let mut msg = Vec::new();
                while let Some(next) = lines.peek() {
                    let n = next.trim();
                    let stop = [
                        "Stack Trace:",
                        "Standard Output",
                        "Failed",
                        "failed ",
                        "at ",
                        "Passed",
                        "Test run summary:",
                    ];
                    if stop.iter().any(|p| n.starts_with(p)) {
                        break;
                    }
                    // VSTest puts the message under "Error Message:"; MTP right under the name.
                    if !n.is_empty() && n != "Error Message:" {
                        msg.push(n.to_owned());
                    }
                    lines.next();
                }
                s.set_first_failure(&format!("{name}\n{}", msg.join("\n").trim()));
            }
        }
    }
    s.tests = tests.into_vec();
    seen.then_some(s)
}

/// A per-test result line with its duration: VSTest `  Passed Ns.C.M [1 ms]` (passed tests
/// only at `--verbosity normal` or with `--logger "console;verbosity=normal"`; failed and
/// skipped ones always), Microsoft.Testing.Platform `failed Ns.C.M (12ms)` (passed and skipped
/// ones with `--output detailed`).
fn result_line(t: &str) -> Option<(TestStatus, &str)> {
    let (word, rest) = t.split_once(' ')?;
    let status = match word {
        "Passed" | "passed" => TestStatus::Passed,
        "Failed" | "failed" => TestStatus::Failed,
        "Skipped" | "skipped" => TestStatus::Skipped,
        _ => return None,
    };
    let (name, time) = rest.rsplit_once(" [").or_else(|| rest.rsplit_once(" ("))?;
    // The duration: `12 ms]`, `1 s]`, `< 1 ms]`, `(12ms)`.
    let closed = time.ends_with(']') || time.ends_with(')');
    if !closed || !time.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let name = name.trim();
    (!name.is_empty()).then_some((status, name))
}

/// `Failed:     1, Passed:     3` → `[("failed", 1), ("passed", 3)]`.
fn colon_counts(list: &str) -> Vec<(String, u64)> {
    let swapped: Vec<String> = list
        .split(',')
        .filter_map(|p| {
            let (k, v) = p.split_once(':')?;
            let v = v.split_whitespace().next()?;
            Some(format!("{v} {}", k.trim()))
        })
        .collect();
    counts(&swapped.join(","), &[','])
}

/// A TRX (Visual Studio test results) report: one `UnitTestResult` per test, with
/// `outcome` and, on failure, `Output/ErrorInfo/Message`.
pub(crate) fn parse_trx(text: &str) -> Option<TestSummary> {
    let doc = roxmltree::Document::parse(text.trim_start_matches('\u{feff}')).ok()?;
    let root = doc.root_element();
    if root.tag_name().name() != "TestRun" {
        return None;
    }
    let mut s = TestSummary::new(Runner::DotnetTest);
    let mut tests = TestList::default();
    for r in root
        .descendants()
        .filter(|n| n.tag_name().name() == "UnitTestResult")
    {
        let name = r.attribute("testName").unwrap_or("");
        match r.attribute("outcome").unwrap_or("") {
            "Passed" => {
                s.passed = s.passed.saturating_add(1);
                tests.add(name, TestStatus::Passed);
            }
            "Failed" | "Error" | "Timeout" | "Aborted" => {
                s.failed = s.failed.saturating_add(1);
                tests.add(name, TestStatus::Failed);
                s.add_failing(name);
                let message = r
                    .descendants()
                    .find(|n| n.tag_name().name() == "Message")
                    .and_then(|n| n.text())
                    .unwrap_or("");
                s.set_first_failure(&format!("{name}\n{}", message.trim()));
            }
            _ => {
                s.skipped = s.skipped.saturating_add(1);
                tests.add(name, TestStatus::Skipped);
            }
        }
    }
    s.tests = tests.into_vec();
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passed_line_sums_across_assemblies() {
        let text = "Passed!  - Failed:     0, Passed:     2, Skipped:     1, Total:     3, Duration: 5 ms - A.dll (net8.0)\nFailed!  - Failed:     1, Passed:     1, Skipped:     0, Total:     2, Duration: 5 ms - B.dll (net8.0)\n";
        let s = parse(text).unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (3, 1, 1));
        assert!(s.tests.is_empty());
    }

    #[test]
    fn result_lines() {
        assert_eq!(
            result_line("Passed Ns.C.M(x: 1) [< 1 ms]"),
            Some((TestStatus::Passed, "Ns.C.M(x: 1)"))
        );
        assert_eq!(
            result_line("failed Ns.C.M (12ms)"),
            Some((TestStatus::Failed, "Ns.C.M"))
        );
        assert_eq!(result_line("Failed!  - Failed:     1, Passed:     3"), None);
        assert_eq!(result_line("failed: 1"), None);
        assert_eq!(result_line("Passed the test (eventually)"), None);
    }

    #[test]
    fn trx_rejects_other_xml() {
        assert!(parse_trx("<testsuites/>").is_none());
        assert!(parse_trx("not xml").is_none());
    }
}
