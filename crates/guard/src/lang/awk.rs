//! awk, far enough for the guard: a lexer that folds adjacent string literals (awk's
//! concatenation), skips regular expressions, and knows where an expression ends, so the rules
//! (`rules/exec.rs`) can find `system(...)`, `print | cmd`, `cmd | getline` and `print > file`
//! with their literal arguments.

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AwkTok {
    Str(String),
    Regex,
    Word(String),
    Num,
    Op(String),
    Newline,
}

impl AwkTok {
    /// Whether the token ends an expression (so `/` after it divides).
    pub(crate) fn is_value(&self) -> bool {
        match self {
            AwkTok::Str(_) | AwkTok::Num | AwkTok::Regex => true,
            AwkTok::Word(w) => !matches!(
                w.as_str(),
                "print"
                    | "printf"
                    | "return"
                    | "in"
                    | "if"
                    | "while"
                    | "for"
                    | "do"
                    | "else"
                    | "getline"
                    | "case"
            ),
            AwkTok::Op(op) => op == ")" || op == "]" || op == "$",
            AwkTok::Newline => false,
        }
    }

    pub(crate) fn ends_statement(&self) -> bool {
        match self {
            AwkTok::Newline => true,
            AwkTok::Op(op) => matches!(op.as_str(), ";" | "}" | ")"),
            AwkTok::Word(w) => w == "else",
            _ => false,
        }
    }
}

/// Tokens of an awk program; adjacent string literals (awk's
/// concatenation) are folded into one. Bounded by the input length.
pub(crate) fn awk_tokens(src: &str) -> Vec<AwkTok> {
    let chars: Vec<char> = src.chars().collect();
    let mut out: Vec<AwkTok> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && chars.get(i + 1) == Some(&'\n') {
            i += 2;
            continue;
        }
        if c == '\n' {
            out.push(AwkTok::Newline);
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '"' {
            let mut s = String::new();
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    i += 1;
                    s.push(match chars[i] {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                } else {
                    s.push(chars[i]);
                }
                i += 1;
            }
            i += 1;
            if let Some(AwkTok::Str(prev)) = out.last_mut() {
                prev.push_str(&s);
            } else {
                out.push(AwkTok::Str(s));
            }
            continue;
        }
        if c == '/' && !out.last().is_some_and(AwkTok::is_value) {
            // A regex literal.
            i += 1;
            let mut bracket = false;
            while i < chars.len() && chars[i] != '\n' {
                match chars[i] {
                    '\\' => i += 1,
                    '[' => bracket = true,
                    ']' => bracket = false,
                    '/' if !bracket => break,
                    _ => {}
                }
                i += 1;
            }
            i += 1;
            out.push(AwkTok::Regex);
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' || c == '@' {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(AwkTok::Word(chars[start..i].iter().collect()));
            continue;
        }
        if c.is_ascii_digit() || c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            out.push(AwkTok::Num);
            continue;
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        if matches!(
            two.as_str(),
            "||" | "&&"
                | "|&"
                | ">>"
                | ">="
                | "<="
                | "=="
                | "!="
                | "++"
                | "--"
                | "+="
                | "-="
                | "*="
                | "/="
                | "%="
                | "^="
                | "**"
                | "!~"
        ) {
            out.push(AwkTok::Op(two));
            i += 2;
            continue;
        }
        out.push(AwkTok::Op(c.to_string()));
        i += 1;
    }
    out
}

/// The tokens inside the parentheses that open at `at`, with adjacent
/// strings folded; `None` when no parenthesis opens there or it never closes.
pub(crate) fn call_args(toks: &[AwkTok], at: usize) -> Option<Vec<AwkTok>> {
    if toks.get(at) != Some(&AwkTok::Op("(".into())) {
        return None;
    }
    let mut depth = 0usize;
    for (j, tok) in toks.iter().enumerate().skip(at) {
        match tok {
            AwkTok::Op(op) if op == "(" => depth += 1,
            AwkTok::Op(op) if op == ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(toks[at + 1..j].to_vec());
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn awk_strings_fold_and_regexes_are_skipped() {
        let toks = awk_tokens("/a|b/ { system(\"rm \" \"-rf\") }");
        assert!(toks.contains(&AwkTok::Str("rm -rf".into())));
        assert!(!toks.contains(&AwkTok::Op("|".into())));
    }

    use proptest::prelude::*;

    /// `text` as an awk string literal.
    fn literal(text: &str) -> String {
        let mut out = String::from("\"");
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    /// The literal arguments of the first `system(...)` in `program`.
    fn system_args(program: &str) -> Option<Vec<AwkTok>> {
        let toks = awk_tokens(program);
        let at = toks
            .iter()
            .position(|t| *t == AwkTok::Word("system".into()))?;
        call_args(&toks, at + 1)
    }

    #[test]
    fn calls_keep_their_nested_parentheses() {
        assert_eq!(
            system_args("BEGIN { system(sprintf(\"%s\", x)) }").map(|a| a.len()),
            Some(6)
        );
        assert_eq!(system_args("BEGIN { system(\"x\""), None);
    }

    proptest! {
        /// Any text lexes without panicking, each token taking at least one character.
        #[test]
        fn any_text_lexes_in_bounded_tokens(src in any::<String>()) {
            let toks = awk_tokens(&src);
            prop_assert!(toks.len() <= src.chars().count());
        }

        /// An escaped string literal is read back as the text it spells.
        #[test]
        fn string_escapes_round_trip(text in "[ -~\n\t]{0,24}") {
            let program = format!("BEGIN {{ system({}) }}", literal(&text));
            prop_assert_eq!(system_args(&program), Some(vec![AwkTok::Str(text)]));
        }

        /// Adjacent literals are one string: the command `system` runs is seen whole.
        #[test]
        fn adjacent_strings_fold(a in "[ -~]{0,12}", b in "[ -~]{0,12}", c in "[ -~]{0,12}") {
            let program = format!("BEGIN{{system({} {} {})}}", literal(&a), literal(&b), literal(&c));
            prop_assert_eq!(system_args(&program), Some(vec![AwkTok::Str(format!("{a}{b}{c}"))]));
        }

        /// What a regular expression holds is not code: no pipe or redirection is read from it.
        #[test]
        fn regex_contents_are_not_operators(re in "[a-z|&>;(){} ]{0,16}") {
            let toks = awk_tokens(&format!("/{re}/ {{ n++ }}"));
            prop_assert_eq!(toks.first(), Some(&AwkTok::Regex));
            prop_assert!(!toks.iter().any(|t| matches!(t, AwkTok::Op(op) if op == "|" || op == ">")));
        }
    }
}
