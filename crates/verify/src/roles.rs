//! What is locked: every path of a tree by role (issue 32, point 1).
//!
//! The locked run judges the run's work on a tree made of the baseline plus the run's changes to
//! **product source** and **dependency and structural declarations**; the run's changes to
//! **tests** and to **everything else** (runner, build and package-manager configuration,
//! dotfiles, CI) are left out, shown and judged apart. This module says which path is which, as
//! pure functions over two trees (the baseline and the final tree, [`TreeFiles`]) and what the run
//! knows beyond them ([`RoleFacts`]):
//!
//! - names decide first: the tables `roles/*.toml` (one per platform, rows glob → role with
//!   examples checked when they load: `table`) say what the platforms' conventions call tests,
//!   manifests, lockfiles and configuration; no row makes a path product;
//! - then the runners' own configured patterns, read from the **baseline** only (pytest
//!   `python_files` and `testpaths`, jest `testMatch`/`testRegex`, vitest `include`, mocha
//!   `spec`), and the files the baseline's configuration loads around the tests (jest
//!   `setupFiles`/`moduleNameMapper`, pytest `-p`/`pytest_plugins`, `--require`): tests;
//! - then vendored Go dependencies (declarations) and the test support the tests import (a module
//!   that imports a test framework itself, `imports`);
//! - then the packaging, read from both trees so new files of the run are classified with the
//!   final tree's manifests: what the package ships as its own manifest lists it (Python:
//!   `python`, Rust: `cargo`, Node: `node`, Go: `golang`) is product source;
//! - then the files in which the runner reported a test at the baseline: tests;
//! - then, for a language whose packaging lists nothing, the modules the baseline's tests import,
//!   transitively, and the new modules those import (`imports`);
//! - everything else is configuration and the like: [`Role::Other`].
//!
//! A module whose import name is a standard-library module or a test runner is never product
//! source (it would shadow what the tests import), nor, when found through the tests' imports,
//! one an installed distribution names. A dependency declared by a local path is product source
//! inside the repository and a finding outside it. [`merge_declarations`] takes the run's changes
//! to a manifest's declaration keys only (`merge`).
//!
//! What it is not: the inline test items of product files (Rust `#[cfg(test)]`, doctests) are put
//! back by `syntax::restore_inline_tests`; this module classifies whole files. It reads no disk
//! and runs nothing: the caller implements [`TreeFiles`] over git trees.

mod cargo;
mod golang;
mod imports;
mod merge;
mod node;
mod python;
mod reach;
mod table;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use globset::{GlobBuilder, GlobMatcher};
use serde::Serialize;

pub use merge::merge_declarations;
pub use reach::{exercised, imports_in_final};

/// The role of a path in the locked run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// What the package ships, and the sources it is built from: the run's changes are taken.
    Product,
    /// A manifest or lockfile: the run's changes to its dependency and structural keys are taken
    /// ([`merge_declarations`]).
    Declaration,
    /// Tests, their support files and fixtures: the baseline's version judges.
    Test,
    /// Everything else (configuration of any kind, dotfiles, CI, docs): the baseline's version is
    /// used; the run's changes are shown and judged apart.
    Other,
}

/// A tree as the classifier reads it (the engine implements it over a git tree).
pub trait TreeFiles {
    /// Every file path, relative to the repository root.
    fn paths(&self) -> Vec<PathBuf>;
    /// The file's text; `None` when absent, binary or too big.
    fn read(&self, path: &Path) -> Option<String>;
}

/// What the run knows beyond the files (may grow).
#[derive(Debug, Clone, Default)]
pub struct RoleFacts {
    /// Files in which the runner reported a test at the baseline.
    pub reported_test_files: Vec<PathBuf>,
    /// Top-level import names of the distributions installed in the room's environment (Python
    /// `site-packages`): a module of the tree with one of these names is never product source.
    pub installed_modules: Vec<String>,
    /// Files the run's command criteria name (`grep -q hello greet.sh`): what the run's own
    /// acceptance checks exercise. Product source when no rule calls them anything else.
    pub criteria_files: Vec<PathBuf>,
}

