//! Failure evidence for the runners people use (issue 17, point 6), against real recorded
//! output (tests/fixtures/README.md says how each was made): the ids, counts, outcomes and
//! first failure that become the baseline and the agent's continuation prompt.

use pawl_core::failure::FailureCategory;
use pawl_verify::classify::classify_check;
use pawl_verify::parse::{Runner, TestStatus, TestSummary, parse_any};
use pawl_verify::text::strip_ansi;
use pawl_verify::{CheckEnd, Diagnostics, parse_diagnostics};

use crate::fixture;

use TestStatus::{Failed as F, Passed as P, Skipped as S};

fn counts(s: &TestSummary) -> (u64, u64, u64) {
    (s.passed, s.failed, s.skipped)
}

fn ids(s: &TestSummary) -> Vec<(&str, TestStatus)> {
    s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect()
}

fn parse(command: &str, stdout: &str, stderr: &str) -> TestSummary {
    let out = if stdout.is_empty() {
        String::new()
    } else {
        fixture(stdout)
    };
    let err = if stderr.is_empty() {
        String::new()
    } else {
        fixture(stderr)
    };
    parse_any(command, &out, &err, None)
        .unwrap_or_else(|| panic!("{command}: {stdout} {stderr} not parsed"))
}

/// A check's tail as the runner keeps it (`out| ` / `err| ` lines).
fn tail_of(stdout: &str, stderr: &str) -> String {
    let mut t = String::new();
    for l in fixture(stdout).lines() {
        t.push_str(&format!("out| {l}\n"));
    }
    for l in fixture(stderr).lines() {
        t.push_str(&format!("err| {l}\n"));
    }
    t
}

// ------------------------------------------------------------------------------ node:test

/// The ids of tests/fixtures/{tap,node}: node:test's nested subtests by their path of names;
/// the suites and the parent test are not tests of their own.
const NODE_IDS: [(&str, TestStatus); 8] = [
    ("adds", P),
    ("subtracts", F),
    ("later", S),
    ("someday", S),
    ("math > multiplies", P),
    ("math > nested > divides", F),
    ("parent > child ok", P),
    ("parent > child bad", F),
];

const NODE_FAILING: [&str; 3] = ["subtracts", "math > nested > divides", "parent > child bad"];

#[test]
fn node_test_tap_names_nested_subtests_by_their_path() {
    let s = parse("node --test", "tap/node-test.stdout", "");
    assert_eq!(s.runner, Runner::NodeTest);
    // Leaves only: node itself says `# pass 3`, `# fail 4` (the parent), `# skipped 1`, `# todo 1`.
    assert_eq!(counts(&s), (3, 3, 2));
    assert_eq!(ids(&s), NODE_IDS);
    assert_eq!(s.failing, NODE_FAILING);
    assert_eq!(
        s.first_failure.as_deref(),
        Some(
            "subtracts\nlocation: '/tmp/fx/nodetest/test/calc.test.js:6:1'\nerror: |-\n  Expected values to be strictly equal:\n\n  4 !== 2\n\ncode: 'ERR_ASSERTION'\nname: 'AssertionError'\nexpected: 2\nactual: 4\noperator: 'strictEqual'"
        )
    );
}

#[test]
fn npm_test_printing_node_tap_is_sniffed() {
    let s = parse(
        "npm test",
        "tap/npm-node-test.stdout",
        "tap/npm-node-test.stderr",
    );
    assert_eq!(s.runner, Runner::NodeTest);
    assert_eq!(counts(&s), (3, 3, 2));
    assert_eq!(ids(&s), NODE_IDS);
}

#[test]
fn node_test_spec_reporter_gives_the_ids_of_its_tap_reporter() {
    for command in ["node --test --test-reporter=spec", "npm test"] {
        let s = parse(command, "node/spec.stdout", "");
        assert_eq!(s.runner, Runner::NodeTest, "{command}");
        assert_eq!(counts(&s), (3, 3, 2));
        assert_eq!(ids(&s), NODE_IDS);
        assert_eq!(s.failing, NODE_FAILING);
        assert_eq!(
            s.first_failure.as_deref(),
            Some(
                "subtracts\nAssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n4 !== 2\nat TestContext.<anonymous> (/tmp/fx/nodetest/test/calc.test.js:6:34)"
            )
        );
    }
}

