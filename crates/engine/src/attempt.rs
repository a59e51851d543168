//! One agent attempt: the agent step of one iteration, with everything that may make it start
//! again — stall recovery after an idle timeout and waits for the provider's rate limit, off the
//! clock — under one named [`RetryPolicy`]. The headless loop and the pipeline's sessions both
//! run their steps through [`run_attempt`]; what differs between them (continue the session the
//! agent had started after a rate limit, how many waits) is the policy, not the code.
//!
//! What this module is not: the step itself (spawning, streaming, timeouts: [`crate::step`]), or
//! what the iteration concludes (the turn: [`crate::turn`]).

use std::time::{Duration, Instant};

use pawl_agent::{Adapter, AgentEvent, StepRequest};
use pawl_core::failure::FailureCategory;
use pawl_core::judge::Spent;
use pawl_core::record::RunSettings;
use pawl_process::End;
use pawl_store::{Store, StoreError};

use crate::control::Control;
use crate::loop_config::{LoopConfig, LoopEvent};
use crate::step::{StepOutcome, run_step};

/// Lease heartbeat interval.
const HEARTBEAT: Duration = Duration::from_secs(10);

/// Exponential backoff: `base · 2^n`, capped at `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub base: Duration,
    pub max: Duration,
}

impl Backoff {
    /// A provider's rate limit that gave no retry-after: 30 s, doubling, at most 15 minutes.
    pub const PROVIDER: Backoff = Backoff {
        base: Duration::from_secs(30),
        max: Duration::from_secs(15 * 60),
    };

    /// The delay before retry number `n` (0-based).
    pub fn delay(&self, n: u32) -> Duration {
        self.base.saturating_mul(1u32 << n.min(20)).min(self.max)
    }

    /// The delays of retries 0, 1, 2, …
    pub fn iter(self) -> impl Iterator<Item = Duration> {
        (0u32..).map(move |n| self.delay(n))
    }
}

/// When an agent step is started again within the same iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Stall recoveries (the agent went silent for the idle timeout) within one step.
    pub stalls_per_step: u32,
    /// Stall recoveries over the whole drive; `None`: no limit beyond the per-step one.
    pub stalls_per_run: Option<u32>,
    /// Rate-limit waits within one step; `None`: as many as the provider asks for (each is off
    /// the clock, and a stop request ends the wait).
    pub rate_limit_waits: Option<u32>,
    /// The wait when the provider gives no retry-after.
    pub backoff: Backoff,
    /// After a rate limit, continue the agent session the step had started (its work is not lost)
    /// rather than start a fresh one.
    pub resume_after_rate_limit: bool,
}

impl RetryPolicy {
    /// The headless loop: a developer step continues its session; waits are unlimited.
    pub const LOOP: RetryPolicy = RetryPolicy {
        stalls_per_step: 3,
        stalls_per_run: Some(10),
        rate_limit_waits: None,
        backoff: Backoff::PROVIDER,
        resume_after_rate_limit: true,
    };

    /// A pipeline session: always fresh (a reviewer's independence is the point), at most five
    /// rate-limit waits before the session's result is taken as it is.
    pub const SESSION: RetryPolicy = RetryPolicy {
        stalls_per_step: 3,
        stalls_per_run: None,
        rate_limit_waits: Some(5),
        backoff: Backoff::PROVIDER,
        resume_after_rate_limit: false,
    };

    /// What to do after one try of a step. Pure: the counts are of the tries before this one.
    pub fn after(&self, t: &Tried) -> Retry {
        if t.killed {
            return Retry::Give;
        }
        if let Some(retry_after) = t.rate_limited {
            if self.rate_limit_waits.is_some_and(|max| t.rate_waits >= max) {
                return Retry::Give;
            }
            return Retry::Wait(retry_after.unwrap_or_else(|| self.backoff.delay(t.rate_waits)));
        }
        if t.idle_timed_out {
            let step_spent = t.stalls_step + 1 > self.stalls_per_step;
            let run_spent = self
                .stalls_per_run
                .is_some_and(|max| t.stalls_run + 1 > max);
            if step_spent || run_spent || t.stop_requested {
                return Retry::Give;
            }
            return Retry::Recover;
        }
        Retry::Give
    }
}

