//! The OpenAI Responses API as Codex CLI uses it: reading a `/v1/responses` request and rendering a
//! scripted turn as the SSE events Codex acts on, plus the API's error bodies.
//!
//! Codex resends the whole history every turn, so the turn count comes from the input items:
//! each run of model-side items (assistant message, function/custom tool call, reasoning) is one turn.

use serde_json::{Value, json};

use crate::conversation::{Conversation, OfferedTool, find_line_after};
use crate::reply::{Reply, sse_event};
use crate::scenario::{Fault, ToolCall, Turn};

/// Digests a Responses API request body.
pub(crate) fn conversation(body: &Value) -> Conversation {
    let mut conversation = Conversation {
        model: body.get("model").and_then(Value::as_str).map(str::to_owned),
        stream: body.get("stream").and_then(Value::as_bool).unwrap_or(false),
        ..Conversation::default()
    };
    let mut context_texts = Vec::new();
    if let Some(instructions) = body.get("instructions").and_then(Value::as_str) {
        context_texts.push(instructions.to_owned());
    }
    let mut in_model_run = false;
    let items = match body.get("input") {
        Some(Value::Array(items)) => items.clone(),
        Some(Value::String(text)) => {
            vec![json!({"type": "message", "role": "user", "content": text})]
        }
        _ => Vec::new(),
    };
    for item in &items {
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        let role = item.get("role").and_then(Value::as_str).unwrap_or("");
        let model_side = matches!(
            (kind, role),
            ("message", "assistant")
                | (
                    "function_call" | "custom_tool_call" | "local_shell_call" | "reasoning",
                    _
                )
                | ("web_search_call", _)
        );
        if model_side {
            if !in_model_run {
                conversation.assistant_turns += 1;
                conversation.assistant_turns_since_prompt += 1;
            }
            in_model_run = true;
            continue;
        }
        in_model_run = false;
        match (kind, role) {
            ("message", "user") => {
                let text = content_text(item.get("content"));
                if !text.is_empty() {
                    context_texts.push(text.clone());
                    conversation.user_texts.push(text.clone());
                    // Codex sends its environment context as a user message of its own; it is
                    // context, not a prompt, and must not reset the turn count.
                    if !text.trim_start().starts_with("<environment_context>") {
                        conversation.last_prompt = Some(text);
                        conversation.assistant_turns_since_prompt = 0;
                    }
                }
            }
            ("message", _) => context_texts.push(content_text(item.get("content"))),
            ("function_call_output" | "custom_tool_call_output" | "local_shell_call_output", _) => {
                conversation
                    .tool_outputs
                    .push(output_text(item.get("output")));
            }
            _ => {}
        }
    }
    conversation.tools = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|tool| {
            let kind = tool
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("function");
            // Hosted tools (web_search) have a type and no name.
            let name = tool.get("name").and_then(Value::as_str).unwrap_or(kind);
            OfferedTool {
                name: name.to_owned(),
                kind: kind.to_owned(),
            }
        })
        .collect();
    conversation.cwd = find_line_after(context_texts.iter().map(String::as_str), "<cwd>");
    conversation.auxiliary = !SHELL_TOOLS.iter().any(|name| conversation.offers(name));
    conversation.auxiliary_hint = context_texts.first().cloned().unwrap_or_default();
    conversation
}

/// Shell tools Codex offers depending on the model family, in the order the mock prefers them.
const SHELL_TOOLS: [&str; 4] = ["exec_command", "shell_command", "shell", "local_shell"];

fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn output_text(output: Option<&Value>) -> String {
    match output {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Object(map)) => map
            .get("content")
            .and_then(Value::as_str)
            .map_or_else(|| Value::Object(map.clone()).to_string(), str::to_owned),
        Some(other) => content_text(Some(other)),
        None => String::new(),
    }
}

/// One output item of the reply: what Codex acts on.
enum Item {
    Message(String),
    Function { name: String, arguments: String },
    Custom { name: String, input: String },
}

fn shell_call(command: &str, conversation: &Conversation) -> Item {
    let name = SHELL_TOOLS
        .iter()
        .copied()
        .find(|name| conversation.offers(name))
        .unwrap_or("exec_command");
    let arguments = match name {
        "shell_command" => json!({"command": command}),
        "shell" | "local_shell" => json!({"command": ["bash", "-lc", command]}),
        _ => json!({"cmd": command}),
    };
    Item::Function {
        name: name.to_owned(),
        arguments: arguments.to_string(),
    }
}

fn patch_call(patch: String, conversation: &Conversation) -> Item {
    match conversation.tool_kind("apply_patch") {
        Some("function") => Item::Function {
            name: "apply_patch".to_owned(),
            arguments: json!({"input": patch}).to_string(),
        },
        Some(_) => Item::Custom {
            name: "apply_patch".to_owned(),
            input: patch,
        },
        // No patch tool offered: have the shell apply it (Codex ships apply_patch as an arg0 alias).
        None => shell_call(
            &format!("apply_patch <<'PAWL_PATCH'\n{patch}\nPAWL_PATCH"),
            conversation,
        ),
    }
}

