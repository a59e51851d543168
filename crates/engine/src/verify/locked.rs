//! The locked run (docs/verification.md, "Locked evaluation"): when the checks pass on the run's
//! tree, what decides is the baseline's tests, under the baseline's configuration, on a tree made
//! of the baseline plus **the run's changes to product source and declarations** alone — every
//! other change the run made (its tests, runner and build configuration, dotfiles, …) is left
//! out. Which path is which is `pawl_verify::roles`. The locked tree runs in a room of its own,
//! synced from nothing but that tree, and the checks whose tests decide run `Seal::runs` times
//! in all: a result that differs is NONDETERMINISTIC.
//!
//! What this module returns is a [`LockedRun`]: the result `pawl_core::proof::judge` reads
//! (`Proof::locked`) and what the report shows (taken and left-out changes, the lines that
//! decided).

use std::path::{Path, PathBuf};

use pawl_core::proof::Locked;
use pawl_core::record::{TestOutcome, TestStatus};
use pawl_core::seal::{CheckRole, Seal};
use pawl_git::{Repo, TreeEdit, TreeHash};
use pawl_verify::gate::Check;
use pawl_verify::roles::{self, Role, RoleFacts, Roles, TreeFiles};
use pawl_verify::{CheckEnd, CheckRun};
use serde::{Deserialize, Serialize};

use super::Item;
use crate::baseline::{Baseline, BaselineCheck};
use crate::workspace::Workspace;

/// The largest file the classifier and the manifest merge read.
const MAX_READ: usize = 1 << 20;
/// The most changed lines of a left-out change's diff the report keeps.
const MAX_DIFF_BYTES: usize = 8 * 1024;

/// What the locked run found, as stored with the verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedRun {
    pub result: Locked,
    /// The run's tree the locked tree was made from.
    pub from_tree: String,
    /// The baseline tree it was made on.
    pub base_tree: String,
    /// The locked tree.
    pub tree: String,
    /// The run's changes taken into it: `path (why)`.
    pub taken: Vec<String>,
    /// The run's changes left out of it, each with its role and diff.
    pub left_out: Vec<LeftOut>,
    /// What decided, in words.
    pub lines: Vec<String>,
    /// How many times the deciding checks ran on the locked tree.
    pub runs: u32,
    /// Findings of the classification (a local path dependency outside the repository, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
}

/// A change of the run the locked tree leaves out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    pub path: String,
    /// `test` or `other` (configuration, dotfiles, …), and why.
    pub role: String,
    /// Its diff against the baseline, cut at [`MAX_DIFF_BYTES`].
    pub diff: String,
}

impl LockedRun {
    /// The question the report asks when the checks pass only with the run's other changes.
    pub fn question(&self) -> Option<String> {
        // A locked run that could not be made (no tree) asks nothing: its finding says why.
        if self.result != Locked::NeedsOtherChanges || self.tree.is_empty() {
            return None;
        }
        let paths: Vec<String> = self
            .left_out
            .iter()
            .take(5)
            .map(|l| format!("`{}`", l.path))
            .collect();
        Some(format!(
            "the tests pass only with the run's change to {}: is it part of the work? (accept with `pawl accept --changes \"<why>\"`, or send the work back)",
            if paths.is_empty() {
                "files outside product source".to_string()
            } else {
                paths.join(", ")
            }
        ))
    }
}

/// A git tree as the classifier reads it.
struct GitTree<'a> {
    repo: &'a Repo,
    tree: &'a str,
}

impl TreeFiles for GitTree<'_> {
    fn paths(&self) -> Vec<PathBuf> {
        self.repo.tree_paths(self.tree).unwrap_or_default()
    }

    fn read(&self, path: &Path) -> Option<String> {
        self.repo
            .blob_text(self.tree, path, MAX_READ)
            .ok()
            .flatten()
    }
}

