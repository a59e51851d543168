//! The functions a source defines at its top level, by name: what a probe (issue 33) can call
//! from a process of its own (Python `def`, JS function declarations, `const f = () => …` and
//! `exports.f = …`, shell functions). Methods and nested functions are not listed.

use tree_sitter::Node;

use super::walk::named_children;
use super::{Lang, Parsed, SyntaxError, parse};

/// The names of the functions `src` defines at its top level, in source order, each once.
pub fn top_level_functions(lang: Lang, src: &str) -> Result<Vec<String>, SyntaxError> {
    let p = parse(lang, src)?;
    let mut out: Vec<String> = Vec::new();
    for n in named_children(p.root()) {
        for name in defined(&p, n) {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    Ok(out)
}

/// The names of the classes `src` defines at its top level (Python `class`, JavaScript and
/// TypeScript `class`, exported or default-exported), in source order: what a probe of a method
/// builds its object from.
pub fn top_level_classes(lang: Lang, src: &str) -> Result<Vec<String>, SyntaxError> {
    let p = parse(lang, src)?;
    let mut out: Vec<String> = Vec::new();
    for n in named_children(p.root()) {
        let mut n = n;
        // `export class C`, `export default class C`, `@dec class C`
        if matches!(n.kind(), "export_statement" | "decorated_definition") {
            match n
                .child_by_field_name("declaration")
                .or_else(|| n.child_by_field_name("definition"))
                .or_else(|| {
                    named_children(n)
                        .into_iter()
                        .find(|c| matches!(c.kind(), "class" | "class_declaration"))
                }) {
                Some(d) => n = d,
                None => continue,
            }
        }
        let is_class = match p.lang {
            Lang::Python => n.kind() == "class_definition",
            l if l.is_js_family() => {
                matches!(
                    n.kind(),
                    "class_declaration" | "class" | "abstract_class_declaration"
                )
            }
            _ => false,
        };
        if is_class
            && let Some(name) = name_of(&p, n)
            && !out.contains(&name)
        {
            out.push(name);
        }
    }
    Ok(out)
}

fn name_of(p: &Parsed<'_>, n: Node<'_>) -> Option<String> {
    n.child_by_field_name("name").map(|x| p.text(x).to_owned())
}

fn defined(p: &Parsed<'_>, n: Node<'_>) -> Vec<String> {
    match (p.lang, n.kind()) {
        (Lang::Python, "function_definition") => name_of(p, n).into_iter().collect(),
        (Lang::Python, "decorated_definition") => n
            .child_by_field_name("definition")
            .filter(|d| d.kind() == "function_definition")
            .and_then(|d| name_of(p, d))
            .into_iter()
            .collect(),
        (Lang::Shell, "function_definition") => name_of(p, n).into_iter().collect(),
        // Go: `func F(…)`, not a method (`func (r T) F(…)`); Rust: a free `fn` of the file's
        // module (a probe's module generated into that file calls it by name).
        (Lang::Go, "function_declaration") => name_of(p, n).into_iter().collect(),
        (Lang::Rust, "function_item") => name_of(p, n).into_iter().collect(),
        (l, _) if l.is_js_family() => js_defined(p, n),
        _ => Vec::new(),
    }
}

fn js_defined(p: &Parsed<'_>, n: Node<'_>) -> Vec<String> {
    match n.kind() {
        "function_declaration" | "generator_function_declaration" => {
            name_of(p, n).into_iter().collect()
        }
        "export_statement" => n
            .child_by_field_name("declaration")
            .map(|d| js_defined(p, d))
            .unwrap_or_default(),
        "lexical_declaration" | "variable_declaration" => named_children(n)
            .into_iter()
            .filter(|d| d.kind() == "variable_declarator")
            .filter(|d| {
                d.child_by_field_name("value").is_some_and(|v| {
                    matches!(
                        v.kind(),
                        "arrow_function" | "function_expression" | "function"
                    )
                })
            })
            .filter_map(|d| name_of(p, d))
            .collect(),
        // `exports.f = …`, `module.exports.f = …`
        "expression_statement" => {
            let Some(a) = named_children(n)
                .into_iter()
                .find(|c| c.kind() == "assignment_expression")
            else {
                return Vec::new();
            };
            let Some(left) = a.child_by_field_name("left") else {
                return Vec::new();
            };
            let text = p.text(left);
            let right = a.child_by_field_name("right");
            // `module.exports = function add(…) {…}`, `module.exports = { add, mul: … }`
            if text == "module.exports"
                && let Some(r) = right
            {
                return js_module_exports(p, r);
            }
            let is_exports = left.kind() == "member_expression"
                && (text.starts_with("exports.") || text.starts_with("module.exports."));
            let is_fn = right.is_some_and(|r| {
                matches!(
                    r.kind(),
                    "arrow_function" | "function_expression" | "function" | "identifier"
                )
            });
            if is_exports && is_fn {
                left.child_by_field_name("property")
                    .map(|x| vec![p.text(x).to_owned()])
                    .unwrap_or_default()
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

/// The functions a CommonJS module's whole `module.exports` gives by name: a named function
/// (`function add(…)`, called by its name by the probe), or an object's members that are
/// functions or names (`{ add, mul: mul, sub: (a, b) => a - b }`).
fn js_module_exports(p: &Parsed<'_>, value: Node<'_>) -> Vec<String> {
    let is_fn = |v: Node<'_>| {
        matches!(
            v.kind(),
            "arrow_function" | "function_expression" | "function" | "identifier"
        )
    };
    match value.kind() {
        "function_expression" | "function" | "generator_function" => {
            name_of(p, value).into_iter().collect()
        }
        "object" => named_children(value)
            .into_iter()
            .filter_map(|m| match m.kind() {
                "shorthand_property_identifier" => Some(p.text(m).to_owned()),
                "pair" if m.child_by_field_name("value").is_some_and(is_fn) => m
                    .child_by_field_name("key")
                    .filter(|k| k.kind() == "property_identifier")
                    .map(|k| p.text(k).to_owned()),
                "method_definition" => name_of(p, m),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_functions_a_probe_can_call() {
        let py = "import x\n\ndef add(a, b):\n    def inner():\n        pass\n    return a + b\n\n@cache\ndef mul(a, b):\n    return a * b\n\nclass C:\n    def m(self):\n        pass\n";
        assert_eq!(
            top_level_functions(Lang::Python, py).unwrap(),
            vec!["add", "mul"]
        );
        let js = "'use strict';\nfunction add(a, b) { return a + b; }\nconst mul = (a, b) => a * b;\nexport function sub(a, b) { return a - b; }\nexports.div = function (a, b) { return a / b; };\nconst n = 3;\n";
        assert_eq!(
            top_level_functions(Lang::JavaScript, js).unwrap(),
            vec!["add", "mul", "sub", "div"]
        );
        // CommonJS: the whole `module.exports` a named function, or an object of them.
        let js = "module.exports = function add(a, b) {\n  return a + b;\n};\n";
        assert_eq!(
            top_level_functions(Lang::JavaScript, js).unwrap(),
            vec!["add"]
        );
        let js = "const add = require('./lib/add');\nfunction mul(a, b) { return a * b; }\nmodule.exports = { add, mul, sub: (a, b) => a - b, div(a, b) { return a / b; }, n: 3 };\n";
        assert_eq!(
            top_level_functions(Lang::JavaScript, js).unwrap(),
            vec!["mul", "add", "sub", "div"]
        );
        assert!(
            top_level_functions(Lang::JavaScript, "module.exports = function (a) {};\n")
                .unwrap()
                .is_empty()
        );
        let sh = "add() {\n  echo $(($1 + $2))\n}\nfunction mul {\n  echo $(($1 * $2))\n}\necho loaded\n";
        assert_eq!(
            top_level_functions(Lang::Shell, sh).unwrap(),
            vec!["add", "mul"]
        );
        let py = "class Calc:\n    def add(self, a, b):\n        return a + b\n\n@dataclass\nclass P:\n    x: int\n\ndef f():\n    class Inner:\n        pass\n";
        assert_eq!(
            top_level_classes(Lang::Python, py).unwrap(),
            vec!["Calc", "P"]
        );
        let ts = "export default class Hashids {\n  encode(n: number[]): string { return ''; }\n}\nexport class Other {}\nclass Local {}\nfunction f() { class Inner {} }\n";
        assert_eq!(
            top_level_classes(Lang::TypeScript, ts).unwrap(),
            vec!["Hashids", "Other", "Local"]
        );
        // Go and Rust functions are read too (their probes call them).
        assert_eq!(
            top_level_functions(Lang::Go, "func Add() {}").unwrap(),
            vec!["Add"]
        );
        assert_eq!(
            top_level_functions(Lang::Rust, "pub fn add() {}").unwrap(),
            vec!["add"]
        );
    }
}
