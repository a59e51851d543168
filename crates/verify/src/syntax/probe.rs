//! The literal call extractor: from a test file's source, the calls its tests make with literal
//! arguments and a literal expected result (issue 33 point 1, "What is probed"), and the tests
//! that are not call-shaped, each with the reason.
//!
//! One extractor, shared by the probes (issue 33) and the screen on the syntax of a change
//! (issue 34: the deciding tests' literals). Table-driven cases are expanded row by row:
//! `pytest.mark.parametrize`, a `for` over a literal table (Python, Rust), Go's `range` over a
//! slice of structs, jest/vitest `test.each`.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::literal::{Env, Literal, of_node};
use super::walk::{Step, ancestor, named_children, preorder, preorder_stack};
use super::{Lang, Parsed, SyntaxError, parse, parse_cow};

/// One call a test makes, with literal arguments and the literal it expects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// The test: its name as the file spells it (`Calc.test_add`, `add > adds`, `TestAdd/0`,
    /// `tests::adds`), a table row's index or name in brackets.
    pub test: String,
    /// The function called, as written (`add`, `calc.add`, `Add`, `super::add`).
    pub callee: String,
    pub args: Vec<Literal>,
    pub expected: Literal,
    /// 1-based line of the assertion.
    pub line: usize,
    /// For a method: the object it is called on, as the tests build it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<Receiver>,
    /// The test asserts only the answer's truth (`assertTrue(f(x))`, `assert.ok(f(x))`,
    /// `expect(f(x)).toBeTruthy()`): `expected` is `true` or `false`, and an answer of another
    /// type meets it by its truth in the language of the test.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truthy: bool,
    /// A round trip: an argument is the answer of another call on the same object
    /// (`decode(encode(x))`, [`Literal::as_call`]) and the test expects that call's input back
    /// (up to case): the expectation holds for any object the class builds, so the probes
    /// build it otherwise too (a decoder right only for the tested salt is caught).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub round_trip: bool,
    /// The test asserts nothing but that the call returns (a test with no assertion, whose
    /// bare call with literal arguments is its check): any value meets it, `expected` is null.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub returns: bool,
    /// For a method: the arguments the same assertion (its line) makes the same call with, on
    /// the same object and with the same expectation, in the other rows of its table (at most
    /// [`MAX_ROWS`]). What the expectation says of the object holds for each of them: the
    /// probes call them too on the objects they build otherwise (an order that follows a
    /// constructor argument, a round trip).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<Vec<Literal>>,
}

/// The most other rows' arguments a probe carries ([`Probe::rows`]).
pub const MAX_ROWS: usize = 16;

/// The object a probed method is called on: a class built with literal arguments
/// (`Calc(2)`, `new Hashids('salt', 30)`), and the calls the test made on that very object
/// before this one (replayed, in order, so the object has the state the test gave it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Receiver {
    /// The class as the tests name it, without its module (`Calc` for `calc.Calc`).
    pub class: String,
    pub args: Vec<Literal>,
    /// `(method, args)` made on the object earlier in the same test.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<(String, Vec<Literal>)>,
}

/// A test no probe was extracted from, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotProbed {
    pub test: String,
    pub line: usize,
    pub reason: String,
}

/// What a test file gives.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Probes {
    pub probes: Vec<Probe>,
    pub not_probed: Vec<NotProbed>,
    /// The literal arguments of the tests' call chains (probed or not): the inputs a test sets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<Chain>,
}

/// The literal arguments of one call chain of a test: a builder configured with literals
/// (`WalkDir::new(dir.path()).min_depth(3).max_depth(2)` gives `[[3], [2]]`), a constructor, a
/// call whose answer the test compares with no literal. The inputs the test sets, whether or
/// not a probe can call them: the screen flags a condition the change added that compares
/// exactly them (issue 34, "literal inputs ... as if conditions").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chain {
    /// The test, named as its probes are.
    pub test: String,
    /// 1-based line of the chain's outermost call.
    pub line: usize,
    /// Each call's literal arguments that are no edge value ([`Literal::is_edge`]), innermost
    /// call first; a call without any is left out. Only chains with two such arguments or more
    /// are kept.
    pub calls: Vec<Vec<Literal>>,
}

/// The most chains one test (one row of a table) gives.
pub const MAX_CHAINS: usize = 64;

/// The most calls of one chain read.
const MAX_CHAIN_CALLS: usize = 16;

impl Probes {
    /// Every literal the probes pass or expect (the screen's "deciding literals").
    pub fn literals(&self) -> Vec<Literal> {
        let mut out: Vec<Literal> = Vec::new();
        for p in &self.probes {
            // A round trip's argument made by a call: the call's own arguments.
            let args = p.args.iter().flat_map(|a| match a.as_call() {
                Some((_, inner)) => inner.iter().collect::<Vec<_>>(),
                None => vec![a],
            });
            // An order's number, not the order.
            let expected = match p.expected.as_order() {
                Some((_, _, than)) => Some(than),
                None => (!p.returns).then_some(&p.expected),
            };
            for l in args.chain(expected) {
                if !out.iter().any(|o| o == l) {
                    out.push(l.clone());
                }
            }
        }
        out
    }
}

/// A test found in the file: its name, the node its assertions are in, its rows.
struct TestSite<'t> {
    name: String,
    line: usize,
    body: Node<'t>,
    /// Table rows: a suffix for the name and the bindings. One empty row for a plain test.
    rows: Vec<(String, Env)>,
    /// Nodes inside `body` handled by rows (a Go `range` loop): skipped in the plain pass.
    row_scopes: Vec<(Node<'t>, Vec<(String, Env)>)>,
    /// The name of each of `rows` when the file spells it from the row (a jest title
    /// `` `should encode ${id}` `` or `'adds %i'`), as the runner reports it; else `name`.
    row_names: Vec<Option<String>>,
}

/// An assertion found in a test: either a probe or text of an assertion that is not one.
enum Seen {
    Probe {
        callee: String,
        args: Vec<Literal>,
        expected: Literal,
        line: usize,
        recv: Option<Recv>,
        /// Only the answer's truth is asserted ([`Probe::truthy`]).
        truthy: bool,
    },
    Other(String),
}

/// Extract the probes of a test file.
pub fn extract_probes(lang: Lang, src: &str) -> Result<Probes, SyntaxError> {
    extract_probes_reading(lang, src, &|_| None)
}

/// The env key a file a test reads its expected value from is bound to (Go's golden files:
/// `want, _ := os.ReadFile("testdata/x.golden")`). Not a name any language can spell.
fn file_key(path: &str) -> String {
    format!("\u{0}file:{path}")
}

/// [`extract_probes`], with the files the tests read their expected values from: `read` gives
/// the text of a path as the test names it (relative to the test file's directory, from the
/// seal's copy of the tests), `None` when there is no such file. Go: a test comparing a call
/// with `string(want)`, `want` read by `os.ReadFile("<literal path>")` (a golden file), expects
/// that file's text.
pub fn extract_probes_reading(
    lang: Lang,
    src: &str,
    read: &dyn Fn(&str) -> Option<String>,
) -> Result<Probes, SyntaxError> {
    let p = parse(lang, src)?;
    let mut files: Env = Env::new();
    if lang == Lang::Go {
        preorder(p.root(), |n| {
            if let Some(path) = go_read_file(&p, n)
                && !files.contains_key(&file_key(&path))
                && let Some(text) = read(&path)
            {
                files.insert(file_key(&path), Literal::Str(text));
            }
            Step::Into
        });
    }
    let sites = match lang {
        Lang::Python => python_tests(&p),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => js_tests(&p),
        Lang::Go => go_tests(&p),
        Lang::Rust => rust_tests(&p),
        Lang::Shell => return Ok(shell_probes(&p)),
    };
    let go_pkg = (lang == Lang::Go).then(|| GoPackage::read(&p));
    let mut out = Probes::default();
    for site in sites {
        let mut found = 0;
        let mut others: Vec<String> = Vec::new();
        let mut record = |seen: Vec<Seen>, name: &str, suffix: &str, out: &mut Probes| {
            for s in seen {
                match s {
                    Seen::Probe {
                        callee,
                        args,
                        expected,
                        line,
                        recv,
                        truthy,
                    } => {
                        found += 1;
                        let round_trip = is_round_trip(&args, &expected);
                        out.probes.push(Probe {
                            test: format!("{name}{suffix}"),
                            callee,
                            args,
                            expected,
                            line,
                            receiver: recv.map(|r| Receiver {
                                class: r.class,
                                args: r.args,
                                before: r.before,
                            }),
                            truthy,
                            round_trip,
                            returns: false,
                            rows: Vec::new(),
                        });
                    }
                    Seen::Other(t) => others.push(t),
                }
            }
        };
        let skip: Vec<Node<'_>> = site.row_scopes.iter().map(|(n, _)| *n).collect();
        let with_files = |env: &Env| -> Env {
            let mut env = env.clone();
            env.extend(files.iter().map(|(k, v)| (k.clone(), v.clone())));
            env
        };
        let row_name = |i: usize| -> &str {
            match site.row_names.get(i) {
                Some(Some(n)) => n.as_str(),
                _ => site.name.as_str(),
            }
        };
        for (i, (suffix, env)) in site.rows.iter().enumerate() {
            let env = with_files(env);
            let seen = settle_receivers(&p, site.body, assertions(&p, site.body, &env, &skip));
            record(seen, row_name(i), suffix, &mut out);
            let test = format!("{}{suffix}", row_name(i));
            out.chains
                .extend(
                    chains(&p, site.body, &env, &skip)
                        .into_iter()
                        .map(|(line, calls)| Chain {
                            test: test.clone(),
                            line,
                            calls,
                        }),
                );
        }
        for (scope, rows) in &site.row_scopes {
            for (suffix, env) in rows {
                let env = with_files(env);
                let seen = settle_receivers(&p, site.body, assertions(&p, *scope, &env, &[]));
                record(seen, &site.name, suffix, &mut out);
                let test = format!("{}{suffix}", site.name);
                out.chains
                    .extend(
                        chains(&p, *scope, &env, &[])
                            .into_iter()
                            .map(|(line, calls)| Chain {
                                test: test.clone(),
                                line,
                                calls,
                            }),
                    );
            }
        }
        // Go tables whose rows hold the call itself (`testList{{"12", Ordinal(12), "12th"}}`).
        if let Some(pkg) = &go_pkg {
            for (suffix, seen) in go_table_calls(&p, site.body, pkg) {
                record(vec![seen], &site.name, &suffix, &mut out);
            }
        }
        // A test with no assertion at all: its bare calls with literal arguments are its
        // checks (it passes when they return): each must return outside the runner too.
        if found == 0
            && others.is_empty()
            && matches!(
                lang,
                Lang::Python | Lang::JavaScript | Lang::TypeScript | Lang::Tsx
            )
        {
            for (i, (suffix, env)) in site.rows.iter().enumerate() {
                for (callee, args, recv, at) in bare_calls(&p, site.body, env) {
                    found += 1;
                    out.probes.push(Probe {
                        test: format!("{}{suffix}", row_name(i)),
                        callee,
                        args,
                        expected: Literal::Null,
                        line: at,
                        receiver: recv.map(|r| Receiver {
                            class: r.class,
                            args: r.args,
                            before: r.before,
                        }),
                        truthy: false,
                        round_trip: false,
                        returns: true,
                        rows: Vec::new(),
                    });
                }
            }
        }
        if found == 0 {
            let reason = match others.first() {
                Some(first) => format!(
                    "no assertion compares a call with literal arguments to a literal (first: `{}`)",
                    one_line(first)
                ),
                None => "no assertion pawl reads (not call-shaped)".to_string(),
            };
            out.not_probed.push(NotProbed {
                test: site.name.clone(),
                line: site.line,
                reason,
            });
        }
    }
    fill_rows(&mut out.probes);
    Ok(out)
}

