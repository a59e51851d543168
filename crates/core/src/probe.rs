//! Probes (issue 33): the deciding tests' calls run again outside the test runner, in a child
//! process that cannot see the expectation, on the locked tree and on the baseline, with the
//! tested inputs and with inputs next to them that no test uses. This module decides what the
//! answers mean; the engine gathers them (`pawl_engine::verify::probes`).
//!
//! What is a finding, each for one function:
//!
//! - **differs**: a tested call, out of the runner, gives another answer than the test expects
//!   (or raises where it expects a value): the code is right only where it is tested;
//! - **unstable**: the same call on the same tree answered differently in two runs;
//! - **only where tested**: every tested input the change fixed has its untested neighbours
//!   answered exactly as at the baseline (none changed, at least two in all — tested inputs
//!   next to each other leave one another few): the change is a special case of the tested
//!   inputs, not a fix;
//! - **against the tests' pattern**: the tests state one arithmetic relation for all their
//!   numeric inputs (`add(2, 3) == 5`, `add(10, -4) == 6`: `a + b`, the only one of a small
//!   library that fits), and on an untested neighbour the locked tree keeps the baseline's answer
//!   where that relation says otherwise: a fix covering only the tested part of the domain.
//!
//! Inputs that are edge values (null, booleans, -1..=1, empty or one-character text, empty
//! lists) have no neighbours of their own kind: a fix of exactly such an input (`parse("")`)
//! is never "only where tested". Nor is a call whose expected answer is a boolean: a
//! predicate's fix changes its answer on few inputs by nature (leap years: the centuries), so
//! neighbours answering as before say nothing (a special case of a predicate's tested inputs
//! is left to the tester's inputs).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What one call answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum Answer {
    /// A value, as plain data.
    Value(Value),
    /// The call raised (an exception's type and message, a panic).
    Raised(String),
    /// No answer: the module or function could not be loaded, the process did not finish, or its
    /// output could not be read. Never a finding by itself.
    Missing(String),
}

impl Answer {
    fn value(&self) -> Option<&Value> {
        match self {
            Answer::Value(v) => Some(v),
            _ => None,
        }
    }

    /// The answer as a short text for a report.
    pub fn show(&self) -> String {
        match self {
            Answer::Value(v) => cut(&v.to_string()),
            Answer::Raised(why) => format!("raises {}", cut(why)),
            Answer::Missing(why) => format!("no answer ({})", cut(why)),
        }
    }
}

fn cut(s: &str) -> String {
    if s.chars().count() > 80 {
        let c: String = s.chars().take(77).collect();
        format!("{c}...")
    } else {
        s.to_owned()
    }
}

/// One call of a probed function and its answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub args: Vec<Value>,
    /// What the test expects (a tested call); `None` for an untested neighbour.
    pub expected: Option<Value>,
    /// For a neighbour: the index of the tested point it was made from.
    pub from: Option<usize>,
    /// The answer on the baseline tree.
    pub base: Answer,
    /// The answer on the locked tree.
    pub fin: Answer,
    /// The answer on the locked tree in the repeat (another process, another order).
    pub again: Option<Answer>,
    /// The test asserts only the answer's truth (`assertTrue(f(x))`): `expected` is a boolean
    /// an answer meets by its truth ([`meets`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truthy: bool,
    /// The test asserts only that the call returns: any value meets it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub returns: bool,
    /// A round trip on an object built otherwise than the test built it ([`constructions`]):
    /// the test's expectation holds for it, but that construction may be no valid one, so a
    /// raise there is no finding.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub varied: bool,
}

impl Point {
    /// `v` is the answer the test expects of this call ([`same`], or for a truth assertion
    /// [`truth_meets`]; any value when the test asserts only that it returns).
    pub fn meets(&self, v: &Value, text: bool) -> bool {
        if self.returns && self.expected.is_some() {
            return true;
        }
        if let Some((op, length, than)) = self.expected.as_ref().and_then(order_of) {
            return order_meets(v, op, length, than, text);
        }
        match (&self.expected, self.truthy) {
            (Some(Value::Bool(want)), true) => truth_meets(v, *want),
            (Some(e), _) => same(v, e, text),
            (None, _) => false,
        }
    }
}

