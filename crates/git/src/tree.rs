//! The working-tree hash: the tree object git would record if every tracked and untracked,
//! non-ignored file were committed right now.
//!
//! It is computed in a temporary index (`GIT_INDEX_FILE`) so the user's index, and whatever they
//! staged, is never touched. The temporary index starts as a copy of the real one: its cached
//! stat data would let `git add -A` skip re-reading unchanged tracked files — but git compares
//! only the seconds of mtime and ctime, which an agent can defeat (a same-size rewrite with its
//! mtime set back, in the same second). The copy is dated one second after the epoch, so git
//! finds every entry racily clean and compares contents ([`copy_racy`]); pawl's own stamp
//! (nanosecond ctimes) spares the whole hash when nothing changed, and when something did, git
//! starts from pawl's own index of the last stamped tree instead, without the entries whose
//! file moved ([`Repo::tree_hash_since`]): it reads only what changed.
//!
//! After `git add -A`, the temporary index often still carries a valid cache tree for its root
//! (the `TREE` extension): git invalidates the cache-tree node of every path an index change
//! touches, and `git write-tree` answers with a valid root's id without recomputing anything. We
//! read that id directly and spare the `write-tree` process; when the root is invalid, the index
//! has an unusual shape, or the object format is not known to be SHA-1, `git write-tree` runs
//! as before. Which files changed is always decided by git (`git add -A` with its stat and racy
//! checks), never by pawl.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::error::Error;
use crate::oid::TreeHash;
use crate::repo::{Repo, first_line};

/// Bytes in a SHA-1 object id.
const SHA1_LEN: usize = 20;

impl Repo {
    /// The hash of exactly the bytes a check would see: tracked and untracked files that are not
    /// ignored, with their current content and executable bit. Works before the first commit.
    /// Two calls on an unchanged working tree return the same hash.
    ///
    /// In a process that keeps tree stamps ([`remember_tree_stamps`]: a driver that hashes the
    /// same tree at every step), an unchanged tree is answered from the stamp of its last hash,
    /// kept in this process's memory (where the agent cannot write), with no git process.
    pub fn tree_hash(&self) -> Result<TreeHash, Error> {
        if !REMEMBER.load(Ordering::Relaxed) {
            return self.tree_hash_by_git();
        }
        let key = (
            self.root().to_path_buf(),
            self.git_dir().to_path_buf(),
            self.index_path().to_path_buf(),
        );
        let kept = stamps().get(&key).cloned();
        if let Some(kept) = &kept
            && let Some(tree) = self.tree_hash_unchanged(&kept.stamp)
        {
            return Ok(tree);
        }
        let (tree, stamp) = self.tree_hash_since(kept.as_deref())?;
        match stamp {
            Some(stamp) => stamps().insert(key, std::sync::Arc::new(stamp)),
            None => stamps().remove(&key),
        };
        Ok(tree)
    }

    /// [`Repo::tree_hash`] computed by git.
    pub(crate) fn tree_hash_by_git(&self) -> Result<TreeHash, Error> {
        let temp = TempIndex::new(self)?;
        temp.add_all(self)?;
        if self.sha1_ids()
            && let Ok(bytes) = fs::read(temp.path())
            && let Some(tree) = crate::index::cached_root_tree(&bytes, SHA1_LEN)
        {
            return Ok(tree);
        }
        temp.write_tree(self)
    }
}

/// Whether [`Repo::tree_hash`] keeps stamps (see [`remember_tree_stamps`]).
static REMEMBER: AtomicBool = AtomicBool::new(false);

/// A working tree (root, git dir, index) and the stamp of its last hash.
type Kept = HashMap<(PathBuf, PathBuf, PathBuf), std::sync::Arc<crate::TreeStamp>>;

fn stamps() -> std::sync::MutexGuard<'static, Kept> {
    static STAMPS: OnceLock<Mutex<Kept>> = OnceLock::new();
    STAMPS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// From now on, [`Repo::tree_hash`] in this process keeps the stamp of each tree it hashes (see
