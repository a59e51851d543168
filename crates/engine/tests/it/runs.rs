//! Whole runs through the engine's loop, one typed end per test.

use pawl_core::StopReason;
use pawl_core::model::RunStatus;
use pawl_engine::LoopEvent;

use crate::Test;
use crate::harness::{Fixture, Scripted, fail, infra, millis, pass};

pub const TESTS: &[Test] = &[
    (
        "a_tree_that_changed_while_no_step_ran_is_not_verified_on_its_own",
        a_tree_that_changed_while_no_step_ran_is_not_verified_on_its_own,
    ),
    (
        "verified_after_the_third_iteration",
        verified_after_the_third_iteration,
    ),
    (
        "max_iterations_stops_at_exactly_the_limit",
        max_iterations_stops_at_exactly_the_limit,
    ),
    (
        "same_failure_opens_the_breaker",
        same_failure_opens_the_breaker,
    ),
    (
        "no_progress_opens_the_breaker",
        no_progress_opens_the_breaker,
    ),
    (
        "a_silent_agent_is_recovered_then_given_up",
        a_silent_agent_is_recovered_then_given_up,
    ),
    (
        "a_rate_limit_waits_off_the_clock_and_continues_the_session",
        a_rate_limit_waits_off_the_clock_and_continues_the_session,
    ),
    (
        "a_stop_request_ends_before_a_step",
        a_stop_request_ends_before_a_step,
    ),
    (
        "resume_after_a_limit_counts_on",
        resume_after_a_limit_counts_on,
    ),
    (
        "resume_verifies_before_spending_an_iteration",
        resume_verifies_before_spending_an_iteration,
    ),
    (
        "a_cancelled_run_stops_at_the_next_turn",
        a_cancelled_run_stops_at_the_next_turn,
    ),
];

/// Each step edits a file and claims it is done; pawl's verification decides.
const WORKING: &str = r#"{"scenario": {"name": "works", "session_id": "s-1"}}
{"step": 1}
{"do": "write", "path": "a.txt", "content": "1\n"}
{"do": "claim_done", "text": "done"}
{"step": 2}
{"do": "write", "path": "a.txt", "content": "2\n"}
{"do": "claim_done", "text": "done"}
{"step": 3}
{"do": "write", "path": "a.txt", "content": "3\n"}
{"step": 4}
{"do": "write", "path": "a.txt", "content": "4\n"}
"#;

/// A transient failure is verified again after a backoff with no agent step in between. If the
/// working tree changed meanwhile (a process outside pawl wrote it), the passing re-check does
/// not count: the run is not verified on a tree no step wrote.
fn a_tree_that_changed_while_no_step_ran_is_not_verified_on_its_own() {
    let mut f = Fixture::new(WORKING, |s| s.limits.max_iterations = 1);
    let mut agent = f.replay();
    let mut v = Scripted::new(vec![infra("t1"), pass("t-outside")]);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(v.calls, 2, "the backoff verified again once");
    assert_ne!(end.reason, StopReason::Verified);
    let note = f
        .store
        .last_event(&f.run_id, pawl_core::EventKind::Note)
        .expect("event")
        .expect("the change is recorded");
    assert_eq!(note.data["is"], "t-outside", "{}", note.data);
    // The same re-check on an unchanged tree counts.
    let mut f = Fixture::new(WORKING, |s| s.limits.max_iterations = 1);
    let mut agent = f.replay();
    let mut v = Scripted::new(vec![infra("t1"), pass("t1")]);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::Verified);
}

