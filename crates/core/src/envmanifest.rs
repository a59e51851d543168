//! The content manifest of a project's installed-package trees (a virtualenv's site-packages and
//! `bin`, `node_modules`, `vendor`), recorded when the room takes the environment at the seal,
//! and the comparison that says what changed in them since and whether the run explains it.
//!
//! A package is an entry of a tree (`site-packages/requests`, `node_modules/@babel/core`, a
//! program in `.venv/bin`), with a digest over its files' paths, modes and contents. A change
//! is explained when the run changed a dependency manifest (`pyproject.toml`, `package.json`,
//! a lockfile …): the room's environment is then rebuilt with the project's install command. A
//! change no manifest explains — a patched `site-packages/pytest`, a package installed without
//! being declared — is a finding the verdict reads.
//!
//! The environment **outside** the repository that the checks read is in the manifest too
//! ([`OUTSIDE`], as data): a virtualenv or conda prefix elsewhere, the user's site-packages,
//! the toolchains' user-level configuration, the files the sealed variables name
//! (`PYTHONSTARTUP`, `NODE_OPTIONS`' `--require`), and what a toolchain reads in the
//! directories above the repository. A change there during the run is a finding
//! ([`change_lines`]), never a silent part of the verdict.
//!
//! Pure: the engine walks the files (pawl-engine's `room::env`) and hands the manifests in.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// One package: its digest and how many files it has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    pub digest: String,
    pub files: u64,
}

/// Tree (root-relative, `.venv/lib/python3.12/site-packages`) → package name → package.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub trees: BTreeMap<String, BTreeMap<String, Package>>,
}

/// What happened to one package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Added,
    Removed,
    Changed,
}

/// One package that differs from the seal's manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageChange {
    pub tree: String,
    pub package: String,
    pub change: Change,
}

impl fmt::Display for PackageChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.change {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        };
        // The tree `/` (a file in the root directory) is not written `//name`.
        let sep = if self.tree.ends_with('/') { "" } else { "/" };
        write!(f, "{}{sep}{} {what}", self.tree, self.package)
    }
}

/// Every package that differs between `sealed` and `now`, in tree then package order.
pub fn compare(sealed: &Manifest, now: &Manifest) -> Vec<PackageChange> {
    let empty = BTreeMap::new();
    let mut trees: Vec<&String> = sealed.trees.keys().chain(now.trees.keys()).collect();
    trees.sort();
    trees.dedup();
    let mut out = Vec::new();
    for tree in trees {
        let before = sealed.trees.get(tree).unwrap_or(&empty);
        let after = now.trees.get(tree).unwrap_or(&empty);
        let mut names: Vec<&String> = before.keys().chain(after.keys()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let change = match (before.get(name), after.get(name)) {
                (Some(a), Some(b)) if a == b => continue,
                (Some(_), Some(_)) => Change::Changed,
                (None, Some(_)) => Change::Added,
                (Some(_), None) => Change::Removed,
                (None, None) => continue,
            };
            out.push(PackageChange {
                tree: tree.clone(),
                package: name.clone(),
                change,
            });
        }
    }
    out
}

/// Where a watched place outside the repository is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// Below the sealed `HOME`.
    Home,
    /// Below the directory a sealed variable names (`VIRTUAL_ENV`, `CONDA_PREFIX`,
    /// `CARGO_HOME`, `PYTHONUSERBASE`), when it lies outside the repository.
    Var(&'static str),
    /// In every directory above the repository's root, up to `/`.
    Ancestors,
    /// The file a sealed variable names.
    FileVar(&'static str),
    /// Each directory of a `:`-separated sealed variable that lies outside the repository.
    PathVar(&'static str),
    /// The modules `NODE_OPTIONS` preloads (`--require`, `-r`, `--import`, `--loader`).
    NodePreloads,
    /// Each virtualenv whose `bin` is a directory of the sealed `PATH` (a `pyvenv.cfg` beside
    /// it), outside the repository: its interpreter is the checks' `python` even when no
    /// `VIRTUAL_ENV` says so.
    PathVenvs,
    /// Below `$XDG_DATA_HOME`, else `~/.local/share`.
    DataHome,
}

/// How a watched place is read into the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A package tree: each entry is a package (site-packages, a `bin` directory).
    Packages,
    /// One file or directory, a package of its own.
    Entry,
}

/// One place outside the repository the checks read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watched {
    pub base: Base,
    /// Relative to the base; `*` matches within one component. Empty for the variables that
    /// name the place itself.
    pub path: &'static str,
    pub shape: Shape,
    /// Why a check reads it.
    pub why: &'static str,
}

