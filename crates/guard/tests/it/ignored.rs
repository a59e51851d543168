//! What the corpus repository ignores, for tests and the figures bench (which includes this
//! file by path): `.env` at its top, the conventional ignored directories, a local database and
//! a local key.
//! No symbolic links.

pub struct Ignored;

const IGNORED: &[&str] = &[
    ".env",
    "target",
    "node_modules",
    "vendor",
    ".venv",
    "venv",
    "dist",
    "build",
    ".cache",
    "data/local.db",
    "config/local.key",
];

impl pawl_guard::FileSystemView for Ignored {
    fn resolve_links(&self, _path: &str) -> Option<String> {
        None
    }

    fn holds_ignored(&self, path: &str) -> Option<bool> {
        let rel = path.strip_prefix("/home/dev/repo")?;
        if !(rel.is_empty() || rel.starts_with('/')) {
            return None;
        }
        let rel = rel.trim_start_matches('/');
        let within = |i: &str| {
            rel.is_empty()
                || i == rel
                || i.starts_with(&format!("{rel}/"))
                || rel.starts_with(&format!("{i}/"))
        };
        Some(
            IGNORED.iter().any(|i| within(i))
                || rel.split('/').any(|c| c == "node_modules" || c == ".venv"),
        )
    }

    fn holds_ignored_undotted(&self, path: &str) -> Option<bool> {
        let rel = path.strip_prefix("/home/dev/repo")?;
        if !(rel.is_empty() || rel.starts_with('/')) {
            return None;
        }
        let rel = rel.trim_start_matches('/');
        // The ignored paths at or below `rel` whose first component under it is not dot-led.
        let undotted = |i: &str| {
            let below = if rel.is_empty() {
                Some(i)
            } else {
                i.strip_prefix(&format!("{rel}/"))
            };
            below.is_some_and(|b| !b.starts_with('.'))
        };
        let within = |i: &str| i == rel || rel.starts_with(&format!("{i}/"));
        Some(
            IGNORED.iter().any(|i| within(i) || undotted(i))
                || rel.split('/').any(|c| c == "node_modules" || c == ".venv"),
        )
    }
}