/// The files in which the runner reported a test at the baseline (`tests/test_x.py::test_a`,
/// `src/calc.test.js > adds`): a test's id up to its first separator, when that names a file.
fn reported_test_files(baseline: &Baseline, paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for t in baseline.checks.iter().flat_map(|c| c.tests.iter()) {
        let end = ["::", " > ", " ", "#"]
            .iter()
            .filter_map(|sep| t.id.find(sep))
            .min()
            .unwrap_or(t.id.len());
        let head = &t.id[..end];
        let head = Path::new(head);
        if paths.iter().any(|p| p == head) && !files.iter().any(|f| f == head) {
            files.push(head.to_path_buf());
        }
    }
    files
}

/// The files the sealed checks' commands name (`sh test.sh`, `bash ci/check.sh`): part of the
/// check, never the run's product, whatever they are called.
fn check_files(seal: &Seal, repo: &Repo, base: &str) -> Vec<PathBuf> {
    named_files(seal.checks.iter().map(|c| c.command.as_str()), repo, base)
}

/// The files of `tree` that the shell `commands` name as words.
fn named_files<'a>(
    commands: impl Iterator<Item = &'a str>,
    repo: &Repo,
    tree: &str,
) -> Vec<PathBuf> {
    let words: Vec<String> = commands
        .flat_map(|c| {
            c.split(|ch: char| {
                ch.is_whitespace() || matches!(ch, ';' | '&' | '|' | '(' | ')' | '\'' | '"')
            })
            .map(|w| w.trim_start_matches("./").to_owned())
            .collect::<Vec<_>>()
        })
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        return Vec::new();
    }
    repo.tree_paths(tree)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| words.iter().any(|w| Path::new(w) == p))
        .collect()
}

