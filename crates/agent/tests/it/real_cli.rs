//! The real Claude Code and Codex CLIs, started by the adapters' own `command()`, against
//! pawl-testkit's mock model server; their real output goes through `parse_stdout`.
//!
//! Binaries come from `PAWL_CLAUDE_BIN` / `PAWL_CODEX_BIN` or the cache `.ci/install-agents.sh`
//! fills. When one is missing the test fails under `CI=true` and is skipped loudly otherwise.
//! Set `PAWL_UPDATE_FIXTURES=1` to re-record `tests/fixtures/*-write.jsonl` from these runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pawl_agent::claude::{ClaudeAdapter, ClaudeOptions};
use pawl_agent::codex::{CodexAdapter, CodexOptions, CodexProvider};
use pawl_agent::{Adapter, AgentEvent, StepRequest, Usage};
use pawl_testkit::{MockServer, Scenario, ToolCall, Turn};

use crate::common::{StepRun, run_step};

/// The tested versions, from `.ci/agent-versions`.
fn claude_version() -> &'static str {
    pawl_agent::pins::tested("claude").expect("claude pinned in .ci/agent-versions")
}

fn codex_version() -> &'static str {
    pawl_agent::pins::tested("codex").expect("codex pinned in .ci/agent-versions")
}

fn cache() -> Option<PathBuf> {
    match std::env::var_os("PAWL_AGENT_CACHE") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => Some(PathBuf::from(std::env::var_os("HOME")?).join(".cache/pawl-agents")),
    }
}

fn find(var: &str, cached: Option<PathBuf>) -> Option<PathBuf> {
    let path = std::env::var_os(var).map(PathBuf::from).or(cached);
    if let Some(path) = path.filter(|p| p.is_file()) {
        return Some(path);
    }
    let message = format!("{var} not set and no cached CLI: run `source .ci/install-agents.sh`");
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
    eprintln!("SKIPPED (real-CLI test): {message}");
    None
}

fn claude_bin() -> Option<PathBuf> {
    let cached = cache().and_then(|c| {
        let modules = c.join(format!("claude-code-{}/node_modules", claude_version()));
        let wrapper = modules.join(".bin/claude");
        // Without its postinstall the wrapper is a stub; the platform package has the binary.
        if std::fs::metadata(&wrapper).is_ok_and(|m| m.len() >= 100_000) {
            return Some(wrapper);
        }
        std::fs::read_dir(modules.join("@anthropic-ai"))
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path().join("claude"))
            .find(|p| p.is_file())
    });
    find("PAWL_CLAUDE_BIN", cached)
}

fn codex_bin() -> Option<PathBuf> {
    let cached =
        cache().map(|c| c.join(format!("codex-{}/node_modules/.bin/codex", codex_version())));
    find("PAWL_CODEX_BIN", cached)
}

