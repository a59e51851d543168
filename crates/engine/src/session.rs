//! The in-session driver's turn: an interactive agent session stopped, and its Stop hook asks
//! pawl what comes next. This is the same turn as the headless loop's ([`crate::turn`]): pawl
//! verifies the tree (reusing the last verification when nothing changed), charges the turn's
//! tokens and dollars read from the agent's own transcript, records the iteration, and decides —
//! end the run (done or a typed stop) or block the stop with the continuation prompt.
//!
//! What this module is not: the hook protocol, the watchdog and fail-open/fail-closed (the CLI's
//! `pawl hook`), nor ending session mode (markers and settings files: the CLI).

use std::path::Path;
use std::time::Duration;

use pawl_agent::transcript::{self, Format};
use pawl_core::EventKind;
use pawl_core::StopReason;
use pawl_core::judge::IterationFacts;
use pawl_core::record::{IterationEnd, Run};
use pawl_core::turn::Next;
use pawl_store::{Arming, Store};
use pawl_verify::gate::Check;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::EngineError;
use crate::turn::{self, Did, NextPrompt, Signals, Window};
use crate::verify::{GateVerifier, Verifier, VerifyError, VerifyReport, Workspace, criteria_state};

/// How long one sign of life from a bound session keeps the run's lease.
pub const SESSION_LEASE_TTL_MS: i64 = 30 * 60 * 1000;
/// Longest wait for Claude Code to write the turn's last message to its transcript
/// (anthropics/claude-code#15812; seen here: 16–80 ms after the Stop hook started). A message
/// still missing then is charged at the next Stop.
const TRANSCRIPT_FLUSH_WAIT: Duration = Duration::from_millis(750);

/// What the Stop hook read from its input.
#[derive(Debug, Clone, Copy, Default)]
pub struct StopInput<'a> {
    pub session_id: Option<&'a str>,
    /// The session's transcript, when pawl can read the agent's format.
    pub transcript: Option<(Format, &'a Path)>,
    /// The agent's last message (its claim).
    pub last_message: Option<&'a str>,
    /// The workflow's limits of a long session: past them the agent is asked to wrap up.
    pub long_session: pawl_core::long_session::Limits,
    /// The tree stamp's check, started at the beginning of the Stop ([`TreeCheck::start`]).
    pub tree_check: Option<&'a TreeCheck>,
}

/// The tree stamp's check (see [`verify_for_stop`]): the stamp read, its digest taken and every
/// file and directory it covers compared with what it recorded, on threads of its own, started
/// first thing in a Stop so that it runs while the store is opened and checked for tampering.
/// Its answer counts only as [`current_tree`] would have counted it: when the digest it took is
/// the one the last verification's signed event names (the bytes it compared are the bytes it
/// hashed), for the workspace it was started for. No git process: a repository that git must
/// open gives no answer (and nothing the stamp could answer for), and the Stop asks as before.
pub struct TreeCheck {
    root: std::path::PathBuf,
    stamp: std::path::PathBuf,
    answer: std::sync::mpsc::Receiver<Option<Checked>>,
}

/// What a [`TreeCheck`] found: the stamp's digest, and the tree hash it recorded when nothing it
/// covers moved (with the stamp taken again when only the real index's stat data moved).
struct Checked {
    digest: String,
    tree: Option<(String, Option<Vec<u8>>)>,
    /// The stamp read: where the next hash starts when the tree changed (empty when nothing
    /// moved: then it is not needed).
    stamp: Vec<u8>,
}

impl std::fmt::Debug for TreeCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeCheck")
            .field("root", &self.root)
            .field("stamp", &self.stamp)
            .finish_non_exhaustive()
    }
}

