//! `go test`: the `-json` event stream (test2json: one `{"Action":...}` object a line) and the
//! plain output (`--- FAIL: TestX (0.00s)`, `FAIL\tpkg\t0.01s`, `ok  \tpkg\t0.01s`).
//!
//! A parent test fails when a subtest fails, so `failing` and `failed` count leaves only (a
//! failing test none of whose subtests failed); passes and skips count every test. A package
//! that fails with no failing test (build error, panic in TestMain) counts as one failure
//! named after the package, with the compiler's errors (the `# pkg` block) as its message.
//! Before Go 1.24 a build failure is not in the `-json` stream at all: `FAIL\tpkg [build
//! failed]` comes as plain text on stdout and the errors on stderr; both shapes are read.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use super::{IdCoverage, MAX_TESTS, Runner, TestList, TestStatus, TestSummary};

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Event {
    action: String,
    #[serde(default)]
    package: Option<String>,
    #[serde(default)]
    import_path: Option<String>,
    #[serde(default)]
    test: Option<String>,
    #[serde(default)]
    output: Option<String>,
}

pub(crate) fn parse(text: &str) -> Option<TestSummary> {
    parse_json(text).or_else(|| parse_plain(text))
}

fn parse_json(text: &str) -> Option<TestSummary> {
    let mut any = false;
    // Keyed by (package, test); output gathered per test for the first failure's message.
    let mut output: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut failed_tests: Vec<(String, String)> = Vec::new();
    let mut failed_packages: Vec<String> = Vec::new();
    let mut build_output: BTreeMap<String, String> = BTreeMap::new();
    let mut s = TestSummary::new(Runner::GoTest);
    let mut tests = TestList::default();
    for line in text.lines() {
        let line = line.trim();
        if !line.starts_with('{') {
            if let Some(pkg) = plain_package_failure(line)
                && !failed_packages.iter().any(|p| p == pkg)
            {
                failed_packages.push(pkg.to_owned());
            }
            continue;
        }
        let Ok(ev) = serde_json::from_str::<Event>(line) else {
            continue;
        };
        any = true;
        let pkg = ev
            .package
            .clone()
            .or(ev.import_path.clone())
            .unwrap_or_default();
        match (ev.action.as_str(), &ev.test) {
            ("output", Some(test)) => {
                let buf = output.entry((pkg, test.clone())).or_default();
                if buf.len() < 64 * 1024 {
                    buf.push_str(ev.output.as_deref().unwrap_or(""));
                }
            }
            ("build-output", _) | ("output", None) => {
                let buf = build_output.entry(pkg).or_default();
                if buf.len() < 64 * 1024 {
                    buf.push_str(ev.output.as_deref().unwrap_or(""));
                }
            }
            ("pass", Some(test)) => {
                s.passed = s.passed.saturating_add(1);
                tests.add(&test_id(&pkg, test), TestStatus::Passed);
            }
            ("skip", Some(test)) => {
                s.skipped = s.skipped.saturating_add(1);
                tests.add(&test_id(&pkg, test), TestStatus::Skipped);
            }
            ("fail", Some(test)) => {
                tests.add(&test_id(&pkg, test), TestStatus::Failed);
                failed_tests.push((pkg, test.clone()));
            }
            ("fail", None) | ("build-fail", _) if !failed_packages.contains(&pkg) => {
                failed_packages.push(pkg);
            }
            _ => {}
        }
    }
    if !any {
        return None;
    }
    for (pkg, errors) in build_errors(text) {
        build_output.entry(pkg).or_insert(errors);
    }
    let parents = failed_parents(failed_tests.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let leaves: Vec<&(String, String)> = failed_tests
        .iter()
        .filter(|(p, t)| !parents.contains(&(p.as_str(), t.as_str())))
        .collect();
    for (pkg, test) in &leaves {
        s.failed = s.failed.saturating_add(1);
        s.add_failing(test);
        if let Some(out) = output.get(&(pkg.clone(), test.clone())) {
            s.set_first_failure(&format!("{test}\n{}", test_output(out)));
        }
    }
    for pkg in &failed_packages {
        if !failed_tests.iter().any(|(p, _)| p == pkg) {
            s.failed = s.failed.saturating_add(1);
            s.add_failing(pkg);
            tests.add(pkg, TestStatus::Failed);
            if let Some(out) = build_output.get(pkg) {
                s.set_first_failure(&format!("{pkg}\n{}", out.trim()));
            }
        }
    }
    s.tests = tests.into_vec();
    Some(s)
}

/// `example.com/calc` and `TestSub/negative` → `example.com/calc/TestSub/negative`.
fn test_id(pkg: &str, test: &str) -> String {
    if pkg.is_empty() {
        test.to_owned()
    } else {
        format!("{pkg}/{test}")
    }
}

/// Every `(package, test)` that is the parent of a failing subtest (`T` and `T/a` for
/// `T/a/b`). Built once so finding leaves stays linear in the number of failures, whatever the
/// output holds.
fn failed_parents<'a>(
    failed: impl Iterator<Item = (&'a str, &'a str)>,
) -> BTreeSet<(&'a str, &'a str)> {
    let mut parents = BTreeSet::new();
    for (pkg, test) in failed {
        for (i, c) in test.char_indices() {
            if c == '/'
                && let Some(parent) = test.get(..i)
            {
                parents.insert((pkg, parent));
            }
        }
    }
    parents
}

