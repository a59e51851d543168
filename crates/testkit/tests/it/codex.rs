//! The real Codex CLI (`codex exec --json`, custom `wire_api = "responses"` provider) against the
//! mock.

use std::time::Duration;

use pawl_testkit::{Fault, MockServer, Scenario, ToolCall, Turn};
use serde_json::Value;

use crate::agents::{
    Agent, CliRun, CodexRetries, Sandbox, codex_version, find, maybe_record_fixture, run_cli,
};

fn hello_scenario(first_turn_faults: Vec<Fault>) -> Scenario {
    let mut first = Turn::text("Creating hello.txt.")
        .with_tool(ToolCall::bash("echo hello > hello.txt"))
        .with_usage(900, 21);
    first.faults = first_turn_faults;
    Scenario::new(vec![first, Turn::text("Done.").with_usage(1000, 4)])
}

fn run_codex(
    server: &MockServer,
    sandbox: &Sandbox,
    retries: CodexRetries,
    prompt: &str,
) -> Option<CliRun> {
    let codex = find(Agent::Codex)?;
    let env = sandbox.codex_env(&server.base_url(), retries);
    let args = ["exec", "--json", prompt];
    Some(run_cli(
        &codex,
        &args,
        &env,
        &sandbox.repo(),
        Duration::from_secs(120),
    ))
}

/// Exit 0, the closing message, and `turn.completed` usage equal to what the mock reported.
fn assert_success_with_mock_usage(run: &CliRun, server: &MockServer) {
    assert!(run.status.success(), "{}", run.describe());
    let completed = run
        .last_event("turn.completed")
        .unwrap_or_else(|| panic!("no turn.completed\n{}", run.describe()));
    let usage = server.reported_usage();
    assert_eq!(
        completed["usage"]["input_tokens"],
        Value::from(usage.input_tokens),
        "{completed}"
    );
    assert_eq!(
        completed["usage"]["output_tokens"],
        Value::from(usage.output_tokens),
        "{completed}"
    );
    let last_message = run
        .events()
        .into_iter()
        .rev()
        .find(|e| e["type"] == "item.completed" && e["item"]["type"] == "agent_message");
    assert_eq!(last_message.unwrap()["item"]["text"], "Done.");
}

#[test]
fn codex_runs_a_scripted_shell_call_and_reports_mock_usage() {
    let server = MockServer::start(hello_scenario(Vec::new())).unwrap();
    let sandbox = Sandbox::new();
    let Some(run) = run_codex(
        &server,
        &sandbox,
        CodexRetries::default(),
        "create hello.txt",
    ) else {
        return;
    };

    assert_eq!(
        std::fs::read_to_string(sandbox.repo().join("hello.txt")).unwrap(),
        "hello\n"
    );
    assert_success_with_mock_usage(&run, &server);
    let command = run
        .events()
        .into_iter()
        .find(|e| e["type"] == "item.completed" && e["item"]["type"] == "command_execution")
        .unwrap();
    assert_eq!(command["item"]["exit_code"], 0);
    assert!(
        command["item"]["command"]
            .as_str()
            .unwrap()
            .contains("echo hello > hello.txt")
    );

    let main = server.main_requests();
    assert_eq!(main.len(), 2, "{:#?}", server.requests());
    assert_eq!(main[0].path, "/v1/responses");
    assert!(
        main[0].tools.iter().any(|tool| tool == "exec_command"),
        "{:?}",
        main[0].tools
    );
    assert_eq!(main[0].header("originator"), Some("codex_exec"));
    assert_eq!(main[0].last_user_text(), Some("create hello.txt"));
    assert_eq!(main[1].tool_outputs.len(), 1);
    assert_eq!(server.requests().len(), 2, "no side requests");
    maybe_record_fixture(
        &format!("codex-{}-basic.jsonl", codex_version()),
        &run,
        &sandbox,
        &server,
    );
}

#[test]
fn codex_retries_a_5xx_then_succeeds() {
    let faults = vec![Fault::ServerError { status: 500 }, Fault::Overloaded];
    let server = MockServer::start(hello_scenario(faults)).unwrap();
    let sandbox = Sandbox::new();
    let retries = CodexRetries {
        request: 3,
        stream: 0,
    };
    let Some(run) = run_codex(&server, &sandbox, retries, "create hello.txt") else {
        return;
    };

    assert!(
        sandbox.repo().join("hello.txt").is_file(),
        "{}",
        run.describe()
    );
    assert_success_with_mock_usage(&run, &server);
    let statuses: Vec<u16> = server.main_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![500, 503, 200, 200]);
}

#[test]
fn codex_without_retries_fails_on_a_5xx() {
    let server = MockServer::start(hello_scenario(vec![Fault::Overloaded])).unwrap();
    let sandbox = Sandbox::new();
    let Some(run) = run_codex(
        &server,
        &sandbox,
        CodexRetries::default(),
        "create hello.txt",
    ) else {
        return;
    };

    assert_eq!(run.status.code(), Some(1), "{}", run.describe());
    assert!(
        run.last_event("turn.failed").is_some(),
        "{}",
        run.describe()
    );
    assert!(!sandbox.repo().join("hello.txt").exists());
    assert_eq!(server.main_requests().len(), 1);
    maybe_record_fixture(
        &format!("codex-{}-turn-failed.jsonl", codex_version()),
        &run,
        &sandbox,
        &server,
    );
}

#[test]
fn codex_waits_out_a_429_with_retry_after() {
    let fault = Fault::RateLimit {
        retry_after_secs: 2,
        message: None,
    };
    let server = MockServer::start(hello_scenario(vec![fault])).unwrap();
    let sandbox = Sandbox::new();
    // Codex 0.169 does not retry a 429 at the request layer (`request_max_retries`); its turn
    // loop does, counted by `stream_max_retries`.
    let retries = CodexRetries {
        request: 0,
        stream: 3,
    };
    let Some(run) = run_codex(&server, &sandbox, retries, "create hello.txt") else {
        return;
    };

    let main = server.main_requests();
    assert!(run.status.success(), "{}\n{:#?}", run.describe(), main);
    assert!(sandbox.repo().join("hello.txt").is_file());
    assert_success_with_mock_usage(&run, &server);
    assert_eq!(
        main.iter().map(|r| r.status).collect::<Vec<_>>(),
        vec![429, 200, 200]
    );
    let waited = main[1].at_ms - main[0].at_ms;
    assert!(
        waited >= 1900,
        "retried after {waited} ms, before retry-after elapsed"
    );
    maybe_record_fixture(
        &format!("codex-{}-retry-429.jsonl", codex_version()),
        &run,
        &sandbox,
        &server,
    );
}
