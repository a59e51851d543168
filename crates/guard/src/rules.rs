//! The rules that judge one resolved simple command: one module per program family of the
//! registry (`registry.rs`: [`git`], [`archive`], [`editor`], [`database`], [`delete`],
//! [`remote`], [`awk`], [`make`], [`pager`], [`interp`], [`deploy`], [`system`],
//! [`container`], [`escape`], [`debugger`], [`schedule`], package tools in [`exec`]), the file
//! rules every program's operands go through ([`fs`]), the pass every command goes through
//! ([`every_command`], with [`network`] for secrets), pawl's own paths ([`reach`], [`pawl`]);
//! plus the option parser and option helpers they share (`parse`/`parse_with`, `cluster_value`,
//! `long_option`, `next_arg`).
//!
//! Rules are methods on the walker so that they can read the shell state
//! (current directory, branch) and hand payloads back to it (a git alias
//! that runs `!sh`, a `python -c` string that runs `git push`).

pub(crate) mod archive;
pub(crate) mod awk;
pub(crate) mod container;
pub(crate) mod database;
pub(crate) mod debugger;
pub(crate) mod delete;
pub(crate) mod deploy;
pub(crate) mod editor;
pub(crate) mod effects;
pub(crate) mod escape;
pub(crate) mod every_command;
pub(crate) mod exec;
pub(crate) mod fs;
pub(crate) mod git;
pub(crate) mod interp;
pub(crate) mod make;
pub(crate) mod network;
pub(crate) mod outputs;
pub(crate) mod pager;
pub(crate) mod pawl;
pub(crate) mod reach;
pub(crate) mod remote;
pub(crate) mod schedule;
pub(crate) mod system;

use crate::words::Arg;

/// One option as written: `-r`, `--force`, with its value when it takes one.
#[derive(Debug, Clone)]
pub(crate) struct Opt {
    pub name: String,
    pub value: Option<Arg>,
}

/// Options and operands of a command line.
#[derive(Debug, Clone, Default)]
pub(crate) struct Parsed {
    pub opts: Vec<Opt>,
    pub operands: Vec<Arg>,
}

impl Parsed {
    /// Whether any of `names` was given.
    pub(crate) fn has(&self, names: &[&str]) -> bool {
        self.opts.iter().any(|o| names.contains(&o.name.as_str()))
    }

    /// The value of the last of `names` given.
    pub(crate) fn value(&self, names: &[&str]) -> Option<&Arg> {
        self.opts
            .iter()
            .rev()
            .find(|o| names.contains(&o.name.as_str()))
            .and_then(|o| o.value.as_ref())
    }
}

/// How a command's options look.
pub(crate) struct Spec<'s> {
    /// Short options that take a value (`-u root`, `-uroot`).
    pub short_values: &'s str,
    /// Long options that take a value when given without `=`.
    pub long_values: &'s [&'s str],
    /// Options end at the first operand (wrappers: the rest is a command).
    pub stop_at_operand: bool,
}

/// Parses `args` (without the command name) per `spec`. Unknown words are
/// operands; `--` ends options.
pub(crate) fn parse(args: &[Arg], spec: &Spec<'_>) -> Parsed {
    parse_with(args, spec.short_values, spec.stop_at_operand, |name| {
        let takes = spec.long_values.contains(&name);
        (name.to_owned(), takes)
    })
}

/// The option loop of [`parse`] (and git's `gparse`): `long` names a long option given
/// without `=value` (its canonical name, and whether it takes the next argument).
pub(crate) fn parse_with(
    args: &[Arg],
    short_values: &str,
    stop_at_operand: bool,
    long: impl Fn(&str) -> (String, bool),
) -> Parsed {
    let mut out = Parsed::default();
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        index += 1;
        match arg.exact() {
            Some("--") => {
                out.operands.extend(args[index..].iter().cloned());
                break;
            }
            Some(text) if text.starts_with("--") => {
                let (given, value) = match text.split_once('=') {
                    Some((n, v)) => (n, Some(Arg::lit(v))),
                    None => (text, None),
                };
                let (name, takes) = long(given);
                let value = match value {
                    None if takes => next_arg(args, &mut index),
                    value => value,
                };
                out.opts.push(Opt { name, value });
            }
            Some(text) if text.len() > 1 && text.starts_with('-') => {
                short_cluster(text, args, &mut index, short_values, &mut out);
            }
            _ => {
                out.operands.push(arg.clone());
                if stop_at_operand {
                    out.operands.extend(args[index..].iter().cloned());
                    break;
                }
            }
        }
    }
    out
}

/// A cluster of short options (`-rf`, `-n5`, `-C dir`): one option per letter; the first letter
/// in `short_values` takes the rest of the word, or the next argument, as its value.
pub(crate) fn short_cluster(
    text: &str,
    args: &[Arg],
    index: &mut usize,
    short_values: &str,
    out: &mut Parsed,
) {
    let cluster: Vec<char> = text.chars().skip(1).collect();
    for (at, c) in cluster.iter().enumerate() {
        if short_values.contains(*c) {
            let rest: String = cluster[at + 1..].iter().collect();
            let value = if rest.is_empty() {
                let v = args.get(*index).cloned();
                *index += 1;
                v
            } else {
                Some(Arg::lit(rest))
            };
            out.opts.push(Opt {
                name: format!("-{c}"),
                value,
            });
            return;
        }
        out.opts.push(Opt {
            name: format!("-{c}"),
            value: None,
        });
    }
}

/// The argument at `index`, stepping past it (an option's value given as the next word).
pub(crate) fn next_arg(args: &[Arg], index: &mut usize) -> Option<Arg> {
    *index += 1;
    args.get(*index - 1).cloned()
}

