//! Each parser against real (or, for go and dotnet, hand-written) runner output.

use pawl_verify::parse::{Runner, TestStatus, TestSummary, parse_any, parse_as};

use crate::fixture;

use TestStatus::{Failed as F, Passed as P, Skipped as S, XFailed as X};

fn counts(s: &TestSummary) -> (u64, u64, u64) {
    (s.passed, s.failed, s.skipped)
}

/// The per-test outcomes as `(id, status)` pairs, in the order the runner reported them.
fn ids(s: &TestSummary) -> Vec<(&str, TestStatus)> {
    s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect()
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
    let first = s.first_failure.clone().unwrap();
    assert_eq!(
        first,
        "tests::adds_wrong: panicked at src/lib.rs:19:31\nassertion `left == right` failed: math is broken\n  left: 2\n right: 3"
    );
}

#[test]
fn cargo_test_ids_are_libtest_paths_and_doctest_items() {
    let s = parse_any(
        "cargo test --no-fail-fast",
        &fixture("cargo/test.stdout"),
        &fixture("cargo/test.stderr"),
        None,
    )
    .unwrap();
    assert_eq!(
        ids(&s),
        [
            ("tests::adds", P),
            ("tests::slow", S),
            ("tests::subtracts", P),
            ("tests::adds_wrong", F),
            ("api_ok", P),
            ("api_panics", F),
            // `(line N)` dropped: the id survives edits above the doc-test.
            ("src/lib.rs - add", P),
            ("src/lib.rs - sub", F),
        ]
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
    // Binary id and test name, as nextest names tests; the skipped test is not named (it is
    // printed only with --status-level skip). The summary's repeated FAIL lines merge.
    assert_eq!(
        ids(&s),
        [
            ("demo tests::adds", P),
            ("demo tests::adds_wrong", F),
            ("demo tests::subtracts", P),
            ("demo::api api_ok", P),
            ("demo::api api_panics", F),
        ]
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
    assert_eq!(
        ids(&s),
        [
            ("demo::demo$tests::slow", S),
            ("demo::demo$tests::adds_wrong", F),
            ("demo::demo$tests::adds", P),
            ("demo::api$api_ok", P),
            ("demo::api$api_panics", F),
            ("demo::demo$tests::subtracts", P),
        ]
    );
    assert!(s.first_failure.clone().unwrap().contains("math is broken"));
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
    assert!(s.first_failure.clone().unwrap().contains("left: 2"));
}

#[test]
fn nextest_junit_ids_are_classname_dot_name() {
    let s = parse_as(Runner::Nextest, "", "", Some(&fixture("nextest/junit.xml"))).unwrap();
    assert_eq!(
        ids(&s),
        [
            ("demo.tests::adds", P),
            ("demo.tests::subtracts", P),
            ("demo.tests::adds_wrong", F),
            ("demo::api.api_ok", P),
            ("demo::api.api_panics", F),
        ]
    );
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
    // -rA names passes, errors and failures; its skip line names a location, not a test.
    assert_eq!(
        ids(&s),
        [
            ("test_calc.py::test_add", P),
            ("test_calc.py::TestThing::test_method", P),
            ("test_calc.py::test_uses_broken", F),
            ("test_calc.py::test_add_wrong", F),
        ]
    );
}

#[test]
fn pytest_plain_console_is_sniffed() {
    let s = parse_any("", &fixture("pytest/plain.stdout"), "", None).unwrap();
    assert_eq!(s.runner, Runner::Pytest);
    assert_eq!(counts(&s), (2, 2, 1));
    assert_eq!(s.failing.len(), 2);
    // Dots name nothing: only the short summary's failures and errors have ids.
    assert_eq!(
        ids(&s),
        [
            ("test_calc.py::test_add_wrong", F),
            ("test_calc.py::test_uses_broken", F),
        ]
    );
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
            .clone()
            .unwrap()
            .starts_with("test_calc::test_add_wrong\nAssertionError: two plus two")
    );
    assert_eq!(
        ids(&s),
        [
            ("test_calc.test_add", P),
            ("test_calc.test_add_wrong", F),
            ("test_calc.test_later", S),
            ("test_calc.test_uses_broken", F),
            ("test_calc.TestThing.test_method", P),
        ]
    );
}

#[test]
fn pytest_verbose_names_every_test_with_its_node_id() {
    let s = parse_any("pytest -v", &fixture("pytest/verbose.stdout"), "", None).unwrap();
    // xfailed counts as skipped, xpassed as passed (unchanged).
    assert_eq!(counts(&s), (7, 2, 2));
    assert_eq!(
        s.failing,
        [
            "tests/test_more.py::test_bad",
            "tests/test_more.py::test_param[2]"
        ]
    );
    assert_eq!(
        ids(&s),
        [
            ("tests/test_more.py::test_ok", P),
            ("tests/test_more.py::test_bad", F),
            ("tests/test_more.py::test_skipped", S),
            ("tests/test_more.py::test_known_bug", X),
            ("tests/test_more.py::test_fixed_already", P),
            ("tests/test_more.py::test_param[1]", P),
            ("tests/test_more.py::test_param[2]", F),
            ("tests/test_more.py::test_param[a b]", P),
            ("tests/test_more.py::TestGroup::test_inside", P),
            ("tests/test_more.py::TestGroup::test_inside_param[p-1]", P),
            ("tests/test_more.py::TestGroup::test_inside_param[p::2]", P),
        ]
    );
}

#[test]
fn pytest_ra_names_xfail_and_xpass() {
    let s = parse_any("pytest -rA", &fixture("pytest/more-rA.stdout"), "", None).unwrap();
    assert_eq!(counts(&s), (7, 2, 2));
    assert_eq!(
        ids(&s),
        [
            ("tests/test_more.py::test_ok", P),
            ("tests/test_more.py::test_param[1]", P),
            ("tests/test_more.py::test_param[a b]", P),
            ("tests/test_more.py::TestGroup::test_inside", P),
            ("tests/test_more.py::TestGroup::test_inside_param[p-1]", P),
            ("tests/test_more.py::TestGroup::test_inside_param[p::2]", P),
            ("tests/test_more.py::test_known_bug", X),
            ("tests/test_more.py::test_fixed_already", P),
            ("tests/test_more.py::test_bad", F),
            ("tests/test_more.py::test_param[2]", F),
        ]
    );
}

#[test]
fn pytest_junit_ids_and_xfail() {
    let s = parse_any(
        "pytest --junitxml={report}",
        &fixture("pytest/more-rA.stdout"),
        "",
        Some(&fixture("pytest/more-junit.xml")),
    )
    .unwrap();
    assert_eq!(counts(&s), (7, 2, 2));
    assert_eq!(
        ids(&s),
        [
            ("tests.test_more.test_ok", P),
            ("tests.test_more.test_bad", F),
            ("tests.test_more.test_skipped", S),
            ("tests.test_more.test_known_bug", X),
            ("tests.test_more.test_fixed_already", P),
            ("tests.test_more.test_param[1]", P),
            ("tests.test_more.test_param[2]", F),
            ("tests.test_more.test_param[a b]", P),
            ("tests.test_more.TestGroup.test_inside", P),
            ("tests.test_more.TestGroup.test_inside_param[p-1]", P),
            ("tests.test_more.TestGroup.test_inside_param[p::2]", P),
        ]
    );
}

#[test]
fn a_report_that_names_no_test_borrows_the_console_ids() {
    let s = parse_any(
        "pytest -rA --junitxml={report}",
        &fixture("pytest/rA.stdout"),
        "",
        Some("<testsuites><testsuite name=\"pytest\"/></testsuites>"),
    )
    .unwrap();
    // The counts are the report's...
    assert_eq!(counts(&s), (0, 0, 0));
    // ...the ids the console's, since the report has none.
    assert_eq!(s.tests.len(), 4);
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
    assert_eq!(
        ids(&s),
        [
            ("test_ut.CalcTest.test_error", F),
            ("test_ut.CalcTest.test_fail", F),
            ("test_ut.CalcTest.test_ok", P),
            ("test_ut.CalcTest.test_skip", S),
        ]
    );
}

#[test]
fn unittest_verbose_docstrings_and_expected_failures() {
    let s = parse_any(
        "python3 -m unittest discover -v",
        "",
        &fixture("unittest/more-verbose.stderr"),
        None,
    )
    .unwrap();
    assert_eq!(counts(&s), (1, 3, 2));
    assert_eq!(
        ids(&s),
        [
            // Its header line, then `<docstring> ... FAIL` on the next.
            ("test_more.MoreTest.test_documented", F),
            ("test_more.MoreTest.test_fixed_bug", F),
            ("test_more.MoreTest.test_known_bug", X),
            ("test_more.MoreTest.test_later", S),
            ("test_more.MoreTest.test_ok", P),
            ("test_more.OtherTest.test_error", F),
        ]
    );
}

#[test]
fn unittest_without_v_names_only_failures() {
    let s = parse_any(
        "python3 -m unittest discover",
        "",
        &fixture("unittest/more-plain.stderr"),
        None,
    )
    .unwrap();
    assert_eq!(counts(&s), (1, 3, 2));
    assert_eq!(
        ids(&s),
        [
            ("test_more.OtherTest.test_error", F),
            ("test_more.MoreTest.test_documented", F),
            ("test_more.MoreTest.test_fixed_bug", F),
        ]
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
    let first = s.first_failure.clone().unwrap();
    assert!(first.contains("Expected: 5\nReceived: 4"), "{first}");
    assert!(
        !first.contains("jest-circus"),
        "stack frames dropped: {first}"
    );
    let f = "/tmp/fixtures-capture/js/jt/math.test.js";
    assert_eq!(
        ids(&s),
        [
            (format!("{f} > math > adds").as_str(), P),
            (format!("{f} > math > adds wrong").as_str(), F),
            (format!("{f} > math > later").as_str(), S),
            (format!("{f} > top level ok").as_str(), P),
        ]
    );
}

#[test]
fn jest_json_ids_with_todo_nesting_and_the_root_made_relative() {
    let mut s = parse_any(
        "npx jest --json --outputFile={report}",
        "",
        "",
        Some(&fixture("jest/more-report.json")),
    )
    .unwrap();
    assert_eq!(counts(&s), (4, 1, 2));
    // The runner makes the report's absolute paths relative to the check's directory.
    s.relativize_ids(&["/tmp/js/", "/elsewhere"]);
    let expected = [
        ("jt/math.test.js > math > adds", P),
        ("jt/math.test.js > math > adds wrong", F),
        ("jt/math.test.js > math > later", S),
        ("jt/math.test.js > math > some day", S),
        ("jt/math.test.js > math > nested > deep ok", P),
        ("jt/math.test.js > top level ok", P),
        ("jt/other.test.js > other > fine (with parens)", P),
    ];
    assert_eq!(ids(&s), expected);
    // The same ids as the verbose console output of the same run.
    let human = parse_any(
        "npx jest --verbose",
        "",
        &fixture("jest/verbose.stderr"),
        None,
    )
    .unwrap();
    assert_eq!(counts(&human), (4, 1, 2));
    let mut from_human = ids(&human);
    from_human.sort();
    let mut from_json = expected.to_vec();
    from_json.sort();
    assert_eq!(from_human, from_json);
}

#[test]
fn jest_human_output() {
    let s = parse_any("npx jest", "", &fixture("jest/human.stderr"), None).unwrap();
    assert_eq!(s.runner, Runner::Jest);
    assert_eq!(counts(&s), (2, 1, 1));
    assert_eq!(s.failing, ["math › adds wrong"]);
    let first = s.first_failure.clone().unwrap();
    assert!(
        first.starts_with("math › adds wrong\nexpect(received).toBe(expected)"),
        "{first}"
    );
    assert!(first.contains("Received: 4"), "{first}");
    assert!(!first.contains(" | "), "code frame dropped: {first}");
    // One test file: jest prints the verbose tree.
    assert_eq!(
        ids(&s),
        [
            ("jt/math.test.js > top level ok", P),
            ("jt/math.test.js > math > adds", P),
            ("jt/math.test.js > math > adds wrong", F),
            ("jt/math.test.js > math > later", S),
        ]
    );
}

#[test]
fn jest_human_output_of_several_files_names_only_failures() {
    let s = parse_any("npx jest", "", &fixture("jest/multi.stderr"), None).unwrap();
    assert_eq!(counts(&s), (4, 1, 2));
    assert_eq!(s.failing, ["math › adds wrong"]);
    assert_eq!(ids(&s), [("jt/math.test.js > math > adds wrong", F)]);
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
    assert!(
        s.first_failure
            .clone()
            .unwrap()
            .contains("expected 4 to be 5")
    );
    let f = "/tmp/fixtures-capture/js/vt/math.test.js";
    assert_eq!(
        ids(&s),
        [
            (format!("{f} > math > adds").as_str(), P),
            (format!("{f} > math > adds wrong").as_str(), F),
            (format!("{f} > math > later").as_str(), S),
            (format!("{f} > top level ok").as_str(), P),
        ]
    );
}

#[test]
fn vitest_verbose_reporter_names_every_test_as_the_json_report_does() {
    let s = parse_any(
        "npx vitest run --reporter=verbose",
        &fixture("vitest/verbose.stdout"),
        "",
        None,
    )
    .unwrap();
    assert_eq!(s.runner, Runner::Vitest);
    assert_eq!(counts(&s), (4, 1, 2));
    let expected = [
        ("math.test.js > math > adds", P),
        ("math.test.js > math > adds wrong", F),
        ("math.test.js > math > later", S),
        ("math.test.js > math > some day", S),
        ("math.test.js > math > nested > deep ok", P),
        ("math.test.js > top level ok", P),
        ("other.test.js > other > fine (with parens)", P),
    ];
    assert_eq!(ids(&s), expected);
    let mut json = parse_any(
        "npx vitest run --reporter=json --outputFile={report}",
        "",
        "",
        Some(&fixture("vitest/more-report.json")),
    )
    .unwrap();
    json.relativize_ids(&["/tmp/js/vt"]);
    assert_eq!(ids(&json), expected);
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
    let first = s.first_failure.clone().unwrap();
    assert!(
        first.contains("AssertionError: expected 4 to be 5"),
        "{first}"
    );
    // The default reporter's tree leaves out the describes: only the FAIL headers are ids.
    assert_eq!(ids(&s), [("math.test.js > math > adds wrong", F)]);
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
    // Every test under its package, parents included; the package that did not build is one
    // failed entry.
    assert_eq!(
        ids(&s),
        [
            ("example.com/calc/TestAdd", P),
            ("example.com/calc/TestSub/positive", P),
            ("example.com/calc/TestSub/negative", F),
            ("example.com/calc/TestSub", F),
            ("example.com/calc/TestNetwork", S),
            ("example.com/calc/util/TestClamp", P),
            ("example.com/calc/broken", F),
        ]
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
    // The package comes from the `ok`/`FAIL` line after its tests.
    assert_eq!(
        ids(&s),
        [
            ("example.com/calc/TestAdd", P),
            ("example.com/calc/TestSub", F),
            ("example.com/calc/TestSub/positive", P),
            ("example.com/calc/TestSub/negative", F),
            ("example.com/calc/TestNetwork", S),
            ("example.com/calc/util/TestClamp", P),
        ]
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
    // Minimal verbosity names failed and skipped tests only.
    assert_eq!(
        ids(&s),
        [
            ("Calc.Tests.CalculatorTests.Add_Overflow", F),
            ("Calc.Tests.CalculatorTests.Divide_Later", S),
        ]
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
    assert!(s.first_failure.clone().unwrap().ends_with("Actual:   4"));
    assert_eq!(
        ids(&s),
        [
            ("Calc.Tests.CalculatorTests.Add_Small", P),
            ("Calc.Tests.CalculatorTests.Add_Overflow", F),
            ("Calc.Tests.CalculatorTests.Sub", P),
            ("Calc.Tests.CalculatorTests.Mul", P),
            ("Calc.Tests.CalculatorTests.Divide_Later", S),
        ]
    );
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
    assert_eq!(
        ids(&s),
        [
            ("com.example.CalcTest.adds", P),
            ("com.example.CalcTest.addsWrong", F),
            ("com.example.CalcTest.later", S),
        ]
    );
}

#[test]
fn unknown_output_is_none() {
    assert!(parse_any("make", "Compiling...\ndone\n", "", None).is_none());
    assert!(parse_any("cargo test", "error[E0308]: mismatched types\n", "", None).is_none());
}

#[test]
fn the_test_list_is_bounded_and_the_counts_stay_exact() {
    let n = pawl_verify::parse::MAX_TESTS + 5_000;
    let mut out = String::from("running many tests\n");
    for i in 0..n {
        out.push_str(&format!("test t{i} ... ok\n"));
    }
    out.push_str(&format!(
        "test last ... FAILED\n\ntest result: FAILED. {n} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s\n"
    ));
    let s = parse_any("cargo test", &out, "", None).unwrap();
    assert_eq!((s.passed, s.failed), (n as u64, 1));
    assert_eq!(s.tests.len(), pawl_verify::parse::MAX_TESTS);
    // The failure beyond the bound is still counted and named.
    assert_eq!(s.failing, ["last"]);
    assert_eq!(s.reported_failures(), 1);
}

#[test]
fn an_id_reported_twice_keeps_its_worst_status() {
    // pytest -v: a test that passed, then errored in teardown.
    let out = "tests/t.py::test_a PASSED   [100%]\ntests/t.py::test_a ERROR    [100%]\n=== short test summary info ===\nERROR tests/t.py::test_a - boom\n===== 1 passed, 1 error in 0.01s =====\n";
    let s = parse_any("pytest -v", out, "", None).unwrap();
    assert_eq!(ids(&s), [("tests/t.py::test_a", F)]);
}
