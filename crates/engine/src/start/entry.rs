//! The one entry that starts a run ([`start`]): from a goal and a repository to the point where
//! the first step can run, whoever asks (the CLI's `pawl run` and demo; `pawl serve`). The
//! request carries the values only the caller may read (its configuration with its flags, the
//! process environment); what the front end does differently — where the store is opened,
//! reading the user's pawl state, its agent's program, printing — is asked of its [`Host`], and
//! what starting did is told to it as [`Notice`]s, in order.
//!
//! The drivers differ in what follows the common steps:
//! - manual: the run is created, nothing else (the user drives it with the state CLI);
//! - headless: the sandbox's refusal check, the agent's preflight, the plan file, the mode,
//!   then seal, baseline, run, guard snapshot, rails, the plan's stories; the caller drives it
//!   ([`Started::Headless`]);
//! - session: the same seal, baseline and rails (the baseline said by nobody), then the run is
//!   armed for an agent session: its lease, the arming row, the session it is bound to, the
//!   host's marker, the lessons note ([`Started::Session`]).
//!
//! Not here: the drive itself (`crate::driver`, `crate::pipeline`, `crate::parallel`), the
//! spec gate and its questions (`super::spec`, met by the driver's caller before the first
//! step), rendering.

use std::path::{Path, PathBuf};

use pawl_core::config::{Config, SandboxConfig};
use pawl_core::model::Driver;
use pawl_core::parallel::PlannedStory;
use pawl_core::pipeline::ModeArg;
use pawl_core::record::{Run, RunSettings};
use pawl_core::seal::Seal;
use pawl_core::spec::{Mode, ModeChoice, ProjectFacts};
use pawl_store::{Arming, NewArming, NewRun, Store};
use pawl_verify::gate::{self, Check};

use super::{Notice, Rails, StartError, mode, rails};
use crate::baseline::Baseline;
use crate::loop_config::Owner;
use crate::workspace::Workspace;

/// A request to start a run, checked by its front end (a goal that says something, flags that
/// do not conflict).
#[derive(Debug, Clone)]
pub struct StartRequest {
    /// The repository's root.
    pub root: PathBuf,
    /// What the run must achieve, trimmed.
    pub goal: String,
    pub driver: Driver,
    /// The effective configuration (pawl.toml, `PAWL_*`, the request's overrides).
    pub config: Config,
    /// `--workers N` as asked (refused above one for a run without stories).
    pub workers_flag: Option<u32>,
    pub mode: ModeArg,
    /// The JSONL scenario of the replay agent, absolute.
    pub scenario: Option<PathBuf>,
    /// Start on a dirty tree (it is snapshotted first).
    pub allow_dirty: bool,
    /// A plan file (headless only): its stories run in worktrees.
    pub plan: Option<PathBuf>,
    /// Session driver: the agent session pawl runs inside now, `(agent, session id)`; that
    /// session is the one the run is bound to.
    pub current_session: Option<(String, String)>,
    /// Session driver: who holds the run's lease while it waits for a session.
    pub owner: Option<Owner>,
    /// Session driver: how long an armed run waits for a session, in ms.
    pub arming_ttl_ms: i64,
}

/// What only the front end does, asked by [`start`] at its step. Each method's error is the
/// front end's own (`Error`), returned by [`start`] unchanged.
pub trait Host {
    type Error: From<StartError>;

