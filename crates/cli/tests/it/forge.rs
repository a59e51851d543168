//! State the agent cannot forge (issue 14, point 3): the attacks an agent with the database file
//! made — measured with `python3 -c "import sqlite3; …"` on `.pawl/pawl.db`, which is how these
//! tests make them too — and what pawl does with the result. Each test states the attack and
//! what used to happen; the assertions are what must hold now.

use std::io::Write as _;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::TestEnv;
use crate::headless::{NO_BREAKERS, config, config_with};

/// Runs SQL on the store the way an agent did: python's sqlite3 on `.pawl/pawl.db`.
fn forge(env: &TestEnv, sql: &str) {
    let out = env
        .command("python3")
        .args([
            "-c",
            "import sqlite3, sys\ndb = sqlite3.connect('.pawl/pawl.db')\nn = db.execute(sys.argv[1]).rowcount\ndb.commit()\nassert n > 0, 'no row changed'",
            sql,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "forging failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn context(r: &crate::Run) -> String {
    format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr)
}

/// A headless run of the replay agent that makes progress but never passes the gate, stopped
/// by `max_iterations = 3`.
fn stopped_at_three() -> TestEnv {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 3", NO_BREAKERS, ""));
    let steps: String = (1..=9)
        .map(|i| {
            format!(
                "{{\"step\": {i}}}\n{{\"do\": \"write\", \"path\": \"work.txt\", \"content\": \"{i}\"}}\n"
            )
        })
        .collect();
    let s = env.scenario("s", &steps);
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 3, "max_iterations", 3);
    env
}

/// The run stopped `tampered` (exit 1), the iteration count untouched, and status and report
/// say what was modified (`what` is in one of the findings).
fn assert_tampered(env: &TestEnv, r: &crate::Run, iterations: i64, what: &str) {
    let ctx = context(r);
    assert_eq!(r.code, 1, "exit code; {ctx}");
    assert_eq!(
        env.run_state(),
        ("stopped".into(), Some("tampered".into())),
        "{ctx}"
    );
    assert_eq!(env.iterations(), iterations, "iterations; {ctx}");
    let report = env.ok(&["report", "--json"]).json();
    assert_eq!(report["stop_reason"], "tampered", "{report}");
    assert_eq!(report["exit_code"], 1, "{report}");
    assert_eq!(report["verdict"], "RESEARCH", "{report}");
    let findings: Vec<String> = report["tampering"]
        .as_array()
        .unwrap_or_else(|| panic!("no tampering in the report: {report}"))
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {}",
                f["table"].as_str().unwrap_or(""),
                f["row"].as_str().unwrap_or(""),
                f["field"].as_str().unwrap_or(""),
                f["what"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert!(
        findings.iter().any(|f| f.contains(what)),
        "{what:?} not in {findings:#?}"
    );
    let md = env.ok(&["report"]).stdout;
    assert!(md.contains("State modified outside pawl"), "{md}");
    let status = env.ok(&["status"]).stdout;
    assert!(status.contains("TAMPERED"), "{status}");
    // Never resumed, even with the user's flags.
    let again = env.pawl(&["resume", "--add-iterations", "5"]);
    assert_eq!(again.code, 1, "{}", context(&again));
    assert!(
        context(&again).contains("never resumed"),
        "{}",
        context(&again)
    );
    assert_eq!(env.iterations(), iterations);
}

/// Measured: the limit raised in the run row (3 → 8) took effect on a plain `pawl resume`,
/// which ran 5 more iterations.
#[test]
fn a_limit_raised_in_the_store_is_never_used_by_resume() {
    let env = stopped_at_three();
    forge(
        &env,
        "UPDATE runs SET settings_json = json_set(settings_json, '$.limits.max_iterations', 8)",
    );
    let r = env.pawl(&["resume"]);
    assert_tampered(
        &env,
        &r,
        3,
        "settings_json.limits.max_iterations was 3, is 8",
    );
    // The limit the run keeps is the signed one.
    let limit: i64 =
        env.count("SELECT json_extract(settings_json, '$.limits.max_iterations') FROM runs");
    assert_eq!(limit, 3);
}

/// A limit raised in `pawl.toml` is not the run's: `pawl resume` keeps the sealed limit.
#[test]
fn a_limit_raised_in_pawl_toml_is_never_used_by_resume() {
    let env = stopped_at_three();
    let toml = std::fs::read_to_string(env.root().join("pawl.toml")).unwrap();
    env.write(
        "pawl.toml",
        &toml.replace("max_iterations = 3", "max_iterations = 8"),
    );
    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 3, "max_iterations", 3);
}

