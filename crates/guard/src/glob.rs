//! Path globs matched without building a regex: the policy's globs (protected paths,
//! allowances, pawl's paths) are checked on most commands, and a hook is a new process each
//! time, so compiling them into regexes (what `globset` does) cost more than the rest of a
//! decision. The syntax and meaning are globset's with `literal_separator` and
//! `backslash_escape` (the policy still validates every glob with globset when it compiles):
//! `*` and `?` never match `/`; `**/` at the start matches any leading directories (none
//! included), `/**` at the end everything below, `/**/` zero or more directories, `**` alone
//! everything; `[abc]`, `[!a-z]`, `{a,b}` and `\x`.
//!
//! Not here: deciding what a glob means for the policy (`policy.rs`).

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Lit(char),
    /// `?`
    One,
    /// `*`
    Star,
    /// `**/` at the start.
    AnyDirs,
    /// `/**/` in the middle.
    SlashDirs,
    /// `/**` at the end.
    Below,
    /// `**` as the whole glob.
    All,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Alt(Vec<Vec<Tok>>),
}

/// A glob, parsed on its first match: a policy holds a few hundred globs and a one-shot
/// decision (the hook's) matches a path against some of them, or none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathGlob {
    pattern: String,
    toks: std::sync::OnceLock<Vec<Tok>>,
    case_insensitive: bool,
}

impl PathGlob {
    /// Keeps `pattern` (already checked by globset; anything odd is read literally).
    pub(crate) fn new(pattern: &str, case_insensitive: bool) -> Self {
        PathGlob {
            pattern: pattern.to_owned(),
            toks: std::sync::OnceLock::new(),
            case_insensitive,
        }
    }

    fn toks(&self) -> &[Tok] {
        self.toks.get_or_init(|| {
            let chars: Vec<char> = if self.case_insensitive {
                self.pattern.to_lowercase().chars().collect()
            } else {
                self.pattern.chars().collect()
            };
            parse(&chars, true)
        })
    }

    /// Whether `path` matches the whole glob.
    pub(crate) fn is_match(&self, path: &str) -> bool {
        self.is_match_text(&Text::new(path))
    }

    /// Whether `text` matches the whole glob (a path matched against many globs is made
    /// ready once).
    pub(crate) fn is_match_text(&self, text: &Text) -> bool {
        let chars = if self.case_insensitive {
            &text.lower
        } else {
            &text.exact
        };
        let mut budget = 100_000usize;
        matches(self.toks(), chars, &mut budget)
    }
}

/// A path as globs match it: its characters, and lowercased for the case-insensitive globs.
#[derive(Debug)]
pub(crate) struct Text {
    exact: Vec<char>,
    lower: Vec<char>,
}

impl Text {
    pub(crate) fn new(path: &str) -> Self {
        Text {
            exact: path.chars().collect(),
            lower: path.to_lowercase().chars().collect(),
        }
    }
}

fn parse(chars: &[char], top: bool) -> Vec<Tok> {
    let mut out = Vec::new();
    if top && chars == ['*', '*'] {
        return vec![Tok::All];
    }
    let mut i = 0;
    if top && chars.starts_with(&['*', '*', '/']) {
        out.push(Tok::AnyDirs);
        i = 3;
    }
    while i < chars.len() {
        let rest = &chars[i..];
        if top && rest.starts_with(&['/', '*', '*', '/']) {
            out.push(Tok::SlashDirs);
            i += 4;
            continue;
        }
        if top && rest == ['/', '*', '*'] {
            out.push(Tok::Below);
            break;
        }
        match chars[i] {
            '\\' if i + 1 < chars.len() => {
                out.push(Tok::Lit(chars[i + 1]));
                i += 2;
            }
            '*' => {
                // `**` elsewhere is globset's error; read as one `*`.
                while i < chars.len() && chars[i] == '*' {
                    i += 1;
                }
                out.push(Tok::Star);
            }
            '?' => {
                out.push(Tok::One);
                i += 1;
            }
            '[' => match class(&chars[i..]) {
                Some((tok, used)) => {
                    out.push(tok);
                    i += used;
                }
                None => {
                    out.push(Tok::Lit('['));
                    i += 1;
                }
            },
            '{' => match alternation(&chars[i..]) {
                Some((tok, used)) => {
                    out.push(tok);
                    i += used;
                }
                None => {
                    out.push(Tok::Lit('{'));
                    i += 1;
                }
            },
            c => {
                out.push(Tok::Lit(c));
                i += 1;
            }
        }
    }
    out
}

/// `[...]` at the start of `chars`: the token and the characters it used.
fn class(chars: &[char]) -> Option<(Tok, usize)> {
    let mut i = 1;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(i)?;
        if c == ']' && !first {
            return Some((Tok::Class { negated, ranges }, i + 1));
        }
        first = false;
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|e| *e != ']') {
            ranges.push((c, chars[i + 2]));
            i += 3;
        } else {
            ranges.push((c, c));
            i += 1;
        }
    }
}

