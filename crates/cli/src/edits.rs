//! The files outside `.pawl/` that `pawl init --agent` edits (the agents' settings, the
//! repository's `.git/info/exclude`), written so that `pawl init --remove` can give each back
//! byte for byte: before pawl first writes a file its original bytes are kept in
//! `.pawl/settings-backup/<path>`, and `.pawl/settings-backup.json` records whether the file
//! existed, the directories pawl created for it and the text pawl last wrote. While the file is
//! still exactly that text, removal restores the original (or deletes the file and the
//! directories pawl made); once anything else changed it, the caller takes pawl's entries out
//! structurally instead.
//!
//! Not here: what goes into the files (pawl-hooks, `hook_setup.rs`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CliError, CliResult};
use crate::state::write_atomic;

/// What pawl knows about one file it edited.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    /// Whether the file existed before pawl first wrote it (its bytes are then in the backup).
    existed: bool,
    /// False once something other than pawl changed the file: the backup no longer describes
    /// what the user wants back.
    exact: bool,
    /// The text pawl last wrote.
    written: String,
    /// Directories pawl created for the file, deepest first.
    #[serde(default)]
    created_dirs: Vec<PathBuf>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Ledger {
    #[serde(default)]
    files: BTreeMap<String, Entry>,
}

/// The files pawl edited in the repository at `root`, with their originals under `state`
/// (`.pawl/`).
pub struct Edits {
    root: PathBuf,
    state: PathBuf,
    /// Directories pawl created for files it has deleted again: removed (when empty) by
    /// [`Edits::finish`], once every file that may live in them is gone.
    emptied: RefCell<Vec<PathBuf>>,
}

/// What [`Edits::restore`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Restored {
    /// The file had its original bytes put back.
    Original,
    /// The file did not exist before pawl: it is gone again.
    Deleted,
}

impl Edits {
    pub fn new(root: &Path, state: &Path) -> Edits {
        Edits {
            root: root.to_path_buf(),
            state: state.to_path_buf(),
            emptied: RefCell::new(Vec::new()),
        }
    }

    /// Removes the directories pawl created for the files it deleted, deepest first, when they
    /// are empty (anything the user put there stays).
    pub fn finish(&self) {
        let mut dirs = self.emptied.take();
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        dirs.dedup();
        for d in dirs {
            let _ = std::fs::remove_dir(d);
        }
    }

