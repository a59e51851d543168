//! The guard's configuration, as the CLI reads it from `pawl.toml [guard]`,
//! and its compiled form (globs and regexes built once).
//!
//! Path globs use `/` separators; `*` stays within one path component and
//! `**` spans any number. A glob starting with `!` is an exception. A glob
//! starting with `/` matches absolute paths, `~/` paths under `$HOME`, and
//! `$TMPDIR/` paths under `$TMPDIR`; any other glob is relative to the
//! repository root (and, for protected paths, also matches absolute paths,
//! so `**/.env` protects every `.env`).

use globset::GlobBuilder;
use serde::{Deserialize, Serialize};

/// `[guard]` in `pawl.toml`. Every key has a default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Policy {
    /// Branches on which commits and ref moves are denied while a run is
    /// active. Globs (`release/*`) are allowed.
    pub protected_branches: Vec<String>,
    /// Paths that no shell command or file tool may write, move or delete.
    pub protected_paths: Vec<String>,
    /// Paths that `rm -r` may remove (build outputs, temp dirs).
    pub allowances: Vec<String>,
    /// Extra deny rules, checked against every simple command found.
    pub deny: Vec<DenyRule>,
    /// Switch the guard off entirely (every input allowed).
    pub allow_unsafe: bool,
    /// Keep the guard active even when no run is active.
    pub always: bool,
    /// pawl's own files, which no command may reach (rule `tamper`), by what may be done with
    /// them. The CLI adds the ones only it knows (the user state directory, the pawl binary the
    /// hooks run) with [`Policy::protect_pawl_path`].
    pub pawl_paths: Vec<PawlPath>,
    /// Rules switched off by name (`[guard.rules] publish = false`); only
    /// [`crate::decision::SWITCHABLE_RULES`] can be.
    pub disabled_rules: Vec<String>,
    /// Absolute directories protected as a whole by [`Policy::protect_dir`]: they stay
    /// protected in a temporary directory too, where a throwaway copy of a protected name is
    /// otherwise allowed.
    pub protected_dirs: Vec<String>,
}

/// One of pawl's own paths (a glob, in the syntax of `protected_paths`) and what it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PawlPath {
    pub glob: String,
    pub kind: PawlPathKind,
}

/// What one of pawl's paths is, which decides which programs may name it
/// (`rules/reach.rs` holds the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PawlPathKind {
    /// pawl's store and session marker: programs that only read may look at them; nothing
    /// else (no interpreter, no database client, no copier) may name them.
    Store,
    /// pawl's state outside the repository (the key that authenticates the store, the clean
    /// rooms): only facts about it (`ls`, `stat`) may be asked; nothing may read, copy or
    /// archive it, nor a directory that holds it.
    Secret,
    /// The pawl binary the hooks run: it may be run (judged as `pawl`) and looked at, never
    /// copied, linked, moved or changed.
    Binary,
}

impl PawlPathKind {
    pub const ALL: [PawlPathKind; 3] = [
        PawlPathKind::Store,
        PawlPathKind::Secret,
        PawlPathKind::Binary,
    ];

    fn index(self) -> usize {
        match self {
            PawlPathKind::Store => 0,
            PawlPathKind::Secret => 1,
            PawlPathKind::Binary => 2,
        }
    }
}

/// pawl's paths every policy knows: the store and the marker of any repository, and the
/// default user state directory. The CLI adds `$XDG_STATE_HOME/pawl` and the binary.
pub fn default_pawl_paths() -> Vec<PawlPath> {
    let row = |glob: &str, kind| PawlPath {
        glob: glob.to_owned(),
        kind,
    };
    vec![
        row("**/.pawl/pawl.db", PawlPathKind::Store),
        row("**/.pawl/pawl.db-wal", PawlPathKind::Store),
        row("**/.pawl/pawl.db-shm", PawlPathKind::Store),
        row("**/.pawl/pawl.db-journal", PawlPathKind::Store),
        row("**/.pawl/session.json", PawlPathKind::Store),
        row("~/.local/state/pawl", PawlPathKind::Secret),
        row("~/.local/state/pawl/**", PawlPathKind::Secret),
    ]
}

