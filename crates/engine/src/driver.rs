//! The headless loop. One owner (this function, on one thread) holds the run's state: it takes
//! the lease, runs the agent step by step ([`crate::attempt`]), has pawl verify after each step,
//! and concludes each iteration through the turn ([`crate::turn`]) — continue, wait, or stop with
//! a typed reason. Everything it decides comes from pawl-core; everything it remembers goes
//! through the store, so a crash at any point resumes with nothing lost and nothing counted twice.

use pawl_agent::Adapter;
use pawl_core::EventKind;
use pawl_core::StopReason;
use pawl_core::judge;
use pawl_core::model::{RunStatus, StoryStatus};
use pawl_core::record::Story;
use pawl_core::turn::Next;
use pawl_store::Store;
use serde_json::json;

use pawl_core::failure::{self, LoopAction};

use crate::attempt::{AgentCtx, Attempt, Heartbeat, RetryPolicy, run_attempt};
use crate::control::Control;
use crate::escalate;
use crate::turn::{self, NextPrompt, Signals, Window};
use crate::verify::{Verifier, VerifyReport};
use crate::{EngineError, LEASE_TTL_MS};

pub(crate) use crate::loop_config::Scope;
pub use crate::loop_config::{AfterStep, LoopConfig, LoopEnd, LoopEvent, Owner};

