//! The check variant of the sandbox: what every process a check starts (gates, acceptance and
//! hidden checks, the baseline, the locked run, probes) may see and touch. The code under test
//! is the agent's, so a check is contained at least as strictly as an agent step, and more in
//! what it may read and reach:
//!
//! - the room's tree is mounted over the repository's path (virtualenv shebangs, editable
//!   installs, `node_modules` links and caches resolve to the sealed tree, never the live one);
//! - pawl's state (the user state with the evidence key and the rooms, the repository's
//!   `.pawl/` with the store and the logs) is hidden, not only read-only;
//! - the user's agent and shell configuration in HOME ([`HIDDEN_IN_HOME`]) is hidden;
//! - the room is seen through an overlay: the room's tree (the tracked files and the
//!   environment taken at the seal) is never written; a check's writes land in a layer of its
//!   own ([`room_layers`]), gone at the room's next sync — nothing a test wrote in one
//!   verification (`.pytest_cache`, bytecode, files) is seen by the next, and only the `build`
//!   check's outputs reach the later checks of the same verification;
//! - writes land only in the check's working directory (the room's overlay) and fresh private
//!   temp dirs ([`PRIVATE_TMP`], the user's runtime dir), private always: a repository or HOME
//!   under `/tmp` (scratch clones, CI jobs, tests) is seen at its path inside the private
//!   `/tmp` — the room mounted there, HOME read-only ([`SandboxSpec::shown_in_tmp`]) — and
//!   nothing else of the machine's `/tmp`;
//! - no signal to, `ptrace` of, or abstract socket of anything outside;
//! - a network namespace of its own with loopback only, unless the project asks for the network.
//!
//! This module only builds the [`SandboxSpec`] from the paths the caller names (which state
//! directories are pawl's is the caller's knowledge); the launcher applies it, and
//! [`super::Enforced::allowed`] keeps what the machine can do (the fallback without
//! namespaces is Landlock only: writes, signals, sockets and outbound TCP;
//! [`super::Enforced::check_gaps`] names what is missing).

use std::path::{Path, PathBuf};

use super::SandboxSpec;

/// Paths under HOME a check never sees: the agent CLIs' settings and sessions (a check that
/// rewrote `~/.claude/settings.json` would unguard the next session), shell start-up files,
/// git's and ssh's configuration and credentials.
pub const HIDDEN_IN_HOME: &[&str] = &[
    ".claude",
    ".claude.json",
    ".codex",
    ".gemini",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".bash_history",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zsh_history",
    ".config/fish",
    ".gitconfig",
    ".git-credentials",
    ".config/git",
    ".config/gh",
    ".ssh",
    ".gnupg",
    ".netrc",
    ".tmux.conf",
];

/// Caches under HOME a check reads warm and writes copy-on-write (its writes are discarded with
/// it: no way to poison a later run or another project): Go's build cache, pip's, npm's.
pub const COPY_ON_WRITE_IN_HOME: &[&str] = &[".cache", ".npm"];

/// Variables that name a tool's cache outside HOME (`GOCACHE=/srv/go-build`): the directory a
/// check reads warm and writes copy-on-write, as [`COPY_ON_WRITE_IN_HOME`]. Without it a Go
/// build cache outside HOME is read-only to the checks, and `go test` fails on it at random.
pub const COPY_ON_WRITE_VARS: &[&str] = &[
    "GOCACHE",
    "XDG_CACHE_HOME",
    "PIP_CACHE_DIR",
    "npm_config_cache",
    "YARN_CACHE_FOLDER",
];

/// What a check still sees of HOME, relative to it: the toolchains installed for the user, the
/// caches ([`COPY_ON_WRITE_IN_HOME`]) and the user-level configuration the toolchains read
/// (issue 30: "the checks get a HOME of their own holding only what the table declares"; the
/// configuration files are in the outside manifest too, `pawl_core::envmanifest::OUTSIDE`).
/// Every other entry of HOME is out of sight: HOME is a private directory of the check's
/// ([`CheckWorld::home`]), these bound into it read-only.
pub const DECLARED_IN_HOME: &[&str] = &[
    // Toolchains.
    ".cargo",
    ".rustup",
    ".pyenv",
    ".local/bin",
    ".local/lib",
    ".local/share/pnpm",
    ".local/share/uv",
    ".local/share/virtualenvs",
    // Virtualenvs kept beside the projects (virtualenvwrapper's default `WORKON_HOME`, the
    // common `~/.venvs/<project>`): a gate names their `bin/python` by path.
    ".virtualenvs",
    ".venvs",
    ".local/pipx",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    ".asdf",
    ".sdkman",
    ".ghcup",
    ".cabal",
    ".stack",
    ".elan",
    ".opam",
    ".julia",
    ".juliaup",
    ".dotnet",
    ".nuget",
    ".m2",
    ".gradle",
    ".gem",
    ".rbenv",
    ".conda",
    ".condarc",
    "miniconda3",
    "anaconda3",
    "miniforge3",
    ".pixi",
    "go",
    // Caches (copy-on-write).
    ".cache",
    ".npm",
    // The toolchains' user-level configuration.
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".node_modules",
    ".node_libraries",
    ".pip",
    ".pydistutils.cfg",
    ".config/pip",
    ".config/go",
    ".config/npm",
    ".config/uv",
    ".config/pnpm",
    ".config/yarn",
    ".config/pypoetry",
];

