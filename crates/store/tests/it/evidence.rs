//! Evidence: recording, the (tree, gate, command) cache, latest per gate.

use pawl_core::failure::FailureCategory;
use pawl_store::{NewEvidence, StoreError, TestCounts};

use crate::{new_run, open};

fn evidence(run_id: Option<&str>, gate: &str, tree: &str, passed: bool) -> NewEvidence {
    NewEvidence {
        run_id: run_id.map(str::to_owned),
        gate: gate.into(),
        command: format!("make {gate}"),
        argv: vec!["sh".into(), "-c".into(), format!("make {gate}")],
        cwd: "/repo".into(),
        tree_hash: tree.into(),
        tree_after: None,
        passed,
        end: "exited".into(),
        exit_code: Some(if passed { 0 } else { 1 }),
        signal: None,
        duration_ms: 1234,
        tests: Some(TestCounts {
            runner: Some("unittest".into()),
            passed: 3,
            failed: u64::from(!passed),
            skipped: 1,
        }),
        failing: if passed {
            vec![]
        } else {
            vec!["test_x (t.T)".into()]
        },
        first_failure: (!passed).then(|| "AssertionError: 1 != 2".into()),
        failure_category: (!passed).then_some(FailureCategory::Test),
        output_digest: Some("ab".repeat(32)),
        tail: "out| ok\n".into(),
        log_path: Some(format!(".pawl/logs/{gate}-1.log")),
        report_path: None,
        reused_from: None,
        outcomes: Vec::new(),
        seal: None,
    }
}

#[test]
fn evidence_round_trips_with_one_event_each() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(&dir);
    let run = store.create_run(&new_run("g")).unwrap();
    let before = store.events_after(None, 0, usize::MAX).unwrap().len();
    let list = [
        evidence(Some(&run.id), "test", "t1", false),
        evidence(Some(&run.id), "lint", "t1", true),
    ];
    let stored = store.record_evidence(&list).unwrap();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0].data, list[0]);
    assert_eq!(stored[1].data, list[1]);
    assert_eq!(store.evidence(stored[0].id).unwrap(), stored[0]);
    let events = store.events_after(None, 0, usize::MAX).unwrap();
    assert_eq!(events.len(), before + 2);
    assert_eq!(events.last().unwrap().kind, "evidence");
    assert_eq!(events.last().unwrap().data["gate"], "lint");
}

#[test]
fn cache_needs_same_tree_gate_command_and_a_pass_on_a_still_tree() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(&dir);
    let ok = store
        .record_evidence(&[evidence(None, "test", "t1", true)])
        .unwrap()
        .remove(0);
    assert_eq!(
        store
            .cached_evidence("t1", "test", "make test", None)
            .unwrap()
            .unwrap()
            .id,
        ok.id
    );
    assert!(
        store
            .cached_evidence("t2", "test", "make test", None)
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .cached_evidence("t1", "lint", "make test", None)
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .cached_evidence("t1", "test", "make test -v", None)
            .unwrap()
            .is_none()
    );

    // A failure is never served from the cache.
    store
        .record_evidence(&[evidence(None, "lint", "t1", false)])
        .unwrap();
    assert!(
        store
            .cached_evidence("t1", "lint", "make lint", None)
            .unwrap()
            .is_none()
    );

    // Nor a pass during which the tree moved.
    let mut moved = evidence(None, "fmt", "t1", true);
    moved.tree_after = Some("t9".into());
    let moved = store.record_evidence(&[moved]).unwrap().remove(0);
    assert!(!moved.is_reusable());
    assert!(
        store
            .cached_evidence("t1", "fmt", "make fmt", None)
            .unwrap()
            .is_none()
    );

    // A reuse row points back to the original, which stays the cache answer.
    let mut reuse = ok.data.clone();
    reuse.reused_from = Some(ok.id);
    store.record_evidence(&[reuse]).unwrap();
    assert_eq!(
        store
            .cached_evidence("t1", "test", "make test", None)
            .unwrap()
            .unwrap()
            .id,
        ok.id
    );
}

#[test]
fn latest_evidence_is_per_gate_and_per_run() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, clock) = open(&dir);
    let run = store.create_run(&new_run("g")).unwrap();
    store
        .record_evidence(&[evidence(Some(&run.id), "test", "t1", false)])
        .unwrap();
    clock.advance(10);
    let second = store
        .record_evidence(&[evidence(Some(&run.id), "test", "t2", true)])
        .unwrap()
        .remove(0);
    store
        .record_evidence(&[evidence(Some(&run.id), "build", "t2", true)])
        .unwrap();
    store
        .record_evidence(&[evidence(None, "test", "t3", false)])
        .unwrap();

    let latest = store.latest_evidence(Some(&run.id)).unwrap();
    let gates: Vec<_> = latest.iter().map(|e| e.data.gate.as_str()).collect();
    assert_eq!(gates, ["build", "test"]);
    assert_eq!(latest[1].id, second.id);
    assert_eq!(latest[1].created_at, second.created_at);
    assert_eq!(store.evidence_of_run(Some(&run.id)).unwrap().len(), 3);
    let outside = store.latest_evidence(None).unwrap();
    assert_eq!(outside.len(), 1);
    assert_eq!(outside[0].data.tree_hash, "t3");
}

#[test]
fn evidence_for_an_unknown_run_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, _) = open(&dir);
    let err = store
        .record_evidence(&[
            evidence(None, "a", "t1", true),
            evidence(Some("nope"), "b", "t1", true),
        ])
        .unwrap_err();
    assert!(
        matches!(err, StoreError::NotFound { what: "run", .. }),
        "{err}"
    );
    assert!(store.latest_evidence(None).unwrap().is_empty());
}
