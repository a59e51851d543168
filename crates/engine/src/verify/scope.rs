//! Scope and public interface of a run's changes (issue 35 point 2; the rule is
//! `pawl_core::scope::judge`): which failing tests of the baseline the goal targets
//! (`crate::anchors`), the files those tests exercise at the baseline (`pawl_verify::roles::
//! exercised`: their imports, transitively; and the files their failures name), the paths the
//! goal names, what each changed file imports in the run's tree — then every change is in scope
//! or listed outside. The public interface: the exported symbols (`pawl_verify::syntax::exports`)
//! of every changed product file, before and after.
//!
//! Also here: what each failing test of the baseline exercises among the goal's terms
//! ([`read_exercises`], for `crate::anchors`: which failures a goal targets).
//!
//! Not here: the verdict (`pawl_core::proof::judge` reads `Proof::scope_review`), the report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pawl_core::scope::{self, ChangedFile, Facts, Interface, InterfaceChange, Scope};
use pawl_git::{ChangeKind, Repo};
use pawl_verify::roles::{self, Role, RoleFacts, Roles, TreeFiles};
use pawl_verify::syntax;

use super::locked::GitTree;
use crate::baseline::Baseline;

/// The most files searched for the definition of a test whose id names no file.
const MAX_SEARCHED: usize = 2_000;

/// The scope of the run's changes from `base` to `fin` and their public interface, from what
/// the goal targets (`anchoring`: `crate::anchors::of_run`); `None` when the trees cannot be read.
pub(super) fn of_run(
    root: &Path,
    goal: &str,
    baseline: &Baseline,
    anchoring: &pawl_core::spec::facts::Anchoring,
    fin: &str,
    limits: scope::Limits,
) -> Option<(Scope, Interface)> {
    let repo = Repo::open(root).ok()?;
    let base = baseline.tree.as_str();
    let changes = repo.changes_between(base, fin).ok()?;
    let lines: BTreeMap<String, u64> = match (
        pawl_git::CommitId::new(base.to_owned()),
        pawl_git::TreeHash::new(fin.to_owned()),
    ) {
        (Some(b), Some(f)) => repo
            .diff_stat_between(&b, &f)
            .map(|s| {
                s.files
                    .into_iter()
                    .map(|f| (f.path.display().to_string(), f.insertions + f.deletions))
                    .collect()
            })
            .unwrap_or_default(),
        _ => BTreeMap::new(),
    };
    let base_files = GitTree {
        repo: &repo,
        tree: base,
    };
    let fin_files = GitTree {
        repo: &repo,
        tree: fin,
    };
    let base_paths: Vec<PathBuf> = base_files.paths();

    // The targeted failing tests, and the files their failures name.
    let mut starts: Vec<(String, String)> = Vec::new();
    let mut reported: Vec<PathBuf> = Vec::new();
    for c in baseline.checks.iter().filter(|c| !c.passed) {
        let ids = pawl_core::record::failing_test_ids(&c.tests, &c.failing);
        let mut any = false;
        for id in ids {
            let item = pawl_core::against::FailureItem {
                tool: "tests".into(),
                rule: "failed".into(),
                file: String::new(),
                message: id.to_owned(),
            };
            if !anchoring.targets_item(&c.name, &item) {
                continue;
            }
            any = true;
            for f in test_files(id, &base_paths, &base_files) {
                reported.push(f.clone());
                starts.push((
                    f.display().to_string(),
                    format!("the targeted failing test `{id}`"),
                ));
            }
        }
        // A targeted check that names no test (a linter): the files of its items.
        let whole = anchoring.targets_check(&c.name) || any;
        if !whole {
            continue;
        }
        let mut text = c.first_failure.clone().unwrap_or_default();
        for i in c.items.iter().flatten() {
            text.push(' ');
            text.push_str(&i.file);
        }
        for p in named_in(&text, &base_paths) {
            starts.push((p, format!("named in the failure of `{}`", c.name)));
        }
    }
    let facts = RoleFacts {
        reported_test_files: reported,
        ..RoleFacts::default()
    };
    let roles = Roles::read(&base_files, &fin_files, &facts);
    let exercised = roles::exercised(&base_files, &fin_files, &roles, &starts);
    let named: Vec<String> = pawl_core::spec::facts::candidates(goal)
        .into_iter()
        .filter(|c| c.lookup == pawl_core::spec::facts::Lookup::Path)
        .map(|c| c.term)
        .filter(|t| {
            let t = t.trim_start_matches("./").trim_end_matches('/');
            base_paths.iter().chain(fin_files.paths().iter()).any(|p| {
                let p = p.to_string_lossy();
                p == t || p.ends_with(&format!("/{t}")) || p.starts_with(&format!("{t}/"))
            })
        })
        .collect();
    let changed: Vec<ChangedFile> = changes
        .iter()
        .map(|c| {
            let path = c.path.display().to_string();
            ChangedFile {
                lines: lines.get(&path).copied().unwrap_or(0),
                added: c.kind == ChangeKind::Added,
                test: roles.role(&c.path) == Role::Test,
                path,
            }
        })
        .collect();
    let present: Vec<String> = changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted)
        .map(|c| c.path.display().to_string())
        .collect();
    let imports = roles::imports_in_final(&base_files, &fin_files, &roles, &present);
    let judged = scope::judge(
        &Facts {
            exercised,
            named,
            imports,
            changes: changed,
        },
        limits,
    );
    // The public interface of the changed product files.
    let mut interface = Interface::default();
    for c in &changes {
        if roles.role(&c.path) != Role::Product {
            continue;
        }
        let Some(lang) = syntax::Lang::of_path(&c.path) else {
            continue;
        };
        let read = |t: &GitTree<'_>| t.read(&c.path);
        let exports = |text: Option<String>| match text {
            None => Ok(Default::default()),
            Some(t) => syntax::exports::exported(lang, &t),
        };
        match (exports(read(&base_files)), exports(read(&fin_files))) {
            (Ok(before), Ok(after)) => {
                let (removed, added) = syntax::exports::compare(&before, &after);
                if !removed.is_empty() || !added.is_empty() {
                    interface.changes.push(InterfaceChange {
                        path: c.path.display().to_string(),
                        removed,
                        added,
                    });
                }
            }
            _ => interface.unread.push(c.path.display().to_string()),
        }
    }
    Some((judged, interface))
}

