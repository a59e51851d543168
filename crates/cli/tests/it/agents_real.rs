//! The headless driver end to end with the real agent CLIs: `pawl run "<goal>" --agent claude`
//! and `--agent codex`, the real Claude Code 2.1.329 and Codex 0.169.0 talking offline to
//! pawl-testkit's mock model server, a python unittest gate that pawl runs itself.
//!
//! What reaches the CLI is only what pawl's adapter lets through: Claude is pointed at the mock
//! by `ANTHROPIC_BASE_URL`/`ANTHROPIC_API_KEY` in pawl's environment, Codex by a
//! `$CODEX_HOME/config.toml` with a custom Responses provider whose key variable pawl must pass
//! on. Claude runs with `--permission-mode acceptEdits`, an allow-list and pawl's guard hook
//! (no `--dangerously-skip-permissions`, no `IS_SANDBOX`), as root here.
//!
//! The CLIs come from `PAWL_CLAUDE_BIN` / `PAWL_CODEX_BIN` or the cache `.ci/install-agents.sh`
//! fills; a missing CLI fails the test under `CI=true` and skips it loudly otherwise.

#![allow(clippy::print_stderr)]

use std::path::PathBuf;
use std::time::Instant;

use pawl_testkit::{Fault, MockServer, Scenario, ToolCall, Turn};
use serde_json::Value;

use crate::headless::NO_BREAKERS;
use crate::hooks_real::{Cli, find, python};
use crate::{Run, TestEnv};

/// Two bugs, one per test: `add` subtracts, `mul` powers.
const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a ** b\n";
const TESTS: &str = "import unittest\nfrom calc import add, mul\n\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n";
const FIX_ADD: &str = "sed -i 's/a - b/a + b/' calc.py";
const FIX_MUL: &str = "sed -i 's/a \\*\\* b/a * b/' calc.py";
const FIX_BOTH: &str = "sed -i -e 's/a - b/a + b/' -e 's/a \\*\\* b/a * b/' calc.py";
const GOAL: &str = "make the calculator in calc.py correct";

/// A repository with the buggy calculator, `pawl init` and a committed pawl.toml for `cli`,
/// and the mock serving `scenario`.
struct Case {
    cli: Cli,
    env: TestEnv,
    server: MockServer,
    tmp: PathBuf,
    codex_home: PathBuf,
}

/// Codex provider retries: HTTP 5xx (`request_max_retries`) and stream/429 (`stream_max_retries`).
#[derive(Clone, Copy)]
struct Retries {
    request: u32,
    stream: u32,
}

const RETRIES: Retries = Retries {
    request: 3,
    stream: 3,
};

fn case(cli: Cli, scenario: Scenario, retries: Retries) -> Option<Case> {
    let bin = find(cli)?;
    let server = MockServer::start(scenario).unwrap();
    let env = TestEnv::new();
    env.write("calc.py", CALC);
    env.write("test_calc.py", TESTS);
    let (kind, model) = match cli {
        Cli::Claude => ("claude", ""),
        Cli::Codex => ("codex", "model = \"gpt-5.5\"\n"),
    };
    env.headless(&format!(
        "[agent]\nkind = \"{kind}\"\ncommand = [\"{}\"]\n{model}\n[limits]\ncalls_per_hour = 0\nmax_iterations = 6\n\n\
         [breakers]\n{NO_BREAKERS}\n[stall]\nidle_timeout = \"90s\"\nstep_timeout = \"180s\"\n\n\
         [gates]\ntest = \"{} -m unittest -q\"\n",
        bin.display(),
        python()
    ));
    let tmp = env.dir.path().join("tmp");
    // Not under TMPDIR: Codex refuses helper binaries there.
    let codex_home = env.dir.path().join("codex_home");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(&codex_home).unwrap();
    if cli == Cli::Codex {
        std::fs::write(
            codex_home.join("config.toml"),
            format!(
                r#"model = "gpt-5.5"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = "{}/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"
request_max_retries = {}
stream_max_retries = {}

[analytics]
enabled = false

[features]
plugins = false
"#,
                server.base_url(),
                retries.request,
                retries.stream
            ),
        )
        .unwrap();
    }
    Some(Case {
        cli,
        env,
        server,
        tmp,
        codex_home,
    })
}