/// The user's `--add-iterations` raises the limit, and the raise is an event saying who and how.
#[test]
fn resume_add_iterations_raises_the_limit_and_records_it() {
    let env = stopped_at_three();
    let r = env.pawl(&["resume", "--add-iterations", "2"]);
    env.assert_end(&r, 3, "max_iterations", 5);
    let change: String = env
        .db()
        .query_row(
            "SELECT data_json FROM events WHERE kind = 'limits_changed'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let change: Value = serde_json::from_str(&change).unwrap();
    assert_eq!(change["why"], "--add-iterations 2");
    assert_eq!(change["before"]["limits"]["max_iterations"], 3);
    assert_eq!(change["after"]["limits"]["max_iterations"], 5);
}

/// Deleting iteration rows to reset the count (3 → 0): the next `pawl resume` used to run three
/// more.
#[test]
fn deleted_iterations_are_detected() {
    let env = stopped_at_three();
    forge(&env, "DELETE FROM iterations");
    let r = env.pawl(&["resume"]);
    assert_tampered(
        &env,
        &r,
        0,
        "iterations   3 row(s) of the run removed (pawl wrote 3, 0 remain)",
    );
}

/// A reviewer verdict added to the store is never honoured: the run that holds it is tampered.
#[test]
fn a_forged_verdict_is_never_honoured() {
    let env = stopped_at_three();
    forge(
        &env,
        "INSERT INTO verdicts (run_id, phase, role, round, story_id, session_id, iteration, approve, clean,
           architecture_status, findings_json, output_json, created_at)
         SELECT id, 'review', 'reviewer', 1, NULL, 'reviewer-session', 3, 1, 1, 'clear', '[]', '{}', 0 FROM runs",
    );
    let r = env.pawl(&["resume"]);
    assert_tampered(&env, &r, 3, "verdicts");
}

// ------------------------------------------------------------------ the tests accepted

const CALC: &str = "def add(a, b):\n    return a - b\n";
const TEST_CALC: &str = "import unittest\n\nfrom calc import add\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";

/// The agent skips the failing test: REVIEW (`tests_changed`). An acceptance of the changed
/// tests forged into the event log used to make the next `pawl resume` end SHIP.
#[test]
fn a_forged_acceptance_of_changed_tests_is_never_honoured() {
    let env = TestEnv::new();
    env.write("calc.py", CALC);
    env.write("test_calc.py", TEST_CALC);
    env.headless(&config_with(
        "max_iterations = 1",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        "python3 -m unittest discover -v",
    ));
    let s = env.scenario(
        "s",
        &format!(
            "{}\n",
            json!({"do": "edit", "path": "test_calc.py", "old": "    def test_add(self):",
                   "new": "    @unittest.skip(\"later\")\n    def test_add(self):"})
        ),
    );
    let r = env.pawl(&["run", "make add() add", "--scenario", &s]);
    env.assert_end(&r, 10, "tests_changed", 1);
    forge(
        &env,
        "INSERT INTO events (run_id, at, kind, data_json)
         SELECT id, 0, 'tests_accepted', '{\"who\": \"user\", \"why\": \"flaky\", \"by\": \"pawl accept\"}' FROM runs",
    );
    let r = env.pawl(&["resume"]);
    assert_tampered(&env, &r, 1, "kind=tests_accepted");
    let report = env.ok(&["report", "--json"]).json();
    assert_ne!(report["verdict"], "SHIP");
}

// ------------------------------------------------------------------ session mode

const CALC_OK: &str = "def add(a, b):\n    return a + b\n";

