//! The parallel driver: the stories of a plan (`pawl run --plan`), each worked on by its own
//! agent in its own git worktree on its own branch (`pawl/<run>-<story>`), then merged into the
//! run's branch one at a time by the merge queue, which re-verifies the merged tree.
//!
//! One coordinator (the caller's thread) owns the run's lease, the schedule
//! (`pawl_core::parallel::startable`) and the merge queue; up to `workers` threads each drive
//! one story through the headless loop as a sub-loop (`driver::drive_leased`, scoped to the
//! story, until its checks pass) with their own store connection, adapter and verifier. Budgets
//! are the run's: every worker checks the run's limits before each step against the store, whose
//! counts are transactional, so a limit is overshot by at most the steps already in flight.
//!
//! The merge queue, for one queued story: the merge of the run's branch and the story's branch
//! (a fast-forward when the run's branch has not moved; otherwise `merge-tree`, in the object
//! store), checked out in a scratch worktree and verified with the run's sealed checks and the
//! command criteria of every merged story and this one. Green: the run's branch moves there. A
//! conflict or a red check sends the story back to an agent with the conflict or the evidence,
//! the run's branch merged into its worktree (conflicts marked by git); it is never reported as
//! merged. A story is merged exactly once: on resume, a story the run's branch already contains
//! is recorded merged without merging again.
//!
//! Nothing is lost: a story's worktree and branch are removed only once its commits are
//! reachable from the run's branch.
//!
//! What a worker runs on its story is the caller's [`StoryRunner`]: the headless loop for a plan
//! file ([`headless_story`]), the pipeline's story flow for a planned run (TDD, the developer
//! role, the security review: `pipeline::execute`), the same function the sequential execute
//! phase runs.
//!
//! Ownership: the run's lease is the coordinator's (the schedule and the merge queue); each
//! story being worked on has a lease of its own (`story_leases`), taken in the transaction that
//! starts it, renewed by its worker's heartbeat and released in the one that records how its
//! session ended. A coordinator never starts a story a live worker holds (another coordinator's,
//! after the run's lease was taken over): it waits for it, and takes it back once its worker is
//! gone or stopped renewing. A coordinator that finds the run's lease taken over moves nothing
//! more (no start, no merge), lets its workers record their stories, and ends with the lease lost.
//!
//! Not here: the plan file (pawl-core's `parallel`), where worktrees live and how a worker's
//! agent and sandbox are built (the CLI passes them in).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use pawl_agent::Adapter;
use pawl_core::parallel::{self as rules, MergeResult, WorkState};
use pawl_core::record::Run;
use pawl_core::turn::Next;
use pawl_core::{EventKind, StopReason};
use pawl_git::{CommitId, MergeTree, Repo};
use pawl_store::{Reclaim, Store, StoreError, StoryWork, StoryWorkChange};
use serde_json::json;

use crate::attempt::Heartbeat;
use crate::control::Control;
use crate::driver;
pub use crate::hidden::story_checks;
use crate::loop_config::{LoopConfig, LoopEnd, LoopEvent, Scope};
use crate::turn::{self, Window};
use crate::verify::{self, Plan, Verifier, Workspace};
use crate::{EngineError, LEASE_TTL_MS};

/// What one worker needs to drive one story: built by the caller for the story's worktree.
pub struct Worker {
    /// `root` is the story's worktree; `agent_env` carries `PAWL_STORY`.
    pub cfg: LoopConfig,
    pub adapter: Box<dyn Adapter>,
    /// The story's verifier (`GateVerifier::for_story`): the sealed checks and its criteria.
    pub verifier: Box<dyn Verifier + Send>,
}

/// Builds the [`Worker`] of a story whose worktree is ready.
pub type WorkerFactory<'a> = dyn Fn(&StoryWork) -> Result<Worker, EngineError> + 'a;

/// One story's work, on its worker's thread: its own store connection and [`Worker`] (the
/// agent, the loop's configuration rooted in the worktree, the verifier of its clean room).
pub struct StoryJob<'a> {
    pub store: &'a mut Store,
    pub run_id: &'a str,
    /// The run's lease, which every worker renews.
    pub token: &'a str,
    /// The story's row as it was when it started (`feedback`: why the merge queue sent it back).
    pub work: &'a StoryWork,
    pub worker: &'a mut Worker,
    pub control: &'a Control,
    pub observer: &'a mut dyn FnMut(&LoopEvent),
}

/// What a worker runs on its story until its checks pass in its worktree (`Verified`: it is
/// committed on its branch and queued), it is out of attempts (`NoStoryCanProgress`) or the run
/// stops (any other reason).
pub type StoryRunner<'a> = dyn Fn(StoryJob<'_>) -> Result<LoopEnd, EngineError> + Sync + 'a;

/// Called by the coordinator on each of its passes with the stories' rows and the run's
/// verifier (the run's tree holds every merged story): the pipeline takes its mid-way
/// checkpoint there once half its stories are merged or out of attempts.
pub type Settled<'a> =
    dyn FnMut(&mut Store, &mut dyn Verifier, &[StoryWork]) -> Result<(), EngineError> + 'a;

/// The first words of every prompt of a story's sessions in a worktree.
pub const IN_WORKTREE: &str = "You work on one story of a plan, in its own git worktree (this directory); other stories are worked on elsewhere at the same time and merged by pawl.";

/// What the parallel driver needs besides the store.
pub struct ParallelInput<'a> {
    /// How many stories run at once (at least 1).
    pub workers: usize,
    /// Opens another connection to the run's store (one per worker thread).
    pub open_store: &'a (dyn Fn() -> Result<Store, EngineError> + Sync),
    pub worker: &'a WorkerFactory<'a>,
    /// Where the merge queue's checks run: the repository's workspace (its room); the root is
    /// replaced by the scratch checkout of the merge.
    pub merge_ws: Workspace,
    /// The run's directory of worktrees (each story's is `<dir>/<story>`, the merge queue's
    /// scratch checkout `<dir>/.merge`).
    pub worktrees_dir: PathBuf,
}

