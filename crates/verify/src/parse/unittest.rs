//! Python unittest's console output (stderr): `Ran N tests in 0.001s`, then `OK`,
//! `OK (skipped=1)` or `FAILED (failures=1, errors=1, skipped=1)`, with `FAIL: name (module.Class.name)`
//! and `ERROR: ...` sections before it.

use super::{Runner, TestSummary};

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    let mut s = TestSummary::new(Runner::Unittest);
    let mut ran: Option<u64> = None;
    let mut verdict_seen = false;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
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
    Some(s)
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
    fn ran_without_verdict_is_not_a_result() {
        assert!(parse("Ran 3 tests in 0.1s\n").is_none());
    }
}
