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
//! Not here yet: Go's module cache (`GOMODCACHE`), cargo's git checkouts, pnpm's store.

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

/// The user's cargo registry as the sealed environment names it (`CARGO_HOME`, else
/// `HOME/.cargo`).
pub fn cargo_registry(env: &std::collections::BTreeMap<String, String>) -> Option<PathBuf> {
    let home = env
        .get("CARGO_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| env.get("HOME").map(|h| Path::new(h).join(".cargo")))?;
    Some(home.join("registry"))
}

/// Binds the run's store copy (in `room_dir`) over the user's registry for the checks of
/// `cfg`, read-only (Landlock: not among the writable paths) and offline. Nothing without the
/// check sandbox's namespaces, or without a store.
pub fn bind_for_checks(
    cfg: &mut pawl_verify::RunnerConfig,
    room_dir: &Path,
    env: &std::collections::BTreeMap<String, String>,
) {
    let store = cargo_store(room_dir);
    let Some(registry) = cargo_registry(env) else {
        return;
    };
    if !is_real_dir(&store) || !is_real_dir(&registry) {
        return;
    }
    let Some(containment) = cfg.containment.as_mut() else {
        return;
    };
    if !containment.spec.namespaces {
        return;
    }
    let Some(sandbox) = containment.spec.sandbox.as_mut() else {
        return;
    };
    if sandbox.binds.iter().any(|b| b.target == registry) {
        return;
    }
    sandbox.binds.push(pawl_process::sandbox::Bind {
        source: store,
        target: registry,
    });
    super::env::apply(cfg, vec![("CARGO_NET_OFFLINE".into(), "true".into())]);
}

#[cfg(test)]
mod tests {
    use super::cargo_locked;

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
