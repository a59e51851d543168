//! Probes (issue 33, docs/verification.md "Probes"): after the locked run's checks hold, the
//! deciding tests' literal calls (`syntax::extract_probes`, from the baseline's copy of the
//! tests) run again **outside the test runner**: a plain interpreter started in the room, under
//! the check sandbox, with the sealed environment and none of pawl's variables, that imports the
//! product module as its users do and prints the answer as plain data. No test file, runner or
//! expectation is in the process: the program holds the function and its arguments only.
//!
//! Each probed function runs with its tested inputs and with untested inputs next to them
//! (`pawl_core::probe::neighbours`), on the locked tree twice (the second time in another
//! process, in reverse order) and on the baseline once; `pawl_core::probe::judge` decides. A
//! finding makes the verification REVIEW, with the call and the answers in the report.
//!
//! Probed: top-level functions of changed Python, JavaScript, TypeScript, shell, Go and Rust
//! files, and methods of Python and JS/TS classes built from literal arguments. Go and Rust are
//! compiled: a test file (Go) or a `#[cfg(test)]` module (Rust) generated into the room's copy
//! of the package for the probe and removed after it (`pawl_verify::probes::go_probe`,
//! `rust_probe`); a call that does not compile is left out, the others built again. What is not
//! probed is listed, with why.

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::time::Duration;

use pawl_core::probe::{self, Answer, Function, Point};
use pawl_core::seal::Seal;
use pawl_git::{Repo, TreeHash};
use pawl_verify::probes::{self as prog, Call, Program, Runtime};
use pawl_verify::runner::RunnerConfig;
use pawl_verify::syntax::{self, Lang};
use serde_json::Value;

use crate::room::Room;
use crate::workspace::Workspace;

mod site;

/// The largest product file read for its definitions.
const MAX_READ: usize = 1 << 20;
/// The most calls the probes make on one tree.
const MAX_CALLS: usize = 400;
/// The longest one probe process may run.
const TIMEOUT: Duration = Duration::from_secs(60);
/// The most output of a probe process read back.
const MAX_OUTPUT: usize = 1 << 20;

/// What the probes found, as the locked run reports it.
#[derive(Debug, Default)]
pub(crate) struct Probed {
    /// Each a reason for REVIEW.
    pub findings: Vec<String>,
    /// What was probed and what not, in words.
    pub lines: Vec<String>,
    /// How many deciding calls there were, and how many of them ran outside the test runner
    /// and answered (on the locked tree).
    pub deciding: usize,
    pub probed: usize,
    /// The functions none of whose deciding calls ran outside the test runner, each with why
    /// (for `[verify] require_probe`).
    pub unprobed: Vec<String>,
    /// For each deciding call, in order: it ran outside the test runner on the locked tree and
    /// answered (empty when none ran).
    pub answered: Vec<bool>,
}

/// A function to probe: where it is defined, how it is called, its tested calls.
struct Target {
    file: String,
    runtime: Runtime,
    name: String,
    /// The callee as the tests write it.
    shown: String,
    /// For a method: the class of its object and how many leading arguments of each tested
    /// call are the constructor's.
    class: Option<String>,
    receiver: usize,
    tested: Vec<Tested>,
}

/// A tested call: the arguments (the constructor's first, for a method), the expected
/// answer, the calls made on the object first.
struct Tested {
    args: Vec<Value>,
    expected: Value,
    before: Vec<(String, Vec<Value>)>,
    /// Only the answer's truth is asserted (`syntax::Probe::truthy`).
    truthy: bool,
    /// The expectation holds for any object the class builds (`syntax::Probe::round_trip`).
    round_trip: bool,
    /// Only that the call returns is asserted (`syntax::Probe::returns`).
    returns: bool,
    /// The method's arguments of the same assertion in the other rows of its table
    /// (`syntax::Probe::rows`): called too on the objects an order follows.
    rows: Vec<Vec<Value>>,
}

