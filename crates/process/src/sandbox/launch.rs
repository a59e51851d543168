//! The step launcher itself (Linux): the namespaces, the init of the step, the mounts and
//! Landlock. See the parent module for the life of a launch.

use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::AsRawFd;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::plan::{MountOp, mount_plan};
use super::sys::{self, Forked, Status};
use super::{Enforced, LAUNCH_FAILED, LaunchSpec, SandboxSpec};

/// The signals the launcher and the init take themselves (blocked, then waited for).
const HANDLED: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGCHLD];
/// How often a waiting loop looks again without a signal (a safety net, not the mechanism).
const TICK: Duration = Duration::from_millis(500);

/// Best effort (a probe: try every layer, report) or strict (a launch: every layer asked for
/// must hold, or nothing runs).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Probe,
    Strict,
}

pub(super) fn run(spec: &LaunchSpec, probe: bool, argv: Vec<OsString>) -> i32 {
    let mode = if probe { Mode::Probe } else { Mode::Strict };
    let mut report = Enforced::default();
    if let Err(e) = sys::block(&HANDLED) {
        return fail(mode, &mut report, format!("blocking signals: {e}"));
    }
    let argv = match argv
        .iter()
        .map(|a| CString::new(a.as_bytes()))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(v) => v,
        Err(_) => return fail(mode, &mut report, "an argument holds a NUL byte".into()),
    };
    // An unsandboxed look (a probe's repeat): a mount namespace only, this process the
    // subreaper of the step.
    if mode == Mode::Strict && spec.namespaces && spec.sandbox.as_ref().is_some_and(|s| s.host_look)
    {
        return match enter_namespaces(&mut report, false, false) {
            Ok(()) => looking_unsandboxed(spec, mode, report, &argv),
            Err(e) => fail(mode, &mut report, e),
        };
    }
    if spec.namespaces {
        let network = spec.sandbox.as_ref().is_some_and(|s| s.private_network);
        match enter_namespaces(&mut report, network, true) {
            Ok(()) => {}
            Err(e) if mode == Mode::Probe => report.errors.push(e),
            Err(e) => return fail(mode, &mut report, e),
        }
    }
    if report.namespaces {
        launcher(spec, mode, report, &argv)
    } else {
        // No namespaces (not asked for, or the kernel refused in a probe): this process is the
        // init of the step, as a subreaper.
        match sys::set_child_subreaper() {
            Ok(()) => report.subreaper = true,
            Err(e) if mode == Mode::Probe => report.errors.push(format!("subreaper: {e}")),
            Err(e) => return fail(mode, &mut report, format!("subreaper: {e}")),
        }
        init(spec, mode, report, &argv, false, false)
    }
}

/// The step in a mount namespace of its own and nothing else ([`SandboxSpec::host_look`]):
/// this process is its init as a subreaper (what it leaves is killed when it ends), with the
/// mounts and Landlock of the sandbox.
///
/// [`SandboxSpec::host_look`]: super::SandboxSpec::host_look
fn looking_unsandboxed(
    spec: &LaunchSpec,
    mode: Mode,
    mut report: Enforced,
    argv: &[CString],
) -> i32 {
    if let Err(e) = sys::set_child_subreaper() {
        return fail(mode, &mut report, format!("subreaper: {e}"));
    }
    report.subreaper = true;
    if let Err(e) = sys::mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    ) {
        return fail(mode, &mut report, format!("making mounts private: {e}"));
    }
    init(spec, mode, report, argv, true, false)
}

