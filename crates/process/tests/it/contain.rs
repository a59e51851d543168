//! Containment and the sandbox, through the `pawl-step` launcher binary of this crate: every
//! process of a contained child ends with it (also when its parent is killed with -9), a
//! read-only path cannot be written, nothing inside can signal a process outside, and writes
//! land only in the writable roots.
//!
//! Each protection is shown twice: the attack succeeds without it, then fails with it.

#![allow(clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use pawl_process::sandbox::{self, LaunchSpec, SandboxSpec};
use pawl_process::{Command, Containment, End};

use crate::{PATIENCE, eventually, pid_alive, pid_gone, release, sh, wait_for_file_script};

/// How long a leftover writer, once let go, is given to write (it writes at once; the
/// uncontained control shows it does).
const WRITER_WOULD_HAVE_WRITTEN: Duration = Duration::from_secs(3);

fn launcher() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pawl-step"))
}

/// The spec with every layer this machine has; `None` (a loud skip, a failure under CI) when
/// the kernel has none of what the test needs.
fn full(sandbox: Option<SandboxSpec>) -> Option<LaunchSpec> {
    let wanted = LaunchSpec {
        namespaces: true,
        sandbox,
    };
    let enforced = sandbox::probe(&launcher(), &wanted).expect("probe runs");
    // Containment alone needs the namespaces; a sandbox needs its mounts and Landlock too (with
    // no sandbox there is nothing to mount, and `mounts` stays false).
    let complete = enforced.namespaces
        && (wanted.sandbox.is_none()
            || (enforced.mounts && enforced.landlock && enforced.signal_scope));
    if !complete {
        let msg = format!("the kernel cannot contain here: {enforced:?}");
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        #[allow(clippy::print_stderr)]
        {
            eprintln!("SKIPPED: {msg}");
        }
        return None;
    }
    Some(enforced.allowed(&wanted))
}

fn contained(script: &str, spec: LaunchSpec) -> Command {
    let mut cmd = sh(script);
    cmd.contain(Containment {
        launcher: launcher(),
        spec,
        record_dir: None,
    });
    cmd
}

fn sandbox_for(dir: &Path, read_only: &[&Path]) -> SandboxSpec {
    let mut writable = sandbox::system_writable();
    writable.push(dir.to_path_buf());
    SandboxSpec {
        read_only: read_only.iter().map(|p| p.to_path_buf()).collect(),
        hidden: Vec::new(),
        writable,
        landlock: true,
        scope_signals: true,
        ..SandboxSpec::default()
    }
}

/// A writer that leaves the step's session and process group (`setsid`), double-forked, says
/// it runs (`started`), then writes `late` once the test lets it (`go`, created only after the
/// step has ended or its parent was killed: a writer still alive then would write).
fn escaping_writer(dir: &Path) -> String {
    let started = dir.join("started");
    let go = dir.join("go");
    let late = dir.join("late");
    format!(
        "(setsid sh -c 'touch {s}; {wait_go}; echo late > {l}' &) ; {wait}",
        s = started.display(),
        l = late.display(),
        wait_go = wait_for_file_script(&go).replace('\'', ""),
        wait = wait_for_file_script(&started),
    )
}

#[test]
fn a_setsid_double_forked_writer_dies_with_the_step() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = escaping_writer(dir.path());
    // The attack: without containment the writer outlives the step and writes.
    let outcome = sh(&script).run().expect("runs");
    assert_eq!(outcome.end, End::Exited(0));
    release(&dir.path().join("go"));
    assert!(
        eventually(PATIENCE, || dir.path().join("late").exists()),
        "the uncontained writer should have written"
    );
    for f in ["late", "started", "go"] {
        std::fs::remove_file(dir.path().join(f)).expect("rm");
    }

    let Some(spec) = full(None) else { return };
    let outcome = contained(&script, spec).run().expect("runs");
    assert_eq!(
        outcome.end,
        End::Exited(0),
        "{}",
        outcome.combined_tail_text()
    );
    assert!(dir.path().join("started").exists());
    std::thread::sleep(WRITER_WOULD_HAVE_WRITTEN);
    assert!(
        !dir.path().join("late").exists(),
        "a process of the step wrote after it ended"
    );
}

#[test]
fn without_namespaces_the_subreaper_ends_the_writer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = LaunchSpec {
        namespaces: false,
        sandbox: None,
    };
    let outcome = contained(&escaping_writer(dir.path()), spec)
        .run()
        .expect("runs");
    assert_eq!(
        outcome.end,
        End::Exited(0),
        "{}",
        outcome.combined_tail_text()
    );
    std::thread::sleep(WRITER_WOULD_HAVE_WRITTEN);
    assert!(!dir.path().join("late").exists());
}

