//! The package **as its users get it** (issue 33 point 1, "Where"; docs/verification.md,
//! "Probes"): what a probe's interpreter may import besides the standard library — the package
//! itself, laid out as an install lays it out (no test file beside it), and its **runtime
//! dependency closure**, read offline from the installed distributions' metadata — never the
//! test runner, the development dependencies, the extras or the groups only tests use.
//!
//! This module reads (pure functions of texts and path lists, plus [`read_site`], which reads
//! one site-packages directory); pawl-engine's probes build the directory the interpreter
//! starts in from what it says.
//!
//! Python: a distribution is a `*.dist-info` directory (`METADATA`: `Name`, `Requires-Dist`;
//! `RECORD`: the files it installed) or an `*.egg-info` one (`PKG-INFO`, `requires.txt` before
//! its first `[extra]` section, `top_level.txt`). A requirement whose marker names an `extra`
//! is an extra's, never followed; other markers (`python_version < "3.8"`) are kept — a
//! distribution the marker excludes is usually not installed, and one that is installed is
//! harmless to link. The package's own runtime requirements are, in order: `pyproject.toml`'s
//! `[project] dependencies` (unless `dynamic`) or `[tool.poetry.dependencies]`; the installed
//! distribution of the package (its name, or an editable install of the repository); a
//! `requirements.txt`. A project that declares none gets every installed distribution but the
//! test tools ([`TEST_TOOLS`]) and what only they require.
//!
//! Node: `dependencies`, `optionalDependencies` and `peerDependencies` of the root
//! `package.json` — never `devDependencies`.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The distributions a project that declares no runtime requirement is probed without: test
/// runners, their plugins (`pytest-*`) and test-only tools. What only these require goes with
/// them (pytest's `pluggy`, `iniconfig`).
pub const TEST_TOOLS: &[&str] = &[
    "pytest",
    "pytest-*",
    "hypothesis",
    "nose",
    "nose2",
    "coverage",
    "tox",
    "nox",
    "freezegun",
    "time-machine",
    "responses",
    "pyfakefs",
    "testfixtures",
    "mypy",
    "ruff",
    "black",
    "flake8",
    "pylint",
];

/// A distribution name normalized as PEP 503 says (`Foo_Bar.baz` → `foo-bar-baz`).
pub fn normalize(name: &str) -> String {
    let mut out = String::new();
    let mut sep = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
            continue;
        }
        if sep && !out.is_empty() {
            out.push('-');
        }
        sep = false;
        out.extend(c.to_lowercase());
    }
    out
}

/// The normalized name of a PEP 508 requirement (`Requires-Dist`, a `dependencies` item, a
/// `requirements.txt` line), or `None` when it is an extra's (its marker names `extra`) or
/// names nothing.
pub fn requirement(line: &str) -> Option<String> {
    let line = line.split(" #").next().unwrap_or(line).trim();
    let (spec, marker) = match line.split_once(';') {
        Some((s, m)) => (s, m),
        None => (line, ""),
    };
    let marker: String = marker.chars().filter(|c| !c.is_whitespace()).collect();
    if marker.contains("extra==") || marker.contains("extra!=") || marker.contains("extrain") {
        return None;
    }
    let name: String = spec
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some(normalize(&name))
}

/// `Name` and the runtime `Requires-Dist` names of a `METADATA` (or `PKG-INFO`) text: its
/// header only, up to the first empty line.
pub fn read_metadata(text: &str) -> (Option<String>, Vec<String>) {
    let mut name = None;
    let mut requires = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Name:") {
            name = Some(normalize(v));
        } else if let Some(v) = line.strip_prefix("Requires-Dist:")
            && let Some(r) = requirement(v)
            && !requires.contains(&r)
        {
            requires.push(r);
        }
    }
    (name, requires)
}

