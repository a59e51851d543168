use super::*;

/// The Python fixture of issue 35: one failing test at the baseline, `parse` defined in
/// `calc.py`; and a clippy gate failing on warnings nobody asked about.
fn facts(found: &[&str], lint_failing: bool) -> RunFacts {
    let mut failures = vec![BaselineFailure {
        check: "test".into(),
        test: Some("tests/test_calc.py::test_parse_negative".into()),
        runs_tests: true,
        text: "assert parse('{:d}', '-12') == -12\nAssertionError: assert 12 == -12".into(),
    }];
    if lint_failing {
        failures.push(BaselineFailure {
            check: "lint".into(),
            test: None,
            runs_tests: false,
            text: "warning: unused variable: `x` --> src/other.rs".into(),
        });
    }
    RunFacts {
        failures,
        found: found.iter().map(|s| s.to_string()).collect(),
    }
}

const TEST: &str = "test:tests/test_calc.py::test_parse_negative";

/// (goal, repository has, a lint check fails too, anchored, targets as `check:test`).
type Row = (
    &'static str,
    &'static [&'static str],
    bool,
    bool,
    &'static [&'static str],
);

const ROWS: &[Row] = &[
    ("make the failing test pass", &[], false, true, &[TEST]),
    ("make the failing tests pass", &[], false, true, &[TEST]),
    ("Make the failing test pass.", &[], true, true, &[TEST]),
    (
        "parse returns a positive number for negative input",
        &["parse"],
        false,
        true,
        &[TEST],
    ),
    (
        "parse(\"{:d}\", \"-12\") returns 12 instead of -12",
        &["parse"],
        true,
        true,
        &[TEST],
    ),
    (
        "Fix issue #12: negative numbers lose their sign",
        &[],
        true,
        true,
        &[TEST],
    ),
    ("fix the bug", &[], true, true, &[TEST]),
    ("make it better", &[], false, false, &[]),
    ("make it better", &[], true, false, &[]),
    ("clean up", &[], false, false, &[]),
    // Another aim: the failing test is not what the goal is about.
    ("make it faster", &[], false, false, &[]),
    // A symbol the repository has anchors the goal, and a failure that exercises it is
    // targeted whatever the wording.
    ("make parse faster", &["parse"], false, true, &[TEST]),
    // A word the repository does not define is no anchor.
    ("make frobnicate work", &[], false, false, &[]),
    // Aimed at the warnings: the lint check is targeted, not the test.
    ("fix the clippy warnings", &[], true, true, &["lint"]),
    // The check named by its name.
    ("make lint pass", &[], true, true, &["lint"]),
    // Naming the test.
    (
        "test_parse_negative should pass",
        &["test_parse_negative"],
        true,
        true,
        &[TEST],
    ),
    // A path the repository has.
    (
        "add a --verbose flag to calc.py",
        &["calc.py"],
        false,
        true,
        &[],
    ),
];

#[test]
fn goals_are_anchored_on_facts() {
    for (goal, found, lint, anchored, want) in ROWS {
        let a = anchor(goal, &facts(found, *lint));
        assert_eq!(a.anchored(), *anchored, "{goal}: {a:?}");
        let got: Vec<String> = a
            .targets
            .iter()
            .map(|t| match &t.test {
                Some(x) => format!("{}:{x}", t.check),
                None => t.check.clone(),
            })
            .collect();
        assert_eq!(got, *want, "{goal}: {a:?}");
    }
}

#[test]
fn without_a_failing_baseline_only_the_repository_and_issues_anchor() {
    let none = RunFacts::default();
    assert!(!anchor("make the failing test pass", &none).anchored());
    assert!(anchor("Fix issue #12", &none).anchored());
    let found = RunFacts {
        failures: vec![],
        found: ["parse".to_string()].into(),
    };
    assert!(anchor("parse drops the sign", &found).anchored());
}

#[test]
fn candidates_are_code_and_uncommon_words_never_punctuation() {
    let c = candidates("parse(\"{:d}\", \"-12\") in src/calc.rs: the `parse_int` and fooBar — !!");
    let terms: Vec<(&str, Lookup)> = c.iter().map(|c| (c.term.as_str(), c.lookup)).collect();
    assert!(terms.contains(&("parse", Lookup::Definition)), "{terms:?}");
    assert!(terms.contains(&("src/calc.rs", Lookup::Path)), "{terms:?}");
    assert!(terms.contains(&("parse_int", Lookup::Word)), "{terms:?}");
    assert!(terms.contains(&("fooBar", Lookup::Word)), "{terms:?}");
    assert!(
        !terms
            .iter()
            .any(|(t, _)| *t == "the" || t.contains('"') || t.contains('{') || *t == "—"),
        "{terms:?}"
    );
}

#[test]
fn whole_words_only() {
    assert!(has_word("fn parse(x)", "parse"));
    assert!(!has_word("fn parser(x)", "parse"));
    assert!(!has_word("reparse", "parse"));
    assert!(has_word("é parse", "parse"));
    assert!(!has_word("", "parse"));
}

#[test]
fn which_failure_items_the_goal_targets() {
    let test = crate::against::FailureItem {
        tool: "tests".into(),
        rule: "failed".into(),
        file: String::new(),
        message: "tests/test_calc.py::test_parse_negative".into(),
    };
    let lint = crate::against::FailureItem {
        tool: "rust".into(),
        rule: "clippy::needless_return".into(),
        file: "src/other.rs".into(),
        message: "unneeded `return` statement".into(),
    };
    // (goal, the test targeted, the lint item targeted)
    for (goal, t, l) in [
        ("make the failing test pass", true, false),
        ("fix the clippy warnings", false, true),
        // Targets nothing, names no other aim: the failing tests are still what it is for.
        ("make add() add", true, false),
        // Another aim: the failing test only must not get worse.
        ("make it faster", false, false),
    ] {
        let a = anchor(goal, &facts(&[], true));
        assert_eq!(a.targets_item("test", &test), t, "{goal}: {a:?}");
        assert_eq!(a.targets_item("lint", &lint), l, "{goal}: {a:?}");
    }
}
