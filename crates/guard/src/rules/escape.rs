//! Interpreters and programs with a shell escape and no model in the guard (`Family::Escape` in
//! `registry.rs`; rule `shell-escape`): code given to them ([`ESCAPES`] rows), `cmake -P` of a
//! script the guard cannot read, `deno run -` or of remote code. Their script files stay opaque
//! and allowed, like `python3 tool.py`.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::walk::{Frame, Judged, Shell, Stdin, Walker};
use crate::words::Arg;

/// Interpreters and programs with a shell escape the guard has no model of:
/// `(program, options whose value is code, stdin is code)`.
#[rustfmt::skip]
pub(crate) const ESCAPES: &[(&str, &[&str], bool)] = &[
    ("elixir", &["-e", "--eval", "-r", "--rpc-eval"], false),
    ("iex", &["-e", "--eval"], true),
    ("erl", &["-eval", "-s", "-run", "-noshell"], true),
    ("escript", &["-e"], false),
    ("guile", &["-c", "-e", "-l", "-x"], true),
    ("racket", &["-e", "--eval", "-r", "-l", "-i", "--require", "-t", "-u"], true),
    ("ghc", &["-e"], false),
    ("ghci", &["-e"], true),
    ("runghc", &["-e"], false),
    ("runhaskell", &["-e"], false),
    ("stack", &["eval", "exec", "ghci", "runghc", "script"], false),
    ("sbcl", &["--eval", "--script"], true),
    ("clisp", &["-x"], true),
    ("ecl", &["-eval"], true),
    ("ocaml", &["-e"], true),
    ("scala", &["-e"], false),
    ("groovy", &["-e"], false),
    ("jshell", &["-R", "-J"], true),
    ("kotlinc", &["-e", "-script"], false),
    ("octave", &["--eval"], true),
    ("matlab", &["-batch", "-r"], false),
    ("maxima", &["--batch-string", "-r"], true),
    ("sage", &["-c"], false),
    ("swift", &["-e"], true),
    ("crystal", &["eval"], true),
    ("nim", &["e", "secret"], false),
    ("dc", &["-e", "--expression"], true),
    ("m4", &[], true),
    ("gnuplot", &["-e"], true),
    ("nu", &["-c", "--commands"], true),
    ("xonsh", &["-c"], true),
    ("elvish", &["-c"], true),
    ("ion", &["-c"], true),
    ("oil", &["-c"], true),
    ("osh", &["-c"], true),
    ("ysh", &["-c"], true),
    ("rc", &["-c"], true),
    ("es", &["-c"], true),
    ("scsh", &["-c", "-e"], true),
    ("pike", &["-e"], true),
    ("gforth", &["-e", "--evaluate"], true),
    ("bqn", &["-e"], true),
    ("janet", &["-e"], true),
    ("fennel", &["-e", "--eval"], true),
    ("hy", &["-c"], true),
    ("clojure", &["-e", "-M", "-X"], false),
    ("clj", &["-e", "-M", "-X"], false),
    ("bb", &["-e", "--eval"], true),
    ("nbb", &["-e"], true),
    ("tsx", &["-e", "--eval"], true),
    ("ts-node", &["-e", "--eval", "-p", "--print"], true),
    ("qjs", &["-e", "--eval"], true),
    ("rhino", &["-e"], true),
    ("jjs", &["-e"], true),
    ("d8", &["-e"], true),
    ("gjs", &["-c", "--command"], true),
    ("vala", &[], true),
    ("chezscheme", &["--script"], true),
    ("scheme", &["--eval"], true),
    ("chicken", &["-e"], true),
    ("csi", &["-e", "-p", "-P"], true),
];

/// Whether `base` is a program of [`ESCAPES`] or `cmake`.
pub(crate) fn is_escape(base: &str) -> bool {
    base == "cmake" || ESCAPES.iter().any(|(n, _, _)| *n == base)
}

impl Walker<'_> {
    /// Judges a program of this family (and `deno`, `tsx`, `ts-node` after their interpreter).
    pub(crate) fn escapes(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        if super::is_help(args) {
            return Continue(());
        }
        match base {
            "cmake" => self.cmake_script(args, shell, frame)?,
            "deno" => self.deno(args, frame)?,
            _ => {}
        }
        if let Some((_, opts, stdin_code)) = ESCAPES.iter().find(|(n, _, _)| *n == base) {
            self.escape(base, opts, *stdin_code, args, stdin, frame)?;
        }
        Continue(())
    }

    fn cmake_script(&mut self, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        if let Some(at) = args.iter().position(|a| a.text == "-P") {
            let script = args.get(at + 1);
            let unseen = script.is_none_or(|s| {
                !s.known
                    || matches!(s.text.as_str(), "-" | "/dev/stdin")
                    || s.text.starts_with("/dev/fd/")
                    || self.is_written(shell, s)
            });
            if unseen {
                self.deny(frame, RuleId::ShellEscape, "`cmake -P` runs a script the guard cannot read (`execute_process` runs any program)")?;
            }
        }
        Continue(())
    }

    fn deno(&mut self, args: &[Arg], frame: &Frame) -> Judged {
        let ops: Vec<&str> = args
            .iter()
            .map(|a| a.text.as_str())
            .filter(|t| *t == "-" || !t.starts_with('-'))
            .collect();
        let why = match ops.as_slice() {
            ["run", "-", ..] => Some("`deno run -` runs code from standard input"),
            ["run", url, ..]
                if url.starts_with("http://")
                    || url.starts_with("https://")
                    || url.starts_with("npm:")
                    || url.starts_with("jsr:") =>
            {
                Some("`deno run` of remote code the guard cannot read")
            }
            ["repl", ..] if args.iter().any(|a| a.text.starts_with("--eval")) => {
                Some("`deno repl --eval` runs code")
            }
            _ => None,
        };
        if let Some(why) = why {
            self.deny(frame, RuleId::ShellEscape, why)?;
        }
        Continue(())
    }

    fn escape(
        &mut self,
        base: &str,
        opts: &[&str],
        stdin_code: bool,
        args: &[Arg],
        stdin: &Stdin,
        frame: &Frame,
    ) -> Judged {
        let code_opt = args.iter().find(|a| {
            opts.iter().any(|o| {
                a.text == *o || (o.starts_with("--") && a.text.starts_with(&format!("{o}=")))
            }) || (base == "stack" || base == "crystal" || base == "nim")
                && opts.contains(&a.text.as_str())
        });
        if let Some(o) = code_opt {
            // Calculators and text tools: only their escapes matter.
            if matches!(base, "dc" | "gnuplot") {
                let code: String = args
                    .iter()
                    .map(|a| a.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                if !code.contains('!') && !code.contains("system") {
                    return Continue(());
                }
            }
            return self.deny(
                frame,
                RuleId::ShellEscape,
                format!("`{base} {}` runs code in a language the guard has no model of; it can run any shell command", o.text),
            );
        }
        let stdin_text = match stdin {
            Stdin::Text(t) => Some(Some(t.as_str())),
            Stdin::Pipe | Stdin::Unknown => Some(None),
            Stdin::Inherited | Stdin::File => None,
        };
        if stdin_code && let Some(text) = stdin_text {
            if let Some(t) = text
                && matches!(base, "dc" | "m4" | "gnuplot")
                && !t.contains('!')
                && !t.contains("syscmd")
                && !t.contains("esyscmd")
                && !t.contains("system")
            {
                return Continue(());
            }
            self.deny(
                frame,
                RuleId::ShellEscape,
                format!("`{base}` reads code from standard input in a language the guard has no model of; it can run any shell command"),
            )?;
        }
        Continue(())
    }
}
