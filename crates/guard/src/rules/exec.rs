//! Programs that run commands given in their arguments or their input:
//! awk's `system()`, sed's `e`, editors run with commands, `make --eval`,
//! tar's checkpoint actions, ... . Each either hands the command it can see
//! to the walker, or fails closed when it cannot see it.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::rules::{is_stdin_path, next_arg};
use crate::walk::Judged;
use crate::walk::{Cmd, Frame, Shell, Stdin, Walker};
use crate::words::Arg;

/// Runners that fetch a JavaScript package that is not installed and run it.
const FETCHING_RUNNERS: &[&str] = &[
    "npx", "pnpx", "bunx", "npm exec", "npm x", "pnpm dlx", "yarn dlx", "bun x",
];

/// Runners that fetch a Python package that may not be installed and run it (`uv run` fetches
/// only its `--with` packages: its command comes from the project's environment).
const PYTHON_RUNNERS: &[&str] = &["uvx", "uv tool run", "pipx run", "uv run"];

/// The requirements files a Python project's own packages are read from, besides
/// `pyproject.toml` (the first two also mark the project's directory).
const REQUIREMENTS: &[&str] = &[
    "requirements.txt",
    "requirements-dev.txt",
    "requirements_dev.txt",
    "requirements-test.txt",
    "requirements-tests.txt",
    "requirements-lint.txt",
    "dev-requirements.txt",
    "test-requirements.txt",
];

/// Package managers, runners and package tools (`Family::Package` in `registry.rs`; `bun` is an
/// interpreter whose runner is judged first).
#[rustfmt::skip]
pub(crate) const PACKAGE_TOOLS: &[&str] = &[
    "npm", "pnpm", "yarn", "npx", "pnpx", "bunx", "pipx", "uvx", "virtualenv", "uv", "poetry",
    "pipenv", "hatch", "pdm", "rye", "conda", "mamba", "micromamba", "pixi", "cargo", "cross",
    "go", "shx", "cross-env", "dotenv", "dotenv-cli", "env-cmd", "cross-env-shell",
    "concurrently", "npm-run-all", "run-p", "run-s", "nodemon", "onchange", "chokidar",
    "watchexec", "entr", "trash-cli",
];

impl Walker<'_> {
    /// Judges a package manager, runner or package tool of [`PACKAGE_TOOLS`]: what it runs
    /// (`npx x`, `uv run x`, `npm exec`, package scripts, `cross-env A=1 x`, `concurrently 'a'`).
    /// False when the file rules are still to judge its arguments.
    pub(crate) fn package(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged<bool> {
        if self.runner(base, args, stdin, shell, frame)? {
            return Continue(true);
        }
        match base {
            // Package programs that run the command in their arguments.
            "shx" => self.run_argv("shx", args.to_vec(), stdin, shell, frame)?,
            "cross-env" | "dotenv" | "dotenv-cli" | "env-cmd" => {
                // VAR=value words (and `--` / options) come before the command.
                // With `--`, the command is what follows it.
                let start = match args.iter().position(|a| a.is("--")) {
                    Some(at) => at + 1,
                    None => args
                        .iter()
                        .position(|a| {
                            let assignment =
                                a.known && a.text.contains('=') && !a.text.starts_with('=');
                            !(a.text.starts_with('-') || assignment)
                        })
                        .unwrap_or(args.len()),
                };
                let mut argv = vec![Arg::lit("env")];
                argv.extend(
                    args[..start]
                        .iter()
                        .filter(|a| a.text.contains('=') && !a.text.starts_with('-'))
                        .cloned(),
                );
                argv.extend(args[start..].iter().cloned());
                self.run_argv(base, argv, stdin, shell, frame)?;
            }
            "cross-env-shell" | "concurrently" | "npm-run-all" | "run-p" | "run-s" | "nodemon"
            | "onchange" | "chokidar" | "watchexec" | "entr" => {
                self.package_shell_commands(base, args, stdin, shell, frame)?
            }
            "trash-cli" => self.file_rules("trash", args, shell, frame)?,
            _ => return Continue(false),
        }
        Continue(true)
    }

    /// Walks `text` as a shell script run by `origin`.
    pub(crate) fn walk_shell_text(
        &mut self,
        origin: &str,
        text: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        self.script_args(origin, &[Arg::lit(text)], shell, frame, false)
    }

    /// Walks `text` as a shell script whose standard input is data the guard
    /// cannot see (`print | "sh"` must not run that data as a script).
    pub(crate) fn walk_piped_shell(
        &mut self,
        origin: &str,
        text: &str,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let mut inner = frame.nested(&format!("inside {origin}"));
        inner.stdin = Stdin::Pipe;
        let mut sub = shell.clone();
        self.run_script(text, &mut sub, &inner)
    }

    /// Walks an argument as a shell script run by `origin` (fails closed when
    /// it is not statically known).
    pub(crate) fn walk_shell_arg(
        &mut self,
        origin: &str,
        arg: Option<&Arg>,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match arg {
            Some(arg) => {
                self.script_args(origin, std::slice::from_ref(arg), shell, frame, false)?
            }
            None => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{origin} without its command"),
            )?,
        }
        Continue(())
    }

    /// `awk -f FILE`, `sed -f FILE`: a file is opaque (like `python3 tool.py`); standard input
    /// is the program text when the guard can see it (`what`: "program", "script").
    pub(crate) fn program_file(
        &mut self,
        base: &str,
        what: &str,
        file: Option<&Arg>,
        stdin: &Stdin,
        frame: &Frame,
        programs: &mut Vec<Arg>,
    ) -> Judged {
        let Some(file) = file else {
            return Continue(());
        };
        if !file.known {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "{base} runs a {what} file `{}` that is not statically known",
                    file.text
                ),
            );
        }
        if is_stdin_path(&file.text) {
            match stdin {
                Stdin::Text(text) => programs.push(Arg::lit(text.clone())),
                Stdin::Pipe | Stdin::Unknown => self.fail_closed(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} reads its {what} from a pipe; it is not statically known"),
                )?,
                Stdin::Inherited | Stdin::File => {}
            }
        }
        Continue(())
    }
}

// ------------------------------------------------------------ runners

