//! Facts about this process for run ownership: host name and whether a lease holder still lives.

use pawl_core::record::Lease;

/// This machine's host name (Linux: from /proc; elsewhere from the environment).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}

/// Whether the process holding a lease on this host still exists.
pub fn holder_alive(lease: &Lease) -> bool {
    pid_alive(lease.pid)
}

pub fn pid_alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        // No /proc entry: gone (or not Linux, where we assume alive and rely on expiry).
        return !std::path::Path::new("/proc/self").exists();
    };
    // A zombie has exited; it only waits to be reaped.
    let state = stat
        .rsplit(')')
        .next()
        .and_then(|rest| rest.split_whitespace().next());
    state != Some("Z")
}
