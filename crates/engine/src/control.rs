//! Stop requests from outside the loop: `pawl stop` (a `.pawl/stop` file), the first Ctrl-C
//! (stop after the current step) and the second (stop the agent's process group at once).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Clone)]
pub struct Control {
    stop: Arc<AtomicBool>,
    kill: Arc<AtomicBool>,
    stop_file: PathBuf,
}

impl Control {
    pub fn new(stop_file: PathBuf) -> Control {
        Control {
            stop: Arc::default(),
            kill: Arc::default(),
            stop_file,
        }
    }

    /// Flags shared with a signal handler: the first sets `stop`, the second `kill`.
    pub fn flags(&self) -> (Arc<AtomicBool>, Arc<AtomicBool>) {
        (self.stop.clone(), self.kill.clone())
    }

    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst) || self.stop_file.exists()
    }

    pub fn kill_requested(&self) -> bool {
        self.kill.load(Ordering::SeqCst)
    }

    /// Consumes a stop file once honoured, so the next `pawl resume` is not stopped at once.
    pub fn clear_stop_file(&self) {
        let _ = std::fs::remove_file(&self.stop_file);
    }

    pub fn stop_file(&self) -> &std::path::Path {
        &self.stop_file
    }
}
