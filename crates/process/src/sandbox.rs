//! Containment: every process a child starts ends with it, and a sandbox for the ones pawl must
//! not trust (headless agent steps).
//!
//! A contained [`crate::Command`] is not spawned directly: pawl starts the **step launcher** —
//! its own binary again, with the hidden first argument [`LAUNCHER_ARG`] — which sets the
//! child's world up and then runs the real argv. The launcher (`L`, the process pawl supervises,
//! in its own group, with the parent-death signal as every child):
//!
//! 1. enters new mount and pid namespaces (`unshare`; through a user namespace mapping the
//!    caller's ids to themselves when it is not privileged) and forks `I`, pid 1 of the new pid
//!    namespace. `L` forwards SIGTERM/SIGINT/SIGHUP to `I`, waits for it and ends as the agent
//!    ended (same exit code, or the same signal).
//! 2. `I` arms its own parent-death signal, makes every mount private, mounts a fresh `/proc`,
//!    applies the [`SandboxSpec`]'s mounts ([`plan::mount_plan`]: pins, read-only binds, hidden
//!    directories, writable holes) and Landlock (reads everywhere, writes only below the
//!    writable roots, no signal to a process outside the sandbox, no mount or umount), forks the
//!    agent `A` and reaps every orphan. When `A` ends, `I` ends, and the kernel kills every
//!    other process of the namespace: `setsid`, `nohup`, double forks, daemons.
//! 3. If pawl dies, `L` gets SIGKILL (parent-death signal), `I` gets its own, the namespace
//!    goes with it. [`Containment::record_dir`] also records the launcher (pid and start time)
//!    while it runs, so the next pawl can end a leftover ([`end_leftovers`]).
//!
//! Where the kernel cannot create namespaces, the launcher itself is the init of the step: a
//! child subreaper that kills every descendant left when `A` ends ([`LaunchSpec::namespaces`]
//! false). What a machine can do is asked once with [`probe`], which runs the same code and says
//! what it enforced ([`Enforced`]); a real launch then requires exactly that and fails closed
//! (exit [`LAUNCH_FAILED`]) if a layer cannot be applied.
//!
//! What this module is not: the policy. Which paths are protected and which are writable is
//! the caller's decision, passed in the spec; the launcher only applies it (a missing path is
//! skipped). Linux only; elsewhere [`probe`] reports nothing enforced.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::command::Command;
use crate::error::Error;

pub mod check;
#[cfg(target_os = "linux")]
mod launch;
pub mod plan;
#[cfg(target_os = "linux")]
mod sys;

/// The hidden first argument that makes a pawl binary act as the step launcher.
pub const LAUNCHER_ARG: &str = "__pawl-step";

/// The launcher's exit code when it could not set up what the spec asked for (nothing ran).
pub const LAUNCH_FAILED: i32 = 125;