/// A table, a manifest or a tree the classifier could not read.
#[derive(Debug, thiserror::Error)]
pub enum RolesError {
    /// A manifest does not parse (the run's version or the baseline's).
    #[error("{path}: {which} version does not parse: {message}")]
    Parse {
        /// The manifest.
        path: String,
        /// `baseline` or `final`.
        which: &'static str,
        /// The parser's message.
        message: String,
    },
}

/// Extensions that are never "content" of a repository without a manifest: modules of the
/// languages whose tests' imports decide (Python, JavaScript/TypeScript, shell), of those that
/// build only from a manifest (Rust, Go), and
/// documentation.
const UNPACKAGED_NOT_CONTENT: &[&str] = &[
    "py", "pyi", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "sh", "bash", "rs", "go",
    "md", "rst", "adoc",
];

/// The per-tree layout: source roots, product files, configured test patterns, findings.
#[derive(Debug)]
pub struct Roles {
    /// Product files named one by one (entry points, modules the tests import), with why.
    product_files: BTreeMap<String, String>,
    /// Product files of a broad reading of the packaging (setuptools' discovery), with why.
    broad_files: BTreeMap<String, String>,
    /// Folders whose files are product source (filtered), with why.
    roots: Vec<Root>,
    /// Test patterns the baseline's runner configuration adds, with why.
    test_patterns: Vec<TestPattern>,
    /// Files the baseline's runner configuration loads around the tests (setup files).
    runner_loaded: BTreeMap<String, String>,
    /// Folders wholly of declarations (vendored dependencies), with why.
    declaration_roots: Vec<(String, String)>,
    /// Files in which the runner reported a test at the baseline.
    reported: BTreeSet<String>,
    /// Files the run's command criteria name.
    criteria_files: BTreeSet<String>,
    /// Modules the tests import that import a test framework themselves (no packaging ships
    /// them): test support.
    test_support: BTreeMap<String, String>,
    /// Manifests with no declaration key in either tree (a pyproject.toml of tool settings).
    plain_manifests: BTreeSet<String>,
    /// Import names that are never product source (standard library, runners, installed).
    never: Never,
    findings: Vec<String>,
    /// Why the tables did not load, when they did not (then every path is Other).
    table_error: Option<String>,
    /// Neither tree has a manifest of any platform: nothing lists what the project is made of,
    /// so its files that no rule calls a test or configuration are its content (a check may
    /// read `answer.txt` as well as import `calc.py`).
    unpackaged: bool,
    /// In such a repository, the data files of the baseline a test names (`diff out.txt
    /// expected.txt`): the tests' fixtures, never the project's content.
    named_by_tests: BTreeSet<String>,
}

/// A folder of product source.
#[derive(Debug)]
pub(crate) struct Root {
    /// Normalized folder, `""` for the repository root.
    pub(crate) dir: String,
    pub(crate) filter: Filter,
    pub(crate) why: String,
    /// A broad reading of the packaging (setuptools' discovery, `npm pack` of a package without
    /// `files`, a whole crate or TypeScript folder): a file the runner reported tests in is a
    /// test before it is this.
    pub(crate) broad: bool,
}

/// Which files under a [`Root`] are product source.
#[derive(Debug)]
pub(crate) enum Filter {
    /// Every file.
    Any,
    /// Files with one of these extensions (without the dot; `d.ts` style compound ones work).
    Exts(&'static [&'static str]),
    /// Go package folders: source files, not in `testdata`, `vendor`, `_*` or `.*` folders.
    Go,
    /// A crate's folder as `cargo package` lists it: `include` (when set) narrows, `exclude`
    /// takes out.
    Package {
        include: Option<globset::GlobSet>,
        exclude: Option<globset::GlobSet>,
    },
    /// Paths relative to the root matching a glob (npm `files`, tsconfig `include`).
    Glob(GlobMatcher, Option<&'static [&'static str]>),
}