impl Policy {
    /// Protects one of pawl's paths: no write, move or delete (`protected-path`), and no
    /// program but those its kind allows may name it (`tamper`). An absolute path protects
    /// the directory's contents too when it is one.
    pub fn protect_pawl_path(&mut self, path: &str, kind: PawlPathKind) {
        let path = path.trim_end_matches('/');
        if path.is_empty() {
            return;
        }
        let mut globs = vec![path.to_owned()];
        if kind != PawlPathKind::Binary {
            globs.push(format!("{path}/**"));
        }
        for glob in globs {
            if !self.protected_paths.contains(&glob) {
                self.protected_paths.push(glob.clone());
            }
            if !self.pawl_paths.iter().any(|p| p.glob == glob) {
                self.pawl_paths.push(PawlPath { glob, kind });
            }
        }
    }
}

impl Policy {
    /// Protects the directory at the absolute `path` and everything below it (rule
    /// `protected-path`): nothing may write, move or delete there. The path is taken as
    /// written: glob characters in it are escaped. The CLI uses it for what a command judged in
    /// a linked worktree must leave alone (the run's repository, the other stories' worktrees).
    pub fn protect_dir(&mut self, path: &str) {
        let path = path.trim_end_matches('/');
        if !path.starts_with('/') {
            return;
        }
        let mut literal = String::with_capacity(path.len());
        for c in path.chars() {
            if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
                literal.push('\\');
            }
            literal.push(c);
        }
        for glob in [literal.clone(), format!("{literal}/**")] {
            if !self.protected_paths.contains(&glob) {
                self.protected_paths.push(glob);
            }
        }
        if !self.protected_dirs.iter().any(|d| d == path) {
            self.protected_dirs.push(path.to_owned());
        }
    }

    /// Whether the absolute, normalised `path` is one of [`Policy::protected_dirs`] or lies
    /// below one.
    pub(crate) fn in_protected_dir(&self, path: &str) -> bool {
        self.protected_dirs
            .iter()
            .any(|d| crate::paths::is_within(path, d))
    }
}

