//! Execute: the story loop. Stories run in dependency order; each one is a sub-loop of the
//! headless driver until pawl's checks pass. Where the project has tests, TDD is enforced: a
//! red step must add or change a test that pawl's test gate then fails on, the green sub-loop
//! makes it pass, a refactor step must keep it passing. Security-flagged stories get a security
//! review session; blocking findings send the story back to the developer with them.
//!
//! One story's work is one function, [`story_flow`]: the stories one after the other call it in
//! the run's tree; with more than one worker each story's worker calls it in the story's worktree
//! ([`in_worktrees`], a `parallel::StoryRunner`), with the worker's agent, store connection and
//! clean room. The merge queue then merges what passed.

use std::collections::BTreeMap;

use pawl_core::EventKind;
use pawl_core::StopReason;
use pawl_core::failure::FailureCategory;
use pawl_core::model::{DEFAULT_STORY_ATTEMPTS, Size, StoryStatus};
use pawl_core::pipeline::output::VerdictOutput;
use pawl_core::pipeline::{self as rules, Phase, Role};
use pawl_core::record::Story;
use pawl_core::tdd::TddPhase;

use super::session::{self, SessionOut};
use super::{Ctx, Halt, P, convergence, plan, roles};
use crate::EngineError;
use crate::driver::LoopEvent;
use crate::verify::VerifyReport;

/// Whether the project has tests: a check named like a test gate.
fn test_checks_pass(r: &VerifyReport) -> Option<bool> {
    let tests: Vec<_> = r
        .checks
        .iter()
        .filter(|c| c.name.contains("test"))
        .collect();
    if tests.is_empty() {
        None
    } else {
        Some(tests.iter().all(|c| c.passed))
    }
}

/// The test checks of a verification as red judges them, each with how it ended on the
/// pre-run code (the run's baseline event, per test id).
fn red_checks(ctx: &Ctx<'_>, r: &VerifyReport) -> P<Vec<rules::RedCheck>> {
    let baseline: Option<crate::baseline::Baseline> = ctx
        .store
        .last_event(&ctx.run_id, EventKind::Baseline)?
        .and_then(|e| serde_json::from_value(e.data).ok());
    Ok(r.checks
        .iter()
        .filter(|c| c.name.contains("test"))
        .map(|c| rules::RedCheck {
            name: c.name.clone(),
            passed: c.passed,
            failing: c.failing_tests.clone(),
            baseline: baseline
                .as_ref()
                .and_then(|b| b.check(&c.name))
                .map(|b| (b.passed, b.failing.clone())),
        })
        .collect())
}

/// The planner's command criteria that pass on the pre-run tree (nothing was done yet), as
/// the reason to plan again; `None` when there are none or work was already done.
fn passing_before_work(ctx: &Ctx<'_>, r: &VerifyReport) -> P<Option<String>> {
    let pre_run: Option<String> = ctx
        .store
        .last_event(&ctx.run_id, EventKind::Baseline)?
        .and_then(|e| {
            e.data
                .get("tree")
                .and_then(|t| t.as_str())
                .map(str::to_string)
        });
    if pre_run.as_deref() != Some(r.tree_hash.as_str()) {
        return Ok(None);
    }
    let gates: Vec<String> = ctx
        .store
        .run(&ctx.run_id)?
        .settings
        .seal
        .map(|s| s.checks.into_iter().map(|c| c.command).collect())
        .unwrap_or_default();
    // The current plan's criteria only: one an earlier plan was sent back for stays in the run
    // (it passes), and is not held against the next plan.
    let current: Vec<String> = ctx
        .store
        .plans(&ctx.run_id)?
        .last()
        .map(|p| p.ids.values().cloned().collect())
        .unwrap_or_default();
    let ids: Vec<String> = ctx
        .store
        .criteria(&ctx.run_id)?
        .into_iter()
        .filter(|c| current.contains(&c.id))
        .filter(|c| c.verification.kind == pawl_core::model::VerifyKind::Command)
        // A criterion that restates a sealed gate ("the tests still pass") guards against
        // regressions; it is not meant to prove the goal.
        .filter(|c| {
            !gates
                .iter()
                .any(|g| Some(g.as_str()) == c.verification.command.as_deref())
        })
        .filter(|c| r.verified.contains(&c.id))
        .map(|c| format!("{} `{}`", c.id, c.verification.command.unwrap_or_default()))
        .collect();
    if ids.is_empty() {
        return Ok(None);
    }
    Ok(Some(rules::criteria_passing_before_work(&ids)))
}

