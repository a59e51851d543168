//! The check sandbox (pawl-process's `sandbox::check`), through the `pawl-step` launcher: the
//! code under test is the agent's, so every attack a check could make on pawl, the user or the
//! live tree is played here twice — it succeeds as checks ran before (their own pid namespace,
//! no sandbox: `LaunchSpec { namespaces: true, sandbox: None }`, or the subreaper fallback),
//! then fails under the check sandbox — and the honest things checks do still work.

#![allow(clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use pawl_process::sandbox::check::{CheckWorld, REPORT_DIR, check_sandbox, report_place};
use pawl_process::sandbox::{self, LaunchSpec};
use pawl_process::{Command, Containment, End, Outcome};

use crate::{PATIENCE, eventually, pid_alive};

const PYTHON: &str = "/usr/bin/python3";

fn launcher() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pawl-step"))
}

/// A directory outside the machine's /tmp (a check's /tmp is its own; without namespaces it is
/// the machine's): the target dir's, or `~/.pawl-test-worlds` when the checkout itself lies
/// under /tmp (a `mktemp -d` clone), as `cli` `it::attacks` places its worlds.
fn outside_tmp() -> PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    if !target.starts_with("/tmp") {
        return target.to_path_buf();
    }
    let home = std::env::var_os("HOME").map_or_else(|| "/root".into(), PathBuf::from);
    let dir = home.join(".pawl-test-worlds");
    std::fs::create_dir_all(&dir).expect("a directory outside /tmp");
    dir
}

/// A user's world: a HOME with pawl's key and Claude's settings, a live repository, and a room
/// holding the sealed tree. Outside /tmp (a check's /tmp is its own).
struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
    tree: PathBuf,
    key: PathBuf,
    settings: PathBuf,
}

impl World {
    fn new() -> World {
        World::new_in(&outside_tmp())
    }

    /// The same world in a directory under `parent` (the machine's `/tmp`: scratch clones,
    /// tests and CI jobs keep their repository and HOME there).
    fn new_in(parent: &Path) -> World {
        let dir = tempfile::Builder::new()
            .prefix("checkns-")
            .tempdir_in(parent)
            .expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let home = root.join("home");
        let repo = root.join("repo");
        let state = home.join(".local/state/pawl");
        let tree = state.join("rooms/repo-1/tree");
        for d in [&repo, &tree, &home.join(".claude")] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        let key = state.join("key");
        std::fs::write(&key, "SECRET-KEY").expect("key");
        let settings = home.join(".claude/settings.json");
        std::fs::write(&settings, "{\"hooks\":\"pawl\"}").expect("settings");
        std::fs::write(repo.join("value.txt"), "live\n").expect("live");
        std::fs::write(tree.join("value.txt"), "room\n").expect("room");
        std::fs::create_dir_all(repo.join(".pawl/logs")).expect("logs");
        std::fs::write(repo.join(".pawl/logs/baseline.log"), "expected: 42\n").expect("log");
        World {
            _dir: dir,
            home,
            repo,
            tree,
            key,
            settings,
        }
    }

    fn world(&self) -> CheckWorld {
        CheckWorld {
            repo: self.repo.clone(),
            state: vec![self.home.join(".local/state/pawl"), self.repo.join(".pawl")],
            home: Some(self.home.clone()),
            // As the engine names pawl's binary (the checks' cargo runner).
            launcher: Some(launcher()),
            // The toolchains and the launcher (the cargo runner): the world may lie below a
            // top-level directory the check sees nothing of but what is kept.
            kept: pawl_process::sandbox::check::kept_dirs(|k| std::env::var(k).ok())
                .into_iter()
                .chain(launcher().parent().map(Path::to_path_buf))
                .collect(),
            ..CheckWorld::default()
        }
    }

    /// How checks ran before the check sandbox: their own pid namespace, in the room's own path.
    fn before(&self) -> (LaunchSpec, PathBuf) {
        let spec = LaunchSpec {
            namespaces: true,
            sandbox: None,
        };
        (spec, self.tree.clone())
    }

    /// The check sandbox with every layer; `None` (a loud skip, a failure under CI) where the
    /// kernel lacks one.
    fn contained(&self) -> Option<(LaunchSpec, PathBuf)> {
        self.contained_in(&self.world())
    }

    /// [`World::contained`] with the sandbox of `world` (this world's, changed).
    fn contained_in(&self, world: &CheckWorld) -> Option<(LaunchSpec, PathBuf)> {
        let wanted = LaunchSpec {
            namespaces: true,
            sandbox: Some(check_sandbox(world)),
        };
        let e = sandbox::probe(&launcher(), &wanted).expect("probe runs");
        let complete = e.namespaces
            && e.mounts
            && e.landlock
            && e.signal_scope
            && e.socket_scope
            && e.private_network
            && e.private_tmp;
        if !complete {
            let msg = format!("the kernel cannot contain checks here: {e:?}");
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
            #[allow(clippy::print_stderr)]
            {
                eprintln!("SKIPPED: {msg}");
            }
            return None;
        }
        let mut spec = e.allowed(&wanted);
        assert!(e.check_gaps(&spec).is_empty(), "{:?}", e.check_gaps(&spec));
        assert_eq!(e.key_exposure(&spec), None);
        let cwd = spec
            .sandbox
            .as_mut()
            .map(|s| s.place_checks(&self.repo, Some(&self.tree)))
            .expect("a sandbox");
        Some((spec, cwd))
    }

