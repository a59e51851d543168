//! Per-test ids without a change to the sealed command: for each runner, the documented hook
//! through which pawl asks it to name every test (a variable the runner reads), as data.
//!
//! The command text stays the user's; the runner ([`crate::runner`]) adds one variable to the
//! check's environment when [`hook_for`] finds a row for the command, and parses the report the
//! row asks for (a file in a directory pawl owns, outside the tree) like a `{report}`. A row is
//! used only when the command is recognised as its runner and nothing says the command already
//! chose its own report or output format (an option in the command, in the variable's current
//! value, or in the runner's configuration files): then the console is parsed as it always was,
//! and a run whose output does not name every test is judged by its counts
//! ([`super::IdCoverage`]).
//!
//! Runners with no row, and why (docs/verification.md, "How each runner's tests get ids"):
//! `node --test` (its TAP and spec reporters, the defaults, already name every test), mocha
//! (its default spec reporter does), unittest (no variable or option file changes its
//! verbosity: without `-v` its tests are listed by a collection pass, [`crate::collect`]),
//! cargo test (libtest reads no variable for its format: `-q` prints dots; its tests are listed
//! by `-- --list`, [`crate::collect`]), jest and vitest (no variable sets a reporter; their JSON
//! report needs the command's own `--json`/`--reporter=json`; without it, a quiet run's tests are
//! listed by a collection pass, [`crate::collect`]).

use super::Runner;
use crate::shell::program_is;

/// How pawl's value joins one the variable already has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// A list of options: pawl's are appended after a space.
    List,
    /// One setting: a value already set is the user's choice, and the row is not used.
    Alone,
}

/// One runner's hook.
#[derive(Debug)]
pub struct IdHook {
    pub runner: Runner,
    /// The variable the runner reads.
    pub var: &'static str,
    /// What pawl adds; `{report}` becomes the path of the report pawl reads back.
    pub value: &'static str,
    pub join: Join,
    /// Option names (without dashes, before any `=`) that, as a word of the command or of the
    /// variable's current value, mean the command chose its own output or report.
    pub options: &'static [&'static str],
    /// Text that means the same anywhere in the command, the variable or [`Self::files`].
    pub texts: &'static [&'static str],
    /// The runner's configuration files at the check's directory, read for [`Self::texts`].
    pub files: &'static [&'static str],
    /// Program names the command must name exactly once: the report is one file, and a second
    /// invocation would overwrite the first's.
    pub once: &'static [&'static str],
    /// `(tool, subcommand)`: every use of `tool` in the command must be this subcommand, when
    /// the variable is read by the tool's other subcommands too with another meaning.
    pub only: Option<(&'static str, &'static str)>,
    /// The hook changes the format of what the runner prints: not used when the command pipes
    /// its output into another program, which may expect the usual format.
    pub console: bool,
    /// Why this hook, for the docs and the evidence.
    pub why: &'static str,
}

/// The hooks, one row per runner that has one.
pub const HOOKS: &[IdHook] = &[
    IdHook {
        runner: Runner::Pytest,
        var: "PYTEST_ADDOPTS",
        value: "--junitxml={report} -o junit_family=xunit1",
        join: Join::List,
        options: &[],
        // `-p no:junitxml` too: `--junitxml` would then be an unknown option.
        texts: &["--junitxml", "--junit-xml", "no:junitxml"],
        files: &[
            "pytest.ini",
            ".pytest.ini",
            "pyproject.toml",
            "setup.cfg",
            "tox.ini",
        ],
        once: &["pytest", "py.test"],
        only: None,
        console: false,
        why: "pytest reads PYTEST_ADDOPTS as options put before the command's own; its JUnit \
              report names every test, and the xunit1 family adds each test's file, from which \
              the node id is rebuilt",
    },
    IdHook {
        runner: Runner::GoTest,
        var: "GOFLAGS",
        value: "-json",
        join: Join::List,
        options: &["json", "v"],
        texts: &[],
        files: &[],
        once: &[],
        // `go vet` knows -json too, and exits 0 on findings with it.
        only: Some(("go", "test")),
        console: true,
        why: "go applies GOFLAGS to every go command that knows the flag; `go test -json` \
              prints every test's event",
    },
    IdHook {
        runner: Runner::Nextest,
        var: "NEXTEST_STATUS_LEVEL",
        value: "skip",
        join: Join::Alone,
        options: &["status-level", "message-format"],
        texts: &[],
        files: &[],
        once: &[],
        only: None,
        console: false,
        why: "nextest reads NEXTEST_STATUS_LEVEL for --status-level; at `skip` it also names \
              the skipped tests, which its default (`pass`) leaves out",
    },
];

