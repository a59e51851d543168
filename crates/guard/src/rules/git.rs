//! Git rules: every push, commands that discard work, commits or ref moves
//! on a protected branch, and every way git can be made to run a program
//! (config settings given with `-c`, `--config-env`, `GIT_CONFIG_*` or
//! written with `git config`; environment such as `GIT_EDITOR`; options
//! such as `--upload-pack`, `rebase --exec`, `difftool --extcmd`; the
//! `ext::` transport). Programs with a static text are walked as scripts;
//! anything else fails closed.
//!
//! Global options (`-C`, `-c`, `--git-dir`, ...) are read, not skipped: `-C`
//! moves the directory paths are resolved in and decides which worktree
//! (and so which branch) the command acts on. Aliases (from `-c`, from
//! `git config` earlier in the input, or from the context) are expanded
//! before judging; a subcommand that is neither a git command, a known
//! alias nor a listed extension is denied, since git may run an alias the
//! guard cannot see or autocorrect a typo into anything.
//!
//! Long options are matched as git's option parser does: any unambiguous
//! prefix (`--har` is `--hard`).
//!
//! Also here: what changes where pushes go (`git remote add|set-url|...`,
//! `remote.*.url`, `branch.*.remote`, `url.*.insteadOf`, `push.*`); content
//! the guard never saw written entering the repository (patches, plumbing,
//! fetches from a path or URL), which a later stash, merge or checkout would
//! write out; and the forge and other version-control clients (`gh`, `glab`,
//! `hub`, `hg`, `svn`), of which only read-only commands are allowed.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::paths;
use crate::rules::{Opt, Parsed};
use crate::walk::Judged;
use crate::walk::{Branch, Cmd, Frame, Shell, Stdin, Walker, WriteMode};
use crate::words::{self, Arg};

/// Git's own commands (builtins and the programs in its exec path), as of
/// git 2.47. An alias cannot shadow them; anything else may be an alias.
#[rustfmt::skip]
const COMMANDS: &[&str] = &[
    "add", "am", "annotate", "apply", "archimport", "archive", "bisect", "blame", "branch",
    "bugreport", "bundle", "cat-file", "check-attr", "check-ignore", "check-mailmap",
    "check-ref-format", "checkout", "checkout-index", "cherry", "cherry-pick", "citool", "clean",
    "clone", "column", "commit", "commit-graph", "commit-tree", "config", "count-objects",
    "credential", "credential-cache", "credential-cache--daemon", "credential-store",
    "cvsexportcommit", "cvsimport", "cvsserver", "daemon", "describe", "diagnose", "diff",
    "diff-files", "diff-index", "diff-tree", "difftool", "fast-export", "fast-import", "fetch",
    "fetch-pack", "filter-branch", "fmt-merge-msg", "for-each-ref", "for-each-repo",
    "format-patch", "fsck", "fsck-objects", "fsmonitor--daemon", "gc", "get-tar-commit-id", "grep",
    "gui", "hash-object", "help", "hook", "http-backend", "http-fetch", "http-push", "imap-send",
    "index-pack", "init", "init-db", "instaweb", "interpret-trailers", "log", "ls-files",
    "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance", "merge", "merge-base",
    "merge-file", "merge-index", "merge-octopus", "merge-one-file", "merge-ours",
    "merge-recursive", "merge-recursive-ours", "merge-recursive-theirs", "merge-resolve",
    "merge-subtree", "merge-tree", "mergetool", "mktag", "mktree", "multi-pack-index", "mv",
    "name-rev", "notes", "p4", "pack-objects", "pack-redundant", "pack-refs", "patch-id",
    "pickaxe", "prune", "prune-packed", "pull", "push", "quiltimport", "range-diff", "read-tree",
    "rebase", "receive-pack", "reflog", "refs", "remote", "remote-ext", "remote-fd", "remote-ftp",
    "remote-ftps", "remote-http", "remote-https", "repack", "replace", "replay", "request-pull",
    "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "send-email",
    "send-pack", "sh-i18n", "sh-setup", "shell", "shortlog", "show", "show-branch", "show-index",
    "show-ref", "sparse-checkout", "stage", "stash", "status", "stripspace", "submodule",
    "submodule--helper", "subtree", "svn", "switch", "symbolic-ref", "tag", "unpack-file",
    "unpack-objects", "update-index", "update-ref", "update-server-info", "upload-archive",
    "upload-pack", "var", "verify-commit", "verify-pack", "verify-tag", "version", "web--browse",
    "whatchanged", "worktree", "write-tree",
];

/// Well-known git extensions (`git-<name>` programs installed separately)
/// that the guard lets run as `git <name>`, with rules of their own below.
/// Any other unknown subcommand is denied.
#[rustfmt::skip]
const EXTENSIONS: &[&str] = &[
    "lfs", "flow", "absorb", "revise", "filter-repo", "sizer", "cliff", "secrets", "quick-stats",
    "standup", "fame", "open",
];

/// Git commands that only read the work tree: they may run with a work tree
/// other than the repository's (`--work-tree`, `GIT_WORK_TREE`).
#[rustfmt::skip]
const WORK_TREE_READERS: &[&str] = &[
    "status", "diff", "diff-files", "diff-index", "diff-tree", "log", "show", "shortlog",
    "ls-files", "ls-tree", "rev-parse", "rev-list", "grep", "blame", "annotate", "describe",
    "cat-file", "check-ignore", "check-attr", "show-ref", "for-each-ref", "version", "help",
];

/// Environment variables whose value git runs as a shell command.
#[rustfmt::skip]
const PROGRAM_ENV: &[&str] = &[
    "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "EDITOR", "VISUAL", "GIT_PAGER", "PAGER",
    "GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS",
    "GIT_PROXY_COMMAND", "LESSOPEN", "LESSCLOSE", "MANPAGER", "BROWSER",
];

/// Environment variables that point git at configuration files (which may
/// define aliases and programs) the guard cannot read. `/dev/null` is fine.
const CONFIG_SOURCE_ENV: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG",
];

/// Environment variables that make git run programs from a place the guard
/// cannot see.
const OPAQUE_ENV: &[&str] = &["GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_CONFIG_PARAMETERS"];

/// Config sections where a renamed section could define programs or aliases.
#[rustfmt::skip]
const PROGRAM_SECTIONS: &[&str] = &[
    "alias", "core", "include", "includeif", "diff", "merge", "filter", "credential", "pager",
    "sequence", "gpg", "remote", "protocol", "url", "uploadpack", "interactive", "difftool",
    "mergetool", "man", "browser", "trailer", "hook", "submodule", "gc", "init", "sendemail",
];

/// Whether writing (or removing) the config key or section `key` changes
/// where pushes go or what they send: remotes' URLs and push refspecs,
/// a branch's upstream, URL rewrites, the `push.*` settings.
fn redirects_pushes(key: &str, section_only: bool) -> bool {
    let key = key.to_ascii_lowercase();
    let parts: Vec<&str> = key.split('.').collect();
    let section = parts[0];
    if section_only {
        return matches!(section, "remote" | "branch" | "url" | "push");
    }
    let var = parts[parts.len() - 1];
    let sub = parts.len() >= 3;
    match section {
        "push" => true,
        "remote" => {
            key == "remote.pushdefault"
                || (sub && matches!(var, "url" | "pushurl" | "push" | "mirror"))
        }
        "branch" => sub && matches!(var, "remote" | "pushremote" | "merge"),
        "url" => sub && matches!(var, "insteadof" | "pushinsteadof"),
        _ => false,
    }
}

/// Credential helpers shipped with git or in common use, run as
/// `git credential-<name>`.
#[rustfmt::skip]
const CREDENTIAL_HELPERS: &[&str] = &[
    "store", "cache", "osxkeychain", "manager", "manager-core", "libsecret", "gnome-keyring",
    "wincred",
];

/// What a config key does when set.
enum Key {
    /// `alias.<name>` (name lowercased).
    Alias(String),
    /// The value is a shell command git runs.
    Program,
    /// A boolean, or else a command (`pager.<cmd>`, `core.fsmonitor`).
    BoolOrProgram,
    /// `credential.helper`: `!script`, a path, or a helper name.
    Credential,
    /// `submodule.<name>.update`: `!script` runs a command.
    SubmoduleUpdate,
    /// Makes git read files or run programs from a place the guard cannot
    /// see (`include.path`, `core.hooksPath`, `init.templateDir`, ...).
    Opaque,
    /// `protocol.*.allow`: may enable the `ext::` transport.
    Protocol,
    /// A URL (`remote.*.url`) or URL rewrite (`url.*.insteadOf`).
    Url,
    /// `remote.*.fetch`: a refspec that may write a protected branch.
    Refspec,
    /// Makes `gc` prune unreachable objects or reflogs early.
    Prune,
    /// A file git appends to (`trace2.eventTarget`).
    File,
    /// Anything else.
    Harmless,
}

fn classify(key: &str) -> Key {
    let key = key.to_ascii_lowercase();
    let section = key.split('.').next().unwrap_or("");
    let var = key.rsplit('.').next().unwrap_or("");
    let three = key.matches('.').count() >= 2;
    if let Some(name) = key.strip_prefix("alias.") {
        return Key::Alias(name.to_owned());
    }
    match (section, var) {
        ("include", "path") | ("includeif", "path") => return Key::Opaque,
        ("core", "hookspath") | ("init", "templatedir") => return Key::Opaque,
        ("remote", "vcs") => return Key::Opaque,
        ("protocol", "allow") => return Key::Protocol,
        ("url", _) => return Key::Url,
        ("remote", "url" | "pushurl") if three => return Key::Url,
        ("remote", "fetch") if three => return Key::Refspec,
        ("gc", "pruneexpire" | "reflogexpire" | "reflogexpireunreachable") => return Key::Prune,
        ("trace2", "eventtarget" | "normaltarget" | "perftarget") => return Key::File,
        ("credential", "helper") => return Key::Credential,
        ("submodule", "update") if three => return Key::SubmoduleUpdate,
        ("pager", _) if key.contains('.') => return Key::BoolOrProgram,
        ("core", "fsmonitor") => return Key::BoolOrProgram,
        _ => {}
    }
    let program = matches!(
        key.as_str(),
        "core.pager"
            | "core.editor"
            | "core.sshcommand"
            | "core.askpass"
            | "core.gitproxy"
            | "core.alternaterefscommand"
            | "sequence.editor"
            | "diff.external"
            | "gpg.program"
            | "interactive.difffilter"
            | "uploadpack.packobjectshook"
            | "gpg.ssh.defaultkeycommand"
    ) || (three
        && matches!(
            (section, var),
            ("gpg", "program")
                | ("remote", "uploadpack" | "receivepack")
                | ("diff", "command" | "textconv")
                | ("merge", "driver")
                | ("filter", "clean" | "smudge" | "process")
                | ("difftool" | "mergetool" | "man" | "browser", "path")
                | ("trailer" | "hook", "command")
        ))
        || var.ends_with("cmd")
        || var == "textconv";
    if program { Key::Program } else { Key::Harmless }
}

/// Why a setting written into git's configuration (not `-c` for one command) makes git run a
/// program or read files later, in every git command: pawl's own git calls included.
/// Editors, pagers and interactive tools run only when a person drives git, never in pawl's
/// own calls: they stay judged as programs (above) and are not refused as lasting ones.
fn lasting_program(key: &str, value: Option<&str>) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    let section = lower.split('.').next().unwrap_or("");
    let interactive = matches!(
        lower.as_str(),
        "core.editor" | "sequence.editor" | "core.pager" | "interactive.difffilter"
    ) || matches!(
        section,
        "pager" | "difftool" | "mergetool" | "man" | "browser" | "web"
    );
    if interactive {
        return None;
    }
    let shell_alias = |v: Option<&str>| v.is_none_or(|v| v.trim_start().starts_with('!'));
    match classify(key) {
        Key::Program => Some("names a program git runs"),
        Key::BoolOrProgram if !value.is_some_and(is_bool) => Some("names a program git runs"),
        Key::Opaque => Some("makes git run hooks or read settings from elsewhere"),
        Key::Credential if value.is_none_or(|v| v.starts_with('!') || v.contains('/')) => {
            Some("names a program git runs for credentials")
        }
        Key::SubmoduleUpdate if shell_alias(value) => Some("names a command git runs"),
        Key::Alias(_) if shell_alias(value) => Some("defines a shell alias"),
        Key::File => Some("names a file git writes to"),
        _ => None,
    }
}

fn is_bool(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
    )
}

/// An option spec for [`gparse`]: long options this command knows (a
/// trailing `=` marks one that takes a value) and short options that take
/// a value.
struct Opts<'s> {
    short_values: &'s str,
    longs: &'s [&'s str],
}

/// The full name of the long option `given` (without `=value`): itself
/// when exact, else the one option it is an unambiguous prefix of.
fn canonical(given: &str, longs: &[&str]) -> (String, bool) {
    let names = longs
        .iter()
        .map(|l| (l.trim_end_matches('='), l.ends_with('=')));
    if let Some((name, takes)) = names.clone().find(|(n, _)| *n == given) {
        return (name.to_owned(), takes);
    }
    if given.len() >= 3 {
        let mut matches = names.filter(|(n, _)| n.starts_with(given));
        if let (Some((name, takes)), None) = (matches.next(), matches.next()) {
            return (name.to_owned(), takes);
        }
    }
    (given.to_owned(), false)
}

/// Parses a git subcommand's arguments; long options are canonicalised
/// ([`canonical`]); `--` ends options.
fn gparse(args: &[Arg], spec: &Opts<'_>) -> Parsed {
    crate::rules::parse_with(args, spec.short_values, false, |given| {
        canonical(given, spec.longs)
    })
}

/// Every value given to any of `names`.
fn values<'p>(p: &'p Parsed, names: &'p [&'p str]) -> impl Iterator<Item = Option<&'p Arg>> + 'p {
    p.opts
        .iter()
        .filter(move |o| names.contains(&o.name.as_str()))
        .map(|o| o.value.as_ref())
}

/// Whether the last of `on`/`off` given is one of `on`.
fn last_on(p: &Parsed, on: &[&str], off: &[&str]) -> bool {
    p.opts
        .iter()
        .rev()
        .find(|o| on.contains(&o.name.as_str()) || off.contains(&o.name.as_str()))
        .is_some_and(|o| on.contains(&o.name.as_str()))
}

/// The branch a ref or checkout target names; `None` when it cannot be
/// known (`-`, `@{-1}`, a word that is not static).
fn branch_of(arg: &Arg) -> Branch {
    let text = arg.exact()?;
    if text == "-" || text.starts_with("@{-") {
        return None;
    }
    Some(text.strip_prefix("refs/heads/").unwrap_or(text).to_owned())
}

