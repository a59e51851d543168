//! What a run keeps in the store when it stops (its report, its diff): kept whole, signed,
//! replaced when it stops again, and known to be missing when the run stopped after publishing.

use pawl_core::StopReason;
use pawl_core::model::RunStatus;
use pawl_store::{NewArtifact, StoreError};

use crate::new_run;

fn artifact(name: &str, body: &str, bytes: u64, truncated: bool) -> NewArtifact {
    NewArtifact {
        name: name.into(),
        body: body.into(),
        bytes,
        truncated,
    }
}

#[test]
fn a_published_artifact_reads_back_whole_and_is_replaced_on_the_next_stop() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = crate::tamper::open_keyed(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    assert_eq!(s.artifact(&run.id, "report").unwrap(), None);
    assert!(!s.published_since_stop(&run.id).unwrap());
    s.set_run_status(&run.id, RunStatus::Stopped, Some(StopReason::Stopped))
        .unwrap();
    // Killed here, between the stop and its publication: not published since the stop.
    assert!(!s.published_since_stop(&run.id).unwrap());
    let body = "{\"patch\": \"diff --git a/x b/x\\n+é\\u0000\"}";
    s.publish(
        &run.id,
        &[
            artifact("report", "{\"verdict\": \"SHIP\"}", 20, false),
            artifact("diff", body, 9_000_000, true),
        ],
    )
    .unwrap();
    assert!(s.published_since_stop(&run.id).unwrap());
    let diff = s.artifact(&run.id, "diff").unwrap().unwrap();
    assert_eq!(diff.body, body);
    assert_eq!((diff.bytes, diff.truncated), (9_000_000, true));
    let published = s
        .events_after(Some(&run.id), 0, usize::MAX)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == "published")
        .collect::<Vec<_>>();
    assert_eq!(published.len(), 1);
    assert_eq!(published[0].data["artifacts"][1]["name"], "diff");
    assert_eq!(published[0].data["artifacts"][1]["truncated"], true);
    assert_eq!(
        published[0].data["artifacts"][1]["sha256"]
            .as_str()
            .unwrap()
            .len(),
        64
    );
    // Resumed and stopped again: unpublished until it publishes again, then the new one.
    s.set_run_status(&run.id, RunStatus::Active, None).unwrap();
    s.set_run_status(&run.id, RunStatus::Stopped, Some(StopReason::Stopped))
        .unwrap();
    assert!(!s.published_since_stop(&run.id).unwrap());
    s.publish(&run.id, &[artifact("diff", "{}", 2, false)])
        .unwrap();
    assert!(s.published_since_stop(&run.id).unwrap());
    let diff = s.artifact(&run.id, "diff").unwrap().unwrap();
    assert_eq!((diff.body.as_str(), diff.truncated), ("{}", false));
    assert!(s.tampering(&run.id).unwrap().is_none());
}

/// The agent, writing the database directly, rewrites the kept diff: the store never returns it.
#[test]
fn a_rewritten_artifact_is_refused_as_tampered() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = crate::tamper::open_keyed(&dir);
    let run = s.create_run(&new_run("g")).unwrap();
    s.publish(
        &run.id,
        &[artifact("diff", "{\"patch\": \"+a\"}", 14, false)],
    )
    .unwrap();
    let agent = pawl_store::db::Db::open(&crate::location(&dir)).unwrap();
    agent
        .execute(
            "UPDATE artifacts SET body = ?1 WHERE run_id = ?2",
            pawl_store::db::params!["{\"patch\": \"+nothing to see\"}", run.id],
        )
        .unwrap();
    match s.artifact(&run.id, "diff") {
        Err(StoreError::Tampered(t)) => assert_eq!(t.run_id, run.id),
        other => panic!("expected tampering, got {other:?}"),
    }
}