/// `home/`, `tmp/`, `codex_home/` (outside TMPDIR: Codex refuses helpers under it) and a git
/// repository `repo/`.
struct Sandbox {
    root: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Self {
        let root = tempfile::Builder::new()
            .prefix("pawl-agent-it-")
            .tempdir()
            .unwrap();
        for dir in ["home", "tmp", "codex_home", "repo"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let sandbox = Sandbox { root };
        sandbox.git(&["init", "-q"]);
        sandbox.git(&[
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "user.name=t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "init",
        ]);
        sandbox
    }

    fn git(&self, args: &[&str]) {
        let outcome = pawl_process::Command::new("git")
            .args(args)
            .current_dir(self.repo())
            .env("HOME", self.path("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .run()
            .unwrap();
        assert!(
            outcome.success(),
            "git {args:?}: {}",
            outcome.combined_tail_text()
        );
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    fn repo(&self) -> PathBuf {
        self.path("repo")
    }

    fn request(
        &self,
        prompt: &str,
        iteration: u32,
        resume: Option<String>,
        extra: &[(&str, String)],
    ) -> StepRequest {
        let mut env = vec![
            ("HOME".to_owned(), self.path("home").display().to_string()),
            ("TMPDIR".to_owned(), self.path("tmp").display().to_string()),
            ("TERM".to_owned(), "dumb".to_owned()),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
        ];
        env.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        StepRequest {
            prompt: prompt.into(),
            cwd: self.repo(),
            run_id: "run-real".into(),
            iteration,
            resume_session: resume,
            session_spent_usd: None,
            model: None,
            env,
        }
    }

    fn record(&self, name: &str, run_stdout: &[String], server: &MockServer) {
        if std::env::var("PAWL_UPDATE_FIXTURES").as_deref() != Ok("1") {
            return;
        }
        let root = self.root.path().display().to_string();
        let text = run_stdout
            .join("\n")
            .replace(&root, "/sandbox")
            .replace(&server.addr().to_string(), "127.0.0.1:PORT");
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        std::fs::write(path, text + "\n").unwrap();
    }
}

/// Runs a step with a time limit, keeping the raw stdout lines for the fixture.
fn step(adapter: &mut dyn Adapter, req: &StepRequest) -> (StepRun, Vec<String>) {
    let raw = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut recorder = Recorder {
        inner: adapter,
        raw: raw.clone(),
    };
    let run = run_step(&mut recorder, req, |cmd| {
        cmd.timeout(Duration::from_secs(180));
    });
    let lines = raw.lock().unwrap().clone();
    (run, lines)
}

struct Recorder<'a> {
    inner: &'a mut dyn Adapter,
    raw: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Adapter for Recorder<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn command(&self, req: &StepRequest) -> Result<pawl_process::Command, pawl_agent::AgentError> {
        self.inner.command(req)
    }
    fn parse_stdout(&mut self, line: &str) -> Vec<AgentEvent> {
        self.raw.lock().unwrap().push(line.to_owned());
        self.inner.parse_stdout(line)
    }
    fn parse_stderr(&mut self, line: &str) -> Vec<AgentEvent> {
        self.inner.parse_stderr(line)
    }
    fn finish(&mut self, exit_code: Option<i32>) -> Vec<AgentEvent> {
        self.inner.finish(exit_code)
    }
}

fn result_usage(run: &StepRun) -> Usage {
    match run.result() {
        Some(AgentEvent::Result {
            usage,
            is_error: false,
            ..
        }) => *usage,
        other => panic!("no successful result: {other:?}\n{run:#?}"),
    }
}

fn mock_usage(server: &MockServer) -> Usage {
    let u = server.reported_usage();
    Usage {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_read_tokens: u.cache_read_input_tokens,
        cache_write_tokens: u.cache_creation_input_tokens,
    }
}

fn minus(a: Usage, b: Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens - b.input_tokens,
        output_tokens: a.output_tokens - b.output_tokens,
        cache_read_tokens: a.cache_read_tokens - b.cache_read_tokens,
        cache_write_tokens: a.cache_write_tokens - b.cache_write_tokens,
    }
}

/// Step 1 writes hello.txt; step 2 (resumed) is matched by its prompt.
fn scenario() -> Scenario {
    Scenario::new(vec![
        Turn::text("Creating hello.txt.")
            .with_tool(ToolCall::Write {
                path: "hello.txt".into(),
                content: "hello\n".into(),
            })
            .with_usage(1200, 34),
        Turn::text("Done.").with_usage(1300, 7),
        Turn::text("Bye.")
            .with_usage(1500, 3)
            .when_last_user_contains("now say bye"),
    ])
}

fn assert_continued(server: &MockServer) {
    let last = server.main_requests().pop().unwrap();
    let texts = last.user_texts.join("\n");
    assert!(
        texts.contains("create hello.txt"),
        "the resumed request lacks the first prompt: {texts}"
    );
    assert!(texts.contains("now say bye"), "{texts}");
    assert_eq!(last.turn, Some(2));
}

#[test]
fn real_claude_through_the_adapter() {
    let Some(bin) = claude_bin() else { return };
    let server = MockServer::start(scenario()).unwrap();
    let sandbox = Sandbox::new();
    let mut adapter = ClaudeAdapter::new(ClaudeOptions {
        program: vec![bin.display().to_string()],
        settings: Some(pawl_agent::claude::settings_json(None).to_string()),
        ..ClaudeOptions::default()
    })
    .unwrap();
    let env = [
        ("ANTHROPIC_BASE_URL", server.base_url()),
        ("ANTHROPIC_API_KEY", "dummy".to_owned()),
    ];
    let started = Instant::now();

    let (one, raw) = step(
        &mut adapter,
        &sandbox.request("create hello.txt", 1, None, &env),
    );
    assert_eq!(one.code, Some(0), "{one:#?}");
    assert_eq!(
        std::fs::read_to_string(sandbox.repo().join("hello.txt")).unwrap(),
        "hello\n"
    );
    let session = one.session_id().expect("session id").to_owned();
    let after_one = mock_usage(&server);
    assert_eq!(result_usage(&one), after_one);
    assert_eq!(after_one.input_tokens, 2500);
    let hello = sandbox.repo().join("hello.txt").display().to_string();
    assert!(
        one.events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolCall { name, .. } if name == "Write")),
        "{one:#?}"
    );
    assert!(
        one.events.contains(&AgentEvent::FileEdited { path: hello }),
        "{one:#?}"
    );
    assert!(
        !one.events
            .iter()
            .any(|e| matches!(e, AgentEvent::PermissionDenied { .. })),
        "{one:#?}"
    );
    sandbox.record(
        &format!("claude-{}-write.jsonl", claude_version()),
        &raw,
        &server,
    );

