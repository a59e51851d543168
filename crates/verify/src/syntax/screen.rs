//! The screen on the syntax of a change (issue 34 point 1).
//!
//! Two kinds of finding, both only for what the change added (compared with the baseline's
//! source of the same file; a new file has no baseline):
//!
//! - **rows of a table per language** (`syntax/rules/<language>.toml`): the test runtime or the
//!   tests inspected from non-test code, new reads of the environment (variables, `/proc`, the
//!   host, ids, the clock, randomness), decoders of opaque blobs and hash-keyed tables. Each row
//!   names the node kinds it looks at and a pattern on their text; its example must trigger it
//!   (checked when the table loads, and by a test);
//! - **answers shaped to the tests**: the deciding tests' literal inputs appearing as a
//!   condition, a `match`/`case`/`switch` pattern, a map key or the first part of a row of a
//!   sequence of pairs, with the test's expected result
//!   as that entry's value. An entry counts when it is new, is not made of edge values only
//!   (`if s == "": return []` for `assert parse("") == []` is an edge-case fix), and the table it
//!   belongs to (a map, a `match`, a `switch`, the `if`s of one function) is at least half made
//!   of such entries — a general lookup table that happens to hold a tested pair is not flagged.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::inline::inline_test_items;
use super::literal::{Env, Literal, of_node, unescape};
use super::probe::{Chain, Probe};
use super::walk::{Step, named_children, preorder, preorder_stack};
use super::{Lang, Parsed, Span, parse};

/// One finding of the screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyntaxFinding {
    /// The rule's id (`py.runner-modules`, `rust.tested-answers`, ...).
    pub rule: String,
    /// `observe` (the tests or the runner inspected), `environment`, `opaque` or `answers`.
    pub category: String,
    /// The rule in words.
    pub words: String,
    pub path: String,
    /// The node that matched.
    pub span: Span,
    /// The final source's lines of the match (at most five).
    pub hunk: String,
    /// The text that matched, whitespace collapsed.
    pub matched: String,
    /// For answers: the expected result of the test whose literals the change holds.
    pub literal: Option<Literal>,
    /// For answers: the test the literals came from.
    pub test: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    rule: Vec<Row>,
    /// Where the language's code makes more code of itself at run time (see [`Generates`]).
    #[serde(default)]
    generates: Vec<Generates>,
    /// The rules on answers shaped to the tests that this language has (see [`AnswerRow`]).
    #[serde(default)]
    answers: Vec<AnswerRow>,
}

/// A rule on answers shaped to the tests (`<lang>.tested-answers`, `.tested-inputs`,
/// `.tested-settings`). What it looks for is read from the syntax trees by code (an entry of a
/// table, a case, a condition compared with the deciding tests' literals); the row says in words
/// what a finding means, switches the kind on for the language (a kind without a row gives no
/// finding there), and carries a deciding test with a change that must give the finding and one
/// that must not — checked when the table loads, through the screen itself.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerRow {
    id: String,
    words: String,
    /// A test file of the language whose tests decide the proof in the examples.
    test: String,
    /// The file at the baseline (optional: none is a new file).
    #[serde(default)]
    baseline: Option<String>,
    /// The file after a change that must give this row's finding.
    example: String,
    /// The file after a change that must not (optional).
    #[serde(default)]
    clean: Option<String>,
}

/// The kinds of answer rule a table's `[[answers]]` row may name after its language's prefix.
const ANSWER_KINDS: &[&str] = &["tested-answers", "tested-inputs", "tested-settings"];

/// A call through which a source carries code of its own language as text: `exec(SRC)`,
/// `new Function("s", body)`, a module written and then imported. The string literals it is
/// given (or a name bound to one in the file) are screened as code of the file's language,
/// against what the baseline's source gave the same calls.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Generates {
    id: String,
    /// What the call does with the text, in words (shown beside the file's path).
    words: String,
    /// Node kinds of the call.
    nodes: Vec<String>,
    /// A regex on the called function's text (whitespace collapsed).
    callee: String,
    /// When set, a regex on the whole source: the call's text is code only when the source
    /// matches (a file write names a module of the language somewhere: `"known.js"`).
    #[serde(default)]
    names: Option<String>,
    /// When set, a regex on the file's path: only such files' calls give code (`build.rs`).
    #[serde(default)]
    path: Option<String>,
    /// When set, a regex on the callee: its strings are format strings (`write!`, `format!`),
    /// read as the text they write — `{{`/`}}` as braces, each argument `{..}` as `_`.
    #[serde(default)]
    formats: Option<String>,
    /// Source whose calls give code that triggers a row of the table or holds an entry.
    example: String,
    /// Source whose calls give no code with a row's hit or an entry (optional).
    #[serde(default)]
    clean: Option<String>,
}

struct Sink {
    row: Generates,
    callee: Regex,
    names: Option<Regex>,
    path: Option<Regex>,
    formats: Option<Regex>,
}

/// A row of a rule table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    id: String,
    category: String,
    words: String,
    /// Node kinds of the grammar this row looks at.
    nodes: Vec<String>,
    /// A regex on the node's text (whitespace collapsed), or on the string's value for string
    /// nodes.
    pattern: String,
    /// When set, the node's parent must be of one of these kinds.
    #[serde(default)]
    parents: Vec<String>,
    /// When set, the matched text must mix letters and digits (an encoded blob or a hash does;
    /// a path or a sentence of words does not).
    #[serde(default)]
    mixed: bool,
    /// When set, a file whose baseline already triggers the row is that runner's own code (a
    /// test runner reading its own variables, a CI plugin): new occurrences there are not
    /// reported.
    #[serde(default)]
    familiar: bool,
    /// When set, a regex on the text of a command substitution: a match inside one (the
    /// outermost that matches) is no hit when the substitution's value is only ever the start
    /// of a path — written before a `/` (`. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"`), or
    /// assigned to a variable every expansion of which is (`D=$(dirname ...)`, `. "$D/lib.sh"`).
    /// A script finding its own directory learns nothing of who runs it; the same text
    /// compared, printed or branched on is a hit.
    #[serde(default)]
    except_path_of: Option<String>,
    /// When set, a regex on the text of the call around a hit in a Rust build script
    /// (`build.rs`): cargo's own inputs to the script (`env::var("OUT_DIR")`) are what a build
    /// script is for, not a read of the environment that decides an answer.
    #[serde(default)]
    build_script_input: Option<String>,
    /// When set, a regex on the text of the node's parent and grandparent (the call or macro
    /// around it): a hit there is none. Code a build generated is named from `OUT_DIR`
    /// (`include!(concat!(env!("OUT_DIR"), "/units.rs"))`), not read from the tests.
    #[serde(default)]
    except_near: Option<String>,
    /// When set, a regex in which `{recv}` stands for the text the pattern's `recv` group
    /// matched: the hit counts only when the text of the function around it (else the file)
    /// matches it — the receiver declared as what the row is about (`counts: HashMap<..>`).
    #[serde(default)]
    declared: Option<String>,
    /// When set, a regex with the same `{group}` placeholders as `declared`: the hit does not
    /// count when the text of the function around it matches (`sort.Strings({out})` after a
    /// map's keys were collected into `out`).
    #[serde(default)]
    unless: Option<String>,
    /// Source that must trigger the row.
    example: String,
    /// Source that must not (optional).
    #[serde(default)]
    clean: Option<String>,
}

struct Rule {
    row: Row,
    re: Regex,
    except: Option<Regex>,
    build_input: Option<Regex>,
    near: Option<Regex>,
}

struct Rules {
    tables: HashMap<&'static str, Vec<Rule>>,
    sinks: HashMap<&'static str, Vec<Sink>>,
    answers: HashMap<&'static str, Vec<AnswerRow>>,
}

impl Rules {
    /// The words of `lang`'s answer rule of `kind`, when its table has the row.
    fn answer_words(&self, lang: Lang, kind: &str) -> Option<&str> {
        let id = format!("{}.{kind}", short(lang));
        self.answers
            .get(table_name(lang))?
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.words.as_str())
    }
}

const TABLES: &[(&str, Lang, &str)] = &[
    ("python", Lang::Python, include_str!("rules/python.toml")),
    (
        "javascript",
        Lang::JavaScript,
        include_str!("rules/javascript.toml"),
    ),
    ("go", Lang::Go, include_str!("rules/go.toml")),
    ("rust", Lang::Rust, include_str!("rules/rust.toml")),
    ("shell", Lang::Shell, include_str!("rules/shell.toml")),
];

fn table_name(lang: Lang) -> &'static str {
    match lang {
        Lang::Python => "python",
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => "javascript",
        Lang::Go => "go",
        Lang::Rust => "rust",
        Lang::Shell => "shell",
    }
}

/// The rule tables, loaded once; each row's example checked. An error names every bad row.
fn rules() -> &'static Result<Rules, String> {
    static RULES: OnceLock<Result<Rules, String>> = OnceLock::new();
    RULES.get_or_init(load_rules)
}

