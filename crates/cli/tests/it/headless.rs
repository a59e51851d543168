//! The headless driver end to end: `pawl run` with the scripted (replay) agent and cheap `sh`
//! gates, in temp git repositories. Every test asserts the exit code, the typed stop reason and
//! the exact number of iterations in the store. Limits and breakers are in `headless_limits`,
//! crashes and signals in `headless_faults`.

use std::path::PathBuf;

use crate::TestEnv;

/// The gate every test uses unless it says otherwise: the work is done when `done.txt` exists.
pub const DONE_GATE: &str = "test -f done.txt";

/// Every breaker off: a test turns on only the one it is about.
pub const NO_BREAKERS: &str = "no_progress = 0\nsame_failure = 0\nfile_thrash = 0\nagent_errors = 0\npermission_denials = 0\ncriterion_stuck = 0\n";

/// A `pawl.toml` for a replay-agent run: the given `[limits]`, `[breakers]` and `[stall]` lines
/// on top of test-friendly defaults (no calls-per-hour limit, generous iterations).
pub fn config(limits: &str, breakers: &str, stall: &str) -> String {
    config_with(
        limits,
        breakers,
        stall,
        "[agent]\nkind = \"replay\"\n",
        DONE_GATE,
    )
}

/// `NO_BREAKERS` with the given `key = value` lines turned on.
pub fn only(on: &str) -> String {
    let keys: Vec<&str> = on
        .lines()
        .filter_map(|l| l.split('=').next())
        .map(str::trim)
        .collect();
    let mut out: String = NO_BREAKERS
        .lines()
        .filter(|l| !keys.contains(&l.split('=').next().unwrap_or("").trim()))
        .map(|l| format!("{l}\n"))
        .collect();
    out.push_str(on);
    out
}

pub fn config_with(limits: &str, breakers: &str, stall: &str, agent: &str, gate: &str) -> String {
    // No calls-per-hour limit unless the test sets one.
    let cph = if limits.contains("calls_per_hour") {
        ""
    } else {
        "calls_per_hour = 0\n"
    };
    format!(
        "{agent}\n[limits]\n{cph}{limits}\n\n[breakers]\n{breakers}\n\n[stall]\n{stall}\n\n[gates]\ntest = \"{}\"\n",
        gate.replace('\\', "\\\\").replace('"', "\\\"")
    )
}

/// The pawl binary, for scenario steps that call pawl's own CLI (as a real agent would).
pub fn pawl_bin() -> String {
    assert_cmd::cargo::cargo_bin("pawl").display().to_string()
}

/// The shell line of [`WAIT_FOR_GO`].
pub const WAIT_FOR_GO_SH: &str =
    "touch ../home/marks/step-started; while [ ! -e ../home/marks/go ]; do sleep 0.05; done";

/// A scenario step that says it started (`../home/marks/step-started`, outside the tree) and waits
/// for the test to let it go on (`../home/marks/go`): what the test does meanwhile happens while the
/// agent step runs.
pub const WAIT_FOR_GO: &str = r#"{"do": "run", "command": "touch ../home/marks/step-started; while [ ! -e ../home/marks/go ]; do sleep 0.05; done"}"#;

