//! The git rails every run starts on, whichever driver runs it (headless, session): never on top
//! of uncommitted work unless told to (then that work is snapshotted and kept by a backup ref),
//! never on a protected branch (a sandbox branch `pawl/<run>` is created and checked out), and the
//! pre-run commit recorded so that `pawl rollback` can restore it. `[guard] allow_unsafe` is said
//! out loud and kept on the record here too.
//!
//! Not here: rollback itself (pawl-git), and what keeps the agent on the run's branch during the
//! run (pawl-guard's protected-branch rule, judged by the PreToolUse hook).

use pawl_core::EventKind;
use pawl_core::config::Config;
use pawl_core::record::Run;
use pawl_git::{CommitId, Repo};
use pawl_store::Store;

use super::{Notice, StartError};

/// How many dirty paths a refusal names.
const SHOWN: usize = 10;

/// Where a run starts: what [`put_on_rails`] did to the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rails {
    /// The branch the run works on (`None` on a detached HEAD).
    pub branch: Option<String>,
    /// The commit `pawl rollback` restores: HEAD, or the snapshot of the uncommitted work.
    pub pre_run: Option<CommitId>,
}

/// Refuses a tree with uncommitted changes unless `allow_dirty`. Call it before anything is
/// written (no run, no state), so that a refusal leaves the repository as it was.
pub fn check_clean(repo: &Repo, allow_dirty: bool) -> Result<(), StartError> {
    let dirty = dirty(repo)?;
    if dirty.is_empty() || allow_dirty {
        return Ok(());
    }
    let shown: Vec<&str> = dirty.iter().take(SHOWN).map(String::as_str).collect();
    Err(StartError::Refused(format!(
        "the working tree has uncommitted changes ({}{}): commit or stash your changes first, or pass --allow-dirty (the dirty state is recorded as the pre-run snapshot)",
        shown.join(", "),
        if dirty.len() > SHOWN { ", ..." } else { "" }
    )))
}

/// What must hold before a run is created on `repo`, checked before anything is written: git is
/// not in the middle of another operation, and the sandbox branch `pawl/<run>` can be created
/// when the current branch is protected (a branch named `pawl` makes every `pawl/…` impossible).
pub fn preflight(repo: &Repo, config: &Config) -> Result<(), StartError> {
    if let Some(what) = repo.operation_in_progress() {
        return Err(StartError::Refused(format!(
            "git is in the middle of {what}: finish or abort it first (`git status` says how), then start the run"
        )));
    }
    let protected = repo
        .current_branch()?
        .is_some_and(|b| config.guard.protected_branches.contains(&b));
    if protected && repo.ref_exists("refs/heads/pawl")? {
        return Err(StartError::Refused(
            "a branch named `pawl` exists, so git cannot create the run's sandbox branch `pawl/<run>`: rename it (`git branch -m pawl pawl-old`) and start the run again".into(),
        ));
    }
    Ok(())
}

/// Puts a just-created run on its rails: the pre-run commit (HEAD, or a snapshot of the tree
/// when it differs from HEAD, kept by `refs/pawl/backups/pre-run/<run>`), the sandbox branch
/// `pawl/<run>` when the current branch is protected, both recorded on the run; then the expected
/// scope (`expected`: the files the goal names) and a `guard_off` event when `[guard]
/// allow_unsafe`. Each of these is told to `notice` as it happens.
pub fn put_on_rails(
    repo: &Repo,
    store: &mut Store,
    run: &Run,
    config: &Config,
    expected: &[String],
    notice: &mut dyn FnMut(Notice),
) -> Result<Rails, StartError> {
    // The tree as the run starts: after `check_clean`, it differs from HEAD only when allowed
    // to, or by pawl's own `.gitignore` entry for `.pawl/` (session mode sets the state up after
    // the check). Either way the pre-run commit must hold it, or a rollback would lose it.
    let pre_run = if dirty(repo)?.is_empty() {
        repo.head_commit()?
    } else {
        let snap = repo.snapshot_commit(&format!("pawl: pre-run snapshot of run {}", run.id))?;
        repo.backup_ref(&format!("pre-run/{}", run.id), &snap)?;
        Some(snap)
    };
    let current = repo.current_branch()?;
    let branch = match current {
        Some(b) if config.guard.protected_branches.contains(&b) => {
            let name = format!("pawl/{}", run.id);
            repo.create_branch_and_switch(&name)?;
            // Where the run's work goes back to (`pawl merge`'s default target).
            store.append_event(
                Some(&run.id),
                EventKind::SandboxBranch,
                serde_json::json!({"branch": name, "from": b}),
            )?;
            notice(Notice::SandboxBranch {
                from: b,
                branch: name.clone(),
            });
            Some(name)
        }
        other => other,
    };
    store.set_run_git(
        &run.id,
        branch.as_deref(),
        pre_run.as_ref().map(|c| c.as_str()),
    )?;
    store.append_event(
        Some(&run.id),
        EventKind::Scope,
        serde_json::json!({"expected": expected}),
    )?;
    notice(Notice::ExpectedScope {
        files: expected.to_vec(),
    });
    if config.guard.allow_unsafe {
        // The guard is off: said loudly by the caller, and kept on the record and in the report.
        notice(Notice::GuardOff);
        store.append_event(
            Some(&run.id),
            EventKind::GuardOff,
            serde_json::json!({"reason": "[guard] allow_unsafe = true"}),
        )?;
    }
    let off = config.guard.rules.disabled();
    if !config.guard.allow_unsafe && !off.is_empty() {
        // Not the guard off, but less of it: said at the start like everything the run is on.
        notice(Notice::GuardRulesOff { rules: off });
    }
    Ok(Rails { branch, pre_run })
}

/// The paths `git status` lists: changed, staged, untracked (not ignored).
fn dirty(repo: &Repo) -> Result<Vec<String>, StartError> {
    Ok(repo
        .status()?
        .into_iter()
        .map(|s| s.path.display().to_string())
        .collect())
}