impl TreeCheck {
    /// Starts checking the stamp of the tree at `root` kept in `state_dir` (pawl's state).
    pub fn start(root: &Path, state_dir: &Path) -> TreeCheck {
        let stamp = stamp_path(state_dir);
        let (tx, answer) = std::sync::mpsc::channel();
        let (r, p) = (root.to_path_buf(), stamp.clone());
        // When no thread can be made, nothing answers (the sender is gone): the Stop asks as
        // it did without.
        let _ = std::thread::Builder::new()
            .name("tree-stamp".into())
            .spawn(move || {
                let (checked, spare) = check_stamp(&r, &p);
                let _ = tx.send(checked);
                // Freed here, not on the thread that answers the hook (a large buffer is
                // unmapped: a system call, and every other thread's mapping flushed).
                drop(spare);
            });
        TreeCheck {
            root: root.to_path_buf(),
            stamp,
            answer,
        }
    }

    /// The answer, waiting for it; `None` when it was started for another workspace or could
    /// not check.
    fn take(&self, ws: &Workspace) -> Option<Checked> {
        if self.root != ws.root || self.stamp != stamp_path(&ws.state_dir) {
            return None;
        }
        self.answer.recv().ok().flatten()
    }
}

fn stamp_path(state_dir: &Path) -> std::path::PathBuf {
    state_dir.join("cache").join("tree-stamp")
}

/// The stamp's digest and, when nothing it covers moved, its tree hash; the digest taken while
/// the files are compared. The stamp itself is kept only when something moved (the next hash
/// starts from it); otherwise it comes back as the second value, for the caller to free.
fn check_stamp(root: &Path, stamp: &Path) -> (Option<Checked>, Vec<u8>) {
    let Ok(bytes) = std::fs::read(stamp) else {
        return (None, Vec::new());
    };
    let Some(repo) = pawl_git::Repo::open_in_process(root) else {
        return (None, bytes);
    };
    let (digest, tree) = std::thread::scope(|s| {
        let digest = s.spawn(|| format!("{:x}", Sha256::digest(&bytes)));
        let tree = repo.tree_hash_unchanged_refreshed(&bytes);
        (digest.join(), tree)
    });
    let Ok(digest) = digest else {
        return (None, bytes);
    };
    let (stamp, spare) = if tree.is_some() {
        (Vec::new(), bytes)
    } else {
        (bytes, Vec::new())
    };
    (
        Some(Checked {
            digest,
            tree: tree.map(|(t, fresh)| (t.to_string(), fresh)),
            stamp,
        }),
        spare,
    )
}

/// What the hook answers.
#[derive(Debug, Clone, PartialEq)]
pub enum StopAnswer {
    /// The run ends here with `reason`; the caller ends session mode and writes the report.
    End {
        reason: StopReason,
        summary: Option<String>,
    },
    /// Not done and nothing tripped: the stop is blocked, this is the next step.
    Continue(String),
}