const fn watched(base: Base, path: &'static str, shape: Shape, why: &'static str) -> Watched {
    Watched {
        base,
        path,
        shape,
        why,
    }
}

/// The places outside the repository whose change can change a check's result.
pub const OUTSIDE: &[Watched] = &[
    // Python: every interpreter reads its site-packages at start-up; `.pth` lines that start
    // with `import` run in every process, `usercustomize`/`sitecustomize` too.
    watched(
        Base::Var("VIRTUAL_ENV"),
        "lib/*/site-packages",
        Shape::Packages,
        "the virtualenv's packages and .pth files",
    ),
    watched(
        Base::Var("VIRTUAL_ENV"),
        "bin",
        Shape::Packages,
        "the virtualenv's programs",
    ),
    watched(
        Base::Var("VIRTUAL_ENV"),
        "pyvenv.cfg",
        Shape::Entry,
        "the virtualenv's interpreter",
    ),
    watched(
        Base::Var("CONDA_PREFIX"),
        "lib/*/site-packages",
        Shape::Packages,
        "the conda environment's packages",
    ),
    watched(
        Base::Var("PYTHONUSERBASE"),
        "lib/*/site-packages",
        Shape::Packages,
        "the user's site-packages",
    ),
    watched(
        Base::Home,
        ".local/lib/*/site-packages",
        Shape::Packages,
        "the user's site-packages (read by every python)",
    ),
    watched(
        Base::Home,
        ".local/bin",
        Shape::Packages,
        "programs the user installed",
    ),
    watched(
        Base::Home,
        ".config/pip",
        Shape::Entry,
        "pip's user configuration",
    ),
    watched(
        Base::Home,
        ".pip",
        Shape::Entry,
        "pip's old user configuration",
    ),
    watched(
        Base::Home,
        ".pydistutils.cfg",
        Shape::Entry,
        "distutils' user configuration",
    ),
    watched(
        Base::FileVar("PYTHONSTARTUP"),
        "",
        Shape::Entry,
        "run by interactive pythons",
    ),
    watched(
        Base::PathVar("PYTHONPATH"),
        "",
        Shape::Packages,
        "modules on python's path",
    ),
    // Node.
    watched(
        Base::Home,
        ".npmrc",
        Shape::Entry,
        "npm's user configuration (node-options, registry)",
    ),
    watched(
        Base::Home,
        ".config/npm",
        Shape::Entry,
        "npm's configuration",
    ),
    watched(
        Base::Home,
        ".yarnrc",
        Shape::Entry,
        "yarn's user configuration",
    ),
    watched(
        Base::Home,
        ".yarnrc.yml",
        Shape::Entry,
        "yarn's user configuration",
    ),
    watched(
        Base::Home,
        ".node_modules",
        Shape::Packages,
        "node's global folders",
    ),
    watched(
        Base::Home,
        ".node_libraries",
        Shape::Packages,
        "node's global folders",
    ),
    watched(
        Base::PathVar("NODE_PATH"),
        "",
        Shape::Packages,
        "modules on node's path",
    ),
    watched(
        Base::NodePreloads,
        "",
        Shape::Entry,
        "modules NODE_OPTIONS loads into every node",
    ),
    watched(
        Base::PathVenvs,
        "lib/*/site-packages",
        Shape::Packages,
        "the packages of the virtualenv whose python is on the checks' PATH",
    ),
    // The package stores outside the repository the builds read: every dependency's unpacked
    // sources (cargo, go) and pnpm's content-addressed store, which `node_modules` hard-links
    // into. Each crate, module or store bucket is a package.
    watched(
        Base::Var("CARGO_HOME"),
        "registry/src/*",
        Shape::Packages,
        "the sources of the crates cargo builds",
    ),
    watched(
        Base::Home,
        ".cargo/registry/src/*",
        Shape::Packages,
        "the sources of the crates cargo builds",
    ),
    watched(
        Base::Var("CARGO_HOME"),
        "git/checkouts",
        Shape::Packages,
        "the git dependencies cargo builds",
    ),
    watched(
        Base::Home,
        ".cargo/git/checkouts",
        Shape::Packages,
        "the git dependencies cargo builds",
    ),
    watched(
        Base::Var("GOMODCACHE"),
        "*/*",
        Shape::Packages,
        "the modules go builds",
    ),
    watched(
        Base::Var("GOPATH"),
        "pkg/mod/*/*",
        Shape::Packages,
        "the modules go builds",
    ),
    watched(
        Base::Home,
        "go/pkg/mod/*/*",
        Shape::Packages,
        "the modules go builds",
    ),
    watched(
        Base::DataHome,
        "pnpm/store/*/files",
        Shape::Packages,
        "pnpm's store (node_modules hard-links its files)",
    ),
    // Rust and Go.
    watched(
        Base::Var("CARGO_HOME"),
        "config.toml",
        Shape::Entry,
        "cargo's user configuration",
    ),
    watched(
        Base::Var("CARGO_HOME"),
        "config",
        Shape::Entry,
        "cargo's user configuration",
    ),
    watched(
        Base::Home,
        ".cargo/config.toml",
        Shape::Entry,
        "cargo's user configuration",
    ),
    watched(
        Base::Home,
        ".cargo/config",
        Shape::Entry,
        "cargo's user configuration",
    ),
    watched(
        Base::Home,
        ".config/go/env",
        Shape::Entry,
        "go's user configuration",
    ),
    // What toolchains read in every directory above the one they run in.
    watched(
        Base::Ancestors,
        ".cargo/config.toml",
        Shape::Entry,
        "cargo reads it above the project",
    ),
    watched(
        Base::Ancestors,
        ".cargo/config",
        Shape::Entry,
        "cargo reads it above the project",
    ),
    watched(
        Base::Ancestors,
        "node_modules",
        Shape::Entry,
        "node resolves modules above the project",
    ),
    watched(
        Base::Ancestors,
        ".npmrc",
        Shape::Entry,
        "npm's configuration",
    ),
    watched(
        Base::Ancestors,
        "package.json",
        Shape::Entry,
        "workspaces and module types above the project",
    ),
    watched(
        Base::Ancestors,
        "conftest.py",
        Shape::Entry,
        "pytest loads conftest.py above the tests",
    ),
    watched(
        Base::Ancestors,
        "pytest.ini",
        Shape::Entry,
        "pytest looks for its configuration above the project",
    ),
    watched(
        Base::Ancestors,
        ".pytest.ini",
        Shape::Entry,
        "pytest looks for its configuration above the project",
    ),
    watched(
        Base::Ancestors,
        "pyproject.toml",
        Shape::Entry,
        "pytest looks for its configuration above the project",
    ),
    watched(
        Base::Ancestors,
        "tox.ini",
        Shape::Entry,
        "pytest looks for its configuration above the project",
    ),
    watched(
        Base::Ancestors,
        "setup.cfg",
        Shape::Entry,
        "pytest looks for its configuration above the project",
    ),
    watched(
        Base::Ancestors,
        "go.work",
        Shape::Entry,
        "go uses a workspace above the module",
    ),
    watched(
        Base::Ancestors,
        "tsconfig.json",
        Shape::Entry,
        "TypeScript configurations extend upwards",
    ),
];

