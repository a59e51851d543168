//! The in-session driver against the real Claude Code and Codex CLIs, offline, talking to the
//! project's mock model server (pawl-testkit), with pawl's hooks installed by `pawl init --agent`.
//!
//! The CLIs come from `PAWL_CLAUDE_BIN` / `PAWL_CODEX_BIN` or the cache `.ci/install-agents.sh`
//! fills. A missing CLI fails the test under `CI=true` and skips it loudly otherwise.

#![allow(clippy::print_stderr)]

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pawl_testkit::{MockServer, Scenario, ToolCall, Turn};

use crate::TestEnv;

/// The tested versions, from `.ci/agent-versions`.
fn claude_version() -> &'static str {
    pawl_agent::pins::tested("claude").expect("claude pinned in .ci/agent-versions")
}

fn codex_version() -> &'static str {
    pawl_agent::pins::tested("codex").expect("codex pinned in .ci/agent-versions")
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Cli {
    Claude,
    Codex,
}

/// The CLI's binary, or `None` after a loud skip line. Panics under `CI=true` when missing.
pub(crate) fn find(cli: Cli) -> Option<PathBuf> {
    let var = match cli {
        Cli::Claude => "PAWL_CLAUDE_BIN",
        Cli::Codex => "PAWL_CODEX_BIN",
    };
    let cached = || {
        let cache = match std::env::var_os("PAWL_AGENT_CACHE") {
            Some(d) => PathBuf::from(d),
            None => PathBuf::from(std::env::var_os("HOME")?).join(".cache/pawl-agents"),
        };
        Some(match cli {
            Cli::Claude => {
                let modules = cache.join(format!("claude-code-{}/node_modules", claude_version()));
                let wrapper = modules.join(".bin/claude");
                // Without its postinstall the wrapper is a small stub; the platform package has the binary.
                if std::fs::metadata(&wrapper).is_ok_and(|m| m.len() > 100_000) {
                    wrapper
                } else {
                    std::fs::read_dir(modules.join("@anthropic-ai"))
                        .ok()?
                        .filter_map(Result::ok)
                        .map(|e| e.path().join("claude"))
                        .find(|p| p.is_file())?
                }
            }
            Cli::Codex => cache.join(format!("codex-{}/node_modules/.bin/codex", codex_version())),
        })
    };
    let path = std::env::var_os(var).map(PathBuf::from).or_else(cached);
    if let Some(p) = path.filter(|p| p.is_file()) {
        return Some(p);
    }
    let msg = format!("{cli:?} CLI not found: set {var} or run `source .ci/install-agents.sh`");
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{msg}");
    }
    eprintln!("SKIPPED (real-CLI test): {msg}");
    None
}

const CALC_BUG: &str = "def add(a, b):\n    return a - b\n";
const TEST_CALC: &str = "import unittest\nfrom calc import add\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";
const FIX: &str = "sed -i 's/a - b/a + b/' calc.py";
const DESTRUCTIVE: &str = "git clean -fdx";

/// A repository with a failing python test, pawl's hooks installed for `cli`, and (when
/// `goal` is given) a run armed for the session. `extra_toml` goes into pawl.toml.
pub(crate) struct Case {
    pub(crate) env: TestEnv,
    pub(crate) run: Option<String>,
}

pub(crate) fn case(cli: Cli, goal: Option<&str>, extra_toml: &str) -> Case {
    let env = TestEnv::new();
    let python = python();
    env.write("calc.py", CALC_BUG);
    env.write("test_calc.py", TEST_CALC);
    let agent = match cli {
        Cli::Claude => "claude",
        Cli::Codex => "codex",
    };
    env.write(
        "pawl.toml",
        &format!(
            "[agent]\nkind = \"{agent}\"\n\n{extra_toml}\n\n[gates]\ntest = \"{python} -m unittest -q\"\n"
        ),
    );
    env.ok(&["init", "--agent", agent]);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "project"]);
    // Untracked work that `git clean -fdx` would destroy.
    env.write("notes.txt", "my notes\n");
    let run = goal.map(|g| {
        // The notes make the tree dirty: the run starts from a snapshot of them.
        let r = env.ok(&["run", "--driver", "session", g, "--allow-dirty", "--json"]);
        r.json()["run_id"].as_str().unwrap().to_string()
    });
    Case { env, run }
}

