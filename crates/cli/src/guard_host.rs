//! The guard as pawl runs it on this machine, shared by `pawl guard` and the PreToolUse hook:
//! the policy a run's `[guard]` settings make, pawl's own paths on this machine (the user state
//! directory, the pawl binary the hooks run), the real filesystem the guard asks about symbolic
//! links and scripts, and the git facts the guard needs read without the agent's `git` (the
//! branch from `HEAD` itself; git at a fixed system path, never one found on the agent's PATH),
//! and the working tree a command is judged in when it is a linked worktree of the run's
//! repository (a story's: [`worktree_for`], [`confine`]).
//!
//! Not here: the guard's rules and decisions (pawl-guard), the repository context each caller
//! builds (branch, tracked files: `pawl guard` reads them eagerly, the hook lazily).

use std::path::{Path, PathBuf};

use pawl_core::config::GuardConfig;
use pawl_guard::{DenyRule, PawlPathKind, Policy};

/// pawl's own paths on this machine that no policy knows by itself.
#[derive(Debug, Clone, Default)]
pub struct Host {
    /// `$XDG_STATE_HOME/pawl` (or `~/.local/state/pawl`): the key, the rooms, the sessions.
    pub state_dir: Option<PathBuf>,
    /// The pawl binary the hooks run, as written in the settings and where it really is.
    pub binaries: Vec<PathBuf>,
}

impl Host {
    /// This process: the user state directory, and this binary (the hooks run the binary they
    /// name, so inside a hook this is it) with `extra` binaries the run recorded.
    pub fn current(extra: &[PathBuf]) -> Host {
        let mut binaries: Vec<PathBuf> = Vec::new();
        let mut add = |p: PathBuf| {
            for p in [p.canonicalize().ok(), Some(p)].into_iter().flatten() {
                if p.is_absolute() && !binaries.contains(&p) {
                    binaries.push(p);
                }
            }
        };
        if let Ok(exe) = std::env::current_exe() {
            add(exe);
        }
        for p in extra {
            add(p.clone());
        }
        Host {
            state_dir: crate::state::user_state_dir(),
            binaries,
        }
    }
}

/// What a run's settings tell its guard beyond `[guard]`, sealed with the run (an agent that
/// edits `pawl.toml` changes nothing for it): `[sandbox] containers`, and whether pawl keeps
/// untracked files in a commit before every step (the pre-run snapshot, then each verified
/// iteration's commit: `[git] commit_iterations`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SealedContext {
    #[serde(default)]
    pub containers: bool,
    #[serde(default)]
    pub checkpointed: bool,
}

impl SealedContext {
    /// From a run's sealed settings.
    pub fn of(settings: &pawl_core::record::RunSettings) -> SealedContext {
        SealedContext {
            containers: settings.sandbox.as_ref().is_some_and(|s| s.containers),
            checkpointed: settings.git.commit_iterations,
        }
    }

    /// From the configuration (`pawl guard`, outside a run).
    pub fn of_config(config: &pawl_core::config::Config) -> SealedContext {
        SealedContext {
            containers: config.sandbox.containers,
            checkpointed: config.git.commit_iterations,
        }
    }

    /// Sets what it holds on the guard's context.
    pub fn apply(&self, g: &mut pawl_guard::Context) {
        g.containers = self.containers;
        g.checkpointed = self.checkpointed;
    }
}

/// Prefixes of the variables an agent CLI sets for its hooks (and pawl for its own processes)
/// that the agent's shell may not have, or not with that value: left out of [`shell_env`].
const HOOK_ONLY_PREFIXES: &[&str] = &["CLAUDE", "GEMINI", "CODEX", "CURSOR", "PAWL"];

/// The environment the agent's shell inherits, as this process knows it: the hook and the
/// agent's shell are both children of the agent CLI, so a variable the agent's command line does
/// not assign has the value it has here (`Context::env`; docs/guard.md "Commands built from
/// variables"). What the agent CLI sets only for hooks is left out, and a variable that is not
/// here stays unknown to the guard, not unset.
pub fn shell_env() -> std::collections::BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| {
            !HOOK_ONLY_PREFIXES
                .iter()
                .any(|p| k.to_ascii_uppercase().starts_with(p))
        })
        .collect()
}