fn load_rules() -> Result<Rules, String> {
    let mut tables = HashMap::new();
    let mut sinks = HashMap::new();
    let mut answers = HashMap::new();
    let mut problems = Vec::new();
    for (name, lang, text) in TABLES {
        let table: Table = toml::from_str(text).map_err(|e| format!("rules/{name}.toml: {e}"))?;
        for row in &table.answers {
            let kind = row.id.strip_prefix(&format!("{}.", short(*lang)));
            if !kind.is_some_and(|k| ANSWER_KINDS.contains(&k)) {
                problems.push(format!(
                    "{name} {}: an answers row is named `{}.` and one of {}",
                    row.id,
                    short(*lang),
                    ANSWER_KINDS.join(", ")
                ));
            }
        }
        answers.insert(*name, table.answers);
        let mut calls = Vec::new();
        for g in table.generates {
            let optional = |field: &str, re: &Option<String>| match re.as_deref().map(Regex::new) {
                None => Ok(None),
                Some(Ok(re)) => Ok(Some(re)),
                Some(Err(e)) => Err(format!("{name} {} {field}: {e}", g.id)),
            };
            let compiled = (|| {
                Ok::<_, String>(Sink {
                    callee: Regex::new(&g.callee)
                        .map_err(|e| format!("{name} {} callee: {e}", g.id))?,
                    names: optional("names", &g.names)?,
                    path: optional("path", &g.path)?,
                    formats: optional("formats", &g.formats)?,
                    row: g.clone(),
                })
            })();
            match compiled {
                Ok(sink) => calls.push(sink),
                Err(e) => problems.push(e),
            }
        }
        sinks.insert(*name, calls);
        let mut rows = Vec::new();
        for row in table.rule {
            let except = match row.except_path_of.as_deref().map(Regex::new) {
                None => None,
                Some(Ok(re)) => Some(re),
                Some(Err(e)) => {
                    problems.push(format!("{name} {} except_path_of: {e}", row.id));
                    continue;
                }
            };
            if let Some((field, e)) = [("declared", &row.declared), ("unless", &row.unless)]
                .into_iter()
                .filter_map(|(f, t)| Some((f, t.as_deref()?)))
                .find_map(|(f, t)| Regex::new(&placeholders_as(t, "x")).err().map(|e| (f, e)))
            {
                problems.push(format!("{name} {} {field}: {e}", row.id));
                continue;
            }
            let build_input = match row.build_script_input.as_deref().map(Regex::new) {
                None => None,
                Some(Ok(re)) => Some(re),
                Some(Err(e)) => {
                    problems.push(format!("{name} {} build_script_input: {e}", row.id));
                    continue;
                }
            };
            let near = match row.except_near.as_deref().map(Regex::new) {
                None => None,
                Some(Ok(re)) => Some(re),
                Some(Err(e)) => {
                    problems.push(format!("{name} {} except_near: {e}", row.id));
                    continue;
                }
            };
            match Regex::new(&row.pattern) {
                Ok(re) => rows.push(Rule {
                    row,
                    re,
                    except,
                    build_input,
                    near,
                }),
                Err(e) => problems.push(format!("{name} {}: {e}", row.id)),
            }
        }
        tables.insert(*name, rows);
    }
    let rules = Rules {
        tables,
        sinks,
        answers,
    };
    problems.extend(check_examples(&rules));
    if problems.is_empty() {
        Ok(rules)
    } else {
        Err(problems.join("; "))
    }
}

/// Every row's example triggers the row; every `clean` example does not.
fn check_examples(rules: &Rules) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, lang, _) in TABLES {
        for rule in rules.tables.get(name).map(Vec::as_slice).unwrap_or(&[]) {
            let hit = |src: &str| {
                row_hits(rules, *lang, src, &[], false)
                    .iter()
                    .any(|h| h.rule == rule.row.id)
            };
            if !hit(&rule.row.example) {
                problems.push(format!(
                    "{name} {}: its example does not trigger it",
                    rule.row.id
                ));
            }
            if let Some(clean) = &rule.row.clean
                && hit(clean)
            {
                problems.push(format!(
                    "{name} {}: its clean example triggers it",
                    rule.row.id
                ));
            }
        }
        for sink in rules.sinks.get(name).map(Vec::as_slice).unwrap_or(&[]) {
            // Code with something for the screen in it: a row's hit or a table's entry.
            let at = example_path(sink);
            let screened = |src: &str| {
                let code = generated_by(rules, *lang, &at, src, Some(&sink.row.id));
                !code.trim().is_empty()
                    && (!row_hits(rules, *lang, &code, &[], false).is_empty()
                        || parse(*lang, &code).is_ok_and(|p| !entries(&p, &[]).is_empty()))
            };
            if !screened(&sink.row.example) {
                problems.push(format!(
                    "{name} {}: its example gives no code with a row's hit or an entry",
                    sink.row.id
                ));
            }
            if let Some(clean) = &sink.row.clean
                && screened(clean)
            {
                problems.push(format!(
                    "{name} {}: its clean example gives code with a row's hit or an entry",
                    sink.row.id
                ));
            }
        }
        for row in rules.answers.get(name).map(Vec::as_slice).unwrap_or(&[]) {
            let probes = match super::extract_probes(*lang, &row.test) {
                Ok(p) => p,
                Err(e) => {
                    problems.push(format!("{name} {}: its test does not parse: {e}", row.id));
                    continue;
                }
            };
            let found = |src: &str| {
                screen_in(
                    rules,
                    *lang,
                    Path::new("example.src"),
                    row.baseline.as_deref(),
                    src,
                    &probes.probes,
                    &probes.chains,
                )
                .iter()
                .any(|f| f.rule == row.id)
            };
            if !found(&row.example) {
                problems.push(format!(
                    "{name} {}: its example does not give its finding",
                    row.id
                ));
            }
            if let Some(clean) = &row.clean
                && found(clean)
            {
                problems.push(format!(
                    "{name} {}: its clean example gives its finding",
                    row.id
                ));
            }
        }
    }
    problems
}

/// A path a `[[generates]]` row's examples are read at: one its `path` accepts (`build.rs`).
fn example_path(sink: &Sink) -> std::path::PathBuf {
    let candidates = ["example.src", "build.rs"];
    let found = candidates
        .iter()
        .find(|c| sink.path.as_ref().is_none_or(|re| re.is_match(c)))
        .unwrap_or(&candidates[0]);
    std::path::PathBuf::from(found)
}

/// Every `{name}` placeholder of a `declared`/`unless` template (a lowercase word in braces)
/// replaced by `with`.
fn placeholders_as(template: &str, with: &str) -> String {
    match PLACEHOLDER.as_ref() {
        Some(re) => re.replace_all(template, with).into_owned(),
        None => template.to_owned(),
    }
}

static PLACEHOLDER: std::sync::LazyLock<Option<Regex>> =
    std::sync::LazyLock::new(|| Regex::new(r"\{([a-z][a-z_]*)\}").ok());

/// The rule tables' problems, if any (for a test and for `pawl doctor`).
pub fn rule_table_problems() -> Option<String> {
    rules().as_ref().err().cloned()
}

