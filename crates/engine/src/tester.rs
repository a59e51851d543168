//! The independent tester's session (issue 33 point 2; the decisions are `pawl_core::tester`'s):
//! before the executor's first step, pawl asks a session of its own for tests of the goal's
//! behaviour on inputs other than the visible tests'. The tester runs in its own process (under
//! the check sandbox where there is one), in a **read-only copy of the baseline's tree** (no git
//! link back), with the goal in `$PAWL_GOAL` and `$PAWL_TESTER_OUT` naming a directory of pawl's
//! private state (the user's vault, beside the hidden checks' commands: never in the repository,
//! hidden from sandboxed steps and checks). It writes ordinary test files of the project's
//! framework there; an agent tester (read-only, the reviewer's adapter) answers with its files as
//! JSON and pawl writes them. The store records who wrote how many files and what it cost, never
//! their text. How they run at verification: `crate::verify::hidden_tests`.

use std::path::Path;
use std::time::Duration;

use pawl_core::EventKind;
use pawl_core::seal::Seal;
use pawl_git::{Repo, TreeHash};
use pawl_store::{Store, StoreError};
use serde::Deserialize;

use crate::hidden::Vault;
pub use crate::verify::hidden_tests::{HiddenRun, TesterRecord};
use crate::verify::hidden_tests::{MAX_FILE, MAX_FILES, out_dir, test_files};
use crate::verify::reviewer::Reviewer;
use crate::workspace::Workspace;

/// The variable naming the directory the tester writes its tests into.
pub const OUT_VAR: &str = "PAWL_TESTER_OUT";
/// The longest a command tester may run.
const TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Before the executor's first step: the run's tester writes its hidden tests, once per run.
/// `agent` answers for a tester that is a session of the configured agent (read-only: it
/// answers with its files as JSON, pawl writes them). Returns the record (also stored as a
/// `tester` event), `None` when the run has no tester or had it already.
pub fn prepare(
    store: &mut Store,
    run_id: &str,
    ws: &Workspace,
    agent: Option<&mut dyn Reviewer>,
) -> Result<Option<TesterRecord>, StoreError> {
    let run = store.run(run_id)?;
    let Some(seal) = run.settings.seal.clone() else {
        return Ok(None);
    };
    let Some(tester) = seal.tester.clone() else {
        return Ok(None);
    };
    if store.last_event(run_id, EventKind::Tester)?.is_some() {
        return Ok(None);
    }
    let started = std::time::Instant::now();
    let who = if tester.command.is_empty() {
        agent
            .as_ref()
            .map(|a| a.agent())
            .unwrap_or_else(|| "the configured agent".into())
    } else {
        format!("command `{}`", tester.command)
    };
    let mut record = TesterRecord {
        who,
        ..TesterRecord::default()
    };
    let base_tree = store
        .last_event(run_id, EventKind::Baseline)?
        .and_then(|e| e.data["tree"].as_str().map(str::to_owned));
    match (&ws.vault, base_tree) {
        (None, _) => {
            record.failed = Some(
                "no private state (no key): the tester's tests would be readable by the executor"
                    .into(),
            )
        }
        (_, None) => record.failed = Some("no baseline to copy".into()),
        (Some(vault), Some(tree)) => {
            if let Err(why) = write_tests(
                ws,
                &seal,
                vault,
                run_id,
                &run.goal,
                &tree,
                &tester,
                agent,
                &mut record,
            ) {
                record.failed = Some(why);
            }
        }
    }
    record.ms = started.elapsed().as_millis() as u64;
    store.append_event(
        Some(run_id),
        EventKind::Tester,
        serde_json::to_value(&record).unwrap_or_default(),
    )?;
    Ok(Some(record))
}

#[expect(
    clippy::too_many_arguments,
    reason = "the run's parts the session needs: the seal, the vault, the tree, the goal, the tester, its agent"
)]
fn write_tests(
    ws: &Workspace,
    seal: &Seal,
    vault: &Vault,
    run_id: &str,
    goal: &str,
    tree: &str,
    tester: &pawl_core::tester::Sealed,
    agent: Option<&mut dyn Reviewer>,
    record: &mut TesterRecord,
) -> Result<(), String> {
    let out = out_dir(vault, run_id);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot make {}: {e}", out.display()))?;
    // The read-only copy of the baseline's tree, outside the repository and the vault, with no
    // git link back.
    let scratch = std::env::temp_dir().join(format!("pawl-tester-{run_id}-{}", std::process::id()));
    let copy = scratch.join("repo");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&copy).map_err(|e| format!("cannot make the copy: {e}"))?;
    let made = copy_tree(&ws.root, tree, &copy, &scratch);
    let result = made.and_then(|()| {
        read_only(&copy, true);
        if tester.command.is_empty() {
            ask_agent(agent, &copy, goal, &out, record)
        } else {
            run_command(ws, seal, &tester.command, &copy, goal, &out)
        }
    });
    read_only(&copy, false);
    let _ = std::fs::remove_dir_all(&scratch);
    result?;
    record.files = test_files(&out).len();
    Ok(())
}

/// Writes `tree` of the repository at `root` into `into` (a checkout whose private git
/// directory is removed after).
fn copy_tree(root: &Path, tree: &str, into: &Path, scratch: &Path) -> Result<(), String> {
    let repo = Repo::open(root).map_err(|e| format!("cannot open the repository: {e}"))?;
    let tree = TreeHash::new(tree.to_owned()).ok_or("the baseline's tree is not a tree id")?;
    let co = repo
        .checkout_into(into, scratch.join("git"), scratch.join("index"))
        .map_err(|e| format!("cannot copy the tree: {e}"))?;
    co.reset_to(&tree)
        .map_err(|e| format!("cannot copy the tree: {e}"))?;
    let _ = std::fs::remove_dir_all(scratch.join("git"));
    let _ = std::fs::remove_file(scratch.join("index"));
    Ok(())
}