/// The runtime requirements of an egg's `requires.txt`: the lines before its first
/// `[section]` (each section is an extra's or a marker's; a marker-only section, `[:python_version
/// < "3.8"]`, is kept).
pub fn read_requires_txt(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut on = true;
    for line in text.lines() {
        let l = line.trim();
        if let Some(section) = l.strip_prefix('[') {
            on = section.starts_with(':');
            continue;
        }
        if on
            && let Some(r) = requirement(l)
            && !out.contains(&r)
        {
            out.push(r);
        }
    }
    out
}

/// The paths a `RECORD` lists, relative to its site directory (`../../bin/x` and the like
/// kept out: scripts are not importable).
pub fn record_files(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let path = if let Some(rest) = l.strip_prefix('"') {
                rest.split_once('"')?.0
            } else {
                l.split(',').next()?
            };
            let path = path.trim();
            (!path.is_empty() && !path.starts_with("..") && !path.starts_with('/'))
                .then(|| path.to_owned())
        })
        .collect()
}

/// One installed distribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dist {
    /// Normalized name.
    pub name: String,
    /// Normalized names of its runtime requirements.
    pub requires: Vec<String>,
    /// The site directory it is installed in (as the probe's processes see it).
    pub site: PathBuf,
    /// Its metadata directory's name (`six-1.16.0.dist-info`).
    pub meta: String,
    /// What it installed, relative to `site` (its metadata directory included).
    pub files: Vec<String>,
    /// The directory an editable install of it maps to (`direct_url.json`'s `file://` url with
    /// `dir_info.editable`).
    pub editable: Option<PathBuf>,
}

impl Dist {
    /// The importable top-level names it provides (`six`, `jsonpointer`, `_cffi_backend`).
    pub fn modules(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for f in &self.files {
            let top = f.split('/').next().unwrap_or(f);
            if top.ends_with(".dist-info") || top.ends_with(".egg-info") || top == "__pycache__" {
                continue;
            }
            let name = top.split('.').next().unwrap_or(top);
            if top.ends_with(".pth") || name.is_empty() {
                continue;
            }
            if !out.iter().any(|o| o == name) {
                out.push(name.to_owned());
            }
        }
        out
    }
}

/// The distributions installed in one site directory: `host` is where pawl reads it, `seen`
/// where the probe's processes see it (the same path unless the room is mounted elsewhere).
pub fn read_site(host: &Path, seen: &Path) -> Vec<Dist> {
    let Ok(entries) = std::fs::read_dir(host) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    names.sort();
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    let mut out = Vec::new();
    for meta in &names {
        let dir = host.join(meta);
        if meta.ends_with(".dist-info") {
            let (name, requires) = read_metadata(&read(dir.join("METADATA")));
            let Some(name) = name.or_else(|| meta.split('-').next().map(normalize)) else {
                continue;
            };
            let mut files = record_files(&read(dir.join("RECORD")));
            if !files.iter().any(|f| f.starts_with(&format!("{meta}/"))) {
                files.push(format!("{meta}/METADATA"));
            }
            out.push(Dist {
                name,
                requires,
                site: seen.to_path_buf(),
                meta: meta.clone(),
                files,
                editable: editable_dir(&read(dir.join("direct_url.json"))),
            });
        } else if meta.ends_with(".egg-info") && dir.is_dir() {
            let (name, _) = read_metadata(&read(dir.join("PKG-INFO")));
            let Some(name) = name.or_else(|| meta.split('-').next().map(normalize)) else {
                continue;
            };
            let requires = read_requires_txt(&read(dir.join("requires.txt")));
            let mut files = vec![format!("{meta}/PKG-INFO")];
            for top in read(dir.join("top_level.txt")).lines().map(str::trim) {
                if top.is_empty() {
                    continue;
                }
                for n in &names {
                    let stem = n.split('.').next().unwrap_or(n);
                    let module = n == top
                        || n == &format!("{top}.py")
                        || (stem == top && (n.ends_with(".so") || n.ends_with(".pyd")));
                    if module {
                        files.push(n.clone());
                    }
                }
            }
            out.push(Dist {
                name,
                requires,
                site: seen.to_path_buf(),
                meta: meta.clone(),
                files,
                editable: None,
            });
        }
    }
    out
}

