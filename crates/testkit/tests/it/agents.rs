//! Finding the real agent CLIs, isolating each run, and spawning them.
//!
//! The binaries come from `PAWL_CLAUDE_BIN` / `PAWL_CODEX_BIN` or the cache `.ci/install-agents.sh`
//! fills. Missing binaries fail the test when `CI=true` and skip it loudly otherwise. Every run gets
//! a cleared environment and its own HOME, TMPDIR (and CODEX_HOME), as the e2e report prescribes.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use pawl_testkit::MockServer;
use serde_json::Value;

/// The agent CLI versions the real-client tests run: `.ci/agent-versions`, the one file that pins
/// them (this crate does not depend on pawl-agent, whose `pins` module reads the same file).
const PINS: &str = include_str!("../../../../.ci/agent-versions");

/// `var`'s value in [`PINS`].
pub fn pinned(var: &str) -> &'static str {
    PINS.lines()
        .find_map(|l| l.trim().strip_prefix(var)?.strip_prefix('='))
        .map(|v| v.trim().trim_matches('"'))
        .unwrap_or_else(|| panic!("{var} not in .ci/agent-versions"))
}

pub fn claude_version() -> &'static str {
    pinned("PAWL_CLAUDE_VERSION")
}

pub fn codex_version() -> &'static str {
    pinned("PAWL_CODEX_VERSION")
}

/// Which agent CLI.
#[derive(Debug, Clone, Copy)]
pub enum Agent {
    Claude,
    Codex,
}

impl Agent {
    fn env_var(self) -> &'static str {
        match self {
            Agent::Claude => "PAWL_CLAUDE_BIN",
            Agent::Codex => "PAWL_CODEX_BIN",
        }
    }

    fn cached_path(self) -> Option<PathBuf> {
        let cache = match std::env::var_os("PAWL_AGENT_CACHE") {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(std::env::var_os("HOME")?).join(".cache/pawl-agents"),
        };
        match self {
            Agent::Claude => {
                let modules = cache.join(format!("claude-code-{}/node_modules", claude_version()));
                let wrapper = modules.join(".bin/claude");
                // Without its postinstall the wrapper is a ~500-byte stub that exits 1; the real
                // binary then sits in the platform package (what install-agents.sh falls back to).
                let is_stub = std::fs::metadata(&wrapper).is_ok_and(|meta| meta.len() < 100_000);
                if !is_stub {
                    return Some(wrapper);
                }
                let platform = std::fs::read_dir(modules.join("@anthropic-ai")).ok()?;
                platform
                    .filter_map(Result::ok)
                    .map(|entry| entry.path().join("claude"))
                    .find(|path| path.is_file())
            }
            Agent::Codex => {
                Some(cache.join(format!("codex-{}/node_modules/.bin/codex", codex_version())))
            }
        }
    }
}

