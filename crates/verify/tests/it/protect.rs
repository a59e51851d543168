//! The test-protection screen against its corpus (`tests/data/protect-*.tsv`, described in
//! `tests/data/protect-cases.md`): one row per attack it must catch and per ordinary change it
//! must let through; plus property tests that it never panics and keeps its bounds.

use std::collections::BTreeSet;

use pawl_verify::parse::{TestOutcome, TestStatus};
use pawl_verify::protect::{
    Change, FileChange, Finding, MAX_FINDINGS, MAX_HUNK_LINES, MAX_ID_CHARS, MAX_LINE_CHARS,
    MAX_WHY, PathClass, Weakness, classify_path, compare_runs, compare_tests, screen_changes,
};
use proptest::prelude::*;

const CASES: &str = include_str!("../data/protect-cases.tsv");
const PATHS: &str = include_str!("../data/protect-paths.tsv");

/// `\n`, `\t` and `\\` escapes.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn side(s: &str) -> Option<String> {
    (s != "-").then(|| unescape(s))
}

fn rows(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.split('\t').collect()))
}

/// The short codes a finding stands for in the corpus.
fn codes(f: &Finding) -> Vec<String> {
    match f {
        Finding::TestFileChanged { change, .. } => vec![format!(
            "changed:{}",
            match change {
                Change::Added => "added",
                Change::Modified => "modified",
                Change::Deleted => "deleted",
            }
        )],
        Finding::AssertionsWeakened { why, .. } => why
            .iter()
            .map(|w| {
                match w {
                    Weakness::FewerAssertions => "fewer",
                    Weakness::Marker { .. } => "marker",
                    Weakness::Focus { .. } => "focus",
                    Weakness::TriviallyTrue { .. } => "trivial",
                    Weakness::ExpectationChanged { .. } => "expectation",
                }
                .to_string()
            })
            .collect(),
        other => vec![format!("{other:?}")],
    }
}

