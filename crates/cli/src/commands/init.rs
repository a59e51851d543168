//! `pawl init`: create `.pawl/` (git-ignored) and a commented `pawl.toml`.

use std::path::{Path, PathBuf};

use clap::Args;
use pawl_core::ExitCode;
use pawl_verify::Detection;
use serde::Serialize;

use crate::ctx::{CONFIG_FILE, Ctx};
use crate::error::{CliError, CliResult};
use crate::hook_setup;
use crate::project;
use crate::state::{ensure_state, write_atomic};

#[derive(Debug, Args, Default)]
pub struct InitArgs {
    /// Also merge pawl's hooks into this agent's local settings (kept out of git): claude, codex or gemini (repeatable).
    #[arg(long = "agent", value_name = "AGENT")]
    pub agents: Vec<String>,
    /// Write the hooks into the agent's committed settings instead (`.claude/settings.json`), running `pawl` from PATH so they work on any machine.
    #[arg(long)]
    pub shared: bool,
    /// Take out exactly the hooks pawl added (of the --agent given, or of every agent).
    #[arg(long)]
    pub remove: bool,
    /// Write a Claude Code plugin that runs pawl's hooks (into DIR, default .pawl/claude-plugin).
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = ".pawl/claude-plugin")]
    pub plugin: Option<PathBuf>,
}

#[derive(Serialize)]
struct InitReport {
    root: String,
    created: Vec<String>,
    unchanged: Vec<String>,
    /// The detected platform (`pawl detect`), if any.
    platform: Option<String>,
    /// The gates written into `pawl.toml` by this init (none when the user already has some).
    gates: Vec<String>,
    /// Detected gates written commented out, with why: their program does not resolve in the
    /// environment the checks will have.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    not_written: Vec<String>,
    /// What the user must know about installed hooks (e.g. Codex's hook trust).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
    /// What will stop a run unless the user acts first (a gate's program not installed, missing
    /// dependencies).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: &InitArgs) -> CliResult<ExitCode> {
    let plan = hook_setup::plan(
        &args.agents,
        args.remove,
        args.plugin.as_deref(),
        args.shared,
    )?;
    if args.remove {
        return hook_setup::remove(ctx, &plan);
    }
    // Validate an existing pawl.toml before writing anything: a broken file stops init cold.
    ctx.config(&[])?;
    let mut report = InitReport {
        root: ctx.root.display().to_string(),
        created: vec![],
        unchanged: vec![],
        platform: None,
        gates: vec![],
        not_written: vec![],
        notes: vec![],
        warnings: vec![],
    };
    ensure_state(ctx, &mut report.created, &mut report.unchanged)?;
    let config = ctx.root.join(CONFIG_FILE);
    let detection = project::detection(ctx)?;
    report.platform = detection.selected.clone();
    let checks_path = project::checks_path(&ctx.root);
    let unresolved = |cmd: &str| project::gate_unresolved(&ctx.root, cmd, &checks_path);
    if config.exists() {
        let text = std::fs::read_to_string(&config)
            .map_err(CliError::io(format!("cannot read {}", config.display())))?;
        match add_detected_gates(&text, &detection, &unresolved)? {
            Some((new_text, names, skipped)) => {
                report.not_written = skipped;
                write_atomic(&config, &new_text)?;
                report
                    .created
                    .push(format!("{CONFIG_FILE} [gates]: {}", names.join(", ")));
                report.gates = names;
            }
            None => report.unchanged.push(CONFIG_FILE.into()),
        }
    } else {
        let default = pawl_core::config::default_file_text();
        let (text, names, skipped) = add_detected_gates(&default, &detection, &unresolved)?
            .unwrap_or((default, Vec::new(), Vec::new()));
        report.not_written = skipped;
        write_new(&config, &text)?;
        report.created.push(CONFIG_FILE.into());
        report.gates = names;
    }
    ignore_outputs(ctx, &mut report)?;
    warn_missing_tools(ctx, &mut report)?;
    hook_setup::install(
        ctx,
        &plan,
        &mut report.created,
        &mut report.unchanged,
        &mut report.notes,
    )?;
    ctx.emit(&report, || {
        let mut out = format!("pawl initialised in {}\n", report.root);
        for c in &report.created {
            out.push_str(&format!("  created   {c}\n"));
        }
        for u in &report.unchanged {
            out.push_str(&format!("  unchanged {u}\n"));
        }
        match (&report.platform, report.gates.is_empty()) {
            (Some(p), false) => out.push_str(&format!(
                "Detected {p}: gates {} (edit them under [gates])\n",
                report.gates.join(", ")
            )),
            (Some(p), true) => out.push_str(&format!("Detected {p}; [gates] left as it is\n")),
            (None, _) => {
                out.push_str("No platform detected: add your checks under [gates] in pawl.toml\n")
            }
        }
        for g in &report.not_written {
            out.push_str(&format!("  commented out {g}\n"));
        }
        for n in &report.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        for w in &report.warnings {
            out.push_str(&format!("warning: {w}\n"));
        }
        out.push_str("Next: pawl run \"<goal>\"");
        out
    })?;
    Ok(ExitCode::Done)
}

/// What [`add_detected_gates`] wrote: the new text, the gates written, and the gates written
/// commented out (`name: why`).
type Added = (String, Vec<String>, Vec<String>);

