//! Inline code of the interpreters the guard models (Python, JavaScript, Perl, Ruby, PHP, Lua, R,
//! Tcl, Julia, AppleScript, PowerShell): not parsed as its language but tokenized (strings with
//! their escapes and interpolations, command literals, word lists, identifiers, punctuation), with
//! string concatenation folded into one literal, so `rules/interp.rs` can judge calls by name and
//! their literal arguments.

/// Language families: which words mean what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Python,
    Js,
    Perl,
    Ruby,
    Php,
    Lua,
    R,
    Tcl,
    Julia,
    AppleScript,
    PowerShell,
}

/// One token of inline code.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A string literal (after folding concatenations); `dynamic` when it
    /// interpolates values.
    Str {
        text: String,
        dynamic: bool,
    },
    /// A command literal (`` `cmd` ``, `qx{}`, `%x()`).
    Cmd {
        text: String,
        dynamic: bool,
    },
    /// A list literal of words (`qw(a b)`, `%w[a b]`).
    Words(Vec<String>),
    Ident(String),
    Num,
    Punct(char),
    /// `\n` (ends statements in most of these languages).
    Newline,
    /// A character the guard does not expect outside strings (non-ASCII:
    /// Python normalises identifiers with NFKC; escapes in JS identifiers).
    Odd(char),
}

impl Tok {
    pub(crate) fn ident(&self) -> Option<&str> {
        match self {
            Tok::Ident(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn is_punct(&self, c: char) -> bool {
        matches!(self, Tok::Punct(p) if *p == c)
    }

    pub(crate) fn literal(&self) -> Option<&str> {
        match self {
            Tok::Str {
                text,
                dynamic: false,
            } => Some(text),
            _ => None,
        }
    }
}

/// Most tokens looked at per piece of code; more is refused (bounded work).
pub(crate) const MAX_TOKENS: usize = 20_000;

pub(crate) fn closing(open: char) -> Option<char> {
    match open {
        '(' => Some(')'),
        '[' => Some(']'),
        '{' => Some('}'),
        '<' => Some('>'),
        _ => None,
    }
}

/// Reads a delimited literal starting after its opening delimiter; nested
/// brackets count. Returns the text and the index after the closer.
pub(crate) fn delimited(
    chars: &[char],
    mut i: usize,
    open: char,
    close: char,
    escapes: bool,
) -> (String, usize, bool) {
    let mut depth = 0usize;
    let mut out = String::new();
    // An escape the decoder does not model (`\N{name}`, `\cX`, `\L`): the
    // text is then not known.
    let mut unsure = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            let e = chars[i + 1];
            if escapes {
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'a' => out.push('\u{7}'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'v' => out.push('\u{b}'),
                    'e' => out.push('\u{1b}'),
                    // `\xHH`, `\uHHHH`, or either with braces: `\x{...}`, `\u{...}`.
                    'x' | 'u' => {
                        let width = if e == 'x' { 2 } else { 4 };
                        let (hex, used) = if chars.get(i + 2) == Some(&'{') {
                            let end = chars[i + 3..(i + 12).min(chars.len())]
                                .iter()
                                .position(|c| *c == '}')
                                .unwrap_or(0);
                            (
                                chars[i + 3..i + 3 + end].iter().collect::<String>(),
                                end + 2,
                            )
                        } else {
                            (
                                chars[i + 2..(i + 2 + width).min(chars.len())]
                                    .iter()
                                    .collect::<String>(),
                                width,
                            )
                        };
                        if hex.chars().all(|h| h.is_ascii_hexdigit())
                            && let Ok(v) = u32::from_str_radix(&hex, 16)
                            && let Some(ch) = char::from_u32(v)
                        {
                            out.push(ch);
                            i += 2 + used;
                            continue;
                        }
                        unsure = true;
                        out.push(e);
                    }
                    '0'..='7' => {
                        let oct: String = chars[i + 1..(i + 4).min(chars.len())]
                            .iter()
                            .take_while(|c| c.is_digit(8))
                            .collect();
                        if let Ok(v) = u32::from_str_radix(&oct, 8)
                            && let Some(ch) = char::from_u32(v)
                        {
                            out.push(ch);
                            i += 1 + oct.len();
                            continue;
                        }
                        out.push(e);
                    }
                    other => {
                        unsure |= other.is_ascii_alphabetic();
                        out.push(other);
                    }
                }
            } else {
                if e != close && e != '\\' {
                    out.push('\\');
                }
                out.push(e);
            }
            i += 2;
            continue;
        }
        if c == close && depth == 0 {
            return (out, i + 1, unsure);
        }
        if open != close {
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
            }
        }
        out.push(c);
        i += 1;
    }
    (out, i, unsure)
}