/// The stories to run, dependencies first (stories still pending or in progress).
fn ordered(ctx: &Ctx<'_>) -> P<Vec<Story>> {
    let stories: Vec<Story> = ctx
        .store
        .stories(&ctx.run_id)?
        .into_iter()
        .filter(|s| matches!(s.status, StoryStatus::Pending | StoryStatus::InProgress))
        .collect();
    let mut deps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for s in &stories {
        let d = ctx
            .store
            .story_plan(&ctx.run_id, &s.id)?
            .map(|p| p.depends_on)
            .unwrap_or_default();
        deps.insert(s.id.clone(), d);
    }
    let ids: Vec<String> = stories.iter().map(|s| s.id.clone()).collect();
    let mut out: Vec<Story> = Vec::new();
    let mut left = stories;
    while !left.is_empty() {
        let i = left
            .iter()
            .position(|s| {
                deps.get(&s.id).is_none_or(|d| {
                    d.iter()
                        .all(|x| !ids.contains(x) || out.iter().any(|o| &o.id == x))
                })
            })
            .unwrap_or(0);
        out.push(left.remove(i));
    }
    Ok(out)
}

fn developer_preamble(ctx: &Ctx<'_>, story: &Story) -> P<String> {
    let mut p = format!(
        "{}\n\nStory {} \"{}\" (size {}{}).",
        roles::prompt(Role::Developer, ctx.prompts_dir.as_deref()),
        story.id,
        story.title,
        story.size,
        if story.security {
            ", touches security"
        } else {
            ""
        }
    );
    if let Some(sp) = ctx.store.story_plan(&ctx.run_id, &story.id)? {
        if !sp.acceptance.is_empty() {
            p.push_str("\nAcceptance criteria:\n");
            for a in &sp.acceptance {
                p.push_str(&format!("- {a}\n"));
            }
        }
        if !sp.files.is_empty() {
            p.push_str(&format!("Files: {}\n", sp.files.join(", ")));
        }
    }
    Ok(p)
}

/// Runs every pending story.
pub(crate) fn run(ctx: &mut Ctx<'_>) -> P<()> {
    let id = ctx.begin(Phase::Execute)?;
    let mut stories = ordered(ctx)?;
    if stories.is_empty() && ctx.store.stories(&ctx.run_id)?.is_empty() {
        // No plan phase: the goal is the one story.
        let goal = ctx.analysis.goal.clone();
        let s = ctx
            .store
            .add_story(&ctx.run_id, &goal, Size::M, false, DEFAULT_STORY_ATTEMPTS)?;
        stories.push(s);
    }
    // The baseline: which checks exist (is there a test gate?) and how the tree stands.
    let baseline = ctx.verify()?;
    // A command criterion that already passes on the pre-run tree proves nothing: the plan goes
    // back with the criteria named.
    if let Some(why) = passing_before_work(ctx, &baseline)? {
        ctx.end(Phase::Execute, id, "failed", &why)?;
        return Err(Halt::Replan(why));
    }
    let tdd = ctx.pcfg.tdd && test_checks_pass(&baseline).is_some();
    let total = stories.len();
    let task_type = ctx.task_type();
    let (done, skipped) = match ctx.parallel {
        Some(input) => in_worktrees(ctx, input, &stories, tdd)?,
        None => one_after_another(ctx, &stories, tdd)?,
    };
    let s = convergence::command_share(ctx)?;
    let end_ok = ctx.store.add_score(
        &ctx.run_id,
        ctx.round,
        "checkpoint_end",
        &task_type,
        None,
        s,
        super::plan::checkpoint_threshold(ctx.store, &ctx.task_type(), "checkpoint_end", ctx.pcfg),
    )?;
    let note = format!(
        "{done} of {total} stories done{}; command criteria verified {s:.2} (end checkpoint {:.2}: {})",
        if skipped.is_empty() {
            String::new()
        } else {
            format!(", skipped {}", skipped.join(", "))
        },
        super::plan::checkpoint_threshold(ctx.store, &ctx.task_type(), "checkpoint_end", ctx.pcfg),
        if end_ok { "met" } else { "not met" }
    );
    ctx.end(
        Phase::Execute,
        id,
        if skipped.is_empty() && end_ok {
            "passed"
        } else {
            "failed"
        },
        &note,
    )?;
    Ok(())
}