// ------------------------------------------------------------------------------ tape, nyc, ava

#[test]
fn tape_names_tests_by_their_comment_and_counts_tests_not_assertions() {
    let s = parse("tape test/*.js", "tap/tape.stdout", "");
    assert_eq!(s.runner, Runner::Tap);
    // tape says `# tests 6`, `# pass 4`, `# fail 2`: assertions.
    assert_eq!(counts(&s), (2, 1, 2));
    assert_eq!(
        ids(&s),
        [
            ("adds", P),
            ("subtracts", F),
            ("later", S),
            // `t.ok(false)` in a `{ todo: true }` test: `not ok 5 not yet # TODO`.
            ("todo one", S),
            ("plan", P),
        ]
    );
    assert_eq!(s.failing, ["subtracts"]);
    assert_eq!(
        s.first_failure.as_deref(),
        Some(
            "subtracts\nthree minus one\noperator: equal\nexpected: 2\nactual:   4\nat: Test.<anonymous> (/tmp/fx/tape/test/calc.js:11:5)"
        )
    );
}

#[test]
fn nyc_coverage_table_is_not_the_first_failure() {
    let s = parse("npm test", "tap/nyc-tape.stdout", "tap/nyc-tape.stderr");
    assert_eq!(s.runner, Runner::Tap);
    assert_eq!(counts(&s), (2, 1, 2));
    let first = s.first_failure.clone().unwrap();
    assert!(first.starts_with("subtracts\nthree minus one\n"), "{first}");
    let failure = classify_check(
        "test",
        &CheckEnd::Exited { code: 1 },
        false,
        Some(&s),
        None,
        &tail_of("tap/nyc-tape.stdout", "tap/nyc-tape.stderr"),
    )
    .unwrap();
    assert_eq!(failure.category, FailureCategory::Test);
    assert_eq!(
        failure.message,
        "test: 1 test failed (subtracts): subtracts | three minus one | operator: equal"
    );
}

#[test]
fn nyc_threshold_failure_names_the_threshold_not_the_table() {
    let s = parse(
        "npm test",
        "tap/nyc-threshold.stdout",
        "tap/nyc-threshold.stderr",
    );
    assert_eq!((counts(&s), ids(&s)), ((1, 0, 0), vec![("adds", P)]));
    let failure = classify_check(
        "test",
        &CheckEnd::Exited { code: 1 },
        false,
        Some(&s),
        None,
        &tail_of("tap/nyc-threshold.stdout", "tap/nyc-threshold.stderr"),
    )
    .unwrap();
    assert!(
        failure
            .message
            .ends_with("ERROR: Coverage for statements (50%) does not meet global threshold (90%)"),
        "{}",
        failure.message
    );
    assert!(!failure.message.contains("% Stmts"), "{}", failure.message);
    assert!(!failure.message.contains("---|"), "{}", failure.message);
}

#[test]
fn ava_tap_reporter() {
    let s = parse("npx ava --tap", "tap/ava.stdout", "");
    assert_eq!(s.runner, Runner::Tap);
    // ava says `# fail 3`: it counts the todo as a failure.
    assert_eq!(counts(&s), (1, 2, 2));
    assert_eq!(
        ids(&s),
        [
            ("later", S),
            ("someday", S),
            ("adds", P),
            ("subtracts", F),
            ("objects", F)
        ]
    );
    assert_eq!(s.failing, ["subtracts", "objects"]);
    assert_eq!(
        s.first_failure.as_deref(),
        Some(
            "subtracts\nname: AssertionError\nassertion: t.is()\ndetails:\n  'Difference (- actual, + expected):': |-\n    - 4\n    + 2\nmessage: ''\nat: 'ExecutionContext.is (file:///tmp/fx/js/node_modules/ava/lib/assert.js:309:16)'"
        )
    );
}