/// Tokenizes `code` for `family`. Bounded: at most [`MAX_TOKENS`].
pub(crate) fn tokens(code: &str, family: Family) -> Vec<Tok> {
    tokens_at(code, family, 0)
}

/// Code interpolated into a string (`f"{x}"`, `${x}`, `#{x}`, `@{[x]}`,
/// `{$x}`, `$(x)`): it runs, so it is tokenized too.
pub(crate) fn interpolations(text: &str, family: Family) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() && out.len() < 64 {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let (skip, open, close) = match (family, c, next) {
            (Family::Python, '{', Some('{')) => {
                i += 2;
                continue;
            }
            (Family::Python, '{', _) => (1, '{', '}'),
            (Family::Js, '$', Some('{')) | (Family::Ruby, '#', Some('{')) => (2, '{', '}'),
            (Family::Perl | Family::Php, '$' | '@', Some('{')) => (2, '{', '}'),
            (Family::Php, '{', Some('$')) => (1, '{', '}'),
            (Family::Julia, '$', Some('(')) => (2, '(', ')'),
            _ => {
                i += 1;
                continue;
            }
        };
        let start = i + skip;
        let mut depth = 1usize;
        let mut j = start;
        while j < chars.len() {
            if chars[j] == open {
                depth += 1;
            } else if chars[j] == close {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            j += 1;
        }
        out.push(chars[start..j.min(chars.len())].iter().collect());
        i = j + 1;
    }
    out
}

