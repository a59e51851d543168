//! Integration tests of pawl-git in real temporary repositories, isolated from the machine's and
//! the user's git configuration (temp `HOME`, own global config file, no system config).
// Helpers outside #[test] functions are test code too; a failed setup should panic loudly.
#![allow(clippy::expect_used)]

mod checkout;
mod diff;
mod grep;
mod history;
mod indirection;
mod refs;
mod stamp;
mod status;
mod tree;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pawl_git::{Options, Repo};
use tempfile::TempDir;

/// A temporary repository with its own HOME and global git config.
pub struct TestRepo {
    pub repo: Repo,
    work: TempDir,
    home: TempDir,
}

/// The identity the tests' global config provides.
pub const NAME: &str = "Test User";
pub const EMAIL: &str = "test@example.invalid";

impl Default for TestRepo {
    fn default() -> Self {
        Self::new()
    }
}

impl TestRepo {
    /// A fresh repository (no commits) whose global config has an identity.
    pub fn new() -> Self {
        Self::with_global_config(&format!(
            "[user]\n\tname = {NAME}\n\temail = {EMAIL}\n[init]\n\tdefaultBranch = main\n"
        ))
    }

    /// A fresh repository with this global config file content.
    pub fn with_global_config(config: &str) -> Self {
        let home = tempfile::tempdir().expect("home");
        let work = tempfile::tempdir().expect("work");
        let global = home.path().join("gitconfig");
        std::fs::write(&global, config).expect("global config");
        let repo = Repo::init(work.path(), options(home.path(), &global)).expect("init");
        TestRepo { repo, work, home }
    }

    pub fn root(&self) -> &Path {
        self.work.path()
    }

    /// The isolated HOME (also `XDG_CONFIG_HOME`).
    pub fn repo_home(&self) -> &Path {
        self.home.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.work.path().join(rel)
    }

    pub fn write(&self, rel: &str, content: &str) {
        let path = self.path(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("mkdir");
        }
        std::fs::write(path, content).expect("write");
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.path(rel)).ok()
    }

    /// The options the repository was opened with (isolated HOME and global config).
    pub fn options(&self) -> Options {
        options(self.home.path(), &self.home.path().join("gitconfig"))
    }

    /// Runs raw git with the same isolation, for setting up and checking; panics on failure.
    pub fn git(&self, args: &[&str]) -> String {
        self.git_env(args, &[])
    }

    /// [`TestRepo::git`] with extra variables.
    pub fn git_env(&self, args: &[&str], env: &[(&str, &str)]) -> String {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(self.root())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path())
            .env("GIT_CONFIG_GLOBAL", self.home.path().join("gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_WORK_TREE")
            .envs(env.iter().copied())
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf8")
    }
}

pub fn options(home: &Path, global_config: &Path) -> Options {
    Options {
        env: vec![
            (OsString::from("HOME"), home.as_os_str().to_owned()),
            (
                OsString::from("XDG_CONFIG_HOME"),
                home.as_os_str().to_owned(),
            ),
            (
                OsString::from("GIT_CONFIG_GLOBAL"),
                global_config.as_os_str().to_owned(),
            ),
        ],
        ..Options::default()
    }
}
