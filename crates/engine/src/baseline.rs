//! The baseline: the sealed checks run on the pre-run tree before the agent's first step. It is
//! what "still passes" and "newly passes" are measured against — which checks and which tests
//! (by id) passed or failed on the code the run started from — and a preflight: a check that
//! cannot even start (command not found, exit 126/127) refuses the run, naming it.
//!
//! What this module is not: the comparison itself (test protection: pawl-verify's `protect`; the
//! rule for "done": `pawl_core::proof`).

use pawl_core::seal::{CheckRole, Seal};
use pawl_verify::gate::Check;
use pawl_verify::parse::TestOutcome;
use pawl_verify::{CheckEnd, RunnerConfig, run_checks};
use serde::{Deserialize, Serialize};

use crate::workspace::Workspace;

/// One sealed check on the pre-run tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineCheck {
    pub name: String,
    pub passed: bool,
    /// How it ended ("exited", "timed_out", ...), and its exit code.
    pub end: String,
    pub exit_code: Option<i32>,
    /// Every test the runner reported, by id.
    pub tests: Vec<TestOutcome>,
    /// Failing test names as the runner reported them.
    pub failing: Vec<String>,
    /// The first failure as the check reported it (a failing check's only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_failure: Option<String>,
    /// A failing check's failure items (findings, failing tests): what "no worse" is measured
    /// against (`pawl_core::against`). `None` when it passed or its output could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<pawl_core::against::FailureItem>>,
    /// The runner's counts (`None`: none parsed, or a hidden check): what a locked run judged
    /// by counts is compared with (`pawl_core::proof::counts_differ`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<pawl_core::proof::TestCounts>,
}

/// The sealed checks on the pre-run tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Baseline {
    /// The tree they ran on.
    pub tree: String,
    pub checks: Vec<BaselineCheck>,
    /// The project's environment the room took at the seal (`None`: none, or no room).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<BaselineEnv>,
    /// The project's install command run in the room before the checks (`[room] setup`, for a
    /// project with no environment directory): the command, its exit and log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<Box<crate::room::setup::SetupRun>>,
}

/// The project's environment at the seal, as the verdict reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct BaselineEnv {
    /// The directories the room took (`.venv`, `node_modules`, …).
    pub dirs: Vec<String>,
    /// The bin directories first on the checks' `PATH`.
    pub bins: Vec<String>,
    /// Paths in the room's copy that lead into the live repository, each a finding: without
    /// the check namespace, code under test would load from the live tree there
    /// ([`crate::room::env::leaks`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leaks: Vec<String>,
}

impl Baseline {
    pub fn check(&self, name: &str) -> Option<&BaselineCheck> {
        self.checks.iter().find(|c| c.name == name)
    }
}

