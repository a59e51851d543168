//! `cargo test` (libtest's human output): one `test result:` line per test binary, doc-tests
//! included, summed over the whole run. `--format json` (unstable libtest JSON) is delegated
//! to the libtest-json parser.

use super::{Runner, TestList, TestStatus, TestSummary, counts, libtest_json, rust_panic};

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    if let Some(s) = libtest_json::parse(text, Runner::CargoTest) {
        return Some(s);
    }
    let mut s = TestSummary::new(Runner::CargoTest);
    let mut tests = TestList::default();
    let mut seen_result = false;
    for line in text.lines() {
        let line = line.trim();
        if let Some((name, status)) = test_line(line) {
            tests.add(&test_id(name), status);
        }
        if let Some(rest) = line.strip_prefix("test result: ") {
            // "FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.14s"
            let rest = rest.split_once(". ").map(|(_, r)| r).unwrap_or(rest);
            for (label, n) in counts(rest, &[';']) {
                match label.as_str() {
                    "passed" => s.passed = s.passed.saturating_add(n),
                    "failed" => s.failed = s.failed.saturating_add(n),
                    "ignored" => s.skipped = s.skipped.saturating_add(n),
                    _ => {}
                }
            }
            seen_result = true;
        } else if let Some(rest) = line.strip_prefix("test ")
            && let Some(name) = rest.strip_suffix(" ... FAILED")
        {
            s.add_failing(name);
        } else if let Some(name) = terse_failure(line) {
            // `cargo test -q` (libtest's terse format) names only its failures.
            tests.add(&test_id(name), TestStatus::Failed);
            s.add_failing(name);
        }
    }
    if !seen_result {
        return None;
    }
    s.tests = tests.into_vec();
    // The first `---- name stdout ----` block holds the first failure's panic.
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line
            .trim()
            .strip_prefix("---- ")
            .and_then(|r| r.strip_suffix(" stdout ----"))
        else {
            continue;
        };
        let block: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("---- ") && l.trim() != "failures:")
            .collect();
        let block = block.join("\n");
        match rust_panic(&block, name) {
            Some(msg) => s.set_first_failure(&msg),
            None => s.set_first_failure(&format!("{name}:\n{}", block.trim())),
        }
        break;
    }
    Some(s)
}

/// `tests::bad --- FAILED`: a failure in libtest's terse format (`-q`), which prints a dot or
/// an `i` for the other tests.
fn terse_failure(line: &str) -> Option<&str> {
    let name = line.strip_suffix(" --- FAILED")?.trim();
    (!name.is_empty() && !name.starts_with('-') && !name.contains(" ... ")).then_some(name)
}

/// `test tests::adds ... ok` → `("tests::adds", Passed)`; `... FAILED`, `... ignored` and
/// `... ignored, <reason>` likewise. Benchmarks (`... bench: ...`) and anything else are `None`.
pub(crate) fn test_line(line: &str) -> Option<(&str, TestStatus)> {
    let rest = line.strip_prefix("test ")?;
    let (name, result) = rest.rsplit_once(" ... ")?;
    let status = match result.trim() {
        "ok" => TestStatus::Passed,
        "FAILED" => TestStatus::Failed,
        r if r == "ignored" || r.starts_with("ignored, ") => TestStatus::Skipped,
        _ => return None,
    };
    Some((name, status))
}

/// A libtest name as a stable id: the name itself (`tests::adds`), except that a doc-test's
/// `(line N)` is dropped (`src/lib.rs - sub (line 10)` → `src/lib.rs - sub`) so that editing
/// above it does not rename it; several doc-tests of one item share the id.
/// Doc-tests with attributes keep them (`src/lib.rs - f (line 3) - compile fail` →
/// `src/lib.rs - f - compile fail`).
pub(crate) fn test_id(name: &str) -> String {
    let name = name.trim();
    if let Some((item, tail)) = name.split_once(" (line ")
        && item.contains(" - ")
        && let Some((num, after)) = tail.split_once(')')
        && !num.is_empty()
        && num.chars().all(|c| c.is_ascii_digit())
    {
        return format!("{item}{after}");
    }
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_binaries_and_reads_failing_names() {
        let text = "running 2 tests\ntest a ... ok\ntest b ... FAILED\n\nfailures:\n\n---- b stdout ----\n\nthread 'b' panicked at src/lib.rs:1:1:\nboom\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\nfailures:\n    b\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nrunning 1 test\ntest c ... ignored\n\ntest result: ok. 0 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let s = parse(text).unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (1, 1, 1));
        assert_eq!(s.failing, ["b"]);
        assert_eq!(
            s.first_failure.as_deref(),
            Some("b: panicked at src/lib.rs:1:1\nboom")
        );
        let ids: Vec<(&str, TestStatus)> =
            s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            ids,
            [
                ("a", TestStatus::Passed),
                ("b", TestStatus::Failed),
                ("c", TestStatus::Skipped)
            ]
        );
    }

    /// Recorded from `cargo test -q` (Rust 1.95): dots, `i` for ignored, failures by name.
    #[test]
    fn quiet_output_names_its_failures_only() {
        let text = "\nrunning 3 tests\ntests::bad --- FAILED\ni.\nfailures:\n\n---- tests::bad stdout ----\n\nthread 'tests::bad' (2779) panicked at src/lib.rs:7:9:\nassertion `left == right` failed\n  left: 1\n right: 2\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    tests::bad\n\ntest result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let s = parse(text).unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (1, 1, 1));
        assert_eq!(s.failing, ["tests::bad"]);
        let ids: Vec<(&str, TestStatus)> =
            s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(ids, [("tests::bad", TestStatus::Failed)]);
        assert!(s.first_failure.unwrap().contains("left: 1"));
    }

    #[test]
    fn test_lines_and_ids() {
        assert_eq!(
            test_line("test m::slow ... ignored, needs network"),
            Some(("m::slow", TestStatus::Skipped))
        );
        assert_eq!(test_line("test b ... bench:  12 ns/iter (+/- 1)"), None);
        assert_eq!(test_line("test result: ok. 1 passed"), None);
        assert_eq!(test_id("src/lib.rs - sub (line 10)"), "src/lib.rs - sub");
        assert_eq!(
            test_id("src/lib.rs - Calc::add (line 3)"),
            "src/lib.rs - Calc::add"
        );
        assert_eq!(
            test_id("src/lib.rs - f (line 3) - compile fail"),
            "src/lib.rs - f - compile fail"
        );
        assert_eq!(test_id("tests::case (line x)"), "tests::case (line x)");
    }

    #[test]
    fn compile_error_is_not_a_test_result() {
        assert!(parse("error[E0425]: cannot find value `x` in this scope\n").is_none());
    }
}
