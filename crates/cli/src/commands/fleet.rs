//! `pawl fleet plan FILE --out DIR`: the runs of `fleet.toml` as a GitHub Actions workflow
//! (`github-workflow.yml`) and Kubernetes Jobs (`k8s-jobs.yml`), one job per run (`crate::fleet`).
//! `pawl fleet budget NAME …`: a fleet's budget in the shared store (`--store` or
//! `PAWL_STORE_URL`), held by every agent step of its runs and settled with what the step spent.
//! Both run anywhere.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use pawl_core::ExitCode;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

#[derive(Debug, Subcommand)]
pub enum FleetCommand {
    /// Write the engine files for a list of runs (fleet.toml): a GitHub Actions workflow with a
    /// matrix and Kubernetes Jobs, one job per run.
    Plan(PlanArgs),
    /// Set a fleet's budget: caps on dollars and tokens over all its runs, and what one agent
    /// step holds while it runs.
    Budget(BudgetArgs),
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The list of runs (`[[runs]]` with repo, branch, goal; `[fleet]` name, image).
    pub file: PathBuf,
    /// Where to write github-workflow.yml and k8s-jobs.yml.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct BudgetArgs {
    /// The fleet (`[fleet] name`, `PAWL_STORE_FLEET`).
    pub name: String,
    /// The cap on dollars over all the fleet's runs.
    #[arg(long, value_name = "USD")]
    pub max_usd: Option<f64>,
    /// The cap on tokens over all the fleet's runs.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// What one agent step holds while in flight (the most one step should spend).
    #[arg(long, value_name = "USD", default_value_t = 1.0)]
    pub step_usd: f64,
    #[arg(long, value_name = "N", default_value_t = 200_000)]
    pub step_tokens: u64,
    /// The shared store (default: `PAWL_STORE_URL`).
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
}

pub fn run(cmd: &FleetCommand, json: bool) -> CliResult<ExitCode> {
    match cmd {
        FleetCommand::Plan(args) => plan(args, json),
        FleetCommand::Budget(args) => budget(args, json),
    }
}

fn plan(args: &PlanArgs, json: bool) -> CliResult<ExitCode> {
    let name = args.file.display().to_string();
    let text =
        std::fs::read_to_string(&args.file).map_err(CliError::io(format!("cannot read {name}")))?;
    let plan = crate::fleet::parse(&name, &text).map_err(CliError::Usage)?;
    std::fs::create_dir_all(&args.out).map_err(CliError::io(format!(
        "cannot create {}",
        args.out.display()
    )))?;
    let header = format!(
        "# Written by `pawl fleet plan {name}`: {} run(s) of fleet {}, one job each (docs/fleet.md).\n",
        plan.runs.len(),
        plan.fleet.name
    );
    let workflow = format!(
        "{header}{}",
        crate::fleet::yaml(&crate::fleet::workflow(&plan))
    );
    let jobs: Vec<String> = crate::fleet::k8s_jobs(&plan)
        .iter()
        .map(crate::fleet::yaml)
        .collect();
    let k8s = format!("{header}---\n{}", jobs.join("---\n"));
    let mut written = Vec::new();
    for (file, text) in [("github-workflow.yml", workflow), ("k8s-jobs.yml", k8s)] {
        let path = args.out.join(file);
        std::fs::write(&path, text)
            .map_err(CliError::io(format!("cannot write {}", path.display())))?;
        written.push(path.display().to_string());
    }
    let mut ctx = Ctx::at(PathBuf::from("."));
    ctx.json = json;
    let out =
        serde_json::json!({"fleet": plan.fleet.name, "runs": plan.runs.len(), "written": written});
    ctx.emit(&out, || {
        format!(
            "fleet {}: {} run(s) → {}",
            plan.fleet.name,
            plan.runs.len(),
            written.join(", ")
        )
    })?;
    Ok(ExitCode::Done)
}

fn budget(args: &BudgetArgs, json: bool) -> CliResult<ExitCode> {
    let url = match &args.store {
        Some(u) => u.clone(),
        None => std::env::var("PAWL_STORE_URL").unwrap_or_default(),
    };
    if url.is_empty() {
        return Err(CliError::Usage(
            "pawl fleet budget needs the shared store: --store postgres://… or PAWL_STORE_URL"
                .into(),
        ));
    }
    for (flag, v) in [
        ("--max-usd", args.max_usd),
        ("--step-usd", Some(args.step_usd)),
    ] {
        if let Some(v) = v
            && !(v.is_finite() && v >= 0.0)
        {
            return Err(CliError::Usage(format!(
                "{flag} must be a number of dollars ≥ 0, not {v}"
            )));
        }
    }
    let mut store = crate::state::open_store_at(&pawl_store::Location::parse(&url))?;
    crate::state::require_key(&store, "set a fleet's budget")?;
    let totals = store.set_fleet_budget(
        &args.name,
        &pawl_store::FleetBudget {
            max_usd: args.max_usd,
            max_tokens: args.max_tokens,
            step_usd: args.step_usd,
            step_tokens: args.step_tokens,
        },
    )?;
    let mut ctx = Ctx::at(PathBuf::from("."));
    ctx.json = json;
    ctx.emit(&totals, || {
        format!(
            "fleet {}: max {} · {} tokens max · a step holds ${:.2} / {} tokens · spent ${:.2}, {} tokens · held ${:.2} by {} step(s) in flight",
            totals.fleet,
            totals.max_usd.map(|u| format!("${u:.2}")).unwrap_or_else(|| "no dollar cap".into()),
            totals.max_tokens.map(|t| t.to_string()).unwrap_or_else(|| "no".into()),
            totals.step_usd,
            totals.step_tokens,
            totals.spent_usd,
            totals.spent_tokens,
            totals.held_usd,
            totals.steps_in_flight
        )
    })?;
    Ok(ExitCode::Done)
}
