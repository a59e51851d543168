//! Each parser against real (or, for go and dotnet, hand-written) runner output.

use pawl_verify::parse::{Runner, TestSummary, parse_any, parse_as};

use crate::fixture;

fn counts(s: &TestSummary) -> (u64, u64, u64) {
    (s.passed, s.failed, s.skipped)
}

#[test]
fn cargo_test_sums_binaries_and_doctests() {
    let s = parse_any(
        "cargo test --no-fail-fast",
        &fixture("cargo/test.stdout"),
        &fixture("cargo/test.stderr"),
        None,
    )
    .unwrap();
    assert_eq!(s.runner, Runner::CargoTest);
    assert_eq!(counts(&s), (4, 3, 1));
    assert_eq!(
        s.failing,
        [
            "tests::adds_wrong",
            "api_panics",
            "src/lib.rs - sub (line 10)"
        ]
    );
    let first = s.first_failure.unwrap();
    assert_eq!(
        first,
        "tests::adds_wrong: panicked at src/lib.rs:19:31\nassertion `left == right` failed: math is broken\n  left: 2\n right: 3"
    );
}

#[test]
fn cargo_test_is_sniffed_without_a_hint() {
    let s = parse_any("just test", &fixture("cargo/test.stdout"), "", None).unwrap();
    assert_eq!(s.runner, Runner::CargoTest);
}

#[test]
fn nextest_human_output() {
    let s = parse_any(
        "cargo nextest run --no-fail-fast",
        "",
        &fixture("nextest/run.stderr"),
        None,
    )
    .unwrap();
    assert_eq!(s.runner, Runner::Nextest);
    assert_eq!(counts(&s), (3, 2, 1));
    assert_eq!(
        s.failing,
        ["demo tests::adds_wrong", "demo::api api_panics"]
    );
    assert_eq!(
        s.first_failure.as_deref(),
        Some(
            "demo tests::adds_wrong: panicked at src/lib.rs:19:31\nassertion `left == right` failed: math is broken\n  left: 2\n right: 3"
        )
    );
}

#[test]
fn nextest_libtest_json() {
    let cmd = "cargo nextest run --message-format libtest-json";
    let s = parse_any(cmd, &fixture("nextest/libtest-json.stdout"), "", None).unwrap();
    assert_eq!(s.runner, Runner::Nextest);
    assert_eq!(counts(&s), (3, 2, 1));
    assert_eq!(
        s.failing,
        ["demo::demo$tests::adds_wrong", "demo::api$api_panics"]
    );
    assert!(s.first_failure.unwrap().contains("math is broken"));
    // Sniffed as well when the command says nothing.
    let s = parse_any(
        "make test",
        &fixture("nextest/libtest-json.stdout"),
        "",
        None,
    )
    .unwrap();
    assert_eq!(counts(&s), (3, 2, 1));
}

#[test]
fn nextest_junit_report() {
    let s = parse_as(Runner::Nextest, "", "", Some(&fixture("nextest/junit.xml"))).unwrap();
    assert_eq!(counts(&s), (3, 2, 0));
    assert_eq!(
        s.failing,
        ["demo::tests::adds_wrong", "demo::api::api_panics"]
    );
    assert!(s.first_failure.unwrap().contains("left: 2"));
}

#[test]
fn pytest_ra_console() {
    let s = parse_any(
        "python3 -m pytest -rA",
        &fixture("pytest/rA.stdout"),
        "",
        None,
    )
    .unwrap();
    assert_eq!(s.runner, Runner::Pytest);
    assert_eq!(counts(&s), (2, 2, 1));
    assert_eq!(
        s.failing,
        [
            "test_calc.py::test_uses_broken",
            "test_calc.py::test_add_wrong"
        ]
    );
    assert_eq!(
        s.first_failure.as_deref(),
        Some("test_calc.py::test_uses_broken\nRuntimeError: fixture exploded")
    );
}

#[test]
fn pytest_plain_console_is_sniffed() {
    let s = parse_any("", &fixture("pytest/plain.stdout"), "", None).unwrap();
    assert_eq!(s.runner, Runner::Pytest);
    assert_eq!(counts(&s), (2, 2, 1));
    assert_eq!(s.failing.len(), 2);
}

#[test]
fn pytest_junit_report_wins_over_console() {
    let s = parse_any(
        "pytest -rA --junitxml={report}",
        "garbage",
        "",
        Some(&fixture("pytest/junit.xml")),
    )
    .unwrap();
    assert_eq!(s.runner, Runner::Pytest);
    assert_eq!(counts(&s), (2, 2, 1));
    assert_eq!(
        s.failing,
        ["test_calc::test_add_wrong", "test_calc::test_uses_broken"]
    );
    assert!(
        s.first_failure
            .unwrap()
            .starts_with("test_calc::test_add_wrong\nAssertionError: two plus two")
    );
}

#[test]
fn broken_report_falls_back_to_console() {
    let s = parse_any(
        "pytest --junitxml={report}",
        &fixture("pytest/rA.stdout"),
        "",
        Some("<trunc"),
    )
    .unwrap();
    assert_eq!(counts(&s), (2, 2, 1));
}

#[test]
fn unittest_verbose() {
    let s = parse_any(
        "python3 -m unittest discover -v",
        "",
        &fixture("unittest/verbose.stderr"),
        None,
    )
    .unwrap();
    assert_eq!(s.runner, Runner::Unittest);
    assert_eq!(counts(&s), (1, 2, 1));
    assert_eq!(
        s.failing,
        ["test_ut.CalcTest.test_error", "test_ut.CalcTest.test_fail"]
    );
    assert_eq!(
        s.first_failure.as_deref(),
        Some("test_ut.CalcTest.test_error: ValueError: no value")
    );
}

