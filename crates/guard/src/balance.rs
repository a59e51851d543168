//! A lexical pre-scan of the text handed to brush-parser's word grammar.
//!
//! brush-parser 0.4's word grammar backtracks exponentially (or loops) when
//! an expansion is left open: `$((`, `$(`, `${`, `$[`, a `[` subscript
//! inside `${...}`, a quote. Fuzzing found one such shape after another, so
//! instead of refusing them one by one, every text is scanned once, in
//! linear time, and any expansion or quote left unclosed — or nesting deeper
//! than [`MAX_DEPTH`] — is refused before the parser sees it. One balanced
//! shape is exponential too: subscripts nested inside parameter expansions
//! (`${a[${b[${c[0]}]}]}`: each level multiplies the parse time by about
//! twenty, five levels take a second), so at most [`MAX_SUBSCRIPT_NESTING`]
//! of those may nest. The program parser hands every word token to the
//! same grammar (to recognise `name[index]=value`), so the walker runs this
//! scan over the tokens before parsing a script at all.
//!
//! A refused word is *malformed*: while a run is active that is a denial
//! (fail closed), which costs nothing for real commands (a shell would
//! reject them too, or read them differently than they look).

/// How the text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// One shell word as the tokenizer returned it: quotes are syntax.
    Word,
    /// The body of a here-document that undergoes expansion: quotes are
    /// data at the top level, syntax again inside `$(...)` and backticks.
    HereDoc,
}

/// Deepest nesting of expansions and quotes accepted in one text.
pub(crate) const MAX_DEPTH: usize = 24;

/// Most `[` subscripts nested inside parameter expansions (`${a[${b[0]}]}` is two).
pub(crate) const MAX_SUBSCRIPT_NESTING: usize = 2;

/// Why a text is refused before the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// An expansion or a quote is never closed.
    Unclosed,
    /// Expansions and quotes nest deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Subscripts nest deeper than [`MAX_SUBSCRIPT_NESTING`] inside parameter expansions.
    NestedSubscripts,
    /// A `(` of the script (a subshell, an arithmetic command) is never closed.
    UnclosedParenthesis,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refusal::Unclosed => "an expansion or a quote is never closed",
            Refusal::TooDeep => "expansions nest too deeply",
            Refusal::NestedSubscripts => "array subscripts nest too deeply inside ${...}",
            Refusal::UnclosedParenthesis => "a parenthesis is never closed",
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `$(`, closed by `)`.
    Subst,
    /// `(` inside a command substitution or arithmetic, closed by `)`.
    Paren,
    /// `${`, closed by `}`.
    Param,
    /// `$[` (old-style arithmetic) or a `[` inside `${...}` / `$[...]`,
    /// closed by `]`.
    Bracket,
    /// `` ` ``, closed by `` ` ``.
    Backtick,
    /// `"`, closed by `"`.
    Double,
}

/// Whether `text` leaves an expansion or a quote open, or nests deeper than
/// [`MAX_DEPTH`].
#[cfg(test)]
pub(crate) fn unbalanced(text: &str, mode: Mode) -> bool {
    scan(text, mode).is_err()
}

/// Scans `text` once; an error says why the parser must not see it.
pub(crate) fn scan(text: &str, mode: Mode) -> Result<(), Refusal> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    // Subscripts open inside parameter expansions.
    let mut subscripts = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let top = stack.last().copied();
        let in_double = top == Some(Open::Double);
        // Quotes are syntax in a word, and inside a command substitution
        // even when that sits in a here-document body.
        let quotes = !in_double
            && (mode == Mode::Word
                || stack
                    .iter()
                    .any(|o| matches!(o, Open::Subst | Open::Backtick)));
        let step = match bytes[i] {
            b'\\' => Step::Skip(2),
            b'\'' if quotes => closing_single(bytes, i + 1, false)
                .map_or(Step::Unclosed, |end| Step::Skip(end + 1 - i)),
            b'"' if in_double => Step::Pop,
            b'"' if quotes => Step::Push(&[Open::Double]),
            b'`' if top == Some(Open::Backtick) => Step::Pop,
            b'`' => Step::Push(&[Open::Backtick]),
            b'$' => match (bytes.get(i + 1), bytes.get(i + 2)) {
                // `$((`: arithmetic, closed by `))`.
                (Some(b'('), Some(b'(')) => Step::Push(&[Open::Subst, Open::Paren]),
                (Some(b'('), _) => Step::Push(&[Open::Subst]),
                (Some(b'{'), _) => Step::Push(&[Open::Param]),
                (Some(b'['), _) => Step::Push(&[Open::Bracket]),
                (Some(b'\''), _) if quotes => closing_single(bytes, i + 2, true)
                    .map_or(Step::Unclosed, |end| Step::Skip(end + 1 - i)),
                _ => Step::Skip(1),
            },
            b'(' if matches!(top, Some(Open::Subst | Open::Paren)) => Step::Push(&[Open::Paren]),
            b')' if matches!(top, Some(Open::Subst | Open::Paren)) => Step::Pop,
            b'}' if top == Some(Open::Param) => Step::Pop,
            b'[' if matches!(top, Some(Open::Param | Open::Bracket)) => {
                Step::Push(&[Open::Bracket])
            }
            b']' if top == Some(Open::Bracket) => Step::Pop,
            _ => Step::Skip(1),
        };
        match step {
            Step::Skip(n) => i += n,
            Step::Pop => {
                let closed = stack.pop();
                if closed == Some(Open::Bracket) && stack.last() == Some(&Open::Param) {
                    subscripts -= 1;
                }
                i += 1;
            }
            Step::Push(opens) => {
                if opens == [Open::Bracket] && top == Some(Open::Param) {
                    subscripts += 1;
                    if subscripts > MAX_SUBSCRIPT_NESTING {
                        return Err(Refusal::NestedSubscripts);
                    }
                }
                stack.extend_from_slice(opens);
                if stack.len() > MAX_DEPTH {
                    return Err(Refusal::TooDeep);
                }
                // `$`, `$(`/`${`/`$[` or `$((`: skip the opener whole.
                i += match (bytes[i], opens.len()) {
                    (b'$', n) => 1 + n,
                    _ => 1,
                };
            }
            Step::Unclosed => return Err(Refusal::Unclosed),
        }
    }
    if stack.is_empty() {
        Ok(())
    } else {
        Err(Refusal::Unclosed)
    }
}

