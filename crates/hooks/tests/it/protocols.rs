//! Parsing the hook stdin that the real Claude Code 2.1.329 and Codex 0.169.0 sent (captured in
//! tests/fixtures/), plus Gemini's documented shapes.

use pawl_hooks::input::{Event, ToolCall, parse};
use pawl_hooks::{Agent, Answer, HookKind};
use serde_json::Value;

fn samples(name: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v.as_array().unwrap().clone()
}

fn events(agent: Agent, file: &str) -> Vec<Event> {
    samples(file)
        .iter()
        .map(|s| {
            let input = parse(agent, &s["stdin"].to_string()).unwrap();
            assert!(
                input.session_id.is_some(),
                "every sample carries a session id"
            );
            assert!(input.cwd.is_some());
            input.event
        })
        .collect()
}

#[test]
fn claude_code_samples_parse_into_the_expected_events() {
    let ev = events(Agent::Claude, "cc_hook_stdin.json");
    assert_eq!(
        ev[0],
        Event::SessionStart {
            source: "startup".into()
        }
    );
    assert!(matches!(&ev[1], Event::Unknown { name } if name == "UserPromptSubmit"));
    assert_eq!(
        ev[2],
        Event::PreToolUse(ToolCall::Shell {
            tool: "Bash".into(),
            command: "rm -rf victim".into()
        })
    );
    assert!(matches!(&ev[4], Event::PostToolUse(ToolCall::Shell { .. })));
    assert_eq!(
        ev[5],
        Event::Stop {
            stop_hook_active: false,
            last_message: Some("Done.".into())
        }
    );
    assert!(matches!(
        ev[8],
        Event::Stop {
            stop_hook_active: true,
            ..
        }
    ));
    assert!(matches!(&ev[9], Event::Unknown { name } if name == "SessionEnd"));
}

#[test]
fn codex_samples_parse_into_the_expected_events() {
    let ev = events(Agent::Codex, "codex_hook_stdin.json");
    assert_eq!(
        ev[0],
        Event::SessionStart {
            source: "startup".into()
        }
    );
    assert_eq!(
        ev[2],
        Event::PreToolUse(ToolCall::Shell {
            tool: "Bash".into(),
            command: "rm -rf victim".into()
        })
    );
    // Codex's PostToolUse tool_response is a bare string: still parsed.
    assert!(
        matches!(&ev[4], Event::PostToolUse(ToolCall::Shell { command, .. }) if command == "echo hello > hello.txt")
    );
    assert_eq!(
        ev[5],
        Event::Stop {
            stop_hook_active: false,
            last_message: Some("Done.".into())
        }
    );
}

#[test]
fn codex_apply_patch_and_null_transcript() {
    let text = r#"{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"/r","hook_event_name":"PreToolUse",
        "model":"gpt-5.5","permission_mode":"default","tool_name":"apply_patch","tool_use_id":"c",
        "tool_input":{"command":"*** Begin Patch\n*** Update File: .git/config\n@@\n-a\n+b\n*** End Patch\n"}}"#;
    let i = parse(Agent::Codex, text).unwrap();
    assert_eq!(i.transcript_path, None);
    assert_eq!(
        i.event,
        Event::PreToolUse(ToolCall::FileWrite {
            tool: "apply_patch".into(),
            paths: vec![".git/config".into()]
        })
    );
}

#[test]
fn gemini_names_map_onto_pawls_events() {
    let before = r#"{"session_id":"g","cwd":"/r","hook_event_name":"BeforeTool","timestamp":"x",
        "tool_name":"run_shell_command","tool_input":{"command":"git push -f"}}"#;
    assert_eq!(
        parse(Agent::Gemini, before).unwrap().event,
        Event::PreToolUse(ToolCall::Shell {
            tool: "run_shell_command".into(),
            command: "git push -f".into()
        })
    );
    let write = r#"{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"/r/a"}}"#;
    assert_eq!(
        parse(Agent::Gemini, write).unwrap().event,
        Event::PreToolUse(ToolCall::FileWrite {
            tool: "write_file".into(),
            paths: vec!["/r/a".into()]
        })
    );
    let after = r#"{"session_id":"g","hook_event_name":"AfterAgent","prompt":"p","prompt_response":"Done.","stop_hook_active":false}"#;
    assert_eq!(
        parse(Agent::Gemini, after).unwrap().event,
        Event::Stop {
            stop_hook_active: false,
            last_message: Some("Done.".into())
        }
    );
    let compress = r#"{"session_id":"g","hook_event_name":"PreCompress","trigger":"auto"}"#;
    assert_eq!(
        parse(Agent::Gemini, compress).unwrap().event,
        Event::PreCompact {
            trigger: Some("auto".into())
        }
    );
    // Claude's names mean nothing to Gemini's parser.
    let stop = r#"{"session_id":"g","hook_event_name":"Stop"}"#;
    assert!(matches!(
        parse(Agent::Gemini, stop).unwrap().event,
        Event::Unknown { .. }
    ));
}

#[test]
fn answers_match_what_the_e2e_run_proved() {
    // The exact deny JSON the e2e report's PreToolUse hook printed (Claude and Codex both honoured it).
    let deny = Answer::Deny("R".into()).to_json(Agent::Codex, HookKind::PreToolUse);
    assert_eq!(
        deny,
        serde_json::json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}})
    );
    let block = Answer::Block("R".into()).to_json(Agent::Claude, HookKind::Stop);
    assert_eq!(block, serde_json::json!({"decision":"block","reason":"R"}));
    let deny = Answer::Deny("R".into()).to_json(Agent::Gemini, HookKind::PreToolUse);
    assert_eq!(deny, serde_json::json!({"decision":"deny","reason":"R"}));
}
