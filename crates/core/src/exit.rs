//! Exit codes and typed stop reasons.
//!
//! Every way a run can end maps to one documented exit code (DESIGN.md, README): scripts and CI
//! depend on these numbers, so they never change meaning.

use serde::{Deserialize, Serialize};

/// The process exit codes pawl documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitCode {
    /// Done and verified.
    Done,
    /// An error (bad input, I/O, a refused operation).
    Error,
    /// A usage error (bad flags or arguments).
    Usage,
    /// A limit was reached: iterations, time, money, tokens.
    Limit,
    /// A circuit breaker opened: no progress, same failure, thrashing.
    Breaker,
    /// Blocked on the user.
    Blocked,
    /// Cancelled or stopped.
    Cancelled,
    /// Interrupted by a signal.
    Interrupted,
    /// The checks were verified, but the verdict is REVIEW: a human must decide.
    Review,
    /// The checks were verified, but the verdict is UNPROVEN: nothing could have disproved done.
    Unproven,
    /// The checks were verified, but the verdict is MONITOR: something rests on review only.
    Monitor,
    /// The run's verdict is RESEARCH: something unverified, or only assumed.
    Research,
    /// The deciding tests disagreed across runs (verdict NONDETERMINISTIC).
    Nondeterministic,
}

impl ExitCode {
    /// The numeric code the process exits with.
    pub fn code(self) -> i32 {
        match self {
            ExitCode::Done => 0,
            ExitCode::Error => 1,
            ExitCode::Usage => 2,
            ExitCode::Limit => 3,
            ExitCode::Breaker => 4,
            ExitCode::Blocked => 5,
            ExitCode::Cancelled => 6,
            ExitCode::Interrupted => 130,
            ExitCode::Review => 10,
            ExitCode::Unproven => 11,
            ExitCode::Monitor => 12,
            ExitCode::Research => 13,
            ExitCode::Nondeterministic => 14,
        }
    }

    /// Every code, in the order `pawl help exit-codes` lists them.
    pub const ALL: [ExitCode; 13] = [
        ExitCode::Done,
        ExitCode::Error,
        ExitCode::Usage,
        ExitCode::Limit,
        ExitCode::Breaker,
        ExitCode::Blocked,
        ExitCode::Cancelled,
        ExitCode::Review,
        ExitCode::Unproven,
        ExitCode::Monitor,
        ExitCode::Research,
        ExitCode::Nondeterministic,
        ExitCode::Interrupted,
    ];

    /// One line saying what the code means (`pawl help exit-codes`, the README).
    pub fn meaning(self) -> &'static str {
        match self {
            ExitCode::Done => {
                "SHIP: the run's verdict is SHIP (or a command that is not a run succeeded)"
            }
            ExitCode::Error => "an error: bad input, I/O, a refused operation, a tampered run",
            ExitCode::Usage => "a usage error: bad flags or arguments",
            ExitCode::Limit => "a limit was reached: iterations, time, money, tokens",
            ExitCode::Breaker => {
                "a circuit breaker opened: no progress, same failure, thrashing, a must-not rule"
            }
            ExitCode::Blocked => "blocked on the user: a blocker or a question waits",
            ExitCode::Cancelled => "cancelled or stopped by the user (resumable when stopped)",
            ExitCode::Review => {
                "verdict REVIEW: the checks pass, a human must decide (changed tests, changes outside product source)"
            }
            ExitCode::Unproven => {
                "verdict UNPROVEN: the checks pass, but no check failed before the run and passes now"
            }
            ExitCode::Monitor => {
                "verdict MONITOR: a criterion is verified by review or observation only"
            }
            ExitCode::Research => "verdict RESEARCH: a criterion is unverified or only assumed",
            ExitCode::Nondeterministic => {
                "verdict NONDETERMINISTIC: the deciding tests disagreed across runs"
            }
            ExitCode::Interrupted => "interrupted by a signal",
        }
    }
}

