//! Both pipes drained concurrently, digests over the full output, the log file.

use sha2::{Digest as _, Sha256};

use crate::{PATIENCE, sh};

#[test]
fn megabytes_on_both_pipes_do_not_deadlock() {
    // Each stream carries 3 MB, far beyond a 64 KiB pipe buffer; a reader that drained one pipe
    // at a time would hang here with the child blocked on the other.
    let script = "i=0; while [ $i -lt 3 ]; do head -c 1000000 /dev/zero | tr '\\0' o; \
                  head -c 1000000 /dev/zero | tr '\\0' e >&2; i=$((i+1)); done";
    let outcome = sh(script).timeout(PATIENCE).run().expect("runs");
    assert!(outcome.success(), "{:?}", outcome.end);
    assert_eq!(outcome.stdout.total_bytes, 3_000_000);
    assert_eq!(outcome.stderr.total_bytes, 3_000_000);
    let expected_out: [u8; 32] = Sha256::digest(vec![b'o'; 3_000_000]).into();
    let expected_err: [u8; 32] = Sha256::digest(vec![b'e'; 3_000_000]).into();
    assert_eq!(outcome.stdout.sha256.0, expected_out);
    assert_eq!(outcome.stderr.sha256.0, expected_err);
    assert!(outcome.stdout.truncated);
    assert!(outcome.stdout.tail.len() <= pawl_process::Command::DEFAULT_TAIL_BYTES);
    assert!(outcome.stdout.tail.iter().all(|&b| b == b'o'));
}

#[test]
fn log_file_has_header_prefixed_lines_and_footer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("nested/logs/gate.log");
    let outcome = sh("echo one; echo two >&2; exit 4")
        .log_file(&log)
        .run()
        .expect("runs");
    assert_eq!(outcome.code(), Some(4));
    let text = std::fs::read_to_string(&log).expect("log written");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# pawl-process log");
    assert!(lines[1].starts_with("# argv: sh -c"), "{text}");
    assert!(lines.contains(&"out| one"), "{text}");
    assert!(lines.contains(&"err| two"), "{text}");
    assert!(
        lines
            .last()
            .is_some_and(|l| l.starts_with("# end: exited with code 4 after")),
        "{text}"
    );
}

/// The CPU time of the command and the children it waited for is recorded (the budgets bench
/// compares it with the same command's in place: a wall-clock time on a loaded machine is
/// mostly waiting for a core), in the outcome and in the log just before the footer.
#[test]
fn the_cpu_time_of_the_command_and_its_children_is_recorded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("gate.log");
    let outcome = sh("sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'; exit 3")
        .log_file(&log)
        .timeout(PATIENCE)
        .run()
        .expect("runs");
    assert_eq!(outcome.code(), Some(3));
    let cpu = outcome.cpu.expect("the cpu time is read");
    assert!(cpu > std::time::Duration::ZERO, "{cpu:?}");
    let text = std::fs::read_to_string(&log).expect("log written");
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    assert!(
        lines[n - 2].starts_with("# cpu: ")
            && lines[n - 1].starts_with("# end: exited with code 3"),
        "{text}"
    );
}

#[test]
fn full_stdout_capture_keeps_every_byte() {
    let outcome = sh("printf 'a\\0b\\0'; head -c 200000 /dev/zero")
        .capture_stdout(true)
        .tail_bytes(10)
        .run()
        .expect("runs");
    let full = outcome.stdout.full.expect("kept");
    assert_eq!(full.len(), 200_004);
    assert_eq!(&full[..4], b"a\0b\0");
    assert!(outcome.stdout.tail.len() <= 10);
}
