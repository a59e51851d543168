//! What changed since a commit, measured against the working tree as a check would see it
//! (untracked, non-ignored files included), without touching the real index.

use std::path::PathBuf;

use crate::error::Error;
use crate::oid::{CommitId, TreeHash};
use crate::repo::{Repo, nul_records, path_of};

/// Line counts for one changed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStat {
    pub path: PathBuf,
    /// Lines added; 0 for binary files.
    pub insertions: u64,
    /// Lines removed; 0 for binary files.
    pub deletions: u64,
    /// git saw the file as binary and counted no lines.
    pub binary: bool,
}

/// `git diff --stat` as data.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DiffStat {
    pub files: Vec<FileStat>,
    pub insertions: u64,
    pub deletions: u64,
}

impl DiffStat {
    pub fn files_changed(&self) -> usize {
        self.files.len()
    }
}

impl Repo {
    /// Files changed, insertions and deletions from `from` to the current working tree,
    /// untracked files included. Renames are reported as a deletion plus an addition.
    pub fn diff_stat(&self, from: &CommitId) -> Result<DiffStat, Error> {
        let tree = self.tree_hash()?;
        self.diff_stat_between(from, &tree)
    }

    /// Like [`Repo::diff_stat`] against an already computed tree hash.
    pub fn diff_stat_between(&self, from: &CommitId, to: &TreeHash) -> Result<DiffStat, Error> {
        let mut git = self.git();
        git.args([
            "diff",
            "--numstat",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
        ])
        .args([from.as_str(), to.as_str(), "--"]);
        let out = git.run()?;
        parse_numstat(&out).map_err(|detail| Error::Parse {
            command: git.command_line(),
            detail,
        })
    }

    /// Paths (relative to the root) that differ between `commit` and the working tree,
    /// untracked files included.
    pub fn changed_files_since(&self, commit: &CommitId) -> Result<Vec<PathBuf>, Error> {
        let tree = self.tree_hash()?;
        let mut git = self.git();
        git.args(["diff", "--name-only", "-z", "--no-renames"])
            .args([commit.as_str(), tree.as_str(), "--"]);
        Ok(nul_records(&git.run()?).map(path_of).collect())
    }
}

/// How a file changed between two trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

/// One changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: PathBuf,
    pub kind: ChangeKind,
}

impl Repo {
    /// The paths that differ between `from` and `to` (any tree-ish ids), with how each changed.
    /// Renames are a deletion plus an addition; a mode change alone is a modification.
    pub fn changes_between(&self, from: &str, to: &str) -> Result<Vec<Change>, Error> {
        let mut git = self.git();
        git.args([
            "diff",
            "--name-status",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
        ])
        .args([from, to, "--"]);
        let out = git.run()?;
        let mut records = nul_records(&out);
        let mut changes = Vec::new();
        while let (Some(status), Some(path)) = (records.next(), records.next()) {
            let kind = match status.first() {
                Some(b'A') => ChangeKind::Added,
                Some(b'D') => ChangeKind::Deleted,
                _ => ChangeKind::Modified,
            };
            changes.push(Change {
                path: path_of(path),
                kind,
            });
        }
        Ok(changes)
    }

    /// The text of `path` in `treeish` (a commit or tree id), or `None` when it is absent, not
    /// UTF-8, or larger than `max` bytes. Read as stored: no filter or conversion runs.
    pub fn blob_text(
        &self,
        treeish: &str,
        path: &std::path::Path,
        max: usize,
    ) -> Result<Option<String>, Error> {
        let spec = format!("{treeish}:{}", path.display());
        let mut size = self.git();
        size.args(["cat-file", "-s", &spec]);
        let (code, out) = size.run_allowing(&[0, 128])?;
        if code != 0 {
            return Ok(None);
        }
        let n: usize = crate::repo::first_line(&out).parse().unwrap_or(usize::MAX);
        if n > max {
            return Ok(None);
        }
        let mut cat = self.git();
        cat.args(["cat-file", "blob", &spec]);
        let (code, out) = cat.run_allowing(&[0, 128])?;
        if code != 0 {
            return Ok(None);
        }
        Ok(String::from_utf8(out).ok())
    }

    /// The tree of `base` with `paths` taken from `from` (added or replaced; a path absent from
    /// `from` is left as `base` has it): e.g. the pre-run code with the run's new test files, to
    /// prove those tests fail without the run's change. Built in a private index.
    pub fn overlay_tree(
        &self,
        base: &str,
        from: &str,
        paths: &[PathBuf],
    ) -> Result<TreeHash, Error> {
        let edits: Vec<TreeEdit> = paths.iter().cloned().map(TreeEdit::Take).collect();
        let present = if edits.is_empty() {
            Entries::new()
        } else {
            self.entries(from, &edits)?
        };
        let edits: Vec<TreeEdit> = edits
            .into_iter()
            .filter(|e| present.contains_key(e.path()))
            .collect();
        self.edited_tree(base, from, &edits)
    }
}

/// How one path of [`Repo::edited_tree`] is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeEdit {
    /// As the `from` tree has it, file mode included; removed when `from` lacks it.
    Take(PathBuf),
    /// These bytes, with the mode `from` (else `base`) gives the path, a regular file otherwise.
    Write(PathBuf, Vec<u8>),
}

impl TreeEdit {
    pub fn path(&self) -> &std::path::Path {
        match self {
            TreeEdit::Take(p) | TreeEdit::Write(p, _) => p,
        }
    }
}

