//! State an agent cannot forge: each attack as an agent with the database file would make it
//! (plain SQL on the file, as `python3 -c "import sqlite3; …"` does), then what pawl makes of it.

use pawl_core::EventKind;
use pawl_core::StopReason;
use pawl_core::model::{CriterionStatus, RunStatus};
use pawl_core::pipeline::output::{ArchitectureStatus, VerdictOutput};
use pawl_core::pipeline::{Phase, Role};
use pawl_core::record::{IterationEnd, RunSettings};
use pawl_store::{NewArming, NewVerdict, Store, StoreError};
use serde_json::json;

use crate::{TestClock, new_run};

const KEY: [u8; 32] = [7; 32];

pub(crate) fn open_keyed(dir: &tempfile::TempDir) -> Store {
    let clock = TestClock::new(1_790_000_000_000);
    Store::open_at(&crate::location(dir), Box::new(clock), Some(KEY)).unwrap()
}

/// The agent's connection to the same file.
/// The agent, writing the database directly (SQL in the store's portable dialect).
fn agent(dir: &tempfile::TempDir) -> pawl_store::db::Db {
    pawl_store::db::Db::open(&crate::location(dir)).unwrap()
}

fn tampered(e: StoreError) -> pawl_store::Tampering {
    match e {
        StoreError::Tampered(t) => t,
        other => panic!("expected tampering, got: {other}"),
    }
}

/// A run with three iterations allowed, one iteration done.
fn run_with_one_iteration(s: &mut Store) -> String {
    let mut settings = RunSettings::default();
    settings.limits.max_iterations = 3;
    let run = s
        .create_run(&pawl_store::NewRun {
            settings,
            ..new_run("g")
        })
        .unwrap();
    let n = s.begin_iteration(&run.id, None, "p").unwrap();
    s.finish_iteration(
        &run.id,
        n,
        &IterationEnd {
            cost_usd: 1.5,
            outcome: "completed".into(),
            ..IterationEnd::default()
        },
    )
    .unwrap();
    run.id
}

#[test]
fn an_honest_run_is_never_taken_for_tampered() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    s.add_criterion(&id, "reads well", &"review".parse().unwrap())
        .unwrap();
    s.set_criterion_status(&id, "C1", CriterionStatus::Verified, json!({}))
        .unwrap();
    let out = VerdictOutput {
        approve: true,
        architecture_status: ArchitectureStatus::Clear,
        findings: Vec::new(),
        verified_criteria: Vec::new(),
        accept_test_changes: None,
    };
    s.add_verdict(
        &id,
        &NewVerdict {
            phase: Phase::Review,
            role: Role::Reviewer,
            round: 1,
            story_id: None,
            session_id: Some("rev-1"),
            iteration: 1,
            output: &out,
        },
    )
    .unwrap();
    s.arm_session(
        &id,
        &NewArming {
            expires_at: i64::MAX,
            ..NewArming::default()
        },
    )
    .unwrap();
    s.bind_agent_session(&id, "sess-1", "claude", "startup")
        .unwrap();
    s.set_transcript_cursor("sess-1", "{\"offset\": 10}")
        .unwrap();
    s.touch_session("sess-1").unwrap();
    s.start_session_turn(&id).unwrap();
    s.set_phase(&id, "execute").unwrap();
    s.set_run_status(&id, RunStatus::Stopped, Some(StopReason::MaxIterations))
        .unwrap();
    s.set_run_status(&id, RunStatus::Active, None).unwrap();
    assert_eq!(s.tampering(&id).unwrap(), None);
    s.check_run(&id).unwrap();
    // And across a reopen by another process with the same key.
    drop(s);
    let s = open_keyed(&dir);
    assert_eq!(s.tampering(&id).unwrap(), None);
    assert_eq!(s.spent(&id).unwrap().iterations, 1);
}

