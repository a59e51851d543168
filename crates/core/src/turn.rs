//! The order of a turn's decisions: after an iteration is concluded (or before the first one of a
//! drive), does the run go on, and if not, with which typed reason? One pure function, used by
//! every driver — the headless loop, the pipeline's sessions and the in-session Stop hook — so the
//! order cannot drift between them.
//!
//! The engine gathers the facts (verification, breakers, stories, limits, requests from outside);
//! this module only orders them. What is *not* here: how each fact is computed (`judge` for limits
//! and breakers, [`story_out_of_attempts`] and [`no_story_can_progress`] for stories).

use crate::exit::StopReason;
use crate::model::StoryStatus;
use crate::record::Story;

/// What the iteration that just ended established. `None` in [`TurnFacts::concluded`] means no
/// iteration ended yet (the check before a drive's first step, or a pipeline session's preflight).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Concluded {
    /// A hard stop (the second Ctrl-C) cut the step: nothing was verified.
    pub hard_stop: bool,
    /// The step broke a "must not" rule of the run: nothing it did may count, done or not.
    pub must_not_violated: bool,
    /// pawl's verification says the work is done (for a sub-loop: its own goal, e.g. every
    /// check passes).
    pub verified: bool,
    /// The checks pass, but a person must decide (REVIEW or NONDETERMINISTIC), with the typed
    /// reason (`pawl_core::proof::stop_reason`): the tests changed, a question the checks
    /// cannot answer, deciding tests that answered differently when repeated.
    pub for_review: Option<StopReason>,
    /// The checks pass on a tree the run did not change, and nothing proves the goal (UNPROVEN).
    pub unproven: bool,
    /// The agent went silent more often than stall recovery allows (and no stop was asked for).
    pub stall_exhausted: bool,
    /// The iteration's failure was handed to the user (an external service or credential, a
    /// dependency down through every backoff, a spec conflict in a mode without a plan): the
    /// blocker beats the breaker that repeating the failure would open.
    pub handed_to_user: bool,
    /// The circuit breaker that opened after this iteration, if any.
    pub breaker: Option<StopReason>,
    /// The story a sub-loop works on ran out of attempts.
    pub scoped_story_out_of_attempts: bool,
    /// Every story is skipped or blocked.
    pub no_story_can_progress: bool,
}

/// Everything the decision looks at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnFacts {
    /// Rows of the run's state failed their authentication check: nothing else can be trusted.
    pub tampered: bool,
    pub concluded: Option<Concluded>,
    /// `pawl stop`, the stop file, or the first Ctrl-C.
    pub stop_requested: bool,
    /// `pawl cancel` marked the run cancelled.
    pub cancelled: bool,
    /// A blocker is handed to the user.
    pub awaiting_user: bool,
    /// The limit already reached by what the run has spent (`judge::limit_reached`).
    pub limit: Option<StopReason>,
}

/// What comes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Another iteration may start.
    Continue,
    /// The run (or the sub-loop) ends with this reason.
    Stop(StopReason),
}

