//! The repositories the daemon serves: `repos.json` in the user's pawl state, a list of absolute
//! paths that `pawl init`, `pawl run` and `pawl serve --add` add to. Written whole through a
//! rename, so the daemon, which follows the file, never reads half of it.
//!
//! Beside it, `envs/<repo id>.json` (0600): the environment a repository joined with — what a
//! run the dashboard starts there is given, never the daemon's own (`crate::start`).
//!
//! Not here: what is in a repository (the stores, `repos.rs`).

use std::collections::BTreeMap;
use std::ffi::OsString;
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

/// Variables that belong to the process that recorded them, never to the runs started later:
/// the shell's bookkeeping and the variables pawl sets for one run, step or check.
const NOT_RECORDED: &[&str] = &[
    "PWD",
    "OLDPWD",
    "SHLVL",
    "_",
    "PAWL_RUN_ID",
    "PAWL_DRIVER",
    "PAWL_ITERATION",
    "PAWL_STORY",
    "PAWL_PROMPT",
    "PAWL_GOAL",
    "PAWL_CHECK",
    "PAWL_BRANCH",
    "PAWL_ARTIFACTS",
    "PAWL_RESUME_SESSION",
];

/// The environment a repository joined the served set with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    /// When it was recorded (milliseconds since the epoch).
    pub recorded_at: i64,
    pub vars: BTreeMap<String, String>,
    /// Names left out because their name or value is not UTF-8.
    #[serde(default)]
    pub skipped: Vec<String>,
}

/// Where repository `repo_id`'s recorded environment is kept.
pub fn environment_file(state_dir: &Path, repo_id: &str) -> PathBuf {
    state_dir.join("envs").join(format!("{repo_id}.json"))
}

/// Records `vars` as the environment of repository `repo` (made canonical), in a file only
/// the user can read: when none is recorded yet, or always with `replace` (`pawl serve --add`).
/// `Ok(true)` when it wrote. The caller passes its own environment (this crate reads none).
pub fn record_environment(
    state_dir: &Path,
    repo: &Path,
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    now_ms: i64,
    replace: bool,
) -> Result<bool, ServeError> {
    let repo = repo.canonicalize().map_err(|e| ServeError::io(repo, e))?;
    let id = crate::repos::Repo::new(repo).id;
    let path = environment_file(state_dir, &id);
    if !replace && path.exists() {
        return Ok(false);
    }
    let mut rec = Recorded {
        recorded_at: now_ms,
        ..Recorded::default()
    };
    for (k, v) in vars {
        match (k.into_string(), v.into_string()) {
            (Ok(k), _) if NOT_RECORDED.contains(&k.as_str()) => {}
            (Ok(k), Ok(v)) => {
                rec.vars.insert(k, v);
            }
            (k, _) => rec
                .skipped
                .push(k.unwrap_or_else(|k| k.to_string_lossy().into_owned())),
        }
    }
    let dir = state_dir.join("envs");
    std::fs::create_dir_all(&dir).map_err(|e| ServeError::io(&dir, e))?;
    let text = serde_json::to_string_pretty(&rec).map_err(|e| ServeError::Other(e.to_string()))?;
    crate::write_private(&path, &(text + "\n"))?;
    Ok(true)
}

/// The environment repository `repo_id` joined with (`None`: none recorded — it joined before
/// pawl recorded environments).
pub fn recorded_environment(
    state_dir: &Path,
    repo_id: &str,
) -> Result<Option<Recorded>, ServeError> {
    let path = environment_file(state_dir, repo_id);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| ServeError::Other(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ServeError::io(&path, e)),
    }
}

/// Whether the dashboard shows a recorded variable's value (the rest by name only: a token in
/// the environment is not the dashboard's to show).
pub fn value_shown(name: &str) -> bool {
    const SHOWN: &[&str] = &[
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "EDITOR",
        "VISUAL", "TMPDIR",
    ];
    SHOWN.contains(&name)
        || name.starts_with("LC_")
        || name.starts_with("XDG_")
        || (name.starts_with("PAWL_") && !name.starts_with("PAWL_STORE"))
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

    #[test]
    fn the_environment_is_recorded_once_replaced_on_request_and_private() {
        use std::os::unix::fs::PermissionsExt as _;
        let state = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let vars = |v: &str| {
            vec![
                (OsString::from("MARK"), OsString::from(v)),
                (OsString::from("PWD"), OsString::from("/somewhere")),
                (OsString::from("PAWL_RUN_ID"), OsString::from("r1")),
            ]
        };
        assert!(record_environment(state.path(), repo.path(), vars("first"), 1, false).unwrap());
        assert!(!record_environment(state.path(), repo.path(), vars("second"), 2, false).unwrap());
        let id = crate::repos::Repo::new(repo.path().canonicalize().unwrap()).id;
        let rec = recorded_environment(state.path(), &id).unwrap().unwrap();
        assert_eq!(rec.vars.get("MARK").map(String::as_str), Some("first"));
        assert!(!rec.vars.contains_key("PWD") && !rec.vars.contains_key("PAWL_RUN_ID"));
        let mode = std::fs::metadata(environment_file(state.path(), &id))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(record_environment(state.path(), repo.path(), vars("second"), 3, true).unwrap());
        let rec = recorded_environment(state.path(), &id).unwrap().unwrap();
        assert_eq!((rec.vars["MARK"].as_str(), rec.recorded_at), ("second", 3));
        assert_eq!(recorded_environment(state.path(), "nope").unwrap(), None);
        assert!(value_shown("PATH") && value_shown("LC_ALL") && !value_shown("ANTHROPIC_API_KEY"));
        assert!(!value_shown("PAWL_STORE_URL"));
    }
}