// ------------------------------------------------------------------------------ mocha

/// mocha's full titles, the same under the spec, JSON and TAP reporters.
const MOCHA_IDS: [(&str, TestStatus); 7] = [
    ("root level", P),
    ("Calc adds", P),
    ("Calc subtracts", F),
    ("Calc multiplies later", S),
    ("Calc nested divides", F),
    ("Calc nested rounds", S),
    ("Hooks \"before each\" hook for \"never runs\"", F),
];

const MOCHA_FAILING: [&str; 3] = [
    "Calc subtracts",
    "Calc nested divides",
    "Hooks \"before each\" hook for \"never runs\"",
];

#[test]
fn mocha_spec_reporter() {
    for (command, out) in [
        ("npx mocha", "mocha/spec.stdout"),
        ("npx mocha --color", "mocha/spec-color.stdout"),
        ("npm test", "mocha/npm-test.stdout"),
        ("npm test", "mocha/spec-color.stdout"),
    ] {
        let s = parse(command, out, "");
        assert_eq!(s.runner, Runner::Mocha, "{command} {out}");
        assert_eq!(counts(&s), (2, 3, 2), "{out}");
        assert_eq!(ids(&s), MOCHA_IDS, "{out}");
        assert_eq!(s.failing, MOCHA_FAILING, "{out}");
        assert_eq!(
            s.first_failure.as_deref(),
            Some(
                "Calc subtracts\nAssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n4 !== 2\n\n+ expected - actual\n\n-4\n+2\nat Context.<anonymous> (test/calc.spec.js:6:40)"
            ),
            "{out}"
        );
    }
}

#[test]
fn mocha_json_reporter_on_stdout_and_as_a_report() {
    let json = fixture("mocha/report.json");
    let on_stdout = parse_any("npx mocha --reporter json", &json, "", None).unwrap();
    let sniffed = parse_any("npm test", &json, "", None).unwrap();
    let report = parse_any(
        "npx mocha --reporter json --reporter-option output={report}",
        "",
        "",
        Some(&json),
    )
    .unwrap();
    let unknown_command_report = parse_any("make test", "", "", Some(&json)).unwrap();
    for s in [on_stdout, sniffed, report, unknown_command_report] {
        assert_eq!(s.runner, Runner::Mocha);
        assert_eq!(counts(&s), (2, 3, 2));
        assert_eq!(ids(&s), MOCHA_IDS);
        assert_eq!(s.failing, MOCHA_FAILING);
        assert_eq!(
            s.first_failure.as_deref(),
            Some(
                "Calc subtracts\nAssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n4 !== 2\nat Context.<anonymous> (test/calc.spec.js:6:40)"
            )
        );
    }
}

#[test]
fn mocha_tap_reporter_gives_the_spec_ids() {
    let s = parse("npx mocha --reporter tap", "tap/mocha.stdout", "");
    assert_eq!(s.runner, Runner::Mocha);
    assert_eq!(counts(&s), (2, 3, 2));
    assert_eq!(ids(&s), MOCHA_IDS);
    let first = s.first_failure.unwrap();
    assert!(
        first.starts_with("Calc subtracts\nExpected values to be strictly equal:\n\n4 !== 2"),
        "{first}"
    );
    assert!(
        first.ends_with("at Context.<anonymous> (test/calc.spec.js:6:40)"),
        "{first}"
    );
    // Sniffed without the command, it is plain TAP with the same ids.
    let s = parse("npm test", "tap/mocha.stdout", "");
    assert_eq!((s.runner, ids(&s)), (Runner::Tap, MOCHA_IDS.to_vec()));
}

// ------------------------------------------------------------------------------ rustc, clippy

fn diagnostics(command: &str, stdout: &str, stderr: &str) -> Diagnostics {
    let out = if stdout.is_empty() {
        String::new()
    } else {
        fixture(stdout)
    };
    parse_diagnostics(command, &out, &fixture(stderr)).unwrap()
}

