//! The guard as pawl runs it on this machine, shared by `pawl guard` and the PreToolUse hook:
//! the policy a run's `[guard]` settings make, and the real filesystem the guard asks about
//! symbolic links and scripts.
//!
//! Not here: the guard's rules and decisions (pawl-guard), the repository context each caller
//! builds (branch, tracked files: `pawl guard` reads them eagerly, the hook lazily).

use pawl_core::config::GuardConfig;
use pawl_guard::{DenyRule, Policy};

/// The guard's policy from `[guard]`: the user's lists extend the built-in ones.
pub fn policy(cfg: &GuardConfig) -> Policy {
    let mut p = Policy {
        protected_branches: cfg.protected_branches.clone(),
        allow_unsafe: cfg.allow_unsafe,
        always: cfg.always,
        ..Policy::default()
    };
    p.protected_paths
        .extend(cfg.protected_paths.iter().cloned());
    p.allowances.extend(cfg.allowances.iter().cloned());
    p.deny.extend(cfg.deny.iter().map(|d| DenyRule {
        command: d.command.clone(),
        pattern: d.pattern.clone(),
        reason: d.reason.clone(),
    }));
    p
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
