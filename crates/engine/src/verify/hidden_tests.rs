//! The independent tester's hidden tests at verification (issue 33 point 2; the session that
//! writes them is `crate::tester`, the decisions `pawl_core::tester`): once the locked run holds,
//! the hidden files' calls are extracted with the deciding tests' extractor
//! (`pawl_verify::syntax::extract_probes`) and run as probes (`super::probes::run`: the same room,
//! sandbox and judge), one function at a time so that a finding names its behaviour. A call whose
//! answer differs from its expectation is a failing hidden test; a call naming a function no file
//! of the final tree defines is inconclusive (shown, never a failure). The details of what fails
//! (calls, answers) go to the private directory only: never to the store, a report under the
//! repository or a prompt, even once the run ends on them — `pawl report` reads them from there
//! for the user (`crate::report::reveal`).
//!
//! Here too: where a run's hidden tests are kept (the vault: the user's pawl state) and what the
//! store records of them (counts, behaviours, who wrote them — never their text).
//!
//! Not yet: hidden tests that are not calls with literal arguments, run by the project's runner in
//! a room without the visible tests (they are listed as not run).

use std::path::{Path, PathBuf};

use pawl_core::EventKind;
use pawl_core::seal::Seal;
use pawl_git::{Repo, TreeHash};
use pawl_store::Store;
use pawl_verify::syntax::{self, Lang};
use serde::{Deserialize, Serialize};

use crate::hidden::Vault;
use crate::room::Room;
use crate::workspace::Workspace;

/// The most files of the tester's kept.
pub(crate) const MAX_FILES: usize = 32;
/// The largest file of the tester's read.
pub(crate) const MAX_FILE: u64 = 256 * 1024;
/// What the tester did, as the store records it (no test text).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TesterRecord {
    /// Who wrote the hidden tests: `command \`…\`` or the agent's name.
    pub who: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// How many test files it left.
    pub files: usize,
    /// Why it gave no tests (could not start, failed, timed out, no private state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    #[serde(default)]
    pub cost_usd: f64,
    pub ms: u64,
}

/// What the hidden tests found on a locked tree, as stored with the verification: counts and
/// behaviours only (no inputs, no expectations).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HiddenRun {
    /// Who wrote them (the tester record's `who`, with its session).
    pub from: String,
    /// Test files and calls with an expectation found in them.
    pub files: usize,
    pub calls: usize,
    /// Calls that ran outside the test runner and answered.
    pub probed: usize,
    /// The behaviours (functions) a hidden test finds wrong.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failing: Vec<String>,
    /// Names a hidden test guessed that the final tree does not define: inconclusive.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inconclusive: Vec<String>,
    /// Hidden tests not run, with why (no inputs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<String>,
    /// The functions a hidden call ran outside the test runner and got an answer from (a
    /// symbol they exercised out of process: `[verify] require_probe` is met for it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answered: Vec<String>,
    /// How long their runs took (ms).
    #[serde(default)]
    pub ms: u64,
}