/// A test's own log lines, without the `=== RUN` / `--- FAIL` framing go adds.
fn test_output(out: &str) -> String {
    out.lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("=== ") || t.starts_with("--- "))
        })
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("\n")
}

fn parse_plain(text: &str) -> Option<TestSummary> {
    let mut s = TestSummary::new(Runner::GoTest);
    let mut any = false;
    let mut failed: Vec<String> = Vec::new();
    // Packages that failed with no failing test of their own.
    let mut package_failures: Vec<String> = Vec::new();
    let mut tests = TestList::default();
    // A package's tests print before its `ok`/`FAIL` line, which names the package.
    let mut pending: Vec<(String, TestStatus)> = Vec::new();
    // `-v` prints `=== RUN` before every test; without it only failures are printed.
    let mut verbose = false;
    for line in text.lines() {
        let t = line.trim();
        verbose |= t.starts_with("=== RUN ");
        if let Some(rest) = t.strip_prefix("--- FAIL: ") {
            any = true;
            let name = pend(&mut pending, rest, TestStatus::Failed);
            failed.push(name);
        } else if let Some(rest) = t.strip_prefix("--- PASS: ") {
            any = true;
            s.passed = s.passed.saturating_add(1);
            pend(&mut pending, rest, TestStatus::Passed);
        } else if let Some(rest) = t.strip_prefix("--- SKIP: ") {
            any = true;
            s.skipped = s.skipped.saturating_add(1);
            pend(&mut pending, rest, TestStatus::Skipped);
        } else if let Some(rest) = t.strip_prefix("FAIL\t").or_else(|| t.strip_prefix("FAIL ")) {
            any = true;
            let pkg = rest.split_whitespace().next().unwrap_or("");
            if !pkg.is_empty() && !pending.iter().any(|(_, st)| *st == TestStatus::Failed) {
                // Failed with no failing test: a build error, a panic in TestMain.
                tests.add(pkg, TestStatus::Failed);
                if !package_failures.iter().any(|p| p == pkg) {
                    package_failures.push(pkg.to_owned());
                }
            }
            flush(&mut tests, &mut pending, pkg);
        } else if let Some(rest) = t.strip_prefix("ok  \t").or_else(|| t.strip_prefix("ok \t")) {
            any = true;
            let pkg = rest.split_whitespace().next().unwrap_or("");
            flush(&mut tests, &mut pending, pkg);
        }
    }
    flush(&mut tests, &mut pending, "");
    if !any {
        return None;
    }
    let parents = failed_parents(failed.iter().map(|t| ("", t.as_str())));
    let leaves: Vec<&String> = failed
        .iter()
        .filter(|t| !parents.contains(&("", t.as_str())))
        .collect();
    for t in &leaves {
        s.failed = s.failed.saturating_add(1);
        s.add_failing(t);
    }
    // "FAIL\tpkg [build failed]" or a package that failed without a `--- FAIL` line.
    for pkg in &package_failures {
        s.failed = s.failed.saturating_add(1);
        s.add_failing(pkg);
    }
    if let Some(first) = leaves.first() {
        s.set_first_failure(&format!("{first}\n{}", plain_message(text, first)));
    }
    let errors = build_errors(text);
    for pkg in &package_failures {
        if let Some(e) = errors.get(pkg) {
            s.set_first_failure(&format!("{pkg}\n{e}"));
        }
    }
    s.tests = tests.into_vec();
    if !verbose {
        // Passing tests are neither named nor counted: the counts are only the failures'.
        s.ids = IdCoverage::FailuresOnly {
            named: u64::try_from(s.tests.len()).unwrap_or(u64::MAX),
        };
    }
    Some(s)
}

