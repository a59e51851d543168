//! Archivers, judged in one place: what they run (tar's checkpoint actions, compress and
//! `--to-command` programs, zip's `-TT` test command), what they remove (`tar --remove-files`,
//! `zip -m`) and where they extract (into the repository, over tracked or protected files).
//! Their naming of pawl's own paths is `rules/reach.rs`'s, like every program's.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::rules::{self, Spec, abbrev, cluster_value, long_value, next_arg};
use crate::walk::Judged;
use crate::walk::{Frame, Shell, Walker, WriteMode};
use crate::words::Arg;

/// The archivers [`Walker::archiver`] judges.
pub(crate) const ARCHIVERS: &[&str] = &[
    "tar", "gtar", "bsdtar", "zip", "unzip", "7z", "7za", "7zr", "7zz", "cpio", "ar", "jar",
];

impl Walker<'_> {
    /// Judges an archiver of [`ARCHIVERS`]: `code_args` with a descriptor operand read as `-`
    /// (what it runs), `args` as written (what it removes and extracts).
    pub(crate) fn archiver(
        &mut self,
        base: &str,
        args: &[Arg],
        code_args: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match base {
            "tar" | "gtar" | "bsdtar" => {
                self.tar_runs(base, code_args, shell, frame)?;
                self.tar_files(base, args, shell, frame)?;
            }
            "zip" => {
                self.zip_runs(code_args, shell, frame)?;
                self.zip_files(args, shell, frame)?;
            }
            "unzip" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "dPIO",
                        long_values: &[],
                        stop_at_operand: false,
                    },
                );
                // Without an archive unzip prints its usage.
                if !p.operands.is_empty()
                    && !p.has(&["-l", "-t", "-v", "-p", "-c", "-z", "-Z", "-h", "--help"])
                {
                    let dir = p.value(&["-d"]).cloned();
                    // `-:` keeps `../` in member names; without it unzip strips them.
                    let confined = !p.has(&["-:"]);
                    self.check_extract_into("unzip", dir.as_ref(), confined, shell, frame)?;
                }
            }
            "7z" | "7za" | "7zr" | "7zz" => {
                let command = args.iter().find(|a| !a.text.starts_with('-'));
                if command.is_some_and(|c| c.is("x") || c.is("e")) {
                    let dir = args.iter().find(|a| a.text.starts_with("-o")).map(|a| Arg {
                        text: a.text[2..].to_owned(),
                        ..a.clone()
                    });
                    self.check_extract(base, dir.as_ref(), shell, frame)?;
                }
            }
            "cpio" => self.cpio(args, shell, frame)?,
            "ar" | "jar" => {
                let key = args.first().map(|a| a.text.trim_start_matches('-'));
                let extract = key.is_some_and(|k| !k.starts_with('-') && k.contains('x'))
                    || args.iter().any(|a| a.is("--extract"));
                if extract {
                    self.check_extract(&format!("{base} x"), None, shell, frame)?;
                }
            }
            _ => {}
        }
        Continue(())
    }

    fn tar_runs(&mut self, base: &str, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        /// Long options whose value is a command, with the shortest
        /// abbreviation that is not another option.
        const RUNS: &[(&str, usize)] = &[
            ("checkpoint-action", 11),
            ("to-command", 4),
            ("use-compress-program", 3),
            ("rsh-command", 2),
            ("rmt-command", 2),
            ("info-script", 3),
            ("new-volume-script", 3),
        ];
        const SHORT_VALUES: &str = "bCfFgHIKLNTVX";
        let origin = |what: &str| format!("{base} {what}");
        let mut index = 0;
        // Old-style first argument (`tar cvfI x.tar prog ...`): its letters
        // take their values from the next arguments in order.
        if let Some(first) = args.first().and_then(Arg::exact)
            && !first.starts_with('-')
            && !first.is_empty()
            && first.chars().all(|c| c.is_ascii_alphabetic())
        {
            index = 1;
            for c in first.chars() {
                if SHORT_VALUES.contains(c) {
                    let value = args.get(index);
                    index += 1;
                    if c == 'I' || c == 'F' {
                        self.walk_shell_arg(&origin(&format!("-{c}")), value, shell, frame)?;
                    }
                    if c == 'g'
                        && let Some(file) = value
                    {
                        self.check_write(file, WriteMode::Modify, shell, frame, &origin("-g"))?;
                    }
                }
            }
        }
        while index < args.len() {
            let arg = &args[index];
            if !arg.known && arg.text.starts_with('-') {
                return self.fail_closed(
                    frame,
                    RuleId::NotStatic,
                    format!("{base} option `{}` is not statically known", arg.text),
                );
            }
            let text = arg.text.clone();
            if text == "--" {
                break;
            }
            if text.starts_with("--") {
                let mut used = 1;
                for (full, min) in RUNS {
                    if let Some((next, n, inline)) = long_value(args, index, full, *min) {
                        used = n;
                        let what = origin(&format!("--{full}"));
                        let value = inline.map(Arg::lit).or_else(|| next.cloned());
                        if *full == "checkpoint-action" {
                            match value.as_ref() {
                                Some(v) if v.known => {
                                    if let Some(cmd) = v.text.strip_prefix("exec=") {
                                        self.walk_shell_text(&what, cmd, shell, frame)?;
                                    }
                                }
                                _ => self.fail_closed(
                                    frame,
                                    RuleId::NotStatic,
                                    format!("{what} that is not statically known"),
                                )?,
                            }
                        } else if matches!(*full, "to-command" | "use-compress-program") {
                            // The archive's data is the command's input.
                            match value.as_ref().filter(|v| v.known) {
                                Some(v) => self.walk_piped_shell(&what, &v.text, shell, frame)?,
                                None => self.fail_closed(
                                    frame,
                                    RuleId::NotStatic,
                                    format!("{what} that is not statically known"),
                                )?,
                            }
                        } else {
                            self.walk_shell_arg(&what, value.as_ref(), shell, frame)?;
                        }
                        break;
                    }
                }
                // Options that name a file tar writes.
                for (full, min, mode) in [
                    ("index-file", 3, WriteMode::Clobber),
                    ("volno-file", 3, WriteMode::Clobber),
                    ("listed-incremental", 3, WriteMode::Modify),
                ] {
                    if let Some((next, n, inline)) = long_value(args, index, full, min) {
                        used = n;
                        let value = inline.map(Arg::lit).or_else(|| next.cloned());
                        if let Some(file) = value {
                            self.check_write(
                                &file,
                                mode,
                                shell,
                                frame,
                                &origin(&format!("--{full}")),
                            )?;
                        }
                    }
                }
                index += used;
                continue;
            }
            if text.starts_with('-') && text.len() > 1 {
                index += 1;
                match cluster_value(&Arg::lit(&text), SHORT_VALUES, args, &mut index) {
                    Some((c @ ('I' | 'F'), value)) => self.walk_shell_arg(
                        &origin(&format!("-{c}")),
                        value.as_ref(),
                        shell,
                        frame,
                    )?,
                    Some(('g', Some(file))) => {
                        self.check_write(&file, WriteMode::Modify, shell, frame, &origin("-g"))?
                    }
                    _ => {}
                }
                continue;
            }
            index += 1;
        }
        Continue(())
    }

    pub(crate) fn tar_files(
        &mut self,
        base: &str,
        args: &[Arg],
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        const VALUE_LETTERS: &str = "fbCTXgVLNKHIF";
        #[rustfmt::skip]
        const LONG_VALUES: &[&str] = &[
            "--directory", "--file", "--files-from", "--exclude", "--exclude-from", "--transform",
            "--xform", "--use-compress-program", "--listed-incremental", "--newer", "--after-date",
            "--label", "--format", "--owner", "--group", "--mode", "--mtime", "--strip-components",
            "--to-command", "--checkpoint-action", "--suffix", "--blocking-factor",
            "--record-size", "--tape-length", "--info-script", "--new-volume-script",
            "--rsh-command", "--index-file", "--volno-file", "--starting-file",
        ];
        let prefix_of =
            |name: &str, full: &str, min: usize| name.len() >= min && full.starts_with(name);
        let mut modes = String::new();
        let mut dirs: Vec<Arg> = Vec::new();
        let mut files: Vec<Arg> = Vec::new();
        let mut operands: Vec<Arg> = Vec::new();
        let mut remove_files = false;
        let mut to_stdout = false;
        // Member names kept as written (`-P`) or rewritten (`--transform`): they may leave the
        // destination.
        let mut unconfined = false;
        let mut index = 0;
        let value_of =
            |letter: char, value: Option<Arg>, dirs: &mut Vec<Arg>, files: &mut Vec<Arg>| {
                if let Some(v) = value {
                    match letter {
                        'C' => dirs.push(v),
                        'f' => files.push(v),
                        _ => {}
                    }
                }
            };
        while index < args.len() {
            let arg = &args[index];
            index += 1;
            let Some(text) = arg.exact() else {
                operands.push(arg.clone());
                continue;
            };
            if index == 1 && !text.starts_with('-') {
                // Old style: `tar xzf archive.tar`, values follow in the letters' order.
                for c in text.chars() {
                    modes.push(c);
                    if VALUE_LETTERS.contains(c) {
                        let v = args.get(index).cloned();
                        index += 1;
                        value_of(c, v, &mut dirs, &mut files);
                    }
                }
                continue;
            }
            if text == "--" {
                operands.extend(args[index..].iter().cloned());
                break;
            }
            if let Some(long) = text.strip_prefix("--") {
                let (name, value) = match long.split_once('=') {
                    Some((n, v)) => (format!("--{n}"), Some(Arg::lit(v))),
                    None => (format!("--{long}"), None),
                };
                let takes = LONG_VALUES
                    .iter()
                    .any(|l| prefix_of(&name, l, 5) || *l == name);
                let value = match value {
                    Some(v) => Some(v),
                    None if takes => next_arg(args, &mut index),
                    None => None,
                };
                if prefix_of(&name, "--directory", 5) {
                    value_of('C', value, &mut dirs, &mut files);
                } else if name == "--file" {
                    value_of('f', value, &mut dirs, &mut files);
                } else if prefix_of(&name, "--extract", 4) || prefix_of(&name, "--get", 4) {
                    modes.push('x');
                } else if prefix_of(&name, "--create", 4)
                    || prefix_of(&name, "--append", 4)
                    || prefix_of(&name, "--update", 4)
                    || prefix_of(&name, "--delete", 5)
                    || prefix_of(&name, "--concatenate", 5)
                    || prefix_of(&name, "--catenate", 5)
                {
                    modes.push('c');
                } else if prefix_of(&name, "--remove-files", 5) {
                    remove_files = true;
                } else if prefix_of(&name, "--absolute-names", 4)
                    || prefix_of(&name, "--transform", 4)
                    || prefix_of(&name, "--xform", 3)
                    || prefix_of(&name, "--keep-directory-symlink", 4)
                {
                    unconfined = true;
                } else if prefix_of(&name, "--to-stdout", 6) {
                    to_stdout = true;
                }
                continue;
            }
            if text.len() > 1 && text.starts_with('-') {
                // The letters up to the first that takes a value.
                match cluster_value(arg, VALUE_LETTERS, args, &mut index) {
                    Some((c, v)) => {
                        modes.extend(text[1..].chars().take_while(|l| *l != c));
                        modes.push(c);
                        value_of(c, v, &mut dirs, &mut files);
                    }
                    None => modes.push_str(&text[1..]),
                }
                continue;
            }
            operands.push(arg.clone());
        }
        let to_stdout = to_stdout || modes.contains('O');
        if modes.contains('x') && !to_stdout {
            if dirs.is_empty() {
                self.check_extract(&format!("{base} -x"), None, shell, frame)?;
            }
            let confined = !unconfined && !modes.contains('P') && base != "cmake -E tar";
            for dir in &dirs {
                self.check_extract_into(&format!("{base} -x"), Some(dir), confined, shell, frame)?;
            }
        }
        if modes.contains(['c', 'r', 'u', 'A']) {
            for file in files.iter().filter(|f| f.text != "-") {
                self.check_write(
                    file,
                    WriteMode::Clobber,
                    shell,
                    frame,
                    &format!("{base} -f"),
                )?;
            }
        }
        if remove_files {
            // Members are removed with what they hold, from the last -C directory.
            let members: Vec<Arg> = operands
                .iter()
                .map(|m| match dirs.last() {
                    Some(dir) if !m.text.starts_with('/') => Arg {
                        text: format!("{}/{}", dir.text, m.text),
                        known: dir.known && m.known,
                        glob: dir.glob || m.glob,
                    },
                    _ => m.clone(),
                })
                .collect();
            self.delete_operands(
                &format!("{base} --remove-files"),
                &members,
                true,
                shell,
                frame,
            )?;
        }
        Continue(())
    }

    fn zip_runs(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let mut index = 0;
        while index < args.len() {
            let text = args[index].text.clone();
            index += 1;
            let cluster_tt = (text.starts_with('-') && !text.starts_with("--"))
                .then(|| text.find("TT").map(|at| &text[at..]))
                .flatten();
            let value = if let Some(rest) = cluster_tt.and_then(|t| t.strip_prefix("TT")) {
                let rest = rest.trim_start_matches('=');
                if rest.is_empty() {
                    next_arg(args, &mut index)
                } else {
                    Some(Arg {
                        text: rest.to_owned(),
                        ..args[index - 1].clone()
                    })
                }
            } else if let Some(long) = text.strip_prefix("--") {
                let (name, inline) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                };
                if !abbrev(name, "unzip-command", 3) {
                    continue;
                }
                match inline {
                    Some(v) => Some(Arg {
                        text: v.to_owned(),
                        ..args[index - 1].clone()
                    }),
                    None => next_arg(args, &mut index),
                }
            } else {
                continue;
            };
            self.walk_shell_arg("zip -TT", value.as_ref(), shell, frame)?;
        }
        Continue(())
    }

    fn zip_files(&mut self, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "bntPZsOI",
                long_values: &[
                    "--temp-path",
                    "--suffixes",
                    "--password",
                    "--out",
                    "--split-size",
                ],
                stop_at_operand: false,
            },
        );
        let moves = p.has(&["-m"])
            || p.opts
                .iter()
                .any(|o| o.name.len() >= 4 && "--move".starts_with(o.name.as_str()));
        if !moves {
            return Continue(());
        }
        let recursive = p.has(&["-r", "-R", "--recurse-paths", "--recurse-patterns"]);
        let files: Vec<Arg> = p.operands.iter().skip(1).cloned().collect();
        self.delete_operands("zip -m", &files, recursive, shell, frame)
    }

    fn cpio(&mut self, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "CDEFHIMOR",
                long_values: &[
                    "--directory",
                    "--file",
                    "--format",
                    "--pattern-file",
                    "--owner",
                ],
                stop_at_operand: false,
            },
        );
        let has_long = |full: &str| {
            p.opts
                .iter()
                .any(|o| o.name.len() >= 5 && full.starts_with(o.name.as_str()))
        };
        if let Some(out) = p.value(&["-O"]).cloned() {
            self.check_write(&out, WriteMode::Clobber, shell, frame, "cpio -O")?;
        }
        let dir = p.value(&["-D", "--directory"]).cloned();
        if p.has(&["-i"]) || has_long("--extract") {
            self.check_extract("cpio -i", dir.as_ref(), shell, frame)?;
        } else if (p.has(&["-p"]) || has_long("--pass-through"))
            && let Some(dest) = p.operands.last().cloned()
        {
            self.check_extract("cpio -p", Some(&dest), shell, frame)?;
        }
        Continue(())
    }
}
