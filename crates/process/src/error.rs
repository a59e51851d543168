//! Errors from building and supervising a child process.
//!
//! Spawn failures are split by cause because callers act on the cause: the verification engine
//! classifies [`Error::NotFound`] as an environment failure (the tool is not installed), not as a
//! failing gate.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong before or while a child runs. How the child itself ended
/// (non-zero exit, signal, timeout) is not an error: it is the [`crate::Outcome`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The program (or the interpreter named by its `#!` line) does not exist.
    #[error("command not found: {program}")]
    NotFound { program: String },

    /// The program exists but may not be executed.
    #[error("permission denied executing {program}")]
    PermissionDenied { program: String },

    /// The requested working directory does not exist or is not a directory.
    #[error("working directory {} does not exist", cwd.display())]
    CwdNotFound { cwd: PathBuf },

    /// Any other failure to start the program.
    #[error("failed to spawn {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: io::Error,
    },

    /// The log file could not be created.
    #[error("failed to open log file {}: {source}", path.display())]
    Log {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// A helper thread could not be started (the system is out of threads or memory).
    #[error("failed to start a pawl-process thread: {0}")]
    Thread(#[source] io::Error),

    /// The supervising thread panicked; the child has been killed by the drop guard.
    #[error("the supervisor of {program} panicked")]
    SupervisorPanicked { program: String },
}

impl Error {
    /// True when the program could not be found: an environment problem, not a test failure.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound { .. })
    }
}
