//! [`Repo`] and the one place git commands are built, with the fixed environment.
//!
//! The environment every git call gets, and why:
//! - inherited from pawl (git needs `HOME` for the user's identity and `safe.directory`), minus
//!   the variables a calling git sets for its hooks (`GIT_DIR`, `GIT_INDEX_FILE`,
//!   `GIT_WORK_TREE`, ...), which would silently redirect our commands to another repository or
//!   index when pawl runs inside a git hook;
//! - `GIT_TERMINAL_PROMPT=0` (never wait for a password), `LC_ALL=C` (stable messages), no pager,
//!   no colour, `GIT_OPTIONAL_LOCKS=0` (read-only commands do not take `index.lock` from under
//!   the agent), `GIT_CONFIG_NOSYSTEM=1` (the machine's config does not change pawl's results;
//!   the user's global config is kept for the identity);
//! - then [`Options::env`], so tests can isolate `HOME` and the global config.
//!
//! Opening a plain repository (`<root>/.git` is a directory) needs no git call: the hook path
//! opens a repository on every Stop, and `git rev-parse` costs a process start. Every layout git
//! resolves in a way we would have to imitate (a `.git` file for worktrees and submodules,
//! `core.worktree`, config includes, a bare repository, another owner, a redirecting environment)
//! goes through `git rev-parse` as before.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pawl_process::{Command, End};

use crate::error::Error;

/// Variables a parent git process exports to hooks and aliases; all of them would change which
/// repository, index or config our commands act on.
const STRIPPED_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_QUARANTINE_PATH",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
    "LANGUAGE",
];

/// `-c` overrides on every git call pawl makes on a repository: a program the repository's
/// config could name (which pawl would then run, inside its own git calls) or a setting that
/// changes which bytes pawl's git reads and writes. The command line wins over every config
/// file, includes and `.git/config` included. The filter drivers a repository defines are
/// blanked by name as well (see [`Repo::files_git`]).
pub const HARDENED_CONFIG: &[(&str, &str)] = &[
    // Programs the repository could make pawl run.
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.sshCommand", "false"),
    ("core.pager", "cat"),
    ("diff.external", ""),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("submodule.recurse", "false"),
    // Attributes and conversions from outside the tree.
    ("core.attributesFile", "/dev/null"),
    ("core.autocrlf", "false"),
    ("core.safecrlf", "false"),
    // The layout is what pawl opened (see `GIT_DIR`/`GIT_WORK_TREE` in [`Repo::git`]).
    ("core.bare", "false"),
];

/// The git program [`Options::default`] runs until [`set_default_program`] fixes another.
static DEFAULT_PROGRAM: std::sync::OnceLock<OsString> = std::sync::OnceLock::new();

/// Fixes the git program every [`Options::default`] of this process runs (an absolute path
/// resolved when the run started, so a `git` that appears earlier on `PATH` later is never
/// run by pawl). The first call wins; returns false when another program was already fixed.
pub fn set_default_program(program: impl Into<OsString>) -> bool {
    let program = program.into();
    DEFAULT_PROGRAM.set(program.clone()).is_ok()
        || DEFAULT_PROGRAM.get().is_some_and(|p| *p == program)
}

/// The absolute path of the `git` that `PATH` names now (symbolic links resolved), for fixing
/// it at the start of a run; `None` when there is none.
pub fn resolve_program(path: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("git"))
        .find(|candidate| {
            fs::metadata(candidate).is_ok_and(|m| m.is_file() && m.mode() & 0o111 != 0)
        })
        .and_then(|found| fs::canonicalize(found).ok())
}

/// How git is run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The git program: the one [`set_default_program`] fixed, else `"git"` (looked up in
    /// `PATH`).
    pub program: OsString,
    /// Extra variables for every git call, applied last (tests set `HOME`, `GIT_CONFIG_GLOBAL`).
    pub env: Vec<(OsString, OsString)>,
    /// Longest a single git command may run before it is stopped; `None` for no limit.
    pub timeout: Option<Duration>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            program: DEFAULT_PROGRAM
                .get()
                .cloned()
                .unwrap_or_else(|| OsString::from("git")),
            env: Vec::new(),
            timeout: Some(Duration::from_secs(300)),
        }
    }
}