    /// The fallback without namespaces (forced here, on a machine that has them): Landlock only;
    /// `None` (loud) without Landlock ABI 6, a failure under `CI=true`.
    fn fallback(&self) -> Option<(LaunchSpec, PathBuf)> {
        let wanted = LaunchSpec {
            namespaces: false,
            sandbox: Some(check_sandbox(&self.world())),
        };
        let e = sandbox::probe(&launcher(), &wanted).expect("probe runs");
        if !(e.landlock && e.signal_scope && e.socket_scope && e.tcp_denied) {
            // CI runs the fallback leg (its machine has Landlock ABI 6+): a skipped leg fails.
            let msg = format!("no Landlock fallback here: {e:?}");
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
            #[allow(clippy::print_stderr)]
            {
                eprintln!("SKIPPED: {msg}");
            }
            return None;
        }
        let mut spec = e.allowed(&wanted);
        // What is missing is said, and pawl's key cannot be hidden: the verdict is capped.
        let gaps = e.check_gaps(&spec);
        assert!(gaps.iter().any(|g| g.contains("state hidden")), "{gaps:?}");
        assert!(e.key_exposure(&spec).is_some());
        let cwd = spec
            .sandbox
            .as_mut()
            .map(|s| s.place_checks(&self.repo, Some(&self.tree)))
            .expect("a sandbox");
        Some((spec, cwd))
    }

    fn run(&self, spec: &(LaunchSpec, PathBuf), script: &str) -> Outcome {
        self.run_as(spec, "test", script)
    }

    /// Runs `script` as the check named `check` (pawl-verify's runner names every check).
    fn run_as(&self, (spec, cwd): &(LaunchSpec, PathBuf), check: &str, script: &str) -> Outcome {
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", script])
            .current_dir(cwd)
            .env("HOME", &self.home)
            .env(sandbox::check::CHECK_VAR, check)
            .timeout(PATIENCE)
            .grace(Duration::from_millis(300))
            .capture_stdout(true)
            .contain(Containment {
                launcher: launcher(),
                spec: spec.clone(),
                record_dir: None,
            });
        cmd.run().expect("runs")
    }
}

fn stdout(o: &Outcome) -> String {
    o.stdout
        .full
        .as_deref()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default()
}

