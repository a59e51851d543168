use pawl_core::EventKind;
use pawl_store::StoreError;

use crate::{new_run, open};

#[test]
fn a_live_lease_is_refused_naming_its_holder() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    s.acquire_lease(&run.id, 100, "hostA", 30_000, &|_| true)
        .unwrap();
    let err = s
        .acquire_lease(&run.id, 200, "hostA", 30_000, &|_| true)
        .unwrap_err();
    match &err {
        StoreError::LeaseHeld { pid, host, .. } => {
            assert_eq!((*pid, host.as_str()), (100, "hostA"))
        }
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains("pid 100 on hostA"), "{err}");
}

#[test]
fn an_expired_lease_is_taken_over_with_an_event() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, clock) = open(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    s.acquire_lease(&run.id, 100, "hostB", 30_000, &|_| true)
        .unwrap();
    clock.advance(30_001);
    let out = s
        .acquire_lease(&run.id, 200, "hostA", 30_000, &|_| true)
        .unwrap();
    assert_eq!(out.took_over.map(|l| l.pid), Some(100));
    assert_eq!(out.lease.pid, 200);
    let ev = s.events_after(Some(&run.id), 0, 100).unwrap();
    let takeover = ev
        .iter()
        .find(|e| e.is(EventKind::LeaseTakeover))
        .expect("takeover event");
    assert_eq!(takeover.data["why"], "expired");
}

#[test]
fn a_dead_holder_on_this_host_is_taken_over_but_not_on_another_host() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    s.acquire_lease(&run.id, 100, "other", 30_000, &|_| false)
        .unwrap();
    // We can not see processes on another host: a live lease there holds.
    assert!(
        s.acquire_lease(&run.id, 200, "here", 30_000, &|_| false)
            .is_err()
    );
    let run2 = {
        s.cancel_run(&run.id).unwrap();
        s.create_run(&new_run("h")).unwrap()
    };
    s.acquire_lease(&run2.id, 100, "here", 30_000, &|_| true)
        .unwrap();
    let out = s
        .acquire_lease(&run2.id, 200, "here", 30_000, &|l| l.pid != 100)
        .unwrap();
    assert_eq!(out.took_over.map(|l| l.pid), Some(100));
}

#[test]
fn heartbeat_extends_and_detects_loss() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, clock) = open(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    let mine = s
        .acquire_lease(&run.id, 1, "h", 1_000, &|_| true)
        .unwrap()
        .lease;
    clock.advance(900);
    s.heartbeat(&run.id, &mine.token, 1_000).unwrap();
    clock.advance(900);
    // Still held thanks to the heartbeat.
    assert!(s.acquire_lease(&run.id, 2, "h", 1_000, &|_| true).is_err());
    clock.advance(200);
    s.acquire_lease(&run.id, 2, "h", 1_000, &|_| true).unwrap();
    let err = s.heartbeat(&run.id, &mine.token, 1_000).unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost(_)));
}

#[test]
fn sessions_bind_once() {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, _) = open(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    assert!(s.bind_session(&run.id, "sess-1").is_err(), "no lease yet");
    let lease = s
        .acquire_lease(&run.id, 1, "h", 1_000, &|_| true)
        .unwrap()
        .lease;
    s.bind_session(&run.id, "sess-1").unwrap();
    let l = s.bind_session(&run.id, "sess-1").unwrap();
    assert_eq!(l.sessions, vec!["sess-1"]);
    s.release_lease(&run.id, &lease.token).unwrap();
    assert!(s.lease(&run.id).unwrap().is_none());
}
