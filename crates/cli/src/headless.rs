//! What the CLI plugs into the engine's drive (`pawl_engine::start::drive`): the terminal (its
//! questions, Ctrl-C, the progress printer), the lessons book's file, the step's mailbox, and
//! the closing lines of a run.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use pawl_core::ExitCode;
use pawl_core::record::Run;
use pawl_engine::start::drive::{self, DriveHost, DriveRequest, Said};
use pawl_engine::{Control, LoopEvent, Owner};
use pawl_store::Store;
use pawl_verify::gate::Check;

use crate::checks;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::owner;

pub use pawl_engine::start::drive::Answers;

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

/// [`drive`], with the questions answered as `answers` says: the engine's drive
/// (`pawl_engine::start::drive`) with this terminal as its front end, then the closing lines.
pub fn drive_with_answers(
    ctx: &mut Ctx,
    store: &mut Store,
    run: &Run,
    gates: Vec<Check>,
    force_nested: bool,
    answers: Answers,
) -> CliResult<ExitCode> {
    use std::io::IsTerminal as _;
    let config = ctx.config(&[])?.config;
    let terminal = !ctx.json
        && (answers == Answers::Terminal
            || (std::io::stdin().is_terminal() && std::io::stdout().is_terminal()));
    let db = ctx.state_dir().join("pawl.db");
    let open_store = move || {
        crate::state::open_store(&db).map_err(|e| pawl_engine::EngineError::Parallel(e.to_string()))
    };
    let root = ctx.root.clone();
    let mail_check = ctx.mail_check;
    let mailbox = move || -> Option<pawl_engine::AfterStep> {
        let root = root.clone();
        Some(Box::new(move |store: &mut Store, run_id: &str| {
            crate::sandbox::deliver(store, run_id, &root, mail_check);
        }))
    };
    let req = DriveRequest {
        run,
        gates,
        root: ctx.root.clone(),
        state_dir: ctx.state_dir(),
        config,
        answers,
        terminal,
        proceed_as_stated: ctx.proceed_as_stated,
        force_nested,
        owner: Owner {
            pid: std::process::id(),
            host: owner::hostname(),
            is_alive: owner::holder_alive,
        },
        open_store: &open_store,
        mailbox: &mailbox,
    };
    let printer = Printer::new(ctx.json, ctx.verbose);
    let mut host = Terminal { ctx, printer };
    let driven = drive::drive(req, store, &mut host)?;
    let Terminal { ctx, .. } = host;
    closing(ctx, store, run, &driven)?;
    Ok(driven.code)
}