/// The call chains under `root` with two literal arguments or more that are no edge value, by
/// line (at most [`MAX_CHAINS`]), skipping the subtrees in `skip`. A chain is a call that is not
/// itself the object of a further call, with the calls it is made on (`a(1).b(2).c(3)`); calls
/// nested as arguments are chains of their own. An argument counts when it reads as a scalar
/// literal with the test's bindings (a keyword argument's value, an object literal's values too).
fn chains(
    p: &Parsed<'_>,
    root: Node<'_>,
    env: &Env,
    skip: &[Node<'_>],
) -> Vec<(usize, Vec<Vec<Literal>>)> {
    let mut out = Vec::new();
    preorder_stack(root, |n, parents| {
        if (n != root && skip.contains(&n)) || out.len() >= MAX_CHAINS {
            return Step::Skip;
        }
        if call_parts(p, n).is_some() && !is_chained(p, n, parents) {
            let calls = chain_calls(p, n, env);
            if calls.iter().map(Vec::len).sum::<usize>() >= 2 {
                out.push((line(n), calls));
            }
        }
        Step::Into
    });
    out
}

/// A call's function (or constructor) and its argument list.
fn call_parts<'t>(p: &Parsed<'_>, n: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    let function = match (p.lang, n.kind()) {
        (Lang::Python, "call")
        | (Lang::Go | Lang::Rust, "call_expression")
        | (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "call_expression") => {
            n.child_by_field_name("function")?
        }
        (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "new_expression") => {
            n.child_by_field_name("constructor")?
        }
        _ => return None,
    };
    Some((function, n.child_by_field_name("arguments")?))
}