impl TestEnv {
    /// Runs pawl with `args` while a step waits at [`WAIT_FOR_GO`]: `during` runs once the step
    /// has started, then the step goes on; returns how pawl ended.
    pub fn pawl_during_step(&self, args: &[&str], during: impl FnOnce()) -> crate::Run {
        let mut child = self
            .command("pawl")
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = self.root().join("../home/marks/step-started");
        let patience = std::time::Instant::now();
        while !started.exists() {
            assert!(
                patience.elapsed() < std::time::Duration::from_secs(120),
                "the step never started"
            );
            if let Ok(Some(status)) = child.try_wait() {
                panic!("pawl ended before the step started: {status}");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        during();
        std::fs::write(self.root().join("../home/marks/go"), "").unwrap();
        crate::Run::from(child.wait_with_output().unwrap())
    }

    /// `pawl init`, then this `pawl.toml`, committed: a clean tree on `main` to run on.
    pub fn headless(&self, toml: &str) {
        self.ok(&["init"]);
        self.write("pawl.toml", toml);
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", "pawl config"]);
    }

    /// Writes a replay scenario into `.pawl/` (git-ignored) and returns its path.
    pub fn scenario(&self, name: &str, jsonl: &str) -> String {
        let p: PathBuf = self.root().join(".pawl").join(format!("{name}.jsonl"));
        std::fs::write(&p, jsonl).unwrap();
        p.display().to_string()
    }

    /// `SELECT COUNT(*) FROM iterations`: the number the limits are about.
    pub fn iterations(&self) -> i64 {
        self.db()
            .query_row("SELECT COUNT(*) FROM iterations", [], |r| r.get(0))
            .unwrap()
    }

    /// Outcomes of the iterations, in order.
    pub fn outcomes(&self) -> Vec<String> {
        let db = self.db();
        let mut stmt = db
            .prepare("SELECT COALESCE(outcome, 'open') FROM iterations ORDER BY n")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// The stored prompt of iteration `n`.
    pub fn prompt(&self, n: u32) -> String {
        self.db()
            .query_row("SELECT prompt FROM iterations WHERE n = ?1", [n], |r| {
                r.get(0)
            })
            .unwrap()
    }

    /// (status, stop_reason) of the only run, from the store.
    pub fn run_state(&self) -> (String, Option<String>) {
        self.db()
            .query_row("SELECT status, stop_reason FROM runs", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap()
    }

    pub fn count(&self, sql: &str) -> i64 {
        self.db().query_row(sql, [], |r| r.get(0)).unwrap()
    }

    /// Asserts how a run ended, everywhere it is shown: the exit code, the store, `pawl status
    /// --json`, `pawl report --json` (and the report files), and the iteration count.
    pub fn assert_end(&self, r: &crate::Run, code: i32, reason: &str, iterations: i64) {
        let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
        assert_eq!(r.code, code, "exit code; {ctx}");
        assert_eq!(self.run_state().1.as_deref(), Some(reason), "{ctx}");
        assert_eq!(self.iterations(), iterations, "iterations; {ctx}");
        let status = self.ok(&["status", "--json"]).json();
        assert_eq!(status["run"]["stop_reason"], reason, "{status}");
        let report = self.ok(&["report", "--json"]).json();
        assert_eq!(report["stop_reason"], reason);
        assert_eq!(report["exit_code"], code);
        assert_eq!(
            report["iterations"].as_array().unwrap().len() as i64,
            iterations
        );
        let human = self.ok(&["status"]).stdout;
        assert!(human.contains(&format!("({reason})")), "{human}");
    }

    /// The JSON lines of a `--json` run.
    pub fn events(r: &crate::Run) -> Vec<serde_json::Value> {
        r.stdout
            .lines()
            .filter(|l| l.starts_with('{'))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

#[test]
fn demo_end_to_end_refuses_the_claim_shows_the_failing_test_and_ships() {
    let env = TestEnv::new();
    let dir = env.dir.path().join("demo");
    let r = env.pawl(&["demo", "--dir", dir.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("verdict SHIP"), "{}", r.stdout);
    assert!(r.stdout.contains("[pawl] report: "), "{}", r.stdout);
    let reports: Vec<PathBuf> = std::fs::read_dir(dir.join(".pawl/reports"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let md = reports
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "md"))
        .unwrap();
    let text = std::fs::read_to_string(md).unwrap();
    assert!(text.contains("**Verdict: SHIP**"), "{text}");
    assert!(text.contains("`verified` (exit code 0)"), "{text}");
    assert!(text.contains("pawl rollback --run"), "{text}");
    assert!(text.contains("`calc.sh`"), "files changed: {text}");
    assert!(
        reports
            .iter()
            .any(|p| p.extension().is_some_and(|e| e == "json"))
    );

    let db = rusqlite::Connection::open(dir.join(".pawl/pawl.db")).unwrap();
    let n: i64 = db
        .query_row("SELECT COUNT(*) FROM iterations", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 3);
    let prompt = |n: u32| -> String {
        db.query_row("SELECT prompt FROM iterations WHERE n = ?1", [n], |r| {
            r.get(0)
        })
        .unwrap()
    };
    assert!(prompt(1).starts_with("Goal: make the calculator's tests pass"));
    // Iteration 1 claimed done without a change: the continuation names the failing test.
    let p2 = prompt(2);
    assert!(p2.contains("You said the work was done"), "{p2}");
    assert!(
        p2.contains("failing tests: add_small, add_negative"),
        "{p2}"
    );
    // Iteration 2 made a wrong fix: iteration 3 is told what still fails.
    assert!(prompt(3).contains("add_zero"), "{}", prompt(3));
    let (status, reason): (String, String) = db
        .query_row("SELECT status, stop_reason FROM runs", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((status.as_str(), reason.as_str()), ("done", "verified"));
}

/// The opposite of what `zero_criteria_and_passing_gates_after_iteration_1_is_done` locked in:
/// on a repository whose checks already pass, an agent that changes nothing is never "done" —
/// nothing could have disproved it. The run ends UNPROVEN (exit 5) and says exactly that.
#[test]
fn a_do_nothing_agent_on_a_green_repository_is_unproven_never_ship() {
    let env = TestEnv::new();
    env.headless(&config_with(
        "",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        "true",
    ));
    let s = env.scenario(
        "s",
        r#"{"do": "claim_done", "text": "Everything already works."}"#,
    );
    let r = env.pawl(&["run", "make the parser faster", "--scenario", &s, "--json"]);
    env.assert_end(&r, 11, "unproven", 1);
    let events = TestEnv::events(&r);
    let last = events.last().unwrap();
    assert_eq!(last["verdict"], "UNPROVEN", "{last}");
    let report = env.ok(&["report"]).stdout;
    assert!(report.contains("nothing proves the goal"), "{report}");
}

/// A gate that fails before the run and passes after it: red to green, proven by pawl: SHIP.
#[test]
fn a_gate_that_goes_from_red_to_green_ships() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"do": "write", "path": "done.txt", "content": "ok"}"#,
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s, "--json"]);
    env.assert_end(&r, 0, "verified", 1);
    assert_eq!(env.run_state().0, "done");
    let events = TestEnv::events(&r);
    let last = events.last().unwrap();
    assert_eq!(last["kind"], "report");
    assert_eq!(last["stop_reason"], "verified");
    assert_eq!(last["verdict"], "SHIP");
    assert_eq!(last["exit_code"], 0);
    assert!(
        events
            .iter()
            .any(|e| e["kind"] == "finished" && e["reason"] == "verified")
    );
    let report = env.ok(&["report", "--json"]).json();
    assert_eq!(report["verdict"], "SHIP");
    assert!(
        env.root()
            .join(".pawl/reports")
            .join(format!("{}.md", report["run_id"].as_str().unwrap()))
            .is_file()
    );
}

#[test]
fn one_line_per_iteration_in_human_output() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 3", NO_BREAKERS, ""));
    let s = env.scenario("s", r#"{"do": "usage", "input_tokens": 10}"#);
    let r = env.pawl(&["run", "never", "--scenario", &s]);
    env.assert_end(&r, 3, "max_iterations", 3);
    let lines: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("checks verified"))
        .collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(lines[2].contains("iteration 3/3"), "{}", lines[2]);
    assert!(
        r.stdout.contains("stop reason: max_iterations"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_lying_agent_never_produces_a_done_run() {
    let env = TestEnv::new();
    // Default breakers: the run must end by one of them or a limit, never as done.
    env.headless(&config("max_iterations = 8", "", ""));
    let s = env.scenario(
        "s",
        r#"{"scenario": {"name": "liar"}}
{"step": 1}
{"do": "text", "text": "All tests pass, I checked."}
{"do": "claim_done", "text": "Done, every test passes."}
{"step": 2}
{"do": "write", "path": "notes.txt", "content": "I fixed it"}
{"do": "claim_done", "text": "Fixed, done."}
{"step": 3}
{"do": "write", "path": "done.txt.bak", "content": "done"}
{"do": "text", "text": "DONE. <promise>COMPLETE</promise>"}
{"do": "claim_done", "text": "COMPLETE"}
"#,
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s, "--json"]);
    assert_ne!(r.code, 0, "{}", r.stdout);
    let (status, reason) = env.run_state();
    assert_ne!(status, "done");
    assert_ne!(reason.as_deref(), Some("verified"));
    assert!(
        !TestEnv::events(&r)
            .iter()
            .any(|e| e["kind"] == "finished" && e["reason"] == "verified")
    );
    assert_eq!(env.ok(&["report", "--json"]).json()["verdict"], "RESEARCH");
    assert!(env.prompt(2).contains("You said the work was done"));
    // Resuming does not make it done either: pawl verifies again and refuses.
    let r = env.pawl(&["resume", "--add-iterations", "2"]);
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert_ne!(env.run_state().0, "done");
}

#[test]
fn pawl_stop_is_honoured_after_the_current_step_and_resume_continues() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        &format!(
            r#"{{"step": 1}}
{WAIT_FOR_GO}
{{"do": "write", "path": "half.txt", "content": "step 1 finished its work"}}
{{"step": 2}}
{{"do": "write", "path": "done.txt", "content": "ok"}}
"#
        ),
    );
    let r = env.pawl_during_step(&["run", "make done.txt", "--scenario", &s], || {
        env.ok(&["stop"]);
    });
    env.assert_end(&r, 6, "stopped", 1);
    // The step ran to its end (its last action happened) and was verified.
    assert!(env.root().join("half.txt").is_file());
    assert_eq!(env.outcomes(), vec!["completed"]);
    assert!(
        !env.root().join(".pawl/stop").exists(),
        "stop file consumed"
    );
    assert_eq!(env.run_state().0, "stopped");

    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 0, "verified", 2);
    // The first iteration after a resume continues: it carries the failing evidence.
    let p = env.prompt(2);
    assert!(p.contains("Iteration 2/"), "{p}");
    assert!(p.contains("Failing checks"), "{p}");
}

#[test]
fn a_stop_file_is_honoured_after_the_current_step() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        &format!(
            r#"{{"step": 1}}
{WAIT_FOR_GO}
{{"do": "write", "path": "half.txt", "content": "x"}}
{{"step": 2}}
{{"do": "write", "path": "done.txt", "content": "ok"}}
"#
        ),
    );
    let r = env.pawl_during_step(&["run", "make done.txt", "--scenario", &s], || {
        std::fs::write(env.root().join(".pawl/stop"), "").unwrap();
    });
    env.assert_end(&r, 6, "stopped", 1);
    assert!(env.root().join("half.txt").is_file());
    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 0, "verified", 2);
}

