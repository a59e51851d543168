//! One module per subcommand, each with its clap arguments; `dispatch` routes a parsed command
//! to it.
//!
//! A command file parses its arguments and calls the shared modules beside this one
//! (`crate::runs`, `crate::session_mode`, `crate::state`, ...) or a library crate; it never
//! imports another command file, nor this one. What two commands share moves out of
//! `commands/`. What needs the whole command line (`Cli`, `Command`) is here: the routing,
//! which commands a sandboxed step may run ([`inside`], [`mail_check`]), clap's description
//! handed to completions and manual pages.

use pawl_core::ExitCode;

use clap::CommandFactory;

use crate::cli::{Cli, Command};
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::sandbox::Inside;

pub(crate) mod accept;
pub(crate) mod analyze;
pub(crate) mod blocker;
mod cancel;
pub(crate) mod clarify;
pub(crate) mod clean;
pub(crate) mod completions;
pub(crate) mod config;
pub(crate) mod criterion;
pub(crate) mod debug;
pub(crate) mod demo;
mod detect;
pub(crate) mod diff;
pub(crate) mod doctor;
pub(crate) mod events;
pub(crate) mod exit_codes;
pub(crate) mod failure;
pub(crate) mod fleet;
pub(crate) mod guard;
pub(crate) mod hidden;
pub(crate) mod hook;
pub(crate) mod init;
mod lease;
pub(crate) mod lessons;
pub(crate) mod logs;
pub(crate) mod man;
pub(crate) mod merge;
pub(crate) mod note;
mod off;
pub(crate) mod replay;
pub(crate) mod report;
pub(crate) mod resume;
mod resume_context;
pub(crate) mod retry_advice;
pub(crate) mod reviewer;
pub(crate) mod rollback;
pub(crate) mod run;
pub(crate) mod runs;
pub(crate) mod schema;
pub(crate) mod serve;
pub(crate) mod status;
mod stop;
pub(crate) mod story;
pub(crate) mod tdd;
pub(crate) mod verify;

/// The commands that run before (and without) a repository lookup; `None` for every other.
pub fn dispatch_anywhere(cli: &Cli) -> Option<CliResult<ExitCode>> {
    match &cli.command {
        // The demo makes its own repository: it runs anywhere.
        Command::Demo(args) => Some(demo::run(args, cli.json, mail_check)),
        // Hooks answer anywhere, fast, and never fail: no repository lookup that could error
        // first.
        Command::Hook(args) => Some(Ok(hook::run(args, cli.dir.as_deref()))),
        // Discovery works anywhere (outside a repository, doctor says so itself).
        Command::Doctor(_) => Some(doctor::run(cli.dir.as_deref(), cli.json)),
        Command::Completions(args) => Some(completions::run(args, Cli::command())),
        Command::Man(args) => Some(man::run(args, Cli::command(), cli.json)),
        Command::Schema(args) => Some(schema::run(args)),
        Command::ExitCodes(args) => Some(exit_codes::run(args, cli.json)),
        // The daemon serves every repository: it starts anywhere.
        Command::Serve(args) => Some(serve::run(args, cli.dir.as_deref(), cli.json)),
        Command::Dashboard(args) => Some(serve::dashboard(args, cli.json)),
        // A shared store's runs are listed from anywhere.
        Command::Runs(args) if args.store.is_some() => Some(runs::run_store(
            args,
            args.store.as_deref().unwrap_or_default(),
            cli.json,
        )),
        // Outside any clone, `PAWL_STORE_URL`'s store is the one there is to list.
        Command::Runs(args) => runs::store_url_outside_clone(cli.dir.as_deref())
            .map(|url| runs::run_env_store(args, &url, cli.json)),
        // Fleet plans and budgets need no repository.
        Command::Fleet(cmd) => Some(fleet::run(cmd, cli.json)),
        _ => None,
    }
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
        Command::Accept(args) => accept::run(ctx, &args),
        Command::Runs(args) => runs::run(ctx, &args),
        Command::Diff(args) => diff::run(ctx, &args),
        Command::Logs(args) => logs::run(ctx, &args),
        Command::Merge(args) => merge::run(ctx, &args),
        Command::Clean(args) => clean::run(ctx, &args),
        Command::Doctor(_) => doctor::run(Some(&ctx.root), ctx.json),
        Command::Completions(args) => completions::run(&args, Cli::command()),
        Command::Man(args) => man::run(&args, Cli::command(), ctx.json),
        Command::Schema(args) => schema::run(&args),
        Command::ExitCodes(args) => exit_codes::run(&args, ctx.json),
        Command::Serve(args) => serve::run(&args, Some(&ctx.root), ctx.json),
        Command::Fleet(cmd) => fleet::run(&cmd, ctx.json),
        Command::Dashboard(args) => serve::dashboard(&args, ctx.json),
        Command::Demo(args) => demo::run(&args, ctx.json, mail_check),
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
        Command::Lessons { cmd } => lessons::run(ctx, cmd),
        Command::ResumeContext => resume_context::run(ctx),
        Command::Events(args) => events::run(ctx, &args),
        Command::Guard(cmd) => guard::run(ctx, &cmd),
        Command::Hidden(cmd) => hidden::run(ctx, &cmd),
        Command::Lease => lease::run(ctx),
        Command::Hook(args) => Ok(hook::run(&args, Some(&ctx.root))),
        Command::Off => off::run(ctx),
        Command::Verify(args) => verify::run(ctx, &args),
        Command::Detect => detect::run(ctx),
        Command::Reviewer(args) => reviewer::run(ctx, &args),
        Command::Debug(cmd) => debug::run(ctx, cmd),
    }
}

