//! The spec gate, before a new run's first step (`pawl_core::spec::gate`): a goal below the
//! clarity threshold is asked about through an [`Answerer`] when someone is there to answer
//! (each answer a note the agent sees), or run on best-judgment assumptions — assumption
//! criteria (proof of nothing: the verdict is never SHIP on them) and a note — all recorded
//! with a `spec_gate` event, so the gate runs once per run.
//!
//! Not here: the spec analysis' inputs (the project's facts: the caller's), where the answers
//! come from (the CLI's terminal, the pipeline's autonomous answerer), and saying the outcome.

use pawl_core::EventKind;
use pawl_core::record::Run;
use pawl_core::spec::Analysis;
use pawl_core::spec::gate::{self, Gap, GateAction};
use pawl_store::Store;

use super::StartError;
use crate::pipeline::Answerer;

/// Whether the run still has its spec gate ahead: no iteration yet and no `spec_gate` event.
/// A resumed run never meets the gate again.
pub fn pending(store: &Store, run_id: &str) -> Result<bool, StartError> {
    Ok(store.iterations(run_id)?.is_empty()
        && store.last_event(run_id, EventKind::SpecGate)?.is_none())
}

/// How the gate is met.
pub struct GateInput<'a> {
    /// The goal's spec analysis.
    pub analysis: &'a Analysis,
    /// Someone can answer questions now (a terminal, a dashboard form).
    pub attended: bool,
    /// Proceed on the goal as stated (`--yes`, or `[pipeline] spec_gate = false`).
    pub proceed_as_stated: bool,
    /// What the run's facts tie the goal to (its baseline's failures, names and paths of the
    /// baseline tree: `crate::anchors::of_run`); `None` when there is no baseline.
    pub anchoring: Option<&'a pawl_core::spec::facts::Anchoring>,
}

/// What the gate did (for the caller to say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gated {
    pub action: GateAction,
    /// Why the goal is below the threshold.
    pub reason: String,
    /// The assumption criteria recorded, as `<criterion id> <assumption>`.
    pub assumed: Vec<String>,
}

