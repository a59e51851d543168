//! Codex CLI in headless mode: `codex exec --json -` (the prompt on stdin) and
//! `codex exec resume --json <id> -` to continue the previous iteration's thread.
//!
//! Sandbox and approvals are passed as config overrides (`-c sandbox_mode=...`,
//! `-c approval_policy="never"`), because `exec resume` has no `--sandbox` flag. A custom model
//! provider (a proxy, a gateway, pawl's mock server) is configured with `-c model_providers.<id>.*`
//! overrides, so no `config.toml` needs writing. Codex reports tokens (`turn.completed`), not
//! dollars: the cost is estimated from [`PRICES`] and marked `cost_estimated`.
//!
//! What this module is not: Codex's hooks (pawl-hooks) or its config file.

use std::path::PathBuf;
use std::time::Duration;

use pawl_core::config::AgentKind;
use serde_json::Value;

use crate::{Adapter, AgentError, AgentEvent, StepRequest, Usage, env};

/// Config overrides that switch off non-essential traffic: analytics, the update check, the
/// plugin marketplace sync.
pub const QUIET_CONFIG: &[&str] = &[
    "analytics.enabled=false",
    "check_for_update_on_startup=false",
    "features.plugins=false",
];

/// One row of the price table: dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    /// Matched as a prefix of the model name; the longest match wins.
    pub model: &'static str,
    pub input: f64,
    pub cached_input: f64,
    pub output: f64,
}

/// List prices ($ per million tokens) used to estimate Codex's cost. Estimates only: check
/// them against your provider's bill; a model not listed is priced as [`FALLBACK_PRICE`].
pub const PRICES: &[Price] = &[
    Price {
        model: "gpt-5",
        input: 1.25,
        cached_input: 0.125,
        output: 10.0,
    },
    Price {
        model: "gpt-5-mini",
        input: 0.25,
        cached_input: 0.025,
        output: 2.0,
    },
    Price {
        model: "gpt-5-nano",
        input: 0.05,
        cached_input: 0.005,
        output: 0.4,
    },
    Price {
        model: "gpt-5.5",
        input: 1.25,
        cached_input: 0.125,
        output: 10.0,
    },
    Price {
        model: "gpt-4.1",
        input: 2.0,
        cached_input: 0.5,
        output: 8.0,
    },
    Price {
        model: "gpt-4.1-mini",
        input: 0.4,
        cached_input: 0.1,
        output: 1.6,
    },
    Price {
        model: "o3",
        input: 2.0,
        cached_input: 0.5,
        output: 8.0,
    },
    Price {
        model: "o4-mini",
        input: 1.1,
        cached_input: 0.275,
        output: 4.4,
    },
    Price {
        model: "codex-mini",
        input: 1.5,
        cached_input: 0.375,
        output: 6.0,
    },
];

/// The price of a model that is unknown or not named (Codex's own default): the gpt-5 row, so
/// a budget is never left unenforced for want of a price.
pub const FALLBACK_PRICE: Price = Price {
    model: "",
    input: 1.25,
    cached_input: 0.125,
    output: 10.0,
};

/// The price row for a model (longest prefix match, else [`FALLBACK_PRICE`]).
pub fn price_for(model: Option<&str>) -> Price {
    crate::longest_prefix(PRICES, model, |p| p.model)
        .copied()
        .unwrap_or(FALLBACK_PRICE)
}

/// Estimated dollars for a usage (cache reads at the cached price).
pub fn estimate_cost(model: Option<&str>, usage: &Usage) -> f64 {
    let p = price_for(model);
    (usage.input_tokens as f64 * p.input
        + usage.cache_read_tokens as f64 * p.cached_input
        + usage.cache_write_tokens as f64 * p.input
        + usage.output_tokens as f64 * p.output)
        / 1_000_000.0
}

/// A custom model provider (`[model_providers.<id>]` in Codex's config).
#[derive(Debug, Clone, PartialEq)]
pub struct CodexProvider {
    pub id: String,
    pub name: String,
    /// E.g. `http://127.0.0.1:8787/v1`.
    pub base_url: String,
    /// The variable holding the API key (passed through from pawl's environment).
    pub env_key: String,
    /// Retries of HTTP 5xx / of a broken stream (Codex 0.169 retries a 429 as a stream retry).
    pub request_max_retries: u32,
    pub stream_max_retries: u32,
}

