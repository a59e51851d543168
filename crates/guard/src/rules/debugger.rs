//! Debuggers (`Family::Debugger` in `registry.rs`): gdb, cgdb and lldb run the commands they are
//! given (`-ex`, `-o`, command files, standard input). A command is judged by what it is: a
//! shell escape (`shell`, `!`, `pipe ... |`, lldb's `platform shell`) is walked as shell; `run`
//! hands its arguments to `/bin/sh`, so they are walked too; a call in an expression (`print
//! system("...")`, `call`, `expr`) runs code in the debuggee and is denied, as is any command the
//! table below does not know (`python`, `guile`, `source`, `eval`, `define`, `script`, ...).
//! A command file the guard can read (written earlier in the line, or read from disk; `-x FILE`
//! or standard input, `gdb < FILE`) is judged line by line; one it cannot read (a FIFO
//! included) is denied.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::rules::next_arg;
use crate::walk::{Frame, Judged, Shell, Stdin, Walker};
use crate::words::Arg;

/// Debugger programs.
pub(crate) const DEBUGGERS: &[&str] = &["gdb", "cgdb", "lldb"];

/// `(options whose value is one debugger command, options whose value is a command file)`, by
/// debugger (without dashes; `--name=value` too).
fn options(base: &str) -> (&'static [&'static str], &'static [&'static str]) {
    if base == "lldb" {
        (
            &[
                "o",
                "O",
                "one-line",
                "one-line-before-file",
                "k",
                "one-line-on-crash",
            ],
            &[
                "s",
                "S",
                "source",
                "source-before-file",
                "K",
                "source-on-crash",
            ],
        )
    } else {
        (
            &["ex", "iex", "eval-command", "init-eval-command"],
            &["x", "ix", "command", "init-command"],
        )
    }
}

/// Commands that inspect or drive the debuggee and run nothing else (first word, as written;
/// gdb's and lldb's common abbreviations included).
#[rustfmt::skip]
const SAFE: &[&str] = &[
    "run", "r", "start", "starti", "continue", "c", "cont", "next", "n", "step", "s", "stepi",
    "si", "nexti", "ni", "finish", "fin", "until", "u", "advance", "bt", "backtrace", "where",
    "info", "i", "print", "p", "inspect", "output", "echo", "x", "list", "l", "break", "b", "br",
    "tbreak", "rbreak", "watch", "rwatch", "awatch", "delete", "d", "disable", "enable",
    "condition", "ignore", "frame", "f", "up", "down", "thread", "display", "undisplay",
    "disassemble", "di", "ptype", "whatis", "quit", "q", "kill", "k", "detach", "attach", "file",
    "core-file", "core", "show", "handle", "printf", "set", "process", "target", "image",
    "register", "memory", "breakpoint", "po", "expr", "expression", "call", "v", "var", "gui",
    "tui", "layout", "focus", "refresh", "help", "h", "apropos", "directory", "dir", "sharedlibrary",
    "symbol-file", "add-symbol-file", "catch", "tcatch", "jump", "return", "signal", "queue-signal",
    "reverse-step", "reverse-next", "reverse-continue", "record", "checkpoint", "restart", "macro",
    "skip", "explore", "maint", "maintenance", "settings", "log", "type", "language", "platform",
];

/// `set` (and lldb `settings set`) subjects that make the debugger run or load code, or write files.
#[rustfmt::skip]
const SET_ESCAPES: &[&str] = &[
    "exec-wrapper", "logging", "auto-load", "python", "guile", "extension-language",
    "script-extension", "history", "shell", "startup-with-shell", "debug-file-directory",
    "sysroot", "solib-search-path", "target.launch-wrapper", "target.env-vars",
    "target.inherit-env", "plugin",
];

/// Whether `text` calls a function (`system("id")`, `f (1)`): an expression that does runs code
/// in the debuggee. `sizeof(x)` and casts (`(char *)p`) do not.
fn calls_a_function(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            let mut j = i;
            while j < bytes.len() && bytes[j] == b' ' {
                j += 1;
            }
            if bytes.get(j) == Some(&b'(')
                && !matches!(
                    word,
                    "sizeof" | "alignof" | "_Alignof" | "typeof" | "decltype"
                )
            {
                return true;
            }
        } else if bytes[i] == b'"' {
            // A string literal: skip it.
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += 1 + usize::from(bytes[i] == b'\\');
            }
            i += 1;
        } else {
            i += 1;
        }
    }
    false
}

