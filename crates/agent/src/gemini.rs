//! Gemini CLI in headless mode: `gemini --output-format stream-json --approval-mode auto_edit`,
//! the prompt on stdin (`-p` appends to stdin input, so none is passed), `--resume <id>` to continue.
//!
//! The stream (`init`, `message`, `tool_use`, `tool_result`, `error`, `result`) follows the
//! Gemini CLI docs (headless.md, `packages/core/src/output/types.ts`). It is tested on
//! hand-written streams only: no Gemini CLI is installed in pawl's test setup, so treat this
//! adapter as unproven against the real program. Cost is estimated from [`PRICES`].
//!
//! What this module is not: Gemini's hooks (pawl-hooks).

use std::path::PathBuf;

use pawl_core::config::AgentKind;
use serde_json::Value;

use crate::{Adapter, AgentError, AgentEvent, StepRequest, Usage, env};

/// Tools that write files: a call to one is also a `FileEdited`.
pub const FILE_TOOLS: &[&str] = &["write_file", "replace", "edit"];

/// Dollars per million tokens (input, cached input, output), matched by model-name prefix,
/// longest first. Estimates only.
pub const PRICES: &[(&str, f64, f64, f64)] = &[
    ("gemini-2.5-pro", 1.25, 0.31, 10.0),
    ("gemini-2.5-flash", 0.30, 0.075, 2.5),
    ("gemini-2.5-flash-lite", 0.10, 0.025, 0.40),
    ("gemini-3-pro", 2.0, 0.2, 12.0),
    ("gemini-3-flash", 0.50, 0.05, 3.0),
];

/// The price of an unknown model: the dearest pro row, so budgets stay enforced.
pub const FALLBACK_PRICE: (f64, f64, f64) = (2.0, 0.2, 12.0);

/// Estimated dollars for a usage.
pub fn estimate_cost(model: Option<&str>, usage: &Usage) -> f64 {
    let (input, cached, output) = model
        .and_then(|m| {
            PRICES
                .iter()
                .filter(|(prefix, ..)| m.starts_with(prefix))
                .max_by_key(|(prefix, ..)| prefix.len())
                .map(|&(_, i, c, o)| (i, c, o))
        })
        .unwrap_or(FALLBACK_PRICE);
    (usage.input_tokens as f64 * input
        + usage.cache_read_tokens as f64 * cached
        + usage.output_tokens as f64 * output)
        / 1_000_000.0
}

/// How the Gemini CLI is started.
#[derive(Debug, Clone)]
pub struct GeminiOptions {
    /// The program and any leading arguments (default `["gemini"]`).
    pub program: Vec<String>,
    pub model: Option<String>,
    /// `--approval-mode` (default `auto_edit`; pawl's guard hook polices the shell).
    pub approval_mode: String,
    pub extra_args: Vec<String>,
    pub extra_passthrough: Vec<String>,
}

impl Default for GeminiOptions {
    fn default() -> Self {
        GeminiOptions {
            program: vec!["gemini".into()],
            model: None,
            approval_mode: "auto_edit".into(),
            extra_args: Vec::new(),
            extra_passthrough: Vec::new(),
        }
    }
}

/// The adapter for `kind = "gemini"`.
#[derive(Debug, Clone)]
pub struct GeminiAdapter {
    options: GeminiOptions,
    model: Option<String>,
    /// Assistant text arriving as deltas, joined into one `Text` event.
    pending_text: String,
    last_text: Option<String>,
}

impl GeminiAdapter {
    pub fn new(options: GeminiOptions) -> Result<Self, AgentError> {
        if options.program.first().is_none_or(|p| p.trim().is_empty()) {
            return Err(AgentError::Config("the gemini program is empty".into()));
        }
        let model = options.model.clone();
        Ok(GeminiAdapter {
            options,
            model,
            pending_text: String::new(),
            last_text: None,
        })
    }