/// The stories one after the other in the run's tree (one worker): each through its story flow,
/// with the mid-way checkpoint. Returns how many were done and the ids of those skipped.
fn one_after_another(ctx: &mut Ctx<'_>, stories: &[Story], tdd: bool) -> P<(usize, Vec<String>)> {
    let total = stories.len();
    let task_type = ctx.task_type();
    let mut done = 0usize;
    let mut skipped = Vec::new();
    for (i, story) in stories.iter().enumerate() {
        if story_flow(ctx, story, tdd, None)? {
            ctx.store.set_story_status(
                &ctx.run_id,
                &story.id,
                StoryStatus::Done,
                Some("pawl's checks pass"),
            )?;
            if ctx.cfg.auto_commit {
                crate::driver::commit_story(ctx.store, &ctx.cfg.root, &ctx.run_id, story)?;
            }
            done += 1;
            ctx.progress_stories += 1;
        } else {
            skipped.push(story.id.clone());
        }
        progress(ctx)?;
        if total >= 2 && i + 1 == total.div_ceil(2) {
            mid_checkpoint(ctx.store, &ctx.run_id, ctx.round, &task_type, ctx.pcfg)?;
        }
    }
    Ok((done, skipped))
}

/// The mid-way checkpoint, once half the phase's stories are through (done or skipped; with
/// several workers: merged or out of attempts): the share of command criteria verified on the
/// run's tree, scored; under its threshold the stories that remain are told what to fix (a note
/// is in every developer prompt), by name.
fn mid_checkpoint(
    store: &mut pawl_store::Store,
    run_id: &str,
    round: u32,
    task_type: &str,
    pcfg: &pawl_core::config::PipelineConfig,
) -> Result<(), EngineError> {
    let s = convergence::command_share_of(store, run_id)?;
    let threshold = super::plan::checkpoint_threshold(store, task_type, "checkpoint_mid", pcfg);
    let passed = store.add_score(
        run_id,
        round,
        "checkpoint_mid",
        task_type,
        None,
        s,
        threshold,
    )?;
    if !passed {
        let unmet = unmet_command_criteria(store, run_id)?;
        store.add_note(
            run_id,
            &format!(
                "mid-way checkpoint: {s:.2} of the command criteria verified, under {threshold:.2}; fix these in the stories that remain: {}",
                unmet.join(", ")
            ),
        )?;
    }
    Ok(())
}

