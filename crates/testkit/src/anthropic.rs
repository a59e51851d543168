//! The Anthropic Messages API as Claude Code uses it: reading a `/v1/messages` request and
//! rendering a scripted turn as SSE (or one JSON message), plus the API's error bodies.
//!
//! Requests are read leniently: unknown fields are ignored and `role: "system"` entries inside
//! `messages` (Claude Code 2.1 sends them) are skipped rather than rejected.

use serde_json::{Value, json};

use crate::conversation::{Conversation, OfferedTool, find_line_after};
use crate::reply::{Reply, sse_event};
use crate::scenario::{Fault, ToolCall, Turn};

/// Digests a Messages API request body.
pub(crate) fn conversation(body: &Value) -> Conversation {
    let mut conversation = Conversation {
        model: body.get("model").and_then(Value::as_str).map(str::to_owned),
        stream: body.get("stream").and_then(Value::as_bool).unwrap_or(false),
        ..Conversation::default()
    };
    let mut context_texts: Vec<String> = system_texts(body.get("system"));
    for message in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let content = message.get("content");
        match message.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                conversation.assistant_turns += 1;
                conversation.assistant_turns_since_prompt += 1;
            }
            Some("user") => {
                let texts = block_texts(content, "text");
                let results = tool_results(content);
                let has_results = !results.is_empty();
                conversation.tool_outputs.extend(results);
                if !texts.is_empty() {
                    let text = texts.join("\n");
                    context_texts.push(text.clone());
                    conversation.user_texts.push(text.clone());
                    // Text riding along with tool results is context, not a new prompt.
                    if !has_results {
                        conversation.last_prompt = Some(text);
                        conversation.assistant_turns_since_prompt = 0;
                    }
                }
            }
            Some("system") => context_texts.extend(block_texts(content, "text")),
            _ => {}
        }
    }
    conversation.tools = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tool| {
            let name = tool.get("name").and_then(Value::as_str)?;
            let kind = tool.get("type").and_then(Value::as_str).unwrap_or("custom");
            Some(OfferedTool {
                name: name.to_owned(),
                kind: kind.to_owned(),
            })
        })
        .collect();
    conversation.cwd = find_line_after(
        context_texts.iter().map(String::as_str),
        "working directory:",
    );
    let max_tokens = body
        .get("max_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX);
    // Claude Code's main loop always offers Bash; title, topic and quota requests offer no tools.
    conversation.auxiliary = conversation.tools.is_empty() || max_tokens <= 1;
    conversation.auxiliary_hint = system_texts(body.get("system")).join("\n");
    conversation
}

fn system_texts(system: Option<&Value>) -> Vec<String> {
    match system {
        Some(Value::String(text)) => vec![text.clone()],
        other => block_texts(other, "text"),
    }
}