    pub fn args(&self, req: &StepRequest) -> Vec<String> {
        let o = &self.options;
        let mut args: Vec<String> = o.program.iter().skip(1).cloned().collect();
        args.extend(["--output-format".to_owned(), "stream-json".to_owned()]);
        args.extend(["--approval-mode".to_owned(), o.approval_mode.clone()]);
        if let Some(model) = req.model.as_ref().or(o.model.as_ref()) {
            args.extend(["--model".to_owned(), model.clone()]);
        }
        if let Some(session) = &req.resume_session {
            args.extend(["--resume".to_owned(), session.clone()]);
        }
        args.extend(o.extra_args.iter().cloned());
        args
    }

    fn flush_text(&mut self, events: &mut Vec<AgentEvent>) {
        if !self.pending_text.is_empty() {
            let text = std::mem::take(&mut self.pending_text);
            self.last_text = Some(text.clone());
            events.push(AgentEvent::Text { text });
        }
    }
}

impl Adapter for GeminiAdapter {
    fn name(&self) -> &str {
        "gemini"
    }

    fn command(&self, req: &StepRequest) -> Result<pawl_process::Command, AgentError> {
        let program = PathBuf::from(self.options.program.first().map_or("gemini", |p| p));
        let mut cmd = pawl_process::Command::new(program);
        cmd.args(self.args(req)).current_dir(&req.cwd);
        env::apply(&mut cmd, AgentKind::Gemini, &self.options.extra_passthrough);
        // Headless runs cannot answer the folder-trust prompt.
        cmd.env("GEMINI_CLI_TRUST_WORKSPACE", "true")
            .envs(req.env.iter().map(|(k, v)| (k, v)))
            .stdin_bytes(req.prompt.as_bytes());
        Ok(cmd)
    }

    fn parse_stdout(&mut self, line: &str) -> Vec<AgentEvent> {
        if line.trim().is_empty() {
            return Vec::new();
        }
        let Ok(value) = serde_json::from_str::<Value>(line.trim()) else {
            return vec![AgentEvent::Unknown {
                raw: line.to_owned(),
            }];
        };
        let mut events = Vec::new();
        let kind = value["type"].as_str();
        // Deltas of one assistant message are joined; anything else ends the message.
        if kind == Some("message") && value["role"].as_str() == Some("assistant") {
            let content = value["content"].as_str().unwrap_or_default();
            if value["delta"].as_bool() == Some(true) {
                self.pending_text.push_str(content);
            } else {
                self.flush_text(&mut events);
                self.pending_text.push_str(content);
                self.flush_text(&mut events);
            }
            return events;
        }
        self.flush_text(&mut events);
        match kind {
            Some("init") => match value["session_id"].as_str() {
                Some(id) => {
                    if let Some(model) = value["model"].as_str() {
                        self.model = Some(model.to_owned());
                    }
                    events.push(AgentEvent::SessionStarted {
                        session_id: id.to_owned(),
                        model: value["model"].as_str().map(str::to_owned),
                    });
                }
                None => events.push(AgentEvent::Unknown {
                    raw: line.to_owned(),
                }),
            },
            Some("message") => {}
            Some("tool_use") => {
                let name = value["tool_name"].as_str().unwrap_or("unknown").to_owned();
                let input = value.get("parameters").cloned().unwrap_or(Value::Null);
                let edited = FILE_TOOLS
                    .contains(&name.as_str())
                    .then(|| {
                        ["file_path", "absolute_path", "path"]
                            .iter()
                            .find_map(|k| input[*k].as_str().map(str::to_owned))
                    })
                    .flatten();
                events.push(AgentEvent::ToolCall {
                    id: value["tool_id"].as_str().map(str::to_owned),
                    name,
                    input,
                });
                if let Some(path) = edited {
                    events.push(AgentEvent::FileEdited { path });
                }
            }
            Some("tool_result") => {
                let is_error = value["status"].as_str() != Some("success");
                let output = match value["output"].as_str() {
                    Some(out) => out.to_owned(),
                    None => value["error"]["message"]
                        .as_str()
                        .map(str::to_owned)
                        .unwrap_or_default(),
                };
                events.push(AgentEvent::ToolResult {
                    id: value["tool_id"].as_str().map(str::to_owned),
                    is_error,
                    output,
                });
            }
            Some("error") => {
                let message = value["message"].as_str().unwrap_or("error");
                events.push(classify(
                    message,
                    value["severity"].as_str() != Some("error"),
                ));
            }
            Some("result") => {
                let stats = &value["stats"];
                let input = stats["input_tokens"].as_u64().unwrap_or(0);
                let cached = stats["cached"].as_u64().unwrap_or(0);
                let usage = Usage {
                    input_tokens: stats["input"]
                        .as_u64()
                        .unwrap_or_else(|| input.saturating_sub(cached)),
                    output_tokens: stats["output_tokens"].as_u64().unwrap_or(0),
                    cache_read_tokens: cached,
                    cache_write_tokens: 0,
                };
                let ok = value["status"].as_str() == Some("success");
                if !ok {
                    let message = value["error"]["message"]
                        .as_str()
                        .unwrap_or("the Gemini CLI reported an error");
                    events.push(classify(message, true));
                }
                events.push(AgentEvent::Result {
                    is_error: !ok,
                    subtype: value["status"].as_str().map(str::to_owned),
                    text: self.last_text.take(),
                    usage,
                    cost_usd: Some(estimate_cost(self.model.as_deref(), &usage)),
                    cost_estimated: true,
                    num_turns: None,
                });
            }
            _ => events.push(AgentEvent::Unknown {
                raw: line.to_owned(),
            }),
        }
        events
    }

