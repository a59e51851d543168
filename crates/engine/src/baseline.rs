//! The baseline: the sealed checks run on the pre-run tree before the agent's first step. It is
//! what "still passes" and "newly passes" are measured against — which checks and which tests
//! (by id) passed or failed on the code the run started from — and a preflight: a check that
//! cannot even start (command not found, exit 126/127) refuses the run, naming it.
//!
//! What this module is not: the comparison itself (test protection: pawl-verify's `protect`; the
//! rule for "done": `pawl_core::proof`).

use pawl_core::seal::{CheckRole, Seal};
use pawl_verify::gate::Check;
use pawl_verify::parse::TestOutcome;
use pawl_verify::{CheckEnd, RunnerConfig, run_checks};
use serde::{Deserialize, Serialize};

use crate::verify::Workspace;

/// One sealed check on the pre-run tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineCheck {
    pub name: String,
    pub passed: bool,
    /// How it ended ("exited", "timed_out", ...), and its exit code.
    pub end: String,
    pub exit_code: Option<i32>,
    /// Every test the runner reported, by id.
    pub tests: Vec<TestOutcome>,
    /// Failing test names as the runner reported them.
    pub failing: Vec<String>,
}

/// The sealed checks on the pre-run tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Baseline {
    /// The tree they ran on.
    pub tree: String,
    pub checks: Vec<BaselineCheck>,
}

impl Baseline {
    pub fn check(&self, name: &str) -> Option<&BaselineCheck> {
        self.checks.iter().find(|c| c.name == name)
    }
}

