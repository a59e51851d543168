//! The total coverage figure in a coverage tool's console output: coverage.py and pytest-cov
//! (`TOTAL … 64%`), c8 and nyc (the `All files` row's `% Lines`), go (`total: (statements)
//! 50.0%` from `go tool cover -func`, else the lowest `coverage: N% of statements` of
//! `go test -cover`), cargo llvm-cov (the `TOTAL` row's line cover) and cargo tarpaulin
//! (`N% coverage, a/b lines covered`).
//!
//! Not a judgement: whether the figure is enough is pawl-core's (`pawl_core::coverage`). The
//! output of a check that is no coverage tool gives `None`. The fixtures in
//! `tests/data/coverage/` are recorded outputs of the real tools.

use crate::text::strip_ansi;

/// The total line coverage (percent) the output reports, when it reports one.
pub fn total_percent(output: &str) -> Option<f64> {
    let text = strip_ansi(output);
    // A check's stored tail prefixes each line with its stream (`out| `, `err| `).
    let lines: Vec<&str> = text
        .lines()
        .map(|l| {
            l.strip_prefix("out| ")
                .or_else(|| l.strip_prefix("err| "))
                .unwrap_or(l)
                .trim()
        })
        .collect();
    // The last total wins: a tool run twice (or a report after a re-run) ends with its latest.
    lines
        .iter()
        .rev()
        .find_map(|l| go_func_total(l))
        .or_else(|| {
            lines.iter().rev().find_map(|l| {
                tarpaulin(l)
                    .or_else(|| istanbul_all_files(l))
                    .or_else(|| total_row(l))
            })
        })
        .or_else(|| go_test_cover(&lines))
}

/// A number followed by `%` (`64%`, `50.0%`).
fn pct(word: &str) -> Option<f64> {
    let n: f64 = word.strip_suffix('%')?.parse().ok()?;
    (0.0..=100.0).contains(&n).then_some(n)
}

/// `total:  (statements)  50.0%` (`go tool cover -func`).
fn go_func_total(line: &str) -> Option<f64> {
    let rest = line.strip_prefix("total:")?;
    let mut words = rest.split_whitespace();
    (words.next()? == "(statements)").then_some(())?;
    pct(words.next()?)
}

/// `85.00% coverage, 17/20 lines covered` (cargo tarpaulin).
fn tarpaulin(line: &str) -> Option<f64> {
    let (figure, rest) = line.split_once(' ')?;
    rest.starts_with("coverage, ").then_some(())?;
    rest.contains("lines covered").then_some(())?;
    pct(figure)
}

/// `All files |   66.66 |      100 |      50 |   66.66 |` (c8, nyc: istanbul's text table).
/// The fourth number is `% Lines`.
fn istanbul_all_files(line: &str) -> Option<f64> {
    let mut cells = line.split('|').map(str::trim);
    (cells.next()? == "All files").then_some(())?;
    let numbers: Vec<f64> = cells.filter_map(|c| c.parse().ok()).collect();
    numbers
        .get(3)
        .copied()
        .filter(|n| (0.0..=100.0).contains(n))
}

/// `TOTAL   11   4   64%` (coverage.py, pytest-cov: one percentage, the last column) or
/// llvm-cov's `TOTAL` row (regions, functions, lines, branches: the third percentage is lines).
fn total_row(line: &str) -> Option<f64> {
    let mut words = line.split_whitespace();
    (words.next()? == "TOTAL").then_some(())?;
    let percents: Vec<f64> = words.filter_map(pct).collect();
    match percents.len() {
        0 => None,
        1 | 2 => percents.last().copied(),
        _ => percents.get(2).copied(),
    }
}

/// `ok  pkg  0.005s  coverage: 50.0% of statements` (`go test -cover`): the lowest package's.
fn go_test_cover(lines: &[&str]) -> Option<f64> {
    lines
        .iter()
        .filter_map(|l| {
            let (_, rest) = l.split_once("coverage: ")?;
            let (figure, tail) = rest.split_once(' ')?;
            tail.starts_with("of statements").then_some(())?;
            pct(figure)
        })
        .reduce(f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!("{}/tests/data/coverage/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn recorded_outputs_of_the_real_tools() {
        for (file, want) in [
            ("coverage_py_report.txt", 64.0),
            ("pytest_cov.txt", 64.0),
            ("c8.txt", 66.66),
            ("nyc.txt", 66.66),
            ("go_test_cover.txt", 50.0),
            ("go_tool_cover_func.txt", 50.0),
        ] {
            assert_eq!(total_percent(&fixture(file)), Some(want), "{file}");
        }
    }

    #[test]
    fn cargo_tools_rows() {
        // cargo llvm-cov --summary-only: regions, functions, lines, branches.
        let llvm = "Filename  Regions  Missed Regions  Cover  Functions  Missed Functions  Executed  Lines  Missed Lines  Cover  Branches  Missed Branches  Cover\n---\nTOTAL  120  30  75.00%  20  5  75.00%  200  20  90.00%  0  0  -\n";
        assert_eq!(total_percent(llvm), Some(90.0));
        let tarpaulin = "|| src/lib.rs: 17/20\n||\n85.00% coverage, 17/20 lines covered\n";
        assert_eq!(total_percent(tarpaulin), Some(85.0));
    }

    #[test]
    fn outputs_that_are_no_coverage_report() {
        for text in [
            "",
            "1 passed in 0.07s",
            "test result: ok. 3 passed; 0 failed",
            "TOTAL: 3 tests",
            "ok  \texample.com/calc\t0.005s",
        ] {
            assert_eq!(total_percent(text), None, "{text}");
        }
    }

    #[test]
    fn a_stored_tail_with_stream_prefixes() {
        let tail: String = fixture("coverage_py_report.txt")
            .lines()
            .map(|l| format!("out| {l}\n"))
            .collect();
        assert_eq!(total_percent(&tail), Some(64.0));
    }

    #[test]
    fn the_lowest_go_package_is_the_figure() {
        let out = "ok  \ta/x\t0.1s\tcoverage: 80.0% of statements\nok  \ta/y\t0.1s\tcoverage: 40.5% of statements\n";
        assert_eq!(total_percent(out), Some(40.5));
    }
}
