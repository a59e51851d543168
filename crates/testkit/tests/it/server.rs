//! The mock server over real HTTP, without any agent CLI: routes, turn selection, faults, the log.

use std::time::{Duration, Instant};

use pawl_testkit::{
    Api, Fault, MockServer, RequestFault, RequestKind, Scenario, ServerOptions, ToolCall, Turn,
};
use serde_json::{Value, json};

use crate::http::{post_json, send, sse_data};

const ANTHROPIC: [(&str, &str); 2] = [("anthropic-version", "2023-06-01"), ("x-api-key", "dummy")];

/// A Claude Code-like request: Bash offered, the given messages.
fn messages_request(messages: Value, stream: bool) -> Value {
    json!({"model": "claude-opus-5-5", "max_tokens": 32000, "stream": stream,
           "tools": [{"name": "Bash", "input_schema": {"type": "object"}}],
           "messages": messages})
}

fn two_turns() -> Scenario {
    Scenario::new(vec![
        Turn::text("Running.")
            .with_tool(ToolCall::bash("ls"))
            .with_usage(10, 2),
        Turn::text("Done.").with_usage(20, 3),
    ])
}

#[test]
fn preflight_models_count_tokens_and_unknown_routes() {
    let server = MockServer::start(Scenario::default()).unwrap();
    let addr = server.addr();
    let timeout = Duration::from_secs(5);
    assert_eq!(
        send(addr, "HEAD", "/api/hello", &[], "", timeout).status,
        200
    );
    assert_eq!(
        send(addr, "GET", "/api/hello", &[], "", timeout).status,
        200
    );
    let models = send(
        addr,
        "GET",
        "/v1/models?limit=1000",
        &ANTHROPIC,
        "",
        timeout,
    )
    .json();
    assert_eq!(models["data"][0]["type"], "model");
    let openai_models = send(addr, "GET", "/v1/models", &[], "", timeout).json();
    assert_eq!(openai_models["object"], "list");
    let count = post_json(
        addr,
        "/v1/messages/count_tokens",
        &ANTHROPIC,
        &json!({"messages": []}),
    );
    assert!(count.json()["input_tokens"].as_u64().is_some());
    let unknown = post_json(addr, "/v1/nope", &[], &json!({}));
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"]["type"], "not_found_error");

    let kinds: Vec<RequestKind> = server.requests().iter().map(|r| r.kind).collect();
    use RequestKind::*;
    assert_eq!(
        kinds,
        vec![Preflight, Preflight, Models, Models, CountTokens, Unknown]
    );
    assert_eq!(server.requests()[5].path, "/v1/nope");
}

#[test]
fn anthropic_stream_follows_history_and_tolerates_system_messages() {
    let server = MockServer::start(two_turns()).unwrap();
    let first = messages_request(
        json!([{"role": "user", "content": "list files"},
               {"role": "system", "content": "environment details"}]),
        true,
    );
    let reply = post_json(server.addr(), "/v1/messages?beta=true", &ANTHROPIC, &first);
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("text/event-stream")
    );
    let events = sse_data(&reply.body);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"message_start"));
    assert_eq!(types.last(), Some(&"message_stop"));
    assert!(types.contains(&"ping"));
    let tool_start = events
        .iter()
        .find(|e| e["content_block"]["type"] == "tool_use")
        .unwrap();
    assert_eq!(tool_start["content_block"]["name"], "Bash");
    let delta = events
        .iter()
        .find(|e| e["type"] == "message_delta")
        .unwrap();
    assert_eq!(delta["delta"]["stop_reason"], "tool_use");
    assert_eq!(delta["usage"]["output_tokens"], 2);

    // Non-streaming, with the tool result in the history: the second turn, as one JSON message.
    let second = messages_request(
        json!([{"role": "user", "content": "list files"},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "a.txt"}]}]),
        false,
    );
    let reply = post_json(server.addr(), "/v1/messages", &ANTHROPIC, &second).json();
    assert_eq!(reply["content"][0]["text"], "Done.");
    assert_eq!(reply["stop_reason"], "end_turn");
    assert_eq!(reply["usage"]["input_tokens"], 20);

    let log = server.requests();
    assert_eq!(log[0].turn, Some(0));
    assert_eq!(log[1].turn, Some(1));
    assert_eq!(log[1].tool_outputs, vec!["a.txt".to_owned()]);
    assert_eq!(log[0].query.as_deref(), Some("beta=true"));
    assert_eq!(server.last_user_text().as_deref(), Some("list files"));
    assert_eq!(server.reported_usage().input_tokens, 30);
}