/// The run's settings as the agent rewrites them: `limits.max_iterations` raised to 500 (what
/// `json_set(settings_json, '$.limits.max_iterations', 500)` does on SQLite, on both backends).
fn raised_limit(dir: &tempfile::TempDir, id: &str) -> String {
    let text: String = agent(dir)
        .query_row("SELECT settings_json FROM runs WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["limits"]["max_iterations"] = json!(500);
    v.to_string()
}

/// The measured attack: `UPDATE runs SET settings_json = json_set(..., max_iterations, 500)`.
/// The run is never read with the forged limit, the next honest write does not sign over it,
/// and marking the run tampered puts the signed limit back and names the field.
#[test]
fn a_raised_limit_in_the_run_row_is_never_used_nor_laundered() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    let n = agent(&dir)
        .execute(
            "UPDATE runs SET settings_json = ?2 WHERE id = ?1",
            pawl_store::params![id, raised_limit(&dir, &id)],
        )
        .unwrap();
    assert_eq!(n, 1);
    let t = tampered(s.run(&id).unwrap_err());
    assert_eq!(
        t.findings[0].field.as_deref(),
        Some("settings_json.limits.max_iterations")
    );
    assert_eq!(t.findings[0].what, "was 3, is 500");
    // The next honest change of the run does not make the forged value authentic.
    let err = s
        .append_event(Some(&id), EventKind::Note, json!({}))
        .unwrap_err();
    assert!(matches!(err, StoreError::Tampered(_)), "{err}");
    let err = s.begin_iteration(&id, None, "p").unwrap_err();
    assert!(matches!(err, StoreError::Tampered(_)), "{err}");
    assert!(matches!(
        s.current_run().unwrap_err(),
        StoreError::Tampered(_)
    ));

    let run = s.mark_tampered(&t).unwrap();
    assert_eq!(run.settings.limits.max_iterations, 3);
    assert_eq!(run.status, RunStatus::Stopped);
    assert_eq!(run.stop_reason, Some(StopReason::Tampered));
    let event = s.last_event(&id, EventKind::Tampered).unwrap().unwrap();
    assert_eq!(
        event.data["findings"][0]["field"],
        "settings_json.limits.max_iterations"
    );
    assert_eq!(event.data["restored"], true);
    // Never driven again; only cancelled.
    let err = s.set_run_status(&id, RunStatus::Active, None).unwrap_err();
    assert!(err.to_string().contains("cannot be resumed"), "{err}");
    assert_eq!(s.tampering(&id).unwrap(), None);
    s.cancel_run(&id).unwrap();
}

/// The measured attack: the run marked `done` in the database.
#[test]
fn a_run_forged_to_done_stays_open_and_is_stopped_tampered() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    agent(&dir)
        .execute(
            "UPDATE runs SET status = 'done', stop_reason = 'verified' WHERE id = ?1",
            [&id],
        )
        .unwrap();
    let t = tampered(s.current_run().unwrap_err());
    let fields: Vec<&str> = t
        .findings
        .iter()
        .filter_map(|f| f.field.as_deref())
        .collect();
    assert_eq!(fields, ["status", "stop_reason"]);
    assert_eq!(t.findings[0].what, "was active, is done");
    // Another run cannot start beside it either.
    let err = s.create_run(&new_run("other")).unwrap_err();
    assert!(err.to_string().contains("modified outside pawl"), "{err}");
    let run = s.mark_tampered(&t).unwrap();
    assert_eq!(
        (run.status, run.stop_reason),
        (RunStatus::Stopped, Some(StopReason::Tampered))
    );
}

/// Rewriting the signed text and the code too: what pawl wrote cannot be known; the row is
/// kept only to be reported, and the run is never driven.
#[test]
fn a_rewritten_record_is_marked_forged_and_never_driven() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    agent(&dir)
        .execute(
            "UPDATE runs SET settings_json = ?2, signed = NULL, mac = NULL WHERE id = ?1",
            pawl_store::params![id, raised_limit(&dir, &id)],
        )
        .unwrap();
    let t = s.tampering(&id).unwrap().unwrap();
    assert!(t.findings[0].what.contains("cannot be known"), "{t}");
    let run = s.mark_tampered(&t).unwrap();
    assert_eq!(run.stop_reason, Some(StopReason::Tampered));
    let still = s.tampering(&id).unwrap().unwrap();
    assert!(
        still.to_string().contains("could not be restored"),
        "{still}"
    );
    assert!(s.set_run_status(&id, RunStatus::Active, None).is_err());
}

/// Deleting iteration rows to reset the count: the run row counts what pawl wrote.
#[test]
fn deleted_iterations_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    let n = s.begin_iteration(&id, None, "p").unwrap();
    s.finish_iteration(&id, n, &IterationEnd::default())
        .unwrap();
    assert_eq!(s.spent(&id).unwrap().iterations, 2);
    agent(&dir)
        .execute("DELETE FROM iterations WHERE run_id = ?1", [&id])
        .unwrap();
    let t = s.tampering(&id).unwrap().unwrap();
    let text = t.to_string();
    assert!(
        text.contains("iterations: 2 row(s) of the run removed (pawl wrote 2, 0 remain)"),
        "{text}"
    );
    assert!(matches!(
        s.check_run(&id).unwrap_err(),
        StoreError::Tampered(_)
    ));
}

