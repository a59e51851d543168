//! Spawn errors and how an exit is reported.

use std::time::Duration;

use pawl_process::{Command, End, Error};

use crate::{pid_alive, sh};

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
    assert!(crate::group_gone(pgid, Duration::from_secs(2)));
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
    let start = std::time::Instant::now();
    while pid_alive(pid) && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!pid_alive(pid), "background job {pid} survived");
    assert!(outcome.leaked);
}

#[test]
fn child_outlives_the_thread_that_spawned_it() {
    // Regression guard for PR_SET_PDEATHSIG being tied to the forking *thread*: spawning from a
    // thread that then exits must not kill the child.
    let running = std::thread::spawn(|| sh("sleep 1; echo alive").capture_stdout(true).spawn())
        .join()
        .expect("thread")
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        pid_alive(running.pid()),
        "child died with its spawning thread"
    );
    let outcome = running.wait().expect("waits");
    assert!(outcome.success(), "{:?}", outcome.end);
    assert_eq!(outcome.stdout.full.as_deref(), Some(&b"alive\n"[..]));
}
