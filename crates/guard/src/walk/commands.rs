//! Per-command resolution: wrappers (`sudo`, `env`, `timeout`, ...) are
//! peeled off, payloads (`bash -c`, `eval`, `xargs`, `find -exec`,
//! `parallel`, `watch`, `trap`) are walked as the scripts or commands they
//! are, shell builtins that change state (`cd`, `alias`, `read`) update it,
//! and everything else goes to the rules.

use std::ops::ControlFlow::Continue;

use super::{Cmd, Frame, Judged, Shell, Stdin, Walker, WriteMode};
use crate::decision::RuleId;
use crate::registry::{self, Family, Wrapper};
use crate::rules::{self, Spec};
use crate::words::{self, Arg};

/// Joins known args with spaces; `None` when any is unknown.
fn join_known(args: &[Arg]) -> Option<String> {
    if args.iter().any(|a| !a.known) {
        return None;
    }
    Some(
        args.iter()
            .map(|a| a.text.as_str())
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The options of a shell invocation, as bash reads them.
#[derive(Default)]
struct ShellOptions {
    /// `-c`: the first operand is the script.
    command: bool,
    /// `-s` or `-i`: the script is read from stdin.
    stdin: bool,
    operands: Vec<Arg>,
}

/// Parses a shell's options: `-xc`, `+x`, `-o posix`, `+O extglob`,
/// `--norc`, `--rcfile f`, `--` — up to the first operand.
fn shell_options(args: &[Arg]) -> ShellOptions {
    let mut out = ShellOptions::default();
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        index += 1;
        let Some(text) = arg.exact() else {
            // An unknown word: the script operand, judged as unknown.
            out.operands.push(arg.clone());
            out.operands.extend(args[index..].iter().cloned());
            break;
        };
        if text == "--" || text == "-" {
            out.operands.extend(args[index..].iter().cloned());
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            match long.split_once('=') {
                // fish: `--command=TEXT`, `--init-command=TEXT`.
                Some(("command" | "init-command", value)) => {
                    out.command = true;
                    out.operands.push(Arg::lit(value));
                    out.operands.extend(args[index..].iter().cloned());
                    break;
                }
                Some(_) => {}
                None if matches!(long, "command" | "init-command") => out.command = true,
                None if matches!(long, "rcfile" | "init-file") => index += 1,
                None => {}
            }
            continue;
        }
        if text.len() > 1 && (text.starts_with('-') || text.starts_with('+')) {
            let on = text.starts_with('-');
            let mut takes_value = false;
            for c in text.chars().skip(1) {
                match c {
                    'c' if on => out.command = true,
                    's' | 'i' if on => out.stdin = true,
                    'o' | 'O' => takes_value = true,
                    _ => {}
                }
            }
            if takes_value {
                index += 1;
            }
            continue;
        }
        out.operands.push(arg.clone());
        out.operands.extend(args[index..].iter().cloned());
        break;
    }
    out
}

/// What xargs's options mean for the command it runs.
#[derive(Default)]
struct XargsOptions {
    /// The replacement string (`-I R`, `-i[R]`, `--replace[=R]`).
    replace: Option<String>,
    /// An option word was not statically known.
    unknown: bool,
    operands: Vec<Arg>,
}

/// Parses xargs's options: `-I`, `-L`, `-E`, `-d`, `-a`, `-n`, `-P`, `-s`
/// take a value (attached or next); `-i`, `-l`, `-e` take only an attached
/// one; long options take `=value` (`--replace`, `--max-lines`, `--eof`
/// optionally) or the next word.
fn xargs_options(args: &[Arg]) -> XargsOptions {
    const SHORT_VALUES: &str = "ILEdanPs";
    const SHORT_OPTIONAL: &str = "ile";
    const LONG_VALUES: &[&str] = &[
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--max-chars",
        "--process-slot-var",
    ];
    let mut out = XargsOptions::default();
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        index += 1;
        let Some(text) = arg.exact() else {
            if arg.text.starts_with('-') || !arg.known {
                out.unknown = out.unknown || arg.text.starts_with('-');
            }
            out.operands.extend(args[index - 1..].iter().cloned());
            break;
        };
        if text == "--" {
            out.operands.extend(args[index..].iter().cloned());
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v.to_owned())),
                None => (format!("--{long}"), None),
            };
            if LONG_VALUES.contains(&name.as_str()) && value.is_none() {
                index += 1;
            }
            if name == "--replace" {
                out.replace = Some(value.unwrap_or_else(|| "{}".to_owned()));
            }
            continue;
        }
        if text.len() > 1 && text.starts_with('-') {
            let cluster: Vec<char> = text.chars().skip(1).collect();
            for (at, c) in cluster.iter().enumerate() {
                let rest: String = cluster[at + 1..].iter().collect();
                if SHORT_VALUES.contains(*c) {
                    let value = if rest.is_empty() {
                        index += 1;
                        args.get(index - 1).map(|a| a.text.clone())
                    } else {
                        Some(rest)
                    };
                    if *c == 'I' {
                        out.replace = value;
                    }
                    break;
                }
                if SHORT_OPTIONAL.contains(*c) {
                    if *c == 'i' {
                        out.replace = Some(if rest.is_empty() {
                            "{}".to_owned()
                        } else {
                            rest
                        });
                    }
                    break;
                }
            }
            continue;
        }
        out.operands.extend(args[index - 1..].iter().cloned());
        break;
    }
    out
}

/// The file descriptor a path stands for: `/dev/stdin`, `-` → 0,
/// Whether `text` (an expansion shown with its unknown parts as written) is known text plus
/// `$NAME`/`${NAME}` references to variables whose values are free of code (numbers, literal
/// loop words): splicing their values into the text cannot add commands.
fn code_free_template(text: &str, shell: &Shell) -> bool {
    if text.contains('`') {
        return false;
    }
    let mut rest = text;
    let mut any = false;
    while let Some(at) = rest.find('$') {
        let after = &rest[at + 1..];
        let (name, len) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => return false,
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid || !shell.arith_safe.contains(name) || shell.vars_untrusted {
            return false;
        }
        any = true;
        rest = &after[len..];
    }
    any
}