/// Putting back the row of an iteration as it was when it began (signed by pawl, before its
/// cost was charged) to spend the money again.
#[test]
fn an_iteration_put_back_as_it_began_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    let n = s.begin_iteration(&id, None, "p").unwrap();
    let db = agent(&dir);
    let began: Vec<pawl_store::db::Value> = db
        .query_row(
            "SELECT ended_at, cost_usd, outcome, mac FROM iterations WHERE run_id = ?1 AND n = ?2",
            pawl_store::params![id, n],
            |r| Ok(vec![r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?]),
        )
        .unwrap();
    s.finish_iteration(
        &id,
        n,
        &IterationEnd {
            cost_usd: 9.0,
            ..IterationEnd::default()
        },
    )
    .unwrap();
    assert_eq!(s.tampering(&id).unwrap(), None);
    db.execute(
        "UPDATE iterations SET ended_at = ?3, cost_usd = ?4, outcome = ?5, mac = ?6 WHERE run_id = ?1 AND n = ?2",
        pawl_store::params![id, n, began[0], began[1], began[2], began[3]],
    )
    .unwrap();
    let t = s.tampering(&id).unwrap().unwrap();
    assert!(
        t.to_string()
            .contains("pawl finished 2 iteration(s), the table shows 1 finished"),
        "{t}"
    );
}

/// A forged reviewer verdict and a forged acceptance of changed tests are never honoured.
#[test]
fn forged_verdicts_and_acceptances_are_never_used() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    let db = agent(&dir);
    db.execute(
        "INSERT INTO verdicts (run_id, phase, role, round, story_id, session_id, iteration, approve, clean,
           architecture_status, findings_json, output_json, created_at)
         VALUES (?1, 'review', 'reviewer', 1, NULL, 'fake-session', 1, 1, 1, 'clear', '[]', '{}', 0)",
        [&id],
    )
    .unwrap();
    let t = tampered(s.verdicts(&id).unwrap_err());
    assert_eq!(t.findings[0].table, "verdicts");
    db.execute(
        "INSERT INTO events (run_id, at, kind, data_json) VALUES (?1, 0, 'tests_accepted', '{\"who\": \"user\"}')",
        [&id],
    )
    .unwrap();
    let t = tampered(s.last_event(&id, EventKind::TestsAccepted).unwrap_err());
    assert!(t.findings[0].row.contains("kind=tests_accepted"), "{t}");
    let all = s.tampering(&id).unwrap().unwrap().to_string();
    assert!(all.contains("verdicts: 1 row(s) added"), "{all}");
    assert!(all.contains("events: 1 row(s) added"), "{all}");
}

/// Deleting the baseline event (a run without a baseline asks for no proof).
#[test]
fn a_deleted_event_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    s.append_event(Some(&id), EventKind::Baseline, json!({"tree": "t0"}))
        .unwrap();
    s.append_event(Some(&id), EventKind::Note, json!({}))
        .unwrap();
    agent(&dir)
        .execute(
            "DELETE FROM events WHERE run_id = ?1 AND kind = 'baseline'",
            [&id],
        )
        .unwrap();
    let t = s.tampering(&id).unwrap().unwrap();
    assert!(
        t.to_string()
            .contains("events: 1 row(s) of the run removed"),
        "{t}"
    );
}

/// A moved transcript cursor (a turn charged nothing), a rewritten arming.
#[test]
fn session_rows_are_authenticated() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    s.arm_session(
        &id,
        &NewArming {
            expires_at: i64::MAX,
            ..NewArming::default()
        },
    )
    .unwrap();
    s.bind_agent_session(&id, "sess-1", "claude", "startup")
        .unwrap();
    s.set_transcript_cursor("sess-1", "{\"offset\": 10}")
        .unwrap();
    let db = agent(&dir);
    db.execute(
        "UPDATE session_bindings SET transcript_cursor = '{\"offset\": 99999}'",
        (),
    )
    .unwrap();
    assert!(matches!(
        s.transcript_cursor("sess-1").unwrap_err(),
        StoreError::Tampered(_)
    ));
    db.execute(
        "UPDATE session_arming SET turn_started_at = 1790000000000 + 3600000",
        (),
    )
    .unwrap();
    assert!(matches!(
        s.arming(&id).unwrap_err(),
        StoreError::Tampered(_)
    ));
    let t = s.tampering(&id).unwrap().unwrap().to_string();
    assert!(t.contains("session_bindings row session_id=sess-1"), "{t}");
    assert!(t.contains("session_arming"), "{t}");
}