#[test]
fn killing_the_parent_with_sigkill_ends_the_whole_namespace() {
    let Some(spec) = full(None) else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    // The middle process plays pawl: it runs a contained step through pawl-process.
    let mut middle = std::process::Command::new(launcher())
        .arg("--run")
        .arg(serde_json::to_string(&spec).expect("json"))
        .args(["--", "sh", "-c"])
        .arg(escaping_writer(dir.path()))
        .spawn()
        .expect("middle starts");
    assert!(
        eventually(PATIENCE, || dir.path().join("started").exists()),
        "the writer never started"
    );
    middle.kill().expect("SIGKILL the middle");
    let _ = middle.wait();
    release(&dir.path().join("go"));
    std::thread::sleep(WRITER_WOULD_HAVE_WRITTEN);
    assert!(
        !dir.path().join("late").exists(),
        "a process of the step outlived its killed parent and wrote"
    );
}

#[test]
fn a_read_only_path_cannot_be_written_renamed_or_replaced() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    let state = tree.join(".pawl");
    std::fs::create_dir_all(&state).expect("mkdir");
    std::fs::write(state.join("pawl.db"), "original").expect("write");
    let attack = format!(
        "cd {tree}; echo forged > .pawl/pawl.db; rm -f .pawl/pawl.db; mv .pawl .pawl-old; \
         echo done > ok.txt",
        tree = tree.display()
    );
    let Some(spec) = full(Some(sandbox_for(&tree, &[&state]))) else {
        return;
    };
    let outcome = contained(&attack, spec).run().expect("runs");
    assert_eq!(
        outcome.end,
        End::Exited(0),
        "{}",
        outcome.combined_tail_text()
    );
    assert_eq!(
        std::fs::read_to_string(state.join("pawl.db")).expect("still there"),
        "original"
    );
    assert!(!tree.join(".pawl-old").exists());
    // The rest of the tree stays writable.
    assert_eq!(
        std::fs::read_to_string(tree.join("ok.txt")).expect("written"),
        "done\n"
    );
    let err = outcome.combined_tail_text();
    assert!(err.contains("Read-only file system"), "{err}");
}

/// Regression: the working directory was resolved before the mounts, so a relative path from it
/// (`echo forged > .pawl/pawl.db` in the tree) walked around every bind and wrote.
#[test]
fn a_read_only_path_holds_for_relative_paths_from_the_working_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    let state = tree.join(".pawl");
    std::fs::create_dir_all(&state).expect("mkdir");
    std::fs::write(state.join("pawl.db"), "original").expect("write");
    let Some(spec) = full(Some(sandbox_for(&tree, &[&state]))) else {
        return;
    };
    let mut cmd = contained("echo forged > .pawl/pawl.db; echo new > .pawl/new", spec);
    cmd.current_dir(&tree);
    cmd.run().expect("runs");
    assert_eq!(
        std::fs::read_to_string(state.join("pawl.db")).expect("read"),
        "original"
    );
    assert!(!state.join("new").exists());
}

#[test]
fn a_parent_directory_of_a_protected_path_cannot_be_swapped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    let hooks = tree.join(".git/hooks");
    std::fs::create_dir_all(&hooks).expect("mkdir");
    let attack = format!(
        "cd {tree}; mv .git .git-old; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit",
        tree = tree.display()
    );
    let Some(spec) = full(Some(sandbox_for(&tree, &[&hooks]))) else {
        return;
    };
    contained(&attack, spec).run().expect("runs");
    assert!(!tree.join(".git-old").exists());
    assert!(!hooks.join("pre-commit").exists());
}

#[test]
fn nothing_inside_can_signal_a_process_outside() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("never");
    // The victim plays pawl: a process outside the step.
    let mut victim = std::process::Command::new("sh")
        .arg("-c")
        .arg(wait_for_file_script(&marker))
        .spawn()
        .expect("victim");
    let pid = victim.id();
    let attack = format!("kill -9 {pid}; kill -9 -1; exit 0");
    for namespaces in [true, false] {
        let Some(mut spec) = full(Some(sandbox_for(dir.path(), &[]))) else {
            release(&marker);
            let _ = victim.wait();
            return;
        };
        spec.namespaces = namespaces;
        let outcome = contained(&attack, spec).run().expect("runs");
        assert!(
            matches!(outcome.end, End::Exited(_) | End::Signalled(_)),
            "{:?}",
            outcome.end
        );
        assert!(
            pid_alive(pid),
            "the sandbox killed a process outside it (namespaces: {namespaces})"
        );
    }
    release(&marker);
    let _ = victim.wait();
    assert!(pid_gone(pid));
}

