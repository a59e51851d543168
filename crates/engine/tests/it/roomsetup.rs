//! The room's environment during a run (issue 30 point 2): a step that edits an installed
//! package (in the repository's `.venv` or `node_modules`, or a crate in the cargo registry
//! outside it) without changing a dependency manifest never ships; an honest run that adds a
//! dependency to `requirements.txt` and installs it gets the room's environment rebuilt with
//! the project's install command (real pip, from PyPI) and ships. Whole runs: the replay agent,
//! the real [`GateVerifier`], a room.

use std::path::{Path, PathBuf};

use pawl_core::StopReason;
use pawl_core::proof::Outcome;
use pawl_core::seal::{CheckRole, Seal, SealedCheck};
use pawl_engine::baseline;
use pawl_engine::{GateVerifier, LoopEnd};

use crate::harness::Fixture;

pub const TESTS: &[crate::Test] = &[
    (
        "roomsetup::a_step_that_patches_a_package_in_the_venv_does_not_ship",
        a_step_that_patches_a_package_in_the_venv_does_not_ship,
    ),
    (
        "roomsetup::a_step_that_patches_a_package_in_node_modules_does_not_ship",
        a_step_that_patches_a_package_in_node_modules_does_not_ship,
    ),
    (
        "roomsetup::a_step_that_patches_a_crate_in_the_cargo_registry_does_not_ship",
        a_step_that_patches_a_crate_in_the_cargo_registry_does_not_ship,
    ),
    (
        "roomsetup::an_added_dependency_installed_honestly_rebuilds_the_room_and_ships",
        an_added_dependency_installed_honestly_rebuilds_the_room_and_ships,
    ),
    (
        "roomsetup::an_added_npm_dependency_installed_honestly_rebuilds_node_modules_and_ships",
        an_added_npm_dependency_installed_honestly_rebuilds_node_modules_and_ships,
    ),
    (
        "roomsetup::a_declared_setup_runs_once_per_dependency_manifest_digest",
        a_declared_setup_runs_once_per_dependency_manifest_digest,
    ),
];

const CALC: &str = "def add(a, b):\n    return a - b\n";
const CALC_TEST: &str = "import unittest\n\nfrom calc import add\n\n\nclass Calc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";
const FIX: &str = "def add(a, b):\n    return a + b\n";

fn step_write(path: &str, content: &str) -> String {
    serde_json::json!({"do": "write", "path": path, "content": content}).to_string() + "\n"
}

fn step_run(command: &str) -> String {
    serde_json::json!({"do": "run", "command": command}).to_string() + "\n"
}

