//! JUnit XML reports (pytest `--junitxml`, nextest, Maven Surefire, jest-junit, ...), read with
//! the `junit-parser` crate, which accepts the dialects different tools write. Test names are
//! `classname::name` when a classname is present.

use std::borrow::Cow;
use std::io::Cursor;

use junit_parser::{TestCase, TestSuite};

use super::{Runner, TestList, TestStatus, TestSummary, rust_panic};

/// Nested `<testsuite>` elements are allowed by some dialects; bound the recursion so a
/// hostile report cannot exhaust the stack.
const MAX_DEPTH: usize = 32;

pub(crate) fn parse(text: &str, runner: Runner) -> Option<TestSummary> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if !trimmed.starts_with('<') || !trimmed.contains("<testsuite") {
        return None;
    }
    // junit-parser recurses once per nested <testsuite>: refuse absurd nesting rather than
    // overflow the stack (an abort, not even a panic) on a hostile report.
    if suite_depth(trimmed) > MAX_DEPTH {
        return None;
    }
    let wrapped = wrap_bare_cases(trimmed);
    let suites = junit_parser::from_reader(Cursor::new(wrapped.as_bytes())).ok()?;
    let mut s = TestSummary::new(runner);
    let mut tests = TestList::default();
    for suite in &suites.suites {
        add_suite(&mut s, &mut tests, suite, runner, 0);
    }
    s.tests = tests.into_vec();
    Some(s)
}

/// node:test's JUnit reporter puts `<testcase>` elements right under `<testsuites>`, where
/// junit-parser does not look: such a report gets one unnamed `<testsuite>` around its content
/// (the suites inside it are read as nested suites; nothing is counted twice).
fn wrap_bare_cases(xml: &str) -> Cow<'_, str> {
    let wrapped = || -> Option<String> {
        let root = xml.find("<testsuites")?;
        let open_end = root + xml.get(root..)?.find('>')?;
        if xml.get(..open_end)?.ends_with('/') {
            return None;
        }
        let body_start = open_end + 1;
        let close = xml.rfind("</testsuites>")?;
        let body = xml.get(body_start..close)?;
        let first_case = body.find("<testcase")?;
        let first_suite = body
            .match_indices("<testsuite")
            .map(|(i, _)| i)
            .find(|&i| !body.get(i..).is_some_and(|r| r.starts_with("<testsuites")));
        if first_suite.is_some_and(|suite| suite < first_case) {
            return None;
        }
        Some(format!(
            "{}<testsuite name=\"\">{body}</testsuite>{}",
            xml.get(..body_start)?,
            xml.get(close..)?
        ))
    };
    match wrapped() {
        Some(w) => Cow::Owned(w),
        None => Cow::Borrowed(xml),
    }
}

/// The deepest nesting of `<testsuite>` elements, by a plain scan of the tags.
fn suite_depth(xml: &str) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    let mut rest = xml;
    while let Some(i) = rest.find('<') {
        rest = rest.get(i.saturating_add(1)..).unwrap_or("");
        if let Some(after) = rest.strip_prefix("/testsuite") {
            if !after.starts_with('s') {
                depth = depth.saturating_sub(1);
            }
        } else if let Some(after) = rest.strip_prefix("testsuite") {
            if after.starts_with('s') {
                continue;
            }
            let self_closing = after
                .split_once('>')
                .is_some_and(|(attrs, _)| attrs.ends_with('/'));
            if !self_closing {
                depth = depth.saturating_add(1);
                max = max.max(depth);
            }
        }
    }
    max
}

fn add_suite(
    s: &mut TestSummary,
    tests: &mut TestList,
    suite: &TestSuite,
    runner: Runner,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    for case in &suite.cases {
        let node_id = (runner == Runner::Pytest)
            .then(|| pytest_node_id(case))
            .flatten();
        let id = node_id.clone().unwrap_or_else(|| case_id(case));
        // pytest's failures are named as its console names them, by node id, when known.
        let name = node_id.as_deref().unwrap_or(&case.name);
        match &case.status {
            junit_parser::TestStatus::Success => {
                s.passed = s.passed.saturating_add(1);
                tests.add(&id, TestStatus::Passed);
            }
            junit_parser::TestStatus::Skipped(skip) => {
                s.skipped = s.skipped.saturating_add(1);
                // pytest writes its expected failures as `<skipped type="pytest.xfail">`.
                let status = if skip.skipped_type == "pytest.xfail" {
                    TestStatus::XFailed
                } else {
                    TestStatus::Skipped
                };
                tests.add(&id, status);
            }
            junit_parser::TestStatus::Failure(f) => {
                tests.add(&id, TestStatus::Failed);
                fail(s, name, &f.message, &f.text);
            }
            junit_parser::TestStatus::Error(e) => {
                tests.add(&id, TestStatus::Failed);
                fail(s, name, &e.message, &e.text);
            }
        }
    }
    for inner in &suite.suites {
        add_suite(s, tests, inner, runner, depth.saturating_add(1));
    }
}

/// `classname.name` (`com.example.CalcTest.addsWrong`, pytest's `tests.test_x.TestC.test_b[p]`,
/// nextest's `demo.tests::adds`); the `group` attribute stands in for a missing classname; the
/// bare name when there is neither.
fn case_id(case: &TestCase) -> String {
    let name = case.original_name.trim();
    match case
        .classname
        .as_deref()
        .or(case.group.as_deref())
        .map(str::trim)
    {
        Some(class) if !class.is_empty() => format!("{class}.{name}"),
        _ => name.to_owned(),
    }
}