/// The object a method is called on (`a(1)` of `a(1).b`), when the function is a member.
fn method_object(function: Node<'_>) -> Option<Node<'_>> {
    let field = match function.kind() {
        "attribute" | "member_expression" => "object",
        "selector_expression" => "operand",
        "field_expression" => "value",
        _ => return None,
    };
    function.child_by_field_name(field)
}

/// Wrappers a chain's object may be in: `(a(1)).b`, `(await a(1)).b`, `a(1)?.b`.
const CHAIN_WRAPPERS: &[&str] = &[
    "parenthesized_expression",
    "await_expression",
    "try_expression",
];

/// Whether a call is the object of a further call (`a(1)` in `a(1).b(2)`): not a chain's top.
/// `parents` are its ancestors, outermost first.
fn is_chained(p: &Parsed<'_>, n: Node<'_>, parents: &[Node<'_>]) -> bool {
    let mut cur = n;
    let mut up = parents.iter().rev();
    while let Some(parent) = up.next() {
        if CHAIN_WRAPPERS.contains(&parent.kind()) {
            cur = *parent;
            continue;
        }
        return method_object(*parent) == Some(cur)
            && up
                .next()
                .and_then(|g| call_parts(p, *g))
                .is_some_and(|(f, _)| f == *parent);
    }
    false
}

/// The literal arguments of each call of the chain whose top is `top`, innermost first (calls
/// without one left out).
fn chain_calls(p: &Parsed<'_>, top: Node<'_>, env: &Env) -> Vec<Vec<Literal>> {
    let mut calls = Vec::new();
    let mut cur = Some(top);
    while let Some(call) = cur.take() {
        let Some((function, args)) = call_parts(p, call) else {
            break;
        };
        if calls.len() >= MAX_CHAIN_CALLS {
            break;
        }
        let mut lits = Vec::new();
        for a in named_children(args) {
            let value = match a.kind() {
                "keyword_argument" => a.child_by_field_name("value"),
                _ => Some(a),
            };
            match value.and_then(|v| of_node(p, v, env)) {
                Some(Literal::Map(entries)) => lits.extend(entries.into_iter().map(|(_, v)| v)),
                Some(l) => lits.push(l),
                None => {}
            }
        }
        lits.retain(|l| {
            matches!(l, Literal::Int(_) | Literal::Float(_) | Literal::Str(_)) && !l.is_edge()
        });
        if !lits.is_empty() {
            calls.push(lits);
        }
        let mut object = method_object(function);
        while let Some(o) = object.filter(|o| CHAIN_WRAPPERS.contains(&o.kind())) {
            object = named_children(o).first().copied();
        }
        cur = object;
    }
    calls.reverse();
    calls
}

/// Each method probe's [`Probe::rows`]: the arguments of the probes of the same assertion (its
/// line, callee, object, expectation and kind) in other rows.
fn fill_rows(probes: &mut [Probe]) {
    let same = |a: &Probe, b: &Probe| {
        a.line == b.line
            && a.callee == b.callee
            && a.receiver == b.receiver
            && a.expected == b.expected
            && a.truthy == b.truthy
            && a.round_trip == b.round_trip
            && a.returns == b.returns
    };
    let rows: Vec<Vec<Vec<Literal>>> = probes
        .iter()
        .map(|p| {
            let mut rows: Vec<Vec<Literal>> = Vec::new();
            if p.receiver.is_none() {
                return rows;
            }
            for q in probes.iter().filter(|q| same(p, q)) {
                if rows.len() >= MAX_ROWS {
                    break;
                }
                if q.args != p.args && !rows.contains(&q.args) {
                    rows.push(q.args.clone());
                }
            }
            rows
        })
        .collect();
    for (p, r) in probes.iter_mut().zip(rows) {
        p.rows = r;
    }
}

fn one_line(s: &str) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 80 {
        let cut: String = flat.chars().take(77).collect();
        format!("{cut}...")
    } else {
        flat
    }
}

fn line(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

/// A round trip ([`Probe::round_trip`]): an argument made by a call on the same object, whose
/// own arguments hold the expected value (text up to case: `decodeHex(encodeHex('ABC'))` is
/// `'abc'`).
fn is_round_trip(args: &[Literal], expected: &Literal) -> bool {
    args.iter().any(|a| {
        a.as_call().is_some_and(|(_, inner)| {
            inner.iter().any(|x| match (x, expected) {
                (Literal::Str(x), Literal::Str(e)) => x.to_lowercase() == e.to_lowercase(),
                (x, e) => x.loose_eq(e),
            })
        })
    })
}

/// The calls with literal arguments that stand as statements of their own directly in `body`
/// (`jsonpatch.apply_patch(obj, [...])`): `(callee, args, object, line)`. Only when the body
/// is nothing else (names bound to plain data, a docstring) and each call has an argument: a
/// test that sets up more, or calls `main()`, may need what only the runner gives it. A
/// method of data the test binds itself (`obj.append(2)`) or of an object it binds is none.
fn bare_calls(
    p: &Parsed<'_>,
    body: Node<'_>,
    env: &Env,
) -> Vec<(String, Vec<Literal>, Option<Recv>, usize)> {
    let mut out = Vec::new();
    for stmt in named_children(body) {
        if is_comment_node(stmt) || stmt.kind() == "empty_statement" {
            continue;
        }
        let expr = (stmt.kind() == "expression_statement")
            .then(|| named_children(stmt).first().copied())
            .flatten();
        let Some(expr) = expr else {
            return Vec::new();
        };
        // `obj = {'baz': 1}` bound as data; a docstring.
        let bound_data = expr.kind() == "assignment"
            && expr
                .child_by_field_name("left")
                .is_some_and(|l| env.contains_key(p.text(l)))
            || expr.kind() == "string";
        if bound_data {
            continue;
        }
        match call_literal(p, expr, env) {
            Some((callee, args, recv))
                if !args.is_empty()
                    && recv.as_ref().is_none_or(|r| r.local.is_none())
                    && (recv.is_some()
                        || bindings_of(
                            p,
                            body,
                            qualifier_of(&callee).split('.').next().unwrap_or(""),
                        ) == 0) =>
            {
                out.push((callee, args, recv, line(stmt)));
            }
            _ => return Vec::new(),
        }
    }
    out
}

/// The assertions under `root` (not inside nested function definitions' own tests), read with
/// `env`, skipping the subtrees in `skip`.
fn assertions(p: &Parsed<'_>, root: Node<'_>, env: &Env, skip: &[Node<'_>]) -> Vec<Seen> {
    let mut out = Vec::new();
    let mut vars: HashMap<String, Node<'_>> = HashMap::new();
    preorder(root, |n| {
        if n != root && skip.contains(&n) {
            return Step::Skip;
        }
        let seen = match p.lang {
            Lang::Python => python_assertion(p, n, env),
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => js_assertion(p, n, env),
            Lang::Go => go_assertion(p, n, env, &mut vars),
            Lang::Rust => rust_assertion(p, n, env),
            Lang::Shell => None,
        };
        match seen {
            Some(s) => {
                out.push(s);
                Step::Skip
            }
            None => Step::Into,
        }
    });
    out
}

/// A probe from an `actual`/`expected` pair where either side may be the call.
fn pair(p: &Parsed<'_>, a: Node<'_>, b: Node<'_>, env: &Env, at: Node<'_>) -> Option<Seen> {
    for (call, want) in [(a, b), (b, a)] {
        if let Some((callee, args, recv)) = call_literal(p, call, env)
            && let Some(expected) = of_node(p, want, env)
        {
            return Some(Seen::Probe {
                callee,
                args,
                expected,
                line: line(at),
                recv,
                truthy: false,
            });
        }
    }
    None
}

/// A call whose arguments are all literals: `(callee, args, the object of a method)`. An
/// argument may be a call on the same object (or module) with literal arguments, itself or
/// through a name the test bound to it (`const id = h.encode(x); h.decode(id)`): a round trip,
/// passed as [`Literal::call`]. A name the test bound to a call stands for that call.
fn call_literal(
    p: &Parsed<'_>,
    node: Node<'_>,
    env: &Env,
) -> Option<(String, Vec<Literal>, Option<Recv>)> {
    call_literal_at(p, node, env, 0)
}

/// The key under which a name a test binds to a call is kept in an [`Env`]: the call's byte
/// range (never a name a source can spell).
const CALL: &str = "\u{2}call:";

/// The call a name stands for (`encodedId` after `const encodedId = h.encodeHex(hex)`).
fn bound_call<'t>(p: &'t Parsed<'_>, node: Node<'_>, env: &Env) -> Option<Node<'t>> {
    if node.kind() != "identifier" {
        return None;
    }
    let Literal::Str(range) = env.get(&format!("{CALL}{}", p.text(node)))? else {
        return None;
    };
    let (a, b) = range.split_once(':')?;
    let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
    p.root().named_descendant_for_byte_range(a, b)
}

/// The object a callee is called on as the test writes it (`hashids` of `hashids.encode`;
/// empty for a plain function).
fn qualifier_of(callee: &str) -> &str {
    callee.rsplit_once('.').map_or("", |(q, _)| q)
}

fn call_literal_at(
    p: &Parsed<'_>,
    node: Node<'_>,
    env: &Env,
    depth: usize,
) -> Option<(String, Vec<Literal>, Option<Recv>)> {
    if depth > 4 {
        return None;
    }
    let node = unwrap_parens(node);
    if matches!(
        p.lang,
        Lang::Python | Lang::JavaScript | Lang::TypeScript | Lang::Tsx
    ) && let Some(bound) = bound_call(p, node, env)
    {
        return call_literal_at(p, bound, env, depth + 1);
    }
    let (func, args) = match p.lang {
        Lang::Python if node.kind() == "call" => (
            node.child_by_field_name("function")?,
            node.child_by_field_name("arguments")?,
        ),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx if node.kind() == "call_expression" => (
            node.child_by_field_name("function")?,
            node.child_by_field_name("arguments")?,
        ),
        Lang::Go | Lang::Rust if node.kind() == "call_expression" => (
            node.child_by_field_name("function")?,
            node.child_by_field_name("arguments")?,
        ),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx if node.kind() == "await_expression" => {
            return call_literal_at(p, *named_children(node).first()?, env, depth + 1);
        }
        _ => return None,
    };
    let callee_ok = matches!(
        func.kind(),
        "identifier"
            | "attribute"
            | "member_expression"
            | "selector_expression"
            | "scoped_identifier"
            | "field_identifier"
    );
    if !callee_ok {
        return None;
    }
    let callee = p.text(func);
    let mut values = Vec::new();
    for a in named_children(args) {
        if matches!(a.kind(), "comment" | "line_comment" | "block_comment") {
            continue;
        }
        if let Some(v) = of_node(p, a, env) {
            values.push(v);
            continue;
        }
        // A round trip: the answer of a call on the same object, made first.
        if !matches!(
            p.lang,
            Lang::Python | Lang::JavaScript | Lang::TypeScript | Lang::Tsx
        ) {
            return None;
        }
        let (inner, inner_args, _) = call_literal_at(p, a, env, depth + 1)?;
        if qualifier_of(&inner) != qualifier_of(callee)
            || inner_args.iter().any(|x| x.as_call().is_some())
        {
            return None;
        }
        let method = inner.rsplit('.').next().unwrap_or(&inner);
        values.push(Literal::call(method, inner_args));
    }
    // A method of an object the tests build (`c.add`, `Calc(2).add`, `new Calc(2).add`).
    let recv = receiver_of_callee(p, func, env);
    Some((callee.to_string(), values, recv))
}

fn unwrap_parens(mut node: Node<'_>) -> Node<'_> {
    while node.kind() == "parenthesized_expression" {
        match named_children(node).first() {
            Some(n) => node = *n,
            None => break,
        }
    }
    node
}

/// `node` without its negations (`not x`, `!x`, parentheses): the inner node and whether an
/// odd number of them was taken off.
fn without_not<'t>(p: &Parsed<'_>, node: Node<'t>) -> (Node<'t>, bool) {
    let mut node = unwrap_parens(node);
    let mut negated = false;
    loop {
        let inner = match node.kind() {
            "not_operator" => node.child_by_field_name("argument"),
            "unary_expression"
                if node
                    .child(0)
                    .is_some_and(|o| !o.is_named() && p.text(o) == "!") =>
            {
                node.child_by_field_name("argument")
                    .or_else(|| node.child_by_field_name("operand"))
                    .or_else(|| named_children(node).first().copied())
            }
            _ => None,
        };
        match inner {
            Some(i) => {
                node = unwrap_parens(i);
                negated = !negated;
            }
            None => return (node, negated),
        }
    }
}

/// A truth assertion on a call (`assertTrue(f(x))`, `assert.ok(!f(x))`, Rust's
/// `assert!(f(x))`): the call with literal arguments, expected to answer `want` (negations
/// inside `assertion` taken into account). `truthy`: the test holds for any answer of that
/// truth (Python, JavaScript); else only for the boolean itself (Go, Rust: typed).
fn truth(
    p: &Parsed<'_>,
    assertion: Node<'_>,
    want: bool,
    truthy: bool,
    env: &Env,
    at: Node<'_>,
) -> Option<Seen> {
    let (call, negated) = without_not(p, assertion);
    let (callee, args, recv) = call_literal(p, call, env)?;
    Some(Seen::Probe {
        callee,
        args,
        expected: Literal::Bool(want != negated),
        line: line(at),
        recv,
        truthy,
    })
}

// ---------------------------------------------------------------- objects (methods)

/// The key under which a name bound to a built object is kept in an [`Env`] (never a name a
/// source can spell).
const RECV: &str = "\u{1}object:";

/// The object of a method call as the extractor reads it.
#[derive(Debug, Clone)]
struct Recv {
    class: String,
    args: Vec<Literal>,
    before: Vec<(String, Vec<Literal>)>,
    /// The name it is bound to, when it is bound in the test itself (or a per-test `setUp`):
    /// then every use of it in the test must be a probed call, replayed in order.
    local: Option<String>,
    /// The constructor's arguments as the source writes them (`minLength` of `new
    /// Hashids('salt', minLength)`): an expectation spelled with one of them follows it.
    texts: Vec<String>,
}

/// `Calc(2)`, `calc.Calc(2)`, `new Calc(2)` with literal arguments: `(class, args)`. A class
/// is named in CapWords (`timeout(1)` is a function, not a class).
fn construction(p: &Parsed<'_>, node: Node<'_>, env: &Env) -> Option<(String, Vec<Literal>)> {
    let node = unwrap_parens(node);
    let (func, args) = match (p.lang, node.kind()) {
        (Lang::Python, "call") => (
            node.child_by_field_name("function")?,
            node.child_by_field_name("arguments")?,
        ),
        (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "new_expression") => (
            node.child_by_field_name("constructor")?,
            node.child_by_field_name("arguments")?,
        ),
        _ => return None,
    };
    if !matches!(
        func.kind(),
        "identifier" | "attribute" | "member_expression"
    ) {
        return None;
    }
    let class = p.text(func).rsplit('.').next()?.to_string();
    if !class.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    let mut values = Vec::new();
    for a in named_children(args) {
        if is_comment_node(a) {
            continue;
        }
        values.push(of_node(p, a, env)?);
    }
    Some((class, values))
}

/// The argument texts of a construction `node` ([`construction`]).
fn construction_texts(p: &Parsed<'_>, node: Node<'_>) -> Vec<String> {
    let node = unwrap_parens(node);
    let args = node.child_by_field_name("arguments");
    args.map(|a| {
        named_children(a)
            .into_iter()
            .filter(|c| !is_comment_node(*c))
            .map(|c| p.text(c).to_owned())
            .collect()
    })
    .unwrap_or_default()
}

fn is_comment_node(n: Node<'_>) -> bool {
    matches!(n.kind(), "comment" | "line_comment" | "block_comment")
}

/// Keep `name` bound to an object built by `value` in `env` (a name bound twice is dropped:
/// which object a call meets is then not known from the text).
fn bind_object(
    p: &Parsed<'_>,
    env: &mut Env,
    seen: &mut Vec<String>,
    name: &str,
    value: Node<'_>,
    local: bool,
) {
    let key = format!("{RECV}{name}");
    if seen.iter().any(|s| s == name) {
        env.remove(&key);
        return;
    }
    seen.push(name.to_owned());
    if let Some((class, args)) = construction(p, value, env) {
        let texts = construction_texts(p, value)
            .into_iter()
            .map(Literal::Str)
            .collect();
        env.insert(
            key,
            Literal::List(vec![
                Literal::Str(class),
                Literal::List(args),
                Literal::Bool(local),
                Literal::List(texts),
            ]),
        );
    }
}

/// The names bound to built objects by the statements directly in `scope` (a module, a
/// `describe` callback, a test body, a `setUp`): `x = Calc(2)`, `self.x = Calc(2)`,
/// `const x = new Calc(2)`; JavaScript constants of plain data too (`const n = 30`) when
/// `consts`.
fn bind_objects(p: &Parsed<'_>, scope: Node<'_>, env: &mut Env, local: bool, consts: bool) {
    let mut seen: Vec<String> = Vec::new();
    for stmt in named_children(scope) {
        match (p.lang, stmt.kind()) {
            (Lang::Python, "expression_statement") => {
                if let Some(a) = named_children(stmt).first()
                    && a.kind() == "assignment"
                    && let (Some(l), Some(r)) = (
                        a.child_by_field_name("left"),
                        a.child_by_field_name("right"),
                    )
                    && matches!(l.kind(), "identifier" | "attribute")
                {
                    let name = p.text(l);
                    // A test's own name for plain data it only reads (`obj = {'baz': 1}`
                    // passed to calls), or for a call's answer it uses once.
                    if local && l.kind() == "identifier" {
                        if let Some(v) = of_node(p, r, env)
                            && only_read(p, scope, name)
                        {
                            env.insert(name.to_owned(), v);
                            continue;
                        }
                        bind_call(p, env, scope, name, r);
                    }
                    bind_object(p, env, &mut seen, name, r, local);
                }
            }
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "lexical_declaration" | "variable_declaration",
            ) => {
                for d in named_children(stmt) {
                    if d.kind() != "variable_declarator" {
                        continue;
                    }
                    let (Some(name), Some(value)) = (
                        d.child_by_field_name("name"),
                        d.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    if name.kind() != "identifier" {
                        continue;
                    }
                    let name = p.text(name);
                    // Only a `const` keeps its value (a `let` may be assigned again).
                    if consts
                        && p.text(stmt).starts_with("const")
                        && !env.contains_key(name)
                        && let Some(v) = of_node(p, value, env)
                    {
                        env.insert(name.to_owned(), v);
                        continue;
                    }
                    if local && p.text(stmt).starts_with("const") {
                        bind_call(p, env, scope, name, value);
                    }
                    bind_object(p, env, &mut seen, name, value, local);
                }
            }
            _ => {}
        }
    }
}

/// Keep `name` bound to the call `value` (`const id = h.encode(x)`, `id = encode(x)`), when
/// `scope` binds it once and uses it once: then the name stands for the call where it is used.
fn bind_call(p: &Parsed<'_>, env: &mut Env, scope: Node<'_>, name: &str, value: Node<'_>) {
    let call = match value.kind() {
        "await_expression" | "await" => named_children(value).first().copied(),
        _ => Some(value),
    };
    let Some(call) = call.filter(|c| matches!(c.kind(), "call" | "call_expression")) else {
        return;
    };
    if construction(p, call, env).is_some() {
        return;
    }
    let key = format!("{CALL}{name}");
    if env.contains_key(&key) || bindings_of(p, scope, name) != 1 || uses_of(p, scope, name) != 1 {
        env.remove(&key);
        return;
    }
    env.insert(
        key,
        Literal::Str(format!("{}:{}", call.start_byte(), call.end_byte())),
    );
}

/// How many times `scope` binds `name` (`x = …`, `const x = …`).
fn bindings_of(p: &Parsed<'_>, scope: Node<'_>, name: &str) -> usize {
    let mut n = 0;
    preorder(scope, |node| {
        let target = match node.kind() {
            "assignment" | "augmented_assignment" | "assignment_expression" => {
                node.child_by_field_name("left")
            }
            "variable_declarator" => node.child_by_field_name("name"),
            _ => None,
        };
        if target.is_some_and(|t| p.text(t) == name) {
            n += 1;
        }
        Step::Into
    });
    n
}

/// `scope` binds `name` once and only reads it after: every use is an argument, an item of a
/// literal, or an operand of a comparison (no method call on it, no item assigned into it).
fn only_read(p: &Parsed<'_>, scope: Node<'_>, name: &str) -> bool {
    if bindings_of(p, scope, name) != 1 {
        return false;
    }
    let mut ok = true;
    preorder(scope, |node| {
        if node.kind() != "identifier" || p.text(node) != name {
            return Step::Into;
        }
        let Some(parent) = node.parent() else {
            return Step::Skip;
        };
        let binding =
            parent.kind() == "assignment" && parent.child_by_field_name("left") == Some(node);
        let read = matches!(
            parent.kind(),
            "argument_list" | "list" | "tuple" | "comparison_operator"
        ) || (matches!(parent.kind(), "pair" | "keyword_argument")
            && parent.child_by_field_name("value") == Some(node));
        ok &= binding || read;
        Step::Skip
    });
    ok
}

/// The object a method callee (`c.add`, `self.c.add`, `Calc(2).add`) is called on, when the
/// tests build it with literal arguments.
fn receiver_of_callee(p: &Parsed<'_>, func: Node<'_>, env: &Env) -> Option<Recv> {
    if !matches!(func.kind(), "attribute" | "member_expression") {
        return None;
    }
    let object = unwrap_parens(func.child_by_field_name("object")?);
    if let Some((class, args)) = construction(p, object, env) {
        return Some(Recv {
            class,
            args,
            before: Vec::new(),
            local: None,
            texts: construction_texts(p, object),
        });
    }
    if !matches!(
        object.kind(),
        "identifier" | "attribute" | "member_expression"
    ) {
        return None;
    }
    let name = p.text(object);
    let Literal::List(parts) = env.get(&format!("{RECV}{name}"))? else {
        return None;
    };
    match parts.as_slice() {
        [
            Literal::Str(class),
            Literal::List(args),
            Literal::Bool(local),
            Literal::List(texts),
        ] => Some(Recv {
            class: class.clone(),
            args: args.clone(),
            before: Vec::new(),
            local: local.then(|| name.to_owned()),
            texts: texts
                .iter()
                .filter_map(|t| match t {
                    Literal::Str(t) => Some(t.clone()),
                    _ => None,
                })
                .collect(),
        }),
        _ => None,
    }
}

/// The uses of `name` (`c`, `self.c`) in `body`, other than binding it.
fn uses_of(p: &Parsed<'_>, body: Node<'_>, name: &str) -> usize {
    let mut n = 0;
    preorder(body, |node| {
        let kind = node.kind();
        let named = matches!(kind, "identifier" | "attribute" | "member_expression")
            && p.text(node) == name;
        if !named {
            return Step::Into;
        }
        // The attribute part of `a.c` is not `c`.
        let is_field = node.parent().is_some_and(|parent| {
            matches!(parent.kind(), "attribute" | "member_expression")
                && parent
                    .child_by_field_name("attribute")
                    .or_else(|| parent.child_by_field_name("property"))
                    == Some(node)
        });
        let is_binding = node.parent().is_some_and(|parent| {
            (parent.kind() == "assignment" && parent.child_by_field_name("left") == Some(node))
                || (parent.kind() == "variable_declarator"
                    && parent.child_by_field_name("name") == Some(node))
        });
        if !is_field && !is_binding {
            n += 1;
        }
        Step::Skip
    });
    n
}

/// The probes on an object the test binds itself: kept only when every use of the object in
/// the test is a probed call (then each carries the calls made on it before, to replay);
/// otherwise the object's state comes from something a probe cannot replay, and its calls are
/// not probed.
fn settle_receivers(p: &Parsed<'_>, body: Node<'_>, seen: Vec<Seen>) -> Vec<Seen> {
    let mut names: Vec<String> = Vec::new();
    for s in &seen {
        if let Seen::Probe {
            recv: Some(Recv {
                local: Some(name), ..
            }),
            ..
        } = s
            && !names.contains(name)
        {
            names.push(name.clone());
        }
    }
    if names.is_empty() {
        return seen;
    }
    let replayable: Vec<&String> = names
        .iter()
        .filter(|name| {
            let probed = seen
                .iter()
                .filter(|s| {
                    matches!(s, Seen::Probe { recv: Some(Recv { local: Some(n), .. }), .. } if n == *name)
                })
                .count();
            uses_of(p, body, name) == probed
        })
        .collect();
    let mut earlier: HashMap<String, Vec<(String, Vec<Literal>)>> = HashMap::new();
    seen.into_iter()
        .map(|s| match s {
            Seen::Probe {
                callee,
                args,
                expected,
                line,
                recv: Some(mut r),
                truthy,
            } if r.local.is_some() => {
                let name = r.local.clone().unwrap_or_default();
                if !replayable.contains(&&name) {
                    return Seen::Other(format!(
                        "{callee}(...): the object `{name}` is also used otherwise in the test, so its state is not known"
                    ));
                }
                let method = callee.rsplit('.').next().unwrap_or(&callee).to_owned();
                let before = earlier.entry(name).or_default();
                r.before = before.clone();
                before.push((method, args.clone()));
                Seen::Probe {
                    callee,
                    args,
                    expected,
                    line,
                    recv: Some(r),
                    truthy,
                }
            }
            other => other,
        })
        .collect()
}

// ---------------------------------------------------------------- Python

fn python_tests<'t>(p: &'t Parsed<'_>) -> Vec<TestSite<'t>> {
    let mut out = Vec::new();
    // module-level bindings of literal tables (CASES = [...])
    let mut module_env = Env::new();
    for stmt in named_children(p.root()) {
        if stmt.kind() == "expression_statement"
            && let Some(a) = named_children(stmt).first()
            && a.kind() == "assignment"
            && let (Some(l), Some(r)) = (
                a.child_by_field_name("left"),
                a.child_by_field_name("right"),
            )
            && l.kind() == "identifier"
            && let Some(v) = of_node(p, r, &Env::new())
        {
            module_env.insert(p.text(l).to_string(), v);
        }
    }
    bind_objects(p, p.root(), &mut module_env, false, false);
    preorder(p.root(), |n| {
        if n.kind() != "function_definition" {
            return Step::Into;
        }
        let Some(name_node) = n.child_by_field_name("name") else {
            return Step::Skip;
        };
        let name = p.text(name_node);
        if !name.starts_with("test") {
            return Step::Skip;
        }
        let class_node = ancestor(n, &["class_definition"]);
        let class = class_node
            .and_then(|c| c.child_by_field_name("name"))
            .map(|c| p.text(c).to_string());
        let full = match class {
            Some(c) => format!("{c}.{name}"),
            None => name.to_string(),
        };
        let Some(body) = n.child_by_field_name("body") else {
            return Step::Skip;
        };
        // Objects the test works on: built in its class's per-test set-up or in its body.
        let mut env = module_env.clone();
        if let Some(set_up) = class_node.and_then(|c| python_set_up(p, c)) {
            bind_objects(p, set_up, &mut env, true, false);
        }
        bind_objects(p, body, &mut env, true, false);
        let mut rows = python_parametrize(p, n, &env);
        if rows.is_empty() {
            rows.push((String::new(), env.clone()));
        }
        let row_scopes = python_for_tables(p, body, &env);
        out.push(TestSite {
            name: full,
            line: line(n),
            body,
            rows,
            row_scopes,
            row_names: Vec::new(),
        });
        Step::Skip
    });
    out
}

/// The body of a test class's per-test set-up (`setUp`, `setup_method`).
fn python_set_up<'t>(p: &Parsed<'_>, class: Node<'t>) -> Option<Node<'t>> {
    let body = class.child_by_field_name("body")?;
    named_children(body)
        .into_iter()
        .map(|d| {
            if d.kind() == "decorated_definition" {
                d.child_by_field_name("definition").unwrap_or(d)
            } else {
                d
            }
        })
        .find(|d| {
            d.kind() == "function_definition"
                && d.child_by_field_name("name")
                    .is_some_and(|n| matches!(p.text(n), "setUp" | "setup_method"))
        })
        .and_then(|d| d.child_by_field_name("body"))
}

/// `@pytest.mark.parametrize("a, b, expected", [(2, 3, 5), ...])` rows.
fn python_parametrize(p: &Parsed<'_>, func: Node<'_>, base: &Env) -> Vec<(String, Env)> {
    let mut rows = Vec::new();
    let Some(decorated) = func.parent().filter(|d| d.kind() == "decorated_definition") else {
        return rows;
    };
    for dec in named_children(decorated) {
        if dec.kind() != "decorator" {
            continue;
        }
        let Some(call) = named_children(dec).into_iter().find(|c| c.kind() == "call") else {
            continue;
        };
        let fname = call
            .child_by_field_name("function")
            .map(|f| p.text(f))
            .unwrap_or("");
        if !fname.ends_with("parametrize") {
            continue;
        }
        let Some(args) = call.child_by_field_name("arguments") else {
            continue;
        };
        let args = named_children(args);
        if args.len() < 2 {
            continue;
        }
        let names: Vec<String> = match of_node(p, args[0], &Env::new()) {
            Some(Literal::Str(s)) => s
                .split(',')
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect(),
            Some(Literal::List(items)) => items
                .into_iter()
                .filter_map(|i| match i {
                    Literal::Str(s) => Some(s),
                    _ => None,
                })
                .collect(),
            _ => continue,
        };
        if !matches!(args[1].kind(), "list" | "tuple") {
            continue;
        }
        let table = named_children(args[1]);
        for (i, row) in table.iter().enumerate() {
            let row = if row.kind() == "call"
                && row
                    .child_by_field_name("function")
                    .map(|f| p.text(f).ends_with("param"))
                    .unwrap_or(false)
            {
                // pytest.param(2, 3, 5, id="...")
                let Some(a) = row.child_by_field_name("arguments") else {
                    continue;
                };
                let values: Option<Vec<Literal>> = named_children(a)
                    .into_iter()
                    .filter(|c| c.kind() != "keyword_argument")
                    .map(|c| of_node(p, c, base))
                    .collect();
                match values {
                    Some(v) => Literal::List(v),
                    None => continue,
                }
            } else {
                match of_node(p, *row, base) {
                    Some(v) => v,
                    None => continue,
                }
            };
            if let Some(env) = bind(&names, &row, base) {
                rows.push((format!("[{i}]"), env));
            }
        }
    }
    rows
}

/// Bind names to a row: one name takes the whole row, several take a list's items.
fn bind(names: &[String], row: &Literal, base: &Env) -> Option<Env> {
    let mut env = base.clone();
    if names.len() == 1 {
        env.insert(names[0].clone(), row.clone());
        return Some(env);
    }
    let Literal::List(items) = row else {
        return None;
    };
    if items.len() != names.len() {
        return None;
    }
    for (n, v) in names.iter().zip(items) {
        env.insert(n.clone(), v.clone());
    }
    Some(env)
}

/// `for a, b, want in [(2, 3, 5), ...]:` (or over a name bound to a literal table).
fn python_for_tables<'t>(
    p: &Parsed<'_>,
    body: Node<'t>,
    base: &Env,
) -> Vec<(Node<'t>, Vec<(String, Env)>)> {
    let mut out = Vec::new();
    let mut local = base.clone();
    preorder(body, |n| {
        if n.kind() == "assignment"
            && let (Some(l), Some(r)) = (
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            )
            && l.kind() == "identifier"
            && let Some(v) = of_node(p, r, base)
        {
            local.insert(p.text(l).to_string(), v);
        }
        if n.kind() != "for_statement" {
            return Step::Into;
        }
        let (Some(left), Some(right), Some(inner)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
            n.child_by_field_name("body"),
        ) else {
            return Step::Into;
        };
        let names = target_names(p, left);
        let Some(Literal::List(rows)) = of_node(p, right, &local) else {
            return Step::Into;
        };
        let bound: Vec<(String, Env)> = rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| bind(&names, r, &local).map(|e| (format!("[{i}]"), e)))
            .collect();
        if !bound.is_empty() && !names.is_empty() {
            out.push((inner, bound));
            return Step::Skip;
        }
        Step::Into
    });
    out
}