/// A worker's word to the coordinator.
enum Msg {
    Event(LoopEvent),
    Done {
        story: String,
        /// The story's lease, released with the record of how the session ended.
        token: String,
        /// Boxed: a loop's end carries its last verification report.
        result: Box<Result<LoopEnd, String>>,
    },
}

/// How often a worker renews its story's lease (its TTL is the run's, [`LEASE_TTL_MS`]).
const STORY_HEARTBEAT: Duration = Duration::from_secs(5);

/// How often the coordinator checks that it still holds the run's lease, and looks again at
/// stories held by workers elsewhere.
const OWNERSHIP_CHECK: Duration = Duration::from_secs(2);

/// Drives a planned run to its end: every story merged and the run verified, or a typed stop.
#[allow(clippy::too_many_arguments)]
pub fn drive(
    store: &mut Store,
    run_id: &str,
    main_verifier: &mut dyn Verifier,
    cfg: &LoopConfig,
    control: &Control,
    observer: &mut dyn FnMut(&LoopEvent),
    input: &ParallelInput<'_>,
) -> Result<LoopEnd, EngineError> {
    crate::use_run_git(&store.run(run_id)?);
    driver::drive_with(
        store,
        run_id,
        cfg,
        observer,
        &mut |store, token, observer| {
            coordinate(
                store,
                run_id,
                main_verifier,
                cfg,
                control,
                observer,
                input,
                &headless_story,
                None,
                token,
                false,
            )
        },
    )
}

/// The stories of a run whose driver already holds the run's lease (`token`): the execute
/// phase of a planned run (`--mode work|qa` with more than one worker, docs/parallel.md). The
/// caller has recorded the stories' rows (`Store::add_story_work`); `run_story` is what each
/// worker runs on its story (the pipeline's story flow), `settled` sees every pass. Every story
/// merged ends `Verified` without verifying the run's tree — the caller's phases do that; a
/// story out of attempts ends `NoStoryCanProgress` once nothing else can go on; a limit or a
/// stop ends with its reason. A story whose runner ends with [`LoopEnd::replan`] (a spec
/// failure) is recorded `failed` (superseded); no story starts after it, the running ones end
/// and what passed is merged, then the phase ends `NoStoryCanProgress` with that reason in
/// `replan`, for the caller to send the plan back.
#[allow(clippy::too_many_arguments)]
pub fn drive_stories(
    store: &mut Store,
    run_id: &str,
    main_verifier: &mut dyn Verifier,
    cfg: &LoopConfig,
    control: &Control,
    observer: &mut dyn FnMut(&LoopEvent),
    input: &ParallelInput<'_>,
    run_story: &StoryRunner<'_>,
    settled: &mut Settled<'_>,
    token: &str,
) -> Result<LoopEnd, EngineError> {
    coordinate(
        store,
        run_id,
        main_verifier,
        cfg,
        control,
        observer,
        input,
        run_story,
        Some(settled),
        token,
        true,
    )
}