/// The real python, not a pyenv shim (the CLIs run with a sandbox HOME).
pub(crate) fn python() -> String {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

pub(crate) struct CliRun {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) wall: Duration,
}

/// Runs the CLI in the case's repository with a cleared environment, a sandbox HOME/TMPDIR
/// (and CODEX_HOME), stdin closed, both pipes drained, killed at `timeout`. The one place this
/// file starts a child process.
pub(crate) fn run_cli(
    c: &Case,
    cli: Cli,
    bin: &Path,
    server: &MockServer,
    prompt: &str,
    timeout: Duration,
) -> CliRun {
    run_cli_with(c, cli, bin, server, prompt, &[], timeout)
}

/// [`run_cli`] with more arguments for the CLI (e.g. `--resume <session>`).
pub(crate) fn run_cli_with(
    c: &Case,
    cli: Cli,
    bin: &Path,
    server: &MockServer,
    prompt: &str,
    extra: &[&str],
    timeout: Duration,
) -> CliRun {
    run_cli_at(c, cli, bin, server, prompt, extra, &c.env.root(), timeout)
}

/// [`run_cli_with`] started in `dir` (a linked worktree of the case's repository).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_cli_at(
    c: &Case,
    cli: Cli,
    bin: &Path,
    server: &MockServer,
    prompt: &str,
    extra: &[&str],
    dir: &Path,
    timeout: Duration,
) -> CliRun {
    let sandbox = c.env.dir.path().join("sandbox");
    let (home, tmp, codex_home) = (
        sandbox.join("home"),
        sandbox.join("tmp"),
        sandbox.join("codex_home"),
    );
    for d in [&home, &tmp, &codex_home] {
        std::fs::create_dir_all(d).unwrap();
    }
    let root = c.env.root();
    let mut env: Vec<(String, String)> = vec![
        ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        ("HOME".into(), home.display().to_string()),
        // The hooks see the pawl state of the pawl that armed the run (its key), as a real
        // user's hooks do.
        (
            "XDG_STATE_HOME".into(),
            c.env
                .dir
                .path()
                .join("home/.local/state")
                .display()
                .to_string(),
        ),
        ("TMPDIR".into(), tmp.display().to_string()),
        ("TERM".into(), "dumb".into()),
        ("LANG".into(), "C.UTF-8".into()),
        ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
    ];
    let mut args: Vec<String> = Vec::new();
    match cli {
        Cli::Claude => {
            for (k, v) in [
                ("DISABLE_AUTOUPDATER", "1"),
                ("DISABLE_TELEMETRY", "1"),
                ("DISABLE_ERROR_REPORTING", "1"),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
                ("ANTHROPIC_API_KEY", "dummy"),
                ("IS_SANDBOX", "1"),
            ] {
                env.push((k.into(), v.into()));
            }
            env.push(("ANTHROPIC_BASE_URL".into(), server.base_url()));
            args.extend(
                [
                    "-p",
                    prompt,
                    "--output-format",
                    "stream-json",
                    "--verbose",
                    "--include-hook-events",
                    "--dangerously-skip-permissions",
                ]
                .map(String::from),
            );
            args.extend(extra.iter().map(|a| (*a).to_string()));
        }
        Cli::Codex => {
            let config = format!(
                r#"model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = "{}/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"
request_max_retries = 2
stream_max_retries = 2

[analytics]
enabled = false

[features]
plugins = false

[projects."{}"]
trust_level = "trusted"
{}"#,
                server.base_url(),
                root.display(),
                if dir == root {
                    String::new()
                } else {
                    format!(
                        "\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                        dir.display()
                    )
                }
            );
            std::fs::write(codex_home.join("config.toml"), config).unwrap();
            env.push(("CODEX_HOME".into(), codex_home.display().to_string()));
            env.push(("MOCK_API_KEY".into(), "dummy".into()));
            args.extend(
                ["exec", "--json", "--dangerously-bypass-hook-trust", prompt].map(String::from),
            );
        }
    }
    let started = Instant::now();
    let mut child = Command::new(bin)
        .args(&args)
        .env_clear()
        .envs(env)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{cli:?} timed out after {timeout:?}\n--- stdout\n{}\n--- stderr\n{}",
                out.join().unwrap(),
                err.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    CliRun {
        code,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        wall: started.elapsed(),
    }
}

