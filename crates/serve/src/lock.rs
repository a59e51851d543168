//! One daemon per machine user: an exclusive `flock` on `serve.lock` in the user's pawl state,
//! held for the daemon's life (the kernel drops it when the process dies, kill -9 included),
//! and `serve.json` beside it saying where that daemon listens.
//!
//! Not here: the token (`auth.rs`).

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::ServeError;

/// What a running daemon tells the next one (and `pawl dashboard`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Running {
    pub url: String,
    pub pid: u32,
    pub token_file: PathBuf,
}

/// The held lock; dropping it releases it.
#[derive(Debug)]
pub struct Lock {
    _file: File,
    info: PathBuf,
}

impl Lock {
    /// Takes the lock, or says who holds it.
    pub fn take(state_dir: &Path) -> Result<Lock, ServeError> {
        std::fs::create_dir_all(state_dir).map_err(|e| ServeError::io(state_dir, e))?;
        let path = state_dir.join("serve.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| ServeError::io(&path, e))?;
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Lock {
                _file: file,
                info: state_dir.join("serve.json"),
            }),
            // The holder may not have published itself yet: then where it is stays unknown.
            Err(rustix::io::Errno::WOULDBLOCK) => {
                Err(ServeError::AlreadyRunning(running(state_dir).ok()))
            }
            Err(e) => Err(ServeError::io(&path, e.into())),
        }
    }

    /// Records where this daemon listens.
    pub fn publish(&self, running: &Running) -> Result<(), ServeError> {
        let text = serde_json::to_string(running).map_err(|e| ServeError::Other(e.to_string()))?;
        let tmp = self.info.with_extension("json.tmp");
        std::fs::write(&tmp, text).map_err(|e| ServeError::io(&tmp, e))?;
        std::fs::rename(&tmp, &self.info).map_err(|e| ServeError::io(&self.info, e))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.info);
    }
}

/// The daemon that holds the lock, as it published itself.
pub fn running(state_dir: &Path) -> Result<Running, ServeError> {
    let path = state_dir.join("serve.json");
    let text = std::fs::read_to_string(&path).map_err(|e| ServeError::io(&path, e))?;
    serde_json::from_str(&text).map_err(|e| ServeError::Other(format!("{}: {e}", path.display())))
}