/// The key and value of a `key=value` setting (`-c`); a key alone is
/// `true`. When the word is not fully static but its key is written
/// literally (`user.name=$NAME`), the key is known and the value is not.
fn split_setting(arg: &Arg) -> Option<(String, Option<String>)> {
    if let Some(text) = arg.exact() {
        let (key, value) = text.split_once('=').unwrap_or((text, "true"));
        return Some((key.to_owned(), Some(value.to_owned())));
    }
    let (key, _) = arg.text.trim_start_matches(['"', '\'']).split_once('=')?;
    let literal = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    literal.then(|| (key.to_owned(), None))
}

/// Where a git command runs, as far as branches go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The run's worktree: the branch is the one tracked in the world.
    Main,
    /// A repository cloned earlier in the input (`git clone` refuses a
    /// directory that is not empty, so it cannot be one of ours):
    /// the run's protected branches are not its branches.
    Other,
    /// Somewhere else (another worktree, an unknown directory): the branch
    /// cannot be known.
    Unknown,
}

/// One git invocation: where it runs and what its command line and
/// environment configure.
struct Inv {
    /// The directory it runs in (after `-C`); `None` when not known.
    dir: Option<String>,
    place: Place,
    /// Aliases from `-c`, `--config-env` and `GIT_CONFIG_*`.
    aliases: Vec<(String, Option<String>)>,
    /// Some setting's key is not statically known.
    config_unknown: bool,
    /// `PATH` was changed: `git-<name>` programs may be other programs.
    path_changed: bool,
    /// The global options as written, to put in front of an alias.
    globals: Vec<Arg>,
    /// Settings given with `-c` (keys lowercased), in order.
    settings: Vec<(String, Option<String>)>,
}