const CLIPPY_FIRST: &str = "error: unused variable: `unused`\n --> src/lib.rs:2:9\n  |\n2 |     let unused = 3;\n  |         ^^^^^^ help: if this is intentional, prefix it with an underscore: `_unused`\n  |\n  = note: `-D unused-variables` implied by `-D warnings`\n  = help: to override `-D warnings` add `#[allow(unused_variables)]`";

#[test]
fn clippy_with_denied_warnings_gives_its_first_error_whole() {
    let d = diagnostics(
        "cargo clippy --all-targets -- -D warnings",
        "",
        "rustc/clippy-deny.stderr",
    );
    // Three lints, printed once although cargo checked the lib and its tests.
    assert_eq!((d.errors, d.warnings, d.warnings_denied), (3, 0, true));
    assert_eq!(d.first_error.as_deref(), Some(CLIPPY_FIRST));
    assert_eq!(d.first_location.as_deref(), Some("src/lib.rs:2:9"));
    let failure = classify_check(
        "lint",
        &CheckEnd::Exited { code: 101 },
        false,
        None,
        Some(&d),
        &tail_of("rustc/clippy-deny.stderr", "rustc/clippy-deny.stderr"),
    )
    .unwrap();
    assert_eq!(failure.category, FailureCategory::Code);
    assert_eq!(
        failure.message,
        format!("lint: exit 101: 3 errors (warnings denied by -D warnings):\n{CLIPPY_FIRST}")
    );
}

#[test]
fn clippy_json_messages_give_the_same_first_error() {
    let d = diagnostics(
        "cargo clippy --message-format=json -- -D warnings",
        "rustc/clippy-json.stdout",
        "rustc/clippy-json.stderr",
    );
    assert_eq!((d.errors, d.warnings, d.warnings_denied), (3, 0, true));
    assert_eq!(d.first_error.as_deref(), Some(CLIPPY_FIRST));
    assert_eq!(d.first_location.as_deref(), Some("src/lib.rs:2:9"));
}

#[test]
fn an_error_after_a_warning_is_the_first_error() {
    let d = diagnostics(
        "cargo clippy --all-targets",
        "",
        "rustc/clippy-mixed.stderr",
    );
    assert_eq!((d.errors, d.warnings, d.warnings_denied), (1, 1, false));
    assert_eq!(
        d.first_error.as_deref(),
        Some(
            "error[E0308]: mismatched types\n --> src/lib.rs:7:5\n  |\n6 | pub fn half(x: u64) -> i32 {\n  |                        --- expected `i32` because of return type\n7 |     x / 2\n  |     ^^^^^ expected `i32`, found `u64`\n  |\nhelp: you can convert a `u64` to an `i32` and panic if the converted value doesn't fit\n  |\n7 |     (x / 2).try_into().unwrap()\n  |     +     +++++++++++++++++++++"
        )
    );
    assert_eq!(d.describe(), "1 error, 1 warning");
}

#[test]
fn a_build_error_is_classified_code_with_its_location_not_the_tail() {
    let d = diagnostics("cargo build", "", "rustc/build.stderr");
    assert_eq!((d.errors, d.warnings), (2, 0));
    assert_eq!(d.first_location.as_deref(), Some("src/lib.rs:3:20"));
    // A build gate with no command hint still finds rustc's shape in the output.
    let sniffed = diagnostics("just build", "", "rustc/build.stderr");
    assert_eq!(sniffed, d);
    let failure = classify_check(
        "build",
        &CheckEnd::Exited { code: 101 },
        false,
        None,
        Some(&d),
        &tail_of("rustc/build.stderr", "rustc/build.stderr"),
    )
    .unwrap();
    assert_eq!(failure.category, FailureCategory::Code);
    assert_eq!(
        failure.message,
        "build: exit 101: 2 errors:\nerror[E0425]: cannot find value `missing` in this scope\n --> src/lib.rs:3:20\n  |\n3 |     left + right + missing\n  |                    ^^^^^^^ not found in this scope"
    );
}

// ------------------------------------------------------------------------------ unittest

