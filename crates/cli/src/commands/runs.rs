//! `pawl runs [--limit N] [--after RUN] [--json]`: this repository's run history — each run's
//! goal, status, verdict, stop reason, iterations, time, tokens and dollars — with totals per day
//! and overall. Paged: newest first (the store's run order, stable), `--limit` runs a page, the
//! next page `--after` the last run of this one (`next` in the JSON); the totals are always
//! those of every run.
//! `pawl runs --store <url>` lists every run of a shared store (a fleet's: every clone, every
//! machine), anywhere, with totals per fleet and each fleet's budget. With `PAWL_STORE_URL` (or
//! `[store] url`) set, `pawl runs` outside any clone, or in a clone that started none of the
//! store's runs, lists the store's runs too and says so on stderr: never a silent empty list.
//! The verdict is the report's ([`pawl_engine::report::verdict_of`]); a run still being worked
//! on has none yet. The JSON shape is documented by `pawl schema runs`.

use std::collections::BTreeMap;

use clap::Args;
use pawl_core::ExitCode;
use pawl_core::model::RunStatus;
use pawl_store::RunHistory;
use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::render;

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// At most N runs, newest first (the totals stay those of every run).
    #[arg(long, short = 'n', value_name = "N")]
    pub limit: Option<usize>,
    /// The runs listed after run RUN (the `next` of the page before).
    #[arg(long, value_name = "RUN")]
    pub after: Option<String>,
    /// Every run of this store (`postgres://…`, or a `pawl.db` path), not only this clone's.
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
}

/// One run as `--json` prints it.
#[derive(Debug, Serialize)]
struct RunRow {
    id: String,
    repo: String,
    goal: String,
    status: String,
    verdict: Option<String>,
    stop_reason: Option<String>,
    iterations: u32,
    tokens: u64,
    cost_usd: f64,
    started_at: i64,
    ended_at: Option<i64>,
    /// The fleet the run belongs to (shared stores).
    #[serde(skip_serializing_if = "Option::is_none")]
    fleet: Option<String>,
    /// Human only: the active time.
    #[serde(skip)]
    active_ms: u64,
}

#[derive(Debug, Serialize, Default)]
struct Totals {
    runs: usize,
    tokens: u64,
    cost_usd: f64,
    /// Per fleet (shared stores): its runs' totals and its budget.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    fleets: BTreeMap<String, FleetTotal>,
}

#[derive(Debug, Serialize, Default)]
struct FleetTotal {
    runs: usize,
    tokens: u64,
    cost_usd: f64,
    /// The budget and what steps in flight hold (`None`: the fleet has no budget).
    budget: Option<pawl_store::FleetTotals>,
}

impl Totals {
    fn add(&mut self, r: &RunRow) {
        self.runs += 1;
        self.tokens += r.tokens;
        self.cost_usd += r.cost_usd;
    }
}

#[derive(Debug, Serialize)]
struct History {
    runs: Vec<RunRow>,
    /// The `--after` of the next page: the last run listed, when more follow it (else null).
    next: Option<String>,
    totals: Totals,
    /// Human only: what the total is of (the repository, or the shared store).
    #[serde(skip)]
    of: String,
}

pub fn run(ctx: &mut Ctx, args: &RunsArgs) -> CliResult<ExitCode> {
    if args.limit == Some(0) {
        return Err(CliError::Usage("--limit must be at least 1".into()));
    }
    let shared = ctx.store_url();
    let store = ctx.store()?;
    let repo = ctx.root.display().to_string();
    let mut history = history(&store, args, &|_| repo.clone())?;
    if let Some(url) = shared.filter(|_| history.totals.runs == 0) {
        // A shared store where this clone has started nothing (an observer's repository): the
        // store's runs, said so, never a silent empty list.
        drop(store);
        say_note(&format!(
            "this clone has started no run in the shared store {}; listing every run of it (as `pawl runs --store`)",
            pawl_store::db::redact(&url)
        ));
        return run_store(args, &url, ctx.json);
    }
    history.of = repo;
    ctx.emit(&history, || human(&history))?;
    Ok(ExitCode::Done)
}

/// The shared store's URL in `PAWL_STORE_URL` when pawl is started outside any git clone
/// (`-C <dir>` or the working directory): `pawl runs` there lists that store's runs.
pub fn store_url_outside_clone(dir: Option<&std::path::Path>) -> Option<String> {
    let url = std::env::var("PAWL_STORE_URL")
        .ok()
        .filter(|u| !u.is_empty())?;
    let start = match dir {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir().ok()?,
    };
    crate::ctx::find_repo_root(&start).is_none().then_some(url)
}

/// A line on stderr saying what is listed (it never goes into `--json`'s stdout).
fn say_note(text: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "pawl: {text}");
}

/// `pawl runs` outside a clone with `PAWL_STORE_URL` set: that store's runs, said so.
pub fn run_env_store(args: &RunsArgs, url: &str, json: bool) -> CliResult<ExitCode> {
    say_note(&format!(
        "not in a git clone: listing every run of the shared store PAWL_STORE_URL names ({})",
        pawl_store::db::redact(url)
    ));
    run_store(args, url, json)
}

