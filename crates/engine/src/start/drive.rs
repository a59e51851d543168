//! Driving a started headless run to its end, whoever asks (`pawl run`, `pawl resume`, the
//! daemon's driver process): the spec gate before the first step, the lessons note, the step
//! sandbox prepared and recorded, the agent, the driver the run's mode needs (the plain loop,
//! the pipeline, the parallel stories), the report written and published, what the run taught
//! kept, and the exit code its stop and verdict give.
//!
//! What only the front end does is asked of its [`DriveHost`]: where its store is opened, the
//! lessons book kept, the step's mailbox carried out, the terminal asked, Ctrl-C wired, and every
//! line said (as [`Said`] values and [`LoopEvent`]s: the front end renders them).
//!
//! Not here: starting the run ([`super::start`]), the drivers themselves ([`crate::driver`],
//! [`crate::pipeline`], [`crate::parallel`]), rendering.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pawl_core::config::{AgentConfig, AgentKind, Config};
use pawl_core::lessons::{Book, RunFacts, StepFacts};
use pawl_core::record::{Run, RunSettings};
use pawl_core::sandbox::SandboxPlan;
use pawl_core::spec::{Mode, ProjectFacts};
use pawl_core::{ExitCode, StopReason};
use pawl_store::{Store, StoryWork};
use pawl_verify::gate::Check;

use super::sandbox::{self, StepLaunch};
use super::{StartError, questions, spec};
use crate::driver::{AfterStep, LoopConfig, LoopEnd, LoopEvent, Owner};
use crate::report::Report;
use crate::{Answerer, Autonomous, Control, EngineError, GateVerifier, PipelineInput, Workspace};

/// Who answers a run's clarifying questions (the spec gate's, the interview's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// Nobody asked for: the interview takes its recommendations; the spec gate asks on a
    /// terminal when there is one.
    Unattended,
    /// The terminal (`--interactive`), each question kept in the store meanwhile.
    Terminal,
    /// Any front end, through the store (`--await-answers`): each question waits there.
    Store,
}

/// What the front end gives a drive besides its [`DriveHost`].
pub struct DriveRequest<'a> {
    pub run: &'a Run,
    /// The run's sealed gates.
    pub gates: Vec<Check>,
    /// The repository's root.
    pub root: PathBuf,
    /// The repository's pawl state (`.pawl/`).
    pub state_dir: PathBuf,
    /// The effective configuration (pipeline, parallel workers).
    pub config: Config,
    pub answers: Answers,
    /// A terminal can ask questions now (no `--json`; stdin and stdout a terminal, or
    /// `--interactive`).
    pub terminal: bool,
    /// `--yes`: proceed on the goal as stated.
    pub proceed_as_stated: bool,
    /// Run the agent CLI even when pawl itself runs inside one.
    pub force_nested: bool,
    /// Who holds the run's lease (this process).
    pub owner: Owner,
    /// Opens another handle on the run's store (one per worker thread of a parallel run).
    pub open_store: &'a (dyn Fn() -> Result<Store, EngineError> + Sync),
    /// What runs after every agent step: the front end carries out the step's mailbox.
    pub mailbox: &'a (dyn Fn() -> Option<AfterStep> + Sync),
}