const SUBTEST_IDS: [(&str, TestStatus); 9] = [
    ("tests.test_sub.TestNumbers.test_all_sub_pass", P),
    // The parent keeps the id it has when it passes; each failing subtest gets its own.
    ("tests.test_sub.TestNumbers.test_even", F),
    ("tests.test_sub.TestNumbers.test_even[i=1]", F),
    ("tests.test_sub.TestNumbers.test_even[i=3]", F),
    ("tests.test_sub.TestNumbers.test_even[i=5]", F),
    ("tests.test_sub.TestNumbers.test_msg", F),
    ("tests.test_sub.TestNumbers.test_msg[second case]", F),
    ("tests.test_sub.TestNumbers.test_plain", P),
    ("tests.test_sub.TestNumbers.test_skipped", S),
];

const SUBTEST_FAILING: [&str; 4] = [
    "tests.test_sub.TestNumbers.test_msg[second case]",
    "tests.test_sub.TestNumbers.test_even[i=1]",
    "tests.test_sub.TestNumbers.test_even[i=3]",
    "tests.test_sub.TestNumbers.test_even[i=5]",
];

#[test]
fn unittest_subtests_get_bracketed_ids_and_do_not_garble_names() {
    let s = parse(
        "python3 -m unittest discover -v",
        "",
        "unittest/subtest-verbose.stderr",
    );
    assert_eq!(s.runner, Runner::Unittest);
    // `Ran 5 tests`, `FAILED (failures=3, errors=1, skipped=1)`: two tests passed.
    assert_eq!(counts(&s), (2, 4, 1));
    assert_eq!(ids(&s), SUBTEST_IDS);
    assert_eq!(s.failing, SUBTEST_FAILING);
    assert_eq!(
        s.first_failure.as_deref(),
        Some("tests.test_sub.TestNumbers.test_msg[second case]: ValueError: boom")
    );
}

#[test]
fn unittest_subtests_without_v_and_before_python_3_11() {
    let plain = parse(
        "python3 -m unittest discover",
        "",
        "unittest/subtest-plain.stderr",
    );
    assert_eq!(counts(&plain), (2, 4, 1));
    assert_eq!(plain.failing, SUBTEST_FAILING);
    let mut failed: Vec<(&str, TestStatus)> = SUBTEST_IDS
        .iter()
        .copied()
        .filter(|(_, s)| *s == F)
        .collect();
    let mut got = ids(&plain);
    failed.sort();
    got.sort();
    assert_eq!(got, failed);
    // 3.10: `test_even (m.C) ... test_msg (m.C) ... test_plain (m.C) ... ok` on one line.
    let old = parse(
        "python3 -m unittest discover -v",
        "",
        "unittest/subtest-verbose-3.10.stderr",
    );
    assert_eq!(counts(&old), (2, 4, 1));
    let mut got = ids(&old);
    got.sort();
    let mut want = SUBTEST_IDS.to_vec();
    want.sort();
    assert_eq!(got, want);
}

// ------------------------------------------------------------------------------ go

#[test]
fn go_test_real_outputs_name_packages_tests_and_subtests() {
    let first = "TestSub/positive\ncalc_test.go:14: Sub(3, 1) = 4, want 2";
    let plain = parse(
        "go test ./...",
        "go/real-plain.stdout",
        "go/real-plain.stderr",
    );
    assert_eq!(plain.runner, Runner::GoTest);
    // Without -v only failures are named; the package that did not build is one failure.
    assert_eq!(counts(&plain), (0, 2, 0));
    assert_eq!(
        plain.failing,
        ["TestSub/positive", "example.com/shop/broken"]
    );
    assert_eq!(
        ids(&plain),
        [
            ("example.com/shop/broken", F),
            ("example.com/shop/calc/TestSub", F),
            ("example.com/shop/calc/TestSub/positive", F),
        ]
    );
    assert_eq!(plain.first_failure.as_deref(), Some(first));
    let verbose = parse("go test -v ./...", "go/real-v.stdout", "go/real-v.stderr");
    assert_eq!(counts(&verbose), (2, 2, 1));
    assert_eq!(
        ids(&verbose),
        [
            ("example.com/shop/broken", F),
            ("example.com/shop/calc/TestAdd", P),
            ("example.com/shop/calc/TestSub", F),
            ("example.com/shop/calc/TestSub/positive", F),
            ("example.com/shop/calc/TestSub/zero", P),
            ("example.com/shop/calc/TestLater", S),
        ]
    );
    assert_eq!(verbose.first_failure.as_deref(), Some(first));
    // Go 1.19's -json: the package that did not build is plain text, outside the stream.
    let json = parse(
        "go test -json ./...",
        "go/real-json.stdout",
        "go/real-json.stderr",
    );
    assert_eq!(counts(&json), (2, 2, 1));
    assert_eq!(
        json.failing,
        ["TestSub/positive", "example.com/shop/broken"]
    );
    let mut got = ids(&json);
    let mut want = ids(&verbose);
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(json.first_failure.as_deref(), Some(first));
}