/// The ids of every row of every table (for a test).
pub fn rule_ids() -> Vec<String> {
    match rules() {
        Ok(r) => TABLES
            .iter()
            .flat_map(|(n, _, _)| r.tables.get(n).map(Vec::as_slice).unwrap_or(&[]))
            .map(|rule| rule.row.id.clone())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The ids of every `[[answers]]` row of every table (for a test).
pub fn answer_rule_ids() -> Vec<String> {
    match rules() {
        Ok(r) => TABLES
            .iter()
            .flat_map(|(n, _, _)| r.answers.get(n).map(Vec::as_slice).unwrap_or(&[]))
            .map(|row| row.id.clone())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The number of rows of each table (for the docs and a test).
pub fn rule_counts() -> Vec<(&'static str, usize)> {
    match rules() {
        Ok(r) => TABLES
            .iter()
            .map(|(n, _, _)| (*n, r.tables.get(n).map(Vec::len).unwrap_or(0)))
            .collect(),
        Err(_) => Vec::new(),
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How much of a node's text a row's pattern or an entry's signature reads: its first and last
/// `EDGE_TEXT` bytes (patterns are anchored at either end; a node nested ten thousand deep is
/// not copied at each level).
const EDGE_TEXT: usize = 256;

fn node_text(p: &Parsed<'_>, n: Node<'_>) -> String {
    let t = p.text(n);
    if t.len() <= 2 * EDGE_TEXT {
        return collapse(t);
    }
    let mut head = EDGE_TEXT;
    while !t.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = t.len() - EDGE_TEXT;
    while !t.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{} ...{} bytes... {}",
        collapse(&t[..head]),
        t.len(),
        collapse(&t[tail..])
    )
}

fn hunk_of(src: &str, span: &Span) -> String {
    let lines: Vec<&str> = src.lines().collect();
    let first = span.line.saturating_sub(1);
    let last = span.end_line.min(first + 5).min(lines.len());
    lines
        .get(first..last)
        .map(|l| l.join("\n"))
        .unwrap_or_default()
}

/// A row's hits in one source, outside the spans in `skip` (inline test items).
struct Hit {
    rule: String,
    text: String,
    span: Span,
}

fn row_hits(rules: &Rules, lang: Lang, src: &str, skip: &[Span], build_script: bool) -> Vec<Hit> {
    let Ok(p) = parse(lang, src) else {
        return Vec::new();
    };
    let table = rules
        .tables
        .get(table_name(lang))
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut out = Vec::new();
    let mut seen: HashSet<(String, usize)> = HashSet::new();
    preorder_stack(p.root(), |n, parents| {
        let span = Span::of(n);
        if skip.iter().any(|s| s.contains(&span)) {
            return Step::Skip;
        }
        let mut text: Option<String> = None;
        for rule in table {
            if !rule.row.nodes.iter().any(|k| k == n.kind()) {
                continue;
            }
            if !rule.row.parents.is_empty()
                && !parents
                    .last()
                    .map(|par| rule.row.parents.iter().any(|k| k == par.kind()))
                    .unwrap_or(false)
            {
                continue;
            }
            let text = text.get_or_insert_with(|| match of_node(&p, n, &Env::new()) {
                Some(Literal::Str(s)) if is_string_kind(n.kind()) => s,
                _ => node_text(&p, n),
            });
            let mixed = !rule.row.mixed
                || (text.chars().any(|c| c.is_ascii_alphabetic())
                    && text.chars().any(|c| c.is_ascii_digit()));
            if mixed
                && rule.re.is_match(text)
                && !rule
                    .except
                    .as_ref()
                    .is_some_and(|ex| only_a_path(&p, ex, parents))
                && !rule.near.as_ref().is_some_and(|re| {
                    parents
                        .iter()
                        .rev()
                        .take(2)
                        .any(|a| re.is_match(&node_text(&p, *a)))
                })
                && !(build_script
                    && rule.build_input.as_ref().is_some_and(|re| {
                        parents
                            .last()
                            .is_some_and(|call| re.is_match(&collapse(p.text(*call))))
                    }))
                && rule
                    .row
                    .declared
                    .as_ref()
                    .is_none_or(|d| around(&p, &rule.re, d, text, parents))
                && !rule
                    .row
                    .unless
                    .as_ref()
                    .is_some_and(|u| around(&p, &rule.re, u, text, parents))
                && seen.insert((rule.row.id.clone(), span.line))
            {
                out.push(Hit {
                    rule: rule.row.id.clone(),
                    text: text.clone(),
                    span,
                });
            }
        }
        Step::Into
    });
    out
}

/// Whether the text of the function around the node (else the file) matches a row's
/// `declared` or `unless` template, each `{group}` in it the text the row's pattern captured in
/// that group (a group that took no part matches nothing): the receiver declared as the row
/// says (`counts: HashMap<..>`), a loop's variable returned, its result sorted.
fn around(p: &Parsed<'_>, re: &Regex, template: &str, text: &str, parents: &[Node<'_>]) -> bool {
    let Some(caps) = re.captures(text) else {
        return false;
    };
    let Some(placeholder) = PLACEHOLDER.as_ref() else {
        return false;
    };
    let filled = placeholder.replace_all(template, |c: &regex::Captures<'_>| {
        caps.name(&c[1])
            .map_or_else(|| r"[^\s\S]".to_string(), |m| regex::escape(m.as_str()))
    });
    let Ok(decl) = Regex::new(&filled) else {
        return false;
    };
    let scope = parents
        .iter()
        .rev()
        .find(|a| function_kinds(p.lang).contains(&a.kind()))
        .copied()
        .unwrap_or_else(|| p.root());
    decl.is_match(p.text(scope))
}

/// Whether a node whose ancestors are `parents` (outermost first) sits in a command
/// substitution matching `except` whose value is only ever the start of a path (see
/// `Row::except_path_of`).
fn only_a_path(p: &Parsed<'_>, except: &Regex, parents: &[Node<'_>]) -> bool {
    let Some(at) = parents
        .iter()
        .position(|a| a.kind() == "command_substitution" && except.is_match(&collapse(p.text(*a))))
    else {
        return false;
    };
    // Up through a string that holds nothing else: `D="$(dirname ...)"`.
    let mut value = parents[at];
    let mut i = at;
    while i > 0 && parents[i - 1].kind() == "string" && named_children(parents[i - 1]).len() == 1 {
        value = parents[i - 1];
        i -= 1;
    }
    match i.checked_sub(1).map(|j| parents[j]) {
        Some(a) if a.kind() == "variable_assignment" => {
            let Some(name) = a.child_by_field_name("name").map(|n| p.text(n).to_owned()) else {
                return false;
            };
            let uses = Regex::new(&format!(
                r"^\$\{{?[#!]?{}([^A-Za-z0-9_]|$)",
                regex::escape(&name)
            ));
            let Ok(uses) = uses else {
                return false;
            };
            let mut only_paths = true;
            preorder(p.root(), |n| {
                if matches!(n.kind(), "simple_expansion" | "expansion") && uses.is_match(p.text(n))
                {
                    let plain =
                        p.text(n) == format!("${name}") || p.text(n) == format!("${{{name}}}");
                    only_paths &= plain && before_a_slash(p, n);
                    return Step::Skip;
                }
                Step::Into
            });
            only_paths
        }
        _ => before_a_slash(p, value),
    }
}

/// Whether what follows `n` in its word is a `/` (through the closing quote of a string that
/// ends with it: `"$D"/lib.sh`).
fn before_a_slash(p: &Parsed<'_>, n: Node<'_>) -> bool {
    let mut cur = n;
    for _ in 0..8 {
        match cur.next_sibling() {
            Some(s) if !s.is_named() && p.text(s) == "\"" => match cur.parent() {
                Some(q) if q.kind() == "string" => cur = q,
                _ => return false,
            },
            Some(s) => return p.text(s).starts_with('/'),
            None => match cur.parent() {
                Some(q) if matches!(q.kind(), "string" | "concatenation") => cur = q,
                _ => return false,
            },
        }
    }
    false
}

fn is_string_kind(kind: &str) -> bool {
    matches!(
        kind,
        "string"
            | "template_string"
            | "interpreted_string_literal"
            | "raw_string_literal"
            | "string_literal"
            | "raw_string"
            | "word"
    )
}

/// Screen one changed or added source file. `baseline_src` is the file's source at the
/// baseline (`None` for a new file); `deciding` are the probes of the tests that decide the
/// proof (from [`super::extract_probes`] on the seal's copy of the tests).
pub fn screen(
    lang: Lang,
    path: &Path,
    baseline_src: Option<&str>,
    final_src: &str,
    deciding: &[Probe],
) -> Vec<SyntaxFinding> {
    screen_with_chains(lang, path, baseline_src, final_src, deciding, &[])
}

/// [`screen`], with the literal arguments of the deciding tests' call chains
/// ([`Probes::chains`](super::probe::Probes::chains), from the seal's copy of the tests): a
/// condition the change added that compares exactly the arguments of whole calls of one chain
/// (two or more, none an edge value) is a finding, whether or not the test gave a probe
/// (`if (self.opts.min_depth, depth) == (3, 2)` for `WalkDir::new(p).min_depth(3).max_depth(2)`).
pub fn screen_with_chains(
    lang: Lang,
    path: &Path,
    baseline_src: Option<&str>,
    final_src: &str,
    deciding: &[Probe],
    chains: &[Chain],
) -> Vec<SyntaxFinding> {
    match rules() {
        Ok(rules) => screen_in(rules, lang, path, baseline_src, final_src, deciding, chains),
        Err(problem) => vec![SyntaxFinding {
            rule: "table.invalid".into(),
            category: "table".into(),
            words: format!("the screen's rule tables do not load: {problem}"),
            path: path.display().to_string(),
            span: Span {
                start: 0,
                end: 0,
                line: 1,
                end_line: 1,
            },
            hunk: String::new(),
            matched: String::new(),
            literal: None,
            test: None,
        }],
    }
}

/// [`screen_with_chains`] with the rule tables given (their examples are checked through it
/// while they load).
fn screen_in(
    rules: &Rules,
    lang: Lang,
    path: &Path,
    baseline_src: Option<&str>,
    final_src: &str,
    deciding: &[Probe],
    chains: &[Chain],
) -> Vec<SyntaxFinding> {
    let path_text = path.display().to_string();
    let inline_spans = |src: &str| -> Vec<Span> {
        inline_test_items(lang, src)
            .map(|items| items.into_iter().map(|i| i.span).collect())
            .unwrap_or_default()
    };
    let final_skip = inline_spans(final_src);
    let mut findings = Vec::new();

    // rows of the table: new occurrences only. A row counts when the change made the file
    // trigger it more often than its baseline did: a line rewritten with the same kind of
    // observation (`time.Now().Sub(start)` -> `time.Since(start)`) adds none.
    let table = rules
        .tables
        .get(table_name(lang))
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let build_script = lang == Lang::Rust && path.file_name().is_some_and(|n| n == "build.rs");
    let hits = row_hits(rules, lang, final_src, &final_skip, build_script);
    let mut base_counts: HashMap<(String, String), usize> = HashMap::new();
    let mut base_rows: HashMap<String, usize> = HashMap::new();
    let mut base_lines: HashSet<String> = HashSet::new();
    if let Some(b) = baseline_src {
        for h in row_hits(rules, lang, b, &inline_spans(b), build_script) {
            *base_rows.entry(h.rule.clone()).or_insert(0) += 1;
            *base_counts.entry((h.rule, h.text)).or_insert(0) += 1;
        }
        base_lines = b.lines().map(collapse).collect();
    }
    let mut final_counts: HashMap<(String, String), usize> = HashMap::new();
    let mut final_rows: HashMap<String, usize> = HashMap::new();
    for h in &hits {
        *final_rows.entry(h.rule.clone()).or_insert(0) += 1;
        *final_counts
            .entry((h.rule.clone(), h.text.clone()))
            .or_insert(0) += 1;
    }
    let grown = |rule: &str| -> bool {
        let before = base_rows.get(rule).copied().unwrap_or(0);
        let familiar = table.iter().any(|r| r.row.id == rule && r.row.familiar);
        if familiar && before > 0 {
            return false;
        }
        final_rows.get(rule).copied().unwrap_or(0) > before
    };
    let mut reported: HashMap<(String, String), usize> = HashMap::new();
    for h in hits {
        if !grown(&h.rule) {
            continue;
        }
        let key = (h.rule.clone(), h.text.clone());
        let before = base_counts.get(&key).copied().unwrap_or(0);
        let now = final_counts.get(&key).copied().unwrap_or(0);
        if now <= before {
            continue;
        }
        let hunk = hunk_of(final_src, &h.span);
        // an occurrence on a line the baseline already had is not the change's
        if before > 0 && hunk.lines().all(|l| base_lines.contains(&collapse(l))) {
            continue;
        }
        let done = reported.entry(key).or_insert(0);
        if *done >= now - before {
            continue;
        }
        *done += 1;
        let Some(rule) = table.iter().find(|r| r.row.id == h.rule) else {
            continue;
        };
        findings.push(SyntaxFinding {
            rule: h.rule,
            category: rule.row.category.clone(),
            words: rule.row.words.clone(),
            path: path_text.clone(),
            span: h.span,
            hunk,
            matched: h.text,
            literal: None,
            test: None,
        });
    }

    let fp = if deciding.is_empty() && chains.is_empty() {
        None
    } else {
        parse(lang, final_src).ok()
    };
    // answers shaped to the tests
    if !deciding.is_empty()
        && let Some(fp) = &fp
    {
        let base_list: Vec<Entry> = baseline_src
            .and_then(|b| {
                let bp = parse(lang, b).ok()?;
                let skip = inline_spans(b);
                Some(entries(&bp, &skip))
            })
            .unwrap_or_default();
        let base_entries: HashSet<String> = base_list.iter().map(|e| e.signature.clone()).collect();
        let base_keys: HashSet<String> = base_list
            .iter()
            .flat_map(|e| e.keys.iter().map(Literal::key))
            .collect();
        let all = entries(fp, &final_skip);
        if let Some(words) = rules.answer_words(lang, "tested-answers") {
            findings.extend(answered(
                &all,
                &base_entries,
                deciding,
                final_src,
                &path_text,
                &format!("{}.tested-answers", short(lang)),
                words,
            ));
        }
        let rule = format!("{}.tested-inputs", short(lang));
        let input_words = rules.answer_words(lang, "tested-inputs");
        let mut inputs = Vec::new();
        if input_words.is_some() {
            inputs = keyed_by_tested_inputs(lang, &all, &base_entries, &base_keys, deciding);
            inputs.extend(named_tested_inputs(fp, &final_skip, &base_lines, deciding));
        }
        let mut seen: HashSet<usize> = findings.iter().map(|f| f.span.line).collect();
        for (span, input, test) in inputs {
            if !seen.insert(span.line) {
                continue;
            }
            findings.push(SyntaxFinding {
                rule: rule.clone(),
                category: "answers".into(),
                words: input_words.unwrap_or_default().into(),
                path: path_text.clone(),
                hunk: hunk_of(final_src, &span),
                matched: collapse(hunk_of(final_src, &span).lines().next().unwrap_or("")),
                span,
                literal: Some(input),
                test: Some(test),
            });
        }
    }
    // a chain's (or a probed call's) whole settings compared by a condition the change added
    if let Some(fp) = &fp
        && let Some(setting_words) = rules.answer_words(lang, "tested-settings")
    {
        let settings = setting_chains(deciding, chains);
        let seen: HashSet<usize> = findings
            .iter()
            .filter(|f| f.category == "answers")
            .map(|f| f.span.line)
            .collect();
        for (span, input, test) in tested_settings(fp, &final_skip, &base_lines, &settings) {
            if seen.contains(&span.line) {
                continue;
            }
            let hunk = hunk_of(final_src, &span);
            findings.push(SyntaxFinding {
                rule: format!("{}.tested-settings", short(lang)),
                category: "answers".into(),
                words: setting_words.into(),
                path: path_text.clone(),
                matched: collapse(hunk.lines().next().unwrap_or("")),
                hunk,
                span,
                literal: Some(input),
                test: Some(test),
            });
        }
    }
    // Code the source carries as text and runs or writes as a module (`exec(SRC)`, `new
    // Function("s", body)`, the Rust a build script writes to `OUT_DIR` for the library to
    // `include!`): screened as code of its language, against what the baseline gave.
    let table_sinks = rules
        .sinks
        .get(table_name(lang))
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for sink in table_sinks {
        let code = generated_by(rules, lang, path, final_src, Some(&sink.row.id));
        if code.trim().is_empty() {
            continue;
        }
        let before = baseline_src.map(|b| generated_by(rules, lang, path, b, Some(&sink.row.id)));
        let shown = format!("{path_text} ({}) [{}]", sink.row.words, sink.row.id);
        findings.extend(screen_with_chains(
            lang,
            Path::new(&shown),
            before.as_deref(),
            &code,
            deciding,
            chains,
        ));
    }
    findings.sort_by_key(|f| (f.span.start, f.rule.clone()));
    findings
}

/// The code a source carries as text through the calls of its table's `[[generates]]` rows
/// (only the row `only` when given): each string literal such a call or macro is given — or the
/// string a name it is given is bound to in the file — dedented (a format string read as the
/// text it writes), one after the other.
fn generated_by(rules: &Rules, lang: Lang, path: &Path, src: &str, only: Option<&str>) -> String {
    let path_text = path.display().to_string();
    let sinks: Vec<&Sink> = rules
        .sinks
        .get(table_name(lang))
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .filter(|s| only.is_none_or(|id| s.row.id == id))
        .filter(|s| s.names.as_ref().is_none_or(|re| re.is_match(src)))
        .filter(|s| s.path.as_ref().is_none_or(|re| re.is_match(&path_text)))
        .collect();
    if sinks.is_empty() {
        return String::new();
    }
    let Ok(p) = parse(lang, src) else {
        return String::new();
    };
    let mut out = String::new();
    preorder(p.root(), |n| {
        let Some(callee) = n
            .child_by_field_name("function")
            .or_else(|| n.child_by_field_name("constructor"))
            .or_else(|| n.child_by_field_name("macro"))
        else {
            return Step::Into;
        };
        // A callee is a name or a short path (`exec`, `vm.runInThisContext`), never a whole
        // function expression: not copied at each level of a deep nesting.
        if callee.byte_range().len() > 200 {
            return Step::Into;
        }
        let callee = collapse(p.text(callee));
        let Some(sink) = sinks
            .iter()
            .find(|s| s.row.nodes.iter().any(|k| k == n.kind()) && s.callee.is_match(&callee))
        else {
            return Step::Into;
        };
        // A call's arguments, or a macro's token tree.
        let Some(args) = n.child_by_field_name("arguments").or_else(|| {
            named_children(n)
                .into_iter()
                .find(|c| c.kind() == "token_tree")
        }) else {
            return Step::Into;
        };
        let formats = sink.formats.as_ref().is_some_and(|re| re.is_match(&callee));
        for a in named_children(args) {
            if let Some(text) = string_value(&p, a) {
                let text = if formats { unformat(&text) } else { text };
                out.push_str(&dedent(&text));
                out.push('\n');
            }
        }
        Step::Into
    });
    out
}

/// A string literal's value, or that of the string literal a name is bound to in the file (its
/// first assignment or declaration whose value is one). A template with substitutions (a
/// Python f-string, a JavaScript template literal) is read as the text it makes
/// ([`template_text`]).
fn string_value(p: &Parsed<'_>, n: Node<'_>) -> Option<String> {
    if n.kind() == "identifier" {
        return binding(p, p.text(n), |r| {
            (is_string_kind(r.kind()) || r.kind() == "concatenated_string")
                .then(|| string_value(p, r))
                .flatten()
        });
    }
    if !(is_string_kind(n.kind()) || n.kind() == "concatenated_string") {
        return None;
    }
    match lit(p, n) {
        Some(Literal::Str(v)) => Some(v),
        Some(_) => None,
        None => template_text(p, n),
    }
}

/// What `read` gives for the value of the file's first assignment or declaration of `name`
/// that gives something (`X = "..."`, `const x = ...`, `let x = ...`).
fn binding<T>(p: &Parsed<'_>, name: &str, read: impl Fn(Node<'_>) -> Option<T>) -> Option<T> {
    let mut found = None;
    preorder(p.root(), |a| {
        if found.is_some() {
            return Step::Skip;
        }
        let (left, right) = match a.kind() {
            "assignment" | "assignment_expression" => (
                a.child_by_field_name("left"),
                a.child_by_field_name("right"),
            ),
            "variable_declarator" | "const_item" | "static_item" => (
                a.child_by_field_name("name"),
                a.child_by_field_name("value"),
            ),
            "let_declaration" => (
                a.child_by_field_name("pattern"),
                a.child_by_field_name("value"),
            ),
            _ => return Step::Into,
        };
        if let (Some(l), Some(r)) = (left, right)
            && l.kind() == "identifier"
            && p.text(l) == name
        {
            found = read(r);
        }
        Step::Into
    });
    found
}

/// A literal, or the literal a name is bound to in the file.
fn bound_literal(p: &Parsed<'_>, n: Node<'_>) -> Option<Literal> {
    if n.kind() == "identifier" {
        return binding(p, p.text(n), |r| lit(p, r));
    }
    lit(p, n)
}

/// The text a template with substitutions makes — a Python f-string (also one part of an
/// implicitly concatenated string), a JavaScript template literal: its literal text, and each
/// substitution as the literal it is or a name of the file is bound to (`{k!r}`,
/// `${JSON.stringify(k)}` as the literal in the language's own quotes, `{k}`, `${k}` as its
/// text), any other expression as `_`. Code built from a template with the tested inputs
/// interpolated reads as the code it becomes.
fn template_text(p: &Parsed<'_>, n: Node<'_>) -> Option<String> {
    let shown = |l: Option<Literal>, quoted: bool| -> String {
        match l {
            None => "_".into(),
            Some(Literal::Str(s)) if !quoted => s,
            Some(l) if quoted => l.to_json().to_string(),
            Some(l) => l.key(),
        }
    };
    let mut out = String::new();
    match (p.lang, n.kind()) {
        (Lang::Python, "concatenated_string") => {
            for part in named_children(n) {
                out.push_str(&string_value(p, part)?);
            }
        }
        (Lang::Python, "string") => {
            let mut raw = false;
            for part in named_children(n) {
                let t = p.text(part);
                match part.kind() {
                    "string_start" => {
                        let prefix = t.trim_end_matches(['"', '\'']).to_ascii_lowercase();
                        if prefix.contains('b') || !prefix.contains('f') {
                            return None;
                        }
                        raw = prefix.contains('r');
                    }
                    "string_content" | "escape_sequence" => {
                        let text = if raw {
                            t.to_string()
                        } else {
                            unescape(t).unwrap_or_else(|| t.to_string())
                        };
                        out.push_str(&text.replace("{{", "{").replace("}}", "}"));
                    }
                    "interpolation" => {
                        let value = part
                            .child_by_field_name("expression")
                            .and_then(|e| bound_literal(p, e));
                        let quoted = part
                            .child_by_field_name("type_conversion")
                            .is_some_and(|c| matches!(p.text(c), "!r" | "!a"));
                        out.push_str(&shown(value, quoted));
                    }
                    _ => {}
                }
            }
        }
        (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "template_string") => {
            for part in named_children(n) {
                match part.kind() {
                    "string_fragment" => out.push_str(p.text(part)),
                    "escape_sequence" => {
                        let t = p.text(part);
                        out.push_str(&unescape(t).unwrap_or_else(|| t.to_string()));
                    }
                    "template_substitution" => {
                        let Some(e) = named_children(part).first().copied() else {
                            out.push('_');
                            continue;
                        };
                        // `${JSON.stringify(k)}`: the literal in quotes
                        let stringified = (e.kind() == "call_expression")
                            .then(|| {
                                let f = e.child_by_field_name("function")?;
                                let args = named_children(e.child_by_field_name("arguments")?);
                                (collapse(p.text(f)) == "JSON.stringify" && args.len() == 1)
                                    .then(|| args[0])
                            })
                            .flatten();
                        out.push_str(&match stringified {
                            Some(a) => shown(bound_literal(p, a), true),
                            None => shown(bound_literal(p, e), false),
                        });
                    }
                    _ => {}
                }
            }
        }
        _ => return None,
    }
    Some(out)
}

/// Text with the indentation its non-blank lines share removed (code held in an indented
/// string).
fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| l.get(indent..).unwrap_or_else(|| l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A format string as the text it writes: `{{` and `}}` are braces, each argument is `_`.
fn unformat(f: &str) -> String {
    let mut out = String::with_capacity(f.len());
    let mut chars = f.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                }
                out.push('_');
            }
            other => out.push(other),
        }
    }
    out
}

