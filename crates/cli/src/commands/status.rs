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
