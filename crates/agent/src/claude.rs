//! Claude Code in headless mode: `claude -p --output-format stream-json --verbose`, the prompt on
//! stdin, `--resume <id>` to continue the session of the previous iteration.
//!
//! Permissions: `--permission-mode acceptEdits` plus an `--allowedTools` allow-list, never
//! `--dangerously-skip-permissions` (refused as root, and pawl's own guard, installed as a
//! PreToolUse hook through `--settings`, is the safety). [`settings_json`] builds that settings
//! layer from the hook command.
//!
//! The stream (`system/init`, `assistant`, `user`, `result`, `system/api_retry`, ...) is parsed
//! into events; anything unrecognised becomes `Unknown`. Recorded real streams of Claude Code
//! 2.1.329 are in `tests/fixtures/`.
//!
//! What this module is not: the hook protocol (pawl-hooks) or a settings installer (it only
//! builds the JSON passed with `--settings`).

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pawl_core::config::AgentKind;
use serde_json::Value;

use crate::{Adapter, AgentError, AgentEvent, StepRequest, Usage, env};

/// Tools that write files: a call to one is also a `FileEdited`.
pub const FILE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// The default `--allowedTools` list: editing and running commands, which pawl's guard hook
/// polices; no web access.
pub const DEFAULT_ALLOWED_TOOLS: &[&str] = &[
    "Bash",
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "Glob",
    "Grep",
    "TodoWrite",
];

/// One row of Claude's price table: dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    /// Matched as a prefix of the model name; the longest match wins.
    pub model: &'static str,
    pub input: f64,
    /// Cache writes (5-minute cache).
    pub cache_write: f64,
    pub cache_read: f64,
    pub output: f64,
}

const fn price(model: &'static str, input: f64, output: f64) -> Price {
    Price {
        model,
        input,
        cache_write: input * 1.25,
        cache_read: input / 10.0,
        output,
    }
}

/// List prices used to estimate Claude's cost where Claude Code reports none (the in-session
/// driver reads usage from the transcript; headless runs use the cost Claude Code reports).
/// Estimates only: a model not listed is priced as [`FALLBACK_PRICE`].
pub const PRICES: &[Price] = &[
    price("claude-opus", 5.0, 25.0),
    price("claude-opus-4-0", 15.0, 75.0),
    price("claude-opus-4-1", 15.0, 75.0),
    price("claude-opus-4-2025", 15.0, 75.0),
    price("claude-sonnet", 3.0, 15.0),
    price("claude-haiku", 1.0, 5.0),
    price("claude-3-5-haiku", 0.8, 4.0),
    price("claude-3-haiku", 0.25, 1.25),
];

/// The price of a model that is unknown or not named: the Opus row, the dearest current one,
/// so a budget is never left unenforced for want of a price.
pub const FALLBACK_PRICE: Price = price("", 5.0, 25.0);

/// The price row for a model (longest prefix match, else [`FALLBACK_PRICE`]).
pub fn price_for(model: Option<&str>) -> Price {
    crate::longest_prefix(PRICES, model, |p| p.model)
        .copied()
        .unwrap_or(FALLBACK_PRICE)
}

/// Estimated dollars for a usage.
pub fn estimate_cost(model: Option<&str>, usage: &Usage) -> f64 {
    let p = price_for(model);
    (usage.input_tokens as f64 * p.input
        + usage.cache_write_tokens as f64 * p.cache_write
        + usage.cache_read_tokens as f64 * p.cache_read
        + usage.output_tokens as f64 * p.output)
        / 1_000_000.0
}

/// The hook events pawl installs, in Claude Code's names.
pub const HOOK_EVENTS: &[&str] = &["PreToolUse", "Stop", "SessionStart", "PreCompact"];

