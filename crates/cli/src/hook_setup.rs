//! Setting pawl's hooks up in a repository (`pawl init --agent claude|codex|gemini`,
//! `--plugin[=DIR]` and `--remove`): merging them into an agent's project settings, writing the
//! Claude Code plugin, taking exactly pawl's hooks out again. This module reads and writes the
//! files and says what it did.
//!
//! Not here: the merging itself and the hooks' protocols (pawl-hooks), answering a hook
//! (`commands/hook.rs`), parsing `pawl init`'s flags (`commands/init.rs`).

use std::path::{Path, PathBuf};

use pawl_core::ExitCode;
use pawl_hooks::Agent;
use pawl_hooks::install;
use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::state::{read_optional, write_atomic};

/// The checked plan of `pawl init`'s hook flags.
pub struct Plan {
    pub agents: Vec<Agent>,
    pub plugin: Option<PathBuf>,
}

/// Checks the hook flags: `agent_names` as given to `--agent` (repeatable), `remove` for
/// `--remove`, `plugin` for `--plugin[=DIR]`.
pub fn plan(agent_names: &[String], remove: bool, plugin: Option<&Path>) -> CliResult<Plan> {
    let mut agents = Vec::new();
    for a in agent_names {
        let agent = Agent::parse(a).ok_or_else(|| {
            CliError::Usage(format!(
                "--agent {a}: pawl installs hooks for claude, codex or gemini"
            ))
        })?;
        if !agents.contains(&agent) {
            agents.push(agent);
        }
    }
    if remove && agents.is_empty() && plugin.is_none() {
        // `pawl init --remove`: every agent's settings.
        agents = Agent::ALL.to_vec();
    }
    Ok(Plan {
        agents,
        plugin: plugin.map(Path::to_path_buf),
    })
}

/// The command prefix the hooks run: this pawl binary's absolute path, quoted for the shell.
/// An absolute path because the agent runs hooks with its own PATH, and a hook that is not found
/// (exit 127) silently disables every gate.
fn prefix() -> CliResult<String> {
    let exe = std::env::current_exe().map_err(CliError::io("cannot find the pawl binary"))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    Ok(install::shell_quote(&exe.display().to_string()))
}

pub fn install(
    ctx: &Ctx,
    plan: &Plan,
    created: &mut Vec<String>,
    unchanged: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> CliResult {
    if plan.agents.is_empty() && plan.plugin.is_none() {
        return Ok(());
    }
    let prefix = prefix()?;
    for &agent in &plan.agents {
        let rel = install::settings_path(agent);
        let path = ctx.root.join(rel);
        let existing = read_optional(&path)?;
        let merged = install::merge(agent, rel, existing.as_deref(), &prefix)?;
        if merged.changed {
            write_file(&path, &merged.text)?;
            created.push(format!("{rel}: pawl's {agent} hooks"));
        } else {
            unchanged.push(format!("{rel} (pawl's {agent} hooks already there)"));
        }
        if agent == Agent::Codex {
            notes.push(
                "Codex runs project hooks (.codex/hooks.json) only in a trusted project and only once they are trusted: \
                 review and trust them with /hooks in codex, or pass --dangerously-bypass-hook-trust to `codex exec`. \
                 Untrusted hooks are skipped silently."
                    .into(),
            );
        }
        if agent == Agent::Gemini {
            notes.push(
                "Gemini CLI warns about new project hooks until the folder is trusted (or GEMINI_CLI_TRUST_WORKSPACE=true)."
                    .into(),
            );
        }
    }
    if let Some(dir) = &plan.plugin {
        let dir = absolute(&ctx.root, dir);
        for (rel, text) in install::plugin_files(&prefix, env!("CARGO_PKG_VERSION")) {
            let path = dir.join(rel);
            if read_optional(&path)?.as_deref() == Some(text.as_str()) {
                unchanged.push(path.display().to_string());
            } else {
                write_file(&path, &text)?;
                created.push(path.display().to_string());
            }
        }
        notes.push(format!(
            "load the plugin with `claude --plugin-dir {}`",
            dir.display()
        ));
    }
    Ok(())
}

#[derive(Serialize)]
struct RemoveReport {
    removed: Vec<String>,
    unchanged: Vec<String>,
}

pub fn remove(ctx: &mut Ctx, plan: &Plan) -> CliResult<ExitCode> {
    let mut report = RemoveReport {
        removed: vec![],
        unchanged: vec![],
    };
    for &agent in &plan.agents {
        let rel = install::settings_path(agent);
        let path = ctx.root.join(rel);
        let Some(existing) = read_optional(&path)? else {
            continue;
        };
        let r = install::remove(rel, &existing)?;
        if r.removed == 0 {
            report.unchanged.push(rel.to_string());
            continue;
        }
        match r.text {
            Some(text) => write_atomic(&path, &text)?,
            None => {
                std::fs::remove_file(&path)
                    .map_err(CliError::io(format!("cannot remove {}", path.display())))?;
                // The directory too, when pawl's file was all it held.
                if let Some(dir) = path.parent() {
                    let _ = std::fs::remove_dir(dir);
                }
            }
        }
        report
            .removed
            .push(format!("{rel}: {} pawl hook(s)", r.removed));
    }
    if let Some(dir) = &plan.plugin {
        let dir = absolute(&ctx.root, dir);
        for (rel, _) in install::plugin_files("pawl", env!("CARGO_PKG_VERSION")) {
            let path = dir.join(rel);
            if path.is_file() {
                std::fs::remove_file(&path)
                    .map_err(CliError::io(format!("cannot remove {}", path.display())))?;
                report.removed.push(path.display().to_string());
                if let Some(parent) = path.parent() {
                    let _ = std::fs::remove_dir(parent);
                }
            }
        }
        let _ = std::fs::remove_dir(&dir);
    }
    ctx.emit(&report, || {
        let mut out = String::new();
        for r in &report.removed {
            out.push_str(&format!("  removed   {r}\n"));
        }
        for u in &report.unchanged {
            out.push_str(&format!("  unchanged {u} (no pawl hooks in it)\n"));
        }
        if out.is_empty() {
            out.push_str("No pawl hooks installed here.\n");
        }
        out.trim_end().to_string()
    })?;
    Ok(ExitCode::Done)
}

fn absolute(root: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    }
}

fn write_file(path: &Path, text: &str) -> CliResult {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(CliError::io(format!("cannot create {}", dir.display())))?;
    }
    write_atomic(path, text)
}
