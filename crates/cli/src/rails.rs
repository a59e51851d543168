//! The git rails on this machine: the repository at the context's root, and what putting a
//! run on its rails tells the user. The rails themselves (the preflight, the pre-run commit, the
//! sandbox branch, the scope) are pawl-engine's (`pawl_engine::start::rails`).

use pawl_core::config::Config;
use pawl_core::record::Run;
use pawl_engine::start::{Notice, Rails, rails};
use pawl_git::Repo;
use pawl_store::Store;

use crate::ctx::Ctx;
use crate::error::CliResult;

/// The repository at the context's root.
pub fn open(ctx: &Ctx) -> CliResult<Repo> {
    Ok(Repo::open(&ctx.root)?)
}

/// Puts a just-created run on its rails (`pawl_engine::start::rails::put_on_rails`), saying
/// what it did: the sandbox branch and the expected scope (not under `--json`), and on stderr
/// a guard switched off or weakened.
pub fn start(
    ctx: &mut Ctx,
    repo: &Repo,
    store: &mut Store,
    run: &Run,
    config: &Config,
    expected: &[String],
) -> CliResult<Rails> {
    let mut said = Ok(());
    let rails = rails::put_on_rails(repo, store, run, config, expected, &mut |n| {
        if said.is_ok() {
            said = render(ctx, &n);
        }
    })?;
    said?;
    Ok(rails)
}

fn render(ctx: &mut Ctx, notice: &Notice) -> CliResult {
    match notice {
        Notice::SandboxBranch { from, branch } if !ctx.json => ctx.say(format!(
            "[pawl] {from} is protected: working on the sandbox branch {branch}"
        )),
        Notice::ExpectedScope { files } if !ctx.json => {
            let scope = if files.is_empty() {
                "the goal names no files: any file of the repository".to_string()
            } else {
                files.join(", ")
            };
            ctx.say(format!("[pawl] expected scope: {scope}"))
        }
        Notice::GuardOff => {
            ctx.warn("[guard] allow_unsafe = true: the safety guard is OFF for this run; nothing the agent runs is checked");
            Ok(())
        }
        Notice::GuardRulesOff { rules } => {
            ctx.warn(&format!(
                "[guard.rules] switched off for this run: {}",
                rules.join(", ")
            ));
            Ok(())
        }
        Notice::SandboxBranch { .. } | Notice::ExpectedScope { .. } => Ok(()),
    }
}
