//! File rules: what a path is (tracked, protected, an allowance, a glob that may match either)
//! and the writes programs make — clobbering tracked files (redirects and the programs that write
//! an output file: `sort -o`, `shuf -o`, `uniq IN OUT`, `fallocate -p`, `xxd`, `sponge`,
//! compilers' `-o`, ...), compressors, copies, moves and links, archive extraction, `rsync
//! --delete`, and writes to protected paths. The deleters (`rm`, `unlink`, `shred`, `truncate`,
//! `dd`, ...) are `rules/delete.rs`, which judges the paths with these rules.
//!
//! Paths are judged lexically against the policy, after the kernel's aliases are undone
//! (`/proc/self/cwd/x` is `./x`; `/dev/fd/3` is an open descriptor the guard cannot see).
//! The guard does no I/O: "tracked" comes from the context, and so does an optional view of
//! the filesystem ([`crate::context::FileSystemView`]) that says where an existing symbolic
//! link leads; without it a path is judged as written. Links created in the same command
//! line are judged when they are created: a link to a protected path, to a tracked file or
//! to the repository (or a directory that holds it) is refused.

use globset::GlobBuilder;

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::paths::{Alias, globs_may_overlap, has_wildcard, is_within, normalize, relative_to};
use crate::rules::{self, Spec, next_arg};
use crate::walk::Judged;
use crate::walk::{Frame, Shell, Walker, WriteMode};
use crate::words::Arg;

/// The places under HOME where the agent CLIs keep a session's plans, to-do lists and a
/// project's memory with their own tools: writing there is the agents' ordinary work. Not the
/// rest of `~/.claude` or `~/.gemini`: instruction files (`CLAUDE.md`, `GEMINI.md`), commands,
/// agents, skills, plugins and settings there steer every later session — persistence outside
/// the repository, denied like any other write there.
const AGENT_STATE_DIRS: &[&str] = &[
    ".claude/plans",
    ".claude/todos",
    // A project's memory, not the CLI's transcripts beside it (`projects/<p>/<session>.jsonl`),
    // which are the record of what was asked and done (session 21). `*`: one component.
    ".claude/projects/*/memory",
    ".gemini/tmp",
];

/// The variable a reference at the start of `text` names and the text after the reference:
/// `$NAME`, `${NAME}`, or `${NAME` with a prefix or suffix pattern removed (`#`, `%`), which
/// is a part of the value, never text it adds.
fn variable_reference(text: &str) -> Option<(&str, &str)> {
    let body = text.strip_prefix('$')?;
    let ident_end = |s: &str| {
        s.char_indices()
            .find(|(i, c)| {
                !(c.is_ascii_alphanumeric() || *c == '_') || (*i == 0 && c.is_ascii_digit())
            })
            .map_or(s.len(), |(i, _)| i)
    };
    if let Some(braced) = body.strip_prefix('{') {
        let end = ident_end(braced);
        let (name, after) = braced.split_at(end);
        let close = after.find('}')?;
        let op = &after[..close];
        let fits = op.is_empty()
            || (op.starts_with(['#', '%']) && !op.contains(['$', '`', '(', '{', '\'', '"']));
        (!name.is_empty() && fits).then(|| (name, &after[close + 1..]))
    } else {
        let end = ident_end(body);
        (end > 0).then(|| (&body[..end], &body[end..]))
    }
}

/// Whether the unbraced reference `$name` as shown keeps an inherited value: the text joins a
/// known value after the reference (`"$X$(id -un)"` shows as `$Xalice`), so every variable the
/// reference may be (each prefix of `name`) must be one the line does not assign.
fn inherits_every_prefix(shell: &Shell, text: &str, name: &str) -> bool {
    if text.starts_with("${") {
        return shell.inherits(name);
    }
    (1..=name.len()).all(|n| shell.inherits(&name[..n]))
}

/// The variable the write target `text` (as written) starts with, when the line does not
/// assign it ([`Shell::inherits`]) and the rest of the target is more of a name, with further
/// such variables (never a glob, a `..`, a quote or code): the variable the denial names,
/// with the allowed form of assigning it in the command.
fn inherited_lead(shell: &Shell, text: &str) -> Option<String> {
    let (name, mut after) = variable_reference(text)?;
    if !inherits_every_prefix(shell, text, name) {
        return None;
    }
    let mut rest = String::new();
    while !after.is_empty() {
        if after.starts_with('$') {
            let (more, next) = variable_reference(after)?;
            if !inherits_every_prefix(shell, after, more) {
                return None;
            }
            rest.push('-');
            after = next;
            continue;
        }
        let c = after.chars().next()?;
        if !(c.is_ascii_alphanumeric() || "._+-/,=%@".contains(c)) {
            return None;
        }
        rest.push(c);
        after = &after[c.len_utf8()..];
    }
    if rest.split('/').any(|c| c == "..") {
        return None;
    }
    Some(name.to_owned())
}

/// Whether `text` (as written) is one or more references to variables the line does not
/// assign ([`Shell::inherits`]), with only name characters between them (`${VERSION}`,
/// `v$MAJOR.$MINOR`): never a substitution, a quote, a glob or a space.
pub(crate) fn only_inherited(shell: &Shell, text: &str) -> bool {
    let mut rest = text;
    let mut seen = false;
    while !rest.is_empty() {
        if rest.starts_with('$') {
            let Some((name, after)) = variable_reference(rest) else {
                return false;
            };
            if !inherits_every_prefix(shell, rest, name) {
                return false;
            }
            seen = true;
            rest = after;
            continue;
        }
        let Some(c) = rest.chars().next() else {
            break;
        };
        if !(c.is_ascii_alphanumeric() || "._+-,%@:".contains(c)) {
            return false;
        }
        rest = &rest[c.len_utf8()..];
    }
    seen
}

/// Paths that may be written freely: they are not files. (`/dev/stdout` and `/dev/stderr`
/// are descriptors 1 and 2, see [`crate::paths::proc_alias`].)
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/tty",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

fn is_device(path: &str) -> bool {
    DEVICES.contains(&path)
}

/// The system directories a write, move or delete must not reach (outside the repository, HOME
/// and the temporary directories): the top directory named, or `None`.
fn system_dir(absolute: &str) -> Option<&'static str> {
    const SYSTEM: &[&str] = &[
        "/etc",
        "/usr",
        "/opt",
        "/bin",
        "/sbin",
        "/lib",
        "/lib32",
        "/lib64",
        "/libx32",
        "/boot",
        "/root",
        "/var",
        "/srv",
        "/snap",
        "/sys",
        "/proc/sys",
        "/Library",
        "/System",
        "/Applications",
        "/private/etc",
        "/private/var",
    ];
    // Temporary directories under them (macOS's per-user `TMPDIR` is under `/var/folders`).
    const TEMP: &[&str] = &[
        "/var/tmp",
        "/var/folders",
        "/private/var/folders",
        "/private/tmp",
    ];
    let within = |d: &str| absolute == d || absolute.starts_with(&format!("{d}/"));
    if TEMP.iter().any(|d| within(d)) {
        return None;
    }
    SYSTEM.iter().copied().find(|d| within(d))
}

/// The directory part of a glob before its first wildcard component.
fn glob_prefix(text: &str) -> &str {
    let first_wild = text.find(['*', '?', '[']).unwrap_or(text.len());
    match text[..first_wild].rfind('/') {
        Some(slash) => &text[..slash.max(1)],
        None => ".",
    }
}

/// Extensions of leftovers that a glob such as `*.orig` removes: patch and merge leftovers,
/// backups, editor swap files, logs, bytecode and other build outputs. A protected glob open at its end
/// (`Dockerfile*`, `id_rsa*`) is not taken to mean them.
const JUNK_EXTENSIONS: &[&str] = &[
    "orig", "rej", "bak", "old", "tmp", "temp", "swp", "swo", "log", "pyc", "pyo", "o", "obj",
    "class", "out", "pid", "prof", "profraw", "gcda", "gcno", "dSYM", "so", "dylib", "dll", "pyd",
    // Static libraries and precompiled headers; TeX and Texinfo byproducts.
    "a", "gch", "pch", "dvi", "aux", "toc", "idx", "ind", "ilg", "lof", "lot", "bbl", "blg", "fls",
    "ky", "pg",
    // The module synopsis and platform indexes of Sphinx's and Python's LaTeX builds.
    "syn", "pla",
];

/// Extensions of source and text files: a glob such as `src/*.rs` edits code, not a file
/// that an open protected glob (`Dockerfile*`, `id_rsa*`) is meant for.
const SOURCE_EXTENSIONS: &[&str] = &[
    "rs", "py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "go", "java", "kt", "kts", "scala",
    "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "m", "mm", "rb", "php", "cs", "fs", "swift", "dart",
    "ex", "exs", "erl", "hs", "ml", "lua", "pl", "pm", "r", "jl", "zig", "nim", "sh", "bash",
    "zsh", "fish", "ps1", "md", "rst", "txt", "adoc", "html", "htm", "css", "scss", "sass", "less",
    "vue", "svelte", "astro", "sql", "graphql", "proto", "snap", "csv",
];

/// Whether the glob component `name` ends with a literal source or text extension.
fn source_extension(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(_, ext)| {
        !has_wildcard(ext)
            && SOURCE_EXTENSIONS
                .iter()
                .any(|j| j.eq_ignore_ascii_case(ext))
    })
}

/// Whether the glob component `name` ends with a literal junk extension (`*.orig`, `x*.bak`)
/// or `~` (editor backups).
fn junk_extension(name: &str) -> bool {
    if name.ends_with('~') && !has_wildcard(&name[name.len() - 1..]) {
        return true;
    }
    name.rsplit_once('.').is_some_and(|(_, ext)| {
        !has_wildcard(ext) && JUNK_EXTENSIONS.iter().any(|j| j.eq_ignore_ascii_case(ext))
    })
}

/// The file a download of `url` is saved as: the last segment of its path (without query
/// or fragment), in `dir` when given; unknown when the URL has no file name.
fn url_file(url: &Arg, dir: Option<&Arg>) -> Arg {
    let rest = url
        .text
        .split_once("://")
        .map_or(url.text.as_str(), |(_, r)| r);
    let path = rest.split(['?', '#']).next().unwrap_or("");
    let name = path
        .split_once('/')
        .map_or("", |(_, p)| p)
        .rsplit('/')
        .next()
        .unwrap_or("");
    if !url.known {
        return Arg::unknown(format!("<file named after {}>", url.text));
    }
    let name = if name.is_empty() { "index.html" } else { name };
    match dir {
        Some(dir) => Arg {
            text: format!("{}/{name}", dir.text.trim_end_matches('/')),
            known: dir.known,
            glob: false,
        },
        None => Arg::lit(name),
    }
}

/// `(parent, name)` of an absolute path; `None` for `/`.
fn split_parent(absolute: &str) -> Option<(&str, &str)> {
    let slash = absolute.rfind('/')?;
    let name = &absolute[slash + 1..];
    if name.is_empty() {
        return None;
    }
    Some((if slash == 0 { "/" } else { &absolute[..slash] }, name))
}

/// Extensions of compiler and interpreter outputs a build regenerates.
const ARTIFACT_EXTENSIONS: &[&str] = &[
    "pyc", "pyo", "o", "obj", "class", "gcda", "gcno", "profraw", "so", "pyd", "dylib",
];

/// Whether the `-name` pattern `name` ends with a literal artifact extension (`*.pyc`).
fn artifact_extension(name: &str) -> bool {
    // `*.py[co]`: one bracket class at the end, every member an artifact extension.
    if let Some((_, ext)) = name.rsplit_once('.')
        && let Some((stem, class)) = ext.strip_suffix(']').and_then(|e| e.split_once('['))
        && !has_wildcard(stem)
        && !class.is_empty()
        && class.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return class.chars().all(|c| {
            let e = format!("{stem}{c}");
            ARTIFACT_EXTENSIONS
                .iter()
                .any(|j| j.eq_ignore_ascii_case(&e))
        });
    }
    name.rsplit_once('.').is_some_and(|(_, ext)| {
        !has_wildcard(ext)
            && ARTIFACT_EXTENSIONS
                .iter()
                .any(|j| j.eq_ignore_ascii_case(ext))
    })
}

/// Names of junk files a `find -name` may remove wherever they are.
const JUNK_NAMES: &[&str] = &[".DS_Store", "Thumbs.db", "desktop.ini", ".coverage"];

/// `-name` patterns of editors' leftovers a `find` may remove wherever they are: backup
/// copies (`foo.c~`, an earlier state of a file that stays) and vim's swap files (a running
/// vim writes its own again). Unlike `*.orig` or `*.log` they are never the only copy of work.
const EDITOR_LEFTOVERS: &[&str] = &["*~", ".*~", "*.swp", "*.swo", ".*.swp", ".*.swo"];

/// Cache directories a `find -name` may remove wherever they are (with no tracked file in
/// them): names that neither git's nor pawl's own directories use.
#[rustfmt::skip]
const CACHE_DIRS: &[&str] = &[
    "__pycache__", "node_modules", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
    ".tox", ".nox", ".eggs", "htmlcov", ".next", ".nuxt", ".turbo", ".parcel-cache", ".svelte-kit",
    ".angular", ".nyc_output", ".dart_tool", "*.egg-info",
];

