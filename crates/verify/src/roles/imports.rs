//! Product source of a project whose packaging lists nothing: the modules the baseline's tests
//! import, transitively, and the new modules those import.
//!
//! The walk starts from every test of the baseline (names, the runner's patterns, reported
//! files) read at the **baseline** (a test the run changed or added cannot make a module
//! product), follows imports through test support files (also read at the baseline) and through
//! product modules (read in the final tree, so a new module the fix imports is product too).
//! Imports are resolved as the languages resolve them, to files of either tree: Python
//! `import a.b` / `from a import b` / relative imports / `importlib.import_module("x")` against
//! the repository root, `src/` and the test's own folder (pytest's rootdir insertion); JavaScript
//! `require`/`import`/`export … from`/`import()` of relative specifiers, with Node's and
//! TypeScript's extension rules; shell `.`/`source` and bats `load`. A name that is a
//! standard-library module, a test runner or an installed distribution is never resolved to a
//! file of the tree.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::LazyLock;

use regex::Regex;

use super::{Lang, Role, Roles, Trees, join, parent};

/// At most this many files are read by one walk.
const MAX_FILES: usize = 20_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Python,
    Js,
    Shell,
}

fn kind_of(path: &str, trees: &Trees<'_>, in_test: bool) -> Option<Kind> {
    let file = path.rsplit('/').next().unwrap_or(path);
    let ext = file.rsplit_once('.').map(|(_, e)| e);
    match ext {
        Some("py") => Some(Kind::Python),
        Some("js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx") => Some(Kind::Js),
        Some("sh" | "bash" | "bats" | "zsh" | "ksh") => Some(Kind::Shell),
        None if in_test => {
            let text = trees.read_base(path).or_else(|| trees.read(path))?;
            let first = text.lines().next().unwrap_or("");
            (first.starts_with("#!") && (first.contains("sh") || first.contains("bash")))
                .then_some(Kind::Shell)
        }
        _ => None,
    }
}

fn lang(kind: Kind) -> Lang {
    match kind {
        Kind::Python => Lang::Python,
        Kind::Js => Lang::Js,
        Kind::Shell => Lang::Shell,
    }
}

/// Python modules only tests import: a module the tests reach that imports one of these is
/// test support, not product.
const PY_TEST_FRAMEWORKS: &[&str] = &[
    "pytest",
    "_pytest",
    "unittest",
    "hypothesis",
    "nose",
    "nose2",
    "mock",
];

/// JavaScript packages only tests import (a specifier equal to one, or under it with `/`).
const JS_TEST_FRAMEWORKS: &[&str] = &[
    "node:test",
    "vitest",
    "@jest/globals",
    "jest",
    "mocha",
    "chai",
    "tap",
    "ava",
    "uvu",
    "sinon",
    "expect",
    "@testing-library",
    "supertest",
    "nock",
    "jasmine",
    "@vitest",
];

/// What the walk found: product modules and test support modules, each with why.
#[derive(Default)]
pub(crate) struct Found {
    pub(crate) product: BTreeMap<String, String>,
    pub(crate) support: BTreeMap<String, String>,
}

/// The test framework a module imports, if it imports one (read at the baseline when it exists
/// there: the run cannot make a helper product by dropping the import).
fn test_framework(path: &str, kind: Kind, trees: &Trees<'_>) -> Option<String> {
    let text = trees.read_base(path).or_else(|| trees.read(path))?;
    match kind {
        // Top-level imports only: `if __name__ == "__main__": import unittest` in a module does
        // not make it a test helper.
        Kind::Python => python_lines(&text).iter().find_map(|line| {
            let body = line.strip_prefix(' ').unwrap_or(line);
            if body.starts_with([' ', '\t']) {
                return None;
            }
            line.split(';').find_map(|stmt| {
                let modules: Vec<String> =
                    if let Some(c) = PY_FROM.as_ref().and_then(|r| r.captures(stmt)) {
                        if c[1].is_empty() {
                            vec![c[2].to_string()]
                        } else {
                            Vec::new()
                        }
                    } else if let Some(c) = PY_IMPORT.as_ref().and_then(|r| r.captures(stmt)) {
                        c[1].split(',')
                            .filter_map(|p| p.split_whitespace().next().map(str::to_string))
                            .collect()
                    } else {
                        Vec::new()
                    };
                modules
                    .into_iter()
                    .find(|m| PY_TEST_FRAMEWORKS.contains(&m.split('.').next().unwrap_or(m)))
            })
        }),
        Kind::Js => JS_SPEC.as_ref().and_then(|re| {
            re.captures_iter(&text).find_map(|c| {
                let spec = (1..=4).find_map(|i| c.get(i))?.as_str();
                JS_TEST_FRAMEWORKS
                    .iter()
                    .any(|f| spec == *f || spec.starts_with(&format!("{f}/")))
                    .then(|| spec.to_string())
            })
        }),
        Kind::Shell => None,
    }
}