/// Why a run may not start.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error(
        "the check `{check}` cannot start ({why}): `{command}` — install what it needs or fix the command in pawl.toml [gates], then start the run again"
    )]
    CannotStart {
        check: String,
        command: String,
        why: String,
    },
    #[error(
        "the check `{check}` fails for a reason of the environment, not of the code: {failure}"
    )]
    Environment {
        check: String,
        failure: pawl_core::envfail::EnvFailure,
    },
    #[error(
        "the acceptance check `{check}` already passes on the pre-run code, so it proves nothing: give a check that fails before the change (`--check`)"
    )]
    AcceptanceAlreadyPasses { check: String },
    #[error("git: {0}")]
    Git(#[from] pawl_git::Error),
    #[error("the clean room: {0}")]
    Room(String),
    #[error(transparent)]
    Hidden(#[from] crate::hidden::HiddenError),
}

impl From<crate::room::RoomError> for BaselineError {
    fn from(e: crate::room::RoomError) -> Self {
        BaselineError::Room(e.to_string())
    }
}

/// The runner's configuration for a seal: its timeout and its environment only.
pub fn runner_for(ws: &Workspace, seal: &Seal, step: u64) -> RunnerConfig {
    let mut cfg = RunnerConfig::new(&ws.root, step);
    cfg.logs_dir = ws.state_dir.join("logs");
    if seal.timeout_ms > 0 {
        cfg.timeout = std::time::Duration::from_millis(seal.timeout_ms);
    }
    if !seal.env.is_empty() {
        cfg.clear_env = true;
        cfg.env = seal.env.iter().map(|(k, v)| (k.into(), v.into())).collect();
    }
    cfg.env.extend(crate::workspace::check_env(
        (!seal.env.is_empty()).then_some(&seal.env),
    ));
    cfg.containment = ws.containment.clone();
    // The programs the seal resolved outside the repository, in sight (read-only).
    crate::start::sandbox::keep_programs(&mut cfg.containment, &ws.root, &seal.programs);
    // The run's copy of the package stores, read-only and offline (`room::stores`).
    if let Some(room) = &ws.room {
        crate::room::stores::bind_for_checks(&mut cfg, room, &seal.env);
        // Go's build cache: the room's, written only by pawl's own builds (`room::gocache`).
        crate::room::gocache::bind_for_checks(&mut cfg, room);
    }
    cfg
}

/// Runs the sealed checks on the tree as it is now (before the agent's first step).
pub fn take(ws: &Workspace, seal: &Seal) -> Result<Baseline, BaselineError> {
    let repo = pawl_git::Repo::open(&ws.root)?;
    let tree = repo.tree_hash()?.to_string();
    let step = u64::try_from(jiff::Timestamp::now().as_millisecond()).unwrap_or(0);
    let mut cfg = runner_for(ws, seal, step);
    let layout = pawl_verify::platform::Descriptors::builtin()
        .map(|d| d.environment())
        .unwrap_or_default();
    let mut environment = None;
    let mut setup = None;
    // In the run's room when it has one (which also warms it for the first verification),
    // with the project's environment taken at the seal.
    let _room = match &ws.room {
        Some(dir) => {
            let mut room = crate::room::Room::open(&repo, dir)?;
            let id = pawl_git::TreeHash::new(tree.clone())
                .ok_or_else(|| BaselineError::Room(format!("not a tree id: {tree}")))?;
            room.sync(&repo, &id)?;
            // The seal's copies of the package stores the tree locks (cargo's registry and git
            // checkouts, Go's module cache), which every check of the run reads instead of the
            // user's (`room::stores`). A copy that fails is no copy: those checks read the
            // user's store as before.
            crate::room::stores::take_all(room.root(), dir, &seal.env);
            room.take_environment(&repo, &layout)?;
            room.seal_outside(&seal.env, repo.root())?;
            // Made again: the store it bound may have changed just now.
            cfg = runner_for(ws, seal, step);
            cfg.in_room(ws.checks_path(), room.root());
            // A declared `[room] setup` for a project with no environment directory: run once
            // per dependency-manifest digest.
            setup = prepare_room(&mut room, &repo, &id, seal, &mut cfg)?.map(Box::new);
            // The path the checks see the room at: the repository's own under the check
            // sandbox's mount, else the room's.
            let view = cfg.root.clone();
            if let Some(state) = room.environment() {
                in_room_env(&mut cfg, &state, &view, seal);
                let dirs: Vec<String> = state.dirs.keys().cloned().collect();
                // Seen at the repository's path, an absolute path into the repository resolves
                // to the room: only a room seen at its own path can leak into the live tree.
                let leaks = if view == ws.root {
                    Vec::new()
                } else {
                    crate::room::env::leaks(room.root(), &dirs, repo.root())
                        .iter()
                        .map(ToString::to_string)
                        .collect()
                };
                environment = Some(BaselineEnv {
                    leaks,
                    dirs,
                    bins: state.bins.clone(),
                })
                .filter(|e| !e.dirs.is_empty());
            }
            // pawl's own build of the tree warms the checks' Go build cache.
            let commands: Vec<&str> = seal.checks.iter().map(|c| c.command.as_str()).collect();
            crate::room::gocache::warm(&cfg, room.root(), &commands);
            // pawl's own transform pass of the tree warms the checks' jest cache.
            crate::room::jestcache::warm(&mut cfg, &room, &commands);
            Some(room)
        }
        None => None,
    };
    let env_facts = EnvFactsOwned::gather(&cfg.root, environment.as_ref(), &seal.goal_names);
    let runs = run_sealed(
        ws,
        Some(seal),
        &crate::hidden::checks_of(seal, ws.vault.as_ref())?,
        &cfg,
    );
    let mut checks = Vec::new();
    for r in runs {
        let exit_code = r.end.exit_code();
        // A check that fails for the environment refuses the run, whatever its exit code.
        let env_failure = if r.passed {
            None
        } else {
            env_facts.classify(&r)
        };
        let cannot_start = match &r.end {
            CheckEnd::SpawnFailed { message, .. } => Some(message.clone()),
            _ if matches!(exit_code, Some(126 | 127)) => Some(format!(
                "exit {}: {}",
                exit_code.unwrap_or_default(),
                last_line(&r.tail)
            )),
            _ => None,
        };
        if let Some(why) = cannot_start {
            return Err(BaselineError::CannotStart {
                check: r.check.name.clone(),
                command: r.check.command.clone(),
                why: match env_failure {
                    Some(f) => format!("{why}; {}", f.fix),
                    None => why,
                },
            });
        }
        if let Some(failure) = env_failure {
            return Err(BaselineError::Environment {
                check: r.check.name.clone(),
                failure,
            });
        }
        let role = seal
            .checks
            .iter()
            .find(|c| c.name == r.check.name)
            .map(|c| c.role);
        if role == Some(CheckRole::Acceptance) && r.passed {
            return Err(BaselineError::AcceptanceAlreadyPasses {
                check: r.check.name.clone(),
            });
        }
        // The baseline is stored where the agent reads it: a hidden check's tests are not.
        let shown = role != Some(CheckRole::Hidden);
        checks.push(BaselineCheck {
            name: r.check.name.clone(),
            passed: r.passed,
            end: r.end.kind().to_string(),
            exit_code,
            tests: r
                .tests
                .as_ref()
                .filter(|_| shown)
                .map(|t| t.tests.clone())
                .unwrap_or_default(),
            failing: r
                .tests
                .as_ref()
                .filter(|_| shown)
                .map(|t| t.failing.clone())
                .unwrap_or_default(),
            first_failure: r
                .failure
                .as_ref()
                .filter(|_| shown && !r.passed)
                .map(|f| f.message.clone()),
            items: r.items.clone().filter(|_| shown),
            counts: r
                .tests
                .as_ref()
                .filter(|_| shown)
                .map(pawl_verify::parse::TestSummary::counts),
        });
    }
    Ok(Baseline {
        tree,
        checks,
        environment,
        setup,
    })
}

/// Brings the room's environment to the dependency manifests of `tree`
/// ([`crate::room::Room::prepare_environment`], with the sealed `[room] setup`), then sets the
/// checks' variables for it. A setup that failed is returned too (its log says why); the
/// checks then run with the environment the room had.
pub fn prepare_room(
    room: &mut crate::room::Room,
    repo: &pawl_git::Repo,
    tree: &pawl_git::TreeHash,
    seal: &Seal,
    cfg: &mut RunnerConfig,
) -> Result<Option<crate::room::setup::SetupRun>, crate::room::RoomError> {
    let layout = pawl_verify::platform::Descriptors::builtin()
        .map(|d| d.environment())
        .unwrap_or_default();
    let ran = room.prepare_environment(repo, tree, &layout, &seal.setup, cfg)?;
    if ran.is_some()
        && let Some(state) = room.environment()
    {
        let view = cfg.root.clone();
        in_room_env(cfg, &state, &view, seal);
    }
    Ok(ran)
}

/// Why a room apart ([`room_apart`]) could not be made ready.
#[derive(Debug, thiserror::Error)]
pub enum ApartError {
    #[error("git: {0}")]
    Git(#[from] pawl_git::Error),
    #[error("the clean room: {0}")]
    Room(#[from] crate::room::RoomError),
    #[error("no clean room is available (no user state directory)")]
    NoRoom,
    #[error(
        "the project's environment changed since the seal ({0}): a room taking it now would not hold the seal's"
    )]
    EnvironmentChanged(String),
}

/// A room of its own beside the run's (`<room>-<suffix>`: the pre-run proof's `base`, the
/// re-check's `recheck`) holding `tree`, with the project's environment as the run's room has
/// it: the main repository's environment directories taken as the seal took them (a story's
/// room takes them the same way), brought to `tree`'s dependency manifests with the sealed
/// `[room] setup`, first on the checks' `PATH`. Refused when the repository's environment is no
/// longer the one the seal took: the checks would run with packages the run's never had.
/// Returns the room (held) and the checks' configuration in it.
pub fn room_apart(
    ws: &Workspace,
    suffix: &str,
    tree: &pawl_git::TreeHash,
    seal: &Seal,
) -> Result<(crate::room::Room, RunnerConfig), ApartError> {
    let changed = crate::room::env::repo_env_change_list(ws);
    if !changed.is_empty() {
        let lines = pawl_core::envmanifest::change_lines(&changed);
        return Err(ApartError::EnvironmentChanged(lines.join("; ")));
    }
    let room_dir = ws.room.clone().ok_or(ApartError::NoRoom)?;
    let name = room_dir
        .file_name()
        .map(|n| format!("{}-{suffix}", n.to_string_lossy()))
        .unwrap_or_else(|| suffix.to_owned());
    let repo = pawl_git::Repo::open(&ws.root)?;
    let mut room = crate::room::Room::open(&repo, &room_dir.with_file_name(name))?;
    room.environment_from(ws.seen_at.as_deref());
    room.sync(&repo, tree)?;
    let main = match ws.seen_at.as_deref() {
        Some(main) => pawl_git::Repo::open(main)?,
        None => repo.clone(),
    };
    let layout = pawl_verify::platform::Descriptors::builtin()
        .map(|d| d.environment())
        .unwrap_or_default();
    room.take_environment(&main, &layout)?;
    let mut cfg = runner_for(
        ws,
        seal,
        u64::try_from(jiff::Timestamp::now().as_millisecond()).unwrap_or(0),
    );
    cfg.in_room(ws.checks_path(), room.root());
    // What the setup logged is the run's business; a failed one leaves the environment taken.
    let _ = prepare_room(&mut room, &repo, tree, seal, &mut cfg)?;
    if let Some(state) = room.environment() {
        let view = cfg.root.clone();
        in_room_env(&mut cfg, &state, &view, seal);
    }
    let commands: Vec<&str> = seal.checks.iter().map(|c| c.command.as_str()).collect();
    crate::room::gocache::warm(&cfg, room.root(), &commands);
    // No jest pass here: a room apart runs its checks once, and the pass costs more than one
    // cold transform; its checks see no pawl jest cache (`room::jestcache`).
    Ok((room, cfg))
}

/// Sets the room's environment for the checks (see [`crate::room::env::check_vars`]). Without
/// the check namespace the checks see the room at its own path, so the bin directories are
/// named there.
pub fn in_room_env(
    cfg: &mut RunnerConfig,
    state: &crate::room::env::EnvState,
    view_root: &std::path::Path,
    seal: &Seal,
) {
    let vars = crate::room::env::check_vars(state, view_root, &seal.env);
    crate::room::env::apply(cfg, vars);
}

/// What the environment-failure classification needs, gathered from the room.
struct EnvFactsOwned {
    root: std::path::PathBuf,
    goal_names: Vec<String>,
    python_env: Option<String>,
    node_modules: bool,
    node_project: bool,
    python_project: bool,
}

/// Most of a check's log read for environment failures (its end).
const MAX_ENV_LOG: u64 = 2 * 1024 * 1024;

impl EnvFactsOwned {
    fn gather(root: &std::path::Path, env: Option<&BaselineEnv>, goal_names: &[String]) -> Self {
        let dirs = env.map(|e| e.dirs.clone()).unwrap_or_default();
        let python_files = [
            "pyproject.toml",
            "setup.py",
            "setup.cfg",
            "requirements.txt",
        ];
        EnvFactsOwned {
            root: root.to_owned(),
            goal_names: goal_names.to_vec(),
            python_env: dirs
                .iter()
                .find(|d| root.join(d).join("pyvenv.cfg").is_file())
                .cloned(),
            node_modules: dirs.iter().any(|d| d == "node_modules"),
            node_project: root.join("package.json").is_file(),
            python_project: python_files.iter().any(|f| root.join(f).is_file()),
        }
    }

    /// The environment failure a failed check's output shows (its log, else its tail).
    fn classify(&self, r: &pawl_verify::CheckRun) -> Option<pawl_core::envfail::EnvFailure> {
        let log = r
            .log_path
            .as_deref()
            .and_then(|p| read_end(p, MAX_ENV_LOG))
            .unwrap_or_else(|| r.tail.clone());
        // pawl's own header (the command line, the cwd) is not the check's output: a command
        // that mentions `ECONNREFUSED` or `not found` says nothing about the environment.
        let log = without_log_header(&log);
        let repo_module = |name: &str| repo_module(&self.root, name);
        let facts = pawl_core::envfail::EnvFacts {
            goal_names: &self.goal_names,
            repo_module: &repo_module,
            python_env: self.python_env.clone(),
            node_modules: self.node_modules,
            node_project: self.node_project,
            python_project: self.python_project,
        };
        pawl_core::envfail::environment_failure(log, &facts).or_else(|| {
            // Exit 127 said nothing recognisable: the shell could not find the program.
            (r.end.exit_code() == Some(127))
                .then(|| pawl_core::seal::program_of(&r.check.command))
                .flatten()
                .and_then(|p| {
                    pawl_core::envfail::environment_failure(
                        &format!("sh: 1: {p}: not found"),
                        &facts,
                    )
                })
        })
    }
}

/// Where a module an error names stands in the tree at `root`: a Python dotted name (`a.b`,
/// looked up at the root and under `src/`, `lib/`), or a relative JavaScript path.
fn repo_module(root: &std::path::Path, name: &str) -> pawl_core::envfail::RepoModule {
    use pawl_core::envfail::RepoModule;
    if name.starts_with("./") || name.starts_with("../") || name.starts_with('/') {
        // Relative to a file we do not know: the repository's own, to be created.
        return RepoModule::Missing;
    }
    let parts: Vec<&str> = name.split('.').collect();
    let plain = parts
        .iter()
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
    if !plain {
        return RepoModule::Foreign;
    }
    let exists = |base: &std::path::Path, parts: &[&str]| {
        let p = parts.iter().fold(base.to_path_buf(), |acc, x| acc.join(x));
        p.is_dir() || p.with_extension("py").is_file()
    };
    for base in ["", "src", "lib", "python"] {
        let base = root.join(base);
        if parts.first().is_some_and(|top| exists(&base, &[top])) {
            return if exists(&base, &parts) {
                RepoModule::Present
            } else {
                RepoModule::Missing
            };
        }
    }
    RepoModule::Foreign
}

/// `text` without the header pawl-process writes at the top of a check's log (`# pawl-process
/// log`, `# argv: …`, `# cwd: …`): the lines starting `# ` right after that first line.
fn without_log_header(text: &str) -> &str {
    let Some(mut rest) = text.strip_prefix("# pawl-process log\n") else {
        return text;
    };
    while rest.starts_with("# ") {
        rest = rest.split_once('\n').map_or("", |(_, after)| after);
    }
    rest
}

fn read_end(path: &std::path::Path, max: u64) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(max))).ok()?;
    let mut buf = Vec::new();
    f.read_to_end(&mut buf).ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// The programs the seal's check commands start, resolved on the sealed `PATH`, with the
