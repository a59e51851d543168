//! The public interface of a source file: the symbols it exports, read from its syntax tree
//! (issue 35 point 2: "the public interface is unchanged or the change is listed").
//!
//! Per language, what another module can use:
//! - Python: the names of `__all__` when the module sets it to a literal list, else its
//!   top-level functions, classes and assigned names that do not start with `_`;
//! - JavaScript/TypeScript: `export` declarations and clauses (`default` for a default export,
//!   `* from './x'` for a re-export), and CommonJS `module.exports = { a, b }`,
//!   `module.exports = f` (`module.exports`), `exports.a = …`;
//! - Go: top-level functions, types, constants and variables whose name starts with a capital,
//!   methods as `Type.Name`;
//! - Rust: items marked `pub` (not `pub(crate)`), in `pub mod` bodies as `a::b`, `pub fn` of
//!   inherent impls as `Type::f`, `pub use` by its path;
//! - shell: the functions a script defines at its top level (what `.`/`source` gives).
//!
//! A pure function over source text; what changed between two versions is [`compare`].

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::{Lang, Parsed, SyntaxError, parse};

/// The symbols `src` exports, by name (sorted).
pub fn exported(lang: Lang, src: &str) -> Result<BTreeSet<String>, SyntaxError> {
    let p = parse(lang, src)?;
    let mut out = BTreeSet::new();
    let root = p.root();
    match lang {
        Lang::Python => python(&p, root, &mut out),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => js(&p, root, &mut out),
        Lang::Go => go(&p, root, &mut out),
        Lang::Rust => rust(&p, root, &mut out),
        Lang::Shell => shell(&p, root, &mut out),
    }
    Ok(out)
}

/// What changed between two versions' exports: (removed, added).
pub fn compare(before: &BTreeSet<String>, after: &BTreeSet<String>) -> (Vec<String>, Vec<String>) {
    (
        before.difference(after).cloned().collect(),
        after.difference(before).cloned().collect(),
    )
}

fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

fn name_of<'s>(p: &'s Parsed<'_>, node: Node<'_>) -> Option<&'s str> {
    node.child_by_field_name("name").map(|n| p.text(n))
}

