//! The headless loop under faults: provider rate limits (waited out, off the clock), stalls (idle
//! and step timeouts), Ctrl-C once and twice, and kill -9 of pawl at random points followed by
//! `pawl resume`, which must finish the run with nothing lost and nothing counted twice.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::TestEnv;
use crate::headless::{NO_BREAKERS, config, config_with, only};

/// Waits (polling) until `path` exists; panics after a minute. A wait, not an assertion on time.
fn wait_for(path: &Path, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("pawl exited ({status}) before {} appeared", path.display());
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn sigint(child: &Child) {
    let ok = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            stat.rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next())
                != Some("Z")
        }
        Err(_) => false,
    }
}

/// The live processes, except `pawl`, whose command line contains `needle`.
fn step_pids(needle: &str, pawl: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != pawl)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .collect()
}

/// A `kind = "command"` agent running `sh <script>` (the script lives in `.pawl/`).
fn command_agent(env: &TestEnv, script: &str) -> String {
    let p: PathBuf = env.root().join(".pawl/agent.sh");
    std::fs::write(&p, script).unwrap();
    format!(
        "[agent]\nkind = \"command\"\ncommand = [\"sh\", \"{}\"]\n",
        p.display()
    )
}

/// Increments `.pawl/<name>` and leaves the new value in `$c`.
const COUNT: &str = "c=$(cat ../home/marks/calls 2>/dev/null || echo 0); c=$((c+1)); echo $c > ../home/marks/calls\n";

#[test]
fn a_rate_limit_wait_is_not_counted_against_max_time() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    // Call 1 is rate-limited for 3s (longer than the whole 2s budget); the retry does nothing
    // useful; iteration 2 does the work. Counting the wait would stop the run with max_time.
    let agent = command_agent(
        &env,
        &format!(
            "{COUNT}if [ \"$c\" = 1 ]; then\n  echo '{{\"type\":\"rate_limited\",\"retry_after\":{{\"secs\":3,\"nanos\":0}},\"message\":\"HTTP 429 Too Many Requests\"}}'\n  exit 0\nfi\nif [ \"$PAWL_ITERATION\" = 2 ]; then touch done.txt; fi\necho \"call $c\"\n"
        ),
    );
    env.headless(&config_with(
        "max_time = \"2s\"",
        NO_BREAKERS,
        "",
        &agent,
        crate::headless::DONE_GATE,
    ));
    let r = env.pawl(&["run", "g", "--json"]);
    env.assert_end(&r, 0, "verified", 2);
    let calls = std::fs::read_to_string(env.root().join("../home/marks/calls")).unwrap();
    assert_eq!(calls.trim(), "3");
    let waits: Vec<serde_json::Value> = TestEnv::events(&r)
        .into_iter()
        .filter(|e| e["kind"] == "waiting")
        .collect();
    assert_eq!(waits.len(), 1, "{}", r.stdout);
    assert_eq!(waits[0]["seconds"], 3);
    assert!(waits[0]["why"].as_str().unwrap().contains("429"));
    // The wait is in the iteration's duration, not in its active time.
    let (duration, active): (i64, i64) = env
        .db()
        .query_row(
            "SELECT duration_ms, active_ms FROM iterations WHERE n = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(
        duration - active >= 3000,
        "duration {duration} active {active}"
    );
    // Not a failure, not a stall.
    assert_eq!(env.outcomes(), vec!["completed", "completed"]);
    assert_eq!(
        env.count("SELECT COUNT(*) FROM failures WHERE category = 'timeout'"),
        0
    );
}

