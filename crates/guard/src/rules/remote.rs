//! Remote shells and socket relays, judged in one place: the command an `ssh`/`slogin`/`autossh`
//! runs (locally through `-o ProxyCommand=`/`LocalCommand=`, `-F` config files, and what it
//! hands the remote side), `scp`/`sftp`'s ssh options and program (`-S`, `-o`), `socat`'s
//! `EXEC:`/`SYSTEM:` addresses and `nc -e`/`-c`.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::rules::{self, Spec, is_stdin_path};
use crate::walk::{Frame, Judged, Shell, Stdin, Walker, WriteMode};
use crate::words::Arg;

/// The programs [`Walker::remote`] judges.
#[rustfmt::skip]
pub(crate) const REMOTES: &[&str] = &[
    "ssh", "slogin", "autossh", "scp", "sftp", "socat", "nc", "ncat", "netcat", "nc.traditional",
    "nc.openbsd",
];

impl Walker<'_> {
    /// Judges a program of [`REMOTES`].
    pub(crate) fn remote(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match base {
            "ssh" | "slogin" | "autossh" => self.ssh(base, args, stdin, shell, frame),
            "scp" | "sftp" => self.scp(base, args, stdin, shell, frame),
            "socat" => self.socat(args, shell, frame),
            _ => self.netcat(base, args, shell, frame),
        }
    }

    /// `-o Key=Value` / `-oKey Value` of the ssh family.
    fn ssh_option(
        &mut self,
        base: &str,
        value: Option<&Arg>,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let Some(value) = value else {
            return Continue(());
        };
        if !value.known {
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{base} -o `{}` is not statically known", value.text),
            );
        }
        let text = value.text.trim();
        let (key, val) = match text
            .char_indices()
            .find(|(_, c)| *c == '=' || c.is_whitespace())
        {
            Some((at, c)) => (
                &text[..at],
                text[at + c.len_utf8()..].trim_start_matches(['=', ' ', '\t']),
            ),
            None => (text, ""),
        };
        let key = key.to_ascii_lowercase();
        match key.as_str() {
            "proxycommand" | "localcommand" | "knownhostscommand"
                if !val.eq_ignore_ascii_case("none") && !val.is_empty() =>
            {
                self.walk_shell_text(&format!("{base} -o {key}"), val, shell, frame)?;
            }
            "remotecommand" => self.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} -o RemoteCommand runs a command on a remote host; the guard cannot see what it does there"),
            )?,
            "pkcs11provider" | "securitykeyprovider" | "include" => self.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} -o {key} loads code or configuration the guard cannot see"),
            )?,
            _ => {}
        }
        Continue(())
    }

    fn ssh(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "BbcDEeFIiJLlmMOoPpQRSWw",
                long_values: &[],
                stop_at_operand: true,
            },
        );
        for opt in &p.opts {
            match opt.name.as_str() {
                "-o" => self.ssh_option(base, opt.value.as_ref(), shell, frame)?,
                "-E" => {
                    if let Some(log) = &opt.value {
                        self.check_write(
                            log,
                            WriteMode::Append,
                            shell,
                            frame,
                            &format!("{base} -E"),
                        )?;
                    }
                }
                "-I" => self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} -I loads a PKCS#11 library; the guard cannot see what it does"),
                )?,
                _ => {}
            }
        }
        if p.has(&["-G", "-V", "-Q"]) {
            return Continue(());
        }
        let operands = p.operands.as_slice();
        let no_command = p.has(&["-N", "-W", "-O"]);
        if operands.len() == 1 && !no_command && !matches!(stdin, Stdin::Inherited) {
            return self.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} runs commands read from its input on a remote host; the guard cannot see what they do there"),
            );
        }
        if operands.len() > 1 {
            let command: Vec<&str> = operands[1..].iter().map(|a| a.text.as_str()).collect();
            self.deny(
                frame,
                RuleId::Interpreter,
                format!(
                    "{base} runs `{}` on a remote host; the guard cannot see what it does there",
                    command.join(" ")
                ),
            )?;
        }
        Continue(())
    }

    fn scp(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "BbcDFiJlloPRSsX",
                long_values: &[],
                stop_at_operand: false,
            },
        );
        for opt in &p.opts {
            match opt.name.as_str() {
                "-o" => self.ssh_option(base, opt.value.as_ref(), shell, frame)?,
                "-S" | "-D" => self.walk_shell_arg(
                    &format!("{base} {}", opt.name),
                    opt.value.as_ref(),
                    shell,
                    frame,
                )?,
                "-b" if base == "sftp" => {
                    if let Some(batch) = &opt.value
                        && is_stdin_path(&batch.text)
                    {
                        match stdin {
                            Stdin::Text(text) => {
                                for line in text.lines() {
                                    let line = line.trim().trim_start_matches(['-', '@']);
                                    if let Some(cmd) = line.strip_prefix('!') {
                                        self.walk_shell_text("sftp batch !", cmd, shell, frame)?;
                                    }
                                }
                            }
                            Stdin::Pipe | Stdin::Unknown => self.fail_closed(
                                frame,
                                RuleId::Interpreter,
                                "sftp reads a batch from a pipe; it may run local commands (`!`) the guard cannot see",
                            )?,
                            Stdin::Inherited | Stdin::File => {}
                        }
                    }
                }
                _ => {}
            }
        }
        if base == "scp"
            && p.operands.len() > 1
            && let Some(dest) = p.operands.last()
        {
            let remote = dest
                .text
                .find(':')
                .is_some_and(|colon| dest.text.find('/').is_none_or(|slash| colon < slash));
            if !remote {
                self.check_write(dest, WriteMode::Clobber, shell, frame, "scp")?;
            }
        }
        Continue(())
    }

    /// `socat ... EXEC:cmd` / `SYSTEM:cmd`: the command runs with the other
    /// address's data as its input.
    fn socat(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        for arg in args
            .iter()
            .filter(|a| !a.text.starts_with('-') || a.text.len() == 1)
        {
            if !arg.known {
                return self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("socat address `{}` is not statically known", arg.text),
                );
            }
            let (kind, rest) = arg.text.split_once(':').unwrap_or((&arg.text, ""));
            if matches!(kind.to_ascii_uppercase().as_str(), "EXEC" | "SYSTEM") {
                let cmd = rest
                    .split(',')
                    .next()
                    .unwrap_or("")
                    .trim_matches(['\'', '"']);
                self.walk_piped_shell(&format!("socat {kind}"), cmd, shell, frame)?;
            }
        }
        Continue(())
    }

    /// `nc -e prog` / `nc -c cmd` / `ncat --sh-exec cmd`.
    fn netcat(&mut self, base: &str, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let mut index = 0;
        while index < args.len() {
            let text = args[index].text.clone();
            index += 1;
            let runs = match text.as_str() {
                "-e" | "-c" | "--exec" | "--sh-exec" => true,
                "--lua-exec" => {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} --lua-exec runs a Lua script the guard cannot see"),
                    );
                }
                t if t.starts_with("--exec=") || t.starts_with("--sh-exec=") => {
                    let cmd = t.split_once('=').map_or("", |(_, v)| v).to_owned();
                    self.walk_piped_shell(&format!("{base} --exec"), &cmd, shell, frame)?;
                    continue;
                }
                _ => false,
            };
            if runs {
                match args.get(index).filter(|a| a.known) {
                    Some(cmd) => {
                        let cmd = cmd.text.clone();
                        self.walk_piped_shell(&format!("{base} {text}"), &cmd, shell, frame)?;
                    }
                    None => self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("{base} {text} runs a command that is not statically known"),
                    )?,
                }
                index += 1;
            }
        }
        Continue(())
    }
}