/// `{a,b}` at the start of `chars` (not nested, as in globset).
fn alternation(chars: &[char]) -> Option<(Tok, usize)> {
    let end = chars.iter().position(|c| *c == '}')?;
    let inner = &chars[1..end];
    let alts = inner
        .split(|c| *c == ',')
        .map(|a| parse(a, false))
        .collect();
    Some((Tok::Alt(alts), end + 1))
}

fn matches(toks: &[Tok], text: &[char], budget: &mut usize) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let Some((tok, rest)) = toks.split_first() else {
        return text.is_empty();
    };
    match tok {
        Tok::All => true,
        Tok::Lit(c) => text.first() == Some(c) && matches(rest, &text[1..], budget),
        Tok::One => text.first().is_some_and(|c| *c != '/') && matches(rest, &text[1..], budget),
        Tok::Class { negated, ranges } => {
            text.first().is_some_and(|c| {
                *c != '/' && (ranges.iter().any(|(lo, hi)| lo <= c && c <= hi) != *negated)
            }) && matches(rest, &text[1..], budget)
        }
        Tok::Star => {
            for k in 0..=text.len() {
                if matches(rest, &text[k..], budget) {
                    return true;
                }
                if text.get(k) == Some(&'/') {
                    break;
                }
            }
            false
        }
        Tok::AnyDirs => {
            matches(rest, text, budget)
                || text
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c == '/')
                    .any(|(i, _)| matches(rest, &text[i + 1..], budget))
        }
        Tok::SlashDirs => {
            text.first() == Some(&'/')
                && text
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c == '/')
                    .any(|(i, _)| matches(rest, &text[i + 1..], budget))
        }
        Tok::Below => text.first() == Some(&'/'),
        Tok::Alt(alts) => alts.iter().any(|alt| {
            let mut joined = alt.clone();
            joined.extend_from_slice(rest);
            matches(&joined, text, budget)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answers as globset (literal_separator, backslash_escape) on the policy's shapes.
    #[test]
    fn agrees_with_globset() {
        let patterns = [
            "**/.env",
            "**/.env.*",
            "!**/.env.example*",
            ".git/**",
            "pawl.toml",
            "**/*.pem",
            "**/{target,node_modules,dist}",
            "**/{target,node_modules,dist}/**",
            "/tmp/**",
            "$TMPDIR/**",
            "~/.ssh/**",
            "~/.local/state/pawl/**",
            "**/.pawl/**",
            "*.tf",
            "migrations/**",
            "src/*.rs",
            "a/**/b",
            "**",
            "**/id_rsa*",
            "[Dd]ockerfile*",
            "**/secrets.{yml,yaml,json}",
            "**/k8s/**",
            "x?z",
            "[!a]bc",
            "a\\*b",
            "**/.claude/settings*.json",
        ];
        let paths = [
            ".env",
            "a/.env",
            ".env.local",
            "a/b/.env.prod",
            ".env.example",
            ".git/config",
            ".git",
            "pawl.toml",
            "x/pawl.toml",
            "k.pem",
            "a/b/k.pem",
            "target",
            "a/target",
            "a/target/x/y",
            "/tmp/x",
            "/tmp",
            "/tmp/a/b",
            "$TMPDIR/x",
            "~/.ssh/id_rsa",
            "~/.ssh",
            "~/.local/state/pawl/key",
            ".pawl/pawl.db",
            "a/.pawl/x",
            "main.tf",
            "a/main.tf",
            "migrations/001.sql",
            "src/lib.rs",
            "src/a/lib.rs",
            "a/b",
            "a/x/b",
            "a/x/y/b",
            "ab",
            "",
            "id_rsa.pub",
            "x/id_rsa",
            "Dockerfile",
            "dockerfile.dev",
            "secrets.yml",
            "a/secrets.json",
            "k8s/x.yaml",
            "a/k8s/b/c",
            "xyz",
            "x/z",
            "bbc",
            "abc",
            "a*b",
            "axb",
            ".claude/settings.local.json",
            "a/.claude/settings.json",
        ];
        for p in patterns {
            let p = p.strip_prefix('!').unwrap_or(p);
            for ci in [false, true] {
                let theirs = globset::GlobBuilder::new(p)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .case_insensitive(ci)
                    .build()
                    .map(|g| g.compile_matcher());
                let Ok(theirs) = theirs else { continue };
                let ours = PathGlob::new(p, ci);
                for path in paths {
                    assert_eq!(
                        ours.is_match(path),
                        theirs.is_match(path),
                        "glob {p:?} (case-insensitive {ci}) on {path:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn hostile_globs_end() {
        let g = PathGlob::new("*a*a*a*a*a*a*a*a*a*a*a*b", false);
        assert!(!g.is_match(&"a".repeat(200)));
    }
}
