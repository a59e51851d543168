//! Which paths git ignores: for telling a user that a build output is not ignored yet (an
//! un-ignored `node_modules/` or `target/` moves the tree hash under every piece of evidence).

use crate::error::Error;
use crate::repo::{Repo, nul_records};

impl Repo {
    /// The paths of `paths` (relative to the root; they need not exist) that the repository's
    /// ignore rules ignore, whether or not something there is tracked.
    pub fn ignored(&self, paths: &[&str]) -> Result<Vec<String>, Error> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let mut input = Vec::new();
        for p in paths {
            input.extend_from_slice(p.as_bytes());
            input.push(0);
        }
        let mut git = self.git();
        git.args(["check-ignore", "--no-index", "-z", "--stdin"])
            .stdin(input);
        // Exit 1: none of them is ignored.
        let (_, out) = git.run_allowing(&[0, 1])?;
        Ok(nul_records(&out)
            .map(|r| String::from_utf8_lossy(r).into_owned())
            .collect())
    }
}

impl Repo {
    /// Whether the directory `dir` (relative to the root) holds a file or directory the
    /// repository's ignore rules ignore (`.env`, a local database, `node_modules/`): what a
    /// snapshot of the working tree does not keep. `false` when `dir` does not exist.
    pub fn holds_ignored(&self, dir: &str) -> Result<bool, Error> {
        Ok(!self.ignored_in(dir)?.is_empty())
    }

    /// The files and directories under `dir` (relative to the root) that the repository's
    /// ignore rules ignore, relative to the root, an ignored directory once (`node_modules/`);
    /// empty when `dir` does not exist.
    pub fn ignored_in(&self, dir: &str) -> Result<Vec<String>, Error> {
        let mut git = self.git();
        git.args([
            "ls-files",
            "--others",
            "--ignored",
            "--exclude-standard",
            "--directory",
            "-z",
            "--",
            if dir.is_empty() { "." } else { dir },
        ]);
        let out = git.run()?;
        Ok(nul_records(&out)
            .map(|r| String::from_utf8_lossy(r).into_owned())
            .collect())
    }
}