/// The directory of an editable install named by a `direct_url.json`.
pub fn editable_dir(text: &str) -> Option<PathBuf> {
    let v: Value = serde_json::from_str(text).ok()?;
    let editable = v
        .get("dir_info")
        .and_then(|d| d.get("editable"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let url = v.get("url")?.as_str()?;
    let path = url.strip_prefix("file://")?;
    editable.then(|| PathBuf::from(path))
}

/// The distributions of `dists` that `roots` require, directly or through each other (each
/// name taken from the first distribution of that name: sys.path's order), as indexes.
pub fn closure(dists: &[Dist], roots: &[String]) -> Vec<usize> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut out: Vec<usize> = Vec::new();
    let mut todo: Vec<String> = roots.iter().map(|r| normalize(r)).collect();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(i) = dists.iter().position(|d| d.name == name) {
            out.push(i);
            todo.extend(dists[i].requires.iter().cloned());
        }
    }
    out.sort_unstable();
    out
}

fn is_test_tool(name: &str) -> bool {
    TEST_TOOLS.iter().any(|t| match t.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == *t,
    })
}

/// For a project that declares no runtime requirement: every distribution but the test tools
/// and what only they require (as indexes).
pub fn without_test_tools(dists: &[Dist]) -> Vec<usize> {
    let names =
        |ix: &[usize]| -> HashSet<String> { ix.iter().map(|i| dists[*i].name.clone()).collect() };
    let tools: Vec<String> = dists
        .iter()
        .filter(|d| is_test_tool(&d.name))
        .map(|d| d.name.clone())
        .collect();
    let of_tools = names(&closure(dists, &tools));
    // The others' roots: what no distribution requires, test tools aside (pytest's
    // `pluggy` is required, so it is no root of its own).
    let required: HashSet<&str> = dists
        .iter()
        .flat_map(|d| d.requires.iter().map(String::as_str))
        .collect();
    let roots: Vec<String> = dists
        .iter()
        .filter(|d| !is_test_tool(&d.name) && !required.contains(d.name.as_str()))
        .map(|d| d.name.clone())
        .collect();
    let kept = names(&closure(dists, &roots));
    (0..dists.len())
        .filter(|i| {
            let n = &dists[*i].name;
            kept.contains(n) || !of_tools.contains(n)
        })
        .collect()
}

/// What a `pyproject.toml` says of the package: its name, and its runtime requirements
/// (`None` when it does not say them: no `[project]`, or `dependencies` is `dynamic`).
pub fn pyproject(text: &str) -> (Option<String>, Option<Vec<String>>) {
    let Ok(doc) = text.parse::<toml::Table>() else {
        return (None, None);
    };
    if let Some(project) = doc.get("project").and_then(toml::Value::as_table) {
        let name = project
            .get("name")
            .and_then(toml::Value::as_str)
            .map(normalize);
        let dynamic = project
            .get("dynamic")
            .and_then(toml::Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v.as_str() == Some("dependencies")));
        if dynamic {
            return (name, None);
        }
        let deps = project
            .get("dependencies")
            .and_then(toml::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(toml::Value::as_str)
                    .filter_map(requirement)
                    .collect()
            })
            .unwrap_or_default();
        return (name, Some(deps));
    }
    let poetry = doc
        .get("tool")
        .and_then(|t| t.get("poetry"))
        .and_then(toml::Value::as_table);
    if let Some(p) = poetry {
        let name = p.get("name").and_then(toml::Value::as_str).map(normalize);
        let deps = p
            .get("dependencies")
            .and_then(toml::Value::as_table)
            .map(|t| {
                t.iter()
                    // An optional dependency is an extra's.
                    .filter(|(k, v)| {
                        *k != "python"
                            && !v
                                .get("optional")
                                .and_then(toml::Value::as_bool)
                                .unwrap_or(false)
                    })
                    .map(|(k, _)| normalize(k))
                    .collect()
            });
        return (name, deps);
    }
    (None, None)
}