#[test]
fn a_go_build_failure_alone_shows_the_compiler_error() {
    let s = parse_any(
        "go test ./...",
        "FAIL\texample.com/shop/broken [build failed]\nFAIL\n",
        &fixture("go/real-plain.stderr"),
        None,
    )
    .unwrap();
    assert_eq!(counts(&s), (0, 1, 0));
    assert_eq!(
        s.first_failure.as_deref(),
        Some(
            "example.com/shop/broken\nbroken/broken.go:3:34: cannot use x / 2 (value of type int) as type string in return statement"
        )
    );
}

// ------------------------------------------------------------------------------ ANSI

#[test]
fn escapes_written_into_a_junit_report_never_reach_the_summary() {
    let xml = fixture("pytest/color-junit.xml");
    assert!(xml.contains("#x1B["));
    let s = parse_any(
        "pytest --color=yes -rA --junitxml={report}",
        &fixture("pytest/color-rA.stdout"),
        "",
        Some(&xml),
    )
    .unwrap();
    assert_eq!(ids(&s), [("test_c.test_eq", F)]);
    assert_eq!(
        s.first_failure.as_deref(),
        Some(
            "test_c::test_eq\nAssertionError: assert {'a': 1, 'b': [1, 2]} == {'a': 1, 'b': [1, 3]}\n\n  Omitting 1 identical items, use -vv to show\n  Differing items:\n  {'b': [1, 2]} != {'b': [1, 3]}\n  Use -v to get more diff"
        )
    );
    // The coloured console alone.
    let console = parse_any(
        "pytest --color=yes -rA",
        &fixture("pytest/color-rA.stdout"),
        "",
        None,
    )
    .unwrap();
    let first = console.first_failure.clone().unwrap();
    assert!(
        !first.contains('\u{1b}') && !first.contains("[0m"),
        "{first}"
    );
    assert_eq!(ids(&console), [("test_c.py::test_eq", F)]);
}

#[test]
fn strip_ansi_is_public_for_prompts_and_reports() {
    assert_eq!(
        strip_ansi("\u{1b}[31mFAIL\u{1b}[0m #x1B[1mbold#x1B[0m &#x1B;[2mdim&#x1B;[0m"),
        "FAIL bold dim"
    );
}

/// node's JUnit reporter puts test cases right under `<testsuites>` and names every class
/// `test`: the ids are `test.<name>`, without the suites' path (the counts match its TAP).
#[test]
fn node_test_junit_report_reads_cases_outside_any_suite() {
    let s = parse_any(
        "node --test --test-reporter=junit --test-reporter-destination={report}",
        "",
        "",
        Some(&fixture("node/junit.xml")),
    )
    .unwrap();
    assert_eq!(s.runner, Runner::NodeTest);
    assert_eq!(counts(&s), (3, 3, 2));
    assert_eq!(
        ids(&s),
        [
            ("test.adds", P),
            ("test.subtracts", F),
            ("test.later", S),
            ("test.someday", S),
            ("test.multiplies", P),
            ("test.divides", F),
            ("test.child ok", P),
            ("test.child bad", F),
        ]
    );
    assert_eq!(
        s.first_failure.as_deref(),
        Some("test::subtracts\nExpected values to be strictly equal:4 !== 2")
    );
}
