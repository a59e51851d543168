//! The command line, as clap parses it: the global flags ([`Cli`]) and the list of subcommands
//! ([`Command`]). These structs are raw input; each command turns them into a checked plan
//! before doing any work. Only `main.rs` and the dispatch (`commands.rs`) import them: a command
//! that needs the whole command line (completions, manual pages) is handed clap's description.
//!
//! Not here: each subcommand's own arguments, which sit beside the command in
//! `commands/<name>.rs` (`RunArgs` in `commands/run.rs`, ...), and the limit flags `run` and
//! `resume` share (`limits.rs`).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::commands::accept::AcceptArgs;
use crate::commands::analyze::AnalyzeArgs;
use crate::commands::blocker::{AwaitUserArgs, BlockerCommand, UserFixedArgs};
use crate::commands::clarify::ClarifyCommand;
use crate::commands::clean::CleanArgs;
use crate::commands::completions::CompletionsArgs;
use crate::commands::config::ConfigCommand;
use crate::commands::criterion::CriterionCommand;
use crate::commands::debug::DebugCommand;
use crate::commands::demo::DemoArgs;
use crate::commands::diff::DiffArgs;
use crate::commands::doctor::DoctorArgs;
use crate::commands::events::EventsArgs;
use crate::commands::exit_codes::ExitCodesArgs;
use crate::commands::failure::FailureCommand;
use crate::commands::fleet::FleetCommand;
use crate::commands::guard::GuardCommand;
use crate::commands::hook::HookArgs;
use crate::commands::init::InitArgs;
use crate::commands::lessons::LessonsCommand;
use crate::commands::logs::LogsArgs;
use crate::commands::man::ManArgs;
use crate::commands::merge::MergeArgs;
use crate::commands::note::NoteArgs;
use crate::commands::replay::ReplayArgs;
use crate::commands::report::ReportArgs;
use crate::commands::resume::ResumeArgs;
use crate::commands::retry_advice::RetryAdviceArgs;
use crate::commands::reviewer::ReviewerArgs;
use crate::commands::rollback::RollbackArgs;
use crate::commands::run::RunArgs;
use crate::commands::runs::RunsArgs;
use crate::commands::schema::SchemaArgs;
use crate::commands::serve::{DashboardArgs, ServeArgs};
use crate::commands::status::StatusArgs;
use crate::commands::story::StoryCommand;
use crate::commands::tdd::TddArgs;
use crate::commands::verify::VerifyArgs;

#[derive(Debug, Parser)]
#[command(
    name = "pawl",
    version,
    about = "Keeps an AI coding agent working until the work is verifiably done",
    long_about = "pawl keeps an AI coding agent working on a goal until the work is verifiably done: \
                  pawl runs the checks itself, enforces real limits, and never loses work."
)]
pub struct Cli {
    /// Run as if pawl was started in this directory.
    #[arg(short = 'C', long = "dir", global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Machine-readable output (JSON).
    #[arg(long, global = true)]
    pub json: bool,
    /// Also show what the agent says and does (its messages and tool calls) as a headless run
    /// goes.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
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
    /// Accept a run's changes to its own tests (verdict REVIEW), saying why.
    Accept(AcceptArgs),
    /// Run history: verdict, stop reason, iterations, time, tokens, cost; totals per day.
    Runs(RunsArgs),
    /// Fleets of runs on an existing job engine: plan the jobs, set a fleet's budget.
    #[command(subcommand)]
    Fleet(FleetCommand),
    /// What a run changed: its pre-run commit to its branch (and working tree).
    Diff(DiffArgs),
    /// The agent's step logs of a run (`-f` follows them while it runs).
    Logs(LogsArgs),
    /// Re-verify a finished run's branch, then merge it locally (never pushes).
    Merge(MergeArgs),
    /// Remove finished runs' merged branches, logs and clean rooms (`--dry-run` first).
    Clean(CleanArgs),
    /// Is this machine and repository ready? Agents, credentials, tools, hooks, sandbox.
    Doctor(DoctorArgs),
    /// Shell completions for bash, zsh, fish, elvish or powershell.
    Completions(CompletionsArgs),
    /// Manual pages (`pawl man | man -l -`, or `--out DIR` for all of them).
    Man(ManArgs),
    /// The JSON Schema of a `--json` output (report, status, events, runs).
    Schema(SchemaArgs),
    /// The exit codes pawl documents and what each means (0 is SHIP only).
    #[command(long_about = crate::commands::exit_codes::text())]
    ExitCodes(ExitCodesArgs),
    /// The daemon: every repository's runs as an API, live events and a dashboard (loopback,
    /// token, one per user).
    Serve(ServeArgs),
    /// Open the running `pawl serve` dashboard in the browser (a new one-time link).
    Dashboard(DashboardArgs),
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
    /// What pawl learnt from earlier runs here: list, add, edit, forget.
    Lessons {
        #[command(subcommand)]
        cmd: Option<LessonsCommand>,
    },
    /// Everything a fresh agent session needs to pick the run up.
    ResumeContext,
    /// The run's event log.
    Events(EventsArgs),
    /// The safety guard: what it decides about a command, and why.
    #[command(subcommand)]
    Guard(GuardCommand),
    /// Hidden checks: checks the agent is never shown, kept in your pawl state (not the repository).
    #[command(subcommand)]
    Hidden(crate::commands::hidden::HiddenCommand),
    /// Who owns the current run.
    Lease,
    /// Answer an agent CLI's hook: reads the hook's JSON on stdin (installed by `pawl init --agent`).
    Hook(HookArgs),
    /// End session mode for the current run (resumable) and undo what arming changed.
    Off,
    /// Run the gates (and the run's command criteria) on the working tree; exit 0 only when all pass.
    Verify(VerifyArgs),
    /// Ask the independent reviewer a run would start (`[agent]`, read-only) about one diff:
    /// its typed verdict, to measure it (`scripts/screen-corpus.py review`).
    Reviewer(ReviewerArgs),
    /// Show which platform this project is, why, and its gate commands.
    Detect,
    #[command(hide = true, subcommand)]
    Debug(DebugCommand),
}