/// Options of package-manager runners that take a value (the command
/// starts after them).
#[rustfmt::skip]
const RUNNER_VALUES: &[&str] = &[
    "-p", "--package", "--prefix", "-w", "--workspace", "--registry", "--cache", "--userconfig",
    "--filter", "-F", "-C", "--dir", "--cwd", "--with", "--with-editable", "--with-requirements",
    "--python", "--directory", "--project", "--extra", "--group", "--only-group", "--env-file",
    "--index", "--default-index", "--index-url", "--extra-index-url", "--from", "-n", "--name",
    "--prefix", "-e", "--env", "--loglevel", "--reporter", "--isolated-dir", "--python-platform",
    "--no-extra", "--no-group", "--find-links", "-f", "--config-file", "--cache-dir",
    "--refresh-package", "--reinstall-package", "--upgrade-package", "--index-strategy",
    "--keyring-provider", "--resolution", "--prerelease", "--exclude-newer", "--link-mode",
    "--python-preference", "--color", "--allow-insecure-host", "--config-setting", "-P",
    "--no-binary-package", "--only-binary", "--no-build-package", "-s", "--script",
];

/// Subcommands of yarn and pnpm (other words run a script or a package's
/// program of that name).
#[rustfmt::skip]
const PM_BUILTINS: &[&str] = &[
    "add", "install", "i", "remove", "rm", "upgrade", "up", "update", "link", "unlink", "cache",
    "config", "info", "init", "list", "ls", "outdated", "pack", "publish", "why", "workspaces",
    "workspace", "global", "audit", "login", "logout", "version", "versions", "create", "import",
    "set", "plugin", "dedupe", "patch", "patch-commit", "rebuild", "store", "prune", "licenses",
    "owner", "tag", "team", "bin", "help", "dlx", "exec", "x", "run", "run-script", "test", "t",
    "start", "restart", "stop", "env", "setup", "fetch", "root", "pkg", "constraints", "explain",
    "search", "npm", "generate-lock-entry", "autoclean", "check", "policies", "unplug", "doctor",
    "licenses", "server", "deploy", "recursive", "multi", "m", "-r", "about",
];

/// Subcommands of bun (besides the package-manager ones).
const BUN_BUILTINS: &[&str] = &["build", "repl", "upgrade", "completions", "discord", "eval"];

/// Variables whose value is a program cargo or rustc runs.
#[rustfmt::skip]
const CARGO_PROGRAM_VARS: &[&str] = &[
    "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTC", "RUSTDOC", "CARGO_BUILD_RUSTC",
    "CARGO_BUILD_RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", "CARGO_BUILD_RUSTDOC",
    "CARGO_HOME",
];

/// The value `name` has for the command being judged: given to it or
/// assigned earlier in the input. `None`: not set in the input;
/// `Some(None)`: set to text the guard does not know.
fn env_value(shell: &Shell, name: &str) -> Option<Option<String>> {
    shell
        .env
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .or_else(|| {
            shell.vars.get(name).map(|v| {
                if shell.vars_untrusted {
                    None
                } else {
                    v.clone()
                }
            })
        })
}

/// Whether `name` is a variable the exec rules walk as a program.
fn is_program_var(name: &str) -> bool {
    matches!(
        name,
        "CC" | "CXX"
            | "LD"
            | "AR"
            | "CPP"
            | "HOSTCC"
            | "CC_LD"
            | "CXX_LD"
            | "LESSOPEN"
            | "LESSCLOSE"
            | "MANPAGER"
            | "PAGER"
            | "BROWSER"
            | "LESSEDIT"
            | "VISUAL"
            | "EDITOR"
            | "npm_config_editor"
            | "PSQL_PAGER"
            | "SYSTEMD_PAGER"
            | "AWS_PAGER"
    ) || CARGO_PROGRAM_VARS.contains(&name)
        || name.starts_with("CARGO_TARGET_")
}

/// Removes the variables walked as programs from `shell` before walking one
/// of them: the program is not judged again through them, and the work stays
/// bounded however many are set.
fn strip_program_vars(shell: &mut Shell) {
    shell.env.retain(|(n, _)| !is_program_var(n));
    shell.vars.retain(|n, _| !is_program_var(n));
}

/// Every variable given to the command or assigned in the input whose name
/// `matches`.
fn env_matching(shell: &Shell, matches: impl Fn(&str) -> bool) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = shell
        .env
        .iter()
        .filter(|(n, _)| matches(n))
        .cloned()
        .collect();
    for (name, value) in &shell.vars {
        if matches(name) && !out.iter().any(|(n, _)| n == name) {
            out.push((name.clone(), value.clone()));
        }
    }
    out.sort();
    out
}

