//! The clean room: a pawl-owned directory outside the repository whose files are exactly the tree
//! being verified, where the checks run. An agent can then neither swap files in its working
//! directory during the checks, nor leave a process writing into the tree, nor plant untracked
//! files that change the result: the checks never look at the working directory.
//!
//! Layout of a room directory (everything pawl writes is in it):
//!
//! | path | what |
//! |---|---|
//! | `ROOM` | the marker: this directory is a room, pawl may delete anything in it |
//! | `lock` | the pid of the process using the room (sync and checks); one at a time |
//! | `state.json` | the tree the room holds and a digest of its index; absent during a sync |
//! | `index` | git's index of `tree/` (stat data, so an update rewrites only what changed) |
//! | `git/` | the private git directory of pawl's commands (pawl-git [`Checkout`]), new each sync |
//! | `tree/` | the files: the checks' root, with a `.git` of its own for the checks' git commands |
//!
//! | `env.json` | the environment taken at the seal ([`env`]) |
//! | `env-seal/` | the seal's environment, kept once `[room] setup` rebuilt it ([`setup`]) |
//! | `downloads/` | the package managers' downloads during a setup ([`setup::DOWNLOADS`]) |
//! | `stores/` | the run's copies of the package stores outside the repository its checks read (cargo's registry and git checkouts, Go's module cache: [`stores`]) |
//! | `go-build/` | the checks' Go build cache without mount namespaces ([`gocache`]; with them the checks read the one in pawl's user state, shared by the rooms, copy-on-write) |
//! | `jest-cache/`, `jest-cache.tree` | the checks' jest transform cache, made by pawl's own pass for the tree the room holds, and that tree ([`jestcache`]) |
//! | `jest-caches/` | the jest caches of trees the room held before, set aside by a sync until it holds them again ([`jestcache::leave`]) |
//! | `scratch/` | the checks' overlay layers (pawl-process's `sandbox::check::ROOM_SCRATCH`), emptied at every sync |
//!
//! A sync ([`Room::sync`]) starts a verification from the seal's snapshot: it leaves `tree/`'s
//! tracked files byte-exact the tree's (modes and symlinks too), deletes files of the previous
//! tree that the new one lacks, rewrites tracked files a check modified, and removes every other
//! file — untracked or ignored (`.pytest_cache`, `__pycache__`, files a test wrote) — except the
//! environment taken at the seal (`.venv`, `node_modules`, the `target` seed: [`env`]), which
//! it checks against the fingerprint it recorded and takes again if anything changed it. It
//! empties the checks' layers: under the check sandbox the checks see the room through an
//! overlay and never write `tree/` at all (their writes land in `scratch/`); without it (no
//! mount namespace) they write `tree/`, and the sync removes what they wrote — so nothing a
//! test process wrote in one verification is seen by the next. Build outputs carry over only
//! as the seal took them (the seed) and from the `build` check (pawl's own build): to the later
//! checks of its verification, and into the next one — what it wrote below the platforms'
//! build directories (`target`) is moved into `tree/` at the next sync. A test process never
//! writes there. An unchanged file is not touched.
//!
//! Never trusted: a room whose state is missing (a sync was interrupted) or unreadable, whose
//! index is not the one the last sync wrote, or whose update fails for any reason is wiped —
//! warm outputs included — and checked out again from scratch ([`Rebuild`]). Tracked files a
//! check or anyone else changed after a sync are found by git's stat check (size, mtime, ctime —
//! which no process can set —, inode, mode; contents when stat cannot tell) and rewritten in
//! place ([`SyncStats::restored`]): wiping the room for them would cost the warm outputs without
//! making the tracked files any more exact.
//!
//! Not here: when to use a room (the caller sets `Workspace::room`), and git itself (pawl-git).
//! Known limits: symlinks are written as the tree records them, so one pointing outside the room
//! (an absolute path into the repository) still leads there — into the room itself where the
//! check sandbox mounts the room at the repository's path; submodules are empty directories;
//! the checks' `.git` has no commit, refs, tags or objects (nothing in it leads back to the repository).

