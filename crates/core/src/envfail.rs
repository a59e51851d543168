//! Environment failures: a check that fails because the environment the checks run in lacks
//! something — a tool, an interpreter, a module that is not the repository's own, a service on
//! the host — not because of the code. At the baseline such a failure refuses the run with what
//! pawl saw and the fix: it is never "failing before the run", and never the agent's job.
//!
//! Rules as data: [`RULES`] are the shapes of the lines real tools print (sh/dash/bash/zsh,
//! env, Python, Node, jest, cargo, Go), each naming what is missing. [`environment_failure`] is
//! a pure function of a check's output and of [`EnvFacts`], which the caller gathers (which
//! modules the repository holds, which environment the room has, the goal's words).
//!
//! Not an environment failure: a test importing a module the goal is to create — a name the
//! goal mentions, or a module under one of the repository's own packages that does not exist
//! yet (`mypkg.newmod`, `./new-file`).

use std::fmt;

use serde::{Deserialize, Serialize};

/// What the environment lacks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EnvCause {
    /// A program the check runs is not on the checks' `PATH`.
    Tool { name: String },
    /// An interpreter (a `#!` line's, `env`'s, or a program such as `python3` or `node`).
    Interpreter { name: String },
    /// A module the checks import that is not the repository's own, or is the repository's own
    /// but not installed in the checks' environment (`own`).
    Module { name: String, own: bool },
    /// A service on the host that refused the connection (`localhost:5432`).
    Service { address: String },
}

/// One environment failure, as the refusal names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvFailure {
    pub cause: EnvCause,
    /// The line of output that says so.
    pub seen: String,
    /// What the user does about it.
    pub fix: String,
}

impl fmt::Display for EnvFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.cause {
            EnvCause::Tool { name } => format!("the checks cannot find the program `{name}`"),
            EnvCause::Interpreter { name } => {
                format!("the checks cannot find the interpreter `{name}`")
            }
            EnvCause::Module { name, .. } => format!("the checks cannot import `{name}`"),
            EnvCause::Service { address } => {
                format!("the checks cannot reach the service at `{address}`")
            }
        };
        write!(f, "{what} (pawl saw: {}): {}", self.seen, self.fix)
    }
}

/// Where a module name stands in the repository (the caller looks: pawl-engine's baseline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepoModule {
    /// The repository holds it (`src/mypkg/__init__.py` for `mypkg`): the checks cannot import
    /// the repository's own code, so it is not installed where they run.
    Present,
    /// Under one of the repository's own packages (or a relative path) but absent: a module the
    /// run is to create.
    Missing,
    /// Not the repository's.
    Foreign,
}

/// What the classification needs to know besides the output.
pub struct EnvFacts<'a> {
    /// Words of the goal ([`goal_names`]): a module it names is the run's to create.
    pub goal_names: &'a [String],
    /// Where a module (dotted or a path, as the error names it) stands in the repository.
    pub repo_module: &'a dyn Fn(&str) -> RepoModule,
    /// The Python environment the room has (`.venv`), if any.
    pub python_env: Option<String>,
    /// The room has `node_modules`.
    pub node_modules: bool,
    /// The project has a `package.json` / a Python manifest (`pyproject.toml`, `setup.py`,
    /// `requirements*.txt`).
    pub node_project: bool,
    pub python_project: bool,
}

