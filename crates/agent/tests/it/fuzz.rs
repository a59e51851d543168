//! No input makes the scenario parser or the stream parsers panic.

use pawl_agent::replay;
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