/// A git working tree.
#[derive(Debug, Clone)]
pub struct Repo {
    root: PathBuf,
    git_dir: PathBuf,
    index_path: PathBuf,
    /// True when object ids are known to be SHA-1; false when not known, which turns off
    /// reading tree ids out of an index (see `tree.rs`).
    sha1_ids: bool,
    options: Options,
}

impl Repo {
    /// Opens the working tree containing `path`, with default [`Options`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::open_with(path, Options::default())
    }

    /// Opens the working tree containing `path`.
    pub fn open_with(path: impl AsRef<Path>, options: Options) -> Result<Self, Error> {
        let path = path.as_ref();
        if let Some(repo) = open_plain(path, &options) {
            return Ok(repo);
        }
        let mut git = Git::new(&options, path);
        git.args([
            "rev-parse",
            "--path-format=absolute",
            "--show-toplevel",
            "--git-dir",
            "--git-path",
            "index",
        ]);
        let command = git.command_line();
        let stdout = match git.run() {
            Ok(stdout) => stdout,
            Err(Error::Command { stderr, .. }) => {
                return Err(Error::NotARepository {
                    path: path.to_owned(),
                    stderr,
                });
            }
            Err(err) => return Err(err),
        };
        // rev-parse has no -z; paths with newlines are not supported here.
        let mut lines = stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty());
        let mut next = |what: &str| {
            lines
                .next()
                .map(|l| PathBuf::from(OsStr::from_bytes(l)))
                .ok_or_else(|| Error::Parse {
                    command: command.clone(),
                    detail: format!("no {what}"),
                })
        };
        let root = next("top-level")?;
        let git_dir = next("git dir")?;
        let index_path = next("index path")?;
        Ok(Repo {
            root,
            git_dir,
            index_path,
            sha1_ids: false,
            options,
        })
    }

    /// [`Repo::open`] when that needs no git process (a plain `.git` directory of the user's,
    /// with the default [`Options`]), else `None`. What [`Repo::tree_hash_unchanged`] can answer
    /// for at all: a repository opened through git has no known object format.
    pub fn open_in_process(path: impl AsRef<Path>) -> Option<Self> {
        open_plain(path.as_ref(), &Options::default())
    }

    /// Creates a repository at `path` (`git init`) and opens it.
    pub fn init(path: impl AsRef<Path>, options: Options) -> Result<Self, Error> {
        let path = path.as_ref();
        let mut git = Git::new(&options, path);
        git.args(["init", "--quiet"]);
        git.run()?;
        Self::open_with(path, options)
    }

    /// The top of the working tree.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The repository's git directory (for a linked worktree, its private one).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The repository's own ignore file that is never committed (`info/exclude` in the common
    /// git directory, shared by every worktree).
    pub fn exclude_path(&self) -> PathBuf {
        self.common_dir().join("info").join("exclude")
    }

    /// How git is run for this repository.
    pub(crate) fn options(&self) -> &Options {
        &self.options
    }

    /// Where the real index lives.
    pub fn index_path(&self) -> &Path {
        &self.index_path
    }

    /// The empty tree's id in this repository's object format.
    pub(crate) fn empty_tree(&self) -> &'static str {
        const SHA1: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        const SHA256: &str = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321";
        if self.sha1_ids {
            return SHA1;
        }
        let mut git = self.git();
        git.args(["rev-parse", "--show-object-format"]);
        match git.run() {
            Ok(out) if first_line(&out) == "sha256" => SHA256,
            _ => SHA1,
        }
    }

    /// True when object ids are known to be SHA-1 (20 bytes in an index).
    pub(crate) fn sha1_ids(&self) -> bool {
        self.sha1_ids
    }

    /// A git command in the working tree's root with the fixed environment, on exactly the
    /// git directory and working tree pawl opened: `GIT_DIR` and `GIT_WORK_TREE` are set, so a
    /// `core.worktree` the agent writes into the config later does not move pawl's git.
    pub(crate) fn git(&self) -> Git {
        let mut git = Git::new(&self.options, &self.root);
        git.env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.root);
        git
    }

    /// [`Repo::git`] for a command that reads or writes the working tree's files (add, status,
    /// commit, switch, reset, clean): every filter driver the repository's config defines is
    /// blanked, so no clean, smudge or process filter runs, whichever attributes file names it
    /// (`.git/info/attributes` is read whatever `GIT_ATTR_SOURCE` says).
    pub(crate) fn files_git(&self) -> Result<Git, Error> {
        // Looked up for every command: the config can gain a driver at any moment of a run.
        let filters = self.filter_drivers()?;
        let mut git = self.git();
        for name in &filters {
            for key in ["clean", "smudge", "process"] {
                git.args(["-c".to_owned(), format!("filter.{name}.{key}=")]);
            }
            git.args(["-c".to_owned(), format!("filter.{name}.required=false")]);
        }
        Ok(git)
    }

    /// The names of the filter drivers configured for this repository (any config file).
    fn filter_drivers(&self) -> Result<Vec<String>, Error> {
        let mut git = self.git();
        git.args(["config", "-z", "--name-only", "--get-regexp", r"^filter\."]);
        let (_, out) = git.run_allowing(&[0, 1])?;
        let mut names: Vec<String> = nul_records(&out)
            .filter_map(|key| {
                let key = String::from_utf8_lossy(key);
                let rest = key.strip_prefix("filter.")?;
                let (name, _) = rest.rsplit_once('.')?;
                Some(name.to_owned())
            })
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// A git command on the working tree's files through a git directory pawl wrote itself
    /// (`private`, see `tree.rs`): the repository's objects, its ignore rules, and nothing
    /// else of its `.git` — no config, no `info/attributes`, no hooks, no replace refs.
    pub(crate) fn private_git(&self, private: &Path, objects: &Path) -> Git {
        let mut git = Git::new(&self.options, &self.root);
        git.env("GIT_DIR", private)
            .env("GIT_WORK_TREE", &self.root)
            .env("GIT_OBJECT_DIRECTORY", objects);
        git
    }

    /// The repository's common git directory (a linked worktree's `commondir`).
    pub(crate) fn common_dir(&self) -> PathBuf {
        match fs::read_to_string(self.git_dir.join("commondir")) {
            Ok(text) => {
                let rel = text.trim_end_matches(['\n', '\r']);
                let dir = self.git_dir.join(rel);
                fs::canonicalize(&dir).unwrap_or(dir)
            }
            Err(_) => self.git_dir.clone(),
        }
    }

    /// A git command in `cwd` with the fixed environment (for a checkout outside the root).
    pub(crate) fn git_in(&self, cwd: &Path) -> Git {
        Git::new(&self.options, cwd)
    }
}

