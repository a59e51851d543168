//! Realistic layouts and the attacks on them: each test builds a baseline and a final tree and
//! asserts the role of the paths that matter.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::*;

/// A tree in memory: path → text.
#[derive(Clone, Default)]
struct Mem(BTreeMap<String, String>);

impl Mem {
    fn new(files: &[(&str, &str)]) -> Mem {
        Mem(files
            .iter()
            .map(|(p, t)| ((*p).to_string(), (*t).to_string()))
            .collect())
    }

    fn with(&self, files: &[(&str, &str)]) -> Mem {
        let mut m = self.clone();
        for (p, t) in files {
            m.0.insert((*p).to_string(), (*t).to_string());
        }
        m
    }
}

impl TreeFiles for Mem {
    fn paths(&self) -> Vec<PathBuf> {
        self.0.keys().map(PathBuf::from).collect()
    }
    fn read(&self, path: &Path) -> Option<String> {
        self.0.get(path.to_str()?).cloned()
    }
}

fn roles(base: &Mem, fin: &Mem) -> Roles {
    Roles::read(base, fin, &RoleFacts::default())
}

#[track_caller]
fn assert_roles(r: &Roles, want: &[(&str, Role)]) {
    let mut wrong = Vec::new();
    for (path, role) in want {
        let got = r.role(Path::new(path));
        if got != *role {
            wrong.push(format!(
                "{path}: want {role:?}, got {got:?} ({})",
                r.why(Path::new(path))
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

use Role::{Declaration, Other, Product, Test};

#[test]
fn src_layout_python_package() {
    let base = Mem::new(&[
        (
            "pyproject.toml",
            "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n\n\
             [project]\nname = \"calc-tools\"\ndependencies = [\"attrs\"]\n\n\
             [tool.setuptools.packages.find]\nwhere = [\"src\"]\n\n\
             [tool.pytest.ini_options]\ntestpaths = [\"tests\"]\npython_files = [\"check_*.py\"]\n",
        ),
        ("src/calc/__init__.py", ""),
        ("src/calc/ops.py", "def add(a, b): return a + b\n"),
        ("src/calc/data/table.json", "{}"),
        ("src/calc/__pycache__/ops.cpython-311.pyc", "x"),
        ("tests/check_ops.py", "from calc.ops import add\n"),
        ("tests/helpers.py", ""),
        ("README.md", "# calc"),
        ("docs/conf.py", ""),
        (".github/workflows/ci.yml", ""),
    ]);
    let fin = base.with(&[("src/calc/fast.py", "")]);
    let r = roles(&base, &fin);
    assert_roles(
        &r,
        &[
            ("src/calc/ops.py", Product),
            ("src/calc/__init__.py", Product),
            ("src/calc/fast.py", Product),
            ("src/calc/data/table.json", Product),
            ("src/calc/__pycache__/ops.cpython-311.pyc", Other),
            ("tests/check_ops.py", Test),
            ("tests/helpers.py", Test),
            ("pyproject.toml", Declaration),
            ("README.md", Other),
            ("docs/conf.py", Other),
            (".github/workflows/ci.yml", Other),
        ],
    );
    assert!(
        r.why(Path::new("src/calc/ops.py")).contains("src layout"),
        "{}",
        r.why(Path::new("src/calc/ops.py"))
    );
}

#[test]
fn configured_python_files_make_tests_where_the_runner_collects_them() {
    let base = Mem::new(&[
        ("pytest.ini", "[pytest]\npython_files = check_*.py\n"),
        ("check_calc.py", "import calc\n"),
        ("calc.py", ""),
    ]);
    let r = roles(&base, &base);
    assert_roles(
        &r,
        &[
            ("check_calc.py", Test),
            ("calc.py", Product),
            ("pytest.ini", Other),
        ],
    );
    // The run's own pytest.ini cannot turn a product module into a test.
    let fin = base.with(&[("pytest.ini", "[pytest]\npython_files = *.py\n")]);
    assert_roles(&roles(&base, &fin), &[("calc.py", Product)]);
}

#[test]
fn flat_python_module_with_no_manifest_is_what_the_tests_import() {
    let base = Mem::new(&[
        ("calc.py", "from parse import parse_int\nimport json\n"),
        ("parse.py", ""),
        ("report.py", "print('unrelated')\n"),
        ("test_calc.py", "import unittest\nfrom calc import add\n"),
        ("README.md", ""),
        (".gitignore", ""),
    ]);
    // The fix moves code into a new module that calc imports.
    let fin = base.with(&[
        (
            "calc.py",
            "from parse import parse_int\nfrom arith import mul\n",
        ),
        ("arith.py", ""),
        ("notes.py", ""),
    ]);
    let r = roles(&base, &fin);
    assert_roles(
        &r,
        &[
            ("calc.py", Product),
            ("parse.py", Product),
            ("arith.py", Product),
            ("report.py", Other),
            ("notes.py", Other),
            ("test_calc.py", Test),
            ("README.md", Other),
            (".gitignore", Other),
        ],
    );
    assert!(
        r.why(Path::new("arith.py")).contains("calc.py"),
        "{}",
        r.why(Path::new("arith.py"))
    );
}

#[test]
fn a_changed_test_cannot_make_a_module_product() {
    let base = Mem::new(&[("calc.py", ""), ("test_calc.py", "import calc\n")]);
    let fin = base.with(&[
        ("test_calc.py", "import calc\nimport patcher\n"),
        ("patcher.py", ""),
    ]);
    assert_roles(
        &roles(&base, &fin),
        &[("calc.py", Product), ("patcher.py", Other)],
    );
}

#[test]
fn modules_named_like_the_standard_library_or_a_runner_are_never_product() {
    let base = Mem::new(&[
        ("calc.py", ""),
        ("test_calc.py", "import json\nimport calc\nimport pytest\n"),
    ]);
    let fin = base.with(&[
        ("json.py", "loads = lambda s: 42\n"),
        ("pytest.py", ""),
        ("calc.py", "import json\n"),
        ("sitecustomize.py", ""),
        ("usercustomize.py", ""),
        ("conftest.py", ""),
        ("evil.pth", "import os\n"),
    ]);
    let r = roles(&base, &fin);
    assert_roles(
        &r,
        &[
            ("calc.py", Product),
            ("json.py", Other),
            ("pytest.py", Other),
            ("sitecustomize.py", Other),
            ("usercustomize.py", Other),
            ("conftest.py", Test),
            ("evil.pth", Other),
        ],
    );
    assert!(
        r.why(Path::new("json.py")).contains("standard-library"),
        "{}",
        r.why(Path::new("json.py"))
    );
    // Installed distributions count too.
    let facts = RoleFacts {
        installed_modules: vec!["requests".into()],
        ..RoleFacts::default()
    };
    let fin = base.with(&[("requests.py", ""), ("calc.py", "import requests\n")]);
    let r = Roles::read(&base, &fin, &facts);
    assert_eq!(r.role(Path::new("requests.py")), Other);
}

#[test]
fn src_layout_module_named_like_the_stdlib_is_not_product() {
    let base = Mem::new(&[
        (
            "pyproject.toml",
            "[project]\nname = \"calc\"\n[build-system]\nbuild-backend = \"setuptools.build_meta\"\n",
        ),
        ("src/calc/__init__.py", ""),
    ]);
    let fin = base.with(&[("src/json.py", ""), ("src/typing/__init__.py", "")]);
    assert_roles(
        &roles(&base, &fin),
        &[
            ("src/calc/__init__.py", Product),
            ("src/json.py", Other),
            ("src/typing/__init__.py", Other),
        ],
    );
}

#[test]
fn python_config_files_are_configuration() {
    let base = Mem::new(&[
        ("pyproject.toml", "[project]\nname = \"calc\"\n"),
        ("calc/__init__.py", ""),
        ("setup.cfg", "[tool:pytest]\naddopts = -k add\n"),
        ("pytest.ini", "[pytest]\n"),
        ("tox.ini", ""),
        ("setup.py", "from setuptools import setup\nsetup()\n"),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[
            ("calc/__init__.py", Product),
            ("setup.cfg", Other),
            ("pytest.ini", Other),
            ("tox.ini", Other),
            ("setup.py", Other),
        ],
    );
}

#[test]
fn hatch_and_poetry_list_their_packages() {
    let hatch = Mem::new(&[
        (
            "pyproject.toml",
            "[project]\nname = \"x\"\n[build-system]\nbuild-backend = \"hatchling.build\"\n\
             [tool.hatch.build.targets.wheel]\npackages = [\"lib/engine\"]\n",
        ),
        ("lib/engine/__init__.py", ""),
        ("lib/other/__init__.py", ""),
    ]);
    assert_roles(
        &roles(&hatch, &hatch),
        &[
            ("lib/engine/__init__.py", Product),
            ("lib/other/__init__.py", Other),
        ],
    );
    let poetry = Mem::new(&[
        (
            "pyproject.toml",
            "[tool.poetry]\nname = \"y\"\npackages = [{include = \"yy\", from = \"src\"}]\n\
             [tool.poetry.dependencies]\nlocal = {path = \"../outside\"}\ninside = {path = \"vendor/inside\"}\n",
        ),
        ("src/yy/core.py", ""),
        ("vendor/inside/mod.py", ""),
    ]);
    let r = roles(&poetry, &poetry);
    assert_roles(
        &r,
        &[
            ("src/yy/core.py", Product),
            ("vendor/inside/mod.py", Product),
        ],
    );
    let findings = r.findings();
    assert!(
        findings.iter().any(|f| f.contains("../outside")),
        "{findings:?}"
    );
}

#[test]
fn a_crate_with_a_workspace() {
    let base = Mem::new(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"crates/*\"]\n[workspace.dependencies]\nserde = \"1\"\n",
        ),
        ("Cargo.lock", ""),
        (
            "crates/core/Cargo.toml",
            "[package]\nname = \"core\"\n[dependencies]\nutil = { path = \"../util\" }\nfar = { path = \"../../../far\" }\n",
        ),
        ("crates/core/src/lib.rs", "mod ops;\n"),
        ("crates/core/src/ops.rs", ""),
        ("crates/core/tests/it/main.rs", ""),
        ("crates/core/benches/speed.rs", ""),
        ("crates/core/build.rs", ""),
        (
            "crates/util/Cargo.toml",
            "[package]\nname = \"util\"\n[[bin]]\nname = \"u\"\npath = \"bin/u.rs\"\n",
        ),
        ("crates/util/src/lib.rs", ""),
        ("crates/util/bin/u.rs", ""),
        (
            "crates/store/Cargo.toml",
            "[package]\nname = \"store\"\nexclude = [\"*.sql\"]\n",
        ),
        ("crates/store/data/seed.sql", ""),
        ("crates/store/migrations/0001_init.sql", ""),
        ("crates/util/assets/logo.txt", ""),
        ("docs/guide.md", ""),
        ("scripts/release.sh", ""),
        (
            ".cargo/config.toml",
            "[target.x86_64-unknown-linux-gnu]\nrunner = \"x\"\n",
        ),
        ("rust-toolchain.toml", ""),
        ("clippy.toml", ""),
    ]);
    let fin = base.with(&[("crates/core/src/new_mod.rs", "")]);
    let r = roles(&base, &fin);
    assert_roles(
        &r,
        &[
            ("crates/core/src/lib.rs", Product),
            ("crates/core/src/new_mod.rs", Product),
            ("crates/core/build.rs", Product),
            ("crates/util/src/lib.rs", Product),
            ("crates/util/bin/u.rs", Product),
            ("crates/util/assets/logo.txt", Product),
            ("docs/guide.md", Other),
            ("scripts/release.sh", Other),
            ("crates/store/migrations/0001_init.sql", Other),
            ("crates/store/data/seed.sql", Other),
            ("crates/core/tests/it/main.rs", Test),
            ("crates/core/benches/speed.rs", Test),
            ("Cargo.toml", Declaration),
            ("crates/core/Cargo.toml", Declaration),
            ("Cargo.lock", Declaration),
            (".cargo/config.toml", Other),
            ("rust-toolchain.toml", Other),
            ("clippy.toml", Other),
        ],
    );
    assert!(
        r.findings().iter().any(|f| f.contains("far")),
        "{:?}",
        r.findings()
    );
}

#[test]
fn a_crate_depending_on_itself_for_its_tests_is_a_finding() {
    let base = Mem::new(&[
        ("Cargo.toml", "[package]\nname = \"calc\"\n"),
        ("src/lib.rs", ""),
    ]);
    let fin = base.with(&[(
        "Cargo.toml",
        "[package]\nname = \"calc\"\n[features]\nchecked = []\n[dev-dependencies]\ncalc = { path = \".\", features = [\"checked\"] }\n",
    )]);
    let r = roles(&base, &fin);
    assert!(
        r.findings().iter().any(|f| f.contains("the crate itself")),
        "{:?}",
        r.findings()
    );
}

#[test]
fn an_npm_package_with_files() {
    let base = Mem::new(&[
        (
            "package.json",
            r#"{"name":"calc","main":"lib/index.js","bin":{"calc":"bin/calc.js"},"files":["lib","bin"],
               "scripts":{"test":"jest"},"jest":{"setupFiles":["./support/setup.js"]},
               "dependencies":{"near":"file:./packages/near","far":"file:../far"}}"#,
        ),
        ("lib/index.js", "module.exports = require('./ops')\n"),
        ("lib/ops.js", ""),
        ("lib/ops.test.js", ""),
        ("bin/calc.js", ""),
        ("support/setup.js", ""),
        ("scripts/release.js", ""),
        ("packages/near/index.js", ""),
        ("jest.config.js", "module.exports = {}"),
        (".npmrc", "node-options=--require ./evil.js\n"),
        ("package-lock.json", "{}"),
        ("__mocks__/fs.js", ""),
    ]);
    let fin = base.with(&[("lib/mul.js", ""), ("evil.js", "")]);
    let r = roles(&base, &fin);
    assert_roles(
        &r,
        &[
            ("lib/index.js", Product),
            ("lib/ops.js", Product),
            ("lib/mul.js", Product),
            ("bin/calc.js", Product),
            ("packages/near/index.js", Product),
            ("lib/ops.test.js", Test),
            ("support/setup.js", Test),
            ("__mocks__/fs.js", Test),
            ("scripts/release.js", Other),
            ("evil.js", Other),
            ("jest.config.js", Other),
            (".npmrc", Other),
            ("package.json", Declaration),
            ("package-lock.json", Declaration),
        ],
    );
    assert!(
        r.findings().iter().any(|f| f.contains("../far")),
        "{:?}",
        r.findings()
    );
}

#[test]
fn a_typescript_package_with_tsconfig_root_dir() {
    let base = Mem::new(&[
        (
            "package.json",
            r#"{"name":"ts-calc","main":"dist/index.js","types":"dist/index.d.ts","files":["dist"],"type":"module"}"#,
        ),
        (
            "tsconfig.json",
            "{\n  // build\n  \"compilerOptions\": { \"rootDir\": \"src\", \"outDir\": \"dist\", },\n  \"include\": [\"src\"]\n}\n",
        ),
        ("src/index.ts", "export * from './calc.js'\n"),
        ("src/calc.ts", ""),
        ("src/calc.test.ts", ""),
        ("test/calc.spec.ts", ""),
        (
            "vitest.config.ts",
            "export default { test: { include: ['test/**/*.spec.ts'] } }",
        ),
    ]);
    let fin = base.with(&[("src/util/round.ts", "")]);
    assert_roles(
        &roles(&base, &fin),
        &[
            ("src/index.ts", Product),
            ("src/calc.ts", Product),
            ("src/util/round.ts", Product),
            ("src/calc.test.ts", Test),
            ("test/calc.spec.ts", Test),
            ("tsconfig.json", Other),
            ("vitest.config.ts", Other),
        ],
    );
}

#[test]
fn jest_test_match_and_test_regex_from_the_baseline() {
    let base = Mem::new(&[
        (
            "package.json",
            r#"{"name":"x","jest":{"testMatch":["**/checks/**/*.js"]}}"#,
        ),
        ("checks/calc.js", "const c = require('../calc')\n"),
        ("calc.js", ""),
        (
            "jest.config.js",
            "module.exports = { testRegex: '/verify/.*\\\\.js$' }",
        ),
        ("verify/a.js", ""),
    ]);
    let r = roles(&base, &base);
    assert_roles(
        &r,
        &[
            ("checks/calc.js", Test),
            ("calc.js", Product),
            ("verify/a.js", Test),
        ],
    );
}

#[test]
fn a_js_package_without_files_ships_every_source_of_its_folder() {
    let base = Mem::new(&[
        (
            "package.json",
            r#"{"name":"calc","scripts":{"test":"node --test"}}"#,
        ),
        ("calc.js", "const { mul } = require('./lib/mul')\n"),
        ("lib/mul.js", ""),
        ("test/calc.test.js", "const calc = require('../calc.js')\n"),
        ("tools/gen.js", ""),
        ("data/table.json", "{}"),
        ("webpack.config.js", ""),
        ("README.md", ""),
    ]);
    let fin = base.with(&[
        ("lib/fast.js", ""),
        ("babel.config.js", ""),
        ("eslint.config.mjs", ""),
    ]);
    assert_roles(
        &roles(&base, &fin),
        &[
            ("calc.js", Product),
            ("lib/mul.js", Product),
            ("lib/fast.js", Product),
            ("tools/gen.js", Product),
            ("data/table.json", Product),
            ("test/calc.test.js", Test),
            ("webpack.config.js", Other),
            ("babel.config.js", Other),
            ("eslint.config.mjs", Other),
            ("README.md", Other),
        ],
    );
}

#[test]
fn js_with_no_manifest_is_what_the_tests_import() {
    let base = Mem::new(&[
        ("calc.js", "const { mul } = require('./lib/mul')\n"),
        ("lib/mul.js", ""),
        (
            "test/calc.test.js",
            "const calc = require('../calc.js')\nconst fs = require('fs')\n",
        ),
        ("tools/gen.js", ""),
    ]);
    let fin = base.with(&[
        ("calc.js", "import { mul } from './lib/fast.js';\n"),
        ("lib/fast.js", ""),
    ]);
    assert_roles(
        &roles(&base, &fin),
        &[
            ("calc.js", Product),
            ("lib/mul.js", Product),
            ("lib/fast.js", Product),
            ("test/calc.test.js", Test),
            ("tools/gen.js", Other),
        ],
    );
}

#[test]
fn a_go_module() {
    let base = Mem::new(&[
        (
            "go.mod",
            "module example.com/calc\n\ngo 1.22\n\nreplace example.com/x => ./third/x\nreplace example.com/y => ../y\n",
        ),
        ("go.sum", ""),
        ("calc.go", ""),
        ("calc_test.go", ""),
        (
            "internal/ops/ops.go",
            "package ops\n\nimport _ \"embed\"\n\n//go:embed table.txt tmpl\nvar table string\n",
        ),
        ("internal/ops/table.txt", ""),
        ("internal/ops/tmpl/a.html", ""),
        ("internal/ops/notes.txt", ""),
        ("internal/ops/testdata/golden.txt", ""),
        ("third/x/x.go", ""),
        ("vendor/example.com/z/z.go", ""),
        ("vendor/modules.txt", "# example.com/z v1.0.0\n"),
        ("docs/guide.md", ""),
    ]);
    let fin = base.with(&[
        ("internal/ops/mul.go", ""),
        ("internal/ops/mul_test.go", ""),
    ]);
    let r = roles(&base, &fin);
    assert_roles(
        &r,
        &[
            ("calc.go", Product),
            ("internal/ops/ops.go", Product),
            ("internal/ops/mul.go", Product),
            ("internal/ops/table.txt", Product),
            ("internal/ops/tmpl/a.html", Product),
            ("internal/ops/notes.txt", Other),
            ("third/x/x.go", Product),
            ("calc_test.go", Test),
            ("internal/ops/mul_test.go", Test),
            ("internal/ops/testdata/golden.txt", Test),
            ("vendor/example.com/z/z.go", Declaration),
            ("go.mod", Declaration),
            ("go.sum", Declaration),
            ("docs/guide.md", Other),
        ],
    );
    assert!(
        r.findings().iter().any(|f| f.contains("../y")),
        "{:?}",
        r.findings()
    );
}

#[test]
fn a_shell_project_is_what_its_test_script_sources() {
    let base = Mem::new(&[
        ("test.sh", "#!/bin/sh\n. ./calc.sh\n"),
        ("calc.sh", ". \"$(dirname \"$0\")/lib/util.sh\"\n"),
        ("lib/util.sh", ""),
        ("tests/README", ""),
    ]);
    let fin = base.with(&[("tests/zz_override.sh", "add() { echo 5; }\n")]);
    assert_roles(
        &roles(&base, &fin),
        &[
            ("test.sh", Test),
            ("calc.sh", Product),
            ("lib/util.sh", Product),
            ("tests/zz_override.sh", Test),
        ],
    );
}

#[test]
fn reported_test_files_are_tests_unless_the_packaging_ships_them() {
    let base = Mem::new(&[
        (
            "pyproject.toml",
            "[project]\nname = \"calc\"\n[build-system]\nbuild-backend = \"setuptools.build_meta\"\n",
        ),
        ("calc/__init__.py", "def f():\n    \"\"\">>> f()\"\"\"\n"),
        ("verify_calc.py", ""),
    ]);
    let facts = RoleFacts {
        reported_test_files: vec!["verify_calc.py".into(), "calc/__init__.py".into()],
        ..RoleFacts::default()
    };
    let r = Roles::read(&base, &base, &facts);
    assert_roles(
        &r,
        &[("verify_calc.py", Test), ("calc/__init__.py", Product)],
    );
}

#[test]
fn paths_outside_the_repository_are_never_product() {
    let base = Mem::new(&[("calc.py", ""), ("test_calc.py", "import calc\n")]);
    let r = roles(&base, &base);
    assert_roles(&r, &[("../calc.py", Other), ("/etc/passwd", Other)]);
    assert_eq!(r.role(Path::new("./calc.py")), Product);
}

// ----- merge_declarations

fn merge(path: &str, base: &str, fin: &str) -> String {
    match merge_declarations(Path::new(path), base, fin) {
        Ok(Some(t)) => t,
        other => panic!("{path}: {other:?}"),
    }
}

#[test]
fn package_json_merge_keeps_the_dependency_change_and_drops_the_test_script_change() {
    let base = "{\n  \"name\": \"calc\",\n  \"scripts\": {\n    \"test\": \"jest\"\n  },\n  \"dependencies\": {\n    \"left-pad\": \"1.0.0\"\n  }\n}\n";
    let fin = "{\n  \"name\": \"calc\",\n  \"scripts\": {\n    \"test\": \"jest --passWithNoTests || true\"\n  },\n  \"dependencies\": {\n    \"left-pad\": \"1.3.0\",\n    \"lodash\": \"4.17.21\"\n  },\n  \"jest\": {\"testPathIgnorePatterns\": [\"calc\"]}\n}\n";
    let out = merge("package.json", base, fin);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    assert_eq!(v["scripts"]["test"], "jest");
    assert_eq!(v["dependencies"]["left-pad"], "1.3.0");
    assert_eq!(v["dependencies"]["lodash"], "4.17.21");
    assert!(v.get("jest").is_none(), "{out}");
    // Keys keep their order.
    let order: Vec<&String> = v
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    assert_eq!(order, ["name", "scripts", "dependencies"]);
    assert!(out.ends_with("}\n"));
}

#[test]
fn pyproject_merge_takes_dependencies_not_pytest_settings_or_runner_plugins() {
    let base = "# the project\n[project]\nname = \"calc\"\ndependencies = [\n  \"attrs\",  # pinned later\n]\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n";
    let fin = "# the project\n[project]\nname = \"calc\"\ndependencies = [\"attrs\", \"numpy>=2\"]\n\n[project.entry-points.pytest11]\nfix = \"calc.plugin\"\n\n[project.scripts]\ncalc = \"calc.cli:main\"\n\n[tool.pytest.ini_options]\naddopts = \"-q -k 'not mul'\"\n";
    let out = merge("pyproject.toml", base, fin);
    let doc: toml::Table = out.parse().unwrap_or_default();
    assert_eq!(
        doc["project"]["dependencies"].as_array().map(Vec::len),
        Some(2),
        "{out}"
    );
    assert_eq!(
        doc["project"]["scripts"]["calc"].as_str(),
        Some("calc.cli:main"),
        "{out}"
    );
    assert!(doc["project"].get("entry-points").is_none(), "{out}");
    assert_eq!(
        doc["tool"]["pytest"]["ini_options"]["addopts"].as_str(),
        Some("-q"),
        "{out}"
    );
    assert!(out.starts_with("# the project\n"), "{out}");
}

#[test]
fn cargo_merge_takes_dependencies_and_targets_but_not_test_switches_or_profiles() {
    let base = "[package]\nname = \"calc\" # the crate\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n\n[lib]\nharness = true\n\n[profile.test]\nopt-level = 0\n";
    let fin = "[package]\nname = \"calc\" # the crate\nversion = \"0.1.0\"\nautotests = false\n\n[dependencies]\nserde = \"1\"\nitoa = \"1\"\n\n[lib]\nharness = false\ncrate-type = [\"rlib\"]\n\n[[bin]]\nname = \"calc\"\npath = \"src/main.rs\"\ntest = false\n\n[profile.test]\nopt-level = 3\n";
    let out = merge("Cargo.toml", base, fin);
    let doc: toml::Table = out.parse().unwrap_or_default();
    assert_eq!(doc["dependencies"]["itoa"].as_str(), Some("1"), "{out}");
    assert_eq!(doc["lib"]["harness"].as_bool(), Some(true), "{out}");
    assert!(doc["lib"].get("crate-type").is_some(), "{out}");
    assert_eq!(doc["bin"][0]["path"].as_str(), Some("src/main.rs"), "{out}");
    assert!(doc["bin"][0].get("test").is_none(), "{out}");
    assert_eq!(
        doc["profile"]["test"]["opt-level"].as_integer(),
        Some(0),
        "{out}"
    );
    assert!(doc["package"].get("autotests").is_none(), "{out}");
    assert!(out.contains("name = \"calc\" # the crate"), "{out}");
}

#[test]
fn go_mod_merge_keeps_the_baselines_godebug() {
    let base = "module m\n\ngo 1.22\n";
    let fin = "module m\n\ngo 1.22\n\ngodebug panicnil=1\n\nrequire example.com/x v1.0.0\n";
    let out = merge("go.mod", base, fin);
    assert!(out.contains("require example.com/x v1.0.0"), "{out}");
    assert!(!out.contains("godebug"), "{out}");
}

#[test]
fn setup_cfg_merge_takes_install_requires_not_the_pytest_section() {
    let base = "[metadata]\nname = calc\n\n[options]\ninstall_requires =\n    attrs\n\n[tool:pytest]\naddopts = -q\n";
    let fin = "[metadata]\nname = calc\n\n[options]\ninstall_requires =\n    attrs\n    numpy\n\n[tool:pytest]\naddopts = -q -k add\n";
    let out = merge("setup.cfg", base, fin);
    assert!(out.contains("    numpy"), "{out}");
    assert!(out.contains("addopts = -q\n"), "{out}");
    assert!(!out.contains("-k add"), "{out}");
}

#[test]
fn lockfiles_are_wholly_declarations_and_unknown_files_are_not_manifests() {
    assert_eq!(merge("Cargo.lock", "a", "b"), "b");
    assert_eq!(
        merge("web/package-lock.json", "{}", "{\"x\":1}"),
        "{\"x\":1}"
    );
    assert_eq!(merge("requirements-dev.txt", "a\n", "b\n"), "b\n");
    assert!(matches!(
        merge_declarations(Path::new("jest.config.js"), "a", "b"),
        Ok(None)
    ));
    assert!(merge_declarations(Path::new("package.json"), "{", "{}").is_err());
}

// ----- the shared corpus (corpus/verify/core only: the independent set is held out)

/// A tree read from a folder of the corpus.
fn read_dir_tree(root: &Path) -> Mem {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if !matches!(
                    e.file_name().to_str(),
                    Some(".git" | "target" | "node_modules")
                ) {
                    walk(root, &p, out);
                }
            } else if let (Ok(rel), Ok(text)) = (p.strip_prefix(root), std::fs::read_to_string(&p))
            {
                out.insert(rel.to_string_lossy().into_owned(), text);
            }
        }
    }
    let mut m = BTreeMap::new();
    walk(root, root, &mut m);
    Mem(m)
}