pub(crate) fn tokens_at(code: &str, family: Family, depth: usize) -> Vec<Tok> {
    let chars: Vec<char> = code.chars().collect();
    let mut out: Vec<Tok> = Vec::new();
    let mut segments: Vec<String> = Vec::new();
    let mut i = 0;
    let interpolates = |quote: char, text: &str| -> bool {
        match family {
            Family::Perl | Family::Php => {
                quote != '\'' && (text.contains('$') || text.contains('@'))
            }
            Family::Ruby => quote != '\'' && text.contains("#{"),
            Family::Js => quote == '`' && text.contains("${"),
            Family::Julia => quote != '\'' && text.contains('$'),
            Family::PowerShell => quote == '"' && text.contains('$'),
            _ => false,
        }
    };
    while i < chars.len() && out.len() < MAX_TOKENS {
        let c = chars[i];
        if c == '\n' {
            out.push(Tok::Newline);
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        // Python comments (Python has no regex literals, so `#` outside a
        // string always starts one).
        if c == '#' && family == Family::Python {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        // Python triple-quoted strings.
        if family == Family::Python
            && (c == '"' || c == '\'')
            && chars.get(i + 1) == Some(&c)
            && chars.get(i + 2) == Some(&c)
        {
            let start = i + 3;
            let mut j = start;
            while j + 2 < chars.len() && !(chars[j] == c && chars[j + 1] == c && chars[j + 2] == c)
            {
                j += 1;
            }
            let text: String = chars[start..j.min(chars.len())].iter().collect();
            let fstring = matches!(out.last(), Some(Tok::Ident(p)) if p.to_ascii_lowercase().contains('f') && p.len() <= 2);
            if fstring {
                out.pop();
                if text.contains('{') {
                    segments.extend(interpolations(&text, family));
                }
            }
            out.push(Tok::Str {
                dynamic: fstring && text.contains('{'),
                text,
            });
            i = (j + 3).min(chars.len());
            continue;
        }
        if c == '"' || c == '\'' || c == '`' {
            // Python raw strings (r"...") keep their backslashes.
            let raw = family != Family::Python
                || !matches!(out.last(), Some(Tok::Ident(p)) if p.to_ascii_lowercase().contains('r') && p.len() <= 2);
            // Escapes are decoded in every quote style: an over-approximation
            // (a Perl single-quoted `\x72` stays as written) that only makes
            // more text visible.
            let escapes = raw;
            let (text, next, unsure) = delimited(&chars, i + 1, c, c, escapes);
            i = next;
            let mut interpolated = interpolates(c, &text);
            if family == Family::Python
                && let Some(Tok::Ident(p)) = out.last()
                && p.len() <= 2
                && p.chars().all(|ch| "rbfuRBFU".contains(ch))
            {
                interpolated =
                    interpolated || (p.to_ascii_lowercase().contains('f') && text.contains('{'));
                out.pop();
            }
            let command_quote = c == '`'
                && matches!(
                    family,
                    Family::Perl | Family::Ruby | Family::Php | Family::Julia
                );
            if interpolated {
                segments.extend(interpolations(&text, family));
            }
            let dynamic = unsure || interpolated;
            if command_quote {
                out.push(Tok::Cmd { text, dynamic });
            } else {
                out.push(Tok::Str { text, dynamic });
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' || (c == '$' && family == Family::Js) {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || chars[i] == '_'
                    || (chars[i] == '$' && family == Family::Js))
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // Perl quote-like operators and Ruby percent literals.
            if family == Family::Perl && matches!(word.as_str(), "q" | "qq" | "qw" | "qx") {
                let mut j = i;
                while j < chars.len() && chars[j] == ' ' {
                    j += 1;
                }
                if let Some(&open) = chars.get(j)
                    && (open.is_ascii_punctuation()
                        && open != ','
                        && open != ';'
                        && open != '='
                        && open != ')')
                {
                    let close = closing(open).unwrap_or(open);
                    let (text, next, unsure) = delimited(&chars, j + 1, open, close, word != "q");
                    i = next;
                    let dynamic =
                        unsure || word != "q" && (text.contains('$') || text.contains('@'));
                    if dynamic {
                        segments.extend(interpolations(&text, family));
                    }
                    out.push(match word.as_str() {
                        "qw" => Tok::Words(text.split_whitespace().map(str::to_owned).collect()),
                        "qx" => Tok::Cmd { text, dynamic },
                        _ => Tok::Str { text, dynamic },
                    });
                    continue;
                }
            }
            out.push(Tok::Ident(word));
            continue;
        }
        if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            out.push(Tok::Num);
            continue;
        }
        if family == Family::Ruby && c == '%' {
            if let Some(&kind) = chars.get(i + 1)
                && matches!(kind, 'w' | 'W' | 'i' | 'q' | 'Q' | 'x')
                && let Some(&open) = chars.get(i + 2)
                && open.is_ascii_punctuation()
            {
                let close = closing(open).unwrap_or(open);
                let (text, next, unsure) = delimited(&chars, i + 3, open, close, kind != 'q');
                i = next;
                let dynamic = unsure || kind != 'q' && text.contains("#{");
                if dynamic {
                    segments.extend(interpolations(&text, family));
                }
                out.push(match kind {
                    'w' | 'W' | 'i' => {
                        Tok::Words(text.split_whitespace().map(str::to_owned).collect())
                    }
                    'x' => Tok::Cmd { text, dynamic },
                    _ => Tok::Str { text, dynamic },
                });
                continue;
            }
            if let Some(&open) = chars.get(i + 1)
                && matches!(open, '(' | '[' | '{' | '<' | '|' | '!')
                && !out.last().is_some_and(|t| {
                    matches!(t, Tok::Ident(_) | Tok::Num | Tok::Str { .. }) || t.is_punct(')')
                })
            {
                let close = closing(open).unwrap_or(open);
                let (text, next, unsure) = delimited(&chars, i + 2, open, close, true);
                i = next;
                let dynamic = unsure || text.contains("#{");
                if dynamic {
                    segments.extend(interpolations(&text, family));
                }
                out.push(Tok::Str { text, dynamic });
                continue;
            }
        }
        if family == Family::Ruby
            && c == ':'
            && chars
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '_')
            && !out.last().is_some_and(|t| t.is_punct(':'))
            && chars.get(i.wrapping_sub(1)) != Some(&':')
        {
            // A symbol names a method: treat it as a string.
            let start = i + 1;
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || chars[i] == '_'
                    || chars[i] == '!'
                    || chars[i] == '?')
            {
                i += 1;
            }
            out.push(Tok::Str {
                text: chars[start..i].iter().collect(),
                dynamic: false,
            });
            continue;
        }
        if c.is_ascii() {
            if c == '\\' && family == Family::Js && chars.get(i + 1) == Some(&'u') {
                out.push(Tok::Odd(c));
            } else {
                out.push(Tok::Punct(c));
            }
        } else if family == Family::Python {
            // Python normalises identifiers (NFKC): `ｒｍｔｒｅｅ` is `rmtree`.
            out.push(Tok::Odd(c));
        }
        i += 1;
    }
    // Interpolated code runs too: judge it after the rest, on lines of its own.
    for segment in segments {
        if depth >= 4 || out.len() >= MAX_TOKENS {
            out.push(Tok::Odd('{'));
            break;
        }
        out.push(Tok::Newline);
        out.extend(tokens_at(&segment, family, depth + 1));
        out.push(Tok::Newline);
    }
    fold(out, family)
}