impl Walker<'_> {
    /// A variable as git would see it: given to this command, or assigned
    /// earlier in the input (perhaps exported). `None`: not set in the input.
    fn git_env(shell: &Shell, name: &str) -> Option<Option<String>> {
        shell
            .env
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .or_else(|| shell.vars.get(name).cloned())
    }

    /// Walks a program git would run (a config value, an option, an
    /// environment variable) as a script.
    fn git_program(
        &mut self,
        what: &str,
        value: Option<&str>,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match value {
            Some(text) => self.script_args(what, &[Arg::lit(text)], shell, frame, false)?,
            None => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{what} runs a program that is not statically known"),
            )?,
        }
        Continue(())
    }

    /// Judges one config setting (`-c key=value`, `git config key value`);
    /// returns an alias it defines.
    fn git_setting(
        &mut self,
        source: &str,
        key: &str,
        value: Option<&str>,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged<Option<(String, Option<String>)>> {
        let what = format!("{source} {key}");
        let lower = key.to_ascii_lowercase();
        if source == "git config"
            && (lower == "pull.rebase"
                || (lower.starts_with("branch.") && lower.ends_with(".rebase")))
            && value.is_none_or(|v| matches!(v.to_ascii_lowercase().as_str(), "i" | "interactive"))
        {
            self.destructive(
                frame,
                &format!("{what} interactive (makes every later pull an interactive rebase, whose todo list an editor may rewrite to drop commits)"),
            )?;
            return Continue(None);
        }
        if key.eq_ignore_ascii_case("core.worktree") {
            self.destructive(
                frame,
                &format!("{what} (points git at another work tree, where a commit or add records every file of the repository as deleted)"),
            )?;
            return Continue(None);
        }
        match classify(key) {
            Key::Alias(name) => return Continue(Some((name, value.map(str::to_owned)))),
            Key::Program => self.git_program(&what, value, shell, frame)?,
            Key::BoolOrProgram => {
                if !value.is_some_and(is_bool) {
                    self.git_program(&what, value, shell, frame)?;
                }
            }
            Key::Credential => match value {
                None => self.git_program(&what, None, shell, frame)?,
                Some(v) if v.trim().is_empty() => {}
                Some(v) => {
                    if let Some(script) = v.strip_prefix('!') {
                        self.git_program(&what, Some(script), shell, frame)?;
                    } else if v.contains('/') {
                        self.git_program(&what, Some(v), shell, frame)?;
                    } else {
                        let name = v.split_whitespace().next().unwrap_or("");
                        if !CREDENTIAL_HELPERS.contains(&name) {
                            self.fail_closed(
                                frame,
                                RuleId::NotStatic,
                                format!("{what}: the credential helper `git credential-{name}` is a program the guard does not know"),
                            )?;
                        }
                    }
                }
            },
            Key::SubmoduleUpdate => match value {
                Some(v) if !v.starts_with('!') => {}
                Some(v) => self.git_program(&what, Some(&v[1..]), shell, frame)?,
                None => self.git_program(&what, None, shell, frame)?,
            },
            // `/dev/null` is no directory and an empty file: no hooks, templates or included
            // settings are read from it (`git -c core.hooksPath=/dev/null commit`, CI's way to
            // run git without the repository's hooks).
            Key::Opaque if value == Some("/dev/null") && !key.to_ascii_lowercase().ends_with(".vcs") => {}
            Key::Opaque => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{what} makes git read files or run programs (hooks, included config, templates) the guard cannot see"),
            )?,
            Key::Protocol => {
                if !value.is_some_and(|v| v.eq_ignore_ascii_case("never")) {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("{what} may enable transports that run programs (ext::)"),
                    )?;
                }
            }
            Key::Url => {
                let ext = |t: &str| t.to_ascii_lowercase().contains("ext::");
                if value.is_none_or(ext) || ext(key) {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("{what}: a URL that is not static or uses the ext:: transport, which runs a program"),
                    )?;
                }
            }
            Key::Refspec => match value {
                Some(v) => self.git_refspec(&what, &Arg::lit(v), frame)?,
                None => self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("{what}: a refspec that is not statically known"),
                )?,
            },
            Key::Prune => {
                if !value.is_some_and(|v| v.eq_ignore_ascii_case("never")) {
                    self.destructive(
                        frame,
                        &format!("{what} (gc prunes unreachable objects or reflogs early)"),
                    )?;
                }
            }
            Key::File => match value {
                Some(v) if !v.contains('/') => {}
                Some(v) => {
                    let path = v.strip_prefix("af_unix:").unwrap_or(v);
                    self.check_write(&Arg::lit(path), WriteMode::Append, shell, frame, &what)?;
                }
                None => self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("{what}: a path that is not statically known"),
                )?,
            },
            Key::Harmless => {}
        }
        Continue(None)
    }

    /// Judges `git <args>`.
    pub(crate) fn git(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        if frame.depth > crate::walk::MAX_SCRIPT_DEPTH {
            return self.deny(
                frame,
                RuleId::TooDeep,
                "git commands nest (for-each-repo, ext::) deeper than the guard follows",
            );
        }
        if !self.git_environment(shell, frame)? {
            return Continue(());
        }
        let mut inv = Inv {
            dir: shell.cwd.clone(),
            place: Place::Main,
            aliases: Vec::new(),
            config_unknown: false,
            path_changed: Self::git_env(shell, "PATH").is_some(),
            globals: Vec::new(),
            settings: Vec::new(),
        };
        let mut git_dir: Option<Option<String>> =
            Self::git_env(shell, "GIT_DIR").or_else(|| Self::git_env(shell, "GIT_COMMON_DIR"));
        let mut work_tree: Option<Option<String>> = Self::git_env(shell, "GIT_WORK_TREE");
        self.git_config_env(&mut inv, shell, frame)?;
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            let Some(text) = arg.exact() else {
                break;
            };
            if !text.starts_with('-') {
                break;
            }
            index += 1;
            let next = args.get(index).cloned();
            let mut take = || {
                index += 1;
                next.clone()
            };
            match text {
                "-h" | "--help" | "--version" | "-v" | "--html-path" | "--man-path"
                | "--info-path" | "--exec-path" => return Continue(()),
                _ if text.starts_with("--list-cmds") => return Continue(()),
                "-C" => match take() {
                    Some(dir) => {
                        inv.dir = match (dir.exact(), &inv.dir) {
                            (Some(""), d) => d.clone(),
                            (Some(d), Some(base)) => Some(paths::normalize(base, d)),
                            (Some(d), None) if d.starts_with('/') => Some(paths::normalize("/", d)),
                            _ => None,
                        };
                    }
                    None => return Continue(()),
                },
                "--git-dir" => git_dir = Some(take().and_then(|a| a.exact().map(str::to_owned))),
                _ if text.starts_with("--git-dir=") => {
                    git_dir = Some(Some(text["--git-dir=".len()..].to_owned()));
                }
                _ if text.starts_with("--exec-path=") => {
                    return self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "git --exec-path=DIR runs git's programs from a directory the guard cannot see",
                    );
                }
                "--work-tree" => {
                    work_tree = Some(take().and_then(|a| a.exact().map(str::to_owned)));
                }
                _ if text.starts_with("--work-tree=") => {
                    work_tree = Some(Some(text["--work-tree=".len()..].to_owned()));
                }
                "--namespace" | "--super-prefix" | "--attr-source" => {
                    take();
                }
                "-c" => {
                    let Some(setting) = take() else {
                        return Continue(());
                    };
                    match split_setting(&setting) {
                        Some((key, value)) => {
                            inv.settings.push((key.to_ascii_lowercase(), value.clone()));
                            if let Some(alias) =
                                self.git_setting("git -c", &key, value.as_deref(), shell, frame)?
                            {
                                inv.aliases.push(alias);
                            }
                        }
                        None => {
                            inv.config_unknown = true;
                            self.fail_closed(
                                frame,
                                RuleId::NotStatic,
                                format!("git -c `{}`: a setting whose key is not statically known may run a program", setting.text),
                            )?;
                        }
                    }
                }
                "--config-env" => {
                    let Some(setting) = take() else {
                        return Continue(());
                    };
                    self.git_config_env_option(&setting, &mut inv, shell, frame)?;
                }
                _ if text.starts_with("--config-env=") => {
                    let setting = Arg::lit(&text["--config-env=".len()..]);
                    self.git_config_env_option(&setting, &mut inv, shell, frame)?;
                }
                _ => {}
            }
        }
        inv.globals = args[..index].to_vec();
        let git_dir_given = git_dir.is_some();
        inv.place = self.git_place(inv.dir.as_deref(), git_dir);
        let Some(sub) = args.get(index) else {
            return Continue(());
        };
        let rest: Vec<Arg> = args[index + 1..].to_vec();
        let Some(name) = sub.exact().map(str::to_owned) else {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("the git subcommand `{}` is not statically known", sub.text),
            );
        };
        if COMMANDS.contains(&name.as_str())
            && !WORK_TREE_READERS.contains(&name.as_str())
            && let Some(tree) = self.foreign_work_tree(&inv, work_tree.as_ref(), git_dir_given)
        {
            return self.destructive(
                frame,
                &format!(
                    "git {name} with the work tree `{tree}`, which is not the repository's (a commit or add there records every file of the repository as deleted)"
                ),
            );
        }
        // Paths given to git are relative to the directory it runs in.
        let mut here = shell.clone();
        here.cwd = match (work_tree, &inv.dir) {
            // Outside its work tree, git takes paths from the top of it.
            (Some(Some(tree)), Some(dir)) => {
                let tree = paths::normalize(dir, &tree);
                if paths::is_within(dir, &tree) {
                    Some(dir.clone())
                } else {
                    Some(tree)
                }
            }
            (Some(_), _) => None,
            (None, dir) => dir.clone(),
        };
        if COMMANDS.contains(&name.as_str()) {
            return self.git_subcommand(&name, &rest, &inv, &mut here, frame);
        }
        let lower = name.to_ascii_lowercase();
        let trust_context = inv.place == Place::Main;
        let alias = inv
            .aliases
            .iter()
            .rev()
            .find(|(n, _)| *n == lower)
            .map(|(_, v)| v.clone())
            .or_else(|| self.world.git_aliases.get(&lower).cloned())
            .or_else(|| {
                trust_context
                    .then(|| {
                        self.ctx
                            .git_aliases
                            .iter()
                            .find(|(n, _)| n.eq_ignore_ascii_case(&name))
                            .map(|(_, v)| v.clone())
                            .or_else(|| self.ctx.more_git_aliases.alias(&lower))
                            .map(Some)
                    })
                    .flatten()
            });
        match alias {
            Some(Some(value)) => self.git_alias(&name, &value, &rest, &inv, shell, frame)?,
            Some(None) => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("git alias `{name}` is not statically known"),
            )?,
            None if inv.config_unknown || self.world.git_aliases_unknown => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("`git {name}` may be an alias defined to something not statically known"),
            )?,
            None if EXTENSIONS.contains(&name.as_str()) && !inv.path_changed => self.git_extension(&name, &rest, &inv, &mut here, frame)?,
            None => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "`git {name}` is neither a git command, an alias the guard knows nor a listed extension; git may run an alias defined elsewhere or autocorrect it into another command"
                ),
            )?,
        }
        Continue(())
    }

    /// Judges the environment a git command gets; false when it was denied.
    fn git_environment(&mut self, shell: &mut Shell, frame: &Frame) -> Judged<bool> {
        if shell.vars_untrusted {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                "variables were changed in ways the guard does not model; they may give git an editor, pager or configuration",
            )?;
            return Continue(false);
        }
        for name in PROGRAM_ENV {
            if let Some(value) = Self::git_env(shell, name) {
                // The program itself is judged without the variable (a
                // `git` inside it would otherwise run it again, forever).
                let mut clean = shell.clone();
                clean.env.retain(|(n, _)| n != name);
                clean.vars.remove(*name);
                self.git_program(
                    &format!("{name} given to git"),
                    value.as_deref(),
                    &mut clean,
                    frame,
                )?;
            }
        }
        for name in CONFIG_SOURCE_ENV {
            if let Some(value) = Self::git_env(shell, name)
                && value.as_deref() != Some("/dev/null")
            {
                self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "git with {name} set in the command reads configuration the guard cannot see (aliases, programs)"
                    ),
                )?;
                return Continue(false);
            }
        }
        for name in OPAQUE_ENV {
            if Self::git_env(shell, name).is_some() {
                self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("git with {name} set runs programs or reads configuration the guard cannot see"),
                )?;
                return Continue(false);
            }
        }
        // Files and directories git writes where the environment says.
        let written = shell
            .env
            .iter()
            .map(|(n, _)| n.clone())
            .chain(shell.vars.keys().cloned())
            .filter(|n| {
                n.starts_with("GIT_TRACE")
                    || matches!(n.as_str(), "GIT_INDEX_FILE" | "GIT_OBJECT_DIRECTORY")
            })
            .collect::<Vec<_>>();
        for name in written {
            let what = format!("{name} given to git");
            match Self::git_env(shell, &name).flatten() {
                // GIT_TRACE=1/2/true goes to stderr; a path is a file.
                Some(v) if name.starts_with("GIT_TRACE") && !v.contains('/') => {}
                Some(v) => {
                    let mode = if name.starts_with("GIT_TRACE") {
                        WriteMode::Append
                    } else {
                        WriteMode::Clobber
                    };
                    let path = v.strip_prefix("af_unix:").unwrap_or(&v).to_owned();
                    self.check_write(&Arg::lit(path), mode, shell, frame, &what)?;
                }
                None => self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("{what}: a path that is not statically known"),
                )?,
            }
        }
        for name in ["GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_OBJECT_DIRECTORY"] {
            if Self::git_env(shell, name).is_some() {
                self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("git with {name} set reads objects the guard never saw written; merged or checked out, they write any file, protected ones included"),
                )?;
                return Continue(false);
            }
        }
        if let Some(value) = Self::git_env(shell, "GIT_ALLOW_PROTOCOL")
            && value.is_none_or(|v| v.to_ascii_lowercase().contains("ext"))
        {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                "GIT_ALLOW_PROTOCOL may enable the ext:: transport, which runs a program",
            )?;
            return Continue(false);
        }
        Continue(true)
    }

    /// `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`.
    fn git_config_env(&mut self, inv: &mut Inv, shell: &mut Shell, frame: &Frame) -> Judged {
        let Some(count) = Self::git_env(shell, "GIT_CONFIG_COUNT") else {
            return Continue(());
        };
        let Some(count) = count
            .and_then(|c| c.trim().parse::<usize>().ok())
            .filter(|c| *c <= 32)
        else {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                "GIT_CONFIG_COUNT is not a small static number; the settings it gives git cannot be seen",
            );
        };
        let mut clean = shell.clone();
        clean.env.retain(|(n, _)| !n.starts_with("GIT_CONFIG_"));
        clean.vars.retain(|n, _| !n.starts_with("GIT_CONFIG_"));
        for n in 0..count {
            let key = Self::git_env(shell, &format!("GIT_CONFIG_KEY_{n}")).flatten();
            let value = Self::git_env(shell, &format!("GIT_CONFIG_VALUE_{n}")).flatten();
            let shell = &mut clean;
            match key {
                Some(key) => {
                    if let Some(alias) =
                        self.git_setting("GIT_CONFIG_KEY", &key, value.as_deref(), shell, frame)?
                    {
                        inv.aliases.push(alias);
                    }
                }
                None => {
                    inv.config_unknown = true;
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("GIT_CONFIG_KEY_{n} is not statically known"),
                    )?;
                }
            }
        }
        Continue(())
    }

    /// `--config-env key=ENVVAR`: the value is the variable's.
    fn git_config_env_option(
        &mut self,
        setting: &Arg,
        inv: &mut Inv,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let Some((key, var)) = setting.exact().and_then(|s| s.split_once('=')) else {
            inv.config_unknown = true;
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                "git --config-env with a setting that is not statically known",
            );
        };
        let value = Self::git_env(shell, var).flatten();
        if let Some(alias) =
            self.git_setting("git --config-env", key, value.as_deref(), shell, frame)?
        {
            inv.aliases.push(alias);
        }
        Continue(())
    }

    /// Decides which worktree a git command running in `dir` acts on.
    fn git_place(&self, dir: Option<&str>, git_dir: Option<Option<String>>) -> Place {
        let Some(dir) = dir else {
            return Place::Unknown;
        };
        let other = |path: &str| {
            self.world
                .git_repos
                .iter()
                .any(|repo| paths::is_within(path, repo))
        };
        let Some(root) = self.anchors.repo_root.as_deref() else {
            return Place::Main;
        };
        let start = paths::normalize("/", &self.ctx.cwd.to_string_lossy());
        if let Some(git_dir) = git_dir {
            let Some(git_dir) = git_dir else {
                return Place::Unknown;
            };
            let resolved = paths::normalize(dir, &git_dir);
            if resolved == paths::normalize(root, ".git") {
                return Place::Main;
            }
            return if other(&resolved) {
                Place::Other
            } else {
                Place::Unknown
            };
        }
        // The context's branch is the one of the directory the command
        // starts in.
        if dir == start {
            return Place::Main;
        }
        if let Some(rel) = paths::relative_to(dir, root)
            && (rel.is_empty() || self.ctx.tracked.has_tracked_under(rel))
        {
            return Place::Main;
        }
        if other(dir) {
            Place::Other
        } else {
            Place::Unknown
        }
    }

    fn git_alias(
        &mut self,
        name: &str,
        value: &str,
        rest: &[Arg],
        inv: &Inv,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let quoted: Vec<String> = rest.iter().map(words::quote).collect();
        let globals: Vec<String> = inv.globals.iter().map(words::quote).collect();
        let mut sub = shell.clone();
        let text = match value.strip_prefix('!') {
            Some(script) => {
                // Shell aliases run from the top of the worktree.
                sub.cwd = match inv.place {
                    Place::Main => self.anchors.repo_root.clone().or(inv.dir.clone()),
                    _ => None,
                };
                format!("{script} {}", quoted.join(" "))
            }
            None => format!("git {} {value} {}", globals.join(" "), quoted.join(" ")),
        };
        let inner = frame.nested(&format!("git alias {name}"));
        self.run_script(&text, &mut sub, &inner)
    }

    /// The branches the command may act on: none to protect in another
    /// repository, unknown outside the run's worktree.
    fn branches_at(&self, inv: &Inv) -> Vec<Branch> {
        match inv.place {
            Place::Main => self.world.branches.clone(),
            Place::Other => Vec::new(),
            Place::Unknown => vec![None],
        }
    }

    /// The protected branch the command may act on, described for a denial: `` `main`, a
    /// protected branch `` or why the branch is not known.
    fn on_protected_branch(&self, inv: &Inv) -> Option<String> {
        self.branches_at(inv).into_iter().find_map(|b| match b {
            Some(name) if self.policy.is_protected_branch(&name) => {
                Some(format!("`{name}`, a protected branch"))
            }
            Some(_) => None,
            None => Some(match inv.place {
                Place::Unknown => format!(
                    "a branch that is not statically known (git runs in `{}`, outside the run's worktree), which may be a protected one",
                    inv.dir.as_deref().unwrap_or("a directory that is not statically known")
                ),
                _ => "a branch that is not statically known (a detached HEAD, or a branch the guard was not told), which may be a protected one".to_owned(),
            }),
        })
    }

    /// The branch the run works on, when pawl recorded one that is not protected.
    fn run_branch(&self) -> Option<&str> {
        self.ctx
            .run_branch
            .as_deref()
            .filter(|b| !self.policy.is_protected_branch(b))
    }

    /// Where the run's work stays, for denials of what would publish it or redirect where it
    /// goes. pawl itself publishes nothing: that is the user's call once the run is over.
    fn work_stays(&self) -> String {
        match self.run_branch() {
            Some(b) => format!(
                "the run's work stays on its branch `{b}` in this repository, and publishing it is the user's call after the run"
            ),
            None => "the run's work stays in this repository, and publishing it is the user's call after the run".to_owned(),
        }
    }

    fn deny_if_protected(&mut self, inv: &Inv, frame: &Frame, what: &str) -> Judged {
        if let Some(branch) = self.on_protected_branch(inv) {
            let instead = match self.run_branch() {
                Some(b) => format!("the run works on `{b}`: commit there (`git switch {b}`)"),
                None => "commit on a branch that is not protected (`git switch -c <name>` starts one here)".to_owned(),
            };
            self.deny(
                frame,
                RuleId::ProtectedBranch,
                format!("{what} would change {branch}; {instead}"),
            )?;
        }
        Continue(())
    }

    fn deny_protected_ref(&mut self, frame: &Frame, what: &str, branch: &str) -> Judged {
        self.deny(
            frame,
            RuleId::ProtectedBranch,
            format!("{what} writes `{branch}`, a protected branch"),
        )
    }

    /// Records that HEAD moves to `branch` (or may, in conditional code).
    fn switch_to(&mut self, inv: &Inv, branch: Branch, frame: &Frame) {
        if inv.place != Place::Main {
            return;
        }
        if frame.conditional {
            self.world.branches.push(branch);
        } else {
            self.world.branches = vec![branch];
        }
        self.world.branches.truncate(64);
    }

    /// Whether `paths` are named files of the repository (literal, no pathspec magic or glob,
    /// not the root or a directory with `/`, not protected): restoring them from git discards
    /// only work pawl's checkpoint holds.
    fn named_repo_files(&self, paths: &[Arg], shell: &Shell) -> bool {
        !paths.is_empty()
            && paths.iter().all(|a| {
                a.exact().is_some_and(|t| {
                    !t.is_empty()
                        && !t.starts_with([':', '-'])
                        && !t.ends_with('/')
                        && !matches!(t, "." | ".." | "*")
                        && !t.contains(['*', '?', '[', '\\'])
                }) && self.resolve(shell, &a.text).is_some_and(|abs| {
                    // A directory is judged by what it holds (`.claude` holds the agent's
                    // settings, `.git` git's state).
                    self.in_repo(&abs)
                        && !self.is_protected(&abs)
                        && !self.holds_protected(&abs)
                        && {
                            let root = self.anchors.repo_root.as_deref().unwrap_or("/");
                            abs != root && !abs.contains("/.git/") && !abs.contains("/.pawl")
                        }
                })
            })
    }

    /// Whether pawl's checkpoint keeps the uncommitted work a `--hard`/`--force` form of `p`
    /// discards: the checkpoint is on ([`crate::Context::checkpointed`]), the command runs in
    /// the run's worktree, and not into submodules (their trees are not in the checkpoint).
    fn checkpoint_keeps(&self, inv: &Inv, p: &Parsed) -> bool {
        self.ctx.checkpointed && inv.place == Place::Main && !p.has(&["--recurse-submodules"])
    }

    fn destructive(&mut self, frame: &Frame, what: &str) -> Judged {
        self.deny(
            frame,
            RuleId::GitDestructive,
            format!("{what} discards work that git cannot give back"),
        )
    }

    /// `git config` writing, unsetting, renaming or removing a setting that
    /// decides where pushes go: pawl (and the user) push later, and the
    /// agent must not redirect that.
    fn git_config_redirects(&mut self, p: &Parsed, frame: &Frame) -> Judged {
        let pure_read = p.has(&[
            "--get",
            "--get-all",
            "--get-regexp",
            "--get-urlmatch",
            "--get-color",
            "--get-colorbool",
            "-l",
            "--list",
            "--blob",
        ]);
        if pure_read {
            return Continue(());
        }
        if p.has(&["-e", "--edit"]) || p.operands.first().is_some_and(|a| a.is("edit")) {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                "git config --edit lets an editor rewrite any setting (remotes, aliases, programs) where the guard cannot see",
            );
        }
        let mut operands: &[Arg] = &p.operands;
        let mut sections = p.has(&["--rename-section", "--remove-section"]);
        let mut names = 1;
        if p.has(&["--rename-section"]) {
            names = 2;
        }
        let mut unset = p.has(&["--unset", "--unset-all"]);
        if let Some(action) = operands.first().and_then(Arg::exact) {
            match action {
                "get" | "list" | "edit" => return Continue(()),
                "set" => operands = &operands[1..],
                "unset" => {
                    operands = &operands[1..];
                    unset = true;
                }
                "rename-section" => {
                    operands = &operands[1..];
                    sections = true;
                    names = 2;
                }
                "remove-section" => {
                    operands = &operands[1..];
                    sections = true;
                }
                _ => {}
            }
        }
        if operands.len() < 2 && !sections && !unset {
            // `git config key` reads the value.
            return Continue(());
        }
        for name in operands.iter().take(names) {
            let Some(key) = name.exact() else {
                return self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "git config of a key `{}` that is not statically known (it may redirect pushes or define programs)",
                        name.text
                    ),
                );
            };
            if redirects_pushes(key, sections) {
                return self.deny(
                    frame,
                    RuleId::GitPush,
                    format!(
                        "git config of `{}` changes where pushes go (remotes, upstreams, URL rewrites, push settings); {}",
                        name.text,
                        self.work_stays()
                    ),
                );
            }
        }
        Continue(())
    }

    /// The work tree a git command acting on the run's repository is given
    /// (`--work-tree`, `GIT_WORK_TREE`) when it is not the repository's own.
    /// With `--git-dir`/`GIT_DIR` and no work tree, git takes the directory
    /// it runs in as the top of the work tree.
    fn foreign_work_tree(
        &self,
        inv: &Inv,
        work_tree: Option<&Option<String>>,
        git_dir_given: bool,
    ) -> Option<String> {
        let implied = (git_dir_given && inv.place == Place::Main).then(|| inv.dir.clone());
        let work_tree = work_tree.cloned().or(implied)?;
        if inv.place == Place::Other {
            return None;
        }
        let Some(tree) = work_tree else {
            return Some("(not statically known)".to_owned());
        };
        let Some(dir) = inv.dir.as_deref() else {
            return Some(tree);
        };
        let resolved = paths::normalize(dir, &tree);
        match self.anchors.repo_root.as_deref() {
            Some(root) if resolved == paths::normalize("/", root) => None,
            Some(_) => Some(tree),
            None => None,
        }
    }

    /// An interactive rebase: the sequence editor rewrites the todo list and may drop
    /// commits (`GIT_SEQUENCE_EDITOR="sed -i 2d"`). Only a sequence editor given in the
    /// command that leaves the list as it is (`:`, `true`) is allowed; without one git
    /// runs an editor the guard cannot see (and an agent cannot drive).
    fn interactive_rebase(
        &mut self,
        inv: &Inv,
        shell: &Shell,
        frame: &Frame,
        what: &str,
    ) -> Judged {
        let editor = Self::git_env(shell, "GIT_SEQUENCE_EDITOR").or_else(|| {
            inv.settings
                .iter()
                .rev()
                .find(|(k, _)| k == "sequence.editor")
                .map(|(_, v)| v.clone())
        });
        let no_op = editor.flatten().is_some_and(|e| {
            matches!(
                e.trim(),
                ":" | "true" | "/bin/true" | "/usr/bin/true" | "cat" | "/bin/cat"
            )
        });
        if !no_op {
            self.destructive(
                frame,
                &format!(
                    "{what} (its todo list is edited by a program that may drop commits; only GIT_SEQUENCE_EDITOR=: or true is allowed)"
                ),
            )?;
        }
        Continue(())
    }

    /// Whether a checkout/reset operand names paths rather than a branch.
    fn looks_like_path(&self, shell: &Shell, arg: &Arg) -> bool {
        let Some(text) = arg.exact() else {
            return true;
        };
        if text == "." || text.starts_with("./") || text.starts_with(':') || arg.glob {
            return true;
        }
        // Git expands pathspec globs itself, quoted or not.
        if text.contains(['*', '?', '[']) {
            return true;
        }
        let Some(root) = self.anchors.repo_root.clone() else {
            return false;
        };
        let Some(absolute) = self.resolve(shell, text) else {
            // The directory is not known: the word may name a file there.
            return true;
        };
        paths::relative_to(&absolute, &root)
            .map(str::to_owned)
            .is_some_and(|rel| {
                rel.is_empty()
                    || self.ctx.tracked.is_tracked(&rel)
                    || self.ctx.tracked.has_tracked_under(&rel)
            })
    }

    /// A directory git creates and fills (`git init DIR`, `git clone URL
    /// DIR`, `worktree add DIR`): the directory and what goes in it.
    /// The files a clone or checkout may put in it are named by the
    /// repository it comes from: a directory such as `.claude` or `.codex`
    /// would receive the agent's hook settings, so their names are checked too.
    fn git_writes_dir(&mut self, dir: &Arg, shell: &Shell, frame: &Frame, what: &str) -> Judged {
        self.check_write(dir, WriteMode::Modify, shell, frame, what)?;
        if let Some(text) = dir.exact() {
            for name in [
                "HEAD",
                "settings.json",
                "settings.local.json",
                "hooks.json",
                "config.toml",
                "pawl.toml",
            ] {
                let inside = Arg::lit(format!("{}/{name}", text.trim_end_matches('/')));
                self.check_write(&inside, WriteMode::Modify, shell, frame, what)?;
            }
        }
        Continue(())
    }

    /// Judges a refspec whose destination may be a local branch.
    fn git_refspec(&mut self, what: &str, arg: &Arg, frame: &Frame) -> Judged {
        let Some(text) = arg
            .exact()
            .or_else(|| arg.known.then_some(arg.text.as_str()))
        else {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{what}: the refspec `{}` is not statically known; it may write a protected branch", arg.text),
            );
        };
        let Some((_, dst)) = text.trim_start_matches(['+', '^']).split_once(':') else {
            return Continue(());
        };
        let dst = dst.trim();
        if dst.is_empty() {
            return Continue(());
        }
        let branch = if let Some(b) = dst.strip_prefix("refs/heads/") {
            Some(b)
        } else if dst.starts_with("refs/") {
            None
        } else if let Some(b) = dst.strip_prefix("heads/") {
            Some(b)
        } else if dst.starts_with("remotes/") || dst.starts_with("tags/") {
            None
        } else {
            Some(dst)
        };
        if dst.contains('*') {
            // A glob writes every branch it matches.
            let fixed = dst.split('*').next().unwrap_or("");
            let into_heads = branch.is_some() || "refs/heads/".starts_with(fixed);
            if into_heads {
                self.deny(
                    frame,
                    RuleId::ProtectedBranch,
                    format!("{what}: the refspec `{text}` writes local branches by pattern, protected ones included"),
                )?;
            }
            return Continue(());
        }
        if let Some(branch) = branch
            && self.policy.is_protected_branch(branch)
        {
            self.deny_protected_ref(frame, &format!("{what} `{text}`"), branch)?;
        }
        Continue(())
    }

    /// The `ext::` transport runs its command.
    fn git_ext_urls(&mut self, rest: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        for arg in rest {
            let Some(text) = arg.exact() else {
                continue;
            };
            // `--remote=ext::...`, `--config=remote.x.url=ext::...` too.
            let Some(at) = text.to_ascii_lowercase().find("ext::") else {
                continue;
            };
            let command = &text[at + "ext::".len()..];
            // Words are split at spaces; `% ` is a space, `%%` a percent.
            let mut argv: Vec<Arg> = Vec::new();
            let mut word = String::new();
            let mut chars = command.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '%' => match chars.next() {
                        Some(' ') => word.push(' '),
                        Some('%') => word.push('%'),
                        Some(other) => {
                            word.push('%');
                            word.push(other);
                        }
                        None => word.push('%'),
                    },
                    ' ' => {
                        if !word.is_empty() {
                            argv.push(Arg::lit(std::mem::take(&mut word)));
                        }
                    }
                    other => word.push(other),
                }
            }
            if !word.is_empty() {
                argv.push(Arg::lit(word));
            }
            if argv.is_empty() {
                continue;
            }
            self.dispatch(
                Cmd {
                    argv,
                    stdin: Stdin::Inherited,
                },
                shell,
                &frame.nested("git ext:: transport"),
            )?;
        }
        Continue(())
    }

    fn git_subcommand(
        &mut self,
        name: &str,
        rest: &[Arg],
        inv: &Inv,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let before_dashdash = rest.iter().take_while(|a| !a.is("--"));
        if before_dashdash
            .clone()
            .any(|a| a.is("--help") || a.is("-h"))
        {
            return Continue(());
        }
        if matches!(
            name,
            "fetch"
                | "pull"
                | "clone"
                | "ls-remote"
                | "remote"
                | "archive"
                | "fetch-pack"
                | "submodule"
                | "bundle"
        ) {
            self.git_ext_urls(rest, shell, frame)?;
        }
        match name {
            "push" | "send-pack" | "http-push" => self.deny(
                frame,
                RuleId::GitPush,
                format!(
                    "git push is not allowed while a run is active; {}",
                    self.work_stays()
                ),
            )?,
            "send-email" | "imap-send" | "cvsexportcommit" => self.deny(
                frame,
                RuleId::GitPush,
                format!("git {name} publishes commits outside the repository (mail, IMAP, CVS); {}", self.work_stays()),
            )?,
            "svn" if rest.iter().find(|a| !a.text.starts_with('-')).is_some_and(|a| {
                a.exact().is_none_or(|t| matches!(t, "dcommit" | "set-tree" | "branch" | "tag" | "commit-diff"))
            }) => self.deny(frame, RuleId::GitPush, "git svn dcommit/set-tree/branch/tag/commit-diff writes to the Subversion server")?,
            "p4" if rest.iter().find(|a| !a.text.starts_with('-')).is_some_and(|a| a.exact().is_none_or(|t| t == "submit")) => self.deny(frame, RuleId::GitPush, "git p4 submit writes to the Perforce server")?,
            "subtree" if rest.iter().any(|a| a.is("push")) => self.deny(frame, RuleId::GitPush, "git subtree push publishes to a remote")?,
            "subtree" if rest.iter().any(|a| a.is("add") || a.is("merge") || a.is("pull") || a.is("--rejoin")) => {
                self.deny_if_protected(inv, frame, "git subtree add/merge/pull")?;
                self.git_subtree(rest, shell, frame)?;
            }
            "reset" => self.git_reset(rest, inv, shell, frame)?,
            "clean" => {
                let p = gparse(rest, &Opts {
                    short_values: "e",
                    longs: &["--dry-run", "--no-dry-run", "--force", "--interactive", "--quiet", "--exclude="],
                });
                if !last_on(&p, &["-n", "--dry-run"], &["--no-dry-run"]) {
                    self.destructive(frame, "git clean")?;
                }
            }
            "checkout" => self.git_checkout(rest, inv, shell, frame)?,
            "switch" => self.git_switch(rest, inv, frame)?,
            "restore" => {
                let p = gparse(rest, &Opts {
                    short_values: "s",
                    longs: &[
                        "--source=", "--staged", "--worktree", "--patch", "--ours", "--theirs",
                        "--merge", "--conflict=", "--overlay", "--no-overlay", "--quiet", "--progress",
                        "--pathspec-from-file=", "--pathspec-file-nul", "--ignore-unmerged",
                        "--recurse-submodules", "--ignore-skip-worktree-bits",
                    ],
                });
                // Without a pathspec git restores nothing ("you must specify path(s)").
                let nothing = p.operands.is_empty() && !p.has(&["--pathspec-from-file"]);
                let worktree =
                    !nothing && (p.has(&["-W", "--worktree"]) || !p.has(&["-S", "--staged"]));
                let risky = p.has(&["-p", "--patch", "--pathspec-from-file", "-s", "--source"]);
                if worktree && (risky || !self.named_repo_files(&p.operands, shell)) {
                    self.deny(
                        frame,
                        RuleId::GitDestructive,
                        "git restore of the working tree (all of it, a pathspec or another source) discards work that git cannot give back; restoring named files (`git restore <file>`) is allowed: pawl's checkpoint keeps their work",
                    )?;
                }
            }
            "branch" => self.git_branch(rest, inv, frame)?,
            "stash" => {
                let p = gparse(rest, &Opts {
                    short_values: "m",
                    longs: &["--message=", "--all", "--include-untracked", "--keep-index", "--no-keep-index", "--patch", "--staged", "--quiet", "--pathspec-from-file=", "--pathspec-file-nul", "--index"],
                });
                let pushes = p.operands.first().is_none_or(|a| a.is("push") || a.is("save"));
                if pushes && p.has(&["-a", "--all", "-u", "--include-untracked"]) {
                    self.tamper(
                        frame,
                        "git stash --all/--include-untracked takes untracked and ignored files out of the tree, pawl's session marker in `.pawl/` with them; stash without -a/-u (tracked changes only) is fine",
                    )?;
                } else if p.operands.first().is_some_and(|a| a.is("drop") || a.is("clear")) {
                    self.destructive(frame, "git stash drop/clear")?;
                } else if p.operands.first().is_some_and(|a| a.is("branch")) {
                    let target = p.operands.get(1).and_then(branch_of);
                    self.switch_to(inv, target, frame);
                }
            }
            "fast-import" => self.fail_closed(
                frame,
                RuleId::NotStatic,
                "git fast-import writes whatever refs its input names, protected branches included",
            )?,
            "replace" => {
                let p = gparse(rest, &Opts {
                    short_values: "",
                    longs: &["--delete", "--list", "--edit", "--graft", "--convert-graft-file", "--force", "--format=", "--raw"],
                });
                let creates = !p.operands.is_empty() || p.has(&["--edit", "--graft", "--convert-graft-file"]);
                if creates && !p.has(&["-d", "--delete", "-l", "--list"]) {
                    self.deny(
                        frame,
                        RuleId::ProtectedBranch,
                        "git replace changes what existing commits (protected branches included) show",
                    )?;
                }
            }
            "repack" => {
                let p = gparse(rest, &Opts {
                    short_values: "",
                    longs: &["--unpack-unreachable=", "--cruft-expiration=", "--cruft", "--keep-unreachable", "--quiet", "--local", "--expire-to="],
                });
                let early = p.opts.iter().any(|o| {
                    matches!(o.name.as_str(), "--unpack-unreachable" | "--cruft-expiration")
                        && o.value.as_ref().is_none_or(|v| !v.is("never"))
                });
                if early {
                    self.destructive(frame, "git repack with an early expiry of unreachable objects")?;
                }
            }
            "bundle" if rest.first().is_some_and(|a| a.is("unbundle")) => self.fail_closed(
                frame,
                RuleId::NotStatic,
                "git bundle unbundle brings in commits the guard never saw written; merged or checked out, they write any file, protected ones included",
            )?,
            "unpack-objects" | "index-pack" if !rest.iter().any(|a| a.is("-n") || a.is("--verify")) => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("git {name} brings in objects the guard never saw written; merged or checked out, they write any file, protected ones included"),
            )?,
            "bundle" => {
                if rest.first().is_some_and(|a| a.is("create"))
                    && let Some(file) = rest.iter().skip(1).find(|a| !a.text.starts_with('-'))
                {
                    self.check_write(&file.clone(), WriteMode::Clobber, shell, frame, "git bundle create")?;
                }
            }
            "format-patch" => {
                let p = gparse(rest, &Opts {
                    short_values: "ov",
                    longs: &["--output-directory=", "--output=", "--stdout", "--numbered", "--cover-letter", "--subject-prefix=", "--in-reply-to=", "--to=", "--cc=", "--from=", "--base=", "--signature=", "--signature-file=", "--suffix=", "--start-number=", "--reroll-count=", "--range-diff=", "--interdiff=", "--creation-factor=", "--thread"],
                });
                for dir in values(&p, &["-o", "--output-directory"]).flatten() {
                    let dir = dir.clone();
                    self.check_write(&dir, WriteMode::Modify, shell, frame, "git format-patch -o")?;
                }
                for out in values(&p, &["--output"]).flatten() {
                    let out = out.clone();
                    self.check_write(&out, WriteMode::Clobber, shell, frame, "git format-patch --output")?;
                }
            }
            "rm" => self.git_rm(rest, shell, frame)?,
            "add" => self.git_add_force(rest, inv, frame)?,
            "apply" => self.git_apply(rest, frame)?,
            // Plumbing that puts content the guard never saw written into the index or
            // object database, from where a merge, stash or checkout writes it out.
            "mktree" => self.fail_closed(
                frame,
                RuleId::NotStatic,
                "git mktree builds a tree from objects the guard cannot see; checked out, it writes any file, protected ones included",
            )?,
            "update-index"
                if rest.iter().any(|a| {
                    a.exact().is_none_or(|t| matches!(t, "--cacheinfo" | "--index-info" | "--stdin"))
                }) =>
            {
                self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    "git update-index --cacheinfo/--index-info/--stdin stages content the guard cannot see; a stash or checkout then writes it, protected files included",
                )?;
            }
            "merge-file" => {
                let p = gparse(rest, &Opts {
                    short_values: "L",
                    longs: &["--stdout", "--object-id", "--diff-algorithm=", "--diff3", "--zdiff3", "--ours", "--theirs", "--union", "--marker-size=", "--quiet"],
                });
                if !p.has(&["-p", "--stdout"])
                    && let Some(current) = p.operands.first()
                {
                    let current = current.clone();
                    self.check_write(&current, WriteMode::Modify, shell, frame, "git merge-file")?;
                }
            }
            "mv" => self.git_mv(rest, shell, frame)?,
            "update-ref" => self.git_update_ref(rest, inv, frame)?,
            "symbolic-ref" => self.git_symbolic_ref(rest, inv, frame)?,
            "checkout-index" => {
                let p = gparse(rest, &Opts {
                    short_values: "",
                    longs: &["--force", "--all", "--index", "--stage=", "--temp", "--prefix=", "--quiet", "--no-create", "--stdin", "--ignore-skip-worktree-bits"],
                });
                if p.has(&["-f", "--force"]) {
                    self.destructive(frame, "git checkout-index --force")?;
                }
            }
            "read-tree" => {
                let p = gparse(rest, &Opts {
                    short_values: "",
                    longs: &["--reset", "--prefix=", "--index-output=", "--exclude-per-directory=", "--trivial", "--aggressive", "--empty", "--no-sparse-checkout", "--dry-run", "--quiet", "--recurse-submodules"],
                });
                if p.has(&["--reset"]) && p.has(&["-u"]) {
                    self.destructive(frame, "git read-tree --reset -u")?;
                }
            }
            "rebase" => self.git_rebase(rest, inv, shell, frame)?,
            "commit" | "merge" | "cherry-pick" | "revert" | "am" => {
                let p = gparse(rest, &Opts { short_values: "", longs: &["--abort", "--quit", "--continue", "--skip", "--show-current-patch", "--retry", "--allow-empty", "--resolved"] });
                if !p.has(&["--abort", "--quit"]) {
                    self.deny_if_protected(inv, frame, &format!("git {name}"))?;
                }
                let resumes = p.has(&["--abort", "--quit", "--continue", "--skip", "--show-current-patch", "--retry", "--allow-empty", "--resolved", "-r"]);
                if name == "am" && !resumes {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "git am writes (and may create or delete) the files its patches name, which the guard cannot read; edit the files directly",
                    )?;
                }
            }
            "fetch" | "pull" => self.git_fetch(name, rest, inv, shell, frame)?,
            "ls-remote" | "fetch-pack" | "archive" => {
                let p = gparse(rest, &Opts {
                    short_values: "o",
                    longs: &["--upload-pack=", "--exec=", "--remote=", "--output=", "--format=", "--prefix=", "--server-option="],
                });
                for value in values(&p, &["--upload-pack", "--exec"]) {
                    self.git_program(&format!("git {name} --upload-pack/--exec"), value.and_then(Arg::exact), shell, frame)?;
                }
                if name == "archive" {
                    for out in values(&p, &["--output", "-o"]).flatten() {
                        self.check_write(&out.clone(), WriteMode::Clobber, shell, frame, "git archive --output")?;
                    }
                }
            }
            "clone" => self.git_clone(rest, inv, shell, frame)?,
            "init" | "init-db" => {
                let p = gparse(rest, &Opts {
                    short_values: "b",
                    longs: &["--template=", "--separate-git-dir=", "--object-format=", "--ref-format=", "--initial-branch=", "--shared", "--bare", "--quiet"],
                });
                if p.has(&["--template"]) {
                    return self.fail_closed(frame, RuleId::NotStatic, "git init --template copies hooks from a directory the guard cannot see");
                }
                for target in p.operands.iter().take(1).chain(p.value(&["--separate-git-dir"])) {
                    self.git_writes_dir(target, shell, frame, "git init")?;
                }
                // Not recorded as another repository: `git init` in an
                // existing worktree of the run's repository reinitialises it
                // and leaves it on its branch.
                let _ = inv;
            }
            "difftool" => {
                let p = gparse(rest, &Opts {
                    short_values: "xt",
                    longs: &["--extcmd=", "--tool=", "--tool-help", "--dir-diff", "--no-prompt", "--prompt", "--symlinks", "--no-symlinks", "--gui", "--no-gui", "--trust-exit-code"],
                });
                for value in values(&p, &["-x", "--extcmd"]) {
                    self.git_program("git difftool --extcmd", value.and_then(Arg::exact), shell, frame)?;
                }
            }
            "grep" => {
                for arg in rest.iter().take_while(|a| !a.is("--")) {
                    let Some(text) = arg.exact() else { continue };
                    let pager = if let Some(long) = text.strip_prefix("--") {
                        long.split_once('=')
                            .filter(|(n, _)| n.len() >= 2 && "open-files-in-pager".starts_with(n))
                            .map(|(_, v)| v)
                    } else if text.starts_with('-') {
                        text.split_once('O').map(|(_, v)| v).filter(|v| !v.is_empty())
                    } else {
                        None
                    };
                    if let Some(pager) = pager {
                        self.git_program("git grep --open-files-in-pager", Some(pager), shell, frame)?;
                    }
                }
            }
            "remote" => {
                let p = gparse(rest, &Opts { short_values: "tm", longs: &["--mirror", "--fetch", "--tags", "--no-tags", "--track=", "--master="] });
                if p.operands.first().is_some_and(|a| a.is("add"))
                    && p.opts.iter().any(|o| o.name == "--mirror" && !o.value.as_ref().is_some_and(|v| v.is("push")))
                {
                    return self.deny(frame, RuleId::ProtectedBranch, "git remote add --mirror=fetch makes every fetch overwrite local branches, protected ones included");
                }
                let action = p.operands.first();
                // An action without its remote only prints its usage (`git remote set-url`, an
                // allow-list entry); an action not statically known may be several words.
                let changes = action.is_some_and(|a| {
                    a.exact().is_none_or(|t| {
                        matches!(t, "add" | "remove" | "rm" | "rename" | "set-url" | "set-head" | "set-branches")
                            && p.operands.len() > 1
                    })
                });
                if changes {
                    self.deny(
                        frame,
                        RuleId::GitPush,
                        format!(
                            "git remote {} changes where the repository's work goes; {}",
                            action.map_or("", |a| a.text.as_str()),
                            self.work_stays()
                        ),
                    )?;
                }
            }
            "remote-ext" => self.fail_closed(frame, RuleId::NotStatic, "git remote-ext runs the command in its URL")?,
            "filter-branch" => self.destructive(frame, "git filter-branch")?,
            "reflog"
                if rest.iter().find(|a| !a.text.starts_with('-')).is_some_and(|a| a.is("expire") || a.is("delete") || a.is("drop")) => self.deny(
                    frame,
                    RuleId::GitDestructive,
                    "git reflog expire/delete would delete the reflog: the history only it reaches could not be recovered; reading it (`git reflog show`) is allowed",
                )?,
            "gc" => {
                let p = gparse(rest, &Opts {
                    short_values: "",
                    longs: &["--prune", "--no-prune", "--aggressive", "--auto", "--quiet", "--force", "--keep-largest-pack", "--detach", "--no-detach", "--cruft", "--no-cruft", "--max-cruft-size=", "--expire-to="],
                });
                let prunes = p.opts.iter().any(|o| {
                    o.name == "--prune" && o.value.as_ref().is_some_and(|v| !v.is("never"))
                });
                if prunes {
                    self.destructive(frame, "git gc --prune=<date> (prunes unreachable objects)")?;
                }
            }
            "prune" => {
                let p = gparse(rest, &Opts { short_values: "", longs: &["--dry-run", "--verbose", "--progress", "--expire="] });
                if !p.has(&["-n", "--dry-run"]) {
                    self.destructive(frame, "git prune of unreachable objects")?;
                }
            }
            "worktree" => self.git_worktree(rest, shell, frame)?,
            "submodule" => {
                if let Some(at) = rest.iter().position(|a| a.is("foreach")) {
                    let script: Vec<Arg> = rest[at + 1..]
                        .iter()
                        .skip_while(|a| a.text.starts_with('-'))
                        .cloned()
                        .collect();
                    return self.script_args("git submodule foreach", &script, shell, frame, false);
                }
                let deinit = rest.iter().any(|a| a.is("deinit"));
                let longs: &[&str] = if deinit {
                    &["--force", "--all", "--quiet"]
                } else {
                    &["--force", "--all", "--init", "--remote", "--recursive", "--checkout", "--merge", "--rebase", "--quiet", "--branch=", "--name=", "--reference=", "--depth=", "--jobs=", "--no-fetch", "--single-branch", "--filter="]
                };
                let p = gparse(rest, &Opts { short_values: "b", longs });
                let action = p.operands.first().and_then(Arg::exact);
                if matches!(action, Some("deinit" | "update")) && p.has(&["-f", "--force"]) {
                    self.destructive(frame, "git submodule deinit/update --force (discards local changes in submodules)")?;
                }
            }
            "bisect" => {
                if let Some(at) = rest.iter().position(|a| a.is("run")) {
                    let argv = rest[at + 1..].to_vec();
                    if !argv.is_empty() {
                        self.dispatch(Cmd { argv, stdin: Stdin::Inherited }, shell, &frame.nested("git bisect run"))?;
                    }
                }
            }
            "for-each-repo" => {
                // Runs a git command in each repository a config key lists.
                let mut at = 0;
                while at < rest.len() && rest[at].text.starts_with("--") {
                    if rest[at].is("--config") {
                        at += 1;
                    }
                    at += 1;
                }
                let mut elsewhere = shell.clone();
                elsewhere.cwd = None;
                self.git(&rest[at.min(rest.len())..], &mut elsewhere, &frame.nested("git for-each-repo"))?;
            }
            "config" => self.git_config(rest, shell, frame)?,
            "diff" | "log" | "show" | "whatchanged" | "range-diff" | "diff-tree" | "diff-index" | "diff-files" => {
                let mut args = rest.iter().take_while(|a| !a.is("--"));
                while let Some(arg) = args.next() {
                    let out = match arg.exact() {
                        Some("--output") => args.next().cloned(),
                        Some(t) => t.strip_prefix("--output=").map(Arg::lit),
                        None => None,
                    };
                    if let Some(out) = out {
                        self.check_write(&out, WriteMode::Clobber, shell, frame, &format!("git {name} --output"))?;
                    }
                }
            }
            _ => {}
        }
        Continue(())
    }

    fn git_extension(
        &mut self,
        name: &str,
        rest: &[Arg],
        inv: &Inv,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if name == "cliff" {
            return self.git_cliff(rest, shell, frame);
        }
        let words: Vec<&str> = rest.iter().filter_map(Arg::exact).collect();
        let has = |w: &str| words.contains(&w);
        match name {
            "lfs" if has("push") => {
                self.deny(frame, RuleId::GitPush, "git lfs push uploads to a remote")?
            }
            "lfs" if has("migrate") => {
                self.destructive(frame, "git lfs migrate (rewrites history)")?
            }
            "flow" if has("publish") || has("-p") || has("--push") => self.deny(
                frame,
                RuleId::GitPush,
                "git flow publish/--push pushes to a remote",
            )?,
            "flow" if has("finish") && (has("release") || has("hotfix")) => self.deny(
                frame,
                RuleId::ProtectedBranch,
                "git flow release/hotfix finish merges into the production branch",
            )?,
            "flow" if has("finish") => self.deny_if_protected(inv, frame, "git flow finish")?,
            "absorb" | "revise" => self.deny_if_protected(inv, frame, &format!("git {name}"))?,
            "filter-repo" => self.destructive(frame, "git filter-repo")?,
            _ => {}
        }
        Continue(())
    }

    /// git-cliff writes its changelog with `-o [PATH]` (CHANGELOG.md by
    /// default) or `-p PATH` (prepends).
    fn git_cliff(&mut self, rest: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let mut args = rest.iter().peekable();
        while let Some(arg) = args.next() {
            let Some(text) = arg.exact() else {
                continue;
            };
            let (mode, value) = match text {
                "-o" | "--output" => (
                    WriteMode::Clobber,
                    match args.peek() {
                        Some(next) if !next.text.starts_with('-') => args.next().cloned(),
                        _ => Some(Arg::lit("CHANGELOG.md")),
                    },
                ),
                "-p" | "--prepend" => (WriteMode::Modify, args.next().cloned()),
                _ => match text.split_once('=') {
                    Some(("--output", v)) => (WriteMode::Clobber, Some(Arg::lit(v))),
                    Some(("--prepend", v)) => (WriteMode::Modify, Some(Arg::lit(v))),
                    _ => continue,
                },
            };
            if let Some(path) = value {
                self.check_write(&path, mode, shell, frame, "git cliff")?;
            }
        }
        Continue(())
    }

    fn git_reset(&mut self, rest: &[Arg], inv: &Inv, shell: &Shell, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "",
                longs: &[
                    "--hard",
                    "--soft",
                    "--mixed",
                    "--keep",
                    "--merge",
                    "--quiet",
                    "--no-quiet",
                    "--pathspec-from-file=",
                    "--pathspec-file-nul",
                    "--refresh",
                    "--no-refresh",
                    "--recurse-submodules",
                    "--no-recurse-submodules",
                    "--intent-to-add",
                    "--patch",
                ],
            },
        );
        if p.has(&["--keep"]) {
            // --keep moves the branch and takes the dropped commits' changes out of the
            // working tree.
            self.deny_if_protected(inv, frame, "git reset")?;
            return self.destructive(
                frame,
                "git reset --keep (drops commits and their changes from the working tree)",
            );
        }
        if p.has(&["--hard", "--merge"]) {
            // What `--hard` discards is the uncommitted work of tracked files, which pawl's
            // checkpoint keeps (docs/guard.md, "The principle"); the branch it moves is the
            // current one, judged like any reset that moves a ref. Without the checkpoint, or
            // into submodules (their trees are not in the checkpoint), it stays denied.
            if !self.checkpoint_keeps(inv, &p) {
                return self.deny(
                    frame,
                    RuleId::GitDestructive,
                    "git reset --hard/--merge discards uncommitted work that no checkpoint of pawl's keeps here (the checkpoint is off, or this is not the run's worktree, or it reaches submodules); `git stash` keeps that work and is allowed",
                );
            }
            self.deny_if_protected(inv, frame, "git reset")?;
            return Continue(());
        }
        if p.has(&["--pathspec-from-file", "-p", "--patch"]) {
            return Continue(());
        }
        let moves_ref = p.has(&["--soft", "--mixed", "--keep"])
            || (p.operands.len() == 1
                && !rest.iter().any(|a| a.is("--"))
                && !p.operands[0].is("HEAD")
                && !self.looks_like_path(shell, &p.operands[0]));
        if moves_ref {
            self.deny_if_protected(inv, frame, "git reset")?;
        }
        Continue(())
    }

    fn git_checkout(&mut self, rest: &[Arg], inv: &Inv, shell: &Shell, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "bB",
                longs: &[
                    "--force",
                    "--patch",
                    "--ours",
                    "--theirs",
                    "--merge",
                    "--overlay",
                    "--no-overlay",
                    "--conflict=",
                    "--pathspec-from-file=",
                    "--pathspec-file-nul",
                    "--orphan=",
                    "--detach",
                    "--track",
                    "--no-track",
                    "--guess",
                    "--no-guess",
                    "--quiet",
                    "--progress",
                    "--no-progress",
                    "--recurse-submodules",
                    "--no-recurse-submodules",
                    "--ignore-skip-worktree-bits",
                    "--ignore-other-worktrees",
                    "--overwrite-ignore",
                    "--no-overwrite-ignore",
                ],
            },
        );
        // `--force` alone discards the uncommitted work of tracked files (and untracked files in
        // the way), which pawl's checkpoint keeps: allowed with it, the switch itself judged as
        // without `--force`. Paths, patches, merges and submodules stay as before.
        let forced = p.has(&["-f", "--force"]);
        if forced && !self.checkpoint_keeps(inv, &p) {
            return self.deny(
                frame,
                RuleId::GitDestructive,
                "git checkout --force discards uncommitted work that no checkpoint of pawl's keeps here (the checkpoint is off, or this is not the run's worktree, or it reaches submodules); `git stash` then `git checkout <branch>` is allowed",
            );
        }
        if p.has(&[
            "-p",
            "--patch",
            "--ours",
            "--theirs",
            "-m",
            "--merge",
            "--overlay",
            "--conflict",
        ]) {
            return self.destructive(frame, "git checkout --patch/--ours/--theirs/--merge");
        }
        if p.has(&["--pathspec-from-file"]) {
            return self.destructive(frame, "git checkout --pathspec-from-file (paths)");
        }
        if p.has(&["-B"]) {
            return self.destructive(
                frame,
                "git checkout -B (resets an existing branch, which may not be the run's; `-b` creates a new one)",
            );
        }
        let dashdash = rest.iter().position(|a| a.is("--"));
        if let Some(at) = dashdash
            && at + 1 < rest.len()
        {
            // `git checkout -- <file>` of named files (from the index): pawl's checkpoint
            // keeps their work, as for `git restore <file>`.
            if at == 0 && self.named_repo_files(&rest[1..], shell) {
                return Continue(());
            }
            return self.deny(
                frame,
                RuleId::GitDestructive,
                "git checkout of paths (all of them, a pathspec or from another commit) discards work that git cannot give back; restoring named files (`git restore <file>`) is allowed",
            );
        }
        if p.has(&["--orphan"]) {
            return self.destructive(
                frame,
                "git checkout --orphan (starts a branch without the run's history)",
            );
        }
        if let Some(created) = p.value(&["-b", "--orphan"]) {
            if p.operands.len() > 1 {
                return self.destructive(frame, "git checkout <commit> <paths>");
            }
            let name = created.exact().map(str::to_owned);
            self.switch_to(inv, name, frame);
            return Continue(());
        }
        match p.operands.as_slice() {
            [] => {}
            [target] => {
                if dashdash.is_none() && self.looks_like_path(shell, target) {
                    // With pawl's checkpoint, `git checkout <path>` of a file or directory of
                    // the repository written out (the form with `--` is `git checkout -- <path>`)
                    // restores it from the index: the work it discards is in the checkpoint. Were
                    // the word a branch as well, git switches to it: recorded as a switch.
                    if self.checkpoint_keeps(inv, &p)
                        && self.named_repo_files(std::slice::from_ref(target), shell)
                    {
                        self.switch_to(inv, branch_of(target), frame);
                        return Continue(());
                    }
                    self.destructive(frame, &format!("git checkout of `{}` (paths)", target.text))?;
                } else if p.has(&["--detach"]) {
                    self.switch_to(inv, Some("(detached)".to_owned()), frame);
                } else {
                    self.switch_to(inv, branch_of(target), frame);
                }
            }
            _ => self.destructive(frame, "git checkout <commit> <paths>")?,
        }
        Continue(())
    }

    fn git_switch(&mut self, rest: &[Arg], inv: &Inv, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "cC",
                longs: &[
                    "--force",
                    "--discard-changes",
                    "--force-create=",
                    "--create=",
                    "--orphan=",
                    "--detach",
                    "--guess",
                    "--no-guess",
                    "--track",
                    "--no-track",
                    "--merge",
                    "--conflict=",
                    "--quiet",
                    "--progress",
                    "--no-progress",
                    "--recurse-submodules",
                    "--no-recurse-submodules",
                    "--ignore-other-worktrees",
                ],
            },
        );
        if p.has(&["-C", "--force-create"]) {
            return self.destructive(
                frame,
                "git switch -C (resets an existing branch, which may not be the run's; `-c` creates a new one)",
            );
        }
        // As `git checkout --force`: the discarded work is in pawl's checkpoint.
        if p.has(&["-f", "--force", "--discard-changes"]) && !self.checkpoint_keeps(inv, &p) {
            return self.deny(
                frame,
                RuleId::GitDestructive,
                "git switch --force/--discard-changes discards uncommitted work that no checkpoint of pawl's keeps here (the checkpoint is off, or this is not the run's worktree, or it reaches submodules); `git stash` then `git switch <branch>` is allowed",
            );
        }
        if p.has(&["--orphan"]) {
            return self.destructive(
                frame,
                "git switch --orphan (empties the working tree of every tracked file and starts a branch without the run's history)",
            );
        }
        let target = if let Some(created) = p.value(&["-c", "--create", "--orphan"]) {
            Some(created.exact().map(str::to_owned))
        } else if p.has(&["--detach", "-d"]) {
            Some(Some("(detached)".to_owned()))
        } else {
            p.operands.first().map(branch_of)
        };
        if let Some(target) = target {
            self.switch_to(inv, target, frame);
        }
        Continue(())
    }

    fn git_branch(&mut self, rest: &[Arg], inv: &Inv, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "u",
                longs: &[
                    "--delete",
                    "--force",
                    "--move",
                    "--copy",
                    "--list",
                    "--contains",
                    "--no-contains",
                    "--merged",
                    "--no-merged",
                    "--color",
                    "--no-color",
                    "--column",
                    "--no-column",
                    "--create-reflog",
                    "--set-upstream-to=",
                    "--unset-upstream",
                    "--track",
                    "--no-track",
                    "--edit-description",
                    "--show-current",
                    "--format=",
                    "--sort=",
                    "--points-at=",
                    "--remotes",
                    "--all",
                    "--verbose",
                    "--quiet",
                    "--abbrev",
                    "--no-abbrev",
                    "--ignore-case",
                    "--omit-empty",
                    "--recurse-submodules",
                ],
            },
        );
        let delete = p.has(&["-d", "--delete"]);
        let force = p.has(&["-f", "--force"]);
        if p.has(&["-D"]) || (delete && force) {
            return self.destructive(frame, "git branch -D");
        }
        if p.has(&["-M", "-C"]) || (force && p.has(&["-m", "--move", "-c", "--copy"])) {
            return self.destructive(frame, "git branch -M/-C (overwrites a branch)");
        }
        if force {
            return self.destructive(frame, "git branch --force (moves a branch)");
        }
        if p.has(&[
            "-u",
            "--set-upstream-to",
            "--unset-upstream",
            "--set-upstream",
        ]) {
            let reason = format!(
                "git branch --set-upstream-to/--unset-upstream changes where the branch pulls from and pushes to; {}",
                self.work_stays()
            );
            return self.deny(frame, RuleId::GitPush, reason);
        }
        let protected = p
            .operands
            .iter()
            .find(|a| self.policy.is_protected_branch(&a.text))
            .map(|a| a.text.clone());
        if p.has(&["-m", "--move", "-c", "--copy"]) {
            let touches = protected.is_some()
                || (p.has(&["-m", "--move"])
                    && p.operands.len() < 2
                    && self.on_protected_branch(inv).is_some());
            if touches || p.operands.iter().any(|a| !a.known) {
                self.deny(
                    frame,
                    RuleId::ProtectedBranch,
                    "git branch -m/-c renames or copies onto a protected branch (or one not statically known)",
                )?;
            }
        }
        if delete && protected.is_some() {
            self.deny(
                frame,
                RuleId::ProtectedBranch,
                "git branch -d of a protected branch",
            )?;
        }
        Continue(())
    }

    fn git_rm(&mut self, rest: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "",
                longs: &[
                    "--cached",
                    "--force",
                    "--dry-run",
                    "--quiet",
                    "--ignore-unmatch",
                    "--sparse",
                    "--pathspec-from-file=",
                    "--pathspec-file-nul",
                ],
            },
        );
        if p.has(&["-n", "--dry-run", "--cached"]) {
            return Continue(());
        }
        if p.has(&["-f", "--force", "-r"]) {
            return self.destructive(frame, "git rm -r/-f");
        }
        if p.has(&["--pathspec-from-file"]) {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                "git rm --pathspec-from-file removes paths the guard cannot see",
            );
        }
        for arg in &p.operands {
            if !arg.known
                || arg.glob
                || arg.text.contains(['*', '?', '['])
                || arg.text.starts_with(':')
            {
                return self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "git rm `{}`: a pathspec that may match protected files",
                        arg.text
                    ),
                );
            }
            self.git_held_removal = true;
            let judged = self.check_write(arg, WriteMode::Delete, shell, frame, "git rm");
            self.git_held_removal = false;
            judged?;
        }
        Continue(())
    }

    fn git_mv(&mut self, rest: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "",
                longs: &["--force", "--dry-run", "--verbose", "--sparse"],
            },
        );
        if p.has(&["-n", "--dry-run"]) {
            return Continue(());
        }
        let Some((dst, sources)) = p.operands.split_last() else {
            return Continue(());
        };
        let mode = if p.has(&["-f", "--force"]) {
            WriteMode::Clobber
        } else {
            WriteMode::Modify
        };
        for src in sources {
            self.check_write(src, WriteMode::Delete, shell, frame, "git mv")?;
            if let (Some(d), Some(s)) = (dst.exact(), src.exact()) {
                let base = s.trim_end_matches('/').rsplit('/').next().unwrap_or(s);
                let inside = Arg::lit(format!("{}/{base}", d.trim_end_matches('/')));
                self.check_write(&inside, mode, shell, frame, "git mv")?;
                if self.holds_tracked(shell, s) {
                    for landing in [dst, &inside] {
                        if self.in_allowance(shell, landing) {
                            return self.deny(
                                frame,
                                RuleId::RecursiveDelete,
                                format!(
                                    "git mv `{s}` to `{}`: it holds tracked files, and there (a build output or temp location) it could be removed as a whole; move it elsewhere",
                                    landing.text
                                ),
                            );
                        }
                    }
                }
            }
        }
        self.check_write(dst, mode, shell, frame, "git mv")
    }

    /// Whether the path `text` is a tracked file of the run's repository or
    /// a directory holding some (unknown places count as holding some).
    fn holds_tracked(&self, shell: &Shell, text: &str) -> bool {
        let Some(root) = self.anchors.repo_root.as_deref() else {
            return false;
        };
        let Some(absolute) = self.resolve(shell, text) else {
            return true;
        };
        paths::relative_to(&absolute, root).is_some_and(|rel| {
            rel.is_empty()
                || self.ctx.tracked.is_tracked(rel)
                || self.ctx.tracked.has_tracked_under(rel)
        })
    }

    /// `git apply`: a patch the guard cannot read writes (creates, deletes)
    /// the files it names, protected ones included; `-R` undoes changes
    /// (`git diff | git apply -R` discards all uncommitted work). Checking
    /// (`--check`, `--stat`, ...) and index-only (`--cached`) modes are fine.
    fn git_apply(&mut self, rest: &[Arg], frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "pC",
                longs: &[
                    "--stat",
                    "--numstat",
                    "--summary",
                    "--check",
                    "--index",
                    "--intent-to-add",
                    "--cached",
                    "--3way",
                    "--no-3way",
                    "--ours",
                    "--theirs",
                    "--union",
                    "--build-fake-ancestor=",
                    "--reverse",
                    "--reject",
                    "--no-add",
                    "--allow-binary-replacement",
                    "--binary",
                    "--exclude=",
                    "--include=",
                    "--ignore-space-change",
                    "--ignore-whitespace",
                    "--whitespace=",
                    "--inaccurate-eof",
                    "--verbose",
                    "--quiet",
                    "--recount",
                    "--directory=",
                    "--unsafe-paths",
                    "--allow-empty",
                    "--apply",
                ],
            },
        );
        let inspects =
            p.has(&["--stat", "--numstat", "--summary", "--check"]) && !p.has(&["--apply"]);
        if inspects {
            return Continue(());
        }
        if p.has(&["-R", "--reverse"]) {
            return self.destructive(
                frame,
                "git apply -R (undoes changes in the working tree; `git diff | git apply -R` discards all uncommitted work)",
            );
        }
        self.fail_closed(
            frame,
            RuleId::NotStatic,
            "git apply writes (and may create or delete) the files its patch names, which the guard cannot read (protected files included; with --cached a later stash or checkout writes them); edit the files directly",
        )
    }

    /// `git subtree add/pull --prefix=DIR REPOSITORY REF`: the prefix is a
    /// directory it fills (with whatever the other repository holds).
    fn git_subtree(&mut self, rest: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "Pm",
                longs: &[
                    "--prefix=",
                    "--message=",
                    "--squash",
                    "--no-squash",
                    "--rejoin",
                    "--quiet",
                    "--debug",
                    "--annotate=",
                    "--branch=",
                    "--onto=",
                    "--ignore-joins",
                ],
            },
        );
        if let Some(prefix) = p.value(&["-P", "--prefix"]).cloned() {
            self.git_writes_dir(&prefix, shell, frame, "git subtree --prefix")?;
        }
        Continue(())
    }

    fn git_update_ref(&mut self, rest: &[Arg], inv: &Inv, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "m",
                longs: &[
                    "--no-deref",
                    "--create-reflog",
                    "--stdin",
                    "--batch-updates",
                    "--message=",
                ],
            },
        );
        if p.has(&["-d", "--stdin"]) {
            return self.destructive(frame, "git update-ref -d/--stdin");
        }
        let Some(reference) = p.operands.first() else {
            return Continue(());
        };
        let Some(text) = reference.exact() else {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                "git update-ref of a ref that is not statically known",
            );
        };
        if text == "HEAD" || text == "@" {
            self.deny_if_protected(inv, frame, "git update-ref HEAD")?;
            return self.destructive(
                frame,
                "git update-ref HEAD (moves the current branch, like a reset, and can drop its commits)",
            );
        }
        let branch = text
            .strip_prefix("refs/heads/")
            .or_else(|| (!text.starts_with("refs/")).then_some(text))
            .unwrap_or("");
        if !branch.is_empty() && self.policy.is_protected_branch(branch) {
            return self.deny_protected_ref(frame, "git update-ref", branch);
        }
        if !branch.is_empty() {
            let current = self
                .branches_at(inv)
                .into_iter()
                .any(|b| b.as_deref().is_none_or(|b| b == branch));
            if current {
                self.destructive(
                    frame,
                    &format!(
                        "git update-ref of `{branch}`, the current branch (or one that may be: moving it is a reset and can drop its commits)"
                    ),
                )?;
            }
        }
        Continue(())
    }

    fn git_symbolic_ref(&mut self, rest: &[Arg], inv: &Inv, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "m",
                longs: &[
                    "--delete",
                    "--quiet",
                    "--short",
                    "--recurse",
                    "--no-recurse",
                ],
            },
        );
        if p.has(&["-d", "--delete"]) {
            return self.destructive(frame, "git symbolic-ref --delete");
        }
        let [name, target, ..] = p.operands.as_slice() else {
            return Continue(());
        };
        match name.exact() {
            Some("HEAD") => {
                let target = target
                    .exact()
                    .map(|t| t.strip_prefix("refs/heads/").unwrap_or(t).to_owned());
                self.switch_to(inv, target, frame);
            }
            Some(text) => {
                let branch = text.strip_prefix("refs/heads/").unwrap_or(text);
                if self.policy.is_protected_branch(branch) {
                    self.deny_protected_ref(frame, "git symbolic-ref", branch)?;
                }
            }
            None => self.fail_closed(
                frame,
                RuleId::NotStatic,
                "git symbolic-ref of a ref that is not statically known",
            )?,
        }
        Continue(())
    }

    fn git_rebase(&mut self, rest: &[Arg], inv: &Inv, shell: &mut Shell, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "xsXC",
                longs: &[
                    "--exec=",
                    "--onto=",
                    "--strategy=",
                    "--strategy-option=",
                    "--abort",
                    "--quit",
                    "--skip",
                    "--continue",
                    "--edit-todo",
                    "--show-current-patch",
                    "--interactive",
                    "--root",
                    "--autosquash",
                    "--no-autosquash",
                    "--autostash",
                    "--no-autostash",
                    "--keep-base",
                    "--empty=",
                    "--rebase-merges",
                    "--no-rebase-merges",
                    "--update-refs",
                    "--no-update-refs",
                    "--gpg-sign",
                    "--no-gpg-sign",
                    "--signoff",
                    "--committer-date-is-author-date",
                    "--reset-author-date",
                    "--ignore-date",
                    "--whitespace=",
                    "--force-rebase",
                    "--no-ff",
                    "--fork-point",
                    "--no-fork-point",
                    "--merge",
                    "--apply",
                    "--verbose",
                    "--quiet",
                    "--stat",
                    "--no-stat",
                    "--no-verify",
                    "--verify",
                    "--reschedule-failed-exec",
                    "--no-reschedule-failed-exec",
                    "--ignore-whitespace",
                    "--keep-empty",
                    "--no-keep-empty",
                    "--reapply-cherry-picks",
                    "--no-reapply-cherry-picks",
                    "--allow-empty-message",
                    "--trailer=",
                ],
            },
        );
        for exec in values(&p, &["-x", "--exec"]) {
            self.git_program("git rebase --exec", exec.and_then(Arg::exact), shell, frame)?;
        }
        if p.has(&["--abort", "--quit", "--edit-todo", "--show-current-patch"]) {
            return Continue(());
        }
        if p.has(&["--onto"]) {
            return self.destructive(
                frame,
                "git rebase --onto (drops every commit between the new base and the upstream it names)",
            );
        }
        if p.has(&["--root"]) {
            return self.destructive(
                frame,
                "git rebase --root (rewrites every commit of the branch, those it shares with the protected branch included)",
            );
        }
        if values(&p, &["-s", "--strategy"])
            .any(|v| v.is_none_or(|v| v.exact().is_none_or(|t| t.eq_ignore_ascii_case("ours"))))
        {
            return self.destructive(
                frame,
                "git rebase -s ours (replays every commit as empty, dropping its changes)",
            );
        }
        if p.has(&["-i", "--interactive"]) {
            self.interactive_rebase(inv, shell, frame, "git rebase -i")?;
        }
        if p.operands.len() >= 2 {
            let target = branch_of(&p.operands[1]);
            self.switch_to(inv, target, frame);
        }
        self.deny_if_protected(inv, frame, "git rebase")
    }

    fn git_fetch(
        &mut self,
        name: &str,
        rest: &[Arg],
        inv: &Inv,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "jsXo",
                longs: &[
                    "--upload-pack=",
                    "--refmap=",
                    "--all",
                    "--multiple",
                    "--prune",
                    "--prune-tags",
                    "--tags",
                    "--no-tags",
                    "--depth=",
                    "--jobs=",
                    "--update-head-ok",
                    "--dry-run",
                    "--force",
                    "--append",
                    "--atomic",
                    "--recurse-submodules",
                    "--set-upstream",
                    "--negotiation-tip=",
                    "--shallow-since=",
                    "--shallow-exclude=",
                    "--deepen=",
                    "--server-option=",
                    "--filter=",
                    "--porcelain",
                    "--write-fetch-head",
                    "--no-write-fetch-head",
                    "--quiet",
                    "--verbose",
                    "--progress",
                    "--unshallow",
                    "--update-shallow",
                    "--keep",
                    "--prefetch",
                    "--refetch",
                    "--auto-maintenance",
                    "--auto-gc",
                    "--show-forced-updates",
                    "--stdin",
                    "--ipv4",
                    "--ipv6",
                    "--rebase",
                    "--no-rebase",
                    "--ff",
                    "--ff-only",
                    "--no-ff",
                    "--squash",
                    "--no-squash",
                    "--commit",
                    "--no-commit",
                    "--edit",
                    "--no-edit",
                    "--strategy=",
                    "--strategy-option=",
                    "--autostash",
                    "--no-autostash",
                    "--verify",
                    "--no-verify",
                    "--signoff",
                    "--stat",
                    "--no-stat",
                    "--log",
                    "--no-log",
                    "--cleanup=",
                ],
            },
        );
        let what = format!("git {name}");
        for value in values(&p, &["--upload-pack"]) {
            self.git_program(
                &format!("{what} --upload-pack"),
                value.and_then(Arg::exact),
                shell,
                frame,
            )?;
        }
        if p.has(&["--stdin"]) {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{what} --stdin reads refspecs the guard cannot see"),
            )?;
        }
        for refmap in values(&p, &["--refmap"]).flatten() {
            let refmap = refmap.clone();
            self.git_refspec(&format!("{what} --refmap"), &refmap, frame)?;
        }
        if !p.has(&["--multiple", "--all"]) {
            for operand in p.operands.iter().skip(1) {
                self.git_refspec(&what, operand, frame)?;
            }
        }
        // From a repository named by path or URL rather than a configured remote:
        // its commits are ones the guard never saw written (one made in a clone
        // under /tmp), and merging them writes any file, protected ones included.
        let sources: Vec<&Arg> = if p.has(&["--multiple"]) {
            p.operands.iter().collect()
        } else {
            p.operands.iter().take(1).collect()
        };
        if let Some(source) = sources.into_iter().find(|a| {
            a.exact().is_none_or(|t| {
                t != "."
                    && (t.contains('/')
                        || t.contains(':')
                        || t.starts_with('.')
                        || t.starts_with('~'))
            })
        }) {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "{what} from `{}`, a repository named by path or URL rather than a configured remote: its commits were written where the guard could not see, and merging them writes any file, protected ones included",
                    source.text
                ),
            )?;
        }
        if name == "pull" {
            let interactive_value =
                |t: &str| matches!(t.to_ascii_lowercase().as_str(), "i" | "interactive");
            let interactive = values(&p, &["--rebase"])
                .flatten()
                .any(|v| v.exact().is_none_or(interactive_value))
                || inv.settings.iter().any(|(k, v)| {
                    (k == "pull.rebase" || (k.starts_with("branch.") && k.ends_with(".rebase")))
                        && v.as_deref().is_none_or(interactive_value)
                });
            let rebases = p.has(&["-r", "--rebase"]) && !p.has(&["--no-rebase"]);
            let ours = values(&p, &["-s", "--strategy"]).any(|v| {
                v.is_none_or(|v| v.exact().is_none_or(|t| t.eq_ignore_ascii_case("ours")))
            });
            if rebases && ours {
                self.destructive(
                    frame,
                    "git pull --rebase -s ours (replays every commit as empty, dropping its changes)",
                )?;
            }
            if interactive {
                self.interactive_rebase(inv, shell, frame, "git pull --rebase=interactive")?;
            }
            self.deny_if_protected(inv, frame, "git pull")?;
        }
        Continue(())
    }

    fn git_clone(&mut self, rest: &[Arg], inv: &Inv, shell: &mut Shell, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "uocbj",
                longs: &[
                    "--upload-pack=",
                    "--template=",
                    "--config=",
                    "--origin=",
                    "--branch=",
                    "--depth=",
                    "--reference=",
                    "--reference-if-able=",
                    "--separate-git-dir=",
                    "--jobs=",
                    "--server-option=",
                    "--filter=",
                    "--bare",
                    "--mirror",
                    "--no-checkout",
                    "--recurse-submodules",
                    "--shallow-since=",
                    "--shallow-exclude=",
                    "--bundle-uri=",
                    "--revision=",
                    "--local",
                    "--no-hardlinks",
                    "--shared",
                    "--dissociate",
                    "--quiet",
                    "--verbose",
                    "--progress",
                    "--single-branch",
                    "--no-tags",
                    "--shallow-submodules",
                    "--remote-submodules",
                    "--sparse",
                    "--also-filter-submodules",
                    "--ref-format=",
                ],
            },
        );
        let _ = inv;
        for value in values(&p, &["-u", "--upload-pack"]) {
            self.git_program(
                "git clone --upload-pack",
                value.and_then(Arg::exact),
                shell,
                frame,
            )?;
        }
        if p.has(&["--template"]) {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                "git clone --template copies hooks from a directory the guard cannot see",
            )?;
        }
        for setting in values(&p, &["-c", "--config"]) {
            match setting.and_then(split_setting) {
                Some((key, value)) => {
                    self.git_setting("git clone --config", &key, value.as_deref(), shell, frame)?;
                }
                None => self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    "git clone --config with a setting that is not statically known",
                )?,
            }
        }
        let dir = match p.operands.as_slice() {
            [_, dir, ..] => dir.exact().map(str::to_owned),
            [url] => url.exact().map(|u| {
                let base = u
                    .trim_end_matches('/')
                    .rsplit(['/', ':'])
                    .next()
                    .unwrap_or(u);
                base.strip_suffix(".git").unwrap_or(base).to_owned()
            }),
            [] => None,
        };
        if let Some(dir) = &dir {
            self.git_writes_dir(&Arg::lit(dir), shell, frame, "git clone")?;
        }
        if let Some(separate) = p.value(&["--separate-git-dir"]).cloned() {
            self.git_writes_dir(&separate, shell, frame, "git clone")?;
        }
        if let Some(dir) = dir.and_then(|d| self.resolve(shell, &d)) {
            self.world.git_repos.push(dir);
            self.world.git_repos.truncate(64);
        }
        Continue(())
    }

    fn git_worktree(&mut self, rest: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "bB",
                longs: &[
                    "--force",
                    "--detach",
                    "--checkout",
                    "--no-checkout",
                    "--lock",
                    "--reason=",
                    "--orphan",
                    "--track",
                    "--no-track",
                    "--guess-remote",
                    "--no-guess-remote",
                    "--quiet",
                    "--relative-paths",
                    "--no-relative-paths",
                    "--expire=",
                    "--verbose",
                    "--porcelain",
                    "-z",
                ],
            },
        );
        match p.operands.first().and_then(Arg::exact) {
            Some(sub @ ("remove" | "move")) => {
                if sub == "remove" && p.has(&["-f", "--force"]) {
                    self.destructive(frame, "git worktree remove --force")?;
                }
                // The worktree's directory goes away (removed, or moved elsewhere): judged
                // like a recursive delete of it — another story's worktree is protected.
                if let Some(target) = p.operands.get(1) {
                    let what = format!("git worktree {sub}");
                    self.check_write(target, WriteMode::Delete, shell, frame, &what)?;
                    self.delete_operands(&what, std::slice::from_ref(target), true, shell, frame)?;
                }
            }
            Some("add") => {
                if let Some(reset) = p.value(&["-B"]) {
                    if reset
                        .exact()
                        .is_none_or(|b| self.policy.is_protected_branch(b))
                    {
                        self.deny_protected_ref(frame, "git worktree add -B", &reset.text)?;
                    } else {
                        self.destructive(frame, "git worktree add -B (resets an existing branch)")?;
                    }
                    return Continue(());
                }
                if let Some(created) = p.value(&["-b"])
                    && created
                        .exact()
                        .is_none_or(|b| self.policy.is_protected_branch(b))
                {
                    return self.deny_protected_ref(frame, "git worktree add -b", &created.text);
                }
                // A worktree made inside a repository recorded as another
                // one belongs to that one; one of ours is a place whose
                // branch is unknown: forget the record.
                if let Some(target) = p.operands.get(1) {
                    self.git_writes_dir(target, shell, frame, "git worktree add")?;
                }
                if let Some(path) = p
                    .operands
                    .get(1)
                    .and_then(Arg::exact)
                    .and_then(|d| self.resolve(shell, d))
                {
                    self.world.git_repos.retain(|r| !paths::is_within(&path, r));
                }
            }
            _ => {}
        }
        Continue(())
    }

    /// `git config` in its old (`git config [--add] key value`) and new
    /// (`git config set key value`) forms: a setting written is judged like
    /// `-c`, and an alias it defines is remembered for the rest of the input.
    fn git_config(&mut self, rest: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "f",
                longs: &[
                    "--global",
                    "--system",
                    "--local",
                    "--worktree",
                    "--file=",
                    "--blob=",
                    "--get",
                    "--get-all",
                    "--get-regexp",
                    "--get-urlmatch",
                    "--get-color",
                    "--get-colorbool",
                    "--list",
                    "--unset",
                    "--unset-all",
                    "--rename-section",
                    "--remove-section",
                    "--edit",
                    "--add",
                    "--replace-all",
                    "--type=",
                    "--bool",
                    "--int",
                    "--bool-or-int",
                    "--path",
                    "--expiry-date",
                    "--fixed-value",
                    "--null",
                    "--name-only",
                    "--show-origin",
                    "--show-scope",
                    "--includes",
                    "--no-includes",
                    "--default=",
                    "--comment=",
                    "--value=",
                    "--all",
                    "--append",
                    "--url=",
                    "--regexp",
                    "--no-type",
                ],
            },
        );
        self.git_config_redirects(&p, frame)?;
        let reading = p.has(&[
            "--get",
            "--get-all",
            "--get-regexp",
            "--get-urlmatch",
            "--get-color",
            "--get-colorbool",
            "-l",
            "--list",
            "--unset",
            "--unset-all",
            "--remove-section",
            "-e",
            "--edit",
            "--blob",
        ]);
        if reading {
            return Continue(());
        }
        let mut operands: &[Arg] = &p.operands;
        let mut rename = p.has(&["--rename-section"]);
        if let Some(action) = operands.first().and_then(Arg::exact) {
            match action {
                "set" => operands = &operands[1..],
                "rename-section" => {
                    operands = &operands[1..];
                    rename = true;
                }
                "list" | "get" | "unset" | "remove-section" | "edit" => return Continue(()),
                _ => {}
            }
        }
        if rename {
            let new = operands.get(1);
            let section = new
                .and_then(Arg::exact)
                .map(|s| s.split('.').next().unwrap_or(s).to_ascii_lowercase());
            if section.is_none_or(|s| PROGRAM_SECTIONS.contains(&s.as_str())) {
                self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    "git config --rename-section into a section that can define aliases or programs",
                )?;
            }
            return Continue(());
        }
        let (Some(key), Some(value)) = (operands.first(), operands.get(1)) else {
            return Continue(());
        };
        if let Some(file) = p.value(&["-f", "--file"]).cloned() {
            self.check_write(&file, WriteMode::Modify, shell, frame, "git config --file")?;
        }
        let Some(key) = key.exact() else {
            self.world.git_aliases_unknown = true;
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "git config of a key `{}` that is not statically known",
                    key.text
                ),
            );
        };
        let alias = self.git_setting("git config", key, value.exact(), shell, frame)?;
        // Judged as a program now (above) and refused as a lasting one: written into git's
        // configuration it runs in every later git command, pawl's own included.
        if !p.has(&["-f", "--file", "--blob"])
            && let Some(why) = lasting_program(key, value.exact())
        {
            return self.tamper(
                frame,
                format!(
                    "`git config {key}` {why}: every later git command in this repository (pawl's own, the user's) would use it; only the user sets that"
                ),
            );
        }
        if let Some((alias, value)) = alias {
            self.world.git_aliases.insert(alias, value);
        }
        Continue(())
    }
}