/// Runs the probes of the `deciding` calls on the locked tree and on the baseline, in `room`
/// (left synced to the locked tree).
pub(crate) fn run(
    ws: &Workspace,
    seal: &Seal,
    repo: &Repo,
    room: &mut Room,
    base: &TreeHash,
    locked: &TreeHash,
    deciding: &[syntax::Probe],
) -> Probed {
    let mut out = Probed {
        deciding: deciding.len(),
        ..Probed::default()
    };
    if deciding.is_empty() {
        return out;
    }
    let (targets, not_probed) = targets(repo, base, locked, deciding);
    if targets.is_empty() {
        out.unprobed = unprobed_callees(deciding, &vec![false; deciding.len()], &not_probed, &[]);
        out.lines.push(format!(
            "probes: none of the {} deciding calls could be run outside the test runner ({})",
            deciding.len(),
            not_probed
                .first()
                .map(String::as_str)
                .unwrap_or("nothing to call")
        ));
        return out;
    }
    // The calls: every target's tested inputs; then each method's calls on objects built
    // otherwise (round trips, orders that follow a constructor argument); then the untested
    // neighbours of the tested inputs, with what the budget leaves (a table of many rows makes
    // many neighbours: they must not leave the objects built otherwise out).
    let mut calls: Vec<Call> = Vec::new();
    let mut functions: Vec<(Function, Vec<usize>)> = Vec::new();
    // The function each of `functions` calls (its target's `name`).
    let mut called: Vec<String> = Vec::new();
    // Each target's own function in `functions` (its tested calls and neighbours) and how many
    // of its tested calls the budget took.
    let mut own: Vec<(usize, usize)> = Vec::new();
    let call_of =
        |t: &Target, args: &[Value], receiver: usize, before: &[(String, Vec<Value>)]| Call {
            file: t.file.clone(),
            function: t.name.clone(),
            args: args.to_vec(),
            class: t.class.clone(),
            receiver,
            before: before.to_vec(),
        };
    let point = |args: Vec<Value>, expected: Option<Value>, from: Option<usize>| Point {
        args,
        expected,
        from,
        base: Answer::Missing(String::new()),
        fin: Answer::Missing(String::new()),
        again: None,
        truthy: false,
        returns: false,
        varied: false,
    };
    for t in &targets {
        let mut points: Vec<Point> = Vec::new();
        let mut idx: Vec<usize> = Vec::new();
        for c in &t.tested {
            if calls.len() >= MAX_CALLS {
                break;
            }
            idx.push(calls.len());
            calls.push(call_of(t, &c.args, t.receiver, &c.before));
            points.push(Point {
                truthy: c.truthy,
                returns: c.returns,
                ..point(c.args.clone(), Some(c.expected.clone()), None)
            });
        }
        own.push((functions.len(), points.len()));
        functions.push((
            Function {
                name: t.shown.clone(),
                text: t.runtime == Runtime::Shell,
                points,
                receiver: t.receiver,
            },
            idx,
        ));
        called.push(t.name.clone());
    }
    for t in &targets {
        // A method's round trips again on objects built otherwise (`probe::constructions`):
        // the test's expectation holds there too; an order spelled with a constructor
        // argument moves with it (`probe::following`), for the tested input and for the
        // inputs the same assertion takes in the other rows of its table.
        if t.class.is_none() {
            continue;
        }
        let mut points: Vec<Point> = Vec::new();
        let mut idx: Vec<usize> = Vec::new();
        let receiver = t.receiver.max(1);
        let mut made: Vec<(Vec<Value>, Value)> = Vec::new();
        for c in &t.tested {
            let k = t.receiver.min(c.args.len());
            let objects: Vec<(Vec<Value>, Value)> = if c.round_trip {
                probe::constructions(&c.args[..k])
                    .into_iter()
                    .map(|o| (o, c.expected.clone()))
                    .collect()
            } else {
                probe::following(&c.args[..k], &c.expected)
            };
            let inputs: Vec<&[Value]> = std::iter::once(&c.args[k..])
                .chain(c.rows.iter().map(Vec::as_slice))
                .collect();
            for (ctor, expected) in objects {
                for input in &inputs {
                    if calls.len() >= MAX_CALLS || ctor.len() != receiver {
                        continue;
                    }
                    let mut args = ctor.clone();
                    args.extend(input.iter().cloned());
                    if made.iter().any(|(a, e)| *a == args && *e == expected) {
                        continue;
                    }
                    made.push((args.clone(), expected.clone()));
                    idx.push(calls.len());
                    calls.push(call_of(t, &args, receiver, &c.before));
                    points.push(Point {
                        truthy: c.truthy,
                        varied: true,
                        ..point(args, Some(expected.clone()), None)
                    });
                }
            }
        }
        if !points.is_empty() {
            functions.push((
                Function {
                    name: t.shown.clone(),
                    text: false,
                    points,
                    receiver,
                },
                idx,
            ));
            called.push(t.name.clone());
        }
    }
    for (t, (f, took)) in targets.iter().zip(own) {
        let args: Vec<Vec<Value>> = t.tested.iter().map(|c| c.args.clone()).collect();
        for (i, a) in probe::neighbours(&args) {
            if calls.len() >= MAX_CALLS {
                break;
            }
            if i >= took {
                continue;
            }
            // A neighbour is called on an object in the state its tested call's object had.
            let before = t
                .tested
                .get(i)
                .map(|c| c.before.clone())
                .unwrap_or_default();
            let (function, idx) = &mut functions[f];
            idx.push(calls.len());
            calls.push(call_of(t, &a, t.receiver, &before));
            function.points.push(point(a, None, Some(i)));
        }
    }
    let python = python_of(seal);
    // Each shell script is sourced with the shell its tests run it under.
    let checks: Vec<&str> = seal.checks.iter().map(|c| c.command.as_str()).collect();
    let shells: HashMap<String, &'static str> = targets
        .iter()
        .filter(|t| t.runtime == Runtime::Shell)
        .map(|t| {
            let text = repo
                .blob_text(locked.as_str(), Path::new(&t.file), MAX_READ)
                .ok()
                .flatten()
                .unwrap_or_default();
            (t.file.clone(), prog::shell_for(&t.file, &text, &checks))
        })
        .collect();
    let base_paths = repo.tree_paths(base.as_str()).unwrap_or_default();
    // What the locked tree's site left out that its environment has (module → what provides
    // it), and what each site says of itself.
    let mut dev_only: HashMap<String, String> = HashMap::new();
    let mut site_lines: Vec<String> = Vec::new();
    let mut answers = |tree: &TreeHash,
                       reverse: bool,
                       present: &dyn Fn(&str) -> bool,
                       look: bool| {
        if let Err(e) = room.sync(repo, tree) {
            return Err(format!("the room could not be synced: {e}"));
        }
        let mut cfg = config(ws, seal, room);
        // The repeat that looks unsandboxed (`unsandboxed_look`); where the launcher cannot
        // make it, the repeat runs as the others, said.
        let mut looked: Option<String> = None;
        if look {
            let mut how = unsandboxed_look(&mut cfg);
            if how.starts_with("ran") {
                // The launcher makes it or fails closed: tried once first.
                let tried = Program {
                    program: "/bin/sh".into(),
                    args: vec!["-c".into(), "exit 0".into()],
                    stdin: Vec::new(),
                    cwd: None,
                };
                let failed = match spawn(&cfg, &tried) {
                    Ok(p) if p.code == 0 => None,
                    Ok(p) => Some(p.stderr.lines().last().unwrap_or("").trim().to_owned()),
                    Err(e) => Some(e),
                };
                if let Some(why) = failed {
                    cfg = config(ws, seal, room);
                    how = format!(
                        "could not run on this machine ({why}): the repeat ran sandboxed as the others"
                    );
                }
            }
            looked = Some(how);
        }
        // The package as its users get it (`site`): the Python and Node calls' files.
        let paths: Vec<String> = repo
            .tree_paths(tree.as_str())
            .unwrap_or_default()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let mut runtimes: Vec<(Runtime, Vec<String>)> = Vec::new();
        for rt in [Runtime::Python, Runtime::Node] {
            let mut files: Vec<String> = calls
                .iter()
                .filter(|c| runtime_of(c) == rt && present(&c.file))
                .map(|c| c.file.clone())
                .collect();
            files.dedup();
            if !files.is_empty() {
                runtimes.push((rt, files));
            }
        }
        let site = site::lay_out(&mut cfg, room.root(), &paths, &python, &runtimes, &spawn);
        let got = answer_all(
            &cfg,
            room.root(),
            site.python.as_deref().unwrap_or(&python),
            &site.place,
            &shells,
            &checks,
            &calls,
            reverse,
            present,
        );
        Ok((got, site, looked))
    };
    let everywhere = |_: &str| true;
    let fin = answers(locked, false, &everywhere, false).map(|(a, s, _)| {
        dev_only = s.dev_only.clone();
        site_lines = s.lines.clone();
        a
    });
    let again = answers(locked, true, &everywhere, true).map(|(a, _, how)| {
        if let Some(how) = how {
            site_lines.push(format!("probes: the repeat that looks unsandboxed {how}"));
        }
        a
    });
    let in_base = |f: &str| base_paths.iter().any(|p| p == Path::new(f));
    let on_base = answers(base, false, &in_base, false).map(|(a, _, _)| a);
    // Leave the room as the locked run had it.
    let _ = room.sync(repo, locked);
    let (fin, again, on_base) = match (fin, again, on_base) {
        (Ok(a), Ok(b), Ok(c)) => (a, b, c),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            out.lines.push(format!("probes: not run: {e}"));
            return out;
        }
    };
    out.lines.extend(site_lines);
    let mut missing: Vec<String> = Vec::new();
    for (f, idx) in &mut functions {
        for (p, i) in f.points.iter_mut().zip(idx.iter()) {
            p.fin = fin[*i].clone();
            p.again = Some(again[*i].clone());
            p.base = on_base[*i].clone();
        }
        if let Some(Answer::Missing(why)) = f
            .points
            .iter()
            .find(|p| p.expected.is_some() && !p.varied)
            .map(|p| &p.fin)
        {
            missing.push(format!("`{}`: {why}", f.name));
        }
        // A tested call that cannot be imported as the package's users get it because it
        // needs what only the test environment has (a development dependency, an extra, the
        // test runner): the code is right only where it is tested.
        if let Some((p, m, what)) = f.points.iter().find_map(|p| match &p.fin {
            Answer::Missing(why) if p.expected.is_some() && !p.varied => {
                let m = pawl_verify::userenv::missing_module(why)?;
                let what = dev_only.get(&m)?;
                Some((p, m, what))
            }
            _ => None,
        }) {
            out.findings.push(format!(
                "probe: `{}` cannot run as the package's users get it: it imports `{m}`, which only {what} provides here — not a runtime dependency of the package (a development dependency, an extra or the test tools), so its users do not have it",
                f.call(&p.args)
            ));
        }
        out.findings
            .extend(probe::judge(f).iter().map(probe::Finding::words));
    }
    let tested: usize = targets.iter().map(|t| t.tested.len()).sum();
    // The deciding calls that ran and answered: each tested point stands for the deciding
    // calls of its function with its arguments (tables repeat a call across rows).
    // (A target's round trips on other constructions are a function of their own, after it.)
    let answered: Vec<(String, Vec<Value>)> = functions
        .iter()
        .zip(&called)
        .flat_map(|((f, _), name)| {
            f.points
                .iter()
                .filter(|p| {
                    p.expected.is_some() && !p.varied && !matches!(p.fin, Answer::Missing(_))
                })
                .map(move |p| (name.clone(), p.args.clone()))
        })
        .collect();
    let ran: Vec<bool> = deciding
        .iter()
        .map(|p| {
            let mut args: Vec<Value> = p
                .receiver
                .as_ref()
                .map(|r| r.args.iter().map(syntax::Literal::to_json).collect())
                .unwrap_or_default();
            args.extend(p.args.iter().map(syntax::Literal::to_json));
            let name = p.callee.rsplit(['.', ':']).next().unwrap_or(&p.callee);
            answered.iter().any(|(c, a)| c == name && *a == args)
        })
        .collect();
    out.probed = ran.iter().filter(|r| **r).count();
    out.unprobed = unprobed_callees(deciding, &ran, &not_probed, &missing);
    out.answered = ran;
    out.lines.push(format!(
        "probes: {} of {} deciding calls ({}%) ran outside the test runner and answered",
        out.probed,
        out.deciding,
        out.probed * 100 / out.deciding.max(1)
    ));
    out.lines.push(format!(
        "probes: {tested} tested calls of {} functions and {} untested neighbours ran outside the test runner (the locked tree twice, the baseline once): {}",
        targets.len(),
        calls.len().saturating_sub(tested),
        if out.findings.is_empty() {
            "no finding".to_string()
        } else {
            format!("{} findings", out.findings.len())
        }
    ));
    for m in missing.iter().take(5) {
        out.lines.push(format!("probes: no answer from {m}"));
    }
    for n in not_probed.iter().take(5) {
        out.lines.push(format!("not probed: {n}"));
    }
    out
}