/// What a sandboxed step may and may not touch. Paths should be absolute and resolved (no
/// symbolic links): the launcher applies them as given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSpec {
    /// Bound read-only over themselves (files or directories).
    #[serde(default)]
    pub read_only: Vec<PathBuf>,
    /// Covered by an empty read-only directory (or file): not even readable.
    #[serde(default)]
    pub hidden: Vec<PathBuf>,
    /// The only places the step may write (Landlock); one below a read-only path is bound
    /// read-write again.
    #[serde(default)]
    pub writable: Vec<PathBuf>,
    /// Apply Landlock (writes only below `writable`).
    #[serde(default)]
    pub landlock: bool,
    /// Landlock signal scoping: nothing inside may signal a process outside (pawl).
    #[serde(default)]
    pub scope_signals: bool,
    /// Landlock abstract unix socket scoping (ABI 6): nothing inside may connect to an abstract
    /// socket served outside (a session bus, an agent, a terminal multiplexer).
    #[serde(default)]
    pub scope_sockets: bool,
    /// Landlock: no outbound TCP connection at all (ABI 4). The fallback of checks where no
    /// private network namespace can be made; dropped by [`Enforced::allowed`] when one can.
    #[serde(default)]
    pub deny_tcp: bool,
    /// A network namespace of its own with only loopback up (needs `namespaces`).
    #[serde(default)]
    pub private_network: bool,
    /// The path the room is seen at (the repository's): [`SandboxSpec::room_tree`] is bound
    /// over it before every other mount, so absolute paths into the repository (virtualenv
    /// shebangs, editable installs, `node_modules` links, caches) resolve to the room. Kept by
    /// [`Enforced::allowed`] only where mounts work.
    #[serde(default)]
    pub room_at: Option<PathBuf>,
    /// The room's tree (set per verification, [`SandboxSpec::place_checks`]).
    #[serde(default)]
    pub room_tree: Option<PathBuf>,
    /// See the room through an overlay ([`check::ROOM_SCRATCH`]): the room's tree is its lower
    /// layer, never written; a check's writes land in a layer of its own, discarded at the
    /// room's next sync (the `build` check's layer is seen by the later checks of the same
    /// verification). Where the overlay cannot be mounted the room is bound as it is, and its
    /// next sync removes what the checks wrote.
    #[serde(default)]
    pub room_overlay: bool,
    /// The directory of the room's layers: `<room>/scratch` (set with [`SandboxSpec::room_tree`]
    /// when [`SandboxSpec::room_overlay`]).
    #[serde(default)]
    pub room_scratch: Option<PathBuf>,
    /// Each gets a fresh, empty, writable tmpfs, gone with the child (private temp dirs).
    #[serde(default)]
    pub private_tmp: Vec<PathBuf>,
    /// Directories under a private temp dir still seen at their path in it, read-only: a
    /// HOME or tool cache under `/tmp` (scratch clones, CI jobs, tests), bound from the
    /// machine's into the fresh tmpfs. The check's working directory is kept there too
    /// (writable), and the room is mounted there at [`SandboxSpec::room_at`]; nothing else of
    /// the machine's temp dir is.
    #[serde(default)]
    pub shown_in_tmp: Vec<PathBuf>,
    /// Each is seen copy-on-write: its contents readable, writes land in a private layer
    /// discarded with the child (caches: `~/.cache`, `~/.npm`). Needs mounts.
    #[serde(default)]
    pub cow: Vec<PathBuf>,
    /// Host directories bound read-write at a path inside (created there, in a private temp
    /// dir): where a check writes the report pawl reads afterwards.
    #[serde(default)]
    pub binds: Vec<Bind>,
    /// Host directories seen copy-on-write at another path inside (created there, in a private
    /// temp dir): the source's contents readable, writes landing in a private layer discarded
    /// with the child, the source never written. The checks' Go build cache (`GOCACHE`): a
    /// directory of pawl's own, written only by pawl's trusted builds (pawl-engine's
    /// `room::gocache`). Needs mounts.
    #[serde(default)]
    pub cow_binds: Vec<Bind>,
    /// Look like an unsandboxed process where the platform allows (issue 33's probe repeat,
    /// docs/verification.md "Probes"): no pid namespace (the machine's pids, no init of pawl's
    /// as pid 1: a subreaper ends what is left), no network namespace (the machine's
    /// interfaces; outbound and listening TCP refused by Landlock instead, so [`deny_tcp`]
    /// must be set), the machine's hostname; the mount namespace stays (pawl's state hidden,
    /// the room at the repository's path), with a user namespace only where pawl is
    /// unprivileged. Needs `namespaces`; a probe of the machine never asks it.
    ///
    /// [`deny_tcp`]: SandboxSpec::deny_tcp
    #[serde(default)]
    pub host_look: bool,
}

/// A host directory bound read-write at another path inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bind {
    pub source: PathBuf,
    pub target: PathBuf,
}

impl SandboxSpec {
    /// Places a check's processes: with a room (`room_tree`), seen at the repository's path when
    /// the room can be mounted there ([`SandboxSpec::room_at`]), else at its own path. Returns
    /// the working directory the check gets, and makes it writable (the only writable place of
    /// the tree besides the private temp dirs).
    pub fn place_checks(&mut self, repo: &Path, room_tree: Option<&Path>) -> PathBuf {
        let cwd = match room_tree {
            Some(tree) if self.room_at.as_deref() == Some(repo) => {
                self.room_tree = Some(tree.to_path_buf());
                self.room_scratch = self
                    .room_overlay
                    .then(|| tree.parent().map(|room| room.join(check::ROOM_SCRATCH)))
                    .flatten();
                repo.to_path_buf()
            }
            Some(tree) => {
                self.room_at = None;
                tree.to_path_buf()
            }
            None => {
                self.room_at = None;
                repo.to_path_buf()
            }
        };
        if !self.writable.contains(&cwd) {
            self.writable.push(cwd.clone());
        }
        self.unhide_way_to(&cwd);
        cwd
    }

