//! Session mode: arming a run for an interactive agent session (`pawl run --driver session`,
//! `pawl resume` of a session run), and what arming, the hooks and `pawl off` share: the armed
//! marker in `.pawl/`, ending session mode, finishing a run, and undoing `--autonomous`.
//!
//! Arming puts the run on the git rails every run starts on (`crate::rails`: a clean tree or an
//! `--allow-dirty` snapshot, the sandbox branch `pawl/<run>` on a protected branch), records the
//! tree it starts from, takes the run's lease for the stale guard, and writes
//! `.pawl/session.json`. The next agent session started in the repository (or the current one,
//! when pawl is run from inside a session) binds to it through its SessionStart hook; a run that
//! no session takes within the stale guard expires.
//!
//! Not here: answering the hooks (`commands/hook.rs`), the Stop hook's turn (pawl-engine's
//! `session`), installing the hooks (`crate::hook_setup`).

use std::path::{Path, PathBuf};

use pawl_core::ExitCode;
use pawl_core::StopReason;
use pawl_core::config::AgentKind;
use pawl_core::model::RunStatus;
use pawl_engine::start::Armed;
use pawl_hooks::Agent;
use pawl_hooks::install;
use pawl_hooks::marker::{self, Marker};
use pawl_store::{Arming, NewArming, Store};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::owner;
use crate::state::{read_optional, write_atomic};

/// An armed run that no session takes within this long expires (the engine's).
pub use pawl_engine::start::STALE_GUARD_MS;
/// How long an armed run waits for a session: [`STALE_GUARD_MS`]. Hidden, for pawl's own tests:
/// `PAWL_TEST_ARMING_TTL_MS` shortens it (an expiry is tested without writing the store, whose
/// rows an edit would make read as forged). Not documented for users.
pub fn arming_ttl_ms() -> i64 {
    std::env::var("PAWL_TEST_ARMING_TTL_MS")
        .ok()
        .and_then(|v| v.parse::<i64>().ok())
        .filter(|v| (0..=STALE_GUARD_MS).contains(v))
        .unwrap_or(STALE_GUARD_MS)
}

/// How long one sign of life from a bound session keeps the run's lease (the engine's).
pub use pawl_engine::session::SESSION_LEASE_TTL_MS;

/// What `--autonomous` merges into Claude Code's `permissions.allow`: the tools a session needs
/// to work without stopping to ask. pawl's PreToolUse guard still judges every call.
pub const AUTONOMOUS_ALLOW: &[&str] = &["Bash", "Edit", "Write", "MultiEdit"];

/// The environment variables that say which agent session pawl is running inside.
pub(crate) const SESSION_ENV: &[(&str, Agent)] = &[
    ("CLAUDE_CODE_SESSION_ID", Agent::Claude),
    ("CODEX_THREAD_ID", Agent::Codex),
    ("GEMINI_SESSION_ID", Agent::Gemini),
];

/// The agent session pawl runs inside now (from its environment), `(agent, session id)`: a run
/// armed from inside a session is bound to it.
pub fn current_session() -> Option<(String, String)> {
    SESSION_ENV.iter().find_map(|(var, a)| {
        std::env::var(var)
            .ok()
            .filter(|v| !v.is_empty())
            .map(|v| (a.as_str().to_string(), v))
    })
}

/// Says what arming a new run did (`pawl_engine::start::start` armed it).
pub fn say_armed(ctx: &mut Ctx, armed: &Armed) -> CliResult<ExitCode> {
    let Armed {
        run,
        arming,
        rails: start,
        agent: bound_agent,
        bound_session: current,
        autonomous,
        lessons,
    } = armed;
    let installed: Vec<Agent> = Agent::ALL
        .into_iter()
        .filter(|a| hooks_installed(&hooks_root(&ctx.root, *a), *a))
        .collect();
    let report = serde_json::json!({
        "run_id": run.id, "driver": "session", "agent": bound_agent, "bound_session": current.as_ref().map(|(_, s)| s),
        "expires_at": arming.expires_at, "autonomous": autonomous, "hooks_installed": installed,
        "branch": start.branch, "pre_run_commit": start.pre_run.as_ref().map(|c| c.as_str()),
        "lessons": lessons,
    });
    let root = ctx.root.clone();
    ctx.emit(&report, || {
        let mut out = format!("Run {} armed for an agent session: {}\n", run.id, run.goal);
        match &current {
            Some((a, s)) => out.push_str(&format!(
                "Bound to the current {a} session {s}: pawl's hooks drive it from its next stop.\n"
            )),
            None => out.push_str(&format!(
                "The next {} session started in {} binds to it (within {} minutes, or the arming expires).\n",
                bound_agent.as_deref().unwrap_or("agent"),
                root.display(),
                STALE_GUARD_MS / 60_000
            )),
        }
        if !autonomous.is_empty() {
            out.push_str(&format!(
                "--autonomous: added {} to .claude/settings.json permissions.allow (removed again by `pawl off` or at the end).\n",
                autonomous.join(", ")
            ));
        }
        match bound_agent.as_deref().and_then(Agent::parse) {
            Some(a) if !installed.contains(&a) => out.push_str(&format!(
                "warning: pawl's hooks are not installed for {a}: run `pawl init --agent {a}` first.\n"
            )),
            _ => {}
        }
        out.push_str("The Stop hook verifies; the run ends when pawl's checks pass or a limit is reached. `pawl off` ends session mode.");
        out
    })?;
    Ok(ExitCode::Done)
}