    /// The ledger's key for `path`: relative to the repository when inside it.
    fn key(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => format!(
                "_outside/{}",
                path.display().to_string().trim_start_matches('/')
            ),
        }
    }

    fn ledger_path(&self) -> PathBuf {
        self.state.join("settings-backup.json")
    }

    fn backup_path(&self, key: &str) -> PathBuf {
        self.state.join("settings-backup").join(key)
    }

    fn load(&self) -> CliResult<Ledger> {
        match std::fs::read_to_string(self.ledger_path()) {
            Ok(t) => Ok(serde_json::from_str(&t).unwrap_or_default()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Ledger::default()),
            Err(e) => Err(CliError::Io {
                context: format!("cannot read {}", self.ledger_path().display()),
                source: e,
            }),
        }
    }

    fn save(&self, ledger: &Ledger) -> CliResult {
        if ledger.files.is_empty() {
            remove_if_present(&self.ledger_path())?;
            let _ = std::fs::remove_dir(self.state.join("settings-backup"));
            return Ok(());
        }
        let text = serde_json::to_string_pretty(ledger)
            .map_err(|e| CliError::Failed(format!("cannot record pawl's edits: {e}")))?;
        std::fs::create_dir_all(&self.state).map_err(CliError::io(format!(
            "cannot create {}",
            self.state.display()
        )))?;
        write_atomic(&self.ledger_path(), &text)
    }

    /// Writes `text` to `path`, first keeping the file's original bytes (once) and noting the
    /// directories this creates.
    pub fn write(&self, path: &Path, text: &str) -> CliResult {
        let key = self.key(path);
        let current = read_bytes(path)?;
        let mut ledger = self.load()?;
        match ledger.files.get_mut(&key) {
            Some(e) => {
                if e.exact && current.as_deref() != Some(e.written.as_bytes()) {
                    // Someone else changed the file since pawl wrote it.
                    e.exact = false;
                    remove_if_present(&self.backup_path(&key))?;
                }
            }
            None => {
                if let Some(bytes) = &current {
                    let backup = self.backup_path(&key);
                    if let Some(dir) = backup.parent() {
                        std::fs::create_dir_all(dir)
                            .map_err(CliError::io(format!("cannot create {}", dir.display())))?;
                    }
                    std::fs::write(&backup, bytes)
                        .map_err(CliError::io(format!("cannot write {}", backup.display())))?;
                }
                ledger.files.insert(
                    key.clone(),
                    Entry {
                        existed: current.is_some(),
                        exact: true,
                        written: String::new(),
                        created_dirs: missing_dirs(path),
                    },
                );
            }
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(CliError::io(format!("cannot create {}", dir.display())))?;
        }
        write_atomic(path, text)?;
        if let Some(e) = ledger.files.get_mut(&key) {
            e.written = text.to_owned();
        }
        self.save(&ledger)
    }

    /// Gives `path` back exactly as it was before pawl first wrote it, if it is still exactly
    /// what pawl last wrote. `None`: pawl has no exact record (never wrote it, or the file
    /// changed since); the caller takes pawl's entries out itself and calls [`Edits::forget`].
    pub fn restore(&self, path: &Path) -> CliResult<Option<Restored>> {
        let key = self.key(path);
        let mut ledger = self.load()?;
        let Some(e) = ledger.files.get(&key) else {
            return Ok(None);
        };
        let current = read_bytes(path)?;
        if !e.exact || current.as_deref() != Some(e.written.as_bytes()) {
            return Ok(None);
        }
        let backup = self.backup_path(&key);
        let done = if e.existed {
            let bytes = std::fs::read(&backup)
                .map_err(CliError::io(format!("cannot read {}", backup.display())))?;
            let tmp = path.with_extension("pawl-tmp");
            std::fs::write(&tmp, &bytes)
                .map_err(CliError::io(format!("cannot write {}", tmp.display())))?;
            std::fs::rename(&tmp, path)
                .map_err(CliError::io(format!("cannot write {}", path.display())))?;
            Restored::Original
        } else {
            remove_if_present(path)?;
            self.emptied
                .borrow_mut()
                .extend(e.created_dirs.iter().cloned());
            Restored::Deleted
        };
        remove_if_present(&backup)?;
        ledger.files.remove(&key);
        self.save(&ledger)?;
        Ok(Some(done))
    }

    /// Drops pawl's record of `path` (after the caller took pawl's entries out of it), and the
    /// directories pawl created for it when the file is gone and they are empty.
    pub fn forget(&self, path: &Path) -> CliResult {
        let key = self.key(path);
        let mut ledger = self.load()?;
        let Some(e) = ledger.files.remove(&key) else {
            return Ok(());
        };
        if !path.exists() {
            self.emptied.borrow_mut().extend(e.created_dirs);
        }
        remove_if_present(&self.backup_path(&key))?;
        self.save(&ledger)
    }
}

/// The ancestors of `path` that do not exist yet, deepest first.
fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    path.ancestors()
        .skip(1)
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect()
}

fn read_bytes(path: &Path) -> CliResult<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CliError::Io {
            context: format!("cannot read {}", path.display()),
            source: e,
        }),
    }
}

fn remove_if_present(path: &Path) -> CliResult {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(CliError::Io {
            context: format!("cannot remove {}", path.display()),
            source: e,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_pawl_wrote_comes_back_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let edits = Edits::new(root, &root.join(".pawl"));
        let f = root.join("a/b/s.json");
        edits.write(&f, "{}\n").unwrap();
        edits.write(&f, "{\"x\": 1}\n").unwrap();
        assert_eq!(edits.restore(&f).unwrap(), Some(Restored::Deleted));
        edits.finish();
        assert!(
            !root.join("a").exists(),
            "the directories pawl made are gone"
        );
        let g = root.join("g.json");
        std::fs::write(&g, "{\t\"k\":1}").unwrap();
        edits.write(&g, "{}\n").unwrap();
        assert_eq!(edits.restore(&g).unwrap(), Some(Restored::Original));
        assert_eq!(std::fs::read(&g).unwrap(), b"{\t\"k\":1}");
        assert!(!root.join(".pawl/settings-backup.json").exists());
    }

    #[test]
    fn a_file_changed_by_someone_else_is_not_restored() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let edits = Edits::new(root, &root.join(".pawl"));
        let g = root.join("g.json");
        std::fs::write(&g, "{}").unwrap();
        edits.write(&g, "{\"p\": 1}\n").unwrap();
        std::fs::write(&g, "{\"p\": 1, \"user\": 2}\n").unwrap();
        assert_eq!(edits.restore(&g).unwrap(), None);
        // pawl writing again does not make the old original true again.
        edits.write(&g, "{\"user\": 2}\n").unwrap();
        assert_eq!(edits.restore(&g).unwrap(), None);
        edits.forget(&g).unwrap();
        assert!(!root.join(".pawl/settings-backup").exists());
    }
}
