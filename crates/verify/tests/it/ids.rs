//! Per-test ids from real runners whose gate command does not ask for them (issue 32 point 2):
//! pawl gets them through each runner's documented hooks, never by changing the command, and
//! says when a run can only be judged by its counts.

use std::path::Path;
use std::time::Duration;

use pawl_verify::parse::TestStatus;
use pawl_verify::{Check, CheckRun, IdCoverage, RunnerConfig, run_check};

/// A runner whose logs (and the reports pawl owns) live outside the project's tree, as a room's.
fn config(tree: &Path, logs: &Path) -> RunnerConfig {
    let mut cfg = RunnerConfig::new(tree, 7);
    cfg.logs_dir = logs.to_path_buf();
    cfg.grace = Duration::from_millis(200);
    cfg.timeout = Duration::from_secs(600);
    cfg
}

/// These tests run the real runners: one that is missing fails the test with its name.
fn require(program: &str, args: &[&str]) {
    let ok = std::process::Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "this test runs `{program} {}`, which failed or is not installed",
        args.join(" ")
    );
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

fn ids(run: &CheckRun) -> Vec<(String, TestStatus)> {
    let mut v: Vec<(String, TestStatus)> = run
        .tests
        .as_ref()
        .map(|t| t.tests.iter().map(|o| (o.id.clone(), o.status)).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn owned(v: &[(&str, TestStatus)]) -> Vec<(String, TestStatus)> {
    let mut v: Vec<(String, TestStatus)> = v.iter().map(|(i, s)| ((*i).to_owned(), *s)).collect();
    v.sort();
    v
}

const PYTEST_PASSING: &str = "import pytest\n\ndef test_ok():\n    assert 1 + 1 == 2\n\nclass TestC:\n    @pytest.mark.parametrize('x', [1, 2])\n    def test_p(self, x):\n        assert x\n";

/// The failing case of issue 32: with the gate `pytest -q` (dots), a passing baseline recorded
/// no test id at all, so every per-test protection was off for the most common Python gate.
#[test]
fn a_pytest_q_baseline_names_every_test() {
    require("python3", &["-m", "pytest", "--version"]);
    let tree = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    write(tree.path(), &[("tests/test_calc.py", PYTEST_PASSING)]);
    let run = run_check(
        &Check::gate("test", "python3 -m pytest -q"),
        &config(tree.path(), logs.path()),
    );
    assert!(run.passed, "{}", run.tail);
    assert_eq!(
        ids(&run),
        owned(&[
            ("tests/test_calc.py::test_ok", TestStatus::Passed),
            ("tests/test_calc.py::TestC::test_p[1]", TestStatus::Passed),
            ("tests/test_calc.py::TestC::test_p[2]", TestStatus::Passed),
        ]),
        "{}",
        run.tail
    );
}

const PYTEST_MIXED: &str = "import pytest\n\ndef test_ok():\n    assert 1 + 1 == 2\n\ndef test_bad():\n    assert 1 + 1 == 3\n\n@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n\n@pytest.mark.xfail\ndef test_known():\n    assert 0\n";

#[test]
fn pytest_q_gets_its_ids_from_a_report_pawl_owns_and_runs_its_command_unchanged() {
    let tree = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    write(tree.path(), &[("tests/test_mixed.py", PYTEST_MIXED)]);
    let run = run_check(
        &Check::gate("test", "python3 -m pytest -q -p no:cacheprovider"),
        &config(tree.path(), logs.path()),
    );
    assert!(!run.passed);
    assert_eq!(
        run.argv,
        ["/bin/sh", "-c", "python3 -m pytest -q -p no:cacheprovider"]
    );
    assert_eq!(
        ids(&run),
        owned(&[
            ("tests/test_mixed.py::test_ok", TestStatus::Passed),
            ("tests/test_mixed.py::test_bad", TestStatus::Failed),
            ("tests/test_mixed.py::test_later", TestStatus::Skipped),
            ("tests/test_mixed.py::test_known", TestStatus::XFailed),
        ]),
        "{}",
        run.tail
    );
    let tests = run.tests.as_ref().unwrap();
    assert_eq!(tests.ids, IdCoverage::PerTest);
    assert_eq!(tests.failing, ["tests/test_mixed.py::test_bad"]);
    // The report is pawl's, outside the tree; the tree holds only what the user wrote.
    let report = run.report_path.clone().expect("the report pawl read");
    assert!(report.starts_with(logs.path()), "{}", report.display());
    let hook = run.id_hook.as_deref().unwrap();
    assert!(
        hook.starts_with("PYTEST_ADDOPTS=--junitxml=")
            && hook.contains(&*logs.path().to_string_lossy()),
        "{hook}"
    );
    let mut left = Vec::new();
    for e in walk(tree.path()) {
        left.push(e);
    }
    assert!(
        left.iter().all(|p| !p.ends_with(".xml")),
        "a report in the tree: {left:?}"
    );
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.to_string_lossy().into_owned());
        }
    }
    out
}

