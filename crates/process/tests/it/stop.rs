//! Timeouts, idle timeouts, cancel handles and kill-on-drop: the whole group always goes.
//!
//! Upper bounds on durations are [`PATIENCE`]-sized: they only catch a stop that never came.
//! Where a test proves that a wait was *skipped*, the wait it skips is longer than that bound.

use std::sync::mpsc;
use std::time::Duration;

use pawl_process::{End, process_group_alive};

use crate::{PATIENCE, eventually, group_gone, pid_gone, sh, with_growing_limit};

#[test]
fn timeout_kills_the_child_and_its_grandchildren() {
    let (pgid, outcome, timeout) = with_growing_limit(Duration::from_millis(400), |timeout| {
        let running = sh("sleep 100 & sleep 100 & echo $!; wait")
            .timeout(timeout)
            .capture_stdout(true)
            .spawn()
            .expect("spawn");
        let pgid = running.pgid();
        let outcome = running.wait().expect("waits");
        // No pid printed: the timeout beat the shell's setup (load, not a bug); more time.
        let printed = outcome
            .stdout
            .full
            .as_ref()
            .is_some_and(|out| !out.is_empty());
        printed.then_some((pgid, outcome, timeout))
    });
    assert_eq!(outcome.end, End::TimedOut);
    assert!(outcome.duration >= timeout, "{:?}", outcome.duration);
    assert!(outcome.duration < PATIENCE, "{:?}", outcome.duration);
    assert!(group_gone(pgid), "group {pgid} still has live members");
    let grandchild: u32 = String::from_utf8_lossy(&outcome.stdout.full.expect("kept"))
        .trim()
        .parse()
        .expect("pid");
    assert!(pid_gone(grandchild), "grandchild {grandchild} survived");
}

#[test]
fn term_ignoring_child_gets_sigkill_after_grace() {
    let grace = Duration::from_millis(500);
    let (pgid, outcome, timeout) = with_growing_limit(Duration::from_millis(200), |timeout| {
        let running = sh("trap '' TERM; echo ready; while :; do sleep 0.05; done")
            .timeout(timeout)
            .grace(grace)
            .spawn()
            .expect("spawn");
        let pgid = running.pgid();
        let outcome = running.wait().expect("waits");
        // Without "ready" the SIGTERM came before the trap and killed the shell outright: the
        // timeout beat the shell's setup (load, not a bug); more time.
        (outcome.stdout.tail == b"ready\n").then_some((pgid, outcome, timeout))
    });
    assert_eq!(outcome.end, End::TimedOut);
    assert_eq!(
        outcome.status,
        Some(End::Signalled(9)),
        "SIGTERM must have been ignored"
    );
    assert!(
        outcome.duration >= timeout + grace,
        "grace not honoured: {:?}",
        outcome.duration
    );
    assert!(outcome.duration < PATIENCE, "{:?}", outcome.duration);
    assert!(group_gone(pgid), "group {pgid} still has live members");
}

#[test]
fn well_behaved_child_ends_on_sigterm_without_waiting_for_grace() {
    let timeout = Duration::from_millis(100);
    let outcome = sh("sleep 100")
        .timeout(timeout)
        // Longer than PATIENCE: ending below that bound proves the grace was not waited out.
        .grace(2 * PATIENCE)
        .run()
        .expect("runs");
    assert_eq!(outcome.end, End::TimedOut);
    assert_eq!(
        outcome.status,
        Some(End::Signalled(15)),
        "SIGTERM, not the SIGKILL after the grace, must have ended it"
    );
    assert!(outcome.duration >= timeout, "{:?}", outcome.duration);
    assert!(outcome.duration < PATIENCE, "{:?}", outcome.duration);
}

#[test]
fn idle_timeout_fires_when_output_stops() {
    let (outcome, idle) = with_growing_limit(Duration::from_millis(300), |idle| {
        let outcome = sh("echo hello; sleep 100")
            .idle_timeout(idle)
            .run()
            .expect("runs");
        // No "hello": the idle timeout beat the shell's first line (load, not a bug); more time.
        (!outcome.stdout.tail.is_empty()).then_some((outcome, idle))
    });
    assert_eq!(outcome.end, End::IdleTimedOut);
    assert_eq!(outcome.stdout.tail, b"hello\n");
    assert!(outcome.duration >= idle, "{:?}", outcome.duration);
    assert!(outcome.duration < PATIENCE, "{:?}", outcome.duration);
}

#[test]
fn steady_output_keeps_idle_timeout_away() {
    // A tick every 0.1 s for at least 3 s against a 2 s idle timeout: the run outlives the idle
    // timeout only because the ticks keep resetting it, and a gap would have to be 20 times
    // longer than paced to let it fire.
    let idle = Duration::from_secs(2);
    let outcome = sh("i=0; while [ $i -lt 30 ]; do echo tick; sleep 0.1; i=$((i+1)); done")
        .idle_timeout(idle)
        .run()
        .expect("runs");
    assert_eq!(outcome.end, End::Exited(0));
    assert!(outcome.duration > idle, "{:?}", outcome.duration);
}

#[test]
fn cancel_handle_stops_from_another_thread() {
    let running = sh("sleep 100").spawn().expect("spawn");
    let pgid = running.pgid();
    let cancel = running.cancel_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        cancel.cancel();
        cancel.cancel();
    });
    let outcome = running.wait().expect("waits");
    stopper.join().expect("thread");
    assert_eq!(outcome.end, End::Stopped);
    assert_eq!(outcome.status, Some(End::Signalled(15)));
    assert!(group_gone(pgid), "group {pgid} still has live members");
}

#[test]
fn kill_now_skips_the_grace_period() {
    let (tx, rx) = mpsc::channel();
    let running = sh("trap '' TERM; echo ready; while :; do sleep 0.05; done")
        // Longer than PATIENCE: ending below that bound proves the grace was skipped.
        .grace(2 * PATIENCE)
        .line_sink(tx)
        .spawn()
        .expect("spawn");
    let ready = rx.recv_timeout(PATIENCE).expect("the trap is installed");
    assert_eq!(ready.text(), "ready");
    let cancel = running.cancel_handle();
    cancel.cancel();
    std::thread::sleep(Duration::from_millis(100));
    cancel.kill_now();
    let outcome = running.wait().expect("waits");
    assert_eq!(outcome.end, End::Stopped);
    assert_eq!(outcome.status, Some(End::Signalled(9)));
    assert!(outcome.duration < PATIENCE, "{:?}", outcome.duration);
    assert!(cancel.is_finished());
    // Harmless after the end.
    cancel.cancel();
    cancel.kill_now();
}

#[test]
fn dropping_the_handle_kills_the_group() {
    let running = sh("sleep 100 & sleep 100").spawn().expect("spawn");
    let pgid = running.pgid();
    assert!(process_group_alive(pgid));
    drop(running);
    assert!(group_gone(pgid), "group {pgid} survived the drop");
}

#[test]
fn kill_on_drop_false_lets_the_child_finish() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("done");
    let running = sh(&format!("sleep 0.3; touch '{}'", marker.display()))
        .kill_on_drop(false)
        .spawn()
        .expect("spawn");
    drop(running);
    assert!(eventually(PATIENCE, || marker.exists()));
}