/// Arms a stopped session run again (`pawl resume`): the next agent session started in the
/// repository takes it, with the run's persisted limits (raised only by `pawl resume --add-*`).
pub fn rearm(
    ctx: &mut Ctx,
    store: &mut Store,
    run: &pawl_core::record::Run,
) -> CliResult<ExitCode> {
    let agent = match run.settings.agent.as_ref().map(|a| a.kind) {
        Some(AgentKind::Claude) => Some(Agent::Claude),
        Some(AgentKind::Codex) => Some(Agent::Codex),
        Some(AgentKind::Gemini) => Some(Agent::Gemini),
        _ => None,
    };
    refuse_unhooked_worktree(&ctx.root, agent)?;
    if run.status == RunStatus::Stopped {
        store.set_run_status(&run.id, RunStatus::Active, None)?;
    }
    let repo = pawl_git::Repo::open(&ctx.root)?;
    let baseline = repo.tree_hash().ok().map(|t| t.to_string());
    store.acquire_lease(
        &run.id,
        std::process::id(),
        &owner::hostname(),
        STALE_GUARD_MS,
        &owner::holder_alive,
    )?;
    let arming = store.arm_session(
        &run.id,
        &NewArming {
            agent: agent.map(|a| a.as_str().to_string()),
            expires_at: store.now_ms() + arming_ttl_ms(),
            baseline_tree: baseline,
            autonomous: Vec::new(),
        },
    )?;
    // No session is bound yet: the next one to start (or an old one resuming) claims the run.
    let m = Marker {
        run_id: run.id.clone(),
        agent: arming.agent.clone(),
        expires_at: arming.expires_at,
        sessions: Vec::new(),
    };
    write_atomic(&marker_path(&ctx.root), &m.to_text())?;
    let report = serde_json::json!({"run_id": run.id, "driver": "session", "rearmed": true,
        "expires_at": arming.expires_at});
    let id = run.id.clone();
    ctx.emit(&report, || {
        format!(
            "Run {id} armed again: the next agent session started here continues it (within {} minutes). `pawl off` ends session mode.",
            STALE_GUARD_MS / 60_000
        )
    })?;
    Ok(ExitCode::Done)
}

/// `.pawl/session.json`.
pub fn marker_path(root: &Path) -> PathBuf {
    root.join(crate::ctx::STATE_DIR).join(marker::FILE)
}

pub fn read_marker(root: &Path) -> Option<Marker> {
    std::fs::read_to_string(marker_path(root))
        .ok()
        .and_then(|t| Marker::parse(&t))
}

/// Writes the marker from the store's record of the run (the store is the truth), and the
/// session index entry of each bound session.
pub fn write_marker(root: &Path, store: &Store, arming: &Arming) -> CliResult {
    let sessions: Vec<String> = store
        .session_bindings(&arming.run_id)?
        .into_iter()
        .map(|b| b.session_id)
        .collect();
    for s in &sessions {
        index_session(s, root);
    }
    let m = Marker {
        run_id: arming.run_id.clone(),
        agent: arming.agent.clone(),
        expires_at: arming.expires_at,
        sessions,
    };
    write_atomic(&marker_path(root), &m.to_text())
}