/// Adds the detected commands to `[gates]` when it has none, keeping the rest of the file (and
/// its comments and formatting) as it is. Gates the user set are never touched: `None` when
/// `[gates]` already has an entry or nothing was detected. A gate whose program does not
/// resolve in the checks' environment (`unresolved` says why) is written commented out, with
/// why: a gate that cannot start refuses every run.
fn add_detected_gates(
    text: &str,
    d: &Detection,
    unresolved: &dyn Fn(&str) -> Option<String>,
) -> CliResult<Option<Added>> {
    let all: Vec<(&str, &str)> = d.commands.iter().collect();
    if all.is_empty() {
        return Ok(None);
    }
    let mut commands: Vec<(&str, &str)> = Vec::new();
    let mut commented: Vec<(&str, &str, String)> = Vec::new();
    for (name, cmd) in all {
        // `lint_fix` is not a gate that runs at the baseline; it is kept as detected.
        match unresolved(cmd).filter(|_| name != "lint_fix") {
            Some(why) => commented.push((name, cmd, why)),
            None => commands.push((name, cmd)),
        }
    }
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| CliError::Failed(format!("{CONFIG_FILE}: {e}")))?;
    if !doc.contains_key("gates") {
        doc.insert("gates", toml_edit::Item::Table(toml_edit::Table::new()));
    }
    let Some(table) = doc
        .get_mut("gates")
        .and_then(toml_edit::Item::as_table_like_mut)
    else {
        return Err(CliError::Failed(format!(
            "{CONFIG_FILE}: `gates` must be a table"
        )));
    };
    if !table.is_empty() {
        return Ok(None);
    }
    for (name, cmd) in &commands {
        table.insert(name, toml_edit::value(*cmd));
    }
    let mut note = String::new();
    if let Some(p) = &d.selected {
        note.push_str(&format!(
            "# Detected platform: {p}. Edit freely; pawl runs these itself.\n"
        ));
    }
    if commands
        .iter()
        .any(|(_, c)| pawl_verify::report::uses_report(c))
    {
        note.push_str(
            "# {report} is replaced by a report path under .pawl/logs/ when pawl runs the gate.\n",
        );
    }
    for (name, cmd, why) in &commented {
        let value = toml_edit::value(*cmd).to_string();
        note.push_str(&format!(
            "# Not written: {why}; the checks could not start it.\n# {name} = {}\n",
            value.trim()
        ));
    }
    if let Some((first, _)) = commands.first()
        && let Some(mut key) = table.key_mut(first)
    {
        key.leaf_decor_mut().set_prefix(note);
    } else if let Some(t) = doc.get_mut("gates").and_then(toml_edit::Item::as_table_mut) {
        // No gate resolves: the commented ones go above the (empty) table.
        let prefix = t.decor().prefix().and_then(|p| p.as_str()).unwrap_or("");
        if !note.is_empty() && prefix.contains(&note) {
            return Ok(None);
        }
        let prefix = format!("{prefix}{note}");
        t.decor_mut().set_prefix(prefix);
    }
    Ok(Some((
        doc.to_string(),
        commands.iter().map(|(n, _)| (*n).to_owned()).collect(),
        commented
            .iter()
            .map(|(n, _, why)| format!("{n}: {why}"))
            .collect(),
    )))
}

/// Git-ignores the platform's usual build outputs that are not (an output in the tree changes
/// the tree hash evidence is bound to, and moves while checks run), appending them to
/// `.gitignore` and saying so.
fn ignore_outputs(ctx: &Ctx, report: &mut InitReport) -> CliResult {
    let missing = match project::unignored_outputs(&ctx.root) {
        Ok(m) => m,
        Err(e) => {
            report.warnings.push(format!(
                "cannot ask git which build outputs are ignored: {e}"
            ));
            return Ok(());
        }
    };
    if missing.is_empty() {
        return Ok(());
    }
    let path = ctx.root.join(".gitignore");
    let mut text = crate::state::read_optional(&path)?.unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("# build outputs (added by pawl init)\n");
    for m in &missing {
        text.push_str(m);
        text.push('\n');
    }
    write_atomic(&path, &text)?;
    report.created.push(format!(
        ".gitignore: {} (build outputs)",
        missing.join(", ")
    ));
    Ok(())
}

/// Warns about what will stop a run before it starts: a gate whose program is not installed,
/// a Node project without its dependencies.
fn warn_missing_tools(ctx: &Ctx, report: &mut InitReport) -> CliResult {
    let eff = ctx.config(&[])?;
    let gates = pawl_verify::gate::gates_from_config(&eff.config.gates);
    // Where the checks will look: the project's environment, then the sealed PATH.
    let path = project::checks_path(&ctx.root);
    for (gate, program) in project::missing_gate_tools(&gates, &path) {
        report.warnings.push(format!(
            "the gate `{gate}` runs `{program}`, which is not on PATH: install it, or change [gates] {gate} in {CONFIG_FILE} (a check that cannot start refuses the run)"
        ));
    }
    if ctx.root.join("package.json").is_file() && !ctx.root.join("node_modules").is_dir() {
        report.warnings.push(
            "package.json and no node_modules/: install the dependencies (`npm ci` or `npm install`) before `pawl run`, or the gates cannot start".into(),
        );
    }
    Ok(())
}

fn write_new(path: &Path, text: &str) -> CliResult {
    write_atomic(path, text)
}