/// Meets the gate for `run` (see the module's documentation). `None` when the goal is clear
/// enough (nothing is recorded). `asking` is called once before the first question.
pub fn meet(
    store: &mut Store,
    run: &Run,
    input: &GateInput<'_>,
    answerer: &mut dyn Answerer,
    asking: &mut dyn FnMut(&str),
) -> Result<Option<Gated>, StartError> {
    let analysis = input.analysis;
    if !gate::below_threshold_on_facts(analysis, input.anchoring) {
        return Ok(None);
    }
    let action = gate::decide_on_facts(
        analysis,
        input.anchoring,
        input.attended,
        input.proceed_as_stated,
    );
    let mut assumed: Vec<(Gap, String)> = Vec::new();
    let mut answered: Vec<(Gap, String)> = Vec::new();
    match &action {
        GateAction::Proceed { .. } => {}
        GateAction::Assume { gaps } => {
            assumed = gaps
                .iter()
                .map(|g| (g.clone(), g.assumption.clone()))
                .collect();
        }
        GateAction::Ask { gaps } => {
            asking(&analysis.gate.reason);
            for g in gaps {
                let a = answerer.answer(&pawl_core::pipeline::output::Question {
                    question: g.question.clone(),
                    recommended: g.assumption.clone(),
                    category: Some(g.dimension.clone()),
                });
                if a.assumed {
                    assumed.push((g.clone(), a.text));
                } else {
                    answered.push((g.clone(), a.text));
                }
            }
        }
    }
    for (g, text) in &answered {
        store.add_note(&run.id, &format!("spec: {} {}", g.question, text))?;
    }
    let mut ids = Vec::new();
    for (g, text) in &assumed {
        let c = store.add_criterion(
            &run.id,
            &format!("assumed ({}): {text}", g.dimension),
            &pawl_core::model::Verification {
                kind: pawl_core::model::VerifyKind::Assumption,
                command: None,
            },
        )?;
        // Taken as given so that it does not hold the run open — and, being an assumption,
        // it proves nothing: a run resting on it is never SHIP (report::verdict_of).
        store.set_criterion_status(
            &run.id,
            &c.id,
            pawl_core::model::CriterionStatus::Verified,
            serde_json::json!({"assumed": true, "by": "spec gate", "question": g.question}),
        )?;
        ids.push(format!("{} {text}", c.id));
    }
    if !assumed.is_empty() {
        store.add_note(
            &run.id,
            &format!(
                "spec: the goal was unclear; working on these assumptions: {}",
                ids.join("; ")
            ),
        )?;
    }
    store.append_event(
        Some(&run.id),
        EventKind::SpecGate,
        serde_json::json!({"action": action, "reason": analysis.gate.reason,
            "clarity": analysis.clarity.total, "assumed": ids,
            "answered": answered.iter().map(|(g, t)| serde_json::json!({"question": g.question, "answer": t})).collect::<Vec<_>>()}),
    )?;
    Ok(Some(Gated {
        action,
        reason: analysis.gate.reason.clone(),
        assumed: ids,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::Answer;
    use pawl_core::model::{Driver, VerifyKind};
    use pawl_store::NewRun;

    /// Answers the first question, stays silent (an assumption) on the rest.
    struct FirstOnly(usize);

    impl Answerer for FirstOnly {
        fn answer(&mut self, q: &pawl_core::pipeline::output::Question) -> Answer {
            self.0 += 1;
            if self.0 == 1 {
                Answer {
                    text: "the greeting in greet.txt".into(),
                    assumed: false,
                }
            } else {
                Answer {
                    text: q.recommended.clone(),
                    assumed: true,
                }
            }
        }
    }

    fn new_run(dir: &std::path::Path) -> (Store, Run) {
        let mut store = Store::open(&dir.join("pawl.db")).expect("store");
        let run = store
            .create_run(&NewRun {
                goal: "make it better".into(),
                driver: Driver::Headless,
                mode: None,
                settings: Default::default(),
                branch: None,
                pre_run_commit: None,
            })
            .expect("run");
        (store, run)
    }

    #[test]
    fn an_attended_gate_records_answers_as_notes_and_silence_as_assumption_criteria_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut store, run) = new_run(dir.path());
        let analysis = pawl_core::spec::analyze(&run.goal, &Default::default());
        assert!(
            gate::below_threshold(&analysis),
            "the test's goal must be unclear"
        );
        assert!(pending(&store, &run.id).expect("pending"));
        let mut asked = Vec::new();
        let mut answers = FirstOnly(0);
        let input = GateInput {
            analysis: &analysis,
            attended: true,
            proceed_as_stated: false,
            anchoring: None,
        };
        let gated = meet(&mut store, &run, &input, &mut answers, &mut |r| {
            asked.push(r.to_string())
        })
        .expect("gate")
        .expect("below the threshold");
        assert!(matches!(gated.action, GateAction::Ask { .. }), "{gated:?}");
        assert_eq!(asked.len(), 1);
        let notes: Vec<String> = store
            .notes(&run.id)
            .expect("notes")
            .into_iter()
            .map(|n| n.text)
            .collect();
        assert!(
            notes
                .iter()
                .any(|n| n.ends_with("the greeting in greet.txt")),
            "{notes:?}"
        );
        let criteria = store.criteria(&run.id).expect("criteria");
        assert_eq!(criteria.len(), answers.0 - 1, "{criteria:?}");
        assert!(
            criteria
                .iter()
                .all(|c| c.verification.kind == VerifyKind::Assumption)
        );
        assert_eq!(gated.assumed.len(), criteria.len());
        // Met once: a resumed run never meets it again.
        assert!(!pending(&store, &run.id).expect("pending"));
    }
}