/// Top-level directories of the machine's own (the system, its toolchains): a repository below
/// one keeps what lies above it in sight. Below any other (`/home`, `/work`, `/srv`), nothing
/// above the repository is seen but what the check keeps ([`CheckWorld::kept`], HOME's
/// [`DECLARED_IN_HOME`]): the top-level directory is private to the check like its `/tmp`.
pub const SYSTEM_TOPS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix",
    "/snap", "/proc", "/sys", "/dev", "/run", "/boot", "/var", "/gnu",
];

/// Variables that name a directory the checks' toolchains are read from: kept in sight above
/// the repository and in HOME ([`CheckWorld::kept`]). `:`-separated lists (`PATH`) are each of
/// their directories.
pub const KEPT_VARS: &[&str] = &[
    "PATH",
    "RUSTUP_HOME",
    "CARGO_HOME",
    "PYENV_ROOT",
    "GOROOT",
    "GOPATH",
    "GOMODCACHE",
    "VIRTUAL_ENV",
    "WORKON_HOME",
    "CONDA_PREFIX",
    "NVM_DIR",
    "VOLTA_HOME",
    "PNPM_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "PYTHONUSERBASE",
    "PYTHONPATH",
    "NODE_PATH",
    "JAVA_HOME",
    "UV_PYTHON_INSTALL_DIR",
];

/// The directories `KEPT_VARS`' values name, from `var` (each directory of a list; for a `bin`
/// directory, its installation prefix, which holds its libraries).
pub fn kept_dirs(var: impl Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for name in KEPT_VARS {
        for dir in var(name).unwrap_or_default().split(':') {
            let dir = Path::new(dir);
            if !dir.is_absolute() {
                continue;
            }
            let dir = if dir.file_name().is_some_and(|n| n == "bin") {
                dir.parent().unwrap_or(dir)
            } else {
                dir
            };
            if !out.iter().any(|o| o == dir) {
                out.push(dir.to_path_buf());
            }
        }
    }
    out
}

/// The shared temporary directories, each replaced by a fresh tmpfs in the check's namespace,
/// wherever the repository lies.
pub const PRIVATE_TMP: &[&str] = &["/tmp", "/var/tmp", "/dev/shm"];

/// Where a check's report directory is bound inside its namespace (in its private `/tmp`).
pub const REPORT_DIR: &str = "/tmp/pawl-report";

/// The directory beside a room's `tree/` that holds the checks' overlay layers
/// ([`SandboxSpec::room_overlay`]); the room empties it at every sync.
pub const ROOM_SCRATCH: &str = "scratch";

/// Written into the scratch when the overlay could not be mounted (the room was bound as it
/// is): the room's owner reports it.
pub const OVERLAY_FAILED: &str = "overlay-failed.txt";

/// The checks whose layer the later checks of the same verification see (pawl-verify runs
/// `build` first and alone): a build's outputs reach the tests, a test's writes reach nothing.
pub const KEPT_LAYERS: &[&str] = &["build"];

/// The variable that names the check a launched process belongs to (set by pawl-verify's
/// runner on every check command).
pub const CHECK_VAR: &str = "PAWL_CHECK";

/// The argument after [`super::LAUNCHER_ARG`] that makes the launcher a test runner: it runs
/// the rest of its arguments with a temporary directory of their own ([`run_with_own_tmp`]).
pub const OWN_TMP_ARG: &str = "--own-tmp";

/// The targets whose cargo runner (`CARGO_TARGET_<TRIPLE>_RUNNER`) a check gets
/// ([`cargo_runner_vars`]): the hosts pawl runs on. A variable for a target the project does
/// not build for is never read.
pub const CARGO_RUNNER_TARGETS: &[&str] = &[
    "x86_64-unknown-linux-gnu",
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-gnu",
    "aarch64-unknown-linux-musl",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
];

/// The variables that make cargo (`cargo test`, and `cargo nextest`, which reads the same
/// runner) start every test binary through `launcher` [`OWN_TMP_ARG`]: each test process gets a
/// temporary directory of its own. A check's `/tmp` is private to the check, but every process
/// of the check shares it, and nextest runs each test in a process of its own, side by side:
/// tests that number their temporary directories per process (walkdir's `/tmp/rust-walkdir/0`)
/// took the same one and removed it under each other. Empty when the launcher's path has
/// whitespace (cargo splits the variable on it).
pub fn cargo_runner_vars(launcher: &Path) -> Vec<(String, String)> {
    let path = launcher.to_string_lossy();
    if path.chars().any(char::is_whitespace) {
        return Vec::new();
    }
    let value = format!("{path} {} {OWN_TMP_ARG}", super::LAUNCHER_ARG);
    CARGO_RUNNER_TARGETS
        .iter()
        .map(|t| {
            let name = t.to_ascii_uppercase().replace('-', "_");
            (format!("CARGO_TARGET_{name}_RUNNER"), value.clone())
        })
        .collect()
}