/// The files of the baseline a failing test's id names: `tests/t.py::T::test_a` →
/// `tests/t.py`, unittest's `test_calc.Calc.test_add` → `test_calc.py`, `calc.test.js > adds`
/// → `calc.test.js`; an id that names no file (Go's `TestAdd`, Rust's `tests::adds`) → the
/// files that define a test of its last name.
fn test_files(id: &str, paths: &[PathBuf], tree: &GitTree<'_>) -> Vec<PathBuf> {
    let named = super::locked::test_files_of(id, paths);
    if !named.is_empty() {
        return named;
    }
    let name = id
        .rsplit(['.', ':', '/', '>', ' '])
        .find(|p| !p.is_empty())
        .unwrap_or(id)
        .split('[')
        .next()
        .unwrap_or("");
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Vec::new();
    }
    let shapes = [
        format!("fn {name}("),
        format!("func {name}("),
        format!("def {name}("),
        format!("'{name}'"),
        format!("\"{name}\""),
    ];
    paths
        .iter()
        .filter(|p| syntax::Lang::of_path(p).is_some())
        .take(MAX_SEARCHED)
        .filter(|p| {
            tree.read(p)
                .is_some_and(|t| shapes.iter().any(|s| t.contains(s.as_str())))
        })
        .cloned()
        .collect()
}

/// The files of `paths` a failure's text names (`File "/room/tree/calc.py", line 3`,
/// `src/lib.rs:12:5`, a linter item's file).
fn named_in(text: &str, paths: &[PathBuf]) -> Vec<String> {
    let mut out = Vec::new();
    for word in
        text.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')' | ',' | '`'))
    {
        let word = word.split(':').next().unwrap_or(word);
        if word.len() < 3 || !word.contains('.') {
            continue;
        }
        for p in paths {
            let p = p.to_string_lossy();
            if (word == p || word.ends_with(&format!("/{p}"))) && !out.contains(&p.to_string()) {
                out.push(p.to_string());
            }
        }
    }
    out
}

/// At most this many failing tests of a baseline are read for what they exercise (the others
/// keep `None`: their output decides).
const MAX_TESTS_READ: usize = 64;

/// At most this many files one failing test reaches are parsed for the names they hold.
const MAX_FILES_READ: usize = 400;

