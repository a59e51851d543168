//! Gemini CLI in headless mode: `gemini --output-format stream-json --approval-mode auto_edit
//! --allowed-tools run_shell_command`, the prompt on stdin (no `-p`: it would be appended to the
//! stdin input), `--resume <session id>` to continue.
//!
//! Checked against the real Gemini CLI 0.61.0 driven offline against pawl-testkit's mock (see
//! pawl-testkit's README and `fixtures/streams/gemini-0.61.0-*.jsonl`):
//!
//! * The stream is `init` (session id; `model` is `auto` unless `--model` is given), `message`
//!   (the user prompt, then assistant text as `delta: true` chunks), `tool_use` / `tool_result`,
//!   `error` (warnings, loop detection, invalid streams) and one closing `result` whose `stats`
//!   carry the step's tokens, in total and per model (`stats.models`: the router's classifier and
//!   the model that answered).
//! * In headless mode a tool that needs approval is not offered at all, so `auto_edit` alone
//!   leaves the agent without a shell; `--allowed-tools run_shell_command` (deprecated in favour of
//!   policy files, still honoured by 0.61) lets it run commands.
//! * A 429 or 5xx the CLI retries is a stderr line (`Attempt 1 failed with status 429. Retrying
//!   with backoff...`): a rate-limit event the step recovers from when the model answers. One it
//!   gives up on is a `result` with `status: "error"` (exit code `429 % 256`), whose message may
//!   say `Please retry in Ns`.
//! * A session can be resumed (`--resume <id>`) only once the model has answered in it: a first
//!   request that fails leaves a session Gemini CLI will not resume ("No previous sessions found
//!   for this project.", exit 42). So the session is announced at the model's first output, not at
//!   `init`, and a step that got no answer leaves the next one to resume the session before it.
//! * A tool call refused by a `BeforeTool` hook (pawl's guard, when `pawl init --agent gemini`
//!   installed it in the project) comes back as a `tool_result` with `error.type:
//!   "policy_violation"`: a permission denial.
//!
//! Cost is estimated from [`PRICES`], per model of `stats.models`.
//!
//! What this module is not: Gemini's hooks (pawl-hooks). pawl does not add its guard hook to a
//! headless Gemini run by itself: Gemini CLI 0.61 takes hooks only from settings files (no
//! per-invocation settings flag, and the system settings it can be pointed at must be root-owned).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use pawl_core::config::AgentKind;
use serde_json::Value;

use crate::{Adapter, AgentError, AgentEvent, StepRequest, Usage, env};

/// Tools that write files: a call to one is also a `FileEdited`.
pub const FILE_TOOLS: &[&str] = &["write_file", "replace", "edit"];

/// Tools allowed without approval besides the edit tools `auto_edit` allows (headless mode drops
/// the others from the model's tool list).
pub const DEFAULT_ALLOWED_TOOLS: &[&str] = &["run_shell_command"];

/// Dollars per million tokens (input, cached input, output), matched by model-name prefix,
/// longest first. List prices at or below 200k prompt tokens; estimates only.
pub const PRICES: &[(&str, f64, f64, f64)] = &[
    ("gemini-2.5-pro", 1.25, 0.31, 10.0),
    ("gemini-2.5-flash", 0.30, 0.075, 2.5),
    ("gemini-2.5-flash-lite", 0.10, 0.025, 0.40),
    ("gemini-3-pro", 2.0, 0.2, 12.0),
    ("gemini-3-flash", 0.50, 0.05, 3.0),
    // Gemini CLI 0.61's pro model (also as `gemini-3.1-pro-preview-customtools`).
    ("gemini-3.1-pro", 2.0, 0.2, 12.0),
    ("gemini-3.1-flash-lite", 0.25, 0.025, 1.5),
    ("gemini-3.5-flash", 1.5, 0.15, 9.0),
    // Gemini CLI 0.61's router classifier.
    ("gemini-3.5-flash-lite", 0.30, 0.03, 2.5),
    ("gemini-3.6-flash", 1.5, 0.15, 7.5),
];