/// A pytest the project already tells what to report (its own `--junitxml`) is not given a
/// second report: its console is parsed as before, and the run says it is judged by counts.
#[test]
fn pytest_with_its_own_report_is_left_alone_and_judged_by_counts() {
    let tree = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    write(tree.path(), &[("tests/test_mixed.py", PYTEST_MIXED)]);
    let run = run_check(
        &Check::gate(
            "test",
            "python3 -m pytest -q -p no:cacheprovider --junitxml=mine.xml",
        ),
        &config(tree.path(), logs.path()),
    );
    assert!(run.id_hook.is_none());
    assert!(
        tree.path().join("mine.xml").is_file(),
        "the user's report was written"
    );
    let tests = run.tests.as_ref().unwrap();
    assert_eq!((tests.passed, tests.failed, tests.skipped), (1, 1, 2));
    assert_eq!(
        tests.ids,
        IdCoverage::ByCounts {
            named: 1,
            counted: 4
        }
    );
}

/// What the run's seal already puts in PYTEST_ADDOPTS is kept: pawl's options follow it.
#[test]
fn pytest_keeps_the_options_the_seal_already_gives_it() {
    let tree = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    write(tree.path(), &[("tests/test_calc.py", PYTEST_PASSING)]);
    let mut cfg = config(tree.path(), logs.path());
    cfg.env.push((
        "PYTEST_ADDOPTS".into(),
        "-p no:cacheprovider -k test_ok".into(),
    ));
    let run = run_check(&Check::gate("test", "python3 -m pytest -q"), &cfg);
    assert!(run.passed, "{}", run.tail);
    assert!(
        !tree.path().join(".pytest_cache").exists(),
        "the seal's option was dropped"
    );
    let tests = run.tests.as_ref().unwrap();
    // `-k test_ok` deselected the others: one test, named.
    assert_eq!(
        ids(&run),
        owned(&[("tests/test_calc.py::test_ok", TestStatus::Passed)])
    );
    assert_eq!(tests.ids, IdCoverage::PerTest);
}