/// An expectation that is an order (`{"$order": ">=", "$of": "length", "$than": 30}`, jest's
/// `expect(f(x).length).toBeGreaterThanOrEqual(30)`): `(op, of the length, than)`.
pub fn order_of(e: &Value) -> Option<(&str, bool, f64)> {
    let o = e.as_object()?;
    if !(3..=4).contains(&o.len()) || (o.len() == 4 && !o.contains_key("$follows")) {
        return None;
    }
    let op = o.get("$order")?.as_str()?;
    let of = o.get("$of")?.as_str()?;
    let than = o.get("$than")?.as_f64()?;
    Some((op, of == "length", than))
}

/// An answer meets an order: its length (a text's in UTF-16 units, as JavaScript counts, or a
/// list's) or its number compared with `than`.
fn order_meets(v: &Value, op: &str, length: bool, than: f64, text: bool) -> bool {
    let x = if length {
        match v {
            Value::String(s) => s.encode_utf16().count() as f64,
            Value::Array(a) => a.len() as f64,
            _ => return false,
        }
    } else {
        match number(v, text) {
            Some(x) => x,
            None => return false,
        }
    };
    match op {
        ">=" => x >= than,
        ">" => x > than,
        "<=" => x <= than,
        "<" => x < than,
        "==" => x == than,
        _ => false,
    }
}

/// An answer meets a truth assertion expecting `want`: a boolean by its value, null as false,
/// a number by not being 0, a text by not being empty; a list or map as the test's language
/// may read it (Python: empty is false; JavaScript: always true), either way.
pub fn truth_meets(v: &Value, want: bool) -> bool {
    match v {
        Value::Bool(b) => *b == want,
        Value::Null => !want,
        Value::Number(n) => (n.as_f64() != Some(0.0)) == want,
        Value::String(s) => s.is_empty() != want,
        Value::Array(a) => want || a.is_empty(),
        Value::Object(o) => want || o.is_empty(),
    }
}

/// A probed function: its tested calls, then their neighbours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// The function as the tests call it (`add`, `calc.add`).
    pub name: String,
    /// Its answers are printed text (a shell function's output): `5` and `"5"` are one answer.
    pub text: bool,
    pub points: Vec<Point>,
    /// For a method: how many of each point's leading arguments build the object it is called
    /// on (the class's constructor arguments); the rest are the method's.
    #[serde(default)]
    pub receiver: usize,
}

impl Function {
    /// A call of this function as the report shows it: `add(2, 3)`, or for a method
    /// `h.encode([0]) on an object built with ("salt", 30)`.
    pub fn call(&self, args: &[Value]) -> String {
        let k = self.receiver.min(args.len());
        let own = call_text(&self.name, &args[k..]);
        if k == 0 {
            return own;
        }
        let built: Vec<String> = args[..k].iter().map(|v| cut(&v.to_string())).collect();
        format!("{own} on an object built with ({})", built.join(", "))
    }
}

/// A finding of the probes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Finding {
    Differs {
        call: String,
        expected: String,
        got: String,
    },
    Unstable {
        call: String,
        first: String,
        then: String,
    },
    OnlyWhereTested {
        function: String,
        /// The tested calls the change fixed.
        fixed: Vec<String>,
        /// Untested neighbours answered as at the baseline: `call → answer`.
        kept: Vec<String>,
    },
    AgainstPattern {
        function: String,
        pattern: String,
        call: String,
        want: String,
        got: String,
    },
}

impl Finding {
    /// The finding as the report says it.
    pub fn words(&self) -> String {
        match self {
            Finding::Differs {
                call,
                expected,
                got,
            } => format!(
                "probe: `{call}` run outside the test runner (a process of its own, no test file) gives {got}; the test expects {expected}"
            ),
            Finding::Unstable { call, first, then } => {
                format!("probe: `{call}` gave {first}, then {then} on the same locked tree")
            }
            Finding::OnlyWhereTested {
                function,
                fixed,
                kept,
            } => format!(
                "probe: the change to `{function}` answers differently from the baseline only on the tested inputs ({}); on inputs next to them no test uses it answers exactly as the baseline did: {}",
                fixed.join(", "),
                kept.join(", ")
            ),
            Finding::AgainstPattern {
                function,
                pattern,
                call,
                want,
                got,
            } => format!(
                "probe: the tests of `{function}` all hold `{pattern}`; on the untested input `{call}` the locked tree answers {got} as the baseline did, where `{pattern}` gives {want}"
            ),
        }
    }
}

