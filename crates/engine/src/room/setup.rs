//! `[room] setup`: the room's environment built with the project's install command.
//!
//! The environment taken at the seal ([`super::env`]) is the baseline's. A tree whose
//! dependency manifests (`[environment] manifests`, data: `requirements*.txt`, `package.json`
//! and its lockfile, `Cargo.lock`, `go.sum` …) differ from those the room's environment was
//! built from — the run added a dependency — gets the environment rebuilt before its checks
//! run ([`Room::prepare_environment`]):
//!
//! - **the command** is the sealed `[room] setup`, else the first `[[environment.setup]]` row
//!   of the platforms whose file the tree has (`npm ci`, `uv sync --frozen`, `python -m pip
//!   install -r requirements.txt` — a pip row only where the room has a virtualenv to install
//!   into). It runs at the repository's path in the room, under the check sandbox **with the
//!   network** and without the overlay (it writes the room's environment itself); the package
//!   managers' download caches go to a layer pawl owns beside the room ([`DOWNLOADS`]), which
//!   no check sees. The room is synced again right after, so nothing it wrote outside the
//!   environment directories survives.
//! - **the seal's environment is kept** (`env-seal/`, taken once, reflinked where the file
//!   system can): a tree whose dependency manifests are the seal's again (the baseline source,
//!   a run that reverted its dependency) gets it back, not a rebuild.
//! - **cached**: nothing runs while the manifests are those the environment was built from (or
//!   those a setup last failed for: its event says why; a changed manifest tries again); a
//!   project with no environment directory and a declared `[room] setup` gets it run once per
//!   dependency-manifest digest.
//! - the manifest of the seal's package trees stays what the live tree is compared with
//!   (`env_change_list`): a change there that no changed dependency manifest explains is a
//!   finding, rebuilt or not.
//!
//! `cargo fetch` and `go mod download` write the stores at the user's paths (Landlock lets
//! exactly those commands, written plainly, write `CARGO_HOME/registry`, `CARGO_HOME/git` and
//! `GOMODCACHE`: never a project's own set-up script: `fetcher`). Under the check sandbox's
//! namespaces the run's copies ([`super::stores`]) are bound there, so they fill the copies;
//! without namespaces, or for a store the run has no copy of, they write the user's own
//! (known limit: cargo and go check what they fetch against the lockfile, and the stores are
//! in the outside manifest, so an addition is seen).

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pawl_verify::RunnerConfig;
use pawl_verify::gate::Check;
use pawl_verify::platform::Environment;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::env::{EnvState, TakenDir, copy_tree, fingerprint, hex, is_real_dir};
use super::{Room, RoomError, io_err, remove_any};

/// The download layer beside the room's tree: the package managers' caches during a setup.
pub const DOWNLOADS: &str = "downloads";
/// Where the seal's environment is kept once a rebuild replaced it.
const SEAL_ENV: &str = "env-seal";
/// The variables that send a package manager's downloads to the layer, and the layer's
/// subdirectory for each.
const DOWNLOAD_VARS: &[(&str, &str)] = &[
    ("PIP_CACHE_DIR", "pip"),
    ("UV_CACHE_DIR", "uv"),
    ("npm_config_cache", "npm"),
    ("YARN_CACHE_FOLDER", "yarn"),
    ("npm_config_store_dir", "pnpm-store"),
    ("POETRY_CACHE_DIR", "poetry"),
    ("BUN_INSTALL_CACHE_DIR", "bun"),
];
/// The check name a setup runs under (its log is `setup-*.log`).
pub const SETUP_CHECK: &str = "setup";

/// What [`Room::prepare_environment`] did, as the run's `room_setup` event records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupRun {
    /// The install command; empty when the seal's environment was put back instead.
    pub command: String,
    /// Why: the dependency manifests that differ from those the environment was built from.
    pub why: String,
    /// The command exited 0 (always true for a put-back).
    pub passed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Its complete log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<PathBuf>,
    /// The last lines of its output (a failed setup says why there).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tail: String,
    /// The packages it changed in the room's environment ("…/six added").
    #[serde(default)]
    pub changes: Vec<String>,
    /// The seal's environment was put back (the manifests are the seal's again).
    #[serde(default)]
    pub restored: bool,
    pub duration_ms: u64,
}

