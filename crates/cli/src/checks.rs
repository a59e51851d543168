//! What the commands that verify share (`pawl verify`, `pawl story done`, `pawl criterion
//! check`, the hooks and the headless driver): the workspace, the configured gates, the open run,
//! and the human account of a verification. The verification itself is pawl-engine's
//! ([`pawl_engine::verify`]).

use pawl_core::record::Run;
use pawl_engine::Workspace;
use pawl_engine::verify::Verification;
use pawl_store::Store;
use pawl_verify::gate::{self, Check};
use pawl_verify::outcome::human_ms;

use crate::ctx::Ctx;
use crate::error::CliResult;

/// Failing test names shown per check in human output.
const SHOWN_NAMES: usize = 10;
/// Lines of a first failure message shown in human output.
const SHOWN_LINES: usize = 12;

/// The repository and pawl's state directory, as the engine's verification sees them.
/// The checks run in the repository's clean room: a pawl-owned copy of exactly the verified
/// tree, in the user's pawl state (outside the repository, out of the agent's working tree).
/// Every check runs contained (each process it starts ends with it), as far as this machine
/// allows (`crate::sandbox::check_containment`).
pub fn workspace(ctx: &Ctx) -> Workspace {
    let mut ws = workspace_bare(ctx);
    let (network, containers) = reach(ctx);
    ws.containment = crate::sandbox::check_containment(&ctx.root, network, containers);
    ws.tester_containment =
        pawl_engine::start::sandbox::tester_containment(&ctx.root, network, containers);
    ws.key_exposed =
        pawl_engine::start::sandbox::check_report(&ctx.root, network, containers)["key_exposed"]
            .as_str()
            .map(str::to_owned);
    ws.coverage_min = crate::project::coverage_minimums(&ctx.root);
    ws
}

/// [`workspace`] without what only running checks needs (the containment's sandbox probe, the
/// coverage minimums read from the project): the root, pawl's state, the room's place and the
/// vault. What the Stop hook's cached answer works with.
pub fn workspace_bare(ctx: &Ctx) -> Workspace {
    let mut ws = Workspace::new(ctx.root.clone(), ctx.state_dir());
    ws.room = room_dir(&ctx.root);
    ws.vault = crate::hidden::vault();
    ws
}

/// What the checks may reach: `[room] network` (the machine's network; default loopback only)
/// and `[sandbox] containers` (the container daemon's socket; default hidden). While a run can
/// go on (active, awaiting the user, or stopped and resumable), as the run started with them:
/// the agent can edit `pawl.toml` during the run, and must not give the checks back what the
/// run started without.
fn reach(ctx: &Ctx) -> (bool, bool) {
    let run = ctx
        .store()
        .ok()
        .and_then(|store| store.current_run().ok().flatten())
        .filter(|run| !run.status.is_terminal());
    let sealed_network = run
        .as_ref()
        .and_then(|run| run.settings.seal.as_ref().map(|seal| seal.network));
    let sealed_containers = run
        .as_ref()
        .and_then(|run| run.settings.sandbox.as_ref().map(|s| s.containers));
    if let (Some(network), Some(containers)) = (sealed_network, sealed_containers) {
        return (network, containers);
    }
    let config = ctx.config(&[]).map(|eff| eff.config).ok();
    (
        sealed_network.unwrap_or_else(|| config.as_ref().is_some_and(|c| c.room.network)),
        sealed_containers.unwrap_or_else(|| config.as_ref().is_some_and(|c| c.sandbox.containers)),
    )
}

/// The room of the repository at `root`: one per repository, named by its path.
fn room_dir(root: &std::path::Path) -> Option<std::path::PathBuf> {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(root.as_os_str().as_encoded_bytes());
    let name: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let base = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into());
    crate::state::user_state_dir().map(|d| d.join("rooms").join(format!("{base}-{name}")))
}

/// The gates configured in `pawl.toml`, in run order.
pub fn configured_gates(ctx: &Ctx) -> CliResult<Vec<Check>> {
    let eff = ctx.config(&[])?;
    Ok(gate::gates_from_config(&eff.config.gates))
}

/// The run a verification belongs to: the one named by `--run` (which must be open), else the
/// run being worked on now (active or awaiting the user). A verification outside a run never
/// writes onto a stopped one.
pub fn optional_run(ctx: &Ctx, store: &Store) -> CliResult<Option<Run>> {
    if ctx.run_flag.is_some() {
        return Ok(Some(ctx.open_run(store)?));
    }
    Ok(store.current_run()?.filter(|r| {
        matches!(
            r.status,
            pawl_core::model::RunStatus::Active | pawl_core::model::RunStatus::AwaitingUser
        )
    }))
}

