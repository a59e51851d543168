//! The seal: the checks a run uses and the environment they see, fixed when the run starts.
//!
//! Editing `pawl.toml` never changes a started run and `pawl resume` keeps the seal; only the
//! user changes it, explicitly (`pawl resume --reseal`), and that is an event in the run's log.
//! An agent that rewrites `[gates]` (`test = "true"`) changes nothing pawl runs.
//!
//! What this module is not: running the checks (pawl-verify's runner, pawl-engine's
//! verification) or reading the environment (the CLI captures it and hands it in).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Why a sealed check exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckRole {
    /// A `[gates]` entry of `pawl.toml` when the run started.
    Gate,
    /// A user's `--check "<cmd>"`: must fail on the pre-run code and pass at the end.
    Acceptance,
    /// A `--hidden-check`, a `pawl hidden add` entry or a QA reproduction: run in the clean
    /// room, never shown to the agent.
    Hidden,
}

/// One sealed check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedCheck {
    pub name: String,
    /// The shell command. Empty for a hidden check whose command is kept out of the store (in
    /// the user's pawl state, under [`SealedCheck::code`]): the store is readable by the agent.
    pub command: String,
    pub role: CheckRole,
    /// A hidden check's command is kept by this code (an HMAC under pawl's key, so the agent can
    /// neither guess the command from it nor forge one): pawl-engine's `hidden` vault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

impl SealedCheck {
    /// A check whose command is in the seal.
    pub fn new(name: impl Into<String>, command: impl Into<String>, role: CheckRole) -> Self {
        SealedCheck {
            name: name.into(),
            command: command.into(),
            role,
            code: None,
        }
    }
}

/// The checks of a run and the environment they run with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Seal {
    /// In run order (as `[gates]` orders them: build first).
    pub checks: Vec<SealedCheck>,
    /// Longest a check may run (ms).
    pub timeout_ms: u64,
    /// The environment the checks see: built by pawl when the run started, never from the
    /// agent's process. `PATH` holds no directory inside the repository.
    pub env: BTreeMap<String, String>,
    /// The goal adds no behaviour (refactor, docs, formatting): it is proven by a changed tree
    /// on which every test that passed at the baseline still passes.
    #[serde(default)]
    pub no_behaviour: bool,
    /// `[room] network` when the run started: the checks keep the machine's network. Sealed,
    /// because the agent can edit `pawl.toml` during the run.
    #[serde(default)]
    pub network: bool,
    /// `[room] setup` when the run started (empty: detected from the platforms' data when
    /// needed). Sealed: the command runs with the network, so the agent cannot choose it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub setup: String,
    /// `[verify] runs`: how many times in all the deciding tests run on the locked tree (a seal
    /// from before it was recorded: 1, what those runs did).
    #[serde(default = "one")]
    pub runs: u32,
    /// `[verify] scope_max_files` and `scope_max_lines`: how much change outside what the
    /// targeted failing tests exercise is listed without asking (`crate::scope`). Sealed: the
    /// agent edits `pawl.toml`.
    #[serde(default)]
    pub scope: crate::scope::Limits,
    /// `[verify] require_probe`: a deciding function never probed outside the test runner is
    /// a finding (REVIEW). Sealed: the agent edits `pawl.toml`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub require_probe: bool,
    /// `[verify] reviewer` when the run started (`crate::review::decide` reads it with the
    /// run's agent and mode). `None` in seals from before it was recorded: no reviewer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<crate::review::Setting>,
    /// `[tester]` when the run started (`crate::tester::decide`): the independent tester whose
    /// hidden tests the verification runs. `None`: no tester.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tester: Option<crate::tester::Sealed>,
    /// The program each check command starts (its first word), as the sealed `PATH` resolved it
    /// when the run started: `name → "<path> <sha256>"`. A program that resolves elsewhere or
    /// changed later is a finding (a fake `python3` dropped into a `PATH` directory).
    #[serde(default)]
    pub tools: BTreeMap<String, String>,
    /// The files outside the repository the check commands start, resolved when the run
    /// started: each command's program as named (by its path, `"$HOME/envs/calc/bin/python"`,
    /// or found on the sealed `PATH`) and as its links resolve, a script's interpreter, a
    /// virtualenv's base interpreter (`pyvenv.cfg`). Their installation prefixes are kept in
    /// sight of the checks, read-only, where HOME and the directories above the repository
    /// are otherwise out of it (pawl-process's `sandbox::check::program_place`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<String>,
    /// The git pawl runs for this run: the absolute path the sealed `PATH` named when the run
    /// started. A `git` that appears earlier on a `PATH` later (a shim the agent wrote) is never
    /// the one pawl runs.
    #[serde(default)]
    pub git: Option<String>,
    /// The words of the goal that could name a module or file it creates
    /// ([`crate::envfail::goal_names`]): a check that cannot import one of them at the baseline
    /// is failing for the run to fix, not for the environment.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub goal_names: Vec<String>,
}