/// pytest's node id (`tests/test_x.py::TestC::test_b[p 1]`) from a report of the xunit1 family
/// (the one pawl asks for, see [`super::ids`]), whose `file` attribute names the test's file:
/// the classname is that file's dotted module followed by the classes. A test inherited from a
/// class in another file has its base's file there, not its own: `None`, and it keeps the
/// `classname.name` id. A collection error is the file, as pytest's console names it.
fn pytest_node_id(case: &TestCase) -> Option<String> {
    let file = case.file.as_deref()?.trim();
    let module = file.strip_suffix(".py")?.replace(['/', '\\'], ".");
    let class = case.classname.as_deref().unwrap_or("").trim();
    let name = case.original_name.trim();
    if class.is_empty() {
        return (name == module).then(|| file.to_owned());
    }
    let classes = if class == module {
        ""
    } else {
        class.strip_prefix(&module)?.strip_prefix('.')?
    };
    let mut id = file.to_owned();
    for c in classes.split('.').filter(|c| !c.is_empty()) {
        id.push_str("::");
        id.push_str(c);
    }
    id.push_str("::");
    id.push_str(name);
    Some(id)
}

fn fail(s: &mut TestSummary, name: &str, message: &str, text: &str) {
    s.failed = s.failed.saturating_add(1);
    s.add_failing(name);
    if s.first_failure.is_some() {
        return;
    }
    // nextest's message is only the panic location; the body has the assertion.
    if let Some(panic) = rust_panic(text, name) {
        s.set_first_failure(&panic);
    } else if !message.trim().is_empty() {
        s.set_first_failure(&format!("{name}\n{}", message.trim()));
    } else {
        s.set_first_failure(&format!("{name}\n{}", text.trim()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_statuses_in_nested_suites() {
        let xml = r#"<testsuites><testsuite name="a"><testsuite name="b">
            <testcase classname="C" name="ok"/>
            <testcase classname="C" name="bad"><failure message="expected 1">trace</failure></testcase>
            <testcase classname="C" name="err"><error message="boom"/></testcase>
            <testcase classname="C" name="later"><skipped/></testcase>
        </testsuite></testsuite></testsuites>"#;
        let s = parse(xml, Runner::Junit).unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (1, 2, 1));
        assert_eq!(s.failing, ["C::bad", "C::err"]);
        assert_eq!(s.first_failure.as_deref(), Some("C::bad\nexpected 1"));
        let ids: Vec<(&str, TestStatus)> =
            s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            ids,
            [
                ("C.ok", TestStatus::Passed),
                ("C.bad", TestStatus::Failed),
                ("C.err", TestStatus::Failed),
                ("C.later", TestStatus::Skipped)
            ]
        );
    }

    #[test]
    fn pytest_xunit1_reports_give_node_ids() {
        // Recorded from pytest 8.4 with `--junitxml=... -o junit_family=xunit1` (bodies cut).
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="0" failures="1" skipped="1" tests="5">
<testcase classname="tests.test_a" name="test_ok" file="tests/test_a.py" line="1" time="0.001" />
<testcase classname="tests.test_a" name="test_bad" file="tests/test_a.py" line="2" time="0.000"><failure message="assert 0">E   assert 0</failure></testcase>
<testcase classname="tests.test_a" name="test_skip" file="tests/test_a.py" line="3" time="0.000"><skipped type="pytest.skip" message="unconditional skip">skip</skipped></testcase>
<testcase classname="tests.test_a.TestC" name="test_p[1]" file="tests/test_a.py" line="6" time="0.000" />
<testcase classname="tests.test_inh.TestD" name="test_p[1]" file="tests/test_a.py" line="6" time="0.000" />
<testcase classname="" name="tests.sub.test_err" file="tests/sub/test_err.py" time="0.000"><error message="collection failure">ImportError</error></testcase>
</testsuite></testsuites>"#;
        let s = parse(xml, Runner::Pytest).unwrap();
        let ids: Vec<(&str, TestStatus)> =
            s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            ids,
            [
                ("tests/test_a.py::test_ok", TestStatus::Passed),
                ("tests/test_a.py::test_bad", TestStatus::Failed),
                ("tests/test_a.py::test_skip", TestStatus::Skipped),
                ("tests/test_a.py::TestC::test_p[1]", TestStatus::Passed),
                // Inherited from tests/test_a.py: its own file is not in the report.
                ("tests.test_inh.TestD.test_p[1]", TestStatus::Passed),
                ("tests/sub/test_err.py", TestStatus::Failed),
            ]
        );
        assert_eq!(
            s.failing,
            ["tests/test_a.py::test_bad", "tests/sub/test_err.py"]
        );
        // Other runners' reports keep `classname.name`, whatever attributes they carry.
        let j = parse(xml, Runner::Junit).unwrap();
        assert_eq!(j.tests[0].id, "tests.test_a.test_ok");
    }

    #[test]
    fn not_xml_is_none() {
        assert!(parse("hello", Runner::Junit).is_none());
        assert!(parse("<testsuite", Runner::Junit).is_none());
    }
}

#[cfg(test)]
mod deep {
    use super::*;

    #[test]
    fn deeply_nested_suites_do_not_overflow_the_stack() {
        let n = 100_000;
        let xml = format!(
            "<testsuites>{}{}</testsuites>",
            "<testsuite>".repeat(n),
            "</testsuite>".repeat(n)
        );
        assert!(parse(&xml, Runner::Junit).is_none());
        assert_eq!(
            suite_depth("<testsuites><testsuite><testsuite/></testsuite></testsuites>"),
            1
        );
    }
}
