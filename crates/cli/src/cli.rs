//! The command line, as clap parses it. These structs are raw input; each command turns them
//! into a checked plan before doing any work.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use pawl_core::failure::FailureCategory;
use pawl_core::model::{Driver, Severity, Size, Verification};
use pawl_core::tdd::TddPhase;

#[derive(Debug, Parser)]
#[command(
    name = "pawl",
    version,
    about = "Keeps an AI coding agent working until the work is verifiably done",
    long_about = "pawl keeps an AI coding agent working on a goal until the work is verifiably done: \
                  pawl runs the checks itself, enforces real limits, and never loses work.",
    disable_help_subcommand = true
)]
pub struct Cli {
    /// Run as if pawl was started in this directory.
    #[arg(short = 'C', long = "dir", global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Machine-readable output (JSON).
    #[arg(long, global = true)]
    pub json: bool,
    /// The run to act on (full id, unique prefix or suffix); default: the current run.
    #[arg(long = "run", global = true, value_name = "RUN")]
    pub run: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create `.pawl/` and `pawl.toml` in this repository.
    Init(InitArgs),
    /// Show the effective configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Analyse a goal: clarity, anchors, size, workflow, risks, external services, mode.
    Analyze(AnalyzeArgs),
    /// Start a run toward a goal.
    Run(RunArgs),
    /// Show the current run (or all runs).
    Status(StatusArgs),
    /// Cancel the current run (its work stays where it is).
    Cancel,
    /// Ask the running loop to stop after the current step.
    Stop,
    /// Continue a stopped run, optionally raising its limits.
    Resume(ResumeArgs),
    /// Print a run's report.
    Report(ReportArgs),
    /// Restore the tree to a run's pre-run state (keeps a backup ref).
    Rollback(RollbackArgs),
    /// Run pawl on an embedded example project (no network, no credentials).
    Demo(DemoArgs),
    /// One step of the scripted replay agent (used by the loop).
    #[command(name = "__replay", hide = true)]
    Replay(ReplayArgs),
    /// Stories: units of work.
    #[command(subcommand)]
    Story(StoryCommand),
    /// Criteria: what must hold for the run to be done.
    #[command(subcommand)]
    Criterion(CriterionCommand),
    /// Move a story through red → green → refactor → verify.
    Tdd(TddArgs),
    /// Record a failure.
    #[command(subcommand)]
    Failure(FailureCommand),
    /// Should a story be retried after its latest failure? (JSON)
    RetryAdvice(RetryAdviceArgs),
    /// Blockers: things only the user can clear.
    #[command(subcommand)]
    Blocker(BlockerCommand),
    /// Hand a blocker to the user; the run waits.
    AwaitUser(AwaitUserArgs),
    /// Run the awaited blocker's check command.
    CheckUserFix,
    /// Tell pawl the user cleared the blocker.
    UserFixed(UserFixedArgs),
    /// Clarifications: questions and their answers.
    #[command(subcommand)]
    Clarify(ClarifyCommand),
    /// Record a key decision.
    Note(NoteArgs),
    /// Everything a fresh agent session needs to pick the run up.
    ResumeContext,
    /// The run's event log.
    Events(EventsArgs),
    /// The safety guard: what it decides about a command, and why.
    #[command(subcommand)]
    Guard(GuardCommand),
    /// Who owns the current run.
    Lease,
    /// Answer an agent CLI's hook: reads the hook's JSON on stdin (installed by `pawl init --agent`).
    Hook(HookArgs),
    /// End session mode for the current run (resumable) and undo what arming changed.
    Off,
    /// Run the gates (and the run's command criteria) on the working tree; exit 0 only when all pass.
    Verify(VerifyArgs),
    /// Show which platform this project is, why, and its gate commands.
    Detect,
    #[command(hide = true, subcommand)]
    Debug(DebugCommand),
}

#[derive(Debug, Args, Default)]
pub struct InitArgs {
    /// Also merge pawl's hooks into this agent's project settings: claude, codex or gemini (repeatable).
    #[arg(long = "agent", value_name = "AGENT")]
    pub agents: Vec<String>,
    /// Take out exactly the hooks pawl added (of the --agent given, or of every agent).
    #[arg(long)]
    pub remove: bool,
    /// Write a Claude Code plugin that runs pawl's hooks (into DIR, default .pawl/claude-plugin).
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = ".pawl/claude-plugin")]
    pub plugin: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// The agent CLI calling: claude, codex or gemini.
    pub agent: String,
    /// The hook: session-start, pre-tool-use, post-tool-use, stop, pre-compact (or the CLI's own name).
    pub event: String,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective configuration and where each value came from.
    Show,
}