#[derive(Debug)]
struct TestPattern {
    /// Folder the pattern applies under (`""`: anywhere).
    under: String,
    matcher: Matcher,
    why: String,
}

#[derive(Debug)]
enum Matcher {
    Glob(GlobMatcher),
    Regex(regex::Regex, bool),
}

impl Matcher {
    fn is_match(&self, path: &str) -> bool {
        match self {
            Matcher::Glob(g) => g.is_match(path),
            Matcher::Regex(r, false) => r.is_match(path),
            Matcher::Regex(r, true) => r.is_match(&format!("/{path}")),
        }
    }
}

/// Import names that are never product source.
#[derive(Debug, Default)]
pub(crate) struct Never {
    installed: BTreeSet<String>,
}

/// Test runners and their plugins' import names: a module of the tree with such a name shadows
/// the runner.
const PYTHON_RUNNERS: &[&str] = &[
    "pytest",
    "_pytest",
    "py",
    "pluggy",
    "nose",
    "nose2",
    "hypothesis",
    "coverage",
    "pytest_cov",
    "xdist",
    "conftest",
    "sitecustomize",
    "usercustomize",
    "setup",
    "noxfile",
    "tox",
];

static PYTHON_STDLIB: LazyLock<BTreeSet<&'static str>> = LazyLock::new(|| {
    include_str!("roles/python-stdlib.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
});

impl Never {
    /// Why a Python top-level import name is never product source, if it is not.
    pub(crate) fn python(&self, name: &str) -> Option<String> {
        if PYTHON_STDLIB.contains(name) {
            Some(format!("shadows the standard-library module `{name}`"))
        } else if PYTHON_RUNNERS.contains(&name) {
            Some(format!("shadows the test runner or tool `{name}`"))
        } else if self.installed.contains(name) {
            Some(format!("shadows the installed distribution `{name}`"))
        } else if !is_identifier(name) {
            Some(format!("`{name}` is not an importable name"))
        } else {
            None
        }
    }

    /// Why a top-level name a project's own packaging ships is not product source, if it is
    /// not: a standard-library name always; a test runner's name unless the project is that
    /// runner (pytest's own `_pytest`); an installed distribution's name never counts here, as
    /// the project's own packages are installed in its environment too.
    pub(crate) fn packaged(&self, name: &str, project: Option<&str>) -> Option<String> {
        let own_runner = project.is_some_and(|p| {
            let p = p.to_lowercase().replace(['-', '.'], "_");
            PYTHON_RUNNERS.contains(&p.as_str())
        });
        if PYTHON_STDLIB.contains(name) {
            Some(format!("shadows the standard-library module `{name}`"))
        } else if PYTHON_RUNNERS.contains(&name) && !own_runner {
            Some(format!("shadows the test runner or tool `{name}`"))
        } else if !is_identifier(name) {
            Some(format!("`{name}` is not an importable name"))
        } else {
            None
        }
    }
}

/// Whether `name` is a Python identifier (ASCII, as package names are in practice).
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Texts by (final tree?, path); `None`: absent, binary or too big.
type ReadCache = BTreeMap<(bool, String), Option<std::rc::Rc<str>>>;

/// Both trees as the layout readers see them.
pub(crate) struct Trees<'a> {
    base: &'a dyn TreeFiles,
    fin: &'a dyn TreeFiles,
    base_paths: BTreeSet<String>,
    fin_paths: BTreeSet<String>,
    /// Every path of either tree.
    pub(crate) all: BTreeSet<String>,
    /// Texts read so far, by (final tree?, path): each file is read at most once per tree (a
    /// caller's read may start a process).
    cache: std::cell::RefCell<ReadCache>,
}

