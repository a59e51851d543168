//! The child processes of the probes (issue 33): the program that calls a product function with
//! plain-data arguments outside the test runner, and the reading of its answers. Pure: the
//! engine runs the programs (in the room, under the check sandbox) and `pawl_core::probe`
//! decides what the answers mean.
//!
//! - Python and Node: one process for a batch of calls, the program on stdin (no file of pawl's
//!   in the tree or on the interpreter's path); it imports the product module as its users do
//!   and prints one line per call, marked with a nonce the program was given, so the code under
//!   test cannot pass its own output for an answer by printing. The expectation is never in the
//!   program: only the function and its arguments.
//! - Go and Rust: one build for a batch of calls of one file, generated into the room's copy of
//!   the package and never into the user's tree: a `_test.go` file of the package (`go test -run`
//!   of its one test), or a `#[cfg(test)]` module appended to the Rust file that defines the
//!   function (`cargo test --lib` of its one test), so private functions are callable as the
//!   tests call them. Each call sits on a line of its own: a call that does not compile (an
//!   argument of another type) is named by the compiler's line and left out ([`error_lines`]).
//!   Multiple results: Go's `(v, err)` answers `v`, or raises with a non-nil `err`; Rust's
//!   `Ok(v)` answers `v`, `Err(e)` raises.
//! - Shell: one process per call, `sh -c '. ./lib.sh; f "$@"'` with the arguments as arguments,
//!   by the shell the tests run the script under ([`shell_for`]); the answer is the printed text
//!   without its trailing newlines (what `"$(f a b)"` sees).
//!
//! An answer must be plain data (numbers, strings, booleans, null, lists and maps of these);
//! anything else (an object with its own equality, a subclass) answers as raising
//! "not plain data".

use std::path::{Component, Path};

use pawl_core::probe::Answer;
use serde_json::Value;

/// How a probe's call is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    Python,
    Node,
    Shell,
    Go,
    Rust,
}

/// One call: the product file (relative to the room's root), the function, the arguments.
/// For a method: the class whose object it is called on, how many of `args` lead as the
/// constructor's, and the calls made on the object first (as the test made them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Call {
    pub file: String,
    pub function: String,
    pub args: Vec<Value>,
    pub class: Option<String>,
    pub receiver: usize,
    pub before: Vec<(String, Vec<Value>)>,
}

impl Call {
    /// `[class or null, constructor args, [[method, args] …] before, the call's own args]`.
    fn object_parts(&self) -> [Value; 4] {
        let k = self.receiver.min(self.args.len());
        let before = self
            .before
            .iter()
            .map(|(m, a)| Value::Array(vec![Value::String(m.clone()), Value::Array(a.clone())]))
            .collect();
        [
            self.class.clone().map(Value::String).unwrap_or(Value::Null),
            Value::Array(self.args[..k].to_vec()),
            Value::Array(before),
            Value::Array(self.args[k..].to_vec()),
        ]
    }
}

/// A child process to start: program, arguments, stdin.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub program: String,
    pub args: Vec<String>,
    pub stdin: Vec<u8>,
    /// The directory it runs in, relative to the room's root (`None`: the root).
    pub cwd: Option<String>,
}

/// The Python module of a product file and the directory its import starts from: `calc.py` →
/// (`.`, `calc`), `pkg/util.py` → (`.`, `pkg.util`), `src/pkg/__init__.py` → (`src`, `pkg`).
pub fn python_module(path: &str) -> Option<(String, String)> {
    let p = Path::new(path);
    if p.extension().is_none_or(|e| e != "py") {
        return None;
    }
    let mut parts: Vec<String> = Vec::new();
    for c in p.with_extension("").components() {
        match c {
            Component::Normal(s) => parts.push(s.to_str()?.to_owned()),
            _ => return None,
        }
    }
    let root = if parts.len() > 1 && parts[0] == "src" {
        parts.remove(0);
        "src"
    } else {
        "."
    };
    if parts.last().is_some_and(|l| l == "__init__") {
        parts.pop();
    }
    let ok = !parts.is_empty()
        && parts.iter().all(|s| {
            !s.is_empty()
                && s.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !s.starts_with(|c: char| c.is_ascii_digit())
        });
    ok.then(|| (root.to_owned(), parts.join(".")))
}

const PYTHON: &str = r#"import asyncio, importlib, inspect, json, os, sys
sys.dont_write_bytecode = True
_n, _calls = __N__, json.loads(__CALLS__)
_vt = []
for _row in json.loads(__VALUES__):
    try:
        _vt.append((_row, getattr(importlib.import_module(_row["module"]), _row["type"])))
    except BaseException:
        pass
def _rebuild(v):
    t = type(v)
    if t is list:
        return [_rebuild(x) for x in v]
    if t is dict:
        if set(v) == {"$value", "$fields"}:
            for _row, _t in _vt:
                if _row["name"] == v["$value"]:
                    return _t(*v["$fields"])
        return {k: _rebuild(x) for k, x in v.items()}
    return v
def _plain(v, d=0):
    if d > 40:
        raise TypeError("not plain data: nested too deep")
    t = type(v)
    if v is None or t is bool or t is str or t is int:
        return v
    if t is float:
        if v != v or v in (float("inf"), float("-inf")):
            return repr(v)
        return v
    if t is list or t is tuple:
        return [_plain(x, d + 1) for x in v]
    if t is dict:
        return {(k if type(k) is str else json.dumps(_plain(k, d + 1))): _plain(x, d + 1) for k, x in v.items()}
    for _row, _t in _vt:
        if t is _t:
            if getattr(v, "tzinfo", None) is not None:
                raise TypeError("not plain data: a value with a time zone")
            return {"$value": _row["name"], "$fields": [getattr(v, f) for f in _row["fields"]]}
    raise TypeError("not plain data: " + t.__module__ + "." + t.__qualname__)
_w = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
def _out(o):
    _w.write(_n + " " + json.dumps(o) + "\n")
    _w.flush()
async def _awaited(x):
    return await x
def _done(r):
    return asyncio.run(_awaited(r)) if inspect.isawaitable(r) else r
def _made(x, on):
    if type(x) is dict and set(x) == {"$call", "$args"}:
        return _done(getattr(on, x["$call"])(*x["$args"]))
    return x