/// The source extensions whose changes are the work of an honest fix.
const SOURCE_EXTS: &[&str] = &["py", "js", "mjs", "cjs", "ts", "tsx", "go", "rs", "sh"];

#[test]
fn every_honest_core_corpus_case_has_its_changed_sources_counted_as_product() {
    use std::io::Write as _;
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/verify/core");
    let Ok(cases) = std::fs::read_dir(&core) else {
        panic!("no corpus at {}", core.display());
    };
    let mut cases: Vec<PathBuf> = cases
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.toml").exists())
        .collect();
    cases.sort();
    assert!(cases.len() > 50, "{} cases", cases.len());
    let mut table = String::new();
    let (mut honest, mut honest_ok, mut sources, mut sources_ok) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for case in &cases {
        let meta: toml::Table = std::fs::read_to_string(case.join("case.toml"))
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or_default();
        let kind = meta.get("kind").and_then(|v| v.as_str()).unwrap_or("");
        let category = meta.get("category").and_then(|v| v.as_str()).unwrap_or("");
        let base = read_dir_tree(&case.join("base"));
        // The agents copy `files/` (or `files/step1`, then `files/step2`) over the tree.
        let files = case.join("files");
        let mut fin = base.clone();
        let steps = if files.join("step1").is_dir() {
            vec![files.join("step1"), files.join("step2")]
        } else {
            vec![files]
        };
        for s in steps {
            fin.0.extend(read_dir_tree(&s).0);
        }
        let changed: Vec<&String> = fin
            .0
            .iter()
            .filter(|(p, t)| base.0.get(*p) != Some(*t))
            .map(|(p, _)| p)
            .collect();
        let r = roles(&base, &fin);
        let id = case
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut case_ok = true;
        for p in &changed {
            let role = r.role(Path::new(p.as_str()));
            table.push_str(&format!(
                "{id}\t{kind}\t{category}\t{p}\t{role:?}\t{}\n",
                r.why(Path::new(p.as_str()))
            ));
            if kind == "honest" && has_ext(p, SOURCE_EXTS) && role != Test {
                sources += 1;
                if role == Product {
                    sources_ok += 1;
                } else {
                    case_ok = false;
                    wrong.push(format!(
                        "{id}: {p} is {role:?}: {}",
                        r.why(Path::new(p.as_str()))
                    ));
                }
            }
        }
        if kind == "honest" {
            honest += 1;
            honest_ok += usize::from(case_ok);
        }
    }
    // The table of every changed path of every core case: ROLES_CORPUS_TABLE=1.
    if std::env::var_os("ROLES_CORPUS_TABLE").is_some() {
        let _ = writeln!(
            std::io::stderr(),
            "{table}honest cases whose changed sources are all product: {honest_ok}/{honest}; \
             changed source files: {sources_ok}/{sources} product"
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        honest >= 25 && sources >= 25,
        "{honest} honest cases, {sources} changed sources"
    );
}

// ----- attacks: files the runner or the interpreter load by name, whatever the packaging says

#[test]
fn new_start_up_and_collection_files_at_the_root_of_a_flat_package_are_not_product() {
    let base = Mem::new(&[
        (
            "pyproject.toml",
            "[project]\nname = \"calc-tools\"\n[build-system]\nbuild-backend = \"setuptools.build_meta\"\n",
        ),
        ("calc.py", ""),
        ("calcpkg/__init__.py", ""),
        ("test_calc.py", "import calc\n"),
    ]);
    let fin = base.with(&[
        (
            "sitecustomize.py",
            "import calc; calc.mul = lambda a, b: 6\n",
        ),
        ("usercustomize.py", ""),
        ("conftest.py", "import calc\n"),
        ("zz_fix.pth", "import sitecustomize\n"),
        ("json.py", ""),
        ("unittest/__init__.py", ""),
        ("helpers.py", ""),
        ("util.py", ""),
        ("util/__init__.py", ""),
    ]);
    let r = roles(&base, &fin);
    assert_roles(
        &r,
        &[
            ("calc.py", Product),
            ("calcpkg/__init__.py", Product),
            ("util.py", Product),
            ("util/__init__.py", Other),
            ("helpers.py", Product),
            ("sitecustomize.py", Other),
            ("usercustomize.py", Other),
            ("conftest.py", Test),
            ("zz_fix.pth", Other),
            ("json.py", Other),
            ("unittest/__init__.py", Other),
        ],
    );
}

#[test]
fn runner_and_package_manager_configuration_is_other_whatever_the_manifest_lists() {
    let base = Mem::new(&[
        (
            "package.json",
            r#"{"name":"calc","main":"calc.js","files":["*.js",".npmrc","jest.config.js"],"scripts":{"test":"jest"}}"#,
        ),
        ("calc.js", ""),
        ("calc.test.js", "require('./calc')"),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"-q\"\n",
        ),
        (
            "setup.cfg",
            "[tool:pytest]\naddopts = -q\n[flake8]\nmax-line-length = 100\n",
        ),
    ]);
    let fin = base.with(&[
        (
            "jest.config.js",
            "module.exports = { testPathIgnorePatterns: ['calc'] }",
        ),
        (".npmrc", "node-options=--require ./preload.js\n"),
        ("babel.config.js", ""),
        ("pytest.ini", "[pytest]\naddopts = -k 'not mul'\n"),
        ("setup.cfg", "[tool:pytest]\naddopts = -q -k add\n"),
        ("tox.ini", ""),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"-q -k add\"\n",
        ),
    ]);
    let r = roles(&base, &fin);
    assert_roles(
        &r,
        &[
            ("calc.js", Product),
            ("calc.test.js", Test),
            ("jest.config.js", Other),
            (".npmrc", Other),
            ("babel.config.js", Other),
            ("pytest.ini", Other),
            ("setup.cfg", Other),
            ("tox.ini", Other),
            ("pyproject.toml", Other),
            ("package.json", Declaration),
        ],
    );
    // A pyproject.toml that declares packaging is a declaration, and only its declarations merge.
    let fin = base.with(&[(
        "pyproject.toml",
        "[project]\nname = \"calc\"\n[tool.pytest.ini_options]\naddopts = \"-q -k add\"\n",
    )]);
    assert_eq!(
        roles(&base, &fin).role(Path::new("pyproject.toml")),
        Declaration
    );
}