#[test]
fn corpus_catches_every_attack_and_lets_ordinary_work_through() {
    let mut failures = Vec::new();
    let (mut attacks, mut ordinary) = (0, 0);
    for (n, cols) in rows(CASES) {
        let [expect, path, old, new, what] = cols[..] else {
            panic!("protect-cases.tsv:{n}: want 5 columns, got {}", cols.len());
        };
        let change = FileChange {
            path: path.to_string(),
            old: side(old),
            new: side(new),
        };
        assert!(
            change.change().is_some(),
            "protect-cases.tsv:{n}: no change"
        );
        let findings = screen_changes(std::slice::from_ref(&change));
        let got: BTreeSet<String> = findings.iter().flat_map(codes).collect();
        let want: BTreeSet<String> = if expect == "ok" {
            ordinary += 1;
            BTreeSet::new()
        } else {
            attacks += 1;
            expect.split(',').map(String::from).collect()
        };
        if got != want {
            failures.push(format!(
                "protect-cases.tsv:{n} ({what}): want {want:?}, got {got:?}\n{findings:#?}"
            ));
        }
        for f in &findings {
            let text = f.to_string();
            assert!(text.contains(path), "{n}: message names the path: {text}");
        }
    }
    assert!(
        attacks >= 60 && ordinary >= 30,
        "corpus did not load: {attacks}/{ordinary}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn path_corpus_classifies_as_listed() {
    let mut failures = Vec::new();
    let mut count = 0;
    for (n, cols) in rows(PATHS) {
        let [class, path] = cols[..] else {
            panic!("protect-paths.tsv:{n}: want 2 columns");
        };
        count += 1;
        let got = classify_path(path);
        if got.as_str() != class {
            failures.push(format!(
                "protect-paths.tsv:{n}: {path}: want {class}, got {got:?}"
            ));
        }
    }
    assert!(count > 50, "path corpus did not load");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn findings_carry_a_readable_hunk() {
    let f = screen_changes(&[FileChange {
        path: "tests/test_calc.py".into(),
        old: Some("def test_add():\n    result = add(2, 2)\n    assert result == 4\n".into()),
        new: Some("def test_add():\n    result = add(2, 2)\n    assert result == result\n".into()),
    }]);
    let [
        Finding::AssertionsWeakened {
            removed,
            added,
            hunk,
            ..
        },
    ] = &f[..]
    else {
        panic!("{f:?}");
    };
    assert_eq!((*removed, *added), (1, 1));
    assert_eq!(
        hunk,
        "--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n-3: assert result == 4\n+3: assert result == result\n"
    );
    assert_eq!(
        f[0].to_string(),
        "assertions in `tests/test_calc.py` were weakened (assertion that cannot fail: `assert result == result`)"
    );

    let f = screen_changes(&[FileChange {
        path: "package.json".into(),
        old: Some(r#"{"scripts": {"test": "jest", "build": "tsc"}}"#.into()),
        new: Some(r#"{"scripts": {"test": "exit 0", "build": "tsc"}}"#.into()),
    }]);
    assert_eq!(f, vec![Finding::TestFileChanged {
        path: "package.json".into(),
        class: PathClass::RunnerConfig,
        change: Change::Modified,
        hunk: Some(
            "--- a/package.json\n+++ b/package.json\n@@\n-scripts.test = \"jest\"\n+scripts.test = \"exit 0\"\n"
                .into()
        ),
    }]);
}

#[test]
fn findings_serialize_with_a_kind_tag() {
    let f = Finding::TestGone {
        check: "test".into(),
        id: "tests/test_calc.py::test_add".into(),
        now: Some(TestStatus::Skipped),
    };
    let json = serde_json::to_string(&f).unwrap();
    assert_eq!(
        json,
        r#"{"kind":"test_gone","check":"test","id":"tests/test_calc.py::test_add","now":"skipped"}"#
    );
    assert_eq!(serde_json::from_str::<Finding>(&json).unwrap(), f);
    assert_eq!(
        f.to_string(),
        "test `tests/test_calc.py::test_add` of check `test` passed at the baseline and is now skipped"
    );
}

#[test]
fn a_deleted_test_file_lists_what_it_asserted() {
    let f = screen_changes(&[FileChange {
        path: "tests/it/calc.rs".into(),
        old: Some(
            "use calc::add;\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n".into(),
        ),
        new: None,
    }]);
    let [
        Finding::TestFileChanged {
            change: Change::Deleted,
            hunk: Some(h),
            ..
        },
    ] = &f[..]
    else {
        panic!("{f:?}");
    };
    assert!(
        h.ends_with("-2: #[test]\n-4: assert_eq!(add(2, 2), 4);\n"),
        "{h}"
    );
}

#[test]
fn oversized_files_are_reported_unread() {
    let big = "assert x\n".repeat(200_000);
    let f = screen_changes(&[
        FileChange {
            path: "tests/test_big.py".into(),
            old: Some(big.clone()),
            new: Some(format!("{big}x")),
        },
        FileChange {
            path: "tests/test_new_big.py".into(),
            old: None,
            new: Some(big.clone()),
        },
    ]);
    assert_eq!(
        f,
        vec![Finding::TestFileChanged {
            path: "tests/test_big.py".into(),
            class: PathClass::TestFile,
            change: Change::Modified,
            hunk: None,
        }]
    );
}

#[test]
fn many_changes_are_truncated_with_a_count() {
    let changes: Vec<FileChange> = (0..150)
        .map(|i| FileChange {
            path: format!("tests/test_{i}.py"),
            old: Some("def test_a():\n    assert a()\n".into()),
            new: None,
        })
        .collect();
    let f = screen_changes(&changes);
    assert_eq!(f.len(), MAX_FINDINGS + 1);
    assert_eq!(f.last(), Some(&Finding::Truncated { omitted: 50 }));
}

#[test]
fn compare_api_end_to_end() {
    let o = |id: &str, status| TestOutcome {
        id: id.into(),
        status,
    };
    let base = [
        o("t::a", TestStatus::Passed),
        o("t::b", TestStatus::Passed),
        o("t::c", TestStatus::Passed),
    ];
    let now = [
        o("t::a", TestStatus::Passed),
        o("t::b", TestStatus::Failed),
        o("t::new", TestStatus::Passed),
    ];
    assert_eq!(
        compare_tests("test", &base, &now),
        vec![Finding::TestGone {
            check: "test".into(),
            id: "t::c".into(),
            now: None,
        }]
    );
    assert_eq!(
        compare_runs("test", Some(&base), None),
        vec![Finding::ReportMissing {
            check: "test".into()
        }]
    );
}

// ---- properties --------------------------------------------------------------------------------

/// Paths that reach every screen: test files of each language, expectations, every scope kind,
/// inline tests, other files.
const PROP_PATHS: &[&str] = &[
    "tests/test_a.py",
    "tests/it/a.rs",
    "src/a.test.ts",
    "tests/a.sh",
    "t/a.bats",
    "a_test.go",
    "src/test/java/ATest.java",
    "A.Tests/ATests.cs",
    "tests/data.json",
    "src/__snapshots__/a.snap",
    "conftest.py",
    "pytest.ini",
    "pyproject.toml",
    "Cargo.toml",
    "package.json",
    "setup.cfg",
    "tox.ini",
    "Makefile",
    "justfile",
    "vite.config.ts",
    "pom.xml",
    "build.gradle",
    "src/lib.rs",
    "src/a.py",
];

fn fragments() -> Vec<&'static str> {
    vec![
        "assert ",
        "assert_eq!(",
        "expect(",
        ").toBe(",
        "it.only(",
        "it.skip(",
        "#[ignore]",
        "#[cfg(test)]",
        "#[cfg(any())]",
        "@pytest.mark.skip",
        "t.Skip()",
        "//go:build ignore",
        "[ \"$a\" = \"$a\" ]",
        "|| true",
        "exit 0",
        "exit 1",
        "==",
        " is ",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "\"",
        "'",
        "`",
        "\\",
        ",",
        ";",
        "\n",
        "\t",
        "    ",
        "[tool.pytest.ini_options]",
        "addopts = ",
        "[pytest]",
        "[[test]]",
        "harness = false",
        "{\"scripts\":{\"test\":",
        "test:",
        "\ttest",
        "test {",
        "<skipTests>",
        "é€𝄞",
        "\u{0}",
        "\r\n",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            any::<String>(),
            prop::sample::select(fragments()).prop_map(String::from)
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

fn side_strategy() -> impl Strategy<Value = Option<String>> {
    proptest::option::weighted(0.85, text())
}

fn check_bounds(findings: &[Finding]) -> Result<(), TestCaseError> {
    prop_assert!(findings.len() <= MAX_FINDINGS + 1);
    for f in findings {
        let hunk = match f {
            Finding::TestFileChanged { hunk, .. } => hunk.clone(),
            Finding::AssertionsWeakened { hunk, why, .. } => {
                prop_assert!(!why.is_empty() && why.len() <= MAX_WHY);
                Some(hunk.clone())
            }
            Finding::TestGone { id, .. } => {
                prop_assert!(id.chars().count() <= MAX_ID_CHARS + 1);
                None
            }
            _ => None,
        };
        if let Some(h) = hunk {
            // two header lines, an `@@` line, two context lines, the changed lines, a note
            prop_assert!(h.lines().count() <= MAX_HUNK_LINES + 6, "{h}");
            for l in h.lines() {
                prop_assert!(l.chars().count() <= MAX_LINE_CHARS + 20, "{l}");
            }
        }
        let _ = f.to_string();
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn screen_never_panics_and_keeps_bounds(
        path in prop::sample::select(PROP_PATHS),
        old in side_strategy(),
        new in side_strategy(),
    ) {
        let f = screen_changes(&[FileChange { path: path.to_string(), old, new }]);
        check_bounds(&f)?;
    }

    #[test]
    fn arbitrary_paths_classify_and_screen(path in any::<String>(), old in text(), new in text()) {
        let _ = classify_path(&path);
        let f = screen_changes(&[FileChange { path, old: Some(old), new: Some(new) }]);
        check_bounds(&f)?;
    }

    #[test]
    fn an_unchanged_file_is_never_a_finding(
        path in prop::sample::select(PROP_PATHS),
        t in text(),
    ) {
        let f = screen_changes(&[FileChange { path: path.to_string(), old: Some(t.clone()), new: Some(t) }]);
        prop_assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn compare_tests_is_total_and_bounded(
        base in prop::collection::vec((any::<String>(), 0..4u8), 0..300),
        now in prop::collection::vec((any::<String>(), 0..4u8), 0..300),
    ) {
        let status = |s: u8| match s {
            0 => TestStatus::Passed,
            1 => TestStatus::Failed,
            2 => TestStatus::Skipped,
            _ => TestStatus::XFailed,
        };
        let to = |v: &[(String, u8)]| -> Vec<TestOutcome> {
            v.iter().map(|(id, s)| TestOutcome { id: id.clone(), status: status(*s) }).collect()
        };
        let (b, n) = (to(&base), to(&now));
        let f = compare_tests("c", &b, &n);
        check_bounds(&f)?;
        // A run compared with itself loses nothing.
        prop_assert!(compare_tests("c", &b, &b).is_empty());
    }
}