for _i, (_root, _mod, _f, _cls, _ca, _before, _a) in enumerate(_calls):
    _r = os.path.abspath(_root)
    if _r not in sys.path:
        sys.path.insert(0, _r)
    try:
        _m = importlib.import_module(_mod)
        _fn = getattr(_m, _cls if _cls is not None else _f)
    except BaseException as e:
        _out({"i": _i, "missing": type(e).__name__ + ": " + str(e)[:300]})
        continue
    try:
        _on = _m
        if _cls is not None:
            _o = _fn(*_rebuild(_ca))
            for _bm, _ba in _before:
                _done(getattr(_o, _bm)(*_rebuild(_ba)))
            _fn = getattr(_o, _f)
            _on = _o
        _out({"i": _i, "value": _plain(_done(_fn(*[_made(x, _on) for x in _rebuild(_a)])))})
    except BaseException as e:
        _out({"i": _i, "raised": type(e).__name__ + ": " + str(e)[:300]})
"#;

const NODE: &str = r#"'use strict';
const { pathToFileURL } = require('url');
const path = require('path');
const N = __N__;
const CALLS = JSON.parse(__CALLS__);
function plain(v, d) {
  if (d > 40) throw new TypeError('not plain data: nested too deep');
  if (v === null || v === undefined) return null;
  const t = typeof v;
  if (t === 'string' || t === 'boolean') return v;
  if (t === 'number') return Number.isFinite(v) ? v : String(v);
  if (Array.isArray(v) && Object.getPrototypeOf(v) === Array.prototype) return v.map((x) => plain(x, d + 1));
  if (t === 'object') {
    const proto = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) {
      const o = {};
      for (const k of Object.keys(v)) o[k] = plain(v[k], d + 1);
      return o;
    }
  }
  const name = v && v.constructor && v.constructor.name;
  throw new TypeError('not plain data: ' + (name || t));
}
const fs = require('fs');
process.stdout.write = (chunk, enc, cb) => process.stderr.write(chunk, enc, cb);
function out(o) { fs.writeSync(1, N + ' ' + JSON.stringify(o) + '\n'); }
// TypeScript: compiled on load by the project's own compiler (typescript, else esbuild), as
// its test runner's transform does; nothing of the runner is loaded.
function tsCompiler() {
  const root = __TOOLS__ || process.cwd();
  const from = (name) => {
    try { return require(require.resolve(name, { paths: [root] })); } catch (e) {}
    try {
      const store = path.join(root, 'node_modules', '.pnpm');
      for (const d of fs.readdirSync(store)) {
        if (d.startsWith(name + '@')) return require(path.join(store, d, 'node_modules', name));
      }
    } catch (e) {}
    return null;
  };
  const ts = from('typescript');
  if (ts) {
    return (src, file) => ts.transpileModule(src, { fileName: file, compilerOptions: {
      module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, esModuleInterop: true } }).outputText;
  }
  const esbuild = from('esbuild');
  if (esbuild) {
    return (src, file) => esbuild.transformSync(src, { loader: file.endsWith('x') ? 'tsx' : 'ts',
      format: 'cjs', target: 'es2020', sourcefile: file }).code;
  }
  return null;
}
function load(file) {
  const abs = path.resolve(file);
  if (!/\.[cm]?tsx?$/.test(abs)) return import(pathToFileURL(abs).href);
  const compile = tsCompiler();
  if (!compile) throw new Error('no TypeScript compiler (typescript or esbuild) in the project to load ' + file);
  const Module = require('module');
  for (const ext of ['.ts', '.tsx', '.mts', '.cts']) {
    Module._extensions[ext] = (m, f) => m._compile(compile(fs.readFileSync(f, 'utf8'), f), f);
  }
  return Promise.resolve(require(abs));
}
function member(m, name) {
  let fn = m[name];
  const d = m.default;
  if (fn === undefined && d) {
    if (d[name] !== undefined) fn = d[name];
    else if (typeof d === 'function' && d.name === name) fn = d;
  }
  return fn;
}
(async () => {
  for (let i = 0; i < CALLS.length; i++) {
    const [file, name, cls, ctorArgs, before, args] = CALLS[i];
    let fn;
    try {
      const m = await load(file);
      fn = member(m, cls === null ? name : cls);
      if (typeof fn !== 'function') throw new Error((cls === null ? name : cls) + ' is not exported by ' + file);
    } catch (e) {
      out({ i, missing: String((e && e.message) || e).slice(0, 300) });
      continue;
    }
    try {
      let on = null;
      if (cls !== null) {
        const o = new fn(...ctorArgs);
        for (const [bm, ba] of before) {
          const r = o[bm](...ba);
          if (r && typeof r.then === 'function') await r;
        }
        if (typeof o[name] !== 'function') throw new TypeError(name + ' is not a method of ' + cls);
        fn = o[name].bind(o);
        on = o;
      }
      // An argument made by a call on the same object (or module) first: a round trip.
      const own = [];
      for (const x of args) {
        const made = x !== null && typeof x === 'object' && !Array.isArray(x)
          && Object.keys(x).length === 2 && typeof x.$call === 'string' && Array.isArray(x.$args);
        if (!made) { own.push(x); continue; }
        const g = on !== null ? on[x.$call] : member(await load(file), x.$call);
        if (typeof g !== 'function') throw new TypeError(x.$call + ' is not a function');
        let r = on !== null ? g.apply(on, x.$args) : g(...x.$args);
        if (r && typeof r.then === 'function') r = await r;
        own.push(r);
      }
      let v = fn(...own);
      if (v && typeof v.then === 'function') v = await v;
      out({ i, value: plain(v, 0) });
    } catch (e) {
      out({ i, raised: (String(e && e.name) + ': ' + String(e && e.message)).slice(0, 300) });
    }
  }
})().then(() => process.exit(0), () => process.exit(0));
"#;

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Where a batch finds the package (docs/verification.md, "Probes", "Where"): the room's tree
/// as the checks see it (the default), or a directory laid out as the package's users get it
/// (`crate::userenv`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Place {
    /// Python: the directory every module is imported from (a site-packages holding the package
    /// and its runtime dependencies) instead of the file's root in the room.
    pub python_root: Option<String>,
    /// Python: the directory the program runs in (`python -` puts it first on `sys.path`: the
    /// room's root would put the tree's modules and tests before the site's).
    pub python_dir: Option<String>,
    /// Node: the directory the program runs in and a prefix for the files (`node_modules/pad`:
    /// the package installed there, beside its runtime dependencies only).
    pub node_dir: Option<String>,
    pub node_prefix: Option<String>,
    /// Node: the room's root, where the project's own TypeScript compiler is found (a
    /// development dependency of pawl's program, never of the package's resolution).
    pub node_tools: Option<String>,
}

/// The program of a batch of calls (Python or Node), read from stdin by `interpreter -`.
pub fn batch(runtime: Runtime, interpreter: &str, calls: &[Call], nonce: &str) -> Option<Program> {
    batch_at(runtime, interpreter, calls, nonce, &Place::default())
}

