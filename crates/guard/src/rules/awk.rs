//! awk, judged in one place: the program (inline, `-f`, standard input, `-e`/`--source`), gawk's
//! `-i`/`-l` extensions and `-i inplace`, and what the program runs (`system()`, `print | cmd`,
//! `cmd | getline`: a literal command is walked as shell, a built one fails closed) and writes
//! (`print > file`). The language is `lang/awk.rs`'s.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::lang::awk::{AwkTok, awk_tokens, call_args};
use crate::rules::{cluster_value, long_option};
use crate::walk::{Frame, Judged, Shell, Stdin, Walker, WriteMode};
use crate::words::Arg;

/// The awks [`Walker::awk`] judges.
pub(crate) const AWKS: &[&str] = &[
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "original-awk",
    "goawk",
    "onetrue-awk",
];

impl Walker<'_> {
    /// Judges an awk of [`AWKS`]: its program (inline, `-f FILE`, from standard input), `-i`
    /// includes and in-place edits (gawk), and the files it reads and writes.
    pub(crate) fn awk(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let mut programs: Vec<Arg> = Vec::new();
        let mut program_file = false;
        let mut in_place = false;
        let mut operands: Vec<Arg> = Vec::new();
        let mut index = 0;
        let mut options_done = false;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            if options_done || !arg.text.starts_with('-') || arg.text == "-" {
                operands.push(arg.clone());
                continue;
            }
            let Some(text) = arg.exact() else {
                operands.push(arg.clone());
                continue;
            };
            if text == "--" {
                options_done = true;
                continue;
            }
            if let Some(long) = text.strip_prefix("--") {
                let (_, takes, value) = long_option(
                    long,
                    &[
                        "file",
                        "source",
                        "include",
                        "load",
                        "exec",
                        "assign",
                        "field-separator",
                    ],
                    args,
                    &mut index,
                );
                match takes {
                    Some("source") => programs.extend(value),
                    Some("file" | "exec") => {
                        program_file = true;
                        self.program_file(base, "program", value.as_ref(), stdin, frame, &mut programs)?;
                    }
                    Some("include") => {
                        in_place |= value.as_ref().is_some_and(|v| v.text.starts_with("inplace"));
                    }
                    Some("load") => self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} --load loads a native extension; the guard cannot see what it does"),
                    )?,
                    _ => {}
                }
                continue;
            }
            // A cluster of short options.
            match cluster_value(arg, "fFvieElW", args, &mut index) {
                Some(('e', value)) => programs.extend(value),
                Some(('f' | 'E', value)) => {
                    program_file = true;
                    self.program_file(
                        base,
                        "program",
                        value.as_ref(),
                        stdin,
                        frame,
                        &mut programs,
                    )?;
                }
                Some(('i', value)) => {
                    in_place |= value.is_some_and(|v| v.text.starts_with("inplace"));
                }
                Some(('l', _)) => self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!(
                        "{base} -l loads a native extension; the guard cannot see what it does"
                    ),
                )?,
                _ => {}
            }
        }
        if programs.is_empty() && !program_file && !operands.is_empty() {
            programs.push(operands.remove(0));
        }
        for program in &programs {
            if !program.known {
                return self.fail_closed(
                    frame,
                    RuleId::Interpreter,
                    format!(
                        "{base} runs a program `{}` that is not statically known",
                        program.text
                    ),
                );
            }
            self.awk_program(base, &program.text.clone(), shell, frame)?;
        }
        if in_place {
            for file in operands.iter().filter(|a| !a.text.contains('=')) {
                self.check_write(
                    file,
                    WriteMode::Modify,
                    shell,
                    frame,
                    &format!("{base} -i inplace"),
                )?;
            }
        }
        Continue(())
    }

    /// Judges an awk program: commands it runs (`system()`, pipes to and
    /// from commands) and files it writes (`print > "file"`).
    fn awk_program(
        &mut self,
        base: &str,
        program: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let toks = awk_tokens(program);
        let origin = format!("{base} program");
        let mut print_depth: Option<usize> = None;
        let mut depth = 0usize;
        let mut i = 0;
        while i < toks.len() {
            let tok = &toks[i];
            match tok {
                AwkTok::Op(op) if op == "(" || op == "[" => depth += 1,
                AwkTok::Op(op) if op == ")" || op == "]" => depth = depth.saturating_sub(1),
                AwkTok::Op(op) if op == ";" || op == "{" || op == "}" => print_depth = None,
                AwkTok::Newline => print_depth = None,
                AwkTok::Word(w) if w == "print" || w == "printf" => print_depth = Some(depth),
                AwkTok::Word(w) if w.starts_with('@') => {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} program uses `{w}` (loads code or calls a function by name); the guard cannot see what it runs"),
                    );
                }
                AwkTok::Word(w) if w == "system" => {
                    // system(EXPR): only a literal command is resolvable.
                    let args = call_args(&toks, i + 1);
                    match args.as_deref() {
                        Some([AwkTok::Str(cmd)]) => {
                            let cmd = cmd.clone();
                            self.walk_shell_text(
                                &format!("{origin} system()"),
                                &cmd,
                                shell,
                                frame,
                            )?;
                        }
                        Some([]) => {}
                        _ => {
                            return self.deny(
                                frame,
                                RuleId::Interpreter,
                                format!("{base} program runs a command built at run time (`system()`); the guard cannot see what it runs"),
                            );
                        }
                    }
                }
                AwkTok::Op(op) if op == "|" || op == "|&" => {
                    let getline =
                        matches!(toks.get(i + 1), Some(AwkTok::Word(w)) if w == "getline");
                    let command = if getline {
                        // "cmd" | getline: the literal right before, standing alone.
                        match (
                            i.checked_sub(1).and_then(|j| toks.get(j)),
                            i.checked_sub(2).and_then(|j| toks.get(j)),
                        ) {
                            (Some(AwkTok::Str(cmd)), before)
                                if before.is_none_or(|b| !b.is_value()) =>
                            {
                                Some(cmd.clone())
                            }
                            _ => None,
                        }
                    } else {
                        // print ... | "cmd": the literal right after, then the statement ends.
                        match (toks.get(i + 1), toks.get(i + 2)) {
                            (Some(AwkTok::Str(cmd)), after)
                                if after.is_none_or(AwkTok::ends_statement) =>
                            {
                                Some(cmd.clone())
                            }
                            _ => None,
                        }
                    };
                    match command {
                        Some(cmd) if getline => {
                            self.walk_shell_text(&format!("{origin} pipe"), &cmd, shell, frame)?
                        }
                        Some(cmd) => {
                            self.walk_piped_shell(&format!("{origin} pipe"), &cmd, shell, frame)?
                        }
                        None => {
                            return self.deny(
                                frame,
                                RuleId::Interpreter,
                                format!("{base} program pipes to or from a command built at run time (`{op}`); the guard cannot see what it runs"),
                            );
                        }
                    }
                }
                AwkTok::Op(op) if (op == ">" || op == ">>") && print_depth == Some(depth) => {
                    let mode = if op == ">" {
                        WriteMode::Clobber
                    } else {
                        WriteMode::Append
                    };
                    match (toks.get(i + 1), toks.get(i + 2)) {
                        (Some(AwkTok::Str(file)), after)
                            if after.is_none_or(AwkTok::ends_statement) =>
                        {
                            let file = Arg::lit(file.clone());
                            self.check_write(
                                &file,
                                mode,
                                shell,
                                frame,
                                &format!("{base} print {op}"),
                            )?;
                        }
                        _ => {
                            return self.deny(
                                frame,
                                RuleId::NotStatic,
                                format!("{base} program writes with `{op}` to a file named at run time; it may be a protected or tracked file"),
                            );
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Continue(())
    }
}
