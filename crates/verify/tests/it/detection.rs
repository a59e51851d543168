//! Detection on tiny project directories, with snapshots of the human rendering and the
//! `[gates]` table a user would get in pawl.toml.

use std::path::Path;

use pawl_verify::platform::{
    Descriptors, Detection, ProjectFacts, detect, gates_toml, render_human,
};

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn detect_in(root: &Path, tools: &[&str]) -> Detection {
    let descriptors = Descriptors::builtin().unwrap();
    let facts = ProjectFacts::gather(root, &descriptors, |t| tools.contains(&t)).unwrap();
    detect(&facts, &descriptors)
}

fn both(d: &Detection) -> String {
    format!("{}\n--- pawl.toml ---\n{}", render_human(d), gates_toml(d))
}

#[test]
fn rust_with_nextest() {
    let dir = project(&[
        ("Cargo.toml", "[package]\nname = \"x\"\n"),
        ("src/lib.rs", ""),
    ]);
    let d = detect_in(dir.path(), &["cargo-nextest"]);
    assert_eq!(d.selected.as_deref(), Some("rust"));
    // A library has doc-tests, which nextest does not run.
    assert_eq!(
        d.commands.test.as_deref(),
        Some("cargo nextest run --no-fail-fast && cargo test --doc --no-fail-fast")
    );
    assert_eq!(d.commands.typecheck, None, "the build is the type check");
    insta::assert_snapshot!(both(&d));
}

#[test]
fn rust_binary_with_nextest_has_no_doc_tests() {
    let dir = project(&[
        ("Cargo.toml", "[package]\nname = \"x\"\n"),
        ("src/main.rs", ""),
    ]);
    let d = detect_in(dir.path(), &["cargo-nextest"]);
    assert_eq!(
        d.commands.test.as_deref(),
        Some("cargo nextest run --no-fail-fast")
    );
    assert_eq!(d.commands.build.as_deref(), Some("cargo build --tests"));
}