/// The one `-name` (or `-iname`) pattern of a `find` expression that otherwise only has
/// `-type`, time, size, depth and output tests, `-delete` and one `-exec`/`-execdir`;
/// `None` for anything else (`-o`, `!`, `-path`, `-regex`, a second name, ...).
fn find_single_name(expr: &[Arg]) -> Option<String> {
    let mut name: Option<String> = None;
    let mut index = 0;
    let mut execs = 0;
    while index < expr.len() {
        let arg = &expr[index];
        index += 1;
        let text = arg.exact()?;
        match text {
            "-name" | "-iname" => {
                if name.is_some() {
                    return None;
                }
                let value = expr.get(index)?.exact()?;
                index += 1;
                // `-iname` matches case-insensitively: lower-cased here, and the name
                // checks below compare without regard to case where it matters.
                name = Some(if text == "-iname" {
                    value.to_ascii_lowercase()
                } else {
                    value.to_owned()
                });
            }
            "-type" | "-mtime" | "-mmin" | "-atime" | "-amin" | "-ctime" | "-cmin" | "-size"
            | "-maxdepth" | "-mindepth" => {
                expr.get(index)?.exact()?;
                index += 1;
            }
            "-print"
            | "-print0"
            | "-delete"
            | "-depth"
            | "-xdev"
            | "-mount"
            | "-empty"
            | "-a"
            | "-and"
            | "-ignore_readdir_race"
            | "-prune"
            | "-noleaf" => {}
            "-exec" | "-execdir" => {
                execs += 1;
                if execs > 1 {
                    return None;
                }
                while index < expr.len() && !matches!(expr[index].text.as_str(), ";" | "+") {
                    index += 1;
                }
                index += 1;
            }
            _ => return None,
        }
    }
    name
}

/// Whether `argv` is `rm [-r|-f|-v]... {}` (one `{}`, nothing else): `Some(recursive)`.
pub(crate) fn find_rm_recursive(argv: &[Arg]) -> Option<bool> {
    let (first, rest) = argv.split_first()?;
    let cmd = first.exact()?;
    let cmd = if cmd.starts_with('/') {
        cmd.rsplit('/').next().unwrap_or(cmd)
    } else {
        cmd
    };
    // `rmdir {}` removes what `rm -r {}` would, when it is empty (not `-p`: the parents).
    if cmd == "rmdir" {
        let plain = rest.iter().all(|a| {
            matches!(
                a.text.as_str(),
                "{}" | "--" | "-v" | "--verbose" | "--ignore-fail-on-non-empty"
            )
        });
        return (plain && rest.iter().filter(|a| a.text == "{}").count() == 1).then_some(true);
    }
    if cmd != "rm" {
        return None;
    }
    let mut recursive = false;
    let mut placeholders = 0;
    for arg in rest {
        match arg.text.as_str() {
            "{}" => placeholders += 1,
            "--" => {}
            "--recursive" => recursive = true,
            "--force" | "--verbose" => {}
            t if t.starts_with('-')
                && !t.starts_with("--")
                && t.len() > 1
                && t[1..].chars().all(|c| matches!(c, 'r' | 'R' | 'f' | 'v')) =>
            {
                recursive |= t.contains(['r', 'R']);
            }
            _ => return None,
        }
    }
    (placeholders == 1).then_some(recursive)
}

/// The literal directory a glob's matches all lie under (`.venv/lib/` for
/// `.venv/lib/python*/x`): the text up to the last `/` before the first glob character, when
/// that is a named directory (not `/`) and no component of the pattern is `..`.
fn glob_directory(pattern: &str) -> Option<String> {
    if pattern.split('/').any(|c| c == "..") {
        return None;
    }
    let first = pattern.find(['*', '?', '['])?;
    let cut = pattern[..first].rfind('/')?;
    let dir = &pattern[..=cut];
    (dir != "/" && !dir.trim_start_matches("./").is_empty()).then(|| dir.to_owned())
}

/// Package managers' lock files: `rm -rf node_modules package-lock.json` removes one
/// ordinary file with the tree.
#[rustfmt::skip]
const LOCKFILES: &[&str] = &[
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock",
    "bun.lockb", "Cargo.lock", "poetry.lock", "Pipfile.lock", "uv.lock", "pdm.lock",
    "Gemfile.lock", "composer.lock", "go.sum", "flake.lock", "mix.lock", "pubspec.lock",
    "Podfile.lock", "packages.lock.json",
];

/// Whether `arg` names a lock file (statically, not a glob).
pub(super) fn is_lockfile(arg: &Arg) -> bool {
    arg.known
        && !arg.glob
        && !arg.text.ends_with('/')
        && LOCKFILES.contains(&last_component(&arg.text))
}

/// `path` with glob characters escaped, so it matches only itself.
fn escape_glob(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The last component of a glob or path.
fn last_component(text: &str) -> &str {
    text.trim_end_matches('/').rsplit('/').next().unwrap_or("")
}

/// GNU `getopt_long`: an unambiguous prefix of a long option stands for it (`rm --rec` is
/// `rm --recursive`). Rewrites such prefixes in `args` to the full names in `longs` (the
/// program's long options); exact and ambiguous ones (the program refuses those) are left.
pub(crate) fn canon_long(args: &[Arg], longs: &[&str]) -> Vec<Arg> {
    let mut out = Vec::with_capacity(args.len());
    let mut done = false;
    for arg in args {
        let text = match arg.exact() {
            Some(t) if !done => t,
            _ => {
                out.push(arg.clone());
                continue;
            }
        };
        if text == "--" {
            done = true;
            out.push(arg.clone());
            continue;
        }
        if !text.starts_with("--") || text.len() < 3 {
            out.push(arg.clone());
            continue;
        }
        let (name, value) = match text.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (text, None),
        };
        let full = if longs.contains(&name) {
            None
        } else {
            let mut hits = longs.iter().filter(|l| l.starts_with(name));
            match (hits.next(), hits.next()) {
                (Some(one), None) => Some(*one),
                _ => None,
            }
        };
        match full {
            Some(full) => out.push(Arg::lit(match value {
                Some(v) => format!("{full}={v}"),
                None => full.to_owned(),
            })),
            None => out.push(arg.clone()),
        }
    }
    out
}

/// A spec with no option values.
pub(super) const PLAIN: Spec<'static> = Spec {
    short_values: "",
    long_values: &[],
    stop_at_operand: false,
};

#[rustfmt::skip]
const CP_LONGS: &[&str] = &[
    "--archive", "--attributes-only", "--backup", "--copy-contents", "--debug", "--dereference",
    "--force", "--interactive", "--keep-directory-symlink", "--link", "--no-dereference",
    "--no-clobber", "--no-preserve", "--no-target-directory", "--one-file-system", "--parents",
    "--preserve", "--recursive", "--reflink", "--remove-destination", "--sparse",
    "--strip-trailing-slashes", "--suffix", "--symbolic-link", "--target-directory", "--update",
    "--verbose", "--context", "--help", "--version",
];

#[rustfmt::skip]
const MV_LONGS: &[&str] = &[
    "--backup", "--debug", "--exchange", "--force", "--interactive", "--no-clobber", "--no-copy",
    "--no-target-directory", "--strip-trailing-slashes", "--suffix", "--target-directory",
    "--update", "--verbose", "--context", "--help", "--version",
];

#[rustfmt::skip]
const LN_LONGS: &[&str] = &[
    "--backup", "--directory", "--force", "--interactive", "--logical", "--no-dereference",
    "--no-target-directory", "--physical", "--relative", "--suffix", "--symbolic",
    "--target-directory", "--verbose", "--help", "--version",
];

#[rustfmt::skip]
const INSTALL_LONGS: &[&str] = &[
    "--backup", "--compare", "--debug", "--directory", "--group", "--mode", "--owner",
    "--preserve-timestamps", "--strip", "--strip-program", "--suffix", "--target-directory",
    "--no-target-directory", "--verbose", "--preserve-context", "--context", "--help", "--version",
];

const TEE_LONGS: &[&str] = &[
    "--append",
    "--ignore-interrupts",
    "--output-error",
    "--help",
    "--version",
];

#[rustfmt::skip]
const SORT_LONGS: &[&str] = &[
    "--ignore-leading-blanks", "--dictionary-order", "--ignore-case", "--general-numeric-sort",
    "--ignore-nonprinting", "--month-sort", "--human-numeric-sort", "--numeric-sort",
    "--random-sort", "--random-source", "--reverse", "--sort", "--version-sort", "--batch-size",
    "--check", "--compress-program", "--debug", "--files0-from", "--key", "--merge", "--output",
    "--stable", "--buffer-size", "--field-separator", "--temporary-directory", "--parallel",
    "--unique", "--zero-terminated", "--help", "--version",
];

#[rustfmt::skip]
const SHUF_LONGS: &[&str] = &[
    "--echo", "--input-range", "--head-count", "--output", "--random-source", "--repeat",
    "--zero-terminated", "--help", "--version",
];

#[rustfmt::skip]
const COMPRESSOR_LONGS: &[&str] = &[
    "--stdout", "--to-stdout", "--keep", "--test", "--list", "--decompress", "--uncompress",
    "--recursive", "--force", "--rm", "--help", "--version", "--suffix", "--quiet", "--verbose",
    "--name", "--no-name", "--fast", "--best", "--rsyncable", "--synchronous", "--license",
    "--compress", "--output",
];

#[rustfmt::skip]
const PATCH_LONGS: &[&str] = &[
    "--backup", "--backup-if-mismatch", "--no-backup-if-mismatch", "--binary", "--basename-prefix",
    "--batch", "--context", "--directory", "--dry-run", "--ed", "--forward", "--force", "--fuzz",
    "--get", "--ifdef", "--ignore-whitespace", "--input", "--merge", "--normal", "--output",
    "--posix", "--prefix", "--quiet", "--quoting-style", "--read-only", "--reject-file",
    "--reject-format", "--remove-empty-files", "--reverse", "--set-time", "--set-utc", "--silent",
    "--strip", "--suffix", "--unified", "--verbose", "--version-control", "--follow-symlinks",
    "--help", "--version",
];

/// Compressors that replace their input file (`gzip f` leaves `f.gz`, not `f`), with whether
/// the name itself decompresses and whether it keeps the input unless told otherwise.
fn compressor(base: &str) -> Option<(bool, bool)> {
    Some(match base {
        "gzip" | "bzip2" | "xz" | "lzma" | "lzip" | "pigz" | "pbzip2" | "lbzip2" | "plzip"
        | "compress" => (false, false),
        "gunzip" | "bunzip2" | "unxz" | "unlzma" | "unpigz" | "uncompress" => (true, false),
        "zstd" | "lz4" | "brotli" => (false, true),
        "unzstd" => (true, true),
        _ => return None,
    })
}

