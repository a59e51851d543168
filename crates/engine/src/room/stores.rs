//! The package stores outside the repository that the checks' builds read (issue 30 point 2):
//! cargo's registry. A step may write HOME, so it may edit an unpacked crate under
//! `~/.cargo/registry/src/…` that the project's tests call; read from there, the edit would
//! steer the verdict (seen: the attack in the cli's `sandbox` tests turned a failing test
//! green with no tracked file changed). So the seal takes a copy of what the tree's
//! `Cargo.lock` locks from the user's registry into the run's room ([`STORES`]), and every check
//! of the run sees that copy at the registry's path, read-only, offline
//! (`CARGO_NET_OFFLINE=true`): an edit of the user's registry after the seal changes nothing
//! the checks see (the outside manifest still names it, a finding).
//!
//! - **What is copied**: for each `[[package]]` of `Cargo.lock` from a registry source
//!   (`registry+…`, `sparse+…`), its unpacked source (`registry/src/<index>/<name>-<version>`),
//!   its archive (`registry/cache/<index>/<name>-<version>.crate`) and its index entries
//!   (`registry/index/<index>/.cache/…/<name>` and the index's `config.json`): what an offline
//!   build needs. Only where every locked crate is in the user's registry (else the checks keep
//!   reading the user's registry as before: an offline build could not work).
//! - **Warm**: an entry the store holds is not copied again (the seal's copy is pawl's; a
//!   registry entry never changes for the same version).
//! - **Rebuilt for new dependencies**: a tree whose `Cargo.lock` the run changed gets the
//!   detected `cargo fetch` (`[room] setup`), run with the network, writing into this store
//!   (bound writable at the registry's path for that command only): the per-run download
//!   layer. The user's registry is not written.
//! - Without mount namespaces nothing can be bound: the checks read the user's registry
//!   (read-only to them, and in the outside manifest), as before.
//!
//!
//! **Go's module cache** (`GOMODCACHE`, else the first `GOPATH` entry's `pkg/mod`, else
//! `~/go/pkg/mod`) the same way, into [`go_store`]: for each module `go.sum` (and `go.work.sum`)
//! locks, its extracted source (`<module>@<version>`, which Go never checks again after the
//! download: an edit there is built as it is) and its download entries
//! (`cache/download/<module>/@v/<version>.{mod,info,zip,ziphash}`, the `.mod` alone for a
//! `/go.mod` line); module paths and versions escaped as Go escapes them (`!` before a
//! lower-cased capital). What the user's cache lacks is not copied: the checks, offline and
//! reading the store read-only, could not fetch it either way. The copies' directories are
//! writable to pawl (Go leaves them read-only), which removes them with the room. A `go.sum`
//! the run changed gets the detected `go mod download` into this store, as `cargo fetch` above.
//!
//! **cargo's git checkouts** (`CARGO_HOME/git`): see [`take_cargo_git`].
//!
//! **pnpm's store** needs nothing here: pnpm hard-links a project's `node_modules` from its
//! store, and the room's `node_modules` is a copy (or a reflink) taken at the seal, never a
//! link, so the checks read the room's files, never the store's; `pnpm install` in `[room]
//! setup` fills the download layer's store (`npm_config_store_dir`), not the user's. An edit of
//! the user's store changes the live `node_modules` through the hard links, which the
//! environment manifest compares (a finding).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::env::{copy_tree, is_real_dir};
use super::{RoomError, io_err};

/// The directory of a run's room that holds its copies of the package stores.
pub const STORES: &str = "stores";

/// The cargo registry's copy in a room directory.
pub fn cargo_store(room_dir: &Path) -> PathBuf {
    room_dir.join(STORES).join("cargo").join("registry")
}

