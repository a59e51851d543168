//! The facts about the world the guard needs, passed in by the caller: the
//! guard does no I/O, so the CLI reads git and the environment once and
//! fills a [`Context`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

/// Answers "is this path tracked by git?". Paths are repository-relative,
/// `/`-separated, without a leading `./`.
///
/// A trait rather than a set so that a caller with a huge index can answer
/// lazily (e.g. from `git ls-files` output held as a sorted vector).
pub trait TrackedFiles: Send + Sync {
    /// `path` names a tracked file.
    fn is_tracked(&self, path: &str) -> bool;
    /// Some tracked file lives under the directory `dir` (`""` is the root).
    fn has_tracked_under(&self, dir: &str) -> bool;
    /// How many tracked files directly in the directory `dir` (`""` is the root; not in its
    /// subdirectories) have a name for which `matches` is true, counting up to `limit`.
    /// `None` when the caller cannot enumerate its index: the guard then assumes a glob may
    /// match tracked files (the cautious answer). The default is `None`.
    fn count_tracked_in(
        &self,
        dir: &str,
        matches: &dyn Fn(&str) -> bool,
        limit: usize,
    ) -> Option<usize> {
        let _ = (dir, matches, limit);
        None
    }
    /// Whether some tracked file lies in a directory (at any depth) whose repository-relative
    /// path `dir_matches` accepts, or has a repository-relative path `file_matches` accepts.
    /// `None` when the caller cannot enumerate its index: the guard then assumes it does
    /// (the cautious answer). The default is `None`.
    fn any_tracked_matching(
        &self,
        dir_matches: &dyn Fn(&str) -> bool,
        file_matches: &dyn Fn(&str) -> bool,
    ) -> Option<bool> {
        let _ = (dir_matches, file_matches);
        None
    }
    /// Whether a gitlink (a submodule's commit, mode 160000 in the index) is `dir` itself or
    /// lies under it (`""` is the root): the checkpoint commits a submodule as that pointer,
    /// not its files, so removing it could not be undone. `None` when the caller does not know
    /// the index's modes: the guard then assumes one may (the cautious answer, the default).
    fn holds_gitlink_under(&self, dir: &str) -> Option<bool> {
        let _ = dir;
        None
    }
}

/// Answers "where does this path really lead?" from the filesystem, lazily. The guard itself
/// does no I/O; a caller that can look (the hook) passes one so that a path that goes through
/// an existing symbolic link is judged where it leads.
pub trait FileSystemView: Send + Sync {
    /// `path` (absolute, normalised) with every symbolic link in it resolved, like
    /// `realpath -m`: the existing leading part is resolved, a missing rest is appended as
    /// written. `None` when it cannot be told (then the path is judged as written).
    fn resolve_links(&self, path: &str) -> Option<String>;

    /// Whether the directory `path` (absolute, normalised) holds a file git ignores (`.env`,
    /// a local database, downloaded data): pawl's checkpoint does not keep those, so removing
    /// the directory could not be undone. A nested repository (a directory below it with its
    /// own `.git`) counts as such a file: the checkpoint commits it as a pointer, not its files
    /// and commits. A path that does not exist holds nothing. `None` when it cannot be told:
    /// the guard then assumes it does (the default).
    fn holds_ignored(&self, path: &str) -> Option<bool> {
        let _ = path;
        None
    }

    /// Like [`FileSystemView::holds_ignored`], not counting what lies in or under the
    /// directory's own entries whose names start with `.` (`.env`, `.venv`, pawl's `.pawl/`,
    /// the repository's own `.git`): what a glob over the directory that cannot match such a
    /// name (bash's default) can reach. By default the whole answer.
    fn holds_ignored_undotted(&self, path: &str) -> Option<bool> {
        self.holds_ignored(path)
    }
}

/// A [`FileSystemView`] that knows nothing: paths are judged lexically, as written. The
/// default in [`Context::new`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NoFileSystem;

impl FileSystemView for NoFileSystem {
    fn resolve_links(&self, _path: &str) -> Option<String> {
        None
    }
}

/// A [`TrackedFiles`] backed by an ordered set of repository-relative paths,
/// e.g. the lines of `git ls-files`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrackedSet {
    files: BTreeSet<String>,
    /// The gitlinks among `files`, when the caller gave the index's modes
    /// ([`TrackedSet::know_modes`], [`TrackedSet::insert_gitlink`]); `None`: not known.
    gitlinks: Option<BTreeSet<String>>,
}

impl TrackedSet {
    /// An empty set: nothing is tracked.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one repository-relative path.
    pub fn insert(&mut self, path: impl Into<String>) {
        let path: String = path.into();
        let trimmed = path.trim_start_matches("./").to_owned();
        self.files.insert(trimmed);
    }