impl HiddenRun {
    /// One line for the report.
    pub fn line(&self) -> String {
        format!(
            "hidden tests ({}): {} file(s), {} call(s), {} ran outside the test runner and answered in {} ms; {}{}",
            self.from,
            self.files,
            self.calls,
            self.probed,
            self.ms,
            if self.failing.is_empty() {
                "none fails".to_string()
            } else {
                format!(
                    "failing: {}",
                    self.failing
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
            if self.inconclusive.is_empty() {
                String::new()
            } else {
                format!(
                    "; inconclusive (not in the final tree): {}",
                    self.inconclusive.join(", ")
                )
            }
        )
    }
}

/// Where a run's tester keeps its tests and their results: the vault (the user's pawl state).
pub fn dir(vault: &Vault, run_id: &str) -> PathBuf {
    vault.dir().join("tester").join(run_id)
}

pub(crate) fn out_dir(vault: &Vault, run_id: &str) -> PathBuf {
    dir(vault, run_id).join("tests")
}

/// The file holding the details of the hidden tests on `tree`: the calls and answers of those
/// that failed, the names of those that did not run.
pub(crate) fn details_path(vault: &Vault, run_id: &str, tree: &str) -> PathBuf {
    dir(vault, run_id).join(format!("failed-{tree}.txt"))
}

/// The tester's test files (regular files, at most [`MAX_FILES`], each at most [`MAX_FILE`]).
pub(crate) fn test_files(out: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    let Ok(entries) = std::fs::read_dir(out) else {
        return files;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if !meta.is_file() || meta.len() > MAX_FILE || files.len() >= MAX_FILES {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&p) {
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            files.push((name, text));
        }
    }
    files
}

/// Where the hidden tests of `run_id` are, when it has a tester and they were written.
pub struct Hidden<'a> {
    pub vault: &'a Vault,
    pub run_id: &'a str,
    pub from: String,
}

/// The hidden tests of a run whose tester wrote some: where, and who wrote them.
pub fn hidden_of<'a>(store: &Store, run_id: &'a str, ws: &'a Workspace) -> Option<Hidden<'a>> {
    let vault = ws.vault.as_ref()?;
    let e = store.last_event(run_id, EventKind::Tester).ok()??;
    let r: TesterRecord = serde_json::from_value(e.data).ok()?;
    if r.files == 0 {
        return None;
    }
    let from = match &r.session_id {
        Some(s) => format!("{}, session {s}", r.who),
        None => r.who.clone(),
    };
    Some(Hidden {
        vault,
        run_id,
        from,
    })
}

/// Runs the hidden tests on the locked tree (`room` left synced to it): their calls as probes,
/// each function's apart so that a finding names its behaviour. The details of what fails go
/// to the private directory.
pub(crate) fn run(
    ws: &Workspace,
    seal: &Seal,
    repo: &Repo,
    room: &mut Room,
    base: &TreeHash,
    locked: &TreeHash,
    hidden: &Hidden<'_>,
) -> HiddenRun {
    let started = std::time::Instant::now();
    let files = test_files(&out_dir(hidden.vault, hidden.run_id));
    let mut out = HiddenRun {
        from: hidden.from.clone(),
        files: files.len(),
        ..HiddenRun::default()
    };
    let mut calls: Vec<syntax::Probe> = Vec::new();
    // What did not run, by kind only: the store (which a step reads) never gets a hidden
    // file's or test's name — a name can carry its input ("test_ordinal_of_112"). The names
    // go to the private directory with the rest of the details, for the user.
    let mut details: Vec<String> = Vec::new();
    let (mut unread_lang, mut unread, mut not_calls) = (0usize, 0usize, 0usize);
    for (name, text) in &files {
        let Some(lang) = Lang::of_path(Path::new(name)) else {
            unread_lang += 1;
            details.push(format!("not run: {name}: not a language pawl reads"));
            continue;
        };
        match syntax::extract_probes(lang, text) {
            Ok(p) => {
                calls.extend(p.probes.into_iter().map(|mut c| {
                    c.test = format!("hidden {name}: {}", c.test);
                    c
                }));
                not_calls += p.not_probed.len();
                details.extend(p.not_probed.iter().map(|n| {
                    format!(
                        "not run: {name}: {} (not a call with literal arguments)",
                        n.test
                    )
                }));
            }
            Err(e) => {
                unread += 1;
                details.push(format!("not run: {name}: cannot be read ({e})"));
            }
        }
    }
    for (n, what) in [
        (unread_lang, "file(s): not a language pawl reads"),
        (unread, "file(s): cannot be read"),
        (not_calls, "test(s): not a call with literal arguments"),
    ] {
        if n > 0 {
            out.not_run.push(format!("{n} {what}"));
        }
    }
    out.calls = calls.len();
    // The symbol index of the final tree: a guessed name it lacks is inconclusive.
    let defined = defined_names(repo, locked);
    let mut by_callee: Vec<(String, Vec<syntax::Probe>)> = Vec::new();
    for c in calls {
        let name = short(&c.callee).to_owned();
        // A method is looked up by its class (the index lists top-level names only): a
        // special case in a method must not pass as "a name the tester guessed".
        let guessed = c
            .receiver
            .as_ref()
            .map_or(name.as_str(), |r| r.class.as_str());
        if !defined.iter().any(|d| d == guessed) {
            if !out.inconclusive.contains(&format!("`{guessed}`")) {
                out.inconclusive.push(format!("`{guessed}`"));
            }
            continue;
        }
        match by_callee.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(c),
            None => by_callee.push((name, vec![c])),
        }
    }
    for (name, group) in &by_callee {
        let p = super::probes::run(ws, seal, repo, room, base, locked, group);
        out.probed += p.probed;
        if p.probed > 0 {
            out.answered.push(name.clone());
        }
        if !p.findings.is_empty() {
            out.failing.push(name.clone());
            details.extend(p.findings.iter().map(|f| format!("`{name}`: {f}")));
        }
        if p.probed == 0 {
            // Why its calls gave no answer may quote them (a compile error shows the call's
            // line): the store keeps the kind of reason, the private directory all of it.
            let why = p
                .unprobed
                .first()
                .cloned()
                .unwrap_or_else(|| "no answer".into());
            out.not_run.push(format!("`{name}`: {}", reason_kind(&why)));
            details.push(format!("`{name}` gave no answer: {why}"));
        }
    }
    out.ms = started.elapsed().as_millis() as u64;
    let path = details_path(hidden.vault, hidden.run_id, locked.as_str());
    if details.is_empty() {
        let _ = std::fs::remove_file(&path);
    } else {
        let _ = std::fs::write(&path, details.join("\n"));
    }
    out
}

