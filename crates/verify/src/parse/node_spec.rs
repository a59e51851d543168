//! node:test's `spec` reporter (`node --test` on a terminal, and under a pipe from Node 23):
//! `✔ name (1.2ms)`, `✖ name (1.2ms)` with the error indented below, `﹣ name (0.1ms) # reason`
//! (skipped), `... # TODO` (todo), `▶ suite` opening a suite or a test with subtests (two
//! spaces deeper per level), then `ℹ tests 9`, `ℹ pass 3`, ... and a repeated list of the
//! failures after `✖ failing tests:`, which is not read (the tree above has the same tests
//! with their full names).
//!
//! Ids, counts and parents follow the TAP reporter's rules (see `tap.rs`): the path of names
//! `suite > inner > test`, leaves only, a parent only when it failed while none of its
//! subtests did. The same run gives the same ids under either reporter.

use super::tap::{claim, reported};
use super::{Runner, TestList, TestStatus, TestSummary};

const PASS: char = '✔';
const FAIL: char = '✖';
const SKIP: char = '﹣';
const OPEN: char = '▶';

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    let lines: Vec<&str> = text.lines().collect();
    let mut s = TestSummary::new(Runner::NodeTest);
    let mut tests = TestList::default();
    let mut recognised = false;
    // Open `▶` entries: (indent, name).
    let mut frames: Vec<(usize, String)> = Vec::new();
    let mut unclaimed: Vec<(usize, bool)> = Vec::new();
    let mut i = 0;
    while let Some(&line) = lines.get(i) {
        i += 1;
        let t = line.trim();
        if t == "✖ failing tests:" {
            break;
        }
        if t.starts_with("ℹ tests ") || t.starts_with("ℹ pass ") {
            recognised = true;
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        let mut chars = t.chars();
        let marker = chars.next();
        let Some(rest) = chars.as_str().strip_prefix(' ') else {
            continue;
        };
        if marker == Some(OPEN) {
            recognised = true;
            frames.retain(|(d, _)| *d < indent);
            frames.push((indent, rest.trim().to_owned()));
            continue;
        }
        let (name, todo) = name_of(rest);
        let status = match marker {
            Some(PASS) | Some(FAIL) if todo => TestStatus::Skipped,
            Some(PASS) => TestStatus::Passed,
            Some(FAIL) => TestStatus::Failed,
            Some(SKIP) => TestStatus::Skipped,
            _ => continue,
        };
        recognised = true;
        // The error of a failing test: the lines indented below it.
        let start = i;
        while let Some(l) = lines.get(i) {
            let deeper = l.len() - l.trim_start_matches(' ').len() > indent;
            if !(l.trim().is_empty() || deeper) {
                break;
            }
            i += 1;
        }
        let (mut is_parent, child_failed) = claim(&mut unclaimed, indent, status);
        frames.retain(|(d, _)| *d <= indent);
        // The closing line of a `▶` entry.
        if frames
            .last()
            .is_some_and(|(d, n)| *d == indent && *n == name)
        {
            frames.pop();
            is_parent = true;
        }
        if !reported(is_parent, status, child_failed) {
            continue;
        }
        let mut path: Vec<&str> = frames.iter().map(|(_, n)| n.as_str()).collect();
        path.push(&name);
        let id = path.join(" > ");
        match status {
            TestStatus::Passed => s.passed = s.passed.saturating_add(1),
            TestStatus::Failed => s.failed = s.failed.saturating_add(1),
            TestStatus::Skipped | TestStatus::XFailed => s.skipped = s.skipped.saturating_add(1),
        }
        tests.add(&id, status);
        if status == TestStatus::Failed {
            s.add_failing(&id);
            if s.first_failure.is_none() {
                let body = super::js_excerpt(lines.get(start..i).unwrap_or_default());
                s.set_first_failure(&format!("{id}\n{body}"));
            }
        }
    }
    if !recognised {
        return None;
    }
    s.tests = tests.into_vec();
    Some(s)
}

/// Whether the output ends with node:test's spec summary.
pub(crate) fn sniff(text: &str) -> bool {
    text.contains("ℹ tests ") && text.contains("ℹ pass ")
}

/// `adds (1.05ms)`, `later (0.1ms) # not yet`, `someday (0.1ms) # TODO` → the name, and
/// whether it is a todo.
fn name_of(rest: &str) -> (String, bool) {
    let rest = rest.trim();
    // The duration is the last ` (<number>ms)`; what follows it is a directive or a reason.
    let mut search = rest;
    while let Some(at) = search.rfind(" (") {
        let after = search.get(at + 2..).unwrap_or("");
        if let Some((num, tail)) = after.split_once("ms)")
            && !num.is_empty()
            && num.parse::<f64>().is_ok()
        {
            let name = search.get(..at).unwrap_or("").trim();
            let todo = tail.trim().starts_with("# TODO");
            return (name.to_owned(), todo);
        }
        search = search.get(..at).unwrap_or("");
    }
    match rest.strip_suffix("# TODO") {
        Some(name) => (name.trim().to_owned(), true),
        None => (rest.to_owned(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_without_durations_and_directives() {
        assert_eq!(name_of("adds (1.05ms)"), ("adds".into(), false));
        assert_eq!(name_of("a (b) (0.1ms) # not yet"), ("a (b)".into(), false));
        assert_eq!(name_of("someday (0.12ms) # TODO"), ("someday".into(), true));
        assert_eq!(name_of("bare"), ("bare".into(), false));
    }
}
