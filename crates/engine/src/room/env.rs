//! The room's environment: the project's ignored environment directories (`.venv`,
//! `node_modules`, `vendor` …, as data in the platform descriptors' `[environment]`), taken
//! into the room at the seal so the checks run with the project's own dependencies.
//!
//! - **Taken, not linked.** Each file is reflinked where the file system can (FICLONE on
//!   Linux, clonefile on macOS: `reflink-copy`), else copied; never hard-linked, so a tool that
//!   rewrites a file in place in the repository (or pnpm's store, which hard-links into
//!   `node_modules`) changes nothing under the seal. Symbolic links are copied as they are, and
//!   so is every absolute path inside the files: with the check namespace the checks see the
//!   room at the repository's own path, where those paths lead into the room.
//! - **Warm.** A directory whose stat fingerprint (every entry's path, type, size, mode, mtime,
//!   ctime and inode) is the one recorded when it was last taken, and whose copy in the room is
//!   untouched (its own fingerprint), is not copied again.
//! - **Seed outputs** (`seed`, e.g. `target/`) are copied only into a room that has none.
//! - **The manifest** of the installed-package trees (`packages`) is recorded with the
//!   directories taken ([`EnvState::manifest`]); `pawl_core::envmanifest` compares it.
//! - **Leaks.** Without a mount namespace the room's copy names the live repository wherever a
//!   path in it is absolute: a `.pth` line, an editable finder's mapping, `direct_url.json`,
//!   a script's `#!`, a symbolic link. [`leaks`] names each: code under test would load from
//!   the live tree there.
//! - **The checks' environment** ([`check_vars`]): the bin directories the room took come first
//!   on `PATH`, `VIRTUAL_ENV` names the room's virtualenv, and a virtualenv the seal's
//!   environment had activated elsewhere is dropped from `PATH`.
//!
//! State: `env.json` in the room directory. Rebuilding the environment with the project's
//! install command when a dependency manifest changed: [`super::setup`].

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use globset::GlobBuilder;
use pawl_core::envmanifest::{Manifest, Package};
use pawl_verify::platform::Environment;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Room, RoomError, io_err, remove_any};

/// Bumped when `env.json` changes meaning: an older one is taken again from scratch.
const ENV_FORMAT: u32 = 1;
/// Text files scanned for absolute paths are read up to this size.
const MAX_SCAN: u64 = 1024 * 1024;

/// One directory the room took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TakenDir {
    /// The stat fingerprint of the repository's directory when it was taken.
    pub source: String,
    /// The stat fingerprint of the room's copy right after.
    pub copy: String,
    pub files: u64,
    pub bytes: u64,
}

/// What the room holds of the project's environment (`env.json`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvState {
    pub format: u32,
    /// Directory (root-relative) → how it was taken.
    pub dirs: BTreeMap<String, TakenDir>,
    /// The bin directories of the taken directories, in `PATH` order.
    pub bins: Vec<String>,
    /// The taken directory that is a virtualenv (has `pyvenv.cfg`).
    pub venv: Option<String>,
    /// The installed-package trees as the seal took them.
    pub manifest: Manifest,
    /// Content hashes of the room's package files, by stat, so an unchanged file is not read
    /// again: path → (stat key, sha256).
    #[serde(default)]
    pub hashes: BTreeMap<String, (String, String)>,
    /// Build outputs seeded into the room (`target`) → the stat fingerprint of the room's copy
    /// right after: a seed that no longer has it was written by something other than the seal
    /// and is dropped ([`Room::sync`]).
    #[serde(default)]
    pub seeds: BTreeMap<String, String>,
    /// The build directories of the platforms (`target`): what the `build` check wrote below
    /// them is kept for the next verification ([`Room::sync`]).
    #[serde(default)]
    pub seed_dirs: Vec<String>,
    /// The package-tree globs the manifest was taken over (the platforms' `packages`): the
    /// repository's own directories are compared over the same ([`env_changes`]).
    #[serde(default)]
    pub package_patterns: Vec<String>,
    /// The manifest of what the checks read outside the repository
    /// (`pawl_core::envmanifest::OUTSIDE`), taken at the seal; `None` for a room sealed before
    /// pawl took one.
    #[serde(default)]
    pub outside: Option<Manifest>,
    /// The digest of the dependency manifests the room's environment matches
    /// ([`super::setup::deps_digest`]); `None`: none was recorded (a room from before).
    #[serde(default)]
    pub deps: Option<String>,
    /// The digest at the seal (the environment taken from the repository).
    #[serde(default)]
    pub seal_deps: Option<String>,
    /// Environment directories the project's install command made (`[room] setup`), not taken
    /// from the repository.
    #[serde(default)]
    pub built: Vec<String>,
    /// The seal's directories as they were taken, kept in `env-seal/` once a rebuild replaced
    /// them (put back for a tree with the seal's dependency manifests).
    #[serde(default)]
    pub seal_dirs: BTreeMap<String, TakenDir>,
    /// The manifest of the room's environment after a rebuild (the seal's is `manifest`).
    #[serde(default)]
    pub room_manifest: Option<Manifest>,
    /// The digest a setup last failed for: not run again for the same manifests (every
    /// verification would pay for it), run again once they change.
    #[serde(default)]
    pub failed_deps: Option<String>,
    /// What each program of the environment's `bin` directories resolves to at the seal
    /// ([`programs_of`]): a gate's program that resolves differently after a rebuild is a
    /// finding ([`moved_programs`]).
    #[serde(default)]
    pub programs: BTreeMap<String, String>,
    /// The same after the last rebuild or put-back (`None`: the seal's environment).
    #[serde(default)]
    pub room_programs: Option<BTreeMap<String, String>>,
}

/// How a directory came into the room this time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Taken {
    /// Unchanged since the last seal: not copied.
    Kept,
    /// Copied; `reflinked` of its files shared their blocks.
    Copied,
    /// The repository no longer has it: removed from the room.
    Removed,
}

/// One directory's part of a take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TakeItem {
    pub dir: String,
    pub taken: Taken,
    pub files: u64,
    pub bytes: u64,
    /// Files whose blocks are shared with the repository's (reflinks); the rest were copied.
    pub reflinked: u64,
    pub duration: Duration,
}