/// New user namespace when needed, then new mount and pid namespaces for the children (and a
/// network namespace with loopback up, when `network`).
fn enter_namespaces(report: &mut Enforced, network: bool, pids: bool) -> Result<(), String> {
    let net = if network { libc::CLONE_NEWNET } else { 0 };
    let pid = if pids { libc::CLONE_NEWPID } else { 0 };
    let direct = sys::unshare(libc::CLONE_NEWNS | pid | net);
    if direct.is_ok() {
        report.namespaces = true;
        return loopback_up(report, network);
    }
    let (uid, gid) = sys::ids();
    sys::unshare(libc::CLONE_NEWUSER).map_err(|e| {
        format!(
            "namespaces: unshare(mount, pid) failed ({}) and so did unshare(user): {e}",
            direct.err().map(|e| e.to_string()).unwrap_or_default()
        )
    })?;
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/self/{file}"), text)
            .map_err(|e| format!("namespaces: writing /proc/self/{file}: {e}"))
    };
    write("setgroups", "deny".into())?;
    write("uid_map", format!("{uid} {uid} 1"))?;
    write("gid_map", format!("{gid} {gid} 1"))?;
    report.user_namespace = true;
    sys::unshare(libc::CLONE_NEWNS | pid | net)
        .map_err(|e| format!("namespaces: unshare(mount, pid) in a user namespace: {e}"))?;
    report.namespaces = true;
    loopback_up(report, network)
}

/// In a new network namespace only `lo` exists, down: bring it up, so the checks' own test
/// servers on 127.0.0.1 work.
fn loopback_up(report: &mut Enforced, network: bool) -> Result<(), String> {
    if !network {
        return Ok(());
    }
    sys::interface_up("lo").map_err(|e| format!("network namespace: bringing lo up: {e}"))?;
    report.private_network = true;
    Ok(())
}

/// `L`: forks the init of the new pid namespace, forwards stop signals to it, ends as it did.
fn launcher(spec: &LaunchSpec, mode: Mode, report: Enforced, argv: &[CString]) -> i32 {
    let (alive_r, alive_w) = match std::io::pipe() {
        Ok((r, w)) => (OwnedFd::from(r), OwnedFd::from(w)),
        Err(e) => {
            let mut report = report;
            return fail(mode, &mut report, format!("pipe: {e}"));
        }
    };
    let (status_r, status_w) = match std::io::pipe() {
        Ok(p) => p,
        Err(e) => {
            let mut report = report;
            return fail(mode, &mut report, format!("pipe: {e}"));
        }
    };
    let child = match sys::fork() {
        Ok(Forked::Child) => {
            drop(alive_w);
            drop(status_r);
            // If the launcher dies, so does the init (and with it the namespace). The launcher
            // may have died before the signal was armed: its end of the pipe tells.
            if sys::set_parent_death_signal(libc::SIGKILL).is_err() || sys::pipe_hung_up(&alive_r) {
                sys::exit_now(LAUNCH_FAILED);
            }
            let code = init_in_namespace(spec, mode, report, argv, status_w);
            sys::exit_now(code)
        }
        Ok(Forked::Parent(pid)) => pid,
        Err(e) => {
            let mut report = report;
            return fail(mode, &mut report, format!("fork: {e}"));
        }
    };
    drop(alive_r);
    drop(status_w);
    loop {
        if let Some((signo, _)) = sys::wait_signal(&HANDLED, TICK)
            && signo != libc::SIGCHLD
        {
            let _ = sys::kill(child, signo);
        }
        match sys::try_wait(child) {
            Ok(None) => continue,
            Ok(Some((_, status))) => {
                drop(alive_w);
                return end_as(status, &status_r);
            }
            Err(e) => {
                drop(alive_w);
                return fail(Mode::Strict, &mut Enforced::default(), format!("wait: {e}"));
            }
        }
    }
}

/// Ends the launcher the way the agent ended: the init wrote the agent's death signal, if any,
/// on the status pipe before exiting.
fn end_as(init: Status, status: &std::io::PipeReader) -> i32 {
    use std::io::Read;
    let mut byte = [0u8; 1];
    let agent_signal = match (&*status).read(&mut byte) {
        Ok(1) => Some(libc::c_int::from(byte[0])),
        _ => None,
    };
    match (agent_signal, init) {
        (Some(signal), _) | (None, Status::Signalled(signal)) => sys::die_by(signal),
        (None, Status::Exited(code)) => code,
    }
}

