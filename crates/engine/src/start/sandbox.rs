//! The sandboxes of a run on this machine (docs/sandbox.md): what a headless agent step may
//! not touch and where it may write ([`wanted`]), what the kernel can enforce (pawl-process's
//! probe, run through pawl's own binary, the launcher), the plan and its start line, the
//! containment of the checks ([`check_containment`], [`check_report`]), and the leftovers of a
//! killed pawl ([`end_leftovers`]).
//!
//! Not here: the launcher and the kernel calls (pawl-process's `sandbox`), the decision
//! (`pawl_core::sandbox::decide`), the step's mailbox (the CLI, which carries its requests out
//! as its own commands).

use std::path::{Path, PathBuf};

use pawl_core::EventKind;
use pawl_core::config::SandboxConfig;
use pawl_core::home::PERSISTENCE_IN_HOME;
use pawl_core::sandbox::{Capabilities, SandboxPlan};
use pawl_process::sandbox::{self as launch, LaunchSpec, SandboxSpec};
use pawl_process::{Containment, Enforced};
use pawl_store::Store;
use serde_json::json;

use super::StartError;
use crate::STATE_DIR;

/// The step mailbox under `.pawl/`.
pub const REQUESTS_DIR: &str = "requests";
/// Where running launchers are recorded under `.pawl/`.
pub const STEPS_DIR: &str = "steps";

/// The toolchain directories under HOME (as data): read-only to a step, so a step cannot put a
/// `git`, `rustc`, `node` or `python` of its own where pawl's next run, its checks or the
/// user's next shell would run it (issue 31). A directory absent when the step starts and made
/// by it is removed after the step ([`check_created`]): everything in it is the step's.
/// Installing into them is the user's act (the guard denies global installs in a step too).
pub const TOOLCHAINS_IN_HOME: &[&str] = &[
    ".cargo/bin",
    ".rustup/toolchains",
    ".rustup/settings.toml",
    ".local/bin",
    ".nvm/versions",
    ".nvm/nvm.sh",
    ".volta/bin",
    ".volta/tools",
    ".pyenv/versions",
    ".pyenv/shims",
    ".asdf/installs",
    ".asdf/shims",
    ".local/share/mise/installs",
    ".local/share/mise/shims",
    ".bun/bin",
    ".deno/bin",
    "go/bin",
    ".sdkman/candidates",
    ".ghcup/bin",
    ".nix-profile",
    ".linuxbrew",
];

/// The container daemons' sockets (root-equivalent: a container can mount anything of the
/// host): hidden from steps and checks unless `[sandbox] containers = true` (issue 31). Paths
/// in the user's runtime directory are relative to it.
pub const CONTAINER_SOCKETS: &[&str] = &[
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/podman/podman.sock",
    "/run/containerd/containerd.sock",
    "/var/run/containerd/containerd.sock",
    "/run/buildkit/buildkitd.sock",
];

/// [`CONTAINER_SOCKETS`] relative to the user's runtime directory (rootless daemons).
const CONTAINER_SOCKETS_IN_RUNTIME: &[&str] = &[
    "docker.sock",
    "podman/podman.sock",
    "containerd/containerd.sock",
];

/// The container sockets of this machine that exist now.
pub fn container_sockets() -> Vec<PathBuf> {
    let runtime = env_dir("XDG_RUNTIME_DIR");
    existing(
        CONTAINER_SOCKETS.iter().map(PathBuf::from).chain(
            runtime
                .iter()
                .flat_map(|r| CONTAINER_SOCKETS_IN_RUNTIME.iter().map(move |p| r.join(p))),
        ),
    )
}

/// The user's session servers: each runs what any client asks, outside every sandbox — a tmux
/// server (`run-shell`, `new-window`), a screen session, the session bus and the user's service
/// manager (`systemd-run --user`). Hidden from steps and checks (issue 31): a step that reached
/// one would run a command with the user's full rights. Where they live, as data: `(variable,
/// default, entries)` — the directory is `$variable` when set, `default` otherwise; `entries`
/// are the names in it to hide (`*` at the end: every name with that start; empty: the
/// directory itself).
pub const SESSION_SERVERS: &[(&str, &str, &[&str])] = &[
    // tmux: `${TMUX_TMPDIR:-/tmp}/tmux-<uid>/<socket>`.
    ("TMUX_TMPDIR", "/tmp", &["tmux-*"]),
    // screen: `$SCREENDIR`, or the system's `/run/screen/S-<user>/`.
    ("SCREENDIR", "/run/screen", &[]),
    ("", "/var/run/screen", &[]),
    // The session bus and the user's service manager, in the user's runtime directory.
    ("XDG_RUNTIME_DIR", "", &["bus", "systemd", "dbus-1"]),
];