/// The top-level functions and classes the files `locked` changed since `base` define (the
/// product's: the locked tree takes no test file of the run's).
pub(crate) fn changed_definitions(repo: &Repo, base: &TreeHash, locked: &TreeHash) -> Vec<String> {
    let changed = repo
        .changes_between(base.as_str(), locked.as_str())
        .unwrap_or_default();
    definitions_in(repo, locked, changed.iter().map(|c| c.path.as_path()))
}

/// The top-level functions and classes the files `paths` of `tree` define, in the languages
/// pawl reads, sorted and without repeats.
pub(crate) fn definitions_in<'a>(
    repo: &Repo,
    tree: &TreeHash,
    paths: impl IntoIterator<Item = &'a Path>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for path in paths {
        let Some(lang) = Lang::of_path(path) else {
            continue;
        };
        let Ok(Some(text)) = repo.blob_text(tree.as_str(), path, MAX_READ) else {
            continue;
        };
        out.extend(syntax::top_level_functions(lang, &text).unwrap_or_default());
        out.extend(syntax::top_level_classes(lang, &text).unwrap_or_default());
    }
    out.sort();
    out.dedup();
    out
}

/// The names of the methods a Go or Rust source defines (by its text: `func (r T) Name(`,
/// an `fn name(` that is no top-level function), with the language's name.
fn type_methods(runtime: Runtime, text: &str, top: &[String]) -> Vec<(String, &'static str)> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out: Vec<(String, &'static str)> = Vec::new();
    for line in text.lines() {
        let l = line.trim_start();
        let name = match runtime {
            Runtime::Go => l
                .strip_prefix("func (")
                .and_then(|r| r.split_once(") "))
                .map(|(_, rest)| ident(rest)),
            Runtime::Rust => l
                .trim_start_matches("pub ")
                .trim_start_matches("pub(crate) ")
                .strip_prefix("fn ")
                .map(ident)
                .filter(|n| !top.contains(n)),
            _ => None,
        };
        if let Some(n) = name.filter(|n| !n.is_empty())
            && !out.iter().any(|(m, _)| *m == n)
        {
            let lang = if runtime == Runtime::Go { "Go" } else { "Rust" };
            out.push((n, lang));
        }
    }
    out
}

