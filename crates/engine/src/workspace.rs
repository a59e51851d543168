//! Where a repository's checks run ([`Workspace`]: the root, pawl's state, the clean room,
//! containment, the hidden checks' vault, the coverage minimums) and the environment every
//! check gets ([`check_env`]). Below verification and the baseline, which both run checks in it.

use std::path::{Path, PathBuf};

/// Where a repository's checks run and where pawl keeps their logs.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The repository root.
    pub root: PathBuf,
    /// pawl's state directory (`<root>/.pawl`).
    pub state_dir: PathBuf,
    /// Where the checks run: a room directory outside the repository that holds exactly the
    /// verified tree ([`crate::room`]); `None` runs them in `root`.
    pub room: Option<PathBuf>,
    /// How the checks are launched: contained, so every process a check starts ends with it
    /// (pawl-process's `sandbox`). `None`: spawned directly.
    pub containment: Option<pawl_process::Containment>,
    /// How the independent tester's command is launched: the checks' containment with HOME
    /// seen read-only (`start::sandbox::tester_containment`: it runs before the first step).
    /// `None`: as the checks ([`Workspace::containment`]).
    pub tester_containment: Option<pawl_process::Containment>,
    /// Where hidden checks' commands are kept (the user's pawl state): [`crate::hidden`].
    pub vault: Option<crate::hidden::Vault>,
    /// The coverage minimums per story size of the project's platform; a check whose output
    /// reports a coverage figure below the current story's minimum fails.
    pub coverage_min: Option<pawl_core::coverage::Minimums>,
    /// Why pawl's evidence key is readable by the checks on this machine (no mount namespace
    /// to hide pawl's state: pawl-process's `Enforced::key_exposure`); then a verification
    /// whose checks pass carries it as a finding, and the verdict is at most REVIEW. `None`:
    /// hidden (or not judged, as in the engine's own tests).
    pub key_exposed: Option<String>,
    /// The main repository's path when `root` is another checkout of it (a story's worktree,
    /// the merge queue's scratch checkout): the checks see the room there, as the run's own do,
    /// and the room's environment is the main repository's (every room at the repository's
    /// own path, issue 30 point 1). `None`: `root` is the repository.
    pub seen_at: Option<PathBuf>,
}

impl Workspace {
    pub fn new(root: impl Into<PathBuf>, state_dir: impl Into<PathBuf>) -> Workspace {
        Workspace {
            root: root.into(),
            state_dir: state_dir.into(),
            room: None,
            containment: None,
            tester_containment: None,
            vault: None,
            coverage_min: None,
            key_exposed: None,
            seen_at: None,
        }
    }

    /// The path the checks see the room at: the repository's own, whichever checkout of it
    /// is verified ([`Workspace::seen_at`]).
    pub fn checks_path(&self) -> &Path {
        self.seen_at.as_deref().unwrap_or(&self.root)
    }

    /// Where the logs of hidden checks go: beside the room, out of the repository.
    pub fn hidden_logs(&self) -> PathBuf {
        match &self.room {
            Some(room) => {
                let name = room
                    .file_name()
                    .map(|n| format!("{}-hidden-logs", n.to_string_lossy()))
                    .unwrap_or_else(|| "hidden-logs".into());
                room.with_file_name(name)
            }
            None => std::env::temp_dir().join("pawl-hidden-logs"),
        }
    }

    pub(crate) fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .display()
            .to_string()
    }
}

/// Variables every check gets on top of pawl's environment. Python must not write bytecode
/// caches from pawl's runs: a `.pyc` written in the same second as an edit of the same size is
/// silently reused by the next run (stale results), and an un-ignored `__pycache__/` would move
/// the tree hash under the evidence.
pub(crate) fn check_env() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    vec![("PYTHONDONTWRITEBYTECODE".into(), "1".into())]
}