    let (two, _) = step(
        &mut adapter,
        &sandbox.request("now say bye", 2, Some(session.clone()), &env),
    );
    assert_eq!(two.code, Some(0), "{two:#?}");
    assert_eq!(
        two.session_id(),
        Some(session.as_str()),
        "resuming keeps the session"
    );
    assert_eq!(result_usage(&two), minus(mock_usage(&server), after_one));
    assert!(two.events.contains(&AgentEvent::Text {
        text: "Bye.".into()
    }));
    assert_continued(&server);
    eprintln!("real claude: 2 steps in {:?}", started.elapsed());
}

#[test]
fn real_codex_through_the_adapter() {
    let Some(bin) = codex_bin() else { return };
    let server = MockServer::start(scenario()).unwrap();
    let sandbox = Sandbox::new();
    let mut adapter = CodexAdapter::new(CodexOptions {
        program: vec![bin.display().to_string()],
        model: Some("gpt-5.5".into()),
        provider: Some(CodexProvider {
            id: "mock".into(),
            name: "Mock".into(),
            base_url: format!("{}/v1", server.base_url()),
            env_key: "MOCK_API_KEY".into(),
            request_max_retries: 3,
            stream_max_retries: 3,
        }),
        ..CodexOptions::default()
    })
    .unwrap();
    let env = [
        (
            "CODEX_HOME",
            sandbox.path("codex_home").display().to_string(),
        ),
        ("MOCK_API_KEY", "dummy".to_owned()),
    ];
    let started = Instant::now();

    let (one, raw) = step(
        &mut adapter,
        &sandbox.request("create hello.txt", 1, None, &env),
    );
    assert_eq!(one.code, Some(0), "{one:#?}");
    assert_eq!(
        std::fs::read_to_string(sandbox.repo().join("hello.txt")).unwrap(),
        "hello\n"
    );
    let session = one.session_id().expect("thread id").to_owned();
    let after_one = mock_usage(&server);
    assert_eq!(result_usage(&one), after_one);
    assert!(
        one.events
            .iter()
            .any(|e| matches!(e, AgentEvent::FileEdited { path } if path.ends_with("hello.txt"))),
        "{one:#?}"
    );
    assert!(
        matches!(one.result(), Some(AgentEvent::Result { cost_estimated: true, cost_usd: Some(c), .. }) if *c > 0.0)
    );
    sandbox.record(
        &format!("codex-{}-write.jsonl", codex_version()),
        &raw,
        &server,
    );

    let (two, _) = step(
        &mut adapter,
        &sandbox.request("now say bye", 2, Some(session.clone()), &env),
    );
    assert_eq!(two.code, Some(0), "{two:#?}");
    assert_eq!(
        two.session_id(),
        Some(session.as_str()),
        "resuming keeps the thread"
    );
    assert_eq!(result_usage(&two), minus(mock_usage(&server), after_one));
    assert!(two.events.contains(&AgentEvent::Text {
        text: "Bye.".into()
    }));
    assert_continued(&server);
    eprintln!("real codex: 2 steps in {:?}", started.elapsed());
}