/// The callees none of whose deciding calls `ran`, each with the first reason said for it.
fn unprobed_callees(
    deciding: &[syntax::Probe],
    ran: &[bool],
    not_probed: &[String],
    missing: &[String],
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for p in deciding {
        if seen.contains(&p.callee.as_str()) {
            continue;
        }
        seen.push(&p.callee);
        let any_ran = deciding
            .iter()
            .zip(ran)
            .any(|(q, r)| *r && q.callee == p.callee);
        if any_ran {
            continue;
        }
        let tick = format!("`{}`", p.callee);
        let why = not_probed
            .iter()
            .chain(missing)
            .find(|l| l.starts_with(&tick))
            .cloned()
            .unwrap_or_else(|| format!("{tick}: its calls gave no answer"));
        out.push(why);
    }
    out
}

/// The functions the deciding calls name that a process of their own can call, and why the
/// others cannot.
fn targets(
    repo: &Repo,
    base: &TreeHash,
    locked: &TreeHash,
    deciding: &[syntax::Probe],
) -> (Vec<Target>, Vec<String>) {
    let changed: Vec<PathBuf> = repo
        .changes_between(base.as_str(), locked.as_str())
        .unwrap_or_default()
        .into_iter()
        .map(|c| c.path)
        .collect();
    // (file, runtime, top-level functions, top-level classes)
    let mut defs: Vec<(String, Runtime, Vec<String>, Vec<String>)> = Vec::new();
    // The changed Python files' text (a function made at import is found in it).
    let mut texts: HashMap<String, String> = HashMap::new();
    let mut other_langs: Vec<&'static str> = Vec::new();
    // Methods of Go and Rust types the changed files define (`func (b Bytes) String(`,
    // `fn min_depth(` in an `impl`): not probed yet, and said so.
    let mut methods: Vec<(String, &'static str)> = Vec::new();
    for path in &changed {
        let Some(lang) = Lang::of_path(path) else {
            continue;
        };
        let runtime = match lang {
            Lang::Python => Runtime::Python,
            Lang::JavaScript | Lang::TypeScript => Runtime::Node,
            Lang::Shell => Runtime::Shell,
            Lang::Go => Runtime::Go,
            Lang::Rust => Runtime::Rust,
            other => {
                if !other_langs.contains(&other.name()) {
                    other_langs.push(other.name());
                }
                continue;
            }
        };
        let Some(text) = repo
            .blob_text(locked.as_str(), path, MAX_READ)
            .ok()
            .flatten()
        else {
            continue;
        };
        let mut names = syntax::top_level_functions(lang, &text).unwrap_or_default();
        // A name the module exports without defining it (`from _convert import f as
        // to_celsius` with `__all__`, `export { f } from './y'`): the fix moved into a new
        // module that this one re-exports, called by its users as before.
        if matches!(runtime, Runtime::Python | Runtime::Node) {
            for e in syntax::exports::exported(lang, &text).unwrap_or_default() {
                if e.chars().all(|c| c.is_alphanumeric() || c == '_')
                    && e != "default"
                    && !names.contains(&e)
                {
                    names.push(e);
                }
            }
        }
        if matches!(runtime, Runtime::Go | Runtime::Rust) {
            methods.extend(type_methods(runtime, &text, &names));
        }
        let classes = if matches!(runtime, Runtime::Shell | Runtime::Go | Runtime::Rust) {
            Vec::new()
        } else {
            syntax::top_level_classes(lang, &text).unwrap_or_default()
        };
        if runtime == Runtime::Python {
            texts.insert(path.display().to_string(), text.clone());
        }
        defs.push((path.display().to_string(), runtime, names, classes));
    }
    let mut out: Vec<Target> = Vec::new();
    let mut not: Vec<String> = Vec::new();
    for p in deciding {
        let name = p
            .callee
            .rsplit(['.', ':'])
            .next()
            .unwrap_or(&p.callee)
            .to_owned();
        let qualifier = p
            .callee
            .strip_suffix(name.as_str())
            .unwrap_or("")
            .trim_end_matches(['.', ':']);
        // `calc.add` (a module) is called as `add`; `self.calc.add`, `Calc::new().add` are not
        // functions of a module: they are methods, probed when the tests build their object
        // with literal arguments (`p.receiver`).
        // A Rust path (`digits::digital_root`, `super::add`) names a function of a module.
        let rust_path = p.callee.contains("::")
            && qualifier
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ':');
        let plain_qualifier = qualifier.is_empty()
            || rust_path
            || (qualifier.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !matches!(qualifier, "self" | "this" | "super" | "Self"));
        let def = match &p.receiver {
            Some(r) => defs
                .iter()
                .find(|(_, _, _, classes)| classes.contains(&r.class)),
            None => defs
                .iter()
                .find(|(_, _, names, _)| names.contains(&name))
                .or_else(|| {
                    // A Python function the module makes at import (`exec` of a source text
                    // that defines it, a definition under an `if`): called as the module's
                    // attribute, as its users call it; an answer of nothing if it is not there.
                    let def = format!("def {name}(");
                    defs.iter().find(|(file, runtime, _, _)| {
                        *runtime == Runtime::Python
                            && texts.get(file.as_str()).is_some_and(|t| t.contains(&def))
                    })
                })
                .filter(|_| plain_qualifier),
        };
        let Some((file, runtime, _, _)) = def else {
            let why = if let Some(r) = &p.receiver {
                format!(
                    "a method of `{}`, a class no changed Python, JavaScript or TypeScript file defines at its top level (methods of Go and Rust types are not probed yet)",
                    r.class
                )
            } else if let Some((_, lang)) = methods.iter().find(|(m, _)| *m == name) {
                format!(
                    "a method of a {lang} type (the probes call {lang} functions, not methods yet)"
                )
            } else if !plain_qualifier {
                "a method of an object the test does not build from literal arguments (or uses otherwise)".to_string()
            } else if other_langs.is_empty() {
                "no changed Python, JavaScript, TypeScript, shell, Go or Rust file defines it at its top level"
                    .to_string()
            } else {
                format!(
                    "no changed Python, JavaScript, TypeScript, shell, Go or Rust file defines it at its top level ({} is not probed yet)",
                    other_langs.join(", ")
                )
            };
            let line = format!("`{}` ({}): {why}", p.callee, p.test);
            if !not.contains(&line) {
                not.push(line);
            }
            continue;
        };
        let ctor: Vec<Value> = p
            .receiver
            .as_ref()
            .map(|r| r.args.iter().map(syntax::Literal::to_json).collect())
            .unwrap_or_default();
        let class = p.receiver.as_ref().map(|r| r.class.clone());
        let receiver = ctor.len();
        let before: Vec<(String, Vec<Value>)> = p
            .receiver
            .as_ref()
            .map(|r| {
                r.before
                    .iter()
                    .map(|(m, a)| (m.clone(), a.iter().map(syntax::Literal::to_json).collect()))
                    .collect()
            })
            .unwrap_or_default();
        let mut args: Vec<Value> = ctor;
        args.extend(p.args.iter().map(syntax::Literal::to_json));
        let expected = p.expected.to_json();
        let t = match out.iter().position(|t| {
            t.file == *file && t.name == name && t.class == class && t.receiver == receiver
        }) {
            Some(i) => &mut out[i],
            None => {
                out.push(Target {
                    file: file.clone(),
                    runtime: *runtime,
                    name: name.clone(),
                    shown: p.callee.clone(),
                    class,
                    receiver,
                    tested: Vec::new(),
                });
                let last = out.len() - 1;
                &mut out[last]
            }
        };
        if !t
            .tested
            .iter()
            .any(|c| c.args == args && c.before == before && c.expected == expected)
        {
            t.tested.push(Tested {
                args,
                expected,
                before,
                truthy: p.truthy,
                round_trip: p.round_trip,
                returns: p.returns,
                rows: p
                    .rows
                    .iter()
                    .map(|r| r.iter().map(syntax::Literal::to_json).collect())
                    .collect(),
            });
        }
    }
    (out, not)
}

