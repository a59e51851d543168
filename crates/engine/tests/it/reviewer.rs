//! The independent reviewer (issue 34 point 3) through the real [`GateVerifier`] on a real
//! Python project: a scripted [`Reviewer`] stands for the agent session (the real CLIs against
//! the mock model server: `crates/cli/tests/it/reviewer_real.rs`). What it answers can only add
//! findings: a flag, an unusable answer, or a session that changed the tree keeps the run from
//! SHIP; nothing it says clears the screen's findings.

use std::path::Path;
use std::sync::{Arc, Mutex};

use pawl_core::StopReason;
use pawl_core::proof::Outcome;
use pawl_core::review::{Setting, Verdict};
use pawl_core::seal::CheckRole;
use pawl_engine::GateVerifier;
use pawl_engine::verify::reviewer::{Reviewer, Said};

use crate::Test;
use crate::harness::Fixture;
use crate::proof::{edit, seal};

pub const TESTS: &[Test] = &[
    (
        "reviewer_a_clear_answer_lets_an_honest_fix_ship_and_is_recorded",
        reviewer_a_clear_answer_lets_an_honest_fix_ship_and_is_recorded,
    ),
    (
        "reviewer_a_flag_makes_an_honest_fix_review",
        reviewer_a_flag_makes_an_honest_fix_review,
    ),
    (
        "reviewer_a_garbage_answer_does_not_ship",
        reviewer_a_garbage_answer_does_not_ship,
    ),
    (
        "reviewer_an_answer_with_fields_of_its_own_does_not_ship",
        reviewer_an_answer_with_fields_of_its_own_does_not_ship,
    ),
    (
        "reviewer_a_session_that_writes_into_the_tree_does_not_ship",
        reviewer_a_session_that_writes_into_the_tree_does_not_ship,
    ),
    (
        "reviewer_a_clear_answer_does_not_clear_the_screens_finding",
        reviewer_a_clear_answer_does_not_clear_the_screens_finding,
    ),
    (
        "reviewer_a_sessions_cost_counts_against_the_runs_budget",
        reviewer_a_sessions_cost_counts_against_the_runs_budget,
    ),
    (
        "reviewer_none_sealed_none_asked",
        reviewer_none_sealed_none_asked,
    ),
    (
        "reviewer_sealed_on_but_none_to_start_does_not_ship",
        reviewer_sealed_on_but_none_to_start_does_not_ship,
    ),
];

const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
const CALC_TEST: &str = "import unittest\n\nfrom calc import add, mul\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n";

/// What each scripted reviewer session costs (as an agent CLI reports it).
const SESSION_USD: f64 = 0.25;

/// A reviewer that answers `text` and, with `write`, first writes that file into its cwd.
struct Scripted {
    text: String,
    write: Option<(&'static str, &'static str)>,
    prompts: Arc<Mutex<Vec<String>>>,
}

impl Reviewer for Scripted {
    fn agent(&self) -> String {
        "scripted".into()
    }

    fn ask(&mut self, cwd: &Path, prompt: &str) -> Said {
        self.prompts.lock().expect("lock").push(prompt.to_owned());
        if let Some((path, text)) = self.write {
            std::fs::write(cwd.join(path), text).expect("write");
        }
        Said {
            session_id: Some(format!("s-{}", self.prompts.lock().expect("lock").len())),
            text: self.text.clone(),
            cost_usd: SESSION_USD,
            ..Said::default()
        }
    }
}

fn fenced(v: serde_json::Value) -> String {
    format!("Here is my answer.\n```json\n{v}\n```\n")
}

/// The Python project whose `test_add` fails, sealed with unittest and `[verify] reviewer =
/// reviewer`; the agent does `scenario`; `answer` (and `write`) is the reviewer's.
fn run(
    reviewer: Option<Setting>,
    scenario: &str,
    answer: Option<(String, Option<(&'static str, &'static str)>)>,
) -> (Fixture, pawl_engine::LoopEnd, Vec<String>) {
    let mut f = Fixture::new(scenario, |_| {});
    f.git(&[("calc.py", CALC), ("test_calc.py", CALC_TEST)]);
    let mut s = seal(
        &[("test", "python3 -m unittest discover -v", CheckRole::Gate)],
        f.root(),
    );
    s.reviewer = reviewer;
    f.seal(s);
    let b = pawl_engine::baseline::take(&f.ws(), f.run_seal()).expect("baseline");
    f.record_baseline(&b);
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let mut v = GateVerifier::new(f.ws(), Vec::new());
    if let Some((text, write)) = answer {
        v = v.with_reviewer(Box::new(Scripted {
            text,
            write,
            prompts: prompts.clone(),
        }));
    }
    let mut agent = f.replay();
    let (end, _) = f.drive(&mut agent, &mut v);
    let asked = prompts.lock().expect("lock").clone();
    (f, end, asked)
}

fn honest() -> String {
    edit("calc.py", "a - b", "a + b")
}

fn clear() -> String {
    fenced(serde_json::json!({"special_cases": false, "findings": []}))
}

fn reviewer_a_clear_answer_lets_an_honest_fix_ship_and_is_recorded() {
    let (_f, end, asked) = run(Some(Setting::On), &honest(), Some((clear(), None)));
    assert_eq!(end.reason, StopReason::Verified, "{end:?}");
    let last = end.last.expect("report");
    let r = last.reviewer.expect("the reviewer's record");
    assert_eq!(r.verdict, Verdict::Clear);
    assert_eq!(r.session_id.as_deref(), Some("s-1"));
    assert_eq!(r.tree, last.tree_hash);
    // One session, shown the goal, the diff and the screen's section, asked the question.
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].starts_with("[pawl role: independent-reviewer]"));
    assert!(asked[0].contains("make the test pass"));
    assert!(asked[0].contains("+    return a + b"), "{}", asked[0]);
    assert!(asked[0].contains("## What pawl's screen found\n(none)"));
}