/// The settings layer passed with `--settings`: pawl's hooks when a hook command is given,
/// an empty layer otherwise. Each handler runs `<hook_command> <EventName>` through the shell,
/// so `hook_command` is a shell word sequence (quote a path with spaces).
pub fn settings_json(hook_command: Option<&str>) -> Value {
    let Some(hook) = hook_command else {
        return serde_json::json!({});
    };
    let mut hooks = serde_json::Map::new();
    for event in HOOK_EVENTS {
        let mut group = serde_json::json!({
            "hooks": [{"type": "command", "command": format!("{hook} {event}")}]
        });
        if *event == "PreToolUse" {
            group["matcher"] = Value::from("*");
        }
        hooks.insert((*event).to_owned(), Value::Array(vec![group]));
    }
    serde_json::json!({ "hooks": hooks })
}

/// How Claude Code is started.
#[derive(Debug, Clone)]
pub struct ClaudeOptions {
    /// The program and any leading arguments (default `["claude"]`).
    pub program: Vec<String>,
    /// The default model (`--model`); a step's own model wins.
    pub model: Option<String>,
    pub max_turns: Option<u32>,
    /// `--permission-mode` (default `acceptEdits`).
    pub permission_mode: String,
    /// `--allowedTools` (default [`DEFAULT_ALLOWED_TOOLS`]; empty: the flag is left out).
    pub allowed_tools: Vec<String>,
    /// `--settings`: a file path or inline JSON, e.g. `settings_json(Some(hook)).to_string()`.
    pub settings: Option<String>,
    /// Appended after pawl's own arguments.
    pub extra_args: Vec<String>,
    /// More variable names passed through from pawl's environment.
    pub extra_passthrough: Vec<String>,
}

impl Default for ClaudeOptions {
    fn default() -> Self {
        ClaudeOptions {
            program: vec!["claude".into()],
            model: None,
            max_turns: None,
            permission_mode: "acceptEdits".into(),
            allowed_tools: DEFAULT_ALLOWED_TOOLS
                .iter()
                .map(|t| (*t).to_owned())
                .collect(),
            settings: None,
            extra_args: Vec::new(),
            extra_passthrough: Vec::new(),
        }
    }
}

/// The adapter for `kind = "claude"`.
#[derive(Debug, Clone)]
pub struct ClaudeAdapter {
    options: ClaudeOptions,
    announced_session: bool,
    /// The running total Claude Code last reported per session (`total_cost_usd` covers the
    /// whole session, earlier `--resume`d steps included): a step's own cost is its growth.
    /// Seeded from what pawl already charged ([`StepRequest::session_spent_usd`]).
    session_cost: std::collections::BTreeMap<String, f64>,
    /// The session the step being built resumes and what pawl charged for it so far (set by
    /// `command`, which borrows the adapter immutably).
    resumed: std::cell::RefCell<Option<(String, f64)>>,
}

impl ClaudeAdapter {
    pub fn new(options: ClaudeOptions) -> Result<Self, AgentError> {
        if options.program.first().is_none_or(|p| p.trim().is_empty()) {
            return Err(AgentError::Config("the claude program is empty".into()));
        }
        Ok(ClaudeAdapter {
            options,
            announced_session: false,
            session_cost: std::collections::BTreeMap::new(),
            resumed: std::cell::RefCell::new(None),
        })
    }

    /// The argv after the program for one step (the prompt goes on stdin).
    pub fn args(&self, req: &StepRequest) -> Vec<String> {
        let o = &self.options;
        let mut args: Vec<String> = o.program.iter().skip(1).cloned().collect();
        args.extend(
            ["-p", "--output-format", "stream-json", "--verbose"]
                .iter()
                .map(|s| (*s).to_owned()),
        );
        args.extend(["--permission-mode".to_owned(), o.permission_mode.clone()]);
        if !o.allowed_tools.is_empty() {
            args.extend(["--allowedTools".to_owned(), o.allowed_tools.join(",")]);
        }
        if let Some(model) = req.model.as_ref().or(o.model.as_ref()) {
            args.extend(["--model".to_owned(), model.clone()]);
        }
        if let Some(turns) = o.max_turns {
            args.extend(["--max-turns".to_owned(), turns.to_string()]);
        }
        if let Some(session) = &req.resume_session {
            args.extend(["--resume".to_owned(), session.clone()]);
        }
        if let Some(settings) = &o.settings {
            args.extend(["--settings".to_owned(), settings.clone()]);
        }
        args.extend(o.extra_args.iter().cloned());
        args
    }
}

