//! The walker: parses a command line with brush-parser and visits every
//! simple command it would run, in order, keeping the little state that
//! changes what later commands mean (variables with static values, the
//! current directory, aliases, functions, the branch git is on). Each
//! command is resolved (quotes, wrappers, payloads) and judged by the rules.
//!
//! Fail-closed points live here: parse errors, a command name that is not
//! statically known, nesting and size bounds. The rules themselves are in
//! [`crate::rules`]; the per-command unwrapping is in `walk/commands.rs`.

mod commands;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow::{self, Break, Continue};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

use brush_parser::Token;
use brush_parser::ast;

use crate::balance;
use crate::context::Context;
use crate::decision::{Decision, FoundCommand, RuleId};
use crate::paths::{Anchors, normalize};
use crate::policy::CompiledPolicy;
use crate::registry;
use crate::words::{self, Arg};

/// Largest input the guard analyses, in bytes.
/// What judging a piece of the input answers: `Break(Denied)` when it was denied, which stops
/// the walk by itself (`?` carries it up to [`Walker::walk_input`]), so the first denial is the
/// decision.
pub(crate) type Judged<T = ()> = ControlFlow<Denied, T>;

/// A denial as a value: the decision (rule, reason with its origin) made by [`Walker::deny`].
#[derive(Debug)]
pub(crate) struct Denied(pub(crate) Decision);

pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// Deepest nesting of scripts inside scripts (`bash -c`, `eval`, `$(...)`,
/// aliases, function calls) the guard follows.
pub const MAX_SCRIPT_DEPTH: usize = 12;
/// Deepest syntactic nesting (brackets and compound commands) in one
/// script that is handed to the parser; bounds the parser's recursion.
pub const MAX_NESTING: usize = 24;
/// Most analysis steps (scripts parsed plus commands judged) per input.
pub const MAX_STEPS: usize = 2_000;
/// Most wrapper commands (`sudo env nice ...`) peeled off one command.
pub const MAX_WRAPPERS: usize = 32;
/// Most words of a `for` list walked one by one.
const MAX_UNROLLED_WORDS: usize = 16;
/// Most loop-body walks per word, in all, for one input.
const MAX_UNROLLED: usize = 64;
/// Most outline lines kept for `explain`.
const MAX_OUTLINE: usize = 400;

/// Where a command's standard input comes from, as far as the guard can
/// tell; it matters for shells and interpreters that read a script there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stdin {
    /// Whatever the agent's tool gives (nothing useful).
    Inherited,
    /// The previous command of a pipeline.
    Pipe,
    /// A here-document or here-string with this text.
    Text(String),
    /// A here-string or process substitution with unknown content.
    Unknown,
    /// A file (`< file`).
    File,
}

/// A git branch the repository may be on after the commands so far;
/// `None` when it cannot be known.
pub(crate) type Branch = Option<String>;

/// State that is external to the shell (it lives in the repository), so
/// subshells and pipelines change it too.
#[derive(Debug, Clone, Default)]
pub(crate) struct World {
    /// Every branch HEAD may be on.
    pub branches: Vec<Branch>,
    /// Git aliases defined by `git config alias.x ...` earlier in the
    /// input; `None` values mean "defined to something unknown".
    pub git_aliases: HashMap<String, Option<String>>,
    /// Some alias was defined to an unknown value or name.
    pub git_aliases_unknown: bool,
    /// Directories made repositories of their own (`git init`, `git clone`)
    /// earlier in the input: the protected branches are not theirs.
    pub git_repos: Vec<String>,
}

/// Shell state, copied into subshells.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shell {
    /// Variables assigned in the input: `Some` when statically known.
    pub vars: HashMap<String, Option<String>>,
    /// The current directory; `None` once it cannot be known.
    pub cwd: Option<String>,
    /// `alias name=value` definitions.
    pub aliases: HashMap<String, String>,
    /// Functions defined in the input.
    pub functions: HashMap<String, Rc<ast::FunctionBody>>,
    /// A builtin may have changed variables in ways the guard does not
    /// model (`declare -n`, `declare -l`, `declare "$x"`): no variable's
    /// value is trusted any more.
    pub vars_untrusted: bool,
    /// `IFS` was assigned: unquoted expansions split unpredictably.
    pub ifs_changed: bool,
    /// Variables whose value is unknown but free of code (a `for` loop over
    /// literal words, an arithmetic result): arithmetic on them is safe.
    pub arith_safe: HashSet<String>,
    /// Loop variables over one glob (`for f in src/*.rs`): the pattern.
    pub globs: HashMap<String, String>,
    /// Variables with the integer attribute: assigning evaluates arithmetic.
    pub integer_vars: HashSet<String>,
    /// Standard input given to the rest of the script by `exec < ...`.
    pub stdin: Option<Stdin>,
    /// File descriptors opened for the rest of the script (`exec 3<<<...`).
    pub fds: HashMap<i32, Stdin>,
    /// Output descriptors open on a file for the commands being walked (`exec >log`,
    /// `{ ...; } >> README.md`): `/dev/stdout` there is that file.
    pub fd_files: HashMap<i32, FdFile>,
    /// Environment given to the command being judged and to everything it
    /// runs (`VAR=value cmd`, `env VAR=value cmd`); `None`: not statically
    /// known. Git reads it (GIT_EDITOR, GIT_CONFIG_*, HOME, ...).
    pub env: Vec<(String, Option<String>)>,
    /// A file was sourced (its assignments are not carried back): a variable the input does
    /// not assign may have been set by it, so none is taken as inherited.
    pub sourced: bool,
}

impl Shell {
    /// Whether the variable `name` keeps the value the command inherits (the user's or CI's
    /// environment, not the agent's): the input never assigns it nor gives it to a command,
    /// splits nothing with its own `IFS`, and left every variable trusted. The caller decides
    /// whether the word is an argument (a command name is never judged by such a value).
    pub(crate) fn inherits(&self, name: &str) -> bool {
        !self.vars_untrusted
            && !self.ifs_changed
            && !self.vars.contains_key(name)
            && !self.env.iter().any(|(n, _)| n == name)
            && !matches!(name, "HOME" | "TMPDIR" | "PWD")
            && !NUMERIC_VARS.contains(&name)
            && !crate::words::NOT_NAMES.contains(&name)
    }
}

/// A file a descriptor is open on.
#[derive(Debug, Clone)]
pub(crate) struct FdFile {
    /// The file, as a redirect named it.
    pub path: Arg,
    /// Opened with `<>`: writes through the descriptor overwrite it in place.
    pub read_write: bool,
}

/// How a script is being visited.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// Nesting of scripts inside scripts.
    pub depth: usize,
    /// Where this script came from, for messages.
    pub origin: String,
    /// Inside a branch, loop or background job: assignments and `cd` may
    /// or may not happen.
    pub conditional: bool,
    /// Text that may not be shell at all (string literals of an interpreter
    /// one-liner): parse errors and unknown names are not denials there.
    pub lenient: bool,
    /// Standard input of the commands at this level.
    pub stdin: Stdin,
    /// Outline indentation.
    pub indent: usize,
    /// Wrappers (`sudo`, `env`, ...) peeled off on the way here.
    pub wrappers: usize,
}

impl Frame {
    fn top() -> Self {
        Self {
            depth: 0,
            origin: "top level".into(),
            conditional: false,
            lenient: false,
            stdin: Stdin::Inherited,
            indent: 0,
            wrappers: 0,
        }
    }

    /// A frame for a script nested in this one.
    pub(crate) fn nested(&self, origin: &str) -> Self {
        let origin = if self.depth == 0 {
            origin.to_owned()
        } else {
            format!("{} > {origin}", self.origin)
        };
        Self {
            depth: self.depth + 1,
            origin,
            conditional: self.conditional,
            lenient: self.lenient,
            stdin: Stdin::Inherited,
            indent: self.indent + 1,
            wrappers: self.wrappers,
        }
    }

    pub(crate) fn conditional(&self) -> Self {
        Self {
            conditional: true,
            ..self.clone()
        }
    }

    fn indented(&self) -> Self {
        Self {
            indent: self.indent + 1,
            ..self.clone()
        }
    }

    pub(crate) fn with_stdin(&self, stdin: Stdin) -> Self {
        Self {
            stdin,
            ..self.clone()
        }
    }
}

/// A simple command ready to be judged.
#[derive(Debug, Clone)]
pub(crate) struct Cmd {
    pub argv: Vec<Arg>,
    pub stdin: Stdin,
}

/// Kinds of writes to a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteMode {
    /// Truncate or replace the file (`>`, `tee`, `cp` onto it).
    Clobber,
    /// Add to the end (`>>`, `tee -a`).
    Append,
    /// Change in place or create (`sed -i`, `touch`, `<>`).
    Modify,
    /// Remove one file (`rm`, `unlink`, the source of `mv`).
    Delete,
}

/// Visits an input and collects the verdict.
pub(crate) struct Walker<'a> {
    pub ctx: &'a Context,
    pub policy: &'a CompiledPolicy,
    pub anchors: Anchors,
    pub world: World,
    pub denial: Option<Decision>,
    pub found: Vec<FoundCommand>,
    pub outline: Vec<String>,
    steps: usize,
    active_functions: Vec<String>,
    /// How often each active function called itself while its body was judged.
    self_calls: Vec<usize>,
    /// Absolute paths this command line writes (redirect targets, `tee`,
    /// `cp`/`mv` destinations): running one of them runs text the guard
    /// never read.
    pub written: Vec<(String, Option<String>)>,
    /// File descriptors the simple command being judged opens (`3<<<...`).
    pub cmd_fds: HashMap<i32, Stdin>,
    /// Output descriptors the simple command being judged opens on files (`>log`, `3<>x`).
    cmd_fd_files: HashMap<i32, FdFile>,
    /// The file the simple command being judged reads as stdin (`bash < x.sh`).
    pub(crate) cmd_stdin_file: Option<String>,
    /// The one file the last command judged printed whole (`cat x.sh`): what the next element
    /// of a pipeline reads (`cat x.sh | sh` runs `x.sh` as `sh < x.sh` does).
    printed_file: Option<String>,
    /// The file the next simple command reads as stdin through a pipe (`printed_file` of the
    /// element before it).
    piped_file: Option<String>,
    /// A command of this line read a secret (or printed the environment): why, for a network
    /// client later in the line (rule `secret-exfil`).
    pub(crate) secret_read: Option<String>,
    /// Entries of `written` (their length after the push) that appended to or modified a file
    /// in place: what was printed is not the file's whole text.
    pub(crate) partial_writes: Vec<usize>,
    /// The `cd` being walked is the first command of an `&&` list: the
    /// commands after it run only if it succeeded.
    certain_cd: bool,
    /// A `cd` in the current `&&` list was trusted only because of `&&`.
    cd_by_and: bool,
    /// `CDPATH` is mentioned: a relative `cd` may go anywhere.
    cdpath: bool,
    /// How many unconditional `cd`s to a directory that may not exist were walked (`cd d; x`:
    /// the rest runs in `d` or, when the `cd` failed, where it was).
    pub(crate) uncertain_cds: usize,
    /// When set, such a `cd` is taken to have succeeded (`Some(true)`) or failed
    /// (`Some(false)`): the input is walked once each way ([`crate::Guard`]).
    pub(crate) cd_outcome: Option<bool>,
    /// Directories this command line creates (`mkdir -p d`, `git init d`):
    /// a later `cd` into them succeeds.
    made_dirs: Vec<String>,
    /// Names just assigned the output of a command that prints a number
    /// (`n=$(nproc)`, `i=$((i + 1))`): arithmetic on them is safe.
    numeric: Vec<String>,
    /// Script files (and `package.json`s) read through the context's reader.
    pub(crate) scripts_read: crate::scripts::ReadCache,
    /// `TMPDIR` is not set in the environment and the input never assigns it.
    tmpdir_unset: bool,
    /// Loop bodies walked once per word so far (`for d in a b c`), bounded.
    unrolled: usize,
    /// The pawl binary the hooks run, when the policy names it.
    pawl_binary: Option<String>,
    /// The removal being judged is `git rm` without `--force`, which removes only files
    /// identical to the commit they came from: that repository's git restores them, inside the
    /// run's repository or not.
    pub(crate) git_held_removal: bool,
}

/// Words expand against the shell's variables and the context's anchors.
struct ScopeView<'s> {
    shell: &'s Shell,
    anchors: &'s Anchors,
    /// `TMPDIR` is not set in the environment and the input never assigns it.
    tmpdir_unset: bool,
    /// The pawl binary the hooks run, when known: what `$(which pawl)` prints.
    pawl_binary: Option<&'s str>,
    /// The word is an argument (not a command name): an inherited value may be cut at its
    /// directory ([`words::Scope::inherited`]).
    argument: bool,
    /// The word is in the command line itself, not a nested script or a sourced file: a
    /// variable the line does not assign has the value the context's environment gives it
    /// ([`Context::env`]).
    top: bool,
    /// [`Context::env`].
    env: &'s BTreeMap<String, String>,
}

