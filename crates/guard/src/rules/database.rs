//! Database clients, judged in one place: the database files they open (a tracked or
//! protected file, pawl's store) and sqlite3's dot-commands (`.shell`, `.system`, `.output`,
//! `.load`, ...); the SQL given to a server's client ([`DB_CLIENTS`]): what destroys a database
//! (rule `infra-destroy`) and the client's shell escapes (rule `shell-escape`).

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::paths::{globs_may_overlap, has_wildcard, is_within, normalize};
use crate::rules::{abbrev, percent_decode};
use crate::walk::Judged;
use crate::walk::{Frame, Shell, Stdin, Walker, WriteMode};
use crate::words::Arg;

/// Programs that open a SQLite (or similar) database named on their command line.
#[rustfmt::skip]
pub(crate) const DB_TOOLS: &[&str] = &[
    "sqlite3", "sqlite", "sqlite-utils", "litecli", "duckdb", "datasette", "sqlitebrowser",
    "sqldiff", "sqlite3_analyzer", "sqlite3_rsync", "sqlcipher", "dbhash", "usql",
];

/// Database clients: the SQL they are given (`-c`, `-e`, stdin) is read for destruction and
/// for their own shell escapes. `(program, options whose value is SQL)`.
#[rustfmt::skip]
pub(crate) const DB_CLIENTS: &[(&str, &[&str])] = &[
    ("psql", &["-c", "--command"]),
    ("mysql", &["-e", "--execute"]),
    ("mariadb", &["-e", "--execute"]),
    ("sqlcmd", &["-Q", "-q"]),
    ("cockroach", &["-e", "--execute"]),
    ("clickhouse-client", &["-q", "--query"]),
    ("clickhouse", &["-q", "--query"]),
    ("mongosh", &["--eval"]),
    ("mongo", &["--eval"]),
    ("cqlsh", &["-e", "--execute"]),
    ("duckdb", &["-c", "-cmd"]),
    ("usql", &["-c", "--command"]),
    ("pgcli", &["-e"]),
    ("mycli", &["-e", "--execute"]),
];

/// SQL (upper-cased, spaces squeezed) that destroys a database or its data.
#[rustfmt::skip]
const SQL_DESTROY: &[&str] = &[
    "DROP DATABASE", "DROP SCHEMA", "DROP TABLE", "DROP OWNED", "TRUNCATE", "DROP USER",
    "DROP ROLE", "DROP KEYSPACE", "DROP COLLECTION", "DROPDATABASE()", ".DROP()", "DELETEMANY({})", "FLUSHALL",
];

/// Text that is a shell escape in a database client or a calculator.
#[rustfmt::skip]
const SQL_ESCAPES: &[&str] = &["\\!", "\\o |", "\\o|", "\\g |", "\\g|", "PROGRAM", ".SHELL", ".SYSTEM", ".SH ", "SYSTEM ", "\\SETENV"];

/// Whether `base` is a database tool of either kind: one that opens database files
/// ([`DB_TOOLS`]) or a client of a database server ([`DB_CLIENTS`]).
pub(crate) fn is_database(base: &str) -> bool {
    DB_TOOLS.contains(&base) || DB_CLIENTS.iter().any(|(n, _)| *n == base)
}