impl Walker<'_> {
    /// Runs `argv` as the command a runner (`npx`, `uv run`, ...) starts.
    fn run_argv(
        &mut self,
        origin: &str,
        argv: Vec<Arg>,
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if argv.is_empty() {
            return Continue(());
        }
        if frame.wrappers >= crate::walk::MAX_WRAPPERS {
            return self.deny(
                frame,
                RuleId::TooDeep,
                format!(
                    "more than {} wrapper commands in a row",
                    crate::walk::MAX_WRAPPERS
                ),
            );
        }
        let mut inner = frame.nested(&format!("via {origin}"));
        inner.wrappers = frame.wrappers + 1;
        inner.stdin = stdin.clone();
        let mut sub = shell.clone();
        self.dispatch(
            Cmd {
                argv,
                stdin: stdin.clone(),
            },
            &mut sub,
            &inner,
        )
    }

    /// Walks a program named by a variable or an option (`RUSTC_WRAPPER`,
    /// `go test -exec`), with `extra` appended as its arguments.
    fn walk_program(
        &mut self,
        origin: &str,
        value: Option<&str>,
        extra: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match value {
            Some(text) if !text.trim().is_empty() => {
                // The program is not judged again through the variables
                // (bounded work when many of them are set).
                let mut sub = shell.clone();
                strip_program_vars(&mut sub);
                self.walk_shell_text(origin, &format!("{text} {extra}"), &mut sub, frame)?;
            }
            Some(_) => {}
            None => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{origin} names a program that is not statically known"),
            )?,
        }
        Continue(())
    }

    /// Variables that make any command run another program: `LESSOPEN` /
    /// `LESSCLOSE` (less, and every tool that pages through it), man's and
    /// pydoc's pager.
    pub(crate) fn env_programs(&mut self, base: &str, shell: &mut Shell, frame: &Frame) -> Judged {
        // Compilers and tools named by variables that build tools (cargo's
        // cc crate, cgo, make, node-gyp, pip) run.
        for name in ["CC", "CXX", "LD", "AR", "CPP", "HOSTCC", "CC_LD", "CXX_LD"] {
            if let Some(value) = env_value(shell, name) {
                self.walk_program(name, value.as_deref(), "", shell, frame)?;
            }
        }
        for name in ["LESSOPEN", "LESSCLOSE"] {
            if let Some(value) = env_value(shell, name) {
                let command = value.map(|v| {
                    v.trim_start()
                        .trim_start_matches(['|', '-'])
                        .replace("%s", "file")
                });
                self.walk_program(name, command.as_deref(), "", shell, frame)?;
            }
        }
        let pagers: &[&str] = match base {
            "man" => &["MANPAGER", "PAGER", "BROWSER", "MANROFFOPT"],
            "pydoc" | "pydoc3" => &["MANPAGER", "PAGER"],
            _ if base.starts_with("python") || base.starts_with("pydoc") => &["MANPAGER", "PAGER"],
            "psql" => &["PSQL_PAGER", "PAGER"],
            "journalctl" | "systemctl" | "loginctl" | "busctl" | "coredumpctl" => {
                &["SYSTEMD_PAGER", "PAGER"]
            }
            "aws" => &["AWS_PAGER", "PAGER"],
            "mysql" | "mariadb" => &["PAGER"],
            "less" | "more" => &["LESSEDIT", "VISUAL", "EDITOR"],
            _ => &[],
        };
        for name in pagers {
            if let Some(value) = env_value(shell, name) {
                if *name == "MANROFFOPT" {
                    continue;
                }
                match value {
                    Some(v) => {
                        let mut sub = shell.clone();
                        strip_program_vars(&mut sub);
                        self.walk_piped_shell(name, &v, &sub, frame)?
                    }
                    None => self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("{base} runs `{name}`, which is not statically known"),
                    )?,
                }
            }
        }
        Continue(())
    }

    /// Package-manager and toolchain runners: the command they start is
    /// walked as a command (`uv run pytest` is pytest, `npx -c 'rm -rf src'`
    /// is a shell script). `true` when it handled `base` completely.
    pub(crate) fn runner(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged<bool> {
        let sub = args.first().and_then(Arg::exact);
        match base {
            "npm" | "pnpm" | "yarn" | "bun" => {
                self.npm_family(base, args, stdin, shell, frame)?;
                // `npm test`, `npm install`: the file rules have nothing to add.
                return Continue(matches!(sub, Some("exec" | "x" | "dlx")));
            }
            "npx" | "pnpx" | "bunx" => self.exec_after_options(base, args, stdin, shell, frame)?,
            "pipx" if matches!(sub, Some("run")) => {
                self.exec_after_options("pipx run", &args[1..], stdin, shell, frame)?
            }
            "uvx" => self.exec_after_options(base, args, stdin, shell, frame)?,
            "virtualenv" => self.venv_dirs(
                base,
                args,
                args.iter().any(|a| a.is("--clear")),
                shell,
                frame,
            )?,
            // `uv venv DIR` replaces what is at DIR.
            "uv" if matches!(sub, Some("venv")) => {
                self.venv_dirs("uv venv", &args[1..], true, shell, frame)?
            }
            "uv" if matches!(sub, Some("run")) => {
                self.exec_after_options("uv run", &args[1..], stdin, shell, frame)?
            }
            "uv" if matches!(sub, Some("tool")) && args.get(1).is_some_and(|a| a.is("run")) => {
                self.exec_after_options("uv tool run", &args[2..], stdin, shell, frame)?
            }
            "poetry" | "pipenv" | "hatch" | "pdm" | "rye" | "conda" | "mamba" | "micromamba"
            | "pixi"
                if matches!(sub, Some("run")) =>
            {
                self.exec_after_options(&format!("{base} run"), &args[1..], stdin, shell, frame)?;
            }
            "cargo" | "cross" => {
                self.cargo(base, args, shell, frame)?;
                return Continue(false);
            }
            "go" => {
                self.go(args, shell, frame)?;
                return Continue(false);
            }
            _ => return Continue(false),
        }
        Continue(true)
    }

    /// Programs whose arguments are shell command lines (`concurrently
    /// 'a' 'b'`, `nodemon --exec 'cmd'`, `cross-env-shell 'cmd'`), or
    /// package scripts (`npm-run-all x`): each operand and each `--exec`
    /// value is walked as a shell script (script names are harmless words).
    fn package_shell_commands(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let mut index = 0;
        while let Some(arg) = args.get(index) {
            index += 1;
            let text = arg.text.as_str();
            if text == "--" {
                // watchexec/entr/chokidar: the rest is one command.
                let rest = args[index..].to_vec();
                return self.run_argv(base, rest, stdin, shell, frame);
            }
            let operands_are_commands = matches!(base, "concurrently" | "cross-env-shell");
            let value =
                if let Some((name, v)) = text.split_once('=').filter(|_| text.starts_with("--")) {
                    matches!(name, "--exec" | "--command" | "--shell").then(|| Arg {
                        text: v.to_owned(),
                        ..arg.clone()
                    })
                } else if matches!(
                    text,
                    "--exec" | "-x" | "-c" | "--command" | "--shell" | "-s"
                ) {
                    next_arg(args, &mut index)
                } else if text.starts_with('-') {
                    if !arg.known {
                        return self.fail_closed(
                            frame,
                            RuleId::NotStatic,
                            format!("{base} option `{text}` is not statically known"),
                        );
                    }
                    None
                } else if ["npm:", "yarn:", "pnpm:", "bun:"]
                    .iter()
                    .any(|p| arg.known && text.starts_with(p))
                {
                    // concurrently's `npm:watch-*`: package scripts by name.
                    None
                } else if operands_are_commands || matches!(base, "entr" | "watchexec") {
                    Some(arg.clone())
                } else {
                    // A file or a script name (`nodemon src/index.js`, `run-p build`).
                    None
                };
            if let Some(value) = value {
                if matches!(base, "entr" | "watchexec") && !text.starts_with('-') {
                    // `entr CMD ARGS`: the rest is one command.
                    return self.run_argv(base, args[index - 1..].to_vec(), stdin, shell, frame);
                }
                self.script_args(base, std::slice::from_ref(&value), shell, frame, false)?;
            }
        }
        Continue(())
    }

    /// A virtualenv created over `args`' directories: with `clears`, each
    /// must be a build output, virtualenv, /tmp or $TMPDIR.
    fn venv_dirs(
        &mut self,
        origin: &str,
        args: &[Arg],
        clears: bool,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if !clears {
            return Continue(());
        }
        #[rustfmt::skip]
        const VALUES: &[&str] = &[
            "-p", "--python", "--prompt", "--seed", "--index-url", "--extra-index-url", "--index",
            "--default-index", "--link-mode", "--activators", "--creator", "--discovery",
            "--app-data", "--cache-dir", "--directory", "--project", "--python-preference",
            "--exclude-newer", "--index-strategy", "--keyring-provider", "--allow-insecure-host",
            "-f", "--find-links", "--config-file", "--extra-search-dir", "--pip", "--setuptools",
            "--wheel",
        ];
        let mut index = 0;
        while let Some(arg) = args.get(index) {
            index += 1;
            if arg.text.starts_with('-') {
                if !arg.text.contains('=') && VALUES.contains(&arg.text.as_str()) {
                    index += 1;
                }
                continue;
            }
            if !self.in_allowance(shell, arg) {
                return self.deny(
                    frame,
                    RuleId::RecursiveDelete,
                    format!(
                        "{origin} replaces `{}`, which is not a build output, virtualenv, /tmp or $TMPDIR",
                        arg.text
                    ),
                );
            }
        }
        Continue(())
    }

    /// `npx [opts] CMD ARGS`, `npm exec [opts] [--] CMD ARGS`, `-c CMD`:
    /// the command after the options.
    fn exec_after_options(
        &mut self,
        origin: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let python = PYTHON_RUNNERS.contains(&origin);
        // `uvx --from PKG CMD`, `pipx run --spec PKG CMD`: the package fetched is PKG.
        let mut from_given = false;
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            let Some(text) = arg.exact() else {
                if arg.text.starts_with('-') {
                    return self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!(
                            "{origin} has an option `{}` that is not statically known",
                            arg.text
                        ),
                    );
                }
                // The command itself is not known: the walker fails closed on it.
                return self.run_argv(origin, args[index - 1..].to_vec(), stdin, shell, frame);
            };
            if text == "--" {
                if FETCHING_RUNNERS.contains(&origin)
                    && let Some(spec) = args.get(index).and_then(Arg::exact)
                {
                    self.own_package(origin, spec, &package_program(spec), shell, frame)?;
                }
                let argv = args[index..].to_vec();
                return self.run_argv(origin, argv, stdin, shell, frame);
            }
            let (name, inline) = match text.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v)),
                _ => (text, None),
            };
            if matches!(name, "-c" | "--call" | "--shell-mode")
                || (name.starts_with("--c") && "--call".starts_with(name) && name.len() > 3)
            {
                // The rest is a shell command line.
                let mut words: Vec<Arg> = inline.map(Arg::lit).into_iter().collect();
                if name == "--shell-mode" || origin.starts_with("pnpm") {
                    words.extend(args[index..].iter().cloned());
                } else if words.is_empty() {
                    words.extend(args.get(index).cloned());
                }
                if words.is_empty() {
                    return Continue(());
                }
                return self.script_args(origin, &words, shell, frame, false);
            }
            if name.starts_with('-') {
                if name == "--script-shell" || name.starts_with("--script-sh") {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{origin} {text} runs scripts with a shell of the caller's choice; the guard does not model it"),
                    );
                }
                if origin.starts_with("uv") && matches!(name, "-m" | "--module") {
                    // `uv run -m MODULE ARGS` is `python -m MODULE ARGS`.
                    let mut argv = vec![Arg::lit("python3"), Arg::lit("-m")];
                    argv.extend(inline.map(Arg::lit));
                    argv.extend(args[index..].iter().cloned());
                    return self.run_argv(origin, argv, stdin, shell, frame);
                }
                if python
                    && matches!(name, "--with" | "-w" | "--from" | "--spec")
                    && let Some(value) = inline.map(Arg::lit).or_else(|| args.get(index).cloned())
                {
                    from_given |= matches!(name, "--from" | "--spec");
                    for spec in value.text.split(',') {
                        self.own_python_package(origin, spec, value.known, None, shell, frame)?;
                    }
                }
                // `npx -p pkg cmd`: the package fetched is `pkg`.
                if FETCHING_RUNNERS.contains(&origin)
                    && matches!(name, "-p" | "--package")
                    && let Some(spec) = inline.or_else(|| args.get(index).and_then(Arg::exact))
                {
                    self.own_package(origin, spec, &package_program(spec), shell, frame)?;
                }
                if inline.is_none() && RUNNER_VALUES.contains(&name) {
                    // Whether this program takes a value here is not always
                    // certain (`pnpm -w` is a flag): the word after it is
                    // also judged as the command.
                    if let Some(next) = args.get(index)
                        && next.known
                        && !next.text.starts_with('-')
                    {
                        self.run_argv(origin, args[index..].to_vec(), stdin, shell, frame)?;
                    }
                    index += 1;
                }
                continue;
            }
            let mut argv = args[index - 1..].to_vec();
            // `npm exec node -- -e CODE` runs `node -e CODE`: npm takes the `--`.
            if ["npm", "npx", "pnpm", "pnpx", "yarn", "bun"]
                .iter()
                .any(|m| origin.starts_with(m))
                && let Some(at) = argv.iter().position(|a| a.is("--"))
            {
                argv.remove(at);
            }
            // `npx rimraf@5 dist`, `npx @scope/tool`: the package's program.
            let program = package_program(text);
            if FETCHING_RUNNERS.contains(&origin) {
                self.own_package(origin, text, &program, shell, frame)?;
            }
            if python && origin != "uv run" && !from_given {
                self.own_python_package(origin, text, true, Some(&program), shell, frame)?;
            }
            argv[0] = Arg::lit(program);
            if text.ends_with(".py") {
                argv.insert(0, Arg::lit("python3"));
            }
            return self.run_argv(origin, argv, stdin, shell, frame);
        }
        Continue(())
    }

    /// A JavaScript runner ([`FETCHING_RUNNERS`]) runs `spec`: when the guard can read the
    /// project's `package.json`, a package the project neither depends on nor has installed
    /// (`node_modules/.bin/PROGRAM`) is fetched and run, code the guard never saw (rule
    /// `shell-escape`). Without a readable `package.json` the command is judged as the
    /// program it names.
    fn own_package(
        &mut self,
        origin: &str,
        spec: &str,
        program: &str,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let Some(cwd) = shell.cwd.clone() else {
            return Continue(());
        };
        let Some((dir, json)) = self.nearest_package_json(&cwd, frame)? else {
            return Continue(());
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&json) else {
            return Continue(());
        };
        let name = package_name(spec);
        let depends = value.get("name").and_then(|n| n.as_str()) == Some(name)
            || [
                "dependencies",
                "devDependencies",
                "optionalDependencies",
                "peerDependencies",
            ]
            .iter()
            .any(|field| value.get(field).and_then(|d| d.get(name)).is_some());
        let bin = format!("{}/node_modules/.bin/{program}", dir.trim_end_matches('/'));
        if depends || matches!(self.read_file(&bin), Ok(Some(_))) {
            return Continue(());
        }
        self.deny(
            frame,
            RuleId::ShellEscape,
            format!("`{origin} {spec}` fetches and runs `{name}`, a package the project does not depend on: code the guard never saw (add it to package.json, or ask the user to run it)"),
        )
    }

    /// A Python runner ([`PYTHON_RUNNERS`]) fetches `spec` (`program`: the program it runs
    /// from it): when the guard can read the project's `pyproject.toml` or requirements file, a
    /// package the project names nowhere there, and whose program is not in its `.venv`, is
    /// fetched and run, code the guard never saw (rule `shell-escape`; a spec it cannot know,
    /// `not-static`). A local path is the project's own. Without a readable project file the
    /// command is judged as the program it names.
    fn own_python_package(
        &mut self,
        origin: &str,
        spec: &str,
        known: bool,
        program: Option<&str>,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let Some(cwd) = shell.cwd.clone() else {
            return Continue(());
        };
        let Some((dir, names)) = self.python_project(&cwd, frame)? else {
            return Continue(());
        };
        if !known {
            return self.deny(
                frame,
                RuleId::NotStatic,
                format!("`{origin}` runs a package `{spec}` that is not statically known"),
            );
        }
        let spec = spec.trim();
        let name = requirement_name(spec);
        let venv_bin = program.map(|p| format!("{}/.venv/bin/{p}", dir.trim_end_matches('/')));
        if spec.starts_with(['.', '/'])
            || name.is_some_and(|n| names.contains(&n))
            || venv_bin.is_some_and(|bin| matches!(self.read_file(&bin), Ok(Some(_))))
        {
            return Continue(());
        }
        self.deny(
            frame,
            RuleId::ShellEscape,
            format!("`{origin}` fetches and runs `{spec}`, a package the project does not depend on: code the guard never saw (add it to pyproject.toml, or ask the user to run it)"),
        )
    }

    /// The nearest Python project at or above `start` the guard can read: its directory and
    /// the normalised names of its own packages ([`python_packages`] of its `pyproject.toml`,
    /// the names in its [`REQUIREMENTS`] files). `None` when there is none, or its
    /// `pyproject.toml` does not parse.
    fn python_project(
        &mut self,
        start: &str,
        frame: &Frame,
    ) -> Judged<Option<(String, Vec<String>)>> {
        let found = self.nearest_file(start, &["pyproject.toml", REQUIREMENTS[0]], frame)?;
        let Some((dir, file, text)) = found else {
            return Continue(None);
        };
        let mut names = Vec::new();
        if file == "pyproject.toml" {
            let Ok(table) = text.parse::<toml::Table>() else {
                return Continue(None);
            };
            names = python_packages(&table);
        }
        for file in REQUIREMENTS {
            let path = format!("{}/{file}", dir.trim_end_matches('/'));
            if let Ok(Some(text)) = self.read_file(&path) {
                names.extend(text.lines().filter_map(|line| {
                    let line = line.split('#').next().unwrap_or("").trim();
                    (!line.starts_with('-'))
                        .then(|| requirement_name(line))
                        .flatten()
                }));
            }
        }
        Continue(Some((dir, names)))
    }

    /// npm, pnpm, yarn and bun subcommands that run commands or plant code.
    fn npm_family(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        // npm reads its settings from `npm_config_*` variables too.
        let programs = env_matching(shell, |n| {
            let lower = n.to_ascii_lowercase().replace('-', "_");
            lower.strip_prefix("npm_config_").is_some_and(|key| {
                matches!(
                    key,
                    "script_shell"
                        | "call"
                        | "shell"
                        | "editor"
                        | "git"
                        | "node_options"
                        | "onload_script"
                        | "userconfig"
                        | "globalconfig"
                        | "init_module"
                        | "browser"
                        | "viewer"
                )
            })
        });
        if let Some((name, _)) = programs.first() {
            return self.deny(
                frame,
                RuleId::Interpreter,
                format!("`{name}` makes {base} run another program or read settings the guard cannot see; the guard does not model it"),
            );
        }
        // Options npm reads (arguments after `--` go to the script); an
        // option whose name is built at run time may be `--script-shell`.
        if let Some(arg) = args.iter().take_while(|a| !a.is("--")).find(|a| {
            let name = a.text.split('=').next().unwrap_or("");
            (name.len() >= 5 && "--script-shell".starts_with(name))
                || a.text.starts_with("--script-shell")
                || (!a.known
                    && a.text.starts_with('-')
                    && name.contains(['$', '`', '"', '\'', '{', '\\']))
        }) {
            return self.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} `{}` may change the shell that runs scripts; the guard does not model it", arg.text),
            );
        }
        // The subcommand: the first word that is not an option.
        // The subcommand: the first word that is neither an option nor the
        // value of one (`npm --prefix dir exec ...`).
        let mut at = 0;
        while let Some(arg) = args.get(at) {
            if !arg.text.starts_with('-') {
                break;
            }
            if !arg.text.contains('=') && RUNNER_VALUES.contains(&arg.text.as_str()) {
                at += 1;
            }
            at += 1;
        }
        let Some(sub_arg) = args.get(at) else {
            return Continue(());
        };
        if !sub_arg.known {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "{base} subcommand `{}` is not statically known",
                    sub_arg.text
                ),
            );
        }
        let sub = sub_arg.text.as_str();
        let rest = &args[at + 1..];
        // yarn, pnpm and bun run a package's program by its name when no
        // script has it (`yarn rimraf dist`, `pnpm node -e ...`).
        if matches!(base, "yarn" | "pnpm" | "bun")
            && !PM_BUILTINS.contains(&sub)
            && !(base == "bun" && BUN_BUILTINS.contains(&sub))
        {
            let argv: Vec<Arg> = args[at..].to_vec();
            self.run_argv(&format!("{base} {sub}"), argv, stdin, shell, frame)?;
        }
        // `yarn run X`, `pnpm run X`, `bun run X`: a package's program too.
        if matches!(base, "yarn" | "pnpm" | "bun")
            && matches!(sub, "run" | "run-script")
            && let Some(first) = rest.iter().position(|a| !a.text.starts_with('-'))
        {
            let argv: Vec<Arg> = rest[first..].to_vec();
            self.run_argv(&format!("{base} run"), argv, stdin, shell, frame)?;
        }
        match sub {
            // yarn 2+ `exec` runs its arguments as a shell script.
            "exec" if base == "yarn" => {
                let words: Vec<Arg> = rest.iter().skip_while(|a| a.is("--")).cloned().collect();
                if !words.is_empty() {
                    self.script_args("yarn exec", &words, shell, frame, false)?;
                }
            }
            "exec" | "x" | "dlx" => {
                self.exec_after_options(&format!("{base} {sub}"), rest, stdin, shell, frame)?
            }
            // `npm explore PKG -- CMD` runs CMD with a shell in the package.
            "explore" => {
                let words: Vec<Arg> = rest
                    .iter()
                    .skip_while(|a| !a.is("--"))
                    .skip(1)
                    .cloned()
                    .collect();
                if !words.is_empty() {
                    let mut sub = shell.clone();
                    sub.cwd = None;
                    self.script_args(&format!("{base} explore"), &words, &mut sub, frame, false)?;
                }
            }
            "run" | "run-script" | "rum" | "urn"
                if rest
                    .iter()
                    .find(|a| !a.text.starts_with('-'))
                    .is_some_and(|a| a.is("env")) =>
            {
                // The built-in `env` script runs `env ARGS`.
                let after: Vec<Arg> = rest
                    .iter()
                    .skip_while(|a| !a.is("env"))
                    .skip(1)
                    .skip_while(|a| a.is("--"))
                    .cloned()
                    .collect();
                if !after.is_empty() {
                    let mut argv = vec![Arg::lit("env")];
                    argv.extend(after);
                    self.run_argv(&format!("{base} run env"), argv, stdin, shell, frame)?;
                }
            }
            "pkg" if rest.first().is_some_and(|a| a.is("set")) => {
                let json = rest.iter().any(|a| a.is("--json"));
                for arg in rest[1..].iter().filter(|a| !a.text.starts_with('-')) {
                    let key = arg.text.split('=').next().unwrap_or("");
                    if !key.starts_with("scripts") && arg.known {
                        continue;
                    }
                    let script = match (arg.exact(), key.strip_prefix("scripts.")) {
                        (Some(text), Some(name)) if !name.is_empty() => {
                            let value = &text[key.len() + 1..];
                            if json {
                                serde_json::from_str::<serde_json::Value>(value)
                                    .ok()
                                    .and_then(|v| v.as_str().map(str::to_owned))
                            } else {
                                Some(value.to_owned())
                            }
                        }
                        _ => None,
                    };
                    self.planted_script(base, &arg.text, script.as_deref(), shell, frame)?;
                }
            }
            "set-script" => {
                // `npm set-script NAME COMMAND`.
                let operands: Vec<&Arg> =
                    rest.iter().filter(|a| !a.text.starts_with('-')).collect();
                let script = operands.get(1).and_then(|a| a.exact());
                self.planted_script(base, "set-script", script, shell, frame)?;
            }
            "config" | "c" if rest.first().is_some_and(|a| a.is("edit")) => {
                self.npm_editor(base, args, shell, frame)?
            }
            "edit" => self.npm_editor(base, args, shell, frame)?,
            "config" | "c" | "set"
                if rest.iter().any(|a| {
                    let t = a.text.trim_start_matches('-').to_ascii_lowercase();
                    !a.known
                        || [
                            "script-shell",
                            "script_shell",
                            "shell",
                            "editor",
                            "git",
                            "node-options",
                            "onload-script",
                        ]
                        .iter()
                        .any(|k| t.starts_with(k))
                }) =>
            {
                self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} {sub} of a setting that names a program {base} runs later; the guard does not model it"),
                )?;
            }
            _ => {}
        }
        Continue(())
    }

    /// A package.json script set from the command line: `npm run` executes
    /// it later (perhaps in this same command line, before the guard could
    /// read the file again), so it is judged now as the shell script it is.
    fn planted_script(
        &mut self,
        base: &str,
        what: &str,
        script: Option<&str>,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match script {
            Some(text) => {
                let mut sub = shell.clone();
                self.walk_shell_text(&format!("{base} script set by `{what}`"), text, &mut sub, frame)?;
            }
            None => self.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} pkg set `{what}` plants package.json scripts the guard cannot read; a later `{base} run` would execute them"),
            )?,
        }
        Continue(())
    }

    /// `npm config edit` / `npm edit`: the editor runs as a command.
    fn npm_editor(&mut self, base: &str, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let option = args.iter().enumerate().find_map(|(at, a)| {
            if let Some(v) = a.text.strip_prefix("--editor=") {
                Some(if a.known { Some(v.to_owned()) } else { None })
            } else if a.is("--editor") {
                Some(args.get(at + 1).and_then(|v| v.exact().map(str::to_owned)))
            } else {
                None
            }
        });
        let value = option
            .or_else(|| env_value(shell, "npm_config_editor"))
            .or_else(|| env_value(shell, "VISUAL"))
            .or_else(|| env_value(shell, "EDITOR"));
        if let Some(value) = value {
            self.walk_program(
                &format!("{base} editor"),
                value.as_deref(),
                "/tmp/npmrc",
                shell,
                frame,
            )?;
        }
        Continue(())
    }

    /// cargo: `--config` keys and variables that name programs it runs.
    fn cargo(&mut self, base: &str, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            let value = if arg.is("--config") {
                next_arg(args, &mut index)
            } else {
                arg.text.strip_prefix("--config=").map(|v| Arg {
                    text: v.to_owned(),
                    ..arg.clone()
                })
            };
            let Some(value) = value else { continue };
            let text = value.text.to_ascii_lowercase();
            let names_program = !value.known
                || !text.contains('=')
                || text.split('=').next().is_some_and(|key| {
                    let key = key.trim().trim_matches(['\'', '"']);
                    key.ends_with(".ar")
                        || key.starts_with("env.")
                        || key.starts_with("env ")
                        || key == "env"
                        || [
                            "runner",
                            "wrapper",
                            "rustc",
                            "rustdoc",
                            "linker",
                            "credential-provider",
                            "rustflags",
                        ]
                        .iter()
                        .any(|k| key.contains(k))
                });
            if names_program {
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} --config `{}` names a program (or a config file) cargo runs; the guard does not model it", value.text),
                );
            }
        }
        for name in CARGO_PROGRAM_VARS {
            if let Some(value) = env_value(shell, name) {
                if *name == "CARGO_HOME" {
                    // A cargo home holds config.toml with runners and aliases.
                    if value
                        .as_deref()
                        .is_none_or(|v| !v.starts_with('/') && !v.starts_with('~'))
                    {
                        return self.fail_closed(
                            frame,
                            RuleId::NotStatic,
                            "CARGO_HOME names a directory whose config.toml cargo reads; the guard cannot see it",
                        );
                    }
                    continue;
                }
                self.walk_program(name, value.as_deref(), "rustc", shell, frame)?;
            }
        }
        for (name, value) in env_matching(shell, |n| {
            n.starts_with("CARGO_TARGET_")
                && (n.ends_with("_RUNNER") || n.ends_with("_LINKER") || n.ends_with("_RUSTFLAGS"))
                || matches!(
                    n,
                    "RUSTFLAGS"
                        | "CARGO_ENCODED_RUSTFLAGS"
                        | "CARGO_BUILD_RUSTFLAGS"
                        | "RUSTDOCFLAGS"
                )
        }) {
            if name.ends_with("RUSTFLAGS") || name == "RUSTDOCFLAGS" {
                // `-C linker=PROG` runs PROG.
                let runs = value.as_deref().is_none_or(|v| {
                    v.contains("linker") || v.contains("-Z") || v.contains("plugin")
                });
                if runs {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("`{name}` names a program rustc runs (a linker); the guard does not model it"),
                    );
                }
                continue;
            }
            self.walk_program(&name, value.as_deref(), "target/debug/app", shell, frame)?;
        }
        Continue(())
    }

    /// go: `-exec` / `-toolexec` name programs it runs; `GOFLAGS` may hold them.
    fn go(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        // `go env -w KEY=VALUE` persists settings later go commands read.
        if args.first().is_some_and(|a| a.is("env")) && args.iter().any(|a| a.is("-w")) {
            let names_program = args
                .iter()
                .skip(1)
                .filter(|a| !a.text.starts_with('-'))
                .any(|a| {
                    let key = a.text.split('=').next().unwrap_or("");
                    !a.known
                        || key.contains("FLAGS")
                        || matches!(
                            key,
                            "CC" | "CXX"
                                | "AR"
                                | "FC"
                                | "PKG_CONFIG"
                                | "GOTOOLCHAIN"
                                | "GOENV"
                                | "GOROOT"
                                | "GOTOOLDIR"
                        )
                });
            if names_program {
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    "go env -w of a setting that names a program or flags later go commands run with; the guard does not model it",
                );
            }
        }
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            let text = arg.text.trim_start_matches('-');
            let dashes = arg.text.len() - text.len();
            if !(1..=2).contains(&dashes) {
                continue;
            }
            let (name, inline) = match text.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (text, None),
            };
            if !matches!(name, "exec" | "toolexec" | "vettool") {
                continue;
            }
            let value = match inline {
                Some(v) => arg.known.then_some(v),
                None => {
                    index += 1;
                    args.get(index - 1)
                        .and_then(|a| a.exact().map(str::to_owned))
                }
            };
            self.walk_program(
                &format!("go -{name}"),
                value.as_deref(),
                "/tmp/go-build/a.out",
                shell,
                frame,
            )?;
        }
        if let Some(value) = env_value(shell, "GOFLAGS")
            && value.as_deref().is_none_or(|v| v.contains("exec"))
        {
            self.deny(
                frame,
                RuleId::Interpreter,
                "`GOFLAGS` names a program go runs (-exec, -toolexec); the guard does not model it",
            )?;
        }
        Continue(())
    }
}

