//! The system calls of the step launcher that std does not wrap: namespaces, mounts, fork,
//! wait, signal masks, `prctl`. The only module of the launcher allowed to use `unsafe`.
//!
//! Every function is a thin, checked wrapper: it turns a failed call into an [`io::Error`] and
//! knows nothing about what the launcher does with it. The launcher is single-threaded (it is a
//! freshly executed pawl that has started no thread), so `fork` here is an ordinary fork and the
//! child may allocate.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

fn cstring(path: &OsStr) -> io::Result<CString> {
    CString::new(path.as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// `unshare(2)` with these `CLONE_*` flags.
pub(crate) fn unshare(flags: libc::c_int) -> io::Result<()> {
    // SAFETY: unshare(2) takes plain flags and has no memory-safety preconditions.
    check(unsafe { libc::unshare(flags) }).map(drop)
}

/// Where a `fork` returned.
pub(crate) enum Forked {
    Child,
    Parent(libc::pid_t),
}

/// `fork(2)`. Callers are single-threaded (see the module docs).
pub(crate) fn fork() -> io::Result<Forked> {
    // SAFETY: the launcher process has a single thread, so the child is a complete copy with no
    // lock held by a thread that no longer exists.
    let pid = check(unsafe { libc::fork() })?;
    Ok(if pid == 0 {
        Forked::Child
    } else {
        Forked::Parent(pid)
    })
}

/// How a reaped child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Exited(i32),
    Signalled(i32),
}

/// `waitpid(pid, WNOHANG)`: `Ok(None)` when nothing (more) has ended yet; `Err` with ECHILD
/// when there is no child left to wait for.
pub(crate) fn try_wait(pid: libc::pid_t) -> io::Result<Option<(libc::pid_t, Status)>> {
    let mut raw: libc::c_int = 0;
    // SAFETY: `raw` is a valid, writable int for the duration of the call.
    let got = check(unsafe { libc::waitpid(pid, &mut raw, libc::WNOHANG) })?;
    if got == 0 {
        return Ok(None);
    }
    let status = if libc::WIFSIGNALED(raw) {
        Status::Signalled(libc::WTERMSIG(raw))
    } else if libc::WIFEXITED(raw) {
        Status::Exited(libc::WEXITSTATUS(raw))
    } else {
        // Stops and continues are reported only with WUNTRACED / WCONTINUED, never asked for.
        return Ok(None);
    };
    Ok(Some((got, status)))
}

fn sigset(signals: &[libc::c_int]) -> libc::sigset_t {
    // SAFETY: sigset_t is a plain bit set; sigemptyset initialises it before any use, and
    // sigaddset only sets bits of valid signal numbers (invalid ones are ignored by the call).
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for &s in signals {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

/// Blocks these signals in the calling thread (they are then taken with [`wait_signal`]).
pub(crate) fn block(signals: &[libc::c_int]) -> io::Result<()> {
    let set = sigset(signals);
    // SAFETY: `set` is initialised; the old mask is not wanted (null).
    let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc));
    }
    Ok(())
}

/// Unblocks every signal and restores the default action of the ones the launcher waits on,
/// so the agent starts with the signal state any program expects.
pub(crate) fn reset_signals(signals: &[libc::c_int]) {
    let set = sigset(&[]);
    // SAFETY: `set` is an initialised empty set; SIG_SETMASK with it unblocks everything.
    // signal(2) with SIG_DFL has no memory-safety preconditions.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        for &s in signals {
            libc::signal(s, libc::SIG_DFL);
        }
    }
}

/// Waits up to `timeout` for one of the blocked `signals`: its number and the sending pid (0
/// when the sender is outside this pid namespace, or the kernel).
pub(crate) fn wait_signal(
    signals: &[libc::c_int],
    timeout: Duration,
) -> Option<(libc::c_int, libc::pid_t)> {
    let set = sigset(signals);
    let ts = libc::timespec {
        tv_sec: libc::time_t::try_from(timeout.as_secs()).unwrap_or(1),
        tv_nsec: libc::c_long::from(i32::try_from(timeout.subsec_nanos()).unwrap_or(0)),
    };
    // SAFETY: `info` is a writable siginfo_t, `set` and `ts` are initialised and outlive the call.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let signo = libc::sigtimedwait(&set, &mut info, &ts);
        if signo <= 0 {
            return None;
        }
        Some((signo, info.si_pid()))
    }
}

/// `kill(2)`; ESRCH (nobody there) is not an error.
pub(crate) fn kill(pid: libc::pid_t, signal: libc::c_int) -> io::Result<()> {
    // SAFETY: kill(2) has no memory-safety preconditions. The callers choose the target: a known
    // child, or -1 only inside a pid namespace the launcher is init of.
    match check(unsafe { libc::kill(pid, signal) }) {
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => Ok(()),
        other => other.map(drop),
    }
}

/// Arms `PR_SET_PDEATHSIG`.
pub(crate) fn set_parent_death_signal(signal: libc::c_int) -> io::Result<()> {
    // SAFETY: prctl(2) with PR_SET_PDEATHSIG takes a signal number; no pointers.
    check(unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong, 0, 0, 0) })
        .map(drop)
}

/// Makes the calling process the reaper of its orphaned descendants.
pub(crate) fn set_child_subreaper() -> io::Result<()> {
    // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes a flag; no pointers.
    check(unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) })
        .map(drop)
}