#[derive(Debug, Args, Default)]
pub struct LimitArgs {
    /// Stop after this many agent iterations.
    #[arg(long, value_name = "N")]
    pub max_iterations: Option<u32>,
    /// Stop after this much wall time (e.g. 30m, 2h).
    #[arg(long, value_name = "DURATION")]
    pub max_time: Option<String>,
    /// Stop after spending this many dollars.
    #[arg(long, value_name = "USD")]
    pub max_usd: Option<f64>,
    /// Stop after this many tokens (0 = no limit).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// At most this many agent calls per hour (pawl waits beyond it).
    #[arg(long, value_name = "N")]
    pub calls_per_hour: Option<u32>,
}

impl LimitArgs {
    /// The flags as configuration overrides: (key, value, flag name).
    pub fn overrides(&self) -> Vec<(&'static str, String, &'static str)> {
        let mut v = Vec::new();
        if let Some(n) = self.max_iterations {
            v.push(("limits.max_iterations", n.to_string(), "--max-iterations"));
        }
        if let Some(t) = &self.max_time {
            v.push(("limits.max_time", t.clone(), "--max-time"));
        }
        if let Some(u) = self.max_usd {
            v.push(("limits.max_usd", u.to_string(), "--max-usd"));
        }
        if let Some(n) = self.max_tokens {
            v.push(("limits.max_tokens", n.to_string(), "--max-tokens"));
        }
        if let Some(n) = self.calls_per_hour {
            v.push(("limits.calls_per_hour", n.to_string(), "--calls-per-hour"));
        }
        v
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// What the run must achieve.
    pub goal: String,
    /// How the agent is driven: manual (by hand through the state CLI), headless, session.
    #[arg(long, default_value = "headless")]
    pub driver: Driver,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// The agent to drive (overrides `[agent] kind`): claude, codex, gemini, command, replay.
    #[arg(long, value_name = "KIND")]
    pub agent: Option<pawl_core::config::AgentKind>,
    /// The JSONL scenario for `--agent replay`.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Start even though the working tree has uncommitted changes (they are snapshotted first).
    #[arg(long)]
    pub allow_dirty: bool,
    /// Start the agent even from inside a session of the same agent.
    #[arg(long)]
    pub force_nested: bool,
    /// With `--driver session`: also let the session work without permission prompts (merges
    /// what it needs into Claude Code's permissions.allow; removed again at the end).
    #[arg(long)]
    pub autonomous: bool,
    /// The pipeline: auto (the spec analysis chooses and says why), simple, work, qa, ralph.
    #[arg(long, default_value = "auto", value_name = "MODE")]
    pub mode: pawl_core::pipeline::ModeArg,
    /// Ask the interview's questions on the terminal (the recommended answer is taken after
    /// `[pipeline] answer_timeout` of silence).
    #[arg(long)]
    pub interactive: bool,
}

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The run to resume (default: the current one).
    pub run: Option<String>,
    #[arg(long, value_name = "N")]
    pub add_iterations: Option<u32>,
    #[arg(long, value_name = "DURATION")]
    pub add_time: Option<String>,
    #[arg(long, value_name = "USD")]
    pub add_usd: Option<f64>,
    #[arg(long, value_name = "N")]
    pub add_tokens: Option<u64>,
    #[arg(long)]
    pub force_nested: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run (default: the current one).
    pub run: Option<String>,
    /// Write a pull-request body (stories, key changes, checks with evidence, reviews, metrics)
    /// to `.pawl/reports/<run>.pr.md` and print it.
    #[arg(long)]
    pub pr: bool,
    /// Also open the pull request with `gh pr create` (only ever when you ask; runs never push).
    #[arg(long)]
    pub open_pr: bool,
}

