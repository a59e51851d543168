//! Interview and plan: questions with recommended answers (stored as clarifications), then the
//! planner's criteria and stories, scored by pawl, reviewed by an architect and then a critic in
//! their own sessions (qa mode), revised with their findings for at most `max_plan_rounds`.

use pawl_core::EventKind;
use pawl_core::StopReason;
use pawl_core::config::PipelineConfig;
use pawl_core::model::DEFAULT_STORY_ATTEMPTS;
use pawl_core::pipeline::output::{InterviewOutput, PlanOutput, VerdictOutput};
use pawl_core::pipeline::{self as rules, Consensus, PastRun, Phase, Role, Round};
use pawl_core::spec::Analysis;
use pawl_store::{NewVerdict, Store};
use serde_json::json;

use super::session::{self, SessionOut};
use super::{Ctx, Halt, P};
use crate::EngineError;
use crate::driver::LoopEvent;

/// The interview: every answer is stored as a clarification (`assumed` when the
/// recommendation was taken because nobody answered).
pub(crate) fn interview(ctx: &mut Ctx<'_>) -> P<()> {
    let id = ctx.begin(Phase::Interview)?;
    let a = ctx.analysis;
    let body = format!(
        "## Goal\n{}\n\npawl's analysis: clarity {}/10, workflow {:?}, security-sensitive: {}, external services: {}.\n\
         Ask the questions that would change the work (at most 7).",
        a.goal,
        a.clarity.total,
        a.workflow,
        a.security_sensitive,
        if a.external.is_empty() {
            "none".to_string()
        } else {
            a.external
                .iter()
                .map(|e| e.category.clone())
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    let (out, _s): (InterviewOutput, SessionOut) =
        session::structured(ctx, Role::Interviewer, None, &body)?;
    let mut assumed = 0;
    for q in &out.questions {
        let answer = ctx.answerer.answer(q);
        if answer.assumed {
            assumed += 1;
        }
        ctx.store.add_clarification(
            &ctx.run_id,
            &q.question,
            &answer.text,
            "interview",
            if answer.assumed {
                "assumed"
            } else {
                "answered"
            },
        )?;
    }
    ctx.end(
        Phase::Interview,
        id,
        "passed",
        &format!(
            "{} question(s), {assumed} answered by assumption",
            out.questions.len()
        ),
    )?;
    Ok(())
}

/// The plan threshold of this run's task type (tuned from past runs, else the configured one).
pub(crate) fn threshold(store: &Store, task_type: &str, config: &PipelineConfig) -> f64 {
    if config.tune_thresholds
        && let Ok(Some(t)) = store.tuned_threshold(task_type)
    {
        return t;
    }
    config.plan_threshold
}

fn planner_body(ctx: &Ctx<'_>, feedback: Option<&str>) -> P<String> {
    let a = ctx.analysis;
    let mut b = format!("## Goal\n{}\n", a.goal);
    let clar = ctx.store.clarifications(&ctx.run_id)?;
    if !clar.is_empty() {
        b.push_str("\n## Clarifications\n");
        for c in &clar {
            b.push_str(&format!(
                "- Q: {} A: {} ({})\n",
                c.question, c.answer, c.category
            ));
        }
    }
    if a.security_sensitive {
        b.push_str(&format!(
            "\nThe goal touches security ({}): flag the stories that do.\n",
            a.security_terms.join(", ")
        ));
    }
    for e in &a.external {
        b.push_str(&format!(
            "External service: {} — tests use: {}\n",
            e.category, e.mock_strategy
        ));
    }
    let criteria = ctx.store.criteria(&ctx.run_id)?;
    if !criteria.is_empty() {
        b.push_str("\n## Criteria so far\n");
        for c in &criteria {
            b.push_str(&format!(
                "- {} [{}] {} ({})\n",
                c.id, c.status, c.text, c.verification.kind
            ));
        }
    }
    let failed = ctx.store.failed_directions(&ctx.run_id)?;
    if !failed.is_empty() {
        b.push_str("\n## Directions that failed (do not retry them)\n");
        for f in &failed {
            b.push_str(&format!("- {} — {}\n", f.direction, f.reason));
        }
    }
    if let Some(f) = feedback {
        b.push_str(&format!("\n## Why the plan must change\n{f}\n"));
    }
    Ok(b)
}

fn review_body(ctx: &Ctx<'_>, plan: &PlanOutput, score: &rules::PlanScore) -> String {
    format!(
        "## Goal\n{}\n\n## The plan\n```json\n{}\n```\n\npawl's plan score: {:.2} (completeness {:.2}, feasibility {:.2}, \
         verifiability {:.2}, clarity {:.2}, risk {:.2}, dependencies {:.2}).\n",
        ctx.analysis.goal,
        serde_json::to_string_pretty(plan).unwrap_or_default(),
        score.overall(),
        score.completeness,
        score.feasibility,
        score.verifiability,
        score.clarity,
        score.risk,
        score.dependencies
    )
}

/// Records a verdict and tells the observer.
pub(crate) fn record_verdict(
    ctx: &mut Ctx<'_>,
    phase: Phase,
    role: Role,
    round: u32,
    story: Option<&str>,
    s: &SessionOut,
    v: &VerdictOutput,
) -> P<i64> {
    let id = ctx.store.add_verdict(
        &ctx.run_id,
        &NewVerdict {
            phase,
            role,
            round,
            story_id: story,
            session_id: s.session_id.as_deref(),
            iteration: s.n,
            output: v,
        },
    )?;
    (ctx.observer)(&LoopEvent::Verdict {
        role: role.to_string(),
        round,
        story: story.map(str::to_string),
        approve: v.approves(),
        session_id: s.session_id.clone(),
        blocking: v.blocking().count(),
        summary: if v.approves() {
            "approved".into()
        } else {
            rules::blocking_reason(v)
        },
    });
    Ok(id)
}

/// Plans (with consensus in qa mode) and stores the approved plan's criteria and stories.
pub(crate) fn plan(ctx: &mut Ctx<'_>, consensus: bool) -> P<()> {
    let id = ctx.begin(Phase::Plan)?;
    let task_type = ctx.task_type();
    let threshold = threshold(ctx.store, &task_type, ctx.pcfg);
    let mut feedback = ctx.replan_reason.take();
    let max = ctx.pcfg.max_plan_rounds.max(1);
    for k in 1..=max {
        ctx.plan_no += 1;
        let no = ctx.plan_no;
        let body = planner_body(ctx, feedback.as_deref())?;
        let (plan, ps): (PlanOutput, SessionOut) =
            session::structured(ctx, Role::Planner, None, &body)?;
        let score = rules::score_plan(&plan, ctx.analysis.security_sensitive);
        let passed = ctx.store.add_score(
            &ctx.run_id,
            no,
            "plan",
            &task_type,
            Some(&score),
            score.overall(),
            threshold,
        )?;
        let approved = if !passed {
            feedback = Some(format!(
                "pawl's plan score {:.2} is under the threshold {threshold:.2} (completeness {:.2}, feasibility {:.2}, \
                 verifiability {:.2}, clarity {:.2}, risk {:.2}, dependencies {:.2}): give every story acceptance criteria \
                 and files, prefer command criteria, split XL stories, flag security stories, fix dependencies",
                score.overall(),
                score.completeness,
                score.feasibility,
                score.verifiability,
                score.clarity,
                score.risk,
                score.dependencies
            ));
            Consensus::Revise
        } else if !consensus {
            Consensus::Approved
        } else {
            let mut round = Round::default();
            let body = review_body(ctx, &plan, &score);
            rules::accept_plan_verdict(&round, Role::Architect)
                .map_err(|e| Halt::Engine(EngineError::from(e)))?;
            let (av, asess): (VerdictOutput, SessionOut) =
                session::structured(ctx, Role::Architect, None, &body)?;
            record_verdict(ctx, Phase::Plan, Role::Architect, no, None, &asess, &av)?;
            round.architect = Some(av.approves());
            let mut reasons = Vec::new();
            if !av.approves() {
                reasons.push(format!("architect: {}", rules::blocking_reason(&av)));
            }
            // The critic only reviews a plan the architect approved in this round; the rule
            // lives in pawl-core and is asked here, never assumed.
            match rules::accept_plan_verdict(&round, Role::Critic) {
                Ok(()) => {
                    let (cv, csess): (VerdictOutput, SessionOut) =
                        session::structured(ctx, Role::Critic, None, &body)?;
                    record_verdict(ctx, Phase::Plan, Role::Critic, no, None, &csess, &cv)?;
                    round.critic = Some(cv.approves());
                    if !cv.approves() {
                        reasons.push(format!("critic: {}", rules::blocking_reason(&cv)));
                    }
                }
                Err(e) => {
                    ctx.store.append_event(
                        Some(&ctx.run_id),
                        EventKind::CriticSkipped,
                        json!({"plan": no, "why": e.to_string()}),
                    )?;
                }
            }
            let c = rules::consensus(&round, k, max);
            if c != Consensus::Approved {
                feedback = Some(reasons.join("; "));
            }
            c
        };
        // A `colleague` goal checks in at this gate: the user approves the plan or says what to
        // change (the next planner session gets it); unattended the recommendation — go on —
        // is taken and recorded as assumed.
        let approved = match approved {
            Consensus::Approved if ctx.check_in => match check_in(ctx, &plan)? {
                None => Consensus::Approved,
                Some(change) => {
                    feedback = Some(format!(
                        "the user asked for changes at the plan check-in: {change}"
                    ));
                    Consensus::Revise
                }
            },
            other => other,
        };
        match approved {
            Consensus::Approved => {
                ctx.store.save_plan(
                    &ctx.run_id,
                    no,
                    ps.session_id.as_deref(),
                    ps.n,
                    &plan,
                    DEFAULT_STORY_ATTEMPTS,
                )?;
                ctx.end(
                    Phase::Plan,
                    id,
                    "passed",
                    &format!(
                        "plan {no}: {} criteria, {} stories, score {:.2} ≥ {threshold:.2}",
                        plan.criteria.len(),
                        plan.stories.len(),
                        score.overall()
                    ),
                )?;
                return Ok(());
            }
            Consensus::Revise if k < max => continue,
            _ => break,
        }
    }
    let why = feedback.unwrap_or_else(|| "the plan was not approved".into());
    ctx.store.add_failure(
        &ctx.run_id,
        None,
        &format!("plan rejected after {max} round(s): {why}"),
        pawl_core::FailureCategory::Spec,
        false,
    )?;
    ctx.end(Phase::Plan, id, "failed", &why)?;
    Err(Halt::Stop(StopReason::PlanRejected))
}

/// After a run: tune its task type's plan threshold from how the run went (bounded, recorded).
pub(crate) fn tune_after_run(
    store: &mut Store,
    run_id: &str,
    analysis: &Analysis,
    config: &PipelineConfig,
    reason: StopReason,
) -> Result<(), EngineError> {
    let task_type = format!("{:?}", analysis.workflow).to_lowercase();
    let Some(last) = store
        .scores(run_id)?
        .into_iter()
        .rev()
        .find(|s| s.kind == "plan" && s.passed)
    else {
        return Ok(());
    };
    // Only a finished verdict on the plan teaches anything: verified, or stopped by the work.
    if matches!(
        reason,
        StopReason::Stopped | StopReason::Interrupted | StopReason::Cancelled | StopReason::Error
    ) {
        return Ok(());
    }
    let current = threshold(store, &task_type, config);
    let past = PastRun {
        plan_score: last.overall,
        threshold: last.threshold,
        verified: reason == StopReason::Verified,
    };
    if let Some(t) = rules::tune_threshold(config.plan_threshold, current, &past) {
        store.record_tuning(&task_type, &t, Some(run_id))?;
    }
    // The checkpoints too, each from its last score in this run.
    let scores = store.scores(run_id)?;
    for kind in ["checkpoint_mid", "checkpoint_end"] {
        let Some(last) = scores.iter().rev().find(|s| s.kind == kind) else {
            continue;
        };
        let current = checkpoint_threshold(store, &task_type, kind, config);
        if let Some(t) = rules::tune_checkpoint(
            checkpoint_base(kind, config),
            current,
            last.passed,
            reason == StopReason::Verified,
        ) {
            store.record_tuning(&rules::checkpoint_key(&task_type, kind), &t, Some(run_id))?;
        }
    }
    Ok(())
}

fn checkpoint_base(kind: &str, config: &PipelineConfig) -> f64 {
    if kind == "checkpoint_mid" {
        config.checkpoint_mid
    } else {
        config.checkpoint_end
    }
}

/// A checkpoint's threshold (`checkpoint_mid`, `checkpoint_end`) for this task type: tuned from
/// past runs, else the configured one.
pub(crate) fn checkpoint_threshold(
    store: &Store,
    task_type: &str,
    kind: &str,
    config: &PipelineConfig,
) -> f64 {
    if config.tune_thresholds
        && let Ok(Some(t)) = store.tuned_threshold(&rules::checkpoint_key(task_type, kind))
    {
        return t;
    }
    checkpoint_base(kind, config)
}

/// Asks the user about an approved plan; `Some(what to change)` sends it back.
fn check_in(ctx: &mut Ctx<'_>, plan: &PlanOutput) -> P<Option<String>> {
    let stories: Vec<String> = plan
        .stories
        .iter()
        .map(|s| format!("{} {}", s.id, s.title))
        .collect();
    let q = pawl_core::pipeline::output::Question {
        question: format!(
            "check-in: the plan has {} criteria and {} stories ({}). Go on with it? (yes, or say what to change)",
            plan.criteria.len(),
            plan.stories.len(),
            stories.join("; ")
        ),
        recommended: "yes".into(),
        category: Some("check-in".into()),
    };
    let answer = ctx.answerer.answer(&q);
    ctx.store.add_clarification(
        &ctx.run_id,
        &q.question,
        &answer.text,
        "check-in",
        if answer.assumed {
            "assumed"
        } else {
            "answered"
        },
    )?;
    Ok(pawl_core::spec::gate::check_in_reply(&answer.text))
}
