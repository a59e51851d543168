//! An exact, restorable copy of the working tree, for the lint-fix loop: a fix that does not
//! keep the build and tests green is undone byte for byte.
//!
//! Two layers, so work is never lost:
//! 1. a snapshot commit of the whole tree (tracked and untracked, non-ignored files) kept by
//!    `refs/pawl/backups/lint-fix/<commit>`, made with pawl-git without touching HEAD, the
//!    index or any branch: the recovery point if anything below goes wrong;
//! 2. a plain copy of those same files in a scratch directory (under `.pawl/`, which is
//!    git-ignored), from which [`TreeBackup::restore`] puts the tree back without moving HEAD or
//!    the index. Restoring removes files that appeared, rewrites files that changed (content and
//!    permissions), and then checks that the tree hash is the one recorded before: a mismatch is
//!    an error naming the backup ref.
//!
//! Ignored files (build output) are neither copied nor restored. Not for huge trees: the copy
//! costs as much as the tree's non-ignored bytes.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use pawl_git::{CommitId, Repo, TreeHash};

/// Why a backup could not be taken or restored.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error(transparent)]
    Git(#[from] pawl_git::Error),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },
    #[error(
        "the restored tree is {found}, not {expected}: the pre-fix tree is kept in {backup_ref}"
    )]
    Mismatch {
        expected: String,
        found: String,
        backup_ref: String,
    },
}

fn io_err(context: impl Into<String>) -> impl FnOnce(io::Error) -> BackupError {
    let context = context.into();
    move |source| BackupError::Io { context, source }
}

/// A copy of the working tree taken by [`TreeBackup::take`].
#[derive(Debug)]
pub struct TreeBackup {
    scratch: PathBuf,
    files: BTreeSet<PathBuf>,
    pub tree: TreeHash,
    pub snapshot: CommitId,
    pub backup_ref: String,
}

/// Tracked files that exist, plus untracked non-ignored ones, relative to the root.
fn tree_files(repo: &Repo) -> Result<BTreeSet<PathBuf>, BackupError> {
    let mut files: BTreeSet<PathBuf> = repo.tracked_files()?.into_iter().collect();
    for e in repo.status()? {
        if e.is_untracked() {
            files.insert(e.path);
        }
    }
    let root = repo.root();
    files.retain(|p| {
        fs::symlink_metadata(root.join(p))
            .map(|m| !m.is_dir())
            .unwrap_or(false)
    });
    Ok(files)
}

fn copy_entry(from: &Path, to: &Path) -> io::Result<()> {
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent)?;
    }
    let meta = fs::symlink_metadata(from)?;
    if meta.file_type().is_symlink() {
        let target = fs::read_link(from)?;
        match fs::remove_file(to) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        std::os::unix::fs::symlink(target, to)
    } else {
        if fs::symlink_metadata(to).is_ok_and(|m| m.file_type().is_symlink()) {
            fs::remove_file(to)?;
        }
        fs::copy(from, to)?;
        fs::set_permissions(to, meta.permissions())
    }
}

fn same_entry(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (fs::symlink_metadata(a), fs::symlink_metadata(b)) else {
        return false;
    };
    if ma.file_type().is_symlink() || mb.file_type().is_symlink() {
        return ma.file_type().is_symlink()
            && mb.file_type().is_symlink()
            && fs::read_link(a).ok() == fs::read_link(b).ok();
    }
    ma.len() == mb.len()
        && ma.permissions() == mb.permissions()
        && fs::read(a).ok() == fs::read(b).ok()
}

impl TreeBackup {
    /// Snapshots the tree (commit + backup ref) and copies its files into `scratch`, which must
    /// not exist yet and should be git-ignored (e.g. `.pawl/tmp/lint-fix-<step>`).
    pub fn take(repo: &Repo, scratch: &Path) -> Result<TreeBackup, BackupError> {
        let tree = repo.tree_hash()?;
        let snapshot = repo.snapshot_commit("pawl: working tree before lint fix")?;
        let backup_ref = match repo.backup_ref(&format!("lint-fix/{snapshot}"), &snapshot) {
            Ok(name) => name,
            Err(pawl_git::Error::RefExists { name }) => name,
            Err(e) => return Err(e.into()),
        };
        let files = tree_files(repo)?;
        fs::create_dir_all(scratch)
            .map_err(io_err(format!("cannot create {}", scratch.display())))?;
        for rel in &files {
            copy_entry(&repo.root().join(rel), &scratch.join(rel))
                .map_err(io_err(format!("cannot back up {}", rel.display())))?;
        }
        Ok(TreeBackup {
            scratch: scratch.to_path_buf(),
            files,
            tree,
            snapshot,
            backup_ref,
        })
    }

    /// Puts the working tree back exactly as it was, then checks the tree hash.
    pub fn restore(&self, repo: &Repo) -> Result<(), BackupError> {
        let root = repo.root();
        for rel in tree_files(repo)? {
            if !self.files.contains(&rel) {
                fs::remove_file(root.join(&rel))
                    .map_err(io_err(format!("cannot remove {}", rel.display())))?;
            }
        }
        for rel in &self.files {
            let saved = self.scratch.join(rel);
            let live = root.join(rel);
            if !same_entry(&saved, &live) {
                copy_entry(&saved, &live)
                    .map_err(io_err(format!("cannot restore {}", rel.display())))?;
            }
        }
        let found = repo.tree_hash()?;
        if found != self.tree {
            return Err(BackupError::Mismatch {
                expected: self.tree.to_string(),
                found: found.to_string(),
                backup_ref: self.backup_ref.clone(),
            });
        }
        Ok(())
    }

    /// Removes the scratch copy (the snapshot ref stays).
    pub fn discard(self) -> Result<(), BackupError> {
        fs::remove_dir_all(&self.scratch)
            .map_err(io_err(format!("cannot remove {}", self.scratch.display())))
    }
}
