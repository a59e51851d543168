//! `pawl init`: create `.pawl/` (git-ignored) and a commented `pawl.toml`.

use std::path::Path;

use pawl_core::ExitCode;
use pawl_verify::Detection;
use serde::Serialize;

use crate::cli::InitArgs;
use crate::ctx::{CONFIG_FILE, Ctx, STATE_DIR};
use crate::error::{CliError, CliResult};

#[derive(Serialize)]
struct InitReport {
    root: String,
    created: Vec<String>,
    unchanged: Vec<String>,
    /// The detected platform (`pawl detect`), if any.
    platform: Option<String>,
    /// The gates written into `pawl.toml` by this init (none when the user already has some).
    gates: Vec<String>,
    /// What the user must know about installed hooks (e.g. Codex's hook trust).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

pub fn run(ctx: &mut Ctx, args: &InitArgs) -> CliResult<ExitCode> {
    let plan = super::init_hooks::plan(args)?;
    if args.remove {
        return super::init_hooks::remove(ctx, &plan);
    }
    // Validate an existing pawl.toml before writing anything: a broken file stops init cold.
    ctx.config(&[])?;
    let mut report = InitReport {
        root: ctx.root.display().to_string(),
        created: vec![],
        unchanged: vec![],
        platform: None,
        gates: vec![],
        notes: vec![],
    };
    ensure_state(ctx, &mut report.created, &mut report.unchanged)?;
    let config = ctx.root.join(CONFIG_FILE);
    let detection = super::detect::detection(ctx)?;
    report.platform = detection.selected.clone();
    if config.exists() {
        let text = std::fs::read_to_string(&config)
            .map_err(CliError::io(format!("cannot read {}", config.display())))?;
        match add_detected_gates(&text, &detection)? {
            Some((new_text, names)) => {
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
        let (text, names) =
            add_detected_gates(&default, &detection)?.unwrap_or((default, Vec::new()));
        write_new(&config, &text)?;
        report.created.push(CONFIG_FILE.into());
        report.gates = names;
    }
    super::init_hooks::install(
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
        for n in &report.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out.push_str("Next: pawl run \"<goal>\"");
        out
    })?;
    Ok(ExitCode::Done)
}

/// Creates `.pawl/` with its database and git-ignores it. Idempotent; used by `pawl run` too.
pub fn ensure_state(
    ctx: &Ctx,
    created: &mut Vec<String>,
    unchanged: &mut Vec<String>,
) -> CliResult {
    let state = ctx.state_dir();
    if state.is_dir() {
        unchanged.push(format!("{STATE_DIR}/"));
    } else {
        std::fs::create_dir_all(&state)
            .map_err(CliError::io(format!("cannot create {}", state.display())))?;
        created.push(format!("{STATE_DIR}/"));
    }
    for sub in ["logs", "reports"] {
        let d = state.join(sub);
        std::fs::create_dir_all(&d)
            .map_err(CliError::io(format!("cannot create {}", d.display())))?;
    }
    if ignore_state_dir(&ctx.root)? {
        created.push(format!(".gitignore entry {STATE_DIR}/"));
    } else {
        unchanged.push(".gitignore".into());
    }
    let existed = ctx.db_path().exists();
    ctx.store()?;
    if !existed {
        created.push(format!("{STATE_DIR}/pawl.db"));
    }
    Ok(())
}

/// Adds `.pawl/` to `.gitignore` unless an equivalent line is there. Returns whether it wrote.
fn ignore_state_dir(root: &Path) -> CliResult<bool> {
    let path = root.join(".gitignore");
    let existing = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(CliError::Io {
                context: format!("cannot read {}", path.display()),
                source: e,
            });
        }
    };
    let covered = existing.lines().map(str::trim).any(|l| {
        matches!(
            l,
            ".pawl" | ".pawl/" | "/.pawl" | "/.pawl/" | ".pawl/*" | "/.pawl/*"
        )
    });
    if covered {
        return Ok(false);
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(".pawl/\n");
    write_atomic(&path, &text)?;
    Ok(true)
}

/// Adds the detected commands to `[gates]` when it has none, keeping the rest of the file (and
/// its comments and formatting) as it is. Gates the user set are never touched: `None` when
/// `[gates]` already has an entry or nothing was detected.
fn add_detected_gates(text: &str, d: &Detection) -> CliResult<Option<(String, Vec<String>)>> {
    let commands: Vec<(&str, &str)> = d.commands.iter().collect();
    if commands.is_empty() {
        return Ok(None);
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
    if let Some((first, _)) = commands.first()
        && let Some(mut key) = table.key_mut(first)
    {
        key.leaf_decor_mut().set_prefix(note);
    }
    Ok(Some((
        doc.to_string(),
        commands.iter().map(|(n, _)| (*n).to_owned()).collect(),
    )))
}

fn write_new(path: &Path, text: &str) -> CliResult {
    write_atomic(path, text)
}

/// Writes through a temporary file and a rename, so a crash never leaves half a file.
pub fn write_atomic(path: &Path, text: &str) -> CliResult {
    let tmp = path.with_extension("pawl-tmp");
    std::fs::write(&tmp, text).map_err(CliError::io(format!("cannot write {}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(CliError::io(format!("cannot write {}", path.display())))
}