#[test]
fn a_check_cannot_read_pawls_key_nor_its_logs() {
    let w = World::new();
    let script = format!(
        "cat {} {}",
        w.key.display(),
        w.repo.join(".pawl/logs/baseline.log").display()
    );
    let o = w.run(&w.before(), &script);
    assert!(stdout(&o).contains("SECRET-KEY"), "the attack: {o:?}");
    assert!(stdout(&o).contains("expected: 42"), "the attack: {o:?}");
    let Some(c) = w.contained() else { return };
    let o = w.run(&c, &script);
    assert!(!stdout(&o).contains("SECRET-KEY"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("expected"), "{}", stdout(&o));
    assert_ne!(o.end, End::Exited(0));
}

#[test]
fn a_check_cannot_rewrite_the_users_claude_settings() {
    let w = World::new();
    let script = format!("echo '{{\"hooks\":{{}}}}' > {}", w.settings.display());
    let o = w.run(&w.before(), &script);
    assert_eq!(o.end, End::Exited(0));
    assert!(
        std::fs::read_to_string(&w.settings)
            .expect("read")
            .contains("{}")
    );
    std::fs::write(&w.settings, "{\"hooks\":\"pawl\"}").expect("restore");
    for spec in [w.contained(), w.fallback()].into_iter().flatten() {
        let o = w.run(&spec, &script);
        assert_ne!(o.end, End::Exited(0), "{o:?}");
        assert_eq!(
            std::fs::read_to_string(&w.settings).expect("read"),
            "{\"hooks\":\"pawl\"}"
        );
    }
}

#[test]
fn a_check_sees_the_room_at_the_repositorys_path_and_writes_only_there() {
    let w = World::new();
    let shared = PathBuf::from(format!("/tmp/checkns-{}", std::process::id()));
    let script = format!(
        "cat {v} && mkdir -p .pytest_cache && echo x > .pytest_cache/v && echo t > {t}",
        v = w.repo.join("value.txt").display(),
        t = shared.display()
    );
    // Before: the absolute path leads to the live tree, /tmp is the machine's.
    let o = w.run(&w.before(), &script);
    assert!(stdout(&o).starts_with("live"), "the attack: {o:?}");
    assert!(shared.exists());
    std::fs::remove_file(&shared).expect("rm");
    std::fs::remove_dir_all(w.tree.join(".pytest_cache")).expect("rm");
    let Some(c) = w.contained() else { return };
    let o = w.run(&c, &script);
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    let out = stdout(&o);
    assert!(out.starts_with("room"), "{out}");
    // The cache landed in the check's own layer: neither in the room's tree nor in the live
    // tree; /tmp was the check's own.
    assert!(!w.tree.join(".pytest_cache").exists());
    assert!(!w.repo.join(".pytest_cache").exists());
    assert!(!shared.exists(), "the check wrote the machine's /tmp");
    // A write into HOME is refused.
    let o = w.run(
        &c,
        &format!("echo x > {}", w.home.join(".bashrc").display()),
    );
    assert_ne!(o.end, End::Exited(0));
    assert!(!w.home.join(".bashrc").exists());
}

/// The attack (issue 32 point 5): a first verification's test writes a cache the second one
/// reads to pass (`.pytest_cache`, a file written at test time), and rewrites a file of the
/// room. As checks ran before, both stay; under the check sandbox the room is seen through an
/// overlay whose layer is discarded at the next sync, while a `build` check's outputs still
/// reach the tests of the same verification.
#[test]
fn a_test_leaves_nothing_for_the_next_verification_and_a_build_reaches_the_tests() {
    let w = World::new();
    let scratch = w.tree.with_file_name(sandbox::check::ROOM_SCRATCH);
    let plant =
        "mkdir -p .pytest_cache && echo pass > .pytest_cache/answer && echo cheat > value.txt";
    let read = "cat .pytest_cache/answer && cat value.txt";
    let o = w.run(&w.before(), plant);
    assert_eq!(o.end, End::Exited(0), "{o:?}");
    let o = w.run(&w.before(), read);
    assert_eq!(o.end, End::Exited(0), "the attack: {o:?}");
    assert!(stdout(&o).contains("cheat"), "the attack: {o:?}");
    std::fs::remove_dir_all(w.tree.join(".pytest_cache")).expect("rm");
    std::fs::write(w.tree.join("value.txt"), "room\n").expect("restore");

    let Some(c) = w.contained() else { return };
    let o = w.run(&c, plant);
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    // Nothing of it in the room's tree: a sync (which empties the scratch) starts over.
    assert!(!w.tree.join(".pytest_cache").exists());
    assert_eq!(
        std::fs::read_to_string(w.tree.join("value.txt")).expect("read"),
        "room\n"
    );
    assert!(
        !scratch.join(sandbox::check::OVERLAY_FAILED).exists(),
        "{:?}",
        std::fs::read_to_string(scratch.join(sandbox::check::OVERLAY_FAILED))
    );
    std::fs::remove_dir_all(&scratch).expect("the room's next sync");
    let o = w.run(&c, read);
    assert_ne!(
        o.end,
        End::Exited(0),
        "the cache reached the next verification: {o:?}"
    );

    // A build's outputs reach the later checks of its verification; a test's writes do not
    // reach the others.
    let o = w.run_as(&c, "build", "mkdir -p dist && echo built > dist/out");
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    let o = w.run_as(&c, "test", "cat dist/out && echo t > dist/test-wrote");
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert!(stdout(&o).contains("built"));
    let o = w.run_as(&c, "lint", "cat dist/out && ! test -e dist/test-wrote");
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert!(!w.tree.join("dist").exists());
}

/// What the `build` check wrote below a build directory is merged into the room's tree as the
/// overlay showed it (new, rewritten, removed, a directory made anew); a test's layer is not.
#[test]
fn the_builds_outputs_are_kept_as_the_overlay_showed_them() {
    let w = World::new();
    let scratch = w.tree.with_file_name(sandbox::check::ROOM_SCRATCH);
    for (rel, text) in [
        ("target/old", "old\n"),
        ("target/gone", "gone\n"),
        ("target/dir/stale", "stale\n"),
    ] {
        let p = w.tree.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    let Some(c) = w.contained() else { return };
    let o = w.run_as(
        &c,
        "build",
        "echo new > target/new && echo rebuilt > target/old && rm target/gone && \
         rm -r target/dir && mkdir target/dir && echo fresh > target/dir/fresh && echo x > other",
    );
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    let o = w.run_as(&c, "test", "echo test > target/test-wrote");
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    let layer = sandbox::check::kept_layer(&scratch, "build");
    let moved =
        sandbox::check::merge_kept_layer(&layer, &w.tree, &["target".to_owned()]).expect("merge");
    assert_eq!(moved, 3);
    let read = |rel: &str| std::fs::read_to_string(w.tree.join(rel)).ok();
    assert_eq!(read("target/new").as_deref(), Some("new\n"));
    assert_eq!(read("target/old").as_deref(), Some("rebuilt\n"));
    assert_eq!(read("target/gone"), None);
    assert_eq!(
        read("target/dir/stale"),
        None,
        "an opaque directory replaces the old one"
    );
    assert_eq!(read("target/dir/fresh").as_deref(), Some("fresh\n"));
    assert_eq!(read("target/test-wrote"), None);
    assert_eq!(read("other"), None, "only the build directories are kept");
}

#[test]
fn a_check_cannot_signal_pawl() {
    let w = World::new();
    let spawn = || {
        std::process::Command::new("sleep")
            .arg("600")
            .spawn()
            .expect("sleep")
    };
    let kill = |pid: u32| format!("kill -9 {pid}");
    // Before, on a machine without namespaces (the subreaper): pawl is killed.
    let mut pawl = spawn();
    let before = (
        LaunchSpec {
            namespaces: false,
            sandbox: None,
        },
        w.tree.clone(),
    );
    w.run(&before, &kill(pawl.id()));
    let _ = pawl.wait();
    for spec in [w.contained(), w.fallback()].into_iter().flatten() {
        let mut pawl = spawn();
        let o = w.run(&spec, &kill(pawl.id()));
        assert_ne!(o.end, End::Exited(0), "{o:?}");
        assert!(pid_alive(pawl.id()), "a check killed pawl");
        let _ = pawl.kill();
        let _ = pawl.wait();
    }
}

/// A server outside the check on an abstract unix socket (a session bus, an agent's socket).
#[test]
fn a_check_cannot_reach_an_abstract_socket_outside() {
    let w = World::new();
    let name = format!("pawl-checkns-{}", std::process::id());
    let ready = w.home.join("ready");
    let server = format!(
        "import socket\ns=socket.socket(socket.AF_UNIX)\ns.bind('\\0{name}')\ns.listen(8)\nopen('{r}','w').close()\nwhile True:\n  c,_=s.accept(); c.sendall(b'answered'); c.close()\n",
        r = ready.display()
    );
    let mut srv = std::process::Command::new(PYTHON)
        .args(["-c", &server])
        .spawn()
        .expect("server");
    assert!(eventually(PATIENCE, || ready.exists()));
    let client = format!(
        "{PYTHON} -c \"import socket;s=socket.socket(socket.AF_UNIX);s.connect('\\0{name}');print(s.recv(64).decode())\""
    );
    let o = w.run(&w.before(), &client);
    assert!(stdout(&o).contains("answered"), "the attack: {o:?}");
    for spec in [w.contained(), w.fallback()].into_iter().flatten() {
        let o = w.run(&spec, &client);
        assert!(!stdout(&o).contains("answered"), "{o:?}");
    }
    let _ = srv.kill();
    let _ = srv.wait();
}

#[test]
fn a_check_has_no_network_but_its_own_loopback() {
    let w = World::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            use std::io::Write;
            let _ = (&s).write_all(b"outside");
        }
    });
    let out = format!(
        "{PYTHON} -c \"import socket;s=socket.create_connection(('127.0.0.1',{port}),5);print(s.recv(64).decode())\""
    );
    let o = w.run(&w.before(), &out);
    assert!(stdout(&o).contains("outside"), "the attack: {o:?}");
    for spec in [w.contained(), w.fallback()].into_iter().flatten() {
        let o = w.run(&spec, &out);
        assert!(!stdout(&o).contains("outside"), "{o:?}");
    }
    // An honest check's own test server on loopback works in its namespace.
    let Some(c) = w.contained() else { return };
    let own = format!(
        "{PYTHON} -c \"
import socket,threading
s=socket.socket();s.bind(('127.0.0.1',0));s.listen(1)
threading.Thread(target=lambda:(s.accept()[0].sendall(b'own server'))).start()
c=socket.create_connection(s.getsockname(),5);print(c.recv(64).decode())\""
    );
    let o = w.run(&c, &own);
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert!(stdout(&o).contains("own server"));
}

