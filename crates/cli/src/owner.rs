//! Facts about this process for run ownership: host name and whether a lease holder still lives.

use pawl_core::record::Lease;

/// This machine, as leases name it: the host name qualified by the kernel's boot id
/// (`build-7#1f0c2a9e`). A shared store sees runs of many machines, and two of them (two
/// containers, two CI runners) may share a host name: a pid is only asked about on the machine
/// — and the boot — it lives on, so a lease held by a job that died elsewhere is taken over when
/// it expires, and one held by a dead process here at once.
pub fn hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into());
    match std::fs::read_to_string("/proc/sys/kernel/random/boot_id") {
        Ok(boot) if boot.trim().len() >= 8 => {
            let short: String = boot.trim().chars().filter(|c| *c != '-').take(8).collect();
            format!("{name}#{short}")
        }
        _ => name,
    }
}

/// Where this clone is, as the shared store scopes runs by it: host and repository path.
pub fn clone_id(root: &std::path::Path) -> String {
    format!("{}:{}", hostname(), root.display())
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

/// The process driving `run_id` right now, if a live one holds its lease: a change only the user
/// may make (raising limits, resealing, accepting changed tests) is refused while it runs, and
/// from inside the run's own agent step (`PAWL_RUN_ID`, which pawl gives the agent).
pub fn refuse_while_driven(
    store: &pawl_store::Store,
    run_id: &str,
    what: &str,
) -> crate::error::CliResult {
    if std::env::var("PAWL_RUN_ID").is_ok_and(|v| v == run_id) {
        return Err(crate::error::CliError::Failed(format!(
            "{what} is the user's decision: it cannot be made from run {run_id}'s own agent step"
        )));
    }
    if let Some(l) = store.lease(run_id)?
        && l.expires_at > jiff::Timestamp::now().as_millisecond()
        && (l.host != hostname() || holder_alive(&l))
        && l.pid != std::process::id()
    {
        return Err(crate::error::CliError::Failed(format!(
            "run {run_id} is being driven by pid {} on {}: {what} waits until it stops (`pawl stop`)",
            l.pid, l.host
        )));
    }
    Ok(())
}
