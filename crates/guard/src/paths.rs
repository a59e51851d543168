//! Lexical path arithmetic: joining a word onto the current directory,
//! resolving `.` and `..` without touching the filesystem, and building the
//! forms policy globs are matched against.
//!
//! Lexical resolution is deliberate: the guard does no I/O, and `target/..`
//! must be judged as what it names, not as the allowed `target`.

use crate::policy::PathForms;

/// Joins `path` onto `base` (both `/`-separated; `base` absolute) and
/// resolves `.` and `..` lexically. `..` at the root stays at the root.
pub(crate) fn normalize(base: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let joined_base = if path.starts_with('/') { "" } else { base };
    for piece in joined_base.split('/').chain(path.split('/')) {
        match piece {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let mut out = String::with_capacity(path.len() + base.len());
    for part in &parts {
        out.push('/');
        out.push_str(part);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// `path` relative to `root` when it is `root` itself (`""`) or below it.
pub(crate) fn relative_to<'p>(path: &'p str, root: &str) -> Option<&'p str> {
    if root == "/" {
        return Some(path.trim_start_matches('/'));
    }
    let rest = path.strip_prefix(root)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

/// Whether `path` is `ancestor` or lies below it.
pub(crate) fn is_within(path: &str, ancestor: &str) -> bool {
    relative_to(path, ancestor).is_some()
}

/// The places a path can be expressed relative to.
#[derive(Debug, Clone, Default)]
pub(crate) struct Anchors {
    pub repo_root: Option<String>,
    pub home: Option<String>,
    pub tmpdir: Option<String>,
}

impl Anchors {
    /// The glob-matching forms of the absolute, normalised `absolute`.
    pub(crate) fn forms(&self, absolute: &str) -> PathForms {
        let under = |anchor: &Option<String>, prefix: &str| {
            anchor
                .as_deref()
                .and_then(|a| relative_to(absolute, a))
                .filter(|rest| !rest.is_empty())
                .map(|rest| format!("{prefix}/{rest}"))
        };
        PathForms {
            absolute: absolute.to_owned(),
            home: under(&self.home, "~"),
            tmpdir: under(&self.tmpdir, "$TMPDIR"),
            relative: self
                .repo_root
                .as_deref()
                .and_then(|root| relative_to(absolute, root))
                .map(str::to_owned),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_resolves_dots_lexically() {
        assert_eq!(normalize("/r", "target/../src"), "/r/src");
        assert_eq!(normalize("/r", "node_modules/../.."), "/");
        assert_eq!(normalize("/r", "/tmp/../home/dev"), "/home/dev");
        assert_eq!(normalize("/r", "./a//b/"), "/r/a/b");
        assert_eq!(normalize("/r", "../../../.."), "/");
    }

    #[test]
    fn relative_to_needs_a_component_boundary() {
        assert_eq!(relative_to("/r/src", "/r"), Some("src"));
        assert_eq!(relative_to("/r", "/r"), Some(""));
        assert_eq!(relative_to("/rx", "/r"), None);
        assert_eq!(relative_to("/a", "/"), Some("a"));
    }
}
