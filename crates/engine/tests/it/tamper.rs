//! The loop with a signed store: an agent step that rewrites the run's state (as an agent with
//! the database file would, with python's sqlite3) ends the drive `tampered` — the forged value
//! is never used — and an honest drive is unaffected.

use pawl_core::StopReason;
use pawl_core::model::RunStatus;
use pawl_engine::LoopEvent;

use crate::Test;
use crate::harness::{Fixture, Scripted, fail, pass};

pub const TESTS: &[Test] = &[
    (
        "an_honest_signed_run_is_verified",
        an_honest_signed_run_is_verified,
    ),
    (
        "a_limit_raised_by_the_agent_step_ends_the_drive_tampered",
        a_limit_raised_by_the_agent_step_ends_the_drive_tampered,
    ),
    (
        "iterations_deleted_by_the_agent_step_end_the_drive_tampered",
        iterations_deleted_by_the_agent_step_end_the_drive_tampered,
    ),
];

const KEY: [u8; 32] = [3; 32];

/// Step 1 runs `sql` on the store (one directory above the repository), then every step edits a
/// file.
fn scenario(sql: &str) -> String {
    let forge = format!(
        "python3 -c \"import sqlite3; db = sqlite3.connect('../pawl.db'); db.execute(\\\"{sql}\\\"); db.commit()\""
    );
    let mut s = String::from("{\"scenario\": {\"name\": \"forger\", \"session_id\": \"s-1\"}}\n");
    for i in 1..=6 {
        s.push_str(&format!("{{\"step\": {i}}}\n"));
        if i == 1 {
            s.push_str(&serde_json::json!({"do": "run", "command": forge}).to_string());
            s.push('\n');
        }
        s.push_str(&format!(
            "{{\"do\": \"write\", \"path\": \"a.txt\", \"content\": \"{i}\\n\"}}\n"
        ));
    }
    s
}

fn an_honest_signed_run_is_verified() {
    let mut f = Fixture::with_key(&scenario("SELECT 1"), |_| {}, Some(KEY));
    let mut agent = f.replay();
    let mut v = Scripted::new(vec![fail("t1", "a"), pass("t2")]);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::Verified);
    assert_eq!(f.store.tampering(&f.run_id).expect("check"), None);
}

fn a_limit_raised_by_the_agent_step_ends_the_drive_tampered() {
    let mut f = Fixture::with_key(
        &scenario(
            "UPDATE runs SET settings_json = json_set(settings_json, '$.limits.max_iterations', 500)",
        ),
        |s| s.limits.max_iterations = 3,
        Some(KEY),
    );
    let mut agent = f.replay();
    let mut v = Scripted::new(vec![fail("t1", "a")]);
    let (end, events) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::Tampered);
    assert!(matches!(
        events.last(),
        Some(LoopEvent::Finished { exit_code: 1, .. })
    ));
    assert_eq!(f.iterations().len(), 1, "no iteration after the forgery");
    let run = f.store.run(&f.run_id).expect("run");
    assert_eq!(run.status, RunStatus::Stopped);
    assert_eq!(run.stop_reason, Some(StopReason::Tampered));
    assert_eq!(run.settings.limits.max_iterations, 3, "the signed limit");
    let event = f
        .store
        .last_event(&f.run_id, pawl_core::EventKind::Tampered)
        .expect("events")
        .expect("a tampered event");
    assert_eq!(
        event.data["findings"][0]["field"],
        "settings_json.limits.max_iterations"
    );
}

fn iterations_deleted_by_the_agent_step_end_the_drive_tampered() {
    let mut f = Fixture::with_key(
        &scenario("DELETE FROM iterations"),
        |s| s.limits.max_iterations = 3,
        Some(KEY),
    );
    let mut agent = f.replay();
    let mut v = Scripted::new(vec![fail("t1", "a")]);
    let (end, _) = f.drive(&mut agent, &mut v);
    assert_eq!(end.reason, StopReason::Tampered);
    let run = f.store.run(&f.run_id).expect("run");
    assert_eq!(run.stop_reason, Some(StopReason::Tampered));
}