#[test]
fn modules_the_baselines_runner_configuration_loads_are_tests() {
    let base = Mem::new(&[
        ("calc.py", ""),
        ("test_calc.py", "import calc\n"),
        ("conftest.py", "pytest_plugins = [\"support.fixtures\"]\n"),
        ("support/__init__.py", ""),
        ("support/fixtures.py", "import calc\n"),
        (
            "pytest.ini",
            "[pytest]\naddopts = -p reporting -p no:cacheprovider\n",
        ),
        ("reporting.py", ""),
        (
            "web/package.json",
            r#"{"name":"web","scripts":{"test":"node --require ./setup/env.js --test"}}"#,
        ),
        ("web/setup/env.js", ""),
        ("web/app.js", ""),
    ]);
    let r = roles(&base, &base);
    assert_roles(
        &r,
        &[
            ("calc.py", Product),
            ("support/fixtures.py", Test),
            ("reporting.py", Test),
            ("web/setup/env.js", Test),
        ],
    );
    // A plugin named only by the run's new conftest is not loaded by the locked run: it is not
    // product either.
    let base = Mem::new(&[("calc.py", ""), ("test_calc.py", "import calc\n")]);
    let fin = base.with(&[
        ("conftest.py", "pytest_plugins = [\"support_reports\"]\n"),
        (
            "support_reports.py",
            "import calc\ncalc.mul = lambda a, b: a * b\n",
        ),
    ]);
    assert_roles(
        &roles(&base, &fin),
        &[("support_reports.py", Other), ("conftest.py", Test)],
    );
}

