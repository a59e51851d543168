//! What the loop does about a failed verification, by the class of its first failure
//! (`pawl_core::failure::loop_action` decides; this module carries it out): back off and verify
//! again for infra and timeouts (no agent step, no iteration), hand an external failure to the
//! user as a blocker with what to do and how pawl will check it, send a spec conflict back to
//! planning, and ask for a different approach when the same failure comes back.
//!
//! Also the run's "must not" rules after a step (`pawl_core::must_not`): the tree and the step's
//! commands are checked, whatever the agent (a command agent has no guard).
//!
//! What this module is not: the order of the turn's decisions (`pawl_core::turn`), the checks
//! themselves ([`crate::verify`]).

use pawl_core::EventKind;
use pawl_core::failure::{self, FailureCategory, LoopAction, LoopFailure};
use pawl_core::judge::IterationFacts;
use pawl_core::model::Severity;
use pawl_core::must_not::{self, Violation};
use pawl_core::record::{Blocker, RunSettings};
use pawl_store::{Store, StoreError};
use serde_json::json;

use crate::EngineError;
use crate::attempt::{Backoff, Heartbeat};
use crate::control::Control;
use crate::loop_config::{LoopConfig, LoopEvent};
use crate::verify::{CheckSummary, Verifier, VerifyReport};

/// The transient backoff (infra, timeout): pawl-core's base and ceiling, the engine's one
/// exponential formula ([`Backoff::delay`]).
pub const TRANSIENT: Backoff = Backoff {
    base: std::time::Duration::from_secs(failure::BACKOFF_BASE_SECONDS),
    max: std::time::Duration::from_secs(failure::BACKOFF_MAX_SECONDS),
};

/// The first failing check that has a class, and the class.
pub fn first_classified(r: &VerifyReport) -> Option<(&CheckSummary, FailureCategory)> {
    r.failing.iter().find_map(|c| c.category.map(|k| (c, k)))
}

/// How many iterations at the end of `history` failed with the signature of the last one.
pub fn same_in_a_row(history: &[IterationFacts]) -> u32 {
    let Some(sig) = history.last().and_then(|f| f.failure_signature.as_ref()) else {
        return 0;
    };
    history
        .iter()
        .rev()
        .take_while(|f| f.failure_signature.as_ref() == Some(sig))
        .count() as u32
}

/// The action for the report's first failure (`None` when nothing failed with a class).
pub fn action(
    r: &VerifyReport,
    same_in_a_row: u32,
    backoffs: u32,
    plans: bool,
) -> Option<LoopAction> {
    let (_, category) = first_classified(r)?;
    Some(failure::loop_action(&LoopFailure {
        category,
        same_in_a_row: same_in_a_row.max(1),
        backoffs,
        plans,
    }))
}

/// Backs off and verifies again while the first failure is transient (infra, timeout), up to
/// pawl-core's limit: no agent step runs and no iteration is spent. Returns the last report.
#[allow(clippy::too_many_arguments)]
pub(crate) fn back_off(
    store: &mut Store,
    run_id: &str,
    mut report: VerifyReport,
    verifier: &mut dyn Verifier,
    cfg: &LoopConfig,
    control: &Control,
    heartbeat: &mut Heartbeat,
    observer: &mut dyn FnMut(&LoopEvent),
    plans: bool,
) -> Result<VerifyReport, EngineError> {
    let mut backoffs = 0u32;
    while action(&report, 1, backoffs, plans) == Some(LoopAction::BackOff) {
        let Some((check, category)) = first_classified(&report) else {
            break;
        };
        let delay = TRANSIENT.delay(backoffs);
        let scaled = delay.mul_f64(cfg.rate_limit_scale.max(0.0));
        store.append_event(
            Some(run_id),
            EventKind::FailureAction,
            json!({"action": LoopAction::BackOff, "category": category, "check": check.name,
                   "retry": backoffs + 1, "of": failure::TRANSIENT_RETRY_LIMIT,
                   "delay_ms": delay.as_millis() as u64}),
        )?;
        observer(&LoopEvent::Waiting {
            seconds: delay.as_secs(),
            why: format!(
                "{} failed with a {category} failure: backing off, then pawl verifies again ({}/{}, no agent step)",
                check.name,
                backoffs + 1,
                failure::TRANSIENT_RETRY_LIMIT
            ),
        });
        if !heartbeat.sleep(store, run_id, scaled, control) {
            break;
        }
        backoffs += 1;
        let again = verifier.verify_again(store, run_id)?;
        store.append_event(
            Some(run_id),
            EventKind::Verification,
            serde_json::to_value(&again).unwrap_or(json!(null)),
        )?;
        // No agent step ran: a working tree that changed meanwhile was written by something
        // outside pawl (a process the user or the agent left running outside the step). A tree
        // no step wrote is never verified on its own: the re-check does not count, the failure
        // goes back to the loop, and the agent's next step is verified with whatever the tree
        // holds then (its diff shows the change).
        if again.tree_hash != report.tree_hash {
            store.append_event(
                Some(run_id),
                EventKind::Note,
                json!({"why": "the working tree changed while no agent step ran: the re-check after the backoff does not count",
                       "was": report.tree_hash, "is": again.tree_hash}),
            )?;
            break;
        }
        report = again;
    }
    Ok(report)
}

