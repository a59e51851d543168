//! pawl-hooks: the hook protocols of the agent CLIs pawl drives in-session (Claude Code, Codex,
//! Gemini CLI), and the installers that merge pawl's hooks into their settings files.
//!
//! - [`input`]: a hook's stdin JSON as typed events, per CLI, with an `Unknown` fallback so a new
//!   event or field never breaks a hook.
//! - [`answer`]: pawl's decision (allow, deny a tool, block a stop, add context) written in each
//!   CLI's protocol.
//! - [`install`]: merge into / remove from the agents' settings (`.claude/settings.local.json`
//!   or, shared, `.claude/settings.json`; `.codex/hooks.json`; `.gemini/settings.json`), a
//!   Claude Code plugin, and Claude's `permissions.allow`.
//! - [`agent_rules`]: the agent CLIs' own deny rules for pawl's files (Claude Code's
//!   `permissions.deny`, a Codex permission profile, a Gemini CLI policy file).
//! - [`marker`]: the small "armed" marker in `.pawl/` that lets a hook for a session that belongs
//!   to no run answer at once, and the pure routing decision made from it.
//! - [`patch`]: the paths an `apply_patch` body writes.
//!
//! What this crate is not: it does no I/O beyond nothing at all — it reads no files, runs no
//! checks and opens no store. The CLI (`pawl hook`) does that and calls in here.

pub mod agent_rules;
pub mod answer;
pub mod input;
pub mod install;
pub mod marker;
pub mod patch;

use serde::{Deserialize, Serialize};

pub use answer::Answer;
pub use input::{Event, HookInput, ToolCall};

/// The agent CLIs whose hooks pawl speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
}

impl Agent {
    pub const ALL: [Agent; 3] = [Agent::Claude, Agent::Codex, Agent::Gemini];

    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    /// Parses `claude`, `codex` or `gemini` (case-insensitive).
    pub fn parse(s: &str) -> Option<Agent> {
        Agent::ALL
            .into_iter()
            .find(|a| a.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The hook events pawl handles, in pawl's words (each CLI names them its own way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookKind {
    /// Claude/Codex `SessionStart`, Gemini `SessionStart`.
    SessionStart,
    /// Claude/Codex `PreToolUse`, Gemini `BeforeTool`.
    PreToolUse,
    /// Claude/Codex `PostToolUse`, Gemini `AfterTool`.
    PostToolUse,
    /// Claude/Codex `Stop`, Gemini `AfterAgent`.
    Stop,
    /// Claude/Codex `PreCompact`, Gemini `PreCompress`.
    PreCompact,
}

impl HookKind {
    pub const ALL: [HookKind; 5] = [
        HookKind::SessionStart,
        HookKind::PreToolUse,
        HookKind::PostToolUse,
        HookKind::Stop,
        HookKind::PreCompact,
    ];

    /// The word used on pawl's command line: `pawl hook <agent> <word>`.
    pub fn as_arg(self) -> &'static str {
        match self {
            HookKind::SessionStart => "session-start",
            HookKind::PreToolUse => "pre-tool-use",
            HookKind::PostToolUse => "post-tool-use",
            HookKind::Stop => "stop",
            HookKind::PreCompact => "pre-compact",
        }
    }

    /// Parses pawl's word or any CLI's event name (`Stop`, `AfterAgent`, `BeforeTool`, ...).
    pub fn parse(s: &str) -> Option<HookKind> {
        let norm: String = s
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        match norm.as_str() {
            "sessionstart" => Some(HookKind::SessionStart),
            "pretooluse" | "beforetool" => Some(HookKind::PreToolUse),
            "posttooluse" | "aftertool" => Some(HookKind::PostToolUse),
            "stop" | "afteragent" => Some(HookKind::Stop),
            "precompact" | "precompress" => Some(HookKind::PreCompact),
            _ => None,
        }
    }

    /// The event's name in `agent`'s settings and stdin.
    pub fn event_name(self, agent: Agent) -> &'static str {
        match (agent, self) {
            (_, HookKind::SessionStart) => "SessionStart",
            (Agent::Gemini, HookKind::PreToolUse) => "BeforeTool",
            (_, HookKind::PreToolUse) => "PreToolUse",
            (Agent::Gemini, HookKind::PostToolUse) => "AfterTool",
            (_, HookKind::PostToolUse) => "PostToolUse",
            (Agent::Gemini, HookKind::Stop) => "AfterAgent",
            (_, HookKind::Stop) => "Stop",
            (Agent::Gemini, HookKind::PreCompact) => "PreCompress",
            (_, HookKind::PreCompact) => "PreCompact",
        }
    }
}

impl std::fmt::Display for HookKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_arg())
    }
}

/// Errors of this crate: foreign JSON that is not even JSON, or a settings file of the wrong shape.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("the hook input is not JSON: {0}")]
    InputNotJson(serde_json::Error),
    #[error("{file} is not valid JSON: {source}")]
    SettingsNotJson {
        file: String,
        source: serde_json::Error,
    },
    #[error("{file}: `{key}` must be {expected}; pawl leaves the file alone")]
    SettingsShape {
        file: String,
        key: String,
        expected: &'static str,
    },
}