#[test]
fn rate_limits_without_retry_after_back_off_and_double() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    let agent = command_agent(
        &env,
        &format!(
            "{COUNT}if [ \"$c\" -le 2 ]; then\n  echo '{{\"type\":\"rate_limited\",\"retry_after\":null,\"message\":\"usage limit reached\"}}'\n  exit 1\nfi\ntouch done.txt\n"
        ),
    );
    env.headless(&config_with(
        "",
        &only("agent_errors = 1"),
        "",
        &agent,
        crate::headless::DONE_GATE,
    ));
    // Backoff is 30s then 60s; scaled by 1/100 for the test: 0.3s then 0.6s.
    let r = env.pawl_env(
        &["run", "g", "--json"],
        &[("PAWL_TEST_RATE_LIMIT_SCALE", "0.01")],
    );
    // Exiting non-zero on a rate limit is not an agent error (agent_errors = 1 would trip).
    env.assert_end(&r, 0, "verified", 1);
    let waits = TestEnv::events(&r)
        .into_iter()
        .filter(|e| e["kind"] == "waiting")
        .count();
    assert_eq!(waits, 2, "{}", r.stdout);
    let (duration, active): (i64, i64) = env
        .db()
        .query_row(
            "SELECT duration_ms, active_ms FROM iterations WHERE n = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    // 0.3 + 0.6: the second wait doubled (two equal waits would be 0.6).
    assert!(
        duration - active >= 900,
        "duration {duration} active {active}"
    );
}

#[test]
fn an_idle_agent_is_stopped_and_retried_three_times_then_the_run_stops() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, "idle_timeout = \"300ms\""));
    let s = env.scenario(
        "s",
        r#"{"do": "text", "text": "thinking..."}
{"do": "hang"}"#,
    );
    let r = env.pawl(&["run", "g", "--scenario", &s, "--json"]);
    env.assert_end(&r, 4, "stall_recoveries", 1);
    assert_eq!(env.outcomes(), vec!["idle_timeout"]);
    let recovered = TestEnv::events(&r)
        .into_iter()
        .filter(|e| e["kind"] == "stall_recovered")
        .count();
    assert_eq!(recovered, 3);
    // Four attempts, each recorded as a timeout.
    assert_eq!(
        env.count("SELECT COUNT(*) FROM failures WHERE category = 'timeout'"),
        4
    );
}

#[test]
fn stall_recoveries_are_limited_to_ten_per_run() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    // Each iteration: three silent attempts (stalls), then one that works but does not finish.
    let agent = command_agent(
        &env,
        "f=../home/marks/att-$PAWL_ITERATION; c=$(cat $f 2>/dev/null || echo 0); c=$((c+1)); echo $c > $f\n\
         if [ \"$c\" -le 3 ]; then exec sleep 60; fi\n\
         echo \"iteration $PAWL_ITERATION attempt $c\"\necho $PAWL_ITERATION > work.txt\n",
    );
    env.headless(&config_with(
        "",
        NO_BREAKERS,
        // The working attempt must print within it: 1 s leaves room on a loaded machine.
        "idle_timeout = \"1s\"",
        &agent,
        crate::headless::DONE_GATE,
    ));
    let r = env.pawl(&["run", "g"]);
    // Iterations 1-3: 9 recoveries; iteration 4: the 10th, then the 11th stall ends the run.
    env.assert_end(&r, 4, "stall_recoveries", 4);
    assert_eq!(
        env.count("SELECT COUNT(*) FROM failures WHERE category = 'timeout'"),
        11
    );
}

#[test]
fn a_step_timeout_is_recorded_and_the_loop_goes_on() {
    let env = TestEnv::new();
    env.headless(&config(
        "",
        &only("no_progress = 2"),
        "idle_timeout = \"5m\"\nstep_timeout = \"500ms\"",
    ));
    let s = env.scenario("s", r#"{"do": "sleep", "ms": 30000}"#);
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 4, "no_progress", 2);
    assert_eq!(env.outcomes(), vec!["step_timeout", "step_timeout"]);
    assert_eq!(
        env.count("SELECT COUNT(*) FROM failures WHERE category = 'timeout'"),
        2
    );
}

#[test]
fn first_ctrl_c_stops_after_the_current_step_and_the_run_resumes() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"step": 1}
{"do": "run", "command": "touch ../home/marks/in-step"}
{"do": "sleep", "ms": 1500}
{"do": "write", "path": "half.txt", "content": "step 1 ran to its end"}
{"step": 2}
{"do": "write", "path": "done.txt", "content": "ok"}
"#,
    );
    let mut child = env
        .command("pawl")
        .args(["run", "g", "--scenario", &s])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(&env.root().join("../home/marks/in-step"), &mut child);
    sigint(&child);
    let r = crate::Run::from(child.wait_with_output().unwrap());
    env.assert_end(&r, 6, "stopped", 1);
    assert!(
        r.stderr.contains("stopping after the current step"),
        "{}",
        r.stderr
    );
    assert!(
        env.root().join("half.txt").is_file(),
        "the step ran to its end"
    );
    assert_eq!(env.outcomes(), vec!["completed"]);
    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 0, "verified", 2);
}

