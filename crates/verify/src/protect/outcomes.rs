//! Per-test comparison: which tests that passed at the baseline no longer pass for a reason
//! other than failing.

use std::collections::BTreeMap;

use super::{Finding, Findings, MAX_ID_CHARS, cut};
use crate::parse::{TestOutcome, TestStatus};

/// One status per id when a report lists an id more than once (a re-run, a duplicated
/// parametrization): any `Failed` wins (that is a failing check, not a protection matter), then
/// any `Skipped`/`XFailed` (a test that was also not run counts as not run), then `Passed`.
fn by_id(outcomes: &[TestOutcome]) -> BTreeMap<&str, TestStatus> {
    let rank = |s: TestStatus| match s {
        TestStatus::Failed => 3,
        TestStatus::Skipped => 2,
        TestStatus::XFailed => 1,
        TestStatus::Passed => 0,
    };
    let mut map: BTreeMap<&str, TestStatus> = BTreeMap::new();
    for o in outcomes {
        map.entry(o.id.as_str())
            .and_modify(|s| {
                if rank(o.status) > rank(*s) {
                    *s = o.status;
                }
            })
            .or_insert(o.status);
    }
    map
}

/// Tests of check `check` that passed at the baseline and are now missing, skipped or
/// expected-to-fail, in id order, as [`Finding::TestGone`] (at most
/// [`MAX_FINDINGS`](super::MAX_FINDINGS), then a [`Finding::Truncated`]).
///
/// Not findings: a test that now fails (the check fails; that is judged elsewhere), a test that
/// did not pass at the baseline, and a test that is new now (the run's own work).
pub fn compare_tests(check: &str, baseline: &[TestOutcome], now: &[TestOutcome]) -> Vec<Finding> {
    let now = by_id(now);
    let mut out = Findings::default();
    for (id, status) in by_id(baseline) {
        if status != TestStatus::Passed {
            continue;
        }
        let current = now.get(id).copied();
        if matches!(current, Some(TestStatus::Passed | TestStatus::Failed)) {
            continue;
        }
        out.push(Finding::TestGone {
            check: check.to_string(),
            id: cut(id, MAX_ID_CHARS),
            now: current,
        });
    }
    out.finish()
}

/// Like [`compare_tests`], for reports that may be absent (`None`: the check wrote no report or
/// one that did not parse). No baseline report: nothing to compare. A baseline report and none
/// now: one [`Finding::ReportMissing`] (not one finding per test).
pub fn compare_runs(
    check: &str,
    baseline: Option<&[TestOutcome]>,
    now: Option<&[TestOutcome]>,
) -> Vec<Finding> {
    match (baseline, now) {
        (None, _) => Vec::new(),
        (Some(_), None) => vec![Finding::ReportMissing {
            check: check.to_string(),
        }],
        (Some(b), Some(n)) => compare_tests(check, b, n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protect::MAX_FINDINGS;

    fn outcomes(rows: &[(&str, TestStatus)]) -> Vec<TestOutcome> {
        rows.iter()
            .map(|(id, status)| TestOutcome {
                id: id.to_string(),
                status: *status,
            })
            .collect()
    }

    fn gone(rows: &[(&str, Option<TestStatus>)]) -> Vec<Finding> {
        rows.iter()
            .map(|(id, now)| Finding::TestGone {
                check: "test".into(),
                id: id.to_string(),
                now: *now,
            })
            .collect()
    }

    use TestStatus::{Failed as F, Passed as P, Skipped as S, XFailed as X};

    #[test]
    fn table() {
        // (baseline, now, expected findings)
        #[expect(clippy::type_complexity, reason = "a table of cases")]
        let rows: &[(
            &[(&str, TestStatus)],
            &[(&str, TestStatus)],
            &[(&str, Option<TestStatus>)],
        )] = &[
            // unchanged
            (&[("a", P), ("b", P)], &[("a", P), ("b", P)], &[]),
            // gone: missing, skipped, xfailed
            (&[("a", P)], &[], &[("a", None)]),
            (&[("a", P)], &[("a", S)], &[("a", Some(S))]),
            (&[("a", P)], &[("a", X)], &[("a", Some(X))]),
            // a failure is a failing check, not a protection finding
            (&[("a", P)], &[("a", F)], &[]),
            // new tests are the run's own work
            (&[("a", P)], &[("a", P), ("new", S), ("new2", P)], &[]),
            // only baseline passes count
            (&[("a", S), ("b", F), ("c", X)], &[], &[]),
            // duplicates: any skip makes it gone; any failure makes it a failing check
            (&[("a", P)], &[("a", P), ("a", S)], &[("a", Some(S))]),
            (&[("a", P)], &[("a", S), ("a", F)], &[]),
            (&[("a", P), ("a", F)], &[], &[]),
            // ids are compared exactly; the order of findings is by id
            (
                &[("b", P), ("a", P), ("A", P)],
                &[("a ", P)],
                &[("A", None), ("a", None), ("b", None)],
            ),
        ];
        for (i, (base, now, want)) in rows.iter().enumerate() {
            let got = compare_tests("test", &outcomes(base), &outcomes(now));
            assert_eq!(got, gone(want), "row {i}");
        }
    }

    #[test]
    fn missing_reports() {
        let base = outcomes(&[("a", P)]);
        assert_eq!(compare_runs("t", None, None), vec![]);
        assert_eq!(compare_runs("t", None, Some(&base)), vec![]);
        assert_eq!(
            compare_runs("t", Some(&base), None),
            vec![Finding::ReportMissing { check: "t".into() }]
        );
        assert_eq!(compare_runs("t", Some(&base), Some(&base)), vec![]);
    }

    #[test]
    fn bounded_output() {
        let base: Vec<TestOutcome> = (0..250)
            .map(|i| TestOutcome {
                id: format!("{i:03}{}", "x".repeat(1000)),
                status: P,
            })
            .collect();
        let got = compare_tests("t", &base, &[]);
        assert_eq!(got.len(), MAX_FINDINGS + 1);
        assert_eq!(got.last(), Some(&Finding::Truncated { omitted: 150 }));
        assert!(got.iter().all(|f| match f {
            Finding::TestGone { id, .. } => id.chars().count() <= MAX_ID_CHARS + 1,
            _ => true,
        }));
    }
}