fn sh(dir: &Path, script: &str) {
    let out = std::process::Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .output()
        .expect("sh");
    assert!(
        out.status.success(),
        "{script}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A run over a repository with `files` committed (with `ignore` in `.gitignore`), prepared by
/// `prepare` (run at the root after the commit: the ignored environment), sealed with
/// `checks` and the variables `vars` over the machine's, its baseline taken in a room.
struct Run {
    f: Fixture,
    room: tempfile::TempDir,
}

impl Run {
    fn new(
        files: &[(&str, &str)],
        ignore: &str,
        prepare: &str,
        checks: &[(&str, &str)],
        vars: &[(&str, &str)],
        setup: &str,
        scenario: &str,
    ) -> Run {
        let mut f = Fixture::new(scenario, |_| {});
        f.git(files);
        std::fs::write(f.root().join(".gitignore"), format!(".pawl/\n{ignore}")).expect("ignore");
        sh(
            f.root(),
            "git add -A && git -c user.name=t -c user.email=t@example.invalid commit --allow-empty -qm ignore",
        );
        if !prepare.is_empty() {
            sh(f.root(), prepare);
        }
        let mut env: Vec<(String, String)> = std::env::vars()
            .filter(|(k, _)| !vars.iter().any(|(v, _)| v == k))
            .collect();
        env.extend(vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        let seal = Seal {
            checks: checks
                .iter()
                .map(|(n, c)| SealedCheck::new(*n, *c, CheckRole::Gate))
                .collect(),
            timeout_ms: 300_000,
            env: pawl_core::seal::sealed_env(&env, &[], f.root()),
            setup: setup.to_owned(),
            runs: 1,
            ..Seal::default()
        };
        f.seal(seal);
        let run = Run {
            f,
            room: tempfile::tempdir().expect("room dir"),
        };
        let b = baseline::take(&run.ws(), run.f.run_seal()).expect("baseline");
        assert!(
            !b.checks.iter().all(|c| c.passed),
            "the baseline fails: {b:?}"
        );
        let mut f = run.f;
        f.record_baseline(&b);
        Run { f, room: run.room }
    }

    fn ws(&self) -> pawl_engine::Workspace {
        let mut ws = self.f.ws();
        ws.room = Some(self.room.path().join("room"));
        ws
    }

    fn drive(&mut self) -> LoopEnd {
        let mut agent = self.f.replay();
        let mut v = GateVerifier::new(self.ws(), Vec::new());
        self.f.drive(&mut agent, &mut v).0
    }

    fn room_tree(&self) -> PathBuf {
        self.room.path().join("room").join("tree")
    }
}

/// Not SHIP, and a finding that names `what`.
fn finding_names(end: &LoopEnd, what: &str) {
    let last = end.last.as_ref().expect("report");
    assert_ne!(end.reason, StopReason::Verified, "{end:?}");
    assert_ne!(last.outcome, Some(Outcome::Done), "{last:?}");
    assert!(
        last.findings.iter().any(|f| f.contains(what)),
        "{what}: {:?} (noted: {:?})",
        last.findings,
        last.noted
    );
}

fn site_packages(venv: &Path) -> PathBuf {
    let lib = venv.join("lib");
    let py = std::fs::read_dir(&lib)
        .expect("lib")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("python"))
        .expect("lib/python*");
    py.path().join("site-packages")
}

/// The fix, and a package of the project's virtualenv patched in place (a `.pth`-free edit of
/// an installed module: `site-packages/helper/__init__.py`); no dependency manifest changed.
fn a_step_that_patches_a_package_in_the_venv_does_not_ship() {
    let scenario = step_write("calc.py", FIX)
        + &step_run(
            "for d in .venv/lib/python*/site-packages/helper; do printf 'VALUE = 2\\n' > \"$d/__init__.py\"; done",
        );
    let mut r = Run::new(
        &[
            ("calc.py", CALC),
            ("test_calc.py", CALC_TEST),
            ("requirements.txt", ""),
        ],
        ".venv/\n",
        "python3 -m venv --without-pip .venv && for d in .venv/lib/python*/site-packages; do mkdir \"$d/helper\" && printf 'VALUE = 1\\n' > \"$d/helper/__init__.py\"; done",
        &[("test", "python3 -m unittest discover -v")],
        &[],
        "",
        &scenario,
    );
    let end = r.drive();
    finding_names(&end, "site-packages/helper changed");
    // The room kept the seal's copy: the checks never saw the patch.
    let room_helper = site_packages(&r.room_tree().join(".venv")).join("helper/__init__.py");
    assert_eq!(
        std::fs::read_to_string(room_helper).expect("room copy"),
        "VALUE = 1\n"
    );
}

/// The test reads a package from `node_modules`; the step makes the fix and rewrites the
/// package in place. No `package.json` or lockfile changed.
fn a_step_that_patches_a_package_in_node_modules_does_not_ship() {
    let scenario = step_write("calc.py", FIX)
        + &step_run("printf 'module.exports = 2;\\n' > node_modules/leftpad/index.js");
    let mut r = Run::new(
        &[
            ("calc.py", CALC),
            ("test_calc.py", CALC_TEST),
            (
                "package.json",
                "{\"name\": \"p\", \"version\": \"1.0.0\"}\n",
            ),
        ],
        "node_modules/\n",
        "mkdir -p node_modules/leftpad && printf 'module.exports = 1;\\n' > node_modules/leftpad/index.js",
        &[("test", "python3 -m unittest discover -v")],
        &[],
        "",
        &scenario,
    );
    let end = r.drive();
    finding_names(&end, "node_modules/leftpad changed");
}

/// The fix, and a dependency's source in the cargo registry (outside the repository, read by
/// every build) rewritten. Seen on main before the stores were in the manifest: SHIP.
fn a_step_that_patches_a_crate_in_the_cargo_registry_does_not_ship() {
    let home = tempfile::tempdir().expect("home");
    let krate = home
        .path()
        .join(".cargo/registry/src/index.crates.io-1949cf8c6b5b557f/dep-1.0.0/src");
    std::fs::create_dir_all(&krate).expect("crate dir");
    std::fs::write(krate.join("lib.rs"), "pub fn one() -> u32 { 1 }\n").expect("lib.rs");
    let scenario = step_write("calc.py", FIX)
        + &step_run(&format!(
            "printf 'pub fn one() -> u32 {{ 2 }}\\n' > '{}'",
            krate.join("lib.rs").display()
        ));
    let home_s = home.path().display().to_string();
    let mut r = Run::new(
        &[("calc.py", CALC), ("test_calc.py", CALC_TEST)],
        "",
        "",
        &[("test", "python3 -m unittest discover -v")],
        &[("HOME", &home_s), ("CARGO_HOME", "")],
        "",
        &scenario,
    );
    let end = r.drive();
    finding_names(
        &end,
        "registry/src/index.crates.io-1949cf8c6b5b557f/dep-1.0.0 changed",
    );
}

/// The honest run: the fix needs a new dependency (`six`, from PyPI), which the step declares
/// in `requirements.txt` and installs into the project's `.venv`. The room's copy of the
/// virtualenv is the seal's (without `six`): pawl rebuilds it with the detected install
/// command (`python -m pip install -r requirements.txt`), records it, and the run ships.
fn an_added_dependency_installed_honestly_rebuilds_the_room_and_ships() {
    let fix = "import six\n\n\ndef add(a, b):\n    return a + b if six.PY3 else 0\n";
    let scenario = step_write("requirements.txt", "six==1.16.0\n")
        + &step_run(".venv/bin/python -m pip install -q --disable-pip-version-check six==1.16.0")
        + &step_write("calc.py", fix);
    let mut r = Run::new(
        &[
            ("calc.py", CALC),
            ("test_calc.py", CALC_TEST),
            ("requirements.txt", ""),
        ],
        ".venv/\n",
        "python3 -m venv .venv",
        &[("test", "python -m unittest discover -v")],
        &[],
        "",
        &scenario,
    );
    let end = r.drive();
    let last = end.last.as_ref().expect("report");
    assert_eq!(end.reason, StopReason::Verified, "{end:?}");
    assert_eq!(last.outcome, Some(Outcome::Done), "{last:?}");
    assert!(last.findings.is_empty(), "{:?}", last.findings);
    // The change to the live virtualenv is explained by requirements.txt: noted.
    assert!(
        last.noted.iter().any(|n| n.contains("site-packages/six")),
        "{:?}",
        last.noted
    );
    // The rebuild is an event of the run, with its command and log.
    let event =
        r.f.store
            .last_event(&r.f.run_id, pawl_core::EventKind::RoomSetup)
            .expect("store")
            .expect("a room_setup event");
    let setup: pawl_engine::room::setup::SetupRun =
        serde_json::from_value(event.data.clone()).expect("setup record");
    assert_eq!(setup.command, "python -m pip install -r requirements.txt");
    assert!(setup.passed, "{setup:?}");
    assert!(setup.log.as_ref().is_some_and(|l| l.is_file()), "{setup:?}");
    assert!(
        setup
            .changes
            .iter()
            .any(|c| c.contains("site-packages/six")),
        "{setup:?}"
    );
    // The room's virtualenv has six now; the seal's is kept beside it.
    assert!(
        site_packages(&r.room_tree().join(".venv"))
            .join("six.py")
            .is_file()
    );
    let sealed = r.room.path().join("room/env-seal/.venv");
    assert!(!site_packages(&sealed).join("six.py").exists());
}

/// A project with no environment directory of its own and a declared `[room] setup`: the
/// command runs in the room at the first baseline, not again while the dependency manifests
/// are the same, and again when they change; what it made is on the checks' PATH.
fn a_declared_setup_runs_once_per_dependency_manifest_digest() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("repo");
    std::fs::create_dir(&root).expect("root");
    std::fs::write(root.join(".gitignore"), ".pawl/\nnode_modules/\n").expect("ignore");
    std::fs::write(root.join("package.json"), "{\"name\": \"p\"}\n").expect("package.json");
    sh(
        &root,
        "git init -q && git add -A && git -c user.name=t -c user.email=t@example.invalid commit -qm i",
    );
    let counter = tmp.path().join("ran");
    let setup = format!(
        "mkdir -p node_modules/.bin && printf '#!/bin/sh\\necho tool-ok\\n' > node_modules/.bin/mytool && chmod +x node_modules/.bin/mytool && echo ran >> '{}'",
        counter.display()
    );
    let vars: Vec<(String, String)> = std::env::vars().collect();
    let seal = Seal {
        checks: vec![SealedCheck::new("tool", "mytool", CheckRole::Gate)],
        timeout_ms: 120_000,
        env: pawl_core::seal::sealed_env(&vars, &[], &root),
        setup,
        runs: 1,
        ..Seal::default()
    };
    let mut ws = pawl_engine::Workspace::new(&root, root.join(".pawl"));
    ws.room = Some(tmp.path().join("room"));
    let runs = || {
        std::fs::read_to_string(&counter)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let b = baseline::take(&ws, &seal).expect("baseline");
    assert!(b.checks[0].passed, "{b:?}");
    assert!(b.setup.as_ref().is_some_and(|s| s.passed), "{b:?}");
    assert_eq!(runs(), 1);
    let b = baseline::take(&ws, &seal).expect("baseline again");
    assert!(b.checks[0].passed, "{b:?}");
    assert!(b.setup.is_none(), "cached: {b:?}");
    assert_eq!(runs(), 1);
    // The live repository never got a node_modules: the command ran in the room.
    assert!(!root.join("node_modules").exists());
    std::fs::write(
        root.join("package.json"),
        "{\"name\": \"p\", \"version\": \"2\"}\n",
    )
    .expect("package.json");
    let b = baseline::take(&ws, &seal).expect("baseline, new manifest");
    assert!(b.checks[0].passed, "{b:?}");
    assert_eq!(runs(), 2);
    // A setup that fails is recorded with its output, and not run again for the same
    // manifests (each verification would pay for it).
    let failing = Seal {
        setup: format!(
            "echo ran >> '{}'; echo no registry >&2; exit 3",
            counter.display()
        ),
        ..seal.clone()
    };
    std::fs::write(
        root.join("package.json"),
        "{\"name\": \"p\", \"version\": \"3\"}\n",
    )
    .expect("package.json");
    let b = baseline::take(&ws, &failing).expect("baseline, failing setup");
    let setup = b.setup.as_ref().expect("the setup ran");
    assert!(
        !setup.passed && setup.tail.contains("no registry"),
        "{setup:?}"
    );
    assert_eq!(runs(), 3);
    let b = baseline::take(&ws, &failing).expect("baseline again");
    assert!(b.setup.is_none(), "{b:?}");
    assert_eq!(runs(), 3);
}

/// The same with real npm: the fix needs `is-odd` (from the npm registry), which the step
/// installs with `npm install` (package.json and package-lock.json change). The room's
/// `node_modules` is the seal's (empty of it) until pawl runs the detected `npm ci` in the room.
fn an_added_npm_dependency_installed_honestly_rebuilds_node_modules_and_ships() {
    let pkg = "{\"name\": \"p\", \"version\": \"1.0.0\"}\n";
    let calc = "module.exports = (n) => n % 2 === 0;\n";
    let test = "const odd = require('./calc.js');\nprocess.exit(odd(3) === true && odd(4) === false ? 0 : 1);\n";
    let fix = "const isOdd = require('is-odd');\nmodule.exports = (n) => isOdd(n);\n";
    let scenario = step_run("npm install --no-audit --no-fund --silent is-odd@3.0.1")
        + &step_write("calc.js", fix);
    let mut r = Run::new(
        &[("package.json", pkg), ("calc.js", calc), ("test.js", test)],
        "node_modules/\n",
        "npm install --no-audit --no-fund --silent && mkdir -p node_modules && git add -A && git -c user.name=t -c user.email=t@example.invalid commit -qm lock",
        &[("test", "node test.js")],
        &[],
        "",
        &scenario,
    );
    let end = r.drive();
    let last = end.last.as_ref().expect("report");
    assert_eq!(end.reason, StopReason::Verified, "{end:?}");
    assert!(last.findings.is_empty(), "{:?}", last.findings);
    let event =
        r.f.store
            .last_event(&r.f.run_id, pawl_core::EventKind::RoomSetup)
            .expect("store")
            .expect("a room_setup event");
    let setup: pawl_engine::room::setup::SetupRun =
        serde_json::from_value(event.data.clone()).expect("setup record");
    assert_eq!(setup.command, "npm ci", "{setup:?}");
    assert!(setup.passed, "{setup:?}");
    assert!(
        r.room_tree()
            .join("node_modules/is-odd/package.json")
            .is_file()
    );
}