/// How Codex is started.
#[derive(Debug, Clone)]
pub struct CodexOptions {
    /// The program and any leading arguments (default `["codex"]`).
    pub program: Vec<String>,
    pub model: Option<String>,
    /// `sandbox_mode` (default `workspace-write`).
    pub sandbox: String,
    /// `approval_policy` (default `never`: nobody is there to approve).
    pub approval_policy: String,
    pub provider: Option<CodexProvider>,
    /// Pass `--dangerously-bypass-hook-trust` (when pawl installed its own hooks: Codex skips
    /// untrusted hooks silently otherwise).
    pub bypass_hook_trust: bool,
    /// pawl's hook command for this run (`<pawl> hook codex`): a `PreToolUse` handler running
    /// `<hook_command> PreToolUse` is passed as a `-c hooks.PreToolUse=...` override, for this
    /// invocation only (nothing is written to the user's config), and hook trust is bypassed
    /// (Codex silently skips untrusted hooks otherwise). This is how pawl's guard sees every
    /// shell command and patch of a headless Codex run.
    pub hook_command: Option<String>,
    /// More `-c key=value` overrides.
    pub config: Vec<String>,
    /// Appended after pawl's own arguments, before the prompt.
    pub extra_args: Vec<String>,
    pub extra_passthrough: Vec<String>,
}

impl Default for CodexOptions {
    fn default() -> Self {
        CodexOptions {
            program: vec!["codex".into()],
            model: None,
            sandbox: "workspace-write".into(),
            approval_policy: "never".into(),
            provider: None,
            bypass_hook_trust: false,
            hook_command: None,
            config: Vec::new(),
            extra_args: Vec::new(),
            extra_passthrough: Vec::new(),
        }
    }
}

/// The adapter for `kind = "codex"`.
#[derive(Debug, Clone)]
pub struct CodexAdapter {
    options: CodexOptions,
    /// The model of the running step, for the price estimate.
    model: Option<String>,
    last_text: Option<String>,
    saw_result: bool,
    /// The thread of the running step.
    thread: Option<String>,
    /// The cumulative usage Codex last reported per thread: after `exec resume`, Codex 0.169's
    /// `turn.completed` carries the whole thread's total, so a step's own usage is the
    /// difference. Kept in memory only: the first step after pawl itself restarts reports the
    /// thread's total (an overcount, never an undercount).
    thread_usage: std::collections::BTreeMap<String, Usage>,
}

/// A step's own usage from the cumulative figure Codex reports and the previous one.
fn step_usage(reported: Usage, previous: Option<Usage>) -> Usage {
    match previous {
        Some(p)
            if reported.input_tokens >= p.input_tokens
                && reported.output_tokens >= p.output_tokens
                && reported.cache_read_tokens >= p.cache_read_tokens
                && reported.cache_write_tokens >= p.cache_write_tokens =>
        {
            Usage {
                input_tokens: reported.input_tokens - p.input_tokens,
                output_tokens: reported.output_tokens - p.output_tokens,
                cache_read_tokens: reported.cache_read_tokens - p.cache_read_tokens,
                cache_write_tokens: reported.cache_write_tokens - p.cache_write_tokens,
            }
        }
        // Not cumulative after all (or a new thread): the figure is the step's own.
        _ => reported,
    }
}

/// The key variables of the custom model providers a Codex `config.toml` defines
/// (`[model_providers.<id>] env_key`). Codex reads a provider's key from its own environment,
/// so pawl's allow-list must pass these names on (the caller adds them to
/// `extra_passthrough`). Text that is not valid TOML defines none.
pub fn provider_env_keys(config_toml: &str) -> Vec<String> {
    let Ok(doc) = config_toml.parse::<toml::Table>() else {
        return Vec::new();
    };
    let mut keys: Vec<String> = doc
        .get("model_providers")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|providers| providers.values())
        .filter_map(|p| p.get("env_key").and_then(toml::Value::as_str))
        .filter(|k| !k.is_empty())
        .map(str::to_owned)
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// The tools pawl's guard looks at in a Codex session: its shell (reported as `Bash`) and its
/// patches (`apply_patch`, aliases `Edit` and `Write`). The matcher is a regex.
pub const GUARDED_TOOLS: &str = "^(Bash|apply_patch|Edit|Write)$";