/// Why the locked tree could not be made or run: the verification then cannot end SHIP.
#[derive(Debug, thiserror::Error)]
pub enum LockedError {
    #[error("git: {0}")]
    Git(#[from] pawl_git::Error),
    #[error(transparent)]
    Room(#[from] crate::room::RoomError),
    #[error("{0}")]
    Roles(String),
}

/// What the run changed, split by role, and the locked tree made from it.
struct Split {
    tree: TreeHash,
    taken: Vec<String>,
    left_out: Vec<LeftOut>,
    findings: Vec<String>,
}

fn split(
    repo: &Repo,
    base: &str,
    fin: &str,
    baseline: &Baseline,
    facts: RoleFacts,
    user_paths: &[PathBuf],
    check_files: &[PathBuf],
) -> Result<Split, LockedError> {
    let changes = repo.changes_between(base, fin)?;
    let base_files = GitTree { repo, tree: base };
    let fin_files = GitTree { repo, tree: fin };
    let mut facts = facts;
    // The files the checks run are where the tests are: what they import is the product.
    facts.reported_test_files = reported_test_files(baseline, &base_files.paths());
    facts
        .reported_test_files
        .extend(check_files.iter().cloned());
    let roles = Roles::read(&base_files, &fin_files, &facts);
    let mut edits = Vec::new();
    let mut taken = Vec::new();
    let mut left_out = Vec::new();
    for c in &changes {
        let path = c.path.clone();
        let shown = path.display().to_string();
        if user_paths.contains(&path) {
            taken.push(format!("{shown} (the user's change, `pawl user-fixed`)"));
            edits.push(TreeEdit::Take(path));
            continue;
        }
        // A file a sealed check's command names is part of the check.
        let role = if check_files.contains(&path) {
            Role::Test
        } else {
            roles.role(&path)
        };
        match role {
            Role::Product => {
                taken.push(format!("{shown} ({})", roles.why(&path)));
                edits.push(TreeEdit::Take(path));
            }
            Role::Declaration => {
                let old = base_files.read(&path);
                let new = fin_files.read(&path);
                // An added manifest brings its declarations only, a deleted one keeps the
                // baseline's other keys: the missing side is empty.
                let merged = roles::merge_declarations(
                    &path,
                    old.as_deref().unwrap_or(""),
                    new.as_deref().unwrap_or(""),
                )
                .map_err(|e| LockedError::Roles(format!("{shown}: {e}")))?;
                let as_before = old.as_deref().unwrap_or("");
                match merged {
                    Some(text) if text == as_before => {
                        // Only keys outside the declarations changed: all of it is left out.
                        left_out.push(left(repo, base, fin, &path, "other", &roles));
                    }
                    Some(text) => {
                        taken.push(format!("{shown} (its declarations: {})", roles.why(&path)));
                        if Some(text.as_str()) != new.as_deref() {
                            left_out.push(left(
                                repo,
                                base,
                                fin,
                                &path,
                                "other (its keys outside the declarations)",
                                &roles,
                            ));
                        }
                        if text.is_empty() && new.is_none() {
                            edits.push(TreeEdit::Take(path));
                        } else {
                            edits.push(TreeEdit::Write(path, text.into_bytes()));
                        }
                    }
                    None => {
                        taken.push(format!("{shown} ({})", roles.why(&path)));
                        edits.push(TreeEdit::Take(path));
                    }
                }
            }
            Role::Test => left_out.push(left(repo, base, fin, &path, "test", &roles)),
            Role::Other => left_out.push(left(repo, base, fin, &path, "other", &roles)),
        }
    }
    let tree = repo.edited_tree(base, fin, &edits)?;
    Ok(Split {
        tree,
        taken,
        left_out,
        findings: roles.findings(),
    })
}

fn left(repo: &Repo, base: &str, fin: &str, path: &Path, role: &str, roles: &Roles) -> LeftOut {
    let mut diff = repo
        .diff_patch_path(base, fin, path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    if diff.len() > MAX_DIFF_BYTES {
        let mut cut = MAX_DIFF_BYTES;
        while !diff.is_char_boundary(cut) {
            cut -= 1;
        }
        diff.truncate(cut);
        diff.push_str("\n… (cut)\n");
    }
    LeftOut {
        path: path.display().to_string(),
        role: format!("{role}: {}", roles.why(path)),
        diff,
    }
}

/// The sealed checks the locked run runs: the seal's (gates, acceptance, hidden), never a
/// criterion planned during the run (that is the run's own test, not the baseline's).
fn sealed_checks(items: &[Item], seal: &Seal) -> Vec<Check> {
    items
        .iter()
        .filter(|i| i.skipped.is_none())
        .filter(|i| seal.checks.iter().any(|c| c.name == i.name))
        .filter_map(|i| {
            let sealed = seal.checks.iter().find(|c| c.name == i.name)?;
            // A hidden check's command is in the vault; the item's is its code.
            if sealed.role == CheckRole::Hidden {
                return None;
            }
            Some(Check::gate(i.name.clone(), i.command.clone()))
        })
        .collect()
}

/// Runs the locked run. `items` are the final verification's (all accepted); `hidden` the
/// hidden checks, with their commands from the vault.
pub(crate) fn run(
    ws: &Workspace,
    goal: &str,
    seal: &Seal,
    baseline: &Baseline,
    final_tree: &str,
    items: &[Item],
    hidden: &[Check],
    user_paths: &[PathBuf],
) -> Result<LockedRun, LockedError> {
    let repo = Repo::open(&ws.root)?;
    let checks = check_files(seal, &repo, &baseline.tree);
    let criteria: Vec<String> = items
        .iter()
        .filter(|i| i.name.starts_with(pawl_verify::gate::CRITERION_PREFIX))
        .map(|i| i.command.clone())
        .collect();
    let facts = RoleFacts {
        criteria_files: named_files(criteria.iter().map(String::as_str), &repo, final_tree),
        ..RoleFacts::default()
    };
    let s = split(
        &repo,
        &baseline.tree,
        final_tree,
        baseline,
        facts,
        user_paths,
        &checks,
    )?;
    let mut out = LockedRun {
        result: Locked::Holds,
        from_tree: final_tree.to_owned(),
        base_tree: baseline.tree.clone(),
        tree: s.tree.to_string(),
        taken: s.taken,
        left_out: s.left_out,
        lines: Vec::new(),
        runs: 0,
        findings: s.findings,
    };
    if out.tree == baseline.tree {
        out.result = Locked::NothingChanged;
        out.lines.push(
            "the run changed no product source or declaration: the code under test is the baseline's"
                .into(),
        );
        return Ok(out);
    }
    let mut checks = sealed_checks(items, seal);
    checks.extend(hidden.iter().cloned());
    if checks.is_empty() {
        return Ok(out);
    }
    // The room of the locked run sits beside the verification's; without one (checks in
    // place), in a temporary directory: the locked run is never skipped.
    let temp;
    let dir = match &ws.room {
        Some(room_dir) => {
            let name = room_dir
                .file_name()
                .map(|n| format!("{}-locked", n.to_string_lossy()))
                .unwrap_or_else(|| "locked".into());
            room_dir.with_file_name(name)
        }
        None => {
            temp = tempfile::Builder::new()
                .prefix("pawl-locked-")
                .tempdir()
                .map_err(|e| LockedError::Roles(format!("a temporary room: {e}")))?;
            temp.path().join("room")
        }
    };
    let mut room = crate::room::Room::open(&repo, &dir)?;
    let run_on = |room: &mut crate::room::Room,
                  tree: &TreeHash,
                  checks: &[Check]|
     -> Result<Vec<CheckRun>, LockedError> {
        room.sync(&repo, tree)?;
        let mut cfg = crate::baseline::runner_for(ws, seal, super::now_ms());
        cfg.in_room(&ws.root, room.root());
        if let Some(state) = room.environment() {
            let view = cfg.root.clone();
            crate::baseline::in_room_env(&mut cfg, &state, &view, seal);
        }
        Ok(crate::baseline::run_sealed(ws, Some(seal), checks, &cfg))
    };
    let first = run_on(&mut room, &s.tree, &checks)?;
    out.runs = 1;
    let anchoring = crate::anchors::of_run(&ws.root, goal, baseline);
    let mut failing: Vec<(&CheckRun, Vec<String>)> = Vec::new();
    for r in &first {
        let before = baseline.check(&r.check.name);
        let mut why = judge_check(r, before, items, &anchoring);
        if why.is_empty() {
            continue;
        }
        why.sort();
        failing.push((r, why));
    }
    // A test that passed at the baseline and fails on the locked tree is tried on the baseline
    // tree again: failing there too, it is flaky and does not block.
    if !failing.is_empty() {
        let base_tree = TreeHash::new(baseline.tree.clone())
            .ok_or_else(|| LockedError::Roles("the baseline tree id is malformed".into()))?;
        let again: Vec<Check> = failing.iter().map(|(r, _)| r.check.clone()).collect();
        let on_base = run_on(&mut room, &base_tree, &again)?;
        failing.retain(|(r, _)| {
            let now_failing = failing_tests(r);
            let Some(b) = on_base.iter().find(|b| b.check.name == r.check.name) else {
                return true;
            };
            let base_failing = failing_tests(b);
            // Only tests that passed at the baseline can be flaky: one that failed there is
            // the work the run was to do.
            let passed_before = |id: &String| {
                baseline.check(&r.check.name).is_some_and(|c| {
                    c.tests
                        .iter()
                        .any(|t| t.id == *id && t.status == TestStatus::Passed)
                })
            };
            let flaky = !now_failing.is_empty()
                && now_failing
                    .iter()
                    .all(|t| base_failing.contains(t) && passed_before(t));
            if flaky {
                out.lines.push(format!(
                    "`{}`: {} failed on the locked tree and on the baseline tree again: flaky, not blocking",
                    r.check.name,
                    now_failing.join(", ")
                ));
            }
            !flaky
        });
    }
    if !failing.is_empty() {
        out.result = Locked::NeedsOtherChanges;
        for (r, why) in &failing {
            out.lines.push(format!(
                "`{}` on the baseline's tests with only the run's product changes: {}",
                r.check.name,
                why.join("; ")
            ));
        }
        return Ok(out);
    }
    // The repeats: the checks whose tests decide (failing at the baseline), by the same tree,
    // each from a freshly synced room.
    let deciding: Vec<Check> = first
        .iter()
        .filter(|r| baseline.check(&r.check.name).is_some_and(|b| !b.passed))
        .map(|r| r.check.clone())
        .collect();
    if deciding.is_empty() {
        return Ok(out);
    }
    for _ in 1..seal.runs.max(1) {
        let again = run_on(&mut room, &s.tree, &deciding)?;
        out.runs += 1;
        for r in &again {
            let Some(was) = first.iter().find(|f| f.check.name == r.check.name) else {
                continue;
            };
            let diff = differences(was, r);
            if !diff.is_empty() {
                out.result = Locked::Differs;
                out.lines.push(format!(
                    "`{}` gave another result on the same locked tree in run {}: {}",
                    r.check.name,
                    out.runs,
                    diff.join("; ")
                ));
            }
        }
        if out.result == Locked::Differs {
            break;
        }
    }
    Ok(out)
}

fn outcomes(r: &CheckRun) -> &[TestOutcome] {
    r.tests.as_ref().map(|t| t.tests.as_slice()).unwrap_or(&[])
}

fn failing_tests(r: &CheckRun) -> Vec<String> {
    let mut ids: Vec<String> = outcomes(r)
        .iter()
        .filter(|o| o.status == TestStatus::Failed)
        .map(|o| o.id.clone())
        .collect();
    if ids.is_empty()
        && let Some(t) = &r.tests
    {
        ids = t.failing.clone();
    }
    ids
}

/// Why one check's locked result does not hold, empty when it does: it fails (and is not "no
/// worse than the baseline" as the run's tree was), a test the baseline collected is missing,
/// or is skipped now.
fn judge_check(
    r: &CheckRun,
    before: Option<&BaselineCheck>,
    items: &[Item],
    anchoring: &pawl_core::spec::facts::Anchoring,
) -> Vec<String> {
    let mut why = Vec::new();
    if matches!(r.end, CheckEnd::Skipped { .. }) {
        why.push(format!("not run: {}", r.end.describe()));
        return why;
    }
    if !r.passed {
        let no_worse_on_run = items
            .iter()
            .any(|i| i.name == r.check.name && !i.passed() && i.accepted());
        let no_worse_here = no_worse_on_run
            && before.is_some_and(|b| {
                let name = r.check.name.clone();
                let targeted =
                    |i: &pawl_core::against::FailureItem| anchoring.targets_item(&name, i);
                matches!(
                    pawl_core::against::judge(b.items.as_deref(), r.items.as_deref(), &targeted),
                    pawl_core::against::Judgement::NoWorse { .. }
                )
            });
        if !no_worse_here {
            let tests = failing_tests(r);
            why.push(if tests.is_empty() {
                format!("fails ({})", r.end.describe())
            } else {
                format!(
                    "fails: {}",
                    tests.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
                )
            });
        }
    }
    let now = outcomes(r);
    if let Some(b) = before
        && !now.is_empty()
    {
        let missing: Vec<&str> = b
            .tests
            .iter()
            .filter(|t| !now.iter().any(|o| o.id == t.id))
            .map(|t| t.id.as_str())
            .take(8)
            .collect();
        if !missing.is_empty() {
            why.push(format!(
                "tests the baseline collected are not run: {}",
                missing.join(", ")
            ));
        }
        let skipped: Vec<&str> = b
            .tests
            .iter()
            .filter(|t| !matches!(t.status, TestStatus::Skipped | TestStatus::XFailed))
            .filter(|t| {
                now.iter().any(|o| {
                    o.id == t.id && matches!(o.status, TestStatus::Skipped | TestStatus::XFailed)
                })
            })
            .map(|t| t.id.as_str())
            .take(8)
            .collect();
        if !skipped.is_empty() {
            why.push(format!("skipped now, not before: {}", skipped.join(", ")));
        }
    }
    why
}

/// How two runs of one check on the same tree differ: pass/fail, or a test's status.
fn differences(a: &CheckRun, b: &CheckRun) -> Vec<String> {
    let mut d = Vec::new();
    if a.passed != b.passed {
        d.push(format!(
            "{} then {}",
            if a.passed { "passed" } else { "failed" },
            if b.passed { "passed" } else { "failed" }
        ));
    }
    for t in outcomes(a) {
        if let Some(o) = outcomes(b).iter().find(|o| o.id == t.id)
            && o.status != t.status
        {
            d.push(format!("{}: {:?} then {:?}", t.id, t.status, o.status));
        }
    }
    d.truncate(8);
    d
}
