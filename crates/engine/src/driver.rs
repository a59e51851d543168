//! The loop. One owner (this function, on one thread) holds the run's state: it takes the lease,
//! spawns the agent step by step, has pawl verify after each step, records the iteration, and
//! decides — continue, wait, or stop with a typed reason. Everything it decides comes from
//! pawl-core; everything it remembers goes through the store, so a crash at any point resumes
//! with nothing lost and nothing counted twice.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use pawl_agent::{Adapter, AgentEvent, StepRequest};
use pawl_core::StopReason;
use pawl_core::failure::FailureCategory;
use pawl_core::judge::{self, IterationFacts};
use pawl_core::model::{RunStatus, StoryStatus};
use pawl_core::record::{Lease, Story};
use pawl_process::End;
use pawl_store::Store;
use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::control::Control;
use crate::prompt::{self, PromptInput};
use crate::step::{StepOutcome, run_step};
use crate::verifier::{Verifier, VerifyReport};
use crate::{EngineError, LEASE_TTL_MS};

/// At most this many stall recoveries (idle timeouts) per step and per run.
pub const STALL_RECOVERIES_PER_STEP: u32 = 3;
pub const STALL_RECOVERIES_PER_RUN: u32 = 10;
/// Rate-limit backoff when the provider gives no retry-after: base, doubling, capped.
const RATE_BASE: Duration = Duration::from_secs(30);
const RATE_MAX: Duration = Duration::from_secs(15 * 60);
/// Lease heartbeat interval.
const HEARTBEAT: Duration = Duration::from_secs(10);

/// What the loop tells its observer (the CLI prints it).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LoopEvent {
    Started {
        run_id: String,
        resumed: bool,
        interrupted_iterations: Vec<u32>,
    },
    IterationStarted {
        n: u32,
        max: u32,
        story: Option<String>,
    },
    Agent {
        n: u32,
        event: AgentEvent,
    },
    Waiting {
        seconds: u64,
        why: String,
    },
    StallRecovered {
        n: u32,
        recoveries: u32,
    },
    Iteration {
        n: u32,
        max: u32,
        outcome: String,
        checks_passing: usize,
        checks_total: usize,
        usd: f64,
        max_usd: f64,
        active_ms: u64,
        summary: String,
    },
    StorySkipped {
        story: String,
        attempts: u32,
    },
    Finished {
        reason: StopReason,
        exit_code: i32,
    },
    /// A pipeline phase started (`outcome` none) or ended.
    Phase {
        phase: String,
        round: u32,
        outcome: Option<String>,
        note: String,
    },
    /// A reviewer session's verdict (architect, critic, security, reviewer, qa).
    Verdict {
        role: String,
        round: u32,
        story: Option<String>,
        approve: bool,
        session_id: Option<String>,
        blocking: usize,
        summary: String,
    },
    /// The pipeline's progress report (every 3 stories or 30 minutes).
    Progress {
        stories_done: u32,
        stories_total: u32,
        verified: usize,
        criteria: usize,
        active_ms: u64,
    },
}

/// Who is driving (for the lease).
pub struct Owner {
    pub pid: u32,
    pub host: String,
    pub is_alive: fn(&Lease) -> bool,
}

/// Everything the loop needs besides the store.
pub struct LoopConfig {
    pub root: PathBuf,
    pub logs_dir: PathBuf,
    pub model: Option<String>,
    /// Extra environment for the agent.
    pub agent_env: Vec<(String, String)>,
    pub owner: Owner,
    /// For tests: how long one unit of rate-limit backoff is (production: as the provider says).
    pub rate_limit_scale: f64,
    /// Commit each completed story (`[git] auto_commit`).
    pub auto_commit: bool,
}

/// Commits the working tree for a story that was just completed, on the run's branch, and
/// records it. Returns the commit, or `None` when there was nothing to commit.
pub fn commit_story(
    store: &mut Store,
    root: &std::path::Path,
    run_id: &str,
    story: &Story,
) -> Result<Option<String>, EngineError> {
    let repo = pawl_git::Repo::open(root).map_err(|e| EngineError::Verify(format!("git: {e}")))?;
    let message = format!("pawl: {} {} (run {run_id})", story.id, story.title);
    let commit = repo
        .commit_all(&message)
        .map_err(|e| EngineError::Verify(format!("git: {e}")))?
        .map(|c| c.to_string());
    store.append_event(
        Some(run_id),
        "story_committed",
        json!({"story": story.id, "commit": commit, "message": message}),
    )?;
    Ok(commit)
}