impl Adapter for ClaudeAdapter {
    fn name(&self) -> &str {
        "claude"
    }

    fn command(&self, req: &StepRequest) -> Result<pawl_process::Command, AgentError> {
        *self.resumed.borrow_mut() = req.resume_session.clone().zip(req.session_spent_usd);
        let program = PathBuf::from(self.options.program.first().map_or("claude", |p| p));
        let mut cmd = pawl_process::Command::new(program);
        cmd.args(self.args(req)).current_dir(&req.cwd);
        env::apply(&mut cmd, AgentKind::Claude, &self.options.extra_passthrough);
        cmd.envs(req.env.iter().map(|(k, v)| (k, v)))
            .stdin_bytes(req.prompt.as_bytes());
        Ok(cmd)
    }

    fn parse_stdout(&mut self, line: &str) -> Vec<AgentEvent> {
        if line.trim().is_empty() {
            return Vec::new();
        }
        let Ok(value) = serde_json::from_str::<Value>(line.trim()) else {
            return vec![unknown(line)];
        };
        let mut events = Vec::new();
        match value["type"].as_str() {
            Some("system") => self.system(&value, line, &mut events),
            Some("assistant") => assistant(&value, &mut events),
            Some("user") => user(&value, &mut events),
            Some("result") => self.result(&value, &mut events),
            Some("rate_limit_event") => rate_limit_event(&value, line, &mut events),
            _ => events.push(unknown(line)),
        }
        events
    }

    fn parse_stderr(&mut self, line: &str) -> Vec<AgentEvent> {
        rate_limit_text(line)
            .map(|retry_after| AgentEvent::RateLimited {
                retry_after,
                message: line.trim().to_owned(),
            })
            .into_iter()
            .collect()
    }

    fn finish(&mut self, _exit_code: Option<i32>) -> Vec<AgentEvent> {
        self.announced_session = false;
        Vec::new()
    }
}

impl ClaudeAdapter {
    fn system(&mut self, value: &Value, line: &str, events: &mut Vec<AgentEvent>) {
        match value["subtype"].as_str() {
            Some("init") => {
                if let Some(session_id) = value["session_id"].as_str() {
                    self.announced_session = true;
                    events.push(AgentEvent::SessionStarted {
                        session_id: session_id.to_owned(),
                        model: value["model"].as_str().map(str::to_owned),
                    });
                } else {
                    events.push(unknown(line));
                }
            }
            // Claude Code waits and retries by itself; the engine must not count the wait as
            // a stall.
            Some("api_retry") => {
                let status = value["error_status"].as_u64();
                let error = value["error"].as_str().unwrap_or("error");
                let attempt = value["attempt"].as_u64().unwrap_or(0);
                let max = value["max_retries"].as_u64().unwrap_or(0);
                events.push(AgentEvent::RateLimited {
                    retry_after: value["retry_delay_ms"].as_u64().map(Duration::from_millis),
                    message: match status {
                        Some(status) => {
                            format!("API retry {attempt}/{max} after HTTP {status} ({error})")
                        }
                        None => format!("API retry {attempt}/{max} ({error})"),
                    },
                });
            }
            _ => events.push(unknown(line)),
        }
    }

