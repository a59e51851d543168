//! The names one test uses, read from parsed code: what the locked run asks of a new test before
//! it counts as proof of a goal (issue 32 point 3: "a new test counts only if it exercises a
//! symbol the goal's anchors name").
//!
//! A test is found in its file by the last part of its id that names a unit of the file: a
//! function or method (`def test_sub`, `func TestSub`, `fn sub_works`), or a JavaScript
//! `test("subtracts", …)` / `it(…)` call. What it uses is every identifier in that unit —
//! calls, attribute and method names (`calc.sub`, `c.sub()`), names passed as values
//! (`check(self, sub, …)`) — and, transitively, in the units of the same file it names (a
//! helper, a pytest fixture named as a parameter), plus the file's set-up units (`setUp`,
//! `beforeEach`, …). Strings and comments are not identifiers. When the id names no unit (a
//! runner that names no test, a generated name), the whole file counts, its imports left out:
//! importing a name is not exercising it.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::walk::{Step, named_children, preorder};
use super::{Lang, Parsed, SyntaxError, parse};

/// The set-up units a runner calls around every test of the file.
const SETUP_UNITS: &[&str] = &[
    "setUp",
    "setUpClass",
    "setup_method",
    "setup_function",
    "setup_module",
    "beforeEach",
    "beforeAll",
    "before",
    "TestMain",
];

/// The JavaScript calls whose callback is a test (or a hook, by [`SETUP_UNITS`]).
const JS_TEST_CALLS: &[&str] = &[
    "test",
    "it",
    "specify",
    "test.only",
    "it.only",
    "test.concurrent",
    "t.test",
    "beforeEach",
    "beforeAll",
    "before",
];

/// What one test uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Used {
    /// The identifiers.
    pub names: BTreeSet<String>,
    /// The test was not found in the file: these are the whole file's (its imports left out).
    pub whole_file: bool,
}

/// The identifiers the test `test` (an id as its runner names it, or `None`: the whole file)
/// of `src` uses, with those of the same-file units it reaches.
pub fn names_used(lang: Lang, src: &str, test: Option<&str>) -> Result<Used, SyntaxError> {
    let p = parse(lang, src)?;
    let units = units_of(&p);
    let start = test.and_then(|id| unit_named(id, &units));
    let Some(start) = start else {
        return Ok(Used {
            names: identifiers(&p, p.root(), true),
            whole_file: true,
        });
    };
    let mut used = BTreeSet::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut queue: Vec<String> = vec![start];
    queue.extend(
        SETUP_UNITS
            .iter()
            .filter(|s| units.contains_key(**s))
            .map(|s| (*s).to_owned()),
    );
    while let Some(name) = queue.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        for node in units.get(&name).into_iter().flatten() {
            for id in identifiers(&p, *node, false) {
                if units.contains_key(&id) && !seen.contains(&id) {
                    queue.push(id.clone());
                }
                used.insert(id);
            }
        }
    }
    Ok(Used {
        names: used,
        whole_file: false,
    })
}

/// The name of the unit an id names: its last part that names one (`t.py::T::test_a[p 1]` →
/// `test_a`; `test_calc.Calc.test_add` → `test_add`; `a.test.js > group > adds 2` → `adds 2`;
/// `pkg/TestAdd/case` → `TestAdd`).
fn unit_named(id: &str, units: &BTreeMap<String, Vec<Node<'_>>>) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for coarse in id.split(" > ").flat_map(|p| p.split("::")) {
        parts.push(coarse);
        parts.extend(coarse.split(['.', '/', ' ']));
    }
    parts
        .iter()
        .rev()
        .map(|p| p.split('[').next().unwrap_or(p).trim())
        .find(|p| !p.is_empty() && units.contains_key(*p))
        .map(str::to_owned)
}

/// The units of a source by name: its functions and methods at any depth, and JavaScript test
/// calls by their title.
fn units_of<'t>(p: &'t Parsed<'_>) -> BTreeMap<String, Vec<Node<'t>>> {
    let mut out: BTreeMap<String, Vec<Node<'t>>> = BTreeMap::new();
    preorder(p.root(), |n| {
        let named = match (p.lang, n.kind()) {
            (Lang::Python, "function_definition")
            | (Lang::Go, "function_declaration" | "method_declaration")
            | (Lang::Rust, "function_item")
            | (Lang::Shell, "function_definition") => name(p, n),
            (
                l,
                "function_declaration" | "generator_function_declaration" | "method_definition",
            ) if l.is_js_family() => name(p, n),
            (l, "variable_declarator") if l.is_js_family() => n
                .child_by_field_name("value")
                .filter(|v| {
                    matches!(
                        v.kind(),
                        "arrow_function" | "function_expression" | "function"
                    )
                })
                .and_then(|_| name(p, n)),
            (l, "call_expression") if l.is_js_family() => js_test_title(p, n),
            _ => None,
        };
        if let Some(name) = named {
            out.entry(name).or_default().push(n);
        }
        Step::Into
    });
    out
}

fn name(p: &Parsed<'_>, n: Node<'_>) -> Option<String> {
    n.child_by_field_name("name").map(|x| p.text(x).to_owned())
}