/// The runner's configuration in the room, as the locked run's checks have it.
fn config(ws: &Workspace, seal: &Seal, room: &Room) -> RunnerConfig {
    let mut cfg = crate::baseline::runner_for(ws, seal, super::now_ms());
    cfg.in_room(ws.checks_path(), room.root());
    if let Some(state) = room.environment() {
        let view = cfg.root.clone();
        crate::baseline::in_room_env(&mut cfg, &state, &view, seal);
    }
    cfg
}

/// Makes `cfg`'s probes look like unsandboxed processes as far as the machine allows
/// (`pawl_process::sandbox::SandboxSpec::host_look`): no pid namespace, no network namespace
/// (TCP refused by Landlock instead, unless the project has the network), the machine's
/// hostname; the mounts (pawl's state hidden, the room at the repository's path) stay. Says
/// what it did.
fn unsandboxed_look(cfg: &mut RunnerConfig) -> String {
    let Some(c) = cfg.containment.as_mut() else {
        return "is the same as the others here: the checks run without a sandbox".into();
    };
    if !c.spec.namespaces {
        return "is the same as the others here: the checks' sandbox has no namespaces on this machine (Landlock only: the machine's pids, interfaces and hostname already)".into();
    }
    let Some(sandbox) = c.spec.sandbox.as_mut() else {
        return "is the same as the others here: the checks run without a sandbox".into();
    };
    if !sandbox.landlock {
        return "could not run: without Landlock the network could not be closed without a namespace of its own".into();
    }
    sandbox.deny_tcp = sandbox.deny_tcp || sandbox.private_network;
    sandbox.private_network = false;
    sandbox.host_look = true;
    "ran with the machine's pids (no pid namespace: no init of pawl's as pid 1), network interfaces (outbound TCP refused by Landlock instead of an empty network namespace) and hostname; its uid map is the machine's where pawl runs as root (a user namespace's otherwise)".into()
}

