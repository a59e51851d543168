//! vitest's human output: `Tests  1 failed | 2 passed | 1 skipped (4)` and the
//! `FAIL  file > suite > test` blocks. The `--reporter=json` report has jest's shape and is
//! read by the jest parser.

use super::{Runner, TestSummary, counts};

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    let mut s = TestSummary::new(Runner::Vitest);
    let mut seen = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(list) = t.strip_prefix("Tests ").filter(|l| l.contains('(')) {
            seen = true;
            let list = list.split_once('(').map(|(l, _)| l).unwrap_or(list);
            for (label, n) in counts(list, &['|']) {
                match label.as_str() {
                    "passed" => s.passed = s.passed.saturating_add(n),
                    "failed" => s.failed = s.failed.saturating_add(n),
                    "skipped" | "todo" => s.skipped = s.skipped.saturating_add(n),
                    _ => {}
                }
            }
        } else if let Some(name) = t.strip_prefix("FAIL ") {
            s.add_failing(name.trim());
        }
    }
    if !seen {
        return None;
    }
    // The lines after the first FAIL header, up to the source location (`❯ file:line`).
    let mut lines = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("FAIL "));
    if let Some(header) = lines.next() {
        let body: Vec<&str> = lines
            .take_while(|l| {
                !l.trim_start().starts_with('❯') && !l.trim_start().starts_with("FAIL ")
            })
            .filter(|l| !l.trim().is_empty())
            .collect();
        let header = header.trim().trim_start_matches("FAIL").trim();
        s.set_first_failure(&format!("{header}\n{}", body.join("\n")));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passing_run() {
        let s = parse(" Test Files  1 passed (1)\n      Tests  3 passed (3)\n").unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (3, 0, 0));
    }
}