    /// Tells the user what starting did (in order).
    fn notice(&mut self, notice: &Notice) -> Result<(), Self::Error>;
    /// Makes sure pawl's state directory is there for a run of `driver` (or refuses).
    fn state_ready(&mut self, driver: Driver) -> Result<(), Self::Error>;
    /// The project's facts the spec analysis reads.
    fn facts(&mut self) -> Result<ProjectFacts, Self::Error>;
    /// The step sandbox this machine can give (`[sandbox] required` refuses here).
    fn prepare_sandbox(&mut self, config: &SandboxConfig) -> Result<(), Self::Error>;
    /// The agent of `settings` can be built and its program exists.
    fn preflight_agent(&mut self, settings: &RunSettings) -> Result<(), Self::Error>;
    /// The stories of the plan file at `path`, checked.
    fn read_plan(&mut self, path: &Path) -> Result<Vec<PlannedStory>, Self::Error>;
    /// The new run's seal (`super::seal::seal` with the user's hidden checks and vault).
    fn seal(&mut self, config: &Config) -> Result<Seal, Self::Error>;
    /// Where the baseline's checks run.
    fn workspace(&mut self) -> Workspace;
    /// The store the run is kept in.
    fn store(&mut self) -> Result<Store, Self::Error>;
    /// Writes the run's guard policy where the hooks read it.
    fn guard_snapshot(&mut self, run: &Run) -> Result<(), Self::Error>;
    /// Records a plan file's stories on the run.
    fn record_plan(
        &mut self,
        store: &mut Store,
        run_id: &str,
        stories: &[PlannedStory],
    ) -> Result<(), Self::Error>;
    /// Session driver: the front end's own refusals before anything is checked or written,
    /// knowing the agent the session is expected to be (`claude`, `codex`, `gemini`).
    fn session_preflight(&mut self, agent: Option<&str>) -> Result<(), Self::Error>;
    /// Session driver: lets the session work without permission prompts when asked
    /// (`--autonomous`); the settings entries added.
    fn autonomous(&mut self) -> Result<Vec<String>, Self::Error>;
    /// Session driver: writes the armed marker the agent's hooks find the run by.
    fn write_marker(&mut self, store: &Store, arming: &Arming) -> Result<(), Self::Error>;
    /// The lessons of earlier runs here, as a note every prompt carries (ids offered).
    fn offer_lessons(
        &mut self,
        store: &mut Store,
        run: &Run,
    ) -> Result<Option<String>, Self::Error>;
}

/// A run started.
pub enum Started {
    /// Created; driven by hand.
    Manual { run: Run },
    /// On its rails; its first step can run: drive it with `gates` (the configured ones).
    Headless {
        run: Run,
        /// The store the run was created in, open.
        store: Box<Store>,
        gates: Vec<Check>,
    },
    /// Armed for an agent session.
    Session(Box<Armed>),
}

/// A session run armed (what its front end says).
pub struct Armed {
    pub run: Run,
    pub arming: Arming,
    pub rails: Rails,
    /// The agent the session is expected to be.
    pub agent: Option<String>,
    /// The session it is bound to already (pawl was started inside it).
    pub bound_session: Option<(String, String)>,
    /// What `--autonomous` added.
    pub autonomous: Vec<String>,
    /// The lessons offered.
    pub lessons: Option<String>,
}

/// Starts the run `req` asks for (see the module's documentation).
pub fn start<H: Host>(req: StartRequest, host: &mut H) -> Result<Started, H::Error> {
    match req.driver {
        Driver::Manual => manual(&req, host),
        Driver::Headless => headless(&req, host),
        Driver::Session => session(&req, host),
    }
}

fn manual<H: Host>(req: &StartRequest, host: &mut H) -> Result<Started, H::Error> {
    host.state_ready(Driver::Manual)?;
    let mut store = host.store()?;
    let run = store
        .create_run(&NewRun {
            goal: req.goal.clone(),
            driver: Driver::Manual,
            mode: None,
            settings: super::settings(&req.config),
            branch: None,
            pre_run_commit: None,
        })
        .map_err(StartError::from)?;
    host.guard_snapshot(&run)?;
    Ok(Started::Manual { run })
}

