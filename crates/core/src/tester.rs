//! The independent tester (issue 33 point 2): before the executor's first step, pawl asks a
//! session of its own — any command (`[tester] command`) or the configured agent CLI — for tests
//! of the goal's behaviour on inputs other than the visible tests'. What it writes is kept in
//! pawl's private state; the executor never sees it. Its tests run as probes (the same judge as
//! the deciding tests'): a hidden test that fails on work that passes everything else sends the
//! executor back once, without the inputs; if it still fails, the run ends REVIEW.
//!
//! Here: whether a run has a tester ([`decide`], sealed with the run as [`Sealed`]), what a
//! failing hidden test does ([`act`]), what the executor is told ([`send_back`], also on the
//! step of a run resumed after a REVIEW on them) and what the user ([`review`]). Not here:
//! the tester's session and its tests' runs (pawl-engine `tester.rs`), the verdict
//! (`crate::proof::judge` reads [`crate::proof::Proof::hidden_findings`]).

use serde::{Deserialize, Serialize};

use crate::config::AgentKind;
pub use crate::review::Setting;

/// The first line of the prompt of an agent tester: how a session tells it is the tester's (the
/// mock model server of pawl's tests answers it by this line).
pub const MARKER: &str = "[pawl role: independent-tester]";

/// `[tester]` in pawl.toml.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TesterConfig {
    /// `auto` (the default: where an agent CLI is configured, or a command is set), `on` or
    /// `off` (`pawl run --no-tester`).
    pub on: Setting,
    /// A command that writes the hidden tests into `$PAWL_TESTER_OUT` (empty: a session of the
    /// configured agent CLI).
    pub command: String,
}

/// A run's tester, as sealed when the run started (`Seal.tester`; `None`: no tester).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    /// The command (empty: the configured agent CLI, read-only, answering with its files).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// Why the run has it (the report shows it).
    pub why: String,
}

/// Whether a run has the tester, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub tester: Option<Sealed>,
    pub why: String,
}

/// Whether a run with `config` and `agent` has a tester. `auto`: where an agent CLI is
/// configured (its session), or where `[tester] command` is set (any agent); `on` asks for one
/// (a command agent without a command has none: it cannot be asked for files); `off`: none.
pub fn decide(config: &TesterConfig, agent: AgentKind) -> Decision {
    let command = config.command.trim().to_owned();
    let cli = !matches!(agent, AgentKind::Command | AgentKind::Replay);
    let none = |why: String| Decision { tester: None, why };
    let some = |why: String| Decision {
        tester: Some(Sealed {
            command: command.clone(),
            why: why.clone(),
        }),
        why,
    };
    match config.on {
        Setting::Off => none("`[tester] on = \"off\"` (or `--no-tester`)".into()),
        _ if !command.is_empty() => some(format!("`[tester] command = \"{command}\"`")),
        _ if cli => some(format!(
            "a session of the configured agent ({agent}), read-only"
        )),
        Setting::On => none(format!(
            "`[tester] on = \"on\"`, but a {agent} agent cannot be the tester: set `[tester] command`"
        )),
        Setting::Auto => none(format!(
            "no agent CLI is configured (`[agent] kind = \"{agent}\"`) and no `[tester] command`"
        )),
    }
}

/// What a verification whose hidden tests fail does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    /// Nothing fails (or something else keeps the run from SHIP already).
    None,
    /// Send the executor back once, told only which behaviour an independent check finds wrong.
    SendBack,
    /// It was sent back already and a hidden test still fails: REVIEW, the user sees the test.
    Review,
}

/// What a hidden test's failure does: `failing` hidden tests on work that passes everything
/// else (`otherwise_ship`), the executor sent back before or not. Never more than one send-back:
/// a second failure ends the run for the user, never a loop into a breaker.
pub fn act(failing: usize, otherwise_ship: bool, sent_back_before: bool) -> Act {
    match (failing, otherwise_ship, sent_back_before) {
        (0, _, _) | (_, false, _) => Act::None,
        (_, true, false) => Act::SendBack,
        (_, true, true) => Act::Review,
    }
}

/// What the tester's session left, as its record says (`pawl-engine`'s `TesterRecord`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended<'a> {
    /// Why it gave no tests (could not start, exited non-zero, timed out, no usable answer).
    pub failed: Option<&'a str>,
    /// How many test files it left.
    pub files: usize,
}