/// One Stop: the turn of the in-session driver. `gates` are the checks pawl runs (with the run's
/// command criteria). `ws` is the workspace as far as a cached answer needs it (the root, pawl's
/// state, the vault); `full` makes the rest (the room, the checks' containment, the coverage
/// minimums: a sandbox probe and a look at the project), asked only when checks must run. A
/// verification that cannot run still counts the iteration (limits are real) and comes back as
/// the error.
pub fn stop_turn(
    store: &mut Store,
    ws: &Workspace,
    full: &dyn Fn() -> Workspace,
    run: &Run,
    arming: &Arming,
    gates: Vec<Check>,
    input: &StopInput<'_>,
) -> Result<StopAnswer, EngineError> {
    crate::use_run_git(run);
    let run_id = run.id.as_str();
    let settings = &run.settings;
    // A limit reached before this turn (e.g. a time budget that ran out between sessions).
    if let Next::Stop(reason) = turn::decide(
        store,
        run_id,
        settings,
        &Window::default(),
        None,
        false,
        &mut |_| {},
    )? {
        // A run whose state was modified outside pawl: what was found is the summary.
        let summary = (reason == StopReason::Tampered).then(|| {
            crate::report::tampering(store, run_id)
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        });
        return Ok(StopAnswer::End { reason, summary });
    }
    let story = turn::current_or_next_story(store, run_id)?;
    let claim = input.last_message.unwrap_or("").trim();
    let n = store.begin_iteration(
        run_id,
        story.as_ref().map(|s| s.id.as_str()),
        &format!(
            "(in-session turn; the agent stopped with: {})",
            first_chars(claim, 500)
        ),
    )?;
    let active_ms = (store.now_ms() - arming.turn_started_at).max(0) as u64;
    // The run's iterations, for the breakers and the prompt, read now, while the tree stamp's
    // check runs (nothing below but this turn's own record changes them: it is added in memory
    // once recorded). An error counts where the read was made before.
    let trail = store.iteration_trail(run_id);
    // The last verification comes from an indexed query, not from the run's whole event log
    // (which grows with every Stop).
    let previous = store.last_event(run_id, EventKind::Verification)?;
    let (verified, extra) = verify_for_stop(
        ws,
        full,
        store,
        run,
        gates,
        previous.as_ref(),
        input.tree_check,
    );
    // This turn's tokens and (estimated) dollars, from the session's transcript (read after the
    // checks, which gives Claude Code time to write the turn's last message): charged with the
    // iteration, so that token and dollar limits hold in session mode too.
    let usage = turn_usage(store, run_id, input);
    let report = match verified {
        Ok(r) => r,
        Err(e) => {
            // The iteration still counts (limits are real); the stop is allowed, loudly.
            store.finish_iteration(
                run_id,
                n,
                &IterationEnd {
                    outcome: "verify_error".into(),
                    session_id: input.session_id.map(str::to_string),
                    duration_ms: active_ms,
                    active_ms,
                    summary: format!("verification failed to run: {e}"),
                    ..usage.charged()
                },
            )?;
            usage.commit(store, input);
            store.start_session_turn(run_id)?;
            return Err(e.into());
        }
    };
    let edits = store.take_session_edits(run_id)?;
    let denials =
        store.count_events_since(run_id, EventKind::GuardDenied, arming.turn_started_at)?;
    let facts = turn::facts(
        &ws.root,
        &Did {
            edits: &edits,
            agent_error: false,
            permission_denials: denials,
            output_fingerprint: (!claim.is_empty())
                .then(|| format!("{:x}", Sha256::digest(claim.as_bytes()))),
        },
        Some(&report),
    );
    let summary = turn::summary(Some(&report));
    let files: Vec<String> = edits.keys().cloned().collect();
    // The iteration and its verification: one commit.
    store.batch(|store| {
        turn::record_rows(
            store,
            run_id,
            n,
            &IterationEnd {
                files: files.clone(),
                outcome: "completed".into(),
                session_id: input.session_id.map(str::to_string),
                duration_ms: active_ms,
                active_ms,
                facts: facts.clone(),
                summary: summary.clone(),
                ..usage.charged()
            },
            Some(&report),
            &extra,
        )
    })?;
    turn::commit_iteration(store, &ws.root, run_id, settings, n, Some(&report))?;
    // The breakers judge every iteration of the run since the session was armed; the files they
    // edited are the prompt's too (nothing below changes an iteration).
    let (files_changed, history) = with_this_turn(trail?, n, files, facts);
    let window = Window {
        history,
        baseline_tree: arming.baseline_tree.clone(),
    };
    // The run's "must not" rules on the tree (the guard judged each command as it came; a
    // write it could not see is caught here), asked of git before the store's write lock is
    // taken below.
    let violations = if settings.must_not.is_empty() {
        Vec::new()
    } else {
        let changed: Vec<String> = match (
            pawl_git::Repo::open(&ws.root).ok(),
            run.pre_run_commit.clone().and_then(pawl_git::CommitId::new),
        ) {
            (Some(g), Some(c)) => g
                .changed_files_since(&c)
                .map(|v| v.into_iter().map(|p| p.display().to_string()).collect())
                .unwrap_or_default(),
            _ => edits.keys().cloned().collect(),
        };
        crate::escalate::must_not_violations(settings, &changed, &[])
    };
    // The rest of the turn's writes (the transcript's cursor, the next turn's start, the
    // lease) commit once, with anything the decision records.
    store.batch(|store| {
        usage.commit(store, input);
        conclude_turn(
            store,
            run,
            input,
            Concluding {
                n,
                report: &report,
                claim,
                story: story.as_ref(),
                violations: &violations,
                summary,
                files_changed: &files_changed,
                window: &window,
            },
        )
    })
}

