//! The independent reviewer's session (issue 34 point 3; the decisions are
//! `pawl_core::review`'s): a fresh session of the configured agent — never the executor's, never
//! resumed — started read-only (`pawl_agent::build_reviewer_adapter`), shown the goal, the
//! screen's findings and the run's diff, and asked whether the change special-cases the tests or
//! the environment. pawl does not trust the agent CLI's read-only flags alone: the tree is hashed
//! before and after the session, and a session that changed it has its answer thrown away (a
//! finding). An answer that is not the typed one is asked for once more, in a fresh session told
//! what was wrong; a second one is a finding (fail closed). A stop or cancel of the run ends the
//! session at once (its process group killed), and the verification does not finish.
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
    /// Why the session was ended (or not started) for the run: a stop or a cancellation.
    pub stopped: Option<String>,
}

/// Why a reviewer's session must end now, if it must (the run was stopped or cancelled).
pub type Halt<'a> = &'a dyn Fn() -> Option<String>;

/// Who answers a review: the agent session in production, a script in tests.
pub trait Reviewer: Send {
    /// The agent's name (`claude`, `codex`, `gemini`).
    fn agent(&self) -> String;
    /// One fresh session on `prompt`, in `cwd`. While it runs, `halt` says whether the run
    /// must end it now (a stop or cancel): then it ends at once, with [`Said::stopped`].
    fn ask(&mut self, cwd: &Path, prompt: &str, halt: Halt<'_>) -> Said;
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
    /// The run's control: its stop and kill requests end the session.
    control: Option<Control>,
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
            control: None,
        }
    }

    /// This reviewer, its sessions ended by `control`'s stop (`pawl stop`, the first Ctrl-C)
    /// and kill requests, like the run's steps.
    pub fn stopped_by(mut self, control: Control) -> AgentReviewer {
        self.control = Some(control);
        self
    }
}

/// Why the run's `control` ends a reviewer's session, if it does.
fn stop_of(control: Option<&Control>) -> Option<String> {
    let c = control?;
    if c.kill_requested() {
        Some("the run was interrupted".into())
    } else if c.stop_requested() {
        Some("the run was asked to stop (`pawl stop`)".into())
    } else {
        None
    }
}

/// How often a running reviewer asks `halt` (a store read) whether the run was cancelled.
const HALT_EVERY: Duration = Duration::from_millis(500);

impl Reviewer for AgentReviewer {
    fn agent(&self) -> String {
        self.adapter.name().to_owned()
    }

    fn ask(&mut self, cwd: &Path, prompt: &str, halt: Halt<'_>) -> Said {
        let run_control = self.control.clone();
        if let Some(why) = stop_of(run_control.as_ref()).or_else(halt) {
            return Said {
                stopped: Some(why),
                ..Said::default()
            };
        }
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
        // Its own control, killed (the process group) when the run is stopped, interrupted or
        // cancelled: unlike an executor's step, which a stop lets finish, a reviewer's session
        // has nothing to finish for a run that ends now.
        let control = Control::new(self.logs.join("reviewer-stop"));
        let (_, kill) = control.flags();
        let mut stopped: Option<String> = None;
        let mut last_halt = std::time::Instant::now();
        let mut on_tick = || {
            if stopped.is_some() {
                return;
            }
            let mut why = stop_of(run_control.as_ref());
            if why.is_none() && last_halt.elapsed() >= HALT_EVERY {
                last_halt = std::time::Instant::now();
                why = halt();
            }
            if let Some(w) = why {
                kill.store(true, std::sync::atomic::Ordering::SeqCst);
                stopped = Some(w);
            }
        };
        let out = crate::step::run_step(
            self.adapter.as_mut(),
            &req,
            None,
            self.idle,
            self.step,
            &log,
            pawl_core::config::DEFAULT_MAX_LOG_MIB << 20,
            &control,
            &mut on_tick,
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
            stopped,
        }
    }
}