/// The stories in git worktrees, up to `workers` at once, merged one at a time by the merge
/// queue that re-verifies the merged tree (`crate::parallel`, docs/parallel.md). Each worker
/// runs the story flow the sequential phase runs ([`story_flow`]: red, green, refactor, the
/// developer role and the story's acceptance lines in its prompts, the security review) in the
/// story's worktree, with its own agent, store connection and clean room. The planner's
/// stories become a plan's: their stored id (branch `pawl/<run>-<id>`), title, files and
/// dependencies among the stories of this execute phase. They carry no criteria of their own:
/// the planner's criteria are the run's, verified on the run's tree after every story is
/// merged, by the phases that follow. A story of an earlier plan that was not merged is not
/// worked on again (the new plan replaced it); its worktree stays until `pawl clean`.
/// Returns how many stories were merged and the ids of those that were not; a story's spec
/// failure sends the plan back (`Halt::Replan`) once the stories beside it have ended.
fn in_worktrees(
    ctx: &mut Ctx<'_>,
    input: &crate::parallel::ParallelInput<'_>,
    stories: &[Story],
    tdd: bool,
) -> P<(usize, Vec<String>)> {
    use pawl_core::parallel::{self as par, PlannedStory, WorkState};
    let ours = |id: &str| stories.iter().any(|s| s.id == id);
    let existing = ctx.store.story_works(&ctx.run_id)?;
    for w in &existing {
        if !ours(&w.story_id) && !matches!(w.state, WorkState::Merged | WorkState::Failed) {
            ctx.store.update_story_work(
                &ctx.run_id,
                &w.story,
                &pawl_store::StoryWorkChange {
                    state: Some(WorkState::Failed),
                    feedback: Some(Some("superseded: a later plan replaced it".into())),
                    ..Default::default()
                },
            )?;
        }
    }
    let mut rows = Vec::new();
    for s in stories {
        if existing.iter().any(|w| w.story_id == s.id) {
            continue;
        }
        let (files, depends_on) = ctx
            .store
            .story_plan(&ctx.run_id, &s.id)?
            .map(|p| (p.files, p.depends_on))
            .unwrap_or_default();
        // The scope only schedules: a planner's path that is not a glob makes it unknown
        // (empty: the story runs alone) rather than narrower.
        let files = if files.iter().all(|f| par::valid_scope(f)) {
            files
        } else {
            Vec::new()
        };
        rows.push(pawl_store::NewStoryWork {
            plan: PlannedStory {
                id: s.id.clone(),
                title: s.title.clone(),
                files,
                // A story done before this phase is not waited for.
                depends_on: depends_on.into_iter().filter(|d| ours(d)).collect(),
                criteria: Vec::new(),
            },
            story_id: s.id.clone(),
            criteria: Vec::new(),
            branch: par::story_branch(&ctx.run_id, &s.id),
            worktree: input.worktrees_dir.join(&s.id).display().to_string(),
        });
    }
    if !rows.is_empty() {
        let plans: Vec<PlannedStory> = rows.iter().map(|r| r.plan.clone()).collect();
        par::check_plan(&plans).map_err(|e| {
            EngineError::Parallel(format!(
                "the planner's stories cannot run in worktrees: {e}"
            ))
        })?;
        ctx.store.add_story_work(&ctx.run_id, &rows)?;
    }
    let shared = Shared {
        pcfg: ctx.pcfg,
        analysis: ctx.analysis,
        mode: ctx.mode,
        round: ctx.round,
        plan_no: ctx.plan_no,
        prompts_dir: ctx.prompts_dir.clone(),
        tdd,
    };
    let run_story = |job: crate::parallel::StoryJob<'_>| in_worktree(job, &shared);
    let (pcfg, round) = (ctx.pcfg, ctx.round);
    // The mid-way checkpoint on the run's tree once half the stories are merged or out of
    // attempts; a re-check, so that no story in flight is charged an attempt for it.
    let (run_id, total, task_type) = (ctx.run_id.clone(), stories.len(), ctx.task_type());
    let mut taken = total < 2;
    let mut settled = |store: &mut pawl_store::Store,
                       verifier: &mut dyn crate::verify::Verifier,
                       works: &[pawl_store::StoryWork]|
     -> Result<(), EngineError> {
        let through = works
            .iter()
            .filter(|w| {
                ours(&w.story_id) && matches!(w.state, WorkState::Merged | WorkState::Failed)
            })
            .count();
        if taken || through < total.div_ceil(2) {
            return Ok(());
        }
        taken = true;
        let r = verifier.verify_again(store, &run_id)?;
        store.append_event(
            Some(&run_id),
            EventKind::Verification,
            serde_json::to_value(&r).unwrap_or_default(),
        )?;
        mid_checkpoint(store, &run_id, round, &task_type, pcfg)
    };
    let end = crate::parallel::drive_stories(
        ctx.store,
        &ctx.run_id,
        &mut *ctx.verifier,
        ctx.cfg,
        ctx.control,
        &mut *ctx.observer,
        input,
        &run_story,
        &mut settled,
        &ctx.token,
    )?;
    // A story's spec failure: the plan goes back, as on one worker (`green`). The stories that
    // ran beside it have ended; those whose checks passed were merged.
    if let Some(why) = end.replan {
        return Err(Halt::Replan(why));
    }
    match end.reason {
        StopReason::Verified | StopReason::NoStoryCanProgress => {}
        other => return Err(Halt::Stop(other)),
    }
    // The run's tree with every merged story: the run's criteria are verified here, as the
    // stories' sub-loops verify them one after the other.
    ctx.verify()?;
    let mut done = 0;
    let mut skipped = Vec::new();
    for w in ctx.store.story_works(&ctx.run_id)? {
        if !ours(&w.story_id) {
            continue;
        }
        if w.state == WorkState::Merged {
            done += 1;
            ctx.progress_stories += 1;
            continue;
        }
        skipped.push(w.story_id.clone());
        let st = ctx.store.story(&ctx.run_id, &w.story_id)?;
        if !matches!(st.status, StoryStatus::Skipped | StoryStatus::Done) {
            ctx.store.set_story_status(
                &ctx.run_id,
                &w.story_id,
                StoryStatus::Skipped,
                Some("not merged: out of attempts in its worktree"),
            )?;
        }
    }
    progress(ctx)?;
    Ok((done, skipped))
}