/// The `-c` override that registers pawl's `PreToolUse` handler for one invocation.
fn hooks_override(hook_command: &str) -> String {
    format!(
        "hooks.PreToolUse=[{{matcher={}, hooks=[{{type=\"command\", command={}, timeout=30}}]}}]",
        toml_str(GUARDED_TOOLS),
        toml_str(&format!("{hook_command} PreToolUse"))
    )
}

/// The notice `--dangerously-bypass-hook-trust` makes Codex print as an `error` item: pawl
/// asked for it, so it is not an error of the step.
fn is_trust_bypass_notice(message: &str) -> bool {
    message.contains("--dangerously-bypass-hook-trust")
}

/// A TOML string literal for a `-c key=value` override.
fn toml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{}\"", s.replace('"', "")))
}

impl CodexAdapter {
    pub fn new(options: CodexOptions) -> Result<Self, AgentError> {
        if options.program.first().is_none_or(|p| p.trim().is_empty()) {
            return Err(AgentError::Config("the codex program is empty".into()));
        }
        if let Some(p) = &options.provider
            && (p.id.is_empty()
                || !p
                    .id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        {
            return Err(AgentError::Config(format!(
                "codex provider id {:?}: use letters, digits, '-' and '_'",
                p.id
            )));
        }
        let model = options.model.clone();
        Ok(CodexAdapter {
            options,
            model,
            last_text: None,
            saw_result: false,
            thread: None,
            thread_usage: std::collections::BTreeMap::new(),
        })
    }

    /// The argv after the program for one step (the prompt goes on stdin, read via `-`).
    pub fn args(&self, req: &StepRequest) -> Vec<String> {
        let o = &self.options;
        let mut args: Vec<String> = o.program.iter().skip(1).cloned().collect();
        args.push("exec".into());
        if req.resume_session.is_some() {
            args.push("resume".into());
        }
        args.push("--json".into());
        let mut config: Vec<String> = QUIET_CONFIG.iter().map(|s| (*s).to_owned()).collect();
        config.push(format!("sandbox_mode={}", toml_str(&o.sandbox)));
        config.push(format!("approval_policy={}", toml_str(&o.approval_policy)));
        if let Some(p) = &o.provider {
            let key = format!("model_providers.{}", p.id);
            config.push(format!("model_provider={}", toml_str(&p.id)));
            config.push(format!("{key}.name={}", toml_str(&p.name)));
            config.push(format!("{key}.base_url={}", toml_str(&p.base_url)));
            config.push(format!("{key}.env_key={}", toml_str(&p.env_key)));
            config.push(format!("{key}.wire_api=\"responses\""));
            config.push(format!(
                "{key}.request_max_retries={}",
                p.request_max_retries
            ));
            config.push(format!("{key}.stream_max_retries={}", p.stream_max_retries));
        }
        if let Some(hook) = &o.hook_command {
            config.push(hooks_override(hook));
        }
        config.extend(o.config.iter().cloned());
        for c in config {
            args.push("-c".into());
            args.push(c);
        }
        if let Some(model) = req.model.as_ref().or(o.model.as_ref()) {
            args.extend(["--model".to_owned(), model.clone()]);
        }
        if o.bypass_hook_trust || o.hook_command.is_some() {
            args.push("--dangerously-bypass-hook-trust".into());
        }
        args.extend(o.extra_args.iter().cloned());
        if let Some(session) = &req.resume_session {
            args.push(session.clone());
        }
        args.push("-".into());
        args
    }
}

impl Adapter for CodexAdapter {
    fn name(&self) -> &str {
        "codex"
    }

