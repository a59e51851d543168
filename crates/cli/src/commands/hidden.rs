//! `pawl hidden add|list|remove`: the user's hidden checks for this repository — checks the
//! agent is never shown, kept in the user's pawl state (`crate::hidden`), sealed into every run
//! started here from then on (a started run keeps its seal; `pawl resume --reseal` takes the
//! list again).

use clap::{Args, Subcommand};
use pawl_core::ExitCode;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::hidden;

#[derive(Debug, Subcommand)]
pub enum HiddenCommand {
    /// Add (or replace) a hidden check of this repository.
    Add(AddArgs),
    /// The hidden checks of this repository (names; `--show` prints their commands).
    List(ListArgs),
    /// Remove a hidden check of this repository.
    Remove(RemoveArgs),
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// Its name (letters, digits, `-`, `_`); runs call it `hidden-<NAME>`.
    pub name: String,
    /// The shell command; it passes when it exits 0.
    pub command: String,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Also print each check's command.
    #[arg(long)]
    pub show: bool,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    pub name: String,
}

pub fn run(ctx: &mut Ctx, cmd: &HiddenCommand) -> CliResult<ExitCode> {
    // Hidden checks are the user's: an agent session (which sets these) is not shown them.
    // (A sandboxed step cannot see the user's pawl state at all; in session mode the guard
    // protects it.)
    if let Some((var, _)) = crate::session_mode::SESSION_ENV
        .iter()
        .find(|(var, _)| std::env::var_os(var).is_some_and(|v| !v.is_empty()))
    {
        return Err(CliError::Failed(format!(
            "`pawl hidden` is for you, not the agent: this process runs inside an agent session ({var} is set); run it from your own terminal"
        )));
    }
    let key = hidden::repo_key(&ctx.root);
    match cmd {
        HiddenCommand::Add(a) => {
            hidden::valid_name(&a.name).map_err(CliError::Usage)?;
            if a.command.trim().is_empty() {
                return Err(CliError::Usage(format!(
                    "the hidden check `{}` has an empty command",
                    a.name
                )));
            }
            let mut list = hidden::load()?;
            let replaced = list
                .entry(key)
                .or_default()
                .insert(a.name.clone(), a.command.clone())
                .is_some();
            hidden::save(&list)?;
            let verb = if replaced { "replaced" } else { "added" };
            if ctx.json {
                ctx.json_line(
                    &serde_json::json!({"kind": "hidden", "name": a.name, "result": verb}),
                )?;
            } else {
                ctx.say(format!(
                    "{verb} the hidden check `{}` for this repository (kept in {}; runs started from now on seal it)",
                    a.name,
                    hidden::list_path()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                ))?;
            }
        }
        HiddenCommand::List(l) => {
            let checks = hidden::for_repo(&ctx.root)?;
            if ctx.json {
                let rows: Vec<serde_json::Value> = checks
                    .iter()
                    .map(|(n, c)| {
                        if l.show {
                            serde_json::json!({"name": n, "command": c})
                        } else {
                            serde_json::json!({"name": n})
                        }
                    })
                    .collect();
                ctx.json_line(&serde_json::json!({"kind": "hidden", "checks": rows}))?;
            } else if checks.is_empty() {
                ctx.say(
                    "no hidden checks for this repository (`pawl hidden add NAME '<command>'`)",
                )?;
            } else {
                for (n, c) in &checks {
                    if l.show {
                        ctx.say(format!("{n}\t{c}"))?;
                    } else {
                        ctx.say(n)?;
                    }
                }
            }
        }
        HiddenCommand::Remove(r) => {
            let mut list = hidden::load()?;
            let removed = list.get_mut(&key).and_then(|m| m.remove(&r.name)).is_some();
            if !removed {
                return Err(CliError::Usage(format!(
                    "this repository has no hidden check `{}` (`pawl hidden list`)",
                    r.name
                )));
            }
            list.retain(|_, m| !m.is_empty());
            hidden::save(&list)?;
            ctx.say(format!("removed the hidden check `{}`", r.name))?;
        }
    }
    Ok(ExitCode::Done)
}
