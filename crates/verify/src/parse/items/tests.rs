//! Recorded output of the real tools (crates/verify/tests/fixtures/lint/README.md says how).

use super::*;

fn fx(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// (fixture, stream, root, items as `tool rule file: message`, in order).
const ROWS: &[(&str, &str, &str, &[&str])] = &[
    (
        "rustc/clippy-deny.stderr",
        "stderr",
        "",
        &[
            "rust error src/lib.rs: unused variable: `unused`",
            "rust error src/lib.rs: unneeded `return` statement",
            "rust error src/lib.rs: writing `&Vec` instead of `&[_]` involves a new object where a slice will do",
        ],
    ),
    (
        "rustc/clippy-json.stdout",
        "stdout",
        "",
        &[
            "rust unused_variables src/lib.rs: unused variable: `unused`",
            "rust clippy::needless_return src/lib.rs: unneeded `return` statement",
            "rust clippy::ptr_arg src/lib.rs: writing `&Vec` instead of `&[_]` involves a new object where a slice will do",
        ],
    ),
    (
        "lint/ruff.stdout",
        "stdout",
        "",
        &[
            "ruff I001 calc.py: Import block is un-sorted or un-formatted",
            "ruff F401 calc.py: `os` imported but unused",
            "ruff F401 calc.py: `sys` imported but unused",
            "ruff F841 calc.py: Local variable `unused` is assigned to but never used",
            "ruff I001 other.py: Import block is un-sorted or un-formatted",
            "ruff F401 other.py: `json` imported but unused",
        ],
    ),
    (
        "lint/ruff-concise.stdout",
        "stdout",
        "",
        &[
            "ruff I001 calc.py: Import block is un-sorted or un-formatted",
            "ruff F401 calc.py: `os` imported but unused",
            "ruff F401 calc.py: `sys` imported but unused",
            "ruff F841 calc.py: Local variable `unused` is assigned to but never used",
            "ruff I001 other.py: Import block is un-sorted or un-formatted",
            "ruff F401 other.py: `json` imported but unused",
        ],
    ),
    (
        "lint/ruff-format.stdout",
        "stdout",
        "",
        &[
            "ruff unformatted a.py: File would be reformatted",
            "ruff unformatted c.py: File would be reformatted",
        ],
    ),
    (
        "lint/mypy.stdout",
        "stdout",
        "",
        &[
            "mypy return-value calc.py: Incompatible return value type (got \"int\", expected \"str\")",
            "mypy assignment calc.py: Incompatible types in assignment (expression has type \"str\", variable has type \"int\")",
        ],
    ),
    (
        "lint/pyright.stdout",
        "stdout",
        "/tmp/fx/py",
        &[
            "pyright reportReturnType calc.py: Type \"Literal[42]\" is not assignable to return type \"str\"",
            "pyright reportAssignmentType calc.py: Type \"Literal['s']\" is not assignable to declared type \"int\"",
        ],
    ),
    (
        "lint/eslint.stdout",
        "stdout",
        "/tmp/fx/js/",
        &[
            "eslint no-unused-vars a.js: 'unused' is assigned a value but never used",
            "eslint eqeqeq a.js: Expected '===' and instead saw '=='",
            "eslint no-undef a.js: 'undefinedThing' is not defined",
            "eslint eqeqeq b.js: Expected '===' and instead saw '=='",
            "eslint no-undef b.js: 'missing' is not defined",
            "eslint no-undef eslint.config.js: 'module' is not defined",
        ],
    ),
    (
        "lint/eslint10.stdout",
        "stdout",
        "/tmp/verdicts-fx/js",
        &[
            "eslint no-unused-vars a.js: 'unused' is assigned a value but never used",
            "eslint eqeqeq a.js: Expected '===' and instead saw '=='",
            "eslint no-undef a.js: 'undefinedThing' is not defined",
            "eslint no-undef a.js: 'module' is not defined",
            "eslint no-undef eslint.config.js: 'module' is not defined",
        ],
    ),
    (
        "lint/tsc.stdout",
        "stdout",
        "",
        &[
            "tsc TS2322 t.ts: Type 'string' is not assignable to type 'number'.",
            "tsc TS7006 t.ts: Parameter 'a' implicitly has an 'any' type.",
            "tsc TS2322 u.ts: Type 'number' is not assignable to type 'string'.",
            "tsc TS2339 u.ts: Property 'foo' does not exist on type 'string'.",
        ],
    ),
    (
        "lint/black.stderr",
        "stderr",
        "/tmp/fmtfx/py",
        &[
            "black unformatted a.py: would reformat",
            "black unformatted c.py: would reformat",
        ],
    ),
    (
        "lint/prettier.stderr",
        "stderr",
        "",
        &[
            "prettier unformatted a.js: code style issues",
            "prettier unformatted src/c.ts: code style issues",
        ],
    ),
    (
        "lint/ruff-format-concise.stdout",
        "stdout",
        "",
        &[
            "ruff invalid-syntax bad.py: Expected a parameter or the end of the parameter list",
            "ruff unformatted other.py: File would be reformatted",
        ],
    ),
    (
        "lint/ruff-format-syntax.stdout",
        "stdout",
        "",
        &[
            "ruff invalid-syntax bad.py: Expected a parameter or the end of the parameter list",
            "ruff unformatted other.py: File would be reformatted",
        ],
    ),
    (
        "lint/ruff-syntax.stdout",
        "stdout",
        "",
        &[
            "ruff F401 a.py: `os` imported but unused",
            "ruff invalid-syntax bad.py: Expected a parameter or the end of the parameter list",
            "ruff invalid-syntax bad.py: Expected `)`, found newline",
        ],
    ),
    (
        "lint/black-syntax.stderr",
        "stderr",
        "/tmp/fmtfx2/py",
        &[
            "black error bad.py: cannot parse",
            "black unformatted other.py: would reformat",
        ],
    ),
    (
        "lint/prettier-syntax.stderr",
        "stderr",
        "",
        &[
            "prettier error bad.js: SyntaxError: Unexpected token",
            "prettier unformatted c.js: code style issues",
            "prettier unformatted other.js: code style issues",
        ],
    ),
    (
        "lint/cargo-fmt.stdout",
        "stdout",
        "/tmp/fmtfx/rs",
        &[
            "rustfmt unformatted src/lib.rs: differs from rustfmt's output",
            "rustfmt unformatted src/other.rs: differs from rustfmt's output",
        ],
    ),
    (
        "lint/tsc-pretty.stdout",
        "stdout",
        "",
        &[
            "tsc TS2322 t.ts: Type 'string' is not assignable to type 'number'.",
            "tsc TS7006 t.ts: Parameter 'a' implicitly has an 'any' type.",
            "tsc TS2322 u.ts: Type 'number' is not assignable to type 'string'.",
            "tsc TS2339 u.ts: Property 'foo' does not exist on type 'string'.",
        ],
    ),
];

#[test]
fn real_tool_output_into_items() {
    for (name, stream, root, want) in ROWS {
        let text = fx(name);
        let (out, err) = if *stream == "stdout" {
            (text.as_str(), "")
        } else {
            ("", text.as_str())
        };
        let got: Vec<String> = parse_items(out, err, root)
            .unwrap_or_else(|| panic!("{name}: no items"))
            .iter()
            .map(|i| format!("{} {} {}: {}", i.tool, i.rule, i.file, i.message))
            .collect();
        assert_eq!(got, *want, "{name}");
    }
}

/// `prettier --list-different` prints bare paths: read as files only when the check's command
/// is that (a bare path in any other output is not an item), its syntax errors on stderr too.
#[test]
fn a_listing_formatter_is_read_by_its_command() {
    let (out, err) = (
        fx("lint/prettier-list.stdout"),
        fx("lint/prettier-list.stderr"),
    );
    let lines = |items: Option<Vec<FailureItem>>| -> Vec<String> {
        items
            .unwrap_or_default()
            .iter()
            .map(|i| format!("{} {} {}: {}", i.tool, i.rule, i.file, i.message))
            .collect()
    };
    for command in [
        "npx prettier --list-different .",
        "node_modules/.bin/prettier -l src",
    ] {
        assert_eq!(
            lines(check_items(command, &out, &err, "", None)),
            [
                "prettier error bad.js: SyntaxError: Unexpected token",
                "prettier unformatted c.js: code style issues",
                "prettier unformatted other.js: code style issues",
            ],
            "{command}"
        );
    }
    assert_eq!(
        lines(check_items("prettier --check .", &out, &err, "", None)),
        ["prettier error bad.js: SyntaxError: Unexpected token"]
    );
    assert_eq!(check_items("./list-files.sh", &out, "", "", None), None);
    // Absolute paths under the check's directory are made relative.
    assert_eq!(
        lines(check_items("prettier -l /r", "/r/a.js\n", "", "/r", None)),
        ["prettier unformatted a.js: code style issues"]
    );
}

#[test]
fn json_formats_name_the_same_findings() {
    let ruff = parse_items(&fx("lint/ruff-json.stdout"), "", "/tmp/fx/py").unwrap_or_default();
    let codes: Vec<(&str, &str)> = ruff
        .iter()
        .map(|i| (i.rule.as_str(), i.file.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            ("I001", "calc.py"),
            ("F401", "calc.py"),
            ("F401", "calc.py"),
            ("F841", "calc.py"),
            ("I001", "other.py"),
            ("F401", "other.py"),
        ]
    );
    let eslint = parse_items(&fx("lint/eslint-json.stdout"), "", "/tmp/fx/js").unwrap_or_default();
    assert_eq!(eslint.len(), 6, "{eslint:?}");
    assert!(
        eslint
            .iter()
            .any(|i| i.rule == "eqeqeq" && i.file == "b.js"),
        "{eslint:?}"
    );
}

/// The baseline's items and the items after a fix that moved every line by one: equal.
#[test]
fn moved_lines_keep_items_equal() {
    let before = fx("lint/ruff-concise.stdout");
    let after: String = before
        .lines()
        .map(|l| match l.split_once(':') {
            Some((f, rest)) => match rest.split_once(':') {
                Some((n, rest)) if numeric(n) => {
                    format!("{f}:{}:{rest}\n", n.parse::<u32>().unwrap_or(0) + 1)
                }
                _ => format!("{l}\n"),
            },
            None => format!("{l}\n"),
        })
        .collect();
    assert_ne!(before, after);
    assert_eq!(parse_items(&before, "", ""), parse_items(&after, "", ""));
}

#[test]
fn no_format_no_items() {
    for text in [
        "",
        "all good\n",
        "error: something broke\n",
        "FAILED tests/test_x.py::test_y\n",
        // prettier's summary and a clean `prettier --check`: no file named.
        "Checking formatting...\n[warn] Code style issues found in 2 files. Run Prettier with --write to fix.\n",
        "Checking formatting...\nAll matched files use Prettier code style!\n",
        "All done! ✨ 🍰 ✨\n3 files would be left unchanged.\n",
    ] {
        assert_eq!(parse_items(text, "", ""), None, "{text:?}");
    }
}

proptest::proptest! {
    #[test]
    fn any_output_parses_without_panic(s in ".{0,400}", t in "(?s)[ -~\n\t:()\\[\\]{}\"-]{0,400}") {
        let _ = parse_items(&s, &t, "/r");
        let _ = parse_items(&t, &s, "");
    }
}