#[test]
fn unittest_without_v_gets_its_ids_from_a_collection_pass() {
    let tree = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    write(
        tree.path(),
        &[(
            "test_calc.py",
            "import unittest\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertEqual(1, 1)\n    def test_bad(self):\n        self.assertEqual(1, 2)\n",
        )],
    );
    let cfg = config(tree.path(), logs.path());
    let verbose = run_check(
        &Check::gate("test", "python3 -m unittest discover -v"),
        &cfg,
    );
    assert_eq!(verbose.tests.as_ref().unwrap().ids, IdCoverage::PerTest);
    assert_eq!(ids(&verbose).len(), 2);
    // Without `-v` unittest prints dots: before the collection pass its passing tests had no
    // id (judged by counts: 1 of 2 named). Its loader, given the command's own arguments,
    // lists every test without running one.
    let dots = run_check(&Check::gate("test", "python3 -m unittest discover"), &cfg);
    assert!(
        dots.id_hook
            .as_deref()
            .is_some_and(|h| h.contains("collection pass")),
        "{:?}",
        dots.id_hook
    );
    assert_eq!(dots.tests.as_ref().unwrap().ids, IdCoverage::PerTest);
    assert_eq!(ids(&dots), ids(&verbose));
    // The same behind `cd` and piped into `tee` (issue 32: before, a command that was more than
    // words got no collection pass): the shell parser finds the runner's own command, and the
    // listing runs after the `cd`, without the pipe.
    std::fs::create_dir_all(tree.path().join("sub")).unwrap();
    std::fs::copy(
        tree.path().join("test_calc.py"),
        tree.path().join("sub/test_calc.py"),
    )
    .unwrap();
    let piped = run_check(
        &Check::gate(
            "test",
            "cd sub && python3 -m unittest discover 2>&1 | tee ../log",
        ),
        &cfg,
    );
    assert!(
        piped
            .id_hook
            .as_deref()
            .is_some_and(|h| h.contains("collection pass")),
        "{:?} {}",
        piped.id_hook,
        piped.tail
    );
    assert_eq!(ids(&piped), ids(&verbose));
    std::fs::remove_dir_all(tree.path().join("sub")).unwrap();
    // A test skipped by a decorator is listed as skipped; one skipped at run time makes the
    // counts disagree with the listing: then the run stays judged by its counts.
    write(
        tree.path(),
        &[(
            "test_more.py",
            "import unittest\n\nclass M(unittest.TestCase):\n    @unittest.skip('later')\n    def test_later(self):\n        pass\n",
        )],
    );
    let dots = run_check(&Check::gate("test", "python3 -m unittest discover"), &cfg);
    assert_eq!(dots.tests.as_ref().unwrap().ids, IdCoverage::PerTest);
    assert!(ids(&dots).contains(&("test_more.M.test_later".to_owned(), TestStatus::Skipped)));
    write(
        tree.path(),
        &[(
            "test_more.py",
            "import unittest\n\nclass M(unittest.TestCase):\n    def test_later(self):\n        self.skipTest('at run time')\n",
        )],
    );
    let dots = run_check(&Check::gate("test", "python3 -m unittest discover"), &cfg);
    assert!(
        !dots.tests.as_ref().unwrap().ids.per_test(),
        "{:?}",
        dots.tests
    );
}

const GO_MOD: &str = "module example.com/m\n\ngo 1.21\n";
const GO_TEST: &str = "package m\n\nimport \"testing\"\n\nfunc TestOk(t *testing.T) {}\n\nfunc TestBad(t *testing.T) { t.Fatal(\"no\") }\n\nfunc TestLater(t *testing.T) { t.Skip(\"later\") }\n\nfunc TestSub(t *testing.T) {\n\tt.Run(\"x\", func(t *testing.T) {})\n}\n";

/// go's own build cache (the user's, warm) keeps these tests from compiling the standard
/// library each time.
fn go_config(tree: &Path, logs: &Path) -> RunnerConfig {
    require("go", &["version"]);
    let mut cfg = config(tree, logs);
    cfg.env.push(("GOTOOLCHAIN".into(), "local".into()));
    cfg.env.push(("GOFLAGS".into(), "-mod=mod".into()));
    cfg
}

/// `go test ./...` prints only its failures; GOFLAGS=-json (which go applies to the commands
/// that know the flag) makes it name every test, the command unchanged.
#[test]
fn go_test_names_every_test_through_goflags() {
    let tree = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    write(tree.path(), &[("go.mod", GO_MOD), ("a_test.go", GO_TEST)]);
    let cfg = go_config(tree.path(), logs.path());
    let run = run_check(&Check::gate("test", "go test ./..."), &cfg);
    assert!(!run.passed);
    assert_eq!(run.argv, ["/bin/sh", "-c", "go test ./..."]);
    assert_eq!(run.id_hook.as_deref(), Some("GOFLAGS=-mod=mod -json"));
    assert_eq!(
        ids(&run),
        owned(&[
            ("example.com/m/TestOk", TestStatus::Passed),
            ("example.com/m/TestBad", TestStatus::Failed),
            ("example.com/m/TestLater", TestStatus::Skipped),
            ("example.com/m/TestSub", TestStatus::Passed),
            ("example.com/m/TestSub/x", TestStatus::Passed),
        ]),
        "{}",
        run.tail
    );
    assert_eq!(run.tests.as_ref().unwrap().ids, IdCoverage::PerTest);
}

