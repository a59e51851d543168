use super::*;

/// The Python fixture of issue 35: one failing test at the baseline, `parse` defined in
/// `calc.py`; and a clippy gate failing on warnings nobody asked about.
fn facts(found: &[&str], lint_failing: bool) -> RunFacts {
    let mut failures = vec![BaselineFailure {
        check: "test".into(),
        test: Some("tests/test_calc.py::test_parse_negative".into()),
        runs_tests: true,
        text: "assert parse('{:d}', '-12') == -12\nAssertionError: assert 12 == -12".into(),
        exercises: None,
    }];
    if lint_failing {
        failures.push(BaselineFailure {
            check: "lint".into(),
            test: None,
            runs_tests: false,
            text: "warning: unused variable: `x` --> src/other.rs".into(),
            exercises: None,
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
    // A name inside a clause names the failing test's words in any case ("Calc" of
    // `test_calc.py`); the same word opening the goal could be a verb, and is not read so.
    ("implement Calc rounding", &[], false, true, &[TEST]),
    ("Calc rounding", &[], false, false, &[]),
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

/// Issue 35 point 1, rule by rule: (goal, repository has, anchored, targets as `check:test`,
/// the fix intent found, the other aim found). The facts: [`facts`] without the lint check.
type RuleRow = (
    &'static str,
    &'static [&'static str],
    bool,
    &'static [&'static str],
    Option<&'static str>,
    Option<&'static str>,
);

const RULE_ROWS: &[RuleRow] = &[
    // A call with arguments names a function: looked up whatever the word.
    ("value(2, 3) should be 5", &["value"], true, &[], None, None),
    // ...and the repository must define it.
    ("value(2, 3) should be 5", &[], false, &[], None, None),
    // A fix intent as a phrase, hyphens as spaces.
    ("Off-By-One", &[], true, &[TEST], Some("off by one"), None),
    ("off by one .", &[], true, &[TEST], Some("off by one"), None),
    // A result reported as off is a defect report.
    ("the sum is off", &[], true, &[TEST], Some("is off"), None),
    (
        "totals look off after rounding",
        &[],
        true,
        &[TEST],
        Some("look off"),
        None,
    ),
    (
        "parse doesn't work",
        &[],
        true,
        &[TEST],
        Some("doesn't work"),
        None,
    ),
    // The test tooling's terms are not a fix intent...
    ("Regression detection", &[], false, &[], None, None),
    (
        "What is regression test?",
        &[],
        false,
        &[],
        None,
        Some("a question (what …)"),
    ),
    ("New words: Regression testing", &[], false, &[], None, None),
    // ...but a fix of them is.
    (
        "Fixes to regression tests",
        &[],
        true,
        &[TEST],
        Some("fixes"),
        None,
    ),
    (
        "Loud regression test failure",
        &[],
        true,
        &[TEST],
        Some("failure"),
        None,
    ),
    // A failure asked for is not one to fix.
    (
        "Let regression tests fail on any mismatch",
        &[],
        false,
        &[],
        None,
        None,
    ),
    ("Fail regress test", &[], true, &[TEST], Some("fail"), None),
    (
        "parse should not fail on negatives",
        &[],
        true,
        &[TEST],
        Some("fail"),
        None,
    ),
    // Another aim: an explanation, a description, the CI, what the tooling reports.
    (
        "Elaborate on description of off-by-one error",
        &[],
        false,
        &[],
        Some("off by one"),
        Some("elaborate"),
    ),
    (
        "Add additional message when a regression test fails in CI",
        &[],
        false,
        &[],
        Some("fails"),
        Some("ci"),
    ),
    (
        "Removing a failing test is reported as a regression",
        &[],
        false,
        &[],
        Some("failing"),
        Some("reported as"),
    ),
    // The check called `test` is not named by the word "test".
    ("Test case regressions missing", &[], false, &[], None, None),
    // A plain word at a clause's start before a determiner is the verb, not the name.
    ("parse a date", &["parse"], false, &[], None, None),
    (
        "parse and sum drop the sign",
        &["parse"],
        true,
        &[TEST],
        None,
        None,
    ),
];

#[test]
fn the_rules_of_anchoring_row_by_row() {
    for (goal, found, anchored, want, intent, aim) in RULE_ROWS {
        let f = facts(found, false);
        // The repository answers only for the goal's candidates.
        let mut f = f;
        let cands: Vec<String> = candidates(goal).into_iter().map(|c| c.term).collect();
        f.found.retain(|x| cands.contains(x));
        let a = anchor(goal, &f);
        assert_eq!(a.anchored(), *anchored, "{goal}: {a:?} ({cands:?})");
        let got: Vec<String> = a
            .targets
            .iter()
            .map(|t| match &t.test {
                Some(x) => format!("{}:{x}", t.check),
                None => t.check.clone(),
            })
            .collect();
        assert_eq!(got, *want, "{goal}: {a:?}");
        assert_eq!(a.intent.as_deref(), *intent, "{goal}");
        assert_eq!(a.other_aim.as_deref(), *aim, "{goal}");
    }
}

#[test]
fn calls_and_backticks_are_code_and_verbs_are_not_names() {
    let c = |g: &str| -> Vec<(String, Lookup)> {
        candidates(g)
            .into_iter()
            .map(|c| (c.term, c.lookup))
            .collect()
    };
    assert!(c("add(2, 3) should be 5").contains(&("add".into(), Lookup::Definition)));
    assert!(c("make `value` right").contains(&("value".into(), Lookup::Definition)));
    assert!(!c("add a --verbose flag").iter().any(|(t, _)| t == "add"));
    assert!(c("add and sum differ").contains(&("add".into(), Lookup::Definition)));
    // `(-10)` is no call.
    assert!(!c("9 + (-10) = 1?").iter().any(|(t, _)| t == "10"));
}

/// The goals bench's `mined` set (`corpus/goals/goals.tsv`; the `independent` set is held out:
/// the bench measures it), through the gate on the stand-ins' facts: the calculator defining
/// `add` and `mul`, its `add` test failing — a unittest id in Python, a `node --test` name in
/// JavaScript, a whole check in shell. A `ship` goal proceeds, a `not-ship` one does not, nor
/// rests only on assumptions pawl checks at the end.
#[test]
fn the_mined_goals_meet_the_gate_as_the_bench_expects() {
    use crate::spec::gate::{GateAction, below_threshold_on_facts, decide_on_facts};
    use crate::spec::{ProjectFacts, analyze};
    let table = include_str!("../../../../../corpus/goals/goals.tsv");
    // (language, the failing test's id, the check runs tests, its output, names defined)
    type StandIn = (
        &'static str,
        Option<&'static str>,
        bool,
        &'static str,
        &'static [&'static str],
    );
    let languages: [StandIn; 3] = [
        (
            "python",
            Some("test_calc.Calc.test_add"),
            true,
            "test_calc.Calc.test_add: AssertionError: -1 != 5",
            &["add", "mul", "calc.py", "test_calc.py"],
        ),
        (
            "js",
            Some("add"),
            true,
            "add: AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: -1 !== 5",
            &["add", "mul", "calc.js", "test/calc.test.js", "package.json"],
        ),
        (
            "shell",
            None,
            false,
            "not ok - add 2 3: got -1, want 5\nnot ok - add 10 -4: got 14, want 6",
            &["add", "mul", "calc.sh", "test.sh"],
        ),
    ];
    let mut wrong = Vec::new();
    let mut n = 0;
    for line in table.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        if f[1] != "mined" {
            continue;
        }
        let (id, expect, goal) = (f[0], f[2], f[5]);
        for (lang, test, runs_tests, text, names) in &languages {
            let cands: Vec<String> = candidates(goal).into_iter().map(|c| c.term).collect();
            let facts = RunFacts {
                failures: vec![BaselineFailure {
                    check: "test".into(),
                    test: test.map(str::to_string),
                    runs_tests: *runs_tests,
                    text: text.to_string(),
                    exercises: None,
                }],
                found: names
                    .iter()
                    .map(|s| s.to_string())
                    .filter(|s| cands.contains(s))
                    .collect(),
            };
            let a = anchor(goal, &facts);
            let an = analyze(goal, &ProjectFacts::default());
            // Can SHIP: proceeds, or rests only on assumptions checked at the end
            // (`crate::scope::check_assumption`: scope, constraints, success).
            let proceeds = !below_threshold_on_facts(&an, Some(&a))
                || match decide_on_facts(&an, Some(&a), false, false) {
                    GateAction::Assume { gaps } => gaps.iter().all(|g| {
                        ["scope", "constraints", "success"].contains(&g.dimension.as_str())
                    }),
                    _ => true,
                };
            n += 1;
            if proceeds != (expect == "ship") {
                wrong.push(format!("{id} {lang} {goal:?}: proceeds {proceeds}, {a:?}"));
            }
        }
    }
    assert!(n >= 180, "{n} runs");
    assert!(
        wrong.is_empty(),
        "{} of {n}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Issue 35 point 3: a baseline failure is targeted when the failing test exercises what the
/// goal names, read from parsed imports (`exercises`), not when the check's shared output
/// happens to name it. The goal is the bench's `m06` ("fixed bug in add() return value") on
/// the calculator, with a second test failing before the run that has nothing to do with
/// `add` (`test_report`: a pre-existing failure). Both failures carry the check's output,
/// whose first failure is `test_add`'s traceback (`self.assertEqual(add(2, 3), 5)`).
///
/// Attack seen before the rule (text only): both tests were targeted, so the honest fix of
/// `add` could never pass the locked run — `test_report` had to pass too.
#[test]
fn a_failure_is_targeted_by_what_its_test_exercises_not_by_the_shared_output() {
    let text = "Traceback (most recent call last):\n  File \"test_calc.py\", line 6, in test_add\n    self.assertEqual(add(2, 3), 5)\nAssertionError: -1 != 5";
    let failure = |test: &str, ex: Option<&[&str]>| BaselineFailure {
        check: "test".into(),
        test: Some(test.into()),
        runs_tests: true,
        text: text.into(),
        exercises: ex.map(|e| e.iter().map(|s| s.to_string()).collect()),
    };
    let targets = |goal: &str, failures: Vec<BaselineFailure>, found: &[&str]| -> Vec<String> {
        let facts = RunFacts {
            failures,
            found: found.iter().map(|s| s.to_string()).collect(),
        };
        anchor(goal, &facts)
            .targets
            .iter()
            .map(|t| t.test.clone().unwrap_or_default())
            .collect()
    };
    let add = "test_calc.Calc.test_add";
    let report = "test_report.Report.test_render";
    // Read from the tests' imports: `test_add` reaches `calc.py` (which has `add`),
    // `test_render` reaches `report.py` (which does not).
    assert_eq!(
        targets(
            "fixed bug in add() return value",
            vec![failure(add, Some(&["add"])), failure(report, Some(&[]))],
            &["add"],
        ),
        [add],
    );
    // Whatever the wording: another aim, and the output never names `plus` (the helper
    // `add` calls in another module), yet the failing test exercises it.
    assert_eq!(
        targets(
            "make plus() faster",
            vec![failure(add, Some(&["plus"])), failure(report, Some(&[]))],
            &["plus"],
        ),
        [add],
    );
    // Not read (no file of the test found, no import resolved): the output decides, as before.
    assert_eq!(
        targets(
            "fixed bug in add() return value",
            vec![failure(add, None), failure(report, None)],
            &["add"],
        ),
        [add, report],
    );
}

/// The targeting's evidence: how many failing tests were tied by what they exercise (their
/// imports) and how many by the output — counted only when the goal has a term the repository
/// holds (nothing is read otherwise).
#[test]
fn the_targeting_says_how_each_failing_test_was_read() {
    let failure = |test: Option<&str>, runs_tests: bool, ex: Option<&[&str]>| BaselineFailure {
        check: if runs_tests { "test" } else { "lint" }.into(),
        test: test.map(String::from),
        runs_tests,
        text: String::new(),
        exercises: ex.map(|e| e.iter().map(|s| s.to_string()).collect()),
    };
    let read = |failures: Vec<BaselineFailure>, found: &[&str]| {
        let facts = RunFacts {
            failures,
            found: found.iter().map(|s| s.to_string()).collect(),
        };
        let r = anchor("fixed bug in add() return value", &facts).read;
        (r.imports, r.output)
    };
    let three = || {
        vec![
            failure(Some("t.test_add"), true, Some(&["add"])),
            failure(Some("add 2 3"), true, None),
            failure(None, false, None),
        ]
    };
    // A linter's failure is no test: not counted.
    assert_eq!(read(three(), &["add"]), (1, 1));
    // No term of the goal in the repository: nothing was read.
    assert_eq!(read(three(), &[]), (0, 0));
    let r = ExercisesRead {
        imports: 1,
        output: 1,
    };
    assert!(r.line().unwrap().starts_with("1 failing test(s) tied"));
    assert_eq!(ExercisesRead::default().line(), None);
}
