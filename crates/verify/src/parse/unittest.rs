//! Python unittest's console output (stderr): `Ran N tests in 0.001s`, then `OK`,
//! `OK (skipped=1)` or `FAILED (failures=1, errors=1, skipped=1)`, with `FAIL: name (module.Class.name)`
//! and `ERROR: ...` sections before it.
//!
//! **subTests.** A failing subtest is printed as the test's header followed by its parameters,
//! `test_x (m.C.test_x) (i=3) ... FAIL` and `FAIL: test_x (m.C.test_x) [msg] (i=3)`. It gets an
//! id of its own, the test's id with the message and parameters in brackets:
//! `m.C.test_x[i=3]`, `m.C.test_x[msg]`, `m.C.test_x[msg, i=3]` (as unittest prints them,
//! values in `repr`). Its test keeps the plain id `m.C.test_x` (the id it has when it passes)
//! and fails with it. Passing subtests are not printed, so they get no id. unittest counts
//! failing subtests in `failures=`/`errors=`: `failed` is that count, and `passed` is the
//! tests none of whose subtests failed (`Ran` counts tests, not subtests).

use std::collections::HashSet;

use super::{Runner, TestList, TestStatus, TestSummary};

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    let mut s = TestSummary::new(Runner::Unittest);
    let mut tests = TestList::default();
    // `-v` prints a test with a docstring as its header line, then `<doc> ... ok` below it.
    let mut pending: Option<String> = None;
    let mut ran: Option<u64> = None;
    let mut verdict_seen = false;
    // Tests with a failure section, subtests folded into their test.
    let mut failed_tests: HashSet<String> = HashSet::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if let Some(chain) = chained_line(t) {
            // Python before 3.11: a test whose subtests failed prints no result, and the next
            // test's header follows on the same line.
            for (header, status) in chain {
                if let Some(status) = status {
                    add_result(&mut tests, header, status);
                }
            }
            pending = None;
        } else {
            match verbose_line(t) {
                Some((Some(header), Some(status))) => {
                    add_result(&mut tests, header, status);
                    pending = None;
                }
                Some((None, Some(status))) => {
                    if let Some(id) = pending.take() {
                        tests.add(&id, status);
                    }
                }
                Some((Some(header), None)) => pending = test_header(header).map(|h| h.id()),
                _ => pending = None,
            }
        }
        if let Some(header) = ["FAIL: ", "ERROR: ", "UNEXPECTED SUCCESS: "]
            .iter()
            .find_map(|p| t.strip_prefix(p))
        {
            // A failure section names the test even without `-v`.
            let h = test_header(header);
            let name = h
                .as_ref()
                .map_or_else(|| header.trim().to_owned(), |h| h.id());
            if let Some(h) = &h {
                tests.add(&h.test, TestStatus::Failed);
                failed_tests.insert(h.test.clone());
            }
            tests.add(&name, TestStatus::Failed);
            s.add_failing(&name);
            if s.first_failure.is_none() && !t.starts_with("UNEXPECTED SUCCESS: ") {
                // Skip the dashed rule, then keep the traceback up to the next rule.
                let block: Vec<&str> = lines
                    .by_ref()
                    .skip_while(|l| !l.trim().starts_with("---"))
                    .skip_while(|l| l.trim().starts_with("---"))
                    .take_while(|l| !l.starts_with("====") && !l.starts_with("----"))
                    .collect();
                s.set_first_failure(&format!("{name}: {}", exception(&block)));
            }
            continue;
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
        }
    }
    let ran = ran?;
    if !verdict_seen {
        return None;
    }
    // Subtests make `failures=` count more than tests; `Ran` counts tests.
    let failed_count = if failed_tests.is_empty() {
        s.failed
    } else {
        u64::try_from(failed_tests.len()).unwrap_or(u64::MAX)
    };
    s.passed = ran.saturating_sub(failed_count).saturating_sub(s.skipped);
    s.tests = tests.into_vec();
    Some(s)
}

/// A result line of a test or a subtest: the subtest's id, and a failing subtest fails its test.
fn add_result(tests: &mut TestList, header: &str, status: TestStatus) {
    match test_header(header) {
        Some(h) => {
            if h.subtest.is_some() && status == TestStatus::Failed {
                tests.add(&h.test, TestStatus::Failed);
            }
            tests.add(&h.id(), status);
        }
        None => tests.add(header, status),
    }
}

/// Python before 3.11 writes `test_a (m.C) ... test_b (m.C) ... ok` when `test_a`'s subtests
/// failed: every header, and the result of the last one.
fn chained_line(t: &str) -> Option<Vec<(&str, Option<TestStatus>)>> {
    let parts: Vec<&str> = t.split(" ... ").collect();
    if parts.len() < 2 || parts.len() == 2 && result_status(parts.last()?).is_some() {
        return None;
    }
    let (last, heads) = parts.split_last()?;
    if !heads.iter().all(|h| is_header(h)) {
        return None;
    }
    let (last_head, status) = match result_status(last) {
        Some(status) => (None, Some(status)),
        None if is_header(last.trim_end_matches(" ...")) => {
            (Some(last.trim_end_matches(" ...")), None)
        }
        None => return None,
    };
    let mut out: Vec<(&str, Option<TestStatus>)> = heads.iter().map(|h| (*h, None)).collect();
    match last_head {
        Some(h) => out.push((h, None)),
        None => {
            if let Some(l) = out.last_mut() {
                l.1 = status;
            }
        }
    }
    Some(out)
}