fn target_names(p: &Parsed<'_>, left: Node<'_>) -> Vec<String> {
    match left.kind() {
        "identifier" => vec![p.text(left).to_string()],
        "pattern_list" | "tuple_pattern" | "tuple" | "list_pattern" | "tuple_expression" => {
            named_children(left)
                .into_iter()
                .map(|c| p.text(c).to_string())
                .collect()
        }
        _ => Vec::new(),
    }
}

fn python_assertion(p: &Parsed<'_>, n: Node<'_>, env: &Env) -> Option<Seen> {
    match n.kind() {
        "assert_statement" => {
            let expr = *named_children(n).first()?;
            if expr.kind() == "comparison_operator" {
                let ops: Vec<&str> = {
                    let mut c = expr.walk();
                    expr.children(&mut c)
                        .filter(|k| !k.is_named())
                        .map(|k| p.text(k))
                        .collect()
                };
                let operands = named_children(expr);
                if operands.len() == 2
                    && ops.len() == 1
                    && matches!(ops[0], "==" | "is")
                    && let Some(s) = pair(p, operands[0], operands[1], env, n)
                {
                    return Some(s);
                }
            }
            // `assert is_leap(2000)`, `assert not is_leap(1900)`
            if let Some(s) = truth(p, expr, true, true, env, n) {
                return Some(s);
            }
            Some(Seen::Other(p.text(n).to_string()))
        }
        "call" => {
            let f = n.child_by_field_name("function")?;
            let method = match f.kind() {
                "attribute" => p.text(f.child_by_field_name("attribute")?),
                "identifier" => p.text(f),
                _ => return None,
            };
            if !method.starts_with("assert") {
                return None;
            }
            let args: Vec<Node<'_>> = named_children(n.child_by_field_name("arguments")?)
                .into_iter()
                .filter(|a| a.kind() != "keyword_argument")
                .collect();
            let equality = matches!(
                method,
                "assertEqual"
                    | "assertEquals"
                    | "assertIs"
                    | "assertListEqual"
                    | "assertTupleEqual"
                    | "assertDictEqual"
                    | "assertSequenceEqual"
            );
            if equality
                && args.len() >= 2
                && let Some(s) = pair(p, args[0], args[1], env, n)
            {
                return Some(s);
            }
            // `self.assertTrue(is_leap(2000))`, `self.assertFalse(is_leap(1900))`
            if let ("assertTrue" | "assertFalse", Some(a)) = (method, args.first())
                && let Some(s) = truth(p, *a, method == "assertTrue", true, env, n)
            {
                return Some(s);
            }
            Some(Seen::Other(p.text(n).to_string()))
        }
        _ => None,
    }
}

// ---------------------------------------------------------------- JavaScript / TypeScript