/// A user-defined deny rule (`[[guard.deny]]`). A rule with neither field
/// set matches nothing; with both set, both must match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DenyRule {
    /// Glob on the command's name after wrapper removal and with any
    /// directory stripped (`terraform`, `kubectl`, `docker*`).
    pub command: Option<String>,
    /// Regex searched in the resolved command line: the argv joined by
    /// single spaces, starting with the bare command name
    /// (`^kubectl (delete|drain)\b`).
    pub pattern: Option<String>,
    /// Shown to the agent when the rule denies.
    pub reason: Option<String>,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            protected_branches: vec!["main".into(), "master".into()],
            protected_paths: default_protected_paths(),
            allowances: default_allowances(),
            // pawl's store holds the run's limits and evidence: no database tool may open it.
            deny: vec![store_deny_rule()],
            allow_unsafe: false,
            always: false,
            pawl_paths: default_pawl_paths(),
            disabled_rules: Vec::new(),
            protected_dirs: Vec::new(),
        }
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// The default protected paths: secrets, keys and certificates, database
/// migrations, infrastructure code, container and Kubernetes manifests,
/// and git's own directory.
pub fn default_protected_paths() -> Vec<String> {
    strings(&[
        // pawl's own state (limits, evidence, leases) and git's: an agent must not rewrite them
        // by hand. pawl and git write there themselves, which the guard sees as `pawl ...` and
        // `git ...` commands, not as file writes.
        ".pawl",
        ".pawl/**",
        // Any `.pawl/` (a nested repository's too): a marker planted below the run's root
        // must not be taken for the run's.
        "**/.pawl",
        "**/.pawl/**",
        ".git",
        ".git/**",
        // pawl's configuration (the guard's policy and the run's limits) and the agents' hook
        // settings that call pawl: an agent that rewrites them switches its own guard off.
        "pawl.toml",
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".codex/hooks.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        // The same hook settings wherever they are (a nested project, HOME when it is unknown),
        // and the agents' user-level settings: hooks configured there run too.
        "**/.claude/settings.json",
        "**/.claude/settings.local.json",
        "**/.codex/hooks.json",
        "**/.codex/config.toml",
        "**/.gemini/settings.json",
        // Claude Code's user config (MCP servers it starts), hook scripts and managed settings;
        // Codex's home (config, hooks, credentials). Not all of `~/.claude` or `~/.gemini`:
        // agents keep plans and memory there with their own tools.
        "~/.claude.json",
        "~/.claude/hooks/**",
        "/etc/claude-code/**",
        "~/.codex/**",
        // pawl's state outside the repository: the key that authenticates the store, the clean
        // rooms the checks run in (`$XDG_STATE_HOME/pawl` is added by the CLI).
        "~/.local/state/pawl",
        "~/.local/state/pawl/**",
        // Shell startup files: what they hold runs in every later shell.
        "**/.bashrc",
        "**/.bash_profile",
        "**/.bash_login",
        "**/.bash_logout",
        "**/.profile",
        "**/.zshrc",
        "**/.zshenv",
        "**/.zprofile",
        "**/.zlogin",
        "**/.config/fish/**",
        // Autostart entries and user services: what they name runs at every login.
        "**/.config/autostart/**",
        "**/.config/systemd/user/**",
        "**/Library/LaunchAgents/**",
        // Files that name programs a later ordinary command runs (npm's script-shell, direnv's
        // .envrc, git hooks managed by husky), or hold registry credentials.
        "**/.npmrc",
        "**/.pypirc",
        "**/.envrc",
        "**/.husky",
        "**/.husky/**",
        "**/.env",
        "**/.env.*",
        // Examples, samples and templates stay examples with a suffix (`.env.example.bak`).
        "!**/.env.example",
        "!**/.env.example.*",
        "!**/.env.*.example",
        "!**/.env.*.example.*",
        "!**/.env.sample",
        "!**/.env.sample.*",
        "!**/.env.*.sample",
        "!**/.env.*.sample.*",
        "!**/.env.template",
        "!**/.env.template.*",
        "!**/.env.*.template",
        "!**/.env.*.template.*",
        "!**/.env.dist",
        "!**/.env.dist.*",
        "!**/.env.*.dist",
        "**/secrets",
        "**/secrets/**",
        "**/*.key",
        "**/*.pem",
        "**/*.crt",
        "**/*.p12",
        "**/*.pfx",
        "**/id_rsa*",
        "**/id_ed25519*",
        "**/id_ecdsa*",
        "~/.ssh/**",
        "~/.aws/**",
        "~/.gnupg/**",
        // The same credentials wherever HOME is (HOME may be unknown or reassigned).
        "**/.ssh/**",
        "**/.aws/**",
        "**/.gnupg/**",
        "**/.kube/**",
        "**/.netrc",
        "**/.git-credentials",
        "**/.pgpass",
        // Git's configuration outside the repository (`~/.gitconfig`, `~/.config/git/config`):
        // aliases and programs that every later git command runs.
        "**/.gitconfig",
        "**/.config/git/**",
        "**/.config/gh/**",
        "**/.docker/config.json",
        // Application secrets kept in configuration files (Rails' config/secrets.yml).
        "**/secrets.yml",
        "**/secrets.yaml",
        "**/secrets.json",
        "**/secrets.toml",
        "**/secrets.env",
        "**/credentials.json",
        "**/migrations/**",
        // Migrations under other names: Alembic, Rails (Prisma's are under migrations/).
        "**/alembic/versions/**",
        "**/db/migrate/**",
        "**/*.tf",
        "**/*.tfvars",
        // Terraform state (it holds secrets and the real infrastructure's identity).
        "**/*.tfstate",
        "**/*.tfstate.backup",
        "**/*.tfstate.*.backup",
        "**/.terraform",
        "**/.terraform/**",
        "**/Dockerfile*",
        "**/Containerfile*",
        "**/*.dockerfile",
        "**/kustomization.yaml",
        "**/kustomization.yml",
        "**/Kustomization",
        "**/k8s/**",
        "**/kubernetes/**",
        "**/.git",
        "**/.git/**",
    ])
}

