//! `pawl merge [--run X] [--into BRANCH] [--fresh]`: bring a finished run's branch into the
//! branch it started from (or `--into`), locally, only once pawl has verified the result.
//!
//! What is verified is the tree the target will have: the run's branch head when the target can
//! fast-forward to it, else the merge of the two, computed in git's object store (conflicts
//! refuse the merge). That commit is checked out in a throw-away worktree and verified through
//! [`pawl_engine::verify::verify_checks`] — the path `pawl verify` takes — with the run's sealed
//! checks and command criteria (the configured gates for a run stored before seals), in the
//! repository's clean room; passing evidence for that exact tree is reused unless `--fresh`.
//! Only then does the target move: fast-forwarded in the worktree that has it checked out, or
//! its ref moved (git checks that it did not move meanwhile). Never pushes; refuses while the run
//! is being worked on, when a branch involved has uncommitted changes, or when a check fails.

use std::path::{Path, PathBuf};

use clap::Args;
use pawl_core::EventKind;
use pawl_core::ExitCode;
use pawl_core::record::Run;
use pawl_engine::verify::{self, Plan};
use pawl_git::{CommitId, MergeTree, Repo};
use serde_json::json;

use crate::checks::{configured_gates, render, workspace};
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::review;

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The branch to merge into (default: the branch the run's sandbox was made from).
    #[arg(long, value_name = "BRANCH")]
    pub into: Option<String>,
    /// Run every check even when passing evidence for the merged tree exists.
    #[arg(long)]
    pub fresh: bool,
}

/// How many dirty paths a refusal names.
const SHOWN: usize = 10;

pub fn run(ctx: &mut Ctx, args: &MergeArgs) -> CliResult<ExitCode> {
    review::refuse_inside_agent("`pawl merge`")?;
    let mut store = ctx.store()?;
    let run = store.resolve_run(ctx.run_flag.as_deref())?;
    if review::is_open(&store, &run)? {
        return Err(CliError::Failed(format!(
            "run {} is still being worked on ({}): let it finish, or `pawl stop` it, then merge",
            run.id, run.status
        )));
    }
    pawl_engine::use_run_git(&run);
    let repo = crate::rails::open(ctx)?;
    let branch = review::branch(&repo, &run)?;
    let target = target(ctx, &store, &repo, &run, args.into.as_deref(), &branch.name)?;
    let Some(target_head) = repo.branch_head(&target)? else {
        return Err(CliError::Failed(format!(
            "there is no local branch `{target}` to merge into"
        )));
    };
    let worktrees = repo.worktrees()?;
    let checked_out = |name: &str| {
        worktrees
            .iter()
            .find(|w| w.branch.as_deref() == Some(name))
            .map(|w| w.path.clone())
    };
    if let Some(path) = checked_out(&branch.name) {
        refuse_dirty(
            &path,
            &format!(
                "run {}'s branch {} has uncommitted changes in {}",
                run.id,
                branch.name,
                path.display()
            ),
            &format!(
                "commit them on {} (`git add -A && git commit`) or discard them, then merge",
                branch.name
            ),
        )?;
    }
    let target_tree = checked_out(&target);
    if let Some(path) = &target_tree {
        refuse_dirty(
            path,
            &format!("{target} has uncommitted changes in {}", path.display()),
            "commit or stash them first",
        )?;
    }
    if repo.is_ancestor(&branch.head, &target_head)? {
        ctx.emit(
            &json!({"run": run.id, "branch": branch.name, "into": target, "merged": false,
                    "why": "already contained"}),
            || {
                format!(
                    "Nothing to merge: {target} already contains {} (run {}).",
                    branch.name, run.id
                )
            },
        )?;
        return Ok(ExitCode::Done);
    }

    // The commit the target will point to.
    let fast_forward = repo.is_ancestor(&target_head, &branch.head)?;
    let result = if fast_forward {
        branch.head.clone()
    } else {
        match repo.merge_tree(&target_head, &branch.head)? {
            MergeTree::Clean(tree) => {
                let message = format!(
                    "Merge {} into {target} (pawl run {})\n\nGoal: {}\n",
                    branch.name,
                    run.id,
                    crate::render::first_line(&run.goal)
                );
                repo.commit_tree(&tree, &[&target_head, &branch.head], &message)?
            }
            MergeTree::Conflicts(paths) => {
                let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                return Err(CliError::Failed(format!(
                    "{} and {target} conflict in {}: nothing was merged; merge them by hand (`git switch {target} && git merge {}`) and run `pawl verify`",
                    branch.name,
                    names.join(", "),
                    branch.name
                )));
            }
        }
    };

    // Verify that commit, as `pawl verify` would, in a worktree of its own.
    let mut checks = match &run.settings.seal {
        Some(seal) => pawl_engine::hidden::checks_of(seal, crate::hidden::vault().as_ref())
            .map_err(|e| CliError::Failed(format!("cannot verify the merge: {e}")))?,
        None => configured_gates(ctx)?,
    };
    checks.extend(verify::criterion_checks(&store, Some(&run))?);
    if checks.is_empty() {
        return Err(CliError::Failed(
            "nothing to verify the merge with: the run has no sealed checks and no [gates] are configured"
                .into(),
        ));
    }
    let mut plan = Plan::new(checks);
    plan.seal = run.settings.seal.clone();
    plan.fresh = args.fresh;
    plan.record_failure = false;
    // The run was judged against its baseline (a check failing before the run passes when no
    // worse): the merge is judged the same way.
    plan.baseline_of = Some(run.clone());
    let scratch = Scratch::create(&repo, &ctx.state_dir(), &run, &result)?;
    let mut ws = workspace(ctx);
    ws.root = scratch.path.clone();
    // On no run: a stopped run gets no new failures or criteria states from a merge check.
    let verified = verify::verify_checks(&ws, &mut store, None, &plan);
    drop(scratch);
    let v = verified?;
    if !v.verified {
        let account = render(&v);
        if ctx.json {
            ctx.json_out(
                &json!({"run": run.id, "branch": branch.name, "into": target,
                                 "merged": false, "tree": v.tree, "verification": v}),
            )?;
        } else {
            ctx.say(&account)?;
        }
        return Err(CliError::Failed(format!(
            "NOT merged: the checks do not pass on what {target} would become (tree {}); {target} is unchanged",
            v.tree.get(..12).unwrap_or(&v.tree)
        )));
    }

    // Move the target.
    let why = format!("pawl merge: run {} ({})", run.id, branch.name);
    match &target_tree {
        Some(path) => Repo::open(path)?.fast_forward_checked_out(&result)?,
        None => repo.move_branch(&target, &result, &target_head, &why)?,
    }
    let how = if fast_forward {
        "fast-forward"
    } else {
        "merge"
    };
    store.append_event(
        Some(&run.id),
        EventKind::Merged,
        json!({"branch": branch.name, "head": branch.head.as_str(), "into": target,
               "from": target_head.as_str(), "to": result.as_str(), "how": how,
               "tree": v.tree, "checks": v.items.len()}),
    )?;
    ctx.emit(
        &json!({"run": run.id, "branch": branch.name, "into": target, "merged": true,
                "how": how, "from": target_head.as_str(), "to": result.as_str(), "tree": v.tree,
                "checks": v.items.len()}),
        || {
            let moved = if fast_forward {
                format!(
                    "Fast-forwarded {target} from {} to {}",
                    target_head.short(),
                    result.short()
                )
            } else {
                format!(
                    "Merged {} into {target}: merge commit {} (was {})",
                    branch.name,
                    result.short(),
                    target_head.short()
                )
            };
            let mut out = render(&v);
            out.push_str(&format!("\n{moved}. Nothing was pushed."));
            if target_tree.is_none() {
                out.push_str(&format!(
                    "\n{target} is not checked out: `git switch {target}` to continue there."
                ));
            }
            out.push_str(&format!(
                "\n`pawl clean` deletes the merged branch {} and the run's logs.",
                branch.name
            ));
            out
        },
    )?;
    Ok(ExitCode::Done)
}

