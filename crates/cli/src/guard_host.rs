//! The guard as pawl runs it on this machine, shared by `pawl guard` and the PreToolUse hook:
//! the policy a run's `[guard]` settings make, pawl's own paths on this machine (the user state
//! directory, the pawl binary the hooks run), the real filesystem the guard asks about symbolic
//! links and scripts, and the git facts the guard needs read without the agent's `git` (the
//! branch from `HEAD` itself; git at a fixed system path, never one found on the agent's PATH).
//!
//! Not here: the guard's rules and decisions (pawl-guard), the repository context each caller
//! builds (branch, tracked files: `pawl guard` reads them eagerly, the hook lazily).

use std::path::{Path, PathBuf};

use pawl_core::config::GuardConfig;
use pawl_guard::{DenyRule, PawlPathKind, Policy};

/// pawl's own paths on this machine that no policy knows by itself.
#[derive(Debug, Clone, Default)]
pub struct Host {
    /// `$XDG_STATE_HOME/pawl` (or `~/.local/state/pawl`): the key, the rooms, the sessions.
    pub state_dir: Option<PathBuf>,
    /// The pawl binary the hooks run, as written in the settings and where it really is.
    pub binaries: Vec<PathBuf>,
}

impl Host {
    /// This process: the user state directory, and this binary (the hooks run the binary they
    /// name, so inside a hook this is it) with `extra` binaries the run recorded.
    pub fn current(extra: &[PathBuf]) -> Host {
        let mut binaries: Vec<PathBuf> = Vec::new();
        let mut add = |p: PathBuf| {
            for p in [p.canonicalize().ok(), Some(p)].into_iter().flatten() {
                if p.is_absolute() && !binaries.contains(&p) {
                    binaries.push(p);
                }
            }
        };
        if let Ok(exe) = std::env::current_exe() {
            add(exe);
        }
        for p in extra {
            add(p.clone());
        }
        Host {
            state_dir: crate::state::user_state_dir(),
            binaries,
        }
    }
}

/// The guard's policy from `[guard]` and this machine's pawl paths: the user's lists extend the
/// built-in ones.
pub fn policy(cfg: &GuardConfig, host: &Host) -> Policy {
    let mut p = Policy {
        protected_branches: cfg.protected_branches.clone(),
        allow_unsafe: cfg.allow_unsafe,
        always: cfg.always,
        ..Policy::default()
    };
    p.protected_paths
        .extend(cfg.protected_paths.iter().cloned());
    p.allowances.extend(cfg.allowances.iter().cloned());
    p.disabled_rules = cfg.rules.disabled();
    p.deny.extend(cfg.deny.iter().map(|d| DenyRule {
        command: d.command.clone(),
        pattern: d.pattern.clone(),
        reason: d.reason.clone(),
    }));
    if let Some(dir) = &host.state_dir {
        p.protect_pawl_path(&dir.display().to_string(), PawlPathKind::Secret);
    }
    for b in &host.binaries {
        p.protect_pawl_path(&b.display().to_string(), PawlPathKind::Binary);
    }
    p
}

/// The branch checked out where `cwd` is: the `HEAD` of the nearest git directory at or above
/// `cwd` within `root` (a worktree or nested repository under the run has its own), read from
/// the file itself. `Ok(None)` when detached. No `git` runs: a `git` the agent put earlier on
/// PATH must not tell the guard which branch it is on. An unreadable or malformed `HEAD` is an
/// error (the hook fails closed on it).
pub fn branch_at(root: &Path, cwd: &Path) -> Result<Option<String>, String> {
    let mut dir = if cwd.starts_with(root) { cwd } else { root };
    loop {
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            break;
        }
        match dir.parent() {
            Some(parent) if dir != root => dir = parent,
            _ => return Err(format!("no git directory at or above {}", cwd.display())),
        }
    }
    let unreadable =
        |what: &Path, e: std::io::Error| format!("cannot read {}: {e}", what.display());
    let git_dir = git_dir_of(dir)?;
    let path = git_dir.join("HEAD");
    let head = std::fs::read_to_string(&path).map_err(|e| unreadable(&path, e))?;
    let head = head.trim();
    if let Some(r) = head.strip_prefix("ref:") {
        let r = r.trim();
        return Ok(Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_owned()));
    }
    let detached = matches!(head.len(), 40 | 64) && head.bytes().all(|b| b.is_ascii_hexdigit());
    if detached {
        Ok(None)
    } else {
        Err(format!(
            "{} holds neither a branch nor a commit",
            path.display()
        ))
    }
}

