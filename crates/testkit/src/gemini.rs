//! The Gemini API (`models/{model}:streamGenerateContent?alt=sse`, `:generateContent`,
//! `:countTokens`) as Gemini CLI calls it when `GOOGLE_GEMINI_BASE_URL` points here.
//!
//! Checked against the real Gemini CLI 0.61.0 (`tests/it/gemini.rs`). In `-p`/stdin headless mode
//! it sends, per prompt, one tool-less `generateContent` with a JSON schema (the model router's
//! complexity classifier, auxiliary here), then `streamGenerateContent?alt=sse` for every step of
//! the loop. The first user message carries a `<session_context>` part (date, OS, workspace
//! directories) and the prompt as a second part; the context part is not user text here, as
//! Codex's `<environment_context>` is not.

use serde_json::{Value, json};

use crate::conversation::{Conversation, OfferedTool, find_line_after};
use crate::reply::{Reply, sse_data};
use crate::scenario::{Fault, ToolCall, Turn};

/// The part Gemini CLI puts before the first prompt: context, not something the user said.
const SESSION_CONTEXT: &str = "<session_context>";

/// Digests a generateContent request body; `model` and `stream` come from the URL.
pub(crate) fn conversation(body: &Value, model: &str, stream: bool) -> Conversation {
    let mut conversation = Conversation {
        model: Some(model.to_owned()),
        stream,
        ..Conversation::default()
    };
    let mut context_texts = Vec::new();
    if let Some(system) = body
        .get("systemInstruction")
        .or_else(|| body.get("system_instruction"))
    {
        context_texts.push(parts_text(system.get("parts")));
    }
    for content in body
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let parts = content.get("parts");
        match content.get("role").and_then(Value::as_str) {
            Some("model") => {
                conversation.assistant_turns += 1;
                conversation.assistant_turns_since_prompt += 1;
            }
            _ => {
                let responses: Vec<String> = parts
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|part| part.get("functionResponse"))
                    .map(|response| response.get("response").unwrap_or(response).to_string())
                    .collect();
                let (context, text) = split_session_context(parts);
                context_texts.extend(context);
                let has_responses = !responses.is_empty();
                conversation.tool_outputs.extend(responses);
                if !text.is_empty() {
                    context_texts.push(text.clone());
                    conversation.user_texts.push(text.clone());
                    if !has_responses {
                        conversation.last_prompt = Some(text);
                        conversation.assistant_turns_since_prompt = 0;
                    }
                }
            }
        }
    }
    conversation.tools = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|tool| {
            tool.get("functionDeclarations")
                .or_else(|| tool.get("function_declarations"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|declaration| {
            let name = declaration.get("name").and_then(Value::as_str)?;
            Some(OfferedTool {
                name: name.to_owned(),
                kind: "function".to_owned(),
            })
        })
        .collect();
    conversation.cwd = workspace_dir(&context_texts);
    conversation.auxiliary = conversation.tools.is_empty();
    conversation.auxiliary_hint = body
        .get("generationConfig")
        .map(|config| {
            let schema = config
                .get("responseJsonSchema")
                .or_else(|| config.get("responseSchema"));
            schema.map(Value::to_string).unwrap_or_default()
        })
        .unwrap_or_default();
    conversation
}

/// The working directory Gemini CLI announces: the first of its `Workspace Directories:` list
/// (0.61), or the older `I'm currently working in the directory: ...` line.
fn workspace_dir(texts: &[String]) -> Option<String> {
    let listed = texts.iter().find_map(|text| {
        let start = text.find("Workspace Directories:")?;
        text[start..]
            .lines()
            .skip(1)
            .map(str::trim)
            .find_map(|line| line.strip_prefix("- "))
            .map(|dir| dir.trim().to_owned())
    });
    listed.or_else(|| {
        find_line_after(
            texts.iter().map(String::as_str),
            "working in the directory:",
        )
        .map(|dir| dir.trim_end_matches('.').to_owned())
    })
}

/// The text parts of a user message, split into Gemini CLI's `<session_context>` parts and the
/// rest (what the user said), each joined by newlines.
fn split_session_context(parts: Option<&Value>) -> (Option<String>, String) {
    let texts = parts
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|part| part.get("text").and_then(Value::as_str));
    let (context, said): (Vec<&str>, Vec<&str>) =
        texts.partition(|text| text.trim_start().starts_with(SESSION_CONTEXT));
    let context = (!context.is_empty()).then(|| context.join("\n"));
    (context, said.join("\n"))
}

