//! Interpreter one-liners (`python3 -c`, `node -e`, `perl -e`, `ruby -e`,
//! `php -r`, `lua -e`, `Rscript -e`, `julia -e`, `osascript -e`, `pwsh -c`,
//! ...) and interpreters reading code from a here-document or a pipe.
//!
//! The code is not parsed as its language; it is tokenized (strings,
//! identifiers, punctuation), string literals joined with `+`, `.`, `..`
//! or by juxtaposition are folded into one, and the tokens are judged:
//!
//! - dynamic code or dispatch (`eval`, `exec`, `getattr`, `__import__`,
//!   `send`, `Function`, computed property access, a string naming a
//!   dangerous function, identifiers the interpreter would normalise) is
//!   denied: the guard cannot see what it runs;
//! - file deletion is denied;
//! - each process-spawning call must have literal arguments: its command is
//!   then walked as the shell command (or argv) it is, so
//!   `subprocess.run(['git','push'])` is a `git push` and
//!   `check_output(['git','log','-1'])` is allowed; otherwise it is denied;
//! - files written are checked against the protected paths, and files opened
//!   for writing against the tracked files.
//!
//! Harmless one-liners (`print(1 + 1)`) pass; a script file
//! (`python3 tool.py`) is opaque and passes.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::lang::code::{ArgVal, Family, MAX_TOKENS, Tok, arg_value, matching, split_args, tokens};
use crate::rules::{self, Spec, is_stdin_path, percent_decode};
use crate::walk::Judged;
use crate::walk::{Frame, Shell, Stdin, Walker, WriteMode};
use crate::words::{self, Arg};

/// Which interpreter a command is, and how it takes inline code.
struct Lang {
    family: Family,
    /// Options whose value is code.
    code_opts: &'static [&'static str],
    /// Short options that take a (non-code) value.
    short_values: &'static str,
    /// Long options that take a value.
    long_values: &'static [&'static str],
    /// Options after which the code is a module name (opaque).
    module_opts: &'static [&'static str],
}

/// `php8.2` → `php`, `tclsh8.6` → `tclsh`, `perl5.36` → `perl`: versioned
/// names of the interpreters.
fn unversioned(base: &str) -> &str {
    let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    if trimmed.len() < base.len()
        && matches!(
            trimmed,
            "php"
                | "perl"
                | "ruby"
                | "node"
                | "lua"
                | "luajit"
                | "tclsh"
                | "wish"
                | "julia"
                | "expect"
                | "jimsh"
        )
    {
        trimmed
    } else {
        base
    }
}

/// Whether `base` is an interpreter whose inline code the guard reads (any version).
pub(crate) fn is_interpreter(base: &str) -> bool {
    lang(base).is_some()
}

fn lang(base: &str) -> Option<Lang> {
    let base = unversioned(base);
    let python = base.starts_with("python") || base.starts_with("pypy");
    if python {
        return Some(Lang {
            family: Family::Python,
            code_opts: &["-c"],
            short_values: "cmWXQ",
            long_values: &["--check-hash-based-pycs"],
            module_opts: &["-m"],
        });
    }
    let lang = |family, code_opts, short_values, long_values| Lang {
        family,
        code_opts,
        short_values,
        long_values,
        module_opts: &[],
    };
    match base {
        "node" | "nodejs" | "bun" | "deno" => Some(lang(
            Family::Js,
            &["-e", "--eval", "-p", "--print"],
            "eprC",
            &[
                "--eval",
                "--print",
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
                "--input-type",
                "--conditions",
            ],
        )),
        "perl" | "perl5" => Some(lang(Family::Perl, &["-e", "-E"], "eEMmIxd", &[])),
        "ruby" | "jruby" | "truffleruby" => Some(lang(Family::Ruby, &["-e"], "erIECx", &[])),
        "php" | "php-cli" => Some(lang(
            Family::Php,
            &["-r", "-B", "-R", "-E"],
            "rcdBRFEzt",
            &[],
        )),
        "lua" | "luajit" | "lua5.1" | "lua5.2" | "lua5.3" | "lua5.4" | "texlua" => {
            Some(lang(Family::Lua, &["-e"], "el", &[]))
        }
        "Rscript" => Some(lang(Family::R, &["-e", "--expr"], "e", &[])),
        "R" => Some(lang(Family::R, &["-e"], "ef", &["--file"])),
        "tclsh" | "wish" | "expect" | "jimsh" => Some(lang(Family::Tcl, &["-c"], "cf", &[])),
        "julia" => Some(lang(
            Family::Julia,
            &["-e", "-E", "--eval", "--print"],
            "eEJLCtp",
            &["--eval", "--print", "--project", "--load", "--sysimage"],
        )),
        "osascript" => Some(lang(Family::AppleScript, &["-e"], "els", &[])),
        "pwsh" | "powershell" | "pwsh-preview" | "powershell.exe" | "pwsh.exe" => {
            Some(lang(Family::PowerShell, &[], "", &[]))
        }
        _ => None,
    }
}

/// Calls that delete or truncate files (matched as identifiers outside
/// strings).
fn deletes(family: Family) -> &'static [&'static str] {
    match family {
        Family::Python => &[
            "rmtree",
            "unlink",
            "rmdir",
            "removedirs",
            "truncate",
            "ftruncate",
            "send2trash",
            "rmtree",
        ],
        Family::Js => &[
            "rm",
            "rmSync",
            "unlink",
            "unlinkSync",
            "rmdir",
            "rmdirSync",
            "truncate",
            "truncateSync",
            "ftruncate",
            "ftruncateSync",
            "rimraf",
            "remove",
            "removeSync",
            "emptyDir",
            "emptyDirSync",
            "deleteSync",
        ],
        Family::Perl => &["unlink", "rmtree", "remove_tree", "rmdir", "truncate"],
        Family::Ruby => &[
            "rm",
            "rm_r",
            "rm_rf",
            "rm_f",
            "rmtree",
            "remove",
            "remove_dir",
            "remove_entry",
            "remove_entry_secure",
            "rmdir",
            "unlink",
            "truncate",
        ],
        Family::Php => &["unlink", "rmdir", "ftruncate"],
        Family::Lua | Family::Tcl | Family::AppleScript | Family::PowerShell => &[],
        Family::R => &["unlink"],
        Family::Julia => &["rm"],
    }
}

/// Raw text that deletes files whatever the lexer made of it.
#[rustfmt::skip]
const DELETE_TEXT: &[&str] = &[
    "rmtree", "removedirs", "send2trash", "os.remove", "os.unlink", "rmSync", "unlinkSync",
    "rmdirSync", "rimraf", "rm_rf", "remove_tree", "File.delete", "File::delete", "Dir.delete",
    "Dir::delete", "file.remove", "FileUtils.rm", "FileUtils::rm", "File.unlink", "file_delete",
    "dir_delete",
];

/// Dynamic code and dispatch: the guard cannot see what runs.
fn dynamic(family: Family) -> &'static [&'static str] {
    match family {
        Family::Python => &[
            "eval",
            "exec",
            "compile",
            "__import__",
            "importlib",
            "getattr",
            "setattr",
            "delattr",
            "globals",
            "locals",
            "vars",
            "__builtins__",
            "builtins",
            "__dict__",
            "__getattribute__",
            "__globals__",
            "__code__",
            "__subclasses__",
            "methodcaller",
            "attrgetter",
            "ctypes",
            "cffi",
            "marshal",
            "pickle",
            "runpy",
            "FunctionType",
            "CodeType",
            "exec_module",
            "load_module",
            "plumbum",
            "sarge",
            "envoy",
            "delegator",
            "pdb",
            "timeit",
            "cProfile",
            "profile",
            "doctest",
            "InteractiveInterpreter",
            "InteractiveConsole",
            "interact",
            "Trace",
            "resolve_name",
            "import_module",
            "find_spec",
            "imp",
            "pkgutil",
            "zipimport",
            "modules",
            "__loader__",
            "__spec__",
            "breakpoint",
            // pydoc's pagers run a command given as an argument.
            "pipepager",
            "tempfilepager",
        ],
        Family::Js => &[
            "eval",
            "Function",
            "constructor",
            "globalThis",
            "global",
            "Reflect",
            "runInThisContext",
            "Script",
            "Worker",
            "createRequire",
            "SourceTextModule",
            "runInNewContext",
            "runInContext",
            "compileFunction",
            "binding",
            "_linkedBinding",
            "dlopen",
            "_load",
            "WebAssembly",
        ],
        Family::Perl => &[
            "eval",
            "do",
            "can",
            "UNIVERSAL",
            "Inline",
            "DynaLoader",
            "XSLoader",
            "syscall",
            "AUTOLOAD",
        ],
        Family::Ruby => &[
            "eval",
            "instance_eval",
            "class_eval",
            "module_eval",
            "instance_exec",
            "class_exec",
            "send",
            "__send__",
            "public_send",
            "method",
            "instance_method",
            "define_method",
            "const_get",
            "constantize",
            "binding",
            "ObjectSpace",
            "Fiddle",
            "InstructionSequence",
            "load",
            "Marshal",
            "ERB",
            "instance_variable_get",
        ],
        Family::Php => &[
            "eval",
            "assert",
            "create_function",
            "call_user_func",
            "call_user_func_array",
            "forward_static_call",
            "forward_static_call_array",
            "ReflectionFunction",
            "ReflectionMethod",
            "putenv",
            "extract",
            "parse_str",
            "ffi",
            "FFI",
            "dl",
        ],
        Family::Lua => &[
            "load",
            "loadstring",
            "dofile",
            "loadfile",
            "_G",
            "_ENV",
            "debug",
            "setfenv",
            "getfenv",
            "loadlib",
            "rawget",
        ],
        Family::R => &[
            "eval",
            "evalq",
            "parse",
            "do",
            "match",
            "get",
            "get0",
            "mget",
            "assign",
            "str2lang",
            "str2expression",
            "dyn",
            "Call",
            "External",
            "Recall",
        ],
        Family::Julia => &[
            "eval",
            "Meta",
            "include_string",
            "ccall",
            "getfield",
            "invokelatest",
            "Symbol",
        ],
        Family::Tcl | Family::AppleScript | Family::PowerShell => &[],
    }
}

/// Python dynamic words that are modules (a variable may share the name).
#[rustfmt::skip]
const PY_MODULES: &[&str] = &[
    "importlib", "ctypes", "cffi", "marshal", "pickle", "runpy", "plumbum", "sarge", "envoy",
    "delegator", "pdb", "timeit", "cProfile", "profile", "doctest", "imp", "pkgutil", "zipimport",
    "builtins",
];

/// Functions that start processes, and how their arguments are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spawn {
    /// The first positional argument is the command: a string is a shell
    /// line, a list is an argv.
    First,
    /// Every positional argument: one string is a shell line, several (or a
    /// list) an argv.
    All,
    /// A program, then an argv list whose first item is the program's name
    /// (`os.execvp("git", ["git", "push"])`).
    ProgramArgv0,
    /// A program, then its arguments as a list (`spawn("git", ["push"])`).
    ProgramArgs,
}

