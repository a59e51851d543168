//! The parsers on streams recorded from the real CLIs (Claude Code 2.1.329, Codex 0.169.0,
//! Gemini CLI 0.61.0, copied from pawl-testkit's recordings): session ids, tokens and cost exactly as the stream
//! says, file edits, and waits for rate limits.

use std::path::Path;
use std::time::Duration;

use pawl_agent::claude::{ClaudeAdapter, ClaudeOptions};
use pawl_agent::codex::{self, CodexAdapter, CodexOptions};
use pawl_agent::gemini::{GeminiAdapter, GeminiOptions};
use pawl_agent::{Adapter, AgentEvent, Usage};
use serde_json::Value;

pub fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn parse_all(adapter: &mut dyn Adapter, text: &str, exit_code: i32) -> Vec<AgentEvent> {
    let mut events: Vec<AgentEvent> = text.lines().flat_map(|l| adapter.parse_stdout(l)).collect();
    events.extend(adapter.finish(Some(exit_code)));
    events
}

fn last_json(text: &str, kind: &str) -> Value {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .rfind(|v| v["type"] == kind)
        .unwrap()
}

fn session(events: &[AgentEvent]) -> Option<String> {
    events.iter().find_map(|e| match e {
        AgentEvent::SessionStarted { session_id, .. } => Some(session_id.clone()),
        _ => None,
    })
}

fn result(events: &[AgentEvent]) -> (Usage, Option<f64>, bool, bool) {
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::Result {
                usage,
                cost_usd,
                cost_estimated,
                is_error,
                ..
            } => Some((*usage, *cost_usd, *cost_estimated, *is_error)),
            _ => None,
        })
        .unwrap()
}

fn claude() -> ClaudeAdapter {
    ClaudeAdapter::new(ClaudeOptions::default()).unwrap()
}

fn codex_adapter() -> CodexAdapter {
    CodexAdapter::new(CodexOptions {
        model: Some("gpt-5.5".into()),
        ..CodexOptions::default()
    })
    .unwrap()
}

#[test]
fn claude_basic_stream() {
    for name in [
        "claude-2.1.329-basic.jsonl",
        "claude-2.1.329-retry-529.jsonl",
        "claude-2.1.329-retry-429.jsonl",
    ] {
        let text = fixture(name);
        let events = parse_all(&mut claude(), &text, 0);
        let last = last_json(&text, "result");
        assert_eq!(
            session(&events).as_deref(),
            last["session_id"].as_str(),
            "{name}"
        );
        assert!(matches!(
            &events[0],
            AgentEvent::SessionStarted { model: Some(m), .. } if m == "claude-opus-5-5"
        ));
        let (usage, cost, estimated, is_error) = result(&events);
        assert_eq!(
            usage.input_tokens,
            last["usage"]["input_tokens"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            usage.output_tokens,
            last["usage"]["output_tokens"].as_u64().unwrap()
        );
        assert_eq!(usage.input_tokens, 2500);
        assert_eq!(cost, last["total_cost_usd"].as_f64());
        assert_eq!(cost, Some(0.01082));
        assert!(!estimated && !is_error);
        // Bash wrote hello.txt: Claude Code's own edit tracking reports it.
        assert!(events.contains(&AgentEvent::FileEdited {
            path: "/sandbox/repo/hello.txt".into()
        }));
        assert!(
            events
                .iter()
                .any(|e| matches!(e, AgentEvent::ToolCall { name, .. } if name == "Bash"))
        );
        assert!(
            events.contains(&AgentEvent::ToolResult {
                id: Some(
                    if name.contains("basic") {
                        "toolu_mock_0_0"
                    } else {
                        "toolu_mock_1_0"
                    }
                    .into()
                ),
                is_error: false,
                output: "(Bash completed with no output)".into()
            })
        );
        assert!(events.contains(&AgentEvent::Text {
            text: "Done.".into()
        }));
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, AgentEvent::Unknown { .. })),
            "{events:?}"
        );
    }
}

#[test]
fn claude_429_and_529_retries_are_rate_limits() {
    let events = parse_all(&mut claude(), &fixture("claude-2.1.329-retry-429.jsonl"), 0);
    let waits: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::RateLimited {
                retry_after,
                message,
            } => Some((*retry_after, message.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(waits.len(), 1, "{events:?}");
    assert_eq!(waits[0].0, Some(Duration::from_millis(2407)));
    assert!(waits[0].1.contains("429"), "{}", waits[0].1);

    let events = parse_all(&mut claude(), &fixture("claude-2.1.329-retry-529.jsonl"), 0);
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, AgentEvent::RateLimited { .. }))
            .count(),
        1
    );
}

