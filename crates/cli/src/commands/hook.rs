//! `pawl hook <claude|codex|gemini> <event>`: answers one agent hook, reading its JSON on stdin
//! and printing the answer in that CLI's protocol (pawl-hooks).
//!
//! The fast path comes first: a session in a repository without an armed or bound run gets
//! `{}` after a couple of `stat`s — no store, no config, no git. Only a session bound to a run
//! pays for more: the guard on PreToolUse, verification on Stop.
//!
//! A hook never crashes and never hangs: it always exits 0 with JSON (exit 2 would mean "block"),
//! panics are caught, and a watchdog answers before the CLI's own timeout would. On an internal
//! error while a run is active, PreToolUse denies (fail closed) and Stop allows with a visible
//! message and a recorded error — a broken pawl must never trap a session in a loop.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use clap::Args;
use pawl_core::EventKind;
use pawl_core::ExitCode;
use pawl_core::StopReason;
use pawl_core::model::RunStatus;
use pawl_core::record::Run;
use pawl_engine::session as session_turn;
use pawl_guard::{TrackedFiles, TrackedSet};
use pawl_hooks::input::{self, Event, HookInput, ToolCall};
use pawl_hooks::marker::{Marker, Route};
use pawl_hooks::{Agent, Answer, HookKind};
use pawl_store::Store;
use serde_json::json;

use crate::checks;
use crate::ctx::{Ctx, find_repo_root};
use crate::error::CliResult;
use crate::guard_host::{self, HostFs};
use crate::render;
use crate::runs;
use crate::session_mode;

#[derive(Debug, Args)]
pub struct HookArgs {
    /// The agent CLI calling: claude, codex or gemini.
    pub agent: String,
    /// The hook: session-start, pre-tool-use, post-tool-use, stop, pre-compact (or the CLI's own name).
    pub event: String,
}

/// Answers after this long whatever the work is doing (below the installed 30 s timeout).
const WATCHDOG_QUICK: Duration = Duration::from_secs(20);
/// PreToolUse: the guard's own bound on one decision, plus time to record a denial. The guard
/// runs on the hook's thread (a worker thread to wait for costs as much as the decision on a
/// busy machine); this watchdog is what bounds it, and it denies.
const WATCHDOG_GUARD: Duration = Duration::from_secs(pawl_guard::DECISION_DEADLINE.as_secs() + 3);
/// The most bytes of stdin a hook reads.
const MAX_INPUT: u64 = 16 * 1024 * 1024;

/// The Stop hook's watchdog: a minute below its installed timeout.
const WATCHDOG_STOP: Duration =
    Duration::from_secs(pawl_hooks::install::STOP_TIMEOUT_S.saturating_sub(60));

pub fn run(args: &HookArgs, dir: Option<&Path>) -> ExitCode {
    let (Some(agent), Some(kind)) = (Agent::parse(&args.agent), HookKind::parse(&args.event))
    else {
        // Our own typo in a settings file must not block anything.
        note(&format!(
            "pawl hook: unknown agent or event `{} {}`: allowing",
            args.agent, args.event
        ));
        answer(Agent::Codex, HookKind::PreToolUse, &Answer::Allow);
        return ExitCode::Done;
    };
    // At most MAX_INPUT bytes: a payload is a few kilobytes; a huge or endless stdin must not
    // keep the hook from answering within its budget (what is cut off fails to parse and is
    // judged as such: closed for tools, open for Stop).
    let mut text = String::new();
    let _ = std::io::stdin().take(MAX_INPUT).read_to_string(&mut text);
    let start = match dir {
        Some(d) => Some(d.to_path_buf()),
        None => std::env::current_dir().ok(),
    };
    // Where the session works: the payload's `cwd` (it follows the agent's `cd`), else where
    // this hook was started.
    let (session, cwd) = locator(&text);
    let Some(cwd) = cwd.or(start) else {
        answer(agent, kind, &Answer::Allow);
        return ExitCode::Done;
    };
    // A headless run's agent carries its run in the environment: the guard applies, and the
    // loop (not this hook) decides when the work is done.
    if let Some(run_id) = headless_run_id() {
        // A story's agent works in the story's worktree: its run is the repository's.
        let Some(root) = headless_root(&cwd, &run_id)
            .or_else(|| crate::parallel::main_root_of_worktree(&cwd))
            .or_else(|| find_repo_root(&cwd))
        else {
            let why = format!(
                "run {run_id} drives this agent, but its repository is not at or above `{}`",
                cwd.display()
            );
            answer(agent, kind, &fallback(kind, true, &why));
            return ExitCode::Done;
        };
        start_watchdog(agent, kind, &root, true);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            handle_headless(agent, &text, &root, &run_id)
        }));
        let a = match result {
            Ok(Ok(a)) => a,
            Ok(Err(Failure { message, .. })) => {
                record_error(&root, Some(&run_id), kind, &message);
                fallback(kind, true, &message)
            }
            Err(_) => {
                record_error(&root, Some(&run_id), kind, "panic in the hook handler");
                fallback(kind, true, "internal error (panic)")
            }
        };
        answer(agent, kind, &a);
        return ExitCode::Done;
    }
    // Fast path: no run bound to this session and no marker above its directory → it belongs
    // to no run. A bound session is its run's wherever it works (a nested repository, a
    // worktree, outside the root).
    let Some((root, marker)) = session_mode::locate(session.as_deref(), &cwd) else {
        answer(agent, kind, &Answer::Allow);
        return ExitCode::Done;
    };
    let active = !marker.sessions.is_empty();
    start_watchdog(agent, kind, &root, active);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handle(agent, kind, &text, &root, &marker)
    }));
    let a = match result {
        Ok(Ok(a)) => a,
        Ok(Err(Failure { run_id, message })) => {
            record_error(&root, run_id.as_deref(), kind, &message);
            fallback(kind, run_id.is_some() || active, &message)
        }
        Err(_) => {
            record_error(
                &root,
                Some(&marker.run_id),
                kind,
                "panic in the hook handler",
            );
            fallback(kind, active, "internal error (panic)")
        }
    };
    answer(agent, kind, &a);
    ExitCode::Done
}