/// What one byte does to the scan.
enum Step {
    /// Move on by this many bytes.
    Skip(usize),
    /// Close the innermost expansion or quote.
    Pop,
    /// Open these (a `$`-opener is skipped whole).
    Push(&'static [Open]),
    /// A quote that never closes.
    Unclosed,
}

/// The index of the quote closing a single-quoted string that starts at
/// `from`; in `$'...'` (ANSI-C) a backslash escapes the next byte.
fn closing_single(bytes: &[u8], from: usize, escapes: bool) -> Option<usize> {
    let mut j = from;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' if escapes => j += 2,
            b'\'' => return Some(j),
            _ => j += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{MAX_SUBSCRIPT_NESTING, Mode, Refusal, scan, unbalanced};

    #[test]
    fn ordinary_words_are_balanced() {
        for word in [
            "hello",
            "\"$HOME/x\"",
            "'it''s'",
            "$(echo hi)",
            "$(echo ')')",
            "\"$(printf '%s' \"$x\")\"",
            "$((1 + (2 * 3)))",
            "${x:-default}",
            "${arr[0]}",
            "\"${arr[@]}\"",
            "${x//[abc]/y}",
            "$[1+2]",
            "`date`",
            "\"`date`\"",
            "$'a\\'b'",
            "\\$(",
            "\\\"",
            "$(case $x in a) echo 1;; esac)",
            "$(case $x in (a) echo 1;; esac)",
            "a]b)c}",
            "$",
            "$$",
            "${#x}",
            "$(echo $(echo $(echo deep)))",
        ] {
            assert!(!unbalanced(word, Mode::Word), "{word:?}");
        }
    }

    #[test]
    fn open_expansions_and_quotes_are_refused() {
        for word in [
            "$(echo",
            "$((1+2)",
            "${x",
            "${IF[}",
            "$[1+2",
            "`date",
            "\"abc",
            "'abc",
            "$'abc\\'",
            "\"$(echo \")",
            "$(echo '",
            "${x:-$(y}",
        ] {
            assert!(unbalanced(word, Mode::Word), "{word:?}");
        }
    }

    #[test]
    fn here_document_quotes_are_data_outside_substitutions() {
        assert!(!unbalanced(
            "it's \"here\nand $(echo 'x') ok",
            Mode::HereDoc
        ));
        assert!(!unbalanced("don't ${HOME} `date`", Mode::HereDoc));
        assert!(unbalanced("x $(echo 'unclosed)", Mode::HereDoc));
        assert!(unbalanced("x $[1+", Mode::HereDoc));
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{}x{}", "$(".repeat(30), ")".repeat(30));
        assert!(unbalanced(&deep, Mode::Word));
        let ok = format!("{}x{}", "$(".repeat(10), ")".repeat(10));
        assert!(!unbalanced(&ok, Mode::Word));
    }

    #[test]
    fn subscripts_nest_at_most_twice_inside_parameter_expansions() {
        assert_eq!(scan("${a[${b[0]}]}", Mode::Word), Ok(()));
        assert_eq!(scan("${a[${b[0]}]} ${c[${d[1]}]}", Mode::Word), Ok(()));
        assert_eq!(
            scan("${a[${b[${c[0]}]}]}", Mode::Word),
            Err(Refusal::NestedSubscripts)
        );
        // Closing a subscript gives its level back.
        let wide = "${a[1]}".repeat(MAX_SUBSCRIPT_NESTING + 5);
        assert_eq!(scan(&wide, Mode::Word), Ok(()));
        // Brackets that are not subscripts of a `${` do not count.
        assert_eq!(scan("a[b[c[d[0]]]]=1 $((x[y[z[0]]]))", Mode::Word), Ok(()));
    }

    #[test]
    fn never_panics_on_odd_bytes() {
        for text in [
            "\\",
            "$",
            "$'",
            "$(",
            "'",
            "\u{e9}$\u{e9}(",
            "`\\`",
            "$((",
            "\"\\",
        ] {
            let _ = unbalanced(text, Mode::Word);
            let _ = unbalanced(text, Mode::HereDoc);
        }
    }
}