/// The registry packages a `Cargo.lock` locks: (name, version), sorted.
pub fn cargo_locked(lock: &str) -> Vec<(String, String)> {
    let mut out = BTreeSet::new();
    let mut cur: (Option<String>, Option<String>, bool) = (None, None, false);
    let mut flush = |cur: &mut (Option<String>, Option<String>, bool)| {
        if let (Some(n), Some(v), true) = (cur.0.take(), cur.1.take(), cur.2) {
            out.insert((n, v));
        }
        *cur = (None, None, false);
    };
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            flush(&mut cur);
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim().trim_matches('"').to_owned();
        match key.trim() {
            "name" => cur.0 = Some(value),
            "version" => cur.1 = Some(value),
            "source" => cur.2 = value.starts_with("registry+") || value.starts_with("sparse+"),
            _ => {}
        }
    }
    flush(&mut cur);
    out.into_iter().collect()
}

/// What taking the store did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Locked crates.
    pub crates: usize,
    /// Crates copied now (the others were held already).
    pub copied: usize,
    pub files: u64,
    pub bytes: u64,
    pub duration: Duration,
}

/// Takes the seal's copy of the registry entries `lock` (a `Cargo.lock`'s text) names from
/// `registry` (the user's `CARGO_HOME/registry`) into `store` (see the module docs). `None`
/// (and no store) when the lockfile names no registry crate or one is missing from the user's
/// registry.
pub fn take_cargo(
    lock: &str,
    registry: &Path,
    store: &Path,
) -> Result<Option<StoreStats>, RoomError> {
    let started = Instant::now();
    let locked = cargo_locked(lock);
    if locked.is_empty() || !is_real_dir(registry) {
        return Ok(None);
    }
    let indexes: Vec<String> = fs::read_dir(registry.join("src"))
        .map_err(io_err(registry))?
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    // Each locked crate: the index it is unpacked under.
    let mut found = Vec::new();
    for (name, version) in &locked {
        let dir = format!("{name}-{version}");
        let Some(index) = indexes.iter().find(|i| {
            is_real_dir(&registry.join("src").join(i).join(&dir))
                && registry
                    .join("cache")
                    .join(i)
                    .join(format!("{dir}.crate"))
                    .is_file()
        }) else {
            // An offline build from the copy could not work: the store is not made.
            return Ok(None);
        };
        found.push((name.clone(), dir, index.clone()));
    }
    let mut stats = StoreStats {
        crates: found.len(),
        ..StoreStats::default()
    };
    let names: BTreeSet<&str> = found.iter().map(|(n, _, _)| n.as_str()).collect();
    for (_, dir, index) in &found {
        let src_to = store.join("src").join(index).join(dir);
        if is_real_dir(&src_to) {
            continue;
        }
        // The archive first: a source directory is only ever there with its archive.
        let krate = format!("{dir}.crate");
        let cache_to = store.join("cache").join(index);
        fs::create_dir_all(&cache_to).map_err(io_err(&cache_to))?;
        let n = fs::copy(
            registry.join("cache").join(index).join(&krate),
            cache_to.join(&krate),
        )
        .map_err(io_err(&cache_to))?;
        let staging = store.join("new");
        super::remove_any(&staging)?;
        fs::create_dir_all(store.join("src").join(index)).map_err(io_err(store))?;
        let (files, bytes, _) = copy_tree(&registry.join("src").join(index).join(dir), &staging)?;
        fs::rename(&staging, &src_to).map_err(io_err(&src_to))?;
        stats.copied += 1;
        stats.files += files + 1;
        stats.bytes += bytes + n;
    }
    // The index entries of the locked names (cargo resolves the lockfile against them).
    for index in found.iter().map(|(_, _, i)| i).collect::<BTreeSet<_>>() {
        let from = registry.join("index").join(index);
        let to = store.join("index").join(index);
        fs::create_dir_all(&to).map_err(io_err(&to))?;
        if from.join("config.json").is_file() && !to.join("config.json").is_file() {
            fs::copy(from.join("config.json"), to.join("config.json")).map_err(io_err(&from))?;
        }
        copy_named(&from.join(".cache"), &to.join(".cache"), &names)?;
    }
    stats.duration = started.elapsed();
    Ok(Some(stats))
}