/// The price of an unknown model (e.g. `auto`, `gemini-3.8-flash`): the dearest row, so budgets
/// stay enforced.
pub const FALLBACK_PRICE: (f64, f64, f64) = (2.0, 0.2, 12.0);

/// Estimated dollars for a usage of one model.
pub fn estimate_cost(model: Option<&str>, usage: &Usage) -> f64 {
    let (input, cached, output) = crate::longest_prefix(PRICES, model, |row| row.0)
        .map(|&(_, i, c, o)| (i, c, o))
        .unwrap_or(FALLBACK_PRICE);
    (usage.input_tokens as f64 * input
        + usage.cache_read_tokens as f64 * cached
        + usage.output_tokens as f64 * output)
        / 1_000_000.0
}

/// How Gemini CLI is started.
#[derive(Debug, Clone)]
pub struct GeminiOptions {
    /// The program and any leading arguments (default `["gemini"]`).
    pub program: Vec<String>,
    pub model: Option<String>,
    /// `--approval-mode` (default `auto_edit`).
    pub approval_mode: String,
    /// `--allowed-tools` (default [`DEFAULT_ALLOWED_TOOLS`]; empty: the flag is left out).
    pub allowed_tools: Vec<String>,
    pub extra_args: Vec<String>,
    pub extra_passthrough: Vec<String>,
}

impl Default for GeminiOptions {
    fn default() -> Self {
        GeminiOptions {
            program: vec!["gemini".into()],
            model: None,
            approval_mode: "auto_edit".into(),
            allowed_tools: DEFAULT_ALLOWED_TOOLS
                .iter()
                .map(|t| (*t).to_owned())
                .collect(),
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
    /// Tool calls of this step by id (name, parameters), for naming a refused call.
    calls: HashMap<String, (String, Value)>,
    /// The session of `init` (id, model), announced once the model has answered.
    pending_session: Option<(String, Option<String>)>,
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
            calls: HashMap::new(),
            pending_session: None,
        })
    }

    pub fn args(&self, req: &StepRequest) -> Vec<String> {
        let o = &self.options;
        let mut args: Vec<String> = o.program.iter().skip(1).cloned().collect();
        args.extend(["--output-format".to_owned(), "stream-json".to_owned()]);
        args.extend(["--approval-mode".to_owned(), o.approval_mode.clone()]);
        if !o.allowed_tools.is_empty() {
            args.extend(["--allowed-tools".to_owned(), o.allowed_tools.join(",")]);
        }
        if let Some(model) = req.model.as_ref().or(o.model.as_ref()) {
            args.extend(["--model".to_owned(), model.clone()]);
        }
        if let Some(session) = &req.resume_session {
            args.extend(["--resume".to_owned(), session.clone()]);
        }
        args.extend(o.extra_args.iter().cloned());
        args
    }

    /// The model answered: the session can now be resumed.
    fn announce_session(&mut self, events: &mut Vec<AgentEvent>) {
        if let Some((session_id, model)) = self.pending_session.take() {
            events.push(AgentEvent::SessionStarted { session_id, model });
        }
    }

    fn flush_text(&mut self, events: &mut Vec<AgentEvent>) {
        if !self.pending_text.is_empty() {
            let text = std::mem::take(&mut self.pending_text);
            self.last_text = Some(text.clone());
            events.push(AgentEvent::Text { text });
        }
    }

    /// The step's dollars: per model of `stats.models` when the CLI lists them, else the whole
    /// usage at the step's model.
    fn cost(&self, stats: &Value, total: &Usage) -> f64 {
        match stats["models"].as_object().filter(|m| !m.is_empty()) {
            Some(models) => models
                .iter()
                .map(|(model, s)| estimate_cost(Some(model), &usage_of(s)))
                .sum(),
            None => estimate_cost(self.model.as_deref(), total),
        }
    }

    fn tool_result(&mut self, value: &Value, events: &mut Vec<AgentEvent>) {
        let id = value["tool_id"].as_str().map(str::to_owned);
        let is_error = value["status"].as_str() != Some("success");
        let error_message = value["error"]["message"].as_str();
        let output = value["output"]
            .as_str()
            .or(error_message)
            .unwrap_or_default()
            .to_owned();
        if value["error"]["type"].as_str() == Some("policy_violation") {
            // Refused before it ran (a BeforeTool hook or a policy rule).
            let (tool, input) = id
                .as_ref()
                .and_then(|id| self.calls.get(id))
                .cloned()
                .unwrap_or_else(|| ("unknown".to_owned(), Value::Null));
            let what = input["command"]
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| input.to_string());
            events.push(AgentEvent::PermissionDenied {
                tool,
                detail: format!("{what}: {}", error_message.unwrap_or(&output)),
            });
        }
        events.push(AgentEvent::ToolResult {
            id,
            is_error,
            output,
        });
    }
}

