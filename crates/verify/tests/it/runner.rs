//! The runner against real child processes: exit codes, timeouts, parallelism, `{report}`,
//! test parsing and classification.

use std::time::Duration;

use pawl_core::failure::FailureCategory;
use pawl_verify::{Check, CheckEnd, RunnerConfig, run_check, run_checks};

fn config(dir: &tempfile::TempDir) -> RunnerConfig {
    let mut cfg = RunnerConfig::new(dir.path(), 7);
    cfg.grace = Duration::from_millis(200);
    cfg
}

#[test]
fn a_passing_check_logs_its_output_and_digests_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_check(
        &Check::gate("hello", "echo hi; echo oops >&2"),
        &config(&dir),
    );
    assert!(run.passed, "{run:?}");
    assert_eq!(run.end, CheckEnd::Exited { code: 0 });
    assert_eq!(run.argv, ["/bin/sh", "-c", "echo hi; echo oops >&2"]);
    let log = std::fs::read_to_string(run.log_path.as_ref().unwrap()).unwrap();
    assert!(
        log.contains("out| hi") && log.contains("err| oops"),
        "{log}"
    );
    assert_eq!(
        run.log_path.unwrap(),
        dir.path().join(".pawl/logs/hello-7.log")
    );
    assert_eq!(run.output_digest.as_ref().unwrap().len(), 64);
    assert!(run.failure.is_none());
    let again = run_check(
        &Check::gate("hello", "echo hi; echo oops >&2"),
        &config(&dir),
    );
    assert_eq!(again.output_digest, run.output_digest);
}

#[test]
fn a_timeout_stops_the_group_and_is_classified_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(&dir);
    cfg.timeout = Duration::from_millis(500);
    let started = std::time::Instant::now();
    // The sleeps outlast the generous bound below: ending under it proves the group (including
    // the background sleep holding the pipes) was stopped, not waited for.
    let run = run_check(
        &Check::gate("slow", "sleep 600 & sleep 600; echo never"),
        &cfg,
    );
    let elapsed = started.elapsed();
    assert!(elapsed >= cfg.timeout, "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
    assert_eq!(run.end, CheckEnd::TimedOut { after_ms: 500 });
    assert!(!run.passed);
    assert_eq!(run.failure.unwrap().category, FailureCategory::Timeout);
}

#[test]
fn a_missing_command_is_an_environment_failure() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_check(
        &Check::gate("lint", "definitely-not-a-tool-xyz --check"),
        &config(&dir),
    );
    assert_eq!(run.end, CheckEnd::Exited { code: 127 });
    let f = run.failure.unwrap();
    assert_eq!(f.category, FailureCategory::Environment);
    assert!(f.message.starts_with("lint: exit 127"), "{}", f.message);
}

#[test]
fn independent_checks_overlap_and_build_runs_first() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().display();
    // Each check writes its start and end time (ns); overlap means each started before the
    // other ended. build must have ended before either started. a and b do not sleep and hope:
    // each writes its end only once the other has started, which only concurrent checks can
    // both do (run one after the other, the first waits out its bound of at least 60 s and
    // the overlap assertion fails).
    let stamp = |name: &str, partner: Option<&str>| {
        let wait = partner.map_or_else(String::new, |other| {
            format!(
                "n=0; while [ ! -e {p}/{other}.started ] && [ $n -lt 3000 ]; do \
                 sleep 0.02; n=$((n+1)); done; "
            )
        });
        format!(
            "date +%s%N > {p}/{name}.start; touch {p}/{name}.started; {wait}\
             date +%s%N > {p}/{name}.end"
        )
    };
    let checks = [
        Check::gate("build", stamp("build", None)),
        Check::gate("a", stamp("a", Some("b"))),
        Check::gate("b", stamp("b", Some("a"))),
    ];
    let runs = run_checks(&checks, &config(&dir));
    assert!(runs.iter().all(|r| r.passed), "{runs:?}");
    let names: Vec<_> = runs.iter().map(|r| r.check.name.as_str()).collect();
    assert_eq!(names, ["build", "a", "b"]);
    let t = |f: &str| -> u128 {
        std::fs::read_to_string(dir.path().join(f))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    assert!(
        t("a.start") < t("b.end") && t("b.start") < t("a.end"),
        "a and b did not overlap"
    );
    assert!(
        t("build.end") <= t("a.start") && t("build.end") <= t("b.start"),
        "build did not run first"
    );
}

#[test]
fn one_job_runs_checks_one_after_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().display();
    let stamp = |name: &str| {
        format!("date +%s%N > {p}/{name}.start; sleep 0.3; date +%s%N > {p}/{name}.end")
    };
    let mut cfg = config(&dir);
    cfg.jobs = 1;
    run_checks(
        &[Check::gate("a", stamp("a")), Check::gate("b", stamp("b"))],
        &cfg,
    );
    let t = |f: &str| -> u128 {
        std::fs::read_to_string(dir.path().join(f))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    assert!(
        t("a.end") <= t("b.start") || t("b.end") <= t("a.start"),
        "they overlapped with jobs = 1"
    );
}

