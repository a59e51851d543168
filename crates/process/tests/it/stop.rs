//! Timeouts, idle timeouts, cancel handles and kill-on-drop: the whole group always goes.

use std::time::{Duration, Instant};

use pawl_process::{End, process_group_alive};

use crate::{group_gone, pid_alive, sh};

#[test]
fn timeout_kills_the_child_and_its_grandchildren() {
    let running = sh("sleep 100 & sleep 100 & echo $!; wait")
        .timeout(Duration::from_millis(400))
        .capture_stdout(true)
        .spawn()
        .expect("spawn");
    let pgid = running.pgid();
    let start = Instant::now();
    let outcome = running.wait().expect("waits");
    assert_eq!(outcome.end, End::TimedOut);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    assert!(
        group_gone(pgid, Duration::from_secs(2)),
        "group {pgid} still has members"
    );
    let grandchild: u32 = String::from_utf8_lossy(&outcome.stdout.full.expect("kept"))
        .trim()
        .parse()
        .expect("pid");
    assert!(!pid_alive(grandchild));
}

#[test]
fn term_ignoring_child_gets_sigkill_after_grace() {
    let grace = Duration::from_millis(500);
    let running = sh("trap '' TERM; echo ready; while :; do sleep 0.05; done")
        .timeout(Duration::from_millis(200))
        .grace(grace)
        .spawn()
        .expect("spawn");
    let pgid = running.pgid();
    let outcome = running.wait().expect("waits");
    assert_eq!(outcome.end, End::TimedOut);
    assert_eq!(
        outcome.status,
        Some(End::Signalled(9)),
        "SIGTERM must have been ignored"
    );
    assert!(
        outcome.duration >= Duration::from_millis(200) + grace,
        "{:?}",
        outcome.duration
    );
    assert!(
        outcome.duration < Duration::from_secs(5),
        "{:?}",
        outcome.duration
    );
    assert!(group_gone(pgid, Duration::from_secs(2)));
}

#[test]
fn well_behaved_child_ends_on_sigterm_without_waiting_for_grace() {
    let outcome = sh("sleep 100")
        .timeout(Duration::from_millis(100))
        .grace(Duration::from_secs(30))
        .run()
        .expect("runs");
    assert_eq!(outcome.end, End::TimedOut);
    assert!(
        outcome.duration < Duration::from_secs(5),
        "{:?}",
        outcome.duration
    );
}

#[test]
fn idle_timeout_fires_when_output_stops() {
    let outcome = sh("echo hello; sleep 100")
        .idle_timeout(Duration::from_millis(300))
        .run()
        .expect("runs");
    assert_eq!(outcome.end, End::IdleTimedOut);
    assert_eq!(outcome.stdout.tail, b"hello\n");
    assert!(outcome.duration < Duration::from_secs(5));
}

#[test]
fn steady_output_keeps_idle_timeout_away() {
    let outcome = sh("i=0; while [ $i -lt 10 ]; do echo tick; sleep 0.1; i=$((i+1)); done")
        .idle_timeout(Duration::from_millis(700))
        .run()
        .expect("runs");
    assert_eq!(outcome.end, End::Exited(0));
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
    assert!(group_gone(pgid, Duration::from_secs(2)));
}

#[test]
fn kill_now_skips_the_grace_period() {
    let running = sh("trap '' TERM; while :; do sleep 0.05; done")
        .grace(Duration::from_secs(60))
        .spawn()
        .expect("spawn");
    let cancel = running.cancel_handle();
    std::thread::sleep(Duration::from_millis(100));
    cancel.cancel();
    std::thread::sleep(Duration::from_millis(100));
    cancel.kill_now();
    let outcome = running.wait().expect("waits");
    assert_eq!(outcome.end, End::Stopped);
    assert_eq!(outcome.status, Some(End::Signalled(9)));
    assert!(outcome.duration < Duration::from_secs(10));
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
    assert!(
        group_gone(pgid, Duration::from_secs(2)),
        "group {pgid} survived the drop"
    );
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
    let start = Instant::now();
    while !marker.exists() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(marker.exists());
}