/// Forged evidence of the run is one more finding.
#[test]
fn forged_evidence_of_a_run_is_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    agent(&dir)
        .execute(
            "INSERT INTO evidence (run_id, gate, command, argv_json, cwd, tree_hash, passed, end_kind,
               duration_ms, created_at, mac)
             VALUES (?1, 'test', 'make test', '[]', '/', 'tree-1', 1, 'exited', 1, 0, 'forged')",
            [&id],
        )
        .unwrap();
    let t = s.tampering(&id).unwrap().unwrap().to_string();
    assert!(
        t.contains(
            "evidence row id=1 gate=test: passing evidence for tree tree-1 not written by pawl"
        ),
        "{t}"
    );
    assert_eq!(
        s.cached_evidence("tree-1", "test", "make test", None)
            .unwrap(),
        None
    );
}

/// A pawl with another key (another HOME) is told so, instead of taking every row for forged;
/// a pawl without a key only reads a signed database (an unsigned write would read as forged).
#[test]
fn another_key_is_refused_and_no_key_only_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    drop(s);
    let path = crate::location(&dir);
    let err = Store::open_at(&path, Box::new(pawl_store::SystemClock), Some([8; 32])).unwrap_err();
    assert!(matches!(err, StoreError::WrongKey { .. }), "{err}");
    assert!(err.to_string().contains("HOME"), "{err}");
    let mut s = crate::open_loc(&path).unwrap();
    assert!(s.is_read_only());
    assert_eq!(s.run(&id).unwrap().id, id);
    let err = s
        .append_event(Some(&id), EventKind::Note, json!({}))
        .unwrap_err();
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err}");
    drop(s);
    assert_eq!(open_keyed(&dir).tampering(&id).unwrap(), None);
}

/// The check of a long run, as each Stop's new process makes it: an early row of every kind
/// edited in place (its code kept, the row count unchanged) is found among many honest rows,
/// and bytes where text was, or text that is not UTF-8, are never taken for clean.
#[test]
fn an_edited_early_row_of_a_long_run_is_found_by_a_new_handle() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_keyed(&dir);
    let id = run_with_one_iteration(&mut s);
    for i in 0..40 {
        let n = s
            .begin_iteration(&id, None, &format!("step {i} \"quoted\" \\ é"))
            .unwrap();
        s.append_event(
            Some(&id),
            EventKind::Verification,
            json!({"tree": format!("t{i}"), "checks": [{"name": "test", "passed": true}]}),
        )
        .unwrap();
        s.finish_iteration(
            &id,
            n,
            &IterationEnd {
                cost_usd: 0.25,
                outcome: "completed".into(),
                ..IterationEnd::default()
            },
        )
        .unwrap();
    }
    assert_eq!(open_keyed(&dir).tampering(&id).unwrap(), None);
    let edits: [(&str, &str); 5] = [
        (
            "UPDATE iterations SET cost_usd = 0.0 WHERE run_id = ?1 AND n = 1",
            "iterations row n=1",
        ),
        (
            "UPDATE iterations SET tokens_in = tokens_in + 7 WHERE run_id = ?1 AND n = 2",
            "iterations row n=2",
        ),
        (
            "UPDATE events SET data_json = '{\"tree\": \"t9\"}' WHERE run_id = ?1 AND seq = (SELECT MIN(seq) FROM events WHERE run_id = ?1 AND kind = 'verification')",
            "kind=verification",
        ),
        (
            "UPDATE iterations SET prompt = prompt || ' ' WHERE run_id = ?1 AND n = 3",
            "iterations row n=3",
        ),
        (
            "UPDATE iterations SET mac = NULL WHERE run_id = ?1 AND n = 4",
            "iterations row n=4",
        ),
    ];
    let names = |t: &pawl_store::Tampering, row: &str| {
        t.findings
            .iter()
            .any(|f| format!("{} row {}", f.table, f.row).contains(row))
    };
    let db = agent(&dir);
    for (sql, row) in edits {
        db.execute(sql, [&id]).unwrap();
        let t = open_keyed(&dir).tampering(&id).unwrap().unwrap();
        assert!(names(&t, row), "{sql}: {t}");
    }
    if !db.is_postgres() {
        // Bytes where pawl wrote text (SQLite keeps a column's type per value).
        db.execute(
            "UPDATE iterations SET summary = x'6f6b' WHERE run_id = ?1 AND n = 5",
            [&id],
        )
        .unwrap();
        let t = open_keyed(&dir).tampering(&id).unwrap().unwrap();
        assert!(names(&t, "iterations row n=5"), "{t}");
        db.execute(
            "UPDATE iterations SET summary = CAST(x'ff' AS TEXT) WHERE run_id = ?1 AND n = 6",
            [&id],
        )
        .unwrap();
        let t = open_keyed(&dir).tampering(&id).unwrap().unwrap();
        assert!(names(&t, "iterations row n=6"), "{t}");
    }
}