    /// A check whose directory lies inside a hidden one (a story's worktree in pawl's user
    /// state) must see it: the hidden directory is replaced by its entries off the way there,
    /// level by level (the key, the other rooms and worktrees stay hidden).
    fn unhide_way_to(&mut self, cwd: &Path) {
        let mut extra: Vec<PathBuf> = Vec::new();
        for h in self.hidden.iter().filter(|h| cwd.starts_with(h)) {
            let Ok(rest) = cwd.strip_prefix(h) else {
                continue;
            };
            let mut dir = h.clone();
            for part in rest.components() {
                let next = dir.join(part);
                let entries = std::fs::read_dir(&dir).into_iter().flatten().flatten();
                extra.extend(entries.map(|e| e.path()).filter(|p| *p != next));
                dir = next;
            }
        }
        self.hidden.retain(|h| !cwd.starts_with(h));
        self.hidden.extend(extra);
    }

    /// True when the room is mounted over the repository's path.
    pub fn room_mounted(&self) -> bool {
        self.room_at.is_some() && self.room_tree.is_some()
    }

    /// Any mount asked for (they need mount namespaces).
    fn has_mounts(&self) -> bool {
        !(self.read_only.is_empty()
            && self.hidden.is_empty()
            && self.private_tmp.is_empty()
            && self.shown_in_tmp.is_empty()
            && self.cow.is_empty()
            && self.binds.is_empty()
            && self.cow_binds.is_empty()
            && !self.room_mounted())
    }
}

/// How a contained child is launched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchSpec {
    /// New pid and mount namespaces; without them the launcher is a child subreaper.
    pub namespaces: bool,
    /// The sandbox, for children pawl must not trust. Its mounts need `namespaces`.
    #[serde(default)]
    pub sandbox: Option<SandboxSpec>,
}

/// How [`Command::contain`] runs a child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Containment {
    /// A pawl binary (anything that answers [`LAUNCHER_ARG`] with [`launcher_main`]).
    pub launcher: PathBuf,
    pub spec: LaunchSpec,
    /// Where the running launcher is recorded (pid, start time, owner) until it ends.
    pub record_dir: Option<PathBuf>,
}

/// What a launch enforced (from [`probe`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Enforced {
    /// New pid and mount namespaces: the step's processes die with it.
    pub namespaces: bool,
    /// The namespaces needed a user namespace (pawl is not privileged).
    pub user_namespace: bool,
    /// A fresh `/proc` showing only the step's processes.
    pub proc: bool,
    /// Read-only binds and hidden paths could be applied.
    pub mounts: bool,
    /// The launcher is a child subreaper (the fallback without namespaces).
    pub subreaper: bool,
    /// Landlock's filesystem rules were enforced.
    pub landlock: bool,
    /// The Landlock ABI of the kernel (0: none).
    pub landlock_abi: u32,
    /// Signals to processes outside the sandbox are refused (Landlock ABI 6).
    pub signal_scope: bool,
    /// Abstract unix sockets served outside cannot be reached (Landlock ABI 6).
    #[serde(default)]
    pub socket_scope: bool,
    /// Outbound TCP connections are refused (Landlock ABI 4).
    #[serde(default)]
    pub tcp_denied: bool,
    /// A network namespace of its own, loopback only.
    #[serde(default)]
    pub private_network: bool,
    /// Fresh temp dirs (tmpfs) could be mounted.
    #[serde(default)]
    pub private_tmp: bool,
    /// Why a layer is missing.
    #[serde(default)]
    pub errors: Vec<String>,
}

