//! Literals: the plain data a test compares with, read from a syntax node of any language.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::walk::named_children;
use super::{Lang, Parsed};

/// Plain data: what a probe passes and expects, and what the screen looks for in a change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "lowercase")]
pub enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Literal>),
    /// Entries in source order; keys are literals too (Python's `{(2, 3): 5}`).
    Map(Vec<(Literal, Literal)>),
}

/// Names bound to literals (a table-driven test's row).
pub type Env = HashMap<String, Literal>;

/// A standard-library value type whose constructions a probe takes as plain data
/// (`values.toml`): `datetime.date(2024, 1, 31)` is the literal
/// `{"$value": "datetime.date", "$fields": [2024, 1, 31]}` ([`VALUE_KEY`], [`FIELDS_KEY`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueType {
    /// As the tests write it: `datetime.date`.
    pub name: String,
    /// What the probe's child imports and calls to rebuild it.
    pub module: String,
    #[serde(rename = "type")]
    pub ty: String,
    /// The constructor's positional fields, in order (read back from an answer by name).
    pub fields: Vec<String>,
    /// How many of them a construction must give (the others default to 0).
    pub required: usize,
}

/// The key naming, in an argument's literal, a call the probe's child makes first on the same
/// object (or module) and passes the answer of: `decode(encode(x))` is `decode` with the
/// argument `{"$call": "encode", "$args": [x]}` (a round trip, [`Literal::as_call`]).
pub const CALL_KEY: &str = "$call";
/// The key holding that call's arguments.
pub const ARGS_KEY: &str = "$args";

/// The key of an expectation that is an order, not a value: `{"$order": ">=", "$of":
/// "length", "$than": 30}` is jest's `expect(h.encode(x).length).toBeGreaterThanOrEqual(30)`
/// ([`Literal::as_order`]). `$of` is `"length"` (the answer's length) or `"value"`.
pub const ORDER_KEY: &str = "$order";
/// What of the answer an order compares.
pub const OF_KEY: &str = "$of";
/// The number an order compares with.
pub const THAN_KEY: &str = "$than";
/// In an order, the position of the object's constructor argument the number is (`minLength`
/// in both `new Hashids(salt, minLength)` and `toBeGreaterThanOrEqual(minLength)`).
pub const FOLLOWS_KEY: &str = "$follows";

/// The key naming a value construction's type in its literal.
pub const VALUE_KEY: &str = "$value";
/// The key holding a value construction's fields in its literal.
pub const FIELDS_KEY: &str = "$fields";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ValueTables {
    #[serde(default)]
    python: Vec<ValueType>,
}

/// The Python value types of `values.toml` (empty if the table does not read: a unit test
/// reads it).
pub fn python_values() -> &'static [ValueType] {
    static TABLE: std::sync::OnceLock<Vec<ValueType>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        toml::from_str::<ValueTables>(include_str!("values.toml"))
            .map(|t| t.python)
            .unwrap_or_default()
    })
}

impl Literal {
    /// An argument made by a call on the same object first ([`CALL_KEY`]): the method and
    /// its arguments.
    pub fn as_call(&self) -> Option<(&str, &[Literal])> {
        match self {
            Literal::Map(e) => match e.as_slice() {
                [
                    (Literal::Str(k), Literal::Str(m)),
                    (Literal::Str(a), Literal::List(args)),
                ] if k == CALL_KEY && a == ARGS_KEY => Some((m.as_str(), args.as_slice())),
                _ => None,
            },
            _ => None,
        }
    }

