//! The guard's answers: a [`Decision`] (what the hook acts on, serialised as
//! `{"decision": "allow"|"deny", "rule": ..., "reason": ...}`) and an
//! [`Explanation`] (what `pawl guard explain` prints).

use serde::{Deserialize, Serialize};

/// Allow or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The action may go ahead.
    Allow,
    /// The action must not run.
    Deny,
}

/// Which rule decided. The serialised names are stable: hooks, logs and
/// users' notes refer to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleId {
    /// Any `git push` (and `send-pack`, `subtree push`).
    GitPush,
    /// Git commands that discard work: `reset --hard`, `clean -f`, checkout
    /// or restore of paths, `branch -D`, `stash drop|clear`, ...
    GitDestructive,
    /// Commits or ref moves on a protected branch.
    ProtectedBranch,
    /// `rm -r` outside the allowances.
    RecursiveDelete,
    /// Other destructive shell: `find -delete`, `truncate`, `dd of=`,
    /// `shred`, `rsync --delete`, ...
    DestructiveShell,
    /// Overwriting a tracked file (`>`, `>|`, `tee`, `cp`, `dd`).
    Clobber,
    /// Writing, moving or deleting a protected path.
    ProtectedPath,
    /// An interpreter one-liner that deletes files, runs a blocked command
    /// or runs code the guard cannot see.
    Interpreter,
    /// A command name, target or script that is not statically known.
    NotStatic,
    /// The input does not parse as shell.
    ParseError,
    /// The input is larger than the guard will analyse.
    TooLarge,
    /// The input nests deeper than the guard will analyse.
    TooDeep,
    /// The policy itself is invalid (a bad glob or regex).
    PolicyError,
    /// A user-defined `[[guard.deny]]` rule matched.
    PolicyDeny,
    /// The agent ran `pawl` to steer its own run (stop, cancel, resume, limits, configuration,
    /// hooks, rollback).
    RunControl,
    /// A command that reaches pawl's own machinery, which no sandbox protects in a session: pawl's
    /// store and session marker, its state outside the repository (the key), the pawl binary
    /// its hooks run, un-ignoring or stashing `.pawl/`, git settings that make every later git
    /// command (pawl's own included) run a program.
    Tamper,
    /// A secret (a key file, `.env`, a credentials variable, a password in a URL) handed to a
    /// program that sends data off the machine.
    SecretExfil,
    /// A secret file staged or committed to git.
    SecretCommit,
    /// Publishing or deploying beyond git: package registries, image pushes, deploy CLIs,
    /// other version control systems.
    Publish,
    /// Destroying a system, a disk, infrastructure or a database: block devices, fork bombs,
    /// recursive permission changes of `/`, `terraform destroy`, `kubectl delete`, `DROP DATABASE`.
    InfraDestroy,
    /// A container that reaches the repository, HOME or the host (bind mounts, `--privileged`,
    /// the Docker socket).
    ContainerMount,
    /// A file that a tool loads and runs by itself (`conftest.py`, `.pth`, a jest config,
    /// `.cargo/config.toml`) written, then the tool run, in one command line.
    ToolConfig,
    /// Environment that makes an allowed program run code the guard has not judged
    /// (`LD_PRELOAD`, `NODE_OPTIONS=--require`, `PYTHONPATH` into a temporary directory, a PATH
    /// that puts `.` or a temporary directory first).
    EnvInject,
    /// An interpreter or program with a shell escape the guard has no model of (elixir, erl,
    /// guile, racket, ghc, dc, duckdb `.shell`, psql `\!`, `deno eval`, `cmake -P`, ...).
    ShellEscape,
    /// Persistence outside the repository: global installs (`npm i -g`, `pip install --user`,
    /// `cargo install`, `go install`), system packages, service managers, global git config,
    /// hook installers. The denial names the project-local form.
    Persist,
    /// Exhausting the machine: stress tools, huge allocations and copies, unbounded parallelism.
    Exhaustion,
}