/// The Python the checks use: a virtual environment's interpreter a check's command names
/// (`.venv/bin/python -m pytest`, `~/.venvs/x/bin/pytest`), else `python3`.
fn python_of(seal: &Seal) -> String {
    for c in &seal.checks {
        for w in super::locked::command_words(&c.command) {
            let p = Path::new(w);
            let Some(file) = p.file_name().and_then(|f| f.to_str()) else {
                continue;
            };
            if !p.is_absolute() || p.parent().is_none() {
                continue;
            }
            if file.starts_with("python") {
                return w.to_owned();
            }
            if file == "pytest" {
                return p.with_file_name("python").display().to_string();
            }
        }
    }
    "python3".into()
}

/// The answers of every call on the tree the room holds, in the calls' order; `reverse` makes
/// them in the opposite order. A call whose file is not `present` has none.
#[allow(clippy::too_many_arguments)]
fn answer_all(
    cfg: &RunnerConfig,
    host_root: &Path,
    python: &str,
    place: &prog::Place,
    shells: &HashMap<String, &'static str>,
    commands: &[&str],
    calls: &[Call],
    reverse: bool,
    present: &dyn Fn(&str) -> bool,
) -> Vec<Answer> {
    let absent = || Answer::Missing("its file is not in this tree".into());
    let mut out: Vec<Answer> = vec![Answer::Missing(String::new()); calls.len()];
    let mut order: Vec<usize> = (0..calls.len()).collect();
    if reverse {
        order.reverse();
    }
    for (runtime, interpreter) in [(Runtime::Python, python), (Runtime::Node, "node")] {
        let idx: Vec<usize> = order
            .iter()
            .copied()
            .filter(|i| runtime_of(&calls[*i]) == runtime)
            .collect();
        let (here, gone): (Vec<usize>, Vec<usize>) =
            idx.into_iter().partition(|i| present(&calls[*i].file));
        for i in gone {
            out[i] = absent();
        }
        if here.is_empty() {
            continue;
        }
        let batch: Vec<Call> = here.iter().map(|i| calls[*i].clone()).collect();
        let nonce = nonce();
        let answers = match prog::batch_at(runtime, interpreter, &batch, &nonce, place) {
            Some(p) => match spawn(cfg, &p) {
                Ok(o) => prog::read_batch(&o.stdout, &nonce, batch.len()),
                Err(e) => vec![Answer::Missing(e); batch.len()],
            },
            None => vec![Answer::Missing("no module name for its file".into()); batch.len()],
        };
        for (i, a) in here.into_iter().zip(answers) {
            out[i] = a;
        }
    }
    for &i in &order {
        let c = &calls[i];
        if runtime_of(c) != Runtime::Shell {
            continue;
        }
        out[i] = if !present(&c.file) {
            absent()
        } else {
            let shell = shells
                .get(&c.file)
                .copied()
                .unwrap_or_else(|| prog::shell_for(&c.file, "", &[]));
            match spawn(cfg, &prog::shell_call(shell, c)) {
                Ok(o) => prog::read_shell(&o.stdout),
                Err(e) => Answer::Missing(e),
            }
        };
    }
    // Go and Rust: one build per file, its calls in the order asked.
    let mut files: Vec<&str> = Vec::new();
    for i in &order {
        let c = &calls[*i];
        if matches!(runtime_of(c), Runtime::Go | Runtime::Rust) && !files.contains(&c.file.as_str())
        {
            files.push(&c.file);
        }
    }
    for file in files {
        let idx: Vec<usize> = order
            .iter()
            .copied()
            .filter(|i| calls[*i].file == file)
            .collect();
        // The toolchain as the checks start it: the variables a check's command sets before
        // its `cargo`/`go` (`RUSTUP_HOME=… cargo test`).
        let program = if runtime_of(&calls[idx[0]]) == Runtime::Rust {
            "cargo"
        } else {
            "go"
        };
        let mut cfg = cfg.clone();
        cfg.env.extend(
            assignments(commands, program)
                .into_iter()
                .map(|(k, v)| (k.into(), v.into())),
        );
        let cfg = &cfg;
        let answers = if present(file) {
            compiled(
                cfg,
                host_root,
                file,
                &idx.iter().map(|i| calls[*i].clone()).collect::<Vec<_>>(),
            )
        } else {
            vec![absent(); idx.len()]
        };
        for (i, a) in idx.into_iter().zip(answers) {
            out[i] = a;
        }
    }
    out
}