/// Forge and other version-control clients: the commands of each group
/// that only read. Anything else may publish or change the remote (merge,
/// create, comment, release, API writes) and is denied; a group the table
/// does not know may be an alias or extension and is denied as unknown.
const GH_READ_ONLY: &[(&str, &[&str])] = &[
    ("pr", &["view", "list", "diff", "checks", "status"]),
    ("mr", &["view", "list", "diff", "issues"]),
    ("issue", &["view", "list", "status"]),
    ("run", &["view", "list", "watch"]),
    ("ci", &["view", "list", "status", "get", "trace"]),
    ("workflow", &["view", "list"]),
    ("release", &["view", "list"]),
    ("repo", &["view", "list"]),
    ("gist", &["view", "list"]),
    ("label", &["list"]),
    ("secret", &["list"]),
    ("variable", &["list", "get"]),
    ("cache", &["list"]),
    ("ruleset", &["list", "view", "check"]),
    ("project", &["list", "view", "field-list", "item-list"]),
    ("search", &["repos", "issues", "prs", "code", "commits"]),
    ("auth", &["status"]),
    ("config", &["get", "list"]),
    ("extension", &["list"]),
    ("alias", &["list"]),
    ("org", &["list"]),
    ("codespace", &["list"]),
];

/// Top-level commands (no action) that only read.
const GH_READ_ONLY_TOP: &[&str] = &["status", "version", "help", "completion"];