/// Whether the denial `data` (a `guard_denied` event's data: tool, input, rule, reason,
/// session) repeats `last`, the run's latest denial: the same call in the same session. It is
/// then not recorded again, so the user hears of it once (issue 36 point 3); a call without a
/// session is never taken for a repeat.
pub fn repeats_denial(last: Option<&serde_json::Value>, data: &serde_json::Value) -> bool {
    let Some(last) = last else {
        return false;
    };
    let same = |k: &str| last.get(k) == data.get(k);
    data.get("session").is_some_and(|s| !s.is_null())
        && same("session")
        && same("tool")
        && same("input")
        && same("rule")
}

/// The guard's policy from `[guard]` and this machine's pawl paths: the user's lists extend the
/// built-in ones.
pub fn policy(cfg: &GuardConfig, host: &Host) -> Policy {
    let mut p = Policy {
        protected_branches: cfg.protected_branches.clone(),
        allow_unsafe: cfg.allow_unsafe,
        always: cfg.always,
        ..Policy::default()
    };
    p.protected_paths
        .extend(cfg.protected_paths.iter().cloned());
    p.allowances.extend(cfg.allowances.iter().cloned());
    p.disabled_rules = cfg.rules.disabled();
    p.deny.extend(cfg.deny.iter().map(|d| DenyRule {
        command: d.command.clone(),
        pattern: d.pattern.clone(),
        reason: d.reason.clone(),
    }));
    if let Some(dir) = &host.state_dir {
        p.protect_pawl_path(&dir.display().to_string(), PawlPathKind::Secret);
    }
    for b in &host.binaries {
        p.protect_pawl_path(&b.display().to_string(), PawlPathKind::Binary);
    }
    p
}

/// The branch checked out where `cwd` is: the `HEAD` of the nearest git directory at or above
/// `cwd` within `root` (a worktree or nested repository under the run has its own), read from
/// the file itself. `Ok(None)` when detached. No `git` runs: a `git` the agent put earlier on
/// PATH must not tell the guard which branch it is on. An unreadable or malformed `HEAD` is an
/// error (the hook fails closed on it).
pub fn branch_at(root: &Path, cwd: &Path) -> Result<Option<String>, String> {
    let mut dir = if cwd.starts_with(root) { cwd } else { root };
    loop {
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            break;
        }
        match dir.parent() {
            Some(parent) if dir != root => dir = parent,
            _ => return Err(format!("no git directory at or above {}", cwd.display())),
        }
    }
    let unreadable =
        |what: &Path, e: std::io::Error| format!("cannot read {}: {e}", what.display());
    let git_dir = git_dir_of(dir)?;
    let path = git_dir.join("HEAD");
    let head = std::fs::read_to_string(&path).map_err(|e| unreadable(&path, e))?;
    let head = head.trim();
    if let Some(r) = head.strip_prefix("ref:") {
        let r = r.trim();
        return Ok(Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_owned()));
    }
    let detached = matches!(head.len(), 40 | 64) && head.bytes().all(|b| b.is_ascii_hexdigit());
    if detached {
        Ok(None)
    } else {
        Err(format!(
            "{} holds neither a branch nor a commit",
            path.display()
        ))
    }
}

/// The git directory of the working tree at `dir`: `dir/.git` itself, or where a `.git` file
/// (`gitdir: <path>`, a linked worktree or a submodule) points.
pub fn git_dir_of(dir: &Path) -> Result<PathBuf, String> {
    let git = dir.join(".git");
    if git.is_dir() {
        return Ok(git);
    }
    let text =
        std::fs::read_to_string(&git).map_err(|e| format!("cannot read {}: {e}", git.display()))?;
    let target = text
        .trim()
        .strip_prefix("gitdir:")
        .ok_or_else(|| format!("{} is not a gitdir file", git.display()))?
        .trim();
    let target = Path::new(target);
    Ok(if target.is_absolute() {
        target.to_path_buf()
    } else {
        dir.join(target)
    })
}