/// Tokens of one `stats` object: `input` is the fresh prompt tokens, `cached` the cache reads,
/// `input_tokens` both together.
fn usage_of(stats: &Value) -> Usage {
    let prompt = stats["input_tokens"].as_u64().unwrap_or(0);
    let cached = stats["cached"].as_u64().unwrap_or(0);
    Usage {
        input_tokens: stats["input"]
            .as_u64()
            .unwrap_or_else(|| prompt.saturating_sub(cached)),
        output_tokens: stats["output_tokens"].as_u64().unwrap_or(0),
        cache_read_tokens: cached,
        cache_write_tokens: 0,
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
        // Headless runs cannot answer the folder-trust prompt; untrusted, the approval mode
        // falls back to `default` and project settings are ignored.
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
            self.announce_session(&mut events);
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
                    let model = value["model"].as_str().map(str::to_owned);
                    if let Some(model) = model.as_ref().filter(|m| *m != "auto") {
                        self.model = Some(model.clone());
                    }
                    self.pending_session = Some((id.to_owned(), model));
                }
                None => events.push(AgentEvent::Unknown {
                    raw: line.to_owned(),
                }),
            },
            Some("message") => {}
            Some("tool_use") => {
                self.announce_session(&mut events);
                let name = value["tool_name"].as_str().unwrap_or("unknown").to_owned();
                let input = value.get("parameters").cloned().unwrap_or(Value::Null);
                let id = value["tool_id"].as_str().map(str::to_owned);
                let edited = FILE_TOOLS
                    .contains(&name.as_str())
                    .then(|| {
                        ["file_path", "absolute_path", "path"]
                            .iter()
                            .find_map(|k| input[*k].as_str().map(str::to_owned))
                    })
                    .flatten();
                if let Some(id) = &id {
                    self.calls.insert(id.clone(), (name.clone(), input.clone()));
                }
                events.push(AgentEvent::ToolCall { id, name, input });
                if let Some(path) = edited {
                    events.push(AgentEvent::FileEdited { path });
                }
            }
            Some("tool_result") => self.tool_result(&value, &mut events),
            Some("error") => {
                let message = value["message"].as_str().unwrap_or("error");
                events.push(classify(
                    message,
                    value["severity"].as_str() != Some("error"),
                ));
            }
            Some("result") => {
                let stats = &value["stats"];
                let usage = usage_of(stats);
                let ok = value["status"].as_str() == Some("success");
                if ok {
                    self.announce_session(&mut events);
                }
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
                    cost_usd: Some(self.cost(stats, &usage)),
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

    /// Gemini CLI reports the retries it makes itself on stderr only: `Attempt 1 failed with
    /// status 429. Retrying with backoff... <error JSON>` and `Attempt 1 failed: <message>.
    /// Retrying after 2345ms...` (a quota error that said how long to wait). Retries of other
    /// errors (network) are not waits.
    fn parse_stderr(&mut self, line: &str) -> Vec<AgentEvent> {
        let line = line.trim();
        if line.starts_with("Error resuming session") {
            return vec![AgentEvent::Error {
                message: line.to_owned(),
                recoverable: false,
            }];
        }
        let limited = [
            "status 429",
            "status 5",
            "429 error",
            "5xx error",
            "Retrying after ",
        ]
        .iter()
        .any(|n| line.contains(n));
        if !line.starts_with("Attempt ") || !limited {
            return Vec::new();
        }
        let retry_after = line
            .find("Retrying after ")
            .and_then(|at| duration_in(&line[at + "Retrying after ".len()..]));
        // The error JSON after the retry notice says nothing the status does not.
        let message = match line.find("Retrying with backoff...") {
            Some(at) => &line[..at + "Retrying with backoff...".len()],
            None => line,
        };
        vec![AgentEvent::RateLimited {
            retry_after,
            message: message.to_owned(),
        }]
    }

    fn finish(&mut self, _exit_code: Option<i32>) -> Vec<AgentEvent> {
        let mut events = Vec::new();
        self.flush_text(&mut events);
        self.last_text = None;
        self.calls.clear();
        self.pending_session = None;
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
            retry_after: ["retry in ", "retry after "].iter().find_map(|m| {
                lower
                    .find(m)
                    .and_then(|at| duration_in(&lower[at + m.len()..]))
            }),
            message: message.to_owned(),
        }
    } else {
        AgentEvent::Error {
            message: message.to_owned(),
            recoverable,
        }
    }
}

