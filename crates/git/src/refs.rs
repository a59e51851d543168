//! HEAD, branches, commits, backup refs and rollback: the operations that move refs.
//!
//! The rule here is pawl's "never lose work": pawl's commits skip hooks (they are bookkeeping,
//! and a hook must not be able to block saving work), backups are never overwritten, and a
//! rollback first commits the entire current working tree (uncommitted and untracked files
//! included) to a commit reachable from a backup ref.

use crate::error::Error;
use crate::oid::CommitId;
use crate::repo::{Repo, first_line};
use crate::tree::TempIndex;

/// Where backup refs live.
pub const BACKUP_REF_PREFIX: &str = "refs/pawl/backups/";

/// What [`Repo::rollback_to`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rollback {
    /// The full name of the ref that keeps the pre-rollback state.
    pub backup_ref: String,
    /// The commit holding the pre-rollback working tree (its parent is the pre-rollback HEAD,
    /// when there was one).
    pub backup_commit: CommitId,
    /// The commit the working tree was restored to.
    pub restored_to: CommitId,
}

impl Repo {
    /// The commit HEAD points to; `None` before the first commit.
    pub fn head_commit(&self) -> Result<Option<CommitId>, Error> {
        let mut git = self.git();
        git.args(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
        let (code, out) = git.run_allowing(&[0, 1])?;
        if code == 1 {
            return Ok(None);
        }
        self.commit_id(&git.command_line(), &out).map(Some)
    }

    /// The commit HEAD points to, read in-process: `HEAD` itself, then the loose ref or the
    /// `packed-refs` line it names (a linked worktree's HEAD in its own git directory, refs in
    /// the common one). `None` when not sure (a symbolic ref to a symbolic ref, a malformed
    /// file, no commit yet): ask [`Repo::head_commit`] then.
    pub fn head_commit_read(&self) -> Option<CommitId> {
        let head = std::fs::read_to_string(self.git_dir().join("HEAD")).ok()?;
        let head = head.trim_end_matches(['\n', '\r']);
        let Some(name) = head.strip_prefix("ref: ") else {
            return CommitId::new(head);
        };
        if !name.starts_with("refs/") || name.split('/').any(|p| p.is_empty() || p == "..") {
            return None;
        }
        let common = self.common_dir();
        match std::fs::read_to_string(common.join(name)) {
            Ok(text) => CommitId::new(text.trim_end_matches(['\n', '\r'])),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
                packed.lines().find_map(|line| {
                    let (id, r) = line.split_once(' ')?;
                    (r == name).then(|| CommitId::new(id)).flatten()
                })
            }
            Err(_) => None,
        }
    }

    /// The checked-out branch (short name, also before its first commit); `None` when detached.
    pub fn current_branch(&self) -> Result<Option<String>, Error> {
        let mut git = self.git();
        git.args(["symbolic-ref", "--quiet", "HEAD"]);
        let (code, out) = git.run_allowing(&[0, 1])?;
        if code == 1 {
            return Ok(None);
        }
        let full = first_line(&out);
        Ok(Some(
            full.strip_prefix("refs/heads/").unwrap_or(&full).to_owned(),
        ))
    }

    /// Whether the full ref `name` (`refs/heads/pawl`) exists.
    pub fn ref_exists(&self, name: &str) -> Result<bool, Error> {
        let mut git = self.git();
        git.args(["rev-parse", "--verify", "--quiet", name]);
        Ok(git.run_allowing(&[0, 1])?.0 == 0)
    }

