//! The facts about a project that detection depends on, and a helper to gather them.
//!
//! Facts are plain data so detection stays a pure function and tests can build them by hand.
//! [`ProjectFacts::gather`] reads the file system but asks the caller whether a tool is
//! installed (a closure), so this crate never searches PATH or spawns anything.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::descriptor::Descriptors;

/// Directories never listed: dependency caches, build output and VCS data are not markers.
const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "target",
    "vendor",
    "dist",
    "build",
    "bin",
    "obj",
    "venv",
    "__pycache__",
];
/// Big files are not what a manifest looks like; reading them would only cost time.
const MAX_READ: u64 = 1024 * 1024;
/// A huge tree should not make detection slow; the listing stops here.
const MAX_ENTRIES: usize = 5000;
/// What `npm init` writes: a test script that only fails is no test command.
const NPM_PLACEHOLDER_TEST: &str = "echo \"Error: no test specified\" && exit 1";

/// What detection knows about a project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectFacts {
    /// Paths relative to the root, `/`-separated: the root's entries and, for non-hidden
    /// directories, their entries (`src/App.csproj`).
    pub files: BTreeSet<String>,
    /// `package.json` scripts, name to command line.
    pub scripts: BTreeMap<String, String>,
    /// `package.json` dependencies and devDependencies names.
    pub dependencies: BTreeSet<String>,
    /// Tools found installed, among those the descriptors ask about.
    pub tools: BTreeSet<String>,
    /// Contents of root files that `contains` conditions read, when present and small.
    pub texts: BTreeMap<String, String>,
    /// Targets defined in the root `Makefile` (or `makefile`, `GNUmakefile`).
    pub make_targets: BTreeSet<String>,
    /// Recipes defined in the root `justfile`.
    pub just_recipes: BTreeSet<String>,
    /// Things that could not be read but do not stop detection (a broken package.json).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The project root itself could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot list project root {path}: {source}")]
pub struct FactsError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl ProjectFacts {
    /// Reads what `descriptors` need from `root`; `has_tool(name)` says whether a tool is
    /// installed (the CLI looks on PATH).
    pub fn gather(
        root: &Path,
        descriptors: &Descriptors,
        has_tool: impl Fn(&str) -> bool,
    ) -> Result<Self, FactsError> {
        let mut facts = ProjectFacts::default();
        let top = fs::read_dir(root).map_err(|source| FactsError {
            path: root.to_path_buf(),
            source,
        })?;
        let mut subdirs = Vec::new();
        for entry in top.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
            if is_dir && !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_str()) {
                subdirs.push(name.clone());
            }
            facts.files.insert(name);
        }
        subdirs.sort();
        for dir in subdirs {
            let Ok(entries) = fs::read_dir(root.join(&dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                if facts.files.len() >= MAX_ENTRIES {
                    break;
                }
                if let Some(name) = entry.file_name().to_str() {
                    facts.files.insert(format!("{dir}/{name}"));
                }
            }
        }

        if facts.files.contains("package.json") {
            match read_small(&root.join("package.json")) {
                Some(text) => facts.add_package_json(&text),
                None => facts.warnings.push("package.json could not be read".into()),
            }
        }
        for name in ["Makefile", "makefile", "GNUmakefile"] {
            if facts.files.contains(name)
                && let Some(text) = read_small(&root.join(name))
            {
                facts.make_targets.extend(make_targets(&text));
            }
        }
        for name in ["justfile", "Justfile", ".justfile"] {
            if facts.files.contains(name)
                && let Some(text) = read_small(&root.join(name))
            {
                facts.just_recipes.extend(just_recipes(&text));
            }
        }
        for file in descriptors.files_read() {
            // Only plain root-relative names: a descriptor must not make us read outside root.
            let plain = !file.contains("..") && !file.starts_with('/') && !file.contains('\\');
            if plain
                && facts.files.contains(&file)
                && let Some(text) = read_small(&root.join(&file))
            {
                facts.texts.insert(file, text);
            }
        }
        for tool in descriptors.tools() {
            if has_tool(&tool) {
                facts.tools.insert(tool);
            }
        }
        Ok(facts)
    }

    /// The `package.json` pre/post scripts (`pretest`, `postbuild`, ...) whose command reaches
    /// the network ([`NETWORK_WORDS`]): the gates do not run them.
    pub fn networked_hooks(&self) -> Vec<&str> {
        self.scripts
            .iter()
            .filter(|(name, _)| {
                ["pre", "post"].iter().any(|p| {
                    name.strip_prefix(p)
                        .is_some_and(|rest| !rest.is_empty() && self.scripts.contains_key(rest))
                })
            })
            .filter(|(_, cmd)| {
                let cmd = format!(" {} ", cmd.to_lowercase());
                NETWORK_WORDS.iter().any(|w| cmd.contains(w))
            })
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// Adds scripts and dependencies from a `package.json` text; a broken file becomes a warning.
    pub fn add_package_json(&mut self, text: &str) {
        let value: serde_json::Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                self.warnings
                    .push(format!("package.json is not valid JSON: {e}"));
                return;
            }
        };
        if let Some(scripts) = value.get("scripts").and_then(|s| s.as_object()) {
            for (name, cmd) in scripts {
                if let Some(cmd) = cmd.as_str() {
                    if name == "test" && cmd.trim() == NPM_PLACEHOLDER_TEST {
                        continue;
                    }
                    self.scripts.insert(name.clone(), cmd.to_owned());
                }
            }
        }
        for key in ["dependencies", "devDependencies"] {
            if let Some(deps) = value.get(key).and_then(|d| d.as_object()) {
                self.dependencies.extend(deps.keys().cloned());
            }
        }
    }

    /// Builder for tests and callers that know the facts already.
    pub fn with_files<I: IntoIterator<Item = S>, S: Into<String>>(mut self, files: I) -> Self {
        self.files.extend(files.into_iter().map(Into::into));
        self
    }

    pub fn with_tool(mut self, tool: &str) -> Self {
        self.tools.insert(tool.to_owned());
        self
    }

    pub fn with_text(mut self, file: &str, text: &str) -> Self {
        self.files.insert(file.to_owned());
        self.texts.insert(file.to_owned(), text.to_owned());
        self
    }
}