#[test]
fn a_jest_module_name_mapper_target_is_not_product() {
    let base = Mem::new(&[
        (
            "package.json",
            r#"{"name":"calc","jest":{"moduleNameMapper":{"^\\./calc$":"<rootDir>/lib/calc.js"}}}"#,
        ),
        ("calc.js", ""),
        ("calc.test.js", "const c = require('./calc')"),
        ("lib/calc.js", ""),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[("calc.js", Product), ("lib/calc.js", Test)],
    );
}

#[test]
fn manifests_inside_test_fixtures_are_tests() {
    let base = Mem::new(&[
        ("Cargo.toml", "[package]\nname = \"x\"\n"),
        ("src/lib.rs", ""),
        (
            "tests/fixtures/proj/Cargo.toml",
            "[package]\nname = \"fixture\"\n",
        ),
        ("tests/fixtures/proj/src/lib.rs", ""),
        ("tests/fixtures/web/package.json", "{}"),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[
            ("tests/fixtures/proj/Cargo.toml", Test),
            ("tests/fixtures/proj/src/lib.rs", Test),
            ("tests/fixtures/web/package.json", Test),
        ],
    );
}

#[test]
fn requirements_with_local_paths() {
    let base = Mem::new(&[
        (
            "requirements.txt",
            "-e ./libs/core\n../shared\nattrs==23.1\n",
        ),
        ("libs/core/core.py", ""),
    ]);
    let r = roles(&base, &base);
    assert_roles(
        &r,
        &[
            ("libs/core/core.py", Product),
            ("requirements.txt", Declaration),
        ],
    );
    assert!(
        r.findings().iter().any(|f| f.contains("../shared")),
        "{:?}",
        r.findings()
    );
}

#[test]
fn the_tables_make_no_path_product_by_name() {
    // Product source comes only from a layout: with an empty layout nothing is product.
    let base = Mem::new(&[
        ("lib.rs", ""),
        ("src/a.py", ""),
        ("index.js", ""),
        ("main.go", ""),
    ]);
    let r = roles(&base, &base);
    for p in ["lib.rs", "src/a.py", "index.js", "main.go"] {
        assert_eq!(r.role(Path::new(p)), Other, "{p}");
    }
}

/// A tree that counts its reads.
struct Counting<'a>(&'a Mem, std::cell::RefCell<BTreeMap<String, usize>>);

impl TreeFiles for Counting<'_> {
    fn paths(&self) -> Vec<PathBuf> {
        self.0.paths()
    }
    fn read(&self, path: &Path) -> Option<String> {
        *self
            .1
            .borrow_mut()
            .entry(path.display().to_string())
            .or_default() += 1;
        self.0.read(path)
    }
}