/// A call as the report shows it: `add(2, 3)`.
pub fn call_text(name: &str, args: &[Value]) -> String {
    let a: Vec<String> = args
        .iter()
        .map(|v| match (v.get("$call"), v.get("$args")) {
            // A round trip's argument: the call made first on the same object.
            (Some(Value::String(m)), Some(Value::Array(inner)))
                if v.as_object().is_some_and(|o| o.len() == 2) =>
            {
                call_text(m, inner)
            }
            _ => cut(&v.to_string()),
        })
        .collect();
    format!("{name}({})", a.join(", "))
}

fn number(v: &Value, text: bool) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if text => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

/// Two values are the same answer: equal data, numbers equal as numbers (an integer and a
/// float of the same value, floats within 1e-7 relative); for text answers also `5` and `"5"`.
pub fn same(a: &Value, b: &Value, text: bool) -> bool {
    if a == b {
        return true;
    }
    if let (Some(x), Some(y)) = (number(a, text), number(b, text)) {
        let both_numbers = matches!((a, b), (Value::Number(_), Value::Number(_)));
        if both_numbers || text {
            return x == y || (x - y).abs() <= 1e-7 * x.abs().max(y.abs()).max(1.0);
        }
    }
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q, text))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same(v, w, text)))
        }
        (Value::String(s), other) | (other, Value::String(s)) if text => {
            s.trim_end() == plain_text(other)
        }
        _ => false,
    }
}

fn plain_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Two answers are the same: the same value, or both raised (messages differ in line numbers
/// and addresses), or both missing.
fn same_answer(a: &Answer, b: &Answer, text: bool) -> bool {
    match (a, b) {
        (Answer::Value(x), Answer::Value(y)) => same(x, y, text),
        (Answer::Raised(_), Answer::Raised(_)) => true,
        (Answer::Missing(_), Answer::Missing(_)) => true,
        _ => false,
    }
}

/// A deciding test (failed at the baseline, passes on the locked tree) as the probes saw it, for
/// `[verify] require_probe` ([`required`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decider {
    /// The test as the report names it.
    pub test: String,
    /// Its calls with literal arguments and an expected value: the function as the test writes
    /// it (`add`, `calc.add`, `c.add`) and, when that call did not run outside the test runner
    /// and answer, why (`None`: it answered).
    pub calls: Vec<(String, Option<String>)>,
    /// The other symbols it targets: the product functions its body uses in no call pawl can
    /// probe (`assertTrue(add(2, 3) > 4)`), the goal's symbols it exercises (read from parsed
    /// code). Each is probed through this test when any of its calls answered.
    pub uses: Vec<String>,
    /// Why the test is no call pawl can probe (the extractor's reason), when it has no call.
    pub not_call: Option<String>,
}

/// A symbol as the tests and the hidden tests name it: its last identifier (`calc.add`,
/// `c.add`, `super::add` → `add`).
pub fn symbol_of(name: &str) -> &str {
    name.rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find(|p| !p.is_empty())
        .unwrap_or("")
}

