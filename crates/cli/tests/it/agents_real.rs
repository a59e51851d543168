//! The headless driver end to end with the real agent CLIs: `pawl run "<goal>" --agent claude`,
//! `--agent codex` and `--agent gemini`, the real Claude Code 2.1.329, Codex 0.169.0 and Gemini
//! CLI 0.61.0 talking offline to pawl-testkit's mock model server, a python unittest gate that
//! pawl runs itself.
//!
//! What reaches the CLI is only what pawl's adapter lets through: Claude is pointed at the mock
//! by `ANTHROPIC_BASE_URL`/`ANTHROPIC_API_KEY` in pawl's environment, Codex by a
//! `$CODEX_HOME/config.toml` with a custom Responses provider whose key variable pawl must pass
//! on, Gemini by `GOOGLE_GEMINI_BASE_URL`/`GEMINI_API_KEY` with API-key auth selected in the
//! user's `~/.gemini/settings.json` (as a Gemini user has it). Claude runs with
//! `--permission-mode acceptEdits`, an allow-list and pawl's guard hook (no
//! `--dangerously-skip-permissions`, no `IS_SANDBOX`), as root here; Gemini with `--approval-mode
//! auto_edit --allowed-tools run_shell_command`.
//!
//! The CLIs come from `PAWL_CLAUDE_BIN` / `PAWL_CODEX_BIN` / `PAWL_GEMINI_BIN` or the cache
//! `.ci/install-agents.sh` fills; a missing CLI fails the test under `CI=true` and skips it
//! loudly otherwise.

#![allow(clippy::print_stderr)]

use std::path::PathBuf;
use std::time::Instant;

use pawl_testkit::{Fault, MockServer, Scenario, ToolCall, Turn};
use serde_json::Value;

use crate::headless::NO_BREAKERS;
use crate::hooks_real::{self, python};
use crate::{Run, TestEnv};

/// Two bugs, one per test: `add` subtracts, `mul` powers.
pub(crate) const CALC: &str =
    "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a ** b\n";
const TESTS: &str = "import unittest\nfrom calc import add, mul\n\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n";
const FIX_ADD: &str = "sed -i 's/a - b/a + b/' calc.py";
const FIX_MUL: &str = "sed -i 's/a \\*\\* b/a * b/' calc.py";
pub(crate) const FIX_BOTH: &str = "sed -i -e 's/a - b/a + b/' -e 's/a \\*\\* b/a * b/' calc.py";
const GOAL: &str = "make the calculator in calc.py correct";

/// The tested version, from `.ci/agent-versions`.
fn gemini_version() -> &'static str {
    pawl_agent::pins::tested("gemini").expect("gemini pinned in .ci/agent-versions")
}

/// The agent CLIs driven here (`hooks_real` drives Claude Code and Codex in session mode).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Cli {
    Claude,
    Codex,
    Gemini,
}

/// The CLI's binary, or `None` after a loud skip line. Panics under `CI=true` when missing.
pub(crate) fn find(cli: Cli) -> Option<PathBuf> {
    match cli {
        Cli::Claude => hooks_real::find(hooks_real::Cli::Claude),
        Cli::Codex => hooks_real::find(hooks_real::Cli::Codex),
        Cli::Gemini => {
            let cached = || {
                let cache = match std::env::var_os("PAWL_AGENT_CACHE") {
                    Some(d) => PathBuf::from(d),
                    None => PathBuf::from(std::env::var_os("HOME")?).join(".cache/pawl-agents"),
                };
                Some(cache.join(format!(
                    "gemini-cli-{}/node_modules/.bin/gemini",
                    gemini_version()
                )))
            };
            let path = std::env::var_os("PAWL_GEMINI_BIN")
                .map(PathBuf::from)
                .or_else(cached);
            if let Some(p) = path.filter(|p| p.is_file()) {
                return Some(p);
            }
            let msg =
                "Gemini CLI not found: set PAWL_GEMINI_BIN or run `source .ci/install-agents.sh`";
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("{msg}");
            }
            eprintln!("SKIPPED (real-CLI test): {msg}");
            None
        }
    }
}

/// The user's `~/.gemini/settings.json` for the Gemini cases: API-key auth (Gemini CLI 0.61 refuses
/// the `gateway` type it infers from `GOOGLE_GEMINI_BASE_URL` alone in headless mode), and none of
/// the traffic pawl cannot switch off from the environment (usage statistics, update checks).
pub(crate) const GEMINI_SETTINGS: &str = r#"{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "ide": {"enabled": false}
}
"#;