/// The CLI's binary, or `None` after a loud skip line. Panics under `CI=true` when it is missing.
pub fn find(agent: Agent) -> Option<PathBuf> {
    let path = std::env::var_os(agent.env_var())
        .map(PathBuf::from)
        .or_else(|| agent.cached_path());
    if let Some(path) = path.filter(|path| path.is_file()) {
        return Some(path);
    }
    let message = format!(
        "{agent:?} CLI not found: set {} or run `source .ci/install-agents.sh`",
        agent.env_var()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED (real-CLI test): {message}");
    None
}

/// An isolated place to run one CLI: `home/`, `tmp/`, `codex_home/` and a git repo `repo/`.
pub struct Sandbox {
    pub root: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        let root = tempfile::Builder::new()
            .prefix("pawl-agent-")
            .tempdir()
            .unwrap();
        for dir in ["home", "tmp", "codex_home", "repo"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let repo = root.path().join("repo");
        for args in [
            &["init", "-q"][..],
            &[
                "-c",
                "user.email=t@example.invalid",
                "-c",
                "user.name=t",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "init",
            ][..],
        ] {
            let status = Command::new("git")
                .args(args)
                .current_dir(&repo)
                .env("HOME", root.path().join("home"))
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "git {args:?} failed");
        }
        Self { root }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    pub fn repo(&self) -> PathBuf {
        self.path("repo")
    }

    /// The variables every run gets; everything else is cleared.
    fn base_env(&self) -> Vec<(String, String)> {
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
        vec![
            ("PATH".into(), path),
            ("HOME".into(), self.path("home").display().to_string()),
            ("TMPDIR".into(), self.path("tmp").display().to_string()),
            ("TERM".into(), "dumb".into()),
            ("LANG".into(), "C.UTF-8".into()),
        ]
    }

    /// Environment for Claude Code: quiet (no telemetry, updater or preflight), pointed at the mock.
    /// `IS_SANDBOX=1` lets `--dangerously-skip-permissions` run as root.
    pub fn claude_env(&self, base_url: &str) -> Vec<(String, String)> {
        let mut env = self.base_env();
        for (key, value) in [
            ("DISABLE_AUTOUPDATER", "1"),
            ("DISABLE_TELEMETRY", "1"),
            ("DISABLE_ERROR_REPORTING", "1"),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("ANTHROPIC_BASE_URL", base_url),
            ("ANTHROPIC_API_KEY", "dummy"),
            ("IS_SANDBOX", "1"),
        ] {
            env.push((key.into(), value.into()));
        }
        env
    }

    /// Environment for Codex, after writing `$CODEX_HOME/config.toml` with a custom Responses
    /// provider at the mock. The retry counts matter: with 0 a single 5xx fails the run.
    pub fn codex_env(&self, base_url: &str, retries: CodexRetries) -> Vec<(String, String)> {
        let CodexRetries {
            request: request_max_retries,
            stream: stream_max_retries,
        } = retries;
        let config = format!(
            r#"model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = "{base_url}/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"
request_max_retries = {request_max_retries}
stream_max_retries = {stream_max_retries}

[analytics]
enabled = false

[features]
plugins = false
"#
        );
        std::fs::write(self.path("codex_home").join("config.toml"), config).unwrap();
        let mut env = self.base_env();
        env.push((
            "CODEX_HOME".into(),
            self.path("codex_home").display().to_string(),
        ));
        env.push(("MOCK_API_KEY".into(), "dummy".into()));
        env
    }
}

/// Codex provider retry settings (`request_max_retries`, `stream_max_retries`).
#[derive(Debug, Clone, Copy, Default)]
pub struct CodexRetries {
    pub request: u32,
    pub stream: u32,
}

/// What a CLI run produced.
#[derive(Debug)]
pub struct CliRun {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub wall: Duration,
}

impl CliRun {
    /// The stdout JSON lines (stream-json / --json).
    pub fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// The last event of the given `type`.
    pub fn last_event(&self, kind: &str) -> Option<Value> {
        self.events()
            .into_iter()
            .rev()
            .find(|event| event["type"] == kind)
    }

    pub fn describe(&self) -> String {
        format!(
            "status {:?} after {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.status, self.wall, self.stdout, self.stderr
        )
    }
}

/// Spawns `program` with exactly `env`, stdin closed, both pipes drained, killed at `timeout`.
/// The one place these tests start a child process.
pub fn run_cli(
    program: &Path,
    args: &[&str],
    env: &[(String, String)],
    cwd: &Path,
    timeout: Duration,
) -> CliRun {
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .env_clear()
        .envs(env.iter().map(|(key, value)| (key, value)))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("spawning {}: {err}", program.display()));
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            let status = child.wait().unwrap();
            let run = CliRun {
                status,
                stdout: stdout.join().unwrap(),
                stderr: stderr.join().unwrap(),
                wall: started.elapsed(),
            };
            panic!(
                "{} timed out after {timeout:?}\n{}",
                program.display(),
                run.describe()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    CliRun {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        wall: started.elapsed(),
    }
}

/// With `PAWL_UPDATE_FIXTURES=1`, saves a run's stdout under `fixtures/streams/<name>`, with the
/// sandbox path replaced by `/sandbox` and the mock's address by `127.0.0.1:PORT`, so the files do
/// not change from run to run for those reasons.
pub fn maybe_record_fixture(name: &str, run: &CliRun, sandbox: &Sandbox, server: &MockServer) {
    if std::env::var("PAWL_UPDATE_FIXTURES").as_deref() != Ok("1") {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/streams");
    std::fs::create_dir_all(&dir).unwrap();
    let root = sandbox.root.path().display().to_string();
    let text = run
        .stdout
        .replace(&root, "/sandbox")
        .replace(&server.addr().to_string(), "127.0.0.1:PORT");
    std::fs::write(dir.join(name), text).unwrap();
}