#[test]
fn a_check_writes_its_report_where_pawl_reads_it() {
    let w = World::new();
    let Some((mut spec, cwd)) = w.contained() else {
        return;
    };
    let host = w.repo.join(".pawl/logs/t-1.report");
    std::fs::create_dir_all(&host).expect("mkdir");
    let inside = report_place(spec.sandbox.as_mut().expect("sandbox"), &host, "r.xml");
    assert_eq!(inside, Path::new(REPORT_DIR).join("r.xml"));
    let o = w.run(
        &(spec, cwd),
        &format!("echo '<testsuite/>' > {}", inside.display()),
    );
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert!(host.join("r.xml").exists());
}

/// Issue 30's editable install: a virtualenv outside the repository with the project installed
/// editable (`pip install -e .`: a `.pth` naming the repository's `src`). After the seal the
/// live tree holds a wrong file and the room the right one: the result follows the room.
#[test]
fn an_editable_install_loads_the_code_from_the_room() {
    let w = World::new();
    let root = w.repo.parent().expect("parent").to_path_buf();
    let venv = root.join("venv");
    let pyproject = "[build-system]\nrequires = [\"setuptools>=64\"]\nbuild-backend = \"setuptools.build_meta\"\n[project]\nname = \"pkg\"\nversion = \"0.1\"\n";
    for t in [&w.repo, &w.tree] {
        std::fs::create_dir_all(t.join("src/pkg")).expect("mkdir");
        std::fs::write(t.join("pyproject.toml"), pyproject).expect("pyproject");
    }
    std::fs::write(w.tree.join("src/pkg/__init__.py"), "VALUE = 'right'\n").expect("room");
    std::fs::write(w.repo.join("src/pkg/__init__.py"), "VALUE = 'right'\n").expect("live");
    let setup = format!(
        "{PYTHON} -m venv {v} && {v}/bin/pip install -q wheel && {v}/bin/pip install -q --no-build-isolation -e {r}",
        v = venv.display(),
        r = w.repo.display()
    );
    let made = std::process::Command::new("sh")
        .args(["-c", &setup])
        .output()
        .expect("sh");
    if !made.status.success() {
        let msg = format!(
            "cannot make an editable install here: {}",
            String::from_utf8_lossy(&made.stderr)
        );
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        #[allow(clippy::print_stderr)]
        {
            eprintln!("SKIPPED: {msg}");
        }
        return;
    }
    // After the seal: the agent leaves a wrong file in the live tree.
    std::fs::write(w.repo.join("src/pkg/__init__.py"), "VALUE = 'wrong'\n").expect("live");
    let check = format!(
        "{}/bin/python -c 'import pkg; print(pkg.VALUE, pkg.__file__)'",
        venv.display()
    );
    let o = w.run(&w.before(), &check);
    assert!(stdout(&o).starts_with("wrong"), "the attack: {o:?}");
    // The virtualenv activated, as a user runs pawl: the engine keeps `$VIRTUAL_ENV` in sight
    // (`KEPT_VARS`), even where the directory above the repository is private to the check (a
    // world below `/work`, as in CI's checkout).
    let mut world = w.world();
    world.kept.push(venv.clone());
    let Some(c) = w.contained_in(&world) else {
        return;
    };
    let o = w.run(&c, &check);
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert!(stdout(&o).starts_with("right"), "{}", stdout(&o));
    // And the reverse: the live tree right, the room wrong → the check fails as the room does.
    std::fs::write(w.repo.join("src/pkg/__init__.py"), "VALUE = 'right'\n").expect("live");
    std::fs::write(w.tree.join("src/pkg/__init__.py"), "VALUE = 'wrong'\n").expect("room");
    let o = w.run(&c, &check);
    assert!(stdout(&o).starts_with("wrong"), "{}", stdout(&o));
}