/// What the check's environment already says about a variable, and what a project file holds.
pub trait Context {
    /// The variable's value the check would see without pawl's addition.
    fn var(&self, name: &str) -> Option<String>;
    /// The text of a file at the check's directory (`None`: there is none).
    fn file(&self, name: &str) -> Option<String>;
}

/// The hook to use for `command`, if any (see the module's rules).
pub fn hook_for(command: &str, ctx: &dyn Context) -> Option<&'static IdHook> {
    if crate::report::uses_report(command) {
        return None;
    }
    let runner = Runner::from_command(command)?;
    let hook = HOOKS.iter().find(|h| h.runner == runner)?;
    let words = words(command);
    if !hook.once.is_empty() {
        let uses = words
            .iter()
            .filter(|w| hook.once.iter().any(|p| program_is(w, p)))
            .count();
        if uses != 1 {
            return None;
        }
    }
    if let Some((tool, sub)) = hook.only {
        let all_sub = words
            .iter()
            .enumerate()
            .filter(|(_, w)| program_is(w, tool))
            .all(|(i, _)| words.get(i + 1).is_some_and(|next| next == sub));
        if !all_sub {
            return None;
        }
    }
    if hook.console && crate::shell::pipes(command) {
        return None;
    }
    let current = ctx.var(hook.var);
    if hook.join == Join::Alone && current.as_deref().is_some_and(|v| !v.trim().is_empty()) {
        return None;
    }
    let mut texts = vec![command.to_owned()];
    texts.extend(current);
    if texts.iter().any(|t| conflicts(hook, t)) {
        return None;
    }
    if hook
        .files
        .iter()
        .filter_map(|f| ctx.file(f))
        .any(|text| hook.texts.iter().any(|t| text.contains(t)))
    {
        return None;
    }
    Some(hook)
}

impl IdHook {
    /// Whether the value names a report file pawl reads back.
    pub fn writes_report(&self) -> bool {
        crate::report::uses_report(self.value)
    }

    /// The variable's new value: pawl's, with `report` (the path the check is given) in place
    /// of `{report}`, after the `current` value for a list.
    pub fn value_with(&self, current: Option<&str>, report: Option<&str>) -> String {
        let own = match report {
            Some(path) => crate::report::substitute_report(self.value, path),
            None => self.value.to_owned(),
        };
        match current.map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) if self.join == Join::List => format!("{c} {own}"),
            _ => own,
        }
    }
}

fn conflicts(hook: &IdHook, text: &str) -> bool {
    hook.texts.iter().any(|t| text.contains(t))
        || words(text).iter().any(|w| {
            let Some(name) = w.strip_prefix('-') else {
                return false;
            };
            let name = name.trim_start_matches('-');
            let name = name.split_once('=').map_or(name, |(n, _)| n);
            hook.options.contains(&name)
        })
}

