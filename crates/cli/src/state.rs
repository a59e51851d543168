//! pawl's state and the small file operations every command that writes shares: creating
//! `.pawl/` (git-ignored, with its database), opening the store with the key that authenticates
//! its evidence, the user's pawl state outside every repository (the key, the clean rooms),
//! writing a file whole through a rename, reading a file that may not exist.
//!
//! Not here: what goes into those files (the commands and the shared modules that own them) and
//! the database itself (pawl-store).

use std::path::Path;

use crate::ctx::{Ctx, STATE_DIR};
use crate::error::{CliError, CliResult};

/// The state directory (`.pawl/`, ignored by git from inside, with `logs/` and `reports/`), and
/// the repository in the daemon's registry: what a fleet job's fresh clone needs with a shared
/// store (no `pawl init`, nothing outside `.pawl/` written).
pub fn make_state_dir(
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
    // The daemon (`pawl serve`) serves every repository where pawl has run: this one too. A
    // registry that cannot be written costs the dashboard this repository, never the command.
    if let Some(user) = user_state_dir() {
        let _ = pawl_serve::registry::register(&user, &ctx.root);
        // The environment a run started from the dashboard gets: the one the repository
        // joined with (kept; `pawl serve --add` records it again).
        let _ = record_environment(&user, &ctx.root, false);
    }
    for sub in ["logs", "reports"] {
        let d = state.join(sub);
        std::fs::create_dir_all(&d)
            .map_err(CliError::io(format!("cannot create {}", d.display())))?;
    }
    // `.pawl/` ignores everything in itself, whatever the repository's own ignore rules say: a
    // deeper `.gitignore` wins, so un-ignoring `.pawl/` in the root `.gitignore` or in
    // `.git/info/exclude` never exposes the store or the session marker to `git stash -u`,
    // `git add -A` or a checkout (the agent cannot edit this one: `.pawl/**` is protected).
    let inner = state.join(".gitignore");
    if read_optional(&inner)?.as_deref() != Some(STATE_IGNORE) {
        write_atomic(&inner, STATE_IGNORE)?;
    }
    Ok(())
}

/// Records this process's environment as the one runs started from the dashboard in `repo`
/// get (`pawl_serve::registry::record_environment`): when none is recorded yet, or always with
/// `replace`.
pub fn record_environment(user_state: &Path, repo: &Path, replace: bool) -> CliResult {
    pawl_serve::registry::record_environment(
        user_state,
        repo,
        std::env::vars_os(),
        jiff::Timestamp::now().as_millisecond(),
        replace,
    )
    .map(|_| ())
    .map_err(|e| CliError::Failed(e.to_string()))
}

/// Creates `.pawl/` with its database and git-ignores it ([`make_state_dir`], `.pawl/` in
/// `.gitignore`, the store). Idempotent; used by `pawl init`, `pawl run`, session arming and the
/// demo.
pub fn ensure_state(
    ctx: &Ctx,
    created: &mut Vec<String>,
    unchanged: &mut Vec<String>,
) -> CliResult {
    make_state_dir(ctx, created, unchanged)?;
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

/// `.pawl/.gitignore`: everything in `.pawl/`, itself included.
const STATE_IGNORE: &str = "# pawl's state: never tracked, never stashed (written by pawl)\n*\n";

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

/// pawl's state for this user: `$XDG_STATE_HOME/pawl`, else `~/.local/state/pawl`.
pub fn user_state_dir() -> Option<std::path::PathBuf> {
    pawl_engine::user_state_dir()
}

/// The key pawl authenticates its state with (evidence, the run and every row that decides,
/// the guard snapshot: pawl-store's `mac.rs`): 32 random bytes in the user's pawl state (`key`,
/// mode 0600), made on first use. Outside every repository, so an agent that writes the store
/// cannot forge a limit, a status or a passing result. `None` when there is no user state
/// directory (or it cannot be written).
pub fn evidence_key() -> Option<[u8; 32]> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let dir = user_state_dir()?;
    let path = dir.join("key");
    let read = |p: &std::path::Path| -> Option<[u8; 32]> {
        let bytes = std::fs::read(p).ok()?;
        bytes.try_into().ok()
    };
    if let Some(k) = read(&path) {
        return Some(k);
    }
    let mut key = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut key))
        .ok()?;
    std::fs::create_dir_all(&dir).ok()?;
    let tmp = dir.join(format!("key.{}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &key));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    // Two processes racing: the first key to land wins, and both use it.
    if std::fs::hard_link(&tmp, &path).is_err() && !path.exists() {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    let _ = std::fs::remove_file(&tmp);
    read(&path)
}

/// Opens the store at `path` with the key when there is one (`Ctx::store` and the hooks both
/// open it here). Without a key nothing is signed or checked: such a store can be read, but no
/// run is started or resumed with it ([`require_key`]).
pub fn open_store(path: &Path) -> CliResult<pawl_store::Store> {
    Ok(match evidence_key() {
        Some(key) => pawl_store::Store::open_keyed(path, key)?,
        None => pawl_store::Store::open(path)?,
    })
}

/// Opens the store at `location` (a shared PostgreSQL store: `PAWL_STORE_URL`) with the key.
pub fn open_store_at(location: &pawl_store::Location) -> CliResult<pawl_store::Store> {
    let clock = Box::new(pawl_store::SystemClock);
    Ok(pawl_store::Store::open_at(location, clock, evidence_key())?)
}

/// Refuses to drive a run when the store is not keyed: its limits, status and evidence could
/// then be rewritten by anyone with the database file, unseen.
pub fn require_key(store: &pawl_store::Store, what: &str) -> CliResult {
    if store.is_keyed() {
        return Ok(());
    }
    Err(no_key(what))
}

/// Why pawl cannot `what` without its key.
pub fn no_key(what: &str) -> CliError {
    CliError::Failed(format!(
        "pawl cannot {what}: it keeps a run's state authentic with a key in your pawl state directory ($XDG_STATE_HOME/pawl or ~/.local/state/pawl, outside the repository), and has none here (HOME and XDG_STATE_HOME are unset, or that directory cannot be written). Set HOME (or XDG_STATE_HOME) and try again."
    ))
}