/// Issue 30: a program a check names outside the repository — a virtualenv anywhere in HOME
/// (not one of `DECLARED_IN_HOME`'s places) and a tool beside the repository that reads its
/// own `lib/` — is kept in sight by its installation prefix, read-only, and nothing beside it:
/// a secret next to the virtualenv and one next to the tools stay out of sight. Before (HOME
/// and the directory above the repository private, the programs not named): neither starts.
/// The places are added as the engine adds them, to a sandbox made without them
/// (`check::keep_programs`, from the seal's `programs`).
#[test]
fn a_checks_program_in_home_or_beside_the_repository_is_seen_and_nothing_beside_it() {
    use pawl_process::sandbox::check::keep_programs;
    let w = World::new();
    let root = w.repo.parent().expect("parent").to_path_buf();
    let venv = w.home.join("somewhere/myenv");
    let made = std::process::Command::new(PYTHON)
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .output()
        .expect("python3");
    if !made.status.success() {
        let msg = format!(
            "cannot make a virtualenv here: {}",
            String::from_utf8_lossy(&made.stderr)
        );
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        #[allow(clippy::print_stderr)]
        {
            eprintln!("SKIPPED: {msg}");
        }
        return;
    }
    let home_secret = w.home.join("somewhere/secret.txt");
    let beside_secret = root.join("secret.txt");
    std::fs::write(&home_secret, "secret\n").expect("secret");
    std::fs::write(&beside_secret, "secret\n").expect("secret");
    let tools = root.join("tools");
    std::fs::create_dir_all(tools.join("bin")).expect("bin");
    std::fs::create_dir_all(tools.join("lib")).expect("lib");
    std::fs::write(tools.join("lib/style.sh"), "echo style ok\n").expect("lib");
    let style = tools.join("bin/style");
    std::fs::write(
        &style,
        "#!/bin/sh\n. \"$(dirname \"$0\")/../lib/style.sh\"\n",
    )
    .expect("style");
    std::fs::set_permissions(&style, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("mode");
    let python = venv.join("bin/python");
    let runs = format!(
        "{} -c 'import sys; print(sys.prefix)' && {}",
        python.display(),
        style.display()
    );
    let Some(mut c) = w.contained() else {
        return;
    };
    // Before: out of the check's sight.
    for program in [&python, &style] {
        let o = w.run(&c, &program.display().to_string());
        assert_eq!(
            o.end,
            End::Exited(127),
            "the attack: {}",
            o.combined_tail_text()
        );
    }
    let mut world = w.world();
    world.programs = [
        python.clone(),
        std::fs::canonicalize(&python).expect("base interpreter"),
        style.clone(),
    ]
    .into();
    keep_programs(c.0.sandbox.as_mut().expect("a sandbox"), &world);
    let o = w.run(&c, &runs);
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert_eq!(
        stdout(&o),
        format!("{}\nstyle ok\n", venv.display()),
        "{}",
        o.combined_tail_text()
    );
    // Nothing beside them, and nothing of them writable.
    for look in [
        format!("cat {}", home_secret.display()),
        format!("cat {}", beside_secret.display()),
        format!("touch {}/planted", venv.join("bin").display()),
        format!("touch {}/planted", tools.join("lib").display()),
    ] {
        let o = w.run(&c, &look);
        assert_ne!(o.end, End::Exited(0), "{look} worked");
    }
    // HOME shows only what is kept: `somewhere` holds the virtualenv alone.
    let o = w.run(&c, &format!("ls {}/somewhere", w.home.display()));
    assert_eq!(stdout(&o), "myenv\n", "{}", o.combined_tail_text());
    assert!(!venv.join("bin/planted").exists() && !tools.join("lib/planted").exists());
}

/// Caches under HOME (`~/.cache`: Go's build cache, pip's) are read warm and written
/// copy-on-write: a check that needs to write its cache works, and what it wrote is gone after
/// it (no way to poison a later run). Before, a check wrote the user's cache for good.
#[test]
fn a_check_writes_the_caches_copy_on_write() {
    let w = World::new();
    let cache = w.home.join(".cache");
    std::fs::create_dir_all(cache.join("go-build")).expect("mkdir");
    std::fs::write(cache.join("go-build/warm"), "warm\n").expect("warm");
    let script = format!(
        "cat {c}/go-build/warm && echo poisoned > {c}/go-build/warm && mkdir -p {c}/pip && echo x > {c}/pip/new && cat {c}/go-build/warm",
        c = cache.display()
    );
    let o = w.run(&w.before(), &script);
    assert_eq!(o.end, End::Exited(0));
    assert_eq!(
        std::fs::read_to_string(cache.join("go-build/warm")).expect("read"),
        "poisoned\n",
        "the attack"
    );
    std::fs::write(cache.join("go-build/warm"), "warm\n").expect("warm");
    std::fs::remove_dir_all(cache.join("pip")).expect("rm");
    let Some(c) = w.contained() else { return };
    let o = w.run(&c, &script);
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert_eq!(stdout(&o), "warm\npoisoned\n");
    assert_eq!(
        std::fs::read_to_string(cache.join("go-build/warm")).expect("read"),
        "warm\n"
    );
    assert!(!cache.join("pip").exists());
}

/// A directory of pawl's own under its hidden state (the room's Go build cache) is seen by a
/// check copy-on-write at another path in its private `/tmp` (`SandboxSpec::cow_binds`): its
/// entries are read there, a write succeeds and is gone with the check, the directory is never
/// written, and the rest of pawl's state stays hidden. Bound plainly (`binds`, pawl's own
/// build) the same directory is written.
#[test]
fn a_copy_on_write_bind_is_read_there_and_never_written() {
    let w = World::new();
    let cache = w.home.join(".local/state/pawl/rooms/repo-1/go-build");
    std::fs::create_dir_all(cache.join("ab")).expect("mkdir");
    std::fs::write(cache.join("ab/entry-a"), "warm\n").expect("warm");
    let at = "/tmp/pawl-go-build";
    let script = format!(
        "cat {at}/ab/entry-a && echo poisoned > {at}/ab/entry-a && mkdir -p {at}/cd && echo x > {at}/cd/new && cat {at}/ab/entry-a && cat {} || echo hidden",
        w.key.display()
    );
    let Some(mut c) = w.contained() else { return };
    let bind = sandbox::Bind {
        source: cache.clone(),
        target: at.into(),
    };
    let mut plain = c.clone();
    c.0.sandbox
        .as_mut()
        .expect("a sandbox")
        .cow_binds
        .push(bind.clone());
    let o = w.run(&c, &script);
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert_eq!(stdout(&o), "warm\npoisoned\nhidden\n");
    assert_eq!(
        std::fs::read_to_string(cache.join("ab/entry-a")).expect("read"),
        "warm\n"
    );
    assert!(!cache.join("cd").exists());
    // pawl's own build: the plain bind writes it.
    plain
        .0
        .sandbox
        .as_mut()
        .expect("a sandbox")
        .binds
        .push(bind);
    let o = w.run(
        &plain,
        &format!("mkdir -p {at}/cd && echo built > {at}/cd/new"),
    );
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert_eq!(
        std::fs::read_to_string(cache.join("cd/new")).expect("read"),
        "built\n"
    );
    // A source that is not there is seen empty and writable (a cold cache), never made.
    let missing = w.home.join(".local/state/pawl/rooms/repo-2/go-build");
    let mut cold = c.clone();
    cold.0.sandbox.as_mut().expect("a sandbox").cow_binds = vec![sandbox::Bind {
        source: missing.clone(),
        target: at.into(),
    }];
    let o = w.run(
        &cold,
        &format!("ls -A {at} && echo x > {at}/new && cat {at}/new"),
    );
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert_eq!(stdout(&o), "x\n");
    assert!(!missing.exists());
}

/// A repository and HOME under the machine's `/tmp` (a scratch clone, a CI job, a test): the
/// check's `/tmp` is still its own — before, the machine's `/tmp` was kept for such a
/// repository, shared by every check and the agent and writable, HOME with it (a check planted
/// `~/.local/bin/git`, and a file it left in `/tmp` was there for the next check). The room is
/// seen at the repository's path inside the private `/tmp`, HOME read-only (its caches
/// copy-on-write), pawl's state hidden.
#[test]
fn a_world_under_tmp_gets_a_private_tmp_all_the_same() {
    let w = World::new_in(Path::new("/tmp"));
    assert!(w.repo.starts_with("/tmp") && w.home.starts_with("/tmp"));
    let cache = w.home.join(".cache");
    std::fs::create_dir_all(&cache).expect("mkdir");
    std::fs::write(cache.join("warm"), "warm\n").expect("warm");
    let left = w
        .repo
        .with_file_name(format!("left-{}", std::process::id()));
    let shared = PathBuf::from(format!("/tmp/checkns-left-{}", std::process::id()));
    let git = w.home.join(".local/bin/git");
    let plant = format!(
        "echo left > {left} ; echo left > {shared} ; mkdir -p {bin} && echo evil > {git} ; \
         echo poisoned > {cache}/warm ; cat value.txt",
        left = left.display(),
        shared = shared.display(),
        bin = git.parent().expect("bin").display(),
        git = git.display(),
        cache = cache.display(),
    );
    let look = format!(
        "cat {left} {shared} ; cat {key} ; cat {cache}/warm ; cat {repo}/value.txt",
        left = left.display(),
        shared = shared.display(),
        key = w.key.display(),
        cache = cache.display(),
        repo = w.repo.display(),
    );
    // Before (as a repository under /tmp got it): the check's writes stay, for the next one.
    let o = w.run(&w.before(), &plant);
    assert_eq!(o.end, End::Exited(0), "{o:?}");
    assert!(
        left.exists() && shared.exists() && git.exists(),
        "the attack"
    );
    for p in [&left, &shared, &git] {
        std::fs::remove_file(p).expect("rm");
    }
    std::fs::write(cache.join("warm"), "warm\n").expect("warm");
    // Without namespaces the machine's temp dirs are the check's, a HOME there with them: the
    // record says so.
    let wanted = LaunchSpec {
        namespaces: false,
        sandbox: Some(check_sandbox(&w.world())),
    };
    let e = sandbox::probe(&launcher(), &wanted).expect("probe runs");
    let gaps = e.check_gaps(&e.allowed(&wanted));
    assert!(
        gaps.iter()
            .any(|g| g.contains("shared with every check and the agent")
                && g.contains("HOME under /tmp")),
        "{gaps:?}"
    );
    let Some(c) = w.contained() else { return };
    let o = w.run(&c, &plant);
    assert_eq!(stdout(&o), "room\n", "{}", o.combined_tail_text());
    assert!(
        !left.exists(),
        "the check wrote beside the repository in the machine's /tmp"
    );
    assert!(!shared.exists(), "the check wrote the machine's /tmp");
    assert!(!git.exists(), "the check planted ~/.local/bin/git");
    assert_eq!(
        std::fs::read_to_string(cache.join("warm")).expect("read"),
        "warm\n"
    );
    // The next check sees nothing the first left; HOME's cache is warm, the key hidden, the
    // room at the repository's path.
    let o = w.run(&c, &look);
    assert_eq!(stdout(&o), "warm\nroom\n", "{}", o.combined_tail_text());
    // And what a check writes in its private /tmp works (temp files, sockets of its own).
    let o = w.run(
        &c,
        "d=$(mktemp -d) && echo t > $d/f && cat $d/f && touch /tmp/x /var/tmp/y",
    );
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    assert_eq!(stdout(&o), "t\n");
}

/// The toolchain's own `bin` (rustc's sysroot), so cargo runs without rustup's proxy (whose
/// state is under the real HOME, not the world's).
fn toolchain_bin() -> PathBuf {
    let out = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .expect("rustc --print sysroot");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("bin")
}

/// walkdir's flake (corpus/real/RESULTS.md): its tests name their temporary directories by a
/// counter per process (`/tmp/rust-walkdir/0`), and nextest runs every test in a process of its
/// own, side by side, so two tests took the same directory and one removed it under the other.
/// A check's `/tmp` is its own, but shared by every process of the check. Played with real
/// cargo and two test binaries (cargo runs each in a process of its own): each takes
/// `$TMPDIR/rust-walkdir-0` exclusively. Without pawl's cargo runner the second finds it taken
/// (the flake, made certain); with it every test process has a temporary directory of its own.
#[test]
fn every_test_process_of_a_cargo_check_has_a_temporary_directory_of_its_own() {
    let w = World::new();
    // Its own workspace: the world may lie under pawl's own (CARGO_TARGET_TMPDIR in the checkout).
    let krate =
        "[package]\nname = \"tmpclash\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";
    std::fs::write(w.tree.join("Cargo.toml"), krate).expect("Cargo.toml");
    std::fs::create_dir_all(w.tree.join("src")).expect("src");
    std::fs::write(w.tree.join("src/lib.rs"), "").expect("lib.rs");
    std::fs::create_dir_all(w.tree.join("tests")).expect("tests");
    let test = "#[test]\nfn owns_its_tmp() {\n    let dir = std::env::temp_dir().join(\"rust-walkdir-0\");\n    std::fs::create_dir(&dir).expect(\"another test process has this temporary directory\");\n}\n";
    for t in ["a", "b"] {
        std::fs::write(w.tree.join(format!("tests/{t}.rs")), test).expect("test");
    }
    let Some(c) = w.contained() else { return };
    let script = format!(
        "unset CARGO_TARGET_DIR; PATH={}:/usr/bin:/bin CARGO_HOME=\"$PWD/.cargo-home\" cargo test -q --offline 2>&1",
        toolchain_bin().display()
    );
    // The flake, as checks ran before: the second test binary finds the directory taken.
    let o = w.run(&c, &script);
    assert_ne!(o.end, End::Exited(0), "the attack: {}", stdout(&o));
    assert!(
        stdout(&o).contains("another test process has this temporary directory"),
        "{}",
        stdout(&o)
    );
    // With the runner pawl gives a check (pawl-verify sets it on every contained check).
    let runner: String = pawl_process::sandbox::check::cargo_runner_vars(&launcher())
        .into_iter()
        .map(|(k, v)| format!("export {k}='{v}'; "))
        .collect();
    assert!(!runner.is_empty(), "no runner for this machine's triple");
    let o = w.run(&c, &format!("{runner}{script}"));
    assert_eq!(o.end, End::Exited(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("test result: ok"), "{}", stdout(&o));
}

/// pawl's own binary under /tmp (a fresh clone built by `mktemp -d`, an unpacked release): the
/// cargo runner a contained check gets names it, and the check's /tmp is private. The
/// launcher's directory is shown there read-only, or every cargo test binary fails to start
/// ("failed to exec … No such file or directory": six cargo checks failed in a /tmp clone's CI).
#[test]
fn the_cargo_runner_starts_when_pawl_itself_lies_under_tmp() {
    let w = World::new();
    let dir = tempfile::Builder::new()
        .prefix("pawl-bin-")
        .tempdir_in(std::env::temp_dir())
        .expect("tempdir");
    let exe = std::fs::canonicalize(dir.path())
        .expect("canonical")
        .join("pawl");
    std::fs::copy(launcher(), &exe).expect("copy the launcher");
    // What cargo runs for every test binary: the runner's words, then the binary.
    let (_, runner) = pawl_process::sandbox::check::cargo_runner_vars(&exe)
        .into_iter()
        .next()
        .expect("a runner");
    let script = format!("{runner} /bin/echo started");
    // Before: the world knows nothing of the launcher; its directory is gone with /tmp.
    let Some(c) = w.contained() else { return };
    let o = w.run(&c, &script);
    assert_ne!(o.end, End::Exited(0), "the attack: {}", stdout(&o));
    // The launcher named: its directory is seen, read-only.
    let world = CheckWorld {
        launcher: Some(exe.clone()),
        ..w.world()
    };
    let Some(c) = w.contained_in(&world) else {
        return;
    };
    let o = w.run(&c, &script);
    assert_eq!(o.end, End::Exited(0), "{o:?}");
    assert_eq!(stdout(&o).trim(), "started");
    let o = w.run(&c, &format!("echo x > {}.new", exe.display()));
    assert_ne!(
        o.end,
        End::Exited(0),
        "the launcher's directory is writable: {o:?}"
    );
    assert!(!exe.with_extension("new").exists());
}

/// The look of an unsandboxed process (`SandboxSpec::host_look`, issue 33's probe repeat): the
/// machine's pids (no pid namespace: the shell's pid is not a namespace's tiny one), the
/// machine's network interfaces (not `lo` alone) — while pawl's key stays hidden, the room stays
/// at the repository's path, writes stay in the room, and outbound TCP is refused (by Landlock
/// instead of an empty network namespace). And a leftover process ends with the check (the
/// launcher is its subreaper).
#[test]
fn a_check_that_looks_unsandboxed_keeps_the_sandboxs_walls() {
    let w = World::new();
    let Some((mut spec, cwd)) = w.contained() else {
        return;
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            use std::io::Write;
            let _ = (&s).write_all(b"outside");
        }
    });
    let script = format!(
        "echo pid=$$; ls /sys/class/net | tr '\\n' ' '; echo; {PYTHON} -c \"import socket; print('ifs=' + ','.join(n for _, n in socket.if_nameindex()))\"; cat value.txt; cat {key} 2>/dev/null; echo x > {outside} 2>/dev/null && echo wrote-outside; {PYTHON} -c \"import socket;s=socket.create_connection(('127.0.0.1',{port}),5);print(s.recv(64).decode())\" 2>/dev/null; (sleep 300 &) ; echo done",
        key = w.key.display(),
        outside = w.home.join("outside.txt").display(),
    );
    let sandboxed = w.run(&(spec.clone(), cwd.clone()), &script);
    let text = stdout(&sandboxed);
    assert!(
        text.contains("ifs=lo\n"),
        "sandboxed: only loopback: {text}"
    );
    let pid: u32 = text
        .lines()
        .find_map(|l| l.strip_prefix("pid="))
        .and_then(|p| p.trim().parse().ok())
        .expect("pid");
    assert!(pid < 10, "sandboxed: a pid namespace's pid: {text}");
    if let Some(s) = spec.sandbox.as_mut() {
        s.host_look = true;
        s.deny_tcp = true;
        s.private_network = false;
    }
    let o = w.run(&(spec, cwd), &script);
    assert_eq!(o.end, End::Exited(0), "{}", o.combined_tail_text());
    let text = stdout(&o);
    let pid: u32 = text
        .lines()
        .find_map(|l| l.strip_prefix("pid="))
        .and_then(|p| p.trim().parse().ok())
        .expect("pid");
    assert!(pid > 1, "{text}");
    assert_ne!(pid, 2, "{text}");
    let ifs = text
        .lines()
        .find_map(|l| l.strip_prefix("ifs="))
        .expect("interfaces");
    assert_ne!(ifs, "lo", "the machine's interfaces: {text}");
    assert!(
        text.contains("room\n"),
        "the room at the repository's path: {text}"
    );
    assert!(!text.contains("SECRET-KEY"), "{text}");
    assert!(!text.contains("wrote-outside"), "{text}");
    assert!(!w.home.join("outside.txt").exists());
    assert!(!text.contains("outside"), "outbound TCP refused: {text}");
    assert!(text.contains("done"), "{text}");
}
