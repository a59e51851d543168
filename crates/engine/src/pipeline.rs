//! The phase pipeline: from a goal to reviewed, QA-checked work. Each phase is an agent
//! session pawl spawns with a role prompt and a schema for its answer; pawl validates the
//! answer, stores every verdict with the session that produced it, and decides from
//! pawl-core's rules (consensus order, plan score, convergence, repeated findings, TDD, QA
//! skip) what happens next. The execute phase runs the headless loop as a sub-loop per story.
//!
//! Modes: simple (the headless loop, one execute phase), work (plan → execute → verify),
//! qa (interview → plan with consensus → execute → review → qa → cross-story audit, with
//! convergence checks and rollbacks), ralph (re-inject the next unverified checklist item).
//! docs/pipeline.md describes the rules for users.
//!
//! What this module is not: terminal I/O (the interview's questions go through [`Answerer`]),
//! or the checks themselves (the [`Verifier`]).

pub mod report;
pub mod roles;
pub mod structured;

mod convergence;
mod execute;
mod gates;
mod plan;
mod ralph;
mod session;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use pawl_agent::Adapter;
use pawl_core::EventKind;
use pawl_core::StopReason;
use pawl_core::config::PipelineConfig;
use pawl_core::pipeline::output::Question;
use pawl_core::pipeline::{self as rules, Phase, PhaseState, Resume, Stalled};
use pawl_core::spec::{Analysis, Mode};
use pawl_store::{Store, StoreError};
use serde_json::json;

use crate::EngineError;
use crate::attempt::Heartbeat;
use crate::control::Control;
use crate::driver::{self, LoopConfig, LoopEnd, LoopEvent, Scope};
use crate::verify::{Verifier, VerifyReport};

/// An answer to an interview question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub text: String,
    /// The recommendation was taken without anybody answering.
    pub assumed: bool,
}

/// Who answers the interview: the terminal (CLI) or nobody (autonomous runs).
pub trait Answerer {
    fn answer(&mut self, q: &Question) -> Answer;
}

/// Autonomous runs take every recommendation and record it as assumed.
pub struct Autonomous;

impl Answerer for Autonomous {
    fn answer(&mut self, q: &Question) -> Answer {
        Answer {
            text: q.recommended.clone(),
            assumed: true,
        }
    }
}

/// What the pipeline needs beyond the headless loop's inputs.
pub struct PipelineInput<'a> {
    pub mode: Mode,
    pub analysis: &'a Analysis,
    pub config: &'a PipelineConfig,
    pub answerer: &'a mut dyn Answerer,
    /// `.pawl/prompts`, where role prompts may be overridden.
    pub prompts_dir: Option<PathBuf>,
    /// Check in with the user at the plan gate (a `colleague` goal not told to proceed:
    /// `pawl_core::spec::gate::checks_in`).
    pub check_in: bool,
    /// With more than one worker (`--workers`, `[parallel] workers`): the execute phase of work
    /// and qa runs the planner's stories through the parallel driver, each in its worktree,
    /// merged by the merge queue (docs/parallel.md). `None`: one after the other in the tree.
    pub parallel: Option<&'a crate::parallel::ParallelInput<'a>>,
}

/// Why the pipeline stops: a typed stop reason, or an internal error.
pub(crate) enum Halt {
    Stop(StopReason),
    Engine(EngineError),
    /// Back to planning, with why (a spec failure in a story's sub-loop).
    Replan(String),
}

impl From<EngineError> for Halt {
    fn from(e: EngineError) -> Self {
        Halt::Engine(e)
    }
}

impl From<StoreError> for Halt {
    fn from(e: StoreError) -> Self {
        Halt::Engine(EngineError::Store(e))
    }
}

pub(crate) type P<T> = Result<T, Halt>;

