//! `pawl report [<run>] [--json] [--pr] [--open-pr]`: print a run's report again (rebuilt from
//! the store; for the user, the hidden tests that fail too, from the user's pawl state). `--pr`
//! writes a pull-request body; `--open-pr` also runs `gh pr create` with it (only when the user
//! asks: an autonomous run never pushes).

use clap::Args;
use pawl_core::ExitCode;
use pawl_process::{Command, End};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run (default: the current one).
    #[arg(id = "run_id", value_name = "RUN")]
    pub run: Option<String>,
    /// Write a pull-request body (stories, key changes, checks with evidence, reviews, metrics)
    /// to `.pawl/reports/<run>.pr.md` and print it.
    #[arg(long)]
    pub pr: bool,
    /// Also open the pull request with `gh pr create` (only ever when you ask; runs never push),
    /// and only when the run's verdict is SHIP: otherwise the body is written, the reason said,
    /// and the command exits 1.
    #[arg(long)]
    pub open_pr: bool,
}

pub fn run(ctx: &mut Ctx, args: &ReportArgs) -> CliResult<ExitCode> {
    let mut store = ctx.store()?;
    // A run whose state was modified outside pawl has a report too: it says what was modified.
    let id = store.resolve_run_id(args.run.as_deref().or(ctx.run_flag.as_deref()))?;
    // A run of this clone that stopped without publishing (killed in between) is published now.
    ctx.publish_if_missing(&mut store, &id)?;
    let mut report = pawl_engine::report::build(&store, &id, &ctx.root)?;
    let dir = ctx.state_dir().join("reports");
    pawl_engine::report::write(&report, &dir)?;
    if !(args.pr || args.open_pr) {
        // For the user's eyes: what the hidden tests that fail called and got, from the user's
        // pawl state (never in what was just written under `.pawl/reports/`). Not from inside an
        // agent step (`PAWL_RUN_ID`), where the sandbox hides that state anyway.
        if std::env::var_os("PAWL_RUN_ID").is_none() {
            pawl_engine::report::reveal(&mut report, crate::hidden::vault().as_ref());
        }
        ctx.emit(&report, || pawl_engine::report::markdown(&report))?;
        return Ok(ExitCode::Done);
    }
    let body = pawl_engine::pipeline::report::pr_body(&report, report.pipeline.as_ref());
    let path = dir.join(format!("{}.pr.md", id));
    std::fs::write(&path, &body)
        .map_err(CliError::io(format!("cannot write {}", path.display())))?;
    let rel = path
        .strip_prefix(&ctx.root)
        .unwrap_or(&path)
        .display()
        .to_string();
    let mut url = None;
    // No pull request unless everything passed: the body is written, the reason said, and the
    // command fails.
    if args.open_pr
        && let Err(why) = pawl_engine::report::pr_allowed(&report)
    {
        ctx.emit(
            &serde_json::json!({"run_id": id, "pr_body": rel, "body": body, "url": null,
                "opened": false, "why": why}),
            || {
                format!(
                    "{body}\n[pawl] {why}\n[pawl] pull request body written to {rel}; nothing was opened"
                )
            },
        )?;
        return Ok(ExitCode::Error);
    }
    if args.open_pr {
        let title = format!(
            "{} (pawl run {})",
            report.goal.lines().next().unwrap_or("pawl run"),
            id
        );
        let out = Command::new("gh")
            .args(["pr", "create", "--title", &title, "--body-file"])
            .arg(&path)
            .current_dir(&ctx.root)
            .timeout(std::time::Duration::from_secs(120))
            .run()
            .map_err(|e| {
                CliError::Failed(format!(
                    "gh pr create: {e} (is the GitHub CLI installed and logged in?)"
                ))
            })?;
        if out.end != End::Exited(0) {
            return Err(CliError::Failed(format!(
                "gh pr create failed ({}): {}",
                out.end,
                out.combined_tail_text().trim()
            )));
        }
        url = Some(out.stdout.tail_text().trim().to_string());
    }
    ctx.emit(
        &serde_json::json!({"run_id": id, "pr_body": rel, "body": body, "url": url}),
        || match &url {
            Some(u) => format!("{body}\n[pawl] pull request body: {rel}\n[pawl] opened: {u}"),
            None => format!(
                "{body}\n[pawl] pull request body: {rel} (open it with `pawl report --open-pr`)"
            ),
        },
    )?;
    Ok(ExitCode::Done)
}
