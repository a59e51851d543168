//! mocha: the default `spec` reporter and the `json` reporter (`--reporter json`, on stdout or
//! in a `--reporter-option output={report}` file). `--reporter tap` goes to the TAP parser.
//!
//! The id is mocha's full title, the titles of the describes and the test joined by spaces
//! (`Calc nested divides`), because that is all the JSON reporter gives (`fullTitle`; it has no
//! list of parent titles) and the spec reporter's tree spells the same: one command gets the
//! same ids under either reporter. A failing hook is a test of its own, as mocha reports it:
//! `Hooks "before each" hook for "never runs"`. Two files with the same describe and test
//! titles share an id.
//!
//! spec: the tree (`✔ title`, `N) title` failing, `- title` pending, other lines are describe
//! titles, two spaces deeper per level), the counts from `N passing (5ms)`, `N pending`,
//! `N failing`, and the first failure from the first numbered block after them (its titles,
//! the assertion error and its diff, the first stack frame in the project).

use serde::Deserialize;

use super::{Runner, TestList, TestStatus, TestSummary};

#[derive(Deserialize)]
struct Report {
    stats: Stats,
    #[serde(default)]
    tests: Vec<Test>,
    #[serde(default)]
    pending: Vec<Test>,
    #[serde(default)]
    failures: Vec<Test>,
    #[serde(default)]
    passes: Vec<Test>,
}

#[derive(Deserialize)]
struct Stats {
    #[serde(default)]
    passes: u64,
    #[serde(default)]
    pending: u64,
    #[serde(default)]
    failures: u64,
}

#[derive(Deserialize)]
struct Test {
    #[serde(default, rename = "fullTitle")]
    full_title: String,
    #[serde(default)]
    err: Option<serde_json::Value>,
}

impl Test {
    fn failed(&self) -> bool {
        self.err
            .as_ref()
            .and_then(|e| e.as_object())
            .is_some_and(|e| !e.is_empty())
    }
}

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    parse_json(text).or_else(|| parse_spec(text))
}

/// The JSON reporter's object, wherever it starts (tests may print before it).
pub(crate) fn parse_json(text: &str) -> Option<TestSummary> {
    let at = text.find("\"stats\"")?;
    let start = text.get(..at)?.rfind('{')?;
    let mut stream = serde_json::Deserializer::from_str(text.get(start..)?).into_iter::<Report>();
    let report = stream.next()?.ok()?;
    let mut s = TestSummary::new(Runner::Mocha);
    s.passed = report.stats.passes;
    s.failed = report.stats.failures;
    s.skipped = report.stats.pending;
    let mut tests = TestList::default();
    let pending: std::collections::HashSet<&str> = report
        .pending
        .iter()
        .map(|t| t.full_title.as_str())
        .collect();
    let failed: std::collections::HashSet<&str> = report
        .failures
        .iter()
        .map(|t| t.full_title.as_str())
        .collect();
    for t in report.tests.iter().chain(&report.passes) {
        let status = if t.failed() || failed.contains(t.full_title.as_str()) {
            TestStatus::Failed
        } else if pending.contains(t.full_title.as_str()) {
            TestStatus::Skipped
        } else {
            TestStatus::Passed
        };
        tests.add(&t.full_title, status);
    }
    // Failing hooks are in `failures` only.
    for t in &report.failures {
        tests.add(&t.full_title, TestStatus::Failed);
        s.add_failing(&t.full_title);
    }
    if let Some(first) = report.failures.first() {
        let err = first.err.as_ref();
        let field = |k: &str| {
            err.and_then(|e| e.get(k))
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_owned()
        };
        let stack = field("stack");
        let body = if stack.trim().is_empty() {
            field("message")
        } else {
            let lines: Vec<&str> = stack.lines().collect();
            super::js_excerpt(&lines)
        };
        s.set_first_failure(&format!("{}\n{body}", first.full_title));
    }
    s.tests = tests.into_vec();
    Some(s)
}