#[test]
fn each_file_is_read_at_most_once_per_tree() {
    let base = Mem::new(&[
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\npython_files = [\"check_*.py\"]\n",
        ),
        ("setup.cfg", "[tool:pytest]\n"),
        ("calc.py", "import helpers\n"),
        ("helpers.py", ""),
        ("check_calc.py", "import calc\nimport helpers\n"),
        ("package.json", r#"{"name":"x"}"#),
        ("a.test.js", "require('./a')"),
        ("a.js", ""),
        ("Cargo.toml", "[package]\nname = \"c\"\n"),
        ("src/lib.rs", "#[cfg(test)]\nmod t;\n"),
        ("src/t.rs", ""),
    ]);
    let fin = base.with(&[
        ("calc.py", "import helpers\nimport extra\n"),
        ("extra.py", ""),
    ]);
    let (b, f) = (
        Counting(&base, Default::default()),
        Counting(&fin, Default::default()),
    );
    let r = Roles::read(&b, &f, &RoleFacts::default());
    assert_eq!(r.role(Path::new("extra.py")), Product);
    for (tree, counts) in [("baseline", &b.1), ("final", &f.1)] {
        let twice: Vec<_> = counts
            .borrow()
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(p, n)| format!("{p}: {n}"))
            .collect();
        assert!(twice.is_empty(), "{tree}: {twice:?}");
    }
}

/// Prints every path of a folder with its role and why: `ROLES_TREE=<dir> cargo test -p
/// pawl-verify --lib roles_of_a_folder -- --ignored --nocapture` (the folder is both trees).
#[test]
#[ignore = "a tool: set ROLES_TREE to a folder"]
fn roles_of_a_folder() {
    use std::io::Write as _;
    let Ok(dir) = std::env::var("ROLES_TREE") else {
        return;
    };
    let tree = read_dir_tree(Path::new(&dir));
    let started = std::time::Instant::now();
    let counting = Counting(&tree, Default::default());
    let r = Roles::read(&counting, &counting, &RoleFacts::default());
    let reads: usize = counting.1.borrow().values().sum();
    let read_took = started.elapsed();
    let started = std::time::Instant::now();
    for p in tree.0.keys() {
        let _ = r.role(Path::new(p));
    }
    let classify_took = started.elapsed();
    let mut out = String::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for p in tree.0.keys() {
        let role = r.role(Path::new(p));
        *counts.entry(format!("{role:?}")).or_default() += 1;
        out.push_str(&format!("{role:?}\t{p}\t{}\n", r.why(Path::new(p))));
    }
    let _ = writeln!(
        std::io::stderr(),
        "{out}{counts:?}\nfindings: {:?}\n{} files: read {read_took:?} ({reads} file reads), every role {classify_took:?}",
        r.findings(),
        tree.0.len()
    );
}

