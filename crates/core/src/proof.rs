//! When passing checks prove the goal: "done" is more than green. The checks must pass on a tree
//! whose tests are intact (compared with the baseline the run started from), and something must
//! have gone from red to green — a check or a test that failed on the pre-run code and passes
//! now, both proven by pawl running it. A run whose every check already passed before any change
//! proves nothing: its verdict is UNPROVEN, never SHIP.
//!
//! Goals that add no behaviour (refactor, docs, formatting — spec analysis says which) need
//! instead: the tree changed and every test that passed at the baseline still passes.

use serde::{Deserialize, Serialize};

use crate::exit::StopReason;

/// What one verification established, for [`judge`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proof {
    /// Every sealed check passed and every criterion is verified.
    pub checks_pass: bool,
    /// Checks or test ids that failed on the pre-run code and pass now.
    pub red_to_green: Vec<String>,
    /// Test-protection findings (tests removed, skipped, weakened, configuration changed).
    pub findings: usize,
    /// The user (or a reviewer pawl spawned) accepted the changed tests.
    pub tests_accepted: bool,
    /// The goal adds no behaviour (refactor, docs, formatting).
    pub no_behaviour: bool,
    /// The tree differs from the pre-run tree.
    pub tree_changed: bool,
    /// Every test that passed at the baseline still passes (for goals without new behaviour).
    pub baseline_kept: bool,
    /// No baseline was taken (a run stored before pawl took them): proof cannot be asked for.
    pub no_baseline: bool,
    /// What the locked run found: the baseline's tests, under the baseline's configuration, on
    /// the baseline plus the run's changes to product source and declarations. `None` when it
    /// did not run (the checks do not pass, no baseline, the tree did not change).
    #[serde(default)]
    pub locked: Option<Locked>,
    /// The user accepted the run's changes outside product source that the checks needed
    /// (`pawl accept --changes`; never a session pawl spawned).
    #[serde(default)]
    pub changes_accepted: bool,
    /// The run changed more outside what the goal's failing tests exercise than the sealed
    /// limits allow (`crate::scope`, [`crate::scope::Decision::Review`]): REVIEW until the user
    /// accepts the changes (`pawl accept --changes`).
    #[serde(default)]
    pub scope_review: bool,
    /// pawl's key was readable by the checks (no mount namespace to hide pawl's state): the
    /// agent's code they ran could have forged evidence, so the verdict is at most REVIEW until
    /// the user accepts the run's changes or tests.
    #[serde(default)]
    pub key_exposed: bool,
    /// Of [`Proof::findings`], those about the tests and their configuration (removed,
    /// skipped, weakened, configuration edited); the others are what the locked run, the
    /// probes, the environment and the sealed tools found.
    #[serde(default)]
    pub tests_findings: usize,
    /// Findings of the independent reviewer (`crate::review`), apart from [`Proof::findings`]:
    /// only the user's `pawl accept --changes` answers them (never a session pawl spawned, so
    /// no other session's acceptance of the tests removes them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reviewer_findings: usize,
    /// Hidden tests of the independent tester (`crate::tester`) that fail on this tree: like
    /// the reviewer's findings, they only move SHIP to REVIEW (the user's `pawl accept
    /// --changes` answers them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hidden_findings: usize,
    /// This verification sends the executor back (`crate::tester::Act::SendBack`): the run
    /// goes on, the executor told only which behaviour an independent check finds wrong.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden_send_back: bool,
    /// The run has an independent tester, but no hidden test of it ran on this tree (it failed,
    /// timed out or wrote nothing pawl could run: `crate::tester::unrun`). A SHIP would rest
    /// on the hidden tests that were asked for and never ran: at most REVIEW, until the user
    /// accepts the changes (or turns the tester off).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tester_unrun: bool,
    /// Changes a step left in HOME's persistence places (`crate::home`: a shell rc file, an
    /// autostart entry, git's global configuration): pawl cannot undo them, so SHIP is at most
    /// REVIEW; only the user's `pawl accept --changes` answers them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub home_changes: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The locked run's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Locked {
    /// The baseline's tests pass on the locked tree, every repeat alike: the run's other
    /// changes (tests, configuration, ...) cannot have bought the verdict.
    Holds,
    /// They fail there: the checks pass only with the run's other changes.
    NeedsOtherChanges,
    /// The run changed no product source or declaration: whatever went green, the code did not
    /// change (the environment did, or the tests).
    NothingChanged,
    /// The tests that decide gave different results across the repeats.
    Differs,
    /// It holds, but the goal asks for one of the run's other changes (`add a pytest.ini
    /// that …`): no check verifies it, so only the user can say it is right.
    Asked,
}