/// Texts of the blocks of type `kind` in a content value (a string counts as one text block).
fn block_texts(content: Option<&Value>, kind: &str) -> Vec<String> {
    match content {
        Some(Value::String(text)) => vec![text.clone()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some(kind))
            .filter_map(|block| block.get("text").and_then(Value::as_str).map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

fn tool_results(content: Option<&Value>) -> Vec<String> {
    let Some(Value::Array(blocks)) = content else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
        .map(|block| block_texts(block.get("content"), "text").join("\n"))
        .collect()
}

/// One content block of the reply, before wire rendering.
enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
}

fn blocks(turn: &Turn, conversation: &Conversation, seq: usize) -> Vec<Block> {
    let mut blocks = Vec::new();
    if let Some(text) = &turn.text {
        blocks.push(Block::Text(text.clone()));
    }
    for (i, call) in turn.tool_calls.iter().enumerate() {
        let (name, input) = tool_use(call, conversation);
        blocks.push(Block::ToolUse {
            id: format!("toolu_mock_{seq}_{i}"),
            name,
            input,
        });
    }
    blocks
}

/// Claude Code's tool and input for a scenario tool call.
fn tool_use(call: &ToolCall, conversation: &Conversation) -> (String, Value) {
    match call {
        ToolCall::Bash {
            command,
            description,
        } => (
            "Bash".to_owned(),
            json!({
                "command": command,
                "description": description.clone().unwrap_or_else(|| "Run a command".to_owned()),
            }),
        ),
        ToolCall::Write { path, content } => (
            "Write".to_owned(),
            json!({"file_path": conversation.absolute(path), "content": content}),
        ),
        ToolCall::Edit { path, old, new } => (
            "Edit".to_owned(),
            json!({
                "file_path": conversation.absolute(path),
                "old_string": old,
                "new_string": new,
                "replace_all": false,
            }),
        ),
        ToolCall::Read { path } => (
            "Read".to_owned(),
            json!({"file_path": conversation.absolute(path)}),
        ),
        // Claude Code has no patch tool; offer the patch to a shell so the turn still does something.
        ToolCall::ApplyPatch { patch } => (
            "Bash".to_owned(),
            json!({"command": format!("apply_patch <<'PAWL_PATCH'\n{patch}\nPAWL_PATCH"),
                   "description": "Apply a patch"}),
        ),
        ToolCall::Raw { name, input } => (name.clone(), input.clone()),
    }
}

fn stop_reason(turn: &Turn) -> String {
    turn.stop_reason.clone().unwrap_or_else(|| {
        if turn.tool_calls.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        }
        .to_owned()
    })
}

fn usage_json(turn: &Turn, output_tokens: u64) -> Value {
    json!({
        "input_tokens": turn.usage.input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": turn.usage.cache_creation_input_tokens,
        "cache_read_input_tokens": turn.usage.cache_read_input_tokens,
    })
}

/// Splits `text` in two roughly equal pieces on a char boundary, so clients see several deltas.
fn halves(text: &str) -> Vec<&str> {
    let mut mid = text.len() / 2;
    while !text.is_char_boundary(mid) {
        mid += 1;
    }
    [&text[..mid], &text[mid..]]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect()
}

/// Renders `turn` as the client asked: SSE when `stream` was true, one JSON message otherwise.
pub(crate) fn render(turn: &Turn, conversation: &Conversation, seq: usize) -> Reply {
    let id = format!("msg_mock_{seq}");
    let model = conversation
        .model
        .clone()
        .unwrap_or_else(|| "claude-mock".to_owned());
    let blocks = blocks(turn, conversation, seq);
    let stop_reason = stop_reason(turn);
    if !conversation.stream {
        let content: Vec<Value> = blocks
            .iter()
            .map(|block| match block {
                Block::Text(text) => json!({"type": "text", "text": text}),
                Block::ToolUse { id, name, input } => {
                    json!({"type": "tool_use", "id": id, "name": name, "input": input})
                }
            })
            .collect();
        return Reply::json(
            200,
            json!({
                "id": id, "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": stop_reason, "stop_sequence": null,
                "usage": usage_json(turn, turn.usage.output_tokens),
            }),
        )
        .with_header("request-id", format!("req_mock_{seq}"));
    }

    let mut frames = vec![
        sse_event(
            "message_start",
            &json!({"type": "message_start", "message": {
                "id": id, "type": "message", "role": "assistant", "model": model, "content": [],
                "stop_reason": null, "stop_sequence": null, "usage": usage_json(turn, 1),
            }}),
        ),
        sse_event("ping", &json!({"type": "ping"})),
    ];
    for (index, block) in blocks.iter().enumerate() {
        let (start, deltas) = match block {
            Block::Text(text) => (
                json!({"type": "text", "text": ""}),
                halves(text)
                    .into_iter()
                    .map(|part| json!({"type": "text_delta", "text": part}))
                    .collect::<Vec<_>>(),
            ),
            Block::ToolUse { id, name, input } => {
                let input = input.to_string();
                // The API's first input_json_delta is empty; the pieces concatenate to the input.
                let mut deltas = vec![json!({"type": "input_json_delta", "partial_json": ""})];
                deltas.extend(
                    halves(&input)
                        .into_iter()
                        .map(|part| json!({"type": "input_json_delta", "partial_json": part})),
                );
                (
                    json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                    deltas,
                )
            }
        };
        frames.push(sse_event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for delta in deltas {
            frames.push(sse_event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        frames.push(sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
    }
    frames.push(sse_event(
        "message_delta",
        &json!({"type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                "usage": usage_json(turn, turn.usage.output_tokens)}),
    ));
    frames.push(sse_event("message_stop", &json!({"type": "message_stop"})));
    Reply::sse(frames).with_header("request-id", format!("req_mock_{seq}"))
}

fn error_body(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

/// The HTTP reply for an HTTP-level fault; `None` for faults that act on delivery (cut, stall).
pub(crate) fn fault_reply(fault: &Fault) -> Option<Reply> {
    let reply = match fault {
        Fault::RateLimit {
            retry_after_secs,
            message,
        } => {
            let message = message.clone().unwrap_or_else(|| {
                "This request would exceed your organization's rate limit. Please try again later."
                    .to_owned()
            });
            Reply::json(429, error_body("rate_limit_error", &message))
                .with_header("retry-after", retry_after_secs.to_string())
                .with_header("x-should-retry", "true")
        }
        Fault::Overloaded => Reply::json(529, error_body("overloaded_error", "Overloaded"))
            .with_header("x-should-retry", "true"),
        Fault::ServerError { status } => {
            Reply::json(*status, error_body("api_error", "Internal server error"))
        }
        Fault::Http {
            status,
            body,
            headers,
        } => {
            let mut reply = Reply::json(*status, body.clone());
            reply.headers.extend(headers.iter().cloned());
            reply
        }
        Fault::CutStream { .. } | Fault::Stall { .. } => return None,
    };
    Some(reply)
}

/// `POST /v1/messages/count_tokens`: a rough count (4 bytes a token) of the request body.
pub(crate) fn count_tokens(body_len: usize) -> Reply {
    Reply::json(200, json!({"input_tokens": body_len / 4}))
}

/// `GET /v1/models` in the Anthropic shape.
pub(crate) fn models() -> Reply {
    let ids = ["claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"];
    let data: Vec<Value> = ids
        .iter()
        .map(|id| {
            json!({"type": "model", "id": id, "display_name": id,
                   "created_at": "2026-01-01T00:00:00Z"})
        })
        .collect();
    Reply::json(
        200,
        json!({"data": data, "has_more": false, "first_id": ids[0], "last_id": ids[ids.len() - 1]}),
    )
}

/// The 404 body for an endpoint the mock does not know.
pub(crate) fn not_found(method: &str, path: &str) -> Reply {
    Reply::json(
        404,
        error_body(
            "not_found_error",
            &format!("mock: no route for {method} {path}"),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::ReplyBody;

    fn request() -> Value {
        json!({
            "model": "claude-opus-5-5", "stream": true, "max_tokens": 32000,
            "system": [{"type": "text", "text": "x-anthropic-billing"}],
            "tools": [{"name": "Bash", "input_schema": {}}, {"name": "Write", "input_schema": {}}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "<system-reminder>git</system-reminder>"},
                    {"type": "text", "text": "create hello.txt"}]},
                {"role": "system", "content": "Primary working directory: /w/repo\n - more"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                    "input": {"command": "echo hi"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                    "content": "hi\n", "is_error": false}]}
            ]
        })
    }

    #[test]
    fn digests_a_claude_code_request() {
        let conversation = conversation(&request());
        assert_eq!(conversation.assistant_turns, 1);
        assert_eq!(conversation.assistant_turns_since_prompt, 1);
        assert!(
            conversation
                .last_prompt
                .as_deref()
                .unwrap_or_default()
                .ends_with("create hello.txt")
        );
        assert_eq!(conversation.tool_outputs, vec!["hi\n".to_owned()]);
        assert_eq!(conversation.cwd.as_deref(), Some("/w/repo"));
        assert!(!conversation.auxiliary);
        assert!(conversation.stream);
    }

    #[test]
    fn tool_use_stream_concatenates_to_the_input() {
        let conversation = conversation(&request());
        let turn = Turn::text("Writing.").with_tool(ToolCall::Write {
            path: "a.txt".into(),
            content: "é".into(),
        });
        let ReplyBody::Sse(frames) = render(&turn, &conversation, 7).body else {
            panic!("expected SSE");
        };
        let mut partial = String::new();
        for frame in &frames {
            let data: Value =
                serde_json::from_str(frame.lines().nth(1).unwrap().trim_start_matches("data: "))
                    .unwrap();
            if let Some(piece) = data.pointer("/delta/partial_json").and_then(Value::as_str) {
                partial.push_str(piece);
            }
        }
        let input: Value = serde_json::from_str(&partial).unwrap();
        assert_eq!(input, json!({"file_path": "/w/repo/a.txt", "content": "é"}));
        assert!(frames.last().unwrap().starts_with("event: message_stop"));
        assert!(
            frames
                .iter()
                .any(|frame| frame.contains("\"stop_reason\":\"tool_use\""))
        );
    }
}