/// `go vet` reads GOFLAGS too, and with -json it exits 0 on findings: a command that vets is
/// left alone, its vet still fails, and its tests are judged by counts.
#[test]
fn go_vet_in_the_command_keeps_goflags_untouched() {
    let tree = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    write(
        tree.path(),
        &[
            ("go.mod", GO_MOD),
            ("a_test.go", GO_TEST),
            (
                "v.go",
                "package m\n\nimport \"fmt\"\n\nfunc F() { fmt.Printf(\"%d\\n\", \"x\") }\n",
            ),
        ],
    );
    let cfg = go_config(tree.path(), logs.path());
    let run = run_check(&Check::gate("test", "go vet ./... && go test ./..."), &cfg);
    assert!(run.id_hook.is_none());
    assert!(!run.passed);
    assert!(run.tail.contains("Printf"), "vet's finding: {}", run.tail);
}

/// `node --test` names every test on its console already (TAP under a pipe before Node 23, spec
/// after): no variable is needed.
#[test]
fn node_test_names_every_test_on_its_console() {
    require("node", &["--version"]);
    let tree = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    write(
        tree.path(),
        &[(
            "test/a.test.js",
            "const test = require('node:test');\nconst assert = require('node:assert');\ntest.describe('suite', () => {\n  test.it('ok', () => {});\n  test.it('bad', () => assert.equal(1, 2));\n});\ntest('top', () => {});\ntest('later', { skip: true }, () => {});\n",
        )],
    );
    let run = run_check(
        &Check::gate("test", "node --test"),
        &config(tree.path(), logs.path()),
    );
    assert!(run.id_hook.is_none());
    assert_eq!(
        ids(&run),
        owned(&[
            ("suite > ok", TestStatus::Passed),
            ("suite > bad", TestStatus::Failed),
            ("top", TestStatus::Passed),
            ("later", TestStatus::Skipped),
        ]),
        "{}",
        run.tail
    );
    assert_eq!(run.tests.as_ref().unwrap().ids, IdCoverage::PerTest);
}

/// Rust: nextest names its skipped tests through NEXTEST_STATUS_LEVEL; `cargo test -q` prints
/// dots (libtest reads no variable for its format), so it is judged by counts.
#[test]
fn nextest_names_skipped_tests_and_cargo_test_q_gets_its_ids_from_a_collection_pass() {
    let tree = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let target = tempfile::tempdir().unwrap();
    write(
        tree.path(),
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
            ),
            (
                "src/lib.rs",
                "#[cfg(test)]\nmod tests {\n    #[test]\n    fn ok() {}\n    #[test]\n    fn bad() {\n        assert_eq!(1, 2);\n    }\n    #[test]\n    #[ignore]\n    fn later() {}\n}\n",
            ),
        ],
    );
    let mut cfg = config(tree.path(), logs.path());
    cfg.env
        .push(("CARGO_TARGET_DIR".into(), target.path().into()));
    cfg.env.push(("CARGO_TERM_COLOR".into(), "never".into()));
    let have_nextest = std::process::Command::new("cargo")
        .args(["nextest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if have_nextest {
        let run = run_check(
            &Check::gate("test", "cargo nextest run --no-fail-fast"),
            &cfg,
        );
        assert_eq!(run.id_hook.as_deref(), Some("NEXTEST_STATUS_LEVEL=skip"));
        assert_eq!(
            ids(&run),
            owned(&[
                ("demo tests::ok", TestStatus::Passed),
                ("demo tests::bad", TestStatus::Failed),
                ("demo tests::later", TestStatus::Skipped),
            ]),
            "{}",
            run.tail
        );
        assert_eq!(run.tests.as_ref().unwrap().ids, IdCoverage::PerTest);
    } else {
        eprintln!("cargo-nextest is not installed: its part of this test did not run");
    }
    // `cargo test -q` prints dots: before the collection pass its passing and ignored tests
    // had no id (judged by counts: 1 of 3 named). libtest's `--list` (and `--list --ignored`)
    // names them without running them.
    let quiet = run_check(&Check::gate("test", "cargo test -q"), &cfg);
    assert!(
        quiet
            .id_hook
            .as_deref()
            .is_some_and(|h| h.contains("collection pass")),
        "{:?}",
        quiet.id_hook
    );
    let tests = quiet.tests.as_ref().expect("libtest's counts");
    assert_eq!((tests.passed, tests.failed, tests.skipped), (1, 1, 1));
    assert_eq!(tests.ids, IdCoverage::PerTest, "{}", quiet.tail);
    assert_eq!(
        ids(&quiet),
        owned(&[
            ("tests::ok", TestStatus::Passed),
            ("tests::bad", TestStatus::Failed),
            ("tests::later", TestStatus::Skipped),
        ])
    );
    let plain = run_check(&Check::gate("test", "cargo test"), &cfg);
    assert_eq!(plain.tests.as_ref().unwrap().ids, IdCoverage::PerTest);
}

