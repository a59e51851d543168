//! vitest's human output: `Tests  1 failed | 2 passed | 1 skipped (4)` and the
//! `FAIL  file > suite > test` blocks. The `--reporter=json` report has jest's shape and is
//! read by the jest parser.

use super::{Runner, TestList, TestStatus, TestSummary, counts};

/// One test of `vitest list --json` (documented: its name with its describes joined by ` > `,
/// its file's absolute path).
#[derive(serde::Deserialize)]
struct Listed {
    name: String,
    file: String,
}

/// The collection pass's listing (`crate::collect`): `vitest list --json` collects the test
/// files (their imports run, their tests do not) and prints every test that is not skipped at
/// collection (`test.skip`, `.todo` are left out). Each as `file > describe > test`, `Passed`
/// (it runs).
pub(crate) fn listing(text: &str) -> Option<Vec<(String, TestStatus)>> {
    let start = text.find('[')?;
    let listed: Vec<Listed> = serde_json::from_str(text[start..].trim()).ok()?;
    Some(
        listed
            .into_iter()
            .map(|l| {
                (
                    format!("{} > {}", l.file.trim(), l.name.trim()),
                    TestStatus::Passed,
                )
            })
            .collect(),
    )
}

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    let mut s = TestSummary::new(Runner::Vitest);
    let mut tests = TestList::default();
    let mut seen = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some((status, id)) = verbose_line(t) {
            tests.add(id, status);
        } else if let Some(id) = t.strip_prefix("FAIL ").and_then(fail_header_id) {
            tests.add(id, TestStatus::Failed);
        }
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
    s.tests = tests.into_vec();
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

/// A `--reporter=verbose` line: `✓ math.test.js > math > adds 1ms` → (Passed,
/// `math.test.js > math > adds`); `×` failed, `↓` skipped, `□` todo. The default reporter's
/// tree (`✓ adds 1ms` under a file line) omits the describes, so lines without a
/// `file > ` prefix are not ids and give `None`.
fn verbose_line(t: &str) -> Option<(TestStatus, &str)> {
    let mut chars = t.chars();
    let status = match chars.next()? {
        '✓' | '√' => TestStatus::Passed,
        '×' | '✕' => TestStatus::Failed,
        '↓' | '□' => TestStatus::Skipped,
        _ => return None,
    };
    let rest = chars.as_str().trim();
    let (file, _) = rest.split_once(" > ")?;
    if !file.contains('.') || file.contains(' ') {
        return None;
    }
    let id = match status {
        // Tests that ran end with their duration (`1ms`, `1.2s`).
        TestStatus::Passed | TestStatus::Failed => match rest.rsplit_once(' ') {
            Some((id, d)) if is_duration(d) => id,
            _ => rest,
        },
        _ => rest,
    };
    Some((status, id.trim_end()))
}

fn is_duration(d: &str) -> bool {
    let n = d.strip_suffix("ms").or_else(|| d.strip_suffix('s'));
    n.is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The id of a `FAIL  file > describe > test` header; a file that failed to load
/// (`FAIL  a.test.js [ a.test.js ]`) is the file.
fn fail_header_id(rest: &str) -> Option<&str> {
    let rest = rest.trim();
    let id = match rest.split_once(" [ ") {
        Some((file, tail)) if tail.ends_with(" ]") && !file.contains(" > ") => file.trim(),
        _ => rest,
    };
    (!id.is_empty()).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passing_run() {
        let s = parse(" Test Files  1 passed (1)\n      Tests  3 passed (3)\n").unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (3, 0, 0));
        assert!(s.tests.is_empty());
    }

    #[test]
    fn verbose_lines_and_fail_headers() {
        assert_eq!(
            verbose_line("✓ a.test.ts > s > takes 5s 12ms"),
            Some((TestStatus::Passed, "a.test.ts > s > takes 5s"))
        );
        assert_eq!(
            verbose_line("↓ a.test.ts > s > later"),
            Some((TestStatus::Skipped, "a.test.ts > s > later"))
        );
        // The default reporter's file and tree lines.
        assert_eq!(verbose_line("✓ other.test.js (1 test) 2ms"), None);
        assert_eq!(verbose_line("✓ adds 1ms"), None);
        assert_eq!(
            fail_header_id(" a.test.js [ a.test.js ]"),
            Some("a.test.js")
        );
        assert_eq!(
            fail_header_id(" a.test.js > s > t"),
            Some("a.test.js > s > t")
        );
    }
}
