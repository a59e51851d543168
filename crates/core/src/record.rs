//! The stored records of a run, as the store returns them and the CLI, engine and reports use
//! them. Times are milliseconds since the Unix epoch (UTC).

use serde::{Deserialize, Serialize};

use crate::config::{Breakers, Limits, Stall};
use crate::exit::StopReason;
use crate::failure::FailureCategory;
use crate::model::{
    BlockerStatus, CriterionStatus, Driver, RunStatus, Severity, Size, StoryStatus, Verification,
};
use crate::tdd::TddPhase;

/// The limits a run was created with: persisted, raised only by the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct RunSettings {
    pub limits: Limits,
    pub breakers: Breakers,
    pub stall: Stall,
    /// The agent the run was started with (a resume drives the same one).
    #[serde(default)]
    pub agent: Option<crate::config::AgentConfig>,
    /// The scenario of a replay run.
    #[serde(default)]
    pub replay_scenario: Option<String>,
    /// Git rails chosen when the run started.
    #[serde(default)]
    pub git: crate::config::GitConfig,
    /// The guard's policy when the run started: the guard of this run judges by it, whatever
    /// `pawl.toml` says later (an agent that edits the file cannot loosen its own guard).
    /// `None` for runs stored before pawl kept it: the current configuration applies.
    #[serde(default)]
    pub guard: Option<crate::config::GuardConfig>,
    /// The checks and their environment, fixed when the run started (`None` for runs stored
    /// before pawl sealed them: the seal is made when such a run is resumed, as an event).
    #[serde(default)]
    pub seal: Option<crate::seal::Seal>,
    /// The sandbox of the run's agent steps, fixed when it started (an agent that edits
    /// `pawl.toml` cannot turn it off for a resume). `None` for runs stored before pawl kept
    /// it: the defaults apply (sandbox on, not required).
    #[serde(default)]
    pub sandbox: Option<crate::config::SandboxConfig>,
    /// The run's "must not" rules (`--must-not`, `[run] must_not`; `pawl_core::must_not`),
    /// fixed when it started: after every agent step the tree and the step's commands are
    /// checked against them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub must_not: Vec<String>,
    /// How many stories of a plan run at once (`--workers`, `[parallel] workers`), fixed when
    /// the run started (a resume keeps it). `None`: not a planned run, or stored before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub id: String,
    pub goal: String,
    pub status: RunStatus,
    pub driver: Driver,
    pub mode: Option<String>,
    pub phase: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub ended_at: Option<i64>,
    pub stop_reason: Option<StopReason>,
    pub settings: RunSettings,
    pub branch: Option<String>,
    pub pre_run_commit: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Criterion {
    pub id: String,
    pub text: String,
    pub verification: Verification,
    pub status: CriterionStatus,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Story {
    pub id: String,
    pub title: String,
    pub size: Size,
    pub security: bool,
    pub status: StoryStatus,
    pub tdd_phase: TddPhase,
    /// Failed attempts so far.
    pub attempts: u32,
    pub max_attempts: u32,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub id: i64,
    pub story_id: Option<String>,
    pub message: String,
    pub category: FailureCategory,
    /// True when pawl classified the message; false when the caller gave the category.
    pub auto_classified: bool,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Blocker {
    pub id: String,
    pub text: String,
    pub severity: Severity,
    pub status: BlockerStatus,
    /// What the user must do (set by `await-user`).
    pub instructions: Option<String>,
    /// A command that proves the fix (exit 0).
    pub check_command: Option<String>,
    pub resolution_notes: Option<String>,
    pub created_at: i64,
    pub resolved_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clarification {
    pub id: i64,
    pub question: String,
    pub answer: String,
    pub phase: String,
    pub category: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub id: i64,
    pub text: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub seq: i64,
    pub run_id: Option<String>,
    pub at: i64,
    /// The kind as stored (a newer pawl may have written kinds this one does not know).
    pub kind: String,
    pub data: serde_json::Value,
}

impl Event {
    /// Whether this event is of `kind`.
    pub fn is(&self, kind: crate::EventKind) -> bool {
        self.kind == kind.as_str()
    }
}

/// Who owns a run right now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lease {
    pub run_id: String,
    pub pid: u32,
    pub host: String,
    pub token: String,
    pub acquired_at: i64,
    pub heartbeat_at: i64,
    pub expires_at: i64,
    /// Agent session ids bound to the run.
    pub sessions: Vec<String>,
}

/// What a process may do about a lease another holds (the same rule for a run's lease and a
/// story's): take it when it is free, its own, expired, or held by a process that is gone from
/// this machine; otherwise it is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseClaim {
    /// Held by the same process (`pid` on `host`): it takes it again.
    Own,
    /// Past its expiry: the holder stopped renewing it.
    Expired,
    /// Its holder ran on this machine and is gone.
    HolderGone,
    /// Held by a live process (or one elsewhere whose lease has not expired).
    Held,
}

impl LeaseClaim {
    /// Why a takeover happens, for its event (`None`: no takeover).
    pub fn takeover_why(self) -> Option<&'static str> {
        match self {
            LeaseClaim::Expired => Some("expired"),
            LeaseClaim::HolderGone => Some("holder process is gone"),
            LeaseClaim::Own | LeaseClaim::Held => None,
        }
    }
}