/// What every worker of a planned execute phase shares: the pipeline's part of a story's context.
struct Shared<'a> {
    pcfg: &'a pawl_core::config::PipelineConfig,
    analysis: &'a pawl_core::spec::Analysis,
    mode: pawl_core::spec::Mode,
    round: u32,
    plan_no: u32,
    prompts_dir: Option<std::path::PathBuf>,
    tdd: bool,
}

/// One planned story on its worker's thread ([`crate::parallel::StoryRunner`]): the story flow,
/// on a context of the worker's own — its store connection, its agent, the loop's configuration
/// rooted in the worktree, the verifier of its clean room — under the run's lease. Checks that
/// pass end `Verified` (the worker commits, the merge queue merges and marks the story done).
fn in_worktree(
    job: crate::parallel::StoryJob<'_>,
    shared: &Shared<'_>,
) -> Result<crate::driver::LoopEnd, EngineError> {
    let mut answerer = super::Autonomous;
    let worker = job.worker;
    let mut ctx = Ctx {
        store: job.store,
        run_id: job.run_id.to_string(),
        adapter: worker.adapter.as_mut(),
        verifier: worker.verifier.as_mut(),
        cfg: &worker.cfg,
        control: job.control,
        observer: job.observer,
        token: job.token.to_string(),
        heartbeat: crate::attempt::Heartbeat::new(job.token, crate::LEASE_TTL_MS),
        stalls_run: 0,
        pcfg: shared.pcfg,
        analysis: shared.analysis,
        mode: shared.mode,
        answerer: &mut answerer,
        prompts_dir: shared.prompts_dir.clone(),
        check_in: false,
        parallel: None,
        in_worktree: true,
        round: shared.round,
        plan_no: shared.plan_no,
        replan_reason: None,
        calls_per_hour: None,
        last_report: None,
        progress_stories: 0,
        progress_at: std::time::Instant::now(),
    };
    // Read now: a story sent back after its TDD cycle does not start it over.
    let story = ctx.store.story(job.run_id, &job.work.story_id)?;
    let mut place = format!("\n{}", crate::parallel::IN_WORKTREE);
    if let Some(why) = &job.work.feedback {
        place.push_str(&format!("\n\nSent back by the merge queue: {why}"));
    }
    let (reason, replan) = match story_flow(&mut ctx, &story, shared.tdd, Some(&place)) {
        Ok(true) => (StopReason::Verified, None),
        Ok(false) => (StopReason::NoStoryCanProgress, None),
        Err(Halt::Stop(reason)) => (reason, None),
        Err(Halt::Engine(e)) => return Err(e),
        // A spec failure (the story is already marked superseded): the coordinator starts no
        // other story and hands the reason back ([`in_worktrees`] sends the plan back).
        Err(Halt::Replan(why)) => (StopReason::NoStoryCanProgress, Some(why)),
    };
    Ok(crate::driver::LoopEnd {
        reason,
        last: ctx.last_report.take(),
        replan,
    })
}