/// Folds string concatenation (`"a" + "b"`, `'a' . 'b'`, `"a" .. "b"`,
/// `"a" "b"`) into one string.
pub(crate) fn fold(toks: Vec<Tok>, family: Family) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if let Tok::Str { text, dynamic } = &toks[i] {
            let mut text = text.clone();
            let mut dynamic = *dynamic;
            let mut j = i + 1;
            loop {
                // Juxtaposition (Python, awk-like) or an operator between.
                let next = match (toks.get(j), toks.get(j + 1), toks.get(j + 2)) {
                    (Some(Tok::Str { .. }), _, _) if matches!(family, Family::Python) => j,
                    (Some(Tok::Punct('+')), Some(Tok::Str { .. }), _)
                        if matches!(
                            family,
                            Family::Python | Family::Js | Family::Ruby | Family::PowerShell
                        ) =>
                    {
                        j + 1
                    }
                    (Some(Tok::Punct('.')), Some(Tok::Str { .. }), _)
                        if matches!(family, Family::Perl | Family::Php) =>
                    {
                        j + 1
                    }
                    (Some(Tok::Punct('.')), Some(Tok::Punct('.')), Some(Tok::Str { .. }))
                        if family == Family::Lua =>
                    {
                        j + 2
                    }
                    (Some(Tok::Punct('*')), Some(Tok::Str { .. }), _)
                        if family == Family::Julia =>
                    {
                        j + 1
                    }
                    (Some(Tok::Punct('&')), Some(Tok::Str { .. }), _)
                        if family == Family::AppleScript =>
                    {
                        j + 1
                    }
                    _ => break,
                };
                if let Some(Tok::Str {
                    text: more,
                    dynamic: d,
                }) = toks.get(next)
                {
                    text.push_str(more);
                    dynamic |= *d;
                }
                j = next + 1;
            }
            out.push(Tok::Str { text, dynamic });
            i = j;
            continue;
        }
        out.push(toks[i].clone());
        i += 1;
    }
    out
}

/// The index of the token closing the bracket opened at `at`.
pub(crate) fn matching(toks: &[Tok], at: usize) -> Option<usize> {
    let (open, close) = match toks.get(at)? {
        Tok::Punct('(') => ('(', ')'),
        Tok::Punct('[') => ('[', ']'),
        Tok::Punct('{') => ('{', '}'),
        _ => return None,
    };
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(at) {
        if t.is_punct(open) {
            depth += 1;
        } else if t.is_punct(close) {
            depth -= 1;
            if depth == 0 {
                return Some(j);
            }
        }
    }
    None
}

/// Splits tokens at top-level commas.
pub(crate) fn split_args(toks: &[Tok]) -> Vec<&[Tok]> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (j, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                out.push(&toks[start..j]);
                start = j + 1;
            }
            _ => {}
        }
    }
    if start < toks.len() {
        out.push(&toks[start..]);
    }
    out.into_iter()
        .map(|a| {
            let mut a = a;
            while let Some((Tok::Newline, rest)) = a.split_first() {
                a = rest;
            }
            a
        })
        .filter(|a| !a.is_empty())
        .collect()
}

/// One argument of a spawn call, as far as the guard can resolve it.
pub(crate) enum ArgVal {
    Str(String),
    List(Vec<String>),
    /// Keyword arguments and option objects: not part of the command.
    Skip,
    /// A keyword argument that changes what runs (`executable=`).
    BadKeyword,
    /// `shell=True` / `{shell: true}`: the command is a shell line.
    ShellOn,
    /// `cwd=` / `{cwd: ...}` / `chdir:`: the command runs elsewhere.
    Elsewhere,
    Dynamic,
}