/// The default allowances for `rm -r`: build outputs, caches and virtual environments anywhere
/// in the repository, `/tmp` and `$TMPDIR`. Inside the repository a directory that holds
/// tracked files is never removable, whatever its name (so `bin` holding tracked scripts is not).
/// Not included: `.terraform` (it holds state), `vendor` (often committed), `env` (a name
/// too general).
pub fn default_allowances() -> Vec<String> {
    // Caches under `~/.cache` (pip, uv, ...), macOS's `~/Library/Caches` (its per-user cache
    // directory, the same contract: apps rebuild what is removed) and cargo's download cache
    // are rebuilt on demand.
    let mut out = strings(&[
        "/tmp/**",
        "$TMPDIR/**",
        "~/.cache/*",
        "~/.cache/*/**",
        "~/Library/Caches/*",
        "~/Library/Caches/*/**",
        "~/.cargo/registry/cache",
        "~/.cargo/registry/cache/**",
    ]);
    for dir in [
        "target",
        "node_modules",
        "dist",
        "build",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        "__pycache__",
        "coverage",
        ".next",
        ".turbo",
        ".parcel-cache",
        ".gradle",
        ".tox",
        ".venv",
        "venv",
        "out",
        ".cache",
        ".nuxt",
        ".svelte-kit",
        ".angular",
        ".eggs",
        "*.egg-info",
        ".nox",
        ".hypothesis",
        "htmlcov",
        ".coverage",
        ".nyc_output",
        ".pnpm-store",
        ".vite",
        ".expo",
        ".dart_tool",
        "tmp",
        ".tmp",
        // Documentation builds (Sphinx, MkDocs) and .NET outputs: removable only while they hold
        // no tracked file, like every name here.
        "_build",
        "site",
        "bin",
        "obj",
    ] {
        out.push(format!("**/{dir}"));
        out.push(format!("**/{dir}/**"));
    }
    out
}

/// A policy that could not be compiled.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// A path glob is malformed.
    #[error("invalid glob {glob:?} in guard.{key}: {source}")]
    Glob {
        /// Which key held it.
        key: &'static str,
        /// The glob as written.
        glob: String,
        /// What globset said.
        source: globset::Error,
    },
    /// A deny rule's regex is malformed.
    #[error("invalid regex {pattern:?} in guard.deny: {source}")]
    Regex {
        /// The pattern as written.
        pattern: String,
        /// What regex said.
        source: Box<regex::Error>,
    },
}

thread_local! {
    /// The built-in protected paths, allowances and pawl paths.
    static BUILT_IN_GLOBS: std::collections::HashSet<String> = default_protected_paths()
        .into_iter()
        .chain(default_allowances())
        .chain(default_pawl_paths().into_iter().map(|p| p.glob))
        .collect();
}

/// Globs split by where they apply, with exceptions. The globs are checked with globset when
/// the policy is compiled and matched by [`crate::glob::PathGlob`], which builds nothing: a
/// one-shot decision (the hook's) never pays for regexes.
#[derive(Debug, Clone)]
pub(crate) struct PathGlobs {
    /// Absolute (`/`, `~/`, `$TMPDIR/`) globs, their exceptions, relative globs, theirs.
    globs: [Vec<crate::glob::PathGlob>; 4],
}

/// The forms of one path that globs are matched against.
#[derive(Debug, Default)]
pub(crate) struct PathForms {
    /// Normalised absolute path.
    pub absolute: String,
    /// `~/rest` when under `$HOME`.
    pub home: Option<String>,
    /// `$TMPDIR/rest` when under `$TMPDIR`.
    pub tmpdir: Option<String>,
    /// Repository-relative path when inside the repository (`""` = root).
    pub relative: Option<String>,
}