/// The end checkpoint acts (after convergence had its say: a stalled stage is rolled back
/// first): under it, review and QA of work that misses its own criteria would be wasted — the
/// plan goes back with the unmet criteria named. `None` when it was met.
pub(crate) fn end_checkpoint_missed(ctx: &Ctx<'_>) -> P<Option<String>> {
    let s = convergence::command_share(ctx)?;
    if s + 1e-9
        >= super::plan::checkpoint_threshold(
            ctx.store,
            &ctx.task_type(),
            "checkpoint_end",
            ctx.pcfg,
        )
    {
        return Ok(None);
    }
    let unmet = unmet_command_criteria(ctx.store, &ctx.run_id)?;
    Ok(Some(format!(
        "the end-of-execution checkpoint was missed ({s:.2} of the command criteria verified, under {:.2}): unmet {}",
        super::plan::checkpoint_threshold(ctx.store, &ctx.task_type(), "checkpoint_end", ctx.pcfg),
        unmet.join(", ")
    )))
}

/// The end checkpoint acts in two steps: under it, up to `checkpoint_retries` developer sessions
/// fix the unmet criteria, named; still under it, the plan goes back (the reason returned).
/// `None` when it is met.
pub(crate) fn fix_end_checkpoint(ctx: &mut Ctx<'_>) -> P<Option<String>> {
    for retry in 1..=ctx.pcfg.checkpoint_retries {
        let Some(why) = end_checkpoint_missed(ctx)? else {
            return Ok(None);
        };
        ctx.store.append_event(
            Some(&ctx.run_id),
            EventKind::FailureAction,
            serde_json::json!({"action": "checkpoint_fix", "retry": retry,
                               "of": ctx.pcfg.checkpoint_retries, "why": why}),
        )?;
        let prompt = format!(
            "Goal: {}\n\nEvery story ran, but {why}. Fix what these criteria need (fix {retry} of {} before pawl re-plans). pawl verifies again after this step.",
            ctx.analysis.goal, ctx.pcfg.checkpoint_retries
        );
        session::run(ctx, Role::Developer, None, &prompt, true)?;
    }
    end_checkpoint_missed(ctx)
}

/// The command criteria not verified yet, `C2 \`cmd\`` each.
fn unmet_command_criteria(
    store: &pawl_store::Store,
    run_id: &str,
) -> Result<Vec<String>, pawl_store::StoreError> {
    Ok(store
        .criteria(run_id)?
        .into_iter()
        .filter(|c| c.verification.kind == pawl_core::model::VerifyKind::Command)
        .filter(|c| c.status != pawl_core::model::CriterionStatus::Verified)
        .map(|c| format!("{} `{}`", c.id, c.verification.command.unwrap_or_default()))
        .collect())
}