#[derive(Debug, Args)]
pub struct RollbackArgs {
    /// The run (default: the current one).
    pub run: Option<String>,
    /// Do not ask for confirmation.
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to create the demo project (default: a new temporary directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[arg(long)]
    pub scenario: PathBuf,
    #[arg(long)]
    pub step: u32,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// The goal, as you would give it to `pawl run`.
    pub goal: String,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// List every run.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Subcommand)]
pub enum StoryCommand {
    /// Add a story.
    Add {
        title: String,
        /// S, M, L or XL.
        #[arg(long)]
        size: Size,
        /// The story touches security (auth, secrets, crypto...).
        #[arg(long)]
        security: bool,
        /// Failed attempts before the story is escalated.
        #[arg(long, value_name = "N", default_value_t = pawl_core::model::DEFAULT_STORY_ATTEMPTS)]
        max_attempts: u32,
    },
    /// Start working on a story.
    Start { id: String },
    /// Mark a story done.
    Done { id: String },
    /// Mark a story blocked.
    Block {
        id: String,
        #[arg(long)]
        reason: Option<String>,
    },
    /// List stories.
    List,
}

#[derive(Debug, Subcommand)]
pub enum CriterionCommand {
    /// Add a criterion.
    Add {
        text: String,
        /// command:"<cmd>", review, observation or assumption.
        #[arg(long = "verify", value_name = "HOW")]
        verify: Verification,
    },
    /// List criteria.
    List,
    /// Run a command criterion's command on the working tree and record the result.
    Check {
        id: String,
        /// Run it even when evidence for this exact tree exists.
        #[arg(long)]
        fresh: bool,
    },
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Run only this gate (repeatable); command criteria run only without --gate.
    #[arg(long = "gate", value_name = "NAME")]
    pub gates: Vec<String>,
    /// Run every check even when passing evidence for this exact tree exists.
    #[arg(long)]
    pub fresh: bool,
    /// When only `lint` fails, apply `[gates] lint_fix`, re-run every check, and keep the change
    /// only if all pass (otherwise restore the tree exactly).
    #[arg(long)]
    pub fix_lint: bool,
    /// Longest a single check may run (e.g. 90s, 10m); default 30m.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// How many checks may run at once (default: CPUs, 2 to 8).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

#[derive(Debug, Args)]
pub struct TddArgs {
    pub story: String,
    /// red, green, refactor or verify.
    pub phase: TddPhase,
}

#[derive(Debug, Subcommand)]
pub enum FailureCommand {
    /// Record a failure on a story; classified automatically unless --category is given.
    Add {
        story: String,
        message: String,
        #[arg(long)]
        category: Option<FailureCategory>,
    },
    /// List recent failures.
    List {
        #[arg(long)]
        story: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct RetryAdviceArgs {
    pub story: String,
}

#[derive(Debug, Subcommand)]
pub enum BlockerCommand {
    /// Add a blocker.
    Add {
        text: String,
        #[arg(long, default_value = "medium")]
        severity: Severity,
    },
    /// List blockers.
    List,
}

#[derive(Debug, Args)]
pub struct AwaitUserArgs {
    pub blocker: String,
    /// Exactly what the user must do.
    pub instructions: String,
    /// A command that succeeds once the user's fix is in place.
    #[arg(long)]
    pub check: Option<String>,
}

#[derive(Debug, Args)]
pub struct UserFixedArgs {
    #[arg(long)]
    pub notes: Option<String>,
    /// Accept even though the check command still fails.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Subcommand)]
pub enum ClarifyCommand {
    /// Record a question and its answer.
    Add {
        question: String,
        answer: String,
        #[arg(long, default_value = "execute")]
        phase: String,
        #[arg(long, default_value = "general")]
        category: String,
    },
    /// List clarifications.
    List,
}

#[derive(Debug, Args)]
pub struct NoteArgs {
    /// The decision, in a sentence.
    pub text: String,
}

#[derive(Debug, Subcommand)]
pub enum GuardCommand {
    /// Decide as if a run were active: prints {decision, rule, reason}; exit 0 allow, 1 deny.
    Check(GuardArgs),
    /// Show the parse, the simple commands found, and the rule that decided.
    Explain(GuardArgs),
}

#[derive(Debug, Args)]
pub struct GuardArgs {
    /// Check a file write by an agent's file tool instead of a shell command.
    #[arg(long, value_name = "PATH")]
    pub write: Option<String>,
    /// The command line (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct EventsArgs {
    /// Keep printing new events as they happen.
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// Events of every run, not only the current one.
    #[arg(long)]
    pub all: bool,
    /// Only events after this sequence number.
    #[arg(long, value_name = "SEQ", default_value_t = 0)]
    pub after: i64,
}

#[derive(Debug, Subcommand)]
pub enum DebugCommand {
    /// Hold the current run's lease (for tests of ownership).
    HoldLease {
        #[arg(long, default_value = "30s")]
        ttl: String,
        #[arg(long, default_value = "10s")]
        hold: String,
    },
    /// Write notes in a loop, printing `ok <i>` after each commit (fault-injection tests).
    WriteLoop {
        #[arg(long, default_value_t = 1000)]
        count: u32,
    },
}