fn js_tests<'t>(p: &'t Parsed<'_>) -> Vec<TestSite<'t>> {
    let mut out = Vec::new();
    // Constants and objects of the module, shared by its tests.
    let mut module_env = Env::new();
    bind_objects(p, p.root(), &mut module_env, false, true);
    preorder(p.root(), |n| {
        if n.kind() != "call_expression" {
            return Step::Into;
        }
        let Some(func) = n.child_by_field_name("function") else {
            return Step::Into;
        };
        let Some(args) = n.child_by_field_name("arguments") else {
            return Step::Into;
        };
        let args = named_children(args);
        // test.each(table)(name, fn)
        if func.kind() == "call_expression"
            && let Some(inner_f) = func.child_by_field_name("function")
            && matches!(p.text(inner_f), "test.each" | "it.each")
            && let Some(table_args) = func.child_by_field_name("arguments")
            && let Some(table) = named_children(table_args).first()
            && args.len() >= 2
        {
            let name = js_test_name(p, n, args[0]);
            let (params, body) = js_fn_params(p, args[1]);
            if let Some(body) = body {
                let (env, _) = js_scope_env(p, n, body, &module_env);
                let rows = js_each_rows(p, *table, &params, &env);
                let rows = if rows.is_empty() {
                    vec![(String::new(), env)]
                } else {
                    rows
                };
                let row_names = js_row_names(p, n, args[0], &name, &rows);
                out.push(TestSite {
                    name,
                    line: line(n),
                    body,
                    rows,
                    row_scopes: Vec::new(),
                    row_names,
                });
            }
            return Step::Skip;
        }
        let fname = p.text(func);
        let is_test = matches!(
            fname,
            "test" | "it" | "test.only" | "it.only" | "test.concurrent" | "t.test"
        );
        if !is_test || args.len() < 2 {
            return Step::Into;
        }
        let Some(fn_node) = args.iter().find(|a| {
            matches!(
                a.kind(),
                "arrow_function" | "function_expression" | "function"
            )
        }) else {
            return Step::Into;
        };
        let name = js_test_name(p, n, args[0]);
        let (_, body) = js_fn_params(p, *fn_node);
        if let Some(body) = body {
            let (env, rows) = js_scope_env(p, n, body, &module_env);
            let rows = if rows.is_empty() {
                vec![(String::new(), env)]
            } else {
                rows
            };
            let row_names = js_row_names(p, n, args[0], &name, &rows);
            out.push(TestSite {
                name,
                line: line(n),
                body,
                rows,
                row_scopes: Vec::new(),
                row_names,
            });
        }
        Step::Skip
    });
    out
}

/// What a test at `call` (body `body`) sees: the module's constants and objects, those of the
/// `describe` callbacks around it (shared by their tests), its own objects; and the rows of a
/// `describe.each` around it.
fn js_scope_env(
    p: &Parsed<'_>,
    call: Node<'_>,
    body: Node<'_>,
    module_env: &Env,
) -> (Env, Vec<(String, Env)>) {
    let mut blocks: Vec<Node<'_>> = Vec::new();
    let mut each: Option<(Node<'_>, Node<'_>)> = None;
    let mut cur = call.parent();
    while let Some(n) = cur {
        if n.kind() == "statement_block" {
            blocks.push(n);
        }
        if each.is_none()
            && n.kind() == "call_expression"
            && let Some(f) = n.child_by_field_name("function")
            && f.kind() == "call_expression"
            && let Some(inner) = f.child_by_field_name("function")
            && matches!(p.text(inner), "describe.each" | "suite.each")
            && let Some(table_args) = f.child_by_field_name("arguments")
            && let Some(table) = named_children(table_args).first()
            && let Some(a) = n.child_by_field_name("arguments")
            && let Some(cb) = named_children(a).get(1)
        {
            each = Some((*table, *cb));
        }
        cur = n.parent();
    }
    let mut env = module_env.clone();
    for b in blocks.iter().rev() {
        bind_objects(p, *b, &mut env, false, true);
    }
    bind_objects(p, body, &mut env, true, false);
    let rows = match each {
        Some((table, cb)) => {
            let (params, _) = js_fn_params(p, cb);
            js_each_rows(p, table, &params, &env)
        }
        None => Vec::new(),
    };
    (env, rows)
}

/// The rows of an `each` table read one by one (a row that is not plain data, or a spread of
/// more rows, is left out), each bound to the callback's parameters over `base`.
fn js_each_rows(
    p: &Parsed<'_>,
    table: Node<'_>,
    params: &[JsParam],
    base: &Env,
) -> Vec<(String, Env)> {
    // `[...] as Row[]` (TypeScript), `([...])`
    let mut table = table;
    while matches!(
        table.kind(),
        "as_expression" | "satisfies_expression" | "parenthesized_expression"
    ) {
        match named_children(table).first() {
            Some(inner) => table = *inner,
            None => break,
        }
    }
    let rows: Vec<(usize, Literal)> = if table.kind() == "array" {
        named_children(table)
            .into_iter()
            .filter(|c| !is_comment_node(*c))
            .enumerate()
            .filter_map(|(i, c)| of_node(p, c, base).map(|v| (i, v)))
            .collect()
    } else {
        match of_node(p, table, base) {
            Some(Literal::List(rows)) => rows.into_iter().enumerate().collect(),
            _ => Vec::new(),
        }
    };
    rows.into_iter()
        .filter_map(|(i, r)| {
            let bound = js_bind(params, &r)?;
            let mut env = base.clone();
            env.extend(bound);
            env.insert(ROW.to_owned(), r);
            Some((format!("[{i}]"), env))
        })
        .collect()
}

/// The key under which an `each` row's own literal is kept in its [`Env`] (for `%s` titles).
const ROW: &str = "\u{3}row";

/// The names of a JavaScript test's rows as the runner reports them, when its title or a
/// `describe` title around it is spelled from the row: a template (`` `encodes ${id}` ``) read
/// with the row's names, jest's and vitest's `%s`, `%i`, `%d`, `%p`, `%#`, `%%` filled with
/// the row's items in order, `$name` with an object row's field. `None` where the name does
/// not depend on the row or cannot be read.
fn js_row_names(
    p: &Parsed<'_>,
    call: Node<'_>,
    name_arg: Node<'_>,
    plain: &str,
    rows: &[(String, Env)],
) -> Vec<Option<String>> {
    rows.iter()
        .enumerate()
        .map(|(i, (_, env))| {
            let own = js_title(p, name_arg, env, i)?;
            let mut parts = vec![own];
            let mut cur = call.parent();
            while let Some(n) = cur {
                if n.kind() == "call_expression"
                    && let Some(f) = n.child_by_field_name("function")
                    && matches!(p.text(f), "describe" | "describe.only" | "suite")
                    && let Some(a) = n.child_by_field_name("arguments")
                    && let Some(first) = named_children(a).first()
                    && let Some(Literal::Str(s)) = of_node(p, *first, env)
                {
                    parts.push(s);
                }
                cur = n.parent();
            }
            parts.reverse();
            Some(parts.join(" > ")).filter(|n| n != plain)
        })
        .collect()
}

/// One title read with a row: a template or a text with jest's placeholders.
fn js_title(p: &Parsed<'_>, node: Node<'_>, env: &Env, index: usize) -> Option<String> {
    let Literal::Str(text) = of_node(p, node, env)? else {
        return None;
    };
    let row = env.get(ROW);
    if !text.contains('%') && !text.contains('$') {
        return Some(text);
    }
    // `$name` of an object row (jest: pretty-formatted, text in double quotes).
    if let Some(Literal::Map(fields)) = row
        && text.contains('$')
    {
        let mut out = text.clone();
        let mut keys: Vec<(&str, &Literal)> = fields
            .iter()
            .filter_map(|(k, v)| match k {
                Literal::Str(k) => Some((k.as_str(), v)),
                _ => None,
            })
            .collect();
        // The longest names first (`$ab` before `$a`).
        keys.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        for (k, v) in keys {
            out = out.replace(&format!("${k}"), &pretty(v)?);
        }
        return Some(out);
    }
    let items: Vec<Literal> = match row {
        Some(Literal::List(items)) => items.clone(),
        Some(other) => vec![other.clone()],
        None => return Some(text),
    };
    let mut items = items.into_iter();
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some('#') => out.push_str(&index.to_string()),
            Some('$') => out.push_str(&(index + 1).to_string()),
            Some('s') => out.push_str(&super::literal::js_text(&items.next()?)?),
            Some('i' | 'd') => match items.next()? {
                Literal::Int(i) => out.push_str(&i.to_string()),
                Literal::Float(f) => out.push_str(&(f.trunc() as i64).to_string()),
                _ => return None,
            },
            Some('p' | 'j') => out.push_str(&pretty(&items.next()?)?),
            _ => return None,
        }
    }
    Some(out)
}

/// A literal as jest's pretty-format writes it in a title (text in double quotes).
fn pretty(v: &Literal) -> Option<String> {
    Some(match v {
        Literal::Str(s) => format!("{s:?}"),
        Literal::List(items) => format!(
            "[{}]",
            items
                .iter()
                .map(pretty)
                .collect::<Option<Vec<_>>>()?
                .join(", ")
        ),
        Literal::Map(_) => return None,
        other => super::literal::js_text(other)?,
    })
}

/// `describe > test` names; the name argument read as a literal when it is one.
fn js_test_name(p: &Parsed<'_>, call: Node<'_>, name_arg: Node<'_>) -> String {
    let own = match of_node(p, name_arg, &Env::new()) {
        Some(Literal::Str(s)) => s,
        _ => p.text(name_arg).to_string(),
    };
    let mut parts = vec![own];
    let mut cur = call.parent();
    while let Some(n) = cur {
        if n.kind() == "call_expression"
            && let Some(f) = n.child_by_field_name("function")
            && matches!(p.text(f), "describe" | "describe.only" | "suite")
            && let Some(a) = n.child_by_field_name("arguments")
            && let Some(first) = named_children(a).first()
            && let Some(Literal::Str(s)) = of_node(p, *first, &Env::new())
        {
            parts.push(s);
        }
        cur = n.parent();
    }
    parts.reverse();
    parts.join(" > ")
}

/// A function's parameter names (object patterns give their keys) and body.
fn js_fn_params<'t>(p: &Parsed<'_>, f: Node<'t>) -> (Vec<JsParam>, Option<Node<'t>>) {
    let body = f.child_by_field_name("body");
    let params = f
        .child_by_field_name("parameters")
        .or_else(|| f.child_by_field_name("parameter"));
    let mut out = Vec::new();
    if let Some(ps) = params {
        let list = if ps.kind() == "identifier" {
            vec![ps]
        } else {
            named_children(ps)
        };
        for param in list {
            let param = match param.kind() {
                "required_parameter" | "optional_parameter" => {
                    param.child_by_field_name("pattern").unwrap_or(param)
                }
                _ => param,
            };
            match param.kind() {
                "identifier" => out.push(JsParam::Name(p.text(param).to_string())),
                "object_pattern" => out.push(JsParam::Keys(
                    named_children(param)
                        .into_iter()
                        .map(|k| p.text(k).to_string())
                        .collect(),
                )),
                _ => out.push(JsParam::Name(String::new())),
            }
        }
    }
    (out, body)
}

enum JsParam {
    Name(String),
    Keys(Vec<String>),
}

fn js_bind(params: &[JsParam], row: &Literal) -> Option<Env> {
    let mut env = Env::new();
    match (params, row) {
        ([JsParam::Keys(keys)], Literal::Map(entries)) => {
            for k in keys {
                let v = entries
                    .iter()
                    .find(|(ek, _)| matches!(ek, Literal::Str(s) if s == k))?;
                env.insert(k.clone(), v.1.clone());
            }
        }
        ([JsParam::Name(n)], r) if !matches!(r, Literal::List(_)) => {
            env.insert(n.clone(), r.clone());
        }
        (ps, Literal::List(items)) if ps.len() == items.len() => {
            for (param, v) in ps.iter().zip(items) {
                if let JsParam::Name(n) = param {
                    env.insert(n.clone(), v.clone());
                }
            }
        }
        _ => return None,
    }
    Some(env)
}

