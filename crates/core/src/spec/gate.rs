//! The spec gate, acting: what a run does with a goal below the clarity threshold (the gate of
//! [`super::analyze`] did not let it proceed: no anchor and few words) before any work. On a
//! terminal pawl asks (the interview's questions, with its timeout); unattended it proceeds on
//! best-judgment assumptions, recorded as assumption criteria (never proof of anything: a run
//! whose criteria are only assumed is never SHIP) and said at the start; `--yes` proceeds as is.
//! The questions are data: one row per clarity dimension the goal scores 0 on.

use serde::{Deserialize, Serialize};

use super::facts::Anchoring;
use super::{Analysis, Anchor, AnchorKind, Clarity};

/// One gap in the goal: the question to ask, and the assumption taken when nobody answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    pub dimension: String,
    pub question: String,
    pub assumption: String,
}

/// What the gate does before the run's first step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum GateAction {
    /// Clear enough, forced (`force:`), or told to proceed (`--yes`).
    Proceed { why: String },
    /// Ask these on the terminal (silence takes the assumption).
    Ask { gaps: Vec<Gap> },
    /// Unattended: proceed on these assumptions, recorded and said.
    Assume { gaps: Vec<Gap> },
}

/// (dimension, is it missing, question, assumption). `{goal}` is the goal's text.
type Row = (
    &'static str,
    fn(&Clarity) -> bool,
    &'static str,
    &'static str,
);

/// The gaps pawl asks about, in the order it asks (at most [`MAX_GAPS`]).
const ROWS: &[Row] = &[
    (
        "outcome",
        |c| c.outcome < 2,
        "What should exist or be different when the run is done?",
        "the smallest change that makes \"{goal}\" true, in the code as it is",
    ),
    (
        "scope",
        |c| c.scope == 0,
        "Which files, modules or commands may change?",
        "only the code the goal names or implies; nothing else is touched",
    ),
    (
        "success",
        |c| c.success == 0,
        "How will we know it worked: a test, a command, an output?",
        "pawl's checks pass, and a test that fails before the change passes after it",
    ),
    (
        "constraints",
        |c| c.constraints == 0,
        "What must not change (interfaces, behaviour, files)?",
        "public interfaces and the behaviour the goal does not mention stay as they are",
    ),
];

/// The most questions the gate asks (or assumptions it takes).
pub const MAX_GAPS: usize = 3;

/// Below the clarity threshold: the gate found nothing to anchor on (no file, identifier,
/// issue, error name, code block or steps, and few words) and the clarity score says "clarify
/// first" (shape intent, under 5 of 10). A short goal with a clear outcome and a way to check it
/// ("make the calculator's tests pass") is not.
pub fn below_threshold(a: &Analysis) -> bool {
    !a.gate.proceed && a.shape == super::Shape::Intent
}

/// The goal's text anchors that the run's facts hold: an issue reference, a code block or
/// numbered steps as written; a path, an identifier or an error name only when the repository
/// or a baseline failure has it (`Update regression-testing.md` names no file of the run).
pub fn text_anchors_held(a: &Analysis, facts: &Anchoring) -> Vec<Anchor> {
    a.gate
        .anchors
        .iter()
        .filter(|x| match x.kind {
            AnchorKind::IssueRef | AnchorKind::CodeBlock | AnchorKind::NumberedSteps => true,
            AnchorKind::FilePath | AnchorKind::Identifier | AnchorKind::ErrorName => {
                facts.anchors.iter().any(|f| f.text == x.text)
            }
        })
        .cloned()
        .collect()
}

/// Below the clarity threshold on the run's facts (`super::facts`). Without facts (no
/// baseline): [`below_threshold`]. With them: not forced, not anchored on the facts (a failing
/// test at the baseline and a goal that asks for a fix, a symbol or path the repository has,
/// an issue reference), no text anchor the facts hold, and the clarity scored on those anchors
/// only says "clarify first".
pub fn below_threshold_on_facts(a: &Analysis, facts: Option<&Anchoring>) -> bool {
    let Some(f) = facts else {
        return below_threshold(a);
    };
    if a.gate.forced || f.anchored() {
        return false;
    }
    let held = text_anchors_held(a, f);
    held.is_empty() && super::shape_of(&super::clarity_with(a, &held)) == super::Shape::Intent
}

