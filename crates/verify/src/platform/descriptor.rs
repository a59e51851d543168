//! Descriptor types, strict parsing and validation, and the set of embedded descriptors.
//!
//! Parsing is strict (unknown keys are errors) because a descriptor is our own configuration:
//! a typo such as `comands` must fail loudly with the descriptor's origin and TOML location,
//! not silently drop a gate.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

/// The descriptors shipped in the binary, as `(origin, text)` pairs.
pub fn builtin_texts() -> &'static [(&'static str, &'static str)] {
    &[
        ("rust.toml", include_str!("../../platforms/rust.toml")),
        ("node.toml", include_str!("../../platforms/node.toml")),
        ("python.toml", include_str!("../../platforms/python.toml")),
        (
            "python-tests.toml",
            include_str!("../../platforms/python-tests.toml"),
        ),
        ("go.toml", include_str!("../../platforms/go.toml")),
        ("dotnet.toml", include_str!("../../platforms/dotnet.toml")),
        ("maven.toml", include_str!("../../platforms/maven.toml")),
        ("gradle.toml", include_str!("../../platforms/gradle.toml")),
        ("make.toml", include_str!("../../platforms/make.toml")),
        ("just.toml", include_str!("../../platforms/just.toml")),
    ]
}

/// One platform descriptor, as written in TOML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Descriptor {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub markers: Vec<String>,
    #[serde(default, rename = "match")]
    pub match_mode: MatchMode,
    #[serde(default)]
    pub priority: i32,
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    #[serde(default)]
    pub commands: Commands,
    #[serde(default)]
    pub variants: Vec<Variant>,
    #[serde(default)]
    pub conventions: Vec<String>,
    #[serde(default)]
    pub quality: Quality,
    #[serde(default)]
    pub environment: Environment,
}

/// The project's environment on disk: what the clean room takes from the repository at the
/// seal, what it puts on the checks' `PATH`, and what the environment manifest covers.
/// Every path is relative to the project root; `packages` and `manifests` are globs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// Ignored directories taken into the room at the seal, and replaced when they change
    /// (`.venv`, `node_modules`, `vendor`).
    #[serde(default)]
    pub dirs: Vec<String>,
    /// Ignored build outputs copied into the room only when it has none (`target`): a warm
    /// start, never replaced — the room's builds keep their own.
    #[serde(default)]
    pub seed: Vec<String>,
    /// Directories put first on the checks' `PATH`, when the room took them (`.venv/bin`).
    #[serde(default)]
    pub bin: Vec<String>,
    /// The installed-package trees: each entry of one is a package of the manifest.
    #[serde(default)]
    pub packages: Vec<String>,
    /// Dependency manifests: a change in one explains a change in the packages.
    #[serde(default)]
    pub manifests: Vec<String>,
    /// The project's install command, detected (`[room] setup` unset): the first row whose
    /// `file` is in the tree and whose `needs` (any of them) the room's environment has.
    #[serde(default)]
    pub setup: Vec<SetupRule>,
}

/// One way a platform installs a project's dependencies (`[[environment.setup]]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupRule {
    /// A root file (glob) that says the project installs this way (`pnpm-lock.yaml`).
    pub file: String,
    /// Environment directories of which one must exist before the command runs (a `pip` into a
    /// virtualenv: without one it would install into the machine's python); empty: none.
    #[serde(default)]
    pub needs: Vec<String>,
    /// The command, run at the project's root in the room.
    pub command: String,
}

impl Environment {
    /// Adds `other`'s entries that this one lacks, keeping the order.
    pub fn extend(&mut self, other: &Environment) {
        let lists = [
            (&mut self.dirs, &other.dirs),
            (&mut self.seed, &other.seed),
            (&mut self.bin, &other.bin),
            (&mut self.packages, &other.packages),
            (&mut self.manifests, &other.manifests),
        ];
        for (mine, theirs) in lists {
            for v in theirs {
                if !mine.contains(v) {
                    mine.push(v.clone());
                }
            }
        }
        for rule in &other.setup {
            if !self.setup.contains(rule) {
                self.setup.push(rule.clone());
            }
        }
    }

