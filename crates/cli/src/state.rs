//! pawl's state directory and the small file operations every command that writes shares:
//! creating `.pawl/` (git-ignored, with its database), writing a file whole through a rename,
//! reading a file that may not exist.
//!
//! Not here: what goes into those files (the commands and the shared modules that own them) and
//! the database itself (pawl-store, opened through `Ctx::store`).

use std::path::Path;

use crate::ctx::{Ctx, STATE_DIR};
use crate::error::{CliError, CliResult};

/// Creates `.pawl/` with its database and git-ignores it. Idempotent; used by `pawl init`,
/// `pawl run`, session arming and the demo.
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
    let existing = read_optional(&path)?.unwrap_or_default();
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

/// Writes through a temporary file and a rename, so a crash never leaves half a file.
pub fn write_atomic(path: &Path, text: &str) -> CliResult {
    let tmp = path.with_extension("pawl-tmp");
    std::fs::write(&tmp, text).map_err(CliError::io(format!("cannot write {}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(CliError::io(format!("cannot write {}", path.display())))
}

/// A file's text, `None` when it does not exist.
pub fn read_optional(path: &Path) -> CliResult<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CliError::Io {
            context: format!("cannot read {}", path.display()),
            source: e,
        }),
    }
}