/// The digest of the dependency manifests of the tree the room holds: each file of `paths`
/// (the tree's, root-relative) that `env` names a manifest, by path and content.
pub fn deps_digest(tree_dir: &Path, paths: &[String], env: &Environment) -> String {
    let mut h = Sha256::new();
    let manifests = env.manifest_set();
    let mut names: Vec<&String> = paths.iter().filter(|p| manifests.is_match(p)).collect();
    names.sort();
    for p in names {
        h.update(p.as_bytes());
        h.update([0]);
        h.update(fs::read(tree_dir.join(p)).unwrap_or_default());
        h.update([0]);
    }
    hex(&h.finalize())
}

/// The files of `tree` in `repo`, root-relative.
fn tree_files(repo: &pawl_git::Repo, tree: &pawl_git::TreeHash) -> Result<Vec<String>, RoomError> {
    Ok(repo
        .tree_paths(tree.as_ref())?
        .into_iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect())
}

impl Room {
    /// Records the dependency-manifest digest of the tree the room holds as the one its
    /// environment was taken for (the seal's). Called by [`Room::take_environment`].
    pub(super) fn deps_of_tree(
        &self,
        repo: &pawl_git::Repo,
        tree: &pawl_git::TreeHash,
        env: &Environment,
    ) -> Result<String, RoomError> {
        Ok(deps_digest(&self.tree_dir, &tree_files(repo, tree)?, env))
    }

    /// Makes the room's environment match the dependency manifests of `tree` (which the room
    /// holds: call after [`Room::sync`]) — see the module docs. `setup` is the sealed
    /// `[room] setup` (empty: detected, and only where the room took an environment); `cfg` is
    /// the checks' runner configuration placed in this room. Returns what ran, `None` when
    /// nothing had to.
    pub fn prepare_environment(
        &mut self,
        repo: &pawl_git::Repo,
        tree: &pawl_git::TreeHash,
        env: &Environment,
        setup: &str,
        cfg: &RunnerConfig,
    ) -> Result<Option<SetupRun>, RoomError> {
        let started = Instant::now();
        let declared = !setup.trim().is_empty();
        let mut state = match self.environment() {
            Some(s) => s,
            None if declared => EnvState::default(),
            None => return Ok(None),
        };
        let files = tree_files(repo, tree)?;
        let digest = deps_digest(&self.tree_dir, &files, env);
        if state.deps.as_deref() == Some(digest.as_str())
            || state.failed_deps.as_deref() == Some(digest.as_str())
        {
            return Ok(None);
        }
        let why = match &state.deps {
            None => "no environment was built for this project's dependency manifests yet".into(),
            Some(_) => {
                let manifests = env.manifest_set();
                let changed: Vec<&String> =
                    files.iter().filter(|p| manifests.is_match(p)).collect();
                format!(
                    "the dependency manifests differ from those the room's environment was built from ({})",
                    changed
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        };
        // The seal's manifests again: its environment is put back.
        let aside = self.dir.join(SEAL_ENV);
        if state.seal_deps.as_deref() == Some(digest.as_str()) && is_real_dir(&aside) {
            let before = state.room_manifest.clone().unwrap_or_default();
            for dir in state.dirs.keys().cloned().collect::<Vec<_>>() {
                remove_any(&self.tree_dir.join(&dir))?;
            }
            state.dirs.clear();
            for (dir, taken) in std::mem::take(&mut state.seal_dirs) {
                let from = aside.join(&dir);
                if !is_real_dir(&from) {
                    continue;
                }
                let target = self.tree_dir.join(&dir);
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent).map_err(io_err(parent))?;
                }
                copy_tree(&from, &target)?;
                let (copy, _, _) = fingerprint(&target).map_err(io_err(&target))?;
                state.dirs.insert(dir, TakenDir { copy, ..taken });
            }
            state.built.clear();
            self.finish(&mut state, env, digest)?;
            let after = state.room_manifest.clone().unwrap_or_default();
            return Ok(Some(SetupRun {
                command: String::new(),
                why: "the dependency manifests are the seal's again: its environment is put back"
                    .into(),
                passed: true,
                exit_code: Some(0),
                log: None,
                tail: String::new(),
                changes: changes_between(&before, &after),
                restored: true,
                duration_ms: ms(started.elapsed()),
            }));
        }
        let has = |d: &str| is_real_dir(&self.tree_dir.join(d));
        let command = if declared {
            setup.trim().to_owned()
        } else if state.dirs.is_empty() && !super::stores::any(&self.dir) {
            // Detected commands only rebuild an environment the project has (its directories,
            // or the run's copies of the package stores: `cargo fetch`, `go mod download` fill
            // them).
            return Ok(None);
        } else {
            match env.detect_setup(&files, &has) {
                Some(c) => c.to_owned(),
                None => return Ok(None),
            }
        };
        // The seal's environment, kept once before the first rebuild changes it.
        if state.seal_dirs.is_empty() && !state.dirs.is_empty() && !is_real_dir(&aside) {
            remove_any(&aside)?;
            fs::create_dir_all(&aside).map_err(io_err(&aside))?;
            for dir in state.dirs.keys() {
                let from = self.tree_dir.join(dir);
                if is_real_dir(&from) {
                    let to = aside.join(dir);
                    if let Some(parent) = to.parent() {
                        fs::create_dir_all(parent).map_err(io_err(parent))?;
                    }
                    copy_tree(&from, &to)?;
                }
            }
            state.seal_dirs = state.dirs.clone();
        }
        let before = state
            .room_manifest
            .clone()
            .unwrap_or_else(|| state.manifest.clone());
        let run = self.run_setup(&command, cfg)?;
        let mut out = SetupRun {
            command: command.clone(),
            why,
            passed: run.passed,
            exit_code: run.end.exit_code(),
            log: run.log_path.clone(),
            tail: run.tail.clone(),
            changes: Vec::new(),
            restored: false,
            duration_ms: 0,
        };
        if run.passed {
            // What the command made of the environment directories is the room's now.
            for dir in &env.dirs {
                let target = self.tree_dir.join(dir);
                if !is_real_dir(&target) {
                    continue;
                }
                let (copy, files, bytes) = fingerprint(&target).map_err(io_err(&target))?;
                state.dirs.insert(
                    dir.clone(),
                    TakenDir {
                        // Not the repository's: a later take copies the repository's again.
                        source: String::new(),
                        copy,
                        files,
                        bytes,
                    },
                );
                if !state.built.contains(dir) {
                    state.built.push(dir.clone());
                }
            }
            self.finish(&mut state, env, digest)?;
            out.changes = changes_between(&before, state.room_manifest.as_ref().unwrap_or(&before));
        } else {
            // Nothing the failed command wrote is trusted: the environment directories are
            // checked against their fingerprints at the next sync (restored or refused). Not
            // tried again for the same manifests.
            state.failed_deps = Some(digest);
            self.write_environment(&state)?;
        }
        // Anything the command wrote outside the environment directories goes now.
        self.sync(repo, tree)?;
        out.duration_ms = ms(started.elapsed());
        Ok(Some(out))
    }