/// `I` in the new namespaces: `/proc`, the sandbox, then the agent.
fn init_in_namespace(
    spec: &LaunchSpec,
    mode: Mode,
    mut report: Enforced,
    argv: &[CString],
    status: std::io::PipeWriter,
) -> i32 {
    if let Err(e) = sys::mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    ) {
        return fail(mode, &mut report, format!("making mounts private: {e}"));
    }
    match sys::mount(
        Some(Path::new("proc")),
        Path::new("/proc"),
        Some("proc"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        None,
    ) {
        Ok(()) => report.proc = true,
        // Not fatal: the old /proc shows more processes, none of which the sandbox can signal.
        Err(e) => report.errors.push(format!("mounting /proc: {e}")),
    }
    let code = init(spec, mode, report, argv, true, true);
    if let Some(signal) = AGENT_SIGNAL.get() {
        use std::io::Write;
        let _ = (&status).write_all(&[u8::try_from(*signal).unwrap_or(9)]);
    }
    code
}

static AGENT_SIGNAL: std::sync::OnceLock<libc::c_int> = std::sync::OnceLock::new();

/// The init of the step (`I`, or `L` itself without namespaces): mounts and Landlock, then the
/// agent, then reaping until the agent ends. `mounts`: in a mount namespace; `in_namespace`:
/// pid 1 of a pid namespace of its own (else a subreaper).
fn init(
    spec: &LaunchSpec,
    mode: Mode,
    mut report: Enforced,
    argv: &[CString],
    mounts: bool,
    in_namespace: bool,
) -> i32 {
    if let Some(sandbox) = &spec.sandbox {
        if mounts {
            match apply_mounts(sandbox, &mut report) {
                Ok(()) => report.mounts = true,
                Err(e) if mode == Mode::Probe => report.errors.push(e),
                Err(e) => return fail(mode, &mut report, e),
            }
        } else if mode == Mode::Strict && sandbox.has_mounts() {
            return fail(
                mode,
                &mut report,
                "read-only, hidden and private paths need mount namespaces".into(),
            );
        }
        if sandbox.landlock
            && let Err(e) = apply_landlock(sandbox, &mut report)
        {
            if mode == Mode::Strict {
                return fail(mode, &mut report, e);
            }
            report.errors.push(e);
        }
        if mode == Mode::Strict && sandbox.scope_signals && !report.signal_scope {
            return fail(mode, &mut report, "signal scoping is not available".into());
        }
        if mode == Mode::Strict && sandbox.scope_sockets && !report.socket_scope {
            return fail(mode, &mut report, "socket scoping is not available".into());
        }
        if mode == Mode::Strict && sandbox.deny_tcp && !report.tcp_denied {
            return fail(
                mode,
                &mut report,
                "TCP access control is not available".into(),
            );
        }
    }
    if mode == Mode::Probe {
        let json = serde_json::to_string(&report).unwrap_or_default();
        return super::say_stdout(&json);
    }
    let Some(program) = argv.first() else {
        return fail(mode, &mut report, "no program".into());
    };
    let agent = match sys::fork() {
        Ok(Forked::Child) => {
            sys::reset_signals(&HANDLED);
            // Without namespaces nothing kills the agent with its launcher: it gets its own
            // parent-death signal (what it starts in a new session is ended by the next pawl's
            // leftover sweep of the launcher's group, or survives: docs/sandbox.md).
            if !in_namespace && sys::set_parent_death_signal(libc::SIGKILL).is_err() {
                sys::exit_now(LAUNCH_FAILED);
            }
            let err = sys::exec(program, argv);
            let name = program.to_string_lossy();
            say_err(&format!("pawl step launcher: cannot run {name}: {err}"));
            sys::exit_now(if err.kind() == io::ErrorKind::NotFound {
                127
            } else {
                126
            })
        }
        Ok(Forked::Parent(pid)) => pid,
        Err(e) => return fail(mode, &mut report, format!("fork: {e}")),
    };
    let status = reap_until(agent, in_namespace);
    if !in_namespace {
        sweep();
    }
    match status {
        Status::Exited(code) => code,
        Status::Signalled(signal) => {
            let _ = AGENT_SIGNAL.set(signal);
            if in_namespace {
                128 + signal
            } else {
                sys::die_by(signal)
            }
        }
    }
}