/// Whether a run can be judged test by test, for the outputs of the runners that cannot run
/// here (jest, vitest, mocha: the suite installs none of them from npm) and the console modes
/// of the others, from their recorded real output (tests/fixtures/README.md).
#[test]
fn recorded_outputs_say_whether_they_name_every_test() {
    use pawl_verify::parse::{Runner, parse_as};
    // (what, runner, stdout fixture, stderr fixture, report fixture, judged per test); "" is none.
    const CASES: &[(&str, Runner, &str, &str, &str, bool)] = &[
        (
            "jest --json report",
            Runner::Jest,
            "",
            "",
            "jest/more-report.json",
            true,
        ),
        (
            "jest --verbose",
            Runner::Jest,
            "",
            "jest/verbose.stderr",
            "",
            true,
        ),
        (
            "jest, several files",
            Runner::Jest,
            "",
            "jest/multi.stderr",
            "",
            false,
        ),
        (
            "vitest json report",
            Runner::Vitest,
            "",
            "",
            "vitest/more-report.json",
            true,
        ),
        (
            "vitest --reporter=verbose",
            Runner::Vitest,
            "vitest/verbose.stdout",
            "",
            "",
            true,
        ),
        (
            "vitest default reporter",
            Runner::Vitest,
            "vitest/human.stdout",
            "vitest/human.stderr",
            "",
            false,
        ),
        (
            "mocha spec",
            Runner::Mocha,
            "mocha/spec.stdout",
            "",
            "",
            true,
        ),
        (
            "mocha json",
            Runner::Mocha,
            "mocha/report.json",
            "",
            "",
            true,
        ),
        (
            "node --test, TAP",
            Runner::NodeTest,
            "tap/node-test.stdout",
            "",
            "",
            true,
        ),
        (
            "node --test, spec",
            Runner::NodeTest,
            "node/spec.stdout",
            "",
            "",
            true,
        ),
        (
            "go test",
            Runner::GoTest,
            "go/real-plain.stdout",
            "go/real-plain.stderr",
            "",
            false,
        ),
        (
            "go test -v",
            Runner::GoTest,
            "go/real-v.stdout",
            "go/real-v.stderr",
            "",
            true,
        ),
        (
            "go test -json",
            Runner::GoTest,
            "go/real-json.stdout",
            "go/real-json.stderr",
            "",
            true,
        ),
        (
            "pytest",
            Runner::Pytest,
            "pytest/plain.stdout",
            "",
            "",
            false,
        ),
        (
            "pytest -v",
            Runner::Pytest,
            "pytest/verbose.stdout",
            "",
            "",
            true,
        ),
        (
            "pytest --junitxml",
            Runner::Pytest,
            "",
            "",
            "pytest/more-junit.xml",
            true,
        ),
        (
            "unittest",
            Runner::Unittest,
            "",
            "unittest/more-plain.stderr",
            "",
            false,
        ),
        (
            "unittest -v",
            Runner::Unittest,
            "",
            "unittest/more-verbose.stderr",
            "",
            true,
        ),
        (
            "cargo test",
            Runner::CargoTest,
            "cargo/test.stdout",
            "cargo/test.stderr",
            "",
            true,
        ),
    ];
    let read = |path: &str| {
        if path.is_empty() {
            String::new()
        } else {
            crate::fixture(path)
        }
    };
    let mut wrong = Vec::new();
    for &(what, runner, out, err, report, per_test) in CASES {
        let report = (!report.is_empty()).then(|| read(report));
        let s = parse_as(runner, &read(out), &read(err), report.as_deref())
            .unwrap_or_else(|| panic!("{what}: not parsed"));
        if s.ids.per_test() != per_test {
            wrong.push(format!(
                "{what}: {:?} ({} ids, {} counted)",
                s.ids,
                s.tests.len(),
                s.total()
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
