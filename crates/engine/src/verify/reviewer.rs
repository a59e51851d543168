//! The independent reviewer's session (issue 34 point 3; the decisions are
//! `pawl_core::review`'s): a fresh session of the configured agent — never the executor's, never
//! resumed — started read-only (`pawl_agent::build_reviewer_adapter`), shown the goal, the
//! screen's findings and the run's diff, and asked whether the change special-cases the tests or
//! the environment. pawl does not trust the agent CLI's read-only flags alone: the tree is hashed
//! before and after the session, and a session that changed it has its answer thrown away (a
//! finding). An answer that is not the typed one is a finding too (fail closed).
//!
//! Not here: whether the run has a reviewer (`pawl_core::review::decide`), the verdict
//! (`pawl_core::proof::judge` reads `Proof::reviewer_findings`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use pawl_agent::{Adapter, StepRequest};
use pawl_core::review::{self, Answer, Verdict};
use serde::{Deserialize, Serialize};

use crate::control::Control;

/// The most of the run's diff a reviewer is shown.
const MAX_DIFF_BYTES: usize = 256 * 1024;

/// One session of the reviewer: what it said, as the agent CLI reported it.
#[derive(Debug, Clone, Default)]
pub struct Said {
    pub session_id: Option<String>,
    /// All its assistant text and the final result text.
    pub text: String,
    /// Why the session did not end normally (spawn error, timeout, the agent's own error).
    pub failed: Option<String>,
    /// Tool uses the agent CLI refused (what a read-only session tried and was not allowed).
    pub refused: u32,
    pub cost_usd: f64,
}

/// Who answers a review: the agent session in production, a script in tests.
pub trait Reviewer: Send {
    /// The agent's name (`claude`, `codex`, `gemini`).
    fn agent(&self) -> String;
    /// One fresh session on `prompt`, in `cwd`.
    fn ask(&mut self, cwd: &Path, prompt: &str) -> Said;
}

/// The production reviewer: one step of the read-only adapter.
pub struct AgentReviewer {
    adapter: Box<dyn Adapter>,
    idle: Duration,
    step: Duration,
    /// Where each session's log goes (one file per session).
    logs: PathBuf,
    run_id: String,
    asked: u32,
}

impl AgentReviewer {
    pub fn new(
        adapter: Box<dyn Adapter>,
        stall: &pawl_core::config::Stall,
        logs: PathBuf,
        run_id: &str,
    ) -> AgentReviewer {
        AgentReviewer {
            adapter,
            idle: stall.idle_timeout.0,
            step: stall.step_timeout.0,
            logs,
            run_id: run_id.to_owned(),
            asked: 0,
        }
    }
}

impl Reviewer for AgentReviewer {
    fn agent(&self) -> String {
        self.adapter.name().to_owned()
    }

    fn ask(&mut self, cwd: &Path, prompt: &str) -> Said {
        self.asked += 1;
        let _ = std::fs::create_dir_all(&self.logs);
        let log = self.logs.join(format!("reviewer-{}.log", self.asked));
        let req = StepRequest {
            prompt: prompt.to_owned(),
            cwd: cwd.to_path_buf(),
            run_id: self.run_id.clone(),
            iteration: 0,
            // A fresh session: the executor's context is never the reviewer's.
            resume_session: None,
            session_spent_usd: None,
            model: None,
            env: Vec::new(),
        };
        // Its own control: a stop of the run ends the run's steps, the reviewer's step ends by
        // its timeouts (a stop during it leaves the verdict without the reviewer: a finding).
        let control = Control::new(self.logs.join("reviewer-stop"));
        let out = crate::step::run_step(
            self.adapter.as_mut(),
            &req,
            None,
            self.idle,
            self.step,
            &log,
            pawl_core::config::DEFAULT_MAX_LOG_MIB << 20,
            &control,
            &mut || {},
            &mut |_| {},
        );
        let failed = if let Some(e) = &out.spawn_error {
            Some(format!("it could not be started: {e}"))
        } else if out.agent_error() || out.killed {
            Some(format!(
                "the session ended `{}`{}",
                out.outcome_label(),
                out.errors
                    .first()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ))
        } else {
            None
        };
        Said {
            session_id: out.session_id.clone(),
            text: out.text.clone(),
            failed,
            refused: out.permission_denials,
            cost_usd: out.cost_usd,
        }
    }
}