/// Product and test support files found by the walk, with why.
pub(crate) fn closure(trees: &Trees<'_>, roles: &Roles, listed: &BTreeSet<Lang>) -> Found {
    let mut found_files = Found::default();
    let product = &mut found_files.product;
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut queue: VecDeque<(String, Kind, bool)> = VecDeque::new();
    for path in trees.all.iter().filter(|p| trees.in_base(p)) {
        let named = matches!(roles.by_name(path), Some((Role::Test, _)));
        if !named && !roles.reported.contains(path) {
            continue;
        }
        if let Some(kind) = kind_of(path, trees, true)
            && !listed.contains(&lang(kind))
        {
            // A file only the runner's report calls a test (a module with doctests) may still
            // be reached as an import, which decides what it is.
            if named {
                seen.insert(path.clone());
            }
            queue.push_back((path.clone(), kind, true));
        }
    }
    while let Some((path, kind, is_test)) = queue.pop_front() {
        if seen.len() > MAX_FILES {
            break;
        }
        // A test is read at the baseline; a product module in both trees (what the baseline's
        // tests reach, and what the run's version of it imports).
        let mut texts: Vec<String> = trees.read_base(&path).into_iter().collect();
        if !is_test {
            texts = trees.read_both(&path);
        }
        let mut found = Vec::new();
        for text in &texts {
            found.extend(match kind {
                Kind::Python => python_imports(&path, text, trees, roles),
                Kind::Js => js_imports(&path, text, trees),
                Kind::Shell => shell_sources(&path, text, trees),
            });
            if is_test {
                found.extend(executed_scripts(&path, text, trees));
            }
        }
        for target in found {
            if seen.contains(&target) || target == path {
                continue;
            }
            seen.insert(target.clone());
            let by_name = roles.by_name(&target);
            let mut target_is_test = matches!(by_name, Some((Role::Test, _)));
            let framework = if by_name.is_none() {
                kind_of(&target, trees, false).and_then(|k| test_framework(&target, k, trees))
            } else {
                None
            };
            if let Some(framework) = framework {
                target_is_test = true;
                found_files.support.insert(
                    target.clone(),
                    format!("support the tests import ({path}), and it imports `{framework}`"),
                );
            } else if by_name.is_none() {
                // A module the tests import is product, even one in which the runner reported
                // tests (doctests: its inline tests are put back item by item).
                let via = if is_test {
                    "the baseline's test"
                } else {
                    "the product module"
                };
                product.insert(
                    target.clone(),
                    format!(
                        "imported by {via} {path} (no packaging lists this language's modules)"
                    ),
                );
            } else if !target_is_test {
                // Configuration and declarations stop the walk.
                continue;
            }
            if let Some(k) = kind_of(&target, trees, target_is_test) {
                queue.push_back((target, k, target_is_test));
            }
        }
    }
    found_files
}

