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
use pawl_core::model::Driver;
use pawl_core::pipeline::ModeArg;
use pawl_core::seal::Seal;
use pawl_engine::start;

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
    /// Ask the clarifying questions through the store (`--await-answers`): any front end
    /// answers them.
    pub await_answers: bool,
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

/// Starts the run `req` asks for (`pawl_engine::start::start`, with this CLI as its
/// [`start::Host`]), then drives a headless run or says what was started. The configuration is
/// read first: a bad pawl.toml or flag must stop us before anything is written.
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
    let request = start::StartRequest {
        root: ctx.root.clone(),
        goal: req.goal.clone(),
        driver: req.driver,
        workers_flag: workers_flag(req),
        mode: req.mode,
        scenario: req.scenario.as_deref().map(absolute),
        allow_dirty: req.allow_dirty,
        plan: req.plan.clone(),
        current_session: session_mode::current_session(),
        owner: Some(pawl_engine::Owner {
            pid: std::process::id(),
            host: crate::owner::hostname(),
            is_alive: crate::owner::holder_alive,
        }),
        arming_ttl_ms: session_mode::arming_ttl_ms(),
        config: eff.config,
    };
    let store_elsewhere = !request.config.store.url.is_empty();
    let mut host = Host {
        ctx,
        req,
        store_elsewhere,
    };
    match start::start(request, &mut host)? {
        start::Started::Manual { run } => {
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
        start::Started::Headless {
            run,
            mut store,
            gates,
        } => headless::drive_with_answers(
            ctx,
            &mut store,
            &run,
            gates,
            req.force_nested,
            if req.await_answers {
                headless::Answers::Store
            } else if req.interactive {
                headless::Answers::Terminal
            } else {
                headless::Answers::Unattended
            },
        ),
        start::Started::Session(armed) => session_mode::say_armed(ctx, &armed),
    }
}

/// `--workers N` as given on the command line (the last one wins).
fn workers_flag(req: &Start) -> Option<u32> {
    req.overrides
        .iter()
        .rev()
        .find(|(key, _, flag)| *key == "parallel.workers" && *flag == "--workers")
        .and_then(|(_, n, _)| n.parse::<u32>().ok())
}

/// This CLI as the front end that starts a run: its store, the user's pawl state, its agent's
/// program, and the terminal that says what starting did.
struct Host<'a> {
    ctx: &'a mut Ctx,
    req: &'a Start,
    /// `[store] url`: runs are kept outside the clone.
    store_elsewhere: bool,
}