/// The requirement names of a `requirements.txt` (options, includes and editables left out).
pub fn requirements_txt(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('-') && !l.starts_with('#'))
        .filter_map(requirement)
        .collect()
}

/// The links a site directory needs to hold exactly the files of `dists`: (path relative to
/// the site, what it points to). A top-level name one distribution alone provides is linked
/// whole; a directory several share (a namespace package, `google/`) is made and its entries
/// linked one level down, and so on.
pub fn links(dists: &[&Dist]) -> Vec<(String, PathBuf)> {
    let files: Vec<(usize, &str)> = dists
        .iter()
        .enumerate()
        .flat_map(|(i, d)| d.files.iter().map(move |f| (i, f.as_str())))
        .filter(|(_, f)| !f.contains("__pycache__"))
        .collect();
    let mut out = Vec::new();
    split(dists, &files, "", 0, &mut out);
    out
}

fn split(
    dists: &[&Dist],
    files: &[(usize, &str)],
    prefix: &str,
    depth: usize,
    out: &mut Vec<(String, PathBuf)>,
) {
    // Each first component below `prefix`, with the distributions that have files under it
    // and whether it is a directory (a file lies below it).
    let mut by: BTreeMap<&str, (BTreeSet<usize>, bool)> = BTreeMap::new();
    let mut below: Vec<(usize, &str)> = Vec::new();
    for (i, f) in files {
        let Some(rest) = f.strip_prefix(prefix) else {
            continue;
        };
        let (first, deeper) = match rest.split_once('/') {
            Some((first, _)) => (first, true),
            None => (rest, false),
        };
        if !first.is_empty() {
            let e = by.entry(first).or_default();
            e.0.insert(*i);
            e.1 |= deeper;
            below.push((*i, f));
        }
    }
    for (name, (owners, is_dir)) in by {
        let path = format!("{prefix}{name}");
        if owners.len() == 1 || !is_dir || depth >= 6 {
            let Some(first) = owners.iter().next() else {
                continue;
            };
            out.push((path.clone(), dists[*first].site.join(&path)));
        } else {
            let inside = format!("{path}/");
            let under: Vec<(usize, &str)> = below
                .iter()
                .filter(|(_, f)| f.starts_with(&inside))
                .copied()
                .collect();
            split(dists, &under, &inside, depth + 1, out);
        }
    }
}

/// A test file or a test directory's (never part of what a package installs here).
pub fn is_test_path(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let Some(file) = parts.last() else {
        return false;
    };
    let dirs = &parts[..parts.len() - 1];
    if dirs.iter().any(|d| {
        matches!(
            *d,
            "test" | "tests" | "__tests__" | "__snapshots__" | "spec"
        )
    }) {
        return true;
    }
    let stem = file.split('.').next().unwrap_or(file);
    file.starts_with("test_")
        || stem.ends_with("_test")
        || *file == "conftest.py"
        || file.contains(".test.")
        || file.contains(".spec.")
}

/// The files of a Python package as an install lays them out, from the tree's `paths`, for
/// the import root `root` (`.` or `src`, `probes::python_module`): (the tree's path, the path
/// in the site). `src`: everything under it. `.`: the top-level modules (not `setup.py`,
/// `noxfile.py` and the like) and the top-level packages (a directory with `__init__.py`).
/// Test files and directories are left out.
pub fn python_package_files(paths: &[String], root: &str) -> Vec<(String, String)> {
    const NOT_MODULES: &[&str] = &[
        "setup.py",
        "noxfile.py",
        "fabfile.py",
        "tasks.py",
        "manage.py",
        "dodo.py",
    ];
    let packages: HashSet<&str> = if root == "." {
        paths
            .iter()
            .filter_map(|p| p.strip_suffix("/__init__.py"))
            .filter(|d| !d.contains('/'))
            .collect()
    } else {
        HashSet::new()
    };
    paths
        .iter()
        .filter(|p| !is_test_path(p) && !p.contains("__pycache__"))
        .filter_map(|p| {
            if root == "." {
                let top = p.split('/').next().unwrap_or(p);
                let module =
                    !p.contains('/') && p.ends_with(".py") && !NOT_MODULES.contains(&p.as_str());
                (module || (p.contains('/') && packages.contains(top)))
                    .then(|| (p.clone(), p.clone()))
            } else {
                let rest = p.strip_prefix(&format!("{root}/"))?;
                Some((p.clone(), rest.to_owned()))
            }
        })
        .collect()
}