/// Runs `argv` with `TMPDIR` a new directory of its own under the current temporary directory,
/// removed once it ends; returns its exit code (128 + the signal that ended it).
pub fn run_with_own_tmp(argv: Vec<std::ffi::OsString>) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    let Some((program, args)) = argv.split_first() else {
        return super::LAUNCH_FAILED;
    };
    let base = std::env::temp_dir();
    let mut dir = None;
    for n in 0..1000u32 {
        let candidate = base.join(format!("pawl-test-{}-{n}", std::process::id()));
        match std::fs::create_dir(&candidate) {
            Ok(()) => {
                dir = Some(candidate);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(_) => break,
        }
    }
    let Some(dir) = dir else {
        return super::LAUNCH_FAILED;
    };
    let status = std::process::Command::new(program)
        .args(args)
        .env("TMPDIR", &dir)
        .status();
    let _ = std::fs::remove_dir_all(&dir);
    match status {
        Ok(s) => s
            .code()
            .or_else(|| s.signal().map(|sig| 128 + sig))
            .unwrap_or(1),
        Err(_) => super::LAUNCH_FAILED,
    }
}

/// The overlay one check sees the room through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomLayers {
    /// Lower layers, topmost first: a kept layer of this verification, then the room's tree.
    pub lower: Vec<PathBuf>,
    /// The directory of this check's own layer (its `upper/` and `work/` are made inside).
    pub layer: PathBuf,
}

/// The layers of the check named `check` (`None`: not a check pawl named), for the room whose
/// tree is `tree` and scratch `scratch`; `unique` tells two layers of the same check apart (a
/// process id). A kept check writes into the verification's kept layer; every other check
/// sees the kept layers below its own, which is discarded with the scratch.
pub fn room_layers(scratch: &Path, tree: &Path, check: Option<&str>, unique: &str) -> RoomLayers {
    let kept = |name: &str| kept_layer(scratch, name);
    match check.filter(|c| KEPT_LAYERS.contains(c)) {
        Some(name) => RoomLayers {
            lower: vec![tree.to_path_buf()],
            layer: kept(name),
        },
        None => {
            let mut lower: Vec<PathBuf> = KEPT_LAYERS
                .iter()
                .map(|n| kept(n).join("upper"))
                .filter(|p| p.is_dir())
                .collect();
            lower.push(tree.to_path_buf());
            RoomLayers {
                lower,
                layer: scratch.join(format!("check-{unique}")),
            }
        }
    }
}

/// What the caller knows about a check's world.
#[derive(Debug, Clone, Default)]
pub struct CheckWorld {
    /// The repository's path: the room is seen there.
    pub repo: PathBuf,
    /// pawl's state directories (the user's pawl state, the repository's `.pawl/`, a shared
    /// store): hidden.
    pub state: Vec<PathBuf>,
    /// The user's home (its [`HIDDEN_IN_HOME`] entries are hidden).
    pub home: Option<PathBuf>,
    /// More paths to hide (`$CODEX_HOME`, `$CLAUDE_CONFIG_DIR`).
    pub hidden: Vec<PathBuf>,
    /// The user's runtime directory (`$XDG_RUNTIME_DIR`: session bus, agents' sockets): a
    /// private tmpfs too.
    pub runtime_dir: Option<PathBuf>,
    /// `[room] network = true`: the checks keep the machine's network.
    pub network: bool,
    /// Tool caches the environment puts outside HOME ([`COPY_ON_WRITE_VARS`]): read warm,
    /// written copy-on-write like HOME's.
    pub caches: Vec<PathBuf>,
    /// Directories kept in sight where everything else is out of it (above the repository, in
    /// HOME): the toolchains the environment names ([`kept_dirs`]).
    pub kept: Vec<PathBuf>,
    /// pawl's own binary, the checks' cargo runner ([`cargo_runner_vars`]): its directory is
    /// seen, read-only, where it lies in a private directory (a build under `mktemp -d`).
    pub launcher: Option<PathBuf>,
    /// HOME seen whole, read-only (its [`HIDDEN_IN_HOME`] entries and pawl's state still
    /// hidden) instead of only its declared entries: for a command the user configured that
    /// runs before the run's first step (the tester), when nothing a step wrote can be there.
    pub home_seen: bool,
    /// The files outside the repository the checks' commands start (as the seal resolved them:
    /// `pawl_core::seal::Seal::programs`): each one's installation place is kept in sight,
    /// read-only ([`program_place`]), where it lies in a private directory (HOME, the
    /// directory above the repository).
    pub programs: Vec<PathBuf>,
}

/// Where a check's program at `program` (a file outside the repository) is installed, to be kept
/// in sight: its installation prefix (the directory holding its `bin/`: a virtualenv, a
/// toolchain, `../tools`), else — where that would show HOME or the repository whole
/// (`~/bin/x`, `/work/bin/x` beside `/work/repo`) — the directory holding it, else the file
/// alone. `None` for a program inside what checks never see (pawl's state, HOME's hidden
/// entries: `~/.ssh/x` shows nothing of `~/.ssh`).
pub fn program_place(program: &Path, world: &CheckWorld) -> Option<PathBuf> {
    let never: Vec<PathBuf> = world
        .state
        .iter()
        .cloned()
        .chain(
            world
                .home
                .iter()
                .flat_map(|h| HIDDEN_IN_HOME.iter().map(move |p| h.join(p))),
        )
        .chain(world.hidden.iter().cloned())
        .collect();
    if !program.is_absolute()
        || program.starts_with(&world.repo)
        || never.iter().any(|n| program.starts_with(n))
    {
        return None;
    }
    let dir = program.parent()?;
    let prefix = dir
        .file_name()
        .is_some_and(|n| n == "bin" || n == "sbin")
        .then(|| dir.parent())
        .flatten();
    let too_much = |p: &Path| {
        p.parent().is_none()
            || world.repo.starts_with(p)
            || world.home.as_ref().is_some_and(|h| h.starts_with(p))
    };
    prefix
        .into_iter()
        .chain([dir, program])
        .find(|p| !too_much(p))
        .map(Path::to_path_buf)
}