impl Lease {
    /// How `pid` on `host` may claim this lease at `now`. `alive` is asked only about a holder
    /// on `host` (a pid means nothing on another machine).
    pub fn claim(
        &self,
        now: i64,
        pid: u32,
        host: &str,
        alive: &dyn Fn(&Lease) -> bool,
    ) -> LeaseClaim {
        if self.pid == pid && self.host == host {
            LeaseClaim::Own
        } else if self.expires_at <= now {
            LeaseClaim::Expired
        } else if self.host == host && !alive(self) {
            LeaseClaim::HolderGone
        } else {
            LeaseClaim::Held
        }
    }
}

/// One agent step of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Iteration {
    pub n: u32,
    pub story_id: Option<String>,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub prompt: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost_usd: f64,
    pub cost_estimated: bool,
    pub tool_calls: u32,
    pub files: Vec<String>,
    /// `completed`, `agent_error`, `timeout`, `stopped`, `interrupted`, ...
    pub outcome: Option<String>,
    pub session_id: Option<String>,
    pub duration_ms: Option<u64>,
    pub active_ms: u64,
    pub facts: Option<crate::judge::IterationFacts>,
    /// One line for the report: what verification said after this step.
    pub summary: Option<String>,
}

/// What a finished step reports to the store.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IterationEnd {
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost_usd: f64,
    pub cost_estimated: bool,
    pub tool_calls: u32,
    pub files: Vec<String>,
    pub outcome: String,
    pub session_id: Option<String>,
    pub duration_ms: u64,
    /// Counted against `max_time` (rate-limit waits excluded).
    pub active_ms: u64,
    pub facts: crate::judge::IterationFacts,
    pub summary: String,
}

/// How one test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    Passed,
    Failed,
    /// Skipped, ignored (`#[ignore]`), deselected or otherwise not run though collected.
    Skipped,
    /// Marked as an expected failure (pytest `xfail`): it runs, but a failure does not count.
    XFailed,
}

/// One test's outcome under a stable id (the same test has the same id in every run of the same
/// runner: a pytest node id, a libtest path, a jest `file > describe > name`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TestOutcome {
    pub id: String,
    pub status: TestStatus,
}

/// Whether a baseline failure that is no longer reported stood for tests that now run in its
/// place: a Go package that did not build at the baseline (`example.com/calc`, failed) whose
/// tests are reported one by one now (`example.com/calc/TestAdd`). Not gone: replaced.
pub fn replaced_by_its_tests(id: &str, outcomes: &[TestOutcome]) -> bool {
    let prefix = format!("{id}/");
    !id.is_empty() && outcomes.iter().any(|o| o.id.starts_with(&prefix))
}

/// The failing tests a check's run names, each once: the ids of its failed outcomes, then the
/// runner's failing names that are none of those tests under another name. jest prints a
/// failure as `● describe › test` (a bare `● test` outside a describe) and a JSON report's
/// `fullName` joins the titles with spaces, where the same test's id is `file > describe >
/// test`: read as two, the one test was targeted twice, the second time without its file.
pub fn failing_test_ids<'a>(outcomes: &'a [TestOutcome], failing: &'a [String]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for id in outcomes
        .iter()
        .filter(|o| o.status == TestStatus::Failed)
        .map(|o| o.id.as_str())
    {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    let ids = out.len();
    for name in failing.iter().map(|n| n.trim()) {
        if !name.is_empty()
            && !out[..ids].iter().any(|id| same_test(id, name))
            && !out.contains(&name)
        {
            out.push(name);
        }
    }
    out
}