fn python(p: &Parsed<'_>, root: Node<'_>, out: &mut BTreeSet<String>) {
    let mut all: Option<BTreeSet<String>> = None;
    let mut names = BTreeSet::new();
    for node in children(root) {
        let def = if node.kind() == "decorated_definition" {
            node.child_by_field_name("definition").unwrap_or(node)
        } else {
            node
        };
        match def.kind() {
            "function_definition" | "class_definition" => {
                if let Some(n) = name_of(p, def) {
                    names.insert(n.to_string());
                }
            }
            "expression_statement" => {
                for a in children(def)
                    .into_iter()
                    .filter(|c| c.kind() == "assignment")
                {
                    let Some(left) = a.child_by_field_name("left") else {
                        continue;
                    };
                    let targets: Vec<Node<'_>> = if left.kind() == "identifier" {
                        vec![left]
                    } else {
                        children(left)
                            .into_iter()
                            .filter(|c| c.kind() == "identifier")
                            .collect()
                    };
                    for t in targets {
                        let name = p.text(t);
                        if name == "__all__" {
                            all = a.child_by_field_name("right").map(|r| {
                                children(r)
                                    .into_iter()
                                    .filter(|s| s.kind() == "string")
                                    .map(|s| {
                                        p.text(s)
                                            .trim_matches(|c| c == '"' || c == '\'')
                                            .to_string()
                                    })
                                    .collect()
                            });
                        } else {
                            names.insert(name.to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    match all {
        Some(all) => out.extend(all),
        None => out.extend(names.into_iter().filter(|n| !n.starts_with('_'))),
    }
}

/// The names a JavaScript declaration declares (`const a = 1, b = 2`, `function f`, `class C`).
fn js_declared(p: &Parsed<'_>, decl: Node<'_>, out: &mut BTreeSet<String>) {
    if let Some(n) = name_of(p, decl) {
        out.insert(n.to_string());
        return;
    }
    for d in children(decl)
        .into_iter()
        .filter(|c| c.kind() == "variable_declarator")
    {
        if let Some(n) = name_of(p, d) {
            out.insert(n.to_string());
        }
    }
}

fn js(p: &Parsed<'_>, root: Node<'_>, out: &mut BTreeSet<String>) {
    for node in children(root) {
        match node.kind() {
            "export_statement" => {
                let text = p.text(node);
                if let Some(decl) = node.child_by_field_name("declaration") {
                    if text.starts_with("export default") {
                        out.insert("default".into());
                    } else {
                        js_declared(p, decl, out);
                    }
                    continue;
                }
                let clause = children(node)
                    .into_iter()
                    .find(|c| c.kind() == "export_clause");
                match clause {
                    Some(clause) => {
                        for s in children(clause)
                            .into_iter()
                            .filter(|c| c.kind() == "export_specifier")
                        {
                            let n = s
                                .child_by_field_name("alias")
                                .or_else(|| s.child_by_field_name("name"));
                            if let Some(n) = n {
                                out.insert(p.text(n).to_string());
                            }
                        }
                    }
                    None if text.starts_with("export default") => {
                        out.insert("default".into());
                    }
                    None => {
                        // `export * from './x'`: everything of another module.
                        if let Some(src) = node.child_by_field_name("source") {
                            out.insert(format!("* from {}", p.text(src)));
                        }
                    }
                }
            }
            "expression_statement" => {
                for a in children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "assignment_expression")
                {
                    let (Some(left), Some(right)) = (
                        a.child_by_field_name("left"),
                        a.child_by_field_name("right"),
                    ) else {
                        continue;
                    };
                    let target = p.text(left).replace(char::is_whitespace, "");
                    if target == "module.exports" {
                        if right.kind() == "object" {
                            for prop in children(right) {
                                let key = match prop.kind() {
                                    "shorthand_property_identifier" => Some(prop),
                                    "pair" => prop.child_by_field_name("key"),
                                    "method_definition" => prop.child_by_field_name("name"),
                                    _ => None,
                                };
                                if let Some(k) = key {
                                    out.insert(
                                        p.text(k)
                                            .trim_matches(|c| c == '"' || c == '\'')
                                            .to_string(),
                                    );
                                }
                            }
                        } else {
                            out.insert("module.exports".into());
                        }
                    } else if let Some(name) = target
                        .strip_prefix("module.exports.")
                        .or_else(|| target.strip_prefix("exports."))
                    {
                        out.insert(name.to_string());
                    }
                }
            }
            _ => {}
        }
    }
}

fn exported_go(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

fn go(p: &Parsed<'_>, root: Node<'_>, out: &mut BTreeSet<String>) {
    for node in children(root) {
        match node.kind() {
            "function_declaration" => {
                if let Some(n) = name_of(p, node).filter(|n| exported_go(n)) {
                    out.insert(n.to_string());
                }
            }
            "method_declaration" => {
                let Some(n) = name_of(p, node).filter(|n| exported_go(n)) else {
                    continue;
                };
                let receiver = node
                    .child_by_field_name("receiver")
                    .map(|r| {
                        p.text(r)
                            .trim_matches(|c| c == '(' || c == ')')
                            .split_whitespace()
                            .last()
                            .unwrap_or("")
                            .trim_start_matches('*')
                            .split('[')
                            .next()
                            .unwrap_or("")
                            .to_string()
                    })
                    .unwrap_or_default();
                if exported_go(&receiver) {
                    out.insert(format!("{receiver}.{n}"));
                }
            }
            "type_declaration" | "const_declaration" | "var_declaration" => {
                let mut specs = children(node);
                // `var ( … )` groups its specs in a list.
                let inner: Vec<Node<'_>> = specs
                    .iter()
                    .filter(|s| s.kind().ends_with("_spec_list"))
                    .flat_map(|s| children(*s))
                    .collect();
                specs.extend(inner);
                for spec in specs.into_iter().filter(|s| s.kind().ends_with("_spec")) {
                    let mut cursor = spec.walk();
                    for n in spec.children_by_field_name("name", &mut cursor) {
                        let n = p.text(n);
                        if exported_go(n) {
                            out.insert(n.to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

fn is_pub(p: &Parsed<'_>, node: Node<'_>) -> bool {
    children(node)
        .into_iter()
        .any(|c| c.kind() == "visibility_modifier" && p.text(c) == "pub")
}

fn rust(p: &Parsed<'_>, root: Node<'_>, out: &mut BTreeSet<String>) {
    // (items, path prefix): `pub mod` bodies are walked with their module path.
    let mut stack: Vec<(Node<'_>, String)> = vec![(root, String::new())];
    while let Some((body, prefix)) = stack.pop() {
        for node in children(body) {
            match node.kind() {
                "function_item" | "struct_item" | "enum_item" | "trait_item" | "const_item"
                | "static_item" | "type_item" | "union_item" => {
                    if is_pub(p, node)
                        && let Some(n) = name_of(p, node)
                    {
                        out.insert(format!("{prefix}{n}"));
                    }
                }
                "mod_item" if is_pub(p, node) => {
                    let Some(n) = name_of(p, node) else { continue };
                    out.insert(format!("{prefix}{n}"));
                    if let Some(b) = node.child_by_field_name("body") {
                        stack.push((b, format!("{prefix}{n}::")));
                    }
                }
                "use_declaration" if is_pub(p, node) => {
                    if let Some(a) = node.child_by_field_name("argument") {
                        out.insert(format!("use {}", p.text(a)));
                    }
                }
                "impl_item" if node.child_by_field_name("trait").is_none() => {
                    let (Some(ty), Some(b)) = (
                        node.child_by_field_name("type"),
                        node.child_by_field_name("body"),
                    ) else {
                        continue;
                    };
                    let ty = p.text(ty);
                    for f in children(b)
                        .into_iter()
                        .filter(|f| f.kind() == "function_item" && is_pub(p, *f))
                    {
                        if let Some(n) = name_of(p, f) {
                            out.insert(format!("{prefix}{ty}::{n}"));
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

fn shell(p: &Parsed<'_>, root: Node<'_>, out: &mut BTreeSet<String>) {
    for node in children(root) {
        if node.kind() == "function_definition"
            && let Some(n) = name_of(p, node)
        {
            out.insert(n.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(lang: Lang, src: &str) -> Vec<String> {
        exported(lang, src)
            .map(|s| s.into_iter().collect())
            .unwrap_or_default()
    }

    /// Rows: language, source → the exported symbols.
    #[test]
    fn what_each_language_exports() {
        let rows: &[(Lang, &str, &[&str])] = &[
            (
                Lang::Python,
                "import os\nX = 1\n_y = 2\ndef add(a, b):\n    def inner(): pass\n    return a + b\ndef _private(): pass\nclass Calc:\n    def m(self): pass\n@decorator\ndef wrapped(): pass\n",
                &["Calc", "X", "add", "wrapped"],
            ),
            (
                Lang::Python,
                "__all__ = ['add']\ndef add(): pass\ndef helper(): pass\n",
                &["add"],
            ),
            (
                Lang::JavaScript,
                "'use strict';\nfunction add(a, b) { return a + b; }\nfunction helper() {}\nmodule.exports = { add, sub: (a, b) => a - b };\n",
                &["add", "sub"],
            ),
            (
                Lang::JavaScript,
                "exports.wrap = function () {};\nmodule.exports.pad = 1;\n",
                &["pad", "wrap"],
            ),
            (
                Lang::JavaScript,
                "module.exports = function join() {};\n",
                &["module.exports"],
            ),
            (
                Lang::JavaScript,
                "export function add() {}\nexport const a = 1, b = 2;\nconst c = 3;\nexport { c as see };\nexport default class X {}\nexport * from './more.js';\n",
                &["* from './more.js'", "a", "add", "b", "default", "see"],
            ),
            (
                Lang::TypeScript,
                "export interface Opts { a: number }\nexport type N = number;\nexport function f(x: number): number { return x; }\nfunction g() {}\n",
                &["N", "Opts", "f"],
            ),
            (
                Lang::Go,
                "package calc\n\nconst Max = 3\nconst min = 1\nvar (\n\tDefault = 2\n\tother = 1\n)\ntype Calc struct{}\ntype inner int\nfunc Add(a, b int) int { return a + b }\nfunc sub() {}\nfunc (c *Calc) Mul() {}\nfunc (c Calc) div() {}\n",
                &["Add", "Calc", "Calc.Mul", "Default", "Max"],
            ),
            (
                Lang::Rust,
                "pub fn parse() {}\nfn private() {}\npub(crate) fn inner() {}\npub struct P;\nimpl P { pub fn new() -> P { P } fn hidden(&self) {} }\nimpl Clone for P { fn clone(&self) -> P { P } }\npub mod ops { pub fn add() {} fn no() {} }\nmod private_mod { pub fn x() {} }\npub use ops::add;\n#[cfg(test)]\nmod tests { #[test] fn t() {} }\n",
                &["P", "P::new", "ops", "ops::add", "parse", "use ops::add"],
            ),
            (
                Lang::Shell,
                "#!/bin/sh\nadd() { echo $(($1 + $2)); }\nfunction sub { :; }\nif true; then inner() { :; }; fi\n",
                &["add", "sub"],
            ),
        ];
        for (lang, src, want) in rows {
            assert_eq!(names(*lang, src), *want, "{lang:?}:\n{src}");
        }
    }

    #[test]
    fn a_change_of_the_interface_is_named_and_a_body_change_is_not() {
        let before = exported(
            Lang::Python,
            "def add(a, b):\n    return a - b\ndef sub(a, b):\n    return a - b\n",
        )
        .unwrap_or_default();
        let body = exported(
            Lang::Python,
            "def add(a, b):\n    return a + b\ndef sub(a, b):\n    return a - b\n",
        )
        .unwrap_or_default();
        assert_eq!(compare(&before, &body), (vec![], vec![]));
        let renamed = exported(
            Lang::Python,
            "def add(a, b):\n    return a + b\ndef subtract(a, b):\n    return a - b\n",
        )
        .unwrap_or_default();
        assert_eq!(
            compare(&before, &renamed),
            (vec!["sub".to_string()], vec!["subtract".to_string()])
        );
    }

    #[test]
    fn broken_and_odd_sources_give_an_answer_not_a_panic() {
        for lang in [
            Lang::Python,
            Lang::JavaScript,
            Lang::TypeScript,
            Lang::Tsx,
            Lang::Go,
            Lang::Rust,
            Lang::Shell,
        ] {
            for src in ["", "def (", "export {", "pub fn", "((((((((", "\u{0}\u{1}"] {
                assert!(exported(lang, src).is_ok(), "{lang:?} {src:?}");
            }
        }
    }
}