/// [`decide`] with the run's facts: a goal they anchor proceeds, saying on what; a goal whose
/// text anchors they do not hold is judged without them.
pub fn decide_on_facts(
    a: &Analysis,
    facts: Option<&Anchoring>,
    attended: bool,
    yes: bool,
) -> GateAction {
    let Some(f) = facts else {
        return decide(a, attended, yes);
    };
    if !below_threshold_on_facts(a, Some(f)) {
        return GateAction::Proceed {
            why: if f.anchored() {
                f.describe()
            } else {
                a.gate.reason.clone()
            },
        };
    }
    act_below(a, attended, yes, true)
}

/// The gaps of a goal, questions and assumptions filled in.
pub fn gaps(a: &Analysis) -> Vec<Gap> {
    ROWS.iter()
        .filter(|(_, missing, _, _)| missing(&a.clarity))
        .take(MAX_GAPS)
        .map(|(dimension, _, question, assumption)| Gap {
            dimension: dimension.to_string(),
            question: question.to_string(),
            assumption: assumption.replace("{goal}", &a.goal),
        })
        .collect()
}

/// The gate's action: `attended` — a person is at the terminal; `yes` — `--yes` was given.
pub fn decide(a: &Analysis, attended: bool, yes: bool) -> GateAction {
    if !below_threshold(a) {
        return GateAction::Proceed {
            why: a.gate.reason.clone(),
        };
    }
    act_below(a, attended, yes, false)
}