/// The session servers' sockets of this machine that exist now ([`SESSION_SERVERS`], and the
/// session bus's path when `DBUS_SESSION_BUS_ADDRESS` names one elsewhere).
pub fn session_servers() -> Vec<PathBuf> {
    // The user's tmux directory is made (as tmux makes it: `tmux-<uid>`, mode 0700) when no
    // server runs yet, so that one started during the run is hidden too.
    make_tmux_dir(&env_dir("TMUX_TMPDIR").unwrap_or_else(|| PathBuf::from("/tmp")));
    let mut found: Vec<PathBuf> = Vec::new();
    for (var, default, entries) in SESSION_SERVERS {
        let dir = (!var.is_empty())
            .then(|| env_dir(var))
            .flatten()
            .or_else(|| (!default.is_empty()).then(|| PathBuf::from(default)));
        let Some(dir) = dir else { continue };
        if entries.is_empty() {
            found.push(dir);
            continue;
        }
        for entry in *entries {
            match entry.strip_suffix('*') {
                Some(start) => found.extend(
                    std::fs::read_dir(&dir)
                        .into_iter()
                        .flatten()
                        .flatten()
                        .filter(|e| e.file_name().to_string_lossy().starts_with(start))
                        .map(|e| e.path()),
                ),
                None => found.push(dir.join(entry)),
            }
        }
    }
    found.extend(bus_paths(
        &std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_default(),
    ));
    existing(found)
}

/// Makes this user's tmux directory in `tmp` (`tmux-<uid>`, mode 0700) when it is missing.
fn make_tmux_dir(tmp: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
    let me = std::fs::metadata("/proc/self").ok()?;
    let dir = tmp.join(format!("tmux-{}", me.uid()));
    if !dir.exists() {
        std::fs::DirBuilder::new().mode(0o700).create(&dir).ok()?;
    }
    Some(dir)
}

/// The socket paths of a D-Bus address (`unix:path=/run/user/1000/bus;unix:abstract=...`):
/// abstract sockets are scoped by Landlock, paths must be hidden.
fn bus_paths(address: &str) -> Vec<PathBuf> {
    address
        .split(';')
        .filter_map(|a| a.strip_prefix("unix:"))
        .flat_map(|keys| keys.split(','))
        .filter_map(|kv| kv.strip_prefix("path="))
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .collect()
}

/// The paths of `paths` that exist, resolved, each once.
fn existing(paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    paths
        .into_iter()
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .map(resolved)
        .fold(Vec::new(), |mut all, p| {
            if !all.contains(&p) {
                all.push(p);
            }
            all
        })
}

/// The resolved path of this pawl binary: the launcher, and a path the sandbox protects.
pub fn launcher() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// `p` resolved when it exists (symbolic links followed: the launcher binds what a program
/// opening `p` reaches), as given otherwise.
fn resolved(p: PathBuf) -> PathBuf {
    std::fs::canonicalize(&p).unwrap_or(p)
}