/// How a rule finds the name of what is missing in a line.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// A shell's "not found": the line starts with one of [`SHELLS`] and ends with the needle;
    /// the name is the last `: `-separated part before it (`sh: 1: jest: not found`).
    ShellSuffix(&'static str),
    /// The name follows the needle, quoted or up to a space (`No module named 'yaml'`).
    After(&'static str),
    /// The name precedes the needle, after the last `: ` (`…: /x/.venv/bin/python: bad
    /// interpreter: No such file or directory`).
    Before(&'static str),
    /// A refused connection: the needle and a local address in the same line.
    Refused(&'static str),
    /// As `After`, when the next line holds the second needle (uv: `error: Failed to spawn:
    /// `ruff`` then `Caused by: No such file or directory`).
    AfterThen(&'static str, &'static str),
}

/// One rule: a line shape and what it means.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub shape: Shape,
    pub kind: RuleKind,
}

/// What a matching line says is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    Tool,
    Interpreter,
    Module,
    /// A cargo subcommand (`no such command: `nextest``): the tool is `cargo-<name>`.
    CargoCommand,
    Service,
}

/// Shell prefixes of a "not found" line (dash, bash, zsh, env, the absolute forms).
pub const SHELLS: &[&str] = &[
    "sh:",
    "/bin/sh:",
    "/usr/bin/sh:",
    "dash:",
    "bash:",
    "/bin/bash:",
    "/usr/bin/bash:",
    "zsh:",
    "env:",
    "/usr/bin/env:",
];

/// Programs that are interpreters: not finding one is a missing interpreter.
pub const INTERPRETERS: &[&str] = &[
    "python", "python3", "python2", "node", "nodejs", "deno", "bun", "ruby", "perl", "php", "java",
    "go", "dotnet", "pypy3",
];

/// The rules, first match (line by line) wins.
pub const RULES: &[Rule] = &[
    // sh/dash: `sh: 1: jest: not found`; bash: `bash: line 1: jest: command not found`.
    Rule {
        shape: Shape::ShellSuffix(": command not found"),
        kind: RuleKind::Tool,
    },
    Rule {
        shape: Shape::ShellSuffix(": not found"),
        kind: RuleKind::Tool,
    },
    // zsh: `zsh:1: command not found: jest`.
    Rule {
        shape: Shape::After("command not found: "),
        kind: RuleKind::Tool,
    },
    // `/usr/bin/env: 'node': No such file or directory` (a `#!/usr/bin/env node` script).
    Rule {
        shape: Shape::ShellSuffix(": No such file or directory"),
        kind: RuleKind::Interpreter,
    },
    // A `#!` naming an interpreter that is gone (a virtualenv built elsewhere).
    Rule {
        shape: Shape::Before(": bad interpreter"),
        kind: RuleKind::Interpreter,
    },
    // Go's os/exec and `go generate`: `exec: "protoc": executable file not found in $PATH`.
    Rule {
        shape: Shape::Before(": executable file not found"),
        kind: RuleKind::Tool,
    },
    // uv run: `error: Failed to spawn: `ruff`` / `  Caused by: No such file or directory (os
    // error 2)` (another cause, such as a permission, is not a missing program).
    Rule {
        shape: Shape::AfterThen("Failed to spawn: ", "No such file or directory"),
        kind: RuleKind::Tool,
    },
    // cargo: `error: no such command: `nextest``.
    Rule {
        shape: Shape::After("no such command: "),
        kind: RuleKind::CargoCommand,
    },
    // Python: `ModuleNotFoundError: No module named 'yaml'`, `/usr/bin/python3: No module
    // named pytest`, `ImportError: No module named yaml`.
    Rule {
        shape: Shape::After("No module named "),
        kind: RuleKind::Module,
    },
    // Node, jest, TypeScript: `Error: Cannot find module 'lodash'`, `Cannot find module
    // './x' from 'src/a.test.js'`, `TS2307: Cannot find module 'zod' or its corresponding…`.
    Rule {
        shape: Shape::After("Cannot find module "),
        kind: RuleKind::Module,
    },
    // Node ESM: `Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'vitest' imported from …`.
    Rule {
        shape: Shape::After("Cannot find package "),
        kind: RuleKind::Module,
    },
    // Go: `no required module provides package github.com/x/y; to add it: …`.
    Rule {
        shape: Shape::After("no required module provides package "),
        kind: RuleKind::Module,
    },
    Rule {
        shape: Shape::After("missing go.sum entry for module providing package "),
        kind: RuleKind::Module,
    },
    // Services: psycopg, Node, Go, Rust, curl.
    Rule {
        shape: Shape::Refused("connection refused"),
        kind: RuleKind::Service,
    },
    Rule {
        shape: Shape::Refused("econnrefused"),
        kind: RuleKind::Service,
    },
    Rule {
        shape: Shape::Refused("failed to connect to"),
        kind: RuleKind::Service,
    },
];

/// The words of a goal that could name a module or a file it creates: identifiers, dotted or
/// with path separators (`slugify`, `mypkg.slug`, `src/slug.ts`), and each part of them.
pub fn goal_names(goal: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '-' | '@');
    for w in goal.split(|c: char| !word(c)) {
        let w = w.trim_matches(|c: char| matches!(c, '.' | '/' | '-'));
        if w.len() < 2 {
            continue;
        }
        let mut push = |s: &str| {
            let s = s.to_lowercase();
            if s.len() >= 2 && !out.contains(&s) {
                out.push(s);
            }
        };
        push(w);
        for part in w.split(['.', '/']) {
            push(part);
        }
        // `src/slug.ts` names the module `slug`.
        if let Some((stem, _)) = w.rsplit_once('.') {
            push(stem);
        }
    }
    out
}