/// Opens `path` without running git when it is the top of a plain, non-bare repository whose
/// layout is unambiguous; `None` means "ask `git rev-parse`" (which also produces the errors).
///
/// What `git rev-parse --show-toplevel --git-dir --git-path index` would answer, and the checks
/// that make it so:
/// - `path/.git` is a real directory (not a symlink, not a `.git` file as in linked worktrees
///   and submodules) that git would accept as a repository (`HEAD`, `objects/`, `refs/`); git
///   skips an invalid `.git` and keeps searching upwards, so we do not guess then;
/// - the directory and `.git` belong to the user running pawl (git refuses other owners unless
///   `safe.directory` says otherwise; `SUDO_UID` changes whom git compares with);
/// - no variable in [`Options::env`] redirects git (`GIT_DIR`, `GIT_INDEX_FILE`, ...);
/// - the top level is the canonical path, as git reports it.
///
/// What the config says about the layout (`core.worktree`, `core.bare`, includes, per-worktree
/// config) is deliberately *not* honoured: `.git/config` is writable by the agent, and a
/// `core.worktree` written there would otherwise move pawl's git onto another directory. The
/// working tree of a `.git` directory is the directory that holds it, and every call passes
/// both explicitly ([`Repo::git`]).
fn open_plain(path: &Path, options: &Options) -> Option<Repo> {
    let redirected = options.env.iter().any(|(k, _)| {
        STRIPPED_ENV.iter().any(|s| OsStr::new(s) == k) || k == "GIT_CEILING_DIRECTORIES"
    });
    if redirected || std::env::var_os("SUDO_UID").is_some() {
        return None;
    }
    let root = fs::canonicalize(path).ok()?;
    let git_dir = root.join(".git");
    let meta = fs::symlink_metadata(&git_dir).ok()?;
    if !meta.is_dir() {
        return None;
    }
    let me = fs::metadata("/proc/self").ok()?.uid();
    if meta.uid() != me || fs::metadata(&root).ok()?.uid() != me {
        return None;
    }
    if !git_dir.join("HEAD").is_file()
        || !git_dir.join("objects").is_dir()
        || !git_dir.join("refs").is_dir()
    {
        return None;
    }
    let config = fs::read(git_dir.join("config")).ok()?;
    let facts = ConfigFacts::read(&config)?;
    Some(Repo {
        index_path: git_dir.join("index"),
        root,
        git_dir,
        sha1_ids: facts.sha1_ids,
        options: options.clone(),
    })
}