/// What `command` may do from inside an agent step (the sandbox's mailbox and refusals).
pub fn inside(command: &Command) -> Inside {
    match command {
        Command::Note(_)
        | Command::Story(_)
        | Command::Blocker(_)
        | Command::AwaitUser(_)
        | Command::Failure(_)
        | Command::Criterion(_)
        | Command::Clarify(_)
        | Command::Tdd(_) => Inside::Mail,
        Command::Status(_)
        | Command::Events(_)
        | Command::ResumeContext
        | Command::Lease
        | Command::Detect
        | Command::Analyze(_)
        | Command::RetryAdvice(_)
        | Command::CheckUserFix
        | Command::Config(_)
        | Command::Guard(_)
        | Command::Hook(_)
        | Command::Demo(_)
        | Command::Replay(_)
        | Command::Runs(_)
        | Command::Diff(_)
        | Command::Logs(_)
        | Command::Doctor(_)
        | Command::Completions(_)
        | Command::Man(_)
        | Command::Schema(_)
        | Command::ExitCodes(_)
        | Command::Debug(_)
        | Command::Lessons {
            cmd: None | Some(lessons::LessonsCommand::List),
        } => Inside::Run,
        // What the next runs are told is the user's to change.
        Command::Lessons { cmd: Some(_) } => Inside::Refuse,
        // A fleet's budget and its jobs are the user's.
        Command::Fleet(_) => Inside::Refuse,
        Command::Init(_)
        | Command::Run(_)
        | Command::Cancel
        | Command::Stop
        | Command::Resume(_)
        | Command::Report(_)
        | Command::Rollback(_)
        | Command::Accept(_)
        | Command::UserFixed(_)
        | Command::Off
        | Command::Merge(_)
        | Command::Clean(_)
        | Command::Hidden(_)
        | Command::Verify(_)
        // It starts an agent session of the user's.
        | Command::Reviewer(_)
        | Command::Serve(_)
        | Command::Dashboard(_) => Inside::Refuse,
    }
}

/// Whether a request a step left in its mailbox is a reporting verb pawl carries out for it
/// (the sandbox's `deliver`): it parses as pawl's command line, names neither `--dir` nor
/// `--run`, and its command is mailed ([`inside`]).
pub fn mail_check(args: &[String]) -> Result<(), String> {
    let cli = <Cli as clap::Parser>::try_parse_from(
        std::iter::once("pawl".to_string()).chain(args.iter().cloned()),
    )
    .map_err(|e| format!("`pawl {}`: {}", args.join(" "), e.kind()))?;
    if cli.dir.is_some() || cli.run.is_some() {
        return Err(format!(
            "`pawl {}`: --dir and --run are not accepted from a step",
            args.join(" ")
        ));
    }
    if inside(&cli.command) != Inside::Mail {
        return Err(format!(
            "`pawl {}` is not accepted from a step",
            args.join(" ")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_control_is_refused_and_reporting_is_mailed() {
        use clap::Parser;
        let rows = [
            ("pawl note hi", Inside::Mail),
            ("pawl story start S1", Inside::Mail),
            ("pawl blocker add key", Inside::Mail),
            ("pawl await-user B1 fix", Inside::Mail),
            ("pawl status", Inside::Run),
            ("pawl resume", Inside::Refuse),
            ("pawl stop", Inside::Refuse),
            ("pawl cancel", Inside::Refuse),
            ("pawl off", Inside::Refuse),
            ("pawl rollback", Inside::Refuse),
            ("pawl init", Inside::Refuse),
            ("pawl accept --tests x", Inside::Refuse),
            ("pawl user-fixed", Inside::Refuse),
        ];
        for (line, want) in rows {
            let Ok(cli) = Cli::try_parse_from(line.split(' ')) else {
                panic!("{line} does not parse");
            };
            assert_eq!(inside(&cli.command), want, "{line}");
        }
    }
}
