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

/// The tools a read-only reviewer session may use (Claude Code's names).
pub const CLAUDE_READ_ONLY_TOOLS: &[&str] = &["Read", "Glob", "Grep"];
/// The tools a reviewer session is refused outright (Claude Code's names).
pub const CLAUDE_WRITE_TOOLS: &[&str] = &["Bash", "Edit", "Write", "MultiEdit", "NotebookEdit"];
/// The tools a read-only reviewer session may use (Gemini CLI's names).
pub const GEMINI_READ_ONLY_TOOLS: &[&str] = &[
    "read_file",
    "read_many_files",
    "list_directory",
    "glob",
    "search_file_content",
];

/// The adapter of the independent reviewer (issue 34 point 3): the agent `[agent]` names, read
/// only as far as the agent CLI can say so — Claude Code in its `default` permission mode with
/// only the read tools allowed and the writing tools refused, Codex in its `read-only`
/// sandbox, Gemini in its `default` approval mode with only the read tools. No hooks of pawl's
/// (the session belongs to no step). pawl does not trust these flags alone: the engine compares
/// the tree before and after the session (`pawl_engine::verify::reviewer`). `None` for the
/// command and replay agents, which are no reviewer.
pub fn build_reviewer_adapter(
    config: &AgentConfig,
    options: &AdapterOptions,
) -> Result<Option<Box<dyn Adapter>>, AgentError> {
    crate::env::check_nested(config.kind, &options.parent_env, options.force_nested)?;
    let extra = options.extra_passthrough.clone();
    let strings = |tools: &[&str]| tools.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
    Ok(match config.kind {
        AgentKind::Replay | AgentKind::Command => None,
        AgentKind::Claude => Some(Box::new(ClaudeAdapter::new(ClaudeOptions {
            program: program_or(&config.command, "claude"),
            model: model(config),
            permission_mode: "default".into(),
            allowed_tools: strings(CLAUDE_READ_ONLY_TOOLS),
            extra_args: vec!["--disallowedTools".into(), CLAUDE_WRITE_TOOLS.join(",")],
            extra_passthrough: extra,
            ..ClaudeOptions::default()
        })?)),
        AgentKind::Codex => Some(Box::new(CodexAdapter::new(CodexOptions {
            program: program_or(&config.command, "codex"),
            model: model(config),
            sandbox: "read-only".into(),
            extra_passthrough: extra,
            ..CodexOptions::default()
        })?)),
        AgentKind::Gemini => Some(Box::new(GeminiAdapter::new(GeminiOptions {
            program: program_or(&config.command, "gemini"),
            model: model(config),
            approval_mode: "default".into(),
            allowed_tools: strings(GEMINI_READ_ONLY_TOOLS),
            extra_passthrough: extra,
            ..GeminiOptions::default()
        })?)),
    })
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
    fn the_reviewer_adapter_is_read_only_as_far_as_each_cli_can_say() {
        let req = crate::StepRequest {
            prompt: "p".into(),
            cwd: "/tmp".into(),
            run_id: "r".into(),
            iteration: 1,
            resume_session: None,
            session_spent_usd: None,
            model: None,
            env: Vec::new(),
        };
        let argv = |kind| {
            let a = build_reviewer_adapter(&config(kind), &AdapterOptions::default())
                .unwrap()
                .unwrap();
            let cmd = a.command(&req).unwrap();
            cmd.get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        let has = |args: &[String], pair: [&str; 2]| {
            args.windows(2).any(|w| w[0] == pair[0] && w[1] == pair[1])
        };
        let claude = argv(AgentKind::Claude);
        assert!(has(&claude, ["--permission-mode", "default"]), "{claude:?}");
        assert!(
            has(&claude, ["--allowedTools", "Read,Glob,Grep"]),
            "{claude:?}"
        );
        assert!(
            has(
                &claude,
                [
                    "--disallowedTools",
                    "Bash,Edit,Write,MultiEdit,NotebookEdit"
                ]
            ),
            "{claude:?}"
        );
        assert!(
            !claude.iter().any(|a| a == "--settings"),
            "no hooks: {claude:?}"
        );
        let codex = argv(AgentKind::Codex);
        assert!(
            has(&codex, ["-c", "sandbox_mode=\"read-only\""]),
            "{codex:?}"
        );
        let gemini = argv(AgentKind::Gemini);
        assert!(has(&gemini, ["--approval-mode", "default"]), "{gemini:?}");
        for kind in [AgentKind::Command, AgentKind::Replay] {
            let mut c = config(kind);
            c.command = vec!["sh".into()];
            assert!(
                build_reviewer_adapter(&c, &AdapterOptions::default())
                    .unwrap()
                    .is_none()
            );
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