/// The paths the index of git directory `git_dir` lists (relative to the working tree's top,
/// each once), read in-process: what `git ls-files -z --full-name -- :/` answers, at the cost
/// of reading one file. For the guard's hot path, which asks "is this path tracked?" on every
/// call. `None` when this reader is not sure (the object format is not known to be SHA-1, a
/// split or sparse index, another index version, a malformed file): ask git then. A missing
/// index lists nothing, as git treats it.
pub fn index_paths(git_dir: &Path) -> Option<Vec<String>> {
    index_paths_and_gitlinks(git_dir).map(|(paths, _)| paths)
}

/// [`index_paths`], and those of them that are gitlinks (submodules, mode 160000 in the
/// index): the files a checkpoint holds and the pointers it holds in place of a tree.
pub fn index_paths_and_gitlinks(git_dir: &Path) -> Option<(Vec<String>, Vec<String>)> {
    // A linked worktree's config (its object format) is the common directory's.
    let common = match fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => git_dir.join(text.trim_end_matches(['\n', '\r'])),
        Err(_) => git_dir.to_path_buf(),
    };
    let config = fs::read(common.join("config")).ok()?;
    if !ConfigFacts::read(&config)?.sha1_ids {
        return None;
    }
    match fs::read(git_dir.join("index")) {
        Ok(bytes) => crate::index::paths_and_gitlinks(&bytes, 20),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some((Vec::new(), Vec::new())),
        Err(_) => None,
    }
}

/// What a repository's own config file says about its layout, read line by line without a full
/// config parser: any line we are not sure about makes [`ConfigFacts::read`] give up (`None`).
struct ConfigFacts {
    sha1_ids: bool,
}