#[test]
fn package_json_merge_keeps_every_untouched_byte() {
    let base = "{\n\t\"name\": \"calc\",\n\t\"files\": [\"lib\", \"bin\"],\n\t\"scripts\": {\"test\": \"jest\"},\n\t\"dependencies\": {\"a\": \"1\"},\n\t\"jest\": {\"verbose\": true}\n}\n";
    let fin = "{\n\t\"name\": \"calc\",\n\t\"files\": [\"lib\", \"bin\"],\n\t\"scripts\": {\"test\": \"jest || true\"},\n\t\"dependencies\": {\"a\": \"2\", \"b\": \"1\"},\n\t\"jest\": {\"verbose\": false},\n\t\"devDependencies\": {\"c\": \"3\"}\n}\n";
    assert_eq!(
        merge("package.json", base, fin),
        "{\n\t\"name\": \"calc\",\n\t\"files\": [\"lib\", \"bin\"],\n\t\"scripts\": {\"test\": \"jest\"},\n\t\"dependencies\": {\"a\": \"2\", \"b\": \"1\"},\n\t\"jest\": {\"verbose\": true},\n\t\"devDependencies\": {\"c\": \"3\"}\n}\n"
    );
    // A removed dependency table goes with its comma.
    let fin = "{\n\t\"name\": \"calc\",\n\t\"files\": [\"lib\", \"bin\"],\n\t\"scripts\": {\"test\": \"jest\"},\n\t\"jest\": {\"verbose\": true}\n}\n";
    assert_eq!(merge("package.json", base, fin), fin);
}

#[test]
fn a_helper_the_tests_import_that_imports_the_test_framework_is_test_support() {
    let base = Mem::new(&[
        (
            "calc.py",
            "def add(a, b):\n    return a + b\n\nif __name__ == \"__main__\":\n    import unittest\n    import doctest\n",
        ),
        (
            "checks.py",
            "import unittest\ndef check(t, a, b):\n    t.assertEqual(a, b)\n",
        ),
        ("test_calc.py", "import calc\nfrom checks import check\n"),
        ("lib/calc.js", ""),
        (
            "helpers/expect.js",
            "const { expect } = require('@jest/globals');\nmodule.exports = (a, b) => expect(a).toBe(b)\n",
        ),
        (
            "lib/calc.test.js",
            "const calc = require('./calc');\nconst same = require('../helpers/expect');\n",
        ),
    ]);
    // The run weakens the helpers and drops their framework import: still test support.
    let fin = base.with(&[
        ("checks.py", "def check(t, a, b):\n    pass\n"),
        ("helpers/expect.js", "module.exports = () => {}\n"),
    ]);
    let r = roles(&base, &fin);
    assert_roles(
        &r,
        &[
            ("calc.py", Product),
            ("checks.py", Test),
            ("lib/calc.js", Product),
            ("helpers/expect.js", Test),
        ],
    );
    assert!(
        r.why(Path::new("checks.py")).contains("`unittest`"),
        "{}",
        r.why(Path::new("checks.py"))
    );
}

#[test]
fn every_declaration_the_tables_name_is_a_manifest_merge_declarations_knows() {
    let Ok(table) = table::table() else {
        panic!("tables do not load")
    };
    let mut unknown = Vec::new();
    for row in table.rows.iter().filter(|r| r.role == Declaration) {
        for example in &row.examples {
            if !matches!(merge_declarations(Path::new(example), "", ""), Ok(Some(_))) {
                unknown.push(example.clone());
            }
        }
    }
    assert!(unknown.is_empty(), "{unknown:?}");
}

#[test]
fn toml_merge_reaches_into_inline_tables() {
    let base = "project = { name = \"calc\", dependencies = [\"attrs\"], readme = \"A.md\" }\n";
    let fin =
        "project = { name = \"calc\", dependencies = [\"attrs\", \"numpy\"], readme = \"B.md\" }\n";
    let out = merge("pyproject.toml", base, fin);
    let doc: toml::Table = out.parse().unwrap_or_default();
    assert_eq!(
        doc["project"]["dependencies"].as_array().map(Vec::len),
        Some(2),
        "{out}"
    );
    assert_eq!(doc["project"]["readme"].as_str(), Some("A.md"), "{out}");
}

mod arbitrary {
    use proptest::prelude::*;

    use super::*;

    /// Paths made of the names the readers look at, odd characters and `..`.
    fn path() -> impl Strategy<Value = String> {
        let part = prop_oneof![
            Just("src".to_string()),
            Just("tests".to_string()),
            Just("..".to_string()),
            Just(".".to_string()),
            Just("pyproject.toml".to_string()),
            Just("package.json".to_string()),
            Just("Cargo.toml".to_string()),
            Just("go.mod".to_string()),
            Just("setup.cfg".to_string()),
            Just("setup.py".to_string()),
            Just("tsconfig.json".to_string()),
            Just("jest.config.js".to_string()),
            Just("conftest.py".to_string()),
            Just("test_a.py".to_string()),
            Just("a.test.js".to_string()),
            Just("requirements.txt".to_string()),
            "[a-zé_.*{}\\[\\]-]{1,8}",
        ];
        proptest::collection::vec(part, 1..4).prop_map(|v| v.join("/"))
    }