/// The exception that ends a traceback: from its first line (the first unindented line after
/// the frames of the last `Traceback`) to the end; the last non-blank line when there is none.
fn exception(block: &[&str]) -> String {
    let start = block
        .iter()
        .rposition(|l| l.starts_with("Traceback "))
        .and_then(|tb| {
            block
                .iter()
                .skip(tb + 1)
                .position(|l| !l.starts_with(' ') && !l.trim().is_empty())
                .map(|p| tb + 1 + p)
        });
    match start {
        Some(i) => block
            .get(i..)
            .unwrap_or_default()
            .iter()
            .map(|l| l.trim_end())
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_owned(),
        None => block
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim().to_owned())
            .unwrap_or_default(),
    }
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
            Some((test_header(head).is_some().then_some(head), Some(status)))
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
/// name in parentheses, then nothing.
fn is_header(t: &str) -> bool {
    test_header(t).is_some_and(|h| h.subtest.is_none())
}

/// A test named by a result line or a failure section.
#[derive(Debug, PartialEq, Eq)]
struct Header {
    /// `pkg.mod.Class.test_x`.
    test: String,
    /// `i=3`, `msg`, `msg, i=3` for a subtest.
    subtest: Option<String>,
}

impl Header {
    /// `pkg.mod.Class.test_x`, or `pkg.mod.Class.test_x[i=3]` for a subtest.
    fn id(&self) -> String {
        match &self.subtest {
            Some(sub) => format!("{}[{sub}]", self.test),
            None => self.test.clone(),
        }
    }
}

/// Reads `test_x (m.C.test_x)` (3.11+), `test_x (m.C)` (older), each optionally followed by a
/// subtest's `[msg]`, `(i=3)`, `[msg] (i=3)` or `(<subtest>)`.
fn test_header(t: &str) -> Option<Header> {
    let (method, rest) = t.trim().split_once(" (")?;
    let (inner, tail) = rest.split_once(')')?;
    let ident = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !(ident(method) && inner.contains('.') && inner.split('.').all(ident)) {
        return None;
    }
    let test = if inner.ends_with(&format!(".{method}")) {
        inner.to_owned()
    } else {
        format!("{inner}.{method}")
    };
    let tail = tail.trim();
    if tail.is_empty() {
        return Some(Header {
            test,
            subtest: None,
        });
    }
    let mut parts: Vec<&str> = Vec::new();
    let mut rest = tail;
    if let Some(after) = rest.strip_prefix('[') {
        // The message may hold brackets: it ends at the last `]` before the parameters.
        let end = match after.rfind("] (") {
            Some(i) if after.ends_with(')') => i,
            _ => after.rfind(']')?,
        };
        parts.push(after.get(..end)?);
        rest = after.get(end + 1..)?.trim();
    }
    if let Some(params) = rest.strip_prefix('(') {
        parts.push(params.strip_suffix(')')?);
    } else if !rest.is_empty() {
        return None;
    }
    let sub = parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    Some(Header {
        test,
        subtest: Some(if sub.is_empty() {
            "<subtest>".to_owned()
        } else {
            sub
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ok_with_skips_and_older_names() {
        let s = parse("..s\n----------------------------------------------------------------------\nRan 3 tests in 0.000s\n\nOK (skipped=1)\n").unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (2, 0, 1));
        assert_eq!(
            test_header("test_x (m.C)").map(|h| h.id()),
            Some("m.C.test_x".into())
        );
    }

    #[test]
    fn verbose_lines_and_headers() {
        assert!(is_header("test_x (m.C.test_x)"));
        assert!(is_header("test_x (m.C)"));
        assert!(!is_header("Checks the documented behaviour (carefully)"));
        assert!(!is_header("test_x (m.C.test_x) (i=1)"));
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
    fn subtest_headers_get_bracketed_ids() {
        let id = |t: &str| test_header(t).map(|h| h.id());
        assert_eq!(
            id("test_x (m.C.test_x) (i=3)"),
            Some("m.C.test_x[i=3]".into())
        );
        assert_eq!(
            id("test_x (m.C.test_x) [second case]"),
            Some("m.C.test_x[second case]".into())
        );
        assert_eq!(
            id("test_x (m.C.test_x) [a [b]] (n=1, s='x')"),
            Some("m.C.test_x[a [b], n=1, s='x']".into())
        );
        assert_eq!(
            id("test_x (m.C) (<subtest>)"),
            Some("m.C.test_x[<subtest>]".into())
        );
        assert_eq!(id("test_x (m.C.test_x) trailing"), None);
        assert_eq!(
            test_header("test_x (m.C.test_x) (i=3)").map(|h| h.test),
            Some("m.C.test_x".into())
        );
    }

    #[test]
    fn ran_without_verdict_is_not_a_result() {
        assert!(parse("Ran 3 tests in 0.1s\n").is_none());
    }
}