/// `/dev/fd/N`, `/proc/self/fd/N` → N.
pub(super) fn descriptor_path(text: &str) -> Option<i32> {
    if matches!(text, "/dev/stdin" | "-") {
        return Some(0);
    }
    let normalized = crate::paths::normalize("/", text);
    let rest = normalized
        .strip_prefix("/dev/fd/")
        .or_else(|| normalized.strip_prefix("/proc/self/fd/"))
        .or_else(|| normalized.strip_prefix("/proc/thread-self/fd/"))
        .or_else(|| {
            // `/proc/$$/fd/N` and `/proc/PID/fd/N`.
            normalized
                .strip_prefix("/proc/")
                .and_then(|r| r.split_once("/fd/"))
                .map(|(_, n)| n)
        })?;
    rest.parse::<i32>().ok().or(Some(-1))
}

fn is_assignment(text: &str) -> bool {
    match text.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

impl Walker<'_> {
    /// Judges a command by its (directory-stripped) name: its family's judge
    /// ([`registry::family`]), then the every-command pass (`rules/every_command.rs`).
    pub(super) fn command_by_name(
        &mut self,
        base: &str,
        cmd: Cmd,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let whole = cmd.clone();
        self.judge_family(base, cmd, shell, frame)?;
        self.every_command(&whole, base, shell, frame)
    }

    /// The one dispatch of the registry: each family's judge.
    fn judge_family(&mut self, base: &str, cmd: Cmd, shell: &mut Shell, frame: &Frame) -> Judged {
        let args: Vec<Arg> = cmd.argv.iter().skip(1).cloned().collect();
        let family = registry::family(base);
        match family {
            Family::Shell => return self.shell_payload(base, &args, &cmd.stdin, shell, frame),
            Family::Wrapper(spec) => return self.wrapper(spec, &args, cmd.stdin, shell, frame),
            Family::Git if base == "git" => {
                self.git(&args, shell, frame)?;
                return self.git_secrets(&args, shell, frame);
            }
            Family::Git => {
                // git's dashed programs (`git-push` from git's exec path) are its subcommands.
                let mut argv = vec![Arg::lit(&base[4..])];
                argv.extend(args);
                return self.git(&argv, shell, frame);
            }
            Family::Forge => {
                return self.forge(base, &args, shell, frame);
            }
            Family::Pawl => {
                return self.pawl(&args, shell, frame);
            }
            Family::Other => {}
            _ => {
                // Programs named by environment variables any command may run (LESSOPEN, ...).
                self.env_programs(base, shell, frame)?;
                // A descriptor operand is the text it holds for what the program runs
                // (`sed -f /dev/fd/3`), a path for what it writes.
                let raw_stdin = cmd.stdin.clone();
                let (code_args, stdin) = self.descriptor_operand(args.clone(), cmd.stdin, shell);
                match family {
                    Family::Archiver => self.archiver(base, &args, &code_args, shell, frame)?,
                    Family::Editor => self.editor(base, &args, &code_args, &stdin, shell, frame)?,
                    Family::Database => {
                        if rules::database::DB_TOOLS.contains(&base) {
                            self.database(base, &args, &code_args, &stdin, shell, frame)?;
                        } else {
                            self.file_rules(base, &args, shell, frame)?;
                        }
                        if let Some((_, opts)) =
                            rules::database::DB_CLIENTS.iter().find(|(n, _)| *n == base)
                        {
                            self.db_client(base, opts, &args, &raw_stdin, frame)?;
                        }
                    }
                    Family::Copier => self.copier(base, &args, &code_args, shell, frame)?,
                    Family::Deleter => {
                        self.deleter(base, &args, shell, frame)?;
                        self.system(base, &args, shell, frame)?;
                    }
                    Family::Remote => self.remote(base, &code_args, &stdin, shell, frame)?,
                    Family::Awk => self.awk(base, &code_args, &stdin, shell, frame)?,
                    Family::Make => self.make(base, &code_args, &stdin, shell, frame)?,
                    Family::Pager => self.pager(base, &code_args, shell, frame)?,
                    Family::Interpreter { node_like } => {
                        // zx with neither a script nor code reads JavaScript from an input the
                        // guard cannot see.
                        if base == "zx"
                            && matches!(stdin, Stdin::Inherited)
                            && code_args.iter().all(|a| a.text.starts_with('-'))
                            && !code_args.iter().any(|a| {
                                matches!(a.text.as_str(), "-e" | "--eval")
                                    || a.text.starts_with("--eval=")
                            })
                        {
                            self.fail_closed(
                                frame,
                                RuleId::Interpreter,
                                "zx runs JavaScript from its input; the guard cannot see it",
                            )?;
                        }
                        // A package manager's runner first (`bun x`, `bun run`).
                        if !self.runner(base, &code_args, &stdin, shell, frame)? {
                            let lang = if node_like { "node" } else { base };
                            if !self.interpreter(lang, &code_args, &stdin, shell, frame)?
                                && !node_like
                            {
                                self.file_rules(base, &args, shell, frame)?;
                            }
                        }
                        self.deploy(base, &args, frame)?;
                        self.escapes(base, &args, &raw_stdin, shell, frame)?;
                        // `python3 -m twine upload`: the module is judged as the program it is.
                        if base.starts_with("python")
                            && let Some(at) = args.iter().position(|a| a.text == "-m")
                            && let Some(name) = args.get(at + 1).and_then(Arg::exact)
                            && name != base
                            && !matches!(registry::family(name), Family::Other)
                        {
                            let sub = Cmd {
                                argv: args[at + 1..].to_vec(),
                                stdin: raw_stdin,
                            };
                            self.command_by_name(name, sub, shell, frame)?;
                        }
                    }
                    Family::Compiler => {
                        self.compiler(base, &code_args, shell, frame)?;
                        // The output file (`-o`).
                        self.file_rules(base, &args, shell, frame)?;
                    }
                    Family::Deployer => {
                        self.file_rules(base, &args, shell, frame)?;
                        // A cloud CLI that copies a secret sends it first (`aws s3 cp .env`).
                        if rules::network::is_network_client(base, &args) {
                            self.network(base, &args, &raw_stdin, shell, frame)?;
                        }
                        self.deploy(base, &args, frame)?;
                    }
                    Family::System => {
                        self.file_rules(base, &args, shell, frame)?;
                        self.system(base, &args, shell, frame)?;
                    }
                    Family::Container => {
                        self.file_rules(base, &args, shell, frame)?;
                        self.deploy(base, &args, frame)?;
                        self.container(base, &args, shell, frame)?;
                    }
                    Family::NetworkClient => self.file_rules(base, &args, shell, frame)?,
                    Family::Escape => {
                        self.file_rules(base, &args, shell, frame)?;
                        self.escapes(base, &args, &raw_stdin, shell, frame)?;
                    }
                    Family::Package => {
                        if !self.package(base, &code_args, &stdin, shell, frame)? {
                            self.file_rules(base, &args, shell, frame)?;
                        }
                        self.deploy(base, &args, frame)?;
                    }
                    Family::Debugger => self.debugger(base, &code_args, &stdin, shell, frame)?,
                    Family::Scheduler => self.crontab(&code_args, &stdin, shell, frame)?,
                    Family::Shell
                    | Family::Wrapper(_)
                    | Family::Git
                    | Family::Forge
                    | Family::Pawl
                    | Family::Other => {}
                }
                return Continue(());
            }
        }
        match base {
            "sudo" | "doas" => self.sudo(base, &args, cmd.stdin, shell, frame)?,
            "env" => self.env(&args, cmd.stdin, shell, frame)?,
            "chroot" => self.chroot(&args, cmd.stdin, shell, frame)?,
            "watch" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "nq",
                        long_values: &["--interval", "--differences", "--equexit"],
                        stop_at_operand: true,
                    },
                );
                if p.has(&["-x", "--exec"]) {
                    self.rewrap(base, p.operands, cmd.stdin, shell, frame)?;
                } else {
                    // watch hands its joined arguments to `sh -c`.
                    self.script_args("watch", &p.operands, shell, frame, false)?;
                }
            }
            "su" | "runuser" => self.su(base, &args, cmd.stdin, shell, frame)?,
            "sg" => {
                // `sg group [-c] command`: the command goes to `sh -c`.
                let rest: Vec<Arg> = args
                    .iter()
                    .skip_while(|a| a.is("-"))
                    .skip(1)
                    .filter(|a| !a.is("-c"))
                    .cloned()
                    .collect();
                if rest.is_empty() {
                    self.stdin_script(base, &cmd.stdin, shell, frame)?;
                } else {
                    self.script_args("sg", &rest, shell, frame, false)?;
                }
            }
            "script" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "cEIOBTm",
                        long_values: &[
                            "--command",
                            "--echo",
                            "--log-in",
                            "--log-out",
                            "--log-io",
                            "--log-timing",
                            "--logging-format",
                            "--output-limit",
                            "--timing",
                        ],
                        stop_at_operand: false,
                    },
                );
                for file in &p.operands {
                    self.check_write(file, WriteMode::Clobber, shell, frame, "script")?;
                }
                match p.value(&["-c", "--command"]).cloned() {
                    Some(command) => {
                        self.script_args("script -c", &[command], shell, frame, false)?
                    }
                    // Without -c, script runs an interactive shell on stdin.
                    None => self.stdin_script("script", &cmd.stdin, shell, frame)?,
                }
            }
            "at" | "batch" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "qfMmt",
                        long_values: &[],
                        stop_at_operand: false,
                    },
                );
                if p.has(&["-l", "-d", "-r", "-c"]) {
                    // Listing, removing or showing jobs.
                } else if p.has(&["-f"]) {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("{base} -f schedules a script file the guard cannot see"),
                    )?;
                } else {
                    self.stdin_script(base, &cmd.stdin, shell, frame)?;
                }
            }
            "tmux" | "screen" => {
                let runs = args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "new"
                            | "new-session"
                            | "new-window"
                            | "neww"
                            | "split-window"
                            | "splitw"
                            | "send-keys"
                            | "send"
                            | "run-shell"
                            | "run"
                            | "respawn-pane"
                            | "respawnp"
                            | "respawn-window"
                            | "respawnw"
                            | "pipe-pane"
                            | "pipep"
                            | "if-shell"
                            | "if"
                            | "display-popup"
                            | "popup"
                            | "source-file"
                            | "source"
                            | "-c"
                            | "-X"
                    )
                }) || (base == "screen"
                    && args.iter().any(|a| !a.text.starts_with('-')));
                if runs {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("{base} runs commands in a session the guard cannot follow"),
                    )?;
                }
            }
            "test" | "[" => {
                // `test -v 'a[$(cmd)]'` evaluates the subscript.
                for pair in args.windows(2) {
                    if pair[0].is("-v") {
                        self.test_variable(&pair[1], shell, frame)?;
                    }
                }
                self.file_rules(base, &args, shell, frame)?;
            }
            "hash" => {
                if args.iter().any(|a| a.text.starts_with("-p") || !a.known) {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "hash -p makes a command name run another program",
                    )?;
                }
            }
            "enable" => {
                let changes = args.iter().any(|a| {
                    !a.known || (a.text.starts_with('-') && a.text.contains(['n', 'f', 'd']))
                });
                if changes {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "enable -n/-f/-d changes what builtin names run",
                    )?;
                }
            }
            "set" => {
                if args.iter().any(|a| !a.known) {
                    // `set -- $x` etc. change nothing modelled, but
                    // `set $opts` may turn on xtrace with an unknown PS4.
                    shell.vars_untrusted = true;
                }
            }
            "eval" => {
                // eval runs in the current shell: state changes persist.
                let args = match args.first() {
                    Some(first) if first.is("--") => &args[1..],
                    _ => &args[..],
                };
                match join_known(args) {
                    Some(text) => {
                        let inner = frame.nested("inside eval").with_stdin(cmd.stdin);
                        self.run_script(&text, shell, &inner)?;
                    }
                    // `eval "$(ssh-agent -s)"`: a well-known tool's own output only sets the
                    // environment (the substitution itself was walked); what that environment
                    // makes later commands load is the every-command pass's to judge.
                    None if args.len() == 1 && eval_of_known_tool(&args[0].text) => {
                        shell.vars_untrusted = true;
                    }
                    None => self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "eval of text that is not statically known",
                    )?,
                }
            }
            "source" | "." => {
                shell.sourced = true;
                let args = match args.first() {
                    Some(first) if first.is("--") => &args[1..],
                    _ => &args[..],
                };
                match args.first() {
                    Some(file) if file.known => {
                        // Sourcing runs in this shell with its stdin.
                        let mut sub = shell.clone();
                        self.script_operand(base, file, &cmd.stdin, &mut sub, frame)?;
                    }
                    _ => self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "source of a file that is not statically known",
                    )?,
                }
            }
            "trap" => self.trap(&args, shell, frame)?,
            "alias" => {
                for arg in &args {
                    match arg.exact().and_then(|t| t.split_once('=')) {
                        Some((name, value)) => {
                            shell.aliases.insert(name.to_owned(), value.to_owned());
                        }
                        None if arg.known => {}
                        None => self.fail_closed(
                            frame,
                            RuleId::NotStatic,
                            "alias definition that is not statically known",
                        )?,
                    }
                }
            }
            "unalias" => {
                for arg in &args {
                    if let Some(name) = arg.exact() {
                        shell.aliases.remove(name);
                    }
                }
            }
            "cd" | "pushd" | "popd" => self.cd(base, &args, shell, frame),
            "read" | "mapfile" | "readarray" | "getopts" | "unset" | "wait" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        // mapfile's `-t` takes no value (read's is a timeout).
                        short_values: if matches!(base, "mapfile" | "readarray") {
                            "dnOsuCc"
                        } else {
                            "adDnNptuCcfvp"
                        },
                        long_values: &[],
                        stop_at_operand: false,
                    },
                );
                let names = if base == "wait" {
                    Vec::new()
                } else {
                    p.operands.clone()
                };
                for operand in names
                    .iter()
                    .chain(p.value(&["-a"]))
                    .chain(p.value(&["-p"]).filter(|_| base == "wait"))
                {
                    self.assigned_name(operand, shell, frame)?;
                }
                if let Some(callback) = p.value(&["-C"]).cloned() {
                    // mapfile's callback is evaluated as `callback index line`.
                    match callback.exact().map(|t| format!("{t} 0 x")) {
                        Some(text) => {
                            let inner = frame.nested("mapfile -C").conditional();
                            self.run_script(&text, shell, &inner)?;
                        }
                        None => self.fail_closed(
                            frame,
                            RuleId::NotStatic,
                            "mapfile -C runs a callback that is not statically known",
                        )?,
                    }
                }
            }
            "printf" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "v",
                        long_values: &[],
                        stop_at_operand: true,
                    },
                );
                if let Some(name) = p.value(&["-v"]).cloned() {
                    self.assigned_name(&name, shell, frame)?;
                }
            }
            "xargs" => self.xargs(&args, shell, frame)?,
            "parallel" => self.parallel(&args, shell, frame)?,
            "find" => self.find(&args, shell, frame)?,
            "mkdir" => {
                // mkdir only creates: an unknown name cannot destroy anything.
                // Known names still go to the rules (protected paths).
                let known: Vec<Arg> = args.into_iter().filter(|a| a.known).collect();
                self.file_rules(base, &known, shell, frame)?;
            }
            _ => {
                // Programs named by environment variables any command may run (LESSOPEN, ...).
                self.env_programs(base, shell, frame)?;
                self.file_rules(base, &args, shell, frame)?;
            }
        }
        Continue(())
    }

    /// A wrapper of the registry: its options are skipped (a value it writes is checked, one it
    /// runs is walked), then its leading operands, and the rest runs as a command.
    fn wrapper(
        &mut self,
        spec: &Wrapper,
        args: &[Arg],
        stdin: Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let base = spec.name;
        let p = rules::parse(
            args,
            &Spec {
                short_values: spec.short_values,
                long_values: spec.long_values,
                stop_at_operand: true,
            },
        );
        for opt in &p.opts {
            if spec.outputs.contains(&opt.name.as_str())
                && let Some(file) = &opt.value
            {
                self.check_write(
                    file,
                    WriteMode::Clobber,
                    shell,
                    frame,
                    &format!("{base} {}", opt.name),
                )?;
            }
        }
        if let Some(command) = p.value(spec.command_values).cloned() {
            return self.script_args(&format!("{base} -c"), &[command], shell, frame, false);
        }
        if p.has(spec.no_command) {
            return Continue(());
        }
        if spec.strict
            && p.opts
                .iter()
                .any(|o| o.value.as_ref().is_some_and(|v| !v.known))
        {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{base} has an option value that is not statically known"),
            )?;
        }
        let chdir = p.value(spec.chdir).cloned();
        let operands: Vec<Arg> = p.operands.into_iter().skip(spec.skip).collect();
        if base == "flock" {
            // `flock FILE -c COMMAND`.
            if let (Some(flag), Some(command)) = (operands.first(), operands.get(1))
                && (flag.is("-c") || flag.is("--command"))
            {
                return self.script_args(
                    "flock -c",
                    std::slice::from_ref(command),
                    shell,
                    frame,
                    false,
                );
            }
        }
        match chdir {
            Some(dir) => self.rewrap_in(base, &dir, operands, stdin, shell, frame)?,
            None => self.rewrap(base, operands, stdin, shell, frame)?,
        }
        Continue(())
    }

    /// Runs `args` as a command in the directory `dir` (`env -C dir`).
    fn rewrap_in(
        &mut self,
        wrapper: &str,
        dir: &Arg,
        args: Vec<Arg>,
        stdin: Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let mut sub = shell.clone();
        // The wrapper fails without running anything when it cannot change
        // directory, so the directory is certain when it is known.
        sub.cwd = dir.exact().and_then(|d| self.resolve(shell, d));
        self.rewrap(wrapper, args, stdin, &mut sub, frame)
    }

    /// `su`/`runuser`: `-c` runs a script; `runuser -u user cmd` runs a
    /// command; otherwise a shell starts, with the operands after the user
    /// as its arguments, or reading stdin.
    fn su(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "cgGswuC",
                long_values: &[
                    "--command",
                    "--session-command",
                    "--group",
                    "--supp-group",
                    "--shell",
                    "--whitelist-environment",
                    "--user",
                ],
                stop_at_operand: base == "runuser",
            },
        );
        if let Some(script) = p.value(&["-c", "--command", "--session-command"]).cloned() {
            return self.script_args(base, &[script], shell, frame, false);
        }
        if base == "runuser" && p.has(&["-u", "--user"]) {
            return self.rewrap(base, p.operands, stdin, shell, frame);
        }
        let shell_args: Vec<Arg> = p
            .operands
            .iter()
            .skip_while(|a| a.is("-"))
            .skip(1)
            .cloned()
            .collect();
        self.shell_payload("sh", &shell_args, &stdin, shell, frame)
    }

    /// `trap [--] action signal...`: the action runs in this shell (DEBUG
    /// before every command, EXIT at the end), so its assignments and `cd`s
    /// may apply to any later command.
    fn trap(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let rest = match args.first().and_then(Arg::exact) {
            Some("--") => &args[1..],
            Some("-p" | "-l" | "-P") => return Continue(()),
            _ => args,
        };
        let Some(action) = rest.first() else {
            return Continue(());
        };
        if rest.len() == 1 && action.exact().is_some_and(|t| t.parse::<u32>().is_ok()) {
            // `trap 2`: resets the signal.
            return Continue(());
        }
        if action.is("-") || action.is("") {
            return Continue(());
        }
        match action.exact() {
            Some(text) if action.known => {
                let inner = frame.nested("inside trap").conditional();
                self.run_script(text, shell, &inner)?;
            }
            // `trap "kill $PID" EXIT`: the text is known but for variables whose values hold
            // no code (numbers, literal loop words); it is walked with them unknown.
            _ if !action.glob && code_free_template(&action.text, shell) => {
                let inner = frame.nested("inside trap").conditional();
                self.run_script(&action.text, shell, &inner)?;
            }
            _ => self.fail_closed(
                frame,
                RuleId::NotStatic,
                "trap runs an action that is not statically known",
            )?,
        }
        Continue(())
    }

    /// A variable name a builtin assigns (`read NAME`, `printf -v NAME`):
    /// its value becomes unknown; a subscript in it is evaluated as
    /// arithmetic (`read 'a[$(cmd)]'` runs `cmd`).
    pub(super) fn assigned_name(&mut self, arg: &Arg, shell: &mut Shell, frame: &Frame) -> Judged {
        let Some(text) = arg.known.then_some(arg.text.as_str()) else {
            shell.vars_untrusted = true;
            return Continue(());
        };
        let base = match text.split_once('[') {
            Some((base, rest)) => {
                self.arithmetic(rest.trim_end_matches(']'), shell, frame)?;
                base
            }
            None => text,
        };
        if !base.is_empty() && !base.starts_with('-') {
            self.set_var(shell, frame, base, None)?;
        }
        Continue(())
    }

    /// `python3 /dev/stdin`, `node /dev/fd/3 3<<<...`: a program file that
    /// is really a descriptor becomes `-` with that descriptor as stdin, so
    /// the interpreter rules judge the text (or fail closed on it).
    fn descriptor_operand(
        &self,
        mut args: Vec<Arg>,
        stdin: Stdin,
        shell: &Shell,
    ) -> (Vec<Arg>, Stdin) {
        let Some(at) = args.iter().position(|a| {
            a.exact()
                .is_some_and(|t| t != "-" && descriptor_path(t).is_some())
        }) else {
            return (args, stdin);
        };
        let fd = args[at].exact().and_then(descriptor_path).unwrap_or(-1);
        let held = match fd {
            0 => stdin,
            n => self.fd_source(shell, n).unwrap_or(Stdin::Unknown),
        };
        args[at] = Arg::lit("-");
        (args, held)
    }

    /// Dispatches `args` as a command of its own, found via `wrapper`.
    fn rewrap(
        &mut self,
        wrapper: &str,
        args: Vec<Arg>,
        stdin: Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if args.is_empty() {
            return Continue(());
        }
        if frame.wrappers >= super::MAX_WRAPPERS {
            return self.deny(
                frame,
                RuleId::TooDeep,
                format!(
                    "more than {} wrapper commands in a row",
                    super::MAX_WRAPPERS
                ),
            );
        }
        let inner = Frame {
            wrappers: frame.wrappers + 1,
            origin: if frame.depth == 0 {
                format!("via {wrapper}")
            } else {
                format!("{} > via {wrapper}", frame.origin)
            },
            ..frame.clone()
        };
        self.dispatch(Cmd { argv: args, stdin }, shell, &inner)
    }

    /// Walks the joined `args` as a script in a copy of the shell.
    pub(crate) fn script_args(
        &mut self,
        origin: &str,
        args: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
        lenient: bool,
    ) -> Judged {
        match join_known(args) {
            Some(text) => {
                let mut sub = shell.clone();
                let mut inner = frame.nested(&format!("inside {origin}"));
                inner.lenient = inner.lenient || lenient;
                self.run_script(&text, &mut sub, &inner)?;
            }
            None => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{origin} runs a script that is not statically known"),
            )?,
        }
        Continue(())
    }

    fn sudo(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "ughprtCDTUa",
                long_values: &[
                    "--user",
                    "--group",
                    "--host",
                    "--prompt",
                    "--role",
                    "--type",
                    "--close-from",
                    "--chdir",
                    "--command-timeout",
                    "--other-user",
                ],
                stop_at_operand: true,
            },
        );
        let operands: Vec<Arg> = p
            .operands
            .iter()
            .skip_while(|a| a.exact().is_some_and(is_assignment))
            .cloned()
            .collect();
        if p.has(&["-e", "--edit"]) {
            for file in &operands {
                self.check_write(file, WriteMode::Modify, shell, frame, "sudoedit")?;
            }
            return Continue(());
        }
        if p.has(&["-s", "--shell", "-i", "--login"]) {
            if operands.is_empty() {
                // A shell reading stdin.
                self.stdin_script(base, &stdin, shell, frame)?;
            } else {
                self.script_args(base, &operands, shell, frame, false)?;
            }
            return Continue(());
        }
        // Without `-u` (or as root), installers change the system's packages.
        let as_root = p
            .value(&["-u", "--user"])
            .is_none_or(|u| u.exact().is_some_and(|u| u == "root" || u == "#0"));
        if as_root && let Some((program, rest)) = operands.split_first() {
            self.effects_as_root(&program.text, rest, frame)?;
        }
        match p.value(&["-D", "--chdir"]).cloned() {
            Some(dir) => self.rewrap_in(base, &dir, operands, stdin, shell, frame)?,
            None => self.rewrap(base, operands, stdin, shell, frame)?,
        }
        Continue(())
    }

    fn env(&mut self, args: &[Arg], stdin: Stdin, shell: &mut Shell, frame: &Frame) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "uCSP",
                long_values: &["--unset", "--chdir", "--split-string", "--path"],
                stop_at_operand: true,
            },
        );
        // env takes every leading `NAME=VALUE` (any NAME) as an assignment.
        let mut operands: Vec<Arg> = Vec::new();
        let mut assigning = true;
        let mut assigned: Vec<(String, Option<String>)> = Vec::new();
        for arg in &p.operands {
            if assigning {
                if !arg.known {
                    return self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("env argument `{}` is not statically known", arg.text),
                    );
                }
                if arg.is("-") {
                    // `env -` is `env -i`: the environment is emptied, the rest is the command.
                    continue;
                }
                if let Some((name, value)) = arg.text.split_once('=') {
                    if name.starts_with("BASH_FUNC_") || name.contains('%') {
                        return self.fail_closed(
                            frame,
                            RuleId::NotStatic,
                            format!("env `{name}=...` exports a shell function that a child bash imports"),
                        );
                    }
                    self.check_code_var(frame, name, Some(value))?;
                    assigned.push((name.to_owned(), Some(value.to_owned())));
                    continue;
                }
                assigning = false;
            }
            operands.push(arg.clone());
        }
        if let Some(split) = p.value(&["-S", "--split-string"]).cloned() {
            // `env -S "cmd args"` splits its string by its own rules: `\_`
            // is a space, `${VAR}` expands. Only plain text is followed.
            let text = split.exact().map(|t| t.replace("\\_", " "));
            match text.filter(|t| !t.contains(['\\', '$'])) {
                Some(text) => {
                    let mut all = vec![Arg::lit(text)];
                    all.extend(operands.iter().map(|a| Arg::lit(words::quote(a))));
                    self.script_args("env -S", &all, shell, frame, false)?;
                }
                None => self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    "env -S splits a string with escapes or variables the guard does not model",
                )?,
            }
            return Continue(());
        }
        // The command (and what it runs) sees the assignments (git reads GIT_EDITOR, ...).
        let env_len = shell.env.len();
        shell.env.extend(assigned);
        match p.value(&["-C", "--chdir"]).cloned() {
            Some(dir) => self.rewrap_in("env", &dir, operands, stdin, shell, frame)?,
            None => self.rewrap("env", operands, stdin, shell, frame)?,
        }
        shell.env.truncate(env_len);
        Continue(())
    }

    /// `chroot [options] NEWROOT [command...]`: under the root `/` the command runs as written
    /// (in `/` unless `--skip-chdir`); under any other root its paths name other files than
    /// they seem to, so a command there is denied. Without a command it runs an interactive
    /// shell, which reads stdin.
    fn chroot(&mut self, args: &[Arg], stdin: Stdin, shell: &mut Shell, frame: &Frame) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "",
                long_values: &["--userspec", "--groups"],
                stop_at_operand: true,
            },
        );
        let Some(root) = p.operands.first() else {
            return Continue(());
        };
        let operands: Vec<Arg> = p.operands[1..].to_vec();
        let resolved = root.exact().and_then(|r| self.resolve(shell, r));
        if resolved.as_deref() != Some("/") {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "chroot `{}` runs a command under another root directory; the guard cannot tell which files its paths name",
                    root.text
                ),
            );
        }
        if operands.is_empty() {
            self.stdin_script("chroot", &stdin, shell, frame)?;
        } else if p.has(&["--skip-chdir"]) {
            self.rewrap("chroot", operands, stdin, shell, frame)?;
        } else {
            self.rewrap_in("chroot", &Arg::lit("/"), operands, stdin, shell, frame)?;
        }
        Continue(())
    }

    /// `bash -c`, `bash script`, `bash` reading stdin.
    fn shell_payload(
        &mut self,
        name: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let opts = shell_options(args);
        if opts.command {
            match opts.operands.first() {
                Some(script) => {
                    // The script inherits the shell's stdin (`bash -c 'bash' <<< ...`).
                    match script.exact() {
                        Some(text) if script.known => {
                            let mut sub = shell.clone();
                            let inner = frame
                                .nested(&format!("inside {name} -c"))
                                .with_stdin(stdin.clone());
                            self.run_script(text, &mut sub, &inner)?;
                        }
                        _ => self.script_args(
                            &format!("{name} -c"),
                            std::slice::from_ref(script),
                            shell,
                            frame,
                            false,
                        )?,
                    }
                }
                None => self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("{name} -c without a script"),
                )?,
            }
            return Continue(());
        }
        if opts.stdin {
            // `bash -s args`: the script is stdin, the operands are `$1...`.
            return self.stdin_script(name, stdin, shell, frame);
        }
        if let Some(script) = opts.operands.first() {
            return self.script_operand(name, script, stdin, shell, frame);
        }
        self.stdin_script(name, stdin, shell, frame)
    }

    /// A script named by path (`bash FILE`, `source FILE`): opaque, unless
    /// the path is the shell's stdin or a descriptor this line opened
    /// (`/dev/stdin`, `/dev/fd/3` with `3<<<...`).
    pub(super) fn script_operand(
        &mut self,
        name: &str,
        script: &Arg,
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let Some(text) = script.exact() else {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "{name} runs a script `{}` that is not statically known",
                    script.text
                ),
            );
        };
        match descriptor_path(text) {
            Some(0) => self.stdin_script(name, stdin, shell, frame)?,
            Some(fd) => match self.fd_source(shell, fd) {
                Some(held) => self.stdin_script(name, &held, shell, frame)?,
                None => self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("{name} runs a script from file descriptor {fd}, whose content is not statically known"),
                )?,
            },
            // A named script file is walked when the context's reader can read it, and is
            // opaque otherwise.
            None => {
                self.script_file(name, script, stdin, shell, frame)?;
            }
        }
        Continue(())
    }

    /// A shell reading its script from stdin.
    pub(super) fn stdin_script(
        &mut self,
        name: &str,
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match stdin {
            Stdin::Text(text) => {
                let mut sub = shell.clone();
                let inner = frame.nested(&format!("inside {name} <<here-document"));
                self.run_script(text, &mut sub, &inner)?;
            }
            Stdin::Pipe => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{name} reads a script from a pipe; its content is not statically known"),
            )?,
            Stdin::Unknown => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "{name} reads a script from its standard input, whose content is not statically known"
                ),
            )?,
            // `bash < x.sh`, `cat x.sh | bash`: the script is that file, walked when it can be
            // read (opaque otherwise, as `bash x.sh` is). A file the guard cannot name (a shell
            // inside `bash -c` or a group given the file) fails closed.
            Stdin::File => match self.cmd_stdin_file.clone() {
                Some(path) => {
                    self.script_file(name, &Arg::lit(path), &Stdin::File, shell, frame)?;
                }
                None => self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "{name} reads a script from a file its caller opened, which the guard cannot name"
                    ),
                )?,
            },
            Stdin::Inherited => {}
        }
        Continue(())
    }

    fn cd(&mut self, base: &str, args: &[Arg], shell: &mut Shell, frame: &Frame) {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "",
                long_values: &[],
                stop_at_operand: false,
            },
        );
        let operand = p.operands.first();
        let target = if base == "popd" {
            None
        } else {
            match operand {
                None if base == "cd" => self.anchors.home.clone(),
                None => None,
                Some(arg) => arg
                    .exact()
                    .filter(|t| *t != "-" && !t.starts_with(['+', '-']))
                    .and_then(|t| self.resolve(shell, t)),
            }
        };
        // With CDPATH a relative `cd name` may go elsewhere.
        let relative_name = operand
            .and_then(Arg::exact)
            .is_some_and(|t| !t.starts_with(['/', '.', '~']));
        let plain = !(self.cdpath_mentioned() && relative_name);
        self.change_dir(shell, frame, target, plain);
    }

    fn xargs(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let p = xargs_options(args);
        let replace = p.replace;
        let mut argv = p.operands;
        if argv.is_empty() {
            argv.push(Arg::lit("echo"));
        }
        if p.unknown {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                "xargs has an option that is not statically known",
            )?;
        }
        match &replace {
            Some(token) => {
                for arg in argv.iter_mut() {
                    if arg.text.contains(token.as_str()) {
                        *arg = Arg::unknown(arg.text.clone());
                    }
                }
            }
            None => argv.push(Arg::unknown("<xargs input>")),
        }
        self.rewrap("xargs", argv, Stdin::Inherited, shell, frame)
    }

    fn parallel(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let split = args
            .iter()
            .position(|a| a.exact().is_some_and(|t| t.starts_with(":::")))
            .unwrap_or(args.len());
        let p = rules::parse(
            &args[..split],
            &Spec {
                short_values: "jSNnLdIaC",
                long_values: &[
                    "--jobs",
                    "--sshlogin",
                    "--joblog",
                    "--max-args",
                    "--delay",
                    "--timeout",
                    "--results",
                    "--tmpdir",
                    "--arg-file",
                    "--colsep",
                    "--delimiter",
                    "--workdir",
                    "--retries",
                ],
                stop_at_operand: true,
            },
        );
        let values: Vec<Arg> = if split < args.len() {
            args[split..]
                .iter()
                .filter(|a| !a.exact().is_some_and(|t| t.starts_with(":::")))
                .cloned()
                .collect()
        } else {
            vec![Arg::unknown("<parallel input>")]
        };
        // parallel runs its command line through a shell, with each value
        // put in place of `{}` or appended.
        for value in values.iter().take(64) {
            let template = match join_known(&p.operands) {
                Some(t) => t,
                None => {
                    return self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "parallel runs a command that is not statically known",
                    );
                }
            };
            let quoted = words::quote(value);
            let text = if template.is_empty() {
                match value.exact() {
                    Some(v) => v.to_owned(),
                    None => {
                        return self.fail_closed(
                            frame,
                            RuleId::NotStatic,
                            "parallel runs commands read from its input",
                        );
                    }
                }
            } else if template.contains("{}") {
                template.replace("{}", &quoted)
            } else {
                format!("{template} {quoted}")
            };
            self.script_args("parallel", &[Arg::lit(text)], shell, frame, false)?;
        }
        Continue(())
    }

    fn find(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let roots: Vec<Arg> = args
            .iter()
            .take_while(|a| !a.text.starts_with('-') && a.text != "(" && a.text != "!")
            .cloned()
            .collect();
        let mut index = roots.len();
        while index < args.len() {
            let token = args[index].text.as_str();
            index += 1;
            match token {
                "-delete" => {
                    let roots_ok = (!roots.is_empty()
                        && roots.iter().all(|r| self.in_allowance(shell, r)))
                        || self.find_removes_only_debris(shell, &roots, &args[roots.len()..], None);
                    if !roots_ok {
                        self.deny(
                            frame,
                            RuleId::DestructiveShell,
                            "find -delete removes every file it matches",
                        )?;
                    }
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let start = index;
                    while index < args.len() && !matches!(args[index].text.as_str(), ";" | "+") {
                        index += 1;
                    }
                    let argv: Vec<Arg> = args[start..index.min(args.len())]
                        .iter()
                        .map(|a| {
                            if a.text.contains("{}") {
                                Arg::unknown(a.text.clone())
                            } else {
                                a.clone()
                            }
                        })
                        .collect();
                    index += 1;
                    if self.find_removes_only_debris(
                        shell,
                        &roots,
                        &args[roots.len()..],
                        Some(&argv),
                    ) {
                        continue;
                    }
                    // `-exec rm {}` anywhere else removes what `-delete` would: the same rule
                    // and reason (not "`{}` is not statically known", which names no fix).
                    if rules::fs::find_rm_recursive(&argv).is_some() {
                        self.deny(
                            frame,
                            RuleId::DestructiveShell,
                            format!(
                                "find {token} {} removes every file it matches: allowed only under a temporary directory, a build output or (with pawl's checkpoint) a directory of the repository that `rm -rf` may remove, or for build debris by one name (`find . -name '*.pyc' -delete`)",
                                argv.first().map_or("rm", |a| a.text.as_str())
                            ),
                        )?;
                    }
                    self.rewrap(
                        &format!("find {token}"),
                        argv,
                        Stdin::Inherited,
                        shell,
                        frame,
                    )?;
                }
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    if let Some(file) = args.get(index).cloned() {
                        self.check_write(&file, WriteMode::Clobber, shell, frame, token)?;
                    }
                    index += 1;
                }
                _ => {}
            }
        }
        Continue(())
    }
}