/// A run's verdict: what its report concludes (DESIGN.md, "run verdict").
///
/// SHIP: everything verified by execution, the tests intact, the goal proven (red to green).
/// REVIEW: the checks pass, but a human must decide (the tests were changed, …). UNPROVEN: the
/// checks pass, but nothing could have disproved "done". MONITOR: something verified only by
/// review. RESEARCH: anything unverified, or supported only by assumption. NONDETERMINISTIC: the
/// deciding tests disagreed across runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Ship,
    Review,
    Unproven,
    Monitor,
    Research,
    Nondeterministic,
}

impl Verdict {
    /// The exit code of a run with this verdict whose stop does not say otherwise
    /// ([`run_exit_code`]).
    pub fn exit_code(self) -> ExitCode {
        match self {
            Verdict::Ship => ExitCode::Done,
            Verdict::Review => ExitCode::Review,
            Verdict::Unproven => ExitCode::Unproven,
            Verdict::Monitor => ExitCode::Monitor,
            Verdict::Research => ExitCode::Research,
            Verdict::Nondeterministic => ExitCode::Nondeterministic,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ship => "SHIP",
            Verdict::Review => "REVIEW",
            Verdict::Unproven => "UNPROVEN",
            Verdict::Monitor => "MONITOR",
            Verdict::Research => "RESEARCH",
            Verdict::Nondeterministic => "NONDETERMINISTIC",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The exit code of a run that stopped for `reason` with `verdict`.
///
/// A stop that ended with the checks verified (`verified`, and the stops that wait on a verdict:
/// `tests_changed`, `review`, `nondeterministic`, `unproven`) exits with its verdict's code, so 0 is SHIP and nothing else: a
/// script running `pawl run … && git push` pushes only SHIP. Every other stop keeps its own code
/// (a limit is 3 whatever the report concludes), and is never 0.
pub fn run_exit_code(reason: StopReason, verdict: Verdict) -> ExitCode {
    match reason {
        StopReason::Verified
        | StopReason::TestsChanged
        | StopReason::Review
        | StopReason::Nondeterministic
        | StopReason::Unproven => {
            match (reason, verdict) {
                // A stop that waits on a verdict is never SHIP, whatever was computed.
                (StopReason::TestsChanged | StopReason::Review, Verdict::Ship) => ExitCode::Review,
                (StopReason::Nondeterministic, Verdict::Ship) => ExitCode::Nondeterministic,
                (StopReason::Unproven, Verdict::Ship) => ExitCode::Unproven,
                _ => verdict.exit_code(),
            }
        }
        other => other.exit_code(),
    }
}

/// Why a run stopped. Stored with the run, shown in status, report and `--json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Every criterion verified by fresh evidence.
    Verified,
    MaxIterations,
    MaxTime,
    MaxUsd,
    MaxTokens,
    NoProgress,
    SameFailure,
    FileThrash,
    AgentErrors,
    PermissionDenials,
    CriterionStuck,
    ReasoningLoop,
    StallRecoveries,
    /// No story can make progress any more (all remaining ones skipped or blocked).
    NoStoryCanProgress,
    /// Waiting for the user to clear a blocker.
    AwaitingUser,
    /// The user cancelled the run (`pawl cancel`).
    Cancelled,
    /// The user asked the loop to stop (`pawl stop`, Ctrl-C once); resumable.
    Stopped,
    /// Killed by a signal.
    Interrupted,
    /// An internal error ended the run.
    Error,
    /// The plan was not approved by the architect and the critic within `max_plan_rounds`,
    /// or its score stayed under the threshold.
    PlanRejected,
    /// A pipeline session answered with malformed structured output twice.
    MalformedOutput,
    /// The same blocking review finding came back in `same_finding` review cycles.
    RepeatedFinding,
    /// Convergence failed and no new direction was left to try.
    NotConverging,
    /// The checks pass, but the tests themselves were changed (removed, skipped, weakened, or
    /// their configuration edited): verdict REVIEW until a reviewer or the user accepts it.
    TestsChanged,
    /// Every check passes, but nothing proves the goal: no check went from failing on the
    /// pre-run code to passing (verdict UNPROVEN).
    Unproven,
    /// The checks pass and the tests are intact, but what the checks cannot judge is left for
    /// a person (verdict REVIEW): the goal asks for a change no check verifies, the run changed
    /// more outside the goal's scope than the limits allow, or pawl's key was readable by the
    /// checks. `pawl accept` answers it.
    Review,
    /// The checks pass, but the tests that decide gave different results when repeated on the
    /// same locked tree (verdict NONDETERMINISTIC).
    Nondeterministic,
    /// A row of the run's state failed its authentication check: something other than pawl
    /// (an agent with the database file) changed, added or removed it. Nothing the run recorded
    /// can be trusted any more; it is never resumed (the work stays on its branch).
    Tampered,
    /// An agent step broke a "must not" rule of the run (`--must-not`, `[run] must_not`): a
    /// path it must not write changed, or it ran a command it must not run. A safety stop like a
    /// breaker: the work stays on the run's branch for the user to look at.
    MustNotViolated,
}

impl StopReason {
    pub const ALL: [StopReason; 29] = [
        StopReason::Verified,
        StopReason::MaxIterations,
        StopReason::MaxTime,
        StopReason::MaxUsd,
        StopReason::MaxTokens,
        StopReason::NoProgress,
        StopReason::SameFailure,
        StopReason::FileThrash,
        StopReason::AgentErrors,
        StopReason::PermissionDenials,
        StopReason::CriterionStuck,
        StopReason::ReasoningLoop,
        StopReason::StallRecoveries,
        StopReason::NoStoryCanProgress,
        StopReason::AwaitingUser,
        StopReason::Cancelled,
        StopReason::Stopped,
        StopReason::Interrupted,
        StopReason::Error,
        StopReason::PlanRejected,
        StopReason::MalformedOutput,
        StopReason::RepeatedFinding,
        StopReason::NotConverging,
        StopReason::TestsChanged,
        StopReason::Unproven,
        StopReason::Review,
        StopReason::Nondeterministic,
        StopReason::Tampered,
        StopReason::MustNotViolated,
    ];

    /// The exit code this reason maps to.
    pub fn exit_code(self) -> ExitCode {
        use StopReason::*;
        match self {
            Verified => ExitCode::Done,
            MaxIterations | MaxTime | MaxUsd | MaxTokens => ExitCode::Limit,
            NoProgress | SameFailure | FileThrash | AgentErrors | PermissionDenials
            | CriterionStuck | ReasoningLoop | StallRecoveries | NoStoryCanProgress
            | PlanRejected | MalformedOutput | RepeatedFinding | NotConverging
            | MustNotViolated => ExitCode::Breaker,
            AwaitingUser => ExitCode::Blocked,
            // The checks pass; the verdict says why it is not SHIP (`run_exit_code` uses the
            // verdict; without one, these are their verdicts).
            TestsChanged | Review => ExitCode::Review,
            Unproven => ExitCode::Unproven,
            Nondeterministic => ExitCode::Nondeterministic,
            Cancelled | Stopped => ExitCode::Cancelled,
            Interrupted => ExitCode::Interrupted,
            // Not a limit, a breaker or a request: the run could not go on because its own
            // record cannot be trusted — an error, which a script must not take for a stop.
            Error | Tampered => ExitCode::Error,
        }
    }

    /// The stable snake_case name used in the store and in JSON.
    pub fn as_str(self) -> &'static str {
        use StopReason::*;
        match self {
            Verified => "verified",
            MaxIterations => "max_iterations",
            MaxTime => "max_time",
            MaxUsd => "max_usd",
            MaxTokens => "max_tokens",
            NoProgress => "no_progress",
            SameFailure => "same_failure",
            FileThrash => "file_thrash",
            AgentErrors => "agent_errors",
            PermissionDenials => "permission_denials",
            CriterionStuck => "criterion_stuck",
            ReasoningLoop => "reasoning_loop",
            StallRecoveries => "stall_recoveries",
            NoStoryCanProgress => "no_story_can_progress",
            AwaitingUser => "awaiting_user",
            Cancelled => "cancelled",
            Stopped => "stopped",
            Interrupted => "interrupted",
            Error => "error",
            PlanRejected => "plan_rejected",
            MalformedOutput => "malformed_output",
            RepeatedFinding => "repeated_finding",
            NotConverging => "not_converging",
            TestsChanged => "tests_changed",
            Unproven => "unproven",
            Review => "review",
            Nondeterministic => "nondeterministic",
            Tampered => "tampered",
            MustNotViolated => "must_not_violated",
        }
    }

    pub fn parse(s: &str) -> Option<StopReason> {
        StopReason::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_match_design() {
        let codes: Vec<i32> = [
            ExitCode::Done,
            ExitCode::Error,
            ExitCode::Usage,
            ExitCode::Limit,
            ExitCode::Breaker,
            ExitCode::Blocked,
            ExitCode::Cancelled,
            ExitCode::Interrupted,
        ]
        .iter()
        .map(|c| c.code())
        .collect();
        assert_eq!(codes, vec![0, 1, 2, 3, 4, 5, 6, 130]);
    }

    #[test]
    fn stop_reasons_round_trip_and_map() {
        for r in StopReason::ALL {
            assert_eq!(StopReason::parse(r.as_str()), Some(r));
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.as_str()));
        }
        assert_eq!(StopReason::MaxUsd.exit_code().code(), 3);
        assert_eq!(StopReason::SameFailure.exit_code().code(), 4);
        assert_eq!(StopReason::AwaitingUser.exit_code().code(), 5);
        assert_eq!(StopReason::Stopped.exit_code().code(), 6);
        assert_eq!(StopReason::Verified.exit_code().code(), 0);
        assert_eq!(StopReason::Tampered.exit_code().code(), 1);
        assert_eq!(StopReason::MustNotViolated.exit_code().code(), 4);
        assert_eq!(StopReason::TestsChanged.exit_code().code(), 10);
        assert_eq!(StopReason::Unproven.exit_code().code(), 11);
    }

