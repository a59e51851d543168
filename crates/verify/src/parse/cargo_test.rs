//! `cargo test` (libtest's human output): one `test result:` line per test binary, doc-tests
//! included, summed over the whole run. `--format json` (unstable libtest JSON) is delegated
//! to the libtest-json parser.

use super::{Runner, TestSummary, counts, libtest_json, rust_panic};

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    if let Some(s) = libtest_json::parse(text, Runner::CargoTest) {
        return Some(s);
    }
    let mut s = TestSummary::new(Runner::CargoTest);
    let mut seen_result = false;
    for line in text.lines() {
        let line = line.trim();
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
        }
    }
    if !seen_result {
        return None;
    }
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
    }

    #[test]
    fn compile_error_is_not_a_test_result() {
        assert!(parse("error[E0425]: cannot find value `x` in this scope\n").is_none());
    }
}