    fn command(&self, req: &StepRequest) -> Result<pawl_process::Command, AgentError> {
        let program = PathBuf::from(self.options.program.first().map_or("codex", |p| p));
        let mut cmd = pawl_process::Command::new(program);
        cmd.args(self.args(req)).current_dir(&req.cwd);
        let mut extra = self.options.extra_passthrough.clone();
        if let Some(p) = &self.options.provider {
            extra.push(p.env_key.clone());
        }
        env::apply(&mut cmd, AgentKind::Codex, &extra);
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
            Some("thread.started") => match value["thread_id"].as_str() {
                Some(id) => {
                    self.thread = Some(id.to_owned());
                    events.push(AgentEvent::SessionStarted {
                        session_id: id.to_owned(),
                        model: self.model.clone(),
                    });
                }
                None => events.push(unknown(line)),
            },
            Some("turn.started") => {}
            Some("item.started" | "item.updated" | "item.completed") => {
                self.item(&value, line, &mut events);
            }
            Some("turn.completed") => {
                let u = &value["usage"];
                let input = u["input_tokens"].as_u64().unwrap_or(0);
                let cached = u["cached_input_tokens"].as_u64().unwrap_or(0);
                // Codex's input count includes the cached part; pawl's Usage keeps them apart.
                let reported = Usage {
                    input_tokens: input.saturating_sub(cached),
                    output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
                    cache_read_tokens: cached,
                    cache_write_tokens: u["cache_write_input_tokens"].as_u64().unwrap_or(0),
                };
                let usage = match &self.thread {
                    Some(thread) => {
                        let previous = self.thread_usage.insert(thread.clone(), reported);
                        step_usage(reported, previous)
                    }
                    None => reported,
                };
                self.saw_result = true;
                events.push(AgentEvent::Result {
                    is_error: false,
                    subtype: Some("success".into()),
                    text: self.last_text.clone(),
                    usage,
                    cost_usd: Some(estimate_cost(self.model.as_deref(), &usage)),
                    cost_estimated: true,
                    num_turns: Some(1),
                });
            }
            Some("turn.failed") => {
                let message = value["error"]["message"]
                    .as_str()
                    .unwrap_or("turn failed")
                    .to_owned();
                events.push(classify_error(&message, false));
                self.saw_result = true;
                events.push(AgentEvent::Result {
                    is_error: true,
                    subtype: Some("turn_failed".into()),
                    text: Some(message),
                    usage: Usage::default(),
                    cost_usd: Some(0.0),
                    cost_estimated: true,
                    num_turns: Some(1),
                });
            }
            Some("error") => {
                let message = value["message"].as_str().unwrap_or("error");
                events.push(classify_error(message, true));
            }
            _ => events.push(unknown(line)),
        }
        events
    }

    fn parse_stderr(&mut self, line: &str) -> Vec<AgentEvent> {
        let lower = line.to_ascii_lowercase();
        if lower.contains("usage limit") || lower.contains("429 too many requests") {
            return vec![classify_error(line.trim(), true)];
        }
        Vec::new()
    }

    fn finish(&mut self, exit_code: Option<i32>) -> Vec<AgentEvent> {
        let saw_result = std::mem::take(&mut self.saw_result);
        self.last_text = None;
        self.thread = None;
        self.model = self.options.model.clone();
        match exit_code {
            Some(code) if code != 0 && !saw_result => vec![AgentEvent::Error {
                message: format!("codex exited with code {code} without finishing its turn"),
                recoverable: true,
            }],
            _ => Vec::new(),
        }
    }
}

