//! `pawl clean [--dry-run] [--force]`: removes what finished runs leave behind — their sandbox
//! branches (`pawl/<run>`), their step logs and the check logs only their evidence names, and,
//! when no run of the repository is open, its clean rooms (in the user's pawl state) and
//! worktrees a killed `pawl merge` left.
//!
//! Never lost: a branch is deleted only when another local branch that stays contains its head
//! (deleting it loses no commit); one with commits no other branch has is kept unless `--force`,
//! and even then its head is kept under `refs/pawl/backups/clean/<run>` first. A branch checked
//! out in a worktree is never deleted. Reports, the store and backup refs are kept.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::Args;
use pawl_core::EventKind;
use pawl_core::ExitCode;
use serde::Serialize;

use crate::checks::workspace;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::review;

#[derive(Debug, Args)]
pub struct CleanArgs {
    /// Say what would be removed; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Also delete run branches with commits no other branch has (each head is kept under
    /// `refs/pawl/backups/clean/<run>` first).
    #[arg(long)]
    pub force: bool,
}

/// What happened (or would happen) to one run's branch.
#[derive(Debug, Serialize)]
struct BranchAction {
    run: String,
    branch: String,
    /// `deleted`, `would_delete` or `kept`.
    action: &'static str,
    why: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    backup_ref: Option<String>,
}

/// What happened (or would happen) to one story's worktree and branch (a planned run's).
#[derive(Debug, Serialize)]
struct StoryAction {
    run: String,
    story: String,
    worktree: String,
    branch: String,
    /// `removed`, `would_remove` or `kept`.
    action: &'static str,
    why: String,
    /// What its worktree held on disk.
    bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    backup_ref: Option<String>,
}