/// Makes every file and directory under `dir` read-only (`on`), or writable again.
fn read_only(dir: &Path, on: bool) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_symlink() {
            continue;
        }
        if meta.is_dir() {
            if !on {
                let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755));
            }
            read_only(&p, on);
            if on {
                let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o555));
            }
        } else {
            let mode = meta.permissions().mode();
            let mode = if on { mode & !0o222 } else { mode | 0o200 };
            let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode));
        }
    }
    let _ = std::fs::set_permissions(
        dir,
        std::fs::Permissions::from_mode(if on { 0o555 } else { 0o755 }),
    );
}

/// A command tester: `sh -c <command>` in the copy, with the goal and the directory to write
/// into, under the check sandbox where there is one (the copy readable, only `out` writable).
fn run_command(
    ws: &Workspace,
    seal: &Seal,
    command: &str,
    copy: &Path,
    goal: &str,
    out: &Path,
) -> Result<(), String> {
    // Launched as the checks are, but seeing HOME read-only (it runs before the first step).
    let ws = &Workspace {
        containment: ws
            .tester_containment
            .clone()
            .or_else(|| ws.containment.clone()),
        ..ws.clone()
    };
    let cfg = crate::baseline::runner_for(ws, seal, crate::verify::now_ms());
    let mut containment = cfg.containment.clone();
    if let Some(sandbox) = containment.as_mut().and_then(|c| c.spec.sandbox.as_mut()) {
        sandbox.place_checks(out, None);
        // The copy lies in the machine's temp dir, which the check sandbox makes private: it
        // is seen there again, read-only (else the tester's working directory is gone).
        sandbox.shown_in_tmp.push(copy.to_path_buf());
    }
    // The system shell by its path, as the checks' runner starts commands: never an `sh`
    // found on PATH.
    let mut cmd = pawl_process::Command::new("/bin/sh");
    if cfg.clear_env {
        cmd.env_clear();
    } else {
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("PAWL") {
                cmd.env_remove(k);
            }
        }
    }
    cmd.args(["-c", command])
        .current_dir(copy)
        .timeout(TIMEOUT)
        .grace(cfg.grace)
        .tail_bytes(64 * 1024)
        .envs(
            cfg.env
                .iter()
                .filter(|(k, _)| !k.to_string_lossy().starts_with("PAWL"))
                .map(|(k, v)| (k, v)),
        )
        .env(OUT_VAR, out)
        .env("PAWL_GOAL", goal);
    if let Some(c) = containment {
        cmd.contain(c);
    }
    let o = cmd
        .run()
        .map_err(|e| format!("an error: it could not start ({e})"))?;
    match o.end {
        pawl_process::End::Exited(0) => Ok(()),
        end => Err(format!(
            "an error: it {end}{}",
            String::from_utf8_lossy(&o.stderr.tail)
                .lines()
                .rfind(|l| !l.trim().is_empty())
                .map(|l| format!(" (its last words: {})", l.trim()))
                .unwrap_or_default()
        )),
    }
}

/// The tester's answer when it is an agent session: its files, as JSON (pawl writes them).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Files {
    files: Vec<File>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    path: String,
    text: String,
}

/// An agent tester: one fresh read-only session in the copy, asked for test files as JSON.
fn ask_agent(
    agent: Option<&mut dyn Reviewer>,
    copy: &Path,
    goal: &str,
    out: &Path,
    record: &mut TesterRecord,
) -> Result<(), String> {
    let Some(agent) = agent else {
        return Err("this front end cannot start the tester's session".into());
    };
    // The run's stop and interrupt reach the session through the agent's own control
    // (`AgentReviewer::stopped_by`); nothing else halts it.
    let said = agent.ask(copy, &prompt(goal), &|| None);
    record.session_id = said.session_id.clone();
    record.cost_usd = said.cost_usd;
    if let Some(why) = said.stopped.or(said.failed) {
        return Err(why);
    }
    let files: Files = crate::pipeline::structured::parse::<Files>(&said.text)
        .map_err(|e| format!("no usable answer: {e}"))?;
    for f in files.files.iter().take(MAX_FILES) {
        let name = Path::new(&f.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.is_empty() || name.starts_with('.') || f.text.len() as u64 > MAX_FILE {
            continue;
        }
        std::fs::write(out.join(&name), &f.text).map_err(|e| format!("cannot keep {name}: {e}"))?;
    }
    Ok(())
}

/// What the agent tester is asked.
pub fn prompt(goal: &str) -> String {
    format!(
        "{}\nYou are an independent tester. Another session will change this repository to meet the goal below; you will never see its work, and it will never see your tests.\n\nGoal: {goal}\n\nRead the repository (read-only). Write tests of the goal's behaviour in the project's own test framework, on inputs OTHER than those its existing tests use: each test a call with literal arguments and its expected value (`assert f(7) == 'x'`, `expect(f(7)).toBe('x')`, `if got := F(7); got != \"x\"`, `assert_eq!(f(7), \"x\")`), calling the functions the goal concerns by the names the code has or will have. Answer with one JSON object and nothing else: {{\"files\": [{{\"path\": \"test_hidden.py\", \"text\": \"...\"}}]}}",
        pawl_core::tester::MARKER
    )
}
