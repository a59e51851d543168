//! The tiny pattern language of `assertions.tsv`: a literal with optional anchors.
//!
//! `^` at the start anchors at the start of the (trimmed) line, `$` at the end anchors at its
//! end, and `\b` at either edge requires that no identifier character (`[A-Za-z0-9_]` or any
//! alphanumeric) is adjacent there. Everything else is literal. No regular expressions: the
//! rows stay readable and matching stays linear.

/// One parsed pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    at_start: bool,
    bound_left: bool,
    lit: String,
    bound_right: bool,
    at_end: bool,
}

impl Pattern {
    pub(crate) fn parse(s: &str) -> Result<Pattern, String> {
        let mut rest = s;
        let at_start = rest.starts_with('^');
        if at_start {
            rest = &rest[1..];
        }
        let bound_left = rest.starts_with("\\b");
        if bound_left {
            rest = &rest[2..];
        }
        let at_end = rest.ends_with('$');
        if at_end {
            rest = &rest[..rest.len() - 1];
        }
        let bound_right = rest.ends_with("\\b");
        if bound_right {
            rest = &rest[..rest.len() - 2];
        }
        if rest.is_empty() {
            return Err(format!("empty pattern {s:?}"));
        }
        if rest.contains('\t') || rest.contains('\n') {
            return Err(format!("pattern {s:?} contains a tab or newline"));
        }
        Ok(Pattern {
            at_start,
            bound_left,
            lit: rest.to_string(),
            bound_right,
            at_end,
        })
    }

    /// The byte range of the first match in `line`.
    pub(crate) fn find(&self, line: &str) -> Option<(usize, usize)> {
        let ok = |start: usize| {
            let end = start + self.lit.len();
            let left = !self.bound_left || !line[..start].chars().next_back().is_some_and(ident);
            let right = !self.bound_right || !line[end..].chars().next().is_some_and(ident);
            let tail = !self.at_end || end == line.len();
            left && right && tail
        };
        if self.at_start {
            return (line.starts_with(&self.lit) && ok(0)).then_some((0, self.lit.len()));
        }
        line.match_indices(self.lit.as_str())
            .map(|(i, _)| i)
            .find(|&i| ok(i))
            .map(|i| (i, i + self.lit.len()))
    }

    pub(crate) fn matches(&self, line: &str) -> bool {
        self.find(line).is_some()
    }

    /// Whether the literal itself starts with `prefix` and the pattern is anchored at the start
    /// (a marker written as a comment, such as `//go:build ignore`).
    pub(crate) fn anchored_with(&self, prefix: &str) -> bool {
        self.at_start && self.lit.starts_with(prefix)
    }
}

fn ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, line: &str) -> bool {
        Pattern::parse(p).map(|p| p.matches(line)).unwrap_or(false)
    }

    #[test]
    fn anchors_and_boundaries() {
        let rows = [
            ("^assert\\b", "assert x == 4", true),
            ("^assert\\b", "assert(x)", true),
            ("^assert\\b", "assertion = 1", false),
            ("^assert\\b", "x = assert_y", false),
            ("\\bassert", "Assertions.assertTrue(x)", true),
            ("\\bassert", "reassert(x)", false),
            ("\\bexit 1\\b", "[ -f x ] || exit 1", true),
            ("\\bexit 1\\b", "exit 10", false),
            ("^[\\b", "[ \"$a\" = b ]", true),
            ("^[\\b", "[[ -n x ]]", true),
            ("^[\\b", "[Fact]", false),
            ("^assert True$", "assert True", true),
            ("^assert True$", "assert True, \"x\"", false),
            (".skip(", "describe.skip('x', () => {", true),
            (".skip(", "it('skips', () => {", false),
            ("$", "anything", false),
        ];
        for (p, line, want) in rows {
            assert_eq!(m(p, line), want, "{p:?} on {line:?}");
        }
    }

    #[test]
    fn empty_patterns_are_errors() {
        assert!(Pattern::parse("^\\b$").is_err());
        assert!(Pattern::parse("").is_err());
    }

    #[test]
    fn find_reports_the_match_range() {
        let p = Pattern::parse("\\bassert_eq!(").unwrap();
        assert_eq!(p.find("my_assert_eq!(a, b);"), None);
        assert_eq!(p.find("x; assert_eq!(a, b);"), Some((3, 14)));
    }
}
