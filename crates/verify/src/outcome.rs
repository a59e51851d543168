//! What running one check produced: how it ended, what it printed (digest, tail, log), the
//! parsed test counts, and the classified failure. Plain data, serialisable, for the store and
//! for `--json`.

use std::path::PathBuf;
use std::time::Duration;

use pawl_core::failure::FailureCategory;
use serde::Serialize;

use crate::diagnostics::Diagnostics;
use crate::gate::Check;
use crate::parse::TestSummary;

/// How a check ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckEnd {
    Exited {
        code: i32,
    },
    Signalled {
        signal: i32,
    },
    /// Stopped by pawl after the timeout (SIGTERM to the group, grace, SIGKILL).
    TimedOut {
        after_ms: u64,
    },
    IdleTimedOut,
    /// Stopped on request (cancellation).
    Stopped,
    /// The command could not be started at all.
    SpawnFailed {
        message: String,
        not_found: bool,
    },
    /// Not run, e.g. because the build failed.
    Skipped {
        reason: String,
    },
    Unknown,
}

impl CheckEnd {
    /// The spelling stored as evidence (`exited`, `timed_out`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            CheckEnd::Exited { .. } => "exited",
            CheckEnd::Signalled { .. } => "signalled",
            CheckEnd::TimedOut { .. } => "timed_out",
            CheckEnd::IdleTimedOut => "idle_timed_out",
            CheckEnd::Stopped => "stopped",
            CheckEnd::SpawnFailed { .. } => "spawn_failed",
            CheckEnd::Skipped { .. } => "skipped",
            CheckEnd::Unknown => "unknown",
        }
    }

    pub fn exit_code(&self) -> Option<i32> {
        match self {
            CheckEnd::Exited { code } => Some(*code),
            _ => None,
        }
    }

    pub fn signal(&self) -> Option<i32> {
        match self {
            CheckEnd::Signalled { signal } => Some(*signal),
            _ => None,
        }
    }

    /// A short phrase for humans: `exit 1`, `timed out after 2s`, ...
    pub fn describe(&self) -> String {
        match self {
            CheckEnd::Exited { code } => format!("exit {code}"),
            CheckEnd::Signalled { signal } => {
                format!("killed by {}", pawl_process::signal_name(*signal))
            }
            CheckEnd::TimedOut { after_ms } => {
                format!("timed out after {}", crate::outcome::human_ms(*after_ms))
            }
            CheckEnd::IdleTimedOut => "stopped: no output for too long".into(),
            CheckEnd::Stopped => "stopped".into(),
            CheckEnd::SpawnFailed { message, .. } => format!("could not start: {message}"),
            CheckEnd::Skipped { reason } => format!("skipped: {reason}"),
            CheckEnd::Unknown => "ended with an unknown status".into(),
        }
    }
}

/// A classified failure of a check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckFailure {
    pub category: FailureCategory,
    /// What failed and the first useful line(s): one line, except for a compiler or linter
    /// error, whose message carries the first error's lines (location, code excerpt).
    pub message: String,
}

/// The result of running one check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckRun {
    pub check: Check,
    /// What ran: `["sh", "-c", <command with {report} substituted>]`.
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub end: CheckEnd,
    pub passed: bool,
    #[serde(serialize_with = "ser_ms")]
    pub duration: Duration,
    pub tests: Option<TestSummary>,
    /// The total coverage (percent) the output reports, when the check is a coverage tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<f64>,
    /// rustc/clippy errors and warnings the output holds (see [`crate::diagnostics`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Diagnostics>,
    /// A failed check's failure items (findings and failing tests, see
    /// [`crate::parse::items`]), for judging it against the baseline; `None` when it passed or
    /// its output could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<pawl_core::against::FailureItem>>,
    /// SHA-256 over the stdout and stderr digests, hex.
    pub output_digest: Option<String>,
    /// The last lines of output, each prefixed `out| ` or `err| ` (bounded), without terminal
    /// escapes.
    pub tail: String,
    /// The complete log (absolute path).
    pub log_path: Option<PathBuf>,
    /// The `{report}` file, when the command asked for one (absolute path).
    pub report_path: Option<PathBuf>,
    pub failure: Option<CheckFailure>,
    /// Processes of the group outlived the command and were killed.
    pub leaked: bool,
    /// The variable pawl added for the runner to name every test (`PYTEST_ADDOPTS=...`, see
    /// [`crate::parse::ids`]); the command itself ran unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_hook: Option<String>,
}

impl CheckRun {
    /// A check that did not run.
    pub fn skipped(check: &Check, cwd: PathBuf, reason: &str) -> CheckRun {
        CheckRun {
            check: check.clone(),
            argv: Vec::new(),
            cwd,
            end: CheckEnd::Skipped {
                reason: reason.to_owned(),
            },
            passed: false,
            duration: Duration::ZERO,
            tests: None,
            coverage: None,
            diagnostics: None,
            items: None,
            output_digest: None,
            tail: String::new(),
            log_path: None,
            report_path: None,
            failure: None,
            leaked: false,
            id_hook: None,
        }
    }
}

fn ser_ms<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `850ms`, `2.0s`, `3m04s`.
pub fn human_ms(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}