/// [`batch`] with the package found at `place`.
pub fn batch_at(
    runtime: Runtime,
    interpreter: &str,
    calls: &[Call],
    nonce: &str,
    place: &Place,
) -> Option<Program> {
    let list: Vec<Value> = match runtime {
        Runtime::Python => calls
            .iter()
            .map(|c| {
                let (root, module) = python_module(&c.file)?;
                let root = place.python_root.clone().unwrap_or(root);
                let mut row = vec![
                    Value::String(root),
                    Value::String(module),
                    Value::String(c.function.clone()),
                ];
                row.extend(c.object_parts());
                Some(Value::Array(row))
            })
            .collect::<Option<Vec<Value>>>()?,
        Runtime::Node => calls
            .iter()
            .map(|c| {
                let file = match &place.node_prefix {
                    Some(prefix) => format!("./{prefix}/{}", c.file),
                    None => format!("./{}", c.file),
                };
                let mut row = vec![Value::String(file), Value::String(c.function.clone())];
                row.extend(c.object_parts());
                Value::Array(row)
            })
            .collect(),
        Runtime::Shell | Runtime::Go | Runtime::Rust => return None,
    };
    let text = Value::Array(list).to_string();
    let template = if runtime == Runtime::Python {
        PYTHON
    } else {
        NODE
    };
    let values = serde_json::to_string(crate::syntax::literal::python_values())
        .unwrap_or_else(|_| "[]".into());
    let tools = match &place.node_tools {
        Some(t) => quoted(t),
        None => "null".into(),
    };
    let src = template
        .replace("__TOOLS__", &tools)
        .replace("__N__", &quoted(nonce))
        .replace("__VALUES__", &quoted(&values))
        .replace("__CALLS__", &quoted(&text));
    Some(Program {
        program: interpreter.to_owned(),
        args: vec!["-".into()],
        stdin: src.into_bytes(),
        cwd: if runtime == Runtime::Node {
            place.node_dir.clone()
        } else {
            place.python_dir.clone()
        },
    })
}

/// The shells a shell probe may source a script with, by the name a check's command, a `#!`
/// line or the file's extension gives: (name, program). `bats` runs its tests, and what they
/// load, under bash.
const SHELLS: &[(&str, &str)] = &[
    ("bash", "bash"),
    ("bats", "bash"),
    ("zsh", "zsh"),
    ("ksh", "ksh"),
    ("mksh", "mksh"),
    ("dash", "dash"),
    ("sh", "/bin/sh"),
];

fn shell_named(word: &str) -> Option<&'static str> {
    SHELLS
        .iter()
        .find(|(n, _)| crate::shell::program_is(word, n))
        .map(|(_, p)| *p)
}

/// The shell a probe sources the script `file` (its text `text`) with: the one its tests run it
/// under, so that the script reads as it does under test (`${BASH_SOURCE[0]}`, `[[ ]]` and
/// arrays are errors to a POSIX `sh` such as dash). In order: the shell a check's command runs
/// (`bash test/test_semver.sh`, `bats test/`; a shell other than `sh` first, as `sh -c "bash
/// t.sh"` runs bash), the file's own `#!` line, a `.bash` extension, else `/bin/sh`.
pub fn shell_for(file: &str, text: &str, checks: &[&str]) -> &'static str {
    // The programs the checks run, read with the shell parser (`crate::shell::programs`).
    let named: Vec<&'static str> = checks
        .iter()
        .flat_map(|c| crate::shell::programs(c))
        .filter_map(|w| shell_named(&w))
        .collect();
    if let Some(p) = named.iter().find(|p| **p != "/bin/sh").or(named.first()) {
        return p;
    }
    if let Some(line) = text.lines().next().and_then(|l| l.strip_prefix("#!")) {
        let mut parts = line.split_whitespace();
        let first = parts.next().unwrap_or("");
        let program = if crate::shell::program_is(first, "env") {
            parts.find(|w| !w.starts_with('-')).unwrap_or("")
        } else {
            first
        };
        if let Some(p) = shell_named(program) {
            return p;
        }
    }
    if file.ends_with(".bash") {
        return "bash";
    }
    "/bin/sh"
}

/// A shell call: the file sourced, the function called with the arguments as words.
pub fn shell_call(shell: &str, call: &Call) -> Program {
    let word = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let mut args = vec![
        "-c".to_owned(),
        ". \"./$1\" >/dev/null 2>&1 </dev/null; shift; \"$@\"".to_owned(),
        "probe".to_owned(),
        call.file.clone(),
        call.function.clone(),
    ];
    args.extend(call.args.iter().map(word));
    Program {
        program: shell.to_owned(),
        args,
        stdin: Vec::new(),
        cwd: None,
    }
}

/// A probe program generated into the room: the file written (relative to the room's root),
/// its whole text, the command that builds and runs it, and the line of each call in the file
/// (1-based), for [`error_lines`].
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    pub file: String,
    pub text: String,
    pub program: Program,
    pub lines: Vec<usize>,
}

/// A plain-data argument as Go source: numbers, text, booleans, nil, and a list whose items
/// are all of one kind as a slice of the type they say (`[]string{…}`, `[][]string{…}`,
/// `[]int{…}`, `[]float64{…}`: a function taking another type does not compile, and the call
/// is left out as such). `None`: a map, an empty or mixed list, whose Go type the literal does
/// not say.
fn go_literal(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("nil".into()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        // JSON's escapes are Go's.
        Value::String(s) => serde_json::to_string(s).ok(),
        Value::Array(items) => {
            let ty = go_type(v)?;
            let inner: Vec<String> = items
                .iter()
                .map(|i| match i {
                    // A float item of a `[]float64` written as an integer stays a float.
                    Value::Number(n) if ty == "[]float64" && !n.is_f64() => Some(format!("{n}.0")),
                    other => go_literal(other),
                })
                .collect::<Option<_>>()?;
            Some(format!("{ty}{{{}}}", inner.join(", ")))
        }
        Value::Object(_) => None,
    }
}

/// The Go type a plain-data value says: `string`, `int`, `float64`, `bool`, and slices of one
/// of these (`None`: null, a map, an empty or mixed list).
fn go_type(v: &Value) -> Option<String> {
    match v {
        Value::Bool(_) => Some("bool".into()),
        Value::Number(n) if n.is_f64() => Some("float64".into()),
        Value::Number(_) => Some("int".into()),
        Value::String(_) => Some("string".into()),
        Value::Array(items) => {
            let mut ty: Option<String> = None;
            for i in items {
                let t = go_type(i)?;
                ty = match ty {
                    None => Some(t),
                    Some(u) if u == t => Some(u),
                    // Integers among floats: a `[]float64`.
                    Some(u)
                        if matches!(
                            (u.as_str(), t.as_str()),
                            ("int", "float64") | ("float64", "int")
                        ) =>
                    {
                        Some("float64".into())
                    }
                    Some(_) => return None,
                };
            }
            Some(format!("[]{}", ty?))
        }
        Value::Null | Value::Object(_) => None,
    }
}

