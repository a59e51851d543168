//! What the guard is asked about: a shell command, or a file that an agent's
//! file-writing tool (Claude's Write/Edit/MultiEdit, Codex's apply_patch,
//! Gemini's write_file/replace) is about to change.
//!
//! The hook layer maps each agent's tool call onto one of these; the guard
//! never sees agent-specific JSON.

use serde::{Deserialize, Serialize};

/// One thing an agent wants to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Input {
    /// A shell command line as the agent wrote it (may span lines).
    Shell {
        /// The command text, unparsed.
        command: String,
    },
    /// A file the agent's own tool will create or overwrite. Relative paths
    /// are taken from [`crate::Context::cwd`].
    FileWrite {
        /// The target path as the tool received it.
        path: String,
    },
}

impl Input {
    /// Shorthand for [`Input::Shell`].
    pub fn shell(command: impl Into<String>) -> Self {
        Self::Shell {
            command: command.into(),
        }
    }

    /// Shorthand for [`Input::FileWrite`].
    pub fn file_write(path: impl Into<String>) -> Self {
        Self::FileWrite { path: path.into() }
    }
}
