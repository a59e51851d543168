//! Every limit and circuit breaker of the headless loop, end to end: each trips with its own
//! typed reason and exit code at exactly its threshold (the iteration count is read from the
//! store), and one below the threshold does not trip. Each test turns on only the rule it is
//! about (`NO_BREAKERS` otherwise).

use crate::TestEnv;
use crate::headless::{NO_BREAKERS, config, only, pawl_bin};

/// A step that changes the tree (so it is progress) without making the gate pass.
fn progress_step(i: u32) -> String {
    format!(
        "{{\"step\": {i}}}\n{{\"do\": \"write\", \"path\": \"work.txt\", \"content\": \"{i}\"}}\n"
    )
}

#[test]
fn max_iterations_trips_at_exactly_n() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 3", NO_BREAKERS, ""));
    let steps: String = (1..=5).map(progress_step).collect();
    let s = env.scenario("s", &steps);
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 3, "max_iterations", 3);
}

#[test]
fn max_usd_trips_at_exactly_its_threshold() {
    let env = TestEnv::new();
    // 0.25 a step: 0.75 after three (< 1), 1.00 after four (= 1: the limit is reached).
    env.headless(&config("max_usd = 1.0", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"do": "usage", "input_tokens": 10, "cost_usd": 0.25}"#,
    );
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 3, "max_usd", 4);
    let report = env.ok(&["report", "--json"]).json();
    assert_eq!(report["cost_usd"], 1.0);
}

#[test]
fn max_usd_flag_overrides_the_config() {
    let env = TestEnv::new();
    env.headless(&config("max_usd = 100.0", NO_BREAKERS, ""));
    let s = env.scenario("s", r#"{"do": "usage", "cost_usd": 0.5}"#);
    let r = env.pawl(&["run", "g", "--scenario", &s, "--max-usd", "1"]);
    env.assert_end(&r, 3, "max_usd", 2);
}

#[test]
fn max_tokens_trips_at_exactly_its_threshold() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    // 60 in + 40 out = 100 a step; 300 reached after three.
    let s = env.scenario(
        "s",
        r#"{"do": "usage", "input_tokens": 60, "output_tokens": 40}"#,
    );
    let r = env.pawl(&["run", "g", "--scenario", &s, "--max-tokens", "300"]);
    env.assert_end(&r, 3, "max_tokens", 3);
    assert_eq!(env.ok(&["report", "--json"]).json()["tokens"], 300);
}

#[test]
fn max_time_stops_before_another_iteration_once_the_budget_is_spent() {
    let env = TestEnv::new();
    // A generous budget: steps 1-2 must fit in it even on a loaded machine; step 3 alone
    // outlasts it.
    env.headless(&config("max_time = \"4s\"", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"step": 1}
{"do": "write", "path": "a.txt", "content": "1"}
{"step": 2}
{"do": "write", "path": "a.txt", "content": "2"}
{"step": 3}
{"do": "sleep", "ms": 4300}
{"do": "write", "path": "a.txt", "content": "3"}
"#,
    );
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 3, "max_time", 3);
}

/// Regression: the wall-time budget was only looked at between steps, so one long step could run
/// far past `max_time` (up to `step_timeout`). A step now ends when the budget does.
#[test]
fn max_time_cuts_off_a_step_that_would_outlast_the_budget() {
    let env = TestEnv::new();
    env.headless(&config(
        "max_time = \"1s\"",
        NO_BREAKERS,
        "idle_timeout = \"5m\"\nstep_timeout = \"5m\"",
    ));
    let s = env.scenario("s", r#"{"do": "sleep", "ms": 60000}"#);
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 3, "max_time", 1);
    assert_eq!(env.outcomes(), vec!["step_timeout"]);
    assert_eq!(
        env.count("SELECT COUNT(*) FROM failures WHERE category = 'timeout'"),
        1
    );
}

#[test]
fn no_progress_trips_at_exactly_its_threshold() {
    let env = TestEnv::new();
    env.headless(&config("", &only("no_progress = 3"), ""));
    // The agent does nothing: same tree, nothing newly verified.
    let s = env.scenario("s", r#"{"do": "usage", "input_tokens": 1}"#);
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 4, "no_progress", 3);
}