/// Copies the files below `from` whose name is one of `names` to the same place below `to`
/// (the index's cache: `.cache/3/s/syn`, `.cache/it/oa/itoa`), unless held already.
fn copy_named(from: &Path, to: &Path, names: &BTreeSet<&str>) -> Result<(), RoomError> {
    let Ok(entries) = fs::read_dir(from) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name();
        if path.is_dir() {
            copy_named(&path, &to.join(&name), names)?;
        } else if names.contains(name.to_string_lossy().as_ref()) && !to.join(&name).is_file() {
            fs::create_dir_all(to).map_err(io_err(to))?;
            fs::copy(&path, to.join(&name)).map_err(io_err(&path))?;
        }
    }
    Ok(())
}

/// A variable of the sealed environment, empty taken as unset (as cargo and go take it).
pub type Var<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The variables of a sealed environment.
pub fn var_of(env: &std::collections::BTreeMap<String, String>) -> impl Fn(&str) -> Option<String> {
    |k: &str| env.get(k).filter(|v| !v.is_empty()).cloned()
}

/// `CARGO_HOME` as cargo resolves it: the variable, else `HOME/.cargo` (the one place: the
/// stores bound for the checks and the stores a `cargo fetch` may write).
pub fn cargo_home(var: Var<'_>) -> Option<PathBuf> {
    let nonempty = |k: &str| var(k).filter(|v| !v.is_empty());
    nonempty("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| nonempty("HOME").map(|h| Path::new(&h).join(".cargo")))
}

/// Go's module cache as go resolves it: `GOMODCACHE`, else the first `GOPATH` entry's
/// `pkg/mod`, else `HOME/go/pkg/mod` — each variable from the environment, else from go's own
/// configuration file (`go env -w` writes it: `GOENV`, else `XDG_CONFIG_HOME/go/env`, else
/// `HOME/.config/go/env`), as go reads them.
pub fn go_modcache(var: Var<'_>) -> Option<PathBuf> {
    let file = go_env_file(var);
    let nonempty = |k: &str| {
        var(k)
            .filter(|v| !v.is_empty())
            .or_else(|| go_env_value(file.as_deref(), k))
    };
    nonempty("GOMODCACHE").map(PathBuf::from).or_else(|| {
        nonempty("GOPATH")
            .and_then(|p| p.split(':').find(|e| !e.is_empty()).map(PathBuf::from))
            .or_else(|| nonempty("HOME").map(|h| Path::new(&h).join("go")))
            .map(|g| g.join("pkg").join("mod"))
    })
}

/// The text of go's configuration file as `var` locates it (`GOENV`, else the user's config
/// directory's `go/env`); `None` when it is `off` or cannot be read.
fn go_env_file(var: Var<'_>) -> Option<String> {
    let path = match var("GOENV").filter(|v| !v.is_empty()) {
        Some(v) if v == "off" => return None,
        Some(v) => PathBuf::from(v),
        None => var("XDG_CONFIG_HOME")
            .filter(|v| Path::new(v).is_absolute())
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|h| Path::new(&h).join(".config")))?
            .join("go")
            .join("env"),
    };
    use std::io::Read as _;
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(64 * 1024)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// `key`'s value in go's configuration file (`KEY=value` lines), empty taken as unset.
fn go_env_value(file: Option<&str>, key: &str) -> Option<String> {
    file?
        .lines()
        .filter_map(|l| l.trim().split_once('='))
        .filter(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim().to_owned())
        .next_back()
        .filter(|v| !v.is_empty())
}

/// The user's cargo registry as the sealed environment names it.
pub fn cargo_registry(env: &std::collections::BTreeMap<String, String>) -> Option<PathBuf> {
    cargo_home(&var_of(env)).map(|h| h.join("registry"))
}

/// A store bound for the checks: the copy in the room, the user's store it stands for, the
/// variable (and value) that makes its tool offline.
type Bound = (PathBuf, PathBuf, Option<(&'static str, &'static str)>);