/// `nested`: inside another driver, which took the run up (its status, its interrupted steps,
/// its start said) and verifies the run's tree after the stories.
#[allow(clippy::too_many_arguments)]
fn coordinate(
    store: &mut Store,
    run_id: &str,
    main_verifier: &mut dyn Verifier,
    cfg: &LoopConfig,
    control: &Control,
    observer: &mut dyn FnMut(&LoopEvent),
    input: &ParallelInput<'_>,
    run_story: &StoryRunner<'_>,
    mut settled: Option<&mut Settled<'_>>,
    token: &str,
    nested: bool,
) -> Result<LoopEnd, EngineError> {
    store.check_run(run_id)?;
    let run = store.run(run_id)?;
    if !nested {
        let interrupted = store.interrupt_open_iterations(run_id)?;
        if run.status != pawl_core::model::RunStatus::Active
            && store.awaited_blocker(run_id)?.is_none()
        {
            store.set_run_status(run_id, pawl_core::model::RunStatus::Active, None)?;
        }
        let resumed = !store.iterations(run_id)?.is_empty();
        observer(&LoopEvent::Started {
            run_id: run_id.into(),
            resumed,
            interrupted_iterations: interrupted,
        });
    }
    let repo = Repo::open(&cfg.root)?;
    let branch = run_branch(&repo, &run)?;
    let mut held_elsewhere: Vec<String> = Vec::new();
    recover(
        store,
        &repo,
        &run,
        &branch,
        cfg,
        &mut held_elsewhere,
        observer,
    )?;
    let workers = input.workers.max(1);
    store.append_event(
        Some(run_id),
        EventKind::StoryWork,
        json!({"workers": workers, "worktrees": input.worktrees_dir}),
    )?;
    let mut heartbeat = Heartbeat::new(token, LEASE_TTL_MS);
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut running: Vec<String> = Vec::new();
    let mut stopping: Option<StopReason> = None;
    // A story ended with a spec failure (the plan, not the code, is wrong): no story starts
    // any more; the running ones end and what passed is merged; then the reason goes back.
    let mut replan: Option<String> = None;
    // The run's lease was taken over by another process: nothing more is started or merged.
    let mut lost = false;
    let mut checked_at = std::time::Instant::now();
    let settings = run.settings.clone();

    let finished = std::sync::atomic::AtomicBool::new(false);
    let outcome = std::thread::scope(|scope| -> Result<StopReason, EngineError> {
        // The run's lease stays renewed while the coordinator is busy in a long merge check.
        let open_store = input.open_store;
        let finished_ref = &finished;
        scope.spawn(move || {
            let Ok(mut store) = open_store() else {
                return;
            };
            let mut beat = Heartbeat::new(token, LEASE_TTL_MS);
            while !finished_ref.load(std::sync::atomic::Ordering::SeqCst) {
                beat.beat(&mut store, run_id);
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        let result = (|| loop {
            heartbeat.beat(store, run_id);
            if checked_at.elapsed() >= OWNERSHIP_CHECK {
                checked_at = std::time::Instant::now();
                if !lost && !still_owned(store, run_id, token)? {
                    lost = true;
                }
                if !lost && stopping.is_none() {
                    look_again(store, &run, cfg, &running, &mut held_elsewhere, observer)?;
                }
            }
            if lost && stopping.is_none() {
                stopping = Some(StopReason::Stopped);
                control.request_stop();
            }
            // What the workers said.
            while let Ok(msg) = rx.try_recv() {
                match msg {
                    Msg::Event(ev) => observer(&ev),
                    Msg::Done {
                        story,
                        token,
                        result,
                    } => {
                        running.retain(|s| s != &story);
                        match worker_done(store, &run, &story, &token, *result, observer)? {
                            Some(Ending::Stop(reason)) if stopping.is_none() => {
                                stopping = Some(reason);
                                control.request_stop();
                            }
                            Some(Ending::Replan(why)) if replan.is_none() => {
                                // Not the run's stop (`Control` has no reset): the coordinator's
                                // own state holds the round.
                                store.append_event(
                                    Some(run_id),
                                    EventKind::StoryWork,
                                    json!({"story": story, "replan": why, "running": running}),
                                )?;
                                replan = Some(why);
                            }
                            _ => {}
                        }
                    }
                }
            }
            // Requests from outside and the run's limits, as before any step.
            if stopping.is_none()
                && let Next::Stop(reason) = turn::decide(
                    store,
                    run_id,
                    &settings,
                    &Window::default(),
                    None,
                    control.stop_requested(),
                    observer,
                )?
            {
                stopping = Some(reason);
                control.request_stop();
            }
            if let Some(reason) = stopping {
                if running.is_empty() {
                    if lost {
                        return Err(EngineError::Store(StoreError::LeaseLost(run_id.into())));
                    }
                    return Ok(reason);
                }
            } else {
                // The schedule first, so that workers are busy while the queue merges; what the
                // caller does as stories settle comes before any story starts. Nothing starts
                // once the plan is going back.
                let works = store.story_works(run_id)?;
                if replan.is_none()
                    && let Some(settled) = settled.as_mut()
                {
                    settled(store, &mut *main_verifier, &works)?;
                }
                let plans: Vec<(&rules::PlannedStory, WorkState)> =
                    works.iter().map(|w| (&w.plan, w.state)).collect();
                let free = if replan.is_some() {
                    0
                } else {
                    workers.saturating_sub(running.len())
                };
                for id in rules::startable(&plans, free) {
                    let Some(w) = works.iter().find(|w| w.plan.id == id) else {
                        continue;
                    };
                    if w.attempts >= rules::MAX_STORY_ATTEMPTS {
                        let w = store.update_story_work(
                            run_id,
                            &id,
                            &StoryWorkChange {
                                state: Some(WorkState::Failed),
                                ..Default::default()
                            },
                        )?;
                        story_event(observer, &w, "out of attempts");
                        continue;
                    }
                    let Some((worker, lease)) =
                        start_story(store, &repo, &run, &branch, w, input, cfg, observer)?
                    else {
                        continue;
                    };
                    let w = store.story_work(run_id, &id)?;
                    story_event(
                        observer,
                        &w,
                        &format!("started in {} (session {})", w.worktree, w.attempts),
                    );
                    running.push(id.clone());
                    let tx = tx.clone();
                    let open_store = input.open_store;
                    scope.spawn(move || {
                        let done = std::sync::atomic::AtomicBool::new(false);
                        let result = std::thread::scope(|beats| {
                            beats.spawn(|| story_heartbeat(open_store, run_id, &id, &lease, &done));
                            let result = work_story(
                                open_store, run_id, token, &w, worker, run_story, control, &tx,
                            );
                            done.store(true, std::sync::atomic::Ordering::SeqCst);
                            result
                        });
                        let _ = tx.send(Msg::Done {
                            story: id,
                            token: lease,
                            result: Box::new(result.map_err(|e| e.to_string())),
                        });
                    });
                }
                // The merge queue: one story at a time, in the order they were queued.
                let works = store.story_works(run_id)?;
                if let Some(next) = works
                    .iter()
                    .filter(|w| w.state == WorkState::Queued)
                    .min_by_key(|w| w.updated_at)
                {
                    // Only the run's owner merges: checked right before, as the merge moves
                    // the run's branch.
                    if !still_owned(store, run_id, token)? {
                        lost = true;
                        continue;
                    }
                    merge_one(store, &repo, &run, &branch, next, input, observer, token)?;
                    continue;
                }
                if running.is_empty() && replan.is_some() {
                    // Every story of ours has ended and what passed is merged: the plan goes
                    // back (stories held elsewhere belong to the plan being replaced).
                    return Ok(StopReason::NoStoryCanProgress);
                } else if running.is_empty() && !held_elsewhere.is_empty() {
                    // Nothing of ours runs: wait for the stories other workers hold.
                } else if running.is_empty() {
                    if works.iter().all(|w| w.state == WorkState::Merged) {
                        return Ok(StopReason::Verified);
                    }
                    // Nothing runs, nothing is queued and nothing can start.
                    return Ok(StopReason::NoStoryCanProgress);
                }
            }
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(Msg::Event(ev)) => observer(&ev),
                Ok(done @ Msg::Done { .. }) => {
                    // Handled at the top of the loop with the others.
                    let _ = tx.send(done);
                }
                Err(_) => {}
            }
        })();
        if result.is_err() {
            // The workers stop after their step; the scope waits for them.
            control.request_stop();
        }
        finished.store(true, std::sync::atomic::Ordering::SeqCst);
        result
    })?;
    // Every worker has ended: leftovers of merged stories go.
    tidy(store, &repo, &run, &branch)?;
    if outcome != StopReason::Verified || nested {
        if outcome == StopReason::Stopped {
            control.clear_stop_file();
        }
        return Ok(LoopEnd {
            reason: outcome,
            last: None,
            // A stop of the run (a limit, the user) comes first: the re-plan is not asked for.
            replan: replan.filter(|_| outcome == StopReason::NoStoryCanProgress),
        });
    }
    // Every story is merged: the run's tree, verified as every driver verifies it.
    let report = main_verifier.verify(store, run_id)?;
    store.append_event(
        Some(run_id),
        EventKind::Verification,
        serde_json::to_value(&report).unwrap_or(json!(null)),
    )?;
    let reason = if report.done {
        StopReason::Verified
    } else {
        match turn::decide(
            store,
            run_id,
            &settings,
            &Window::default(),
            Some(turn::Signals {
                hard_stop: false,
                report: Some(&report),
                until_checks_pass: false,
                stall_exhausted: false,
                story: None,
                scoped: false,
                must_not_violated: false,
                handed_to_user: false,
            }),
            false,
            observer,
        )? {
            Next::Stop(reason) => reason,
            // Every story merged and every check green, but nothing proves the goal (no check
            // went from red to green): no agent is left to prove it.
            _ if report.failing.is_empty() => StopReason::Unproven,
            _ => StopReason::NoStoryCanProgress,
        }
    };
    Ok(LoopEnd {
        reason,
        last: Some(report),
        replan: None,
    })
}

/// The run's branch and where it is checked out (the repository's main working tree).
struct RunBranch {
    name: String,
}

fn run_branch(repo: &Repo, run: &Run) -> Result<RunBranch, EngineError> {
    let name = match run.branch.clone() {
        Some(b) => b,
        None => repo.current_branch()?.ok_or_else(|| {
            EngineError::Parallel(
                "the run has no branch and the repository is not on one: a planned run works on the run's branch"
                    .into(),
            )
        })?,
    };
    if repo.current_branch()?.as_deref() != Some(name.as_str()) {
        return Err(EngineError::Parallel(format!(
            "the run's branch {name} is not checked out in {}: the merge queue moves it there (`git switch {name}`)",
            repo.root().display()
        )));
    }
    Ok(RunBranch { name })
}

/// Whether this coordinator still holds the run's lease (renewing it): false once another
/// process took it over.
fn still_owned(store: &mut Store, run_id: &str, token: &str) -> Result<bool, EngineError> {
    match store.heartbeat(run_id, token, LEASE_TTL_MS) {
        Ok(()) => Ok(true),
        Err(StoreError::LeaseLost(_)) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The stories recorded as being worked on that none of this coordinator's workers
/// (`running`) works on: each is left to its worker while that worker lives and renews its
/// lease (named in `held_elsewhere`, said once as an event), and taken back otherwise (it waits
/// for a worker again; its steps cut off are recorded interrupted).
fn look_again(
    store: &mut Store,
    run: &Run,
    cfg: &LoopConfig,
    running: &[String],
    held_elsewhere: &mut Vec<String>,
    observer: &mut dyn FnMut(&LoopEvent),
) -> Result<(), EngineError> {
    let mut still = Vec::new();
    for w in store.story_works(&run.id)? {
        if w.state != WorkState::Working || running.contains(&w.story) {
            continue;
        }
        match store.reclaim_story_work(
            &run.id,
            &w.story,
            cfg.owner.pid,
            &cfg.owner.host,
            &cfg.owner.is_alive,
        )? {
            Reclaim::NotWorking => {}
            Reclaim::Held(lease) => {
                if !held_elsewhere.contains(&w.story) {
                    store.append_event(
                        Some(&run.id),
                        EventKind::StoryWork,
                        json!({"story": w.story, "held_by": {"pid": lease.pid, "host": lease.host,
                               "expires_at": lease.expires_at}, "waits": true}),
                    )?;
                    story_event(
                        observer,
                        &w,
                        &format!(
                            "worked on by another pawl worker (pid {} on {}): not started again; waits for it",
                            lease.pid, lease.host
                        ),
                    );
                }
                still.push(w.story.clone());
            }
            Reclaim::Reclaimed { work, interrupted } => {
                let note = if interrupted.is_empty() {
                    "its worker is gone: waits for a worker again".to_string()
                } else {
                    format!(
                        "its worker is gone (step {} cut off): waits for a worker again",
                        interrupted
                            .iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                story_event(observer, &work, &note);
            }
        }
    }
    *held_elsewhere = still;
    Ok(())
}

/// A worker's heartbeat on its story's lease, until `done`; it stops renewing once the lease
/// was taken over (what the worker then does is not recorded: `worker_done`).
fn story_heartbeat(
    open_store: &(dyn Fn() -> Result<Store, EngineError> + Sync),
    run_id: &str,
    story: &str,
    token: &str,
    done: &std::sync::atomic::AtomicBool,
) {
    let Ok(mut store) = open_store() else {
        return;
    };
    let mut last = std::time::Instant::now();
    while !done.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
        if last.elapsed() >= STORY_HEARTBEAT {
            last = std::time::Instant::now();
            if let Err(StoreError::StoryLeaseLost { .. }) =
                store.heartbeat_story(run_id, story, token, LEASE_TTL_MS)
            {
                return;
            }
        }
    }
}

fn head(repo: &Repo, branch: &str) -> Result<CommitId, EngineError> {
    repo.branch_head(branch)?
        .ok_or_else(|| EngineError::Parallel(format!("the branch {branch} is gone")))
}

/// After a crash: a story being worked on waits for a worker again (its worktree keeps what
/// was done); a story the merge queue was merging is merged when the run's branch holds it, else
/// queued again; leftovers of the merge queue's scratch checkout go.
fn recover(
    store: &mut Store,
    repo: &Repo,
    run: &Run,
    branch: &RunBranch,
    cfg: &LoopConfig,
    held_elsewhere: &mut Vec<String>,
    observer: &mut dyn FnMut(&LoopEvent),
) -> Result<(), EngineError> {
    let run_head = head(repo, &branch.name)?;
    look_again(store, run, cfg, &[], held_elsewhere, observer)?;
    for w in store.story_works(&run.id)? {
        let change = match w.state {
            WorkState::Merging => {
                let contained = match repo.branch_head(&w.branch)? {
                    Some(h) => repo.is_ancestor(&h, &run_head)?,
                    None => false,
                };
                if contained {
                    let w = store.update_story_work(
                        &run.id,
                        &w.story,
                        &StoryWorkChange {
                            state: Some(WorkState::Merged),
                            merge: Some(MergeResult::Merged),
                            merged_commit: Some(run_head.to_string()),
                            ..Default::default()
                        },
                    )?;
                    finish_story(store, &run.id, &w)?;
                    story_event(observer, &w, "was merged before pawl stopped");
                    None
                } else {
                    Some(WorkState::Queued)
                }
            }
            _ => None,
        };
        if let Some(state) = change {
            store.update_story_work(
                &run.id,
                &w.story,
                &StoryWorkChange {
                    state: Some(state),
                    ..Default::default()
                },
            )?;
        }
    }
    tidy(store, repo, run, branch)
}

/// Removes what is no longer needed: the worktree and branch of every merged story whose
/// commits the run's branch holds, and the merge queue's scratch checkout.
fn tidy(store: &Store, repo: &Repo, run: &Run, branch: &RunBranch) -> Result<(), EngineError> {
    let run_head = head(repo, &branch.name)?;
    let dir = worktrees_dir_of(store, &run.id)?;
    if let Some(dir) = &dir {
        remove_scratch(repo, &dir.join(".merge"));
    }
    for w in store.story_works(&run.id)? {
        if w.state != WorkState::Merged {
            continue;
        }
        remove_story(repo, &w, &run_head)?;
    }
    if let Some(dir) = &dir {
        // Gone once nothing of the run's stories is left in it (fails, harmlessly, otherwise).
        let _ = std::fs::remove_dir(dir);
    }
    Ok(())
}

/// The run's worktree directory (the parent of its stories' worktrees).
fn worktrees_dir_of(store: &Store, run_id: &str) -> Result<Option<PathBuf>, EngineError> {
    Ok(store
        .story_works(run_id)?
        .first()
        .and_then(|w| Path::new(&w.worktree).parent().map(Path::to_path_buf)))
}

/// Removes a story's worktree and branch, only when the run's branch (`run_head`) contains
/// the branch's commits.
fn remove_story(repo: &Repo, w: &StoryWork, run_head: &CommitId) -> Result<(), EngineError> {
    let story_head = repo.branch_head(&w.branch)?;
    if let Some(h) = &story_head
        && !repo.is_ancestor(h, run_head)?
    {
        return Ok(());
    }
    let path = Path::new(&w.worktree);
    let registered = repo.worktrees()?.iter().any(|t| t.path == path);
    if registered {
        repo.remove_worktree(path)?;
    } else if path.exists() {
        let _ = std::fs::remove_dir_all(path);
    }
    repo.prune_worktrees()?;
    if let Some(h) = story_head {
        repo.delete_branch(&w.branch, &h)?;
    }
    if let Some(room) = story_room(path) {
        let _ = std::fs::remove_dir_all(room);
    }
    Ok(())
}

/// Where a story's checks run (its own clean room, beside its worktree): set by the caller's
/// worker factory; removed with the worktree.
pub fn story_room(worktree: &Path) -> Option<PathBuf> {
    let name = worktree.file_name()?.to_string_lossy().into_owned();
    Some(worktree.with_file_name(format!(".room-{name}")))
}

fn remove_scratch(repo: &Repo, path: &Path) {
    if repo
        .worktrees()
        .map(|ts| ts.iter().any(|t| t.path == path))
        .unwrap_or(false)
    {
        let _ = repo.remove_worktree(path);
    }
    if path.exists() {
        let _ = std::fs::remove_dir_all(path);
    }
    let _ = repo.prune_worktrees();
}

/// Starts a pending story: its lease taken, the session counted and the story `working` (one
/// transaction: `Store::start_story_work`), then its worktree made ready (created from the
/// run's branch on first start, again from its branch when the directory is gone) and its
/// worker built. `None` when the story cannot be started now: another coordinator started it,
/// or a live worker holds it.
#[allow(clippy::too_many_arguments)]
fn start_story(
    store: &mut Store,
    repo: &Repo,
    run: &Run,
    branch: &RunBranch,
    w: &StoryWork,
    input: &ParallelInput<'_>,
    cfg: &LoopConfig,
    observer: &mut dyn FnMut(&LoopEvent),
) -> Result<Option<(Worker, String)>, EngineError> {
    let (w, token) = match store.start_story_work(
        &run.id,
        &w.story,
        cfg.owner.pid,
        &cfg.owner.host,
        LEASE_TTL_MS,
        &cfg.owner.is_alive,
    ) {
        Ok(started) => started,
        Err(e @ (StoreError::StoryLeaseHeld { .. } | StoreError::Refused(_))) => {
            story_event(observer, w, &format!("not started: {e}"));
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    let ready = ready_worktree(repo, branch, &w).and_then(|()| (input.worker)(&w));
    match ready {
        Ok(worker) => Ok(Some((worker, token))),
        Err(e) => {
            // Not started after all: the story waits again, its lease released.
            let _ = store.update_story_work(
                &run.id,
                &w.story,
                &StoryWorkChange {
                    state: Some(WorkState::Pending),
                    release: Some(token),
                    ..Default::default()
                },
            );
            Err(e)
        }
    }
}

/// The story's worktree, ready for its worker: created from the run's branch on first start,
/// again from its branch when the directory is gone.
fn ready_worktree(repo: &Repo, branch: &RunBranch, w: &StoryWork) -> Result<(), EngineError> {
    let path = PathBuf::from(&w.worktree);
    let registered = repo.worktrees()?.iter().any(|t| t.path == path);
    if !registered {
        if path.exists() {
            // Left half-made by a crash while it was being added: git wrote it, nothing of the
            // agent's is in it.
            std::fs::remove_dir_all(&path).map_err(|e| {
                EngineError::Parallel(format!("cannot remove {}: {e}", path.display()))
            })?;
        }
        repo.prune_worktrees()?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                EngineError::Parallel(format!("cannot create {}: {e}", parent.display()))
            })?;
        }
        match repo.branch_head(&w.branch)? {
            Some(_) => repo.add_branch_worktree(&path, &w.branch, None)?,
            None => {
                let from = head(repo, &branch.name)?;
                repo.add_branch_worktree(&path, &w.branch, Some(&from))?
            }
        }
    }
    Ok(())
}

/// The top of every prompt of a story's sessions: which story, its scope and criteria, and why
/// it was sent back.
fn preamble(w: &StoryWork) -> String {
    let mut s = format!("{IN_WORKTREE}\nStory {}: {}", w.plan.id, w.plan.title);
    if !w.plan.files.is_empty() {
        s.push_str(&format!(
            "\nExpected files: {} (edit others only if the story needs it).",
            w.plan.files.join(", ")
        ));
    }
    if !w.plan.criteria.is_empty() {
        s.push_str(&format!(
            "\nDone when these pass (pawl runs them): {}",
            w.plan.criteria.join("; ")
        ));
    }
    if let Some(why) = &w.feedback {
        s.push_str(&format!("\n\nSent back by the merge queue: {why}"));
    }
    s
}

/// One worker: the caller's runner on one story in its worktree; once its checks pass there,
/// its work is committed on its branch.
#[allow(clippy::too_many_arguments)]
fn work_story(
    open_store: &(dyn Fn() -> Result<Store, EngineError> + Sync),
    run_id: &str,
    token: &str,
    work: &StoryWork,
    mut worker: Worker,
    run_story: &StoryRunner<'_>,
    control: &Control,
    tx: &mpsc::Sender<Msg>,
) -> Result<LoopEnd, EngineError> {
    let mut store = open_store()?;
    let end = run_story(StoryJob {
        store: &mut store,
        run_id,
        token,
        work,
        worker: &mut worker,
        control,
        observer: &mut |ev| {
            let _ = tx.send(Msg::Event(ev.clone()));
        },
    })?;
    if end.reason == StopReason::Verified {
        let repo = Repo::open(&worker.cfg.root)?;
        let message = format!(
            "pawl: story {} — its checks pass (run {run_id})",
            work.story_id
        );
        if repo.merging() {
            repo.conclude_merge(&message)?;
        } else {
            repo.commit_all(&message)?;
        }
    }
    Ok(end)
}

/// The runner of a plan file's stories: the headless loop as a sub-loop on the story, until its
/// checks pass, every prompt under the story's preamble.
pub fn headless_story(job: StoryJob<'_>) -> Result<LoopEnd, EngineError> {
    let scope = Scope {
        story: Some(job.work.story_id.clone()),
        preamble: Some(preamble(job.work)),
        until_checks_pass: true,
        fresh_session: true,
        plans: false,
        parallel: true,
    };
    driver::drive_leased(
        job.store,
        job.run_id,
        job.worker.adapter.as_mut(),
        job.worker.verifier.as_mut(),
        &job.worker.cfg,
        job.control,
        job.observer,
        job.token,
        &scope,
    )
}

/// What a worker's end asks of the coordinator.
enum Ending {
    /// The run stops (a limit, a stop, the user).
    Stop(StopReason),
    /// The plan goes back to the planner, for this reason (a spec failure).
    Replan(String),
}

/// A worker ended: its story is queued (checks pass), waits again, or is out of attempts — or
/// superseded (`failed`), its spec failure sending the plan back. Returns what the coordinator
/// is asked to do.
fn worker_done(
    store: &mut Store,
    run: &Run,
    story: &str,
    token: &str,
    result: Result<LoopEnd, String>,
    observer: &mut dyn FnMut(&LoopEvent),
) -> Result<Option<Ending>, EngineError> {
    let end = match result {
        Ok(end) => end,
        Err(e) => {
            match store.update_story_work(
                &run.id,
                story,
                &StoryWorkChange {
                    state: Some(WorkState::Pending),
                    release: Some(token.to_string()),
                    ..Default::default()
                },
            ) {
                Ok(_) | Err(StoreError::StoryLeaseLost { .. }) => {}
                Err(e) => return Err(e.into()),
            }
            return Err(EngineError::Parallel(format!("story {story}: {e}")));
        }
    };
    let (state, note, stop) = match (end.reason, &end.replan) {
        (_, Some(why)) => (
            WorkState::Failed,
            "superseded: a spec failure sent the plan back",
            Some(Ending::Replan(why.clone())),
        ),
        (StopReason::Verified, None) => {
            (WorkState::Queued, "its checks pass: queued to merge", None)
        }
        (StopReason::NoStoryCanProgress, None) => (WorkState::Failed, "out of attempts", None),
        (other, None) => (WorkState::Pending, "stopped", Some(Ending::Stop(other))),
    };
    let feedback = match (&end.replan, state) {
        (Some(why), _) => Some(Some(format!(
            "superseded: a spec failure sent the plan back: {why}"
        ))),
        (None, WorkState::Queued) => Some(None),
        _ => None,
    };
    let w = match store.update_story_work(
        &run.id,
        story,
        &StoryWorkChange {
            state: Some(state),
            feedback,
            release: Some(token.to_string()),
            ..Default::default()
        },
    ) {
        Ok(w) => w,
        // Its lease expired and another worker took the story over: this session's end is
        // not the story's (its commits stay on the story's branch).
        Err(StoreError::StoryLeaseLost { .. }) => {
            store.append_event(
                Some(&run.id),
                EventKind::StoryWork,
                json!({"story": story, "lease_lost": true, "ended": end.reason}),
            )?;
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    story_event(observer, &w, note);
    Ok(stop)
}

fn story_event(observer: &mut dyn FnMut(&LoopEvent), w: &StoryWork, note: &str) {
    observer(&LoopEvent::Story {
        story: w.plan.id.clone(),
        state: w.state.to_string(),
        merge: w.merge.to_string(),
        note: note.to_string(),
    });
}

/// The merge queue's work on one story: merge onto the run's branch, verify the merged tree,
/// then move the run's branch — or send the story back.
#[allow(clippy::too_many_arguments)]
fn merge_one(
    store: &mut Store,
    repo: &Repo,
    run: &Run,
    branch: &RunBranch,
    w: &StoryWork,
    input: &ParallelInput<'_>,
    observer: &mut dyn FnMut(&LoopEvent),
    token: &str,
) -> Result<(), EngineError> {
    let w = store.update_story_work(
        &run.id,
        &w.story,
        &StoryWorkChange {
            state: Some(WorkState::Merging),
            ..Default::default()
        },
    )?;
    let run_head = head(repo, &branch.name)?;
    // Sent back for a conflict: git's markers must be gone from the files that conflicted,
    // whatever the checks say (they may not read those files).
    if w.merge == MergeResult::Conflict {
        let left: Vec<String> = w.evidence["conflicts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str())
            .filter(|p| has_conflict_markers(&Path::new(&w.worktree).join(p)))
            .map(str::to_string)
            .collect();
        if !left.is_empty() {
            let why = format!(
                "git's conflict markers (<<<<<<< and >>>>>>> lines) are still in {}: resolve those conflicts, keeping what both sides meant.",
                left.join(", ")
            );
            return send_back(
                store,
                repo,
                run,
                &w,
                &run_head,
                MergeResult::Conflict,
                json!({"conflicts": left, "markers_left": true, "onto": run_head.as_str()}),
                why,
                observer,
            );
        }
    }
    let story_head = head(repo, &w.branch)?;
    if repo.is_ancestor(&story_head, &run_head)? {
        return merged(
            store,
            repo,
            run,
            &w,
            &run_head,
            json!({"already": true}),
            observer,
        );
    }
    let candidate = if repo.is_ancestor(&run_head, &story_head)? {
        story_head.clone()
    } else {
        match repo.merge_tree(&run_head, &story_head)? {
            MergeTree::Clean(tree) => repo.commit_tree(
                &tree,
                &[&run_head, &story_head],
                &format!(
                    "pawl: merge story {} into {} (run {})",
                    w.plan.id, branch.name, run.id
                ),
            )?,
            MergeTree::Conflicts(paths) => {
                let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                let why = format!(
                    "your work conflicts with what was merged into the run's branch meanwhile, in {}. The run's branch is merged into your worktree now and git marked the conflicts in those files: resolve them, keeping what both sides meant, then make the checks pass again.",
                    names.join(", ")
                );
                return send_back(
                    store,
                    repo,
                    run,
                    &w,
                    &run_head,
                    MergeResult::Conflict,
                    json!({"conflicts": names, "onto": run_head.as_str()}),
                    why,
                    observer,
                );
            }
        }
    };
    // The merged tree, checked out in a scratch worktree, verified with the sealed checks and
    // the criteria of every story merged so far and this one.
    let scratch = input.worktrees_dir.join(".merge");
    remove_scratch(repo, &scratch);
    if let Some(parent) = scratch.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            EngineError::Parallel(format!("cannot create {}: {e}", parent.display()))
        })?;
    }
    repo.add_worktree(&scratch, &candidate)?;
    let verified = verify_merged(store, run, &w, &scratch, input);
    remove_scratch(repo, &scratch);
    let v = verified?;
    let evidence = json!({
        "tree": v.tree,
        "commit": candidate.as_str(),
        "onto": run_head.as_str(),
        "checks": v.items.iter().map(|i| json!({
            "name": i.name,
            "passed": i.passed(),
            "end": i.evidence.as_ref().map(|e| e.data.end.clone()),
            "evidence": i.evidence.as_ref().map(|e| e.id),
            "failing": i.evidence.as_ref().map(|e| e.data.failing.clone()).unwrap_or_default(),
        })).collect::<Vec<_>>(),
    });
    if !v.verified {
        let failing: Vec<String> = v
            .items
            .iter()
            .filter(|i| !i.passed())
            .map(|i| {
                let first = i
                    .evidence
                    .as_ref()
                    .and_then(|e| e.data.first_failure.clone())
                    .and_then(|m| m.lines().find(|l| !l.trim().is_empty()).map(str::to_string))
                    .unwrap_or_default();
                if first.is_empty() {
                    i.name.clone()
                } else {
                    format!("{} ({first})", i.name)
                }
            })
            .collect();
        let why = format!(
            "your work merges cleanly with the run's branch, but on the merged tree these checks fail: {}. The run's branch is merged into your worktree now: make them pass there.",
            failing.join("; ")
        );
        return send_back(
            store,
            repo,
            run,
            &w,
            &run_head,
            MergeResult::Red,
            evidence,
            why,
            observer,
        );
    }
    // Green: the run's branch (checked out in the main working tree) moves to the merge — by
    // the run's owner only (the checks took time: another process may have taken the run).
    if !still_owned(store, &run.id, token)? {
        return Err(EngineError::Store(StoreError::LeaseLost(run.id.clone())));
    }
    Repo::open(repo.root())?.fast_forward_checked_out(&candidate)?;
    merged(store, repo, run, &w, &candidate, evidence, observer)
}

fn verify_merged(
    store: &mut Store,
    run: &Run,
    w: &StoryWork,
    scratch: &Path,
    input: &ParallelInput<'_>,
) -> Result<verify::Verification, EngineError> {
    let mut checks = match &run.settings.seal {
        Some(seal) => {
            story_checks(seal, input.merge_ws.vault.as_ref()).map_err(verify::VerifyError::from)?
        }
        None => Vec::new(),
    };
    let mut ids: Vec<String> = w.criteria.clone();
    for other in store.story_works(&run.id)? {
        if other.state == WorkState::Merged {
            ids.extend(other.criteria);
        }
    }
    let wanted: Vec<String> = ids
        .iter()
        .map(|id| pawl_verify::gate::Check::criterion(id, String::new()).name)
        .collect();
    checks.extend(
        verify::criterion_checks(store, Some(run))?
            .into_iter()
            .filter(|c| wanted.contains(&c.name)),
    );
    if checks.is_empty() {
        return Err(EngineError::Parallel(
            "nothing to verify the merge with: the run has no sealed checks and the story no criteria"
                .into(),
        ));
    }
    let mut plan = Plan::new(checks);
    plan.seal = run.settings.seal.clone();
    plan.record_failure = false;
    plan.story = Some(w.story_id.clone());
    let mut ws = input.merge_ws.clone();
    ws.seen_at = Some(ws.root.clone());
    ws.root = scratch.to_path_buf();
    Ok(verify::verify_checks(&ws, store, Some(run), &plan)?)
}

/// The story is on the run's branch: recorded merged (exactly once), its story done, its
/// worktree and branch removed (their commits are reachable from the run's branch).
fn merged(
    store: &mut Store,
    repo: &Repo,
    run: &Run,
    w: &StoryWork,
    commit: &CommitId,
    evidence: serde_json::Value,
    observer: &mut dyn FnMut(&LoopEvent),
) -> Result<(), EngineError> {
    let w = store.update_story_work(
        &run.id,
        &w.story,
        &StoryWorkChange {
            state: Some(WorkState::Merged),
            merge: Some(MergeResult::Merged),
            evidence: Some(evidence),
            feedback: Some(None),
            merged_commit: Some(commit.to_string()),
            ..Default::default()
        },
    )?;
    finish_story(store, &run.id, &w)?;
    story_event(observer, &w, &format!("merged at {}", commit.short()));
    remove_story(repo, &w, commit)
}

fn finish_story(store: &mut Store, run_id: &str, w: &StoryWork) -> Result<(), EngineError> {
    let s = store.story(run_id, &w.story_id)?;
    if s.status != pawl_core::model::StoryStatus::Done {
        store.set_story_status(
            run_id,
            &w.story_id,
            pawl_core::model::StoryStatus::Done,
            Some("merged by the merge queue, checks green on the merged tree"),
        )?;
    }
    Ok(())
}

/// The story goes back to an agent: the run's branch merged into its worktree (conflicts left
/// marked for the agent), the result and evidence recorded, and why, for its next session.
#[allow(clippy::too_many_arguments)]
fn send_back(
    store: &mut Store,
    repo: &Repo,
    run: &Run,
    w: &StoryWork,
    run_head: &CommitId,
    result: MergeResult,
    evidence: serde_json::Value,
    why: String,
    observer: &mut dyn FnMut(&LoopEvent),
) -> Result<(), EngineError> {
    let _ = repo;
    let tree = Repo::open(&w.worktree)?;
    if !tree.merging() {
        tree.merge_into_head(
            run_head,
            &format!(
                "pawl: merge the run's branch into story {} ({result})",
                w.plan.id
            ),
        )?;
    }
    let w = store.update_story_work(
        &run.id,
        &w.story,
        &StoryWorkChange {
            state: Some(WorkState::Pending),
            merge: Some(result),
            evidence: Some(evidence),
            feedback: Some(Some(why.clone())),
            ..Default::default()
        },
    )?;
    story_event(observer, &w, &format!("sent back: {why}"));
    Ok(())
}

/// Whether the file at `path` still has a line git writes to mark a conflict.
fn has_conflict_markers(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|bytes| {
        bytes
            .split(|b| *b == b'\n')
            .any(|l| l.starts_with(b"<<<<<<< ") || l.starts_with(b">>>>>>> "))
    })
}

/// Bytes under `path` (files and symbolic links, not followed); 0 when it does not exist.
pub fn disk_use(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| disk_use(&e.path()))
                .sum()
        })
        .unwrap_or(0)
}