/// What a root `package.json` says: the package's name and its runtime dependencies
/// (`dependencies`, `optionalDependencies`, `peerDependencies`; never `devDependencies`).
pub fn node_dependencies(text: &str) -> Option<(Option<String>, Vec<String>)> {
    let v: Value = serde_json::from_str(text).ok()?;
    let name = v.get("name").and_then(Value::as_str).map(str::to_owned);
    let mut deps: Vec<String> = Vec::new();
    for key in ["dependencies", "optionalDependencies", "peerDependencies"] {
        if let Some(o) = v.get(key).and_then(Value::as_object) {
            for k in o.keys() {
                if !deps.contains(k) {
                    deps.push(k.clone());
                }
            }
        }
    }
    Some((name, deps))
}

/// The files of a Node package as its users get it, from the tree's `paths`: everything but
/// `node_modules`, test files and directories, and dot-files at the top.
pub fn node_package_files(paths: &[String]) -> Vec<String> {
    paths
        .iter()
        .filter(|p| !p.starts_with('.') && !p.split('/').any(|c| c == "node_modules"))
        .filter(|p| !is_test_path(p))
        .cloned()
        .collect()
}

/// The module a probe's import failure names: Python's `ModuleNotFoundError: No module named
/// 'pytest'` (the top-level name: `_pytest.x` → `_pytest`), Node's `Cannot find module 'jest'`
/// or `Cannot find package 'jest'` (a scope's package: `@jest/globals`).
pub fn missing_module(message: &str) -> Option<String> {
    let quoted = |after: &str| -> Option<String> {
        let rest = message.split(after).nth(1)?;
        let rest = rest.trim_start();
        let q = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
        let inner = rest[1..].split(q).next()?;
        Some(inner.to_owned())
    };
    if let Some(m) = quoted("No module named") {
        return m.split('.').next().map(str::to_owned);
    }
    let m = quoted("Cannot find module").or_else(|| quoted("Cannot find package"))?;
    if m.starts_with('.') || m.starts_with('/') {
        return None;
    }
    let mut parts = m.split('/');
    let first = parts.next()?;
    Some(if first.starts_with('@') {
        format!("{first}/{}", parts.next().unwrap_or(""))
    } else {
        first.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_of_the_package_are_read_without_extras() {
        let rows: &[(&str, Option<&str>)] = &[
            ("jsonpointer>=1.9", Some("jsonpointer")),
            (
                "Typing_Extensions>=3.6.5; python_version < \"3.8\"",
                Some("typing-extensions"),
            ),
            ("pytest; extra == \"tests\"", None),
            ("pytest ; extra=='test' and python_version>='3.8'", None),
            ("requests[socks] (>=2.0)", Some("requests")),
            ("foo @ https://example.com/foo.whl", Some("foo")),
            ("", None),
            ("# a comment", None),
        ];
        for (line, want) in rows {
            assert_eq!(requirement(line).as_deref(), *want, "{line}");
        }
    }

    #[test]
    fn metadata_and_egg_requires_give_runtime_requirements() {
        let meta = "Metadata-Version: 2.1\nName: jsonpatch\nVersion: 1.33\nRequires-Dist: jsonpointer (>=1.9)\nRequires-Dist: pytest ; extra == 'test'\n\nRequires-Dist: not-header\n";
        assert_eq!(
            read_metadata(meta),
            (Some("jsonpatch".into()), vec!["jsonpointer".to_string()])
        );
        let egg = "six\n[:python_version < \"3.8\"]\ntyping_extensions\n[test]\npytest\n";
        assert_eq!(read_requires_txt(egg), ["six", "typing-extensions"]);
    }

    #[test]
    fn a_record_lists_importable_files_and_modules() {
        let record = "six.py,sha256=x,100\nsix-1.16.0.dist-info/METADATA,,\n__pycache__/six.cpython-311.pyc,,\n../../../bin/six-cli,,\n\"odd,name.py\",,\n";
        let files = record_files(record);
        assert_eq!(
            files,
            [
                "six.py",
                "six-1.16.0.dist-info/METADATA",
                "__pycache__/six.cpython-311.pyc",
                "odd,name.py"
            ]
        );
        let d = Dist {
            name: "six".into(),
            requires: vec![],
            site: "/s".into(),
            meta: "six-1.16.0.dist-info".into(),
            files,
            editable: None,
        };
        assert_eq!(d.modules(), ["six", "odd,name"]);
    }

    fn dist(name: &str, requires: &[&str], files: &[&str]) -> Dist {
        Dist {
            name: name.into(),
            requires: requires.iter().map(|s| (*s).to_owned()).collect(),
            site: "/site".into(),
            meta: format!("{name}-1.dist-info"),
            files: files.iter().map(|s| (*s).to_owned()).collect(),
            editable: None,
        }
    }

    #[test]
    fn the_closure_follows_runtime_requirements_only() {
        let dists = vec![
            dist("app", &["rt"], &[]),
            dist("rt", &["rt-inner"], &[]),
            dist("rt-inner", &[], &[]),
            dist("pytest", &["pluggy", "iniconfig"], &[]),
            dist("pluggy", &[], &[]),
            dist("iniconfig", &[], &[]),
            dist("pytest-cov", &["pytest", "coverage"], &[]),
            dist("coverage", &[], &[]),
            dist("packaging", &[], &[]),
        ];
        let names = |ix: Vec<usize>| -> Vec<String> {
            ix.into_iter().map(|i| dists[i].name.clone()).collect()
        };
        assert_eq!(names(closure(&dists, &["rt".into()])), ["rt", "rt-inner"]);
        assert_eq!(
            names(closure(&dists, &["absent".into()])),
            Vec::<String>::new()
        );
        // Nothing declared: everything but the test tools and what only they need.
        assert_eq!(
            names(without_test_tools(&dists)),
            ["app", "rt", "rt-inner", "packaging"]
        );
    }

    #[test]
    fn pyproject_and_requirements_name_the_runtime_requirements() {
        type Row<'a> = (&'a str, Option<&'a str>, Option<&'a [&'a str]>);
        let rows: &[Row<'_>] = &[
            (
                "[project]\nname = \"Calc_Lib\"\ndependencies = [\"rtdep>=1\", \"x; extra == 'a'\"]\n[project.optional-dependencies]\ntest = [\"devtool\"]\n",
                Some("calc-lib"),
                Some(&["rtdep"]),
            ),
            ("[project]\nname = \"h\"\n", Some("h"), Some(&[])),
            (
                "[project]\nname = \"h\"\ndynamic = [\"dependencies\", \"version\"]\n",
                Some("h"),
                None,
            ),
            (
                "[tool.poetry]\nname = \"p\"\n[tool.poetry.dependencies]\npython = \"^3.9\"\nrequests = \"*\"\nextra-thing = { version = \"1\", optional = true }\n[tool.poetry.group.dev.dependencies]\npytest = \"*\"\n",
                Some("p"),
                Some(&["requests"]),
            ),
            ("[build-system]\nrequires = [\"setuptools\"]\n", None, None),
        ];
        for (text, name, deps) in rows {
            let (n, d) = pyproject(text);
            assert_eq!(n.as_deref(), *name, "{text}");
            assert_eq!(
                d,
                deps.map(|d| d.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()),
                "{text}"
            );
        }
        assert_eq!(
            requirements_txt("-r base.txt\nrequests==2.0\n# c\n-e .\nsix\n"),
            ["requests", "six"]
        );
    }

    #[test]
    fn links_split_a_directory_two_distributions_share() {
        let a = dist(
            "google-a",
            &[],
            &[
                "google/a/__init__.py",
                "google_a-1.dist-info/METADATA",
                "a.pth",
            ],
        );
        let b = dist("google-b", &[], &["google/b/__init__.py", "google/b/x.py"]);
        let c = dist("six", &[], &["six.py", "__pycache__/six.pyc"]);
        let got = links(&[&a, &b, &c]);
        let paths: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "a.pth",
                "google/a",
                "google/b",
                "google_a-1.dist-info",
                "six.py"
            ]
        );
        assert!(got.iter().all(|(p, t)| *t == Path::new("/site").join(p)));
    }

    #[test]
    fn package_files_leave_the_tests_out() {
        let paths: Vec<String> = [
            "calc.py",
            "test_calc.py",
            "setup.py",
            "conftest.py",
            "pkg/__init__.py",
            "pkg/data.json",
            "pkg/tests/test_x.py",
            "tests/test_y.py",
            "scripts/run.py",
            "src/humanize/__init__.py",
            "src/humanize/number.py",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let flat: Vec<String> = python_package_files(&paths, ".")
            .into_iter()
            .map(|(_, to)| to)
            .collect();
        assert_eq!(flat, ["calc.py", "pkg/__init__.py", "pkg/data.json"]);
        let src: Vec<(String, String)> = python_package_files(&paths, "src");
        assert_eq!(
            src,
            [
                (
                    "src/humanize/__init__.py".to_string(),
                    "humanize/__init__.py".to_string()
                ),
                ("src/humanize/number.py".into(), "humanize/number.py".into()),
            ]
        );
        let node: Vec<String> = [
            "package.json",
            ".eslintrc",
            "src/index.ts",
            "src/tests/a.test.ts",
            "test/x.js",
            "lib/y.spec.js",
            "node_modules/jest/index.js",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        assert_eq!(node_package_files(&node), ["package.json", "src/index.ts"]);
    }

    #[test]
    fn node_runtime_dependencies_never_hold_dev_dependencies() {
        let pj = r#"{"name":"pad","dependencies":{"rt":"1"},"optionalDependencies":{"opt":"1"},"peerDependencies":{"react":"*"},"devDependencies":{"jest":"29"}}"#;
        assert_eq!(
            node_dependencies(pj),
            Some((
                Some("pad".into()),
                vec!["rt".to_string(), "opt".into(), "react".into()]
            ))
        );
        assert_eq!(node_dependencies("not json"), None);
    }

    #[test]
    fn the_module_an_import_failure_names() {
        let rows: &[(&str, Option<&str>)] = &[
            (
                "ModuleNotFoundError: No module named 'pytest'",
                Some("pytest"),
            ),
            (
                "ModuleNotFoundError: No module named '_pytest.fixtures'",
                Some("_pytest"),
            ),
            (
                "Cannot find module 'jest'\nRequire stack:\n- /x",
                Some("jest"),
            ),
            (
                "Cannot find package '@jest/globals' imported from /x.js",
                Some("@jest/globals"),
            ),
            ("Cannot find module './local'", None),
            ("TypeError: boom", None),
        ];
        for (m, want) in rows {
            assert_eq!(missing_module(m).as_deref(), *want, "{m}");
        }
        assert_eq!(normalize("Foo_Bar..baz"), "foo-bar-baz");
        assert_eq!(
            editable_dir(r#"{"url": "file:///w/repo", "dir_info": {"editable": true}}"#),
            Some(PathBuf::from("/w/repo"))
        );
        assert_eq!(
            editable_dir(r#"{"url": "file:///w/repo", "dir_info": {}}"#),
            None
        );
    }
}
