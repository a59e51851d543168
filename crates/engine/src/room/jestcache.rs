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
//!   tree it was made for). A configuration a run changed runs in the pass of the run's tree
//!   only, and what it could write there is seen by the checks of that same tree alone, which
//!   run that configuration themselves; the locked tree (the baseline's configuration) gets a
//!   pass of its own whenever it is not the run's tree.
//! - **The cache the checks are shown is always the held tree's** ([`leave`], [`follow`],
//!   called by [`super::Room::sync`]): a sync to another tree first moves the cache away
//!   (set aside whole under `jest-caches/<tree>/` when its pass finished, else discarded:
//!   renamed, made writable, removed), and brings back the new tree's own set-aside cache,
//!   if any, once the tree is there. So the path a check's copy-on-write bind names holds the
//!   cache of the tree the room holds when the check starts, or nothing — never another
//!   tree's, even for a check configuration made before the sync (a stale stamp runs cold).
//!   The pass of a run's tree runs the run's configuration, which can leave directories a
//!   plain removal cannot empty (seen: `chmod 555` at exit kept a rewritten transform for the
//!   next tree's checks on main `866cd9a7`); a move does not care what is inside.
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
//! - **As the checks run jest** ([`Passes`]): in each directory a check runs it in
//!   ([`super::workdirs`]: `cd packages/a && npx jest`, `npm --prefix web test`; a monorepo's
//!   packages, jest installed there or above), with the transform options jest's runtime gives
//!   each file: coverage (`collectCoverage` in the configuration, or `--coverage` on a
//!   command or in the `package.json` scripts it may run: the instrumented variant, keyed
//!   apart), native ESM (`--experimental-vm-modules` there or in `NODE_OPTIONS`: CommonJS
//!   files keyed with dynamic import, files jest loads as ESM — `extensionsToTreatAsEsm`,
//!   `.mjs`, a `"type": "module"` package — with every `supports*`). A configuration whose
//!   `transform` is empty (`transform: {}`, the usual native-ESM set-up) transforms nothing
//!   and has nothing to warm (the pass says so); with coverage through babel it is still
//!   instrumented, and warmed.
//!
//! Known limits: the pass transforms every matching file under the configuration's `rootDir`
//! (not `node_modules`, not dot-directories, at most 20,000 files), not only those the tests
//! require; a check whose options the pass cannot read from its command (`--coverage` behind
//! a script that is not `package.json`'s, a `--config` or `--rootDir` of its own) misses and
//! transforms cold.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pawl_verify::{Check, CheckRun, RunnerConfig};

/// The cache's directory name in a room directory.
pub const JEST_CACHE: &str = "jest-cache";

/// The file beside it naming the tree the cache was made for.
pub const STAMP: &str = "jest-cache.tree";

/// Where the caches of the trees the room held before are set aside, one directory each
/// named by its tree.
pub const SET_ASIDE: &str = "jest-caches";

/// At most this many trees' caches are set aside (the oldest set aside goes first).
const KEPT: usize = 3;

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

/// jest installed in `dir` or a directory above it up to `tree` (where `require` finds it from
/// `dir`).
pub fn is_jest(tree: &Path, dir: &Path) -> bool {
    super::workdirs::upward_has(tree, dir, "node_modules/jest/package.json")
}

/// Programs a check runs jest through.
fn runs_node(program: &str) -> bool {
    ["jest", "npx", "npm", "yarn", "pnpm", "node", "bunx"].contains(&program)
}

/// What pawl's pass over a tree does for checks whose commands are known: where it runs and
/// which transform variants it makes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Passes {
    /// The directories (relative to the tree; empty: the tree itself) the checks run jest in.
    pub dirs: Vec<PathBuf>,
    /// Some check collects coverage (`--coverage`, `--collectCoverage`).
    pub coverage: bool,
    /// Some check runs node with `--experimental-vm-modules` (jest's native ESM).
    pub esm: bool,
}

