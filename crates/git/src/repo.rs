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

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
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

/// How git is run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The git program; `"git"` (looked up in `PATH`) by default.
    pub program: OsString,
    /// Extra variables for every git call, applied last (tests set `HOME`, `GIT_CONFIG_GLOBAL`).
    pub env: Vec<(OsString, OsString)>,
    /// Longest a single git command may run before it is stopped; `None` for no limit.
    pub timeout: Option<Duration>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            program: OsString::from("git"),
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
            options,
        })
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

    /// Where the real index lives.
    pub fn index_path(&self) -> &Path {
        &self.index_path
    }

    /// A git command in the working tree's root with the fixed environment.
    pub(crate) fn git(&self) -> Git {
        Git::new(&self.options, &self.root)
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
            .env("GIT_ADVICE", "0");
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
        let outcome = self.command.run()?;
        match outcome.end {
            End::Exited(code) if codes.contains(&code) => {
                Ok((code, outcome.stdout.full.unwrap_or_default()))
            }
            end => Err(Error::Command {
                command: self.command_line(),
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