/// SHA-256 of each file: `name → "<path> <sha256>"` (`"<not found>"` when none is). A program
/// that is a version manager's proxy or shim ([`PROXIES`]: rustup's `cargo`, pyenv's `python`)
/// names the toolchain it runs too, asked of the manager: `"<path> <sha256> runs <real path>
/// <sha256>"`, so a toolchain replaced behind an unchanged proxy is seen (issue 31).
/// Hidden checks' commands come from `vault` (one it does not hold names no program).
pub fn tools_of(
    seal: &Seal,
    vault: Option<&crate::hidden::Vault>,
    root: &std::path::Path,
) -> std::collections::BTreeMap<String, String> {
    let path = seal.env.get("PATH").cloned().unwrap_or_default();
    let mut out = std::collections::BTreeMap::new();
    let checks = crate::hidden::checks_of(seal, vault).unwrap_or_default();
    for c in &checks {
        let Some(name) = pawl_core::seal::program_of(&c.command) else {
            continue;
        };
        if out.contains_key(name) {
            continue;
        }
        let found = path
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| std::path::Path::new(d).join(name))
            .find(|p| p.is_file());
        let value = match found {
            Some(p) => {
                let real = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
                let mut value = hashed(&real);
                if let Some(toolchain) = behind_proxy(&p, &real, name, seal, root) {
                    value = format!("{value} runs {}", hashed(&toolchain));
                }
                value
            }
            None => "<not found>".into(),
        };
        out.insert(name.to_string(), value);
    }
    out
}