#[test]
fn a_failed_build_skips_the_other_checks() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let checks = [
        Check::gate("build", "exit 2"),
        Check::gate("test", format!("touch {}", marker.display())),
    ];
    let runs = run_checks(&checks, &config(&dir));
    assert_eq!(runs[0].end, CheckEnd::Exited { code: 2 });
    assert!(
        matches!(runs[1].end, CheckEnd::Skipped { .. }),
        "{:?}",
        runs[1].end
    );
    assert!(!runs[1].passed);
    assert!(!marker.exists());
}

#[test]
fn report_placeholder_gets_a_fresh_path_under_logs_and_is_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let junit = r#"<?xml version="1.0"?><testsuite name="s" tests="2" failures="1"><testcase classname="t" name="ok"/><testcase classname="t" name="bad"><failure message="boom">boom</failure></testcase></testsuite>"#;
    std::fs::write(dir.path().join("junit.xml"), junit).unwrap();
    let check = Check::gate("test", "cp junit.xml {report}; exit 1");
    let run = run_check(&check, &config(&dir));
    assert_eq!(
        run.argv[2],
        "cp junit.xml .pawl/logs/test-7.report.xml; exit 1"
    );
    assert_eq!(
        run.report_path.as_deref(),
        Some(dir.path().join(".pawl/logs/test-7.report.xml").as_path())
    );
    let tests = run.tests.expect("parsed from the report");
    assert_eq!((tests.passed, tests.failed), (1, 1));
    assert_eq!(run.failure.unwrap().category, FailureCategory::Test);
}

#[test]
fn python_unittest_output_gives_counts_and_failing_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("test_calc.py"),
        "import unittest\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertEqual(1, 1)\n    def test_bad(self):\n        self.assertEqual(1, 2)\n    @unittest.skip('later')\n    def test_skip(self):\n        pass\n",
    )
    .unwrap();
    let run = run_check(
        &Check::gate("test", "python3 -m unittest discover -v"),
        &config(&dir),
    );
    assert!(!run.passed);
    let tests = run.tests.expect("unittest output parsed");
    assert_eq!((tests.passed, tests.failed, tests.skipped), (1, 1, 1));
    assert!(
        tests.failing.iter().any(|n| n.contains("test_bad")),
        "{:?}",
        tests.failing
    );
    assert!(tests.first_failure.unwrap().contains("AssertionError"));
    let f = run.failure.unwrap();
    assert_eq!(f.category, FailureCategory::Test);
    assert!(f.message.contains("test_bad"), "{}", f.message);
}

/// The `|| true` attack: a test runner that prints failing tests but exits 0 (a wrapper that
/// swallows the code, a misconfigured script) must never be taken for a pass.
#[test]
fn failing_tests_with_exit_0_are_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let libtest = r#"sh -c 'printf "%s\n" "running 2 tests" "test a ... ok" "test b ... FAILED" "" "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s"; exit 0'"#;
    let pytest = r#"printf '%s\n' '==== short test summary info ====' 'FAILED tests/test_x.py::test_a - assert 1 == 2' '========== 1 failed, 3 passed in 0.01s =========='; exit 0"#;
    for (cmd, n) in [(libtest, 1), (pytest, 1)] {
        let run = run_check(&Check::gate("test", cmd), &config(&dir));
        assert_eq!(run.end, CheckEnd::Exited { code: 0 }, "{cmd}");
        assert!(run.tests.as_ref().is_some_and(|t| t.failed == n), "{run:?}");
        assert!(!run.passed, "exit 0 with failing tests passed: {cmd}");
        let f = run.failure.expect("a failure");
        assert_eq!(f.category, FailureCategory::Test);
        assert!(
            f.message.contains(&format!(
                "the test runner reported {n} failing test(s) but exited 0"
            )),
            "{}",
            f.message
        );
    }
}

#[test]
fn a_failed_lint_check_carries_its_first_error_not_its_tail() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rustc/clippy-deny.stderr");
    let command = format!("cat '{}' >&2; exit 101", stderr.display());
    let run = run_check(&Check::gate("lint", command), &config(&dir));
    assert!(!run.passed);
    assert!(run.tests.is_none(), "{:?}", run.tests);
    let d = run.diagnostics.as_ref().unwrap();
    assert_eq!((d.errors, d.warnings, d.warnings_denied), (3, 0, true));
    let failure = run.failure.unwrap();
    assert_eq!(failure.category, FailureCategory::Code);
    assert!(
        failure.message.starts_with(
            "lint: exit 101: 3 errors (warnings denied by -D warnings):\nerror: unused variable: `unused`\n --> src/lib.rs:2:9\n"
        ),
        "{}",
        failure.message
    );
    assert!(
        !failure.message.contains("could not compile"),
        "{}",
        failure.message
    );
}

#[test]
fn the_evidence_tail_has_no_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_check(
        &Check::gate("test", r"printf '\033[31mred\033[0m\n'; exit 1"),
        &config(&dir),
    );
    assert!(!run.passed);
    assert_eq!(run.tail.trim(), "out| red");
    assert_eq!(run.failure.unwrap().message, "test: exit 1: red");
}