/// Commits the working tree for a story that was just completed, on the run's branch, and
/// records it. Returns the commit, or `None` when there was nothing to commit.
pub fn commit_story(
    store: &mut Store,
    root: &std::path::Path,
    run_id: &str,
    story: &Story,
) -> Result<Option<String>, EngineError> {
    let repo = pawl_git::Repo::open(root)?;
    let message = format!("pawl: {} {} (run {run_id})", story.id, story.title);
    let commit = repo.commit_all(&message)?.map(|c| c.to_string());
    store.append_event(
        Some(run_id),
        EventKind::StoryCommitted,
        json!({"story": story.id, "commit": commit, "message": message}),
    )?;
    Ok(commit)
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
    crate::use_run_git(&store.run(run_id)?);
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
    // The loop hashes the same tree several times per step: an unchanged one is answered from
    // the stamp of its last hash, kept in this process.
    pawl_git::remember_tree_stamps();
    let result = store
        .acquire_lease(
            run_id,
            cfg.owner.pid,
            &cfg.owner.host,
            LEASE_TTL_MS,
            &cfg.owner.is_alive,
        )
        .map_err(EngineError::from)
        .and_then(|lease| {
            let result = body(store, &lease.lease.token, observer);
            let _ = store.release_lease(run_id, &lease.lease.token);
            result
        });
    let end = match result {
        Ok(end) => end,
        // State modified outside pawl, found by any read or write of the drive (or behind any
        // other error: a row the drive needed was removed): the run stops `tampered` (what was
        // found is an event), whatever else was going on.
        Err(e) if e.tampering().is_some() || matches!(store.tampering(run_id), Ok(Some(_))) => {
            let found = match e.tampering() {
                Some(t) => Some(t.clone()),
                None => store.tampering(run_id)?,
            };
            if let Some(t) = found {
                store.mark_tampered(&t)?;
            }
            LoopEnd {
                reason: StopReason::Tampered,
                last: None,
                replan: None,
            }
        }
        // The run's fleet has no budget left for another step (the store refused the hold with
        // the iteration, so nothing was spent): a limit reached, resumable once the user raises
        // the fleet's budget.
        Err(EngineError::Store(e @ pawl_store::StoreError::FleetBudget { .. })) => {
            let _ = store.append_event(
                Some(run_id),
                pawl_core::EventKind::FleetBudget,
                serde_json::json!({"refused": e.to_string()}),
            );
            LoopEnd {
                reason: if matches!(e, pawl_store::StoreError::FleetBudget { what: "token", .. }) {
                    StopReason::MaxTokens
                } else {
                    StopReason::MaxUsd
                },
                last: None,
                replan: None,
            }
        }
        // Another process took the run over (its lease expired while this one was stalled):
        // the run is that process's now, and this one decides nothing about its end.
        Err(e @ EngineError::Store(pawl_store::StoreError::LeaseLost(_))) => return Err(e),
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
    // A tampered run was marked when it was found (`Store::mark_tampered`).
    if end.reason != StopReason::Tampered {
        let run = store.run(run_id)?;
        if !run.status.is_terminal() {
            store.set_run_status(run_id, status, Some(end.reason))?;
        }
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
    // Nothing of a run whose state was modified outside pawl is driven (`drive_with` stops it
    // `tampered`): not its limits, not its iterations.
    store.check_run(run_id)?;
    let interrupted = if scope.parallel {
        Vec::new()
    } else {
        store.interrupt_open_iterations(run_id)?
    };
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

    // Before the executor's first step: the independent tester writes its hidden tests (once
    // per run; `crate::tester`).
    if !scope.parallel
        && let Some(ws) = verifier.workspace()
    {
        let mut asker = cfg.tester.as_ref().and_then(|m| m.lock().ok());
        let asker: Option<&mut dyn crate::verify::reviewer::Reviewer> =
            asker.as_deref_mut().map(|b| b.as_mut() as _);
        crate::tester::prepare(store, run_id, &ws, asker)?;
    }
    let git = pawl_git::Repo::open(&cfg.root).ok();
    let past = store.iterations(run_id)?;
    // The agent session the next step continues (kept here, not re-read every iteration).
    let mut resume_session: Option<String> = past.iter().rev().find_map(|i| i.session_id.clone());
    if scope.fresh_session {
        resume_session = None;
    }
    let mut window = Window {
        history: past.into_iter().filter_map(|i| i.facts).collect(),
        // Progress of the first step after (re)starting is measured against the tree as it is now.
        baseline_tree: git
            .as_ref()
            .and_then(|g| g.tree_hash().ok())
            .map(|t| t.to_string()),
    };
    if scope.is_sub_loop() {
        // A sub-loop's breakers judge its own steps (the pipeline's reviewer sessions and other
        // stories are not this story's lack of progress).
        window.history.clear();
    }
    // The user resumed a run a breaker had opened: the breaker is half-open, its window starts
    // again (otherwise one more step without progress would trip it at once). A crash resume
    // (the run was still active) keeps the window: nothing is forgotten.
    let breaker_stop = run.status == RunStatus::Stopped
        && run
            .stop_reason
            .is_some_and(|r| r.exit_code() == pawl_core::ExitCode::Breaker);
    if breaker_stop && !scope.is_sub_loop() && !window.history.is_empty() {
        store.append_event(
            Some(run_id),
            EventKind::BreakersReset,
            json!({"after": run.stop_reason, "window_cleared": window.history.len()}),
        )?;
        window.history.clear();
    }
    let mut last_report: Option<VerifyReport> = None;
    let mut heartbeat = Heartbeat::new(token, LEASE_TTL_MS);
    let mut stalls_run: u32 = 0;
    let mut claimed_done = false;
    let mut files_changed_cache: Option<(String, Vec<String>)> = None;
    // The approach that failed twice with the same failure, for the next prompt.
    let mut change_approach: Option<String> = None;
    let end = |reason: StopReason, last: Option<VerifyReport>| {
        if reason == StopReason::Stopped {
            // A stop file is consumed once honoured, so the next `pawl resume` is not stopped
            // at once.
            control.clear_stop_file();
        }
        Ok(LoopEnd {
            reason,
            last,
            replan: None,
        })
    };

    if resumed && !scope.is_sub_loop() {
        // Resuming: the tree may already be verified (a crash after the last step, or the user
        // fixed it by hand). Check before spending an iteration; the evidence also feeds the
        // continuation prompt. Checks are cached by tree hash, so this is cheap when nothing
        // changed.
        let report = verifier.verify(store, run_id)?;
        store.append_event(
            Some(run_id),
            EventKind::Verification,
            serde_json::to_value(&report).unwrap_or(json!(null)),
        )?;
        if report.done {
            return end(StopReason::Verified, Some(report));
        }
        last_report = Some(report);
    }

    loop {
        // Before a step: requests from outside (stop, cancel, a blocker for the user) and limits.
        if let Next::Stop(reason) = turn::decide(
            store,
            run_id,
            &settings,
            &window,
            None,
            control.stop_requested(),
            observer,
        )? {
            return end(reason, last_report);
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
            if !heartbeat.sleep(store, run_id, wait, control) {
                continue;
            }
        }

        let story = match &scope.story {
            Some(id) => Some(start_story(store, run_id, id)?),
            None => turn::current_or_next_story(store, run_id)?,
        };
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
        let spent = store.spent(run_id)?;
        let mut text = turn::next_prompt(
            store,
            run_id,
            &settings,
            &NextPrompt {
                goal: &run.goal,
                iteration: spent.iterations + 1,
                story: story.as_ref(),
                last: last_report.as_ref(),
                files_changed: &files_changed,
                agent_claimed_done: claimed_done,
                initial: last_report.is_none() && (!resumed || scope.is_sub_loop()),
                change_approach: change_approach.as_deref(),
            },
        )?;
        if let Some(pre) = &scope.preamble {
            text = format!("{pre}\n\n{text}");
        }
        let story_id = story.as_ref().map(|s| s.id.as_str());
        let n = store.begin_iteration(run_id, story_id, &text)?;
        observer(&LoopEvent::IterationStarted {
            n,
            max: settings.limits.max_iterations,
            story: story.as_ref().map(|s| s.id.clone()),
        });

        let attempt = run_attempt(
            &mut AgentCtx {
                store,
                run_id,
                heartbeat: &mut heartbeat,
                adapter,
                cfg,
                control,
                observer,
            },
            &Attempt {
                n,
                prompt: &text,
                story: story_id,
                resume_session: resume_session.clone(),
                label: format!("agent step {n}"),
                private_log: false,
                settings: &settings,
                spent,
                policy: RetryPolicy::LOOP,
            },
            &mut stalls_run,
        )?;
        let outcome = &attempt.outcome;
        claimed_done = outcome.claimed_done;

        let hard_stop = outcome.killed || control.kill_requested();
        // pawl verifies; the agent's word counts for nothing here.
        let report = if hard_stop {
            None
        } else {
            observer(&LoopEvent::Verifying {
                n,
                checks: verifier.check_names(store, run_id),
            });
            let r = verifier.verify(store, run_id)?;
            // Infra and timeouts: back off and verify again, no agent step, no iteration.
            Some(escalate::back_off(
                store,
                run_id,
                r,
                verifier,
                cfg,
                control,
                &mut heartbeat,
                observer,
                scope.plans,
            )?)
        };
        // The run's "must not" rules, whatever the agent (a command agent has no guard): the
        // tree against the pre-run commit, and the commands the step ran.
        let violations = if settings.must_not.is_empty() {
            Vec::new()
        } else {
            let changed: Vec<String> = match (&git, &pre_run) {
                (Some(g), Some(c)) => g
                    .changed_files_since(c)
                    .map(|v| v.into_iter().map(|p| p.display().to_string()).collect())
                    .unwrap_or_default(),
                _ => outcome.edits.keys().cloned().collect(),
            };
            escalate::must_not_violations(&settings, &changed, &outcome.commands)
        };
        if !violations.is_empty() {
            escalate::record_violations(store, run_id, n, &violations)?;
        }
        let facts = turn::facts(&cfg.root, &outcome.did(), report.as_ref());
        let summary = turn::summary(report.as_ref());
        let iteration =
            outcome.iteration_end(attempt.duration, attempt.active(), facts.clone(), summary);
        turn::record(
            store,
            run_id,
            &settings,
            n,
            &iteration,
            report.as_ref(),
            &[],
            observer,
        )?;
        turn::commit_iteration(store, &cfg.root, run_id, &settings, n, report.as_ref())?;
        if iteration.session_id.is_some() {
            resume_session = iteration.session_id.clone();
        }
        window.history.push(facts);
        // The failure's class decides what follows (pawl-core's `loop_action`): the user, the
        // planner, or another step — with a different approach once the same failure is back.
        change_approach = None;
        let mut handed_to_user = false;
        let mut replan: Option<String> = None;
        if let Some(r) = report.as_ref().filter(|r| !r.failing.is_empty())
            && violations.is_empty()
        {
            let same = escalate::same_in_a_row(&window.history);
            match escalate::action(r, same, failure::TRANSIENT_RETRY_LIMIT, scope.plans) {
                Some(a @ LoopAction::AwaitUser) => {
                    handed_to_user =
                        escalate::hand_to_user(store, run_id, &settings, r, a)?.is_some();
                }
                // `back_off` spent every backoff already: `action` says AwaitUser then.
                Some(LoopAction::BackOff) => {}
                Some(LoopAction::Replan) if scope.is_sub_loop() => {
                    let (check, category, said) = escalate::first_classified(r)
                        .map(|(c, k)| {
                            let said = c
                                .first_failure
                                .as_deref()
                                .filter(|_| !c.hidden)
                                .and_then(|m| m.lines().map(str::trim).find(|l| !l.is_empty()))
                                .map(|m| format!(" ({m})"))
                                .unwrap_or_default();
                            (c.name.clone(), Some(k), said)
                        })
                        .unwrap_or_default();
                    store.append_event(
                        Some(run_id),
                        EventKind::FailureAction,
                        json!({"action": LoopAction::Replan, "category": category, "check": check}),
                    )?;
                    replan = Some(format!(
                        "{check} failed with a spec failure{said}: the plan contradicts itself or the code; decide, and plan again. {}",
                        turn::summary(Some(r))
                    ));
                }
                Some(LoopAction::Replan) => {}
                Some(LoopAction::ChangeApproach) => {
                    let failed = window
                        .history
                        .last()
                        .map(|f| escalate::failed_approach(f, &outcome.text, r))
                        .unwrap_or_default();
                    store.append_event(
                        Some(run_id),
                        EventKind::FailureAction,
                        json!({"action": LoopAction::ChangeApproach, "same_in_a_row": same, "failed": failed}),
                    )?;
                    change_approach = Some(failed);
                }
                Some(LoopAction::Retry) | None => {}
            }
        }
        if let Some(why) = replan {
            return Ok(LoopEnd {
                reason: StopReason::NoStoryCanProgress,
                last: report,
                replan: Some(why),
            });
        }
        let next = turn::decide(
            store,
            run_id,
            &settings,
            &window,
            Some(Signals {
                hard_stop,
                report: report.as_ref(),
                until_checks_pass: scope.until_checks_pass,
                stall_exhausted: attempt.stall_exhausted,
                story: story_id,
                scoped: scope.story.is_some(),
                must_not_violated: !violations.is_empty(),
                handed_to_user,
            }),
            control.stop_requested(),
            observer,
        )?;
        last_report = report;
        if let Next::Stop(reason) = next {
            return end(reason, last_report);
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