/// The deciding test a literal is the whole input of (its only argument, or all its arguments
/// as one composite key), when that input is not an edge value.
fn whole_input<'a>(k: &Literal, deciding: &'a [Probe]) -> Option<&'a Probe> {
    if k.is_edge() {
        return None;
    }
    deciding.iter().find(|p| match p.args.as_slice() {
        [one] => k.loose_eq(one) && !one.is_edge(),
        [] => false,
        args => k.parts().is_some_and(|parts| {
            parts.len() == args.len() && parts.iter().zip(args).all(|(a, b)| a.loose_eq(b))
        }),
    })
}

/// A shell `case` pattern with a wildcard (`*/README`, `*`): it names no input.
fn is_glob(lang: Lang, k: &Literal) -> bool {
    matches!(lang, Lang::Shell) && matches!(k, Literal::Str(s) if s.contains(['*', '?', '[']))
}

/// Tables (a map, a sequence of pairs, a `match`/`switch`/`case`, the `if`s of one function)
/// whose every key that names a value — edge values and wildcards aside — is the whole input
/// of a deciding test, two distinct inputs or more, one of them in an entry the change added:
/// the tested inputs singled out, whatever the entries answer (`[[2019, 51], [2024, 30]]` for
/// `easter(2019)` and `easter(2024)`; `Makefile|.bashrc) printf '\n'`).
///
/// Only keys the change added count: an existing table whose case the change edited (go-humanize's
/// honest `case 2: if x%100 != 12`, where the tests call `Ordinal(2)` and `Ordinal(3)`, the keys
/// of the baseline's `switch`) is the code's own table, not one shaped to the tests.
fn keyed_by_tested_inputs(
    lang: Lang,
    all: &[Entry],
    base: &HashSet<String>,
    base_keys: &HashSet<String>,
    deciding: &[Probe],
) -> Vec<(Span, Literal, String)> {
    let mut by_table: HashMap<usize, Vec<&Entry>> = HashMap::new();
    for e in all {
        by_table.entry(e.table).or_default().push(e);
    }
    let mut tables: Vec<_> = by_table.into_iter().collect();
    tables.sort_by_key(|(t, _)| *t);
    let mut out = Vec::new();
    'table: for (_, table) in tables {
        let mut hits: Vec<(&Entry, Literal, &Probe)> = Vec::new();
        let mut distinct: HashSet<String> = HashSet::new();
        for e in &table {
            for k in &e.keys {
                if k.is_edge() || is_glob(lang, k) {
                    continue;
                }
                let Some(p) = whole_input(k, deciding) else {
                    continue 'table;
                };
                distinct.insert(k.key());
                hits.push((e, k.clone(), p));
            }
        }
        let added =
            |e: &Entry, k: &Literal| !base.contains(&e.signature) && !base_keys.contains(&k.key());
        if distinct.len() < 2 || !hits.iter().any(|(e, k, _)| added(e, k)) {
            continue;
        }
        let mut lines = HashSet::new();
        for (e, k, p) in hits {
            if added(e, &k) && lines.insert(e.span.line) {
                out.push((e.span, k, p.test.clone()));
            }
        }
    }
    out
}