fn js_assertion(p: &Parsed<'_>, n: Node<'_>, env: &Env) -> Option<Seen> {
    if n.kind() != "call_expression" {
        return None;
    }
    let func = n.child_by_field_name("function")?;
    let args: Vec<Node<'_>> = named_children(n.child_by_field_name("arguments")?);
    let ftext = p.text(func);
    // assert.strictEqual(actual, expected) and kin
    let method = ftext.rsplit('.').next().unwrap_or("");
    let is_assert_obj = ftext.starts_with("assert.") || ftext.starts_with("t.assert.");
    if is_assert_obj {
        if matches!(
            method,
            "strictEqual" | "equal" | "deepStrictEqual" | "deepEqual" | "is" | "equals"
        ) && args.len() >= 2
            && let Some(s) = pair(p, args[0], args[1], env, n)
        {
            return Some(s);
        }
        if matches!(method, "ok")
            && let Some(a) = args.first()
            && let Some(s) =
                js_binary_eq(p, *a, env, n).or_else(|| truth(p, *a, true, true, env, n))
        {
            return Some(s);
        }
        return Some(Seen::Other(p.text(n).to_string()));
    }
    if ftext == "assert" {
        // `assert(a === b)`, `assert(isLeap(2000))`
        if let Some(a) = args.first()
            && let Some(s) =
                js_binary_eq(p, *a, env, n).or_else(|| truth(p, *a, true, true, env, n))
        {
            return Some(s);
        }
        return Some(Seen::Other(p.text(n).to_string()));
    }
    // expect(actual).toBe(expected), expect(actual).to.equal(expected)
    if func.kind() == "member_expression" {
        let prop = func
            .child_by_field_name("property")
            .map(|x| p.text(x))
            .unwrap_or("");
        let mut obj = func.child_by_field_name("object")?;
        let mut negated = false;
        while obj.kind() == "member_expression" {
            let step = obj
                .child_by_field_name("property")
                .map(|x| p.text(x))
                .unwrap_or("");
            if step == "not" {
                negated = true;
            }
            obj = obj.child_by_field_name("object")?;
        }
        if obj.kind() != "call_expression" {
            return None;
        }
        let ef = obj.child_by_field_name("function")?;
        if p.text(ef) != "expect" {
            return None;
        }
        let actual = *named_children(obj.child_by_field_name("arguments")?).first()?;
        // `expect(isLeap(2000)).toBeTruthy()`, `expect(isLeap(1900)).not.toBeTruthy()`
        if let "toBeTruthy" | "toBeFalsy" | "ok" = prop
            && let Some(s) = truth(p, actual, (prop != "toBeFalsy") != negated, true, env, n)
        {
            return Some(s);
        }
        // An order on the answer or its length: `expect(h.encode(x).length)
        // .toBeGreaterThanOrEqual(minLength)`, `expect(f(2)).toBeLessThan(3)`.
        let order = match prop {
            "toBeGreaterThanOrEqual" => Some(">="),
            "toBeGreaterThan" => Some(">"),
            "toBeLessThanOrEqual" => Some("<="),
            "toBeLessThan" => Some("<"),
            "toBe" | "toEqual" | "toStrictEqual" | "toHaveLength" => Some("=="),
            _ => None,
        };
        let actual_call = unwrap_parens(actual);
        let (of_length, actual_call) = match actual_call.kind() {
            "member_expression"
                if actual_call
                    .child_by_field_name("property")
                    .is_some_and(|x| p.text(x) == "length") =>
            {
                (true, actual_call.child_by_field_name("object")?)
            }
            _ => (prop == "toHaveLength", actual_call),
        };
        if !negated
            && let Some(op) = order
            && (of_length || op != "==")
            && let Some(than @ (Literal::Int(_) | Literal::Float(_))) =
                args.first().and_then(|a| of_node(p, *a, env))
            && let Some((callee, cargs, recv)) = call_literal(p, actual_call, env)
        {
            // The number spelled as one of the object's constructor arguments
            // (`toBeGreaterThanOrEqual(minLength)`, `new Hashids(salt, minLength)`): the
            // expectation follows that argument.
            let follows = args.first().and_then(|a| {
                let t = p.text(*a);
                recv.as_ref().and_then(|r| {
                    r.texts.iter().position(|x| {
                        x == t
                            && t.chars().all(|c| c.is_alphanumeric() || c == '_')
                            && !t.starts_with(|c: char| c.is_ascii_digit())
                    })
                })
            });
            return Some(Seen::Probe {
                callee,
                args: cargs,
                expected: Literal::order(op, of_length, than, follows),
                line: line(n),
                recv,
                truthy: false,
            });
        }
        if !negated {
            let expected = match prop {
                "toBe" | "toEqual" | "toStrictEqual" | "equal" | "equals" | "eql" => {
                    args.first().and_then(|a| of_node(p, *a, env))
                }
                "toBeNull" | "toBeUndefined" => Some(Literal::Null),
                _ => None,
            };
            if let Some(expected) = expected
                && let Some((callee, cargs, recv)) = call_literal(p, actual, env)
            {
                return Some(Seen::Probe {
                    callee,
                    args: cargs,
                    expected,
                    line: line(n),
                    recv,
                    truthy: false,
                });
            }
            // `expect(id).toEqual(hashids.encode(numbers))`: the call on the other side.
            if matches!(
                prop,
                "toBe" | "toEqual" | "toStrictEqual" | "equal" | "equals" | "eql"
            ) && let Some(call) = args.first()
                && let Some(s) = pair(p, *call, actual, env, n)
            {
                return Some(s);
            }
        }
        return Some(Seen::Other(p.text(n).to_string()));
    }
    None
}

fn js_binary_eq(p: &Parsed<'_>, expr: Node<'_>, env: &Env, at: Node<'_>) -> Option<Seen> {
    let expr = unwrap_parens(expr);
    if expr.kind() != "binary_expression" {
        return None;
    }
    let op = expr.child_by_field_name("operator").map(|o| p.text(o))?;
    if !matches!(op, "===" | "==") {
        return None;
    }
    pair(
        p,
        expr.child_by_field_name("left")?,
        expr.child_by_field_name("right")?,
        env,
        at,
    )
}

// ---------------------------------------------------------------- Go

fn go_tests<'t>(p: &'t Parsed<'_>) -> Vec<TestSite<'t>> {
    let mut out = Vec::new();
    // package-level tables: var cases = []struct{...}{...}
    let mut tables: HashMap<String, Vec<Env>> = HashMap::new();
    for decl in named_children(p.root()) {
        if decl.kind() == "var_declaration" {
            for spec in named_children(decl) {
                go_table_binding(p, spec, &mut tables);
            }
        }
    }
    for f in named_children(p.root()) {
        if f.kind() != "function_declaration" {
            continue;
        }
        let Some(name) = f.child_by_field_name("name").map(|n| p.text(n)) else {
            continue;
        };
        if !name.starts_with("Test") {
            continue;
        }
        let Some(body) = f.child_by_field_name("body") else {
            continue;
        };
        let mut local = tables.clone();
        let mut row_scopes = Vec::new();
        preorder(body, |n| {
            if matches!(n.kind(), "short_var_declaration" | "var_spec") {
                go_table_binding(p, n, &mut local);
            }
            if n.kind() == "for_statement"
                && let Some(range) = named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "range_clause")
                && let (Some(left), Some(right)) = (
                    range.child_by_field_name("left"),
                    range.child_by_field_name("right"),
                )
                && let Some(inner) = n.child_by_field_name("body")
            {
                let vars: Vec<Node<'_>> = named_children(left);
                let row_var = vars
                    .last()
                    .map(|v| p.text(*v).to_string())
                    .unwrap_or_default();
                // `for in, want := range map[string]int{"IV": 4, …}`: a row per entry, the
                // key and the value bound to the loop's two names.
                if let ([key, value], Some(Literal::Map(entries))) = (
                    vars.as_slice(),
                    (right.kind() == "composite_literal")
                        .then(|| of_node(p, right, &Env::new()))
                        .flatten(),
                ) {
                    let bound = entries
                        .iter()
                        .map(|(k, v)| {
                            let mut env = Env::new();
                            env.insert(p.text(*key).to_string(), k.clone());
                            env.insert(p.text(*value).to_string(), v.clone());
                            (format!("/{}", k.key().trim_matches('"')), env)
                        })
                        .collect();
                    row_scopes.push((inner, bound));
                    return Step::Skip;
                }
                let table = match right.kind() {
                    "identifier" => local.get(p.text(right)).cloned(),
                    _ => go_struct_rows(p, right),
                };
                if let Some(rows) = table {
                    let bound = rows
                        .iter()
                        .enumerate()
                        .map(|(i, r)| {
                            let mut env = Env::new();
                            let mut label = format!("/{i}");
                            for (k, v) in r {
                                if matches!(k.as_str(), "name" | "desc" | "title")
                                    && let Literal::Str(s) = v
                                {
                                    label = format!("/{}", s.replace(' ', "_"));
                                }
                                env.insert(format!("{row_var}.{k}"), v.clone());
                            }
                            (label, env)
                        })
                        .collect();
                    row_scopes.push((inner, bound));
                    return Step::Skip;
                }
            }
            Step::Into
        });
        out.push(TestSite {
            name: name.to_string(),
            line: line(f),
            body,
            rows: vec![(String::new(), Env::new())],
            row_scopes,
            row_names: Vec::new(),
        });
    }
    out
}

/// `cases := []struct{ a, b, want int }{{2, 3, 5}, ...}` → the rows as field bindings.
fn go_table_binding(p: &Parsed<'_>, n: Node<'_>, tables: &mut HashMap<String, Vec<Env>>) {
    let (left, right) = match n.kind() {
        "short_var_declaration" => (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ),
        "var_spec" => (
            n.child_by_field_name("name"),
            n.child_by_field_name("value"),
        ),
        _ => return,
    };
    let (Some(left), Some(right)) = (left, right) else {
        return;
    };
    let name = named_children(left)
        .first()
        .map(|c| p.text(*c).to_string())
        .unwrap_or_else(|| p.text(left).to_string());
    let value = named_children(right).first().copied().unwrap_or(right);
    if let Some(rows) = go_struct_rows(p, value) {
        tables.insert(name, rows);
    }
}

/// The field names of a slice or array of structs (`[]struct{ name, got, exp string }`), in
/// order; `None` for another type.
fn go_struct_fields(p: &Parsed<'_>, ty: Node<'_>) -> Option<Vec<String>> {
    if ty.kind() != "slice_type" && ty.kind() != "array_type" {
        return None;
    }
    let elem = ty.child_by_field_name("element")?;
    if elem.kind() != "struct_type" {
        return None;
    }
    let mut fields = Vec::new();
    for list in named_children(elem) {
        for decl in named_children(list) {
            if decl.kind() != "field_declaration" {
                continue;
            }
            let mut c = decl.walk();
            for name in decl.children_by_field_name("name", &mut c) {
                fields.push(p.text(name).to_string());
            }
        }
    }
    Some(fields)
}

fn go_struct_rows(p: &Parsed<'_>, lit: Node<'_>) -> Option<Vec<Env>> {
    if lit.kind() != "composite_literal" {
        return None;
    }
    let fields = go_struct_fields(p, lit.child_by_field_name("type")?)?;
    let body = lit.child_by_field_name("body")?;
    let mut rows = Vec::new();
    for el in named_children(body) {
        if el.kind() == "comment" {
            continue;
        }
        let value = named_children(el).first().copied()?;
        if value.kind() != "literal_value" {
            continue;
        }
        let mut env = Env::new();
        let mut positional = 0;
        for item in named_children(value) {
            match item.kind() {
                "keyed_element" => {
                    let kv = named_children(item);
                    if kv.len() == 2
                        && let Some(v) = of_node(p, kv[1], &Env::new())
                    {
                        env.insert(p.text(kv[0]).to_string(), v);
                    }
                }
                "literal_element" => {
                    if let (Some(f), Some(v)) = (
                        fields.get(positional),
                        named_children(item)
                            .first()
                            .and_then(|x| of_node(p, *x, &Env::new())),
                    ) {
                        env.insert(f.clone(), v);
                    }
                    positional += 1;
                }
                _ => {}
            }
        }
        rows.push(env);
    }
    Some(rows)
}

/// What a Go test file declares that its tables' rows are read with: the slice-of-struct types
/// (`type testList []struct{ name, got, exp string }`) with their field names, the
/// package-level tables (`var cases = testList{…}`), and the names of the standard-library
/// packages it imports (their functions are no code under test).
struct GoPackage<'t> {
    types: HashMap<String, Vec<String>>,
    tables: HashMap<String, Node<'t>>,
    std: Vec<String>,
}