impl Enforced {
    /// The layers as one word for a start line and a report: `landlock+namespaces`,
    /// `namespaces`, `landlock+subreaper`, `subreaper`, or `none`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.landlock {
            parts.push("landlock");
        }
        if self.namespaces {
            parts.push("namespaces");
        } else if self.subreaper {
            parts.push("subreaper");
        }
        if parts.is_empty() {
            "none".to_owned()
        } else {
            parts.join("+")
        }
    }

    /// The spec a real launch may ask for on this machine: `wanted`, less the layers the probe
    /// could not enforce (a real launch fails closed on anything it asks for and cannot do).
    pub fn allowed(&self, wanted: &LaunchSpec) -> LaunchSpec {
        LaunchSpec {
            namespaces: wanted.namespaces && self.namespaces,
            sandbox: wanted.sandbox.as_ref().map(|s| SandboxSpec {
                read_only: if self.mounts {
                    s.read_only.clone()
                } else {
                    Vec::new()
                },
                hidden: if self.mounts {
                    s.hidden.clone()
                } else {
                    Vec::new()
                },
                writable: s.writable.clone(),
                landlock: s.landlock && self.landlock,
                scope_signals: s.scope_signals && self.signal_scope,
                scope_sockets: s.scope_sockets && self.socket_scope,
                private_network: s.private_network && self.private_network,
                deny_tcp: s.deny_tcp
                    && self.tcp_denied
                    && !(s.private_network && self.private_network),
                room_at: s.room_at.clone().filter(|_| self.mounts),
                room_tree: s.room_tree.clone().filter(|_| self.mounts),
                room_overlay: s.room_overlay && self.mounts,
                room_scratch: s.room_scratch.clone().filter(|_| self.mounts),
                private_tmp: if self.private_tmp {
                    s.private_tmp.clone()
                } else {
                    Vec::new()
                },
                shown_in_tmp: if self.private_tmp {
                    s.shown_in_tmp.clone()
                } else {
                    Vec::new()
                },
                binds: if self.private_tmp {
                    s.binds.clone()
                } else {
                    Vec::new()
                },
                cow_binds: if self.private_tmp {
                    s.cow_binds.clone()
                } else {
                    Vec::new()
                },
                cow: if self.private_tmp {
                    s.cow.clone()
                } else {
                    Vec::new()
                },
                host_look: s.host_look && self.mounts && self.tcp_denied,
            }),
        }
    }

    /// What a check launched with `spec` (as [`Enforced::allowed`] made it) lacks of the check
    /// sandbox (docs/sandbox.md, "Checks"), each as a phrase for the report and the sandbox
    /// line; empty when nothing is missing.
    pub fn check_gaps(&self, spec: &LaunchSpec) -> Vec<&'static str> {
        let mut gaps = Vec::new();
        if !spec.namespaces {
            gaps.push("pid namespace (leftovers end by the subreaper)");
        }
        let Some(s) = &spec.sandbox else {
            gaps.push("the check sandbox (not asked for)");
            return gaps;
        };
        if s.room_at.is_none() {
            gaps.push("the room at the repository's path (checks run at the room's own path)");
        }
        if s.hidden.is_empty() {
            gaps.push("pawl's state hidden (readable: the evidence key, logs, the rooms)");
        }
        if s.private_tmp.is_empty() {
            gaps.push(
                "private temp dirs (the machine's /tmp, /var/tmp and /dev/shm are shared with every check and the agent, readable and writable, and so is what lies there: a repository or HOME under /tmp)",
            );
        }
        if !s.landlock {
            gaps.push("Landlock (writes are not limited to the room)");
        }
        if !s.scope_signals {
            gaps.push("signal scoping");
        }
        if !s.scope_sockets {
            gaps.push("abstract unix socket scoping");
        }
        if !s.private_network && !s.deny_tcp {
            gaps.push("network containment (no private network, outbound TCP allowed)");
        }
        gaps
    }

    /// The reason a check's verdict is capped at REVIEW on this machine: pawl's key cannot be
    /// hidden from a check launched with `spec` (no mount namespace to hide pawl's state, and
    /// Landlock cannot carve an unreadable hole out of a readable tree). `None` when it is
    /// hidden. The verdict wiring reads it.
    pub fn key_exposure(&self, spec: &LaunchSpec) -> Option<String> {
        let hidden = spec.namespaces && spec.sandbox.as_ref().is_some_and(|s| !s.hidden.is_empty());
        (!hidden).then(|| {
            "pawl's state (the evidence key) is readable by the checks on this machine: no mount namespace".to_owned()
        })
    }
}