/// Environment variables whose value gh or glab runs as a program.
#[rustfmt::skip]
const GH_PROGRAM_ENV: &[&str] = &[
    "GH_PAGER", "GLAB_PAGER", "PAGER", "GH_BROWSER", "BROWSER", "GH_EDITOR", "GLAB_EDITOR",
    "GIT_EDITOR", "VISUAL", "EDITOR",
];

/// The verdict on a forge API call: `Ok` when it only reads.
fn api_reads(args: &[Arg]) -> Result<(), String> {
    let p = crate::rules::parse(
        args,
        &crate::rules::Spec {
            short_values: "XfFHqtp",
            long_values: &[
                "--method",
                "--field",
                "--raw-field",
                "--input",
                "--header",
                "--jq",
                "--template",
                "--hostname",
                "--preview",
                "--cache",
            ],
            stop_at_operand: false,
        },
    );
    let fields: Vec<&Opt> = p
        .opts
        .iter()
        .filter(|o| matches!(o.name.as_str(), "-f" | "-F" | "--field" | "--raw-field"))
        .collect();
    let input = p.has(&["--input"]);
    let method = match p.value(&["-X", "--method"]) {
        Some(m) => match m.exact() {
            Some(m) => m.to_ascii_uppercase(),
            None => {
                return Err(format!(
                    "a method `{}` that is not statically known",
                    m.text
                ));
            }
        },
        None if input || !fields.is_empty() => "POST".to_owned(),
        None => "GET".to_owned(),
    };
    if matches!(method.as_str(), "GET" | "HEAD") {
        return Ok(());
    }
    let graphql = p.operands.first().is_some_and(|e| e.is("graphql"));
    if graphql && method == "POST" && !input {
        // A GraphQL query is read-only; a mutation writes.
        let all_queries = fields.iter().all(|f| {
            f.value
                .as_ref()
                .and_then(Arg::exact)
                .is_some_and(|v| !v.to_ascii_lowercase().contains("mutation") && !v.contains("=@"))
        });
        if all_queries {
            return Ok(());
        }
        return Err("a GraphQL mutation (or a query the guard cannot read)".to_owned());
    }
    Err(format!(
        "a {method} request (fields or --input make it a POST)"
    ))
}

