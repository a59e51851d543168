//! pawl's own machinery, which nothing protects in a session but this rule (`tamper`) and the
//! agent CLI's own permissions: pawl's store and session marker, its state outside the
//! repository (the key that authenticates the store), and the pawl binary the hooks run.
//!
//! Writing, moving or deleting these paths is `protected-path` (they are protected paths too).
//! This rule adds what a write check cannot see: a program that *opens* them (`sqlite3`,
//! `python3 -c "sqlite3.connect(...)"`, a script file that names them), copies or links them
//! (`cp "$(which pawl)" p`), or reads the key. Each kind of path has a row of the programs
//! that may name it (they only read it, or only tell facts about it); every other program
//! that names one is denied. Code (interpreter one-liners, database clients' arguments, the
//! text of script files an interpreter runs) is searched for the paths' names as text, so a
//! path inside a URL or built from a directory literal still counts.
//!
//! Not here: the git side of reaching pawl (stashing or force-adding `.pawl/`, git settings
//! that run programs later: `rules/git.rs`), and pawl run by the agent (`rules/pawl.rs`).

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::paths::{self, normalize};
use crate::policy::{CompiledPolicy, PawlPathKind};
use crate::walk::Judged;
use crate::walk::{Cmd, Frame, Shell, Walker};
use crate::words::Arg;

/// Programs that look at files without being able to change or hand them on: they may name
/// pawl's paths of every kind.
const FACTS: &[&str] = &[
    "ls", "stat", "test", "[", "[[", "du", "file", "realpath", "readlink", "basename", "dirname",
    "echo", "printf", "cd", "pushd", "type", "which", "whereis", "command",
];

/// Which programs may name a pawl path of each kind, beyond [`FACTS`].
const MAY_NAME: &[(PawlPathKind, &[&str])] = &[
    // The store and the marker: reading them changes nothing (writing is `protected-path`).
    (
        PawlPathKind::Store,
        &[
            "pawl",
            "cat",
            "head",
            "tail",
            "less",
            "more",
            "wc",
            "md5sum",
            "sha1sum",
            "sha256sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "xxd",
            "od",
            "hexdump",
            "strings",
            "cmp",
            "diff",
            "grep",
            "egrep",
            "fgrep",
            "rg",
            "jq",
        ],
    ),
    // The key: its bytes are the secret; only facts about it.
    (PawlPathKind::Secret, &["pawl"]),
    // The binary: a checksum is a fact; a copy is a pawl under another name.
    (
        PawlPathKind::Binary,
        &[
            "md5sum",
            "sha1sum",
            "sha256sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "ldd",
        ],
    ),
];

/// Programs whose arguments are code or queries: their text is searched for pawl's paths.
const CODE_ARGS: &[&str] = &[
    "sqlite3",
    "sqlite",
    "duckdb",
    "litecli",
    "sqlite-utils",
    "datasette",
];

/// Programs that copy or archive a directory with everything under it: naming a directory that
/// holds pawl's user state hands the key on.
const TREE_COPIERS: &[&str] = &[
    "cp", "rsync", "scp", "tar", "bsdtar", "zip", "7z", "7za", "cpio", "pax", "ditto", "rclone",
];

/// Text that names pawl's store in code even where no whole path is written
/// (`os.chdir(".pawl"); sqlite3.connect("pawl.db")`, `sqlite:///.pawl/pawl.db`).
const CODE_NEEDLES: &[&str] = &["pawl.db", ".pawl/"];

