//! Starting a run, whatever asks for it (`pawl run`, `pawl demo`): the validated request
//! ([`Start`]), what a new run copies from the configuration, the guard snapshot beside the store,
//! and the three drivers' starts — manual (a run driven by hand through the state CLI), headless
//! (the loop spawns the agent step by step and verifies after each), session (armed for an
//! interactive agent session: `crate::session_mode`).
//!
//! Not here: parsing `pawl run`'s flags (`commands/run.rs` turns `RunArgs` into a [`Start`]), the
//! loop itself (`crate::headless` and pawl-engine), the git rails (`crate::rails`).

use std::path::PathBuf;

use pawl_core::ExitCode;
use pawl_core::config::AgentKind;
use pawl_core::model::Driver;
use pawl_core::pipeline::ModeArg;
use pawl_core::seal::Seal;
use pawl_engine::baseline::Baseline;
use pawl_engine::start;
use pawl_store::NewRun;
use pawl_verify::gate;

use crate::checks;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::headless;
use crate::project;
use crate::rails;
use crate::session_mode;
use crate::state::ensure_state;

/// A checked request to start a run: the goal is not empty and the flags do not conflict.
#[derive(Debug, Clone, PartialEq)]
pub struct Start {
    /// What the run must achieve, trimmed.
    pub goal: String,
    pub driver: Driver,
    /// Configuration overrides from the command line: (key, value, flag name).
    pub overrides: Vec<(&'static str, String, &'static str)>,
    /// The JSONL scenario for the replay agent.
    pub scenario: Option<PathBuf>,
    pub allow_dirty: bool,
    pub force_nested: bool,
    /// Session driver: also let the session work without permission prompts.
    pub autonomous: bool,
    pub mode: ModeArg,
    /// Ask the interview's questions on the terminal.
    pub interactive: bool,
    /// Acceptance checks (`--check "<cmd>"`): each must fail on the pre-run code and pass at the
    /// end.
    pub checks: Vec<String>,
    /// More environment variables the sealed checks may see (`--pass-env NAME`).
    pub pass_env: Vec<String>,
    /// Checks the agent is never shown (`--hidden-check "<cmd>"`): run in the clean room, their
    /// command, output and failing tests kept out of prompts and the repository.
    pub hidden_checks: Vec<String>,
    /// A plan file (`--plan`): its stories run in worktrees, merged by the merge queue.
    pub plan: Option<PathBuf>,
}

/// Starts the run `req` asks for. The configuration is read first: a bad pawl.toml or flag must
/// stop us before anything is written.
pub fn start(ctx: &mut Ctx, req: &Start) -> CliResult<ExitCode> {
    let eff = ctx.config(&req.overrides)?;
    // A key first: a run whose state an agent could rewrite unseen is not started.
    if crate::state::evidence_key().is_none() {
        return Err(crate::state::no_key("start a run"));
    }
    // The hooks of an agent session read the clone's own store (they must answer in
    // milliseconds, and find the run from the payload): session mode stays on it.
    if req.driver == Driver::Session && !eff.config.store.url.is_empty() {
        return Err(CliError::Usage(
            "--driver session keeps its state in the clone's own store: unset [store] url / PAWL_STORE_URL for it (a shared store drives headless runs, docs/fleet.md)".into(),
        ));
    }
    match req.driver {
        Driver::Manual => manual(ctx, &req.goal, &eff.config),
        Driver::Headless => headless_run(ctx, req, &eff.config),
        Driver::Session => session_mode::arm(ctx, req, &eff.config),
    }
}