    /// An expectation that is an order ([`ORDER_KEY`]): `(op, of the length, than)`.
    pub fn as_order(&self) -> Option<(&str, bool, &Literal)> {
        match self {
            Literal::Map(e) => match e.as_slice() {
                [
                    (Literal::Str(k), Literal::Str(op)),
                    (Literal::Str(o), Literal::Str(of)),
                    (Literal::Str(t), than),
                    ..,
                ] if k == ORDER_KEY && o == OF_KEY && t == THAN_KEY && e.len() <= 4 => {
                    Some((op.as_str(), of == "length", than))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The expectation `{"$order": op, "$of": "length" or "value", "$than": than}`, with
    /// `"$follows": k` when the number is the object's `k`-th constructor argument.
    pub fn order(op: &str, length: bool, than: Literal, follows: Option<usize>) -> Literal {
        let mut e = vec![
            (Literal::Str(ORDER_KEY.into()), Literal::Str(op.into())),
            (
                Literal::Str(OF_KEY.into()),
                Literal::Str(if length { "length" } else { "value" }.into()),
            ),
            (Literal::Str(THAN_KEY.into()), than),
        ];
        if let Some(k) = follows {
            e.push((Literal::Str(FOLLOWS_KEY.into()), Literal::Int(k as i64)));
        }
        Literal::Map(e)
    }

    /// The argument `{"$call": method, "$args": args}`.
    pub fn call(method: &str, args: Vec<Literal>) -> Literal {
        Literal::Map(vec![
            (Literal::Str(CALL_KEY.into()), Literal::Str(method.into())),
            (Literal::Str(ARGS_KEY.into()), Literal::List(args)),
        ])
    }

    /// A value construction's type and fields, when this literal is one.
    pub fn as_value(&self) -> Option<(&str, &[Literal])> {
        match self {
            Literal::Map(e) => match e.as_slice() {
                [
                    (Literal::Str(k), Literal::Str(n)),
                    (Literal::Str(f), Literal::List(fields)),
                ] if k == VALUE_KEY && f == FIELDS_KEY => Some((n.as_str(), fields.as_slice())),
                _ => None,
            },
            _ => None,
        }
    }
}

/// How deep a literal may nest before it is not read (bounded work on any input).
const MAX_DEPTH: usize = 48;

impl Literal {
    /// A canonical text: equal literals have equal keys (`5`, `"a"`, `[1,2]`).
    pub fn key(&self) -> String {
        match self {
            Literal::Null => "null".into(),
            Literal::Bool(b) => b.to_string(),
            Literal::Int(i) => i.to_string(),
            Literal::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
            Literal::Float(f) => f.to_string(),
            Literal::Str(s) => format!("{s:?}"),
            Literal::List(items) => {
                let inner: Vec<String> = items.iter().map(Literal::key).collect();
                format!("[{}]", inner.join(","))
            }
            Literal::Map(_) if self.as_value().is_some() => {
                let (name, fields) = self.as_value().unwrap_or_default();
                let inner: Vec<String> = fields.iter().map(Literal::key).collect();
                format!("{name}({})", inner.join(","))
            }
            Literal::Map(entries) => {
                let inner: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}:{}", k.key(), v.key()))
                    .collect();
                format!("{{{}}}", inner.join(","))
            }
        }
    }

    /// A value too common to mean anything when code compares with it: null, booleans, -1, 0,
    /// 1 (as numbers or as text), the empty string, empty lists and maps, a string of one
    /// character that is not a number.
    pub fn is_edge(&self) -> bool {
        match self {
            Literal::Null | Literal::Bool(_) => true,
            Literal::Int(i) => (-1..=1).contains(i),
            Literal::Float(f) => *f == 0.0 || *f == 1.0 || *f == -1.0,
            Literal::Str(s) => match s.trim().parse::<f64>() {
                Ok(n) => n == 0.0 || n == 1.0 || n == -1.0,
                Err(_) => s.trim().chars().count() <= 1,
            },
            Literal::List(items) => items.is_empty(),
            Literal::Map(entries) => entries.is_empty(),
        }
    }

    /// Equal as data a program prints: `5` and `5.0` and `"5"` are the same answer (a shell
    /// test compares text; a key `"2,3"` holds numbers as text).
    pub fn loose_eq(&self, other: &Literal) -> bool {
        if self == other || self.key() == other.key() {
            return true;
        }
        match (self.as_number(), other.as_number()) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }

    fn as_number(&self) -> Option<f64> {
        match self {
            Literal::Int(i) => Some(*i as f64),
            Literal::Float(f) => Some(*f),
            Literal::Str(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
            _ => None,
        }
    }

    /// The parts of a composite key: a string such as `"2,3"`, `"2|3"` or `"10 -4"` split on
    /// its separators, or the items of a tuple or list. `None` for a single value.
    pub fn parts(&self) -> Option<Vec<Literal>> {
        match self {
            Literal::List(items) if items.len() >= 2 => Some(items.clone()),
            Literal::Str(s) => {
                let parts: Vec<&str> = s
                    .split(|c: char| matches!(c, ',' | '|' | ':' | ';' | '/') || c.is_whitespace())
                    .filter(|p| !p.is_empty())
                    .collect();
                (parts.len() >= 2).then(|| parts.iter().map(|p| scalar_of_text(p)).collect())
            }
            _ => None,
        }
    }

    /// The literal as JSON, the form a probe's child process receives and answers in: a map
    /// whose keys are all text is an object, other keys are written as their [`Literal::key`];
    /// a float that is not finite is null.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Literal::Null => Value::Null,
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Int(i) => Value::from(*i),
            Literal::Float(f) => serde_json::Number::from_f64(*f)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            Literal::Str(s) => Value::String(s.clone()),
            Literal::List(items) => Value::Array(items.iter().map(Literal::to_json).collect()),
            Literal::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| {
                        let key = match k {
                            Literal::Str(s) => s.clone(),
                            other => other.key(),
                        };
                        (key, v.to_json())
                    })
                    .collect(),
            ),
        }
    }