pub mod env;
pub mod gocache;
pub mod jestcache;
pub mod preflight;
pub mod setup;
pub mod stores;
pub mod workdirs;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pawl_git::{Checkout, Repo, TreeHash};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The marker's content.
const MARKER: &str = "pawl room: everything in this directory belongs to pawl and may be deleted\n";
/// Bumped when the layout or the state's meaning changes: an older room is then rebuilt.
const FORMAT: u32 = 1;

/// Why a room could not be opened or synced.
#[derive(Debug, thiserror::Error)]
pub enum RoomError {
    #[error(
        "{} is not a pawl room (it has files and no ROOM marker); remove it or choose another directory",
        dir.display()
    )]
    NotARoom { dir: PathBuf },
    #[error(
        "the room {} overlaps the repository {}; it must be outside the working tree",
        dir.display(),
        root.display()
    )]
    Overlaps { dir: PathBuf, root: PathBuf },
    #[error(
        "the room {} is in use by process {pid}; remove {}/lock if that process is gone",
        dir.display(),
        dir.display()
    )]
    Busy { dir: PathBuf, pid: u32 },
    #[error("room {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "the room's copy of `{dir}` changed since the seal and the repository's `{dir}` has changed too: the environment the run was sealed with is gone; start the run again"
    )]
    EnvironmentLost { dir: String },
    #[error("room: git: {0}")]
    Git(#[from] pawl_git::Error),
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> RoomError + '_ {
    move |source| RoomError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Why a sync started from scratch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Rebuild {
    /// No state: a new room, or a sync that did not finish.
    NoState,
    /// The state file could not be read or is of another format.
    BadState(String),
    /// The index is not the one the last sync wrote, or the files' directory is not one.
    Tampered(String),
    /// Updating in place failed (e.g. the tree the room held is gone from the repository).
    UpdateFailed(String),
}

/// What a sync did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncStats {
    /// Set when the room was wiped and checked out from scratch.
    pub rebuilt: Option<Rebuild>,
    /// Tracked paths added, changed or deleted between the tree the room held and the new one
    /// (every file when rebuilt).
    pub changed: usize,
    /// Tracked files that differed from the tree the room held (changed after the last sync)
    /// and were rewritten.
    pub restored: usize,
    /// Untracked, not ignored paths removed (a directory counts once).
    pub removed: usize,
    /// Tracked files in the room now.
    pub files: usize,
    /// Environment directories (and build seeds) found changed since they were taken, each
    /// taken again from the repository (or, for a seed, dropped): what a check without the
    /// overlay, or anyone else, wrote into them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub env_restored: Vec<String>,
    /// The checks of the previous verification could not be given the overlay and wrote into
    /// the room itself (the launcher's reason); the sync removed what they wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlay_failed: Option<String>,
    pub duration: Duration,
}

impl SyncStats {
    /// True when the room already held the tree, untouched: nothing was written or removed.
    pub fn is_noop(&self) -> bool {
        self.rebuilt.is_none()
            && self.changed == 0
            && self.restored == 0
            && self.removed == 0
            && self.env_restored.is_empty()
    }
}

/// What `state.json` says.
#[derive(Debug, Serialize, Deserialize)]
struct State {
    format: u32,
    tree: String,
    /// SHA-256 of the index file as the sync left it.
    index_sha256: String,
}

/// An open room, held (locked) until dropped.
#[derive(Debug)]
pub struct Room {
    dir: PathBuf,
    tree_dir: PathBuf,
    /// The repository whose environment directories the room's were taken from, when it is
    /// not the one whose trees it holds ([`Room::environment_from`]).
    env_root: Option<PathBuf>,
    _lock: Lock,
}