fn progress(ctx: &mut Ctx<'_>) -> P<()> {
    let since = ctx.progress_at.elapsed().as_millis() as u64;
    if !rules::progress_due(ctx.progress_stories, since) {
        return Ok(());
    }
    let stories = ctx.store.stories(&ctx.run_id)?;
    let criteria = ctx.store.criteria(&ctx.run_id)?;
    let spent = ctx.store.spent(&ctx.run_id)?;
    let ev = LoopEvent::Progress {
        stories_done: stories
            .iter()
            .filter(|s| s.status == StoryStatus::Done)
            .count() as u32,
        stories_total: stories
            .iter()
            .filter(|s| s.status != StoryStatus::Skipped)
            .count() as u32,
        verified: criteria
            .iter()
            .filter(|c| c.status == pawl_core::model::CriterionStatus::Verified)
            .count(),
        criteria: criteria.len(),
        active_ms: spent.active_ms,
    };
    ctx.store.append_event(
        Some(&ctx.run_id),
        EventKind::Progress,
        serde_json::to_value(&ev).unwrap_or_default(),
    )?;
    (ctx.observer)(&ev);
    ctx.progress_stories = 0;
    ctx.progress_at = std::time::Instant::now();
    Ok(())
}

fn out_of_attempts(ctx: &mut Ctx<'_>, story: &str) -> P<bool> {
    let s = ctx.store.story(&ctx.run_id, story)?;
    if s.attempts >= s.max_attempts {
        if !matches!(s.status, StoryStatus::Skipped | StoryStatus::Done) {
            ctx.store.set_story_status(
                &ctx.run_id,
                story,
                StoryStatus::Skipped,
                Some("attempt limit reached"),
            )?;
            (ctx.observer)(&LoopEvent::StorySkipped {
                story: story.to_string(),
                attempts: s.attempts,
            });
        }
        return Ok(true);
    }
    Ok(false)
}

/// The green sub-loop: true when every check passes, false when the story was skipped.
fn green(ctx: &mut Ctx<'_>, story: &Story, preamble: String) -> P<bool> {
    let end = ctx.sub_loop(&story.id, preamble)?;
    if let Some(why) = end.replan {
        // The story belongs to the plan that went back: the next plan replaces it.
        ctx.store.set_story_status(
            &ctx.run_id,
            &story.id,
            StoryStatus::Skipped,
            Some("superseded: a spec failure sent the plan back"),
        )?;
        return Err(Halt::Replan(why));
    }
    match end.reason {
        StopReason::Verified => Ok(true),
        StopReason::NoStoryCanProgress => Ok(false),
        other => Err(Halt::Stop(other)),
    }
}