/// The session id and working directory a hook's payload names (`None` when it names none or
/// is not JSON: the hook's own directory is used then, and the handler reports the error).
/// Only these two fields are read (the rest, a file's whole content for a Write, is skipped
/// without being built): this runs on the inert path too.
fn locator(text: &str) -> (Option<String>, Option<PathBuf>) {
    #[derive(serde::Deserialize)]
    struct Locator {
        #[serde(default)]
        session_id: Option<String>,
        #[serde(default)]
        cwd: Option<String>,
    }
    match serde_json::from_str::<Locator>(text) {
        Ok(l) => (
            l.session_id.filter(|s| !s.is_empty()),
            l.cwd.map(PathBuf::from).filter(|p| p.is_absolute()),
        ),
        Err(_) => (None, None),
    }
}

/// The repository of headless run `run_id`: the nearest directory at or above `cwd` whose
/// `.pawl/` holds the run's guard policy (a nested repository or worktree has none).
fn headless_root(cwd: &Path, run_id: &str) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|d| runs::guard_snapshot_path(&d.join(crate::ctx::STATE_DIR), run_id).is_file())
        .map(Path::to_path_buf)
}

/// An internal error, with the run it happened in when known (for the fail-closed rule).
struct Failure {
    run_id: Option<String>,
    message: String,
}

impl Failure {
    fn new(run_id: Option<&str>, e: impl std::fmt::Display) -> Failure {
        Failure {
            run_id: run_id.map(str::to_string),
            message: e.to_string(),
        }
    }
}

type HookResult<T> = Result<T, Failure>;

/// Turns any error into a [`Failure`] of a run.
trait OrFail<T> {
    fn or_fail(self, run_id: &str) -> HookResult<T>;
}

impl<T, E: std::fmt::Display> OrFail<T> for Result<T, E> {
    fn or_fail(self, run_id: &str) -> HookResult<T> {
        self.map_err(|e| Failure::new(Some(run_id), e))
    }
}

/// What pawl answers when it could not do its work.
fn fallback(kind: HookKind, run_active: bool, message: &str) -> Answer {
    match kind {
        HookKind::PreToolUse if run_active => Answer::Deny(format!(
            "pawl could not check this tool call ({message}); a pawl run is active, so it is denied (fail closed). Try another way, or the user can run `pawl off`."
        )),
        HookKind::Stop => Answer::AllowWithMessage(format!(
            "pawl: the stop hook failed ({message}); the stop is allowed. See `pawl status` and `pawl events`."
        )),
        _ => Answer::Allow,
    }
}