/// Keeps the places of `world`'s programs ([`program_place`]) in sight of a check whose
/// sandbox `spec` was made by [`check_sandbox`] for `world` without them (and cut to what the
/// machine enforces): what the programs add to [`check_sandbox`]'s answer — the places shown
/// again in a private directory, and what stays hidden in them — is added to `spec`. Nothing
/// where `spec` has no private directories (without mounts every place is seen already).
pub fn keep_programs(spec: &mut SandboxSpec, world: &CheckWorld) {
    if world.programs.is_empty() || spec.private_tmp.is_empty() {
        return;
    }
    let without = check_sandbox(&CheckWorld {
        programs: Vec::new(),
        ..world.clone()
    });
    let with = check_sandbox(world);
    let private = |p: &Path| spec.private_tmp.iter().any(|t| p.starts_with(t));
    let added: Vec<PathBuf> = with
        .shown_in_tmp
        .into_iter()
        .filter(|p| !without.shown_in_tmp.contains(p))
        .filter(|p| private(p) && !spec.shown_in_tmp.iter().any(|s| p.starts_with(s)))
        .collect();
    for h in with.hidden {
        if !without.hidden.contains(&h) && !spec.hidden.contains(&h) {
            spec.hidden.push(h);
        }
    }
    spec.shown_in_tmp.extend(added);
}

/// The sandbox every check process runs under (see the module docs). The check's working
/// directory is added per verification ([`SandboxSpec::place_checks`]).
pub fn check_sandbox(world: &CheckWorld) -> SandboxSpec {
    let mut hidden: Vec<PathBuf> = world.state.clone();
    if let Some(home) = &world.home {
        hidden.extend(HIDDEN_IN_HOME.iter().map(|p| home.join(p)));
    }
    hidden.extend(world.hidden.iter().cloned());
    // A hidden directory that holds the repository would hide the room with it (the room is
    // mounted first): never hide an ancestor of the repository's path.
    hidden.retain(|h| !world.repo.starts_with(h));
    let mut private_tmp: Vec<PathBuf> = PRIVATE_TMP.iter().map(PathBuf::from).collect();
    private_tmp.extend(world.runtime_dir.iter().cloned());
    // Nothing above the repository (toolchains read configuration and modules from every
    // directory above the one they run in) nor in HOME is seen but what is kept: the
    // repository's top-level directory (unless the system's) and HOME are private to the check
    // like its /tmp, the kept directories bound back into them read-only.
    let covered = |tmp: &[PathBuf], p: &Path| tmp.iter().any(|t| p.starts_with(t));
    let top: PathBuf = world.repo.components().take(2).collect();
    let top = (top.parent().is_some()
        && top != world.repo
        && !SYSTEM_TOPS.iter().any(|t| Path::new(t) == top.as_path()))
    .then_some(top);
    if let Some(top) = top
        && !covered(&private_tmp, &top)
    {
        private_tmp.push(top);
    }
    if let Some(home) = world.home.as_ref().filter(|h| {
        !world.home_seen
            && h.parent().is_some()
            && !SYSTEM_TOPS.iter().any(|s| Path::new(s) == h.as_path())
    }) && !covered(&private_tmp, home)
    {
        private_tmp.push(home.clone());
    }
    // A repository under /tmp (tests, scratch clones, CI jobs) does not make /tmp shared: the
    // room is mounted at its path inside the private one. What is kept there is seen too,
    // read-only (the caches copy-on-write over them): HOME's declared entries, the tool caches,
    // the kept directories; nothing else of the machine's. Never a directory that holds HOME
    // or the repository (it would show them whole).
    let in_private = |p: &Path| private_tmp.iter().any(|t| p.starts_with(t));
    // The launcher's directory too, unless the room covers it (a pawl built in the repository
    // it checks: the runner is not given then, pawl-verify's `own_tmp_runner`).
    let launcher_dir = world
        .launcher
        .as_deref()
        .and_then(Path::parent)
        .filter(|d| !d.starts_with(&world.repo))
        .map(Path::to_path_buf);
    let declared = world
        .home
        .iter()
        .filter(|_| !world.home_seen)
        .flat_map(|h| DECLARED_IN_HOME.iter().map(move |d| h.join(d)));
    let mut shown_in_tmp: Vec<PathBuf> = Vec::new();
    // HOME seen whole where it lies in a private directory (under the repository's top-level
    // directory or /tmp): shown again there, its hidden entries hidden over it (a HOME that
    // holds the repository too: the room is mounted over the repository's path after).
    if let Some(home) = world
        .home
        .as_ref()
        .filter(|h| world.home_seen && in_private(h) && !private_tmp.contains(h))
    {
        shown_in_tmp.push(home.clone());
    }
    let show = |shown_in_tmp: &mut Vec<PathBuf>, p: PathBuf| {
        let holds_home = world.home.as_ref().is_some_and(|h| h.starts_with(&p));
        if in_private(&p)
            && !holds_home
            && !world.repo.starts_with(&p)
            && !private_tmp.contains(&p)
            && !shown_in_tmp.contains(&p)
        {
            shown_in_tmp.push(p);
        }
    };
    for p in declared
        .chain(world.caches.iter().cloned())
        .chain(world.kept.iter().cloned())
        .chain(launcher_dir)
    {
        show(&mut shown_in_tmp, p);
    }
    // The checks' programs outside the repository, where they are out of sight so far (a
    // program in a declared or kept place adds nothing: `~/.local/bin/x` never shows `~/.local`).
    let seen =
        |shown: &[PathBuf], p: &Path| !in_private(p) || shown.iter().any(|s| p.starts_with(s));
    for program in &world.programs {
        if !seen(&shown_in_tmp, program)
            && let Some(place) = program_place(program, world)
        {
            show(&mut shown_in_tmp, place);
        }
    }
    // What lies in a private temp dir is out of sight already (a tmux server's socket under
    // /tmp, the session bus in the runtime dir): it is not there to hide — unless it lies in
    // what is seen there again (pawl's state in a HOME under /tmp).
    hidden.retain(|h| {
        !in_private(h)
            || h.starts_with(&world.repo)
            || shown_in_tmp.iter().any(|s| h.starts_with(s))
    });
    let mut dedup: Vec<PathBuf> = Vec::new();
    for p in hidden {
        if !dedup.contains(&p) {
            dedup.push(p);
        }
    }
    SandboxSpec {
        read_only: Vec::new(),
        hidden: dedup,
        writable: super::system_writable(),
        landlock: true,
        scope_signals: true,
        scope_sockets: true,
        deny_tcp: !world.network,
        private_network: !world.network,
        room_at: Some(world.repo.clone()),
        room_tree: None,
        room_overlay: true,
        room_scratch: None,
        private_tmp,
        shown_in_tmp,
        cow: world
            .home
            .iter()
            .flat_map(|h| COPY_ON_WRITE_IN_HOME.iter().map(move |p| h.join(p)))
            .chain(world.caches.iter().cloned())
            .fold(Vec::new(), |mut all, p| {
                if !all.contains(&p) {
                    all.push(p);
                }
                all
            }),
        binds: Vec::new(),
        cow_binds: Vec::new(),
        host_look: false,
    }
}

