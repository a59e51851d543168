//! make, judged in one place: makefile text given on the command line (`--eval`/`-E`), a
//! makefile the guard cannot see (`-f` of standard input, a descriptor or an unknown name),
//! command-line variables that run commands or write files (`!=`, `$(shell ...)`, `$(file ...)`)
//! and `SHELL=`/`.SHELLFLAGS=`/`MAKESHELL=`, which choose what runs the recipes.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::rules::{abbrev, is_stdin_path, next_arg};
use crate::walk::{Frame, Judged, Shell, Stdin, Walker};
use crate::words::Arg;

/// The makes [`Walker::make`] judges.
pub(crate) const MAKES: &[&str] = &["make", "gmake", "bmake", "pmake"];

impl Walker<'_> {
    /// Judges a make of [`MAKES`]: the text it evaluates and the makefiles it reads.
    pub(crate) fn make(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            let text = arg.text.as_str();
            let eval = if let Some(long) = text.strip_prefix("--") {
                let name = long.split_once('=').map_or(long, |(n, _)| n);
                abbrev(name, "eval", 2)
            } else {
                text.starts_with("-E")
                    || (text.starts_with('-') && !text.starts_with("--") && text.contains('E'))
            };
            if eval {
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} `{text}` evaluates makefile text given on the command line; its recipes run shell commands the guard does not model"),
                );
            }
            let file = if let Some(long) = text.strip_prefix("--") {
                let (name, inline) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_owned())),
                    None => (long, None),
                };
                if abbrev(name, "file", 2) || abbrev(name, "makefile", 1) {
                    match inline {
                        Some(v) => Some(Arg::lit(v)),
                        None => next_arg(args, &mut index),
                    }
                } else {
                    None
                }
            } else if let Some(rest) = text.strip_prefix("-f") {
                if rest.is_empty() {
                    next_arg(args, &mut index)
                } else {
                    Some(Arg::lit(rest))
                }
            } else {
                None
            };
            if let Some(file) = file {
                let from_input = !file.known || is_stdin_path(&file.text);
                if from_input && !matches!(stdin, Stdin::Inherited | Stdin::File) || !file.known {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} reads a makefile (`{}`) the guard cannot see; its recipes run shell commands", file.text),
                    );
                }
                continue;
            }
            if let Some((name, value)) = text.split_once('=') {
                let name = name.trim_end_matches([':', '+', '?', '!']);
                if matches!(name, "MAKEFLAGS" | "GNUMAKEFLAGS" | "MFLAGS")
                    && (value.contains("eval") || value.contains('E') || value.contains('f'))
                {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} `{text}` passes options that may add makefile text; the guard cannot see its recipes"),
                    );
                }
                let runs_now = text.split_once('=').is_some_and(|(n, _)| n.ends_with('!'));
                let functions = ["shell", "file", "eval", "guile", "call", "value"]
                    .iter()
                    .any(|f| {
                        value.contains(&format!("$({f}")) || value.contains(&format!("${{{f}"))
                    });
                // A value that is only variables the line does not assign, at its top
                // (`make VERSION=${TARGET_VERSION}`): the user's or CI's environment, whose
                // value is a plausible name (docs/guard.md "Commands built from variables").
                let inherited = !arg.known
                    && frame.depth == 0
                    && !shell.sourced
                    && crate::rules::fs::only_inherited(shell, value);
                if runs_now || functions || (!arg.known && !inherited) {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} `{text}` sets a variable to text that runs commands or writes files (`!=`, $(shell ...), $(file ...)) or is not statically known"),
                    );
                }
                if matches!(name, "SHELL" | ".SHELLFLAGS" | "MAKESHELL") {
                    let ok = name != ".SHELLFLAGS"
                        && arg.known
                        && crate::registry::POSIX_SHELLS
                            .contains(&value.rsplit('/').next().unwrap_or(value))
                        && !value.contains(char::is_whitespace);
                    if !ok {
                        return self.deny(
                            frame,
                            RuleId::Interpreter,
                            format!("{base} `{text}` changes the program that runs its recipes"),
                        );
                    }
                }
            }
        }
        Continue(())
    }
}