    /// The operation git is in the middle of (a merge, rebase, cherry-pick, revert or bisect),
    /// by the files git keeps for it; `None` when there is none.
    pub fn operation_in_progress(&self) -> Option<&'static str> {
        let dir = self.git_dir();
        [
            ("MERGE_HEAD", "a merge"),
            ("rebase-merge", "a rebase"),
            ("rebase-apply", "a rebase or `git am`"),
            ("CHERRY_PICK_HEAD", "a cherry-pick"),
            ("REVERT_HEAD", "a revert"),
            ("BISECT_LOG", "a bisect"),
        ]
        .into_iter()
        .find(|(file, _)| dir.join(file).exists())
        .map(|(_, what)| what)
    }

    /// Creates branch `name` at HEAD and checks it out, keeping working-tree changes
    /// (`git switch -c`). Fails if the branch exists.
    pub fn create_branch_and_switch(&self, name: &str) -> Result<(), Error> {
        let mut check = self.git();
        check.args(["check-ref-format", "--branch", name]);
        if check.run_allowing(&[0, 1, 128])?.0 != 0 {
            return Err(Error::InvalidRefName {
                name: name.to_owned(),
            });
        }
        let mut git = self.files_git()?;
        git.args(["switch", "--quiet", "--create", name]);
        git.run()?;
        Ok(())
    }

    /// Stages everything (tracked changes, deletions, untracked non-ignored files) and commits it
    /// with `message`, skipping hooks. Returns the new commit, or `None` when there was nothing
    /// to commit. Uses the configured identity, falling back to `pawl <pawl@localhost>`.
    pub fn commit_all(&self, message: &str) -> Result<Option<CommitId>, Error> {
        let mut add = self.files_git()?;
        add.args(["add", "--all", "--", ":/"]);
        add.run()?;
        let mut staged = self.git();
        staged.args(["diff", "--cached", "--quiet", "--no-ext-diff"]);
        if staged.run_allowing(&[0, 1])?.0 == 0 {
            return Ok(None);
        }
        let mut commit = self.files_git()?;
        commit
            .args(self.identity_fallback_args()?)
            .args(["commit", "--quiet", "--no-verify", "--file=-"])
            .stdin(message);
        commit.run()?;
        self.head_commit()?.map(Some).ok_or_else(|| Error::Parse {
            command: commit.command_line(),
            detail: "HEAD does not exist after committing".to_owned(),
        })
    }

    /// Commits the current working tree (tracked and untracked, non-ignored files) as a dangling
    /// commit whose parent is HEAD, without touching the index, HEAD or any branch. Point a ref
    /// at it ([`Repo::backup_ref`]) to keep it.
    pub fn snapshot_commit(&self, message: &str) -> Result<CommitId, Error> {
        let index = TempIndex::new(self)?;
        index.add_all(self)?;
        let tree = index.write_tree(self)?;
        let parent = self.head_commit()?;
        let mut git = self.git();
        git.args(self.identity_fallback_args()?)
            .args(["commit-tree", "--no-gpg-sign"]);
        if let Some(parent) = &parent {
            git.args(["-p", parent.as_str()]);
        }
        git.args(["-F", "-", tree.as_str()]).stdin(message);
        let out = git.run()?;
        self.commit_id(&git.command_line(), &out)
    }

    /// Points `refs/pawl/backups/<name>` at `commit`. Refuses to move an existing backup
    /// ([`Error::RefExists`]). Returns the full ref name.
    pub fn backup_ref(&self, name: &str, commit: &CommitId) -> Result<String, Error> {
        let full = format!("{BACKUP_REF_PREFIX}{name}");
        let mut check = self.git();
        check.args(["check-ref-format", &full]);
        if name.is_empty() || check.run_allowing(&[0, 1, 128])?.0 != 0 {
            return Err(Error::InvalidRefName {
                name: name.to_owned(),
            });
        }
        let mut exists = self.git();
        exists.args(["rev-parse", "--verify", "--quiet", &full]);
        if exists.run_allowing(&[0, 1])?.0 == 0 {
            return Err(Error::RefExists { name: full });
        }
        let mut git = self.git();
        // The empty old value makes git itself refuse if the ref appeared meanwhile.
        git.args([
            "update-ref",
            "-m",
            "pawl backup",
            &full,
            commit.as_str(),
            "",
        ]);
        git.run()?;
        Ok(full)
    }

    /// Restores the working tree, index and current branch to `commit` after saving the present
    /// state: the whole working tree (uncommitted and untracked work included) is committed to a
    /// snapshot kept by `refs/pawl/backups/rollback/<snapshot id>`. Ignored files (build output,
    /// `.pawl/`) are left alone; untracked files are removed only after they were saved.
    pub fn rollback_to(&self, commit: &CommitId) -> Result<Rollback, Error> {
        let snapshot =
            self.snapshot_commit(&format!("pawl: backup before rollback to {commit}"))?;
        let backup_ref = match self.backup_ref(&format!("rollback/{snapshot}"), &snapshot) {
            Ok(name) => name,
            // The identical snapshot was saved before (same tree, parent and second): already kept.
            Err(Error::RefExists { name }) => name,
            Err(err) => return Err(err),
        };
        let mut reset = self.files_git()?;
        reset.args(["reset", "--hard", "--quiet", commit.as_str()]);
        reset.run()?;
        let mut clean = self.files_git()?;
        clean.args(["clean", "-d", "--force", "--quiet", "--", ":/"]);
        clean.run()?;
        Ok(Rollback {
            backup_ref,
            backup_commit: snapshot,
            restored_to: commit.clone(),
        })
    }

    fn commit_id(&self, command: &str, out: &[u8]) -> Result<CommitId, Error> {
        let hex = first_line(out);
        CommitId::new(hex.clone()).ok_or_else(|| Error::Parse {
            command: command.to_owned(),
            detail: format!("not a commit id: {hex:?}"),
        })
    }
}
