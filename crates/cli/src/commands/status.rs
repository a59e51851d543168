//! `pawl status`: where the current run stands, and the next step.

use clap::Args;
use pawl_core::ExitCode;
use pawl_core::model::{BlockerStatus, CriterionStatus, StoryStatus};
use serde_json::json;

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
    let run = match &ctx.run_flag {
        Some(id) => Some(store.resolve_run(Some(id))?),
        None => store.current_run()?,
    };
    let Some(run) = run else {
        ctx.emit(&json!({"run": null}), || {
            "No runs yet: start one with `pawl run \"<goal>\"`.".into()
        })?;
        return Ok(ExitCode::Done);
    };
    let rc = store.resume_context(&run.id)?;
    let lease = store.lease(&run.id)?;
    let verified = rc
        .criteria
        .iter()
        .filter(|c| c.status == CriterionStatus::Verified)
        .count();
    let count = |st: StoryStatus| rc.stories.iter().filter(|s| s.status == st).count();
    let value = json!({
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