impl CodexAdapter {
    fn item(&mut self, value: &Value, line: &str, events: &mut Vec<AgentEvent>) {
        let completed = value["type"].as_str() == Some("item.completed");
        let started = value["type"].as_str() == Some("item.started");
        let item = &value["item"];
        let id = item["id"].as_str().map(str::to_owned);
        match item["type"].as_str() {
            Some("agent_message") if completed => {
                let text = item["text"].as_str().unwrap_or_default().to_owned();
                self.last_text = Some(text.clone());
                events.push(AgentEvent::Text { text });
            }
            Some("command_execution") if started => events.push(AgentEvent::ToolCall {
                id,
                name: "command_execution".into(),
                input: serde_json::json!({ "command": item["command"] }),
            }),
            Some("command_execution") if completed => {
                let failed = item["exit_code"].as_i64().is_some_and(|c| c != 0)
                    || matches!(item["status"].as_str(), Some("failed" | "declined"));
                events.push(AgentEvent::ToolResult {
                    id,
                    is_error: failed,
                    output: item["aggregated_output"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                });
            }
            Some("file_change") if completed => {
                let changes = item["changes"].as_array().cloned().unwrap_or_default();
                events.push(AgentEvent::ToolCall {
                    id: id.clone(),
                    name: "file_change".into(),
                    input: Value::Array(changes.clone()),
                });
                let failed = item["status"].as_str() == Some("failed");
                if !failed {
                    for change in &changes {
                        if let Some(path) = change["path"].as_str() {
                            events.push(AgentEvent::FileEdited {
                                path: path.to_owned(),
                            });
                        }
                    }
                }
                events.push(AgentEvent::ToolResult {
                    id,
                    is_error: failed,
                    output: String::new(),
                });
            }
            Some("mcp_tool_call") if started => events.push(AgentEvent::ToolCall {
                id,
                name: format!(
                    "mcp__{}__{}",
                    item["server"].as_str().unwrap_or("server"),
                    item["tool"].as_str().unwrap_or("tool")
                ),
                input: item.get("arguments").cloned().unwrap_or(Value::Null),
            }),
            Some("mcp_tool_call") if completed => {
                let failed = item["status"].as_str() == Some("failed") || !item["error"].is_null();
                events.push(AgentEvent::ToolResult {
                    id,
                    is_error: failed,
                    output: if failed {
                        item["error"]["message"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned()
                    } else {
                        item["result"].to_string()
                    },
                });
            }
            Some("web_search") if started => events.push(AgentEvent::ToolCall {
                id,
                name: "web_search".into(),
                input: serde_json::json!({ "query": item["query"] }),
            }),
            Some("error") if completed => {
                let message = item["message"].as_str().unwrap_or("error");
                if !is_trust_bypass_notice(message) {
                    events.push(classify_error(message, true));
                }
            }
            // Reasoning, todo lists, updates, and the other half of start/complete pairs.
            Some("reasoning" | "todo_list") => {}
            Some(
                "agent_message" | "command_execution" | "file_change" | "mcp_tool_call"
                | "web_search" | "error",
            ) => {}
            _ => events.push(unknown(line)),
        }
    }
}

fn unknown(line: &str) -> AgentEvent {
    AgentEvent::Unknown {
        raw: line.to_owned(),
    }
}

/// An error line from Codex: a rate limit, a usage limit or an overloaded provider is a wait;
/// anything else is an error.
fn classify_error(message: &str, recoverable: bool) -> AgentEvent {
    let lower = message.to_ascii_lowercase();
    let waiting = [
        "429",
        "too many requests",
        "rate limit",
        "rate_limit",
        "usage limit",
        "quota",
        "overloaded",
        "high demand",
        "503 service unavailable",
    ]
    .iter()
    .any(|needle| lower.contains(needle));
    if waiting {
        AgentEvent::RateLimited {
            retry_after: retry_after_in(&lower),
            message: message.to_owned(),
        }
    } else {
        AgentEvent::Error {
            message: message.to_owned(),
            recoverable,
        }
    }
}

/// "... try again in 20s." / "... try again in 1.5s" → the wait.
fn retry_after_in(lower: &str) -> Option<Duration> {
    let rest = &lower[lower.find("try again in ")? + "try again in ".len()..];
    let number: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let unit = rest[number.len()..].trim_start();
    let value: f64 = number.parse().ok()?;
    let secs = if unit.starts_with("ms") {
        value / 1000.0
    } else if unit.starts_with('m') {
        value * 60.0
    } else {
        value
    };
    Duration::try_from_secs_f64(secs).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn req(resume: Option<&str>) -> StepRequest {
        StepRequest {
            prompt: "fix it".into(),
            cwd: std::env::temp_dir(),
            run_id: "r".into(),
            iteration: 1,
            resume_session: resume.map(str::to_owned),
            session_spent_usd: None,
            model: Some("gpt-5.5".into()),
            env: Vec::new(),
        }
    }

    #[test]
    fn the_hook_command_becomes_a_pretooluse_override_for_this_invocation_only() {
        let plain = CodexAdapter::new(CodexOptions::default()).unwrap();
        let args = plain.args(&req(None));
        assert!(!args.iter().any(|a| a.starts_with("hooks.")), "{args:?}");
        assert!(!args.contains(&"--dangerously-bypass-hook-trust".to_owned()));

        let hooked = CodexAdapter::new(CodexOptions {
            hook_command: Some("'/opt/my pawl/pawl' hook codex".into()),
            ..CodexOptions::default()
        })
        .unwrap();
        let args = hooked.args(&req(None));
        let at = args.iter().position(|a| a.starts_with("hooks.")).unwrap();
        assert_eq!(args[at - 1], "-c");
        // The override is valid TOML naming the guarded tools and pawl's command.
        let value: toml::Table = args[at].parse().unwrap();
        let group = &value["hooks"]["PreToolUse"][0];
        assert_eq!(group["matcher"].as_str(), Some(GUARDED_TOOLS));
        let handler = &group["hooks"][0];
        assert_eq!(handler["type"].as_str(), Some("command"));
        assert_eq!(
            handler["command"].as_str(),
            Some("'/opt/my pawl/pawl' hook codex PreToolUse")
        );
        assert!(args.contains(&"--dangerously-bypass-hook-trust".to_owned()));
        // The prompt still comes last, on stdin.
        assert_eq!(args.last().map(String::as_str), Some("-"));
        let matcher = regex::Regex::new(GUARDED_TOOLS).unwrap();
        for tool in ["Bash", "apply_patch", "Edit", "Write"] {
            assert!(matcher.is_match(tool), "{tool}");
        }
        assert!(!matcher.is_match("mcp__fs__read"));
    }

    #[test]
    fn the_hook_trust_notice_is_not_an_error_of_the_step() {
        let mut a = CodexAdapter::new(CodexOptions::default()).unwrap();
        let notice = r#"{"type": "item.completed", "item": {"id": "item_0", "type": "error", "message": "`--dangerously-bypass-hook-trust` is enabled. Enabled hooks may run without review for this invocation."}}"#;
        assert!(a.parse_stdout(notice).is_empty());
        let other = r#"{"type":"item.completed","item":{"id":"e","type":"error","message":"stream disconnected"}}"#;
        assert!(matches!(
            &a.parse_stdout(other)[..],
            [AgentEvent::Error { .. }]
        ));
    }

    /// Regression: a custom provider's key variable (here `MOCK_API_KEY`) was cut by the
    /// allow-list, so Codex failed every step with "Missing environment variable".
    #[test]
    fn provider_key_variables_come_from_codex_config() {
        let config = r#"
model_provider = "mock"
[model_providers.mock]
base_url = "http://127.0.0.1:1/v1"
env_key = "MOCK_API_KEY"
[model_providers.gateway]
env_key = "GATEWAY_TOKEN"
[model_providers.nokey]
base_url = "http://x"
"#;
        assert_eq!(provider_env_keys(config), ["GATEWAY_TOKEN", "MOCK_API_KEY"]);
        assert!(provider_env_keys("model = \"gpt-5\"").is_empty());
        assert!(provider_env_keys("not [ toml").is_empty());
    }

    #[test]
    fn argv_for_a_new_and_a_resumed_thread() {
        let adapter = CodexAdapter::new(CodexOptions {
            provider: Some(CodexProvider {
                id: "mock".into(),
                name: "Mock".into(),
                base_url: "http://127.0.0.1:1/v1".into(),
                env_key: "MOCK_API_KEY".into(),
                request_max_retries: 3,
                stream_max_retries: 3,
            }),
            ..CodexOptions::default()
        })
        .unwrap();
        let args = adapter.args(&req(None));
        assert_eq!(&args[..2], ["exec", "--json"]);
        assert_eq!(args.last().unwrap(), "-");
        let line = args.join(" ");
        assert!(
            line.contains("-c sandbox_mode=\"workspace-write\""),
            "{line}"
        );
        assert!(line.contains("-c approval_policy=\"never\""), "{line}");
        assert!(line.contains("-c analytics.enabled=false"), "{line}");
        assert!(
            line.contains("-c model_providers.mock.base_url=\"http://127.0.0.1:1/v1\""),
            "{line}"
        );
        assert!(line.contains("--model gpt-5.5"), "{line}");

        let args = adapter.args(&req(Some("thread-1")));
        assert_eq!(&args[..3], ["exec", "resume", "--json"]);
        assert_eq!(&args[args.len() - 2..], ["thread-1", "-"]);

        let cmd = adapter.command(&req(None)).unwrap();
        assert_eq!(cmd.get_program(), "codex");
        assert!(
            CodexAdapter::new(CodexOptions {
                provider: Some(CodexProvider {
                    id: "bad id".into(),
                    name: String::new(),
                    base_url: String::new(),
                    env_key: String::new(),
                    request_max_retries: 0,
                    stream_max_retries: 0,
                }),
                ..CodexOptions::default()
            })
            .is_err()
        );
    }

    #[test]
    fn a_resumed_thread_reports_only_the_step_s_own_usage() {
        let mut a = CodexAdapter::new(CodexOptions::default()).unwrap();
        let step = |a: &mut CodexAdapter, input: u64, output: u64| {
            a.parse_stdout(r#"{"type":"thread.started","thread_id":"t1"}"#);
            let line = format!(
                r#"{{"type":"turn.completed","usage":{{"input_tokens":{input},"cached_input_tokens":0,"output_tokens":{output}}}}}"#
            );
            let events = a.parse_stdout(&line);
            a.finish(Some(0));
            match &events[..] {
                [AgentEvent::Result { usage, .. }] => *usage,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(step(&mut a, 2500, 41).input_tokens, 2500);
        let second = step(&mut a, 4000, 44);
        assert_eq!((second.input_tokens, second.output_tokens), (1500, 3));
        // A smaller figure is not cumulative: taken as is.
        assert_eq!(step(&mut a, 100, 1).input_tokens, 100);
    }

    #[test]
    fn prices_match_the_longest_prefix() {
        assert_eq!(price_for(Some("gpt-5-mini-2025")).model, "gpt-5-mini");
        assert_eq!(price_for(Some("gpt-5-codex")).model, "gpt-5");
        assert_eq!(price_for(Some("something-else")), FALLBACK_PRICE);
        assert_eq!(price_for(None), FALLBACK_PRICE);
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            ..Usage::default()
        };
        assert!((estimate_cost(Some("gpt-5"), &usage) - 11.25).abs() < 1e-9);
    }

    #[test]
    fn file_changes_errors_and_waits() {
        let mut a = CodexAdapter::new(CodexOptions::default()).unwrap();
        let events = a.parse_stdout(
            r#"{"type":"item.completed","item":{"id":"i","type":"file_change","changes":[{"path":"/r/a.rs","kind":"update"},{"path":"/r/b.rs","kind":"add"}],"status":"completed"}}"#,
        );
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, AgentEvent::FileEdited { .. }))
                .count(),
            2
        );
        let events = a.parse_stdout(r#"{"type":"error","message":"Rate limit reached for gpt-5. Please try again in 20s."}"#);
        assert_eq!(
            events,
            vec![AgentEvent::RateLimited {
                retry_after: Some(Duration::from_secs(20)),
                message: "Rate limit reached for gpt-5. Please try again in 20s.".into()
            }]
        );
        let events = a.parse_stdout(r#"{"type":"item.completed","item":{"id":"e","type":"error","message":"Model metadata for `x` not found"}}"#);
        assert!(matches!(
            &events[..],
            [AgentEvent::Error {
                recoverable: true,
                ..
            }]
        ));
        assert!(matches!(
            &a.parse_stdout(r#"{"type":"item.completed","item":{"type":"new_kind"}}"#)[..],
            [AgentEvent::Unknown { .. }]
        ));
        assert!(matches!(&a.finish(Some(1))[..], [AgentEvent::Error { .. }]));
        assert!(a.finish(Some(0)).is_empty());
        assert_eq!(
            retry_after_in("try again in 1.5s"),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            retry_after_in("try again in 2m"),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            retry_after_in("try again in 250ms"),
            Some(Duration::from_millis(250))
        );
    }
}