#[test]
fn add_iterations_raises_the_persisted_limit_with_a_limits_changed_event() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 2", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"step": 1}
{"do": "write", "path": "a.txt", "content": "1"}
{"step": 2}
{"do": "write", "path": "a.txt", "content": "2"}
{"step": 3}
{"do": "write", "path": "done.txt", "content": "ok"}
"#,
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s]);
    env.assert_end(&r, 3, "max_iterations", 2);

    // Limits are persisted with the run: a raised pawl.toml does not raise them.
    env.write("pawl.toml", &config("max_iterations = 50", NO_BREAKERS, ""));
    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 3, "max_iterations", 2);
    assert_eq!(
        env.count("SELECT COUNT(*) FROM events WHERE kind = 'limits_changed'"),
        0
    );

    let r = env.pawl(&["resume", "--add-iterations", "1"]);
    env.assert_end(&r, 0, "verified", 3);
    let (n, why): (i64, String) = env
        .db()
        .query_row(
            "SELECT COUNT(*), MAX(json_extract(data_json, '$.why')) FROM events WHERE kind = 'limits_changed'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((n, why.as_str()), (1, "--add-iterations 1"));
    let after: i64 = env.count(
        "SELECT json_extract(data_json, '$.after.limits.max_iterations') FROM events WHERE kind = 'limits_changed'",
    );
    assert_eq!(after, 3);
}

