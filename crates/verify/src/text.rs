//! Text that leaves pawl-verify for people and agents: terminal escapes removed.
//!
//! Test runners colour their output even when piped (FORCE_COLOR, `--color`, mocha's and
//! pytest's own switches), and pytest's JUnit writer, which may not put an ESC character in
//! XML, writes each escape as the text `#x1B[...m`; a report that escaped it properly
//! (`&#x1B;[...m`) may reach us decoded or not. Colour codes break every line match of the
//! parsers and read as noise in a prompt, so every parser's output goes through
//! [`strip_ansi`], and so should any other tool output the engine puts into a prompt, a report
//! or JSON.
//!
//! Not here: cutting text to size ([`crate::parse::trim_message`]) or any other rewriting.

use std::borrow::Cow;

/// The spellings of ESC that an XML report leaves in text: pytest's `#x1B`, a character
/// reference that was not decoded, in hex or decimal, in either case.
const XML_ESCAPES: [&str; 6] = ["&#x1b;", "&#x1B;", "&#27;", "#x1b", "#x1B", "&#X1B;"];

/// Removes terminal escape sequences: CSI (`ESC [ ... final`, colours and cursor moves, also
/// as the one-byte C1 `\u{9b}`), OSC (`ESC ] ... BEL` or `ESC \`, e.g. hyperlinks), other
/// two-character `ESC x` sequences, and the same CSI sequences written as `#x1B[` or
/// `&#x1B;[` by an XML report. A lone ESC at the end is dropped. Everything else, newlines and
/// tabs included, is kept.
///
/// Borrowed when there is nothing to strip, so it costs a scan on clean text. Text whose
/// removal leaves a new escape (`#x1#x1B[0mB[0m`) is stripped again, a few times at most.
pub fn strip_ansi(s: &str) -> Cow<'_, str> {
    let Cow::Owned(mut out) = strip_once(s) else {
        return Cow::Borrowed(s);
    };
    for _ in 0..MAX_PASSES {
        match strip_once(&out) {
            Cow::Borrowed(_) => break,
            Cow::Owned(again) => out = again,
        }
    }
    Cow::Owned(out)
}

/// Passes after the first: enough for anything a tool writes, bounded for what an agent might.
const MAX_PASSES: usize = 8;

fn strip_once(s: &str) -> Cow<'_, str> {
    let has_xml = XML_ESCAPES.iter().any(|e| s.contains(e));
    if !has_xml && !s.contains(['\u{1b}', '\u{9b}']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if has_xml
            && c != '\u{1b}'
            && let Some(after) = XML_ESCAPES.iter().find_map(|e| rest.strip_prefix(e))
            && let Some(params) = after.strip_prefix('[')
        {
            rest = skip_csi(params);
            continue;
        }
        rest = rest.get(c.len_utf8()..).unwrap_or("");
        match c {
            '\u{1b}' => rest = skip_escape(rest),
            '\u{9b}' => rest = skip_csi(rest),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// What follows an ESC: the rest of its sequence is skipped.
fn skip_escape(rest: &str) -> &str {
    let mut chars = rest.chars();
    match chars.next() {
        Some('[') => skip_csi(chars.as_str()),
        Some(']') => {
            // OSC: up to BEL or ESC \ (the string terminator).
            for (i, d) in chars.as_str().char_indices() {
                if d == '\u{7}' {
                    return chars.as_str().get(i + 1..).unwrap_or("");
                }
                if d == '\u{1b}' {
                    let after = chars.as_str().get(i + 1..).unwrap_or("");
                    return after.strip_prefix('\\').unwrap_or(after);
                }
            }
            ""
        }
        Some(_) => chars.as_str(),
        None => "",
    }
}

/// A CSI's parameters and intermediates, then one final byte in `@`..=`~`. Stops early (and
/// keeps the text) at a character no CSI can hold, such as a newline.
fn skip_csi(rest: &str) -> &str {
    for (i, d) in rest.char_indices() {
        if ('@'..='~').contains(&d) {
            return rest.get(i + d.len_utf8()..).unwrap_or("");
        }
        if !(' '..='?').contains(&d) {
            return rest.get(i..).unwrap_or("");
        }
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_csi_osc_and_c1() {
        assert_eq!(
            strip_ansi("\u{1b}[1m\u{1b}[31mred\u{1b}[39m\u{1b}[22m x"),
            "red x"
        );
        assert_eq!(strip_ansi("a\u{1b}]8;;http://x\u{7}b"), "ab");
        assert_eq!(strip_ansi("a\u{1b}]8;;http://x\u{1b}\\b"), "ab");
        assert_eq!(strip_ansi("trailing \u{1b}"), "trailing ");
        assert_eq!(strip_ansi("\u{9b}32mgreen"), "green");
        assert_eq!(strip_ansi("\u{1b}(Bx"), "Bx");
    }

    #[test]
    fn removes_escapes_written_by_xml_reports() {
        assert_eq!(strip_ansi("#x1B[0m{#x1B[33m'#x1B[39;49;00mb'}"), "{'b'}");
        assert_eq!(strip_ansi("&#x1B;[31mred&#x1b;[0m"), "red");
        assert_eq!(strip_ansi("&#27;[1mbold"), "bold");
        // Not an escape: kept as written.
        assert_eq!(strip_ansi("issue #x1B is open"), "issue #x1B is open");
    }

    #[test]
    fn an_unfinished_sequence_keeps_the_next_line() {
        assert_eq!(strip_ansi("a\u{1b}[31\nb"), "a\nb");
        assert!(matches!(strip_ansi("plain"), Cow::Borrowed("plain")));
        assert_eq!(strip_ansi("#x1#x1B[0mB[0mx"), "x");
    }
}
