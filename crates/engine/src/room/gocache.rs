//! The checks' Go build cache (issue 32 point 5: "every build in a verification that could
//! SHIP uses a build directory and build cache written only by pawl's own builds").
//!
//! Go finds a compiled object by its action ID (a hash of the compile's inputs) and trusts
//! what the cache entry names. A step may write HOME and so the user's cache
//! (`~/.cache/go-build`): it can compile the right code once and point the wrong tree's
//! actions at the right objects, and every check that read the user's cache then built the
//! right code from the wrong tree (seen: the attack in the cli's `sandbox` tests). So the
//! checks never read the user's cache. Their `GOCACHE` is [`dir`], `go-build/` in the
//! repository's room directory, under pawl's state, out of every step's reach:
//!
//! - **Written only by pawl's own build** ([`warm`]): before the checks of a tree run, pawl runs
//!   `go build`, `go vet` and `go test -exec=/bin/true` (plain and `-cover`) on it, in the
//!   room, under the check sandbox, with the cache bound writable. None of them runs code of
//!   the project: `go build` and `go vet` compile and analyse (cgo's flags are allow-listed by
//!   go), and `-exec=/bin/true` runs `/bin/true` where the test binary would run. The command
//!   is pawl's, never the project's (no script, no Makefile).
//! - **Read copy-on-write by every check** ([`bind_for_checks`]): the cache is seen at
//!   [`SEEN_AT`] in the check's private `/tmp` through an overlay whose upper layer goes with
//!   the check. A check's own compiles (a variant the warm build did not make) and whatever
//!   its test processes write there are discarded: nothing a check or a test wrote is read by
//!   a later one.
//! - **Without mount namespaces** (the Landlock-only fallback) nothing can be bound: the
//!   checks use the directory itself, writable (a check's test process could write it, and a
//!   later check read it). The fallback's verdict is at most REVIEW anyway (pawl's key is
//!   readable there); the user's cache is still never read.
//!
//! Known limits: only a module at the tree's root (`go.mod` or `go.work` there) is warmed; a
//! Go module in a subdirectory builds cold in every check (still never from the user's cache).
//! Warm entries carry across runs and rooms of the repository: they are content-addressed, and
//! only pawl's own builds wrote them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pawl_verify::{Check, CheckRun, RunnerConfig};

/// The Go build cache's directory in a room directory.
pub const GO_BUILD: &str = "go-build";

/// Where a check sees the cache (in its private `/tmp`).
pub const SEEN_AT: &str = "/tmp/pawl-go-build";

/// The name of pawl's own build that warms the cache (its log is `go-build-cache-<step>.log`).
pub const WARM_CHECK: &str = "go-build-cache";

/// pawl's own build of a Go tree: compiles the packages, their vet facts and the test and
/// coverage variants, links the test binaries, and runs none of them (`-exec=/bin/true`). Each
/// part runs whatever the one before did (a tree that does not compile still warms the rest).
pub const WARM_COMMAND: &str = "go build ./... ; go vet ./... ; \
go test -count=1 -exec=/bin/true ./... ; go test -count=1 -cover -exec=/bin/true ./...";

/// The room's Go build cache, in the room directory `room_dir`.
pub fn dir(room_dir: &Path) -> PathBuf {
    room_dir.join(GO_BUILD)
}

/// Points the checks of `cfg` at the Go build cache of the room directory `room_dir` (see the
/// module docs): copy-on-write at [`SEEN_AT`] under the check sandbox's namespaces, else the
/// directory itself.
pub fn bind_for_checks(cfg: &mut RunnerConfig, room_dir: &Path) {
    // Made by `Room::open` (never here: this runs before the room directory may exist, which
    // must then be empty). One that is not there is seen empty: a cold cache, discarded.
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
            if !sandbox.cow_binds.iter().any(|b| b.target == target) {
                sandbox.cow_binds.push(pawl_process::sandbox::Bind {
                    source: cache.clone(),
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

/// pawl's own build of the tree the checks of `cfg` see (`tree`: the room's files), writing the
/// cache [`bind_for_checks`] named ([`WARM_COMMAND`], see the module docs). Nothing when the
/// tree is no Go module or `cfg` names no room cache. Its outcome is not a check's: a tree
/// that does not build leaves the checks to say so.
pub fn warm(cfg: &RunnerConfig, tree: &Path) -> Option<CheckRun> {
    if !is_go(tree) {
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
    pawl_verify::run_checks(&[Check::gate(WARM_CHECK, WARM_COMMAND)], &cfg)
        .into_iter()
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contained(namespaces: bool, private_tmp: bool) -> RunnerConfig {
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
        let room = tempfile::tempdir().unwrap();
        let mut cfg = contained(true, true);
        cfg.env.push(("GOCACHE".into(), "/home/u/.cache/go-build".into()));
        bind_for_checks(&mut cfg, room.path());
        assert_eq!(var(&cfg, "GOCACHE").as_deref(), Some(SEEN_AT));
        assert_eq!(cfg.env.iter().filter(|(k, _)| k == "GOCACHE").count(), 1);
        let sandbox = cfg.containment.as_ref().unwrap().spec.sandbox.as_ref().unwrap();
        assert_eq!(sandbox.cow_binds.len(), 1);
        assert_eq!(sandbox.cow_binds[0].source, dir(room.path()));
        assert!(sandbox.binds.is_empty());
        assert!(!sandbox.writable.contains(&dir(room.path())));
        // Nothing made in the room directory (it may not be a room yet).
        assert!(!dir(room.path()).exists());
        // Twice: one bind.
        bind_for_checks(&mut cfg, room.path());
        let sandbox = cfg.containment.as_ref().unwrap().spec.sandbox.as_ref().unwrap();
        assert_eq!(sandbox.cow_binds.len(), 1);

        for (namespaces, tmp) in [(false, false), (true, false)] {
            let mut cfg = contained(namespaces, tmp);
            bind_for_checks(&mut cfg, room.path());
            let cache = dir(room.path());
            assert_eq!(var(&cfg, "GOCACHE"), Some(cache.display().to_string()));
            let sandbox = cfg.containment.as_ref().unwrap().spec.sandbox.as_ref().unwrap();
            assert!(sandbox.cow_binds.is_empty());
            assert!(sandbox.writable.contains(&cache));
        }
        let mut bare = RunnerConfig::new("/w/repo", 1);
        bind_for_checks(&mut bare, room.path());
        assert_eq!(
            var(&bare, "GOCACHE"),
            Some(dir(room.path()).display().to_string())
        );
    }
}