/// Why a run may not start.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error(
        "the check `{check}` cannot start ({why}): `{command}` — install what it needs or fix the command in pawl.toml [gates], then start the run again"
    )]
    CannotStart {
        check: String,
        command: String,
        why: String,
    },
    #[error(
        "the acceptance check `{check}` already passes on the pre-run code, so it proves nothing: give a check that fails before the change (`--check`)"
    )]
    AcceptanceAlreadyPasses { check: String },
    #[error("git: {0}")]
    Git(#[from] pawl_git::Error),
    #[error("the clean room: {0}")]
    Room(String),
    #[error(transparent)]
    Hidden(#[from] crate::hidden::HiddenError),
}

impl From<crate::room::RoomError> for BaselineError {
    fn from(e: crate::room::RoomError) -> Self {
        BaselineError::Room(e.to_string())
    }
}

/// The runner's configuration for a seal: its timeout and its environment only.
pub fn runner_for(ws: &Workspace, seal: &Seal, step: u64) -> RunnerConfig {
    let mut cfg = RunnerConfig::new(&ws.root, step);
    cfg.logs_dir = ws.state_dir.join("logs");
    if seal.timeout_ms > 0 {
        cfg.timeout = std::time::Duration::from_millis(seal.timeout_ms);
    }
    if !seal.env.is_empty() {
        cfg.clear_env = true;
        cfg.env = seal.env.iter().map(|(k, v)| (k.into(), v.into())).collect();
    }
    cfg.env.extend(crate::verify::check_env());
    cfg.containment = ws.containment.clone();
    cfg
}

/// Runs the sealed checks on the tree as it is now (before the agent's first step).
pub fn take(ws: &Workspace, seal: &Seal) -> Result<Baseline, BaselineError> {
    let repo = pawl_git::Repo::open(&ws.root)?;
    let tree = repo.tree_hash()?.to_string();
    let step = u64::try_from(jiff::Timestamp::now().as_millisecond()).unwrap_or(0);
    let mut cfg = runner_for(ws, seal, step);
    // In the run's room when it has one (which also warms it for the first verification).
    let _room = match &ws.room {
        Some(dir) => {
            let mut room = crate::room::Room::open(&repo, dir)?;
            let id = pawl_git::TreeHash::new(tree.clone())
                .ok_or_else(|| BaselineError::Room(format!("not a tree id: {tree}")))?;
            room.sync(&repo, &id)?;
            cfg.in_room(&ws.root, room.root());
            Some(room)
        }
        None => None,
    };
    let runs = run_sealed(
        ws,
        Some(seal),
        &crate::hidden::checks_of(seal, ws.vault.as_ref())?,
        &cfg,
    );
    let mut checks = Vec::new();
    for r in runs {
        let exit_code = r.end.exit_code();
        let cannot_start = match &r.end {
            CheckEnd::SpawnFailed { message, .. } => Some(message.clone()),
            _ if matches!(exit_code, Some(126 | 127)) => Some(format!(
                "exit {}: {}",
                exit_code.unwrap_or_default(),
                last_line(&r.tail)
            )),
            _ => None,
        };
        if let Some(why) = cannot_start {
            return Err(BaselineError::CannotStart {
                check: r.check.name.clone(),
                command: r.check.command.clone(),
                why,
            });
        }
        let role = seal
            .checks
            .iter()
            .find(|c| c.name == r.check.name)
            .map(|c| c.role);
        if role == Some(CheckRole::Acceptance) && r.passed {
            return Err(BaselineError::AcceptanceAlreadyPasses {
                check: r.check.name.clone(),
            });
        }
        // The baseline is stored where the agent reads it: a hidden check's tests are not.
        let shown = role != Some(CheckRole::Hidden);
        checks.push(BaselineCheck {
            name: r.check.name.clone(),
            passed: r.passed,
            end: r.end.kind().to_string(),
            exit_code,
            tests: r
                .tests
                .as_ref()
                .filter(|_| shown)
                .map(|t| t.tests.clone())
                .unwrap_or_default(),
            failing: r
                .tests
                .as_ref()
                .filter(|_| shown)
                .map(|t| t.failing.clone())
                .unwrap_or_default(),
        });
    }
    Ok(Baseline { tree, checks })
}

/// The programs the seal's check commands start, resolved on the sealed `PATH`, with the
/// SHA-256 of each file: `name → "<path> <sha256>"` (`"<not found>"` when none is).
/// Hidden checks' commands come from `vault` (one it does not hold names no program).
pub fn tools_of(
    seal: &Seal,
    vault: Option<&crate::hidden::Vault>,
) -> std::collections::BTreeMap<String, String> {
    use sha2::{Digest, Sha256};
    let path = seal.env.get("PATH").cloned().unwrap_or_default();
    let mut out = std::collections::BTreeMap::new();
    let checks = crate::hidden::checks_of(seal, vault).unwrap_or_default();
    for c in &checks {
        let Some(name) = pawl_core::seal::program_of(&c.command) else {
            continue;
        };
        if out.contains_key(name) {
            continue;
        }
        let found = path
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| std::path::Path::new(d).join(name))
            .find(|p| p.is_file());
        let value = match found {
            Some(p) => {
                let real = std::fs::canonicalize(&p).unwrap_or(p);
                let digest = std::fs::read(&real)
                    .map(|b| format!("{:x}", Sha256::digest(&b)))
                    .unwrap_or_else(|_| "unreadable".into());
                format!("{} {digest}", real.display())
            }
            None => "<not found>".into(),
        };
        out.insert(name.to_string(), value);
    }
    out
}

/// Runs `checks`; hidden ones (by the seal) write their logs out of the repository, where the
/// agent reads `.pawl/logs`.
pub fn run_sealed(
    ws: &Workspace,
    seal: Option<&Seal>,
    checks: &[Check],
    cfg: &RunnerConfig,
) -> Vec<pawl_verify::CheckRun> {
    let hidden = |c: &Check| {
        seal.is_some_and(|s| {
            s.checks
                .iter()
                .any(|k| k.name == c.name && k.role == CheckRole::Hidden)
        })
    };
    let (secret, shown): (Vec<Check>, Vec<Check>) = checks.iter().cloned().partition(hidden);
    let mut runs = run_checks(&shown, cfg);
    if !secret.is_empty() {
        let mut hidden_cfg = cfg.clone();
        hidden_cfg.logs_dir = ws.hidden_logs();
        runs.extend(run_checks(&secret, &hidden_cfg));
    }
    // In the order asked for.
    runs.sort_by_key(|r| checks.iter().position(|c| c.name == r.check.name));
    runs
}

fn last_line(tail: &str) -> String {
    tail.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .chars()
        .take(200)
        .collect()
}