fn spawns(family: Family) -> &'static [(&'static str, Spawn)] {
    use Spawn::{All, First, ProgramArgs, ProgramArgv0};
    match family {
        Family::Python => &[
            ("run", First),
            ("call", First),
            ("check_call", First),
            ("check_output", First),
            ("Popen", First),
            ("getoutput", First),
            ("getstatusoutput", First),
            ("system", First),
            ("popen", First),
            ("execv", ProgramArgv0),
            ("execve", ProgramArgv0),
            ("execvp", ProgramArgv0),
            ("execvpe", ProgramArgv0),
            ("execl", ProgramArgv0),
            ("execle", ProgramArgv0),
            ("execlp", ProgramArgv0),
            ("execlpe", ProgramArgv0),
            ("spawnv", ProgramArgv0),
            ("spawnve", ProgramArgv0),
            ("spawnvp", ProgramArgv0),
            ("spawnvpe", ProgramArgv0),
            ("spawnl", ProgramArgv0),
            ("spawnlp", ProgramArgv0),
            ("spawnle", ProgramArgv0),
            ("spawnlpe", ProgramArgv0),
            ("posix_spawn", ProgramArgv0),
            ("posix_spawnp", ProgramArgv0),
            ("spawn", First),
            ("create_subprocess_exec", All),
            ("create_subprocess_shell", First),
        ],
        Family::Js => &[
            ("exec", First),
            ("execSync", First),
            ("execFile", ProgramArgs),
            ("execFileSync", ProgramArgs),
            ("spawn", ProgramArgs),
            ("spawnSync", ProgramArgs),
            ("fork", ProgramArgs),
            ("execa", ProgramArgs),
            ("execaSync", ProgramArgs),
            ("execaCommand", First),
            ("execaCommandSync", First),
            ("run", First),
            ("Command", ProgramArgs),
        ],
        Family::Perl => &[
            ("system", All),
            ("exec", All),
            ("readpipe", First),
            ("open2", All),
            ("open3", All),
        ],
        Family::Ruby => &[
            ("system", All),
            ("exec", All),
            ("spawn", All),
            ("popen", First),
            ("popen2", All),
            ("popen2e", All),
            ("popen3", All),
            ("capture2", All),
            ("capture2e", All),
            ("capture3", All),
            ("pipeline", All),
            ("pipeline_r", All),
            ("pipeline_w", All),
            ("pipeline_rw", All),
            ("pipeline_start", All),
        ],
        Family::Php => &[
            ("system", First),
            ("exec", First),
            ("shell_exec", First),
            ("passthru", First),
            ("proc_open", First),
            ("popen", First),
            ("pcntl_exec", ProgramArgs),
        ],
        Family::Lua => &[("execute", First), ("popen", First)],
        Family::R => &[
            ("system", First),
            ("system2", All),
            ("shell", First),
            ("pipe", First),
            ("run", ProgramArgs),
        ],
        Family::Julia => &[("run", First), ("pipeline", All)],
        Family::Tcl | Family::AppleScript | Family::PowerShell => &[],
    }
}

/// Signs that JavaScript code can start processes.
const JS_SPAWN_TEXT: &[&str] = &[
    "child_process",
    "Bun.",
    "Deno.",
    "execa",
    "shelljs",
    "zx",
    "$`",
];

/// Calls that write files: (name, how).
fn writes(family: Family) -> &'static [(&'static str, WriteMode)] {
    use WriteMode::{Append, Clobber, Modify};
    match family {
        Family::Python => &[
            ("write_text", Clobber),
            ("write_bytes", Clobber),
            ("copy", Clobber),
            ("copy2", Clobber),
            ("copyfile", Clobber),
            ("copytree", Clobber),
            ("move", Clobber),
            ("rename", Clobber),
            ("replace", Clobber),
            ("symlink", Clobber),
            ("symlink_to", Clobber),
            ("link", Clobber),
            ("touch", Modify),
        ],
        Family::Js => &[
            ("writeFile", Clobber),
            ("writeFileSync", Clobber),
            ("writeTextFile", Clobber),
            ("writeTextFileSync", Clobber),
            ("appendFile", Append),
            ("appendFileSync", Append),
            ("createWriteStream", Clobber),
            ("copyFile", Clobber),
            ("copyFileSync", Clobber),
            ("cp", Clobber),
            ("cpSync", Clobber),
            ("rename", Clobber),
            ("renameSync", Clobber),
            ("symlink", Clobber),
            ("symlinkSync", Clobber),
            ("link", Clobber),
            ("linkSync", Clobber),
            ("outputFile", Clobber),
            ("outputFileSync", Clobber),
            ("writeJson", Clobber),
            ("writeJsonSync", Clobber),
            ("move", Clobber),
            ("moveSync", Clobber),
            ("write", Clobber),
        ],
        Family::Perl => &[
            ("rename", Clobber),
            ("copy", Clobber),
            ("move", Clobber),
            ("link", Clobber),
            ("symlink", Clobber),
            ("write_file", Clobber),
            ("spew", Clobber),
        ],
        Family::Ruby => &[
            ("write", Clobber),
            ("binwrite", Clobber),
            ("cp", Clobber),
            ("cp_r", Clobber),
            ("mv", Clobber),
            ("ln", Clobber),
            ("ln_s", Clobber),
            ("ln_sf", Clobber),
            ("rename", Clobber),
            ("symlink", Clobber),
            ("touch", Modify),
            ("install", Clobber),
            ("copy_file", Clobber),
        ],
        Family::Php => &[
            ("file_put_contents", Clobber),
            ("copy", Clobber),
            ("rename", Clobber),
            ("symlink", Clobber),
            ("link", Clobber),
            ("touch", Modify),
        ],
        Family::Lua => &[("rename", Clobber)],
        Family::R => &[
            ("writeLines", Clobber),
            ("write", Clobber),
            ("saveRDS", Clobber),
            ("sink", Clobber),
            ("copy", Clobber),
            ("rename", Clobber),
            ("create", Clobber),
        ],
        Family::Julia => &[
            ("write", Clobber),
            ("cp", Clobber),
            ("mv", Clobber),
            ("touch", Modify),
            ("symlink", Clobber),
        ],
        Family::Tcl | Family::AppleScript | Family::PowerShell => &[],
    }
}

/// Words that suggest the code writes files (for the protected-path check
/// of every literal).
#[rustfmt::skip]
const WRITE_TEXT: &[&str] = &[
    "write", "open", "rename", "replace", "copy", "move", "symlink", "link", "appendFile",
    "File.new", "file_put_contents", "touch", "cp", "mv", "sink", "save", "output", ">",
];

