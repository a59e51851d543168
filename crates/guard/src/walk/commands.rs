//! Per-command resolution: wrappers (`sudo`, `env`, `timeout`, ...) are
//! peeled off, payloads (`bash -c`, `eval`, `xargs`, `find -exec`,
//! `parallel`, `watch`, `trap`) are walked as the scripts or commands they
//! are, shell builtins that change state (`cd`, `alias`, `read`) update it,
//! and everything else goes to the rules.

use super::{Cmd, Frame, Shell, Stdin, Walker, WriteMode};
use crate::decision::RuleId;
use crate::rules::{self, Spec};
use crate::words::{self, Arg};

/// Shells whose `-c` string, script operand or stdin is a script.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "rbash", "posh", "ksh93", "fish",
    "csh", "tcsh",
];

/// Wrappers with no options of their own: the rest is the command.
const BARE_WRAPPERS: &[&str] = &[
    "nohup",
    "builtin",
    "chronic",
    "unbuffer",
    "nocorrect",
    "noglob",
    "then",
    "do",
];

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
    /// Judges a command by its (directory-stripped) name.
    pub(super) fn command_by_name(
        &mut self,
        base: &str,
        cmd: Cmd,
        shell: &mut Shell,
        frame: &Frame,
    ) {
        let args: Vec<Arg> = cmd.argv.iter().skip(1).cloned().collect();
        match base {
            _ if SHELLS.contains(&base) => {
                self.shell_payload(base, &args, &cmd.stdin, shell, frame)
            }
            "busybox" => self.rewrap(base, args, cmd.stdin, shell, frame),
            _ if BARE_WRAPPERS.contains(&base) => self.rewrap(base, args, cmd.stdin, shell, frame),
            "sudo" | "doas" => self.sudo(base, &args, cmd.stdin, shell, frame),
            "env" => self.env(&args, cmd.stdin, shell, frame),
            "command" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "",
                        long_values: &[],
                        stop_at_operand: true,
                    },
                );
                if !p.has(&["-v", "-V"]) {
                    self.rewrap(base, p.operands, cmd.stdin, shell, frame);
                }
            }
            "exec" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "a",
                        long_values: &[],
                        stop_at_operand: true,
                    },
                );
                self.rewrap(base, p.operands, cmd.stdin, shell, frame);
            }
            "nice" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "n",
                        long_values: &["--adjustment"],
                        stop_at_operand: true,
                    },
                );
                self.rewrap(base, p.operands, cmd.stdin, shell, frame);
            }
            "timeout" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "sk",
                        long_values: &["--signal", "--kill-after"],
                        stop_at_operand: true,
                    },
                );
                self.rewrap(
                    base,
                    p.operands.into_iter().skip(1).collect(),
                    cmd.stdin,
                    shell,
                    frame,
                );
            }
            "time" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "fo",
                        long_values: &["--format", "--output"],
                        stop_at_operand: true,
                    },
                );
                if let Some(out) = p.value(&["-o", "--output"]).cloned() {
                    self.check_write(&out, WriteMode::Clobber, shell, frame, "time -o");
                }
                self.rewrap(base, p.operands, cmd.stdin, shell, frame);
            }
            "stdbuf" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "ioe",
                        long_values: &["--input", "--output", "--error"],
                        stop_at_operand: true,
                    },
                );
                self.rewrap(base, p.operands, cmd.stdin, shell, frame);
            }
            "ionice" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "cnpPu",
                        long_values: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
                        stop_at_operand: true,
                    },
                );
                if !p.has(&["-p", "-P", "-u", "--pid", "--pgid", "--uid"]) {
                    self.rewrap(base, p.operands, cmd.stdin, shell, frame);
                }
            }
            "setsid" | "caffeinate" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "tw",
                        long_values: &[],
                        stop_at_operand: true,
                    },
                );
                self.rewrap(base, p.operands, cmd.stdin, shell, frame);
            }
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
                    self.rewrap(base, p.operands, cmd.stdin, shell, frame);
                } else {
                    // watch hands its joined arguments to `sh -c`.
                    self.script_args("watch", &p.operands, shell, frame, false);
                }
            }
            "su" | "runuser" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "cgGsw",
                        long_values: &[
                            "--command",
                            "--group",
                            "--shell",
                            "--whitelist-environment",
                        ],
                        stop_at_operand: false,
                    },
                );
                if let Some(script) = p.value(&["-c", "--command"]).cloned() {
                    self.script_args(base, &[script], shell, frame, false);
                }
            }
            "eval" => {
                // eval runs in the current shell: state changes persist.
                match join_known(&args) {
                    Some(text) => {
                        let inner = frame.nested("inside eval").with_stdin(cmd.stdin);
                        self.run_script(&text, shell, &inner);
                    }
                    None => self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "eval of text that is not statically known",
                    ),
                }
            }
            "source" | "." => {
                if args.first().is_none_or(|a| !a.known) {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "source of a file that is not statically known",
                    );
                }
            }
            "trap" => {
                if let Some(action) = args.first().filter(|a| !a.text.starts_with('-')) {
                    self.script_args(
                        "trap",
                        std::slice::from_ref(action),
                        &mut shell.clone(),
                        frame,
                        false,
                    );
                }
            }
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
                        ),
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
            "read" | "mapfile" | "readarray" | "getopts" | "unset" => {
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "adDnNptuCc",
                        long_values: &[],
                        stop_at_operand: false,
                    },
                );
                for operand in &p.operands {
                    if let Some(name) = operand.exact() {
                        shell.vars.insert(name.to_owned(), None);
                    }
                }
                if let Some(name) = p.value(&["-a"]).and_then(Arg::exact) {
                    shell.vars.insert(name.to_owned(), None);
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
                if let Some(name) = p.value(&["-v"]).and_then(Arg::exact) {
                    shell.vars.insert(name.to_owned(), None);
                }
            }
            "xargs" => self.xargs(&args, shell, frame),
            "parallel" => self.parallel(&args, shell, frame),
            "find" => self.find(&args, shell, frame),
            "git" => self.git(&args, shell, frame),
            // git's dashed programs (`git-push` from git's exec path) are its subcommands.
            _ if base.len() > 4 && base.starts_with("git-") => {
                let mut argv = vec![Arg::lit(&base[4..])];
                argv.extend(args);
                self.git(&argv, shell, frame);
            }
            "pawl" => self.pawl(&args, shell, frame),
            _ => {
                if !self.runs_commands(base, &args, &cmd.stdin, shell, frame)
                    && !self.interpreter(base, &args, &cmd.stdin, shell, frame)
                {
                    self.file_rules(base, &args, shell, frame);
                }
            }
        }
    }

    /// Dispatches `args` as a command of its own, found via `wrapper`.
    fn rewrap(
        &mut self,
        wrapper: &str,
        args: Vec<Arg>,
        stdin: Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) {
        if args.is_empty() {
            return;
        }
        if frame.wrappers >= super::MAX_WRAPPERS {
            self.deny(
                frame,
                RuleId::TooDeep,
                format!(
                    "more than {} wrapper commands in a row",
                    super::MAX_WRAPPERS
                ),
            );
            return;
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
        self.dispatch(Cmd { argv: args, stdin }, shell, &inner);
    }

    /// Walks the joined `args` as a script in a copy of the shell.
    pub(crate) fn script_args(
        &mut self,
        origin: &str,
        args: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
        lenient: bool,
    ) {
        match join_known(args) {
            Some(text) => {
                let mut sub = shell.clone();
                let mut inner = frame.nested(&format!("inside {origin}"));
                inner.lenient = inner.lenient || lenient;
                self.run_script(&text, &mut sub, &inner);
            }
            None => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{origin} runs a script that is not statically known"),
            ),
        }
    }

    fn sudo(&mut self, base: &str, args: &[Arg], stdin: Stdin, shell: &mut Shell, frame: &Frame) {
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
                self.check_write(file, WriteMode::Modify, shell, frame, "sudoedit");
            }
            return;
        }
        if p.has(&["-s", "--shell", "-i", "--login"]) && !operands.is_empty() {
            self.script_args(base, &operands, shell, frame, false);
            return;
        }
        self.rewrap(base, operands, stdin, shell, frame);
    }

    fn env(&mut self, args: &[Arg], stdin: Stdin, shell: &mut Shell, frame: &Frame) {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "uCS",
                long_values: &["--unset", "--chdir", "--split-string"],
                stop_at_operand: true,
            },
        );
        let mut operands: Vec<Arg> = p
            .operands
            .iter()
            .skip_while(|a| a.exact().is_some_and(is_assignment))
            .cloned()
            .collect();
        if let Some(split) = p.value(&["-S", "--split-string"]).cloned() {
            // `env -S "cmd args"` splits its string into a command line.
            let mut all = vec![split];
            all.append(&mut operands);
            self.script_args("env -S", &all, shell, frame, false);
            return;
        }
        self.rewrap("env", operands, stdin, shell, frame);
    }

    /// `bash -c`, `bash script`, `bash` reading stdin.
    fn shell_payload(
        &mut self,
        name: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "oO",
                long_values: &["--rcfile", "--init-file"],
                stop_at_operand: true,
            },
        );
        if p.has(&["-c"]) {
            match p.operands.first() {
                Some(script) => {
                    self.script_args(
                        &format!("{name} -c"),
                        std::slice::from_ref(script),
                        shell,
                        frame,
                        false,
                    );
                }
                None => self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("{name} -c without a script"),
                ),
            }
            return;
        }
        if let Some(script) = p.operands.first() {
            if !script.known {
                self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "{name} runs a script `{}` that is not statically known",
                        script.text
                    ),
                );
            }
            // A named script file is opaque to a command-line guard.
            return;
        }
        self.stdin_script(name, stdin, shell, frame);
    }

    /// A shell reading its script from stdin.
    fn stdin_script(&mut self, name: &str, stdin: &Stdin, shell: &mut Shell, frame: &Frame) {
        match stdin {
            Stdin::Text(text) => {
                let mut sub = shell.clone();
                let inner = frame.nested(&format!("inside {name} <<here-document"));
                self.run_script(text, &mut sub, &inner);
            }
            Stdin::Pipe | Stdin::Unknown => self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{name} reads a script from a pipe; its content is not statically known"),
            ),
            Stdin::Inherited | Stdin::File => {}
        }
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
        let target = if base == "popd" {
            None
        } else {
            match p.operands.first() {
                None => self.anchors.home.clone(),
                Some(arg) => arg
                    .exact()
                    .filter(|t| *t != "-")
                    .and_then(|t| self.resolve(shell, t)),
            }
        };
        shell.cwd = if frame.conditional { None } else { target };
    }

    fn xargs(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "adEeIiLlnPs",
                long_values: &[
                    "--arg-file",
                    "--delimiter",
                    "--eof",
                    "--replace",
                    "--max-lines",
                    "--max-args",
                    "--max-procs",
                    "--max-chars",
                    "--process-slot-var",
                ],
                stop_at_operand: true,
            },
        );
        let replace = p
            .value(&["-I", "-i", "--replace"])
            .map(|a| a.text.clone())
            .or_else(|| p.has(&["-i", "--replace"]).then(|| "{}".to_owned()));
        let mut argv = p.operands;
        if argv.is_empty() {
            argv.push(Arg::lit("echo"));
        }
        match &replace {
            Some(token) => {
                for arg in argv.iter_mut().skip(1) {
                    if arg.text.contains(token.as_str()) {
                        *arg = Arg::unknown(arg.text.clone());
                    }
                }
            }
            None => argv.push(Arg::unknown("<xargs input>")),
        }
        self.rewrap("xargs", argv, Stdin::Inherited, shell, frame);
    }

    fn parallel(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) {
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
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        "parallel runs a command that is not statically known",
                    );
                    return;
                }
            };
            let quoted = words::quote(value);
            let text = if template.is_empty() {
                match value.exact() {
                    Some(v) => v.to_owned(),
                    None => {
                        self.fail_closed(
                            frame,
                            RuleId::NotStatic,
                            "parallel runs commands read from its input",
                        );
                        return;
                    }
                }
            } else if template.contains("{}") {
                template.replace("{}", &quoted)
            } else {
                format!("{template} {quoted}")
            };
            self.script_args("parallel", &[Arg::lit(text)], shell, frame, false);
        }
    }

    fn find(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) {
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
                    let roots_ok =
                        !roots.is_empty() && roots.iter().all(|r| self.in_allowance(shell, r));
                    if !roots_ok {
                        self.deny(
                            frame,
                            RuleId::DestructiveShell,
                            "find -delete removes every file it matches",
                        );
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
                    self.rewrap(
                        &format!("find {token}"),
                        argv,
                        Stdin::Inherited,
                        shell,
                        frame,
                    );
                }
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    if let Some(file) = args.get(index).cloned() {
                        self.check_write(&file, WriteMode::Clobber, shell, frame, token);
                    }
                    index += 1;
                }
                _ => {}
            }
        }
    }
}