/// The seal of a new run (`pawl_engine::start::seal`): the gates of `pawl.toml`, the request's
/// acceptance and hidden checks and the user's hidden checks of this repository (`pawl hidden
/// add`, read here from the user's pawl state), with the environment pawl was started with.
/// Hidden checks' commands go to the vault under the user's key (`crate::hidden`).
/// `[gates.hidden]` in `pawl.toml` (which the agent reads) is refused.
pub fn seal(ctx: &Ctx, config: &pawl_core::config::Config, req: &Start) -> CliResult<Seal> {
    if !config.gates.hidden.is_empty() {
        let names: Vec<&String> = config.gates.hidden.keys().collect();
        return Err(crate::hidden::in_repository_refusal(&names));
    }
    let user_hidden: Vec<(String, String)> =
        crate::hidden::for_repo(&ctx.root)?.into_iter().collect();
    let hidden_any =
        !req.hidden_checks.is_empty() || user_hidden.iter().any(|(_, cmd)| !cmd.trim().is_empty());
    let vault = if hidden_any {
        crate::hidden::vault()
    } else {
        None
    };
    start::seal::seal(start::SealInput {
        root: &ctx.root,
        goal: &req.goal,
        gates: &config.gates,
        acceptance: &req.checks,
        user_hidden,
        hidden: &req.hidden_checks,
        env: std::env::vars().collect(),
        pass_env: &req.pass_env,
        vault: vault.as_ref(),
        network: config.room.network,
        runs: config.verify.runs,
    })
    .map_err(|e| match e {
        start::StartError::NoVault => crate::state::no_key("seal hidden checks"),
        e => e.into(),
    })
}

/// The preflight and the baseline (`pawl_engine::baseline::take`): the sealed checks on the
/// tree as it is before the agent's first step. A check that cannot start refuses the run
/// (nothing is written); what already fails is said at start, as what the run must turn green.
pub fn baseline(ctx: &mut Ctx, seal: &Seal, announce: bool) -> CliResult<Baseline> {
    if announce && !ctx.json {
        ctx.say(format!(
            "[pawl] baseline: running the {} sealed check(s) on the pre-run tree",
            seal.checks.len()
        ))?;
    }
    let b = pawl_engine::baseline::take(&checks::workspace(ctx), seal)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    let failing = start::failing_before(&b);
    if !announce {
    } else if ctx.json {
        ctx.json_line(&serde_json::json!({"kind": "baseline", "tree": b.tree,
            "checks": b.checks.iter().map(|c| serde_json::json!({"name": c.name, "passed": c.passed, "tests": c.tests.len()})).collect::<Vec<_>>()}))?;
    } else if failing.is_empty() {
        ctx.say(
            "[pawl] baseline: every check already passes — \"done\" needs a test that fails without the change (SHIP needs red to green)",
        )?;
    } else {
        ctx.say(format!(
            "[pawl] baseline: failing before the run: {}",
            failing.join("; ")
        ))?;
    }
    Ok(b)
}

/// Where a run's guard policy is kept beside the store (`.pawl/guard/<run>.json`), so that the
/// PreToolUse hook reads it without opening the database. The store's copy
/// (`RunSettings.guard`) is the reference; `.pawl/**` is a protected path for the agent, and the
/// file carries a code under pawl's key: a policy loosened in it is never used
/// ([`read_guard_snapshot`] falls back to the store's signed copy).
pub fn guard_snapshot_path(state_dir: &std::path::Path, run_id: &str) -> std::path::PathBuf {
    state_dir.join("guard").join(format!("{run_id}.json"))
}

/// The run's guard policy as the PreToolUse hook reads it (`.pawl/guard/<run>.json`): the
/// `[guard]` settings the run started with, and the pawl binaries the hooks installed in the
/// repository run (resolved when the run starts; the guard protects them, and the binary the
/// hook itself runs, from being changed, copied or run under another name).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct GuardSnapshot {
    #[serde(flatten)]
    pub guard: pawl_core::config::GuardConfig,
    #[serde(default)]
    pub pawl_binaries: Vec<std::path::PathBuf>,
    /// The run's guard context beyond `[guard]`, fixed when it started (false for runs stored
    /// before: the cautious rules).
    #[serde(default)]
    pub context: crate::guard_host::SealedContext,
}

