//! Parsers read agent-influenced text: random input must never panic, for every runner,
//! with and without a report, and through the sniffing path; nor may the diagnostics reader
//! or the escape stripper. What a summary says carries no terminal escapes.

use std::collections::HashSet;

use pawl_verify::parse::{MAX_TESTS, Runner, TestStatus, TestSummary, parse_any, parse_as};
use pawl_verify::parse_diagnostics;
use pawl_verify::text::strip_ansi;
use proptest::prelude::*;

use crate::fixture;

const ESC: char = '\u{1b}';

/// Fragments of real output, so random inputs reach deep into the parsers, not just the
/// "not recognised" exit.
fn fragments() -> Vec<String> {
    let mut v: Vec<String> = [
        "test result: FAILED. 1 passed; 1 failed; 0 ignored;",
        "test x ... FAILED\n---- x stdout ----\nthread 'x' panicked at a:1:1:\n",
        "     Summary [ 0.1s] 3 tests run: 1 passed (1 slow, ",
        "        FAIL [ 0.01s] (",
        "=== 1 failed, 2 passed in 0.1s ===",
        "FAILED a.py::t - x\n____ t ____\nE   boom\n",
        "Ran 3 tests in 0.1s\n\nFAILED (failures=",
        "FAIL: t (m.C.t)\n-----\n",
        "Tests:       1 failed, 2 passed, 3 total\n  ● a › b\n",
        "      Tests  1 failed | 2 passed (3)\n FAIL  a > b\n",
        "{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"T/x\"}\n",
        "--- FAIL: T (0.00s)\n    --- FAIL: T/a (",
        "Failed!  - Failed: 1, Passed: x\n  Failed N [1 ms]\n  Error Message:\n",
        "Test run summary: Failed!\n  total: 1\n  failed: ",
        "{\"type\":\"test\",\"event\":\"failed\",\"name\":\"a\",\"stdout\":\"",
        "<testsuite><testcase name=\"a\"><failure message=\"",
        "<TestRun><Results><UnitTestResult outcome=\"Failed\" testName=\"",
        "{\"numPassedTests\":1,\"numFailedTests\":1,\"numTotalTests\":2,\"testResults\":[",
        "\u{1b}[31m\u{1b}[",
        "é€𝄞",
        // Lines that name single tests.
        "test a::b ... ok\ntest c ... ignored, slow\n",
        "        PASS [   0.01s] (1/2) demo a\n        SKIP [ ] demo b\n       FLAKY 2/2 [ ",
        "tests/t.py::test_a[x y] PASSED   [ 50%]\n",
        "[gw0] [ 50%] XFAIL tests/t.py::test_b\nXPASS t.py::c - r\n",
        "test_x (m.C.test_x)\nDoc ... words ... ok\nUNEXPECTED SUCCESS: t (m.C.t)\n",
        "PASS a.test.js\n  d\n    ✓ t (1 ms)\n    ○ skipped s\n  ✎ todo z\n  ● d › t\n",
        " ✓ a.test.js > d > t 1ms\n ↓ a.test.js > s\n FAIL  b.test.js [ b.test.js ]\n",
        "--- PASS: TestA (0.00s)\nok  \tex.com/p\t0.01s\n--- SKIP: T",
        "  Passed N.C.M [1 ms]\n  Skipped N.C.S [< 1 ms]\npassed N.C.X (1ms)\n",
        "<testsuite><testcase classname=\"c\" name=\"n\"><skipped type=\"pytest.xfail\"/></testcase>",
        "{\"ancestorTitles\":[\"d\"],\"title\":\"t\",\"status\":\"todo\"}",
        // TAP, node:test, mocha, rustc.
        "TAP version 13\n# Subtest: a\n    # Subtest: b\n    not ok 1 - b\n      ---\n      error: |-\n",
        "ok 1 - x # SKIP\nnot ok 2 y # TODO\n  ---\n  stack: |-\n    at x (node:a)\n  ...\n1..2\n",
        "# adds\nok 1 should\n# SKIP later\n# TODO t\nnot ok 2 z # TODO\n# tests 2\n# pass 1\n",
        "not ok 3 Calc x\n  Expected\n      at Context.<anonymous> (t.js:1:1)\nBail out! db\n",
        "▶ s\n  ✔ a (1ms)\n  ✖ b (2.5ms)\n    Error: x\n        at y (t.js:1:1) {\n  ✖ s (3ms)\n﹣ c (0ms) # r\nℹ tests 3\nℹ pass 1\n✖ failing tests:\n",
        "  Calc\n    ✔ adds (105ms)\n    1) subtracts\n    - later\n\n  1 passing (5ms)\n  1 pending\n  1 failing\n\n  1) Calc\n       subtracts:\n     Error: x\n",
        "{\"stats\":{\"passes\":1,\"failures\":1},\"tests\":[{\"fullTitle\":\"a\",\"err\":{\"stack\":\"",
        "error[E0308]: mismatched types\n --> src/lib.rs:7:5\n  |\n7 |     x\n\nwarning: `x` (lib) generated 1 warning\n",
        "src/a.rs:1:1: error: x\n{\"reason\":\"compiler-message\",\"message\":{\"level\":\"error\",\"rendered\":\"",
        "test_x (m.C.test_x) [a [b] (i=1) ... FAIL\nFAIL: t (m.C.t) (i=\ntest_a (m.C) ... test_b (m.C) ... ",
        "FAIL\tex.com/p [build failed]\n# ex.com/p\n./a.go:1: x\n",
        "#x1B[0m#x1B[&#x1B;[31m&#27;[\u{9b}3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for f in [
        "cargo/test.stdout",
        "nextest/run.stderr",
        "jest/human.stderr",
        "jest/verbose.stderr",
        "vitest/verbose.stdout",
        "pytest/verbose.stdout",
        "unittest/more-verbose.stderr",
        "go/json.stdout",
        "go/plain-v.stdout",
        "go/real-json.stdout",
        "tap/node-test.stdout",
        "tap/tape.stdout",
        "tap/ava.stdout",
        "tap/mocha.stdout",
        "node/spec.stdout",
        "mocha/spec.stdout",
        "mocha/spec-color.stdout",
        "mocha/report.json",
        "rustc/clippy-deny.stderr",
        "rustc/clippy-json.stdout",
        "unittest/subtest-verbose.stderr",
        "unittest/subtest-verbose-3.10.stderr",
        "pytest/color-junit.xml",
    ] {
        v.push(fixture(f));
    }
    v
}

