//! One pipeline agent session as one iteration: it counts against the limits, is recorded with
//! its session id, and runs through the same step machinery as the headless loop
//! ([`crate::step::run_step`]). Reviewer sessions always start fresh (never resume another
//! session): their independence is the point.
//!
//! A structured session parses the role's ```json answer; a malformed answer gets one retry with
//! the parse error in the prompt, then the run stops with `malformed_output`.

use std::time::{Duration, Instant};

use pawl_agent::{AgentEvent, StepRequest};
use pawl_core::StopReason;
use pawl_core::failure::FailureCategory;
use pawl_core::judge::{self, IterationFacts};
use pawl_core::model::RunStatus;
use pawl_core::pipeline::Role;
use pawl_process::End;
use serde::de::DeserializeOwned;
use serde_json::json;

use super::{Ctx, Halt, P, roles, structured};
use crate::driver::{LoopEvent, STALL_RECOVERIES_PER_STEP};
use crate::step::{StepOutcome, run_step};
use crate::verifier::VerifyReport;

/// At most this many provider rate-limit waits inside one pipeline session.
const RATE_WAITS: u32 = 5;

/// What a session did.
#[derive(Debug, Clone)]
pub struct SessionOut {
    /// Its iteration number.
    pub n: u32,
    pub session_id: Option<String>,
    /// All assistant text (and the final result text).
    pub text: String,
    pub outcome: StepOutcome,
    /// pawl's verification after the step, when asked for.
    pub report: Option<VerifyReport>,
}

/// Stop, cancel, limits and the calls-per-hour wait, before any agent session starts.
pub(crate) fn preflight(ctx: &mut Ctx<'_>) -> P<()> {
    if ctx.control.stop_requested() {
        ctx.control.clear_stop_file();
        return Err(Halt::Stop(StopReason::Stopped));
    }
    if ctx.store.run(&ctx.run_id)?.status == RunStatus::Cancelled {
        return Err(Halt::Stop(StopReason::Cancelled));
    }
    if ctx.store.awaited_blocker(&ctx.run_id)?.is_some() {
        return Err(Halt::Stop(StopReason::AwaitingUser));
    }
    let settings = ctx.store.run(&ctx.run_id)?.settings;
    let spent = ctx.store.spent(&ctx.run_id)?;
    if let Some(reason) = judge::limit_reached(&settings.limits, &spent) {
        return Err(Halt::Stop(reason));
    }
    let per_hour = match ctx.calls_per_hour {
        Some(n) if settings.limits.calls_per_hour == 0 => n,
        Some(n) => n.min(settings.limits.calls_per_hour),
        None => settings.limits.calls_per_hour,
    };
    let now = jiff::Timestamp::now().as_millisecond();
    let recent = ctx.store.call_times_since(&ctx.run_id, now - 3_600_000)?;
    if let Some(wait) = judge::calls_per_hour_wait(&recent, per_hour, now) {
        (ctx.observer)(&LoopEvent::Waiting {
            seconds: wait.as_secs(),
            why: format!("{} agent calls in the last hour (limit)", recent.len()),
        });
        if !ctx.sleep(wait) {
            return Err(Halt::Stop(StopReason::Stopped));
        }
    }
    Ok(())
}