/// Whether a runner's failing `name` is test `id` (`file > describe > test`): the id itself,
/// or its last titles joined as the runner prints them (`describe › test`, `describe test`,
/// `test`).
fn same_test(id: &str, name: &str) -> bool {
    if id == name {
        return true;
    }
    let parts: Vec<&str> = id.split(" > ").map(str::trim).collect();
    (1..parts.len()).any(|from| {
        let tail = &parts[from..];
        [" › ", " > ", " "].iter().any(|sep| tail.join(sep) == name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One failing test, once (issue 35): jest names a failure by its titles (`● d › t`, a bare
    /// `● t`, a JSON `fullName` `d t`) where its id is `file > d > t`. Rows: (failed ids, the
    /// runner's failing names, the failing tests). Seen failing before the rule (both lists
    /// chained: the bare titles came out as second tests).
    #[test]
    fn a_failing_test_is_named_once_whatever_the_runner_calls_it() {
        let rows: &[(&[&str], &[&str], &[&str])] = &[
            // jest's human output: `● describe › test`.
            (
                &["t/h.test.js > decodeHex > round trip"],
                &["decodeHex › round trip"],
                &["t/h.test.js > decodeHex > round trip"],
            ),
            // A test outside any describe: the bare title.
            (&["t/h.test.js > adds"], &["adds"], &["t/h.test.js > adds"]),
            // A JSON report's fullName (titles joined by spaces).
            (
                &["t/h.test.ts > decodeHex > round trip"],
                &["decodeHex round trip"],
                &["t/h.test.ts > decodeHex > round trip"],
            ),
            // pytest: the same node id in both lists.
            (
                &["tests/test_a.py::test_add"],
                &["tests/test_a.py::test_add"],
                &["tests/test_a.py::test_add"],
            ),
            // A failure no id names (a file that failed to run) stays.
            (
                &["t/a.test.js > adds"],
                &["adds", "t/b.test.js"],
                &["t/a.test.js > adds", "t/b.test.js"],
            ),
            // No outcomes: the names, each once.
            (&[], &["d › t", "d › t", "u"], &["d › t", "u"]),
            // A title is not a part of another title.
            (
                &["f > d > round trip"],
                &["trip"],
                &["f > d > round trip", "trip"],
            ),
        ];
        for (ids, failing, want) in rows {
            let mut outcomes: Vec<TestOutcome> = ids
                .iter()
                .map(|id| TestOutcome {
                    id: (*id).into(),
                    status: TestStatus::Failed,
                })
                .collect();
            outcomes.push(TestOutcome {
                id: "f > passes".into(),
                status: TestStatus::Passed,
            });
            let failing: Vec<String> = failing.iter().map(|s| (*s).into()).collect();
            assert_eq!(
                failing_test_ids(&outcomes, &failing),
                *want,
                "{ids:?} {failing:?}"
            );
        }
    }

    /// The one rule for a run's lease and a story's: (holder pid, holder host, expires at,
    /// holder alive) as seen by pid 2 on host `a` at time 100.
    #[test]
    fn a_lease_is_claimed_only_when_its_own_expired_or_its_holder_gone() {
        for (pid, host, expires_at, alive, want) in [
            (2, "a", 200, true, LeaseClaim::Own),
            (2, "a", 50, false, LeaseClaim::Own),
            (1, "a", 100, true, LeaseClaim::Expired),
            (1, "b", 50, true, LeaseClaim::Expired),
            (1, "a", 200, false, LeaseClaim::HolderGone),
            (1, "a", 200, true, LeaseClaim::Held),
            // A pid means nothing on another machine: held until it expires.
            (1, "b", 200, false, LeaseClaim::Held),
            (2, "b", 200, false, LeaseClaim::Held),
        ] {
            let lease = Lease {
                run_id: "r".into(),
                pid,
                host: host.into(),
                token: "t".into(),
                acquired_at: 0,
                heartbeat_at: 0,
                expires_at,
                sessions: Vec::new(),
            };
            assert_eq!(
                lease.claim(100, 2, "a", &|_| alive),
                want,
                "{pid}@{host} until {expires_at}, alive {alive}"
            );
        }
        assert_eq!(LeaseClaim::Held.takeover_why(), None);
        assert_eq!(LeaseClaim::Own.takeover_why(), None);
        assert_eq!(LeaseClaim::Expired.takeover_why(), Some("expired"));
    }

    /// A Go package that did not build at the baseline is reported as one failing id; once it
    /// builds its tests are reported one by one: replaced, not "put out of the way" (session
    /// 18: the screen's honest `go-honest-lookup-table` ended REVIEW on it). A test whose name
    /// only begins the same, or no test at all, is no replacement.
    #[test]
    fn a_package_that_did_not_build_is_replaced_by_its_tests() {
        let now = |ids: &[&str]| -> Vec<TestOutcome> {
            ids.iter()
                .map(|id| TestOutcome {
                    id: (*id).to_owned(),
                    status: TestStatus::Passed,
                })
                .collect()
        };
        for (id, outcomes, replaced) in [
            (
                "example.com/fixture/semver",
                now(&["example.com/fixture/semver/TestParse"]),
                true,
            ),
            (
                "example.com/fixture/semver",
                now(&["example.com/fixture/semverx/TestParse"]),
                false,
            ),
            ("example.com/fixture/semver", now(&[]), false),
            (
                "example.com/a/TestParse",
                now(&["example.com/a/TestParseAll"]),
                false,
            ),
            ("", now(&["/x"]), false),
        ] {
            assert_eq!(replaced_by_its_tests(id, &outcomes), replaced, "{id}");
        }
    }
}