/// The run's stores and where each is seen by the checks.
fn bound_stores(room_dir: &Path, env: &std::collections::BTreeMap<String, String>) -> Vec<Bound> {
    let var = var_of(env);
    let home = cargo_home(&var);
    [
        (
            cargo_store(room_dir),
            home.as_ref().map(|h| h.join("registry")),
            Some(("CARGO_NET_OFFLINE", "true")),
        ),
        (
            cargo_git_store(room_dir),
            home.as_ref().map(|h| h.join("git")),
            Some(("CARGO_NET_OFFLINE", "true")),
        ),
        // No `GOPROXY=off`: a `go mod download` of the run's setup needs the user's proxy back,
        // and the checks cannot fetch anyway (their network is private, the store read-only).
        (go_store(room_dir), go_modcache(&var), None),
    ]
    .into_iter()
    .filter_map(|(store, user, offline)| Some((store, user?, offline)))
    .filter(|(store, user, _)| is_real_dir(store) && is_real_dir(user))
    .collect()
}

/// Whether the room holds a copy of any package store (an environment `cargo fetch` or `go
/// mod download` rebuilds).
pub fn any(room_dir: &Path) -> bool {
    [
        cargo_store(room_dir),
        cargo_git_store(room_dir),
        go_store(room_dir),
    ]
    .iter()
    .any(|s| is_real_dir(s))
}

/// Takes the seal's copies of every store the tree at `tree` (the room's) locks from the
/// user's stores `env` names, into `room_dir`; a store that cannot be taken is removed (its
/// checks read the user's store as before).
pub fn take_all(tree: &Path, room_dir: &Path, env: &std::collections::BTreeMap<String, String>) {
    let var = var_of(env);
    let home = cargo_home(&var);
    let lock = fs::read_to_string(tree.join("Cargo.lock")).ok();
    let keep = |store: PathBuf, taken: Option<Result<Option<StoreStats>, RoomError>>| {
        if !matches!(taken, Some(Ok(Some(_)))) {
            let _ = super::remove_any(&store);
        }
    };
    let registry = home.as_ref().map(|h| h.join("registry"));
    let store = cargo_store(room_dir);
    keep(
        store.clone(),
        lock.as_deref()
            .zip(registry.as_deref())
            .map(|(l, r)| take_cargo(l, r, &store)),
    );
    let git = home.as_ref().map(|h| h.join("git"));
    let store = cargo_git_store(room_dir);
    keep(
        store.clone(),
        lock.as_deref()
            .zip(git.as_deref())
            .map(|(l, g)| take_cargo_git(l, g, &store)),
    );
    let sums: String = ["go.sum", "go.work.sum"]
        .iter()
        .filter_map(|f| fs::read_to_string(tree.join(f)).ok())
        .collect::<Vec<_>>()
        .join("\n");
    let store = go_store(room_dir);
    keep(
        store.clone(),
        (!sums.is_empty())
            .then_some(())
            .and(go_modcache(&var))
            .map(|cache| take_go(&sums, &cache, &store)),
    );
}

/// Binds the run's store copies (in `room_dir`) over the user's stores for the checks of
/// `cfg`, read-only (Landlock: not among the writable paths) and offline. Nothing without the
/// check sandbox's namespaces, or for a store the room has no copy of.
pub fn bind_for_checks(
    cfg: &mut pawl_verify::RunnerConfig,
    room_dir: &Path,
    env: &std::collections::BTreeMap<String, String>,
) {
    let stores = bound_stores(room_dir, env);
    let Some(containment) = cfg.containment.as_mut() else {
        return;
    };
    if !containment.spec.namespaces {
        return;
    }
    let Some(sandbox) = containment.spec.sandbox.as_mut() else {
        return;
    };
    let mut vars = Vec::new();
    for (store, user, offline) in stores {
        if sandbox.binds.iter().any(|b| b.target == user) {
            continue;
        }
        sandbox.binds.push(pawl_process::sandbox::Bind {
            source: store,
            target: user,
        });
        if let Some((k, v)) = offline {
            vars.push((k.into(), v.into()));
        }
    }
    super::env::apply(cfg, vars);
}

/// Go's module cache's copy in a room directory.
pub fn go_store(room_dir: &Path) -> PathBuf {
    room_dir.join(STORES).join("go").join("mod")
}