static PY_IMPORT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\s*import\s+(.+)$").ok());
static PY_FROM: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\s*from\s+(\.*)([\w.]*)\s+import\s+(.+)$").ok());
static PY_DYNAMIC: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"(?:import_module|__import__)\(\s*['"]([\w.]+)['"]"#).ok());

/// The logical lines of Python source outside strings and comments, with bracketed
/// continuations joined (enough to read import statements).
fn python_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut triple: Option<&str> = None;
    for line in text.lines() {
        let mut rest = line;
        if let Some(q) = triple {
            match rest.find(q) {
                Some(i) => {
                    rest = &rest[i + 3..];
                    triple = None;
                }
                None => continue,
            }
        }
        let mut code = String::new();
        let mut chars = rest.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '#' => break,
                '"' | '\'' => {
                    let q3 = if c == '"' { "\"\"\"" } else { "'''" };
                    if rest[i..].starts_with(q3) {
                        match rest[i + 3..].find(q3) {
                            Some(j) => {
                                code.push_str("\"\"");
                                let skip_to = i + 3 + j + 3;
                                while chars.peek().is_some_and(|(k, _)| *k < skip_to) {
                                    chars.next();
                                }
                            }
                            None => {
                                triple = Some(q3);
                                break;
                            }
                        }
                    } else {
                        code.push(c);
                        let mut esc = false;
                        for (_, d) in chars.by_ref() {
                            code.push(d);
                            if esc {
                                esc = false;
                            } else if d == '\\' {
                                esc = true;
                            } else if d == c {
                                break;
                            }
                        }
                    }
                }
                '(' | '[' | '{' => {
                    depth += 1;
                    code.push(c);
                }
                ')' | ']' | '}' => {
                    depth -= 1;
                    code.push(c);
                }
                _ => code.push(c),
            }
        }
        let continued = code.trim_end().ends_with('\\');
        cur.push(' ');
        cur.push_str(code.trim_end().trim_end_matches('\\'));
        if depth <= 0 && !continued {
            out.push(std::mem::take(&mut cur));
            depth = 0;
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

fn python_imports(path: &str, text: &str, trees: &Trees<'_>, roles: &Roles) -> Vec<String> {
    let mut found = Vec::new();
    let dir = parent(path);
    let roots = python_roots(path, trees);
    let lines = python_lines(text);
    for line in &lines {
        for stmt in line.split(';') {
            if let Some(c) = PY_FROM.as_ref().and_then(|r| r.captures(stmt)) {
                let dots = c[1].len();
                let module = c[2].to_string();
                let names: Vec<String> = c[3]
                    .trim()
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .split(',')
                    .filter_map(|n| n.split_whitespace().next().map(str::to_string))
                    .filter(|n| n != "*")
                    .collect();
                if dots > 0 {
                    let mut base = dir.to_string();
                    for _ in 1..dots {
                        base = parent(&base).to_string();
                    }
                    resolve_py(&[base], &module, &names, trees, &mut found);
                } else if !module.is_empty() && allowed(&module, roles) {
                    resolve_py(&roots, &module, &names, trees, &mut found);
                }
            } else if let Some(c) = PY_IMPORT.as_ref().and_then(|r| r.captures(stmt)) {
                for part in c[1].split(',') {
                    let Some(module) = part.split_whitespace().next() else {
                        continue;
                    };
                    if allowed(module, roles) {
                        resolve_py(&roots, module, &[], trees, &mut found);
                    }
                }
            }
        }
    }
    if let Some(re) = PY_DYNAMIC.as_ref() {
        for c in re.captures_iter(text) {
            if allowed(&c[1], roles) {
                resolve_py(&roots, &c[1], &[], trees, &mut found);
            }
        }
    }
    found
}

fn allowed(module: &str, roles: &Roles) -> bool {
    let top = module.split('.').next().unwrap_or(module);
    roles.never.python(top).is_none()
}

/// Folders a test's imports resolve against: the repository root (unittest discovery, python -m
/// pytest), `src/`, and the first folder above the file that is not a package (pytest's rootdir
/// insertion).
fn python_roots(path: &str, trees: &Trees<'_>) -> Vec<String> {
    let mut roots = vec![String::new(), "src".to_string()];
    let mut dir = parent(path).to_string();
    while !dir.is_empty() && trees.exists(&format!("{dir}/__init__.py")) {
        dir = parent(&dir).to_string();
    }
    if !roots.contains(&dir) {
        roots.push(dir);
    }
    roots
}

fn resolve_py(
    roots: &[String],
    module: &str,
    names: &[String],
    trees: &Trees<'_>,
    found: &mut Vec<String>,
) {
    let rel = module.replace('.', "/");
    for root in roots {
        let Some(base) = join(root, &rel) else {
            continue;
        };
        let mut hit = false;
        // Parent packages' __init__.py run on import.
        let parts: Vec<&str> = rel.split('/').filter(|s| !s.is_empty()).collect();
        for i in 1..parts.len() {
            if let Some(p) = join(root, &format!("{}/__init__.py", parts[..i].join("/")))
                && trees.exists(&p)
            {
                found.push(p);
            }
        }
        let module_files = if rel.is_empty() {
            vec![join(root, "__init__.py").unwrap_or_default()]
        } else {
            vec![format!("{base}.py"), format!("{base}/__init__.py")]
        };
        for f in module_files {
            if trees.exists(&f) {
                found.push(f);
                hit = true;
            }
        }
        // `from pkg import sub` imports the submodule.
        for name in names {
            let sub = if base.is_empty() {
                name.clone()
            } else {
                format!("{base}/{name}")
            };
            for f in [format!("{sub}.py"), format!("{sub}/__init__.py")] {
                if trees.exists(&f) {
                    found.push(f);
                    hit = true;
                }
            }
        }
        if hit {
            break;
        }
    }
}

static JS_SPEC: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?:require|import)\s*\(\s*['"`]([^'"`]+)['"`]\s*\)|(?:^|[;\s}])(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]|\bfrom\s+['"]([^'"]+)['"]|(?:vi|jest)\.mock\(\s*['"]([^'"]+)['"]"#,
    )
    .ok()
});

fn js_imports(path: &str, text: &str, trees: &Trees<'_>) -> Vec<String> {
    let mut found = Vec::new();
    let Some(re) = JS_SPEC.as_ref() else {
        return found;
    };
    let dir = parent(path);
    for c in re.captures_iter(text) {
        let Some(spec) = (1..=4).find_map(|i| c.get(i)).map(|m| m.as_str()) else {
            continue;
        };
        if !(spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == "..") {
            continue;
        }
        let Some(p) = join(dir, spec) else { continue };
        if let Some(hit) = js_candidates(&p).into_iter().find(|c| trees.exists(c)) {
            found.push(hit);
        }
    }
    found
}

/// The files a JavaScript/TypeScript specifier may resolve to, in Node's and TypeScript's order.
pub(crate) fn js_candidates(p: &str) -> Vec<String> {
    let mut out = vec![p.to_string()];
    // TypeScript: `./x.js` names the source `./x.ts`.
    for (js, ts) in [
        (".js", &[".ts", ".tsx"][..]),
        (".mjs", &[".mts"]),
        (".cjs", &[".cts"]),
        (".jsx", &[".tsx"]),
    ] {
        if let Some(stem) = p.strip_suffix(js) {
            for t in ts {
                out.push(format!("{stem}{t}"));
            }
        }
    }
    let exts = [
        "js", "mjs", "cjs", "ts", "tsx", "jsx", "mts", "cts", "json", "node", "d.ts",
    ];
    for e in exts {
        out.push(format!("{p}.{e}"));
    }
    for e in exts {
        out.push(if p.is_empty() {
            format!("index.{e}")
        } else {
            format!("{p}/index.{e}")
        });
    }
    out
}

/// Extensions of scripts a test may run as a program (`sh ./calc.sh`, `subprocess.run(["python",
/// "cli.py"])`, `execFileSync("node", ["bin/cli.js"])`).
const SCRIPT_EXTS: &[&str] = &["sh", "bash", "py", "js", "mjs", "cjs", "ts", "rb", "pl"];

/// Scripts a test names as words or string literals, resolved beside the test or at the root:
/// the programs it runs. Data files it names are not taken (an expected-output file is the
/// tests' own).
fn executed_scripts(path: &str, text: &str, trees: &Trees<'_>) -> Vec<String> {
    let dir = parent(path);
    let mut found = Vec::new();
    for word in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '`' | '(' | ')' | '[' | ']' | ',' | ';' | '='
            )
    }) {
        let w = word.trim_start_matches("./");
        let w = match w.rfind("}/").or_else(|| w.rfind(")/")) {
            Some(i) => &w[i + 2..],
            None => w,
        };
        if w.is_empty() || w.starts_with('$') || !super::has_ext(w, SCRIPT_EXTS) || w.len() > 200 {
            continue;
        }
        for base in [dir, ""] {
            if let Some(p) = join(base, w)
                && p != path
                && trees.exists(&p)
            {
                found.push(p);
                break;
            }
        }
    }
    found
}

fn shell_sources(path: &str, text: &str, trees: &Trees<'_>) -> Vec<String> {
    let mut found = Vec::new();
    let dir = parent(path);
    for line in text.lines() {
        for stmt in line.split([';', '&', '|']) {
            let stmt = stmt.trim();
            // bats `load x` reads `x.bash` (or `x`) beside the test file.
            let (target, load) = if let Some(rest) = stmt
                .strip_prefix(". ")
                .or_else(|| stmt.strip_prefix("source "))
            {
                (rest.trim().to_string(), false)
            } else if let Some(rest) = stmt
                .strip_prefix("load ")
                .filter(|_| path.ends_with(".bats"))
            {
                (rest.trim().to_string(), true)
            } else {
                continue;
            };
            // The first word, quotes and `$(…)` kept together.
            let target = first_word(&target);
            let t = target.trim_matches(['"', '\'']);
            // `"$(dirname "$0")/x.sh"`, `"$DIR/x.sh"`, `${BASH_SOURCE%/*}/x.sh`: beside the script.
            let (t, beside) = match t.rfind(['}', ')']).filter(|_| t.starts_with('$')) {
                Some(i) => (t[i + 1..].trim_start_matches(['"', '/']), true),
                None if t.starts_with('$') => match t.find('/') {
                    Some(i) => (&t[i + 1..], true),
                    None => continue,
                },
                None => (t, false),
            };
            let bases: Vec<&str> = if beside || load {
                vec![dir]
            } else {
                vec!["", dir]
            };
            let names: Vec<String> = if load {
                vec![format!("{t}.bash"), t.to_string()]
            } else {
                vec![t.to_string()]
            };
            'found: for b in bases {
                for name in &names {
                    if let Some(p) = join(b, name)
                        && trees.exists(&p)
                    {
                        found.push(p);
                        break 'found;
                    }
                }
            }
        }
    }
    found
}