impl Walker<'_> {
    /// Judges `gh`, `glab`, `hub`, `hg` and `svn`: everything that publishes
    /// to a remote (pull requests, merges, releases, API writes, pushes,
    /// commits to a server) is denied while a run is active.
    pub(crate) fn forge(
        &mut self,
        base: &str,
        args: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let before_dashdash = || args.iter().take_while(|a| !a.is("--"));
        if before_dashdash().any(|a| a.is("--help") || a.is("-h") || a.is("--version")) {
            return Continue(());
        }
        match base {
            "hg" => self.hg(args, frame)?,
            "svn" => self.svn(args, frame)?,
            "hub" => self.hub(args, shell, frame)?,
            _ => self.gh(base, args, shell, frame)?,
        }
        Continue(())
    }

    fn forge_deny(&mut self, frame: &Frame, what: &str) -> Judged {
        let reason = format!(
            "{what} may publish or change the remote (merge, create, comment, release, API writes) or where work goes; {} (pull requests included). Read-only commands (pr view/list/diff/checks, issue view/list, run view/list, api GET) are allowed",
            self.work_stays()
        );
        self.deny(frame, RuleId::GitPush, reason)
    }

    fn gh(&mut self, base: &str, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        for name in GH_PROGRAM_ENV {
            if let Some(value) = Self::git_env(shell, name) {
                let mut clean = shell.clone();
                clean.env.retain(|(n, _)| n != name);
                clean.vars.remove(*name);
                self.git_program(
                    &format!("{name} given to {base}"),
                    value.as_deref(),
                    &mut clean,
                    frame,
                )?;
            }
        }
        let Some(group) = args.first() else {
            return Continue(());
        };
        let Some(group_name) = group.exact() else {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "the {base} command `{}` is not statically known",
                    group.text
                ),
            );
        };
        if group_name == "api" {
            if let Err(why) = api_reads(&args[1..]) {
                self.forge_deny(frame, &format!("{base} api with {why}"))?;
            }
            return Continue(());
        }
        if GH_READ_ONLY_TOP.contains(&group_name) {
            return Continue(());
        }
        let Some((_, reads)) = GH_READ_ONLY.iter().find(|(g, _)| *g == group_name) else {
            let known = [
                "browse",
                "pr",
                "mr",
                "issue",
                "run",
                "ci",
                "workflow",
                "release",
                "repo",
                "gist",
                "secret",
                "variable",
                "cache",
                "ruleset",
                "project",
                "label",
                "auth",
                "config",
                "extension",
                "ext",
                "alias",
                "org",
                "codespace",
                "ssh-key",
                "gpg-key",
                "attestation",
                "copilot",
                "incident",
                "schedule",
                "snippet",
                "stack",
                "token",
                "user",
                "deploy-key",
                "changelog",
                "cluster",
                "duo",
                "iteration",
                "job",
                "milestone",
            ];
            if known.contains(&group_name) {
                self.forge_deny(frame, &format!("{base} {group_name}"))?;
            } else {
                self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("`{base} {group_name}` is not a {base} command the guard knows; it may be an alias or extension that publishes"),
                )?;
            }
            return Continue(());
        };
        // The action: the first operand, past `-R/--repo OWNER/REPO`.
        let mut at = 1;
        let mut action = None;
        while at < args.len() {
            let arg = &args[at];
            at += 1;
            match arg.exact() {
                Some("-R" | "--repo") => at += 1,
                Some(t) if t.starts_with('-') => {}
                _ => {
                    action = Some(arg);
                    break;
                }
            }
        }
        let Some(action) = action else {
            // `gh pr` alone prints help.
            return Continue(());
        };
        if action.exact().is_some_and(|a| reads.contains(&a)) {
            return Continue(());
        }
        match (group_name, action.exact()) {
            // `gh repo clone OWNER/REPO [DIR] [-- GITFLAGS]` runs `git clone`.
            ("repo", Some("clone")) => {
                let rest = &args[at..];
                let dashdash = rest.iter().position(|a| a.is("--"));
                let (own, git_flags) = match dashdash {
                    Some(d) => (&rest[..d], &rest[d + 1..]),
                    None => (rest, &[][..]),
                };
                let operands: Vec<&Arg> = own.iter().filter(|a| !a.text.starts_with('-')).collect();
                let Some(repo) = operands.first() else {
                    return Continue(());
                };
                let mut argv = vec![Arg::lit("clone")];
                argv.extend(git_flags.iter().cloned());
                // The URL's last part names the directory, as for git.
                argv.push(Arg {
                    text: format!("https://github.com/{}", repo.text),
                    known: repo.known,
                    glob: false,
                });
                argv.extend(operands.get(1).map(|d| (*d).clone()));
                self.git(&argv, shell, frame)?;
            }
            ("pr" | "mr", Some("checkout")) => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{base} {group_name} checkout switches to a branch the guard cannot know"),
            )?,
            // `gh release download`: the release's assets, files the guard cannot list, written
            // into `--dir` (the current directory by default) — judged as an archive extracted
            // there — or into the one file `--output` names.
            ("release", Some("download")) => {
                let rest = &args[at..];
                let value = |long: &str, short: &str| {
                    rest.iter().enumerate().find_map(|(i, a)| {
                        if a.is(long) || a.is(short) {
                            Some(rest.get(i + 1).cloned())
                        } else {
                            a.text.strip_prefix(&format!("{long}=")).map(|v| {
                                Some(Arg {
                                    text: v.to_owned(),
                                    ..a.clone()
                                })
                            })
                        }
                    })
                };
                let what = format!("{base} release download");
                match (value("--output", "-O"), value("--dir", "-D")) {
                    (Some(Some(file)), _) if file.is("-") => {}
                    (Some(Some(file)), _) => {
                        self.check_write(&file, WriteMode::Clobber, shell, frame, &what)?;
                    }
                    (Some(None), _) | (_, Some(None)) => self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("{what}: an option lacks its value"),
                    )?,
                    // Asset names hold no `/`, and without `--clobber` gh refuses a file
                    // that exists (a link planted there included): the assets stay inside.
                    (None, dir) => {
                        let inside = !rest.iter().any(|a| a.is("--clobber"));
                        let dir = dir.flatten();
                        self.check_extract_into(&what, dir.as_ref(), inside, shell, frame)?
                    }
                }
            }
            (_, Some("download" | "clone")) => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "{base} {group_name} {} writes files the guard cannot list",
                    action.text
                ),
            )?,
            _ => self.forge_deny(frame, &format!("{base} {group_name} {}", action.text))?,
        }
        Continue(())
    }

    fn hub(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let first = args.iter().find(|a| !a.text.starts_with('-'));
        let Some(first) = first else {
            return self.git(args, shell, frame);
        };
        match first.exact() {
            Some("api") => {
                let at = args.iter().position(|a| a.is("api")).unwrap_or(0);
                if let Err(why) = api_reads(&args[at + 1..]) {
                    self.forge_deny(frame, &format!("hub api with {why}"))?;
                }
            }
            Some("pull-request" | "create" | "fork" | "delete" | "sync" | "merge") => {
                self.forge_deny(frame, &format!("hub {}", first.text))?
            }
            Some(
                group @ ("issue" | "pr" | "release" | "gist" | "ci-status" | "compare" | "browse"),
            ) => {
                let action = args
                    .iter()
                    .skip_while(|a| !a.is(group))
                    .skip(1)
                    .find(|a| !a.text.starts_with('-'));
                let reads = match group {
                    "ci-status" | "compare" => true,
                    "browse" => false,
                    _ => action.is_none_or(|a| a.is("show") || a.is("list") || a.is("checkout")),
                };
                if !reads {
                    self.forge_deny(frame, &format!("hub {group}"))?;
                }
            }
            // hub wraps git: everything else is a git command.
            _ => self.git(args, shell, frame)?,
        }
        Continue(())
    }

    fn hg(&mut self, args: &[Arg], frame: &Frame) -> Judged {
        let mut at = 0;
        while at < args.len() {
            match args[at].exact() {
                Some("--config") => {
                    return self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "hg --config may define aliases or hooks that run programs the guard cannot see",
                    );
                }
                Some("-R" | "--repository" | "--cwd") => at += 2,
                Some(t) if t.starts_with('-') => at += 1,
                _ => break,
            }
        }
        let Some(command) = args.get(at) else {
            return Continue(());
        };
        let Some(name) = command.exact() else {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("the hg command `{}` is not statically known", command.text),
            );
        };
        // hg accepts any unambiguous prefix of a command (`hg pus`).
        let publishes = ["push", "email", "phabsend", "phabupdate"]
            .iter()
            .any(|c| *c == name || (name.len() >= 3 && c.starts_with(name)));
        if publishes {
            self.deny(
                frame,
                RuleId::GitPush,
                format!(
                    "hg {name} publishes to a remote; publishing is the user's call after the run"
                ),
            )?;
        }
        Continue(())
    }

    fn svn(&mut self, args: &[Arg], frame: &Frame) -> Judged {
        let operands: Vec<&Arg> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
        let Some(command) = operands.first() else {
            return Continue(());
        };
        let Some(name) = command.exact() else {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("the svn command `{}` is not statically known", command.text),
            );
        };
        let commits = matches!(name, "commit" | "ci" | "import");
        let url = |a: &&&Arg| !a.known || a.text.contains("://") || a.text.starts_with("^/");
        let on_server = matches!(
            name,
            "copy"
                | "cp"
                | "move"
                | "mv"
                | "rename"
                | "ren"
                | "delete"
                | "del"
                | "remove"
                | "rm"
                | "mkdir"
                | "lock"
                | "unlock"
                | "propset"
                | "pset"
                | "ps"
                | "propdel"
                | "pdel"
                | "pd"
                | "propedit"
                | "pedit"
                | "pe"
        ) && (operands.iter().skip(1).any(|a| url(&a))
            || args.iter().any(|a| a.is("--revprop")));
        if commits || on_server {
            self.deny(
                frame,
                RuleId::GitPush,
                format!("svn {name} commits to the Subversion server; publishing is the user's call after the run"),
            )?;
        }
        Continue(())
    }
}

