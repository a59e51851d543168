//! The working-tree hash: the tree object git would record if every tracked and untracked,
//! non-ignored file were committed right now.
//!
//! It is computed in a temporary index (`GIT_INDEX_FILE`) so the user's index, and whatever they
//! staged, is never touched. The temporary index starts as a copy of the real one: its cached
//! stat data lets `git add -A` skip re-reading every unchanged tracked file, which is what makes
//! the hash cheap on large repositories. The copy keeps the original's modification time because
//! git's "racily clean" check compares entries against the index file's mtime.
//!
//! After `git add -A`, the temporary index often still carries a valid cache tree for its root
//! (the `TREE` extension): git invalidates the cache-tree node of every path an index change
//! touches, and `git write-tree` answers with a valid root's id without recomputing anything. We
//! read that id directly and spare the `write-tree` process; when the root is invalid, the index
//! has an unusual shape, or the object format is not known to be SHA-1, `git write-tree` runs
//! as before. Which files changed is always decided by git (`git add -A` with its stat and racy
//! checks), never by pawl.

use std::fs::{self, File};
use std::io;
use std::path::Path;

use crate::error::Error;
use crate::oid::TreeHash;
use crate::repo::{Repo, first_line};

/// Bytes in a SHA-1 object id.
const SHA1_LEN: usize = 20;

impl Repo {
    /// The hash of exactly the bytes a check would see: tracked and untracked files that are not
    /// ignored, with their current content and executable bit. Works before the first commit.
    /// Two calls on an unchanged working tree return the same hash.
    pub fn tree_hash(&self) -> Result<TreeHash, Error> {
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
        copy_preserving_mtime(repo.index_path(), &index.path()).map_err(temp_error)?;
        Ok(index)
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
    /// Attributes come from the empty tree (`GIT_ATTR_SOURCE`): no clean or process filter
    /// the repository configures runs, and the hash is of the files' bytes as they are.
    pub(crate) fn add_all(&self, repo: &Repo) -> Result<(), Error> {
        let mut git = repo.git();
        git.env("GIT_INDEX_FILE", self.path())
            .env("GIT_ATTR_SOURCE", repo.empty_tree())
            .args(["add", "--all", "--", ":/"]);
        git.run()?;
        Ok(())
    }

    /// Writes the tree object for this index.
    pub(crate) fn write_tree(&self, repo: &Repo) -> Result<TreeHash, Error> {
        let mut git = repo.git();
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

pub(crate) fn copy_preserving_mtime(from: &Path, to: &Path) -> io::Result<()> {
    match fs::copy(from, to) {
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(err),
    }
    let modified = fs::metadata(from)?.modified()?;
    File::options().write(true).open(to)?.set_modified(modified)
}
