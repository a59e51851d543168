//! TAP, the Test Anything Protocol: node:test's TAP reporter (the default of `node --test`
//! under a pipe up to Node 22), tape, `ava --tap`, `mocha --reporter tap`, and any other
//! producer.
//!
//! A test point is `ok N - description # DIRECTIVE` or `not ok N ...`; `# SKIP` and `# TODO`
//! points are skipped (a failing TODO does not fail the run). After a point may come a YAML
//! diagnostic block (`---` ... `...`, indented), or, for mocha, plain indented lines.
//!
//! Two shapes name tests differently:
//! - **Points are tests** (node:test, ava, mocha, plain TAP): the id is the description. Subtests
//!   are indented by four spaces and printed before their parent's point; node:test announces
//!   each with `# Subtest: name`, and the id is the path of names, `suite > inner > test`. A
//!   parent (a point with subtests) is not a test of its own: it counts, and gets an id, only
//!   when it failed while none of its subtests did (a failing hook, an error after the subtests).
//! - **Points are assertions** (tape): each test is announced by a `# name` comment and its
//!   assertions follow. The id is the test's name, its outcome the worst of its assertions, and
//!   the counts are tests, not assertions (tape's own `# tests` line counts assertions);
//!   `# SKIP name` is a skipped test. A `t.comment()` inside a test starts a new name.
//!
//! Everything else (console output, npm's banner, nyc's coverage table) is ignored. Not read:
//! the plan (`1..N`) against the number of points, and `Bail out!` beyond its message.

use std::collections::HashMap;

use super::{Runner, TestList, TestStatus, TestSummary, merge_status};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Directive {
    None,
    Skip,
    Todo,
}

/// One `ok` / `not ok` line.
#[derive(Debug, PartialEq, Eq)]
struct Point {
    ok: bool,
    description: String,
    directive: Directive,
}

impl Point {
    fn status(&self) -> TestStatus {
        match (self.directive, self.ok) {
            (Directive::Skip | Directive::Todo, _) => TestStatus::Skipped,
            (Directive::None, true) => TestStatus::Passed,
            (Directive::None, false) => TestStatus::Failed,
        }
    }
}

/// A `# Subtest: name` whose point has not come yet.
struct Frame {
    indent: usize,
    name: String,
}