/// One tool turn behind a 429 (retry-after 1 s), then its closing turn.
fn rate_limited_scenario() -> Scenario {
    Scenario::new(vec![
        Turn::text("Creating hello.txt.")
            .with_tool(ToolCall::bash("echo hello > hello.txt"))
            .with_fault(pawl_testkit::Fault::RateLimit {
                retry_after_secs: 1,
                message: None,
            }),
        Turn::text("Done."),
    ])
}

fn rate_limit_of(run: &StepRun) -> Vec<(Option<Duration>, String)> {
    run.events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::RateLimited {
                retry_after,
                message,
            } => Some((*retry_after, message.clone())),
            _ => None,
        })
        .collect()
}

/// Claude Code with `CLAUDE_CODE_MAX_RETRIES=0` gives a 429 up at once: an error result
/// (`subtype` success, `is_error` true) with "API Error: Request rejected (429)", no retry-after.
/// The adapter makes it a wait, so the loop sleeps and starts the step again.
#[test]
fn real_claude_giving_up_on_a_429_is_a_rate_limit() {
    let Some(bin) = claude_bin() else { return };
    let server = MockServer::start(rate_limited_scenario()).unwrap();
    let sandbox = Sandbox::new();
    let mut adapter = ClaudeAdapter::new(ClaudeOptions {
        program: vec![bin.display().to_string()],
        ..ClaudeOptions::default()
    })
    .unwrap();
    let env = [
        ("ANTHROPIC_BASE_URL", server.base_url()),
        ("ANTHROPIC_API_KEY", "dummy".to_owned()),
        ("CLAUDE_CODE_MAX_RETRIES", "0".to_owned()),
    ];
    let (run, raw) = step(
        &mut adapter,
        &sandbox.request("create hello.txt", 1, None, &env),
    );
    let statuses: Vec<u16> = server.main_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [429], "no retry of its own: {run:#?}");
    assert!(!sandbox.repo().join("hello.txt").exists());
    let limits = rate_limit_of(&run);
    assert!(!limits.is_empty(), "{run:#?}");
    assert!(
        limits
            .iter()
            .all(|(wait, m)| wait.is_none() && m.contains("Request rejected (429)")),
        "{limits:?}"
    );
    assert!(
        matches!(
            run.result(),
            Some(AgentEvent::Result { is_error: true, .. })
        ),
        "{run:#?}"
    );
    sandbox.record(
        &format!("claude-{}-429-gave-up.jsonl", claude_version()),
        &raw,
        &server,
    );
}

/// Codex with `stream_max_retries = 0` fails the turn on a 429: "exceeded retry limit, last
/// status: 429 Too Many Requests" (an `error` line and `turn.failed`), no retry-after.
#[test]
fn real_codex_giving_up_on_a_429_is_a_rate_limit() {
    let Some(bin) = codex_bin() else { return };
    let server = MockServer::start(rate_limited_scenario()).unwrap();
    let sandbox = Sandbox::new();
    let mut adapter = CodexAdapter::new(CodexOptions {
        program: vec![bin.display().to_string()],
        model: Some("gpt-5.5".into()),
        provider: Some(CodexProvider {
            id: "mock".into(),
            name: "Mock".into(),
            base_url: format!("{}/v1", server.base_url()),
            env_key: "MOCK_API_KEY".into(),
            request_max_retries: 0,
            stream_max_retries: 0,
        }),
        ..CodexOptions::default()
    })
    .unwrap();
    let env = [
        (
            "CODEX_HOME",
            sandbox.path("codex_home").display().to_string(),
        ),
        ("MOCK_API_KEY", "dummy".to_owned()),
    ];
    let (run, raw) = step(
        &mut adapter,
        &sandbox.request("create hello.txt", 1, None, &env),
    );
    let statuses: Vec<u16> = server.main_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [429], "{run:#?}");
    let limits = rate_limit_of(&run);
    assert!(!limits.is_empty(), "{run:#?}");
    assert!(
        limits.iter().all(|(wait, m)| wait.is_none()
            && m.contains("exceeded retry limit, last status: 429")),
        "{limits:?}"
    );
    assert!(
        matches!(
            run.result(),
            Some(AgentEvent::Result { is_error: true, .. })
        ),
        "{run:#?}"
    );
    sandbox.record(
        &format!("codex-{}-429-gave-up.jsonl", codex_version()),
        &raw,
        &server,
    );
}