impl<'a> Trees<'a> {
    fn new(base: &'a dyn TreeFiles, fin: &'a dyn TreeFiles) -> Trees<'a> {
        let norm = |t: &dyn TreeFiles| -> BTreeSet<String> {
            t.paths().iter().filter_map(|p| normalize(p)).collect()
        };
        let base_paths = norm(base);
        let fin_paths = norm(fin);
        let all = base_paths.union(&fin_paths).cloned().collect();
        Trees {
            base,
            fin,
            base_paths,
            fin_paths,
            all,
            cache: std::cell::RefCell::new(BTreeMap::new()),
        }
    }

    fn cached(&self, fin: bool, path: &str) -> Option<String> {
        let key = (fin, path.to_string());
        if let Some(hit) = self.cache.borrow().get(&key) {
            return hit.as_deref().map(str::to_string);
        }
        let tree = if fin { self.fin } else { self.base };
        let text = tree.read(Path::new(path));
        self.cache
            .borrow_mut()
            .insert(key, text.as_deref().map(std::rc::Rc::from));
        text
    }

    /// The final tree's text of a file, else the baseline's (layout and imports).
    pub(crate) fn read(&self, path: &str) -> Option<String> {
        if self.fin_paths.contains(path) {
            self.cached(true, path)
        } else if self.base_paths.contains(path) {
            self.cached(false, path)
        } else {
            None
        }
    }

    /// The baseline's text of a file (runner configuration: locked to the baseline).
    pub(crate) fn read_base(&self, path: &str) -> Option<String> {
        if self.base_paths.contains(path) {
            self.cached(false, path)
        } else {
            None
        }
    }

    /// Both versions of a file that exists in either tree (manifests: a layout from either).
    pub(crate) fn read_both(&self, path: &str) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(t) = self.read_base(path) {
            out.push(t);
        }
        if self.fin_paths.contains(path)
            && let Some(t) = self.cached(true, path)
            && out.first() != Some(&t)
        {
            out.push(t);
        }
        out
    }

    pub(crate) fn exists(&self, path: &str) -> bool {
        self.all.contains(path)
    }

    pub(crate) fn in_base(&self, path: &str) -> bool {
        self.base_paths.contains(path)
    }

    /// Paths of either tree whose file name is `name`.
    pub(crate) fn named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s String> + 's {
        self.all
            .iter()
            .filter(move |p| p.rsplit('/').next() == Some(name))
    }

    /// Whether `dir` (normalized, `""` the root) has any file under it.
    pub(crate) fn has_dir(&self, dir: &str) -> bool {
        if dir.is_empty() {
            return !self.all.is_empty();
        }
        let prefix = format!("{dir}/");
        self.all
            .range(prefix.clone()..)
            .next()
            .is_some_and(|p| p.starts_with(&prefix))
    }
}

/// What the layout readers add to.
#[derive(Default)]
pub(crate) struct Layout {
    pub(crate) product_files: BTreeMap<String, String>,
    /// Product files from a broad reading of the packaging (setuptools' discovery).
    pub(crate) broad_files: BTreeMap<String, String>,
    pub(crate) roots: Vec<Root>,
    pub(crate) findings: Vec<String>,
    pub(crate) test_patterns: Vec<(String, String, String)>,
    /// (folder, regex, why, matched against `/` + the path as jest matches absolute paths)
    pub(crate) test_regexes: Vec<(String, String, String, bool)>,
    pub(crate) runner_loaded: BTreeMap<String, String>,
    /// Folders wholly of declarations (vendored dependencies), with why.
    pub(crate) declaration_roots: Vec<(String, String)>,
    /// Folders wholly of the tests' own (a Rust test-only module's folder), with why.
    pub(crate) test_dirs: Vec<(String, String)>,
    /// pytest `testpaths` folders of the baseline, with the file that names them.
    pub(crate) testpaths: Vec<(String, String)>,
    /// Languages whose packaging lists what they ship (no import closure for them).
    pub(crate) listed: BTreeSet<Lang>,
}

