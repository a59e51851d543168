//! What a set of tests exercises at the baseline, for scope (issue 35 point 2,
//! `pawl_core::scope`): the files their imports reach, transitively, read at the **baseline**
//! (the run cannot widen what its targeted tests exercised by adding an import to a test), and
//! what a changed file imports in the run's tree (a new module the fix uses joins the scope).
//!
//! Python, JavaScript/TypeScript and shell through the import reader of the locked run's
//! classifier (`imports`); Go: the test's package folder and the packages of its own module that
//! a file imports; Rust: the crate the test is in, whole (its modules are declared from the
//! crate root, so a test of the crate exercises the crate). Other files reach nothing further.
//! Coverage is not read here: a per-test coverage run is not made yet.

use std::collections::{BTreeMap, VecDeque};

use super::imports::imports_of;
use super::{Role, Roles, TreeFiles, Trees, parent};

/// At most this many files are reached by one walk.
const MAX_REACHED: usize = 20_000;

/// The files `starts` (path → why) reach at the baseline, with why, the starts included.
pub fn exercised(
    base: &dyn TreeFiles,
    fin: &dyn TreeFiles,
    roles: &Roles,
    starts: &[(String, String)],
) -> BTreeMap<String, String> {
    let trees = Trees::new(base, fin);
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    let mut queue: VecDeque<String> = VecDeque::new();
    for (path, why) in starts {
        if trees.in_base(path) && !found.contains_key(path) {
            found.insert(path.clone(), why.clone());
            queue.push_back(path.clone());
        }
    }
    while let Some(path) = queue.pop_front() {
        if found.len() > MAX_REACHED {
            break;
        }
        let Some(text) = trees.read_base(&path) else {
            continue;
        };
        let is_test = roles.role(std::path::Path::new(&path)) == Role::Test;
        for (target, why) in reached(&path, &text, &trees, roles, is_test, false) {
            if trees.in_base(&target) && !found.contains_key(&target) {
                found.insert(target.clone(), why);
                queue.push_back(target);
            }
        }
    }
    found
}

/// What each of `paths` imports in the run's tree (files of either tree).
pub fn imports_in_final(
    base: &dyn TreeFiles,
    fin: &dyn TreeFiles,
    roles: &Roles,
    paths: &[String],
) -> BTreeMap<String, Vec<String>> {
    let trees = Trees::new(base, fin);
    let mut out = BTreeMap::new();
    for path in paths {
        let Some(text) = trees.read(path) else {
            continue;
        };
        let is_test = roles.role(std::path::Path::new(path)) == Role::Test;
        let targets: Vec<String> = reached(path, &text, &trees, roles, is_test, true)
            .into_iter()
            .map(|(t, _)| t)
            .filter(|t| t != path)
            .collect();
        if !targets.is_empty() {
            out.insert(path.clone(), targets);
        }
    }
    out
}

/// The files one file reaches, with why; `fin`: in the run's tree, else the baseline's.
fn reached(
    path: &str,
    text: &str,
    trees: &Trees<'_>,
    roles: &Roles,
    is_test: bool,
    fin: bool,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = imports_of(path, text, trees, roles, is_test)
        .into_iter()
        .map(|t| (t, format!("imported by `{path}`")))
        .collect();
    let paths: &std::collections::BTreeSet<String> = if fin {
        &trees.fin_paths
    } else {
        &trees.base_paths
    };
    if path.ends_with(".go") {
        let dir = parent(path);
        let in_dir = |d: &str, p: &str| parent(p) == d && p.ends_with(".go");
        for p in paths.iter().filter(|p| in_dir(dir, p)) {
            out.push((p.clone(), format!("in the Go package of `{path}`")));
        }
        if let Some((mod_dir, module)) = go_module(path, trees, fin) {
            for import in quoted(text) {
                let Some(rest) = import.strip_prefix(&format!("{module}/")) else {
                    continue;
                };
                let d = if mod_dir.is_empty() {
                    rest.to_string()
                } else {
                    format!("{mod_dir}/{rest}")
                };
                for p in paths.iter().filter(|p| in_dir(&d, p)) {
                    out.push((p.clone(), format!("a package `{path}` imports")));
                }
            }
        }
    }
    if path.ends_with(".rs")
        && let Some(krate) = crate_dir(path, trees, fin)
    {
        let under = |p: &str| {
            p.ends_with(".rs")
                && (krate.is_empty() || p.starts_with(&format!("{krate}/")))
                && !p.starts_with("target/")
                && !p.contains("/target/")
        };
        for p in paths.iter().filter(|p| under(p)) {
            out.push((p.clone(), format!("in the crate of `{path}`")));
        }
    }
    out
}

/// The nearest folder above `path` (itself included) that has `name`, in the chosen tree.
fn nearest_with(path: &str, name: &str, trees: &Trees<'_>, fin: bool) -> Option<String> {
    let mut dir = parent(path).to_string();
    loop {
        let candidate = if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        };
        let has = if fin {
            trees.fin_paths.contains(&candidate)
        } else {
            trees.base_paths.contains(&candidate)
        };
        if has {
            return Some(dir);
        }
        if dir.is_empty() {
            return None;
        }
        dir = parent(&dir).to_string();
    }
}

