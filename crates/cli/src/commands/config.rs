//! `pawl config show`: the effective configuration and where each value came from.

use clap::Subcommand;
use pawl_core::ExitCode;
use pawl_core::config::render_annotated;
use serde_json::json;

use crate::ctx::Ctx;
use crate::error::CliResult;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective configuration and where each value came from.
    Show,
}

pub fn run(ctx: &mut Ctx, cmd: &ConfigCommand) -> CliResult<ExitCode> {
    match cmd {
        ConfigCommand::Show => {
            let eff = ctx.config(&[])?;
            let sources: serde_json::Map<String, serde_json::Value> = eff
                .sources
                .iter()
                .map(|(k, s)| (k.clone(), json!({"source": s.to_string(), "detail": s})))
                .collect();
            let value = json!({"config": eff.config, "sources": sources, "warnings": eff.warnings});
            ctx.emit(&value, || render_annotated(&eff))?;
            Ok(ExitCode::Done)
        }
    }
}