/// Resuming a run a breaker stopped gives the breaker a fresh window (half-open): the agent
/// gets `no_progress` more steps, not one.
#[test]
fn resuming_after_a_breaker_starts_its_window_again() {
    let env = TestEnv::new();
    env.headless(&config("", &only("no_progress = 2"), ""));
    let s = env.scenario("s", r#"{"do": "usage", "input_tokens": 1}"#);
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 4, "no_progress", 2);
    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 4, "no_progress", 4);
    let ev = env.ok(&["events", "--json"]).stdout;
    assert!(ev.contains("\"breakers_reset\""), "{ev}");
}

#[test]
fn no_progress_counts_from_the_last_tree_change() {
    let env = TestEnv::new();
    env.headless(&config("", &only("no_progress = 2"), ""));
    // 1: change (progress), 2: nothing, 3: change, 4: nothing, 5: nothing -> trips at 5.
    let s = env.scenario(
        "s",
        r#"{"scenario": {"after_last": "repeat"}}
{"step": 1}
{"do": "write", "path": "a.txt", "content": "1"}
{"step": 2}
{"do": "usage", "input_tokens": 1}
{"step": 3}
{"do": "write", "path": "a.txt", "content": "3"}
{"step": 4}
{"do": "usage", "input_tokens": 1}
"#,
    );
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 4, "no_progress", 5);
}

#[test]
fn same_failure_trips_at_exactly_its_threshold_even_while_the_tree_changes() {
    let env = TestEnv::new();
    env.headless(&config("", &only("same_failure = 3"), ""));
    let steps: String = (1..=6).map(progress_step).collect();
    let s = env.scenario("s", &steps);
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 4, "same_failure", 3);
}

#[test]
fn file_thrash_trips_on_the_iteration_that_edits_a_file_n_times() {
    let env = TestEnv::new();
    env.headless(&config("", &only("file_thrash = 5"), ""));
    let edits = |n: u32, step: u32| -> String {
        let mut s = format!("{{\"step\": {step}}}\n");
        for i in 0..n {
            s.push_str(&format!(
                "{{\"do\": \"write\", \"path\": \"f.txt\", \"content\": \"{step}-{i}\"}}\n"
            ));
        }
        s
    };
    // Step 1: four edits (below), step 2: five (at the threshold).
    let s = env.scenario("s", &format!("{}{}", edits(4, 1), edits(5, 2)));
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 4, "file_thrash", 2);
}

#[test]
fn file_content_oscillating_a_b_a_is_thrash() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"step": 1}
{"do": "write", "path": "f.txt", "content": "A"}
{"step": 2}
{"do": "write", "path": "f.txt", "content": "B"}
{"step": 3}
{"do": "write", "path": "f.txt", "content": "A"}
{"step": 4}
{"do": "write", "path": "done.txt", "content": "too late"}
"#,
    );
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 4, "file_thrash", 3);
}

#[test]
fn agent_errors_in_a_row_trip_at_exactly_the_threshold() {
    let env = TestEnv::new();
    env.headless(&config("", &only("agent_errors = 3"), ""));
    // Errors in 1, a clean step in 2 (resets the count), then errors in 3, 4, 5.
    let s = env.scenario(
        "s",
        r#"{"step": 1}
{"do": "exit", "code": 1}
{"step": 2}
{"do": "write", "path": "a.txt", "content": "2"}
{"step": 3}
{"do": "error", "message": "API error 500", "recoverable": true}
{"step": 4}
{"do": "exit", "code": 2}
{"step": 5}
{"do": "exit", "code": 1, "silent": true}
"#,
    );
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 4, "agent_errors", 5);
    assert_eq!(
        env.outcomes(),
        vec![
            "agent_error",
            "completed",
            "agent_error",
            "agent_error",
            "agent_error"
        ]
    );
}

#[test]
fn permission_denials_in_a_row_trip_at_the_default_of_two() {
    let env = TestEnv::new();
    env.headless(&config("", &only("permission_denials = 2"), ""));
    let s = env.scenario(
        "s",
        r#"{"do": "permission_denied", "tool": "Bash", "detail": "rm -rf / is not allowed"}"#,
    );
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 4, "permission_denials", 2);
}

#[test]
fn a_repeated_output_is_a_reasoning_loop_after_three() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"do": "text", "text": "Let me look at the tests again."}"#,
    );
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 4, "reasoning_loop", 3);
}

/// Starts a headless run that stops before its first iteration (a stop request is already
/// there), so the test can add criteria and stories to it before resuming.
fn prepared_run(env: &TestEnv, scenario: &str) {
    let s = env.scenario("s", scenario);
    std::fs::write(env.root().join(".pawl/stop"), "").unwrap();
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 6, "stopped", 0);
}