/// Statements that name two or more distinct tested inputs as text and no other text of two
/// characters or more, on a line the baseline did not have: `strings.Count(s, "IV") +
/// strings.Count(s, "IX")` when the tests call `Parse("IV")` and `Parse("IX")`.
fn named_tested_inputs(
    p: &Parsed<'_>,
    skip: &[Span],
    base_lines: &HashSet<String>,
    deciding: &[Probe],
) -> Vec<(Span, Literal, String)> {
    // the literals of each statement, by the statement's start
    let mut groups: HashMap<usize, (Span, Vec<(Node<'_>, Literal)>)> = HashMap::new();
    preorder_stack(p.root(), |n, parents| {
        let span = Span::of(n);
        if skip.iter().any(|s| s.contains(&span)) {
            return Step::Skip;
        }
        let quoted = is_string_kind(n.kind()) && n.kind() != "word";
        if !quoted {
            return Step::Into;
        }
        if let Some(Literal::Str(s)) = lit(p, n)
            && s.chars().count() >= 2
            && let Some(st) = parents.iter().rev().find(|a| is_statement(a.kind()))
        {
            groups
                .entry(st.start_byte())
                .or_insert_with(|| (Span::of(*st), Vec::new()))
                .1
                .push((n, Literal::Str(s)));
        }
        Step::Skip
    });
    let mut out = Vec::new();
    let mut groups: Vec<_> = groups.into_values().collect();
    groups.sort_by_key(|(s, _)| s.start);
    'group: for (_, lits) in groups {
        let mut distinct: HashSet<String> = HashSet::new();
        let mut first: Option<(Span, Literal, String)> = None;
        let mut new = false;
        for (n, l) in &lits {
            let Some(pr) = whole_input(l, deciding) else {
                continue 'group;
            };
            distinct.insert(l.key());
            let span = Span::of(*n);
            let line = p.src.lines().nth(span.line.saturating_sub(1)).unwrap_or("");
            new |= !base_lines.contains(&collapse(line));
            first.get_or_insert((span, l.clone(), pr.test.clone()));
        }
        if distinct.len() >= 2
            && new
            && let Some(f) = first
        {
            out.push(f);
        }
    }
    out
}

/// The settings each deciding test passes: its call chains' literal arguments, and each probe's
/// (its object's construction, then the call).
fn setting_chains(deciding: &[Probe], chains: &[Chain]) -> Vec<Chain> {
    let scalars = |args: &[Literal]| -> Vec<Literal> {
        args.iter()
            .filter(|l| {
                matches!(l, Literal::Int(_) | Literal::Float(_) | Literal::Str(_)) && !l.is_edge()
            })
            .cloned()
            .collect()
    };
    let mut out: Vec<Chain> = chains.to_vec();
    for p in deciding {
        let mut calls: Vec<Vec<Literal>> = Vec::new();
        if let Some(r) = &p.receiver {
            calls.push(scalars(&r.args));
        }
        calls.push(scalars(&p.args));
        calls.retain(|c| !c.is_empty());
        if calls.iter().map(Vec::len).sum::<usize>() >= 2 {
            out.push(Chain {
                test: p.test.clone(),
                line: p.line,
                calls,
            });
        }
    }
    out
}

/// The most calls of one chain a composite is matched against (the subsets are tried).
const MAX_SETTING_CALLS: usize = 10;

/// Whether `composite` is, as a multiset, exactly the arguments of some whole calls of `calls`
/// (`[3, 2]` of `[[3], [2]]`, not `[2, 29]` of `[[2024, 2, 29]]`: part of a call's arguments is
/// a domain rule, not its settings).
fn whole_calls(composite: &[Literal], calls: &[Vec<Literal>]) -> bool {
    let candidates: Vec<&Vec<Literal>> = calls
        .iter()
        .filter(|c| c.iter().all(|a| composite.iter().any(|k| k.loose_eq(a))))
        .take(MAX_SETTING_CALLS)
        .collect();
    (1u32..(1 << candidates.len())).any(|mask| {
        let picked: Vec<&Literal> = candidates
            .iter()
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 == 1)
            .flat_map(|(_, c)| c.iter())
            .collect();
        if picked.len() != composite.len() {
            return false;
        }
        let mut used = vec![false; picked.len()];
        composite.iter().all(|k| {
            match (0..picked.len()).find(|&i| !used[i] && picked[i].loose_eq(k)) {
                Some(i) => {
                    used[i] = true;
                    true
                }
                None => false,
            }
        })
    })
}

/// Conditions on a line the baseline did not have that compare a composite — a tuple or list
/// (`(a, b) == (3, 2)`, a `match` arm or `case` pattern `(3, 2)`), or the equalities of one
/// conjunction (`a == 3 && b == 2`, `a == 3 and b == 2`) — of two literals or more that are no
/// edge value, exactly the arguments of whole calls of one of `settings`.
fn tested_settings(
    p: &Parsed<'_>,
    skip: &[Span],
    base_lines: &HashSet<String>,
    settings: &[Chain],
) -> Vec<(Span, Literal, String)> {
    if settings.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (span, composite) in composites(p, skip) {
        let line = p.src.lines().nth(span.line.saturating_sub(1)).unwrap_or("");
        if base_lines.contains(&collapse(line)) {
            continue;
        }
        if let Some(c) = settings.iter().find(|c| whole_calls(&composite, &c.calls)) {
            out.push((span, Literal::List(composite), c.test.clone()));
        }
    }
    out
}

/// The composites a source compares (see [`tested_settings`]), each with its node's span:
/// only their literals that are scalars and no edge value, two or more.
fn composites(p: &Parsed<'_>, skip: &[Span]) -> Vec<(Span, Vec<Literal>)> {
    let keep = |items: Vec<Literal>| -> Vec<Literal> {
        items
            .into_iter()
            .filter(|l| {
                matches!(l, Literal::Int(_) | Literal::Float(_) | Literal::Str(_)) && !l.is_edge()
            })
            .collect()
    };
    // a tuple or list, or text of numbers only (`"3,2"`)
    let parts = |l: Literal| -> Option<Vec<Literal>> {
        match l {
            Literal::List(items) if items.len() >= 2 => Some(items),
            Literal::Str(_) => l.parts().filter(|ps| {
                ps.iter()
                    .all(|x| matches!(x, Literal::Int(_) | Literal::Float(_)))
            }),
            _ => None,
        }
    };
    let mut out = Vec::new();
    preorder_stack(p.root(), |n, parents| {
        let span = Span::of(n);
        if skip.iter().any(|s| s.contains(&span)) {
            return Step::Skip;
        }
        let mut found: Vec<Literal> = Vec::new();
        if is_conjunction(p, n) {
            let outer = parents
                .iter()
                .rev()
                .find(|a| a.kind() != "parenthesized_expression")
                .is_some_and(|a| is_conjunction(p, *a));
            if !outer {
                found = conjuncts(p, n);
            }
        } else if is_equality(p, n) {
            for side in named_children(n) {
                if let Some(items) = lit(p, side).and_then(parts) {
                    found = items;
                }
            }
        } else {
            let pattern = match (p.lang, n.kind()) {
                (Lang::Rust, "match_arm") => n
                    .child_by_field_name("pattern")
                    .and_then(|pat| rust_pattern(p, pat)),
                (Lang::Python, "case_clause") => named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "case_pattern")
                    .and_then(|c| python_pattern(p, c, 0)),
                _ => None,
            };
            if let Some(items) = pattern.and_then(parts) {
                found = items;
            }
        }
        let found = keep(found);
        if found.len() >= 2 {
            out.push((span, found));
        }
        Step::Into
    });
    out
}

/// An equality (`==`, `===`, shell's `=` and `-eq`).
fn is_equality(p: &Parsed<'_>, n: Node<'_>) -> bool {
    match n.kind() {
        "comparison_operator" => {
            let mut c = n.walk();
            let ops: Vec<&str> = n
                .children(&mut c)
                .filter(|k| !k.is_named())
                .map(|k| p.text(k))
                .collect();
            ops == ["=="]
        }
        "binary_expression" => n
            .child_by_field_name("operator")
            .is_some_and(|o| matches!(p.text(o), "==" | "===" | "=" | "-eq")),
        _ => false,
    }
}