/// C, C++ and Rust compilers (`gcc-13`, `x86_64-linux-gnu-gcc`, ...).
pub(crate) fn is_compiler(base: &str) -> bool {
    let name = base
        .rsplit('-')
        .find(|p| !p.chars().all(|c| c.is_ascii_digit() || c == '.'));
    matches!(
        name,
        Some("gcc" | "cc" | "g++" | "c++" | "clang" | "clang++" | "tcc" | "rustc" | "cpp")
    ) || base.starts_with("gcc-")
        || base.starts_with("clang-")
}

impl Walker<'_> {
    /// A compiler: its output is a program built from code the guard may not
    /// have seen (standard input, a file this command line wrote): running it
    /// later in the same command line is denied by the write-then-run rule.
    /// `-wrapper`, `-B` and plugins run programs; `tcc -run` runs the code.
    pub(crate) fn compiler(
        &mut self,
        base: &str,
        args: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let mut output: Option<Arg> = None;
        let mut from_unseen = false;
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            let text = arg.text.as_str();
            if !arg.known && text.starts_with('-') {
                return self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("{base} option `{text}` is not statically known"),
                );
            }
            if matches!(text, "-wrapper" | "-B" | "--ld-path" | "-run")
                || text.starts_with("-fplugin")
                || text.starts_with("-B")
                || text.starts_with("--ld-path=")
                || text.starts_with("-fuse-ld=/")
                || text.starts_with("-Clinker")
                || text.starts_with("linker=")
                || text == "-Z"
                || text.starts_with("-Zcodegen-backend")
                || (base.starts_with("tcc") && text.starts_with("-run"))
            {
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} `{text}` runs a program or the code it compiles; the guard does not model it"),
                );
            }
            if text == "-o" {
                output = args.get(index).cloned();
                index += 1;
                continue;
            }
            if let Some(o) = text.strip_prefix("-o").filter(|o| !o.is_empty()) {
                output = Some(Arg {
                    text: o.to_owned(),
                    ..arg.clone()
                });
                continue;
            }
            if matches!(
                text,
                "-x" | "-I"
                    | "-L"
                    | "-l"
                    | "-D"
                    | "-U"
                    | "-include"
                    | "-isystem"
                    | "--crate-type"
                    | "--edition"
                    | "--crate-name"
                    | "--emit"
                    | "--target"
                    | "--out-dir"
                    | "--cfg"
                    | "-MF"
                    | "-MT"
            ) || (text == "-C" && base.starts_with("rustc"))
            {
                if text == "-C"
                    && args
                        .get(index)
                        .is_some_and(|v| v.text.starts_with("linker"))
                {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!(
                            "{base} `-C linker=...` runs a program; the guard does not model it"
                        ),
                    );
                }
                index += 1;
                continue;
            }
            if text == "-" || is_stdin_path(text) {
                // Code from standard input (a here-string, a pipe): never
                // judged as the program it is.
                from_unseen = true;
                continue;
            }
            if !text.starts_with('-') && (!arg.known || self.is_written(shell, arg)) {
                from_unseen = true;
            }
        }
        if from_unseen {
            let out = output.unwrap_or_else(|| {
                Arg::lit(if base.starts_with("rustc") {
                    "main"
                } else {
                    "a.out"
                })
            });
            self.record_write(shell, &out);
        }
        Continue(())
    }
}

