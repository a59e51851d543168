//! `pawl verify`, `pawl detect`, gates in `pawl init`, `pawl story done`, `pawl criterion check`:
//! real gates on small fixture projects (Python unittest, Node's built-in runner, a tiny cargo
//! crate), the tree-hash cache, timeouts, parallel gates, a gate that edits the tree, and the
//! lint-fix loop.

use std::path::PathBuf;

use crate::TestEnv;

use crate::toolchain_env;

impl TestEnv {
    fn pawl_tc(&self, args: &[&str]) -> crate::Run {
        let env = toolchain_env();
        let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        self.pawl_env(args, &pairs)
    }

    fn gates(&self, gates: &[(&str, &str)]) {
        let mut text = String::from("[gates]\n");
        for (k, v) in gates {
            text.push_str(&format!("{k} = {}\n", toml_str(v)));
        }
        self.write("pawl.toml", &text);
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap()
    }
}

fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

const PY_TEST: &str = "import unittest\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n\n    def test_mul(self):\n        self.assertEqual(2 * 3, 7)\n";

fn python_project(env: &TestEnv) {
    env.write("requirements.txt", "");
    env.write("test_calc.py", PY_TEST);
}

#[test]
fn python_fixture_init_detects_gates_and_verify_binds_evidence_to_the_tree() {
    let env = TestEnv::new();
    python_project(&env);
    env.ok(&["init"]);
    let toml = env.read("pawl.toml");
    assert!(toml.contains("# Detected platform: python"), "{toml}");
    assert!(
        toml.contains("test = \"python3 -m unittest discover -v\""),
        "{toml}"
    );

    // Failing test: exit 1, the failing name, counts, log path.
    let r = env.pawl_tc(&["verify"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("test_mul"), "{}", r.stdout);
    assert!(r.stdout.contains("AssertionError: 6 != 7"), "{}", r.stdout);
    assert!(r.stdout.contains("log: .pawl/logs/test-"), "{}", r.stdout);

    env.write("test_calc.py", &PY_TEST.replace("7)", "6)"));
    let r = env.pawl_tc(&["verify", "--json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let j = r.json();
    assert_eq!(j["verified"], true);
    let e = &j["evidence"][0];
    assert_eq!(e["gate"], "test");
    assert_eq!(e["tree_hash"], j["tree"]);
    assert_eq!(e["tests"]["passed"], 2);
    assert_eq!(e["tests"]["failed"], 0);
    assert_eq!(e["tests"]["runner"], "unittest");
    assert_eq!(
        e["argv"],
        serde_json::json!(["/bin/sh", "-c", "python3 -m unittest discover -v"])
    );
    assert_eq!(e["exit_code"], 0);
    assert_eq!(e["output_digest"].as_str().unwrap().len(), 64);
    assert!(env.root().join(e["log_path"].as_str().unwrap()).is_file());
    assert!(e["reused_from"].is_null());
    let tree = j["tree"].as_str().unwrap().to_owned();
    // The tree hash is git's hash of exactly these bytes.
    let staged = env.command("git").args(["add", "-A"]).output().unwrap();
    assert!(staged.status.success());
    let out = env.git(&["write-tree"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), tree);
    env.git(&["reset", "-q"]);

    // Unchanged tree: reused, and said so.
    let r = env.pawl_tc(&["verify"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("reused"), "{}", r.stdout);
    let r = env.pawl_tc(&["verify", "--json"]);
    assert_eq!(r.json()["reused"], serde_json::json!(["test"]));
    assert_eq!(r.json()["evidence"][0]["reused_from"], e["id"]);

    // One byte changed: a cache miss, the gate runs again on the new tree.
    env.write("test_calc.py", &format!("{} ", PY_TEST.replace("7)", "6)")));
    let r = env.pawl_tc(&["verify", "--json"]);
    let j = r.json();
    assert_eq!(j["reused"], serde_json::json!([]));
    assert_ne!(j["tree"].as_str().unwrap(), tree);
    assert!(j["evidence"][0]["reused_from"].is_null());

    // --fresh runs even on an unchanged tree.
    let r = env.pawl_tc(&["verify", "--fresh", "--json"]);
    assert_eq!(r.json()["reused"], serde_json::json!([]));
    let n: i64 = env
        .db()
        .query_row(
            "SELECT COUNT(*) FROM evidence WHERE reused_from IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 4);
}

#[test]
fn node_fixture_runs_its_npm_test_script() {
    let env = TestEnv::new();
    env.write(
        "package.json",
        r#"{"name":"fx","version":"1.0.0","private":true,"scripts":{"test":"node --test"}}"#,
    );
    env.write("test/math.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => { assert.strictEqual(1 + 1, 2); });\n");
    env.ok(&["init"]);
    assert!(
        env.read("pawl.toml").contains("test = \"npm run test\""),
        "{}",
        env.read("pawl.toml")
    );
    let r = env.pawl(&["verify", "--json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.json()["evidence"][0]["exit_code"], 0);

    env.write("test/math.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => { assert.strictEqual(1 + 1, 3); });\n");
    let r = env.pawl(&["verify", "--json"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let e = &r.json()["evidence"][0];
    assert_eq!(e["passed"], false);
    assert_ne!(e["exit_code"], 0);
    assert!(e["tail"].as_str().unwrap().contains("adds"), "{e}");
}

#[test]
fn rust_fixture_detects_cargo_gates_and_runs_cargo_test() {
    let env = TestEnv::new();
    env.write(
        "Cargo.toml",
        "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    env.write("src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(2, 2), 4); }\n    #[test]\n    fn breaks() { assert_eq!(super::add(2, 2), 5, \"math is off\"); }\n}\n");
    env.write(".gitignore", "target/\n");
    env.ok(&["init"]);
    let toml = env.read("pawl.toml");
    assert!(toml.contains("build = \"cargo build --tests\""), "{toml}");
    // `cargo nextest run` (then the doc-tests, which nextest does not run) when cargo-nextest
    // is installed, else `cargo test`.
    assert!(
        toml.contains("test = \"cargo test --no-fail-fast\"")
            || toml.contains(
                "test = \"cargo nextest run --no-fail-fast && cargo test --doc --no-fail-fast\""
            ),
        "{toml}"
    );
    let target = env.dir.path().join("cargo-target");
    let mut vars = toolchain_env();
    vars.push(("CARGO_TARGET_DIR".into(), target.display().to_string()));
    let pairs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let r = env.pawl_env(&["verify", "--gate", "test", "--json"], &pairs);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let e = &r.json()["evidence"][0];
    let runner = e["tests"]["runner"].as_str().unwrap();
    assert!(runner == "cargo-test" || runner == "nextest", "{e}");
    assert_eq!(e["tests"]["passed"], 1);
    assert_eq!(e["tests"]["failed"], 1);
    let failing = e["failing"].as_array().unwrap();
    assert_eq!(failing.len(), 1, "{e}");
    assert!(
        failing[0].as_str().unwrap().ends_with("tests::breaks"),
        "{e}"
    );
    assert!(
        e["first_failure"].as_str().unwrap().contains("math is off"),
        "{e}"
    );
    assert_eq!(e["failure_category"], "test");
    // The build went to the check's own `CARGO_TARGET_DIR`, in its private /tmp: nothing a
    // check writes outside its room outlives it.
    assert!(
        !target.exists(),
        "the check's build outside the room was left on the machine"
    );
}

#[test]
fn a_gate_that_runs_too_long_is_stopped_and_classified_timeout_on_the_story() {
    let env = TestEnv::new();
    env.manual_run("g");
    env.ok(&["story", "add", "slow thing", "--size", "S"]);
    env.ok(&["story", "start", "S1"]);
    // The gate would sleep ten minutes: ending well before proves it was stopped (the bound is
    // generous, for a loaded machine).
    env.gates(&[("test", "sleep 600")]);
    let started = std::time::Instant::now();
    let r = env.pawl(&["verify", "--timeout", "1s", "--json"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(120));
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let j = r.json();
    assert_eq!(j["evidence"][0]["end"], "timed_out");
    assert_eq!(j["evidence"][0]["failure_category"], "timeout");
    assert_eq!(j["failure"]["category"], "timeout");
    assert_eq!(j["failure"]["story_id"], "S1");
    let attempts: i64 = env
        .db()
        .query_row("SELECT attempts FROM stories WHERE id = 'S1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(attempts, 1);
}

#[test]
fn a_missing_tool_is_an_environment_failure() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    env.gates(&[("lint", "no-such-linter-xyz .")]);
    let r = env.pawl(&["verify", "--json"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.json()["evidence"][0]["exit_code"], 127);
    assert_eq!(r.json()["evidence"][0]["failure_category"], "environment");
}

#[test]
fn independent_gates_run_in_parallel() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    // The checks run in the clean room, and nothing they write outside it outlives them: they
    // tell a service on the host when they start and end.
    let clock = crate::service::Service::start(|_, _| "ok".into());
    let stamp = |n: &str| {
        format!(
            "{} >/dev/null; sleep 1; {} >/dev/null",
            clock.ask(&format!("{n}.start")),
            clock.ask(&format!("{n}.end"))
        )
    };
    env.gates(&[("one", &stamp("one")), ("two", &stamp("two"))]);
    let mut toml = env.read("pawl.toml");
    toml.push_str(&format!("\n{}", crate::service::ROOM_NETWORK));
    env.write("pawl.toml", &toml);
    let r = env.pawl(&["verify", "--jobs", "2"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let heard = clock.heard();
    let t = |f: &str| heard.iter().position(|l| l == f).unwrap();
    assert!(
        t("one.start") < t("two.end") && t("two.start") < t("one.end"),
        "the gates did not overlap: {heard:?}"
    );
}

/// Checks run in the clean room: what a gate writes lands there, never in the working tree, and
/// cannot move the tree the evidence is bound to. (In place, a gate that wrote into the tree
/// made the verification fail: "the working tree changed while the checks ran".)
#[test]
fn a_gate_that_writes_files_writes_them_in_the_room_not_the_working_tree() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    env.gates(&[("fmt", "date +%s%N > generated.txt")]);
    let r = env.pawl(&["verify", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let j = r.json();
    assert_eq!(j["verified"], true);
    assert!(j["tree_after"].is_null());
    let cwd = j["evidence"][0]["cwd"].as_str().unwrap();
    assert!(cwd.contains("/rooms/"), "{cwd}");
    assert!(!env.root().join("generated.txt").exists());
    let r = env.pawl(&["verify"]);
    assert!(r.stdout.contains("(reused"), "{}", r.stdout);
}

#[test]
fn story_done_refuses_with_the_failing_evidence_then_accepts_when_green() {
    let env = TestEnv::new();
    python_project(&env);
    env.manual_run("calc");
    env.ok(&["story", "add", "multiply", "--size", "S"]);
    env.ok(&["story", "start", "S1"]);
    let r = env.pawl_tc(&["story", "done", "S1"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("S1 is NOT done"), "{}", r.stdout);
    assert!(
        r.stdout.contains("failing: test_calc.Calc.test_mul"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("first failure:"), "{}", r.stdout);
    assert!(r.stdout.contains("log: .pawl/logs/"), "{}", r.stdout);
    let (status, attempts): (String, i64) = env
        .db()
        .query_row(
            "SELECT status, attempts FROM stories WHERE id = 'S1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((status.as_str(), attempts), ("in_progress", 1));
    let cat: String = env
        .db()
        .query_row(
            "SELECT category FROM failures WHERE story_id = 'S1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(cat, "test");

    env.write("test_calc.py", &PY_TEST.replace("7)", "6)"));
    let r = env.pawl_tc(&["story", "done", "S1"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let status: String = env
        .db()
        .query_row("SELECT status FROM stories WHERE id = 'S1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(status, "done");
}

#[test]
fn story_done_with_nothing_to_verify_refuses() {
    let env = TestEnv::new();
    env.manual_run("g");
    env.write("pawl.toml", "[gates]\n");
    env.ok(&["story", "add", "x", "--size", "S"]);
    let r = env.pawl(&["story", "done", "S1"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("[gates]") && r.stderr.contains("pawl init"),
        "{}",
        r.stderr
    );
    let status: String = env
        .db()
        .query_row("SELECT status FROM stories WHERE id = 'S1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(status, "pending");
}

#[test]
fn command_criteria_are_checked_and_gate_story_done() {
    let env = TestEnv::new();
    env.manual_run("g");
    env.write("pawl.toml", "[gates]\n");
    env.ok(&[
        "criterion",
        "add",
        "the flag file exists",
        "--verify",
        "command:test -f flag",
    ]);
    env.ok(&["criterion", "add", "reviewed", "--verify", "review"]);
    env.ok(&["story", "add", "x", "--size", "S"]);
    env.ok(&["story", "start", "S1"]);

    let r = env.pawl(&["criterion", "check", "C1"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let status = |id: &str| -> String {
        env.db()
            .query_row("SELECT status FROM criteria WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .unwrap()
    };
    assert_eq!(status("C1"), "failed");
    let r = env.pawl(&["story", "done", "S1"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("criterion:C1"), "{}", r.stdout);

    env.write("flag", "");
    let r = env.pawl(&["criterion", "check", "C1", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json()["criterion"]["status"], "verified");
    assert_eq!(status("C1"), "verified");
    let r = env.pawl(&["criterion", "check", "C2"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(env.pawl(&["story", "done", "S1"]).code, 0);
}

#[test]
fn init_adds_gates_to_an_existing_file_keeping_its_formatting_and_never_overwrites() {
    let env = TestEnv::new();
    python_project(&env);
    let mine = "# my settings\n[limits]\nmax_iterations = 7   # keep this comment\n";
    env.write("pawl.toml", mine);
    env.ok(&["init"]);
    let toml = env.read("pawl.toml");
    assert!(toml.starts_with(mine), "{toml}");
    assert!(
        toml.contains("[gates]") && toml.contains("test = \"python3 -m unittest discover -v\""),
        "{toml}"
    );

    let custom = "[gates]\ntest = \"make check\"  # mine\n";
    env.write("pawl.toml", custom);
    env.ok(&["init"]);
    assert_eq!(env.read("pawl.toml"), custom);
}

#[test]
fn detect_json_lists_matches_selection_and_commands() {
    let env = TestEnv::new();
    env.write(
        "package.json",
        r#"{"scripts":{"test":"node --test","lint":"eslint ."}}"#,
    );
    env.write("requirements.txt", "");
    let r = env.ok(&["detect", "--json"]);
    let j = r.json();
    assert_eq!(j["selected"], "python");
    let names: Vec<&str> = j["matched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["python", "node"]);
    assert!(j["reason"].as_str().unwrap().contains("highest priority"));
    assert_eq!(j["commands"]["test"], "python3 -m unittest discover -v");
    // A user descriptor in .pawl/platforms overrides a built-in one.
    env.write(".pawl/platforms/node.toml", "name = \"node\"\nmarkers = [\"package.json\"]\npriority = 99\n[commands]\ntest = \"node --test\"\n");
    let j = env.ok(&["detect", "--json"]).json();
    assert_eq!(j["selected"], "node");
    assert_eq!(j["commands"]["test"], "node --test");
}

#[test]
fn fix_lint_keeps_a_fix_that_stays_green() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    env.write("style.txt", "bad\n");
    env.gates(&[
        ("lint", "grep -q good style.txt"),
        ("lint_fix", "echo good > style.txt"),
        ("test", "true"),
    ]);
    let r = env.pawl(&["verify", "--fix-lint", "--json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.json()["lint_fix"]["result"], "kept");
    assert_eq!(env.read("style.txt"), "good\n");
}

#[test]
fn fix_lint_restores_the_tree_exactly_when_the_fix_breaks_tests() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    env.write("style.txt", "bad\n");
    env.write("README.md", "# demo, edited\n");
    env.gates(&[
        ("lint", "grep -q good style.txt"),
        (
            "lint_fix",
            "echo good > style.txt; touch junk.txt; echo more >> README.md",
        ),
        ("test", "test ! -f junk.txt"),
    ]);
    let status_before =
        String::from_utf8(env.git(&["status", "--porcelain", "-uall"]).stdout).unwrap();
    let tree_before = env.pawl(&["verify", "--json"]).json()["tree"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = env.pawl(&["verify", "--fix-lint", "--json"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let j = r.json();
    assert_eq!(j["lint_fix"]["result"], "reverted");
    assert_eq!(j["lint_fix"]["tree_before"], tree_before.as_str());
    assert_eq!(env.read("style.txt"), "bad\n");
    assert_eq!(env.read("README.md"), "# demo, edited\n");
    assert!(!env.root().join("junk.txt").exists());
    let status_after =
        String::from_utf8(env.git(&["status", "--porcelain", "-uall"]).stdout).unwrap();
    assert_eq!(status_after, status_before);
    assert_eq!(
        env.pawl(&["verify", "--json"]).json()["tree"],
        tree_before.as_str()
    );
}

#[test]
fn verify_without_gates_says_so_and_unknown_gate_is_usage() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    env.write("pawl.toml", "[gates]\n");
    let r = env.pawl(&["verify"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no gates are configured"), "{}", r.stderr);
    env.gates(&[("test", "true")]);
    let r = env.pawl(&["verify", "--gate", "tset"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no gate `tset`"), "{}", r.stderr);
}

/// Evidence pawl did not write itself is never reused, and it is reported: an agent with the
/// database file inserts a passing record for the current (failing) tree; `pawl verify` runs
/// the check anyway (still failing) and names the forged record.
#[test]
fn forged_passing_evidence_is_never_reused_and_is_reported() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    env.gates(&[("test", "test -f done.txt")]);
    let r = env.pawl(&["verify", "--json"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let id = r.json()["evidence"][0]["id"].as_i64().unwrap();
    let n = env
        .db()
        .execute(
            "INSERT INTO evidence (run_id, gate, command, argv_json, cwd, tree_hash, tree_after,
               passed, end_kind, exit_code, signal, duration_ms, test_runner, tests_passed,
               tests_failed, tests_skipped, failing_json, first_failure, failure_category,
               output_digest, tail, log_path, report_path, reused_from, created_at, outcomes_json,
               seal, mac)
             SELECT run_id, gate, command, argv_json, cwd, tree_hash, NULL, 1, end_kind, 0, signal,
               duration_ms, test_runner, tests_passed, tests_failed, tests_skipped, '[]', NULL,
               NULL, output_digest, tail, log_path, report_path, NULL, created_at + 1,
               outcomes_json, seal, 'forged'
             FROM evidence WHERE id = ?1",
            [id],
        )
        .unwrap();
    assert_eq!(n, 1);
    let r = env.pawl(&["verify"]);
    assert_eq!(r.code, 1, "the forged pass was taken: {}", r.stdout);
    assert!(!r.stdout.contains("(reused"), "{}", r.stdout);
    assert!(r.stdout.contains("not written by pawl"), "{}", r.stdout);
}

/// Issue "first hour": "the working tree changed while the checks ran" did not say which files.
/// Something outside the room (a watcher or a leftover process the agent left) moves the tree
/// while a check runs: the message names the path. (A check itself cannot: the repository's
/// path is the room inside its namespace.)
#[test]
fn a_tree_that_moves_during_the_checks_names_what_moved() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    // The check says it runs and waits; the process outside moves the tree, then lets it end.
    // The check writes `started` in the room (in its own overlay layer under the check
    // sandbox: `scratch/*/upper`, else the room's tree) and waits for `go` in a directory of
    // HOME the checks see (their HOME is their own: only its declared entries, such as
    // `~/.local/bin`, are shown, read-only and live).
    let go = env.home.join(".local/bin/go-signal");
    std::fs::create_dir_all(go.parent().unwrap()).unwrap();
    let gate = format!(
        "touch started; while [ ! -e {} ]; do sleep 0.05; done; rm -f started",
        go.display()
    );
    env.gates(&[("touch", gate.as_str())]);
    let rooms = env.home.join(".local/state/pawl/rooms");
    let target = env.root().join("moved.txt");
    let mover = |rooms: PathBuf, target: PathBuf| {
        let go = go.clone();
        let _ = std::fs::remove_file(&go);
        std::thread::spawn(move || {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
            while std::time::Instant::now() < deadline {
                let started = std::fs::read_dir(&rooms)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .flat_map(|room| {
                        let layers = std::fs::read_dir(room.path().join("scratch"))
                            .into_iter()
                            .flatten()
                            .flatten()
                            .map(|l| l.path().join("upper"));
                        layers.chain([room.path().join("tree")]).collect::<Vec<_>>()
                    })
                    .any(|dir| dir.join("started").exists());
                if started {
                    std::fs::write(&target, format!("{:?}\n", std::time::Instant::now())).unwrap();
                    std::fs::write(&go, "").unwrap();
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let t = mover(rooms.clone(), target.clone());
    let r = env.pawl(&["verify"]);
    t.join().unwrap();
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout.contains("changed while the checks ran") && r.stdout.contains("moved.txt"),
        "{}",
        r.stdout
    );
    let t = mover(rooms, target);
    let r = env.pawl(&["verify", "--json"]);
    t.join().unwrap();
    let j = r.json();
    assert!(
        j["moved"]
            .as_array()
            .is_some_and(|m| m.iter().any(|p| p == "moved.txt")),
        "{j}"
    );
}

/// A runner that colours its output: no terminal escape reaches the evidence, `pawl verify`'s
/// text or its JSON.
#[test]
fn terminal_escapes_never_reach_evidence_text_or_json() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    env.gates(&[(
        "test",
        "printf '\\033[31mFAILED\\033[0m \\033[1mtest_add\\033[0m: boom\\n'; exit 1",
    )]);
    let r = env.pawl(&["verify"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("FAILED test_add: boom"), "{}", r.stdout);
    assert!(!r.stdout.contains('\u{1b}'), "{:?}", r.stdout);
    let r = env.pawl(&["verify", "--json", "--fresh"]);
    assert!(!r.stdout.contains("\\u001b"), "{}", r.stdout);
    let tail: String = env
        .db()
        .query_row(
            "SELECT tail FROM evidence ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        tail.contains("FAILED test_add: boom") && !tail.contains('\u{1b}'),
        "{tail:?}"
    );
}

/// Issue 31: the code under test is the agent's. A module the tests import reads pawl's
/// evidence key and rewrites `~/.claude/settings.json` with the hooks gone. Checks ran with the
/// user's full rights (the verification passed, the key was in its log, the settings were
/// rewritten); under the check sandbox the key is hidden and HOME is not writable.
#[test]
fn a_tested_module_can_neither_read_pawls_key_nor_unguard_claude() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    let settings = env.home.join(".claude/settings.json");
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    std::fs::write(&settings, "{\"hooks\":\"pawl\"}").unwrap();
    env.write(
        "spy.py",
        "import os\ntry:\n    KEY = open(os.path.expanduser('~/.local/state/pawl/key'), 'rb').read().hex()\nexcept OSError as e:\n    KEY = 'denied'\nprint('KEY:' + KEY)\ntry:\n    open(os.path.expanduser('~/.claude/settings.json'), 'w').write('{}')\nexcept OSError:\n    pass\n",
    );
    env.write(
        "test_spy.py",
        "import unittest\nimport spy\n\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n",
    );
    env.gates(&[("test", "/usr/bin/python3 -m unittest -v")]);
    // The first verification makes the key (evidence is signed with it).
    let r = env.pawl(&["verify", "--json"]);
    let key = std::fs::read(env.home.join(".local/state/pawl/key")).expect("the key exists");
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let r2 = env.pawl(&["verify", "--fresh", "--json"]);
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\"hooks\":\"pawl\"}",
        "a check rewrote the user's Claude settings"
    );
    let namespaces = std::process::Command::new("unshare")
        .args(["-Urm", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !namespaces {
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "SKIPPED the key half: no mount namespaces here (the key is readable: docs/sandbox.md)"
            );
        }
        return;
    }
    let logs = env.root().join(".pawl/logs");
    for entry in std::fs::read_dir(&logs).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        assert!(
            !text.contains(&hex),
            "{} holds pawl's key",
            entry.path().display()
        );
    }
    assert!(!r.stdout.contains(&hex) && !r2.stdout.contains(&hex));
    assert_eq!(r2.json()["verified"], true, "{}", r2.stdout);
}