/// `[verify] require_probe` (issue 33): each symbol the deciding tests target — a function they
/// call, a product function they use, a goal's symbol they exercise — none of whose deciding
/// tests ran it outside the test runner, and that no hidden test called outside the runner
/// (`hidden`: the functions the hidden tests' calls answered for), is one finding naming why.
/// A symbol is probed through a test that calls it when one of those calls answered, through a
/// test that uses or exercises it otherwise when any of the test's calls answered (the call ran
/// the code that reaches it). Work whose deciding tests target no symbol (a file check, a TAP
/// line, a command's output) gives none: there is no function to run out of the runner.
pub fn required(deciders: &[Decider], hidden: &[String]) -> Vec<String> {
    // The symbols, in the order the tests name them.
    let mut symbols: Vec<&str> = Vec::new();
    for d in deciders {
        for s in d
            .calls
            .iter()
            .map(|(f, _)| symbol_of(f))
            .chain(d.uses.iter().map(|u| symbol_of(u)))
        {
            if !s.is_empty() && !symbols.contains(&s) {
                symbols.push(s);
            }
        }
    }
    let mut out = Vec::new();
    for s in symbols {
        if hidden.iter().any(|h| symbol_of(h) == s) {
            continue;
        }
        let mut why: Vec<String> = Vec::new();
        let mut probed = false;
        for d in deciders {
            let own: Vec<&(String, Option<String>)> =
                d.calls.iter().filter(|(f, _)| symbol_of(f) == s).collect();
            if !own.is_empty() {
                probed |= own.iter().any(|(_, w)| w.is_none());
                if let Some(w) = own.iter().find_map(|(_, w)| w.as_ref())
                    && !why.contains(w)
                {
                    why.push(w.clone());
                }
            } else if d.uses.iter().any(|u| symbol_of(u) == s) {
                probed |= d.calls.iter().any(|(_, w)| w.is_none());
                let w = match &d.not_call {
                    Some(n) => format!("`{}` is no call pawl can probe ({n})", d.test),
                    None => format!("no call of `{}` answered outside the test runner", d.test),
                };
                if !why.contains(&w) {
                    why.push(w);
                }
            }
            if probed {
                break;
            }
        }
        if probed {
            continue;
        }
        let more = why.len().saturating_sub(3);
        why.truncate(3);
        out.push(format!(
            "probe required ([verify] require_probe): proved only inside the test runner: `{s}`: {}{}; no hidden test called it outside the test runner",
            why.join("; "),
            if more > 0 {
                format!("; {more} more")
            } else {
                String::new()
            }
        ));
    }
    out
}

/// A value too common to have neighbours of its kind (null, booleans, -1..=1, empty or
/// one-character text, empty lists and maps).
pub fn is_edge(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(_) => true,
        Value::Number(n) => n.as_f64().is_some_and(|f| (-1.0..=1.0).contains(&f)),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(f) => (-1.0..=1.0).contains(&f),
            Err(_) => s.chars().count() <= 1,
        },
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// An answer of nothing: null, 0, empty text, an empty list or map.
fn is_nothing(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Number(x) => x.as_f64() == Some(0.0),
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(_) => false,
    }
}

/// The most other constructions a round trip is probed on ([`constructions`]).
pub const MAX_CONSTRUCTIONS: usize = 4;

/// The other objects a round trip (`decode(encode(x)) == x` on one object) is probed on: its
/// expectation holds for any object the class builds, so a decoder right only for the tested
/// construction (`salt.length === 0 ? 1 : 2`) answers otherwise on one of them. Each
/// constructor argument varied alone as [`neighbours`] vary arguments (an edge value too: the
/// expectation does not depend on it); a construction with no argument gains one text argument
/// (a salt, a name). At most [`MAX_CONSTRUCTIONS`].
pub fn constructions(ctor: &[Value]) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = Vec::new();
    if ctor.is_empty() {
        out.push(vec![Value::String("pawl probe".into())]);
        return out;
    }
    for (pos, arg) in ctor.iter().enumerate() {
        let mut vs = variants(arg, false);
        if let Value::String(s) = arg
            && s.is_empty()
        {
            vs.push(Value::String("pawl probe".into()));
        }
        for v in vs.into_iter().take(2) {
            let mut next = ctor.to_vec();
            next[pos] = v;
            if next != ctor && !out.contains(&next) {
                out.push(next);
            }
        }
    }
    out.truncate(MAX_CONSTRUCTIONS);
    out
}

/// How far [`following`] moves the constructor argument an order follows, nearest first.
pub const FOLLOWING_STEPS: &[i64] = &[1, -1, 2, -2, 3];

/// The other objects a call whose expected order follows one of its object's constructor
/// arguments (`expect(h.encode(x).length).toBeGreaterThanOrEqual(minLength)` on `new
/// Hashids(salt, minLength)`) is probed on: that argument moved by each of
/// [`FOLLOWING_STEPS`] (never below 0), the expected number with it. `(constructor args,
/// expected)`. A setting special-cased on its tested value (`minLength === 30 ? 0 : 1`) falls
/// short there — on both sides: where the bug shows depends on the method's input too
/// (hashids pads short only an id that is exactly three short of `minLength` before its
/// guards; of its tested inputs, `minLength` 29 and 33 show it, 31 and 32 none).
pub fn following(ctor: &[Value], expected: &Value) -> Vec<(Vec<Value>, Value)> {
    let Some(o) = expected.as_object() else {
        return Vec::new();
    };
    let (Some(k), Some(than)) = (
        o.get("$follows").and_then(Value::as_u64),
        o.get("$than").and_then(Value::as_i64),
    ) else {
        return Vec::new();
    };
    let k = k as usize;
    if ctor.get(k).and_then(Value::as_i64) != Some(than) || is_edge(&ctor[k]) {
        return Vec::new();
    }
    FOLLOWING_STEPS
        .iter()
        .filter_map(|d| {
            let n = than.checked_add(*d).filter(|n| *n >= 0)?;
            let mut c = ctor.to_vec();
            c[k] = Value::from(n);
            let mut e = o.clone();
            e.insert("$than".into(), Value::from(n));
            Some((c, Value::Object(e)))
        })
        .collect()
}

