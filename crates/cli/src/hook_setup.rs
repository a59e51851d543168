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
use pawl_hooks::agent_rules::{self, PawlFiles};
use pawl_hooks::install;
use serde::{Deserialize, Serialize};

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
        install_rules(ctx, agent, created, unchanged, notes)?;
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
        remove_rules(ctx, agent, &mut report.removed)?;
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

// ---------------------------------------------------------------- the agents' own deny rules

/// What `pawl init --agent` added to the agents' own permission settings
/// (`.pawl/agent-rules.json`): `--remove` takes out exactly this.
#[derive(Debug, Default, Serialize, Deserialize)]
struct AddedRules {
    /// Claude Code `permissions.deny` entries that were not there before.
    #[serde(default)]
    claude_deny: Vec<String>,
    /// The Gemini CLI policy file pawl wrote.
    #[serde(default)]
    gemini_policy: Option<PathBuf>,
}

fn added_rules_path(ctx: &Ctx) -> PathBuf {
    ctx.state_dir().join("agent-rules.json")
}

fn read_added(ctx: &Ctx) -> CliResult<AddedRules> {
    Ok(read_optional(&added_rules_path(ctx))?
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default())
}

fn write_added(ctx: &Ctx, added: &AddedRules) -> CliResult {
    let text = serde_json::to_string_pretty(added)
        .map_err(|e| CliError::Failed(format!("cannot record the agents' rules: {e}")))?;
    write_file(&added_rules_path(ctx), &text)
}

/// pawl's paths on this machine, for the agents' rules.
fn pawl_files(ctx: &Ctx) -> PawlFiles {
    let mut binaries = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        for p in [exe.canonicalize().ok(), Some(exe)].into_iter().flatten() {
            if !binaries.contains(&p) {
                binaries.push(p);
            }
        }
    }
    PawlFiles {
        root: ctx.root.clone(),
        state_dir: crate::state::user_state_dir(),
        binaries,
    }
}

/// Where Gemini CLI keeps the user's policies: `$GEMINI_CLI_HOME/.gemini/policies`, else
/// `~/.gemini/policies`.
fn gemini_policies_dir() -> Option<PathBuf> {
    let home = std::env::var_os("GEMINI_CLI_HOME")
        .filter(|v| !v.is_empty())
        .or_else(|| std::env::var_os("HOME"))?;
    Some(PathBuf::from(home).join(".gemini").join("policies"))
}