    fn result(&mut self, value: &Value, events: &mut Vec<AgentEvent>) {
        if !self.announced_session
            && let Some(session_id) = value["session_id"].as_str()
        {
            self.announced_session = true;
            events.push(AgentEvent::SessionStarted {
                session_id: session_id.to_owned(),
                model: None,
            });
        }
        for denial in value["permission_denials"].as_array().into_iter().flatten() {
            events.push(AgentEvent::PermissionDenied {
                tool: denial["tool_name"].as_str().unwrap_or("unknown").to_owned(),
                detail: denial
                    .get("tool_input")
                    .map(Value::to_string)
                    .unwrap_or_default(),
            });
        }
        let is_error = value["is_error"].as_bool().unwrap_or(false);
        let subtype = value["subtype"].as_str().map(str::to_owned);
        let text = value["result"].as_str().map(str::to_owned);
        let waiting = text.as_deref().and_then(rate_limit_text).or_else(|| {
            matches!(value["api_error_status"].as_u64(), Some(429 | 529)).then_some(None)
        });
        if let Some(retry_after) = waiting {
            events.push(AgentEvent::RateLimited {
                retry_after,
                message: text.clone().unwrap_or_else(|| "rate limited".into()),
            });
        } else if subtype.as_deref().is_some_and(|s| s.starts_with("error")) || is_error {
            let errors: Vec<&str> = value["errors"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let subtype_text = subtype.as_deref().unwrap_or("error");
            events.push(AgentEvent::Error {
                message: if errors.is_empty() {
                    text.clone().unwrap_or_else(|| subtype_text.to_owned())
                } else {
                    format!("{subtype_text}: {}", errors.join("; "))
                },
                // Spending caps are the user's to raise; running out of turns is not fatal.
                recoverable: subtype_text != "error_max_budget_usd",
            });
        }
        let u = &value["usage"];
        events.push(AgentEvent::Result {
            is_error,
            subtype,
            text,
            usage: Usage {
                input_tokens: u["input_tokens"].as_u64().unwrap_or(0),
                output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
                cache_read_tokens: u["cache_read_input_tokens"].as_u64().unwrap_or(0),
                cache_write_tokens: u["cache_creation_input_tokens"].as_u64().unwrap_or(0),
            },
            cost_usd: value["total_cost_usd"].as_f64().map(|total| {
                let Some(session) = value["session_id"].as_str() else {
                    return total;
                };
                let seeded = self
                    .resumed
                    .borrow()
                    .as_ref()
                    .filter(|(s, _)| s == session)
                    .map(|(_, spent)| *spent);
                let previous = self
                    .session_cost
                    .insert(session.to_owned(), total)
                    .or(seeded);
                step_cost(total, previous)
            }),
            cost_estimated: false,
            num_turns: value["num_turns"]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok()),
        });
    }
}

/// A step's own cost from the session's running total and the previous one: the growth, or the
/// total itself when it did not grow (a new session under an old id, a reset).
fn step_cost(total: f64, previous: Option<f64>) -> f64 {
    match previous {
        Some(p) if total >= p => total - p,
        _ => total,
    }
}

fn unknown(line: &str) -> AgentEvent {
    AgentEvent::Unknown {
        raw: line.to_owned(),
    }
}

fn assistant(value: &Value, events: &mut Vec<AgentEvent>) {
    let message = &value["message"];
    // An API error surfaced as an assistant message (`error`: rate_limit, overloaded, ...).
    if let Some(error) = value["error"].as_str().or(message["error"].as_str()) {
        let text = first_text(message).unwrap_or_else(|| error.to_owned());
        if matches!(error, "rate_limit" | "overloaded") {
            events.push(AgentEvent::RateLimited {
                retry_after: rate_limit_text(&text).flatten(),
                message: text,
            });
        } else {
            events.push(AgentEvent::Error {
                message: text,
                recoverable: matches!(error, "server_error" | "unknown" | "max_output_tokens"),
            });
        }
        return;
    }
    for block in message["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => {
                let text = block["text"].as_str().unwrap_or_default();
                if let Some(retry_after) = rate_limit_text(text) {
                    events.push(AgentEvent::RateLimited {
                        retry_after,
                        message: text.to_owned(),
                    });
                } else {
                    events.push(AgentEvent::Text {
                        text: text.to_owned(),
                    });
                }
            }
            Some("tool_use") => {
                let name = block["name"].as_str().unwrap_or("unknown").to_owned();
                let input = block.get("input").cloned().unwrap_or(Value::Null);
                let edited = FILE_TOOLS
                    .contains(&name.as_str())
                    .then(|| {
                        input["file_path"]
                            .as_str()
                            .or(input["notebook_path"].as_str())
                            .map(str::to_owned)
                    })
                    .flatten();
                events.push(AgentEvent::ToolCall {
                    id: block["id"].as_str().map(str::to_owned),
                    name,
                    input,
                });
                if let Some(path) = edited {
                    events.push(AgentEvent::FileEdited { path });
                }
            }
            // Thinking and anything new: nothing the loop acts on.
            _ => {}
        }
    }
}