/// `"<path> <sha256>"` of the file at `path` (`unreadable` for the digest when it cannot be read).
fn hashed(path: &std::path::Path) -> String {
    use sha2::{Digest, Sha256};
    let digest = std::fs::read(path)
        .map(|b| format!("{:x}", Sha256::digest(&b)))
        .unwrap_or_else(|_| "unreadable".into());
    format!("{} {digest}", path.display())
}

/// A version manager whose programs are proxies or shims: the file a check's program resolves
/// to is the manager's, and the toolchain it runs is what the manager answers to `which`.
pub struct Proxy {
    pub manager: &'static str,
    /// The program resolves (symbolic links followed) to a file of this name (rustup's proxies
    /// are links to `rustup`).
    pub resolves_to: Option<&'static str>,
    /// The program lies in a directory whose path ends so (pyenv's shims are scripts).
    pub in_dir: Option<&'static str>,
    /// How the manager is asked, `{}` the program's name; the first word is looked up beside
    /// the resolved program, then on the sealed `PATH`.
    pub which: &'static [&'static str],
}

/// The version managers pawl looks behind (rules as data).
pub const PROXIES: &[Proxy] = &[
    Proxy {
        manager: "rustup",
        resolves_to: Some("rustup"),
        in_dir: None,
        which: &["rustup", "which", "{}"],
    },
    Proxy {
        manager: "pyenv",
        resolves_to: None,
        in_dir: Some(".pyenv/shims"),
        which: &["pyenv", "which", "{}"],
    },
    Proxy {
        manager: "asdf",
        resolves_to: None,
        in_dir: Some(".asdf/shims"),
        which: &["asdf", "which", "{}"],
    },
    Proxy {
        manager: "mise",
        resolves_to: None,
        in_dir: Some("mise/shims"),
        which: &["mise", "which", "{}"],
    },
    Proxy {
        manager: "volta",
        resolves_to: Some("volta-shim"),
        in_dir: None,
        which: &["volta", "which", "{}"],
    },
];