/// Everything a phase works with.
pub(crate) struct Ctx<'a> {
    pub store: &'a mut Store,
    pub run_id: String,
    pub adapter: &'a mut dyn Adapter,
    pub verifier: &'a mut dyn Verifier,
    pub cfg: &'a LoopConfig,
    pub control: &'a Control,
    pub observer: &'a mut dyn FnMut(&LoopEvent),
    pub token: String,
    /// The lease's heartbeat (renewed while sessions run and while waiting).
    pub heartbeat: Heartbeat,
    /// Stall recoveries so far in this drive.
    pub stalls_run: u32,
    pub pcfg: &'a PipelineConfig,
    pub analysis: &'a Analysis,
    pub mode: Mode,
    pub answerer: &'a mut dyn Answerer,
    pub prompts_dir: Option<PathBuf>,
    /// Check in with the user before an approved plan is taken.
    pub check_in: bool,
    /// The execute phase's stories in worktrees (more than one worker).
    pub parallel: Option<&'a crate::parallel::ParallelInput<'a>>,
    /// This context is one worker's, on one story in its worktree: other workers' iterations
    /// are open at the same time, and the merge queue, not this story, moves the run's branch.
    pub in_worktree: bool,
    /// The stage round (1-based; a re-plan starts the next one).
    pub round: u32,
    /// Planner sessions so far (a plan's number; architect and critic verdicts carry it).
    pub plan_no: u32,
    /// Why the last plan went back (findings, failed checks), for the next planner session.
    pub replan_reason: Option<String>,
    /// Calls per hour for this mode (ralph's own limit), on top of the run's.
    pub calls_per_hour: Option<u32>,
    pub last_report: Option<VerifyReport>,
    /// Stories done since the last progress report, and when it was.
    pub progress_stories: u32,
    pub progress_at: Instant,
}

impl Ctx<'_> {
    /// Sleeps in small steps, keeping the lease; false if a stop was asked for meanwhile.
    pub fn sleep(&mut self, total: Duration) -> bool {
        self.heartbeat
            .sleep(self.store, &self.run_id, total, self.control)
    }

    /// Verifies the current tree now (pawl's gates and command criteria).
    pub fn verify(&mut self) -> P<VerifyReport> {
        let r = self
            .verifier
            .verify(self.store, &self.run_id)
            .map_err(EngineError::from)?;
        self.store.append_event(
            Some(&self.run_id),
            EventKind::Verification,
            serde_json::to_value(&r).unwrap_or(json!(null)),
        )?;
        self.last_report = Some(r.clone());
        Ok(r)
    }

    /// Starts a phase (store + observer); returns its id.
    pub fn begin(&mut self, phase: Phase) -> P<i64> {
        let id = self.store.begin_phase(&self.run_id, phase, self.round)?;
        (self.observer)(&LoopEvent::Phase {
            phase: phase.to_string(),
            round: self.round,
            outcome: None,
            note: String::new(),
        });
        Ok(id)
    }

    pub fn end(&mut self, phase: Phase, id: i64, outcome: &str, note: &str) -> P<()> {
        self.store.end_phase(&self.run_id, id, outcome, note)?;
        (self.observer)(&LoopEvent::Phase {
            phase: phase.to_string(),
            round: self.round,
            outcome: Some(outcome.to_string()),
            note: note.to_string(),
        });
        Ok(())
    }

    /// Runs the headless loop as a sub-loop on one story until every check passes.
    pub fn sub_loop(&mut self, story: &str, preamble: String) -> P<LoopEnd> {
        let scope = Scope {
            story: Some(story.to_string()),
            preamble: Some(preamble),
            until_checks_pass: true,
            fresh_session: true,
            // In a worktree too: the worker reports the re-plan reason to the coordinator,
            // which starts no other story and sends the plan back (`parallel::coordinate`).
            plans: rules::phases(self.mode, &self.pcfg.phases).contains(&Phase::Plan),
            parallel: self.in_worktree,
        };
        let end = driver::drive_leased(
            self.store,
            &self.run_id,
            &mut *self.adapter,
            &mut *self.verifier,
            self.cfg,
            self.control,
            &mut *self.observer,
            &self.token,
            &scope,
        )?;
        if end.last.is_some() {
            self.last_report = end.last.clone();
        }
        Ok(end)
    }

    /// The task type thresholds are tuned for: the goal's workflow.
    pub fn task_type(&self) -> String {
        format!("{:?}", self.analysis.workflow).to_lowercase()
    }
}

