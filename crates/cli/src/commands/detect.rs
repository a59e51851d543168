//! `pawl detect [--json]`: which platforms matched, which one was selected and why, and the
//! gate commands `pawl init` would write.
//!
//! Descriptors are the embedded ones plus `.pawl/platforms/*.toml` (a file whose `name` matches a
//! built-in one replaces it). A tool condition is true when the program is on `PATH`.

use std::path::{Path, PathBuf};

use pawl_core::ExitCode;
use pawl_verify::platform::{Descriptors, render_human};
use pawl_verify::{Detection, ProjectFacts, detect};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

/// Reads `.pawl/platforms/*.toml` (sorted by file name) as `(origin, text)` pairs.
fn user_descriptors(root: &Path) -> CliResult<Vec<(String, String)>> {
    let dir = root.join(".pawl").join("platforms");
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(CliError::Io {
                context: format!("cannot read {}", dir.display()),
                source: e,
            });
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p)
                .map_err(CliError::io(format!("cannot read {}", p.display())))?;
            Ok((
                format!(
                    ".pawl/platforms/{}",
                    p.file_name()
                        .map(|n| n.to_string_lossy())
                        .unwrap_or_default()
                ),
                text,
            ))
        })
        .collect()
}

/// Whether `tool` is an executable file in one of `PATH`'s directories.
fn on_path(tool: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(dir.join(tool))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// Detects the project's platform at the repository root.
pub fn detection(ctx: &Ctx) -> CliResult<Detection> {
    let extra = user_descriptors(&ctx.root)?;
    let descriptors =
        Descriptors::with_overrides(&extra).map_err(|e| CliError::Failed(e.to_string()))?;
    let facts = ProjectFacts::gather(&ctx.root, &descriptors, on_path)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    for w in &facts.warnings {
        ctx.warn(w);
    }
    Ok(detect(&facts, &descriptors))
}

pub fn run(ctx: &mut Ctx) -> CliResult<ExitCode> {
    let d = detection(ctx)?;
    ctx.emit(&d, || render_human(&d))?;
    Ok(ExitCode::Done)
}