fn one() -> u32 {
    1
}

/// The program a shell command starts: its first word after variable assignments and `exec`/
/// `env`, when that is a bare name (`python3 -m pytest` → `python3`). Paths are files, not
/// programs found on `PATH`.
pub fn program_of(command: &str) -> Option<&str> {
    command
        .split_whitespace()
        .find(|w| !w.contains('=') && !matches!(*w, "exec" | "env" | "command" | "nice"))
        .filter(|w| {
            !w.contains('/')
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'))
        })
}

/// The program a shell command starts, as the shell names it: its first word after variable
/// assignments and `exec`/`env`/`command`/`nice` (and their options), its quotes removed and
/// `$NAME`, `${NAME}` and a leading `~` expanded from `env` (the environment the checks get):
/// `"$HOME/envs/calc/bin/python" -m pytest` → `/home/u/envs/calc/bin/python`; a bare name
/// stays one (`pytest`). `None` when the word needs more of the shell than that (a command
/// substitution, a variable `env` lacks, a glob, an operator).
pub fn program_word(command: &str, env: &BTreeMap<String, String>) -> Option<String> {
    let mut rest = command;
    let mut after_wrapper = false;
    loop {
        let (word, raw, tail) = shell_word(rest, env)?;
        rest = tail;
        if word.is_empty() && raw.is_empty() {
            return None;
        }
        let assignment = raw.split_once('=').is_some_and(|(name, _)| is_name(name));
        if assignment || (after_wrapper && raw.starts_with('-')) {
            continue;
        }
        if matches!(raw, "exec" | "env" | "command" | "nice") {
            after_wrapper = true;
            continue;
        }
        return (!word.is_empty()).then_some(word);
    }
}

fn is_name(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The first word of `text` (leading blanks skipped): expanded, as written, and what follows
/// it. `None` where expanding it takes more than quotes and plain variables.
fn shell_word<'a>(
    text: &'a str,
    env: &BTreeMap<String, String>,
) -> Option<(String, &'a str, &'a str)> {
    let text = text.trim_start();
    let mut out = String::new();
    let mut chars = text.char_indices().peekable();
    let mut quote: Option<char> = None;
    let mut end = text.len();
    if let Some(after) = text.strip_prefix('~') {
        // `~user` is another user's HOME: not expanded here.
        if !(after.is_empty() || after.starts_with('/') || after.starts_with(char::is_whitespace)) {
            return None;
        }
        out.push_str(env.get("HOME")?);
        chars.next();
    }
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            (None, c) if c.is_whitespace() => {
                end = i;
                break;
            }
            (None, ';' | '&' | '|' | '<' | '>' | '(' | ')' | '`' | '*' | '?' | '[')
            | (Some('"'), '`') => return None,
            (None, '\\') | (Some('"'), '\\') => {
                let (_, next) = chars.next()?;
                out.push(next);
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None | Some('"'), '$') => {
                let braced = chars.next_if(|(_, c)| *c == '{').is_some();
                let mut name = String::new();
                while let Some((_, c)) =
                    chars.next_if(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
                {
                    name.push(c);
                }
                if braced && chars.next_if(|(_, c)| *c == '}').is_none() {
                    return None;
                }
                if !is_name(&name) {
                    return None;
                }
                out.push_str(env.get(&name)?);
            }
            (_, c) => out.push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    Some((out, &text[..end], &text[end..]))
}

/// Variables a check keeps from the environment the run was started in: locale, identity,
/// temporary files and the usual toolchain homes. Everything else is left out unless the user
/// passes it (`[verify] pass_env` / `--pass-env`): a check sees what the seal says.
pub const PASS_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "TERM",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOPATH",
    "GOROOT",
    "GOCACHE",
    "GOMODCACHE",
    "JAVA_HOME",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "NVM_DIR",
    "npm_config_cache",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// The sealed environment from the one pawl was started with (`vars`): the [`PASS_ENV`] names
/// and the user's `extra` names, with every `PATH` entry inside `root` (or relative, like `.` or
/// `bin`) removed — a tool the agent drops into the repository is never found first.
pub fn sealed_env(
    vars: &[(String, String)],
    extra: &[String],
    root: &std::path::Path,
) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for (k, v) in vars {
        if !PASS_ENV.contains(&k.as_str()) && !extra.iter().any(|e| e == k) {
            continue;
        }
        let v = if k == "PATH" {
            clean_path(v, root)
        } else {
            v.clone()
        };
        env.insert(k.clone(), v);
    }
    env
}