/// Tools whose output is meant for `eval` and only sets environment variables or shell
/// functions: `eval "$(ssh-agent -s)"`, `eval "$(pyenv init -)"`, `eval $(opam env)`.
#[rustfmt::skip]
const EVAL_TOOLS: &[&str] = &[
    "ssh-agent -s", "ssh-agent -c", "ssh-agent", "pyenv init -", "pyenv init - bash", "pyenv init --path",
    "pyenv virtualenv-init -", "rbenv init -", "rbenv init - bash", "nodenv init -", "goenv init -",
    "jenv init -", "direnv export bash", "direnv export zsh", "direnv hook bash", "direnv hook zsh",
    "brew shellenv", "/opt/homebrew/bin/brew shellenv", "/usr/local/bin/brew shellenv",
    "/home/linuxbrew/.linuxbrew/bin/brew shellenv", "opam env", "opam config env", "fnm env",
    "fnm env --use-on-cd", "conda shell.bash hook", "conda shell.zsh hook", "mise activate bash",
    "mise activate zsh", "rtx activate bash", "zoxide init bash", "zoxide init zsh",
    "starship init bash", "starship init zsh", "dircolors", "dircolors -b", "keychain --eval",
    "gpg-agent --daemon", "luarocks path", "luarocks path --bin", "rustup completions bash",
    "dbus-launch --sh-syntax", "minikube docker-env", "minikube podman-env", "ssh-agent -s -t 3600",
];

/// Whether `word` (as written) is exactly `$(tool ...)`, `"$(tool ...)"` or a backquoted
/// tool of [`EVAL_TOOLS`].
fn eval_of_known_tool(word: &str) -> bool {
    let w = word.trim();
    let w = w
        .strip_prefix('"')
        .and_then(|w| w.strip_suffix('"'))
        .unwrap_or(w);
    let inner = w
        .strip_prefix("$(")
        .and_then(|w| w.strip_suffix(')'))
        .or_else(|| w.strip_prefix('`').and_then(|w| w.strip_suffix('`')));
    inner.is_some_and(|i| {
        EVAL_TOOLS.contains(&i.split_whitespace().collect::<Vec<_>>().join(" ").as_str())
    })
}