impl Room {
    /// Opens (creating it if needed) the room at `dir` for `repo`, and takes its lock. `dir` must
    /// be outside the repository's working tree (inside its git directory is fine) and be
    /// missing, empty, or a room.
    pub fn open(repo: &Repo, dir: &Path) -> Result<Room, RoomError> {
        let dir = absolute(dir).map_err(io_err(dir))?;
        // Lexically first (nothing is created inside the repository), then as resolved.
        check_outside(repo, &dir)?;
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let dir = fs::canonicalize(&dir).map_err(io_err(&dir))?;
        check_outside(repo, &dir)?;
        let marker = dir.join("ROOM");
        if fs::read_to_string(&marker).ok().as_deref() != Some(MARKER) {
            let empty = fs::read_dir(&dir).map_err(io_err(&dir))?.next().is_none();
            if !empty {
                return Err(RoomError::NotARoom { dir });
            }
            fs::write(&marker, MARKER).map_err(io_err(&marker))?;
        }
        // The checks' Go build cache without mount namespaces ([`gocache::dir`]): made with
        // the room, before any check names it.
        let cache = gocache::dir(&dir);
        fs::create_dir_all(&cache).map_err(io_err(&cache))?;
        let lock = Lock::take(&dir)?;
        Ok(Room {
            tree_dir: dir.join("tree"),
            dir,
            env_root: None,
            _lock: lock,
        })
    }

    /// Takes the environment from, and checks its copies against, the repository at `root`
    /// rather than the checkout whose trees the room holds: a story's worktree and the merge
    /// queue's scratch checkout have no ignored directories; the main repository's are the
    /// project's.
    pub fn environment_from(&mut self, root: Option<&Path>) {
        self.env_root = root.map(Path::to_path_buf);
    }

    /// Where the checks run: the tree's files.
    pub fn root(&self) -> &Path {
        &self.tree_dir
    }

    /// The room directory itself.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes the room hold exactly `tree` and the environment taken at the seal, nothing
    /// else, with the checks' layers empty: the seal's snapshot a verification starts from
    /// (see the module docs). Call it before every run of checks that could decide a verdict
    /// (a verification, each repeat, a collection pass): on the same tree it only empties what
    /// the last checks wrote. `tree` must be in `repo`'s object database, as
    /// [`Repo::tree_hash`] leaves it.
    pub fn sync(&mut self, repo: &Repo, tree: &TreeHash) -> Result<SyncStats, RoomError> {
        let started = Instant::now();
        // The room's own lock is held: an `index.lock` left now is a killed sync's (kill -9
        // during a checkout), never a live one; git would refuse every later sync.
        remove_any(&self.dir.join("index.lock"))?;
        // The jest cache the checks are shown is only ever the held tree's: another tree's
        // leaves before anything moves (`jestcache::leave`).
        jestcache::leave(&self.dir, tree.as_str());
        let overlay_failed = self.empty_scratch()?;
        let held = self.take_state();
        let checkout = repo
            .checkout_into(&self.tree_dir, self.dir.join("git"), self.index())?
            .keeping_only(self.kept_dirs());
        let mut stats = match held {
            Ok(held) => match update(&checkout, &held, tree) {
                Ok(stats) => stats,
                Err(err) => {
                    self.rebuild(&checkout, tree, Rebuild::UpdateFailed(err.to_string()))?
                }
            },
            Err(reason) => self.rebuild(&checkout, tree, reason)?,
        };
        let env_root = self
            .env_root
            .clone()
            .unwrap_or_else(|| repo.root().to_owned());
        stats.env_restored = self.check_environment(&env_root)?;
        stats.overlay_failed = overlay_failed;
        checkout.expose_to_checks()?;
        stats.files = checkout.entries()?;
        self.write_state(tree)?;
        // The tree's own jest cache back, when it was set aside (`jestcache::follow`).
        jestcache::follow(&self.dir, tree.as_str());
        stats.duration = started.elapsed();
        Ok(stats)
    }