/// Reaps every child until `agent` ends. A stop signal from outside is passed on: to every
/// process of the namespace (the init is pid 1 there), or to the agent without namespaces.
fn reap_until(agent: libc::pid_t, in_namespace: bool) -> Status {
    loop {
        if let Some((signo, sender)) = sys::wait_signal(&HANDLED, TICK)
            && signo != libc::SIGCHLD
        {
            // Inside the namespace a sender has a pid; the launcher (outside) shows as 0. Only
            // pawl's stop is passed on: a process of the step cannot make the init kill.
            if in_namespace && sender == 0 {
                let _ = sys::kill(-1, signo);
            } else if !in_namespace {
                let _ = sys::kill(agent, signo);
            }
        }
        loop {
            match sys::try_wait(-1) {
                Ok(Some((pid, status))) if pid == agent => return status,
                Ok(Some(_)) => continue,
                Ok(None) => break,
                // No child at all: the agent is gone without being seen (cannot happen).
                Err(_) => return Status::Exited(LAUNCH_FAILED),
            }
        }
    }
}

/// Without namespaces: kills every descendant left (each orphan is reparented to this
/// subreaper) until none is.
fn sweep() {
    loop {
        let children = children();
        for &pid in &children {
            let _ = sys::kill(pid, libc::SIGKILL);
        }
        loop {
            match sys::try_wait(-1) {
                Ok(Some(_)) => continue,
                Ok(None) => break,
                Err(_) => return, // ECHILD: nobody left
            }
        }
        if children.is_empty() {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The children of this process (every thread's list; the launcher has one thread).
fn children() -> Vec<libc::pid_t> {
    let me = sys::pid();
    std::fs::read_to_string(format!("/proc/{me}/task/{me}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn apply_mounts(spec: &SandboxSpec, report: &mut Enforced) -> Result<(), String> {
    // Everything a mount takes from the machine is opened now, before the private temp dirs
    // and the room cover the paths it is reached by: a report directory under the repository's
    // `.pawl/logs`, and with the repository or HOME under /tmp the room's tree, HOME, a cache.
    let sources = spec
        .binds
        .iter()
        .map(|b| open_path(&b.source).map_err(|e| format!("opening {}: {e}", b.source.display())))
        .collect::<Result<Vec<_>, _>>()?;
    // The copy-on-write binds' sources too (a directory under pawl's hidden state). One that
    // is not there is seen empty (a cold cache, gone with the child): nothing of the machine's.
    let cow_sources: Vec<Option<std::fs::File>> = spec
        .cow_binds
        .iter()
        .map(|b| open_dir(&b.source).ok())
        .collect();
    // A copy-on-write cache that does not exist yet (a fresh HOME with no `~/.cache`) is made,
    // empty, while its parent is still the machine's: else the tool that would create it
    // (`go test` making `~/.cache/go-build`) finds a read-only HOME and fails.
    for dir in spec.cow.iter().filter(|p| !p.exists()) {
        if dir.parent().is_some_and(Path::is_dir) {
            let _ = std::fs::create_dir(dir);
        }
    }
    let tmp: Vec<&PathBuf> = spec.private_tmp.iter().filter(|p| p.is_dir()).collect();
    let kept = kept_in_tmp(spec, &tmp)?;
    let room = match (&spec.room_at, &spec.room_tree) {
        (Some(at), Some(tree)) => Some(Room::open(spec, at, tree)?),
        _ => None,
    };
    // A private temp dir inside another (a runtime directory under a HOME under /tmp) is
    // mounted after what the outer one keeps is back: before, its path is gone with the outer
    // tmpfs.
    let private = |dir: &Path| {
        sys::mount(
            Some(Path::new("tmpfs")),
            dir,
            Some("tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV,
            Some("mode=1777"),
        )
        .map_err(|e| format!("a private {}: {e}", dir.display()))
    };
    let nested = |dir: &Path| tmp.iter().any(|t| dir != t.as_path() && dir.starts_with(t));
    for dir in tmp.iter().filter(|d| !nested(d)) {
        private(dir)?;
    }
    report.private_tmp = true;
    // What the check keeps of a private temp dir, at its own path in the fresh tmpfs.
    for (path, writable, source, is_file) in &kept {
        let made = if *is_file {
            path.parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::File::create(path).map(drop))
        } else {
            std::fs::create_dir_all(path)
        };
        made.map_err(|e| format!("creating {} in a private temp dir: {e}", path.display()))?;
        sys::mount(
            Some(&fd_path(source)),
            path,
            None,
            libc::MS_BIND | libc::MS_REC,
            None,
        )
        .and_then(|()| remount(path, !writable))
        .map_err(|e| format!("keeping {} in a private temp dir: {e}", path.display()))?;
    }
    // A nested one that is not back (in no kept directory) is private with its outer one.
    for dir in tmp.iter().filter(|d| nested(d) && d.is_dir()) {
        private(dir)?;
    }
    // The room, over the repository's path (in the private /tmp when the repository lies
    // there), before the copy-on-write caches, the binds and the plan: every later mount (a
    // hidden `.pawl/`) lands on the room's side.
    if let Some(room) = room {
        room.mount()?;
    }
    for dir in spec.cow.iter().filter(|p| p.is_dir()) {
        copy_on_write(dir).map_err(|e| format!("{} copy-on-write: {e}", dir.display()))?;
    }
    for (bind, source) in spec.cow_binds.iter().zip(&cow_sources) {
        std::fs::create_dir_all(&bind.target)
            .map_err(|e| format!("creating {}: {e}", bind.target.display()))?;
        let Some(source) = source else {
            continue;
        };
        copy_on_write_from(source, &bind.target).map_err(|e| {
            format!(
                "{} copy-on-write at {}: {e}",
                bind.source.display(),
                bind.target.display()
            )
        })?;
    }
    for (bind, source) in spec.binds.iter().zip(&sources) {
        std::fs::create_dir_all(&bind.target)
            .map_err(|e| format!("creating {}: {e}", bind.target.display()))?;
        // Through the descriptor opened before the room covered the repository's path.
        sys::mount(
            Some(&fd_path(source)),
            &bind.target,
            None,
            libc::MS_BIND | libc::MS_NOSUID | libc::MS_NODEV,
            None,
        )
        .map_err(|e| {
            format!(
                "binding {} at {}: {e}",
                bind.source.display(),
                bind.target.display()
            )
        })?;
    }
    for op in mount_plan(spec, |p| p.exists()) {
        apply_mount(&op).map_err(|e| format!("mount {op:?}: {e}"))?;
    }
    // The working directory was resolved before the mounts: it still names the directory
    // under them, and a relative path from it (`.pawl/pawl.db`) would walk around every bind.
    // Resolve it again, through the new mounts.
    let cwd = std::env::current_dir().map_err(|e| format!("the working directory: {e}"))?;
    std::env::set_current_dir(&cwd).map_err(|e| format!("entering {} again: {e}", cwd.display()))
}

/// A directory opened as a path only (`O_PATH`), to mount from once its name is covered.
fn open_path(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(path)
}

/// A file opened as a path only (`O_PATH`), to bind from once its name is covered.
fn open_file_path(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
        .open(path)
}

/// The path that reaches what `file` was opened on, whatever covers its name now.
fn fd_path(file: &std::fs::File) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()))
}

/// The directories under a private temp dir in `tmp` the check keeps seeing there, opened now,
/// outermost first, each with whether it stays writable and whether it is a file:
/// [`SandboxSpec::shown_in_tmp`] read-only (HOME's declared entries, a cache, a toolchain; a
/// file such as `~/.npmrc` too), a writable place (the check's working directory when it is not
/// the room's mount point) read-write. Nothing else of the private directories.
fn kept_in_tmp(
    spec: &SandboxSpec,
    tmp: &[&PathBuf],
) -> Result<Vec<(PathBuf, bool, std::fs::File, bool)>, String> {
    let room_at = spec.room_at.as_ref().filter(|_| spec.room_tree.is_some());
    let under_tmp = |p: &Path| tmp.iter().any(|t| p.starts_with(t) && p != t.as_path());
    let mut kept: Vec<(PathBuf, bool)> = spec
        .shown_in_tmp
        .iter()
        .map(|p| (p.clone(), false))
        .chain(spec.writable.iter().map(|p| (p.clone(), true)))
        .filter(|(p, _)| under_tmp(p) && Some(p) != room_at && (p.is_dir() || p.is_file()))
        .collect();
    kept.sort_by_key(|(p, _)| p.components().count());
    kept.dedup_by(|a, b| a.0 == b.0);
    kept.into_iter()
        .map(|(p, writable)| {
            let is_file = !p.is_dir();
            let f = if is_file {
                open_file_path(&p)
            } else {
                open_path(&p)
            }
            .map_err(|e| format!("opening {}: {e}", p.display()))?;
            Ok((p, writable, f, is_file))
        })
        .collect()
}

/// An overlay's layers, opened (kept open until the mount), and the mount data naming them.
type OverlayLayers = (Vec<std::fs::File>, String);

/// The room, opened before any mount covers its paths (its tree and scratch lie in pawl's
/// state, under HOME, which may lie under /tmp).
struct Room {
    at: PathBuf,
    tree: std::fs::File,
    /// With [`SandboxSpec::room_overlay`]: the scratch (where a failed overlay is noted) and
    /// the overlay's layers, opened and with the mount data, or why they could not be.
    overlay: Option<(Option<std::fs::File>, io::Result<OverlayLayers>)>,
}

impl Room {
    fn open(spec: &SandboxSpec, at: &Path, tree: &Path) -> Result<Room, String> {
        let tree_fd = open_path(tree).map_err(|e| format!("opening {}: {e}", tree.display()))?;
        let overlay = spec
            .room_scratch
            .as_deref()
            .filter(|_| spec.room_overlay)
            .map(|scratch| {
                let layers = room_layers(tree, scratch);
                (open_path(scratch).ok(), layers)
            });
        Ok(Room {
            at: at.to_path_buf(),
            tree: tree_fd,
            overlay,
        })
    }

    /// Mounts the room at its path (made first where it lies in a fresh private temp dir): the
    /// overlay, or the tree bound as it is when the overlay cannot be mounted (the room's next
    /// sync removes what the checks wrote; said in the scratch, where the room's owner reads
    /// it).
    fn mount(self) -> Result<(), String> {
        if !self.at.exists() {
            std::fs::create_dir_all(&self.at)
                .map_err(|e| format!("creating {} for the room: {e}", self.at.display()))?;
        }
        let overlaid = match self.overlay {
            Some((scratch, layers)) => {
                let mounted = layers.and_then(|(_open, data)| {
                    sys::mount(
                        Some(Path::new("overlay")),
                        &self.at,
                        Some("overlay"),
                        libc::MS_NOSUID | libc::MS_NODEV,
                        Some(data.as_str()),
                    )
                });
                match mounted {
                    Ok(()) => true,
                    Err(e) => {
                        if let Some(scratch) = &scratch {
                            let _ = std::fs::write(
                                fd_path(scratch).join(super::check::OVERLAY_FAILED),
                                format!("the room's overlay could not be mounted: {e}\n"),
                            );
                        }
                        false
                    }
                }
            }
            None => false,
        };
        if overlaid {
            return Ok(());
        }
        sys::mount(
            Some(&fd_path(&self.tree)),
            &self.at,
            None,
            libc::MS_BIND | libc::MS_REC,
            None,
        )
        .map_err(|e| format!("mounting the room over {}: {e}", self.at.display()))
    }
}

/// The overlay the room is seen through: the room's tree (and a kept layer of this
/// verification) below, this check's own layer on top (`check::room_layers`), made fresh now;
/// returns the layers opened (kept open until the mount) and the mount data naming them.
/// `volatile`: the layer is scratch, so the overlay never syncs the room's file system (a
/// sync on unmount of a busy disk cost a check start 10 ms and more); a layer is never mounted
/// again after a crash (each mount makes its own).
fn room_layers(tree: &Path, scratch: &Path) -> io::Result<OverlayLayers> {
    let check = std::env::var(super::check::CHECK_VAR).ok();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let safe: String = check
        .as_deref()
        .unwrap_or("process")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let layers =
        super::check::room_layers(scratch, tree, check.as_deref(), &format!("{safe}-{nanos}"));
    match std::fs::remove_dir_all(&layers.layer) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let (upper, work) = (layers.layer.join("upper"), layers.layer.join("work"));
    std::fs::create_dir_all(&upper)?;
    std::fs::create_dir_all(&work)?;
    let lower = layers
        .lower
        .iter()
        .map(|p| open_path(p))
        .collect::<io::Result<Vec<_>>>()?;
    let (upper, work) = (open_path(&upper)?, open_path(&work)?);
    let fd = |f: &std::fs::File| fd_path(f).display().to_string();
    let data = format!(
        "lowerdir={},upperdir={},workdir={},userxattr,volatile",
        lower.iter().map(fd).collect::<Vec<_>>().join(":"),
        fd(&upper),
        fd(&work)
    );
    let mut open = lower;
    open.extend([upper, work]);
    Ok((open, data))
}

/// Mounts an overlay over `dir` whose lower layer is `dir` itself and whose upper layer lives in
/// a fresh tmpfs: reads see the contents, writes are the child's alone and go with it.
fn copy_on_write(dir: &Path) -> io::Result<()> {
    let lower = open_dir(dir)?;
    copy_on_write_from(&lower, dir)
}

/// A directory opened as a path only (`O_PATH`), to be an overlay's lower layer.
fn open_dir(dir: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(dir)
}

/// Mounts an overlay over `dir` whose lower layer is the directory `lower` (opened before
/// anything covered its path) and whose upper layer lives in a fresh tmpfs: reads see its
/// contents, writes are the child's alone and go with it.
fn copy_on_write_from(lower: &std::fs::File, dir: &Path) -> io::Result<()> {
    sys::mount(
        Some(Path::new("tmpfs")),
        dir,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some("mode=0755"),
    )?;
    let (upper, work) = (dir.join("upper"), dir.join("work"));
    std::fs::create_dir(&upper)?;
    std::fs::create_dir(&work)?;
    let data = format!(
        "lowerdir=/proc/self/fd/{},upperdir={},workdir={},userxattr",
        lower.as_raw_fd(),
        upper.display(),
        work.display()
    );
    sys::mount(
        Some(Path::new("overlay")),
        dir,
        Some("overlay"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(data.as_str()),
    )
}

fn apply_mount(op: &MountOp) -> io::Result<()> {
    match op {
        MountOp::Pin(p) => sys::mount(Some(p), p, None, libc::MS_BIND | libc::MS_REC, None),
        MountOp::ReadOnly(p) => {
            sys::mount(Some(p), p, None, libc::MS_BIND | libc::MS_REC, None)?;
            remount(p, true)
        }
        MountOp::Writable(p) => {
            sys::mount(Some(p), p, None, libc::MS_BIND | libc::MS_REC, None)?;
            remount(p, false)
        }
        MountOp::Hide(p) => {
            if p.is_dir() {
                sys::mount(
                    Some(Path::new("tmpfs")),
                    p,
                    Some("tmpfs"),
                    libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    Some("size=4k,mode=0555"),
                )
            } else {
                sys::mount(Some(Path::new("/dev/null")), p, None, libc::MS_BIND, None)?;
                remount(p, true)
            }
        }
    }
}

/// Remounts the bind at `p` read-only or read-write, keeping the flags the kernel may have
/// locked (nosuid, nodev, noexec, atime: a user namespace may not drop them).
fn remount(p: &Path, read_only: bool) -> io::Result<()> {
    let st = sys::mount_flags(p)?;
    let mut flags = libc::MS_BIND | libc::MS_REMOUNT;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if st & st_flag != 0 {
            flags |= ms_flag;
        }
    }
    if read_only {
        flags |= libc::MS_RDONLY;
    }
    sys::mount(None, p, None, flags, None)
}

/// Landlock: every read, writes only below the writable roots, and (ABI 6) no signal out.
fn apply_landlock(spec: &SandboxSpec, report: &mut Enforced) -> Result<(), String> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, LandlockStatus, PathBeneath, PathFd, Ruleset,
        RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
    };
    // The newest ABI this code was written and tested against; best effort below it.
    let abi = ABI::V7;
    let err = |e: landlock::RulesetError| format!("landlock: {e}");
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(err)?;
    if spec.scope_signals {
        ruleset = ruleset.scope(Scope::Signal).map_err(err)?;
    }
    if spec.scope_sockets {
        ruleset = ruleset.scope(Scope::AbstractUnixSocket).map_err(err)?;
    }
    if spec.deny_tcp {
        // Handled with no rule: every connect(2) to a TCP port is refused.
        ruleset = ruleset.handle_access(AccessNet::ConnectTcp).map_err(err)?;
    }
    let mut created = ruleset.create().map_err(err)?;
    let root = PathFd::new("/").map_err(|e| format!("landlock: opening /: {e}"))?;
    created = created
        .add_rule(PathBeneath::new(
            root,
            AccessFs::from_read(abi) | AccessFs::IoctlDev,
        ))
        .map_err(err)?;
    // A copy-on-write directory is writable: its writes land in the check's own layer.
    for path in spec.writable.iter().chain(&spec.cow).filter(|p| p.exists()) {
        let Ok(fd) = PathFd::new(path) else {
            continue;
        };
        let access = if path.is_dir() {
            AccessFs::from_all(abi)
        } else {
            AccessFs::from_file(abi)
        };
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(err)?;
    }
    let status = created.restrict_self().map_err(err)?;
    let effective = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi as u32,
        _ => 0,
    };
    report.landlock_abi = effective;
    report.landlock = status.ruleset != RulesetStatus::NotEnforced;
    report.signal_scope = spec.scope_signals && report.landlock && effective >= 6;
    report.socket_scope = spec.scope_sockets && report.landlock && effective >= 6;
    report.tcp_denied = spec.deny_tcp && report.landlock && effective >= 4;
    if report.landlock {
        Ok(())
    } else {
        Err(format!("landlock: not enforced (kernel ABI {effective})"))
    }
}

/// A launch that cannot hold its promises: say why and run nothing. A probe still reports.
fn fail(mode: Mode, report: &mut Enforced, why: String) -> i32 {
    match mode {
        Mode::Probe => {
            report.errors.push(why);
            let json = serde_json::to_string(&report).unwrap_or_default();
            super::say_stdout(&json)
        }
        Mode::Strict => {
            say_err(&format!("pawl step launcher: {why}"));
            LAUNCH_FAILED
        }
    }
}

#[allow(clippy::print_stderr)]
fn say_err(line: &str) {
    eprintln!("{line}");
}
