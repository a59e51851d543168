//! Lexical path arithmetic: joining a word onto the current directory,
//! resolving `.` and `..` without touching the filesystem, and building the
//! forms policy globs are matched against.
//!
//! Lexical resolution is deliberate: the guard does no I/O, and `target/..`
//! must be judged as what it names, not as the allowed `target`.

use crate::policy::PathForms;

/// Joins `path` onto `base` (both `/`-separated; `base` absolute) and
/// resolves `.` and `..` lexically. `..` at the root stays at the root.
pub(crate) fn normalize(base: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let joined_base = if path.starts_with('/') { "" } else { base };
    for piece in joined_base.split('/').chain(path.split('/')) {
        match piece {
            "" | "." => {}
            ".." if parts == ["dev", "fd"] => {
                // `/dev/fd` is a link to `/proc/self/fd`: its parent is `/proc/self`.
                parts = vec!["proc", "self"];
            }
            // `..` after a kernel link to another place (`/proc/self/cwd/..`, `/dev/fd/3/..`)
            // leaves that place, not the link's directory: it is kept for [`proc_alias`].
            ".." if through_magic_link(&parts) => parts.push(".."),
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let mut out = String::with_capacity(path.len() + base.len());
    for part in &parts {
        out.push('/');
        out.push_str(part);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// Whether the path `parts` goes through one of the kernel's links to another place: a
/// process's current directory, root, executable or open descriptor (`/proc/self/cwd`,
/// `/proc/1/root`, `/proc/self/task/7/fd/3`, `/dev/fd/3`, `/dev/stdout`).
fn through_magic_link(parts: &[&str]) -> bool {
    match parts {
        ["dev", "fd", _, ..] | ["dev", "stdin" | "stdout" | "stderr", ..] => true,
        ["proc", process, rest @ ..]
            if matches!(*process, "self" | "thread-self")
                || process.chars().all(|c| c.is_ascii_digit()) =>
        {
            let rest = match rest {
                ["task", _, inner @ ..] => inner,
                other => other,
            };
            matches!(
                rest,
                ["cwd" | "root" | "exe", ..] | ["fd" | "map_files", _, ..]
            )
        }
        _ => false,
    }
}

/// `path` relative to `root` when it is `root` itself (`""`) or below it.
pub(crate) fn relative_to<'p>(path: &'p str, root: &str) -> Option<&'p str> {
    if root == "/" {
        return Some(path.trim_start_matches('/'));
    }
    let rest = path.strip_prefix(root)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

/// Whether `path` is `ancestor` or lies below it.
pub(crate) fn is_within(path: &str, ancestor: &str) -> bool {
    relative_to(path, ancestor).is_some()
}

/// The places a path can be expressed relative to.
#[derive(Debug, Clone, Default)]
pub(crate) struct Anchors {
    pub repo_root: Option<String>,
    pub home: Option<String>,
    pub tmpdir: Option<String>,
}

impl Anchors {
    /// The glob-matching forms of the absolute, normalised `absolute`.
    pub(crate) fn forms(&self, absolute: &str) -> PathForms {
        let under = |anchor: &Option<String>, prefix: &str| {
            anchor
                .as_deref()
                .and_then(|a| relative_to(absolute, a))
                .filter(|rest| !rest.is_empty())
                .map(|rest| format!("{prefix}/{rest}"))
        };
        PathForms {
            absolute: absolute.to_owned(),
            home: under(&self.home, "~"),
            tmpdir: under(&self.tmpdir, "$TMPDIR"),
            relative: self
                .repo_root
                .as_deref()
                .and_then(|root| relative_to(absolute, root))
                .map(str::to_owned),
        }
    }
}

/// What a path under `/dev` or `/proc` stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Alias {
    /// An ordinary path (possibly rewritten: `/proc/self/cwd/x` is `<cwd>/x`).
    Path(String),
    /// An open file descriptor of the shell (`/dev/fd/3`, `/dev/stdout`, `/proc/self/fd/1`).
    Fd(u32),
    /// A path through another process (`/proc/1234/cwd/...`), or through the current directory
    /// when it is not known.
    Unknown,
}

/// Rewrites the aliases the kernel offers for files: `/proc/self/cwd/...` (the current
/// directory), `/proc/self/root/...` (the root), `/dev/fd/N`, `/dev/std{in,out,err}` and
/// `/proc/self/fd/N` (open descriptors). `absolute` is normalised; `cwd` is the shell's
/// current directory when known.
pub(crate) fn proc_alias(absolute: &str, cwd: Option<&str>) -> Alias {
    match absolute {
        "/dev/stdin" => return Alias::Fd(0),
        "/dev/stdout" => return Alias::Fd(1),
        "/dev/stderr" => return Alias::Fd(2),
        _ => {}
    }
    let fd = |rest: &str| -> Alias {
        let number = rest.split('/').next().unwrap_or("");
        match number.parse::<u32>() {
            Ok(n) if !rest.contains('/') => Alias::Fd(n),
            _ => Alias::Unknown,
        }
    };
    if let Some(rest) = absolute.strip_prefix("/dev/fd/") {
        return fd(rest);
    }
    if ["/dev/stdin/", "/dev/stdout/", "/dev/stderr/"]
        .iter()
        .any(|p| absolute.starts_with(p))
    {
        // A path through a descriptor, which may be open on a directory.
        return Alias::Unknown;
    }
    let Some(rest) = absolute.strip_prefix("/proc/") else {
        return Alias::Path(absolute.to_owned());
    };
    let mut parts = rest.splitn(2, '/');
    let process = parts.next().unwrap_or("");
    let mut tail = parts.next().unwrap_or("");
    let own = matches!(process, "self" | "thread-self");
    if !own && !process.chars().all(|c| c.is_ascii_digit()) {
        // `/proc/cpuinfo`, `/proc/sys/...`: not an alias.
        return Alias::Path(absolute.to_owned());
    }
    // `/proc/self/task/<tid>/...` is the thread's view of the same process.
    if let Some(after) = tail.strip_prefix("task/") {
        tail = after.split_once('/').map_or("", |(_, t)| t);
    }
    let (kind, below) = tail.split_once('/').unwrap_or((tail, ""));
    match kind {
        "cwd" | "root" | "fd" if !own => Alias::Unknown,
        "cwd" => match cwd {
            Some(cwd) => Alias::Path(normalize(cwd, below)),
            None => Alias::Unknown,
        },
        "root" => Alias::Path(normalize("/", below)),
        "fd" => fd(below),
        _ => Alias::Path(absolute.to_owned()),
    }
}

/// One token of a path glob, for [`globs_may_overlap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// A literal character (lowercased).
    Lit(char),
    /// `?` or a bracket class: one character, not `/`.
    One,
    /// `*`: any run of characters without `/`.
    Star,
    /// `**` or `{...}`: any run of characters, `/` included.
    Deep,
}

/// Longest glob (in tokens) compared exactly; a longer one is taken to overlap (bounds the work
/// on hostile input: the comparison is quadratic).
const MAX_TOKENS: usize = 160;

fn tokens(pattern: &str) -> Vec<Tok> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => {
                let mut j = i;
                while j < chars.len() && chars[j] == '*' {
                    j += 1;
                }
                out.push(if j - i > 1 { Tok::Deep } else { Tok::Star });
                i = j;
            }
            '?' => {
                out.push(Tok::One);
                i += 1;
            }
            '[' => {
                // The class ends at the first `]` after an optional `!`/`^` and a leading `]`.
                let mut j = i + 1;
                if matches!(chars.get(j), Some('!' | '^')) {
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    j += 1;
                }
                while j < chars.len() && chars[j] != ']' {
                    j += 1;
                }
                if j < chars.len() {
                    out.push(Tok::One);
                    i = j + 1;
                } else {
                    out.push(Tok::Lit('['));
                    i += 1;
                }
            }
            '{' => match chars[i..].iter().position(|&c| c == '}') {
                Some(end) => {
                    out.push(Tok::Deep);
                    i += end + 1;
                }
                None => {
                    out.push(Tok::Lit('{'));
                    i += 1;
                }
            },
            '\\' if i + 1 < chars.len() => {
                out.extend(chars[i + 1].to_lowercase().map(Tok::Lit));
                i += 2;
            }
            c => {
                out.extend(c.to_lowercase().map(Tok::Lit));
                i += 1;
            }
        }
    }
    out
}