pub(crate) fn parse(text: &str, runner: Runner) -> Option<TestSummary> {
    let lines: Vec<&str> = text.lines().collect();
    let named_subtests = lines
        .iter()
        .any(|l| l.trim_start().starts_with("# Subtest:"));
    let tape = !named_subtests && looks_like_tape(&lines);
    let mut s = TestSummary::new(runner);
    let mut tests = TestList::default();
    let mut recognised = false;
    let mut frames: Vec<Frame> = Vec::new();
    // Points not yet claimed by a parent, one entry per level: (indent, any failed).
    let mut unclaimed: Vec<(usize, bool)> = Vec::new();
    // tape: the current test's name, and each test's worst outcome (uncapped, for the counts).
    let mut group: Option<String> = None;
    let mut groups: HashMap<String, TestStatus> = HashMap::new();
    let mut group_order: Vec<String> = Vec::new();
    let mut plan_seen_after_points = false;
    let mut any_point = false;
    let mut first_failure: Option<String> = None;
    let mut i = 0;
    while let Some(&line) = lines.get(i) {
        i += 1;
        let indent = indent_of(line);
        let t = line.trim();
        if t.starts_with("TAP version ") {
            recognised = true;
            continue;
        }
        if let Some(name) = t.strip_prefix("# Subtest:") {
            frames.retain(|f| f.indent < indent);
            frames.push(Frame {
                indent,
                name: unescape(name.trim()),
            });
            continue;
        }
        if is_plan(t) {
            if indent == 0 {
                recognised = true;
                plan_seen_after_points |= any_point;
            }
            continue;
        }
        if let Some(reason) = t.strip_prefix("Bail out!") {
            recognised = true;
            s.failed = s.failed.saturating_add(1);
            if first_failure.is_none() {
                first_failure = Some(format!("Bail out! {}", reason.trim()));
            }
            continue;
        }
        if tape
            && indent == 0
            && !plan_seen_after_points
            && let Some(comment) = t.strip_prefix('#')
        {
            let comment = comment.trim();
            if let Some(name) = comment.strip_prefix("SKIP ") {
                add_group(
                    &mut groups,
                    &mut group_order,
                    name.trim(),
                    TestStatus::Skipped,
                );
                tests.add(name, TestStatus::Skipped);
                group = None;
            } else if let Some(name) = comment.strip_prefix("TODO ") {
                group = Some(name.trim().to_owned());
            } else if !is_summary_comment(comment) && !comment.is_empty() {
                group = Some(comment.to_owned());
            }
            continue;
        }
        let Some(point) = point_line(t) else {
            continue;
        };
        recognised = true;
        any_point = true;
        // The block after the point (YAML or indented lines) belongs to it, whatever it says.
        let (detail, next) = detail_block(&lines, i, indent);
        i = next;
        let status = point.status();
        // Claim the points printed below this one: its subtests.
        let (is_parent, child_failed) = claim(&mut unclaimed, indent, status);
        if !reported(is_parent, status, child_failed) {
            frames.retain(|f| f.indent < indent);
            continue;
        }
        let id = if tape {
            group.clone().unwrap_or_else(|| point.description.clone())
        } else {
            frames.retain(|f| f.indent <= indent);
            if frames.last().is_some_and(|f| f.indent == indent) {
                frames.pop();
            }
            let mut path: Vec<&str> = frames
                .iter()
                .filter(|f| f.indent < indent)
                .map(|f| f.name.as_str())
                .collect();
            path.push(&point.description);
            path.join(" > ")
        };
        if tape {
            add_group(&mut groups, &mut group_order, &id, status);
        } else {
            match status {
                TestStatus::Passed => s.passed = s.passed.saturating_add(1),
                TestStatus::Failed => s.failed = s.failed.saturating_add(1),
                TestStatus::Skipped | TestStatus::XFailed => {
                    s.skipped = s.skipped.saturating_add(1)
                }
            }
        }
        tests.add(&id, status);
        if status == TestStatus::Failed {
            s.add_failing(&id);
            if first_failure.is_none() {
                let mut head = id.clone();
                if tape && !point.description.is_empty() && point.description != id {
                    head.push_str(&format!("\n{}", point.description));
                }
                first_failure = Some(match detail {
                    Some(d) if !d.is_empty() => format!("{head}\n{d}"),
                    _ => head,
                });
            }
        }
    }
    if !recognised {
        return None;
    }
    if tape {
        for name in &group_order {
            match groups.get(name) {
                Some(TestStatus::Passed) => s.passed = s.passed.saturating_add(1),
                Some(TestStatus::Failed) => s.failed = s.failed.saturating_add(1),
                Some(_) => s.skipped = s.skipped.saturating_add(1),
                None => {}
            }
        }
    }
    if let Some(f) = first_failure {
        s.set_first_failure(&f);
    }
    s.tests = tests.into_vec();
    Some(s)
}

/// Records a test point at `indent` and claims the points printed deeper since the last one
/// at this level or above: its subtests, printed before it. Returns whether it has subtests and
/// whether one of them (at any depth) failed. `unclaimed` holds one entry per level, deepest
/// last, so this costs the nesting depth, not the number of points.
pub(crate) fn claim(
    unclaimed: &mut Vec<(usize, bool)>,
    indent: usize,
    status: TestStatus,
) -> (bool, bool) {
    let mut is_parent = false;
    let mut child_failed = false;
    while let Some(&(d, failed)) = unclaimed.last() {
        if d <= indent {
            break;
        }
        is_parent = true;
        child_failed |= failed;
        unclaimed.pop();
    }
    let failed = status == TestStatus::Failed || child_failed;
    match unclaimed.last_mut() {
        Some((d, f)) if *d == indent => *f |= failed,
        _ => unclaimed.push((indent, failed)),
    }
    (is_parent, child_failed)
}

/// Whether a point is a test of its own: a leaf, or a parent that failed while none of its
/// subtests did (a failing hook, an error after the subtests).
pub(crate) fn reported(is_parent: bool, status: TestStatus, child_failed: bool) -> bool {
    !is_parent || status == TestStatus::Failed && !child_failed
}

