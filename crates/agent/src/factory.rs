//! Building the adapter a `pawl.toml` asks for.

use std::path::PathBuf;

use pawl_core::config::{AgentConfig, AgentKind};

use crate::claude::{ClaudeAdapter, ClaudeOptions};
use crate::codex::{CodexAdapter, CodexOptions};
use crate::command::CommandAdapter;
use crate::gemini::{GeminiAdapter, GeminiOptions};
use crate::replay::ReplayAdapter;
use crate::{Adapter, AgentError};

/// What the factory needs besides `[agent]`.
#[derive(Debug, Clone, Default)]
pub struct AdapterOptions {
    /// The scenario file for `kind = "replay"`.
    pub replay_scenario: Option<PathBuf>,
    /// The program that understands `__replay` (default: pawl's own executable).
    pub replay_program: Option<PathBuf>,
    /// pawl's own environment (the CLI reads it), for the nested-session check.
    pub parent_env: Vec<(String, String)>,
    /// Start the agent even from inside a session of the same agent.
    pub force_nested: bool,
    /// More variable names passed through to the agent (e.g. a custom provider's key).
    pub extra_passthrough: Vec<String>,
    /// Claude: the `--settings` value (a path or inline JSON, see `claude::settings_json`).
    pub claude_settings: Option<String>,
    /// Codex: pass `--dangerously-bypass-hook-trust` (pawl installed its own hooks).
    pub codex_bypass_hook_trust: bool,
    /// Codex: pawl's hook command (`<pawl> hook codex`) for this run's `PreToolUse` guard.
    pub codex_hook_command: Option<String>,
    /// The step runs in pawl's Landlock sandbox. Codex's own sandbox (bubblewrap: a user
    /// namespace and mounts) cannot start inside a Landlock domain, which forbids mounting, so
    /// Codex is told `sandbox_mode = "danger-full-access"`: pawl's sandbox is the boundary.
    pub in_pawl_sandbox: bool,
}

/// The adapter for `[agent]`. Fails on an incomplete configuration, an unreadable or invalid
/// replay scenario, or a nested session of the same agent (unless forced).
pub fn build_adapter(
    config: &AgentConfig,
    options: &AdapterOptions,
) -> Result<Box<dyn Adapter>, AgentError> {
    crate::env::check_nested(config.kind, &options.parent_env, options.force_nested)?;
    let extra = options.extra_passthrough.clone();
    match config.kind {
        AgentKind::Replay => {
            let path = options.replay_scenario.clone().ok_or_else(|| {
                AgentError::Config("kind = \"replay\" needs a scenario file (--scenario)".into())
            })?;
            let mut adapter = ReplayAdapter::new(path)?.extra_passthrough(extra);
            if let Some(program) = &options.replay_program {
                adapter = adapter.program(program);
            }
            Ok(Box::new(adapter))
        }
        AgentKind::Command => Ok(Box::new(
            CommandAdapter::new(config.command.clone())?.extra_passthrough(extra),
        )),
        AgentKind::Claude => Ok(Box::new(ClaudeAdapter::new(ClaudeOptions {
            program: program_or(&config.command, "claude"),
            model: model(config),
            settings: options.claude_settings.clone(),
            extra_passthrough: extra,
            ..ClaudeOptions::default()
        })?)),
        AgentKind::Codex => Ok(Box::new(CodexAdapter::new(CodexOptions {
            program: program_or(&config.command, "codex"),
            model: model(config),
            bypass_hook_trust: options.codex_bypass_hook_trust,
            hook_command: options.codex_hook_command.clone(),
            extra_passthrough: extra,
            sandbox: if options.in_pawl_sandbox {
                "danger-full-access".into()
            } else {
                CodexOptions::default().sandbox
            },
            ..CodexOptions::default()
        })?)),
        AgentKind::Gemini => Ok(Box::new(GeminiAdapter::new(GeminiOptions {
            program: program_or(&config.command, "gemini"),
            model: model(config),
            extra_passthrough: extra,
            ..GeminiOptions::default()
        })?)),
    }
}

/// `[agent] command` overrides the binary (and leading arguments) of a known agent.
/// The program `[agent]` starts (the first word of `command`, or the CLI's own name), for
/// checking before a run that it can be started. `None` for the replay agent (pawl itself).
pub fn agent_program(config: &AgentConfig) -> Option<String> {
    let default = match config.kind {
        AgentKind::Replay => return None,
        AgentKind::Command => return config.command.first().cloned(),
        AgentKind::Claude => "claude",
        AgentKind::Codex => "codex",
        AgentKind::Gemini => "gemini",
    };
    program_or(&config.command, default).into_iter().next()
}

/// How to get the agent CLI of `kind`, for the message when it cannot be found.
pub fn install_hint(kind: AgentKind) -> &'static str {
    match kind {
        AgentKind::Claude => "install Claude Code (`npm install -g @anthropic-ai/claude-code`)",
        AgentKind::Codex => "install Codex (`npm install -g @openai/codex`)",
        AgentKind::Gemini => "install Gemini CLI (`npm install -g @google/gemini-cli`)",
        AgentKind::Command | AgentKind::Replay => "check [agent] command in pawl.toml",
    }
}

fn program_or(command: &[String], default: &str) -> Vec<String> {
    if command.is_empty() {
        vec![default.to_owned()]
    } else {
        command.to_vec()
    }
}

fn model(config: &AgentConfig) -> Option<String> {
    let model = config.model.trim();
    (!model.is_empty()).then(|| model.to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn config(kind: AgentKind) -> AgentConfig {
        AgentConfig {
            kind,
            ..AgentConfig::default()
        }
    }

    #[test]
    fn every_kind_builds() {
        for kind in [AgentKind::Claude, AgentKind::Codex, AgentKind::Gemini] {
            let adapter = build_adapter(&config(kind), &AdapterOptions::default()).unwrap();
            assert_eq!(adapter.name(), kind.as_str());
        }
        let mut command = config(AgentKind::Command);
        assert!(build_adapter(&command, &AdapterOptions::default()).is_err());
        command.command = vec!["sh".into(), "agent.sh".into()];
        assert_eq!(
            build_adapter(&command, &AdapterOptions::default())
                .unwrap()
                .name(),
            "command"
        );
        assert!(matches!(
            build_adapter(&config(AgentKind::Replay), &AdapterOptions::default()),
            Err(AgentError::Config(_))
        ));
    }

    #[test]
    fn nested_sessions_are_refused() {
        let options = AdapterOptions {
            parent_env: vec![("CLAUDECODE".into(), "1".into())],
            ..AdapterOptions::default()
        };
        assert!(matches!(
            build_adapter(&config(AgentKind::Claude), &options),
            Err(AgentError::Nested { .. })
        ));
        let forced = AdapterOptions {
            force_nested: true,
            ..options
        };
        build_adapter(&config(AgentKind::Claude), &forced).unwrap();
    }
}