/// Writes `agent`'s own rules that keep the agent from writing pawl's files.
fn install_rules(
    ctx: &Ctx,
    agent: Agent,
    created: &mut Vec<String>,
    unchanged: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> CliResult {
    let files = pawl_files(ctx);
    let mut added = read_added(ctx)?;
    match agent {
        Agent::Claude => {
            let rel = install::settings_path(agent);
            let path = ctx.root.join(rel);
            let existing = read_optional(&path)?;
            let rules = agent_rules::claude_rules(&files);
            let (text, new) = agent_rules::merge_claude_rules(rel, existing.as_deref(), &rules)?;
            if new.is_empty() {
                unchanged.push(format!("{rel} (pawl's deny rules already there)"));
                return Ok(());
            }
            write_file(&path, &text)?;
            created.push(format!(
                "{rel}: {} permissions.deny rule(s) for pawl's files",
                new.len()
            ));
            for r in new {
                if !added.claude_deny.contains(&r) {
                    added.claude_deny.push(r);
                }
            }
            write_added(ctx, &added)?;
        }
        Agent::Codex => {
            let rel = ".codex/config.toml";
            let path = ctx.root.join(rel);
            let existing = read_optional(&path)?;
            let profile = agent_rules::codex_profile(&files, &|p| p.exists());
            let merged = agent_rules::merge_codex_profile(rel, existing.as_deref(), &profile)?;
            if let Some(why) = merged.skipped {
                notes.push(why);
            } else if merged.changed {
                write_file(&path, &merged.text)?;
                created.push(format!(
                    "{rel}: the permission profile `{}` (pawl's files read-only in Codex's sandbox)",
                    agent_rules::CODEX_PROFILE
                ));
            } else {
                unchanged.push(format!("{rel} (pawl's permission profile already there)"));
            }
            notes.push(
                "Codex applies pawl's permission profile only while no `sandbox_mode` is set (in ~/.codex/config.toml, a profile or `--sandbox`/`--full-auto`) and not with `--dangerously-bypass-approvals-and-sandbox`; pawl's guard judges every command either way."
                    .into(),
            );
        }
        Agent::Gemini => {
            let Some(dir) = gemini_policies_dir() else {
                notes.push("no HOME: pawl wrote no Gemini CLI policy for its files".into());
                return Ok(());
            };
            let Some(text) = agent_rules::gemini_policy(&files) else {
                notes.push("a path of pawl's cannot be written in a Gemini policy (it holds a quote): pawl wrote none".into());
                return Ok(());
            };
            let path = dir.join(agent_rules::gemini_policy_name(&ctx.root));
            if read_optional(&path)?.as_deref() == Some(text.as_str()) {
                unchanged.push(format!("{} (pawl's Gemini policy)", path.display()));
            } else {
                write_file(&path, &text)?;
                created.push(format!(
                    "{}: Gemini CLI policy denying writes to pawl's files",
                    path.display()
                ));
            }
            added.gemini_policy = Some(path);
            write_added(ctx, &added)?;
        }
    }
    Ok(())
}

/// Takes out exactly the rules `pawl init --agent` added for `agent`.
fn remove_rules(ctx: &Ctx, agent: Agent, removed: &mut Vec<String>) -> CliResult {
    let mut added = read_added(ctx)?;
    match agent {
        Agent::Claude => {
            if added.claude_deny.is_empty() {
                return Ok(());
            }
            let rel = install::settings_path(agent);
            let path = ctx.root.join(rel);
            if let Some(existing) = read_optional(&path)? {
                match agent_rules::remove_claude_rules(rel, &existing, &added.claude_deny)? {
                    Some(text) if text != existing => write_atomic(&path, &text)?,
                    Some(_) => {}
                    None => std::fs::remove_file(&path)
                        .map_err(CliError::io(format!("cannot remove {}", path.display())))?,
                }
                removed.push(format!(
                    "{rel}: {} pawl deny rule(s)",
                    added.claude_deny.len()
                ));
            }
            added.claude_deny.clear();
        }
        Agent::Codex => {
            let rel = ".codex/config.toml";
            let path = ctx.root.join(rel);
            if let Some(existing) = read_optional(&path)? {
                let r = agent_rules::remove_codex_profile(rel, &existing)?;
                if r.removed > 0 {
                    match r.text {
                        Some(text) => write_atomic(&path, &text)?,
                        None => {
                            std::fs::remove_file(&path).map_err(CliError::io(format!(
                                "cannot remove {}",
                                path.display()
                            )))?;
                            if let Some(dir) = path.parent() {
                                let _ = std::fs::remove_dir(dir);
                            }
                        }
                    }
                    removed.push(format!("{rel}: pawl's permission profile"));
                }
            }
            return Ok(());
        }
        Agent::Gemini => {
            let Some(path) = added.gemini_policy.take() else {
                return Ok(());
            };
            match std::fs::remove_file(&path) {
                Ok(()) => removed.push(path.display().to_string()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(CliError::Io {
                        context: format!("cannot remove {}", path.display()),
                        source: e,
                    });
                }
            }
        }
    }
    if ctx.state_dir().is_dir() {
        write_added(ctx, &added)?;
    }
    Ok(())
}

/// The pawl binaries the hooks installed in the repository's agent settings run (absolute
/// paths as written, and where they really are): the run's guard protects them.
pub fn installed_binaries(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Agent::ALL
        .iter()
        .map(|a| root.join(install::settings_path(*a)))
        .collect();
    files.push(root.join(".claude/settings.local.json"));
    let mut out: Vec<PathBuf> = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for program in install::pawl_programs(&text) {
            let p = PathBuf::from(program);
            if !p.is_absolute() {
                continue;
            }
            for q in [Some(p.clone()), p.canonicalize().ok()]
                .into_iter()
                .flatten()
            {
                if !out.contains(&q) {
                    out.push(q);
                }
            }
        }
    }
    out
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