/// The branch to merge into: `--into`, else where the sandbox was made from, else the one
/// protected branch that exists (runs recorded before pawl noted where a sandbox came from).
fn target(
    ctx: &Ctx,
    store: &pawl_store::Store,
    repo: &Repo,
    run: &Run,
    into: Option<&str>,
    branch: &str,
) -> CliResult<String> {
    let target = match into {
        Some(t) => t.to_owned(),
        None => match review::started_from(store, run)? {
            Some(from) => from,
            None => {
                let protected = ctx.config(&[])?.config.guard.protected_branches;
                let mut existing = Vec::new();
                for b in protected {
                    if repo.branch_head(&b)?.is_some() {
                        existing.push(b);
                    }
                }
                match existing.as_slice() {
                    [one] if branch == review::sandbox_name(run) => one.clone(),
                    _ => {
                        return Err(CliError::Usage(format!(
                            "run {} recorded no branch it started from: name the target with `pawl merge --run {} --into <branch>`",
                            run.id, run.id
                        )));
                    }
                }
            }
        },
    };
    if target == branch {
        return Err(CliError::Usage(format!(
            "run {} worked on {branch} itself: there is nothing to merge it into; name another branch with --into",
            run.id
        )));
    }
    Ok(target)
}

/// Refuses when the working tree at `path` has uncommitted changes.
fn refuse_dirty(path: &Path, what: &str, todo: &str) -> CliResult {
    let dirty = Repo::open(path)?.status()?;
    if dirty.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = dirty
        .iter()
        .take(SHOWN)
        .map(|s| s.path.display().to_string())
        .collect();
    Err(CliError::Failed(format!(
        "{what} ({}{}): {todo}",
        shown.join(", "),
        if dirty.len() > SHOWN { ", ..." } else { "" }
    )))
}

/// A worktree with one commit checked out, removed when dropped (`.pawl/worktrees/merge-<run>`;
/// `pawl clean` removes one a crash left behind).
struct Scratch {
    repo: Repo,
    path: PathBuf,
}

impl Scratch {
    fn create(repo: &Repo, state_dir: &Path, run: &Run, commit: &CommitId) -> CliResult<Scratch> {
        let path = state_dir
            .join("worktrees")
            .join(format!("merge-{}", run.id));
        if path.exists() {
            // Left by a merge that was killed: git forgets it once the directory is gone.
            std::fs::remove_dir_all(&path)
                .map_err(CliError::io(format!("cannot remove {}", path.display())))?;
            repo.prune_worktrees()?;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(CliError::io(format!("cannot create {}", parent.display())))?;
        }
        repo.add_worktree(&path, commit)?;
        Ok(Scratch {
            repo: repo.clone(),
            path,
        })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.repo.remove_worktree(&self.path).is_err() {
            let _ = std::fs::remove_dir_all(&self.path);
            let _ = self.repo.prune_worktrees();
        }
    }
}