impl Passes {
    /// The passes for checks whose commands are `commands` on the tree at `tree` (see the
    /// module docs); no directory when no check's directory has jest.
    pub fn read(tree: &Path, commands: &[&str]) -> Passes {
        let dirs = super::workdirs::dirs(tree, commands, &runs_node, &|d| is_jest(tree, d));
        // What the checks ask of jest: their commands and the package scripts they may run.
        let mut text: String = commands.join("\n");
        for d in &dirs {
            let scripts = std::fs::read_to_string(tree.join(d).join("package.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|v| v.get("scripts").cloned());
            if let Some(serde_json::Value::Object(scripts)) = scripts {
                for v in scripts.values().filter_map(|v| v.as_str()) {
                    text.push('\n');
                    text.push_str(v);
                }
            }
        }
        Passes {
            coverage: text.contains("--coverage") || text.contains("--collectCoverage"),
            esm: text.contains("--experimental-vm-modules"),
            dirs,
        }
    }

    /// pawl's pass as one command: [`PASS`] in each directory, by a node that has jest's
    /// native ESM when a check's has (jest-resolve tells a module to load as ESM only there).
    pub fn command(&self) -> String {
        let node = if self.esm {
            "node --experimental-vm-modules -e \"$PAWL_JEST_PASS\""
        } else {
            "node -e \"$PAWL_JEST_PASS\""
        };
        self.dirs
            .iter()
            .map(|d| super::workdirs::in_dir(d, node))
            .collect::<Vec<_>>()
            .join(" ; ")
    }
}

/// A tree id as the stamp and the set-aside directories name it (hex, nothing else).
fn tree_name(tree: &str) -> Option<&str> {
    (!tree.is_empty() && tree.len() <= 64 && tree.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(tree)
}

/// The tree the room directory's cache was made for, when its pass finished.
fn stamp_of(room_dir: &Path) -> Option<String> {
    std::fs::read_to_string(room_dir.join(STAMP))
        .ok()
        .filter(|t| tree_name(t).is_some())
}

/// Makes `path` and every directory under it writable and searchable by its owner (what a
/// pass may have made read-only), not following links.
pub(crate) fn make_writable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    let mode = meta.permissions().mode();
    if mode & 0o700 != 0o700 {
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode | 0o700));
    }
    for e in std::fs::read_dir(path).into_iter().flatten().flatten() {
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            make_writable(&e.path());
        }
    }
}

/// Moves `path` out of the way (renamed beside itself: whatever it holds), then removes it.
/// True when nothing is left at `path`.
fn discard(path: &Path) -> bool {
    if std::fs::symlink_metadata(path).is_err() {
        return true;
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut gone = path.as_os_str().to_owned();
    gone.push(format!(".discarded-{}-{nanos}", std::process::id()));
    let gone = PathBuf::from(gone);
    let at = if std::fs::rename(path, &gone).is_ok() {
        gone
    } else {
        path.to_path_buf()
    };
    make_writable(&at);
    if std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir()) {
        let _ = std::fs::remove_dir_all(&at);
    } else {
        let _ = std::fs::remove_file(&at);
    }
    std::fs::symlink_metadata(path).is_err()
}

/// Called by [`super::Room::sync`] before it brings the room to `tree`: the cache of another
/// tree leaves the path the checks' bind names (set aside when its pass finished, else
/// discarded), and so does the stamp. Nothing when the cache is `tree`'s already.
pub(crate) fn leave(room_dir: &Path, tree: &str) {
    let cache = dir(room_dir);
    let stamp = stamp_of(room_dir);
    if stamp.as_deref() == Some(tree) {
        return;
    }
    let _ = std::fs::remove_file(room_dir.join(STAMP));
    if let Some(held) = stamp.filter(|_| cache.is_dir()) {
        let aside = room_dir.join(SET_ASIDE);
        let to = aside.join(&held);
        // Moving a directory to another parent rewrites its `..`: it must be writable.
        make_writable_top(&cache);
        if std::fs::create_dir_all(&aside).is_ok()
            && discard(&to)
            && std::fs::rename(&cache, &to).is_ok()
        {
            // The order caches were set aside in: the modification time of the directory.
            if let Ok(f) = std::fs::File::open(&to) {
                let _ = f.set_modified(std::time::SystemTime::now());
            }
            prune(&aside);
        }
    }
    discard(&cache);
}

/// Makes the directory `path` itself writable by its owner.
fn make_writable_top(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::symlink_metadata(path)
        && meta.is_dir()
    {
        let mode = meta.permissions().mode();
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode | 0o700));
    }
}

/// Keeps the [`KEPT`] caches set aside last; removes the others (and anything that is no
/// tree's cache).
fn prune(aside: &Path) {
    let mut kept: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for e in std::fs::read_dir(aside).into_iter().flatten().flatten() {
        let path = e.path();
        let named = e.file_name().to_str().and_then(tree_name).is_some();
        match std::fs::symlink_metadata(&path) {
            Ok(m) if named && m.is_dir() => {
                kept.push((m.modified().unwrap_or(std::time::UNIX_EPOCH), path));
            }
            _ => {
                discard(&path);
            }
        }
    }
    kept.sort();
    let over = kept.len().saturating_sub(KEPT);
    for (_, path) in kept.into_iter().take(over) {
        discard(&path);
    }
}

