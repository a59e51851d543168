//! `pawl guard check|explain -- <command>`: what the safety guard decides about a command (or a
//! file write) as if a run were active, and why.

use std::sync::Arc;

use pawl_core::ExitCode;
use pawl_core::config::GuardConfig;
use pawl_guard::{Context, DenyRule, Input, Policy, TrackedSet};

use crate::cli::{GuardArgs, GuardCommand};
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

/// The guard's policy from `[guard]`: the user's lists extend the built-in ones.
pub fn policy(cfg: &GuardConfig) -> Policy {
    let mut p = Policy {
        protected_branches: cfg.protected_branches.clone(),
        allow_unsafe: cfg.allow_unsafe,
        always: cfg.always,
        ..Policy::default()
    };
    p.protected_paths
        .extend(cfg.protected_paths.iter().cloned());
    p.allowances.extend(cfg.allowances.iter().cloned());
    p.deny.extend(cfg.deny.iter().map(|d| DenyRule {
        command: d.command.clone(),
        pattern: d.pattern.clone(),
        reason: d.reason.clone(),
    }));
    p
}

/// The guard's view of this repository: cwd, branch, tracked files, aliases, HOME and TMPDIR.
pub fn context(ctx: &Ctx, run_active: bool) -> CliResult<Context> {
    let cwd = std::env::current_dir().map_err(CliError::io("cannot read the current directory"))?;
    let mut g = Context::new(cwd);
    g.repo_root = Some(ctx.root.clone());
    g.run_active = run_active;
    let repo =
        pawl_git::Repo::open(&ctx.root).map_err(|e| CliError::Failed(format!("git: {e}")))?;
    g.branch = repo
        .current_branch()
        .map_err(|e| CliError::Failed(format!("git: {e}")))?;
    let tracked = repo
        .tracked_files()
        .map_err(|e| CliError::Failed(format!("git: {e}")))?;
    g.tracked = Arc::new(
        tracked
            .iter()
            .map(|p| p.display().to_string())
            .collect::<TrackedSet>(),
    );
    g.git_aliases = repo.config_aliases().unwrap_or_default();
    g.home = std::env::var_os("HOME").map(Into::into);
    g.tmpdir = std::env::var_os("TMPDIR").map(Into::into);
    g.fs = Arc::new(HostFs);
    g.scripts = Arc::new(HostFs);
    Ok(g)
}

/// The real filesystem, asked lazily by the guard where a path may go through a symbolic link:
/// like `realpath -m`, the longest existing prefix is resolved and the rest appended as written.
pub struct HostFs;

impl pawl_guard::FileSystemView for HostFs {
    fn resolve_links(&self, path: &str) -> Option<String> {
        let path = std::path::Path::new(path);
        if !path.is_absolute() {
            return None;
        }
        // Walk up to the longest prefix that exists, resolve it, re-append the rest.
        let mut existing = path;
        let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
        loop {
            if std::fs::symlink_metadata(existing).is_ok() {
                break;
            }
            rest.push(existing.file_name()?);
            existing = existing.parent()?;
        }
        let mut resolved = std::fs::canonicalize(existing).ok()?;
        for part in rest.iter().rev() {
            resolved.push(part);
        }
        resolved.to_str().map(str::to_owned)
    }
}

impl pawl_guard::ScriptReader for HostFs {
    fn read_script(&self, path: &str) -> Option<String> {
        use std::io::Read as _;
        // Regular files only (following links): opening a FIFO or a device could block.
        if !std::fs::metadata(path).ok()?.is_file() {
            return None;
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .ok()?
            .take(pawl_guard::MAX_SCRIPT_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

pub fn run(ctx: &mut Ctx, cmd: &GuardCommand) -> CliResult<ExitCode> {
    let (args, explain) = match cmd {
        GuardCommand::Check(a) => (a, false),
        GuardCommand::Explain(a) => (a, true),
    };
    let input = input(args)?;
    let eff = ctx.config(&[])?;
    let policy = policy(&eff.config.guard);
    let gctx = context(ctx, true)?;
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