#[test]
fn second_ctrl_c_kills_the_hanging_agent_group_and_exits_130() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"step": 1}
{"do": "run", "command": "echo $PPID > ../home/marks/agent.pid.tmp && mv ../home/marks/agent.pid.tmp ../home/marks/agent.pid"}
{"do": "hang"}
{"step": 2}
{"do": "write", "path": "done.txt", "content": "ok"}
"#,
    );
    let mut child = env
        .command("pawl")
        .args(["run", "g", "--scenario", &s])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid_file = env.root().join("../home/marks/agent.pid");
    wait_for(&pid_file, &mut child);
    // The step's processes as this machine sees them (inside its pid namespace the agent's own
    // pids mean nothing out here): every process but pawl whose command line names the
    // scenario — the launcher, the step's init, the replay agent.
    let step = step_pids(&s, child.id());
    assert!(!step.is_empty() && step.iter().all(|p| alive(*p)));
    sigint(&child);
    // Wait until the first press is acknowledged, so the two signals cannot merge into one.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "pawl ended early");
        if line.contains("stopping after the current step") {
            break;
        }
    }
    sigint(&child);
    let out = child.wait_with_output().unwrap();
    let r = crate::Run::from(out);
    env.assert_end(&r, 130, "interrupted", 1);
    let survivors: Vec<u32> = step.iter().copied().filter(|p| alive(*p)).collect();
    assert!(survivors.is_empty(), "{survivors:?} survived the hard stop");
    assert_eq!(env.outcomes(), vec!["stopped"]);
    // Resumable.
    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 0, "verified", 2);
}

/// Regression: a first Ctrl-C (or `pawl stop`) while the agent hung was not honoured: the stall
/// recovery started the agent again, up to three times, and the run ended as a breaker (4).
#[test]
fn stop_requested_during_a_stall_is_not_retried() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, "idle_timeout = \"1s\""));
    let s = env.scenario(
        "s",
        r#"{"do": "run", "command": "touch ../home/marks/in-step"}
{"do": "hang"}"#,
    );
    let mut child = env
        .command("pawl")
        .args(["run", "g", "--scenario", &s])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(&env.root().join("../home/marks/in-step"), &mut child);
    sigint(&child);
    let r = crate::Run::from(child.wait_with_output().unwrap());
    env.assert_end(&r, 6, "stopped", 1);
    assert_eq!(
        env.count("SELECT COUNT(*) FROM failures WHERE category = 'timeout'"),
        1
    );
}

/// Checks the store after crashes: intact, every iteration closed exactly once, nothing counted
/// twice. Right after a kill (`settled = false`) the cut-off iteration may still be open: the
/// next driver closes it.
fn assert_counted_once(env: &TestEnv, settled: bool, ctx: &str) {
    let db = env.db();
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok", "{ctx}");
    let (count, max_n): (i64, i64) = db
        .query_row(
            "SELECT COUNT(*), COALESCE(MAX(n), 0) FROM iterations",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        count, max_n,
        "iteration numbers are 1..=n without gaps: {ctx}"
    );
    let q = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    let open = q("SELECT COUNT(*) FROM iterations WHERE ended_at IS NULL");
    assert!(
        open <= if settled { 0 } else { 1 },
        "{open} open iterations: {ctx}"
    );
    // Each iteration started once and ended once (finished or interrupted).
    assert_eq!(
        q("SELECT COUNT(*) FROM events WHERE kind = 'iteration_started'"),
        count,
        "{ctx}"
    );
    assert_eq!(
        q("SELECT COUNT(*) FROM (SELECT json_extract(data_json, '$.n') AS n, COUNT(*) AS k FROM events
           WHERE kind IN ('iteration_finished', 'iteration_interrupted') GROUP BY n HAVING k > 1)"),
        0,
        "an iteration closed twice or never: {ctx}"
    );
    assert_eq!(
        q(
            "SELECT COUNT(DISTINCT json_extract(data_json, '$.n')) FROM events
           WHERE kind IN ('iteration_finished', 'iteration_interrupted')"
        ),
        count - open,
        "{ctx}"
    );
    // The ledger has at most one row per iteration, and the run's active time is the sum of its
    // iterations' (interrupted ones included), so no time was counted twice.
    assert_eq!(
        q(
            "SELECT COUNT(*) FROM (SELECT scope_id FROM ledger WHERE scope = 'iteration'
           GROUP BY scope_id HAVING COUNT(*) > 1)"
        ),
        0,
        "{ctx}"
    );
    assert_eq!(
        q(
            "SELECT (SELECT active_ms FROM runs) - (SELECT COALESCE(SUM(active_ms), 0) FROM iterations)"
        ),
        0,
        "{ctx}"
    );
}