/// How the loop ended.
#[derive(Debug, Clone, Serialize)]
pub struct LoopEnd {
    pub reason: StopReason,
    pub last: Option<VerifyReport>,
}

/// What part of a run one pass of the loop works on. The default is the whole run (the
/// headless driver); the pipeline's execute phase runs the same loop as a sub-loop on one story.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scope {
    /// Work on this story only; when it runs out of attempts the sub-loop ends with
    /// `NoStoryCanProgress` (the pipeline moves on to the next story).
    pub story: Option<String>,
    /// Put at the top of every prompt (the role and the story's plan).
    pub preamble: Option<String>,
    /// End as soon as every check passes (the pipeline's review and QA decide the rest), not only
    /// when the whole run is done.
    pub until_checks_pass: bool,
    /// Start a fresh agent session instead of continuing the last one.
    pub fresh_session: bool,
}

impl Scope {
    fn is_sub_loop(&self) -> bool {
        self.story.is_some() || self.until_checks_pass
    }
}

/// Drives `run_id` until it is verified or stops with a reason.
pub fn drive(
    store: &mut Store,
    run_id: &str,
    adapter: &mut dyn Adapter,
    verifier: &mut dyn Verifier,
    cfg: &LoopConfig,
    control: &Control,
    observer: &mut dyn FnMut(&LoopEvent),
) -> Result<LoopEnd, EngineError> {
    drive_with(
        store,
        run_id,
        cfg,
        observer,
        &mut |store, token, observer| {
            drive_leased(
                store,
                run_id,
                adapter,
                verifier,
                cfg,
                control,
                observer,
                token,
                &Scope::default(),
            )
        },
    )
}

/// The body of a leased run: the store, the lease token and the observer.
pub(crate) type LeasedBody<'a> =
    dyn FnMut(&mut Store, &str, &mut dyn FnMut(&LoopEvent)) -> Result<LoopEnd, EngineError> + 'a;