impl<'t> GoPackage<'t> {
    fn read(p: &'t Parsed<'_>) -> GoPackage<'t> {
        let mut out = GoPackage {
            types: HashMap::new(),
            tables: HashMap::new(),
            std: Vec::new(),
        };
        for decl in named_children(p.root()) {
            match decl.kind() {
                "type_declaration" => {
                    for spec in named_children(decl) {
                        if let (Some(name), Some(ty)) = (
                            spec.child_by_field_name("name"),
                            spec.child_by_field_name("type"),
                        ) && let Some(fields) = go_struct_fields(p, ty)
                        {
                            out.types.insert(p.text(name).to_string(), fields);
                        }
                    }
                }
                "var_declaration" => {
                    for spec in named_children(decl) {
                        if let (Some(name), Some(value)) = (
                            spec.child_by_field_name("name"),
                            spec.child_by_field_name("value"),
                        ) && let Some(v) = named_children(value).first().copied()
                            && v.kind() == "composite_literal"
                        {
                            out.tables.insert(p.text(name).to_string(), v);
                        }
                    }
                }
                "import_declaration" => preorder(decl, |n| {
                    if n.kind() == "import_spec"
                        && let Some(path) = n.child_by_field_name("path")
                    {
                        let path = p.text(path).trim_matches(['"', '`']);
                        // A standard-library path has no domain in its first element.
                        let std = !path.split('/').next().unwrap_or("").contains('.');
                        let name = n
                            .child_by_field_name("name")
                            .map(|a| p.text(a).to_string())
                            .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(path).into());
                        if std {
                            out.std.push(name);
                        }
                    }
                    Step::Into
                }),
                _ => {}
            }
        }
        out
    }
}

/// Go's predeclared functions and types (a call of one is a conversion or a builtin, never the
/// code under test).
const GO_BUILTINS: &[&str] = &[
    "append",
    "cap",
    "clear",
    "close",
    "complex",
    "copy",
    "delete",
    "imag",
    "len",
    "make",
    "max",
    "min",
    "new",
    "panic",
    "print",
    "println",
    "real",
    "recover",
    "bool",
    "byte",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
    "any",
];

/// The names a table row gives its expected value.
pub(crate) const EXPECTED_FIELDS: &[&str] = &[
    "want", "wanted", "exp", "expect", "expected", "out", "output", "result", "res",
];

/// The probes of the tables under `body` whose rows hold the tested call itself (go-humanize's
/// `testList{{"12", Ordinal(12), "12th"}, …}.validate(t)`), and of the package-level such
/// tables `body` names: `(the row's suffix, the probe)`.
fn go_table_calls(p: &Parsed<'_>, body: Node<'_>, pkg: &GoPackage<'_>) -> Vec<(String, Seen)> {
    let mut out = Vec::new();
    let mut named: Vec<&str> = Vec::new();
    preorder(body, |n| {
        if n.kind() == "composite_literal" {
            let rows = go_call_rows(p, n, pkg);
            if !rows.is_empty() {
                out.extend(rows);
                return Step::Skip;
            }
        }
        if n.kind() == "identifier"
            && let Some(t) = pkg.tables.get(p.text(n))
            && !named.contains(&p.text(n))
        {
            named.push(p.text(n));
            out.extend(go_call_rows(p, *t, pkg));
        }
        Step::Into
    });
    out
}

/// The rows of the table `lit` that hold one call of the code under test with literal
/// arguments, each with its expected value: the row's field named like one (`want`, `exp`)
/// when the row or its type names its fields, else — the type declared elsewhere — the element
/// right after the call.
fn go_call_rows(p: &Parsed<'_>, lit: Node<'_>, pkg: &GoPackage<'_>) -> Vec<(String, Seen)> {
    let mut out = Vec::new();
    if lit.kind() != "composite_literal" {
        return out;
    }
    let (Some(ty), Some(body)) = (
        lit.child_by_field_name("type"),
        lit.child_by_field_name("body"),
    ) else {
        return out;
    };
    let fields: Option<Vec<String>> = match ty.kind() {
        "type_identifier" => pkg.types.get(p.text(ty)).cloned(),
        _ => match go_struct_fields(p, ty) {
            Some(f) => Some(f),
            None => return out,
        },
    };
    fn unwrap<'t>(n: Node<'t>) -> Option<Node<'t>> {
        if n.kind() == "literal_element" {
            named_children(n).first().copied()
        } else {
            Some(n)
        }
    }
    let callee_ok = |f: Node<'_>| match f.kind() {
        "identifier" => !GO_BUILTINS.contains(&p.text(f)),
        "selector_expression" => f
            .child_by_field_name("operand")
            .is_some_and(|o| o.kind() == "identifier" && !pkg.std.iter().any(|s| s == p.text(o))),
        _ => false,
    };
    let mut index = 0;
    for el in named_children(body) {
        let Some(row) = unwrap(el).filter(|r| r.kind() == "literal_value") else {
            continue;
        };
        let i = index;
        index += 1;
        // (field name, value)
        let mut items: Vec<(Option<String>, Node<'_>)> = Vec::new();
        let mut positional = 0;
        for item in named_children(row) {
            match item.kind() {
                "keyed_element" => {
                    let kv = named_children(item);
                    if let [k, v] = kv.as_slice()
                        && let Some(v) = unwrap(*v)
                    {
                        items.push((Some(p.text(*k).to_string()), v));
                    }
                }
                "literal_element" => {
                    if let Some(v) = unwrap(item) {
                        let name = fields.as_ref().and_then(|f| f.get(positional)).cloned();
                        items.push((name, v));
                    }
                    positional += 1;
                }
                _ => {}
            }
        }
        let calls: Vec<usize> = items
            .iter()
            .enumerate()
            .filter(|(_, (_, v))| unwrap_parens(*v).kind() == "call_expression")
            .map(|(k, _)| k)
            .collect();
        let [at] = calls.as_slice() else {
            continue;
        };
        let (call_name, call) = &items[*at];
        let Some(func) = unwrap_parens(*call).child_by_field_name("function") else {
            continue;
        };
        if !callee_ok(func) {
            continue;
        }
        let Some((callee, args, recv)) = call_literal(p, *call, &Env::new()) else {
            continue;
        };
        let expected = match call_name {
            // The row's fields are named: the expected one by its name.
            Some(_) => items
                .iter()
                .find(|(n, _)| n.as_deref().is_some_and(|n| EXPECTED_FIELDS.contains(&n)))
                .and_then(|(_, v)| of_node(p, *v, &Env::new())),
            // Unnamed (the row type is declared in another file): the element after the call.
            None => items
                .get(at + 1)
                .and_then(|(_, v)| of_node(p, *v, &Env::new())),
        };
        let Some(expected) = expected else {
            continue;
        };
        let label = items
            .iter()
            .find_map(|(n, v)| match (n.as_deref(), of_node(p, *v, &Env::new())) {
                (Some("name" | "desc" | "title"), Some(Literal::Str(s))) => {
                    Some(format!("/{}", s.replace(' ', "_")))
                }
                _ => None,
            })
            .unwrap_or_else(|| format!("/{i}"));
        out.push((
            label,
            Seen::Probe {
                callee,
                args,
                expected,
                line: line(row),
                recv,
                truthy: false,
            },
        ));
    }
    out
}

fn go_assertion<'t>(
    p: &Parsed<'_>,
    n: Node<'t>,
    env: &Env,
    vars: &mut HashMap<String, Node<'t>>,
) -> Option<Seen> {
    match n.kind() {
        "short_var_declaration" | "assignment_statement" => {
            if let (Some(l), Some(r)) = (
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            ) && let (Some(name), Some(value)) =
                (named_children(l).first(), named_children(r).first())
                && value.kind() == "call_expression"
            {
                vars.insert(p.text(*name).to_string(), *value);
            }
            None
        }
        "if_statement" => {
            if let Some(init) = n.child_by_field_name("initializer") {
                go_assertion(p, init, env, vars);
            }
            let cond = n.child_by_field_name("condition")?;
            let cond = unwrap_parens(cond);
            let resolve = |x: Node<'t>| -> Node<'t> {
                if x.kind() == "identifier"
                    && let Some(c) = vars.get(p.text(x))
                {
                    return *c;
                }
                x
            };
            if cond.kind() == "binary_expression" {
                let op = cond.child_by_field_name("operator").map(|o| p.text(o))?;
                if op == "!=" {
                    let l = resolve(cond.child_by_field_name("left")?);
                    let r = resolve(cond.child_by_field_name("right")?);
                    if let Some(s) = pair(p, l, r, env, n) {
                        return Some(s);
                    }
                    // A golden file: `got != string(want)`, `want` read from a literal path.
                    for (call, other) in [(l, r), (r, l)] {
                        if let Some(expected) = go_golden(p, other, env, vars)
                            && let Some((callee, args, recv)) = call_literal(p, call, env)
                        {
                            return Some(Seen::Probe {
                                callee,
                                args,
                                expected,
                                line: line(n),
                                recv,
                                truthy: false,
                            });
                        }
                    }
                }
            }
            if cond.kind() == "unary_expression"
                && let Some(inner) = cond.child_by_field_name("operand")
                && inner.kind() == "call_expression"
                && inner
                    .child_by_field_name("function")
                    .map(|f| p.text(f).ends_with("DeepEqual"))
                    .unwrap_or(false)
            {
                let args = named_children(inner.child_by_field_name("arguments")?);
                if args.len() == 2
                    && let Some(s) = pair(p, resolve(args[0]), resolve(args[1]), env, n)
                {
                    return Some(s);
                }
            }
            let body_text = n
                .child_by_field_name("consequence")
                .map(|b| p.text(b))
                .unwrap_or("");
            if body_text.contains("t.Error")
                || body_text.contains("t.Fatal")
                || body_text.contains("panic(")
            {
                // `if !IsLeap(2000) { t.Error(…) }`: the test fails when the call's `bool` is
                // not the other one
                if let Some(s) = truth(p, cond, false, false, env, n) {
                    return Some(s);
                }
                return Some(Seen::Other(p.text(cond).to_string()));
            }
            None
        }
        "call_expression" => {
            let f = p.text(n.child_by_field_name("function")?);
            // testify: assert.Equal(t, expected, actual)
            if matches!(f, "assert.Equal" | "require.Equal" | "assert.EqualValues") {
                let args = named_children(n.child_by_field_name("arguments")?);
                if args.len() >= 3 {
                    let actual = if args[2].kind() == "identifier" {
                        vars.get(p.text(args[2])).copied().unwrap_or(args[2])
                    } else {
                        args[2]
                    };
                    if let Some(s) = pair(p, actual, args[1], env, n) {
                        return Some(s);
                    }
                }
                return Some(Seen::Other(p.text(n).to_string()));
            }
            None
        }
        _ => None,
    }
}

/// The literal path of `os.ReadFile("…")` (or `ioutil.ReadFile`), when `n` is that call.
fn go_read_file(p: &Parsed<'_>, n: Node<'_>) -> Option<String> {
    if n.kind() != "call_expression" {
        return None;
    }
    let f = p.text(n.child_by_field_name("function")?);
    if !matches!(f, "os.ReadFile" | "ioutil.ReadFile") {
        return None;
    }
    let args = named_children(n.child_by_field_name("arguments")?);
    match (args.as_slice(), of_node(p, *args.first()?, &Env::new())) {
        ([_], Some(Literal::Str(path))) => Some(path),
        _ => None,
    }
}

/// The text a golden file holds, when `x` is `string(want)` and `want` was read from a
/// literal path whose text the extraction was given.
fn go_golden(
    p: &Parsed<'_>,
    x: Node<'_>,
    env: &Env,
    vars: &HashMap<String, Node<'_>>,
) -> Option<Literal> {
    let x = unwrap_parens(x);
    let operand = match x.kind() {
        "call_expression" if p.text(x.child_by_field_name("function")?) == "string" => {
            let args = named_children(x.child_by_field_name("arguments")?);
            match args.as_slice() {
                [one] => *one,
                _ => return None,
            }
        }
        "type_conversion_expression" if p.text(x.child_by_field_name("type")?) == "string" => {
            x.child_by_field_name("operand")?
        }
        _ => return None,
    };
    if operand.kind() != "identifier" {
        return None;
    }
    let read = vars.get(p.text(operand))?;
    env.get(&file_key(&go_read_file(p, *read)?)).cloned()
}

// ---------------------------------------------------------------- Rust

fn rust_tests<'t>(p: &'t Parsed<'_>) -> Vec<TestSite<'t>> {
    let mut out = Vec::new();
    preorder(p.root(), |n| {
        if n.kind() != "function_item" {
            return Step::Into;
        }
        if !rust_has_test_attr(p, n) {
            return Step::Skip;
        }
        let Some(name) = n.child_by_field_name("name").map(|x| p.text(x)) else {
            return Step::Skip;
        };
        let Some(body) = n.child_by_field_name("body") else {
            return Step::Skip;
        };
        let mut path = rust_module_path(p, n);
        path.push(name.to_string());
        let row_scopes = rust_for_tables(p, body);
        out.push(TestSite {
            name: path.join("::"),
            line: line(n),
            body,
            rows: vec![(String::new(), Env::new())],
            row_scopes,
            row_names: Vec::new(),
        });
        Step::Skip
    });
    out
}

