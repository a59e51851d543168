//! Hidden checks' commands, kept where the agent cannot read them.
//!
//! A hidden check (`--hidden-check`, the user's `pawl hidden add` list, adversarial QA's
//! reproductions) must never be readable by the agent it judges — and the run's store
//! (`.pawl/pawl.db`) is in the repository, readable by every step. So its seal holds only the
//! check's name and a code: an HMAC of the command under pawl's key, which the agent can neither
//! invert (it has no key) nor guess a command against. The command itself is kept in the
//! [`Vault`], a directory in the user's pawl state (hidden from sandboxed steps, a protected path
//! in session mode), one file per code. Evidence of a hidden check stores the code in place of
//! the command and nothing of its output ([`shown_command`], pawl-engine's `verify`).
//!
//! What this module is not: where the user's list of hidden checks is kept (the CLI), running
//! the checks (pawl-verify), the prompt that only says "a hidden check fails" (`prompt`).

use std::path::{Path, PathBuf};

use pawl_core::seal::{CheckRole, Seal};
use pawl_verify::gate::Check;

/// Why a hidden check's command could not be kept or found.
#[derive(Debug, thiserror::Error)]
pub enum HiddenError {
    #[error(
        "the hidden check `{check}` is kept in a user's pawl state, and this process has none (no key): run pawl as the user who started the run"
    )]
    NoVault { check: String },
    #[error(
        "the hidden check `{check}` is not in this user's pawl state ({path} is missing): it can be run only where the run was started"
    )]
    Missing { check: String, path: PathBuf },
    #[error(
        "the hidden check `{check}` kept in {path} is not the one sealed (its code differs): it was modified"
    )]
    Altered { check: String, path: PathBuf },
    #[error("cannot keep the hidden check `{check}` in {path}: {source}")]
    Io {
        check: String,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Where hidden checks' commands are kept: a directory of the user's pawl state, and the key
/// their codes are made with.
#[derive(Clone)]
pub struct Vault {
    dir: PathBuf,
    key: [u8; 32],
}

impl std::fmt::Debug for Vault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vault").field("dir", &self.dir).finish()
    }
}

impl Vault {
    pub fn new(dir: impl Into<PathBuf>, key: [u8; 32]) -> Vault {
        Vault {
            dir: dir.into(),
            key,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The code a command is kept by.
    pub fn code(&self, command: &str) -> String {
        pawl_store::mac::seal_text(&self.key, "hidden-check", command)
    }

    /// Moves the command of every hidden check of `seal` into the vault: the seal keeps its name
    /// and code only. Checks already stowed are left as they are.
    pub fn stow(&self, seal: &mut Seal) -> Result<(), HiddenError> {
        for c in seal
            .checks
            .iter_mut()
            .filter(|c| c.role == CheckRole::Hidden && !c.command.is_empty())
        {
            let code = self.code(&c.command);
            let path = self.dir.join(&code);
            let io = |source| HiddenError::Io {
                check: c.name.clone(),
                path: path.clone(),
                source,
            };
            write_private(&self.dir, &path, c.command.as_bytes()).map_err(io)?;
            c.command.clear();
            c.code = Some(code);
        }
        Ok(())
    }

    /// The command kept by `code`, for the check `name`.
    fn command(&self, name: &str, code: &str) -> Result<String, HiddenError> {
        // A code is hex: never a path that leaves the vault.
        let path = self.dir.join(code);
        if code.is_empty() || !code.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(HiddenError::Altered {
                check: name.into(),
                path,
            });
        }
        let command = match std::fs::read_to_string(&path) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(HiddenError::Missing {
                    check: name.into(),
                    path,
                });
            }
            Err(source) => {
                return Err(HiddenError::Io {
                    check: name.into(),
                    path,
                    source,
                });
            }
        };
        if self.code(&command) != code {
            return Err(HiddenError::Altered {
                check: name.into(),
                path,
            });
        }
        Ok(command)
    }
}