/// The first environment failure `output` shows, if any. `output` is the check's output (its
/// log, `out| ` / `err| ` prefixes allowed).
pub fn environment_failure(output: &str, facts: &EnvFacts<'_>) -> Option<EnvFailure> {
    let unprefixed = |raw: &'_ str| -> String {
        raw.strip_prefix("out| ")
            .or_else(|| raw.strip_prefix("err| "))
            .unwrap_or(raw)
            .trim()
            .to_owned()
    };
    let mut lines = output.lines().peekable();
    while let Some(raw) = lines.next() {
        let line = unprefixed(raw);
        let line = line.as_str();
        if line.is_empty() || line.len() > 2000 {
            continue;
        }
        let next = lines.peek().map(|n| unprefixed(n)).unwrap_or_default();
        for rule in RULES {
            let subject = match rule.shape {
                Shape::AfterThen(needle, then) => next
                    .contains(then)
                    .then(|| match_shape(Shape::After(needle), line))
                    .flatten(),
                shape => match_shape(shape, line),
            };
            let Some(subject) = subject else {
                continue;
            };
            if let Some(cause) = cause_of(rule.kind, &subject, facts) {
                let seen: String = line.chars().take(200).collect();
                let fix = fix_for(&cause, facts);
                return Some(EnvFailure { cause, seen, fix });
            }
        }
    }
    None
}

fn match_shape(shape: Shape, line: &str) -> Option<String> {
    match shape {
        Shape::ShellSuffix(needle) => {
            let body = line.strip_suffix(needle)?;
            let lower = line.to_lowercase();
            SHELLS
                .iter()
                .any(|s| lower.starts_with(s) || lower.starts_with(&format!("{s}1:")))
                .then_some(())?;
            let name = body.rsplit(": ").next()?;
            // `sh: 1: jest` → `jest`; `zsh:1: jest` cannot end up here with a shell name.
            name_token(name)
        }
        Shape::After(needle) => {
            let at = line.find(needle)?;
            let rest = line.get(at + needle.len()..)?;
            let rest = rest.trim_start();
            let quoted = rest
                .strip_prefix(['\'', '"', '`'])
                .and_then(|r| r.split(['\'', '"', '`']).next());
            let name = match quoted {
                Some(q) => q,
                None => rest
                    .split(|c: char| c.is_whitespace() || c == ';' || c == ',')
                    .next()?,
            };
            name_token(name)
        }
        Shape::Before(needle) => {
            let at = line.find(needle)?;
            let head = line.get(..at)?;
            let name = head.rsplit(": ").next()?;
            name_token(name.trim_matches(['\'', '"', '`']))
        }
        Shape::Refused(needle) => {
            let lower = line.to_lowercase();
            lower.contains(needle).then_some(())?;
            local_address(&lower)
        }
        // Needs the next line: `environment_failure` matches it.
        Shape::AfterThen(..) => None,
    }
}

/// A plausible program, module or path name.
fn name_token(s: &str) -> Option<String> {
    let s = s.trim().trim_matches(['\'', '"', '`']);
    let ok = !s.is_empty()
        && s.len() <= 200
        && s.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '@' | '+' | ':' | '~')
        });
    ok.then(|| s.to_owned())
}

/// `localhost:5432`, `127.0.0.1:6379`, `[::1]:80`, or the host alone, found in a line about a
/// refused connection; `None` when no local address is named (a remote service is infra).
fn local_address(lower: &str) -> Option<String> {
    for host in ["localhost", "127.0.0.1", "[::1]", "::1", "0.0.0.0"] {
        let Some(at) = lower.find(host) else {
            continue;
        };
        let after = lower.get(at + host.len()..).unwrap_or("");
        let port: String = after
            .strip_prefix(':')
            .map(|p| p.chars().take_while(char::is_ascii_digit).collect())
            .filter(|p: &String| !p.is_empty())
            .or_else(|| {
                // psycopg: `… at "localhost" (127.0.0.1), port 5432 failed`.
                lower.find("port ").map(|i| {
                    lower
                        .get(i + 5..)
                        .unwrap_or("")
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect()
                })
            })
            .unwrap_or_default();
        let host = if host == "[::1]" { "::1" } else { host };
        return Some(if port.is_empty() {
            host.to_owned()
        } else {
            format!("{host}:{port}")
        });
    }
    None
}

