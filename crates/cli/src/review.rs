//! What the commands that look back at runs share (`pawl diff`, `pawl logs`, `pawl merge`,
//! `pawl clean`): whether a run is finished (nothing drives it any more), the run's branch and
//! where it stands, the branch it started from, and its step logs.
//!
//! Not here: git itself (pawl-git), the verification `pawl merge` runs (pawl-engine), or what
//! each command prints.

use std::path::{Path, PathBuf};

use pawl_core::EventKind;
use pawl_core::model::RunStatus;
use pawl_core::record::Run;
use pawl_git::{CommitId, Repo};
use pawl_store::Store;

use crate::error::{CliError, CliResult};

/// Whether a run is being worked on: active or awaiting the user, or held by a live lease (a
/// driver or a session still at it).
pub fn is_open(store: &Store, run: &Run) -> CliResult<bool> {
    if matches!(run.status, RunStatus::Active | RunStatus::AwaitingUser) {
        return Ok(true);
    }
    lease_live(store, &run.id)
}

/// Whether a live process holds the run's lease (expired or dead holders do not count).
pub fn lease_live(store: &Store, run_id: &str) -> CliResult<bool> {
    Ok(store.lease(run_id)?.is_some_and(|l| {
        l.expires_at > jiff::Timestamp::now().as_millisecond()
            && (l.host != crate::owner::hostname() || crate::owner::holder_alive(&l))
    }))
}

/// Refuses `what` inside an agent step (pawl gives every step `PAWL_RUN_ID`): merging and
/// deleting branches are the user's decisions, whichever run the agent works for. (The guard
/// denies these verbs to agents too; this holds where no guard runs.)
pub fn refuse_inside_agent(what: &str) -> CliResult {
    match std::env::var("PAWL_RUN_ID") {
        Ok(run) if !run.is_empty() => Err(CliError::Failed(format!(
            "{what} is the user's decision: it cannot be made from run {run}'s agent step"
        ))),
        _ => Ok(()),
    }
}

/// The sandbox branch pawl makes for a run on a protected branch.
pub fn sandbox_name(run: &Run) -> String {
    format!("pawl/{}", run.id)
}

/// A run's branch and the commit it points to now.
#[derive(Debug, Clone)]
pub struct RunBranch {
    pub name: String,
    pub head: CommitId,
}

/// The run's branch as it is now; an error that says what happened when the run recorded none
/// or the branch is gone.
pub fn branch(repo: &Repo, run: &Run) -> CliResult<RunBranch> {
    let Some(name) = run.branch.clone() else {
        return Err(CliError::Failed(format!(
            "run {} recorded no branch (it started on a detached HEAD)",
            run.id
        )));
    };
    match repo.branch_head(&name)? {
        Some(head) => Ok(RunBranch { name, head }),
        None => Err(CliError::Failed(format!(
            "run {}'s branch {name} no longer exists (deleted, or removed by `pawl clean` after it was merged)",
            run.id
        ))),
    }
}

/// The run's pre-run commit.
pub fn pre_run(run: &Run) -> CliResult<CommitId> {
    run.pre_run_commit
        .clone()
        .and_then(CommitId::new)
        .ok_or_else(|| {
            CliError::Failed(format!(
                "run {} recorded no pre-run commit: there is nothing to compare it with",
                run.id
            ))
        })
}

/// The branch the run's sandbox was made from, as recorded when it was made.
pub fn started_from(store: &Store, run: &Run) -> CliResult<Option<String>> {
    Ok(store
        .last_event(&run.id, EventKind::SandboxBranch)?
        .and_then(|e| e.data["from"].as_str().map(str::to_owned)))
}

/// One step log of a run: `.pawl/logs/<run>-iter-<n>.log`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct StepLog {
    pub iteration: u32,
    pub path: PathBuf,
}

/// The run's step logs in `logs_dir`, by iteration.
pub fn step_logs(logs_dir: &Path, run_id: &str) -> CliResult<Vec<StepLog>> {
    let entries = match std::fs::read_dir(logs_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(CliError::Io {
                context: format!("cannot list {}", logs_dir.display()),
                source: e,
            });
        }
    };
    let prefix = format!("{run_id}-iter-");
    let mut logs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(CliError::io(format!("cannot list {}", logs_dir.display())))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(n) = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".log"))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        logs.push(StepLog {
            iteration: n,
            path: entry.path(),
        });
    }
    logs.sort();
    Ok(logs)
}