#[derive(Debug, Serialize)]
struct Cleaned {
    dry_run: bool,
    stories: Vec<StoryAction>,
    branches: Vec<BranchAction>,
    logs: Vec<String>,
    log_bytes: u64,
    rooms: Vec<String>,
    worktrees: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: &CleanArgs) -> CliResult<ExitCode> {
    if !args.dry_run {
        review::refuse_inside_agent("`pawl clean`")?;
    }
    let mut store = ctx.store()?;
    let repo = crate::rails::open(ctx)?;
    let runs = store.runs()?;
    let mut finished = Vec::new();
    let mut any_open = false;
    for run in runs {
        if review::is_open(&store, &run)? {
            any_open = true;
        } else {
            finished.push(run);
        }
    }

    // Stories' worktrees and branches first (a story branch may contain its run's head).
    let mut stories = Vec::new();
    for run in &finished {
        stories.extend(clean_stories(&store, &repo, run, args)?);
    }

    // Branches: only a run's own sandbox branch, one at a time against the branches that
    // exist at that moment (a dry run pretends the deletions happened).
    let checked_out: BTreeSet<String> = repo
        .worktrees()?
        .into_iter()
        .filter_map(|w| w.branch)
        .collect();
    let mut gone: BTreeSet<String> = BTreeSet::new();
    let mut branches = Vec::new();
    for run in &finished {
        let name = review::sandbox_name(run);
        if run.branch.as_deref() != Some(name.as_str()) {
            continue;
        }
        let Some(head) = repo.branch_head(&name)? else {
            continue;
        };
        let mut act = |action: &'static str, why: String, backup_ref: Option<String>| {
            branches.push(BranchAction {
                run: run.id.clone(),
                branch: name.clone(),
                action,
                why,
                backup_ref,
            })
        };
        if checked_out.contains(&name) {
            act(
                "kept",
                "checked out: switch to another branch first".into(),
                None,
            );
            continue;
        }
        let holders: Vec<String> = repo
            .branches_containing(&head)?
            .into_iter()
            .filter(|b| *b != name && !gone.contains(b))
            .collect();
        let delete = if args.dry_run {
            "would_delete"
        } else {
            "deleted"
        };
        if let Some(holder) = holders.first() {
            if !args.dry_run {
                repo.delete_branch(&name, &head)?;
            }
            gone.insert(name.clone());
            act(delete, format!("merged: {holder} contains it"), None);
        } else if args.force {
            let backup = if args.dry_run {
                format!("{}clean/{}", pawl_git::BACKUP_REF_PREFIX, run.id)
            } else {
                let kept = match repo.backup_ref(&format!("clean/{}", run.id), &head) {
                    Ok(r) => r,
                    // Cleaned before, restored, cleaned again: backups are never moved, so this
                    // head gets a ref of its own (named by it: there only if it is this head).
                    Err(pawl_git::Error::RefExists { .. }) => {
                        match repo.backup_ref(&format!("clean/{}-{}", run.id, head.short()), &head)
                        {
                            Ok(r) => r,
                            Err(pawl_git::Error::RefExists { name }) => name,
                            Err(e) => return Err(e.into()),
                        }
                    }
                    Err(e) => return Err(e.into()),
                };
                repo.delete_branch(&name, &head)?;
                kept
            };
            gone.insert(name.clone());
            act(
                delete,
                "not merged (--force): its head is kept under the backup ref".into(),
                Some(backup),
            );
        } else {
            act(
                "kept",
                format!(
                    "has commits no other branch has: merge it (`pawl merge --run {}`) or pass --force",
                    run.id
                ),
                None,
            );
        }
    }

    // Logs: the finished runs' step logs, and check logs named only by finished runs' evidence.
    let logs_dir = ctx.state_dir().join("logs");
    let finished_ids: BTreeSet<&str> = finished.iter().map(|r| r.id.as_str()).collect();
    let mut logs: BTreeSet<PathBuf> = BTreeSet::new();
    for run in &finished {
        for log in review::step_logs(&logs_dir, &run.id)? {
            // And the part a capped log rotated out (`<log>.1`).
            let mut rotated = log.path.as_os_str().to_owned();
            rotated.push(".1");
            logs.insert(PathBuf::from(rotated));
            logs.insert(log.path);
        }
    }
    let mut named_by_others: BTreeSet<PathBuf> = BTreeSet::new();
    let mut named_by_finished: BTreeSet<PathBuf> = BTreeSet::new();
    for (run_id, path) in store.evidence_logs()? {
        let full = ctx.root.join(&path);
        match run_id {
            Some(id) if finished_ids.contains(id.as_str()) => named_by_finished.insert(full),
            _ => named_by_others.insert(full),
        };
    }
    logs.extend(named_by_finished.difference(&named_by_others).cloned());
    // Only files that are there, inside `.pawl/logs/`.
    let logs: Vec<(PathBuf, u64)> = logs
        .into_iter()
        .filter(|p| p.starts_with(&logs_dir))
        .filter_map(|p| {
            let len = std::fs::symlink_metadata(&p)
                .ok()
                .filter(|m| m.is_file())?
                .len();
            Some((p, len))
        })
        .collect();
    if !args.dry_run {
        for (p, _) in &logs {
            std::fs::remove_file(p)
                .map_err(CliError::io(format!("cannot remove {}", p.display())))?;
        }
    }

    // Rooms and leftover worktrees: only when nothing is open (a run's checks may be using them).
    let mut rooms = Vec::new();
    let mut worktrees = Vec::new();
    if !any_open {
        let ws = workspace(ctx);
        if let Some(room) = &ws.room {
            // The room and those beside it: the re-check's, the proof on the pre-run code's.
            let beside = |suffix: &str| {
                room.file_name()
                    .map(|n| room.with_file_name(format!("{}-{suffix}", n.to_string_lossy())))
            };
            let candidates = [
                Some(room.clone()),
                beside("recheck"),
                beside("base"),
                Some(ws.hidden_logs()),
            ];
            for dir in candidates.into_iter().flatten() {
                if dir.is_dir() && dir.starts_with(room.parent().unwrap_or(room)) {
                    if !args.dry_run {
                        remove_dir(&dir)?;
                    }
                    rooms.push(dir.display().to_string());
                }
            }
        }
        let scratch = ctx.state_dir().join("worktrees");
        if let Ok(entries) = std::fs::read_dir(&scratch) {
            for entry in entries.flatten() {
                let path = entry.path();
                if !args.dry_run && repo.remove_worktree(&path).is_err() {
                    remove_dir(&path)?;
                }
                worktrees.push(display(&ctx.root, &path));
            }
            if !args.dry_run && !worktrees.is_empty() {
                repo.prune_worktrees()?;
            }
        }
    }

    let cleaned = Cleaned {
        dry_run: args.dry_run,
        stories,
        branches,
        log_bytes: logs.iter().map(|(_, n)| n).sum(),
        logs: logs.iter().map(|(p, _)| display(&ctx.root, p)).collect(),
        rooms,
        worktrees,
    };
    if !args.dry_run
        && (cleaned.branches.iter().any(|b| b.action == "deleted")
            || cleaned.stories.iter().any(|s| s.action == "removed")
            || !cleaned.logs.is_empty()
            || !cleaned.rooms.is_empty()
            || !cleaned.worktrees.is_empty())
    {
        store.append_event(
            None,
            EventKind::Cleaned,
            serde_json::to_value(&cleaned).map_err(|e| CliError::Failed(e.to_string()))?,
        )?;
    }
    ctx.emit(&cleaned, || human(&cleaned, any_open))?;
    Ok(ExitCode::Done)
}