impl Walker<'_> {
    /// Judges a debugger of [`DEBUGGERS`] (see the module).
    pub(crate) fn debugger(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let (command_options, file_options) = options(base);
        let mut commands: Vec<String> = Vec::new();
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            if arg.text == "--args" || arg.text == "--" && base != "cgdb" {
                // The program and its arguments: opaque, like running it. (cgdb's `--` starts
                // gdb's options.)
                break;
            }
            let Some(option) = arg.text.strip_prefix('-') else {
                continue;
            };
            let option = option.trim_start_matches('-');
            let (name, inline) = match option.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (option, None),
            };
            // gdb takes a long option by any unambiguous prefix (`-eva`, `--eval-comm`).
            let names = |list: &[&str]| {
                list.iter()
                    .any(|o| *o == name || base != "lldb" && name.len() >= 3 && o.starts_with(name))
            };
            let is_command = names(command_options);
            let is_file = !is_command && names(file_options);
            if !is_command && !is_file {
                continue;
            }
            let value = match inline {
                Some(v) => Some(Arg::lit(v)),
                None => next_arg(args, &mut index),
            };
            let Some(value) = value.filter(|v| v.known) else {
                return self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "{base} `{}` with a value that is not statically known",
                        arg.text
                    ),
                );
            };
            if is_command {
                commands.extend(value.text.lines().map(str::to_owned));
                continue;
            }
            match self.file_text(shell, &value) {
                Some(text) => commands.extend(text.lines().map(str::to_owned)),
                None => {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} runs the command file `{}`, which the guard cannot read; its commands can run shell commands (`shell`, `!`)", value.text),
                    );
                }
            }
        }
        match stdin {
            Stdin::Text(text) => commands.extend(text.lines().map(str::to_owned)),
            Stdin::Pipe | Stdin::Unknown => {
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} reads debugger commands from its input, which the guard cannot see; they can run shell commands"),
                );
            }
            // `gdb < cmds`: the debugger reads its commands from the file, as with `-x cmds`.
            Stdin::File => match self.cmd_stdin_file.clone() {
                Some(path) if path == "/dev/null" => {}
                Some(path) => match self.file_text(shell, &Arg::lit(path.clone())) {
                    Some(text) if self.not_a_regular_file(&path).is_none() => {
                        commands.extend(text.lines().map(str::to_owned));
                    }
                    _ => {
                        return self.deny(
                            frame,
                            RuleId::Interpreter,
                            format!("{base} reads its commands from `{path}`, which the guard cannot read; they can run shell commands (`shell`, `!`, `python`)"),
                        );
                    }
                },
                None => {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} reads its commands from a file the guard cannot name; they can run shell commands"),
                    );
                }
            },
            Stdin::Inherited => {}
        }
        for command in commands {
            self.debugger_command(base, command.trim(), shell, frame)?;
        }
        Continue(())
    }

    /// Judges one debugger command line.
    fn debugger_command(
        &mut self,
        base: &str,
        line: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if line.is_empty() || line.starts_with('#') {
            return Continue(());
        }
        let origin = format!("{base} command");
        if let Some(rest) = line.strip_prefix('!') {
            return self.walk_shell_text(&origin, rest, shell, frame);
        }
        let (word, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(w, r)| (w, r.trim()));
        // `x/16x $sp`, `p/x v`: a format after the command name.
        let word = word.split('/').next().unwrap_or(word);
        let second = rest.split_whitespace().next().unwrap_or("");
        let shell_text = match word {
            "shell" | "she" | "shel" => Some(rest),
            "platform" if second == "shell" => Some(rest[second.len()..].trim()),
            // `pipe COMMAND | SHELL`, `| COMMAND | SHELL`: the part after the bar is shell.
            "pipe" | "|" => match rest.split_once('|') {
                Some((command, text)) => {
                    self.debugger_command(base, command.trim(), shell, frame)?;
                    Some(text)
                }
                None => None,
            },
            _ => None,
        };
        if let Some(text) = shell_text {
            return self.walk_shell_text(&origin, text, shell, frame);
        }
        // `thread apply all bt`, `frame apply 3 -q p x`, `taas bt`: the command after the
        // thread or frame list runs for each.
        let applied = match word {
            "thread" | "frame" if second == "apply" => Some(rest[second.len()..].trim()),
            "taas" | "tfaas" | "faas" => Some(rest),
            _ => None,
        };
        if let Some(applied) = applied {
            let command: Vec<&str> = applied
                .split_whitespace()
                .skip_while(|w| {
                    *w == "all"
                        || w.starts_with('-')
                        || w.chars()
                            .all(|c| c.is_ascii_digit() || c == '-' || c == '.')
                })
                .collect();
            return self.debugger_command(base, &command.join(" "), shell, frame);
        }
        let escapes = !SAFE.contains(&word)
            || matches!(word, "set" | "settings")
                && SET_ESCAPES
                    .iter()
                    .any(|s| rest.split_whitespace().take(2).any(|w| w.starts_with(s)))
            || word == "platform"
            || calls_a_function(rest);
        if escapes {
            return self.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} command `{line}` can run code or shell commands the guard does not model"),
            );
        }
        // The debugger starts the program through `/bin/sh` with its arguments (`run ARGS`,
        // `set args ARGS`, lldb's `settings set target.run-args ARGS`).
        let program_args = match (word, second) {
            ("run" | "r" | "start" | "starti", _) => Some(rest),
            ("set", "args") => Some(rest["args".len()..].trim()),
            ("settings", "set") => rest["set".len()..]
                .trim()
                .strip_prefix("target.run-args")
                .map(str::trim),
            _ => None,
        };
        if let Some(text) = program_args.filter(|t| !t.is_empty()) {
            return self.walk_shell_text(&origin, &format!("true {text}"), shell, frame);
        }
        Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_calls_in_expressions() {
        assert!(calls_a_function("system(\"id\")"));
        assert!(calls_a_function("(int) system (\"id\")"));
        assert!(calls_a_function("$_shell(\"id\")"));
        assert!(!calls_a_function("x"));
        assert!(!calls_a_function("sizeof(int)"));
        assert!(!calls_a_function("(char *) p"));
        assert!(!calls_a_function("\"f(x)\""));
        assert!(!calls_a_function("arr[2]->next"));
    }
}