#[test]
fn writes_land_only_in_the_writable_roots() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("tree");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&tree).expect("mkdir");
    std::fs::create_dir_all(&outside).expect("mkdir");
    let script = format!(
        "echo a > {tree}/a; echo b > {outside}/b; echo d > /dev/null && echo null-ok",
        tree = tree.display(),
        outside = outside.display(),
    );
    // The attack works without the sandbox.
    sh(&script).run().expect("runs");
    assert!(outside.join("b").is_file());
    std::fs::remove_file(outside.join("b")).expect("rm");
    // Only the tree and the device files are writable (`outside` lies beside the tree, both
    // in the temporary directory, which is not writable here).
    let mut spec = sandbox_for(&tree, &[]);
    spec.writable
        .retain(|w| w.starts_with("/dev") || w == &tree);
    let Some(spec) = full(Some(spec)) else { return };
    let outcome = contained(&script, spec).run().expect("runs");
    assert!(tree.join("a").is_file(), "{}", outcome.combined_tail_text());
    assert!(
        !outside.join("b").exists(),
        "wrote outside the writable roots"
    );
    assert!(outcome.combined_tail_text().contains("null-ok"));
}

#[test]
fn the_tree_and_the_temporary_directory_stay_writable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tmp_file = PathBuf::from("/tmp").join(format!("pawl-contain-{}", std::process::id()));
    let script = format!(
        "echo a > {tree}/a && echo c > {tmp} && mkdir {tree}/sub && echo ok",
        tree = dir.path().display(),
        tmp = tmp_file.display()
    );
    let Some(spec) = full(Some(sandbox_for(dir.path(), &[]))) else {
        return;
    };
    let outcome = contained(&script, spec).run().expect("runs");
    assert_eq!(
        outcome.end,
        End::Exited(0),
        "{}",
        outcome.combined_tail_text()
    );
    assert!(dir.path().join("a").is_file() && dir.path().join("sub").is_dir());
    assert_eq!(std::fs::read_to_string(&tmp_file).expect("written"), "c\n");
    let _ = std::fs::remove_file(&tmp_file);
}

#[test]
fn a_missing_program_is_still_not_found() {
    let Some(spec) = full(None) else { return };
    let err = contained("true", spec.clone())
        .current_dir("/")
        .run()
        .map(|_| ())
        .and_then(|()| {
            let mut cmd = Command::new("pawl-no-such-program-xyz");
            cmd.contain(Containment {
                launcher: launcher(),
                spec,
                record_dir: None,
            });
            cmd.run().map(|_| ())
        })
        .expect_err("must fail");
    assert!(err.is_not_found(), "{err:?}");
}

#[test]
fn the_agent_sees_its_exit_code_and_its_death_signal() {
    let Some(spec) = full(None) else { return };
    let outcome = contained("exit 7", spec.clone()).run().expect("runs");
    assert_eq!(outcome.end, End::Exited(7));
    let outcome = contained("kill -SEGV $$", spec).run().expect("runs");
    assert_eq!(outcome.end, End::Signalled(11));
}

#[test]
fn a_leftover_launcher_of_a_dead_pawl_is_ended_by_the_next() {
    let Some(spec) = full(None) else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let records = dir.path().join("steps");
    let marker = dir.path().join("never");
    let mut cmd = sh(&wait_for_file_script(&marker));
    cmd.contain(Containment {
        launcher: launcher(),
        spec,
        record_dir: Some(records.clone()),
    });
    let running = cmd.spawn().expect("spawns");
    let pid = running.pid();
    let record = records.join(format!("{pid}.json"));
    assert!(record.is_file());
    // Its owner (this test process) is alive: the record is left alone.
    assert!(sandbox::end_leftovers(&records).is_empty());
    assert!(pid_alive(pid));
    // A record whose owner is gone names a leftover: forge one with a dead owner.
    let text = std::fs::read_to_string(&record).expect("read");
    let mut rec: serde_json::Value = serde_json::from_str(&text).expect("json");
    rec["owner"] = serde_json::json!(u32::MAX - 1);
    std::fs::write(&record, rec.to_string()).expect("write");
    assert_eq!(sandbox::end_leftovers(&records), vec![pid]);
    let outcome = running.wait().expect("ends");
    assert_eq!(outcome.end, End::Signalled(9));
    assert!(!record.exists());
}