/// Variables the shell sets or changes itself, whatever the environment it inherits holds: their
/// value in the caller's environment is not theirs in the agent's shell.
fn set_by_the_shell(name: &str) -> bool {
    name.starts_with("BASH")
        || words::NOT_NAMES.contains(&name)
        || matches!(
            name,
            "SHLVL"
                | "PWD"
                | "OLDPWD"
                | "HOSTNAME"
                | "HOSTTYPE"
                | "OSTYPE"
                | "MACHTYPE"
                | "PS1"
                | "PS2"
                | "PS3"
                | "OPTIND"
                | "OPTARG"
                | "OPTERR"
                | "REPLY"
                | "COLUMNS"
                | "LINES"
                | "HISTFILE"
                | "HISTSIZE"
                | "HISTCMD"
                | "FUNCNAME"
                | "GROUPS"
                | "DIRSTACK"
                | "PIPESTATUS"
                | "COMP_WORDS"
                | "SHELLOPTS"
                | "POSIXLY_CORRECT"
        )
}

/// Search paths a command line commonly extends with their own inherited value
/// (`PYTHONPATH="$PWD:$PYTHONPATH"`): see `Walker::extended_search_path`.
const SELF_EXTENDED: &[&str] = &[
    "PYTHONPATH",
    "NODE_PATH",
    "PERL5LIB",
    "RUBYLIB",
    "CLASSPATH",
    "LD_LIBRARY_PATH",
];

/// What the inherited entries of a search path stand as: a directory that is no temporary
/// directory and that no command line writes.
const INHERITED_ENTRIES: &str = "/pawl-inherited-entries";

/// Variables bash sets to a number (unless the input assigns or unsets them).
#[rustfmt::skip]
const NUMERIC_VARS: &[&str] = &[
    "PPID", "BASHPID", "RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS", "UID", "EUID", "LINENO",
];

impl words::Scope for ScopeView<'_> {
    fn var(&self, name: &str) -> Option<String> {
        if self.shell.vars_untrusted {
            return None;
        }
        if let Some(value) = self.shell.vars.get(name) {
            return value.clone();
        }
        match name {
            "HOME" => self.anchors.home.clone(),
            "TMPDIR" => self.anchors.tmpdir.clone(),
            "PWD" => self.shell.cwd.clone(),
            _ if NUMERIC_VARS.contains(&name) => Some(words::SOME_NUMBER.to_owned()),
            _ if self.top
                && !self.shell.env.iter().any(|(n, _)| n == name)
                && !set_by_the_shell(name) =>
            {
                self.env.get(name).cloned()
            }
            _ => None,
        }
    }

    fn substitution(&self, script: &str) -> Option<String> {
        if self.shell.vars_untrusted || script.contains(['$', '`', ';', '|', '&', '<', '>', '\n']) {
            return None;
        }
        let words: Vec<&str> = script.split_ascii_whitespace().collect();
        match words.as_slice() {
            ["pwd"] | ["pwd", "-L"] => self.shell.cwd.clone(),
            // Where pawl is: the binary the hooks run (a copy of it is pawl under another name).
            ["which" | "whereis", "pawl"]
            | ["command", "-v" | "-V", "pawl"]
            | ["type", "-p" | "-P", "pawl"] => self.pawl_binary.map(str::to_owned),
            ["readlink" | "realpath", .., path] if Some(*path) == self.pawl_binary => {
                self.pawl_binary.map(str::to_owned)
            }
            ["git", "rev-parse", "--show-toplevel"] => {
                // The repository's root when git runs there and nothing points git elsewhere.
                let root = self.anchors.repo_root.as_deref()?;
                let cwd = self.shell.cwd.as_deref()?;
                let redirected = ["GIT_DIR", "GIT_WORK_TREE"].iter().any(|v| {
                    self.shell.vars.contains_key(*v) || self.shell.env.iter().any(|(n, _)| n == v)
                });
                // Only from the root itself: a subdirectory may be a submodule (another root).
                (!redirected && cwd == root).then(|| root.to_owned())
            }
            _ => None,
        }
    }

    fn inherited(&self, name: &str) -> bool {
        self.argument && self.shell.inherits(name)
    }

    fn unset(&self, name: &str) -> bool {
        name == "TMPDIR"
            && self.tmpdir_unset
            && !self.shell.vars_untrusted
            && !self.shell.vars.contains_key(name)
    }

    fn home(&self) -> Option<String> {
        if self.shell.vars_untrusted {
            return None;
        }
        match self.shell.vars.get("HOME") {
            Some(value) => value.clone(),
            None => self.anchors.home.clone(),
        }
    }

    fn risky(&self, name: &str) -> bool {
        risky_var(self.shell, name)
    }

    fn ifs_changed(&self) -> bool {
        self.shell.ifs_changed
    }

    fn glob_var(&self, name: &str) -> Option<String> {
        if self.shell.vars_untrusted || self.shell.ifs_changed {
            return None;
        }
        self.shell.globs.get(name).cloned()
    }
}

/// Whether arithmetic on `name` might run code: its value was set in the
/// input to something unknown, or (through the names it mentions, as bash
/// evaluates them recursively) holds a command substitution.
fn risky_var(shell: &Shell, name: &str) -> bool {
    // A breadth-first walk over the names values mention, each visited once
    // and at most 256 in all (values naming each other must not blow up).
    let mut queue: Vec<&str> = vec![name];
    let mut seen: HashSet<&str> = HashSet::new();
    while let Some(current) = queue.pop() {
        if !seen.insert(current) {
            continue;
        }
        if seen.len() > 256 {
            return true;
        }
        if shell.arith_safe.contains(current) {
            continue;
        }
        match shell.vars.get(current) {
            None => {}
            Some(_) if shell.vars_untrusted => return true,
            Some(None) => return true,
            Some(Some(value)) => {
                if words::has_code(value) {
                    return true;
                }
                queue.extend(words::identifiers(value));
            }
        }
    }
    false
}

/// POSIX special builtins: assignments before them persist in POSIX mode.
const SPECIAL_BUILTINS: &[&str] = &[
    ":", ".", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return", "set",
    "shift", "times", "trap", "unset", "source",
];

/// Variables whose value bash evaluates as code later (prompts, traces,
/// startup files): setting them to something with a substitution, or to
/// something unknown, hides code from the guard.
#[rustfmt::skip]
const CODE_VARS: &[&str] = &[
    "PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV",
];

fn path_string(p: &std::path::Path) -> String {
    normalize("/", &p.to_string_lossy())
}

/// Whether an assigned word is an arithmetic expansion or the output of a
/// command that prints numbers (`$((i + 1))`, `$(nproc)`, `$(wc -l < f)`,
/// `$(git rev-list --count HEAD)`).
fn prints_a_number(raw: &str) -> bool {
    let raw = raw.trim_matches('"');
    if raw.starts_with("$((") && raw.ends_with("))") || matches!(raw, "$!" | "$$" | "$?" | "$#") {
        return true;
    }
    let Some(inner) = raw.strip_prefix("$(").and_then(|r| r.strip_suffix(')')) else {
        return false;
    };
    if inner.contains(['$', '`', ';', '&', '(']) {
        return false;
    }
    let last = inner.rsplit('|').next().unwrap_or(inner);
    let mut words = last.split_whitespace();
    match words.next() {
        Some("nproc" | "getconf" | "id") => true,
        Some("wc") => words.any(|w| matches!(w, "-l" | "-c" | "-w" | "-m")),
        Some("date") => words.any(|w| w.starts_with("+%s") || w == "+%Y%m%d"),
        Some("grep") => words.any(|w| w == "-c" || w == "--count"),
        Some("git") => inner.contains("--count"),
        _ => false,
    }
}

/// The names an arithmetic expression assigns: `x = 1`, `x += 2`, `x++`,
/// `--x`.
fn arithmetic_assigned(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for name in words::identifiers(text) {
        // Every occurrence of `name` as a whole identifier.
        let mut from = 0;
        while let Some(found) = text[from..].find(name) {
            let start = from + found;
            let end = start + name.len();
            from = end;
            let before = text[..start].chars().next_back();
            let after_char = text[end..].chars().next();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                || after_char.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                continue;
            }
            let after = text[end..].trim_start();
            let prefix = text[..start].trim_end();
            let assigns = (after.starts_with('=') && !after.starts_with("=="))
                || [
                    "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", "++", "--",
                ]
                .iter()
                .any(|op| after.starts_with(op))
                || prefix.ends_with("++")
                || prefix.ends_with("--");
            if assigns && !out.iter().any(|n| n == name) {
                out.push(name.to_owned());
                break;
            }
        }
    }
    out
}

/// Whether `name` is mentioned in `text` other than as `$name`/`${name`,
/// i.e. possibly reassigned. Deliberately crude: a false "yes" only makes
/// the variable unknown.
fn maybe_reassigned(text: &str, name: &str) -> bool {
    let stripped = text
        .replace(&format!("${{{name}"), "")
        .replace(&format!("${name}"), "");
    stripped.contains(name)
}

impl<'a> Walker<'a> {
    /// How the words of `shell` are seen from here: `argument` (the word is an argument, not
    /// a command name) and `top` (in the command line itself) as [`ScopeView`] says.
    fn scope<'s>(&'s self, shell: &'s Shell, argument: bool, top: bool) -> ScopeView<'s> {
        ScopeView {
            shell,
            anchors: &self.anchors,
            tmpdir_unset: self.tmpdir_unset,
            pawl_binary: self.pawl_binary.as_deref(),
            argument,
            top,
            env: &self.ctx.env,
        }
    }

    pub(crate) fn new(ctx: &'a Context, policy: &'a CompiledPolicy, input: &str) -> Self {
        let home = ctx.home.as_deref().map(path_string);
        let tmpdir = ctx.tmpdir.as_deref().map(path_string);
        // A command that reassigns TMPDIR or HOME anywhere may change what
        // `$TMPDIR` or `~` mean before they are used; stop trusting them.
        let anchors = Anchors {
            repo_root: ctx.repo_root.as_deref().map(path_string),
            home: home.filter(|_| !maybe_reassigned(input, "HOME")),
            tmpdir: tmpdir.filter(|_| !maybe_reassigned(input, "TMPDIR")),
        };
        Self {
            ctx,
            policy,
            anchors,
            world: World {
                branches: vec![ctx.branch.clone()],
                ..World::default()
            },
            denial: None,
            found: Vec::new(),
            outline: Vec::new(),
            steps: 0,
            active_functions: Vec::new(),
            self_calls: Vec::new(),
            written: Vec::new(),
            cmd_fds: HashMap::new(),
            cmd_fd_files: HashMap::new(),
            cmd_stdin_file: None,
            printed_file: None,
            piped_file: None,
            secret_read: None,
            partial_writes: Vec::new(),
            certain_cd: false,
            cd_by_and: false,
            cdpath: input.contains("CDPATH"),
            uncertain_cds: 0,
            cd_outcome: None,
            made_dirs: Vec::new(),
            numeric: Vec::new(),
            scripts_read: HashMap::new(),
            tmpdir_unset: ctx.tmpdir.is_none() && !maybe_reassigned(input, "TMPDIR"),
            unrolled: 0,
            pawl_binary: crate::rules::reach::binary_path(policy),
            git_held_removal: false,
        }
    }

    /// Walks the whole input.
    pub(crate) fn walk_input(&mut self, input: &str) {
        let mut shell = Shell {
            cwd: Some(path_string(&self.ctx.cwd)),
            ..Shell::default()
        };
        let frame = Frame::top();
        // The walk ended at the first denial, if any: it is the decision.
        if let Break(Denied(decision)) = self.run_script(input, &mut shell, &frame) {
            self.denial = Some(decision);
        }
    }

    /// A denial with the origin attached, as the value that stops the walk: the `Break`
    /// propagates with `?` to [`Self::walk_input`], which makes it the decision. A rule the
    /// policy switched off is no denial: the walk goes on.
    pub(crate) fn deny(
        &mut self,
        frame: &Frame,
        rule: RuleId,
        reason: impl Into<String>,
    ) -> Judged {
        if self.rule_off(rule) {
            return Continue(());
        }
        let reason = reason.into();
        let reason = if frame.depth == 0 {
            reason
        } else {
            format!("{reason} ({})", frame.origin)
        };
        Break(Denied(Decision::deny(rule, reason)))
    }

    /// Whether the policy switched `rule` off (only [`crate::decision::SWITCHABLE_RULES`] can be).
    pub(crate) fn rule_off(&self, rule: RuleId) -> bool {
        let disabled = &self.policy.policy().disabled_rules;
        !disabled.is_empty()
            && crate::decision::SWITCHABLE_RULES.contains(&rule)
            && disabled.iter().any(|r| r == rule.as_str())
    }

    /// A denial that lenient frames (text that may not be shell) skip.
    pub(crate) fn fail_closed(
        &mut self,
        frame: &Frame,
        rule: RuleId,
        reason: impl Into<String>,
    ) -> Judged {
        if frame.lenient {
            return Continue(());
        }
        self.deny(frame, rule, reason)
    }

    fn note(&mut self, frame: &Frame, text: impl AsRef<str>) {
        if self.outline.len() < MAX_OUTLINE {
            let mut line = "  ".repeat(frame.indent);
            let text = text.as_ref();
            let short: String = text.chars().take(120).collect();
            line.push_str(&short);
            if short.len() < text.len() {
                line.push_str("...");
            }
            self.outline.push(line.replace('\n', "\\n"));
        }
    }

