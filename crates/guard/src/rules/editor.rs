//! Editors, judged in one place: the commands they are given and run (sed's `e` and `s///e`,
//! vim/ex `-c` and `+cmd`, ed's `!`, emacs `--eval`) and the files they write (sed `w` and
//! `-i`, ed `w`). The sed language itself is `lang/sed.rs`.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::lang::sed::{SedAction, sed_actions};
use crate::rules::fs::canon_long;
use crate::rules::{self, Spec, abbrev, cluster_value, long_option};
use crate::walk::Judged;
use crate::walk::{Frame, Shell, Stdin, Walker, WriteMode};
use crate::words::Arg;

/// The editors [`Walker::editor`] judges.
#[rustfmt::skip]
pub(crate) const EDITORS: &[&str] = &[
    "sed", "gsed", "vim", "vi", "nvim", "ex", "view", "vimdiff", "gvim", "gview", "nvi",
    "vim.basic", "vim.tiny", "vim.nox", "vim.gtk3", "evim", "exim", "nex", "nview", "elvis",
    "vile", "ed", "red", "emacs", "emacsclient", "xemacs", "emacs-nox",
];

#[rustfmt::skip]
const SED_LONGS: &[&str] = &[
    "--expression", "--file", "--in-place", "--line-length", "--null-data", "--zero-terminated",
    "--quiet", "--silent", "--regexp-extended", "--separate", "--sandbox", "--debug", "--posix",
    "--follow-symlinks", "--unbuffered", "--binary", "--help", "--version",
];

