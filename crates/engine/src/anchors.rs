//! A run's goal tied to the run's facts (`pawl_core::spec::facts`): the baseline's failures,
//! and what the repository has of the goal's terms (looked up through pawl-git). Used by the
//! spec gate (is the goal anchored?) and by verification (which baseline failures does the goal
//! target; the others pass when no worse).

use std::path::Path;

use pawl_core::spec::facts::{self, Anchoring, BaselineFailure, Lookup, RunFacts};

use crate::baseline::Baseline;

/// The facts of a run: its baseline's failures and the repository's answers for `goal`.
pub fn facts_of(root: &Path, goal: &str, baseline: &Baseline) -> RunFacts {
    let mut failures = Vec::new();
    for c in baseline.checks.iter().filter(|c| !c.passed) {
        // Each failing test once (jest also names it by its bare titles).
        let failing_tests = pawl_core::record::failing_test_ids(&c.tests, &c.failing);
        let mut text = c.first_failure.clone().unwrap_or_default();
        for i in c.items.iter().flatten() {
            text.push('\n');
            text.push_str(&i.line());
        }
        if failing_tests.is_empty() {
            failures.push(BaselineFailure {
                check: c.name.clone(),
                test: None,
                runs_tests: false,
                text,
                exercises: None,
            });
        } else {
            for id in failing_tests {
                failures.push(BaselineFailure {
                    check: c.name.clone(),
                    test: Some(id.to_owned()),
                    runs_tests: true,
                    text: text.clone(),
                    exercises: None,
                });
            }
        }
    }
    let found = lookup(root, goal, Some(&baseline.tree));
    // Which of the goal's terms each failing test exercises, read from parsed code (issue 35
    // point 3): the failures the goal targets follow what the tests run, not the check's
    // output, which is one text for all of its tests.
    crate::verify::read_exercises(root, goal, &baseline.tree, &found, &mut failures);
    RunFacts { failures, found }
}

/// The goal's candidates the repository at `root` has — in `tree` (the baseline's: what the run
/// started from, which the agent cannot change) when given. None when it cannot be read.
pub fn lookup(root: &Path, goal: &str, tree: Option<&str>) -> std::collections::BTreeSet<String> {
    let cands = facts::candidates(goal);
    let of = |kind: Lookup| terms_of(&cands, kind);
    let Ok(repo) = pawl_git::Repo::open(root) else {
        return Default::default();
    };
    let mut found = repo
        .paths_tracked(&of(Lookup::Path), tree)
        .unwrap_or_default();
    found.extend(repo.words_used(&of(Lookup::Word), tree).unwrap_or_default());
    found.extend(
        repo.names_defined(&of(Lookup::Definition), tree)
            .unwrap_or_default(),
    );
    found
}

/// The terms of `cands` looked up as `kind`.
fn terms_of(cands: &[facts::Candidate], kind: Lookup) -> Vec<&str> {
    cands
        .iter()
        .filter(|c| c.lookup == kind)
        .map(|c| c.term.as_str())
        .collect()
}

/// What `goal` ties to among the run's facts, and which baseline failures it targets.
pub fn of_run(root: &Path, goal: &str, baseline: &Baseline) -> Anchoring {
    facts::anchor(goal, &facts_of(root, goal, baseline))
}

/// The symbols the goal names (issue 32 point 3: what a new test must exercise to prove the
/// goal): its anchors of kind symbol, and its code-shaped terms and plain words that `tree`
/// (the locked tree: a function the run added) defines or uses; each as its last identifier
/// (`calc::sub`, `Calc.sub()` → `sub`).
pub fn goal_symbols(root: &Path, goal: &str, anchoring: &Anchoring, tree: &str) -> Vec<String> {
    let cands = facts::candidates(goal);
    let of = |kind: Lookup| terms_of(&cands, kind);
    let mut terms: std::collections::BTreeSet<String> = anchoring
        .anchors
        .iter()
        .filter(|a| a.kind == facts::FactKind::Symbol)
        .map(|a| a.text.clone())
        .collect();
    if let Ok(repo) = pawl_git::Repo::open(root) {
        terms.extend(
            repo.words_used(&of(Lookup::Word), Some(tree))
                .unwrap_or_default(),
        );
        terms.extend(
            repo.names_defined(&of(Lookup::Definition), Some(tree))
                .unwrap_or_default(),
        );
    }
    let mut out: Vec<String> = Vec::new();
    for t in terms {
        let last = last_identifier(&t);
        if !last.is_empty() && !out.iter().any(|o| o == last) {
            out.push(last.to_owned());
        }
    }
    out
}

/// A term's last identifier (`calc::sub`, `Calc.sub()` → `sub`): the name code uses it by.
pub(crate) fn last_identifier(term: &str) -> &str {
    pawl_core::probe::symbol_of(term)
}
