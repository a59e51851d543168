//! The repositories the daemon serves and their stores: which repository holds a run, and
//! opening its store with the user's key, the same way the CLI does.
//!
//! Not here: the registry file itself (`registry.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pawl_store::{Store, StoreError};
use serde::Serialize;
use sha2::Digest as _;

use crate::registry::Registry;

/// One served repository, or a shared store (a fleet's: docs/fleet.md) — registered by its
/// URL in place of a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Repo {
    /// A short stable id: the first 12 hex digits of the SHA-256 of its path.
    pub id: String,
    pub root: PathBuf,
    /// The shared store's URL, when this entry is one (`postgres://…`, or a store file's path).
    #[serde(skip)]
    pub store: Option<String>,
}

impl Repo {
    pub fn new(root: PathBuf) -> Repo {
        let digest = sha2::Sha256::digest(root.as_os_str().as_encoded_bytes());
        let id = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
        let text = root.to_string_lossy().into_owned();
        // A PostgreSQL URL, or a SQLite store file many clones share (`[store] url` a path).
        let store =
            (pawl_store::Location::parse(&text).is_shared() || root.is_file()).then_some(text);
        Repo { id, root, store }
    }

    pub fn db(&self) -> PathBuf {
        self.root.join(".pawl").join("pawl.db")
    }

    /// The file a stop request is written to (the one `pawl stop` writes).
    pub fn stop_file(&self) -> PathBuf {
        self.root.join(".pawl").join("stop")
    }

    pub fn name(&self) -> String {
        if let Some(url) = &self.store {
            return pawl_store::db::redact(url);
        }
        self.root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.root.display().to_string())
    }
}

pub struct Repos {
    state_dir: PathBuf,
    key: Option<[u8; 32]>,
    /// Which repository each run id was found in.
    where_is: Mutex<HashMap<String, String>>,
    /// Verdicts of runs that ended, by (repository, run), with the run's (ended, updated)
    /// stamps they were computed at.
    pub verdicts: Mutex<VerdictCache>,
}

type VerdictCache = HashMap<(String, String), ((Option<i64>, i64), serde_json::Value, String)>;

impl Repos {
    pub fn new(state_dir: PathBuf, key: Option<[u8; 32]>) -> Repos {
        Repos {
            state_dir,
            key,
            where_is: Mutex::default(),
            verdicts: Mutex::default(),
        }
    }

    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// The user's private directory of hidden checks and the tester's tests (as `pawl
    /// report` opens it): what the hidden tests that failed called and got is read from there
    /// for the user ([`pawl_engine::report::reveal`]). `None` without a key.
    pub fn vault(&self) -> Option<pawl_engine::hidden::Vault> {
        self.key
            .map(|k| pawl_engine::hidden::Vault::new(self.state_dir.join("hidden"), k))
    }

    /// The registered repositories (read afresh: `pawl serve --add` and `pawl init` change it
    /// while the daemon runs).
    pub fn list(&self) -> Vec<Repo> {
        Registry::load(&self.state_dir)
            .unwrap_or_default()
            .repos
            .into_iter()
            .map(Repo::new)
            .collect()
    }

    /// The repository's store, `None` when pawl has no database there (yet).
    pub fn open(&self, repo: &Repo) -> Result<Option<Store>, StoreError> {
        if let Some(url) = &repo.store {
            let location = pawl_store::Location::parse(url);
            let clock = Box::new(pawl_store::SystemClock);
            return Store::open_at(&location, clock, self.key).map(Some);
        }
        let db = repo.db();
        if !db.is_file() {
            return Ok(None);
        }
        let store = match self.key {
            Some(key) => Store::open_keyed(&db, key)?,
            None => Store::open(&db)?,
        };
        Ok(Some(store))
    }

    /// The repository and store that hold run `id`.
    pub fn find(&self, id: &str) -> Result<Option<(Repo, Store)>, StoreError> {
        let repos = self.list();
        let known = self.where_is.lock().ok().and_then(|m| m.get(id).cloned());
        if let Some(repo_id) = known
            && let Some(repo) = repos.iter().find(|r| r.id == repo_id)
            && let Some(store) = self.open(repo)?
            && has_run(&store, id)?
        {
            return Ok(Some((repo.clone(), store)));
        }
        for repo in &repos {
            let Some(store) = self.open(repo)? else {
                continue;
            };
            if has_run(&store, id)? {
                if let Ok(mut m) = self.where_is.lock() {
                    m.insert(id.to_string(), repo.id.clone());
                }
                return Ok(Some((repo.clone(), store)));
            }
        }
        Ok(None)
    }
}

fn has_run(store: &Store, id: &str) -> Result<bool, StoreError> {
    match store.run_as_signed(id) {
        Ok(_) => Ok(true),
        Err(StoreError::NotFound { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}