/// `stamp.rs`) in memory, and answers a tree none of whose files, directories and ignore rules
/// moved from it: the headless driver's loop, which hashes an unchanged tree several times per
/// step. The first hash of a tree costs two git processes more (the stamp's); a hook, which
/// hashes once and exits, does not turn this on.
pub fn remember_tree_stamps() {
    REMEMBER.store(true, Ordering::Relaxed);
}

/// A private index in a temporary directory inside the git dir (same file system as the real
/// index, and removed on drop).
pub(crate) struct TempIndex {
    dir: tempfile::TempDir,
}

impl TempIndex {
    /// A copy of the repository's real index, or no index at all if there is none yet (git treats
    /// a missing index file as empty, while an empty *file* would be corrupt).
    pub(crate) fn new(repo: &Repo) -> Result<Self, Error> {
        let temp_error = |source| Error::TempIndex {
            dir: repo.git_dir().to_owned(),
            source,
        };
        let dir = tempfile::Builder::new()
            .prefix("pawl-index-")
            .tempdir_in(repo.git_dir())
            .map_err(temp_error)?;
        let index = TempIndex { dir };
        copy_racy(repo.index_path(), &index.path()).map_err(temp_error)?;
        index.unhide(repo)?;
        Ok(index)
    }

    /// Clears the bits that make git skip reading a file (`--assume-unchanged`,
    /// `--skip-worktree`) in this copy, so what pawl hashes is the file on disk, not what the
    /// index claims it is: an agent can set those bits to hide an edit. Skip-worktree entries of
    /// a sparse checkout (`info/sparse-checkout` exists) whose file is absent keep their bit:
    /// they are outside the checkout, not deleted. The common case (no such bit) costs no
    /// process: the index is read here.
    fn unhide(&self, repo: &Repo) -> Result<(), Error> {
        let hash_len = if repo.sha1_ids() { SHA1_LEN } else { 32 };
        let bytes = fs::read(self.path()).unwrap_or_default();
        if bytes.is_empty() || crate::index::has_hidden_entries(&bytes, hash_len) == Some(false) {
            return Ok(());
        }
        let (private, objects) = self.private_dir(repo)?;
        let mut ls = repo.private_git(&private, &objects);
        ls.env("GIT_INDEX_FILE", self.path()).args([
            "ls-files",
            "-v",
            "-z",
            "--full-name",
            "--",
            ":/",
        ]);
        let listing = ls.run()?;
        let sparse = repo.git_dir().join("info").join("sparse-checkout").exists();
        // One list per bit: `update-index` applies only the last of two such options.
        let mut assumed = Vec::new();
        let mut skipped = Vec::new();
        for record in crate::repo::nul_records(&listing) {
            // `<tag> SP <path>`: a lowercase tag is assume-unchanged, `S`/`s` skip-worktree.
            let (Some(&tag), Some(path)) = (record.first(), record.get(2..)) else {
                continue;
            };
            if tag.is_ascii_lowercase() {
                assumed.extend_from_slice(path);
                assumed.push(0);
            }
            let on_disk =
                || fs::symlink_metadata(repo.root().join(crate::repo::path_of(path))).is_ok();
            if tag.eq_ignore_ascii_case(&b'S') && (!sparse || on_disk()) {
                skipped.extend_from_slice(path);
                skipped.push(0);
            }
        }
        for (option, paths) in [
            ("--no-assume-unchanged", assumed),
            ("--no-skip-worktree", skipped),
        ] {
            if paths.is_empty() {
                continue;
            }
            let mut clear = repo.private_git(&private, &objects);
            clear
                .env("GIT_INDEX_FILE", self.path())
                .args(["update-index", option, "-z", "--stdin"])
                .stdin(paths);
            clear.run()?;
        }
        Ok(())
    }

    /// An index that starts empty (for building a tree from scratch).
    pub(crate) fn empty(repo: &Repo) -> Result<Self, Error> {
        let dir = tempfile::Builder::new()
            .prefix("pawl-index-")
            .tempdir_in(repo.git_dir())
            .map_err(|source| Error::TempIndex {
                dir: repo.git_dir().to_owned(),
                source,
            })?;
        Ok(TempIndex { dir })
    }

    pub(crate) fn path(&self) -> std::path::PathBuf {
        self.dir.path().join("index")
    }

