//! The checks' Go build cache (issue 32 point 5: "every build in a verification that could
//! SHIP uses a build directory and build cache written only by pawl's own builds").
//!
//! Go finds a compiled object by its action ID (a hash of the compile's inputs) and trusts
//! what the cache entry names. A step may write HOME and so the user's cache
//! (`~/.cache/go-build`): it can compile the right code once and point the wrong tree's
//! actions at the right objects, and every check that read the user's cache then built the
//! right code from the wrong tree (seen: the attack in the cli's `sandbox` tests). So the
//! checks never read the user's cache. Their `GOCACHE` is [`shared_dir`], `go-build/` in
//! pawl's user state (beside `rooms/`), out of every step's reach and hidden from every check:
//!
//! - **Written only by pawl's own build** ([`warm`]): before the checks of a tree run, pawl runs
//!   `go build`, `go vet` and `go test -exec=/bin/true` (plain and `-cover`), as the checks'
//!   commands ask for them ([`WARM_PARTS`]), on it, in the room, under the check sandbox, with
//!   the cache bound writable. None of them runs code of
//!   the project: `go build` and `go vet` compile and analyse (cgo's flags are allow-listed by
//!   go), and `-exec=/bin/true` runs `/bin/true` where the test binary would run. The command
//!   is pawl's, never the project's (no script, no Makefile).
//! - **Read copy-on-write by every check** ([`bind_for_checks`]): the cache is seen at
//!   [`SEEN_AT`] in the check's private `/tmp` through an overlay whose upper layer goes with
//!   the check. A check's own compiles (a variant the warm build did not make) and whatever
//!   its test processes write there are discarded: nothing a check or a test wrote is read by
//!   a later one.
//! - **Shared by every room** (a run's, a story's, the rooms apart, every repository's): its
//!   entries are content-addressed and only pawl's own builds wrote them, so a new room (each
//!   story's) starts warm instead of building the standard library again.
//! - **Without mount namespaces** (the Landlock-only fallback) nothing can be bound: the
//!   checks use their room's own directory ([`dir`], `go-build/` in the room directory),
//!   writable (a check's test process could write it, and a later check of the same room read
//!   it), never the shared one. The fallback's verdict is at most REVIEW anyway (pawl's key is
//!   readable there); the user's cache is still never read.
//!
//! - **Where the checks build** ([`super::workdirs`]): in each directory a check runs `go` in
//!   (`cd svc && go test ./...`, `go -C svc test ./...`) that is in a module (`go.mod` or
//!   `go.work` there or above, within the tree), and at the tree's root when a command names
//!   no `go` (a script) and the root is a module. A monorepo's module in a sub-folder is
//!   warmed as its checks build it.
//!
//! Known limits: a module a script builds (`make test` running `cd svc && go test`) is not
//! seen; only the root is warmed for it, and the sub-folder's module builds cold in every
//! check (still never from the user's cache).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pawl_verify::{Check, CheckRun, RunnerConfig};

/// The Go build cache's directory name (in pawl's user state, in a room directory).
pub const GO_BUILD: &str = "go-build";

/// Where a check sees the cache (in its private `/tmp`).
pub const SEEN_AT: &str = "/tmp/pawl-go-build";

/// The name of pawl's own build that warms the cache (its log is `go-build-cache-<step>.log`).
pub const WARM_CHECK: &str = "go-build-cache";

/// The parts of pawl's own build of a Go tree: each is made when a check's command asks for
/// what it warms (the command holds `go <sub>` and every word of the row's flags), every one
/// when no command names `go` (a script or a Makefile: what it runs is not known). Each
/// compiles and links, and runs nothing of the project (`-exec=/bin/true` runs `/bin/true`
/// where the test binary would run). Each runs whatever the one before did (a tree that does
/// not compile still warms the rest).
pub const WARM_PARTS: &[(&str, &[&str], &str)] = &[
    ("build", &[], "go build ./..."),
    ("vet", &[], "go vet ./..."),
    ("test", &[], "go test -count=1 -exec=/bin/true ./..."),
    (
        "test",
        &["-cover"],
        "go test -count=1 -cover -exec=/bin/true ./...",
    ),
];