#[test]
fn auxiliary_requests_do_not_consume_turns() {
    let server = MockServer::start(two_turns()).unwrap();
    let title = json!({"model": "claude-haiku-5-5", "max_tokens": 512, "stream": false,
        "system": "Generate a concise title for this conversation. Answer as JSON {\"title\": ...}",
        "messages": [{"role": "user", "content": "list files"}]});
    let reply = post_json(server.addr(), "/v1/messages", &ANTHROPIC, &title).json();
    let text: Value = serde_json::from_str(reply["content"][0]["text"].as_str().unwrap()).unwrap();
    assert!(text["title"].is_string());
    let main = messages_request(json!([{"role": "user", "content": "list files"}]), false);
    let reply = post_json(server.addr(), "/v1/messages", &ANTHROPIC, &main).json();
    assert_eq!(reply["content"][0]["text"], "Running.");
    assert_eq!(server.requests()[0].kind, RequestKind::Auxiliary);
    assert_eq!(server.main_requests().len(), 1);
}

#[test]
fn script_runs_out_into_the_fallback_turn() {
    let server = MockServer::start(Scenario::new(vec![Turn::text("only")])).unwrap();
    let history = json!([{"role": "user", "content": "go"},
                         {"role": "assistant", "content": "only"},
                         {"role": "user", "content": "again"},
                         {"role": "assistant", "content": "x"},
                         {"role": "user", "content": "more"}]);
    let reply = post_json(
        server.addr(),
        "/v1/messages",
        &ANTHROPIC,
        &messages_request(history, false),
    );
    assert_eq!(reply.json()["content"][0]["text"], "Done.");
    assert_eq!(server.requests()[0].turn, None);
}

#[test]
fn rate_limit_and_overloaded_bodies() {
    let mut scenario = Scenario::new(vec![
        Turn::text("ok")
            .with_fault(Fault::RateLimit {
                retry_after_secs: 7,
                message: None,
            })
            .with_fault(Fault::Overloaded),
    ]);
    scenario.request_faults.push(RequestFault {
        request: 2,
        fault: Fault::ServerError { status: 502 },
    });
    let server = MockServer::start(scenario).unwrap();
    let request = messages_request(json!([{"role": "user", "content": "go"}]), true);
    let limited = post_json(server.addr(), "/v1/messages", &ANTHROPIC, &request);
    assert_eq!(limited.status, 429);
    assert_eq!(limited.header("retry-after").as_deref(), Some("7"));
    assert_eq!(limited.json()["error"]["type"], "rate_limit_error");
    let overloaded = post_json(server.addr(), "/v1/messages", &ANTHROPIC, &request);
    assert_eq!(overloaded.status, 529);
    assert_eq!(overloaded.json()["error"]["type"], "overloaded_error");
    let pinned = post_json(server.addr(), "/v1/messages", &ANTHROPIC, &request);
    assert_eq!(pinned.status, 502);
    assert_eq!(pinned.json()["type"], "error");
    let fine = post_json(server.addr(), "/v1/messages", &ANTHROPIC, &request);
    assert_eq!(fine.status, 200);
    let statuses: Vec<u16> = server.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![429, 529, 502, 200]);
    assert_eq!(server.requests()[3].main_index, Some(3));
}