    /// The install command detected for a project: the first [`SetupRule`] whose `file`
    /// matches one of `files` (root-relative) and whose `needs` one of `has` holds.
    pub fn detect_setup(&self, files: &[String], has: &dyn Fn(&str) -> bool) -> Option<&str> {
        self.setup
            .iter()
            .find(|r| {
                let m = compile_glob(&r.file).ok();
                m.is_some_and(|m| files.iter().any(|f| m.is_match(f)))
                    && (r.needs.is_empty() || r.needs.iter().any(|n| has(n)))
            })
            .map(|r| r.command.as_str())
    }

    /// Whether a root-relative path is one of the dependency manifests (compiles the globs: to
    /// test many paths, take [`Environment::manifest_set`] once).
    pub fn is_manifest(&self, path: &str) -> bool {
        self.manifest_set().is_match(path)
    }

    /// The dependency manifests' globs, compiled once for many paths (a glob compiled per path
    /// was three quarters of a Stop's CPU after an edit, on a 10,000-file tree).
    pub fn manifest_set(&self) -> ManifestSet {
        let mut set = GlobSetBuilder::new();
        for g in &self.manifests {
            // Validated when the descriptor was read; an invalid one matches nothing, as before.
            if let Ok(glob) = glob_of(g) {
                set.add(glob);
            }
        }
        ManifestSet(set.build().unwrap_or_else(|_| GlobSet::empty()))
    }
}

/// The dependency manifests' globs of an [`Environment`], compiled ([`Environment::manifest_set`]).
#[derive(Debug, Clone)]
pub struct ManifestSet(GlobSet);

impl ManifestSet {
    /// Whether a root-relative path is one of the dependency manifests.
    pub fn is_match(&self, path: &str) -> bool {
        self.0.is_match(path)
    }
}

/// Whether any or all markers must be present for a platform to match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchMode {
    #[default]
    Any,
    All,
}

/// The gate commands of a platform; every one is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Commands {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lint_fix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typecheck: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<String>,
}

impl Commands {
    /// `(gate name, command)` for every command that is set, in a fixed order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("build", &self.build),
            ("test", &self.test),
            ("lint", &self.lint),
            ("lint_fix", &self.lint_fix),
            ("typecheck", &self.typecheck),
            ("coverage", &self.coverage),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| (k, v)))
    }

    /// Overrides every command that `other` sets.
    pub fn merge(&mut self, other: &Commands) {
        let pairs = [
            (&mut self.build, &other.build),
            (&mut self.test, &other.test),
            (&mut self.lint, &other.lint),
            (&mut self.lint_fix, &other.lint_fix),
            (&mut self.typecheck, &other.typecheck),
            (&mut self.coverage, &other.coverage),
        ];
        for (mine, theirs) in pairs {
            if let Some(v) = theirs {
                *mine = Some(v.clone());
            }
        }
    }

    fn map(&self, f: impl Fn(&str) -> String) -> Commands {
        let g = |o: &Option<String>| o.as_deref().map(&f);
        Commands {
            build: g(&self.build),
            test: g(&self.test),
            lint: g(&self.lint),
            lint_fix: g(&self.lint_fix),
            typecheck: g(&self.typecheck),
            coverage: g(&self.coverage),
        }
    }

    pub(crate) fn substitute(&self, vars: &BTreeMap<String, String>) -> Commands {
        self.map(|c| substitute_vars(c, vars))
    }
}

/// A data-driven adjustment applied when its condition holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub when: Condition,
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    #[serde(default)]
    pub commands: Commands,
    #[serde(default)]
    pub conventions: Vec<String>,
}

