//! Short, bounded, unified-diff-like excerpts for findings.
//!
//! Not a diff algorithm: [`span`] trims the common prefix and suffix of two line lists and shows
//! what lies between (one hunk, linear time, enough for configuration sections and small
//! scripts); [`listing`] shows the assertion lines that differ, with their line numbers. Both
//! keep at most [`MAX_HUNK_LINES`] changed lines of at most [`MAX_LINE_CHARS`] characters.

use super::{MAX_HUNK_LINES, MAX_LINE_CHARS, cut};

/// The lines of `text` that carry meaning for a whole-file comparison: trailing whitespace
/// trimmed, blank lines dropped.
pub(crate) fn lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

fn header(path: &str) -> String {
    let p = cut(path, MAX_LINE_CHARS);
    format!("--- a/{p}\n+++ b/{p}\n")
}

/// How many of `a` and `b` changed lines to show within the budget: each side gets at least
/// half of it when both are long.
fn budget(a: usize, b: usize) -> (usize, usize) {
    if a + b <= MAX_HUNK_LINES {
        return (a, b);
    }
    let half = MAX_HUNK_LINES / 2;
    let ka = a.min(half.max(MAX_HUNK_LINES.saturating_sub(b)));
    (ka, b.min(MAX_HUNK_LINES - ka))
}

/// One hunk: the lines between the common prefix and suffix of `old` and `new`, with one line
/// of context on each side.
pub(crate) fn span(path: &str, old: &[String], new: &[String]) -> String {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let gone = &old[prefix..old.len() - suffix];
    let came = &new[prefix..new.len() - suffix];
    let mut out = header(path);
    if gone.is_empty() && came.is_empty() {
        out.push_str("@@ whitespace or blank lines only @@\n");
        return out;
    }
    out.push_str("@@\n");
    if prefix > 0 {
        push(&mut out, ' ', &old[prefix - 1]);
    }
    let (kg, kc) = budget(gone.len(), came.len());
    for l in &gone[..kg] {
        push(&mut out, '-', l);
    }
    for l in &came[..kc] {
        push(&mut out, '+', l);
    }
    if suffix > 0 {
        push(&mut out, ' ', &old[old.len() - suffix]);
    }
    more(&mut out, gone.len() + came.len() - kg - kc);
    out
}

/// The given removed and added lines as `-N: text` / `+N: text` (N = 1-based line number in the
/// old or new file), removed first.
pub(crate) fn listing(
    path: &str,
    removed: &[(usize, String)],
    added: &[(usize, String)],
) -> String {
    let mut out = header(path);
    let (kr, ka) = budget(removed.len(), added.len());
    for (n, l) in &removed[..kr] {
        push(&mut out, '-', &format!("{n}: {l}"));
    }
    for (n, l) in &added[..ka] {
        push(&mut out, '+', &format!("{n}: {l}"));
    }
    more(&mut out, removed.len() + added.len() - kr - ka);
    out
}

fn push(out: &mut String, sign: char, line: &str) {
    out.push(sign);
    out.push_str(&cut(line, MAX_LINE_CHARS));
    out.push('\n');
}

fn more(out: &mut String, n: usize) {
    if n > 0 {
        out.push_str(&format!("… {n} more changed lines\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn span_shows_the_changed_middle_with_context() {
        let h = span(
            "pytest.ini",
            &v(&["[pytest]", "addopts = -q", "x = 1"]),
            &v(&["[pytest]", "addopts = -q -k 'not slow'", "x = 1"]),
        );
        assert_eq!(
            h,
            "--- a/pytest.ini\n+++ b/pytest.ini\n@@\n [pytest]\n-addopts = -q\n+addopts = -q -k 'not slow'\n x = 1\n"
        );
    }

    #[test]
    fn span_handles_pure_insertions_and_deletions() {
        let h = span("t.sh", &v(&["a", "b"]), &v(&["exit 0", "a", "b"]));
        assert!(h.ends_with("@@\n+exit 0\n a\n"), "{h}");
        let h = span("t.sh", &v(&["a", "a"]), &v(&["a"]));
        assert!(h.ends_with("@@\n a\n-a\n"), "{h}");
        let h = span("t.sh", &[], &[]);
        assert!(h.contains("whitespace"));
    }

    #[test]
    fn hunks_are_bounded() {
        let big: Vec<String> = (0..1000).map(|i| "x".repeat(i)).collect();
        let h = span("f", &big, &[]);
        assert!(h.lines().count() <= MAX_HUNK_LINES + 4);
        assert!(h.contains("… 976 more changed lines"), "{h}");
        let h = span(
            "f",
            &big,
            &big[1..].iter().rev().cloned().collect::<Vec<_>>(),
        );
        assert!(h.lines().count() <= MAX_HUNK_LINES + 4);
        assert!(h.lines().all(|l| l.chars().count() <= MAX_LINE_CHARS + 8));
    }

    #[test]
    fn budget_shares_between_both_sides() {
        assert_eq!(budget(3, 4), (3, 4));
        assert_eq!(budget(100, 100), (12, 12));
        assert_eq!(budget(100, 2), (22, 2));
        assert_eq!(budget(1, 100), (1, 23));
    }
}