    /// Counts one unit of work; false once the budget is spent (and denied).
    fn step(&mut self, frame: &Frame) -> Judged {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return self.deny(
                frame,
                RuleId::TooLarge,
                format!("the command needs more than {MAX_STEPS} analysis steps"),
            );
        }
        Continue(())
    }

    /// Parses `text` as a shell script and walks it.
    pub(crate) fn run_script(&mut self, text: &str, shell: &mut Shell, frame: &Frame) -> Judged {
        self.run_script_sized(text, MAX_INPUT_BYTES, shell, frame)
    }

    /// [`Self::run_script`] with a size bound of `max_bytes` (a script file may be longer
    /// than a command line).
    pub(crate) fn run_script_sized(
        &mut self,
        text: &str,
        max_bytes: usize,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        self.step(frame)?;
        if frame.depth > MAX_SCRIPT_DEPTH {
            return self.deny(
                frame,
                RuleId::TooDeep,
                format!("scripts nest more than {MAX_SCRIPT_DEPTH} levels deep"),
            );
        }
        if text.len() > max_bytes {
            return self.deny(
                frame,
                RuleId::TooLarge,
                format!("the command is larger than {max_bytes} bytes"),
            );
        }
        if nesting(text) > MAX_NESTING {
            return self.deny(
                frame,
                RuleId::TooDeep,
                format!("the command nests more than {MAX_NESTING} levels deep"),
            );
        }
        if has_bad_heredoc_delimiter(text) {
            // brush-parser 0.4's tokenizer loops forever on `<<'' ` and on
            // `<<` followed by an operator (found by fuzzing); both are
            // errors in bash too, so refuse before calling it.
            return self.fail_closed(
                frame,
                RuleId::ParseError,
                "a here-document has an empty or missing delimiter",
            );
        }
        if has_huge_fd_number(text) {
            // brush-parser 0.4 panics on an fd number that overflows i32
            // (found by fuzzing); refuse before calling it.
            return self.fail_closed(
                frame,
                RuleId::ParseError,
                "a redirection names a file descriptor number out of range",
            );
        }
        // Tokenized once: the tokens are scanned (brush-parser's program grammar hands word
        // tokens to its word grammar, which is exponential on some shapes: see `balance`), then
        // parsed.
        let options = brush_parser::ParserOptions::default();
        let parsed = catch_unwind(AssertUnwindSafe(|| {
            let tokens = brush_parser::uncached_tokenize_str(text, &options.tokenizer_options())
                .map_err(|e| e.to_string())?;
            if let Some((word, why)) = hard_word(&tokens) {
                return Ok(Err((word, why)));
            }
            brush_parser::parse_tokens(&tokens, &options)
                .map(Ok)
                .map_err(|e| e.to_string())
        }));
        match parsed {
            Ok(Ok(Ok(program))) => {
                for list in &program.complete_commands {
                    self.compound_list(list, shell, frame)?;
                }
            }
            Ok(Ok(Err((word, why)))) => self.fail_closed(
                frame,
                RuleId::ParseError,
                format!(
                    "the word `{}` cannot be analysed: {why}; the guard cannot see what it runs",
                    word.chars().take(80).collect::<String>()
                ),
            )?,
            Ok(Err(error)) => self.fail_closed(
                frame,
                RuleId::ParseError,
                format!("the command does not parse as shell ({error}); the guard cannot see what it runs"),
            )?,
            Err(_) => self.fail_closed(
                frame,
                RuleId::ParseError,
                "the shell parser failed on this command; the guard cannot see what it runs",
            )?,
        }
        Continue(())
    }

    fn compound_list(
        &mut self,
        list: &ast::CompoundList,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            if matches!(separator, ast::SeparatorOperator::Async) {
                // A background job runs in a subshell and may or may not
                // have finished before later commands.
                let mut sub = shell.clone();
                self.and_or(and_or, &mut sub, &frame.conditional())?;
            } else {
                self.and_or(and_or, shell, frame)?;
            }
        }
        Continue(())
    }

    fn and_or(&mut self, list: &ast::AndOrList, shell: &mut Shell, frame: &Frame) -> Judged {
        // `a && cd dir && ...`: what follows the `cd` runs only in `dir`, up
        // to the first `||`. A `cd` followed by anything else may have
        // failed and left the directory unchanged.
        let is_simple = |p: &ast::Pipeline| {
            p.seq.len() == 1 && matches!(p.seq.first(), Some(ast::Command::Simple(_)))
        };
        let ands: Vec<bool> = list
            .additional
            .iter()
            .map(|next| matches!(next, ast::AndOr::And(_)))
            .collect();
        let outer_by_and = std::mem::take(&mut self.cd_by_and);
        let later = frame.conditional();
        let pipelines = std::iter::once(&list.first).chain(list.additional.iter().map(|next| {
            let (ast::AndOr::And(p) | ast::AndOr::Or(p)) = next;
            p
        }));
        for (k, pipeline) in pipelines.enumerate() {
            self.certain_cd = is_simple(pipeline)
                && ands.get(k) == Some(&true)
                && ands[..k].iter().all(|and| *and);
            self.pipeline(pipeline, shell, if k == 0 { frame } else { &later })?;
            self.certain_cd = false;
            if ands.get(k) == Some(&false) && self.cd_by_and {
                // What follows `||` may run after the `cd` failed.
                shell.cwd = None;
            }
        }
        if std::mem::replace(&mut self.cd_by_and, outer_by_and) {
            // After the list the `cd` may have failed (and the rest skipped).
            shell.cwd = None;
        }
        Continue(())
    }

    /// Whether the directory `path` surely exists (so `cd` to it succeeds):
    /// the root, the repository and its ancestors, the current directory
    /// and its ancestors, /tmp, $TMPDIR, $HOME.
    pub(crate) fn surely_exists(&self, shell: &Shell, path: &str) -> bool {
        let is_ancestor = |of: &str| {
            of == path || path == "/" || of.starts_with(&format!("{}/", path.trim_end_matches('/')))
        };
        [
            self.anchors.repo_root.as_deref(),
            shell.cwd.as_deref(),
            self.anchors.tmpdir.as_deref(),
            self.anchors.home.as_deref(),
            Some("/tmp"),
        ]
        .into_iter()
        .flatten()
        .chain(self.made_dirs.iter().map(String::as_str))
        .any(is_ancestor)
            // pawl keeps its store there while a run is active.
            || (self.ctx.run_active
                && self
                    .anchors
                    .repo_root
                    .as_deref()
                    .is_some_and(|root| is_ancestor(&normalize(root, ".pawl"))))
            // A directory of the repository that holds tracked files (`cd src; git commit`).
            || self.anchors.repo_root.as_deref().is_some_and(|root| {
                crate::paths::relative_to(path, root).is_some_and(|rel| {
                    !rel.is_empty()
                        && !rel.split('/').any(|c| c == "..")
                        && self.ctx.tracked.has_tracked_under(rel)
                })
            })
    }

    /// Whether the input mentions `CDPATH`.
    pub(crate) fn cdpath_mentioned(&self) -> bool {
        self.cdpath
    }

    /// Records a `cd` to `target` (`None`: unknown).
    pub(crate) fn change_dir(
        &mut self,
        shell: &mut Shell,
        frame: &Frame,
        target: Option<String>,
        plain: bool,
    ) {
        if !plain || (frame.conditional && !self.certain_cd) {
            shell.cwd = None;
            return;
        }
        let Some(target) = target else {
            shell.cwd = None;
            return;
        };
        if self.certain_cd && (frame.conditional || !self.surely_exists(shell, &target)) {
            // Certain for the rest of the `&&` list only.
            self.cd_by_and = true;
            shell.cwd = Some(target);
        } else if !frame.conditional && self.surely_exists(shell, &target) {
            shell.cwd = Some(target);
        } else if !frame.conditional {
            // The directory may not exist: the rest of the list runs there or, the `cd` having
            // failed, where it was. Walked once each way when the caller asks.
            self.uncertain_cds += 1;
            match self.cd_outcome {
                Some(true) => shell.cwd = Some(target),
                Some(false) => {}
                None => shell.cwd = None,
            }
        } else {
            shell.cwd = None;
        }
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline, shell: &mut Shell, frame: &Frame) -> Judged {
        if pipeline.seq.len() == 1 {
            if let Some(command) = pipeline.seq.first() {
                self.command(command, shell, frame)?;
            }
            return Continue(());
        }
        self.note(frame, format!("pipeline of {}", pipeline.seq.len()));
        let inner = frame.indented();
        // The file the element before printed whole (`cat x.sh | sh`): the next element reads
        // it as from `< x.sh`, so a shell there runs that script (walked when the context can
        // read it, as `sh x.sh` is). Only a plain `cat` of one static file that is the whole
        // element (no command inside it, no other command found), read by a shell named
        // plainly: anything else is a pipe.
        let mut printed: Option<String> = None;
        for (index, command) in pipeline.seq.iter().enumerate() {
            // Each element of a pipeline runs in its own subshell.
            let mut sub = shell.clone();
            // The reader must be a shell named plainly, one simple command (`cat x.sh | { true;
            // sh; }` and `cat cmds | gdb` stay a pipe: only a shell's script is walked).
            let shell_reader = matches!(command, ast::Command::Simple(simple)
            if simple.word_or_name.as_ref().is_some_and(|w| {
                registry::POSIX_SHELLS.contains(&w.value.rsplit('/').next().unwrap_or(""))
            }));
            if !shell_reader {
                printed = None;
            }
            let stdin = if index == 0 {
                inner.stdin.clone()
            } else if printed.is_some() {
                Stdin::File
            } else {
                Stdin::Pipe
            };
            if index + 1 < pipeline.seq.len() {
                // Its stdout is the pipe, not a file an earlier `exec >file` opened.
                sub.fd_files.remove(&1);
            }
            let found_before = self.found.len();
            self.printed_file = None;
            self.piped_file = printed.take();
            self.command(command, &mut sub, &inner.with_stdin(stdin))?;
            self.piped_file = None;
            let whole =
                matches!(command, ast::Command::Simple(_)) && self.found.len() == found_before + 1;
            printed = self.printed_file.take().filter(|_| whole);
        }
        Continue(())
    }

    fn command(&mut self, command: &ast::Command, shell: &mut Shell, frame: &Frame) -> Judged {
        match command {
            ast::Command::Simple(simple) => self.simple(simple, shell, frame)?,
            ast::Command::Compound(compound, redirects) => {
                let mut stdin = frame.stdin.clone();
                let saved_files = std::mem::take(&mut self.cmd_fd_files);
                if let Some(list) = redirects {
                    for redirect in &list.0 {
                        self.redirect(redirect, shell, frame, &mut stdin)?;
                    }
                }
                // The compound's output descriptors are open on its redirect targets while it
                // runs.
                let opened = std::mem::replace(&mut self.cmd_fd_files, saved_files);
                let before: Vec<(i32, Option<FdFile>)> = opened
                    .keys()
                    .map(|fd| (*fd, shell.fd_files.get(fd).cloned()))
                    .collect();
                shell.fd_files.extend(opened);
                self.compound(compound, shell, &frame.with_stdin(stdin))?;
                for (fd, old) in before {
                    match old {
                        Some(file) => shell.fd_files.insert(fd, file),
                        None => shell.fd_files.remove(&fd),
                    };
                }
            }
            ast::Command::Function(definition) => {
                let name = definition.fname.value.clone();
                self.note(frame, format!("function {name}"));
                let body = Rc::new(definition.body.clone());
                shell.functions.insert(name.clone(), Rc::clone(&body));
                // Judge the body now too, so a dangerous function is caught
                // even if it is called in a way the guard cannot follow.
                let mut sub = shell.clone();
                let inner = frame.nested(&format!("function {name}")).conditional();
                self.function_body(&name, &body, &mut sub, &inner)?;
            }
            ast::Command::ExtendedTest(test, redirects) => {
                let mut stdin = frame.stdin.clone();
                if let Some(list) = redirects {
                    for redirect in &list.0 {
                        self.redirect(redirect, shell, frame, &mut stdin)?;
                    }
                }
                self.note(frame, "[[ test ]]");
                self.extended_test(&test.expr, shell, frame)?;
            }
        }
        Continue(())
    }

    fn function_body(
        &mut self,
        name: &str,
        body: &ast::FunctionBody,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if let Some(at) = self.active_functions.iter().rposition(|f| f == name) {
            // Recursion: the body is already being judged with these rules; counted, for
            // a body that calls itself more than once (`:(){ :|:& };:`).
            if let Some(n) = self.self_calls.get_mut(at) {
                *n += 1;
            }
            return Continue(());
        }
        self.active_functions.push(name.to_owned());
        self.self_calls.push(0);
        let mut stdin = frame.stdin.clone();
        if let Some(list) = &body.1 {
            for redirect in &list.0 {
                self.redirect(redirect, shell, frame, &mut stdin)?;
            }
        }
        self.compound(&body.0, shell, &frame.with_stdin(stdin))?;
        self.active_functions.pop();
        if self.self_calls.pop().is_some_and(|n| n >= 2) {
            self.deny(
                frame,
                RuleId::InfraDestroy,
                format!("the function `{name}` calls itself more than once each time it runs: a fork bomb, which takes the machine down"),
            )?;
        }
        Continue(())
    }

    fn extended_test(
        &mut self,
        expr: &ast::ExtendedTestExpr,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match expr {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.extended_test(a, shell, frame)?;
                self.extended_test(b, shell, frame)?;
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
                self.extended_test(a, shell, frame)?
            }
            ast::ExtendedTestExpr::UnaryTest(op, w) => {
                let args = self.expand(&w.value, shell, frame)?;
                if matches!(op, ast::UnaryPredicate::ShellVariableIsSetAndAssigned) {
                    // `[[ -v 'a[$(cmd)]' ]]` evaluates the subscript.
                    for arg in &args {
                        self.test_operand_arithmetic(arg, shell, frame)?;
                    }
                }
            }
            ast::ExtendedTestExpr::BinaryTest(op, a, b) => {
                let left = self.expand(&a.value, shell, frame)?;
                let right = self.expand(&b.value, shell, frame)?;
                if matches!(
                    op,
                    ast::BinaryPredicate::ArithmeticEqualTo
                        | ast::BinaryPredicate::ArithmeticNotEqualTo
                        | ast::BinaryPredicate::ArithmeticLessThan
                        | ast::BinaryPredicate::ArithmeticLessThanOrEqualTo
                        | ast::BinaryPredicate::ArithmeticGreaterThan
                        | ast::BinaryPredicate::ArithmeticGreaterThanOrEqualTo
                ) {
                    // Both sides are evaluated as arithmetic, recursively.
                    for arg in left.iter().chain(&right) {
                        self.test_operand_arithmetic(arg, shell, frame)?;
                    }
                }
            }
        }
        Continue(())
    }

    /// The operand of `test -v NAME`: a subscript in it is evaluated.
    pub(crate) fn test_variable(&mut self, arg: &Arg, shell: &mut Shell, frame: &Frame) -> Judged {
        match arg.exact().and_then(|t| t.split_once('[')) {
            Some((_, subscript)) => {
                let subscript = subscript.trim_end_matches(']').to_owned();
                if words::has_code(&subscript) {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!(
                            "`-v {}` evaluates the subscript, which runs its command substitution",
                            arg.text
                        ),
                    )?;
                }
                self.arithmetic(&subscript, shell, frame)?;
            }
            None if !arg.known => self.test_operand_arithmetic(arg, shell, frame)?,
            None => {}
        }
        Continue(())
    }

    /// An operand of `[[ ... -eq ... ]]` or `[[ -v ... ]]`: its value is
    /// evaluated as arithmetic (subscripts included).
    fn test_operand_arithmetic(&mut self, arg: &Arg, shell: &mut Shell, frame: &Frame) -> Judged {
        if arg.known {
            if words::has_code(&arg.text) {
                self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "`[[ ]]` evaluates `{}` as arithmetic, which runs its command substitution",
                        arg.text
                    ),
                )?;
            } else {
                self.arithmetic(&arg.text, shell, frame)?;
            }
        } else {
            // An expansion the guard cannot see: `[[ $x -eq 1 ]]` with `x`
            // assigned something unknown.
            let names: Vec<String> = words::identifiers(&arg.text)
                .into_iter()
                .map(str::to_owned)
                .collect();
            for name in names {
                if risky_var(shell, &name) {
                    return self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("`[[ ]]` evaluates `{name}` as arithmetic; its value is not statically known or holds a command substitution"),
                    );
                }
            }
        }
        Continue(())
    }

    fn compound(
        &mut self,
        compound: &ast::CompoundCommand,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let inner = frame.indented();
        match compound {
            ast::CompoundCommand::BraceGroup(group) => {
                self.note(frame, "{ group }");
                self.compound_list(&group.list, shell, &inner)?;
            }
            ast::CompoundCommand::Subshell(sub) => {
                self.note(frame, "( subshell )");
                let mut copy = shell.clone();
                self.compound_list(&sub.list, &mut copy, &inner)?;
            }
            ast::CompoundCommand::ForClause(clause) => {
                self.note(frame, format!("for {}", clause.variable_name));
                let mut safe = true;
                let mut values = Vec::new();
                for word in clause.values.iter().flatten() {
                    // Not cut at a directory: the loop variable may name a program.
                    for arg in self.expand_word(&word.value, shell, frame, false)? {
                        // A glob matches file names: they may hold anything.
                        safe &= arg
                            .exact()
                            .is_some_and(|t| !words::has_code(t) && !t.contains('['));
                        values.push(arg);
                    }
                }
                let name = clause.variable_name.clone();
                self.set_var(shell, frame, &name, None)?;
                if safe && clause.values.is_some() {
                    shell.arith_safe.insert(name.clone());
                }
                // `for d in target dist; do rm -rf "$d"; done`: a short list of literal words
                // is walked once per word, with the variable bound to it.
                let literal = safe
                    && clause.values.is_some()
                    && !values.is_empty()
                    && values.len() <= MAX_UNROLLED_WORDS
                    && self.unrolled + values.len() <= MAX_UNROLLED
                    && !shell.vars_untrusted
                    && !shell.ifs_changed
                    && !shell.integer_vars.contains(&name)
                    && !CODE_VARS.contains(&name.as_str());
                if literal {
                    self.unrolled += values.len();
                    let body = inner.conditional();
                    for value in &values {
                        shell.vars.insert(name.clone(), Some(value.text.clone()));
                        self.loop_body(&[&clause.body.list], shell, &body)?;
                    }
                    // After the loop (or a `break`) the variable holds one of the words.
                    shell.vars.insert(name.clone(), None);
                    shell.arith_safe.insert(name);
                    return Continue(());
                }
                // `for f in src/*.rs`: `$f` is one path matching the glob
                // (a glob with no match stays the pattern itself).
                if let [only] = values.as_slice()
                    && only.known
                    && only.glob
                    && !only.text.contains(['$', '`'])
                {
                    shell.globs.insert(name, only.text.clone());
                }
                self.loop_body(&[&clause.body.list], shell, &inner.conditional())?;
            }
            ast::CompoundCommand::ArithmeticForClause(clause) => {
                self.note(frame, "for ((...))");
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&expr.value, shell, frame)?;
                }
                self.loop_body(&[&clause.body.list], shell, &inner.conditional())?;
            }
            ast::CompoundCommand::CaseClause(clause) => {
                self.note(frame, "case");
                self.expand(&clause.value.value, shell, frame)?;
                let branch = inner.conditional();
                for item in &clause.cases {
                    for pattern in &item.patterns {
                        self.expand(&pattern.value, shell, frame)?;
                    }
                    if let Some(list) = &item.cmd {
                        self.compound_list(list, shell, &branch)?;
                    }
                }
            }
            ast::CompoundCommand::IfClause(clause) => {
                self.note(frame, "if");
                self.compound_list(&clause.condition, shell, &inner)?;
                let branch = inner.conditional();
                self.compound_list(&clause.then, shell, &branch)?;
                for other in clause.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.compound_list(condition, shell, &branch)?;
                    }
                    self.compound_list(&other.body, shell, &branch)?;
                }
            }
            ast::CompoundCommand::WhileClause(clause)
            | ast::CompoundCommand::UntilClause(clause) => {
                self.note(frame, "while/until");
                self.loop_body(&[&clause.0, &clause.1.list], shell, &inner.conditional())?;
            }
            ast::CompoundCommand::Arithmetic(arith) => {
                self.arithmetic(&arith.expr.value, shell, frame)?
            }
            ast::CompoundCommand::Coprocess(coproc) => {
                self.note(frame, "coproc");
                let mut copy = shell.clone();
                // A coprocess reads what the shell writes to it: a pipe.
                let body = inner.conditional().with_stdin(Stdin::Pipe);
                self.command(&coproc.body, &mut copy, &body)?;
            }
        }
        Continue(())
    }

    /// Walks a loop body; a second time when the first pass changed
    /// variables, so a later iteration's values are seen as unknown.
    fn loop_body(
        &mut self,
        lists: &[&ast::CompoundList],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let before = shell.vars.clone();
        let cwd_before = shell.cwd.clone();
        for list in lists {
            self.compound_list(list, shell, frame)?;
        }
        if shell.vars != before || shell.cwd != cwd_before {
            for list in lists {
                self.compound_list(list, shell, frame)?;
            }
        }
        Continue(())
    }

    pub(crate) fn arithmetic(&mut self, text: &str, shell: &mut Shell, frame: &Frame) -> Judged {
        if text.contains('$') || text.contains('`') {
            self.expand(text, shell, frame)?;
        }
        let mut effects = words::Expanded::default();
        words::arithmetic_effects(
            text,
            &self.scope(shell, false, frame.depth == 0 && !shell.sourced),
            &mut effects,
        );
        if let Some(reason) = effects.opaque {
            self.fail_closed(frame, RuleId::NotStatic, reason)?;
        }
        // Names assigned in arithmetic hold numbers.
        for name in arithmetic_assigned(text) {
            if frame.conditional || shell.vars.get(&name).is_some_and(|v| v.is_some()) {
                shell.vars.insert(name.clone(), None);
            }
            if shell.vars.contains_key(&name) {
                shell.arith_safe.insert(name);
            }
        }
        Continue(())
    }

    /// Expands one word, walking any command substitution inside it.
    pub(crate) fn expand(
        &mut self,
        raw: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged<Vec<Arg>> {
        self.expand_word(raw, shell, frame, true)
    }

    /// [`Self::expand`] of a word that is an argument (`true`) or a command name.
    pub(crate) fn expand_word(
        &mut self,
        raw: &str,
        shell: &mut Shell,
        frame: &Frame,
        argument: bool,
    ) -> Judged<Vec<Arg>> {
        let expanded = words::expand(
            raw,
            &self.scope(
                shell,
                // Only in the command line itself: a nested script (`bash -c`, a function, a
                // substitution) may have been given variables the line assigned.
                argument && frame.depth == 0 && !shell.sourced,
                frame.depth == 0 && !shell.sourced,
            ),
        );
        for script in &expanded.substitutions {
            // A command substitution runs in a subshell.
            let mut sub = shell.clone();
            let inner = frame.nested("inside $(...)");
            self.note(frame, format!("$( {script} )"));
            self.run_script(script, &mut sub, &inner)?;
        }
        if let Some(reason) = &expanded.opaque {
            self.fail_closed(frame, RuleId::NotStatic, reason.clone())?;
        }
        for name in &expanded.assigned {
            // `${a:=x}` assigns; its value is not modelled.
            self.set_var(shell, frame, name, None)?;
        }
        if expanded.malformed {
            self.fail_closed(
                frame,
                RuleId::ParseError,
                format!("the word `{raw}` does not parse"),
            )?;
        }
        Continue(expanded.args)
    }

    /// The value of an assignment when statically known.
    fn assignment_value(
        &mut self,
        assignment: &ast::Assignment,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged<Option<String>> {
        match &assignment.value {
            ast::AssignmentValue::Scalar(word) => {
                // Not cut at a directory: the variable may name a program later.
                let args = self.expand_word(&word.value, shell, frame, false)?;
                if args.iter().any(|a| !a.known)
                    && let Some(value) =
                        self.extended_search_path(assignment, &word.value, shell, frame)
                {
                    return Continue(Some(value));
                }
                // `d=$(mktemp [-d])`: a fresh path under $TMPDIR (or /tmp), an allowance.
                if let Some(dir) = self.mktemp_dir(&word.value, shell) {
                    return Continue(Some(format!("{dir}/tmp.pawl-mktemp")));
                }
                Continue(if args.iter().all(|a| a.known) {
                    Some(
                        args.iter()
                            .map(|a| a.text.as_str())
                            .collect::<Vec<_>>()
                            .join(" "),
                    )
                } else {
                    None
                })
            }
            ast::AssignmentValue::Array(items) => {
                for (key, value) in items {
                    if let Some(key) = key {
                        self.expand(&key.value, shell, frame)?;
                    }
                    self.expand(&value.value, shell, frame)?;
                }
                Continue(None)
            }
        }
    }

    /// `PYTHONPATH="src:$PYTHONPATH"` (`${PYTHONPATH:+:$PYTHONPATH}`, ...): a search path
    /// extended with its own inherited value. The inherited entries are the user's, not the
    /// agent's: they stand as [`INHERITED_ENTRIES`], and the entries the line adds are judged as
    /// written. Only for the search paths of [`SELF_EXTENDED`], at the top of the command line,
    /// when the line never assigned the variable before.
    fn extended_search_path(
        &mut self,
        assignment: &ast::Assignment,
        raw: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Option<String> {
        let ast::AssignmentName::VariableName(name) = &assignment.name else {
            return None;
        };
        if !SELF_EXTENDED.contains(&name.as_str())
            || frame.depth != 0
            || shell.sourced
            || shell.vars_untrusted
            || shell.vars.contains_key(name)
            || shell.env.iter().any(|(n, _)| n == name)
        {
            return None;
        }
        let marker = INHERITED_ENTRIES;
        let forms = [
            (format!("${{{name}:+:${{{name}}}}}"), format!(":{marker}")),
            (format!("${{{name}:+${{{name}}}:}}"), format!("{marker}:")),
            (format!("${{{name}:+:${name}}}"), format!(":{marker}")),
            (format!("${{{name}:+${name}:}}"), format!("{marker}:")),
            (format!("${{{name}}}"), marker.to_owned()),
            (format!("${name}"), marker.to_owned()),
        ];
        let mut text = raw.to_owned();
        for (form, by) in &forms {
            text = text.replace(form.as_str(), by);
        }
        if text == raw || text.contains(['$', '`']) && text.contains(name.as_str()) {
            return None;
        }
        let args = self
            .expand_word(&text, shell, frame, false)
            .continue_value()?;
        args.iter().all(|a| a.known).then(|| {
            args.iter()
                .map(|a| a.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
    }

    /// The directory `mktemp` would create in when `raw` is exactly `$(mktemp ...)` (quoted or
    /// not) with only `-d`/`-q`/`-t` and a template without a `/`; `None` otherwise, or when
    /// `TMPDIR` may have been changed.
    fn mktemp_dir(&self, raw: &str, shell: &Shell) -> Option<String> {
        let inner = raw
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .unwrap_or(raw);
        let body = inner.strip_prefix("$(")?.strip_suffix(')')?;
        let mut words = body.split_ascii_whitespace();
        if words.next()? != "mktemp" {
            return None;
        }
        let mut templates = 0;
        for w in words {
            match w {
                "-d" | "-q" | "-t" | "-dq" | "-qd" | "-dt" | "-td" | "--directory" | "--quiet" => {}
                _ if !w.starts_with('-')
                    && !w.contains(['/', '$', '`', '\\', '\'', '"', '*', '?', '['])
                    && w.contains("XXX") =>
                {
                    templates += 1;
                }
                _ => return None,
            }
        }
        if templates > 1 || shell.vars.contains_key("TMPDIR") {
            return None;
        }
        match (&self.anchors.tmpdir, &self.ctx.tmpdir) {
            (Some(t), _) => Some(t.clone()),
            (None, None) => Some("/tmp".into()),
            // TMPDIR is set but may be reassigned by the input: unknown.
            (None, Some(_)) => None,
        }
    }

    /// Sets a variable; in conditional code its value becomes unknown.
    pub(crate) fn set_var(
        &mut self,
        shell: &mut Shell,
        frame: &Frame,
        name: &str,
        value: Option<String>,
    ) -> Judged {
        let value = if frame.conditional { None } else { value };
        if shell.integer_vars.contains(name)
            && value
                .as_deref()
                .is_none_or(|v| words::has_code(v) || v.contains('['))
        {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("`{name}` has the integer attribute: assigning it evaluates arithmetic on a value that is not statically known"),
            )?;
        } else if shell.integer_vars.contains(name)
            && let Some(v) = value.as_deref()
        {
            // `declare -i x; x=y` evaluates `y` as arithmetic, and `y`'s value in turn
            // (`y='a[$(cmd)]'` runs cmd).
            self.arithmetic(v, shell, frame)?;
        }
        self.check_code_var(frame, name, value.as_deref())?;
        if name == "IFS" {
            shell.ifs_changed = true;
        }
        shell.arith_safe.remove(name);
        shell.globs.remove(name);
        shell.vars.insert(name.to_owned(), value);
        Continue(())
    }

    /// Denies setting a variable that bash later runs as code (`PS4` under
    /// `set -x`, `PROMPT_COMMAND`, `BASH_ENV`) to a value that holds code
    /// or is unknown.
    pub(crate) fn check_code_var(
        &mut self,
        frame: &Frame,
        name: &str,
        value: Option<&str>,
    ) -> Judged {
        if !CODE_VARS.contains(&name) {
            return Continue(());
        }
        let startup = matches!(name, "BASH_ENV" | "ENV");
        let bad = match value {
            None => true,
            Some(v) if startup => !v.is_empty(),
            Some(v) => words::has_code(v),
        };
        if bad {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                if startup {
                    format!("`{name}` names a file that a shell started later runs; the guard cannot see it")
                } else {
                    format!("`{name}` is set to text with a command substitution (or unknown text) that bash expands as a prompt or trace")
                },
            )?;
        }
        Continue(())
    }

    /// The value `name` has now, when statically known.
    fn current_value(&self, shell: &Shell, name: &str) -> Option<String> {
        words::Scope::var(&self.scope(shell, false, false), name)
    }

    fn assignment_name(assignment: &ast::Assignment) -> String {
        match &assignment.name {
            ast::AssignmentName::VariableName(name)
            | ast::AssignmentName::ArrayElementName(name, _) => name.clone(),
        }
    }

    /// Walks the subscript of `a[i]=x`: it is expanded and evaluated as
    /// arithmetic (`a[$(cmd)]=1` runs `cmd`).
    fn assignment_subscript(
        &mut self,
        assignment: &ast::Assignment,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if let ast::AssignmentName::ArrayElementName(_, index) = &assignment.name {
            self.arithmetic(index, shell, frame)?;
        }
        Continue(())
    }

    fn simple(&mut self, simple: &ast::SimpleCommand, shell: &mut Shell, frame: &Frame) -> Judged {
        let saved_fds = std::mem::take(&mut self.cmd_fds);
        let saved_files = std::mem::take(&mut self.cmd_fd_files);
        let saved_stdin_file = std::mem::replace(&mut self.cmd_stdin_file, self.piped_file.take());
        self.simple_inner(simple, shell, frame)?;
        self.cmd_fds = saved_fds;
        self.cmd_fd_files = saved_files;
        self.cmd_stdin_file = saved_stdin_file;
        Continue(())
    }

    fn simple_inner(
        &mut self,
        simple: &ast::SimpleCommand,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let written_before = self.written.len();
        let mut argv: Vec<Arg> = Vec::new();
        // `exec < x` earlier gave the rest of the script that stdin.
        let initial = match (&frame.stdin, &shell.stdin) {
            (Stdin::Pipe, _) | (_, None) => frame.stdin.clone(),
            (_, Some(given)) => given.clone(),
        };
        let mut stdin = initial.clone();
        let mut prefix_assignments: Vec<(String, Option<String>)> = Vec::new();
        let mut declarations: Vec<(String, Option<String>)> = Vec::new();
        // Indices of argv entries that came from assignment words.
        let mut assignment_args: Vec<usize> = Vec::new();
        let prefix = simple.prefix.iter().flat_map(|p| p.0.iter());
        let suffix = simple.suffix.iter().flat_map(|s| s.0.iter());
        for item in prefix {
            self.item(
                item,
                true,
                shell,
                frame,
                &mut stdin,
                &mut argv,
                &mut prefix_assignments,
            )?;
        }
        if let Some(word) = &simple.word_or_name {
            argv.extend(self.expand_word(&word.value, shell, frame, false)?);
        }
        for item in suffix {
            let (before, count) = (argv.len(), declarations.len());
            self.item(
                item,
                false,
                shell,
                frame,
                &mut stdin,
                &mut argv,
                &mut declarations,
            )?;
            if declarations.len() > count {
                assignment_args.extend(before..argv.len());
            }
        }
        // `tee /dev/stdout` while stdout is open on a file writes that file.
        for arg in argv.iter_mut().skip(1) {
            if arg
                .exact()
                .is_some_and(|t| t.starts_with("/dev/") || t.starts_with("/proc/"))
            {
                *arg = self.through_descriptor(shell, arg.clone());
            }
        }
        if argv.is_empty() {
            for (name, value) in prefix_assignments {
                self.note(frame, format!("assign {name}"));
                self.set_var(shell, frame, &name, value)?;
                if self.numeric.contains(&name) {
                    shell.arith_safe.insert(name);
                }
            }
            self.numeric.clear();
            return Continue(());
        }
        if let Stdin::Text(body) = &stdin {
            // `cat > x.sh <<'EOF'`: the file's text is the here-document.
            let plain_cat = argv.len() == 1 || (argv.len() == 2 && argv[1].is("-"));
            if plain_cat
                && argv[0].is("cat")
                && self.written.len() == written_before + 1
                && !self.partial_writes.contains(&self.written.len())
                && let Some(last) = self.written.last_mut()
            {
                last.1 = Some(body.clone());
            }
        }
        if self.written.len() == written_before + 1
            && !self.partial_writes.contains(&self.written.len())
            && let Some(text) = printed_text(&argv)
            && let Some(last) = self.written.last_mut()
        {
            // `echo 'print(1)' > /tmp/t.py`, `printf '#!/bin/sh\necho hi\n' > x.sh`: the
            // file's text is what was printed, when the guard knows it exactly.
            last.1 = Some(text);
        }
        for (name, value) in &prefix_assignments {
            // `PS4=... bash -x`, `BASH_ENV=x bash -c`: the child reads them.
            self.check_code_var(frame, name, value.as_deref())?;
        }
        let name = argv.first().and_then(Arg::exact).map(str::to_owned);
        if name.as_deref() == Some("exec") && argv.len() == 1 {
            // `exec` with only redirections: they apply to the rest of the script.
            if stdin != initial {
                shell.stdin = Some(match stdin.clone() {
                    Stdin::File => Stdin::Unknown,
                    other => other,
                });
            }
            let fds: Vec<(i32, Stdin)> = self.cmd_fds.drain().collect();
            shell.fds.extend(fds);
            let files: Vec<(i32, FdFile)> = self.cmd_fd_files.drain().collect();
            shell.fd_files.extend(files);
        }
        let declares = name.as_deref().is_some_and(|n| {
            matches!(
                n,
                "export" | "declare" | "typeset" | "local" | "readonly" | "let"
            )
        });
        if declares {
            self.declaration_args(&argv, &assignment_args, shell, frame)?;
        }
        let persists = name.as_deref().is_some_and(|n| {
            SPECIAL_BUILTINS.contains(&n) || (!n.contains('/') && shell.functions.contains_key(n))
        });
        if let Some(var) = self.inherited_program_asked_for_information(
            simple,
            &argv,
            &prefix_assignments,
            shell,
            frame,
        ) {
            // Whatever program the inherited value names, given only `--version` or `--help` it
            // prints and exits: no file, no remote, nothing to undo (docs/guard.md "Commands
            // built from variables").
            self.note(
                frame,
                format!("`${var}` names a program from the inherited environment, asked only for its version or usage"),
            );
            return Continue(());
        }
        if let Some((var, program)) = self.inherited_program_named(simple, &argv, shell, frame) {
            // The inherited value can only be this program (docs/guard.md "Commands built
            // from variables"): its arguments are judged as the program's.
            self.note(
                frame,
                format!(
                    "`${var}` names a program from the inherited environment: judged as `{program}`"
                ),
            );
            argv[0] = Arg::lit(program);
        }
        let env_len = shell.env.len();
        shell.env.extend(prefix_assignments.iter().cloned());
        self.dispatch(Cmd { argv, stdin }, shell, frame)?;
        shell.env.truncate(env_len);
        if declares {
            for (name, value) in declarations {
                self.set_var(shell, frame, &name, value)?;
                if self.numeric.contains(&name) {
                    shell.arith_safe.insert(name);
                }
            }
        }
        self.numeric.clear();
        if persists {
            // Assignments before a special builtin persist in POSIX mode
            // (and in sh); before a function they may be seen and changed.
            for (name, _) in prefix_assignments {
                self.set_var(shell, frame, &name, None)?;
            }
        }
        Continue(())
    }

    /// The variable of a command whose name is one variable the line does not assign, inherited
    /// from the environment (`"$BIN" --version`, `$PYTHON -V`), when every argument only asks the
    /// program for its version or usage. Whatever the value, such a call changes nothing: the
    /// bound is on the arguments, not the program. Not with a prefix assignment (the child's
    /// environment could make it run other code), not inside a nested script (which may have
    /// been given the variable), not for a value that is no program name (`$_`, `$PATH`).
    fn inherited_program_asked_for_information<'w>(
        &self,
        simple: &'w ast::SimpleCommand,
        argv: &[Arg],
        prefix_assignments: &[(String, Option<String>)],
        shell: &Shell,
        frame: &Frame,
    ) -> Option<&'w str> {
        let raw = simple.word_or_name.as_ref()?.value.as_str();
        let asks_only = argv.len() >= 2 && !argv[0].known && only_information(&argv[1..]);
        (asks_only && prefix_assignments.is_empty())
            .then(|| self.inherited_program_word(raw, shell, frame))
            .flatten()
    }

    /// The variable and the program of a command name whose inherited value can only be that
    /// program: a variable named for it by convention (`$PYTHON`, `"$CC"`, `${NPM:-npm}` with the
    /// program or a version of it as the default: [`registry::program_variable`]), or an
    /// inherited directory and a literal path in the same double quotes
    /// (`"$SDK/cmdline-tools/latest/bin/avdmanager"`: the program the path names, under a
    /// directory nothing in the line wrote, [`INHERITED_ENTRIES`]). The same bounds as
    /// [`Self::inherited_program_word`]: at the top of the line, not for a name the line
    /// assigns, reads or sources.
    fn inherited_program_named(
        &self,
        simple: &ast::SimpleCommand,
        argv: &[Arg],
        shell: &Shell,
        frame: &Frame,
    ) -> Option<(String, String)> {
        if argv.first().is_none_or(|a| a.known) {
            return None;
        }
        let raw = simple.word_or_name.as_ref()?.value.as_str();
        let (var, program) = if let Some(var) = variable_then_path(raw) {
            let path = raw
                .trim_matches('"')
                .trim_start_matches('$')
                .trim_start_matches('{')
                .strip_prefix(var)?
                .trim_start_matches('}');
            (var, format!("{INHERITED_ENTRIES}{path}"))
        } else {
            let (var, default) = variable_with_default(raw)?;
            let program = registry::program_variable(var)?;
            let same = default.is_none_or(|d| {
                d.strip_prefix(program)
                    .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
            });
            (var, same.then(|| program.to_owned())?)
        };
        let top = frame.depth == 0 && !shell.sourced;
        let view = self.scope(shell, top, top);
        (!words::NOT_NAMES.contains(&var) && words::Scope::inherited(&view, var))
            .then(|| (var.to_owned(), program))
    }

    /// The variable of a word that names a program through one variable the line does not
    /// assign, inherited from the environment: the variable alone (`$PYTHON`, `"${BIN}"`) or,
    /// in double quotes, followed by a literal path (`"$PY_DIR/bin/python"`: some program
    /// under the inherited directory). Not inside a nested script (which may have been given
    /// the variable), not for a value that is no program name (`$_`, `$PATH`).
    pub(crate) fn inherited_program_word<'w>(
        &self,
        raw: &'w str,
        shell: &Shell,
        frame: &Frame,
    ) -> Option<&'w str> {
        let var = lone_variable(raw).or_else(|| variable_then_path(raw))?;
        let view = self.scope(
            shell,
            frame.depth == 0 && !shell.sourced,
            frame.depth == 0 && !shell.sourced,
        );
        (!words::NOT_NAMES.contains(&var) && words::Scope::inherited(&view, var)).then_some(var)
    }

    /// `text` (an argument's value as written) with every variable in it (`$NAME`,
    /// `${NAME}`) replaced by a plain word, when each is inherited from the environment at the
    /// top of the line (docs/guard.md "Commands built from variables": its value is the user's
    /// plausible name or version, not text the agent crafted) and nothing else in it is
    /// expanded; `None` otherwise. A language read inside the argument (a sed script) is then
    /// judged with the value standing as [`INHERITED_PLACEHOLDER`], which no language reads as
    /// a command: `s/x/$VERSION/` is judged as a substitution, `$X` alone or `e $X` as what
    /// they are (an unknown command, a command that runs the value).
    pub(crate) fn with_inherited_placeholders(
        &self,
        text: &str,
        shell: &Shell,
        frame: &Frame,
    ) -> Option<String> {
        if text.contains('`') {
            return None;
        }
        let view = self.scope(
            shell,
            frame.depth == 0 && !shell.sourced,
            frame.depth == 0 && !shell.sourced,
        );
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        let mut replaced = false;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let (name, len) = match after.strip_prefix('{') {
                Some(braced) => {
                    let (name, _) = braced.split_once('}')?;
                    (name, name.len() + 2)
                }
                None => {
                    let end = after
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(after.len());
                    (&after[..end], end)
                }
            };
            let mut chars = name.chars();
            let plain = chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !plain || words::NOT_NAMES.contains(&name) || !words::Scope::inherited(&view, name) {
                return None;
            }
            out.push_str(INHERITED_PLACEHOLDER);
            replaced = true;
            rest = &after[len..];
        }
        out.push_str(rest);
        replaced.then_some(out)
    }

    /// The arguments of `declare`/`export`/`local`/`let` that the parser did
    /// not see as assignments (`declare "a=rm"`), and attribute options
    /// (`-n` namerefs, `-l`/`-u` case conversion, `-i` integers).
    fn declaration_args(
        &mut self,
        argv: &[Arg],
        assignment_args: &[usize],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let is_let = argv.first().is_some_and(|a| a.is("let"));
        let mut integer = is_let;
        let mut options_done = is_let;
        for (index, arg) in argv.iter().enumerate().skip(1) {
            let Some(text) = arg.exact() else {
                if !arg.known || arg.glob {
                    // `declare "$x"`: any variable may change.
                    shell.vars_untrusted = true;
                    if is_let {
                        self.fail_closed(
                            frame,
                            RuleId::NotStatic,
                            format!(
                                "let evaluates `{}`, which is not statically known",
                                arg.text
                            ),
                        )?;
                    }
                }
                continue;
            };
            if !options_done && text == "--" {
                options_done = true;
                continue;
            }
            if !options_done && text.len() > 1 && (text.starts_with('-') || text.starts_with('+')) {
                let on = text.starts_with('-');
                if on && text.contains(['n', 'l', 'u', 'c']) {
                    // A nameref or case conversion changes what later
                    // assignments store.
                    shell.vars_untrusted = true;
                }
                if on && text.contains('i') {
                    integer = true;
                }
                continue;
            }
            options_done = true;
            let (target, value, append) = match text.split_once('=') {
                Some((t, v)) => (t.trim_end_matches('+'), Some(v), t.ends_with('+')),
                None => (text, None, false),
            };
            let base = match target.split_once('[') {
                Some((base, rest)) => {
                    self.arithmetic(rest.trim_end_matches(']'), shell, frame)?;
                    base
                }
                None => target,
            };
            if is_let {
                self.arithmetic(text, shell, frame)?;
                if !base.is_empty() {
                    shell.vars.insert(base.to_owned(), None);
                    shell.arith_safe.insert(base.to_owned());
                }
                continue;
            }
            if integer {
                shell.integer_vars.insert(base.to_owned());
            }
            if assignment_args.contains(&index) {
                continue;
            }
            if let Some(value) = value {
                if let Some(v) = value.strip_prefix('(') {
                    let _ = v;
                    self.set_var(shell, frame, base, None)?;
                } else if base == target && append {
                    // `declare "x+=y"`: appends to the value `x` has now.
                    let joined = self.current_value(shell, base).map(|v| v + value);
                    self.set_var(shell, frame, base, joined)?;
                } else if base == target {
                    self.set_var(shell, frame, base, Some(value.to_owned()))?;
                } else {
                    self.set_var(shell, frame, base, None)?;
                }
            }
        }
        Continue(())
    }

    /// Handles one prefix or suffix item of a simple command.
    #[allow(clippy::too_many_arguments)]
    fn item(
        &mut self,
        item: &ast::CommandPrefixOrSuffixItem,
        in_prefix: bool,
        shell: &mut Shell,
        frame: &Frame,
        stdin: &mut Stdin,
        argv: &mut Vec<Arg>,
        assignments: &mut Vec<(String, Option<String>)>,
    ) -> Judged {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                self.redirect(redirect, shell, frame, stdin)?
            }
            ast::CommandPrefixOrSuffixItem::Word(word) => {
                argv.extend(self.expand(&word.value, shell, frame)?);
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, word) => {
                self.assignment_subscript(assignment, shell, frame)?;
                let name = Self::assignment_name(assignment);
                let mut value = self.assignment_value(assignment, shell, frame)?;
                if assignment.append {
                    // `x+=y` appends to the value `x` has at this point (an earlier assignment of
                    // the same command, or the shell's); an array or an unknown part makes the
                    // result unknown.
                    let scalar = matches!(assignment.name, ast::AssignmentName::VariableName(_))
                        && matches!(assignment.value, ast::AssignmentValue::Scalar(_));
                    let before = match assignments.iter().rev().find(|(n, _)| *n == name) {
                        Some((_, v)) => v.clone(),
                        None => self.current_value(shell, &name),
                    };
                    value = match (scalar, before, value) {
                        // On an integer variable `+=` adds: the added text is evaluated.
                        (true, _, Some(added)) if shell.integer_vars.contains(&name) => Some(added),
                        (true, Some(before), Some(added)) => Some(before + &added),
                        _ => None,
                    };
                }
                if let ast::AssignmentValue::Scalar(raw) = &assignment.value
                    && prints_a_number(&raw.value)
                {
                    self.numeric.push(name.clone());
                }
                assignments.push((name, value));
                if !in_prefix {
                    // `export X=1`, but also `make X=1` and `dd of=x`: an
                    // argument either way.
                    argv.extend(self.expand(&word.value, shell, frame)?);
                }
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                self.process_substitution(kind, sub, shell, frame)?;
                let shown = match kind {
                    ast::ProcessSubstitutionKind::Read => "<(...)",
                    ast::ProcessSubstitutionKind::Write => ">(...)",
                };
                argv.push(Arg::unknown(shown));
            }
        }
        Continue(())
    }

    fn process_substitution(
        &mut self,
        kind: &ast::ProcessSubstitutionKind,
        sub: &ast::SubshellCommand,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        self.note(frame, "process substitution");
        let mut copy = shell.clone();
        let inner = match kind {
            ast::ProcessSubstitutionKind::Read => frame.nested("inside <(...)"),
            // `>(cmd)` reads what the outer command writes: a pipe.
            ast::ProcessSubstitutionKind::Write => {
                frame.nested("inside >(...)").with_stdin(Stdin::Pipe)
            }
        };
        self.compound_list(&sub.list, &mut copy, &inner)
    }

    /// Judges one redirection and updates what stdin will be.
    fn redirect(
        &mut self,
        redirect: &ast::IoRedirect,
        shell: &mut Shell,
        frame: &Frame,
        stdin: &mut Stdin,
    ) -> Judged {
        let reads_stdin = |fd: &Option<i32>| fd.is_none_or(|fd| fd == 0);
        match redirect {
            ast::IoRedirect::File(fd, kind, target) => match target {
                ast::IoFileRedirectTarget::Filename(word) => {
                    let arg = self.single(&word.value, shell, frame)?;
                    let arg = self.through_descriptor(shell, arg);
                    let opens = match kind {
                        ast::IoFileRedirectKind::Write
                        | ast::IoFileRedirectKind::Clobber
                        | ast::IoFileRedirectKind::Append => Some((fd.unwrap_or(1), false)),
                        ast::IoFileRedirectKind::ReadAndWrite => Some((fd.unwrap_or(0), true)),
                        _ => None,
                    };
                    if let Some((n, read_write)) = opens {
                        if read_write && matches!(n, 1 | 2) {
                            // `1<>README.md`: the command's output overwrites the file in place.
                            self.check_write(
                                &arg,
                                WriteMode::Clobber,
                                shell,
                                frame,
                                "redirect 1<>",
                            )?;
                        }
                        self.cmd_fd_files.insert(
                            n,
                            FdFile {
                                path: arg.clone(),
                                read_write,
                            },
                        );
                    }
                    if matches!(
                        kind,
                        ast::IoFileRedirectKind::Write
                            | ast::IoFileRedirectKind::Clobber
                            | ast::IoFileRedirectKind::Append
                            | ast::IoFileRedirectKind::ReadAndWrite
                    ) {
                        self.record_write(shell, &arg);
                        if matches!(
                            kind,
                            ast::IoFileRedirectKind::Append | ast::IoFileRedirectKind::ReadAndWrite
                        ) {
                            // Added to text the guard never read: never the whole file.
                            self.partial_writes.push(self.written.len());
                        }
                    }
                    match kind {
                        ast::IoFileRedirectKind::Read => {
                            // A descriptor path (`< /dev/fd/3`) reads what that descriptor
                            // holds: a here-string on it is the input (unknown when the guard
                            // has not seen it yet, the redirections being in either order).
                            let descriptor = arg.exact().and_then(commands::descriptor_path);
                            let read = match descriptor {
                                Some(0) => stdin.clone(),
                                Some(n) => self.fd_source(shell, n).unwrap_or(Stdin::Unknown),
                                None if self.is_written(shell, &arg) => Stdin::Unknown,
                                None => Stdin::File,
                            };
                            match fd {
                                Some(n) if *n != 0 => {
                                    self.cmd_fds.insert(*n, read);
                                }
                                _ => {
                                    self.cmd_stdin_file = (read == Stdin::File)
                                        .then(|| arg.exact().and_then(|t| self.resolve(shell, t)))
                                        .flatten();
                                    *stdin = read;
                                }
                            }
                        }
                        ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Clobber => {
                            self.check_write(&arg, WriteMode::Clobber, shell, frame, "redirect >")?
                        }
                        ast::IoFileRedirectKind::Append => {
                            self.check_write(&arg, WriteMode::Append, shell, frame, "redirect >>")?
                        }
                        ast::IoFileRedirectKind::ReadAndWrite => {
                            self.check_write(&arg, WriteMode::Modify, shell, frame, "redirect <>")?
                        }
                        ast::IoFileRedirectKind::DuplicateInput
                        | ast::IoFileRedirectKind::DuplicateOutput => {
                            self.duplicate_target(&arg, shell, frame)?;
                            if matches!(kind, ast::IoFileRedirectKind::DuplicateInput) {
                                self.duplicate_input(fd, arg.exact(), shell, stdin)?;
                            }
                        }
                    }
                }
                ast::IoFileRedirectTarget::Fd(source) => {
                    if matches!(kind, ast::IoFileRedirectKind::DuplicateInput) {
                        let source = source.to_string();
                        self.duplicate_input(fd, Some(&source), shell, stdin)?;
                    } else {
                        self.duplicate_output(fd, &source.to_string(), shell, frame)?;
                    }
                }
                ast::IoFileRedirectTarget::ProcessSubstitution(psub, sub) => {
                    self.process_substitution(psub, sub, shell, frame)?;
                    if matches!(kind, ast::IoFileRedirectKind::Read) && reads_stdin(fd) {
                        *stdin = Stdin::Unknown;
                    }
                }
                ast::IoFileRedirectTarget::Duplicate(word) => {
                    let arg = self.single(&word.value, shell, frame)?;
                    let arg = self.through_descriptor(shell, arg);
                    self.duplicate_target(&arg, shell, frame)?;
                    if matches!(kind, ast::IoFileRedirectKind::DuplicateInput) {
                        self.duplicate_input(fd, arg.exact(), shell, stdin)?;
                    } else if let Some(source) = arg.exact() {
                        self.duplicate_output(fd, source, shell, frame)?;
                    }
                }
            },
            ast::IoRedirect::HereDocument(fd, doc) => {
                let body = doc.doc.value.clone();
                if doc.requires_expansion {
                    let (subs, malformed) = words::heredoc_substitutions(&body);
                    for script in subs {
                        let mut sub = shell.clone();
                        self.run_script(&script, &mut sub, &frame.nested("inside $(...)"))?;
                    }
                    if malformed {
                        self.fail_closed(
                            frame,
                            RuleId::ParseError,
                            "a here-document does not parse, or prompt-expands (`@P`) a value that may run a command substitution",
                        )?;
                    }
                }
                match fd {
                    Some(n) if *n != 0 => {
                        self.cmd_fds.insert(*n, Stdin::Text(body));
                    }
                    _ => *stdin = Stdin::Text(body),
                }
            }
            ast::IoRedirect::HereString(fd, word) => {
                let arg = self.single(&word.value, shell, frame)?;
                let text = if arg.known {
                    // A here-string ends with a newline.
                    Stdin::Text(arg.text)
                } else {
                    Stdin::Unknown
                };
                match fd {
                    Some(n) if *n != 0 => {
                        self.cmd_fds.insert(*n, text);
                    }
                    _ => *stdin = text,
                }
            }
            ast::IoRedirect::OutputAndError(word, append) => {
                let arg = self.single(&word.value, shell, frame)?;
                let arg = self.through_descriptor(shell, arg);
                for n in [1, 2] {
                    self.cmd_fd_files.insert(
                        n,
                        FdFile {
                            path: arg.clone(),
                            read_write: false,
                        },
                    );
                }
                self.record_write(shell, &arg);
                let mode = if *append {
                    WriteMode::Append
                } else {
                    WriteMode::Clobber
                };
                self.check_write(&arg, mode, shell, frame, "redirect &>")?;
            }
        }
        Continue(())
    }

    /// The file descriptor `n` of the command being judged is open on, when a redirect of this
    /// command, an enclosing compound command or an earlier `exec` opened it on a file.
    fn fd_file(&self, shell: &Shell, n: i32) -> Option<FdFile> {
        self.cmd_fd_files
            .get(&n)
            .or_else(|| shell.fd_files.get(&n))
            .cloned()
    }

    /// `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N` while descriptor N is open on a file is
    /// that file (opening it with `>` truncates the file): `arg` becomes the file's name.
    pub(crate) fn through_descriptor(&self, shell: &Shell, arg: Arg) -> Arg {
        let Some(absolute) = arg.exact().and_then(|t| self.resolve(shell, t)) else {
            return arg;
        };
        match crate::paths::proc_alias(&absolute, shell.cwd.as_deref()) {
            crate::paths::Alias::Fd(n) if n > 0 => {
                match i32::try_from(n).ok().and_then(|n| self.fd_file(shell, n)) {
                    Some(file) => file.path,
                    None => arg,
                }
            }
            _ => arg,
        }
    }

    /// `>&M`, `N>&M`: descriptor N becomes a copy of M; writing through a descriptor opened
    /// with `<>` on a file overwrites that file in place.
    fn duplicate_output(
        &mut self,
        fd: &Option<i32>,
        source: &str,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let Ok(m) = source.trim_end_matches('-').parse::<i32>() else {
            return Continue(());
        };
        let Some(file) = self.fd_file(shell, m) else {
            return Continue(());
        };
        if file.read_write {
            self.check_write(
                &file.path,
                WriteMode::Clobber,
                shell,
                frame,
                &format!("redirect >&{m} (descriptor {m} is open with <> and written in place)"),
            )?;
        }
        self.cmd_fd_files.insert(fd.unwrap_or(1), file);
        Continue(())
    }

    /// `<&N` onto stdin: stdin becomes what fd N holds.
    fn duplicate_input(
        &mut self,
        fd: &Option<i32>,
        source: Option<&str>,
        shell: &Shell,
        stdin: &mut Stdin,
    ) -> Judged {
        let Some(source) = source.and_then(|s| s.trim_end_matches('-').parse::<i32>().ok()) else {
            return Continue(());
        };
        let held = self.fd_source(shell, source).unwrap_or(if source <= 2 {
            stdin.clone()
        } else {
            Stdin::Unknown
        });
        match fd {
            Some(n) if *n != 0 => {
                self.cmd_fds.insert(*n, held);
            }
            _ => *stdin = held,
        }
        Continue(())
    }

    /// What file descriptor `n` holds for the command being judged, when
    /// this command line opened it (`3<<<...`, `exec 3<<<...`).
    pub(crate) fn fd_source(&self, shell: &Shell, n: i32) -> Option<Stdin> {
        self.cmd_fds.get(&n).or_else(|| shell.fds.get(&n)).cloned()
    }

    /// Remembers that this command line writes `arg` (a script written and
    /// then run is text the guard never read).
    pub(crate) fn record_write(&mut self, shell: &Shell, arg: &Arg) {
        if let Some(path) = arg.exact().and_then(|t| self.resolve(shell, t))
            && path != "/dev/null"
            && self.written.len() < 256
        {
            self.written.push((path, None));
        }
    }

    /// Whether `arg` names a path this command line wrote earlier (or a
    /// file inside a directory it wrote into).
    pub(crate) fn is_written(&self, shell: &Shell, arg: &Arg) -> bool {
        self.written_entry(shell, arg).is_some()
    }

    /// The latest write of the path `arg` names, with the text written when
    /// known (`cat > x.sh <<EOF`): `Some(None)` for a write of unknown text.
    fn written_entry(&self, shell: &Shell, arg: &Arg) -> Option<Option<String>> {
        if self.written.is_empty() || !arg.known {
            return None;
        }
        let text = arg.text.as_str();
        let resolved = if arg.glob {
            None
        } else {
            self.resolve(shell, text)
        };
        let base = text.rsplit('/').next().unwrap_or(text);
        self.written
            .iter()
            .rev()
            .find(|(w, _)| match &resolved {
                Some(path) => {
                    path == w || path.starts_with(&format!("{}/", w.trim_end_matches('/')))
                }
                None => w.rsplit('/').next() == Some(base) || arg.glob,
            })
            .map(|(w, content)| {
                let exact = resolved.as_deref() == Some(w.as_str());
                if exact { content.clone() } else { None }
            })
    }

    /// `>&word`: a file descriptor number or `-` is harmless; anything else
    /// is a file written with both streams.
    fn duplicate_target(&mut self, arg: &Arg, shell: &Shell, frame: &Frame) -> Judged {
        let is_fd = arg.exact().is_some_and(|t| {
            t == "-" || t.trim_end_matches('-').chars().all(|c| c.is_ascii_digit())
        });
        if !is_fd {
            self.check_write(arg, WriteMode::Clobber, shell, frame, "redirect >&")?;
        }
        Continue(())
    }

    /// Expands a word that must be exactly one field (a redirect target).
    fn single(&mut self, raw: &str, shell: &mut Shell, frame: &Frame) -> Judged<Arg> {
        let mut args = self.expand(raw, shell, frame)?;
        Continue(if args.len() == 1 {
            args.pop().unwrap_or_else(|| Arg::unknown(raw))
        } else {
            Arg::unknown(raw)
        })
    }

    /// The one file `cmd` prints whole, when it is `cat FILE` of a static file (no option, not
    /// standard input or a descriptor, not written earlier in the line): resolved.
    fn printed_whole(&self, cmd: &Cmd, name: &str, shell: &Shell) -> Option<String> {
        let [_, file] = cmd.argv.as_slice() else {
            return None;
        };
        if name.rsplit('/').next() != Some("cat") {
            return None;
        }
        let text = file.exact()?;
        if text.starts_with('-')
            || text.contains(words::SLASH_FREE)
            || commands::descriptor_path(text).is_some()
            || self.is_written(shell, file)
        {
            return None;
        }
        let path = self.resolve(shell, text)?;
        (!path.starts_with("/dev/") && !path.starts_with("/proc/")).then_some(path)
    }

    /// Records a command, applies user rules, then judges it.
    pub(crate) fn dispatch(&mut self, cmd: Cmd, shell: &mut Shell, frame: &Frame) -> Judged {
        self.step(frame)?;
        let Some(first) = cmd.argv.first() else {
            return Continue(());
        };
        self.found.push(FoundCommand {
            argv: cmd.argv.iter().map(|a| a.text.clone()).collect(),
            unknown: cmd
                .argv
                .iter()
                .enumerate()
                .filter(|(_, a)| !a.known)
                .map(|(i, _)| i)
                .collect(),
            origin: frame.origin.clone(),
        });
        self.note(
            frame,
            format!(
                "command: {}",
                cmd.argv
                    .iter()
                    .map(|a| a.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        );
        let Some(name) = first
            .exact()
            .filter(|n| !n.contains(words::SLASH_FREE))
            .map(str::to_owned)
        else {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "the command name `{}` is not statically known; the guard cannot tell what would run",
                    first.text
                ),
            );
        };
        self.user_rules(&cmd, &name, frame)?;
        {
            let base = name.rsplit('/').next().unwrap_or(&name);
            self.reach(&cmd, base, shell, frame)?;
            // The pawl binary under another name or path is pawl: judged as `pawl`, not read
            // as a script file.
            if self.is_pawl_binary(&name, shell) {
                let args: Vec<Arg> = cmd.argv.iter().skip(1).cloned().collect();
                return self.pawl(&args, shell, frame);
            }
        }
        if name == "--" {
            // `time -p -- cmd`: the parser leaves the `--` to the command.
            let argv: Vec<Arg> = cmd.argv.iter().skip(1).cloned().collect();
            if !argv.is_empty() {
                self.dispatch(
                    Cmd {
                        argv,
                        stdin: cmd.stdin,
                    },
                    shell,
                    frame,
                )?;
            }
            return Continue(());
        }
        self.written_then_run(&cmd, &name, shell, frame)?;
        self.record_command_writes(&cmd, &name, shell);
        self.printed_file = self.printed_whole(&cmd, &name, shell);
        if !name.contains('/') {
            // Bash expands aliases only in interactive shells or after
            // `shopt -s expand_aliases`, and never on the line that defines
            // them: the real command is judged, and so is the expansion
            // (whichever bash ends up running).
            {
                if let Some(value) = shell.aliases.get(&name).cloned() {
                    let rest: Vec<String> = cmd.argv.iter().skip(1).map(words::quote).collect();
                    let text = format!("{value} {}", rest.join(" "));
                    let inner = frame
                        .nested(&format!("alias {name}"))
                        .with_stdin(cmd.stdin.clone());
                    self.run_script(&text, &mut shell.clone(), &inner)?;
                }
            }
            if let Some(body) = shell.functions.get(&name).cloned() {
                let inner = frame
                    .nested(&format!("function {name}"))
                    .with_stdin(cmd.stdin);
                return self.function_body(&name, &body, shell, &inner);
            }
        }
        let base = name.rsplit('/').next().unwrap_or(&name).to_owned();
        if name.contains('/') {
            // `./x.sh`, `/abs/x`: a shell script file is walked when it can be read.
            let script = cmd.argv[0].clone();
            self.script_file("exec", &script, &cmd.stdin, shell, frame)?;
        }
        if matches!(base.as_str(), "npm" | "yarn" | "pnpm") {
            self.package_manager(&base, &cmd, shell, frame)?;
        }
        self.command_by_name(&base, cmd, shell, frame)
    }

    /// Denies running (as a program, a script operand or a sourced file) a
    /// path this command line wrote: its content was never analysed.
    fn written_then_run(&mut self, cmd: &Cmd, name: &str, shell: &Shell, frame: &Frame) -> Judged {
        if self.written.is_empty() {
            return Continue(());
        }
        let base = name.rsplit('/').next().unwrap_or(name);
        let first = &cmd.argv[0];
        let runs_operand = registry::runs_file_operand(base);
        let culprit = if name.contains('/') && self.is_written(shell, first) {
            Some(first)
        } else if runs_operand {
            cmd.argv.iter().skip(1).find(|a| self.is_written(shell, a))
        } else {
            None
        };
        if let Some(culprit) = culprit {
            let path = culprit.text.clone();
            let runner = if std::ptr::eq(culprit, first) {
                None
            } else {
                Some(base)
            };
            if let Some(Some(content)) = self.written_entry(shell, culprit) {
                // Its text is known (`cat > x.sh <<'EOF'`): judge it as the
                // program it is.
                let shebang = content.lines().next().filter(|l| l.starts_with("#!"));
                let runner = runner
                    .map(str::to_owned)
                    .or_else(|| match shebang {
                        None => Some("sh".to_owned()),
                        Some(line) => line
                            .split_whitespace()
                            .map(|w| w.rsplit('/').next().unwrap_or(w))
                            .rfind(|w| !w.starts_with('-'))
                            .map(str::to_owned),
                    })
                    .unwrap_or_default();
                let stdin = Stdin::Text(content);
                let inner = frame.nested(&format!("{runner} {path}"));
                if registry::is_shell(&runner) || registry::SOURCE.contains(&runner.as_str()) {
                    let mut sub = shell.clone();
                    return self.stdin_script(&runner, &stdin, &mut sub, &inner);
                }
                if self.interpreter(&runner, &[], &stdin, &mut shell.clone(), &inner)? {
                    return Continue(());
                }
            }
            self.deny(
                frame,
                RuleId::NotStatic,
                format!(
                    "`{path}` is written earlier in this command and then run by `{base}`; the guard cannot see what it would do (run it in a separate command after it is written, so its content can be reviewed)"
                ),
            )?;
        }
        Continue(())
    }

    /// Records the files a command writes that could later be run:
    /// `tee` operands, `cp`/`mv`/`install`/`ln` destinations, `dd of=`,
    /// downloads, in-place edits.
    fn record_command_writes(&mut self, cmd: &Cmd, name: &str, shell: &Shell) {
        let base = name.rsplit('/').next().unwrap_or(name);
        let args: Vec<&Arg> = cmd.argv.iter().skip(1).collect();
        let operands = || args.iter().filter(|a| !a.text.starts_with('-')).copied();
        let targets: Vec<Arg> = match base {
            // `mkfifo`/`mknod` make a FIFO whose text a writer of an earlier call would send.
            "tee" | "touch" | "truncate" | "patch" | "sponge" | "mkfifo" | "mknod" => {
                operands().cloned().collect()
            }
            "sed" | "perl" | "ruby"
                if args
                    .iter()
                    .any(|a| a.text.starts_with("-i") || a.text.starts_with("--in-place")) =>
            {
                operands().cloned().collect()
            }
            "cp" | "mv" | "install" | "ln" | "rsync" | "scp" => {
                let mut out: Vec<Arg> = operands().last().cloned().into_iter().collect();
                for (i, a) in args.iter().enumerate() {
                    if a.text == "-t" {
                        out.extend(args.get(i + 1).map(|a| (*a).clone()));
                    } else if let Some(dir) = a.text.strip_prefix("--target-directory=") {
                        out.push(Arg::lit(dir));
                    }
                }
                out
            }
            "dd" => args
                .iter()
                .filter_map(|a| a.text.strip_prefix("of="))
                .map(Arg::lit)
                .collect(),
            "curl" | "wget" => {
                let mut out = Vec::new();
                for (i, a) in args.iter().enumerate() {
                    if matches!(
                        a.text.as_str(),
                        "-o" | "-O" | "--output" | "--output-document"
                    ) {
                        out.extend(args.get(i + 1).map(|a| (*a).clone()));
                    } else if let Some(v) = a.text.strip_prefix("--output-document=") {
                        out.push(Arg::lit(v));
                    } else if let Some(cluster) = a
                        .text
                        .strip_prefix('-')
                        .filter(|c| !c.starts_with('-') && c.len() > 1)
                        && let Some(at) = cluster.find(['o', 'O'])
                    {
                        // Short options run together (`-so i.sh`, `-sSLo i.sh`, `-qO i.sh`,
                        // `-oi.sh`): the value is the rest of the word or the next one. Both
                        // are taken (an over-count only makes a later run of the name suspect).
                        let rest = &cluster[at + 1..];
                        if !rest.is_empty() {
                            out.push(Arg::lit(rest));
                        }
                        out.extend(args.get(i + 1).map(|a| (*a).clone()));
                    }
                }
                if base == "curl" && args.iter().any(|a| a.is("-O") || a.is("--remote-name")) {
                    // The file is named after the URL: any later run is suspect.
                    out.push(Arg::lit("."));
                }
                out
            }
            _ => Vec::new(),
        };
        for target in &targets {
            self.record_write(shell, target);
        }
        let made: Vec<&Arg> = match base {
            "mkdir" => operands().collect(),
            "git" if args.first().is_some_and(|a| a.is("init") || a.is("clone")) => {
                let rest: Vec<&Arg> = operands().skip(1).collect();
                let wanted = if args[0].is("clone") { 2 } else { 1 };
                if rest.len() >= wanted {
                    rest.last().copied().into_iter().collect()
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        };
        for dir in made {
            if let Some(path) = dir.exact().and_then(|t| self.resolve(shell, t))
                && self.made_dirs.len() < 64
            {
                self.made_dirs.push(path);
            }
        }
    }

    fn user_rules(&mut self, cmd: &Cmd, name: &str, frame: &Frame) -> Judged {
        if self.policy.deny.is_empty() {
            return Continue(());
        }
        let base = name.rsplit('/').next().unwrap_or(name);
        let mut line = base.to_owned();
        for arg in cmd.argv.iter().skip(1) {
            line.push(' ');
            line.push_str(&arg.text);
        }
        let policy = self.policy;
        for rule in &policy.deny {
            if rule.command.is_none() && rule.pattern.is_none() {
                continue;
            }
            // The pattern only when the command matched: the built-in rule's regex is built
            // on its first use, which most commands never reach.
            let matched = rule.command.as_ref().is_none_or(|g| g.is_match(base))
                && rule.pattern.as_ref().is_none_or(|r| r.is_match(&line));
            if matched {
                let reason = rule
                    .reason
                    .clone()
                    .unwrap_or_else(|| format!("`{line}` matches the deny rule `{}`", rule.label));
                self.deny(frame, RuleId::PolicyDeny, reason)?;
            }
        }
        Continue(())
    }

    /// The absolute, normalised form of a path argument, if knowable.
    pub(crate) fn resolve(&self, shell: &Shell, text: &str) -> Option<String> {
        if text.starts_with('/') {
            return Some(normalize("/", text));
        }
        shell.cwd.as_deref().map(|cwd| normalize(cwd, text))
    }
}

/// The exact text `echo` or `printf` prints with these arguments, when every argument is known
/// and nothing in it depends on the shell's own `echo` (escapes other than `\n`, `\t` and `\\`
/// in a printf format, any backslash for echo, `%` conversions): `None` otherwise.
/// The name of the one variable a word is (`$X`, `${X}`, `"$X"`, `"${X}"`), a named variable,
/// not a positional or special parameter.
/// What an inherited variable stands for in a language read inside an argument
/// ([`Walker::with_inherited_placeholders`]): a word no language takes as a command (fullwidth
/// letters), so a script is judged by where the value sits. A judge that finds it in a
/// command or file name it runs or writes refuses that.
pub(crate) const INHERITED_PLACEHOLDER: &str = "\u{ff36}\u{ff21}\u{ff32}";

/// Arguments that only ask a program for its version or usage (`--version`, `-V`,
/// `--help`): a program given only these prints and exits, whatever it is. Not `-h` ("halt"
/// or "host" for some programs) nor a subcommand such as `version` (a file name for others).
pub(crate) fn only_information(args: &[Arg]) -> bool {
    const INFORMATION: &[&str] = &["--version", "-V", "--help"];
    !args.is_empty()
        && args
            .iter()
            .all(|a| a.exact().is_some_and(|t| INFORMATION.contains(&t)))
}

/// `"$VAR/lit/path"` or `"${VAR}/lit/path"`: the variable, when the rest is a literal path
/// (letters, digits, `._-/`, no `..`) inside the same double quotes.
fn variable_then_path(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let rest = inner.strip_prefix('$')?;
    let (name, path) = match rest.strip_prefix('{') {
        Some(braced) => braced.split_once('}')?,
        None => rest.split_at(
            rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len()),
        ),
    };
    let literal = path.starts_with('/')
        && path.len() > 1
        && !path.split('/').any(|c| c == "..")
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'));
    let mut chars = name.chars();
    (literal
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

/// `$NAME`, `${NAME}`, `${NAME:-default}` or `${NAME-default}` (quoted or not): the name and
/// the default, when the default is a plain program name (letters, digits, `._+-`).
fn variable_with_default(raw: &str) -> Option<(&str, Option<&str>)> {
    if let Some(name) = lone_variable(raw) {
        return Some((name, None));
    }
    let inner = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    let body = inner.strip_prefix("${")?.strip_suffix('}')?;
    let (name, default) = body.split_once(":-").or_else(|| body.split_once('-'))?;
    let plain = !default.is_empty()
        && default
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'));
    (plain && lone_variable(&format!("${name}")).is_some()).then_some((name, Some(default)))
}

fn lone_variable(raw: &str) -> Option<&str> {
    let inner = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(raw);
    let name = inner.strip_prefix('$')?;
    let name = name
        .strip_prefix('{')
        .and_then(|n| n.strip_suffix('}'))
        .unwrap_or(name);
    let mut chars = name.chars();
    (chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

fn printed_text(argv: &[Arg]) -> Option<String> {
    let (first, rest) = argv.split_first()?;
    let words: Vec<&str> = rest.iter().map(Arg::exact).collect::<Option<_>>()?;
    match first.exact()? {
        "echo" => {
            let (newline, words) = match words.first() {
                Some(&"-n") => (false, &words[1..]),
                _ => (true, &words[..]),
            };
            if words.iter().any(|w| w.contains('\\') || w.starts_with('-')) {
                return None;
            }
            let mut text = words.join(" ");
            if newline {
                text.push('\n');
            }
            Some(text)
        }
        "printf" => {
            let [format] = words[..] else {
                return None;
            };
            if format.contains('%') || format.starts_with('-') {
                return None;
            }
            let mut out = String::new();
            let mut chars = format.chars();
            while let Some(c) = chars.next() {
                if c != '\\' {
                    out.push(c);
                    continue;
                }
                match chars.next()? {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    '\\' => out.push('\\'),
                    _ => return None,
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// Whether a here-document operator is followed by a delimiter that is
/// empty after quote removal (`<<''`, `<<-""`, `<<$''`) or missing
/// (`<< |`, `<<<<`).
fn has_bad_heredoc_delimiter(text: &str) -> bool {
    if text.contains("<<<<") {
        return true;
    }
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] != b'<' || bytes[i + 1] != b'<' {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        if bytes.get(j) == Some(&b'<') {
            // A here-string, not a here-document.
            i = j + 1;
            continue;
        }
        if bytes.get(j) == Some(&b'-') {
            j += 1;
        }
        while matches!(bytes.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        if bytes.get(j).is_none_or(|b| b"<>&|;()\r\n".contains(b)) {
            return true;
        }
        let mut empties = 0;
        loop {
            match (bytes.get(j), bytes.get(j + 1), bytes.get(j + 2)) {
                (Some(b'\''), Some(b'\''), _) | (Some(b'"'), Some(b'"'), _) => {
                    j += 2;
                    empties += 1;
                }
                (Some(b'$'), Some(b'\''), Some(b'\'')) => {
                    j += 3;
                    empties += 1;
                }
                _ => break,
            }
        }
        let ends = bytes.get(j).is_none_or(|b| {
            !(b.is_ascii_alphanumeric()
                || matches!(b, b'_' | b'-' | b'.' | b'\'' | b'"' | b'$' | b'\\'))
        });
        if empties > 0 && ends {
            return true;
        }
        i = j.max(i + 2);
    }
    false
}

/// The first word token that the word grammar must not see, with the reason. Here-document
/// bodies are scanned as bodies (quotes are data), or not at all when the delimiter is quoted
/// (nothing in them expands).
fn hard_word(tokens: &[Token]) -> Option<(String, balance::Refusal)> {
    enum Heredoc {
        /// Not in a here-document.
        No,
        /// The next word is the delimiter.
        Delimiter,
        /// The next word is the body (`true`: it expands).
        Body(bool),
        /// The next word is the closing delimiter.
        End,
    }
    let mut heredoc = Heredoc::No;
    // `(` operators not yet closed: an unclosed one is a syntax error anyway, and a run of them
    // makes brush-parser's program grammar try subshell against arithmetic command at every
    // level (fuzz-found: twice the time per `(`).
    let mut open_parens = 0usize;
    for token in tokens {
        let word = match token {
            Token::Operator(op, _) => {
                match op.as_str() {
                    "<<" | "<<-" => heredoc = Heredoc::Delimiter,
                    "(" => open_parens += 1,
                    "((" => open_parens += 2,
                    ")" => open_parens = open_parens.saturating_sub(1),
                    "))" => open_parens = open_parens.saturating_sub(2),
                    _ => {}
                }
                continue;
            }
            Token::Word(word, _) => word,
        };
        let mode = match heredoc {
            Heredoc::Delimiter => {
                heredoc = Heredoc::Body(!word.contains(['\'', '"', '\\']));
                continue;
            }
            Heredoc::Body(expands) => {
                heredoc = Heredoc::End;
                if !expands {
                    continue;
                }
                balance::Mode::HereDoc
            }
            Heredoc::End => {
                heredoc = Heredoc::No;
                continue;
            }
            Heredoc::No => balance::Mode::Word,
        };
        if let Err(why) = balance::scan(word, mode) {
            return Some((word.clone(), why));
        }
    }
    if open_parens > 0 {
        return Some(("(".into(), balance::Refusal::UnclosedParenthesis));
    }
    None
}

/// Whether a run of ten or more digits is directly followed by `<` or `>`.
fn has_huge_fd_number(text: &str) -> bool {
    let mut digits = 0usize;
    for b in text.bytes() {
        if b.is_ascii_digit() {
            digits += 1;
        } else {
            if digits >= 10 && (b == b'<' || b == b'>') {
                return true;
            }
            digits = 0;
        }
    }
    false
}

/// An over-estimate of how deeply `text` nests: brackets and compound
/// keywords, ignoring quotes (quoted brackets only make it larger).
pub(crate) fn nesting(text: &str) -> usize {
    let mut depth: usize = 0;
    let mut max = 0;
    let bytes = text.as_bytes();
    let mut word = String::new();
    let mut in_tick = false;
    let flush = |word: &mut String, depth: &mut usize, max: &mut usize| {
        match word.as_str() {
            "if" | "while" | "until" | "for" | "case" | "select" => {
                *depth += 1;
                *max = (*max).max(*depth);
            }
            "fi" | "done" | "esac" => *depth = depth.saturating_sub(1),
            _ => {}
        }
        word.clear();
    };
    for &b in bytes {
        match b {
            b'(' | b'{' => {
                flush(&mut word, &mut depth, &mut max);
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' => {
                flush(&mut word, &mut depth, &mut max);
                depth = depth.saturating_sub(1);
            }
            b'`' => {
                flush(&mut word, &mut depth, &mut max);
                // Backticks pair up: an opening one adds a level.
                in_tick = !in_tick;
                if in_tick {
                    depth += 1;
                    max = max.max(depth);
                } else {
                    depth = depth.saturating_sub(1);
                }
            }
            b if b.is_ascii_alphabetic() => word.push(char::from(b)),
            _ => flush(&mut word, &mut depth, &mut max),
        }
    }
    flush(&mut word, &mut depth, &mut max);
    max
}
