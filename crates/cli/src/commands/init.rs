//! `pawl init`: create `.pawl/` (git-ignored) and a commented `pawl.toml`.

use std::path::Path;

use pawl_core::ExitCode;
use serde::Serialize;

use crate::cli::InitArgs;
use crate::ctx::{CONFIG_FILE, Ctx, STATE_DIR};
use crate::error::{CliError, CliResult};

#[derive(Serialize)]
struct InitReport {
    root: String,
    created: Vec<String>,
    unchanged: Vec<String>,
}

pub fn run(ctx: &mut Ctx, _args: &InitArgs) -> CliResult<ExitCode> {
    // Validate an existing pawl.toml before writing anything: a broken file stops init cold.
    ctx.config(&[])?;
    let mut report = InitReport {
        root: ctx.root.display().to_string(),
        created: vec![],
        unchanged: vec![],
    };
    ensure_state(ctx, &mut report.created, &mut report.unchanged)?;
    let config = ctx.root.join(CONFIG_FILE);
    if config.exists() {
        report.unchanged.push(CONFIG_FILE.into());
    } else {
        write_new(&config, &pawl_core::config::default_file_text())?;
        report.created.push(CONFIG_FILE.into());
    }
    ctx.emit(&report, || {
        let mut out = format!("pawl initialised in {}\n", report.root);
        for c in &report.created {
            out.push_str(&format!("  created   {c}\n"));
        }
        for u in &report.unchanged {
            out.push_str(&format!("  unchanged {u}\n"));
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

fn write_new(path: &Path, text: &str) -> CliResult {
    write_atomic(path, text)
}

/// Writes through a temporary file and a rename, so a crash never leaves half a file.
pub fn write_atomic(path: &Path, text: &str) -> CliResult {
    let tmp = path.with_extension("pawl-tmp");
    std::fs::write(&tmp, text).map_err(CliError::io(format!("cannot write {}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(CliError::io(format!("cannot write {}", path.display())))
}
