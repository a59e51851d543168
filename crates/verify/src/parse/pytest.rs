//! pytest's console output: the closing line (`=== 1 failed, 2 passed, 1 skipped in 0.05s ===`,
//! unframed with `-q`)
//! and the short test summary (`FAILED file.py::test - message`, shown by default for failures
//! and errors, and for every outcome with `-rA`). JUnit XML (`--junitxml`) goes to the JUnit parser.

use super::{Runner, TestList, TestStatus, TestSummary, counts};

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    let mut s = TestSummary::new(Runner::Pytest);
    let mut tests = TestList::default();
    let mut seen_summary = false;
    let mut first_summary_msg: Option<(String, String)> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some((id, status)) = outcome_line(t) {
            tests.add(id, status);
        }
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
    s.tests = tests.into_vec();
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

/// A line naming one test's outcome, in any of the shapes pytest prints:
/// - `-v`: `tests/t.py::test_a PASSED    [ 50%]`, `tests/t.py::test_b SKIPPED (reason)`;
/// - `-v` with xdist: `[gw0] [ 50%] PASSED tests/t.py::test_a`;
/// - the short summary (`-rA`, and failures/errors by default): `FAILED tests/t.py::test_a - msg`,
///   `XFAIL tests/t.py::test_c - reason`. Its skip lines (`SKIPPED [1] t.py:13: reason`) name a
///   location, not a test, and give nothing.
///
/// The node id is everything up to the first space outside `[...]` (parameter ids may hold
/// spaces). Ids must look like node ids (`::` inside, or a `.py` file for a collection error).
fn outcome_line(t: &str) -> Option<(&str, TestStatus)> {
    let t = strip_xdist_prefix(t);
    // Status first (short summary, xdist).
    if let Some((word, rest)) = t.split_once(' ')
        && let Some(status) = status_word(word)
    {
        let (id, _) = split_node_id(rest.trim_start());
        return is_node_id(id).then_some((id, status));
    }
    // Node id first (-v).
    let (id, rest) = split_node_id(t);
    let word = rest.split_whitespace().next()?;
    let status = status_word(word)?;
    is_node_id(id).then_some((id, status))
}

fn status_word(word: &str) -> Option<TestStatus> {
    Some(match word {
        "PASSED" | "XPASS" => TestStatus::Passed,
        "FAILED" | "ERROR" => TestStatus::Failed,
        "SKIPPED" => TestStatus::Skipped,
        "XFAIL" => TestStatus::XFailed,
        _ => return None,
    })
}

/// `[gw0] [ 50%] PASSED t.py::a` → `PASSED t.py::a`.
fn strip_xdist_prefix(t: &str) -> &str {
    let Some(rest) = t.strip_prefix("[gw") else {
        return t;
    };
    let rest = rest
        .split_once(']')
        .map(|(_, r)| r.trim_start())
        .unwrap_or(rest);
    match rest.strip_prefix('[') {
        Some(r) => r.split_once(']').map(|(_, r)| r.trim_start()).unwrap_or(r),
        None => rest,
    }
}

/// Splits at the first space outside brackets: `t.py::f[a b] PASSED` → (`t.py::f[a b]`, ` PASSED`).
fn split_node_id(t: &str) -> (&str, &str) {
    let mut depth = 0usize;
    for (i, c) in t.char_indices() {
        match c {
            '[' => depth = depth.saturating_add(1),
            ']' => depth = depth.saturating_sub(1),
            ' ' if depth == 0 => return (t.get(..i).unwrap_or(t), t.get(i..).unwrap_or("")),
            _ => {}
        }
    }
    (t, "")
}

fn is_node_id(id: &str) -> bool {
    !id.is_empty() && !id.starts_with('[') && (id.contains("::") || id.ends_with(".py"))
}

/// `1 failed, 2 passed in 0.05s` from the closing line: framed by `=====`, or bare as `-q`
/// prints it. A bare line must be nothing but counts with pytest's own labels and a duration,
/// so that ordinary output is not taken for it.
fn closing_line(t: &str) -> Option<&str> {
    let Some(framed) = t.strip_prefix('=') else {
        return bare_closing_line(t);
    };
    let inner = framed.trim_start_matches('=').trim_end_matches('=').trim();
    let (list, _) = inner.rsplit_once(" in ")?;
    let first = list.split_whitespace().next()?;
    (first.parse::<u64>().is_ok() || list.starts_with("no tests ran")).then_some(list)
}

/// The labels of pytest's closing line.
const CLOSING_LABELS: &[&str] = &[
    "passed",
    "failed",
    "error",
    "errors",
    "skipped",
    "xfailed",
    "xpassed",
    "deselected",
    "warning",
    "warnings",
    "rerun",
];

fn bare_closing_line(t: &str) -> Option<&str> {
    let (list, time) = t.rsplit_once(" in ")?;
    // `0.05s`, `61.20s (0:01:01)`.
    let secs = time.split_whitespace().next()?.strip_suffix('s')?;
    secs.parse::<f64>().ok()?;
    if list == "no tests ran" {
        return Some(list);
    }
    let all_counts = list.split(", ").all(|piece| {
        piece
            .split_once(' ')
            .is_some_and(|(n, label)| n.parse::<u64>().is_ok() && CLOSING_LABELS.contains(&label))
    });
    all_counts.then_some(list)
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

    /// `pytest -q` prints its closing line without the frame: without reading it, a `-q` gate
    /// had neither counts nor ids.
    #[test]
    fn quiet_closing_line_is_read_and_ordinary_output_is_not() {
        let s = parse(".F.s\n\nFAILED tests/t.py::test_b - assert 0\n1 failed, 2 passed, 1 skipped, 1 xfailed in 0.03s\n").unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (2, 1, 2));
        assert_eq!(s.failing, ["tests/t.py::test_b"]);
        let slow = parse("....\n4 passed, 2 warnings in 61.20s (0:01:01)\n").unwrap();
        assert_eq!(slow.passed, 4);
        for other in [
            "3 apples in 2s",
            "we ran 3 passed in 2s",
            "3 passed in the end",
            "1 failed, then 2 passed in 0.1s",
        ] {
            assert!(parse(other).is_none(), "{other}");
        }
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