impl Walker<'_> {
    /// The absolute path an argument names, or a denial reason.
    pub(super) fn target_path(&self, shell: &Shell, arg: &Arg) -> Result<String, String> {
        if !arg.known {
            return Err(format!("`{}` is not statically known", arg.text));
        }
        self.resolve(shell, &arg.text).ok_or_else(|| {
            format!(
                "`{}` is relative to a directory that is not statically known",
                arg.text
            )
        })
    }

    /// `absolute` with the kernel's aliases undone, or why it cannot be judged. Descriptors 1
    /// and 2 are `Ok(None)`: the agent's own output.
    fn unalias(&self, shell: &Shell, absolute: &str) -> Result<Option<String>, String> {
        match crate::paths::proc_alias(absolute, shell.cwd.as_deref()) {
            Alias::Path(p) => Ok(Some(p)),
            Alias::Fd(1 | 2) => Ok(None),
            Alias::Fd(n) => Err(format!(
                "`{absolute}` is file descriptor {n}, which may be open on any file (a tracked or protected one); name the file instead"
            )),
            Alias::Unknown => Err(format!(
                "`{absolute}` goes through another process's (or an unknown) directory"
            )),
        }
    }

    /// Where `absolute` really leads when the caller's filesystem view says it goes through
    /// a symbolic link; `None` when it does not (or nothing is known). `follow_last`: the
    /// last component is followed too (a write, or a path with a trailing slash); otherwise
    /// only its directories are (`rm link` removes the link itself).
    pub(crate) fn real_path(&self, absolute: &str, follow_last: bool) -> Option<String> {
        let real = if follow_last {
            self.ctx.fs.resolve_links(absolute)?
        } else {
            let (parent, name) = split_parent(absolute)?;
            let parent = self.ctx.fs.resolve_links(parent)?;
            format!("{}/{name}", parent.trim_end_matches('/'))
        };
        let real = self.written_anchor(normalize("/", &real));
        (real != absolute).then_some(real)
    }

    /// `real` with a resolved anchor written back as the context gives it: on macOS `/tmp` is
    /// `/private/tmp`, and the repository, `$HOME` or `$TMPDIR` may sit under such a link;
    /// what lies below them is still judged by their usual names.
    fn written_anchor(&self, real: String) -> String {
        let mut anchors: Vec<(String, &str)> = [
            self.anchors.repo_root.as_deref(),
            self.anchors.home.as_deref(),
            self.anchors.tmpdir.as_deref(),
            Some("/tmp"),
        ]
        .into_iter()
        .flatten()
        .filter_map(|anchor| {
            let resolved = normalize("/", &self.ctx.fs.resolve_links(anchor)?);
            (resolved != anchor).then_some((resolved, anchor))
        })
        .collect();
        anchors.sort_by_key(|(resolved, _)| std::cmp::Reverse(resolved.len()));
        for (resolved, anchor) in anchors {
            if let Some(rest) = relative_to(&real, &resolved) {
                return normalize(anchor, rest);
            }
        }
        real
    }

    /// Whether the policy protects `absolute` as written. With pawl's checkpoint a key or
    /// certificate of the repository ([`crate::policy::PROTECTED_UNLESS_TRACKED`]) is not
    /// protected when the checkpoint holds whatever is there: it is tracked, or it is not a
    /// file git ignores (`FileSystemView::holds_ignored`: absent — a new file, undone by
    /// removing it — or untracked and not ignored, which the checkpoint keeps).
    fn is_protected_as_written(&self, absolute: &str) -> bool {
        let forms = self.anchors.forms(absolute);
        if !self.policy.protected_paths.matches(&forms, true) {
            return false;
        }
        let held = self.ctx.checkpointed
            && self.policy.protected_unless_tracked.matches(&forms, true)
            && !self.policy.protected_always.matches(&forms, true)
            && self.checkpoint_holds(absolute, |rel| {
                self.ctx.tracked.is_tracked(rel)
                    || self.ctx.fs.holds_ignored(absolute) == Some(false)
            });
        !held
    }

    /// Whether `absolute` lies inside the repository below its top, outside git's and pawl's
    /// state, and `held` says the checkpoint keeps it (given its repository-relative path).
    fn checkpoint_holds(&self, absolute: &str, held: impl Fn(&str) -> bool) -> bool {
        self.anchors.repo_root.as_deref().is_some_and(|root| {
            relative_to(absolute, root).is_some_and(|rel| {
                !rel.is_empty()
                    && !rel
                        .split('/')
                        .any(|c| c == ".." || c == ".git" || c == ".pawl")
                    && held(rel)
            })
        })
    }

    /// Whether the policy protects `absolute`, as written or where it leads through an
    /// existing symbolic link (when the caller gave a filesystem view). The agent's file tools
    /// are judged by this too.
    pub(crate) fn is_protected(&self, absolute: &str) -> bool {
        self.is_protected_as_written(absolute)
            || self
                .real_path(absolute, true)
                .is_some_and(|real| self.is_protected_as_written(&real))
    }

    /// Whether `absolute` is protected or is a directory that holds protected paths
    /// (`migrations`, `k8s`, `.git`, and the parents of named ones: `.claude` holds
    /// `.claude/settings.json`, `alembic` holds `alembic/versions`).
    pub(crate) fn holds_protected(&self, absolute: &str) -> bool {
        let one = |path: &str| {
            self.is_protected_as_written(path)
                || self.is_protected_as_written(&normalize(path, "__pawl_probe__"))
                || self.is_parent_of_protected(path)
        };
        one(absolute)
            || self
                .real_path(absolute, true)
                .is_some_and(|real| one(&real))
    }

    /// Whether the directory `absolute` is a parent of a path that a protected glob names
    /// with literal components below it: `.claude` for `.claude/settings.json`, `db` for
    /// `**/db/migrate/**`, `~/.config` for `**/.config/fish/**`. A glob that names a file
    /// anywhere (`**/.env`) does not make every directory a holder of protected paths.
    fn is_parent_of_protected(&self, absolute: &str) -> bool {
        let forms = self.anchors.forms(absolute);
        let mut absolute_forms: Vec<String> = vec![forms.absolute.clone()];
        absolute_forms.extend(forms.home.clone());
        absolute_forms.extend(forms.tmpdir.clone());
        let relative: Option<String> = forms.relative.clone().filter(|r| !r.is_empty());
        for raw in &self.policy.policy.protected_paths {
            if raw.starts_with('!') {
                continue;
            }
            let glob = match raw.strip_prefix("$HOME/") {
                Some(rest) => format!("~/{rest}"),
                None => raw.clone(),
            };
            let glob = glob.strip_suffix("/**").unwrap_or(&glob);
            let comps: Vec<&str> = glob.split('/').collect();
            // The trailing run of literal components.
            let first_literal = comps
                .iter()
                .rposition(|c| has_wildcard(c) || c.contains('{'))
                .map_or(0, |i| i + 1);
            let is_absolute =
                glob.starts_with('/') || glob.starts_with("~/") || glob.starts_with("$TMPDIR/");
            // `absolute` stands for components up to k-1 (at least one literal one), and
            // the protected path is `absolute/comps[k..]`.
            for k in (first_literal + 1)..comps.len() {
                let below = comps[k..].join("/");
                let hit = absolute_forms
                    .iter()
                    .chain(relative.iter().filter(|_| !is_absolute))
                    .any(|form| {
                        let probe = format!("{}/{below}", escape_glob(form).trim_end_matches('/'));
                        globs_may_overlap(&probe, glob)
                    });
                if hit {
                    return true;
                }
            }
        }
        false
    }

    /// The repository, `$HOME` or the temp dir `absolute` is or holds, if any.
    fn holds_anchor(&self, absolute: &str) -> Option<&str> {
        [
            (self.anchors.repo_root.as_deref(), "the repository"),
            (self.anchors.home.as_deref(), "$HOME"),
            (self.anchors.tmpdir.as_deref(), "$TMPDIR"),
        ]
        .into_iter()
        .find_map(|(place, name)| place.filter(|p| is_within(p, absolute)).map(|_| name))
    }

    pub(super) fn is_tracked_path(&self, absolute: &str) -> (bool, bool) {
        let Some(root) = self.anchors.repo_root.as_deref() else {
            return (false, false);
        };
        match relative_to(absolute, root) {
            Some("") => (false, true),
            Some(rel) => (
                self.ctx.tracked.is_tracked(rel),
                self.ctx.tracked.has_tracked_under(rel),
            ),
            None => (false, false),
        }
    }

    pub(crate) fn in_repo(&self, absolute: &str) -> bool {
        self.anchors
            .repo_root
            .as_deref()
            .is_some_and(|root| is_within(absolute, root))
    }

    /// Whether `rm -r` may remove `absolute`: it must match an allowance, must not be (or
    /// contain) the repository, `$HOME` or `/tmp`, and inside the repository must hold no
    /// tracked file.
    fn removable(&self, absolute: &str) -> bool {
        // A protected path, or a directory that holds one, is never debris — not under /tmp
        // either (another story's worktree, in a HOME that lives under /tmp).
        if self.holds_protected(absolute) {
            return false;
        }
        let guarded = ["/", "/tmp"]
            .into_iter()
            .map(str::to_owned)
            .chain(self.anchors.repo_root.clone())
            .chain(self.anchors.home.clone())
            .chain(self.anchors.tmpdir.clone());
        for place in guarded {
            if is_within(&place, absolute) {
                return false;
            }
        }
        let mut forms = self.anchors.forms(absolute);
        if let Some(root) = self.anchors.repo_root.as_deref()
            && let Some(rel) = relative_to(absolute, root)
        {
            // Inside the repository git's and pawl's own state are never removable, and only
            // in-repository allowances (build outputs) count: the temp-dir allowances must not
            // make a whole repository removable because it happens to live under /tmp. A
            // directory that holds tracked files is not a build output, whatever its name.
            let first = rel.split('/').next().unwrap_or("");
            if first == ".git" || first == ".pawl" {
                return false;
            }
            if self.ctx.tracked.is_tracked(rel) || self.ctx.tracked.has_tracked_under(rel) {
                return false;
            }
            forms = crate::policy::PathForms {
                absolute: String::new(),
                home: None,
                tmpdir: None,
                relative: Some(rel.to_owned()),
            };
        }
        self.policy.allowances.matches(&forms, false)
    }

    /// Whether an argument (a path or a glob) lies in an allowance.
    pub(crate) fn in_allowance(&self, shell: &Shell, arg: &Arg) -> bool {
        self.allowance_refusal(shell, arg).is_none()
    }

    /// Why `arg` may not be removed recursively; `None` when it lies in an allowance.
    pub(super) fn allowance_refusal(&self, shell: &Shell, arg: &Arg) -> Option<String> {
        if !arg.known {
            return Some(format!("`{}` is not statically known", arg.text));
        }
        let Some(absolute) = self.resolve(shell, &arg.text) else {
            return Some(format!(
                "`{}` is relative to a directory that is not statically known",
                arg.text
            ));
        };
        let absolute = match self.unalias(shell, &absolute) {
            Ok(Some(p)) => p,
            Ok(None) => return Some(format!("`{}` is not a directory", arg.text)),
            Err(why) => return Some(why),
        };
        if arg.glob {
            return self.glob_refusal(shell, &arg.text, &absolute);
        }
        let not_allowed = || {
            format!(
                "`{}` is not a build output, /tmp or $TMPDIR (or it holds tracked files, the repository or $HOME)",
                arg.text
            )
        };
        if !self.removable(&absolute) {
            return Some(not_allowed());
        }
        let follow = arg.text.ends_with('/') || arg.text.ends_with("/.");
        if let Some(real) = self.real_path(&absolute, follow)
            && !self.removable(&real)
        {
            return Some(format!(
                "`{}` leads through a symbolic link to `{real}`, which is not removable",
                arg.text
            ));
        }
        None
    }

    /// Why the glob `text` (absolute form `pattern`) may not be removed recursively.
    fn glob_refusal(&self, shell: &Shell, text: &str, pattern: &str) -> Option<String> {
        // Lexical resolution would treat a wildcard component as a name and `..` after it
        // as leaving it.
        if text.contains("..") {
            return Some(format!("the glob `{text}` holds `..`"));
        }
        let comps: Vec<&str> = pattern.split('/').filter(|c| !c.is_empty()).collect();
        if let Some(c) = comps
            .iter()
            // Only a component that starts with a literal `.` matches `.` or `..` (bash and
            // zsh, dotglob or not).
            .find(|c| {
                c.starts_with('.')
                    && has_wildcard(c)
                    && (globs_may_overlap(c, "..") || globs_may_overlap(c, "."))
            })
        {
            return Some(format!(
                "the glob component `{c}` can match `..` or `.`, which leave the directory"
            ));
        }
        // A wildcard that can match a component of the repository's, $HOME's or the temp
        // dir's path can match that place itself or one of its parents.
        for (anchor, name) in [
            (self.anchors.repo_root.as_deref(), "the repository"),
            (self.anchors.home.as_deref(), "$HOME"),
            (self.anchors.tmpdir.as_deref(), "$TMPDIR"),
        ] {
            let Some(anchor) = anchor else { continue };
            let a: Vec<&str> = anchor.split('/').filter(|c| !c.is_empty()).collect();
            let j = comps.len().min(a.len());
            if j > 0
                && comps[..j].iter().any(|c| has_wildcard(c))
                && comps[..j]
                    .iter()
                    .zip(&a[..j])
                    .all(|(p, x)| globs_may_overlap(p, x))
            {
                return Some(format!(
                    "the glob `{text}` can match {name} (`{anchor}`) or a directory that holds it"
                ));
            }
        }
        if let Some(verdict) = self.allowance_name_glob(shell, text, pattern) {
            return verdict;
        }
        // Everything the glob can match lies under its fixed prefix; probe a child of it.
        let prefix = glob_prefix(pattern);
        let probe = normalize(prefix, "__pawl_glob__");
        let refusal = || {
            Some(format!(
                "the glob `{text}` is not under a build output, /tmp or $TMPDIR"
            ))
        };
        if !self.removable(&probe) {
            return refusal();
        }
        if self.in_repo(prefix) && self.is_tracked_path(prefix).1 {
            return Some(format!(
                "the glob `{text}` is under `{prefix}`, which holds tracked files"
            ));
        }
        if let Some(real) = self.real_path(prefix, true)
            && !self.removable(&normalize(&real, "__pawl_glob__"))
        {
            return Some(format!(
                "the glob `{text}` goes through a symbolic link to `{real}`"
            ));
        }
        None
    }

    /// Why removing `arg` recursively would lose what pawl's checkpoint does not keep; `None`
    /// when it loses nothing of the kind: with [`crate::Context::checkpointed`], pawl keeps
    /// the repository's untracked files in a commit before every step, so a directory (or a
    /// glob) of the repository that holds no tracked file, no protected path and none of git's
    /// or pawl's own state can be removed: it comes back from the checkpoint (docs/guard.md
    /// "The principle"). Tracked files stay refused as before (`rm -rf src`).
    pub(super) fn checkpoint_refusal(&self, shell: &Shell, arg: &Arg) -> Option<String> {
        let not_kept = || Some("pawl's checkpoint does not keep it".to_owned());
        // Only names the guard knows: a word that stands for a number or a command's output
        // (`build-$$`, `$(whoami)`) could name a directory that holds tracked files.
        if !self.ctx.checkpointed
            || !arg.known
            || arg.text.contains("..")
            || arg.text.contains(['$', '`'])
            || arg.text.contains(crate::words::SLASH_FREE)
            || arg.text.contains(crate::words::SOME_NUMBER)
        {
            return not_kept();
        }
        // Every unknown answers "not kept" (`?` would answer "kept").
        let Some(root) = self.anchors.repo_root.as_deref() else {
            return not_kept();
        };
        let Some(absolute) = self.resolve(shell, &arg.text) else {
            return not_kept();
        };
        let Ok(Some(absolute)) = self.unalias(shell, &absolute) else {
            return not_kept();
        };
        let prefix = if arg.glob {
            glob_prefix(&absolute)
        } else {
            absolute.as_str()
        };
        let Some(rel) = relative_to(&absolute, root) else {
            return not_kept();
        };
        if !self.in_repo(prefix) || rel.is_empty() || rel == "." {
            return not_kept();
        }
        let dotglob = self.dotglob_maybe(shell);
        let git_or_pawl = |c: &str| {
            c.eq_ignore_ascii_case(".git")
                || c.eq_ignore_ascii_case(".pawl")
                || (has_wildcard(c)
                    && (c.starts_with('.') || dotglob)
                    && (globs_may_overlap(c, ".git") || globs_may_overlap(c, ".pawl")))
        };
        if rel.split('/').any(git_or_pawl) {
            return Some("it may reach git's or pawl's own state".to_owned());
        }
        // Only a component that starts with a literal `.` matches `.` or `..` (bash and zsh).
        if rel.split('/').any(|c| {
            c.starts_with('.')
                && has_wildcard(c)
                && (globs_may_overlap(c, "..") || globs_may_overlap(c, "."))
        }) {
            return Some("a glob component can match `..` or `.`".to_owned());
        }
        if self.holds_protected(prefix) {
            return Some("it is or holds a protected path".to_owned());
        }
        // A path below a tracked path lies in a submodule (a tracked file has no children):
        // the superproject's checkpoint holds the submodule's commit, not its files.
        let literal = relative_to(prefix, root).unwrap_or(rel);
        if literal
            .match_indices('/')
            .any(|(i, _)| self.ctx.tracked.is_tracked(&literal[..i]))
        {
            return Some(
                "it lies in a submodule, whose files pawl's checkpoint does not keep".to_owned(),
            );
        }
        let tracked = if arg.glob {
            if arg.text.contains(['{', '(']) {
                return not_kept();
            }
            let no_dot = !last_component(&absolute).starts_with('.') && !dotglob;
            if let Some(p) = self.glob_may_be_protected(&absolute, no_dot, false) {
                return Some(format!("the glob may match a protected path (`{p}`)"));
            }
            let Ok(glob) = GlobBuilder::new(rel)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
            else {
                return not_kept();
            };
            let m = glob.compile_matcher();
            self.ctx
                .tracked
                .any_tracked_matching(&|dir: &str| m.is_match(dir), &|file: &str| m.is_match(file))
        } else {
            Some(self.ctx.tracked.is_tracked(rel) || self.ctx.tracked.has_tracked_under(rel))
        };
        // Tracked files are in the checkpoint like untracked ones (a tracked file removed by
        // `rm` is allowed under it); a submodule among them is not — the checkpoint holds its
        // gitlink, not its tree — so a named directory that is or holds tracked files is held
        // only when the index says it holds no gitlink.
        let held_tracked = !arg.glob && self.ctx.tracked.holds_gitlink_under(rel) == Some(false);
        if tracked != Some(false) && !held_tracked {
            return Some(
                if self.ctx.tracked.holds_gitlink_under(rel) == Some(true) {
                    "it is or holds a submodule, whose files pawl's checkpoint does not keep"
                } else {
                    "it is or holds tracked files"
                }
                .to_owned(),
            );
        }
        // What git ignores is outside the checkpoint (`.env`, a local database): asked of the
        // directory the glob's matches lie in, or of the directory itself. A build output or
        // cache by name (`dist`, `target`: the allowances) that also holds tracked files is the
        // exception: what git ignores in it is regenerable, as when it holds no tracked file
        // (then the allowance alone removes it), and its tracked files are held.
        let regenerable = held_tracked
            && tracked != Some(false)
            && self.policy.allowances.matches(
                &crate::policy::PathForms {
                    absolute: String::new(),
                    home: None,
                    tmpdir: None,
                    relative: Some(rel.to_owned()),
                },
                false,
            );
        if !regenerable && self.ctx.fs.holds_ignored(prefix) != Some(false) {
            return Some(
                "it may hold files git ignores or a nested git repository, which pawl's checkpoint does not keep".to_owned(),
            );
        }
        // A symbolic link on the way leads where the checkpoint does not reach.
        if let Some(real) = self.real_path(prefix, arg.glob || arg.text.ends_with('/'))
            && (!self.in_repo(&real) || self.holds_protected(&real))
        {
            return Some(format!("it leads through a symbolic link to `{real}`"));
        }
        None
    }

    /// Whether `name` (a last path component, maybe a glob) names an allowance directory:
    /// `node_modules`, `__pycache__`, `*.egg-info`.
    fn is_allowance_name(&self, name: &str) -> bool {
        if name.is_empty() || name.contains(['{', '(']) {
            return false;
        }
        let as_glob = format!("**/{name}");
        if self.policy.policy.allowances.contains(&as_glob) {
            return true;
        }
        !has_wildcard(name)
            && self.policy.allowances.matches(
                &crate::policy::PathForms {
                    relative: Some(format!("__pawl_dir__/{name}")),
                    ..Default::default()
                },
                false,
            )
    }

    /// A glob in the repository whose last component names an allowance directory
    /// (`packages/*/node_modules`, `**/__pycache__`, `*.egg-info`): each match is such a
    /// directory, removable when no tracked file lies in any of them. `None`: the glob is not
    /// of this kind; `Some(None)`: removable; `Some(Some(why))`: not.
    fn allowance_name_glob(
        &self,
        shell: &Shell,
        text: &str,
        pattern: &str,
    ) -> Option<Option<String>> {
        let last = last_component(pattern);
        if text.contains(['{', '(']) || !self.is_allowance_name(last) {
            return None;
        }
        if text.ends_with('/') || text.ends_with("/.") {
            // `rm -rf */node_modules/` follows a match that is a link to anywhere.
            return Some(Some(format!(
                "the glob `{text}` ends with `/`: a match that is a symbolic link would be followed"
            )));
        }
        let root = self.anchors.repo_root.as_deref()?;
        let prefix = glob_prefix(pattern);
        let rel = relative_to(pattern, root)?;
        if !self.in_repo(prefix) {
            return None;
        }
        let refuse = |why: String| Some(Some(format!("the glob `{text}` {why}")));
        let dotglob = self.dotglob_maybe(shell);
        for c in rel.split('/') {
            let git_or_pawl = |c: &str| {
                c.eq_ignore_ascii_case(".git")
                    || c.eq_ignore_ascii_case(".pawl")
                    || (has_wildcard(c)
                        && (c.starts_with('.') || dotglob)
                        && (globs_may_overlap(c, ".git") || globs_may_overlap(c, ".pawl")))
            };
            if git_or_pawl(c) {
                return refuse("may reach git's or pawl's own state".to_owned());
            }
        }
        let Ok(glob) = GlobBuilder::new(rel)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
        else {
            return refuse("does not parse".to_owned());
        };
        let matcher = glob.compile_matcher();
        let tracked = self
            .ctx
            .tracked
            .any_tracked_matching(&|dir: &str| matcher.is_match(dir), &|file: &str| {
                matcher.is_match(file)
            });
        match tracked {
            Some(false) => {}
            Some(true) => return refuse("matches a directory that holds tracked files".to_owned()),
            None => {
                return refuse(
                    "may match a directory that holds tracked files (the guard cannot list them)"
                        .to_owned(),
                );
            }
        }
        if let Some(real) = self.real_path(prefix, true)
            && !self.in_repo(&real)
        {
            return refuse(format!("goes through a symbolic link to `{real}`"));
        }
        Some(None)
    }

    /// Whether `find ROOTS EXPR` with `-delete` (`rm_argv` `None`) or with `-exec rm ... {}`
    /// (`rm_argv`: the exec'd command, `{}` included) only removes build debris: the
    /// expression selects by one `-name` that is a build artifact (`*.pyc`, `*.o`,
    /// `.DS_Store`) or a cache directory (`__pycache__`, `node_modules`), with only `-type`,
    /// time and depth tests besides; the roots are in the repository or an allowance; the
    /// name cannot be a protected file's; and no tracked file is selected (or lies in a
    /// selected directory). Anything else is judged as before (denied).
    pub(crate) fn find_removes_only_debris(
        &self,
        shell: &Shell,
        roots: &[Arg],
        expr: &[Arg],
        rm_argv: Option<&[Arg]>,
    ) -> bool {
        // Everything below /tmp or $TMPDIR (that holds neither the repository nor HOME) or in
        // a build output may go.
        let in_temp = |root: &Arg| {
            root.known
                && !root.glob
                && self.resolve(shell, &root.text).is_some_and(|abs| {
                    !self.in_repo(&abs)
                        && [&self.anchors.repo_root, &self.anchors.home]
                            .into_iter()
                            .flatten()
                            .all(|place| !is_within(place, &abs))
                        && self.real_path(&abs, true).is_none()
                        && self.removable(&normalize(&abs, "__pawl_probe__"))
                })
        };
        // `-follow` (like `-L`, which leaves no roots here) descends through links: anywhere.
        let follows = expr.iter().any(|a| a.text == "-follow" || !a.known);
        if follows {
            return false;
        }
        // A root `rm -rf` may remove (a temporary directory, an allowance, or a directory of
        // the repository pawl's checkpoint holds whole: [`Walker::checkpoint_refusal`]): what
        // find removes under it is a part of that, whatever the expression selects (session 21:
        // `find src -name '*.orig' -delete`).
        let held =
            |root: &Arg| root.known && !root.glob && self.checkpoint_refusal(shell, root).is_none();
        if !roots.is_empty()
            && roots
                .iter()
                .all(|r| in_temp(r) || self.in_allowance(shell, r) || held(r))
        {
            return rm_argv.is_none_or(|argv| find_rm_recursive(argv).is_some());
        }
        let recursive = match rm_argv {
            None => false,
            Some(argv) => match find_rm_recursive(argv) {
                Some(r) => r,
                None => return false,
            },
        };
        let Some(name) = find_single_name(expr) else {
            return false;
        };
        if roots.is_empty()
            || name.contains('/')
            || name.contains(['{', '\\'])
            || (name.contains('[') && !artifact_extension(&name))
        {
            return false;
        }
        // Only what a build regenerates: leftovers such as `*.orig` or `*.log` may be the
        // only copy of something (the corpus keeps `find . -name '*.log' -delete` denied).
        let junk_file = artifact_extension(&name)
            || JUNK_NAMES.contains(&name.as_str())
            || EDITOR_LEFTOVERS.contains(&name.as_str());
        let cache_dir = CACHE_DIRS.contains(&name.as_str());
        if !junk_file && !(cache_dir && (recursive || rm_argv.is_none())) {
            return false;
        }
        // The name must not be a protected file's (open globs such as `.env.*` or
        // `Dockerfile*` are taken to mean the real thing, not its leftovers).
        for raw in &self.policy.policy.protected_paths {
            let last = last_component(raw);
            if raw.starts_with('!') || last == "**" || last.ends_with('*') {
                continue;
            }
            if globs_may_overlap(&name, last) {
                return false;
            }
        }
        let Some(root_dir) = self.anchors.repo_root.as_deref() else {
            return false;
        };
        let Ok(name_glob) = GlobBuilder::new(&name).case_insensitive(true).build() else {
            return false;
        };
        let name_matcher = name_glob.compile_matcher();
        for root in roots {
            if !root.known || root.glob {
                return false;
            }
            let Some(abs) = self.resolve(shell, &root.text) else {
                return false;
            };
            let Ok(Some(abs)) = self.unalias(shell, &abs) else {
                return false;
            };
            if self.real_path(&abs, true).is_some() {
                return false;
            }
            if self.in_allowance(shell, root) {
                continue;
            }
            let Some(rel) = relative_to(&abs, root_dir) else {
                return false;
            };
            let first = rel.split('/').next().unwrap_or("");
            if first == ".git" || first == ".pawl" {
                return false;
            }
            let under = |path: &str| rel.is_empty() || is_within(path, rel);
            let selected = |path: &str| under(path) && name_matcher.is_match(last_component(path));
            let tracked = self.ctx.tracked.any_tracked_matching(
                &|dir: &str| (cache_dir || recursive) && selected(dir),
                &|file: &str| selected(file),
            );
            if tracked != Some(false) {
                return false;
            }
        }
        true
    }

    /// The protected glob that some path the glob `pattern` (absolute) can match falls
    /// under, if any. `no_dot`:
    /// the glob's last component cannot match a name that starts with `.` (bash's default).
    /// `edit`: the files are edited in place, not removed, so a source or text extension
    /// (`src/*.rs`) is as telling as a junk one.
    fn glob_may_be_protected(&self, pattern: &str, no_dot: bool, edit: bool) -> Option<String> {
        let junk = junk_extension(last_component(pattern))
            || (edit && source_extension(last_component(pattern)));
        // With pawl's checkpoint, a glob over one directory of the repository (its top
        // included) that holds no file git ignores matches only files the checkpoint keeps
        // (tracked, or untracked and not ignored): the keys and certificates of
        // `PROTECTED_UNLESS_TRACKED` it may match are held (`rm -f server*.pem` where the test
        // certificates are). A glob that cannot match a dot-led name reaches nothing under the
        // directory's dot-led entries (`.env`, `.venv`, `.pawl/`, the repository's `.git`): only
        // the rest is asked about.
        let held_dir = self.ctx.checkpointed
            && split_parent(pattern).is_some_and(|(dir, _)| {
                !has_wildcard(dir)
                    && self.anchors.repo_root.as_deref().is_some_and(|root| {
                        relative_to(dir, root).is_some_and(|rel| {
                            !rel.split('/')
                                .any(|c| c == ".." || c == ".git" || c == ".pawl")
                        })
                    })
                    && if no_dot {
                        self.ctx.fs.holds_ignored_undotted(dir)
                    } else {
                        self.ctx.fs.holds_ignored(dir)
                    } == Some(false)
            });
        let forms = self.anchors.forms(pattern);
        let mut absolute: Vec<String> = vec![forms.absolute.clone()];
        absolute.extend(forms.home.clone());
        absolute.extend(forms.tmpdir.clone());
        let relative: Vec<String> = forms.relative.clone().into_iter().collect();
        for raw in &self.policy.policy.protected_paths {
            if raw.starts_with('!')
                || (held_dir && crate::policy::PROTECTED_UNLESS_TRACKED.contains(&raw.as_str()))
            {
                continue;
            }
            let glob = match raw.strip_prefix("$HOME/") {
                Some(rest) => format!("~/{rest}"),
                None => raw.clone(),
            };
            let protected_last = last_component(&glob);
            if no_dot && protected_last.starts_with('.') {
                continue;
            }
            if junk
                && protected_last.ends_with('*')
                && protected_last != "**"
                && !protected_last.starts_with('.')
            {
                // `Dockerfile*`, `id_rsa*` or `*.tfstate.*` could match `Dockerfile.orig` or
                // `x.tfstate.rs`: a leftover or source file, not the protected file.
                continue;
            }
            let is_absolute =
                glob.starts_with('/') || glob.starts_with("~/") || glob.starts_with("$TMPDIR/");
            let hit = absolute
                .iter()
                .chain(relative.iter().filter(|_| !is_absolute))
                .any(|form| globs_may_overlap(form, &glob));
            if hit {
                return Some(raw.clone());
            }
        }
        None
    }

    /// Whether bash's `*` may match dotfiles here (`shopt -s dotglob`, `GLOBIGNORE`, zsh's
    /// `globdots`) as far as the commands so far show.
    pub(super) fn dotglob_maybe(&self, shell: &Shell) -> bool {
        shell.vars.contains_key("GLOBIGNORE")
            || self.found.iter().any(|c| {
                c.argv.iter().any(|a| {
                    let a = a.to_ascii_lowercase().replace('_', "");
                    a.contains("dotglob") || a.contains("globdots") || a.contains("bashopts")
                })
            })
    }

    /// Judges a non-recursive removal of the glob `arg`; `Ok(n)`: it may remove `n` tracked
    /// files (0, 1 or 2 for "more than one").
    pub(super) fn glob_delete(&self, shell: &Shell, arg: &Arg) -> Result<usize, (RuleId, String)> {
        self.glob_files(shell, arg, false)
    }

    /// [`Walker::glob_delete`] for files written (`edit`: a copy's destination glob writes
    /// files named like its sources, so a source or text extension is as telling as a junk
    /// one: `*.ts` is not the key an open protected glob such as `id_rsa*` is meant for).
    fn glob_files(&self, shell: &Shell, arg: &Arg, edit: bool) -> Result<usize, (RuleId, String)> {
        if self.in_allowance(shell, arg) {
            return Ok(0);
        }
        let text = &arg.text;
        let many = |why: &str| {
            Err((
                RuleId::DestructiveShell,
                format!("rm `{text}`: {why}; name the files"),
            ))
        };
        let Some(absolute) = self.resolve(shell, text) else {
            return many("the glob is relative to a directory that is not statically known");
        };
        let Some((dir, last)) = split_parent(&absolute) else {
            return many("the glob matches the root");
        };
        if has_wildcard(dir) || text.contains("..") {
            return many("a glob over directories may remove many files");
        }
        if last.contains(['(', '{']) || (last.starts_with('.') && globs_may_overlap(last, "..")) {
            return many("the glob may match more than plain file names");
        }
        if !self.in_repo(dir) {
            return many(
                "a glob outside the repository and the temp and build directories may remove many files",
            );
        }
        if self.holds_protected(dir) {
            return Err((
                RuleId::ProtectedPath,
                format!("rm `{text}`: the files are in a protected directory"),
            ));
        }
        if let Some(real) = self.real_path(dir, true)
            && (!self.in_repo(&real) || self.holds_protected(&real))
        {
            return many(&format!(
                "its directory leads through a symbolic link to `{real}`"
            ));
        }
        let no_dot = !last.starts_with('.') && !self.dotglob_maybe(shell);
        if let Some(protected) = self.glob_may_be_protected(&absolute, no_dot, edit) {
            return Err((
                RuleId::ProtectedPath,
                format!(
                    "rm `{text}`: the glob may match a protected path (`{protected}`); name the files"
                ),
            ));
        }
        let Ok(glob) = GlobBuilder::new(last).literal_separator(true).build() else {
            return many("the glob does not parse");
        };
        let matcher = glob.compile_matcher();
        let rel = self
            .anchors
            .repo_root
            .as_deref()
            .and_then(|root| relative_to(dir, root))
            .unwrap_or("");
        let counted = self.ctx.tracked.count_tracked_in(
            rel,
            &|name: &str| (!no_dot || !name.starts_with('.')) && matcher.is_match(name),
            2,
        );
        match counted {
            Some(n) => Ok(n),
            None => many("the guard cannot list which tracked files the glob matches"),
        }
    }

    /// The reason a write of `mode` to `absolute` is refused, if it is.
    fn judge_path(&self, absolute: &str, mode: WriteMode) -> Option<(RuleId, String)> {
        if crate::rules::system::is_block_device(absolute) && !self.rule_off(RuleId::InfraDestroy) {
            return Some((
                RuleId::InfraDestroy,
                "it is a block device: writing it destroys a disk".to_owned(),
            ));
        }
        if is_device(absolute) {
            return None;
        }
        // A throwaway copy in a temporary directory outside the repository (`cp .env.example
        // /tmp/.env`, a key made for a test) protects nothing; pawl's own paths stay protected.
        // HOME may itself lie in a temporary directory (a test's, a container's): nothing
        // under it or the repository is a throwaway.
        let under = |dir: Option<&std::path::PathBuf>| {
            dir.and_then(|d| d.to_str())
                .map(|d| d.trim_end_matches('/'))
                .is_some_and(|d| absolute == d || absolute.starts_with(&format!("{d}/")))
        };
        let throwaway = self.is_temp(absolute)
            && !under(self.ctx.repo_root.as_ref())
            && !under(self.ctx.home.as_ref())
            && !self.policy.policy.in_protected_dir(absolute)
            && self.pawl_path_kind(absolute).is_none();
        // Deleting a throwaway (`rm /tmp/ec2_key.pem`) is as harmless as writing one; a
        // directory that holds protected paths, or a link to one, is judged by what it holds.
        let deletes_protected = mode == WriteMode::Delete
            && if throwaway {
                self.is_parent_of_protected(absolute)
                    || self
                        .real_path(absolute, true)
                        .is_some_and(|real| self.holds_protected(&real))
            } else {
                self.holds_protected(absolute)
            };
        if !throwaway && self.is_protected(absolute) || deletes_protected {
            return Some((
                RuleId::ProtectedPath,
                "the path is protected by the guard policy".to_owned(),
            ));
        }
        if mode == WriteMode::Delete
            && let Some(place) = self.holds_anchor(absolute)
        {
            return Some((RuleId::RecursiveDelete, format!("it is or holds {place}")));
        }
        if mode == WriteMode::Clobber && !self.ctx.checkpointed && self.is_tracked_path(absolute).0
        {
            return Some((
                RuleId::Clobber,
                "it would overwrite a tracked file; append with >> or edit it instead".to_owned(),
            ));
        }
        // The system's own files (`/etc`, `/usr`, `/opt`, ...), outside the repository, HOME and
        // the temporary directories: a change there outlasts the run (with root, or where the
        // agent owns them), and no checkpoint keeps it.
        if !self.rule_off(RuleId::Persist)
            && !under(self.ctx.repo_root.as_ref())
            && !under(self.ctx.home.as_ref())
            && !self.is_temp(absolute)
            && let Some(dir) = system_dir(absolute)
        {
            return Some((
                RuleId::Persist,
                format!(
                    "it is under `{dir}`, the system's files outside the repository: the change would outlast the run and pawl could not undo it; write into the repository or a temporary directory instead"
                ),
            ));
        }
        self.outside_refusal(absolute, mode, throwaway)
    }

    /// Why writing `absolute` outside the repository is refused: pawl's checkpoint holds the
    /// run's repository, so a file removed, clobbered, appended to or edited elsewhere (another
    /// project, HOME) could not be restored, and one created there would outlast the run
    /// (docs/guard.md "The principle"). Temporary
    /// directories (`throwaway`: not the repository's or HOME's) and what the allowances list
    /// as regenerable outside the repository (`~/.cache`: [`Walker::removable`]) stay allowed, as does every
    /// write when the repository is not known (no checkpoint to speak of), and `git rm` without
    /// `--force` (it removes only what that repository's commit holds).
    fn outside_refusal(
        &self,
        absolute: &str,
        mode: WriteMode,
        throwaway: bool,
    ) -> Option<(RuleId, String)> {
        let root = self.anchors.repo_root.as_deref()?;
        if is_within(absolute, root)
            || throwaway
            || (mode == WriteMode::Delete && self.git_held_removal)
            || (mode != WriteMode::Delete && self.is_agent_state(absolute))
            || self.removable(absolute)
        {
            return None;
        }
        let shown = self.shown_path(absolute);
        Some(match mode {
            WriteMode::Delete => (
                RuleId::DestructiveShell,
                format!(
                    "would delete {shown}, outside the repository: pawl's checkpoint cannot restore it; only the repository's files, temporary directories and caches or build outputs may be removed"
                ),
            ),
            WriteMode::Clobber => (
                RuleId::Clobber,
                format!(
                    "would write {shown}, outside the repository: pawl's checkpoint holds only the repository, so it could neither restore a file replaced there nor remove one created; write into the repository or a temporary directory instead"
                ),
            ),
            WriteMode::Append | WriteMode::Modify => (
                RuleId::Clobber,
                format!(
                    "would change {shown}, outside the repository: pawl's checkpoint holds only the repository, so it could not undo the change nor remove what is created there; write into the repository or a temporary directory instead"
                ),
            ),
        })
    }

    /// Whether `absolute` lies below one of [`AGENT_STATE_DIRS`] in HOME, where agents keep
    /// plans and memory with their own tools (`~/.claude/plans/x.md`, not `~/.claude/CLAUDE.md`).
    fn is_agent_state(&self, absolute: &str) -> bool {
        self.anchors.home.as_deref().is_some_and(|home| {
            relative_to(absolute, home).is_some_and(|rel| {
                AGENT_STATE_DIRS.iter().any(|dir| {
                    let mut parts = rel.split('/');
                    let under = dir.split('/').all(|want| {
                        parts.next().is_some_and(|got| {
                            got == want || (want == "*" && !got.is_empty() && got != "..")
                        })
                    });
                    let rest: Vec<&str> = parts.collect();
                    under && !rest.is_empty() && !rest.iter().any(|c| c.is_empty() || *c == "..")
                })
            })
        })
    }

    /// `absolute` as a reason shows it: relative to the repository's parent when it lies there
    /// and that parent is not HOME (`../other/README.md`), under `~` in HOME, else absolute.
    fn shown_path(&self, absolute: &str) -> String {
        if let Some(root) = self.anchors.repo_root.as_deref()
            && let Some(parent) = std::path::Path::new(root).parent().and_then(|p| p.to_str())
            && parent != "/"
            && self.anchors.home.as_deref() != Some(parent)
            && let Some(rel) = relative_to(absolute, parent).filter(|r| !r.is_empty())
        {
            return format!("../{rel}");
        }
        if let Some(home) = self.anchors.home.as_deref()
            && let Some(rel) = relative_to(absolute, home).filter(|r| !r.is_empty())
        {
            return format!("~/{rel}");
        }
        absolute.to_owned()
    }

    /// Judges one write to `arg`.
    pub(crate) fn check_write(
        &mut self,
        arg: &Arg,
        mode: WriteMode,
        shell: &Shell,
        frame: &Frame,
        what: &str,
    ) -> Judged {
        if !arg.glob && self.maybe_link_made_here(shell, arg) {
            return self.deny(
                frame,
                RuleId::NotStatic,
                format!(
                    "{what} `{}`: this command line created a link there, and a write through it changes the file it points to; write that file by its own name",
                    arg.text
                ),
            );
        }
        self.check_write_here(arg, mode, shell, frame, what)
    }

    /// Whether `arg` may be (or lie under) a symbolic link an earlier command of this line
    /// created (`ln -s`, `cp -s`): links to tracked files are allowed, writes through them
    /// are not.
    fn maybe_link_made_here(&self, shell: &Shell, arg: &Arg) -> bool {
        let links = self.found.iter().any(|c| {
            let base = c
                .argv
                .first()
                .map_or("", |a| a.rsplit('/').next().unwrap_or(a));
            let short_s = |a: &str| a.starts_with('-') && !a.starts_with("--") && a.contains('s');
            matches!(base, "ln" | "link")
                || (base == "cmake" && c.argv.iter().any(|a| a.contains("link")))
                || (base == "cp" && c.argv.iter().any(|a| short_s(a) || a.starts_with("--sy")))
        });
        links && self.is_written(shell, arg)
    }

    /// Judges one write to `arg`, without asking whether a link made earlier in the line is
    /// in the way (the link's own creation).
    fn check_write_here(
        &mut self,
        arg: &Arg,
        mode: WriteMode,
        shell: &Shell,
        frame: &Frame,
        what: &str,
    ) -> Judged {
        if arg.known && is_device(&arg.text) {
            return Continue(());
        }
        if arg.glob {
            if matches!(mode, WriteMode::Modify | WriteMode::Append)
                && !self.in_allowance(shell, arg)
            {
                // Editing or appending to tracked files is allowed (only clobbering them is
                // not): the glob may not reach a protected path.
                if let Some((rule, why)) = self.glob_edit_refusal(shell, arg) {
                    self.deny(frame, rule, format!("{what} `{}`: {why}", arg.text))?;
                }
                return Continue(());
            }
            // A glob over one directory of the repository that can match no protected path and
            // no tracked file (as `rm` of a glob is judged): it writes only untracked files, as
            // a plain `cp a b` may.
            if !self.in_allowance(shell, arg) && !matches!(self.glob_files(shell, arg, true), Ok(0))
            {
                self.deny(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "{what} `{}`: a glob may match protected or tracked files",
                        arg.text
                    ),
                )?;
            }
            return Continue(());
        }
        let absolute = match self.target_path(shell, arg) {
            Ok(p) => p,
            Err(why) => {
                // At the top of the line a variable it does not assign can be assigned there:
                // the reason names that form (not inside a nested script or a sourced file).
                let top = frame.depth == 0 && !shell.sourced;
                let Some(lead) = inherited_lead(shell, &arg.text).filter(|_| top) else {
                    return self.deny(
                        frame,
                        RuleId::NotStatic,
                        format!("{what} to {why}; it may be a protected or tracked file"),
                    );
                };
                return self.deny(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "{what} to {why}; it may be a protected or tracked file: `${}` is not set by this command, so the path is absolute when it is unset and anywhere the user can write (a shell rc file, another project) when it is set, which pawl could not undo; assign it in the same command (`{}=dist; ...`) or name the path",
                        lead, lead
                    ),
                );
            }
        };
        let absolute = match self.unalias(shell, &absolute) {
            Ok(Some(p)) => p,
            Ok(None) => return Continue(()),
            Err(why) => {
                return self.deny(frame, RuleId::NotStatic, format!("{what} to {why}"));
            }
        };
        // A directory as the target (`"~/.ssh/$K"` is judged as `~/.ssh/`, `words.rs`): the
        // name written or removed under it is not known, so nothing under it may be protected.
        if arg.text.ends_with('/') && self.holds_protected(&absolute) {
            return self.deny(
                frame,
                RuleId::ProtectedPath,
                format!(
                    "{what} `{}`: the directory holds protected paths, and the name under it is not statically known",
                    arg.text
                ),
            );
        }
        let real = self.real_path(&absolute, mode != WriteMode::Delete);
        for candidate in std::iter::once(absolute.clone()).chain(real) {
            if let Some((rule, why)) = self.judge_path(&candidate, mode) {
                let via = if candidate == absolute {
                    String::new()
                } else {
                    format!(" (through a symbolic link it is `{candidate}`)")
                };
                return self.deny(frame, rule, format!("{what} `{}`{via}: {why}", arg.text));
            }
        }
        Continue(())
    }

    /// Why an in-place edit (or append) of every path the glob `arg` matches is refused: the
    /// glob may match a protected path (or leaves the places the guard can see).
    fn glob_edit_refusal(&self, shell: &Shell, arg: &Arg) -> Option<(RuleId, String)> {
        let unknown = |why: &str| Some((RuleId::NotStatic, why.to_owned()));
        if !arg.known {
            return unknown("the glob is not statically known");
        }
        let Some(absolute) = self.resolve(shell, &arg.text) else {
            return unknown("the glob is relative to a directory that is not statically known");
        };
        if arg.text.contains("..")
            || absolute.starts_with("/proc/")
            || absolute.starts_with("/dev/")
        {
            return unknown("the glob may lead anywhere (`..`, /proc, /dev); name the files");
        }
        if arg.text.contains(['{', '(']) {
            return unknown("the glob may match more than plain file names; name the files");
        }
        let no_dot = !last_component(&absolute).starts_with('.') && !self.dotglob_maybe(shell);
        if let Some(protected) = self.glob_may_be_protected(&absolute, no_dot, true) {
            return Some((
                RuleId::ProtectedPath,
                format!("the glob may match a protected path (`{protected}`); name the files"),
            ));
        }
        let prefix = glob_prefix(&absolute);
        if let Some(real) = self.real_path(prefix, true)
            && let Some(protected) = self.glob_may_be_protected(
                &format!(
                    "{}/{}",
                    real.trim_end_matches('/'),
                    absolute[prefix.len()..].trim_start_matches('/')
                ),
                no_dot,
                true,
            )
        {
            return Some((
                RuleId::ProtectedPath,
                format!(
                    "the glob goes through a symbolic link to `{real}` and may match a protected path (`{protected}`)"
                ),
            ));
        }
        None
    }

    /// Judges a destination that must be a temp or allowed location
    /// (`truncate`, `shred`, `dd of=`, `rsync --delete`).
    pub(super) fn only_in_allowance(
        &mut self,
        shell: &Shell,
        arg: &Arg,
        frame: &Frame,
        what: &str,
    ) -> Judged {
        if arg.known && is_device(&arg.text) {
            return Continue(());
        }
        if arg.known
            && let Some(abs) = self.resolve(shell, &arg.text)
            && matches!(self.unalias(shell, &abs), Ok(None))
        {
            return Continue(());
        }
        // These programs follow a link at the end of the path: judge where it leads, and
        // refuse a link this line made.
        let through_link = !arg.glob
            && (self.maybe_link_made_here(shell, arg)
                || self
                    .resolve(shell, &arg.text)
                    .and_then(|abs| self.real_path(&abs, true))
                    .is_some_and(|real| !self.removable(&real)));
        if through_link || !self.in_allowance(shell, arg) {
            self.deny(
                frame,
                RuleId::DestructiveShell,
                format!(
                    "{what} `{}` destroys file contents outside the temp and build directories",
                    arg.text
                ),
            )?;
        }
        Continue(())
    }

    /// Rules for commands that are neither wrappers, shells, git nor
    /// interpreters.
    pub(crate) fn file_rules(
        &mut self,
        base: &str,
        args: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if let Some((decompresses, keeps)) = compressor(base) {
            return self.compress(base, args, decompresses, keeps, shell, frame);
        }
        match base {
            _ if rules::delete::is_deleter(base) => self.deleter(base, args, shell, frame)?,
            "cmake" => self.cmake(args, shell, frame)?,
            // Also reached from other judges (an interpreter's rename is `mv`).
            "rsync" => self.rsync_files(args, shell, frame)?,
            "cp" | "mv" | "install" | "ln" => self.copy_like(base, args, shell, frame)?,
            "patch" => self.patch(args, shell, frame)?,
            // Removes empty directories (with `-p`, their emptied parents): a delete of each.
            "rmdir" => {
                let p = rules::parse(args, &PLAIN);
                for arg in &p.operands {
                    if !arg.known {
                        return self.deny(
                            frame,
                            RuleId::NotStatic,
                            format!("rmdir of `{}`, which is not statically known", arg.text),
                        );
                    }
                    self.check_write(arg, WriteMode::Delete, shell, frame, "rmdir")?;
                    if p.has(&["-p", "--parents"]) {
                        let mut parent = arg.text.trim_end_matches('/');
                        while let Some((up, _)) = parent.rsplit_once('/') {
                            if up.is_empty() {
                                break;
                            }
                            self.check_write(
                                &Arg::lit(up),
                                WriteMode::Delete,
                                shell,
                                frame,
                                "rmdir -p",
                            )?;
                            parent = up;
                        }
                    }
                }
            }
            "tee" => {
                let args = canon_long(args, TEE_LONGS);
                let p = rules::parse(&args, &PLAIN);
                let mode = if p.has(&["-a", "--append"]) {
                    WriteMode::Append
                } else {
                    WriteMode::Clobber
                };
                for arg in &p.operands {
                    self.check_write(arg, mode, shell, frame, "tee")?;
                }
            }
            "sponge" => {
                let p = rules::parse(args, &PLAIN);
                let mode = if p.has(&["-a"]) {
                    WriteMode::Append
                } else {
                    WriteMode::Clobber
                };
                for arg in &p.operands {
                    self.check_write(arg, mode, shell, frame, "sponge")?;
                }
            }
            "touch" | "mkdir" | "chmod" | "chown" | "chgrp" | "setfacl" | "chattr" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "tdrm",
                        long_values: &["--reference", "--date", "--mode"],
                        stop_at_operand: false,
                    },
                );
                // chmod takes a mode that looks like an option (`chmod -x f`, `chmod -w,u+r f`):
                // then every operand is a file.
                let mode_as_option = base == "chmod"
                    && (p.has(&["--reference"])
                        || args.iter().any(|a| {
                            a.exact().is_some_and(|t| {
                                t.len() > 1
                                    && t.starts_with('-')
                                    && !t.starts_with("--")
                                    && t[1..]
                                        .chars()
                                        .all(|c| "rwxXstugoa0123456789,=+-".contains(c))
                            })
                        }));
                let skip = usize::from(
                    matches!(base, "chmod" | "chown" | "chgrp" | "setfacl" | "chattr")
                        && !mode_as_option,
                );
                for arg in p.operands.iter().skip(skip) {
                    self.check_write(arg, WriteMode::Modify, shell, frame, base)?;
                }
            }
            "fallocate" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "ol",
                        long_values: &["--offset", "--length"],
                        stop_at_operand: false,
                    },
                );
                // Punching, collapsing, zeroing or inserting ranges destroys contents.
                let destroys = p.opts.iter().any(|o| {
                    matches!(o.name.as_str(), "-p" | "-c" | "-z" | "-i" | "-d")
                        || [
                            "--punch-hole",
                            "--collapse-range",
                            "--zero-range",
                            "--insert-range",
                            "--dig-holes",
                        ]
                        .iter()
                        .any(|l| o.name.len() > 3 && l.starts_with(o.name.as_str()))
                });
                let mode = if destroys {
                    WriteMode::Clobber
                } else {
                    WriteMode::Modify
                };
                for arg in &p.operands {
                    self.check_write(arg, mode, shell, frame, "fallocate")?;
                }
            }
            "ssh-keygen" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "bCfNtZaOnIVzmEgFPRrsJjKwY",
                        long_values: &[],
                        stop_at_operand: false,
                    },
                );
                let reads = p.has(&["-l", "-y", "-F", "-R", "-B", "-e", "-i", "-L", "-Q"]);
                if !reads && let Some(file) = p.value(&["-f"]).cloned() {
                    self.check_write(&file, WriteMode::Clobber, shell, frame, "ssh-keygen -f")?;
                }
            }
            "uniq" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "fsw",
                        long_values: &["--skip-fields", "--skip-chars", "--check-chars"],
                        stop_at_operand: false,
                    },
                );
                if let Some(out) = p.operands.get(1).filter(|o| o.text != "-") {
                    let out = out.clone();
                    self.check_write(&out, WriteMode::Clobber, shell, frame, "uniq (output file)")?;
                }
            }
            "xxd" => {
                // `xxd [options] [infile [outfile]]`; options may be spelled long with one dash.
                let mut operands: Vec<&Arg> = Vec::new();
                let mut index = 0;
                while index < args.len() {
                    let arg = &args[index];
                    index += 1;
                    let t = arg.text.as_str();
                    if t.len() > 1 && t.starts_with('-') && operands.is_empty() {
                        let name = t.trim_start_matches('-');
                        if matches!(
                            name,
                            "c" | "cols"
                                | "g"
                                | "groupsize"
                                | "l"
                                | "len"
                                | "n"
                                | "name"
                                | "o"
                                | "offset"
                                | "s"
                                | "seek"
                        ) {
                            index += 1;
                        }
                        continue;
                    }
                    operands.push(arg);
                }
                if let Some(out) = operands.get(1).filter(|o| o.text != "-") {
                    let out = (*out).clone();
                    self.check_write(&out, WriteMode::Clobber, shell, frame, "xxd (output file)")?;
                }
            }
            "curl" | "wget" | "sort" | "shuf" | "openssl" | "cc" | "gcc" | "g++" | "c++"
            | "clang" | "clang++" | "rustc" | "pandoc" | "iconv" | "gpg" | "msgfmt" => {
                let (short, long): (&str, &[&str]) = match base {
                    "curl" => ("oHdXAeEuUwTxKbcrmy", &["--output", "--output-dir"]),
                    "wget" => ("OoaPeUTtw", &["--output-document", "--directory-prefix"]),
                    "openssl" => ("", &[]),
                    "sort" => ("kotST", &["--output", "--key", "--field-separator"]),
                    "shuf" => ("ionr", &["--output", "--input-range", "--head-count"]),
                    _ => ("o", &["--output"]),
                };
                let args = match base {
                    "sort" => canon_long(args, SORT_LONGS),
                    "shuf" => canon_long(args, SHUF_LONGS),
                    "wget" => canon_long(
                        args,
                        &["--output-document", "--output-file", "--directory-prefix"],
                    ),
                    _ => args.to_vec(),
                };
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: short,
                        long_values: long,
                        stop_at_operand: false,
                    },
                );
                let mut outs: Vec<Arg> = Vec::new();
                match base {
                    "curl" => {
                        outs.extend(p.value(&["-o", "--output"]).cloned());
                        // `-O` names the file after the URL's last path segment.
                        let remote_name = p.has(&["-O", "--remote-name", "--remote-name-all"]);
                        if remote_name && !p.has(&["-o", "--output"]) {
                            if p.has(&["-J", "--remote-header-name"]) {
                                outs.push(Arg::unknown("<name from the server>"));
                            }
                            let dir = p.value(&["--output-dir"]).cloned();
                            outs.extend(
                                p.operands
                                    .iter()
                                    .filter(|u| u.text.contains("://"))
                                    .map(|u| url_file(u, dir.as_ref())),
                            );
                        }
                    }
                    "wget" => match p.value(&["-O", "--output-document"]).cloned() {
                        Some(out) => outs.push(out),
                        None if !p.has(&["--spider", "-r", "--recursive", "-m", "--mirror"]) => {
                            let dir = p.value(&["-P", "--directory-prefix"]).cloned();
                            let urls: Vec<Arg> = p
                                .operands
                                .iter()
                                .filter(|u| u.text.contains("://"))
                                .map(|u| url_file(u, dir.as_ref()))
                                .collect();
                            // wget does not overwrite (it writes `name.1`), but it creates.
                            for url in &urls {
                                self.check_write(url, WriteMode::Modify, shell, frame, "wget")?;
                            }
                        }
                        None => {}
                    },
                    "openssl" => {
                        if let Some(i) = args.iter().position(|a| a.is("-out") || a.is("-keyout")) {
                            outs.extend(args.get(i + 1).cloned());
                        }
                    }
                    _ => outs.extend(p.value(&["-o", "--output"]).cloned()),
                }
                for out in outs
                    .iter()
                    .filter(|o| o.text != "-" && !o.text.starts_with('-'))
                {
                    self.check_write(out, WriteMode::Clobber, shell, frame, base)?;
                }
            }
            _ => {}
        }
        Continue(())
    }

    fn copy_like(&mut self, base: &str, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let longs = match base {
            "cp" => CP_LONGS,
            "mv" => MV_LONGS,
            "ln" => LN_LONGS,
            _ => INSTALL_LONGS,
        };
        let args = canon_long(args, longs);
        let p = rules::parse(
            &args,
            &Spec {
                short_values: if base == "install" { "tSmog" } else { "tS" },
                long_values: &[
                    "--target-directory",
                    "--suffix",
                    "--mode",
                    "--owner",
                    "--group",
                    "--strip-program",
                    "--sparse",
                    "--no-preserve",
                ],
                stop_at_operand: false,
            },
        );
        if p.has(&["--help", "--version"]) {
            return Continue(());
        }
        if base == "install" && p.has(&["-d", "--directory"]) {
            for dir in &p.operands {
                self.check_write(dir, WriteMode::Modify, shell, frame, "install -d")?;
            }
            return Continue(());
        }
        let symbolic = (base == "ln" && p.has(&["-s", "--symbolic"]))
            || (base == "cp" && p.has(&["-s", "--symbolic-link"]));
        let hard = (base == "ln" && !symbolic) || (base == "cp" && p.has(&["-l", "--link"]));
        let recursive = base == "mv"
            || (base == "cp" && p.has(&["-r", "-R", "-a", "--recursive", "--archive"]));
        let no_target = p.has(&["-T", "--no-target-directory"]);
        let target_dir = p.value(&["-t", "--target-directory"]).cloned();
        let (mut sources, mut dest, mut dest_is_dir): (Vec<Arg>, Option<Arg>, bool) =
            match target_dir {
                Some(dir) => (p.operands.clone(), Some(dir), true),
                None => {
                    let mut ops = p.operands.clone();
                    let dest = ops.pop();
                    let is_dir = !no_target
                        && (ops.len() > 1 || dest.as_ref().is_some_and(|d| d.text.ends_with('/')));
                    (ops, dest, is_dir)
                }
            };
        if sources.is_empty() && base == "ln" {
            // `ln -s target` links into the current directory.
            sources = dest.take().into_iter().collect();
            dest = Some(Arg::lit("."));
            dest_is_dir = true;
        }
        let Some(dest) = dest else {
            return Continue(());
        };
        let what = base.to_owned();
        if base == "mv" {
            for source in &sources {
                self.check_write(source, WriteMode::Delete, shell, frame, "mv")?;
            }
        }
        if symbolic || hard {
            for source in &sources {
                self.link_target(&what, source, &dest, dest_is_dir, symbolic, shell, frame)?;
            }
            // A link named like a directory that holds protected paths (`.claude`, `.git`)
            // puts whatever it points to in their place.
            if !dest_is_dir
                && let Ok(dest_abs) = self.target_path(shell, &dest)
                && self.holds_protected(&dest_abs)
            {
                return self.deny(
                    frame,
                    RuleId::ProtectedPath,
                    format!(
                        "{what} `{}`: a link there stands in for protected paths",
                        dest.text
                    ),
                );
            }
        }
        if !dest_is_dir {
            if symbolic || hard {
                self.check_write_here(&dest, WriteMode::Clobber, shell, frame, &what)?;
            } else {
                self.check_write(&dest, WriteMode::Clobber, shell, frame, &what)?;
            }
        }
        // The destination may be a directory: check where each source lands.
        let dest_dir_tracked = dest_is_dir
            || self
                .target_path(shell, &dest)
                .is_ok_and(|d| self.is_tracked_path(&d).1);
        let mut moved_tracked = 0usize;
        for source in &sources {
            // `dir/.` copies what `dir` holds into the destination itself, and so does
            // `-T` (no target directory): the tree lands ON the destination.
            let contents = (no_target && recursive)
                || source.is(".")
                || source.is("..")
                || source.text.ends_with("/.")
                || source.text.ends_with("/..");
            let name = last_component(&source.text);
            let inside = Arg {
                text: format!("{}/{name}", dest.text.trim_end_matches('/')),
                known: dest.known && source.known,
                glob: dest.glob || source.glob,
            };
            if dest_dir_tracked && !contents {
                self.check_write(&inside, WriteMode::Clobber, shell, frame, &what)?;
            }
            // Where the tree may land: in the destination (a directory) or as it.
            let landings: Vec<&Arg> = if contents {
                vec![&dest]
            } else if dest_is_dir || dest_dir_tracked {
                // A directory that exists (it holds tracked files) or is named as one.
                vec![&inside]
            } else {
                vec![&dest, &inside]
            };
            let mut counted = false;
            for landed in landings {
                let Ok(landed_abs) = self.target_path(shell, landed) else {
                    continue;
                };
                if recursive {
                    self.tree_landing(&what, source, landed, &landed_abs, contents, frame)?;
                    // A tree landing outside the repository (`cp -r src/. ../other/`, `rsync -a
                    // src/ ../other/`) writes files no checkpoint holds.
                    if !self.in_repo(&landed_abs)
                        && let Some((rule, why)) = self.judge_path(&landed_abs, WriteMode::Clobber)
                    {
                        return self.deny(
                            frame,
                            rule,
                            format!("{what} `{}` to `{}`: {why}", source.text, landed.text),
                        );
                    }
                }
                if base == "mv" && source.known && !source.glob {
                    let removable = self.removable(&landed_abs) || landed_abs.starts_with("/dev/");
                    let leaves = !self.in_repo(&landed_abs);
                    if (removable || leaves)
                        && let Ok(src) = self.target_path(shell, source)
                        && self.in_repo(&src)
                    {
                        let (file, under) = self.is_tracked_path(&src);
                        if under && leaves {
                            return self.deny(
                                frame,
                                RuleId::RecursiveDelete,
                                format!(
                                    "mv `{}` to `{}`: it holds tracked files, and moving it out of the repository deletes them from the work tree; use `git mv` within the repository, or `git rm -r` (the removal is staged and can be reviewed)",
                                    source.text, landed.text
                                ),
                            );
                        }
                        if under {
                            return self.deny(
                                frame,
                                RuleId::RecursiveDelete,
                                format!(
                                    "mv `{}` to `{}`: it holds tracked files, and there (a build output or temp location) it could be removed as a whole; move it elsewhere",
                                    source.text, landed.text
                                ),
                            );
                        }
                        if file && !counted {
                            moved_tracked += 1;
                            counted = true;
                        }
                    }
                }
            }
        }
        if moved_tracked > 1 {
            self.deny(
                frame,
                RuleId::DestructiveShell,
                "mv of more than one tracked file out of the repository or into a build output or temp location; use `git rm` or `git mv`",
            )?;
        }
        Continue(())
    }

    /// Judges a directory tree copied or moved to `landed_abs`.
    fn tree_landing(
        &mut self,
        what: &str,
        source: &Arg,
        landed: &Arg,
        landed_abs: &str,
        contents: bool,
        frame: &Frame,
    ) -> Judged {
        if self.holds_protected(landed_abs) {
            return self.deny(
                frame,
                RuleId::ProtectedPath,
                format!(
                    "{what} `{}` to `{}`: the tree lands in a protected path",
                    source.text, landed.text
                ),
            );
        }
        if !self.in_repo(landed_abs) || self.removable(landed_abs) {
            return Continue(());
        }
        if contents && self.is_tracked_path(landed_abs).1 {
            return self.deny(
                frame,
                RuleId::NotStatic,
                format!(
                    "{what} `{}` to `{}` copies an unknown set of files over a directory with tracked files; they may overwrite tracked or protected files (copy named files, or into a new directory)",
                    source.text, landed.text
                ),
            );
        }
        if what == "cp" && self.is_tracked_path(landed_abs).1 {
            self.deny(
                frame,
                RuleId::Clobber,
                format!(
                    "cp -r `{}` to `{}` copies a tree over tracked files; copy named files instead",
                    source.text, landed.text
                ),
            )?;
        }
        Continue(())
    }

    /// Judges the target of a link (`ln`, `cp -s`, `cp -l`): a link to a protected path, a
    /// tracked file, the repository or a directory that holds it lets a later command write
    /// or delete it through the link.
    #[allow(clippy::too_many_arguments)]
    fn link_target(
        &mut self,
        what: &str,
        target: &Arg,
        dest: &Arg,
        dest_is_dir: bool,
        symbolic: bool,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        // A glob links to what it matches, all of it under its literal directory: judged as a
        // link to that directory (nothing protected, tracked or anchored in it), the most a
        // match can reach (`ln -s .venv/lib/python*/site-packages/x x`).
        if let Some(dir) = target
            .known
            .then_some(())
            .and(target.glob.then_some(()))
            .and_then(|()| glob_directory(&target.text))
        {
            return self.link_target(
                what,
                &Arg::lit(dir),
                dest,
                dest_is_dir,
                symbolic,
                shell,
                frame,
            );
        }
        if !target.known || target.glob {
            return self.deny(
                frame,
                RuleId::NotStatic,
                format!(
                    "{what}: a link to `{}`, which is not statically known",
                    target.text
                ),
            );
        }
        let mut candidates: Vec<String> = Vec::new();
        if let Some(abs) = self.resolve(shell, &target.text) {
            candidates.push(abs);
        }
        // A relative symbolic link is resolved from the link's own directory.
        if symbolic
            && !target.text.starts_with('/')
            && let Ok(dest_abs) = self.target_path(shell, dest)
        {
            let dir = if dest_is_dir {
                dest_abs
            } else {
                split_parent(&dest_abs).map_or_else(|| "/".to_owned(), |(p, _)| p.to_owned())
            };
            candidates.push(normalize(&dir, &target.text));
        }
        if candidates.is_empty() {
            return self.deny(
                frame,
                RuleId::NotStatic,
                format!(
                    "{what}: a link to `{}`, relative to a directory that is not statically known",
                    target.text
                ),
            );
        }
        let mut all = Vec::new();
        for c in candidates {
            match self.unalias(shell, &c) {
                Ok(Some(p)) => {
                    all.extend(self.real_path(&p, true));
                    all.push(p);
                }
                Ok(None) => {}
                Err(why) => {
                    return self.deny(frame, RuleId::NotStatic, format!("{what}: a link to {why}"));
                }
            }
        }
        for abs in all {
            let refusal = if self.holds_protected(&abs) {
                Some((RuleId::ProtectedPath, "a protected path".to_owned()))
            } else if let Some(place) = self.holds_anchor(&abs) {
                Some((
                    RuleId::DestructiveShell,
                    format!("{place} or a directory that holds it"),
                ))
            } else if self.in_repo(&abs) && !self.removable(&abs) {
                let (file, under) = self.is_tracked_path(&abs);
                // A symbolic link to a tracked file is no write to it (writes through it are
                // judged where it leads, by the filesystem view or as made in this line); a
                // hard link is the file itself, and a link to a tree lets `rm -r` reach it.
                (under || (file && !symbolic)).then(|| {
                    (
                        RuleId::Clobber,
                        "a tracked file or a directory with tracked files".to_owned(),
                    )
                })
            } else {
                None
            };
            if let Some((rule, kind)) = refusal {
                return self.deny(
                    frame,
                    rule,
                    format!(
                        "{what}: a link to `{}` ({kind}) lets later commands write or delete it through the link; work on it by its own name",
                        target.text
                    ),
                );
            }
        }
        Continue(())
    }

    /// Like [`Self::check_extract`], for an extractor that keeps every member inside the
    /// destination (`confined`: GNU tar and bsdtar without `-P`, unzip without `-:` strip
    /// leading `/` and `../`, and do not write through symbolic links they extracted): a
    /// named subdirectory of the repository that is not the root, holds no tracked file and
    /// no protected path, and is not inside one (`tests/fixtures`), may receive it.
    pub(crate) fn check_extract_into(
        &mut self,
        what: &str,
        dir: Option<&Arg>,
        confined: bool,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        if confined
            && let Some(arg) = dir
            && self.fresh_subdirectory(shell, arg)
        {
            return Continue(());
        }
        self.check_extract(what, dir, shell, frame)
    }

    /// Whether `arg` names a subdirectory of the repository (not the root) that is neither
    /// tracked nor holds tracked files, is not protected nor holds protected paths, where it
    /// is written and where it leads.
    fn fresh_subdirectory(&self, shell: &Shell, arg: &Arg) -> bool {
        let Ok(absolute) = self.target_path(shell, arg) else {
            return false;
        };
        let Ok(Some(absolute)) = self.unalias(shell, &absolute) else {
            return false;
        };
        let real = self.real_path(&absolute, true);
        std::iter::once(absolute).chain(real).all(|place| {
            let Some(root) = self.anchors.repo_root.as_deref() else {
                return false;
            };
            let (file, under) = self.is_tracked_path(&place);
            matches!(relative_to(&place, root), Some(rel) if !rel.is_empty())
                && !file
                && !under
                && !self.holds_protected(&place)
                && self.holds_anchor(&place).is_none()
        })
    }

    /// Judges an extraction of an archive (files the guard cannot list) into `dir` (`None`:
    /// the current directory).
    pub(crate) fn check_extract(
        &mut self,
        what: &str,
        dir: Option<&Arg>,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let absolute = match dir {
            Some(arg) => match self.target_path(shell, arg) {
                Ok(p) => p,
                Err(why) => {
                    return self.deny(
                        frame,
                        RuleId::NotStatic,
                        format!("{what} extracts into {why}"),
                    );
                }
            },
            None => match shell.cwd.clone() {
                Some(cwd) => cwd,
                None => {
                    return self.deny(
                        frame,
                        RuleId::NotStatic,
                        format!("{what} extracts into the current directory, which is not statically known"),
                    );
                }
            },
        };
        let absolute = match self.unalias(shell, &absolute) {
            Ok(Some(p)) => p,
            Ok(None) | Err(_) => {
                return self.deny(
                    frame,
                    RuleId::NotStatic,
                    format!("{what} extracts into `{absolute}`, which the guard cannot see"),
                );
            }
        };
        let real = self.real_path(&absolute, true);
        for place in std::iter::once(absolute.clone()).chain(real) {
            // The system's directories (`tar -xzf x.tgz -C /usr/local/bin`): what a write there
            // would be refused for.
            if !self.in_repo(&place)
                && let Some((rule @ RuleId::Persist, why)) =
                    self.judge_path(&place, WriteMode::Clobber)
            {
                return self.deny(
                    frame,
                    rule,
                    format!("{what} extracts into `{place}`: {why}"),
                );
            }
            let bad = self.holds_anchor(&place).is_some()
                || self.holds_protected(&place)
                || (self.in_repo(&place) && !self.removable(&place));
            if bad {
                return self.deny(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "{what} writes the archive's files, which the guard cannot list, into `{place}`: they may overwrite tracked or protected files; extract into /tmp or a build directory (tar -C, unzip -d) and copy what you need"
                    ),
                );
            }
            // Any other place outside the repository that is not a temporary directory or a
            // cache (`-C ../other`): the files land where no checkpoint holds them.
            if !self.in_repo(&place)
                && let Some((rule, why)) = self.judge_path(&place, WriteMode::Clobber)
            {
                return self.deny(
                    frame,
                    rule,
                    format!("{what} extracts into `{place}`: {why}"),
                );
            }
        }
        Continue(())
    }

    fn patch(&mut self, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let args = canon_long(args, PATCH_LONGS);
        let p = rules::parse(
            &args,
            &Spec {
                short_values: "BDFgiopdrVYz",
                long_values: &[
                    "--input",
                    "--output",
                    "--strip",
                    "--directory",
                    "--reject-file",
                    "--prefix",
                    "--suffix",
                    "--ifdef",
                    "--fuzz",
                    "--get",
                    "--version-control",
                    "--basename-prefix",
                    "--quoting-style",
                    "--read-only",
                    "--reject-format",
                ],
                stop_at_operand: false,
            },
        );
        if p.has(&["--dry-run", "--help", "--version", "-v"]) {
            return Continue(());
        }
        if let Some(reject) = p.value(&["-r", "--reject-file"]).cloned()
            && reject.text != "-"
        {
            self.check_write(&reject, WriteMode::Clobber, shell, frame, "patch -r")?;
        }
        if let Some(out) = p.value(&["-o", "--output"]).cloned() {
            if out.text != "-" {
                self.check_write(&out, WriteMode::Clobber, shell, frame, "patch -o")?;
            }
            return Continue(());
        }
        match p.operands.first() {
            Some(file) => {
                let file = match p.value(&["-d", "--directory"]) {
                    Some(dir) if !file.text.starts_with('/') => Arg {
                        text: format!("{}/{}", dir.text, file.text),
                        known: dir.known && file.known,
                        glob: dir.glob || file.glob,
                    },
                    _ => file.clone(),
                };
                self.check_write(&file, WriteMode::Modify, shell, frame, "patch")?;
            }
            None => self.deny(
                frame,
                RuleId::NotStatic,
                "patch writes (and may create or delete) the files its diff names, which the guard cannot read; name the file to patch (`patch FILE < DIFF`) or use --dry-run",
            )?,
        }
        Continue(())
    }

    /// Judges a copier (`cp`, `mv`, `install`, `ln`, `rsync`): what it overwrites, moves away
    /// and deletes, and rsync's remote shell (`code_args`: a descriptor operand read as `-`).
    pub(crate) fn copier(
        &mut self,
        base: &str,
        args: &[Arg],
        code_args: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if base == "rsync" {
            self.rsync_runs(code_args, shell, frame)?;
            self.rsync_files(args, shell, frame)?;
        } else {
            self.copy_like(base, args, shell, frame)?;
        }
        Continue(())
    }

    fn rsync_runs(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            let text = arg.text.as_str();
            if text == "--" {
                break;
            }
            if let Some(long) = text.strip_prefix("--") {
                let (name, inline) = match long.split_once('=') {
                    Some((n, v)) => (
                        n,
                        Some(Arg {
                            text: v.to_owned(),
                            ..arg.clone()
                        }),
                    ),
                    None => (long, None),
                };
                let value = |index: &mut usize| inline.clone().or_else(|| next_arg(args, index));
                match name {
                    "rsh" => {
                        let v = value(&mut index);
                        self.walk_shell_arg("rsync --rsh", v.as_ref(), shell, frame)?;
                    }
                    "rsync-path" | "remote-option" => self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("rsync --{name} runs a command on a remote host; the guard cannot see what it does there"),
                    )?,
                    _ => {}
                }
                continue;
            }
            if text.starts_with('-') && text.len() > 1 {
                match rules::cluster_value(arg, "eBfTM", args, &mut index) {
                    Some(('e', value)) => {
                        self.walk_shell_arg("rsync -e", value.as_ref(), shell, frame)?
                    }
                    Some(('M', _)) => self.deny(
                        frame,
                        RuleId::Interpreter,
                        "rsync -M passes options to the remote rsync; the guard cannot see what it does there",
                    )?,
                    _ => {}
                }
            }
        }
        Continue(())
    }

    fn rsync_files(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "eBfTM",
                long_values: &["--rsh", "--filter", "--exclude", "--include", "--temp-dir"],
                stop_at_operand: false,
            },
        );
        let deletes = p.opts.iter().any(|o| o.name.starts_with("--del"));
        let removes_sources = p.opts.iter().any(|o| o.name.starts_with("--remove-s"));
        let recursive = p.has(&["-r", "-a", "--recursive", "--archive"]);
        let mut operands = p.operands.clone();
        let dest = operands.pop();
        if deletes && let Some(dest) = &dest {
            self.only_in_allowance(shell, dest, frame, "rsync --delete into")?;
        }
        // What lands where, like cp: `src/` copies what src holds (`src/.`); remote ends
        // (`host:path`) are not local files.
        let remote = |a: &Arg| {
            a.text
                .split_once(':')
                .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'))
        };
        if let Some(dest) = &dest
            && !remote(dest)
            && !operands.is_empty()
        {
            let mut argv: Vec<Arg> = Vec::new();
            if recursive {
                argv.push(Arg::lit("-r"));
            }
            argv.push(Arg::lit("--"));
            for source in operands.iter().filter(|a| !remote(a)) {
                let mut source = source.clone();
                if source.text.ends_with('/') {
                    source.text.push('.');
                }
                argv.push(source);
            }
            argv.push(dest.clone());
            self.copy_like("cp", &argv, shell, frame)?;
        }
        if removes_sources {
            self.delete_operands(
                "rsync --remove-source-files",
                &operands,
                recursive,
                shell,
                frame,
            )?;
        }
        Continue(())
    }

    fn cmake(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        if !args.first().is_some_and(|a| a.is("-E")) {
            return Continue(());
        }
        let Some(tool) = args.get(1).and_then(Arg::exact) else {
            return self.deny(
                frame,
                RuleId::NotStatic,
                "cmake -E with a command that is not statically known",
            );
        };
        let rest = &args[2..];
        match tool {
            "rm" | "remove" => self.rm_as("cmake -E rm", rest, shell, frame)?,
            "remove_directory" => {
                let mut argv = vec![Arg::lit("-r"), Arg::lit("--")];
                argv.extend(rest.iter().cloned());
                self.rm_as("cmake -E remove_directory", &argv, shell, frame)?;
            }
            "rename" => self.copy_like("mv", rest, shell, frame)?,
            "copy" | "copy_if_different" => self.copy_like("cp", rest, shell, frame)?,
            "copy_directory" | "copy_directory_if_different" => {
                let mut argv = vec![Arg::lit("-r")];
                argv.extend(rest.iter().cloned());
                self.copy_like("cp", &argv, shell, frame)?;
            }
            "create_symlink" => {
                let mut argv = vec![Arg::lit("-s")];
                argv.extend(rest.iter().cloned());
                self.copy_like("ln", &argv, shell, frame)?;
            }
            "create_hardlink" => self.copy_like("ln", rest, shell, frame)?,
            "tar" => self.tar_files("cmake -E tar", rest, shell, frame)?,
            "touch" | "touch_nocreate" | "make_directory" => {
                for arg in rest {
                    self.check_write(arg, WriteMode::Modify, shell, frame, "cmake -E touch")?;
                }
            }
            _ => {}
        }
        Continue(())
    }

    /// `gzip FILE` replaces FILE by FILE.gz: the input is removed unless kept or written to
    /// stdout; a decompression writes the name without its suffix.
    fn compress(
        &mut self,
        base: &str,
        args: &[Arg],
        decompresses: bool,
        keeps: bool,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let args = canon_long(args, COMPRESSOR_LONGS);
        let p = rules::parse(
            &args,
            &Spec {
                short_values: if matches!(base, "zstd" | "unzstd" | "brotli") {
                    "So"
                } else {
                    "S"
                },
                long_values: &["--suffix", "--output"],
                stop_at_operand: false,
            },
        );
        if p.has(&[
            "-h",
            "--help",
            "-V",
            "--version",
            "-L",
            "--license",
            "-t",
            "--test",
            "-l",
            "--list",
        ]) {
            return Continue(());
        }
        if let Some(out) = p.value(&["-o", "--output"]).cloned() {
            self.check_write(&out, WriteMode::Clobber, shell, frame, base)?;
        }
        let to_stdout = p.has(&["-c", "--stdout", "--to-stdout"]);
        let operands: Vec<Arg> = p
            .operands
            .iter()
            .filter(|a| a.text != "-")
            .cloned()
            .collect();
        if to_stdout || operands.is_empty() {
            return Continue(());
        }
        let removes = if keeps {
            p.has(&["--rm"]) || (base == "brotli" && p.has(&["-j"]))
        } else {
            !p.has(&["-k", "--keep"])
        };
        let recursive = p.has(&["-r", "--recursive"]);
        if removes {
            self.delete_operands(base, &operands, recursive, shell, frame)?;
        }
        if (decompresses || p.has(&["-d", "--decompress", "--uncompress"])) && !recursive {
            for op in operands.iter().filter(|o| o.known && !o.glob) {
                if let Some((stem, _)) = op.text.rsplit_once('.')
                    && !stem.is_empty()
                    && !stem.ends_with('/')
                {
                    let out = Arg::lit(stem);
                    self.check_write(
                        &out,
                        WriteMode::Clobber,
                        shell,
                        frame,
                        &format!("{base} (output file)"),
                    )?;
                }
            }
        }
        Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::glob_prefix;

    #[test]
    fn glob_prefix_is_the_fixed_directory() {
        assert_eq!(glob_prefix("target/*"), "target");
        assert_eq!(glob_prefix("*"), ".");
        assert_eq!(glob_prefix("/tmp/x*"), "/tmp");
        assert_eq!(glob_prefix("/*"), "/");
    }
}
