//! Python unittest's console output (stderr): `Ran N tests in 0.001s`, then `OK`,
//! `OK (skipped=1)` or `FAILED (failures=1, errors=1, skipped=1)`, with `FAIL: name (module.Class.name)`
//! and `ERROR: ...` sections before it.

use super::{Runner, TestList, TestStatus, TestSummary};

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    let mut s = TestSummary::new(Runner::Unittest);
    let mut tests = TestList::default();
    // `-v` prints a test with a docstring as its header line, then `<doc> ... ok` below it.
    let mut pending: Option<String> = None;
    let mut ran: Option<u64> = None;
    let mut verdict_seen = false;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        match verbose_line(t) {
            Some((Some(header), Some(status))) => {
                tests.add(&qualified_name(header), status);
                pending = None;
            }
            Some((None, Some(status))) => {
                if let Some(id) = pending.take() {
                    tests.add(&id, status);
                }
            }
            Some((Some(header), None)) => pending = Some(qualified_name(header)),
            _ => pending = None,
        }
        if let Some(header) = ["FAIL: ", "ERROR: ", "UNEXPECTED SUCCESS: "]
            .iter()
            .find_map(|p| t.strip_prefix(p))
        {
            // A failure section names the test even without `-v`.
            tests.add(&qualified_name(section_name(header)), TestStatus::Failed);
        }
        if let Some(rest) = t.strip_prefix("Ran ") {
            if let Some(n) = rest
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
            {
                ran = Some(n);
            }
        } else if ran.is_some() && (t == "OK" || t.starts_with("OK (") || t.starts_with("FAILED ("))
        {
            verdict_seen = true;
            let inner = t
                .split_once('(')
                .map(|(_, r)| r.trim_end_matches(')'))
                .unwrap_or("");
            for part in inner.split(',') {
                let Some((k, v)) = part.split_once('=') else {
                    continue;
                };
                let v = v.trim().parse::<u64>().unwrap_or(0);
                match k.trim() {
                    "failures" | "errors" | "unexpected successes" => {
                        s.failed = s.failed.saturating_add(v)
                    }
                    "skipped" | "expected failures" => s.skipped = s.skipped.saturating_add(v),
                    _ => {}
                }
            }
        } else if let Some(header) = t
            .strip_prefix("FAIL: ")
            .or_else(|| t.strip_prefix("ERROR: "))
        {
            let name = qualified_name(header);
            s.add_failing(&name);
            if s.first_failure.is_none() {
                // Skip the dashed rule, then keep the traceback up to the next rule.
                let block: Vec<&str> = lines
                    .by_ref()
                    .skip_while(|l| l.trim().starts_with("---"))
                    .take_while(|l| !l.starts_with("====") && !l.starts_with("----"))
                    .collect();
                let last = block
                    .iter()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .copied()
                    .unwrap_or("");
                s.set_first_failure(&format!("{name}: {}", last.trim()));
            }
        }
    }
    let ran = ran?;
    if !verdict_seen {
        return None;
    }
    s.passed = ran.saturating_sub(s.failed).saturating_sub(s.skipped);
    s.tests = tests.into_vec();
    Some(s)
}

/// A `-v` result line: `test_a (m.C.test_a) ... ok` gives `(Some(header), Some(status))`; the
/// header of a documented test alone on its line gives `(Some(header), None)`; its docstring
/// line `Checks x ... FAIL` gives `(None, Some(status))`. `None` for any other line.
fn verbose_line(t: &str) -> Option<(Option<&str>, Option<TestStatus>)> {
    if !t.contains(" ... ") {
        return is_header(t).then_some((Some(t), None));
    }
    // A docstring may hold ` ... ` (split at the last), a skip reason too (split at the first).
    [t.rsplit_once(" ... "), t.split_once(" ... ")]
        .into_iter()
        .flatten()
        .find_map(|(head, result)| {
            let status = result_status(result)?;
            Some((is_header(head).then_some(head), Some(status)))
        })
}

/// What unittest prints after ` ... `.
fn result_status(result: &str) -> Option<TestStatus> {
    let r = result.trim();
    Some(if r == "ok" {
        TestStatus::Passed
    } else if r == "FAIL" || r == "ERROR" || r == "unexpected success" {
        TestStatus::Failed
    } else if r == "expected failure" {
        TestStatus::XFailed
    } else if r == "skipped" || r.starts_with("skipped ") {
        TestStatus::Skipped
    } else {
        return None;
    })
}

/// `test_x (pkg.mod.Class.test_x)` or `test_x (pkg.mod.Class)`: a method name, then a dotted
/// name in parentheses.
fn is_header(t: &str) -> bool {
    let Some((method, rest)) = t.split_once(" (") else {
        return false;
    };
    let Some(inner) = rest.strip_suffix(')') else {
        return false;
    };
    let ident = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_');
    ident(method) && inner.contains('.') && inner.split('.').all(ident)
}

/// The test of a failure section header: `test_x (m.C.test_x) [subtest msg] (i=1)` →
/// `test_x (m.C.test_x)` (subtests fail their test).
fn section_name(header: &str) -> &str {
    let header = header.trim();
    match header.find(") ") {
        Some(i) => header.get(..=i).unwrap_or(header),
        None => header,
    }
}

/// `test_fail (pkg.Class.test_fail)` (3.11+) or `test_fail (pkg.Class)` (older) to
/// `pkg.Class.test_fail`.
fn qualified_name(header: &str) -> String {
    let header = header.trim();
    match header.split_once(" (") {
        Some((method, rest)) => {
            let inner = rest.trim_end_matches(')');
            if inner.ends_with(&format!(".{method}")) {
                inner.to_owned()
            } else {
                format!("{inner}.{method}")
            }
        }
        None => header.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ok_with_skips_and_older_names() {
        let s = parse("..s\n----------------------------------------------------------------------\nRan 3 tests in 0.000s\n\nOK (skipped=1)\n").unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (2, 0, 1));
        assert_eq!(qualified_name("test_x (m.C)"), "m.C.test_x");
    }

    #[test]
    fn verbose_lines_and_headers() {
        assert!(is_header("test_x (m.C.test_x)"));
        assert!(is_header("test_x (m.C)"));
        assert!(!is_header("Checks the documented behaviour (carefully)"));
        assert_eq!(
            section_name("test_x (m.C.test_x) [sub] (i=1)"),
            "test_x (m.C.test_x)"
        );
        assert_eq!(
            verbose_line("test_x (m.C) ... skipped 'later'"),
            Some((Some("test_x (m.C)"), Some(TestStatus::Skipped)))
        );
        assert_eq!(
            verbose_line("test_x (m.C) ... skipped 'a ... b'"),
            Some((Some("test_x (m.C)"), Some(TestStatus::Skipped)))
        );
        assert_eq!(
            verbose_line("Checks it ... carefully. ... FAIL"),
            Some((None, Some(TestStatus::Failed)))
        );
        assert_eq!(verbose_line("some output ... more"), None);
    }

    #[test]
    fn ran_without_verdict_is_not_a_result() {
        assert!(parse("Ran 3 tests in 0.1s\n").is_none());
    }
}
