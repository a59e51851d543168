//! Per-test ids from real runners whose gate command does not ask for them (issue 32 point 2):
//! pawl gets them through each runner's documented hooks, never by changing the command, and
//! says when a run can only be judged by its counts.

use std::path::Path;
use std::time::Duration;

use pawl_verify::parse::TestStatus;
use pawl_verify::{Check, CheckRun, RunnerConfig, run_check};

/// A runner whose logs (and the reports pawl owns) live outside the project's tree, as a room's.
fn config(tree: &Path, logs: &Path) -> RunnerConfig {
    let mut cfg = RunnerConfig::new(tree, 7);
    cfg.logs_dir = logs.to_path_buf();
    cfg.grace = Duration::from_millis(200);
    cfg.timeout = Duration::from_secs(600);
    cfg
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