/// Caches tools write inside package trees on every honest run (python's bytecode, babel's and
/// vite's caches in `node_modules`): never part of a package.
pub const NOT_PACKAGES: &[&str] = &["__pycache__", ".cache", ".vite", ".vitest"];

/// True when a path (relative, `/`-separated or a `Path`'s components) lies in a cache of
/// [`NOT_PACKAGES`].
pub fn is_cache<'a>(mut components: impl Iterator<Item = &'a str>) -> bool {
    components.any(|c| NOT_PACKAGES.contains(&c))
}

/// The lines a report and a verdict show for `changes`: "the environment changed since the
/// run started: .venv/lib/python3.11/site-packages/evil.pth added".
pub fn change_lines(changes: &[PackageChange]) -> Vec<String> {
    changes
        .iter()
        .map(|c| format!("the environment changed since the run started: {c}"))
        .collect()
}

/// Commands that start a program found in the project's environment by the word after them
/// (`npx jest`, `uv run pytest`), as data: that word is a gate's program too.
pub const RUNNERS: &[&[&str]] = &[
    &["npx"],
    &["bunx"],
    &["pnpm", "exec"],
    &["pnpm"],
    &["yarn"],
    &["uv", "run"],
    &["poetry", "run"],
    &["pipenv", "run"],
    &["hatch", "run"],
];