impl ConfigFacts {
    fn read(config: &[u8]) -> Option<ConfigFacts> {
        let text = std::str::from_utf8(config).ok()?;
        let mut section = String::new();
        let mut sha1_ids = true;
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if line.ends_with('\\') {
                // A value continued on the next line: that line is not a key.
                return None;
            }
            if let Some(rest) = line.strip_prefix('[') {
                let name = rest.split([']', ' ', '"', '.']).next()?;
                section = name.to_ascii_lowercase();
                if section == "include" || section == "includeif" {
                    // An included file could name another object format: ask git for it.
                    sha1_ids = false;
                }
                // `[core] bare = false` may follow on the same line.
                let after = rest.split_once(']').map(|(_, a)| a.trim()).unwrap_or("");
                if !after.is_empty() {
                    return None;
                }
                continue;
            }
            let (key, value) = match line.split_once('=') {
                Some((k, v)) => (k.trim().to_ascii_lowercase(), v.trim().to_ascii_lowercase()),
                None => (line.to_ascii_lowercase(), "true".to_string()),
            };
            if (section.as_str(), key.as_str()) == ("extensions", "objectformat") && value != "sha1"
            {
                sha1_ids = false;
            }
        }
        Some(ConfigFacts { sha1_ids })
    }
}

/// One git invocation being built.
pub(crate) struct Git {
    command: Command,
}

impl Git {
    fn new(options: &Options, cwd: &Path) -> Self {
        let mut command = Command::new(&options.program);
        command
            .current_dir(cwd)
            .args([
                "--no-pager",
                "-c",
                "color.ui=false",
                "-c",
                "core.quotePath=false",
            ])
            .capture_stdout(true)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .env("GIT_PAGER", "cat")
            .env("PAGER", "cat")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_ADVICE", "0")
            // Replace refs and grafts rewrite history as git reads it: pawl reads the objects.
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_GRAFT_FILE", "/dev/null")
            .env("GIT_ATTR_NOSYSTEM", "1");
        // Never run a program the repository configures (an agent can write `.git/config`).
        for (key, value) in HARDENED_CONFIG {
            command.args(["-c", &format!("{key}={value}")]);
        }
        for name in STRIPPED_ENV {
            command.env_remove(name);
        }
        if let Some(timeout) = options.timeout {
            command.timeout(timeout);
        }
        command.envs(options.env.iter().map(|(k, v)| (k, v)));
        Git { command }
    }

    pub(crate) fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.command.arg(arg);
        self
    }

    pub(crate) fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    pub(crate) fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Self {
        self.command.env(key, value);
        self
    }

    pub(crate) fn stdin(&mut self, bytes: impl Into<Vec<u8>>) -> &mut Self {
        self.command.stdin_bytes(bytes);
        self
    }

    /// Lets the machine-wide config apply: for questions about what the *user's* git would do
    /// (aliases), not for pawl's own operations.
    pub(crate) fn with_system_config(&mut self) -> &mut Self {
        self.command.env_remove("GIT_CONFIG_NOSYSTEM");
        self
    }

    pub(crate) fn command_line(&self) -> String {
        self.command.command_line()
    }

    /// Runs, requiring exit code 0; returns stdout.
    pub(crate) fn run(&self) -> Result<Vec<u8>, Error> {
        let (code, stdout) = self.run_allowing(&[0])?;
        debug_assert_eq!(code, 0);
        Ok(stdout)
    }

    /// Runs, accepting any of `codes` (e.g. 1 meaning "no" for `diff --quiet`); returns the code
    /// and stdout.
    pub(crate) fn run_allowing(&self, codes: &[i32]) -> Result<(i32, Vec<u8>), Error> {
        self.start()?.finish(codes)
    }

    /// Starts the command and returns at once, so that independent commands can run side by
    /// side; [`Started::finish`] waits for it.
    pub(crate) fn start(&self) -> Result<Started<'_>, Error> {
        Ok(Started {
            git: self,
            running: self.command.spawn()?,
        })
    }
}

/// A git command running ([`Git::start`]).
pub(crate) struct Started<'a> {
    git: &'a Git,
    running: pawl_process::Running,
}