impl Case {
    /// `pawl run GOAL --agent <cli> --mode simple --json`, with the mock's address in pawl's
    /// environment; `extra` adds variables.
    fn run(&self, extra: &[(&str, &str)]) -> Run {
        let base_url = self.server.base_url();
        let tmp = self.tmp.display().to_string();
        let codex_home = self.codex_home.display().to_string();
        let mut env: Vec<(&str, &str)> = vec![("TMPDIR", &tmp), ("TERM", "dumb")];
        match self.cli {
            Cli::Claude => env.extend([
                ("ANTHROPIC_BASE_URL", base_url.as_str()),
                ("ANTHROPIC_API_KEY", "dummy"),
            ]),
            Cli::Codex => env.extend([
                ("CODEX_HOME", codex_home.as_str()),
                ("MOCK_API_KEY", "dummy"),
            ]),
        }
        env.extend_from_slice(extra);
        let agent = match self.cli {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
        };
        let started = Instant::now();
        let r = self.env.pawl_env(
            &["run", GOAL, "--agent", agent, "--mode", "simple", "--json"],
            &env,
        );
        eprintln!("{:?} pawl run: {:?}", self.cli, started.elapsed());
        r
    }

    /// Everything needed to understand a failure: pawl's output and what the mock saw.
    fn why(&self, r: &Run) -> String {
        let requests: Vec<String> = self
            .server
            .requests()
            .iter()
            .map(|q| {
                format!(
                    "#{} {} {} status {} turn {:?} fault {:?}\n  user {:?}\n  tool outputs {:?}",
                    q.seq,
                    q.method,
                    q.path,
                    q.status,
                    q.turn,
                    q.fault,
                    q.user_texts,
                    q.tool_outputs
                )
            })
            .collect();
        format!(
            "exit {}\n--- requests\n{}\n--- stdout\n{}\n--- stderr\n{}",
            r.code,
            requests.join("\n"),
            r.stdout,
            r.stderr
        )
    }

    fn calc(&self) -> String {
        std::fs::read_to_string(self.env.root().join("calc.py")).unwrap()
    }

    /// Exit 0, the run done and verified, SHIP in `.pawl/reports/<run>.json`, `n` iterations.
    fn assert_verified(&self, r: &Run, n: i64) {
        let why = self.why(r);
        assert_eq!(r.code, 0, "{why}");
        assert_eq!(
            self.env.run_state(),
            ("done".into(), Some("verified".into())),
            "{why}"
        );
        assert_eq!(self.env.iterations(), n, "{why}");
        let run_id: String = self
            .env
            .db()
            .query_row("SELECT id FROM runs", [], |row| row.get(0))
            .unwrap();
        let report: Value = serde_json::from_str(
            &std::fs::read_to_string(self.env.root().join(format!(".pawl/reports/{run_id}.json")))
                .unwrap(),
        )
        .unwrap();
        assert_eq!(report["verdict"], "SHIP", "{report:#}");
        assert!(self.calc().contains("a + b") && self.calc().contains("a * b"));
    }

    /// The main requests' user texts that mention `needle`, by main index.
    fn main_indexes_mentioning(&self, needle: &str) -> Vec<usize> {
        self.server
            .main_requests()
            .iter()
            .enumerate()
            .filter(|(_, q)| q.last_user_text().is_some_and(|t| t.contains(needle)))
            .map(|(i, _)| i)
            .collect()
    }
}