/// Where a hook's session belongs: the root of its run and the run's marker.
///
/// A session bound to a run is found through the session index in the user's pawl state
/// (`sessions/<id>`, written when it binds; outside every repository, out of the agent's
/// reach), whatever its working directory. Otherwise the marker is looked for in `.pawl/` of
/// every directory from `cwd` up (past nested repositories and worktrees under the run's
/// root): one that lists the session wins, else the nearest — but not past the top of a
/// linked worktree: a session that starts in a worktree of the repository (Claude Code's
/// `--worktree` makes them inside it) works on that worktree's tree, and the main checkout's
/// run would verify another one. A session that belongs to no run costs one failed open for
/// the index and two per directory up to `/` — no store, no git.
pub fn locate(session: Option<&str>, cwd: &Path) -> Option<(PathBuf, Marker)> {
    if let Some(s) = session
        && let Some(root) = indexed_root(s)
    {
        match read_marker(&root) {
            Some(m) if m.sessions.iter().any(|x| x == s) => return Some((root, m)),
            _ => unindex_session(s),
        }
    }
    let mut nearest: Option<(PathBuf, Marker)> = None;
    let mut past_worktree = false;
    for dir in cwd.ancestors() {
        if let Some(m) = read_marker(dir) {
            if session.is_some_and(|s| m.sessions.iter().any(|x| x == s)) {
                return Some((dir.to_path_buf(), m));
            }
            if nearest.is_none() && !past_worktree {
                nearest = Some((dir.to_path_buf(), m));
            }
        }
        past_worktree = past_worktree || main_checkout_of(dir).is_some();
    }
    nearest
}

/// The main checkout of the linked worktree whose top is `top` (its `.git` a file naming
/// `<main>/.git/worktrees/<name>`); `None` for a main checkout, a submodule, anything else.
pub fn main_checkout_of(top: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(top.join(".git")).ok()?;
    let gitdir = top.join(text.strip_prefix("gitdir:")?.trim());
    let list = gitdir.parent()?;
    let common = list.parent()?;
    if list.file_name()? != "worktrees" || common.file_name()? != ".git" {
        return None;
    }
    Some(common.parent()?.to_path_buf())
}

/// The checkout whose project settings `agent`'s CLI loads for a session started in `root`.
/// Codex loads a linked worktree's project hooks from the main checkout's `.codex/hooks.json`,
/// ignoring the worktree's own, and runs them with the worktree as their working directory
/// (openai/codex #27133, #23996, PR #21969) — and, measured on Codex 0.171.0, only when the
/// worktree has a `.codex/` folder of its own (its project layer). Claude Code and Gemini CLI
/// read the worktree's own files, which a new worktree has only when they are tracked on its
/// branch (anthropics/claude-code #83953).
pub fn hooks_root(root: &Path, agent: Agent) -> PathBuf {
    match agent {
        Agent::Codex => main_checkout_of(root).unwrap_or_else(|| root.to_path_buf()),
        Agent::Claude | Agent::Gemini => root.to_path_buf(),
    }
}

/// Arming in a linked worktree: the session's CLI must load pawl's hooks there, or it would
/// run unguarded and unverified without a word — refused, naming where they must go. For
/// Codex, with the hooks in the main checkout, the worktree is given the (empty, untracked:
/// git does not see it) `.codex/` folder Codex needs to load them.
pub fn refuse_unhooked_worktree(root: &Path, agent: Option<Agent>) -> CliResult {
    let (Some(main), Some(agent)) = (main_checkout_of(root), agent) else {
        return Ok(());
    };
    let at = hooks_root(root, agent);
    if hooks_installed(&at, agent) {
        if agent == Agent::Codex {
            let layer = root.join(".codex");
            std::fs::create_dir_all(&layer)
                .map_err(CliError::io(format!("cannot create {}", layer.display())))?;
        }
        return Ok(());
    }
    let why = if at == main {
        format!(
            "{agent} loads a worktree's project hooks from the main checkout {}, not from the worktree",
            main.display()
        )
    } else {
        format!(
            "{agent} reads this worktree's own settings, and a worktree has pawl's hooks only when they are tracked on its branch or installed in it"
        )
    };
    Err(CliError::Failed(format!(
        "{} is a linked worktree of {}: {why}, and pawl's hooks are not in {}. A session would run unguarded: run `pawl -C {} init --agent {agent}` first, then arm the run again.",
        root.display(),
        main.display(),
        at.join(install::settings_path(agent)).display(),
        at.display()
    )))
}

