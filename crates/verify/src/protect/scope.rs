//! The test-relevant part of a configuration file, as comparable lines.
//!
//! Most runner configuration is about tests as a whole (`pytest.ini`, `jest.config.js`); other
//! files mix tests with everything else (`pyproject.toml`, `package.json`, `Cargo.toml`, a
//! `Makefile`). A [`Scope`] (the third column of `paths.tsv`) says which part counts, and
//! [`Scope::extract`] turns a file's text into the lines of that part: a change is a finding
//! when the lines differ. TOML and JSON are parsed and flattened to sorted `key.path = value`
//! leaves, so reformatting and key order do not count; the other scopes are line heuristics.
//! An absent file is the empty text: adding or deleting a file counts when the part was or
//! becomes non-empty.

use serde_json::Value;

use super::hunk;

/// Deeper TOML than this is not parsed (the line heuristic reads it instead), so that a
/// hostile file cannot make a recursive parser or serializer overflow the stack.
const MAX_NESTING: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `-`: not a configuration row (test files, expectations).
    NotApplicable,
    /// `whole`: every non-blank line.
    Whole,
    /// `toml:a.b,c`: these dotted key paths (`*` ends a segment as a prefix wildcard; arrays of
    /// tables are looked into element by element).
    Toml(Vec<Vec<String>>),
    /// `json:a.b,c`: the same for JSON.
    Json(Vec<Vec<String>>),
    /// `ini:name,prefix*`: these INI sections.
    Ini(Vec<String>),
    /// `recipes:word,...`: Makefile/justfile rules whose target name contains a word, their
    /// recipe lines, and variables whose name contains one (case-insensitive).
    Recipes(Vec<String>),
    /// `block:lit,...`: from a line containing a literal to the line that closes its brackets.
    Block(Vec<String>),
    /// `lines:lit,...`: the lines containing a literal.
    Lines(Vec<String>),
}

impl Scope {
    pub(crate) fn parse(s: &str) -> Result<Scope, String> {
        match s {
            "-" => return Ok(Scope::NotApplicable),
            "whole" => return Ok(Scope::Whole),
            _ => {}
        }
        let Some((kind, list)) = s.split_once(':') else {
            return Err(format!("unknown scope {s:?}"));
        };
        let items: Vec<String> = list.split(',').map(String::from).collect();
        if items.iter().any(|i| i.is_empty()) {
            return Err(format!("scope {s:?} has an empty item"));
        }
        let keys = || -> Vec<Vec<String>> {
            items
                .iter()
                .map(|i| i.split('.').map(String::from).collect())
                .collect()
        };
        match kind {
            "toml" => Ok(Scope::Toml(keys())),
            "json" => Ok(Scope::Json(keys())),
            "ini" => Ok(Scope::Ini(items)),
            "recipes" => Ok(Scope::Recipes(
                items.iter().map(|w| w.to_ascii_lowercase()).collect(),
            )),
            "block" => Ok(Scope::Block(items)),
            "lines" => Ok(Scope::Lines(items)),
            _ => Err(format!("unknown scope kind {kind:?}")),
        }
    }

    /// The test-relevant lines of `text`.
    pub(crate) fn extract(&self, text: &str) -> Vec<String> {
        match self {
            Scope::NotApplicable | Scope::Whole => hunk::lines(text),
            Scope::Toml(keys) => toml_leaves(text, keys).unwrap_or_else(|| toml_lines(text, keys)),
            Scope::Json(keys) => json_leaves(text, keys).unwrap_or_else(|| hunk::lines(text)),
            Scope::Ini(sections) => ini_lines(text, sections),
            Scope::Recipes(words) => recipe_lines(text, words),
            Scope::Block(lits) => block_lines(text, lits),
            Scope::Lines(lits) => meaningful(text)
                .filter(|t| lits.iter().any(|l| t.contains(l.as_str())))
                .map(String::from)
                .collect(),
        }
    }
}

/// Trimmed, non-blank lines.
fn meaningful(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(str::trim).filter(|t| !t.is_empty())
}

fn segment_matches(spec: &str, seg: &str) -> bool {
    match spec.strip_suffix('*') {
        Some(prefix) => seg.starts_with(prefix),
        None => spec == seg,
    }
}

// ---- TOML and JSON: parse, walk the key paths, flatten to leaves -----------------------------