/// The most neighbours made from one tested call.
pub const MAX_NEIGHBOURS_PER_CALL: usize = 8;

/// The untested inputs next to the tested ones: each argument varied alone (an integer by -1,
/// +1, +2, and +100 where the tests reach the hundreds; a float by ±0.5; a number inside a text by ±1, then the text's last character
/// changed either way, or one appended; a boolean negated), never one of the tested argument
/// lists. `(index of the tested call, args)`.
pub fn neighbours(tested: &[Vec<Value>]) -> Vec<(usize, Vec<Value>)> {
    // The tests' scale at each argument: an integer's neighbour a hundred away keeps its low
    // digits (12 → 112), where answers that follow them (an ordinal's suffix) tell a fix from
    // a special case of the tested input; made only where the tests themselves reach the
    // hundreds, so the function is no slower there than on the tested inputs.
    let far = |pos: usize| {
        tested.iter().any(|args| {
            args.get(pos)
                .and_then(|v| {
                    v.as_i64()
                        .or_else(|| v.as_str().and_then(|s| s.trim().parse::<i64>().ok()))
                })
                .is_some_and(|i| i.unsigned_abs() >= 100)
        })
    };
    let mut out: Vec<(usize, Vec<Value>)> = Vec::new();
    for (i, args) in tested.iter().enumerate() {
        let mut made = 0;
        for (pos, arg) in args.iter().enumerate() {
            let far = far(pos);
            for v in variants(arg, far) {
                if made >= MAX_NEIGHBOURS_PER_CALL {
                    break;
                }
                let mut next = args.clone();
                next[pos] = v;
                if tested.contains(&next) || out.iter().any(|(_, a)| *a == next) {
                    continue;
                }
                out.push((i, next));
                made += 1;
            }
        }
    }
    out
}

/// How far an integer's neighbours lie (`far`: the tests reach the hundreds, [`neighbours`]).
fn steps(far: bool) -> &'static [i64] {
    if far { &[-1, 1, 2, 100] } else { &[-1, 1, 2] }
}

fn variants(v: &Value, far: bool) -> Vec<Value> {
    match v {
        Value::Bool(b) => vec![Value::Bool(!b)],
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                steps(far)
                    .iter()
                    .filter_map(|d| i.checked_add(*d))
                    .map(Value::from)
                    .collect()
            } else if let Some(f) = n.as_f64() {
                [f - 0.5, f + 0.5]
                    .iter()
                    .filter_map(|x| serde_json::Number::from_f64(*x))
                    .map(Value::Number)
                    .collect()
            } else {
                Vec::new()
            }
        }
        Value::String(s) => {
            // A number written as text (a shell argument) varies as a number.
            if let Ok(i) = s.trim().parse::<i64>() {
                return steps(far)
                    .iter()
                    .filter_map(|d| i.checked_add(*d))
                    .map(|n| Value::String(n.to_string()))
                    .collect();
            }
            let Some(last) = s.chars().last() else {
                return Vec::new();
            };
            let head: String = s.chars().take(s.chars().count() - 1).collect();
            let up = bump(last, true);
            let down = bump(last, false);
            // A number inside the text (`2MB`, `v10.2-beta`) varies as a number first: the
            // letters around it usually make the text what it is, the number is the input.
            let mut out = embedded_number(s);
            out.extend([
                Value::String(format!("{head}{up}")),
                Value::String(format!("{head}{down}")),
                Value::String(format!("{s}{up}")),
            ]);
            out.dedup();
            out.retain(|x| x.as_str() != Some(s.as_str()));
            out
        }
        _ => Vec::new(),
    }
}