/// The compact human account of a verification: one line per check, and for each failing one
/// the failing test names, the first failure message and the log path.
pub fn render(v: &Verification) -> String {
    let mut out = String::new();
    let short = |t: &str| t.get(..10).unwrap_or(t).to_owned();
    for item in &v.items {
        let name = &item.name;
        match (&item.skipped, &item.evidence) {
            (Some(reason), _) => out.push_str(&format!("  - {name:<12} skipped: {reason}\n")),
            (None, Some(e)) => {
                let d = &e.data;
                let mark = if d.passed { "✓" } else { "✗" };
                let how = if item.reused {
                    format!(
                        "passed (reused: evidence #{} from this exact tree)",
                        d.reused_from.unwrap_or(e.id)
                    )
                } else if d.passed {
                    format!("passed in {}", human_ms(d.duration_ms))
                } else {
                    let end = match (d.end.as_str(), d.exit_code, d.signal) {
                        ("exited", Some(c), _) => format!("exit {c}"),
                        ("signalled", _, Some(s)) => {
                            format!("killed by {}", pawl_process::signal_name(s))
                        }
                        ("timed_out", _, _) => "timed out".to_owned(),
                        (other, _, _) => other.replace('_', " "),
                    };
                    let cat = d
                        .failure_category
                        .map(|c| format!(" [{c}]"))
                        .unwrap_or_default();
                    format!("FAILED ({end}) in {}{cat}", human_ms(d.duration_ms))
                };
                let counts = d
                    .tests
                    .as_ref()
                    .map(|t| {
                        format!(
                            "  tests: {} passed, {} failed, {} skipped",
                            t.passed, t.failed, t.skipped
                        )
                    })
                    .unwrap_or_default();
                out.push_str(&format!("  {mark} {name:<12} {how}{counts}\n"));
                if !d.passed {
                    if !d.failing.is_empty() {
                        let mut names: Vec<&str> = d
                            .failing
                            .iter()
                            .take(SHOWN_NAMES)
                            .map(String::as_str)
                            .collect();
                        if d.failing.len() > SHOWN_NAMES {
                            names.push("...");
                        }
                        out.push_str(&format!("      failing: {}\n", names.join(", ")));
                    }
                    let message = d
                        .first_failure
                        .clone()
                        .unwrap_or_else(|| last_lines(&d.tail));
                    for (i, line) in message
                        .lines()
                        .filter(|l| !l.trim().is_empty())
                        .take(SHOWN_LINES)
                        .enumerate()
                    {
                        let label = if i == 0 {
                            "first failure:"
                        } else {
                            "              "
                        };
                        out.push_str(&format!("      {label} {line}\n"));
                    }
                    if let Some(log) = &d.log_path {
                        out.push_str(&format!("      log: {log}\n"));
                    }
                }
            }
            (None, None) => out.push_str(&format!("  ? {name:<12} no result\n")),
        }
    }
    if !v.forged.is_empty() {
        out.push_str(&format!(
            "warning: {} evidence record(s) for this tree were not written by pawl (their authentication code does not verify): ignored (#{})\n",
            v.forged.len(),
            v.forged
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", #")
        ));
    }
    if let Some(after) = &v.tree_after {
        let what = if v.moved.is_empty() {
            String::new()
        } else {
            format!(
                "; changed: {}{}",
                v.moved.join(", "),
                if v.moved.len() >= pawl_engine::verify::MAX_MOVED_PATHS {
                    ", ..."
                } else {
                    ""
                }
            )
        };
        out.push_str(&format!(
            "The working tree changed while the checks ran ({} -> {}{what}): the evidence is bound to \
             {} and is not reused. Git-ignore what the checks generate, then verify again.\n",
            short(&v.tree),
            short(after),
            short(&v.tree)
        ));
    }
    let failed = v.items.iter().filter(|i| !i.passed()).count();
    if v.tree_after.is_some() && failed == 0 {
        out.push_str(&format!(
            "NOT verified: the checks passed but the tree they ran on ({}) is no longer the working tree",
            short(&v.tree)
        ));
    } else if v.verified {
        out.push_str(&format!(
            "verified: {} check{} passed on tree {}",
            v.items.len(),
            if v.items.len() == 1 { "" } else { "s" },
            short(&v.tree)
        ));
    } else {
        out.push_str(&format!(
            "NOT verified: {failed} of {} check{} did not pass on tree {}",
            v.items.len(),
            if v.items.len() == 1 { "" } else { "s" },
            short(&v.tree)
        ));
        if let Some(f) = &v.failure {
            out.push_str(&format!(
                "\nrecorded failure #{} [{}]{}",
                f.id,
                f.category,
                f.story_id
                    .as_deref()
                    .map(|s| format!(" on story {s}"))
                    .unwrap_or_default()
            ));
        }
    }
    out
}

fn last_lines(tail: &str) -> String {
    let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(SHOWN_LINES)..].join("\n")
}