/// Mode and blob id of the files of one tree among some paths.
type Entries = std::collections::HashMap<PathBuf, (String, String)>;

impl Repo {
    /// The tree of `base` with each of `edits` applied: e.g. the pre-run tree with the run's
    /// changes to product source taken and a manifest rewritten (the locked run). Blobs are
    /// written without any filter; the tree is built in a private index.
    pub fn edited_tree(
        &self,
        base: &str,
        from: &str,
        edits: &[TreeEdit],
    ) -> Result<TreeHash, Error> {
        let temp = crate::tree::TempIndex::empty(self)?;
        let mut read = self.git();
        read.env("GIT_INDEX_FILE", temp.path())
            .args(["read-tree", base]);
        read.run()?;
        if edits.is_empty() {
            return temp.write_tree(self);
        }
        let in_from = self.entries(from, edits)?;
        let in_base = self.entries(base, edits)?;
        let zero = if self.sha1_ids() {
            "0".repeat(40)
        } else {
            "0".repeat(64)
        };
        let mut info = Vec::new();
        for e in edits {
            let head = match e {
                TreeEdit::Take(path) => match in_from.get(path) {
                    Some((mode, id)) => format!("{mode} {id}"),
                    None => format!("0 {zero}"),
                },
                TreeEdit::Write(path, bytes) => {
                    let mut hash = self.git();
                    hash.args(["hash-object", "-w", "--no-filters", "--stdin"])
                        .stdin(bytes.clone());
                    let id = crate::repo::first_line(&hash.run()?).to_owned();
                    let mode = in_from
                        .get(path)
                        .or_else(|| in_base.get(path))
                        .map(|(m, _)| m.as_str())
                        .unwrap_or("100644");
                    format!("{mode} {id}")
                }
            };
            info.extend_from_slice(head.as_bytes());
            info.push(b'\t');
            info.extend_from_slice(e.path().as_os_str().as_encoded_bytes());
            info.push(0);
        }
        let mut update = self.git();
        update
            .env("GIT_INDEX_FILE", temp.path())
            .args(["update-index", "-z", "--index-info"])
            .stdin(info);
        update.run()?;
        temp.write_tree(self)
    }

    /// The blobs among the edits' paths in `tree`.
    fn entries(&self, tree: &str, edits: &[TreeEdit]) -> Result<Entries, Error> {
        let mut ls = self.git();
        ls.args(["ls-tree", "-z", "--full-tree", tree, "--"]);
        for e in edits {
            ls.arg(e.path());
        }
        let listing = ls.run()?;
        let mut map = Entries::new();
        for record in nul_records(&listing) {
            // `<mode> SP <type> SP <id> TAB <path>`
            let Some(tab) = record.iter().position(|&b| b == b'\t') else {
                continue;
            };
            let head = String::from_utf8_lossy(&record[..tab]).to_string();
            let mut parts = head.split(' ');
            let (Some(mode), Some("blob"), Some(id)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            map.insert(
                path_of(&record[tab + 1..]),
                (mode.to_owned(), id.to_owned()),
            );
        }
        Ok(map)
    }

    /// Every file path of `tree` (a tree or commit id), relative to its top.
    pub fn tree_paths(&self, tree: &str) -> Result<Vec<PathBuf>, Error> {
        let mut git = self.git();
        git.args(["ls-tree", "-r", "-z", "--name-only", "--full-tree", tree]);
        let out = git.run()?;
        Ok(nul_records(&out).map(path_of).collect())
    }
}

/// Parses `diff --numstat -z --no-renames`: `added\tdeleted\tpath\0`, `-\t-\tpath\0` for binary.
fn parse_numstat(bytes: &[u8]) -> Result<DiffStat, String> {
    let mut stat = DiffStat::default();
    for record in nul_records(bytes) {
        let mut parts = record.splitn(3, |&b| b == b'\t');
        let (Some(added), Some(deleted), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(format!(
                "malformed numstat {:?}",
                String::from_utf8_lossy(record)
            ));
        };
        let count = |field: &[u8]| -> Result<Option<u64>, String> {
            if field == b"-" {
                return Ok(None);
            }
            std::str::from_utf8(field)
                .ok()
                .and_then(|s| s.parse().ok())
                .map(Some)
                .ok_or_else(|| format!("bad count {:?}", String::from_utf8_lossy(field)))
        };
        let (added, deleted) = (count(added)?, count(deleted)?);
        let file = FileStat {
            path: path_of(path),
            insertions: added.unwrap_or(0),
            deletions: deleted.unwrap_or(0),
            binary: added.is_none() || deleted.is_none(),
        };
        stat.insertions += file.insertions;
        stat.deletions += file.deletions;
        stat.files.push(file);
    }
    Ok(stat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_text_and_binary_entries() {
        let stat = parse_numstat(b"3\t1\tsrc/a b.rs\0-\t-\timg.png\0").expect("parses");
        assert_eq!(stat.files_changed(), 2);
        assert_eq!((stat.insertions, stat.deletions), (3, 1));
        assert_eq!(stat.files[0].path, PathBuf::from("src/a b.rs"));
        assert!(stat.files[1].binary);
    }

    #[test]
    fn rejects_malformed_counts() {
        assert!(parse_numstat(b"x\t1\tfile\0").is_err());
        assert!(parse_numstat(b"1\tfile\0").is_err());
    }
}