    /// Records the room's environment after a rebuild or put-back: bins, virtualenv, the room's
    /// package manifest and the digest it was built for.
    fn finish(
        &mut self,
        state: &mut EnvState,
        env: &Environment,
        digest: String,
    ) -> Result<(), RoomError> {
        state.room_manifest = Some(self.located(state, env));
        state.room_programs = Some(super::env::programs_of(&self.tree_dir, &state.bins));
        state.deps = Some(digest);
        state.failed_deps = None;
        self.write_environment(state)
    }

    /// Runs `command` in the room: at the path the checks see it, with the network, writing the
    /// room's tree itself (no overlay) and the download layer.
    fn run_setup(
        &self,
        command: &str,
        cfg: &RunnerConfig,
    ) -> Result<pawl_verify::CheckRun, RoomError> {
        let downloads = self.dir.join(DOWNLOADS);
        fs::create_dir_all(&downloads).map_err(io_err(&downloads))?;
        let mut cfg = cfg.clone();
        let mut vars: Vec<(OsString, OsString)> = Vec::new();
        let mut seen_at = downloads.clone();
        let namespaces = cfg.containment.as_ref().is_some_and(|c| c.spec.namespaces);
        if let Some(sandbox) = cfg
            .containment
            .as_mut()
            .and_then(|c| c.spec.sandbox.as_mut())
        {
            sandbox.private_network = false;
            sandbox.deny_tcp = false;
            sandbox.room_overlay = false;
            sandbox.room_scratch = None;
            if namespaces {
                // The layer is in pawl's state, which a check never sees: bound into its
                // private temp dir.
                let target = PathBuf::from("/tmp/pawl-downloads");
                sandbox.binds.push(pawl_process::sandbox::Bind {
                    source: downloads.clone(),
                    target: target.clone(),
                });
                seen_at = target;
            } else if !sandbox.writable.contains(&downloads) {
                // Without namespaces nothing can be bound (the launcher refused the whole
                // command, so `[room] setup` never ran there): the layer is written where it
                // is, which Landlock allows.
                sandbox.writable.push(downloads.clone());
            }
            // cargo and go fetch into the user's stores (module docs): writable to exactly
            // those commands (the package manager alone writes there, it runs no project
            // code), never to a project's own script, which could poison them for every
            // later run and project (issue 31; seen succeeding before: `sh setup.sh` wrote
            // `~/.cargo/registry`).
            let var = |k: &str| {
                cfg.env
                    .iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.to_string_lossy().into_owned())
            };
            let cargo_home = super::stores::cargo_home(&var);
            let stores: Vec<Option<PathBuf>> = match fetcher(command) {
                Some(Fetcher::Cargo) => vec![
                    cargo_home.as_ref().map(|c| c.join("registry")),
                    cargo_home.as_ref().map(|c| c.join("git")),
                ],
                Some(Fetcher::Go) => vec![super::stores::go_modcache(&var)],
                None => Vec::new(),
            };
            for s in stores.into_iter().flatten().filter(|s| s.is_dir()) {
                if !sandbox.writable.contains(&s) {
                    sandbox.writable.push(s);
                }
            }
        }
        // The checks are offline; the install command fetches.
        vars.push(("CARGO_NET_OFFLINE".into(), "false".into()));
        for (var, sub) in DOWNLOAD_VARS {
            let _ = fs::create_dir_all(downloads.join(sub));
            vars.push(((*var).into(), seen_at.join(sub).into_os_string()));
        }
        super::env::apply(&mut cfg, vars);
        let runs = pawl_verify::run_checks(&[Check::gate(SETUP_CHECK, command)], &cfg);
        runs.into_iter().next().ok_or_else(|| RoomError::Io {
            path: self.tree_dir.clone(),
            source: std::io::Error::other("the setup command did not run"),
        })
    }
}