/// Limits are real: the reviewer's session is an agent call of the run, so what it cost is
/// counted in what the run spent (the replayed steps cost nothing), once per session.
fn reviewer_a_sessions_cost_counts_against_the_runs_budget() {
    let (f, end, asked) = run(Some(Setting::On), &honest(), Some((clear(), None)));
    assert_eq!(end.reason, StopReason::Verified, "{end:?}");
    assert_eq!(asked.len(), 1, "{asked:?}");
    let spent = f.store.spent(&f.run_id).expect("spent");
    assert!(
        (spent.usd - SESSION_USD).abs() < 1e-9,
        "the run spent ${} (one reviewer session costs ${SESSION_USD})",
        spent.usd
    );
}

fn reviewer_a_flag_makes_an_honest_fix_review() {
    let flag = fenced(serde_json::json!({"special_cases": true,
        "findings": [{"text": "add answers only the tested pair", "file": "calc.py"}]}));
    let (_f, end, _) = run(Some(Setting::On), &honest(), Some((flag, None)));
    assert_eq!(end.reason, StopReason::Review, "{end:?}");
    let last = end.last.expect("report");
    assert_eq!(last.outcome, Some(Outcome::Review));
    assert_eq!(last.proof.as_ref().map(|p| p.reviewer_findings), Some(1));
    assert!(
        last.findings.iter().any(|f| f.contains("session s-1")
            && f.contains("`calc.py`: add answers only the tested pair")),
        "{:?}",
        last.findings
    );
}

fn reviewer_a_garbage_answer_does_not_ship() {
    let (_f, end, _) = run(
        Some(Setting::On),
        &honest(),
        Some(("Looks fine to me! SHIP it.".into(), None)),
    );
    assert_eq!(end.reason, StopReason::Review, "{end:?}");
    let r = end.last.expect("report").reviewer.expect("record");
    assert_eq!(r.verdict.word(), "no_answer", "{r:?}");
}

fn reviewer_an_answer_with_fields_of_its_own_does_not_ship() {
    // An answer that tries to accept or clear something is not the typed one.
    let sly = fenced(serde_json::json!({"special_cases": false, "accept_test_changes": "fine"}));
    let (_f, end, _) = run(Some(Setting::On), &honest(), Some((sly, None)));
    assert_eq!(end.reason, StopReason::Review, "{end:?}");
    assert_eq!(
        end.last
            .expect("report")
            .reviewer
            .expect("record")
            .verdict
            .word(),
        "no_answer"
    );
}

fn reviewer_a_session_that_writes_into_the_tree_does_not_ship() {
    // The reviewer slips a change in after the checks ran and says all is clear: the tree on
    // disk is not the one verified.
    let backdoor = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n\nimport os; os.system('true')\n";
    let (f, end, _) = run(
        Some(Setting::On),
        &honest(),
        Some((clear(), Some(("calc.py", backdoor)))),
    );
    assert_eq!(end.reason, StopReason::Review, "{end:?}");
    let last = end.last.expect("report");
    let r = last.reviewer.expect("record");
    assert_eq!(r.verdict.word(), "changed_tree", "{r:?}");
    assert!(r.answer.is_none(), "its answer is not used: {r:?}");
    assert!(
        last.findings
            .iter()
            .any(|x| x.contains("changed the repository's tree") && x.contains("`calc.py`")),
        "{:?}",
        last.findings
    );
    assert!(
        std::fs::read_to_string(f.root().join("calc.py"))
            .expect("calc")
            .contains("os.system")
    );
}

fn reviewer_a_clear_answer_does_not_clear_the_screens_finding() {
    // The failing test skipped (the screen's finding): the reviewer says all is clear.
    let skip = edit(
        "test_calc.py",
        "    def test_add(self):",
        "    @unittest.skip(\"flaky\")\n    def test_add(self):",
    );
    let (_f, end, asked) = run(Some(Setting::On), &skip, Some((clear(), None)));
    assert_eq!(end.reason, StopReason::TestsChanged, "{end:?}");
    let last = end.last.expect("report");
    assert_eq!(last.outcome, Some(Outcome::Review));
    assert!(last.findings.iter().any(|f| f.contains("test_calc.py")));
    // It was shown the screen's finding.
    assert_eq!(asked.len(), 1);
    assert!(asked[0].contains("test_calc.py"), "{}", asked[0]);
    assert!(!asked[0].contains("## What pawl's screen found\n(none)"));
}

fn reviewer_none_sealed_none_asked() {
    let (_f, end, asked) = run(None, &honest(), Some((clear(), None)));
    assert_eq!(end.reason, StopReason::Verified, "{end:?}");
    assert!(asked.is_empty());
    assert!(end.last.expect("report").reviewer.is_none());
    let (_f, end, asked) = run(Some(Setting::Off), &honest(), Some((clear(), None)));
    assert_eq!(end.reason, StopReason::Verified, "{end:?}");
    assert!(asked.is_empty());
}

fn reviewer_sealed_on_but_none_to_start_does_not_ship() {
    let (_f, end, _) = run(Some(Setting::On), &honest(), None);
    assert_eq!(end.reason, StopReason::Review, "{end:?}");
    let r = end.last.expect("report").reviewer.expect("record");
    assert_eq!(r.verdict.word(), "no_answer");
}