/// What a drive tells its user, in order, besides the loop's events.
#[derive(Debug)]
pub enum Said<'a> {
    /// The goal is below the clarity threshold: questions follow (said once, before the first).
    Asking { reason: &'a str },
    /// What the spec gate did (the front end says the assumptions or why it proceeds).
    SpecGate(&'a spec::Gated),
    /// Lessons of earlier runs are in the prompts (their ids).
    Lessons { ids: &'a str },
    /// How the steps are launched, and what the checks get (`checks_line`).
    Sandbox {
        plan: &'a SandboxPlan,
        checks_line: &'a str,
    },
    /// A run whose stories run in worktrees.
    Parallel { workers: usize, worktrees: &'a Path },
    /// What the run taught (the lessons' ids added to the book).
    Learnt { ids: &'a [String] },
}

/// What only the front end does during a drive. Each method's error is the front end's own,
/// returned by [`drive`] unchanged.
pub trait DriveHost {
    type Error: From<StartError>
        + From<EngineError>
        + From<pawl_agent::AgentError>
        + From<pawl_store::StoreError>;

    /// Tells the user what the drive did.
    fn say(&mut self, said: Said<'_>) -> Result<(), Self::Error>;
    /// One event of the loop (the front end prints it).
    fn event(&mut self, ev: &LoopEvent);
    /// The repository's workspace: its room, the checks' containment, the vault.
    fn workspace(&mut self) -> Workspace;
    /// The project's facts the spec analysis reads.
    fn facts(&mut self) -> Result<ProjectFacts, Self::Error>;
    /// Another handle on the run's store (questions kept while asked).
    fn store(&mut self) -> Result<Store, Self::Error>;
    /// The terminal as an answerer, waiting `timeout` for each answer.
    fn terminal(&mut self, timeout: Duration) -> Box<dyn Answerer>;
    /// Wires the user's interrupts (Ctrl-C) to `control`.
    fn interrupts(&mut self, control: &Control);
    /// The repository's lessons book (empty when there is none).
    fn book(&mut self) -> Result<Book, Self::Error>;
    /// Keeps the book.
    fn save_book(&mut self, book: &Book) -> Result<(), Self::Error>;
    /// The directory of the run's worktrees (a run whose stories run in parallel).
    fn worktrees_dir(&mut self, run_id: &str) -> Result<PathBuf, Self::Error>;
    /// Keeps the report of a run that just stopped where the front end's runs are published
    /// (a store outside the clone); nothing otherwise.
    fn publish(&mut self, store: &mut Store, report: &Report);
}

/// How a drive ended.
#[derive(Debug)]
pub struct Driven {
    pub end: LoopEnd,
    pub report: Report,
    /// Where the report was written.
    pub report_path: PathBuf,
    /// The process's exit code: the stop's, or the verdict's after verified checks.
    pub code: ExitCode,
}

/// The mode a run was started in (`None`: a plan file's run, or an older run).
pub fn mode_of(run: &Run) -> Option<Mode> {
    run.mode.as_deref().and_then(Mode::parse)
}

/// Drives `req.run` to its end (see the module's documentation). A run with a pipeline mode
/// (work, qa, ralph; simple too) goes through the pipeline; a plan file's run through the
/// parallel driver; a run without a mode (older runs) through the plain loop.
pub fn drive<H: DriveHost>(
    req: DriveRequest<'_>,
    store: &mut Store,
    host: &mut H,
) -> Result<Driven, H::Error> {
    let run = req.run;
    meet_spec_gate(&req, store, host)?;
    if let Some(ids) = super::offer_lessons(store, run, || {
        Ok::<_, H::Error>((host.book()?, task_type(&host.facts()?, &run.goal)))
    })? {
        host.say(Said::Lessons { ids: &ids })?;
    }
    let agent = run.settings.agent.clone().unwrap_or_default();
    let launch = sandbox::prepare(&req.root, &run.settings.sandbox.clone().unwrap_or_default())?;
    let checks_sandbox = sandbox::check_report(
        &req.root,
        checks_network(run, &req.config),
        checks_containers(run, &req.config),
    );
    host.say(Said::Sandbox {
        plan: &launch.plan,
        checks_line: checks_sandbox["line"].as_str().unwrap_or_default(),
    })?;
    sandbox::record(store, &run.id, &launch, checks_sandbox)?;
    let mut adapter = build_adapter(&req.root, &agent, &run.settings, req.force_nested, &launch)?;
    let ws = host.workspace();
    let control = Control::new(req.state_dir.join("stop"));
    host.interrupts(&control);
    let mut verifier = GateVerifier::new(ws.clone(), req.gates.clone());
    if let Some(reviewer) = independent_reviewer(&req, &agent, &control) {
        verifier = verifier.with_reviewer(reviewer);
    }
    let mut cfg = loop_config(&req, &ws);
    cfg.containment = launch.containment;
    // The independent tester, when it is a session of the configured agent: read-only, like
    // the reviewer (`crate::tester`).
    if run
        .settings
        .seal
        .as_ref()
        .and_then(|s| s.tester.as_ref())
        .is_some_and(|t| t.command.is_empty())
        && let Some(asker) = read_only_session(
            &req,
            &agent,
            &control,
            req.state_dir.join("logs").join(&run.id).join("tester"),
        )
    {
        cfg.tester = Some(std::sync::Mutex::new(asker));
    }
    let absent = std::sync::Mutex::new(launch.absent);
    let mailbox = (req.mailbox)();
    let then: AfterStep = Box::new(move |store: &mut Store, run_id: &str| {
        if let Some(deliver) = &mailbox {
            deliver(store, run_id);
        }
        if let Ok(mut absent) = absent.lock() {
            sandbox::check_created(store, run_id, &mut absent);
        }
    });
    // HOME's persistence places around every step, the workers' steps included (one watch).
    let home = super::home::shared(
        cfg.containment
            .as_ref()
            .and_then(|c| c.spec.sandbox.as_ref())
            .map(|s| s.read_only.clone())
            .unwrap_or_default(),
        req.state_dir.join("logs"),
    );
    watch_home(&mut cfg, &home, Some(then));
    let mode = mode_of(run);
    // A plan file's run (no mode), or a work or qa run started with more than one worker: its
    // stories run in worktrees (docs/parallel.md).
    let planned = mode.is_none() && !store.story_works(&run.id)?.is_empty();
    let staged_workers = match mode {
        Some(Mode::Work | Mode::Qa) => run.settings.workers.unwrap_or(1).max(1) as usize,
        _ => 1,
    };
    let workers = if planned {
        run.settings
            .workers
            .unwrap_or(req.config.parallel.workers)
            .max(1) as usize
    } else {
        staged_workers
    };
    let worktrees_dir = if planned || staged_workers > 1 {
        let dir = host.worktrees_dir(&run.id)?;
        host.say(Said::Parallel {
            workers,
            worktrees: &dir,
        })?;
        Some(dir)
    } else {
        None
    };
    let make = |w: &StoryWork| story_worker(&req, &ws, w, &home);
    let parallel = worktrees_dir.map(|worktrees_dir| crate::parallel::ParallelInput {
        workers,
        open_store: req.open_store,
        worker: &make,
        merge_ws: ws.clone(),
        worktrees_dir,
    });
    let end = match (mode, parallel.as_ref()) {
        (_, Some(input)) if planned => crate::parallel::drive(
            store,
            &run.id,
            &mut verifier,
            &cfg,
            &control,
            &mut |ev| host.event(ev),
            input,
        )?,
        (None, _) => crate::drive(
            store,
            &run.id,
            adapter.as_mut(),
            &mut verifier,
            &cfg,
            &control,
            &mut |ev| host.event(ev),
        )?,
        (Some(mode), _) => {
            let mut pcfg = req.config.pipeline.clone();
            let facts = host.facts()?;
            let analysis = pawl_core::spec::analyze(&run.goal, &facts);
            // Retry limits adapted to the task type from its past runs here.
            let book = host.book()?;
            pcfg.checkpoint_retries = pawl_core::lessons::checkpoint_retries(
                pcfg.checkpoint_retries,
                book.profiles.get(&task_type(&facts, &run.goal)),
            );
            let timeout = pcfg.answer_timeout.0;
            let mut autonomous = Autonomous;
            let mut terminal = host.terminal(timeout);
            // The terminal's questions wait in the store too: any front end may answer them.
            let mut kept = questions::Kept {
                store: if req.answers == Answers::Terminal {
                    host.store().ok()
                } else {
                    None
                },
                run_id: run.id.clone(),
                by: "terminal",
                inner: terminal.as_mut(),
            };
            let mut waiting = match req.answers {
                Answers::Store => Some(from_store(host.store()?, run, timeout)),
                _ => None,
            };
            let answerer: &mut dyn Answerer = match (req.answers, waiting.as_mut()) {
                (Answers::Terminal, _) => &mut kept,
                (Answers::Store, Some(waiting)) => waiting,
                _ => &mut autonomous,
            };
            crate::pipeline::run(
                store,
                &run.id,
                adapter.as_mut(),
                &mut verifier,
                &cfg,
                &control,
                &mut |ev| host.event(ev),
                PipelineInput {
                    mode,
                    analysis: &analysis,
                    config: &pcfg,
                    answerer,
                    prompts_dir: Some(req.state_dir.join("prompts")),
                    check_in: pawl_core::spec::gate::checks_in(
                        &analysis,
                        req.proceed_as_stated || !pcfg.spec_gate,
                    ),
                    parallel: parallel.as_ref(),
                },
            )?
        }
    };
    let report = crate::report::build(store, &run.id, &req.root)?;
    let report_path = crate::report::write(&report, &req.state_dir.join("reports"))?;
    // Right after the stop: a job's clone is gone when it ends (killed in between, the run is
    // published by its resume or `pawl report` here).
    host.publish(store, &report);
    // A run waiting on the user is not over: it teaches when it ends.
    if end.reason != StopReason::AwaitingUser {
        let mut book = host.book()?;
        let task = task_type(&host.facts()?, &run.goal);
        let ids = learn(
            store,
            run,
            end.reason == StopReason::Verified,
            task,
            &mut book,
        )?;
        host.save_book(&book)?;
        if !ids.is_empty() {
            host.say(Said::Learnt { ids: &ids })?;
        }
    }
    let code = pawl_core::run_exit_code(end.reason, report.verdict);
    Ok(Driven {
        end,
        report,
        report_path,
        code,
    })
}

/// The spec gate, before a new run's first step (`pawl_core::spec::gate`): a goal below the
/// clarity threshold is asked about (on a terminal, or any front end through the store), or run
/// unattended on best-judgment assumptions — assumption criteria (proof of nothing: the verdict
/// is never SHIP on them) and a note the agent sees — said at the start.
fn meet_spec_gate<H: DriveHost>(
    req: &DriveRequest<'_>,
    store: &mut Store,
    host: &mut H,
) -> Result<(), H::Error> {
    let run = req.run;
    if !spec::pending(store, &run.id)? {
        return Ok(());
    }
    let facts = host.facts()?;
    let analysis = pawl_core::spec::analyze(&run.goal, &facts);
    // The run's facts (its baseline's failures, the repository's symbols and paths) anchor a
    // goal its text alone does not, and hold or not the text's own anchors (issue 35).
    let anchoring = store
        .last_event(&run.id, pawl_core::EventKind::Baseline)?
        .and_then(|e| serde_json::from_value::<crate::baseline::Baseline>(e.data).ok())
        .map(|b| crate::anchors::of_run(&req.root, &analysis.goal, &b));
    if !pawl_core::spec::gate::below_threshold_on_facts(&analysis, anchoring.as_ref()) {
        return Ok(());
    }
    let attended = req.answers == Answers::Store || req.terminal;
    // `--yes` for this run, `[pipeline] spec_gate = false` for every run. What the gate learns
    // is not a clarification: those are the qa interview's, which still runs.
    let input = spec::GateInput {
        analysis: &analysis,
        attended,
        proceed_as_stated: req.proceed_as_stated || !req.config.pipeline.spec_gate,
        anchoring: anchoring.as_ref(),
    };
    let timeout = req.config.pipeline.answer_timeout.0;
    let mut terminal = host.terminal(timeout);
    // Each question waits in the store while the terminal asks it: any front end may answer.
    let mut kept = questions::Kept {
        store: if attended && req.answers != Answers::Store {
            host.store().ok()
        } else {
            None
        },
        run_id: run.id.clone(),
        by: "terminal",
        inner: terminal.as_mut(),
    };
    let mut waiting = match req.answers {
        Answers::Store => Some(from_store(host.store()?, run, timeout)),
        _ => None,
    };
    let answerer: &mut dyn Answerer = match waiting.as_mut() {
        Some(waiting) => waiting,
        None => &mut kept,
    };
    let mut said = Ok(());
    let gated = spec::meet(store, run, &input, answerer, &mut |reason| {
        said = host.say(Said::Asking { reason });
    })?;
    said?;
    if let Some(gated) = gated {
        host.say(Said::SpecGate(&gated))?;
    }
    Ok(())
}

/// The answerer of `--await-answers`: each question waits in the store for `timeout` for an
/// answer from any front end (`Store::answer_question`), then the recommendation is taken.
fn from_store(store: Store, run: &Run, timeout: Duration) -> questions::FromStore {
    questions::FromStore {
        store,
        run_id: run.id.clone(),
        timeout,
        poll: Duration::from_millis(200),
    }
}

/// `[room] network` as the run sealed it: the agent can edit `pawl.toml` during the run, and
/// must not give the checks back the network the run started without.
fn checks_network(run: &Run, config: &Config) -> bool {
    run.settings
        .seal
        .as_ref()
        .map_or(config.room.network, |seal| seal.network)
}

/// `[sandbox] containers` as the run started with it: the checks reach the container daemon
/// only then.
fn checks_containers(run: &Run, config: &Config) -> bool {
    run.settings
        .sandbox
        .as_ref()
        .map_or(config.sandbox.containers, |s| s.containers)
}

/// The loop's configuration of a headless run of `req`, with the checks' private logs in the
/// workspace's hidden logs.
fn loop_config(req: &DriveRequest<'_>, ws: &Workspace) -> LoopConfig {
    let run = req.run;
    LoopConfig {
        root: req.root.clone(),
        logs_dir: req.state_dir.join("logs"),
        private_logs_dir: Some(ws.hidden_logs()),
        model: run
            .settings
            .agent
            .as_ref()
            .map(|a| a.model.clone())
            .filter(|m| !m.is_empty()),
        agent_env: vec![
            ("PAWL_RUN_ID".into(), run.id.clone()),
            ("PAWL_DRIVER".into(), "headless".into()),
        ],
        owner: req.owner.clone(),
        rate_limit_scale: rate_limit_scale(),
        auto_commit: run.settings.git.auto_commit,
        containment: None,
        after_step: None,
        before_step: None,
        tester: None,
    }
}

/// Hidden, for pawl's own tests: scales provider rate-limit waits (backoff and retry-after) so
/// the wait path runs in milliseconds. Not documented for users; 1.0 unless set to a valid number.
fn rate_limit_scale() -> f64 {
    std::env::var("PAWL_TEST_RATE_LIMIT_SCALE")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .unwrap_or(1.0)
}

/// What one worker of a planned run needs for the story `w` (docs/parallel.md): the loop's
/// configuration with the story's worktree as the agent's working directory and `PAWL_STORY`
/// in its environment, the step sandbox of that worktree (the repository's `.pawl/` read-only),
/// an agent of its own, and a verifier of the sealed checks and the story's criteria run in the
/// story's own clean room.
fn story_worker(
    req: &DriveRequest<'_>,
    ws: &Workspace,
    w: &StoryWork,
    home: &super::home::Shared,
) -> Result<crate::parallel::Worker, EngineError> {
    let run = req.run;
    let parallel = |e: &dyn std::fmt::Display| EngineError::Parallel(e.to_string());
    let tree = PathBuf::from(&w.worktree);
    let agent = run.settings.agent.clone().unwrap_or_default();
    let launch = sandbox::prepare_story(
        &req.root,
        &tree,
        &run.settings.sandbox.clone().unwrap_or_default(),
    )
    .map_err(|e| parallel(&e))?;
    let adapter = build_adapter(&req.root, &agent, &run.settings, req.force_nested, &launch)
        .map_err(|e| parallel(&e))?;
    let mut cfg = loop_config(req, ws);
    cfg.root = tree.clone();
    cfg.agent_env.push(("PAWL_STORY".into(), w.plan.id.clone()));
    cfg.containment = launch.containment;
    watch_home(&mut cfg, home, (req.mailbox)());
    let mut ws = ws.clone();
    ws.seen_at = Some(ws.root.clone());
    ws.root = tree.clone();
    ws.room = crate::parallel::story_room(&tree);
    let verifier = GateVerifier::for_story(
        ws,
        req.gates.clone(),
        w.story_id.clone(),
        w.criteria.clone(),
    );
    Ok(crate::parallel::Worker {
        cfg,
        adapter,
        verifier: Box::new(verifier),
    })
}

/// HOME's persistence places before and after every step of `cfg` (`super::home`), with any
/// sandbox or none: the step's changes there put back, kept and recorded, first thing after the
/// step (before anything of pawl's runs git, which reads `~/.gitconfig`); then `then`.
fn watch_home(cfg: &mut LoopConfig, watch: &super::home::Shared, then: Option<AfterStep>) {
    let before = watch.clone();
    cfg.before_step = Some(Box::new(move |_: &mut Store, _: &str| {
        if let Ok(mut w) = before.lock()
            && let Some(w) = w.as_mut()
        {
            w.before_step();
        }
    }));
    let watch = watch.clone();
    cfg.after_step = Some(Box::new(move |store: &mut Store, run_id: &str| {
        if let Ok(mut w) = watch.lock()
            && let Some(w) = w.as_mut()
        {
            w.after_step(store, run_id);
        }
        if let Some(then) = &then {
            then(store, run_id);
        }
    }));
}

/// The agent of a headless run, told whether pawl's sandbox encloses it.
fn build_adapter(
    root: &Path,
    agent: &AgentConfig,
    settings: &RunSettings,
    force_nested: bool,
    launch: &StepLaunch,
) -> Result<Box<dyn pawl_agent::Adapter>, pawl_agent::AgentError> {
    let mut options = adapter_options(root, agent, settings, force_nested);
    options.in_pawl_sandbox = launch.enforced.landlock && launch.plan.sandbox;
    pawl_agent::build_adapter(agent, &options)
}

/// The run's independent reviewer (issue 34 point 3), when it has one: the configured agent,
/// read-only, without pawl's hooks (its session is no step of the run). One that cannot be
/// built is no reviewer: the verification then says so as a finding (fail closed). The run's
/// stop and kill requests end its session (`control`).
fn independent_reviewer(
    req: &DriveRequest<'_>,
    agent: &AgentConfig,
    control: &Control,
) -> Option<Box<dyn crate::verify::reviewer::Reviewer>> {
    let run = req.run;
    if !crate::verify::reviewer_decision(run).on {
        return None;
    }
    read_only_session(
        req,
        agent,
        control,
        req.state_dir.join("logs").join(&run.id),
    )
}

/// A read-only session of the run's agent through the reviewer's adapter, logging into `logs`:
/// the independent reviewer's and the tester's. A stop or an interrupt of the run ends it.
/// `None` for an agent that is no reviewer (command, replay) or one that cannot be built.
fn read_only_session(
    req: &DriveRequest<'_>,
    agent: &AgentConfig,
    control: &Control,
    logs: PathBuf,
) -> Option<Box<dyn crate::verify::reviewer::Reviewer>> {
    let adapter = reviewer_adapter(&req.root, agent, req.force_nested).ok()??;
    Some(Box::new(
        crate::verify::reviewer::AgentReviewer::new(
            adapter,
            &req.run.settings.stall,
            logs,
            &req.run.id,
        )
        .stopped_by(control.clone()),
    ))
}

/// The independent reviewer's adapter for `agent` (`pawl_agent::build_reviewer_adapter`): read
/// only, none of pawl's hooks, the variables a custom Codex provider names passed on. `None` for
/// an agent that is no reviewer (command, replay).
pub fn reviewer_adapter(
    root: &Path,
    agent: &AgentConfig,
    force_nested: bool,
) -> Result<Option<Box<dyn pawl_agent::Adapter>>, pawl_agent::AgentError> {
    let options = pawl_agent::AdapterOptions {
        parent_env: std::env::vars().collect(),
        force_nested,
        extra_passthrough: codex_provider_keys(agent.kind, root),
        ..Default::default()
    };
    pawl_agent::build_reviewer_adapter(agent, &options)
}

/// Before a headless run is created: the agent can be built from `[agent]` and its program
/// exists (named, with how to get it, when it does not). Nothing is written.
pub fn preflight_agent(
    root: &Path,
    settings: &RunSettings,
    force_nested: bool,
) -> Result<(), StartError> {
    let agent = settings.agent.clone().unwrap_or_default();
    pawl_agent::build_adapter(
        &agent,
        &adapter_options(root, &agent, settings, force_nested),
    )
    .map_err(|e| StartError::Failed(e.to_string()))?;
    if let Some(program) = pawl_agent::agent_program(&agent) {
        let found = if program.contains('/') {
            root.join(&program).is_file()
        } else {
            std::env::var_os("PATH")
                .is_some_and(|path| pawl_process::which(&program, &path).is_some())
        };
        if !found {
            return Err(StartError::Failed(format!(
                "the agent program `{program}` ([agent] kind = \"{}\") was not found{}: {}",
                agent.kind.as_str(),
                if program.contains('/') {
                    ""
                } else {
                    " on PATH"
                },
                pawl_agent::install_hint(agent.kind)
            )));
        }
    }
    Ok(())
}

/// `<this pawl> hook <agent>`, quoted for the shell the agent runs hooks with.
fn hook_command(agent: &str) -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let exe = exe.to_str()?;
    let quoted = if exe
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        exe.to_string()
    } else {
        format!("'{}'", exe.replace('\'', "'\\''"))
    };
    Some(format!("{quoted} hook {agent}"))
}

/// Codex reads a custom provider's key from the variable its `config.toml` names
/// (`[model_providers.<id>] env_key`): pass those names through the agent's allow-list. The
/// configs Codex reads: `$CODEX_HOME/config.toml` (default `~/.codex`) and the project's
/// `.codex/config.toml`.
fn codex_provider_keys(kind: AgentKind, root: &Path) -> Vec<String> {
    if kind != AgentKind::Codex {
        return Vec::new();
    }
    let home = std::env::var_os("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".codex")));
    let mut keys: Vec<String> = home
        .into_iter()
        .chain([root.join(".codex")])
        .filter_map(|dir| std::fs::read_to_string(dir.join("config.toml")).ok())
        .flat_map(|text| pawl_agent::codex::provider_env_keys(&text))
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// What the adapter of a headless run needs besides `[agent]`.
fn adapter_options(
    root: &Path,
    agent: &AgentConfig,
    settings: &RunSettings,
    force_nested: bool,
) -> pawl_agent::AdapterOptions {
    pawl_agent::AdapterOptions {
        replay_scenario: settings.replay_scenario.as_ref().map(PathBuf::from),
        replay_program: std::env::var_os("PAWL_REPLAY_PROGRAM").map(PathBuf::from),
        parent_env: std::env::vars().collect(),
        force_nested,
        extra_passthrough: codex_provider_keys(agent.kind, root),
        // Claude Code gets pawl's hooks for this run only (`--settings`): its PreToolUse hook is
        // the guard; the loop, not a Stop hook, decides when the work is done.
        claude_settings: hook_command("claude")
            .map(|cmd| pawl_agent::claude::settings_json(Some(&cmd)).to_string()),
        // Codex gets pawl's PreToolUse hook the same way, as a `-c hooks...` override for this
        // invocation only.
        codex_hook_command: hook_command("codex"),
        ..Default::default()
    }
}

/// The task type of a goal (`build`, `debug`, `refactor`), as the spec analysis sees it.
pub fn task_type(facts: &ProjectFacts, goal: &str) -> String {
    let a = pawl_core::spec::analyze(goal, facts);
    serde_json::to_value(a.workflow)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "build".into())
}

/// After a run stopped: what it taught goes into `book`. Returns the ids added.
pub fn learn(
    store: &Store,
    run: &Run,
    verified: bool,
    task_type: String,
    book: &mut Book,
) -> Result<Vec<String>, pawl_store::StoreError> {
    let iterations = store.iterations(&run.id)?;
    let steps: Vec<StepFacts> = iterations
        .iter()
        // Developer steps only: a planner's or a reviewer's session changes nothing.
        .filter(|i| {
            !i.prompt.starts_with("[pawl role:") || i.prompt.starts_with("[pawl role: developer]")
        })
        .map(|i| StepFacts {
            signature: i.facts.as_ref().and_then(|f| f.failure_signature.clone()),
            files: i.files.clone(),
        })
        .collect();
    let mut facts = RunFacts {
        run_id: run.id.clone(),
        task_type,
        verified,
        iterations: u32::try_from(iterations.len()).unwrap_or(u32::MAX),
        steps,
        rejected: store
            .failed_directions(&run.id)
            .unwrap_or_default()
            .into_iter()
            .map(|d| d.direction)
            .collect(),
        decisions: store
            .notes(&run.id)?
            .into_iter()
            .map(|n| n.text)
            // The spec gate's answers are about this goal, not the repository.
            .filter(|t| !t.starts_with("spec:"))
            .collect(),
        ..RunFacts::default()
    };
    for p in store.phases(&run.id).unwrap_or_default() {
        if let Some(end) = p.ended_at {
            let ms = u64::try_from(end.saturating_sub(p.started_at)).unwrap_or(0);
            *facts.phase_ms.entry(p.phase.to_string()).or_default() += ms;
        }
    }
    for s in store.scores(&run.id).unwrap_or_default() {
        facts.thresholds.insert(s.kind.clone(), s.threshold);
        if !s.passed {
            *facts.checkpoint_misses.entry(s.kind).or_default() += 1;
        }
    }
    Ok(book.absorb(&facts, jiff::Timestamp::now().as_millisecond()))
}