fn parts_text(parts: Option<&Value>) -> String {
    parts
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

fn function_call(call: &ToolCall, conversation: &Conversation) -> Value {
    let (name, args) = match call {
        ToolCall::Bash {
            command,
            description,
        } => (
            "run_shell_command".to_owned(),
            match description {
                Some(description) => json!({"command": command, "description": description}),
                None => json!({"command": command}),
            },
        ),
        ToolCall::Write { path, content } => (
            "write_file".to_owned(),
            json!({"file_path": conversation.absolute(path), "content": content}),
        ),
        ToolCall::Edit { path, old, new } => (
            "replace".to_owned(),
            // `instruction` is required by Gemini CLI 0.61's `replace`.
            json!({"file_path": conversation.absolute(path), "instruction": "Apply the scripted edit.",
                   "old_string": old, "new_string": new}),
        ),
        ToolCall::Read { path } => (
            "read_file".to_owned(),
            json!({"file_path": conversation.absolute(path)}),
        ),
        ToolCall::ApplyPatch { patch } => (
            "run_shell_command".to_owned(),
            json!({"command": format!("git apply <<'PAWL_PATCH'\n{patch}\nPAWL_PATCH")}),
        ),
        ToolCall::Raw { name, input } => (name.clone(), input.clone()),
    };
    json!({"functionCall": {"name": name, "args": args}})
}

fn usage_json(turn: &Turn) -> Value {
    let usage = &turn.usage;
    let prompt = usage.input_tokens + usage.cache_read_input_tokens;
    json!({
        "promptTokenCount": prompt,
        "candidatesTokenCount": usage.output_tokens,
        "cachedContentTokenCount": usage.cache_read_input_tokens,
        "totalTokenCount": prompt + usage.output_tokens,
    })
}

/// Renders `turn`: one SSE chunk per part, the last one with `finishReason` and usage.
pub(crate) fn render(turn: &Turn, conversation: &Conversation, seq: usize) -> Reply {
    let mut parts = Vec::new();
    if let Some(text) = &turn.text {
        parts.push(json!({"text": text}));
    }
    parts.extend(
        turn.tool_calls
            .iter()
            .map(|call| function_call(call, conversation)),
    );
    let model = conversation.model.clone().unwrap_or_default();
    let chunk = |parts: Vec<Value>, last: bool| {
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        let mut chunk = json!({"modelVersion": model, "responseId": format!("resp_mock_{seq}")});
        if last {
            candidate["finishReason"] = json!("STOP");
            chunk["usageMetadata"] = usage_json(turn);
        }
        chunk["candidates"] = json!([candidate]);
        chunk
    };
    if !conversation.stream {
        return Reply::json(200, chunk(parts, true));
    }
    let count = parts.len();
    let mut frames: Vec<String> = parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| sse_data(&chunk(vec![part], i + 1 == count)))
        .collect();
    if frames.is_empty() {
        frames.push(sse_data(&chunk(vec![json!({"text": ""})], true)));
    }
    Reply::sse(frames)
}

/// A canned answer to a tool-less request: JSON when a schema was asked for.
pub(crate) fn auxiliary_text(conversation: &Conversation) -> Option<String> {
    let hint = &conversation.auxiliary_hint;
    if hint.contains("complexity_score") {
        // The model router's classifier (Gemini CLI 0.61, `--model auto`): a high score routes the
        // step to the pro model (`gemini-3.1-pro-preview`), as when there is no classifier.
        Some(json!({"complexity_reasoning": "mock", "complexity_score": 100}).to_string())
    } else if hint.contains("next_speaker") {
        Some(json!({"reasoning": "mock", "next_speaker": "user"}).to_string())
    } else if hint.contains("unproductive_state_confidence") {
        Some(
            json!({"unproductive_state_analysis": "mock", "unproductive_state_confidence": 0.0})
                .to_string(),
        )
    } else if !hint.is_empty() {
        Some("{}".to_owned())
    } else {
        None
    }
}

fn error_body(code: u16, message: &str, status: &str) -> Value {
    json!({"error": {"code": code, "message": message, "status": status}})
}