impl Walker<'_> {
    /// Judges an interpreter invocation; false when `base` is not one.
    pub(crate) fn interpreter(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged<bool> {
        let Some(lang) = lang(base) else {
            return Continue(false);
        };
        if lang.family == Family::PowerShell {
            self.powershell(base, args, stdin, shell, frame)?;
            return Continue(true);
        }
        // node's `-pe CODE` is `-p -e CODE`: the code is the next argument.
        let args: Vec<Arg> = if lang.family == Family::Js {
            let mapped: Vec<Arg> = args
                .iter()
                .map(|a| match a.exact() {
                    Some("-pe" | "-ep") => Arg::lit("-e"),
                    _ => a.clone(),
                })
                .collect();
            // `-p -e CODE` / `-e -p CODE`: the first is a flag, the code is
            // the value of the second.
            let is_code_opt = |a: Option<&Arg>| {
                matches!(
                    a.and_then(Arg::exact),
                    Some("-p" | "--print" | "-e" | "--eval")
                )
            };
            mapped
                .iter()
                .enumerate()
                .filter(|(at, a)| !(is_code_opt(Some(a)) && is_code_opt(mapped.get(at + 1))))
                .map(|(_, a)| a.clone())
                .collect()
        } else {
            args.to_vec()
        };
        // Everything after `-m MODULE` belongs to the module (`-m zipfile
        // -e ...`, `-m zipfile -c ...`), even words that look like the
        // interpreter's own options.
        let mut module_args: Option<Vec<Arg>> = None;
        let mut args = args;
        if !lang.module_opts.is_empty() {
            let mut at = 0;
            while let Some(a) = args.get(at) {
                at += 1;
                let Some(t) = a.exact() else { break };
                if !t.starts_with('-') || t == "--" || t.starts_with("--") {
                    break;
                }
                if let Some(pos) = t.find('m')
                    && !t[1..pos].chars().any(|c| lang.short_values.contains(c))
                {
                    let end = if pos + 1 == t.len() { at + 1 } else { at };
                    module_args = Some(args.get(end..).unwrap_or(&[]).to_vec());
                    args.truncate(end.min(args.len()));
                    break;
                }
                if t.len() == 2 && lang.short_values.contains(&t[1..]) {
                    // An option with its value in the next word: skip it.
                    at += 1;
                }
            }
        }
        let mut long_values: Vec<&str> = lang.long_values.to_vec();
        long_values.extend(lang.code_opts.iter().filter(|o| o.starts_with("--")));
        let p = rules::parse(
            &args,
            &Spec {
                short_values: lang.short_values,
                long_values: &long_values,
                stop_at_operand: true,
            },
        );
        // perl -i / ruby -i edit their file operands in place.
        if matches!(lang.family, Family::Perl | Family::Ruby)
            && p.opts.iter().any(|o| o.name == "-i")
        {
            let files = if p.has(lang.code_opts) {
                &p.operands[..]
            } else {
                p.operands.get(1..).unwrap_or(&[])
            };
            for file in files {
                self.check_write(file, WriteMode::Modify, shell, frame, &format!("{base} -i"))?;
            }
        }
        // Code hidden in options that are not the code option.
        for opt in &p.opts {
            let Some(value) = &opt.value else { continue };
            let code = match (lang.family, opt.name.as_str()) {
                // perl -MModule=args / -M'Mod;code' is pasted into `use ...;`.
                (Family::Perl, "-M" | "-m") => Some(format!("use {};", value.text)),
                // node --import/--require data: URLs are code.
                (
                    Family::Js,
                    "--import" | "--require" | "-r" | "--loader" | "--experimental-loader",
                ) if value.text.starts_with("data:") => match value.text.split_once(',') {
                    Some((meta, _)) if meta.contains("base64") => {
                        self.deny(
                            frame,
                            RuleId::Interpreter,
                            format!(
                                "{base} {} loads base64-encoded code the guard cannot read",
                                opt.name
                            ),
                        )?;
                        return Continue(true);
                    }
                    Some((_, body)) => Some(percent_decode(body)),
                    None => None,
                },
                // php -d auto_prepend_file=...: code run before anything else.
                (Family::Php, "-d")
                    if value.text.starts_with("auto_prepend_file")
                        || value.text.starts_with("auto_append_file") =>
                {
                    self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} -d {} runs a file the guard cannot see", value.text),
                    )?;
                    return Continue(true);
                }
                // node -r /dev/stdin: the input is code.
                (Family::Js, "--import" | "--require" | "-r")
                    if value.known && is_stdin_path(&value.text) =>
                {
                    self.stdin_code(base, lang.family, stdin, shell, frame)?;
                    None
                }
                // ruby -rMODULE, lua -lMODULE: names, opaque.
                _ => None,
            };
            if let Some(code) = code {
                if !value.known {
                    self.fail_closed(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} {} is not statically known", opt.name),
                    )?;
                    return Continue(true);
                }
                self.judge_code(base, lang.family, &code, shell, frame)?;
            }
        }
        let code: Vec<Arg> = p
            .opts
            .iter()
            .filter(|o| lang.code_opts.contains(&o.name.as_str()))
            .filter_map(|o| o.value.clone())
            .collect();
        if !code.is_empty() {
            if code.iter().any(|piece| !piece.known) {
                self.fail_closed(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} runs code that is not statically known"),
                )?;
                return Continue(true);
            }
            // perl/ruby join several -e with newlines: judge them as one.
            let joined = code
                .iter()
                .map(|piece| piece.text.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            if lang.family == Family::AppleScript && jxa(&p) {
                self.judge_jxa(base, &joined, frame)?;
            } else {
                self.judge_code(base, lang.family, &joined, shell, frame)?;
            }
            return Continue(true);
        }
        if let Some(module) = p.value(lang.module_opts) {
            let after = module_args.clone().unwrap_or_else(|| p.operands.clone());
            self.python_module(base, module, &after, stdin, shell, frame)?;
            return Continue(true);
        }
        if base == "deno" || base == "bun" {
            // `deno eval CODE`, `bun run file`.
            if p.operands.first().is_some_and(|a| a.is("eval")) {
                // `deno eval [-p] [--ext=ts] CODE`: every operand that is not
                // an option may be the code.
                for code in p
                    .operands
                    .iter()
                    .skip(1)
                    .filter(|a| !a.text.starts_with('-'))
                {
                    if code.known {
                        let text = code.text.clone();
                        self.judge_code(base, lang.family, &text, shell, frame)?;
                    } else {
                        self.fail_closed(
                            frame,
                            RuleId::Interpreter,
                            format!("{base} eval of code that is not statically known"),
                        )?;
                    }
                }
                return Continue(true);
            }
            // `deno repl --eval CODE`, `deno run data:...`: code after the
            // subcommand.
            let mut iter = p.operands.iter().skip(1).peekable();
            while let Some(arg) = iter.next() {
                let code = if arg.is("--eval") || arg.is("-e") {
                    iter.next().cloned()
                } else if let Some(v) = arg.text.strip_prefix("--eval=") {
                    Some(Arg {
                        text: v.to_owned(),
                        ..arg.clone()
                    })
                } else if let Some(url) = arg.text.strip_prefix("data:") {
                    match url.split_once(',') {
                        Some((meta, _)) if meta.contains("base64") => {
                            self.deny(
                                frame,
                                RuleId::Interpreter,
                                format!("{base} runs base64-encoded code the guard cannot read"),
                            )?;
                            return Continue(true);
                        }
                        Some((_, body)) => Some(Arg {
                            text: percent_decode(body),
                            ..arg.clone()
                        }),
                        None => None,
                    }
                } else {
                    None
                };
                let Some(code) = code else { continue };
                if code.known {
                    self.judge_code(base, lang.family, &code.text, shell, frame)?;
                } else {
                    self.fail_closed(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} runs code that is not statically known"),
                    )?;
                }
            }
            return Continue(true);
        }
        if base == "R" && p.operands.first().is_some_and(|a| a.is("CMD")) {
            return Continue(true);
        }
        match p.operands.first() {
            Some(script) if script.is("-") => {
                self.stdin_code(base, lang.family, stdin, shell, frame)?
            }
            Some(script) => {
                if !script.known {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!(
                            "{base} runs a script `{}` that is not statically known",
                            script.text
                        ),
                    )?;
                } else {
                    // Opaque otherwise, but a script that names pawl's own files reaches them.
                    let script = script.clone();
                    self.reach_in_script_file(base, &script, shell, frame)?;
                }
            }
            None => {
                if lang.family == Family::Julia && p.has(&["-L", "--load"]) {
                    return Continue(true);
                }
                self.stdin_code(base, lang.family, stdin, shell, frame)?;
            }
        }
        Continue(true)
    }

    /// `python -m MODULE ...`: modules that run code given as arguments or
    /// on standard input are judged as that code; other modules are opaque.
    fn python_module(
        &mut self,
        base: &str,
        module: &Arg,
        operands: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let Some(name) = module.exact() else {
            // A module named by an inherited variable, asked only for its usage or version
            // (`python -m ${MODULE_NAME} --help`): as `"$BIN" --help`, whatever it is.
            if crate::walk::only_information(operands)
                && self
                    .inherited_program_word(&module.text, shell, frame)
                    .is_some()
            {
                return Continue(());
            }
            return self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("{base} -m of a module that is not statically known"),
            );
        };
        match name {
            "timeit" | "cProfile" | "profile" | "trace" | "pdb" | "IPython" | "ipython"
            | "code" | "idlelib" | "runpy" => {
                // timeit runs its operands (and -s setup) as code; the others
                // run `-c` code, scripts or their input.
                let mut code = Vec::new();
                let mut iter = operands.iter();
                while let Some(arg) = iter.next() {
                    if !arg.known {
                        return self.fail_closed(
                            frame,
                            RuleId::Interpreter,
                            format!("{base} -m {name} runs code that is not statically known"),
                        );
                    }
                    match arg.text.as_str() {
                        "-s" | "--setup" | "-c" | "--command" => {
                            code.extend(iter.next().map(|a| a.text.clone()))
                        }
                        t if t.starts_with("--setup=") => {
                            code.push(t["--setup=".len()..].to_owned())
                        }
                        "-n" | "--number" | "-r" | "--repeat" | "-u" | "--unit" | "-o"
                        | "--outfile" | "-m" => {
                            iter.next();
                        }
                        t if t.starts_with('-') => {}
                        t => {
                            if name == "timeit" {
                                code.push(t.to_owned());
                            } else {
                                // A script or module run by the profiler: opaque.
                                break;
                            }
                        }
                    }
                }
                if code.is_empty()
                    && matches!(name, "code" | "idlelib" | "IPython" | "ipython" | "pdb")
                {
                    return self.stdin_code(base, Family::Python, stdin, shell, frame);
                }
                for piece in code {
                    self.judge_code(base, Family::Python, &piece, shell, frame)?;
                }
            }
            "zipfile" | "tarfile" => self.python_archive(base, name, operands, shell, frame)?,
            "json.tool" => {
                // json.tool [options] [infile [outfile]]: writes outfile.
                let mut files = Vec::new();
                let mut iter = operands.iter();
                while let Some(arg) = iter.next() {
                    match arg.exact() {
                        Some("--indent") => {
                            iter.next();
                        }
                        Some(t) if t.starts_with('-') && t != "-" => {}
                        _ => files.push(arg),
                    }
                }
                if let Some(out) = files.get(1) {
                    self.check_write(
                        out,
                        WriteMode::Clobber,
                        shell,
                        frame,
                        &format!("{base} -m json.tool"),
                    )?;
                }
            }
            "venv" | "virtualenv" => {
                // `--clear` deletes everything in the directory first.
                let clears = operands.iter().any(|a| {
                    a.exact()
                        .is_some_and(|t| t.starts_with("--cl") && "--clear".starts_with(t))
                });
                let unknown_option = operands.iter().any(|a| !a.known && a.text.starts_with('-'));
                if unknown_option {
                    return self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("{base} -m {name} with an option that is not statically known"),
                    );
                }
                if clears {
                    for dir in operands.iter().filter(|a| !a.text.starts_with('-')) {
                        if !self.in_allowance(shell, dir) {
                            return self.deny(
                                frame,
                                RuleId::RecursiveDelete,
                                format!(
                                    "{base} -m {name} --clear empties `{}`, which is not a build output, virtualenv, /tmp or $TMPDIR",
                                    dir.text
                                ),
                            );
                        }
                    }
                }
            }
            // pydoc -w NAME writes NAME.html; -p/-b serve.
            "pydoc" if operands.iter().any(|a| a.is("-w")) => {
                for name in operands.iter().filter(|a| !a.text.starts_with('-')) {
                    let out = Arg {
                        text: format!("{}.html", name.text),
                        ..name.clone()
                    };
                    self.check_write(
                        &out,
                        WriteMode::Clobber,
                        shell,
                        frame,
                        &format!("{base} -m pydoc -w"),
                    )?;
                }
            }
            // python -m gzip -d FILE.gz writes FILE.
            "gzip" if operands.iter().any(|a| a.is("-d") || a.is("--decompress")) => {
                for file in operands.iter().filter(|a| !a.text.starts_with('-')) {
                    let out = Arg {
                        text: file
                            .text
                            .strip_suffix(".gz")
                            .unwrap_or(&file.text)
                            .to_owned(),
                        ..file.clone()
                    };
                    self.check_write(
                        &out,
                        WriteMode::Clobber,
                        shell,
                        frame,
                        &format!("{base} -m {name} -d"),
                    )?;
                }
            }
            _ => {}
        }
        Continue(())
    }

    /// `python -m zipfile|tarfile`: `-e ARCHIVE DIR` extracts files the
    /// guard cannot list (only into an allowance); `-c OUT FILES` writes OUT.
    fn python_archive(
        &mut self,
        base: &str,
        name: &str,
        operands: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let what = format!("{base} -m {name}");
        let mut index = 0;
        while index < operands.len() {
            let arg = &operands[index];
            index += 1;
            let Some(text) = arg.exact() else {
                if arg.text.starts_with('-') {
                    return self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("{what} with an option that is not statically known"),
                    );
                }
                continue;
            };
            let (flag, inline) = match text.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v)),
                _ => (text, None),
            };
            let long = |full: &str| flag.len() > 3 && full.starts_with(flag);
            // Short options cluster (`-ve` is `-v -e`); the rest of the word
            // after the letter is its first value.
            let short = |letter: char| -> Option<Option<&str>> {
                let cluster = flag.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
                let at = cluster.find(letter)?;
                let rest = &cluster[at + 1..];
                Some((!rest.is_empty()).then_some(rest))
            };
            let (flag, inline) = match (short('e'), short('c')) {
                (Some(value), _) => ("-e", value.or(inline)),
                (None, Some(value)) => ("-c", value.or(inline)),
                _ => (flag, inline),
            };
            if flag == "-e" || long("--extract") {
                // -e ARCHIVE [DIR] (zipfile: DIR required; tarfile: optional).
                let mut rest: Vec<Arg> = inline.map(Arg::lit).into_iter().collect();
                rest.extend(operands[index..].iter().cloned());
                let dir = rest.get(1).cloned().unwrap_or_else(|| Arg::lit("."));
                if !self.in_allowance(shell, &dir) {
                    self.deny(
                        frame,
                        RuleId::NotStatic,
                        format!(
                            "{what} -e writes the archive's files, which the guard cannot list, into `{}`: they may overwrite tracked or protected files; extract into /tmp or a build directory and copy what you need",
                            dir.text
                        ),
                    )?;
                }
                return Continue(());
            }
            if flag == "-c" || long("--create") {
                let out = match inline {
                    Some(v) => Some(Arg::lit(v)),
                    None => operands.get(index).cloned(),
                };
                if let Some(out) = out {
                    self.check_write(
                        &out,
                        WriteMode::Clobber,
                        shell,
                        frame,
                        &format!("{what} -c"),
                    )?;
                }
                return Continue(());
            }
        }
        Continue(())
    }

    fn stdin_code(
        &mut self,
        base: &str,
        family: Family,
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match stdin {
            Stdin::Text(text) => {
                let text = text.clone();
                self.judge_code(base, family, &text, shell, frame)?;
            }
            Stdin::Pipe | Stdin::Unknown => self.fail_closed(
                frame,
                RuleId::Interpreter,
                format!("{base} reads code from a pipe; it is not statically known"),
            )?,
            Stdin::Inherited | Stdin::File => {}
        }
        Continue(())
    }

    /// PowerShell: `-Command` (any abbreviation, any case) and the rest of
    /// the line after it are code; `-EncodedCommand` is unreadable; a
    /// script file is opaque.
    fn powershell(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            let Some(text) = arg.exact() else {
                return self.fail_closed(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} argument `{}` is not statically known", arg.text),
                );
            };
            let lower = text.to_ascii_lowercase();
            let Some(name) = lower.strip_prefix('-').or_else(|| lower.strip_prefix('/')) else {
                // The first operand is a script file (pwsh) or a command
                // (Windows PowerShell): treat it as code, to be safe.
                let rest: Vec<String> = args[index - 1..].iter().map(|a| a.text.clone()).collect();
                return self.judge_powershell(base, &rest.join(" "), shell, frame);
            };
            let name = name.trim_start_matches('-');
            if !name.is_empty()
                && ("encodedcommand".starts_with(name)
                    && name.starts_with('e')
                    && name != "ex"
                    && !"executionpolicy".starts_with(name)
                    || matches!(name, "e" | "ec" | "en" | "enc"))
            {
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} {text} runs encoded code the guard cannot read"),
                );
            }
            if !name.is_empty()
                && "command".starts_with(name)
                && name.starts_with('c')
                && !"configurationname".starts_with(name)
                || name == "c"
            {
                let rest: Vec<&Arg> = args[index..].iter().collect();
                if rest.iter().any(|a| !a.known) {
                    return self.fail_closed(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} runs code that is not statically known"),
                    );
                }
                let code: Vec<&str> = rest.iter().map(|a| a.text.as_str()).collect();
                if code == ["-"] {
                    if let Stdin::Text(t) = stdin {
                        let t = t.clone();
                        self.judge_powershell(base, &t, shell, frame)?;
                    } else if matches!(stdin, Stdin::Pipe | Stdin::Unknown) {
                        self.fail_closed(
                            frame,
                            RuleId::Interpreter,
                            format!("{base} reads code from a pipe"),
                        )?;
                    }
                    return Continue(());
                }
                return self.judge_powershell(base, &code.join(" "), shell, frame);
            }
            if !name.is_empty() && "file".starts_with(name) && name.starts_with('f') {
                return Continue(());
            }
            if matches!(
                name,
                "executionpolicy"
                    | "ex"
                    | "ep"
                    | "workingdirectory"
                    | "wd"
                    | "configurationname"
                    | "settingsfile"
                    | "windowstyle"
                    | "w"
                    | "outputformat"
                    | "o"
                    | "of"
                    | "inputformat"
                    | "if"
                    | "custompipename"
                    | "version"
                    | "v"
            ) {
                index += 1;
            }
        }
        if matches!(stdin, Stdin::Text(_) | Stdin::Pipe | Stdin::Unknown) {
            self.fail_closed(
                frame,
                RuleId::Interpreter,
                format!("{base} reads code from its input; the guard does not model PowerShell"),
            )?;
        }
        Continue(())
    }

    fn judge_powershell(
        &mut self,
        base: &str,
        code: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        #[rustfmt::skip]
        const DANGER: &[&str] = &[
            "invoke-expression", "iex", "invoke-command", "icm", "start-process", "saps", "start",
            "remove-item", "ri", "rm", "rmdir", "del", "erase", "rd", "clear-content", "clc",
            "set-content", "sc", "out-file", "add-content", "ac", "new-item", "ni", "move-item",
            "mi", "move", "mv", "copy-item", "cpi", "copy", "cp", "rename-item", "rni", "ren",
            "invoke-item", "ii", "scriptblock", "frombase64string", "encodedcommand", "process",
            "system.io", "io.file", "io.directory", "diagnostics", "new-object", "add-type",
            "invoke-webrequest", "iwr", "invoke-restmethod", "irm", "set-alias", "new-alias",
            "sal", "nal", "set-item", "si", "set-location", "cd", "sl", "push-location",
        ];
        let lower = code.to_ascii_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        let hit = words.iter().find(|w| {
            DANGER.contains(w) || DANGER.iter().any(|d| d.contains('.') && w.contains(d))
        });
        if let Some(word) = hit {
            return self.deny(frame, RuleId::Interpreter, format!("{base} code uses `{word}`, which runs commands, deletes or writes files; the guard does not model PowerShell"));
        }
        if code.contains('&')
            || code.contains('$')
            || code.contains('`')
            || code.contains('>')
            || code.contains('[')
            || !code.is_ascii()
        {
            return self.deny(frame, RuleId::Interpreter, format!("{base} code uses `&`, `$`, `>`, `[` or escapes; the guard does not model PowerShell"));
        }
        // What is left is a list of commands like a shell's.
        self.script_args(
            &format!("{base} code"),
            &[Arg::lit(code)],
            shell,
            frame,
            true,
        )
    }

    /// Judges inline code.
    fn judge_code(
        &mut self,
        base: &str,
        family: Family,
        code: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let origin = format!("{base} code");
        let deny = |this: &mut Self, why: String| {
            this.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} one-liner {why}"),
            )
        };
        if family == Family::Tcl {
            return self.judge_tcl(base, code, frame);
        }
        if family == Family::AppleScript {
            return self.judge_applescript(base, code, shell, frame);
        }
        let toks = tokens(code, family);
        if toks.len() >= MAX_TOKENS {
            return deny(self, "is too long for the guard to analyse".into());
        }
        // pawl's own files named in the code (`sqlite3.connect(".pawl/pawl.db")`): no
        // interpreter may open them, for reading or writing.
        self.reach_in_code(
            &format!("{base} one-liner"),
            toks.iter().filter_map(Tok::literal),
            true,
            shell,
            frame,
        )?;
        // Identifiers the interpreter would normalise (NFKC) or escapes.
        if let Some(Tok::Odd(c)) = toks.iter().find(|t| matches!(t, Tok::Odd(_))) {
            return deny(
                self,
                format!(
                    "has `{c}` outside a string (identifiers the interpreter may normalise or unescape); the guard cannot tell what it calls"
                ),
            );
        }
        let idents: Vec<&str> = toks.iter().filter_map(Tok::ident).collect();
        // JavaScript: a process or file module's members enumerated or
        // called indirectly.
        // The module name may be built from pieces (`"child" + "_process"`):
        // folded literals count too.
        let js_spawn_text = family == Family::Js
            && (JS_SPAWN_TEXT.iter().any(|k| code.contains(k))
                || toks
                    .iter()
                    .filter_map(Tok::literal)
                    .any(|l| JS_SPAWN_TEXT.iter().any(|k| l.contains(k))));
        let js_spawns = js_spawn_text;
        let js_files = family == Family::Js
            && ["\"fs\"", "'fs'", "fs/promises", "node:fs", "fs-extra"]
                .iter()
                .any(|k| code.contains(k));
        if js_spawns || js_files {
            let indirect = toks.iter().enumerate().find_map(|(at, t)| match t {
                Tok::Ident(w)
                    if matches!(
                        w.as_str(),
                        "values"
                            | "entries"
                            | "getOwnPropertyNames"
                            | "apply"
                            | "call"
                            | "bind"
                            | "Proxy"
                            | "with"
                            | "Reflect"
                    ) || js_spawns
                        && matches!(w.as_str(), "keys" | "assign" | "fromEntries") =>
                {
                    Some(w.clone())
                }
                Tok::Punct('[')
                    if js_spawns && at >= 1 && matches!(toks[at - 1], Tok::Punct(')' | ']')) =>
                {
                    Some("[...]".to_owned())
                }
                _ => None,
            });
            if let Some(word) = indirect {
                return deny(
                    self,
                    format!(
                        "loads a process or file module and uses `{word}` on it (an indirect call); the guard cannot see what it runs"
                    ),
                );
            }
        }
        // Dynamic code and dispatch.
        if let Some(word) = self.dynamic_sign(family, &toks) {
            return deny(
                self,
                format!(
                    "uses `{word}` (code or a call chosen at run time); the guard cannot see what it runs"
                ),
            );
        }
        if let Some(why) = self.aliased_primitive(family, &toks) {
            return deny(self, why);
        }
        if family == Family::Python {
            self.python_extracts(base, &toks, shell, frame)?;
        }
        // Deletion.
        let delete_words = deletes(family);
        let delete_hit = idents
            .iter()
            .find(|w| delete_words.contains(w))
            .map(|w| (*w).to_owned())
            .or_else(|| {
                DELETE_TEXT
                    .iter()
                    .find(|k| code.contains(*k))
                    .map(|k| (*k).to_owned())
            })
            .or_else(|| {
                (family == Family::Python
                    && idents.contains(&"remove")
                    && (code.contains("from os import") || code.contains("os.remove")))
                .then(|| "os.remove".to_owned())
            })
            .or_else(|| {
                (family == Family::Lua && code.contains("os.remove"))
                    .then(|| "os.remove".to_owned())
            });
        if let Some(call) = delete_hit {
            // Every deletion naming, as its first argument, a literal path the policy lets
            // `rm -r` remove (`shutil.rmtree("/tmp/x")`, `fs.rmSync("dist", ...)`) is a debris
            // clean, not a deletion of work.
            // Raw text that deletes must be exactly the calls judged here (not hidden in a
            // string or built some other way).
            let raw_ok = DELETE_TEXT.iter().all(|k| {
                let calls = toks
                    .iter()
                    .filter(|t| matches!(t, Tok::Ident(n) if n == k))
                    .count();
                code.matches(*k).count() == calls
            });
            let debris = raw_ok
                && toks.iter().enumerate().all(|(at, t)| {
                    let Tok::Ident(name) = t else { return true };
                    if !delete_words.contains(&name.as_str()) {
                        return true;
                    }
                    let literal = match (toks.get(at + 1), toks.get(at + 2)) {
                        (
                            Some(open),
                            Some(Tok::Str {
                                text,
                                dynamic: false,
                            }),
                        ) if open.is_punct('(') => Some(text.clone()),
                        _ => None,
                    };
                    literal.is_some_and(|p| !p.is_empty() && self.in_allowance(shell, &Arg::lit(p)))
                });
            if !debris {
                return deny(self, format!("deletes files (`{call}`)"));
            }
        }
        // A string naming a dangerous function: a callback or dispatch by name.
        let spawn_names = spawns(family);
        let named = |s: &str| {
            delete_words.contains(&s)
                || spawn_names.iter().any(|(n, _)| {
                    *n == s && !matches!(s, "run" | "call" | "Command" | "pipe" | "shell")
                })
                || dynamic(family).contains(&s)
        };
        let dispatched = toks.iter().enumerate().find_map(|(at, t)| {
            let name = t.literal().filter(|s| named(s))?;
            let member = at >= 2
                && toks[at - 1].is_punct('[')
                && matches!(toks[at - 2], Tok::Ident(_) | Tok::Punct(')' | ']'))
                && toks.get(at + 1).is_some_and(|n| n.is_punct(']'));
            (family == Family::Php || member).then_some(name)
        });
        if let Some(name) = dispatched {
            return deny(
                self,
                format!(
                    "names the function `{name}` in a string (a callback or a call by name); the guard cannot see what it runs"
                ),
            );
        }
        // Processes.
        let capable = match family {
            Family::Python => idents.iter().any(|w| {
                matches!(
                    *w,
                    "subprocess"
                        | "os"
                        | "pty"
                        | "commands"
                        | "asyncio"
                        | "pexpect"
                        | "sh"
                        | "plumbum"
                        | "posix_spawn"
                        | "popen2"
                )
            }),
            Family::Js => js_spawn_text,
            Family::Lua => idents.iter().any(|w| matches!(*w, "os" | "io")),
            // Perl, Ruby, PHP, R and Julia run commands with builtins
            // (system, backticks, open with a pipe).
            Family::Perl | Family::Ruby | Family::Php | Family::R | Family::Julia => true,
            // Tcl, AppleScript and PowerShell are judged on their own.
            Family::Tcl | Family::AppleScript | Family::PowerShell => true,
        } || toks.iter().any(|t| matches!(t, Tok::Cmd { .. }));
        if capable {
            let commands = match self.spawn_commands(family, &toks) {
                Ok(commands) => commands,
                Err(why) => {
                    return deny(self, why);
                }
            };
            if !commands.is_empty()
                && let Some(how) = mutates_environment(family, &toks)
            {
                return deny(
                    self,
                    format!(
                        "changes the environment (`{how}`) of the commands it runs; the guard cannot see what they would do"
                    ),
                );
            }
            let moves = idents
                .iter()
                .any(|w| matches!(*w, "chdir" | "chdir_p" | "cd" | "setwd" | "pushd"));
            for command in commands {
                // The command's input may be fed by the code, and it runs in
                // whatever directory the code moved to.
                let mut sub = shell.clone();
                if command.elsewhere || moves {
                    sub.cwd = None;
                }
                self.walk_piped_shell(&origin, &command.text, &sub, frame)?;
            }
        }
        // pydoc's pager and help() run $PAGER, which the code may have set.
        if family == Family::Python
            && idents
                .iter()
                .any(|w| matches!(*w, "pager" | "getpager" | "help"))
            && let Some(how) = mutates_environment(family, &toks)
        {
            return deny(
                self,
                format!(
                    "changes the environment (`{how}`) and then pages text through $PAGER; the guard cannot see what it runs"
                ),
            );
        }
        // Writes.
        self.code_writes(base, family, code, &toks, shell, frame)
    }

    /// A function or module that runs commands, deletes or writes files,
    /// referred to without being called (`f = open`, `from os import system
    /// as s`, `map(os.system, ...)`, `const {execSync: run} = ...`), or a
    /// module loaded by a name built at run time (`require(x)`): later calls
    /// through the alias are invisible to the guard.
    fn aliased_primitive(&self, family: Family, toks: &[Tok]) -> Option<String> {
        if !matches!(family, Family::Python | Family::Js) {
            return None;
        }
        let primitive = |w: &str| {
            spawns(family).iter().any(|(n, _)| *n == w)
                || deletes(family).contains(&w)
                || writes(family).iter().any(|(n, _)| *n == w)
                || matches!(w, "open" | "popen" | "pipepager" | "tempfilepager" | "pipe")
                || family == Family::Js && matches!(w, "child_process" | "execSync" | "spawnSync")
        };
        // A module that runs commands or touches files is loaded: any of
        // its members may be bound to a name (`c = require(...); f = c.exec`).
        let loaded = toks.iter().any(|t| match t {
            Tok::Ident(w) => matches!(
                w.as_str(),
                "os" | "shutil" | "subprocess" | "pathlib" | "pty" | "posix" | "pydoc" | "asyncio"
            ),
            Tok::Str { text, .. } => {
                family == Family::Js
                    && (JS_SPAWN_TEXT.iter().any(|k| text.contains(k))
                        || matches!(
                            text.as_str(),
                            "fs" | "node:fs" | "fs/promises" | "node:fs/promises" | "fs-extra"
                        ))
            }
            _ => false,
        });
        for (at, tok) in toks.iter().enumerate() {
            let Tok::Ident(w) = tok else { continue };
            if family == Family::Js
                && matches!(w.as_str(), "require" | "import")
                && toks.get(at + 1).is_some_and(|t| t.is_punct('('))
                && !(at >= 1 && toks[at - 1].is_punct('.'))
            {
                let literal = matches!(
                    (toks.get(at + 2), toks.get(at + 3)),
                    (Some(t), Some(close)) if t.literal().is_some() && close.is_punct(')')
                );
                if !literal {
                    return Some(format!(
                        "loads a module whose name is built at run time (`{w}(...)`); the guard cannot see what it runs"
                    ));
                }
                continue;
            }
            if !primitive(w) {
                continue;
            }
            let next = toks.get(at + 1);
            if next.is_some_and(|n| n.is_punct('(')) {
                continue;
            }
            // Aliased on import: `from os import system as s`.
            if next.and_then(Tok::ident) == Some("as") {
                return Some(format!(
                    "binds `{w}` to another name; the guard cannot follow calls through it"
                ));
            }
            // JS destructuring with a new name: `{ execSync: run }`.
            if family == Family::Js
                && next.is_some_and(|n| n.is_punct(':'))
                && toks.get(at + 2).and_then(Tok::ident).is_some()
                && at >= 1
                && matches!(toks[at - 1], Tok::Punct('{' | ','))
                && spawns(family).iter().any(|(n, _)| n == w)
            {
                return Some(format!(
                    "binds `{w}` to another name; the guard cannot follow calls through it"
                ));
            }
            if next.is_some_and(|n| n.is_punct('.') || n.is_punct('=') || n.is_punct(':')) {
                continue;
            }
            // The token before the dotted name it ends (`os.system`).
            let mut start = at;
            // ... or the call it is a member of (`require("fs").writeFileSync`).
            while start >= 2 && toks[start - 1].is_punct('.') {
                if toks[start - 2].ident().is_some() {
                    start -= 2;
                } else if toks[start - 2].is_punct(')')
                    && let Some(open) = open_before(toks, start - 2)
                {
                    start = open;
                    if start >= 1 && toks[start - 1].ident().is_some() {
                        start -= 1;
                    }
                } else {
                    break;
                }
            }
            // A member of something else (`entry.link`, `d.copy`) only
            // counts on modules that run commands or touch files.
            if start != at && !loaded {
                let root = toks[start].ident().unwrap_or("");
                let call_root = toks.get(start + 1).is_some_and(|t| t.is_punct('('));
                let module = matches!(
                    root,
                    "os" | "shutil"
                        | "subprocess"
                        | "pathlib"
                        | "Path"
                        | "pty"
                        | "io"
                        | "builtins"
                        | "posix"
                        | "nt"
                        | "pydoc"
                        | "asyncio"
                        | "child_process"
                        | "cp"
                        | "fs"
                        | "fsp"
                        | "fse"
                        | "process"
                        | "promises"
                );
                if !(module || call_root) {
                    continue;
                }
            }
            let Some(prev) = start.checked_sub(1).map(|p| &toks[p]) else {
                continue;
            };
            let referenced = prev.is_punct('=')
                || prev.is_punct('(')
                || prev.is_punct('[')
                || (family == Family::Python
                    && (prev.is_punct(',') || prev.is_punct(':'))
                    && !statement_has(toks, at, &["import", "from", "def", "lambda"]))
                || prev.ident() == Some("return");
            // `x == open` compares; `f(key=open)` passes it on.
            let compares = start >= 2 && toks[start - 2].is_punct('=') && prev.is_punct('=')
                || start >= 2 && toks[start - 2].is_punct('!') && prev.is_punct('=');
            if referenced && !compares {
                return Some(format!(
                    "refers to `{w}` without calling it (an alias or a callback); the guard cannot follow calls through it"
                ));
            }
        }
        None
    }

    /// Python archives extracted (`extractall`, `extract`,
    /// `shutil.unpack_archive`) and trees merged (`copytree(...,
    /// dirs_exist_ok=True)`): they write files the guard cannot list, so
    /// the destination must be a build output, /tmp or $TMPDIR.
    fn python_extracts(
        &mut self,
        base: &str,
        toks: &[Tok],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        for (at, tok) in toks.iter().enumerate() {
            let Tok::Ident(w) = tok else { continue };
            let (position, keyword) = match w.as_str() {
                "extractall" => (0, "path"),
                "extract" => (1, "path"),
                "unpack_archive" => (1, "extract_dir"),
                "copytree" => (1, "dst"),
                _ => continue,
            };
            if !toks.get(at + 1).is_some_and(|t| t.is_punct('(')) {
                continue;
            }
            let Some(args) = self.call_tokens(Family::Python, toks, at) else {
                continue;
            };
            let args = split_args(&args);
            let named = |name: &str| {
                args.iter().copied().find_map(|a| match a {
                    [Tok::Ident(n), Tok::Punct('='), rest @ ..] if n == name => Some(rest),
                    _ => None,
                })
            };
            if w == "copytree" {
                let merges = named("dirs_exist_ok")
                    .is_some_and(|v| !matches!(v, [Tok::Ident(f)] if f == "False"));
                if !merges {
                    continue;
                }
            }
            let positional: Vec<&[Tok]> = args
                .iter()
                .copied()
                .filter(|a| !matches!(a, [Tok::Ident(_), Tok::Punct('='), ..]))
                .collect();
            let dest = named(keyword).or_else(|| positional.get(position).copied());
            let dir = match dest {
                None => Some(".".to_owned()),
                Some([t]) => t.literal().map(str::to_owned),
                Some(_) => None,
            };
            let allowed = dir
                .as_ref()
                .is_some_and(|d| self.in_allowance(shell, &Arg::lit(d)));
            if !allowed {
                return self.deny(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "{base} one-liner `{w}` writes files the guard cannot list into `{}`: they may overwrite tracked or protected files; extract or copy into /tmp or a build directory",
                        dir.as_deref().unwrap_or("a directory named at run time")
                    ),
                );
            }
        }
        Continue(())
    }

    /// The first sign of dynamic code or dispatch in `toks`.
    fn dynamic_sign(&self, family: Family, toks: &[Tok]) -> Option<String> {
        let words = dynamic(family);
        for (at, tok) in toks.iter().enumerate() {
            let next = toks.get(at + 1);
            let prev = at.checked_sub(1).and_then(|p| toks.get(p));
            match tok {
                Tok::Ident(w) if words.contains(&w.as_str()) => {
                    // Perl `eval { ... }` is exception handling, not code.
                    if family == Family::Perl
                        && w == "eval"
                        && next.is_some_and(|n| n.is_punct('{'))
                    {
                        continue;
                    }
                    if family == Family::Perl && w == "do" && next.is_some_and(|n| n.is_punct('{'))
                    {
                        continue;
                    }
                    // Methods of the same name on other objects: re.compile,
                    // JSON.load, YAML.load.
                    let after_dot = prev.is_some_and(|p| p.is_punct('.'));
                    if family == Family::Python && w == "compile" && after_dot {
                        continue;
                    }
                    // Python modules count when used or imported, not as
                    // names of variables (`profile = ...`).
                    if family == Family::Python
                        && PY_MODULES.contains(&w.as_str())
                        && !next.is_some_and(|n| n.is_punct('.'))
                        && !statement_has(toks, at, &["import", "from"])
                    {
                        continue;
                    }
                    if matches!(family, Family::Ruby | Family::Lua)
                        && w == "load"
                        && after_dot
                        && at >= 2
                        && toks[at - 2].ident().is_some_and(|r| {
                            matches!(
                                r,
                                "JSON" | "YAML" | "Psych" | "Oj" | "TOML" | "json" | "yaml"
                            )
                        })
                    {
                        continue;
                    }
                    // R's do.call / match.fun / dyn.load; elsewhere `do` alone is fine.
                    if family == Family::R
                        && matches!(w.as_str(), "do" | "match" | "dyn")
                        && !next.is_some_and(|n| n.is_punct('.'))
                    {
                        continue;
                    }
                    // A property or key named like the word (`x.global`) is
                    // still a sign, except a few harmless ones.
                    if family == Family::Js
                        && w == "global"
                        && prev.is_some_and(|p| p.is_punct('.'))
                    {
                        continue;
                    }
                    return Some(w.clone());
                }
                // The os module renamed or passed around: its generic names
                // (remove, rename, replace) could then not be recognised.
                Tok::Ident(w)
                    if family == Family::Python
                        && w == "os"
                        && !next.is_some_and(|n| n.is_punct('.'))
                        && !statement_has(toks, at, &["import", "from"]) =>
                {
                    return Some("the os module passed around".to_owned());
                }
                // The sh module runs programs named by attribute (`sh.git.push()`).
                Tok::Ident(w)
                    if family == Family::Python
                        && w == "sh"
                        && statement_has(toks, at, &["import", "from"]) =>
                {
                    return Some("the sh module".to_owned());
                }
                Tok::Ident(w)
                    if family == Family::Python
                        && w == "as"
                        && prev.and_then(Tok::ident).is_some_and(|p| p == "os") =>
                {
                    return Some("import os as".to_owned());
                }
                Tok::Punct('*')
                    if family == Family::Python
                        && prev.and_then(Tok::ident) == Some("import")
                        && statement_has(toks, at, &["os", "subprocess", "shutil"]) =>
                {
                    return Some("import *".to_owned());
                }
                // Perl s///ee evaluates the replacement as code.
                Tok::Ident(w)
                    if family == Family::Perl
                        && w.contains("ee")
                        && w.chars().all(|c| "msixpodualngcer".contains(c))
                        && prev.is_some_and(|p| matches!(p, Tok::Punct(_))) =>
                {
                    return Some("s///ee".to_owned());
                }
                // Code loaded from a data: or php:// URL.
                Tok::Str { text, .. }
                    if matches!(family, Family::Js | Family::Php)
                        && (text.starts_with("data:") || text.starts_with("php://")) =>
                {
                    return Some(format!("code loaded from `{}`", short(text)));
                }
                // Ruby's Pathname#delete.
                Tok::Ident(w)
                    if family == Family::Ruby
                        && w == "delete"
                        && toks.iter().any(|t| t.ident() == Some("Pathname")) =>
                {
                    return Some("Pathname#delete".to_owned());
                }
                // JS code as a string to a timer.
                Tok::Ident(w)
                    if family == Family::Js
                        && matches!(w.as_str(), "setTimeout" | "setInterval" | "setImmediate")
                        && next.is_some_and(|n| n.is_punct('('))
                        && matches!(toks.get(at + 2), Some(Tok::Str { .. })) =>
                {
                    return Some(format!("{w} with code in a string"));
                }
                // `require(x)` / `import(x)` / `require $x` of a name not written out.
                Tok::Ident(w)
                    if matches!(
                        w.as_str(),
                        "require" | "import" | "include" | "require_once" | "include_once"
                    ) && matches!(
                        family,
                        Family::Js | Family::Lua | Family::Ruby | Family::Perl | Family::Php
                    ) =>
                {
                    let arg_ok = match next {
                        Some(Tok::Punct('(')) => {
                            matches!(toks.get(at + 2), Some(t) if t.literal().is_some())
                                && toks.get(at + 3).is_some_and(|t| t.is_punct(')'))
                        }
                        Some(Tok::Str { dynamic: false, .. }) => true,
                        Some(Tok::Ident(_)) => {
                            family == Family::Perl || (family == Family::Js && w == "import")
                        }
                        Some(Tok::Punct('{' | '*')) => family == Family::Js,
                        Some(Tok::Punct('$')) => false,
                        _ => family != Family::Js || w == "import",
                    };
                    if !arg_ok {
                        return Some(format!("{w} of a name built at run time"));
                    }
                }
                // JS computed property access with something other than a literal.
                Tok::Punct('[')
                    if family == Family::Js
                        && prev.is_some_and(|p| match p {
                            // `const [a, b] = ...`, `return [x]`: array literals.
                            Tok::Ident(w) => !matches!(
                                w.as_str(),
                                "const"
                                    | "let"
                                    | "var"
                                    | "of"
                                    | "in"
                                    | "return"
                                    | "typeof"
                                    | "case"
                                    | "yield"
                                    | "await"
                                    | "else"
                                    | "do"
                                    | "void"
                                    | "delete"
                                    | "new"
                                    | "throw"
                            ),
                            Tok::Punct(')' | ']') => true,
                            _ => false,
                        }) =>
                {
                    let simple = matches!(next, Some(Tok::Num))
                        || matches!(next, Some(Tok::Str { dynamic: false, .. }))
                            && toks.get(at + 2).is_some_and(|t| t.is_punct(']'));
                    if !simple && !typeof_read(toks, at) {
                        return Some("computed property access".to_owned());
                    }
                }
                // PHP variable functions `$f(...)`, Perl `&$f` / `&{...}` / `->$m`.
                Tok::Punct('$') if matches!(family, Family::Php | Family::Perl) => {
                    if let (Some(Tok::Ident(_)), Some(t)) = (next, toks.get(at + 2))
                        && t.is_punct('(')
                        && (family == Family::Php
                            || prev.is_some_and(|p| p.is_punct('&') || p.is_punct('>')))
                    {
                        return Some("a call through a variable".to_owned());
                    }
                    if matches!(next, Some(Tok::Punct('$' | '{'))) && family == Family::Php {
                        return Some("a variable variable".to_owned());
                    }
                }
                Tok::Punct('&')
                    if family == Family::Perl && matches!(next, Some(Tok::Punct('$' | '{'))) =>
                {
                    return Some("a call through a reference".to_owned());
                }
                Tok::Punct('*')
                    if family == Family::Perl && matches!(next, Some(Tok::Punct('{'))) =>
                {
                    return Some("a glob assignment".to_owned());
                }
                Tok::Punct('@')
                    if family == Family::Julia
                        && matches!(next, Some(Tok::Ident(w)) if w == "eval") =>
                {
                    return Some("@eval".to_owned());
                }
                _ => {}
            }
        }
        None
    }

    /// The commands the code's spawn calls run, when every one is literal.
    fn spawn_commands(&self, family: Family, toks: &[Tok]) -> Result<Vec<Spawned>, String> {
        let table = spawns(family);
        let mut out = Vec::new();
        for (at, tok) in toks.iter().enumerate() {
            match tok {
                Tok::Cmd { text, dynamic } => {
                    if *dynamic {
                        return Err(format!(
                            "runs a command with values interpolated at run time (`{}`)",
                            short(text)
                        ));
                    }
                    out.push(Spawned {
                        text: text.clone(),
                        elsewhere: false,
                    });
                }
                // JS tagged templates: Bun.$`cmd`, zx's $`cmd`.
                Tok::Ident(w) if family == Family::Js && w == "$" => match toks.get(at + 1) {
                    Some(Tok::Str {
                        text,
                        dynamic: false,
                    }) => {
                        out.push(Spawned {
                            text: text.clone(),
                            elsewhere: false,
                        });
                    }
                    Some(Tok::Str { dynamic: true, .. }) => {
                        return Err("runs a command built at run time (`$`...``)".into());
                    }
                    _ => {}
                },
                Tok::Ident(w) => {
                    let Some((_, how)) = table.iter().find(|(n, _)| n == w) else {
                        // Perl/Ruby open with a pipe, Ruby Kernel#open("|cmd").
                        if w == "open" && matches!(family, Family::Perl | Family::Ruby) {
                            let args = self.call_tokens(family, toks, at);
                            if let Some(args) = args {
                                let lits: Vec<&str> =
                                    args.iter().filter_map(Tok::literal).collect();
                                let piped = lits.iter().any(|l| {
                                    l.trim_start().starts_with('|')
                                        || l.trim_end().ends_with('|')
                                        || *l == "-|"
                                        || *l == "|-"
                                });
                                if piped {
                                    if args
                                        .iter()
                                        .any(|t| matches!(t, Tok::Str { dynamic: true, .. }))
                                    {
                                        return Err(
                                            "opens a pipe to a command built at run time".into()
                                        );
                                    }
                                    let cmd: Vec<String> = lits
                                        .iter()
                                        .filter(|l| !matches!(**l, "-|" | "|-" | "<" | ">" | ">>"))
                                        .map(|l| {
                                            l.trim_matches(|c: char| c == '|' || c.is_whitespace())
                                                .to_owned()
                                        })
                                        .collect();
                                    out.push(Spawned {
                                        text: cmd.join(" "),
                                        elsewhere: false,
                                    });
                                }
                            }
                        }
                        continue;
                    };
                    let next = toks.get(at + 1);
                    let prev = at.checked_sub(1).and_then(|p| toks.get(p));
                    // A method definition or a property named like a spawn (`def run`).
                    if prev
                        .and_then(Tok::ident)
                        .is_some_and(|p| matches!(p, "def" | "function" | "sub" | "fn"))
                    {
                        continue;
                    }
                    let Some(args) = self.call_tokens(family, toks, at) else {
                        if prev
                            .is_some_and(|p| p.is_punct('$') || p.is_punct('@') || p.is_punct('%'))
                        {
                            // Perl `$system`: a variable, another name.
                            continue;
                        }
                        // Not a call: imported by name, or passed around.
                        let imported =
                            matches!(
                                next,
                                None | Some(Tok::Newline | Tok::Punct(',' | ';' | '}' | ')'))
                            ) && statement_has(toks, at, &["import", "from", "require", "use"]);
                        if imported {
                            continue;
                        }
                        return Err(format!(
                            "refers to `{w}` without calling it with literal arguments (an alias or a callback); the guard cannot see what it runs"
                        ));
                    };
                    if args.iter().all(|t| matches!(t, Tok::Newline)) {
                        // `platform.system()`: no command at all.
                        continue;
                    }
                    out.push(command_of(family, *how, &args).map_err(|why| {
                        format!("runs a command built at run time (`{w}` {why})")
                    })?);
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// The argument tokens of a call of the function named at `at`.
    fn call_tokens(&self, family: Family, toks: &[Tok], at: usize) -> Option<Vec<Tok>> {
        let next = toks.get(at + 1)?;
        // Perl's `open FH, ">file"`: the rest of the statement.
        if family == Family::Perl
            && matches!(toks[at].ident(), Some("open" | "sysopen"))
            && !next.is_punct('(')
        {
            let end = (at + 1..toks.len())
                .find(|&j| {
                    matches!(toks[j], Tok::Punct(';' | '}') | Tok::Newline)
                        || matches!(toks[j].ident(), Some("or" | "and" | "if" | "unless"))
                        || toks[j].is_punct('|') && toks.get(j + 1).is_some_and(|t| t.is_punct('|'))
                })
                .unwrap_or(toks.len());
            return Some(toks[at + 1..end].to_vec());
        }
        if next.is_punct('(') {
            let close = matching(toks, at + 1)?;
            return Some(toks[at + 2..close].to_vec());
        }
        // Calls without parentheses: `system "cmd"`, `exec 'a', 'b'`.
        if matches!(
            family,
            Family::Perl | Family::Ruby | Family::Php | Family::Julia
        ) && matches!(next, Tok::Str { .. } | Tok::Words(_) | Tok::Punct('['))
        {
            let mut end = at + 1;
            let mut depth = 0i32;
            while let Some(t) = toks.get(end) {
                match t {
                    Tok::Punct('(' | '[' | '{') => depth += 1,
                    Tok::Punct(')' | ']' | '}') if depth == 0 => break,
                    Tok::Punct(')' | ']' | '}') => depth -= 1,
                    Tok::Punct(';') | Tok::Newline if depth == 0 => break,
                    Tok::Ident(w)
                        if depth == 0
                            && matches!(w.as_str(), "or" | "and" | "if" | "unless" | "do") =>
                    {
                        break;
                    }
                    _ => {}
                }
                end += 1;
            }
            return Some(toks[at + 1..end].to_vec());
        }
        None
    }

    /// A method called on a path object (`Path("x").write_text(...)`, `.open("w")`): the one
    /// literal path in `inner` (the receiver's parentheses) is written with `mode`; a path
    /// named at run time is denied.
    fn receiver_write(
        &mut self,
        inner: &[Tok],
        mode: Option<WriteMode>,
        what: &str,
        call: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match inner {
            [t] if t.literal().is_some() => match mode {
                Some(m) => {
                    let p = Arg::lit(t.literal().unwrap_or_default());
                    self.check_write(&p, m, shell, frame, what)
                }
                None => Continue(()),
            },
            _ => self.deny(
                frame,
                RuleId::NotStatic,
                format!("{what} a file named at run time (`{call}`)"),
            ),
        }
    }

    /// Files the code writes: protected paths among its literals, tracked
    /// files opened for writing, and writes to names built at run time.
    fn code_writes(
        &mut self,
        base: &str,
        family: Family,
        code: &str,
        toks: &[Tok],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let what = format!("{base} one-liner writes");
        // Calls that write to their first argument, and open() for writing.
        let table = writes(family);
        for (at, tok) in toks.iter().enumerate() {
            let Tok::Ident(w) = tok else { continue };
            let file_new = w == "new"
                && at >= 2
                && toks[at - 1].is_punct('.')
                && toks[at - 2].ident() == Some("File");
            let is_open = (matches!(w.as_str(), "open" | "fopen" | "openSync" | "sysopen")
                || file_new)
                && (toks.get(at + 1).is_some_and(|t| t.is_punct('('))
                    || family == Family::Perl && matches!(w.as_str(), "open" | "sysopen"));
            let write = table.iter().find(|(n, _)| n == w).map(|(_, m)| *m);
            if !is_open && write.is_none() {
                continue;
            }
            let Some(args) = self.call_tokens(family, toks, at) else {
                continue;
            };
            let args = split_args(&args);
            // Method style: Path("x").open("w"), Path("x").rename("y").
            let receiver: Option<Vec<Tok>> = at
                .checked_sub(2)
                .filter(|p| toks[at - 1].is_punct('.') && toks[*p].is_punct(')'))
                .and_then(|close| {
                    let open = (0..close)
                        .rev()
                        .find(|o| matching(toks, *o) == Some(close))?;
                    Some(toks[open + 1..close].to_vec())
                });
            if is_open
                && w == "open"
                && let Some(inner) = &receiver
            {
                let mode = args
                    .first()
                    .and_then(|a| match a {
                        [t] => t.literal(),
                        _ => None,
                    })
                    .and_then(open_mode_letters);
                if let Some(mode) = mode {
                    self.receiver_write(inner, Some(mode), &what, w, shell, frame)?;
                }
                continue;
            }
            if sysopen_or_unknown(w) {
                return self.deny(
                    frame,
                    RuleId::NotStatic,
                    format!("{what} a file opened with flags the guard does not read (`{w}`)"),
                );
            }
            let (path, mode) = if is_open {
                let lits: Vec<Option<&str>> = args
                    .iter()
                    .map(|a| match a {
                        [t] => t.literal(),
                        _ => None,
                    })
                    .collect();
                let mode_text = lits
                    .iter()
                    .skip(1)
                    .flatten()
                    .find(|m| m.len() <= 3 && m.chars().all(|c| "rwaxbt+U<>".contains(c)));
                // Perl/Ruby two-argument open: ">file", ">>file", "+<file".
                let first = lits.first().copied().flatten();
                let inline = first.filter(|f| matches!(family, Family::Perl) || f.starts_with('>'));
                let perl_three = family == Family::Perl
                    && args.len() >= 3
                    && lits
                        .get(1)
                        .copied()
                        .flatten()
                        .is_some_and(|m| m.starts_with('>') || m.starts_with('+'));
                if perl_three {
                    let mode = lits.get(1).copied().flatten().unwrap_or("");
                    (args.get(2).copied(), open_mode(mode))
                } else if family == Family::Perl && args.len() >= 2 {
                    match lits.get(1).copied().flatten() {
                        Some(spec) if open_mode(spec).is_some() => {
                            let mode = open_mode(spec);
                            let path = spec.trim_start_matches(['>', '+', '<', ' ']).trim();
                            if !path.is_empty() {
                                let p = Arg::lit(path);
                                if let Some(m) = mode {
                                    self.check_write(&p, m, shell, frame, &what)?;
                                }
                            }
                            continue;
                        }
                        Some(_) => continue,
                        None => {
                            // open(F, $x): the mode and the file are not known.
                            return self.deny(
                                frame,
                                RuleId::NotStatic,
                                format!("{what} or reads a file named at run time"),
                            );
                        }
                    }
                } else if let Some(spec) = inline.filter(|f| f.starts_with('>')) {
                    let path = spec.trim_start_matches(['>', '+', ' ']).trim();
                    let p = Arg::lit(path);
                    self.check_write(
                        &p,
                        open_mode(spec).unwrap_or(WriteMode::Clobber),
                        shell,
                        frame,
                        &what,
                    )?;
                    continue;
                } else {
                    let mode = match mode_text {
                        Some(m) => open_mode_letters(m),
                        None => {
                            // mode=... given by keyword, or not literal.
                            let kw_mode = args
                                .iter()
                                .any(|a| matches!(a.first(), Some(Tok::Ident(n)) if n == "mode"));
                            if kw_mode
                                || args.len() > 1
                                    && lits.get(1).copied().flatten().is_none()
                                    && !matches!(args.get(1), Some([Tok::Ident(n), ..]) if n == "encoding")
                            {
                                return self.deny(
                                    frame,
                                    RuleId::NotStatic,
                                    format!(
                                        "{what} a file opened with a mode the guard cannot read"
                                    ),
                                );
                            }
                            None
                        }
                    };
                    (args.first().copied(), mode)
                }
            } else {
                // Method style: Path("x").write_text(...), the path is the receiver.
                match &receiver {
                    Some(inner)
                        if matches!(
                            w.as_str(),
                            "write_text" | "write_bytes" | "touch" | "symlink_to"
                        ) =>
                    {
                        self.receiver_write(inner, write, &what, w, shell, frame)?;
                        continue;
                    }
                    _ => {}
                }
                // copy/move/rename(src, dst): the destination is written.
                let dest_last = matches!(
                    w.as_str(),
                    "copy"
                        | "copy2"
                        | "copyfile"
                        | "copytree"
                        | "move"
                        | "rename"
                        | "replace"
                        | "copyFile"
                        | "copyFileSync"
                        | "cp"
                        | "cpSync"
                        | "renameSync"
                        | "cp_r"
                        | "mv"
                        | "install"
                        | "copy_file"
                        | "moveSync"
                        | "symlink"
                        | "symlinkSync"
                        | "link"
                        | "linkSync"
                        | "ln"
                        | "ln_s"
                        | "ln_sf"
                );
                let positional: Vec<&[Tok]> = args
                    .iter()
                    .copied()
                    .filter(|a| !matches!(a, [Tok::Ident(_), Tok::Punct('=' | ':'), ..]))
                    .collect();
                if dest_last {
                    if positional.len() == 1 && receiver.is_some() {
                        // Path("a").rename("b"): the destination is the
                        // argument; the receiver goes away (`mv a b`).
                        if matches!(w.as_str(), "rename" | "replace" | "move") {
                            let src = match receiver.as_deref() {
                                Some([t]) => t.literal().map(str::to_owned),
                                _ => None,
                            };
                            let dst = match positional.first().copied() {
                                Some([t]) => t.literal().map(str::to_owned),
                                _ => None,
                            };
                            match (src, dst) {
                                (Some(src), Some(dst)) => {
                                    self.check_write(
                                        &Arg::lit(&src),
                                        WriteMode::Delete,
                                        shell,
                                        frame,
                                        &what,
                                    )?;
                                    self.file_rules(
                                        "mv",
                                        &[Arg::lit("--"), Arg::lit(src), Arg::lit(dst)],
                                        shell,
                                        frame,
                                    )?;
                                }
                                (None, _) if family == Family::Python => {
                                    return self.deny(
                                        frame,
                                        RuleId::NotStatic,
                                        format!("{what} by moving a path named at run time (`{w}`); it may be a tracked directory"),
                                    );
                                }
                                _ => {}
                            }
                        }
                        (positional.first().copied(), write)
                    } else if positional.len() < 2 {
                        continue;
                    } else {
                        if matches!(
                            w.as_str(),
                            "move" | "rename" | "replace" | "mv" | "renameSync" | "moveSync"
                        ) {
                            // The source goes away (a directory with it):
                            // judged as `mv SRC DST`.
                            let dst = match destination(family, &positional) {
                                Some([t]) => t.literal(),
                                _ => None,
                            };
                            // Python's str.replace is not os.replace.
                            let string_replace = family == Family::Python
                                && w == "replace"
                                && !(at >= 2 && toks[at - 2].ident() == Some("os"));
                            match (positional[0], dst) {
                                _ if string_replace => {}
                                ([t], Some(dst)) if t.literal().is_some() => {
                                    let src = t.literal().unwrap_or_default();
                                    self.check_write(
                                        &Arg::lit(src),
                                        WriteMode::Delete,
                                        shell,
                                        frame,
                                        &what,
                                    )?;
                                    self.file_rules(
                                        "mv",
                                        &[Arg::lit("--"), Arg::lit(src), Arg::lit(dst)],
                                        shell,
                                        frame,
                                    )?;
                                }
                                ([t], _) if t.literal().is_some() => {}
                                _ => {
                                    return self.deny(
                                        frame,
                                        RuleId::NotStatic,
                                        format!("{what} by moving a file named at run time (`{w}`); it may be a tracked directory"),
                                    );
                                }
                            }
                        }
                        (destination(family, &positional), write)
                    }
                } else {
                    (positional.first().copied(), write)
                }
            };
            let Some(mode) = mode else { continue };
            match path {
                Some([t]) if t.literal().is_some() => {
                    let p = Arg::lit(t.literal().unwrap_or_default());
                    self.check_write(&p, mode, shell, frame, &what)?;
                }
                // A file object or descriptor (`f.write(x)`): not a path.
                Some([Tok::Ident(_)]) if w == "write" => {}
                None => {}
                Some(_) if w == "write" && family != Family::Ruby => {}
                Some(_) => {
                    return self.deny(frame, RuleId::NotStatic, format!("{what} a file named at run time (`{w}`); it may be a protected or tracked file"));
                }
            }
        }
        // Any literal that is a protected path, when the code writes at all.
        if WRITE_TEXT.iter().any(|k| code.contains(k)) {
            for tok in toks {
                let Some(lit) = tok.literal() else { continue };
                let lit = lit.trim_start_matches(['>', '+', '<']).trim();
                if lit.contains(char::is_whitespace) || lit.is_empty() {
                    continue;
                }
                if let Some(absolute) = self.resolve(shell, lit)
                    && self.is_protected(&absolute)
                {
                    return self.deny(
                        frame,
                        RuleId::ProtectedPath,
                        format!("{base} one-liner writes `{lit}`, a protected path"),
                    );
                }
            }
        }
        Continue(())
    }

    /// Tcl: `exec`, `open |`, `file delete`, `eval` ... the guard does not
    /// model Tcl; any of them is denied.
    fn judge_tcl(&mut self, base: &str, code: &str, frame: &Frame) -> Judged {
        #[rustfmt::skip]
        const DANGER: &[&str] = &[
            "exec", "open", "file", "eval", "uplevel", "subst", "source", "load", "interp",
            "socket", "namespace", "rename", "apply", "spawn", "system", "after", "trace",
            "fconfigure", "chan", "package", "unknown", "auto_execok", "catch",
        ];
        let hit = code
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find(|w| DANGER.contains(w));
        if let Some(word) = hit {
            self.deny(frame, RuleId::Interpreter, format!("{base} code uses `{word}`, which can run commands or touch files; the guard does not model Tcl"))?;
        } else if !code.is_ascii() || code.contains('$') && code.contains('[') {
            self.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} code builds commands at run time; the guard does not model Tcl"),
            )?;
        }
        Continue(())
    }

    /// AppleScript: `do shell script "literal"` is walked; anything else that
    /// runs or deletes is denied.
    /// JavaScript for Automation (`osascript -l JavaScript`): anything that
    /// can run commands, touch files or evaluate code is denied.
    fn judge_jxa(&mut self, base: &str, code: &str, frame: &Frame) -> Judged {
        let hit = [
            "doShellScript",
            "ObjC",
            "$.",
            "system",
            "delete",
            "remove",
            "eval",
            "Function",
            "write",
            "move",
            "duplicate",
            "import",
            "run",
            "Application(",
        ]
        .into_iter()
        .find(|k| code.contains(k));
        if let Some(word) = hit {
            self.deny(
                frame,
                RuleId::Interpreter,
                format!("{base} JavaScript uses `{word}`; the guard does not model JXA"),
            )?;
        }
        Continue(())
    }

    fn judge_applescript(
        &mut self,
        base: &str,
        code: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let lower = code.to_ascii_lowercase();
        for danger in [
            "delete",
            "run script",
            "load script",
            "store script",
            "write",
            "move",
            "duplicate",
            "system events",
            "do javascript",
            "quit",
        ] {
            if lower.contains(danger) {
                return self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} code uses `{danger}`; the guard does not model AppleScript"),
                );
            }
        }
        if lower.contains("do shell script") {
            let toks = tokens(code, Family::AppleScript);
            let mut found = false;
            for (at, tok) in toks.iter().enumerate() {
                if tok
                    .ident()
                    .is_some_and(|w| w.eq_ignore_ascii_case("script"))
                    && at >= 2
                    && toks[at - 1]
                        .ident()
                        .is_some_and(|w| w.eq_ignore_ascii_case("shell"))
                {
                    found = true;
                    match toks.get(at + 1) {
                        Some(Tok::Str {
                            text,
                            dynamic: false,
                        }) if toks
                            .get(at + 2)
                            .is_none_or(|t| matches!(t, Tok::Newline) || t.ident().is_some()) =>
                        {
                            let text = text.clone();
                            self.script_args(
                                &format!("{base} do shell script"),
                                &[Arg::lit(text)],
                                shell,
                                frame,
                                false,
                            )?;
                        }
                        _ => {
                            return self.deny(frame, RuleId::Interpreter, format!("{base} runs a shell command built at run time (`do shell script`)"));
                        }
                    }
                }
            }
            if !found {
                self.deny(
                    frame,
                    RuleId::Interpreter,
                    format!("{base} runs a shell command the guard cannot resolve"),
                )?;
            }
        }
        Continue(())
    }
}