#[test]
fn limits_come_from_pawl_toml_and_flags_override_them() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 5", NO_BREAKERS, ""));
    let s = env.scenario("s", r#"{"do": "usage", "output_tokens": 1}"#);
    let r = env.pawl(&["run", "g", "--scenario", &s, "--max-iterations", "2"]);
    env.assert_end(&r, 3, "max_iterations", 2);
    let settings = env.ok(&["status", "--json"]).json()["run"]["settings"].clone();
    assert_eq!(settings["limits"]["max_iterations"], 2);

    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let s = env.scenario("s", r#"{"do": "usage", "output_tokens": 1}"#);
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 3, "max_iterations", 1);
}

/// Regression: `idle_timeout = "1500ms"` was persisted as "1s" (sub-second durations were
/// rounded down when the run's settings were stored; "500ms" became an idle timeout of 0).
#[test]
fn sub_second_stall_settings_survive_being_stored_with_the_run() {
    let env = TestEnv::new();
    env.headless(&config(
        "",
        NO_BREAKERS,
        "idle_timeout = \"1500ms\"\nstep_timeout = \"90s\"",
    ));
    let s = env.scenario(
        "s",
        r#"{"do": "write", "path": "done.txt", "content": "ok"}"#,
    );
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 0, "verified", 1);
    let settings = env.ok(&["status", "--json"]).json()["run"]["settings"].clone();
    assert_eq!(settings["stall"]["idle_timeout"], "1500ms");
}