fn run_status(env: &TestEnv, run: &str) -> (String, Option<String>) {
    env.db()
        .query_row(
            "SELECT status, stop_reason FROM runs WHERE id = ?1",
            [run],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

pub(crate) fn describe(r: &CliRun, server: &MockServer) -> String {
    let texts: Vec<String> = server
        .main_requests()
        .iter()
        .map(|q| {
            format!(
                "turn {:?}: user {:?} tools {:?}",
                q.turn, q.user_texts, q.tool_outputs
            )
        })
        .collect();
    format!(
        "exit {:?} after {:?}\n--- requests\n{}\n--- stdout\n{}\n--- stderr\n{}",
        r.code,
        r.wall,
        texts.join("\n"),
        r.stdout,
        r.stderr
    )
}

/// "Done." while the test fails → blocked with the failing test; a destructive command →
/// denied and never run; the fix → pawl verifies and the run is done.
fn blocked_until_verified(cli: Cli) {
    let Some(bin) = find(cli) else { return };
    let c = case(cli, Some("make add() add"), "");
    let run = c.run.clone().unwrap();
    let server = MockServer::start(Scenario::new(vec![
        Turn::text("Done."),
        Turn::text("Cleaning up first.").with_tool(ToolCall::bash(DESTRUCTIVE)),
        Turn::text("Fixing add().").with_tool(ToolCall::bash(FIX)),
        Turn::text("Fixed: add() adds."),
    ]))
    .unwrap();
    let r = run_cli(
        &c,
        cli,
        &bin,
        &server,
        "make add() add",
        Duration::from_secs(240),
    );
    let why = describe(&r, &server);
    assert_eq!(r.code, Some(0), "{why}");
    let mains = server.main_requests();
    // The request after "Done." carries pawl's block reason, naming the failing test.
    let after_done = mains
        .get(1)
        .unwrap_or_else(|| panic!("no second request\n{why}"));
    let reason = after_done.user_texts.join("\n");
    assert!(
        reason.contains("test_add") && reason.contains("pawl"),
        "the block reason names the failing test: {reason}\n{why}"
    );
    // The destructive command was denied by pawl's guard and never ran.
    let outputs: Vec<String> = mains.iter().flat_map(|q| q.tool_outputs.clone()).collect();
    assert!(
        outputs
            .iter()
            .any(|o| o.contains("pawl guard [git-destructive]")),
        "the guard's reason reached the model: {outputs:?}\n{why}"
    );
    assert!(
        c.env.root().join("notes.txt").is_file(),
        "git clean never ran"
    );
    assert!(c.env.root().join(".pawl/pawl.db").is_file());
    // The fix landed and pawl verified it: the run is done, with its report.
    assert!(
        std::fs::read_to_string(c.env.root().join("calc.py"))
            .unwrap()
            .contains("a + b")
    );
    assert_eq!(
        run_status(&c.env, &run),
        ("done".into(), Some("verified".into())),
        "{why}"
    );
    assert!(
        c.env
            .root()
            .join(format!(".pawl/reports/{run}.md"))
            .is_file()
    );
    assert_eq!(
        mains.len(),
        4,
        "one request per scripted turn, then the session ended\n{why}"
    );
    eprintln!("{cli:?} blocked-until-verified: {:?}", r.wall);
}

/// An always-failing session ends at pawl's own iteration limit (Codex has no Stop cap at all).
fn limit_ends_always_failing(cli: Cli) {
    let Some(bin) = find(cli) else { return };
    let c = case(
        cli,
        Some("make add() add"),
        "[limits]\nmax_iterations = 2\n\n[breakers]\nno_progress = 0\nsame_failure = 0\ncriterion_stuck = 0",
    );
    let run = c.run.clone().unwrap();
    // Every turn says "Done." and changes nothing.
    let server = MockServer::start(Scenario::new(vec![])).unwrap();
    let r = run_cli(
        &c,
        cli,
        &bin,
        &server,
        "make add() add",
        Duration::from_secs(240),
    );
    let why = describe(&r, &server);
    assert_eq!(r.code, Some(0), "{why}");
    assert_eq!(
        run_status(&c.env, &run),
        ("stopped".into(), Some("max_iterations".into())),
        "{why}"
    );
    assert_eq!(
        server.main_requests().len(),
        2,
        "blocked once, then allowed at the limit\n{why}"
    );
    let iterations: i64 = c
        .env
        .db()
        .query_row(
            "SELECT COUNT(*) FROM iterations WHERE run_id = ?1",
            [&run],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(iterations, 2);
    eprintln!("{cli:?} limit: {:?}", r.wall);
}

/// Hooks carry no usage: pawl reads each turn's tokens from the session's own transcript and
/// charges them with the iteration, so a token budget ends a session run like any limit. Every
/// scripted turn says "Done." and costs 1,234 tokens; the budget is 3,000, so the third Stop
/// reaches it.
fn token_budget_ends_the_session(cli: Cli) {
    let Some(bin) = find(cli) else { return };
    let c = case(
        cli,
        Some("make add() add"),
        "[limits]\nmax_iterations = 10\nmax_tokens = 3000\n\n[breakers]\nno_progress = 0\nsame_failure = 0\ncriterion_stuck = 0",
    );
    let run = c.run.clone().unwrap();
    let turns = (0..6)
        .map(|i| Turn::text(format!("Done ({i}).")).with_usage(1200, 34))
        .collect();
    let server = MockServer::start(Scenario::new(turns)).unwrap();
    let r = run_cli(
        &c,
        cli,
        &bin,
        &server,
        "make add() add",
        Duration::from_secs(240),
    );
    let why = describe(&r, &server);
    assert_eq!(r.code, Some(0), "{why}");
    let rows: Vec<(i64, i64, f64, bool)> = c
        .env
        .db()
        .prepare(
            "SELECT tokens_in, tokens_out, cost_usd, cost_estimated FROM iterations
             WHERE run_id = ?1 ORDER BY n",
        )
        .unwrap()
        .query_map([&run], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        run_status(&c.env, &run),
        ("stopped".into(), Some("max_tokens".into())),
        "{rows:?}\n{why}"
    );
    assert_eq!(server.main_requests().len(), 3, "{rows:?}\n{why}");
    assert_eq!(rows.len(), 3, "{rows:?}\n{why}");
    for (tokens_in, tokens_out, usd, estimated) in &rows {
        // Exactly the mock's usage for the one model turn of each iteration: no turn counted
        // twice (Claude repeats a message's usage on each of its lines; Codex reports totals).
        assert_eq!((*tokens_in, *tokens_out), (1200, 34), "{rows:?}\n{why}");
        assert!(*usd > 0.0 && *estimated, "{rows:?}");
    }
    eprintln!("{cli:?} token budget: {:?}", r.wall);
}

/// Hooks installed, no run armed: the session is never blocked.
fn unbound_never_blocked(cli: Cli) {
    let Some(bin) = find(cli) else { return };
    let c = case(cli, None, "");
    let server = MockServer::start(Scenario::new(vec![Turn::text("Done.")])).unwrap();
    let r = run_cli(&c, cli, &bin, &server, "hello", Duration::from_secs(120));
    let why = describe(&r, &server);
    assert_eq!(r.code, Some(0), "{why}");
    assert_eq!(
        server.main_requests().len(),
        1,
        "no block, no second turn\n{why}"
    );
    if cli == Cli::Claude {
        // The hooks did run (and answered allow).
        assert!(r.stdout.contains("\"hook_event\":\"Stop\""), "{why}");
    }
}

/// A run armed in a linked worktree of the repository, another in the main checkout: a session
/// started in the worktree — Codex loading the hooks from the main checkout's
/// `.codex/hooks.json`, Claude Code from the worktree's own settings — is driven by the
/// worktree's run (blocked while its test fails there, verified once fixed there), and the main
/// checkout's run is left alone.
fn a_worktree_session_is_driven_by_the_worktree_s_run(cli: Cli) {
    let Some(bin) = find(cli) else { return };
    let c = case(cli, Some("make add() add"), "");
    let main_run = c.run.clone().unwrap();
    let wt = c.env.dir.path().join("side");
    let wt_s = wt.display().to_string();
    c.env.git(&["worktree", "add", "-q", "-b", "side", &wt_s]);
    let agent = match cli {
        Cli::Claude => "claude",
        Cli::Codex => "codex",
    };
    if cli == Cli::Claude {
        // The main checkout's local settings are not the worktree's.
        c.env.ok(&["-C", &wt_s, "init", "--agent", agent]);
    }
    // Codex: the hooks stay in the main checkout; arming gives the worktree the `.codex/`
    // folder without which Codex 0.171 loads no project hooks there (measured: without it the
    // session ran unguarded).
    let armed = c.env.ok(&[
        "-C",
        &wt_s,
        "run",
        "--driver",
        "session",
        "make add() add",
        "--allow-dirty",
        "--json",
    ]);
    let wt_run = armed.json()["run_id"].as_str().unwrap().to_string();
    if cli == Cli::Codex {
        assert!(!wt.join(".codex/hooks.json").exists());
    }
    let server = MockServer::start(Scenario::new(vec![
        Turn::text("Done."),
        Turn::text("Fixing add().").with_tool(ToolCall::bash(FIX)),
        Turn::text("Fixed: add() adds."),
    ]))
    .unwrap();
    let r = run_cli_at(
        &c,
        cli,
        &bin,
        &server,
        "make add() add",
        &[],
        &wt,
        Duration::from_secs(240),
    );
    let why = describe(&r, &server);
    assert_eq!(r.code, Some(0), "{why}");
    let mains = server.main_requests();
    let after_done = mains
        .get(1)
        .unwrap_or_else(|| panic!("no second request: the session ran unguarded\n{why}"));
    let reason = after_done.user_texts.join("\n");
    assert!(
        reason.contains("test_add") && reason.contains("pawl"),
        "blocked by the worktree's run: {reason}\n{why}"
    );
    let wt_db = rusqlite::Connection::open(wt.join(".pawl/pawl.db")).unwrap();
    let (status, reason): (String, Option<String>) = wt_db
        .query_row(
            "SELECT status, stop_reason FROM runs WHERE id = ?1",
            [&wt_run],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (status.as_str(), reason.as_deref()),
        ("done", Some("verified")),
        "{why}"
    );
    assert!(
        std::fs::read_to_string(wt.join("calc.py"))
            .unwrap()
            .contains("a + b")
    );
    // The main checkout's run: untouched, no session bound, its tree as it was.
    assert_eq!(run_status(&c.env, &main_run).0, "active", "{why}");
    let bound: i64 = c
        .env
        .db()
        .query_row(
            "SELECT COUNT(*) FROM session_bindings WHERE run_id = ?1",
            [&main_run],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(bound, 0, "{why}");
    assert!(
        std::fs::read_to_string(c.env.root().join("calc.py"))
            .unwrap()
            .contains("a - b")
    );
    eprintln!("{cli:?} worktree session: {:?}", r.wall);
}

#[test]
fn real_claude_in_a_linked_worktree_is_driven_by_the_worktree_s_run() {
    a_worktree_session_is_driven_by_the_worktree_s_run(Cli::Claude);
}

#[test]
fn real_codex_in_a_linked_worktree_is_driven_by_the_worktree_s_run() {
    a_worktree_session_is_driven_by_the_worktree_s_run(Cli::Codex);
}

#[test]
fn real_claude_is_blocked_until_pawl_verifies() {
    blocked_until_verified(Cli::Claude);
}

#[test]
fn real_codex_is_blocked_until_pawl_verifies() {
    blocked_until_verified(Cli::Codex);
}

#[test]
fn real_claude_stops_at_pawls_iteration_limit() {
    limit_ends_always_failing(Cli::Claude);
}

#[test]
fn real_codex_stops_at_pawls_iteration_limit() {
    limit_ends_always_failing(Cli::Codex);
}

#[test]
fn real_claude_session_without_a_run_is_never_blocked() {
    unbound_never_blocked(Cli::Claude);
}

#[test]
fn real_codex_session_without_a_run_is_never_blocked() {
    unbound_never_blocked(Cli::Codex);
}

#[test]
fn real_claude_session_ends_at_pawls_token_budget() {
    token_budget_ends_the_session(Cli::Claude);
}

#[test]
fn real_codex_session_ends_at_pawls_token_budget() {
    token_budget_ends_the_session(Cli::Codex);
}

/// The real Claude Code compacts the session of an active run (`-p /compact --resume <id>` fires
/// PreCompact, then SessionStart with source `compact`): pawl's PreCompact hook saves what the
/// compaction must not lose, SessionStart after it gives the session pawl's context with that
/// saved part; the session then goes on under the run, which ends verified.
#[test]
fn real_claude_compaction_keeps_pawls_context() {
    let Some(bin) = find(Cli::Claude) else { return };
    // One iteration: the first session's Stop ends the run at its limit, so the session ends
    // with the run stopped; `pawl resume` arms it again for the same session.
    let c = case(
        Cli::Claude,
        Some("make add() add"),
        "[limits]\nmax_iterations = 1\n",
    );
    let run = c.run.clone().unwrap();
    let server = MockServer::start(Scenario::new(vec![
        Turn::text("Hello.").when_last_user_contains("say hi"),
        // The compaction's own request (one model turn in the history).
        Turn::text("Summary: we said hello; add() is not fixed yet."),
        Turn::text("Fixing add().")
            .with_tool(ToolCall::bash(FIX))
            .when_last_user_contains("xyzzy go on"),
        Turn::text("Fixed: add() adds."),
    ]))
    .unwrap();
    let first = run_cli(
        &c,
        Cli::Claude,
        &bin,
        &server,
        "say hi",
        Duration::from_secs(240),
    );
    let why = describe(&first, &server);
    assert_eq!(
        run_status(&c.env, &run),
        ("stopped".into(), Some("max_iterations".into())),
        "{why}"
    );
    let session: String = c
        .env
        .db()
        .query_row(
            "SELECT session_id FROM session_bindings WHERE run_id = ?1 LIMIT 1",
            [&run],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("no bound session ({e})\n{why}"));
    let r = c.env.ok(&["resume", "--add-iterations", "3", "--json"]);
    assert_eq!(r.json()["rearmed"], true, "{}", r.stdout);
    let compact = run_cli_with(
        &c,
        Cli::Claude,
        &bin,
        &server,
        "/compact",
        &["--resume", &session],
        Duration::from_secs(240),
    );
    let why = describe(&compact, &server);
    let snapshots = c.env.count(&format!(
        "SELECT COUNT(*) FROM events WHERE kind = 'precompact_snapshot' AND run_id = '{run}'"
    ));
    assert_eq!(snapshots, 1, "PreCompact saved the run's state\n{why}");
    // SessionStart after the compaction (Claude Code's `compact` source) gave the session
    // pawl's context with what was saved before it.
    let after_compact = compact
        .stdout
        .lines()
        .find(|l| {
            l.contains("\"hook_response\"") && l.contains("\"hook_name\":\"SessionStart:compact\"")
        })
        .unwrap_or_else(|| panic!("no SessionStart after the compaction\n{why}"));
    assert!(
        after_compact.contains("Saved before the compaction") && after_compact.contains(&run),
        "{after_compact}\n{why}"
    );
    assert!(
        !compact.stdout.contains("PreToolUse"),
        "the compaction ran no tool\n{why}"
    );
    let last = run_cli_with(
        &c,
        Cli::Claude,
        &bin,
        &server,
        "xyzzy go on",
        &["--resume", &session],
        Duration::from_secs(240),
    );
    let why = describe(&last, &server);
    assert_eq!(last.code, Some(0), "{why}");
    assert_eq!(
        run_status(&c.env, &run),
        ("done".into(), Some("verified".into())),
        "{why}"
    );
}
