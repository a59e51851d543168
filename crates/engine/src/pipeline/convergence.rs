//! Convergence: the share of verified criteria must rise with every stage. A stage starts at a
//! checkpoint commit; when the share did not rise, pawl rolls the tree back to it (keeping a
//! backup ref of what it replaces), records the failed direction so the next plan does not
//! retry it, and re-plans.

use pawl_core::EventKind;
use pawl_core::model::{CriterionStatus, VerifyKind};
use pawl_core::pipeline::{self as rules, Convergence};
use pawl_store::ConvergenceRecord;

use super::{Ctx, P};

/// (share of verified criteria, every required criterion verified, (verified, total)).
pub(crate) fn share(ctx: &Ctx<'_>) -> P<(f64, bool, (usize, usize))> {
    let criteria = ctx.store.criteria(&ctx.run_id)?;
    let required = ctx.store.criteria_required(&ctx.run_id)?;
    let verified = criteria
        .iter()
        .filter(|c| c.status == CriterionStatus::Verified)
        .count();
    let required_ok = criteria.iter().all(|c| {
        c.status == CriterionStatus::Verified || !required.get(&c.id).copied().unwrap_or(true)
    });
    Ok((
        rules::verified_share(verified, criteria.len()),
        required_ok,
        (verified, criteria.len()),
    ))
}

/// The share of verified command criteria (what execution alone can verify): the execution
/// checkpoints' measure. 1.0 when there are none.
pub(crate) fn command_share(ctx: &Ctx<'_>) -> P<f64> {
    Ok(command_share_of(ctx.store, &ctx.run_id)?)
}

/// [`command_share`] of `run_id` in `store`.
pub(crate) fn command_share_of(
    store: &pawl_store::Store,
    run_id: &str,
) -> Result<f64, pawl_store::StoreError> {
    let criteria = store.criteria(run_id)?;
    let cmd: Vec<_> = criteria
        .iter()
        .filter(|c| c.verification.kind == VerifyKind::Command)
        .collect();
    if cmd.is_empty() {
        return Ok(1.0);
    }
    Ok(rules::verified_share(
        cmd.iter()
            .filter(|c| c.status == CriterionStatus::Verified)
            .count(),
        cmd.len(),
    ))
}

/// A checkpoint commit of the tree as it is (HEAD untouched), kept by
/// `refs/pawl/backups/checkpoint/<run>/<stage>-<round>`. `None` outside git.
pub(crate) fn checkpoint(ctx: &mut Ctx<'_>, stage: &str) -> P<Option<String>> {
    let Ok(repo) = pawl_git::Repo::open(&ctx.cfg.root) else {
        return Ok(None);
    };
    let Ok(commit) = repo.snapshot_commit(&format!(
        "pawl: checkpoint before {stage} (run {}, round {})",
        ctx.run_id, ctx.round
    )) else {
        return Ok(None);
    };
    let name = format!("checkpoint/{}/{stage}-{}", ctx.run_id, ctx.round);
    // The same checkpoint again (a resumed stage) is fine: the first one is kept.
    let _ = repo.backup_ref(&name, &commit);
    ctx.store.append_event(
        Some(&ctx.run_id),
        EventKind::Checkpoint,
        serde_json::json!({"stage": stage, "round": ctx.round, "commit": commit.as_str()}),
    )?;
    Ok(Some(commit.as_str().to_string()))
}

/// Judges a finished stage. Returns the re-plan reason when it stalled (after rolling back).
/// Execute is measured on the command criteria (what execution can verify), later stages on
/// every criterion.
pub(crate) fn after_stage(
    ctx: &mut Ctx<'_>,
    stage: &str,
    before: f64,
    checkpoint: &Option<String>,
    command_only: bool,
) -> P<Option<String>> {
    let (all, required_ok, (verified, total)) = share(ctx)?;
    let after = if command_only {
        command_share(ctx)?
    } else {
        all
    };
    let outcome = rules::convergence(before, after, required_ok, ctx.pcfg.converge_at);
    ctx.store.add_convergence(
        &ctx.run_id,
        &ConvergenceRecord {
            stage: stage.to_string(),
            round: ctx.round,
            before,
            after,
            verified: verified as u32,
            total: total as u32,
            outcome: match outcome {
                Convergence::Converged => "converged",
                Convergence::Rising => "rising",
                Convergence::Stalled => "stalled",
            }
            .to_string(),
            checkpoint: checkpoint.clone(),
            created_at: 0,
        },
    )?;
    if outcome != Convergence::Stalled {
        return Ok(None);
    }
    let reason = format!(
        "convergence: the share of verified criteria did not rise during {stage} ({before:.2} → {after:.2})"
    );
    if let Some(c) = checkpoint
        && let (Ok(repo), Some(commit)) = (
            pawl_git::Repo::open(&ctx.cfg.root),
            pawl_git::CommitId::new(c.clone()),
        )
    {
        match repo.rollback_to(&commit) {
            Ok(rb) => {
                ctx.store.append_event(
                    Some(&ctx.run_id),
                    EventKind::Rollback,
                    serde_json::json!({"stage": stage, "round": ctx.round, "to": c,
                        "backup_ref": rb.backup_ref, "why": reason}),
                )?;
            }
            Err(e) => {
                ctx.store.add_failure(
                    &ctx.run_id,
                    None,
                    &format!("rollback to the {stage} checkpoint failed: {e}"),
                    pawl_core::FailureCategory::Environment,
                    false,
                )?;
            }
        }
    }
    let direction = direction(ctx)?;
    ctx.store
        .add_failed_direction(&ctx.run_id, stage, ctx.round, &direction, &reason)?;
    Ok(Some(reason))
}

/// What this round tried: the latest plan's story titles.
fn direction(ctx: &Ctx<'_>) -> P<String> {
    let plans = ctx.store.plans(&ctx.run_id)?;
    Ok(match plans.last() {
        Some(p) => p
            .plan
            .stories
            .iter()
            .map(|s| s.title.clone())
            .collect::<Vec<_>>()
            .join("; "),
        None => format!("round {} without a plan", ctx.round),
    })
}