fn first_text(message: &Value) -> Option<String> {
    message["content"]
        .as_array()?
        .iter()
        .find_map(|b| b["text"].as_str().map(str::to_owned))
}

fn user(value: &Value, events: &mut Vec<AgentEvent>) {
    for block in value["message"]["content"].as_array().into_iter().flatten() {
        if block["type"].as_str() != Some("tool_result") {
            continue;
        }
        let output = match &block["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        events.push(AgentEvent::ToolResult {
            id: block["tool_use_id"].as_str().map(str::to_owned),
            is_error: block["is_error"].as_bool().unwrap_or(false),
            output,
        });
    }
    // Files a Bash command changed, as Claude Code tracked them.
    let changed = &value["tool_use_result"]["bashEditDiff"]["changedFiles"];
    for path in changed
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        events.push(AgentEvent::FileEdited {
            path: path.to_owned(),
        });
    }
}

/// `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":<epoch>}}`.
fn rate_limit_event(value: &Value, line: &str, events: &mut Vec<AgentEvent>) {
    let info = &value["rate_limit_info"];
    if info["status"].as_str() == Some("rejected") {
        events.push(AgentEvent::RateLimited {
            retry_after: info["resetsAt"].as_u64().and_then(until_epoch),
            message: format!(
                "usage limit reached ({})",
                info["rateLimitType"].as_str().unwrap_or("rate limit")
            ),
        });
    } else {
        events.push(unknown(line));
    }
}

fn until_epoch(epoch_secs: u64) -> Option<Duration> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
    Duration::from_secs(epoch_secs).checked_sub(now)
}

