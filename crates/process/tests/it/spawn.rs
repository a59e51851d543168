//! Spawn errors and how an exit is reported.

use std::time::Duration;

use pawl_process::{Command, End, Error};

use crate::{group_gone, pid_alive, pid_gone, release, sh, wait_for_file_script};

#[test]
fn missing_program_is_a_typed_not_found() {
    let err = Command::new("pawl-no-such-program-xyz")
        .run()
        .expect_err("must fail");
    assert!(err.is_not_found());
    match err {
        Error::NotFound { program } => assert_eq!(program, "pawl-no-such-program-xyz"),
        other => panic!("unexpected {other:?}"),
    }
    let err = Command::new("/no/such/dir/prog")
        .run()
        .expect_err("must fail");
    assert!(matches!(err, Error::NotFound { ref program } if program == "/no/such/dir/prog"));
}

#[test]
fn missing_cwd_is_not_mistaken_for_a_missing_program() {
    let err = Command::new("sh")
        .current_dir("/no/such/dir")
        .run()
        .expect_err("must fail");
    assert!(matches!(err, Error::CwdNotFound { .. }), "{err:?}");
}

#[test]
fn non_executable_file_is_permission_denied() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("script.sh");
    std::fs::write(&path, "#!/bin/sh\necho hi\n").expect("write");
    let err = Command::new(&path).run().expect_err("must fail");
    assert!(matches!(err, Error::PermissionDenied { .. }), "{err:?}");
}

#[test]
fn exit_code_is_reported() {
    let outcome = sh("exit 3").run().expect("runs");
    assert_eq!(outcome.end, End::Exited(3));
    assert_eq!(outcome.status, Some(End::Exited(3)));
    assert!(!outcome.success());
    assert!(!outcome.leaked);
}

#[test]
fn death_by_signal_is_reported() {
    let outcome = sh("kill -SEGV $$").run().expect("runs");
    assert_eq!(outcome.end, End::Signalled(libc_sigsegv()));
    assert_eq!(outcome.end.to_string(), "killed by signal 11 (SIGSEGV)");
}

fn libc_sigsegv() -> i32 {
    11
}

#[test]
fn leaked_background_job_is_killed_and_reported() {
    // The leader exits at once; its background child keeps stdout open.
    let running = sh("sleep 100 & echo started")
        .leak_grace(Duration::from_millis(100))
        .spawn();
    let running = running.expect("spawn");
    let pgid = running.pgid();
    let outcome = running.wait().expect("waits");
    assert_eq!(outcome.end, End::Exited(0));
    assert!(outcome.leaked);
    assert!(group_gone(pgid), "group {pgid} still has live members");
}

#[test]
fn silent_background_job_does_not_survive_the_run() {
    // Redirected away from our pipes, so only the final sweep can catch it.
    let running = sh("sleep 100 >/dev/null 2>&1 & echo $!")
        .capture_stdout(true)
        .spawn();
    let running = running.expect("spawn");
    let outcome = running.wait().expect("waits");
    let pid: u32 = String::from_utf8_lossy(&outcome.stdout.full.expect("kept"))
        .trim()
        .parse()
        .expect("pid");
    assert!(pid_gone(pid), "background job {pid} survived");
    assert!(outcome.leaked);
}

#[test]
fn child_outlives_the_thread_that_spawned_it() {
    // Regression guard for PR_SET_PDEATHSIG being tied to the forking *thread*: spawning from a
    // thread that then exits must not kill the child. The child cannot finish before the test
    // lets it (the marker), so a normal exit with its output proves it survived the thread.
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("go");
    let script = format!("{}; echo alive", wait_for_file_script(&marker));
    let running = std::thread::spawn(move || sh(&script).capture_stdout(true).spawn())
        .join()
        .expect("thread")
        .expect("spawn");
    // A parent-death signal fires as the thread exits; give a wrongly armed one time to land.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        pid_alive(running.pid()),
        "child died with its spawning thread"
    );
    release(&marker);
    let outcome = running.wait().expect("waits");
    assert_eq!(
        outcome.end,
        End::Exited(0),
        "child died with its spawning thread"
    );
    assert_eq!(outcome.stdout.full.as_deref(), Some(&b"alive\n"[..]));
}