/// The files git tracks in the working tree at `root` (paths from its top): the index read
/// in-process, or `git ls-files` (through [`trusted_git`]) when the in-process reader is not
/// sure of this index. `None` when neither answers.
pub fn tracked_files(root: &Path) -> Option<Vec<String>> {
    if let Ok(git_dir) = git_dir_of(root)
        && let Some(paths) = pawl_git::index_paths(&git_dir)
    {
        return Some(paths);
    }
    let files = open_repo(root).ok()?.tracked_files().ok()?;
    Some(files.iter().map(|p| p.display().to_string()).collect())
}

/// [`tracked_files`] as the guard's set; from the index read in-process it also knows which
/// paths are gitlinks (submodules), which a recursive delete the checkpoint holds must not
/// reach. From `git ls-files` the modes stay unknown (the guard's cautious answer).
pub fn tracked_set(root: &Path) -> Option<pawl_guard::TrackedSet> {
    if let Ok(git_dir) = git_dir_of(root)
        && let Some((paths, gitlinks)) = pawl_git::index_paths_and_gitlinks(&git_dir)
    {
        let mut set: pawl_guard::TrackedSet = paths.into_iter().collect();
        set.know_modes();
        for gitlink in gitlinks {
            set.insert_gitlink(gitlink);
        }
        return Some(set);
    }
    tracked_files(root).map(|f| f.into_iter().collect())
}

/// The git program pawl's guard asks (tracked files, aliases): the first of the system's own
/// places that holds one, never a `git` found on the agent's PATH.
pub fn trusted_git() -> Option<PathBuf> {
    [
        "/usr/bin/git",
        "/bin/git",
        "/usr/local/bin/git",
        "/opt/homebrew/bin/git",
        "/opt/local/bin/git",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.is_file())
}

/// The repository at `root` with git run from [`trusted_git`].
pub fn open_repo(root: &Path) -> Result<pawl_git::Repo, pawl_git::Error> {
    let mut options = pawl_git::Options::default();
    if let Some(git) = trusted_git() {
        options.program = git.into_os_string();
    }
    pawl_git::Repo::open_with(root, options)
}

/// The real filesystem, asked lazily by the guard where a path may go through a symbolic link:
/// like `realpath -m`, the longest existing prefix is resolved and the rest appended as written.
/// `top`: the run's working tree, whose own `.git` is the repository and not a nested one
/// ([`HostFs::at`]); without it every `.git` below a directory asked about counts as nested.
#[derive(Debug, Clone, Default)]
pub struct HostFs {
    top: Option<PathBuf>,
}

impl HostFs {
    /// The filesystem seen from the working tree at `top` (the guard's `repo_root`).
    pub fn at(top: &Path) -> HostFs {
        HostFs {
            top: Some(top.to_path_buf()),
        }
    }
}

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

    /// Asked of git (at a system path) in the repository that holds `path`, only when a
    /// recursive delete the checkpoint could undo is judged (rare: one git process then).
    fn holds_ignored(&self, path: &str) -> Option<bool> {
        holds_ignored(Path::new(path), self.top.as_deref(), false)
    }

    /// The same, not counting `path`'s own dot-led entries (`.env`, `.venv`, `.pawl/`, `.git`):
    /// asked for a glob over `path` that cannot match such a name.
    fn holds_ignored_undotted(&self, path: &str) -> Option<bool> {
        holds_ignored(Path::new(path), self.top.as_deref(), true)
    }
}

/// [`HostFs`]'s answer to `holds_ignored` (`undotted`: `holds_ignored_undotted`) in the working
/// tree at `work_tree`.
fn holds_ignored(path: &Path, work_tree: Option<&Path>, undotted: bool) -> Option<bool> {
    if !path.is_absolute() {
        return None;
    }
    if std::fs::symlink_metadata(path).is_err() {
        return Some(false);
    }
    // The working tree's own top: its `.git` is the repository, not a nested one.
    let own_top = work_tree.is_some_and(|w| w == path)
        && std::fs::symlink_metadata(path.join(".git")).is_ok();
    let top = path
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok());
    let ask_git = || -> Option<bool> {
        let top = top?;
        let rel = path.strip_prefix(top).ok()?.to_str()?;
        let ignored = open_repo(top).ok()?.ignored_in(rel).ok()?;
        Some(ignored.iter().any(|entry| {
            let below = if rel.is_empty() {
                Some(entry.as_str())
            } else {
                entry.strip_prefix(rel).map(|b| b.trim_start_matches('/'))
            };
            !(undotted && below.is_some_and(|b| b.starts_with('.')))
        }))
    };
    if own_top {
        // git first: a top usually holds ignored build outputs, and the scan below would
        // read all of them.
        if ask_git()? {
            return Some(true);
        }
        return holds_nested_repository(path, true, undotted);
    }
    // A nested repository (a clone, a submodule's work tree) is committed by the checkpoint
    // as a pointer: its files and unpushed commits are not held. Looked for first, as its
    // own `.git` would make it the repository asked below.
    if holds_nested_repository(path, false, undotted)? {
        return Some(true);
    }
    ask_git()
}