/// `test("adds", () => …)` → `adds`; a hook (`beforeEach(() => …)`) → its own name.
fn js_test_title(p: &Parsed<'_>, n: Node<'_>) -> Option<String> {
    let func = p.text(n.child_by_field_name("function")?);
    if !JS_TEST_CALLS.contains(&func) {
        return None;
    }
    let args = named_children(n.child_by_field_name("arguments")?);
    let first = args.first()?;
    if SETUP_UNITS.contains(&func) {
        return Some(func.to_owned());
    }
    matches!(first.kind(), "string" | "template_string").then(|| {
        p.text(*first)
            .trim_matches(|c| c == '"' || c == '\'' || c == '`')
            .to_owned()
    })
}

/// The identifiers under `root`; `skip_imports`: not those of import statements.
fn identifiers(p: &Parsed<'_>, root: Node<'_>, skip_imports: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    preorder(root, |n| {
        if skip_imports
            && matches!(
                n.kind(),
                "import_statement"
                    | "import_from_statement"
                    | "future_import_statement"
                    | "import_declaration"
                    | "use_declaration"
                    | "extern_crate_declaration"
            )
        {
            return Step::Skip;
        }
        if skip_imports && p.lang.is_js_family() && n.kind() == "call_expression" {
            // `const { sub } = require("./calc")`: an import by another name.
            if n.child_by_field_name("function")
                .is_some_and(|f| p.text(f) == "require")
            {
                return Step::Skip;
            }
        }
        if matches!(
            n.kind(),
            "identifier"
                | "property_identifier"
                | "field_identifier"
                | "shorthand_property_identifier"
        ) {
            out.insert(p.text(n).to_owned());
        }
        Step::Into
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses(lang: Lang, src: &str, id: Option<&str>) -> BTreeSet<String> {
        names_used(lang, src, id).expect("parses").names
    }

    #[test]
    fn a_python_test_uses_what_its_body_and_helpers_name_not_what_the_file_imports() {
        let src = "import unittest\n\nfrom calc import add, sub, mul\n\n\ndef check(case, f, args, want):\n    case.assertEqual(f(*args), want)\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n        check(self, sub, (5, 3), 2)\n\n    def test_import_only(self):\n        self.assertTrue(True)  # sub\n\n    def test_method(self):\n        self.assertEqual(calc.Calc().mul(2, 3), 6)\n";
        let u = uses(Lang::Python, src, Some("test_x.T.test_sub"));
        assert!(u.contains("sub") && u.contains("assertEqual"), "{u:?}");
        let u = uses(
            Lang::Python,
            src,
            Some("tests/test_x.py::T::test_import_only"),
        );
        assert!(!u.contains("sub"), "{u:?}");
        let u = uses(Lang::Python, src, Some("test_x.T.test_method"));
        assert!(u.contains("mul") && !u.contains("sub"), "{u:?}");
        // No id: the file, its imports left out.
        let u = uses(
            Lang::Python,
            "from calc import sub\n\ndef test_a():\n    assert True\n",
            None,
        );
        assert!(!u.contains("sub"), "{u:?}");
        // A pytest fixture named as a parameter is reached.
        let src = "import pytest\nfrom calc import sub\n\n@pytest.fixture\ndef pair():\n    return sub(5, 3)\n\ndef test_a(pair):\n    assert pair == 2\n";
        assert!(uses(Lang::Python, src, Some("t.py::test_a[x]")).contains("sub"));
    }

    #[test]
    fn a_javascript_test_is_found_by_its_title() {
        let src = "const { sub, add } = require('./calc');\nconst test = require('node:test');\nconst assert = require('node:assert');\n\ndescribe('calc', () => {\n  test('subtracts', () => {\n    assert.strictEqual(sub(5, 3), 2);\n  });\n  it('is true', () => {\n    assert.ok(true);\n  });\n});\n";
        let u = uses(
            Lang::JavaScript,
            src,
            Some("calc.test.js > calc > subtracts"),
        );
        assert!(u.contains("sub") && !u.contains("add"), "{u:?}");
        let u = uses(Lang::JavaScript, src, Some("calc.test.js > calc > is true"));
        assert!(!u.contains("sub"), "{u:?}");
        let u = uses(Lang::JavaScript, src, None);
        assert!(u.contains("sub") && !u.contains("add"), "{u:?}");
    }

    #[test]
    fn go_and_rust_tests_are_found_by_their_function() {
        let go = "package calc\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(\"x\")\n\t}\n}\n\nfunc TestNothing(t *testing.T) {}\n";
        assert!(uses(Lang::Go, go, Some("example.com/calc/TestSub/case_1")).contains("Sub"));
        assert!(!uses(Lang::Go, go, Some("example.com/calc/TestNothing")).contains("Sub"));
        let rs = "use calc::sub;\n\n#[test]\nfn subtracts() {\n    assert_eq!(calc::sub(5, 3), 2);\n}\n\n#[test]\nfn nothing() {}\n";
        assert!(uses(Lang::Rust, rs, Some("subtracts")).contains("sub"));
        assert!(!uses(Lang::Rust, rs, Some("tests::nothing")).contains("sub"));
    }
}