/// The toolchain binary the proxy `found` (resolved: `real`) runs for `name`, asked of its
/// manager with the sealed environment in the repository (a `rust-toolchain.toml` or
/// `.python-version` there decides too). `None`: not a proxy, or the manager did not say.
fn behind_proxy(
    found: &std::path::Path,
    real: &std::path::Path,
    name: &str,
    seal: &Seal,
    root: &std::path::Path,
) -> Option<std::path::PathBuf> {
    let proxy = PROXIES.iter().find(|p| {
        p.resolves_to
            .is_some_and(|n| real.file_name().is_some_and(|f| f == n) && name != n)
            || p.in_dir
                .is_some_and(|d| found.parent().is_some_and(|dir| dir.ends_with(d)))
    })?;
    let (program, args) = proxy.which.split_first()?;
    let beside = real.with_file_name(program);
    let manager = if beside.is_file() {
        beside
    } else {
        let path = seal.env.get("PATH")?;
        pawl_process::which(program, std::ffi::OsStr::new(path))?
    };
    let out = std::process::Command::new(manager)
        .args(args.iter().map(|a| a.replace("{}", name)))
        .env_clear()
        .envs(&seal.env)
        .current_dir(if root.is_dir() {
            root
        } else {
            std::path::Path::new("/")
        })
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let line = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()?
        .trim()
        .to_owned();
    let toolchain = std::path::PathBuf::from(line);
    (out.status.success() && toolchain.is_absolute())
        .then(|| std::fs::canonicalize(&toolchain).unwrap_or(toolchain))
}

