//! Errors from running git. A failed git command carries its command line, how it ended and its
//! stderr, which is what a user needs to act on it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// git ran and reported failure.
    #[error("git command \"{command}\" failed with status {status}: {stderr}")]
    Command {
        command: String,
        /// How it ended, e.g. `exited with code 128` or `timed out`.
        status: String,
        stderr: String,
    },

    /// git could not be started (not installed: see [`pawl_process::Error::is_not_found`]).
    #[error(transparent)]
    Process(#[from] pawl_process::Error),

    /// The path is not inside a git working tree.
    #[error("{} is not inside a git working tree: {stderr}", path.display())]
    NotARepository { path: PathBuf, stderr: String },

    /// git's output did not have the expected shape.
    #[error("unexpected output from git command \"{command}\": {detail}")]
    Parse { command: String, detail: String },

    /// The temporary index used for tree hashes could not be prepared.
    #[error("failed to prepare a temporary index in {}: {source}", dir.display())]
    TempIndex {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A checkout's own files (its private git directory, the `.git` it gives the checks, its
    /// index) could not be written or read.
    #[error("checkout: {}: {source}", path.display())]
    Checkout {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A backup ref with this name exists already; backups are never overwritten.
    #[error("backup ref {name} already exists")]
    RefExists { name: String },

    /// The name cannot be used in a ref.
    #[error("invalid ref name {name:?}")]
    InvalidRefName { name: String },
}

impl Error {
    /// True when git itself is not installed: an environment failure.
    pub fn is_git_missing(&self) -> bool {
        matches!(self, Error::Process(err) if err.is_not_found())
    }
}
