//! The program registry: what a command name is, by family, and from that which part of the
//! guard judges it. `walk/commands.rs` `command_by_name` dispatches on [`family`] to one judge
//! per family, then runs the every-command pass (`rules/every_command.rs`: environment
//! injection, secrets flowing into a network client, tool files written then run). Programs of
//! no family are shell builtins (judged in `walk/commands.rs`) or judged by their file operands
//! (`rules/fs.rs` `file_rules`). `README.md` "Where is program X judged" is the map.

use crate::rules;

/// POSIX shells and bash: their `-c` strings, script operands and stdin are parsed as shell, and
/// their script files are read (`scripts.rs`).
pub(crate) const POSIX_SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "rbash", "posh", "ksh93",
];

/// Shells of another language: their `-c` strings are walked as shell (their simple commands read
/// alike), their script files stay opaque.
pub(crate) const OTHER_SHELLS: &[&str] = &["fish", "csh", "tcsh"];

/// Builtins that run a file in the current shell.
pub(crate) const SOURCE: &[&str] = &["source", "."];

/// Interpreters and runners that run a file named among their operands (beyond the shells): a
/// file the same command line wrote and then ran this way is judged by its text or refused.
#[rustfmt::skip]
const RUN_FILE_OPERANDS: &[&str] = &[
    "node", "nodejs", "deno", "bun", "tsx", "ts-node", "perl", "ruby", "php", "lua", "luajit",
    "Rscript", "awk", "gawk", "mawk", "nawk", "osascript", "tclsh", "wish", "expect", "julia",
    "swift", "groovy", "pwsh", "powershell", "elixir", "escript", "guile", "racket", "sbcl",
    "clisp", "ocaml", "runghc", "runhaskell", "crystal", "dart", "scala", "busybox", "toybox", "sg", "su",
    "runuser", "script", "at", "batch",
];

/// Environment variables that name one program by convention (make's implicit variables,
/// autoconf, CI scripts): inherited from the user's or CI's environment, `$CC` is a C
/// compiler, `$PYTHON` a Python, `$NPM` an npm. A command name that is one of them (or
/// `<NAME>_BIN`, `_CMD`, `_EXE`), alone or with the program as its default (`${NPM:-npm}`), is
/// judged as that program with its arguments (docs/guard.md "Commands built from variables").
#[rustfmt::skip]
pub(crate) const PROGRAM_VARIABLES: &[(&str, &str)] = &[
    ("CC", "cc"), ("CXX", "c++"), ("CPP", "cpp"), ("LD", "ld"), ("AR", "ar"), ("AS", "as"),
    ("NM", "nm"), ("RANLIB", "ranlib"), ("STRIP", "strip"), ("OBJCOPY", "objcopy"),
    ("RUSTC", "rustc"), ("RUSTDOC", "rustdoc"), ("CARGO", "cargo"), ("GO", "go"),
    ("PYTHON", "python"), ("PYTHON3", "python3"), ("PY", "python"), ("PIP", "pip"),
    ("NODE", "node"), ("NPM", "npm"), ("NPX", "npx"), ("YARN", "yarn"), ("PNPM", "pnpm"),
    ("BUN", "bun"), ("DENO", "deno"), ("RUBY", "ruby"), ("BUNDLE", "bundle"), ("PERL", "perl"),
    ("PHP", "php"), ("COMPOSER", "composer"), ("JAVA", "java"), ("JAVAC", "javac"),
    ("MVN", "mvn"), ("GRADLE", "gradle"), ("MAKE", "make"), ("CMAKE", "cmake"),
    ("NINJA", "ninja"), ("DOCKER", "docker"), ("KUBECTL", "kubectl"), ("HELM", "helm"),
    ("GIT", "git"),
];

/// The program an inherited variable of this name stands for ([`PROGRAM_VARIABLES`]).
pub(crate) fn program_variable(name: &str) -> Option<&'static str> {
    let stem = ["_BIN", "_CMD", "_EXE"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name);
    PROGRAM_VARIABLES
        .iter()
        .find(|(v, _)| *v == stem)
        .map(|(_, p)| *p)
}

/// A wrapper: it runs the command after its options and a fixed number of leading operands.
pub(crate) struct Wrapper {
    pub name: &'static str,
    /// Short options that take a value.
    pub short_values: &'static str,
    /// Long options that take a value.
    pub long_values: &'static [&'static str],
    /// Operands before the command (`timeout 5 cmd`, `flock FILE cmd`, `taskset MASK cmd`).
    pub skip: usize,
    /// Options that mean "no command follows" (`taskset -p`, `command -v`).
    pub no_command: &'static [&'static str],
    /// Options whose value is a shell command line (`flock -c`).
    pub command_values: &'static [&'static str],
    /// Options whose value is the directory the command runs in.
    pub chdir: &'static [&'static str],
    /// Options whose value is a file the wrapper writes (`time -o`, `strace -o`).
    pub outputs: &'static [&'static str],
    /// An option value that is not statically known fails closed (it may change what runs).
    pub strict: bool,
}