/// Takes the lease, runs `body`, releases the lease and records how the run ended (the same
/// for the headless loop and the pipeline).
pub(crate) fn drive_with(
    store: &mut Store,
    run_id: &str,
    cfg: &LoopConfig,
    observer: &mut dyn FnMut(&LoopEvent),
    body: &mut LeasedBody<'_>,
) -> Result<LoopEnd, EngineError> {
    let lease = store
        .acquire_lease(
            run_id,
            cfg.owner.pid,
            &cfg.owner.host,
            LEASE_TTL_MS,
            &cfg.owner.is_alive,
        )?
        .lease;
    let result = body(store, &lease.token, observer);
    let _ = store.release_lease(run_id, &lease.token);
    let end = match result {
        Ok(end) => end,
        Err(e) => {
            // Every stop explains itself, an internal error too; the run stays resumable.
            if store.run(run_id).is_ok_and(|r| !r.status.is_terminal()) {
                let _ = store.set_run_status(run_id, RunStatus::Stopped, Some(StopReason::Error));
            }
            return Err(e);
        }
    };
    let status = match end.reason {
        StopReason::Verified => RunStatus::Done,
        // Resumable once the user has acted (`pawl user-fixed`).
        StopReason::AwaitingUser => RunStatus::AwaitingUser,
        _ => RunStatus::Stopped,
    };
    let run = store.run(run_id)?;
    if !run.status.is_terminal() {
        store.set_run_status(run_id, status, Some(end.reason))?;
    }
    observer(&LoopEvent::Finished {
        reason: end.reason,
        exit_code: end.reason.exit_code().code(),
    });
    Ok(end)
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn drive_leased(
    store: &mut Store,
    run_id: &str,
    adapter: &mut dyn Adapter,
    verifier: &mut dyn Verifier,
    cfg: &LoopConfig,
    control: &Control,
    observer: &mut dyn FnMut(&LoopEvent),
    token: &str,
    scope: &Scope,
) -> Result<LoopEnd, EngineError> {
    let interrupted = store.interrupt_open_iterations(run_id)?;
    let run = store.run(run_id)?;
    // A run waiting on the user stays waiting (the loop stops at once below) until the user
    // clears it with `pawl user-fixed`.
    if run.status != RunStatus::Active && store.awaited_blocker(run_id)?.is_none() {
        store.set_run_status(run_id, RunStatus::Active, None)?;
    }
    let settings = run.settings.clone();
    let resumed = !store.iterations(run_id)?.is_empty();
    if !scope.is_sub_loop() {
        observer(&LoopEvent::Started {
            run_id: run_id.into(),
            resumed,
            interrupted_iterations: interrupted,
        });
    }

    let git = pawl_git::Repo::open(&cfg.root).ok();
    // Progress of the first step after (re)starting is measured against the tree as it is now.
    let baseline_tree = git
        .as_ref()
        .and_then(|g| g.tree_hash().ok())
        .map(|t| t.to_string());
    let past = store.iterations(run_id)?;
    // The agent session the next step continues (kept here, not re-read every iteration).
    let mut resume_session: Option<String> = past.iter().rev().find_map(|i| i.session_id.clone());
    let mut history: Vec<IterationFacts> = past.into_iter().filter_map(|i| i.facts).collect();
    if scope.fresh_session {
        resume_session = None;
    }
    if scope.is_sub_loop() {
        // A sub-loop's breakers judge its own steps (the pipeline's reviewer sessions and other
        // stories are not this story's lack of progress).
        history.clear();
    }
    // The user resumed a run a breaker had opened: the breaker is half-open, its window starts
    // again (otherwise one more step without progress would trip it at once). A crash resume
    // (the run was still active) keeps the window: nothing is forgotten.
    let breaker_stop = run.status == RunStatus::Stopped
        && run
            .stop_reason
            .is_some_and(|r| r.exit_code() == pawl_core::ExitCode::Breaker);
    if breaker_stop && !scope.is_sub_loop() && !history.is_empty() {
        store.append_event(
            Some(run_id),
            "breakers_reset",
            json!({"after": run.stop_reason, "window_cleared": history.len()}),
        )?;
        history.clear();
    }
    let mut last_report: Option<VerifyReport> = None;
    let mut last_heartbeat = Instant::now();
    let mut stalls_run: u32 = 0;
    let mut claimed_done = false;
    let mut files_changed_cache: Option<(String, Vec<String>)> = None;

    if resumed && !scope.is_sub_loop() {
        // Resuming: the tree may already be verified (a crash after the last step, or the user
        // fixed it by hand). Check before spending an iteration; the evidence also feeds the
        // continuation prompt. Gates are cached by tree hash, so this is cheap when nothing changed.
        let report = verifier
            .verify(store, run_id)
            .map_err(EngineError::Verify)?;
        store.append_event(
            Some(run_id),
            "verification",
            serde_json::to_value(&report).unwrap_or(json!(null)),
        )?;
        if report.done {
            return Ok(LoopEnd {
                reason: StopReason::Verified,
                last: Some(report),
            });
        }
        last_report = Some(report);
    }

    loop {
        if control.stop_requested() {
            control.clear_stop_file();
            return Ok(LoopEnd {
                reason: StopReason::Stopped,
                last: last_report,
            });
        }
        // `pawl cancel` from outside: the run is over, whatever the loop thought.
        if store.run(run_id)?.status == RunStatus::Cancelled {
            return Ok(LoopEnd {
                reason: StopReason::Cancelled,
                last: last_report,
            });
        }
        // The agent (or the user) handed a blocker to the user: nothing to do until it is fixed.
        if store.awaited_blocker(run_id)?.is_some() {
            return Ok(LoopEnd {
                reason: StopReason::AwaitingUser,
                last: last_report,
            });
        }
        let spent = store.spent(run_id)?;
        if let Some(reason) = judge::limit_reached(&settings.limits, &spent) {
            return Ok(LoopEnd {
                reason,
                last: last_report,
            });
        }
        // Calls per hour: wait rather than fail; waiting is not active time.
        let now = jiff::Timestamp::now().as_millisecond();
        let recent = store.call_times_since(run_id, now - 3_600_000)?;
        if let Some(wait) = judge::calls_per_hour_wait(&recent, settings.limits.calls_per_hour, now)
        {
            observer(&LoopEvent::Waiting {
                seconds: wait.as_secs(),
                why: format!("{} agent calls in the last hour (limit)", recent.len()),
            });
            if !sleep_unless_stopped(wait, control, &mut || {
                heartbeat(store, run_id, token, &mut last_heartbeat)
            }) {
                continue;
            }
        }

        let story = match &scope.story {
            Some(id) => Some(start_story(store, run_id, id)?),
            None => current_or_next_story(store, run_id)?,
        };
        let criteria = store.criteria(run_id)?;
        let failures = store.failures(run_id, story.as_ref().map(|s| s.id.as_str()), 4)?;
        let decisions = store.notes(run_id)?;
        let pre_run = run.pre_run_commit.clone().and_then(pawl_git::CommitId::new);
        // Nothing runs between the last verification and this prompt, so the files changed
        // since the pre-run commit are known while the verified tree is the one we diffed
        // (a stuck agent does not cost a tree hash and a diff per iteration).
        let tree_now = last_report.as_ref().map(|r| r.tree_hash.clone());
        let files_changed: Vec<String> = match (&files_changed_cache, &tree_now) {
            (Some((tree, files)), Some(now)) if tree == now => files.clone(),
            _ => {
                let files: Vec<String> = match (&git, &pre_run) {
                    (Some(g), Some(c)) => g
                        .changed_files_since(c)
                        .map(|v| v.into_iter().map(|p| p.display().to_string()).collect())
                        .unwrap_or_default(),
                    _ => Vec::new(),
                };
                if let Some(now) = tree_now {
                    files_changed_cache = Some((now, files.clone()));
                }
                files
            }
        };
        let n_next = spent.iterations + 1;
        let input = PromptInput {
            goal: &run.goal,
            run_id,
            iteration: n_next,
            max_iterations: settings.limits.max_iterations,
            story: story.as_ref(),
            criteria: &criteria,
            last: last_report.as_ref(),
            recent_failures: &failures,
            files_changed: &files_changed,
            decisions: &decisions,
            agent_claimed_done: claimed_done,
        };
        let mut text = if last_report.is_none() && (!resumed || scope.is_sub_loop()) {
            prompt::initial(&input)
        } else {
            prompt::continuation(&input)
        };
        if let Some(pre) = &scope.preamble {
            text = format!("{pre}\n\n{text}");
        }
        let n = store.begin_iteration(run_id, story.as_ref().map(|s| s.id.as_str()), &text)?;
        observer(&LoopEvent::IterationStarted {
            n,
            max: settings.limits.max_iterations,
            story: story.as_ref().map(|s| s.id.clone()),
        });

        // The wall-time budget is a hard limit: a step can not run past what is left of it.
        let budget_left = settings
            .limits
            .max_time
            .0
            .saturating_sub(Duration::from_millis(spent.active_ms));
        let step_timeout = settings.stall.step_timeout.0.min(budget_left);
        let started = Instant::now();
        let mut waited = Duration::ZERO;
        let mut earlier: Option<StepOutcome> = None;
        let mut stalls_step = 0u32;
        let mut rate_waits = 0u32;
        // After a rate limit the retry continues the session the agent had started, so the
        // work it did before the limit is not lost.
        let mut retry_session: Option<String> = None;
        let outcome: StepOutcome = loop {
            let req = StepRequest {
                prompt: text.clone(),
                cwd: cfg.root.clone(),
                run_id: run_id.to_string(),
                iteration: n,
                resume_session: retry_session.clone().or_else(|| resume_session.clone()),
                model: cfg.model.clone(),
                env: cfg.agent_env.clone(),
            };
            let log = cfg.logs_dir.join(format!("{run_id}-iter-{n}.log"));
            let mut tick = || heartbeat(store, run_id, token, &mut last_heartbeat);
            let mut on_event = |ev: &AgentEvent| {
                observer(&LoopEvent::Agent {
                    n,
                    event: ev.clone(),
                })
            };
            // The budget clock runs only while the agent works: what is left of the step's
            // timeout shrinks by the active time of earlier attempts, not by waits.
            let used = started.elapsed().saturating_sub(waited);
            let mut o = run_step(
                adapter,
                &req,
                settings.stall.idle_timeout.0,
                step_timeout.saturating_sub(used),
                &log,
                control,
                &mut tick,
                &mut on_event,
            );
            if let Some(e) = earlier.take() {
                o.absorb_earlier(&e);
            }
            if o.killed {
                break o;
            }
            if let Some(retry_after) = o.rate_limited {
                if o.session_id.is_some() {
                    retry_session = o.session_id.clone();
                }
                // The provider asked us to wait: not a stall, not a failure, and not active time.
                let wait = retry_after.unwrap_or_else(|| {
                    RATE_BASE
                        .saturating_mul(1 << rate_waits.min(10))
                        .min(RATE_MAX)
                });
                let wait = wait.mul_f64(cfg.rate_limit_scale.max(0.0));
                rate_waits += 1;
                observer(&LoopEvent::Waiting {
                    seconds: wait.as_secs(),
                    why: o
                        .rate_limit_message
                        .clone()
                        .unwrap_or_else(|| "provider rate limit".into()),
                });
                let t = Instant::now();
                let woke = sleep_unless_stopped(wait, control, &mut || {
                    heartbeat(store, run_id, token, &mut last_heartbeat)
                });
                waited += t.elapsed();
                if !woke {
                    break o;
                }
                earlier = Some(o);
                continue;
            }
            if o.end == Some(End::IdleTimedOut) {
                stalls_step += 1;
                stalls_run += 1;
                store.add_failure(
                    run_id,
                    story.as_ref().map(|s| s.id.as_str()),
                    &format!(
                        "agent step {n} produced no output for {}",
                        settings.stall.idle_timeout
                    ),
                    FailureCategory::Timeout,
                    false,
                )?;
                if stalls_step > STALL_RECOVERIES_PER_STEP
                    || stalls_run > STALL_RECOVERIES_PER_RUN
                    || control.stop_requested()
                    || control.kill_requested()
                {
                    // Out of recoveries, or asked to stop: do not start the agent again.
                    break o;
                }
                observer(&LoopEvent::StallRecovered {
                    n,
                    recoveries: stalls_run,
                });
                earlier = Some(o);
                continue;
            }
            if o.end == Some(End::TimedOut) {
                store.add_failure(
                    run_id,
                    story.as_ref().map(|s| s.id.as_str()),
                    &format!(
                        "agent step {n} ran out of time ({})",
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
            break o;
        };
        claimed_done = outcome.claimed_done;

        // A stall that ended because a stop was asked for is a stop, not an exhausted breaker.
        let stall_exhausted = outcome.end == Some(End::IdleTimedOut) && !control.stop_requested();
        let hard_stop = outcome.killed || control.kill_requested();
        // pawl verifies; the agent's word counts for nothing here.
        let report = if hard_stop {
            None
        } else {
            Some(
                verifier
                    .verify(store, run_id)
                    .map_err(EngineError::Verify)?,
            )
        };
        let facts = facts_of(&cfg.root, &outcome, report.as_ref());
        // The verifier recorded the failure on the story; a story out of attempts is skipped
        // and the run moves on.
        if report.as_ref().is_some_and(|r| !r.done)
            && let Some(s) = &story
        {
            let s = store.story(run_id, &s.id)?;
            if s.attempts >= s.max_attempts && s.status == StoryStatus::InProgress {
                store.set_story_status(
                    run_id,
                    &s.id,
                    StoryStatus::Skipped,
                    Some("attempt limit reached"),
                )?;
                observer(&LoopEvent::StorySkipped {
                    story: s.id.clone(),
                    attempts: s.attempts,
                });
            }
        }
        let active = started.elapsed().saturating_sub(waited);
        let summary = match &report {
            Some(r) if r.done => "verified: every check passes".to_string(),
            Some(r) => {
                let failing: Vec<String> = r
                    .failing
                    .iter()
                    .map(|f| {
                        if f.failing_tests.is_empty() {
                            format!("{} ({})", f.name, f.end)
                        } else {
                            let shown: Vec<&str> =
                                f.failing_tests.iter().take(5).map(String::as_str).collect();
                            format!("{} (failing tests: {})", f.name, shown.join(", "))
                        }
                    })
                    .collect();
                format!(
                    "{} of {} checks failing: {}",
                    r.failing.len(),
                    r.checks.len(),
                    failing.join("; ")
                )
            }
            None => "stopped before verification".into(),
        };
        let end = outcome.iteration_end(started.elapsed(), active, facts.clone(), summary.clone());
        store.finish_iteration(run_id, n, &end)?;
        if end.session_id.is_some() {
            resume_session = end.session_id.clone();
        }
        if let Some(r) = &report {
            store.append_event(
                Some(run_id),
                "verification",
                serde_json::to_value(r).unwrap_or(json!(null)),
            )?;
        }
        history.push(facts);
        let spent = store.spent(run_id)?;
        observer(&LoopEvent::Iteration {
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
        last_report = report;

        if hard_stop {
            return Ok(LoopEnd {
                reason: StopReason::Interrupted,
                last: last_report,
            });
        }
        if last_report
            .as_ref()
            .is_some_and(|r| r.done || (scope.until_checks_pass && r.failing.is_empty()))
        {
            return Ok(LoopEnd {
                reason: StopReason::Verified,
                last: last_report,
            });
        }
        if stall_exhausted {
            return Ok(LoopEnd {
                reason: StopReason::StallRecoveries,
                last: last_report,
            });
        }
        if let Some(reason) =
            judge::breaker_tripped(&settings.breakers, &history, baseline_tree.as_deref())
        {
            return Ok(LoopEnd {
                reason,
                last: last_report,
            });
        }
        if let Some(id) = &scope.story
            && store.story(run_id, id)?.status == StoryStatus::Skipped
        {
            return Ok(LoopEnd {
                reason: StopReason::NoStoryCanProgress,
                last: last_report,
            });
        }
        let stories = store.stories(run_id)?;
        if !stories.is_empty()
            && stories
                .iter()
                .all(|s| matches!(s.status, StoryStatus::Skipped | StoryStatus::Blocked))
        {
            return Ok(LoopEnd {
                reason: StopReason::NoStoryCanProgress,
                last: last_report,
            });
        }
    }
}

/// The sub-loop's story, started now if it was pending.
fn start_story(store: &mut Store, run_id: &str, id: &str) -> Result<Story, EngineError> {
    let s = store.story(run_id, id)?;
    if s.status == StoryStatus::Pending {
        return Ok(store.set_story_status(
            run_id,
            id,
            StoryStatus::InProgress,
            Some("the pipeline's next story"),
        )?);
    }
    Ok(s)
}

/// The story in progress, or the next pending one (started now).
fn current_or_next_story(store: &mut Store, run_id: &str) -> Result<Option<Story>, EngineError> {
    let stories = store.stories(run_id)?;
    if let Some(s) = stories.iter().find(|s| s.status == StoryStatus::InProgress) {
        return Ok(Some(s.clone()));
    }
    if let Some(s) = stories.iter().find(|s| s.status == StoryStatus::Pending) {
        return Ok(Some(store.set_story_status(
            run_id,
            &s.id,
            StoryStatus::InProgress,
            Some("next story"),
        )?));
    }
    Ok(None)
}

fn facts_of(
    root: &std::path::Path,
    o: &StepOutcome,
    report: Option<&VerifyReport>,
) -> IterationFacts {
    let mut file_hashes = BTreeMap::new();
    for path in o.edits.keys() {
        let full = root.join(path);
        let h = match std::fs::read(&full) {
            Ok(bytes) => format!("{:x}", Sha256::digest(&bytes)),
            Err(_) => "absent".to_string(),
        };
        file_hashes.insert(path.clone(), h);
    }
    let failure_signature = report.and_then(|r| r.failing.first()).map(|f| {
        judge::failure_signature(
            &f.name,
            &f.failing_tests,
            f.first_failure.as_deref().or(Some(&f.end)),
        )
    });
    IterationFacts {
        tree_hash: report.map(|r| r.tree_hash.clone()),
        verified: report.map(|r| r.verified.clone()).unwrap_or_default(),
        unmet: report.map(|r| r.unmet.clone()).unwrap_or_default(),
        failure_signature,
        edits: o.edits.clone(),
        file_hashes,
        agent_error: o.agent_error(),
        permission_denials: o.permission_denials,
        output_fingerprint: o.text_fingerprint.clone(),
    }
}

fn heartbeat(store: &mut Store, run_id: &str, token: &str, last: &mut Instant) {
    if last.elapsed() >= HEARTBEAT {
        *last = Instant::now();
        let _ = store.heartbeat(run_id, token, LEASE_TTL_MS);
    }
}

/// Sleeps in small steps; returns false if a stop was requested meanwhile.
fn sleep_unless_stopped(total: Duration, control: &Control, tick: &mut dyn FnMut()) -> bool {
    let end = Instant::now() + total;
    while Instant::now() < end {
        if control.stop_requested() || control.kill_requested() {
            return false;
        }
        std::thread::sleep(
            Duration::from_millis(50).min(end.saturating_duration_since(Instant::now())),
        );
        tick();
    }
    true
}