impl PathGlobs {
    /// `case_insensitive`: protected names are matched regardless of case, because on a
    /// case-insensitive filesystem (macOS, Windows) `.ENV` is `.env`.
    fn compile(
        key: &'static str,
        globs: &[String],
        case_insensitive: bool,
    ) -> Result<Self, PolicyError> {
        let mut sets: [Vec<crate::glob::PathGlob>; 4] = Default::default();
        for raw in globs {
            let (negated, pattern) = match raw.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, raw.as_str()),
            };
            let is_absolute = pattern.starts_with('/')
                || pattern.starts_with("~/")
                || pattern.starts_with("$TMPDIR/")
                || pattern.starts_with("$HOME/");
            // `$HOME/` is accepted as a spelling of `~/`.
            let pattern = match pattern.strip_prefix("$HOME/") {
                Some(rest) => format!("~/{rest}"),
                None => pattern.to_owned(),
            };
            // The built-in globs are checked by the tests (`built_in_globs_are_valid`); only
            // the user's are checked here, on every compile, and only those globset could
            // refuse: a class, an alternation or an escape (most globs, the host's paths
            // among them, have none; the built-in set is then never built).
            let checkable = pattern.contains(['[', ']', '{', '}', '\\']);
            if checkable && !BUILT_IN_GLOBS.with(|b| b.contains(raw.as_str())) {
                GlobBuilder::new(&pattern)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .case_insensitive(case_insensitive)
                    .build()
                    .map_err(|source| PolicyError::Glob {
                        key,
                        glob: raw.clone(),
                        source,
                    })?;
            }
            let index = usize::from(!is_absolute) * 2 + usize::from(negated);
            sets[index].push(crate::glob::PathGlob::new(&pattern, case_insensitive));
        }
        Ok(Self { globs: sets })
    }

    /// Whether any form matches a glob and no form matches an exception.
    /// `relative_also_absolute` lets relative globs see absolute paths too.
    pub(crate) fn matches(&self, forms: &PathForms, relative_also_absolute: bool) -> bool {
        let mut absolute_forms: Vec<&str> = vec![forms.absolute.as_str()];
        absolute_forms.extend(forms.home.as_deref());
        absolute_forms.extend(forms.tmpdir.as_deref());
        let mut relative_forms: Vec<&str> = Vec::new();
        if let Some(rel) = forms.relative.as_deref().filter(|r| !r.is_empty()) {
            relative_forms.push(rel);
        }
        if relative_also_absolute {
            relative_forms.extend(absolute_forms.iter().copied());
        }
        let [absolute, absolute_not, relative, relative_not] = &self.globs;
        let texts = |forms: &[&str]| -> Vec<crate::glob::Text> {
            forms.iter().map(|p| crate::glob::Text::new(p)).collect()
        };
        let (absolute_forms, relative_forms) = (texts(&absolute_forms), texts(&relative_forms));
        let any = |globs: &[crate::glob::PathGlob], forms: &[crate::glob::Text]| {
            globs
                .iter()
                .any(|g| forms.iter().any(|p| g.is_match_text(p)))
        };
        let hit = any(absolute, &absolute_forms) || any(relative, &relative_forms);
        if !hit {
            return false;
        }
        let excepted = any(absolute_not, &absolute_forms) || any(relative_not, &relative_forms);
        !excepted
    }
}

/// One compiled deny rule.
#[derive(Debug, Clone)]
pub(crate) struct CompiledDeny {
    pub command: Option<crate::glob::PathGlob>,
    pub pattern: Option<DenyPattern>,
    pub reason: Option<String>,
    pub label: String,
}

/// A deny rule's regex: the user's built when the policy compiles (so that an invalid one is
/// an error at once), the built-in rule's on its first use (most commands never reach it).
#[derive(Debug, Clone)]
pub(crate) struct DenyPattern {
    raw: String,
    regex: std::sync::OnceLock<Option<regex::Regex>>,
}

impl DenyPattern {
    fn compiled(raw: &str) -> Result<Self, PolicyError> {
        let regex = regex::Regex::new(raw).map_err(|source| PolicyError::Regex {
            pattern: raw.to_owned(),
            source: Box::new(source),
        })?;
        Ok(Self {
            raw: raw.to_owned(),
            regex: std::sync::OnceLock::from(Some(regex)),
        })
    }

    fn lazy(raw: &str) -> Self {
        Self {
            raw: raw.to_owned(),
            regex: std::sync::OnceLock::new(),
        }
    }

    /// Whether the regex finds a match in `line`; a regex that does not build (never the
    /// built-in one: a test checks it) matches everything, so its rule denies.
    pub(crate) fn is_match(&self, line: &str) -> bool {
        self.regex
            .get_or_init(|| regex::Regex::new(&self.raw).ok())
            .as_ref()
            .is_none_or(|r| r.is_match(line))
    }
}

/// The built-in deny rule: no database tool may open pawl's store.
fn store_deny_rule() -> DenyRule {
    DenyRule {
        command: Some("sqlite*".into()),
        pattern: Some(r"\.pawl/".into()),
        reason: Some(
            "pawl's store (.pawl/) holds the run's limits and evidence; only pawl changes it"
                .into(),
        ),
    }
}