impl Walker<'_> {
    /// Judges a database client of [`DB_TOOLS`].
    pub(crate) fn database(
        &mut self,
        base: &str,
        args: &[Arg],
        code_args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if matches!(base, "sqlite3" | "sqlite") {
            self.sqlite(base, code_args, stdin, shell, frame)?;
        }
        self.database_tool(base, args, shell, frame)
    }

    fn sqlite(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        #[rustfmt::skip]
        const VALUES: &[&str] = &[
            "cmd", "init", "separator", "newline", "nullvalue", "vfs", "mmap", "maxsize", "escape",
        ];
        const TWO_VALUES: &[&str] = &["lookaside", "pagecache", "heap"];
        let mut commands: Vec<Arg> = Vec::new();
        let mut db: Option<Arg> = None;
        let mut safe = false;
        let mut readonly = false;
        let mut sql_operands = false;
        let mut index = 0;
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            if arg.text.starts_with('-') {
                let name = arg.text.trim_start_matches('-');
                if !arg.known {
                    return self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("{base} option `{}` is not statically known", arg.text),
                    );
                }
                if name.starts_with('A') || name == "archive" {
                    if name.contains('x') || args.iter().any(|a| a.text.contains("extract")) {
                        return self.deny(
                            frame,
                            RuleId::DestructiveShell,
                            format!(
                                "{base} -A extracts files from an archive over the working tree"
                            ),
                        );
                    }
                    return Continue(());
                }
                match name {
                    "safe" => safe = true,
                    "readonly" => readonly = true,
                    "cmd" => {
                        commands.extend(args.get(index).cloned());
                        index += 1;
                    }
                    _ if VALUES.contains(&name) => index += 1,
                    _ if TWO_VALUES.contains(&name) => index += 2,
                    _ => {}
                }
                continue;
            }
            if db.is_none() {
                db = Some(arg.clone());
            } else {
                sql_operands = true;
                commands.push(arg.clone());
            }
        }
        if let Some(db) = &db
            && !readonly
            && !db.text.is_empty()
            && db.text != ":memory:"
            && !db.text.starts_with("file:")
        {
            self.check_write(db, WriteMode::Modify, shell, frame, base)?;
        }
        if safe {
            return Continue(());
        }
        if !sql_operands {
            match stdin {
                Stdin::Text(text) => commands.push(Arg::lit(text.clone())),
                Stdin::Pipe | Stdin::Unknown => {
                    return self.fail_closed(
                        frame,
                        RuleId::Interpreter,
                        format!("{base} reads commands from a pipe; they may run shell commands (`.shell`) the guard cannot see"),
                    );
                }
                Stdin::Inherited | Stdin::File => {}
            }
        }
        for command in &commands {
            if !command.known {
                return self.fail_closed(
                    frame,
                    RuleId::Interpreter,
                    format!(
                        "{base} runs commands `{}` that are not statically known",
                        command.text
                    ),
                );
            }
            self.sqlite_text(base, &command.text.clone(), shell, frame)?;
        }
        Continue(())
    }

    fn sqlite_text(&mut self, base: &str, text: &str, shell: &mut Shell, frame: &Frame) -> Judged {
        for line in text.lines() {
            let line = line.trim();
            if let Some(dot) = line.strip_prefix('.') {
                let (name, rest) = dot.split_once(char::is_whitespace).unwrap_or((dot, ""));
                let rest = rest.trim();
                let is = |full: &str, min: usize| abbrev(name, full, min);
                if name.is_empty() {
                    continue;
                }
                if is("shell", 2) || is("system", 2) {
                    self.walk_shell_text(&format!("{base} .{name}"), rest, shell, frame)?;
                    continue;
                }
                let words = dot_args(rest);
                let flags: Vec<&str> = words
                    .iter()
                    .filter(|w| w.starts_with('-'))
                    .map(String::as_str)
                    .collect();
                let plain: Vec<&str> = words
                    .iter()
                    .filter(|w| !w.starts_with('-'))
                    .map(String::as_str)
                    .collect();
                let what = format!("{base} .{name}");
                let writes = if is("output", 1)
                    || is("once", 2)
                    || is("log", 2)
                    || is("trace", 2)
                    || is("excel", 2)
                {
                    plain.first().copied().map(|t| (t, WriteMode::Clobber))
                } else if is("save", 2) || is("backup", 2) || is("clone", 2) {
                    plain.last().copied().map(|t| (t, WriteMode::Clobber))
                } else if is("open", 2) {
                    let mode = if flags.iter().any(|f| f.starts_with("--n")) {
                        WriteMode::Clobber
                    } else {
                        WriteMode::Modify
                    };
                    plain.last().copied().map(|t| (t, mode))
                } else if is("read", 2) || is("import", 2) {
                    // Only a `|command` source matters; files are read.
                    plain
                        .first()
                        .copied()
                        .filter(|t| t.starts_with('|'))
                        .map(|t| (t, WriteMode::Modify))
                } else if is("archive", 2) || is("ar", 2) {
                    if flags
                        .iter()
                        .any(|f| f.contains('x') || f.starts_with("--e"))
                    {
                        return self.deny(
                            frame,
                            RuleId::DestructiveShell,
                            format!("{what} extracts files from an archive over the working tree"),
                        );
                    }
                    None
                } else if is("load", 2) || is("edit", 2) {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("{what} loads native code or runs an editor; the guard cannot see what it runs"),
                    );
                } else {
                    None
                };
                match writes {
                    Some((target, _)) if target.starts_with('|') => {
                        // sqlite3 appends the words after `|cmd` to the command.
                        let at = words.iter().position(|w| w.starts_with('|')).unwrap_or(0);
                        let joined = words[at..].join(" ");
                        let cmd = &joined[1..];
                        if is("read", 2) || is("import", 2) {
                            self.walk_shell_text(&format!("{what} |"), cmd, shell, frame)?;
                        } else {
                            self.walk_piped_shell(&format!("{what} |"), cmd, shell, frame)?;
                        }
                    }
                    Some((target, mode)) if !matches!(target, "stdout" | "stderr" | "off" | "") => {
                        self.check_write(&Arg::lit(target), mode, shell, frame, &what)?
                    }
                    _ => {
                        if flags.iter().any(|f| matches!(*f, "-x" | "-e")) && !is("open", 2) {
                            self.deny(
                                frame,
                                RuleId::Interpreter,
                                format!("{what} -x/-e opens another program"),
                            )?;
                        }
                    }
                }
            } else {
                let lower = line.to_ascii_lowercase();
                for danger in ["load_extension", "writefile", "edit(", "fts3_tokenizer"] {
                    if lower.contains(danger) {
                        return self.deny(
                            frame,
                            RuleId::Interpreter,
                            format!("{base} SQL uses `{danger}`, which loads code, runs a program or writes files"),
                        );
                    }
                }
                if lower.contains("vacuum") && lower.contains("into") || lower.contains("attach") {
                    for lit in sql_literals(line) {
                        self.check_write(
                            &Arg::lit(lit),
                            WriteMode::Modify,
                            shell,
                            frame,
                            &format!("{base} ATTACH/VACUUM INTO"),
                        )?;
                    }
                }
            }
        }
        Continue(())
    }

    /// pawl's store (`.pawl/` in the repository) holds the run's limits and evidence: no
    /// database tool may open it, however the path is spelled (a glob, a `cd`, a `file:`
    /// URI, an `ATTACH` in the SQL). A database tool's output dot-commands (`.output FILE`)
    /// are writes like `>`.
    fn database_tool(&mut self, base: &str, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let store = self
            .anchors
            .repo_root
            .as_deref()
            .map(|root| normalize(root, ".pawl"));
        let store_reason = format!(
            "{base}: pawl's store (.pawl/) holds the run's limits and evidence; only pawl changes it"
        );
        if let (Some(store), Some(cwd)) = (&store, shell.cwd.as_deref())
            && is_within(cwd, store)
        {
            return self.deny(frame, RuleId::ProtectedPath, store_reason);
        }
        for arg in args {
            if !arg.known {
                return self.deny(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "{base} with `{}`, which is not statically known: it may name pawl's store",
                        arg.text
                    ),
                );
            }
            let decoded = percent_decode(&arg.text);
            let lower = decoded.to_ascii_lowercase();
            if [
                "pawl",
                "attach",
                ".open",
                ".restore",
                "load_extension",
                ".load ",
            ]
            .iter()
            .any(|w| lower.contains(w))
            {
                return self.deny(frame, RuleId::ProtectedPath, store_reason);
            }
            // `.output FILE`, `.once FILE`, `.save FILE`, `.backup [DB] FILE`: written files.
            for line in decoded.lines() {
                let mut words = line.split_whitespace();
                if let Some(cmd) = words.next()
                    && matches!(
                        cmd,
                        ".output" | ".once" | ".save" | ".backup" | ".clone" | ".log" | ".excel"
                    )
                    && let Some(file) = words.last()
                {
                    let file = file.trim_matches(|c| c == '\'' || c == '"');
                    if !file.starts_with('-')
                        && file != "stdout"
                        && file != "stderr"
                        && file != "off"
                    {
                        self.check_write(
                            &Arg::lit(file),
                            WriteMode::Clobber,
                            shell,
                            frame,
                            &format!("{base} {cmd}"),
                        )?;
                    }
                }
            }
            let Some(store) = &store else { continue };
            let path = decoded.strip_prefix("file:").unwrap_or(&decoded);
            let path = path.split('?').next().unwrap_or(path);
            if path.is_empty() || path.starts_with('-') {
                continue;
            }
            let Some(absolute) = self.resolve(shell, path) else {
                return self.deny(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "{base} `{path}` is relative to a directory that is not statically known"
                    ),
                );
            };
            let hits = if arg.glob || has_wildcard(path) {
                globs_may_overlap(&absolute, store)
                    || globs_may_overlap(&absolute, &format!("{store}/**"))
            } else {
                is_within(&absolute, store)
                    || self
                        .real_path(&absolute, true)
                        .is_some_and(|real| is_within(&real, store))
            };
            if hits {
                return self.deny(frame, RuleId::ProtectedPath, store_reason);
            }
        }
        Continue(())
    }
}

