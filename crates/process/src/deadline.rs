//! A deadline for the whole process, without a thread: after the given time the process
//! writes a prepared answer on stdout (unless it already answered), appends a prepared line to
//! a log file, and exits 0. The hooks use it: an agent CLI waits for their answer, and a hook
//! that hangs must still answer (a denial while a run is active) before the CLI gives up.
//!
//! Why not a thread that sleeps: a process that ends with a second thread alive is reaped only
//! once that thread has been woken and scheduled to die; on a busy machine that wait cost
//! milliseconds on every hook (more than all the hook's work). `alarm(2)` costs one system
//! call, and the signal handler uses only async-signal-safe calls (`open`, `write`, `close`,
//! `_exit`) on bytes prepared before the alarm is armed.
//!
//! The answer is written once: [`claim`] is the one flag the process's own answer and the
//! handler race for.
//!
//! Unix only; elsewhere [`arm`] returns false and the caller keeps its own watchdog.
#![allow(unsafe_code)]

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

static CLAIMED: AtomicBool = AtomicBool::new(false);

/// What the handler writes: prepared once, before the alarm is armed, never changed after.
struct Prepared {
    answer: Vec<u8>,
    /// The log file (NUL-terminated path) and the line appended to it.
    log: Option<(std::ffi::CString, Vec<u8>)>,
}

static PREPARED: OnceLock<Prepared> = OnceLock::new();

/// Claims the right to answer: true for the first caller in the process (the process's own
/// answer, or the deadline's), false for every later one.
pub fn claim() -> bool {
    !CLAIMED.swap(true, Ordering::SeqCst)
}

/// Arms the deadline: after `after` (rounded up to whole seconds, at least one), `answer` is
/// written to stdout unless [`claim`] was already taken, `log_line` is appended to `log_file`,
/// and the process exits 0. Once per process: a second call changes nothing and returns false,
/// as does a platform without `alarm(2)` or a path with a NUL byte.
pub fn arm(after: Duration, answer: Vec<u8>, log: Option<(&std::path::Path, Vec<u8>)>) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        let log = match log {
            Some((path, line)) => {
                match std::ffi::CString::new(path.as_os_str().as_bytes().to_vec()) {
                    Ok(path) => Some((path, line)),
                    Err(_) => return false,
                }
            }
            None => None,
        };
        if PREPARED.set(Prepared { answer, log }).is_err() {
            return false;
        }
        let seconds = after.as_secs() + u64::from(after.subsec_nanos() > 0);
        let seconds = libc::c_uint::try_from(seconds.max(1)).unwrap_or(libc::c_uint::MAX);
        // SAFETY: `on_alarm` is an `extern "C"` function that only calls async-signal-safe
        // functions on data fully written before this point (`PREPARED` is set above and never
        // changed); the sigaction structure is zero-initialised and then filled in.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()) != 0 {
                return false;
            }
            libc::alarm(seconds);
        }
        true
    }
    #[cfg(not(unix))]
    {
        let _ = (after, answer, log);
        false
    }
}

#[cfg(unix)]
extern "C" fn on_alarm(_signal: libc::c_int) {
    let Some(prepared) = PREPARED.get() else {
        return;
    };
    if !claim() {
        // The process is writing its own answer: it exits right after.
        return;
    }
    // SAFETY: only async-signal-safe calls, on buffers that live for the whole process.
    unsafe {
        write_all(1, &prepared.answer);
        if let Some((path, line)) = &prepared.log {
            let fd = libc::open(
                path.as_ptr(),
                libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_CLOEXEC,
                0o644 as libc::c_uint,
            );
            if fd >= 0 {
                write_all(fd, line);
                libc::close(fd);
            }
        }
        libc::_exit(0);
    }
}

/// `write(2)` until everything is written or it fails.
#[cfg(unix)]
unsafe fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a live slice; `write` reads at most its length.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        match usize::try_from(n) {
            Ok(0) | Err(_) => {
                if n < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                    continue;
                }
                return;
            }
            Ok(n) => bytes = bytes.get(n..).unwrap_or_default(),
        }
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    /// Set in the child process these tests start (this test binary, run again).
    const CHILD: &str = "PAWL_DEADLINE_TEST_CHILD";

    fn child(mode: &str, log: &std::path::Path) -> std::process::Output {
        let exe = std::env::current_exe().expect("the test binary");
        std::process::Command::new(exe)
            .args([
                "--exact",
                "deadline::tests::child_process",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, mode)
            .env("PAWL_DEADLINE_TEST_LOG", log)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the child runs")
    }

    /// Not a test on its own: the body of the child process of the tests below.
    #[test]
    fn child_process() {
        let Ok(mode) = std::env::var(CHILD) else {
            return;
        };
        let log =
            std::path::PathBuf::from(std::env::var_os("PAWL_DEADLINE_TEST_LOG").expect("log"));
        if mode == "claimed" {
            assert!(claim());
        }
        assert!(arm(
            Duration::from_millis(300),
            b"deadline answer\n".to_vec(),
            Some((&log, b"timed out\n".to_vec()))
        ));
        if mode == "claimed" {
            // The process answers itself, late: the deadline must not answer a second time.
            std::thread::sleep(Duration::from_secs(2));
            println!("own answer");
            std::process::exit(0);
        }
        // A hang: only the deadline ends it.
        std::thread::sleep(Duration::from_secs(120));
        println!("not reached");
    }

    #[test]
    fn a_hung_process_answers_and_exits_at_its_deadline() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("hooks.log");
        let out = child("hang", &log);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        assert!(stdout.contains("deadline answer"), "{stdout}");
        assert!(!stdout.contains("not reached"), "{stdout}");
        assert_eq!(std::fs::read_to_string(&log).expect("log"), "timed out\n");
    }

    #[test]
    fn an_answer_already_claimed_is_not_written_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("hooks.log");
        let out = child("claimed", &log);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        assert!(stdout.contains("own answer"), "{stdout}");
        assert!(!stdout.contains("deadline answer"), "{stdout}");
        assert!(!log.exists());
    }

    #[test]
    fn arming_twice_is_refused() {
        // In this process the first arm (if any test armed here) wins; the child tests run
        // in their own processes. Arm far in the future and disarm at once.
        if std::env::var(CHILD).is_ok() {
            return;
        }
        let first = arm(Duration::from_secs(3600), Vec::new(), None);
        let second = arm(Duration::from_secs(3600), Vec::new(), None);
        // SAFETY: cancels the alarm armed above (test process only).
        unsafe {
            libc::alarm(0);
        }
        assert!(first);
        assert!(!second);
    }
}