impl Walker<'_> {
    /// Judges an editor of [`EDITORS`]: `code_args` and `stdin` with a descriptor operand read
    /// as the text it holds (the commands it runs), `args` as written (the files it writes).
    pub(crate) fn editor(
        &mut self,
        base: &str,
        args: &[Arg],
        code_args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match base {
            "sed" | "gsed" => {
                self.sed_runs(base, code_args, stdin, shell, frame)?;
                self.sed_files(args, shell, frame)?;
            }
            "ed" | "red" => {
                self.ed_runs(base, code_args, stdin, shell, frame)?;
                self.ed_files(base, args, shell, frame)?;
            }
            "emacs" | "emacsclient" | "xemacs" | "emacs-nox" => {
                self.emacs(base, code_args, frame)?
            }
            _ => self.vim(base, code_args, stdin, frame)?,
        }
        Continue(())
    }

    fn sed_runs(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let mut scripts: Vec<Arg> = Vec::new();
        let mut script_given = false;
        let mut sandbox = false;
        let mut operands: Vec<Arg> = Vec::new();
        let mut index = 0;
        let mut options_done = false;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            let Some(text) = arg
                .exact()
                .filter(|t| !options_done && t.starts_with('-') && *t != "-")
            else {
                operands.push(arg.clone());
                continue;
            };
            if text == "--" {
                options_done = true;
                continue;
            }
            if let Some(long) = text.strip_prefix("--") {
                let (name, takes, value) = long_option(
                    long,
                    &["expression", "file", "line-length"],
                    args,
                    &mut index,
                );
                sandbox |= abbrev(name, "sandbox", 2);
                match takes {
                    Some("expression") => {
                        script_given = true;
                        scripts.extend(value);
                    }
                    Some("file") => {
                        script_given = true;
                        self.program_file(
                            base,
                            "script",
                            value.as_ref(),
                            stdin,
                            frame,
                            &mut scripts,
                        )?;
                    }
                    _ => {}
                }
                continue;
            }
            // -i[SUFFIX]: the rest of the cluster is the suffix.
            if !text
                .split('i')
                .next()
                .is_some_and(|h| h.contains(['e', 'f', 'l']))
            {
                continue;
            }
            match cluster_value(arg, "efl", args, &mut index) {
                Some(('e', value)) => {
                    script_given = true;
                    scripts.extend(value);
                }
                Some(('f', value)) => {
                    script_given = true;
                    self.program_file(base, "script", value.as_ref(), stdin, frame, &mut scripts)?;
                }
                _ => {}
            }
        }
        if !script_given && !operands.is_empty() {
            scripts.push(operands.remove(0));
        }
        if sandbox {
            // --sandbox makes sed reject e, w and r.
            return Continue(());
        }
        for script in &scripts {
            let text = script
                .known
                .then(|| script.text.clone())
                .or_else(|| self.with_inherited_placeholders(&script.text, shell, frame));
            let Some(text) = text else {
                return self.fail_closed(
                    frame,
                    RuleId::Interpreter,
                    format!(
                        "{base} runs a script `{}` that is not statically known",
                        script.text
                    ),
                );
            };
            match sed_actions(&text) {
                Ok(actions) => {
                    for action in actions {
                        let named = match &action {
                            SedAction::Run(t) | SedAction::Write(t) => t.as_str(),
                            SedAction::RunPatternSpace(_) => "",
                        };
                        if named.contains(crate::walk::INHERITED_PLACEHOLDER) {
                            self.fail_closed(
                                frame,
                                RuleId::Interpreter,
                                format!("{base} runs or writes what a variable the line does not show names (`{}`)", script.text),
                            )?;
                        }
                        match action {
                            SedAction::Run(cmd) => self.walk_shell_text(&format!("{base} e"), &cmd, shell, frame)?,
                            SedAction::RunPatternSpace(what) => self.deny(
                                frame,
                                RuleId::Interpreter,
                                format!("{base} {what} runs the text it edits as a shell command; the guard cannot see what it runs"),
                            )?,
                            SedAction::Write(file) => {
                                let file = Arg::lit(file);
                                self.check_write(&file, WriteMode::Clobber, shell, frame, &format!("{base} w"))?;
                            }
                        }
                    }
                }
                Err(why) => {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} script `{}` cannot be analysed ({why}); sed scripts may run commands (`e`) or write files (`w`)", text.chars().take(60).collect::<String>()),
                    );
                }
            }
        }
        Continue(())
    }

    /// `sed -i`: each file operand is modified in place.
    fn sed_files(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let args = canon_long(args, SED_LONGS);
        let p = rules::parse(
            &args,
            &Spec {
                short_values: "efl",
                long_values: &["--expression", "--file", "--line-length"],
                stop_at_operand: false,
            },
        );
        let in_place = p
            .opts
            .iter()
            .any(|o| o.name == "-i" || o.name.starts_with("--in-place"))
            || args.iter().any(|a| {
                a.text.starts_with("-i")
                    || (a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && a.text.contains('i'))
            });
        if in_place {
            let script_given = p.has(&["-e", "-f", "--expression", "--file"]);
            for arg in p.operands.iter().skip(usize::from(!script_given)) {
                self.check_write(arg, WriteMode::Modify, shell, frame, "sed -i")?;
            }
        }
        Continue(())
    }

    fn vim(&mut self, base: &str, args: &[Arg], stdin: &Stdin, frame: &Frame) -> Judged {
        let ex_mode = base.starts_with("ex")
            || base == "nex"
            || args.iter().any(|a| {
                a.exact().is_some_and(|t| {
                    t.starts_with('-')
                        && !t.starts_with("--")
                        && (t.contains('e') || t.contains('E'))
                })
            });
        let commands = |what: &str| {
            format!(
                "{base} runs editor commands ({what}): they can run shell commands (`:!`, `system()`) and write any file; the guard does not model them"
            )
        };
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            let Some(text) = arg.exact() else {
                if arg.text.starts_with('+') || arg.text.starts_with('-') {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        commands(&format!("`{}`", arg.text)),
                    );
                }
                continue;
            };
            if text == "--" {
                break;
            }
            if let Some(cmd) = text.strip_prefix('+') {
                let harmless = cmd.is_empty()
                    || cmd.chars().all(|c| c.is_ascii_digit())
                    || (cmd.starts_with('/') && !cmd.contains('|'));
                if !harmless {
                    return self.deny(frame, RuleId::Interpreter, commands(&format!("`{text}`")));
                }
                continue;
            }
            if text.starts_with("--remote-send") || text.starts_with("--remote-expr") {
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    commands(&format!("`{text}` sent to another editor")),
                );
            }
            if text == "--cmd" || text.starts_with("--cmd=") {
                let value = args.get(index).map_or(String::new(), |a| a.text.clone());
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    commands(&format!("`{text} {value}`")),
                );
            }
            if text.len() > 1 && text.starts_with('-') && !text.starts_with("--") {
                // A cluster of short options (`-sc cmd`, `-Nesc cmd`,
                // `-u NONE`): read like separate ones. The first letter that
                // takes a value ends the cluster; its value is the rest of
                // the word or the next argument.
                let letters = if ex_mode { "cSuUwWiTtq" } else { "cSuUwWiTtqs" };
                if let Some((c, value)) = cluster_value(arg, letters, args, &mut index) {
                    let (value_text, value_known) =
                        value.map_or((String::new(), true), |v| (v.text, v.known));
                    match c {
                        'c' | 'S' => {
                            return self.deny(
                                frame,
                                RuleId::Interpreter,
                                commands(&format!("`-{c} {value_text}`")),
                            );
                        }
                        'u' | 'U'
                            if !value_known
                                || !matches!(
                                    value_text.as_str(),
                                    "NONE" | "NORC" | "DEFAULTS" | "NOPLUGIN"
                                ) =>
                        {
                            return self.deny(
                                frame,
                                RuleId::Interpreter,
                                commands(&format!(
                                    "`-{c} {value_text}`, a startup file of commands"
                                )),
                            );
                        }
                        's' => {
                            // -s {scriptin}: keystrokes read from a file.
                            return self.deny(
                                frame,
                                RuleId::Interpreter,
                                commands("`-s` script input"),
                            );
                        }
                        'w' | 'W' => {
                            return self.deny(
                                frame,
                                RuleId::Interpreter,
                                commands("`-w` script output"),
                            );
                        }
                        'i' if !value_known || value_text != "NONE" => {
                            return self.deny(
                                frame,
                                RuleId::Interpreter,
                                commands(&format!(
                                    "`-i {value_text}`, a viminfo file it reads and writes"
                                )),
                            );
                        }
                        _ => {}
                    }
                }
            }
        }
        if ex_mode && !matches!(stdin, Stdin::Inherited) {
            self.deny(
                frame,
                RuleId::Interpreter,
                commands("read from its standard input in ex mode"),
            )?;
        }
        Continue(())
    }

    fn ed_runs(
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
                short_values: "p",
                long_values: &["--prompt"],
                stop_at_operand: false,
            },
        );
        // The file ed edits is judged as an in-place change whatever the
        // commands are (a protected file is denied outright).
        for file in &p.operands {
            if file.known && file.text.starts_with('!') {
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!(
                        "{base} `{}` runs a shell command; the guard does not model it",
                        file.text
                    ),
                );
            }
            self.check_write(file, WriteMode::Modify, shell, frame, base)?;
        }
        let text = match stdin {
            Stdin::Inherited => return Continue(()),
            Stdin::Pipe | Stdin::Unknown | Stdin::File => {
                return self.fail_closed(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} reads editor commands the guard cannot see (they may run `!` shell commands or write files)"),
                );
            }
            Stdin::Text(text) => text,
        };
        if text.contains('!') {
            return self.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} commands run a shell command (`!`); the guard does not model them"),
            );
        }
        // The file `w` writes when it names none, and whether every line
        // of the buffer was deleted (`,d`, `%d`, `1,$d`): writing an
        // emptied buffer over a file clobbers it.
        let mut current: Option<Arg> = p.operands.first().cloned();
        let mut emptied = false;
        for line in text.lines() {
            let line = line.trim_start();
            let cmd =
                line.trim_start_matches(|c: char| c.is_ascii_digit() || ",;.$'+-/% ".contains(c));
            let address = line[..line.len() - cmd.len()].trim();
            let whole = matches!(address, "," | "%" | "1,$" | ",$" | "0,$");
            let mut chars = cmd.chars();
            let Some(letter) = chars.next() else {
                continue;
            };
            let rest = chars.as_str();
            match letter {
                'd' | 'c' if whole => emptied = true,
                // `g/re/d`, `v/re/d`: may delete every line.
                'g' | 'G' | 'v' | 'V' if rest.trim_end().ends_with(['d', 'c']) => emptied = true,
                'e' | 'E' | 'f' if rest.starts_with(' ') => {
                    current = Some(Arg::lit(rest.trim()));
                    if letter != 'f' {
                        emptied = false;
                    }
                }
                'w' | 'W' => {
                    let file = rest.trim_start_matches('q').trim();
                    let target = if file.is_empty() {
                        current.clone()
                    } else {
                        Some(Arg::lit(file))
                    };
                    let Some(target) = target else {
                        continue;
                    };
                    let mode = if letter == 'W' {
                        WriteMode::Append
                    } else if emptied
                        || (!file.is_empty() && current.as_ref().is_none_or(|c| c.text != file))
                    {
                        WriteMode::Clobber
                    } else {
                        WriteMode::Modify
                    };
                    self.check_write(&target, mode, shell, frame, base)?;
                }
                _ => {}
            }
        }
        Continue(())
    }

    /// ed's file: written by its commands (`w`), so judged as modified.
    fn ed_files(&mut self, base: &str, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "p",
                long_values: &["--prompt"],
                stop_at_operand: false,
            },
        );
        match p.operands.first() {
            Some(file) => {
                let file = file.clone();
                self.check_write(&file, WriteMode::Modify, shell, frame, base)?;
            }
            None if p.has(&["--help", "--version", "-h", "-V"]) => {}
            None => self.deny(
                frame,
                RuleId::NotStatic,
                format!("{base} without a file writes whatever files its commands name, which the guard cannot see; name the file"),
            )?,
        }
        Continue(())
    }

    fn emacs(&mut self, base: &str, args: &[Arg], frame: &Frame) -> Judged {
        for arg in args {
            let text = arg.text.as_str();
            let name = text.trim_start_matches('-');
            let name = name.split_once('=').map_or(name, |(n, _)| n);
            let dashes = text.len() - text.trim_start_matches('-').len();
            if dashes == 0 {
                continue;
            }
            let evaluates = (dashes == 1
                && matches!(
                    name,
                    "e" | "l" | "f" | "x" | "eval" | "load" | "funcall" | "execute" | "script"
                ))
                || (dashes == 2
                    && ["eval", "execute", "load", "funcall", "script"]
                        .iter()
                        .any(|full| abbrev(name, full, 2)));
            if evaluates {
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} `{text}` runs Lisp code, which can run commands and write files; the guard does not model it"),
                );
            }
        }
        Continue(())
    }
}