/// A plain-data argument as Rust source (`None`: a list or map, whose Rust type the literal
/// does not say).
fn rust_literal(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("None".into()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) if n.is_f64() => {
            let t = n.to_string();
            Some(if t.contains(['.', 'e', 'E']) {
                t
            } else {
                format!("{t}.0")
            })
        }
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(format!("{s:?}")),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// The calls of a probe as source lines, one per call, written where `head` has
/// `__CALLS__`: the lines, and each call's line number in the file (0: the call has an
/// argument the language cannot write without a type, left out).
fn call_lines(
    calls: &[Call],
    head: &str,
    lit: fn(&Value) -> Option<String>,
    line: impl Fn(usize, &str) -> String,
) -> (String, Vec<usize>) {
    let mut next = first_line_of(head, "__CALLS__");
    let mut body = String::new();
    let mut lines = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        match call_source(c, lit) {
            Some(src) => {
                body.push_str(&line(i, &src));
                lines.push(next);
                next += 1;
            }
            None => lines.push(0),
        }
    }
    (body, lines)
}

/// The call as source, `None` when an argument has no literal in the language.
fn call_source(c: &Call, lit: fn(&Value) -> Option<String>) -> Option<String> {
    let args: Option<Vec<String>> = c.args.iter().map(lit).collect();
    Some(format!("{}({})", c.function, args?.join(", ")))
}

const GO: &str = r#"package __PKG__

import (
	pawl__N__fmt "fmt"
	pawl__N__json "encoding/json"
	pawl__N__math "math"
	pawl__N__os "os"
	pawl__N__reflect "reflect"
	pawl__N__strconv "strconv"
	pawl__N__testing "testing"
)

func pawl__N__all(vs ...any) []any { return vs }

