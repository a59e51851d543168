//! `pawl diff [--run X] [--stat]`: what a run changed — from its pre-run commit to its branch's
//! head, plus the working tree (uncommitted and untracked files) when the run's branch is the one
//! checked out. The patch is git's own (`git apply` takes it); `--stat` counts lines per file.

use clap::Args;
use pawl_core::ExitCode;
use pawl_git::DiffStat;
use serde_json::json;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::review;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Lines added and removed per file instead of the patch.
    #[arg(long)]
    pub stat: bool,
}

pub fn run(ctx: &mut Ctx, args: &DiffArgs) -> CliResult<ExitCode> {
    let store = ctx.store()?;
    let run = store.resolve_run(ctx.run_flag.as_deref())?;
    let pre = review::pre_run(&run)?;
    let repo = crate::rails::open(ctx)?;
    let branch = review::branch(&repo, &run)?;
    // The run's branch checked out here: its uncommitted work is part of what it changed.
    let working_tree = repo.current_branch()?.as_deref() == Some(branch.name.as_str());
    let to = if working_tree {
        repo.tree_hash()?
    } else {
        repo.tree_of(branch.head.as_str())?
    };
    let what = format!(
        "run {}: pre-run {} → {}{}",
        run.id,
        pre.short(),
        branch.name,
        if working_tree {
            " with the working tree"
        } else {
            ""
        }
    );
    if args.stat {
        let stat = repo.diff_stat_between(&pre, &to)?;
        let files: Vec<serde_json::Value> = stat
            .files
            .iter()
            .map(|f| {
                json!({"path": f.path.display().to_string(), "insertions": f.insertions,
                       "deletions": f.deletions, "binary": f.binary})
            })
            .collect();
        let value = json!({
            "run": run.id, "branch": branch.name, "from": pre.as_str(), "to": to.as_str(),
            "working_tree": working_tree, "files": files,
            "insertions": stat.insertions, "deletions": stat.deletions,
        });
        ctx.emit(&value, || human_stat(&what, &stat))?;
        return Ok(ExitCode::Done);
    }
    let patch = repo.diff_patch(pre.as_str(), to.as_str())?;
    let patch = String::from_utf8(patch).map_err(|e| {
        CliError::Failed(format!(
            "the patch is not UTF-8 text ({e}): see `pawl diff --stat`, or `git diff {}` for the bytes",
            pre.short()
        ))
    })?;
    if ctx.json {
        ctx.json_out(&json!({
            "run": run.id, "branch": branch.name, "from": pre.as_str(), "to": to.as_str(),
            "working_tree": working_tree, "patch": patch,
        }))?;
    } else if patch.is_empty() {
        ctx.say(format!("{what}: no changes"))?;
    } else {
        // The patch alone on stdout, so that it can be piped to `git apply`.
        ctx.say(patch)?;
    }
    Ok(ExitCode::Done)
}

fn human_stat(what: &str, stat: &DiffStat) -> String {
    if stat.files.is_empty() {
        return format!("{what}: no changes");
    }
    let mut out = format!("{what}\n");
    for f in &stat.files {
        let counts = if f.binary {
            "binary".to_owned()
        } else {
            format!("+{} -{}", f.insertions, f.deletions)
        };
        out.push_str(&format!("  {counts:>12}  {}\n", f.path.display()));
    }
    out.push_str(&format!(
        "{} file{} changed, {} insertion{}(+), {} deletion{}(-)",
        stat.files.len(),
        if stat.files.len() == 1 { "" } else { "s" },
        stat.insertions,
        if stat.insertions == 1 { "" } else { "s" },
        stat.deletions,
        if stat.deletions == 1 { "" } else { "s" },
    ));
    out
}