/// The package name of a runner's package spec (`prettier@3` is `prettier`, `@scope/x@1` is
/// `@scope/x`).
fn package_name(spec: &str) -> &str {
    match spec.strip_prefix('@') {
        Some(rest) => rest.find('@').map_or(spec, |at| &spec[..at + 1]),
        None => spec.split('@').next().unwrap_or(spec),
    }
}

/// The program a package name runs: `rimraf@5` is `rimraf`, `@scope/tool@1` is `tool`.
fn package_program(spec: &str) -> String {
    let name = match spec.strip_prefix('@') {
        Some(rest) => rest.split_once('/').map_or(rest, |(_, n)| n),
        None => spec,
    };
    name.split('@').next().unwrap_or(name).to_owned()
}

/// The normalised names of the packages a `pyproject.toml` names as the project's own: its
/// `[project]` name, dependencies and optional dependencies, `[dependency-groups]`,
/// `[tool.uv] dev-dependencies`, and Poetry's dependencies, dev-dependencies and groups.
fn python_packages(pyproject: &toml::Table) -> Vec<String> {
    let at = |path: &[&str]| {
        path.iter()
            .try_fold(pyproject, |t, key| t.get(*key)?.as_table())
    };
    let strings = |value: &toml::Value| -> Vec<String> {
        value
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| requirement_name(v.as_str()?))
            .collect()
    };
    let mut names = Vec::new();
    if let Some(project) = at(&["project"]) {
        names.extend(
            project
                .get("name")
                .and_then(|n| requirement_name(n.as_str()?)),
        );
        names.extend(
            project
                .get("dependencies")
                .map(strings)
                .into_iter()
                .flatten(),
        );
    }
    for groups in [
        at(&["project", "optional-dependencies"]),
        at(&["dependency-groups"]),
    ] {
        names.extend(
            groups
                .into_iter()
                .flat_map(|g| g.values().flat_map(strings)),
        );
    }
    names.extend(
        at(&["tool", "uv"])
            .and_then(|uv| uv.get("dev-dependencies"))
            .map(strings)
            .into_iter()
            .flatten(),
    );
    let poetry_groups = at(&["tool", "poetry", "group"])
        .into_iter()
        .flat_map(|groups| {
            groups
                .values()
                .filter_map(|g| g.get("dependencies")?.as_table())
        });
    let poetry = [
        at(&["tool", "poetry", "dependencies"]),
        at(&["tool", "poetry", "dev-dependencies"]),
    ];
    for table in poetry.into_iter().flatten().chain(poetry_groups) {
        names.extend(table.keys().filter_map(|k| requirement_name(k)));
    }
    names
}

/// The normalised name of a Python requirement (`Click[extra]~=8.1` is `click`, `ruff@0.5`
/// is `ruff`, `zope.interface` is `zope-interface`); `None` for what is not a package name
/// (a URL, `git+https://…`, an empty line).
fn requirement_name(spec: &str) -> Option<String> {
    let spec = spec.trim();
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let (name, rest) = spec.split_at(end);
    if name.is_empty()
        || !(rest.is_empty()
            || rest.starts_with([' ', '[', '<', '>', '=', '!', '~', ';', '@', '(']))
    {
        return None;
    }
    let mut out = String::new();
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirement_names_normalise() {
        for (spec, name) in [
            ("Click[extra]~=8.1", Some("click")),
            ("ruff@0.5.0", Some("ruff")),
            (
                "zope.interface>=5 ; python_version > '3'",
                Some("zope-interface"),
            ),
            ("Foo__Bar", Some("foo-bar")),
            ("git+https://example.org/x.git", None),
            ("https://example.org/x.whl", None),
            ("", None),
        ] {
            assert_eq!(requirement_name(spec).as_deref(), name, "{spec}");
        }
    }
}
