//! Building the adapter a `pawl.toml` asks for.

use std::path::PathBuf;

use pawl_core::config::{AgentConfig, AgentKind};

use crate::command::CommandAdapter;
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
        other => Err(AgentError::Config(format!(
            "agent kind {other} is not available yet"
        ))),
    }
}
