//! `pawl resume [<run>] [--add-iterations N] [--add-time 10m] [--add-usd 5] [--add-tokens N]`:
//! continue a stopped (or crashed) run. Limits only ever go up, only here, and each raise is an
//! event. A headless run is driven again at once; a session run is armed again for the next
//! agent session.

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
    #[arg(long, value_name = "USD", value_parser = crate::cli::dollars)]
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
    let id = args.run.as_deref().or(ctx.run_flag.as_deref());
    let run = store.resolve_open_run(id)?;
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
                checks: Vec::new(),
                pass_env: before
                    .as_ref()
                    .map(|s| s.env.keys().cloned().collect())
                    .unwrap_or_default(),
                hidden_checks: Vec::new(),
            },
        );
        // The user's acceptance checks stay: they were proven red on the pre-run code.
        if let Some(b) = &before {
            seal.checks.extend(
                b.checks
                    .iter()
                    .filter(|c| c.role != CheckRole::Gate)
                    .cloned(),
            );
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