/// The variables the first of `commands` that starts `program` sets before it
/// (`RUSTUP_HOME=/r CARGO_HOME=/c cargo test` → `RUSTUP_HOME`, `CARGO_HOME` for `cargo`): plain
/// values only (no expansion, no quoting beyond one pair of quotes).
fn assignments(commands: &[&str], program: &str) -> Vec<(String, String)> {
    for c in commands {
        let mut vars = Vec::new();
        for w in c.split_whitespace() {
            if let Some((k, v)) = w.split_once('=')
                && !k.is_empty()
                && k.chars()
                    .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_')
            {
                let v = v.trim_matches(['"', '\'']);
                if !v.contains(['$', '`']) {
                    vars.push((k.to_owned(), v.to_owned()));
                }
                continue;
            }
            if w == program || w.ends_with(&format!("/{program}")) {
                return vars;
            }
            break;
        }
    }
    Vec::new()
}

/// The most builds of one file's probe: calls that do not compile are left out and the rest
/// built again.
const MAX_BUILDS: usize = 3;
/// The longest a compiled probe (its build and its run) may take.
const BUILD_TIMEOUT: Duration = Duration::from_secs(900);

/// The answers of `calls` (all of the Go or Rust file `file`), from a probe generated into the
/// room's copy of its package, built and run as the checks run, then removed.
fn compiled(cfg: &RunnerConfig, host_root: &Path, file: &str, calls: &[Call]) -> Vec<Answer> {
    let mut out: Vec<Answer> =
        vec![Answer::Missing("the probe process gave no answer".into()); calls.len()];
    let Ok(original) = std::fs::read_to_string(host_root.join(file)) else {
        return vec![Answer::Missing("its file could not be read in the room".into()); calls.len()];
    };
    let rust = runtime_of(&calls[0]) == Runtime::Rust;
    let no_literal = || {
        Answer::Missing(format!(
            "an argument is a list or map, whose {} type the test's literal does not say",
            if rust { "Rust" } else { "Go" }
        ))
    };
    let mut live: Vec<usize> = (0..calls.len()).collect();
    for _ in 0..MAX_BUILDS {
        if live.is_empty() {
            break;
        }
        let batch: Vec<Call> = live.iter().map(|i| calls[*i].clone()).collect();
        let nonce = nonce();
        let generated = if rust {
            let Some((crate_dir, bins)) = rust_crate_of(host_root, file) else {
                return vec![
                    Answer::Missing("no Cargo package holds its file".into());
                    calls.len()
                ];
            };
            prog::rust_probe(&batch, &nonce, file, &original, &crate_dir, bins)
        } else {
            let Some(package) = go_package(&original) else {
                return vec![
                    Answer::Missing("its file has no `package` clause".into());
                    calls.len()
                ];
            };
            let dir = Path::new(file)
                .parent()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            prog::go_probe(&batch, &nonce, &package, &dir)
        };
        for (k, line) in generated.lines.iter().enumerate() {
            if *line == 0 {
                out[live[k]] = no_literal();
            }
        }
        let target = host_root.join(&generated.file);
        if let Err(e) = std::fs::write(&target, &generated.text) {
            return vec![
                Answer::Missing(format!("the probe could not be written: {e}"));
                calls.len()
            ];
        }
        let ran = spawn_for(cfg, &generated.program, BUILD_TIMEOUT);
        // The room is the tree again: the generated file removed, or the Rust file restored.
        let _ = if rust {
            std::fs::write(&target, &original)
        } else {
            std::fs::remove_file(&target)
        };
        let o = match ran {
            Ok(o) => o,
            Err(e) => {
                for i in &live {
                    out[*i] = Answer::Missing(e.clone());
                }
                break;
            }
        };
        let answers = prog::read_batch(&o.stdout, &nonce, batch.len());
        let answered = answers.iter().any(|a| !matches!(a, Answer::Missing(_)));
        if answered {
            for (k, a) in answers.into_iter().enumerate() {
                if generated.lines[k] != 0 {
                    out[live[k]] = a;
                }
            }
            break;
        }
        // Nothing answered: the calls the compiler names are left out, the rest built again.
        let bad = prog::error_lines(&format!("{}\n{}", o.stdout, o.stderr), &generated.file);
        let first_error = o
            .stderr
            .lines()
            .chain(o.stdout.lines())
            .find(|l| l.contains("error") || l.contains(&generated.file))
            .unwrap_or("the build failed")
            .trim()
            .to_owned();
        let mut next: Vec<usize> = Vec::new();
        let mut left_out = false;
        for (k, i) in live.iter().enumerate() {
            let line = generated.lines[k];
            if line == 0 {
                continue;
            }
            if bad.contains(&line) {
                out[*i] = Answer::Missing(format!("its call does not compile: {first_error}"));
                left_out = true;
            } else {
                next.push(*i);
            }
        }
        if !left_out {
            for i in &next {
                out[*i] = Answer::Missing(format!("the probe did not build or run: {first_error}"));
            }
            break;
        }
        live = next;
    }
    out
}