fn verified_after_the_third_iteration() {
    let mut f = Fixture::new(WORKING, |_| {});
    let mut agent = f.replay();
    let mut v = Scripted::new(vec![fail("t1", "a"), fail("t2", "b"), pass("t3")]);
    let (end, events) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::Verified);
    assert_eq!(v.calls, 3);
    let its = f.iterations();
    assert_eq!(its.len(), 3);
    assert_eq!(
        its[2].summary.as_deref(),
        Some("verified: every check passes")
    );
    // The agent's claim is no part of the decision: iterations 1 and 2 claimed done and went on.
    assert!(
        its[0]
            .summary
            .as_deref()
            .is_some_and(|s| s.contains("failing tests: a"))
    );
    assert_eq!(f.store.run(&f.run_id).expect("run").status, RunStatus::Done);
    assert_eq!(
        std::fs::read_to_string(f.root().join("a.txt")).expect("a.txt"),
        "3\n"
    );
    // The continuation prompt carries the failing evidence of the previous verification.
    assert!(its[1].prompt.contains('a'), "{}", its[1].prompt);
    assert!(matches!(
        events.last(),
        Some(LoopEvent::Finished { exit_code: 0, .. })
    ));
}

fn max_iterations_stops_at_exactly_the_limit() {
    let mut f = Fixture::new(WORKING, |s| s.limits.max_iterations = 2);
    let mut agent = f.replay();
    let mut v = Scripted::new(vec![fail("t1", "a"), fail("t2", "b"), fail("t3", "c")]);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::MaxIterations);
    assert_eq!(f.iterations().len(), 2);
    let run = f.store.run(&f.run_id).expect("run");
    assert_eq!(run.status, RunStatus::Stopped);
    assert_eq!(run.stop_reason, Some(StopReason::MaxIterations));
}

fn same_failure_opens_the_breaker() {
    let mut f = Fixture::new(WORKING, |s| s.breakers.same_failure = 3);
    let mut agent = f.replay();
    // The tree changes every time (progress), the failure does not.
    let mut v = Scripted::new(vec![
        fail("t1", "a"),
        fail("t2", "a"),
        fail("t3", "a"),
        pass("t4"),
    ]);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::SameFailure);
    assert_eq!(f.iterations().len(), 3);
}

fn no_progress_opens_the_breaker() {
    let mut f = Fixture::new(WORKING, |s| s.breakers.no_progress = 2);
    let mut agent = f.replay();
    // Different failures on one tree: nothing moves.
    let mut v = Scripted::new(vec![
        fail("t", "a"),
        fail("t", "b"),
        fail("t", "c"),
        pass("t"),
    ]);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::NoProgress);
    assert_eq!(f.iterations().len(), 3);
}

fn a_silent_agent_is_recovered_then_given_up() {
    let mut f = Fixture::new("{\"do\": \"hang\"}\n", |s| {
        s.stall.idle_timeout = millis(300);
    });
    let mut agent = f.replay();
    let mut v = Scripted::new(vec![fail("t1", "a")]);
    let (end, events) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::StallRecoveries);
    // One iteration: three recoveries within it, then given up (the fourth silence).
    assert_eq!(f.iterations().len(), 1);
    let recovered = events
        .iter()
        .filter(|e| matches!(e, LoopEvent::StallRecovered { .. }))
        .count();
    assert_eq!(recovered, 3);
    let failures = f.store.failures(&f.run_id, None, 100).expect("failures");
    let silent = failures
        .iter()
        .filter(|x| x.message.contains("produced no output"))
        .count();
    assert_eq!(silent, 4, "{failures:?}");
    assert_eq!(f.iterations()[0].outcome.as_deref(), Some("idle_timeout"));
}

/// Try 1 hits the provider's rate limit (retry after 1 s); try 2 does the work.
const RATE_LIMITED: &str = r#"{"scenario": {"name": "limited", "session_id": "s-rl"}}
{"step": 1}
{"do": "rate_limited", "message": "429 slow down", "retry_after_secs": 1}
{"do": "exit", "code": 1}
{"step": 2}
{"do": "write", "path": "a.txt", "content": "fixed\n"}
"#;