/// The first shell word of a command's arguments, keeping quoted parts and `$(…)` together.
fn first_word(s: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    for c in s.chars() {
        match (quote, c) {
            (None, ' ' | '\t') if depth == 0 => break,
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q && depth == 0 => quote = None,
            (_, '(') => depth += 1,
            (_, ')') => depth = depth.saturating_sub(1),
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The files `path` imports, sources or (a test) runs, read from `text` and resolved to files of
/// either tree; empty for a language this walk does not read. For `roles::reach`.
pub(super) fn imports_of(
    path: &str,
    text: &str,
    trees: &Trees<'_>,
    roles: &Roles,
    is_test: bool,
) -> Vec<String> {
    let Some(kind) = kind_of(path, trees, is_test) else {
        return Vec::new();
    };
    let mut found = match kind {
        Kind::Python => python_imports(path, text, trees, roles),
        Kind::Js => js_imports(path, text, trees),
        Kind::Shell => shell_sources(path, text, trees),
    };
    if is_test {
        found.extend(executed_scripts(path, text, trees));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_lines_join_brackets_and_skip_strings_and_comments() {
        let text = "import os  # import evil\nx = \"\"\"\nimport fake\n\"\"\"\nfrom a.b import (\n  c,\n  d as e,\n)\n";
        let lines = python_lines(text);
        assert!(lines.iter().any(|l| l.trim() == "import os"));
        assert!(!lines.iter().any(|l| l.contains("fake")));
        assert!(
            lines
                .iter()
                .any(|l| l.contains("from a.b import (") && l.contains("d as e"))
        );
    }

    #[test]
    fn js_candidates_follow_typescript_and_node_rules() {
        let c = js_candidates("src/calc.js");
        assert_eq!(c[0], "src/calc.js");
        assert!(c.contains(&"src/calc.ts".to_string()));
        assert!(js_candidates("lib").contains(&"lib/index.js".to_string()));
    }
}