fn parse_spec(text: &str) -> Option<TestSummary> {
    let lines: Vec<&str> = text.lines().collect();
    let summary_at = lines.iter().position(|l| passing_count(l).is_some())?;
    let mut s = TestSummary::new(Runner::Mocha);
    let mut tests = TestList::default();
    // The tree above the summary.
    let mut suites: Vec<(usize, &str)> = Vec::new();
    for line in lines.get(..summary_at).unwrap_or_default() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let t = line.trim();
        // Mocha indents every line of its tree; unindented lines are the tests' own output.
        if t.is_empty() || indent < 2 {
            continue;
        }
        suites.retain(|(d, _)| *d < indent);
        let (title, status) = if let Some(rest) = t.strip_prefix('✔').or(t.strip_prefix('✓')) {
            (strip_slow(rest.trim()), TestStatus::Passed)
        } else if let Some(rest) = t.strip_prefix("- ") {
            (rest.trim(), TestStatus::Skipped)
        } else if let Some(rest) = numbered(t) {
            (rest, TestStatus::Failed)
        } else {
            suites.push((indent, t));
            continue;
        };
        let mut path: Vec<&str> = suites.iter().map(|(_, n)| *n).collect();
        path.push(title);
        let id = path.join(" ");
        tests.add(&id, status);
        if status == TestStatus::Failed {
            s.add_failing(&id);
        }
    }
    for line in lines.get(summary_at..).unwrap_or_default() {
        let t = line.trim();
        if let Some(n) = passing_count(t) {
            s.passed = n;
        } else if let Some(n) = count_of(t, "pending") {
            s.skipped = n;
        } else if let Some(n) = count_of(t, "failing") {
            s.failed = n;
        }
    }
    if let Some(first) = first_block(lines.get(summary_at..).unwrap_or_default()) {
        s.set_first_failure(&first);
    }
    s.tests = tests.into_vec();
    Some(s)
}

/// Whether the output has mocha's spec summary.
pub(crate) fn sniff(text: &str) -> bool {
    text.lines().any(|l| passing_count(l).is_some())
        || text.contains("\"stats\"")
            && text.contains("\"passes\"")
            && text.contains("\"fullTitle\"")
}

/// `2 passing (6ms)` → 2.
fn passing_count(line: &str) -> Option<u64> {
    let t = line.trim();
    let (n, rest) = t.split_once(' ')?;
    let rest = rest.strip_prefix("passing (")?;
    rest.ends_with(')').then_some(())?;
    n.parse().ok()
}

/// `2 pending` → 2.
fn count_of(t: &str, label: &str) -> Option<u64> {
    let (n, rest) = t.split_once(' ')?;
    (rest == label).then_some(())?;
    n.parse().ok()
}

/// `3) title` → `title`.
fn numbered(t: &str) -> Option<&str> {
    let (n, rest) = t.split_once(") ")?;
    (!n.is_empty() && n.chars().all(|c| c.is_ascii_digit())).then_some(rest.trim())
}

/// A slow test's `adds (105ms)` → `adds`.
fn strip_slow(title: &str) -> &str {
    if let Some((name, tail)) = title.rsplit_once(" (")
        && let Some(num) = tail.strip_suffix("ms)")
        && !num.is_empty()
        && num.chars().all(|c| c.is_ascii_digit())
    {
        return name;
    }
    title
}

/// The first numbered failure after the summary: `1) Calc` / `subtracts:` (titles up to the
/// one ending in `:`), then the error up to the next numbered block.
fn first_block(lines: &[&str]) -> Option<String> {
    let start = lines
        .iter()
        .position(|l| l.starts_with("  ") && numbered(l.trim()).is_some())?;
    let head = lines.get(start)?;
    let mut titles: Vec<&str> = vec![numbered(head.trim()).unwrap_or("")];
    let mut i = start + 1;
    if !titles.last().is_some_and(|t| t.ends_with(':')) {
        while let Some(l) = lines.get(i) {
            i += 1;
            let t = l.trim();
            if t.is_empty() {
                break;
            }
            titles.push(t);
            if t.ends_with(':') {
                break;
            }
        }
    }
    let title = titles.join(" ");
    let title = title.strip_suffix(':').unwrap_or(&title);
    let mut body: Vec<&str> = Vec::new();
    while let Some(l) = lines.get(i) {
        if l.starts_with("  ") && !l.starts_with("   ") && numbered(l.trim()).is_some() {
            break;
        }
        body.push(l);
        i += 1;
    }
    Some(format!("{title}\n{}", super::js_excerpt(&body)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_lines() {
        assert_eq!(passing_count("  2 passing (6ms)"), Some(2));
        assert_eq!(passing_count("  2 passing"), None);
        assert_eq!(count_of("3 failing", "failing"), Some(3));
        assert_eq!(numbered("12) x y"), Some("x y"));
        assert_eq!(numbered("a) x"), None);
        assert_eq!(strip_slow("adds (105ms)"), "adds");
        assert_eq!(strip_slow("adds (fast)"), "adds (fast)");
    }
}