/// What the hidden tests that failed on `tree` called and got, as kept in the private
/// directory: for the user only (`crate::report::reveal`), never for the store, a report under
/// the repository or a prompt. Empty without the vault (a sandboxed step has none).
pub fn details(vault: Option<&Vault>, run_id: &str, tree: &str) -> Vec<String> {
    vault
        .and_then(|v| std::fs::read_to_string(details_path(v, run_id, tree)).ok())
        .map(|t| t.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// The kind of a reason, without what it quotes: `` `f` (test_x): its call does not compile ``
/// of `` `f` (test_x): its call does not compile: error: … `f(2, 3)` … ``.
fn reason_kind(why: &str) -> String {
    why.splitn(3, ": ").take(2).collect::<Vec<_>>().join(": ")
}

/// The function a callee names (`calc.add` → `add`, `super::f` → `f`).
fn short(callee: &str) -> &str {
    callee.rsplit(['.', ':']).next().unwrap_or(callee)
}

/// The top-level functions and classes of every file of `tree` in a language pawl reads.
fn defined_names(repo: &Repo, tree: &TreeHash) -> Vec<String> {
    let paths = repo.tree_paths(tree.as_str()).unwrap_or_default();
    super::probes::definitions_in(repo, tree, paths.iter().take(5000).map(PathBuf::as_path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the store keeps of why a hidden test gave no answer: the kind, never what the
    /// reason quotes (a compile error shows the hidden call's line).
    #[test]
    fn a_reason_is_kept_without_what_it_quotes() {
        for (why, kept) in [
            (
                "`double`: its call does not compile: error[E0308]: `double(4321)` expected u64",
                "`double`: its call does not compile",
            ),
            (
                "`double`: its calls gave no answer",
                "`double`: its calls gave no answer",
            ),
            ("no answer", "no answer"),
        ] {
            assert_eq!(reason_kind(why), kept);
        }
    }
}
