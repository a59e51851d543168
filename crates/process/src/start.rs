//! What pawl's entry point asks of the system before its work (crates/cli/src/main.rs).
//!
//! `pawl` has its own C `main` instead of std's runtime start-up: the agent CLIs start
//! `pawl hook` on every tool call, and std's start-up reads `/proc/self/maps` to place a guard
//! page under the main thread's stack (glibc's `pthread_getattr_np`) and maps an alternate
//! signal stack, which together cost a tenth of starting `/bin/true` (docs/hooks.md, "What a
//! hook costs"). [`init`] does what pawl needs of that start-up; a stack overflow then ends the
//! process with SIGSEGV instead of a message first.
//!
//! [`pin_name_services`] is for a `pawl` linked with glibc in (crates/cli/build.rs): it makes
//! glibc resolve host names from `/etc/hosts` and DNS, which it has built in, and never load a
//! name-service module of the system at run time.
#![allow(unsafe_code)]

/// What std's runtime start-up does that pawl relies on:
/// - SIGPIPE ignored: a reader that went away is an `EPIPE` error pawl handles (`pawl status |
///   head` exits 0, a hook's answer to a CLI that gave up is dropped), never death by signal.
///   Children still start with SIGPIPE at its default (std's `Command` resets it).
/// - The standard descriptors open: one the caller closed is opened on `/dev/null`, so that no
///   file pawl opens later takes its number and receives what was meant for the terminal.
pub fn init() {
    #[cfg(unix)]
    {
        // SAFETY: setting a signal's disposition to SIG_IGN, before any thread exists.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        open_standard_descriptors();
    }
}

/// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed (one `poll` when all
/// are open, as std does).
#[cfg(unix)]
fn open_standard_descriptors() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    let closed: Vec<bool> = loop {
        // SAFETY: `fds` is a valid array of three pollfd for the call's duration.
        if unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) } != -1 {
            break fds
                .iter()
                .map(|p| p.revents & libc::POLLNVAL != 0)
                .collect();
        }
        let err = std::io::Error::last_os_error();
        if err.kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        // poll refused (EINVAL, ENOMEM): ask each descriptor.
        // SAFETY: fcntl(F_GETFD) on a small integer only reads the descriptor table.
        break (0..3)
            .map(|fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1)
            .collect();
    };
    for (fd, closed) in closed.into_iter().enumerate() {
        if closed {
            // The lowest free number: the closed one, as they are opened in order.
            // SAFETY: a NUL-terminated path and plain flags; the descriptor is kept open.
            let got = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
            if got != fd as libc::c_int {
                // Nothing sensible is left to do: as std, end here.
                std::process::abort();
            }
        }
    }
}

/// Makes glibc resolve host names (`hosts`) from `/etc/hosts` and DNS, and users (`passwd`,
/// `group`: tokio-postgres asks for the user's name) from `/etc/passwd` and `/etc/group`,
/// whatever `/etc/nsswitch.conf` lists. For a `pawl` linked with glibc in: those services are
/// built into it, while any other module (`mdns4_minimal`, `resolve`, `myhostname`, `systemd`,
/// `sss`, LDAP) would be loaded at run time with the system's shared glibc, which breaks when
/// that glibc is not the one `pawl` was linked with. Once per process; costs one read of
/// `/etc/nsswitch.conf`, so it is called where names may be looked up, not on a hook.
pub fn pin_name_services() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            unsafe extern "C" {
                /// glibc (<nss.h>): replaces the services nsswitch.conf lists for a database.
                fn __nss_configure_lookup(
                    db: *const libc::c_char,
                    service_line: *const libc::c_char,
                ) -> libc::c_int;
            }
            for (db, services) in [
                (c"hosts", c"files dns"),
                (c"passwd", c"files"),
                (c"group", c"files"),
            ] {
                // SAFETY: two NUL-terminated strings that outlive the call; glibc copies what
                // it keeps. A failure leaves nsswitch.conf's services in place.
                let _ = unsafe { __nss_configure_lookup(db.as_ptr(), services.as_ptr()) };
            }
        });
    }
}
