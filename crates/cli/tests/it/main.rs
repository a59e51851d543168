//! Hermetic end-to-end tests of the `pawl` binary: temp git repositories, a cleared
//! environment, a temp HOME and git config.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::new_without_default)]

mod agents_real;
mod analyze;
mod attacks;
mod circles;
mod config;
mod crash;
mod first_hour;
mod forge;
mod git_rails;
mod guard;
mod headless;
mod headless_faults;
mod headless_limits;
mod home;

mod fleet;
mod fleet_harness;
mod flow;
mod hooks;
mod hooks_real;
mod output;
mod parallel;
mod parallel_flow;
mod pipeline;
mod pipeline_real;
mod reach;
mod readme;
mod review;
mod reviewer_real;
mod sandbox;
mod screen;
mod sealed;
mod settings;
mod start;
mod state;
mod tester_real;
mod verdicts;
mod verify;

mod serve;
mod service;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::cargo::CommandCargoExt;

/// A temp repository and a way to run `pawl` in it hermetically.
pub struct TestEnv {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
}

impl TestEnv {
    /// A fresh `git init`ed repository with one commit.
    pub fn new() -> TestEnv {
        TestEnv::new_in(&std::env::temp_dir())
    }

    /// [`TestEnv::new`] in a directory under `parent` (a test whose sandbox must not see its
    /// HOME and repository inside the machine's `/tmp`, which checks may write without
    /// namespaces).
    pub fn new_in(parent: &Path) -> TestEnv {
        let dir = tempfile::tempdir_in(parent).unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        // Where an agent leaves marks for the test (`../home/marks/` from the tree): outside the
        // repository and its `.pawl/`, which a sandboxed step cannot write, in HOME, which it
        // can (wherever the temporary directory is).
        std::fs::create_dir_all(home.join("marks")).unwrap();
        let env = TestEnv { dir, home };
        env.git(&["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("README.md"), "# demo\n").unwrap();
        env.git(&["add", "-A"]);
        env.git(&["commit", "-q", "-m", "init"]);
        env
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    /// The environment every child gets: nothing from the caller but PATH.
    pub fn command(&self, program: &str) -> std::process::Command {
        let mut cmd = if program == "pawl" {
            std::process::Command::cargo_bin("pawl").unwrap()
        } else {
            std::process::Command::new(program)
        };
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", self.home.join(".gitconfig"))
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env("LANG", "C.UTF-8")
            // Short goals ("g", "never") are the tests' shorthand, not unclear requests: the spec
            // gate is off as with `--yes`, except in the tests about it (`flow`).
            .env("PAWL_PIPELINE_SPEC_GATE", "false")
            .current_dir(self.root())
            .stdin(std::process::Stdio::null());
        // The temporary directory the tests' own directories live in: a sandboxed step may
        // write there as it may write a user's.
        if let Some(tmp) = std::env::var_os("TMPDIR") {
            cmd.env("TMPDIR", tmp);
        }
        cmd
    }

    pub fn git(&self, args: &[&str]) -> Output {
        let out = self.command("git").args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Runs pawl and returns its output, whatever the exit code.
    pub fn pawl(&self, args: &[&str]) -> Run {
        self.pawl_env(args, &[])
    }

    pub fn pawl_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.command("pawl");
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        Run::from(cmd.output().unwrap())
    }

    /// Runs pawl and asserts it succeeded.
    pub fn ok(&self, args: &[&str]) -> Run {
        let r = self.pawl(args);
        assert_eq!(
            r.code, 0,
            "pawl {args:?} failed:\n{}\n{}",
            r.stdout, r.stderr
        );
        r
    }

    /// `pawl init` + a manual run; returns the run id.
    pub fn manual_run(&self, goal: &str) -> String {
        self.ok(&["init"]);
        let r = self.ok(&["run", "--driver", "manual", goal, "--json"]);
        r.json()["id"].as_str().unwrap().to_string()
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.root().join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(p, text).unwrap();
    }

    pub fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.root().join(".pawl/pawl.db")).unwrap()
    }
}

/// Variables the toolchain shims need once HOME points at the temp home (rustup, pyenv); all of
/// them are in the seal's pass list.
pub fn toolchain_env() -> Vec<(String, String)> {
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let get = |k: &str, default: String| (k.to_owned(), std::env::var(k).unwrap_or(default));
    vec![
        get("RUSTUP_HOME", format!("{home}/.rustup")),
        get("CARGO_HOME", format!("{home}/.cargo")),
        get("PYENV_ROOT", format!("{home}/.pyenv")),
    ]
}

/// A Python tool installed for the user (`~/.local`: pytest, ruff, as `scripts/test.sh` installs
/// them): with HOME pointing at the temp home, its user base must be given to Python explicitly
/// (`PYTHONUSERBASE`, passed through the seal with `--pass-env`). Fails when `python3 -m
/// <module>` does not run.
pub fn python_user_base(env: &TestEnv, module: &str) -> (String, String) {
    let out = std::process::Command::new("python3")
        .args(["-m", "site", "--user-base"])
        .output()
        .expect("python3");
    let base = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let mut check = env.command("python3");
    check.args(["-m", module, "--version"]);
    check.env("PYTHONUSERBASE", &base);
    for (k, v) in toolchain_env() {
        check.env(k, v);
    }
    let out = check.output().expect("python3");
    assert!(
        out.status.success(),
        "these tests need {module} for python3 (python3 -m pip install --user {module}; scripts/test.sh does): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    ("PYTHONUSERBASE".into(), base)
}

/// A finished pawl invocation.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }
}

/// Replaces run ids and times so human output can be snapshotted.
pub fn redact(text: &str, root: &Path) -> String {
    let out = text.replace(&root.display().to_string(), "[ROOT]");
    let ids = regex_lite_replace(&out, is_run_id, "[RUN]");
    regex_lite_replace(&ids, is_time, "[TIME]")
}

fn is_run_id(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() == 20
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'-'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'-'
        && b[16..].iter().all(u8::is_ascii_hexdigit)
}

fn is_time(w: &str) -> bool {
    let b = w.as_bytes();
    (b.len() == 8
        && b[2] == b':'
        && b[5] == b':'
        && b.iter().filter(|c| c.is_ascii_digit()).count() == 6)
        || (b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && b.iter().filter(|c| c.is_ascii_digit()).count() == 8)
        || (b.len() == 9 && b[8] == b'Z' && is_time(&w[..8]))
}

/// Replaces every whitespace- or punctuation-delimited word matching `pred`.
fn regex_lite_replace(text: &str, pred: impl Fn(&str) -> bool, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            if pred(word) {
                out.push_str(with)
            } else {
                out.push_str(word)
            }
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '-' || c == ':' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}