/// What the gate does with a goal below the threshold. `unanchored`: the run's facts tie the
/// goal to nothing, so what it is for is an assumption pawl cannot check — the outcome gap is
/// always among the gaps (the scope and constraints ones are checked at the end, and a run
/// resting on them alone could SHIP: "proceeds on assumptions and cannot SHIP").
fn act_below(a: &Analysis, attended: bool, yes: bool, unanchored: bool) -> GateAction {
    if yes {
        return GateAction::Proceed {
            why: "--yes: proceeding on the goal as stated".into(),
        };
    }
    let mut gaps = gaps(a);
    if unanchored && !gaps.iter().any(|g| g.dimension == ROWS[0].0) {
        let (d, _, q, s) = ROWS[0];
        gaps.insert(
            0,
            Gap {
                dimension: d.to_string(),
                question: q.to_string(),
                assumption: s.replace("{goal}", &a.goal),
            },
        );
        gaps.truncate(MAX_GAPS);
    }
    if gaps.is_empty() {
        // Below the gate with every dimension scored: still say what is taken as given.
        gaps = ROWS
            .iter()
            .take(1)
            .map(|(d, _, q, s)| Gap {
                dimension: d.to_string(),
                question: q.to_string(),
                assumption: s.replace("{goal}", &a.goal),
            })
            .collect();
    }
    if attended {
        GateAction::Ask { gaps }
    } else {
        GateAction::Assume { gaps }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{ProjectFacts, analyze};

    fn a(goal: &str) -> Analysis {
        analyze(goal, &ProjectFacts::default())
    }

    #[test]
    fn the_gate_acts() {
        // (goal, attended, --yes) -> action
        let rows: &[(&str, bool, bool, &str)] = &[
            ("make it better", false, false, "assume"),
            ("make it better", true, false, "ask"),
            ("make it better", false, true, "proceed"),
            ("force: make it better", false, false, "proceed"),
            ("fix the crash in src/parser.rs", false, false, "proceed"),
            ("add a --verbose flag to the cli", true, false, "ask"),
            // Clear enough to act on though unanchored: an outcome and a way to check it.
            ("make the calculator's tests pass", false, false, "proceed"),
        ];
        for (goal, attended, yes, want) in rows {
            let got = match decide(&a(goal), *attended, *yes) {
                GateAction::Proceed { .. } => "proceed",
                GateAction::Ask { .. } => "ask",
                GateAction::Assume { .. } => "assume",
            };
            assert_eq!(got, *want, "{goal} attended={attended} yes={yes}");
        }
    }

    /// Issue 35: the goal's wording decided the verdict. With a failing test at the baseline,
    /// every phrasing of "fix it" proceeds, anchored on the facts; "make it better" does not.
    #[test]
    fn the_run_s_facts_anchor_short_goals() {
        use crate::spec::facts::{BaselineFailure, RunFacts, anchor};
        let facts = RunFacts {
            failures: vec![BaselineFailure {
                check: "test".into(),
                test: Some("tests/test_calc.py::test_parse_negative".into()),
                runs_tests: true,
                text: "AssertionError: assert 12 == -12".into(),
                exercises: None,
            }],
            found: ["parse".to_string()].into(),
        };
        let rows: &[(&str, &str)] = &[
            ("make the failing test pass", "proceed"),
            ("make the failing tests pass", "proceed"),
            ("parse drops the minus sign of negative numbers", "proceed"),
            ("Fix issue #12: negative numbers lose their sign", "proceed"),
            ("make it better", "assume"),
            ("clean up", "assume"),
            ("make it faster", "assume"),
        ];
        for (goal, want) in rows {
            let an = anchor(goal, &facts);
            let got = match decide_on_facts(&a(goal), Some(&an), false, false) {
                GateAction::Proceed { .. } => "proceed",
                GateAction::Ask { .. } => "ask",
                GateAction::Assume { .. } => "assume",
            };
            assert_eq!(got, *want, "{goal}: {an:?}");
            assert_eq!(
                below_threshold_on_facts(&a(goal), Some(&an)),
                *want != "proceed" && below_threshold(&a(goal)),
                "{goal}"
            );
        }
    }

    /// A goal the facts tie to nothing always leaves its outcome assumed: the scope and
    /// constraints assumptions are checked at the end, and "Update regression-testing.md" (no
    /// such file, a failing test it does not ask about) must not SHIP on them alone.
    #[test]
    fn an_unanchored_goal_leaves_its_outcome_assumed() {
        use crate::spec::facts::{BaselineFailure, RunFacts, anchor};
        let facts = RunFacts {
            failures: vec![BaselineFailure {
                check: "test".into(),
                test: Some("test_calc.Calc.test_add".into()),
                runs_tests: true,
                text: "AssertionError: -1 != 5".into(),
                exercises: None,
            }],
            found: Default::default(),
        };
        for goal in [
            "Update regression-testing.md",
            "Test case regressions missing",
        ] {
            let an = anchor(goal, &facts);
            match decide_on_facts(&a(goal), Some(&an), false, false) {
                GateAction::Assume { gaps } => {
                    assert!(
                        gaps.iter().any(|g| g.dimension == "outcome"),
                        "{goal}: {gaps:?}"
                    )
                }
                other => panic!("{goal}: {other:?}"),
            }
        }
    }

    #[test]
    fn punctuation_is_not_words() {
        assert_eq!(a("make it better — !! ->").word_count, 3);
    }

    #[test]
    fn gaps_are_the_missing_dimensions_with_an_assumption_each() {
        let g = gaps(&a("make it better"));
        assert!(!g.is_empty() && g.len() <= MAX_GAPS, "{g:?}");
        assert_eq!(g[0].dimension, "outcome");
        assert!(g[0].assumption.contains("\"make it better\""), "{g:?}");
        assert!(g.iter().all(|x| x.question.ends_with('?')));
    }
}

/// Whether the run checks in with the user at the plan gate: a goal of the `colleague` shape
/// (clarity 5–7: "check in at the gates unless told to proceed") that the user did not tell to
/// proceed (`--yes`, `[pipeline] spec_gate = false`).
pub fn checks_in(a: &Analysis, told_to_proceed: bool) -> bool {
    a.shape == super::Shape::Colleague && !told_to_proceed
}

/// What a reply at a check-in says: go on (an empty reply, "yes", "ok", "proceed", "go", "y"),
/// or what to change (anything else, as the user wrote it).
pub fn check_in_reply(reply: &str) -> Option<String> {
    let r = reply.trim();
    let first = r
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("")
        .to_lowercase();
    let go = [
        "", "y", "yes", "ok", "okay", "proceed", "go", "sure", "fine", "lgtm",
    ];
    if go.contains(&first.as_str()) {
        None
    } else {
        Some(r.to_string())
    }
}

#[cfg(test)]
mod check_in_tests {
    use super::check_in_reply;

    #[test]
    fn replies_are_go_or_what_to_change() {
        for go in ["", "yes", "Yes.", "ok", "OK, go", "proceed", "y", "lgtm"] {
            assert_eq!(check_in_reply(go), None, "{go}");
        }
        for change in ["no: also greet the moon", "split S1", "nope"] {
            assert_eq!(check_in_reply(change).as_deref(), Some(change), "{change}");
        }
    }
}