/// The one order of a turn's decisions:
///
/// 0. state changed outside pawl ends it (`tampered`) before anything else: every other fact
///    was read from that state;
/// 1. a hard stop ends it at once (`interrupted`), before anything is judged; then a broken
///    "must not" rule (`must_not_violated`): work done against the user's limits is never done;
/// 2. verified work ends it (`verified`) — fresh evidence beats every limit: the iteration that
///    used the last of the budget and finished the work is a success; passing checks on changed
///    tests end it for review (`tests_changed`), passing checks that prove nothing on a tree the
///    run did not change end it `unproven`;
/// 3. exhausted stall recovery, then a failure handed to the user (`awaiting_user`), then an open
///    breaker, then the scoped story out of attempts, then
///    no story able to progress — what the iteration itself showed;
/// 4. then what the world says: a stop request, a cancellation, a blocker awaiting the user;
/// 5. last the limits, which only bite when another iteration would start.
pub fn next(f: &TurnFacts) -> Next {
    if f.tampered {
        return Next::Stop(StopReason::Tampered);
    }
    if let Some(c) = &f.concluded {
        if c.hard_stop {
            return Next::Stop(StopReason::Interrupted);
        }
        if c.must_not_violated {
            return Next::Stop(StopReason::MustNotViolated);
        }
        if c.verified {
            return Next::Stop(StopReason::Verified);
        }
        if let Some(reason) = c.for_review {
            return Next::Stop(reason);
        }
        if c.unproven {
            return Next::Stop(StopReason::Unproven);
        }
        if c.stall_exhausted {
            return Next::Stop(StopReason::StallRecoveries);
        }
        if c.handed_to_user {
            return Next::Stop(StopReason::AwaitingUser);
        }
        if let Some(b) = c.breaker {
            return Next::Stop(b);
        }
        if c.scoped_story_out_of_attempts || c.no_story_can_progress {
            return Next::Stop(StopReason::NoStoryCanProgress);
        }
    }
    if f.stop_requested {
        return Next::Stop(StopReason::Stopped);
    }
    if f.cancelled {
        return Next::Stop(StopReason::Cancelled);
    }
    if f.awaiting_user {
        return Next::Stop(StopReason::AwaitingUser);
    }
    match f.limit {
        Some(l) => Next::Stop(l),
        None => Next::Continue,
    }
}

/// A story in progress whose attempts are used up: it is skipped and the run moves on.
pub fn story_out_of_attempts(s: &Story) -> bool {
    s.status == StoryStatus::InProgress && s.attempts >= s.max_attempts
}

/// The run has stories and none of them can move any more.
pub fn no_story_can_progress(stories: &[Story]) -> bool {
    !stories.is_empty()
        && stories
            .iter()
            .all(|s| matches!(s.status, StoryStatus::Skipped | StoryStatus::Blocked))
}

#[cfg(test)]
mod tests {
    use super::*;
    use StopReason::*;

    const NONE: Concluded = Concluded {
        hard_stop: false,
        verified: false,
        for_review: None,
        unproven: false,
        must_not_violated: false,
        stall_exhausted: false,
        handed_to_user: false,
        breaker: None,
        scoped_story_out_of_attempts: false,
        no_story_can_progress: false,
    };

    /// One row: what is true (a short code per fact), and the decision.
    /// Codes: H hard stop, V verified, T tests changed, P unproven, S stall exhausted, B breaker (same failure), O scoped story
    /// out of attempts, N no story can progress, R stop requested, C cancelled, U awaiting the
    /// user, L a limit (max iterations), X the run's state tampered with, M a "must not" rule
    /// broken, E the iteration's failure handed to the user; a leading `-` means no
    /// iteration was concluded.
    const ROWS: &[(&str, Option<StopReason>)] = &[
        ("", None),
        ("-", None),
        ("-L", Some(MaxIterations)),
        ("-R", Some(Stopped)),
        ("-RL", Some(Stopped)),
        ("-CL", Some(Cancelled)),
        ("-UL", Some(AwaitingUser)),
        ("-CU", Some(Cancelled)),
        // A flag of the iteration means nothing when no iteration was concluded.
        ("-V", None),
        ("-HL", Some(MaxIterations)),
        ("L", Some(MaxIterations)),
        ("V", Some(Verified)),
        ("VL", Some(Verified)),
        ("VB", Some(Verified)),
        ("VR", Some(Verified)),
        ("HV", Some(Interrupted)),
        ("HL", Some(Interrupted)),
        ("S", Some(StallRecoveries)),
        ("SB", Some(StallRecoveries)),
        ("B", Some(SameFailure)),
        ("BL", Some(SameFailure)),
        ("BO", Some(SameFailure)),
        ("BR", Some(SameFailure)),
        ("O", Some(NoStoryCanProgress)),
        ("N", Some(NoStoryCanProgress)),
        ("NL", Some(NoStoryCanProgress)),
        ("NR", Some(NoStoryCanProgress)),
        ("R", Some(Stopped)),
        ("RL", Some(Stopped)),
        ("C", Some(Cancelled)),
        ("U", Some(AwaitingUser)),
        ("UL", Some(AwaitingUser)),
        ("HVSBONRCUL", Some(Interrupted)),
        ("VSBONRCUL", Some(Verified)),
        ("T", Some(TestsChanged)),
        ("TP", Some(TestsChanged)),
        ("TL", Some(TestsChanged)),
        ("VT", Some(Verified)),
        ("P", Some(Unproven)),
        ("PB", Some(Unproven)),
        ("PL", Some(Unproven)),
        ("HT", Some(Interrupted)),
        ("-TP", None),
        ("TPSBONRCUL", Some(TestsChanged)),
        ("PSBONRCUL", Some(Unproven)),
        ("SBONRCUL", Some(StallRecoveries)),
        ("BONRCUL", Some(SameFailure)),
        ("ONRCUL", Some(NoStoryCanProgress)),
        ("RCUL", Some(Stopped)),
        ("CUL", Some(Cancelled)),
        // Tampered state beats everything: every other fact was read from it.
        ("X", Some(Tampered)),
        ("-X", Some(Tampered)),
        ("XHVTPSBONRCUL", Some(Tampered)),
        // A broken "must not" rule: after a hard stop, before everything else.
        ("M", Some(MustNotViolated)),
        ("MV", Some(MustNotViolated)),
        ("MVTPSEBONRCUL", Some(MustNotViolated)),
        ("HM", Some(Interrupted)),
        ("XM", Some(Tampered)),
        ("-M", None),
        // A failure handed to the user: after stall recovery, before the breakers.
        ("E", Some(AwaitingUser)),
        ("EB", Some(AwaitingUser)),
        ("EBONRCL", Some(AwaitingUser)),
        ("SE", Some(StallRecoveries)),
        ("VE", Some(Verified)),
        ("-E", None),
    ];