/// True when the write end of `read`'s pipe is closed (its holder died).
pub(crate) fn pipe_hung_up(read: &OwnedFd) -> bool {
    let mut fds = libc::pollfd {
        fd: read.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `fds` is one valid pollfd; a zero timeout never blocks.
    let rc = unsafe { libc::poll(&mut fds, 1, 0) };
    rc > 0 && (fds.revents & (libc::POLLHUP | libc::POLLIN)) != 0
}

/// `mount(2)`. `None` arguments are passed as null pointers.
pub(crate) fn mount(
    source: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> io::Result<()> {
    let source = source.map(|s| cstring(s.as_os_str())).transpose()?;
    let target = cstring(target.as_os_str())?;
    let fstype = fstype.map(|f| cstring(OsStr::new(f))).transpose()?;
    let data = data.map(|d| cstring(OsStr::new(d))).transpose()?;
    let ptr = |c: &Option<CString>| c.as_deref().map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: every pointer is either null or a NUL-terminated string that outlives the call.
    check(unsafe {
        libc::mount(
            ptr(&source),
            target.as_ptr(),
            ptr(&fstype),
            flags,
            ptr(&data).cast(),
        )
    })
    .map(drop)
}

/// The `ST_*` flags of the mount `path` is on (`statvfs(3)`).
pub(crate) fn mount_flags(path: &Path) -> io::Result<libc::c_ulong> {
    let path = cstring(path.as_os_str())?;
    // SAFETY: `st` is a writable statvfs; `path` is NUL-terminated and outlives the call.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        check(libc::statvfs(path.as_ptr(), &mut st))?;
        Ok(st.f_flag)
    }
}

/// Replaces the process image (`execvp(3)`: `program` is looked up in `PATH` when it has no
/// `/`). Returns only on failure.
pub(crate) fn exec(program: &CStr, argv: &[CString]) -> io::Error {
    let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    // SAFETY: `program` and every argv string are NUL-terminated and outlive the call; the
    // pointer array is NULL-terminated.
    unsafe { libc::execvp(program.as_ptr(), ptrs.as_ptr()) };
    io::Error::last_os_error()
}

/// Ends the process at once with `code`, running no destructor and flushing nothing
/// (`_exit(2)`): what a forked child that must not unwind into the parent's state does.
pub(crate) fn exit_now(code: i32) -> ! {
    // SAFETY: _exit(2) has no preconditions and does not return.
    unsafe { libc::_exit(code) }
}

/// Ends the process by `signal` with its default action, so the parent sees the same death the
/// agent died (falls back to exit 128+signal when the signal does not kill).
pub(crate) fn die_by(signal: libc::c_int) -> ! {
    // SAFETY: setrlimit with a valid struct; signal/raise with a valid signal number;
    // sigprocmask with an initialised set. None of them touch memory we do not own.
    unsafe {
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(signal, libc::SIG_DFL);
        let set = sigset(&[signal]);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(signal);
    }
    exit_now(128 + signal)
}

/// The real user and group ids.
pub(crate) fn ids() -> (u32, u32) {
    // SAFETY: getuid(2) and getgid(2) cannot fail.
    unsafe { (libc::getuid(), libc::getgid()) }
}

/// This process's id.
pub(crate) fn pid() -> libc::pid_t {
    // SAFETY: getpid(2) cannot fail.
    unsafe { libc::getpid() }
}

/// Sets the interface `name` up (`SIOCSIFFLAGS` with `IFF_UP`), in the caller's network
/// namespace.
pub(crate) fn interface_up(name: &str) -> io::Result<()> {
    let bytes = name.as_bytes();
    // SAFETY: an all-zero ifreq is valid (empty name, zero flags).
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    if bytes.len() >= req.ifr_name.len() {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    for (dst, &b) in req.ifr_name.iter_mut().zip(bytes) {
        *dst = b as libc::c_char;
    }
    // SAFETY: socket(2) with constant arguments; the fd is owned below.
    let fd =
        check(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })?;
    // SAFETY: `fd` is a fresh descriptor nobody else owns.
    let fd = unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    // SAFETY: `req` is a valid ifreq that outlives both calls; SIOCGIFFLAGS/SIOCSIFFLAGS read
    // and write its flags field only.
    unsafe {
        check(libc::ioctl(fd.as_raw_fd(), libc::SIOCGIFFLAGS, &mut req))?;
        let flags = req.ifr_ifru.ifru_flags | libc::IFF_UP as libc::c_short;
        req.ifr_ifru.ifru_flags = flags;
        check(libc::ioctl(fd.as_raw_fd(), libc::SIOCSIFFLAGS, &req))?;
    }
    Ok(())
}

/// True when the extended attribute `name` of `path` (not followed if a symlink) is `value`.
pub(crate) fn xattr_is(path: &Path, name: &CStr, value: &[u8]) -> bool {
    let Ok(path) = cstring(path.as_os_str()) else {
        return false;
    };
    let mut buf = [0u8; 64];
    // SAFETY: both strings are NUL-terminated and `buf` outlives the call, which writes at
    // most its length.
    let n = unsafe {
        libc::lgetxattr(
            path.as_ptr(),
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    usize::try_from(n).is_ok_and(|n| buf.get(..n) == Some(value))
}
