use super::*;
use crate::config::Dur;

fn facts(tree: &str) -> IterationFacts {
    IterationFacts {
        tree_hash: Some(tree.into()),
        ..Default::default()
    }
}

#[test]
fn limits_trip_exactly_at_their_threshold() {
    let l = Limits {
        max_iterations: 3,
        max_time: Dur::secs(60),
        max_usd: 1.0,
        max_tokens: 100,
        calls_per_hour: 0,
    };
    let mut s = Spent {
        iterations: 2,
        active_ms: 59_999,
        usd: 0.99,
        tokens: 99,
    };
    assert_eq!(limit_reached(&l, &s), None);
    s.iterations = 3;
    assert_eq!(limit_reached(&l, &s), Some(StopReason::MaxIterations));
    s.iterations = 0;
    s.active_ms = 60_000;
    assert_eq!(limit_reached(&l, &s), Some(StopReason::MaxTime));
    s.active_ms = 0;
    s.usd = 1.0;
    assert_eq!(limit_reached(&l, &s), Some(StopReason::MaxUsd));
    s.usd = 0.0;
    s.tokens = 100;
    assert_eq!(limit_reached(&l, &s), Some(StopReason::MaxTokens));
    let unlimited = Limits { max_tokens: 0, ..l };
    assert_eq!(
        limit_reached(
            &unlimited,
            &Spent {
                tokens: u64::MAX,
                ..Default::default()
            }
        ),
        None
    );
}

#[test]
fn calls_per_hour_waits_for_the_oldest_call_to_leave_the_window() {
    let now = 10_000_000;
    assert_eq!(calls_per_hour_wait(&[now - 1000], 2, now), None);
    let w = calls_per_hour_wait(&[now - 1000, now - 3_000_000], 2, now).unwrap();
    assert_eq!(w, Duration::from_millis(600_000));
    // Calls older than an hour do not count.
    assert_eq!(
        calls_per_hour_wait(&[now - 4_000_000, now - 3_700_000], 2, now),
        None
    );
    assert_eq!(calls_per_hour_wait(&[now; 5], 0, now), None);
}

#[test]
fn no_progress_trips_after_exactly_n_stalled_iterations() {
    let b = Breakers {
        no_progress: 3,
        ..Default::default()
    };
    let base = Some("t0");
    let h = vec![facts("t0"), facts("t0")];
    assert_eq!(breaker_tripped(&b, &h, base), None);
    let h = vec![facts("t0"), facts("t0"), facts("t0")];
    assert_eq!(breaker_tripped(&b, &h, base), Some(StopReason::NoProgress));
    // A tree change is progress.
    let h = vec![facts("t0"), facts("t1"), facts("t1")];
    assert_eq!(breaker_tripped(&b, &h, base), None);
    // A newly verified criterion is progress even on the same tree.
    let mut v = facts("t0");
    v.verified = vec!["C1".into()];
    let h = vec![facts("t0"), facts("t0"), v];
    assert_eq!(breaker_tripped(&b, &h, base), None);
}

#[test]
fn same_failure_needs_n_identical_signatures_in_a_row() {
    let b = Breakers {
        same_failure: 3,
        no_progress: 0,
        ..Default::default()
    };
    let f = |sig: &str, tree: &str| IterationFacts {
        failure_signature: Some(sig.into()),
        ..facts(tree)
    };
    let h = vec![f("a", "1"), f("a", "2")];
    assert_eq!(breaker_tripped(&b, &h, None), None);
    let h = vec![f("a", "1"), f("a", "2"), f("a", "3")];
    assert_eq!(breaker_tripped(&b, &h, None), Some(StopReason::SameFailure));
    let h = vec![f("a", "1"), f("b", "2"), f("a", "3")];
    assert_eq!(breaker_tripped(&b, &h, None), None);
}

#[test]
fn failure_signatures_ignore_numbers_and_test_order() {
    let a = failure_signature(
        "test",
        &["b".into(), "a".into()],
        Some("took 1.23s at line 40"),
    );
    let b = failure_signature(
        "test",
        &["a".into(), "b".into()],
        Some("took 9.87s at line 41"),
    );
    assert_eq!(a, b);
    assert_ne!(
        a,
        failure_signature("test", &["a".into()], Some("took 1s at line 40"))
    );
}

#[test]
fn file_thrash_in_one_iteration_and_oscillation_across_iterations() {
    let b = Breakers {
        file_thrash: 5,
        no_progress: 0,
        ..Default::default()
    };
    let mut f = facts("1");
    f.edits.insert("src/lib.rs".into(), 4);
    assert_eq!(breaker_tripped(&b, std::slice::from_ref(&f), None), None);
    f.edits.insert("src/lib.rs".into(), 5);
    assert_eq!(
        breaker_tripped(&b, &[f], None),
        Some(StopReason::FileThrash)
    );

    let h = |x: &str| {
        let mut f = facts(x);
        f.file_hashes.insert("a.rs".into(), x.into());
        f
    };
    assert_eq!(breaker_tripped(&b, &[h("A"), h("B")], None), None);
    assert_eq!(
        breaker_tripped(&b, &[h("A"), h("B"), h("A")], None),
        Some(StopReason::FileThrash)
    );
    assert_eq!(breaker_tripped(&b, &[h("A"), h("B"), h("C")], None), None);
}

#[test]
fn agent_errors_and_permission_denials_in_a_row() {
    let b = Breakers {
        agent_errors: 3,
        permission_denials: 2,
        no_progress: 0,
        ..Default::default()
    };
    let err = IterationFacts {
        agent_error: true,
        ..facts("1")
    };
    let ok = facts("2");
    assert_eq!(breaker_tripped(&b, &[err.clone(), err.clone()], None), None);
    assert_eq!(
        breaker_tripped(&b, &[err.clone(), err.clone(), err.clone()], None),
        Some(StopReason::AgentErrors)
    );
    assert_eq!(
        breaker_tripped(&b, &[err.clone(), ok, err.clone(), err], None),
        None
    );
    let den = IterationFacts {
        permission_denials: 1,
        ..facts("3")
    };
    assert_eq!(breaker_tripped(&b, std::slice::from_ref(&den), None), None);
    assert_eq!(
        breaker_tripped(&b, &[den.clone(), den], None),
        Some(StopReason::PermissionDenials)
    );
}

#[test]
fn criterion_stuck_and_reasoning_loops() {
    let b = Breakers {
        criterion_stuck: 2,
        no_progress: 0,
        ..Default::default()
    };
    let u = |t: &str| IterationFacts {
        unmet: vec!["C1".into()],
        ..facts(t)
    };
    assert_eq!(breaker_tripped(&b, &[u("1")], None), None);
    assert_eq!(
        breaker_tripped(&b, &[u("1"), u("2")], None),
        Some(StopReason::CriterionStuck)
    );

    let b = Breakers {
        criterion_stuck: 0,
        no_progress: 0,
        ..Default::default()
    };
    let o = |t: &str| IterationFacts {
        output_fingerprint: Some("same".into()),
        ..facts(t)
    };
    assert_eq!(breaker_tripped(&b, &[o("1"), o("2")], None), None);
    assert_eq!(
        breaker_tripped(&b, &[o("1"), o("2"), o("3")], None),
        Some(StopReason::ReasoningLoop)
    );
}