/// A module `go.sum` locks: its path, version, and whether its source is locked (a line
/// without `/go.mod`) or only its `go.mod`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct GoModule {
    pub path: String,
    pub version: String,
    pub source: bool,
}

/// The modules `sum` (a `go.sum`'s text) locks, sorted.
pub fn go_locked(sum: &str) -> Vec<GoModule> {
    let mut out: std::collections::BTreeMap<(String, String), bool> =
        std::collections::BTreeMap::new();
    for line in sum.lines() {
        let mut words = line.split_whitespace();
        let (Some(path), Some(version), Some(hash), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            continue;
        };
        // `h1:<base64>`: a line that is not a hash line is not a module.
        if !hash.starts_with('h') || !hash.contains(':') {
            continue;
        }
        let (version, source) = match version.strip_suffix("/go.mod") {
            Some(v) => (v, false),
            None => (version, true),
        };
        *out.entry((path.to_owned(), version.to_owned()))
            .or_default() |= source;
    }
    out.into_iter()
        .map(|((path, version), source)| GoModule {
            path,
            version,
            source,
        })
        .collect()
}

/// A module path or version as Go's module cache spells it: `!` before each capital, lowered.
pub fn go_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_uppercase() {
            out.push('!');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Takes the seal's copy of the modules `sum` locks from `cache` (the user's module cache)
/// into `store` (see the module docs). `None` (and no store) when the cache holds none of
/// their sources.
pub fn take_go(sum: &str, cache: &Path, store: &Path) -> Result<Option<StoreStats>, RoomError> {
    let started = Instant::now();
    let locked = go_locked(sum);
    if locked.is_empty() || !is_real_dir(cache) {
        return Ok(None);
    }
    let mut stats = StoreStats::default();
    for m in &locked {
        let (path, version) = (go_escape(&m.path), go_escape(&m.version));
        let download = Path::new("cache").join("download").join(&path).join("@v");
        let exts: &[&str] = if m.source {
            &["mod", "info", "zip", "ziphash"]
        } else {
            &["mod", "info"]
        };
        for ext in exts {
            let rel = download.join(format!("{version}.{ext}"));
            let (from, to) = (cache.join(&rel), store.join(&rel));
            if !from.is_file() || to.is_file() {
                continue;
            }
            let parent = to.parent().unwrap_or(store);
            fs::create_dir_all(parent).map_err(io_err(parent))?;
            stats.bytes += fs::copy(&from, &to).map_err(io_err(&from))?;
            stats.files += 1;
        }
        if !m.source {
            continue;
        }
        let rel = format!("{path}@{version}");
        if !is_real_dir(&cache.join(&rel)) {
            continue;
        }
        stats.crates += 1;
        let to = store.join(&rel);
        if is_real_dir(&to) {
            continue;
        }
        let staging = store.join("new");
        super::remove_any(&staging)?;
        let parent = to.parent().unwrap_or(store);
        fs::create_dir_all(parent).map_err(io_err(parent))?;
        let (files, bytes, _) = copy_tree(&cache.join(&rel), &staging)?;
        owner_writable_dirs(&staging)?;
        fs::rename(&staging, &to).map_err(io_err(&to))?;
        stats.copied += 1;
        stats.files += files;
        stats.bytes += bytes;
    }
    stats.duration = started.elapsed();
    Ok((stats.crates > 0).then_some(stats))
}

/// Makes every directory below (and at) `dir` writable to its owner: Go leaves its module
/// directories read-only, which would keep pawl from moving or removing its copy.
fn owner_writable_dirs(dir: &Path) -> Result<(), RoomError> {
    use std::os::unix::fs::PermissionsExt;
    let meta = fs::symlink_metadata(dir).map_err(io_err(dir))?;
    if !meta.is_dir() {
        return Ok(());
    }
    let mode = meta.permissions().mode();
    if mode & 0o200 == 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(mode | 0o700)).map_err(io_err(dir))?;
    }
    for e in fs::read_dir(dir).map_err(io_err(dir))?.flatten() {
        owner_writable_dirs(&e.path())?;
    }
    Ok(())
}