/// Runs `run_id` through the pipeline of `input.mode` until it is verified or stops with a
/// typed reason. Simple mode is the headless loop itself, recorded as one execute phase.
#[allow(clippy::too_many_arguments)]
pub fn run(
    store: &mut Store,
    run_id: &str,
    adapter: &mut dyn Adapter,
    verifier: &mut dyn Verifier,
    cfg: &LoopConfig,
    control: &Control,
    observer: &mut dyn FnMut(&LoopEvent),
    input: PipelineInput<'_>,
) -> Result<LoopEnd, EngineError> {
    let PipelineInput {
        mode,
        analysis,
        config,
        answerer,
        prompts_dir,
        check_in,
        parallel,
    } = input;
    let end = driver::drive_with(
        store,
        run_id,
        cfg,
        observer,
        &mut |store, token, observer| {
            // Simple mode is the headless loop itself, which says it started.
            if mode != Mode::Simple {
                // Phases a crash left open are closed as such before the run goes on.
                close_open_phases(
                    store,
                    run_id,
                    "interrupted",
                    "pawl stopped without ending it",
                )?;
                let interrupted = store.interrupt_open_iterations(run_id)?;
                let resumed = !store.iterations(run_id)?.is_empty();
                observer(&LoopEvent::Started {
                    run_id: run_id.into(),
                    resumed,
                    interrupted_iterations: interrupted,
                });
            }
            // A resumed run goes on from its last plan and round.
            let plan_no = store.plans(run_id)?.last().map(|p| p.round).unwrap_or(0);
            let round = store.phases(run_id)?.last().map(|p| p.round).unwrap_or(1);
            let mut ctx = Ctx {
                store,
                run_id: run_id.to_string(),
                adapter: &mut *adapter,
                verifier: &mut *verifier,
                cfg,
                control,
                observer,
                token: token.to_string(),
                pcfg: config,
                analysis,
                mode,
                answerer: &mut *answerer,
                prompts_dir: prompts_dir.clone(),
                check_in,
                parallel,
                in_worktree: false,
                round,
                plan_no,
                replan_reason: None,
                calls_per_hour: (mode == Mode::Ralph).then_some(config.ralph_calls_per_hour),
                heartbeat: Heartbeat::new(token, crate::LEASE_TTL_MS),
                stalls_run: 0,
                last_report: None,
                progress_stories: 0,
                progress_at: Instant::now(),
            };
            let reason = match pipeline(&mut ctx) {
                Ok(reason) => reason,
                Err(Halt::Stop(reason)) => {
                    // The phase the stop came through ends with it.
                    close_open_phases(ctx.store, run_id, "stopped", reason.as_str())?;
                    reason
                }
                Err(Halt::Engine(e)) => return Err(e),
                // Only a mode that plans asks for it, and its stages take it; never here.
                Err(Halt::Replan(why)) => {
                    close_open_phases(ctx.store, run_id, "stopped", &why)?;
                    StopReason::NotConverging
                }
            };
            Ok(LoopEnd {
                reason,
                last: ctx.last_report.clone(),
                replan: None,
            })
        },
    )?;
    if mode != Mode::Simple && config.tune_thresholds {
        let _ = plan::tune_after_run(store, run_id, analysis, config, end.reason);
    }
    Ok(end)
}

