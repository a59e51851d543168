//! `pawl accept [<run>] --tests "<why>"`: the user accepts a run's changes to its own tests (the
//! verdict REVIEW: "the checks pass, but the tests were changed"); `--changes "<why>"`: the run's
//! changes outside product source that its checks need to pass (the locked run's question: "the
//! tests pass only with the run's change to `.npmrc`"). Only the user accepts `--changes`: a
//! step cannot run `pawl accept`, and no session pawl spawns records it. The acceptance is
//! recorded with who and why; the run's sealed checks are verified again (reused by tree when nothing
//! changed) and, when nothing else keeps it open, the run ends done and its report is rewritten.

use clap::Args;
use pawl_core::EventKind;
use pawl_core::ExitCode;
use pawl_core::StopReason;
use pawl_core::model::RunStatus;
use pawl_engine::{GateVerifier, Verifier};

use crate::checks;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true).args(["tests", "changes"])))]
pub struct AcceptArgs {
    /// The run (default: the current one).
    #[arg(id = "run_id", value_name = "RUN")]
    pub run: Option<String>,
    /// Accept the run's changes to its tests, saying why (recorded and shown in the report).
    #[arg(long, value_name = "WHY")]
    pub tests: Option<String>,
    /// Accept the run's changes outside product source (configuration, tests, ...) that its
    /// checks need to pass, saying why (the locked run's question; recorded and shown).
    #[arg(long, value_name = "WHY")]
    pub changes: Option<String>,
}

pub fn run(ctx: &mut Ctx, args: &AcceptArgs) -> CliResult<ExitCode> {
    let tests = args.tests.as_deref().map(str::trim);
    let changes = args.changes.as_deref().map(str::trim);
    if tests == Some("") {
        return Err(CliError::Usage(
            "--tests needs a reason: say why the changed tests are right".into(),
        ));
    }
    if changes == Some("") {
        return Err(CliError::Usage(
            "--changes needs a reason: say why the run's other changes are part of the work".into(),
        ));
    }
    let why = [tests, changes]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("; ");
    let mut store = ctx.store()?;
    let run = store.resolve_run(args.run.as_deref().or(ctx.run_flag.as_deref()))?;
    if matches!(run.status, RunStatus::Done | RunStatus::Cancelled) {
        return Err(CliError::Failed(format!(
            "run {} is {}: there is nothing to accept",
            run.id, run.status
        )));
    }
    crate::owner::refuse_while_driven(&store, &run.id, "accepting changed tests")?;
    // Nothing is accepted for a run whose state was modified outside pawl.
    store.check_run(&run.id)?;
    let who = std::env::var("USER").unwrap_or_else(|_| "user".into());
    if let Some(why) = tests {
        store.append_event(
            Some(&run.id),
            EventKind::TestsAccepted,
            serde_json::json!({"who": who, "why": why, "by": "pawl accept"}),
        )?;
    }
    if let Some(why) = changes {
        store.append_event(
            Some(&run.id),
            EventKind::ChangesAccepted,
            serde_json::json!({"who": who, "why": why, "by": "pawl accept"}),
        )?;
    }
    let gates = checks::configured_gates(ctx)?;
    let mut verifier = GateVerifier::new(checks::workspace(ctx), gates);
    let report = verifier.verify(&mut store, &run.id)?;
    store.append_event(
        Some(&run.id),
        EventKind::Verification,
        serde_json::to_value(&report).unwrap_or_default(),
    )?;
    let now_done = report.done
        && matches!(
            run.stop_reason,
            Some(StopReason::TestsChanged | StopReason::Review)
        );
    if now_done {
        store.set_run_status(&run.id, RunStatus::Done, Some(StopReason::Verified))?;
    }
    let r = pawl_engine::report::build(&store, &run.id, &ctx.root)?;
    let path = pawl_engine::report::write(&r, &ctx.state_dir().join("reports"))?;
    let verdict = serde_json::to_value(r.verdict)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let id = run.id.clone();
    ctx.emit(
        &serde_json::json!({"run_id": id, "accepted": why, "done": now_done, "verdict": verdict,
            "report": path.display().to_string()}),
        || {
            format!(
                "Accepted the {} of run {id} ({why}). Verdict {verdict}{} · report: {}",
                match (tests, changes) {
                    (Some(_), Some(_)) => "changed tests and other changes",
                    (Some(_), None) => "changed tests",
                    _ => "changes outside product source",
                },
                if now_done { ": the run is done" } else { "" },
                path.display()
            )
        },
    )?;
    Ok(if now_done || report.done {
        ExitCode::Done
    } else {
        ExitCode::Error
    })
}