fn mixed_text() -> impl Strategy<Value = String> {
    let frags = fragments();
    prop::collection::vec(
        prop_oneof![
            any::<String>(),
            prop::sample::select(frags)
                .prop_flat_map(|f| {
                    let len = f.chars().count();
                    (Just(f), 0..=len, 0..=len)
                })
                .prop_map(|(f, a, b)| f.chars().skip(a.min(b)).take(a.max(b) - a.min(b)).collect()),
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

/// What every summary keeps to, whatever the input: a bounded list of unique, non-empty ids,
/// and a failed outcome always counts as a reported failure.
fn check_tests(s: &TestSummary) -> Result<(), TestCaseError> {
    prop_assert!(s.tests.len() <= MAX_TESTS);
    let mut seen = HashSet::new();
    for t in &s.tests {
        prop_assert!(!t.id.trim().is_empty(), "empty id in {:?}", s.tests);
        prop_assert_eq!(t.id.trim(), t.id.as_str());
        prop_assert!(seen.insert(t.id.as_str()), "duplicate id {:?}", t.id);
    }
    if s.tests.iter().any(|t| t.status == TestStatus::Failed) {
        prop_assert!(s.reported_failures() > 0);
    }
    let texts = s
        .tests
        .iter()
        .map(|t| t.id.as_str())
        .chain(s.failing.iter().map(String::as_str))
        .chain(s.first_failure.as_deref());
    for text in texts {
        let stripped = strip_ansi(text);
        prop_assert_eq!(stripped.as_ref(), text, "escapes left in {:?}", text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn no_parser_panics_on_text(text in mixed_text(), report in proptest::option::of(mixed_text())) {
        for runner in Runner::ALL {
            for s in [
                parse_as(runner, &text, &text, report.as_deref()),
                parse_as(runner, &text, "", None),
            ]
            .into_iter()
            .flatten()
            {
                check_tests(&s)?;
            }
        }
        if let Some(mut s) = parse_any("", &text, "", report.as_deref()) {
            check_tests(&s)?;
            s.relativize_ids(&["/tmp", "", "/"]);
            check_tests(&s)?;
        }
        if let Some(s) = parse_any("cargo test", "", &text, None) {
            check_tests(&s)?;
        }
    }

    #[test]
    fn no_parser_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        for runner in Runner::ALL {
            if let Some(s) = parse_as(runner, &text, "", Some(&text)) {
                check_tests(&s)?;
            }
        }
        if let Some(s) = parse_any("", &text, &text, Some(&text)) {
            check_tests(&s)?;
        }
    }

    #[test]
    fn diagnostics_and_stripping_never_panic(text in mixed_text(), bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let raw = String::from_utf8_lossy(&bytes);
        for input in [text.as_str(), raw.as_ref()] {
            for command in ["cargo clippy -- -D warnings", "make lint", ""] {
                if let Some(d) = parse_diagnostics(command, input, input) {
                    prop_assert!(d.errors > 0 || d.warnings > 0);
                    prop_assert_eq!(d.first_error.is_some(), d.errors > 0);
                    if let Some(first) = &d.first_error {
                        prop_assert!(first.chars().count() <= pawl_verify::parse::MAX_MESSAGE_CHARS + 1);
                        prop_assert!(!first.contains(ESC), "escape in {:?}", first);
                    }
                }
            }
            let once = strip_ansi(input).into_owned();
            prop_assert!(!once.contains(ESC), "escape in {:?}", once);
        }
    }

    #[test]
    fn summaries_from_fragments_keep_bounds(text in mixed_text()) {
        if let Some(s) = parse_any("", &text, "", None) {
            prop_assert!(s.failing.len() <= pawl_verify::parse::MAX_FAILING);
            if let Some(m) = &s.first_failure {
                prop_assert!(m.chars().count() <= pawl_verify::parse::MAX_MESSAGE_CHARS + 1);
            }
        }
    }
}
