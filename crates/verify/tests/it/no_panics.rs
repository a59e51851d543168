//! Parsers read agent-influenced text: random input must never panic, for every runner,
//! with and without a report, and through the sniffing path.

use pawl_verify::parse::{Runner, parse_any, parse_as};
use proptest::prelude::*;

use crate::fixture;

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
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for f in [
        "cargo/test.stdout",
        "nextest/run.stderr",
        "jest/human.stderr",
        "go/json.stdout",
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn no_parser_panics_on_text(text in mixed_text(), report in proptest::option::of(mixed_text())) {
        for runner in Runner::ALL {
            let _ = parse_as(runner, &text, &text, report.as_deref());
            let _ = parse_as(runner, &text, "", None);
        }
        let _ = parse_any("", &text, "", report.as_deref());
        let _ = parse_any("cargo test", "", &text, None);
    }

    #[test]
    fn no_parser_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        for runner in Runner::ALL {
            let _ = parse_as(runner, &text, "", Some(&text));
        }
        let _ = parse_any("", &text, &text, Some(&text));
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
