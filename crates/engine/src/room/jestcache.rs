//! The checks' jest transform cache (issue 30 point 5, issue 32 points 5 and 7).
//!
//! jest transforms every file a test requires (TypeScript through ts-jest, modern JavaScript
//! through babel-jest) and keeps the output in its cache directory, by default
//! `<tmpdir>/jest_<uid in base 36>`. A check's `/tmp` is private and goes with it, so before
//! this module every check paid the whole transform (hashids: 2.2× the CPU of a warm run in
//! place). A cache a check could write is a cache the code under test could poison: jest
//! transforms in the worker that runs the tests, and the next check would load what that
//! code left. So, as for Go's build cache ([`super::gocache`]):
//!
//! - **Written only by pawl's own pass** ([`warm`]): before the checks of a tree run, pawl runs
//!   in the room, under the check sandbox, [`PASS`] (a script of pawl's, never the project's
//!   `test` script): it loads the project's jest configuration and jest's own `@jest/transform`
//!   from the room's `node_modules` and transforms the tree's files that a `transform` pattern
//!   matches, with the options jest's runtime gives a CommonJS test without coverage, into the
//!   cache — and **runs no test**. It loads nothing the checks of that tree would not load
//!   themselves before their first test (the configuration, the transformers and the files as
//!   text).
//! - **One tree, one cache** ([`dir`]: `jest-cache/` in the room directory, stamped with the
//!   tree it was made for): a new tree empties it first. A configuration a run changed runs
//!   in the pass of the run's tree only, and what it could write there is seen by the checks of
//!   that same tree alone, which run that configuration themselves; the locked tree (the
//!   baseline's configuration) gets a pass of its own whenever it is not the run's tree.
//! - **Read copy-on-write by the checks of that tree in that room** ([`warm`] binds it once it
//!   is made for the tree the room holds; no other room's checks, no check of another tree):
//!   seen at jest's default cache path in the check's private `/tmp` through an overlay whose upper layer goes with the
//!   check. What a test process writes there (a transformed module of other code under the
//!   same key) is gone with the check: the next check, a repeat, the next verification read
//!   what pawl's pass wrote and nothing else.
//! - **A configuration that names its own `cacheDirectory`** is not warmed (the pass says so in
//!   its log): its checks write where it points, which under the check sandbox is the private
//!   `/tmp`, a private HOME or the room's overlay, each discarded with the check — cold, as
//!   before, never shared.
//! - **Without mount namespaces** (the Landlock-only fallback) nothing is bound and nothing is
//!   warmed: the checks use jest's default directory as before.
//!
//! Known limits: the pass transforms every matching file under the configuration's `rootDir`
//! (not `node_modules`, not dot-directories, at most 20,000 files), not only those the tests
//! require; a check whose options differ (coverage: `instrument`; native ESM) misses and
//! transforms cold; only a `jest` installed at the tree's root (`node_modules/jest`) is
//! warmed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pawl_verify::{Check, CheckRun, RunnerConfig};

/// The cache's directory name in a room directory.
pub const JEST_CACHE: &str = "jest-cache";

/// The file beside it naming the tree the cache was made for.
pub const STAMP: &str = "jest-cache.tree";

/// The name of pawl's own pass (its log is `jest-cache-<step>.log`).
pub const WARM_CHECK: &str = "jest-cache";

/// pawl's own pass (JavaScript, run with `node -e`): reads the cache directory it may write
/// from `PAWL_JEST_CACHE`.
pub const PASS: &str = include_str!("jestcache.js");

/// The room's jest cache, in the room directory `room_dir`.
pub fn dir(room_dir: &Path) -> PathBuf {
    room_dir.join(JEST_CACHE)
}

/// Where jest's default cache is for the checks of `cfg`: `jest_<uid in base 36>` in their
/// temporary directory (`TMPDIR` as they get it, `/tmp` without), when that is `/tmp`.
pub fn seen_at(cfg: &RunnerConfig) -> Option<PathBuf> {
    let tmpdir = cfg
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "TMPDIR")
        .map(|(_, v)| v.clone())
        .or_else(|| {
            (!cfg.clear_env)
                .then(|| std::env::var_os("TMPDIR"))
                .flatten()
        })
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| OsString::from("/tmp"));
    let tmpdir = PathBuf::from(tmpdir);
    if tmpdir.components().ne(Path::new("/tmp").components()) {
        return None;
    }
    Some(PathBuf::from(format!("/tmp/jest_{}", base36(uid()))))
}

/// This process's user id (the checks keep it: their user namespace maps it to itself).
fn uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map_or(0, |m| m.uid())
}

/// `n` in base 36, as JavaScript's `n.toString(36)`.
fn base36(mut n: u32) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Shows the checks of `cfg` the jest cache of the room directory `room_dir`, copy-on-write at
/// jest's default path ([`seen_at`]), under the check sandbox's namespaces with a private
/// `/tmp`; nothing otherwise. A cache not made yet is seen empty. Only [`warm`] calls it, once
/// the cache is made for the tree the room holds.
fn bind_for_checks(cfg: &mut RunnerConfig, room_dir: &Path) {
    let Some(target) = seen_at(cfg) else {
        return;
    };
    if let Some(sandbox) = cfg
        .containment
        .as_mut()
        .filter(|c| c.spec.namespaces)
        .and_then(|c| c.spec.sandbox.as_mut())
        && sandbox.private_tmp.iter().any(|p| p == Path::new("/tmp"))
        && !sandbox.cow_binds.iter().any(|b| b.target == target)
    {
        sandbox.cow_binds.push(pawl_process::sandbox::Bind {
            source: dir(room_dir),
            target,
        });
    }
}