/// `20s`, `36.5s`, `2345ms`, `1m` at the start of `text` → the duration.
fn duration_in(text: &str) -> Option<Duration> {
    let number: String = text
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let value: f64 = number.parse().ok()?;
    let unit = text[number.len()..].trim_start();
    let secs = if unit.starts_with("ms") {
        value / 1000.0
    } else if unit.starts_with('m') {
        value * 60.0
    } else if unit.starts_with('s') {
        value
    } else {
        return None;
    };
    Duration::try_from_secs_f64(secs).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn req(resume: Option<&str>) -> StepRequest {
        StepRequest {
            prompt: "p".into(),
            cwd: std::env::temp_dir(),
            run_id: "r".into(),
            iteration: 1,
            resume_session: resume.map(str::to_owned),
            session_spent_usd: None,
            model: None,
            env: Vec::new(),
        }
    }

    #[test]
    fn argv_is_headless_with_a_shell() {
        let a = GeminiAdapter::new(GeminiOptions::default()).unwrap();
        assert_eq!(
            a.args(&req(Some("3f2a"))).join(" "),
            "--output-format stream-json --approval-mode auto_edit \
             --allowed-tools run_shell_command --resume 3f2a"
        );
        let bare = GeminiAdapter::new(GeminiOptions {
            allowed_tools: Vec::new(),
            model: Some("gemini-2.5-flash".into()),
            ..GeminiOptions::default()
        })
        .unwrap();
        assert_eq!(
            bare.args(&req(None)).join(" "),
            "--output-format stream-json --approval-mode auto_edit --model gemini-2.5-flash"
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

    #[test]
    fn cost_is_summed_per_model_of_the_stats() {
        let mut a = GeminiAdapter::new(GeminiOptions::default()).unwrap();
        a.parse_stdout(r#"{"type":"init","session_id":"s","model":"auto"}"#);
        let events = a.parse_stdout(
            r#"{"type":"result","status":"success","stats":{"total_tokens":4946,"input_tokens":4900,"output_tokens":46,"cached":300,"input":4600,
                "models":{"gemini-3.5-flash-lite":{"input_tokens":0,"output_tokens":0,"cached":0,"input":0},
                          "gemini-3.1-pro-preview-customtools":{"input_tokens":4900,"output_tokens":46,"cached":300,"input":4600}}}}"#,
        );
        let [
            AgentEvent::SessionStarted { .. },
            AgentEvent::Result {
                usage,
                cost_usd: Some(cost),
                cost_estimated: true,
                is_error: false,
                ..
            },
        ] = events.as_slice()
        else {
            panic!("{events:?}");
        };
        assert_eq!(
            *usage,
            Usage {
                input_tokens: 4600,
                output_tokens: 46,
                cache_read_tokens: 300,
                cache_write_tokens: 0
            }
        );
        let expected = (4600.0 * 2.0 + 300.0 * 0.2 + 46.0 * 12.0) / 1e6;
        assert!((cost - expected).abs() < 1e-12, "{cost} vs {expected}");
    }

    #[test]
    fn retries_on_stderr_are_waits_the_step_may_recover_from() {
        let mut a = GeminiAdapter::new(GeminiOptions::default()).unwrap();
        let events = a.parse_stderr(
            r#"Attempt 1 failed with status 503. Retrying with backoff... _ApiError: {"error":{"code":503}}"#,
        );
        assert_eq!(
            events,
            [AgentEvent::RateLimited {
                retry_after: None,
                message: "Attempt 1 failed with status 503. Retrying with backoff...".into()
            }]
        );
        let events = a.parse_stderr("Attempt 2 failed: Quota exceeded. Retrying after 2345ms...");
        assert!(matches!(
            events.as_slice(),
            [AgentEvent::RateLimited { retry_after: Some(d), .. }] if *d == Duration::from_millis(2345)
        ));
        assert!(
            a.parse_stderr("Ripgrep is not available. Falling back to GrepTool.")
                .is_empty()
        );
        assert!(
            a.parse_stderr("Attempt 1 failed. Retrying with backoff... ECONNRESET")
                .is_empty()
        );
    }

    #[test]
    fn a_quota_error_result_says_how_long_to_wait() {
        let mut a = GeminiAdapter::new(GeminiOptions::default()).unwrap();
        let events = a.parse_stdout(
            r#"{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: You exceeded your current quota. Please retry in 36.5s.]"},"stats":{"input_tokens":0}}"#,
        );
        assert!(matches!(
            &events[0],
            AgentEvent::RateLimited { retry_after: Some(d), .. } if *d == Duration::from_millis(36_500)
        ));
        assert!(matches!(
            &events[1],
            AgentEvent::Result { is_error: true, .. }
        ));
    }

    /// Regression: after a quota error on the first request, pawl resumed the session `init`
    /// named, which Gemini CLI refuses ("No previous sessions found for this project.", exit 42),
    /// so every later step failed without reaching the model.
    #[test]
    fn a_session_the_model_never_answered_in_is_not_announced() {
        let mut a = GeminiAdapter::new(GeminiOptions::default()).unwrap();
        assert!(
            a.parse_stdout(r#"{"type":"init","session_id":"s1","model":"auto"}"#)
                .is_empty()
        );
        let failed = a.parse_stdout(
            r#"{"type":"result","status":"error","error":{"message":"[API Error: quota. Please retry in 400s.]"},"stats":{}}"#,
        );
        assert!(
            !failed
                .iter()
                .any(|e| matches!(e, AgentEvent::SessionStarted { .. })),
            "{failed:?}"
        );
        a.finish(Some(173));
        a.parse_stdout(r#"{"type":"init","session_id":"s2","model":"auto"}"#);
        let answered =
            a.parse_stdout(r#"{"type":"message","role":"assistant","content":"Hi","delta":true}"#);
        assert_eq!(
            answered,
            [AgentEvent::SessionStarted {
                session_id: "s2".into(),
                model: Some("auto".into())
            }]
        );
        assert!(matches!(
            a.parse_stderr("Error resuming session: No previous sessions found for this project.")
                .as_slice(),
            [AgentEvent::Error {
                recoverable: false,
                ..
            }]
        ));
    }

    #[test]
    fn a_call_refused_by_a_hook_is_a_permission_denial() {
        let mut a = GeminiAdapter::new(GeminiOptions::default()).unwrap();
        a.parse_stdout(
            r#"{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"git push --force"}}"#,
        );
        let events = a.parse_stdout(
            r#"{"type":"tool_result","tool_id":"t1","status":"error","output":"Tool execution blocked: pawl guard [git-push]","error":{"type":"policy_violation","message":"Tool execution blocked: pawl guard [git-push]"}}"#,
        );
        assert!(
            matches!(&events[0], AgentEvent::PermissionDenied { tool, detail }
                if tool == "run_shell_command" && detail.starts_with("git push --force: ")),
            "{events:?}"
        );
        assert!(matches!(
            &events[1],
            AgentEvent::ToolResult { is_error: true, .. }
        ));
    }
}