#[test]
fn jest_json_report() {
    let s = parse_any(
        "npx jest --json --outputFile={report}",
        "",
        "",
        Some(&fixture("jest/report.json")),
    )
    .unwrap();
    assert_eq!(s.runner, Runner::Jest);
    assert_eq!(counts(&s), (2, 1, 1));
    assert_eq!(s.failing, ["math adds wrong"]);
    let first = s.first_failure.unwrap();
    assert!(first.contains("Expected: 5\nReceived: 4"), "{first}");
    assert!(
        !first.contains("jest-circus"),
        "stack frames dropped: {first}"
    );
}

#[test]
fn jest_human_output() {
    let s = parse_any("npx jest", "", &fixture("jest/human.stderr"), None).unwrap();
    assert_eq!(s.runner, Runner::Jest);
    assert_eq!(counts(&s), (2, 1, 1));
    assert_eq!(s.failing, ["math › adds wrong"]);
    let first = s.first_failure.unwrap();
    assert!(
        first.starts_with("math › adds wrong\nexpect(received).toBe(expected)"),
        "{first}"
    );
    assert!(first.contains("Received: 4"), "{first}");
    assert!(!first.contains(" | "), "code frame dropped: {first}");
}

#[test]
fn vitest_json_report_through_npm_script() {
    // `npm run test -- --run --reporter=json` names no runner: the report is sniffed.
    let s = parse_any(
        "npm run test -- --run --reporter=json --outputFile=x",
        "",
        "",
        Some(&fixture("vitest/report.json")),
    )
    .unwrap();
    assert_eq!(counts(&s), (2, 1, 1));
    assert_eq!(s.failing, ["math adds wrong"]);
    assert!(s.first_failure.unwrap().contains("expected 4 to be 5"));
}

#[test]
fn vitest_human_output() {
    let s = parse_any(
        "npx vitest run",
        &fixture("vitest/human.stdout"),
        &fixture("vitest/human.stderr"),
        None,
    )
    .unwrap();
    assert_eq!(s.runner, Runner::Vitest);
    assert_eq!(counts(&s), (2, 1, 1));
    assert_eq!(s.failing, ["math.test.js > math > adds wrong"]);
    let first = s.first_failure.unwrap();
    assert!(
        first.contains("AssertionError: expected 4 to be 5"),
        "{first}"
    );
}

#[test]
fn go_json_stream() {
    let s = parse_any("go test -json ./...", &fixture("go/json.stdout"), "", None).unwrap();
    assert_eq!(s.runner, Runner::GoTest);
    // Passes count every test (TestAdd, TestSub/positive, TestClamp); failures count leaves
    // (TestSub/negative) plus the package that did not build.
    assert_eq!(counts(&s), (3, 2, 1));
    assert_eq!(s.failing, ["TestSub/negative", "example.com/calc/broken"]);
    assert_eq!(
        s.first_failure.as_deref(),
        Some("TestSub/negative\ncalc_test.go:21: Sub(1, 3) = -1, want -2")
    );
}

#[test]
fn go_plain_verbose_output() {
    let s = parse_any("go test -v ./...", &fixture("go/plain-v.stdout"), "", None).unwrap();
    assert_eq!(counts(&s), (3, 1, 1));
    assert_eq!(s.failing, ["TestSub/negative"]);
    assert_eq!(
        s.first_failure.as_deref(),
        Some("TestSub/negative\ncalc_test.go:21: Sub(1, 3) = -1, want -2")
    );
}

#[test]
fn dotnet_console_summary() {
    let s = parse_any("dotnet test", &fixture("dotnet/console.stdout"), "", None).unwrap();
    assert_eq!(s.runner, Runner::DotnetTest);
    assert_eq!(counts(&s), (3, 1, 1));
    assert_eq!(s.failing, ["Calc.Tests.CalculatorTests.Add_Overflow"]);
    assert_eq!(
        s.first_failure.as_deref(),
        Some(
            "Calc.Tests.CalculatorTests.Add_Overflow\nAssert.Equal() Failure: Values differ\nExpected: 5\nActual:   4"
        )
    );
}

#[test]
fn dotnet_trx_report() {
    let s = parse_any(
        r#"dotnet test --logger "trx;LogFileName={report}""#,
        "",
        "",
        Some(&fixture("dotnet/report.trx")),
    )
    .unwrap();
    assert_eq!(counts(&s), (3, 1, 1));
    assert_eq!(s.failing, ["Calc.Tests.CalculatorTests.Add_Overflow"]);
    assert!(s.first_failure.unwrap().ends_with("Actual:   4"));
}

#[test]
fn surefire_junit_without_hint() {
    let s = parse_any("mvn -B test", "", "", Some(&fixture("junit/surefire.xml"))).unwrap();
    assert_eq!(s.runner, Runner::Junit);
    assert_eq!(counts(&s), (1, 1, 1));
    assert_eq!(s.failing, ["com.example.CalcTest::addsWrong"]);
    assert_eq!(
        s.first_failure.as_deref(),
        Some("com.example.CalcTest::addsWrong\nexpected: <5> but was: <4>")
    );
}

#[test]
fn unknown_output_is_none() {
    assert!(parse_any("make", "Compiling...\ndone\n", "", None).is_none());
    assert!(parse_any("cargo test", "error[E0308]: mismatched types\n", "", None).is_none());
}