/// Regression: an agent handing a blocker to the user (`pawl await-user`) was ignored by the
/// headless loop, which went on spending iterations and ended with another reason. The run must
/// stop after that step with `awaiting_user` (exit 5), stay resumable, and go on once the user
/// says it is fixed.
#[test]
fn a_blocker_handed_to_the_user_stops_the_loop_with_exit_5() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        &format!(
            r#"{{"step": 1}}
{{"do": "run", "command": "{pawl} blocker add 'the API key is missing' && {pawl} await-user B1 'export API_KEY=...'"}}
{{"step": 2}}
{{"do": "write", "path": "done.txt", "content": "ok"}}
"#,
            pawl = pawl_bin()
        ),
    );
    let r = env.pawl(&["run", "g", "--scenario", &s]);
    env.assert_end(&r, 5, "awaiting_user", 1);
    assert_eq!(env.run_state().0, "awaiting_user");
    assert!(r.stdout.contains("export API_KEY=..."), "{}", r.stdout);
    assert!(r.stdout.contains("pawl user-fixed"), "{}", r.stdout);
    // Resuming while the user has not acted stops again at once, without an iteration.
    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 5, "awaiting_user", 1);
    env.ok(&["user-fixed"]);
    let r = env.pawl(&["resume"]);
    env.assert_end(&r, 0, "verified", 2);
}

/// Regression: `pawl cancel` while the headless loop ran was ignored: the loop kept spending
/// iterations on a cancelled run. It now stops after the current step (exit 6, `cancelled`).
#[test]
fn pawl_cancel_during_a_run_stops_the_loop_after_the_step() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        &format!(
            r#"{{"step": 1}}
{WAIT_FOR_GO}
{{"step": 2}}
{{"do": "write", "path": "done.txt", "content": "ok"}}
"#
        ),
    );
    let r = env.pawl_during_step(&["run", "g", "--scenario", &s], || {
        env.ok(&["cancel"]);
    });
    env.assert_end(&r, 6, "cancelled", 1);
    assert_eq!(env.run_state().0, "cancelled");
}