fn prefixed(text: &str, prefix: char) -> String {
    text.lines()
        .map(|line| format!("{prefix}{line}\n"))
        .collect()
}

fn item_for(call: &ToolCall, conversation: &Conversation) -> Item {
    match call {
        ToolCall::Bash { command, .. } => shell_call(command, conversation),
        ToolCall::Write { path, content } => patch_call(
            format!(
                "*** Begin Patch\n*** Add File: {path}\n{}*** End Patch",
                prefixed(content, '+')
            ),
            conversation,
        ),
        ToolCall::Edit { path, old, new } => patch_call(
            format!(
                "*** Begin Patch\n*** Update File: {path}\n@@\n{}{}*** End Patch",
                prefixed(old, '-'),
                prefixed(new, '+')
            ),
            conversation,
        ),
        ToolCall::Read { path } => shell_call(
            &format!("cat -- '{}'", path.replace('\'', r"'\''")),
            conversation,
        ),
        ToolCall::ApplyPatch { patch } => patch_call(patch.clone(), conversation),
        ToolCall::Raw { name, input } => match (conversation.tool_kind(name), input) {
            (Some("custom"), Value::String(text)) => Item::Custom {
                name: name.clone(),
                input: text.clone(),
            },
            _ => Item::Function {
                name: name.clone(),
                arguments: input.to_string(),
            },
        },
    }
}

fn usage_json(turn: &Turn) -> Value {
    let usage = &turn.usage;
    // OpenAI counts cached tokens inside input_tokens; the scenario counts them apart.
    let input =
        usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": usage.cache_read_input_tokens},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input + usage.output_tokens,
    })
}

/// Renders `turn` as SSE (or, for `stream: false`, as one response object).
pub(crate) fn render(turn: &Turn, conversation: &Conversation, seq: usize) -> Reply {
    let response_id = format!("resp_mock_{seq}");
    let model = conversation
        .model
        .clone()
        .unwrap_or_else(|| "gpt-mock".to_owned());
    let mut items = Vec::new();
    if let Some(text) = &turn.text {
        items.push(Item::Message(text.clone()));
    }
    items.extend(
        turn.tool_calls
            .iter()
            .map(|call| item_for(call, conversation)),
    );

    let mut frames = Vec::new();
    let mut sequence = 0_u64;
    let mut emit = |frames: &mut Vec<String>, mut data: Value| {
        let name = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        data["sequence_number"] = json!(sequence);
        sequence += 1;
        frames.push(sse_event(&name, &data));
    };
    let response = |status: &str, output: Vec<Value>, usage: Option<Value>| {
        json!({"id": response_id, "object": "response", "created_at": 1_700_000_000,
               "status": status, "model": model, "output": output, "usage": usage})
    };
    emit(
        &mut frames,
        json!({"type": "response.created", "response": response("in_progress", vec![], None)}),
    );
    emit(
        &mut frames,
        json!({"type": "response.in_progress", "response": response("in_progress", vec![], None)}),
    );

    let mut done_items = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let (added, done) = match item {
            Item::Message(text) => {
                let id = format!("msg_mock_{seq}_{index}");
                let part = json!({"type": "output_text", "text": text, "annotations": []});
                let added = json!({"id": id, "type": "message", "status": "in_progress",
                                   "role": "assistant", "content": []});
                emit(
                    &mut frames,
                    json!({"type": "response.output_item.added", "output_index": index, "item": added}),
                );
                emit(
                    &mut frames,
                    json!({"type": "response.content_part.added", "item_id": id,
                    "output_index": index, "content_index": 0,
                    "part": {"type": "output_text", "text": "", "annotations": []}}),
                );
                emit(
                    &mut frames,
                    json!({"type": "response.output_text.delta", "item_id": id,
                    "output_index": index, "content_index": 0, "delta": text, "logprobs": []}),
                );
                emit(
                    &mut frames,
                    json!({"type": "response.output_text.done", "item_id": id,
                    "output_index": index, "content_index": 0, "text": text, "logprobs": []}),
                );
                emit(
                    &mut frames,
                    json!({"type": "response.content_part.done", "item_id": id,
                    "output_index": index, "content_index": 0, "part": part}),
                );
                let done = json!({"id": id, "type": "message", "status": "completed",
                                  "role": "assistant", "content": [part]});
                (None, done)
            }
            Item::Function { name, arguments } => {
                let id = format!("fc_mock_{seq}_{index}");
                let call_id = format!("call_mock_{seq}_{index}");
                let added = json!({"id": id, "type": "function_call", "status": "in_progress",
                                   "call_id": call_id, "name": name, "arguments": ""});
                let done = json!({"id": id, "type": "function_call", "status": "completed",
                                  "call_id": call_id, "name": name, "arguments": arguments});
                (
                    Some((
                        added,
                        vec![
                            json!({"type": "response.function_call_arguments.delta", "item_id": id,
                           "output_index": index, "delta": arguments}),
                            json!({"type": "response.function_call_arguments.done", "item_id": id,
                           "output_index": index, "arguments": arguments}),
                        ],
                    )),
                    done,
                )
            }
            Item::Custom { name, input } => {
                let id = format!("ctc_mock_{seq}_{index}");
                let call_id = format!("call_mock_{seq}_{index}");
                let added = json!({"id": id, "type": "custom_tool_call", "status": "in_progress",
                                   "call_id": call_id, "name": name, "input": ""});
                let done = json!({"id": id, "type": "custom_tool_call", "status": "completed",
                                  "call_id": call_id, "name": name, "input": input});
                (Some((added, Vec::new())), done)
            }
        };
        if let Some((added, deltas)) = added {
            emit(
                &mut frames,
                json!({"type": "response.output_item.added", "output_index": index, "item": added}),
            );
            for delta in deltas {
                emit(&mut frames, delta);
            }
        }
        emit(
            &mut frames,
            json!({"type": "response.output_item.done", "output_index": index, "item": done}),
        );
        done_items.push(done);
    }
    let completed = response("completed", done_items, Some(usage_json(turn)));
    if !conversation.stream {
        return Reply::json(200, completed);
    }
    emit(
        &mut frames,
        json!({"type": "response.completed", "response": completed}),
    );
    Reply::sse(frames)
}