/// The arguments of a sqlite3 dot-command: words, with '...' and "..."
/// grouping as sqlite3 does.
fn dot_args(rest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = rest.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        if c == '\'' || c == '"' {
            chars.next();
            for d in chars.by_ref() {
                if d == c {
                    break;
                }
                word.push(d);
            }
        } else {
            while let Some(&d) = chars.peek() {
                if d.is_whitespace() {
                    break;
                }
                word.push(d);
                chars.next();
            }
        }
        out.push(word);
    }
    out
}

/// Single-quoted SQL string literals in `line`.
fn sql_literals(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut parts = line.split('\'');
    parts.next();
    while let Some(lit) = parts.next() {
        out.push(lit.to_owned());
        parts.next();
    }
    out
}

impl Walker<'_> {
    /// Judges the SQL given to a server's client ([`DB_CLIENTS`]).
    pub(crate) fn db_client(
        &mut self,
        base: &str,
        opts: &[&str],
        args: &[Arg],
        stdin: &Stdin,
        frame: &Frame,
    ) -> Judged {
        let mut texts: Vec<String> = super::option_values(args, opts)
            .into_iter()
            .map(|a| a.text)
            .collect();
        if let Stdin::Text(t) = stdin {
            texts.push(t.clone());
        }
        for text in texts {
            let squeezed: String = text
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_ascii_uppercase();
            if let Some(esc) = SQL_ESCAPES
                .iter()
                .find(|e| squeezed.contains(*e) || squeezed.starts_with(e.trim()))
            {
                return self.deny(
                    frame,
                    RuleId::ShellEscape,
                    format!(
                        "`{base}` is given `{}`, which runs a shell command",
                        esc.trim()
                    ),
                );
            }
            let nospace = squeezed.replace(' ', "");
            if let Some(what) = SQL_DESTROY
                .iter()
                .find(|d| squeezed.contains(*d) || nospace.contains(&d.replace(' ', "")))
            {
                return self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    format!("`{base}` is given `{what}`: it destroys a database or its data"),
                );
            }
            if let Some(at) = squeezed.find("DELETE FROM") {
                let stmt = squeezed[at..].split(';').next().unwrap_or("");
                if !stmt.contains(" WHERE ") {
                    return self.deny(
                        frame,
                        RuleId::InfraDestroy,
                        format!(
                            "`{base}` is given a `DELETE FROM` without `WHERE`: it empties a table"
                        ),
                    );
                }
            }
        }
        Continue(())
    }
}
