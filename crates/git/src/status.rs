//! Working-tree status and tracked files, from `git status --porcelain -z` and `git ls-files -z`.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::repo::{Repo, nul_records, path_of};

/// One line of `git status --porcelain`: a changed, untracked or conflicted path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusEntry {
    /// Status in the index (`X`): `M`, `A`, `D`, `R`, `C`, `U`, `?` for untracked, or ` `.
    pub index: char,
    /// Status in the working tree (`Y`), same alphabet.
    pub worktree: char,
    /// The path, relative to the root (for renames, the new path).
    pub path: PathBuf,
    /// For renames and copies, the original path.
    pub orig_path: Option<PathBuf>,
}

impl StatusEntry {
    pub fn is_untracked(&self) -> bool {
        self.index == '?'
    }
}

impl Repo {
    /// Changed, staged, untracked (each file, not just directories) and conflicted paths;
    /// ignored files are not listed.
    pub fn status(&self) -> Result<Vec<StatusEntry>, Error> {
        let mut git = self.files_git()?;
        git.args([
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--ignore-submodules=none",
        ]);
        let out = git.run()?;
        parse_status(&out).map_err(|detail| Error::Parse {
            command: git.command_line(),
            detail,
        })
    }

    /// True when anything differs from HEAD: modified, staged, deleted or untracked files.
    pub fn is_dirty(&self) -> Result<bool, Error> {
        let mut git = self.files_git()?;
        // `normal` stops at the first untracked directory instead of listing its files: enough
        // to answer yes/no, and faster than `all`.
        git.args(["status", "--porcelain=v1", "-z", "--untracked-files=normal"]);
        Ok(!git.run()?.is_empty())
    }

    /// Every tracked file (index entries), relative to the root.
    pub fn tracked_files(&self) -> Result<Vec<PathBuf>, Error> {
        let mut git = self.git();
        git.args(["ls-files", "-z", "--full-name", "--", ":/"]);
        Ok(nul_records(&git.run()?).map(path_of).collect())
    }

    /// Whether `path` (relative to the root, or absolute inside it) is tracked. A directory
    /// counts as tracked when a tracked file lies under it. The path is taken literally, not as
    /// a glob.
    pub fn is_tracked(&self, path: impl AsRef<Path>) -> Result<bool, Error> {
        let mut git = self.git();
        git.args(["--literal-pathspecs", "ls-files", "-z", "--"])
            .arg(path.as_ref());
        Ok(!git.run()?.is_empty())
    }
}

/// Parses `status --porcelain=v1 -z`: `XY path\0`, and for renames/copies `XY new\0old\0`.
fn parse_status(bytes: &[u8]) -> Result<Vec<StatusEntry>, String> {
    let mut entries = Vec::new();
    let mut records = nul_records(bytes);
    while let Some(record) = records.next() {
        if record.len() < 4 || record[2] != b' ' {
            return Err(format!(
                "malformed entry {:?}",
                String::from_utf8_lossy(record)
            ));
        }
        let index = char::from(record[0]);
        let worktree = char::from(record[1]);
        let path = path_of(&record[3..]);
        let orig_path = if matches!(index, 'R' | 'C') || matches!(worktree, 'R' | 'C') {
            Some(path_of(
                records.next().ok_or("rename without its original path")?,
            ))
        } else {
            None
        };
        entries.push(StatusEntry {
            index,
            worktree,
            path,
            orig_path,
        });
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_untracked_and_renamed_entries() {
        let raw = b" M src/a.rs\0?? new file.txt\0R  to.rs\0from.rs\0UU conflict\0";
        let entries = parse_status(raw).expect("parses");
        assert_eq!(entries.len(), 4);
        assert_eq!((entries[0].index, entries[0].worktree), (' ', 'M'));
        assert!(entries[1].is_untracked());
        assert_eq!(entries[1].path, PathBuf::from("new file.txt"));
        assert_eq!(entries[2].path, PathBuf::from("to.rs"));
        assert_eq!(entries[2].orig_path, Some(PathBuf::from("from.rs")));
        assert_eq!(entries[3].index, 'U');
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_status(b"nonsense\0").is_err());
        assert!(parse_status(b"R  only-new\0").is_err());
        assert_eq!(parse_status(b""), Ok(vec![]));
    }
}