/// Called by [`super::Room::sync`] once the room holds `tree`: brings back `tree`'s own cache
/// when it was set aside, stamped.
pub(crate) fn follow(room_dir: &Path, tree: &str) {
    let Some(tree) = tree_name(tree) else {
        return;
    };
    let cache = dir(room_dir);
    if stamp_of(room_dir).as_deref() == Some(tree) {
        return;
    }
    let from = room_dir.join(SET_ASIDE).join(tree);
    if !from.is_dir() || !discard(&cache) {
        return;
    }
    make_writable_top(&from);
    if std::fs::rename(&from, &cache).is_ok() {
        let _ = std::fs::write(room_dir.join(STAMP), tree);
    }
}

/// Shows the checks of `cfg` the room's jest cache, made first by pawl's own pass over the
/// tree the room holds when it is not made for that tree yet (see the module docs): once per
/// tree (the stamp), into an empty cache, in each directory the checks whose commands are
/// `commands` run jest in ([`Passes`]; the tree's root alone for no command). The checks of
/// `cfg` see it only when it was made for the tree the room holds, and only this room's: a
/// `cfg` made for another room (a room apart's is made by [`crate::baseline::runner_for`]
/// like the run's) shows no other room's cache. Nothing when jest is not installed where the
/// checks run it, the room holds no known tree, or the checks have no private `/tmp` under
/// the namespaces. Returns pawl's pass when it ran; its outcome is not a check's: a pass that
/// fails leaves the checks colder.
pub fn warm(cfg: &mut RunnerConfig, room: &super::Room, commands: &[&str]) -> Option<CheckRun> {
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
    let passes = Passes::read(room.root(), commands);
    if passes.dirs.is_empty() {
        return None;
    }
    let tree = room.held_tree()?.to_string();
    let stamp = room.dir().join(STAMP);
    let stamped = |tree: &str| stamp_of(room.dir()).as_deref() == Some(tree);
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
        // A new tree: nothing of the last one's pass is kept (a sync set it aside; this
        // discards what is left whatever it holds, or binds nothing).
        let _ = std::fs::remove_file(&stamp);
        if !discard(&cache) {
            return None;
        }
        std::fs::create_dir_all(&cache).ok()?;
        // A plain bind for the pass: it alone writes the cache.
        sandbox.binds.extend(bound);
        own.env
            .push(("PAWL_JEST_CACHE".into(), target.clone().into_os_string()));
        own.env.push(("PAWL_JEST_PASS".into(), PASS.into()));
        if passes.coverage {
            own.env.push(("PAWL_JEST_COVERAGE".into(), "1".into()));
        }
        if passes.esm {
            own.env.push(("PAWL_JEST_ESM".into(), "1".into()));
        }
        own.jobs = 1;
        pass = pawl_verify::run_checks(&[Check::gate(WARM_CHECK, passes.command())], &own)
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

    /// jest 29.7 installed once for these tests (npm, offline once its cache is warm); `None`
    /// (said on stderr) when npm cannot.
    fn installed_jest() -> Option<&'static Path> {
        static DIR: std::sync::OnceLock<Option<tempfile::TempDir>> = std::sync::OnceLock::new();
        DIR.get_or_init(|| {
            let dir = tempfile::tempdir().ok()?;
            std::fs::write(dir.path().join("package.json"), "{\"private\": true}\n").ok()?;
            let ok = std::process::Command::new("npm")
                .args([
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--silent",
                    "--save-dev",
                ])
                .arg("jest@29.7.0")
                .current_dir(dir.path())
                .output()
                .is_ok_and(|o| o.status.success());
            if !ok {
                #[allow(clippy::print_stderr)]
                {
                    eprintln!("SKIPPED: jest could not be installed from npm");
                }
            }
            ok.then_some(dir)
        })
        .as_ref()
        .map(tempfile::TempDir::path)
    }

    /// A project for a real jest: `files` under its root, jest's `node_modules` at its root,
    /// and a temporary directory of its own (jest's default cache is in it).
    struct Project {
        tmp: tempfile::TempDir,
    }

    impl Project {
        fn new(files: &[(&str, &str)]) -> Option<Project> {
            let jest = installed_jest()?;
            let tmp = tempfile::tempdir().unwrap();
            let p = Project { tmp };
            for (rel, text) in files {
                let path = p.root().join(rel);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            std::os::unix::fs::symlink(jest.join("node_modules"), p.root().join("node_modules"))
                .unwrap();
            std::fs::create_dir_all(p.tmp.path().join("t")).unwrap();
            Some(p)
        }

        fn root(&self) -> PathBuf {
            self.tmp.path().join("p")
        }

        /// jest's default cache directory for the project's processes.
        fn cache(&self) -> PathBuf {
            std::fs::canonicalize(self.tmp.path().join("t"))
                .unwrap()
                .join(format!("jest_{}", base36(uid())))
        }

        /// `command` run by `sh` at the project's root with the project's temporary directory,
        /// nothing else of this process's environment but PATH and HOME, plus `env`.
        fn sh(&self, command: &str, env: &[(&str, &str)]) -> std::process::Output {
            let mut cmd = std::process::Command::new("sh");
            cmd.args(["-c", command])
                .current_dir(self.root())
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", std::env::var_os("HOME").unwrap_or_default())
                .env("TMPDIR", self.tmp.path().join("t"));
            for (k, v) in env {
                cmd.env(k, v);
            }
            cmd.output().unwrap()
        }

        /// pawl's pass for checks whose commands are `commands`, as [`warm`] runs it (without
        /// the sandbox), `plain`: with no variant read from the commands; its output.
        fn pass(&self, commands: &[&str], plain: bool) -> String {
            let passes = Passes::read(&self.root(), commands);
            let cache = self.cache();
            let mut env = vec![
                ("PAWL_JEST_CACHE", cache.to_str().unwrap().to_owned()),
                ("PAWL_JEST_PASS", PASS.to_owned()),
            ];
            if passes.coverage && !plain {
                env.push(("PAWL_JEST_COVERAGE", "1".into()));
            }
            let mut passes = passes;
            if passes.esm && !plain {
                env.push(("PAWL_JEST_ESM", "1".into()));
            }
            if plain {
                (passes.coverage, passes.esm) = (false, false);
            }
            let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let out = self.sh(&passes.command(), &env);
            assert!(out.status.success(), "{out:?}");
            String::from_utf8_lossy(&out.stdout).into_owned()
        }

        /// The transformed files in jest's cache.
        fn transforms(&self) -> std::collections::BTreeSet<PathBuf> {
            let mut out = std::collections::BTreeSet::new();
            let mut stack = vec![self.cache()];
            while let Some(p) = stack.pop() {
                for e in std::fs::read_dir(&p).into_iter().flatten().flatten() {
                    let path = e.path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if path.components().any(|c| {
                        c.as_os_str()
                            .to_string_lossy()
                            .starts_with("jest-transform-cache-")
                    }) {
                        out.insert(path);
                    }
                }
            }
            out
        }

        /// Runs the check `command` after pawl's pass (`plain`: the pass of main `866cd9a7`,
        /// which read no variant from the commands), on an empty cache; the transforms the
        /// check had to make itself (none: it read pawl's pass alone).
        fn cold_after_pass(&self, command: &str, plain: bool) -> (Vec<PathBuf>, String) {
            let _ = std::fs::remove_dir_all(self.cache());
            let log = self.pass(&[command], plain);
            let warmed = self.transforms();
            let out = self.sh(command, &[]);
            assert!(out.status.success(), "{command}: {out:?}\n{log}");
            let made = self.transforms().difference(&warmed).cloned().collect();
            (made, log)
        }
    }

    const CALC: &str = "function mul(a, b) {\n  return a * b;\n}\n\nmodule.exports = { mul };\n";
    const CALC_TEST: &str = "const { mul } = require('./calc');\n\ntest('multiplies', () => {\n  expect(mul(2, 3)).toBe(6);\n});\n";
    const PKG: &str = "{\"name\": \"calc\", \"version\": \"1.0.0\", \"private\": true}\n";

    /// A check that collects coverage reads the instrumented transforms pawl's pass made; the
    /// pass of main `866cd9a7` (no coverage variant) left it to instrument cold.
    #[test]
    fn a_check_with_coverage_reads_the_pass_instrumented_transforms() {
        let Some(p) = Project::new(&[
            ("package.json", PKG),
            ("calc.js", CALC),
            ("calc.test.js", CALC_TEST),
        ]) else {
            return;
        };
        let check = "npx jest --ci --coverage";
        let (made, log) = p.cold_after_pass(check, true);
        assert!(!made.is_empty(), "{log}");
        let (made, log) = p.cold_after_pass(check, false);
        assert!(made.is_empty(), "{made:?}\n{log}");
        assert!(log.contains("transformed 2 files"), "{log}");
        // `collectCoverage` in the configuration: every check collects it, nothing on the
        // command says so.
        let Some(p) = Project::new(&[
            (
                "package.json",
                "{\"name\": \"calc\", \"private\": true, \"jest\": {\"collectCoverage\": true}}\n",
            ),
            ("calc.js", CALC),
            ("calc.test.js", CALC_TEST),
        ]) else {
            return;
        };
        let (made, log) = p.cold_after_pass("npx jest --ci", false);
        assert!(made.is_empty(), "{made:?}\n{log}");
    }

    /// A check that runs jest's native ESM (`--experimental-vm-modules`, a `"type": "module"`
    /// package) reads the ESM transforms pawl's pass made; main's pass keyed them as CommonJS.
    /// With `transform: {}` jest transforms nothing and its cache holds no transform for the
    /// pass to make: the pass says so.
    #[test]
    fn a_native_esm_check_reads_the_pass_transforms() {
        let files = [
            (
                "package.json",
                "{\"name\": \"calc\", \"private\": true, \"type\": \"module\"}\n",
            ),
            (
                "calc.js",
                "export function mul(a, b) {\n  return a * b;\n}\n",
            ),
            (
                "calc.test.js",
                "import { mul } from './calc.js';\n\ntest('multiplies', () => {\n  expect(mul(2, 3)).toBe(6);\n});\n",
            ),
        ];
        let Some(p) = Project::new(&files) else {
            return;
        };
        let check = "NODE_OPTIONS=--experimental-vm-modules npx jest --ci";
        let (made, log) = p.cold_after_pass(check, true);
        assert!(!made.is_empty(), "{log}");
        let (made, log) = p.cold_after_pass(check, false);
        assert!(made.is_empty(), "{made:?}\n{log}");
        assert!(log.contains("transformed 2 files"), "{log}");
        // `transform: {}`: nothing transformed, by the check either.
        let mut files = files;
        files[0].1 = "{\"name\": \"calc\", \"private\": true, \"type\": \"module\", \"jest\": {\"transform\": {}}}\n";
        let Some(p) = Project::new(&files) else {
            return;
        };
        let (made, log) = p.cold_after_pass(check, false);
        assert!(made.is_empty(), "{made:?}\n{log}");
        assert!(p.transforms().is_empty(), "{log}");
        assert!(log.contains("nothing to transform"), "{log}");
    }

    /// A package in a sub-folder (`cd packages/a && npx jest`, jest installed at the root) is
    /// warmed where its check runs jest; main's pass ran at the root only, under another
    /// configuration, and the check transformed cold.
    #[test]
    fn a_package_in_a_sub_folder_is_warmed_where_its_check_runs_jest() {
        let Some(p) = Project::new(&[
            (
                "package.json",
                "{\"private\": true, \"workspaces\": [\"packages/*\"]}\n",
            ),
            ("packages/a/package.json", PKG),
            (
                "packages/a/jest.config.js",
                "module.exports = { testEnvironment: 'node' };\n",
            ),
            ("packages/a/calc.js", CALC),
            ("packages/a/calc.test.js", CALC_TEST),
        ]) else {
            return;
        };
        let check = "cd packages/a && npx jest --ci";
        let passes = Passes::read(&p.root(), &[check]);
        assert_eq!(passes.dirs, vec![PathBuf::from("packages/a")]);
        let (made, log) = p.cold_after_pass(check, false);
        assert!(made.is_empty(), "{made:?}\n{log}");
        // The root's pass alone (main's): the check transformed what it needed itself.
        let _ = std::fs::remove_dir_all(p.cache());
        let root = Passes {
            dirs: vec![PathBuf::new()],
            ..Passes::default()
        };
        let cache = p.cache();
        let out = p.sh(
            &root.command(),
            &[
                ("PAWL_JEST_CACHE", cache.to_str().unwrap()),
                ("PAWL_JEST_PASS", PASS),
            ],
        );
        assert!(out.status.success(), "{out:?}");
        let warmed = p.transforms();
        assert!(p.sh(check, &[]).status.success());
        assert!(p.transforms().difference(&warmed).next().is_some());
    }

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