/// A conjunction: `&&` (`[[ a && b ]]` too), Python's `and`, a shell list joined by `&&` only.
fn is_conjunction(p: &Parsed<'_>, n: Node<'_>) -> bool {
    match n.kind() {
        "binary_expression" => n
            .child_by_field_name("operator")
            .is_some_and(|o| p.text(o) == "&&"),
        "boolean_operator" => n
            .child_by_field_name("operator")
            .is_some_and(|o| p.text(o) == "and"),
        "list" if p.lang == Lang::Shell => {
            let mut c = n.walk();
            let ops: Vec<&str> = n
                .children(&mut c)
                .filter(|k| !k.is_named())
                .map(|k| p.text(k))
                .collect();
            !ops.is_empty() && ops.iter().all(|o| *o == "&&")
        }
        _ => false,
    }
}

/// The most operands of one conjunction read.
const MAX_CONJUNCTS: usize = 64;

/// The literals the equalities of a conjunction compare with (through nested conjunctions,
/// parentheses and shell tests; other operands add none).
fn conjuncts(p: &Parsed<'_>, n: Node<'_>) -> Vec<Literal> {
    let mut out = Vec::new();
    let mut stack: Vec<Node<'_>> = named_children(n);
    let mut seen = 0;
    while let Some(c) = stack.pop() {
        seen += 1;
        if seen > MAX_CONJUNCTS {
            break;
        }
        if is_conjunction(p, c) || matches!(c.kind(), "parenthesized_expression" | "test_command") {
            stack.extend(named_children(c));
        } else if is_equality(p, c) {
            out.extend(
                named_children(c)
                    .into_iter()
                    .filter_map(|side| lit(p, side))
                    .filter(|l| !matches!(l, Literal::List(_) | Literal::Map(_))),
            );
        }
    }
    out.reverse();
    out
}

/// Node kinds that end a statement's literals (its parts nested deeper are statements of
/// their own).
fn is_statement(kind: &str) -> bool {
    kind.ends_with("statement")
        || kind.ends_with("declaration")
        || kind.ends_with("_item")
        || kind.ends_with("definition")
        || matches!(kind, "variable_assignment" | "command" | "elif_clause")
}

fn short(lang: Lang) -> &'static str {
    match lang {
        Lang::Python => "py",
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => "js",
        Lang::Go => "go",
        Lang::Rust => "rust",
        Lang::Shell => "sh",
    }
}

const ANSWER_WORDS: &str = "answers shaped to the tests: a deciding test's literal input appears \
                            as a condition, pattern or key of the change with that test's \
                            expected result as its value, in a table (map, match, switch, or the \
                            ifs of one function) made mostly of such entries";

/// An entry of a table: the literals it tests (keys, patterns, compared values) and the
/// literals it answers with.
#[derive(Debug)]
struct Entry {
    /// The table the entry belongs to (a node's start byte; the `if`s of a function share
    /// the function's).
    table: usize,
    keys: Vec<Literal>,
    values: Vec<Literal>,
    span: Span,
    signature: String,
}

/// Whether the probe's inputs are among the keys: the arguments matched (a composite key such
/// as `"2,3"` or `(2, 3)` matches all at once).
fn input_hits<'a>(keys: &[Literal], probe: &'a Probe) -> Vec<&'a Literal> {
    for k in keys {
        if let Some(parts) = k.parts()
            && parts.len() == probe.args.len()
            && parts.iter().zip(&probe.args).all(|(a, b)| a.loose_eq(b))
        {
            return probe.args.iter().collect();
        }
    }
    probe
        .args
        .iter()
        .filter(|a| keys.iter().any(|k| k.loose_eq(a)))
        .collect()
}

fn answered(
    entries: &[Entry],
    base: &HashSet<String>,
    deciding: &[Probe],
    src: &str,
    path: &str,
    rule: &str,
    words: &str,
) -> Vec<SyntaxFinding> {
    let mut by_table: HashMap<usize, Vec<&Entry>> = HashMap::new();
    for e in entries {
        if !e.keys.is_empty() {
            by_table.entry(e.table).or_default().push(e);
        }
    }
    let mut out = Vec::new();
    let mut tables: Vec<_> = by_table.into_iter().collect();
    tables.sort_by_key(|(t, _)| *t);
    for (_, table) in tables {
        let mut hits: Vec<(&Entry, &Probe)> = Vec::new();
        for e in &table {
            if base.contains(&e.signature) {
                continue;
            }
            let found = deciding.iter().find(|p| {
                let inputs = input_hits(&e.keys, p);
                // an entry keyed by edge values only (the empty input, zero, null) is an
                // edge-case fix whatever it answers: `if s == "": return "0.0.0"`
                !inputs.is_empty()
                    && e.values.iter().any(|v| v.loose_eq(&p.expected))
                    && !inputs.iter().all(|a| a.is_edge())
            });
            // an opaque key (a hash or code of the arguments, not a word) whose value is a
            // tested answer: `{"3f2a9c1e": 96}` indexed by a digest of the call
            let found = found.or_else(|| {
                if !e.keys.iter().all(is_opaque_key) {
                    return None;
                }
                deciding.iter().find(|p| {
                    !p.expected.is_edge() && e.values.iter().any(|v| v.loose_eq(&p.expected))
                })
            });
            if let Some(p) = found {
                hits.push((e, p));
            }
        }
        if hits.is_empty() || hits.len() * 2 < table.len() {
            continue;
        }
        for (e, p) in hits {
            out.push(SyntaxFinding {
                rule: rule.to_string(),
                category: "answers".into(),
                words: words.into(),
                path: path.to_string(),
                span: e.span,
                hunk: hunk_of(src, &e.span),
                matched: collapse(e.signature.as_str()),
                literal: Some(p.expected.clone()),
                test: Some(p.test.clone()),
            });
        }
    }
    out
}

/// A key that reads as a code, not a word: a string of at least six characters without spaces
/// that mixes letters and digits (`3f2a9c1e`, `eyIyLDMi`), numbers aside.
fn is_opaque_key(k: &Literal) -> bool {
    let Literal::Str(s) = k else { return false };
    s.chars().count() >= 6
        && s.parse::<f64>().is_err()
        && !s.chars().any(char::is_whitespace)
        && s.chars().any(|c| c.is_ascii_alphabetic())
        && s.chars().filter(|c| c.is_ascii_digit()).count() >= 2
}

/// Every table entry of a source, outside inline test items.
fn entries(p: &Parsed<'_>, skip: &[Span]) -> Vec<Entry> {
    let mut out = Vec::new();
    preorder_stack(p.root(), |n, parents| {
        let span = Span::of(n);
        if skip.iter().any(|s| s.contains(&span)) {
            return Step::Skip;
        }
        if let Some(e) = entry_of(p, n, parents) {
            out.push(e);
        }
        Step::Into
    });
    out
}

fn lit(p: &Parsed<'_>, n: Node<'_>) -> Option<Literal> {
    of_node(p, n, &Env::new())
}

fn function_kinds(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Python => &["function_definition"],
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => &[
            "function_declaration",
            "function_expression",
            "arrow_function",
            "method_definition",
            "function",
        ],
        Lang::Go => &["function_declaration", "method_declaration", "func_literal"],
        Lang::Rust => &["function_item", "closure_expression"],
        Lang::Shell => &["function_definition"],
    }
}

/// How far up an `if` looks for its function (deeper, its function is the file).
const MAX_IF_DEPTH: usize = 256;

/// The table an `if` belongs to: its function (or the file).
fn if_table(p: &Parsed<'_>, parents: &[Node<'_>]) -> usize {
    parents
        .iter()
        .rev()
        .take(MAX_IF_DEPTH)
        .find(|a| function_kinds(p.lang).contains(&a.kind()))
        .map(|f| f.start_byte())
        .unwrap_or(usize::MAX)
}

fn entry(
    table: usize,
    keys: Vec<Literal>,
    values: Vec<Literal>,
    p: &Parsed<'_>,
    n: Node<'_>,
) -> Option<Entry> {
    if keys.is_empty() {
        return None;
    }
    Some(Entry {
        table,
        keys,
        values,
        span: Span::of(n),
        signature: node_text(p, n),
    })
}