/// What [`Room::take_environment`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvStats {
    pub items: Vec<TakeItem>,
    pub duration: Duration,
}

/// A path in the room's environment that leads into the live repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leak {
    /// The file that names it (root-relative).
    pub file: String,
    /// The absolute path it names.
    pub target: String,
}

impl std::fmt::Display for Leak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "code under test would load from the live tree at {} (through {})",
            self.target, self.file
        )
    }
}

impl Room {
    /// Where the environment taken into the room has its `bin` directories and virtualenv
    /// (into `state`), and the manifest of its package trees as the room holds them.
    pub(super) fn located(&self, state: &mut EnvState, env: &Environment) -> Manifest {
        state.bins = env
            .bin
            .iter()
            .filter(|b| {
                state.dirs.keys().any(|d| Path::new(b).starts_with(d))
                    && self.tree_dir.join(b).is_dir()
            })
            .cloned()
            .collect();
        state.venv = state
            .dirs
            .keys()
            .find(|d| self.tree_dir.join(d).join("pyvenv.cfg").is_file())
            .cloned();
        let mut hashes = std::mem::take(&mut state.hashes);
        let manifest = manifest_of(&self.tree_dir, &env.packages, &mut hashes);
        state.hashes = hashes;
        manifest
    }

    fn env_path(&self) -> PathBuf {
        self.dir.join("env.json")
    }

    /// What the room holds of the project's environment; `None` when it took nothing (or its
    /// record is unreadable).
    pub fn environment(&self) -> Option<EnvState> {
        let text = fs::read_to_string(self.env_path()).ok()?;
        serde_json::from_str::<EnvState>(&text)
            .ok()
            .filter(|s| s.format == ENV_FORMAT)
    }

    /// Takes the ignored environment directories of the repository at `repo_root` into the room
    /// (see the module docs), and records them with the manifest of their packages. Call after
    /// [`Room::sync`]: the directories go into the files' directory beside the tree.
    pub fn take_environment(
        &mut self,
        repo: &pawl_git::Repo,
        env: &Environment,
    ) -> Result<EnvStats, RoomError> {
        let started = Instant::now();
        let root = repo.root().to_owned();
        let mut state = self.environment().unwrap_or_default();
        // The record is rewritten at the end; a take that does not finish leaves none.
        remove_any(&self.env_path())?;
        state.format = ENV_FORMAT;
        let present: Vec<&str> = env
            .dirs
            .iter()
            .chain(&env.seed)
            .map(String::as_str)
            .filter(|d| is_real_dir(&root.join(d)))
            .collect();
        // Only what git ignores: anything else is in the tree, and the sync put it there.
        let ignored = repo.ignored(&present)?;
        let mut items = Vec::new();
        let mut taken_any = false;
        for dir in &env.dirs {
            let item = if ignored.iter().any(|i| i == dir) {
                taken_any = true;
                state.built.retain(|b| b != dir);
                self.take_dir(&root, dir, &mut state)?
            } else if state.built.contains(dir) && is_real_dir(&self.tree_dir.join(dir)) {
                // Made by the project's install command for a project without one of its own.
                None
            } else if state.dirs.remove(dir).is_some() {
                remove_any(&self.tree_dir.join(dir))?;
                Some(TakeItem::removed(dir))
            } else {
                None
            };
            items.extend(item);
        }
        for dir in &env.seed {
            let target = self.tree_dir.join(dir);
            if ignored.iter().any(|i| i == dir) && !target.exists() {
                let t = Instant::now();
                let (files, bytes, reflinked) = self.copy_in(&root.join(dir), dir)?;
                let (copy_fp, _, _) = fingerprint(&target).map_err(io_err(&target))?;
                state.seeds.insert(dir.clone(), copy_fp);
                items.push(TakeItem {
                    dir: dir.clone(),
                    taken: Taken::Copied,
                    files,
                    bytes,
                    reflinked,
                    duration: t.elapsed(),
                });
            }
        }
        state.manifest = self.located(&mut state, env);
        // What the install command built is not the repository's: the live tree has none.
        let built = state.built.clone();
        state
            .manifest
            .trees
            .retain(|t, _| !built.iter().any(|b| Path::new(t).starts_with(b)));
        // The environment taken now is the seal's: its dependency manifests are the tree's
        // (the run's copies of the package stores, taken just before, are an environment too).
        if taken_any || super::stores::any(&self.dir) {
            let deps = self
                .held_tree()
                .and_then(|t| self.deps_of_tree(repo, &t, env).ok());
            state.deps.clone_from(&deps);
            state.seal_deps = deps;
            state.seal_dirs.clear();
            state.room_manifest = None;
            state.failed_deps = None;
            remove_any(&self.dir.join("env-seal"))?;
        } else {
            state.seal_deps = None;
        }
        // The room holds the seal's environment: its programs are the seal's.
        if state.room_manifest.is_none() {
            state.programs = programs_of(&self.tree_dir, &state.bins);
            state.room_programs = None;
        }
        // A seed the room no longer has is no longer recorded.
        state
            .seeds
            .retain(|d, _| is_real_dir(&self.tree_dir.join(d)));
        state.seed_dirs = env.seed.clone();
        state.package_patterns = env.packages.clone();
        self.write_environment(&state)?;
        Ok(EnvStats {
            items,
            duration: started.elapsed(),
        })
    }

    fn take_dir(
        &self,
        root: &Path,
        dir: &str,
        state: &mut EnvState,
    ) -> Result<Option<TakeItem>, RoomError> {
        let started = Instant::now();
        let source = root.join(dir);
        let target = self.tree_dir.join(dir);
        let (source_fp, files, bytes) = fingerprint(&source).map_err(io_err(&source))?;
        if let Some(held) = state.dirs.get(dir)
            && held.source == source_fp
            && is_real_dir(&target)
            && fingerprint(&target).is_ok_and(|(fp, _, _)| fp == held.copy)
        {
            return Ok(Some(TakeItem {
                dir: dir.to_owned(),
                taken: Taken::Kept,
                files,
                bytes,
                reflinked: 0,
                duration: started.elapsed(),
            }));
        }
        let (files, bytes, reflinked) = self.copy_in(&source, dir)?;
        let (copy_fp, _, _) = fingerprint(&target).map_err(io_err(&target))?;
        state.dirs.insert(
            dir.to_owned(),
            TakenDir {
                source: source_fp,
                copy: copy_fp,
                files,
                bytes,
            },
        );
        Ok(Some(TakeItem {
            dir: dir.to_owned(),
            taken: Taken::Copied,
            files,
            bytes,
            reflinked,
            duration: started.elapsed(),
        }))
    }