/// The launcher's argv (after the program): `__pawl-step <spec> -- <program> <args...>`.
pub(crate) fn launcher_args(
    spec: &LaunchSpec,
    program: &Path,
    args: impl IntoIterator<Item = OsString>,
) -> Vec<OsString> {
    let json = serde_json::to_string(spec).unwrap_or_else(|_| "{}".to_owned());
    let mut out = vec![
        OsString::from(LAUNCHER_ARG),
        OsString::from(json),
        OsString::from("--"),
        program.as_os_str().to_owned(),
    ];
    out.extend(args);
    out
}

/// The launcher's entry point: `args` are the arguments after [`LAUNCHER_ARG`]
/// (`[--probe] <spec-json> [-- <program> <args...>]`, or `--own-tmp <program> <args...>`: a
/// check's test process run with a temporary directory of its own, [`check::cargo_runner_vars`]).
/// Returns the exit code when it returns at all (a launch ends by exiting or dying as the agent
/// did).
pub fn launcher_main(args: Vec<OsString>) -> i32 {
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|a| a == check::OWN_TMP_ARG) {
        args.next();
        return check::run_with_own_tmp(args.collect());
    }
    let probe = args.peek().is_some_and(|a| a == "--probe");
    if probe {
        args.next();
    }
    let Some(spec) = args.next() else {
        return usage("missing the spec");
    };
    let spec: LaunchSpec = match serde_json::from_str(&spec.to_string_lossy()) {
        Ok(s) => s,
        Err(e) => return usage(&format!("bad spec: {e}")),
    };
    let argv: Vec<OsString> = match args.next() {
        Some(sep) if sep == "--" => args.collect(),
        None if probe => Vec::new(),
        _ => return usage("expected -- <program> <args...>"),
    };
    if argv.is_empty() && !probe {
        return usage("no program to run");
    }
    run_launcher(&spec, probe, argv)
}

#[cfg(target_os = "linux")]
fn run_launcher(spec: &LaunchSpec, probe: bool, argv: Vec<OsString>) -> i32 {
    launch::run(spec, probe, argv)
}

#[cfg(not(target_os = "linux"))]
fn run_launcher(_spec: &LaunchSpec, probe: bool, argv: Vec<OsString>) -> i32 {
    if probe {
        let report = serde_json::to_string(&Enforced::default()).unwrap_or_default();
        return say_stdout(&report);
    }
    usage_fail(&argv)
}

#[cfg(not(target_os = "linux"))]
fn usage_fail(_argv: &[OsString]) -> i32 {
    usage("containment needs Linux")
}

#[allow(clippy::print_stderr)]
fn usage(why: &str) -> i32 {
    eprintln!("pawl step launcher: {why}");
    LAUNCH_FAILED
}

#[allow(clippy::print_stdout)]
pub(crate) fn say_stdout(line: &str) -> i32 {
    println!("{line}");
    0
}

/// What `launcher` can enforce on this machine when asked for `spec`: runs it in probe mode
/// (the same code as a launch, best effort, nothing executed) and reads its report.
pub fn probe(launcher: &Path, spec: &LaunchSpec) -> Result<Enforced, Error> {
    let json = serde_json::to_string(spec).unwrap_or_else(|_| "{}".to_owned());
    // From `/`: the probe learns what the kernel can enforce, not whether the caller's own
    // directory (a directory under a /tmp the spec makes private, say) survives the mounts.
    let outcome = Command::new(launcher)
        .args([OsString::from(LAUNCHER_ARG), "--probe".into(), json.into()])
        .current_dir("/")
        .env_clear()
        .capture_stdout(true)
        .timeout(Duration::from_secs(60))
        .grace(Duration::from_millis(200))
        .run()?;
    let text = outcome
        .stdout
        .full
        .as_deref()
        .map(String::from_utf8_lossy)
        .unwrap_or_default()
        .into_owned();
    let report = text
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<Enforced>(l).ok());
    Ok(report.unwrap_or_else(|| Enforced {
        errors: vec![format!(
            "the launcher {} gave no report ({}): {}",
            launcher.display(),
            outcome.end,
            outcome.combined_tail_text().trim()
        )],
        ..Enforced::default()
    }))
}