/// What [`conclude_turn`] decides on: the iteration just recorded and what the turn saw.
struct Concluding<'a> {
    n: u32,
    report: &'a VerifyReport,
    claim: &'a str,
    story: Option<&'a pawl_core::record::Story>,
    /// The run's "must not" rules the tree breaks.
    violations: &'a [pawl_core::must_not::Violation],
    summary: String,
    files_changed: &'a [String],
    window: &'a Window,
}

/// The end of a Stop's turn, once its iteration is recorded: escalation, the run's "must not"
/// rules, the decision, and (not done, nothing tripped) the continuation prompt.
fn conclude_turn(
    store: &mut Store,
    run: &Run,
    input: &StopInput<'_>,
    c: Concluding<'_>,
) -> Result<StopAnswer, EngineError> {
    let Concluding {
        n,
        report,
        claim,
        story,
        violations,
        summary,
        files_changed,
        window,
    } = c;
    let run_id = run.id.as_str();
    let settings = &run.settings;
    // The failure's class decides, as in the headless loop: an external failure goes to the
    // user; the same failure twice asks for a different approach.
    let mut handed_to_user = false;
    let mut change_approach: Option<String> = None;
    if !report.failing.is_empty() {
        let same = crate::escalate::same_in_a_row(&window.history);
        match crate::escalate::action(
            report,
            same,
            pawl_core::failure::TRANSIENT_RETRY_LIMIT,
            false,
        ) {
            Some(a @ pawl_core::failure::LoopAction::AwaitUser) => {
                handed_to_user =
                    crate::escalate::hand_to_user(store, run_id, settings, report, a)?.is_some();
            }
            Some(pawl_core::failure::LoopAction::ChangeApproach) => {
                change_approach = window
                    .history
                    .last()
                    .map(|f| crate::escalate::failed_approach(f, claim, report));
            }
            _ => {}
        }
    }
    if !violations.is_empty() {
        crate::escalate::record_violations(store, run_id, n, violations)?;
    }
    let next = turn::decide(
        store,
        run_id,
        settings,
        window,
        Some(Signals {
            report: Some(report),
            story: story.map(|s| s.id.as_str()),
            handed_to_user,
            must_not_violated: !violations.is_empty(),
            ..Signals::default()
        }),
        false,
        &mut |_| {},
    )?;
    if let Next::Stop(reason) = next {
        return Ok(StopAnswer::End {
            reason,
            summary: Some(summary),
        });
    }
    // Not done, nothing tripped: the stop is blocked and the reason is the next step.
    let story = turn::current_or_next_story(store, run_id)?;
    let mut text = turn::next_prompt(
        store,
        run_id,
        settings,
        &NextPrompt {
            goal: &run.goal,
            iteration: n + 1,
            story: story.as_ref(),
            last: Some(report),
            files_changed,
            agent_claimed_done: true,
            initial: false,
            change_approach: change_approach.as_deref(),
        },
    )?;
    let spent = store.spent(run_id)?;
    let l = &settings.limits;
    text.push_str(&format!(
        "Budget left: {} iteration(s), {} of active time{}.\n",
        l.max_iterations.saturating_sub(spent.iterations),
        human_ms((l.max_time.0.as_millis() as u64).saturating_sub(spent.active_ms)),
        if l.max_usd > 0.0 {
            format!(", ${:.2}", (l.max_usd - spent.usd).max(0.0))
        } else {
            String::new()
        }
    ));
    // A long session (compactions, tool calls) is asked to wrap up the story in progress.
    let counts = pawl_core::long_session::Counts {
        compactions: store.count_events_since(run_id, EventKind::PrecompactSnapshot, 0)?,
        tool_calls: store.count_events_since(run_id, EventKind::ToolCall, 0)?,
    };
    if let Some(ask) = pawl_core::long_session::wrap_up(
        counts,
        input.long_session,
        story.as_ref().map(|s| s.id.as_str()),
    ) {
        text.push_str(&format!("\n{ask}\n"));
    }
    store.start_session_turn(run_id)?;
    if let Some(lease) = store.lease(run_id)? {
        let _ = store.heartbeat(run_id, &lease.token, SESSION_LEASE_TTL_MS);
    }
    Ok(StopAnswer::Continue(text))
}