/// A text whose last number (a run of ASCII digits) is not at its end (`2MB`, `v10.2-beta`),
/// with that number one less (when it is not 0) and one more: `1MB`, `3MB`. A text ending in a
/// digit has none here: its last character already varies as a digit (`item1` → `item2`).
fn embedded_number(s: &str) -> Vec<Value> {
    if s.ends_with(|c: char| c.is_ascii_digit()) {
        return Vec::new();
    }
    let Some(end) = s.rfind(|c: char| c.is_ascii_digit()).map(|i| i + 1) else {
        return Vec::new();
    };
    let start = s[..end]
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let digits = &s[start..end];
    let Ok(n) = digits.parse::<u64>() else {
        return Vec::new();
    };
    let width = digits.len();
    let with = |m: u64| {
        // Leading zeros kept (`v07` → `v06`, `v08`).
        let m = if digits.starts_with('0') {
            format!("{m:0width$}")
        } else {
            m.to_string()
        };
        Value::String(format!("{}{m}{}", &s[..start], &s[end..]))
    };
    let mut out = Vec::new();
    if let Some(m) = n.checked_sub(1) {
        out.push(with(m));
    }
    if let Some(m) = n.checked_add(1) {
        out.push(with(m));
    }
    out
}

/// Another character of the same kind: the next (or previous) letter or digit, wrapping.
fn bump(c: char, up: bool) -> char {
    let (lo, hi) = match c {
        'a'..='z' => ('a', 'z'),
        'A'..='Z' => ('A', 'Z'),
        '0'..='9' => ('0', '9'),
        _ => return if up { 'x' } else { 'q' },
    };
    let (lo, hi, c) = (lo as u32, hi as u32, c as u32);
    let n = if up {
        if c == hi { lo } else { c + 1 }
    } else if c == lo {
        hi
    } else {
        c - 1
    };
    char::from_u32(n).unwrap_or('x')
}

/// The arithmetic relations a tested function's calls may all hold (one or two numeric
/// arguments); a relation counts only when it is the one of these that fits every tested call.
const PATTERNS: &[&str] = &[
    "a + b",
    "a - b",
    "b - a",
    "a * b",
    "max(a, b)",
    "min(a, b)",
    "a",
    "-a",
    "2 * a",
    "a * a",
    "a + 1",
    "a - 1",
];

fn apply(pattern: &str, args: &[f64]) -> Option<f64> {
    match (pattern, args) {
        ("a + b", [a, b]) => Some(a + b),
        ("a - b", [a, b]) => Some(a - b),
        ("b - a", [a, b]) => Some(b - a),
        ("a * b", [a, b]) => Some(a * b),
        ("max(a, b)", [a, b]) => Some(a.max(*b)),
        ("min(a, b)", [a, b]) => Some(a.min(*b)),
        ("a", [a]) => Some(*a),
        ("-a", [a]) => Some(-a),
        ("2 * a", [a]) => Some(2.0 * a),
        ("a * a", [a]) => Some(a * a),
        ("a + 1", [a]) => Some(a + 1.0),
        ("a - 1", [a]) => Some(a - 1.0),
        _ => None,
    }
}

fn numbers(args: &[Value], text: bool) -> Option<Vec<f64>> {
    args.iter().map(|a| number(a, text)).collect()
}

/// The one relation of [`PATTERNS`] every tested call of `f` holds, when there are at least
/// two tested calls with distinct numeric arguments.
fn pattern_of(f: &Function) -> Option<&'static str> {
    let tested: Vec<(Vec<f64>, f64)> = f
        .points
        .iter()
        .filter_map(|p| {
            let e = number(p.expected.as_ref()?, f.text)?;
            Some((numbers(p.args.get(f.receiver..)?, f.text)?, e))
        })
        .collect();
    let tested_calls = f.points.iter().filter(|p| p.expected.is_some()).count();
    if tested.len() < 2 || tested.len() != tested_calls {
        return None;
    }
    let mut distinct: Vec<&Vec<f64>> = tested.iter().map(|(a, _)| a).collect();
    distinct.dedup();
    if distinct.len() < 2 {
        return None;
    }
    let fits: Vec<&'static str> = PATTERNS
        .iter()
        .copied()
        .filter(|p| {
            tested
                .iter()
                .all(|(a, e)| apply(p, a).is_some_and(|x| (x - e).abs() < 1e-9))
        })
        .collect();
    match fits.as_slice() {
        [one] => Some(one),
        _ => None,
    }
}