impl Walker<'_> {
    /// The kind of pawl path `absolute` is, as written or where it leads through a link.
    pub(crate) fn pawl_path_kind(&self, absolute: &str) -> Option<PawlPathKind> {
        let kind = |p: &str| self.policy.pawl_path(&self.anchors.forms(p));
        kind(absolute).or_else(|| {
            self.ctx
                .fs
                .resolve_links(absolute)
                .map(|real| normalize("/", &real))
                .filter(|real| real != absolute)
                .and_then(|real| kind(&real))
        })
    }

    /// Whether the command name `name` (a path) is the pawl binary the hooks run, under
    /// whatever name it is called.
    pub(crate) fn is_pawl_binary(&self, name: &str, shell: &Shell) -> bool {
        name.contains('/')
            && self
                .resolve(shell, name)
                .is_some_and(|abs| self.pawl_path_kind(&abs) == Some(PawlPathKind::Binary))
    }

    /// Judges every word of one simple command that names one of pawl's paths.
    pub(crate) fn reach(&mut self, cmd: &Cmd, base: &str, shell: &Shell, frame: &Frame) -> Judged {
        let allowed = |kind: PawlPathKind| {
            FACTS.contains(&base)
                || MAY_NAME
                    .iter()
                    .any(|(k, names)| *k == kind && names.contains(&base))
        };
        if FACTS.contains(&base) {
            return Continue(());
        }
        let code = CODE_ARGS.contains(&base);
        let copier = TREE_COPIERS.contains(&base) && copies_out(base, &cmd.argv[1..]);
        // A copier's destination is written, not read: it may be HOME (`cp -r dist ~/`).
        let destination = matches!(base, "cp" | "rsync" | "scp" | "ditto" | "rclone")
            .then(|| {
                cmd.argv
                    .iter()
                    .skip(1)
                    .rposition(|a| !a.text.starts_with('-'))
                    .map(|i| i + 1)
            })
            .flatten();
        for (at, arg) in cmd.argv.iter().enumerate().skip(1) {
            if !arg.known {
                continue;
            }
            if code && let Some(needle) = self.code_needle(&arg.text, shell) {
                return self.tamper(
                    frame,
                    format!("`{base}` is given `{needle}`, pawl's own store"),
                );
            }
            for candidate in candidates(&arg.text) {
                let Some(kind) = self.named_pawl_path(candidate, arg.glob, shell) else {
                    if copier && Some(at) != destination && self.holds_pawl_secret(candidate, shell)
                    {
                        return self.tamper(
                            frame,
                            format!(
                                "`{base} {candidate}` would copy pawl's user state (the key that authenticates its store) with the rest"
                            ),
                        );
                    }
                    continue;
                };
                if allowed(kind) {
                    continue;
                }
                let what = match kind {
                    PawlPathKind::Store => "pawl's store (the run's limits, evidence and state)",
                    PawlPathKind::Secret => {
                        "pawl's user state (the key that authenticates its store)"
                    }
                    PawlPathKind::Binary => "the pawl binary the hooks run",
                };
                return self.tamper(
                    frame,
                    format!("`{base}` names `{candidate}`, {what}; only pawl uses it"),
                );
            }
        }
        Continue(())
    }

    /// Judges code (an interpreter one-liner's string literals, a script's text) for pawl's
    /// paths written in it. `as_paths`: each text may also be a whole path (string literals;
    /// not a script's text).
    pub(crate) fn reach_in_code<'t>(
        &mut self,
        what: &str,
        texts: impl IntoIterator<Item = &'t str>,
        as_paths: bool,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        for text in texts {
            let hit = if as_paths {
                self.code_needle(text, shell)
            } else {
                self.text_needle(text)
            };
            if let Some(needle) = hit {
                return self.tamper(
                    frame,
                    format!("{what} names `{needle}`, pawl's own files; only pawl opens them"),
                );
            }
        }
        Continue(())
    }

    /// The piece of `text` that names one of pawl's paths, read as code: a needle anywhere in
    /// it, the `.pawl` directory, or the whole text as a path.
    fn code_needle(&self, text: &str, shell: &Shell) -> Option<String> {
        if let Some(n) = self.text_needle(text) {
            return Some(n);
        }
        let trimmed = text.trim();
        if trimmed == ".pawl" || trimmed.ends_with("/.pawl") {
            return Some(trimmed.to_owned());
        }
        if trimmed.len() <= 4096
            && !trimmed.contains('\n')
            && self
                .resolve(shell, trimmed)
                .is_some_and(|abs| self.pawl_path_kind(&abs).is_some())
        {
            return Some(trimmed.to_owned());
        }
        None
    }

    /// The name of one of pawl's paths written anywhere in `text`.
    fn text_needle(&self, text: &str) -> Option<String> {
        if let Some(n) = CODE_NEEDLES.iter().find(|n| text.contains(*n)) {
            return Some((*n).to_owned());
        }
        self.path_needles().into_iter().find(|n| text.contains(n))
    }

    /// The literal part of each pawl path that has no wildcard in it (the state directory,
    /// the binary), as text to look for in code.
    fn path_needles(&self) -> Vec<String> {
        self.policy
            .policy
            .pawl_paths
            .iter()
            .filter(|p| !p.glob.starts_with("**/"))
            .filter_map(|p| {
                let g = p.glob.trim_end_matches("/**");
                let g = g.strip_prefix("~/").unwrap_or(g);
                let cut = g.find(['*', '?', '[', '{']).unwrap_or(g.len());
                let lit = g[..cut].trim_end_matches('/');
                (lit.len() >= 8).then(|| lit.to_owned())
            })
            .collect()
    }

    /// The kind of pawl path `text` names as a path (a glob counts when it may match one).
    fn named_pawl_path(&self, text: &str, glob: bool, shell: &Shell) -> Option<PawlPathKind> {
        if text.is_empty() || text.starts_with('-') {
            return None;
        }
        let abs = self.resolve(shell, text)?;
        if glob {
            return self.glob_reaches(&abs, self.dotglob_maybe(shell));
        }
        // A word with neither `/` nor `.` (`test`, `status`) is taken as written: only a
        // path-like word is followed through links (the filesystem is asked lazily).
        if text.contains(['/', '.']) {
            self.pawl_path_kind(&abs)
        } else {
            self.policy.pawl_path(&self.anchors.forms(&abs))
        }
    }

    /// The kind of pawl path a glob argument (resolved to an absolute glob) may expand to.
    /// Without `dotglob` (`dotglob`: it may be on) a wildcard does not match a name's leading
    /// dot, so a glob none of whose components starts with `.` (or a bracket, a brace, an
    /// escape, or holds an extended pattern, which may stand for one) expands to no path with
    /// a dot-led component: not to `.pawl/` or `~/.local/state/pawl`
    /// (`mv /tmp/out/**/* bin/` names neither).
    fn glob_reaches(&self, abs_glob: &str, dotglob: bool) -> Option<PawlPathKind> {
        let home = self.anchors.home.as_deref();
        let root = self.anchors.repo_root.as_deref();
        let dotless = !dotglob
            && !abs_glob
                .split('/')
                .any(|c| c.starts_with(['.', '[', '{', '\\']) || c.contains('('));
        self.policy.policy.pawl_paths.iter().find_map(|p| {
            let g = p.glob.as_str();
            let absolute = if let Some(rest) = g.strip_prefix("~/") {
                format!("{}/{rest}", home?.trim_end_matches('/'))
            } else if let Some(rest) = g.strip_prefix("**/") {
                format!("/**/{rest}")
            } else if g.starts_with('/') {
                g.to_owned()
            } else {
                format!("{}/{g}", root?.trim_end_matches('/'))
            };
            if dotless && absolute.split('/').any(|c| c.starts_with('.')) {
                return None;
            }
            paths::globs_may_overlap(abs_glob, &absolute).then_some(p.kind)
        })
    }

    /// Whether `text` names a directory that holds pawl's user state (`~`, `~/.local`,
    /// `~/.local/state`): copying it copies the key.
    fn holds_pawl_secret(&self, text: &str, shell: &Shell) -> bool {
        if text.is_empty() || text.starts_with('-') {
            return false;
        }
        let Some(abs) = self.resolve(shell, text) else {
            return false;
        };
        let abs = abs.trim_end_matches('/');
        let home = self.anchors.home.as_deref();
        self.policy
            .policy
            .pawl_paths
            .iter()
            .filter(|p| p.kind == PawlPathKind::Secret)
            .filter_map(|p| {
                let g = p.glob.trim_end_matches("/**");
                let g = match g.strip_prefix("~/") {
                    Some(rest) => format!("{}/{rest}", home?.trim_end_matches('/')),
                    None => g.to_owned(),
                };
                (g.starts_with('/') && !paths::has_wildcard(&g)).then_some(g)
            })
            .any(|secret| abs.is_empty() || paths::is_within(&secret, abs) && secret != abs)
    }

    pub(crate) fn tamper(&mut self, frame: &Frame, reason: impl Into<String>) -> Judged {
        self.deny(frame, RuleId::Tamper, reason)
    }
}

