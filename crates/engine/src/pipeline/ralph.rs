//! Ralph: keep re-injecting the next unverified checklist item until every item is verified.
//! The checklist is the run's criteria (a planner session makes them when there are none) plus
//! "every gate passes". At most `ralph_max_loops` loops and `ralph_calls_per_hour` calls per
//! hour; an item failing `ralph_skip_after` loops in a row is skipped and logged.

use pawl_core::StopReason;
use pawl_core::failure::FailureCategory;
use pawl_core::model::CriterionStatus;
use pawl_core::pipeline::{self as rules, Phase, RalphItem, RalphNext, Role};

use super::{Ctx, Halt, P, plan, roles, session};

/// The pseudo-item for pawl's gates.
const GATES: &str = "gates";

pub(crate) fn run(ctx: &mut Ctx<'_>) -> P<StopReason> {
    if ctx.store.criteria(&ctx.run_id)?.is_empty() {
        plan::plan(ctx, false)?;
    }
    let id = ctx.begin(Phase::Ralph)?;
    let criteria = ctx.store.criteria(&ctx.run_id)?;
    let mut items: Vec<RalphItem> = criteria
        .iter()
        .map(|c| RalphItem {
            id: c.id.clone(),
            verified: c.status == CriterionStatus::Verified,
            fails_in_a_row: 0,
            skipped: false,
        })
        .collect();
    items.push(RalphItem {
        id: GATES.into(),
        verified: false,
        fails_in_a_row: 0,
        skipped: false,
    });
    let mut loops = 0u32;
    let result = loop {
        match rules::ralph_next(&items, loops, ctx.pcfg.ralph_max_loops) {
            RalphNext::Done => break Ok(StopReason::Verified),
            RalphNext::MaxLoops => break Err(Halt::Stop(StopReason::MaxIterations)),
            RalphNext::AllSkipped => break Err(Halt::Stop(StopReason::NoStoryCanProgress)),
            RalphNext::Item { id: item } => {
                let what = if item == GATES {
                    "every gate pawl runs passes".to_string()
                } else {
                    criteria
                        .iter()
                        .find(|c| c.id == item)
                        .map(|c| format!("{} — {} ({})", c.id, c.text, c.verification.kind))
                        .unwrap_or_else(|| item.clone())
                };
                let prompt = format!(
                    "{}\n\nGoal: {}\n\nChecklist item: {what}\nWork on this item only. pawl verifies after this step \
                     and re-injects the next unverified item.",
                    roles::prompt(Role::Developer, ctx.prompts_dir.as_deref()),
                    ctx.analysis.goal
                );
                let s = match session::run(ctx, Role::Developer, None, &prompt, true) {
                    Ok(s) => s,
                    Err(h) => break Err(h),
                };
                loops += 1;
                let report = s.report.clone().unwrap_or_default();
                ctx.last_report = s.report.clone();
                for it in items.iter_mut() {
                    if it.id == GATES {
                        continue;
                    }
                    if report.verified.contains(&it.id) && it.id != item {
                        it.verified = true;
                    }
                }
                // The gates item is about pawl's gates, not the criteria's own commands.
                let gates_pass = report
                    .failing
                    .iter()
                    .all(|f| f.name.starts_with("criterion:"));
                let verified_now = if item == GATES {
                    gates_pass
                } else {
                    report.verified.contains(&item)
                };
                // The gates item is re-checked whenever something changes.
                if let Some(g) = items.iter_mut().find(|i| i.id == GATES)
                    && item != GATES
                {
                    g.verified = gates_pass;
                }
                let Some(it) = items.iter_mut().find(|i| i.id == item) else {
                    continue;
                };
                if rules::ralph_after(it, verified_now, ctx.pcfg.ralph_skip_after) {
                    let msg = format!(
                        "ralph skipped item {item} after {} failed loops in a row",
                        it.fails_in_a_row
                    );
                    ctx.store
                        .add_failure(&ctx.run_id, None, &msg, FailureCategory::Code, false)?;
                    ctx.store.add_note(&ctx.run_id, &msg)?;
                }
            }
        }
    };
    let (outcome, note) = match &result {
        Ok(_) => ("passed", "every checklist item verified".to_string()),
        Err(Halt::Stop(r)) => ("stopped", r.to_string()),
        Err(Halt::Engine(e)) => ("stopped", e.to_string()),
        Err(Halt::Replan(why)) => ("failed", why.clone()),
    };
    ctx.end(
        Phase::Ralph,
        id,
        outcome,
        &format!("{note} after {loops} loop(s)"),
    )?;
    result
}
