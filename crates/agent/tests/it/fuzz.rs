//! No input makes the scenario parser or the stream parsers panic.

use pawl_agent::claude::{ClaudeAdapter, ClaudeOptions};
use pawl_agent::codex::{CodexAdapter, CodexOptions};
use pawl_agent::command::CommandAdapter;
use pawl_agent::gemini::{GeminiAdapter, GeminiOptions};
use pawl_agent::{Adapter, replay};
use proptest::prelude::*;

/// Lines that look like scenario lines, to get past the JSON check often.
fn scenario_line() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        (0u64..5).prop_map(|n| format!("{{\"step\": {n}}}")),
        prop::sample::select(vec![
            "text",
            "tool_call",
            "write",
            "edit",
            "run",
            "sleep",
            "hang",
            "exit",
            "usage",
            "claim_done",
            "emit",
            "error",
            "rate_limited",
            "permission_denied",
            "bogus",
        ])
        .prop_flat_map(|action| {
            (Just(action), any::<String>(), any::<i64>()).prop_map(|(a, s, n)| {
                serde_json::json!({"do": a, "text": s, "path": s, "code": n, "ms": n, "content": s})
                    .to_string()
            })
        }),
        Just("{\"scenario\": {\"after_last\": \"idle\"}}".to_owned()),
    ]
}

proptest! {
    #[test]
    fn scenario_parser_never_panics(lines in prop::collection::vec(scenario_line(), 0..8)) {
        let text = lines.join("\n");
        if let Ok(scenario) = replay::parse(&text) {
            prop_assert!(!scenario.steps.is_empty());
        }
    }

    #[test]
    fn scenario_parser_never_panics_on_bytes(text in ".*") {
        let _ = replay::parse(&text);
    }
}

/// Lines shaped like the agents' streams, with arbitrary values in the fields parsers read.
fn stream_line() -> impl Strategy<Value = String> {
    let kinds = prop::sample::select(vec![
        "system",
        "assistant",
        "user",
        "result",
        "rate_limit_event",
        "thread.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.completed",
        "error",
        "init",
        "message",
        "tool_use",
        "tool_result",
        "text",
        "file_edited",
    ]);
    let value = prop_oneof![
        Just(serde_json::Value::Null),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<String>().prop_map(serde_json::Value::from),
        Just(serde_json::json!([{"type": "tool_use", "name": "Write", "input": 3}])),
        Just(serde_json::json!({"type": "file_change", "changes": [{"path": 1}]})),
        Just(serde_json::json!({"input_tokens": -1, "cached_input_tokens": 99})),
    ];
    prop_oneof![
        any::<String>(),
        (kinds, value.clone(), value.clone(), value).prop_map(|(k, a, b, c)| {
            serde_json::json!({
                "type": k, "subtype": a, "message": {"content": b, "error": c},
                "item": b, "usage": c, "stats": c, "error": a, "result": a,
                "permission_denials": b, "rate_limit_info": c, "content": a,
                "role": "assistant", "delta": true, "parameters": c
            })
            .to_string()
        }),
    ]
}

proptest! {
    #[test]
    fn stream_parsers_never_panic(lines in prop::collection::vec(stream_line(), 0..12)) {
        let mut adapters: Vec<Box<dyn Adapter>> = vec![
            Box::new(ClaudeAdapter::new(ClaudeOptions::default()).unwrap()),
            Box::new(CodexAdapter::new(CodexOptions::default()).unwrap()),
            Box::new(GeminiAdapter::new(GeminiOptions::default()).unwrap()),
            Box::new(CommandAdapter::new(vec!["sh".into()]).unwrap()),
        ];
        for adapter in &mut adapters {
            for line in &lines {
                let _ = adapter.parse_stdout(line);
                let _ = adapter.parse_stderr(line);
            }
            let _ = adapter.finish(Some(1));
            let _ = adapter.finish(None);
        }
    }
}