    /// Says the caller knows the index's modes: the paths inserted are files, and the
    /// gitlinks are those given to [`TrackedSet::insert_gitlink`] (before or after).
    pub fn know_modes(&mut self) {
        self.gitlinks.get_or_insert_with(BTreeSet::new);
    }

    /// Adds one repository-relative path that is a gitlink (a submodule, mode 160000); the
    /// modes are then known ([`TrackedSet::know_modes`]).
    pub fn insert_gitlink(&mut self, path: impl Into<String>) {
        let path: String = path.into();
        let trimmed = path.trim_start_matches("./").to_owned();
        self.files.insert(trimmed.clone());
        self.gitlinks
            .get_or_insert_with(BTreeSet::new)
            .insert(trimmed);
    }

    /// The gitlinks held, when the modes are known.
    pub fn gitlinks(&self) -> Option<impl Iterator<Item = &str>> {
        self.gitlinks.as_ref().map(|g| g.iter().map(String::as_str))
    }

    /// Number of tracked paths held.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when no path is held.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl<S: Into<String>> FromIterator<S> for TrackedSet {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut set = Self::new();
        for path in iter {
            set.insert(path);
        }
        set
    }
}

impl TrackedFiles for TrackedSet {
    fn is_tracked(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    fn holds_gitlink_under(&self, dir: &str) -> Option<bool> {
        let gitlinks = self.gitlinks.as_ref()?;
        let dir = dir.trim_end_matches('/');
        if dir.is_empty() {
            return Some(!gitlinks.is_empty());
        }
        let prefix = format!("{dir}/");
        Some(
            gitlinks.contains(dir)
                || gitlinks
                    .range(prefix.clone()..)
                    .next()
                    .is_some_and(|first| first.starts_with(&prefix)),
        )
    }

    fn has_tracked_under(&self, dir: &str) -> bool {
        if dir.is_empty() {
            return !self.files.is_empty();
        }
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        self.files
            .range(prefix.clone()..)
            .next()
            .is_some_and(|first| first.starts_with(&prefix))
    }

    fn count_tracked_in(
        &self,
        dir: &str,
        matches: &dyn Fn(&str) -> bool,
        limit: usize,
    ) -> Option<usize> {
        let dir = dir.trim_end_matches('/');
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut count = 0;
        for path in self.files.range(prefix.clone()..) {
            let Some(rest) = path.strip_prefix(&prefix) else {
                break;
            };
            // A file in a subdirectory: the glob's last component could match that
            // subdirectory's name (non-recursive rm refuses a directory, so skip).
            if !rest.contains('/') && matches(rest) {
                count += 1;
                if count >= limit {
                    break;
                }
            }
        }
        Some(count)
    }

    fn any_tracked_matching(
        &self,
        dir_matches: &dyn Fn(&str) -> bool,
        file_matches: &dyn Fn(&str) -> bool,
    ) -> Option<bool> {
        // Each directory is asked once (the set is sorted, so files of one directory are
        // neighbours, but a parent recurs after its subdirectories: remember them all).
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for path in &self.files {
            if file_matches(path) {
                return Some(true);
            }
            for (i, _) in path.match_indices('/') {
                let dir = &path[..i];
                if seen.insert(dir) && dir_matches(dir) {
                    return Some(true);
                }
            }
        }
        Some(false)
    }
}

/// A [`TrackedFiles`] that says every path is tracked. It is the default in
/// [`Context::new`] so that a caller who forgot to pass the index gets the
/// cautious behaviour (every `>` into the repository is a clobber).
#[derive(Debug, Clone, Copy, Default)]
pub struct AllTracked;

impl TrackedFiles for AllTracked {
    fn is_tracked(&self, _path: &str) -> bool {
        true
    }

