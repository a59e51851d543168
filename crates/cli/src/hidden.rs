//! The user's hidden checks, per repository, and where every hidden check's command is kept.
//!
//! A hidden check is useless once the agent can read it: so none is kept in the repository
//! (`pawl.toml`'s `[gates.hidden]` is refused) or in its store. The user's list lives in the
//! user's pawl state (`hidden-checks.json`: repository path → name → command), which sandboxed
//! steps cannot see and the session guard protects; `pawl hidden add|list|remove` edits it. A
//! run seals the list's checks with its others when it starts, and the commands of all its hidden
//! checks go to the vault (`hidden/` beside the list, pawl-engine's `hidden`).
//!
//! Not here: running them or keeping their evidence out of the store (pawl-engine).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pawl_engine::hidden::Vault;

use crate::error::{CliError, CliResult};

/// Repository path → check name → command.
pub type HiddenList = BTreeMap<String, BTreeMap<String, String>>;

/// The file of the user's list.
pub fn list_path() -> Option<PathBuf> {
    crate::state::user_state_dir().map(|d| d.join("hidden-checks.json"))
}

/// Where the commands of sealed hidden checks are kept, with the key their codes are made with.
pub fn vault() -> Option<Vault> {
    let dir = crate::state::user_state_dir()?.join("hidden");
    Some(Vault::new(dir, crate::state::evidence_key()?))
}

/// The repository's key in the list: its resolved path.
pub fn repo_key(root: &Path) -> String {
    std::fs::canonicalize(root)
        .unwrap_or_else(|_| root.to_path_buf())
        .display()
        .to_string()
}

/// The whole list (empty when there is none yet).
pub fn load() -> CliResult<HiddenList> {
    let Some(path) = list_path() else {
        return Ok(HiddenList::new());
    };
    let Some(text) = crate::state::read_optional(&path)? else {
        return Ok(HiddenList::new());
    };
    serde_json::from_str(&text).map_err(|e| {
        CliError::Failed(format!(
            "{} is not a list of hidden checks ({e}): fix or remove it",
            path.display()
        ))
    })
}

/// The hidden checks of the repository at `root`: name → command.
pub fn for_repo(root: &Path) -> CliResult<BTreeMap<String, String>> {
    Ok(load()?.remove(&repo_key(root)).unwrap_or_default())
}

/// Writes the whole list (0600, in the user's pawl state).
pub fn save(list: &HiddenList) -> CliResult {
    use std::os::unix::fs::PermissionsExt as _;
    let path = list_path().ok_or_else(|| {
        CliError::Failed("no user state directory (HOME or XDG_STATE_HOME is not set)".into())
    })?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(CliError::io(format!("cannot create {}", dir.display())))?;
    }
    let text = serde_json::to_string_pretty(list).unwrap_or_default() + "\n";
    crate::state::write_atomic(&path, &text)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .map_err(CliError::io(format!("cannot restrict {}", path.display())))?;
    Ok(())
}

/// A check name: letters, digits, `-` and `_`, at most 64 of them.
pub fn valid_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!(
            "`{name}` is not a hidden check name: give 1 to 64 characters"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_')))
    {
        return Err(format!(
            "`{name}` is not a hidden check name: `{c}` is not allowed (letters, digits, `-`, `_`)"
        ));
    }
    if name.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{name}` is not a hidden check name: give it a letter (`hidden-<number>` names the run's `--hidden-check`s)"
        ));
    }
    Ok(())
}

/// The refusal for hidden checks configured in the repository, where the agent reads them.
pub fn in_repository_refusal(names: &[&String]) -> CliError {
    let first = names.first().map(|s| s.as_str()).unwrap_or("NAME");
    CliError::Usage(format!(
        "pawl.toml has [gates.hidden] ({}): pawl.toml is in the repository, where the agent reads it, so these checks would not be hidden. \
         Keep them in your pawl state instead — `pawl hidden add {first} '<command>'` for each — and remove [gates.hidden] from pawl.toml",
        names
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::valid_name;

    #[test]
    fn names_are_checked() {
        for ok in ["edge", "sum-7_1", "A1"] {
            assert!(valid_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a b", "../x", "é", "12", &"x".repeat(65)] {
            assert!(valid_name(bad).is_err(), "{bad}");
        }
    }
}