fn nesting(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for c in text.chars() {
        match c {
            '[' | '{' => {
                depth += 1;
                max = max.max(depth);
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn toml_leaves(text: &str, keys: &[Vec<String>]) -> Option<Vec<String>> {
    if nesting(text) > MAX_NESTING {
        return None;
    }
    let table: toml::Table = toml::from_str(text).ok()?;
    let value = serde_json::to_value(table).ok()?;
    Some(leaves(&value, keys))
}

fn json_leaves(text: &str, keys: &[Vec<String>]) -> Option<Vec<String>> {
    if text.trim().is_empty() {
        return Some(Vec::new());
    }
    // serde_json refuses nesting deeper than 128 by itself.
    let value: Value = serde_json::from_str(text).ok()?;
    Some(leaves(&value, keys))
}

fn leaves(root: &Value, keys: &[Vec<String>]) -> Vec<String> {
    let mut out = Vec::new();
    for key in keys {
        walk(root, key, String::new(), &mut out);
    }
    out.sort();
    out.dedup();
    out
}

fn walk(v: &Value, key: &[String], path: String, out: &mut Vec<String>) {
    let Some((seg, rest)) = key.split_first() else {
        flatten(v, path, out);
        return;
    };
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, key, format!("{path}[{i}]"), out);
            }
        }
        Value::Object(map) => {
            for (k, child) in map {
                if segment_matches(seg, k) {
                    walk(child, rest, join(&path, k), out);
                }
            }
        }
        _ => {}
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn flatten(v: &Value, path: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) if !map.is_empty() => {
            for (k, child) in map {
                flatten(child, join(&path, k), out);
            }
        }
        Value::Array(items) if items.iter().any(|i| i.is_array() || i.is_object()) => {
            for (i, item) in items.iter().enumerate() {
                flatten(item, format!("{path}[{i}]"), out);
            }
        }
        _ => out.push(format!("{path} = {v}")),
    }
}

/// Unparseable TOML: the lines under matching `[headers]` and the `key = ...` lines whose full
/// dotted key matches (with their continuation lines).
fn toml_lines(text: &str, keys: &[Vec<String>]) -> Vec<String> {
    let covered = |path: &[String]| {
        keys.iter().any(|k| {
            k.len() <= path.len() && k.iter().zip(path).all(|(s, p)| segment_matches(s, p))
        })
    };
    let split = |s: &str| -> Vec<String> {
        s.split('.')
            .map(|p| p.trim().trim_matches('"').trim_matches('\'').to_string())
            .collect()
    };
    let mut out = Vec::new();
    let mut header: Vec<String> = Vec::new();
    let mut keep = false;
    for t in meaningful(text) {
        if t.starts_with('#') {
            continue;
        }
        if t.starts_with('[') {
            let inner = t.trim_start_matches('[');
            let inner = inner.split(']').next().unwrap_or("");
            header = split(inner);
            keep = covered(&header);
            if keep {
                out.push(t.to_string());
            }
        } else if let Some((k, _)) = t.split_once('=') {
            let mut path = header.clone();
            path.extend(split(k));
            keep = covered(&path);
            if keep {
                out.push(t.to_string());
            }
        } else if keep {
            out.push(t.to_string());
        }
    }
    out
}

// ---- line heuristics -------------------------------------------------------------------------

fn ini_lines(text: &str, sections: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut keep = false;
    for t in meaningful(text) {
        if t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        if let Some(name) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let name = name.trim();
            keep = sections.iter().any(|s| segment_matches(s, name));
        }
        if keep {
            out.push(t.to_string());
        }
    }
    out
}

const MAKE_CONDITIONALS: [&str; 6] = ["ifeq", "ifneq", "ifdef", "ifndef", "else", "endif"];

fn recipe_lines(text: &str, words: &[String]) -> Vec<String> {
    let named = |s: &str| {
        let s = s.to_ascii_lowercase();
        words.iter().any(|w| s.contains(w.as_str()))
    };
    let mut out = Vec::new();
    let mut keep = false;
    for raw in text.lines() {
        let t = raw.trim();
        if t.is_empty() {
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            if keep {
                out.push(t.to_string());
            }
            continue;
        }
        if t.starts_with('#') {
            continue;
        }
        if MAKE_CONDITIONALS
            .iter()
            .any(|c| t.split_whitespace().next() == Some(*c))
        {
            if keep {
                out.push(t.to_string());
            }
            continue;
        }
        let colon = t.find(':');
        let eq = t.find('=');
        let assignment = match (eq, colon) {
            (Some(e), Some(c)) => e < c || t[c..].starts_with(":=") || t[c..].starts_with("::="),
            (Some(_), None) => true,
            _ => false,
        };
        if assignment {
            keep = false;
            let end = eq.into_iter().chain(colon).min().unwrap_or(0);
            let name = t[..end].trim_end_matches(['?', '+', '!', ' ']);
            let name = name.strip_prefix("export ").unwrap_or(name);
            if named(name) {
                out.push(t.to_string());
            }
        } else if let Some(c) = colon {
            keep = t[..c]
                .split_whitespace()
                .any(|n| named(n.trim_start_matches('@')));
            if keep {
                out.push(t.to_string());
            }
        } else {
            keep = false;
        }
    }
    out
}