/// The package managers that write the user's own stores from a set-up command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fetcher {
    Cargo,
    Go,
}

/// Which store `command` may write: only a plain `cargo fetch` or `go mod download` (flags
/// allowed, nothing a shell would run besides: no `;`, `&`, `|`, `$`, backquote, redirection
/// or subshell).
fn fetcher(command: &str) -> Option<Fetcher> {
    if command.chars().any(|c| {
        matches!(
            c,
            ';' | '&' | '|' | '$' | '`' | '<' | '>' | '(' | ')' | '\n'
        )
    }) {
        return None;
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    let flags = |rest: &[&str]| rest.iter().all(|w| w.starts_with('-'));
    match words.as_slice() {
        ["cargo", "fetch", rest @ ..] if flags(rest) => Some(Fetcher::Cargo),
        ["go", "mod", "download", rest @ ..] if flags(rest) => Some(Fetcher::Go),
        _ => None,
    }
}

fn changes_between(
    before: &pawl_core::envmanifest::Manifest,
    after: &pawl_core::envmanifest::Manifest,
) -> Vec<String> {
    pawl_core::envmanifest::compare(before, after)
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::{Fetcher, fetcher};

    #[test]
    fn only_a_plain_fetch_writes_the_users_stores() {
        assert_eq!(fetcher("cargo fetch"), Some(Fetcher::Cargo));
        assert_eq!(fetcher("cargo fetch --locked"), Some(Fetcher::Cargo));
        assert_eq!(fetcher("go mod download -x"), Some(Fetcher::Go));
        for other in [
            "sh setup.sh",
            "cargo fetch; sh evil.sh",
            "cargo fetch && sh evil.sh",
            "cargo fetch $(sh evil.sh)",
            "cargo fetch --manifest-path x/Cargo.toml > out",
            "cargo build",
            "npm ci",
        ] {
            assert_eq!(fetcher(other), None, "{other}");
        }
    }
}