/// Facts a variant depends on; all conditions that are set must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependency: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<Contains>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub make_target: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub just_recipe: Option<String>,
    /// `package.json` has a pre/post script (`pretest`, `postinstall`, ...) that reaches the
    /// network (`ProjectFacts::networked_hooks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub networked_hooks: Option<bool>,
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        let mut push = |label: &str, v: &Option<String>| {
            if let Some(v) = v {
                parts.push(format!("{label} {v}"));
            }
        };
        push("file", &self.file);
        push("no file", &self.no_file);
        push("tool", &self.tool);
        push("script", &self.script);
        push("dependency", &self.dependency);
        push("make target", &self.make_target);
        push("just recipe", &self.just_recipe);
        if let Some(c) = &self.contains {
            parts.push(format!("{} contains {:?}", c.file, c.text));
        }
        if let Some(n) = self.networked_hooks {
            parts.push(format!(
                "{}pre/post scripts that reach the network",
                if n { "" } else { "no " }
            ));
        }
        if parts.is_empty() {
            f.write_str("always")
        } else {
            f.write_str(&parts.join(" and "))
        }
    }
}

/// A root file that must contain a text (e.g. `[tool.poetry]` in `pyproject.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contains {
    pub file: String,
    pub text: String,
}

/// Quality gates that go beyond "the command passed".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quality {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage_min: Option<SizeThresholds>,
}

/// A percentage per story size.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeThresholds {
    #[serde(default, rename = "S", skip_serializing_if = "Option::is_none")]
    pub s: Option<f64>,
    #[serde(default, rename = "M", skip_serializing_if = "Option::is_none")]
    pub m: Option<f64>,
    #[serde(default, rename = "L", skip_serializing_if = "Option::is_none")]
    pub l: Option<f64>,
    #[serde(default, rename = "XL", skip_serializing_if = "Option::is_none")]
    pub xl: Option<f64>,
}

impl SizeThresholds {
    fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> {
        [("S", self.s), ("M", self.m), ("L", self.l), ("XL", self.xl)]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
    }