func pawl__N__plain(v pawl__N__reflect.Value, d int) (any, error) {
	if d > 40 {
		return nil, pawl__N__fmt.Errorf("not plain data: nested too deep")
	}
	if !v.IsValid() {
		return nil, nil
	}
	switch v.Kind() {
	case pawl__N__reflect.Bool:
		return v.Bool(), nil
	case pawl__N__reflect.Int, pawl__N__reflect.Int8, pawl__N__reflect.Int16, pawl__N__reflect.Int32, pawl__N__reflect.Int64:
		return v.Int(), nil
	case pawl__N__reflect.Uint, pawl__N__reflect.Uint8, pawl__N__reflect.Uint16, pawl__N__reflect.Uint32, pawl__N__reflect.Uint64:
		return v.Uint(), nil
	case pawl__N__reflect.Float32, pawl__N__reflect.Float64:
		f := v.Float()
		if pawl__N__math.IsNaN(f) || pawl__N__math.IsInf(f, 0) {
			return pawl__N__fmt.Sprint(f), nil
		}
		bits := 64
		if v.Kind() == pawl__N__reflect.Float32 {
			bits = 32
		}
		return pawl__N__json.Number(pawl__N__strconv.FormatFloat(f, 'g', -1, bits)), nil
	case pawl__N__reflect.String:
		return v.String(), nil
	case pawl__N__reflect.Slice, pawl__N__reflect.Array:
		if v.Kind() == pawl__N__reflect.Slice && v.IsNil() {
			return nil, nil
		}
		out := make([]any, v.Len())
		for i := range out {
			x, err := pawl__N__plain(v.Index(i), d+1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case pawl__N__reflect.Map:
		if v.Type().Key().Kind() != pawl__N__reflect.String {
			break
		}
		out := map[string]any{}
		for _, k := range v.MapKeys() {
			x, err := pawl__N__plain(v.MapIndex(k), d+1)
			if err != nil {
				return nil, err
			}
			out[k.String()] = x
		}
		return out, nil
	case pawl__N__reflect.Interface, pawl__N__reflect.Pointer:
		if v.IsNil() {
			return nil, nil
		}
		return pawl__N__plain(v.Elem(), d+1)
	}
	return nil, pawl__N__fmt.Errorf("not plain data: %s", v.Type())
}

func pawl__N__out(i int, f func() []any) {
	line := map[string]any{"i": i}
	func() {
		defer func() {
			if r := recover(); r != nil {
				line["raised"] = pawl__N__fmt.Sprintf("panic: %v", r)
			}
		}()
		vs := f()
		var v any = vs
		if len(vs) == 1 {
			v = vs[0]
		} else if len(vs) == 2 {
			if e, ok := vs[1].(error); ok || vs[1] == nil {
				if e != nil {
					line["raised"] = "error: " + e.Error()
					return
				}
				v = vs[0]
			}
		}
		p, err := pawl__N__plain(pawl__N__reflect.ValueOf(v), 0)
		if err != nil {
			line["raised"] = err.Error()
			return
		}
		line["value"] = p
	}()
	b, err := pawl__N__json.Marshal(line)
	if err != nil {
		b = []byte(pawl__N__fmt.Sprintf("{\"i\":%d,\"raised\":%q}", i, err.Error()))
	}
	pawl__N__os.Stdout.WriteString("__N__ " + string(b) + "\n")
}

func TestPawl__N__(t *pawl__N__testing.T) {
__CALLS__}
"#;

/// The 1-based line `mark` starts on in `text`.
fn first_line_of(text: &str, mark: &str) -> usize {
    text[..text.find(mark).unwrap_or(text.len())]
        .matches('\n')
        .count()
        + 1
}

/// The Go probe of `calls` (all of one package, the directory `dir` relative to the room's
/// root, whose `package` clause names `package`): a test file of its own in that package, run
/// alone. Calls with an argument Go cannot write without a type are not in it (`lines` 0).
pub fn go_probe(calls: &[Call], nonce: &str, package: &str, dir: &str) -> Generated {
    let head = GO.replace("__PKG__", package).replace("__N__", nonce);
    let (body, lines) = call_lines(calls, &head, go_literal, |i, src| {
        format!("\tpawl{nonce}out({i}, func() []any {{ return pawl{nonce}all({src}) }})\n")
    });
    let text = head.replace("__CALLS__", &body);
    let name = format!("zz_pawl_probe_{nonce}_test.go");
    let file = if dir.is_empty() || dir == "." {
        name
    } else {
        format!("{dir}/{name}")
    };
    Generated {
        file,
        text,
        program: Program {
            program: "go".into(),
            args: vec![
                "test".into(),
                "-count=1".into(),
                "-vet=off".into(),
                "-v".into(),
                "-run".into(),
                format!("^TestPawl{nonce}$"),
                ".".into(),
            ],
            stdin: Vec::new(),
            cwd: (!dir.is_empty() && dir != ".").then(|| dir.to_owned()),
        },
        lines,
    }
}

const RUST: &str = r#"

#[cfg(test)]
#[allow(warnings, clippy::all)]
mod __pawl_probe___N__ {
    use super::*;
    pub trait PawlPlain {
        fn pawl_json(&self, o: &mut String) -> Result<(), String>;
    }
    fn pawl_str(s: &str, o: &mut String) {
        o.push('"');
        for c in s.chars() {
            match c {
                '"' => o.push_str("\\\""),
                '\\' => o.push_str("\\\\"),
                c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
                c => o.push(c),
            }
        }
        o.push('"');
    }
    macro_rules! pawl_int {
        ($($t:ty),*) => {$(
            impl PawlPlain for $t {
                fn pawl_json(&self, o: &mut String) -> Result<(), String> {
                    o.push_str(&self.to_string());
                    Ok(())
                }
            }
        )*};
    }
    pawl_int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    macro_rules! pawl_float {
        ($($t:ty),*) => {$(
            impl PawlPlain for $t {
                fn pawl_json(&self, o: &mut String) -> Result<(), String> {
                    if self.is_finite() {
                        o.push_str(&format!("{:?}", self));
                    } else {
                        pawl_str(&self.to_string(), o);
                    }
                    Ok(())
                }
            }
        )*};
    }
    pawl_float!(f32, f64);
    impl PawlPlain for bool {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            o.push_str(if *self { "true" } else { "false" });
            Ok(())
        }
    }
    impl PawlPlain for str {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            pawl_str(self, o);
            Ok(())
        }
    }
    impl PawlPlain for String {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            pawl_str(self, o);
            Ok(())
        }
    }
    impl PawlPlain for char {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            pawl_str(&self.to_string(), o);
            Ok(())
        }
    }
    impl PawlPlain for () {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            o.push_str("null");
            Ok(())
        }
    }
    impl<T: PawlPlain + ?Sized> PawlPlain for &T {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            (**self).pawl_json(o)
        }
    }
    impl<T: PawlPlain> PawlPlain for Option<T> {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            match self {
                Some(v) => v.pawl_json(o),
                None => {
                    o.push_str("null");
                    Ok(())
                }
            }
        }
    }
    impl<T: PawlPlain, E: std::fmt::Debug> PawlPlain for Result<T, E> {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            match self {
                Ok(v) => v.pawl_json(o),
                Err(e) => Err(format!("Err({:?})", e)),
            }
        }
    }
    fn pawl_list<'a, T: PawlPlain + 'a>(
        items: impl Iterator<Item = &'a T>,
        o: &mut String,
    ) -> Result<(), String> {
        o.push('[');
        for (k, x) in items.enumerate() {
            if k > 0 {
                o.push(',');
            }
            x.pawl_json(o)?;
        }
        o.push(']');
        Ok(())
    }
    impl<T: PawlPlain> PawlPlain for [T] {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            pawl_list(self.iter(), o)
        }
    }
    impl<T: PawlPlain, const K: usize> PawlPlain for [T; K] {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            pawl_list(self.iter(), o)
        }
    }
    impl<T: PawlPlain> PawlPlain for Vec<T> {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            pawl_list(self.iter(), o)
        }
    }
    impl<A: PawlPlain, B: PawlPlain> PawlPlain for (A, B) {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            o.push('[');
            self.0.pawl_json(o)?;
            o.push(',');
            self.1.pawl_json(o)?;
            o.push(']');
            Ok(())
        }
    }
    impl<V: PawlPlain> PawlPlain for std::collections::BTreeMap<String, V> {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            o.push('{');
            for (k, (key, v)) in self.iter().enumerate() {
                if k > 0 {
                    o.push(',');
                }
                pawl_str(key, o);
                o.push(':');
                v.pawl_json(o)?;
            }
            o.push('}');
            Ok(())
        }
    }
    impl<V: PawlPlain, S> PawlPlain for std::collections::HashMap<String, V, S> {
        fn pawl_json(&self, o: &mut String) -> Result<(), String> {
            o.push('{');
            for (k, (key, v)) in self.iter().enumerate() {
                if k > 0 {
                    o.push(',');
                }
                pawl_str(key, o);
                o.push(':');
                v.pawl_json(o)?;
            }
            o.push('}');
            Ok(())
        }
    }
    pub struct PawlW<'a, T: ?Sized>(pub &'a T);
    pub trait PawlViaPlain {
        fn pawl_answer(&self) -> Result<String, String>;
    }
    impl<'a, T: PawlPlain + ?Sized> PawlViaPlain for PawlW<'a, T> {
        fn pawl_answer(&self) -> Result<String, String> {
            let mut o = String::new();
            self.0.pawl_json(&mut o)?;
            Ok(o)
        }
    }
    pub trait PawlViaAny {
        fn pawl_answer(&self) -> Result<String, String>;
    }
    impl<'a, T: ?Sized> PawlViaAny for &PawlW<'a, T> {
        fn pawl_answer(&self) -> Result<String, String> {
            Err(format!("not plain data: {}", std::any::type_name::<T>()))
        }
    }
    fn pawl_out(i: usize, f: impl FnOnce() -> Result<String, String>) {
        use std::io::Write as _;
        let line = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(Ok(v)) => format!("{{\"i\":{},\"value\":{}}}", i, v),
            Ok(Err(e)) => {
                let mut o = String::new();
                pawl_str(&e, &mut o);
                format!("{{\"i\":{},\"raised\":{}}}", i, o)
            }
            Err(p) => {
                let why = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let mut o = String::new();
                pawl_str(&format!("panic: {}", why), &mut o);
                format!("{{\"i\":{},\"raised\":{}}}", i, o)
            }
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "__N__ {}", line);
        let _ = out.flush();
    }
    #[test]
    fn probe() {
        std::panic::set_hook(Box::new(|_| {}));
__CALLS__    }
}
"#;