/// One recorded launcher: who started it and which process it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Record {
    pid: u32,
    start: u64,
    owner: u32,
    owner_start: u64,
}

/// The start time of process `pid` (field 22 of `/proc/<pid>/stat`, in clock ticks since
/// boot): with the pid, it names one process, never a later one that reused the number.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from the last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Records a launcher that has just started (`<dir>/<pid>.json`); best effort.
pub(crate) fn record(dir: &Path, pid: u32) -> Option<PathBuf> {
    let me = std::process::id();
    let rec = Record {
        pid,
        start: start_time(pid)?,
        owner: me,
        owner_start: start_time(me)?,
    };
    std::fs::create_dir_all(dir).ok()?;
    let path = dir.join(format!("{pid}.json"));
    let text = serde_json::to_string(&rec).ok()?;
    std::fs::write(&path, text).ok()?;
    Some(path)
}

/// Ends every launcher recorded in `dir` whose owner (the pawl that started it) is gone and
/// which is still the same process (pid and start time match), with its whole process group;
/// removes the records of launchers that are gone. Returns the pids it killed.
pub fn end_leftovers(dir: &Path) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut killed = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(rec) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<Record>(&t).ok())
        else {
            let _ = std::fs::remove_file(&path);
            continue;
        };
        if start_time(rec.owner) == Some(rec.owner_start) {
            continue; // its pawl still runs it
        }
        if start_time(rec.pid) == Some(rec.start) {
            let _ = crate::sys::signal_group(rec.pid, crate::Signal::Kill);
            let _ = crate::sys::signal_pid(rec.pid, crate::Signal::Kill);
            killed.push(rec.pid);
        }
        let _ = std::fs::remove_file(&path);
    }
    killed
}

/// The writable paths every sandboxed program needs besides its own: the device files a
/// program writes to (`/dev/null`, terminals) and the shared temporary directories.
pub fn system_writable() -> Vec<PathBuf> {
    [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/tty",
        "/dev/ptmx",
        "/dev/pts",
        "/dev/shm",
        "/tmp",
        "/var/tmp",
    ]
    .iter()
    .map(PathBuf::from)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_the_layers() {
        let rows = [
            (true, true, false, "landlock+namespaces"),
            (false, true, false, "namespaces"),
            (true, false, true, "landlock+subreaper"),
            (false, false, true, "subreaper"),
            (false, false, false, "none"),
        ];
        for (landlock, namespaces, subreaper, want) in rows {
            let e = Enforced {
                landlock,
                namespaces,
                subreaper,
                ..Enforced::default()
            };
            assert_eq!(e.summary(), want);
        }
    }

    #[test]
    fn a_launch_asks_only_for_what_the_probe_enforced() {
        let wanted = LaunchSpec {
            namespaces: true,
            sandbox: Some(SandboxSpec {
                read_only: vec!["/r/.pawl".into()],
                hidden: vec!["/h/state".into()],
                writable: vec!["/r".into()],
                landlock: true,
                scope_signals: true,
                ..SandboxSpec::default()
            }),
        };
        let full = Enforced {
            namespaces: true,
            mounts: true,
            landlock: true,
            signal_scope: true,
            ..Enforced::default()
        };
        assert_eq!(full.allowed(&wanted), wanted);
        let bare = Enforced {
            subreaper: true,
            ..Enforced::default()
        };
        let got = bare.allowed(&wanted);
        assert!(!got.namespaces);
        let s = got.sandbox.unwrap_or_default();
        assert!(s.read_only.is_empty() && s.hidden.is_empty());
        assert!(!s.landlock && !s.scope_signals);
        assert_eq!(s.writable, vec![PathBuf::from("/r")]);
    }

    #[test]
    fn start_time_names_this_process() {
        let me = std::process::id();
        assert!(start_time(me).is_some());
        assert_eq!(start_time(me), start_time(me));
        assert_eq!(start_time(u32::MAX), None);
    }
}