/// What the verification means for the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Not every check passes yet.
    NotYet,
    /// Verified, intact and bound to the goal: SHIP.
    Done,
    /// The checks pass, but the tests were changed: REVIEW.
    Review,
    /// The checks pass, but nothing proves the goal: UNPROVEN.
    Unproven,
    /// The checks pass, but the tests that decide gave different results when repeated.
    Nondeterministic,
}

/// Whether one part of the proof alone keeps it from done: `clear` resets that part, and the
/// proof changes and is done without it (a report names that part as the reason).
pub fn alone_keeps_from_done(p: &Proof, clear: impl FnOnce(&mut Proof)) -> bool {
    let mut without = p.clone();
    clear(&mut without);
    without != *p && judge(&without) == Outcome::Done
}

/// The one rule for "done".
pub fn judge(p: &Proof) -> Outcome {
    match judged(p) {
        // Where the checks could read pawl's key, SHIP is at most REVIEW: the user decides.
        Outcome::Done if p.key_exposed && !(p.changes_accepted || p.tests_accepted) => {
            Outcome::Review
        }
        // The independent reviewer's findings only ever move SHIP to REVIEW (never another
        // outcome, never toward SHIP); only the user's acceptance of the changes answers them.
        Outcome::Done if p.reviewer_findings > 0 && !p.changes_accepted => Outcome::Review,
        // So do the independent tester's failing hidden tests.
        Outcome::Done if p.hidden_findings > 0 && !p.changes_accepted => Outcome::Review,
        // And a tester that was asked for and gave no hidden test that ran (fail-closed).
        Outcome::Done if p.tester_unrun && !p.changes_accepted => Outcome::Review,
        // So does a step that left something where it runs later, outside the repository.
        Outcome::Done if p.home_changes > 0 && !p.changes_accepted => Outcome::Review,
        outcome => outcome,
    }
}

/// [`judge`] before the caps of an exposed key and the independent reviewer.
fn judged(p: &Proof) -> Outcome {
    if !p.checks_pass {
        return Outcome::NotYet;
    }
    match p.locked {
        Some(Locked::Differs) => return Outcome::Nondeterministic,
        Some(Locked::NeedsOtherChanges | Locked::Asked) if !p.changes_accepted => {
            return Outcome::Review;
        }
        _ => {}
    }
    if p.findings > 0 && !p.tests_accepted {
        return Outcome::Review;
    }
    if p.scope_review && !p.changes_accepted {
        return Outcome::Review;
    }
    // Whatever went green, the code under test is the baseline's.
    if p.locked == Some(Locked::NothingChanged) && !p.no_behaviour {
        return Outcome::Unproven;
    }
    if p.no_baseline {
        return Outcome::Done;
    }
    if p.no_behaviour {
        return if p.tree_changed && p.baseline_kept {
            Outcome::Done
        } else {
            Outcome::Unproven
        };
    }
    if p.red_to_green.is_empty() {
        Outcome::Unproven
    } else {
        Outcome::Done
    }
}

