//! What a fresh agent session needs to pick a run up, and the one next step pawl recommends.
//!
//! The store gathers the records; [`next_step`] decides, so that the state CLI, the SessionStart
//! hook and the headless prompt all say the same thing.

use serde::{Deserialize, Serialize};

use crate::model::{BlockerStatus, CriterionStatus, Driver, RunStatus, StoryStatus};
use crate::record::{Blocker, Clarification, Criterion, Failure, Note, Run, Story};
use crate::tdd::TddPhase;

/// Everything about a run that a new session should know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumeContext {
    pub run: Run,
    pub current_story: Option<Story>,
    pub stories: Vec<Story>,
    pub criteria: Vec<Criterion>,
    /// Most recent first.
    pub recent_failures: Vec<Failure>,
    pub open_blockers: Vec<Blocker>,
    pub resolved_blockers: Vec<Blocker>,
    pub clarifications: Vec<Clarification>,
    pub decisions: Vec<Note>,
    pub next_step: String,
}

/// The story being worked on: the first one in progress.
pub fn current_story(stories: &[Story]) -> Option<&Story> {
    stories.iter().find(|s| s.status == StoryStatus::InProgress)
}

/// The single next step for the run.
pub fn next_step(
    run: &Run,
    stories: &[Story],
    criteria: &[Criterion],
    failures_recent_first: &[Failure],
    blockers: &[Blocker],
) -> String {
    match run.status {
        RunStatus::Done => return "The run is done and verified: nothing is left to do.".into(),
        RunStatus::Cancelled => return "The run was cancelled: start a new one.".into(),
        _ => {}
    }
    // A driven run is not planned by hand: say what the user does with it.
    if run.driver != Driver::Manual {
        match run.status {
            RunStatus::Stopped => {
                let why = run
                    .stop_reason
                    .map(|r| format!(" ({})", r.as_str()))
                    .unwrap_or_default();
                return format!(
                    "The run stopped{why}: continue it with `pawl resume --run {id}` (raise a limit with `--add-iterations N`), or restore the pre-run state with `pawl rollback --run {id}`.",
                    id = run.id
                );
            }
            RunStatus::Active if run.driver == Driver::Headless => {
                return format!(
                    "pawl is driving the run: follow it with `pawl status --run {id}`, stop it after the current step with `pawl stop --run {id}`.",
                    id = run.id
                );
            }
            _ => {}
        }
    }
    if let Some(b) = blockers
        .iter()
        .find(|b| b.status == BlockerStatus::AwaitingUser)
    {
        let what = b.instructions.as_deref().unwrap_or(&b.text);
        return format!(
            "Wait for the user to clear blocker {}: {what}. The user runs `pawl user-fixed` when done.",
            b.id
        );
    }
    if let Some(b) = blockers.iter().find(|b| b.status == BlockerStatus::Open) {
        return format!(
            "Blocker {} is open ({}): work around it or hand it to the user with `pawl await-user {} \"<what to do>\"`.",
            b.id, b.text, b.id
        );
    }
    if let Some(s) = current_story(stories) {
        let last = failures_recent_first
            .iter()
            .find(|f| f.story_id.as_deref() == Some(s.id.as_str()));
        let fix = last
            .map(|f| {
                format!(
                    "Fix the last failure ({}: {}), then ",
                    f.category,
                    first_line(&f.message)
                )
            })
            .unwrap_or_default();
        let step = match s.tdd_phase {
            TddPhase::None => format!(
                "write a failing test for {} and record it: `pawl tdd {} red`",
                s.id, s.id
            ),
            TddPhase::Red => format!(
                "make the failing test pass and record it: `pawl tdd {} green`",
                s.id
            ),
            TddPhase::Green => format!(
                "refactor if needed (`pawl tdd {} refactor`), then `pawl tdd {} verify`",
                s.id, s.id
            ),
            TddPhase::Refactor => format!("verify: `pawl tdd {} verify`", s.id),
            TddPhase::Verify => format!("finish the story: `pawl story done {}`", s.id),
        };
        let mut step = format!("{fix}{step}");
        if let Some(first) = step.get(..1) {
            step = format!("{}{}", first.to_uppercase(), step.get(1..).unwrap_or(""));
        }
        return format!(
            "{step} (story {} \"{}\", attempt {}/{}).",
            s.id,
            s.title,
            s.attempts + 1,
            s.max_attempts
        );
    }
    if let Some(s) = stories.iter().find(|s| s.status == StoryStatus::Pending) {
        return format!(
            "Start the next story: `pawl story start {}` ({}).",
            s.id, s.title
        );
    }
    let unmet: Vec<&str> = criteria
        .iter()
        .filter(|c| c.status != CriterionStatus::Verified)
        .map(|c| c.id.as_str())
        .collect();
    if stories.is_empty() && criteria.is_empty() {
        return "Plan the work: add criteria (`pawl criterion add`) and stories (`pawl story add`).".into();
    }
    if !unmet.is_empty() {
        return format!("Verify the remaining criteria: {}.", unmet.join(", "));
    }
    "Every story and criterion is recorded as done: pawl verifies before the run can finish.".into()
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::StopReason;
    use crate::failure::FailureCategory;
    use crate::model::{Severity, Size, Verification, VerifyKind};
    use crate::record::RunSettings;

    fn run(status: RunStatus) -> Run {
        Run {
            id: "r1".into(),
            goal: "g".into(),
            status,
            driver: Driver::Manual,
            mode: None,
            phase: None,
            created_at: 0,
            updated_at: 0,
            ended_at: None,
            stop_reason: None,
            settings: RunSettings::default(),
            branch: None,
            pre_run_commit: None,
        }
    }

    fn story(id: &str, status: StoryStatus, tdd: TddPhase) -> Story {
        Story {
            id: id.into(),
            title: format!("title {id}"),
            size: Size::M,
            security: false,
            status,
            tdd_phase: tdd,
            attempts: 1,
            max_attempts: 3,
            created_at: 0,
            updated_at: 0,
        }
    }

    fn blocker(status: BlockerStatus) -> Blocker {
        Blocker {
            id: "B1".into(),
            text: "no API key".into(),
            severity: Severity::High,
            status,
            instructions: Some("set STRIPE_KEY in .env".into()),
            check_command: None,
            resolution_notes: None,
            created_at: 0,
            resolved_at: None,
        }
    }

    #[test]
    fn a_stopped_driven_run_says_resume_or_rollback_with_its_id() {
        let mut r = run(RunStatus::Stopped);
        r.driver = Driver::Headless;
        r.stop_reason = Some(StopReason::MaxIterations);
        let s = next_step(&r, &[], &[], &[], &[]);
        assert!(s.contains("(max_iterations)"), "{s}");
        assert!(s.contains("`pawl resume --run r1`"), "{s}");
        assert!(s.contains("`pawl rollback --run r1`"), "{s}");
        r.status = RunStatus::Active;
        let s = next_step(&r, &[], &[], &[], &[]);
        assert!(s.contains("`pawl stop --run r1`"), "{s}");
    }

    #[test]
    fn empty_run_says_plan() {
        let s = next_step(&run(RunStatus::Active), &[], &[], &[], &[]);
        assert!(s.starts_with("Plan the work"), "{s}");
    }

    #[test]
    fn awaiting_user_wins() {
        let stories = [story("S1", StoryStatus::InProgress, TddPhase::Red)];
        let s = next_step(
            &run(RunStatus::AwaitingUser),
            &stories,
            &[],
            &[],
            &[blocker(BlockerStatus::AwaitingUser)],
        );
        assert!(
            s.contains("set STRIPE_KEY in .env") && s.contains("pawl user-fixed"),
            "{s}"
        );
    }

    #[test]
    fn in_progress_story_follows_its_tdd_phase_and_last_failure() {
        let stories = [
            story("S1", StoryStatus::InProgress, TddPhase::Red),
            story("S2", StoryStatus::Pending, TddPhase::None),
        ];
        let failures = [Failure {
            id: 1,
            story_id: Some("S1".into()),
            message: "assert 2 == 3\nmore".into(),
            category: FailureCategory::Test,
            auto_classified: true,
            created_at: 0,
        }];
        let s = next_step(&run(RunStatus::Active), &stories, &[], &failures, &[]);
        assert_eq!(
            s,
            "Fix the last failure (test: assert 2 == 3), then make the failing test pass and record it: `pawl tdd S1 green` (story S1 \"title S1\", attempt 2/3)."
        );
    }

    #[test]
    fn next_pending_story_then_criteria() {
        let stories = [
            story("S1", StoryStatus::Done, TddPhase::Verify),
            story("S2", StoryStatus::Pending, TddPhase::None),
        ];
        let s = next_step(&run(RunStatus::Active), &stories, &[], &[], &[]);
        assert!(s.contains("pawl story start S2"), "{s}");
        let stories = [story("S1", StoryStatus::Done, TddPhase::Verify)];
        let criteria = [Criterion {
            id: "C1".into(),
            text: "t".into(),
            verification: Verification {
                kind: VerifyKind::Review,
                command: None,
            },
            status: CriterionStatus::Unverified,
            created_at: 0,
            updated_at: 0,
        }];
        let s = next_step(&run(RunStatus::Active), &stories, &criteria, &[], &[]);
        assert_eq!(s, "Verify the remaining criteria: C1.");
    }

    #[test]
    fn done_run() {
        assert!(next_step(&run(RunStatus::Done), &[], &[], &[], &[]).contains("done"));
    }
}
