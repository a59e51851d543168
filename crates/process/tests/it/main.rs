//! Integration tests of pawl-process against real processes (`sh`, `cat`, `env`).

mod drain;
mod io;
mod spawn;
mod stop;

use std::time::{Duration, Instant};

use pawl_process::{Command, process_group_alive};

/// A `sh -c` command with a short grace so tests stay fast.
pub fn sh(script: &str) -> Command {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", script]).grace(Duration::from_millis(300));
    cmd
}

/// Waits (bounded) for a process group to disappear; true when it did.
pub fn group_gone(pgid: u32, within: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if !process_group_alive(pgid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !process_group_alive(pgid)
}

/// Whether a pid is alive (not a zombie).
pub fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // Field 3 is the state; `Z` is a zombie, dead for our purposes.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}