/// The files outside the repository at `root` that `commands` start (`Seal::programs`): each
/// command's program (`pawl_core::seal::program_word`: named by its path, relative to the
/// repository, or found on `env`'s `PATH`) as named and as its links resolve, the interpreter
/// a script names (`#!`; `#!/usr/bin/env NAME` looked up on `PATH`), and a virtualenv's base
/// interpreter (its `pyvenv.cfg`). Files that exist, each once. The check sandbox keeps their
/// installation prefixes in sight (pawl-process's `sandbox::check::program_place`).
pub fn programs_outside<'a>(
    commands: impl IntoIterator<Item = &'a str>,
    env: &std::collections::BTreeMap<String, String>,
    root: &std::path::Path,
) -> Vec<String> {
    use std::path::PathBuf;
    let path = std::ffi::OsString::from(env.get("PATH").cloned().unwrap_or_default());
    let roots = [
        root.to_path_buf(),
        std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
    ];
    let resolve = |word: &str| -> Option<PathBuf> {
        if word.contains('/') {
            Some(lexical(&root.join(word)))
        } else {
            pawl_process::which(word, &path)
        }
    };
    let mut out: Vec<PathBuf> = Vec::new();
    // The commands, then those of the shell scripts they start (`./run-tests.sh`, `sh
    // ci/test.sh`): a program a script starts is in sight like the check's own. Scripts are
    // followed two levels deep, at most `MAX_SCRIPT_COMMANDS` commands each.
    let mut queue: std::collections::VecDeque<(String, usize)> = commands
        .into_iter()
        .map(|c| (c.to_owned(), 0usize))
        .collect();
    let mut read_scripts: Vec<PathBuf> = Vec::new();
    while let Some((command, depth)) = queue.pop_front() {
        let Some(word) = pawl_core::seal::program_word(&command, env) else {
            continue;
        };
        let Some(named) = resolve(&word) else {
            continue;
        };
        // A shell script the command runs: the program itself (`#!` a shell) or the first
        // operand of a shell (`sh ci/test.sh`).
        let script = if is_shell(&named) {
            script_operand(&command, env).and_then(|w| resolve(&w))
        } else {
            interpreter(&named, &path)
                .is_some_and(|i| is_shell(&i))
                .then(|| named.clone())
        };
        if let Some(script) = script.filter(|s| depth < 2 && !read_scripts.contains(s)) {
            queue.extend(script_commands(&script).into_iter().map(|c| (c, depth + 1)));
            read_scripts.push(script);
        }
        // The program, then what each found file leads to (a link's target, a script's
        // interpreter, a virtualenv's base interpreter), a few at most.
        let mut found = vec![named];
        let mut i = 0;
        while let Some(p) = found.get(i).cloned().filter(|_| i < 8) {
            let next = std::fs::canonicalize(&p)
                .into_iter()
                .chain(interpreter(&p, &path))
                .chain(venv_base(&p));
            for n in next {
                if !found.contains(&n) {
                    found.push(n);
                }
            }
            i += 1;
        }
        for p in found {
            if p.is_file() && !roots.iter().any(|r| p.starts_with(r)) && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out.into_iter().map(|p| p.display().to_string()).collect()
}

/// The most commands read from one script a check starts.
const MAX_SCRIPT_COMMANDS: usize = 64;

/// Whether `p` is a POSIX-family shell (by its name: `sh`, `bash`, `dash`, `zsh`, `ksh`).
fn is_shell(p: &std::path::Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| matches!(n, "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh"))
}

/// The script a shell command runs: its first operand after options (`bash -e ci/t.sh` →
/// `ci/t.sh`); `None` for `sh -c '…'` (the text is the command, not a file).
fn script_operand(
    command: &str,
    env: &std::collections::BTreeMap<String, String>,
) -> Option<String> {
    let mut words = command.split_whitespace().skip_while(|w| {
        w.split_once('=').is_some_and(|(n, _)| {
            !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    });
    words.next()?;
    for w in words {
        if w == "-c" {
            return None;
        }
        if w.starts_with('-') || w.starts_with('+') {
            continue;
        }
        return pawl_core::seal::program_word(w, env);
    }
    None
}

/// The simple commands of the shell script at `p`, as text (at most [`MAX_SCRIPT_COMMANDS`],
/// from its first 64 KiB): each line split at `;`, `&&`, `||` and `|`, with a leading keyword
/// (`if`, `then`, `do`, `!`, `time`, …) dropped. What a line builds at run time (`$(…)`,
/// globs) is left to `program_word`, which gives up on it.
fn script_commands(p: &std::path::Path) -> Vec<String> {
    use std::io::Read as _;
    let mut text = String::new();
    let Ok(f) = std::fs::File::open(p) else {
        return Vec::new();
    };
    if f.take(64 * 1024).read_to_string(&mut text).is_err() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        for part in line.split(['&', '|', ';']) {
            let mut part = part.trim();
            while let Some((first, rest)) = part.split_once(char::is_whitespace) {
                if matches!(
                    first,
                    "if" | "then" | "else" | "elif" | "do" | "while" | "until" | "!" | "time"
                ) {
                    part = rest.trim_start();
                } else {
                    break;
                }
            }
            if part.is_empty() || matches!(part, "fi" | "done" | "else" | "then" | "do" | "esac") {
                continue;
            }
            out.push(part.to_owned());
            if out.len() >= MAX_SCRIPT_COMMANDS {
                return out;
            }
        }
    }
    out
}

/// `p` with `.` and `..` resolved lexically (`/r/repo/../tools/x` → `/r/tools/x`).
fn lexical(p: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The interpreter the script at `p` names on its `#!` line (`env NAME`: found on `path`).
fn interpreter(p: &std::path::Path, path: &std::ffi::OsStr) -> Option<std::path::PathBuf> {
    use std::io::Read as _;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(p).ok()?.read(&mut head).ok()?;
    let text = String::from_utf8_lossy(head.get(..n)?);
    let line = text.strip_prefix("#!")?.lines().next()?;
    let mut words = line.split_whitespace();
    let program = std::path::PathBuf::from(words.next()?);
    if program.file_name().is_some_and(|n| n == "env") {
        let name = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
        return pawl_process::which(name, path);
    }
    program.is_absolute().then_some(program)
}

/// The base interpreter of the virtualenv whose `bin/` holds `p` (`pyvenv.cfg`'s `executable`,
/// else `python3` in its `home`).
fn venv_base(p: &std::path::Path) -> Option<std::path::PathBuf> {
    let bin = p
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == "bin"))?;
    let cfg = std::fs::read_to_string(bin.parent()?.join("pyvenv.cfg")).ok()?;
    let value = |key: &str| {
        cfg.lines().find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| std::path::PathBuf::from(v.trim()))
        })
    };
    value("executable")
        .filter(|e| e.is_absolute())
        .or_else(|| value("home").map(|h| h.join("python3")))
}