pub(crate) fn arg_value(arg: &[Tok], family: Family) -> ArgVal {
    match arg {
        [
            Tok::Str {
                text,
                dynamic: false,
            }
            | Tok::Cmd {
                text,
                dynamic: false,
            },
        ] => ArgVal::Str(text.clone()),
        [Tok::Words(words)] => ArgVal::List(words.clone()),
        [Tok::Punct('[' | '('), inner @ .., Tok::Punct(']' | ')')] => {
            let mut items = Vec::new();
            for item in split_args(inner) {
                match item {
                    [
                        Tok::Str {
                            text,
                            dynamic: false,
                        },
                    ] => items.push(text.clone()),
                    [Tok::Words(words)] => items.extend(words.iter().cloned()),
                    _ => return ArgVal::Dynamic,
                }
            }
            ArgVal::List(items)
        }
        // R's c("a", "b").
        [Tok::Ident(c), Tok::Punct('('), inner @ .., Tok::Punct(')')]
            if c == "c" && family == Family::R =>
        {
            arg_value(
                &[&[Tok::Punct('(')], inner, &[Tok::Punct(')')]].concat(),
                family,
            )
        }
        // An options object; its `args`/`cmd` (Deno.Command, Deno.run) is
        // the command itself.
        [Tok::Punct('{'), inner @ .., Tok::Punct('}')] => {
            let key = |names: &[&str]| {
                inner.windows(2).enumerate().find_map(|(i, w)| {
                    (matches!(&w[0], Tok::Ident(n) if names.contains(&n.as_str()))
                        && w[1].is_punct(':'))
                    .then_some(i + 2)
                })
            };
            let env_ok = key(&["env"]).is_none_or(|v| {
                matches!(
                    (inner.get(v), inner.get(v + 1), inner.get(v + 2), inner.get(v + 3)),
                    (Some(Tok::Ident(p)), Some(Tok::Punct('.')), Some(Tok::Ident(e)), next)
                        if p == "process" && e == "env" && next.is_none_or(|n| n.is_punct(','))
                )
            });
            if key(&["args", "cmd", "argv0", "command"]).is_some() || !env_ok {
                ArgVal::BadKeyword
            } else if let Some(v) = key(&["shell"])
                && !matches!(inner.get(v), Some(Tok::Ident(f)) if f == "false")
            {
                match inner.get(v) {
                    Some(Tok::Ident(t)) if t == "true" => ArgVal::ShellOn,
                    Some(Tok::Str {
                        text,
                        dynamic: false,
                    }) if matches!(text.as_str(), "/bin/sh" | "/bin/bash" | "sh" | "bash") => {
                        ArgVal::ShellOn
                    }
                    // Another program as the shell: it runs the command line.
                    _ => ArgVal::BadKeyword,
                }
            } else if key(&["cwd"]).is_some() {
                ArgVal::Elsewhere
            } else {
                ArgVal::Skip
            }
        }
        // name=value (Python), name: value (Ruby, JS), name => value.
        [Tok::Ident(name), Tok::Punct('='), rest @ ..]
            if !rest.first().is_some_and(|t| t.is_punct('=')) =>
        {
            let env_ok = |rest: &[Tok]| {
                matches!(rest, [Tok::Ident(n)] if n == "None")
                    || matches!(rest, [Tok::Ident(o), Tok::Punct('.'), Tok::Ident(e)] if o == "os" && e == "environ")
            };
            match name.as_str() {
                "shell" if matches!(rest, [Tok::Ident(v)] if v == "True") => ArgVal::ShellOn,
                "shell" if matches!(rest, [Tok::Ident(v)] if v == "False") => ArgVal::Skip,
                "executable" | "preexec_fn" | "args" | "shell" | "input" | "stdin" => {
                    if name == "stdin" && matches!(rest, [.., Tok::Ident(v)] if v == "DEVNULL") {
                        ArgVal::Skip
                    } else if name == "input" || name == "stdin" {
                        // Data fed to the command: it is walked with unknown input anyway.
                        ArgVal::Skip
                    } else {
                        ArgVal::BadKeyword
                    }
                }
                "env" if !env_ok(rest) => ArgVal::BadKeyword,
                "cwd" => ArgVal::Elsewhere,
                _ => ArgVal::Skip,
            }
        }
        // Ruby keyword arguments (`chdir: "x"`), JS-less.
        [Tok::Ident(name), Tok::Punct(':'), rest @ ..]
            if !rest.first().is_some_and(|t| t.is_punct(':')) =>
        {
            if name == "chdir" {
                ArgVal::Elsewhere
            } else {
                ArgVal::Skip
            }
        }
        _ => ArgVal::Dynamic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(toks: &[Tok]) -> Vec<String> {
        toks.iter()
            .filter_map(|t| t.literal().map(str::to_owned))
            .collect()
    }

    #[test]
    fn literals_fold() {
        assert_eq!(
            strs(&tokens("subprocess.run(['git','pu'+'sh'])", Family::Python)),
            vec!["git", "push"]
        );
        assert_eq!(
            strs(&tokens(r#"print("a\"b")"#, Family::Python)),
            vec!["a\"b"]
        );
        assert_eq!(
            strs(&tokens(r#"system "git " . 'push'"#, Family::Perl)),
            vec!["git push"]
        );
        assert_eq!(
            strs(&tokens(r#"os.execute("r" .. "m")"#, Family::Lua)),
            vec!["rm"]
        );
        assert_eq!(
            strs(&tokens(r#"require("child"+"_process")"#, Family::Js)),
            vec!["child_process"]
        );
    }

    use proptest::prelude::*;

    const FAMILIES: [Family; 11] = [
        Family::Python,
        Family::Js,
        Family::Perl,
        Family::Ruby,
        Family::Php,
        Family::Lua,
        Family::R,
        Family::Tcl,
        Family::Julia,
        Family::AppleScript,
        Family::PowerShell,
    ];

    /// How each family concatenates two strings.
    fn concat(family: Family) -> Option<&'static str> {
        match family {
            Family::Python | Family::Js | Family::Ruby | Family::PowerShell => Some(" + "),
            Family::Perl | Family::Php => Some(" . "),
            Family::Lua => Some(" .. "),
            Family::Julia => Some(" * "),
            Family::AppleScript => Some(" & "),
            Family::R | Family::Tcl => None,
        }
    }

    proptest! {
        /// Any text in any family tokenizes without panicking, within the token bound.
        #[test]
        fn any_code_tokenizes_bounded(code in any::<String>(), f in 0..FAMILIES.len()) {
            prop_assert!(tokens(&code, FAMILIES[f]).len() <= MAX_TOKENS);
        }

        /// Concatenated literals are one literal: `"rm -" + "rf"` is seen as `rm -rf`.
        #[test]
        fn concatenations_fold(parts in prop::collection::vec("[a-z0-9 ._/-]{0,8}", 1..5), f in 0..FAMILIES.len()) {
            let family = FAMILIES[f];
            if let Some(op) = concat(family) {
                let code = parts.iter().map(|p| format!("\"{p}\"")).collect::<Vec<_>>().join(op);
                let toks = tokens(&format!("run({code})"), family);
                prop_assert_eq!(strs(&toks), vec![parts.concat()]);
            }
        }

        /// Escapes are decoded to the text they spell (`\x72\x6d` is `rm`), in every family.
        #[test]
        fn escapes_decode(text in "[ -~]{1,16}", f in 0..FAMILIES.len(), style in 0..3usize) {
            let family = FAMILIES[f];
            let escaped: String = text
                .chars()
                .map(|c| match style {
                    0 => format!("\\x{:02x}", c as u32),
                    1 => format!("\\u{{{:x}}}", c as u32),
                    _ => format!("\\{:03o}", c as u32),
                })
                .collect();
            let toks = tokens(&format!("f(\"{escaped}\")"), family);
            let literal = toks.iter().find_map(|t| match t {
                Tok::Str { text, .. } => Some(text.clone()),
                _ => None,
            });
            prop_assert_eq!(literal, Some(text));
        }

        /// Brackets match: `matching` finds the closer of every opener in balanced code.
        #[test]
        fn brackets_match(depth in 1..6usize) {
            let code = format!("{}x{}", "f(".repeat(depth), ")".repeat(depth));
            let toks = tokens(&code, Family::Python);
            let close = matching(&toks, 1);
            prop_assert_eq!(close, Some(toks.len() - 1));
        }
    }
}
