//! What reviewing, merging and cleaning up after a run needs from git: branch heads and which
//! branches contain a commit, the patch between two trees, the worktrees and the branch each has
//! checked out, a merge computed without touching any working tree (`git merge-tree`), a
//! detached worktree to verify a commit in, and ref moves that git itself checks against the
//! value they expect (a branch that moved meanwhile is never overwritten or deleted).
//!
//! Not here: deciding what to merge or delete (the CLI's `pawl merge` and `pawl clean` do), and
//! rollback (refs.rs).

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::oid::{CommitId, TreeHash};
use crate::repo::{Repo, first_line, nul_records, path_of};

/// A local branch and the commit it points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branch {
    /// The short name (`main`, `pawl/<run>`).
    pub name: String,
    pub head: CommitId,
}

/// One working tree of the repository (`git worktree list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    pub path: PathBuf,
    /// The branch checked out there (short name); `None` when detached or bare.
    pub branch: Option<String>,
}

/// What merging two commits gives, computed in the object store only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeTree {
    /// The merge is clean: the tree it produces.
    Clean(TreeHash),
    /// The merge conflicts in these paths.
    Conflicts(Vec<PathBuf>),
}

const HEADS: &str = "refs/heads/";

impl Repo {
    /// The commit local branch `name` points to; `None` when there is no such branch.
    pub fn branch_head(&self, name: &str) -> Result<Option<CommitId>, Error> {
        let mut git = self.git();
        git.args([
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{HEADS}{name}^{{commit}}"),
        ]);
        let (code, out) = git.run_allowing(&[0, 1])?;
        if code != 0 {
            return Ok(None);
        }
        commit_of(&git.command_line(), &out).map(Some)
    }

    /// The commit `rev` names (a full id, a branch, `HEAD`, ...).
    pub fn resolve_commit(&self, rev: &str) -> Result<CommitId, Error> {
        let mut git = self.git();
        git.args(["rev-parse", "--verify", "--end-of-options"])
            .arg(format!("{rev}^{{commit}}"));
        let out = git.run()?;
        commit_of(&git.command_line(), &out)
    }

    /// The tree of the commit `rev` names.
    pub fn tree_of(&self, rev: &str) -> Result<TreeHash, Error> {
        let mut git = self.git();
        git.args(["rev-parse", "--verify", "--end-of-options"])
            .arg(format!("{rev}^{{tree}}"));
        let out = git.run()?;
        let hex = first_line(&out);
        TreeHash::new(hex.clone()).ok_or_else(|| Error::Parse {
            command: git.command_line(),
            detail: format!("not a tree id: {hex:?}"),
        })
    }

    /// Every local branch with its head, by name.
    pub fn local_branches(&self) -> Result<Vec<Branch>, Error> {
        let mut git = self.git();
        git.args(["for-each-ref", "--format=%(objectname) %(refname)", HEADS]);
        let out = git.run()?;
        let command = git.command_line();
        let text = String::from_utf8_lossy(&out);
        let mut branches = Vec::new();
        for line in text.lines().filter(|l| !l.is_empty()) {
            let (id, name) = line.split_once(' ').ok_or_else(|| Error::Parse {
                command: command.clone(),
                detail: format!("malformed ref line {line:?}"),
            })?;
            let head = CommitId::new(id).ok_or_else(|| Error::Parse {
                command: command.clone(),
                detail: format!("not a commit id: {id:?}"),
            })?;
            branches.push(Branch {
                name: name.strip_prefix(HEADS).unwrap_or(name).to_owned(),
                head,
            });
        }
        Ok(branches)
    }