/// How many directory entries [`holds_nested_repository`] reads before it gives up (`None`).
const NESTED_REPOSITORY_SCAN: usize = 20_000;

/// Whether the directory `dir` is or holds a git repository of its own (a `.git` entry at any
/// depth, links not followed). `None` when it cannot be told within
/// [`NESTED_REPOSITORY_SCAN`] entries or a directory cannot be read: the caller then takes the
/// cautious answer. A file is no repository. `own_top`: `dir` is the repository's top, whose
/// own `.git` is not counted; `undotted`: `dir`'s own dot-led entries other than `.git` are
/// not looked into.
fn holds_nested_repository(dir: &Path, own_top: bool, undotted: bool) -> Option<bool> {
    if !std::fs::symlink_metadata(dir).ok()?.is_dir() {
        return Some(false);
    }
    let mut pending = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(next) = pending.pop() {
        let at_top = next.as_path() == dir;
        for entry in std::fs::read_dir(&next).ok()? {
            let entry = entry.ok()?;
            let name = entry.file_name();
            // A `.git` of `dir` itself is looked at unless `dir` is the repository's top:
            // `dir` is then a nested repository, whatever the glob can match.
            let skipped = if name == ".git" {
                own_top
            } else {
                undotted && name.as_encoded_bytes().starts_with(b".")
            };
            if at_top && skipped {
                continue;
            }
            seen += 1;
            if seen > NESTED_REPOSITORY_SCAN {
                return None;
            }
            if name == ".git" {
                return Some(true);
            }
            if entry.file_type().ok()?.is_dir() {
                pending.push(entry.path());
            }
        }
    }
    Some(false)
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

    /// A FIFO, socket or device (links followed), told from its metadata without opening it.
    fn is_special(&self, path: &str) -> bool {
        std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
    }
}

/// A linked worktree of the run's repository that a command is judged in (docs/parallel.md
/// "What the guard sees in a story"): the guard takes it as the repository (its root, its own
/// index, its `HEAD`), and the run's repository as a place the command must leave alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    /// The worktree's top directory.
    pub root: PathBuf,
    /// pawl made it for a story of the run (`<worktrees>/<run>/<story>`): beside it are the
    /// other stories' worktrees and clean rooms.
    pub story: bool,
}

/// The working tree a command of the run at `root`, run in `cwd`, is judged in when it is not
/// the repository itself. For a story's agent (`story`: the run and the story's id) it is the
/// story's worktree wherever the command runs — the one `cwd` is in when that is it, else where
/// pawl keeps it — and an error when that is not a worktree of the repository or cannot be read
/// (the hook denies: fail closed). Otherwise it is the linked worktree of the repository `cwd`
/// is in, if it lies outside the repository (one inside is judged as part of it).
pub fn worktree_for(
    root: &Path,
    cwd: &Path,
    story: Option<(&str, &str)>,
) -> Result<Option<Worktree>, String> {
    let here = cwd
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .filter(|d| d.join(".git").is_file() && !d.starts_with(root))
        .map(Path::to_path_buf);
    let Some((run, id)) = story else {
        // A working tree that cannot be told to be ours (another repository's, a stale one) is
        // judged as a place outside the repository, as before.
        return match here {
            Some(top) if worktree_of(root, &top).unwrap_or(false) => Ok(Some(Worktree {
                root: top,
                story: false,
            })),
            _ => Ok(None),
        };
    };
    let named = |p: &Path| {
        p.file_name().is_some_and(|n| n == id)
            && p.parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == run)
    };
    let tree = match here.filter(|t| named(t)) {
        Some(t) => t,
        None => crate::parallel::run_worktrees(root, run)
            .map_err(|e| e.to_string())?
            .join(id),
    };
    if !worktree_of(root, &tree)? {
        return Err(format!(
            "story {id}'s worktree {} is not a worktree of {}",
            tree.display(),
            root.display()
        ));
    }
    Ok(Some(Worktree {
        root: tree,
        story: true,
    }))
}