/// A repository with the buggy calculator, `pawl init` and a committed pawl.toml for `cli`,
/// and the mock serving `scenario`.
pub(crate) struct Case {
    cli: Cli,
    pub(crate) env: TestEnv,
    pub(crate) server: MockServer,
    tmp: PathBuf,
    codex_home: PathBuf,
}

/// Codex provider retries: HTTP 5xx (`request_max_retries`) and stream/429 (`stream_max_retries`).
#[derive(Clone, Copy)]
pub(crate) struct Retries {
    request: u32,
    stream: u32,
}

pub(crate) const RETRIES: Retries = Retries {
    request: 3,
    stream: 3,
};

/// Whether `scenario` answers pawl's independent tester (a turn for its prompt's first line).
pub(crate) fn scripts_the_tester(scenario: &Scenario) -> bool {
    scenario.turns.iter().any(|t| {
        t.when_last_user_contains
            .as_deref()
            .is_some_and(|n| n.contains(pawl_core::tester::MARKER))
    })
}

pub(crate) fn case(cli: Cli, scenario: Scenario, retries: Retries) -> Option<Case> {
    let bin = find(cli)?;
    // A scenario that does not script pawl's independent tester runs without one: the mock
    // would answer it with no test file, and a tester that writes nothing keeps a run from
    // SHIP (fail-closed, `pawl_core::tester::unrun`) — these cases are about something else.
    let tester = if scripts_the_tester(&scenario) {
        ""
    } else {
        "\n[tester]\non = \"off\"\n"
    };
    let server = MockServer::start(scenario).unwrap();
    let env = TestEnv::new();
    env.write("calc.py", CALC);
    env.write("test_calc.py", TESTS);
    let (kind, model) = match cli {
        Cli::Claude => ("claude", ""),
        Cli::Codex => ("codex", "model = \"gpt-5.5\"\n"),
        Cli::Gemini => ("gemini", ""),
    };
    env.headless(&format!(
        "[agent]\nkind = \"{kind}\"\ncommand = [\"{}\"]\n{model}\n[limits]\ncalls_per_hour = 0\nmax_iterations = 6\n\n\
         [breakers]\n{NO_BREAKERS}\n[stall]\nidle_timeout = \"90s\"\nstep_timeout = \"180s\"\n\n\
         [gates]\ntest = \"{} -m unittest -q\"\n{tester}",
        bin.display(),
        python()
    ));
    let tmp = env.dir.path().join("tmp");
    // Not under TMPDIR: Codex refuses helper binaries there.
    let codex_home = env.dir.path().join("codex_home");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(&codex_home).unwrap();
    if cli == Cli::Gemini {
        let settings = env.dir.path().join("home/.gemini");
        std::fs::create_dir_all(&settings).unwrap();
        std::fs::write(settings.join("settings.json"), GEMINI_SETTINGS).unwrap();
    }
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
    pub(crate) fn run(&self, extra: &[(&str, &str)]) -> Run {
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
            Cli::Gemini => env.extend([
                ("GOOGLE_GEMINI_BASE_URL", base_url.as_str()),
                ("GEMINI_API_KEY", "dummy"),
            ]),
        }
        env.extend_from_slice(extra);
        let agent = match self.cli {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Gemini => "gemini",
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
    pub(crate) fn why(&self, r: &Run) -> String {
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

    pub(crate) fn calc(&self) -> String {
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

#[test]
fn real_gemini_fixes_a_bug_in_two_iterations_and_pawl_verifies() {
    fixes_in_two_iterations(Cli::Gemini);
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

#[test]
fn real_gemini_claiming_done_gets_the_failing_test_in_the_next_prompt() {
    claims_done_while_failing(Cli::Gemini);
}

// ---------------------------------------------------------------------------------------------
// 3. 529 overloaded (Codex, Gemini: 503), then success.

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
        Cli::Codex | Cli::Gemini => 503,
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
        // Gemini CLI says so on stderr only ("Attempt 1 failed with status 503. Retrying with
        // backoff..."), which pawl's adapter reads as a rate-limit event of the step.
        Cli::Gemini => {
            assert_eq!(retries.len(), 1, "{why}");
            assert!(
                retries[0]["message"]
                    .as_str()
                    .unwrap()
                    .contains("failed with status 503"),
                "{why}"
            );
        }
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

#[test]
fn real_gemini_overloaded_then_success_ends_verified() {
    overloaded_then_success(Cli::Gemini);
}

// ---------------------------------------------------------------------------------------------
// 4. 429 that the CLI gives up on: pawl waits and resumes.

/// A Gemini API quota error naming a wait longer than Gemini CLI retries by itself (300 s).
const GEMINI_QUOTA: &str = "You exceeded your current quota, please check your plan and billing details. Please retry in 400s.";

fn rate_limited_then_resumed(cli: Cli) {
    let fault = match cli {
        Cli::Claude | Cli::Codex => Fault::RateLimit {
            retry_after_secs: 1,
            message: None,
        },
        Cli::Gemini => Fault::RateLimit {
            retry_after_secs: 400,
            message: Some(GEMINI_QUOTA.into()),
        },
    };
    let scenario = Scenario::new(vec![
        Turn::text("Fixing add() and mul().")
            .with_tool(ToolCall::bash(FIX_BOTH))
            .with_fault(fault),
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
    // 30 s base, scaled down here by pawl's hidden test knob (0.05: 1.5 s). Gemini CLI gives up
    // on a quota error whose wait is over 300 s and its error names the wait: pawl waits that
    // long (400 s, scaled by 0.004: 1.6 s; its own backoff would be 0.12 s).
    let scale = match cli {
        Cli::Claude | Cli::Codex => "0.05",
        Cli::Gemini => "0.004",
    };
    let r = c.run(&[
        ("CLAUDE_CODE_MAX_RETRIES", "0"),
        ("PAWL_TEST_RATE_LIMIT_SCALE", scale),
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
        Cli::Gemini => "Please retry in 400s",
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

#[test]
fn real_gemini_quota_error_makes_pawl_wait_the_named_time_and_resume() {
    rate_limited_then_resumed(Cli::Gemini);
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
    // pawl counts input as fresh + cache reads + cache writes. The Gemini API has no cache
    // writes: the mock reports fresh + cached as `promptTokenCount`, the cached part apart.
    let mock_in = match cli {
        Cli::Claude | Cli::Codex => {
            mock.input_tokens + mock.cache_read_input_tokens + mock.cache_creation_input_tokens
        }
        Cli::Gemini => mock.input_tokens + mock.cache_read_input_tokens,
    };
    assert_eq!(mock.input_tokens, 1000 + 1100 + 1200 + 1300);
    assert_eq!(tokens_in as u64, mock_in, "{why}");
    assert_eq!(tokens_out as u64, mock.output_tokens, "{why}");
    assert!(cost > 0.0, "{why}");
    match cli {
        // Claude Code reports its dollars, as the session's running total: after `--resume`,
        // a step's own cost is the growth of that total. Charged in all: the last total.
        Cli::Claude => {
            assert_eq!(estimated, 0, "{why}");
            // The running totals as Claude Code printed them (the step logs keep its stream).
            let mut totals: Vec<f64> = Vec::new();
            let mut logs: Vec<_> = std::fs::read_dir(c.env.root().join(".pawl/logs"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().contains("-iter-"))
                .collect();
            logs.sort();
            for log in logs {
                for line in std::fs::read_to_string(log).unwrap().lines() {
                    let line = line.strip_prefix("out| ").unwrap_or(line);
                    if let Ok(v) = serde_json::from_str::<Value>(line.trim())
                        && v["type"] == "result"
                        && let Some(t) = v["total_cost_usd"].as_f64()
                    {
                        totals.push(t);
                    }
                }
            }
            assert_eq!(totals.len(), 2, "{totals:?}: {why}");
            assert!(totals[1] > totals[0], "a running total: {totals:?}");
            let last = totals[1];
            assert!(
                (cost - last).abs() < 1e-9,
                "charged {cost}, the session's total is {last} ({totals:?}): {why}"
            );
            let charged: f64 = agent_events(&r)
                .iter()
                .filter(|e| e["type"] == "result")
                .filter_map(|e| e["cost_usd"].as_f64())
                .sum();
            assert!((cost - charged).abs() < 1e-9, "{cost} vs {charged}");
        }
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
        // Gemini CLI reports tokens per model: all of them went to the pro model its router
        // picked (`gemini-3.1-pro-preview-customtools`), none to the classifier. pawl estimates
        // at gemini-3.1-pro list prices, marked estimated.
        Cli::Gemini => {
            assert_eq!(estimated, 2, "{why}");
            let expected = (mock.input_tokens as f64 * 2.0
                + mock.cache_read_input_tokens as f64 * 0.2
                + mock.output_tokens as f64 * 12.0)
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

#[test]
fn real_gemini_tokens_and_cost_match_the_mock_and_cost_is_estimated() {
    tokens_and_cost_match_the_mock(Cli::Gemini);
}

// ---------------------------------------------------------------------------------------------
// The guard during a headless run.

/// A `git push --force` in the scripted turn is denied by pawl's guard (PreToolUse, routed by
/// `PAWL_DRIVER=headless`) and never runs: the remote gets no ref, the model is told why, and
/// pawl's store records the denial. Claude gets the hook through `--settings`, Codex through a
/// `-c hooks.PreToolUse=...` override; neither touches the user's configuration. Gemini CLI 0.61
/// has no way to take a hook for one invocation (no settings flag; the system settings files it
/// can be pointed at must be owned by root), so pawl adds none: the guard reaches a headless Gemini
/// run through the project's `.gemini/settings.json` hooks that `pawl init --agent gemini`
/// installs, which the hook routes to the guard by `PAWL_DRIVER=headless`.
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
    if cli == Cli::Gemini {
        // The hooks go to the project's settings, kept out of git (`.git/info/exclude`): the
        // tree stays clean for the run.
        c.env.ok(&["init", "--agent", "gemini"]);
        c.env.git(&["add", "-A"]);
        c.env
            .git(&["commit", "-q", "--allow-empty", "-m", "pawl's Gemini hooks"]);
    }
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
        Cli::Gemini => {
            // The refusal comes back as a `policy_violation` tool result: a permission denial.
            assert!(
                agent_events(&r)
                    .iter()
                    .any(|e| e["type"] == "permission_denied"
                        && e["tool"] == "run_shell_command"
                        && e["detail"].as_str().unwrap().contains("git push --force")),
                "{why}"
            );
            // Edits auto-approved and the shell allowed, never yolo.
            for flag in [
                "--approval-mode auto_edit",
                "--allowed-tools run_shell_command",
            ] {
                assert!(argv.contains(flag), "{flag}: {argv}");
            }
            assert!(!argv.contains("yolo"), "{argv}");
            // The hook is the project's (from `pawl init --agent gemini`); the user's settings
            // are as the user left them.
            let project =
                std::fs::read_to_string(c.env.root().join(".gemini/settings.json")).unwrap();
            assert!(
                project.contains("BeforeTool") && project.contains("hook gemini pre-tool-use"),
                "{project}"
            );
            let user = std::fs::read_to_string(c.env.dir.path().join("home/.gemini/settings.json"))
                .unwrap();
            assert_eq!(user, GEMINI_SETTINGS);
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

#[test]
fn real_gemini_destructive_command_is_denied_by_pawls_guard_with_the_projects_hooks() {
    destructive_command_is_denied_by_pawls_guard(Cli::Gemini);
}

// ---------------------------------------------------------------------------------------------
// What reaches the agent.

/// Gemini CLI sees the API key and base URL pawl passes on (and its own quiet and trust
/// switches, the run's id), and nothing else of pawl's environment: the scripted shell call
/// dumps the environment the agent's tools get.
#[test]
fn real_gemini_gets_its_key_and_base_url_and_nothing_else() {
    let dump = tempfile::tempdir().unwrap();
    let file = dump.path().join("agent-env.txt");
    let scenario = Scenario::new(vec![
        Turn::text("Fixing add() and mul().").with_tool(ToolCall::bash(format!(
            "env > {} && {FIX_BOTH}",
            file.display()
        ))),
        Turn::text("Fixed both."),
    ]);
    let Some(c) = case(Cli::Gemini, scenario, RETRIES) else {
        return;
    };
    let r = c.run(&[
        ("OPENAI_API_KEY", "leaked-openai"),
        ("ANTHROPIC_API_KEY", "leaked-anthropic"),
        ("AWS_SECRET_ACCESS_KEY", "leaked-aws"),
        ("PAWL_TEST_SECRET", "leaked-other"),
    ]);
    c.assert_verified(&r, 1);
    let why = c.why(&r);
    let env = std::fs::read_to_string(&file).unwrap();
    let vars: std::collections::BTreeMap<&str, &str> =
        env.lines().filter_map(|l| l.split_once('=')).collect();
    let base_url = c.server.base_url();
    assert_eq!(vars.get("GEMINI_API_KEY"), Some(&"dummy"), "{env}");
    assert_eq!(
        vars.get("GOOGLE_GEMINI_BASE_URL"),
        Some(&base_url.as_str()),
        "{env}"
    );
    assert_eq!(
        vars.get("GEMINI_CLI_TRUST_WORKSPACE"),
        Some(&"true"),
        "{env}"
    );
    assert_eq!(vars.get("PAWL_DRIVER"), Some(&"headless"), "{env}");
    assert!(vars.contains_key("PAWL_RUN_ID"), "{env}");
    assert!(!env.contains("leaked-"), "{env}\n{why}");
}