/// The kept layer of the check named `name` in `scratch` (see [`room_layers`]).
pub fn kept_layer(scratch: &Path, name: &str) -> PathBuf {
    scratch.join(format!("kept-{name}"))
}

/// Moves what a kept check (the `build`) wrote below each of `dirs` (root-relative build
/// directories, `target`) in its layer into the room's tree at `tree`, as the overlay showed
/// it: files and links replace the tree's, a removed path (a whiteout) is removed, a directory
/// made anew (opaque) replaces the tree's. The rest of the layer is left for the caller to
/// discard. Returns the files moved. Outputs of pawl's own build, kept warm: a test's layer is
/// never merged.
pub fn merge_kept_layer(layer: &Path, tree: &Path, dirs: &[String]) -> std::io::Result<u64> {
    let upper = layer.join("upper");
    let mut moved = 0;
    for dir in dirs {
        let from = upper.join(dir);
        if std::fs::symlink_metadata(&from).is_ok_and(|m| m.is_dir()) {
            merge_dir(&from, &tree.join(dir), &mut moved)?;
        }
    }
    Ok(moved)
}

fn merge_dir(from: &Path, to: &Path, moved: &mut u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let existing = std::fs::symlink_metadata(to).ok();
    if existing.as_ref().is_some_and(|m| !m.is_dir()) || (existing.is_some() && is_opaque(from)) {
        remove_path(to)?;
    }
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let ft = entry.file_type()?;
        if ft.is_char_device() && is_whiteout(&src) {
            remove_path(&dst)?;
        } else if ft.is_dir() {
            merge_dir(&src, &dst, moved)?;
        } else {
            if std::fs::symlink_metadata(&dst).is_ok_and(|m| m.is_dir()) {
                remove_path(&dst)?;
            }
            std::fs::rename(&src, &dst)?;
            *moved += 1;
        }
    }
    Ok(())
}

/// An overlay whiteout: a character device 0/0.
fn is_whiteout(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.rdev() == 0)
}

/// A directory the overlay made anew over a removed one (`user.overlay.opaque`, the
/// `userxattr` form the launcher mounts with).
#[cfg(target_os = "linux")]
fn is_opaque(dir: &Path) -> bool {
    super::sys::xattr_is(dir, c"user.overlay.opaque", b"y")
}

#[cfg(not(target_os = "linux"))]
fn is_opaque(_dir: &Path) -> bool {
    false
}