/// Whether the working tree at `top` is a linked worktree of the repository at `root`: its
/// `.git` file names a directory under the repository's `.git/worktrees/`. An error when that
/// cannot be read.
fn worktree_of(root: &Path, top: &Path) -> Result<bool, String> {
    let git_dir = git_dir_of(top)?;
    let Some(list) = git_dir.parent().filter(|p| p.ends_with("worktrees")) else {
        return Ok(false);
    };
    let real = |p: &Path| {
        p.canonicalize()
            .map_err(|e| format!("cannot resolve {}: {e}", p.display()))
    };
    let common = real(list.parent().unwrap_or(list))?;
    Ok(common == real(&git_dir_of(root)?)?)
}

/// What a command judged in `tree` must leave alone, added to `policy` as protected
/// directories: the run's repository at `root` (as written and where it really is), and for a
/// story the other entries of the run's worktrees directory (the other stories' worktrees,
/// the clean rooms, the merge's checkout) and of the repository's (other runs'). pawl's own
/// state elsewhere is protected already (`.pawl/` anywhere, the user state directory). For a
/// story the run's branch (the one checked out in the repository, where the merge queue merges)
/// and the other stories' branches become protected branches: only the merge queue moves them.
/// An error when a directory cannot be listed (the hook denies: fail closed).
pub fn confine(policy: &mut Policy, root: &Path, tree: &Worktree) -> Result<(), String> {
    let mut places: Vec<PathBuf> = vec![root.to_path_buf()];
    places.extend(root.canonicalize().ok());
    if tree.story {
        let run_dir = tree.root.parent().unwrap_or(&tree.root);
        let repo_dir = run_dir.parent().unwrap_or(run_dir);
        let run = run_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut branches: Vec<String> = branch_at(root, root)?.into_iter().collect();
        for (dir, own) in [(run_dir, tree.root.as_path()), (repo_dir, run_dir)] {
            let entries = std::fs::read_dir(dir)
                .map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
            for entry in entries {
                let path = entry
                    .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
                    .path();
                if path == own {
                    continue;
                }
                if dir == run_dir
                    && let Some(id) = path.file_name().and_then(|n| n.to_str())
                    && pawl_core::parallel::is_story_id(id)
                {
                    branches.push(pawl_core::parallel::story_branch(&run, id));
                }
                places.push(path);
            }
        }
        for b in branches {
            if !policy.protected_branches.contains(&b) {
                policy.protected_branches.push(b);
            }
        }
    }
    for place in &places {
        policy.protect_dir(&place.display().to_string());
    }
    Ok(())
}