/// jest installed at the root of `tree`.
pub fn is_jest(tree: &Path) -> bool {
    tree.join("node_modules/jest/package.json").is_file()
}

/// Shows the checks of `cfg` the room's jest cache, made first by pawl's own pass over the
/// tree the room holds when it is not made for that tree yet (see the module docs): once per
/// tree (the stamp), the cache emptied first. The checks of `cfg` see it only when it was made
/// for the tree the room holds, and only this room's: a `cfg` made for another room (a room
/// apart's is made by [`crate::baseline::runner_for`] like the run's) shows no other room's
/// cache. Nothing when jest is not installed at the tree's root, the room holds no known tree,
/// or the checks have no private `/tmp` under the namespaces. Returns pawl's pass when it ran;
/// its outcome is not a check's: a pass that fails leaves the checks colder.
pub fn warm(cfg: &mut RunnerConfig, room: &super::Room) -> Option<CheckRun> {
    let cache = dir(room.dir());
    let target = seen_at(cfg)?;
    // No other room's cache, whatever made `cfg`.
    if let Some(sandbox) = cfg
        .containment
        .as_mut()
        .and_then(|c| c.spec.sandbox.as_mut())
    {
        sandbox.cow_binds.retain(|b| b.target != target);
    }
    if !is_jest(room.root()) {
        return None;
    }
    let tree = room.held_tree()?.to_string();
    let stamp = room.dir().join(STAMP);
    let stamped = |tree: &str| std::fs::read_to_string(&stamp).ok().as_deref() == Some(tree);
    let mut pass = None;
    if !stamped(&tree) {
        let mut own = cfg.clone();
        bind_for_checks(&mut own, room.dir());
        let sandbox = own
            .containment
            .as_mut()
            .and_then(|c| c.spec.sandbox.as_mut())?;
        let (bound, rest): (Vec<_>, Vec<_>) = sandbox
            .cow_binds
            .drain(..)
            .partition(|b| b.target == target);
        sandbox.cow_binds = rest;
        if bound.is_empty() {
            return None;
        }
        // A new tree: nothing of the last one's pass is kept.
        let _ = std::fs::remove_file(&stamp);
        let _ = std::fs::remove_dir_all(&cache);
        std::fs::create_dir_all(&cache).ok()?;
        // A plain bind for the pass: it alone writes the cache.
        sandbox.binds.extend(bound);
        own.env
            .push(("PAWL_JEST_CACHE".into(), target.clone().into_os_string()));
        own.env.push(("PAWL_JEST_PASS".into(), PASS.into()));
        own.jobs = 1;
        pass = pawl_verify::run_checks(
            &[Check::gate(WARM_CHECK, "node -e \"$PAWL_JEST_PASS\"")],
            &own,
        )
        .into_iter()
        .next();
        std::fs::write(&stamp, &tree).ok()?;
    }
    if stamped(&tree) {
        bind_for_checks(cfg, room.dir());
    }
    pass
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::room::gocache::tests::{contained, sandbox_of};

    #[test]
    fn base_36_as_javascript_writes_it() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(1000), "rs");
    }

    /// The checks see the room's cache copy-on-write at jest's default path, never writable;
    /// nothing without the namespaces, a private `/tmp`, or with a `TMPDIR` elsewhere.
    #[test]
    fn the_checks_see_the_rooms_jest_cache_copy_on_write() {
        let room = Path::new("/state/rooms/repo-1");
        let mut cfg = contained(true, true);
        cfg.clear_env = true;
        bind_for_checks(&mut cfg, room);
        let target = PathBuf::from(format!("/tmp/jest_{}", base36(uid())));
        let sandbox = sandbox_of(&cfg);
        assert_eq!(sandbox.cow_binds.len(), 1);
        assert_eq!(sandbox.cow_binds[0].source, dir(room));
        assert_eq!(sandbox.cow_binds[0].target, target);
        assert!(sandbox.binds.is_empty());
        assert!(!sandbox.writable.contains(&dir(room)));
        bind_for_checks(&mut cfg, room);
        assert_eq!(sandbox_of(&cfg).cow_binds.len(), 1);
        // `TMPDIR=/tmp/` is /tmp.
        let mut cfg = contained(true, true);
        cfg.env.push(("TMPDIR".into(), "/tmp/".into()));
        bind_for_checks(&mut cfg, room);
        assert_eq!(sandbox_of(&cfg).cow_binds.len(), 1);
        for (namespaces, tmp, tmpdir) in [
            (false, false, None),
            (true, false, None),
            (true, true, Some("/var/tmp/x")),
        ] {
            let mut cfg = contained(namespaces, tmp);
            cfg.clear_env = true;
            if let Some(t) = tmpdir {
                cfg.env.push(("TMPDIR".into(), t.into()));
            }
            bind_for_checks(&mut cfg, room);
            let sandbox = sandbox_of(&cfg);
            assert!(
                sandbox.cow_binds.is_empty(),
                "{namespaces} {tmp} {tmpdir:?}"
            );
            assert!(sandbox.binds.is_empty());
            assert!(!sandbox.writable.contains(&dir(room)));
        }
    }
}