/// One story through red → green → refactor → verify (TDD) or green alone, then the security
/// review, in `ctx`'s tree: the run's (the caller then marks it done) or the story's worktree
/// (the merge queue marks it done once merged). `place` is added to the developer's preamble
/// (where it works, why the merge queue sent it back). A story whose cycle was already through
/// green (resumed, or sent back after it) does the green step again, then its security review.
/// Returns false when the story was skipped.
fn story_flow(ctx: &mut Ctx<'_>, story: &Story, tdd: bool, place: Option<&str>) -> P<bool> {
    // Irreversible work (data, deployments, publications), or a story that touches security:
    // a checkpoint commit before it, so what it changes can be compared and rolled back.
    if rules::checkpoint_before_story(ctx.analysis.reversibility, story.security) {
        convergence::checkpoint(ctx, &format!("story-{}", story.id))?;
    }
    let mut preamble = developer_preamble(ctx, story)?;
    if let Some(place) = place {
        preamble.push_str(place);
    }
    if tdd && story.tdd_phase == TddPhase::None {
        // Red, while the story is still pending: the expected failing tests are not one of
        // its failed attempts; a red that does not hold is.
        let mut extra = String::new();
        loop {
            let prompt = format!(
                "{preamble}\n\nGoal: {}\n\nTDD, red step: write (or change) a test for this story that FAILS now because \
                 the behaviour is missing. Do not implement the behaviour yet. pawl runs the tests after this step \
                 and checks that the new test fails.{extra}",
                ctx.analysis.goal
            );
            let s = session::run(ctx, Role::Developer, Some(&story.id), &prompt, true)?;
            let changed: Vec<String> = s.outcome.edits.keys().cloned().collect();
            let red = match &s.report {
                Some(r) => rules::check_red_by_id(&changed, &red_checks(ctx, r)?),
                None => rules::check_red(&changed, true).map(|()| Vec::new()),
            };
            match red {
                Ok(new_failing) => {
                    ctx.store.append_event(
                        Some(&ctx.run_id),
                        EventKind::TddPhase,
                        serde_json::json!({"story": story.id, "red": new_failing}),
                    )?;
                    ctx.store
                        .advance_tdd(&ctx.run_id, &story.id, TddPhase::Red)?;
                    break;
                }
                Err(v) => {
                    ctx.store.add_failure(
                        &ctx.run_id,
                        Some(&story.id),
                        &format!("TDD {v} (iteration {})", s.n),
                        FailureCategory::Test,
                        false,
                    )?;
                    if out_of_attempts(ctx, &story.id)? {
                        return Ok(false);
                    }
                    extra = format!("\n\nYour last red step did not hold: {v}.");
                }
            }
        }
    }
    let green_pre = if tdd {
        format!(
            "{preamble}\nTDD, green step: make the failing test pass with the simplest correct implementation."
        )
    } else {
        preamble.clone()
    };
    if !green(ctx, story, green_pre.clone())? {
        return Ok(false);
    }
    if tdd && !story.tdd_phase.reached(TddPhase::Refactor) {
        if !story.tdd_phase.reached(TddPhase::Green) {
            ctx.store
                .advance_tdd(&ctx.run_id, &story.id, TddPhase::Green)?;
        }
        let prompt = format!(
            "{preamble}\n\nTDD, refactor step: the tests pass. Clean up the code of this story without changing \
             behaviour (or change nothing if it is clean). pawl runs the checks again after this step."
        );
        let s = session::run(ctx, Role::Developer, Some(&story.id), &prompt, true)?;
        let ok = s.report.as_ref().is_some_and(|r| r.failing.is_empty());
        if !ok && !green(ctx, story, green_pre.clone())? {
            return Ok(false);
        }
        ctx.store
            .advance_tdd(&ctx.run_id, &story.id, TddPhase::Refactor)?;
        ctx.store
            .advance_tdd(&ctx.run_id, &story.id, TddPhase::Verify)?;
    }
    if story.security {
        loop {
            let body = security_body(ctx, story)?;
            let (v, s): (VerdictOutput, SessionOut) =
                session::structured(ctx, Role::Security, Some(&story.id), &body)?;
            plan::record_verdict(
                ctx,
                Phase::Execute,
                Role::Security,
                ctx.round,
                Some(&story.id),
                &s,
                &v,
            )?;
            if v.approves() {
                break;
            }
            let reason = rules::blocking_reason(&v);
            ctx.store.add_failure(
                &ctx.run_id,
                Some(&story.id),
                &format!("security review (iteration {}): {reason}", s.n),
                FailureCategory::Code,
                false,
            )?;
            if out_of_attempts(ctx, &story.id)? {
                return Ok(false);
            }
            let pre = format!(
                "{green_pre}\n\nThe security review sent this story back with blocking findings; fix them:\n- {}",
                v.blocking()
                    .map(|f| match &f.file {
                        Some(file) => format!("{} ({file})", f.text),
                        None => f.text.clone(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n- ")
            );
            if !green(ctx, story, pre)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

fn security_body(ctx: &Ctx<'_>, story: &Story) -> P<String> {
    let files: Vec<String> = ctx
        .store
        .iterations(&ctx.run_id)?
        .into_iter()
        .filter(|i| i.story_id.as_deref() == Some(story.id.as_str()))
        .flat_map(|i| i.files)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    Ok(format!(
        "## Goal\n{}\n\n## Story {} \"{}\"\nFiles it changed: {}\nReview them (read the files, `git diff`).",
        ctx.analysis.goal,
        story.id,
        story.title,
        if files.is_empty() {
            "-".to_string()
        } else {
            files.join(", ")
        }
    ))
}
