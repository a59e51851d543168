//! The kinds of the store's append-only events, one enum for every crate that writes or reads
//! them (the store's own changes, the engine's turn, the CLI's hooks and commands). The event log
//! is what `pawl events`, the report and the dashboard are views of.
//!
//! Events are read back with their kind as text (`pawl_core::record::Event::kind`): a store
//! written by a newer pawl may hold kinds this one does not know.

use serde::{Deserialize, Serialize};

use crate::model::{ParseEnumError, str_enum};

str_enum!(
    /// What an event records.
    EventKind, "event kind" {
        /// A run was created.
        RunCreated => "run_created",
        /// A run's status changed (with the stop reason).
        RunStatus => "run_status",
        /// The user raised a run's limits (`pawl resume --add-*`).
        LimitsChanged => "limits_changed",
        /// Where a run started in git: its branch and pre-run commit.
        GitPreflight => "git_preflight",
        /// The run's sandbox branch was made: its name and the branch it was made from (where
        /// `pawl merge` brings the run's work by default).
        SandboxBranch => "sandbox_branch",
        /// A finished run's branch was re-verified and merged locally (`pawl merge`).
        Merged => "merged",
        /// A finished run's branch, logs or rooms were removed (`pawl clean`).
        Cleaned => "cleaned",
        /// The run's pipeline phase changed.
        Phase => "phase",
        /// An iteration began.
        IterationStarted => "iteration_started",
        /// An iteration was concluded (accounting, facts, summary).
        IterationFinished => "iteration_finished",
        /// An iteration cut off by a crash was marked interrupted.
        IterationInterrupted => "iteration_interrupted",
        /// An agent step finished: what it spent, charged before pawl verifies its work.
        StepSpent => "step_spent",
        /// pawl verified the tree (the loop's view: checks, failing, criteria, done).
        Verification => "verification",
        /// Evidence of checks was recorded.
        Evidence => "evidence",
        /// A criterion was added.
        CriterionAdded => "criterion_added",
        /// A criterion's status changed.
        CriterionStatus => "criterion_status",
        /// A story was added.
        StoryAdded => "story_added",
        /// A story's status changed.
        StoryStatus => "story_status",
        /// A story of a plan run in parallel changed state (its worktree, branch, attempts, the
        /// merge queue's result and evidence).
        StoryWork => "story_work",
        /// A completed story was committed (`[git] auto_commit`).
        StoryCommitted => "story_committed",
        /// A verified iteration's tree was committed on the run's branch (`[git]
        /// commit_iterations`), or could not be (`error`).
        IterationCommitted => "iteration_committed",
        /// A story's TDD phase changed.
        TddPhase => "tdd_phase",
        /// A classified failure was recorded.
        Failure => "failure",
        /// A blocker was recorded.
        BlockerAdded => "blocker_added",
        /// A blocker was handed to the user.
        AwaitingUser => "awaiting_user",
        /// pawl checked whether the user cleared a blocker.
        UserFixChecked => "user_fix_checked",
        /// The user cleared a blocker.
        UserFixed => "user_fixed",
        /// A clarification question or answer.
        Clarification => "clarification",
        /// A clarifying question waits in the store for an answer from any front end.
        QuestionAsked => "question_asked",
        /// A question kept in the store was answered (or its recommendation taken).
        QuestionAnswered => "question_answered",
        /// A decision noted.
        Note => "note",
        /// A driver took the run's lease.
        LeaseAcquired => "lease_acquired",
        /// A driver released the run's lease.
        LeaseReleased => "lease_released",
        /// An expired or dead holder's lease was taken over.
        LeaseTakeover => "lease_takeover",
        FleetBudget => "fleet_budget",
        /// A run was armed for an agent session.
        SessionArmed => "session_armed",
        /// An agent session was bound to a run.
        SessionBound => "session_bound",
        /// Session mode ended for a run.
        SessionModeEnded => "session_mode_ended",
        /// No session took an armed run in time.
        SessionArmingExpired => "session_arming_expired",
        /// The user resumed a run a breaker had opened: the breakers' window starts again.
        BreakersReset => "breakers_reset",
        /// The files the run is expected to touch (from the goal's anchors).
        Scope => "scope",
        /// The guard is off for this run (`[guard] allow_unsafe`).
        GuardOff => "guard_off",
        /// The guard denied a command or write.
        GuardDenied => "guard_denied",
        /// A hook failed internally (fail open or closed, per hook).
        HookError => "hook_error",
        /// How the run's agent steps are sandboxed and contained (each time the loop starts).
        Sandbox => "sandbox",
        /// What an agent step asked of pawl through its mailbox (a reporting verb, delivered
        /// after the step), or why it was refused.
        StepRequest => "step_request",
        /// A step created a path the sandbox protects that did not exist when the run's steps
        /// started (so nothing could be bound over it): what, and whether pawl removed it.
        ProtectedCreated => "protected_created",
        /// A step changed one of HOME's persistence places (`pawl_core::home`): the path, how,
        /// what it does, and whether pawl put it back. A finding: the run does not ship.
        HomeChanged => "home_changed",
        /// The run's state, kept before the agent compacted its context.
        PrecompactSnapshot => "precompact_snapshot",
        /// A tool call of a bound session (PostToolUse): what the long-session limit counts.
        ToolCall => "tool_call",
        /// A session's transcript could not be read: the turn was not charged.
        UsageUnknown => "usage_unknown",
        /// The run's checks and environment were sealed (at start, or again by `pawl resume --reseal`).
        Sealed => "sealed",
        /// The sealed checks on the pre-run tree: what the run is measured against.
        Baseline => "baseline",
        /// The independent tester wrote its hidden tests (kept in pawl's private state; the
        /// event holds how many, who wrote them and what it cost, never their text).
        Tester => "tester",
        /// A finished run's sealed checks were run again on its final tree (`pawl verify --run`).
        Recheck => "recheck",
        /// The room's environment was built with the project's install command (`[room]
        /// setup`): the command, why, its exit and log, the packages it changed.
        RoomSetup => "room_setup",
        /// The user (or a reviewer session) accepted the run's changes to its tests.
        TestsAccepted => "tests_accepted",
        /// The user accepted the run's changes outside product source that its checks need to
        /// pass (`pawl accept --changes`; the locked run, docs/verification.md).
        ChangesAccepted => "changes_accepted",
        /// What the user changed in the tree while resolving a blocker (`pawl user-fixed`): the
        /// paths that differ between the last verified tree and the tree then. The locked run
        /// takes them as the user's, never as the run's other changes.
        UserChanges => "user_changes",
        /// The tree was rolled back (to the pre-run commit or a stage checkpoint).
        Rollback => "rollback",
        /// A pipeline phase started.
        PhaseStarted => "phase_started",
        /// A pipeline phase ended.
        PhaseEnded => "phase_ended",
        /// A plan was recorded.
        Plan => "plan",
        /// A reviewer session's verdict.
        Verdict => "verdict",
        /// A plan's score.
        Score => "score",
        /// A convergence check.
        Convergence => "convergence",
        /// A direction that failed, not to be tried again.
        FailedDirection => "failed_direction",
        /// A pipeline threshold was tuned from past runs.
        ThresholdTuned => "threshold_tuned",
        /// The critic was skipped (the plan was approved as is).
        CriticSkipped => "critic_skipped",
        /// A stage checkpoint.
        Checkpoint => "checkpoint",
        /// The pipeline's progress report.
        Progress => "progress",
        /// The adversarial QA's result.
        Qa => "qa",
        /// The cross-story audit's result.
        Audit => "audit",
        /// What the loop did about a failed verification, by the failure's class (back off,
        /// hand it to the user, re-plan, ask for a different approach).
        FailureAction => "failure_action",
        /// A "must not" rule was broken by an agent step (the rule, what broke it).
        MustNotViolated => "must_not_violated",
        /// The spec gate's decision before the run (interview, assumptions, proceed).
        SpecGate => "spec_gate",
        /// Rows of the run's state failed their authentication check (what, where): the run
        /// stopped `tampered`.
        Tampered => "tampered",
        StopRequested => "stop_requested",
        /// What only the run's clone holds — its final report, its diff — was kept in the
        /// store when it stopped (names, sizes, digests; the bodies are in `artifacts`).
        Published => "published",
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back() {
        for k in EventKind::ALL {
            assert_eq!(k.as_str().parse::<EventKind>(), Ok(*k));
            assert!(
                k.as_str()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '_')
            );
        }
        assert!("no_such_kind".parse::<EventKind>().is_err());
    }
}