fn read_small(path: &Path) -> Option<String> {
    let file = fs::File::open(path).ok()?;
    let mut buf = Vec::new();
    file.take(MAX_READ).read_to_end(&mut buf).ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// Rule names at the start of a line, followed by `:` but not `:=` (an assignment).
/// Pattern rules (`%.o:`) and special targets (`.PHONY:`) are skipped.
fn make_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with(['\t', ' ', '#', '.']) {
            continue;
        }
        let Some((head, tail)) = line.split_once(':') else {
            continue;
        };
        if tail.starts_with('=') || head.contains('=') || head.contains('%') {
            continue;
        }
        for name in head.split_whitespace() {
            if name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
            {
                out.push(name.to_owned());
            }
        }
    }
    out
}

/// Recipe names: `name params...:` at the start of a line (optionally `@name`), not `:=`.
fn just_recipes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with([' ', '\t', '#', '[']) {
            continue;
        }
        let Some((head, tail)) = line.split_once(':') else {
            continue;
        };
        if tail.starts_with('=') || head.starts_with("set ") || head.starts_with("export ") {
            continue;
        }
        let Some(first) = head.split_whitespace().next() else {
            continue;
        };
        let name = first.trim_start_matches('@');
        if !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            out.push(name.to_owned());
        }
    }
    out
}

/// A directory below the root that is a project of its own (a monorepo's package, a
/// workspace's crate): its path (`/`-separated) and the platforms whose plain-name markers it
/// holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubProject {
    pub path: String,
    pub platforms: Vec<String>,
}

/// The sub-projects of `root`, one and two levels down (`packages/web`, `crates/core`): every
/// directory that holds a marker file of a descriptor by its plain name (`package.json`,
/// `Cargo.toml`, `pyproject.toml`, `go.mod`, ...). Hidden directories and dependency or build
/// directories are not looked into; at most [`MAX_SUBPROJECTS`] are listed, in path order.
pub fn subprojects(root: &Path, descriptors: &Descriptors) -> Vec<SubProject> {
    let mut names: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for d in descriptors.iter() {
        for m in &d.markers {
            if !m.contains(['*', '?', '[', '/']) {
                names.entry(m.as_str()).or_default().push(d.name.clone());
            }
        }
    }
    let listed = |dir: &Path| -> Vec<String> {
        let Ok(entries) = fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut out: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .filter(|n| !n.starts_with('.') && !SKIPPED_DIRS.contains(&n.as_str()))
            .collect();
        out.sort();
        out
    };
    let mut found = Vec::new();
    let mut visit = |rel: String| {
        let mut platforms: Vec<String> = names
            .iter()
            .filter(|(marker, _)| root.join(&rel).join(marker).is_file())
            .flat_map(|(_, ps)| ps.iter().cloned())
            .collect();
        platforms.sort();
        platforms.dedup();
        if !platforms.is_empty() && found.len() < MAX_SUBPROJECTS {
            found.push(SubProject {
                path: rel,
                platforms,
            });
        }
    };
    for first in listed(root) {
        visit(first.clone());
        for second in listed(&root.join(&first)) {
            visit(format!("{first}/{second}"));
        }
    }
    found
}

/// The most sub-projects [`subprojects`] lists.
pub const MAX_SUBPROJECTS: usize = 200;

/// Words in a script that reach the network (matched with spaces around the command).
pub const NETWORK_WORDS: &[&str] = &[
    " curl ",
    " wget ",
    " npm install",
    " npm i ",
    " npm ci",
    " npx ",
    " pnpm install",
    " pnpm dlx ",
    " yarn install",
    " yarn dlx ",
    " bunx ",
    " git clone ",
    " git fetch",
    " git pull",
    " git submodule update",
    " pip install ",
    " ssh ",
    " scp ",
    " rsync ",
    " docker pull ",
    " docker build ",
    "http://",
    "https://",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_targets_skip_assignments_and_specials() {
        let text =
            "CC := gcc\n.PHONY: test\nall: build\ntest lint:\n\tcargo test\n%.o: %.c\nX=1:2\n";
        assert_eq!(make_targets(text), ["all", "test", "lint"]);
    }

    #[test]
    fn just_recipes_with_params_and_quiet() {
        let text = "set shell := [\"bash\"]\nversion := \"1\"\n# c\ntest *args:\n  cargo test\n@lint:\n  x\n[private]\nfmt:\n";
        assert_eq!(just_recipes(text), ["test", "lint", "fmt"]);
    }

    #[test]
    fn package_json_skips_npm_placeholder_test_and_reports_broken_json() {
        let mut f = ProjectFacts::default();
        f.add_package_json(
            r#"{"scripts":{"test":"echo \"Error: no test specified\" && exit 1","lint":"eslint ."},"devDependencies":{"jest":"^29"}}"#,
        );
        assert!(!f.scripts.contains_key("test"));
        assert_eq!(f.scripts.get("lint").map(String::as_str), Some("eslint ."));
        assert!(f.dependencies.contains("jest"));
        f.add_package_json("{oops");
        assert_eq!(f.warnings.len(), 1);
    }
}