/// The attribute items right before an item.
pub(crate) fn rust_attrs<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cur = node.prev_sibling();
    while let Some(s) = cur {
        match s.kind() {
            "attribute_item" => out.push(s),
            "line_comment" | "block_comment" => {}
            _ => break,
        }
        cur = s.prev_sibling();
    }
    out.reverse();
    out
}

pub(crate) fn rust_has_test_attr(p: &Parsed<'_>, item: Node<'_>) -> bool {
    rust_attrs(item).iter().any(|a| {
        let t: String = p.text(*a).chars().filter(|c| !c.is_whitespace()).collect();
        t == "#[test]" || t.ends_with("::test]") || t.starts_with("#[test_case")
    })
}

pub(crate) fn rust_module_path(p: &Parsed<'_>, node: Node<'_>) -> Vec<String> {
    let mut path = Vec::new();
    let mut cur = node.parent();
    while let Some(n) = cur {
        if n.kind() == "mod_item"
            && let Some(name) = n.child_by_field_name("name")
        {
            path.push(p.text(name).to_string());
        }
        cur = n.parent();
    }
    path.reverse();
    path
}

/// Re-parse a macro's token tree (`(add(2, 3), 5)`) as the arguments of a call.
pub(crate) fn rust_reparse_args(token_tree: &str) -> Option<Parsed<'static>> {
    let t = token_tree.trim();
    let inner = t.get(1..t.len().checked_sub(1)?)?;
    let src = format!("fn __pawl() {{ __pawl({inner}); }}");
    parse_cow(Lang::Rust, Cow::Owned(src)).ok()
}

/// The argument nodes of the call [`rust_reparse_args`] built.
pub(crate) fn rust_args<'a>(p: &'a Parsed<'_>) -> Option<Vec<Node<'a>>> {
    let mut found = None;
    preorder(p.root(), |n| {
        if found.is_none()
            && n.kind() == "call_expression"
            && n.child_by_field_name("function").map(|f| p.text(f)) == Some("__pawl")
        {
            found = n.child_by_field_name("arguments");
            return Step::Skip;
        }
        Step::Into
    });
    let args = found?;
    if args.has_error() {
        return None;
    }
    Some(
        named_children(args)
            .into_iter()
            .filter(|c| !matches!(c.kind(), "line_comment" | "block_comment"))
            .collect(),
    )
}

fn rust_for_tables<'t>(p: &Parsed<'_>, body: Node<'t>) -> Vec<(Node<'t>, Vec<(String, Env)>)> {
    let mut out = Vec::new();
    preorder(body, |n| {
        if n.kind() != "for_expression" {
            return Step::Into;
        }
        let (Some(pat), Some(value), Some(inner)) = (
            n.child_by_field_name("pattern"),
            n.child_by_field_name("value"),
            n.child_by_field_name("body"),
        ) else {
            return Step::Into;
        };
        let names: Vec<String> = match pat.kind() {
            "identifier" => vec![p.text(pat).to_string()],
            "tuple_pattern" => named_children(pat)
                .into_iter()
                .map(|c| p.text(c).trim_start_matches('&').to_string())
                .collect(),
            _ => return Step::Into,
        };
        // [..], &[..], [..].iter(), vec![..]
        let mut v = value;
        loop {
            match v.kind() {
                "reference_expression" | "parenthesized_expression" => {
                    match named_children(v).last() {
                        Some(x) => v = *x,
                        None => break,
                    }
                }
                "call_expression" => {
                    match v
                        .child_by_field_name("function")
                        .filter(|f| f.kind() == "field_expression")
                        .and_then(|f| f.child_by_field_name("value"))
                    {
                        Some(x) => v = x,
                        None => break,
                    }
                }
                _ => break,
            }
        }
        let Some(Literal::List(rows)) = of_node(p, v, &Env::new()) else {
            return Step::Into;
        };
        let bound: Vec<(String, Env)> = rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| bind(&names, r, &Env::new()).map(|e| (format!("[{i}]"), e)))
            .collect();
        if bound.is_empty() {
            return Step::Into;
        }
        out.push((inner, bound));
        Step::Skip
    });
    out
}

fn rust_assertion(p: &Parsed<'_>, n: Node<'_>, env: &Env) -> Option<Seen> {
    if n.kind() != "macro_invocation" {
        return None;
    }
    let name = p.text(n.child_by_field_name("macro")?);
    let name = name.rsplit("::").next().unwrap_or(name);
    if !matches!(
        name,
        "assert_eq"
            | "debug_assert_eq"
            | "assert"
            | "debug_assert"
            | "assert_ne"
            | "pretty_assertions"
    ) {
        return None;
    }
    let tt = named_children(n)
        .into_iter()
        .find(|c| c.kind() == "token_tree")?;
    let other = Some(Seen::Other(p.text(n).to_string()));
    let Some(re) = rust_reparse_args(p.text(tt)) else {
        return other;
    };
    let Some(args) = rust_args(&re) else {
        return other;
    };
    let seen = match name {
        "assert_eq" | "debug_assert_eq" if args.len() >= 2 => pair(&re, args[0], args[1], env, n),
        "assert" | "debug_assert" if !args.is_empty() => {
            let e = unwrap_parens(args[0]);
            if e.kind() == "binary_expression"
                && e.child_by_field_name("operator").map(|o| re.text(o)) == Some("==")
            {
                match (
                    e.child_by_field_name("left"),
                    e.child_by_field_name("right"),
                ) {
                    (Some(l), Some(r)) => pair(&re, l, r, env, n),
                    _ => None,
                }
            } else {
                // `assert!(is_leap(2000))`, `assert!(!is_leap(1900))`: a `bool`, exactly
                truth(&re, e, true, false, env, n)
            }
        }
        _ => None,
    };
    // the line is the macro's in the original source
    match seen {
        Some(Seen::Probe {
            callee,
            args,
            expected,
            truthy,
            ..
        }) => Some(Seen::Probe {
            callee,
            args,
            expected,
            line: line(n),
            recv: None,
            truthy,
        }),
        _ => other,
    }
}

// ---------------------------------------------------------------- shell

const SHELL_NOT_ASSERTIONS: &[&str] = &[
    "echo", "printf", "local", "export", "readonly", "declare", "eval", "cd", "source", ".",
    "exec", "return", "exit",
];

fn shell_probes(p: &Parsed<'_>) -> Probes {
    let mut out = Probes::default();
    let mut vars: HashMap<String, Node<'_>> = HashMap::new();
    let mut tested_fns: Vec<(String, usize)> = Vec::new();
    preorder(p.root(), |n| {
        if n.kind() == "function_definition"
            && let Some(name) = n.child_by_field_name("name").map(|x| p.text(x))
            && name.starts_with("test")
        {
            tested_fns.push((name.to_string(), line(n)));
        }
        match n.kind() {
            "variable_assignment" => {
                if let (Some(name), Some(value)) = (
                    n.child_by_field_name("name"),
                    n.child_by_field_name("value"),
                ) && let Some(cmd) = shell_subst_command(p, value, &HashMap::new())
                {
                    vars.insert(p.text(name).to_string(), cmd);
                }
                Step::Into
            }
            "test_command" => {
                if let Some(probe) = shell_test_probe(p, n, &vars) {
                    out.probes.push(probe);
                    return Step::Skip;
                }
                Step::Into
            }
            "command" => {
                if let Some(probe) = shell_helper_probe(p, n, &vars) {
                    out.probes.push(probe);
                    return Step::Skip;
                }
                Step::Into
            }
            _ => Step::Into,
        }
    });
    for (name, l) in tested_fns {
        if !out.probes.iter().any(|pr| pr.test == name) {
            out.not_probed.push(NotProbed {
                test: name,
                line: l,
                reason: "no comparison of a command's output with a literal".into(),
            });
        }
    }
    out
}

/// The single simple command of `$(cmd args)` (possibly inside quotes, or a variable that
/// holds one).
fn shell_subst_command<'t>(
    p: &Parsed<'_>,
    node: Node<'t>,
    vars: &HashMap<String, Node<'t>>,
) -> Option<Node<'t>> {
    let node = if node.kind() == "string" {
        let parts = named_children(node);
        if parts.len() != 1 {
            return None;
        }
        parts[0]
    } else {
        node
    };
    match node.kind() {
        "command_substitution" => {
            let inner = named_children(node);
            (inner.len() == 1 && inner[0].kind() == "command").then(|| inner[0])
        }
        "simple_expansion" | "expansion" => {
            let name = p
                .text(node)
                .trim_start_matches('$')
                .trim_matches(['{', '}']);
            vars.get(name).copied()
        }
        _ => None,
    }
}

fn shell_call(p: &Parsed<'_>, cmd: Node<'_>) -> Option<(String, Vec<Literal>)> {
    let name = p.text(cmd.child_by_field_name("name")?).to_string();
    let mut args = Vec::new();
    let mut c = cmd.walk();
    for a in cmd.children_by_field_name("argument", &mut c) {
        args.push(of_node(p, a, &Env::new())?);
    }
    Some((name, args))
}

fn shell_test_name(p: &Parsed<'_>, node: Node<'_>, fallback: Option<String>) -> String {
    if let Some(f) = ancestor(node, &["function_definition"])
        && let Some(name) = f.child_by_field_name("name")
    {
        return p.text(name).to_string();
    }
    fallback.unwrap_or_else(|| format!("line {}", line(node)))
}

fn shell_test_probe(
    p: &Parsed<'_>,
    n: Node<'_>,
    vars: &HashMap<String, Node<'_>>,
) -> Option<Probe> {
    let expr = named_children(n)
        .into_iter()
        .find(|c| c.kind() == "binary_expression")?;
    let op = expr.child_by_field_name("operator").map(|o| p.text(o))?;
    if !matches!(op, "=" | "==" | "-eq") {
        return None;
    }
    let (l, r) = (
        expr.child_by_field_name("left")?,
        expr.child_by_field_name("right")?,
    );
    for (call, want) in [(l, r), (r, l)] {
        if let Some(cmd) = shell_subst_command(p, call, vars)
            && let Some((callee, args)) = shell_call(p, cmd)
            && let Some(expected) = of_node(p, want, &Env::new())
        {
            return Some(Probe {
                test: shell_test_name(p, n, None),
                callee,
                args,
                expected,
                line: line(n),
                receiver: None,
                truthy: false,
                round_trip: false,
                returns: false,
                rows: Vec::new(),
            });
        }
    }
    None
}

/// `check "add 2 3" "$(add 2 3)" 5`, `assert_equal "$(add 2 3)" 5`, `assertEquals 5 "$(add 2 3)"`.
fn shell_helper_probe(
    p: &Parsed<'_>,
    n: Node<'_>,
    vars: &HashMap<String, Node<'_>>,
) -> Option<Probe> {
    let name = p.text(n.child_by_field_name("name")?);
    if SHELL_NOT_ASSERTIONS.contains(&name) || name == "[" || name == "test" {
        return None;
    }
    let mut c = n.walk();
    let args: Vec<Node<'_>> = n.children_by_field_name("argument", &mut c).collect();
    let substs: Vec<usize> = args
        .iter()
        .enumerate()
        .filter(|(_, a)| shell_subst_command(p, **a, vars).is_some())
        .map(|(i, _)| i)
        .collect();
    if substs.len() != 1 {
        return None;
    }
    let at = substs[0];
    let cmd = shell_subst_command(p, args[at], vars)?;
    let (callee, cargs) = shell_call(p, cmd)?;
    let expected = args
        .get(at + 1)
        .and_then(|a| of_node(p, *a, &Env::new()))
        .or_else(|| {
            at.checked_sub(1)
                .and_then(|i| args.get(i))
                .filter(|_| at >= 1)
                .and_then(|a| of_node(p, *a, &Env::new()))
                .filter(|_| at >= 2 || args.len() == 2)
        })?;
    let label = (at >= 1)
        .then(|| of_node(p, args[0], &Env::new()))
        .flatten()
        .and_then(|l| match l {
            Literal::Str(s) if at >= 2 || args.len() > 2 => Some(s),
            _ => None,
        });
    Some(Probe {
        test: shell_test_name(p, n, label),
        callee,
        args: cargs,
        expected,
        line: line(n),
        receiver: None,
        truthy: false,
        round_trip: false,
        returns: false,
        rows: Vec::new(),
    })
}
