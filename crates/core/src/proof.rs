//! When passing checks prove the goal: "done" is more than green. The checks must pass on a tree
//! whose tests are intact (compared with the baseline the run started from), and something must
//! have gone from red to green — a check or a test that failed on the pre-run code and passes
//! now, both proven by pawl running it. A run whose every check already passed before any change
//! proves nothing: its verdict is UNPROVEN, never SHIP.
//!
//! Goals that add no behaviour (refactor, docs, formatting — spec analysis says which) need
//! instead: the tree changed and every test that passed at the baseline still passes.

use serde::{Deserialize, Serialize};

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
}

/// The one rule for "done".
pub fn judge(p: &Proof) -> Outcome {
    if !p.checks_pass {
        return Outcome::NotYet;
    }
    if p.findings > 0 && !p.tests_accepted {
        return Outcome::Review;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows: what is true (a code per fact) → the outcome. Codes: P checks pass, R a red→green
    /// check, F test-protection findings, A the changed tests accepted, N a goal without new
    /// behaviour, C the tree changed, K every baseline test kept, 0 no baseline.
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
    ];

    #[test]
    fn the_rule_for_done() {
        for (code, want) in ROWS {
            let has = |c: char| code.contains(c);
            let p = Proof {
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
            };
            assert_eq!(judge(&p), *want, "row {code:?}");
        }
    }
}
