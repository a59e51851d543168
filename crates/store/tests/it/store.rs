use pawl_core::EventKind;
use pawl_core::StopReason;
use pawl_core::failure::FailureCategory;
use pawl_core::model::{
    BlockerStatus, CriterionStatus, RunStatus, Severity, Size, StoryStatus, Verification,
};
use pawl_core::tdd::TddPhase;
use pawl_store::{Store, StoreError};

use crate::{new_run, open};

fn event_count(store: &Store) -> usize {
    store.events_after(None, 0, usize::MAX).unwrap().len()
}

#[test]
fn fresh_database_is_migrated_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = crate::location(&dir);
    let store = crate::open_loc(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), Store::known_schema());
    drop(store);
    let store = crate::open_loc(&path).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

#[test]
fn a_database_from_a_newer_pawl_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = crate::location(&dir);
    drop(crate::open_loc(&path).unwrap());
    crate::set_schema_version(&path, 99);
    let err = crate::open_loc(&path).unwrap_err();
    assert!(matches!(err, StoreError::TooNew { found: 99, .. }), "{err}");
    assert!(err.to_string().contains("written by a newer pawl"), "{err}");
}

#[test]
fn every_change_appends_exactly_one_event() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let mut before = event_count(&s);
    let mut step = |s: &Store, what: &str| {
        let now = event_count(s);
        assert_eq!(now, before + 1, "{what} should append one event");
        before = now;
    };
    let run = s.create_run(&new_run("ship it")).unwrap();
    step(&s, "create_run");
    s.add_story(&run.id, "parse", Size::M, false, 3).unwrap();
    step(&s, "add_story");
    s.set_story_status(&run.id, "s1", StoryStatus::InProgress, None)
        .unwrap();
    step(&s, "story start");
    s.advance_tdd(&run.id, "S1", TddPhase::Red).unwrap();
    step(&s, "tdd");
    s.add_criterion(
        &run.id,
        "tests pass",
        &"command:cargo test".parse::<Verification>().unwrap(),
    )
    .unwrap();
    step(&s, "add_criterion");
    s.add_failure(
        &run.id,
        Some("S1"),
        "assert failed",
        FailureCategory::Test,
        true,
    )
    .unwrap();
    step(&s, "add_failure");
    s.add_blocker(&run.id, "no key", Severity::High).unwrap();
    step(&s, "add_blocker");
    s.add_clarification(&run.id, "db?", "sqlite", "interview", "tech")
        .unwrap();
    step(&s, "clarify");
    s.add_note(&run.id, "use rusqlite").unwrap();
    step(&s, "note");
    s.cancel_run(&run.id).unwrap();
    step(&s, "cancel");
}

#[test]
fn one_active_run_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let first = s.create_run(&new_run("one")).unwrap();
    let err = s.create_run(&new_run("two")).unwrap_err();
    assert!(err.to_string().contains(&first.id), "{err}");
    s.set_run_status(
        &first.id,
        RunStatus::Stopped,
        Some(StopReason::MaxIterations),
    )
    .unwrap();
    let second = s.create_run(&new_run("two")).unwrap();
    assert_eq!(s.current_run().unwrap().unwrap().id, second.id);
    // Once the newer run is done, the current run is still the newest one, not the older
    // stopped one.
    s.set_run_status(&second.id, RunStatus::Done, Some(StopReason::Verified))
        .unwrap();
    assert_eq!(s.current_run().unwrap().unwrap().id, second.id);
    // The stopped run stays resumable by id, prefix-free suffix too.
    let suffix = &first.id[first.id.len() - 4..];
    assert_eq!(s.resolve_run(Some(suffix)).unwrap().id, first.id);
}

#[test]
fn terminal_runs_stay_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    s.cancel_run(&run.id).unwrap();
    let err = s
        .set_run_status(&run.id, RunStatus::Active, None)
        .unwrap_err();
    assert!(err.to_string().contains("already cancelled"), "{err}");
    assert!(s.resolve_open_run(None).is_err());
    let r = s.run(&run.id).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Cancelled));
    assert!(r.ended_at.is_some());
}

#[test]
fn stories_count_failed_attempts_and_enforce_tdd_order() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    let st = s.add_story(&run.id, "login", Size::L, true, 3).unwrap();
    assert_eq!(
        (st.id.as_str(), st.security, st.tdd_phase),
        ("S1", true, TddPhase::None)
    );
    let err = s.advance_tdd(&run.id, "S1", TddPhase::Green).unwrap_err();
    assert!(err.to_string().contains("expected `red`"), "{err}");
    assert_eq!(s.story(&run.id, "S1").unwrap().tdd_phase, TddPhase::None);
    s.add_failure(&run.id, Some("S1"), "x", FailureCategory::Code, false)
        .unwrap();
    s.add_failure(&run.id, Some("S1"), "y", FailureCategory::Test, true)
        .unwrap();
    assert_eq!(s.story(&run.id, "S1").unwrap().attempts, 2);
    let f = s.failures(&run.id, Some("S1"), 10).unwrap();
    assert_eq!(
        f.iter().map(|f| f.message.as_str()).collect::<Vec<_>>(),
        vec!["y", "x"]
    );
    let err = s
        .add_failure(&run.id, Some("S9"), "z", FailureCategory::Code, true)
        .unwrap_err();
    assert!(err.to_string().contains("no story `S9`"), "{err}");
    s.set_story_status(&run.id, "S1", StoryStatus::Done, None)
        .unwrap();
    let err = s
        .set_story_status(&run.id, "S1", StoryStatus::InProgress, None)
        .unwrap_err();
    assert!(err.to_string().contains("already done"), "{err}");
}

