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
