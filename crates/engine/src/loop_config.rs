//! What a driver is given and what it tells: the loop's configuration ([`LoopConfig`], the
//! driving [`Owner`], the [`AfterStep`] hook), the part of a run one pass works on ([`Scope`]),
//! the events an observer sees ([`LoopEvent`]) and how a loop ended ([`LoopEnd`]).
//!
//! Below the attempt, the turn and the drivers, which all speak these types: nothing here
//! calls up into them (the driver sequences; the turn decides; this module only names).

use std::path::PathBuf;

use pawl_agent::AgentEvent;
use pawl_core::StopReason;
use pawl_core::record::Lease;
use pawl_store::Store;
use serde::Serialize;

use crate::verify::VerifyReport;

/// What the loop tells its observer (the CLI prints it).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LoopEvent {
    Started {
        run_id: String,
        resumed: bool,
        interrupted_iterations: Vec<u32>,
    },
    IterationStarted {
        n: u32,
        max: u32,
        story: Option<String>,
    },
    Agent {
        n: u32,
        event: AgentEvent,
    },
    Waiting {
        seconds: u64,
        why: String,
    },
    StallRecovered {
        n: u32,
        recoveries: u32,
    },
    Iteration {
        n: u32,
        max: u32,
        outcome: String,
        checks_passing: usize,
        checks_total: usize,
        usd: f64,
        max_usd: f64,
        active_ms: u64,
        summary: String,
    },
    StorySkipped {
        story: String,
        attempts: u32,
    },
    Finished {
        reason: StopReason,
        exit_code: i32,
    },
    /// pawl starts verifying iteration `n`: these checks (names) run now.
    Verifying {
        n: u32,
        checks: Vec<String>,
    },
    /// A pipeline phase started (`outcome` none) or ended.
    Phase {
        phase: String,
        round: u32,
        outcome: Option<String>,
        note: String,
    },
    /// A reviewer session's verdict (architect, critic, security, reviewer, qa).
    Verdict {
        role: String,
        round: u32,
        story: Option<String>,
        approve: bool,
        session_id: Option<String>,
        blocking: usize,
        summary: String,
    },
    /// A story of a plan run in parallel changed state (started in its worktree, queued,
    /// merged, sent back by the merge queue, out of attempts).
    Story {
        story: String,
        state: String,
        merge: String,
        note: String,
    },
    /// The pipeline's progress report (every 3 stories or 30 minutes).
    Progress {
        stories_done: u32,
        stories_total: u32,
        verified: usize,
        criteria: usize,
        active_ms: u64,
    },
}

/// Who is driving (for the lease).
#[derive(Debug, Clone)]
pub struct Owner {
    pub pid: u32,
    pub host: String,
    pub is_alive: fn(&Lease) -> bool,
}

/// Everything the loop needs besides the store.
pub struct LoopConfig {
    pub root: PathBuf,
    pub logs_dir: PathBuf,
    /// Where the logs of sessions whose output the agent must not read go (adversarial QA's,
    /// which name the run's hidden checks): the user's pawl state. `None`: `logs_dir`.
    pub private_logs_dir: Option<PathBuf>,
    pub model: Option<String>,
    /// Extra environment for the agent.
    pub agent_env: Vec<(String, String)>,
    pub owner: Owner,
    /// For tests: how long one unit of rate-limit backoff is (production: as the provider says).
    pub rate_limit_scale: f64,
    /// Commit each completed story (`[git] auto_commit`).
    pub auto_commit: bool,
    /// How agent steps are launched: contained (every process of the step ends with it) and
    /// sandboxed (docs/sandbox.md). `None`: spawned directly.
    pub containment: Option<pawl_process::Containment>,
    /// Called after every agent step has ended (all its processes gone), before anything is
    /// verified: the CLI takes in what the step asked of pawl through its mailbox.
    pub after_step: Option<AfterStep>,
    /// Called before every agent step starts (HOME's manifest is taken: `start::home`).
    pub before_step: Option<AfterStep>,
    /// The independent tester's session when it is the configured agent (`crate::tester`):
    /// read-only, asked once before the executor's first step. `None`: a command tester (the
    /// seal's) or none.
    pub tester: Option<std::sync::Mutex<Box<dyn crate::verify::reviewer::Reviewer>>>,
}

/// See [`LoopConfig::after_step`]: the store and the run id.
pub type AfterStep = Box<dyn Fn(&mut Store, &str) + Send + Sync>;

/// How the loop ended.
#[derive(Debug, Clone, Serialize)]
pub struct LoopEnd {
    pub reason: StopReason,
    pub last: Option<VerifyReport>,
    /// A sub-loop ended because the plan, not the code, is wrong (a spec failure in a mode that
    /// plans): why, for the next planner session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replan: Option<String>,
}

/// What part of a run one pass of the loop works on. The default is the whole run (the
/// headless driver); the pipeline's execute phase runs the same loop as a sub-loop on one story.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scope {
    /// Work on this story only; when it runs out of attempts the sub-loop ends with
    /// `NoStoryCanProgress` (the pipeline moves on to the next story).
    pub story: Option<String>,
    /// Put at the top of every prompt (the role and the story's plan).
    pub preamble: Option<String>,
    /// End as soon as every check passes (the pipeline's review and QA decide the rest), not only
    /// when the whole run is done.
    pub until_checks_pass: bool,
    /// Start a fresh agent session instead of continuing the last one.
    pub fresh_session: bool,
    /// The run's mode has a plan to go back to: a spec failure ends the sub-loop with
    /// [`LoopEnd::replan`] instead of waiting on the user.
    pub plans: bool,
    /// One of several workers of the parallel driver: other workers' iterations are open at
    /// the same time (the coordinator marks those a crash cut off, once, before any worker).
    pub parallel: bool,
}

impl Scope {
    pub(crate) fn is_sub_loop(&self) -> bool {
        self.story.is_some() || self.until_checks_pass
    }
}