/// Whether a text is Claude Code's usage-limit / rate-limit / overloaded message. `Some(wait)`
/// when it is (with the wait when the text says), `None` otherwise. Narrow on purpose: ordinary
/// assistant prose about rate limits must not stop the loop.
pub fn rate_limit_text(text: &str) -> Option<Option<Duration>> {
    let trimmed = text.trim();
    // "Claude AI usage limit reached|1750000000"
    if let Some(rest) = trimmed.strip_prefix("Claude AI usage limit reached") {
        let wait = rest
            .strip_prefix('|')
            .and_then(|epoch| epoch.trim().parse::<u64>().ok())
            .and_then(until_epoch);
        return Some(wait);
    }
    let lower = trimmed.to_ascii_lowercase();
    let api_error = lower.starts_with("api error: 429")
        || lower.starts_with("api error: 529")
        || (lower.starts_with("api error") && lower.contains("overloaded"))
        || (lower.starts_with("api error") && lower.contains("rate_limit_error"));
    let usage_limit = (lower.contains("limit reached") && lower.contains("resets"))
        || lower.starts_with("you've hit your limit")
        || lower.starts_with("you\u{2019}ve hit your limit");
    (api_error || usage_limit).then_some(None)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn prices_match_the_longest_prefix_and_unknown_models_pay_the_most() {
        assert_eq!(price_for(Some("claude-opus-4-1-20250805")).input, 15.0);
        assert_eq!(price_for(Some("claude-opus-4-5")).input, 5.0);
        assert_eq!(price_for(Some("claude-sonnet-4-5")).output, 15.0);
        assert_eq!(price_for(Some("claude-3-5-haiku-latest")).input, 0.8);
        assert_eq!(price_for(Some("some-other-model")), FALLBACK_PRICE);
        assert_eq!(price_for(None), FALLBACK_PRICE);
        // Cache writes at 1.25 × input, reads at a tenth.
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 0,
            cache_read_tokens: 1_000_000,
            cache_write_tokens: 1_000_000,
        };
        let cost = estimate_cost(Some("claude-sonnet-4-5"), &usage);
        assert!((cost - (3.0 + 0.3 + 3.75)).abs() < 1e-9, "{cost}");
    }

    /// Claude Code's `total_cost_usd` is the session's running total: three `--resume`d steps
    /// costing 0.045 each report 0.045, 0.090, 0.135. pawl charges 0.045 each — also for the
    /// first step after pawl restarted, from what it had charged before.
    #[test]
    fn a_resumed_session_is_charged_the_growth_of_its_running_total() {
        let result = |total: f64| {
            format!(
                r#"{{"type":"result","subtype":"success","is_error":false,"session_id":"s1","total_cost_usd":{total},"usage":{{}}}}"#
            )
        };
        let charged = |a: &mut ClaudeAdapter, total: f64| -> f64 {
            a.parse_stdout(&result(total))
                .into_iter()
                .find_map(|e| match e {
                    AgentEvent::Result { cost_usd, .. } => cost_usd,
                    _ => None,
                })
                .unwrap()
        };
        let mut a = adapter();
        let mut steps = Vec::new();
        for total in [0.045, 0.090, 0.135] {
            steps.push(charged(&mut a, total));
            a.finish(Some(0));
        }
        for c in &steps {
            assert!((c - 0.045).abs() < 1e-9, "{steps:?}");
        }
        // A fresh adapter (pawl restarted) resuming s1, told what was charged for it.
        let mut b = adapter();
        let mut r = req();
        r.resume_session = Some("s1".into());
        r.session_spent_usd = Some(0.135);
        b.command(&r).unwrap();
        assert!((charged(&mut b, 0.180) - 0.045).abs() < 1e-9);
        // A total that did not grow is a new session's own figure.
        assert!((step_cost(0.02, Some(0.135)) - 0.02).abs() < 1e-9);
    }

    fn adapter() -> ClaudeAdapter {
        ClaudeAdapter::new(ClaudeOptions::default()).unwrap()
    }

    fn req() -> StepRequest {
        StepRequest {
            prompt: "fix it".into(),
            cwd: std::env::temp_dir(),
            run_id: "r".into(),
            iteration: 2,
            resume_session: Some("sess-1".into()),
            session_spent_usd: None,
            model: None,
            env: Vec::new(),
        }
    }

    #[test]
    fn argv_is_headless_with_an_allow_list_and_resume() {
        let mut options = ClaudeOptions {
            model: Some("sonnet".into()),
            max_turns: Some(30),
            settings: Some(settings_json(Some("/usr/bin/pawl hook claude")).to_string()),
            ..ClaudeOptions::default()
        };
        options.program = vec!["npx".into(), "claude".into()];
        let adapter = ClaudeAdapter::new(options).unwrap();
        let args = adapter.args(&req());
        let line = args.join(" ");
        assert!(
            line.starts_with("claude -p --output-format stream-json --verbose"),
            "{line}"
        );
        assert!(line.contains("--permission-mode acceptEdits"), "{line}");
        assert!(
            line.contains("--allowedTools Bash,Read,Edit,Write"),
            "{line}"
        );
        assert!(
            line.contains("--model sonnet --max-turns 30 --resume sess-1"),
            "{line}"
        );
        assert!(!line.contains("dangerously"), "{line}");
        assert!(
            !args.contains(&"fix it".to_owned()),
            "the prompt goes on stdin"
        );
        let cmd = adapter.command(&req()).unwrap();
        assert_eq!(cmd.get_program(), "npx");
        assert!(
            cmd.get_envs()
                .any(|(k, v)| k == "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC" && v.is_some())
        );
    }

    #[test]
    fn settings_install_the_hooks_only_when_asked() {
        assert_eq!(settings_json(None), serde_json::json!({}));
        let s = settings_json(Some("pawl hook"));
        assert_eq!(
            s["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "pawl hook PreToolUse"
        );
        assert_eq!(s["hooks"]["PreToolUse"][0]["matcher"], "*");
        assert_eq!(s["hooks"]["Stop"][0]["hooks"][0]["type"], "command");
        assert!(s["hooks"]["Stop"][0].get("matcher").is_none());
    }

    #[test]
    fn error_results_and_denials() {
        let mut a = adapter();
        let line = r#"{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s","num_turns":3,"total_cost_usd":0.5,"usage":{"input_tokens":10,"output_tokens":2},"permission_denials":[{"tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"rm -rf /"}}],"errors":["max turns reached"]}"#;
        let events = a.parse_stdout(line);
        assert!(
            matches!(&events[0], AgentEvent::SessionStarted { session_id, .. } if session_id == "s")
        );
        assert!(
            matches!(&events[1], AgentEvent::PermissionDenied { tool, detail } if tool == "Bash" && detail.contains("rm -rf"))
        );
        assert!(
            matches!(&events[2], AgentEvent::Error { message, recoverable: true } if message.contains("max turns reached"))
        );
        assert!(matches!(
            &events[3],
            AgentEvent::Result { is_error: true, subtype: Some(s), num_turns: Some(3), cost_usd: Some(c), .. }
                if s == "error_max_turns" && *c == 0.5
        ));
    }

    #[test]
    fn usage_limit_texts_are_rate_limits_and_prose_is_not() {
        assert_eq!(
            rate_limit_text("Claude AI usage limit reached|1"),
            Some(None)
        );
        assert!(
            rate_limit_text("Claude AI usage limit reached|99999999999")
                .unwrap()
                .is_some()
        );
        assert_eq!(
            rate_limit_text("API Error: 429 {\"type\":\"error\"}"),
            Some(None)
        );
        assert_eq!(rate_limit_text("API Error: 529 Overloaded"), Some(None));
        assert_eq!(
            rate_limit_text("5-hour limit reached ∙ resets 3pm"),
            Some(None)
        );
        assert_eq!(
            rate_limit_text("I added a rate limit to the API handler."),
            None
        );
        let mut a = adapter();
        let events = a.parse_stdout(
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Claude AI usage limit reached|1"}]}}"#,
        );
        assert!(matches!(events[..], [AgentEvent::RateLimited { .. }]));
        let events = a.parse_stdout(
            r#"{"type":"assistant","error":"overloaded","message":{"content":[{"type":"text","text":"API Error: Repeated 529 Overloaded errors"}]}}"#,
        );
        assert!(matches!(events[..], [AgentEvent::RateLimited { .. }]));
        let events = a.parse_stdout(
            r#"{"type":"assistant","error":"authentication_failed","message":{"content":[{"type":"text","text":"Invalid API key"}]}}"#,
        );
        assert!(matches!(
            &events[..],
            [AgentEvent::Error {
                recoverable: false,
                ..
            }]
        ));
        assert_eq!(a.parse_stderr("API Error: 429 rate_limit_error").len(), 1);
        assert!(
            a.parse_stderr("[claude-code:unrecognized_model]")
                .is_empty()
        );
    }

    #[test]
    fn tool_calls_to_file_tools_are_edits() {
        let mut a = adapter();
        let events = a.parse_stdout(
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"NotebookEdit","input":{"notebook_path":"/r/n.ipynb"}},{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/r/a"}}]}}"#,
        );
        assert_eq!(events.len(), 3, "{events:?}");
        assert_eq!(
            events[1],
            AgentEvent::FileEdited {
                path: "/r/n.ipynb".into()
            }
        );
        let events = a.parse_stdout(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"no such file"}]}]}}"#,
        );
        assert_eq!(
            events,
            vec![AgentEvent::ToolResult {
                id: Some("t2".into()),
                is_error: true,
                output: "no such file".into()
            }]
        );
        assert!(matches!(
            &a.parse_stdout("not json")[..],
            [AgentEvent::Unknown { .. }]
        ));
        assert!(matches!(
            &a.parse_stdout(r#"{"type":"future_thing"}"#)[..],
            [AgentEvent::Unknown { .. }]
        ));
    }
}