    /// Stages every non-ignored file of the working tree into this index.
    ///
    /// Through a private git directory pawl writes next to the index: the repository's objects
    /// (`GIT_OBJECT_DIRECTORY`) and its ignore rules (`info/exclude` copied; the tree's
    /// `.gitignore` files and the user's global excludes apply as usual), and nothing else of
    /// its `.git`. So no filter, fsmonitor or hook the repository's config, its includes or
    /// `info/attributes` name can run, no conversion applies (attributes come from the empty
    /// tree, `GIT_ATTR_SOURCE`), and the hash is of the files' bytes as they are — with no
    /// extra process to find out what the config names, and nothing an agent can change
    /// between such a lookup and the `add`.
    pub(crate) fn add_all(&self, repo: &Repo) -> Result<(), Error> {
        let (private, objects) = self.private_dir(repo)?;
        let mut git = repo.private_git(&private, &objects);
        git.env("GIT_INDEX_FILE", self.path())
            .env("GIT_ATTR_SOURCE", repo.empty_tree())
            .args(["add", "--all", "--", ":/"]);
        git.run()?;
        Ok(())
    }

    /// The private git directory of [`TempIndex::add_all`], written once, and the repository's
    /// object directory.
    pub(crate) fn private_dir(
        &self,
        repo: &Repo,
    ) -> Result<(std::path::PathBuf, std::path::PathBuf), Error> {
        let (objects, sha256) = repo.object_store()?;
        let private = self.dir.path().join("git");
        let io_error = |source| Error::TempIndex {
            dir: private.clone(),
            source,
        };
        if !private.join("HEAD").exists() {
            crate::checkout::write_git_dir(&private, sha256).map_err(io_error)?;
            match fs::read(repo.common_dir().join("info").join("exclude")) {
                Ok(rules) => {
                    fs::create_dir_all(private.join("info")).map_err(io_error)?;
                    fs::write(private.join("info").join("exclude"), rules).map_err(io_error)?;
                }
                Err(err) if err.kind() == io::ErrorKind::NotFound => {}
                Err(err) => return Err(io_error(err)),
            }
        }
        Ok((private, objects))
    }

    /// Writes the tree object for this index, through the same private git directory as
    /// [`TempIndex::add_all`]: writing an index re-reads racily clean entries from the working
    /// tree, which would run the repository's filters.
    pub(crate) fn write_tree(&self, repo: &Repo) -> Result<TreeHash, Error> {
        let (private, objects) = self.private_dir(repo)?;
        let mut git = repo.private_git(&private, &objects);
        git.env("GIT_INDEX_FILE", self.path())
            .env("GIT_ATTR_SOURCE", repo.empty_tree())
            .arg("write-tree");
        let out = git.run()?;
        let hex = first_line(&out);
        TreeHash::new(hex.clone()).ok_or_else(|| Error::Parse {
            command: git.command_line(),
            detail: format!("not a tree id: {hex:?}"),
        })
    }
}

/// A copy of the index whose every entry git finds "racily clean", so `git add` compares each
/// file's content, not its stat data. Git compares the seconds of mtime and ctime only: a file
/// rewritten with the same size, its mtime set back (`touch -d`), in the same second as the
/// entry was recorded, passes the stat check with the old blob (attack c13: the right code
/// hashed while the wrong one is on disk). An entry is racily clean when it is not older than
/// the index file: dated one second after the epoch (0 means "no timestamp" to git), the copy
/// makes every entry so. What this costs is one read of every tracked file, when there is no
/// stamped hash of the tree to start from ([`Repo::tree_hash_since`]).
pub(crate) fn copy_racy(from: &Path, to: &Path) -> io::Result<()> {
    match fs::copy(from, to) {
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(err),
    }
    File::options()
        .write(true)
        .open(to)?
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1))
}

pub(crate) fn copy_preserving_mtime(from: &Path, to: &Path) -> io::Result<()> {
    match fs::copy(from, to) {
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(err),
    }
    let modified = fs::metadata(from)?.modified()?;
    File::options().write(true).open(to)?.set_modified(modified)
}