/// Whether some path could match both globs `a` and `b` (`*`, `?`, `[...]`, `**`, `{..}`),
/// compared without regard to case. Over-approximates: a class counts as any character and
/// a `{..}` alternation as `**`, so "maybe" answers are `true`.
pub(crate) fn globs_may_overlap(a: &str, b: &str) -> bool {
    let variants = |p: &str| -> Vec<Vec<Tok>> {
        // globset's `**/` also matches no directory at all.
        let mut v = vec![tokens(p)];
        if p.contains("**/") {
            v.push(tokens(&p.replace("**/", "")));
        }
        v
    };
    for x in variants(a) {
        for y in variants(b) {
            if x.len() > MAX_TOKENS || y.len() > MAX_TOKENS || overlap(&x, &y) {
                return true;
            }
        }
    }
    false
}

fn overlap(a: &[Tok], b: &[Tok]) -> bool {
    let (n, m) = (a.len(), b.len());
    // memo[i][j]: None = not computed.
    let mut memo: Vec<Option<bool>> = vec![None; (n + 1) * (m + 1)];
    overlap_at(a, b, 0, 0, &mut memo)
}

fn is_star(t: Tok) -> bool {
    matches!(t, Tok::Star | Tok::Deep)
}

/// Whether the wildcard `star` can also cover what the token `t` matches (at least one string).
fn absorbs(star: Tok, t: Tok) -> bool {
    star == Tok::Deep || t != Tok::Lit('/')
}