#[test]
fn claude_with_hooks_stream_keeps_hook_events_as_unknown() {
    // Recorded by the agent e2e experiment (hooks on, a PreToolUse deny, a Stop block).
    let text = fixture("claude-2.1.329-hooks.jsonl");
    let events = parse_all(&mut claude(), &text, 0);
    let last = last_json(&text, "result");
    assert_eq!(session(&events).as_deref(), last["session_id"].as_str());
    assert!(events.iter().any(|e| matches!(e, AgentEvent::ToolResult { is_error: true, output, .. } if output.contains("PreToolUse:Bash hook error"))));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::Unknown { raw } if raw.contains("hook_started")))
    );
    let (usage, cost, ..) = result(&events);
    assert_eq!(
        usage.input_tokens,
        last["usage"]["input_tokens"].as_u64().unwrap()
    );
    assert_eq!(cost, last["total_cost_usd"].as_f64());
}

#[test]
fn codex_basic_stream() {
    for name in ["codex-0.169.0-basic.jsonl", "codex-0.169.0-retry-429.jsonl"] {
        let text = fixture(name);
        let events = parse_all(&mut codex_adapter(), &text, 0);
        let started = last_json(&text, "thread.started");
        assert_eq!(
            session(&events).as_deref(),
            started["thread_id"].as_str(),
            "{name}"
        );
        let completed = last_json(&text, "turn.completed");
        let (usage, cost, estimated, is_error) = result(&events);
        assert_eq!(
            usage.input_tokens,
            completed["usage"]["input_tokens"].as_u64().unwrap()
        );
        assert_eq!(
            usage.output_tokens,
            completed["usage"]["output_tokens"].as_u64().unwrap()
        );
        assert_eq!((usage.input_tokens, usage.output_tokens), (1900, 25));
        assert!(estimated && !is_error);
        assert_eq!(cost, Some(codex::estimate_cost(Some("gpt-5.5"), &usage)));
        assert!(cost.unwrap() > 0.0);
        assert!(events.contains(&AgentEvent::Text {
            text: "Done.".into()
        }));
        assert!(events.iter().any(
            |e| matches!(e, AgentEvent::ToolCall { name, .. } if name == "command_execution")
        ));
        assert!(events.iter().any(|e| matches!(
            e,
            AgentEvent::ToolResult {
                is_error: false,
                ..
            }
        )));
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, AgentEvent::Unknown { .. })),
            "{events:?}"
        );
    }
    let events = parse_all(
        &mut codex_adapter(),
        &fixture("codex-0.169.0-retry-429.jsonl"),
        0,
    );
    assert!(
        events.iter().any(
            |e| matches!(e, AgentEvent::RateLimited { message, .. } if message.contains("429"))
        )
    );
}

#[test]
fn codex_turn_failed_is_an_error_result() {
    let events = parse_all(
        &mut codex_adapter(),
        &fixture("codex-0.169.0-turn-failed.jsonl"),
        1,
    );
    assert!(session(&events).is_some());
    // A 503 "overloaded" is the provider asking to wait.
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::RateLimited { .. })),
        "{events:?}"
    );
    let (usage, _, _, is_error) = result(&events);
    assert!(is_error);
    assert_eq!(usage, Usage::default());
}

#[test]
fn claude_write_tool_call_is_a_file_edit() {
    // Recorded by real_cli::real_claude_through_the_adapter (acceptEdits + allow-list).
    let text = fixture("claude-2.1.329-write.jsonl");
    let events = parse_all(&mut claude(), &text, 0);
    let call = events
        .iter()
        .position(|e| matches!(e, AgentEvent::ToolCall { name, .. } if name == "Write"))
        .unwrap();
    assert_eq!(
        events[call + 1],
        AgentEvent::FileEdited {
            path: "/sandbox/repo/hello.txt".into()
        }
    );
    let last = last_json(&text, "result");
    assert_eq!(session(&events).as_deref(), last["session_id"].as_str());
    let (usage, cost, ..) = result(&events);
    assert_eq!((usage.input_tokens, usage.output_tokens), (2500, 41));
    assert_eq!(cost, last["total_cost_usd"].as_f64());
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::PermissionDenied { .. }))
    );
}

#[test]
fn codex_file_change_is_a_file_edit() {
    // Recorded by real_cli::real_codex_through_the_adapter (apply_patch in workspace-write).
    let events = parse_all(
        &mut codex_adapter(),
        &fixture("codex-0.169.0-write.jsonl"),
        0,
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, AgentEvent::FileEdited { .. }))
            .collect::<Vec<_>>(),
        [&AgentEvent::FileEdited {
            path: "/sandbox/repo/hello.txt".into()
        }]
    );
    let (usage, ..) = result(&events);
    assert_eq!((usage.input_tokens, usage.output_tokens), (2500, 41));
}

fn gemini() -> GeminiAdapter {
    GeminiAdapter::new(GeminiOptions::default()).unwrap()
}