/// `pawl runs --store <url>`: every run of the store, anywhere (no repository needed); a run's
/// `repo` is the clone that started it (`host:path`).
pub fn run_store(args: &RunsArgs, url: &str, json: bool) -> CliResult<ExitCode> {
    if args.limit == Some(0) {
        return Err(CliError::Usage("--limit must be at least 1".into()));
    }
    if url.is_empty() {
        return Err(CliError::Usage(
            "--store needs a URL (postgres://…) or a path".into(),
        ));
    }
    let store = crate::state::open_store_at(&pawl_store::Location::parse(url))?;
    let mut history = history(&store, args, &|h| h.clone.clone().unwrap_or_default())?;
    history.of = pawl_store::db::redact(url);
    let mut ctx = Ctx::at(std::path::PathBuf::from("."));
    ctx.json = json;
    ctx.emit(&history, || human(&history))?;
    Ok(ExitCode::Done)
}

fn history(
    store: &pawl_store::Store,
    args: &RunsArgs,
    repo: &dyn Fn(&RunHistory) -> String,
) -> CliResult<History> {
    let all = store.run_history()?;
    let start =
        match args.after.as_deref() {
            None => 0,
            Some(id) => all.iter().position(|h| h.run.id == id).ok_or_else(|| {
                CliError::Usage(format!(
                    "--after {id}: no such run in this listing (give the `next` of the page before)"
                ))
            })? + 1,
        };
    let end = start
        .saturating_add(args.limit.unwrap_or(usize::MAX))
        .min(all.len());
    let mut totals = Totals::default();
    for h in &all {
        let s = &h.spent;
        totals.runs += 1;
        totals.tokens += s.tokens;
        totals.cost_usd += s.usd;
        if let Some(f) = &h.fleet {
            let t = totals.fleets.entry(f.clone()).or_default();
            t.runs += 1;
            t.tokens += s.tokens;
            t.cost_usd += s.usd;
        }
    }
    for budget in store.fleets()? {
        let name = budget.fleet.clone();
        totals.fleets.entry(name).or_default().budget = Some(budget);
    }
    let mut rows = Vec::new();
    for h in &all[start.min(end)..end] {
        let RunHistory { run, spent, .. } = h;
        let open = matches!(run.status, RunStatus::Active | RunStatus::AwaitingUser);
        let verdict = if open {
            None
        } else {
            let (v, _) = pawl_engine::report::verdict_for(store, run)?;
            serde_json::to_value(v)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
        };
        rows.push(RunRow {
            id: run.id.clone(),
            repo: repo(h),
            goal: run.goal.clone(),
            status: run.status.to_string(),
            verdict,
            stop_reason: run.stop_reason.map(|r| r.as_str().to_owned()),
            iterations: spent.iterations,
            tokens: spent.tokens,
            cost_usd: spent.usd,
            started_at: run.created_at,
            ended_at: run.ended_at,
            fleet: h.fleet.clone(),
            active_ms: spent.active_ms,
        });
    }
    let next = (end < all.len())
        .then(|| rows.last().map(|r| r.id.clone()))
        .flatten();
    Ok(History {
        runs: rows,
        next,
        totals,
        of: String::new(),
    })
}

fn human(h: &History) -> String {
    if h.runs.is_empty() && h.totals.runs == 0 {
        return "No runs yet: start one with `pawl run \"<goal>\"`.".into();
    }
    let mut out = format!(
        "{:<20}  {:<13} {:<8} {:<15} {:>5} {:>8} {:>9} {:>8}  goal\n",
        "run", "status", "verdict", "stop reason", "iter", "time", "tokens", "cost"
    );
    // Per day (UTC, by start), newest day first as the runs are.
    let mut days: BTreeMap<String, Totals> = BTreeMap::new();
    for r in &h.runs {
        out.push_str(&format!(
            "{:<20}  {:<13} {:<8} {:<15} {:>5} {:>8} {:>9} {:>8}  {}\n",
            r.id,
            r.status,
            r.verdict.as_deref().unwrap_or("-"),
            r.stop_reason.as_deref().unwrap_or("-"),
            r.iterations,
            pawl_engine::session::human_ms(r.active_ms),
            r.tokens,
            format!("${:.2}", r.cost_usd),
            render::first_line(&r.goal)
        ));
        let day = render::time(r.started_at).chars().take(10).collect();
        days.entry(day).or_default().add(r);
    }
    out.push('\n');
    for (day, t) in days.iter().rev() {
        out.push_str(&format!(
            "{day}: {} run{} · {} tokens · ${:.2}\n",
            t.runs,
            if t.runs == 1 { "" } else { "s" },
            t.tokens,
            t.cost_usd
        ));
    }
    let t = &h.totals;
    out.push_str(&format!(
        "total ({}): {} run{} · {} tokens · ${:.2}",
        h.of,
        t.runs,
        if t.runs == 1 { "" } else { "s" },
        t.tokens,
        t.cost_usd
    ));
    if let Some(next) = &h.next {
        out.push_str(&format!(
            "\nmore runs: the next page is `pawl runs --after {next}` (totals are of all {} runs; the days, of the runs shown)",
            t.runs
        ));
    }
    for (name, f) in &t.fleets {
        out.push_str(&format!(
            "\nfleet {name}: {} run{} · {} tokens · ${:.2}",
            f.runs,
            if f.runs == 1 { "" } else { "s" },
            f.tokens,
            f.cost_usd
        ));
        if let Some(b) = &f.budget {
            out.push_str(&format!(
                " · budget: ${:.2} spent of {}, ${:.2} held by {} step(s) in flight",
                b.spent_usd,
                b.max_usd
                    .map(|m| format!("${m:.2}"))
                    .unwrap_or_else(|| "no cap".into()),
                b.held_usd,
                b.steps_in_flight
            ));
        }
    }
    out
}