impl Started<'_> {
    /// Waits for the end, accepting any of `codes`; returns the code and stdout.
    pub(crate) fn finish(self, codes: &[i32]) -> Result<(i32, Vec<u8>), Error> {
        let outcome = self.running.wait()?;
        match outcome.end {
            End::Exited(code) if codes.contains(&code) => {
                Ok((code, outcome.stdout.full.unwrap_or_default()))
            }
            end => Err(Error::Command {
                command: self.git.command_line(),
                status: end.to_string(),
                stderr: String::from_utf8_lossy(&outcome.stderr.tail)
                    .trim()
                    .to_owned(),
            }),
        }
    }
}

/// Splits `-z` output into its NUL-terminated records.
pub(crate) fn nul_records(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split(|&b| b == 0).filter(|r| !r.is_empty())
}

/// A path from git's output (relative to the root).
pub(crate) fn path_of(bytes: &[u8]) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(bytes))
}

/// The first line of a command's output, trimmed, as text.
pub(crate) fn first_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(git: &Git) -> Vec<(String, Option<String>)> {
        git.command
            .get_envs()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.map(|v| v.to_string_lossy().into_owned()),
                )
            })
            .collect()
    }

    #[test]
    fn hook_variables_are_stripped_and_the_environment_is_fixed() {
        let git = Git::new(&Options::default(), Path::new("/"));
        let env = env_of(&git);
        for name in [
            "GIT_DIR",
            "GIT_INDEX_FILE",
            "GIT_WORK_TREE",
            "GIT_CONFIG_PARAMETERS",
        ] {
            assert!(
                env.contains(&(name.to_owned(), None)),
                "{name} not removed: {env:?}"
            );
        }
        for (name, value) in [
            ("GIT_TERMINAL_PROMPT", "0"),
            ("LC_ALL", "C"),
            ("GIT_PAGER", "cat"),
        ] {
            assert!(
                env.contains(&(name.to_owned(), Some(value.to_owned()))),
                "{name}: {env:?}"
            );
        }
        assert!(env.contains(&("GIT_CONFIG_NOSYSTEM".to_owned(), Some("1".to_owned()))));
    }

    #[test]
    fn the_config_decides_only_the_object_format_never_the_layout() {
        let plain = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = x\n";
        assert!(ConfigFacts::read(plain.as_bytes()).is_some_and(|f| f.sha1_ids));
        let sha256 = format!("{plain}[extensions]\n\tobjectFormat = sha256\n");
        assert!(ConfigFacts::read(sha256.as_bytes()).is_some_and(|f| !f.sha1_ids));
        // Layout settings an agent could write are not honoured: the repository still opens
        // where its `.git` directory is.
        for layout in [
            "[core]\n\tworktree = /elsewhere\n",
            "[core]\n\tbare = true\n",
            "[CORE]\n\tWorkTree = /x\n",
            "[extensions]\n\tworktreeConfig = true\n",
        ] {
            assert!(
                ConfigFacts::read(layout.as_bytes()).is_some_and(|f| f.sha1_ids),
                "{layout:?}"
            );
        }
        for include in [
            "[include]\n\tpath = other\n",
            "[includeIf \"gitdir:/x/\"]\n\tpath = other\n",
        ] {
            assert!(
                ConfigFacts::read(include.as_bytes()).is_some_and(|f| !f.sha1_ids),
                "{include:?}"
            );
        }
        for refused in ["[core] bare = true\n", "[alias]\n\tx = one \\\n"] {
            assert!(
                ConfigFacts::read(refused.as_bytes()).is_none(),
                "{refused:?}"
            );
        }
    }

    #[test]
    fn caller_env_wins_and_system_config_can_be_allowed() {
        let options = Options {
            env: vec![("GIT_INDEX_FILE".into(), "/tmp/x".into())],
            ..Options::default()
        };
        let mut git = Git::new(&options, Path::new("/"));
        git.with_system_config();
        let env = env_of(&git);
        assert!(env.contains(&("GIT_INDEX_FILE".to_owned(), Some("/tmp/x".to_owned()))));
        assert!(env.contains(&("GIT_CONFIG_NOSYSTEM".to_owned(), None)));
    }
}