/// Whether the text is the start of a TAP stream, for sniffing output of unknown commands:
/// a `TAP version` line, or a plan and a test point at the start of lines.
pub(crate) fn sniff(text: &str) -> bool {
    let mut plan = false;
    let mut point = false;
    for line in text.lines() {
        if line.starts_with("TAP version 1") {
            return true;
        }
        plan |= is_plan(line.trim_end());
        point |= (line.starts_with("ok ") || line.starts_with("not ok "))
            && point_line(line).is_some_and(|p| !p.description.is_empty());
        if plan && point {
            return true;
        }
    }
    false
}

/// tape announces each test with a `# name` comment right before its first assertion.
fn looks_like_tape(lines: &[&str]) -> bool {
    lines.windows(2).any(|w| match w {
        [a, b] => {
            a.strip_prefix("# ")
                .is_some_and(|c| !is_summary_comment(c.trim()))
                && (b.starts_with("ok ") || b.starts_with("not ok "))
        }
        _ => false,
    })
}

/// The totals tape, node:test and ava print as comments after the plan.
fn is_summary_comment(comment: &str) -> bool {
    let mut words = comment.split_whitespace();
    let (Some(key), value) = (words.next(), words.next()) else {
        return false;
    };
    let numeric = value.is_some_and(|v| v.parse::<f64>().is_ok()) && words.next().is_none();
    (matches!(
        key,
        "tests" | "pass" | "fail" | "skip" | "todo" | "suites" | "cancelled" | "skipped"
    ) || key == "duration_ms")
        && numeric
        || comment == "ok"
}

fn add_group(
    groups: &mut HashMap<String, TestStatus>,
    order: &mut Vec<String>,
    name: &str,
    status: TestStatus,
) {
    if name.is_empty() {
        return;
    }
    match groups.get_mut(name) {
        Some(s) => *s = merge_status(*s, status),
        None => {
            groups.insert(name.to_owned(), status);
            order.push(name.to_owned());
        }
    }
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// `1..5`, `1..0 # SKIP no tests`.
fn is_plan(t: &str) -> bool {
    let Some(rest) = t.strip_prefix("1..") else {
        return false;
    };
    let digits = rest
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap_or("");
    !digits.is_empty() && {
        let after = rest.get(digits.len()..).unwrap_or("").trim();
        after.is_empty() || after.starts_with('#')
    }
}

/// Reads `ok 3 - name # SKIP reason` (the number, the dash and the directive are optional).
fn point_line(t: &str) -> Option<Point> {
    let (ok, rest) = if let Some(r) = t.strip_prefix("not ok") {
        (false, r)
    } else {
        (true, t.strip_prefix("ok")?)
    };
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let rest = rest.trim_start();
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.trim_start();
    let rest = rest
        .strip_prefix("- ")
        .or_else(|| rest.strip_prefix('-').filter(|r| r.is_empty()))
        .unwrap_or(rest);
    let (description, directive) = match unescaped_hash(rest) {
        Some(at) => {
            let d = rest.get(at + 1..).unwrap_or("").trim_start();
            let word: String = d.chars().take(4).collect::<String>().to_ascii_uppercase();
            let directive = match word.as_str() {
                "SKIP" => Directive::Skip,
                "TODO" => Directive::Todo,
                _ => Directive::None,
            };
            (rest.get(..at).unwrap_or(""), directive)
        }
        None => (rest, Directive::None),
    };
    Some(Point {
        ok,
        description: unescape(description.trim()),
        directive,
    })
}

/// The byte index of the first `#` not escaped by a backslash.
fn unescaped_hash(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '#' if !escaped => return Some(i),
            _ => escaped = false,
        }
    }
    None
}

/// `\#` → `#`, `\\` → `\` (node:test escapes both in names).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n @ ('#' | '\\')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The diagnostics after a point at `indent`, starting at line `start`: a YAML block (`---` to
/// `...`) or lines indented deeper than the point that are not TAP (mocha). Returns the text
/// worth showing and the index of the first line after the block.
fn detail_block(lines: &[&str], start: usize, indent: usize) -> (Option<String>, usize) {
    let Some(first) = lines.get(start) else {
        return (None, start);
    };
    if first.trim() == "---" && indent_of(first) > indent {
        let yaml_indent = indent_of(first);
        let mut end = start + 1;
        while let Some(l) = lines.get(end) {
            if l.trim() == "..." && indent_of(l) <= yaml_indent {
                break;
            }
            end += 1;
        }
        let body = lines.get(start + 1..end).unwrap_or_default();
        return (
            Some(yaml_excerpt(body)),
            end.saturating_add(1).min(lines.len()),
        );
    }
    let mut end = start;
    while let Some(l) = lines.get(end) {
        let t = l.trim();
        let deeper = indent_of(l) > indent;
        let tap = point_line(t).is_some() || t.starts_with('#') || is_plan(t);
        if !(t.is_empty() || deeper && !tap) {
            break;
        }
        end += 1;
    }
    let body = lines.get(start..end).unwrap_or_default();
    if body.iter().all(|l| l.trim().is_empty()) {
        return (None, start);
    }
    (Some(super::js_excerpt(body)), end)
}