/// The typed stop reason of a verification that ends with its checks passing but for a
/// person to decide (rule 5: every stop says why): `tests_changed` when the tests or their
/// configuration changed (a finding, or the checks pass only with the run's other changes),
/// `nondeterministic` when the deciding tests answered differently when repeated, `review`
/// when what the checks cannot judge is left (the goal asks for a change no check verifies,
/// changes outside the goal's scope over the limits, pawl's key readable by the checks).
/// `None` for every other outcome.
pub fn stop_reason(p: &Proof) -> Option<StopReason> {
    // A failing hidden test sends the executor back once (`crate::tester::act`): no stop yet.
    if p.hidden_send_back
        && judge(&Proof {
            hidden_findings: 0,
            ..p.clone()
        }) == Outcome::Done
    {
        return None;
    }
    match judge(p) {
        Outcome::Nondeterministic => Some(StopReason::Nondeterministic),
        Outcome::Review
            if (p.tests_findings > 0 && !p.tests_accepted)
                || (p.locked == Some(Locked::NeedsOtherChanges) && !p.changes_accepted) =>
        {
            Some(StopReason::TestsChanged)
        }
        Outcome::Review => Some(StopReason::Review),
        _ => None,
    }
}

/// One of the run's new tests that proves the change (it fails on the baseline source and
/// passes on the locked tree), with the symbols of the goal it exercises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProvingTest<'a> {
    pub id: &'a str,
    pub exercises: &'a [String],
}

/// A check's test counts, as its runner reported them (issue 32 point 2: what a run whose
/// runner names no test is judged by).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCounts {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

impl TestCounts {
    pub fn total(&self) -> u64 {
        self.passed + self.failed + self.skipped
    }
}

/// The locked tree runs the baseline's tests with only the run's product changes: judged by
/// counts (the runner names no test, so no test can be shown missing or skipped by its id),
/// it must count as many tests as the baseline (or more) and skip exactly as many. Fewer or
/// more skipped, or fewer counted, is what code that skips or hides a test at import looks
/// like: the words naming both counts (none: it holds).
pub fn counts_differ(before: TestCounts, now: TestCounts) -> Vec<String> {
    let mut why = Vec::new();
    if now.skipped != before.skipped {
        why.push(format!(
            "judged by counts: {} skipped where the baseline skipped {}",
            now.skipped, before.skipped
        ));
    }
    if now.total() < before.total() {
        why.push(format!(
            "judged by counts: {} tests counted where the baseline counted {}",
            now.total(),
            before.total()
        ));
    }
    why
}

#[cfg(test)]
mod counts_tests {
    use super::*;

    #[test]
    fn counts_block_a_change_of_skips_or_fewer_tests() {
        let c = |passed, failed, skipped| TestCounts {
            passed,
            failed,
            skipped,
        };
        for (before, now, words) in [
            (c(1, 1, 0), c(2, 0, 0), vec![]),
            // More counted (a parametrised case the product generates) is no finding.
            (c(1, 1, 0), c(3, 0, 0), vec![]),
            (c(1, 1, 1), c(2, 0, 1), vec![]),
            (
                c(1, 1, 0),
                c(0, 0, 1),
                vec![
                    "judged by counts: 1 skipped where the baseline skipped 0",
                    "judged by counts: 1 tests counted where the baseline counted 2",
                ],
            ),
            (
                c(1, 1, 0),
                c(1, 0, 1),
                vec!["judged by counts: 1 skipped where the baseline skipped 0"],
            ),
            // Fewer skipped: a skip the product code removed is as much a change.
            (
                c(1, 1, 1),
                c(3, 0, 0),
                vec!["judged by counts: 0 skipped where the baseline skipped 1"],
            ),
            (
                c(1, 1, 0),
                c(1, 0, 0),
                vec!["judged by counts: 1 tests counted where the baseline counted 2"],
            ),
        ] {
            assert_eq!(counts_differ(before, now), words, "{before:?} → {now:?}");
        }
    }
}