/// The package clause of a Go file.
fn go_package(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let name = l.trim().strip_prefix("package ")?.trim();
        let name = name.split_whitespace().next()?;
        name.chars()
            .all(|c| c.is_alphanumeric() || c == '_')
            .then(|| name.to_owned())
    })
}

/// The Cargo package a Rust file belongs to: the nearest directory above it with a
/// `Cargo.toml` holding `[package]` (relative to the room's root), and whether the file is a
/// binary's (`src/main.rs`, `src/bin/…`).
fn rust_crate_of(host_root: &Path, file: &str) -> Option<(String, bool)> {
    let mut dir = Path::new(file).parent();
    while let Some(d) = dir {
        let manifest = host_root.join(d).join("Cargo.toml");
        if std::fs::read_to_string(&manifest).is_ok_and(|t| t.contains("[package]")) {
            let inside = Path::new(file).strip_prefix(d).ok()?;
            let bins = inside == Path::new("src/main.rs") || inside.starts_with("src/bin");
            return Some((d.display().to_string(), bins));
        }
        dir = d.parent();
    }
    None
}

fn runtime_of(c: &Call) -> Runtime {
    match Lang::of_path(Path::new(&c.file)) {
        Some(Lang::Python) => Runtime::Python,
        Some(Lang::Shell) => Runtime::Shell,
        Some(Lang::Go) => Runtime::Go,
        Some(Lang::Rust) => Runtime::Rust,
        _ => Runtime::Node,
    }
}

/// A mark for the probe program's own lines that the code under test is not given.
fn nonce() -> String {
    let mut h = RandomState::new().build_hasher();
    h.write_u64(super::now_ms());
    format!(
        "{:016x}{:016x}",
        h.finish(),
        RandomState::new().build_hasher().finish()
    )
}

/// What a probe process printed.
struct Printed {
    stdout: String,
    stderr: String,
    code: i32,
}

fn spawn(cfg: &RunnerConfig, p: &Program) -> Result<Printed, String> {
    spawn_for(cfg, p, TIMEOUT)
}

/// Runs one probe process in the room as a check runs (the same containment, environment and
/// working directory, or the program's directory in the room), without any of pawl's
/// variables; what it printed.
fn spawn_for(cfg: &RunnerConfig, p: &Program, timeout: Duration) -> Result<Printed, String> {
    let mut containment = cfg.containment.clone();
    if let Some(sandbox) = containment.as_mut().and_then(|c| c.spec.sandbox.as_mut())
        && !sandbox.writable.contains(&cfg.root)
    {
        sandbox.place_checks(&cfg.root, None);
    }
    let mut cmd = pawl_process::Command::new(&p.program);
    let pawls = |k: &std::ffi::OsStr| k.to_string_lossy().starts_with("PAWL");
    if cfg.clear_env {
        cmd.env_clear();
    } else {
        for (k, _) in std::env::vars_os() {
            if pawls(&k) {
                cmd.env_remove(k);
            }
        }
    }
    let cwd = match &p.cwd {
        Some(d) => cfg.root.join(d),
        None => cfg.root.clone(),
    };
    cmd.args(&p.args)
        .current_dir(cwd)
        .timeout(timeout)
        .grace(cfg.grace)
        .tail_bytes(MAX_OUTPUT)
        .envs(
            cfg.env
                .iter()
                .filter(|(k, _)| !pawls(k))
                .map(|(k, v)| (k, v)),
        );
    if !p.stdin.is_empty() {
        cmd.stdin_bytes(p.stdin.clone());
    }
    if let Some(c) = containment {
        cmd.contain(c);
    }
    let o = cmd
        .run()
        .map_err(|e| format!("the probe could not start: {e}"))?;
    let pawl_process::End::Exited(code) = o.end else {
        return Err(format!("the probe process ended: {:?}", o.end));
    };
    Ok(Printed {
        stdout: String::from_utf8_lossy(&o.stdout.tail).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr.tail).into_owned(),
        code,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compiled probe starts the toolchain as the checks do: `RUSTUP_HOME=… cargo test`'s
    /// variables (without them, rustup had no toolchain for the probe and every Rust call of
    /// the cli tests' crates answered nothing: "proved only inside the test runner").
    #[test]
    fn the_variables_a_check_sets_before_its_toolchain() {
        type Row<'a> = (&'a [&'a str], &'a str, &'a [(&'a str, &'a str)]);
        let rows: &[Row<'_>] = &[
            (
                &["RUSTUP_HOME=/r CARGO_HOME='/c' CARGO_TARGET_DIR=target cargo test"],
                "cargo",
                &[
                    ("RUSTUP_HOME", "/r"),
                    ("CARGO_HOME", "/c"),
                    ("CARGO_TARGET_DIR", "target"),
                ],
            ),
            (&["cargo test"], "cargo", &[]),
            (
                &["GOFLAGS=-mod=mod go test ./..."],
                "go",
                &[("GOFLAGS", "-mod=mod")],
            ),
            // Another program first, an expansion, another toolchain: nothing.
            (&["FOO=1 make test"], "cargo", &[]),
            (&["HOME=$PWD cargo test"], "cargo", &[]),
            (&["X=1 cargo test"], "go", &[]),
            (
                &["make lint", "A=1 /usr/bin/cargo test"],
                "cargo",
                &[("A", "1")],
            ),
        ];
        for (commands, program, want) in rows {
            let got = assignments(commands, program);
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            assert_eq!(got, want, "{commands:?}");
        }
    }
}