fn pipeline(ctx: &mut Ctx<'_>) -> P<StopReason> {
    let phases = rules::phases(ctx.mode, &ctx.pcfg.phases);
    match ctx.mode {
        Mode::Simple => simple(ctx),
        Mode::Ralph => ralph::run(ctx),
        Mode::Work | Mode::Qa => staged(ctx, &phases),
    }
}

/// Ends every phase of the run that has not ended, with `outcome`.
fn close_open_phases(
    store: &mut Store,
    run_id: &str,
    outcome: &str,
    note: &str,
) -> Result<(), EngineError> {
    for p in store.phases(run_id)? {
        if p.ended_at.is_none() {
            store.end_phase(run_id, p.id, outcome, note)?;
        }
    }
    Ok(())
}

/// Where a staged run picks up its round `round`, from what the store says of it.
fn resume_point(ctx: &Ctx<'_>, round: u32) -> P<Resume> {
    let phases = ctx.store.phases(&ctx.run_id)?;
    let states: Vec<PhaseState<'_>> = phases
        .iter()
        .filter(|p| p.round == round)
        .map(|p| PhaseState {
            phase: p.phase,
            outcome: p.outcome.as_deref(),
            note: p.note.as_deref(),
        })
        .collect();
    let history = ctx.store.convergence_history(&ctx.run_id)?;
    let stalled = history
        .iter()
        .find(|c| c.round == round && c.outcome == "stalled")
        .map(|c| Stalled {
            stage: &c.stage,
            before: c.before,
            after: c.after,
        });
    Ok(rules::resume_point(&states, stalled))
}

/// Simple: one execute phase, the headless loop over the whole run.
fn simple(ctx: &mut Ctx<'_>) -> P<StopReason> {
    let id = ctx.begin(Phase::Execute)?;
    let end = driver::drive_leased(
        ctx.store,
        &ctx.run_id,
        &mut *ctx.adapter,
        &mut *ctx.verifier,
        ctx.cfg,
        ctx.control,
        &mut *ctx.observer,
        &ctx.token,
        &Scope::default(),
    )?;
    ctx.last_report = end.last.clone();
    let outcome = if end.reason == StopReason::Verified {
        "passed"
    } else {
        "stopped"
    };
    ctx.end(Phase::Execute, id, outcome, end.reason.as_str())?;
    Ok(end.reason)
}