/// The session index entry of `session`: a file named after it in the user's pawl state.
fn session_index_path(session: &str) -> Option<PathBuf> {
    let safe = !session.is_empty()
        && session.len() <= 128
        && session
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !session.starts_with('.');
    let name = if safe {
        session.to_owned()
    } else {
        // Any other id by its digest: a file name must not carry `/` or `..`.
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(session.as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    };
    Some(crate::state::user_state_dir()?.join("sessions").join(name))
}

fn indexed_root(session: &str) -> Option<PathBuf> {
    let text = std::fs::read_to_string(session_index_path(session)?).ok()?;
    let root = PathBuf::from(text.trim_end_matches('\n'));
    root.is_absolute().then_some(root)
}

/// Records that `session` is bound to the run at `root` (best effort: without the index the
/// hook still finds the run by walking up from the session's working directory).
pub fn index_session(session: &str, root: &Path) {
    let Some(path) = session_index_path(session) else {
        return;
    };
    let text = root.display().to_string();
    if std::fs::read_to_string(&path).is_ok_and(|t| t == text) {
        return;
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = write_atomic(&path, &text);
}

fn unindex_session(session: &str) {
    if let Some(path) = session_index_path(session) {
        let _ = std::fs::remove_file(path);
    }
}

/// Removes the marker if it is this run's.
pub fn remove_marker(root: &Path, run_id: &str) -> CliResult {
    if read_marker(root).is_some_and(|m| m.run_id == run_id) || read_marker(root).is_none() {
        match std::fs::remove_file(marker_path(root)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(CliError::Io {
                    context: "cannot remove .pawl/session.json".into(),
                    source: e,
                });
            }
        }
    }
    Ok(())
}

/// Ends session mode for a run: the store's record, the marker, the lease, and what
/// `--autonomous` added. The run's status is the caller's business.
pub fn end_session_mode(root: &Path, store: &mut Store, run_id: &str, why: &str) -> CliResult {
    for b in store.session_bindings(run_id)? {
        unindex_session(&b.session_id);
    }
    let arming = store.end_session_mode(run_id, why)?;
    remove_marker(root, run_id)?;
    if let Some(lease) = store.lease(run_id)? {
        store.release_lease(run_id, &lease.token)?;
    }
    if let Some(a) = arming
        && !a.autonomous.is_empty()
    {
        restore_autonomous(root, &a.autonomous)?;
    }
    Ok(())
}

/// Stops a session run with `reason` (or marks it done), writes its report and ends session
/// mode. Returns the report's path relative to the root.
pub fn finish_run(
    root: &Path,
    store: &mut Store,
    run_id: &str,
    reason: StopReason,
) -> CliResult<String> {
    let status = if reason == StopReason::Verified {
        RunStatus::Done
    } else {
        RunStatus::Stopped
    };
    if !store.run(run_id)?.status.is_terminal() {
        store.set_run_status(run_id, status, Some(reason))?;
    }
    end_session_mode(root, store, run_id, &format!("run ended: {reason}"))?;
    let report = pawl_engine::report::build(store, run_id, root)?;
    let path =
        pawl_engine::report::write(&report, &root.join(crate::ctx::STATE_DIR).join("reports"))?;
    Ok(path
        .strip_prefix(root)
        .unwrap_or(&path)
        .display()
        .to_string())
}

fn claude_settings(root: &Path) -> PathBuf {
    root.join(install::settings_path(Agent::Claude))
}

pub fn merge_autonomous(root: &Path) -> CliResult<Vec<String>> {
    let path = claude_settings(root);
    let existing = read_optional(&path)?;
    let wanted: Vec<String> = AUTONOMOUS_ALLOW.iter().map(|s| s.to_string()).collect();
    let (text, added) =
        install::merge_permissions(&path.display().to_string(), existing.as_deref(), &wanted)?;
    if !added.is_empty() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(CliError::io(format!("cannot create {}", dir.display())))?;
        }
        write_atomic(&path, &text)?;
    }
    Ok(added)
}

fn restore_autonomous(root: &Path, added: &[String]) -> CliResult {
    let path = claude_settings(root);
    let Some(existing) = read_optional(&path)? else {
        return Ok(());
    };
    match install::remove_permissions(&path.display().to_string(), &existing, added)? {
        Some(text) => write_atomic(&path, &text),
        None => std::fs::remove_file(&path)
            .map_err(CliError::io(format!("cannot remove {}", path.display()))),
    }
}

/// Whether `agent`'s project settings hold pawl's hooks.
pub fn hooks_installed(root: &Path, agent: Agent) -> bool {
    install::settings_paths(agent).into_iter().any(|rel| {
        std::fs::read_to_string(root.join(rel))
            .is_ok_and(|t| t.contains(&format!(" hook {agent} stop")))
    })
}
