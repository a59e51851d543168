//! The room's environment (issue 30 points 2 and 3): the project's ignored environment
//! directories taken into the room at the seal (a real in-repository `.venv` with an editable
//! src-layout package and pytest from PyPI; a `node_modules/.bin` tool), first on the checks'
//! `PATH`; copied, never linked; not copied again when unchanged; the paths into the live tree
//! named; and a check that fails for the environment refused at the start with the fix.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use pawl_core::seal::{CheckRole, Seal, SealedCheck};
use pawl_engine::baseline::{self, BaselineError};
use pawl_engine::room::env::{Taken, env_changes};
use pawl_engine::{Room, Workspace};
use pawl_git::{Options, Repo};

pub const TESTS: &[crate::Test] = &[
    (
        "roomenv::a_real_venv_with_an_editable_package_runs_the_tests_in_the_room",
        a_real_venv_with_an_editable_package_runs_the_tests_in_the_room,
    ),
    (
        "roomenv::a_node_modules_bin_tool_is_on_the_checks_path_and_copied_not_linked",
        a_node_modules_bin_tool_is_on_the_checks_path_and_copied_not_linked,
    ),
    (
        "roomenv::an_unchanged_environment_is_not_copied_again",
        an_unchanged_environment_is_not_copied_again,
    ),
    (
        "roomenv::a_missing_tool_is_refused_at_the_start_with_the_fix",
        a_missing_tool_is_refused_at_the_start_with_the_fix,
    ),
    (
        "roomenv::a_missing_module_is_refused_unless_the_goal_creates_it",
        a_missing_module_is_refused_unless_the_goal_creates_it,
    ),
    (
        "roomenv::a_pth_file_outside_the_repository_turns_a_test_green_and_is_named",
        a_pth_file_outside_the_repository_turns_a_test_green_and_is_named,
    ),
    (
        "roomenv::a_change_to_the_repositorys_environment_or_the_users_configuration_is_named",
        a_change_to_the_repositorys_environment_or_the_users_configuration_is_named,
    ),
    (
        "roomenv::a_story_s_room_takes_the_environment_from_the_main_repository",
        a_story_s_room_takes_the_environment_from_the_main_repository,
    ),
];

struct Fx {
    tmp: tempfile::TempDir,
    repo: Repo,
}

impl Fx {
    fn new(ignore: &str) -> Fx {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path().join("repo");
        std::fs::create_dir(&root).expect("repo dir");
        let options = Options {
            env: vec![
                ("HOME".into(), tmp.path().as_os_str().to_owned()),
                ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
            ],
            ..Options::default()
        };
        let repo = Repo::init(&root, options).expect("git init");
        let fx = Fx { tmp, repo };
        fx.write(".gitignore", &format!(".pawl/\n{ignore}"));
        fx
    }

    fn root(&self) -> &Path {
        self.repo.root()
    }

