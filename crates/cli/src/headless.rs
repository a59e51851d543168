//! What the CLI plugs into the engine: the gate verifier (pawl's own checks with the evidence
//! cache), the agent adapter from `[agent]`, the Ctrl-C handling, and the progress printer.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use pawl_core::ExitCode;
use pawl_core::record::Run;
use pawl_core::spec::Mode;
use pawl_engine::{Control, GateVerifier, LoopConfig, LoopEvent, Owner};
use pawl_store::Store;
use pawl_verify::gate::Check;

use crate::checks;
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::owner;

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
fn codex_provider_keys(kind: pawl_core::config::AgentKind, root: &std::path::Path) -> Vec<String> {
    if kind != pawl_core::config::AgentKind::Codex {
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

/// Ctrl-C: the first asks the loop to stop after the current step, the second stops the
/// agent's process group at once.
pub fn install_interrupts(control: &Control) {
    let (stop, kill) = control.flags();
    let presses = Arc::new(AtomicUsize::new(0));
    let _ = ctrlc::set_handler(move || {
        let n = presses.fetch_add(1, Ordering::SeqCst);
        if n == 0 {
            stop.store(true, Ordering::SeqCst);
            eprint_line(
                "pawl: stopping after the current step (Ctrl-C again to stop the agent now)",
            );
        } else {
            kill.store(true, Ordering::SeqCst);
        }
    });
}

fn eprint_line(s: &str) {
    let _ = writeln!(std::io::stderr(), "{s}");
}

pub fn loop_config(ctx: &Ctx, run: &Run) -> LoopConfig {
    LoopConfig {
        root: ctx.root.clone(),
        logs_dir: ctx.state_dir().join("logs"),
        private_logs_dir: Some(checks::workspace(ctx).hidden_logs()),
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
        owner: Owner {
            pid: std::process::id(),
            host: owner::hostname(),
            is_alive: owner::holder_alive,
        },
        rate_limit_scale: rate_limit_scale(),
        auto_commit: run.settings.git.auto_commit,
        containment: None,
        after_step: None,
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

/// What the adapter of a headless run needs besides `[agent]`.
fn adapter_options(
    ctx: &Ctx,
    agent: &pawl_core::config::AgentConfig,
    settings: &pawl_core::record::RunSettings,
    force_nested: bool,
) -> pawl_agent::AdapterOptions {
    pawl_agent::AdapterOptions {
        replay_scenario: settings.replay_scenario.as_ref().map(PathBuf::from),
        replay_program: std::env::var_os("PAWL_REPLAY_PROGRAM").map(PathBuf::from),
        parent_env: std::env::vars().collect(),
        force_nested,
        extra_passthrough: codex_provider_keys(agent.kind, &ctx.root),
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

/// Before a headless run is created: the agent can be built from `[agent]` and its program
/// exists (named, with how to get it, when it does not). Nothing is written.
pub fn preflight_agent(
    ctx: &Ctx,
    settings: &pawl_core::record::RunSettings,
    force_nested: bool,
) -> CliResult {
    let agent = settings.agent.clone().unwrap_or_default();
    pawl_agent::build_adapter(
        &agent,
        &adapter_options(ctx, &agent, settings, force_nested),
    )?;
    if let Some(program) = pawl_agent::agent_program(&agent) {
        let found = if program.contains('/') {
            ctx.root.join(&program).is_file()
        } else {
            crate::project::on_path(&program)
        };
        if !found {
            return Err(crate::error::CliError::Failed(format!(
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

/// Drives a run to its end, prints progress, writes the report; returns the exit code.
pub fn drive(
    ctx: &mut Ctx,
    store: &mut Store,
    run: &Run,
    gates: Vec<Check>,
    force_nested: bool,
) -> CliResult<ExitCode> {
    drive_with_answers(ctx, store, run, gates, force_nested, Answers::Unattended)
}

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

/// [`drive`], with the questions answered as `answers` says. A run
/// with a pipeline mode (work, qa, ralph; simple too) goes through the pipeline; a run without
/// one (older runs) through the plain headless loop.
pub fn drive_with_answers(
    ctx: &mut Ctx,
    store: &mut Store,
    run: &Run,
    gates: Vec<Check>,
    force_nested: bool,
    answers: Answers,
) -> CliResult<ExitCode> {
    spec_gate(ctx, store, run, answers)?;
    if let Some(ids) = crate::knowledge::offer(ctx, store, run)? {
        if ctx.json {
            ctx.json_line(&serde_json::json!({"kind": "lessons", "offered": ids}))?;
        } else {
            ctx.say(format!(
                "[pawl] lessons from earlier runs in the prompts: {ids} (`pawl lessons`)"
            ))?;
        }
    }
    let agent = run.settings.agent.clone().unwrap_or_default();
    let launch =
        crate::sandbox::prepare(&ctx.root, &run.settings.sandbox.clone().unwrap_or_default())?;
    if ctx.json {
        ctx.json_line(
            &serde_json::json!({"kind": "sandbox", "line": launch.plan.line(),
            "layers": launch.plan.layers, "containment": launch.plan.containment,
            "missing": launch.plan.missing}),
        )?;
    } else {
        ctx.say(format!("[pawl] {}", launch.plan.line()))?;
    }
    let checks_sandbox = crate::sandbox::check_report(&ctx.root, checks::network(ctx));
    if !ctx.json {
        ctx.say(format!(
            "[pawl] {}",
            checks_sandbox["line"].as_str().unwrap_or_default()
        ))?;
    }
    crate::sandbox::record(store, &run.id, &launch, checks_sandbox)?;
    let mut options = adapter_options(ctx, &agent, &run.settings, force_nested);
    options.in_pawl_sandbox = launch.enforced.landlock && launch.plan.sandbox;
    let mut adapter = pawl_agent::build_adapter(&agent, &options)?;
    let mut verifier = GateVerifier::new(checks::workspace(ctx), gates.clone());
    let control = Control::new(ctx.state_dir().join("stop"));
    install_interrupts(&control);
    let mut cfg = loop_config(ctx, run);
    cfg.containment = launch.containment;
    let root = ctx.root.clone();
    let absent = std::sync::Mutex::new(launch.absent);
    let mail_check = ctx.mail_check;
    cfg.after_step = Some(Box::new(move |store: &mut Store, run_id: &str| {
        crate::sandbox::deliver(store, run_id, &root, mail_check);
        if let Ok(mut absent) = absent.lock() {
            crate::sandbox::check_created(store, run_id, &mut absent);
        }
    }));
    let json = ctx.json;
    let mut printer = Printer::new(json, ctx.verbose);
    let mode = match run.mode.as_deref() {
        Some("simple") => Some(Mode::Simple),
        Some("work") => Some(Mode::Work),
        Some("qa") => Some(Mode::Qa),
        Some("ralph") => Some(Mode::Ralph),
        _ => None,
    };
    // A plan file's run (mode `parallel`), or a work or qa run started with more than one
    // worker: its stories run in worktrees (docs/parallel.md).
    let planned = mode.is_none() && !store.story_works(&run.id)?.is_empty();
    let staged_workers = match mode {
        Some(Mode::Work | Mode::Qa) => run.settings.workers.unwrap_or(1).max(1) as usize,
        _ => 1,
    };
    let workers = if planned {
        match run.settings.workers {
            Some(n) => n,
            None => ctx.config(&[])?.config.parallel.workers,
        }
        .max(1) as usize
    } else {
        staged_workers
    };
    let worktrees_dir = if planned || staged_workers > 1 {
        let dir = crate::parallel::run_worktrees(&ctx.root, &run.id)?;
        if json {
            ctx.json_line(&serde_json::json!({"kind": "parallel", "workers": workers,
                "worktrees": dir}))?;
        } else {
            ctx.say(format!(
                "[pawl] {workers} worker(s); stories' worktrees in {}",
                dir.display()
            ))?;
        }
        Some(dir)
    } else {
        None
    };
    let db = ctx.state_dir().join("pawl.db");
    let open_store = move || {
        crate::state::open_store(&db).map_err(|e| pawl_engine::EngineError::Parallel(e.to_string()))
    };
    let ctx_ref: &Ctx = ctx;
    let make = |w: &pawl_store::StoryWork| {
        story_worker(ctx_ref, run, &gates, force_nested, w)
            .map_err(|e| pawl_engine::EngineError::Parallel(e.to_string()))
    };
    let parallel = worktrees_dir.map(|worktrees_dir| pawl_engine::parallel::ParallelInput {
        workers,
        open_store: &open_store,
        worker: &make,
        merge_ws: checks::workspace(ctx_ref),
        worktrees_dir,
    });
    let end = match (mode, parallel.as_ref()) {
        (_, Some(input)) if planned => pawl_engine::parallel::drive(
            store,
            &run.id,
            &mut verifier,
            &cfg,
            &control,
            &mut |ev| printer.event(ev),
            input,
        ),
        (None, _) => pawl_engine::drive(
            store,
            &run.id,
            adapter.as_mut(),
            &mut verifier,
            &cfg,
            &control,
            &mut |ev| printer.event(ev),
        ),
        (Some(mode), _) => {
            let mut pcfg = ctx.config(&[])?.config.pipeline;
            let facts = crate::project::spec_facts(ctx)?;
            let analysis = pawl_core::spec::analyze(&run.goal, &facts);
            // Retry limits adapted to the task type from its past runs here.
            let book = crate::knowledge::load(ctx)?;
            pcfg.checkpoint_retries = pawl_core::lessons::checkpoint_retries(
                pcfg.checkpoint_retries,
                book.profiles
                    .get(&crate::knowledge::task_type(ctx, &run.goal)),
            );
            let mut autonomous = pawl_engine::Autonomous;
            let mut terminal = TerminalAnswers {
                timeout: pcfg.answer_timeout.0,
            };
            // The terminal's questions wait in the store too: any front end may answer them.
            let mut kept = pawl_engine::start::questions::Kept {
                store: if answers == Answers::Terminal {
                    ctx.store().ok()
                } else {
                    None
                },
                run_id: run.id.clone(),
                by: "terminal",
                inner: &mut terminal,
            };
            let mut waiting = match answers {
                Answers::Store => Some(from_store(ctx, run, pcfg.answer_timeout.0)?),
                _ => None,
            };
            let answerer: &mut dyn pawl_engine::Answerer = match (answers, waiting.as_mut()) {
                (Answers::Terminal, _) => &mut kept,
                (Answers::Store, Some(waiting)) => waiting,
                _ => &mut autonomous,
            };
            pawl_engine::pipeline::run(
                store,
                &run.id,
                adapter.as_mut(),
                &mut verifier,
                &cfg,
                &control,
                &mut |ev| printer.event(ev),
                pawl_engine::PipelineInput {
                    mode,
                    analysis: &analysis,
                    config: &pcfg,
                    answerer,
                    prompts_dir: Some(ctx.state_dir().join("prompts")),
                    check_in: pawl_core::spec::gate::checks_in(
                        &analysis,
                        ctx.proceed_as_stated || !pcfg.spec_gate,
                    ),
                    parallel: parallel.as_ref(),
                },
            )
        }
    }?;
    let report = pawl_engine::report::build(store, &run.id, &ctx.root)?;
    let path = pawl_engine::report::write(&report, &ctx.state_dir().join("reports"))?;
    // Right after the stop: a job's clone is gone when it ends (killed in between, the run is
    // published by its resume or `pawl report` here).
    ctx.publish(store, &report);
    // A run waiting on the user is not over: it teaches when it ends.
    if end.reason != pawl_core::StopReason::AwaitingUser {
        let learnt = crate::knowledge::learn(
            ctx,
            store,
            run,
            end.reason == pawl_core::StopReason::Verified,
        )?;
        if !learnt.is_empty() && !json {
            ctx.say(format!(
                "[pawl] learnt {} (`pawl lessons`)",
                learnt.join(", ")
            ))?;
        }
    }
    let code = pawl_core::run_exit_code(end.reason, report.verdict);
    let rel = path
        .strip_prefix(&ctx.root)
        .unwrap_or(&path)
        .display()
        .to_string();
    if json {
        ctx.json_line(
            &serde_json::json!({"kind": "report", "path": rel, "verdict": report.verdict,
            "stop_reason": end.reason, "exit_code": code.code()}),
        )?;
    } else {
        ctx.say(format!(
            "[pawl] {} · stop reason: {} · verdict {} · report: {rel}",
            if code == pawl_core::ExitCode::Done {
                "done, verified by pawl"
            } else if end.reason == pawl_core::StopReason::Verified {
                "checks verified, not SHIP"
            } else {
                "stopped"
            },
            end.reason,
            report.verdict.as_str()
        ))?;
        if end.reason == pawl_core::StopReason::AwaitingUser
            && let Some(b) = store.awaited_blocker(&run.id)?
        {
            ctx.say(format!(
                "[pawl] waiting for you on blocker {}: {}\n[pawl] what to do: {}\n[pawl] then: pawl user-fixed && pawl resume --run {}",
                b.id,
                b.text,
                b.instructions.as_deref().unwrap_or("-"),
                run.id
            ))?;
        } else if end.reason == pawl_core::StopReason::Tampered {
            let what: Vec<String> = report
                .tampering
                .iter()
                .take(5)
                .map(ToString::to_string)
                .collect();
            ctx.say(format!(
                "[pawl] the run's state was modified outside pawl: {}\n[pawl] the run is never resumed; the report says what was modified",
                what.join("; ")
            ))?;
        } else if end.reason != pawl_core::StopReason::Verified {
            ctx.say(format!("[pawl] resume with: pawl resume --run {}", run.id))?;
        } else {
            ctx.say(format!(
                "[pawl] next: review with `pawl diff --run {id} --stat`, merge with `pawl merge --run {id}` (it verifies again first), tidy up with `pawl clean`",
                id = run.id
            ))?;
        }
    }
    Ok(code)
}

/// What one worker of a planned run needs for the story `w` (docs/parallel.md): the loop's
/// configuration with the story's worktree as the agent's working directory and `PAWL_STORY`
/// in its environment, the step sandbox of that worktree (the repository's `.pawl/` read-only),
/// an agent of its own, and a verifier of the sealed checks and the story's criteria run in the
/// story's own clean room.
fn story_worker(
    ctx: &Ctx,
    run: &Run,
    gates: &[Check],
    force_nested: bool,
    w: &pawl_store::StoryWork,
) -> CliResult<pawl_engine::parallel::Worker> {
    let tree = PathBuf::from(&w.worktree);
    let agent = run.settings.agent.clone().unwrap_or_default();
    let launch = crate::sandbox::prepare_story(
        &ctx.root,
        &tree,
        &run.settings.sandbox.clone().unwrap_or_default(),
    )?;
    let mut options = adapter_options(ctx, &agent, &run.settings, force_nested);
    options.in_pawl_sandbox = launch.enforced.landlock && launch.plan.sandbox;
    let adapter = pawl_agent::build_adapter(&agent, &options)?;
    let mut cfg = loop_config(ctx, run);
    cfg.root = tree.clone();
    cfg.agent_env.push(("PAWL_STORY".into(), w.plan.id.clone()));
    cfg.containment = launch.containment;
    let root = ctx.root.clone();
    let mail_check = ctx.mail_check;
    cfg.after_step = Some(Box::new(move |store: &mut Store, run_id: &str| {
        crate::sandbox::deliver(store, run_id, &root, mail_check);
    }));
    let mut ws = checks::workspace(ctx);
    ws.root = tree.clone();
    ws.room = pawl_engine::parallel::story_room(&tree);
    let verifier =
        GateVerifier::for_story(ws, gates.to_vec(), w.story_id.clone(), w.criteria.clone());
    Ok(pawl_engine::parallel::Worker {
        cfg,
        adapter,
        verifier: Box::new(verifier),
    })
}

/// The interview on the terminal: each question with its recommendation; an empty line takes
/// the recommendation, and so does silence for `timeout` (recorded as assumed).
/// The spec gate, before a new run's first step (`pawl_core::spec::gate`): a goal below the
/// clarity threshold is asked about on a terminal (the interview's timeout: silence takes the
/// assumption), or run unattended on best-judgment assumptions — assumption criteria (proof of
/// nothing: the verdict is never SHIP on them) and a note the agent sees — said at the start.
fn spec_gate(ctx: &mut Ctx, store: &mut Store, run: &Run, answers: Answers) -> CliResult {
    use pawl_core::spec::gate::GateAction;
    use pawl_engine::start::spec;
    use std::io::IsTerminal as _;
    if !spec::pending(store, &run.id)? {
        return Ok(());
    }
    let config = ctx.config(&[])?.config;
    let facts = crate::project::spec_facts(ctx)?;
    let analysis = pawl_core::spec::analyze(&run.goal, &facts);
    if !pawl_core::spec::gate::below_threshold(&analysis) {
        return Ok(());
    }
    // The run's facts (its baseline's failures, the repository's symbols and paths) anchor a
    // goal its text alone does not (issue 35).
    let anchoring = store
        .last_event(&run.id, pawl_core::EventKind::Baseline)?
        .and_then(|e| serde_json::from_value::<pawl_engine::baseline::Baseline>(e.data).ok())
        .map(|b| pawl_engine::anchors::of_run(&ctx.root, &analysis.goal, &b));
    let attended = answers == Answers::Store
        || (!ctx.json
            && (answers == Answers::Terminal
                || (std::io::stdin().is_terminal() && std::io::stdout().is_terminal())));
    // `--yes` for this run, `[pipeline] spec_gate = false` for every run. What the gate learns
    // is not a clarification: those are the qa interview's, which still runs.
    let input = spec::GateInput {
        analysis: &analysis,
        attended,
        proceed_as_stated: ctx.proceed_as_stated || !config.pipeline.spec_gate,
        anchoring: anchoring.as_ref(),
    };
    let mut terminal = TerminalAnswers {
        timeout: config.pipeline.answer_timeout.0,
    };
    // Each question waits in the store while the terminal asks it: any front end may answer.
    let mut kept = pawl_engine::start::questions::Kept {
        store: if attended && answers != Answers::Store {
            ctx.store().ok()
        } else {
            None
        },
        run_id: run.id.clone(),
        by: "terminal",
        inner: &mut terminal,
    };
    let mut waiting = match answers {
        Answers::Store => Some(from_store(ctx, run, config.pipeline.answer_timeout.0)?),
        _ => None,
    };
    let answerer: &mut dyn pawl_engine::Answerer = match waiting.as_mut() {
        Some(waiting) => waiting,
        None => &mut kept,
    };
    let mut said = Ok(());
    let gated = spec::meet(store, run, &input, answerer, &mut |reason| {
        said = ctx.say(format!(
            "[pawl] the goal is below the clarity threshold ({reason}): a few questions first"
        ));
    })?;
    said?;
    let Some(gated) = gated else {
        return Ok(());
    };
    let ids = &gated.assumed;
    if ctx.json {
        ctx.json_line(
            &serde_json::json!({"kind": "spec_gate", "action": gated.action, "assumed": ids}),
        )?;
    } else if !ids.is_empty() {
        ctx.say(format!(
            "[pawl] the goal is below the clarity threshold ({}): proceeding on assumptions, recorded as assumption criteria (they prove nothing: the verdict cannot be SHIP on them):\n{}\n[pawl] to be asked instead, run on a terminal; to proceed on the goal as stated, pass --yes",
            gated.reason,
            ids.iter().map(|i| format!("[pawl]   {i}")).collect::<Vec<_>>().join("\n")
        ))?;
    } else if let GateAction::Proceed { why } = &gated.action {
        ctx.say(format!("[pawl] spec gate: {why}"))?;
    }
    Ok(())
}

/// The answerer of `--await-answers`: each question waits in the store for `timeout` for an
/// answer from any front end (`Store::answer_question`), then the recommendation is taken.
fn from_store(
    ctx: &Ctx,
    run: &Run,
    timeout: std::time::Duration,
) -> CliResult<pawl_engine::start::questions::FromStore> {
    Ok(pawl_engine::start::questions::FromStore {
        store: ctx.store()?,
        run_id: run.id.clone(),
        timeout,
        poll: std::time::Duration::from_millis(200),
    })
}

/// The terminal as an [`pawl_engine::Answerer`]: each question with its recommendation on
/// stdout, the answer a line on stdin.
struct TerminalAnswers {
    timeout: std::time::Duration,
}

/// The lines typed on stdin, read by one thread for the whole run: stdin has no timeout of its
/// own, and a reader per question would leave a reader from a timed-out question behind to
/// swallow the answer to the next one.
fn stdin_lines() -> &'static std::sync::Mutex<std::sync::mpsc::Receiver<String>> {
    static LINES: std::sync::OnceLock<std::sync::Mutex<std::sync::mpsc::Receiver<String>>> =
        std::sync::OnceLock::new();
    LINES.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            loop {
                let mut line = String::new();
                match stdin.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        std::sync::Mutex::new(rx)
    })
}

impl pawl_engine::Answerer for TerminalAnswers {
    fn answer(&mut self, q: &pawl_core::pipeline::output::Question) -> pawl_engine::Answer {
        use std::io::Write as _;
        let lines = stdin_lines()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // A line typed after an earlier question timed out answers nothing: drop it.
        while lines.try_recv().is_ok() {}
        let _ = writeln!(
            std::io::stdout(),
            "[pawl] question: {}\n[pawl] recommended: {}\n[pawl] your answer (Enter takes the recommendation; {}s of silence too): ",
            q.question,
            q.recommended,
            self.timeout.as_secs()
        );
        let _ = std::io::stdout().flush();
        match lines.recv_timeout(self.timeout) {
            Ok(line) if !line.trim().is_empty() => pawl_engine::Answer {
                text: line.trim().to_string(),
                assumed: false,
            },
            Ok(_) => pawl_engine::Answer {
                text: q.recommended.clone(),
                assumed: false,
            },
            // Silence, or stdin closed: the recommendation, recorded as assumed.
            Err(_) => pawl_engine::Answer {
                text: q.recommended.clone(),
                assumed: true,
            },
        }
    }
}

/// Prints loop events: JSON lines, or one human line per iteration.
struct Printer {
    json: bool,
    /// `--verbose`: the agent's messages and tool calls too.
    verbose: bool,
    /// A spinner while the agent works, on a terminal only (lines print above it): it names
    /// what is happening (the agent working, the checks pawl runs, a wait and what is left of it).
    spinner: Option<indicatif::ProgressBar>,
    /// The end of the wait in progress, for the spinner's countdown.
    wait_until: std::sync::Arc<std::sync::Mutex<Option<std::time::Instant>>>,
}

/// At most this many lines of one agent message in `--verbose` output.
const VERBOSE_LINES: usize = 12;
/// At most this many characters of one line in `--verbose` output.
const VERBOSE_WIDTH: usize = 240;

impl Printer {
    fn new(json: bool, verbose: bool) -> Printer {
        let tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
        let wait_until: std::sync::Arc<std::sync::Mutex<Option<std::time::Instant>>> =
            Default::default();
        let until = wait_until.clone();
        let spinner = (!json && tty).then(|| {
            let pb = indicatif::ProgressBar::new_spinner();
            let style =
                indicatif::ProgressStyle::with_template("{spinner} {msg}{left} · {elapsed}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner())
                    .with_key(
                        "left",
                        move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                            let at = until.lock().ok().and_then(|g| *g);
                            if let Some(left) = at
                                .and_then(|at| at.checked_duration_since(std::time::Instant::now()))
                            {
                                let _ = write!(w, " — {}s left", left.as_secs() + 1);
                            }
                        },
                    );
            pb.set_style(style);
            pb.enable_steady_tick(std::time::Duration::from_millis(120));
            pb
        });
        Printer {
            json,
            verbose,
            spinner,
            wait_until,
        }
    }

    fn set_wait(&self, until: Option<std::time::Instant>) {
        if let Ok(mut g) = self.wait_until.lock() {
            *g = until;
        }
    }

    /// The `--verbose` lines of an agent event.
    fn agent_lines(n: u32, event: &pawl_agent::AgentEvent) -> Vec<String> {
        let cut = |s: &str| -> String {
            let s = pawl_verify::text::strip_ansi(s);
            let mut out: String = s.chars().take(VERBOSE_WIDTH).collect();
            if s.chars().count() > VERBOSE_WIDTH {
                out.push('…');
            }
            out
        };
        match event {
            pawl_agent::AgentEvent::Text { text } => {
                let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
                let mut out: Vec<String> = lines
                    .iter()
                    .take(VERBOSE_LINES)
                    .map(|l| format!("[agent {n}] {}", cut(l)))
                    .collect();
                if lines.len() > VERBOSE_LINES {
                    out.push(format!(
                        "[agent {n}] … ({} more lines)",
                        lines.len() - VERBOSE_LINES
                    ));
                }
                out
            }
            pawl_agent::AgentEvent::ToolCall { name, input, .. } => {
                let what = ["command", "file_path", "path", "pattern", "url", "query"]
                    .iter()
                    .find_map(|k| input.get(*k).and_then(|v| v.as_str()))
                    .map(str::to_owned)
                    .unwrap_or_else(|| input.to_string());
                vec![format!("[agent {n}] ▸ {name} {}", cut(what.trim()))]
            }
            _ => Vec::new(),
        }
    }

    fn println(&self, line: &str) {
        match &self.spinner {
            Some(pb) => pb.println(line),
            None => {
                let _ = writeln!(std::io::stdout(), "{line}");
            }
        }
    }

    fn event(&mut self, ev: &LoopEvent) {
        if self.json {
            if let Ok(s) = serde_json::to_string(ev) {
                let _ = writeln!(std::io::stdout(), "{s}");
            }
            return;
        }
        match ev {
            LoopEvent::Waiting { seconds, .. } => self.set_wait(Some(
                std::time::Instant::now() + std::time::Duration::from_secs(*seconds),
            )),
            LoopEvent::IterationStarted { .. }
            | LoopEvent::Verifying { .. }
            | LoopEvent::Iteration { .. }
            | LoopEvent::Finished { .. } => self.set_wait(None),
            _ => {}
        }
        if let Some(pb) = &self.spinner {
            match ev {
                LoopEvent::IterationStarted { n, max, .. } => {
                    pb.reset_elapsed();
                    pb.set_message(format!("[pawl] iteration {n}/{max}: the agent is working"));
                }
                LoopEvent::Waiting { why, .. } => pb.set_message(format!("[pawl] waiting: {why}")),
                LoopEvent::Verifying { n, checks } => {
                    pb.reset_elapsed();
                    pb.set_message(format!(
                        "[pawl] iteration {n}: pawl runs the checks{}",
                        check_list(checks)
                    ));
                }
                LoopEvent::Iteration { n, max, .. } => {
                    pb.set_message(format!("[pawl] iteration {n}/{max} checked by pawl"))
                }
                LoopEvent::Finished { .. } => pb.finish_and_clear(),
                _ => {}
            }
        }
        if self.verbose {
            if let LoopEvent::Agent { n, event } = ev {
                for l in Printer::agent_lines(*n, event) {
                    self.println(&l);
                }
            }
            if let LoopEvent::Verifying { n, checks } = ev {
                self.println(&format!(
                    "[pawl] iteration {n}: pawl runs the checks{}",
                    check_list(checks)
                ));
            }
        }
        let line = match ev {
            LoopEvent::Started {
                run_id,
                resumed,
                interrupted_iterations,
            } => {
                let mut s = format!(
                    "[pawl] {} run {run_id}",
                    if *resumed { "resuming" } else { "starting" }
                );
                if !interrupted_iterations.is_empty() {
                    s.push_str(&format!(
                        " (iteration(s) {:?} were cut off by a crash: recorded as interrupted)",
                        interrupted_iterations
                    ));
                }
                Some(s)
            }
            LoopEvent::Agent {
                event: pawl_agent::AgentEvent::ClaimDone { text },
                n,
            } => Some(format!(
                "[pawl] iteration {n}: the agent claims it is done ({}): pawl verifies",
                text.trim()
            )),
            LoopEvent::Waiting { seconds, why } => Some(format!(
                "[pawl] waiting {seconds}s: {why} (the time budget is paused)"
            )),
            LoopEvent::StallRecovered { n, recoveries } => Some(format!(
                "[pawl] iteration {n}: the agent went silent; stopped it and retrying (stall recovery {recoveries})"
            )),
            LoopEvent::Phase {
                phase,
                round,
                outcome,
                note,
            } => Some(match outcome {
                None => format!("[pawl] phase {phase} (round {round})"),
                Some(o) => format!(
                    "[pawl] phase {phase}: {o}{}",
                    if note.is_empty() {
                        String::new()
                    } else {
                        format!(" — {note}")
                    }
                ),
            }),
            LoopEvent::Verdict {
                role,
                story,
                approve,
                session_id,
                summary,
                ..
            } => Some(format!(
                "[pawl] {role}{} {} (session {}): {summary}",
                story
                    .as_deref()
                    .map(|s| format!(" on {s}"))
                    .unwrap_or_default(),
                if *approve {
                    "approves"
                } else {
                    "requests changes"
                },
                session_id.as_deref().unwrap_or("-")
            )),
            LoopEvent::Progress {
                stories_done,
                stories_total,
                verified,
                criteria,
                active_ms,
            } => Some(format!(
                "[pawl] progress: {stories_done}/{stories_total} stories done · {verified}/{criteria} criteria verified · {}",
                pawl_engine::session::human_ms(*active_ms)
            )),
            LoopEvent::Story {
                story, state, note, ..
            } => Some(format!("[pawl] story {story} {state}: {note}")),
            LoopEvent::StorySkipped { story, attempts } => Some(format!(
                "[pawl] story {story} skipped after {attempts} failed attempts"
            )),
            LoopEvent::Iteration {
                n,
                max,
                checks_passing,
                checks_total,
                usd,
                max_usd,
                active_ms,
                summary,
                outcome,
            } => {
                let pct = if *checks_total > 0 {
                    checks_passing * 100 / checks_total
                } else {
                    0
                };
                Some(format!(
                    "[pawl] {checks_passing}/{checks_total} checks verified ({pct}%) · iteration {n}/{max} · ${usd:.2}/${max_usd} · {} · {outcome}: {summary}",
                    pawl_engine::session::human_ms(*active_ms)
                ))
            }
            _ => None,
        };
        if let Some(l) = line {
            self.println(&l);
        }
    }
}

/// ` (a, b, c)` — at most five names, then how many more.
fn check_list(checks: &[String]) -> String {
    if checks.is_empty() {
        return String::new();
    }
    let mut shown: Vec<&str> = checks.iter().take(5).map(String::as_str).collect();
    let more = checks.len().saturating_sub(5);
    let more_text = format!("{more} more");
    if more > 0 {
        shown.push(&more_text);
    }
    format!(" ({})", shown.join(", "))
}
