//! What only SQLite has: databases written before a migration by an older pawl.

use pawl_core::record::RunSettings;
use pawl_store::{Store, StoreError};

use crate::tamper::open_keyed;

/// Rows written before the store signed them are signed by the first pawl that migrates with
/// the key; a pawl without a key leaves them unsigned, and their runs cannot be driven.
#[test]
fn rows_from_before_signing_are_signed_by_the_keyed_migration() {
    for keyed in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pawl.db");
        let db = rusqlite::Connection::open(&path).unwrap();
        for sql in [
            include_str!("../../migrations/0001_init.sql"),
            include_str!("../../migrations/0002_evidence.sql"),
            include_str!("../../migrations/0003_loop.sql"),
            include_str!("../../migrations/0004_session.sql"),
            include_str!("../../migrations/0005_pipeline.sql"),
            include_str!("../../migrations/0006_transcripts.sql"),
            include_str!("../../migrations/0007_event_kinds.sql"),
            include_str!("../../migrations/0008_sealed_evidence.sql"),
        ] {
            db.execute_batch(sql).unwrap();
        }
        db.pragma_update(None, "user_version", 8).unwrap();
        let settings = serde_json::to_string(&RunSettings::default()).unwrap();
        db.execute(
            "INSERT INTO runs (id, seq, goal, status, driver, created_at, updated_at, settings_json)
             VALUES ('old', 1, 'g', 'active', 'headless', 0, 0, ?1)",
            [&settings],
        )
        .unwrap();
        db.execute(
            "INSERT INTO iterations (run_id, n, started_at, ended_at, prompt) VALUES ('old', 1, 0, 1, 'p')",
            [],
        )
        .unwrap();
        db.execute(
            "INSERT INTO events (run_id, at, kind, data_json) VALUES ('old', 0, 'run_created', '{}')",
            [],
        )
        .unwrap();
        drop(db);
        if !keyed {
            drop(Store::open(&path).unwrap());
        }
        let s = open_keyed(&dir);
        if keyed {
            assert_eq!(s.tampering("old").unwrap(), None);
            assert_eq!(s.run("old").unwrap().goal, "g");
        } else {
            assert!(matches!(s.run("old").unwrap_err(), StoreError::Tampered(_)));
        }
    }
}

/// The stories of a parallel run written before schema 13 (unsigned) are signed by the first
/// pawl that migrates with the key; without it they stay unsigned and their run is tampered.
#[test]
fn story_rows_from_before_schema_13_are_signed_by_the_keyed_migration() {
    for keyed in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pawl.db");
        let id = {
            let mut s = open_keyed(&dir);
            let run = s.create_run(&crate::new_run("plan")).unwrap();
            let story = |id: &str| pawl_store::NewStoryWork {
                plan: pawl_core::parallel::PlannedStory {
                    id: id.into(),
                    title: id.into(),
                    files: vec![],
                    depends_on: vec![],
                    criteria: vec![],
                },
                story_id: id.into(),
                criteria: vec![],
                branch: format!("pawl/r-{id}"),
                worktree: format!("/w/{id}"),
            };
            s.add_story_work(&run.id, &[story("A"), story("B")])
                .unwrap();
            run.id
        };
        // As schema 12 left it: no questions (14), no story leases, story rows without codes.
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch(
            "DROP TABLE questions; DROP TABLE story_leases; UPDATE story_work SET mac = NULL; ALTER TABLE story_work DROP COLUMN mac;",
        )
        .unwrap();
        db.pragma_update(None, "user_version", 12).unwrap();
        drop(db);
        if !keyed {
            drop(Store::open(&path).unwrap());
        }
        let s = open_keyed(&dir);
        if keyed {
            assert_eq!(s.tampering(&id).unwrap(), None);
            assert_eq!(s.story_works(&id).unwrap().len(), 2);
        } else {
            assert!(matches!(
                s.story_works(&id).unwrap_err(),
                StoreError::Tampered(_)
            ));
        }
    }
}

/// Every hook opens the store in a new process, and the first connection to a database reads
/// and checksums every WAL frame since the last checkpoint: the store checkpoints long before
/// SQLite's default of 1,000 frames (4 MB), so that the WAL a hook reads stays small.
#[test]
fn the_wal_a_hook_reads_is_checkpointed_before_it_grows_to_megabytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pawl.db");
    let mut s = Store::open(&path).unwrap();
    // About three pages an event: 1,200 frames in all.
    let data = serde_json::json!({"text": "x".repeat(10_000)});
    for _ in 0..400 {
        s.append_event(None, pawl_core::EventKind::Note, data.clone())
            .unwrap();
    }
    let wal = std::fs::metadata(dir.path().join("pawl.db-wal"))
        .unwrap()
        .len();
    assert!(wal < 2_000_000, "a WAL of {wal} bytes");
    drop(s);
}

/// A Stop's writes that follow each other commit once ([`Store::batch`]): another connection
/// sees none of them before the batch ends, each write is still all or nothing (a refused one
/// leaves nothing, and what came before it stays written, as without the batch), and a panic
/// leaves none of it.
#[test]
fn writes_in_a_batch_commit_once_each_still_all_or_nothing() {
    use pawl_core::EventKind;
    use pawl_core::record::IterationEnd;
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let run = s.create_run(&crate::new_run("g")).unwrap();
    let n = s.begin_iteration(&run.id, None, "p").unwrap();
    let other = pawl_store::db::Db::open(&crate::location(&dir)).unwrap();
    let notes = |db: &pawl_store::db::Db| -> i64 {
        db.query_row("SELECT COUNT(*) FROM events WHERE kind = 'note'", (), |r| {
            r.get(0)
        })
        .unwrap()
    };
    let out: Result<(), StoreError> = s.batch(|s| {
        s.append_event(Some(&run.id), EventKind::Note, serde_json::json!({"a": 1}))?;
        assert_eq!(notes(&other), 0, "seen before the batch committed");
        // Refused inside the batch: nothing of it is written.
        let err = s
            .finish_iteration(&run.id, n + 7, &IterationEnd::default())
            .unwrap_err();
        assert!(matches!(err, StoreError::Refused(_)), "{err}");
        s.finish_iteration(
            &run.id,
            n,
            &IterationEnd {
                outcome: "completed".into(),
                ..IterationEnd::default()
            },
        )?;
        s.append_event(Some(&run.id), EventKind::Note, serde_json::json!({"a": 2}))?;
        Err(StoreError::Refused("the turn failed here".into()))
    });
    assert!(matches!(out, Err(StoreError::Refused(_))));
    assert_eq!(notes(&other), 2);
    assert!(s.iteration(&run.id, n).unwrap().ended_at.is_some());
    assert_eq!(s.tampering(&run.id).unwrap(), None);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _: Result<(), StoreError> = s.batch(|s| {
            s.append_event(Some(&run.id), EventKind::Note, serde_json::json!({"a": 3}))?;
            panic!("a bug in the middle of a turn")
        });
    }));
    assert!(panicked.is_err());
    assert_eq!(notes(&other), 2);
    // The handle writes on as before, and what it wrote is its own.
    s.append_event(Some(&run.id), EventKind::Note, serde_json::json!({"a": 4}))
        .unwrap();
    assert_eq!(notes(&other), 3);
    drop(s);
    assert_eq!(open_keyed(&dir).tampering(&run.id).unwrap(), None);
}