/// Which of the run's proving new tests count as proof of a goal that names `symbols` (issue 32
/// point 3): every one when the goal names none; otherwise only those that exercise one of them.
/// When some prove but none counts, and nothing else proves the goal (`other_proof`), the
/// finding that keeps the run at REVIEW (accepting the tests answers it), and every proving test
/// is kept as the proof the user accepts.
pub fn new_tests_on_goal(
    symbols: &[String],
    proving: &[ProvingTest<'_>],
    other_proof: bool,
) -> (Vec<usize>, Option<String>) {
    if symbols.is_empty() {
        return ((0..proving.len()).collect(), None);
    }
    let counted: Vec<usize> = proving
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.exercises.is_empty())
        .map(|(i, _)| i)
        .collect();
    if !counted.is_empty() || proving.is_empty() || other_proof {
        return (counted, None);
    }
    let names: Vec<String> = symbols.iter().take(5).map(|s| format!("`{s}`")).collect();
    let ids: Vec<&str> = proving.iter().take(5).map(|t| t.id).collect();
    (
        (0..proving.len()).collect(),
        Some(format!(
            "proved only by tests that do not exercise {}: {} (a new test counts as proof when it calls what the goal names; accept with `pawl accept --tests \"<why>\"`, or send the work back)",
            names.join(" or "),
            ids.join(", ")
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows: what is true (a code per fact) → the outcome. Codes: P checks pass, R a red→green
    /// check, F test-protection findings, A the changed tests accepted, N a goal without new
    /// behaviour, C the tree changed, K every baseline test kept, 0 no baseline; the locked run:
    /// h holds, o needs the other changes, n nothing changed, d differs, q holds but the goal asks
    /// for an other change; a the other changes
    /// accepted by the user; s changes outside scope over the limits; x pawl's key readable by
    /// the checks; f the finding is not about the tests (a probe's, the environment's); v a
    /// finding of the independent reviewer; t a failing hidden test; u a tester whose hidden
    /// tests did not run; H a change a step left in HOME's persistence places.
    const ROWS: &[(&str, Outcome)] = &[
        ("RCK", Outcome::NotYet),
        ("PRCK", Outcome::Done),
        // A do-nothing agent on a green repository.
        ("PK", Outcome::Unproven),
        // Green, changed, but nothing went from red to green.
        ("PCK", Outcome::Unproven),
        ("PRFCK", Outcome::Review),
        ("PRFACK", Outcome::Done),
        ("PFACK", Outcome::Unproven),
        ("FCK", Outcome::NotYet),
        // A refactor: changed, every baseline test kept.
        ("PNCK", Outcome::Done),
        ("PNK", Outcome::Unproven),
        ("PNC", Outcome::Unproven),
        ("PFNCK", Outcome::Review),
        // Runs from before baselines.
        ("P0", Outcome::Done),
        ("0", Outcome::NotYet),
        // The locked run decides before the screen's findings.
        ("PRCKh", Outcome::Done),
        // The locked run holds, and a finding of its own decides (the probes' `probe::judge`:
        // a tested call that answers otherwise outside the runner, a change only where tested).
        ("PRFCKh", Outcome::Review),
        ("PRCKo", Outcome::Review),
        ("PRCKoa", Outcome::Done),
        ("PRFCKoa", Outcome::Review),
        ("PRCKn", Outcome::Unproven),
        ("PRFCKn", Outcome::Review),
        ("PNCKn", Outcome::Done),
        ("PRCKd", Outcome::Nondeterministic),
        ("PRCKda", Outcome::Nondeterministic),
        ("RCKd", Outcome::NotYet),
        ("PRCKq", Outcome::Review),
        ("PRCKqa", Outcome::Done),
        // Changes outside what the failing tests exercise, over the limits.
        ("PRCKhs", Outcome::Review),
        ("PRCKhsa", Outcome::Done),
        ("PRFACKhsa", Outcome::Done),
        ("PRCKhsA", Outcome::Review),
        ("PRCKds", Outcome::Nondeterministic),
        ("RCKhs", Outcome::NotYet),
        // pawl's key readable by the checks: at most REVIEW, until the user accepts.
        ("PRCKhx", Outcome::Review),
        ("PRCKhxa", Outcome::Done),
        ("PRCKhxA", Outcome::Done),
        ("PCKhx", Outcome::Unproven),
        ("PRCKdx", Outcome::Nondeterministic),
        ("RCKhx", Outcome::NotYet),
        // The independent reviewer: SHIP becomes REVIEW; accepting the tests (which a session
        // pawl spawned may do) does not answer it, the user's acceptance of the changes does;
        // no other outcome moves.
        ("PRCKhv", Outcome::Review),
        ("PRCKhvA", Outcome::Review),
        ("PRCKhva", Outcome::Done),
        ("PCKhv", Outcome::Unproven),
        ("PRCKnv", Outcome::Unproven),
        ("PRCKdv", Outcome::Nondeterministic),
        ("RCKhv", Outcome::NotYet),
        ("PRFCKhv", Outcome::Review),
        // A failing hidden test of the tester: like the reviewer, SHIP → REVIEW only.
        ("PRCKht", Outcome::Review),
        ("PRCKhta", Outcome::Done),
        ("PCKht", Outcome::Unproven),
        // A tester that gave nothing that ran: SHIP → REVIEW only; the user's acceptance answers.
        ("PRCKhu", Outcome::Review),
        ("PRCKhuA", Outcome::Review),
        ("PRCKhua", Outcome::Done),
        ("PCKhu", Outcome::Unproven),
        // A step left something in HOME's persistence places (a shell rc file): SHIP → REVIEW
        // only; accepting the tests does not answer it, the user's acceptance of the changes does.
        ("PRCKhH", Outcome::Review),
        ("PRCKhHA", Outcome::Review),
        ("PRCKhHa", Outcome::Done),
        ("PCKhH", Outcome::Unproven),
        ("RCKhH", Outcome::NotYet),
    ];

    /// Codes as in [`ROWS`] → the typed stop reason of the verification.
    const STOPS: &[(&str, Option<StopReason>)] = &[
        ("PRCKh", None),
        ("PCK", None),
        ("RCK", None),
        ("PRFCK", Some(StopReason::TestsChanged)),
        ("PRCKo", Some(StopReason::TestsChanged)),
        ("PRFCKh", Some(StopReason::TestsChanged)),
        ("PRCKd", Some(StopReason::Nondeterministic)),
        ("PRCKq", Some(StopReason::Review)),
        ("PRCKhs", Some(StopReason::Review)),
        ("PRCKhx", Some(StopReason::Review)),
        // Tests changed and out of scope: the tests are named first.
        ("PRFCKhs", Some(StopReason::TestsChanged)),
        // Accepted tests, a scope question left.
        ("PRFACKhs", Some(StopReason::Review)),
        ("PRCKhsa", None),
        // A finding that is not about the tests (a probe's, the environment's): review.
        ("PRFfCKo", Some(StopReason::TestsChanged)),
        ("PRFfCK", Some(StopReason::Review)),
        ("PRCKhv", Some(StopReason::Review)),
        ("PRCKht", Some(StopReason::Review)),
        ("PRCKhH", Some(StopReason::Review)),
        // Sent back once: the run goes on.
        ("PRCKhtb", None),
        // A send-back never hides another reason to stop.
        ("PRFCKhtb", Some(StopReason::TestsChanged)),
        ("PRFCKv", Some(StopReason::TestsChanged)),
    ];

    #[test]
    fn the_rule_for_done() {
        for (code, want) in ROWS {
            assert_eq!(judge(&proof_of(code)), *want, "row {code:?}");
        }
    }

    #[test]
    fn a_stop_for_a_person_says_which_question_is_left() {
        for (code, want) in STOPS {
            assert_eq!(stop_reason(&proof_of(code)), *want, "row {code:?}");
        }
    }

    /// Rows: the proof's code, the part cleared (H HOME's changes, t the hidden tests' findings,
    /// u the tester unrun, v the reviewer's findings) → whether that part alone keeps it from
    /// done. Not when the part is absent, nor when something else keeps it from done too.
    #[test]
    fn one_part_alone_keeps_the_proof_from_done() {
        let clear = |part: char| -> Box<dyn Fn(&mut Proof)> {
            match part {
                'H' => Box::new(|q: &mut Proof| q.home_changes = 0),
                't' => Box::new(|q: &mut Proof| q.hidden_findings = 0),
                'u' => Box::new(|q: &mut Proof| q.tester_unrun = false),
                _ => Box::new(|q: &mut Proof| q.reviewer_findings = 0),
            }
        };
        let rows: &[(&str, char, bool)] = &[
            ("PRCKhH", 'H', true),
            ("PRCKht", 't', true),
            ("PRCKhu", 'u', true),
            ("PRCKhv", 'v', true),
            // Absent: clearing it changes nothing.
            ("PRCKh", 'H', false),
            ("PRCKhv", 'u', false),
            // Two parts: neither alone.
            ("PRCKhHv", 'H', false),
            ("PRCKhtu", 'u', false),
            // Not green at all.
            ("RCKhH", 'H', false),
        ];
        for &(code, part, want) in rows {
            let p = proof_of(code);
            assert_eq!(
                alone_keeps_from_done(&p, |q| clear(part)(q)),
                want,
                "row {code:?} {part}"
            );
        }
    }

    fn proof_of(code: &str) -> Proof {
        {
            let has = |c: char| code.contains(c);
            Proof {
                checks_pass: has('P'),
                red_to_green: if has('R') {
                    vec!["test".into()]
                } else {
                    Vec::new()
                },
                findings: usize::from(has('F')),
                tests_accepted: has('A'),
                no_behaviour: has('N'),
                tree_changed: has('C'),
                baseline_kept: has('K'),
                no_baseline: has('0'),
                locked: [
                    ('h', Locked::Holds),
                    ('o', Locked::NeedsOtherChanges),
                    ('n', Locked::NothingChanged),
                    ('d', Locked::Differs),
                    ('q', Locked::Asked),
                ]
                .into_iter()
                .find(|(c, _)| has(*c))
                .map(|(_, l)| l),
                changes_accepted: has('a'),
                scope_review: has('s'),
                key_exposed: has('x'),
                tests_findings: usize::from(has('F') && !has('f')),
                reviewer_findings: usize::from(has('v')),
                hidden_findings: usize::from(has('t')),
                hidden_send_back: has('b'),
                tester_unrun: has('u'),
                home_changes: usize::from(has('H')),
            }
        }
    }

    /// A new test proves the goal only when it exercises what the goal names.
    #[test]
    fn a_new_test_that_does_not_exercise_the_goals_symbols_is_not_proof() {
        let mul = vec!["mul".to_owned()];
        let none: Vec<String> = Vec::new();
        let on = [ProvingTest {
            id: "t.test_mul",
            exercises: &mul,
        }];
        let off = [ProvingTest {
            id: "t.test_other",
            exercises: &none,
        }];
        assert_eq!(new_tests_on_goal(&none, &off, false), (vec![0], None));
        assert_eq!(new_tests_on_goal(&mul, &on, false), (vec![0], None));
        let (counted, finding) = new_tests_on_goal(&mul, &off, false);
        assert_eq!(counted, vec![0]);
        let finding = finding.expect("a finding");
        assert!(
            finding.contains("do not exercise `mul`") && finding.contains("t.test_other"),
            "{finding}"
        );
        // The sealed tests prove it: the new test is simply not counted.
        assert_eq!(new_tests_on_goal(&mul, &off, true), (Vec::new(), None));
        let both = [off[0].clone(), on[0].clone()];
        assert_eq!(new_tests_on_goal(&mul, &both, false), (vec![1], None));
    }
}
