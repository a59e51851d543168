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
use pawl_engine::verify::reviewer::{AgentReviewer, Halt, Reviewer, Said};

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
        "reviewer_a_malformed_answer_is_asked_once_more_and_a_good_second_answer_counts",
        reviewer_a_malformed_answer_is_asked_once_more_and_a_good_second_answer_counts,
    ),
    (
        "reviewer_two_malformed_answers_are_no_usable_answer_and_not_asked_a_third_time",
        reviewer_two_malformed_answers_are_no_usable_answer_and_not_asked_a_third_time,
    ),
    (
        "reviewer_a_stop_ends_a_slow_reviewers_session_and_the_run_stops",
        reviewer_a_stop_ends_a_slow_reviewers_session_and_the_run_stops,
    ),
    (
        "reviewer_a_cancel_ends_a_slow_reviewers_session_and_the_run_is_cancelled",
        reviewer_a_cancel_ends_a_slow_reviewers_session_and_the_run_is_cancelled,
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

/// A reviewer that answers `text` (then each of `then`, one per further session) and, with
/// `write`, first writes that file into its cwd.
struct Scripted {
    text: String,
    then: Vec<String>,
    write: Option<(&'static str, &'static str)>,
    prompts: Arc<Mutex<Vec<String>>>,
}

impl Reviewer for Scripted {
    fn agent(&self) -> String {
        "scripted".into()
    }

    fn ask(&mut self, cwd: &Path, prompt: &str, _halt: Halt<'_>) -> Said {
        self.prompts.lock().expect("lock").push(prompt.to_owned());
        if let Some((path, text)) = self.write {
            std::fs::write(cwd.join(path), text).expect("write");
        }
        let n = self.prompts.lock().expect("lock").len();
        let text = match n {
            1 => self.text.clone(),
            _ => self
                .then
                .get(n - 2)
                .or(self.then.last())
                .cloned()
                .unwrap_or_else(|| self.text.clone()),
        };
        Said {
            session_id: Some(format!("s-{n}")),
            text,
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
    run_answers(
        reviewer,
        scenario,
        answer.map(|(text, write)| (text, Vec::new(), write)),
    )
}

type Answers = (String, Vec<String>, Option<(&'static str, &'static str)>);

/// [`run`] with a reviewer that answers its first session, then each of its next ones.
fn run_answers(
    reviewer: Option<Setting>,
    scenario: &str,
    answer: Option<Answers>,
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
    if let Some((text, then, write)) = answer {
        v = v.with_reviewer(Box::new(Scripted {
            text,
            then,
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

/// An answer that does not parse is asked for once more, in a fresh session told what was
/// wrong; a usable second answer decides (here: clear, so the honest fix ships), and both
/// sessions are recorded and charged.
fn reviewer_a_malformed_answer_is_asked_once_more_and_a_good_second_answer_counts() {
    let (f, end, asked) = run_answers(
        Some(Setting::On),
        &honest(),
        Some(("Looks fine to me! SHIP it.".into(), vec![clear()], None)),
    );
    assert_eq!(end.reason, StopReason::Verified, "{end:?}");
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked[1].starts_with(&asked[0]), "the same question again");
    assert!(
        asked[1].contains("## Your last answer could not be used"),
        "{}",
        asked[1]
    );
    let r = end.last.expect("report").reviewer.expect("record");
    assert_eq!(r.verdict, Verdict::Clear);
    assert_eq!(r.session_id.as_deref(), Some("s-2"));
    assert_eq!(r.malformed.len(), 1, "{r:?}");
    assert_eq!(r.malformed[0].session_id.as_deref(), Some("s-1"));
    let spent = f.store.spent(&f.run_id).expect("spent");
    assert!(
        (spent.usd - 2.0 * SESSION_USD).abs() < 1e-9,
        "two sessions cost ${}, the run spent ${}",
        2.0 * SESSION_USD,
        spent.usd
    );
}

/// Asked twice, unusable twice: no usable answer, a finding (REVIEW), and no third session.
fn reviewer_two_malformed_answers_are_no_usable_answer_and_not_asked_a_third_time() {
    let sly = fenced(serde_json::json!({"special_cases": false, "accept": true}));
    let (_f, end, asked) = run_answers(
        Some(Setting::On),
        &honest(),
        Some(("no json here".into(), vec![sly], None)),
    );
    assert_eq!(end.reason, StopReason::Review, "{end:?}");
    assert_eq!(asked.len(), 2, "{asked:?}");
    let last = end.last.expect("report");
    assert_eq!(last.outcome, Some(Outcome::Review));
    let r = last.reviewer.expect("record");
    assert_eq!(r.verdict.word(), "no_answer", "{r:?}");
    assert!(
        matches!(&r.verdict, Verdict::NoAnswer { why } if why.contains("asked twice")),
        "{r:?}"
    );
    assert!(
        last.findings
            .iter()
            .any(|f| f.contains("gave no answer pawl can use") && f.contains("session s-2")),
        "{:?}",
        last.findings
    );
}

/// A reviewer whose session sleeps (a process that never answers, with a child of its own):
/// its pid and its child's pid are written to `pids`.
fn slow_reviewer(f: &Fixture, pids: &Path) -> AgentReviewer {
    let script = format!(
        "sleep 600 & echo $! > '{p}.tmp'; echo $$ >> '{p}.tmp'; mv '{p}.tmp' '{p}'; wait",
        p = pids.display()
    );
    let adapter = pawl_agent::command::CommandAdapter::new(vec!["sh".into(), "-c".into(), script])
        .expect("adapter");
    let stall = pawl_core::config::Stall::default();
    AgentReviewer::new(
        Box::new(adapter),
        &stall,
        f.root().join(".pawl/logs"),
        &f.run_id,
    )
    .stopped_by(f.control.clone())
}

/// The pids the slow reviewer wrote, once it wrote them (generous: the machine may be loaded).
fn wait_for_pids(pids: &Path) -> Vec<u32> {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(300);
    while std::time::Instant::now() < until {
        if let Ok(t) = std::fs::read_to_string(pids) {
            return t.lines().filter_map(|l| l.trim().parse().ok()).collect();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the reviewer's session never started");
}

/// Whether `pid` is still a live process (a zombie is not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().to_owned())
        })
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

/// The honest fix under a slow reviewer; `interrupt` runs once its session is up. Returns how
/// the run ended and the session's processes.
fn run_interrupted(
    interrupt: impl FnOnce(&Fixture) -> Box<dyn FnOnce() + Send>,
) -> (Fixture, pawl_engine::LoopEnd, Vec<u32>, std::time::Duration) {
    let mut f = Fixture::new(&honest(), |_| {});
    f.git(&[("calc.py", CALC), ("test_calc.py", CALC_TEST)]);
    let mut s = seal(
        &[("test", "python3 -m unittest discover -v", CheckRole::Gate)],
        f.root(),
    );
    s.reviewer = Some(Setting::On);
    f.seal(s);
    let b = pawl_engine::baseline::take(&f.ws(), f.run_seal()).expect("baseline");
    f.record_baseline(&b);
    let scratch = tempfile::tempdir().expect("tempdir");
    let pids = scratch.path().join("pids");
    let mut v =
        GateVerifier::new(f.ws(), Vec::new()).with_reviewer(Box::new(slow_reviewer(&f, &pids)));
    let act = interrupt(&f);
    let watched = pids.clone();
    let started = std::sync::Arc::new(Mutex::new(None::<std::time::Instant>));
    let at = started.clone();
    let t = std::thread::spawn(move || {
        let pids = wait_for_pids(&watched);
        *at.lock().expect("lock") = Some(std::time::Instant::now());
        act();
        pids
    });
    let mut agent = f.replay();
    let (end, _) = f.drive(&mut agent, &mut v);
    let ended = std::time::Instant::now();
    let pids = t.join().expect("the interrupting thread");
    let took = ended.duration_since(started.lock().expect("lock").expect("asked"));
    (f, end, pids, took)
}

/// Every pid in `pids` is gone (waits, generously, for the kernel to reap them).
fn assert_gone(pids: &[u32]) {
    assert_eq!(pids.len(), 2, "{pids:?}");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while pids.iter().any(|p| alive(*p)) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let left: Vec<u32> = pids.iter().copied().filter(|p| alive(*p)).collect();
    assert!(
        left.is_empty(),
        "stray processes of the reviewer's session: {left:?}"
    );
}

/// `pawl stop` during the reviewer's session (it would sleep ten minutes, and the stall
/// timeouts are longer still): the session's process group is killed, the verification does
/// not finish, the run ends `stopped` (exit 6, resumable) — not `review` — and a resumed run's
/// verification asks the reviewer again (the stopped record is not reused).
fn reviewer_a_stop_ends_a_slow_reviewers_session_and_the_run_stops() {
    let (f, end, pids, took) = run_interrupted(|f| {
        let stop = f.control.stop_file().to_path_buf();
        Box::new(move || std::fs::write(&stop, "stop").expect("stop file"))
    });
    assert_eq!(end.reason, StopReason::Stopped, "{end:?}");
    assert_eq!(end.reason.exit_code(), pawl_core::ExitCode::Cancelled);
    assert_eq!(end.reason.exit_code().code(), 6);
    // Generous: the session sleeps 600 s; its stall timeouts are longer.
    assert!(took < std::time::Duration::from_secs(300), "{took:?}");
    let r = end.last.expect("report").reviewer.expect("record");
    assert!(r.stopped(), "{r:?}");
    assert!(
        matches!(&r.verdict, Verdict::Stopped { why } if why.contains("pawl stop")),
        "{r:?}"
    );
    assert_gone(&pids);
    drop(f);
}

/// `pawl cancel` (the store's run marked cancelled) during the reviewer's session: the session
/// is killed and the run ends `cancelled`.
fn reviewer_a_cancel_ends_a_slow_reviewers_session_and_the_run_is_cancelled() {
    let (f, end, pids, took) = run_interrupted(|f| {
        let db = f.db_path();
        let run_id = f.run_id.clone();
        Box::new(move || {
            let mut store = pawl_store::Store::open(&db).expect("store");
            store.cancel_run(&run_id).expect("cancel");
        })
    });
    assert_eq!(end.reason, StopReason::Cancelled, "{end:?}");
    assert_eq!(end.reason.exit_code(), pawl_core::ExitCode::Cancelled);
    assert!(took < std::time::Duration::from_secs(300), "{took:?}");
    let r = end.last.expect("report").reviewer.expect("record");
    assert!(
        matches!(&r.verdict, Verdict::Stopped { why } if why.contains("cancel")),
        "{r:?}"
    );
    assert_gone(&pids);
    drop(f);
}
