//! Integration tests of pawl-process against real processes (`sh`, `cat`, `env`).
//!
//! These tests must pass on a loaded machine. Waits are on conditions, bounded by [`PATIENCE`],
//! a bound only a failing test ever reaches; a test never asserts that something happened
//! *quickly*, only that it happened (and, where that is the point, not too early). Where a test
//! needs the child to be at a certain point, the child and the test hand over through marker
//! files ([`wait_for_file_script`]) instead of sleeping and hoping.

mod checks;
mod contain;
mod drain;
mod io;
mod spawn;
mod stop;

use std::path::Path;
use std::time::{Duration, Instant};

use pawl_process::{Command, process_group_alive};

/// Upper bound of every wait on a process: reached only when the test is failing anyway.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// A `sh -c` command with a short grace so tests stay fast.
pub fn sh(script: &str) -> Command {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", script]).grace(Duration::from_millis(300));
    cmd
}

/// Polls `done` until it holds or `within` has passed; true when it held.
pub fn eventually(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// Waits (up to [`PATIENCE`]) until no live process is left in group `pgid`; true when none is.
///
/// Zombies count as gone: they are dead, only not reaped yet, and their reaper is not always
/// pawl. Killing `sh -c 'sleep 100 & sleep 100'` orphans both sleeps, which are reparented to
/// PID 1 (or a subreaper) and reaped whenever it gets round to it; on some machines that is a
/// periodic sweep every couple of seconds, so the library's [`process_group_alive`], which counts
/// zombies, can stay true long after every member died.
pub fn group_gone(pgid: u32) -> bool {
    eventually(PATIENCE, || !group_has_live_member(pgid))
}

/// Waits (up to [`PATIENCE`]) until `pid` is dead (gone or a zombie); true when it is.
pub fn pid_gone(pid: u32) -> bool {
    eventually(PATIENCE, || !pid_alive(pid))
}

/// Whether a pid is alive (not a zombie).
pub fn pid_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| parse_stat(&stat))
        .is_some_and(|(state, _)| !is_dead_state(state))
}

/// Whether some process of group `pgid` is alive, zombies not counted.
fn group_has_live_member(pgid: u32) -> bool {
    // Cheap exit first: no member at all, zombie or not.
    if !process_group_alive(pgid) {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        // Without /proc only the zombie-counting answer is available.
        return true;
    };
    entries.flatten().any(|entry| {
        let is_pid = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.bytes().all(|b| b.is_ascii_digit()));
        is_pid
            && std::fs::read_to_string(entry.path().join("stat"))
                .ok()
                .and_then(|stat| parse_stat(&stat))
                .is_some_and(|(state, group)| group == pgid && !is_dead_state(state))
    })
}

/// The state letter and process group of a `/proc/<pid>/stat` line. The command name (field 2)
/// may contain spaces and parentheses, so the fields are counted from its closing `) `.
fn parse_stat(stat: &str) -> Option<(char, u32)> {
    let (_, rest) = stat.rsplit_once(") ")?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// `Z` is a zombie, `X` (and the old `x`) a process being torn down: dead for our purposes.
fn is_dead_state(state: char) -> bool {
    matches!(state, 'Z' | 'X' | 'x')
}

/// A shell snippet that blocks until `marker` exists, so the test decides when the child moves
/// on. Unbounded on purpose: if the test fails first, dropping its `Running` (or the test
/// process dying, via the parent-death signal) kills the waiting child.
pub fn wait_for_file_script(marker: &Path) -> String {
    format!("while [ ! -e '{}' ]; do sleep 0.02; done", marker.display())
}

/// Creates the marker file a [`wait_for_file_script`] child is waiting for.
pub fn release(marker: &Path) {
    if let Err(err) = std::fs::write(marker, b"") {
        panic!("cannot write marker {}: {err}", marker.display());
    }
}

/// Runs `attempt` with a time limit of `first`, doubling it for as long as the attempt reports
/// (with `None`) that the limit struck before the child was even ready, e.g. a timeout that
/// fired before the shell had installed its trap or printed its first line. On an idle machine
/// the first attempt counts; on a loaded one the limit grows until the child's setup fits.
pub fn with_growing_limit<T>(first: Duration, mut attempt: impl FnMut(Duration) -> Option<T>) -> T {
    let mut limit = first;
    loop {
        if let Some(done) = attempt(limit) {
            return done;
        }
        assert!(
            limit < PATIENCE,
            "the child was never ready within {limit:?}"
        );
        limit *= 2;
    }
}
