//! `pawl resume [<run>] [--add-iterations N] [--add-time 10m] [--add-usd 5] [--add-tokens N]`:
//! continue a stopped (or crashed) run. Limits only ever go up, only here, and each raise is an
//! event. A headless run is driven again at once; a session run is armed again for the next
//! agent session.
//!
//! The limits are the run's own — sealed into its signed row when it started — plus the user's
//! `--add-*` flags: `pawl.toml` is not read for them, and a limit written into the store by
//! anything but pawl is never used (the run's state fails its check, and the run stops
//! `tampered` instead of resuming). A tampered run is never resumed.

use clap::Args;
use pawl_core::EventKind;
use pawl_core::ExitCode;
use pawl_core::config::Dur;
use pawl_core::model::Driver;
use pawl_core::seal::CheckRole;
use pawl_verify::gate;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::headless;
use crate::runs;
use crate::session_mode;

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The run to resume (default: the current one).
    #[arg(id = "run_id", value_name = "RUN")]
    pub run: Option<String>,
    #[arg(long, value_name = "N")]
    pub add_iterations: Option<u32>,
    #[arg(long, value_name = "DURATION")]
    pub add_time: Option<String>,
    #[arg(long, value_name = "USD", value_parser = crate::limits::dollars)]
    pub add_usd: Option<f64>,
    #[arg(long, value_name = "N")]
    pub add_tokens: Option<u64>,
    #[arg(long)]
    pub force_nested: bool,
    /// Seal the run again with the gates `pawl.toml` has now (and the current environment): the
    /// only way a started run's checks change. Recorded as an event and shown in the report.
    #[arg(long)]
    pub reseal: bool,
}

pub fn run(ctx: &mut Ctx, args: &ResumeArgs) -> CliResult<ExitCode> {
    let eff = ctx.config(&[])?;
    let mut store = ctx.store()?;
    crate::state::require_key(&store, "resume a run")?;
    let id = args.run.as_deref().or(ctx.run_flag.as_deref());
    let run_id = store.resolve_run_id(id)?;
    if let Some(t) = store.tampering(&run_id)? {
        return stop_tampered(ctx, &mut store, &t);
    }
    // Killed between recording its stop and publishing: published now.
    ctx.publish_if_missing(&mut store, &run_id)?;
    let run = store.resolve_open_run(Some(&run_id))?;
    if run.stop_reason == Some(pawl_core::StopReason::Tampered) {
        return Err(CliError::Failed(format!(
            "run {} stopped because its state was modified outside pawl (tampered): it is never resumed. `pawl report {}` says what was modified; start a new run (its work stays on branch {})",
            run.id,
            run.id,
            run.branch.as_deref().unwrap_or("-")
        )));
    }
    if run.driver == Driver::Manual {
        return Err(CliError::Failed(format!(
            "run {} is driven by hand (manual driver): keep using the state CLI; nothing to resume",
            run.id
        )));
    }
    // Nothing is written while another process drives the run (or from its own agent step).
    crate::owner::refuse_while_driven(&store, &run.id, "resuming the run")?;
    let mut settings = run.settings.clone();
    let mut raised = Vec::new();
    if let Some(n) = args.add_iterations {
        settings.limits.max_iterations = settings.limits.max_iterations.saturating_add(n);
        raised.push(format!("--add-iterations {n}"));
    }
    if let Some(t) = &args.add_time {
        let d: Dur = t.parse().map_err(CliError::Usage)?;
        settings.limits.max_time = Dur(settings.limits.max_time.0 + d.0);
        raised.push(format!("--add-time {t}"));
    }
    if let Some(u) = args.add_usd {
        if !(u.is_finite() && u >= 0.0) {
            return Err(CliError::Usage(format!(
                "--add-usd must be a positive amount, got {u}"
            )));
        }
        settings.limits.max_usd += u;
        raised.push(format!("--add-usd {u}"));
    }
    if let Some(n) = args.add_tokens {
        settings.limits.max_tokens = settings.limits.max_tokens.saturating_add(n);
        raised.push(format!("--add-tokens {n}"));
    }
    if args.reseal {
        let before = settings.seal.clone();
        let mut seal = runs::seal(
            ctx,
            &eff.config,
            &runs::Start {
                goal: run.goal.clone(),
                driver: run.driver,
                overrides: Vec::new(),
                scenario: None,
                allow_dirty: false,
                force_nested: false,
                autonomous: false,
                mode: pawl_core::pipeline::ModeArg::Auto,
                interactive: false,
                await_answers: false,
                checks: Vec::new(),
                pass_env: before
                    .as_ref()
                    .map(|s| s.env.keys().cloned().collect())
                    .unwrap_or_default(),
                hidden_checks: Vec::new(),
                plan: None,
            },
        )?;
        // The user's acceptance checks stay (they were proven red on the pre-run code), and
        // the hidden checks the run was given (`--hidden-check`, QA's); the user's list of
        // hidden checks is taken as it is now.
        if let Some(b) = &before {
            let kept: Vec<_> = b
                .checks
                .iter()
                .filter(|c| kept_on_reseal(&c.name, c.role))
                .filter(|c| !seal.checks.iter().any(|s| s.name == c.name))
                .cloned()
                .collect();
            seal.checks.extend(kept);
        }
        store.append_event(
            Some(&run.id),
            EventKind::Sealed,
            serde_json::json!({"why": "pawl resume --reseal", "before": before.map(|s| s.checks), "after": seal.checks}),
        )?;
        settings.seal = Some(seal);
        raised.push("--reseal".into());
    }
    if !raised.is_empty() {
        store.update_settings(&run.id, &settings, &raised.join(" "))?;
    }
    let run = store.run(&run.id)?;
    if run.driver == Driver::Session {
        // A session run is resumed by arming it again: the next session started here takes it.
        return session_mode::rearm(ctx, &mut store, &run);
    }
    let gates = gate::gates_from_config(&eff.config.gates);
    headless::drive(ctx, &mut store, &run, gates, args.force_nested)
}

/// The run's state was modified outside pawl: it stops `tampered` (an event says what), its
/// report is written, and nothing is resumed.
fn stop_tampered(
    ctx: &mut Ctx,
    store: &mut pawl_store::Store,
    t: &pawl_store::Tampering,
) -> CliResult<ExitCode> {
    store.mark_tampered(t)?;
    let report = pawl_engine::report::build(store, &t.run_id, &ctx.root)?;
    let path = pawl_engine::report::write(&report, &ctx.state_dir().join("reports"))?;
    ctx.publish(store, &report);
    let reason = pawl_core::StopReason::Tampered;
    ctx.emit(
        &serde_json::json!({"run_id": t.run_id, "stop_reason": reason, "exit_code": reason.exit_code().code(),
            "tampering": report.tampering, "report": path.display().to_string()}),
        || {
            format!(
                "{t}\nRun {} stopped: tampered (exit code {}); it is never resumed. Report: {}",
                t.run_id,
                reason.exit_code().code(),
                path.display()
            )
        },
    )?;
    Ok(reason.exit_code())
}

/// The checks a reseal keeps from the old seal: acceptance checks, `--hidden-check`s
/// (`hidden-<n>`) and QA's (`qa-<n>`) — not the gates nor the user's list of hidden checks
/// (`hidden-<name>`), which are taken again as they are now.
fn kept_on_reseal(name: &str, role: CheckRole) -> bool {
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    match role {
        CheckRole::Gate => false,
        CheckRole::Acceptance => true,
        CheckRole::Hidden => numbered("hidden-") || numbered("qa-"),
    }
}