    /// Empties the checks' layers, after keeping what pawl's own build wrote in its build
    /// directories ([`Room::keep_build_outputs`]); returns what the launcher said when it could
    /// not mount the overlay.
    fn empty_scratch(&mut self) -> Result<Option<String>, RoomError> {
        let scratch = self.dir.join(pawl_process::sandbox::check::ROOM_SCRATCH);
        let failed = fs::read_to_string(scratch.join(pawl_process::sandbox::check::OVERLAY_FAILED))
            .ok()
            .map(|t| t.trim().to_owned());
        if failed.is_none() {
            self.keep_build_outputs(&scratch)?;
        }
        remove_any(&scratch)?;
        Ok(failed)
    }

    fn index(&self) -> PathBuf {
        self.dir.join("index")
    }

    fn state_path(&self) -> PathBuf {
        self.dir.join("state.json")
    }

    /// The tree the room holds, if it can be trusted; the state file is removed either way, so
    /// a sync that does not finish leaves a room that will be rebuilt.
    fn take_state(&self) -> Result<TreeHash, Rebuild> {
        let path = self.state_path();
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Err(Rebuild::NoState),
            Err(err) => return Err(Rebuild::BadState(err.to_string())),
        };
        if let Err(err) = fs::remove_file(&path) {
            return Err(Rebuild::BadState(format!("cannot remove the state: {err}")));
        }
        let state: State =
            serde_json::from_str(&text).map_err(|e| Rebuild::BadState(e.to_string()))?;
        if state.format != FORMAT {
            return Err(Rebuild::BadState(format!("format {}", state.format)));
        }
        let tree = TreeHash::new(state.tree.clone())
            .ok_or_else(|| Rebuild::BadState(format!("not a tree id: {:?}", state.tree)))?;
        let index = fs::read(self.index()).map_err(|e| Rebuild::Tampered(format!("index: {e}")))?;
        if sha256_hex(&index) != state.index_sha256 {
            return Err(Rebuild::Tampered(
                "the index changed since the last sync".into(),
            ));
        }
        match fs::symlink_metadata(&self.tree_dir) {
            Ok(meta) if meta.is_dir() => Ok(tree),
            _ => Err(Rebuild::Tampered("tree/ is not a directory".into())),
        }
    }

    /// Wipes the files and the index, then checks `tree` out from nothing.
    fn rebuild(
        &self,
        checkout: &Checkout,
        tree: &TreeHash,
        reason: Rebuild,
    ) -> Result<SyncStats, RoomError> {
        // The environment taken at the seal is pawl's, not the tree's: it survives.
        let kept = self.set_environment_aside()?;
        remove_any(&self.tree_dir)?;
        remove_any(&self.index())?;
        fs::create_dir(&self.tree_dir).map_err(io_err(&self.tree_dir))?;
        checkout.reset_to(tree)?;
        self.put_environment_back(&kept)?;
        Ok(SyncStats {
            rebuilt: Some(reason),
            changed: checkout.entries()?,
            restored: 0,
            removed: 0,
            files: 0,
            env_restored: Vec::new(),
            overlay_failed: None,
            duration: Duration::ZERO,
        })
    }

    /// The tree the last sync left in the room, from its state (`None` during a sync).
    pub(crate) fn held_tree(&self) -> Option<TreeHash> {
        let text = fs::read_to_string(self.state_path()).ok()?;
        let state: State = serde_json::from_str(&text).ok()?;
        TreeHash::new(state.tree)
    }

    fn write_state(&self, tree: &TreeHash) -> Result<(), RoomError> {
        let index = self.index();
        let bytes = fs::read(&index).map_err(io_err(&index))?;
        let state = State {
            format: FORMAT,
            tree: tree.to_string(),
            index_sha256: sha256_hex(&bytes),
        };
        let path = self.state_path();
        let temp = self.dir.join("state.json.tmp");
        let text = serde_json::to_string(&state).unwrap_or_default();
        fs::write(&temp, text).map_err(io_err(&temp))?;
        fs::rename(&temp, &path).map_err(io_err(&path))
    }
}