/// A wrapper with no options that matter: the rest is the command.
const fn bare(name: &'static str) -> Wrapper {
    Wrapper {
        name,
        short_values: "",
        long_values: &[],
        skip: 0,
        no_command: &[],
        command_values: &[],
        chdir: &[],
        outputs: &[],
        strict: false,
    }
}

/// A wrapper whose unknown option values fail closed.
const fn strict(name: &'static str) -> Wrapper {
    Wrapper {
        strict: true,
        ..bare(name)
    }
}

/// Every wrapper judged by its option spec. Wrappers with more to them have their own judges in
/// `walk/commands.rs`: `sudo`/`doas`, `env`, `chroot`, `su`/`runuser`, `sg`, `script`, `watch`,
/// `at`/`batch`.
pub(crate) const WRAPPERS: &[Wrapper] = &[
    bare("nohup"),
    bare("builtin"),
    bare("chronic"),
    bare("unbuffer"),
    bare("nocorrect"),
    bare("noglob"),
    bare("then"),
    bare("do"),
    bare("busybox"),
    // toybox, busybox's sibling: `toybox rm -rf ~/.config` is rm.
    bare("toybox"),
    bare("setsid"),
    Wrapper {
        no_command: &["-v", "-V"],
        ..bare("command")
    },
    Wrapper {
        short_values: "a",
        ..bare("exec")
    },
    Wrapper {
        short_values: "n",
        long_values: &["--adjustment"],
        ..bare("nice")
    },
    Wrapper {
        short_values: "sk",
        long_values: &["--signal", "--kill-after"],
        skip: 1,
        ..bare("timeout")
    },
    Wrapper {
        short_values: "fo",
        long_values: &["--format", "--output"],
        outputs: &["-o", "--output"],
        ..bare("time")
    },
    Wrapper {
        short_values: "ioe",
        long_values: &["--input", "--output", "--error"],
        ..bare("stdbuf")
    },
    Wrapper {
        short_values: "cnpPu",
        long_values: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
        no_command: &["-p", "-P", "-u", "--pid", "--pgid", "--uid"],
        ..bare("ionice")
    },
    Wrapper {
        short_values: "tw",
        ..bare("caffeinate")
    },
    Wrapper {
        short_values: "wEc",
        long_values: &["--timeout", "--conflict-exit-code", "--command"],
        skip: 1,
        no_command: &["-u", "--unlock"],
        command_values: &["-c", "--command"],
        ..strict("flock")
    },
    Wrapper {
        skip: 1,
        no_command: &["-p", "--pid"],
        ..strict("taskset")
    },
    Wrapper {
        short_values: "TPD",
        long_values: &["--sched-runtime", "--sched-period", "--sched-deadline"],
        skip: 1,
        no_command: &["-p", "--pid", "-m", "--max"],
        ..strict("chrt")
    },
    Wrapper {
        short_values: "abeEIoOpPsSuUX",
        long_values: &[
            "--output",
            "--attach",
            "--env",
            "--user",
            "--string-limit",
            "--trace",
            "--signal",
            "--status",
            "--trace-path",
            "--summary-sort-by",
            "--const-print-style",
        ],
        outputs: &["-o", "--output"],
        ..strict("strace")
    },
    Wrapper {
        short_values: "aAeFlnopsuxLDw",
        long_values: &["--output", "--library", "--indent", "--align"],
        outputs: &["-o", "--output"],
        ..strict("ltrace")
    },
    Wrapper {
        short_values: "SGRwt",
        long_values: &[
            "--setuid",
            "--setgid",
            "--root",
            "--wd",
            "--map-user",
            "--map-group",
            "--map-users",
            "--map-groups",
            "--propagation",
            "--setgroups",
        ],
        chdir: &["-w", "--wd"],
        ..strict("unshare")
    },
    Wrapper {
        short_values: "tSGrwe",
        long_values: &[
            "--target", "--setuid", "--setgid", "--root", "--wd", "--env",
        ],
        chdir: &["-w", "--wd"],
        ..strict("nsenter")
    },
    Wrapper {
        short_values: "lsib",
        long_values: &["--lib", "--faked", "--unknown-is-real"],
        ..strict("fakeroot")
    },
    Wrapper {
        no_command: &["--list", "--tree", "--top", "--shutdown", "--join"],
        ..strict("firejail")
    },
    Wrapper {
        short_values: "uMHpEd",
        long_values: &[
            "--unit",
            "--machine",
            "--host",
            "--property",
            "--setenv",
            "--description",
            "--slice",
            "--uid",
            "--gid",
            "--nice",
            "--working-directory",
            "--on-active",
            "--on-boot",
            "--on-startup",
            "--on-unit-active",
            "--on-unit-inactive",
            "--on-calendar",
            "--timer-property",
            "--path-property",
            "--socket-property",
            "--service-type",
        ],
        chdir: &["--working-directory"],
        ..strict("systemd-run")
    },
    Wrapper {
        short_values: "p",
        long_values: &["--pid", "--output"],
        no_command: &["-p", "--pid"],
        ..strict("prlimit")
    },
    Wrapper {
        short_values: "lpe",
        long_values: &["--limit", "--pid", "--exe"],
        no_command: &["-p", "--pid", "-e", "--exe"],
        ..strict("cpulimit")
    },
    Wrapper {
        short_values: "rbwq",
        long_values: &["--rootfs", "--bind", "--cwd", "--qemu"],
        chdir: &["-w", "--cwd"],
        ..strict("proot")
    },
];