/// What one try of a step showed, for [`RetryPolicy::after`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tried {
    pub killed: bool,
    /// The provider asked to wait (with its retry-after, when given).
    pub rate_limited: Option<Option<Duration>>,
    pub idle_timed_out: bool,
    pub stop_requested: bool,
    /// Rate-limit waits before this try, in this step.
    pub rate_waits: u32,
    /// Stall recoveries before this try, in this step and in the drive.
    pub stalls_step: u32,
    pub stalls_run: u32,
}

/// The decision after one try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// This try is the step's outcome.
    Give,
    /// Wait this long (scaled for tests), off the clock, then try again.
    Wait(Duration),
    /// The agent went silent: start it again now.
    Recover,
}

/// The run's lease, kept alive while a driver works.
#[derive(Debug)]
pub struct Heartbeat {
    token: String,
    ttl_ms: i64,
    last: Instant,
}

impl Heartbeat {
    pub fn new(token: impl Into<String>, ttl_ms: i64) -> Heartbeat {
        Heartbeat {
            token: token.into(),
            ttl_ms,
            last: Instant::now(),
        }
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// Renews the lease when the last renewal is older than the heartbeat interval.
    pub fn beat(&mut self, store: &mut Store, run_id: &str) {
        if self.last.elapsed() >= HEARTBEAT {
            self.last = Instant::now();
            let _ = store.heartbeat(run_id, &self.token, self.ttl_ms);
        }
    }

    /// Sleeps in small steps, beating; false if a stop was requested meanwhile.
    pub fn sleep(
        &mut self,
        store: &mut Store,
        run_id: &str,
        total: Duration,
        control: &Control,
    ) -> bool {
        let end = Instant::now() + total;
        while Instant::now() < end {
            if control.stop_requested() || control.kill_requested() {
                return false;
            }
            std::thread::sleep(
                Duration::from_millis(50).min(end.saturating_duration_since(Instant::now())),
            );
            self.beat(store, run_id);
        }
        true
    }
}

/// What a driver hands an attempt besides the request.
pub struct AgentCtx<'a> {
    pub store: &'a mut Store,
    pub run_id: &'a str,
    pub heartbeat: &'a mut Heartbeat,
    pub adapter: &'a mut dyn Adapter,
    pub cfg: &'a LoopConfig,
    pub control: &'a Control,
    pub observer: &'a mut dyn FnMut(&LoopEvent),
}

/// One attempt's request.
pub struct Attempt<'a> {
    /// The iteration it belongs to.
    pub n: u32,
    pub prompt: &'a str,
    pub story: Option<&'a str>,
    /// The agent session to continue, if any.
    pub resume_session: Option<String>,
    /// How failures name the step ("agent step 3", "critic session (iteration 4)").
    pub label: String,
    /// Its log goes to the loop's private logs directory, out of the agent's reach.
    pub private_log: bool,
    pub settings: &'a RunSettings,
    /// What the run had spent when the iteration began (the step may not outrun the time left).
    pub spent: Spent,
    pub policy: RetryPolicy,
}

/// What an attempt did.
#[derive(Debug, Clone)]
pub struct AttemptOut {
    /// The last try, with what earlier tries spent folded in.
    pub outcome: StepOutcome,
    /// Wall time of the attempt, and the part spent waiting for rate limits (not active time).
    pub duration: Duration,
    pub waited: Duration,
    /// The agent went silent more often than the policy allows, and no stop was asked for.
    pub stall_exhausted: bool,
}

impl AttemptOut {
    pub fn active(&self) -> Duration {
        self.duration.saturating_sub(self.waited)
    }
}