/// The first letter of the short-option cluster `arg` (`-xzf`, `-efoo`) that is in `letters`,
/// with its value: the rest of the word, or the next argument (`index` is just past `arg`).
pub(crate) fn cluster_value(
    arg: &Arg,
    letters: &str,
    args: &[Arg],
    index: &mut usize,
) -> Option<(char, Option<Arg>)> {
    let (at, c) = arg
        .text
        .char_indices()
        .skip(1)
        .find(|(_, c)| letters.contains(*c))?;
    let rest = &arg.text[at + c.len_utf8()..];
    let value = if rest.is_empty() {
        next_arg(args, index)
    } else {
        Some(Arg {
            text: rest.to_owned(),
            ..arg.clone()
        })
    };
    Some((c, value))
}

/// A long option (`long`: the word without its `--`) whose name may abbreviate one of
/// `takes_value` (the first it abbreviates): the name as given, that full name, and the value
/// (after `=`, else the next argument for an option of `takes_value`; `index` is past `long`).
pub(crate) fn long_option<'a, 'f>(
    long: &'a str,
    takes_value: &[&'f str],
    args: &[Arg],
    index: &mut usize,
) -> (&'a str, Option<&'f str>, Option<Arg>) {
    let (name, inline) = match long.split_once('=') {
        Some((n, v)) => (n, Some(Arg::lit(v))),
        None => (long, None),
    };
    let takes = takes_value
        .iter()
        .find(|full| abbrev(name, full, 1))
        .copied();
    let value = match (takes, inline) {
        (Some(_), None) => next_arg(args, index),
        (_, inline) => inline,
    };
    (name, takes, value)
}

/// Whether `given` (an option name without its dashes) is an abbreviation
/// of `full` at least `min` characters long, as getopt_long accepts.
pub(crate) fn abbrev(given: &str, full: &str, min: usize) -> bool {
    given.len() >= min && full.starts_with(given)
}

/// A long option `--name=value` or `--name value` matched by abbreviation:
/// its value and how many arguments it used.
pub(crate) fn long_value<'a>(
    args: &'a [Arg],
    index: usize,
    full: &str,
    min: usize,
) -> Option<(Option<&'a Arg>, usize, Option<String>)> {
    let text = args[index].exact()?;
    let long = text.strip_prefix("--")?;
    let (name, inline) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v.to_owned())),
        None => (long, None),
    };
    if !abbrev(name, full, min) {
        return None;
    }
    match inline {
        Some(v) => Some((None, 1, Some(v))),
        None => Some((args.get(index + 1), 2, None)),
    }
}

/// Whether `args` ask only for help or the version (`--help`, `help`, a lone `-h`): the program
/// does nothing else.
pub(crate) fn is_help(args: &[Arg]) -> bool {
    args.first()
        .is_some_and(|a| matches!(a.text.as_str(), "--help" | "--version" | "help"))
        || (args.len() == 1 && args[0].text == "-h")
        || args.iter().any(|a| a.text == "--help")
}

/// The values of the options `names` in `args`, in order: `-o value`, `--name value`,
/// `--name=value`, and a two-letter option's attached `-ovalue`.
pub(crate) fn option_values(args: &[Arg], names: &[&str]) -> Vec<Arg> {
    let mut out = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let t = arg.text.as_str();
        let value = names.iter().find_map(|name| {
            if t == *name {
                return args.get(i + 1).cloned();
            }
            let rest = t.strip_prefix(name)?;
            let attached = rest.strip_prefix('=').or_else(|| {
                (name.len() == 2 && !name.starts_with("--") && !rest.is_empty()).then_some(rest)
            })?;
            Some(Arg {
                text: attached.to_owned(),
                ..arg.clone()
            })
        });
        out.extend(value);
    }
    out
}

/// Paths that name standard input.
pub(crate) fn is_stdin_path(text: &str) -> bool {
    matches!(
        text,
        "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "/proc/thread-self/fd/0"
    )
}

/// Percent-decodes text (`file:` URIs, URLs): `%6c` is `l`.
pub(crate) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(hex) = std::str::from_utf8(&bytes[i + 1..i + 3])
            && let Ok(v) = u8::from_str_radix(hex, 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(items: &[&str]) -> Vec<Arg> {
        items.iter().map(|s| Arg::lit(*s)).collect()
    }

    #[test]
    fn clusters_and_values() {
        let spec = Spec {
            short_values: "u",
            long_values: &["--user"],
            stop_at_operand: true,
        };
        let p = parse(&lits(&["-nuroot", "--user", "x", "git", "-f"]), &spec);
        assert!(p.has(&["-n"]));
        assert_eq!(p.value(&["-u"]).map(|a| a.text.as_str()), Some("root"));
        assert_eq!(p.operands.len(), 2);
    }

    #[test]
    fn option_values_in_every_form() {
        let args = lits(&[
            "-v",
            "/a:/a",
            "-v/b:/b",
            "--volume=/c:/c",
            "--mount",
            "x",
            "-vv",
        ]);
        let got: Vec<String> = option_values(&args, &["-v", "--volume", "--mount"])
            .into_iter()
            .map(|a| a.text)
            .collect();
        assert_eq!(got, ["/a:/a", "/b:/b", "/c:/c", "x", "v"]);
    }

    #[test]
    fn double_dash_ends_options() {
        let spec = Spec {
            short_values: "",
            long_values: &[],
            stop_at_operand: false,
        };
        let p = parse(&lits(&["-rf", "--", "-x", "a"]), &spec);
        assert!(p.has(&["-r"]) && p.has(&["-f"]));
        assert_eq!(p.operands.len(), 2);
    }
}