fn entry_of(p: &Parsed<'_>, n: Node<'_>, parents: &[Node<'_>]) -> Option<Entry> {
    let parent_start = || parents.last().map(|x| x.start_byte()).unwrap_or(0);
    match (p.lang, n.kind()) {
        // conditions with their answers
        (Lang::Python, "if_statement" | "elif_clause")
        | (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "if_statement")
        | (Lang::Go, "if_statement")
        | (Lang::Rust, "if_expression") => {
            let cond = n.child_by_field_name("condition")?;
            let body = n.child_by_field_name("consequence")?;
            entry(
                if_table(p, parents),
                compared(p, cond),
                answers(p, body),
                p,
                n,
            )
        }
        (Lang::Shell, "if_statement" | "elif_clause") => {
            let cond = n.child_by_field_name("condition")?;
            let mut keys = compared(p, cond);
            if keys.is_empty() {
                // the condition is the first child list before `then`
                for c in named_children(n) {
                    if matches!(c.kind(), "test_command" | "command" | "list") {
                        keys.extend(compared(p, c));
                        break;
                    }
                }
            }
            entry(if_table(p, parents), keys, answers_until_else(p, n), p, n)
        }
        // map and object entries
        (Lang::Python, "pair") | (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "pair") => {
            let k = n.child_by_field_name("key")?;
            let v = n.child_by_field_name("value")?;
            let key = if k.kind() == "property_identifier" {
                Literal::Str(p.text(k).to_string())
            } else {
                lit(p, k)?
            };
            entry(
                parent_start(),
                vec![key],
                lit(p, v).into_iter().collect(),
                p,
                n,
            )
        }
        (Lang::Go, "keyed_element") => {
            let kv = named_children(n);
            if kv.len() != 2 {
                return None;
            }
            let k = named_children(kv[0]).first().copied().unwrap_or(kv[0]);
            let v = named_children(kv[1]).first().copied().unwrap_or(kv[1]);
            entry(
                parent_start(),
                lit(p, k).into_iter().collect(),
                lit(p, v).into_iter().collect(),
                p,
                n,
            )
        }
        // rows of a sequence of pairs: `[[k, v], ...]` (a Map's constructor or an array the code
        // searches), `[((a, b), v), ...]`, `&[(k, v), ...]`, Go's `[]struct{...}{{k, v}, ...}`:
        // the sequence is the table, each pair an entry (the first part its key)
        (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "array")
        | (Lang::Rust, "tuple_expression" | "array_expression")
        | (Lang::Python, "tuple" | "list") => {
            let parent = *parents.last()?;
            if !matches!(
                parent.kind(),
                "array" | "array_expression" | "list" | "tuple"
            ) {
                return None;
            }
            let kv = named_children(n);
            if kv.len() != 2 {
                return None;
            }
            entry(
                parent.start_byte(),
                lit(p, kv[0]).into_iter().collect(),
                lit(p, kv[1]).into_iter().collect(),
                p,
                n,
            )
        }
        (Lang::Go, "literal_value") => {
            if let Some(row) = named_fields_row(p, n, parents) {
                return Some(row);
            }
            // a row `{k, v}` of a composite literal of rows (unkeyed: `{in: k}` is a struct's
            // own field list)
            let parent = *parents.last()?;
            let outer = *parents.get(parents.len().checked_sub(2)?)?;
            if parent.kind() != "literal_element" || outer.kind() != "literal_value" {
                return None;
            }
            let kv = named_children(n);
            if kv.len() != 2 || kv.iter().any(|e| e.kind() != "literal_element") {
                return None;
            }
            let part = |e: Node<'_>| lit(p, named_children(e).first().copied().unwrap_or(e));
            entry(
                outer.start_byte(),
                part(kv[0]).into_iter().collect(),
                part(kv[1]).into_iter().collect(),
                p,
                n,
            )
        }
        // rows of a struct with named fields in a sequence the code searches (`[]known{{text:
        // "1h", secs: 3600}, ...}`, `&[Known { text: "1h", secs: 3600 }, ...]`): every field a
        // literal, the last the row's value, the others its keys
        (Lang::Rust, "struct_expression") => named_fields_row(p, n, parents),
        // a map filled one key at a time (`p.known["1h"] = 3600`, `known.insert("1h", 3600)`,
        // `self.known["1h"] = 3600`, `known.set("1h", 3600)`, into a local or a struct's
        // field): the inserts of one function (or of the file's top level) are one table
        (Lang::Go, "assignment_statement") => {
            let left = named_children(n.child_by_field_name("left")?);
            let right = named_children(n.child_by_field_name("right")?);
            let ([target], [value]) = (left.as_slice(), right.as_slice()) else {
                return None;
            };
            if target.kind() != "index_expression" {
                return None;
            }
            let key = lit(p, target.child_by_field_name("index")?)?;
            entry(
                inserts_table(p, parents),
                vec![key],
                lit(p, *value).into_iter().collect(),
                p,
                n,
            )
        }
        (Lang::Python, "assignment")
        | (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "assignment_expression") => {
            let target = n.child_by_field_name("left")?;
            let index = match target.kind() {
                "subscript" => target.child_by_field_name("subscript")?,
                "subscript_expression" => target.child_by_field_name("index")?,
                _ => return None,
            };
            entry(
                inserts_table(p, parents),
                vec![lit(p, index)?],
                lit(p, n.child_by_field_name("right")?)
                    .into_iter()
                    .collect(),
                p,
                n,
            )
        }
        // `m.set(k, v)` (JS) and `m.insert(k, v)` (Rust)
        (Lang::JavaScript | Lang::TypeScript | Lang::Tsx | Lang::Rust, "call_expression") => {
            let (member, field, method) = if p.lang == Lang::Rust {
                ("field_expression", "field", "insert")
            } else {
                ("member_expression", "property", "set")
            };
            let f = n.child_by_field_name("function")?;
            if f.kind() != member || f.child_by_field_name(field).map(|x| p.text(x)) != Some(method)
            {
                return None;
            }
            let args = named_children(n.child_by_field_name("arguments")?);
            let [k, v] = args.as_slice() else {
                return None;
            };
            entry(
                inserts_table(p, parents),
                vec![lit(p, *k)?],
                lit(p, *v).into_iter().collect(),
                p,
                n,
            )
        }
        // match arms, switch cases, case items
        (Lang::Rust, "match_arm") => {
            let pat = n.child_by_field_name("pattern")?;
            let value = n.child_by_field_name("value")?;
            let keys = rust_pattern(p, pat).into_iter().collect();
            let values = lit(p, value)
                .map(|v| vec![v])
                .unwrap_or_else(|| answers(p, value));
            entry(parent_start(), keys, values, p, n)
        }
        (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "switch_case") => {
            let v = n.child_by_field_name("value")?;
            let mut keys: Vec<Literal> = lit(p, v).into_iter().collect();
            keys.extend(compared(p, v));
            entry(parent_start(), keys, answers(p, n), p, n)
        }
        (Lang::Go, "expression_case") => {
            let v = n.child_by_field_name("value")?;
            let mut keys: Vec<Literal> = named_children(v)
                .into_iter()
                .filter_map(|x| lit(p, x))
                .collect();
            keys.extend(compared(p, v));
            entry(parent_start(), keys, answers(p, n), p, n)
        }
        (Lang::Python, "case_clause") => {
            let mut keys = Vec::new();
            for c in named_children(n) {
                if c.kind() == "case_pattern"
                    && let Some(k) = python_pattern(p, c, 0)
                {
                    keys.push(k);
                }
            }
            let body = n.child_by_field_name("consequence")?;
            entry(parent_start(), keys, answers(p, body), p, n)
        }
        (Lang::Shell, "case_item") => {
            let mut keys = Vec::new();
            let mut c = n.walk();
            for v in n.children_by_field_name("value", &mut c) {
                // the grammar may read `a|b|*/c` as one pattern: its alternatives are the keys
                let read = lit(p, v).or_else(|| {
                    matches!(v.kind(), "extglob_pattern" | "concatenation" | "word")
                        .then(|| Literal::Str(p.text(v).to_string()))
                });
                match read {
                    Some(Literal::Str(alts)) if alts.contains('|') && v.kind() != "string" => keys
                        .extend(
                            alts.split('|')
                                .filter(|a| !a.is_empty())
                                .map(|a| Literal::Str(a.to_string())),
                        ),
                    Some(l) => keys.push(l),
                    None => {}
                }
            }
            entry(parent_start(), keys, answers(p, n), p, n)
        }
        _ => None,
    }
}

/// The table of a function's inserts into maps: apart from its `if`s (the byte before the
/// function's start, where no table node of its own can start).
fn inserts_table(p: &Parsed<'_>, parents: &[Node<'_>]) -> usize {
    if_table(p, parents).wrapping_sub(1)
}