/// A language of the import closure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Lang {
    Python,
    Js,
    Shell,
}

impl Layout {
    pub(crate) fn file(&mut self, path: String, why: impl Into<String>) {
        self.product_files.entry(path).or_insert_with(|| why.into());
    }

    pub(crate) fn root(&mut self, dir: String, filter: Filter, why: impl Into<String>) {
        self.roots.push(Root {
            dir,
            filter,
            why: why.into(),
            broad: false,
        });
    }

    /// A root from a broad reading of the packaging (see [`Root::broad`]).
    pub(crate) fn broad_root(&mut self, dir: String, filter: Filter, why: impl Into<String>) {
        self.roots.push(Root {
            dir,
            filter,
            why: why.into(),
            broad: true,
        });
    }

    /// A product file from a broad reading of the packaging.
    pub(crate) fn broad_file(&mut self, path: String, why: impl Into<String>) {
        self.broad_files.entry(path).or_insert_with(|| why.into());
    }

    pub(crate) fn finding(&mut self, line: String) {
        if !self.findings.contains(&line) {
            self.findings.push(line);
        }
    }
}

impl Roles {
    /// Reads the layout from the baseline tree and the final tree (new files of the run are
    /// classified with the final tree's manifests and imports; runner configuration is read from
    /// the baseline only).
    pub fn read(base: &dyn TreeFiles, fin: &dyn TreeFiles, facts: &RoleFacts) -> Roles {
        let trees = Trees::new(base, fin);
        let never = Never {
            installed: facts
                .installed_modules
                .iter()
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty())
                .collect(),
        };
        let reported: BTreeSet<String> = facts
            .reported_test_files
            .iter()
            .filter_map(|p| normalize(p))
            .collect();
        let mut roles = Roles {
            product_files: BTreeMap::new(),
            broad_files: BTreeMap::new(),
            roots: Vec::new(),
            test_patterns: Vec::new(),
            runner_loaded: BTreeMap::new(),
            declaration_roots: Vec::new(),
            reported,
            test_support: BTreeMap::new(),
            plain_manifests: BTreeSet::new(),
            never,
            findings: Vec::new(),
            table_error: table::table().err().map(str::to_string),
            unpackaged: false,
            named_by_tests: BTreeSet::new(),
            criteria_files: facts
                .criteria_files
                .iter()
                .filter_map(|p| normalize(p))
                .collect(),
        };
        for path in trees
            .named("pyproject.toml")
            .chain(trees.named("setup.cfg"))
        {
            let name = path.rsplit('/').next().unwrap_or(path);
            let texts = trees.read_both(path);
            let declares: Vec<Option<bool>> =
                texts.iter().map(|t| merge::declares(name, t)).collect();
            if !declares.is_empty() && declares.iter().all(|d| *d == Some(false)) {
                roles.plain_manifests.insert(path.clone());
            }
        }
        let mut layout = Layout::default();
        python::read(&trees, &roles.never, &mut layout);
        cargo::read(&trees, &mut layout);
        node::read(&trees, &mut layout);
        golang::read(&trees, &mut layout);
        // A `testpaths` folder that holds no product source is the tests' own, support files
        // and fixtures included (pytest's `testing/`); one that does (`src`, `.` for doctests)
        // only names where `python_files` apply.
        for (dir, file) in std::mem::take(&mut layout.testpaths) {
            let overlaps = |other: &str| {
                other.is_empty() || under(other, &dir).is_some() || under(&dir, other).is_some()
            };
            if dir.is_empty()
                || layout.roots.iter().any(|r| overlaps(&r.dir))
                || layout
                    .product_files
                    .keys()
                    .any(|f| under(f, &dir).is_some())
            {
                continue;
            }
            layout.test_patterns.push((
                dir.clone(),
                "**".into(),
                format!(
                    "under `testpaths` of the baseline's {file}, a folder of no product source"
                ),
            ));
        }
        for (dir, why) in std::mem::take(&mut layout.test_dirs) {
            layout.test_patterns.push((dir, "**".into(), why));
        }
        roles.absorb_tests(&mut layout);
        // The import closure classifies with everything above already known: a module the
        // tests import that a name rule or runner pattern calls a test stays a test.
        let closure = imports::closure(&trees, &roles, &layout.listed);
        for (path, why) in closure.product {
            // A top-level package the tests import is shipped whole (its data files too).
            if let Some(pkg) = path.strip_suffix("/__init__.py")
                && !trees.exists(&format!("{}/__init__.py", parent(pkg)))
            {
                layout.root(
                    pkg.to_string(),
                    Filter::Any,
                    format!("the package `{pkg}` the baseline's tests import ({why})"),
                );
            }
            layout.product_files.entry(path).or_insert(why);
        }
        roles.test_support = closure.support;
        roles.product_files = layout.product_files;
        roles.broad_files = layout.broad_files;
        // The most specific folder speaks first (a crate inside another crate's folder).
        layout.roots.sort_by_key(|r| std::cmp::Reverse(r.dir.len()));
        roles.roots = layout.roots;
        roles.declaration_roots = layout.declaration_roots;
        roles.findings = layout.findings;
        if let Some(e) = &roles.table_error {
            roles.findings.push(format!(
                "the role tables do not load ({e}): every path counts as configuration"
            ));
        }
        let unpackaged = roles.table_error.is_none()
            && !trees
                .all
                .iter()
                .any(|p| matches!(roles.by_name(p), Some((Role::Declaration, _))));
        if unpackaged {
            let tests: Vec<&String> = trees
                .all
                .iter()
                .filter(|p| roles.classify(Path::new(p.as_str())).0 == Role::Test)
                .collect();
            let texts: Vec<String> = tests.iter().flat_map(|t| trees.read_both(t)).collect();
            // Only a file the baseline has: its content is what the tests expect. A file a test
            // names that the baseline lacks (`test -f legacy.txt`) is what the run is to make.
            for p in &trees.base_paths {
                let name = p.rsplit('/').next().unwrap_or(p);
                if texts
                    .iter()
                    .any(|t| t.contains(p.as_str()) || t.contains(name))
                {
                    roles.named_by_tests.insert(p.clone());
                }
            }
        }
        roles.unpackaged = unpackaged;
        roles
    }

    fn absorb_tests(&mut self, layout: &mut Layout) {
        for (under, glob, why) in layout.test_patterns.drain(..) {
            if let Ok(g) = GlobBuilder::new(&glob).literal_separator(true).build() {
                self.test_patterns.push(TestPattern {
                    under,
                    matcher: Matcher::Glob(g.compile_matcher()),
                    why,
                });
            }
        }
        for (under, re, why, absolute) in layout.test_regexes.drain(..) {
            if let Ok(r) = regex::RegexBuilder::new(&re).size_limit(1 << 20).build() {
                self.test_patterns.push(TestPattern {
                    under,
                    matcher: Matcher::Regex(r, absolute),
                    why,
                });
            }
        }
        self.runner_loaded = std::mem::take(&mut layout.runner_loaded);
    }

    /// The role of a path (relative to the repository root).
    pub fn role(&self, path: &Path) -> Role {
        self.classify(path).0
    }

    /// Why a path has its role, in words for the report.
    pub fn why(&self, path: &Path) -> String {
        self.classify(path).1
    }

    /// Paths whose product source uses an outside local path dependency and the like: REVIEW
    /// findings, one line each.
    pub fn findings(&self) -> Vec<String> {
        self.findings.clone()
    }

    /// The role of a path without the import closure and packaging (names, runner patterns and
    /// reported files only): what the closure starts from and must not override.
    pub(crate) fn by_name(&self, path: &str) -> Option<(Role, String)> {
        if self.table_error.is_some() {
            return Some((Role::Other, "the role tables do not load".into()));
        }
        let table = table::table().ok()?;
        if let Some(row) = table.row(path) {
            let mut role = row.role;
            let mut why = row.why.clone();
            if role == Role::Declaration && self.plain_manifests.contains(path) {
                return Some((
                    Role::Other,
                    "holds no dependency or packaging key in either tree, only tool settings"
                        .into(),
                ));
            }
            // A manifest inside a tests folder is a fixture.
            if role == Role::Declaration
                && let Some(t) = table.rows.iter().find(|r| {
                    r.role == Role::Test && r.glob.contains("tests/**") && r.matches(path)
                })
            {
                role = Role::Test;
                why = t.why.clone();
            }
            return Some((role, why));
        }
        for p in &self.test_patterns {
            if let Some(rel) = under(path, &p.under)
                && p.matcher.is_match(rel)
            {
                return Some((Role::Test, p.why.clone()));
            }
        }
        if let Some(why) = self.runner_loaded.get(path) {
            return Some((Role::Test, why.clone()));
        }
        None
    }

    fn classify(&self, path: &Path) -> (Role, String) {
        let Some(path) = normalize(path) else {
            return (
                Role::Other,
                "not a relative path inside the repository".into(),
            );
        };
        if let Some((role, why)) = self.by_name(&path) {
            return (role, name_why(role, &why));
        }
        if let Some((_, why)) = self
            .declaration_roots
            .iter()
            .find(|(dir, _)| under(&path, dir).is_some())
        {
            return (Role::Declaration, format!("declaration: {why}"));
        }
        // Found by the tests' imports where no packaging lists the language's modules: more
        // precise than a whole folder `npm pack` would ship.
        if let Some(why) = self.test_support.get(&path) {
            return (Role::Test, format!("test: {why}"));
        }
        if let Some(why) = self.product_by_packaging(&path, false) {
            return (Role::Product, format!("product source: {why}"));
        }
        if let Some(why) = self.product_files.get(&path) {
            return (Role::Product, format!("product source: {why}"));
        }
        if self.reported.contains(&path) {
            return (
                Role::Test,
                "test: the runner reported a test in this file at the baseline".into(),
            );
        }
        if let Some(why) = self
            .product_by_packaging(&path, true)
            .or_else(|| self.broad_files.get(&path).cloned())
        {
            return (Role::Product, format!("product source: {why}"));
        }
        if let Some(why) = self.shadowing(&path) {
            return (Role::Other, format!("not product source: {why}"));
        }
        if self.criteria_files.contains(&path) {
            return (
                Role::Product,
                "product source: a command criterion of the run checks it, and no rule calls it a test or configuration".into(),
            );
        }
        // Modules of a language the import closure follows keep its rule (a module no test
        // imports is not product), and documentation is not what a check runs.
        let data = Path::new(&path)
            .extension()
            .and_then(|e| e.to_str())
            .is_none_or(|e| !UNPACKAGED_NOT_CONTENT.contains(&e));
        if self.unpackaged
            && data
            && !self.named_by_tests.contains(&path)
            && !Path::new(&path)
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        {
            return (
                Role::Product,
                "product source: the repository has no manifest of any platform, so its data files that no rule calls a test or configuration are its content".into(),
            );
        }
        (
            Role::Other,
            "everything else: not listed by the packaging, not imported by the tests, not a test"
                .into(),
        )
    }

    /// Why a path is product source by its packaging's roots (the precise ones, or the broad).
    fn product_by_packaging(&self, path: &str, broad: bool) -> Option<String> {
        for root in self.roots.iter().filter(|r| r.broad == broad) {
            let Some(rel) = under(path, &root.dir) else {
                continue;
            };
            if self.root_takes(root, rel) {
                return Some(root.why.clone());
            }
        }
        None
    }

    fn root_takes(&self, root: &Root, rel: &str) -> bool {
        match &root.filter {
            Filter::Any => true,
            Filter::Exts(exts) => has_ext(rel, exts),
            Filter::Go => {
                let dirs: Vec<&str> = rel.split('/').collect();
                let folders = &dirs[..dirs.len().saturating_sub(1)];
                has_ext(rel, GO_EXTS)
                    && !folders.iter().any(|d| {
                        *d == "testdata"
                            || *d == "vendor"
                            || d.starts_with('_')
                            || d.starts_with('.')
                    })
            }
            Filter::Package { include, exclude } => {
                include.as_ref().is_none_or(|i| i.is_match(rel))
                    && !exclude.as_ref().is_some_and(|e| e.is_match(rel))
            }
            Filter::Glob(g, exts) => g.is_match(rel) && exts.is_none_or(|e| has_ext(rel, e)),
        }
    }

    /// Why a path that is a Python module of a source folder shadows something, if it does.
    fn shadowing(&self, path: &str) -> Option<String> {
        let file = path.rsplit('/').next().unwrap_or(path);
        let name = python_module_name(file)?;
        self.never.python(name)
    }

    /// Every path of both trees with its role, sorted (for reports and tests).
    pub fn classify_all(&self, trees: &[&dyn TreeFiles]) -> Vec<(PathBuf, Role)> {
        let mut all = BTreeSet::new();
        for t in trees {
            for p in t.paths() {
                if let Some(n) = normalize(&p) {
                    all.insert(n);
                }
            }
        }
        all.into_iter()
            .map(|p| {
                let role = self.role(Path::new(&p));
                (PathBuf::from(p), role)
            })
            .collect()
    }
}