/// The HTTP reply for an HTTP-level fault; `None` for faults that act on delivery (cut, stall).
pub(crate) fn fault_reply(fault: &Fault) -> Option<Reply> {
    let reply = match fault {
        Fault::RateLimit {
            retry_after_secs,
            message,
        } => {
            let message = message
                .clone()
                .unwrap_or_else(|| "Resource has been exhausted (e.g. check quota).".to_owned());
            Reply::json(429, error_body(429, &message, "RESOURCE_EXHAUSTED"))
                .with_header("retry-after", retry_after_secs.to_string())
        }
        Fault::Overloaded => Reply::json(
            503,
            error_body(
                503,
                "The model is overloaded. Please try again later.",
                "UNAVAILABLE",
            ),
        ),
        Fault::ServerError { status } => Reply::json(
            *status,
            error_body(*status, "Internal error encountered.", "INTERNAL"),
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

/// `:countTokens`: a rough count (4 bytes a token) of the request body.
pub(crate) fn count_tokens(body_len: usize) -> Reply {
    Reply::json(200, json!({"totalTokens": body_len / 4}))
}

/// `GET /v1beta/models`.
pub(crate) fn models() -> Reply {
    Reply::json(
        200,
        json!({"models": [{"name": "models/gemini-mock", "displayName": "gemini-mock",
                          "supportedGenerationMethods": ["generateContent", "countTokens"]}]}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::ReplyBody;

    #[test]
    fn digests_and_answers_a_gemini_request() {
        let body = json!({
            "contents": [
                {"role": "user", "parts": [{"text": "I'm currently working in the directory: /w/repo\n"}]},
                {"role": "user", "parts": [{"text": "create hello.txt"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command", "response": {"output": "ok"}}}]}
            ],
            "tools": [{"functionDeclarations": [{"name": "run_shell_command"}, {"name": "write_file"}]}]
        });
        let conversation = conversation(&body, "gemini-mock", true);
        assert_eq!(conversation.assistant_turns_since_prompt, 1);
        assert_eq!(
            conversation.last_prompt.as_deref(),
            Some("create hello.txt")
        );
        assert_eq!(conversation.cwd.as_deref(), Some("/w/repo"));
        let turn = Turn::text("ok").with_tool(ToolCall::Read { path: "a".into() });
        let ReplyBody::Sse(frames) = render(&turn, &conversation, 1).body else {
            panic!("expected SSE");
        };
        assert_eq!(frames.len(), 2);
        assert!(frames[1].contains(r#""file_path":"/w/repo/a""#));
        assert!(frames[1].contains(r#""finishReason":"STOP""#));
    }

    /// Gemini CLI 0.61 sends the session context and the prompt as two parts of one message, and
    /// lists the workspace directories instead of a "working in the directory" line.
    #[test]
    fn session_context_is_not_the_prompt_and_names_the_workspace() {
        let body = json!({
            "contents": [
                {"role": "user", "parts": [
                    {"text": "<session_context>\nThis is the Gemini CLI.\n- **Workspace Directories:**\n  - /w/repo\n- **Directory Structure:**\n</session_context>"},
                    {"text": "create hello.txt"}
                ]}
            ],
            "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}]
        });
        let conversation = conversation(&body, "gemini-mock", true);
        assert_eq!(
            conversation.last_prompt.as_deref(),
            Some("create hello.txt")
        );
        assert_eq!(conversation.user_texts, ["create hello.txt"]);
        assert_eq!(conversation.cwd.as_deref(), Some("/w/repo"));
        assert!(!conversation.auxiliary);
    }

    #[test]
    fn the_router_classifier_gets_a_valid_score() {
        let body = json!({
            "contents": [{"role": "user", "parts": [{"text": "create hello.txt"}]}],
            "generationConfig": {"responseJsonSchema": {"properties": {
                "complexity_reasoning": {"type": "STRING"}, "complexity_score": {"type": "INTEGER"}}}}
        });
        let conversation = conversation(&body, "gemini-3.5-flash-lite", false);
        assert!(conversation.auxiliary);
        let answer: Value = serde_json::from_str(&auxiliary_text(&conversation).unwrap()).unwrap();
        assert!(answer["complexity_score"].is_u64(), "{answer}");
        assert!(answer["complexity_reasoning"].is_string(), "{answer}");
    }
}