fn cause_of(kind: RuleKind, subject: &str, facts: &EnvFacts<'_>) -> Option<EnvCause> {
    match kind {
        RuleKind::Tool | RuleKind::Interpreter => {
            let base = subject.rsplit('/').next().unwrap_or(subject);
            if kind == RuleKind::Interpreter || INTERPRETERS.contains(&base) {
                Some(EnvCause::Interpreter {
                    name: subject.to_owned(),
                })
            } else if subject.contains('/') {
                // `./run.sh: not found` is a file of the repository, not a tool.
                None
            } else {
                Some(EnvCause::Tool {
                    name: subject.to_owned(),
                })
            }
        }
        RuleKind::CargoCommand => Some(EnvCause::Tool {
            name: format!("cargo-{subject}"),
        }),
        RuleKind::Module => {
            let named = |n: &str| facts.goal_names.iter().any(|g| g == &n.to_lowercase());
            let parts: Vec<&str> = subject
                .split(['.', '/'])
                .filter(|p| !p.is_empty())
                .collect();
            if named(subject) || parts.last().is_some_and(|p| named(p)) {
                return None;
            }
            match (facts.repo_module)(subject) {
                RepoModule::Missing => None,
                RepoModule::Present => Some(EnvCause::Module {
                    name: subject.to_owned(),
                    own: true,
                }),
                RepoModule::Foreign => Some(EnvCause::Module {
                    name: subject.to_owned(),
                    own: false,
                }),
            }
        }
        RuleKind::Service => Some(EnvCause::Service {
            address: subject.to_owned(),
        }),
    }
}