    #[test]
    fn verdict_codes_are_distinct_and_only_ship_is_zero() {
        let mut seen = std::collections::BTreeSet::new();
        for c in ExitCode::ALL {
            assert!(seen.insert(c.code()), "{c:?} shares its code");
            assert!(!c.meaning().is_empty());
        }
        let verdicts = [
            Verdict::Ship,
            Verdict::Review,
            Verdict::Unproven,
            Verdict::Monitor,
            Verdict::Research,
            Verdict::Nondeterministic,
        ];
        for reason in StopReason::ALL {
            for v in verdicts {
                let code = run_exit_code(reason, v).code();
                assert_eq!(
                    code == 0,
                    reason == StopReason::Verified && v == Verdict::Ship,
                    "{reason} + {v} exits {code}"
                );
            }
        }
        // The rows the issue names: a RESEARCH after a verified stop is not 0.
        assert_eq!(
            run_exit_code(StopReason::Verified, Verdict::Research).code(),
            13
        );
        assert_eq!(
            run_exit_code(StopReason::Verified, Verdict::Review).code(),
            10
        );
        assert_eq!(
            run_exit_code(StopReason::Verified, Verdict::Monitor).code(),
            12
        );
        assert_eq!(
            run_exit_code(StopReason::Verified, Verdict::Unproven).code(),
            11
        );
        assert_eq!(
            run_exit_code(StopReason::Verified, Verdict::Nondeterministic).code(),
            14
        );
        // A limit stays a limit whatever the report concludes.
        assert_eq!(
            run_exit_code(StopReason::MaxIterations, Verdict::Research).code(),
            3
        );
        assert_eq!(
            run_exit_code(StopReason::TestsChanged, Verdict::Ship).code(),
            10
        );
    }
}