/// A Stop checks the run's whole state once, then reads and changes it without checking each row
/// again — only while no other connection has committed since (its own writes check and sign
/// what they change). A row forged after that clean check, by another connection to the file,
/// is still found by each read and write that rests on it, and never signed over.
#[test]
fn a_row_forged_after_a_clean_check_is_found_by_the_reads_and_writes_after_it() {
    type Forge = fn(&pawl_store::db::Db, &tempfile::TempDir, &str);
    type Use = fn(&mut Store, &str) -> Result<(), StoreError>;
    let cases: [(&str, Forge, Use); 7] = [
        (
            "the last verification",
            |db, _, id| {
                db.execute(
                    "UPDATE events SET data_json = '{\"tree\": \"forged\"}' WHERE run_id = ?1 AND kind = 'verification'",
                    [id],
                )
                .unwrap();
            },
            |s, id| s.last_event(id, EventKind::Verification).map(|_| ()),
        ),
        (
            "a counted event",
            |db, _, id| {
                db.execute(
                    "UPDATE events SET at = at + 1 WHERE run_id = ?1 AND kind = 'tool_call'",
                    [id],
                )
                .unwrap();
            },
            |s, id| s.count_events_since(id, EventKind::ToolCall, 0).map(|_| ()),
        ),
        (
            "a criterion",
            |db, _, id| {
                db.execute(
                    "UPDATE criteria SET status = 'verified' WHERE run_id = ?1",
                    [id],
                )
                .unwrap();
            },
            |s, id| s.criteria(id).map(|_| ()),
        ),
        (
            "the session arming",
            |db, _, _| {
                db.execute(
                    "UPDATE session_arming SET turn_started_at = 1790000000000 + 3600000",
                    (),
                )
                .unwrap();
            },
            |s, id| s.arming(id).map(|_| ()),
        ),
        (
            "the run's limit, read",
            |db, dir, id| {
                db.execute(
                    "UPDATE runs SET settings_json = ?2 WHERE id = ?1",
                    pawl_store::params![id, raised_limit(dir, id)],
                )
                .unwrap();
            },
            |s, id| s.run(id).map(|_| ()),
        ),
        (
            "the run's limit, under a write",
            |db, dir, id| {
                db.execute(
                    "UPDATE runs SET settings_json = ?2 WHERE id = ?1",
                    pawl_store::params![id, raised_limit(dir, id)],
                )
                .unwrap();
            },
            |s, id| {
                s.append_event(Some(id), EventKind::Note, json!({}))
                    .map(|_| ())
            },
        ),
        (
            "an iteration, under a write",
            |db, _, id| {
                db.execute(
                    "UPDATE iterations SET prompt = 'forged' WHERE run_id = ?1 AND n = 2",
                    [id],
                )
                .unwrap();
            },
            |s, id| {
                s.finish_iteration(
                    id,
                    2,
                    &IterationEnd {
                        outcome: "completed".into(),
                        ..IterationEnd::default()
                    },
                )
            },
        ),
    ];
    for (what, forge, read) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut s = open_keyed(&dir);
        let id = run_with_one_iteration(&mut s);
        s.add_criterion(&id, "reads well", &"review".parse().unwrap())
            .unwrap();
        s.append_event(Some(&id), EventKind::Verification, json!({"tree": "t1"}))
            .unwrap();
        s.append_event(Some(&id), EventKind::ToolCall, json!({"tool": "Bash"}))
            .unwrap();
        s.arm_session(
            &id,
            &NewArming {
                expires_at: i64::MAX,
                ..NewArming::default()
            },
        )
        .unwrap();
        // The second iteration is open: a Stop's.
        assert_eq!(s.begin_iteration(&id, None, "p").unwrap(), 2);
        assert_eq!(s.tampering(&id).unwrap(), None, "{what}");
        // This handle's own write keeps the state known clean; the read works.
        s.append_event(Some(&id), EventKind::Note, json!({}))
            .unwrap();
        assert_eq!(s.tampering(&id).unwrap(), None, "{what}");
        forge(&agent(&dir), &dir, &id);
        let err = read(&mut s, &id).unwrap_err();
        assert!(matches!(err, StoreError::Tampered(_)), "{what}: {err}");
        assert!(s.tampering(&id).unwrap().is_some(), "{what}");
    }
}