#[test]
fn criteria_keep_their_verification() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    let c = s
        .add_criterion(
            &run.id,
            "lints clean",
            &"command:cargo clippy".parse().unwrap(),
        )
        .unwrap();
    assert_eq!(c.verification.command.as_deref(), Some("cargo clippy"));
    s.add_criterion(&run.id, "reads well", &"review".parse().unwrap())
        .unwrap();
    let c = s
        .set_criterion_status(
            &run.id,
            "c1",
            CriterionStatus::Verified,
            serde_json::json!({"tree": "abc"}),
        )
        .unwrap();
    assert_eq!(c.status, CriterionStatus::Verified);
    let all = s.criteria(&run.id).unwrap();
    assert_eq!(
        all.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        vec!["C1", "C2"]
    );
}

#[test]
fn awaiting_user_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    s.add_blocker(&run.id, "Stripe key missing", Severity::High)
        .unwrap();
    let b = s
        .await_user(
            &run.id,
            "b1",
            "put STRIPE_KEY in .env",
            Some("test -n \"$STRIPE_KEY\""),
        )
        .unwrap();
    assert_eq!(b.status, BlockerStatus::AwaitingUser);
    assert_eq!(s.run(&run.id).unwrap().status, RunStatus::AwaitingUser);
    let ctx = s.resume_context(&run.id).unwrap();
    assert!(
        ctx.next_step.contains("put STRIPE_KEY in .env"),
        "{}",
        ctx.next_step
    );
    let fixed = s.user_fixed(&run.id, Some("added it")).unwrap();
    assert_eq!(fixed[0].status, BlockerStatus::Resolved);
    assert_eq!(fixed[0].resolution_notes.as_deref(), Some("added it"));
    assert_eq!(s.run(&run.id).unwrap().status, RunStatus::Active);
    let ctx = s.resume_context(&run.id).unwrap();
    assert_eq!(ctx.resolved_blockers.len(), 1);
    assert!(
        s.user_fixed(&run.id, None).is_err(),
        "nothing is awaited any more"
    );
}

#[test]
fn resume_context_gathers_everything() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let run = s.create_run(&new_run("add login")).unwrap();
    s.add_story(&run.id, "form", Size::S, false, 3).unwrap();
    s.set_story_status(&run.id, "S1", StoryStatus::InProgress, None)
        .unwrap();
    s.advance_tdd(&run.id, "S1", TddPhase::Red).unwrap();
    s.add_failure(
        &run.id,
        Some("S1"),
        "AssertionError: 401 != 200",
        FailureCategory::Test,
        true,
    )
    .unwrap();
    s.add_clarification(&run.id, "Which auth?", "sessions", "interview", "scope")
        .unwrap();
    s.add_note(&run.id, "cookies, not JWT").unwrap();
    let ctx = s.resume_context(&run.id).unwrap();
    assert_eq!(ctx.run.goal, "add login");
    assert_eq!(
        ctx.current_story.as_ref().map(|s| s.id.as_str()),
        Some("S1")
    );
    assert_eq!(ctx.recent_failures.len(), 1);
    assert_eq!(ctx.clarifications[0].answer, "sessions");
    assert_eq!(ctx.decisions[0].text, "cookies, not JWT");
    assert!(
        ctx.next_step.contains("pawl tdd S1 green"),
        "{}",
        ctx.next_step
    );
}

#[test]
fn limits_change_only_through_update_settings_with_an_event() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    let mut settings = run.settings.clone();
    settings.limits.max_iterations += 5;
    s.update_settings(&run.id, &settings, "--add-iterations 5")
        .unwrap();
    assert_eq!(s.run(&run.id).unwrap().settings.limits.max_iterations, 25);
    let ev = s.events_after(Some(&run.id), 0, 100).unwrap();
    let last = ev.last().unwrap();
    assert_eq!(last.kind, "limits_changed");
    assert_eq!(last.data["why"], "--add-iterations 5");
}

#[test]
fn concurrent_writers_from_two_connections_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let path = crate::location(&dir);
    let mut s = crate::open_loc(&path).unwrap();
    let run = s.create_run(&new_run("g")).unwrap();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let path = path.clone();
            let run_id = run.id.clone();
            std::thread::spawn(move || {
                let mut s = crate::open_loc(&path).unwrap();
                for i in 0..25 {
                    s.add_note(&run_id, &format!("t{t} n{i}")).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(s.notes(&run.id).unwrap().len(), 100);
    assert_eq!(s.integrity_check().unwrap(), "ok");
}

#[test]
fn the_last_event_of_a_kind_and_counts_since_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = crate::open_loc(&crate::location(&dir)).unwrap();
    assert!(
        store
            .last_event("r1", EventKind::Verification)
            .unwrap()
            .is_none()
    );
    for i in 0..3 {
        store
            .append_event(
                Some("r1"),
                EventKind::Verification,
                serde_json::json!({"i": i}),
            )
            .unwrap();
        store
            .append_event(
                Some("r2"),
                EventKind::Verification,
                serde_json::json!({"i": 10 + i}),
            )
            .unwrap();
        store
            .append_event(Some("r1"), EventKind::GuardDenied, serde_json::json!({}))
            .unwrap();
    }
    let last = store
        .last_event("r1", EventKind::Verification)
        .unwrap()
        .unwrap();
    assert_eq!(last.data["i"], 2);
    assert_eq!(last.run_id.as_deref(), Some("r1"));
    assert_eq!(
        store
            .count_events_since("r1", EventKind::GuardDenied, 0)
            .unwrap(),
        3
    );
    assert_eq!(
        store
            .count_events_since("r1", EventKind::GuardDenied, i64::MAX)
            .unwrap(),
        0
    );
    assert_eq!(
        store
            .count_events_since("r2", EventKind::GuardDenied, 0)
            .unwrap(),
        0
    );
}