/// The lines a run's stop ends with: the report, and what to do next.
fn closing(ctx: &mut Ctx, store: &Store, run: &Run, driven: &drive::Driven) -> CliResult {
    let (end, report, code) = (&driven.end, &driven.report, driven.code);
    let rel = driven
        .report_path
        .strip_prefix(&ctx.root)
        .unwrap_or(&driven.report_path)
        .display()
        .to_string();
    // What the hidden tests that fail called and got: shown to the user here, kept out of the
    // report written under the repository (a step reads it).
    let mut shown = report.clone();
    pawl_engine::report::reveal(&mut shown, crate::hidden::vault().as_ref());
    let hidden = shown.hidden_failed;
    if ctx.json {
        return ctx.json_line(
            &serde_json::json!({"kind": "report", "path": rel, "verdict": report.verdict,
            "stop_reason": end.reason, "exit_code": code.code(), "hidden_failed": hidden}),
        );
    }
    if !hidden.is_empty() {
        ctx.say(format!(
            "[pawl] hidden tests that fail (kept in your pawl state; never shown to the executor):\n{}",
            hidden
                .iter()
                .map(|l| format!("[pawl]   {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        ))?;
    }
    ctx.say(format!(
        "[pawl] {} · stop reason: {} · verdict {} · report: {rel}",
        if code == ExitCode::Done {
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
        ))
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
        ))
    } else if end.reason != pawl_core::StopReason::Verified {
        ctx.say(format!("[pawl] resume with: pawl resume --run {}", run.id))
    } else {
        ctx.say(format!(
            "[pawl] next: review with `pawl diff --run {id} --stat`, merge with `pawl merge --run {id}` (it verifies again first), tidy up with `pawl clean`",
            id = run.id
        ))
    }
}

/// Before a headless run is created: the agent can be built from `[agent]` and its program
/// exists (`pawl_engine::start::drive::preflight_agent`). Nothing is written.
pub fn preflight_agent(
    ctx: &Ctx,
    settings: &pawl_core::record::RunSettings,
    force_nested: bool,
) -> CliResult {
    Ok(drive::preflight_agent(&ctx.root, settings, force_nested)?)
}

/// This terminal as the front end of a drive.
struct Terminal<'a> {
    ctx: &'a mut Ctx,
    printer: Printer,
}

impl DriveHost for Terminal<'_> {
    type Error = CliError;

    fn say(&mut self, said: Said<'_>) -> CliResult {
        let ctx = &mut *self.ctx;
        match said {
            Said::Asking { reason } => ctx.say(format!(
                "[pawl] the goal is below the clarity threshold ({reason}): a few questions first"
            )),
            Said::SpecGate(gated) => {
                let ids = &gated.assumed;
                if ctx.json {
                    ctx.json_line(&serde_json::json!({"kind": "spec_gate",
                        "action": gated.action, "assumed": ids}))
                } else if !ids.is_empty() {
                    ctx.say(format!(
                        "[pawl] the goal is below the clarity threshold ({}): proceeding on assumptions, recorded as assumption criteria (they prove nothing: the verdict cannot be SHIP on them):\n{}\n[pawl] to be asked instead, run on a terminal; to proceed on the goal as stated, pass --yes",
                        gated.reason,
                        ids.iter().map(|i| format!("[pawl]   {i}")).collect::<Vec<_>>().join("\n")
                    ))
                } else if let pawl_core::spec::gate::GateAction::Proceed { why } = &gated.action {
                    ctx.say(format!("[pawl] spec gate: {why}"))
                } else {
                    Ok(())
                }
            }
            Said::Lessons { ids } => {
                if ctx.json {
                    ctx.json_line(&serde_json::json!({"kind": "lessons", "offered": ids}))
                } else {
                    ctx.say(format!(
                        "[pawl] lessons from earlier runs in the prompts: {ids} (`pawl lessons`)"
                    ))
                }
            }
            Said::Sandbox { plan, checks_line } => {
                if ctx.json {
                    ctx.json_line(&serde_json::json!({"kind": "sandbox", "line": plan.line(),
                        "layers": plan.layers, "containment": plan.containment,
                        "missing": plan.missing}))
                } else {
                    ctx.say(format!("[pawl] {}", plan.line()))?;
                    ctx.say(format!("[pawl] {checks_line}"))
                }
            }
            Said::Parallel { workers, worktrees } => {
                if ctx.json {
                    ctx.json_line(&serde_json::json!({"kind": "parallel", "workers": workers,
                        "worktrees": worktrees}))
                } else {
                    ctx.say(format!(
                        "[pawl] {workers} worker(s); stories' worktrees in {}",
                        worktrees.display()
                    ))
                }
            }
            Said::Learnt { ids } if !ctx.json => {
                ctx.say(format!("[pawl] learnt {} (`pawl lessons`)", ids.join(", ")))
            }
            Said::Learnt { .. } => Ok(()),
        }
    }

    fn event(&mut self, ev: &LoopEvent) {
        self.printer.event(ev);
    }

    fn workspace(&mut self) -> pawl_engine::Workspace {
        checks::workspace(self.ctx)
    }

    fn facts(&mut self) -> CliResult<pawl_core::spec::ProjectFacts> {
        crate::project::spec_facts(self.ctx)
    }

    fn store(&mut self) -> CliResult<Store> {
        self.ctx.store()
    }

    fn terminal(&mut self, timeout: std::time::Duration) -> Box<dyn pawl_engine::Answerer> {
        Box::new(TerminalAnswers { timeout })
    }

    fn interrupts(&mut self, control: &Control) {
        install_interrupts(control);
    }

    fn book(&mut self) -> CliResult<pawl_core::lessons::Book> {
        crate::knowledge::load(self.ctx)
    }

    fn save_book(&mut self, book: &pawl_core::lessons::Book) -> CliResult {
        crate::knowledge::save(self.ctx, book)
    }

    fn worktrees_dir(&mut self, run_id: &str) -> CliResult<PathBuf> {
        crate::parallel::run_worktrees(&self.ctx.root, run_id)
    }

    fn publish(&mut self, store: &mut Store, report: &pawl_engine::report::Report) {
        self.ctx.publish(store, report);
    }
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