fn headless<H: Host>(req: &StartRequest, host: &mut H) -> Result<Started, H::Error> {
    let config = &req.config;
    host.state_ready(Driver::Headless)?;
    let gates = gate::gates_from_config(&config.gates);
    if gates.is_empty() {
        return Err(StartError::Failed(
            "nothing to verify: configure [gates] in pawl.toml (`pawl init` detects them) — pawl decides \"done\" by running them"
                .into(),
        ).into());
    }
    // `[sandbox] required = true` on a machine that cannot sandbox: refused before anything is
    // written.
    host.prepare_sandbox(&config.sandbox)?;
    let mut settings = super::settings(config);
    if config.agent.kind == pawl_core::config::AgentKind::Replay {
        let Some(abs) = &req.scenario else {
            return Err(
                StartError::Usage("--agent replay needs --scenario <file.jsonl>".into()).into(),
            );
        };
        if !abs.is_file() {
            return Err(StartError::Failed(format!(
                "replay scenario {} does not exist",
                abs.display()
            ))
            .into());
        }
        settings.replay_scenario = Some(abs.display().to_string());
    }
    // Git rails: never start on top of uncommitted work unless told to (checked before anything
    // is written), and never on a protected branch (after the run exists).
    let repo = pawl_git::Repo::open(&req.root).map_err(StartError::from)?;
    rails::check_clean(&repo, req.allow_dirty)?;
    rails::preflight(&repo, config)?;
    host.preflight_agent(&settings)?;
    // A plan file is read and checked before anything is written.
    let plan = match &req.plan {
        Some(path) => Some(host.read_plan(path)?),
        None => None,
    };
    // The mode: the request's, or for `auto` the spec analysis' choice, said out loud.
    let facts = host.facts()?;
    let analysis = pawl_core::spec::analyze(&req.goal, &facts);
    // `--workers` with a mode that has no stories is refused before the agent's fitness for the
    // mode is judged (the flag is the first thing to fix), and again once auto has chosen.
    mode::workers_have_stories(
        req.workers_flag,
        req.mode,
        plan.is_some(),
        pawl_core::pipeline::resolve_mode(req.mode, &analysis.mode).mode,
    )?;
    let mut choice = mode::for_agent(req.mode, &analysis.mode, &settings)?;
    mode::workers_have_stories(req.workers_flag, req.mode, plan.is_some(), choice.mode)?;
    // Fixed when the run starts: a plan's stories, and the planner's (work, qa: more than one
    // worker runs them in worktrees), run with these workers to the end, resumes included.
    if plan.is_some() || matches!(choice.mode, Mode::Work | Mode::Qa) {
        settings.workers = Some(config.parallel.workers.max(1));
    }
    if let Some(stories) = &plan {
        choice = ModeChoice {
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
        mode::PARALLEL_MODE
    } else {
        choice.mode.as_str()
    };
    host.notice(&Notice::Mode {
        mode: mode_name.to_string(),
        reason: choice.reason.clone(),
        auto: req.mode == ModeArg::Auto,
        planned: plan.is_some(),
    })?;
    let seal = host.seal(config)?;
    let baseline = baseline(host, &seal, true)?;
    settings.seal = Some(seal.clone());
    let mut store = host.store()?;
    let run = store
        .create_run(&NewRun {
            goal: req.goal.clone(),
            driver: Driver::Headless,
            mode: Some(mode_name.to_string()),
            settings,
            branch: None,
            pre_run_commit: None,
        })
        .map_err(StartError::from)?;
    // A run that cannot be put on its rails is not left active behind: it is cancelled, with
    // the error, and the next start may go on.
    let started = host
        .guard_snapshot(&run)
        .and_then(|()| Ok(super::record_seal(&mut store, &run.id, &seal, &baseline)?))
        .and_then(|()| {
            put_on_rails(
                host,
                &repo,
                &mut store,
                &run,
                config,
                &analysis.target_files,
            )
            .map(|_| ())
        })
        .and_then(|()| match &plan {
            Some(stories) => host.record_plan(&mut store, &run.id, stories),
            None => Ok(()),
        });
    if let Err(err) = started {
        let _ = store.cancel_run(&run.id);
        return Err(err);
    }
    let run = store.run(&run.id).map_err(StartError::from)?;
    Ok(Started::Headless {
        run,
        store: Box::new(store),
        gates,
    })
}

fn session<H: Host>(req: &StartRequest, host: &mut H) -> Result<Started, H::Error> {
    let config = &req.config;
    let gates = gate::gates_from_config(&config.gates);
    if gates.is_empty() {
        return Err(StartError::Failed(
            "nothing to verify: configure [gates] in pawl.toml (`pawl init` detects them) — the Stop hook decides \"done\" by running them"
                .into(),
        ).into());
    }
    let agent = match config.agent.kind {
        pawl_core::config::AgentKind::Claude => Some("claude"),
        pawl_core::config::AgentKind::Codex => Some("codex"),
        pawl_core::config::AgentKind::Gemini => Some("gemini"),
        pawl_core::config::AgentKind::Command | pawl_core::config::AgentKind::Replay => None,
    };
    let bound_agent = req
        .current_session
        .as_ref()
        .map(|(a, _)| a.clone())
        .or(agent.map(str::to_string));
    host.session_preflight(bound_agent.as_deref())?;
    // Git rails, as for every run: a dirty tree is refused before anything is written (no state,
    // no run, no marker) unless --allow-dirty; a protected branch gets the sandbox branch.
    let repo = pawl_git::Repo::open(&req.root).map_err(StartError::from)?;
    rails::check_clean(&repo, req.allow_dirty)?;
    rails::preflight(&repo, config)?;
    host.state_ready(Driver::Session)?;
    let expected = pawl_core::spec::analyze(&req.goal, &host.facts()?).target_files;
    let seal = host.seal(config)?;
    let sealed_baseline = baseline(host, &seal, false)?;
    let mut settings = super::settings(config);
    settings.seal = Some(seal.clone());
    let mut store = host.store()?;
    let run = store
        .create_run(&NewRun {
            goal: req.goal.clone(),
            driver: Driver::Session,
            mode: None,
            settings,
            branch: None,
            pre_run_commit: None,
        })
        .map_err(StartError::from)?;
    host.guard_snapshot(&run)?;
    super::record_seal(&mut store, &run.id, &seal, &sealed_baseline)?;
    let rails = put_on_rails(host, &repo, &mut store, &run, config, &expected)?;
    let baseline_tree = repo.tree_hash().ok().map(|t| t.to_string());
    if let Some(owner) = &req.owner {
        store
            .acquire_lease(
                &run.id,
                owner.pid,
                &owner.host,
                super::STALE_GUARD_MS,
                &owner.is_alive,
            )
            .map_err(StartError::from)?;
    }
    let autonomous = host.autonomous()?;
    let arming = store
        .arm_session(
            &run.id,
            &NewArming {
                agent: bound_agent.clone(),
                expires_at: store.now_ms() + req.arming_ttl_ms,
                baseline_tree,
                autonomous: autonomous.clone(),
            },
        )
        .map_err(StartError::from)?;
    if let Some((a, session)) = &req.current_session {
        store
            .bind_agent_session(&run.id, session, a, "arming")
            .map_err(StartError::from)?;
    }
    host.write_marker(&store, &arming)?;
    // The lessons of earlier runs here, as a note: the session's context carries it.
    let lessons = host.offer_lessons(&mut store, &run)?;
    Ok(Started::Session(Box::new(Armed {
        run,
        arming,
        rails,
        agent: bound_agent,
        bound_session: req.current_session.clone(),
        autonomous,
        lessons,
    })))
}

/// The baseline (`crate::baseline::take`): the sealed checks on the tree as it is before the
/// agent's first step, said when `announce`. A check that cannot start refuses the run.
fn baseline<H: Host>(host: &mut H, seal: &Seal, announce: bool) -> Result<Baseline, H::Error> {
    if announce {
        host.notice(&Notice::BaselineStarting {
            checks: seal.checks.len(),
        })?;
    }
    let b = crate::baseline::take(&host.workspace(), seal)
        .map_err(|e| StartError::Failed(e.to_string()))?;
    if announce {
        host.notice(&Notice::Baseline {
            failing: super::failing_before(&b),
            baseline: b.clone(),
        })?;
    }
    Ok(b)
}

/// Puts a just-created run on its rails, telling the host what it did.
fn put_on_rails<H: Host>(
    host: &mut H,
    repo: &pawl_git::Repo,
    store: &mut Store,
    run: &Run,
    config: &Config,
    expected: &[String],
) -> Result<Rails, H::Error> {
    let mut said = Ok(());
    let rails = rails::put_on_rails(repo, store, run, config, expected, &mut |n| {
        if said.is_ok() {
            said = host.notice(&n);
        }
    })?;
    said?;
    Ok(rails)
}