/// A path to the pawl binary when the policy names one without wildcards: what `$(which pawl)`
/// prints, as far as the guard is concerned.
pub(crate) fn binary_path(policy: &CompiledPolicy) -> Option<String> {
    policy
        .policy
        .pawl_paths
        .iter()
        .filter(|p| p.kind == PawlPathKind::Binary)
        .map(|p| p.glob.as_str())
        .find(|g| g.starts_with('/') && !paths::has_wildcard(g))
        .map(str::to_owned)
}

/// Whether a tree copier copies its operands somewhere (tar and friends also extract, list
/// and compare, which hand nothing on).
fn copies_out(base: &str, args: &[Arg]) -> bool {
    if !matches!(base, "tar" | "bsdtar" | "cpio" | "pax") {
        return true;
    }
    let creating = |t: &str| matches!(t, "--create" | "--append" | "--update" | "-o" | "-w");
    args.iter().enumerate().any(|(i, a)| {
        let t = a.text.as_str();
        creating(t)
            || (t.starts_with('-') && !t.starts_with("--") && t[1..].contains(['c', 'r', 'u']))
            // Old-style `tar czf x.tgz dir`: the first word's letters without a dash.
            || (i == 0 && !t.starts_with('-') && matches!(base, "tar" | "bsdtar") && t.contains(['c', 'r', 'u']))
    })
}

