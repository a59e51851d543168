//! `pawl status`: where the current run stands, and the next step.

use clap::Args;
use pawl_core::ExitCode;
use pawl_core::model::{BlockerStatus, CriterionStatus, StoryStatus};
use serde_json::json;

use pawl_store::StoreError;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::render;

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// List every run.
    #[arg(long)]
    pub all: bool,
}

pub fn run(ctx: &mut Ctx, args: &StatusArgs) -> CliResult<ExitCode> {
    let store = ctx.store()?;
    if args.all {
        let runs = store.runs()?;
        ctx.emit(&runs, || {
            if runs.is_empty() {
                return "No runs yet: start one with `pawl run \"<goal>\"`.".into();
            }
            runs.iter()
                .map(render::run_line)
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        return Ok(ExitCode::Done);
    }
    let id = match store.resolve_run_id(ctx.run_flag.as_deref()) {
        Ok(id) => id,
        Err(StoreError::NotFound { .. }) if ctx.run_flag.is_none() => {
            ctx.emit(&json!({"run": null}), || {
                "No runs yet: start one with `pawl run \"<goal>\"`.".into()
            })?;
            return Ok(ExitCode::Done);
        }
        Err(e) => return Err(e.into()),
    };
    let tampering = pawl_engine::report::tampering(&store, &id);
    if !tampering.is_empty() {
        return tampered(ctx, &store, &id, &tampering);
    }
    let run = store.run(&id)?;
    let rc = store.resume_context(&run.id)?;
    let lease = store.lease(&run.id)?;
    let spent = store.spent(&run.id)?;
    // The last verification pawl recorded: when, which checks failed, the verdict so far.
    let last = store
        .last_event(&run.id, pawl_core::EventKind::Verification)?
        .map(|e| {
            let names = |key: &str| -> Vec<String> {
                e.data[key]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c["name"].as_str().map(str::to_owned))
                    .collect()
            };
            json!({
                "at": e.at,
                "checks": e.data["checks"].as_array().map_or(0, Vec::len),
                "failing": names("failing"),
                "done": e.data["done"].as_bool().unwrap_or(false),
                "outcome": e.data["outcome"],
            })
        });
    let verified = rc
        .criteria
        .iter()
        .filter(|c| c.status == CriterionStatus::Verified)
        .count();
    let count = |st: StoryStatus| rc.stories.iter().filter(|s| s.status == st).count();
    // A planned run's stories: where each is worked on, by whom (its lease: the worker's pid and
    // host, until when it holds the story unless renewed) and what its worktree holds.
    let mut planned: Vec<serde_json::Value> = Vec::new();
    for w in store.story_works(&run.id)? {
        let path = std::path::Path::new(&w.worktree);
        let lease = store.story_lease(&run.id, &w.story)?.map(|l| {
            json!({"pid": l.pid, "host": l.host, "expires_at": l.expires_at,
                   "heartbeat_at": l.heartbeat_at})
        });
        planned.push(json!({
            "id": w.plan.id, "state": w.state, "attempts": w.attempts, "merge": w.merge,
            "branch": w.branch, "worktree": w.worktree, "exists": path.exists(),
            "disk_bytes": pawl_engine::parallel::disk_use(path), "lease": lease,
        }));
    }
    let worktrees_bytes: u64 = planned
        .iter()
        .filter_map(|p| p["disk_bytes"].as_u64())
        .sum();
    let value = json!({
        "parallel": (!planned.is_empty()).then(|| json!({
            "stories": planned, "worktrees_bytes": worktrees_bytes,
        })),
        "run": rc.run,
        "criteria": {"verified": verified, "total": rc.criteria.len()},
        "stories": {
            "total": rc.stories.len(),
            "pending": count(StoryStatus::Pending),
            "in_progress": count(StoryStatus::InProgress),
            "done": count(StoryStatus::Done),
            "blocked": count(StoryStatus::Blocked),
            "skipped": count(StoryStatus::Skipped),
        },
        "current_story": rc.current_story,
        "open_blockers": rc.open_blockers,
        "lease": lease,
        "spent": spent,
        "limits": rc.run.settings.limits,
        "last_verification": last,
        "next_step": rc.next_step,
    });
    ctx.emit(&value, || {
        let r = &rc.run;
        let mut out = String::new();
        let reason = r.stop_reason.map(|s| format!(" ({s})")).unwrap_or_default();
        out.push_str(&format!(
            "run {}  {}{reason}  [{} driver]\n",
            r.id, r.status, r.driver
        ));
        out.push_str(&format!("goal: {}\n", r.goal));
        out.push_str(&format!("started {}\n", render::time(r.created_at)));
        let l = &r.settings.limits;
        out.push_str(&format!(
            "spent: {} of {} iterations · ${:.2}{} · {} active · {} tokens\n",
            spent.iterations,
            l.max_iterations,
            spent.usd,
            if l.max_usd > 0.0 {
                format!(" of ${:.2}", l.max_usd)
            } else {
                String::new()
            },
            pawl_engine::session::human_ms(spent.active_ms),
            spent.tokens
        ));
        if let Some(v) = &last {
            let failing: Vec<&str> = v["failing"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str())
                .collect();
            let state = if failing.is_empty() {
                "all checks pass".to_string()
            } else {
                format!("failing: {}", failing.join(", "))
            };
            out.push_str(&format!(
                "last verification: {} — {state}\n",
                render::time(v["at"].as_i64().unwrap_or_default())
            ));
        }
        out.push_str(&format!(
            "criteria: {verified}/{} verified\n",
            rc.criteria.len()
        ));
        let mut parts = Vec::new();
        for (st, label) in [
            (StoryStatus::Done, "done"),
            (StoryStatus::InProgress, "in progress"),
            (StoryStatus::Pending, "pending"),
            (StoryStatus::Blocked, "blocked"),
            (StoryStatus::Skipped, "skipped"),
        ] {
            let n = count(st);
            if n > 0 {
                parts.push(format!("{n} {label}"));
            }
        }
        let stories = if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        };
        out.push_str(&format!("stories: {stories}\n"));
        if !planned.is_empty() {
            out.push_str(&format!(
                "worktrees: {} on disk\n",
                crate::parallel::human_bytes(worktrees_bytes)
            ));
            for p in &planned {
                let at = if p["exists"] == true {
                    format!(
                        "{} ({})",
                        p["worktree"].as_str().unwrap_or(""),
                        crate::parallel::human_bytes(p["disk_bytes"].as_u64().unwrap_or(0))
                    )
                } else {
                    "no worktree".into()
                };
                let held = match p["lease"].as_object() {
                    Some(l) => format!(
                        " · held by pid {}@{} until {}",
                        l["pid"],
                        l["host"].as_str().unwrap_or(""),
                        render::time(l["expires_at"].as_i64().unwrap_or_default())
                    ),
                    None => String::new(),
                };
                out.push_str(&format!(
                    "  story {} {} · merge {} · sessions {}{held} · {at}\n",
                    p["id"].as_str().unwrap_or(""),
                    p["state"].as_str().unwrap_or(""),
                    p["merge"].as_str().unwrap_or(""),
                    p["attempts"]
                ));
            }
        }
        if let Some(s) = &rc.current_story {
            out.push_str(&format!(
                "current: {} \"{}\" (tdd: {}, attempts {}/{})\n",
                s.id, s.title, s.tdd_phase, s.attempts, s.max_attempts
            ));
        }
        for b in rc.open_blockers.iter() {
            let state = match b.status {
                BlockerStatus::AwaitingUser => {
                    format!("awaiting user: {}", b.instructions.as_deref().unwrap_or(""))
                }
                _ => b.status.to_string(),
            };
            out.push_str(&format!(
                "blocker: {} {} \"{}\" ({state})\n",
                b.id, b.severity, b.text
            ));
        }
        if let Some(l) = &lease {
            out.push_str(&format!("owner: pid {} on {}\n", l.pid, l.host));
        }
        out.push_str(&format!("next: {}", rc.next_step));
        out
    })?;
    Ok(ExitCode::Done)
}

/// A run whose state was modified outside pawl: what pawl last signed of it, and what was
/// modified — nothing else is read from it.
fn tampered(
    ctx: &mut Ctx,
    store: &pawl_store::Store,
    id: &str,
    tampering: &[pawl_store::Finding],
) -> CliResult<ExitCode> {
    let (run, _) = store.run_as_signed(id)?;
    let marked = run.stop_reason == Some(pawl_core::StopReason::Tampered);
    let value = json!({"run": run, "tampering": tampering});
    ctx.emit(&value, || {
        let mut out = format!(
            "run {}  {}{}  [{} driver]\ngoal: {}\nTAMPERED: the run's state was modified outside pawl:\n",
            run.id,
            run.status,
            run.stop_reason.map(|s| format!(" ({s})")).unwrap_or_default(),
            run.driver,
            run.goal
        );
        for f in tampering {
            out.push_str(&format!("  - {f}\n"));
        }
        out.push_str(if marked {
            "next: the run is never resumed; `pawl report` says what was modified, a new run starts over"
        } else {
            "next: the run stops `tampered` at its next turn; `pawl report` says what was modified, `pawl cancel` ends it"
        });
        out
    })?;
    Ok(ExitCode::Done)
}