/// What a turn cost, read from the session's transcript since the previous Stop.
#[derive(Default)]
struct TurnUsage {
    read: Option<transcript::Read>,
}

impl TurnUsage {
    /// The iteration's accounting fields (the rest default).
    fn charged(&self) -> IterationEnd {
        let Some(r) = &self.read else {
            return IterationEnd::default();
        };
        IterationEnd {
            // As in the headless loop: input counts cache reads and writes.
            tokens_in: r.usage.input_total(),
            tokens_out: r.usage.output_tokens,
            cost_usd: r.cost_usd,
            cost_estimated: true,
            ..IterationEnd::default()
        }
    }

    /// Moves the session's cursor past what was charged (after the iteration is stored: a crash
    /// between the two charges the turn again, never not at all).
    fn commit(&self, store: &mut Store, input: &StopInput<'_>) {
        if let (Some(r), Some(session)) = (&self.read, input.session_id)
            && let Ok(cursor) = serde_json::to_string(&r.cursor)
        {
            let _ = store.set_transcript_cursor(session, &cursor);
        }
    }
}

/// Reads the turn's usage from the transcript. A transcript that cannot be read charges nothing
/// and says so in an event (`usage_unknown`).
fn turn_usage(store: &mut Store, run_id: &str, input: &StopInput<'_>) -> TurnUsage {
    let (Some((format, path)), Some(session)) = (input.transcript, input.session_id) else {
        return TurnUsage::default();
    };
    let cursor = store
        .transcript_cursor(session)
        .ok()
        .flatten()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_default();
    let read = || transcript::read_since(format, path, &cursor);
    let mut res = read();
    // Claude Code may write the turn's last message to the transcript only after the Stop hook
    // has started: wait for it, briefly, when the hook input says what it is.
    if let (Format::Claude, Some(last)) = (format, input.last_message) {
        let waited = std::time::Instant::now();
        while matches!(&res, Ok(r) if !transcript::reached(r, last))
            && waited.elapsed() < TRANSCRIPT_FLUSH_WAIT
        {
            std::thread::sleep(Duration::from_millis(10));
            res = read();
        }
    }
    match res {
        Ok(read) => TurnUsage { read: Some(read) },
        Err(e) => {
            let _ = store.append_event(
                Some(run_id),
                EventKind::UsageUnknown,
                json!({"session": session, "transcript": path, "error": e.to_string()}),
            );
            TurnUsage::default()
        }
    }
}

/// A session bound at its start: what its transcript already holds (a resumed conversation)
/// happened before the run and is not charged to it.
pub fn baseline_transcript(store: &mut Store, session: &str, format: Format, path: &Path) {
    if store.transcript_cursor(session).ok().flatten().is_some() {
        return;
    }
    let start = transcript::Cursor::default();
    if let Ok(read) = transcript::read_since(format, path, &start)
        && let Ok(cursor) = serde_json::to_string(&read.cursor)
    {
        let _ = store.set_transcript_cursor(session, &cursor);
    }
}

/// The run's iterations as the breakers and the prompt see them once iteration `n` is recorded
/// with `files` and `facts`, from `trail` read before it was: the files the session edited so
/// far (recorded by PostToolUse, without asking git: a Stop must stay fast), and the facts of
/// every ended iteration, oldest first.
fn with_this_turn(
    trail: Vec<pawl_store::IterationTrail>,
    n: u32,
    files: Vec<String>,
    facts: IterationFacts,
) -> (Vec<String>, Vec<IterationFacts>) {
    let mut this = Some((files, facts));
    let mut all: Vec<(Vec<String>, Option<IterationFacts>)> = Vec::with_capacity(trail.len() + 1);
    for t in trail {
        if t.n == n {
            if let Some((files, facts)) = this.take() {
                all.push((files, Some(facts)));
            }
        } else {
            all.push((t.files, t.facts));
        }
    }
    if let Some((files, facts)) = this {
        all.push((files, Some(facts)));
    }
    let changed: std::collections::BTreeSet<&String> =
        all.iter().flat_map(|(files, _)| files).collect();
    let changed = changed.into_iter().cloned().collect();
    (changed, all.into_iter().filter_map(|(_, f)| f).collect())
}

