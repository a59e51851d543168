//! `pawl run "<goal>"`: start a run. The headless driver (default) spawns the agent step by step
//! and verifies after each; the manual driver creates a run driven by hand through the state CLI.

use std::path::PathBuf;

use pawl_core::ExitCode;
use pawl_core::config::AgentKind;
use pawl_core::model::Driver;
use pawl_core::record::RunSettings;
use pawl_store::NewRun;
use pawl_verify::gate;

use crate::cli::RunArgs;
use crate::commands::init::ensure_state;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::headless;
use crate::rails;

pub fn run(ctx: &mut Ctx, args: &RunArgs) -> CliResult<ExitCode> {
    let goal = args.goal.trim();
    if goal.is_empty() {
        return Err(CliError::Usage(
            "the goal is empty: say what the run must achieve".into(),
        ));
    }
    let mut overrides = args.limits.overrides();
    if let Some(kind) = args.agent {
        overrides.push(("agent.kind", kind.to_string(), "--agent"));
    }
    // Conflicting flags are a usage error, before anything else.
    pawl_core::pipeline::check_flags(&pawl_core::pipeline::RunFlags {
        mode: args.mode,
        driver: args.driver,
        interactive: args.interactive,
        json: ctx.json,
    })
    .map_err(|e| CliError::Usage(e.to_string()))?;
    // Configuration first: a bad pawl.toml or flag must stop us before anything is written.
    let eff = ctx.config(&overrides)?;
    match args.driver {
        Driver::Manual => manual(ctx, goal, &eff.config),
        Driver::Headless => headless_run(ctx, args, goal, &eff.config),
        Driver::Session => super::session::arm(ctx, args, goal, &eff.config),
    }
}

/// What a new run copies from the configuration and keeps for its whole life.
pub fn settings(config: &pawl_core::config::Config) -> RunSettings {
    RunSettings {
        limits: config.limits.clone(),
        breakers: config.breakers.clone(),
        stall: config.stall.clone(),
        agent: Some(config.agent.clone()),
        replay_scenario: None,
        git: config.git.clone(),
        guard: Some(config.guard.clone()),
        seal: None,
    }
}

/// Where a run's guard policy is kept beside the store (`.pawl/guard/<run>.json`), so that the
/// PreToolUse hook reads it without opening the database. The store's copy
/// (`RunSettings.guard`) is the reference; `.pawl/**` is a protected path for the agent.
pub fn guard_snapshot_path(state_dir: &std::path::Path, run_id: &str) -> std::path::PathBuf {
    state_dir.join("guard").join(format!("{run_id}.json"))
}

/// Writes the run's guard policy next to the store (see [`guard_snapshot_path`]).
pub fn write_guard_snapshot(ctx: &Ctx, run: &pawl_core::record::Run) -> CliResult {
    let Some(guard) = &run.settings.guard else {
        return Ok(());
    };
    let path = guard_snapshot_path(&ctx.state_dir(), &run.id);
    let write = || -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text = serde_json::to_string(guard).map_err(std::io::Error::other)?;
        // Written whole, then renamed: the hook never reads half a file.
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(|e| CliError::Failed(format!("cannot write {}: {e}", path.display())))
}

fn manual(ctx: &mut Ctx, goal: &str, config: &pawl_core::config::Config) -> CliResult<ExitCode> {
    ensure_state(ctx, &mut Vec::new(), &mut Vec::new())?;
    let mut store = ctx.store()?;
    let run = store.create_run(&NewRun {
        goal: goal.to_string(),
        driver: Driver::Manual,
        mode: None,
        settings: settings(config),
        branch: None,
        pre_run_commit: None,
    })?;
    write_guard_snapshot(ctx, &run)?;
    ctx.emit(&run, || {
        format!(
            "Run {} started ({} driver): {}\n\
             Drive it with the state CLI: `pawl criterion add`, `pawl story add`, `pawl story start`,\n\
             `pawl tdd`, `pawl failure add`, `pawl status`, `pawl resume-context`.",
            run.id, run.driver, run.goal
        )
    })?;
    Ok(ExitCode::Done)
}

fn headless_run(
    ctx: &mut Ctx,
    args: &RunArgs,
    goal: &str,
    config: &pawl_core::config::Config,
) -> CliResult<ExitCode> {
    if !ctx.state_dir().is_dir() {
        return Err(CliError::Failed(format!(
            "no pawl state in {}: run `pawl init` first (and commit pawl.toml)",
            ctx.root.display()
        )));
    }
    let gates = gate::gates_from_config(&config.gates);
    if gates.is_empty() {
        return Err(CliError::Failed(
            "nothing to verify: configure [gates] in pawl.toml (`pawl init` detects them) — pawl decides \"done\" by running them"
                .into(),
        ));
    }
    let mut settings = settings(config);
    if config.agent.kind == AgentKind::Replay {
        let Some(path) = &args.scenario else {
            return Err(CliError::Usage(
                "--agent replay needs --scenario <file.jsonl>".into(),
            ));
        };
        let abs = absolute(path);
        if !abs.is_file() {
            return Err(CliError::Failed(format!(
                "replay scenario {} does not exist",
                abs.display()
            )));
        }
        settings.replay_scenario = Some(abs.display().to_string());
    }
    // Git rails: never start on top of uncommitted work unless told to (checked before anything
    // is written), and never on a protected branch (after the run exists: `rails::start`).
    let repo = rails::open(ctx)?;
    rails::check_clean(&repo, args.allow_dirty)?;
    // The mode: the flag, or for `auto` the spec analysis' choice, said out loud.
    let facts = super::analyze::project_facts(ctx)?;
    let analysis = pawl_core::spec::analyze(goal, &facts);
    let choice = pawl_core::pipeline::resolve_mode(args.mode, &analysis.mode);
    let auto = args.mode == pawl_core::pipeline::ModeArg::Auto;
    if ctx.json {
        ctx.json_line(
            &serde_json::json!({"kind": "mode", "mode": choice.mode.as_str(),
            "reason": choice.reason, "auto": auto}),
        )?;
    } else {
        ctx.say(format!(
            "[pawl] mode {}{}: {}",
            choice.mode.as_str(),
            if auto { " (auto)" } else { "" },
            choice.reason
        ))?;
    }
    let mut store = ctx.store()?;
    let run = store.create_run(&NewRun {
        goal: goal.to_string(),
        driver: Driver::Headless,
        mode: Some(choice.mode.as_str().to_string()),
        settings,
        branch: None,
        pre_run_commit: None,
    })?;
    write_guard_snapshot(ctx, &run)?;
    rails::start(ctx, &repo, &mut store, &run, config, &analysis.target_files)?;
    let run = store.run(&run.id)?;
    headless::drive_with_answers(
        ctx,
        &mut store,
        &run,
        gates,
        args.force_nested,
        args.interactive,
    )
}

/// A path given on the command line, made absolute.
pub fn absolute(p: &std::path::Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    }
}