fn block_lines(text: &str, lits: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth: i64 = 0;
    let mut inside = false;
    for t in meaningful(text) {
        if !inside {
            if !lits.iter().any(|l| t.contains(l.as_str())) {
                continue;
            }
            inside = true;
            depth = 0;
        }
        out.push(t.to_string());
        for c in t.chars() {
            match c {
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => depth -= 1,
                _ => {}
            }
        }
        if depth <= 0 {
            inside = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(scope: &str, text: &str) -> Vec<String> {
        Scope::parse(scope).unwrap().extract(text)
    }

    #[test]
    fn toml_keeps_only_the_named_tables_as_sorted_leaves() {
        let a = "[project]\nname = 'x'\n[tool.pytest.ini_options]\naddopts = '-q'\ntestpaths = ['tests']\n";
        let b = "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\naddopts = \"-q\"\n[project]\nname = 'y'\n";
        assert_eq!(ex("toml:tool.pytest", a), ex("toml:tool.pytest", b));
        assert_eq!(
            ex("toml:tool.pytest", a),
            vec![
                "tool.pytest.ini_options.addopts = \"-q\"",
                "tool.pytest.ini_options.testpaths = [\"tests\"]",
            ]
        );
    }

    #[test]
    fn toml_looks_into_arrays_of_tables() {
        let t = "[[bin]]\nname = 'a'\ntest = false\n[[test]]\nname = 'it'\nharness = false\n";
        assert_eq!(
            ex("toml:bin.test,test", t),
            vec![
                "bin[0].test = false",
                "test[0].harness = false",
                "test[0].name = \"it\"",
            ]
        );
    }

    #[test]
    fn broken_toml_falls_back_to_headers_and_keys() {
        let t = "[tool.pytest.ini_options]\naddopts = [\n  '-k', 'not x',\n]\n[project\nname = 1\n[tool]\npytest.x = 2\nblack.y = 3\n";
        assert_eq!(
            ex("toml:tool.pytest", t),
            vec![
                "[tool.pytest.ini_options]",
                "addopts = [",
                "'-k', 'not x',",
                "]",
                "pytest.x = 2",
            ]
        );
    }

    #[test]
    fn deep_toml_is_not_parsed() {
        let t = format!("x = {}{}", "[".repeat(5000), "]".repeat(5000));
        assert_eq!(ex("toml:x", &t).len(), 1);
    }

    #[test]
    fn json_keys_with_prefix_wildcards() {
        let t = r#"{"name":"x","scripts":{"build":"tsc","test":"jest","test:unit":"jest u"},"jest":{"bail":true}}"#;
        assert_eq!(
            ex("json:scripts.test*,jest", t),
            vec![
                "jest.bail = true",
                "scripts.test = \"jest\"",
                "scripts.test:unit = \"jest u\"",
            ]
        );
        assert!(ex("json:scripts.test*", "").is_empty());
    }

    #[test]
    fn ini_sections_by_name_and_prefix() {
        let t = "[flake8]\nmax-line = 1\n[tool:pytest]\naddopts = -q\n# note\n[testenv:py3]\ncommands = pytest\n";
        assert_eq!(
            ex("ini:tool:pytest,testenv*", t),
            vec![
                "[tool:pytest]",
                "addopts = -q",
                "[testenv:py3]",
                "commands = pytest",
            ]
        );
    }

    #[test]
    fn recipes_keep_test_targets_and_variables() {
        let t = "PYTEST_ARGS := -q\nCC = gcc\n.PHONY: test\nbuild:\n\tcc x.c\ntest: build\n\tpytest $(PYTEST_ARGS)\nifeq ($(CI),1)\n\tpytest -x\nendif\nlint:\n\truff .\n";
        assert_eq!(
            ex("recipes:test", t),
            vec![
                "PYTEST_ARGS := -q",
                "test: build",
                "pytest $(PYTEST_ARGS)",
                "ifeq ($(CI),1)",
                "pytest -x",
                "endif",
            ]
        );
        let j = "default:\n    just --list\ntest *args:\n    cargo test {{args}}\n";
        assert_eq!(
            ex("recipes:test", j),
            vec!["test *args:", "cargo test {{args}}"]
        );
    }

    #[test]
    fn blocks_run_to_their_closing_bracket() {
        let t = "export default defineConfig({\n  plugins: [react()],\n  test: {\n    exclude: [\n      'a',\n    ],\n  },\n  server: { port: 1 },\n});\n";
        assert_eq!(
            ex("block:test:", t),
            vec!["test: {", "exclude: [", "'a',", "],", "},",]
        );
    }

    #[test]
    fn malformed_scopes() {
        for s in ["", "toml", "nope:x", "toml:a,,b", "lines:"] {
            assert!(Scope::parse(s).is_err(), "{s:?}");
        }
    }
}
