//! The git rails on this machine: the repository at the context's root, and what putting a
//! run on its rails tells the user. The rails themselves (the preflight, the pre-run commit, the
//! sandbox branch, the scope) are pawl-engine's (`pawl_engine::start::rails`), put on by its
//! start, which tells this CLI as its host.

use pawl_engine::start::Notice;
use pawl_git::Repo;

use crate::ctx::Ctx;
use crate::error::CliResult;

/// The repository at the context's root.
pub fn open(ctx: &Ctx) -> CliResult<Repo> {
    Ok(Repo::open(&ctx.root)?)
}

/// Says a notice of putting a run on its rails (the sandbox branch and the expected scope not
/// under `--json`; a guard switched off or weakened on stderr); any other notice is not the
/// rails' and says nothing here.
pub fn render(ctx: &mut Ctx, notice: &Notice) -> CliResult {
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
        _ => Ok(()),
    }
}