    fn parse_stderr(&mut self, line: &str) -> Vec<AgentEvent> {
        let lower = line.to_ascii_lowercase();
        if lower.contains("resource_exhausted") || lower.contains("quota exceeded") {
            return vec![classify(line.trim(), true)];
        }
        Vec::new()
    }

    fn finish(&mut self, _exit_code: Option<i32>) -> Vec<AgentEvent> {
        let mut events = Vec::new();
        self.flush_text(&mut events);
        self.last_text = None;
        self.model = self.options.model.clone();
        events
    }
}

fn classify(message: &str, recoverable: bool) -> AgentEvent {
    let lower = message.to_ascii_lowercase();
    if [
        "429",
        "resource_exhausted",
        "quota",
        "rate limit",
        "overloaded",
        "503",
    ]
    .iter()
    .any(|n| lower.contains(n))
    {
        AgentEvent::RateLimited {
            retry_after: None,
            message: message.to_owned(),
        }
    } else {
        AgentEvent::Error {
            message: message.to_owned(),
            recoverable,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn argv_is_headless() {
        let a = GeminiAdapter::new(GeminiOptions::default()).unwrap();
        let req = StepRequest {
            prompt: "p".into(),
            cwd: std::env::temp_dir(),
            run_id: "r".into(),
            iteration: 1,
            resume_session: Some("3".into()),
            model: None,
            env: Vec::new(),
        };
        assert_eq!(
            a.args(&req).join(" "),
            "--output-format stream-json --approval-mode auto_edit --resume 3"
        );
    }

    #[test]
    fn deltas_are_joined_and_flushed_at_finish() {
        let mut a = GeminiAdapter::new(GeminiOptions::default()).unwrap();
        assert!(
            a.parse_stdout(r#"{"type":"message","role":"assistant","content":"Hel","delta":true}"#)
                .is_empty()
        );
        assert!(
            a.parse_stdout(r#"{"type":"message","role":"assistant","content":"lo","delta":true}"#)
                .is_empty()
        );
        assert_eq!(
            a.finish(Some(0)),
            vec![AgentEvent::Text {
                text: "Hello".into()
            }]
        );
    }
}