    /// The local branches whose history contains `commit` (short names).
    pub fn branches_containing(&self, commit: &CommitId) -> Result<Vec<String>, Error> {
        let mut git = self.git();
        git.args(["for-each-ref", "--format=%(refname)", "--contains"])
            .arg(commit.as_str())
            .arg(HEADS);
        let out = git.run()?;
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| l.strip_prefix(HEADS).unwrap_or(l).to_owned())
            .collect())
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    pub fn is_ancestor(&self, ancestor: &CommitId, descendant: &CommitId) -> Result<bool, Error> {
        let mut git = self.git();
        git.args(["merge-base", "--is-ancestor"])
            .args([ancestor.as_str(), descendant.as_str()]);
        Ok(git.run_allowing(&[0, 1])?.0 == 0)
    }

    /// The patch from `from` to `to` (commit or tree ids), as `git diff` prints it: no colour,
    /// no external diff or text conversion the repository configures.
    pub fn diff_patch(&self, from: &str, to: &str) -> Result<Vec<u8>, Error> {
        let mut git = self.git();
        git.args(["diff", "--no-color", "--no-ext-diff", "--no-textconv"])
            .args([from, to, "--"]);
        git.run()
    }

    /// [`Repo::diff_patch`] of one path.
    pub fn diff_patch_path(
        &self,
        from: &str,
        to: &str,
        path: &std::path::Path,
    ) -> Result<Vec<u8>, Error> {
        let mut git = self.git();
        git.args(["diff", "--no-color", "--no-ext-diff", "--no-textconv"])
            .args([from, to, "--"])
            .arg(path);
        git.run()
    }

    /// The repository's working trees and the branch each has checked out.
    pub fn worktrees(&self) -> Result<Vec<Worktree>, Error> {
        let mut git = self.git();
        git.args(["worktree", "list", "--porcelain", "-z"]);
        let out = git.run()?;
        let mut trees = Vec::new();
        let mut current: Option<Worktree> = None;
        // Records are NUL-terminated attribute lines; an empty record ends a worktree, which
        // `nul_records` drops, so a new `worktree` line starts the next one.
        for record in nul_records(&out) {
            if let Some(path) = record.strip_prefix(b"worktree ") {
                if let Some(done) = current.take() {
                    trees.push(done);
                }
                current = Some(Worktree {
                    path: path_of(path),
                    branch: None,
                });
            } else if let (Some(tree), Some(name)) =
                (current.as_mut(), record.strip_prefix(b"branch "))
            {
                let name = String::from_utf8_lossy(name);
                tree.branch = Some(name.strip_prefix(HEADS).unwrap_or(&name).to_owned());
            }
        }
        trees.extend(current);
        Ok(trees)
    }

    /// Merges `theirs` into `ours` in the object store only (`git merge-tree --write-tree`,
    /// git 2.38 or later): no working tree, index or ref changes.
    pub fn merge_tree(&self, ours: &CommitId, theirs: &CommitId) -> Result<MergeTree, Error> {
        let mut git = self.git();
        git.args([
            "merge-tree",
            "--write-tree",
            "-z",
            "--name-only",
            "--no-messages",
        ])
        .args([ours.as_str(), theirs.as_str()]);
        let (code, out) = git.run_allowing(&[0, 1])?;
        let mut records = nul_records(&out);
        let tree = records
            .next()
            .map(|r| String::from_utf8_lossy(r).trim().to_owned());
        let tree = tree.and_then(TreeHash::new).ok_or_else(|| Error::Parse {
            command: git.command_line(),
            detail: "no tree id".to_owned(),
        })?;
        if code == 0 {
            return Ok(MergeTree::Clean(tree));
        }
        let mut paths: Vec<PathBuf> = records.map(path_of).collect();
        paths.dedup();
        Ok(MergeTree::Conflicts(paths))
    }

    /// A commit of `tree` with these parents and message, pointed to by no ref yet.
    pub fn commit_tree(
        &self,
        tree: &TreeHash,
        parents: &[&CommitId],
        message: &str,
    ) -> Result<CommitId, Error> {
        let mut git = self.git();
        git.args(self.identity_fallback_args()?)
            .args(["commit-tree", "--no-gpg-sign"]);
        for p in parents {
            git.args(["-p", p.as_str()]);
        }
        git.args(["-F", "-", tree.as_str()]).stdin(message);
        let out = git.run()?;
        commit_of(&git.command_line(), &out)
    }

    /// Checks `commit` out, detached, into a new worktree at `path` (which must not exist or be
    /// empty). No filter, hook or program the repository configures runs.
    pub fn add_worktree(&self, path: &Path, commit: &CommitId) -> Result<(), Error> {
        let mut git = self.files_git()?;
        git.args(["worktree", "add", "--quiet", "--detach"])
            .arg(path)
            .arg(commit.as_str());
        git.run()?;
        Ok(())
    }

    /// Creates branch `branch` at `commit` and checks it out into a new worktree at `path`
    /// (which must not exist or be empty); with `commit` `None`, checks out the existing
    /// `branch` there. No filter, hook or program the repository configures runs.
    pub fn add_branch_worktree(
        &self,
        path: &Path,
        branch: &str,
        commit: Option<&CommitId>,
    ) -> Result<(), Error> {
        let mut git = self.files_git()?;
        git.args(["worktree", "add", "--quiet"]);
        match commit {
            Some(c) => {
                git.args(["-b", branch]).arg(path).arg(c.as_str());
            }
            None => {
                git.arg(path).arg(branch);
            }
        }
        git.run()?;
        Ok(())
    }

    /// Merges `commit` into this working tree's branch (`git merge --no-ff`, hooks skipped).
    /// Returns no paths when the merge was clean and committed; otherwise the conflicting
    /// paths, with the merge left in progress for someone to resolve ([`Repo::conclude_merge`]).
    pub fn merge_into_head(&self, commit: &CommitId, message: &str) -> Result<Vec<PathBuf>, Error> {
        let mut git = self.files_git()?;
        git.args(self.identity_fallback_args()?)
            .args(["merge", "--no-ff", "--no-verify", "--quiet", "-m", message])
            .arg(commit.as_str());
        let (code, _) = git.run_allowing(&[0, 1])?;
        if code == 0 {
            return Ok(Vec::new());
        }
        let mut list = self.git();
        list.args(["diff", "--name-only", "--diff-filter=U", "-z"]);
        let out = list.run()?;
        let mut paths: Vec<PathBuf> = nul_records(&out).map(path_of).collect();
        paths.dedup();
        if paths.is_empty() {
            // Failed for another reason than a conflict (say, local changes in the way).
            return Err(Error::Parse {
                command: git.command_line(),
                detail: "the merge stopped without a conflict".to_owned(),
            });
        }
        Ok(paths)
    }

    /// Whether a merge is in progress in this working tree (`MERGE_HEAD`).
    pub fn merging(&self) -> bool {
        self.git_dir().join("MERGE_HEAD").exists()
    }

    /// Ends a merge in progress with what the working tree holds now: everything staged and
    /// committed as the merge commit (hooks skipped). `None` when no merge is in progress.
    pub fn conclude_merge(&self, message: &str) -> Result<Option<CommitId>, Error> {
        if !self.merging() {
            return Ok(None);
        }
        let mut add = self.files_git()?;
        add.args(["add", "--all", "--", ":/"]);
        add.run()?;
        let mut commit = self.files_git()?;
        commit
            .args(self.identity_fallback_args()?)
            .args(["commit", "--quiet", "--no-verify", "--file=-"])
            .stdin(message);
        commit.run()?;
        self.head_commit()
    }

    /// Removes the worktree at `path` (whatever it holds) and forgets it.
    pub fn remove_worktree(&self, path: &Path) -> Result<(), Error> {
        let mut git = self.git();
        git.args(["worktree", "remove", "--force", "--force"])
            .arg(path);
        git.run()?;
        Ok(())
    }

    /// Forgets worktrees whose directory is gone (`git worktree prune`).
    pub fn prune_worktrees(&self) -> Result<(), Error> {
        let mut git = self.git();
        git.args(["worktree", "prune"]);
        git.run()?;
        Ok(())
    }

    /// Fast-forwards the branch checked out in this working tree to `commit`, updating the
    /// index and files (`git merge --ff-only`): refused by git unless `commit` descends from
    /// HEAD and the files it changes are clean.
    pub fn fast_forward_checked_out(&self, commit: &CommitId) -> Result<(), Error> {
        let mut git = self.files_git()?;
        git.args(["merge", "--ff-only", "--quiet", "--no-edit"])
            .arg(commit.as_str());
        git.run()?;
        Ok(())
    }

    /// Moves local branch `name` from `old` to `new`; git refuses if it no longer points to
    /// `old`. For a branch no worktree has checked out (its files are not touched).
    pub fn move_branch(
        &self,
        name: &str,
        new: &CommitId,
        old: &CommitId,
        why: &str,
    ) -> Result<(), Error> {
        let mut git = self.git();
        git.args(["update-ref", "-m", why])
            .arg(format!("{HEADS}{name}"))
            .args([new.as_str(), old.as_str()]);
        git.run()?;
        Ok(())
    }

    /// Deletes local branch `name` if it still points to `expected` (git checks).
    pub fn delete_branch(&self, name: &str, expected: &CommitId) -> Result<(), Error> {
        let mut git = self.git();
        git.args(["update-ref", "-d"])
            .arg(format!("{HEADS}{name}"))
            .arg(expected.as_str());
        git.run()?;
        Ok(())
    }
}

fn commit_of(command: &str, out: &[u8]) -> Result<CommitId, Error> {
    let hex = first_line(out);
    CommitId::new(hex.clone()).ok_or_else(|| Error::Parse {
        command: command.to_owned(),
        detail: format!("not a commit id: {hex:?}"),
    })
}