/// How the code changes the environment its commands inherit, if it does:
/// `os.environ[...] = `, `process.env.X = `, `ENV[...] = `, `$ENV{...} = `,
/// `putenv`, `setenv`, `environ.update`.
fn mutates_environment(family: Family, toks: &[Tok]) -> Option<String> {
    let assigned = |at: usize| {
        toks.get(at).is_some_and(|t| t.is_punct('='))
            && !toks
                .get(at + 1)
                .is_some_and(|t| t.is_punct('=') || t.is_punct('~'))
    };
    for (at, tok) in toks.iter().enumerate() {
        let Tok::Ident(w) = tok else { continue };
        match w.as_str() {
            "putenv" | "setenv" | "unsetenv" | "update" | "setdefault" | "pop" | "clear"
                if at >= 2
                    && toks[at - 1].is_punct('.')
                    && toks[at - 2]
                        .ident()
                        .is_some_and(|r| matches!(r, "environ" | "env" | "ENV" | "os" | "Sys")) =>
            {
                return Some(w.clone());
            }
            "putenv" | "setenv" | "unsetenv" => return Some(w.clone()),
            "environ" | "env" | "ENV" => {
                let next = toks.get(at + 1);
                match next {
                    // env[...] = / ENV{...} =
                    Some(Tok::Punct(open @ ('[' | '{'))) => {
                        let _ = open;
                        if let Some(close) = matching(toks, at + 1)
                            && assigned(close + 1)
                        {
                            return Some(format!("{w}[...] ="));
                        }
                    }
                    // process.env.X =
                    Some(Tok::Punct('.'))
                        if family == Family::Js
                            && matches!(toks.get(at + 2), Some(Tok::Ident(_)))
                            && assigned(at + 3) =>
                    {
                        return Some(format!("{w}.X ="));
                    }
                    // os.environ = / process.env = / ENV = something else
                    // (not a keyword argument: `env=os.environ`)
                    _ if assigned(at + 1)
                        && !(at >= 1 && matches!(toks[at - 1], Tok::Punct(',' | '(' | '{'))) =>
                    {
                        return Some(format!("{w} ="));
                    }
                    _ => {}
                }
                // Object.assign(process.env, ...)
                if at >= 3
                    && toks[at - 1].is_punct('.')
                    && toks[at - 3].is_punct('(')
                    && at >= 5
                    && toks[at - 4].ident() == Some("assign")
                {
                    return Some("Object.assign(process.env)".into());
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether the statement holding token `at` (between separators) contains
/// one of `words`.
/// The `(` that the `)` at `close` ends, looking back at most 256 tokens.
fn open_before(toks: &[Tok], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for at in (close.saturating_sub(256)..=close).rev() {
        if toks[at].is_punct(')') {
            depth += 1;
        } else if toks[at].is_punct('(') {
            depth -= 1;
            if depth == 0 {
                return Some(at);
            }
        }
    }
    None
}

fn statement_has(toks: &[Tok], at: usize, words: &[&str]) -> bool {
    let is_sep = |t: &Tok| matches!(t, Tok::Newline | Tok::Punct(';'));
    let start = toks[..at].iter().rposition(is_sep).map_or(0, |p| p + 1);
    let end = toks[at..]
        .iter()
        .position(is_sep)
        .map_or(toks.len(), |p| at + p);
    toks[start..end]
        .iter()
        .any(|t| t.ident().is_some_and(|w| words.contains(&w)))
}

/// The shell text a spawn call runs, from its argument tokens.
fn command_of(family: Family, how: Spawn, args: &[Tok]) -> Result<Spawned, String> {
    let parts = split_args(args);
    let mut positional: Vec<ArgVal> = Vec::new();
    let mut shell_on = false;
    let mut elsewhere = false;
    for part in &parts {
        match arg_value(part, family) {
            ArgVal::Skip => {}
            ArgVal::BadKeyword => {
                return Err(
                    "with a keyword argument that changes what runs or its environment".into(),
                );
            }
            ArgVal::ShellOn => shell_on = true,
            ArgVal::Elsewhere => elsewhere = true,
            v => positional.push(v),
        }
    }
    let text = command_text(family, how, positional, shell_on)?;
    Ok(Spawned { text, elsewhere })
}

/// A command a spawn call runs: its shell text, and whether it runs in
/// another directory.
struct Spawned {
    text: String,
    elsewhere: bool,
}

fn command_text(
    family: Family,
    how: Spawn,
    mut positional: Vec<ArgVal>,
    shell_on: bool,
) -> Result<String, String> {
    // Only the command counts for calls that take it first: later arguments
    // are modes, callbacks or output variables.
    if how == Spawn::First {
        positional.truncate(1);
    }
    if positional.iter().any(|v| matches!(v, ArgVal::Dynamic)) {
        return Err("with arguments that are not literal".into());
    }
    let quote_all = |items: &[String]| -> String {
        items
            .iter()
            .map(|s| words::quote(&Arg::lit(s.clone())))
            .collect::<Vec<_>>()
            .join(" ")
    };
    // With a shell, a list's first item is the shell line (Python), or the
    // items are joined unquoted (Node).
    if shell_on {
        let mut items = Vec::new();
        for v in &positional {
            match v {
                ArgVal::Str(s) => items.push(s.clone()),
                ArgVal::List(l) => items.extend(l.iter().cloned()),
                _ => {}
            }
        }
        return match family {
            Family::Js => Ok(items.join(" ")),
            _ => items
                .first()
                .cloned()
                .ok_or_else(|| "without a command".to_owned()),
        };
    }
    match how {
        Spawn::First => match positional.first() {
            Some(ArgVal::Str(s)) => Ok(s.clone()),
            Some(ArgVal::List(items)) => Ok(quote_all(items)),
            _ => Err("without a command".into()),
        },
        Spawn::All => {
            if let [ArgVal::Str(s)] = positional.as_slice() {
                return Ok(s.clone());
            }
            let mut items = Vec::new();
            for v in positional {
                match v {
                    ArgVal::Str(s) => items.push(s),
                    ArgVal::List(l) => items.extend(l),
                    _ => {}
                }
            }
            if items.is_empty() {
                return Err("without a command".into());
            }
            Ok(quote_all(&items))
        }
        Spawn::ProgramArgv0 | Spawn::ProgramArgs => {
            let mut items = Vec::new();
            let mut iter = positional.into_iter();
            match iter.next() {
                Some(ArgVal::Str(program)) => items.push(program),
                // spawn(["git", "push"]): the list is the argv.
                Some(ArgVal::List(argv)) if how == Spawn::ProgramArgs && !argv.is_empty() => {
                    return Ok(quote_all(&argv));
                }
                _ => return Err("without a literal program".into()),
            }
            let mut rest = Vec::new();
            for v in iter {
                match v {
                    ArgVal::Str(s) => rest.push(s),
                    ArgVal::List(l) => rest.extend(l),
                    _ => {}
                }
            }
            if how == Spawn::ProgramArgv0 && !rest.is_empty() {
                rest.remove(0);
            }
            items.extend(rest);
            if how == Spawn::ProgramArgs && family == Family::Js && items.len() == 1 {
                // spawn("git push", {shell: true}) runs a shell line.
                return Ok(items.remove(0));
            }
            Ok(quote_all(&items))
        }
    }
}

/// Whether `osascript -l JavaScript` was asked for.
fn jxa(p: &rules::Parsed) -> bool {
    p.value(&["-l"]).is_some_and(|l| {
        l.text.eq_ignore_ascii_case("javascript") || l.text.eq_ignore_ascii_case("jxa")
    })
}

fn sysopen_or_unknown(name: &str) -> bool {
    name == "sysopen"
}

/// The write mode of a Perl/Ruby mode string (`>`, `>>`, `+<`, `w`, `a`).
fn open_mode(spec: &str) -> Option<WriteMode> {
    let spec = spec.trim();
    if spec.starts_with(">>") {
        Some(WriteMode::Append)
    } else if spec.starts_with('>') || spec.starts_with("+>") {
        Some(WriteMode::Clobber)
    } else if spec.starts_with("+<") {
        Some(WriteMode::Modify)
    } else {
        None
    }
}

/// The write mode of a C-style mode string (`w`, `a`, `r+`, `x`).
fn open_mode_letters(mode: &str) -> Option<WriteMode> {
    if mode.contains('w') {
        Some(WriteMode::Clobber)
    } else if mode.contains('a') {
        Some(WriteMode::Append)
    } else if mode.contains('+') || mode.contains('x') {
        Some(WriteMode::Modify)
    } else if mode.starts_with('>') {
        open_mode(mode)
    } else {
        None
    }
}

fn short(text: &str) -> String {
    text.chars().take(60).collect()
}

/// The destination among a copy's, move's or link's positional arguments: the last one, except
/// in JavaScript, where Node's `fs` and fs-extra take it second and may add a mode, an options
/// object or a callback after it (`cpSync(src, dest, { recursive: true })`).
fn destination<'t>(family: Family, positional: &[&'t [Tok]]) -> Option<&'t [Tok]> {
    if family == Family::Js {
        positional.get(1).copied()
    } else {
        positional.last().copied()
    }
}

/// Whether the JS computed access opening at `toks[at]` (`[`) is `typeof name[...]` whose
/// value is only typed (`if (typeof mod[name] !== 'function')`): followed by a call, a
/// member, another access, optional chaining or a tagged template it may be the dispatch that
/// computed access is refused for (`typeof m[n]('x')` calls it), and stays refused.
fn typeof_read(toks: &[Tok], at: usize) -> bool {
    let back = |n: usize| at.checked_sub(n).and_then(|p| toks.get(p));
    if back(1).and_then(Tok::ident).is_none() || back(2).and_then(Tok::ident) != Some("typeof") {
        return false;
    }
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(at) {
        if t.is_punct('[') {
            depth += 1;
        } else if t.is_punct(']') {
            depth -= 1;
            if depth == 0 {
                return match toks.get(i + 1) {
                    None | Some(Tok::Newline) => true,
                    Some(Tok::Punct(c)) => "!=);,}&|<>:+-".contains(*c),
                    Some(_) => false,
                };
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_of_calls() {
        let toks = tokens("['git','log','-1'], env=os.environ", Family::Python);
        assert_eq!(
            command_of(Family::Python, Spawn::First, &toks)
                .unwrap()
                .text,
            "'git' 'log' '-1'"
        );
        let toks = tokens("\"git\", [\"git\", \"push\"]", Family::Python);
        assert_eq!(
            command_of(Family::Python, Spawn::ProgramArgv0, &toks)
                .unwrap()
                .text,
            "'git' 'push'"
        );
        let toks = tokens("cmd, shell=True", Family::Python);
        assert!(command_of(Family::Python, Spawn::First, &toks).is_err());
    }
}