fn remove_path(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Where a check writes a report file named `file` that pawl reads afterwards from
/// `host_dir`: inside the namespace, a bind of `host_dir` in the private `/tmp`; without one,
/// `host_dir` itself, made writable (its own directory: no other log is writable). Returns the
/// path the check is given.
pub fn report_place(spec: &mut SandboxSpec, host_dir: &Path, file: &str) -> PathBuf {
    let tmp = Path::new("/tmp");
    if spec.private_tmp.iter().any(|p| p == tmp) {
        spec.binds.push(super::Bind {
            source: host_dir.to_path_buf(),
            target: PathBuf::from(REPORT_DIR),
        });
        return Path::new(REPORT_DIR).join(file);
    }
    if !spec.writable.iter().any(|w| w == host_dir) {
        spec.writable.push(host_dir.to_path_buf());
    }
    host_dir.join(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> CheckWorld {
        CheckWorld {
            repo: "/w/repo".into(),
            state: vec!["/h/.local/state/pawl".into(), "/w/repo/.pawl".into()],
            home: Some("/h".into()),
            hidden: vec!["/h/.codex".into()],
            runtime_dir: Some("/run/user/1000".into()),
            network: false,
            caches: Vec::new(),
            kept: vec![
                "/h/.rustup/toolchains/stable".into(),
                "/w/tools".into(),
                "/h".into(),
            ],
            launcher: None,
            home_seen: false,
            programs: Vec::new(),
        }
    }

    /// A command that runs before the first step (the tester) sees HOME whole, read-only —
    /// a user's script there runs — while pawl's state and the hidden entries stay hidden;
    /// HOME under a private directory (the repository's top-level one) is shown there again.
    #[test]
    fn home_seen_shows_home_whole_and_hides_what_checks_never_see() {
        let seen = check_sandbox(&CheckWorld {
            home_seen: true,
            ..world()
        });
        assert!(!seen.private_tmp.contains(&PathBuf::from("/h")));
        assert!(seen.hidden.contains(&PathBuf::from("/h/.local/state/pawl")));
        assert!(seen.hidden.contains(&PathBuf::from("/h/.codex")));
        assert!(seen.hidden.iter().any(|h| h.starts_with("/h/.ssh")));
        assert!(!seen.writable.iter().any(|w| w.starts_with("/h")));
        // Checks do not: HOME is private, only its declared entries shown.
        let checks = check_sandbox(&world());
        assert!(checks.private_tmp.contains(&PathBuf::from("/h")));
        // HOME below the repository's top-level directory: shown in it, hidden entries over it.
        let under = check_sandbox(&CheckWorld {
            repo: "/home/u/code/repo".into(),
            home: Some("/home/u".into()),
            state: vec!["/home/u/.local/state/pawl".into()],
            home_seen: true,
            ..world()
        });
        assert!(under.private_tmp.contains(&PathBuf::from("/home")));
        assert!(under.shown_in_tmp.contains(&PathBuf::from("/home/u")));
        assert!(
            under
                .hidden
                .contains(&PathBuf::from("/home/u/.local/state/pawl"))
        );
    }

    /// Issue 30: the checks get a HOME of their own holding only what the table declares, and
    /// nothing above the repository is seen but what is kept: the repository's top-level
    /// directory and HOME are private, the declared and kept directories shown again there
    /// (never one that holds HOME or the repository: it would show them whole).
    #[test]
    fn home_and_what_lies_above_the_repository_are_private_but_for_what_is_kept() {
        let s = check_sandbox(&world());
        for p in ["/w", "/h", "/tmp"] {
            assert!(
                s.private_tmp.contains(&PathBuf::from(p)),
                "{p}: {:?}",
                s.private_tmp
            );
        }
        for p in [
            "/h/.cargo",
            "/h/.npmrc",
            "/h/.cache",
            "/w/tools",
            "/h/.rustup/toolchains/stable",
        ] {
            assert!(
                s.shown_in_tmp.contains(&PathBuf::from(p)),
                "{p}: {:?}",
                s.shown_in_tmp
            );
        }
        assert!(!s.shown_in_tmp.contains(&PathBuf::from("/h")));
        // A repository below the system's directories keeps what lies above it.
        let s = check_sandbox(&CheckWorld {
            repo: "/opt/x/repo".into(),
            home: None,
            ..world()
        });
        assert!(
            !s.private_tmp.iter().any(|p| p.starts_with("/opt")),
            "{:?}",
            s.private_tmp
        );
        assert_eq!(
            kept_dirs(
                |k| (k == "PATH").then(|| "/h/.cargo/bin:rel:/usr/bin:/h/.cargo/bin".to_owned())
            ),
            [PathBuf::from("/h/.cargo"), PathBuf::from("/usr")]
        );
    }

    /// Hidden, or in a private directory where nothing shown again holds it.
    fn unseen(s: &SandboxSpec, p: &str) -> bool {
        let p = Path::new(p);
        s.hidden.iter().any(|h| h == p)
            || (s.private_tmp.iter().any(|t| p.starts_with(t))
                && !s.shown_in_tmp.iter().any(|k| p.starts_with(k)))
    }

    /// Issue 30: a program a check names outside the repository (a virtualenv anywhere in
    /// HOME, a tool beside the repository) is kept in sight by its installation prefix, and by
    /// no more: never HOME or the repository's top-level directory whole, never inside what
    /// checks never see. Rows: the program → its place.
    #[test]
    fn a_checks_program_is_kept_in_sight_by_its_installation_prefix_and_no_more() {
        let rows: &[(&str, Option<&str>)] = &[
            ("/h/somewhere/myenv/bin/python", Some("/h/somewhere/myenv")),
            ("/w/tools2/bin/style", Some("/w/tools2")),
            ("/opt/py/sbin/x", Some("/opt/py")),
            // The prefix would be HOME or hold the repository: the `bin` directory.
            ("/h/bin/check", Some("/h/bin")),
            ("/w/bin/x", Some("/w/bin")),
            // Not in a `bin`: its directory, or the file alone where that is too much.
            ("/w/tools3/run.sh", Some("/w/tools3")),
            ("/w/x.sh", Some("/w/x.sh")),
            ("/h/run.sh", Some("/h/run.sh")),
            // Inside what checks never see, or the repository (the room's): nothing.
            ("/h/.ssh/bin/x", None),
            ("/h/.local/state/pawl/bin/x", None),
            ("/w/repo/.venv/bin/python", None),
            ("relative/bin/x", None),
        ];
        let w = world();
        for (program, want) in rows {
            assert_eq!(
                program_place(Path::new(program), &w).as_deref(),
                want.map(Path::new),
                "{program}"
            );
        }
        let with = CheckWorld {
            programs: [
                "/h/somewhere/myenv/bin/python",
                "/h/bin/check",
                "/w/tools2/bin/style",
                "/opt/py/bin/python",
                "/h/.local/bin/black",
                "/h/.ssh/bin/x",
            ]
            .iter()
            .map(PathBuf::from)
            .collect(),
            ..world()
        };
        let s = check_sandbox(&with);
        for p in [
            "/h/somewhere/myenv/bin/python",
            "/h/somewhere/myenv/lib/site.py",
            "/h/bin/check",
            "/w/tools2/lib/style.sh",
        ] {
            assert!(!unseen(&s, p), "{p} is out of sight: {:?}", s.shown_in_tmp);
        }
        for p in [
            "/h/somewhere/secret.txt",
            "/h/secret.txt",
            "/w/secret.txt",
            "/h/.local/share/keyrings",
            "/h/.ssh/bin/x",
        ] {
            assert!(unseen(&s, p), "{p} is seen: {:?}", s.shown_in_tmp);
        }
        // A program in a declared place adds nothing (`~/.local` is not shown for
        // `~/.local/bin/black`); one the check sees anyway (`/opt`) neither.
        assert!(!s.shown_in_tmp.iter().any(|p| p == Path::new("/h/.local")));
        assert!(!s.shown_in_tmp.iter().any(|p| p.starts_with("/opt")));
        // Added afterwards to a sandbox made without them (the engine's way: the seal names
        // the programs), the same places are shown and the same paths hidden.
        let mut later = check_sandbox(&world());
        keep_programs(&mut later, &with);
        let mut a = later.shown_in_tmp.clone();
        let mut b = s.shown_in_tmp.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        assert!(s.hidden.iter().all(|h| later.hidden.contains(h)));
        // Without private directories (no mounts) there is nothing to add.
        let mut bare = SandboxSpec::default();
        keep_programs(&mut bare, &with);
        assert!(bare.shown_in_tmp.is_empty());
    }

    #[test]
    fn a_check_hides_pawl_and_the_users_agents_and_has_no_network() {
        let s = check_sandbox(&world());
        for p in [
            "/h/.local/state/pawl",
            "/w/repo/.pawl",
            "/h/.claude",
            "/h/.gitconfig",
            "/h/.ssh",
            "/h/.bashrc",
        ] {
            assert!(unseen(&s, p), "{p} is seen");
        }
        assert!(s.hidden.contains(&PathBuf::from("/w/repo/.pawl")));
        assert!(
            s.hidden.iter().filter(|p| p.ends_with(".codex")).count() <= 1,
            "deduplicated"
        );
        assert!(s.private_network && s.deny_tcp);
        assert!(s.landlock && s.scope_signals && s.scope_sockets);
        assert_eq!(s.room_at.as_deref(), Some(Path::new("/w/repo")));
        assert!(s.private_tmp.contains(&PathBuf::from("/run/user/1000")));
        // Nothing of the tree nor HOME is writable until a check is placed.
        assert!(
            !s.writable
                .iter()
                .any(|w| w.starts_with("/w") || w.starts_with("/h"))
        );
    }

    /// A Go build cache outside HOME (`GOCACHE=/srv/go-build`) is written copy-on-write like
    /// HOME's caches: read-only, `go test` failed on it at random in the locked run's repeats.
    #[test]
    fn a_tool_cache_outside_home_is_copy_on_write() {
        let s = check_sandbox(&CheckWorld {
            caches: vec![PathBuf::from("/srv/go-build"), PathBuf::from("/h/.cache")],
            ..world()
        });
        assert!(
            s.cow.contains(&PathBuf::from("/srv/go-build")),
            "{:?}",
            s.cow
        );
        assert_eq!(
            s.cow.iter().filter(|p| p.ends_with(".cache")).count(),
            1,
            "deduplicated: {:?}",
            s.cow
        );
    }

    #[test]
    fn the_network_is_kept_when_the_project_asks() {
        let s = check_sandbox(&CheckWorld {
            network: true,
            ..world()
        });
        assert!(!s.private_network && !s.deny_tcp);
    }

    #[test]
    fn an_ancestor_of_the_repository_is_never_hidden() {
        let s = check_sandbox(&CheckWorld {
            repo: "/h/.local/state/pawl/worktrees/x".into(),
            ..world()
        });
        assert!(!s.hidden.contains(&PathBuf::from("/h/.local/state/pawl")));
    }

    /// A repository and HOME under /tmp (a scratch clone, a CI job, a test): the check's /tmp
    /// is private all the same (before, it was the machine's, shared and writable), HOME is
    /// seen there read-only with pawl's state hidden, and what else lies in /tmp is not there
    /// to hide.
    #[test]
    fn a_repository_under_tmp_keeps_a_private_tmp() {
        let s = check_sandbox(&CheckWorld {
            repo: "/tmp/x/repo".into(),
            state: vec![
                "/tmp/x/home/.local/state/pawl".into(),
                "/tmp/x/repo/.pawl".into(),
            ],
            home: Some("/tmp/x/home".into()),
            hidden: vec!["/tmp/tmux-1000".into()],
            caches: vec!["/tmp/go-build".into(), "/srv/go".into()],
            ..world()
        });
        for t in PRIVATE_TMP {
            assert!(s.private_tmp.contains(&PathBuf::from(t)), "{t}");
        }
        assert_eq!(s.room_at.as_deref(), Some(Path::new("/tmp/x/repo")));
        // HOME's declared entries, not HOME.
        assert!(
            s.shown_in_tmp
                .contains(&PathBuf::from("/tmp/x/home/.cargo"))
        );
        assert!(s.shown_in_tmp.contains(&PathBuf::from("/tmp/go-build")));
        assert!(!s.shown_in_tmp.contains(&PathBuf::from("/tmp/x/home")));
        for p in [
            "/tmp/x/home/.local/state/pawl",
            "/tmp/x/repo/.pawl",
            "/tmp/x/home/.claude",
        ] {
            assert!(unseen(&s, p), "{p} is seen");
        }
        assert!(!s.hidden.contains(&PathBuf::from("/tmp/tmux-1000")));
    }

    /// pawl's binary under /tmp (built in a `mktemp -d` clone): the checks' cargo runner names
    /// it, so its directory is shown in the private /tmp — unless the room covers it.
    #[test]
    fn the_launchers_directory_is_shown_in_a_private_tmp() {
        let with = |launcher: &str| {
            check_sandbox(&CheckWorld {
                launcher: Some(launcher.into()),
                ..world()
            })
            .shown_in_tmp
        };
        // (HOME's declared entries and the kept toolchains are shown too: HOME is private.)
        assert!(with("/tmp/ci/target/debug/pawl").contains(&PathBuf::from("/tmp/ci/target/debug")));
        assert!(
            !with("/usr/local/bin/pawl")
                .iter()
                .any(|p| p.starts_with("/usr"))
        );
        let in_repo = check_sandbox(&CheckWorld {
            repo: "/tmp/x/repo".into(),
            launcher: Some("/tmp/x/repo/target/debug/pawl".into()),
            ..world()
        });
        assert!(
            !in_repo
                .shown_in_tmp
                .iter()
                .any(|p| p.starts_with("/tmp/x/repo"))
        );
    }

    /// Rows: the room (if any), whether the probe allowed the room mount → the working
    /// directory and whether the room is mounted over the repository.
    #[test]
    fn placing_a_check() {
        let rows: &[(Option<&str>, bool, &str, bool)] = &[
            (Some("/s/rooms/r/tree"), true, "/w/repo", true),
            (Some("/s/rooms/r/tree"), false, "/s/rooms/r/tree", false),
            (None, true, "/w/repo", false),
        ];
        for &(tree, mounts, cwd, mounted) in rows {
            let mut s = check_sandbox(&world());
            if !mounts {
                s.room_at = None;
            }
            let got = s.place_checks(Path::new("/w/repo"), tree.map(Path::new));
            assert_eq!(got, PathBuf::from(cwd), "{tree:?} {mounts}");
            assert_eq!(s.room_mounted(), mounted, "{tree:?} {mounts}");
            assert!(s.writable.contains(&got));
        }
    }

    #[test]
    fn a_check_writes_its_own_layer_over_the_builds_and_the_tree() {
        let dir = tempfile::tempdir().expect("tmp");
        let (scratch, tree) = (dir.path().join("scratch"), dir.path().join("tree"));
        let build = room_layers(&scratch, &tree, Some("build"), "1");
        assert_eq!(build.lower, std::slice::from_ref(&tree));
        assert_eq!(build.layer, scratch.join("kept-build"));
        // No build layer yet: the tree alone below; with one, it comes first.
        let test = room_layers(&scratch, &tree, Some("test"), "2");
        assert_eq!(
            (test.lower, test.layer),
            (vec![tree.clone()], scratch.join("check-2"))
        );
        std::fs::create_dir_all(scratch.join("kept-build/upper")).expect("mkdir");
        let test = room_layers(&scratch, &tree, None, "3");
        assert_eq!(test.lower, [scratch.join("kept-build/upper"), tree]);
        // Placed in a room, the scratch is the room's.
        let mut s = check_sandbox(&world());
        s.place_checks(Path::new("/w/repo"), Some(Path::new("/s/rooms/r/tree")));
        assert_eq!(
            s.room_scratch.as_deref(),
            Some(Path::new("/s/rooms/r/scratch"))
        );
    }

    #[test]
    fn a_report_is_bound_into_the_private_tmp_or_its_own_dir_is_writable() {
        let mut s = check_sandbox(&world());
        let got = report_place(&mut s, Path::new("/w/repo/.pawl/logs/t-1.d"), "r.xml");
        assert_eq!(got, PathBuf::from("/tmp/pawl-report/r.xml"));
        assert_eq!(s.binds.len(), 1);
        s.private_tmp.clear();
        let got = report_place(&mut s, Path::new("/w/repo/.pawl/logs/t-1.d"), "r.xml");
        assert_eq!(got, PathBuf::from("/w/repo/.pawl/logs/t-1.d/r.xml"));
        assert!(
            s.writable
                .contains(&PathBuf::from("/w/repo/.pawl/logs/t-1.d"))
        );
    }
}