/// pawl's own build for checks whose commands are `commands` ([`WARM_PARTS`]).
pub fn warm_command(commands: &[&str]) -> String {
    let words: Vec<Vec<&str>> = commands
        .iter()
        .map(|c| c.split_whitespace().collect())
        .collect();
    let names_go = words.iter().any(|w| w.contains(&"go"));
    WARM_PARTS
        .iter()
        .filter(|(sub, flags, _)| {
            !names_go
                || words.iter().any(|w| {
                    go_subcommands(w).any(|s| s == *sub)
                        && flags.iter().all(|f| w.iter().any(|x| x.starts_with(f)))
                })
        })
        .map(|(_, _, command)| *command)
        .collect::<Vec<_>>()
        .join(" ; ")
}

/// The subcommands `go` runs in a command's words (`go test`, `go -C svc test`).
fn go_subcommands<'a>(words: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
    words.iter().enumerate().filter_map(move |(i, w)| {
        if *w != "go" {
            return None;
        }
        let mut rest = words[i + 1..].iter();
        loop {
            match rest.next() {
                Some(&"-C") => {
                    rest.next();
                }
                Some(x) if x.starts_with("-C=") => {}
                other => return other.copied(),
            }
        }
    })
}

/// The room's own Go build cache, in the room directory `room_dir`: the fallback's (without
/// mount namespaces, where the checks write it), and the checks' where pawl's user state is
/// unknown.
pub fn dir(room_dir: &Path) -> PathBuf {
    room_dir.join(GO_BUILD)
}

/// The Go build cache the checks of every repository read under the check sandbox's
/// namespaces: `go-build/` in pawl's user state, shared by the rooms (a run's, a story's, the
/// rooms apart). Only pawl's own builds write it, and its entries are content-addressed, so
/// sharing it costs nothing in trust and spares every new room (each story's) a cold build of
/// the standard library. Never written by a check, whatever the machine: the fallback's
/// checks write their room's [`dir`] instead.
pub fn shared_dir() -> Option<PathBuf> {
    crate::user_state_dir().map(|d| d.join(GO_BUILD))
}

/// Points the checks of `cfg` at the Go build cache of the room directory `room_dir` (see the
/// module docs): copy-on-write at [`SEEN_AT`] under the check sandbox's namespaces, else the
/// directory itself.
pub fn bind_for_checks(cfg: &mut RunnerConfig, room_dir: &Path) {
    bind_with(cfg, room_dir, shared_dir());
}

/// [`bind_for_checks`] with the shared cache at `shared` (`None`: the room's own).
fn bind_with(cfg: &mut RunnerConfig, room_dir: &Path, shared: Option<PathBuf>) {
    // The room's own is made by `Room::open` (never here: this runs before the room directory
    // may exist, which must then be empty). One that is not there is seen empty: a cold
    // cache, discarded.
    let cache = dir(room_dir);
    let mut seen_at = cache.clone();
    if let Some(sandbox) = cfg
        .containment
        .as_mut()
        .filter(|c| c.spec.namespaces)
        .and_then(|c| c.spec.sandbox.as_mut())
    {
        let target = PathBuf::from(SEEN_AT);
        if sandbox.private_tmp.iter().any(|p| p == Path::new("/tmp")) {
            let source = shared
                .filter(|s| std::fs::create_dir_all(s).is_ok())
                .unwrap_or_else(|| cache.clone());
            if !sandbox.cow_binds.iter().any(|b| b.target == target) {
                sandbox.cow_binds.push(pawl_process::sandbox::Bind {
                    source,
                    target: target.clone(),
                });
            }
            seen_at = target;
        }
    }
    if seen_at == cache
        && let Some(sandbox) = cfg
            .containment
            .as_mut()
            .and_then(|c| c.spec.sandbox.as_mut())
        && !sandbox.writable.contains(&cache)
    {
        // The fallback: written where it is (Landlock allows it).
        sandbox.writable.push(cache);
    }
    let vars: Vec<(OsString, OsString)> = vec![
        ("GOCACHE".into(), seen_at.into_os_string()),
        // A cache program (Go 1.24's `GOCACHEPROG`) would replace the directory.
        ("GOCACHEPROG".into(), OsString::new()),
    ];
    super::env::apply(cfg, vars);
}