/// Regression target: a crashed run (lease holder dead) resumes without `--add-*`, the cut-off
/// iteration is recorded as interrupted, and the next prompt continues the work.
#[test]
fn kill_9_mid_step_then_resume_records_the_interrupted_iteration() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"step": 1}
{"do": "run", "command": "touch ../home/marks/in-step"}
{"do": "hang"}
{"step": 2}
{"do": "write", "path": "done.txt", "content": "ok"}
"#,
    );
    let mut child = env
        .command("pawl")
        .args(["run", "g", "--scenario", &s])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&env.root().join("../home/marks/in-step"), &mut child);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(env.run_state().0, "active");
    assert_eq!(env.outcomes(), vec!["open"]);

    let r = env.pawl(&["resume", "--json"]);
    env.assert_end(&r, 0, "verified", 2);
    assert_eq!(env.outcomes(), vec!["interrupted", "completed"]);
    let started = TestEnv::events(&r)
        .into_iter()
        .find(|e| e["kind"] == "started")
        .unwrap();
    assert_eq!(started["resumed"], true);
    assert_eq!(started["interrupted_iterations"], serde_json::json!([1]));
    assert_eq!(
        env.count("SELECT COUNT(*) FROM events WHERE kind = 'lease_takeover'"),
        1
    );
    let p = env.prompt(2);
    assert!(p.contains("Iteration 2/"), "continuation prompt: {p}");
    assert!(p.contains("Failing checks"), "{p}");
    assert_counted_once(&env, true, "after one crash");
}

