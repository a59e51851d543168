//! `pawl guard check|explain -- <command>`: what the safety guard decides about a command (or a
//! file write) as if a run were active, and why.

use std::sync::Arc;

use clap::{Args, Subcommand};
use pawl_core::ExitCode;
use pawl_guard::{Context, Input, TrackedSet};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::guard_host::{self, HostFs};

#[derive(Debug, Subcommand)]
pub enum GuardCommand {
    /// Decide as if a run were active: prints {decision, rule, reason}; exit 0 allow, 1 deny.
    Check(GuardArgs),
    /// Show the parse, the simple commands found, and the rule that decided.
    Explain(GuardArgs),
}

#[derive(Debug, Args)]
pub struct GuardArgs {
    /// Check a file write by an agent's file tool instead of a shell command.
    #[arg(long, value_name = "PATH")]
    pub write: Option<String>,
    /// The command line (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The guard's view of this repository: cwd, branch, tracked files, aliases, HOME and TMPDIR.
fn context(ctx: &Ctx, run_active: bool) -> CliResult<Context> {
    let cwd = std::env::current_dir().map_err(CliError::io("cannot read the current directory"))?;
    let mut g = Context::new(cwd);
    g.repo_root = Some(ctx.root.clone());
    g.run_active = run_active;
    let repo = guard_host::open_repo(&ctx.root)?;
    g.branch = guard_host::branch_at(&ctx.root, &g.cwd).map_err(CliError::Failed)?;
    // The hook's own path (`guard_host::tracked_set`): the index read in-process, with the
    // submodules' gitlinks, so `pawl guard check` decides as the PreToolUse hook does; git
    // (`ls-files`, modes unknown: the cautious rule) only where the in-process reader is not
    // sure of this index.
    let tracked = match guard_host::tracked_set(&ctx.root) {
        Some(set) => set,
        None => repo
            .tracked_files()?
            .iter()
            .map(|p| p.display().to_string())
            .collect::<TrackedSet>(),
    };
    g.tracked = Arc::new(tracked);
    g.git_aliases = repo.config_aliases().unwrap_or_default();
    g.home = std::env::var_os("HOME").map(Into::into);
    g.tmpdir = std::env::var_os("TMPDIR").map(Into::into);
    g.env = Arc::new(guard_host::shell_env());
    g.fs = Arc::new(HostFs::at(&ctx.root));
    g.scripts = Arc::new(HostFs::default());
    Ok(g)
}

pub fn run(ctx: &mut Ctx, cmd: &GuardCommand) -> CliResult<ExitCode> {
    let (args, explain) = match cmd {
        GuardCommand::Check(a) => (a, false),
        GuardCommand::Explain(a) => (a, true),
    };
    let input = input(args)?;
    let eff = ctx.config(&[])?;
    // `[run] must_not` is part of what a run's guard denies.
    let guard = pawl_core::must_not::guard_policy(&eff.config.guard, &eff.config.run.must_not);
    let policy = guard_host::policy(&guard, &guard_host::Host::current(&[]));
    let mut gctx = context(ctx, true)?;
    guard_host::SealedContext::of_config(&eff.config).apply(&mut gctx);
    let exp = pawl_guard::explain(&input, &gctx, &policy);
    let deny = exp.decision.is_deny();
    if explain {
        ctx.emit(&exp, || {
            let mut out = String::from("parse:\n");
            for line in exp.parse.lines() {
                out.push_str(&format!("  {line}\n"));
            }
            out.push_str("commands:\n");
            if exp.commands.is_empty() {
                out.push_str("  (none)\n");
            }
            for c in &exp.commands {
                out.push_str(&format!("  {}    [{}]\n", c.argv.join(" "), c.origin));
            }
            out.push_str(&decision_line(&exp.decision));
            out
        })?;
    } else {
        ctx.emit(&exp.decision, || decision_line(&exp.decision))?;
    }
    Ok(if deny {
        ExitCode::Error
    } else {
        ExitCode::Done
    })
}

fn decision_line(d: &pawl_guard::Decision) -> String {
    let rule = d
        .rule
        .map(|r| format!(" [{}]", r.as_str()))
        .unwrap_or_default();
    format!(
        "{}{rule}: {}",
        if d.is_deny() { "deny" } else { "allow" },
        d.reason
    )
}

fn input(args: &GuardArgs) -> CliResult<Input> {
    match (&args.write, args.command.is_empty()) {
        (Some(path), true) => Ok(Input::file_write(path.clone())),
        (None, false) => Ok(Input::shell(shell_join(&args.command))),
        (Some(_), false) => Err(CliError::Usage(
            "give either --write <path> or -- <command>, not both".into(),
        )),
        (None, true) => Err(CliError::Usage(
            "nothing to check: pass -- <command> or --write <path>".into(),
        )),
    }
}

/// One argument is the command line as written; several are re-quoted for the shell.
fn shell_join(words: &[String]) -> String {
    if let [one] = words {
        return one.clone();
    }
    words
        .iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