/// `PATH` without empty, relative or repository-internal entries.
pub fn clean_path(path: &str, root: &std::path::Path) -> String {
    path.split(':')
        .filter(|p| {
            let p = std::path::Path::new(p);
            !p.as_os_str().is_empty() && p.is_absolute() && !p.starts_with(root)
        })
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_a_command_starts() {
        for (cmd, want) in [
            ("python3 -m pytest -q", Some("python3")),
            ("PYTHONHASHSEED=0 pytest", Some("pytest")),
            ("exec cargo test", Some("cargo")),
            ("sh test.sh", Some("sh")),
            ("./run.sh", None),
            ("bin/check", None),
            ("", None),
            ("$(evil) x", None),
        ] {
            assert_eq!(program_of(cmd), want, "{cmd}");
        }
    }

    /// Rows: a command → the program it starts, with `HOME=/home/u` and `TOOLS=/opt/t`.
    #[test]
    fn the_program_word_a_command_starts() {
        let env: BTreeMap<String, String> = [("HOME", "/home/u"), ("TOOLS", "/opt/t")]
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        for (cmd, want) in [
            (
                "\"$HOME/somewhere/myenv/bin/python\" -m pytest",
                Some("/home/u/somewhere/myenv/bin/python"),
            ),
            (
                "${HOME}/.venvs/calc/bin/pytest -q",
                Some("/home/u/.venvs/calc/bin/pytest"),
            ),
            ("~/bin/check --all", Some("/home/u/bin/check")),
            ("'/opt/my tools/bin/x' y", Some("/opt/my tools/bin/x")),
            ("CI=1 FOO='a b' $TOOLS/bin/x", Some("/opt/t/bin/x")),
            (
                "env -i PATH=/x exec ../tools/bin/style",
                Some("../tools/bin/style"),
            ),
            ("python3 -m pytest", Some("python3")),
            ("  nice pytest", Some("pytest")),
            ("$(which python) -m x", None),
            ("`which x`", None),
            ("$UNSET/bin/x", None),
            ("~user/bin/x", None),
            ("/opt/*/bin/x", None),
            ("\"unclosed", None),
            ("", None),
            ("A=1", None),
            ("(cd x && make)", None),
        ] {
            assert_eq!(program_word(cmd, &env).as_deref(), want, "{cmd}");
        }
    }

    #[test]
    fn path_entries_inside_the_repository_are_removed() {
        let root = std::path::Path::new("/work/repo");
        assert_eq!(
            clean_path("/work/repo/bin:.:bin::/usr/bin:/work/repo2/bin:/bin", root),
            "/usr/bin:/work/repo2/bin:/bin"
        );
    }

    #[test]
    fn only_passed_names_are_sealed() {
        let vars = vec![
            (
                "PATH".to_string(),
                "./node_modules/.bin:/usr/bin".to_string(),
            ),
            ("HOME".into(), "/home/u".into()),
            ("PYTHONPATH".into(), "/evil".into()),
            ("NODE_OPTIONS".into(), "--require /evil.js".into()),
            ("DATABASE_URL".into(), "postgres://x".into()),
        ];
        let env = sealed_env(&vars, &["DATABASE_URL".into()], std::path::Path::new("/r"));
        assert_eq!(env.get("PATH").map(String::as_str), Some("/usr/bin"));
        assert_eq!(env.get("HOME").map(String::as_str), Some("/home/u"));
        assert!(!env.contains_key("PYTHONPATH"));
        assert!(!env.contains_key("NODE_OPTIONS"));
        assert_eq!(
            env.get("DATABASE_URL").map(String::as_str),
            Some("postgres://x")
        );
    }
}