/// A finished run's story worktrees and branches (docs/parallel.md): removed when the run's
/// branch holds every commit of the story's branch and its worktree has nothing uncommitted;
/// otherwise kept, unless `--force`, which first keeps everything — the branch and what the
/// worktree holds, committed or not — under `refs/pawl/backups/clean/<run>-<story>`.
fn clean_stories(
    store: &pawl_store::Store,
    repo: &pawl_git::Repo,
    run: &pawl_core::record::Run,
    args: &CleanArgs,
) -> CliResult<Vec<StoryAction>> {
    let works = store.story_works(&run.id)?;
    if works.is_empty() {
        return Ok(Vec::new());
    }
    let registered: Vec<PathBuf> = repo.worktrees()?.into_iter().map(|w| w.path).collect();
    let run_head = match &run.branch {
        Some(b) => repo.branch_head(b)?,
        None => None,
    };
    let mut out = Vec::new();
    for w in works {
        let path = PathBuf::from(&w.worktree);
        let is_tree = registered.contains(&path);
        let head = repo.branch_head(&w.branch)?;
        if !is_tree && !path.exists() && head.is_none() {
            continue;
        }
        let bytes = pawl_engine::parallel::disk_use(&path);
        let dirty = is_tree && !pawl_git::Repo::open(&path)?.status()?.is_empty();
        let merged = match (&head, &run_head) {
            (None, _) => true,
            (Some(h), Some(r)) => repo.is_ancestor(h, r)?,
            (Some(_), None) => false,
        };
        let (action, why, backup_ref) = if merged && !dirty {
            (
                if args.dry_run {
                    "would_remove"
                } else {
                    "removed"
                },
                format!(
                    "merged: {} holds its commits",
                    run.branch.as_deref().unwrap_or("the run's branch")
                ),
                None,
            )
        } else if args.force {
            let name = format!("clean/{}-{}", run.id, w.plan.id);
            let backup = if args.dry_run {
                format!("{}{name}", pawl_git::BACKUP_REF_PREFIX)
            } else {
                // What the worktree holds, committed or not, on top of its branch.
                let keep = if is_tree {
                    Some(pawl_git::Repo::open(&path)?.snapshot_commit(&format!(
                        "pawl clean --force: story {} of run {} as its worktree held it",
                        w.plan.id, run.id
                    ))?)
                } else {
                    head.clone()
                };
                match keep {
                    Some(c) => match repo.backup_ref(&name, &c) {
                        Ok(r) => r,
                        Err(pawl_git::Error::RefExists { .. }) => {
                            repo.backup_ref(&format!("{name}-{}", c.short()), &c)?
                        }
                        Err(e) => return Err(e.into()),
                    },
                    None => String::new(),
                }
            };
            (
                if args.dry_run {
                    "would_remove"
                } else {
                    "removed"
                },
                format!(
                    "not merged{} (--force): kept under the backup ref",
                    if dirty {
                        ", with uncommitted changes"
                    } else {
                        ""
                    }
                ),
                Some(backup),
            )
        } else {
            out.push(StoryAction {
                run: run.id.clone(),
                story: w.plan.id.clone(),
                worktree: w.worktree.clone(),
                branch: w.branch.clone(),
                action: "kept",
                why: format!(
                    "{}: resume the run (`pawl resume --run {}`) to merge it, or pass --force",
                    if dirty {
                        "its worktree has uncommitted changes"
                    } else {
                        "its branch has commits the run's branch does not"
                    },
                    run.id
                ),
                bytes,
                backup_ref: None,
            });
            continue;
        };
        if !args.dry_run {
            if is_tree {
                repo.remove_worktree(&path)?;
            } else if path.exists() {
                remove_dir(&path)?;
            }
            repo.prune_worktrees()?;
            if let Some(h) = &head {
                repo.delete_branch(&w.branch, h)?;
            }
            if let Some(room) = pawl_engine::parallel::story_room(&path)
                && room.is_dir()
            {
                remove_dir(&room)?;
            }
        }
        out.push(StoryAction {
            run: run.id.clone(),
            story: w.plan.id,
            worktree: w.worktree,
            branch: w.branch,
            action,
            why,
            bytes,
            backup_ref,
        });
    }
    Ok(out)
}