    /// Copies `source` to `tree/<dir>`, through a directory beside the tree so a copy that does
    /// not finish is never taken for one.
    fn copy_in(&self, source: &Path, dir: &str) -> Result<(u64, u64, u64), RoomError> {
        let staging = self.dir.join("env-new");
        remove_any(&staging)?;
        fs::create_dir_all(&staging).map_err(io_err(&staging))?;
        let fresh = staging.join("dir");
        let counts = copy_tree(source, &fresh)?;
        let target = self.tree_dir.join(dir);
        remove_any(&target)?;
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        fs::rename(&fresh, &target).map_err(io_err(&target))?;
        remove_any(&staging)?;
        Ok(counts)
    }
}

impl Room {
    /// The directories of `tree/` that are the environment taken at the seal (and the build
    /// seeds): what a sync keeps besides the tree's files.
    pub(super) fn kept_dirs(&self) -> Vec<String> {
        self.environment()
            .map(|s| s.dirs.into_keys().chain(s.seeds.into_keys()).collect())
            .unwrap_or_default()
    }

    /// Checks each taken directory against the fingerprint its copy had when it was taken: one
    /// that changed (a check wrote into it where the overlay could not be mounted, or anyone
    /// else did) is taken again from the repository when the repository's still has the
    /// fingerprint the seal saw, and is an error otherwise (the seal's environment is gone);
    /// a changed seed is dropped (the next builds start cold). Returns the directories
    /// restored or dropped.
    pub(super) fn check_environment(&mut self, repo_root: &Path) -> Result<Vec<String>, RoomError> {
        let Some(mut state) = self.environment() else {
            return Ok(Vec::new());
        };
        let mut restored = Vec::new();
        let unchanged = |dir: &str, fp: &str| {
            let p = self.tree_dir.join(dir);
            is_real_dir(&p) && fingerprint(&p).is_ok_and(|(now, _, _)| now == fp)
        };
        let changed: Vec<(String, TakenDir)> = state
            .dirs
            .iter()
            .filter(|(dir, taken)| !unchanged(dir, &taken.copy))
            .map(|(d, t)| (d.clone(), t.clone()))
            .collect();
        for (dir, taken) in changed {
            let source = repo_root.join(&dir);
            let same = fingerprint(&source).is_ok_and(|(fp, _, _)| fp == taken.source);
            if !same {
                remove_any(&self.tree_dir.join(&dir))?;
                state.dirs.remove(&dir);
                self.write_environment(&state)?;
                return Err(RoomError::EnvironmentLost { dir });
            }
            self.copy_in(&source, &dir)?;
            let target = self.tree_dir.join(&dir);
            let (copy_fp, _, _) = fingerprint(&target).map_err(io_err(&target))?;
            if let Some(t) = state.dirs.get_mut(&dir) {
                t.copy = copy_fp;
            }
            restored.push(dir);
        }
        let dropped: Vec<String> = state
            .seeds
            .iter()
            .filter(|(dir, fp)| !unchanged(dir, fp))
            .map(|(d, _)| d.clone())
            .collect();
        for dir in dropped {
            remove_any(&self.tree_dir.join(&dir))?;
            state.seeds.remove(&dir);
            restored.push(dir);
        }
        if !restored.is_empty() {
            self.write_environment(&state)?;
        }
        Ok(restored)
    }

    /// Keeps what pawl's own build wrote: the build directories (`target`) in the `build`
    /// check's layer of the last verification are moved into the room's tree (pawl-process's
    /// `merge_kept_layer`), after a seed something else changed is dropped; the seeds'
    /// fingerprints are recorded anew. Test processes never wrote there (their layers are
    /// apart). Returns the files moved.
    pub(super) fn keep_build_outputs(&mut self, scratch: &Path) -> Result<u64, RoomError> {
        use pawl_process::sandbox::check::{KEPT_LAYERS, kept_layer, merge_kept_layer};
        let Some(mut state) = self.environment() else {
            return Ok(0);
        };
        if state.seed_dirs.is_empty() {
            return Ok(0);
        }
        let mut moved = 0;
        for name in KEPT_LAYERS {
            let layer = kept_layer(scratch, name);
            if !layer.join("upper").is_dir() {
                continue;
            }
            for dir in &state.seed_dirs {
                let target = self.tree_dir.join(dir);
                let intact = match state.seeds.get(dir) {
                    Some(fp) => fingerprint(&target).is_ok_and(|(now, _, _)| now == *fp),
                    None => !target.exists(),
                };
                if !intact {
                    remove_any(&target)?;
                    state.seeds.remove(dir);
                }
            }
            match merge_kept_layer(&layer, &self.tree_dir, &state.seed_dirs) {
                Ok(n) => moved += n,
                Err(_) => {
                    // Half merged is no build directory at all: the next build starts cold.
                    for dir in &state.seed_dirs {
                        remove_any(&self.tree_dir.join(dir))?;
                    }
                    state.seeds.clear();
                    self.write_environment(&state)?;
                    return Ok(0);
                }
            }
            for dir in &state.seed_dirs {
                let target = self.tree_dir.join(dir);
                if is_real_dir(&target) {
                    let (fp, _, _) = fingerprint(&target).map_err(io_err(&target))?;
                    state.seeds.insert(dir.clone(), fp);
                }
            }
        }
        if moved > 0 {
            self.write_environment(&state)?;
        }
        Ok(moved)
    }

    /// Records the manifest of what the checks read outside the repository at `repo_root`,
    /// as the sealed variables `sealed` locate it ([`outside_manifest`]). Call at the seal,
    /// after [`Room::take_environment`].
    pub fn seal_outside(
        &mut self,
        sealed: &BTreeMap<String, String>,
        repo_root: &Path,
    ) -> Result<(), RoomError> {
        let mut state = self.environment().unwrap_or_default();
        state.format = ENV_FORMAT;
        state.outside = Some(outside_manifest(&outside_places(sealed, repo_root)));
        self.write_environment(&state)
    }