/// What a command judged in the run's repository itself (no worktree) must leave alone: every
/// story worktree pawl keeps (`pawl-worktrees`, beside the user's pawl state) — each holds
/// another agent's work, merged only by the merge queue — protected as a whole (rule
/// `protected-path`; reading is allowed).
pub fn keep_out_of_worktrees(policy: &mut Policy) {
    if let Some(home) = crate::parallel::worktrees_home() {
        policy.protect_dir(&home.display().to_string());
        if let Ok(real) = home.canonicalize()
            && real != home
        {
            policy.protect_dir(&real.display().to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same call denied again in a row in one session is recorded once; another call,
    /// session, rule or a call without a session is recorded again.
    #[test]
    fn a_denial_repeated_in_a_row_in_one_session_is_reported_once() {
        let denial = |session: serde_json::Value, command: &str| {
            serde_json::json!({"tool": "Bash", "input": {"shell": command}, "rule": "git-push",
                               "reason": "r", "session": session})
        };
        let first = denial("s1".into(), "git push");
        assert!(!repeats_denial(None, &first));
        assert!(repeats_denial(
            Some(&first),
            &denial("s1".into(), "git push")
        ));
        assert!(!repeats_denial(
            Some(&first),
            &denial("s2".into(), "git push")
        ));
        assert!(!repeats_denial(
            Some(&first),
            &denial("s1".into(), "git push -f")
        ));
        let other_rule = serde_json::json!({"tool": "Bash", "input": {"shell": "git push"},
                                            "rule": "not-static", "session": "s1"});
        assert!(!repeats_denial(Some(&first), &other_rule));
        let none = denial(serde_json::Value::Null, "git push");
        assert!(!repeats_denial(Some(&none), &none));
    }

    /// `[sandbox] containers` and the checkpoint reach the guard from the run's sealed
    /// settings; a run stored before knows neither (the cautious rules).
    #[test]
    fn the_guard_context_comes_from_the_runs_sealed_settings() {
        let mut settings: pawl_core::record::RunSettings =
            serde_json::from_value(serde_json::json!({
                "limits": pawl_core::config::Config::default().limits,
                "breakers": pawl_core::config::Config::default().breakers,
                "stall": pawl_core::config::Config::default().stall,
            }))
            .unwrap();
        let sealed = SealedContext::of(&settings);
        assert!(!sealed.containers);
        assert!(sealed.checkpointed, "commit_iterations is on by default");
        settings.sandbox = Some(pawl_core::config::SandboxConfig {
            containers: true,
            ..Default::default()
        });
        settings.git.commit_iterations = false;
        let sealed = SealedContext::of(&settings);
        assert_eq!(
            sealed,
            SealedContext {
                containers: true,
                checkpointed: false
            }
        );
        let mut g = pawl_guard::Context::new("/r");
        sealed.apply(&mut g);
        assert!(g.containers && !g.checkpointed);
        let old: SealedContext = serde_json::from_str("{}").unwrap();
        assert_eq!(old, SealedContext::default());
    }

    fn git(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    /// A repository, and story S1's worktree of run r1 where pawl keeps worktrees, beside
    /// another story's, a clean room and another run's.
    #[test]
    fn a_story_is_judged_in_its_worktree_and_leaves_the_rest_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-q", "-m", "a"]);
        git(&root, &["checkout", "-q", "-b", "pawl/r1"]);
        let runs = dir.path().join("pawl-worktrees/repo-0123");
        let s1 = runs.join("r1/S1");
        git(
            &root,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "pawl/r1-S1",
                &s1.display().to_string(),
            ],
        );
        for other in ["r1/S2", "r1/.room-S1", "r0/S1"] {
            std::fs::create_dir_all(runs.join(other)).unwrap();
        }
        let sub = s1.join("src");
        std::fs::create_dir_all(&sub).unwrap();
        let tree = worktree_for(&root, &sub, Some(("r1", "S1")))
            .unwrap()
            .unwrap();
        assert_eq!(
            tree,
            Worktree {
                root: s1.clone(),
                story: true
            }
        );
        let mut policy = Policy::default();
        confine(&mut policy, &root, &tree).unwrap();
        let dirs: Vec<PathBuf> = policy.protected_dirs.iter().map(PathBuf::from).collect();
        for b in ["pawl/r1", "pawl/r1-S2"] {
            assert!(policy.protected_branches.iter().any(|p| p == b), "{b}");
        }
        assert!(!policy.protected_branches.iter().any(|p| p == "pawl/r1-S1"));
        for place in [
            root.clone(),
            runs.join("r1/S2"),
            runs.join("r1/.room-S1"),
            runs.join("r0"),
        ] {
            assert!(dirs.contains(&place), "{place:?} in {dirs:?}");
        }
        assert!(
            !dirs.iter().any(|d| s1.starts_with(d) && d != &root),
            "{dirs:?}"
        );
        // Another story's directory that is no worktree of the repository: refused.
        assert!(worktree_for(&root, &runs.join("r1/S2"), Some(("r1", "S2"))).is_err());
        // Without a story: the linked worktree the command runs in, and the repository itself.
        let plain = worktree_for(&root, &sub, None).unwrap().unwrap();
        assert_eq!(
            plain,
            Worktree {
                root: s1,
                story: false
            }
        );
        assert_eq!(worktree_for(&root, &root, None).unwrap(), None);
        assert_eq!(worktree_for(&root, dir.path(), None).unwrap(), None);
    }
}