/// Hands the report's first failure to the user: a blocker awaiting them, with what to do and
/// the command pawl (and `pawl check-user-fix`) will check it with — the failing check's own
/// command from the run's seal (none for a hidden check, whose command the agent never sees).
pub(crate) fn hand_to_user(
    store: &mut Store,
    run_id: &str,
    settings: &RunSettings,
    report: &VerifyReport,
    action: LoopAction,
) -> Result<Option<Blocker>, StoreError> {
    let Some((check, category)) = first_classified(report) else {
        return Ok(None);
    };
    let message = if check.hidden {
        "(a hidden check: pawl does not show its output)".to_string()
    } else {
        check
            .first_failure
            .clone()
            .unwrap_or_else(|| check.end.clone())
    };
    let command = if check.hidden {
        None
    } else {
        settings.seal.as_ref().and_then(|s| {
            s.checks
                .iter()
                .find(|c| c.name == check.name)
                .map(|c| c.command.clone())
        })
    };
    let text = format!("{} fails with a {category} failure", check.name);
    let b = store.add_blocker(run_id, &text, Severity::High)?;
    let mut instructions = failure::user_instructions(category, &check.name, &message);
    match &command {
        Some(c) => instructions.push_str(&format!(
            ". pawl will check it by running `{c}` (`pawl check-user-fix`), then `pawl user-fixed` and `pawl resume` continue the run"
        )),
        None => instructions.push_str(
            ". pawl will check it by verifying again when the run resumes (`pawl user-fixed`, then `pawl resume`)",
        ),
    }
    store.append_event(
        Some(run_id),
        EventKind::FailureAction,
        json!({"action": action, "category": category, "check": check.name, "blocker": b.id}),
    )?;
    Ok(Some(store.await_user(
        run_id,
        &b.id,
        &instructions,
        command.as_deref(),
    )?))
}

/// How the approach that failed is named in the next prompt: what the agent said it did and
/// the files it edited, and the failure it keeps producing.
pub fn failed_approach(facts: &IterationFacts, agent_text: &str, report: &VerifyReport) -> String {
    let said = agent_text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(200).collect::<String>());
    let files: Vec<&str> = facts.edits.keys().map(String::as_str).take(8).collect();
    let failure = first_classified(report)
        .filter(|(c, _)| !c.hidden)
        .map(|(c, _)| {
            c.first_failure
                .as_deref()
                .and_then(|m| m.lines().map(str::trim).find(|l| !l.is_empty()))
                .map(|m| format!("{}: {m}", c.name))
                .unwrap_or_else(|| format!("{} ({})", c.name, c.end))
        })
        .unwrap_or_else(|| "a hidden check".into());
    let mut out = String::new();
    if let Some(s) = said {
        out.push_str(&format!("\"{s}\""));
    }
    if !files.is_empty() {
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(&format!("editing {}", files.join(", ")));
    }
    if out.is_empty() {
        out.push_str("the last change");
    }
    format!("{out} — still failing with {failure}")
}

/// The "must not" rules a step broke: the paths changed since the run's pre-run commit and the
/// commands of the step, against the run's rules. Rules that do not parse were refused when the
/// run started; here they are skipped.
pub fn must_not_violations(
    settings: &RunSettings,
    changed: &[String],
    commands: &[String],
) -> Vec<Violation> {
    let rules: Vec<must_not::Rule> = settings
        .must_not
        .iter()
        .filter_map(|p| must_not::Rule::parse(p).ok())
        .collect();
    must_not::violations(&rules, changed, commands)
}

/// Records the violations (one event) and tells the observer; the turn stops the run.
pub(crate) fn record_violations(
    store: &mut Store,
    run_id: &str,
    n: u32,
    v: &[Violation],
) -> Result<(), StoreError> {
    store.append_event(
        Some(run_id),
        EventKind::MustNotViolated,
        json!({"iteration": n, "violations": v}),
    )?;
    let text: Vec<String> = v
        .iter()
        .map(|x| format!("`{}` broken by {}", x.pattern, x.what))
        .collect();
    store.add_note(
        run_id,
        &format!("must not: {} (iteration {n})", text.join("; ")),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(sig: Option<&str>) -> IterationFacts {
        IterationFacts {
            failure_signature: sig.map(str::to_string),
            ..IterationFacts::default()
        }
    }

    #[test]
    fn same_failure_in_a_row_counts_from_the_end() {
        assert_eq!(same_in_a_row(&[]), 0);
        assert_eq!(same_in_a_row(&[facts(None)]), 0);
        assert_eq!(same_in_a_row(&[facts(Some("a"))]), 1);
        assert_eq!(
            same_in_a_row(&[facts(Some("a")), facts(Some("b")), facts(Some("b"))]),
            2
        );
        assert_eq!(
            same_in_a_row(&[facts(Some("b")), facts(None), facts(Some("b"))]),
            1
        );
    }
}