/// Runs one agent step to its outcome, retrying under `a.policy`. `stalls_run` counts the
/// drive's stall recoveries across attempts.
pub fn run_attempt(
    cx: &mut AgentCtx<'_>,
    a: &Attempt<'_>,
    stalls_run: &mut u32,
) -> Result<AttemptOut, StoreError> {
    let settings = a.settings;
    // The wall-time budget is a hard limit: a step can not run past what is left of it.
    let budget_left = settings
        .limits
        .max_time
        .0
        .saturating_sub(Duration::from_millis(a.spent.active_ms));
    let step_timeout = settings.stall.step_timeout.0.min(budget_left);
    let started = Instant::now();
    let mut waited = Duration::ZERO;
    let mut earlier: Option<StepOutcome> = None;
    let mut stalls_step = 0u32;
    let mut rate_waits = 0u32;
    // After a rate limit the retry may continue the session the agent had started.
    let mut retry_session: Option<String> = None;
    let n = a.n;
    let outcome = loop {
        let resume_session = retry_session.clone().or_else(|| a.resume_session.clone());
        // What this run already charged for the session it continues (its earlier steps, and
        // the tries of this iteration cut off before): the base a running total grows from.
        let session_spent_usd = match &resume_session {
            Some(session) => {
                let charged: f64 = cx
                    .store
                    .iterations(cx.run_id)?
                    .iter()
                    .filter(|it| it.session_id.as_deref() == Some(session.as_str()))
                    .map(|it| it.cost_usd)
                    .sum();
                let this_iteration = earlier.as_ref().map_or(0.0, |e| e.cost_usd);
                Some(charged + this_iteration)
            }
            None => None,
        };
        let req = StepRequest {
            prompt: a.prompt.to_string(),
            cwd: cx.cfg.root.clone(),
            run_id: cx.run_id.to_string(),
            iteration: n,
            resume_session,
            session_spent_usd,
            model: cx.cfg.model.clone(),
            env: cx.cfg.agent_env.clone(),
        };
        let logs_dir = match &cx.cfg.private_logs_dir {
            Some(dir) if a.private_log => dir,
            _ => &cx.cfg.logs_dir,
        };
        let log = logs_dir.join(format!("{}-iter-{n}.log", cx.run_id));
        // The budget clock runs only while the agent works: what is left of the step's timeout
        // shrinks by the active time of earlier tries, not by waits.
        let used = started.elapsed().saturating_sub(waited);
        if let Some(before) = &cx.cfg.before_step {
            before(cx.store, cx.run_id);
        }
        let mut o = {
            let store = &mut *cx.store;
            let heartbeat = &mut *cx.heartbeat;
            let run_id = cx.run_id;
            let observer = &mut *cx.observer;
            run_step(
                &mut *cx.adapter,
                &req,
                cx.cfg.containment.as_ref(),
                settings.stall.idle_timeout.0,
                step_timeout.saturating_sub(used),
                &log,
                settings
                    .agent
                    .as_ref()
                    .map_or(pawl_core::config::DEFAULT_MAX_LOG_MIB, |a| a.max_log_mib)
                    .max(1)
                    .saturating_mul(1 << 20),
                cx.control,
                &mut || heartbeat.beat(store, run_id),
                &mut |ev: &AgentEvent| {
                    observer(&LoopEvent::Agent {
                        n,
                        event: ev.clone(),
                    })
                },
            )
        };
        if let Some(after) = &cx.cfg.after_step {
            after(cx.store, cx.run_id);
        }
        if let Some(e) = earlier.take() {
            o.absorb_earlier(&e);
        }
        let idle = o.end == Some(End::IdleTimedOut);
        if idle {
            // Every silence is on the record, recovered or not.
            cx.store.add_failure(
                cx.run_id,
                a.story,
                &format!(
                    "{} produced no output for {}",
                    a.label, settings.stall.idle_timeout
                ),
                FailureCategory::Timeout,
                false,
            )?;
        }
        let decision = a.policy.after(&Tried {
            killed: o.killed,
            rate_limited: o.rate_limited,
            idle_timed_out: idle,
            stop_requested: cx.control.stop_requested() || cx.control.kill_requested(),
            rate_waits,
            stalls_step,
            stalls_run: *stalls_run,
        });
        if idle {
            stalls_step += 1;
            *stalls_run += 1;
        }
        match decision {
            Retry::Give => break o,
            Retry::Wait(wait) => {
                if a.policy.resume_after_rate_limit && o.session_id.is_some() {
                    retry_session = o.session_id.clone();
                }
                // The provider asked us to wait: not a stall, not a failure, not active time.
                let wait = wait.mul_f64(cx.cfg.rate_limit_scale.max(0.0));
                rate_waits += 1;
                (cx.observer)(&LoopEvent::Waiting {
                    seconds: wait.as_secs(),
                    why: o
                        .rate_limit_message
                        .clone()
                        .unwrap_or_else(|| "provider rate limit".into()),
                });
                let t = Instant::now();
                let woke = cx.heartbeat.sleep(cx.store, cx.run_id, wait, cx.control);
                waited += t.elapsed();
                if !woke {
                    break o;
                }
                earlier = Some(o);
            }
            Retry::Recover => {
                (cx.observer)(&LoopEvent::StallRecovered {
                    n,
                    recoveries: *stalls_run,
                });
                earlier = Some(o);
            }
        }
    };
    if outcome.end == Some(End::TimedOut) {
        cx.store.add_failure(
            cx.run_id,
            a.story,
            &format!(
                "{} ran out of time ({})",
                a.label,
                if step_timeout < settings.stall.step_timeout.0 {
                    "the run's max_time budget".to_string()
                } else {
                    format!("step_timeout {}", settings.stall.step_timeout)
                }
            ),
            FailureCategory::Timeout,
            false,
        )?;
    }
    // Charged now, before the work is verified: a crash during verification loses nothing.
    cx.store.record_step_spend(
        cx.run_id,
        n,
        &pawl_store::StepSpend {
            tokens_in: outcome.usage.input_total(),
            tokens_out: outcome.usage.output_tokens,
            cost_usd: outcome.cost_usd,
            cost_estimated: outcome.cost_estimated,
            session_id: outcome.session_id.clone(),
        },
    )?;
    // A stall that ended because a stop was asked for is a stop, not an exhausted breaker.
    let stall_exhausted = outcome.end == Some(End::IdleTimedOut) && !cx.control.stop_requested();
    Ok(AttemptOut {
        outcome,
        duration: started.elapsed(),
        waited,
        stall_exhausted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn backoff_doubles_and_caps() {
        let d: Vec<Duration> = Backoff::PROVIDER.iter().take(7).collect();
        assert_eq!(d, [S(30), S(60), S(120), S(240), S(480), S(900), S(900)]);
        assert_eq!(Backoff::PROVIDER.delay(u32::MAX), S(900));
    }

    /// Rows: policy, what the try showed, the decision.
    #[test]
    fn retry_decisions() {
        let rl = |retry_after: Option<Duration>, waits: u32| Tried {
            rate_limited: Some(retry_after),
            rate_waits: waits,
            ..Tried::default()
        };
        let idle = |step: u32, run: u32, stop: bool| Tried {
            idle_timed_out: true,
            stalls_step: step,
            stalls_run: run,
            stop_requested: stop,
            ..Tried::default()
        };
        let rows: &[(RetryPolicy, Tried, Retry)] = &[
            (RetryPolicy::LOOP, Tried::default(), Retry::Give),
            (RetryPolicy::LOOP, rl(None, 0), Retry::Wait(S(30))),
            (RetryPolicy::LOOP, rl(None, 3), Retry::Wait(S(240))),
            (RetryPolicy::LOOP, rl(Some(S(7)), 3), Retry::Wait(S(7))),
            // The loop waits as often as the provider asks.
            (RetryPolicy::LOOP, rl(None, 50), Retry::Wait(S(900))),
            // A session gives up after five waits, with the same backoff.
            (RetryPolicy::SESSION, rl(None, 4), Retry::Wait(S(480))),
            (RetryPolicy::SESSION, rl(None, 5), Retry::Give),
            (RetryPolicy::LOOP, idle(0, 0, false), Retry::Recover),
            (RetryPolicy::LOOP, idle(2, 2, false), Retry::Recover),
            (RetryPolicy::LOOP, idle(3, 3, false), Retry::Give),
            (RetryPolicy::LOOP, idle(0, 10, false), Retry::Give),
            (RetryPolicy::SESSION, idle(0, 10, false), Retry::Recover),
            (RetryPolicy::SESSION, idle(3, 3, false), Retry::Give),
            (RetryPolicy::LOOP, idle(0, 0, true), Retry::Give),
            (
                RetryPolicy::LOOP,
                Tried {
                    killed: true,
                    ..rl(None, 0)
                },
                Retry::Give,
            ),
        ];
        for (i, (policy, tried, want)) in rows.iter().enumerate() {
            assert_eq!(policy.after(tried), *want, "row {i}: {tried:?}");
        }
    }
}