fn env_dir(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// What a sandboxed step of the repository at `root` may not touch and where it may write.
pub fn wanted(root: &Path, config: &SandboxConfig) -> SandboxSpec {
    let home = env_dir("HOME");
    let state = root.join(STATE_DIR);
    let mut read_only: Vec<PathBuf> = vec![
        state.clone(),
        root.join(".git/config"),
        root.join(".git/hooks"),
        root.join(".git/info"),
        root.join(".claude/settings.json"),
        root.join(".claude/settings.local.json"),
        root.join(".codex"),
        root.join(".gemini/settings.json"),
    ];
    if let Some(home) = &home {
        read_only.push(home.join(".claude/settings.json"));
        read_only.push(home.join(".codex/config.toml"));
        read_only.push(home.join(".codex/hooks.json"));
        read_only.push(home.join(".gemini/settings.json"));
    }
    if let Some(dir) = env_dir("CODEX_HOME") {
        read_only.push(dir.join("config.toml"));
        read_only.push(dir.join("hooks.json"));
    }
    if let Some(dir) = env_dir("CLAUDE_CONFIG_DIR") {
        read_only.push(dir.join("settings.json"));
    }
    if let Some(exe) = launcher() {
        read_only.push(exe);
    }
    if let Some(home) = &home {
        read_only.extend(TOOLCHAINS_IN_HOME.iter().map(|p| home.join(p)));
        // HOME's persistence places (a shell rc file, autostart, git's global configuration):
        // read-only where they exist; a step that makes one is found after it (`super::home`).
        read_only.extend(PERSISTENCE_IN_HOME.iter().map(|(p, _)| home.join(p)));
    }
    let mut hidden: Vec<PathBuf> = crate::user_state_dir().into_iter().collect();
    hidden.extend(session_servers());
    if !config.containers {
        hidden.extend(container_sockets());
    }
    let mut writable = vec![root.to_path_buf(), state.join(REQUESTS_DIR)];
    writable.extend(launch::system_writable());
    writable.extend(env_dir("TMPDIR"));
    writable.extend(home.clone());
    // The agents' own homes when they live elsewhere: sessions, logs, caches.
    writable.extend(env_dir("CODEX_HOME"));
    writable.extend(env_dir("CLAUDE_CONFIG_DIR"));
    for extra in &config.writable {
        let path = match (extra.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(extra),
        };
        if path.is_absolute() {
            writable.push(path);
        } else {
            writable.push(root.join(path));
        }
    }
    let dedup = |v: Vec<PathBuf>| {
        let mut out: Vec<PathBuf> = Vec::new();
        for p in v.into_iter().map(resolved) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    };
    SandboxSpec {
        read_only: dedup(read_only),
        hidden: dedup(hidden),
        writable: dedup(writable),
        landlock: true,
        scope_signals: true,
        // Abstract sockets served outside (a session bus, an agent, a multiplexer) are out of
        // reach as signals are; steps keep the network (the agent CLI talks to its model).
        scope_sockets: true,
        ..SandboxSpec::default()
    }
}

/// The capabilities a probe showed, as the decision reads them.
pub fn capabilities(e: &Enforced) -> Capabilities {
    Capabilities {
        namespaces: e.namespaces,
        mounts: e.mounts,
        landlock: e.landlock,
        signal_scope: e.signal_scope,
        subreaper: e.subreaper,
    }
}

/// How the run's steps are launched: the plan (for the start line and the report) and the
/// containment to give every step. Refuses (`[sandbox] required = true`) when the machine
/// cannot sandbox.
pub struct StepLaunch {
    pub plan: SandboxPlan,
    pub enforced: Enforced,
    pub containment: Option<Containment>,
    /// The protected paths that do not exist yet: nothing can be bound over them, so a step
    /// that creates one is caught after it ([`check_created`]).
    pub absent: Vec<PathBuf>,
}

/// Probes this machine for the repository at `root` and decides.
pub fn prepare(root: &Path, config: &SandboxConfig) -> Result<StepLaunch, StartError> {
    launch_for(root, config.enabled.then(|| wanted(root, config)), config)
}

/// [`prepare`] for the steps of a story worked on in the worktree `tree` of the repository at
/// `main` (docs/parallel.md): the worktree is the tree the agent writes; the repository's
/// `.pawl/` and git settings stay read-only (the mailbox writable), so pawl inside the step
/// finds a read-only store and refuses run control there as in any step.
pub fn prepare_story(
    main: &Path,
    tree: &Path,
    config: &SandboxConfig,
) -> Result<StepLaunch, StartError> {
    let spec = config.enabled.then(|| {
        let mut spec = wanted(tree, config);
        let state = main.join(STATE_DIR);
        for p in [
            state.clone(),
            main.join(".git/config"),
            main.join(".git/hooks"),
            main.join(".git/info"),
        ] {
            let p = resolved(p);
            if !spec.read_only.contains(&p) {
                spec.read_only.push(p);
            }
        }
        spec.writable.push(resolved(state.join(REQUESTS_DIR)));
        // The worktree's own git directory (its index and HEAD), so the agent's git works there.
        if let Some(gitdir) = std::fs::read_to_string(tree.join(".git"))
            .ok()
            .and_then(|t| t.strip_prefix("gitdir:").map(|g| PathBuf::from(g.trim())))
        {
            spec.writable.push(resolved(gitdir));
        }
        spec
    });
    launch_for(main, spec, config)
}

/// The launch of steps whose pawl state is `root/.pawl`, with `sandbox` when it is wanted.
fn launch_for(
    root: &Path,
    sandbox: Option<SandboxSpec>,
    config: &SandboxConfig,
) -> Result<StepLaunch, StartError> {
    let state = root.join(STATE_DIR);
    // The mailbox must exist before the step: the launcher opens it as a writable hole.
    let requests = state.join(REQUESTS_DIR);
    std::fs::create_dir_all(&requests)
        .map_err(|e| StartError::Failed(format!("cannot create {}: {e}", requests.display())))?;
    let wanted = LaunchSpec {
        namespaces: true,
        sandbox,
    };
    let (enforced, launcher) = match launcher() {
        Some(exe) => match launch::probe(&exe, &wanted) {
            Ok(e) => (e, Some(exe)),
            Err(e) => (
                Enforced {
                    errors: vec![format!("the launcher did not run: {e}")],
                    ..Enforced::default()
                },
                None,
            ),
        },
        None => (
            Enforced {
                errors: vec!["this pawl cannot find its own binary".into()],
                ..Enforced::default()
            },
            None,
        ),
    };
    let plan = pawl_core::sandbox::decide(config, &capabilities(&enforced))
        .map_err(StartError::Refused)?;
    let containment = launcher
        .filter(|_| enforced.namespaces || enforced.subreaper)
        .map(|launcher| Containment {
            launcher,
            spec: enforced.allowed(&wanted),
            record_dir: Some(state.join(STEPS_DIR)),
        });
    // HOME's persistence places are compared before and after every step (`super::home`).
    let persistence: Vec<PathBuf> = env_dir("HOME")
        .map(|h| {
            PERSISTENCE_IN_HOME
                .iter()
                .flat_map(|(p, _)| [h.join(p), resolved(h.join(p))])
                .collect()
        })
        .unwrap_or_default();
    let absent = containment
        .as_ref()
        .and_then(|c| c.spec.sandbox.as_ref())
        .map(|s| {
            s.read_only
                .iter()
                .filter(|p| std::fs::symlink_metadata(p).is_err() && !persistence.contains(p))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    Ok(StepLaunch {
        plan,
        enforced,
        containment,
        absent,
    })
}

/// After a step: a protected path that was absent and now exists was made by the step (a hook
/// settings file the agent CLI would load next time, outside any sandbox in session mode). A
/// file is removed (it did not exist before the step), and so is a toolchain directory
/// ([`TOOLCHAINS_IN_HOME`]); another directory is left, and said. Each is
/// recorded (`protected_created`); the paths found stay in `absent` no longer.
pub fn check_created(store: &mut Store, run_id: &str, absent: &mut Vec<PathBuf>) {
    let (created, still): (Vec<PathBuf>, Vec<PathBuf>) = std::mem::take(absent)
        .into_iter()
        .partition(|p| std::fs::symlink_metadata(p).is_ok());
    *absent = still;
    let home = env_dir("HOME");
    let toolchain = |p: &Path| {
        home.as_ref()
            .is_some_and(|h| TOOLCHAINS_IN_HOME.iter().any(|t| resolved(h.join(t)) == p))
    };
    for path in created {
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        let removed = if is_dir {
            // A toolchain directory the step made holds only what the step put there.
            toolchain(&path) && std::fs::remove_dir_all(&path).is_ok()
        } else {
            std::fs::remove_file(&path).is_ok()
        };
        let _ = store.append_event(
            Some(run_id),
            EventKind::ProtectedCreated,
            json!({"path": path.display().to_string(), "removed": removed}),
        );
    }
}

/// How checks are launched on this machine: every process a check starts under the check
/// sandbox (pawl-process's `sandbox::check`: the room at the repository's path, pawl's state
/// and the user's agent and shell configuration hidden, writes only in the room and private
/// temp dirs, no signal or abstract socket out, loopback only unless `[room] network`), as
/// far as the kernel allows; in their own pid namespace or under a subreaper at least; `None`
/// when neither works (spawned directly). Probed once per process.
pub fn check_containment(root: &Path, network: bool, containers: bool) -> Option<Containment> {
    containment_seeing_home(root, network, containers, false)
}

/// [`check_containment`] for the independent tester's command, which runs before the run's
/// first step: HOME is seen whole, read-only (a user's tester script there runs), pawl's state
/// and HOME's hidden entries still hidden. Nothing a step wrote can be in HOME yet, so there is
/// no answer there to plant; the checks themselves never get this.
pub fn tester_containment(root: &Path, network: bool, containers: bool) -> Option<Containment> {
    containment_seeing_home(root, network, containers, true)
}

fn containment_seeing_home(
    root: &Path,
    network: bool,
    containers: bool,
    home_seen: bool,
) -> Option<Containment> {
    let (launcher, enforced) = check_probe(root, network, containers)?;
    let wanted = check_wanted(root, network, containers, home_seen);
    (enforced.namespaces || enforced.subreaper).then(|| Containment {
        launcher: launcher.clone(),
        spec: enforced.allowed(&wanted),
        record_dir: Some(root.join(STATE_DIR).join(STEPS_DIR)),
    })
}

/// Set to `1`, the checks get the Landlock-only fallback on a machine that has namespaces: how
/// the tests and CI run the fallback leg (docs/sandbox.md). It only ever takes layers away, and
/// what is missing is recorded as on a machine without namespaces (pawl's key readable by the
/// checks: the verdict is at most REVIEW).
pub const CHECKS_WITHOUT_NAMESPACES: &str = "PAWL_CHECKS_WITHOUT_NAMESPACES";

fn check_wanted(root: &Path, network: bool, containers: bool, home_seen: bool) -> LaunchSpec {
    LaunchSpec {
        namespaces: std::env::var(CHECKS_WITHOUT_NAMESPACES).as_deref() != Ok("1"),
        sandbox: Some(launch::check::check_sandbox(&check_world(
            root, network, containers, home_seen,
        ))),
    }
}

/// Keeps `programs` (files outside the repository the checks start: `Seal::programs`) in sight
/// of the checks `containment` launches: their installation prefixes are shown again, read-only,
/// where they lie in HOME or above the repository (pawl-process's `sandbox::check::
/// keep_programs`). Nothing without a check sandbox or where it has no private directories.
pub fn keep_programs(containment: &mut Option<Containment>, root: &Path, programs: &[String]) {
    let Some(sandbox) = containment.as_mut().and_then(|c| c.spec.sandbox.as_mut()) else {
        return;
    };
    if programs.is_empty() || sandbox.private_tmp.is_empty() {
        return;
    }
    // The repository the sandbox was made for (a story's worktree sees the main one's path).
    let repo = sandbox
        .room_at
        .clone()
        .unwrap_or_else(|| root.to_path_buf());
    // What the network and the container sockets change is the same with or without the
    // programs: only the places they add count.
    let mut world = check_world(&repo, false, false, false);
    world.programs = programs.iter().map(PathBuf::from).collect();
    launch::check::keep_programs(sandbox, &world);
}

/// What the checks of the repository at `root` see of this machine (pawl-process's
/// `CheckWorld`).
fn check_world(
    root: &Path,
    network: bool,
    containers: bool,
    home_seen: bool,
) -> launch::check::CheckWorld {
    launch::check::CheckWorld {
        repo: root.to_path_buf(),
        state: crate::user_state_dir()
            .into_iter()
            .chain([root.join(STATE_DIR)])
            .map(resolved)
            .collect(),
        home: env_dir("HOME"),
        hidden: ["CODEX_HOME", "CLAUDE_CONFIG_DIR"]
            .iter()
            .filter_map(|v| env_dir(v))
            .chain(if containers {
                Vec::new()
            } else {
                container_sockets()
            })
            .chain(session_servers())
            .collect(),
        runtime_dir: env_dir("XDG_RUNTIME_DIR"),
        network,
        caches: launch::check::COPY_ON_WRITE_VARS
            .iter()
            .filter_map(|v| env_dir(v))
            .filter(|d| d.is_dir())
            .collect(),
        // The toolchains the environment names.
        kept: launch::check::kept_dirs(|k| std::env::var(k).ok()),
        launcher: launcher(),
        home_seen,
        programs: Vec::new(),
    }
}

fn check_probe(
    root: &Path,
    network: bool,
    containers: bool,
) -> Option<&'static (PathBuf, Enforced)> {
    static PROBED: std::sync::OnceLock<Option<(PathBuf, Enforced)>> = std::sync::OnceLock::new();
    PROBED
        .get_or_init(|| {
            let exe = launcher()?;
            let enforced =
                launch::probe(&exe, &check_wanted(root, network, containers, false)).ok()?;
            Some((exe, enforced))
        })
        .as_ref()
}

/// What the checks of the repository at `root` get on this machine, for the run's record: the
/// layers, what is missing, and whether pawl's key is readable by them (then a verdict is at
/// most REVIEW: `key_exposed`, read by the verdict).
pub fn check_report(root: &Path, network: bool, containers: bool) -> serde_json::Value {
    match (
        check_probe(root, network, containers),
        check_containment(root, network, containers),
    ) {
        (Some((_, enforced)), Some(c)) => {
            let gaps = enforced.check_gaps(&c.spec);
            let line = if gaps.is_empty() {
                "checks: room at the repository's path, pawl's state hidden, private network"
                    .to_owned()
            } else {
                format!("checks: contained without {}", gaps.join(", "))
            };
            json!({"line": line, "missing": gaps, "key_exposed": enforced.key_exposure(&c.spec)})
        }
        _ => json!({"line": "checks: not contained (no launcher)", "missing": ["every layer"],
                    "key_exposed": "pawl's state is readable by the checks: they are not contained"}),
    }
}

/// Records how the run's steps are launched (the report shows the line).
/// `checks` is [`check_report`]: what the run's checks get.
pub fn record(
    store: &mut Store,
    run_id: &str,
    l: &StepLaunch,
    checks: serde_json::Value,
) -> Result<(), StartError> {
    store.append_event(
        Some(run_id),
        EventKind::Sandbox,
        json!({"line": l.plan.line(), "layers": l.plan.layers, "containment": l.plan.containment,
               "missing": l.plan.missing, "enforced": l.enforced, "checks": checks}),
    )?;
    Ok(())
}

/// Ends what a killed pawl left running in this repository (see pawl-process's
/// `end_leftovers`). Nothing to do from inside a step.
pub fn end_leftovers(root: &Path) {
    let _ = launch::end_leftovers(&root.join(STATE_DIR).join(STEPS_DIR));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_bus_address_gives_its_socket_paths_and_leaves_abstract_ones_to_landlock() {
        let rows: &[(&str, &[&str])] = &[
            ("unix:path=/run/user/1000/bus", &["/run/user/1000/bus"]),
            (
                "unix:abstract=/tmp/dbus-x,guid=1;unix:path=/tmp/b,guid=2",
                &["/tmp/b"],
            ),
            ("unix:guid=3,path=/var/b", &["/var/b"]),
            ("tcp:host=localhost,port=1", &[]),
            ("unix:path=relative/bus", &[]),
            ("", &[]),
        ];
        for (address, want) in rows {
            let want: Vec<PathBuf> = want.iter().map(PathBuf::from).collect();
            assert_eq!(bus_paths(address), want, "{address}");
        }
    }

    #[test]
    fn the_users_tmux_directory_is_made_as_tmux_makes_it() {
        use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
        let tmp = tempfile::tempdir().unwrap();
        let dir = make_tmux_dir(tmp.path()).unwrap();
        let meta = std::fs::metadata(&dir).unwrap();
        assert!(meta.is_dir());
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        assert_eq!(
            dir.file_name().unwrap().to_string_lossy(),
            format!("tmux-{}", std::fs::metadata("/proc/self").unwrap().uid())
        );
        // Made once; a second call leaves it as it is.
        assert_eq!(make_tmux_dir(tmp.path()), Some(dir));
    }

    #[test]
    fn every_session_server_row_names_a_place() {
        for (var, default, entries) in SESSION_SERVERS {
            assert!(
                !var.is_empty() || default.starts_with('/'),
                "a row without a variable needs an absolute default: {var:?} {default:?}"
            );
            for e in *entries {
                assert!(!e.contains('/') && !e.is_empty(), "one name per entry: {e}");
            }
        }
    }
}