/// A YAML diagnostic without what does not help to fix the failure: timings, types and, when
/// the block names a location (`at:`, `location:`), the stack.
fn yaml_excerpt(body: &[&str]) -> String {
    let text = super::dedent(body);
    let lines: Vec<&str> = text.lines().collect();
    let has_location = lines
        .iter()
        .any(|l| l.starts_with("at:") || l.starts_with("location:") || l.starts_with("at: "));
    let mut out: Vec<&str> = Vec::new();
    let mut skipping = false;
    let mut stack_kept = 0;
    let mut in_stack = false;
    for l in &lines {
        let top_level = !l.starts_with(' ') && !l.trim().is_empty();
        if top_level {
            let key = l.split(':').next().unwrap_or("");
            in_stack = key == "stack";
            skipping =
                matches!(key, "duration_ms" | "type" | "failureType") || in_stack && has_location;
            if !skipping {
                out.push(l);
            }
            continue;
        }
        if skipping {
            continue;
        }
        if in_stack {
            // Without a location, the first frames outside node and node_modules show where.
            let t = l.trim();
            if stack_kept < 2 && !super::internal_frame(t) {
                stack_kept += 1;
                out.push(l);
            }
            continue;
        }
        out.push(l);
    }
    out.join("\n").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_lines() {
        assert_eq!(
            point_line("ok 3 - later # SKIP not yet"),
            Some(Point {
                ok: true,
                description: "later".into(),
                directive: Directive::Skip
            })
        );
        assert_eq!(
            point_line("not ok 5 not yet # TODO").map(|p| p.status()),
            Some(TestStatus::Skipped)
        );
        assert_eq!(
            point_line("not ok 2 - a \\# b").map(|p| p.description),
            Some("a # b".into())
        );
        assert_eq!(
            point_line("ok").map(|p| p.status()),
            Some(TestStatus::Passed)
        );
        assert_eq!(point_line("okay then"), None);
        assert_eq!(point_line("not okay"), None);
    }

    #[test]
    fn plans_and_summaries() {
        assert!(is_plan("1..6"));
        assert!(is_plan("1..0 # SKIP nothing"));
        assert!(!is_plan("1..x"));
        assert!(is_summary_comment("tests 6"));
        assert!(is_summary_comment("duration_ms 271.5"));
        assert!(is_summary_comment("ok"));
        assert!(!is_summary_comment("adds"));
        assert!(!is_summary_comment("pass the salt"));
    }

    #[test]
    fn a_failing_hook_of_a_parent_with_passing_subtests_is_the_failure() {
        let text = "TAP version 13\n# Subtest: s\n    # Subtest: t\n    ok 1 - t\n    1..1\nnot ok 1 - s\n  ---\n  error: 'after hook failed'\n  ...\n1..1\n";
        let s = parse(text, Runner::Tap).unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (1, 1, 0));
        assert_eq!(s.failing, ["s"]);
        assert_eq!(
            s.first_failure.as_deref(),
            Some("s\nerror: 'after hook failed'")
        );
    }

    #[test]
    fn many_points_take_linear_time() {
        let mut text = String::from("TAP version 13\n");
        for i in 0..100_000 {
            text.push_str(&format!("ok {i} - t{i}\n"));
        }
        let s = parse(&text, Runner::Tap).unwrap();
        assert_eq!(s.passed, 100_000);
    }

    #[test]
    fn yaml_lines_are_never_read_as_points() {
        let text = "TAP version 13\nok 1 - a\n  ---\n  note: |\n    not ok 7 - fake\n  ...\n1..1\n";
        let s = parse(text, Runner::Tap).unwrap();
        assert_eq!((s.passed, s.failed), (1, 0));
    }
}