/// A Go module at the root of `tree`.
pub fn is_go(tree: &Path) -> bool {
    tree.join("go.mod").is_file() || tree.join("go.work").is_file()
}

/// `dir` is in a Go module of `tree` (`go.mod` or `go.work` there or above, within the tree).
fn in_module(tree: &Path, dir: &Path) -> bool {
    super::workdirs::upward_has(tree, dir, "go.mod")
        || super::workdirs::upward_has(tree, dir, "go.work")
}

/// pawl's own build of `tree` for checks whose commands are `commands`: [`warm_command`] in
/// each directory they run `go` in that is in a module (see the module docs); empty when there
/// is none.
pub fn warm_commands(tree: &Path, commands: &[&str]) -> String {
    let command = warm_command(commands);
    if command.is_empty() {
        return command;
    }
    let is_go = |p: &str| p == "go";
    super::workdirs::dirs(tree, commands, &is_go, &|d| in_module(tree, d))
        .iter()
        .map(|d| super::workdirs::in_dir(d, &command))
        .collect::<Vec<_>>()
        .join(" ; ")
}

/// pawl's own build of the tree the checks of `cfg` see (`tree`: the room's files), writing the
/// cache [`bind_for_checks`] named, for checks whose commands are `commands`
/// ([`warm_commands`], see the module docs). Nothing when no check builds in a Go module, no
/// command asks for a part, or `cfg` names no pawl cache. Its outcome is not a check's: a tree that does not build leaves
/// the checks to say so.
pub fn warm(cfg: &RunnerConfig, tree: &Path, commands: &[&str]) -> Option<CheckRun> {
    let command = warm_commands(tree, commands);
    if command.is_empty() {
        return None;
    }
    let mut cfg = cfg.clone();
    let seen_at = cfg
        .env
        .iter()
        .find(|(k, _)| k == "GOCACHE")
        .map(|(_, v)| PathBuf::from(v))?;
    if let Some(sandbox) = cfg
        .containment
        .as_mut()
        .and_then(|c| c.spec.sandbox.as_mut())
    {
        // The copy-on-write bind becomes a plain one: this build alone writes the cache.
        let (cache, rest): (Vec<_>, Vec<_>) = sandbox
            .cow_binds
            .drain(..)
            .partition(|b| b.target == seen_at);
        sandbox.cow_binds = rest;
        if cache.is_empty() && !sandbox.writable.contains(&seen_at) {
            // Not the room's cache (no bind, not the fallback's writable directory).
            return None;
        }
        sandbox.binds.extend(cache);
    }
    cfg.jobs = 1;
    pawl_verify::run_checks(&[Check::gate(WARM_CHECK, command)], &cfg)
        .into_iter()
        .next()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A check configuration with a sandbox (with or without namespaces, a private `/tmp` or
    /// none); shared with the jest cache's tests.
    pub(in crate::room) fn contained(namespaces: bool, private_tmp: bool) -> RunnerConfig {
        let mut cfg = RunnerConfig::new("/w/repo", 1);
        let sandbox = pawl_process::sandbox::SandboxSpec {
            private_tmp: if private_tmp {
                vec!["/tmp".into()]
            } else {
                Vec::new()
            },
            ..Default::default()
        };
        cfg.containment = Some(pawl_process::Containment {
            launcher: "/usr/bin/pawl".into(),
            spec: pawl_process::sandbox::LaunchSpec {
                namespaces,
                sandbox: Some(sandbox),
            },
            record_dir: None,
        });
        cfg
    }

    /// pawl's build makes what the checks' commands ask for, and all of it for a command that
    /// names no `go` (a script: unknown).
    #[test]
    fn pawls_build_makes_the_parts_the_checks_ask_for() {
        let rows: &[(&[&str], &[&str])] = &[
            (&["go test ./..."], &["go test -count=1 -exec"]),
            (
                &[
                    "go build ./...",
                    "go test -json ./...",
                    "go vet ./...",
                    "go test -cover ./...",
                ],
                &[
                    "go build",
                    "go vet",
                    "go test -count=1 -exec",
                    "go test -count=1 -cover",
                ],
            ),
            (
                &["GOFLAGS=-mod=mod go test -coverprofile=c.out ./..."],
                &["go test -count=1 -exec", "go test -count=1 -cover"],
            ),
            (
                &["make test"],
                &[
                    "go build",
                    "go vet",
                    "go test -count=1 -exec",
                    "go test -count=1 -cover",
                ],
            ),
            (&["cargo test", "go version"], &[]),
        ];
        for (commands, want) in rows {
            let got = warm_command(commands);
            let parts: Vec<&str> = if got.is_empty() {
                Vec::new()
            } else {
                got.split(" ; ").collect()
            };
            assert_eq!(parts.len(), want.len(), "{commands:?}: {got}");
            for (p, w) in parts.iter().zip(want.iter()) {
                assert!(p.starts_with(w), "{commands:?}: {got}");
                assert!(p.contains("./..."), "{got}");
                assert!(
                    !p.starts_with("go test") || p.contains("-exec=/bin/true"),
                    "{got}"
                );
            }
        }
    }

    /// pawl's build runs where the checks build: in each directory a check runs `go` in that
    /// is in a module (a monorepo's `svc/go.mod`), the root for a script when it is a module,
    /// nothing outside a module.
    #[test]
    fn pawls_build_runs_where_the_checks_build() {
        let tree = tempfile::tempdir().unwrap();
        let root = tree.path();
        std::fs::create_dir_all(root.join("svc/internal")).unwrap();
        std::fs::create_dir_all(root.join("web")).unwrap();
        std::fs::write(root.join("svc/go.mod"), "module example.com/svc\n").unwrap();
        let test = &["cd svc && go test ./..."][..];
        assert_eq!(
            warm_commands(root, test),
            format!("( cd 'svc' && {} )", warm_command(test))
        );
        // Below the module's root: there (go finds the module upward).
        let sub = &["go -C svc/internal test ./..."][..];
        assert_eq!(
            warm_commands(root, sub),
            format!("( cd 'svc/internal' && {} )", warm_command(sub))
        );
        // Not in a module, or a script with no module at the root: nothing.
        assert_eq!(warm_commands(root, &["cd web && go test ./..."]), "");
        assert_eq!(warm_commands(root, &["make test"]), "");
        // A module at the root too: the root for a script, and each directory once.
        std::fs::write(root.join("go.mod"), "module example.com/all\n").unwrap();
        let both = &[
            "make test",
            "cd svc && go test ./...",
            "cd svc; go vet ./...",
        ][..];
        let command = warm_command(both);
        assert_eq!(
            warm_commands(root, both),
            format!("{command} ; ( cd 'svc' && {command} )")
        );
    }

    /// A module in a sub-folder, built by pawl's command for a check `cd svc && go build ./...`
    /// into a cache, leaves the check nothing to compile of its own (`go build -x` shows no
    /// compile); the root's build alone (main `866cd9a7`: none, the root is no module) leaves it
    /// all. Needs `go`, skipped without.
    #[test]
    fn a_module_in_a_sub_folder_is_built_as_its_check_builds_it() {
        if std::process::Command::new("go")
            .arg("version")
            .output()
            .is_err()
        {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("SKIPPED: no go");
            }
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        std::fs::create_dir_all(root.join("svc")).unwrap();
        std::fs::write(
            root.join("svc/go.mod"),
            "module example.com/svc\n\ngo 1.21\n",
        )
        .unwrap();
        std::fs::write(
            root.join("svc/calc.go"),
            "package calc\n\nfunc Mul(a, b int) int { return a * b }\n",
        )
        .unwrap();
        let check = "cd svc && go build -x ./...";
        let sh = |command: &str, cache: &Path| {
            std::process::Command::new("sh")
                .args(["-c", command])
                .current_dir(&root)
                .env("GOCACHE", cache)
                .env("GOTOOLCHAIN", "local")
                .env("GOFLAGS", "")
                .output()
                .unwrap()
        };
        let compiles = |out: &std::process::Output| {
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .filter(|l| l.contains("/compile ") && l.contains("example.com/svc"))
                .count()
        };
        let warm = tmp.path().join("warm");
        let command = warm_commands(&root, &[check]);
        assert!(command.starts_with("( cd 'svc' && go build"), "{command}");
        let out = sh(&command, &warm);
        assert!(out.status.success(), "{out:?}");
        let out = sh(check, &warm);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            compiles(&out),
            0,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The root alone: nothing to build there; the check compiles its module.
        let cold = tmp.path().join("cold");
        assert_eq!(warm_commands(&root, &["go build ./..."]), "");
        let out = sh(check, &cold);
        assert!(out.status.success(), "{out:?}");
        assert!(
            compiles(&out) > 0,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The check sandbox `cfg` was given.
    pub(in crate::room) fn sandbox_of(cfg: &RunnerConfig) -> &pawl_process::sandbox::SandboxSpec {
        cfg.containment
            .as_ref()
            .and_then(|c| c.spec.sandbox.as_ref())
            .expect("a check sandbox")
    }

    fn var(cfg: &RunnerConfig, k: &str) -> Option<String> {
        cfg.env
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.to_string_lossy().into_owned())
    }

    /// The checks' `GOCACHE` is the room's, never the user's: copy-on-write in the private
    /// `/tmp` under the namespaces, the directory itself (writable) without them, and the
    /// user's own `GOCACHE` replaced.
    #[test]
    fn the_checks_go_cache_is_the_rooms_copy_on_write() {
        let state = tempfile::tempdir().unwrap();
        let shared = state.path().join(GO_BUILD);
        let room = tempfile::tempdir().unwrap();
        let room = room.path().join("repo-1");
        let mut cfg = contained(true, true);
        cfg.env
            .push(("GOCACHE".into(), "/home/u/.cache/go-build".into()));
        bind_with(&mut cfg, &room, Some(shared.clone()));
        assert_eq!(var(&cfg, "GOCACHE").as_deref(), Some(SEEN_AT));
        assert_eq!(cfg.env.iter().filter(|(k, _)| k == "GOCACHE").count(), 1);
        let sandbox = sandbox_of(&cfg);
        assert_eq!(sandbox.cow_binds.len(), 1);
        assert_eq!(sandbox.cow_binds[0].source, shared);
        assert!(sandbox.binds.is_empty());
        assert!(!sandbox.writable.contains(&shared));
        assert!(shared.is_dir());
        // Nothing made in the room directory (it may not be a room yet).
        assert!(!room.exists());
        // Twice: one bind.
        bind_with(&mut cfg, &room, Some(shared.clone()));
        let sandbox = sandbox_of(&cfg);
        assert_eq!(sandbox.cow_binds.len(), 1);
        // No user state: the room's own.
        let mut cfg = contained(true, true);
        bind_with(&mut cfg, &room, None);
        let sandbox = sandbox_of(&cfg);
        assert_eq!(sandbox.cow_binds[0].source, dir(&room));

        // Without the namespaces (or a private /tmp): the room's own, writable; never the
        // shared one.
        for (namespaces, tmp) in [(false, false), (true, false)] {
            let mut cfg = contained(namespaces, tmp);
            bind_with(&mut cfg, &room, Some(shared.clone()));
            let cache = dir(&room);
            assert_eq!(var(&cfg, "GOCACHE"), Some(cache.display().to_string()));
            let sandbox = sandbox_of(&cfg);
            assert!(sandbox.cow_binds.is_empty());
            assert!(sandbox.writable.contains(&cache));
            assert!(!sandbox.writable.contains(&shared));
        }
        let mut bare = RunnerConfig::new("/w/repo", 1);
        bind_with(&mut bare, &room, Some(shared));
        assert_eq!(
            var(&bare, "GOCACHE"),
            Some(dir(&room).display().to_string())
        );
    }
}