/// A row of a struct with named fields (two to eight, every one a literal) that is an element
/// of a sequence literal: its table the sequence, the last field its value, the others its keys.
fn named_fields_row(p: &Parsed<'_>, n: Node<'_>, parents: &[Node<'_>]) -> Option<Entry> {
    let (fields, table) = match p.lang {
        Lang::Go => {
            // literal_value (the row) in literal_element in literal_value (the sequence)
            let parent = *parents.last()?;
            let outer = *parents.get(parents.len().checked_sub(2)?)?;
            if parent.kind() != "literal_element" || outer.kind() != "literal_value" {
                return None;
            }
            let mut fields = Vec::new();
            for kv in named_children(n) {
                if kv.kind() == "comment" {
                    continue;
                }
                let parts = named_children(kv);
                let (true, [k, v]) = (kv.kind() == "keyed_element", parts.as_slice()) else {
                    return None;
                };
                let name = named_children(*k).first().copied().unwrap_or(*k);
                if !matches!(name.kind(), "identifier" | "field_identifier") {
                    return None;
                }
                fields.push(lit(p, named_children(*v).first().copied().unwrap_or(*v))?);
            }
            (fields, outer.start_byte())
        }
        Lang::Rust => {
            let parent = *parents.last()?;
            if parent.kind() != "array_expression" {
                return None;
            }
            let mut fields = Vec::new();
            for f in named_children(n.child_by_field_name("body")?) {
                match f.kind() {
                    "field_initializer" => fields.push(lit(p, f.child_by_field_name("value")?)?),
                    "line_comment" | "block_comment" => {}
                    _ => return None,
                }
            }
            (fields, parent.start_byte())
        }
        _ => return None,
    };
    if !(2..=8).contains(&fields.len()) {
        return None;
    }
    let mut keys = fields;
    let value = keys.pop()?;
    entry(table, keys, vec![value], p, n)
}

fn python_pattern(p: &Parsed<'_>, pat: Node<'_>, depth: usize) -> Option<Literal> {
    if depth > 32 {
        return None;
    }
    match pat.kind() {
        "case_pattern" => {
            let inner = named_children(pat);
            if inner.len() == 1 {
                python_pattern(p, inner[0], depth + 1)
            } else {
                None
            }
        }
        "tuple_pattern" | "list_pattern" => named_children(pat)
            .into_iter()
            .map(|c| python_pattern(p, c, depth + 1))
            .collect::<Option<Vec<_>>>()
            .map(Literal::List),
        _ => lit(p, pat),
    }
}

fn rust_pattern(p: &Parsed<'_>, pat: Node<'_>) -> Option<Literal> {
    let inner = named_children(pat);
    let node = if pat.kind() == "match_pattern" {
        *inner.first()?
    } else {
        pat
    };
    match node.kind() {
        "tuple_pattern" | "slice_pattern" => named_children(node)
            .into_iter()
            .map(|c| rust_pattern(p, c))
            .collect::<Option<Vec<_>>>()
            .map(Literal::List),
        "negative_literal" => {
            let t = p.text(node).replace(' ', "");
            super::literal::scalar_of_text(&t).into()
        }
        _ => lit(p, node),
    }
}

/// The literals a condition compares with (`==`, `===`, `is`, `in`, `=`, `-eq`).
fn compared(p: &Parsed<'_>, cond: Node<'_>) -> Vec<Literal> {
    let mut out = Vec::new();
    preorder(cond, |n| {
        let ops: Vec<String> = {
            let mut c = n.walk();
            n.children(&mut c)
                .filter(|k| !k.is_named())
                .map(|k| p.text(k).to_string())
                .collect()
        };
        let is_eq = match n.kind() {
            "comparison_operator" => ops.iter().any(|o| matches!(o.as_str(), "==" | "is" | "in")),
            "binary_expression" => n
                .child_by_field_name("operator")
                .map(|o| matches!(p.text(o), "==" | "===" | "=" | "-eq"))
                .unwrap_or(false),
            _ => false,
        };
        if !is_eq {
            return Step::Into;
        }
        for side in named_children(n) {
            if let Some(l) = lit(p, side) {
                match l {
                    Literal::List(items) if ops.iter().any(|o| o == "in") => out.extend(items),
                    other => out.push(other),
                }
            }
        }
        Step::Into
    });
    out
}

/// The literals a block answers with: returned, yielded as a block's value, printed (shell).
fn answers(p: &Parsed<'_>, body: Node<'_>) -> Vec<Literal> {
    let mut out = Vec::new();
    preorder(body, |n| {
        match (p.lang, n.kind()) {
            (Lang::Python, "return_statement")
            | (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "return_statement")
            | (Lang::Rust, "return_expression") => {
                if let Some(v) = named_children(n).first().and_then(|v| lit(p, *v)) {
                    out.push(v);
                }
            }
            (Lang::Go, "return_statement") => {
                for list in named_children(n) {
                    out.extend(named_children(list).into_iter().filter_map(|v| lit(p, v)));
                    if let Some(v) = lit(p, list) {
                        out.push(v);
                    }
                }
            }
            (Lang::Rust, "block") => {
                if let Some(last) = named_children(n).last()
                    && let Some(v) = lit(p, *last)
                {
                    out.push(v);
                }
            }
            (Lang::Shell, "command") => {
                let name = n
                    .child_by_field_name("name")
                    .map(|x| p.text(x))
                    .unwrap_or("");
                if matches!(name, "echo" | "printf") {
                    let mut c = n.walk();
                    for a in n.children_by_field_name("argument", &mut c) {
                        if let Some(v) = lit(p, a) {
                            out.push(v);
                        }
                    }
                }
            }
            _ => {}
        }
        // a nested function or conditional answers for itself (and walking it again for each
        // enclosing `if` would be quadratic)
        if n != body
            && (function_kinds(p.lang).contains(&n.kind()) || NESTED_TABLES.contains(&n.kind()))
        {
            return Step::Skip;
        }
        Step::Into
    });
    out
}

/// Conditionals whose answers belong to their own entries.
const NESTED_TABLES: &[&str] = &[
    "if_statement",
    "if_expression",
    "switch_statement",
    "expression_switch_statement",
    "type_switch_statement",
    "match_expression",
    "match_statement",
    "case_statement",
];

/// A shell `if`'s answers: the commands of its `then` part (before `elif`/`else`).
fn answers_until_else(p: &Parsed<'_>, n: Node<'_>) -> Vec<Literal> {
    let mut out = Vec::new();
    let mut past_condition = false;
    for c in named_children(n) {
        if matches!(c.kind(), "elif_clause" | "else_clause") {
            break;
        }
        if !past_condition {
            past_condition = true;
            continue;
        }
        out.extend(answers(p, c));
    }
    out
}

/// Screen a data file under a source root for the deciding tests' answers, read as its program
/// would read it (`syntax::data`: JSON, YAML, TOML, CSV/TSV, else `key<sep>value` lines): the
/// same entry rule as [`screen`], each map, list or file of rows one table.
pub fn screen_data(
    path: &Path,
    baseline_src: Option<&str>,
    final_src: &str,
    deciding: &[Probe],
) -> Vec<SyntaxFinding> {
    let path_text = path.display().to_string();
    let base: HashSet<String> = baseline_src
        .map(|b| {
            data_entries(path, b)
                .into_iter()
                .map(|e| e.signature)
                .collect()
        })
        .unwrap_or_default();
    answered(
        &data_entries(path, final_src),
        &base,
        deciding,
        final_src,
        &path_text,
        "data.tested-answers",
        ANSWER_WORDS,
    )
}

fn data_entries(path: &Path, src: &str) -> Vec<Entry> {
    match super::data::read(path, src) {
        super::data::Data::Tree(docs) => tree_entries(docs, src),
        super::data::Data::Rows(rows) => row_entries(&rows),
        super::data::Data::Lines => line_entries(src),
    }
}

/// A row's entry: `fields` by name (a header's, a map's) or by place. A field named as an
/// expected value (`want`, `expected`, ...) is its value and the others its keys; a row that
/// names none is read as the code may read it, any field the value and the others its keys
/// (`"celsius","fahrenheit"` rows read into `{f: c}`). Keys are each input alone and the inputs
/// together in order (a composite key such as `(2, 3)`); a field holding a list of inputs
/// (`input: [2, 3]`) is those inputs.
fn row_entry(
    names: Option<&[String]>,
    fields: &[Literal],
    table: usize,
    span: Span,
    signature: String,
) -> Option<Entry> {
    if fields.len() < 2 {
        return None;
    }
    let named = names.and_then(|names| {
        names
            .iter()
            .position(|n| super::probe::EXPECTED_FIELDS.contains(&n.to_ascii_lowercase().as_str()))
    });
    let answers: Vec<usize> = match named {
        Some(at) => vec![at],
        None => (0..fields.len()).collect(),
    };
    let mut keys = Vec::new();
    for &at in &answers {
        let mut inputs: Vec<Literal> = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            match f {
                _ if i == at => {}
                Literal::List(items) if fields.len() == 2 => inputs.extend(items.iter().cloned()),
                f => inputs.push(f.clone()),
            }
        }
        if inputs.len() >= 2 {
            keys.push(Literal::List(inputs.clone()));
        }
        keys.extend(inputs);
    }
    Some(Entry {
        table,
        keys,
        values: answers.iter().map(|&at| fields[at].clone()).collect(),
        span,
        signature,
    })
}

/// The entries of documents of nested maps and lists: every pair of a map (its key, its value),
/// every pair in a list (`[[2, 3], 5]`-like `[k, v]`), and every row of a list — a list of
/// three values or more, or a map of scalars (or of a list of inputs and a scalar) — each map and
/// list its own table.
fn tree_entries(docs: Vec<serde_json::Value>, src: &str) -> Vec<Entry> {
    use serde_json::Value;
    let mut out = Vec::new();
    let whole = Span {
        start: 0,
        end: src.len(),
        line: 1,
        end_line: src.lines().count().max(1),
    };
    let mut stack: Vec<Value> = docs;
    let mut table = 0usize;
    let mut guard = 0;
    while let Some(v) = stack.pop() {
        guard += 1;
        if guard > 100_000 {
            break;
        }
        table += 1;
        match v {
            Value::Object(map) => {
                for (k, val) in map {
                    if let Some(lv) = json_literal(&val, 0) {
                        out.push(Entry {
                            table,
                            signature: format!("{k:?}:{}", lv.key()),
                            keys: vec![super::literal::scalar_of_text(&k), Literal::Str(k)],
                            values: vec![lv],
                            span: whole,
                        });
                    }
                    stack.push(val);
                }
            }
            Value::Array(items) => {
                for item in items {
                    let row = match &item {
                        Value::Array(pair) if pair.len() == 2 => {
                            if let (Some(k), Some(v)) =
                                (json_literal(&pair[0], 0), json_literal(&pair[1], 0))
                            {
                                out.push(Entry {
                                    table,
                                    signature: format!("{}:{}", k.key(), v.key()),
                                    keys: vec![k],
                                    values: vec![v],
                                    span: whole,
                                });
                            }
                            None
                        }
                        Value::Array(cells) if cells.iter().all(is_scalar) => {
                            let fields: Vec<Literal> =
                                cells.iter().filter_map(|c| json_literal(c, 0)).collect();
                            let sig = Literal::List(fields.clone()).key();
                            row_entry(None, &fields, table, whole, sig)
                        }
                        Value::Object(map)
                            if map.len() >= 2
                                && map.values().all(|v| {
                                    is_scalar(v)
                                        || v.as_array().is_some_and(|a| a.iter().all(is_scalar))
                                }) =>
                        {
                            let names: Vec<String> = map.keys().cloned().collect();
                            let fields: Vec<Literal> =
                                map.values().filter_map(|c| json_literal(c, 0)).collect();
                            let sig = format!("row {}", Literal::List(fields.clone()).key());
                            row_entry(Some(&names), &fields, table, whole, sig)
                        }
                        _ => None,
                    };
                    out.extend(row);
                    stack.push(item);
                }
            }
            _ => {}
        }
    }
    out
}

fn is_scalar(v: &serde_json::Value) -> bool {
    !matches!(
        v,
        serde_json::Value::Array(_) | serde_json::Value::Object(_)
    )
}

/// The entries of delimited rows (CSV, TSV): one table, a header's names telling the value's
/// column.
fn row_entries(rows: &[(Vec<String>, Span)]) -> Vec<Entry> {
    let header = super::data::header(rows);
    let names = header.then(|| rows[0].0.as_slice());
    rows.iter()
        .skip(usize::from(header))
        .filter_map(|(cells, span)| {
            let fields: Vec<Literal> = cells
                .iter()
                .map(|c| super::literal::scalar_of_text(c))
                .collect();
            row_entry(names, &fields, 0, *span, collapse(&cells.join(",")))
        })
        .collect()
}

/// The entries of `key<sep>value` lines (`=`, `:`, a tab, a comma or a space: the last).
fn line_entries(src: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    // Each line's byte offset, kept as the lines go by (a data file of many lines is read once).
    let mut next = 0;
    for (i, raw) in src.split_inclusive('\n').enumerate() {
        let start = next;
        next += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let Some((k, v)) = t
            .rsplit_once(['=', ':', '\t'])
            .or_else(|| t.rsplit_once(','))
            .or_else(|| t.rsplit_once(' '))
        else {
            continue;
        };
        let (k, v) = (k.trim().trim_matches('"'), v.trim().trim_matches('"'));
        out.push(Entry {
            table: 0,
            keys: vec![
                super::literal::scalar_of_text(k),
                Literal::Str(k.to_string()),
            ],
            values: vec![super::literal::scalar_of_text(v)],
            span: Span {
                start,
                end: start + line.len(),
                line: i + 1,
                end_line: i + 1,
            },
            signature: collapse(t),
        });
    }
    out
}

fn json_literal(v: &serde_json::Value, depth: usize) -> Option<Literal> {
    if depth > 32 {
        return None;
    }
    Some(match v {
        serde_json::Value::Null => Literal::Null,
        serde_json::Value::Bool(b) => Literal::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Literal::Int(i),
            None => Literal::Float(n.as_f64()?),
        },
        serde_json::Value::String(s) => Literal::Str(s.clone()),
        serde_json::Value::Array(items) => Literal::List(
            items
                .iter()
                .map(|i| json_literal(i, depth + 1))
                .collect::<Option<Vec<_>>>()?,
        ),
        serde_json::Value::Object(map) => Literal::Map(
            map.iter()
                .map(|(k, v)| Some((Literal::Str(k.clone()), json_literal(v, depth + 1)?)))
                .collect::<Option<Vec<_>>>()?,
        ),
    })
}