fn remove_dir(dir: &Path) -> CliResult {
    std::fs::remove_dir_all(dir).map_err(CliError::io(format!("cannot remove {}", dir.display())))
}

fn display(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

fn human(c: &Cleaned, any_open: bool) -> String {
    let (verb, would) = if c.dry_run {
        ("would remove", "would delete")
    } else {
        ("removed", "deleted")
    };
    let mut out = Vec::new();
    for s in &c.stories {
        let line = match s.action {
            "kept" => format!(
                "kept story {} of run {} ({}, {}): {}",
                s.story, s.run, s.worktree, s.branch, s.why
            ),
            _ => format!(
                "{verb} story {} of run {} (worktree {}, {} bytes; branch {}): {}{}",
                s.story,
                s.run,
                s.worktree,
                s.bytes,
                s.branch,
                s.why,
                s.backup_ref
                    .as_ref()
                    .map(|r| format!(" {r}"))
                    .unwrap_or_default()
            ),
        };
        out.push(line);
    }
    for b in &c.branches {
        let line = match b.action {
            "kept" => format!("kept {} (run {}): {}", b.branch, b.run, b.why),
            _ => format!(
                "{would} {} (run {}): {}{}",
                b.branch,
                b.run,
                b.why,
                b.backup_ref
                    .as_ref()
                    .map(|r| format!(" {r} (`git branch {} {r}` brings it back)", b.branch))
                    .unwrap_or_default()
            ),
        };
        out.push(line);
    }
    if !c.logs.is_empty() {
        out.push(format!(
            "{verb} {} log file{} ({} bytes) of finished runs",
            c.logs.len(),
            if c.logs.len() == 1 { "" } else { "s" },
            c.log_bytes
        ));
    }
    for r in &c.rooms {
        out.push(format!("{verb} the clean room {r}"));
    }
    for w in &c.worktrees {
        out.push(format!("{verb} the leftover worktree {w}"));
    }
    if any_open {
        out.push("a run is open: its clean room is kept".into());
    }
    if out.is_empty() {
        out.push("Nothing to clean.".into());
    }
    out.join("\n")
}
