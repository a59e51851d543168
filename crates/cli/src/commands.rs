//! One module per subcommand; `dispatch` routes a parsed command to it.

use pawl_core::ExitCode;

use crate::cli::Command;
use crate::ctx::Ctx;
use crate::error::CliResult;

mod analyze;
mod blocker;
mod cancel;
mod clarify;
mod config;
mod criterion;
mod debug;
pub mod demo;
mod detect;
mod events;
mod failure;
mod guard;
pub mod hook;
mod init;
mod init_hooks;
mod lease;
mod note;
mod off;
mod replay;
mod report;
mod resume;
mod resume_context;
mod retry_advice;
mod rollback;
pub mod run;
mod session;
mod status;
mod stop;
mod story;
mod tdd;
pub mod verify;

/// What the spec analysis needs to know about the project (for the pipeline's mode).
pub fn analyze_facts(ctx: &Ctx) -> CliResult<pawl_core::spec::ProjectFacts> {
    analyze::project_facts(ctx)
}

pub fn dispatch(ctx: &mut Ctx, command: Command) -> CliResult<ExitCode> {
    match command {
        Command::Init(args) => init::run(ctx, &args),
        Command::Config(cmd) => config::run(ctx, &cmd),
        Command::Analyze(args) => analyze::run(ctx, &args),
        Command::Run(args) => run::run(ctx, &args),
        Command::Status(args) => status::run(ctx, &args),
        Command::Cancel => cancel::run(ctx),
        Command::Stop => stop::run(ctx),
        Command::Resume(args) => resume::run(ctx, &args),
        Command::Report(args) => report::run(ctx, &args),
        Command::Rollback(args) => rollback::run(ctx, &args),
        Command::Demo(args) => demo::run(&args, ctx.json),
        Command::Replay(args) => replay::run(ctx, &args),
        Command::Story(cmd) => story::run(ctx, cmd),
        Command::Criterion(cmd) => criterion::run(ctx, cmd),
        Command::Tdd(args) => tdd::run(ctx, &args),
        Command::Failure(cmd) => failure::run(ctx, cmd),
        Command::RetryAdvice(args) => retry_advice::run(ctx, &args),
        Command::Blocker(cmd) => blocker::run(ctx, cmd),
        Command::AwaitUser(args) => blocker::await_user(ctx, &args),
        Command::CheckUserFix => blocker::check_user_fix(ctx),
        Command::UserFixed(args) => blocker::user_fixed(ctx, &args),
        Command::Clarify(cmd) => clarify::run(ctx, cmd),
        Command::Note(args) => note::run(ctx, &args),
        Command::ResumeContext => resume_context::run(ctx),
        Command::Events(args) => events::run(ctx, &args),
        Command::Guard(cmd) => guard::run(ctx, &cmd),
        Command::Lease => lease::run(ctx),
        Command::Hook(args) => Ok(hook::run(&args, Some(&ctx.root))),
        Command::Off => off::run(ctx),
        Command::Verify(args) => verify::run(ctx, &args),
        Command::Detect => detect::run(ctx),
        Command::Debug(cmd) => debug::run(ctx, cmd),
    }
}
