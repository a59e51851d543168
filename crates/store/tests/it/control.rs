//! What the daemon needs from the store: a run's version, compare-and-set, the origin of its
//! events, one run's events paged by id.

use pawl_core::EventKind;
use pawl_core::model::RunStatus;
use pawl_store::StoreError;

use crate::{new_run, open};

#[test]
fn the_version_moves_with_state_not_with_chatter() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(&dir);
    let run = store.create_run(&new_run("goal")).unwrap();
    let v0 = store.run_version(&run.id).unwrap();
    assert!(v0 > 0);
    store
        .append_event(Some(&run.id), EventKind::Note, serde_json::json!({}))
        .unwrap();
    assert_eq!(store.run_version(&run.id).unwrap(), v0);
    store.record_stop_request(&run.id).unwrap();
    assert!(store.run_version(&run.id).unwrap() > v0);
}

#[test]
fn a_stale_expectation_writes_nothing_and_a_fresh_one_holds_once() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(&dir);
    let run = store.create_run(&new_run("goal")).unwrap();
    let v = store.run_version(&run.id).unwrap();
    store.expect_version(&run.id, v - 1);
    let err = store.cancel_run(&run.id).unwrap_err();
    assert!(
        matches!(err, StoreError::Conflict { current, .. } if current == v),
        "{err}"
    );
    assert_eq!(store.run(&run.id).unwrap().status, RunStatus::Active);
    // Consumed by the refused write: the next one is not checked.
    store.set_origin(Some("dashboard"));
    store.expect_version(&run.id, v);
    store.cancel_run(&run.id).unwrap();
    let e = store
        .last_event(&run.id, EventKind::RunStatus)
        .unwrap()
        .unwrap();
    assert_eq!(e.data["origin"], "dashboard");
    assert_eq!(store.run(&run.id).unwrap().status, RunStatus::Cancelled);
}

#[test]
fn one_runs_events_page_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(&dir);
    let a = store.create_run(&new_run("a")).unwrap();
    store.cancel_run(&a.id).unwrap();
    let b = store.create_run(&new_run("b")).unwrap();
    for i in 0..10 {
        let run = if i % 2 == 0 { &a.id } else { &b.id };
        store
            .append_event(Some(run), EventKind::Note, serde_json::json!({"i": i}))
            .unwrap();
    }
    let page = store.run_events_after(&b.id, 0, 3).unwrap();
    assert_eq!(page.len(), 3);
    assert!(
        page.iter()
            .all(|e| e.run_id.as_deref() == Some(b.id.as_str()))
    );
    let rest = store.run_events_after(&b.id, page[2].seq, 100).unwrap();
    assert!(rest.iter().all(|e| e.seq > page[2].seq));
    let all = store.run_events_after(&b.id, 0, 100).unwrap();
    assert_eq!(all.len(), page.len() + rest.len());
    assert_eq!(store.last_event_seq().unwrap(), all.last().unwrap().seq);
}

#[test]
fn a_question_waits_until_answered_from_any_handle_and_the_first_answer_wins() {
    let dir = tempfile::tempdir().unwrap();
    let (mut asking, _) = open(&dir);
    let run = asking.create_run(&new_run("goal")).unwrap();
    let id = asking
        .ask_question(&run.id, "which file?", "greet.txt", Some("scope"))
        .unwrap();
    // Another front end (another handle on the same store) sees it waiting and answers it.
    let (mut dashboard, _) = open(&dir);
    let pending = dashboard.pending_questions(&run.id).unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].id, id);
    assert_eq!(pending[0].recommended, "greet.txt");
    assert!(
        dashboard
            .answer_question(&run.id, id, "hello.txt", false, "dashboard")
            .unwrap()
    );
    // The asker's own answer (silence: the recommendation) comes later and changes nothing.
    assert!(
        !asking
            .answer_question(&run.id, id, "greet.txt", true, "timeout")
            .unwrap()
    );
    let q = asking.question(&run.id, id).unwrap();
    assert_eq!(q.answer.as_deref(), Some("hello.txt"));
    assert!(!q.assumed);
    assert_eq!(q.answered_by.as_deref(), Some("dashboard"));
    assert!(asking.pending_questions(&run.id).unwrap().is_empty());
    // Asked once, answered once: each an event a dashboard follows.
    for (kind, n) in [
        (EventKind::QuestionAsked, 1),
        (EventKind::QuestionAnswered, 1),
    ] {
        let seen = asking
            .run_events_after(&run.id, 0, 1000)
            .unwrap()
            .into_iter()
            .filter(|e| e.kind == kind.as_str())
            .count();
        assert_eq!(seen, n, "{kind:?}");
    }
    // A question of another run is not this run's.
    assert!(
        asking
            .answer_question("R-none", id, "x", false, "t")
            .is_err()
    );
}