/// The Rust probe of `calls` (all of one file, `file` relative to the room's root, whose text
/// is `original`): a `#[cfg(test)]` module appended to the file, run alone by `cargo test` in
/// `crate_dir` (`--bins` for a binary's file, else `--lib`). Calls with an argument Rust
/// cannot write without a type are not in it (`lines` 0).
pub fn rust_probe(
    calls: &[Call],
    nonce: &str,
    file: &str,
    original: &str,
    crate_dir: &str,
    bins: bool,
) -> Generated {
    let mut head = original.to_owned();
    if !head.ends_with('\n') {
        head.push('\n');
    }
    head.push_str(&RUST.replace("__N__", nonce));
    let (body, lines) = call_lines(calls, &head, rust_literal, |i, src| {
        format!("        pawl_out({i}, || {{ let v = {src}; (&PawlW(&v)).pawl_answer() }});\n")
    });
    let text = head.replace("__CALLS__", &body);
    Generated {
        file: file.to_owned(),
        text,
        program: Program {
            program: "cargo".into(),
            args: vec![
                "test".into(),
                "-q".into(),
                if bins { "--bins" } else { "--lib" }.into(),
                format!("__pawl_probe_{nonce}::"),
                "--".into(),
                "--nocapture".into(),
                "--test-threads=1".into(),
            ],
            stdin: Vec::new(),
            cwd: (!crate_dir.is_empty() && crate_dir != ".").then(|| crate_dir.to_owned()),
        },
        lines,
    }
}

/// The lines of `file` a compiler's output names as an error's place (`./x_test.go:12:5:`,
/// `--> src/lib.rs:40:9`), 1-based.
pub fn error_lines(output: &str, file: &str) -> Vec<usize> {
    let name = Path::new(file)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(file);
    let mut out: Vec<usize> = Vec::new();
    for line in output.lines() {
        let mut rest = line;
        while let Some(at) = rest.find(name) {
            let before = &rest[..at];
            let path_start = before
                .rfind(|c: char| c.is_whitespace())
                .map(|i| i + 1)
                .unwrap_or(0);
            let path = &rest[path_start..at + name.len()];
            let after = &rest[at + name.len()..];
            rest = after;
            let Some(num) = after.strip_prefix(':') else {
                continue;
            };
            let digits: String = num.chars().take_while(char::is_ascii_digit).collect();
            let same_file = Path::new(file).ends_with(path.trim_start_matches("./"))
                || Path::new(path).ends_with(file);
            if let (Ok(n), true) = (digits.parse::<usize>(), same_file)
                && !out.contains(&n)
            {
                out.push(n);
            }
        }
    }
    out
}

/// The answer of a call for which more than one line was printed.
pub const FORGED: &str = "more than one answer printed for this call: the code under test wrote a line of the probe's own form";

/// The answers of a batch of `n` calls, from the process's stdout: a call with no line of its
/// own (the process died first, or printed nothing readable) has none.
pub fn read_batch(stdout: &str, nonce: &str, n: usize) -> Vec<Answer> {
    let mut out: Vec<Answer> = vec![Answer::Missing("the probe process gave no answer".into()); n];
    let mark = format!("{nonce} ");
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix(&mark) else {
            continue;
        };
        let Ok(Value::Object(o)) = serde_json::from_str::<Value>(rest) else {
            continue;
        };
        let Some(i) = o.get("i").and_then(Value::as_u64).map(|i| i as usize) else {
            continue;
        };
        let Some(slot) = out.get_mut(i) else {
            continue;
        };
        // Two lines for one call: the code under test printed one of the probe's own form
        // (it found the mark): that is an answer of its own making, never the call's.
        if !matches!(slot, Answer::Missing(_)) {
            *slot = Answer::Raised(FORGED.into());
            continue;
        }
        let text = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        *slot = if let Some(v) = o.get("value") {
            Answer::Value(v.clone())
        } else if o.contains_key("raised") {
            Answer::Raised(text("raised"))
        } else {
            Answer::Missing(text("missing"))
        };
    }
    out
}

