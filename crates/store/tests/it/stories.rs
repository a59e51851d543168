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