/// pawl's `--json` lines.
fn lines(r: &Run) -> Vec<Value> {
    r.stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The events the agent's stream produced, as pawl parsed them.
fn agent_events(r: &Run) -> Vec<Value> {
    lines(r)
        .into_iter()
        .filter(|l| l["kind"] == "agent")
        .map(|l| l["event"].clone())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 1. A fix in two iterations, verified by pawl.

/// Iteration 1 fixes `add` and says done; pawl's gate still fails on `test_mul`; iteration 2,
/// asked about `test_mul`, fixes it; pawl verifies.
fn two_iteration_scenario() -> Scenario {
    Scenario::new(vec![
        Turn::text("Fixing add().")
            .with_tool(ToolCall::bash(FIX_ADD))
            .with_usage(1000, 30),
        Turn::text("Done: add() adds.").with_usage(1100, 10),
        Turn::text("Fixing mul().")
            .with_tool(ToolCall::bash(FIX_MUL))
            .with_usage(1200, 40)
            .when_last_user_contains("test_mul"),
        Turn::text("Done: mul() multiplies.").with_usage(1300, 12),
    ])
}

fn fixes_in_two_iterations(cli: Cli) {
    let Some(c) = case(cli, two_iteration_scenario(), RETRIES) else {
        return;
    };
    let r = c.run(&[]);
    c.assert_verified(&r, 2);
    let why = c.why(&r);
    // Iteration 2 continued the session of iteration 1 and was asked about the failing test.
    let mentions = c.main_indexes_mentioning("test_mul");
    assert!(!mentions.is_empty(), "{why}");
    let outcomes = c.env.outcomes();
    assert_eq!(outcomes, ["completed", "completed"], "{why}");
    let sessions: Vec<Option<String>> = {
        let db = c.env.db();
        let mut stmt = db
            .prepare("SELECT session_id FROM iterations ORDER BY n")
            .unwrap();
        stmt.query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert!(sessions[0].is_some(), "{sessions:?}");
    assert_eq!(sessions[0], sessions[1], "iteration 2 resumes the session");
    assert_eq!(c.server.main_requests().len(), 4, "{why}");
}

#[test]
fn real_claude_fixes_a_bug_in_two_iterations_and_pawl_verifies() {
    fixes_in_two_iterations(Cli::Claude);
}

#[test]
fn real_codex_fixes_a_bug_in_two_iterations_and_pawl_verifies() {
    fixes_in_two_iterations(Cli::Codex);
}

// ---------------------------------------------------------------------------------------------
// 2. The agent claims done while the tests fail: pawl's next prompt names the failing test.

fn claims_done_while_failing(cli: Cli) {
    let scenario = Scenario::new(vec![
        Turn::text("Done. The calculator is correct."),
        Turn::text("Fixing add() and mul().")
            .with_tool(ToolCall::bash(FIX_BOTH))
            .when_last_user_contains("test_add"),
        Turn::text("Fixed both."),
    ]);
    let Some(c) = case(cli, scenario, RETRIES) else {
        return;
    };
    let r = c.run(&[]);
    c.assert_verified(&r, 2);
    let why = c.why(&r);
    let mains = c.server.main_requests();
    // The first prompt is the goal; the agent answered "Done." without touching anything.
    assert!(
        !mains[0].last_user_text().unwrap().contains("test_add"),
        "{why}"
    );
    assert!(mains[0].last_user_text().unwrap().contains(GOAL), "{why}");
    // The second iteration's prompt, as the model received it, names both failing tests.
    let second = mains[1].last_user_text().unwrap();
    assert!(
        second.contains("test_add") && second.contains("test_mul"),
        "{why}"
    );
    assert_eq!(c.main_indexes_mentioning("test_add"), [1, 2], "{why}");
    assert_eq!(mains[1].turn, Some(1), "{why}");
    // pawl's own record of iteration 2's prompt says the same.
    assert!(c.env.prompt(2).contains("test_add"), "{}", c.env.prompt(2));
}

#[test]
fn real_claude_claiming_done_gets_the_failing_test_in_the_next_prompt() {
    claims_done_while_failing(Cli::Claude);
}

#[test]
fn real_codex_claiming_done_gets_the_failing_test_in_the_next_prompt() {
    claims_done_while_failing(Cli::Codex);
}

// ---------------------------------------------------------------------------------------------
// 3. 529 overloaded (Codex: 503), then success.

fn overloaded_then_success(cli: Cli) {
    let scenario = Scenario::new(vec![
        Turn::text("Fixing add() and mul().")
            .with_tool(ToolCall::bash(FIX_BOTH))
            .with_fault(Fault::Overloaded),
        Turn::text("Fixed both."),
    ]);
    let Some(c) = case(cli, scenario, RETRIES) else {
        return;
    };
    let r = c.run(&[]);
    c.assert_verified(&r, 1);
    let why = c.why(&r);
    let statuses: Vec<u16> = c.server.main_requests().iter().map(|q| q.status).collect();
    let overloaded = match cli {
        Cli::Claude => 529,
        Cli::Codex => 503,
    };
    // The CLI retried by itself: one failed request, then the turn and its closing turn. pawl
    // did not start the agent a second time (one session, no wait of its own).
    assert_eq!(statuses, [overloaded, 200, 200], "{why}");
    let events = agent_events(&r);
    let sessions = events
        .iter()
        .filter(|e| e["type"] == "session_started")
        .count();
    assert_eq!(sessions, 1, "{why}");
    assert!(!lines(&r).iter().any(|l| l["kind"] == "waiting"), "{why}");
    let retries: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "rate_limited")
        .collect();
    match cli {
        // Claude Code says so in its stream (`system/api_retry`), which pawl shows as a
        // rate-limit event of the step, then recovers.
        Cli::Claude => {
            assert_eq!(retries.len(), 1, "{why}");
            assert!(
                retries[0]["message"]
                    .as_str()
                    .unwrap()
                    .contains("after HTTP 529"),
                "{why}"
            );
        }
        // Codex 0.169 retries a 5xx silently (`request_max_retries`): nothing in `--json`.
        Cli::Codex => assert!(retries.is_empty(), "{why}"),
    }
}

#[test]
fn real_claude_overloaded_then_success_ends_verified() {
    overloaded_then_success(Cli::Claude);
}

#[test]
fn real_codex_overloaded_then_success_ends_verified() {
    overloaded_then_success(Cli::Codex);
}

// ---------------------------------------------------------------------------------------------
// 4. 429 that the CLI gives up on: pawl waits and resumes.

fn rate_limited_then_resumed(cli: Cli) {
    let scenario = Scenario::new(vec![
        Turn::text("Fixing add() and mul().")
            .with_tool(ToolCall::bash(FIX_BOTH))
            .with_fault(Fault::RateLimit {
                retry_after_secs: 1,
                message: None,
            }),
        Turn::text("Fixed both."),
    ]);
    let retries = Retries {
        request: 0,
        stream: 0,
    };
    let Some(c) = case(cli, scenario, retries) else {
        return;
    };
    // Claude Code: no retries of its own, so the 429 reaches pawl. Codex: `stream_max_retries =
    // 0` above. Neither CLI passes the provider's retry-after on, so pawl backs off from its
    // 30 s base, scaled down here by pawl's hidden test knob (0.05: 1.5 s).
    let r = c.run(&[
        ("CLAUDE_CODE_MAX_RETRIES", "0"),
        ("PAWL_TEST_RATE_LIMIT_SCALE", "0.05"),
    ]);
    let why = c.why(&r);
    c.assert_verified(&r, 1);
    let waiting: Vec<Value> = lines(&r)
        .into_iter()
        .filter(|l| l["kind"] == "waiting")
        .collect();
    assert_eq!(waiting.len(), 1, "{why}");
    let said = match cli {
        Cli::Claude => "API Error: Request rejected (429)",
        Cli::Codex => "exceeded retry limit, last status: 429 Too Many Requests",
    };
    assert!(waiting[0]["why"].as_str().unwrap().contains(said), "{why}");
    let mains = c.server.main_requests();
    let statuses: Vec<u16> = mains.iter().map(|q| q.status).collect();
    assert_eq!(statuses, [429, 200, 200], "{why}");
    // pawl started the agent again only after its wait.
    assert!(mains[1].at_ms - mains[0].at_ms >= 1400, "{why}");
    assert_eq!(c.env.outcomes(), ["completed"], "{why}");
}

#[test]
fn real_claude_usage_limit_makes_pawl_wait_and_resume() {
    rate_limited_then_resumed(Cli::Claude);
}

#[test]
fn real_codex_usage_limit_makes_pawl_wait_and_resume() {
    rate_limited_then_resumed(Cli::Codex);
}

// ---------------------------------------------------------------------------------------------
// 5. Tokens and cost in the store equal what the mock reported.

fn tokens_and_cost_match_the_mock(cli: Cli) {
    let mut scenario = two_iteration_scenario();
    for (i, turn) in scenario.turns.iter_mut().enumerate() {
        let i = i as u64;
        turn.usage.cache_read_input_tokens = 500 + i;
        turn.usage.cache_creation_input_tokens = 70 + i;
    }
    let Some(c) = case(cli, scenario, RETRIES) else {
        return;
    };
    let r = c.run(&[]);
    c.assert_verified(&r, 2);
    let why = c.why(&r);
    let mock = c.server.reported_usage();
    let (tokens_in, tokens_out, cost, estimated): (i64, i64, f64, i64) = c
        .env
        .db()
        .query_row(
            "SELECT SUM(tokens_in), SUM(tokens_out), SUM(cost_usd), SUM(cost_estimated) FROM iterations",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
        )
        .unwrap();
    // pawl counts input as fresh + cache reads + cache writes.
    let mock_in =
        mock.input_tokens + mock.cache_read_input_tokens + mock.cache_creation_input_tokens;
    assert_eq!(mock.input_tokens, 1000 + 1100 + 1200 + 1300);
    assert_eq!(tokens_in as u64, mock_in, "{why}");
    assert_eq!(tokens_out as u64, mock.output_tokens, "{why}");
    let reported: f64 = agent_events(&r)
        .iter()
        .filter(|e| e["type"] == "result")
        .filter_map(|e| e["cost_usd"].as_f64())
        .sum();
    assert!(cost > 0.0, "{why}");
    assert!((cost - reported).abs() < 1e-9, "{cost} vs {reported}");
    match cli {
        // Claude Code reports its dollars.
        Cli::Claude => assert_eq!(estimated, 0, "{why}"),
        // Codex reports tokens only: pawl estimates at gpt-5.5 list prices, marked estimated.
        Cli::Codex => {
            assert_eq!(estimated, 2, "{why}");
            let fresh = (mock.input_tokens + mock.cache_creation_input_tokens) as f64;
            let expected = (fresh * 1.25
                + mock.cache_read_input_tokens as f64 * 0.125
                + mock.output_tokens as f64 * 10.0)
                / 1_000_000.0;
            assert!((cost - expected).abs() < 1e-9, "{cost} vs {expected}");
        }
    }
}

#[test]
fn real_claude_tokens_and_cost_match_the_mock() {
    tokens_and_cost_match_the_mock(Cli::Claude);
}

#[test]
fn real_codex_tokens_and_cost_match_the_mock_and_cost_is_estimated() {
    tokens_and_cost_match_the_mock(Cli::Codex);
}

// ---------------------------------------------------------------------------------------------
// The guard during a headless run.

/// A `git push --force` in the scripted turn is denied by pawl's guard (PreToolUse, routed by
/// `PAWL_DRIVER=headless`) and never runs: the remote gets no ref, the model is told why, and
/// pawl's store records the denial. Claude gets the hook through `--settings`, Codex through a
/// `-c hooks.PreToolUse=...` override; neither touches the user's configuration.
fn destructive_command_is_denied_by_pawls_guard(cli: Cli) {
    let remote_dir = tempfile::tempdir().unwrap();
    let remote = remote_dir.path().join("remote.git");
    let push = format!(
        "git push --force {} HEAD:refs/heads/stolen",
        remote.display()
    );
    let scenario = Scenario::new(vec![
        Turn::text("Publishing first.").with_tool(ToolCall::bash(push)),
        Turn::text("Fixing add() and mul().").with_tool(ToolCall::bash(FIX_BOTH)),
        Turn::text("Fixed both."),
    ]);
    let Some(c) = case(cli, scenario, RETRIES) else {
        return;
    };
    c.env
        .git(&["init", "-q", "--bare", remote.to_str().unwrap()]);
    let r = c.run(&[]);
    c.assert_verified(&r, 1);
    let why = c.why(&r);
    let outputs: Vec<String> = c
        .server
        .main_requests()
        .iter()
        .flat_map(|q| q.tool_outputs.clone())
        .collect();
    assert!(
        outputs.iter().any(|o| o.contains("pawl guard [git-push]")),
        "the guard's reason reached the model: {outputs:?}\n{why}"
    );
    let refs = c
        .env
        .git(&["--git-dir", remote.to_str().unwrap(), "for-each-ref"]);
    assert!(refs.stdout.is_empty(), "the push ran: {:?}", refs.stdout);
    let denied: Vec<String> = c
        .env
        .db()
        .prepare("SELECT data_json FROM events WHERE kind = 'guard_denied'")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        denied.len() == 1
            && denied[0].contains("git push --force")
            && denied[0].contains("git-push"),
        "{denied:?}\n{why}"
    );
    let logs = c.env.root().join(".pawl/logs");
    let log: String = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("-iter-1.log"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let argv = log.lines().find(|l| l.contains("argv: ")).unwrap();
    match cli {
        Cli::Claude => {
            // Claude Code counts it as a permission denial of the step, and pawl records it.
            assert!(
                agent_events(&r)
                    .iter()
                    .any(|e| e["type"] == "permission_denied"
                        && e["detail"].as_str().unwrap().contains("git push --force")),
                "{why}"
            );
            // Claude ran in acceptEdits mode, as root, without --dangerously-skip-permissions:
            // the step's raw stream (pawl's log of the iteration) says so.
            assert!(log.contains(r#""permissionMode":"acceptEdits""#), "{log}");
            for flag in [
                "--permission-mode acceptEdits",
                "--allowedTools Bash,",
                "--settings",
            ] {
                assert!(argv.contains(flag), "{flag}: {argv}");
            }
            assert!(!argv.contains("dangerously"), "{argv}");
        }
        Cli::Codex => {
            // The hook is this invocation's only (the user's config is untouched), trusted for
            // it alone; the trust notice Codex prints is not taken for an error of the step.
            assert!(argv.contains("hooks.PreToolUse="), "{argv}");
            assert!(argv.contains("--dangerously-bypass-hook-trust"), "{argv}");
            assert!(
                !agent_events(&r).iter().any(|e| e["type"] == "error"),
                "{why}"
            );
            let config = std::fs::read_to_string(c.codex_home.join("config.toml")).unwrap();
            assert!(!config.contains("hooks"), "{config}");
            assert!(!c.env.root().join(".codex").exists());
        }
    }
}

#[test]
fn real_claude_destructive_command_is_denied_by_pawls_guard_in_a_headless_run() {
    destructive_command_is_denied_by_pawls_guard(Cli::Claude);
}

#[test]
fn real_codex_destructive_command_is_denied_by_pawls_guard_in_a_headless_run() {
    destructive_command_is_denied_by_pawls_guard(Cli::Codex);
}