/// The protected paths that are protected only because no checkpoint holds them: keys and
/// certificates, which are ignored or kept outside the repository. A *tracked* one is in pawl's
/// checkpoint like any tracked file, so with the checkpoint ([`crate::Context::checkpointed`])
/// writing, moving or deleting it is undoable and allowed (issue 36, point 1: a test suite's
/// tracked certificates, regenerated by its Makefile) — unless another protected glob names the
/// path too (`~/.ssh/**`, `**/secrets/**`).
pub const PROTECTED_UNLESS_TRACKED: &[&str] =
    &["**/*.key", "**/*.pem", "**/*.crt", "**/*.p12", "**/*.pfx"];

/// A policy with its globs and regexes built, ready to evaluate many inputs.
#[derive(Debug, Clone)]
pub struct CompiledPolicy {
    pub(crate) policy: Policy,
    pub(crate) protected_paths: PathGlobs,
    /// Of `protected_paths`, those in [`PROTECTED_UNLESS_TRACKED`] ...
    pub(crate) protected_unless_tracked: PathGlobs,
    /// ... and the rest (with the exceptions, `!...`).
    pub(crate) protected_always: PathGlobs,
    pub(crate) allowances: PathGlobs,
    /// Protected branch globs (`literal_separator`, as globset checked them).
    pub(crate) branches: Vec<crate::glob::PathGlob>,
    pub(crate) deny: Vec<CompiledDeny>,
    /// pawl's paths by kind ([`PawlPathKind::index`]).
    pub(crate) pawl_paths: [PathGlobs; 3],
}

impl CompiledPolicy {
    /// Builds the globs and regexes of `policy`.
    pub fn new(policy: &Policy) -> Result<Self, PolicyError> {
        let protected_paths = PathGlobs::compile("protected_paths", &policy.protected_paths, true)?;
        let (unless_tracked, always): (Vec<String>, Vec<String>) = policy
            .protected_paths
            .iter()
            .cloned()
            .partition(|g| PROTECTED_UNLESS_TRACKED.contains(&g.as_str()));
        let protected_unless_tracked =
            PathGlobs::compile("protected_paths", &unless_tracked, true)?;
        let protected_always = PathGlobs::compile("protected_paths", &always, true)?;
        let allowances = PathGlobs::compile("allowances", &policy.allowances, false)?;
        let of_kind = |kind: PawlPathKind| -> Vec<String> {
            policy
                .pawl_paths
                .iter()
                .filter(|p| p.kind == kind)
                .map(|p| p.glob.clone())
                .collect()
        };
        let pawl_paths = [
            PathGlobs::compile("pawl_paths", &of_kind(PawlPathKind::Store), true)?,
            PathGlobs::compile("pawl_paths", &of_kind(PawlPathKind::Secret), true)?,
            PathGlobs::compile("pawl_paths", &of_kind(PawlPathKind::Binary), true)?,
        ];
        // Globs checked by globset (which builds no regex for that) and matched by
        // `crate::glob`; regexes built only for the user's rules (an invalid one is an error
        // now), the built-in rule's on its first use.
        let mut branches = Vec::new();
        for raw in &policy.protected_branches {
            GlobBuilder::new(raw)
                .literal_separator(true)
                .build()
                .map_err(|source| PolicyError::Glob {
                    key: "protected_branches",
                    glob: raw.clone(),
                    source,
                })?;
            branches.push(crate::glob::PathGlob::new(raw, false));
        }
        let mut deny = Vec::new();
        for rule in &policy.deny {
            let built_in = *rule == store_deny_rule();
            let command = match &rule.command {
                Some(raw) => {
                    if !built_in {
                        GlobBuilder::new(raw)
                            .build()
                            .map_err(|source| PolicyError::Glob {
                                key: "deny.command",
                                glob: raw.clone(),
                                source,
                            })?;
                    }
                    // Matched against a bare program name (no `/`): globset's `*` spanning
                    // separators or not makes no difference there.
                    Some(crate::glob::PathGlob::new(raw, false))
                }
                None => None,
            };
            let pattern = match &rule.pattern {
                Some(raw) if built_in => Some(DenyPattern::lazy(raw)),
                Some(raw) => Some(DenyPattern::compiled(raw)?),
                None => None,
            };
            let label = [rule.command.as_deref(), rule.pattern.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" / ");
            deny.push(CompiledDeny {
                command,
                pattern,
                reason: rule.reason.clone(),
                label,
            });
        }
        Ok(Self {
            policy: policy.clone(),
            protected_paths,
            protected_unless_tracked,
            protected_always,
            allowances,
            branches,
            deny,
            pawl_paths,
        })
    }