    fn write(&self, rel: &str, content: &str) {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, content).expect("write");
    }

    fn room_dir(&self) -> PathBuf {
        self.tmp.path().join("room")
    }

    fn ws(&self) -> Workspace {
        let mut ws = Workspace::new(self.root(), self.root().join(".pawl"));
        ws.room = Some(self.room_dir());
        ws
    }

    fn seal(&self, checks: &[(&str, &str)], goal: &str) -> Seal {
        let vars: Vec<(String, String)> = std::env::vars().collect();
        Seal {
            checks: checks
                .iter()
                .map(|(n, c)| SealedCheck::new(*n, *c, CheckRole::Gate))
                .collect(),
            timeout_ms: 300_000,
            env: pawl_core::seal::sealed_env(&vars, &[], self.root()),
            goal_names: pawl_core::envfail::goal_names(goal),
            ..Seal::default()
        }
    }

    fn sh(&self, script: &str) {
        let out = std::process::Command::new("sh")
            .args(["-c", script])
            .current_dir(self.root())
            .output()
            .expect("sh");
        assert!(
            out.status.success(),
            "{script}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

const PYPROJECT: &str = r#"[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "mypkg"
version = "0.1.0"

[tool.setuptools.packages.find]
where = ["src"]
"#;

/// The issue's first set-up: a src-layout package installed editable into an in-repository
/// `.venv` with pytest. The system python has no pytest: the checks pass or fail only if they
/// run in the room's copy of the virtualenv.
fn a_real_venv_with_an_editable_package_runs_the_tests_in_the_room() {
    let fx = Fx::new(".venv/\n*.egg-info/\n");
    fx.write("pyproject.toml", PYPROJECT);
    fx.write(
        "src/mypkg/__init__.py",
        "def add(a, b):\n    return a - b\n",
    );
    fx.write(
        "tests/test_add.py",
        "from mypkg import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    );
    fx.sh(
        "python3 -m venv .venv && .venv/bin/pip install -q --disable-pip-version-check -e . pytest",
    );
    let seal = fx.seal(
        &[
            ("test", "python3 -m pytest -rA -p no:cacheprovider tests"),
            (
                "where",
                "test \"$VIRTUAL_ENV\" = \"$PWD/.venv\" && command -v python3 | grep -q \"^$PWD/.venv/bin/\" && command -v pytest | grep -q \"^$PWD/.venv/bin/\"",
            ),
        ],
        "fix add",
    );
    let b = baseline::take(&fx.ws(), &seal).expect("baseline");
    let test = b.check("test").expect("test");
    // A real failure of the code, by test id: the package was imported.
    assert!(!test.passed, "{b:?}");
    assert_eq!(test.failing, ["tests/test_add.py::test_add"], "{b:?}");
    assert!(b.check("where").expect("where").passed, "{b:?}");
    let env = b.environment.as_ref().expect("environment");
    assert_eq!(env.dirs, [".venv"]);
    assert_eq!(env.bins, [".venv/bin"]);
    // Without a check namespace the editable install and the scripts' `#!` lead into the
    // live tree: named, never silently used.
    let root = fx.root().display().to_string();
    assert!(
        env.leaks
            .iter()
            .any(|l| l.contains(&format!("live tree at {root}/src"))),
        "{:?}",
        env.leaks
    );
    assert!(
        env.leaks
            .iter()
            .any(|l| l.contains(&format!("{root}/.venv/bin/python"))
                && l.contains(".venv/bin/pytest")),
        "{:?}",
        env.leaks
    );
    // The fixed tree passes.
    fx.write(
        "src/mypkg/__init__.py",
        "def add(a, b):\n    return a + b\n",
    );
    let b = baseline::take(&fx.ws(), &seal).expect("baseline");
    assert!(b.check("test").expect("test").passed, "{b:?}");
    // The room holds a copy: the package trees are in the manifest.
    let repo = Repo::open(fx.root()).expect("repo");
    let mut room = Room::open(&repo, &fx.room_dir()).expect("room");
    let state = room.environment().expect("state");
    let (tree, packages) = state
        .manifest
        .trees
        .iter()
        .find(|(t, _)| t.ends_with("site-packages"))
        .expect("site-packages in the manifest");
    assert!(tree.starts_with(".venv/lib/python"), "{tree}");
    assert!(packages.contains_key("pytest"), "{packages:?}");
    assert!(
        state.manifest.trees[".venv/bin"].contains_key("pytest"),
        "{:?}",
        state.manifest.trees.keys()
    );
    maybe_report("venv", &fx, &repo, &mut room);
}

fn a_node_modules_bin_tool_is_on_the_checks_path_and_copied_not_linked() {
    let fx = Fx::new("node_modules/\n");
    fx.write(
        "package.json",
        "{\"name\": \"x\", \"scripts\": {\"test\": \"mytool\"}}\n",
    );
    fx.write(
        "node_modules/mytool/package.json",
        "{\"name\": \"mytool\"}\n",
    );
    fx.write(
        "node_modules/mytool/cli.sh",
        "#!/bin/sh\ngrep -q good node_modules/mytool/state\n",
    );
    fx.write("node_modules/mytool/state", "good\n");
    fx.sh("chmod +x node_modules/mytool/cli.sh && mkdir -p node_modules/.bin && ln -s ../mytool/cli.sh node_modules/.bin/mytool");
    let seal = fx.seal(&[("test", "mytool")], "");
    let b = baseline::take(&fx.ws(), &seal).expect("baseline");
    assert!(b.check("test").expect("test").passed, "{b:?}");
    assert_eq!(
        b.environment.as_ref().expect("env").bins,
        ["node_modules/.bin"]
    );
    // A copy: another inode, one link; a tool rewriting the repository's file in place after
    // the seal changes nothing in the room.
    let repo = Repo::open(fx.root()).expect("repo");
    let room = Room::open(&repo, &fx.room_dir()).expect("room");
    let live = fx.root().join("node_modules/mytool/state");
    let copy = room.root().join("node_modules/mytool/state");
    let (l, c) = (
        std::fs::metadata(&live).expect("live"),
        std::fs::metadata(&copy).expect("copy"),
    );
    assert_ne!(l.ino(), c.ino());
    assert_eq!(c.nlink(), 1);
    std::fs::write(&live, "bad\n").expect("rewrite in place");
    assert_eq!(std::fs::read_to_string(&copy).expect("copy"), "good\n");
    drop(room);
    // The room's copy holds until the next seal takes the environment again.
    let mut ws = fx.ws();
    ws.room = Some(fx.room_dir());
    let checks = vec![pawl_verify::gate::Check::gate("test", "mytool")];
    let mut cfg = baseline::runner_for(&ws, &seal, 1);
    let repo = Repo::open(fx.root()).expect("repo");
    let room = Room::open(&repo, &fx.room_dir()).expect("room");
    cfg.root = room.root().to_owned();
    baseline::in_room_env(
        &mut cfg,
        &room.environment().expect("state"),
        room.root(),
        &seal,
    );
    let runs = baseline::run_sealed(&ws, Some(&seal), &checks, &cfg);
    assert!(runs[0].passed, "{:?}", runs[0].tail);
}

fn an_unchanged_environment_is_not_copied_again() {
    let fx = Fx::new("node_modules/\n");
    fx.write("package.json", "{}\n");
    for i in 0..50 {
        fx.write(
            &format!("node_modules/p{i}/index.js"),
            &format!("module.exports = {i};\n"),
        );
    }
    let layout = pawl_verify::platform::Descriptors::builtin()
        .expect("descriptors")
        .environment();
    let repo = Repo::open(fx.root()).expect("repo");
    let mut room = Room::open(&repo, &fx.room_dir()).expect("room");
    let tree = repo.tree_hash().expect("tree");
    room.sync(&repo, &tree).expect("sync");
    let first = room.take_environment(&repo, &layout).expect("take");
    assert_eq!(first.items.len(), 1, "{first:?}");
    assert_eq!(first.items[0].taken, Taken::Copied);
    assert_eq!(first.items[0].files, 50);
    let second = room.take_environment(&repo, &layout).expect("take");
    assert_eq!(second.items[0].taken, Taken::Kept, "{second:?}");
    // A file changed in the repository: copied again, and the manifest says which package.
    let sealed = room.environment().expect("state").manifest;
    fx.write("node_modules/p7/index.js", "module.exports = 'patched';\n");
    let third = room.take_environment(&repo, &layout).expect("take");
    assert_eq!(third.items[0].taken, Taken::Copied, "{third:?}");
    let now = room.environment().expect("state").manifest;
    let changes = pawl_core::envmanifest::compare(&sealed, &now);
    assert_eq!(
        changes.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["node_modules/p7 changed"]
    );
    // A check that edits the room's copy: not taken for the seal's any more.
    std::fs::write(room.root().join("node_modules/p1/index.js"), "x\n").expect("edit");
    let fourth = room.take_environment(&repo, &layout).expect("take");
    assert_eq!(fourth.items[0].taken, Taken::Copied, "{fourth:?}");
    assert_eq!(
        std::fs::read_to_string(room.root().join("node_modules/p1/index.js")).expect("read"),
        "module.exports = 1;\n"
    );
    // A room rebuilt from scratch (its index tampered with) keeps the environment it took.
    std::fs::write(fx.room_dir().join("index"), "junk").expect("tamper");
    let tree = repo.tree_hash().expect("tree");
    let stats = room.sync(&repo, &tree).expect("sync");
    assert!(stats.rebuilt.is_some(), "{stats:?}");
    assert_eq!(
        std::fs::read_to_string(room.root().join("node_modules/p1/index.js")).expect("read"),
        "module.exports = 1;\n"
    );
    assert_eq!(
        room.take_environment(&repo, &layout).expect("take").items[0].taken,
        Taken::Kept
    );
    // Gone from the repository: gone from the room.
    std::fs::remove_dir_all(fx.root().join("node_modules")).expect("rm");
    let fifth = room.take_environment(&repo, &layout).expect("take");
    assert_eq!(fifth.items[0].taken, Taken::Removed, "{fifth:?}");
    assert!(!room.root().join("node_modules").exists());
}

fn a_missing_tool_is_refused_at_the_start_with_the_fix() {
    let fx = Fx::new("node_modules/\n");
    fx.write(
        "package.json",
        "{\"name\": \"x\", \"scripts\": {\"build\": \"tsc-missing-xyz\"}}\n",
    );
    // Exit 1, not 127: the wrapper lost the shell's code (pnpm's build step does).
    let seal = fx.seal(&[("build", "sh -c 'tsc-missing-xyz' ; exit 1")], "");
    match baseline::take(&fx.ws(), &seal) {
        Err(BaselineError::Environment { check, failure }) => {
            assert_eq!(check, "build");
            let text = failure.to_string();
            assert!(
                text.starts_with("the checks cannot find the program `tsc-missing-xyz`"),
                "{text}"
            );
            assert!(text.contains("the room has no node_modules"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // Exit 127 (`jest: not found`): the check cannot start, and the refusal says the fix.
    match baseline::take(&fx.ws(), &fx.seal(&[("test", "jest-missing-xyz --ci")], "")) {
        Err(BaselineError::CannotStart { check, why, .. }) => {
            assert_eq!(check, "test");
            assert!(why.contains("exit 127"), "{why}");
            assert!(why.contains("the room has no node_modules"), "{why}");
        }
        other => panic!("{other:?}"),
    }
}

fn a_missing_module_is_refused_unless_the_goal_creates_it() {
    let fx = Fx::new("");
    fx.write("requirements.txt", "");
    fx.write(
        "test_x.py",
        "import slugify_xyz\n\ndef test_x():\n    assert slugify_xyz.go() == 1\n",
    );
    let check = [("test", "python3 -m unittest test_x")];
    match baseline::take(&fx.ws(), &fx.seal(&check, "fix the parser")) {
        Err(BaselineError::Environment { failure, .. }) => {
            let text = failure.to_string();
            assert!(
                text.starts_with("the checks cannot import `slugify_xyz`"),
                "{text}"
            );
            assert!(text.contains("the room has no virtualenv"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // The goal is to create it: a failing check for the run, recorded.
    let b = baseline::take(
        &fx.ws(),
        &fx.seal(&check, "Add a slugify_xyz module with go()"),
    )
    .expect("baseline");
    assert!(!b.check("test").expect("test").passed);
}

/// With `PAWL_MEASURE=1`, prints what taking the environment cost (docs/verification.md).
fn maybe_report(what: &str, fx: &Fx, repo: &Repo, room: &mut Room) {
    if std::env::var_os("PAWL_MEASURE").is_none() {
        return;
    }
    let layout = pawl_verify::platform::Descriptors::builtin()
        .expect("descriptors")
        .environment();
    let warm = room.take_environment(repo, &layout).expect("warm");
    std::fs::remove_file(fx.room_dir().join("env.json")).expect("forget");
    let cold = room.take_environment(repo, &layout).expect("cold");
    for (label, s) in [("cold", &cold), ("warm", &warm)] {
        for i in &s.items {
            println!(
                "measure {what} {label}: {} {:?} {} files {} bytes, {} reflinked, {:?}",
                i.dir, i.taken, i.files, i.bytes, i.reflinked, i.duration
            );
        }
    }
}

const CHANGED: &str = "the environment changed since the run started: ";

/// The attack (issue 32 point 6, issue 30 point 2): the run changes no file of the repository;
/// it drops a `.pth` file into the site-packages of the virtualenv the checks use, outside the
/// repository, which patches the function under test in every python. The check goes red →
/// green on an unchanged tree; the environment's manifest names the file.
fn a_pth_file_outside_the_repository_turns_a_test_green_and_is_named() {
    let fx = Fx::new("");
    fx.write("mod.py", "def f():\n    return 1\n");
    let venv = fx.tmp.path().join("venv");
    let out = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .output()
        .expect("python3 -m venv");
    assert!(out.status.success(), "{out:?}");
    let home = fx.tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let check = "python -c 'import mod, sys; sys.exit(0 if mod.f() == 2 else 1)'";
    let mut seal = fx.seal(&[("test", check)], "make f return 2");
    let path = format!(
        "{}:{}",
        venv.join("bin").display(),
        seal.env.get("PATH").cloned().unwrap_or_default()
    );
    seal.env.insert("PATH".into(), path);
    seal.env
        .insert("VIRTUAL_ENV".into(), venv.display().to_string());
    seal.env.insert("HOME".into(), home.display().to_string());
    let ws = fx.ws();
    let base = baseline::take(&ws, &seal).expect("baseline");
    assert!(!base.checks[0].passed, "{base:?}");
    assert_eq!(env_changes(&ws, &seal), Vec::<String>::new());

    let sp = std::fs::read_dir(venv.join("lib"))
        .expect("lib")
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir())
        .expect("site-packages");
    std::fs::write(
        sp.join("evil.pth"),
        "import builtins; builtins.__import__ = (lambda i: lambda n, *a, **k: (lambda m: \
         (setattr(m, 'f', lambda: 2) if n == 'mod' else None, m)[1])(i(n, *a, **k)))(builtins.__import__)\n",
    )
    .expect("plant");
    // The attack works: the same tree, the check now passes.
    let mut store = pawl_store::Store::open(&fx.tmp.path().join("pawl.db")).expect("store");
    let mut plan =
        pawl_engine::verify::Plan::new(vec![pawl_verify::gate::Check::gate("test", check)]);
    plan.fresh = true;
    plan.seal = Some(seal.clone());
    let v = pawl_engine::verify::verify_checks(&ws, &mut store, None, &plan).expect("verify");
    assert_eq!(v.tree, base.tree, "no file of the repository changed");
    assert!(
        v.verified,
        "the attack no longer turns the check green: {v:?}"
    );
    // And the environment's manifest says why.
    assert_eq!(
        env_changes(&ws, &seal),
        [format!("{CHANGED}{}/evil.pth added", sp.display())]
    );
}

/// The repository's own environment changed (the checks use the room's copy taken at the seal,
/// but a change there is named), and so did the user's configuration; bytecode an honest run
/// writes is no change.
fn a_change_to_the_repositorys_environment_or_the_users_configuration_is_named() {
    let fx = Fx::new(".venv/\n");
    let sp = ".venv/lib/python3.11/site-packages";
    fx.write(".venv/pyvenv.cfg", "home = /usr/bin\n");
    fx.write(&format!("{sp}/dep.py"), "x = 1\n");
    let home = fx.tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let mut seal = fx.seal(&[("test", "true")], "anything");
    seal.env.insert("HOME".into(), home.display().to_string());
    let ws = fx.ws();
    baseline::take(&ws, &seal).expect("baseline");
    assert_eq!(env_changes(&ws, &seal), Vec::<String>::new());
    fx.write(&format!("{sp}/__pycache__/dep.cpython-311.pyc"), "bytecode");
    assert_eq!(env_changes(&ws, &seal), Vec::<String>::new());

    fx.write(&format!("{sp}/evil.pth"), "import os\n");
    fx.write(&format!("{sp}/dep.py"), "x = 2\n");
    std::fs::write(home.join(".npmrc"), "node-options=--require /x.js\n").expect("npmrc");
    assert_eq!(
        env_changes(&ws, &seal),
        [
            format!("{CHANGED}{sp}/dep.py changed"),
            format!("{CHANGED}{sp}/evil.pth added"),
            format!("{CHANGED}~/.npmrc added"),
        ]
    );
}

/// Issue 30 point 1 for parallel stories: a story is verified in its own room, synced from its
/// worktree, which has no ignored directories — so the room had no environment, and a check
/// that runs the project's `node_modules/.bin` tool could not start. The story's room now takes
/// the environment from the main repository (`Workspace::seen_at`), as the run's room took it
/// at the seal, and nothing is named changed in it.
fn a_story_s_room_takes_the_environment_from_the_main_repository() {
    let fx = Fx::new("node_modules/\n");
    fx.write("package.json", "{\"name\": \"x\"}\n");
    fx.write("node_modules/mytool/cli.sh", "#!/bin/sh\nexit 0\n");
    fx.sh("chmod +x node_modules/mytool/cli.sh && mkdir -p node_modules/.bin && ln -s ../mytool/cli.sh node_modules/.bin/mytool");
    fx.sh("git add -A && git -c user.name=t -c user.email=t@example.invalid commit -qm start");
    let worktree = fx.tmp.path().join("story-S1");
    fx.sh(&format!(
        "git worktree add -q -b story-S1 '{}'",
        worktree.display()
    ));
    assert!(!worktree.join("node_modules").exists());
    let seal = fx.seal(&[("test", "mytool")], "");
    let verify = |seen_at: Option<&Path>, room: &str| {
        let mut ws = Workspace::new(&worktree, fx.root().join(".pawl"));
        ws.room = Some(fx.tmp.path().join(room));
        ws.seen_at = seen_at.map(Path::to_path_buf);
        let mut store =
            pawl_store::Store::open(&fx.tmp.path().join(format!("{room}.db"))).expect("store");
        let mut plan =
            pawl_engine::verify::Plan::new(vec![pawl_verify::gate::Check::gate("test", "mytool")]);
        plan.fresh = true;
        plan.seal = Some(seal.clone());
        let v = pawl_engine::verify::verify_checks(&ws, &mut store, None, &plan).expect("verify");
        (v, env_changes(&ws, &seal))
    };
    // As a story's room was: synced from the worktree alone, no environment.
    let (v, _) = verify(None, "room-before");
    assert!(!v.verified, "the story's room had the tool: {v:?}");
    // Taken from the main repository.
    let (v, changes) = verify(Some(fx.root()), "room-S1");
    assert!(v.verified, "{v:?}");
    assert_eq!(changes, Vec::<String>::new());
}
