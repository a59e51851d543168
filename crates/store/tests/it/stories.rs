//! The stories of a plan run in parallel (`story_work`), and the store read by several
//! connections at once, as the parallel driver's workers do.

use pawl_core::EventKind;
use pawl_core::parallel::{MergeResult, PlannedStory, WorkState};
use pawl_store::{NewStoryWork, Store, StoreError, StoryWorkChange};
use serde_json::json;

use crate::{TestClock, new_run};

fn planned(id: &str) -> NewStoryWork {
    NewStoryWork {
        plan: PlannedStory {
            id: id.into(),
            title: format!("story {id}"),
            files: vec![format!("{id}.txt")],
            depends_on: Vec::new(),
            criteria: vec![format!("test -f {id}.txt")],
        },
        story_id: id.into(),
        criteria: vec!["C1".into()],
        branch: format!("pawl/r-{id}"),
        worktree: format!("/w/r/{id}"),
    }
}

#[test]
fn a_plan_s_stories_are_kept_in_order_and_every_change_is_an_event() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = crate::open(&dir);
    let run = s.create_run(&new_run("plan")).unwrap();
    s.add_story_work(&run.id, &[planned("B"), planned("A")])
        .unwrap();
    let rows = s.story_works(&run.id).unwrap();
    let ids: Vec<&str> = rows.iter().map(|w| w.story.as_str()).collect();
    assert_eq!(ids, ["B", "A"]);
    assert!(rows.iter().all(|w| w.state == WorkState::Pending
        && w.merge == MergeResult::Pending
        && w.attempts == 0));
    let w = s
        .update_story_work(
            &run.id,
            "A",
            &StoryWorkChange {
                state: Some(WorkState::Working),
                new_attempt: true,
                feedback: Some(Some("conflicts in a.txt".into())),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!((w.state, w.attempts), (WorkState::Working, 1));
    assert_eq!(w.feedback.as_deref(), Some("conflicts in a.txt"));
    let w = s
        .update_story_work(
            &run.id,
            "A",
            &StoryWorkChange {
                state: Some(WorkState::Merged),
                merge: Some(MergeResult::Merged),
                evidence: Some(json!({"tree": "t"})),
                feedback: Some(None),
                merged_commit: Some("c0ffee".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(
        (w.state, w.merge, w.attempts),
        (WorkState::Merged, MergeResult::Merged, 1)
    );
    assert_eq!(w.feedback, None);
    assert_eq!(w.evidence, json!({"tree": "t"}));
    assert_eq!(w.merged_commit.as_deref(), Some("c0ffee"));
    let events = s.events_after(Some(&run.id), 0, usize::MAX).unwrap();
    assert_eq!(
        events.iter().filter(|e| e.is(EventKind::StoryWork)).count(),
        4
    );
    let err = s
        .update_story_work(&run.id, "Z", &StoryWorkChange::default())
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
}

/// Regression: the tamper check read the run row (with its count of events) and then counted
/// the events; a worker's connection committing between the two reads looked like rows added
/// outside pawl, and stopped a healthy parallel run `tampered`.
#[test]
fn the_tamper_check_is_not_fooled_by_another_connection_writing_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pawl.db");
    let key = [9u8; 32];
    let open = || {
        Store::open_with(
            &path,
            Box::new(TestClock::new(1_790_000_000_000)),
            Some(key),
        )
        .unwrap()
    };
    let mut s = open();
    let run = s.create_run(&new_run("two writers")).unwrap();
    let id = run.id.clone();
    let writer = {
        let id = id.clone();
        let mut w = open();
        std::thread::spawn(move || {
            for n in 0..1500 {
                w.append_event(Some(&id), EventKind::Note, json!({"n": n}))
                    .unwrap();
            }
        })
    };
    let reader = open();
    let mut checks = 0;
    while !writer.is_finished() {
        if let Some(t) = reader.tampering(&id).unwrap() {
            panic!("after {checks} checks: {:?}", t.findings);
        }
        checks += 1;
    }
    writer.join().unwrap();
    assert!(reader.tampering(&id).unwrap().is_none());
}

/// A store signed with a key, on a clock the test moves.
fn keyed(dir: &tempfile::TempDir) -> (Store, TestClock) {
    let clock = TestClock::new(1_790_000_000_000);
    let store = Store::open_at(
        &crate::location(dir),
        Box::new(clock.clone()),
        Some([5; 32]),
    )
    .unwrap();
    (store, clock)
}

fn alive(_: &pawl_core::record::Lease) -> bool {
    true
}

fn dead(_: &pawl_core::record::Lease) -> bool {
    false
}

const TTL: i64 = 60_000;

/// A story's lease: taken with its start, in one transaction; a live worker's lease keeps every
/// other process from starting the story again (two coordinators), an expired one or a dead
/// holder's is taken over (an event), and the end of a session is recorded only by the worker
/// that still holds it.
#[test]
fn a_story_held_by_a_live_worker_is_never_started_twice() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, clock) = keyed(&dir);
    let run = s.create_run(&new_run("plan")).unwrap();
    s.add_story_work(&run.id, &[planned("A")]).unwrap();
    let (w, token) = s
        .start_story_work(&run.id, "A", 100, "h#1", TTL, &alive)
        .unwrap();
    assert_eq!((w.state, w.attempts), (WorkState::Working, 1));
    let lease = s.story_lease(&run.id, "A").unwrap().unwrap();
    assert_eq!((lease.pid, lease.host.as_str()), (100, "h#1"));
    // Another coordinator (pid 200) neither starts it again nor takes it back.
    let err = s
        .start_story_work(&run.id, "A", 200, "h#1", TTL, &alive)
        .unwrap_err();
    assert!(matches!(err, StoreError::Refused(_)), "{err}");
    assert!(matches!(
        s.reclaim_story_work(&run.id, "A", 200, "h#1", &alive)
            .unwrap(),
        pawl_store::Reclaim::Held(_)
    ));
    // On another machine a pid means nothing: held until it expires, renewed by its heartbeat.
    assert!(matches!(
        s.reclaim_story_work(&run.id, "A", 200, "other#2", &dead)
            .unwrap(),
        pawl_store::Reclaim::Held(_)
    ));
    clock.advance(TTL - 1);
    s.heartbeat_story(&run.id, "A", &token, TTL).unwrap();
    clock.advance(TTL - 1);
    assert!(matches!(
        s.reclaim_story_work(&run.id, "A", 200, "other#2", &alive)
            .unwrap(),
        pawl_store::Reclaim::Held(_)
    ));
    // Expired: taken back, a takeover event; the old worker's end is not recorded.
    clock.advance(2);
    let back = s
        .reclaim_story_work(&run.id, "A", 200, "other#2", &alive)
        .unwrap();
    assert!(
        matches!(&back, pawl_store::Reclaim::Reclaimed { work, .. } if work.state == WorkState::Pending),
        "{back:?}"
    );
    assert_eq!(s.story_lease(&run.id, "A").unwrap(), None);
    let lost = s
        .update_story_work(
            &run.id,
            "A",
            &StoryWorkChange {
                state: Some(WorkState::Queued),
                release: Some(token.clone()),
                ..Default::default()
            },
        )
        .unwrap_err();
    assert!(matches!(lost, StoreError::StoryLeaseLost { .. }), "{lost}");
    assert_eq!(
        s.story_work(&run.id, "A").unwrap().state,
        WorkState::Pending
    );
    assert!(matches!(
        s.heartbeat_story(&run.id, "A", &token, TTL).unwrap_err(),
        StoreError::StoryLeaseLost { .. }
    ));
    // Started again by the new coordinator; its worker ends and releases the lease.
    let (w, token) = s
        .start_story_work(&run.id, "A", 200, "other#2", TTL, &alive)
        .unwrap();
    assert_eq!(w.attempts, 2);
    let w = s
        .update_story_work(
            &run.id,
            "A",
            &StoryWorkChange {
                state: Some(WorkState::Queued),
                release: Some(token),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(w.state, WorkState::Queued);
    assert_eq!(s.story_lease(&run.id, "A").unwrap(), None);
    let events = s.events_after(Some(&run.id), 0, usize::MAX).unwrap();
    assert_eq!(
        events
            .iter()
            .filter(|e| e.is(EventKind::LeaseTakeover))
            .count(),
        1
    );
    assert!(s.tampering(&run.id).unwrap().is_none());
}

/// kill -9 of the worker's process: its lease is taken over at once on the same machine, and
/// the step it left open is interrupted then — not before (a run-wide interruption leaves a
/// leased story's steps to its lease).
#[test]
fn a_dead_worker_s_story_is_taken_back_with_its_step_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, clock) = keyed(&dir);
    let run = s.create_run(&new_run("plan")).unwrap();
    let story = s
        .add_story(&run.id, "A", pawl_core::model::Size::S, false, 4)
        .unwrap();
    s.add_story_work(
        &run.id,
        &[NewStoryWork {
            story_id: story.id.clone(),
            ..planned("A")
        }],
    )
    .unwrap();
    s.start_story_work(&run.id, "A", 100, "h#1", TTL, &alive)
        .unwrap();
    let n = s.begin_iteration(&run.id, Some(&story.id), "p").unwrap();
    clock.advance(1_000);
    assert!(s.interrupt_open_iterations(&run.id).unwrap().is_empty());
    let back = s
        .reclaim_story_work(&run.id, "A", 200, "h#1", &dead)
        .unwrap();
    match back {
        pawl_store::Reclaim::Reclaimed { interrupted, work } => {
            assert_eq!(interrupted, vec![n]);
            assert_eq!(work.state, WorkState::Pending);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        s.iteration(&run.id, n).unwrap().outcome.as_deref(),
        Some("interrupted")
    );
    assert!(s.tampering(&run.id).unwrap().is_none());
}

/// The agent (or anyone with the database file) edits a story's row — marks it merged, changes
/// its criteria — or adds or removes one: found, never used.
#[test]
fn a_story_row_edited_added_or_removed_outside_pawl_is_found() {
    for attack in [
        "UPDATE story_work SET state = 'merged', merge_result = 'merged' WHERE story = 'A'",
        "UPDATE story_work SET criteria_json = '[]' WHERE story = 'A'",
        "UPDATE story_work SET attempts = 0 WHERE story = 'A'",
        "DELETE FROM story_work WHERE story = 'B'",
        "INSERT INTO story_work (run_id, story, seq, story_id, plan_json, criteria_json, state, attempts, merge_result, evidence_json, branch, worktree, updated_at) SELECT run_id, 'C', 3, story_id, plan_json, criteria_json, 'merged', 1, 'merged', evidence_json, branch, worktree, updated_at FROM story_work WHERE story = 'A'",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (mut s, _) = keyed(&dir);
        let run = s.create_run(&new_run("plan")).unwrap();
        s.add_story_work(&run.id, &[planned("A"), planned("B")])
            .unwrap();
        s.start_story_work(&run.id, "A", 1, "h#1", TTL, &alive)
            .unwrap();
        assert!(s.tampering(&run.id).unwrap().is_none(), "{attack}");
        let agent = pawl_store::db::Db::open(&crate::location(&dir)).unwrap();
        agent.execute(attack, ()).unwrap();
        drop(agent);
        let found = s.tampering(&run.id).unwrap();
        let found = found.unwrap_or_else(|| panic!("not found: {attack}"));
        assert!(
            found.findings.iter().any(|f| f.table == "story_work"),
            "{attack}: {found}"
        );
        if attack.starts_with("UPDATE") {
            // Never read as if it were pawl's, never written over.
            assert!(
                matches!(s.story_works(&run.id), Err(StoreError::Tampered(_))),
                "{attack}"
            );
            assert!(
                matches!(
                    s.update_story_work(&run.id, "A", &StoryWorkChange::default()),
                    Err(StoreError::Tampered(_))
                ),
                "{attack}"
            );
        }
    }
}