    /// The kind of pawl path the path with these forms is, if it is one.
    pub(crate) fn pawl_path(&self, forms: &PathForms) -> Option<PawlPathKind> {
        PawlPathKind::ALL
            .into_iter()
            .find(|k| self.pawl_paths[k.index()].matches(forms, true))
    }

    /// The policy this was compiled from.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Whether `branch` (a short name or `refs/heads/...`) is protected.
    pub(crate) fn is_protected_branch(&self, branch: &str) -> bool {
        let short = branch.strip_prefix("refs/heads/").unwrap_or(branch);
        self.branches.iter().any(|g| g.is_match(short))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_globs_are_valid() {
        let all: Vec<String> = default_protected_paths()
            .into_iter()
            .chain(default_allowances())
            .chain(default_pawl_paths().into_iter().map(|p| p.glob))
            .collect();
        for raw in all {
            let pattern = raw.strip_prefix('!').unwrap_or(&raw);
            let pattern = match pattern.strip_prefix("$HOME/") {
                Some(rest) => format!("~/{rest}"),
                None => pattern.to_owned(),
            };
            for ci in [false, true] {
                assert!(
                    GlobBuilder::new(&pattern)
                        .literal_separator(true)
                        .backslash_escape(true)
                        .case_insensitive(ci)
                        .build()
                        .is_ok(),
                    "{raw}"
                );
            }
        }
    }

    fn forms(abs: &str, rel: Option<&str>) -> PathForms {
        PathForms {
            absolute: abs.into(),
            relative: rel.map(str::to_owned),
            ..PathForms::default()
        }
    }

    #[test]
    fn the_built_in_deny_rule_is_valid() {
        let rule = store_deny_rule();
        let command = rule.command.expect("a command glob");
        assert!(GlobBuilder::new(&command).build().is_ok());
        let pattern = rule.pattern.expect("a pattern");
        assert!(regex::Regex::new(&pattern).is_ok());
        let lazy = DenyPattern::lazy(&pattern);
        assert!(lazy.is_match("sqlite3 .pawl/pawl.db"));
        assert!(!lazy.is_match("sqlite3 app.db"));
    }

    #[test]
    fn an_invalid_user_regex_is_a_policy_error() {
        let mut policy = Policy::default();
        policy.deny.push(DenyRule {
            command: Some("kubectl".into()),
            pattern: Some("(unclosed".into()),
            reason: None,
        });
        assert!(matches!(
            CompiledPolicy::new(&policy),
            Err(PolicyError::Regex { .. })
        ));
    }

    #[test]
    fn default_policy_compiles() {
        assert!(CompiledPolicy::new(&Policy::default()).is_ok());
    }

    #[test]
    fn env_examples_are_exceptions() {
        let p = CompiledPolicy::new(&Policy::default()).expect("compiles");
        let g = &p.protected_paths;
        assert!(g.matches(&forms("/r/.env", Some(".env")), true));
        assert!(g.matches(&forms("/r/.env.local", Some(".env.local")), true));
        assert!(!g.matches(&forms("/r/.env.example", Some(".env.example")), true));
        assert!(g.matches(
            &forms("/r/a/migrations/1.sql", Some("a/migrations/1.sql")),
            true
        ));
        assert!(!g.matches(&forms("/r/src/main.rs", Some("src/main.rs")), true));
    }

    #[test]
    fn tmp_allowance_needs_a_child() {
        let p = CompiledPolicy::new(&Policy::default()).expect("compiles");
        assert!(p.allowances.matches(&forms("/tmp/x", None), false));
        assert!(
            p.allowances
                .matches(&forms("/r/target", Some("target")), false)
        );
        assert!(!p.allowances.matches(&forms("/r/src", Some("src")), false));
    }

    #[test]
    fn policy_deserialises_with_defaults() {
        let p: Policy = serde_json::from_str(r#"{"always": true}"#).expect("parses");
        assert!(p.always);
        assert_eq!(p.protected_branches, vec!["main", "master"]);
    }
}