/// What the reviewer came to on one tree, as stored with the verification and shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewRecord {
    /// The agent that answered.
    pub agent: String,
    /// Why the run has a reviewer (`pawl_core::review::Decision::why`).
    pub why: String,
    pub session_id: Option<String>,
    /// The tree it reviewed (the verification's).
    pub tree: String,
    pub verdict: Verdict,
    /// Its answer, when it gave the typed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
    /// Tool uses its agent CLI refused it (writes a read-only session tried).
    #[serde(default)]
    pub refused: u32,
    #[serde(default)]
    pub cost_usd: f64,
    /// The session ran for this verification (not a record reused from the last verification
    /// of the same tree): its cost is charged to the iteration (`turn::record`). Never stored,
    /// so a record read back is never charged twice.
    #[serde(skip)]
    pub asked_now: bool,
}

impl ReviewRecord {
    /// What this record costs the iteration it was made in: its session's cost when it ran
    /// now, nothing when reused.
    pub fn charge_usd(&self) -> f64 {
        if self.asked_now {
            self.cost_usd.max(0.0)
        } else {
            0.0
        }
    }

    /// The findings it adds to the verification.
    pub fn findings(&self) -> Vec<String> {
        self.verdict.findings(self.session_id.as_deref())
    }

    /// A record without a session (no reviewer could be started here).
    pub fn unasked(why: String, tree: &str, because: &str) -> ReviewRecord {
        ReviewRecord {
            agent: String::new(),
            why,
            session_id: None,
            tree: tree.to_owned(),
            verdict: Verdict::NoAnswer {
                why: because.to_owned(),
            },
            answer: None,
            refused: 0,
            cost_usd: 0.0,
            asked_now: false,
        }
    }
}

/// What to review: the run's goal, its diff between `base` and `tree`, the screen's findings.
pub struct Input<'a> {
    pub root: &'a Path,
    pub goal: &'a str,
    pub base: &'a str,
    pub tree: &'a str,
    pub findings: &'a [String],
    pub why: &'a str,
}

/// One review of `input` by `reviewer`: the run's diff, then [`review_diff`] with the tree
/// compared before and after the session.
pub fn review(reviewer: &mut dyn Reviewer, input: &Input<'_>) -> ReviewRecord {
    let repo = pawl_git::Repo::open(input.root);
    let diff = repo
        .as_ref()
        .ok()
        .and_then(|r| r.diff_patch(input.base, input.tree).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    // The tree after the session: a reviewer that wrote into it is not read.
    let changed = || {
        let after = repo
            .as_ref()
            .ok()
            .and_then(|r| r.tree_hash().ok())
            .map(|t| t.to_string());
        match after {
            Some(t) if t == input.tree => None,
            Some(t) => {
                let paths: Vec<String> = repo
                    .as_ref()
                    .ok()
                    .and_then(|r| r.changes_between(input.tree, &t).ok())
                    .unwrap_or_default()
                    .iter()
                    .take(5)
                    .map(|c| format!("`{}`", c.path.display()))
                    .collect();
                Some(if paths.is_empty() {
                    format!("the tree is {t}, not the verified {}", input.tree)
                } else {
                    format!("it changed {}", paths.join(", "))
                })
            }
            None => Some("the tree could not be read after its session".into()),
        }
    };
    let mut record = review_diff(
        reviewer,
        input.root,
        input.goal,
        input.findings,
        &diff,
        input.why,
        &changed,
    );
    record.tree = input.tree.to_owned();
    record
}

/// One review of `diff` by `reviewer` in `cwd`: the prompt (`pawl_core::review::prompt`), one
/// fresh session, `changed` asked after it (why the session's directory is not what it was), the
/// answer parsed strictly, the verdict. `pawl reviewer` measures a configured reviewer with it.
pub fn review_diff(
    reviewer: &mut dyn Reviewer,
    cwd: &Path,
    goal: &str,
    findings: &[String],
    diff: &str,
    why: &str,
    changed: &dyn Fn() -> Option<String>,
) -> ReviewRecord {
    let mut diff = diff.to_owned();
    if diff.len() > MAX_DIFF_BYTES {
        let mut cut = MAX_DIFF_BYTES;
        while !diff.is_char_boundary(cut) {
            cut -= 1;
        }
        diff.truncate(cut);
        diff.push_str("\n… (cut)\n");
    }
    let prompt = review::prompt(goal, findings, &diff);
    let said = reviewer.ask(cwd, &prompt);
    let changed = changed();
    let answer: Result<Answer, String> = match &said.failed {
        Some(why) => Err(why.clone()),
        None => crate::pipeline::structured::parse::<Answer>(&said.text).map_err(|e| e.to_string()),
    };
    let kept = answer.as_ref().ok().cloned();
    let verdict = Verdict::of(answer, changed);
    ReviewRecord {
        agent: reviewer.agent(),
        why: why.to_owned(),
        session_id: said.session_id,
        tree: String::new(),
        answer: kept.filter(|_| !matches!(verdict, Verdict::ChangedTree { .. })),
        verdict,
        refused: said.refused,
        cost_usd: said.cost_usd,
        asked_now: true,
    }
}
