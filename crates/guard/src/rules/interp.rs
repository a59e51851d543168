//! Interpreter one-liners (`python3 -c`, `node -e`, `perl -e`, `ruby -e`,
//! `php -r`, ...) and interpreters reading code from a here-document or a
//! pipe. The code is not parsed as its language; it is scanned for file
//! deletion, for process execution and for dynamic code. When it runs
//! processes, its string literals are judged as shell commands (each alone
//! and all joined), so `subprocess.run(['git','push'])` is a `git push`.
//!
//! Harmless one-liners (`print(1 + 1)`) pass; a script file
//! (`python3 tool.py`) is opaque and passes.

use crate::decision::RuleId;
use crate::rules::{self, Spec};
use crate::walk::{Frame, Shell, Stdin, Walker, WriteMode};
use crate::words::Arg;

/// Calls that delete or truncate files, across the languages.
const DELETES: &[&str] = &[
    "rmtree",
    "os.remove",
    "os.unlink",
    "os.rmdir",
    "removedirs",
    ".unlink(",
    "unlink ",
    "unlink(",
    "rmSync",
    "unlinkSync",
    "rmdirSync",
    "fs.rm(",
    "fs.rmdir(",
    "fs.unlink(",
    "promises.rm(",
    "rimraf",
    "rm_rf",
    "rm_r(",
    "FileUtils.rm",
    "FileUtils.remove",
    "File.delete",
    "Dir.rmdir",
    "Dir.delete",
    "remove_tree",
    "rmdir(",
    "truncate(",
    "send2trash",
];

/// Calls that start processes.
const SPAWNS: &[&str] = &[
    "subprocess",
    "system(",
    "system ",
    "popen",
    "Popen",
    "os.exec",
    "execv",
    "execl",
    "spawn",
    "child_process",
    "execSync",
    "execFile",
    "Open3",
    "IO.popen",
    "qx",
    "%x",
    "pty.",
    "shell_exec",
    "passthru",
    "proc_open",
    "`",
    "exec ",
    "exec(",
];

/// Signs of code built at run time, which the guard cannot see.
const DYNAMIC: &[&str] = &[
    "eval(",
    "exec(",
    "compile(",
    "__import__",
    "b64decode",
    "base64",
    "fromCharCode",
    "new Function",
    "decode(",
    "getattr(",
    "importlib",
    "pack(",
    "chr(",
    "argv",
    "process.env",
    "os.environ",
    "ENV[",
    "$ENV",
    "input(",
    "stdin",
    "STDIN",
    "readFile",
    "read(",
];

/// Words that suggest the code writes files.
const WRITES: &[&str] = &[
    "write",
    "open(",
    "rename",
    "replace(",
    "copy",
    "move",
    "symlink",
    "appendFile",
    "File.new",
];

/// Which interpreter a command is, and how it takes inline code.
struct Lang {
    /// Options whose value is code.
    code_opts: &'static [&'static str],
    /// Short options that take a (non-code) value.
    short_values: &'static str,
    /// Long options that take a value.
    long_values: &'static [&'static str],
    /// Options after which the code is a module name (opaque).
    module_opts: &'static [&'static str],
}

fn lang(base: &str) -> Option<Lang> {
    let python = base.starts_with("python") || base.starts_with("pypy");
    if python {
        return Some(Lang {
            code_opts: &["-c"],
            short_values: "cmWXQ",
            long_values: &["--check-hash-based-pycs"],
            module_opts: &["-m"],
        });
    }
    match base {
        "node" | "nodejs" | "bun" | "deno" => Some(Lang {
            code_opts: &["-e", "--eval", "-p", "--print"],
            short_values: "eprC",
            long_values: &[
                "--eval",
                "--print",
                "--require",
                "--import",
                "--input-type",
                "--conditions",
            ],
            module_opts: &[],
        }),
        "perl" => Some(Lang {
            code_opts: &["-e", "-E"],
            short_values: "eEMmIxd",
            long_values: &[],
            module_opts: &[],
        }),
        "ruby" => Some(Lang {
            code_opts: &["-e"],
            short_values: "erIECx",
            long_values: &[],
            module_opts: &[],
        }),
        "php" => Some(Lang {
            code_opts: &["-r"],
            short_values: "rcdBRFEz",
            long_values: &[],
            module_opts: &[],
        }),
        "lua" | "luajit" => Some(Lang {
            code_opts: &["-e"],
            short_values: "el",
            long_values: &[],
            module_opts: &[],
        }),
        "Rscript" => Some(Lang {
            code_opts: &["-e"],
            short_values: "e",
            long_values: &[],
            module_opts: &[],
        }),
        _ => None,
    }
}

/// String literals in `code`: '...', "..." and `...`, with backslash
/// escapes kept simple. Bounded to keep the work linear.
fn literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        if !matches!(c, '\'' | '"' | '`') {
            continue;
        }
        let mut lit = String::new();
        let mut closed = false;
        while let Some(d) = chars.next() {
            if d == '\\' {
                if let Some(e) = chars.next() {
                    lit.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                }
                continue;
            }
            if d == c {
                closed = true;
                break;
            }
            lit.push(d);
        }
        if closed && !lit.is_empty() {
            out.push(lit);
        }
        if out.len() >= 64 {
            break;
        }
    }
    out
}