/// The programs `command` starts that the environment's `bin` directories may hold: its first
/// word after variable assignments (a name, or a relative path written without `./`), and the
/// word after a [`RUNNERS`] prefix.
pub fn gate_programs(command: &str) -> Vec<String> {
    let words: Vec<&str> = command
        .split_whitespace()
        .skip_while(|w| w.contains('=') || matches!(*w, "exec" | "env" | "command" | "nice"))
        .collect();
    let program = |w: &str| {
        let w = w.trim_start_matches("./");
        (!w.is_empty()
            && !w.starts_with('/')
            && !w.starts_with('-')
            && !w.contains(['$', '`', '\'', '"']))
        .then(|| w.to_owned())
    };
    let mut out: Vec<String> = words
        .first()
        .copied()
        .and_then(program)
        .into_iter()
        .collect();
    if let Some(runner) = RUNNERS.iter().find(|r| words.starts_with(r)) {
        out.extend(words.get(runner.len()).copied().and_then(program));
    }
    out
}

/// The gates (name, command) whose program resolves differently in the room's environment after
/// a rebuild (`now`) than at the seal (`seal`): each maps a program (a name as `PATH` finds it
/// in the environment's `bin` directories, or a root-relative path) to what it resolves to.
/// A program neither holds is the machine's, not the environment's: not compared here.
pub fn moved_programs(
    gates: &[(&str, &str)],
    seal: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (gate, command) in gates {
        for program in gate_programs(command) {
            let (was, is) = (seal.get(&program), now.get(&program));
            if was == is {
                continue;
            }
            let say = |r: Option<&String>| {
                r.map_or_else(
                    || "nothing in the environment (the machine's)".to_owned(),
                    Clone::clone,
                )
            };
            out.push(format!(
                "the check `{gate}` runs `{program}`, which resolves differently since the room's environment was rebuilt: {} (at the seal: {})",
                say(is),
                say(was)
            ));
        }
    }
    out
}

/// The modules `NODE_OPTIONS` preloads, as written (`--require X`, `-r X`, `--require=X`,
/// `--import`, `--loader`, `--experimental-loader`).
pub fn node_preloads(options: &str) -> Vec<String> {
    const FLAGS: &[&str] = &[
        "--require",
        "-r",
        "--import",
        "--loader",
        "--experimental-loader",
    ];
    let mut out = Vec::new();
    let mut words = options.split_whitespace();
    while let Some(w) = words.next() {
        if FLAGS.contains(&w) {
            out.extend(words.next().map(str::to_owned));
        } else if let Some((flag, value)) = w.split_once('=')
            && FLAGS.contains(&flag)
        {
            out.push(value.to_owned());
        }
    }
    out
}

/// What a verification makes of the environment's changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum EnvVerdict {
    /// Nothing changed.
    Unchanged,
    /// The run changed these dependency manifests: rebuild the room's environment with the
    /// project's install command.
    Rebuild {
        manifests: Vec<String>,
        changes: Vec<PackageChange>,
    },
    /// Changes no dependency manifest the run changed explains: a finding.
    Unexplained { changes: Vec<PackageChange> },
}