    fn facts(code: &str) -> TurnFacts {
        let has = |c: char| code.contains(c);
        let concluded = (!code.starts_with('-')).then_some(Concluded {
            hard_stop: has('H'),
            verified: has('V'),
            for_review: has('T').then_some(TestsChanged),
            unproven: has('P'),
            must_not_violated: has('M'),
            stall_exhausted: has('S'),
            handed_to_user: has('E'),
            breaker: has('B').then_some(SameFailure),
            scoped_story_out_of_attempts: has('O'),
            no_story_can_progress: has('N'),
        });
        TurnFacts {
            tampered: has('X'),
            concluded,
            stop_requested: has('R'),
            cancelled: has('C'),
            awaiting_user: has('U'),
            limit: has('L').then_some(MaxIterations),
        }
    }

    #[test]
    fn the_order_of_decisions() {
        for (code, want) in ROWS {
            let got = next(&facts(code));
            let want = want.map(Next::Stop).unwrap_or(Next::Continue);
            assert_eq!(got, want, "row {code:?}");
        }
    }

    #[test]
    fn a_concluded_iteration_with_nothing_true_continues() {
        let f = TurnFacts {
            concluded: Some(NONE),
            ..TurnFacts::default()
        };
        assert_eq!(next(&f), Next::Continue);
    }

    fn story(status: StoryStatus, attempts: u32, max: u32) -> Story {
        Story {
            id: "S1".into(),
            title: "a story".into(),
            size: crate::model::Size::S,
            security: false,
            status,
            tdd_phase: crate::tdd::TddPhase::None,
            attempts,
            max_attempts: max,
            created_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn stories() {
        use StoryStatus::*;
        assert!(story_out_of_attempts(&story(InProgress, 3, 3)));
        assert!(story_out_of_attempts(&story(InProgress, 4, 3)));
        assert!(!story_out_of_attempts(&story(InProgress, 2, 3)));
        assert!(!story_out_of_attempts(&story(Done, 3, 3)));
        assert!(!story_out_of_attempts(&story(Pending, 3, 3)));
        assert!(!no_story_can_progress(&[]));
        assert!(no_story_can_progress(&[
            story(Skipped, 3, 3),
            story(Blocked, 0, 3)
        ]));
        assert!(!no_story_can_progress(&[
            story(Skipped, 3, 3),
            story(Pending, 0, 3)
        ]));
        assert!(!no_story_can_progress(&[story(Done, 1, 3)]));
    }
}