fn single_compatible(x: Tok, y: Tok) -> bool {
    match (x, y) {
        (Tok::Lit(p), Tok::Lit(q)) => p == q,
        (Tok::One, Tok::Lit(c)) | (Tok::Lit(c), Tok::One) => c != '/',
        _ => true,
    }
}

fn overlap_at(a: &[Tok], b: &[Tok], i: usize, j: usize, memo: &mut [Option<bool>]) -> bool {
    let key = i * (b.len() + 1) + j;
    if let Some(known) = memo[key] {
        return known;
    }
    let result = if i == a.len() && j == b.len() {
        true
    } else if i < a.len() && is_star(a[i]) {
        overlap_at(a, b, i + 1, j, memo)
            || (j < b.len() && absorbs(a[i], b[j]) && overlap_at(a, b, i, j + 1, memo))
    } else if j < b.len() && is_star(b[j]) {
        overlap_at(a, b, i, j + 1, memo)
            || (i < a.len() && absorbs(b[j], a[i]) && overlap_at(a, b, i + 1, j, memo))
    } else if i < a.len() && j < b.len() {
        single_compatible(a[i], b[j]) && overlap_at(a, b, i + 1, j + 1, memo)
    } else {
        false
    };
    memo[key] = Some(result);
    result
}

/// Whether `text` holds a glob character.
pub(crate) fn has_wildcard(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_resolves_dots_lexically() {
        assert_eq!(normalize("/r", "target/../src"), "/r/src");
        assert_eq!(normalize("/r", "node_modules/../.."), "/");
        assert_eq!(normalize("/r", "/tmp/../home/dev"), "/home/dev");
        assert_eq!(normalize("/r", "./a//b/"), "/r/a/b");
        assert_eq!(normalize("/r", "../../../.."), "/");
        // `/dev/fd` is `/proc/self/fd`; `..` through a kernel link to a place is kept.
        assert_eq!(
            normalize("/r", "/dev/fd/../cwd/README.md"),
            "/proc/self/cwd/README.md"
        );
        assert_eq!(normalize("/r", "/dev/fd/../../.."), "/");
        assert_eq!(
            normalize("/r", "/proc/self/cwd/../x"),
            "/proc/self/cwd/../x"
        );
        assert_eq!(normalize("/r", "/dev/fd/3/../x"), "/dev/fd/3/../x");
        assert_eq!(normalize("/r", "/proc/self/fd/.."), "/proc/self");
    }

    #[test]
    fn relative_to_needs_a_component_boundary() {
        assert_eq!(relative_to("/r/src", "/r"), Some("src"));
        assert_eq!(relative_to("/r", "/r"), Some(""));
        assert_eq!(relative_to("/rx", "/r"), None);
        assert_eq!(relative_to("/a", "/"), Some("a"));
    }

    #[test]
    fn proc_and_fd_aliases() {
        let cwd = Some("/r");
        assert_eq!(
            proc_alias("/proc/self/cwd/README.md", cwd),
            Alias::Path("/r/README.md".into())
        );
        assert_eq!(
            proc_alias("/proc/thread-self/cwd", cwd),
            Alias::Path("/r".into())
        );
        assert_eq!(
            proc_alias("/proc/self/root/etc/x", cwd),
            Alias::Path("/etc/x".into())
        );
        assert_eq!(
            proc_alias("/proc/self/task/12/cwd/a", cwd),
            Alias::Path("/r/a".into())
        );
        assert_eq!(proc_alias("/proc/123/cwd/a", cwd), Alias::Unknown);
        assert_eq!(proc_alias("/proc/self/cwd/a", None), Alias::Unknown);
        assert_eq!(proc_alias("/dev/fd/3", cwd), Alias::Fd(3));
        assert_eq!(proc_alias("/proc/self/fd/1", cwd), Alias::Fd(1));
        assert_eq!(proc_alias("/dev/stdout", cwd), Alias::Fd(1));
        assert_eq!(
            proc_alias("/proc/cpuinfo", cwd),
            Alias::Path("/proc/cpuinfo".into())
        );
        assert_eq!(proc_alias("/r/x", cwd), Alias::Path("/r/x".into()));
        assert_eq!(
            proc_alias(&normalize("/", "/proc/self/cwd/../r2/a"), cwd),
            Alias::Path("/r2/a".into())
        );
        assert_eq!(
            proc_alias(&normalize("/", "/dev/fd/3/../a"), cwd),
            Alias::Unknown
        );
        assert_eq!(proc_alias("/dev/stdout/../a", cwd), Alias::Unknown);
    }

    #[test]
    fn glob_overlap() {
        assert!(globs_may_overlap("*", ".env"));
        assert!(globs_may_overlap("/r/*", "**/.env"));
        assert!(globs_may_overlap("*.orig", "*.ORIG"));
        assert!(!globs_may_overlap("*.orig", "**/.env"));
        // `.env.orig` matches both: the caller knows bash's `*` skips a leading dot.
        assert!(globs_may_overlap("/r/*.orig", "**/.env.*"));
        assert!(globs_may_overlap("/r/a*.key", "**/*.key"));
        assert!(globs_may_overlap("x.key", "**/*.key"));
        assert!(globs_may_overlap(".[.]", ".."));
        assert!(globs_may_overlap(".*", ".."));
        assert!(!globs_may_overlap("*.bak", ".."));
        assert!(globs_may_overlap("/r/m*/1.sql", "**/migrations/**"));
        assert!(!globs_may_overlap("/r/src/*.rs", "**/migrations/**"));
        assert!(globs_may_overlap("/tmp/rep?", "/tmp/repo"));
        assert!(!globs_may_overlap("/tmp/x*", "/tmp/repo"));
        assert!(globs_may_overlap("a/*", "a/b"));
        assert!(!globs_may_overlap("a/*", "a/b/c"));
    }
}