/// Brings a trusted room from `held` to `tree` in place.
fn update(checkout: &Checkout, held: &TreeHash, tree: &TreeHash) -> Result<SyncStats, RoomError> {
    // Side by side: what a check changed in the tracked files, what the trees change, and the
    // leftovers a check made (ignored or not: all but the environment taken at the seal).
    let survey = checkout.survey_and_clean(held, tree)?;
    let removed = survey.removed;
    // Nothing modified: only the paths that differ between the trees are written (same tree:
    // nothing); should anything be in the way, the reset decides path by path.
    let updated = survey.modified.is_empty()
        && (survey.changed.is_empty() || checkout.update_to(tree).is_ok());
    if !updated {
        checkout.reset_to(tree)?;
    }
    Ok(SyncStats {
        rebuilt: None,
        changed: survey.changed.len(),
        restored: survey.modified.len(),
        removed,
        files: 0,
        env_restored: Vec::new(),
        overlay_failed: None,
        duration: Duration::ZERO,
    })
}

/// A room must not overlap the working tree (inside the git directory is fine): syncing writes
/// and deletes everything in it.
fn check_outside(repo: &Repo, dir: &Path) -> Result<(), RoomError> {
    let root = repo.root();
    let git_dir = fs::canonicalize(repo.git_dir()).unwrap_or_else(|_| repo.git_dir().to_owned());
    let inside = dir.starts_with(root) && !dir.starts_with(&git_dir);
    if inside || root.starts_with(dir) {
        return Err(RoomError::Overlaps {
            dir: dir.to_owned(),
            root: root.to_owned(),
        });
    }
    Ok(())
}

fn remove_any(path: &Path) -> Result<(), RoomError> {
    let result = match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path).or_else(|err| {
            // A check leaves what it made read-only in its layer (a test of permission errors,
            // or a step's cheat); pawl's to remove all the same, as a user as well as root
            // (seen on main `866cd9a7` as a user: "verification failed to run: room …/scratch:
            // Permission denied").
            if err.kind() == io::ErrorKind::PermissionDenied {
                jestcache::make_writable(path);
                fs::remove_dir_all(path)
            } else {
                Err(err)
            }
        }),
        Ok(_) => fs::remove_file(path),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(err),
    };
    result.map_err(io_err(path))
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn absolute(path: &Path) -> io::Result<PathBuf> {
    if path.is_absolute() {
        Ok(path.to_owned())
    } else {
        Ok(std::env::current_dir()?.join(path))
    }
}

/// The room's lock: `lock` holds the owner's pid, created exclusively; a lock whose process is
/// gone is taken over. Removed on drop.
#[derive(Debug)]
struct Lock {
    path: PathBuf,
}

impl Lock {
    fn take(dir: &Path) -> Result<Lock, RoomError> {
        let path = dir.join("lock");
        // The pid is written to a file of our own first and linked into place, so a lock is
        // never seen half-written; the link fails if a lock exists.
        let mine = dir.join(format!("lock.{}", std::process::id()));
        fs::write(&mine, format!("{}\n", std::process::id())).map_err(io_err(&mine))?;
        let result = Lock::link(dir, &mine, &path);
        let _ = fs::remove_file(&mine);
        result
    }

    fn link(dir: &Path, mine: &Path, path: &Path) -> Result<Lock, RoomError> {
        for _ in 0..2 {
            match fs::hard_link(mine, path) {
                Ok(()) => {
                    return Ok(Lock {
                        path: path.to_owned(),
                    });
                }
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                    let owner = fs::read_to_string(path)
                        .ok()
                        .and_then(|s| s.trim().parse::<u32>().ok());
                    match owner {
                        Some(pid) if Path::new(&format!("/proc/{pid}")).exists() => {
                            return Err(RoomError::Busy {
                                dir: dir.to_owned(),
                                pid,
                            });
                        }
                        // Its process is gone (or the file is not a lock): take it over.
                        _ => fs::remove_file(path).map_err(io_err(path))?,
                    }
                }
                Err(err) => return Err(io_err(path)(err)),
            }
        }
        Err(RoomError::Busy {
            dir: dir.to_owned(),
            pid: 0,
        })
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}