/// What the hidden tests did on the verified tree (`pawl-engine`'s `HiddenRun`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ran<'a> {
    /// Calls that ran outside the test runner and answered.
    pub probed: usize,
    /// Behaviours a hidden test finds wrong.
    pub failing: usize,
    /// Names it guessed that the final tree lacks (inconclusive: never a failure).
    pub inconclusive: usize,
    /// Why the first of the tests not run was not (no inputs).
    pub not_run: Option<&'a str>,
}

/// Whether a SHIP would rest on no hidden test although the run has a tester: the finding
/// that caps the verdict at REVIEW ([`crate::proof::Proof::tester_unrun`]), or `None`.
///
/// `ended`: the tester's record (`None`: no tester was started — the run has none, the user
/// turned it off, or a driver that starts none drove it); `ran`: its tests' run on the verified
/// tree (`None`: not run). A tester that failed, timed out, wrote no file, or wrote files of
/// which no test ran, is a finding (fail-closed: the tester's failure is never read as its
/// tests' passing). A tester whose every test guessed a name the final tree lacks is not: its
/// tests are inconclusive, shown, never a failure (issue 33 point 2).
pub fn unrun(ended: Option<Ended<'_>>, ran: Option<Ran<'_>>) -> Option<String> {
    let ended = ended?;
    const TAIL: &str = "no hidden test ran";
    if let Some(why) = ended.failed {
        return Some(format!("the independent tester ended with {why}; {TAIL}"));
    }
    if ended.files == 0 {
        return Some(format!(
            "the independent tester ended with no test file; {TAIL}"
        ));
    }
    match ran {
        None => Some(format!(
            "the independent tester's {} file(s) were not run on this tree; {TAIL}",
            ended.files
        )),
        Some(r) if r.probed == 0 && r.failing == 0 && r.inconclusive == 0 => Some(format!(
            "the independent tester ended with {} file(s) of which pawl could run none{}; {TAIL}",
            ended.files,
            r.not_run.map(|w| format!(" ({w})")).unwrap_or_default()
        )),
        Some(_) => None,
    }
}

/// Whether a run in `mode` can send its executor back: the plain loop (no mode) and the modes
/// that plan go round again; simple mode has no round to go back into (the first failure is
/// REVIEW, with the hidden test shown).
pub fn can_send_back(mode: Option<crate::spec::Mode>) -> bool {
    !matches!(mode, Some(crate::spec::Mode::Simple))
}

/// What the executor is told when sent back: the behaviours (the functions the failing hidden
/// tests call), never their inputs or expected answers.
pub fn send_back(behaviours: &[String]) -> String {
    let mut names: Vec<&str> = behaviours.iter().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    let shown: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    format!(
        "an independent check of {} fails (hidden tests of the goal's behaviour on inputs other than the visible tests'; they are not shown): make the behaviour right for every input, not only the tested ones",
        if shown.is_empty() {
            "the goal's behaviour".to_string()
        } else {
            shown.join(", ")
        }
    )
}