/// A shell call's answer: its output without trailing newlines, as `"$(f a b)"` sees it.
pub fn read_shell(stdout: &str) -> Answer {
    Answer::Value(Value::String(stdout.trim_end_matches('\n').to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_modules_of_product_files() {
        assert_eq!(python_module("calc.py"), Some((".".into(), "calc".into())));
        assert_eq!(
            python_module("pkg/util.py"),
            Some((".".into(), "pkg.util".into()))
        );
        assert_eq!(
            python_module("src/pkg/__init__.py"),
            Some(("src".into(), "pkg".into()))
        );
        assert_eq!(python_module("my-tool/x.py"), None);
        assert_eq!(python_module("../x.py"), None);
        assert_eq!(python_module("calc.js"), None);
    }

    #[test]
    fn answers_are_read_by_the_nonce_and_a_second_line_is_forged() {
        let out = "noise\nN1 {\"i\":1,\"value\":5}\nN1 {\"i\":1,\"value\":6}\nN2 {\"i\":0,\"value\":1}\nN1 {\"i\":0,\"raised\":\"ValueError: x\"}\nN1 {\"i\":9,\"value\":1}\n";
        let a = read_batch(out, "N1", 3);
        assert_eq!(a[0], Answer::Raised("ValueError: x".into()));
        assert_eq!(a[1], Answer::Raised(FORGED.into()));
        assert!(matches!(a[2], Answer::Missing(_)));
        assert_eq!(
            read_shell("5\n\n"),
            Answer::Value(Value::String("5".into()))
        );
    }

    fn run(p: &Program, dir: &Path) -> Option<String> {
        use std::io::Write as _;
        let mut child = std::process::Command::new(&p.program)
            .args(&p.args)
            .current_dir(dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()?;
        child.stdin.take()?.write_all(&p.stdin).ok()?;
        let out = child.wait_with_output().ok()?;
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn calls(file: &str, f: &str, args: &[Value]) -> Vec<Call> {
        args.iter()
            .map(|a| Call {
                file: file.into(),
                function: f.into(),
                args: a.as_array().cloned().unwrap_or_default(),
                ..Call::default()
            })
            .collect()
    }

    /// The programs answer as the functions do, out of any test runner; an object that is not
    /// plain data, an exception, a missing function and the code's own printing are told apart.
    /// (Skipped where the interpreter is not installed.)
    #[test]
    fn the_programs_answer_in_a_process_of_their_own() {
        use serde_json::json;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("calc.py"),
            "import fractions\nprint('N1 {\"i\": 0, \"value\": 99}')\ndef add(a, b):\n    return a + b\ndef half(a):\n    return fractions.Fraction(a, 2)\n",
        )
        .unwrap();
        let mut c = calls("calc.py", "add", &[json!([2, 3]), json!(["a", 1])]);
        c.extend(calls("calc.py", "half", &[json!([1])]));
        c.extend(calls("calc.py", "nothing", &[json!([])]));
        let p = batch(Runtime::Python, "python3", &c, "N1").unwrap();
        if let Some(out) = run(&p, dir.path()) {
            let a = read_batch(&out, "N1", c.len());
            // The code's own printing goes to stderr: it cannot answer for a call.
            assert_eq!(a[0], Answer::Value(json!(5)), "{out}");
            assert!(
                matches!(&a[1], Answer::Raised(m) if m.starts_with("TypeError")),
                "{a:?}"
            );
            assert!(
                matches!(&a[2], Answer::Raised(m) if m.contains("not plain data")),
                "{a:?}"
            );
            assert!(
                matches!(&a[3], Answer::Missing(m) if m.contains("AttributeError")),
                "{a:?}"
            );
        }
        std::fs::write(
            dir.path().join("calc.js"),
            "console.log('N2 {\"i\": 0, \"value\": 99}');\nexports.add = (a, b) => a + b;\nexports.set = () => new Set([1]);\n",
        )
        .unwrap();
        let mut c = calls("calc.js", "add", &[json!([2, 3])]);
        c.extend(calls("calc.js", "set", &[json!([])]));
        let p = batch(Runtime::Node, "node", &c, "N2").unwrap();
        if let Some(out) = run(&p, dir.path()) {
            let a = read_batch(&out, "N2", c.len());
            assert_eq!(a[0], Answer::Value(json!(5)), "{out}");
            assert!(
                matches!(&a[1], Answer::Raised(m) if m.contains("not plain data")),
                "{a:?}"
            );
        }
        std::fs::write(
            dir.path().join("calc.sh"),
            "echo loaded\nadd() {\n  echo $(($1 + $2))\n}\n",
        )
        .unwrap();
        let c = &calls("calc.sh", "add", &[json!(["2", 3])])[0];
        let p = shell_call("sh", c);
        if let Some(out) = run(&p, dir.path()) {
            assert_eq!(read_shell(&out), Answer::Value(json!("5")));
        }
    }

    /// Constructions of standard-library value types (`values.toml`) cross as data: the child
    /// rebuilds `datetime.date(2024, 1, 31)` from its literal and prints an answer of exactly
    /// that type back as the same data; a subclass (`datetime` where a `date` is built) prints
    /// as its own type, a value with a time zone is not plain data. (Skipped where the
    /// interpreter is not installed.)
    #[test]
    fn a_python_probe_passes_and_answers_standard_value_types_as_data() {
        use serde_json::json;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("dates.py"),
            "import datetime\ndef next_day(d):\n    return d + datetime.timedelta(days=1)\ndef stamp(d):\n    return datetime.datetime(d.year, d.month, d.day, 1)\ndef zoned(d):\n    return datetime.datetime(d.year, d.month, d.day, tzinfo=datetime.timezone.utc)\n",
        )
        .unwrap();
        let date =
            |y: i64, m: i64, d: i64| json!({"$value": "datetime.date", "$fields": [y, m, d]});
        let mut c = calls("dates.py", "next_day", &[json!([date(2024, 2, 28)])]);
        c.extend(calls("dates.py", "stamp", &[json!([date(2024, 2, 28)])]));
        c.extend(calls("dates.py", "zoned", &[json!([date(2024, 2, 28)])]));
        let p = batch(Runtime::Python, "python3", &c, "N1").unwrap();
        if let Some(out) = run(&p, dir.path()) {
            let a = read_batch(&out, "N1", c.len());
            assert_eq!(a[0], Answer::Value(date(2024, 2, 29)), "{out}");
            assert_eq!(
                a[1],
                Answer::Value(
                    json!({"$value": "datetime.datetime", "$fields": [2024, 2, 28, 1, 0, 0, 0]})
                ),
                "{out}"
            );
            assert!(
                matches!(&a[2], Answer::Raised(m) if m.contains("time zone")),
                "{a:?}"
            );
        }
    }

    /// The probe sources a script with the shell its tests run it under (the fixture
    /// `sh-honest-new-lib`: under dash, `${BASH_SOURCE[0]}` is a bad substitution and the
    /// script answered nothing where its tests, run by bash, pass).
    #[test]
    fn a_shell_probe_runs_the_script_under_the_tests_shell() {
        use serde_json::json;
        let rows: &[(&str, &str, &[&str], &str)] = &[
            (
                "semver.sh",
                "bump() { :; }\n",
                &["bash test/test_semver.sh"],
                "bash",
            ),
            ("semver.sh", "bump() { :; }\n", &["bats test/"], "bash"),
            ("semver.sh", "", &["sh -c \"bash t.sh\""], "bash"),
            ("semver.sh", "", &["/usr/bin/zsh t.sh"], "zsh"),
            ("semver.sh", "#!/bin/bash\n", &["sh t.sh"], "/bin/sh"),
            ("semver.sh", "#!/usr/bin/env bash\n", &["make test"], "bash"),
            ("semver.sh", "#!/usr/bin/env -S ksh\n", &[], "ksh"),
            ("semver.bash", "", &["make test"], "bash"),
            ("semver.sh", "#!/bin/sh\n", &["./test.sh"], "/bin/sh"),
            ("semver.sh", "", &[], "/bin/sh"),
            // read with the shell parser: a shell's name in an argument is no shell the
            // check runs (split on characters, both read as bash)
            (
                "semver.sh",
                "",
                &["grep -q 'bash' t.sh && sh t.sh"],
                "/bin/sh",
            ),
            ("semver.sh", "", &["echo bash; sh t.sh"], "/bin/sh"),
            ("semver.sh", "", &["env -i bash t.sh"], "bash"),
            // a word that only contains a shell's name is not that shell
            (
                "semver.sh",
                "",
                &["bashate x.sh", "shellcheck *.sh"],
                "/bin/sh",
            ),
        ];
        for (file, text, checks, want) in rows {
            assert_eq!(
                shell_for(file, text, checks),
                *want,
                "{file} {text:?} {checks:?}"
            );
        }
        // The fixture, run: bash finds the library beside the script.
        if std::process::Command::new("bash")
            .arg("--version")
            .output()
            .is_err()
        {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        std::fs::write(
            dir.path().join("semver.sh"),
            "SEMVER_DIR=$(dirname \"${BASH_SOURCE[0]}\")\n. \"$SEMVER_DIR/lib/parts.sh\"\nbump() {\n  next \"$1\"\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("lib/parts.sh"),
            "next() { echo \"$1.1\"; }\n",
        )
        .unwrap();
        let c = &calls("semver.sh", "bump", &[json!(["1"])])[0];
        let shell = shell_for("semver.sh", "", &["bash test/test_semver.sh"]);
        let out = run(&shell_call(shell, c), dir.path()).expect("bash runs");
        assert_eq!(read_shell(&out), Answer::Value(json!("1.1")), "{out}");
    }

    fn run_in(p: &Program, root: &Path) -> Option<(String, String)> {
        let dir = p.cwd.as_ref().map(|d| root.join(d)).unwrap_or(root.into());
        let out = std::process::Command::new(&p.program)
            .args(&p.args)
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .output()
            .ok()?;
        Some((
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    }

    fn have(tool: &str) -> bool {
        std::process::Command::new(tool)
            .arg("version")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// A Go probe: a test file of the package's own, each call on its line; a call whose
    /// argument has the wrong type is named by the compiler's line, the rest answer once it is
    /// left out. `(v, err)` answers `v` or raises; a struct is not plain data; a panic raises.
    #[test]
    fn a_go_probe_answers_from_a_test_file_of_its_own() {
        use serde_json::json;
        if !have("go") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("calc")).unwrap();
        std::fs::write(root.join("go.mod"), "module example.com/m\n\ngo 1.19\n").unwrap();
        std::fs::write(
            root.join("calc/calc.go"),
            "package calc\n\nimport \"errors\"\n\ntype P struct{ X int }\n\nfunc add(a, b int) int { return a + b }\n\nfunc Div(a, b int) (int, error) {\n\tif b == 0 {\n\t\treturn 0, errors.New(\"zero\")\n\t}\n\treturn a / b, nil\n}\n\nfunc Pt() P { return P{1} }\n\nfunc Boom(s string) []string { panic(\"boom \" + s) }\n\nfunc Widest(rows [][]string) int {\n\tw := 0\n\tfor _, r := range rows {\n\t\tfor _, c := range r {\n\t\t\tif len(c) > w {\n\t\t\t\tw = len(c)\n\t\t\t}\n\t\t}\n\t}\n\treturn w\n}\n",
        )
        .unwrap();
        let mut c = calls("calc/calc.go", "add", &[json!([2, 3]), json!(["x", 3])]);
        c.extend(calls(
            "calc/calc.go",
            "Div",
            &[json!([7, 2]), json!([1, 0])],
        ));
        c.extend(calls("calc/calc.go", "Pt", &[json!([])]));
        c.extend(calls("calc/calc.go", "Boom", &[json!(["a"])]));
        c.extend(calls("calc/calc.go", "add", &[json!([{"a": 1}, 2])]));
        // A list whose items say their type: `[][]string{…}`.
        c.extend(calls(
            "calc/calc.go",
            "Widest",
            &[json!([[["ab", "c"], ["defg"]]])],
        ));
        let g = go_probe(&c, "N7", "calc", "calc");
        assert_eq!(g.lines[6], 0, "a map has no Go literal of known type");
        assert!(
            g.text
                .contains(r#"Widest([][]string{[]string{"ab", "c"}, []string{"defg"}})"#),
            "{}",
            g.text
        );
        std::fs::write(root.join(&g.file), &g.text).unwrap();
        let (out, err) = run_in(&g.program, root).unwrap();
        let bad = error_lines(&format!("{out}\n{err}"), &g.file);
        assert_eq!(bad, vec![g.lines[1]], "{out}\n{err}");
        let kept: Vec<Call> = c
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 1 && *i != 6)
            .map(|(_, c)| c.clone())
            .collect();
        let g = go_probe(&kept, "N7", "calc", "calc");
        std::fs::write(root.join(&g.file), &g.text).unwrap();
        let (out, err) = run_in(&g.program, root).unwrap();
        let a = read_batch(&out, "N7", kept.len());
        assert_eq!(a[0], Answer::Value(json!(5)), "{out}\n{err}");
        assert_eq!(a[1], Answer::Value(json!(3)));
        assert_eq!(a[2], Answer::Raised("error: zero".into()));
        assert!(
            matches!(&a[3], Answer::Raised(m) if m.contains("not plain data")),
            "{a:?}"
        );
        assert_eq!(a[4], Answer::Raised("panic: boom a".into()));
        assert_eq!(a[5], Answer::Value(json!(4)));
    }

    /// A Rust probe: a `#[cfg(test)]` module appended to the file that defines the function, so
    /// a private function is called as the file's own tests call it.
    #[test]
    fn a_rust_probe_answers_from_a_module_of_its_own() {
        use serde_json::json;
        if !have("cargo") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        )
        .unwrap();
        let lib = "pub struct P(pub u8);\n\nfn root(n: u64) -> u64 {\n    n % 9\n}\n\npub fn div(a: i64, b: i64) -> Result<i64, String> {\n    if b == 0 {\n        return Err(\"zero\".into());\n    }\n    Ok(a / b)\n}\n\npub fn pt() -> P {\n    P(1)\n}\n\npub fn name(s: &str) -> String {\n    if s.is_empty() {\n        panic!(\"empty\");\n    }\n    format!(\"<{s}>\")\n}\n\npub fn floats(x: f64) -> Vec<f64> {\n    vec![x, x / 2.0]\n}\n";
        std::fs::write(root.join("src/lib.rs"), lib).unwrap();
        let mut c = calls("src/lib.rs", "root", &[json!([942]), json!([-1])]);
        c.extend(calls("src/lib.rs", "div", &[json!([7, 2]), json!([1, 0])]));
        c.extend(calls("src/lib.rs", "pt", &[json!([])]));
        c.extend(calls("src/lib.rs", "name", &[json!(["a\"b"]), json!([""])]));
        c.extend(calls("src/lib.rs", "floats", &[json!([3.0])]));
        let g = rust_probe(&c, "N8", "src/lib.rs", lib, ".", false);
        std::fs::write(root.join(&g.file), &g.text).unwrap();
        let (out, err) = run_in(&g.program, root).unwrap();
        let bad = error_lines(&err, &g.file);
        assert_eq!(bad, vec![g.lines[1]], "{out}\n{err}");
        let kept: Vec<Call> = c
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 1)
            .map(|(_, c)| c.clone())
            .collect();
        let g = rust_probe(&kept, "N8", "src/lib.rs", lib, ".", false);
        std::fs::write(root.join(&g.file), &g.text).unwrap();
        let (out, err) = run_in(&g.program, root).unwrap();
        let a = read_batch(&out, "N8", kept.len());
        assert_eq!(a[0], Answer::Value(json!(6)), "{out}\n{err}");
        assert_eq!(a[1], Answer::Value(json!(3)));
        assert_eq!(a[2], Answer::Raised("Err(\"zero\")".into()));
        assert!(
            matches!(&a[3], Answer::Raised(m) if m.contains("not plain data")),
            "{a:?}"
        );
        assert_eq!(a[4], Answer::Value(json!("<a\"b>")));
        assert_eq!(a[5], Answer::Raised("panic: empty".into()));
        assert_eq!(a[6], Answer::Value(json!([3.0, 1.5])));
    }
}