/// Verification for a Stop: pawl's gates and command criteria on the current tree, each cached
/// by tree hash ([`GateVerifier`]). When the tree, the checks and the seal are exactly those of
/// the run's last verification, and each of its results may stand ([`pawl_core::reuse`]: every
/// pass; a `test` or `code` failure when the environment's fingerprint is the same too), that
/// result stands without running anything or building the full workspace: only the criteria are
/// read again. Never when it could SHIP (every check passes and no criterion is left): then the
/// full verification runs, with the environment manifest and the locked run.
///
/// The current tree's hash comes from the tree stamp (`.pawl/cache/tree-stamp`, see
/// `pawl_git`'s stamp) when the last verification's signed event names its digest and nothing
/// it covers moved; otherwise from git, stamping the tree for the next Stop. Returns what the
/// verification event records besides the report: the checks' fingerprint, the stamp's digest,
/// the environment's fingerprint.
fn verify_for_stop(
    ws: &Workspace,
    full: &dyn Fn() -> Workspace,
    store: &mut Store,
    run: &Run,
    gates: Vec<Check>,
    previous: Option<&pawl_core::record::Event>,
    early: Option<&TreeCheck>,
) -> (
    Result<VerifyReport, VerifyError>,
    Vec<(&'static str, serde_json::Value)>,
) {
    let checks = GateVerifier::new(ws.clone(), gates.clone())
        .checks(store, run)
        .unwrap_or_default();
    let fingerprint = checks_fingerprint(&checks, run.settings.seal.as_ref());
    let prev = previous.and_then(last_verification);
    // The criteria a reused verification reports, read while the tree stamp's check runs.
    let criteria = prev
        .as_ref()
        .filter(|p| p.fingerprint == fingerprint)
        .map(|_| criteria_state(store, &run.id));
    let (tree, stamp) = current_tree(ws, prev.as_ref(), early);
    let mut extra: Vec<(&'static str, serde_json::Value)> =
        vec![("session_checks", json!(fingerprint))];
    if let Some(d) = &stamp {
        extra.push(("tree_stamp", json!(d)));
    }
    if let (Some(tree), Some(prev)) = (&tree, prev)
        && prev.fingerprint == fingerprint
        && prev.report.tree_hash == *tree
    {
        // The environment's fingerprint only matters to a failure.
        let env_now = (!prev.report.failing.is_empty()).then(|| env_print(&ws.root, run));
        let same = pawl_core::reuse::Same {
            tree: true,
            seal: true,
            environment: env_now.is_some() && env_now == prev.env_print,
        };
        let earlier: Vec<pawl_core::reuse::Earlier> = prev
            .report
            .checks
            .iter()
            .map(|c| pawl_core::reuse::Earlier {
                passed: c.passed,
                class: c.category,
            })
            .collect();
        if pawl_core::reuse::reuse_all(&earlier, same)
            && let Some(Ok((verified, unmet))) = criteria
            && !(prev.report.failing.is_empty() && unmet.is_empty())
        {
            let mut report = prev.report;
            for c in report.checks.iter_mut().chain(report.failing.iter_mut()) {
                c.cached = true;
            }
            report.done = false;
            report.verified = verified;
            report.unmet = unmet;
            if let Some(e) = env_now {
                extra.push(("env_print", json!(e)));
            }
            return (Ok(report), extra);
        }
    }
    let ws = full();
    // Taken before the checks: a failure is reused only in the environment it ran in.
    let env = env_print(&ws.root, run);
    let report = GateVerifier::new(ws, gates).verify(store, &run.id);
    if let Ok(r) = &report {
        if !r.failing.is_empty() {
            extra.push(("env_print", json!(env)));
        }
        // The stamp vouches for the tree it was taken of, not one that moved since.
        if tree.as_deref() != Some(r.tree_hash.as_str()) {
            extra.retain(|(k, _)| *k != "tree_stamp");
        }
    }
    (report, extra)
}

/// The fingerprint of the checks a Stop runs: names and commands, and the run's seal.
fn checks_fingerprint(checks: &[Check], seal: Option<&pawl_core::seal::Seal>) -> String {
    let mut h = Sha256::new();
    for c in checks {
        h.update(c.name.as_bytes());
        h.update([0]);
        h.update(c.command.as_bytes());
        h.update([b'\n']);
    }
    if let Some(seal) = seal {
        h.update(serde_json::to_vec(seal).unwrap_or_default());
    }
    format!("{:x}", h.finalize())
}

/// The current tree's hash, and the digest of the stamp that vouches for it (see
/// [`verify_for_stop`]). `None` when git cannot say. `early`: the stamp's check started at the
/// beginning of the Stop, when there is one.
fn current_tree(
    ws: &Workspace,
    prev: Option<&Previous>,
    early: Option<&TreeCheck>,
) -> (Option<String>, Option<String>) {
    let path = stamp_path(&ws.state_dir);
    let want = prev.and_then(|p| p.tree_stamp.as_deref());
    let early = early.and_then(|c| c.take(ws));
    if let (Some(want), Some(Checked { digest, tree, .. })) = (want, early.as_ref())
        && digest == want
        && let Some((tree, fresh)) = tree
    {
        return (
            Some(tree.clone()),
            Some(keep_stamp(&path, want, fresh.as_deref())),
        );
    }
    let Ok(repo) = pawl_git::Repo::open(&ws.root) else {
        return (None, None);
    };
    let checked = early.is_some();
    // The stamp the last verification names (what it vouches for is its digest's).
    let last = match early {
        Some(c) => Some((c.digest, c.stamp)),
        None => std::fs::read(&path)
            .ok()
            .map(|b| (format!("{:x}", Sha256::digest(&b)), b)),
    }
    .filter(|(digest, _)| Some(digest.as_str()) == want)
    .map(|(_, stamp)| stamp);
    if let (Some(want), Some(stamp)) = (want, &last)
        && !checked
        && let Some((tree, fresh)) = repo.tree_hash_unchanged_refreshed(stamp)
    {
        return (
            Some(tree.to_string()),
            Some(keep_stamp(&path, want, fresh.as_deref())),
        );
    }
    // The tree changed: git starts from pawl's own index of the last tree (the stamp vouches
    // for it), and reads only what moved.
    let last = last.and_then(|stamp| {
        let index = std::fs::read(index_path(&ws.state_dir)).ok()?;
        Some(pawl_git::TreeStamp { stamp, index })
    });
    match repo.tree_hash_since(last.as_ref()) {
        Ok((tree, Some(kept))) => (Some(tree.to_string()), write_kept(&ws.state_dir, &kept)),
        Ok((tree, None)) => (Some(tree.to_string()), None),
        Err(_) => (None, None),
    }
}

/// pawl's own index of the tree last stamped (see [`current_tree`]).
fn index_path(state_dir: &Path) -> std::path::PathBuf {
    state_dir.join("cache").join("tree-index")
}

/// Writes what a stamped hash left (pawl's index of the tree, then the stamp that vouches for
/// it) and returns the stamp's digest; `None` when it could not be written.
fn write_kept(state_dir: &Path, kept: &pawl_git::TreeStamp) -> Option<String> {
    write_file(&index_path(state_dir), &kept.index)?;
    write_stamp(&stamp_path(state_dir), &kept.stamp)
}

/// The digest of the stamp that vouches for an unchanged tree: `want` (the stamp checked), or
/// that of `fresh` (the same stamp with the index's new stat data) once written in its place,
/// so that the next Stop need not read the index again.
fn keep_stamp(path: &Path, want: &str, fresh: Option<&[u8]>) -> String {
    fresh
        .and_then(|stamp| write_stamp(path, stamp))
        .unwrap_or_else(|| want.to_string())
}

/// Writes `stamp` at `path` (whole, through a rename) and returns its digest; `None` when it
/// could not be written.
fn write_stamp(path: &Path, stamp: &[u8]) -> Option<String> {
    write_file(path, stamp)?;
    Some(format!("{:x}", Sha256::digest(stamp)))
}

/// Writes `bytes` at `path` whole (through a rename); `None` when it could not.
fn write_file(path: &Path, bytes: &[u8]) -> Option<()> {
    let temp = path.with_extension("tmp");
    let written = path
        .parent()
        .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
        && std::fs::write(&temp, bytes).is_ok()
        && std::fs::rename(&temp, path).is_ok();
    written.then_some(())
}

/// The environment manifest's cheap fingerprint: the dependency manifests and lockfiles at the
/// root and one directory down (`[environment] manifests` of the platforms, data) by content,
/// the environment directories and package trees (`.venv`, `node_modules`, site-packages) by
/// their own stat data (a package installed or removed moves them), and the places outside the
/// repository the checks read (`room::env::outside_places`) likewise. What it does not see (a
/// file rewritten deep inside a package) the full manifest sees, in every verification that can
/// SHIP.
pub fn env_print(root: &Path, run: &Run) -> String {
    use std::os::unix::fs::MetadataExt;
    let layout = pawl_verify::platform::Descriptors::builtin()
        .map(|d| d.environment())
        .unwrap_or_default();
    let globs: Vec<globset::GlobMatcher> = layout
        .manifests
        .iter()
        .filter_map(|g| {
            globset::GlobBuilder::new(g)
                .literal_separator(true)
                .build()
                .ok()
        })
        .map(|g| g.compile_matcher())
        .collect();
    let mut h = Sha256::new();
    let stat = |h: &mut Sha256, p: &Path| {
        h.update(p.as_os_str().as_encoded_bytes());
        h.update([0]);
        if let Ok(m) = std::fs::symlink_metadata(p) {
            for v in [
                m.ino() as i64,
                m.size() as i64,
                m.mtime(),
                m.mtime_nsec(),
                m.ctime(),
                m.ctime_nsec(),
            ] {
                h.update(v.to_le_bytes());
            }
        }
    };
    let names = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    let skip =
        |name: &str| name == ".git" || name == ".pawl" || layout.dirs.iter().any(|d| d == name);
    let mut candidates: Vec<String> = Vec::new();
    for name in names(root) {
        if skip(&name) {
            continue;
        }
        if root.join(&name).is_dir() {
            candidates.extend(
                names(&root.join(&name))
                    .into_iter()
                    .map(|n| format!("{name}/{n}")),
            );
        } else {
            candidates.push(name);
        }
    }
    for rel in candidates
        .iter()
        .filter(|c| globs.iter().any(|g| g.is_match(c.as_str())))
    {
        if let Ok(bytes) = std::fs::read(root.join(rel)) {
            h.update(rel.as_bytes());
            h.update([0]);
            h.update(Sha256::digest(&bytes));
        }
    }
    let mut trees = layout.dirs.clone();
    trees.extend(crate::room::env::expand(root, &layout.packages));
    for rel in trees {
        stat(&mut h, &root.join(rel));
    }
    if let Some(seal) = &run.settings.seal {
        // A watched entry by itself (its directory, `~`, moves with anything created there);
        // a package tree by its directory.
        for place in crate::room::env::outside_places(&seal.env, root) {
            match &place.only {
                Some(only) => stat(&mut h, &place.dir.join(only)),
                None => stat(&mut h, &place.dir),
            }
        }
    }
    format!("{:x}", h.finalize())
}

/// What the Stop hook's last verification event holds.
struct Previous {
    fingerprint: String,
    report: VerifyReport,
    tree_stamp: Option<String>,
    env_print: Option<String>,
}

/// A Stop hook's verification event, with the fingerprint of its checks.
fn last_verification(e: &pawl_core::record::Event) -> Option<Previous> {
    let text = |k: &str| e.data.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let fingerprint = text("session_checks")?;
    serde_json::from_value(e.data.clone())
        .ok()
        .map(|report| Previous {
            fingerprint,
            report,
            tree_stamp: text("tree_stamp"),
            env_print: text("env_print"),
        })
}

fn first_chars(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().count() > n {
        out.push('…');
    }
    out
}

/// A duration for people: `45s`, `3m05s`, `2h10m`.
pub fn human_ms(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}