/// What each failing test of `failures` exercises at the baseline `tree` among the goal's terms
/// the repository has (`found`; issue 35 point 3): a path its imports reach (transitively,
/// within the repository: [`roles::exercised`]), a symbol it uses or that a module it reaches
/// holds (the parsed names of [`syntax::names_used`]). Left `None` where that cannot be read:
/// no file of the test found, or no import of it resolved to a file of the repository.
pub(crate) fn read_exercises(
    root: &Path,
    goal: &str,
    tree: &str,
    found: &std::collections::BTreeSet<String>,
    failures: &mut [pawl_core::spec::facts::BaselineFailure],
) {
    use pawl_core::spec::facts::{self, Lookup};
    if found.is_empty() || !failures.iter().any(|f| f.runs_tests && f.test.is_some()) {
        return;
    }
    let Ok(repo) = Repo::open(root) else {
        return;
    };
    let files = GitTree { repo: &repo, tree };
    let paths = files.paths();
    let terms: Vec<facts::Candidate> = facts::candidates(goal)
        .into_iter()
        .filter(|c| found.contains(&c.term))
        .collect();
    let mut of_test: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for f in failures
        .iter()
        .filter(|f| f.runs_tests)
        .take(MAX_TESTS_READ)
    {
        if let Some(id) = &f.test {
            of_test.insert(id.clone(), test_files(id, &paths, &files));
        }
    }
    let reported: Vec<PathBuf> = of_test.values().flatten().cloned().collect();
    let roles = Roles::read(
        &files,
        &files,
        &RoleFacts {
            reported_test_files: reported.clone(),
            ..RoleFacts::default()
        },
    );
    // The names each reached file holds, parsed once.
    let mut held: BTreeMap<String, Option<std::collections::BTreeSet<String>>> = BTreeMap::new();
    for f in failures
        .iter_mut()
        .filter(|f| f.runs_tests)
        .take(MAX_TESTS_READ)
    {
        let Some(id) = f.test.clone() else {
            continue;
        };
        let own = of_test.get(&id).cloned().unwrap_or_default();
        let starts: Vec<(String, String)> = own
            .iter()
            .map(|p| (p.display().to_string(), format!("the failing test `{id}`")))
            .collect();
        let reached = roles::exercised(&files, &files, &roles, &starts);
        let is_own = |p: &str| own.iter().any(|o| o.as_path() == Path::new(p));
        if own.is_empty() || reached.keys().all(|p| is_own(p)) {
            continue;
        }
        let mut names: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        for t in &own {
            if let (Some(lang), Some(text)) = (syntax::Lang::of_path(t), files.read(t))
                && let Ok(used) = syntax::names_used(lang, &text, Some(id.as_str()))
            {
                names.extend(used.names);
            }
        }
        for p in reached
            .keys()
            .filter(|p| !is_own(p) && !reported.iter().any(|r| r.as_path() == Path::new(p)))
            .take(MAX_FILES_READ)
        {
            let n = held.entry(p.clone()).or_insert_with(|| {
                let path = Path::new(p);
                let lang = syntax::Lang::of_path(path)?;
                let text = files.read(path)?;
                syntax::names_used(lang, &text, None).ok().map(|u| u.names)
            });
            if let Some(n) = n {
                names.extend(n.iter().cloned());
            }
        }
        let exercised: std::collections::BTreeSet<String> = terms
            .iter()
            .filter(|c| match c.lookup {
                Lookup::Path => {
                    let t = c.term.trim_start_matches("./").trim_end_matches('/');
                    reached.keys().any(|p| {
                        p == t || p.ends_with(&format!("/{t}")) || p.starts_with(&format!("{t}/"))
                    })
                }
                Lookup::Word | Lookup::Definition => {
                    names.contains(crate::anchors::last_identifier(&c.term))
                }
            })
            .map(|c| c.term.clone())
            .collect();
        f.exercises = Some(exercised);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_a_failure_names() {
        let paths: Vec<PathBuf> = ["calc.py", "src/lib.rs", "tests/t.py", "README.md"]
            .iter()
            .map(PathBuf::from)
            .collect();
        let text = "Traceback (most recent call last):\n  File \"/home/u/.local/state/pawl/rooms/r/tree/calc.py\", line 3, in add\n thread 'x' panicked at src/lib.rs:12:5:";
        assert_eq!(named_in(text, &paths), ["calc.py", "src/lib.rs"]);
        assert!(named_in("AssertionError: 5 != -1", &paths).is_empty());
    }
}