impl EnvVerdict {
    /// The finding's text, when there is one.
    pub fn finding(&self) -> Option<String> {
        match self {
            EnvVerdict::Unexplained { changes } => Some(format!(
                "the project's installed packages changed and no dependency manifest the run changed explains it: {}",
                changes
                    .iter()
                    .take(10)
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            _ => None,
        }
    }
}

/// Judges `changes` given the paths the run changed (root-relative) and the dependency-manifest
/// globs of the platforms (`is_manifest`).
pub fn judge(
    changes: Vec<PackageChange>,
    run_changed: &[String],
    is_manifest: &dyn Fn(&str) -> bool,
) -> EnvVerdict {
    if changes.is_empty() {
        return EnvVerdict::Unchanged;
    }
    let manifests: Vec<String> = run_changed
        .iter()
        .filter(|p| is_manifest(p))
        .cloned()
        .collect();
    if manifests.is_empty() {
        EnvVerdict::Unexplained { changes }
    } else {
        EnvVerdict::Rebuild { manifests, changes }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_gates_programs_are_its_first_word_and_a_runners_next() {
        assert_eq!(gate_programs("CI=1 jest --ci"), ["jest"]);
        assert_eq!(gate_programs("npx jest"), ["npx", "jest"]);
        assert_eq!(gate_programs("uv run pytest -q"), ["uv", "pytest"]);
        assert_eq!(
            gate_programs("./node_modules/.bin/jest"),
            ["node_modules/.bin/jest"]
        );
        assert!(gate_programs("/usr/bin/make test").is_empty());
    }

    #[test]
    fn a_program_that_resolves_differently_after_a_rebuild_is_named() {
        let map = |v: &[(&str, &str)]| -> BTreeMap<String, String> {
            v.iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let seal = map(&[("jest", "node_modules/.bin/jest -> jest/bin/jest.js #aa")]);
        let same = moved_programs(&[("test", "jest")], &seal, &seal);
        assert!(same.is_empty());
        let now = map(&[("jest", "node_modules/.bin/jest -> evil/x.js #bb")]);
        let moved = moved_programs(&[("test", "jest"), ("lint", "ruff check")], &seal, &now);
        assert_eq!(moved.len(), 1, "{moved:?}");
        assert!(moved[0].contains("`test` runs `jest`") && moved[0].contains("evil/x.js"));
        // A program that appears in the environment (shadowing the machine's) is named too.
        let shadow = moved_programs(
            &[("lint", "ruff check")],
            &seal,
            &map(&[("ruff", ".venv/bin/ruff #cc")]),
        );
        assert_eq!(shadow.len(), 1, "{shadow:?}");
    }

    use super::*;

    fn manifest(rows: &[(&str, &str, &str)]) -> Manifest {
        let mut m = Manifest::default();
        for (tree, pkg, digest) in rows {
            m.trees.entry((*tree).into()).or_default().insert(
                (*pkg).into(),
                Package {
                    digest: (*digest).into(),
                    files: 1,
                },
            );
        }
        m
    }

    const SP: &str = ".venv/lib/python3.12/site-packages";

    #[test]
    fn compare_names_each_package() {
        let sealed = manifest(&[(SP, "pytest", "a"), (SP, "yaml", "b"), (SP, "old", "c")]);
        let now = manifest(&[(SP, "pytest", "A"), (SP, "yaml", "b"), (SP, "new", "d")]);
        let got: Vec<String> = compare(&sealed, &now)
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(
            got,
            [
                format!("{SP}/new added"),
                format!("{SP}/old removed"),
                format!("{SP}/pytest changed"),
            ]
        );
        assert!(compare(&sealed, &sealed).is_empty());
        // A whole tree gone is every package removed.
        assert_eq!(compare(&sealed, &Manifest::default()).len(), 3);
    }

    #[test]
    fn node_options_preloads_are_found_in_every_form() {
        assert_eq!(
            node_preloads(
                "--max-old-space-size=4096 -r ./a.js --require=/x/b.js --import c --inspect"
            ),
            ["./a.js", "/x/b.js", "c"]
        );
        assert!(node_preloads("--enable-source-maps").is_empty());
        let line = change_lines(&[PackageChange {
            tree: SP.into(),
            package: "evil.pth".into(),
            change: Change::Added,
        }]);
        assert_eq!(
            line,
            [format!(
                "the environment changed since the run started: {SP}/evil.pth added"
            )]
        );
    }

    #[test]
    fn a_manifest_the_run_changed_explains_the_change() {
        let is_manifest = |p: &str| matches!(p, "pyproject.toml" | "package.json");
        let changes = compare(
            &manifest(&[(SP, "pytest", "a")]),
            &manifest(&[(SP, "pytest", "a"), (SP, "requests", "r")]),
        );
        match judge(
            changes.clone(),
            &["src/x.py".into(), "pyproject.toml".into()],
            &is_manifest,
        ) {
            EnvVerdict::Rebuild { manifests, .. } => assert_eq!(manifests, ["pyproject.toml"]),
            other => panic!("{other:?}"),
        }
        let v = judge(changes, &["src/x.py".into()], &is_manifest);
        assert!(
            v.finding()
                .is_some_and(|f| f.contains("site-packages/requests added")),
            "{v:?}"
        );
        assert_eq!(judge(Vec::new(), &[], &is_manifest), EnvVerdict::Unchanged);
    }
}