/// `FAIL\texample.com/a [build failed]` (or `[setup failed]`) → `example.com/a`.
fn plain_package_failure(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("FAIL\t")
        .or_else(|| line.strip_prefix("FAIL "))?;
    let (pkg, tail) = rest.trim().split_once(' ')?;
    (tail.starts_with("[build failed]") || tail.starts_with("[setup failed]")).then_some(pkg)
}

/// The compiler's errors per package: the lines after `# example.com/a [example.com/a.test]`
/// up to the next such header, a `FAIL` line or a JSON event.
fn build_errors(text: &str) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let t = line.trim_end();
        if let Some(header) = t.strip_prefix("# ") {
            current = header.split_whitespace().next().map(str::to_owned);
            continue;
        }
        if t.starts_with('{') || t.starts_with("FAIL") || t.starts_with("ok ") {
            current = None;
            continue;
        }
        if let Some(pkg) = &current
            && !t.trim().is_empty()
        {
            let buf = out.entry(pkg.clone()).or_default();
            if buf.len() < 16 * 1024 {
                if !buf.is_empty() {
                    buf.push('\n');
                }
                buf.push_str(t.trim());
            }
        }
    }
    out
}

/// Keeps a `--- PASS: name (0.00s)` line's test until its package line; returns the name.
fn pend(pending: &mut Vec<(String, TestStatus)>, rest: &str, status: TestStatus) -> String {
    let name = rest.split(" (").next().unwrap_or(rest).trim();
    if pending.len() < MAX_TESTS {
        pending.push((name.to_owned(), status));
    }
    name.to_owned()
}

/// Adds the tests seen since the last package line under `pkg` (bare names when the output
/// never names their package).
fn flush(tests: &mut TestList, pending: &mut Vec<(String, TestStatus)>, pkg: &str) {
    for (name, status) in pending.drain(..) {
        tests.add(&test_id(pkg, &name), status);
    }
}

/// A test's log lines in plain output: with `-v` they stream after `=== RUN   name`, without it
/// they follow `--- FAIL: name`, indented one level deeper.
fn plain_message(text: &str, test: &str) -> String {
    let run = format!("=== RUN   {test}");
    let fail = format!("--- FAIL: {test} (");
    let mut out: Vec<&str> = Vec::new();
    let mut collecting = false;
    for line in text.lines() {
        let t = line.trim();
        if t == run || t.starts_with(&fail) {
            collecting = true;
            continue;
        }
        if collecting {
            if t.starts_with("=== ") || t.starts_with("--- ") || !line.starts_with(' ') {
                collecting = false;
            } else if !t.is_empty() {
                out.push(t);
            }
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtest_failure_counts_leaf_only() {
        let text = "=== RUN   TestA\n=== RUN   TestA/one\n    a_test.go:9: got 1\n--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/one (0.00s)\nFAIL\nFAIL\texample.com/a\t0.01s\n";
        let s = parse(text).unwrap();
        assert_eq!(s.failed, 1);
        assert_eq!(s.failing, ["TestA/one"]);
        let ids: Vec<(&str, TestStatus)> =
            s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            ids,
            [
                ("example.com/a/TestA", TestStatus::Failed),
                ("example.com/a/TestA/one", TestStatus::Failed)
            ]
        );
    }

    #[test]
    fn plain_output_without_a_package_line_keeps_bare_names() {
        let s = parse("--- FAIL: TestX (0.00s)\n--- SKIP: TestY (0.00s)\n").unwrap();
        let ids: Vec<(&str, TestStatus)> =
            s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            ids,
            [
                ("TestX", TestStatus::Failed),
                ("TestY", TestStatus::Skipped)
            ]
        );
    }

    #[test]
    fn build_failure_names_the_package() {
        let text =
            "# example.com/a\n./a.go:3:1: syntax error\nFAIL\texample.com/a [build failed]\nFAIL\n";
        let s = parse(text).unwrap();
        assert_eq!(s.failed, 1);
        assert_eq!(s.failing, ["example.com/a"]);
        assert_eq!(s.tests.len(), 1);
        assert_eq!(s.tests[0].id, "example.com/a");
        assert_eq!(s.tests[0].status, TestStatus::Failed);
    }
}