/// Recorded by pawl-testkit's `gemini_runs_a_scripted_shell_call_and_reports_mock_usage`: the
/// real Gemini CLI 0.61.0, `--model auto` routed to `gemini-3.1-pro-preview-customtools`.
#[test]
fn gemini_basic_stream() {
    let text = fixture("gemini-0.61.0-basic.jsonl");
    let events = parse_all(&mut gemini(), &text, 0);
    let init = last_json(&text, "init");
    assert_eq!(session(&events).as_deref(), init["session_id"].as_str());
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["Creating hello.txt.", "Done."]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolCall { name, input, .. }
        if name == "run_shell_command" && input["command"] == "echo hello > hello.txt"))
    );
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ToolResult {
            is_error: false,
            ..
        }
    )));
    let (usage, cost, estimated, is_error) = result(&events);
    // The mock's usage: 900 + 1000 prompt tokens, 21 + 4 output tokens.
    assert_eq!(
        usage,
        Usage {
            input_tokens: 1900,
            output_tokens: 25,
            cache_read_tokens: 0,
            cache_write_tokens: 0
        }
    );
    // Estimated at the answering model's price (gemini-3.1-pro: $2 in, $12 out per million);
    // the router's classifier used no tokens.
    let expected = (1900.0 * 2.0 + 25.0 * 12.0) / 1e6;
    assert!(estimated && !is_error);
    assert!((cost.unwrap() - expected).abs() < 1e-12, "{cost:?}");
    assert!(
        matches!(events.iter().rfind(|e| matches!(e, AgentEvent::Result { .. })), Some(AgentEvent::Result { text: Some(t), .. }) if t == "Done.")
    );
    assert!(
        !events.iter().any(|e| matches!(
            e,
            AgentEvent::Unknown { .. } | AgentEvent::RateLimited { .. } | AgentEvent::Error { .. }
        )),
        "{events:?}"
    );
}

/// Recorded by pawl-testkit's `gemini_file_tools_write_edit_and_read`: `write_file` and
/// `replace` are file edits, `read_file` is not.
#[test]
fn gemini_file_tools_are_file_edits() {
    let events = parse_all(&mut gemini(), &fixture("gemini-0.61.0-write.jsonl"), 0);
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, AgentEvent::FileEdited { .. }))
            .collect::<Vec<_>>(),
        [
            &AgentEvent::FileEdited {
                path: "/sandbox/repo/notes.txt".into()
            },
            &AgentEvent::FileEdited {
                path: "/sandbox/repo/notes.txt".into()
            }
        ]
    );
    let (usage, ..) = result(&events);
    assert_eq!((usage.input_tokens, usage.output_tokens), (400, 80));
}

/// Recorded by pawl-testkit's `gemini_gives_up_on_a_quota_error_with_a_long_wait` (exit status
/// 429 % 256): a wait of the time the error names, then an error result with no usage, and no
/// model output after the wait.
#[test]
fn gemini_quota_error_given_up_is_a_wait_of_the_named_time() {
    let events = parse_all(
        &mut gemini(),
        &fixture("gemini-0.61.0-quota-gave-up.jsonl"),
        173,
    );
    let wait = events
        .iter()
        .position(|e| {
            matches!(e, AgentEvent::RateLimited { retry_after: Some(d), message }
            if *d == Duration::from_secs(3600) && message.contains("exceeded your current quota"))
        })
        .unwrap_or_else(|| panic!("no wait: {events:#?}"));
    assert!(
        !events[wait..]
            .iter()
            .any(|e| matches!(e, AgentEvent::Text { .. } | AgentEvent::ToolCall { .. })),
        "{events:#?}"
    );
    let (usage, _, _, is_error) = result(&events);
    assert!(is_error);
    assert_eq!(usage, Usage::default());
}

/// A 429 the CLI gave up on (Claude Code with `CLAUDE_CODE_MAX_RETRIES=0`, Codex with
/// `stream_max_retries = 0`): a wait with no retry-after and an error result, and no model
/// output after the wait (that is how the loop tells it from a retry the CLI recovered from).
#[test]
fn a_429_given_up_is_a_wait_then_an_error_result() {
    let cases: [(&str, Box<dyn Adapter>, i32); 2] = [
        ("claude-2.1.329-429-gave-up.jsonl", Box::new(claude()), 1),
        (
            "codex-0.169.0-429-gave-up.jsonl",
            Box::new(codex_adapter()),
            1,
        ),
    ];
    for (name, mut adapter, code) in cases {
        let events = parse_all(adapter.as_mut(), &fixture(name), code);
        let first_wait = events
            .iter()
            .position(|e| matches!(e, AgentEvent::RateLimited { retry_after: None, message } if message.contains("429")))
            .unwrap_or_else(|| panic!("{name}: no wait: {events:#?}"));
        assert!(
            !events[first_wait..]
                .iter()
                .any(|e| matches!(e, AgentEvent::Text { .. } | AgentEvent::ToolCall { .. })),
            "{name}: {events:#?}"
        );
        let (usage, _, _, is_error) = result(&events);
        assert!(is_error, "{name}");
        assert_eq!(usage, Usage::default(), "{name}");
    }
}
