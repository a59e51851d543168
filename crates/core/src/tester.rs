//! The independent tester (issue 33 point 2): before the executor's first step, pawl asks a
//! session of its own — any command (`[tester] command`) or the configured agent CLI — for tests
//! of the goal's behaviour on inputs other than the visible tests'. What it writes is kept in
//! pawl's private state; the executor never sees it. Its tests run as probes (the same judge as
//! the deciding tests'): a hidden test that fails on work that passes everything else sends the
//! executor back once, without the inputs; if it still fails, the run ends REVIEW.
//!
//! Here: whether a run has a tester ([`decide`], sealed with the run as [`Sealed`]), what a
//! failing hidden test does ([`act`]) and what the executor is told ([`send_back`]). Not here:
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
}