/// The texts of one argument that may be paths: the word, and the value of `--opt=value` or
/// `key=value` (`dd of=...`).
fn candidates(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    if !text.starts_with('-') {
        out.push(text);
    }
    if let Some((_, value)) = text.split_once('=') {
        out.push(value);
    }
    out
}

/// An interpreter's script operand whose text names pawl's paths is code that reaches them.
impl Walker<'_> {
    pub(crate) fn reach_in_script_file(
        &mut self,
        base: &str,
        operand: &Arg,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let Some(path) = operand.exact().and_then(|t| self.resolve(shell, t)) else {
            return Continue(());
        };
        // A FIFO, socket or device (not `/dev/fd/N` and the like, which name the line's own
        // descriptors): its code is whatever a writer sends, read neither here nor by anyone.
        if !["/dev/", "/proc/", "/sys/"]
            .iter()
            .any(|p| path.starts_with(p))
            && let Some(what) = self.not_a_regular_file(&path)
        {
            return self.deny(
                frame,
                RuleId::NotStatic,
                format!(
                    "{base} runs `{}`, {what}: the code is whatever is written into it, which the guard cannot read; run a regular file",
                    operand.text
                ),
            );
        }
        let text = match self.read_file(&path) {
            Ok(Some(text)) => text,
            Ok(None) => return Continue(()),
            // Too long to read: the script stays opaque, as before.
            Err(_) => return Continue(()),
        };
        self.reach_in_code(
            &format!("the script `{}` run by {base}", operand.text),
            [text.as_str()],
            false,
            shell,
            frame,
        )
    }
}