    /// Texts shaped like the manifests and sources, and noise.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("[project]\nname = \"a-b\"\ndependencies = [\"x @ file:///../y\"]\n[tool.setuptools]\npackages = [\"..\", \"json\"]\npackage-dir = {\"\" = \"../src\"}\n".to_string()),
            Just("{\"name\":\"x\",\"files\":[\"../*\", \"!x\", \"\"],\"main\":\"../../m\",\"exports\":{\".\":[\"./a\",{\"x\":null}]},\"jest\":{\"testRegex\":\"(\",\"testMatch\":[\"?(\",\"**/[\"]},\"dependencies\":{\"a\":\"file:/abs\"}}".to_string()),
            Just("[package]\nname = \"c\"\ninclude = [\"[\"]\n[lib]\npath = \"../../x.rs\"\n[[bin]]\npath = \"/abs.rs\"\n[dependencies]\nz = { path = \"../../..\" }\n".to_string()),
            Just("module m\nreplace a => ../../b\nreplace (\n c => /abs\n)\ngodebug (\n".to_string()),
            Just("from . import (\nimport .x\nfrom ...... import y\nimport a.b.c as d, e\n\"\"\"\n".to_string()),
            Just("require('./')\nimport x from '../../..'\nexport * from \"./\u{e9}\"\n. \"$(dirname \"$0\")/\nsource\n".to_string()),
            Just("setup(packages=find_packages(where=, py_modules=[\"é\", name='".to_string()),
            ".{0,200}",
        ]
    }

    /// package.json objects over a few keys, declaration and not, with awkward strings.
    fn object() -> impl Strategy<Value = serde_json::Value> {
        let value = prop_oneof![
            "[a-z\"\\\\{}\\[\\],:é]{0,6}".prop_map(serde_json::Value::String),
            proptest::collection::btree_map("[a-z{},\"]{1,3}", "[a-z,}]{0,3}", 0..3).prop_map(
                |m| {
                    serde_json::Value::Object(
                        m.into_iter()
                            .map(|(k, v)| (k, serde_json::Value::String(v)))
                            .collect(),
                    )
                }
            ),
        ];
        let keys = proptest::sample::subsequence(
            vec!["name", "scripts", "dependencies", "jest", "é\"x"],
            0..=5,
        );
        (keys, proptest::collection::vec(value, 5)).prop_map(|(keys, values)| {
            serde_json::Value::Object(
                keys.into_iter()
                    .zip(values)
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn reading_any_tree_and_classifying_any_path_never_panics(
            base in proptest::collection::vec((path(), text()), 0..8),
            fin in proptest::collection::vec((path(), text()), 0..8),
            probe in path(),
        ) {
            let base = Mem(base.into_iter().collect());
            let fin = Mem(fin.into_iter().collect());
            let facts = RoleFacts { reported_test_files: vec![PathBuf::from(&probe)], ..RoleFacts::default() };
            let r = Roles::read(&base, &fin, &facts);
            for p in base.0.keys().chain(fin.0.keys()).chain([&probe]) {
                let _ = r.role(Path::new(p));
                prop_assert!(!r.why(Path::new(p)).is_empty());
            }
            let _ = r.findings();
        }

        #[test]
        fn package_json_merge_takes_exactly_the_declaration_keys(
            base in object(),
            fin in object(),
            pretty_base in any::<bool>(),
        ) {
            let base_text = if pretty_base {
                serde_json::to_string_pretty(&base).unwrap_or_default()
            } else {
                serde_json::to_string(&base).unwrap_or_default()
            };
            let fin_text = serde_json::to_string_pretty(&fin).unwrap_or_default();
            let out = merge("package.json", &base_text, &fin_text);
            let out: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
            for key in ["name", "scripts", "dependencies", "jest", "é\"x"] {
                let from = if matches!(key, "name" | "dependencies") { &fin } else { &base };
                prop_assert_eq!(out.get(key), from.get(key), "{}", key);
            }
        }

        #[test]
        fn merging_any_manifest_texts_never_panics(
            name in prop_oneof![
                Just("package.json"), Just("pyproject.toml"), Just("Cargo.toml"),
                Just("go.mod"), Just("setup.cfg"), Just("Pipfile"), Just("x.txt"),
            ],
            base in text(),
            fin in text(),
        ) {
            let _ = merge_declarations(Path::new(name), &base, &fin);
        }
    }
}

#[test]
fn a_project_that_is_a_runner_ships_its_own_runner_modules() {
    let base = Mem::new(&[
        (
            "pyproject.toml",
            "[project]\nname = \"pytest\"\n[build-system]\nbuild-backend = \"setuptools.build_meta\"\n",
        ),
        ("src/_pytest/python.py", ""),
        ("src/pytest/__init__.py", ""),
        ("src/py.py", ""),
        ("testing/test_x.py", ""),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[
            ("src/_pytest/python.py", Product),
            ("src/pytest/__init__.py", Product),
            ("src/py.py", Product),
        ],
    );
    // Any other project: a `pytest` package of its own shadows the runner.
    let other = base.with(&[("pyproject.toml", "[project]\nname = \"calc\"\n")]);
    assert_roles(
        &roles(&other, &other),
        &[
            ("src/pytest/__init__.py", Other),
            ("src/_pytest/python.py", Other),
        ],
    );
    // The project's own package is installed in its environment: still product.
    let calc = Mem::new(&[
        ("pyproject.toml", "[project]\nname = \"calc\"\n"),
        ("src/calc/__init__.py", ""),
    ]);
    let facts = RoleFacts {
        installed_modules: vec!["calc".into()],
        ..RoleFacts::default()
    };
    assert_eq!(
        Roles::read(&calc, &calc, &facts).role(Path::new("src/calc/__init__.py")),
        Product
    );
}

#[test]
fn a_testpaths_folder_of_no_product_is_the_tests_own() {
    let base = Mem::new(&[
        (
            "pyproject.toml",
            "[project]\nname = \"calc\"\n[build-system]\nbuild-backend = \"setuptools.build_meta\"\n\
             [tool.pytest.ini_options]\ntestpaths = [\"testing\", \"src\"]\n",
        ),
        ("src/calc/__init__.py", ""),
        ("testing/test_calc.py", ""),
        ("testing/plugins/fake_plugin.py", ""),
        ("testing/example_scripts/data.txt", ""),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[
            ("src/calc/__init__.py", Product),
            ("testing/plugins/fake_plugin.py", Test),
            ("testing/example_scripts/data.txt", Test),
        ],
    );
}

/// A repository with no manifest of any platform: a check reads `greet.txt`; nothing lists the
/// project's files, so its data files that no rule calls a test or configuration are its content
/// — while modules keep the import rule (`answer.sh` no test sources is not product), docs are
/// not content, and the attacks on the tests stay out.
#[test]
fn an_unpackaged_repository_s_files_are_its_content_and_the_attacks_stay_out() {
    let base = Mem::new(&[
        ("greet.txt", "hi\n"),
        ("answer.sh", "answer() { echo 41; }\n"),
        ("tests/base.sh", "true\n"),
        ("docs/notes.md", "notes\n"),
    ]);
    let base = base.with(&[
        (
            "tests/legacy.sh",
            "test -f legacy.txt && diff out.txt expected.txt\n",
        ),
        ("expected.txt", "5\n"),
    ]);
    let fin = base.with(&[
        ("greet.txt", "hello\n"),
        ("legacy.txt", "x\n"),
        ("expected.txt", "4\n"),
        ("sitecustomize.py", "import os\n"),
        ("evil.pth", "import os\n"),
        (".env.local", "KEY=1\n"),
        ("conftest.py", "\n"),
        ("unittest.py", "\n"),
        ("pytest.ini", "[pytest]\n"),
    ]);
    let r = roles(&base, &fin);
    assert_roles(
        &r,
        &[
            ("greet.txt", Product),
            // A file a test names: the baseline's is the tests' fixture; one the run makes is
            // what the test asks for.
            ("expected.txt", Other),
            ("legacy.txt", Product),
            ("answer.sh", Other),
            ("docs/notes.md", Other),
            ("tests/base.sh", Test),
            ("conftest.py", Test),
            ("sitecustomize.py", Other),
            ("evil.pth", Other),
            (".env.local", Other),
            ("unittest.py", Other),
            ("pytest.ini", Other),
        ],
    );
    // With a manifest, the packaging decides: a data file outside what it ships is not product.
    let packaged = base.with(&[(
        "package.json",
        "{\"name\": \"g\", \"files\": [\"answer.sh\"]}\n",
    )]);
    let r = roles(&packaged, &packaged.with(&[("greet.txt", "hello\n")]));
    assert_roles(&r, &[("greet.txt", Other)]);
}

#[test]
fn rust_test_only_modules_and_test_targets_are_tests() {
    let base = Mem::new(&[
        (
            "Cargo.toml",
            "[package]\nname = \"calc\"\n[[test]]\nname = \"it\"\npath = \"src/it_main.rs\"\n",
        ),
        (
            "src/lib.rs",
            "pub mod ops;\n#[cfg(test)]\nmod test_support;\n#[cfg(test)]\n#[path = \"checks/all.rs\"]\nmod checks;\n",
        ),
        ("src/ops.rs", "#[cfg(test)]\npub(crate) mod helpers;\n"),
        ("src/ops/helpers.rs", ""),
        ("src/test_support/mod.rs", "mod asserts;\n"),
        ("src/test_support/asserts.rs", ""),
        ("src/checks/all.rs", ""),
        ("src/it_main.rs", ""),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[
            ("src/lib.rs", Product),
            ("src/ops.rs", Product),
            ("src/ops/helpers.rs", Test),
            ("src/test_support/mod.rs", Test),
            ("src/test_support/asserts.rs", Test),
            ("src/checks/all.rs", Test),
            ("src/it_main.rs", Test),
        ],
    );
    // The run cannot turn a product module into a test-only one to take it out, nor the other
    // way round: the baseline's declarations decide.
    let fin = base.with(&[("src/lib.rs", "pub mod ops;\nmod test_support;\n")]);
    assert_eq!(
        roles(&base, &fin).role(Path::new("src/test_support/asserts.rs")),
        Test
    );
}

#[test]
fn an_added_manifest_gives_only_its_declarations_and_a_deleted_one_keeps_the_other_keys() {
    // Added: a new package.json / pyproject.toml cannot bring runner settings with it.
    let added = merge(
        "web/package.json",
        "",
        "{\n  \"name\": \"web\",\n  \"scripts\": {\"test\": \"jest || true\"},\n  \"jest\": {\"testPathIgnorePatterns\": [\".\"]},\n  \"dependencies\": {\"a\": \"1\"}\n}\n",
    );
    let v: serde_json::Value = serde_json::from_str(&added).unwrap_or_default();
    assert_eq!(v["name"], "web", "{added}");
    assert_eq!(v["dependencies"]["a"], "1", "{added}");
    assert!(
        v.get("scripts").is_none() && v.get("jest").is_none(),
        "{added}"
    );
    let added = merge(
        "pyproject.toml",
        "",
        "[project]\nname = \"calc\"\ndependencies = [\"attrs\"]\n[tool.pytest.ini_options]\naddopts = \"-k 'not mul'\"\n",
    );
    assert!(
        added.contains("attrs") && !added.contains("addopts"),
        "{added}"
    );
    // Deleted: the baseline's runner settings stay.
    let deleted = merge(
        "pyproject.toml",
        "[project]\nname = \"calc\"\n[tool.pytest.ini_options]\naddopts = \"-q\"\n",
        "",
    );
    assert!(
        deleted.contains("addopts = \"-q\"") && !deleted.contains("name"),
        "{deleted}"
    );
    let deleted = merge(
        "package.json",
        "{\"name\":\"x\",\"jest\":{\"bail\":true}}",
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&deleted).unwrap_or_default();
    assert_eq!(v, serde_json::json!({"jest": {"bail": true}}), "{deleted}");
    assert_eq!(merge("go.mod", "module m\n", ""), "");
}

#[test]
fn a_package_the_tests_import_with_no_manifest_is_product_whole() {
    let base = Mem::new(&[
        ("calc/__init__.py", "from .ops import add\n"),
        ("calc/ops.py", ""),
        ("calc/unused.py", ""),
        ("calc/data/table.json", "{}"),
        ("calc/tests/test_ops.py", ""),
        ("test_calc.py", "import calc\n"),
        ("tools/release.py", ""),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[
            ("calc/__init__.py", Product),
            ("calc/ops.py", Product),
            ("calc/unused.py", Product),
            ("calc/data/table.json", Product),
            ("calc/tests/test_ops.py", Test),
            ("tools/release.py", Other),
        ],
    );
}

#[test]
fn scripts_the_tests_run_as_programs_are_product() {
    let base = Mem::new(&[
        (
            "test.sh",
            "#!/bin/sh\nout=$(sh ./calc.sh add 2 3)\n[ \"$out\" = 5 ] || exit 1\ndiff out.txt expected.txt\n",
        ),
        ("calc.sh", ""),
        ("expected.txt", "5"),
        (
            "test_cli.py",
            "import subprocess, sys\nsubprocess.run([sys.executable, \"tools/cli.py\", \"2\"])\n",
        ),
        ("tools/cli.py", ""),
        (
            "test/cli.test.js",
            "const { execFileSync } = require('node:child_process');\nexecFileSync('node', [`${__dirname}/../bin/run.js`]);\n",
        ),
        ("bin/run.js", ""),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[
            ("calc.sh", Product),
            ("tools/cli.py", Product),
            ("bin/run.js", Product),
            ("expected.txt", Other),
        ],
    );
}

#[test]
fn a_cargo_path_dependency_under_vendor_is_product() {
    let base = Mem::new(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"app\"]\n"),
        (
            "app/Cargo.toml",
            "[package]\nname = \"app\"\n[dependencies]\nfoo = { path = \"../vendor/foo\" }\n",
        ),
        ("app/src/main.rs", ""),
        ("vendor/foo/Cargo.toml", "[package]\nname = \"foo\"\n"),
        ("vendor/foo/src/lib.rs", ""),
        ("vendor/bar/src/lib.rs", ""),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[
            ("vendor/foo/src/lib.rs", Product),
            ("vendor/bar/src/lib.rs", Other),
        ],
    );
}

#[test]
fn a_root_tsconfig_without_include_builds_every_typescript_file() {
    let base = Mem::new(&[
        (
            "package.json",
            r#"{"name":"x","files":["dist"],"main":"dist/index.js"}"#,
        ),
        (
            "tsconfig.json",
            "{ \"compilerOptions\": { \"outDir\": \"dist\" } }",
        ),
        ("src/index.ts", ""),
        ("lib/util.ts", ""),
        ("scripts/gen.js", ""),
        ("src/index.test.ts", ""),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[
            ("src/index.ts", Product),
            ("lib/util.ts", Product),
            ("scripts/gen.js", Other),
            ("src/index.test.ts", Test),
        ],
    );
}

#[test]
fn a_requirements_merge_takes_requirements_not_the_index() {
    let base = "--index-url https://pypi.org/simple\nattrs==23.1\n";
    let fin = "--index-url https://evil.example/simple\n--extra-index-url https://evil.example/x\nattrs==23.2\nnumpy\n";
    assert_eq!(
        merge("requirements.txt", base, fin),
        "--index-url https://pypi.org/simple\nattrs==23.2\nnumpy\n"
    );
}

#[test]
fn roles_can_cross_threads_and_awaits() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Roles>();
    send_sync::<RolesError>();
}

#[test]
fn a_module_with_doctests_the_tests_import_stays_product() {
    // pytest --doctest-modules reports `calc.py::calc.add`: calc.py holds tests, and is product.
    let base = Mem::new(&[
        (
            "calc.py",
            "def add(a, b):\n    \"\"\">>> add(1, 2)\n    3\"\"\"\n    return a + b\n",
        ),
        ("test_calc.py", "from calc import add\n"),
        ("verify_calc.py", "from calc import add\n"),
        (
            "checks_more.py",
            "import unittest\nclass T(unittest.TestCase):\n    pass\n",
        ),
    ]);
    let facts = RoleFacts {
        reported_test_files: vec![
            "calc.py".into(),
            "verify_calc.py".into(),
            "checks_more.py".into(),
        ],
        ..RoleFacts::default()
    };
    let r = Roles::read(&base, &base, &facts);
    assert_roles(
        &r,
        &[
            ("calc.py", Product),
            ("verify_calc.py", Test),
            ("checks_more.py", Test),
        ],
    );
}

#[test]
fn a_reported_test_file_is_a_test_before_a_broad_reading_of_the_packaging() {
    // `npm pack` of a package without `files` ships checks/calc.js, but the runner ran tests in
    // it: its changes must not be taken as product.
    let base = Mem::new(&[
        (
            "package.json",
            r#"{"name":"calc","scripts":{"test":"node --test checks/"}}"#,
        ),
        ("calc.js", ""),
        (
            "checks/calc.js",
            "const assert = require('node:assert');\nconst calc = require('../calc');\n",
        ),
    ]);
    let facts = RoleFacts {
        reported_test_files: vec!["checks/calc.js".into()],
        ..RoleFacts::default()
    };
    let r = Roles::read(&base, &base, &facts);
    assert_roles(&r, &[("calc.js", Product), ("checks/calc.js", Test)]);
}

#[test]
fn bats_load_reads_beside_the_test() {
    let base = Mem::new(&[
        ("test/calc.bats", "load helper\nload '../lib/calc.sh'\n"),
        (
            "test/helper.bash",
            ". \"$BATS_TEST_DIRNAME/../lib/util.sh\"\n",
        ),
        ("lib/calc.sh", ""),
        ("lib/util.sh", ""),
    ]);
    assert_roles(
        &roles(&base, &base),
        &[
            ("test/helper.bash", Test),
            ("lib/calc.sh", Product),
            ("lib/util.sh", Product),
        ],
    );
}

/// A file a command criterion of the run names is what the run's own acceptance check
/// exercises: product, unless a rule calls it a test or configuration.
#[test]
fn files_the_runs_criteria_name_are_product_unless_a_rule_says_otherwise() {
    let base = Mem::new(&[("tests/base.sh", "true\n")]);
    let fin = base.with(&[
        ("greet.sh", "echo hello\n"),
        ("conftest.py", "\n"),
        ("pytest.ini", "[pytest]\n"),
    ]);
    let facts = RoleFacts {
        criteria_files: vec!["greet.sh".into(), "conftest.py".into(), "pytest.ini".into()],
        ..RoleFacts::default()
    };
    let r = Roles::read(&base, &fin, &facts);
    assert_roles(
        &r,
        &[
            ("greet.sh", Product),
            ("conftest.py", Test),
            ("pytest.ini", Other),
        ],
    );
}

/// jsonpatch 1.33's setup.py (shape): the module list and the name are module-level constants,
/// `py_modules=MODULES`, and the tests are a root `tests.py`. The constant's value is the list.
#[test]
fn setup_py_lists_modules_through_a_module_level_constant() {
    let setup = "import io\nimport re\nfrom setuptools import setup\n\n\
                 src = io.open('jsonpatch.py', encoding='utf-8').read()\n\
                 metadata = dict(re.findall(\"__([a-z]+)__ = '([^']+)'\", src))\n\n\
                 PACKAGE = 'jsonpatch'\n\nMODULES = (\n    'jsonpatch',  # the package's one module\n)\n\n\
                 REQUIREMENTS = list(open('requirements.txt'))\n\n\
                 setup(name=PACKAGE,\n      py_modules=MODULES,\n      \
                 package_data={'': ['requirements.txt']},\n      \
                 scripts=['bin/jsondiff', 'bin/jsonpatch'],\n      install_requires=REQUIREMENTS,\n)\n";
    let base = Mem::new(&[
        ("setup.py", setup),
        ("jsonpatch.py", "def apply_patch(doc, patch): return doc\n"),
        ("tests.py", "import unittest\nimport jsonpatch\n"),
        ("ext_tests.py", "import jsonpatch\n"),
        ("requirements.txt", "jsonpointer>=1.9\n"),
        ("bin/jsonpatch", "#!/usr/bin/env python\nimport jsonpatch\n"),
    ]);
    let fin = base.with(&[("jsonpatch.py", "def apply_patch(doc, patch): return {}\n")]);
    assert_roles(
        &roles(&base, &fin),
        &[
            ("jsonpatch.py", Product),
            ("tests.py", Test),
            ("setup.py", Other),
        ],
    );
}