/// Runs `checks`; hidden ones (by the seal) write their logs out of the repository, where the
/// agent reads `.pawl/logs`.
pub fn run_sealed(
    ws: &Workspace,
    seal: Option<&Seal>,
    checks: &[Check],
    cfg: &RunnerConfig,
) -> Vec<pawl_verify::CheckRun> {
    let hidden = |c: &Check| {
        seal.is_some_and(|s| {
            s.checks
                .iter()
                .any(|k| k.name == c.name && k.role == CheckRole::Hidden)
        })
    };
    let (secret, shown): (Vec<Check>, Vec<Check>) = checks.iter().cloned().partition(hidden);
    let mut runs = run_checks(&shown, cfg);
    if !secret.is_empty() {
        let mut hidden_cfg = cfg.clone();
        hidden_cfg.logs_dir = ws.hidden_logs();
        runs.extend(run_checks(&secret, &hidden_cfg));
    }
    // In the order asked for.
    runs.sort_by_key(|r| checks.iter().position(|c| c.name == r.check.name));
    runs
}

fn last_line(tail: &str) -> String {
    tail.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .chars()
        .take(200)
        .collect()
}

#[cfg(test)]
mod log_header_tests {
    use super::without_log_header;

    #[test]
    fn the_header_of_a_check_s_log_is_not_its_output() {
        let log = "# pawl-process log\n# argv: /bin/sh -c 'echo ECONNREFUSED 127.0.0.1:5432'\n# cwd: /r\nreal output\n# end: exited with code 1\n";
        assert_eq!(
            without_log_header(log),
            "real output\n# end: exited with code 1\n"
        );
        // A log read from its middle (no header) is kept whole, `# ` lines of the output too.
        assert_eq!(without_log_header("# pkg\nerr\n"), "# pkg\nerr\n");
        assert_eq!(without_log_header("# pawl-process log\n# argv: x"), "");
    }
}

#[cfg(test)]
mod tools_tests {
    use pawl_core::seal::{CheckRole, Seal, SealedCheck};

