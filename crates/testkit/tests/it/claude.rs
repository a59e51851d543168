//! The real Claude Code CLI (`claude -p --output-format stream-json --verbose`) against the mock.

use std::time::Duration;

use pawl_testkit::{Fault, MockServer, Scenario, ToolCall, Turn};
use serde_json::Value;

use crate::agents::{Agent, CliRun, Sandbox, claude_version, find, maybe_record_fixture, run_cli};

/// A tool turn that creates `hello.txt`, then a closing text turn.
fn hello_scenario(first_turn_faults: Vec<Fault>) -> Scenario {
    let mut first = Turn::text("Creating hello.txt.")
        .with_tool(ToolCall::bash("echo hello > hello.txt"))
        .with_usage(1200, 34);
    first.faults = first_turn_faults;
    Scenario::new(vec![first, Turn::text("Done.").with_usage(1300, 7)])
}

fn run_claude(server: &MockServer, sandbox: &Sandbox, prompt: &str) -> Option<CliRun> {
    let claude = find(Agent::Claude)?;
    let env = sandbox.claude_env(&server.base_url());
    let args = [
        "-p",
        prompt,
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
    ];
    Some(run_cli(
        &claude,
        &args,
        &env,
        &sandbox.repo(),
        Duration::from_secs(120),
    ))
}

/// Exit 0, a success result whose usage is exactly what the mock reported.
fn assert_success_with_mock_usage(run: &CliRun, server: &MockServer) {
    assert!(run.status.success(), "{}", run.describe());
    let result = run
        .last_event("result")
        .unwrap_or_else(|| panic!("no result\n{}", run.describe()));
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "Done.");
    let usage = server.reported_usage();
    assert_eq!(
        result["usage"]["input_tokens"],
        Value::from(usage.input_tokens),
        "{result}"
    );
    assert_eq!(
        result["usage"]["output_tokens"],
        Value::from(usage.output_tokens),
        "{result}"
    );
}

#[test]
fn claude_runs_a_scripted_bash_call_and_reports_mock_usage() {
    let server = MockServer::start(hello_scenario(Vec::new())).unwrap();
    let sandbox = Sandbox::new();
    let Some(run) = run_claude(&server, &sandbox, "create hello.txt") else {
        return;
    };

    assert_eq!(
        std::fs::read_to_string(sandbox.repo().join("hello.txt")).unwrap(),
        "hello\n"
    );
    assert_success_with_mock_usage(&run, &server);
    assert_eq!(server.reported_usage().input_tokens, 2500);
    let init = run
        .events()
        .into_iter()
        .find(|e| e["type"] == "system" && e["subtype"] == "init");
    assert_eq!(init.unwrap()["claude_code_version"], claude_version());

    let main = server.main_requests();
    assert_eq!(main.len(), 2, "{:#?}", server.requests());
    assert_eq!(main[0].path, "/v1/messages");
    assert!(main[0].tools.iter().any(|tool| tool == "Bash"));
    assert_eq!(main[0].header("x-api-key"), Some("dummy"));
    assert!(
        main[0]
            .last_user_text()
            .unwrap()
            .contains("create hello.txt")
    );
    // The second request carries the Bash result back.
    assert_eq!(main[1].tool_outputs.len(), 1, "{:?}", main[1].tool_outputs);
    assert_eq!(main[1].turn, Some(1));
    // With the quiet variables there is no preflight and no side traffic.
    assert_eq!(server.requests().len(), 2);
    maybe_record_fixture(
        &format!("claude-{}-basic.jsonl", claude_version()),
        &run,
        &sandbox,
        &server,
    );
}

#[test]
fn claude_retries_a_529_overloaded_then_succeeds() {
    let server = MockServer::start(hello_scenario(vec![Fault::Overloaded])).unwrap();
    let sandbox = Sandbox::new();
    let Some(run) = run_claude(&server, &sandbox, "create hello.txt") else {
        return;
    };

    assert!(
        sandbox.repo().join("hello.txt").is_file(),
        "{}",
        run.describe()
    );
    assert_success_with_mock_usage(&run, &server);
    let main = server.main_requests();
    let statuses: Vec<u16> = main.iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![529, 200, 200]);
    assert_eq!(main[0].turn, Some(0));
    assert_eq!(
        main[1].turn,
        Some(0),
        "the retry is answered by the same turn"
    );
    maybe_record_fixture(
        &format!("claude-{}-retry-529.jsonl", claude_version()),
        &run,
        &sandbox,
        &server,
    );
}

#[test]
fn claude_waits_out_a_429_with_retry_after() {
    let fault = Fault::RateLimit {
        retry_after_secs: 2,
        message: None,
    };
    let server = MockServer::start(hello_scenario(vec![fault])).unwrap();
    let sandbox = Sandbox::new();
    let Some(run) = run_claude(&server, &sandbox, "create hello.txt") else {
        return;
    };

    assert!(
        sandbox.repo().join("hello.txt").is_file(),
        "{}",
        run.describe()
    );
    assert_success_with_mock_usage(&run, &server);
    let main = server.main_requests();
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
        &format!("claude-{}-retry-429.jsonl", claude_version()),
        &run,
        &sandbox,
        &server,
    );
}

#[test]
fn claude_continuation_prompt_is_matched_by_text() {
    // The script answers by what the prompt says, not by position: a run whose prompt names a
    // failing test gets the fix turn.
    let scenario = Scenario::new(vec![
        Turn::text("Nothing to do here.").when_last_user_contains("unrelated"),
        Turn::text("Fixing it.")
            .with_tool(ToolCall::Write {
                path: "fixed.txt".into(),
                content: "fixed\n".into(),
            })
            .when_last_user_contains("test_parse_empty"),
        Turn::text("Done."),
    ]);
    let server = MockServer::start(scenario).unwrap();
    let sandbox = Sandbox::new();
    let prompt = "The gate failed: test_parse_empty panicked. Fix it.";
    let Some(run) = run_claude(&server, &sandbox, prompt) else {
        return;
    };

    assert!(run.status.success(), "{}", run.describe());
    assert_eq!(
        std::fs::read_to_string(sandbox.repo().join("fixed.txt")).unwrap(),
        "fixed\n"
    );
    assert!(
        server
            .last_user_text()
            .unwrap()
            .contains("test_parse_empty")
    );
    assert!(
        server
            .all_user_texts()
            .iter()
            .any(|text| text.contains("test_parse_empty panicked"))
    );
    let turns: Vec<Option<usize>> = server.main_requests().iter().map(|r| r.turn).collect();
    assert_eq!(turns, vec![Some(1), Some(2)]);
}
