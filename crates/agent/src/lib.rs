//! pawl-agent: one module per agent program pawl drives, all speaking one event vocabulary.
//!
//! An [`Adapter`] knows how to start one step of its agent (argv, environment, stdin) and how to
//! turn each line the agent prints into [`AgentEvent`]s. The engine spawns the step through
//! pawl-process, feeds lines to the adapter, and decides from the events; it never needs to know
//! which agent it drives. Foreign streams are parsed into tagged enums with an `Unknown`
//! fallback: a new event type from an agent CLI is recorded, never a crash.
//!
//! What this crate is not: the loop (pawl-engine), the checks (pawl-verify), or the hooks.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub mod claude;
pub mod codex;
pub mod command;
pub mod env;
mod factory;
pub mod gemini;
pub mod pins;
pub mod replay;
pub mod transcript;

pub use factory::{
    AdapterOptions, agent_program, build_adapter, build_reviewer_adapter, install_hint,
};

/// The row of a price table whose model prefix is the longest one `model` starts with (price
/// tables list prefixes: `gpt-5` and `gpt-5-mini`, `claude-opus` and `claude-opus-4-1`).
pub(crate) fn longest_prefix<'t, T>(
    table: &'t [T],
    model: Option<&str>,
    prefix: impl Fn(&T) -> &str,
) -> Option<&'t T> {
    let model = model?;
    table
        .iter()
        .filter(|row| model.starts_with(prefix(row)))
        .max_by_key(|row| prefix(row).len())
}

/// Token usage, as reported by the agent (or summed over a step).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl Usage {
    /// All tokens (saturating: counts come from foreign streams and scenarios).
    pub fn total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_read_tokens)
            .saturating_add(self.cache_write_tokens)
    }

    /// Input tokens as pawl charges them: fresh input plus cache reads and writes (saturating).
    pub fn input_total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_read_tokens)
            .saturating_add(self.cache_write_tokens)
    }

    /// Adds another usage (saturating, so a hostile count cannot overflow).
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self
            .cache_write_tokens
            .saturating_add(other.cache_write_tokens);
    }
}

/// One thing an agent did or said, in pawl's vocabulary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// The agent started (or resumed) a session; the id lets the next step resume it.
    SessionStarted {
        session_id: String,
        model: Option<String>,
    },
    /// Assistant text.
    Text { text: String },
    /// The agent called a tool.
    ToolCall {
        id: Option<String>,
        name: String,
        input: serde_json::Value,
    },
    /// A tool's result came back.
    ToolResult {
        id: Option<String>,
        is_error: bool,
        output: String,
    },
    /// A file was written or edited (from a tool call, a hook, or the replay script).
    FileEdited { path: String },
    /// A tool use was refused by the agent's permission system.
    PermissionDenied { tool: String, detail: String },
    /// The provider said to wait: HTTP 429, a usage limit, overloaded. Not a failure, not a stall.
    RateLimited {
        retry_after: Option<Duration>,
        message: String,
    },
    /// An error from the agent or its provider.
    Error { message: String, recoverable: bool },
    /// The step's final accounting.
    Result {
        is_error: bool,
        subtype: Option<String>,
        text: Option<String>,
        usage: Usage,
        /// Dollars reported by the agent, or estimated by pawl from a price table.
        cost_usd: Option<f64>,
        cost_estimated: bool,
        num_turns: Option<u32>,
    },
    /// The agent claims the work is done. Only a hint: it triggers verification, nothing more.
    ClaimDone { text: String },
    /// A line the adapter did not recognise (kept for the log and the report).
    Unknown { raw: String },
}

/// Everything needed to start one step.
#[derive(Debug, Clone)]
pub struct StepRequest {
    pub prompt: String,
    pub cwd: PathBuf,
    pub run_id: String,
    /// 1-based iteration number.
    pub iteration: u32,
    /// The session to continue, when the agent supports resuming.
    pub resume_session: Option<String>,
    /// What pawl has already charged for `resume_session` (its earlier steps): an agent that
    /// reports the session's running total (Claude Code's `total_cost_usd`) is charged the
    /// growth of that total, also in the first step after pawl itself restarted.
    pub session_spent_usd: Option<f64>,
    pub model: Option<String>,
    /// Extra environment for the agent (already filtered by the caller).
    pub env: Vec<(String, String)>,
}

/// Errors building a step.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("agent configuration: {0}")]
    Config(String),
    #[error("cannot read the replay scenario {path}: {message}")]
    Scenario { path: PathBuf, message: String },
    #[error(
        "refusing to start {agent} from inside a {agent} session (a runaway loop); pass --force-nested to override"
    )]
    Nested { agent: String },
}

/// One agent program.
pub trait Adapter: Send {
    /// A short name (`claude`, `codex`, `replay`, ...).
    fn name(&self) -> &str;

    /// The command for one step. The engine adds timeouts, the log file and the line sink.
    fn command(&self, req: &StepRequest) -> Result<pawl_process::Command, AgentError>;

    /// Turns one stdout line into events. Adapters may keep state across lines.
    fn parse_stdout(&mut self, line: &str) -> Vec<AgentEvent>;

    /// Turns one stderr line into events (usage-limit messages often arrive here).
    fn parse_stderr(&mut self, line: &str) -> Vec<AgentEvent> {
        let _ = line;
        Vec::new()
    }

    /// Called once when the step's process has ended (`exit_code` is `None` when it was killed
    /// by a signal or a timeout), after the last line. Returns the events the stream itself
    /// could not carry, e.g. a final `Result` for an agent that printed none, and resets the
    /// adapter's per-step state so the same adapter serves the next iteration.
    fn finish(&mut self, exit_code: Option<i32>) -> Vec<AgentEvent> {
        let _ = exit_code;
        Vec::new()
    }
}

impl AgentEvent {
    /// One line of pawl's own event stream (what the replay agent prints and what a `command`
    /// agent may print): the serde form of the event, without a trailing newline.
    pub fn to_json_line(&self) -> String {
        // Serialising this enum cannot fail (string keys, no non-finite floats are produced by
        // pawl itself); a non-finite cost from a hand-made event degrades to an Unknown line.
        serde_json::to_string(self).unwrap_or_else(|err| {
            format!(r#"{{"type":"unknown","raw":"unserialisable event: {err}"}}"#)
        })
    }

    /// Parses a line in pawl's own event form; `None` when it is not one.
    pub fn from_json_line(line: &str) -> Option<AgentEvent> {
        let trimmed = line.trim();
        if !trimmed.starts_with('{') {
            return None;
        }
        serde_json::from_str(trimmed).ok()
    }
}