/// Prints the answer once (the watchdog and the handler race for it).
fn answer(agent: Agent, kind: HookKind, a: &Answer) {
    if !pawl_process::deadline::claim() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(a.render(agent, kind).as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

fn note(s: &str) {
    let _ = writeln!(std::io::stderr(), "{s}");
}

/// Bounds the hook: past its watchdog's time it answers the fallback (a denial on PreToolUse
/// while a run is active), logs it, and exits. On Unix an alarm (`pawl_process::deadline`: a
/// thread left alive would cost milliseconds at exit on a busy machine), else a thread.
fn start_watchdog(agent: Agent, kind: HookKind, root: &Path, active: bool) {
    let wait = match kind {
        HookKind::Stop => WATCHDOG_STOP,
        HookKind::PreToolUse => WATCHDOG_GUARD,
        _ => WATCHDOG_QUICK,
    };
    let message = format!("pawl hook timed out after {}s", wait.as_secs());
    let rendered = format!("{}\n", fallback(kind, active, &message).render(agent, kind));
    let log = hooks_log(root);
    // Stamped with the time the deadline falls: the handler cannot read the clock and format.
    let at = jiff::Timestamp::now()
        .checked_add(jiff::SignedDuration::try_from(wait).unwrap_or_default())
        .unwrap_or_else(|_| jiff::Timestamp::now());
    let line = format!("{at} {kind}: {message}\n");
    if pawl_process::deadline::arm(wait, rendered.into_bytes(), Some((&log, line.into_bytes()))) {
        return;
    }
    let root = root.to_path_buf();
    std::thread::spawn(move || {
        std::thread::sleep(wait);
        let message = format!("pawl hook timed out after {}s", wait.as_secs());
        log_line(&root, &format!("{kind}: {message}"));
        answer(agent, kind, &fallback(kind, active, &message));
        std::process::exit(0);
    });
}

/// Records an internal error: as an event when the store opens, else in `.pawl/logs/hooks.log`.
fn record_error(root: &Path, run_id: Option<&str>, kind: HookKind, message: &str) {
    // Keyed like every other write: an unsigned event would read as forged.
    let stored = open_store(root).and_then(|mut s| {
        Ok(s.append_event(
            run_id,
            EventKind::HookError,
            json!({"hook": kind.as_arg(), "error": message}),
        )?)
    });
    if stored.is_err() {
        if to_mailbox(root) {
            let _ = crate::sandbox::mail_event(
                root,
                EventKind::HookError,
                json!({"hook": kind.as_arg(), "error": message}),
            );
        } else {
            log_line(root, &format!("{kind}: {message}"));
        }
    }
    note(&format!("pawl hook {kind}: {message}"));
}

/// `.pawl/logs/hooks.log`: what a hook could not record in the store.
fn hooks_log(root: &Path) -> PathBuf {
    root.join(crate::ctx::STATE_DIR)
        .join("logs")
        .join("hooks.log")
}

fn log_line(root: &Path, line: &str) {
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(hooks_log(root))
    {
        let _ = writeln!(f, "{} {line}", jiff::Timestamp::now());
    }
}

fn handle(
    agent: Agent,
    kind: HookKind,
    text: &str,
    root: &Path,
    marker: &Marker,
) -> HookResult<Answer> {
    let input = match input::parse(agent, text) {
        Ok(i) => i,
        Err(e) => {
            let bound = !marker.sessions.is_empty();
            return Err(Failure::new(bound.then_some(marker.run_id.as_str()), e));
        }
    };
    if HookKind::parse(event_name(&input.event)).is_some_and(|k| k != kind) {
        note(&format!(
            "pawl hook: installed as {kind} but received {}",
            event_name(&input.event)
        ));
    }
    let now = jiff::Timestamp::now().as_millisecond();
    let route = marker.route(
        agent.as_str(),
        input.session_id.as_deref(),
        matches!(input.event, Event::SessionStart { .. }),
        now,
    );
    match route {
        Route::Untouched => Ok(Answer::Allow),
        Route::Expire { run_id } => {
            expire(root, &run_id).or_fail(&run_id)?;
            Ok(Answer::Allow)
        }
        Route::Bind { run_id } => bind(agent, root, &run_id, &input),
        Route::Bound { run_id } => bound(agent, root, &run_id, &input),
    }
}

/// The run of the headless driver that started this agent (`PAWL_DRIVER=headless`,
/// `PAWL_RUN_ID=<run>` in the agent's environment).
fn headless_run_id() -> Option<String> {
    if std::env::var("PAWL_DRIVER").ok().as_deref() != Some("headless") {
        return None;
    }
    std::env::var("PAWL_RUN_ID")
        .ok()
        .filter(|r| !r.trim().is_empty())
}

/// The story a headless run's agent works on (`PAWL_STORY=<id>` beside `PAWL_RUN_ID`), as given:
/// an id that is not a story's is refused by the guard (fail closed).
fn headless_story() -> Option<String> {
    std::env::var("PAWL_STORY").ok().filter(|s| !s.is_empty())
}

/// Hooks of a headless run: only the guard answers; everything else is the loop's business.
fn handle_headless(agent: Agent, text: &str, root: &Path, run_id: &str) -> HookResult<Answer> {
    let input = input::parse(agent, text).map_err(|e| Failure::new(Some(run_id), e))?;
    match &input.event {
        Event::PreToolUse(call) => guard(root, run_id, headless_story().as_deref(), &input, call),
        _ => Ok(Answer::Allow),
    }
}

fn event_name(e: &Event) -> &str {
    match e {
        Event::SessionStart { .. } => "session-start",
        Event::PreToolUse(_) => "pre-tool-use",
        Event::PostToolUse(_) => "post-tool-use",
        Event::Stop { .. } => "stop",
        Event::PreCompact { .. } => "pre-compact",
        Event::Unknown { name } => name,
    }
}

/// The clone's own store. A clone whose runs are kept in a store elsewhere (a fleet's, `[store]
/// url`) has none, and none is made here: what the hook records goes to the step's mailbox
/// ([`to_mailbox`]).
fn open_store(root: &Path) -> CliResult<Store> {
    let path = root.join(crate::ctx::STATE_DIR).join("pawl.db");
    if !path.is_file() {
        return Err(crate::error::CliError::Failed(format!(
            "no store in {}: this clone's runs are kept in a store elsewhere ([store] url)",
            path.display()
        )));
    }
    crate::state::open_store(&path)
}

/// Whether an event the hook could not write into the store goes to the step's mailbox, which
/// the driver delivers into the run's store after the step: inside a sandboxed step (the store
/// is read-only there), or in a clone with no store of its own (its runs are in a store
/// elsewhere, which the hook does not open — with the sandbox off too).
fn to_mailbox(root: &Path) -> bool {
    !root.join(crate::ctx::STATE_DIR).join("pawl.db").is_file() || crate::sandbox::inside_step(root)
}

/// Nobody took the armed run in time: it stops (resumable) and session mode ends.
fn expire(root: &Path, run_id: &str) -> CliResult {
    let mut store = open_store(root)?;
    let fresh = store
        .arming(run_id)?
        .is_some_and(|a| a.ended_at.is_none() && store.now_ms() < a.expires_at);
    if fresh || !store.session_bindings(run_id)?.is_empty() {
        // Re-armed or taken meanwhile: the marker was stale, not the run.
        if let Some(a) = store.arming(run_id)? {
            session_mode::write_marker(root, &store, &a)?;
        }
        return Ok(());
    }
    store.append_event(
        Some(run_id),
        EventKind::SessionArmingExpired,
        json!({"stale_guard_ms": session_mode::STALE_GUARD_MS}),
    )?;
    if store.run(run_id)?.status == RunStatus::Active {
        store.set_run_status(run_id, RunStatus::Stopped, Some(StopReason::Stopped))?;
    }
    session_mode::end_session_mode(
        root,
        &mut store,
        run_id,
        "expired: no session took the armed run",
    )
}

/// A starting session claims the armed run.
fn bind(agent: Agent, root: &Path, run_id: &str, input: &HookInput) -> HookResult<Answer> {
    let mut store = open_store(root).or_fail(run_id)?;
    let run = store.run(run_id).or_fail(run_id)?;
    if run.status != RunStatus::Active {
        session_mode::remove_marker(root, run_id).or_fail(run_id)?;
        return Ok(Answer::Allow);
    }
    let Some(session_id) = input.session_id.as_deref() else {
        return Ok(Answer::Allow);
    };
    let source = match &input.event {
        Event::SessionStart { source } => source.as_str(),
        _ => "unknown",
    };
    store
        .bind_agent_session(run_id, session_id, agent.as_str(), source)
        .or_fail(run_id)?;
    if matches!(input.event, Event::SessionStart { .. }) {
        baseline_transcript(&mut store, agent, input);
    }
    if let Some(a) = store.arming(run_id).or_fail(run_id)? {
        session_mode::write_marker(root, &store, &a).or_fail(run_id)?;
    }
    Ok(Answer::Context(
        session_context(&store, &run, false).or_fail(run_id)?,
    ))
}

fn bound(agent: Agent, root: &Path, run_id: &str, input: &HookInput) -> HookResult<Answer> {
    match &input.event {
        Event::PreToolUse(call) => guard(root, run_id, None, input, call),
        Event::Unknown { .. } => Ok(Answer::Allow),
        Event::SessionStart { source } => {
            let mut store = open_store(root).or_fail(run_id)?;
            let run = active_run(&mut store, root, run_id).or_fail(run_id)?;
            let Some(run) = run else {
                return Ok(Answer::Allow);
            };
            if let Some(s) = input.session_id.as_deref() {
                store
                    .bind_agent_session(run_id, s, agent.as_str(), source)
                    .or_fail(run_id)?;
                session_mode::index_session(s, root);
                // A compaction continues the same transcript: nothing to set aside.
                if source != "compact" {
                    baseline_transcript(&mut store, agent, input);
                }
            }
            Ok(Answer::Context(
                session_context(&store, &run, source == "compact").or_fail(run_id)?,
            ))
        }
        Event::PostToolUse(call) => {
            let mut store = open_store(root).or_fail(run_id)?;
            if active_run(&mut store, root, run_id)
                .or_fail(run_id)?
                .is_none()
            {
                return Ok(Answer::Allow);
            }
            if let Some(s) = input.session_id.as_deref() {
                store.touch_session(s).or_fail(run_id)?;
            }
            // Counted for the long-session limit (`pawl_core::long_session`).
            store
                .append_event(
                    Some(run_id),
                    EventKind::ToolCall,
                    json!({"session": input.session_id, "tool": call.tool()}),
                )
                .or_fail(run_id)?;
            if let Some(lease) = store.lease(run_id).or_fail(run_id)? {
                let _ = store.heartbeat(run_id, &lease.token, session_mode::SESSION_LEASE_TTL_MS);
            }
            let cwd = input_cwd(root, input);
            for p in call.written_paths() {
                store
                    .record_session_edit(run_id, &relative(root, &cwd, p))
                    .or_fail(run_id)?;
            }
            Ok(Answer::Allow)
        }
        Event::PreCompact { trigger } => {
            let mut store = open_store(root).or_fail(run_id)?;
            let Some(run) = active_run(&mut store, root, run_id).or_fail(run_id)? else {
                return Ok(Answer::Allow);
            };
            let text = snapshot(&store, &run).or_fail(run_id)?;
            store
                .append_event(
                    Some(run_id),
                    EventKind::PrecompactSnapshot,
                    json!({"trigger": trigger, "session": input.session_id, "text": text}),
                )
                .or_fail(run_id)?;
            Ok(Answer::Allow)
        }
        Event::Stop { last_message, .. } => {
            stop(agent, root, run_id, input, last_message.as_deref())
        }
    }
}

/// The run when it is still active; otherwise the marker is stale and goes — unless the run's
/// state was modified outside pawl ([`Bound::Tampered`]): then the marker stays, and with it the
/// guard (fail closed: a status forged to `done` must not switch the guard off).
fn active_run(store: &mut Store, root: &Path, run_id: &str) -> CliResult<Option<Run>> {
    match bound_run(store, root, run_id)? {
        Bound::Active(run) => Ok(Some(*run)),
        Bound::Ended | Bound::Tampered(_) => Ok(None),
    }
}

/// What the hooks make of the run a session is bound to.
enum Bound {
    Active(Box<Run>),
    /// Ended (or session mode ended): the marker was removed.
    Ended,
    /// Its state was modified outside pawl: `Some` when that was just found (the run is not yet
    /// marked), `None` when the run already stopped `tampered`. The marker stays.
    Tampered(Option<pawl_store::Tampering>),
}

fn bound_run(store: &mut Store, root: &Path, run_id: &str) -> CliResult<Bound> {
    let run = match store.run(run_id) {
        Ok(run) => run,
        Err(pawl_store::StoreError::Tampered(t)) => return Ok(Bound::Tampered(Some(t))),
        Err(e) => return Err(e.into()),
    };
    if run.stop_reason == Some(StopReason::Tampered) && !run.status.is_terminal() {
        return Ok(Bound::Tampered(None));
    }
    let armed = match store.arming(run_id) {
        Ok(a) => a.is_some_and(|a| a.ended_at.is_none()),
        Err(pawl_store::StoreError::Tampered(t)) => return Ok(Bound::Tampered(Some(t))),
        Err(e) => return Err(e.into()),
    };
    if run.status == RunStatus::Active && armed {
        return Ok(Bound::Active(Box::new(run)));
    }
    session_mode::remove_marker(root, run_id)?;
    Ok(Bound::Ended)
}

fn input_cwd(root: &Path, input: &HookInput) -> PathBuf {
    input
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| root.to_path_buf())
}

/// A path as the store keeps it: relative to the repository root when inside it.
fn relative(root: &Path, cwd: &Path, p: &str) -> String {
    let abs = cwd.join(p);
    abs.strip_prefix(root)
        .map(|r| r.display().to_string())
        .unwrap_or_else(|_| abs.display().to_string())
}

// ---------------------------------------------------------------- PreToolUse: the guard

/// "Is this path tracked?", answered on the first question only (most commands never ask) from
/// the index read in-process: no git process on the hot path.
struct LazyTracked {
    root: PathBuf,
    set: OnceLock<Option<TrackedSet>>,
}

impl LazyTracked {
    fn get(&self) -> Option<&TrackedSet> {
        self.set
            .get_or_init(|| guard_host::tracked_set(&self.root))
            .as_ref()
    }
}

/// The repository's git aliases, asked of git (at a system path) only when the guard meets a
/// git subcommand that is not git's own.
struct LazyAliases {
    root: PathBuf,
    map: OnceLock<std::collections::BTreeMap<String, String>>,
}

impl pawl_guard::GitAliases for LazyAliases {
    fn alias(&self, name: &str) -> Option<String> {
        self.map
            .get_or_init(|| {
                guard_host::open_repo(&self.root)
                    .and_then(|repo| repo.config_aliases())
                    .unwrap_or_default()
            })
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }
}

impl TrackedFiles for LazyTracked {
    fn is_tracked(&self, path: &str) -> bool {
        // Unknown (git failed): cautious, as if tracked.
        self.get().is_none_or(|s| s.is_tracked(path))
    }

    fn has_tracked_under(&self, dir: &str) -> bool {
        self.get().is_none_or(|s| s.has_tracked_under(dir))
    }

    fn count_tracked_in(
        &self,
        dir: &str,
        matches: &dyn Fn(&str) -> bool,
        limit: usize,
    ) -> Option<usize> {
        self.get()
            .and_then(|s| s.count_tracked_in(dir, matches, limit))
    }

    fn any_tracked_matching(
        &self,
        dir_matches: &dyn Fn(&str) -> bool,
        file_matches: &dyn Fn(&str) -> bool,
    ) -> Option<bool> {
        self.get()
            .and_then(|s| s.any_tracked_matching(dir_matches, file_matches))
    }

    fn holds_gitlink_under(&self, dir: &str) -> Option<bool> {
        self.get().and_then(|s| s.holds_gitlink_under(dir))
    }
}

/// The PreToolUse guard of run `run_id` of the repository at `root`. A command run in a linked
/// worktree of the repository — always, for a story's agent (`story`): its own worktree — is
/// judged with that worktree as the repository, and the repository left alone
/// ([`guard_host::worktree_for`], [`guard_host::confine`]).
fn guard(
    root: &Path,
    run_id: &str,
    story: Option<&str>,
    input: &HookInput,
    call: &ToolCall,
) -> HookResult<Answer> {
    if let ToolCall::Unreadable { tool, why } = call {
        return Ok(Answer::Deny(format!(
            "pawl guard: {tool}: {why}; a pawl run is active, so it is denied"
        )));
    }
    let inputs = call.guard_inputs();
    if inputs.is_empty() {
        return Ok(Answer::Allow);
    }
    // The run's own policy, fixed when it started: editing pawl.toml during the run changes
    // nothing for it. Runs stored before pawl kept it fall back to the configuration.
    // The file beside the store is read first (no database to open on the hot path).
    // The snapshot also names the pawl binaries the installed hooks run (protected with this
    // one, which the hooks just ran). Its code must verify: a policy loosened in the file is not
    // used (the store's copy is, and a run whose row was changed outside pawl fails here: the
    // call is denied, fail closed).
    let snapshot = match runs::read_guard_snapshot(&root.join(crate::ctx::STATE_DIR), run_id) {
        Some(g) => Some(g),
        // Without the key the store's copy cannot be checked either: denied (fail closed).
        None => open_store(root)
            .and_then(|store| {
                if store.is_read_only() {
                    return Err(pawl_store::StoreError::ReadOnly {
                        path: root.join(crate::ctx::STATE_DIR).join("pawl.db"),
                    }
                    .into());
                }
                let settings = store.run(run_id)?.settings;
                let context = guard_host::SealedContext::of(&settings);
                Ok(settings.guard.map(|guard| (guard, context)))
            })
            .or_fail(run_id)?
            .map(|(guard, context)| runs::GuardSnapshot {
                guard,
                pawl_binaries: Vec::new(),
                context,
            }),
    };
    let snapshot = match snapshot {
        Some(g) => g,
        None => {
            let config = Ctx::at(root.to_path_buf())
                .config(&[])
                .or_fail(run_id)?
                .config;
            runs::GuardSnapshot {
                context: guard_host::SealedContext::of_config(&config),
                guard: config.guard,
                pawl_binaries: Vec::new(),
            }
        }
    };
    let host = guard_host::Host::current(&snapshot.pawl_binaries);
    let mut policy = guard_host::policy(&snapshot.guard, &host);
    let cwd = input_cwd(root, input);
    if let Some(id) = story
        && !pawl_core::parallel::is_story_id(id)
    {
        return Err(Failure::new(
            Some(run_id),
            format!("PAWL_STORY={id:?} names no story"),
        ));
    }
    let worktree =
        guard_host::worktree_for(root, &cwd, story.map(|id| (run_id, id))).or_fail(run_id)?;
    // The repository the command is judged in: the run's, or the worktree it works in.
    let tree = match &worktree {
        Some(w) => {
            guard_host::confine(&mut policy, root, w).or_fail(run_id)?;
            w.root.clone()
        }
        None => {
            guard_host::keep_out_of_worktrees(&mut policy);
            root.to_path_buf()
        }
    };
    let mut g = pawl_guard::Context::new(cwd.clone());
    g.repo_root = Some(tree.clone());
    g.run_active = true;
    g.tracked = Arc::new(LazyTracked {
        root: tree.clone(),
        set: OnceLock::new(),
    });
    g.home = std::env::var_os("HOME").map(Into::into);
    g.tmpdir = std::env::var_os("TMPDIR").map(Into::into);
    g.env = Arc::new(guard_host::shell_env());
    g.fs = Arc::new(HostFs::at(&tree));
    g.scripts = Arc::new(HostFs::default());
    snapshot.context.apply(&mut g);
    // The branch and git aliases matter only to git commands: skip two git calls otherwise.
    // Quotes and escapes removed first (`g''it`, `g\it`), and any ANSI-C string (`$'\x67it'`)
    // counts: a git command the guard sees without its branch would be denied for want of it.
    let mentions_git = matches!(call, ToolCall::Shell { command, .. }
        if command.replace(['\'', '"', '\\'], "").to_ascii_lowercase().contains("git")
            || command.contains("$'"));
    if mentions_git {
        // The branch where the command runs (a worktree under the root has its own), read
        // from HEAD itself; aliases through git at a system path, never the agent's PATH, and
        // only when a subcommand is not git's own.
        g.branch = guard_host::branch_at(&tree, &cwd).or_fail(run_id)?;
        g.more_git_aliases = Arc::new(LazyAliases {
            root: root.to_path_buf(),
            map: OnceLock::new(),
        });
    }
    // Compiled once for every input of the call; on the hook's own thread (see
    // WATCHDOG_GUARD). An invalid policy is judged by `evaluate`, which denies everything.
    let compiled = pawl_guard::Guard::new(&policy);
    let decide = |i: &pawl_guard::Input, g: &pawl_guard::Context| match &compiled {
        Ok(guard) => guard.evaluate(i, g),
        Err(_) => pawl_guard::evaluate(i, g, &policy),
    };
    for i in &inputs {
        let mut d = decide(i, &g);
        if d.is_deny() {
            // The run's own branch, for the denials that send the agent back to it: read from
            // the store only now (a denial opens it anyway), and the call judged again for the
            // message. Only a message depends on it: a store that cannot be read leaves the
            // message general, not the decision open.
            if mentions_git
                && let Some(branch) = open_store(root)
                    .ok()
                    .and_then(|store| store.run(run_id).ok())
                    .and_then(|run| run.branch)
            {
                g.run_branch = Some(branch);
                let again = decide(i, &g);
                if again.is_deny() {
                    d = again;
                }
            }
            let rule = d.rule.map(|r| r.as_str()).unwrap_or("deny");
            let reason = format!("pawl guard [{rule}]: {}", d.reason);
            let data = json!({"tool": call.tool(), "input": i, "rule": rule, "reason": d.reason,
                              "session": input.session_id});
            // The same call denied again in a row in this session is reported to the user
            // once (the agent is still told each time).
            let stored = open_store(root).and_then(|mut store| {
                let last = store.last_event(run_id, EventKind::GuardDenied)?;
                if !guard_host::repeats_denial(last.as_ref().map(|e| &e.data), &data) {
                    store.append_event(Some(run_id), EventKind::GuardDenied, data.clone())?;
                }
                Ok(())
            });
            // Inside a sandboxed step, or in a clone whose runs are in a store elsewhere: pawl
            // takes the denial in from the step's mailbox when the step ends.
            if stored.is_err() && to_mailbox(root) {
                let _ = crate::sandbox::mail_event(root, EventKind::GuardDenied, data);
            }
            return Ok(Answer::Deny(reason));
        }
    }
    Ok(Answer::Allow)
}

// ---------------------------------------------------------------- SessionStart / PreCompact

fn session_context(store: &Store, run: &Run, after_compact: bool) -> CliResult<String> {
    let rc = store.resume_context(&run.id)?;
    let spent = store.spent(&run.id)?;
    let l = &run.settings.limits;
    let mut out = format!(
        "pawl is driving this session: run {} (in-session driver). pawl runs the project's checks itself each time you stop; \
         the turn ends only when they all pass on the current tree, or when a limit is reached. Saying \"done\" changes nothing. \
         Report through pawl's CLI when useful (`pawl story start|done`, `pawl note \"<decision>\"`, `pawl blocker add \"<what>\"`).\n\
         Budget used: {}/{} iterations, {} of {} active time.\n\n",
        run.id,
        spent.iterations,
        l.max_iterations,
        session_turn::human_ms(spent.active_ms),
        l.max_time,
    );
    out.push_str(&render::resume_markdown(&rc));
    if after_compact
        && let Some(snap) = store.last_event(&run.id, EventKind::PrecompactSnapshot)?
        && let Some(t) = snap.data.get("text").and_then(|t| t.as_str())
    {
        out.push_str("\n\n## Saved before the compaction\n");
        out.push_str(t);
    }
    Ok(out)
}

/// What a compaction must not lose: progress, the last verification, files changed, errors.
fn snapshot(store: &Store, run: &Run) -> CliResult<String> {
    let spent = store.spent(&run.id)?;
    let iterations = store.iterations(&run.id)?;
    let mut out = format!(
        "Progress: {} iteration(s) of {}, {} active.\n",
        spent.iterations,
        run.settings.limits.max_iterations,
        session_turn::human_ms(spent.active_ms)
    );
    if let Some(last) = iterations.iter().rev().find(|i| i.summary.is_some()) {
        out.push_str(&format!(
            "Last verification (iteration {}): {}\n",
            last.n,
            last.summary.as_deref().unwrap_or("")
        ));
    }
    let files: std::collections::BTreeSet<&String> =
        iterations.iter().flat_map(|i| i.files.iter()).collect();
    if !files.is_empty() {
        let shown: Vec<&str> = files.iter().take(30).map(|s| s.as_str()).collect();
        out.push_str(&format!("Files edited so far: {}\n", shown.join(", ")));
    }
    let errors: Vec<String> = store
        .events_after(Some(&run.id), 0, usize::MAX)?
        .into_iter()
        .filter(|e| e.is(EventKind::HookError) || e.is(EventKind::GuardDenied))
        .rev()
        .take(5)
        .map(|e| format!("- {}: {}", e.kind, e.data))
        .collect();
    if !errors.is_empty() {
        out.push_str("Recent errors and denials:\n");
        out.push_str(&errors.join("\n"));
        out.push('\n');
    }
    Ok(out)
}

// ---------------------------------------------------------------- Stop: the engine's turn

/// A Stop: the in-session driver's turn is the engine's (verify, charge, conclude, decide); the
/// hook reads its input, calls it, and answers — ending session mode when the run ends.
fn stop(
    agent: Agent,
    root: &Path,
    run_id: &str,
    input: &HookInput,
    last_message: Option<&str>,
) -> HookResult<Answer> {
    // The tree stamp's `lstat`s are most of a cached answer's cost: they start now, while the
    // store is opened and checked for tampering (their answer counts only as it did before).
    let tree_check = session_turn::TreeCheck::start(root, &root.join(crate::ctx::STATE_DIR));
    let mut store = open_store(root).or_fail(run_id)?;
    let run = match bound_run(&mut store, root, run_id).or_fail(run_id)? {
        Bound::Active(run) => run,
        Bound::Ended => return Ok(Answer::Allow),
        Bound::Tampered(found) => return tampered(root, &mut store, run_id, found.as_ref()),
    };
    let Some(arming) = store.arming(run_id).or_fail(run_id)? else {
        return Ok(Answer::Allow);
    };
    let ctx = Ctx::at(root.to_path_buf());
    // A sealed run verifies with its seal: pawl.toml (which the agent can edit) is not read.
    let gates = if run.settings.seal.is_some() {
        Vec::new()
    } else {
        checks::configured_gates(&ctx).or_fail(run_id)?
    };
    // The long-session limits are a request to wrap up, not a stop: a broken pawl.toml takes
    // the defaults.
    let pipeline = ctx
        .config(&[])
        .map(|e| e.config.pipeline)
        .unwrap_or_default();
    let stop_input = session_turn::StopInput {
        long_session: pawl_core::long_session::Limits {
            compactions: pipeline.session_compactions,
            tool_calls: pipeline.session_tool_calls,
        },
        session_id: input.session_id.as_deref(),
        transcript: transcript(agent, input),
        last_message,
        tree_check: Some(&tree_check),
    };
    // What a cached answer needs of the workspace is cheap; the rest (a sandbox probe, the
    // project's coverage minimums, the room's network setting) only when checks must run.
    let bare = checks::workspace_bare(&ctx);
    let answer = session_turn::stop_turn(
        &mut store,
        &bare,
        &|| checks::workspace(&ctx),
        &run,
        &arming,
        gates,
        &stop_input,
    );
    let answer = match answer {
        Ok(session_turn::StopAnswer::Continue(text)) => Ok(Answer::Block(text)),
        Ok(session_turn::StopAnswer::End {
            reason: StopReason::Tampered,
            ..
        }) => tampered(root, &mut store, run_id, None),
        Ok(session_turn::StopAnswer::End { reason, summary }) => {
            end(root, &mut store, run_id, reason, summary.as_deref())
        }
        // Found in the middle of the turn (a write that would have signed over a forged row), or
        // behind another error (a row the turn needed was removed).
        Err(e) if e.tampering().is_some() => tampered(root, &mut store, run_id, e.tampering()),
        Err(e) => match store.tampering(run_id) {
            Ok(Some(t)) => tampered(root, &mut store, run_id, Some(&t)),
            _ => Err(Failure::new(Some(run_id), e)),
        },
    };
    // Everything is committed (SQLite's WAL, no checkpoint on close) and the process exits once
    // it has answered: closing the connection would only free its page cache and statements,
    // work the agent would wait for.
    std::mem::forget(store);
    answer
}

/// A Stop of a session whose run's state was modified outside pawl. The run stops `tampered`
/// (marked now when `found` is new) and its report says what was modified; the stop is allowed
/// — never as done, nothing was verified — and session mode stays on: the guard keeps guarding
/// this session until the user runs `pawl off` (a forged status must not switch it off, and
/// blocking the stop would trap the session in a loop nothing can end).
fn tampered(
    root: &Path,
    store: &mut Store,
    run_id: &str,
    found: Option<&pawl_store::Tampering>,
) -> HookResult<Answer> {
    if let Some(t) = found {
        store.mark_tampered(t).or_fail(run_id)?;
    }
    let report = pawl_engine::report::build(store, run_id, root).or_fail(run_id)?;
    let path =
        pawl_engine::report::write(&report, &root.join(crate::ctx::STATE_DIR).join("reports"))
            .or_fail(run_id)?;
    let what: Vec<String> = report
        .tampering
        .iter()
        .take(5)
        .map(ToString::to_string)
        .collect();
    Ok(Answer::AllowWithMessage(format!(
        "pawl run {run_id} stopped: tampered (exit code {}) — its state was modified outside pawl ({}); nothing was verified as done. The guard stays on for this session until the user runs `pawl off`. · report: {}",
        StopReason::Tampered.exit_code().code(),
        what.join("; "),
        path.strip_prefix(root).unwrap_or(&path).display()
    )))
}

/// The session's transcript, when pawl reads the agent's format (Gemini CLI's session files are
/// not read yet: its turns are not charged).
fn transcript(agent: Agent, input: &HookInput) -> Option<(pawl_agent::transcript::Format, &Path)> {
    let format = match agent {
        Agent::Claude => pawl_agent::transcript::Format::Claude,
        Agent::Codex => pawl_agent::transcript::Format::Codex,
        Agent::Gemini => return None,
    };
    let path = input.transcript_path.as_deref().filter(|p| !p.is_empty())?;
    Some((format, Path::new(path)))
}

/// A session bound at its start: what its transcript already holds is not charged to the run.
fn baseline_transcript(store: &mut Store, agent: Agent, input: &HookInput) {
    if let (Some(session), Some((format, path))) =
        (input.session_id.as_deref(), transcript(agent, input))
    {
        session_turn::baseline_transcript(store, session, format, path);
    }
}

/// The run ends here: the stop is allowed and says why.
fn end(
    root: &Path,
    store: &mut Store,
    run_id: &str,
    reason: StopReason,
    summary: Option<&str>,
) -> HookResult<Answer> {
    let path = session_mode::finish_run(root, store, run_id, reason).or_fail(run_id)?;
    // What the run taught goes into the repository's lessons, as after a headless run. A
    // lesson that cannot be written never holds the stop.
    if reason != StopReason::AwaitingUser
        && let Ok(run) = store.run(run_id)
    {
        let ctx = Ctx::at(root.to_path_buf());
        let _ = crate::knowledge::learn(&ctx, store, &run, reason == StopReason::Verified);
    }
    let verdict = pawl_engine::report::verdict_of(store, run_id)
        .map(|(v, _)| v)
        .unwrap_or(pawl_core::Verdict::Research);
    let code = pawl_core::run_exit_code(reason, verdict);
    let what = if code == pawl_core::ExitCode::Done {
        "done, verified by pawl".to_string()
    } else if reason == StopReason::Verified {
        format!(
            "checks verified, verdict {verdict} (exit code {})",
            code.code()
        )
    } else {
        format!("stopped: {reason} (exit code {})", code.code())
    };
    Ok(Answer::AllowWithMessage(format!(
        "pawl run {run_id} {what}{} · report: {path}",
        summary.map(|s| format!(" · {s}")).unwrap_or_default()
    )))
}