/// cargo's git checkouts' copy in a room directory.
pub fn cargo_git_store(room_dir: &Path) -> PathBuf {
    room_dir.join(STORES).join("cargo").join("git")
}

/// The git revisions a `Cargo.lock` locks (`source = "git+<url>#<revision>"`), sorted.
pub fn cargo_git_locked(lock: &str) -> Vec<String> {
    let revs: BTreeSet<String> = lock
        .lines()
        .filter_map(|l| {
            let (key, value) = l.split_once('=')?;
            let value = value.trim().trim_matches('"');
            (key.trim() == "source" && value.starts_with("git+"))
                .then(|| value.rsplit_once('#').map(|(_, rev)| rev.to_owned()))
                .flatten()
        })
        .filter(|rev| rev.len() >= 7 && rev.chars().all(|c| c.is_ascii_hexdigit()))
        .collect();
    revs.into_iter().collect()
}

/// Takes the seal's copy of the git dependencies `lock` locks from `git` (the user's
/// `CARGO_HOME/git`) into `store`: for each locked revision, the checkout cargo made of it
/// (`checkouts/<name>-<hash>/<short revision>`, found by its revision, as cargo names it from
/// the URL with a hash of its own) and the repository it was checked out of
/// (`db/<name>-<hash>`, which an offline build asks whether it holds the revision). Only where
/// every locked revision is checked out (else `None`: an offline build from the copy could
/// not work).
pub fn take_cargo_git(
    lock: &str,
    git: &Path,
    store: &Path,
) -> Result<Option<StoreStats>, RoomError> {
    let started = Instant::now();
    let revs = cargo_git_locked(lock);
    if revs.is_empty() || !is_real_dir(git) {
        return Ok(None);
    }
    let checkouts = git.join("checkouts");
    let idents: Vec<String> = fs::read_dir(&checkouts)
        .map_err(io_err(&checkouts))?
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut found = Vec::new();
    for rev in &revs {
        let hit = idents.iter().find_map(|ident| {
            fs::read_dir(checkouts.join(ident))
                .ok()?
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .find(|short| short.len() >= 7 && rev.starts_with(short.as_str()))
                .map(|short| (ident.clone(), short))
        });
        let Some(hit) = hit else {
            return Ok(None);
        };
        found.push(hit);
    }
    let mut stats = StoreStats {
        crates: found.len(),
        ..StoreStats::default()
    };
    let mut rels: Vec<PathBuf> = Vec::new();
    for (ident, short) in &found {
        rels.push(Path::new("checkouts").join(ident).join(short));
        rels.push(Path::new("db").join(ident));
    }
    rels.dedup();
    for rel in rels {
        let (from, to) = (git.join(&rel), store.join(&rel));
        if !is_real_dir(&from) || is_real_dir(&to) {
            continue;
        }
        let staging = store.join("new");
        super::remove_any(&staging)?;
        fs::create_dir_all(store).map_err(io_err(store))?;
        let (files, bytes, _) = copy_tree(&from, &staging)?;
        owner_writable_dirs(&staging)?;
        let parent = to.parent().unwrap_or(store);
        fs::create_dir_all(parent).map_err(io_err(parent))?;
        fs::rename(&staging, &to).map_err(io_err(&to))?;
        stats.copied += 1;
        stats.files += files;
        stats.bytes += bytes;
    }
    stats.duration = started.elapsed();
    Ok(Some(stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_modules_a_go_sum_locks_and_their_cache_names() {
        let sum = "github.com/BurntSushi/toml v1.3.2 h1:o7IhLm0Msx3BaB+n3Ag7L8EVlByGKpq14C/7+u5X3vE=\ngithub.com/BurntSushi/toml v1.3.2/go.mod h1:CxXYINrC8qIiEnFrOxCa7Jy5BFHlXnUU2pbicEuybxQ=\ngolang.org/x/mod v0.14.0/go.mod h1:hTbmBsO62+eylJbnUtE2MGJUyE7QWk4xUqPFrRgJ+7c=\n\nnot a line\n";
        assert_eq!(
            go_locked(sum),
            vec![
                GoModule {
                    path: "github.com/BurntSushi/toml".into(),
                    version: "v1.3.2".into(),
                    source: true
                },
                GoModule {
                    path: "golang.org/x/mod".into(),
                    version: "v0.14.0".into(),
                    source: false
                },
            ]
        );
        assert_eq!(
            go_escape("github.com/BurntSushi/toml"),
            "github.com/!burnt!sushi/toml"
        );
    }

    #[test]
    fn the_git_revisions_a_lockfile_locks() {
        let lock = "[[package]]\nname = \"dep\"\nversion = \"0.1.0\"\nsource = \"git+file:///tmp/dep?branch=main#0123456789abcdef0123456789abcdef01234567\"\n\n[[package]]\nname = \"itoa\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
        assert_eq!(
            cargo_git_locked(lock),
            vec!["0123456789abcdef0123456789abcdef01234567".to_owned()]
        );
    }

    /// One resolution of `CARGO_HOME` and `GOMODCACHE` (setup and the bound stores used to
    /// differ on an empty value: the setup's made a relative `registry`).
    #[test]
    fn an_empty_variable_is_unset_for_the_store_paths() {
        let env: std::collections::BTreeMap<String, String> = [
            ("HOME", "/h"),
            ("CARGO_HOME", ""),
            ("GOMODCACHE", ""),
            ("GOPATH", ":/g:/g2"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let var = var_of(&env);
        assert_eq!(cargo_home(&var), Some(PathBuf::from("/h/.cargo")));
        assert_eq!(go_modcache(&var), Some(PathBuf::from("/g/pkg/mod")));
        let home_only = |k: &str| (k == "HOME").then(|| "/h".to_owned());
        assert_eq!(
            go_modcache(&home_only),
            Some(PathBuf::from("/h/go/pkg/mod"))
        );
    }

    /// A module cache set with `go env -w` (go's configuration file) is the one go uses,
    /// unless the environment sets one; `GOENV=off` ignores the file.
    #[test]
    fn a_module_cache_set_in_gos_own_configuration_file_is_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join(".config/go")).expect("mkdir");
        std::fs::write(
            dir.path().join(".config/go/env"),
            "GOPROXY=direct\nGOMODCACHE=/srv/gomod\n",
        )
        .expect("env");
        let with = |extra: &'static [(&'static str, &'static str)]| {
            let home = home.clone();
            move |k: &str| {
                extra
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
                    .or_else(|| (k == "HOME").then(|| home.clone()))
            }
        };
        assert_eq!(go_modcache(&with(&[])), Some(PathBuf::from("/srv/gomod")));
        assert_eq!(
            go_modcache(&with(&[("GOMODCACHE", "/env/mod")])),
            Some(PathBuf::from("/env/mod"))
        );
        assert_eq!(
            go_modcache(&with(&[("GOENV", "off")])),
            Some(dir.path().join("go/pkg/mod"))
        );
        // Its GOPATH is read the same way.
        std::fs::write(dir.path().join(".config/go/env"), "GOPATH=/gp\n").expect("env");
        assert_eq!(go_modcache(&with(&[])), Some(PathBuf::from("/gp/pkg/mod")));
    }

    #[test]
    fn the_registry_crates_a_lockfile_locks() {
        let lock = "version = 3\n\n[[package]]\nname = \"demo\"\nversion = \"0.1.0\"\ndependencies = [\n \"itoa\",\n]\n\n[[package]]\nname = \"itoa\"\nversion = \"1.0.15\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"abc\"\n\n[[package]]\nname = \"local\"\nversion = \"0.2.0\"\nsource = \"git+https://example.invalid/x#abc\"\n\n[[package]]\nname = \"serde\"\nversion = \"1.0.200\"\nsource = \"sparse+https://index.crates.io/\"\n";
        assert_eq!(
            cargo_locked(lock),
            vec![
                ("itoa".to_owned(), "1.0.15".to_owned()),
                ("serde".to_owned(), "1.0.200".to_owned())
            ]
        );
    }
}