/// The fix for a cause, in the project's terms.
fn fix_for(cause: &EnvCause, facts: &EnvFacts<'_>) -> String {
    let node_fix = || {
        if facts.node_modules {
            "install it into the repository's node_modules (add it to package.json and run your install command, e.g. `npm ci`): the room takes node_modules at the seal".to_owned()
        } else {
            "the room has no node_modules: install the dependencies in the repository (`npm ci`, `pnpm install` or `yarn install`) before `pawl run`: the room takes node_modules at the seal".to_owned()
        }
    };
    let python_fix = |what: &str| match &facts.python_env {
        Some(env) => format!(
            "the room's virtualenv ({env}) does not have {what}: install it there (`{env}/bin/pip install …`, `pip install -e .` for the project itself) and start the run again"
        ),
        None => format!(
            "the room has no virtualenv, so {what} is not there: create `.venv` in the repository and install the project into it (`python3 -m venv .venv && .venv/bin/pip install -e .` plus the test tools); the room takes `.venv` at the seal"
        ),
    };
    match cause {
        EnvCause::Tool { name } => {
            if facts.node_project && !facts.node_modules {
                node_fix()
            } else if facts.python_project && facts.python_env.is_none() {
                python_fix(&format!("`{name}`"))
            } else {
                format!(
                    "install `{name}` (on the PATH pawl was started with, or in the project's environment: `.venv/bin`, `node_modules/.bin`), or change the gate in pawl.toml [gates], then start the run again"
                )
            }
        }
        EnvCause::Interpreter { name } => format!(
            "install `{name}`, or rebuild the project's environment on this machine (a virtualenv made elsewhere names an interpreter that is not here), then start the run again"
        ),
        EnvCause::Module { name, own } => {
            let js = name.starts_with('@')
                || name.starts_with("./")
                || name.starts_with("../")
                || (facts.node_project && !facts.python_project);
            if *own {
                format!(
                    "`{name}` is the repository's own code, but it is not installed where the checks run: {}",
                    if js {
                        node_fix()
                    } else {
                        python_fix("the project (an editable install, `pip install -e .`)")
                    }
                )
            } else if js {
                node_fix()
            } else if name.contains('/') && name.contains('.') {
                "download the Go modules (`go mod download`, and `go mod tidy` for a missing go.sum entry) before `pawl run`".to_owned()
            } else {
                python_fix(&format!("`{name}`"))
            }
        }
        EnvCause::Service { address } => format!(
            "the tests need a service at {address} that is not running: start it before `pawl run` (or have the tests start it)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository of the table: `src/mypkg/` (src layout), `app.js`.
    fn repo(name: &str) -> RepoModule {
        let top = name
            .trim_start_matches("./")
            .split(['.', '/'])
            .next()
            .unwrap_or("");
        if name.starts_with("./") || name.starts_with("../") {
            return if name == "./app" {
                RepoModule::Present
            } else {
                RepoModule::Missing
            };
        }
        match (top, name) {
            ("mypkg", "mypkg") | ("mypkg", "mypkg.core") => RepoModule::Present,
            ("mypkg", _) => RepoModule::Missing,
            _ => RepoModule::Foreign,
        }
    }

    fn facts<'a>(goal: &'a [String], venv: bool, node: bool) -> EnvFacts<'a> {
        EnvFacts {
            goal_names: goal,
            repo_module: &repo,
            python_env: venv.then(|| ".venv".to_owned()),
            node_modules: false,
            node_project: node,
            python_project: !node,
        }
    }

    /// Rows of real tool output: (tool, output, expected cause as `kind name`, or "-").
    const TABLE: &[(&str, &str, &str)] = &[
        // shells
        ("dash", "sh: 1: jest: not found", "tool jest"),
        ("dash", "err| /bin/sh: 1: pytest: not found", "tool pytest"),
        ("bash", "bash: line 1: ruff: command not found", "tool ruff"),
        ("bash", "bash: mypy: command not found", "tool mypy"),
        ("zsh", "zsh:1: command not found: eslint", "tool eslint"),
        ("dash", "sh: 1: python3: not found", "interpreter python3"),
        ("dash", "sh: 1: ./run.sh: not found", "-"),
        (
            "env",
            "/usr/bin/env: 'node': No such file or directory",
            "interpreter node",
        ),
        (
            "venv",
            "sh: 1: .venv/bin/pytest: /home/u/proj/.venv/bin/python: bad interpreter: No such file or directory",
            "interpreter /home/u/proj/.venv/bin/python",
        ),
        // pytest
        (
            "pytest",
            "E   ModuleNotFoundError: No module named 'yaml'",
            "module yaml",
        ),
        (
            "pytest",
            "ERROR tests/test_api.py - ModuleNotFoundError: No module named 'requests'",
            "module requests",
        ),
        (
            "pytest",
            "E   ModuleNotFoundError: No module named 'mypkg'",
            "own mypkg",
        ),
        (
            "pytest",
            "E   ModuleNotFoundError: No module named 'mypkg.slugify'",
            "-",
        ),
        (
            "python -m",
            "/usr/bin/python3: No module named pytest",
            "module pytest",
        ),
        // unittest
        (
            "unittest",
            "ImportError: Failed to import test module: test_calc\nTraceback (most recent call last):\nModuleNotFoundError: No module named 'numpy'",
            "module numpy",
        ),
        (
            "unittest",
            "ImportError: No module named yaml",
            "module yaml",
        ),
        (
            "unittest",
            "ImportError: cannot import name 'slug' from 'mypkg' (/r/src/mypkg/__init__.py)",
            "-",
        ),
        // jest / node
        (
            "jest",
            "    Cannot find module 'lodash' from 'src/index.test.js'",
            "module lodash",
        ),
        (
            "jest",
            "    Cannot find module './slugify' from 'src/slugify.test.js'",
            "-",
        ),
        (
            "node",
            "Error: Cannot find module '@babel/core'",
            "module @babel/core",
        ),
        (
            "node esm",
            "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'vitest' imported from /r/vitest.config.ts",
            "module vitest",
        ),
        (
            "tsc",
            "src/a.ts(1,20): error TS2307: Cannot find module 'zod' or its corresponding type declarations.",
            "module zod",
        ),
        (
            "npm",
            "> jest\n\nsh: 1: jest: not found\nnpm ERR! code 127",
            "tool jest",
        ),
        // cargo
        (
            "cargo",
            "error: no such command: `nextest`",
            "tool cargo-nextest",
        ),
        (
            "cargo",
            "error[E0308]: mismatched types\n --> src/lib.rs:3:5",
            "-",
        ),
        // go
        (
            "go",
            "main.go:4:2: no required module provides package github.com/pkg/errors; to add it:",
            "module github.com/pkg/errors",
        ),
        (
            "go",
            "exec: \"protoc\": executable file not found in $PATH",
            "tool protoc",
        ),
        // services
        (
            "psycopg",
            "psycopg2.OperationalError: connection to server at \"localhost\" (127.0.0.1), port 5432 failed: Connection refused",
            "service localhost:5432",
        ),
        (
            "node",
            "Error: connect ECONNREFUSED 127.0.0.1:6379",
            "service 127.0.0.1:6379",
        ),
        (
            "go",
            "dial tcp [::1]:5432: connect: connection refused",
            "service ::1:5432",
        ),
        ("remote", "Error: connect ECONNREFUSED 10.0.0.5:443", "-"),
        // real test failures
        ("pytest", "E       assert 3 == 4", "-"),
        (
            "jest",
            "    expect(received).toBe(expected) // Object.is equality",
            "-",
        ),
        ("error", "error: config: not found", "-"),
        // uv run: the program is not in the project's environment (corpus/real/py-humanize-uv).
        (
            "uv",
            "err| error: Failed to spawn: `ruff`\nerr|   Caused by: No such file or directory (os error 2)",
            "tool ruff",
        ),
        (
            "uv",
            "error: Failed to spawn: `pytest`\n  Caused by: Permission denied (os error 13)",
            "-",
        ),
    ];

    fn render(c: &EnvCause) -> String {
        match c {
            EnvCause::Tool { name } => format!("tool {name}"),
            EnvCause::Interpreter { name } => format!("interpreter {name}"),
            EnvCause::Module { name, own: false } => format!("module {name}"),
            EnvCause::Module { name, own: true } => format!("own {name}"),
            EnvCause::Service { address } => format!("service {address}"),
        }
    }

    #[test]
    fn the_table_of_real_output() {
        let goal = Vec::new();
        for (tool, output, want) in TABLE {
            let node = matches!(*tool, "jest" | "node" | "node esm" | "tsc" | "npm");
            let got = environment_failure(output, &facts(&goal, false, node))
                .map(|f| render(&f.cause))
                .unwrap_or_else(|| "-".into());
            assert_eq!(&got, want, "{tool}: {output}");
        }
    }

    #[test]
    fn a_module_the_goal_creates_is_not_an_environment_failure() {
        let goal = goal_names("Add a `textwrap2` module with a fill() function");
        let out = "E   ModuleNotFoundError: No module named 'textwrap2'";
        assert!(environment_failure(out, &facts(&goal, true, false)).is_none());
        let goal = goal_names("Add src/slug.ts exporting slugify");
        assert!(
            environment_failure(
                "Cannot find module '../src/slug' from 'test/slug.test.ts'",
                &facts(&goal, false, true)
            )
            .is_none()
        );
        // A name the goal does not mention still is.
        let goal = goal_names("fix the parser");
        assert!(environment_failure(out, &facts(&goal, true, false)).is_some());
    }

    #[test]
    fn the_fix_names_the_environment() {
        let goal = Vec::new();
        let out = "E   ModuleNotFoundError: No module named 'mypkg'";
        let f = environment_failure(out, &facts(&goal, false, false)).unwrap();
        let text = f.to_string();
        assert!(
            text.starts_with("the checks cannot import `mypkg`"),
            "{text}"
        );
        assert!(text.contains("the room has no virtualenv"), "{text}");
        assert!(text.contains("python3 -m venv .venv"), "{text}");
        let f = environment_failure("sh: 1: jest: not found", &facts(&goal, false, true)).unwrap();
        assert!(f.fix.contains("the room has no node_modules"), "{}", f.fix);
        let f = environment_failure(
            "ModuleNotFoundError: No module named 'yaml'",
            &facts(&goal, true, false),
        )
        .unwrap();
        assert!(
            f.fix
                .contains("the room's virtualenv (.venv) does not have `yaml`"),
            "{}",
            f.fix
        );
    }

    #[test]
    fn goal_names_split_paths_and_dots() {
        let g = goal_names("Create mypkg.slug (src/mypkg/slug.py) and `Slugify`.");
        for w in [
            "mypkg.slug",
            "slug",
            "mypkg",
            "src/mypkg/slug.py",
            "slugify",
        ] {
            assert!(g.iter().any(|x| x == w), "{w} in {g:?}");
        }
    }
}
