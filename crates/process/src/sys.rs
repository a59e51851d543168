//! The few system calls std does not wrap: signalling a process group and arming the Linux
//! parent-death signal. With `sandbox::sys`, `deadline` (the hooks' alarm) and `start` (pawl's
//! entry point), the only modules of pawl-process allowed to use `unsafe`.
//!
//! It knows nothing about timeouts or pipes; it only turns a pgid and a [`Signal`] into a
//! `kill(2)` call, and a [`std::process::Command`] into one that dies with its parent.
#![allow(unsafe_code)]

use std::io;

/// The signals pawl sends or arms. Kept small on purpose: pawl never needs more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Signal {
    /// SIGTERM: ask politely; the first step of every stop.
    Term,
    /// SIGKILL: the end of the grace period.
    Kill,
    /// SIGINT: what a terminal would send; offered for agents that handle it better than TERM.
    Int,
    /// SIGHUP.
    Hup,
}

impl Signal {
    /// The raw signal number on this platform.
    pub fn as_raw(self) -> i32 {
        match self {
            Signal::Term => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
            Signal::Int => libc::SIGINT,
            Signal::Hup => libc::SIGHUP,
        }
    }
}

/// A short name for a raw signal number (`"SIGKILL"`), for reports; `"SIG?"` when unknown.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGUSR2 => "SIGUSR2",
        _ => "SIG?",
    }
}

/// Sends `signal` to every process in group `pgid`.
///
/// Returns `Ok(true)` when at least one process received it and `Ok(false)` when the group no
/// longer exists (ESRCH), which callers treat as "already stopped", not as an error.
pub(crate) fn signal_group(pgid: u32, signal: Signal) -> io::Result<bool> {
    let Some(pgid) = checked_pgid(pgid) else {
        return Ok(false);
    };
    // SAFETY: kill(2) has no memory-safety preconditions. The negated pgid addresses exactly one
    // process group; `checked_pgid` rejects 0 and 1 so this can never become kill(0, ..) (our
    // own group) or kill(-1, ..) (every process we may signal).
    let rc = unsafe { libc::kill(-pgid, signal.as_raw()) };
    if rc == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::ESRCH) {
        Ok(false)
    } else {
        Err(err)
    }
}

/// Sends `signal` to the single process `pid` (never 0 or 1); `Ok(false)` when it is gone.
pub(crate) fn signal_pid(pid: u32, signal: Signal) -> io::Result<bool> {
    let Some(pid) = checked_pgid(pid) else {
        return Ok(false);
    };
    // SAFETY: kill(2) has no memory-safety preconditions; a positive pid above 1 addresses
    // exactly one process.
    let rc = unsafe { libc::kill(pid, signal.as_raw()) };
    if rc == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::ESRCH) {
        Ok(false)
    } else {
        Err(err)
    }
}

/// Whether any process (zombies included) still belongs to process group `pgid`.
///
/// Public so that callers and tests can check that a stop really emptied the group.
pub fn process_group_alive(pgid: u32) -> bool {
    let Some(pgid) = checked_pgid(pgid) else {
        return false;
    };
    // SAFETY: signal 0 performs only the existence and permission checks of kill(2); nothing is
    // delivered, and `checked_pgid` keeps the target a single, specific group.
    let rc = unsafe { libc::kill(-pgid, 0) };
    // EPERM means the group exists but belongs to someone else: still alive.
    rc == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

fn checked_pgid(pgid: u32) -> Option<libc::pid_t> {
    let pgid = libc::pid_t::try_from(pgid).ok()?;
    (pgid > 1).then_some(pgid)
}

/// Waits for the child `pid` to end (`wait4(2)`): its exit status and the CPU time (user and
/// system) it and every descendant it waited for used, as the kernel counts it. The time is
/// what a check's commands cost whatever else the machine runs (a wall-clock time on a loaded
/// machine is mostly waiting for a core): the budgets bench reads it from the check's log.
pub(crate) fn wait_with_cpu(
    pid: u32,
) -> io::Result<(std::process::ExitStatus, std::time::Duration)> {
    use std::os::unix::process::ExitStatusExt;
    let pid =
        libc::pid_t::try_from(pid).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: `status` and `usage` are writable and outlive the call; `pid` is one specific
        // child of this process, which nothing else waits for (its `Child` moved to the caller).
        let (rc, usage) = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            let rc = libc::wait4(pid, &mut status, 0, &mut usage);
            (rc, usage)
        };
        if rc == -1 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        let time = |t: libc::timeval| {
            std::time::Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
                + std::time::Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
        };
        return Ok((
            std::process::ExitStatus::from_raw(status),
            time(usage.ru_utime) + time(usage.ru_stime),
        ));
    }
}

/// Arms `PR_SET_PDEATHSIG` in the child so it receives `signal` when its parent goes away.
///
/// The kernel's "parent" is the *thread* that forked the child, which is why every spawn goes
/// through the long-lived thread in `spawner`. The child also compares its parent pid with the
/// one recorded before the fork: if pawl died between fork and prctl, the signal would never
/// come, so the child exits at once instead.
#[cfg(target_os = "linux")]
pub(crate) fn set_parent_death_signal(command: &mut std::process::Command, signal: Signal) {
    use std::os::unix::process::CommandExt;

    let raw = signal.as_raw();
    // SAFETY: getpid(2) is always safe to call.
    let expected_parent = unsafe { libc::getpid() };
    // SAFETY: the closure runs in the forked child before exec, where only async-signal-safe
    // functions may be called. It calls prctl(2), getppid(2) and _exit(2), all of which are
    // async-signal-safe system calls, allocates nothing and takes no locks.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, raw as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() != expected_parent {
                libc::_exit(128 + raw);
            }
            Ok(())
        });
    }
}

/// Makes the child the leader of a new session (and so of a new process group) before it execs:
/// no terminal, no group of pawl's, nothing that ends it when the process that started it ends.
pub(crate) fn new_session(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec; setsid(2) is async-signal-safe,
    // allocates nothing and takes no locks.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Parent-death signals are a Linux feature; elsewhere the process group and kill-on-drop are
/// the only protection.
#[cfg(not(target_os = "linux"))]
pub(crate) fn set_parent_death_signal(_command: &mut std::process::Command, _signal: Signal) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_signal_special_groups() {
        assert!(!signal_group(0, Signal::Term).expect("no-op"));
        assert!(!signal_group(1, Signal::Term).expect("no-op"));
        assert!(!process_group_alive(0));
        assert!(!process_group_alive(1));
    }

    #[test]
    fn names_common_signals() {
        assert_eq!(signal_name(libc::SIGKILL), "SIGKILL");
        assert_eq!(signal_name(Signal::Term.as_raw()), "SIGTERM");
        assert_eq!(signal_name(12345), "SIG?");
    }
}
