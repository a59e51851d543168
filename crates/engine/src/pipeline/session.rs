//! One pipeline agent session as one iteration: it counts against the limits, is recorded with
//! its session id, and runs through the same attempt and turn as the headless loop
//! ([`crate::attempt::run_attempt`] under [`RetryPolicy::SESSION`], [`crate::turn::record`]).
//! Reviewer sessions always start fresh (never resume another session): their independence is
//! the point.
//!
//! A structured session parses the role's ```json answer; a malformed answer gets one retry with
//! the parse error in the prompt, then the run stops with `malformed_output`.

use pawl_core::StopReason;
use pawl_core::failure::FailureCategory;
use pawl_core::judge;
use pawl_core::pipeline::Role;
use pawl_core::turn::Next;
use serde::de::DeserializeOwned;

use super::{Ctx, Halt, P, roles, structured};
use crate::EngineError;
use crate::attempt::{AgentCtx, Attempt, RetryPolicy, run_attempt};
use crate::driver::LoopEvent;
use crate::step::StepOutcome;
use crate::turn::{self, Window};
use crate::verify::VerifyReport;

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

/// Stop, cancel, a blocker for the user and the limits (the turn's decision before a step), and
/// the calls-per-hour wait, before any agent session starts.
pub(crate) fn preflight(ctx: &mut Ctx<'_>) -> P<()> {
    let settings = ctx.store.run(&ctx.run_id)?.settings;
    if let Next::Stop(reason) = turn::decide(
        ctx.store,
        &ctx.run_id,
        &settings,
        &Window::default(),
        None,
        ctx.control.stop_requested(),
        &mut *ctx.observer,
    )? {
        if reason == StopReason::Stopped {
            ctx.control.clear_stop_file();
        }
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
    let attempt = run_attempt(
        &mut AgentCtx {
            store: &mut *ctx.store,
            run_id: &run_id,
            heartbeat: &mut ctx.heartbeat,
            adapter: &mut *ctx.adapter,
            cfg: ctx.cfg,
            control: ctx.control,
            observer: &mut *ctx.observer,
        },
        &Attempt {
            n,
            prompt,
            story,
            // Sessions always start fresh: a reviewer's independence is the point.
            resume_session: None,
            label: format!("{role} session (iteration {n})"),
            // QA's answer names the checks that become hidden ones.
            private_log: role == Role::Qa,
            settings: &settings,
            spent,
            policy: RetryPolicy::SESSION,
        },
        &mut ctx.stalls_run,
    )?;
    let outcome = attempt.outcome.clone();
    let report = if verify && !outcome.killed {
        (ctx.observer)(&LoopEvent::Verifying {
            n,
            checks: ctx.verifier.check_names(ctx.store, &run_id),
        });
        Some(
            ctx.verifier
                .verify(ctx.store, &run_id)
                .map_err(EngineError::from)?,
        )
    } else {
        None
    };
    let summary = match &report {
        Some(r) => format!("{role}: {}", turn::summary(Some(r))),
        None => format!("{role} session"),
    };
    let facts = turn::facts(&ctx.cfg.root, &outcome.did(), report.as_ref());
    let end = outcome.iteration_end(attempt.duration, attempt.active(), facts, summary);
    turn::record(
        ctx.store,
        &run_id,
        &settings,
        n,
        &end,
        report.as_ref(),
        &[],
        &mut *ctx.observer,
    )?;
    turn::commit_iteration(
        ctx.store,
        &ctx.cfg.root,
        &run_id,
        &settings,
        n,
        report.as_ref(),
    )?;
    if outcome.killed || ctx.control.kill_requested() {
        return Err(Halt::Stop(StopReason::Interrupted));
    }
    Ok(SessionOut {
        n,
        session_id: outcome.session_id.clone(),
        text: outcome.text.clone(),
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