/// A session whose answer could not be used, before the reviewer was asked once more.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Malformed {
    pub session_id: Option<String>,
    /// What was wrong with its answer.
    pub why: String,
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
    /// The sessions asked before the one recorded, whose answers could not be used (at most
    /// one: an unusable answer is asked for once more).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub malformed: Vec<Malformed>,
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
            malformed: Vec::new(),
            asked_now: false,
        }
    }

    /// The run was stopped or cancelled before the reviewer answered: the verification did
    /// not finish (the turn does not judge it, and the next verification asks again).
    pub fn stopped(&self) -> bool {
        matches!(self.verdict, Verdict::Stopped { .. })
    }
}

/// What to review: the run's goal, its diff between `base` and `tree`, the screen's findings.
pub struct Input<'a> {
    pub root: &'a Path,
    /// Why the session must end now, if it must (the run was stopped or cancelled).
    pub halt: Halt<'a>,
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
        input.halt,
    );
    record.tree = input.tree.to_owned();
    record
}

/// One review of `diff` by `reviewer` in `cwd`: the prompt (`pawl_core::review::prompt`), one
/// fresh session, `changed` asked after it (why the session's directory is not what it was), the
/// answer parsed strictly, the verdict. An answer that does not parse (and a session that ended
/// normally without one) is asked for once more, in a fresh session told what was wrong
/// (`pawl_core::review::prompt_again`); the second is the verdict. `halt` ends a session (and
/// the review: [`Verdict::Stopped`]) when the run is stopped or cancelled. `pawl reviewer`
/// measures a configured reviewer with it.
#[expect(
    clippy::too_many_arguments,
    reason = "the review's parts, each from another place (the run, `pawl reviewer`)"
)]
pub fn review_diff(
    reviewer: &mut dyn Reviewer,
    cwd: &Path,
    goal: &str,
    findings: &[String],
    diff: &str,
    why: &str,
    changed: &dyn Fn() -> Option<String>,
    halt: Halt<'_>,
) -> ReviewRecord {
    let mut diff = diff.to_owned();
    super::locked::cut_diff(&mut diff, MAX_DIFF_BYTES);
    let prompt = review::prompt(goal, findings, &diff);
    let parse = |said: &Said| -> Result<Answer, String> {
        match &said.failed {
            Some(why) => Err(why.clone()),
            None => {
                crate::pipeline::structured::parse::<Answer>(&said.text).map_err(|e| e.to_string())
            }
        }
    };
    let mut said = reviewer.ask(cwd, &prompt, halt);
    let mut tree_changed = changed();
    let mut answer = parse(&said);
    let (mut refused, mut cost_usd) = (said.refused, said.cost_usd);
    let mut malformed: Vec<Malformed> = Vec::new();
    // One more fresh session for an answer that was given but cannot be read: not for a
    // session that failed (it would fail again), changed the tree, or was stopped.
    if let Err(wrong) = &answer
        && said.failed.is_none()
        && said.stopped.is_none()
        && tree_changed.is_none()
    {
        malformed.push(Malformed {
            session_id: said.session_id.clone(),
            why: wrong.clone(),
        });
        said = reviewer.ask(cwd, &review::prompt_again(&prompt, wrong), halt);
        tree_changed = changed();
        refused += said.refused;
        cost_usd += said.cost_usd;
        answer = parse(&said).map_err(|e| format!("asked twice; the second answer: {e}"));
    }
    let kept = answer.as_ref().ok().cloned();
    let verdict = match &said.stopped {
        Some(why) if tree_changed.is_none() => Verdict::Stopped { why: why.clone() },
        _ => Verdict::of(answer, tree_changed),
    };
    ReviewRecord {
        agent: reviewer.agent(),
        why: why.to_owned(),
        session_id: said.session_id,
        tree: String::new(),
        answer: kept.filter(|_| matches!(verdict, Verdict::Clear | Verdict::Flagged { .. })),
        verdict,
        refused,
        cost_usd,
        malformed,
        asked_now: true,
    }
}