/// Writes the run's guard policy next to the store (see [`guard_snapshot_path`]).
pub fn write_guard_snapshot(ctx: &Ctx, run: &pawl_core::record::Run) -> CliResult {
    let Some(guard) = &run.settings.guard else {
        return Ok(());
    };
    let snapshot = GuardSnapshot {
        guard: guard.clone(),
        pawl_binaries: crate::hook_setup::installed_binaries(&ctx.root),
        context: crate::guard_host::SealedContext::of(&run.settings),
    };
    let path = guard_snapshot_path(&ctx.state_dir(), &run.id);
    let write = || -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // The snapshot carries a code under pawl's key: a policy loosened in the file (the agent
        // can reach `.pawl/` in session mode) is not used.
        let snapshot_json = serde_json::to_string(&snapshot).map_err(std::io::Error::other)?;
        let mac = crate::state::evidence_key().map(|key| {
            pawl_store::mac::seal_text(&key, "guard", &format!("{}\n{snapshot_json}", run.id))
        });
        let text = serde_json::json!({"snapshot_json": snapshot_json, "mac": mac}).to_string();
        // Written whole, then renamed: the hook never reads half a file.
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(CliError::io(format!("cannot write {}", path.display())))
}

/// The run's guard snapshot from the file beside the store, when its code verifies under pawl's
/// key (`None` otherwise: the caller reads the store's signed copy).
pub fn read_guard_snapshot(state_dir: &std::path::Path, run_id: &str) -> Option<GuardSnapshot> {
    /// The file: the snapshot's JSON text and its code (`null` when pawl had no key).
    #[derive(serde::Deserialize)]
    struct Sealed {
        snapshot_json: String,
        #[serde(default)]
        mac: Option<String>,
    }
    let bytes = std::fs::read(guard_snapshot_path(state_dir, run_id)).ok()?;
    let Sealed { snapshot_json, mac } = serde_json::from_slice(&bytes).ok()?;
    // Inside a sandboxed step pawl's key is out of reach (hidden, like all of pawl's state), and
    // none is needed: `.pawl/` is a read-only mount there, written by pawl before the step and
    // never writable by the agent of a headless run (`sandbox::inside_step` cannot be faked).
    if let Some(root) = state_dir.parent()
        && crate::sandbox::inside_step(root)
    {
        return serde_json::from_str(&snapshot_json).ok();
    }
    let mac = mac?;
    let key = crate::state::evidence_key()?;
    let want = pawl_store::mac::seal_text(&key, "guard", &format!("{run_id}\n{snapshot_json}"));
    (want == mac)
        .then(|| serde_json::from_str(&snapshot_json).ok())
        .flatten()
}