impl Walker<'_> {
    /// Judges an interpreter invocation; false when `base` is not one.
    pub(crate) fn interpreter(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> bool {
        let Some(lang) = lang(base) else {
            return false;
        };
        let mut long_values: Vec<&str> = lang.long_values.to_vec();
        long_values.extend(lang.code_opts.iter().filter(|o| o.starts_with("--")));
        let p = rules::parse(
            args,
            &Spec {
                short_values: lang.short_values,
                long_values: &long_values,
                stop_at_operand: true,
            },
        );
        // perl -i / ruby -i edit their file operands in place.
        if matches!(base, "perl" | "ruby") && p.opts.iter().any(|o| o.name == "-i") {
            let files = if p.has(lang.code_opts) {
                &p.operands[..]
            } else {
                p.operands.get(1..).unwrap_or(&[])
            };
            for file in files {
                self.check_write(file, WriteMode::Modify, shell, frame, &format!("{base} -i"));
            }
        }
        let code: Vec<Arg> = p
            .opts
            .iter()
            .filter(|o| lang.code_opts.contains(&o.name.as_str()))
            .filter_map(|o| o.value.clone())
            .collect();
        if !code.is_empty() {
            for piece in &code {
                match piece.exact() {
                    Some(text) => self.judge_code(base, text, shell, frame),
                    None if piece.known => self.judge_code(base, &piece.text, shell, frame),
                    None => self.fail_closed(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} runs code that is not statically known"),
                    ),
                }
            }
            return true;
        }
        if p.has(lang.module_opts) {
            return true;
        }
        if base == "deno" || base == "bun" {
            // `deno eval CODE`, `bun run file`.
            if p.operands.first().is_some_and(|a| a.is("eval"))
                && let Some(code) = p.operands.get(1)
            {
                let text = code.text.clone();
                if code.known {
                    self.judge_code(base, &text, shell, frame);
                } else {
                    self.fail_closed(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} eval of code that is not statically known"),
                    );
                }
            }
            return true;
        }
        match p.operands.first() {
            Some(script) if script.is("-") => self.stdin_code(base, stdin, shell, frame),
            Some(script) => {
                if !script.known {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!(
                            "{base} runs a script `{}` that is not statically known",
                            script.text
                        ),
                    );
                }
            }
            None => self.stdin_code(base, stdin, shell, frame),
        }
        true
    }

    fn stdin_code(&mut self, base: &str, stdin: &Stdin, shell: &mut Shell, frame: &Frame) {
        match stdin {
            Stdin::Text(text) => {
                let text = text.clone();
                self.judge_code(base, &text, shell, frame);
            }
            Stdin::Pipe | Stdin::Unknown => self.fail_closed(
                frame,
                RuleId::Interpreter,
                format!("{base} reads code from a pipe; it is not statically known"),
            ),
            Stdin::Inherited | Stdin::File => {}
        }
    }

    /// Scans inline code and judges what it would do.
    fn judge_code(&mut self, base: &str, code: &str, shell: &mut Shell, frame: &Frame) {
        let origin = format!("{base} code");
        if let Some(call) = DELETES.iter().find(|k| code.contains(*k)) {
            self.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} one-liner deletes files (`{}`)", call.trim()),
            );
            return;
        }
        let lits = literals(code);
        let spawns = SPAWNS.iter().any(|k| code.contains(k));
        let dynamic = DYNAMIC.iter().find(|k| code.contains(*k));
        if spawns {
            if let Some(sign) = dynamic {
                self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!(
                        "{base} one-liner runs commands built at run time (`{}`)",
                        sign.trim()
                    ),
                );
                return;
            }
            if lits.is_empty() {
                self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} one-liner runs a command that is not statically known"),
                );
                return;
            }
            // Each literal may be a command line; a list of literals may
            // be an argv.
            let mut candidates = lits.clone();
            candidates.push(lits.join(" "));
            for candidate in candidates {
                self.script_args(&origin, &[Arg::lit(candidate)], shell, frame, true);
                if self.denial.is_some() {
                    return;
                }
            }
        } else if let Some(sign) =
            dynamic.filter(|s| matches!(**s, "eval(" | "exec(" | "new Function"))
        {
            self.deny(
                frame,
                RuleId::Interpreter,
                format!(
                    "{base} one-liner evaluates code built at run time (`{}`)",
                    sign.trim()
                ),
            );
            return;
        }
        if WRITES.iter().any(|k| code.contains(k)) {
            for lit in &lits {
                if lit.contains(char::is_whitespace) || lit.is_empty() {
                    continue;
                }
                if let Some(absolute) = self.resolve(shell, lit)
                    && self.is_protected(&absolute)
                {
                    self.deny(
                        frame,
                        RuleId::ProtectedPath,
                        format!("{base} one-liner writes `{lit}`, a protected path"),
                    );
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::literals;

    #[test]
    fn literals_are_found() {
        assert_eq!(
            literals("subprocess.run(['git','push','--force'])"),
            vec!["git", "push", "--force"]
        );
        assert_eq!(literals(r#"print("a\"b")"#), vec!["a\"b"]);
    }
}