/// A small deterministic PRNG (xorshift) so a failure reproduces from the printed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn kill_9_at_random_points_then_resume_finishes_with_nothing_counted_twice() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 200", NO_BREAKERS, ""));
    // Sixty slow steps that each change the tree; from step 61 on (repeated) the work is done.
    let mut steps = String::from("{\"scenario\": {\"after_last\": \"repeat\"}}\n");
    for i in 1..=60 {
        steps.push_str(&format!(
            "{{\"step\": {i}}}\n{{\"do\": \"run\", \"command\": \"touch ../home/marks/in-step\"}}\n{{\"do\": \"text\", \"text\": \"step {i}\"}}\n{{\"do\": \"sleep\", \"ms\": 120}}\n{{\"do\": \"usage\", \"input_tokens\": 10, \"cost_usd\": 0.01}}\n{{\"do\": \"write\", \"path\": \"work.txt\", \"content\": \"{i}\"}}\n"
        ));
    }
    steps.push_str(
        "{\"step\": 61}\n{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\"}\n",
    );
    let s = env.scenario("s", &steps);
    // The gate takes a moment too, so kills land during verification as well.
    let seed = 0x9e37_79b9_u64 ^ u64::from(std::process::id());
    let mut rng = Rng(seed);
    let marker = env.root().join("../home/marks/in-step");
    let mut kills = 0;
    for round in 0..120 {
        let args: Vec<&str> = if round == 0 {
            vec!["run", "g", "--scenario", &s]
        } else {
            vec!["resume"]
        };
        let _ = std::fs::remove_file(&marker);
        let mut child = env
            .command("pawl")
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        if round == 0 {
            // The first kill lands inside a step for sure: an iteration is cut off.
            wait_for(&marker, &mut child);
        } else {
            std::thread::sleep(Duration::from_millis(5 + rng.next() % 300));
        }
        if child.try_wait().unwrap().is_some() {
            break; // finished before the kill
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
        assert_counted_once(&env, false, &format!("round {round} (seed {seed:#x})"));
        if env.run_state().0 == "done" {
            break;
        }
    }
    assert!(
        kills >= 10,
        "only {kills} kills (seed {seed:#x}): the test proved little"
    );
    if env.run_state().0 != "done" {
        let r = env.pawl(&["resume"]);
        assert_eq!(r.code, 0, "seed {seed:#x}\n{}\n{}", r.stdout, r.stderr);
    }
    let ctx = format!("after {kills} kills (seed {seed:#x})");
    assert_eq!(
        env.run_state(),
        ("done".into(), Some("verified".into())),
        "{ctx}"
    );
    assert_counted_once(&env, true, &ctx);
    assert!(
        env.outcomes().iter().any(|o| o == "interrupted"),
        "{ctx}: {:?}",
        env.outcomes()
    );
    // Money: every iteration's cost counted once (an interrupted one's too: its step was charged
    // when it ended).
    let report = env.ok(&["report", "--json"]).json();
    let finished_cost: f64 = env
        .db()
        .query_row(
            "SELECT COALESCE(SUM(cost_usd), 0) FROM iterations",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!((report["cost_usd"].as_f64().unwrap() - finished_cost).abs() < 1e-9);
    let ledger_cost: f64 = env
        .db()
        .query_row(
            "SELECT COALESCE(SUM(usd), 0) FROM ledger WHERE scope = 'iteration'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!((ledger_cost - finished_cost).abs() < 1e-9, "{ctx}");
}

/// Issue "first hour": an agent step that finished but whose iteration was cut by a crash
/// while pawl verified it was never charged. What a step spent is charged when the step ends.
#[test]
fn kill_9_during_verification_keeps_what_the_step_spent() {
    let env = TestEnv::new();
    // The gate tells the test it is running (through a service on the host: nothing it writes
    // outside its room outlives it), then takes its time.
    let sync = tempfile::tempdir().unwrap();
    let in_gate = sync.path().join("in-gate");
    let seen = in_gate.clone();
    let service = crate::service::Service::start(move |_, _| {
        std::fs::write(&seen, "").unwrap();
        "ok".into()
    });
    let gate = format!(
        "if [ -f spent.txt ]; then {}; sleep 60; fi; test -f done.txt",
        service.ask("in-gate")
    );
    env.headless(&format!(
        "{}\n{}",
        crate::headless::config_with(
            "max_usd = 10.0",
            NO_BREAKERS,
            "",
            "[agent]\nkind = \"replay\"\n",
            &gate,
        ),
        crate::service::ROOM_NETWORK
    ));
    let s = env.scenario(
        "s",
        r#"{"step": 1}
{"do": "write", "path": "spent.txt", "content": "x"}
{"do": "emit", "event": {"type": "result", "is_error": false, "subtype": "success", "text": "done", "usage": {"input_tokens": 100, "output_tokens": 10, "cache_read_tokens": 0, "cache_write_tokens": 0}, "cost_usd": 0.25, "cost_estimated": false, "num_turns": 1}}
"#,
    );
    let mut child = env
        .command("pawl")
        .args(["run", "g", "--scenario", &s])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&in_gate, &mut child);
    child.kill().unwrap();
    child.wait().unwrap();
    let usd: f64 = env
        .db()
        .query_row("SELECT SUM(cost_usd) FROM iterations", [], |r| r.get(0))
        .unwrap();
    assert!((usd - 0.25).abs() < 1e-9, "charged {usd}");
    let status = env.ok(&["status", "--json"]).json();
    assert_eq!(status["spent"]["usd"], 0.25, "{status}");
    let human = env.ok(&["status"]).stdout;
    assert!(human.contains("$0.25 of $10.00"), "{human}");
}