    /// The literal as a short text for a report.
    pub fn show(&self) -> String {
        let k = self.key();
        if k.chars().count() > 60 {
            let cut: String = k.chars().take(57).collect();
            format!("{cut}...")
        } else {
            k
        }
    }
}

/// A word's value: an integer, a float, or else the text.
pub(crate) fn scalar_of_text(text: &str) -> Literal {
    if let Ok(i) = text.parse::<i64>() {
        return Literal::Int(i);
    }
    if let Ok(f) = text.parse::<f64>()
        && f.is_finite()
        && text.chars().any(|c| c.is_ascii_digit())
    {
        return Literal::Float(f);
    }
    Literal::Str(text.to_string())
}

/// Read a node as a literal, with names bound by `env` (a table row). `None` when the node is
/// not plain data.
pub(crate) fn of_node(p: &Parsed<'_>, node: Node<'_>, env: &Env) -> Option<Literal> {
    read(p, node, env, 0)
}

fn read(p: &Parsed<'_>, node: Node<'_>, env: &Env, depth: usize) -> Option<Literal> {
    if depth > MAX_DEPTH || node.has_error() {
        return None;
    }
    let text = p.text(node);
    match p.lang {
        Lang::Python => python(p, node, text, env, depth),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => js(p, node, text, env, depth),
        Lang::Go => go(p, node, text, env, depth),
        Lang::Rust => rust(p, node, text, env, depth),
        Lang::Shell => shell(p, node, text, env),
    }
}

fn items(p: &Parsed<'_>, node: Node<'_>, env: &Env, depth: usize) -> Option<Vec<Literal>> {
    named_children(node)
        .into_iter()
        .filter(|c| !is_comment(*c))
        .map(|c| read(p, c, env, depth + 1))
        .collect()
}

fn is_comment(node: Node<'_>) -> bool {
    matches!(node.kind(), "comment" | "line_comment" | "block_comment")
}

fn negate(lit: Literal) -> Option<Literal> {
    match lit {
        Literal::Int(i) => i.checked_neg().map(Literal::Int),
        Literal::Float(f) => Some(Literal::Float(-f)),
        _ => None,
    }
}