impl Walker<'_> {
    /// `git add --force` of `.pawl/` (or of everything): pawl's store and session marker would
    /// be staged, and a later checkout of another branch would take them out of the tree.
    fn git_add_force(&mut self, rest: &[Arg], inv: &Inv, frame: &Frame) -> Judged {
        let p = gparse(
            rest,
            &Opts {
                short_values: "",
                longs: &[
                    "--force",
                    "--all",
                    "--update",
                    "--dry-run",
                    "--verbose",
                    "--intent-to-add",
                    "--refresh",
                    "--ignore-errors",
                    "--ignore-missing",
                    "--no-all",
                    "--ignore-removal",
                    "--no-ignore-removal",
                    "--chmod=",
                    "--pathspec-from-file=",
                    "--pathspec-file-nul",
                    "--renormalize",
                    "--sparse",
                    "--patch",
                    "--interactive",
                    "--edit",
                    "--no-warn-embedded-repo",
                ],
            },
        );
        if !p.has(&["-f", "--force"]) || p.has(&["-n", "--dry-run"]) {
            return Continue(());
        }
        let Some(root) = self.anchors.repo_root.clone() else {
            return Continue(());
        };
        let state = paths::normalize(&root, ".pawl");
        let reaches = |arg: &Arg| -> bool {
            let Some(text) = arg.exact().filter(|t| !t.starts_with(':')) else {
                return true;
            };
            let Some(dir) = inv.dir.as_deref() else {
                return true;
            };
            let path = paths::normalize(dir, text);
            paths::is_within(&path, &state) || paths::is_within(&state, &path)
        };
        let everything = p.operands.is_empty() && p.has(&["-A", "--all", "--pathspec-from-file"]);
        if everything || p.operands.iter().any(reaches) {
            self.tamper(
                frame,
                "git add --force of `.pawl/` stages pawl's store and session marker (ignored on purpose); add the files you mean by name",
            )?;
        }
        Continue(())
    }
}