    /// Issue 30: the files outside the repository a gate starts — a virtualenv's `python`
    /// named by its path through `$HOME`, its link's target and its `pyvenv.cfg` base, a
    /// script beside the repository with the interpreter its `#!` names, a program on `PATH` —
    /// and nothing inside the repository.
    #[test]
    fn a_gates_programs_outside_the_repository_are_resolved_with_what_they_lead_to() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let d = std::fs::canonicalize(dir.path()).expect("canonical");
        let (home, repo) = (d.join("home"), d.join("repo"));
        let base = d.join("py/bin");
        let venv = home.join("somewhere/myenv");
        let tools = d.join("tools/bin");
        for p in [&repo.join(".venv/bin"), &base, &venv.join("bin"), &tools] {
            std::fs::create_dir_all(p).expect("mkdir");
        }
        std::fs::write(base.join("python3.12"), "base").expect("base");
        std::os::unix::fs::symlink(base.join("python3.12"), venv.join("bin/python")).expect("link");
        std::fs::write(
            venv.join("pyvenv.cfg"),
            format!(
                "home = {}\nexecutable = {}/python3.12\n",
                base.display(),
                base.display()
            ),
        )
        .expect("cfg");
        std::fs::write(tools.join("style"), "#!/usr/bin/env tool-sh -e\n").expect("style");
        std::fs::write(tools.join("tool-sh"), "sh").expect("tool-sh");
        std::fs::write(repo.join(".venv/bin/pytest"), "inside").expect("inside");
        for f in [
            tools.join("style"),
            tools.join("tool-sh"),
            repo.join(".venv/bin/pytest"),
        ] {
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).expect("mode");
        }
        let env: std::collections::BTreeMap<String, String> = [
            ("HOME".to_owned(), home.display().to_string()),
            ("PATH".to_owned(), tools.display().to_string()),
        ]
        .into();
        let got = super::programs_outside(
            [
                "\"$HOME/somewhere/myenv/bin/python\" -m pytest",
                "../tools/bin/style --check",
                "tool-sh x",
                ".venv/bin/pytest",
                "$(nope)",
            ],
            &env,
            &repo,
        );
        let want: Vec<String> = [
            venv.join("bin/python"),
            base.join("python3.12"),
            tools.join("style"),
            tools.join("tool-sh"),
        ]
        .iter()
        .map(|p| p.display().to_string())
        .collect();
        assert_eq!(got, want);
    }

    /// Issue 30: a program a check's shell script starts is resolved like the check's own —
    /// `./run-tests.sh` (its `#!` a shell) and `sh ci/lint.sh` (a shell's operand), a script
    /// that starts another, two levels deep — but never the text of `sh -c '…'` as a file,
    /// nor a script's comments.
    #[test]
    fn the_programs_a_checks_shell_script_starts_are_resolved_too() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let d = std::fs::canonicalize(dir.path()).expect("canonical");
        let (home, repo) = (d.join("home"), d.join("repo"));
        let envs = home.join("envs/x/bin");
        let tools = d.join("tools/bin");
        for p in [&repo.join("ci"), &envs, &tools] {
            std::fs::create_dir_all(p).expect("mkdir");
        }
        for (p, text) in [
            (envs.join("python"), "py".to_owned()),
            (tools.join("lint"), "lint".to_owned()),
            (tools.join("deep"), "deep".to_owned()),
            (tools.join("commented"), "no".to_owned()),
            (
                repo.join("run-tests.sh"),
                "#!/bin/sh\nset -e\n# commented --x\nif true; then \"$HOME/envs/x/bin/python\" -m pytest; fi\nsh ci/deep.sh\n".to_owned(),
            ),
            (repo.join("ci/lint.sh"), "FOO=1 lint --all && echo done\n".to_owned()),
            (repo.join("ci/deep.sh"), "deep -v | cat\n".to_owned()),
        ] {
            std::fs::write(&p, text).expect("write");
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("mode");
        }
        let env: std::collections::BTreeMap<String, String> = [
            ("HOME".to_owned(), home.display().to_string()),
            (
                "PATH".to_owned(),
                format!("{}:/usr/bin:/bin", tools.display()),
            ),
        ]
        .into();
        let got = super::programs_outside(
            ["./run-tests.sh", "sh ci/lint.sh", "sh -c 'commented'"],
            &env,
            &repo,
        );
        for want in [envs.join("python"), tools.join("lint"), tools.join("deep")] {
            assert!(
                got.contains(&want.display().to_string()),
                "{} not in {got:?}",
                want.display()
            );
        }
        assert!(!got.iter().any(|p| p.ends_with("/commented")), "{got:?}");
        assert!(
            !got.iter()
                .any(|p| p.starts_with(&repo.display().to_string())),
            "{got:?}"
        );
    }

    /// A toolchain replaced behind rustup's unchanged proxy (a link to `rustup`) changes what
    /// the seal records of the checks' program; a program that is no proxy names no toolchain.
    #[test]
    fn a_toolchain_replaced_behind_an_unchanged_proxy_is_seen() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let bin = dir.path().join("bin");
        let toolchain = dir.path().join("toolchains/stable/bin");
        std::fs::create_dir_all(&bin).expect("bin");
        std::fs::create_dir_all(&toolchain).expect("toolchain");
        let rustup = bin.join("rustup");
        std::fs::write(
            &rustup,
            format!(
                "#!/bin/sh\n[ \"$1\" = which ] && echo {}/\"$2\"\n",
                toolchain.display()
            ),
        )
        .expect("rustup");
        std::fs::set_permissions(&rustup, std::fs::Permissions::from_mode(0o755)).expect("mode");
        std::os::unix::fs::symlink("rustup", bin.join("cargo")).expect("proxy");
        std::fs::write(toolchain.join("cargo"), "real cargo 1").expect("cargo");
        std::fs::write(bin.join("make"), "make").expect("make");
        let mut seal = Seal::default();
        seal.env.insert("PATH".into(), bin.display().to_string());
        seal.checks = vec![
            SealedCheck::new("test", "cargo test", CheckRole::Gate),
            SealedCheck::new("build", "make", CheckRole::Gate),
        ];
        let before = super::tools_of(&seal, None, dir.path());
        let cargo = &before["cargo"];
        assert!(
            cargo.contains(&format!(" runs {}", toolchain.join("cargo").display())),
            "{cargo}"
        );
        assert!(!before["make"].contains(" runs "), "{}", before["make"]);
        // The proxy stays as it was; the toolchain behind it is replaced.
        std::fs::write(toolchain.join("cargo"), "evil cargo").expect("replace");
        let after = super::tools_of(&seal, None, dir.path());
        assert_ne!(after["cargo"], *cargo);
        assert_eq!(after["make"], before["make"]);
    }
}