/// The git directory of the working tree at `dir`: `dir/.git` itself, or where a `.git` file
/// (`gitdir: <path>`, a linked worktree or a submodule) points.
pub fn git_dir_of(dir: &Path) -> Result<PathBuf, String> {
    let git = dir.join(".git");
    if git.is_dir() {
        return Ok(git);
    }
    let text =
        std::fs::read_to_string(&git).map_err(|e| format!("cannot read {}: {e}", git.display()))?;
    let target = text
        .trim()
        .strip_prefix("gitdir:")
        .ok_or_else(|| format!("{} is not a gitdir file", git.display()))?
        .trim();
    let target = Path::new(target);
    Ok(if target.is_absolute() {
        target.to_path_buf()
    } else {
        dir.join(target)
    })
}

/// The files git tracks in the working tree at `root` (paths from its top): the index read
/// in-process, or `git ls-files` (through [`trusted_git`]) when the in-process reader is not
/// sure of this index. `None` when neither answers.
pub fn tracked_files(root: &Path) -> Option<Vec<String>> {
    if let Ok(git_dir) = git_dir_of(root)
        && let Some(paths) = pawl_git::index_paths(&git_dir)
    {
        return Some(paths);
    }
    let files = open_repo(root).ok()?.tracked_files().ok()?;
    Some(files.iter().map(|p| p.display().to_string()).collect())
}

/// The git program pawl's guard asks (tracked files, aliases): the first of the system's own
/// places that holds one, never a `git` found on the agent's PATH.
pub fn trusted_git() -> Option<PathBuf> {
    [
        "/usr/bin/git",
        "/bin/git",
        "/usr/local/bin/git",
        "/opt/homebrew/bin/git",
        "/opt/local/bin/git",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.is_file())
}

/// The repository at `root` with git run from [`trusted_git`].
pub fn open_repo(root: &Path) -> Result<pawl_git::Repo, pawl_git::Error> {
    let mut options = pawl_git::Options::default();
    if let Some(git) = trusted_git() {
        options.program = git.into_os_string();
    }
    pawl_git::Repo::open_with(root, options)
}

/// The real filesystem, asked lazily by the guard where a path may go through a symbolic link:
/// like `realpath -m`, the longest existing prefix is resolved and the rest appended as written.
pub struct HostFs;

impl pawl_guard::FileSystemView for HostFs {
    fn resolve_links(&self, path: &str) -> Option<String> {
        let path = std::path::Path::new(path);
        if !path.is_absolute() {
            return None;
        }
        // Walk up to the longest prefix that exists, resolve it, re-append the rest.
        let mut existing = path;
        let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
        loop {
            if std::fs::symlink_metadata(existing).is_ok() {
                break;
            }
            rest.push(existing.file_name()?);
            existing = existing.parent()?;
        }
        let mut resolved = std::fs::canonicalize(existing).ok()?;
        for part in rest.iter().rev() {
            resolved.push(part);
        }
        resolved.to_str().map(str::to_owned)
    }
}

impl pawl_guard::ScriptReader for HostFs {
    fn read_script(&self, path: &str) -> Option<String> {
        use std::io::Read as _;
        // Regular files only (following links): opening a FIFO or a device could block.
        if !std::fs::metadata(path).ok()?.is_file() {
            return None;
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .ok()?
            .take(pawl_guard::MAX_SCRIPT_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}