/// Writes `bytes` to `path` (mode 0600, in a 0700 `dir`) through a temporary file and a rename.
fn write_private(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let tmp = dir.join(format!(".tmp-{}", std::process::id()));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// The sealed checks as the runner takes them: a hidden check's command comes from `vault`.
/// A seal whose hidden checks still hold their commands (made in memory, or before commands
/// were kept out of the store) runs them as they are.
pub fn checks_of(seal: &Seal, vault: Option<&Vault>) -> Result<Vec<Check>, HiddenError> {
    seal.checks
        .iter()
        .map(|c| {
            let command = match (&c.code, c.command.is_empty()) {
                (Some(code), true) => match vault {
                    Some(v) => v.command(&c.name, code)?,
                    None => {
                        return Err(HiddenError::NoVault {
                            check: c.name.clone(),
                        });
                    }
                },
                _ => c.command.clone(),
            };
            Ok(Check::gate(c.name.clone(), command))
        })
        .collect()
}

/// Whether `name` is a hidden check of `seal`.
pub fn is_hidden(seal: Option<&Seal>, name: &str) -> bool {
    seal.is_some_and(|s| {
        s.checks
            .iter()
            .any(|c| c.name == name && c.role == CheckRole::Hidden)
    })
}

/// What pawl writes where the agent can read it in place of a check's command: the command
/// itself, or for a hidden check `(hidden <code>)` — which still tells evidence of one hidden
/// command from another's, so that evidence is reused only for the same check.
pub fn shown_command(seal: Option<&Seal>, check: &Check) -> String {
    let Some(sealed) = seal.and_then(|s| {
        s.checks
            .iter()
            .find(|c| c.name == check.name && c.role == CheckRole::Hidden)
    }) else {
        return check.command.clone();
    };
    let code = match &sealed.code {
        Some(code) => code.clone(),
        None => {
            use sha2::Digest as _;
            format!("{:x}", sha2::Sha256::digest(check.command.as_bytes()))
        }
    };
    format!("(hidden {})", &code[..code.len().min(24)])
}

/// The sealed checks a story is verified with, in its worktree and on the merged tree: every
/// sealed check but the acceptance checks, which prove the whole goal (they must fail on the
/// pre-run code and pass at the end) and run on the run's tree once every story is merged.
pub fn story_checks(
    seal: &pawl_core::seal::Seal,
    vault: Option<&Vault>,
) -> Result<Vec<pawl_verify::gate::Check>, HiddenError> {
    let acceptance: Vec<&str> = seal
        .checks
        .iter()
        .filter(|c| c.role == pawl_core::seal::CheckRole::Acceptance)
        .map(|c| c.name.as_str())
        .collect();
    Ok(checks_of(seal, vault)?
        .into_iter()
        .filter(|c| !acceptance.contains(&c.name.as_str()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pawl_core::seal::SealedCheck;

    fn seal() -> Seal {
        Seal {
            checks: vec![
                SealedCheck::new("test", "sh test.sh", CheckRole::Gate),
                SealedCheck::new("hidden-1", "sh secret.sh 4 4", CheckRole::Hidden),
            ],
            ..Seal::default()
        }
    }

    #[test]
    fn a_stowed_seal_holds_no_hidden_command_and_gives_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::new(dir.path().join("hidden"), [7; 32]);
        let mut s = seal();
        vault.stow(&mut s).unwrap();
        let text = serde_json::to_string(&s).unwrap();
        assert!(!text.contains("secret.sh"), "{text}");
        assert!(text.contains("sh test.sh"));
        let checks = checks_of(&s, Some(&vault)).unwrap();
        assert_eq!(checks[1].command, "sh secret.sh 4 4");
        // Stowing twice changes nothing.
        let before = s.clone();
        vault.stow(&mut s).unwrap();
        assert_eq!(s, before);
    }

    #[test]
    fn a_missing_altered_or_forged_entry_is_an_error_never_another_command() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::new(dir.path().join("hidden"), [7; 32]);
        let mut s = seal();
        vault.stow(&mut s).unwrap();
        let code = s.checks[1].code.clone().unwrap();
        let path = vault.dir().join(&code);
        std::fs::write(&path, "true").unwrap();
        assert!(matches!(
            checks_of(&s, Some(&vault)),
            Err(HiddenError::Altered { .. })
        ));
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(
            checks_of(&s, Some(&vault)),
            Err(HiddenError::Missing { .. })
        ));
        assert!(matches!(
            checks_of(&s, None),
            Err(HiddenError::NoVault { .. })
        ));
        // Another key finds nothing it can use.
        let other = Vault::new(vault.dir(), [8; 32]);
        let mut t = seal();
        vault.stow(&mut t).unwrap();
        assert!(matches!(
            checks_of(&t, Some(&other)),
            Err(HiddenError::Altered { .. })
        ));
        // A code that is not hex never names a path.
        t.checks[1].code = Some("../../etc/passwd".into());
        assert!(matches!(
            checks_of(&t, Some(&vault)),
            Err(HiddenError::Altered { .. })
        ));
    }

    #[test]
    fn only_hidden_checks_are_shown_by_code() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::new(dir.path(), [1; 32]);
        let mut s = seal();
        vault.stow(&mut s).unwrap();
        let checks = checks_of(&s, Some(&vault)).unwrap();
        assert_eq!(shown_command(Some(&s), &checks[0]), "sh test.sh");
        let shown = shown_command(Some(&s), &checks[1]);
        assert!(shown.starts_with("(hidden ") && !shown.contains("secret"));
        // Unstowed (in memory): still not the command.
        let plain = seal();
        let shown = shown_command(Some(&plain), &checks[1]);
        assert!(shown.starts_with("(hidden ") && !shown.contains("secret"));
    }
}