/// Anyone can re-check a SHIP: `pawl verify --run <id>` runs the run's sealed checks again on its
/// recorded final tree, in a room, and says `confirmed`; a run whose recorded "done" tree does
/// not pass (here: its last verification pointed at the pre-run tree) is `false_done`.
#[test]
fn verify_run_rechecks_a_finished_run_on_its_final_tree() {
    let env = TestEnv::new();
    env.headless(&config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"do": "write", "path": "done.txt", "content": "ok"}"#,
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s, "--json"]);
    env.assert_end(&r, 0, "verified", 1);
    let id: String = env
        .db()
        .query_row("SELECT id FROM runs", [], |r| r.get(0))
        .unwrap();
    // The working tree moves on afterwards: the re-check uses the recorded tree, not this one.
    std::fs::remove_file(env.root().join("done.txt")).unwrap();
    let r = env.pawl(&["verify", "--run", &id, "--json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.json()["verdict"], "confirmed", "{}", r.stdout);

    // Poison the record: the last verification claims the pre-run tree, where the gate fails.
    // The event's code no longer verifies: the record is refused as modified outside pawl.
    let baseline: String = env
        .db()
        .query_row(
            "SELECT json_extract(data_json, '$.tree') FROM events WHERE kind = 'baseline'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    env.db()
        .execute(
            "UPDATE events SET data_json = json_set(data_json, '$.tree_hash', ?1)
             WHERE seq = (SELECT MAX(seq) FROM events WHERE kind = 'verification')",
            [&baseline],
        )
        .unwrap();
    let r = env.pawl(&["verify", "--run", &id]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("modified outside pawl") && r.stderr.contains("kind=verification"),
        "{}",
        r.stderr
    );
}

/// The re-check's room has the project's environment, as the run's room has it (issue 30): a
/// gate whose program lives in the git-ignored `node_modules/.bin` passes in the run's room, and
/// `pawl verify --run` confirms it. Before, the `-recheck` room took no environment: the same
/// sealed gate could not start there (exit 127) and an honest SHIP was called `false_done`.
#[test]
fn verify_run_rechecks_with_the_project_s_environment() {
    let env = TestEnv::new();
    env.write(".gitignore", "node_modules/\n");
    env.write(
        "node_modules/donecheck/cli.sh",
        "#!/bin/sh\ntest -f done.txt\n",
    );
    let bin = env.root().join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::set_permissions(
        env.root().join("node_modules/donecheck/cli.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    std::os::unix::fs::symlink("../donecheck/cli.sh", bin.join("donecheck")).unwrap();
    env.headless(&config_with(
        "",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        "donecheck",
    ));
    let s = env.scenario(
        "s",
        r#"{"do": "write", "path": "done.txt", "content": "ok"}"#,
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s, "--json"]);
    env.assert_end(&r, 0, "verified", 1);
    let id: String = env
        .db()
        .query_row("SELECT id FROM runs", [], |r| r.get(0))
        .unwrap();
    let r = env.pawl(&["verify", "--run", &id, "--json"]);
    assert_eq!(
        r.json()["verdict"],
        "confirmed",
        "{}\n{}",
        r.stdout,
        r.stderr
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
}

/// The pre-run proof's room has the project's environment too (issue 30): a criterion the
/// agent adds whose tool lives in `node_modules/.bin` and passes on any tree proves nothing.
/// Before, the `-base` room took no environment: the criterion could not start there, counted
/// as "fails on the pre-run code", and a change that proves nothing shipped.
#[test]
fn a_criterion_is_proved_on_the_pre_run_code_with_the_project_s_environment() {
    let env = TestEnv::new();
    env.write(".gitignore", "node_modules/\n");
    env.write(
        "node_modules/envtool/cli.sh",
        "#!/bin/sh\ntest -f README.md\n",
    );
    env.write("README.md", "hi\n");
    let bin = env.root().join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::set_permissions(
        env.root().join("node_modules/envtool/cli.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    std::os::unix::fs::symlink("../envtool/cli.sh", bin.join("envtool")).unwrap();
    env.headless(&config_with(
        "max_iterations = 1",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        "envtool",
    ));
    let s = env.scenario(
        "s",
        &format!(
            r#"{{"do": "write", "path": "notes.txt", "content": "nothing"}}
{{"do": "run", "command": "{} criterion add 'the tool passes' --verify command:envtool"}}
"#,
            pawl_bin()
        ),
    );
    let r = env.pawl(&["run", "make the tool pass", "--scenario", &s, "--json"]);
    assert_ne!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let report = env.pawl(&["report"]);
    assert!(
        !report.stdout.contains("Verdict: SHIP")
            && !report.stdout.contains("fails on the pre-run code"),
        "{}",
        report.stdout
    );
}

/// Only the user changes a started run's checks: `pawl resume --reseal` takes the gates
/// `pawl.toml` has now, records it as an event, and the run verifies with them from then on
/// (a plain `pawl resume` keeps the seal: `sealed::c14_*`).
#[test]
fn resume_reseal_takes_the_current_gates_and_says_so() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        r#"{"do": "write", "path": "other.txt", "content": "x"}"#,
    );
    let r = env.pawl(&["run", "make other.txt", "--scenario", &s]);
    env.assert_end(&r, 3, "max_iterations", 1);
    let toml = std::fs::read_to_string(env.root().join("pawl.toml")).unwrap();
    env.write(
        "pawl.toml",
        &toml.replace("test -f done.txt", "test -f other.txt"),
    );
    let r = env.pawl(&["resume", "--reseal", "--add-iterations", "1"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let whys = env.strings(
        "SELECT json_extract(data_json, '$.why') FROM events WHERE kind = 'sealed' ORDER BY seq",
    );
    assert_eq!(whys, ["run started", "pawl resume --reseal"]);
    let last =
        env.strings("SELECT command FROM evidence WHERE gate = 'test' ORDER BY id DESC LIMIT 1");
    assert_eq!(last, ["test -f other.txt"]);
    let report = env.ok(&["report"]).stdout;
    assert!(report.contains("Sealed (pawl resume --reseal)"), "{report}");
}

/// `[room] network` is sealed with the run: an agent that turns the checks' network on in
/// `pawl.toml` during the run does not get it, in this process nor in the next (`pawl resume`
/// builds the checks' sandbox again): the checks still see loopback only — one line in
/// `/proc/net/dev` besides its two headers.
#[test]
fn an_agent_cannot_give_the_checks_the_network_by_editing_pawl_toml() {
    let namespaces = std::process::Command::new("unshare")
        .args(["-Urn", "true"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        namespaces || std::env::var_os("CI").is_none(),
        "CI runs where network namespaces exist"
    );
    if !namespaces {
        return;
    }
    let env = TestEnv::new();
    let gate = "test -f done.txt && test $(tail -n +3 /proc/net/dev | wc -l) -eq 1";
    let cfg = config_with(
        "max_iterations = 1",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        gate,
    );
    env.headless(&cfg);
    let opened = format!("{cfg}\n[room]\nnetwork = true\n");
    let lines = [
        serde_json::json!({"step": 1}),
        serde_json::json!({"do": "write", "path": "pawl.toml", "content": opened}),
        serde_json::json!({"step": 2}),
        serde_json::json!({"do": "write", "path": "done.txt", "content": "ok"}),
    ];
    let script: Vec<String> = lines.iter().map(ToString::to_string).collect();
    let s = env.scenario("s", &script.join("\n"));
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s, "--json"]);
    assert_eq!(
        env.run_state().1.as_deref(),
        Some("max_iterations"),
        "{}",
        r.stdout
    );
    let r = env.pawl(&["resume", "--add-iterations", "1", "--json"]);
    let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    // The checks ran on loopback only, so they passed (the edited pawl.toml is a change outside
    // the work, which the verdict may ask about: not what this test is about).
    let reason = env.run_state().1;
    assert!(
        matches!(reason.as_deref(), Some("verified" | "tests_changed")),
        "{reason:?}; {ctx}"
    );
}