#[test]
fn rust_without_nextest_uses_cargo_test() {
    let dir = project(&[("Cargo.toml", "[package]\nname = \"x\"\n")]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(
        d.commands.test.as_deref(),
        Some("cargo test --no-fail-fast")
    );
}

#[test]
fn node_pnpm_with_jest_and_typescript() {
    let pkg = r#"{"scripts":{"build":"tsc -p .","test":"jest","lint":"eslint ."},
        "devDependencies":{"jest":"^29","typescript":"^5"}}"#;
    let dir = project(&[
        ("package.json", pkg),
        ("pnpm-lock.yaml", ""),
        ("tsconfig.json", "{}"),
    ]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(d.selected.as_deref(), Some("node"));
    assert_eq!(
        d.commands.test.as_deref(),
        Some("pnpm run test --json --outputFile={report}")
    );
    assert_eq!(
        d.commands.lint_fix, None,
        "no lint:fix script, no lint_fix gate"
    );
    insta::assert_snapshot!(both(&d));
}

#[test]
fn node_npm_only_existing_scripts() {
    let pkg = r#"{"scripts":{"test":"vitest"},"devDependencies":{"vitest":"^4"}}"#;
    let dir = project(&[("package.json", pkg), ("package-lock.json", "{}")]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(
        d.commands.test.as_deref(),
        Some("npm run test -- --run --reporter=json --outputFile={report}")
    );
    assert_eq!(
        (d.commands.build.as_deref(), d.commands.lint.as_deref()),
        (None, None)
    );
}

/// Pre/post scripts that reach the network are not run by the npm gates (`--ignore-scripts`);
/// harmless ones are, and so are the gates of a project without hooks.
#[test]
fn node_npm_skips_pre_and_post_scripts_that_reach_the_network() {
    let rows: &[(&str, &str)] = &[
        (
            r#"{"scripts":{"test":"node --test","pretest":"npm install --no-save fixtures","build":"tsc"}}"#,
            "npm run --ignore-scripts test",
        ),
        (
            r#"{"scripts":{"test":"node --test","posttest":"curl -X POST https://ci.example/notify"}}"#,
            "npm run --ignore-scripts test",
        ),
        (
            r#"{"scripts":{"test":"node --test","pretest":"node scripts/gen.js"}}"#,
            "npm run test",
        ),
        (r#"{"scripts":{"test":"node --test"}}"#, "npm run test"),
        // A `pre` that is no hook (no `install` script) is just a script.
        (
            r#"{"scripts":{"test":"node --test","preinstall":"curl https://x"}}"#,
            "npm run test",
        ),
    ];
    for (pkg, want) in rows {
        let dir = project(&[("package.json", pkg), ("package-lock.json", "{}")]);
        let d = detect_in(dir.path(), &[]);
        assert_eq!(d.commands.test.as_deref(), Some(*want), "{pkg}");
    }
}

#[test]
fn node_npm_init_placeholder_test_is_no_gate() {
    let pkg = r#"{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}"#;
    let dir = project(&[("package.json", pkg), ("yarn.lock", "")]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(d.selected.as_deref(), Some("node"));
    assert_eq!(d.commands.test, None);
}

#[test]
fn python_poetry_with_pytest_ruff_mypy() {
    let pyproject = "[tool.poetry]\nname = \"x\"\n\n[tool.poetry.group.dev.dependencies]\npytest = \"^8\"\nruff = \"^0.5\"\nmypy = \"^1\"\n";
    let dir = project(&[("pyproject.toml", pyproject), ("poetry.lock", "")]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(d.selected.as_deref(), Some("python"));
    assert_eq!(
        d.commands.test.as_deref(),
        Some("poetry run python -m pytest -rA")
    );
    insta::assert_snapshot!(both(&d));
}

#[test]
fn python_plain_uses_unittest_and_uv_when_locked() {
    let dir = project(&[("setup.py", "")]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(
        d.commands.test.as_deref(),
        Some("python3 -m unittest discover -v")
    );
    let dir = project(&[
        ("pyproject.toml", "[project]\nname = \"x\"\n"),
        ("uv.lock", ""),
        ("conftest.py", ""),
    ]);
    let d = detect_in(dir.path(), &[]);
    // `--no-sync`: the checks use the environment as pawl sealed it (or as `[room] setup`
    // rebuilt it); a plain `uv run` re-syncs the project first, which needs the build backend
    // from the index, and the checks have no network (corpus/real/py-humanize-uv).
    assert_eq!(
        d.commands.test.as_deref(),
        Some("uv run --no-sync python -m pytest -rA")
    );
}

#[test]
fn go_module() {
    let dir = project(&[("go.mod", "module example.com/x\n")]);
    let d = detect_in(dir.path(), &["golangci-lint"]);
    assert_eq!(d.selected.as_deref(), Some("go"));
    insta::assert_snapshot!(both(&d));
}

#[test]
fn dotnet_solution_with_project_in_subdir() {
    let dir = project(&[("Calc.sln", ""), ("Calc/Calc.csproj", "<Project/>")]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(d.selected.as_deref(), Some("dotnet"));
    assert_eq!(d.matched[0].markers.len(), 2);
    insta::assert_snapshot!(both(&d));
}

#[test]
fn maven_with_wrapper() {
    let dir = project(&[("pom.xml", "<project/>"), ("mvnw", "")]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(d.selected.as_deref(), Some("maven"));
    assert_eq!(d.commands.test.as_deref(), Some("./mvnw -B test"));
}

#[test]
fn gradle_without_wrapper() {
    let dir = project(&[("build.gradle", "")]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(d.selected.as_deref(), Some("gradle"));
    assert_eq!(d.commands.test.as_deref(), Some("gradle test"));
}

#[test]
fn makefile_fallback_only_existing_targets() {
    let dir = project(&[(
        "Makefile",
        ".PHONY: test\ntest:\n\t./run-tests\nlint:\n\tshellcheck *.sh\n",
    )]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(d.selected.as_deref(), Some("make"));
    insta::assert_snapshot!(both(&d));
}

#[test]
fn justfile_fallback() {
    let dir = project(&[("justfile", "test *args:\n    ./t {{args}}\nfmt:\n    ./f\n")]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(d.selected.as_deref(), Some("just"));
    assert_eq!(d.commands.test.as_deref(), Some("just test"));
    assert_eq!(d.commands.lint_fix.as_deref(), Some("just fmt"));
    assert_eq!(d.commands.build, None);
}

#[test]
fn rust_and_node_both_match_rust_selected_with_reason() {
    let dir = project(&[
        ("Cargo.toml", "[package]\nname = \"x\"\n"),
        ("Cargo.lock", ""),
        (
            "package.json",
            r#"{"scripts":{"lint":"prettier --check ."}}"#,
        ),
        ("justfile", "test:\n  cargo test\n"),
    ]);
    let d = detect_in(dir.path(), &[]);
    let names: Vec<_> = d.matched.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["rust", "node", "just"]);
    assert_eq!(d.selected.as_deref(), Some("rust"));
    assert!(d.reason.contains("highest priority"), "{}", d.reason);
    insta::assert_snapshot!(both(&d));
    insta::assert_json_snapshot!(d);
}

#[test]
fn empty_dir_detects_nothing() {
    let dir = project(&[]);
    let d = detect_in(dir.path(), &[]);
    assert!(d.selected.is_none());
    assert_eq!(gates_toml(&d), "[gates]\n");
    insta::assert_snapshot!(render_human(&d));
}

#[test]
fn user_descriptor_overrides_builtin() {
    let mine = "name = \"rust\"\nmarkers = [\"Cargo.toml\"]\npriority = 60\n[commands]\ntest = \"cargo test --workspace\"\n";
    let descriptors = Descriptors::with_overrides(&[(".pawl/platforms/rust.toml", mine)]).unwrap();
    let facts = ProjectFacts::default().with_files(["Cargo.toml"]);
    let d = detect(&facts, &descriptors);
    assert_eq!(d.commands.test.as_deref(), Some("cargo test --workspace"));
    assert_eq!(
        d.commands.build, None,
        "the override replaces the whole descriptor"
    );
}

#[test]
fn bad_user_descriptor_names_file_and_line() {
    let bad = "name = \"x\"\nmarkers = [\"a\"]\n\n[commands]\ntests = \"x\"\n";
    let err = Descriptors::with_overrides(&[(".pawl/platforms/x.toml", bad)]).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(".pawl/platforms/x.toml"), "{msg}");
    assert!(msg.contains("line 5"), "{msg}");
    assert!(msg.contains("tests"), "{msg}");
}

/// A monorepo's packages and a workspace's crates are listed as sub-projects, one and two
/// levels down; dependency, build and hidden directories are not.
#[test]
fn monorepo_sub_projects_are_listed() {
    let dir = project(&[
        ("package.json", "{\"name\": \"root\", \"private\": true}"),
        ("packages/web/package.json", "{\"name\": \"web\"}"),
        ("packages/api/go.mod", "module api\n"),
        ("tools/Cargo.toml", "[package]\nname = \"tools\"\n"),
        ("services/ml/pyproject.toml", "[project]\nname = \"ml\"\n"),
        ("node_modules/left-pad/package.json", "{}"),
        (".cache/x/package.json", "{}"),
        ("docs/README.md", "# docs\n"),
    ]);
    let descriptors = Descriptors::builtin().unwrap();
    let subs = pawl_verify::platform::subprojects(dir.path(), &descriptors);
    let got: Vec<(String, String)> = subs
        .iter()
        .map(|s| (s.path.clone(), s.platforms.join(",")))
        .collect();
    let want: Vec<(String, String)> = [
        ("packages/api", "go"),
        ("packages/web", "node"),
        ("services/ml", "python"),
        ("tools", "rust"),
    ]
    .iter()
    .map(|(p, k)| (p.to_string(), k.to_string()))
    .collect();
    assert_eq!(got, want);
    let mut d = detect_in(dir.path(), &[]);
    d.subprojects = subs;
    assert!(
        render_human(&d).contains("packages/web"),
        "{}",
        render_human(&d)
    );
}

/// A src-layout package whose tox.ini runs pytest over unittest-style tests: the runner the
/// project declares (tox.ini), not the unittest convention; and detection says where it came from.
#[test]
fn python_src_layout_with_tox_running_pytest_uses_pytest_from_tox_ini() {
    let dir = project(&[
        (
            "setup.cfg",
            "[metadata]\nname = pkg\n[options]\npackage_dir =\n    =src\n",
        ),
        ("src/pkg/__init__.py", ""),
        (
            "tests/test_x.py",
            "import unittest\nclass T(unittest.TestCase):\n    def test_x(self): pass\n",
        ),
        (
            "tox.ini",
            "[tox]\nenvlist = py3\n[testenv]\ndeps = pytest\ncommands = pytest {posargs}\n",
        ),
    ]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(d.selected.as_deref(), Some("python"));
    assert!(
        d.commands.test.as_deref().unwrap().contains("-m pytest"),
        "{d:?}"
    );
    assert_eq!(
        d.sources.get("test").map(String::as_str),
        Some("tox.ini contains \"pytest\""),
        "{d:?}"
    );
    assert!(render_human(&d).contains("from: tox.ini contains \"pytest\""));
    // Without the declaration, the convention, said so.
    let plain = project(&[
        ("setup.cfg", "[metadata]\nname = pkg\n"),
        ("tests/test_x.py", ""),
    ]);
    let d = detect_in(plain.path(), &[]);
    assert!(
        d.commands.test.as_deref().unwrap().contains("unittest"),
        "{d:?}"
    );
    assert_eq!(
        d.sources.get("test").map(String::as_str),
        Some("python convention")
    );
}

/// `[tool.pytest.ini_options]` in pyproject.toml and `[tool:pytest]` in setup.cfg declare pytest.
#[test]
fn python_declared_pytest_sections_win_over_the_unittest_convention() {
    for (file, text) in [
        (
            "pyproject.toml",
            "[project]\nname = \"x\"\n[tool.pytest.ini_options]\naddopts = \"-q\"\n",
        ),
        (
            "setup.cfg",
            "[metadata]\nname = x\n[tool:pytest]\naddopts = -q\n",
        ),
    ] {
        let dir = project(&[(file, text), ("tests/test_x.py", "")]);
        let d = detect_in(dir.path(), &[]);
        assert!(
            d.commands.test.as_deref().unwrap().contains("-m pytest"),
            "{file}: {d:?}"
        );
    }
}

/// A bare unittest project (test_*.py, no pyproject, no tox) gets a platform; a project that
/// declares one (package.json here) is never taken for it.
#[test]
fn a_bare_unittest_project_gets_a_platform() {
    let dir = project(&[
        ("calc.py", "def add(a, b):\n    return a + b\n"),
        (
            "test_calc.py",
            "import unittest\nimport calc\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(1, 2), 3)\n",
        ),
    ]);
    let d = detect_in(dir.path(), &[]);
    assert_eq!(d.selected.as_deref(), Some("python-tests"), "{}", d.reason);
    assert_eq!(
        d.commands.test.as_deref(),
        Some("python3 -m unittest discover -v")
    );
    let node = project(&[
        (
            "package.json",
            "{\"name\": \"x\", \"scripts\": {\"test\": \"jest\"}}",
        ),
        ("scripts/test_helper.py", ""),
        ("test_tool.py", ""),
    ]);
    assert_eq!(
        detect_in(node.path(), &[]).selected.as_deref(),
        Some("node")
    );
}