fn error_body(message: &str, kind: &str, code: Option<&str>) -> Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

/// The HTTP reply for an HTTP-level fault; `None` for faults that act on delivery (cut, stall).
pub(crate) fn fault_reply(fault: &Fault) -> Option<Reply> {
    let reply = match fault {
        Fault::RateLimit {
            retry_after_secs,
            message,
        } => {
            let message = message.clone().unwrap_or_else(|| {
                format!("Rate limit reached for requests. Please try again in {retry_after_secs}s.")
            });
            Reply::json(
                429,
                error_body(&message, "requests", Some("rate_limit_exceeded")),
            )
            .with_header("retry-after", retry_after_secs.to_string())
        }
        Fault::Overloaded => Reply::json(
            503,
            error_body(
                "The server is overloaded or not ready yet.",
                "server_error",
                None,
            ),
        ),
        Fault::ServerError { status } => Reply::json(
            *status,
            error_body(
                "The server had an error while processing your request.",
                "server_error",
                None,
            ),
        ),
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

/// `GET /v1/models` in the OpenAI list shape, with an empty `models` array for Codex's own
/// model-catalogue reader, which uses that key.
pub(crate) fn models() -> Reply {
    let data: Vec<Value> = ["gpt-5.5", "gpt-mock"]
        .iter()
        .map(
            |id| json!({"id": id, "object": "model", "created": 1_700_000_000, "owned_by": "mock"}),
        )
        .collect();
    Reply::json(200, json!({"object": "list", "data": data, "models": []}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::ReplyBody;

    fn request() -> Value {
        json!({
            "model": "gpt-5.5", "stream": true,
            "tools": [{"type": "function", "name": "exec_command"},
                      {"type": "custom", "name": "apply_patch"}],
            "input": [
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You are Codex"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text",
                    "text": "<environment_context>\n  <cwd>/w/repo</cwd>\n</environment_context>"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "create hello.txt"}]},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
                {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "hello\n"}
            ]
        })
    }

    #[test]
    fn digests_a_codex_request() {
        let conversation = conversation(&request());
        assert_eq!(conversation.assistant_turns, 1);
        assert_eq!(conversation.assistant_turns_since_prompt, 1);
        assert_eq!(
            conversation.last_prompt.as_deref(),
            Some("create hello.txt")
        );
        assert_eq!(conversation.cwd.as_deref(), Some("/w/repo"));
        assert_eq!(conversation.tool_outputs, vec!["hello\n".to_owned()]);
        assert!(!conversation.auxiliary);
    }

    #[test]
    fn renders_shell_and_patch_calls_for_the_offered_tools() {
        let conversation = conversation(&request());
        let turn = Turn::text("Working.")
            .with_tool(ToolCall::bash("echo hi > a.txt"))
            .with_tool(ToolCall::Write {
                path: "b.txt".into(),
                content: "b\n".into(),
            });
        let ReplyBody::Sse(frames) = render(&turn, &conversation, 3).body else {
            panic!("expected SSE");
        };
        let done: Vec<Value> = frames
            .iter()
            .filter(|frame| frame.starts_with("event: response.output_item.done"))
            .map(|frame| {
                serde_json::from_str(frame.lines().nth(1).unwrap().trim_start_matches("data: "))
                    .unwrap()
            })
            .collect();
        assert_eq!(done.len(), 3);
        assert_eq!(done[1]["item"]["name"], "exec_command");
        assert_eq!(done[1]["item"]["arguments"], r#"{"cmd":"echo hi > a.txt"}"#);
        assert_eq!(done[2]["item"]["type"], "custom_tool_call");
        assert_eq!(
            done[2]["item"]["input"],
            "*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch"
        );
        assert!(
            frames
                .last()
                .unwrap()
                .starts_with("event: response.completed")
        );
    }
}