    pub(super) fn write_environment(&self, state: &EnvState) -> Result<(), RoomError> {
        let path = self.env_path();
        let temp = self.dir.join("env.json.tmp");
        let text = serde_json::to_string(state).unwrap_or_default();
        fs::write(&temp, text).map_err(io_err(&temp))?;
        fs::rename(&temp, &path).map_err(io_err(&path))
    }

    /// Moves the taken directories (and seeds) out of the files' directory (before a rebuild
    /// wipes it); returns them.
    pub(super) fn set_environment_aside(&self) -> Result<Vec<String>, RoomError> {
        let aside = self.dir.join("env-aside");
        remove_any(&aside)?;
        let mut kept = Vec::new();
        for dir in &self.kept_dirs() {
            let from = self.tree_dir.join(dir);
            if !is_real_dir(&from) {
                continue;
            }
            let to = aside.join(dir);
            if let Some(parent) = to.parent() {
                fs::create_dir_all(parent).map_err(io_err(parent))?;
            }
            fs::rename(&from, &to).map_err(io_err(&to))?;
            kept.push(dir.clone());
        }
        Ok(kept)
    }

    /// Puts back what [`Room::set_environment_aside`] moved.
    pub(super) fn put_environment_back(&self, kept: &[String]) -> Result<(), RoomError> {
        let aside = self.dir.join("env-aside");
        for dir in kept {
            let to = self.tree_dir.join(dir);
            remove_any(&to)?;
            if let Some(parent) = to.parent() {
                fs::create_dir_all(parent).map_err(io_err(parent))?;
            }
            fs::rename(aside.join(dir), &to).map_err(io_err(&to))?;
        }
        remove_any(&aside)
    }
}

impl TakeItem {
    fn removed(dir: &str) -> TakeItem {
        TakeItem {
            dir: dir.to_owned(),
            taken: Taken::Removed,
            files: 0,
            bytes: 0,
            reflinked: 0,
            duration: Duration::ZERO,
        }
    }
}