    fn has_tracked_under(&self, _dir: &str) -> bool {
        true
    }
}

/// Git aliases the caller can look up when the guard meets a git subcommand it does not know
/// (most commands never do: a caller may answer lazily, e.g. by asking `git config` then).
pub trait GitAliases: Send + Sync {
    /// The value of `alias.<name>` (names compare case-insensitively, as git's do), if defined.
    fn alias(&self, name: &str) -> Option<String>;
}

/// No aliases beyond [`Context::git_aliases`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NoGitAliases;

impl GitAliases for NoGitAliases {
    fn alias(&self, _name: &str) -> Option<String> {
        None
    }
}

/// Facts about the session the command runs in.
#[derive(Clone)]
pub struct Context {
    /// The directory the command runs in (absolute).
    pub cwd: PathBuf,
    /// The repository's top-level directory (absolute), if any.
    pub repo_root: Option<PathBuf>,
    /// The current branch; `None` when detached or unknown.
    pub branch: Option<String>,
    /// The branch the run works on, as pawl recorded it when the run started (`pawl/<run>` when
    /// it started on a protected branch); `None` when unknown. Only messages use it: a denial that
    /// keeps the agent off a protected branch names where the run's work goes.
    pub run_branch: Option<String>,
    /// Whether a pawl run is active; the guard is inert otherwise unless
    /// `policy.always`.
    pub run_active: bool,
    /// Which files git tracks.
    pub tracked: Arc<dyn TrackedFiles>,
    /// `$HOME` (for `~` and `$HOME`), if known.
    pub home: Option<PathBuf>,
    /// `$TMPDIR`, if set; `/tmp` is always a temp directory.
    pub tmpdir: Option<PathBuf>,
    /// Git aliases from the repository's config (`alias.<name>` → value),
    /// e.g. from `git config --get-regexp '^alias\.'`.
    pub git_aliases: BTreeMap<String, String>,
    /// More git aliases, asked only for a subcommand that is neither git's own nor in
    /// [`Context::git_aliases`].
    pub more_git_aliases: Arc<dyn GitAliases>,
    /// Where paths really lead (symbolic links resolved). The default knows nothing and
    /// paths are judged as written.
    pub fs: Arc<dyn FileSystemView>,
    /// Reads script files a command runs (`bash x.sh`, `./x.sh`, `npm test`); the default reads nothing.
    pub scripts: Arc<dyn crate::scripts::ScriptReader>,
    /// `[sandbox] containers = true`: local containers are part of what pawl can undo, so a
    /// container run that mounts only the working directory is allowed. Off by default: a
    /// container run is then denied, naming the setting.
    pub containers: bool,
    /// pawl keeps the repository's untracked (not ignored) files in a commit before every step
    /// — the pre-run snapshot, then each iteration's commit (`[git] commit_iterations`, on by
    /// default) — so removing them is undone like an edit of a tracked file: a recursive delete
    /// of a directory that holds no tracked file, no protected path and nothing git ignores
    /// ([`FileSystemView::holds_ignored`]) is allowed. Off by default (a caller that does not
    /// know it gets the cautious rule).
    pub checkpointed: bool,
    /// Variables of the environment the agent's shell inherits, as the caller knows them (the
    /// hook: its own environment, for the hook and the agent's shell are both children of the
    /// agent CLI; the variables the CLI sets only for hooks left out). A variable the input does
    /// not assign is judged by its value here, at the top of the command line (not in a nested
    /// script, which the line may have given its own value), instead of as an unknown value. A
    /// variable absent here stays unknown, not unset: the shell may set more (its startup files).
    /// Empty by default.
    pub env: Arc<BTreeMap<String, String>>,
}

impl Context {
    /// A context in `cwd` with no repository, no run, and every path
    /// considered tracked; set the public fields for the rest.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            repo_root: None,
            branch: None,
            run_branch: None,
            run_active: false,
            tracked: Arc::new(AllTracked),
            home: None,
            tmpdir: None,
            git_aliases: BTreeMap::new(),
            more_git_aliases: Arc::new(NoGitAliases),
            fs: Arc::new(NoFileSystem),
            scripts: Arc::new(crate::scripts::NoScripts),
            containers: false,
            checkpointed: false,
            env: Arc::new(BTreeMap::new()),
        }
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("cwd", &self.cwd)
            .field("repo_root", &self.repo_root)
            .field("branch", &self.branch)
            .field("run_branch", &self.run_branch)
            .field("run_active", &self.run_active)
            .field("home", &self.home)
            .field("tmpdir", &self.tmpdir)
            .field("git_aliases", &self.git_aliases)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracked_set_answers_directories_by_prefix() {
        let set: TrackedSet = ["src/main.rs", "./README.md", "srcx/a"]
            .into_iter()
            .collect();
        assert!(set.is_tracked("README.md"));
        assert!(set.has_tracked_under("src"));
        assert!(set.has_tracked_under("src/"));
        assert!(!set.has_tracked_under("sr"));
        assert!(!set.has_tracked_under("docs"));
        assert!(set.has_tracked_under(""));
    }

    #[test]
    fn tracked_set_matches_directories_at_any_depth() {
        let set: TrackedSet = ["a/node_modules/x/y.js", "b/c.pyc", "d/e"]
            .into_iter()
            .collect();
        let no = |_: &str| false;
        assert_eq!(
            set.any_tracked_matching(&|d| d.ends_with("node_modules"), &no),
            Some(true)
        );
        assert_eq!(
            set.any_tracked_matching(&|d| d == "a/node_modules/x", &no),
            Some(true)
        );
        assert_eq!(set.any_tracked_matching(&|d| d == "d/e", &no), Some(false));
        assert_eq!(
            set.any_tracked_matching(&no, &|f| f.ends_with(".pyc")),
            Some(true)
        );
        assert_eq!(set.any_tracked_matching(&no, &no), Some(false));
    }
}
