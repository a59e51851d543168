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
//! - Shell: one process per call, `sh -c '. ./lib.sh; f "$@"'` with the arguments as arguments;
//!   the answer is the printed text without its trailing newlines (what `"$(f a b)"` sees).
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

const PYTHON: &str = r#"import importlib, json, os, sys
sys.dont_write_bytecode = True
_n, _calls = __N__, json.loads(__CALLS__)
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
    raise TypeError("not plain data: " + t.__module__ + "." + t.__qualname__)
_w = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
def _out(o):
    _w.write(_n + " " + json.dumps(o) + "\n")
    _w.flush()
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
        if _cls is not None:
            _o = _fn(*_ca)
            for _bm, _ba in _before:
                getattr(_o, _bm)(*_ba)
            _fn = getattr(_o, _f)
        _out({"i": _i, "value": _plain(_fn(*_a))})
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
  const root = process.cwd();
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
      if (cls !== null) {
        const o = new fn(...ctorArgs);
        for (const [bm, ba] of before) {
          const r = o[bm](...ba);
          if (r && typeof r.then === 'function') await r;
        }
        if (typeof o[name] !== 'function') throw new TypeError(name + ' is not a method of ' + cls);
        fn = o[name].bind(o);
      }
      let v = fn(...args);
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

/// The program of a batch of calls (Python or Node), read from stdin by `interpreter -`.
pub fn batch(runtime: Runtime, interpreter: &str, calls: &[Call], nonce: &str) -> Option<Program> {
    let list: Vec<Value> = match runtime {
        Runtime::Python => calls
            .iter()
            .map(|c| {
                let (root, module) = python_module(&c.file)?;
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
                let mut row = vec![
                    Value::String(format!("./{}", c.file)),
                    Value::String(c.function.clone()),
                ];
                row.extend(c.object_parts());
                Value::Array(row)
            })
            .collect(),
        Runtime::Shell => return None,
    };
    let text = Value::Array(list).to_string();
    let template = if runtime == Runtime::Python {
        PYTHON
    } else {
        NODE
    };
    let src = template
        .replace("__N__", &quoted(nonce))
        .replace("__CALLS__", &quoted(&text));
    Some(Program {
        program: interpreter.to_owned(),
        args: vec!["-".into()],
        stdin: src.into_bytes(),
    })
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
    }
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
}