fn unary(
    p: &Parsed<'_>,
    node: Node<'_>,
    env: &Env,
    depth: usize,
    operand_field: &str,
) -> Option<Literal> {
    let operand = node.child_by_field_name(operand_field)?;
    let op = p.text(node).trim_start().chars().next()?;
    let value = read(p, operand, env, depth + 1)?;
    match op {
        '-' => negate(value),
        '+' => matches!(value, Literal::Int(_) | Literal::Float(_)).then_some(value),
        _ => None,
    }
}

fn int_text(text: &str) -> Option<i64> {
    let t: String = text.chars().filter(|c| *c != '_').collect();
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        return i64::from_str_radix(h, 16).ok();
    }
    if let Some(o) = lower.strip_prefix("0o") {
        return i64::from_str_radix(o, 8).ok();
    }
    if let Some(b) = lower.strip_prefix("0b") {
        return i64::from_str_radix(b, 2).ok();
    }
    lower.parse().ok()
}

fn float_text(text: &str) -> Option<f64> {
    let t: String = text.chars().filter(|c| *c != '_').collect();
    t.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Decode the common backslash escapes; `None` for one it does not know.
pub(crate) fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            '\\' | '\'' | '"' | '`' | '$' | '/' => out.push(e),
            '\n' => {}
            'x' => {
                let h: String = chars.by_ref().take(2).collect();
                out.push(char::from_u32(u32::from_str_radix(&h, 16).ok()?)?);
            }
            'u' => {
                let h: String = if chars.peek() == Some(&'{') {
                    chars.next();
                    chars.by_ref().take_while(|c| *c != '}').collect()
                } else {
                    chars.by_ref().take(4).collect()
                };
                out.push(char::from_u32(u32::from_str_radix(&h, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

fn python(p: &Parsed<'_>, node: Node<'_>, text: &str, env: &Env, depth: usize) -> Option<Literal> {
    match node.kind() {
        "integer" => int_text(text).map(Literal::Int),
        "float" => float_text(text).map(Literal::Float),
        "true" => Some(Literal::Bool(true)),
        "false" => Some(Literal::Bool(false)),
        "none" => Some(Literal::Null),
        "string" => python_string(p, node),
        "concatenated_string" => {
            let mut s = String::new();
            for part in named_children(node) {
                match python_string(p, part)? {
                    Literal::Str(t) => s.push_str(&t),
                    _ => return None,
                }
            }
            Some(Literal::Str(s))
        }
        "unary_operator" => unary(p, node, env, depth, "argument"),
        "list" | "tuple" => items(p, node, env, depth).map(Literal::List),
        "parenthesized_expression" => {
            let inner = named_children(node);
            (inner.len() == 1)
                .then(|| read(p, inner[0], env, depth + 1))
                .flatten()
        }
        "dictionary" => {
            let mut entries = Vec::new();
            for pair in named_children(node) {
                if pair.kind() == "comment" {
                    continue;
                }
                if pair.kind() != "pair" {
                    return None;
                }
                let k = read(p, pair.child_by_field_name("key")?, env, depth + 1)?;
                let v = read(p, pair.child_by_field_name("value")?, env, depth + 1)?;
                entries.push((k, v));
            }
            Some(Literal::Map(entries))
        }
        "identifier" | "attribute" => env.get(text).cloned(),
        "call" => python_value(p, node, env, depth).or_else(|| python_method(p, node, env, depth)),
        _ => None,
    }
}

/// The few methods of text a test computes its expected value with, on literals:
/// `hex.lower()`, `hex.upper()`, `s.strip()`.
fn python_method(p: &Parsed<'_>, node: Node<'_>, env: &Env, depth: usize) -> Option<Literal> {
    let func = node.child_by_field_name("function")?;
    if func.kind() != "attribute" {
        return None;
    }
    let object = read(p, func.child_by_field_name("object")?, env, depth + 1)?;
    let method = p.text(func.child_by_field_name("attribute")?);
    let args = node.child_by_field_name("arguments")?;
    if !named_children(args).iter().all(|a| is_comment(*a)) {
        return None;
    }
    match (object, method) {
        (Literal::Str(s), "lower") => Some(Literal::Str(s.to_lowercase())),
        (Literal::Str(s), "upper") => Some(Literal::Str(s.to_uppercase())),
        (Literal::Str(s), "strip") => Some(Literal::Str(s.trim().to_owned())),
        _ => None,
    }
}

/// A construction of a value type of `values.toml` with integer fields, positional or spread
/// from a bound list (`datetime.date(2024, 1, 31)`, `datetime.date(*start)`), as its literal.
fn python_value(p: &Parsed<'_>, node: Node<'_>, env: &Env, depth: usize) -> Option<Literal> {
    let name = p.text(node.child_by_field_name("function")?);
    let row = python_values().iter().find(|r| r.name == name)?;
    let args = node.child_by_field_name("arguments")?;
    if args.kind() != "argument_list" {
        return None;
    }
    let mut fields = Vec::new();
    for a in named_children(args) {
        match a.kind() {
            "comment" => {}
            "list_splat" => match read(p, *named_children(a).first()?, env, depth + 1)? {
                Literal::List(items) => fields.extend(items),
                _ => return None,
            },
            _ => fields.push(read(p, a, env, depth + 1)?),
        }
    }
    let ints = fields.iter().all(|f| matches!(f, Literal::Int(_)));
    if !ints || fields.len() < row.required || fields.len() > row.fields.len() {
        return None;
    }
    fields.resize(row.fields.len(), Literal::Int(0));
    Some(Literal::Map(vec![
        (
            Literal::Str(VALUE_KEY.into()),
            Literal::Str(row.name.clone()),
        ),
        (Literal::Str(FIELDS_KEY.into()), Literal::List(fields)),
    ]))
}

fn python_string(p: &Parsed<'_>, node: Node<'_>) -> Option<Literal> {
    if node.kind() != "string" {
        return None;
    }
    let mut raw = false;
    let mut out = String::new();
    for part in named_children(node) {
        let t = p.text(part);
        match part.kind() {
            "string_start" => {
                let prefix = t.trim_end_matches(['"', '\'']).to_ascii_lowercase();
                if prefix.contains('f') || prefix.contains('b') {
                    // f-strings with fields and bytes are not plain strings
                    if prefix.contains('b') {
                        return None;
                    }
                }
                raw = prefix.contains('r');
            }
            "string_content" => {
                if raw {
                    out.push_str(t);
                } else {
                    out.push_str(&unescape(t)?);
                }
            }
            "escape_sequence" => out.push_str(&unescape(t)?),
            "string_end" => {}
            _ => return None,
        }
    }
    Some(Literal::Str(out))
}

fn js(p: &Parsed<'_>, node: Node<'_>, text: &str, env: &Env, depth: usize) -> Option<Literal> {
    match node.kind() {
        "number" => {
            let t = text.trim_end_matches('n');
            int_text(t)
                .map(Literal::Int)
                .or_else(|| float_text(t).map(Literal::Float))
        }
        "string" => {
            let mut out = String::new();
            for part in named_children(node) {
                match part.kind() {
                    "string_fragment" => out.push_str(p.text(part)),
                    "escape_sequence" => out.push_str(&unescape(p.text(part))?),
                    _ => return None,
                }
            }
            Some(Literal::Str(out))
        }
        "template_string" => {
            let mut out = String::new();
            for part in named_children(node) {
                match part.kind() {
                    "string_fragment" => out.push_str(p.text(part)),
                    "escape_sequence" => out.push_str(&unescape(p.text(part))?),
                    // `${numbers}` with `numbers` bound (a table row): as JavaScript writes it.
                    "template_substitution" => {
                        let inner = *named_children(part).first()?;
                        out.push_str(&js_text(&read(p, inner, env, depth + 1)?)?);
                    }
                    _ => return None,
                }
            }
            if named_children(node).is_empty() {
                out = text.trim_matches('`').to_string();
            }
            Some(Literal::Str(out))
        }
        "true" => Some(Literal::Bool(true)),
        "false" => Some(Literal::Bool(false)),
        "null" | "undefined" => Some(Literal::Null),
        "unary_expression" if text.trim_start().starts_with("typeof") => {
            let operand = node.child_by_field_name("argument")?;
            Some(Literal::Str(
                match read(p, operand, env, depth + 1)? {
                    Literal::Str(_) => "string",
                    Literal::Int(_) | Literal::Float(_) => "number",
                    Literal::Bool(_) => "boolean",
                    _ => return None,
                }
                .into(),
            ))
        }
        "unary_expression" => unary(p, node, env, depth, "argument"),
        "array" => items(p, node, env, depth).map(Literal::List),
        "parenthesized_expression"
        | "as_expression"
        | "satisfies_expression"
        | "non_null_expression" => {
            let inner = named_children(node);
            inner.first().and_then(|n| read(p, *n, env, depth + 1))
        }
        "object" => {
            let mut entries = Vec::new();
            for pair in named_children(node) {
                match pair.kind() {
                    "comment" => {}
                    "pair" => {
                        let key = pair.child_by_field_name("key")?;
                        let k = match key.kind() {
                            "property_identifier" => Literal::Str(p.text(key).to_string()),
                            "string" | "number" => read(p, key, env, depth + 1)?,
                            _ => return None,
                        };
                        let v = read(p, pair.child_by_field_name("value")?, env, depth + 1)?;
                        entries.push((k, v));
                    }
                    "shorthand_property_identifier" => {
                        let name = p.text(pair);
                        entries.push((Literal::Str(name.to_string()), env.get(name)?.clone()));
                    }
                    _ => return None,
                }
            }
            Some(Literal::Map(entries))
        }
        "identifier" | "member_expression" => env.get(text).cloned().or_else(|| {
            // `ids.length` of a bound text or list.
            let object = node.child_by_field_name("object")?;
            let prop = node.child_by_field_name("property")?;
            match (read(p, object, env, depth + 1)?, p.text(prop)) {
                (Literal::Str(s), "length") => Some(Literal::Int(s.encode_utf16().count() as i64)),
                (Literal::List(l), "length") => Some(Literal::Int(l.len() as i64)),
                _ => None,
            }
        }),
        "call_expression" => js_method(p, node, env, depth),
        _ => None,
    }
}

/// A value as JavaScript turns it into text (`String(v)`, a template's `${v}`): lists joined
/// by commas; `None` for what this does not know (maps, null).
pub(crate) fn js_text(v: &Literal) -> Option<String> {
    Some(match v {
        Literal::Str(s) => s.clone(),
        Literal::Int(i) => i.to_string(),
        Literal::Float(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{}", *f as i64),
        Literal::Float(f) => f.to_string(),
        Literal::Bool(b) => b.to_string(),
        Literal::List(items) => items
            .iter()
            .map(|i| match i {
                Literal::Null => Some(String::new()),
                other => js_text(other),
            })
            .collect::<Option<Vec<_>>>()?
            .join(","),
        Literal::Null | Literal::Map(_) => return None,
    })
}

/// The few methods of text and lists a test computes its names and expected values with, on
/// literals: `hex.toLowerCase()`, `hex.toString(16)`, `numbers.join(', ')`.
fn js_method(p: &Parsed<'_>, node: Node<'_>, env: &Env, depth: usize) -> Option<Literal> {
    let func = node.child_by_field_name("function")?;
    if func.kind() != "member_expression" {
        return None;
    }
    let object = read(p, func.child_by_field_name("object")?, env, depth + 1)?;
    let method = p.text(func.child_by_field_name("property")?);
    let args = items(p, node.child_by_field_name("arguments")?, env, depth)?;
    match (object, method, args.as_slice()) {
        (Literal::Str(s), "toLowerCase", []) => Some(Literal::Str(s.to_lowercase())),
        (Literal::Str(s), "toUpperCase", []) => Some(Literal::Str(s.to_uppercase())),
        (Literal::Str(s), "trim", []) => Some(Literal::Str(s.trim().to_owned())),
        // A string's `toString` takes no radix (one given is ignored).
        (Literal::Str(s), "toString", _) => Some(Literal::Str(s)),
        (Literal::Int(i), "toString", []) => Some(Literal::Str(i.to_string())),
        (Literal::Int(i), "toString", [Literal::Int(16)]) if i >= 0 => {
            Some(Literal::Str(format!("{i:x}")))
        }
        (Literal::List(l), "join", []) => js_text(&Literal::List(l)).map(Literal::Str),
        (Literal::List(l), "join", [Literal::Str(sep)]) => l
            .iter()
            .map(js_text)
            .collect::<Option<Vec<_>>>()
            .map(|t| Literal::Str(t.join(sep))),
        _ => None,
    }
}

fn go(p: &Parsed<'_>, node: Node<'_>, text: &str, env: &Env, depth: usize) -> Option<Literal> {
    match node.kind() {
        "int_literal" => int_text(text).map(Literal::Int),
        "float_literal" => float_text(text).map(Literal::Float),
        "interpreted_string_literal" => {
            let inner = text.strip_prefix('"')?.strip_suffix('"')?;
            unescape(inner).map(Literal::Str)
        }
        "raw_string_literal" => Some(Literal::Str(
            text.strip_prefix('`')?.strip_suffix('`')?.to_string(),
        )),
        "rune_literal" => {
            let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
            unescape(inner).map(Literal::Str)
        }
        "true" => Some(Literal::Bool(true)),
        "false" => Some(Literal::Bool(false)),
        "nil" => Some(Literal::Null),
        "unary_expression" => unary(p, node, env, depth, "operand"),
        "parenthesized_expression" => named_children(node)
            .first()
            .and_then(|n| read(p, *n, env, depth + 1)),
        "composite_literal" => {
            let ty = node.child_by_field_name("type")?;
            let body = node.child_by_field_name("body")?;
            match ty.kind() {
                "slice_type" | "array_type" | "implicit_length_array_type" => {
                    go_elements(p, body, env, depth).map(Literal::List)
                }
                "map_type" => go_keyed(p, body, env, depth).map(Literal::Map),
                _ => None,
            }
        }
        "literal_value" => go_elements(p, node, env, depth).map(Literal::List),
        "literal_element" => named_children(node)
            .first()
            .and_then(|n| read(p, *n, env, depth + 1)),
        "identifier" | "selector_expression" => env.get(text).cloned(),
        _ => None,
    }
}

fn go_elements(p: &Parsed<'_>, body: Node<'_>, env: &Env, depth: usize) -> Option<Vec<Literal>> {
    named_children(body)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .map(|c| {
            if c.kind() == "keyed_element" {
                None
            } else {
                read(p, c, env, depth + 1)
            }
        })
        .collect()
}

fn go_keyed(
    p: &Parsed<'_>,
    body: Node<'_>,
    env: &Env,
    depth: usize,
) -> Option<Vec<(Literal, Literal)>> {
    let mut out = Vec::new();
    for el in named_children(body) {
        if el.kind() == "comment" {
            continue;
        }
        if el.kind() != "keyed_element" {
            return None;
        }
        let parts = named_children(el);
        if parts.len() != 2 {
            return None;
        }
        out.push((
            read(p, parts[0], env, depth + 1)?,
            read(p, parts[1], env, depth + 1)?,
        ));
    }
    Some(out)
}

fn rust(p: &Parsed<'_>, node: Node<'_>, text: &str, env: &Env, depth: usize) -> Option<Literal> {
    match node.kind() {
        "integer_literal" => {
            let t = strip_rust_suffix(
                text,
                &[
                    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
                    "usize",
                ],
            );
            int_text(t).map(Literal::Int)
        }
        "float_literal" => float_text(strip_rust_suffix(text, &["f32", "f64"])).map(Literal::Float),
        "string_literal" => {
            let inner = text.strip_prefix('"')?.strip_suffix('"')?;
            unescape(inner).map(Literal::Str)
        }
        "raw_string_literal" => {
            let t = text.strip_prefix('r')?;
            let hashes = t.len() - t.trim_start_matches('#').len();
            let t = &t[hashes..];
            let t = t.strip_prefix('"')?;
            let t = t.get(..t.len().checked_sub(1 + hashes)?)?;
            Some(Literal::Str(t.to_string()))
        }
        "char_literal" => {
            let inner = text.strip_prefix('\'')?.strip_suffix('\'')?;
            unescape(inner).map(Literal::Str)
        }
        "boolean_literal" => Some(Literal::Bool(text == "true")),
        "unary_expression" => {
            let inner = named_children(node);
            let op = text.trim_start().chars().next()?;
            let value = read(p, *inner.first()?, env, depth + 1)?;
            if op == '-' { negate(value) } else { None }
        }
        "array_expression" | "tuple_expression" => items(p, node, env, depth).map(Literal::List),
        "parenthesized_expression" | "reference_expression" => named_children(node)
            .last()
            .and_then(|n| read(p, *n, env, depth + 1)),
        "macro_invocation" => {
            let name = node.child_by_field_name("macro").map(|m| p.text(m))?;
            if name != "vec" {
                return None;
            }
            let tt = named_children(node)
                .into_iter()
                .find(|c| c.kind() == "token_tree")?;
            let reparsed = super::probe::rust_reparse_args(p.text(tt))?;
            let args = super::probe::rust_args(&reparsed)?;
            args.into_iter()
                .map(|a| read(&reparsed, a, env, depth + 1))
                .collect::<Option<Vec<_>>>()
                .map(Literal::List)
        }
        "call_expression" => {
            // String::from("x"), "x".to_string(), "x".to_owned(), "x".into()
            let f = node.child_by_field_name("function")?;
            let args = node.child_by_field_name("arguments")?;
            let arg_nodes: Vec<_> = named_children(args);
            match f.kind() {
                "scoped_identifier" if p.text(f) == "String::from" && arg_nodes.len() == 1 => {
                    read(p, arg_nodes[0], env, depth + 1)
                }
                "field_expression" if arg_nodes.is_empty() => {
                    let method = f.child_by_field_name("field").map(|m| p.text(m))?;
                    if matches!(method, "to_string" | "to_owned" | "into" | "to_vec") {
                        read(p, f.child_by_field_name("value")?, env, depth + 1)
                    } else {
                        None
                    }
                }
                _ => None,
            }
        }
        "identifier" | "field_expression" => env.get(text).cloned(),
        _ => None,
    }
}

fn strip_rust_suffix<'a>(text: &'a str, suffixes: &[&str]) -> &'a str {
    for s in suffixes {
        if let Some(t) = text.strip_suffix(s)
            && !t.to_ascii_lowercase().starts_with("0x")
        {
            return t;
        }
    }
    text
}

fn shell(p: &Parsed<'_>, node: Node<'_>, text: &str, env: &Env) -> Option<Literal> {
    match node.kind() {
        "word" | "number" => {
            if text.contains(['$', '`', '*', '?', '[']) {
                return None;
            }
            Some(Literal::Str(text.replace('\\', "")))
        }
        "raw_string" => Some(Literal::Str(
            text.strip_prefix('\'')?.strip_suffix('\'')?.to_string(),
        )),
        "string" => {
            let mut out = String::new();
            for part in named_children(node) {
                if part.kind() != "string_content" {
                    return None;
                }
            }
            let inner = text.strip_prefix('"')?.strip_suffix('"')?;
            out.push_str(inner);
            Some(Literal::Str(out))
        }
        "concatenation" => {
            let mut out = String::new();
            for part in named_children(node) {
                match shell(p, part, p.text(part), env)? {
                    Literal::Str(s) => out.push_str(&s),
                    _ => return None,
                }
            }
            Some(Literal::Str(out))
        }
        "simple_expansion" | "expansion" => {
            let name = text.trim_start_matches('$').trim_matches(['{', '}']);
            env.get(name).cloned()
        }
        _ => None,
    }
}