fn name_why(role: Role, why: &str) -> String {
    let label = match role {
        Role::Product => "product source",
        Role::Declaration => "declaration",
        Role::Test => "test",
        Role::Other => "configuration",
    };
    format!("{label}: {why}")
}

/// The extensions of Go package source files.
pub(crate) const GO_EXTS: &[&str] = &[
    "go", "s", "S", "c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx", "m", "f", "F", "for", "f90",
    "syso", "swig", "swigcxx",
];

/// The Python module name of a file name (`calc.py` → `calc`, `x.cpython-311.so` → `x`).
pub(crate) fn python_module_name(file: &str) -> Option<&str> {
    for ext in [".py", ".pyi", ".pyx", ".pxd", ".so", ".pyd"] {
        if let Some(stem) = file.strip_suffix(ext) {
            return Some(stem.split('.').next().unwrap_or(stem));
        }
    }
    None
}

/// Whether a path ends with `.<ext>` for one of `exts`.
pub(crate) fn has_ext(path: &str, exts: &[&str]) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    exts.iter().any(|e| {
        file.len() > e.len() + 1
            && file.ends_with(e)
            && file.as_bytes()[file.len() - e.len() - 1] == b'.'
    })
}

/// `path` relative to folder `dir` (`""`: the root), if it is under it.
pub(crate) fn under<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    if dir.is_empty() {
        return Some(path);
    }
    path.strip_prefix(dir)?.strip_prefix('/')
}

/// A relative path in `/`-separated normal form, or `None` when it leaves the repository or is
/// absolute.
pub(crate) fn normalize(path: &Path) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str()?.to_string()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("/"))
    }
}

/// Joins a folder and a relative reference found in a manifest (`./src`, `lib/`, `../x`):
/// `None` when it leaves the repository.
pub(crate) fn join(dir: &str, rel: &str) -> Option<String> {
    let rel = rel.trim();
    if rel.starts_with('/') {
        return None;
    }
    let joined = if dir.is_empty() {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The folder of a normalized path (`""` for a file at the root).
pub(crate) fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

#[cfg(test)]
mod tests;