/// Work and qa: (interview) → plan → execute → (review → qa → audit), re-planning when a
/// gate sends the work back, until verified and converged or a typed stop.
fn staged(ctx: &mut Ctx<'_>, phases: &[Phase]) -> P<StopReason> {
    let has = |p: Phase| phases.contains(&p);
    if has(Phase::Interview) && ctx.store.clarifications(&ctx.run_id)?.is_empty() {
        plan::interview(ctx)?;
    }
    // A resumed run goes on where it stopped: a round whose plan was approved and that nothing
    // has sent back yet goes straight to execution (the stories keep their states), and a round
    // that was sent back plans again with the reason it was sent back.
    let mut plan_approved = false;
    match resume_point(ctx, ctx.round)? {
        // A round that was sent back, then stopped while planning again: plan with the reason.
        Resume::Fresh if ctx.round > 1 => {
            if let Resume::RoundOver(reason) = resume_point(ctx, ctx.round - 1)? {
                ctx.replan_reason = Some(reason);
            }
        }
        Resume::Fresh => {}
        Resume::PlanApproved => plan_approved = true,
        Resume::RoundOver(reason) => {
            ctx.round += 1;
            ctx.replan_reason = Some(reason);
        }
    }
    loop {
        if ctx.round > ctx.pcfg.max_plan_rounds.max(1) + 1 {
            return Err(Halt::Stop(StopReason::NotConverging));
        }
        if has(Phase::Plan) && !std::mem::take(&mut plan_approved) {
            plan::plan(ctx, ctx.mode == Mode::Qa)?;
        }
        // The stage's checkpoint: convergence is measured from here, and a stalled stage rolls
        // the tree back to it.
        let checkpoint = convergence::checkpoint(ctx, "execute")?;
        let before = convergence::command_share(ctx)?;
        match execute::run(ctx) {
            // A spec failure: the plan is wrong, not the code. The execute phase ends failed
            // and the next round plans again with the reason.
            Err(Halt::Replan(why)) => {
                close_open_phases(ctx.store, &ctx.run_id, "failed", &why)?;
                ctx.replan_reason = Some(why);
                ctx.round += 1;
                continue;
            }
            other => other?,
        }
        if let Some(next) = convergence::after_stage(ctx, "execute", before, &checkpoint, true)? {
            ctx.replan_reason = Some(next);
            ctx.round += 1;
            continue;
        }
        if has(Phase::Plan)
            && let Some(why) = execute::fix_end_checkpoint(ctx)?
        {
            ctx.replan_reason = Some(why);
            ctx.round += 1;
            continue;
        }
        if has(Phase::Review) {
            let before = convergence::share(ctx)?;
            let cp = convergence::checkpoint(ctx, "review")?;
            if let Some(reason) = gates::review(ctx)? {
                ctx.replan_reason = Some(reason);
                ctx.round += 1;
                continue;
            }
            if let Some(next) = convergence::after_stage(ctx, "review", before.0, &cp, false)? {
                ctx.replan_reason = Some(next);
                ctx.round += 1;
                continue;
            }
        }
        if has(Phase::Qa)
            && let Some(reason) = gates::qa(ctx)?
        {
            ctx.replan_reason = Some(reason);
            ctx.round += 1;
            continue;
        }
        if has(Phase::Audit) {
            gates::audit(ctx)?;
        }
        let report = ctx.verify()?;
        let (share, required_ok, _) = convergence::share(ctx)?;
        if report.done && share + 1e-9 >= ctx.pcfg.converge_at && required_ok {
            return Ok(StopReason::Verified);
        }
        // The checks pass but the run changed its tests, and no reviewer accepted it: REVIEW,
        // for the user to accept or reject (re-planning would not change the tests back).
        if let Some(reason) = report
            .proof
            .as_ref()
            .and_then(pawl_core::proof::stop_reason)
        {
            return Err(Halt::Stop(reason));
        }
        // A hidden test of the independent tester fails on work that passes everything else:
        // another round, told only the behaviour (`pawl_core::tester::act`; once per run).
        // A mode without planning has no round to send the work back into: REVIEW at once.
        if report.proof.as_ref().is_some_and(|p| p.hidden_send_back) {
            if !has(Phase::Plan) {
                return Err(Halt::Stop(StopReason::Review));
            }
            ctx.replan_reason = Some(format!(
                "every check passes, but {}",
                report.findings.join("; ")
            ));
            ctx.round += 1;
            continue;
        }
        if report.outcome == Some(pawl_core::proof::Outcome::Unproven) {
            ctx.replan_reason = Some(
                "every check passes, but nothing proves the goal: no check or test failed on the \
                 pre-run code and passes now — plan a test that fails without the change"
                    .into(),
            );
            if !has(Phase::Plan) {
                return Err(Halt::Stop(StopReason::Unproven));
            }
            ctx.round += 1;
            continue;
        }
        // Everything ran but the run is not verified: plan again with what still fails.
        let failing: Vec<String> = report
            .failing
            .iter()
            .map(|f| format!("{} ({})", f.name, f.end))
            .collect();
        ctx.replan_reason = Some(format!(
            "the work is not verified: failing checks: {}; unmet criteria: {}",
            if failing.is_empty() {
                "none".into()
            } else {
                failing.join(", ")
            },
            report.unmet.join(", ")
        ));
        if !has(Phase::Plan) {
            return Err(Halt::Stop(StopReason::NotConverging));
        }
        ctx.round += 1;
    }
}