/// A python project whose test fails, with claude hooks, a run armed and session `s1` bound.
fn session(limits: &str) -> (TestEnv, String) {
    let env = TestEnv::new();
    env.ok(&["init"]);
    env.write("calc.py", CALC);
    env.write("test_calc.py", TEST_CALC);
    env.write(
        "pawl.toml",
        &format!(
            "[agent]\nkind = \"claude\"\n\n[limits]\n{limits}\n\n[breakers]\n{NO_BREAKERS}\n\n[gates]\ntest = \"python3 -m unittest -q\"\n"
        ),
    );
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "project"]);
    let r = env.ok(&["run", "--driver", "session", "make add() add", "--json"]);
    let run = r.json()["run_id"].as_str().unwrap().to_string();
    let a = hook(
        &env,
        "session-start",
        json!({"session_id": "s1", "transcript_path": "/t", "cwd": env.root(),
               "hook_event_name": "SessionStart", "source": "startup"}),
    );
    assert!(a["hookSpecificOutput"].is_object(), "bound: {a}");
    (env, run)
}

fn hook(env: &TestEnv, event: &str, input: Value) -> Value {
    let mut child = env
        .command("pawl")
        .args(["hook", "claude", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn stop(env: &TestEnv) -> Value {
    hook(
        env,
        "stop",
        json!({"session_id": "s1", "cwd": env.root(), "hook_event_name": "Stop",
               "stop_hook_active": false, "last_assistant_message": "Done."}),
    )
}

fn pre_tool_use(env: &TestEnv, command: &str) -> Value {
    hook(
        env,
        "pre-tool-use",
        json!({"session_id": "s1", "cwd": env.root(), "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"}),
    )
}

fn denied(answer: &Value) -> bool {
    answer["hookSpecificOutput"]["permissionDecision"] == "deny"
}

/// The Stop hook answered a run stopped `tampered`: allowed, never as done, saying so; the guard
/// is still on for the session.
fn assert_session_tampered(env: &TestEnv, answer: &Value, what: &str) {
    assert!(answer.get("decision").is_none(), "{answer}");
    let msg = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(msg.contains("stopped: tampered"), "{answer}");
    assert!(!msg.contains("done, verified"), "{answer}");
    assert!(msg.contains(what), "{what:?} not in {msg}");
    assert_eq!(env.run_state(), ("stopped".into(), Some("tampered".into())));
    let report = env.ok(&["report", "--json"]).json();
    assert_eq!(report["verdict"], "RESEARCH", "{report}");
    let md = env.ok(&["report"]).stdout;
    assert!(md.contains(what), "{what:?} not in {md}");
    // Fail closed: the forged state did not switch the guard off, and another Stop does not
    // turn the run into anything else.
    assert!(env.root().join(".pawl/session.json").exists());
    assert!(denied(&pre_tool_use(env, "rm -rf .git")));
    let again = stop(env);
    assert!(
        again["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .contains("stopped: tampered"),
        "{again}"
    );
    // Until the user says so.
    env.ok(&["off"]);
    assert_eq!(pre_tool_use(env, "rm -rf .git"), json!({}));
}

/// Measured: with the run marked `done` in the database, the Stop hook allowed the stop without
/// running a check, and the guard went quiet.
#[test]
fn a_run_forged_to_done_is_not_done_for_the_stop_hook_and_the_guard_stays_on() {
    let (env, _run) = session("max_iterations = 5");
    let first = stop(&env);
    assert_eq!(first["decision"], "block", "the test fails: {first}");
    forge(
        &env,
        "UPDATE runs SET status = 'done', stop_reason = 'verified'",
    );
    // The guard does not go quiet in between (a tool call after the forgery).
    assert!(denied(&pre_tool_use(&env, "rm -rf .git")));
    hook(
        &env,
        "post-tool-use",
        json!({"session_id": "s1", "cwd": env.root(), "hook_event_name": "PostToolUse",
               "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {}}),
    );
    assert!(denied(&pre_tool_use(&env, "rm -rf .git")));
    let answer = stop(&env);
    assert_session_tampered(&env, &answer, "field status: was active, is done");
}

/// Measured: the iteration limit raised from 3 to 500 from inside the session.
#[test]
fn a_limit_raised_during_a_session_is_never_used() {
    let (env, _run) = session("max_iterations = 3");
    assert_eq!(stop(&env)["decision"], "block");
    forge(
        &env,
        "UPDATE runs SET settings_json = json_set(settings_json, '$.limits.max_iterations', 500)",
    );
    let answer = stop(&env);
    assert_session_tampered(
        &env,
        &answer,
        "field settings_json.limits.max_iterations: was 3, is 500",
    );
}

/// Forged passing evidence for the failing tree is never reused: the Stop runs the test, which
/// still fails, and the forged record is reported.
#[test]
fn forged_passing_evidence_is_never_reused_and_is_reported() {
    let (env, _run) = session("max_iterations = 5");
    assert_eq!(stop(&env)["decision"], "block");
    forge(
        &env,
        "INSERT INTO evidence (run_id, gate, command, argv_json, cwd, tree_hash, passed, end_kind,
           exit_code, duration_ms, failing_json, tail, created_at, outcomes_json, seal, mac)
         SELECT run_id, gate, command, argv_json, cwd, tree_hash, 1, end_kind, 0, duration_ms, '[]',
           tail, created_at + 1, outcomes_json, seal, 'forged'
         FROM evidence ORDER BY id DESC LIMIT 1",
    );
    let answer = stop(&env);
    assert_session_tampered(&env, &answer, "passing evidence for tree");
}

/// The Stop hook reuses its last verification when the tree and the checks are unchanged: a
/// forged "every check passed" there used to end the run done without running a check.
#[test]
fn a_forged_last_verification_is_never_reused() {
    let (env, _run) = session("max_iterations = 5");
    assert_eq!(stop(&env)["decision"], "block");
    forge(
        &env,
        "UPDATE events SET data_json = json_set(json_set(json_set(data_json,
            '$.checks[0].passed', json('true')), '$.failing', json('[]')), '$.done', json('true'))
         WHERE seq = (SELECT MAX(seq) FROM events WHERE kind = 'verification')",
    );
    let answer = stop(&env);
    assert_session_tampered(&env, &answer, "kind=verification");
}

/// Honest runs are unaffected: a session run that fixes the bug is done; every row it wrote is
/// signed; a headless run of an honest agent ships.
#[test]
fn honest_runs_still_finish_verified() {
    let (env, run) = session("max_iterations = 5");
    assert_eq!(stop(&env)["decision"], "block");
    env.write("calc.py", CALC_OK);
    let done = stop(&env);
    assert!(
        done["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .contains("done, verified by pawl"),
        "{done}"
    );
    assert_eq!(env.run_state(), ("done".into(), Some("verified".into())));
    for table in [
        "runs",
        "events",
        "iterations",
        "criteria",
        "session_arming",
        "session_bindings",
    ] {
        let unsigned = env.count(&format!("SELECT COUNT(*) FROM {table} WHERE mac IS NULL"));
        assert_eq!(unsigned, 0, "{table} rows without a code");
    }
    let report = env.ok(&["report", &run, "--json"]).json();
    assert!(report.get("tampering").is_none(), "{report}");

    let env = TestEnv::new();
    env.write("calc.py", CALC);
    env.write("test_calc.py", TEST_CALC);
    env.headless(&config_with(
        "max_iterations = 2",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        "python3 -m unittest discover -v",
    ));
    let s = env.scenario(
        "s",
        &format!(
            "{}\n",
            json!({"do": "edit", "path": "calc.py", "old": "a - b", "new": "a + b"})
        ),
    );
    let r = env.pawl(&["run", "make add() add", "--scenario", &s]);
    env.assert_end(&r, 0, "verified", 1);
    assert_eq!(env.ok(&["report", "--json"]).json()["verdict"], "SHIP");
}

/// Without a user state directory there is no key: no run is started whose state an agent could
/// rewrite unseen.
#[test]
fn no_run_starts_without_a_key() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        "{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"x\"}\n",
    );
    let out = env
        .command("pawl")
        .env_remove("HOME")
        .args(["run", "g", "--scenario", &s])
        .output()
        .unwrap();
    let r = crate::Run::from(out);
    assert_eq!(r.code, 1, "{}", context(&r));
    assert!(
        r.stderr.contains("cannot start a run") && r.stderr.contains("Set HOME"),
        "{}",
        r.stderr
    );
    assert_eq!(env.count("SELECT COUNT(*) FROM runs"), 0);
}