/// The folder of the `go.mod` above `path` and its module path.
fn go_module(path: &str, trees: &Trees<'_>, fin: bool) -> Option<(String, String)> {
    let dir = nearest_with(path, "go.mod", trees, fin)?;
    let file = if dir.is_empty() {
        "go.mod".to_string()
    } else {
        format!("{dir}/go.mod")
    };
    let text = if fin {
        trees.read(&file)
    } else {
        trees.read_base(&file)
    }?;
    let module = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("module "))?
        .trim()
        .trim_matches('"')
        .to_string();
    Some((dir, module))
}

/// The folder of the crate (`Cargo.toml`) `path` belongs to.
fn crate_dir(path: &str, trees: &Trees<'_>, fin: bool) -> Option<String> {
    nearest_with(path, "Cargo.toml", trees, fin)
}

/// The double-quoted strings of a Go source (its import paths among them).
fn quoted(text: &str) -> Vec<&str> {
    text.split('"').skip(1).step_by(2).collect()
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::roles::RoleFacts;

    struct Mem(Vec<(&'static str, &'static str)>);

    impl TreeFiles for Mem {
        fn paths(&self) -> Vec<PathBuf> {
            self.0.iter().map(|(p, _)| PathBuf::from(p)).collect()
        }
        fn read(&self, path: &Path) -> Option<String> {
            self.0
                .iter()
                .find(|(p, _)| Path::new(p) == path)
                .map(|(_, t)| (*t).to_string())
        }
    }

    fn reach(base: &Mem, fin: &Mem, start: &str) -> Vec<String> {
        let roles = Roles::read(base, fin, &RoleFacts::default());
        exercised(base, fin, &roles, &[(start.to_string(), "targeted".into())])
            .into_keys()
            .collect()
    }

    #[test]
    fn python_imports_reach_transitively_and_an_untested_module_is_not_reached() {
        let base = Mem(vec![
            ("test_calc.py", "import unittest\nfrom calc import add\n"),
            (
                "calc.py",
                "from arith import plus\n\ndef add(a, b):\n    return plus(a, b)\n",
            ),
            ("arith.py", "def plus(a, b):\n    return a - b\n"),
            ("report.py", "def render(rows):\n    return ''\n"),
            (
                "test_report.py",
                "import unittest\nfrom report import render\n",
            ),
        ]);
        assert_eq!(
            reach(&base, &base, "test_calc.py"),
            ["arith.py", "calc.py", "test_calc.py"]
        );
        // A new module the run's calc.py imports: an edge in the run's tree.
        let fin = Mem(vec![
            ("test_calc.py", "import unittest\nfrom calc import add\n"),
            ("calc.py", "from helpers import plus\n"),
            ("helpers.py", "def plus(a, b):\n    return a + b\n"),
            ("arith.py", "def plus(a, b):\n    return a - b\n"),
        ]);
        let roles = Roles::read(&base, &fin, &RoleFacts::default());
        let edges = imports_in_final(&base, &fin, &roles, &["calc.py".to_string()]);
        assert_eq!(
            edges.get("calc.py").cloned().unwrap_or_default(),
            ["helpers.py"]
        );
    }

    #[test]
    fn go_reaches_its_package_and_the_modules_packages_it_imports() {
        let base = Mem(vec![
            ("go.mod", "module example.com/tbl\n\ngo 1.22\n"),
            ("table_test.go", "package tbl\n\nimport \"testing\"\n"),
            (
                "table.go",
                "package tbl\n\nimport \"example.com/tbl/internal/pad\"\n",
            ),
            ("internal/pad/pad.go", "package pad\n"),
            ("other/other.go", "package other\n"),
        ]);
        assert_eq!(
            reach(&base, &base, "table_test.go"),
            ["internal/pad/pad.go", "table.go", "table_test.go"]
        );
    }

    #[test]
    fn rust_reaches_the_crate_of_the_test() {
        let base = Mem(vec![
            ("Cargo.toml", "[workspace]\nmembers = [\"a\", \"b\"]\n"),
            ("a/Cargo.toml", "[package]\nname = \"a\"\n"),
            ("a/src/lib.rs", "mod x;\n"),
            ("a/src/x.rs", "pub fn f() {}\n"),
            ("a/tests/t.rs", "#[test] fn t() {}\n"),
            ("b/Cargo.toml", "[package]\nname = \"b\"\n"),
            ("b/src/lib.rs", "pub fn g() {}\n"),
        ]);
        assert_eq!(
            reach(&base, &base, "a/tests/t.rs"),
            ["a/src/lib.rs", "a/src/x.rs", "a/tests/t.rs"]
        );
    }

    #[test]
    fn a_shell_test_reaches_what_it_sources_and_runs() {
        let base = Mem(vec![
            ("test.sh", "#!/bin/sh\n. ./lib/path.sh\nsh bin/tool.sh x\n"),
            ("lib/path.sh", "path_ext() { :; }\n"),
            ("bin/tool.sh", "echo hi\n"),
            ("deploy.sh", "curl x\n"),
        ]);
        assert_eq!(
            reach(&base, &base, "test.sh"),
            ["bin/tool.sh", "lib/path.sh", "test.sh"]
        );
    }
}