#[test]
fn openai_rate_limit_body_names_the_wait() {
    let server = MockServer::start(Scenario::new(vec![Turn::text("ok").with_fault(
        Fault::RateLimit {
            retry_after_secs: 3,
            message: None,
        },
    )]))
    .unwrap();
    let request = json!({"model": "gpt-5.5", "stream": true,
        "tools": [{"type": "function", "name": "exec_command"}],
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}]});
    let limited = post_json(server.addr(), "/v1/responses", &[], &request);
    assert_eq!(limited.status, 429);
    assert_eq!(limited.json()["error"]["code"], "rate_limit_exceeded");
    assert!(
        limited.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("try again in 3s")
    );
    let ok = post_json(server.addr(), "/v1/responses", &[], &request);
    let events = sse_data(&ok.body);
    assert_eq!(events.last().unwrap()["type"], "response.completed");
    assert_eq!(
        events.last().unwrap()["response"]["usage"]["total_tokens"],
        120
    );
    assert_eq!(server.requests()[1].api, Api::OpenAi);
}

#[test]
fn cut_stream_ends_without_the_final_events() {
    let server = MockServer::start(Scenario::new(vec![
        Turn::text("partial answer").with_fault(Fault::CutStream { after_events: 3 }),
    ]))
    .unwrap();
    let request = messages_request(json!([{"role": "user", "content": "go"}]), true);
    let reply = post_json(server.addr(), "/v1/messages", &ANTHROPIC, &request);
    assert_eq!(reply.status, 200);
    let events = sse_data(&reply.body);
    assert_eq!(events.len(), 3, "{}", reply.body);
    assert!(!reply.body.contains("message_stop"));
    // The chunked body never got its terminating zero-length chunk.
    assert!(!reply.body.ends_with("0\r\n\r\n"), "{:?}", reply.body);
    let again = post_json(server.addr(), "/v1/messages", &ANTHROPIC, &request);
    assert!(again.body.contains("message_stop"));
}

#[test]
fn stall_accepts_and_never_answers_until_shutdown() {
    let server = MockServer::start(Scenario::new(vec![
        Turn::text("never").with_fault(Fault::Stall { after_events: None }),
    ]))
    .unwrap();
    let request = messages_request(json!([{"role": "user", "content": "go"}]), true);
    let started = Instant::now();
    let reply = send(
        server.addr(),
        "POST",
        "/v1/messages",
        &[("content-type", "application/json")],
        &request.to_string(),
        Duration::from_millis(400),
    );
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert_eq!(reply.status, 0, "nothing at all was sent: {reply:?}");
    assert!(reply.read_error.is_some());
    assert_eq!(server.requests().len(), 1, "the stalled request is logged");

    let started = Instant::now();
    server.shutdown();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "shutdown does not wait for stalls"
    );
}

#[test]
fn gemini_stream_generate_content() {
    let server = MockServer::start(two_turns()).unwrap();
    let request = json!({"contents": [{"role": "user", "parts": [{"text": "list files"}]}],
        "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}]});
    let reply = post_json(
        server.addr(),
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        &[],
        &request,
    );
    let chunks = sse_data(&reply.body);
    let last = chunks.last().unwrap();
    assert_eq!(last["candidates"][0]["finishReason"], "STOP");
    assert_eq!(last["usageMetadata"]["promptTokenCount"], 10);
    assert_eq!(
        last["candidates"][0]["content"]["parts"][0]["functionCall"]["name"],
        "run_shell_command"
    );
    assert_eq!(server.requests()[0].api, Api::Gemini);
    assert_eq!(server.requests()[0].kind, RequestKind::Main);
}

#[test]
fn request_log_is_written_as_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("requests.jsonl");
    let options = ServerOptions {
        request_log: Some(path.clone()),
        ..ServerOptions::default()
    };
    let server = MockServer::start_with(two_turns(), options).unwrap();
    let request = messages_request(json!([{"role": "user", "content": "hello there"}]), true);
    post_json(server.addr(), "/v1/messages", &ANTHROPIC, &request);
    post_json(server.addr(), "/elsewhere", &[], &json!({}));
    server.shutdown();
    let lines: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["kind"], "main");
    assert_eq!(lines[0]["user_texts"][0], "hello there");
    assert_eq!(lines[0]["headers"]["x-api-key"], "dummy");
    assert_eq!(lines[1]["status"], 404);
}

#[test]
fn example_scenarios_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        Scenario::from_file(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        count += 1;
    }
    assert!(count >= 2);
}