/// The findings of one probed function.
pub fn judge(f: &Function) -> Vec<Finding> {
    let mut out = Vec::new();
    let text = f.text;
    // Tested calls out of the runner.
    for p in f.points.iter().filter(|p| p.expected.is_some()) {
        let Some(expected) = &p.expected else {
            continue;
        };
        let wrong = match &p.fin {
            Answer::Value(v) => !p.meets(v, text),
            Answer::Raised(_) => !p.varied,
            Answer::Missing(_) => false,
        };
        if wrong {
            out.push(Finding::Differs {
                call: f.call(&p.args),
                expected: match (expected, p.truthy) {
                    _ if p.returns => "it to return".to_string(),
                    _ if order_of(expected).is_some() => {
                        let (op, length, than) = order_of(expected).unwrap_or(("", false, 0.0));
                        let of = if length { "a length" } else { "a number" };
                        format!("{of} {op} {}", show_number(than))
                    }
                    (Value::Bool(b), true) => format!("a {b} value"),
                    _ => cut(&expected.to_string()),
                },
                got: p.fin.show(),
            });
        }
    }
    // The repeat.
    for p in &f.points {
        if let Some(again) = &p.again
            && !matches!(p.fin, Answer::Missing(_))
            && !matches!(again, Answer::Missing(_))
            && !same_answer(&p.fin, again, text)
        {
            out.push(Finding::Unstable {
                call: f.call(&p.args),
                first: p.fin.show(),
                then: again.show(),
            });
        }
    }
    if !out.is_empty() {
        return out;
    }
    // Only where tested: the tested calls the change fixed (the baseline's answer was not the
    // expected one, the locked tree's is), none of them edge values.
    let fixed: Vec<usize> = f
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            if p.expected.is_none() || p.varied {
                return false;
            }
            let fin_ok = p.fin.value().is_some_and(|v| p.meets(v, text));
            let base_ok = p.base.value().is_some_and(|v| p.meets(v, text));
            // A predicate's fix changes its answer on few inputs by nature (leap years: the
            // centuries), so a boolean's neighbours answering as before say nothing.
            let boolean = matches!(p.expected, Some(Value::Bool(_)));
            fin_ok && !base_ok && !boolean && !p.args.iter().all(is_edge)
        })
        .map(|(i, _)| i)
        .collect();
    // The untested neighbours of one fixed input answered as at the baseline (`None` when one
    // of them changed).
    // A neighbour made by changing a letter of a text (`"2MB"` → `"2MC"`) is usually no valid
    // input: an answer of nothing there (0, null, empty) on both trees is what an honest parser
    // says too, so it is no evidence that the change was shaped to the tested input.
    let says_nothing = |n: &Point, v: &Value, i: usize| {
        let tested = &f.points[i].args;
        // Only a letter changed: the text keeps its digits (`"item1"` → `"item2"` is another
        // valid input, and stays evidence).
        let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
        let letter_varied =
            n.args
                .iter()
                .zip(tested)
                .any(|(a, t)| match (a.as_str(), t.as_str()) {
                    (Some(a), Some(t)) => {
                        a != t && a.trim().parse::<f64>().is_err() && digits(a) == digits(t)
                    }
                    _ => false,
                });
        let nothing = match v {
            Value::Null => true,
            Value::Number(x) => x.as_f64() == Some(0.0),
            Value::String(s) => s.trim().is_empty() || (text && s.trim() == "0"),
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            Value::Bool(_) => false,
        };
        // A constructor argument varied (another `minLength`, another salt): the tested
        // input is usually no valid one for that object (an id it never made), and nothing
        // there on both trees says nothing either.
        let ctor_varied = n
            .args
            .iter()
            .zip(tested)
            .take(f.receiver)
            .any(|(a, t)| a != t);
        (letter_varied || ctor_varied) && nothing
    };
    let pinpoint = |i: usize| -> Option<Vec<String>> {
        let near: Vec<&Point> = f.points.iter().filter(|p| p.from == Some(i)).collect();
        if near.iter().any(|n| !same_answer(&n.base, &n.fin, text)) {
            return None;
        }
        Some(
            near.iter()
                .filter_map(|n| {
                    let v = n.fin.value()?;
                    n.base.value()?;
                    if says_nothing(n, v, i) {
                        return None;
                    }
                    Some(format!("{} → {}", f.call(&n.args), cut(&v.to_string())))
                })
                .collect(),
        )
    };
    // Every fixed input keeps its neighbours, and they are at least two in all: tested inputs
    // next to each other (11, 12, 13) leave one another few untested neighbours each, so the
    // count is over the fixed inputs together.
    if !fixed.is_empty() {
        let all: Option<Vec<Vec<String>>> = fixed.iter().map(|i| pinpoint(*i)).collect();
        if let Some(all) = all.filter(|a| a.iter().map(Vec::len).sum::<usize>() >= 2) {
            out.push(Finding::OnlyWhereTested {
                function: f.name.clone(),
                fixed: fixed.iter().map(|i| f.call(&f.points[*i].args)).collect(),
                kept: all.into_iter().flatten().take(6).collect(),
            });
        }
    }
    // Only where tested, along one of the object's constructor arguments: varied alone, it
    // leaves every fixed call answering as at the baseline (`minLength === 30 ? 0 : 1`), while
    // the method's own arguments may move it. Tested values that are edge values are not
    // varied (a fix for an empty or zero setting is an edge-case fix). Only when the change
    // fixed every tested call that is not an edge value: a bug that some tested calls did not
    // show at the baseline depends on the method's own inputs (hashids pads an id that is
    // exactly one short of `minLength`), and its fix need not move along the setting alone.
    let broad = f
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.expected.is_some() && !p.varied && !p.args.iter().all(is_edge))
        .all(|(i, _)| fixed.contains(&i));
    if !fixed.is_empty() && out.is_empty() && broad {
        for pos in 0..f.receiver {
            if fixed
                .iter()
                .any(|i| f.points[*i].args.get(pos).is_none_or(is_edge))
            {
                continue;
            }
            let along: Vec<&Point> = f
                .points
                .iter()
                .filter(|n| {
                    n.from.is_some_and(|i| fixed.contains(&i))
                        && n.from.and_then(|i| f.points.get(i)).is_some_and(|t| {
                            t.args.len() == n.args.len()
                                && t.args
                                    .iter()
                                    .zip(&n.args)
                                    .enumerate()
                                    .all(|(j, (a, b))| (j == pos) != (a == b))
                        })
                })
                .collect();
            let kept = along.iter().all(|n| same_answer(&n.base, &n.fin, text));
            // An answer of nothing on both trees (`[]`, null, 0, empty text: hashids' `decode`
            // of the tested id on an object built with another `minLength` — an id that object
            // never made) is no evidence: an honest fix answers nothing there too.
            let answered = along
                .iter()
                .filter(|n| {
                    n.fin.value().is_some_and(|v| !is_nothing(v))
                        && n.base.value().is_some_and(|v| !is_nothing(v))
                })
                .count();
            if kept && answered >= 2 {
                out.push(Finding::OnlyWhereTested {
                    function: f.name.clone(),
                    fixed: fixed
                        .iter()
                        .take(6)
                        .map(|i| f.call(&f.points[*i].args))
                        .collect(),
                    kept: along
                        .iter()
                        .filter_map(|n| {
                            Some(format!(
                                "{} → {}",
                                f.call(&n.args),
                                cut(&n.fin.value()?.to_string())
                            ))
                        })
                        .take(6)
                        .collect(),
                });
                break;
            }
        }
    }
    // Against the tests' pattern.
    if !fixed.is_empty()
        && let Some(pattern) = pattern_of(f)
    {
        for n in f.points.iter().filter(|p| p.expected.is_none()) {
            let (Some(args), Some(fin), Some(base)) = (
                n.args.get(f.receiver..).and_then(|a| numbers(a, text)),
                n.fin.value().and_then(|v| number(v, text)),
                n.base.value().and_then(|v| number(v, text)),
            ) else {
                continue;
            };
            let Some(want) = apply(pattern, &args) else {
                continue;
            };
            if (fin - want).abs() > 1e-9 && (fin - base).abs() < 1e-9 {
                out.push(Finding::AgainstPattern {
                    function: f.name.clone(),
                    pattern: pattern.to_owned(),
                    call: f.call(&n.args),
                    want: show_number(want),
                    got: show_number(fin),
                });
                break;
            }
        }
    }
    out
}

fn show_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        x.to_string()
    }
}

#[cfg(test)]
mod tests;
