//! The mounts a sandboxed step gets, as a pure function of its [`SandboxSpec`]: which paths are
//! pinned, bound read-only, hidden, and which writable paths are opened again below a read-only
//! one. The launcher applies the list in order; the order is the point of this module.
//!
//! Why pins: a read-only bind protects a path, not a name. If the directory that holds a
//! protected file can be renamed (`mv .git .git-old; mkdir .git; ...`), the bind moves with it
//! and the name is free again. A mount point cannot be renamed or removed (EBUSY), so every
//! directory on the way to a protected path that sits in a writable place is bound onto itself
//! first (recursively, outermost first, so later mounts land on top and none is hidden).

use std::path::{Path, PathBuf};

use super::SandboxSpec;

/// One mount operation, in the order the launcher performs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountOp {
    /// Bind a directory onto itself (recursively) so it cannot be renamed or removed.
    Pin(PathBuf),
    /// Bind a path onto itself read-only.
    ReadOnly(PathBuf),
    /// Cover a directory with an empty read-only directory, or a file with an empty file.
    Hide(PathBuf),
    /// Bind a writable path onto itself read-write again (it lies below a read-only one).
    Writable(PathBuf),
}

/// The mount operations of `spec`, for the paths `exists` says are there (a missing path is
/// skipped: there is nothing to protect, and a mount needs a target).
pub fn mount_plan(spec: &SandboxSpec, exists: impl Fn(&Path) -> bool) -> Vec<MountOp> {
    let protected: Vec<&PathBuf> = spec
        .read_only
        .iter()
        .chain(&spec.hidden)
        .filter(|p| exists(p))
        .collect();
    let holes: Vec<&PathBuf> = spec
        .writable
        .iter()
        .filter(|w| exists(w))
        .filter(|w| protected.iter().any(|p| w.starts_with(p) && w != p))
        .collect();
    let in_writable = |p: &Path| spec.writable.iter().any(|w| p.starts_with(w));
    let mut pins: Vec<PathBuf> = Vec::new();
    for path in protected.iter().copied().chain(holes.iter().copied()) {
        for ancestor in path.ancestors().skip(1) {
            let Some(parent) = ancestor.parent() else {
                break; // `/` itself
            };
            if in_writable(parent) && !pins.iter().any(|p| p == ancestor) {
                pins.push(ancestor.to_path_buf());
            }
        }
    }
    // Outermost first: a recursive bind copies the mounts below it, so inner pins survive.
    pins.sort_by_key(|p| p.components().count());
    let mut ops: Vec<MountOp> = pins.into_iter().map(MountOp::Pin).collect();
    ops.extend(
        spec.read_only
            .iter()
            .filter(|p| exists(p))
            .map(|p| MountOp::ReadOnly(p.clone())),
    );
    ops.extend(
        spec.hidden
            .iter()
            .filter(|p| exists(p))
            .map(|p| MountOp::Hide(p.clone())),
    );
    ops.extend(holes.into_iter().map(|w| MountOp::Writable(w.clone())));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(read_only: &[&str], hidden: &[&str], writable: &[&str]) -> SandboxSpec {
        let paths = |v: &[&str]| v.iter().map(PathBuf::from).collect();
        SandboxSpec {
            read_only: paths(read_only),
            hidden: paths(hidden),
            writable: paths(writable),
            ..SandboxSpec::default()
        }
    }

    fn shown(ops: &[MountOp]) -> Vec<String> {
        ops.iter()
            .map(|op| match op {
                MountOp::Pin(p) => format!("pin {}", p.display()),
                MountOp::ReadOnly(p) => format!("ro {}", p.display()),
                MountOp::Hide(p) => format!("hide {}", p.display()),
                MountOp::Writable(p) => format!("rw {}", p.display()),
            })
            .collect()
    }

    /// Rows: read-only paths, hidden paths, writable roots → the operations in order.
    #[test]
    fn plans() {
        type Row<'a> = (&'a [&'a str], &'a [&'a str], &'a [&'a str], &'a [&'a str]);
        let rows: &[Row<'_>] = &[
            // A repository under /tmp: every directory on the way that could be renamed is
            // pinned, outermost first; /tmp itself sits in `/`, which is not writable.
            (
                &["/tmp/x/repo/.pawl", "/tmp/x/repo/.git/hooks"],
                &[],
                &["/tmp/x/repo", "/tmp"],
                &[
                    "pin /tmp/x",
                    "pin /tmp/x/repo",
                    "pin /tmp/x/repo/.git",
                    "ro /tmp/x/repo/.pawl",
                    "ro /tmp/x/repo/.git/hooks",
                ],
            ),
            // Nothing writable around the protected path: nothing to pin.
            (
                &["/usr/bin/pawl"],
                &[],
                &["/work/repo"],
                &["ro /usr/bin/pawl"],
            ),
            // A writable mailbox under a read-only directory is opened again, last.
            (
                &["/r/.pawl"],
                &["/h/.local/state/pawl"],
                &["/r", "/h", "/r/.pawl/requests"],
                &[
                    "pin /h/.local",
                    "pin /r/.pawl",
                    "pin /h/.local/state",
                    "ro /r/.pawl",
                    "hide /h/.local/state/pawl",
                    "rw /r/.pawl/requests",
                ],
            ),
        ];
        for (read_only, hidden, writable, want) in rows {
            let got = shown(&mount_plan(&spec(read_only, hidden, writable), |_| true));
            assert_eq!(got, *want, "{read_only:?} {hidden:?} {writable:?}");
        }
    }

    #[test]
    fn missing_paths_are_skipped() {
        let s = spec(&["/r/.claude/settings.json"], &["/h/state"], &["/r"]);
        assert!(mount_plan(&s, |_| false).is_empty());
    }
}