fn a_rate_limit_waits_off_the_clock_and_continues_the_session() {
    let mut f = Fixture::new(RATE_LIMITED, |_| {});
    f.cfg.rate_limit_scale = 1.0;
    let mut agent = f.tries();
    let requests = agent.requests.clone();
    let mut v = Scripted::new(vec![pass("t1")]);
    let (end, events) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::Verified);
    let its = f.iterations();
    assert_eq!(its.len(), 1, "a wait is not an iteration");
    let waited = its[0].duration_ms.expect("duration") - its[0].active_ms;
    assert!(waited >= 1000, "the wait is not active time: {:?}", its[0]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, LoopEvent::Waiting { why, .. } if why.contains("429")))
    );
    let requests = requests.lock().expect("requests");
    assert_eq!(requests.len(), 2);
    // The headless policy continues the session the agent had started.
    assert_eq!(requests[0].resume_session, None);
    assert_eq!(requests[1].resume_session.as_deref(), Some("s-rl"));
    assert_eq!(its[0].outcome.as_deref(), Some("completed"));
}

fn a_stop_request_ends_before_a_step() {
    let mut f = Fixture::new(WORKING, |_| {});
    std::fs::write(f.control.stop_file(), "").expect("stop file");
    let mut agent = f.replay();
    let mut v = Scripted::new(vec![pass("t1")]);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::Stopped);
    assert_eq!(f.iterations().len(), 0);
    assert_eq!(v.calls, 0);
    // The stop file is consumed: the next drive is not stopped at once.
    assert!(!f.control.stop_file().exists());
}

fn resume_after_a_limit_counts_on() {
    let mut f = Fixture::new(WORKING, |s| s.limits.max_iterations = 2);
    let mut agent = f.replay();
    let mut v = Scripted::new(vec![
        fail("t1", "a"),
        fail("t2", "b"),
        // The resume verifies first, then iterations 3 and 4.
        fail("t2", "b"),
        fail("t3", "c"),
        pass("t4"),
    ]);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::MaxIterations);
    let mut settings = f.store.run(&f.run_id).expect("run").settings;
    settings.limits.max_iterations = 4;
    f.store
        .update_settings(&f.run_id, &settings, "test: --add-iterations 2")
        .expect("raise");
    let (end, events) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::Verified);
    assert_eq!(f.iterations().len(), 4);
    assert_eq!(v.calls, 5);
    assert!(matches!(
        events.first(),
        Some(LoopEvent::Started { resumed: true, .. })
    ));
}

fn resume_verifies_before_spending_an_iteration() {
    let mut f = Fixture::new(WORKING, |s| s.limits.max_iterations = 1);
    let mut agent = f.replay();
    // Stopped by the limit; then the user fixed the tree by hand.
    let mut v = Scripted::new(vec![fail("t1", "a"), pass("t-by-hand")]);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::MaxIterations);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::Verified);
    assert_eq!(f.iterations().len(), 1);
    assert_eq!(f.store.run(&f.run_id).expect("run").status, RunStatus::Done);
}

fn a_cancelled_run_stops_at_the_next_turn() {
    // `pawl cancel` arrives while the first iteration is being verified (through the store, as
    // the command does).
    struct Cancelling(Scripted, String);
    impl pawl_engine::Verifier for Cancelling {
        fn verify(
            &mut self,
            store: &mut pawl_store::Store,
            run_id: &str,
        ) -> Result<pawl_engine::VerifyReport, pawl_engine::VerifyError> {
            store.cancel_run(&self.1).expect("cancel");
            self.0.verify(store, run_id)
        }
    }
    let mut f = Fixture::new(WORKING, |_| {});
    let mut agent = f.replay();
    let mut v = Cancelling(Scripted::new(vec![fail("t1", "a")]), f.run_id.clone());
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::Cancelled);
    assert_eq!(f.iterations().len(), 1);
    assert_eq!(
        f.store.run(&f.run_id).expect("run").status,
        RunStatus::Cancelled
    );
}