/// What a program is.
#[derive(Clone, Copy)]
pub(crate) enum Family {
    /// A shell: `sh -c`, `bash x.sh`, `zsh < x` run scripts.
    Shell,
    /// A wrapper that runs the rest of its arguments as a command.
    Wrapper(&'static Wrapper),
    /// `git` and git's dashed programs (`git-push`).
    Git,
    /// Forges and other version control with publishing commands (`gh`, `glab`, `hub`, `hg`,
    /// `svn`).
    Forge,
    /// pawl itself.
    Pawl,
    /// An archiver (`rules/archive.rs`): what it runs, removes and extracts.
    Archiver,
    /// An editor (`rules/editor.rs`): the commands it runs and the files it writes.
    Editor,
    /// A database tool: one that opens database files, or a server's client given SQL
    /// (`rules/database.rs`).
    Database,
    /// A copier (`cp`, `mv`, `install`, `ln`, `rsync`; `rules/fs.rs` `copier`).
    Copier,
    /// An awk (`rules/awk.rs`; the language: `lang/awk.rs`).
    Awk,
    /// A make (`rules/make.rs`).
    Make,
    /// A pager or man (`rules/pager.rs`).
    Pager,
    /// A remote shell or socket relay (`rules/remote.rs`): `ssh`, `scp`, `socat`, `nc`.
    Remote,
    /// A deleter (`rules/delete.rs`): `rm`, `unlink`, `shred`, `truncate`, `dd`, formatters, ...
    Deleter,
    /// An interpreter whose inline code the guard reads (`rules/interp.rs`, the language in
    /// `lang/code.rs`); `node_like`: a program that takes code as node does (`tsx`, `ts-node`).
    Interpreter { node_like: bool },
    /// A compiler or preprocessor (`rules/exec.rs` `compiler`: the programs it runs; its output
    /// file: `rules/fs.rs`).
    Compiler,
    /// A publisher, deployer, infrastructure tool or cloud CLI (`rules/deploy.rs` rows).
    Deployer,
    /// A program that changes a disk or the system (`rules/system.rs`).
    System,
    /// A container runtime (`rules/container.rs`; its pushes: `rules/deploy.rs` rows).
    Container,
    /// A network client of no other family (`rules/network.rs`; what it is given: the
    /// every-command pass).
    NetworkClient,
    /// An interpreter or program with a shell escape the guard has no model of
    /// (`rules/escape.rs`).
    Escape,
    /// A package manager, runner or package tool (`rules/exec.rs` `package`; publishing:
    /// `rules/deploy.rs` rows).
    Package,
    /// A debugger (`rules/debugger.rs`).
    Debugger,
    /// A scheduler that runs commands later (`rules/schedule.rs`).
    Scheduler,
    /// A shell builtin or a program judged by its file operands only.
    Other,
}

/// The family of the program named `base` (a command name without its directory).
pub(crate) fn family(base: &str) -> Family {
    if is_shell(base) {
        return Family::Shell;
    }
    if let Some(w) = WRAPPERS.iter().find(|w| w.name == base) {
        return Family::Wrapper(w);
    }
    match base {
        "git" => Family::Git,
        _ if base.len() > 4 && base.starts_with("git-") && !rules::deploy::is_deployer(base) => {
            Family::Git
        }
        "gh" | "glab" | "hub" | "hg" | "svn" => Family::Forge,
        "pawl" => Family::Pawl,
        _ if rules::archive::ARCHIVERS.contains(&base) => Family::Archiver,
        _ if rules::editor::EDITORS.contains(&base) => Family::Editor,
        _ if rules::database::is_database(base) => Family::Database,
        "cp" | "mv" | "install" | "ln" | "rsync" => Family::Copier,
        _ if rules::delete::is_deleter(base) => Family::Deleter,
        _ if rules::remote::REMOTES.contains(&base) => Family::Remote,
        _ if rules::awk::AWKS.contains(&base) => Family::Awk,
        _ if rules::make::MAKES.contains(&base) => Family::Make,
        _ if rules::pager::PAGERS.contains(&base) => Family::Pager,
        _ if rules::exec::is_compiler(base) => Family::Compiler,
        _ if rules::debugger::DEBUGGERS.contains(&base) => Family::Debugger,
        _ if rules::schedule::SCHEDULERS.contains(&base) => Family::Scheduler,
        _ if rules::exec::PACKAGE_TOOLS.contains(&base) => Family::Package,
        _ if rules::interp::is_interpreter(base) => Family::Interpreter { node_like: false },
        // zx is JavaScript whose `$`...`` runs shell.
        "tsx" | "ts-node" | "ts-node-esm" | "esno" | "esr" | "babel-node" | "vite-node" | "zx" => {
            Family::Interpreter { node_like: true }
        }
        _ if rules::container::CONTAINERS.contains(&base) => Family::Container,
        _ if rules::system::is_system(base) => Family::System,
        _ if rules::deploy::is_deployer(base) => Family::Deployer,
        _ if rules::network::NETWORK.contains(&base) => Family::NetworkClient,
        _ if rules::escape::is_escape(base) => Family::Escape,
        _ => Family::Other,
    }
}

/// A shell of either kind.
pub(crate) fn is_shell(base: &str) -> bool {
    POSIX_SHELLS.contains(&base) || OTHER_SHELLS.contains(&base)
}

/// A program that runs a script file named among its operands: the shells, `source`, and the
/// interpreters and runners of [`RUN_FILE_OPERANDS`] (Python by any version).
pub(crate) fn runs_file_operand(base: &str) -> bool {
    is_shell(base)
        || SOURCE.contains(&base)
        || RUN_FILE_OPERANDS.contains(&base)
        || base.starts_with("python")
        || base.starts_with("pypy")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_in_one_family_only() {
        let mut names: Vec<&str> = POSIX_SHELLS
            .iter()
            .chain(OTHER_SHELLS)
            .chain(SOURCE)
            .copied()
            .chain(WRAPPERS.iter().map(|w| w.name))
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a name is listed twice");
        for shell in POSIX_SHELLS.iter().chain(OTHER_SHELLS) {
            assert!(matches!(family(shell), Family::Shell), "{shell}");
            assert!(runs_file_operand(shell), "{shell}");
        }
        for w in WRAPPERS {
            assert!(matches!(family(w.name), Family::Wrapper(x) if x.name == w.name));
        }
        assert!(matches!(family("git-receive-pack"), Family::Git));
        assert!(matches!(family("git-"), Family::Other));
        assert!(matches!(family("ssh"), Family::Remote));
        assert!(matches!(family("gawk"), Family::Awk));
        assert!(matches!(family("gmake"), Family::Make));
        assert!(matches!(family("man"), Family::Pager));
        for deleter in ["rm", "unlink", "shred", "dd", "mkfs.ext4", "gio"] {
            assert!(matches!(family(deleter), Family::Deleter), "{deleter}");
        }
        assert!(matches!(family("gdb"), Family::Debugger));
        assert!(matches!(family("crontab"), Family::Scheduler));
        assert!(matches!(family("npx"), Family::Package));
        assert!(matches!(
            family("zx"),
            Family::Interpreter { node_like: true }
        ));
        assert!(matches!(family("git-tfs"), Family::Deployer));
    }

    /// Every row of the v2 tables reaches a family whose judge reads that table.
    #[test]
    fn every_row_reaches_its_judge() {
        use rules::{container, database, deploy, escape, network, system};
        for (name, _) in deploy::PUBLISH.iter().chain(deploy::DESTROY) {
            let f = family(name);
            assert!(
                matches!(
                    f,
                    Family::Deployer
                        | Family::Package
                        | Family::Container
                        | Family::Interpreter { .. }
                ),
                "{name}"
            );
        }
        for name in deploy::CLOUD {
            assert!(matches!(family(name), Family::Deployer), "{name}");
        }
        for name in container::CONTAINERS {
            assert!(matches!(family(name), Family::Container), "{name}");
        }
        for (name, _) in database::DB_CLIENTS {
            assert!(matches!(family(name), Family::Database), "{name}");
        }
        for name in system::SYSTEM {
            assert!(
                matches!(family(name), Family::System | Family::Deleter),
                "{name}"
            );
        }
        for (name, _, _) in escape::ESCAPES {
            assert!(
                matches!(family(name), Family::Escape | Family::Interpreter { .. }),
                "{name}"
            );
        }
        for name in network::NETWORK {
            assert!(!matches!(family(name), Family::Other), "{name}");
        }
    }
}