pub(super) fn is_real_dir(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// Every entry below `dir`, sorted, as root-relative paths with their metadata (symbolic links
/// are not followed).
fn walk(dir: &Path) -> io::Result<Vec<(PathBuf, fs::Metadata)>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let mut entries: Vec<(PathBuf, fs::Metadata)> = fs::read_dir(dir.join(&rel))?
            .map(|e| {
                let e = e?;
                Ok((rel.join(e.file_name()), e.metadata()?))
            })
            .collect::<io::Result<_>>()?;
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (path, meta) in entries.into_iter().rev() {
            if meta.is_dir() {
                stack.push(path.clone());
            }
            out.push((path, meta));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The stat fingerprint of a directory: every entry's path, type, size, mode, mtime, ctime and
/// inode. Returns it with the number of files and their bytes.
pub(super) fn fingerprint(dir: &Path) -> io::Result<(String, u64, u64)> {
    let mut h = Sha256::new();
    let (mut files, mut bytes) = (0, 0);
    for (path, m) in walk(dir)? {
        if m.is_file() {
            files += 1;
            bytes += m.len();
        }
        h.update(path.as_os_str().as_encoded_bytes());
        h.update(stat_key(&m).as_bytes());
        h.update([0]);
    }
    Ok((hex(&h.finalize()), files, bytes))
}

fn stat_key(m: &fs::Metadata) -> String {
    format!(
        "{:o} {} {}.{} {}.{} {}",
        m.mode(),
        m.len(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
        m.ino()
    )
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Copies the tree at `from` to `to` (which must not exist): directories and their modes,
/// symbolic links as they are, regular files reflinked or copied with their mode and mtime.
/// Returns (files, bytes, files reflinked).
pub(super) fn copy_tree(from: &Path, to: &Path) -> Result<(u64, u64, u64), RoomError> {
    let (mut files, mut bytes, mut reflinked) = (0, 0, 0);
    fs::create_dir(to).map_err(io_err(to))?;
    let entries = walk(from).map_err(io_err(from))?;
    for (rel, meta) in &entries {
        let src = from.join(rel);
        let dst = to.join(rel);
        let ft = meta.file_type();
        if ft.is_dir() {
            fs::create_dir(&dst).map_err(io_err(&dst))?;
        } else if ft.is_symlink() {
            let link = fs::read_link(&src).map_err(io_err(&src))?;
            std::os::unix::fs::symlink(&link, &dst).map_err(io_err(&dst))?;
        } else if ft.is_file() {
            // `None`: the blocks are shared (a reflink); `Some(bytes)`: copied.
            if reflink_copy::reflink_or_copy(&src, &dst)
                .map_err(io_err(&src))?
                .is_none()
            {
                reflinked += 1;
            }
            files += 1;
            bytes += meta.len();
            let f = fs::OpenOptions::new()
                .write(true)
                .open(&dst)
                .map_err(io_err(&dst))?;
            f.set_permissions(fs::Permissions::from_mode(meta.mode() & 0o7777))
                .map_err(io_err(&dst))?;
            if let Ok(modified) = meta.modified() {
                // Build tools judge freshness by mtime (cargo's fingerprints, Python's .pyc).
                f.set_modified(modified).map_err(io_err(&dst))?;
            }
        }
        // Sockets, FIFOs and devices are not part of an environment.
    }
    // Directory modes last: a read-only directory would refuse its own entries.
    for (rel, meta) in entries.iter().rev().filter(|(_, m)| m.is_dir()) {
        let dst = to.join(rel);
        fs::set_permissions(&dst, fs::Permissions::from_mode(meta.mode() & 0o7777))
            .map_err(io_err(&dst))?;
    }
    Ok((files, bytes, reflinked))
}

/// Whether the file system of `dir` (the room's) reflinks: a probe file is written, cloned
/// and removed. (A reflink from the repository also needs both on the same file system.)
pub fn reflinks_work(dir: &Path) -> bool {
    let src = dir.join("reflink-probe.src");
    let dst = dir.join("reflink-probe.dst");
    let ok = fs::write(&src, b"pawl").is_ok() && reflink_copy::reflink(&src, &dst).is_ok();
    let _ = fs::remove_file(&src);
    let _ = fs::remove_file(&dst);
    ok
}

/// The trees `patterns` (globs relative to `root`, `*` within one component) name under
/// `root`, as root-relative paths.
pub fn expand(root: &Path, patterns: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for pattern in patterns {
        let mut found = vec![String::new()];
        for part in pattern.split('/') {
            let mut next = Vec::new();
            let glob = part.contains(['*', '?', '[']);
            let matcher = glob
                .then(|| {
                    GlobBuilder::new(part)
                        .build()
                        .ok()
                        .map(|g| g.compile_matcher())
                })
                .flatten();
            for base in &found {
                let join = |name: &str| {
                    if base.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{base}/{name}")
                    }
                };
                match &matcher {
                    Some(m) => {
                        let Ok(entries) = fs::read_dir(root.join(base)) else {
                            continue;
                        };
                        let mut names: Vec<String> = entries
                            .flatten()
                            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                            .filter(|n| m.is_match(n))
                            .collect();
                        names.sort();
                        next.extend(names.iter().map(|n| join(n)));
                    }
                    None if !glob => next.push(join(part)),
                    None => {}
                }
            }
            found = next;
        }
        for f in found {
            if is_real_dir(&root.join(&f)) && !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

/// The content manifest of the package trees `patterns` name under `root` (see
/// `pawl_core::envmanifest`). `hashes` caches file digests by stat (path → (stat, sha256)):
/// an unchanged file is not read again; it is pruned to the files seen.
pub fn manifest_of(
    root: &Path,
    patterns: &[String],
    hashes: &mut BTreeMap<String, (String, String)>,
) -> Manifest {
    let mut manifest = Manifest::default();
    let mut seen: BTreeMap<String, (String, String)> = BTreeMap::new();
    for tree in expand(root, patterns) {
        let node = tree == "node_modules" || tree.ends_with("/node_modules");
        let mut packages: BTreeMap<String, (Sha256, u64)> = BTreeMap::new();
        let Ok(entries) = walk(&root.join(&tree)) else {
            continue;
        };
        for (rel, meta) in entries {
            let rel_s = rel.to_string_lossy().into_owned();
            if pawl_core::envmanifest::is_cache(rel_s.split('/')) {
                continue;
            }
            let mut parts = rel_s.split('/');
            let first = parts.next().unwrap_or("");
            let name = match parts.next() {
                Some(second) if node && first.starts_with('@') => format!("{first}/{second}"),
                _ if node && first.starts_with('@') && meta.is_dir() => continue,
                _ => first.to_owned(),
            };
            let (h, files) = packages.entry(name).or_insert_with(|| (Sha256::new(), 0));
            h.update(rel_s.as_bytes());
            h.update([0]);
            if meta.is_file() {
                *files += 1;
                let key = format!("{tree}/{rel_s}");
                let stat = stat_key(&meta);
                let digest = match hashes.get(&key) {
                    Some((s, d)) if *s == stat => d.clone(),
                    _ => file_digest(&root.join(&tree).join(&rel)),
                };
                h.update(format!("f {:o} {digest}", meta.mode() & 0o111).as_bytes());
                seen.insert(key, (stat, digest));
            } else if meta.file_type().is_symlink() {
                let link = fs::read_link(root.join(&tree).join(&rel)).unwrap_or_default();
                h.update(b"l ");
                h.update(link.as_os_str().as_encoded_bytes());
            } else {
                h.update(b"d");
            }
            h.update([0]);
        }
        manifest.trees.insert(
            tree,
            packages
                .into_iter()
                .map(|(name, (h, files))| {
                    (
                        name,
                        Package {
                            digest: hex(&h.finalize()),
                            files,
                        },
                    )
                })
                .collect(),
        );
    }
    *hashes = seen;
    manifest
}

fn file_digest(path: &Path) -> String {
    let mut h = Sha256::new();
    let Ok(mut f) = fs::File::open(path) else {
        return "unreadable".into();
    };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(buf.get(..n).unwrap_or_default()),
            Err(_) => return "unreadable".into(),
        }
    }
    hex(&h.finalize())
}

/// One place outside the repository resolved from `pawl_core::envmanifest::OUTSIDE`: the
/// manifest's tree name, the directory, and the one entry watched there (`None`: every entry
/// is a package).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub tree: String,
    pub dir: PathBuf,
    pub only: Option<String>,
}

/// The places of `pawl_core::envmanifest::OUTSIDE` on this machine, as the sealed variables
/// `sealed` locate them, outside the repository at `repo_root` (what lies inside it is the
/// room's). A watched file that does not exist is a place too: its creation is a change.
pub fn outside_places(sealed: &BTreeMap<String, String>, repo_root: &Path) -> Vec<Place> {
    use pawl_core::envmanifest::{Base, OUTSIDE, Shape, node_preloads};
    let home = sealed
        .get("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute());
    let shown = |p: &Path| match home.as_ref().and_then(|h| p.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Some(rest) => format!("~/{}", rest.display()),
        None => p.display().to_string(),
    };
    let outside = |p: &Path| p.is_absolute() && !p.starts_with(repo_root);
    let absolute = |v: &str| {
        let p = Path::new(v);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            repo_root.join(p)
        }
    };
    let mut out: Vec<Place> = Vec::new();
    let push = |out: &mut Vec<Place>, path: PathBuf, shape: Shape| {
        let place = match shape {
            Shape::Packages => Place {
                tree: shown(&path),
                dir: path,
                only: None,
            },
            Shape::Entry => {
                let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
                    return;
                };
                Place {
                    tree: shown(dir),
                    dir: dir.to_path_buf(),
                    only: Some(name.to_string_lossy().into_owned()),
                }
            }
        };
        if outside(&place.dir) && !out.contains(&place) {
            out.push(place);
        }
    };
    for w in OUTSIDE {
        let bases: Vec<PathBuf> = match w.base {
            Base::Home => home.iter().cloned().collect(),
            Base::Var(v) => sealed.get(v).map(PathBuf::from).into_iter().collect(),
            Base::Ancestors => repo_root
                .ancestors()
                .skip(1)
                .map(Path::to_path_buf)
                .collect(),
            Base::FileVar(v) => {
                if let Some(value) = sealed.get(v).filter(|x| !x.is_empty()) {
                    push(&mut out, absolute(value), Shape::Entry);
                }
                continue;
            }
            Base::PathVar(v) => {
                for entry in sealed.get(v).map(String::as_str).unwrap_or("").split(':') {
                    if !entry.is_empty() {
                        push(&mut out, absolute(entry), Shape::Packages);
                    }
                }
                continue;
            }
            Base::PathVenvs => sealed
                .get("PATH")
                .map(String::as_str)
                .unwrap_or("")
                .split(':')
                .filter_map(|e| Path::new(e).parent())
                .filter(|p| p.is_absolute() && p.join("pyvenv.cfg").is_file())
                .map(Path::to_path_buf)
                .collect(),
            Base::DataHome => sealed
                .get("XDG_DATA_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .or_else(|| home.as_ref().map(|h| h.join(".local/share")))
                .into_iter()
                .collect(),
            Base::NodePreloads => {
                let options = sealed.get("NODE_OPTIONS").map(String::as_str).unwrap_or("");
                for module in node_preloads(options) {
                    // A bare name resolves through node_modules: the room's.
                    if module.starts_with(['/', '.']) {
                        push(&mut out, absolute(&module), Shape::Entry);
                    }
                }
                continue;
            }
        };
        for base in bases.into_iter().filter(|b| outside(b)) {
            if w.path.contains('*') {
                for rel in expand(&base, &[w.path.to_owned()]) {
                    push(&mut out, base.join(rel), w.shape);
                }
            } else {
                push(&mut out, base.join(w.path), w.shape);
            }
        }
    }
    out
}

/// The manifest of `places`: each package's digest is over its entries' paths, types and stat
/// data (mode, size, mtime, ctime — which no process can set —, inode) and link targets, not
/// their contents: the same files on the same machine are compared, and a stat walk stays
/// cheap over large trees.
pub fn outside_manifest(places: &[Place]) -> Manifest {
    let mut manifest = Manifest::default();
    for place in places {
        let names: Vec<String> = match &place.only {
            Some(name) => vec![name.clone()],
            None => match fs::read_dir(&place.dir) {
                Ok(entries) => entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect(),
                Err(_) => continue,
            },
        };
        for name in names {
            let path = place.dir.join(&name);
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            if pawl_core::envmanifest::NOT_PACKAGES.contains(&name.as_str()) {
                continue;
            }
            let mut h = Sha256::new();
            let mut files = 0;
            // A directory counts by its path alone: its own stat changes with any entry made
            // in it, caches included.
            let mut entry = |rel: &Path, m: &fs::Metadata| {
                let parts = rel
                    .components()
                    .map(|c| c.as_os_str().to_str().unwrap_or(""));
                if pawl_core::envmanifest::is_cache(parts) {
                    return;
                }
                h.update(rel.as_os_str().as_encoded_bytes());
                h.update([0]);
                if m.file_type().is_symlink() {
                    let link = fs::read_link(place.dir.join(&name).join(rel)).unwrap_or_default();
                    h.update(b"l ");
                    h.update(link.as_os_str().as_encoded_bytes());
                } else if m.is_file() {
                    files += 1;
                    h.update(stat_key(m).as_bytes());
                } else {
                    h.update(b"d");
                }
                h.update([0]);
            };
            entry(Path::new(""), &meta);
            if meta.is_dir() {
                for (rel, m) in walk(&path).unwrap_or_default() {
                    entry(&rel, &m);
                }
            }
            manifest
                .trees
                .entry(place.tree.clone())
                .or_default()
                .insert(
                    name,
                    Package {
                        digest: hex(&h.finalize()),
                        files,
                    },
                );
        }
    }
    manifest
}

/// Every package that changed since the seal in the environment the checks read: the
/// repository's own environment directories (the room holds the seal's copy, so the checks do
/// not see these — but a test that changes outcome on an unchanged source is explained by
/// them), and the places outside the repository ([`outside_places`]), which the checks do see.
/// Empty without a room or a recorded seal. `ws.room`'s record is read, not locked.
pub fn env_change_list(
    ws: &crate::workspace::Workspace,
    seal: &pawl_core::seal::Seal,
) -> Vec<pawl_core::envmanifest::PackageChange> {
    use pawl_core::envmanifest::compare;
    let Some(dir) = &ws.room else {
        return Vec::new();
    };
    let Some(state) = fs::read_to_string(dir.join("env.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<EnvState>(&t).ok())
        .filter(|s| s.format == ENV_FORMAT)
    else {
        return Vec::new();
    };
    let mut changes = repo_changes(ws, dir, &state);
    if let Some(sealed) = &state.outside {
        let now = outside_manifest(&outside_places(&seal.env, ws.checks_path()));
        changes.extend(compare(sealed, &now));
    }
    changes
}

/// The packages of the repository's own environment directories that changed since the seal
/// (the first part of [`env_change_list`]): what a room taking the environment from the
/// repository now would hold that the seal's did not. Empty without a room or a recorded seal.
pub fn repo_env_change_list(
    ws: &crate::workspace::Workspace,
) -> Vec<pawl_core::envmanifest::PackageChange> {
    let Some(dir) = &ws.room else {
        return Vec::new();
    };
    fs::read_to_string(dir.join("env.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<EnvState>(&t).ok())
        .filter(|s| s.format == ENV_FORMAT)
        .map(|state| repo_changes(ws, dir, &state))
        .unwrap_or_default()
}

fn repo_changes(
    ws: &crate::workspace::Workspace,
    dir: &Path,
    state: &EnvState,
) -> Vec<pawl_core::envmanifest::PackageChange> {
    if state.package_patterns.is_empty() {
        return Vec::new();
    }
    // Content digests, as the seal's: cached by stat beside the room.
    let cache = dir.join("env-live.json");
    let mut hashes: BTreeMap<String, (String, String)> = fs::read_to_string(&cache)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    // The main repository's directories: a story's worktree has none of its own.
    let live = manifest_of(ws.checks_path(), &state.package_patterns, &mut hashes);
    let temp = dir.join("env-live.json.tmp");
    if fs::write(&temp, serde_json::to_string(&hashes).unwrap_or_default()).is_ok() {
        let _ = fs::rename(&temp, &cache);
    }
    pawl_core::envmanifest::compare(&state.manifest, &live)
}

/// What each program of `bins` (root-relative `bin` directories of `tree`, in `PATH` order)
/// resolves to: keyed by its name (the first directory that has it, as `PATH` finds it) and by
/// its root-relative path; the value names the file it resolves to (through links) and a
/// digest of its content (inside the tree; outside it, its size).
pub(super) fn programs_of(tree: &Path, bins: &[String]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let root = fs::canonicalize(tree).unwrap_or_else(|_| tree.to_path_buf());
    for bin in bins {
        let Ok(entries) = fs::read_dir(tree.join(bin)) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            let rel = format!("{bin}/{name}");
            let path = tree.join(&rel);
            let what = match fs::canonicalize(&path) {
                Err(_) => format!("{rel} (a broken link)"),
                Ok(target) => {
                    let inside = target.strip_prefix(&root).ok().map(Path::to_path_buf);
                    let shown = inside
                        .as_ref()
                        .map_or_else(|| target.display().to_string(), |p| p.display().to_string());
                    let content = match (&inside, fs::metadata(&target)) {
                        (Some(_), Ok(m)) if m.is_file() => fs::read(&target)
                            .map(|b| hex(&Sha256::digest(&b))[..16].to_owned())
                            .unwrap_or_default(),
                        (_, Ok(m)) => format!("{} bytes", m.len()),
                        (_, Err(_)) => String::new(),
                    };
                    if shown == rel {
                        format!("{rel} ({content})")
                    } else {
                        format!("{rel} → {shown} ({content})")
                    }
                }
            };
            out.entry(name).or_insert_with(|| what.clone());
            out.insert(rel, what);
        }
    }
    out
}

/// The gates of `seal` whose program resolves differently in the room's environment after a
/// rebuild than at the seal (issue 30 point 2: the manifest covers the `bin` directories):
/// finding lines. Empty without a room, a recorded seal or a rebuild. Hidden checks are not
/// named.
pub fn moved_programs(
    ws: &crate::workspace::Workspace,
    seal: &pawl_core::seal::Seal,
) -> Vec<String> {
    let Some(state) = ws
        .room
        .as_ref()
        .and_then(|dir| fs::read_to_string(dir.join("env.json")).ok())
        .and_then(|t| serde_json::from_str::<EnvState>(&t).ok())
        .filter(|s| s.format == ENV_FORMAT)
    else {
        return Vec::new();
    };
    let Some(now) = &state.room_programs else {
        return Vec::new();
    };
    let gates: Vec<(&str, &str)> = seal
        .checks
        .iter()
        .filter(|c| c.role != pawl_core::seal::CheckRole::Hidden)
        .map(|c| (c.name.as_str(), c.command.as_str()))
        .collect();
    pawl_core::envmanifest::moved_programs(&gates, &state.programs, now)
}

/// [`env_change_list`] as the lines a verdict shows: "the environment changed since the run
/// started: .venv/lib/python3.11/site-packages/evil.pth added".
pub fn env_changes(ws: &crate::workspace::Workspace, seal: &pawl_core::seal::Seal) -> Vec<String> {
    pawl_core::envmanifest::change_lines(&env_change_list(ws, seal))
}

/// Every path in the room's copies of `dirs` (under `tree`) that leads into the live
/// repository at `repo_root`: `.pth` lines, editable finders (`__editable__*`),
/// `direct_url.json` of an editable install, `#!` lines of scripts, `pyvenv.cfg`'s `home`,
/// symbolic links. With the check namespace they resolve to the room; without it, the checks
/// would load that code from the live tree.
pub fn leaks(tree: &Path, dirs: &[String], repo_root: &Path) -> Vec<Leak> {
    let root = repo_root.to_string_lossy().into_owned();
    let mut out = Vec::new();
    for dir in dirs {
        let Ok(entries) = walk(&tree.join(dir)) else {
            continue;
        };
        for (rel, meta) in entries {
            let file = format!("{dir}/{}", rel.display());
            let path = tree.join(&file);
            let name = rel
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut push = |target: String| {
                let l = Leak {
                    file: file.clone(),
                    target,
                };
                if !out.contains(&l) {
                    out.push(l);
                }
            };
            if meta.file_type().is_symlink() {
                if let Ok(link) = fs::read_link(&path)
                    && link.is_absolute()
                    && link.starts_with(repo_root)
                {
                    push(link.display().to_string());
                }
                continue;
            }
            if !meta.is_file() || meta.len() > MAX_SCAN {
                continue;
            }
            let in_bin = rel
                .parent()
                .is_some_and(|p| p.file_name().is_some_and(|n| n == "bin"));
            let scanned = name.ends_with(".pth")
                || name.starts_with("__editable__")
                || name == "direct_url.json"
                || name == "pyvenv.cfg"
                || in_bin;
            if !scanned {
                continue;
            }
            let Ok(bytes) = fs::read(&path) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            if name == "direct_url.json" {
                // Only an editable install maps to the source; a plain one is a copy.
                let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
                    continue;
                };
                let editable = v
                    .pointer("/dir_info/editable")
                    .and_then(serde_json::Value::as_bool)
                    .unwrap_or(false);
                let target = v
                    .get("url")
                    .and_then(serde_json::Value::as_str)
                    .and_then(|u| u.strip_prefix("file://"))
                    .map(str::to_owned);
                if let Some(t) = target.filter(|t| editable && Path::new(t).starts_with(repo_root))
                {
                    push(t);
                }
                continue;
            }
            // Scripts: only their first lines (a `#!`, or pip's `exec` trampoline).
            let scope: String = if name == "pyvenv.cfg" {
                // `home` names the interpreter; `command` only records how it was made.
                text.lines()
                    .filter(|l| l.trim_start().starts_with("home"))
                    .collect::<Vec<_>>()
                    .join("\n")
            } else if in_bin && !name.ends_with(".pth") {
                if !text.starts_with("#!") {
                    continue;
                }
                text.lines().take(3).collect::<Vec<_>>().join("\n")
            } else {
                text.into_owned()
            };
            for target in absolute_paths_under(&scope, &root) {
                push(target);
            }
        }
    }
    out
}

/// The absolute paths in `text` that are `root` or below it: each occurrence of `root` that
/// starts a path (not the tail of a longer one) and ends at it or at a `/`, read up to the
/// next quote, space or line end.
fn absolute_paths_under(text: &str, root: &str) -> Vec<String> {
    let mut out = Vec::new();
    if root.is_empty() || root == "/" {
        return out;
    }
    let mut from = 0;
    while let Some(at) = text.get(from..).and_then(|t| t.find(root)) {
        let start = from + at;
        let end = start + root.len();
        from = end;
        let before_ok = text
            .get(..start)
            .and_then(|b| b.chars().last())
            .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '/' | '_' | '-' | '.')));
        let after = text.get(end..).unwrap_or("");
        let after_ok = after.is_empty() || after.starts_with(['/', '\'', '"', '\n', ' ', '\r']);
        if !(before_ok && after_ok) {
            continue;
        }
        let tail: String = after
            .chars()
            .take_while(|c| !matches!(c, '\'' | '"' | ' ' | '\n' | '\r' | '\t' | ',' | ')'))
            .collect();
        let path = format!("{root}{tail}");
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// The variables the checks get for the room's environment, to set over the seal's: `PATH`
/// with the room's bin directories first (as the checks see them: under `view_root`, the
/// repository's path with the check namespace, the room's files' directory without), and
/// without the `bin` of a virtualenv the seal's environment had activated elsewhere;
/// `VIRTUAL_ENV` naming the room's virtualenv. Empty when the room took no environment.
pub fn check_vars(
    state: &EnvState,
    view_root: &Path,
    sealed: &BTreeMap<String, String>,
) -> Vec<(OsString, OsString)> {
    if state.bins.is_empty() && state.venv.is_none() {
        return Vec::new();
    }
    let mut path: Vec<String> = state
        .bins
        .iter()
        .map(|b| view_root.join(b).display().to_string())
        .collect();
    let outside_venv_bin = sealed
        .get("VIRTUAL_ENV")
        .filter(|_| state.venv.is_some())
        .map(|v| Path::new(v).join("bin"));
    for entry in sealed
        .get("PATH")
        .map(String::as_str)
        .unwrap_or("")
        .split(':')
    {
        if entry.is_empty()
            || path.iter().any(|p| p == entry)
            || outside_venv_bin
                .as_ref()
                .is_some_and(|b| Path::new(entry) == b)
        {
            continue;
        }
        path.push(entry.to_owned());
    }
    let mut vars = vec![(OsString::from("PATH"), OsString::from(path.join(":")))];
    if let Some(venv) = &state.venv {
        vars.push(("VIRTUAL_ENV".into(), view_root.join(venv).into_os_string()));
    }
    vars
}

/// Sets `vars` in a runner's environment, replacing what it had for those names.
pub fn apply(cfg: &mut pawl_verify::RunnerConfig, vars: Vec<(OsString, OsString)>) {
    for (k, v) in vars {
        cfg.env.retain(|(name, _)| *name != k);
        cfg.env.push((k, v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_are_found_only_under_the_root() {
        let root = "/work/repo";
        let text = "import __editable___pkg_finder; MAPPING = {'pkg': '/work/repo/src/pkg'}\n/work/repo2/x\n/work/repo\n#!/work/repo/.venv/bin/python\n";
        assert_eq!(
            absolute_paths_under(text, root),
            [
                "/work/repo/src/pkg",
                "/work/repo",
                "/work/repo/.venv/bin/python"
            ]
        );
        assert!(absolute_paths_under("/x/work/repo/a", root).is_empty());
    }

    /// The launcher keeps the layer of the check pawl-verify runs first and alone: the names
    /// must agree.
    #[test]
    fn the_kept_layer_is_pawl_verifys_build() {
        assert_eq!(
            pawl_process::sandbox::check::KEPT_LAYERS,
            [pawl_verify::gate::BUILD]
        );
    }

    #[test]
    fn the_places_outside_follow_the_sealed_variables_and_skip_the_repository() {
        let sealed = BTreeMap::from([
            ("HOME".to_owned(), "/h".to_owned()),
            ("VIRTUAL_ENV".to_owned(), "/w/repo/.venv".to_owned()),
            ("PYTHONSTARTUP".to_owned(), "/h/.pythonrc".to_owned()),
            (
                "NODE_OPTIONS".to_owned(),
                "-r ./inside.js --require=/opt/hook.js --import tsx".to_owned(),
            ),
            ("PYTHONPATH".to_owned(), "/w/repo/src:/opt/lib".to_owned()),
        ]);
        let places = outside_places(&sealed, Path::new("/w/repo"));
        let shown: Vec<String> = places
            .iter()
            .map(|p| match &p.only {
                Some(name) => format!("{}/{name}", p.tree.trim_end_matches('/')),
                None => format!("{}/*", p.tree),
            })
            .collect();
        for want in [
            "~/.npmrc",
            "~/.cargo/config.toml",
            "~/.local/bin/*",
            "~/.pythonrc",
            "/opt/hook.js",
            "/opt/lib/*",
            "/w/.cargo/config.toml",
            "/conftest.py",
        ] {
            assert!(
                shown.iter().any(|s| s == want),
                "{want} is not watched: {shown:?}"
            );
        }
        // The repository's own (the room's), and bare module names, are not.
        assert!(!shown.iter().any(|s| s.starts_with("/w/repo")), "{shown:?}");
        assert!(!shown.iter().any(|s| s.ends_with("tsx")), "{shown:?}");
    }

    #[test]
    fn the_checks_path_puts_the_room_first_and_drops_an_outside_venv() {
        let state = EnvState {
            bins: vec![".venv/bin".into()],
            venv: Some(".venv".into()),
            ..EnvState::default()
        };
        let sealed = BTreeMap::from([
            (
                "PATH".to_owned(),
                "/home/u/other-venv/bin:/usr/bin".to_owned(),
            ),
            ("VIRTUAL_ENV".to_owned(), "/home/u/other-venv".to_owned()),
        ]);
        let vars = check_vars(&state, Path::new("/work/repo"), &sealed);
        assert_eq!(
            vars,
            [
                ("PATH".into(), "/work/repo/.venv/bin:/usr/bin".into()),
                ("VIRTUAL_ENV".into(), "/work/repo/.venv".into()),
            ]
        );
        assert!(check_vars(&EnvState::default(), Path::new("/r"), &sealed).is_empty());
    }
}