/// The rules a `[guard] rules` table may switch off (each is on by default). The rules that
/// keep pawl itself and the repository's history safe cannot be switched off one by one.
pub const SWITCHABLE_RULES: &[RuleId] = &[
    RuleId::SecretExfil,
    RuleId::SecretCommit,
    RuleId::Publish,
    RuleId::InfraDestroy,
    RuleId::ContainerMount,
    RuleId::ToolConfig,
    RuleId::EnvInject,
    RuleId::ShellEscape,
    RuleId::Persist,
    RuleId::Exhaustion,
];

impl RuleId {
    /// The stable kebab-case name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::GitPush => "git-push",
            Self::GitDestructive => "git-destructive",
            Self::ProtectedBranch => "protected-branch",
            Self::RecursiveDelete => "recursive-delete",
            Self::DestructiveShell => "destructive-shell",
            Self::Clobber => "clobber",
            Self::ProtectedPath => "protected-path",
            Self::Interpreter => "interpreter",
            Self::NotStatic => "not-static",
            Self::ParseError => "parse-error",
            Self::TooLarge => "too-large",
            Self::TooDeep => "too-deep",
            Self::PolicyError => "policy-error",
            Self::PolicyDeny => "policy-deny",
            Self::RunControl => "run-control",
            Self::Tamper => "tamper",
            Self::SecretExfil => "secret-exfil",
            Self::SecretCommit => "secret-commit",
            Self::Publish => "publish",
            Self::InfraDestroy => "infra-destroy",
            Self::ContainerMount => "container-mount",
            Self::ToolConfig => "tool-config",
            Self::EnvInject => "env-inject",
            Self::ShellEscape => "shell-escape",
            Self::Persist => "persist",
            Self::Exhaustion => "resource-exhaustion",
        }
    }
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The guard's answer for one input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// Allow or deny.
    pub decision: Verdict,
    /// The rule that denied; `None` when allowed.
    pub rule: Option<RuleId>,
    /// A sentence for the agent and the user: what was blocked and why, or
    /// why the input was allowed.
    pub reason: String,
}

impl Decision {
    /// An allow with a reason.
    pub fn allow(reason: impl Into<String>) -> Self {
        Self {
            decision: Verdict::Allow,
            rule: None,
            reason: reason.into(),
        }
    }

    /// A deny by `rule` with a reason.
    pub fn deny(rule: RuleId, reason: impl Into<String>) -> Self {
        Self {
            decision: Verdict::Deny,
            rule: Some(rule),
            reason: reason.into(),
        }
    }

    /// True when the decision is [`Verdict::Allow`].
    pub fn is_allow(&self) -> bool {
        self.decision == Verdict::Allow
    }

    /// True when the decision is [`Verdict::Deny`].
    pub fn is_deny(&self) -> bool {
        self.decision == Verdict::Deny
    }
}

/// One simple command the guard found and judged, after unquoting, wrapper
/// removal and alias resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundCommand {
    /// The resolved argv; a word that is not statically known is shown as
    /// written (e.g. `$X`) and listed in `unknown`.
    pub argv: Vec<String>,
    /// Indexes into `argv` of words whose value is not statically known.
    pub unknown: Vec<usize>,
    /// Where it came from: `top level`, `inside bash -c`, `inside $(...)`,
    /// `via sudo`, ...; nested origins are joined with ` > `.
    pub origin: String,
}

/// Everything `pawl guard explain` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explanation {
    /// The decision, identical to what [`crate::evaluate`] returns.
    pub decision: Decision,
    /// Whether the guard was active (a run is active, or `policy.always`)
    /// and not switched off by `allow_unsafe`.
    pub active: bool,
    /// A printable outline of the parse: one line per construct, indented
    /// by nesting.
    pub parse: String,
    /// The simple commands found, in the order they were analysed.
    pub commands: Vec<FoundCommand>,
}