fn manual(ctx: &mut Ctx, goal: &str, config: &pawl_core::config::Config) -> CliResult<ExitCode> {
    ensure_state(ctx, &mut Vec::new(), &mut Vec::new())?;
    let mut store = ctx.store()?;
    let run = store.create_run(&NewRun {
        goal: goal.to_string(),
        driver: Driver::Manual,
        mode: None,
        settings: start::settings(config),
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
    req: &Start,
    config: &pawl_core::config::Config,
) -> CliResult<ExitCode> {
    let goal = req.goal.as_str();
    if !config.store.url.is_empty() {
        // A shared store: a fleet job's fresh clone needs no `pawl init`.
        crate::state::make_state_dir(ctx, &mut Vec::new(), &mut Vec::new())?;
    }
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
    // `[sandbox] required = true` on a machine that cannot sandbox: refused before anything is
    // written.
    crate::sandbox::prepare(&ctx.root, &config.sandbox)?;
    let mut settings = start::settings(config);
    if config.agent.kind == AgentKind::Replay {
        let Some(path) = &req.scenario else {
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
    start::rails::check_clean(&repo, req.allow_dirty)?;
    start::rails::preflight(&repo, config)?;
    crate::headless::preflight_agent(ctx, &settings, req.force_nested)?;
    // A plan file is read and checked before anything is written.
    let plan = match &req.plan {
        Some(path) => Some(crate::parallel::read_plan(&absolute(path))?),
        None => None,
    };
    // The mode: the flag, or for `auto` the spec analysis' choice, said out loud.
    let facts = project::spec_facts(ctx)?;
    let analysis = pawl_core::spec::analyze(goal, &facts);
    // `--workers` with a mode that has no stories is refused before the agent's fitness for the
    // mode is judged (the flag is the first thing to fix), and again once auto has chosen.
    workers_have_stories(
        req,
        plan.is_some(),
        pawl_core::pipeline::resolve_mode(req.mode, &analysis.mode).mode,
    )?;
    let mut choice = crate::headless::mode_for_agent(req.mode, &analysis.mode, &settings)?;
    workers_have_stories(req, plan.is_some(), choice.mode)?;
    // Fixed when the run starts: a plan's stories, and the planner's (work, qa: more than one
    // worker runs them in worktrees), run with these workers to the end, resumes included.
    if plan.is_some()
        || matches!(
            choice.mode,
            pawl_core::spec::Mode::Work | pawl_core::spec::Mode::Qa
        )
    {
        settings.workers = Some(config.parallel.workers.max(1));
    }
    if let Some(stories) = &plan {
        choice = pawl_core::spec::ModeChoice {
            mode: choice.mode,
            reason: format!(
                "the plan {} gives {} stories, run in worktrees by up to {} worker(s) and merged one at a time",
                req.plan
                    .as_deref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                stories.len(),
                config.parallel.workers.max(1)
            ),
        };
    }
    let mode_name = if plan.is_some() {
        PARALLEL_MODE
    } else {
        choice.mode.as_str()
    };
    let auto = req.mode == ModeArg::Auto;
    if ctx.json {
        ctx.json_line(&serde_json::json!({"kind": "mode", "mode": mode_name,
            "reason": choice.reason, "auto": auto}))?;
    } else {
        ctx.say(format!(
            "[pawl] mode {}{}: {}",
            mode_name,
            if auto && plan.is_none() {
                " (auto)"
            } else {
                ""
            },
            choice.reason
        ))?;
    }
    let seal = seal(ctx, config, req)?;
    let baseline = baseline(ctx, &seal, true)?;
    settings.seal = Some(seal.clone());
    let mut store = ctx.store()?;
    let run = store.create_run(&NewRun {
        goal: goal.to_string(),
        driver: Driver::Headless,
        mode: Some(mode_name.to_string()),
        settings,
        branch: None,
        pre_run_commit: None,
    })?;
    // A run that cannot be put on its rails is not left active behind: it is cancelled, with
    // the error, and the next `pawl run` may start.
    let started = write_guard_snapshot(ctx, &run)
        .and_then(|()| Ok(start::record_seal(&mut store, &run.id, &seal, &baseline)?))
        .and_then(|()| {
            rails::start(ctx, &repo, &mut store, &run, config, &analysis.target_files).map(|_| ())
        })
        .and_then(|()| match &plan {
            Some(stories) => crate::parallel::record_plan(&mut store, &ctx.root, &run.id, stories),
            None => Ok(()),
        });
    if let Err(err) = started {
        let _ = store.cancel_run(&run.id);
        return Err(err);
    }
    let run = store.run(&run.id)?;
    headless::drive_with_answers(
        ctx,
        &mut store,
        &run,
        gates,
        req.force_nested,
        req.interactive,
    )
}

/// The mode a run started from a plan file is stored with.
pub const PARALLEL_MODE: &str = "parallel";

/// A path given on the command line, made absolute.
pub fn absolute(p: &std::path::Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    }
}

/// `--workers N` (N > 1) runs stories at once: refused (usage, before anything is written) for
/// a run that has none to run — a simple or ralph run, by `--mode` or by the spec analysis'
/// choice — rather than ignored. `[parallel] workers` in pawl.toml is a default for the runs
/// that have stories, and stays quiet.
fn workers_have_stories(req: &Start, planned: bool, mode: pawl_core::spec::Mode) -> CliResult<()> {
    let asked = req
        .overrides
        .iter()
        .rev()
        .find(|(key, _, flag)| *key == "parallel.workers" && *flag == "--workers")
        .and_then(|(_, n, _)| n.parse::<u32>().ok());
    let Some(n) = asked.filter(|n| *n > 1) else {
        return Ok(());
    };
    if planned
        || matches!(
            mode,
            pawl_core::spec::Mode::Work | pawl_core::spec::Mode::Qa
        )
    {
        return Ok(());
    }
    let by = if req.mode == ModeArg::Auto {
        format!(
            "the spec analysis chose the mode {} for this goal",
            mode.as_str()
        )
    } else {
        format!("--mode {}", mode.as_str())
    };
    Err(CliError::Usage(format!(
        "--workers {n} runs stories at once, each in its worktree, but {by}, which has no stories to run side by side: give a plan (--plan FILE), or --mode work or --mode qa (their planner makes the stories), or leave out --workers"
    )))
}