/// The command's words, quotes taken off their ends (`"pytest"` → `pytest`).
fn words(command: &str) -> Vec<String> {
    command
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
        .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Ctx {
        vars: Vec<(&'static str, &'static str)>,
        files: Vec<(&'static str, &'static str)>,
    }

    impl Context for Ctx {
        fn var(&self, name: &str) -> Option<String> {
            self.vars
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
        fn file(&self, name: &str) -> Option<String> {
            self.files
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    fn var_of(command: &str, ctx: &Ctx) -> Option<&'static str> {
        hook_for(command, ctx).map(|h| h.var)
    }

    #[test]
    fn each_runner_with_a_hook_gets_it_from_its_plain_command() {
        let none = Ctx::default();
        for (command, var) in [
            ("pytest -q", "PYTEST_ADDOPTS"),
            ("uv run python -m pytest -x tests/", "PYTEST_ADDOPTS"),
            ("cd sub && .venv/bin/pytest", "PYTEST_ADDOPTS"),
            ("go test ./...", "GOFLAGS"),
            ("go test -race -count=1 ./pkg/...", "GOFLAGS"),
            ("cargo nextest run --workspace", "NEXTEST_STATUS_LEVEL"),
        ] {
            assert_eq!(var_of(command, &none), Some(var), "{command}");
        }
        for command in [
            "python3 -m unittest discover",
            "cargo test -q",
            "node --test",
            "npx jest",
            "npx vitest run",
            "npx mocha",
            "npm test",
            "make test",
        ] {
            assert_eq!(var_of(command, &none), None, "{command}");
        }
    }

    #[test]
    fn a_command_that_chose_its_own_report_or_format_is_left_alone() {
        let none = Ctx::default();
        for command in [
            "pytest --junitxml=out.xml",
            "pytest --junit-xml out.xml",
            "pytest -p no:junitxml",
            "pytest -pno:junitxml",
            "pytest -rA --junitxml={report}",
            "go test -json ./...",
            "go test -v ./...",
            "go test --json=true ./...",
            "cargo nextest run --status-level=all",
            "cargo nextest run --message-format libtest-json",
        ] {
            assert_eq!(var_of(command, &none), None, "{command}");
        }
    }

    #[test]
    fn the_variables_value_and_the_runners_config_count_as_the_users_choice() {
        let set = |vars, files| Ctx { vars, files };
        assert_eq!(
            var_of(
                "pytest",
                &set(vec![("PYTEST_ADDOPTS", "--junitxml=mine.xml")], vec![])
            ),
            None
        );
        assert_eq!(
            var_of(
                "pytest",
                &set(
                    vec![],
                    vec![(
                        "pyproject.toml",
                        "[tool.pytest.ini_options]\naddopts = \"--junitxml=r.xml\"\n"
                    )]
                )
            ),
            None
        );
        assert_eq!(
            var_of(
                "go test ./...",
                &set(vec![("GOFLAGS", "-mod=mod -v")], vec![])
            ),
            None
        );
        assert_eq!(
            var_of(
                "cargo nextest run",
                &set(vec![("NEXTEST_STATUS_LEVEL", "fail")], vec![])
            ),
            None
        );
        // The family or a word in a comment is not a report of the user's.
        assert_eq!(
            var_of(
                "pytest",
                &set(
                    vec![],
                    vec![(
                        "pytest.ini",
                        "[pytest]\njunit_family = xunit2\n# no junitxml here\n"
                    )]
                )
            ),
            Some("PYTEST_ADDOPTS")
        );
        // An unrelated setting is kept, and pawl's follows it.
        let ctx = set(vec![("GOFLAGS", "-mod=mod")], vec![]);
        let hook = hook_for("go test ./...", &ctx).unwrap();
        assert_eq!(
            hook.value_with(ctx.var("GOFLAGS").as_deref(), None),
            "-mod=mod -json"
        );
    }

    #[test]
    fn two_invocations_or_another_subcommand_reading_the_variable_are_left_alone() {
        let none = Ctx::default();
        for command in [
            // One report file for two sessions: the second would overwrite the first's.
            "pytest tests/unit && pytest tests/e2e",
            // `go vet -json` exits 0 on findings.
            "go vet ./... && go test ./...",
            "go build ./... && go test ./...",
            // A consumer of the output may expect its usual format.
            "go test ./... | tee test.log",
            "go test ./... 2>&1 | go-junit-report > report.xml",
        ] {
            assert_eq!(var_of(command, &none), None, "{command}");
        }
        // `||` is no pipe; the same subcommand twice is fine for go; a quoted `|` is a word
        // (read with the shell parser, `shell::pipes`).
        for command in [
            "go test ./a/... && go test ./b/... || exit 1",
            "go test -run 'TestA|TestB' ./...",
            "go test -run \"A|B\" ./... && echo ok",
        ] {
            assert_eq!(var_of(command, &none), Some("GOFLAGS"), "{command}");
        }
    }

    #[test]
    fn the_report_path_is_quoted_for_the_runners_own_splitting() {
        let hook = hook_for("pytest -q", &Ctx::default()).unwrap();
        assert!(hook.writes_report());
        assert_eq!(
            hook.value_with(Some("-x"), Some("/tmp/a b/r.xml")),
            "-x --junitxml='/tmp/a b/r.xml' -o junit_family=xunit1"
        );
        assert_eq!(
            hook.value_with(None, Some("/tmp/r.xml")),
            "--junitxml=/tmp/r.xml -o junit_family=xunit1"
        );
    }
}