#[test]
fn a_criterion_unmet_n_times_is_stuck() {
    let env = TestEnv::new();
    env.headless(&config("", &only("criterion_stuck = 3"), ""));
    let steps: String = (1..=6).map(progress_step).collect();
    prepared_run(&env, &steps);
    env.ok(&[
        "criterion",
        "add",
        "the answer file exists",
        "--verify",
        "command:test -f answer.txt",
    ]);
    env.write("done.txt", "the gate passes; the criterion does not");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "gate passes"]);
    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 4, "criterion_stuck", 3);
    let report = env.ok(&["report", "--json"]).json();
    assert_eq!(report["criteria"][0]["status"], "failed");
    assert_eq!(report["verdict"], "RESEARCH");
}

#[test]
fn a_story_out_of_attempts_is_skipped_and_the_run_moves_on() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let mut steps: String = (1..=2).map(progress_step).collect();
    steps.push_str(
        "{\"step\": 3}\n{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\"}\n",
    );
    prepared_run(&env, &steps);
    env.ok(&[
        "story",
        "add",
        "first",
        "--size",
        "S",
        "--max-attempts",
        "2",
    ]);
    env.ok(&[
        "story",
        "add",
        "second",
        "--size",
        "S",
        "--max-attempts",
        "2",
    ]);
    let r = env.pawl(&["resume", "--json"]);
    env.assert_end(&r, 0, "verified", 3);
    let skipped: Vec<serde_json::Value> = TestEnv::events(&r)
        .into_iter()
        .filter(|e| e["kind"] == "story_skipped")
        .collect();
    assert_eq!(skipped.len(), 1, "{}", r.stdout);
    assert_eq!(skipped[0]["attempts"], 2);
    let stories = env.ok(&["report", "--json"]).json()["stories"].clone();
    assert_eq!(stories[0]["status"], "skipped");
    // Iteration 3 worked on the second story.
    let story3: String = env
        .db()
        .query_row("SELECT story_id FROM iterations WHERE n = 3", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(Some(story3.as_str()), stories[1]["id"].as_str());
}

#[test]
fn the_run_stops_only_when_no_story_can_progress() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let steps: String = (1..=8).map(progress_step).collect();
    prepared_run(&env, &steps);
    env.ok(&[
        "story",
        "add",
        "first",
        "--size",
        "S",
        "--max-attempts",
        "2",
    ]);
    env.ok(&[
        "story",
        "add",
        "second",
        "--size",
        "S",
        "--max-attempts",
        "1",
    ]);
    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 4, "no_story_can_progress", 3);
}

#[test]
fn calls_per_hour_waits_instead_of_failing() {
    let env = TestEnv::new();
    env.headless(&config("calls_per_hour = 2", NO_BREAKERS, ""));
    let steps: String = (1..=4).map(progress_step).collect();
    let s = env.scenario("s", &steps);
    // The hour window is real: after two calls pawl must wait about an hour. Read the event
    // stream until the wait is announced, then ask the loop to stop (it wakes up and stops).
    let mut child = env
        .command("pawl")
        .args(["run", "g", "--scenario", &s, "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let mut seen = Vec::new();
    let waiting = loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("pawl ended before waiting:\n{}", seen.join("\n")))
            .unwrap();
        let ev: serde_json::Value = serde_json::from_str(&line).unwrap();
        seen.push(line);
        if ev["kind"] == "waiting" {
            break ev;
        }
    };
    std::fs::write(env.root().join(".pawl/stop"), "").unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(6), "{}", rest.join("\n"));
    let secs = waiting["seconds"].as_u64().unwrap();
    assert!((3000..=3600).contains(&secs), "{waiting}");
    assert!(
        waiting["why"].as_str().unwrap().contains("2 agent calls"),
        "{waiting}"
    );
    // Exactly two calls were made: the third waited.
    assert_eq!(env.iterations(), 2);
    assert_eq!(env.run_state().1.as_deref(), Some("stopped"));
}

/// A helper for tests that need pawl itself inside a step (kept here so the path is built once).
#[test]
fn a_step_can_report_through_pawls_cli() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        &format!(
            r#"{{"do": "run", "command": "{} note 'chose the simple fix' && touch done.txt"}}"#,
            pawl_bin()
        ),
    );
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 0, "verified", 1);
    assert_eq!(
        env.count("SELECT COUNT(*) FROM notes WHERE text = 'chose the simple fix'"),
        1
    );
}