    pub(crate) fn render(&self) -> String {
        self.iter()
            .map(|(k, v)| format!("{k} {v}%"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A descriptor that could not be read; names its origin (file or built-in name).
#[derive(Debug, thiserror::Error)]
pub enum DescriptorError {
    /// Invalid TOML or a schema mismatch; the TOML error names line and column.
    #[error("platform descriptor {origin}: {error}")]
    Toml {
        origin: String,
        #[source]
        error: toml::de::Error,
    },
    /// Valid TOML whose content makes no sense; `path` is the TOML key path.
    #[error("platform descriptor {origin}: at `{path}`: {message}")]
    Invalid {
        origin: String,
        path: String,
        message: String,
    },
}

/// Parses and validates one descriptor. `origin` names it in errors (a file name).
pub fn parse_descriptor(origin: &str, text: &str) -> Result<Descriptor, DescriptorError> {
    let d: Descriptor = toml::from_str(text).map_err(|error| DescriptorError::Toml {
        origin: origin.to_owned(),
        error,
    })?;
    validate(&d).map_err(|(path, message)| DescriptorError::Invalid {
        origin: origin.to_owned(),
        path,
        message,
    })?;
    Ok(d)
}

fn validate(d: &Descriptor) -> Result<(), (String, String)> {
    let valid_name = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    };
    if !valid_name(&d.name) {
        return Err((
            "name".into(),
            format!(
                "{:?} must be non-empty lowercase ASCII letters, digits, - or _",
                d.name
            ),
        ));
    }
    if d.markers.is_empty() {
        return Err(("markers".into(), "at least one marker is required".into()));
    }
    for (i, m) in d.markers.iter().enumerate() {
        compile_glob(m).map_err(|e| (format!("markers[{i}]"), e))?;
    }
    let mut known: BTreeSet<&str> = d.vars.keys().map(String::as_str).collect();
    for v in &d.variants {
        known.extend(v.vars.keys().map(String::as_str));
    }
    if known.contains("report") {
        return Err((
            "vars.report".into(),
            "`report` is reserved for the report path".into(),
        ));
    }
    check_placeholders(&d.commands, &known, "commands")?;
    for (i, v) in d.variants.iter().enumerate() {
        check_placeholders(&v.commands, &known, &format!("variants[{i}].commands"))?;
        for (label, g) in [("file", &v.when.file), ("no_file", &v.when.no_file)] {
            if let Some(g) = g {
                compile_glob(g).map_err(|e| (format!("variants[{i}].when.{label}"), e))?;
            }
        }
    }
    let env = &d.environment;
    for (label, list) in [
        ("dirs", &env.dirs),
        ("seed", &env.seed),
        ("bin", &env.bin),
        ("packages", &env.packages),
        ("manifests", &env.manifests),
    ] {
        for (i, p) in list.iter().enumerate() {
            let plain = !p.is_empty() && !p.starts_with('/') && !p.split('/').any(|c| c == "..");
            if !plain {
                return Err((
                    format!("environment.{label}[{i}]"),
                    format!("{p:?} must be a relative path inside the project"),
                ));
            }
            compile_glob(p).map_err(|e| (format!("environment.{label}[{i}]"), e))?;
        }
    }
    for (i, r) in env.setup.iter().enumerate() {
        compile_glob(&r.file).map_err(|e| (format!("environment.setup[{i}].file"), e))?;
        if r.command.trim().is_empty() {
            return Err((
                format!("environment.setup[{i}].command"),
                "an install command cannot be empty".into(),
            ));
        }
    }
    if let Some(t) = &d.quality.coverage_min {
        for (size, v) in t.iter() {
            if !(0.0..=100.0).contains(&v) {
                return Err((
                    format!("quality.coverage_min.{size}"),
                    format!("{v} is not a percentage between 0 and 100"),
                ));
            }
        }
    }
    Ok(())
}

fn check_placeholders(
    c: &Commands,
    known: &BTreeSet<&str>,
    path: &str,
) -> Result<(), (String, String)> {
    for (gate, cmd) in c.iter() {
        for name in placeholders(cmd) {
            if name != "report" && !known.contains(name) {
                return Err((
                    format!("{path}.{gate}"),
                    format!("unknown placeholder {{{name}}} (define it under [vars])"),
                ));
            }
        }
    }
    Ok(())
}

/// Names inside `{...}` that look like identifiers; other braces are left to the shell.
fn placeholders(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some((_, after)) = rest.split_once('{') {
        match after.split_once('}') {
            Some((name, tail)) => {
                if is_ident(name) {
                    out.push(name);
                }
                rest = tail;
            }
            None => break,
        }
    }
    out
}

fn is_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Replaces `{name}` for every known var; unknown names (notably `{report}`) stay.
/// Runs of spaces collapse so that an empty var leaves no gap.
pub(crate) fn substitute_vars(s: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some((before, after)) = rest.split_once('{') {
        out.push_str(before);
        match after.split_once('}') {
            Some((name, tail)) if is_ident(name) && vars.contains_key(name) => {
                out.push_str(vars.get(name).map(String::as_str).unwrap_or(""));
                rest = tail;
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    let mut collapsed = String::with_capacity(out.len());
    let mut prev_space = false;
    for c in out.trim().chars() {
        if c == ' ' && prev_space {
            continue;
        }
        prev_space = c == ' ';
        collapsed.push(c);
    }
    collapsed
}

/// Markers and conditions match paths relative to the project root; `*` does not cross `/`.
pub(crate) fn compile_glob(pattern: &str) -> Result<GlobMatcher, String> {
    glob_of(pattern).map(|g: Glob| g.compile_matcher())
}

/// A marker's or condition's glob, parsed with the rules of [`compile_glob`].
fn glob_of(pattern: &str) -> Result<Glob, String> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| format!("invalid glob {pattern:?}: {e}"))
}

/// An ordered, validated set of descriptors with unique names.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Descriptors {
    list: Vec<Descriptor>,
}

impl Descriptors {
    /// The embedded descriptors only.
    pub fn builtin() -> Result<Self, DescriptorError> {
        Self::with_overrides::<&str, &str>(&[])
    }

    /// The embedded descriptors, then `extra` `(origin, text)` pairs: a descriptor whose `name`
    /// equals an existing one replaces it in place; a new name is appended.
    pub fn with_overrides<O: AsRef<str>, T: AsRef<str>>(
        extra: &[(O, T)],
    ) -> Result<Self, DescriptorError> {
        let mut set = Descriptors::default();
        for (origin, text) in builtin_texts() {
            set.insert(parse_descriptor(origin, text)?);
        }
        for (origin, text) in extra {
            set.insert(parse_descriptor(origin.as_ref(), text.as_ref())?);
        }
        Ok(set)
    }

    /// A set from exactly these descriptors, for tests and for users who want none of ours.
    pub fn from_descriptors(list: impl IntoIterator<Item = Descriptor>) -> Self {
        let mut set = Descriptors::default();
        for d in list {
            set.insert(d);
        }
        set
    }

    fn insert(&mut self, d: Descriptor) {
        match self.list.iter_mut().find(|x| x.name == d.name) {
            Some(slot) => *slot = d,
            None => self.list.push(d),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Descriptor> {
        self.list.iter()
    }

    pub fn get(&self, name: &str) -> Option<&Descriptor> {
        self.list.iter().find(|d| d.name == name)
    }

    /// The environment of every platform together: a repository may hold a virtualenv and a
    /// `node_modules` side by side.
    pub fn environment(&self) -> Environment {
        let mut env = Environment::default();
        for d in &self.list {
            env.extend(&d.environment);
        }
        env
    }

    /// Every tool some condition asks about, so the caller knows what to look up on PATH.
    pub fn tools(&self) -> BTreeSet<String> {
        self.conditions().filter_map(|c| c.tool.clone()).collect()
    }

    /// Every root file some `contains` condition reads.
    pub fn files_read(&self) -> BTreeSet<String> {
        self.conditions()
            .filter_map(|c| c.contains.as_ref().map(|c| c.file.clone()))
            .collect()
    }

    fn conditions(&self) -> impl Iterator<Item = &Condition> {
        self.list
            .iter()
            .flat_map(|d| d.variants.iter().map(|v| &v.when))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_descriptors_parse() {
        let set = Descriptors::builtin().unwrap();
        let names: Vec<_> = set.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "rust",
                "node",
                "python",
                "python-tests",
                "go",
                "dotnet",
                "maven",
                "gradle",
                "make",
                "just"
            ]
        );
        assert!(set.tools().contains("cargo-nextest"));
        assert!(set.files_read().contains("pyproject.toml"));
        let env = set.environment();
        for d in [".venv", "venv", "node_modules", "vendor"] {
            assert!(env.dirs.iter().any(|x| x == d), "{d}");
        }
        assert!(env.bin.iter().any(|x| x == "node_modules/.bin"));
        assert!(env.is_manifest("requirements-dev.txt"));
        assert!(env.is_manifest("Cargo.lock"));
        assert!(!env.is_manifest("src/lib.rs"));
        // The compiled set answers as each glob compiled alone (`*` does not cross `/`).
        let set_of = env.manifest_set();
        for p in [
            "Cargo.lock",
            "package.json",
            "web/package.json",
            "a/b/package.json",
            "requirements-dev.txt",
            "src/requirements.txt.bak",
            "src/lib.rs",
            "node_modules/x/package.json",
        ] {
            let alone = env
                .manifests
                .iter()
                .any(|g| compile_glob(g).is_ok_and(|m| m.is_match(p)));
            assert_eq!(set_of.is_match(p), alone, "{p}");
        }
        // The install command follows the lockfile; a pip needs a virtualenv to install into.
        let files = |fs: &[&str]| fs.iter().map(|f| (*f).to_owned()).collect::<Vec<_>>();
        let venv = |d: &str| d == ".venv";
        let none = |_: &str| false;
        let detect = |fs: &[&str], has: &dyn Fn(&str) -> bool| {
            env.detect_setup(&files(fs), has).map(str::to_owned)
        };
        assert_eq!(
            detect(&["package.json", "pnpm-lock.yaml"], &none).as_deref(),
            Some("pnpm install --frozen-lockfile")
        );
        assert_eq!(
            detect(&["package.json", "package-lock.json"], &none).as_deref(),
            Some("npm ci")
        );
        assert_eq!(
            detect(&["pyproject.toml", "uv.lock"], &none).as_deref(),
            Some("uv sync --frozen")
        );
        assert_eq!(
            detect(&["requirements.txt"], &venv).as_deref(),
            Some("python -m pip install -r requirements.txt")
        );
        assert_eq!(detect(&["requirements.txt"], &none), None);
        assert_eq!(
            detect(&["pyproject.toml"], &venv).as_deref(),
            Some("python -m pip install -e .")
        );
        assert_eq!(
            detect(&["Cargo.lock"], &none).as_deref(),
            Some("cargo fetch")
        );
        assert_eq!(
            detect(&["go.mod"], &none).as_deref(),
            Some("go mod download")
        );
    }

    #[test]
    fn an_environment_path_outside_the_project_is_an_error() {
        let err = parse_descriptor(
            "x.toml",
            "name = \"x\"\nmarkers = [\"a\"]\n[environment]\ndirs = [\"../up\"]\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("environment.dirs[0]"), "{err}");
    }

    #[test]
    fn unknown_key_is_an_error_with_origin_and_line() {
        let err = parse_descriptor(
            "mine.toml",
            "name = \"x\"\nmarkers = [\"a\"]\ncomands = {}\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("mine.toml"), "{err}");
        assert!(err.contains("line 3"), "{err}");
        assert!(err.contains("comands"), "{err}");
    }

    #[test]
    fn unknown_placeholder_is_an_error_with_key_path() {
        let text = "name = \"x\"\nmarkers = [\"a\"]\n[[variants]]\nwhen = {}\ncommands = { test = \"{pm} test\" }\n";
        let err = parse_descriptor("x.toml", text).unwrap_err().to_string();
        assert!(err.contains("variants[0].commands.test"), "{err}");
        assert!(err.contains("{pm}"), "{err}");
    }

    #[test]
    fn bad_glob_and_bad_threshold_are_errors() {
        let err = parse_descriptor("x.toml", "name = \"x\"\nmarkers = [\"a[\"]\n").unwrap_err();
        assert!(err.to_string().contains("markers[0]"), "{err}");
        let err = parse_descriptor(
            "x.toml",
            "name = \"x\"\nmarkers = [\"a\"]\n[quality.coverage_min]\nM = 120\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("quality.coverage_min.M"), "{err}");
    }

    #[test]
    fn override_replaces_by_name() {
        let mine = "name = \"rust\"\nmarkers = [\"Cargo.toml\"]\npriority = 99\n";
        let set = Descriptors::with_overrides(&[("mine.toml", mine)]).unwrap();
        assert_eq!(set.get("rust").unwrap().priority, 99);
        assert_eq!(set.iter().count(), builtin_texts().len());
    }

    #[test]
    fn substitution_keeps_unknown_and_collapses_spaces() {
        let vars = BTreeMap::from([
            ("run".to_owned(), "npm run".to_owned()),
            ("sep".to_owned(), String::new()),
        ]);
        assert_eq!(
            substitute_vars("{run} test {sep} --x={report}", &vars),
            "npm run test --x={report}"
        );
        assert_eq!(substitute_vars("a {b c} {", &vars), "a {b c} {");
    }
}
