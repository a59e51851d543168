//! The repositories the daemon serves: `repos.json` in the user's pawl state, a list of absolute
//! paths that `pawl init`, `pawl run` and `pawl serve --add` add to. Written whole through a
//! rename, so the daemon, which follows the file, never reads half of it.
//!
//! Not here: what is in a repository (the stores, `repos.rs`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::ServeError;

/// The registry file's name in the user's pawl state directory.
pub const FILE: &str = "repos.json";

#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registry {
    #[serde(default)]
    pub repos: Vec<PathBuf>,
}

impl Registry {
    /// The registry in `state_dir` (empty when there is none; an unreadable one is an error,
    /// one that does not parse is read as empty rather than stopping the daemon).
    pub fn load(state_dir: &Path) -> Result<Registry, ServeError> {
        let path = state_dir.join(FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(serde_json::from_str(&text).unwrap_or_default()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Registry::default()),
            Err(e) => Err(ServeError::io(&path, e)),
        }
    }
}

/// Adds `repo` (made absolute and canonical) to the registry in `state_dir`; `Ok(false)` when
/// it was there already. Two writers racing may lose one addition, never the file.
pub fn register(state_dir: &Path, repo: &Path) -> Result<bool, ServeError> {
    let repo = repo.canonicalize().map_err(|e| ServeError::io(repo, e))?;
    register_entry(state_dir, repo)
}

/// Adds a shared store (its `postgres://…` URL, docs/fleet.md): the daemon serves every run in it.
pub fn register_store(state_dir: &Path, url: &str) -> Result<bool, ServeError> {
    register_entry(state_dir, PathBuf::from(url))
}

fn register_entry(state_dir: &Path, repo: PathBuf) -> Result<bool, ServeError> {
    let mut reg = Registry::load(state_dir)?;
    if reg.repos.contains(&repo) {
        return Ok(false);
    }
    reg.repos.push(repo);
    std::fs::create_dir_all(state_dir).map_err(|e| ServeError::io(state_dir, e))?;
    let path = state_dir.join(FILE);
    let tmp = state_dir.join(format!("{FILE}.{}.tmp", std::process::id()));
    let text = serde_json::to_string_pretty(&reg).map_err(|e| ServeError::Other(e.to_string()))?;
    std::fs::write(&tmp, text + "\n").map_err(|e| ServeError::io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| ServeError::io(&path, e))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_adds_once_and_survives_garbage() {
        let state = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        assert!(register(state.path(), repo.path()).unwrap());
        assert!(!register(state.path(), repo.path()).unwrap());
        let reg = Registry::load(state.path()).unwrap();
        assert_eq!(reg.repos, vec![repo.path().canonicalize().unwrap()]);
        std::fs::write(state.path().join(FILE), "{not json").unwrap();
        assert_eq!(Registry::load(state.path()).unwrap(), Registry::default());
    }
}