/// Runs one agent session (one iteration). With `verify`, pawl verifies the tree after it and
/// records the report with the iteration (developer steps); reviewer sessions do not change code.
pub(crate) fn run(
    ctx: &mut Ctx<'_>,
    role: Role,
    story: Option<&str>,
    prompt: &str,
    verify: bool,
) -> P<SessionOut> {
    preflight(ctx)?;
    let run_id = ctx.run_id.clone();
    let settings = ctx.store.run(&run_id)?.settings;
    let spent = ctx.store.spent(&run_id)?;
    let n = ctx.store.begin_iteration(&run_id, story, prompt)?;
    (ctx.observer)(&LoopEvent::IterationStarted {
        n,
        max: settings.limits.max_iterations,
        story: story.map(str::to_string),
    });
    let budget_left = settings
        .limits
        .max_time
        .0
        .saturating_sub(Duration::from_millis(spent.active_ms));
    let step_timeout = settings.stall.step_timeout.0.min(budget_left);
    let started = Instant::now();
    let mut waited = Duration::ZERO;
    let mut earlier: Option<StepOutcome> = None;
    let mut stalls = 0u32;
    let mut rate_waits = 0u32;
    let mut text = String::new();
    let outcome = loop {
        let req = StepRequest {
            prompt: prompt.to_string(),
            cwd: ctx.cfg.root.clone(),
            run_id: run_id.clone(),
            iteration: n,
            resume_session: None,
            model: ctx.cfg.model.clone(),
            env: ctx.cfg.agent_env.clone(),
        };
        let log = ctx.cfg.logs_dir.join(format!("{run_id}-iter-{n}.log"));
        let used = started.elapsed().saturating_sub(waited);
        let store = &mut *ctx.store;
        let token = ctx.token.clone();
        let beat = &mut ctx.last_beat;
        let mut tick = || {
            if beat.elapsed() >= Duration::from_secs(10) {
                *beat = Instant::now();
                let _ = store.heartbeat(&run_id, &token, crate::LEASE_TTL_MS);
            }
        };
        let observer = &mut *ctx.observer;
        let mut on_event = |ev: &AgentEvent| {
            match ev {
                AgentEvent::Text { text: t } => {
                    text.push_str(t);
                    text.push('\n');
                }
                AgentEvent::Result { text: Some(t), .. } => {
                    text.push_str(t);
                    text.push('\n');
                }
                _ => {}
            }
            observer(&LoopEvent::Agent {
                n,
                event: ev.clone(),
            });
        };
        let mut o = run_step(
            &mut *ctx.adapter,
            &req,
            settings.stall.idle_timeout.0,
            step_timeout.saturating_sub(used),
            &log,
            ctx.control,
            &mut tick,
            &mut on_event,
        );
        if let Some(e) = earlier.take() {
            o.absorb_earlier(&e);
        }
        if o.killed {
            break o;
        }
        if let Some(retry_after) = o.rate_limited
            && rate_waits < RATE_WAITS
        {
            let wait = retry_after
                .unwrap_or(Duration::from_secs(30 << rate_waits.min(5)))
                .mul_f64(ctx.cfg.rate_limit_scale.max(0.0));
            rate_waits += 1;
            (ctx.observer)(&LoopEvent::Waiting {
                seconds: wait.as_secs(),
                why: o
                    .rate_limit_message
                    .clone()
                    .unwrap_or_else(|| "provider rate limit".into()),
            });
            let t = Instant::now();
            let woke = ctx.sleep(wait);
            waited += t.elapsed();
            if !woke {
                break o;
            }
            earlier = Some(o);
            text.clear();
            continue;
        }
        if o.end == Some(End::IdleTimedOut) && stalls < STALL_RECOVERIES_PER_STEP {
            stalls += 1;
            ctx.store.add_failure(
                &run_id,
                story,
                &format!(
                    "{role} session (iteration {n}) produced no output for {}",
                    settings.stall.idle_timeout
                ),
                FailureCategory::Timeout,
                false,
            )?;
            (ctx.observer)(&LoopEvent::StallRecovered {
                n,
                recoveries: stalls,
            });
            earlier = Some(o);
            text.clear();
            continue;
        }
        break o;
    };
    let report = if verify && !outcome.killed {
        let r = ctx
            .verifier
            .verify(ctx.store, &run_id)
            .map_err(|e| Halt::Engine(crate::EngineError::Verify(e)))?;
        ctx.store.append_event(
            Some(&run_id),
            "verification",
            serde_json::to_value(&r).unwrap_or(json!(null)),
        )?;
        Some(r)
    } else {
        None
    };
    let summary = match &report {
        Some(r) if r.failing.is_empty() => format!("{role}: every check passes"),
        Some(r) => format!(
            "{role}: {} of {} checks failing: {}",
            r.failing.len(),
            r.checks.len(),
            r.failing
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!("{role} session"),
    };
    let active = started.elapsed().saturating_sub(waited);
    let facts = IterationFacts {
        tree_hash: report.as_ref().map(|r| r.tree_hash.clone()),
        verified: report
            .as_ref()
            .map(|r| r.verified.clone())
            .unwrap_or_default(),
        unmet: report.as_ref().map(|r| r.unmet.clone()).unwrap_or_default(),
        edits: outcome.edits.clone(),
        agent_error: outcome.agent_error(),
        permission_denials: outcome.permission_denials,
        output_fingerprint: outcome.text_fingerprint.clone(),
        ..Default::default()
    };
    let end = outcome.iteration_end(started.elapsed(), active, facts, summary.clone());
    ctx.store.finish_iteration(&run_id, n, &end)?;
    let spent = ctx.store.spent(&run_id)?;
    (ctx.observer)(&LoopEvent::Iteration {
        n,
        max: settings.limits.max_iterations,
        outcome: end.outcome.clone(),
        checks_passing: report
            .as_ref()
            .map(|r| r.checks.len() - r.failing.len())
            .unwrap_or(0),
        checks_total: report.as_ref().map(|r| r.checks.len()).unwrap_or(0),
        usd: spent.usd,
        max_usd: settings.limits.max_usd,
        active_ms: spent.active_ms,
        summary,
    });
    if outcome.killed || ctx.control.kill_requested() {
        return Err(Halt::Stop(StopReason::Interrupted));
    }
    Ok(SessionOut {
        n,
        session_id: outcome.session_id.clone(),
        text,
        outcome,
        report,
    })
}

/// A session whose answer must be `T`: the role prompt, `body`, the schema; one retry with
/// the parse error when the answer is malformed, then a typed stop.
pub(crate) fn structured<T: DeserializeOwned>(
    ctx: &mut Ctx<'_>,
    role: Role,
    story: Option<&str>,
    body: &str,
) -> P<(T, SessionOut)> {
    let base = format!(
        "{}\n\n{body}{}",
        roles::prompt(role, ctx.prompts_dir.as_deref()),
        roles::answer_instructions(role)
    );
    let first = run(ctx, role, story, &base, false)?;
    let err = match structured::parse::<T>(&first.text) {
        Ok(v) => return Ok((v, first)),
        Err(e) => e,
    };
    ctx.store.add_failure(
        &ctx.run_id,
        None,
        &format!(
            "{role} session (iteration {}) answered with malformed output: {err}; asking once more",
            first.n
        ),
        FailureCategory::Spec,
        false,
    )?;
    let retry = format!(
        "{base}\n\n## Your previous answer could not be used\n{err}\nAnswer again: end with ONE fenced ```json block matching the schema above.\n"
    );
    let second = run(ctx, role, story, &retry, false)?;
    match structured::parse::<T>(&second.text) {
        Ok(v) => Ok((v, second)),
        Err(e2) => {
            ctx.store.add_failure(
                &ctx.run_id,
                None,
                &format!(
                    "{role} session (iteration {}) answered with malformed output again: {e2}",
                    second.n
                ),
                FailureCategory::Spec,
                false,
            )?;
            Err(Halt::Stop(StopReason::MalformedOutput))
        }
    }
}