/// The finding of a run that ends REVIEW on its hidden tests (`behaviours` still fail, from the
/// tester `from`; `was_sent_back`: the executor was sent back once before, else its mode has no
/// round for it). It names the behaviour and where the user sees the tests: their calls and
/// answers are kept in the user's pawl state, never in the store or a report a step reads.
pub fn review(behaviours: &[String], from: &str, was_sent_back: bool, run_id: &str) -> String {
    let mut names: Vec<&str> = behaviours.iter().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    let shown: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    format!(
        "an independent check of {} {} (hidden tests from {from}); what they called and got is kept in your pawl state, out of the executor's reach: `pawl report {run_id}` shows it",
        shown.join(", "),
        if was_sent_back {
            "still fails after the executor was sent back once"
        } else {
            "fails (this mode has no round to send the executor back into)"
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(on: Setting, command: &str) -> TesterConfig {
        TesterConfig {
            on,
            command: command.into(),
        }
    }

    #[test]
    fn who_has_a_tester() {
        // (setting, command, agent) → on
        let rows: &[(Setting, &str, AgentKind, bool)] = &[
            (Setting::Auto, "", AgentKind::Claude, true),
            (Setting::Auto, "", AgentKind::Codex, true),
            (Setting::Auto, "", AgentKind::Command, false),
            (Setting::Auto, "", AgentKind::Replay, false),
            (Setting::Auto, "./t.sh", AgentKind::Command, true),
            (Setting::Auto, "./t.sh", AgentKind::Replay, true),
            (Setting::On, "", AgentKind::Command, false),
            (Setting::On, "", AgentKind::Claude, true),
            (Setting::Off, "./t.sh", AgentKind::Command, false),
            (Setting::Off, "", AgentKind::Claude, false),
        ];
        for (on, command, agent, want) in rows {
            let d = decide(&cfg(*on, command), *agent);
            assert_eq!(
                d.tester.is_some(),
                *want,
                "{on:?} {command:?} {agent:?}: {d:?}"
            );
            assert!(!d.why.is_empty());
            if let Some(t) = d.tester {
                assert_eq!(t.command, command.trim());
            }
        }
    }

    #[test]
    fn a_failing_hidden_test_sends_back_once_then_review() {
        assert_eq!(act(0, true, false), Act::None);
        assert_eq!(act(0, true, true), Act::None);
        // Something else keeps the run from SHIP: that decides, not the hidden test.
        assert_eq!(act(2, false, false), Act::None);
        assert_eq!(act(1, true, false), Act::SendBack);
        assert_eq!(act(1, true, true), Act::Review);
    }

    #[test]
    fn a_tester_that_gives_nothing_usable_is_a_finding() {
        let ok = Ended {
            failed: None,
            files: 1,
        };
        let ran = |probed, failing, inconclusive| Ran {
            probed,
            failing,
            inconclusive,
            not_run: Some("test_x.py: not a language pawl reads"),
        };
        // No tester started (none, turned off, or a driver that starts none): nothing to say.
        assert_eq!(unrun(None, None), None);
        // Tests that ran, failed or were inconclusive: the tester did its part.
        assert_eq!(unrun(Some(ok), Some(ran(2, 0, 0))), None);
        assert_eq!(unrun(Some(ok), Some(ran(0, 1, 0))), None);
        assert_eq!(unrun(Some(ok), Some(ran(0, 0, 1))), None);
        // Failed, timed out, wrote nothing, wrote nothing pawl could run, was not run.
        let failed = Ended {
            failed: Some("an error: it exited with code 1"),
            files: 0,
        };
        let empty = Ended {
            failed: None,
            files: 0,
        };
        for (ended, ran, says) in [
            (failed, None, "ended with an error: it exited with code 1"),
            (empty, None, "ended with no test file"),
            (ok, Some(ran(0, 0, 0)), "pawl could run none (test_x.py"),
            (ok, None, "were not run on this tree"),
        ] {
            let f = unrun(Some(ended), ran).expect("a finding");
            assert!(f.contains(says) && f.ends_with("no hidden test ran"), "{f}");
        }
    }

    #[test]
    fn simple_mode_cannot_send_back() {
        use crate::spec::Mode;
        assert!(can_send_back(None));
        assert!(can_send_back(Some(Mode::Work)));
        assert!(!can_send_back(Some(Mode::Simple)));
    }

    #[test]
    fn the_executor_is_told_the_behaviour_not_the_inputs() {
        let s = send_back(&["classify".into(), "classify".into(), "add".into()]);
        assert!(
            s.starts_with("an independent check of `add`, `classify` fails"),
            "{s}"
        );
        assert_eq!(s.matches("`classify`").count(), 1);
    }

    /// At REVIEW the user's finding names the behaviour and `pawl report`, nothing of the tests
    /// (it is stored, and written under the repository's `.pawl/reports/`).
    #[test]
    fn the_review_finding_points_to_the_report_not_the_tests() {
        for (sent_back, says) in [
            (true, "still fails after the executor was sent back once"),
            (
                false,
                "fails (this mode has no round to send the executor back into)",
            ),
        ] {
            let s = review(&["double".into()], "command `sh t.sh`", sent_back, "r1");
            assert!(
                s.starts_with(&format!("an independent check of `double` {says}")),
                "{s}"
            );
            assert!(s.ends_with("`pawl report r1` shows it"), "{s}");
        }
    }
}