impl start::Host for Host<'_> {
    type Error = CliError;

    fn notice(&mut self, notice: &start::Notice) -> CliResult {
        let ctx = &mut *self.ctx;
        match notice {
            start::Notice::Mode {
                mode,
                reason,
                auto,
                planned,
            } => {
                if ctx.json {
                    ctx.json_line(&serde_json::json!({"kind": "mode", "mode": mode,
                        "reason": reason, "auto": auto}))
                } else {
                    ctx.say(format!(
                        "[pawl] mode {}{}: {}",
                        mode,
                        if *auto && !planned { " (auto)" } else { "" },
                        reason
                    ))
                }
            }
            start::Notice::BaselineStarting { checks } if !ctx.json => ctx.say(format!(
                "[pawl] baseline: running the {checks} sealed check(s) on the pre-run tree"
            )),
            start::Notice::BaselineStarting { .. } => Ok(()),
            start::Notice::Baseline {
                baseline: b,
                failing,
            } => {
                if ctx.json {
                    ctx.json_line(&serde_json::json!({"kind": "baseline", "tree": b.tree,
                        "checks": b.checks.iter().map(|c| serde_json::json!({"name": c.name, "passed": c.passed, "tests": c.tests.len()})).collect::<Vec<_>>()}))
                } else if failing.is_empty() {
                    ctx.say(
                        "[pawl] baseline: every check already passes — \"done\" needs a test that fails without the change (SHIP needs red to green)",
                    )
                } else {
                    ctx.say(format!(
                        "[pawl] baseline: failing before the run: {}",
                        failing.join("; ")
                    ))
                }
            }
            other => rails::render(ctx, other),
        }
    }

    fn state_ready(&mut self, driver: Driver) -> CliResult {
        let ctx = &mut *self.ctx;
        match driver {
            Driver::Headless => {
                if self.store_elsewhere {
                    // A shared store: a fleet job's fresh clone needs no `pawl init`.
                    crate::state::make_state_dir(ctx, &mut Vec::new(), &mut Vec::new())?;
                }
                if !ctx.state_dir().is_dir() {
                    return Err(CliError::Failed(format!(
                        "no pawl state in {}: run `pawl init` first (and commit pawl.toml)",
                        ctx.root.display()
                    )));
                }
                Ok(())
            }
            Driver::Manual | Driver::Session => ensure_state(ctx, &mut Vec::new(), &mut Vec::new()),
        }
    }

    fn facts(&mut self) -> CliResult<pawl_core::spec::ProjectFacts> {
        project::spec_facts(self.ctx)
    }

    fn prepare_sandbox(&mut self, config: &pawl_core::config::SandboxConfig) -> CliResult {
        pawl_engine::start::sandbox::prepare(&self.ctx.root, config)
            .map(drop)
            .map_err(CliError::from)
    }

    fn preflight_agent(&mut self, settings: &pawl_core::record::RunSettings) -> CliResult {
        headless::preflight_agent(self.ctx, settings, self.req.force_nested)
    }

    fn read_plan(
        &mut self,
        path: &std::path::Path,
    ) -> CliResult<Vec<pawl_core::parallel::PlannedStory>> {
        crate::parallel::read_plan(&absolute(path))
    }

    fn seal(&mut self, config: &pawl_core::config::Config) -> CliResult<Seal> {
        seal(self.ctx, config, self.req)
    }

    fn workspace(&mut self) -> pawl_engine::Workspace {
        checks::workspace(self.ctx)
    }

    fn store(&mut self) -> CliResult<pawl_store::Store> {
        self.ctx.store()
    }

    fn guard_snapshot(&mut self, run: &pawl_core::record::Run) -> CliResult {
        write_guard_snapshot(self.ctx, run)
    }

    fn record_plan(
        &mut self,
        store: &mut pawl_store::Store,
        run_id: &str,
        stories: &[pawl_core::parallel::PlannedStory],
    ) -> CliResult {
        crate::parallel::record_plan(store, &self.ctx.root, run_id, stories)
    }

    fn session_preflight(&mut self, agent: Option<&str>) -> CliResult {
        session_mode::refuse_unhooked_worktree(
            &self.ctx.root,
            agent.and_then(pawl_hooks::Agent::parse),
        )
    }

    fn autonomous(&mut self) -> CliResult<Vec<String>> {
        if self.req.autonomous {
            session_mode::merge_autonomous(&self.ctx.root)
        } else {
            Ok(Vec::new())
        }
    }

    fn write_marker(
        &mut self,
        store: &pawl_store::Store,
        arming: &pawl_store::Arming,
    ) -> CliResult {
        session_mode::write_marker(&self.ctx.root, store, arming)
    }

    fn offer_lessons(
        &mut self,
        store: &mut pawl_store::Store,
        run: &pawl_core::record::Run,
    ) -> CliResult<Option<String>> {
        crate::knowledge::offer(self.ctx, store, run)
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
        scope: config.verify.scope_limits(),
        require_probe: config.verify.require_probe,
    })
    .map(|mut s| {
        // `[room] setup` runs with the network: sealed, never read live.
        s.setup = config.room.setup.trim().to_owned();
        // The independent reviewer: the agent edits `pawl.toml`, so it is sealed too.
        s.reviewer = Some(config.verify.reviewer);
        // The independent tester: sealed for the same reason.
        s.tester = pawl_core::tester::decide(&config.tester, config.agent.kind).tester;
        s
    })
    .map_err(|e| match e {
        start::StartError::NoVault => crate::state::no_key("seal hidden checks"),
        e => e.into(),
    })
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

/// A path given on the command line, made absolute.
pub fn absolute(p: &std::path::Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    }
}
