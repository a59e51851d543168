//! What the child sees (stdin, environment, cwd) and how lines reach the caller.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use pawl_process::{Command, Stream};

use crate::sh;

#[test]
fn stdin_bytes_are_fed_then_closed() {
    let input: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let outcome = Command::new("cat")
        .stdin_bytes(input.clone())
        .capture_stdout(true)
        .timeout(Duration::from_secs(30))
        .run()
        .expect("runs");
    // `cat` only exits once stdin is closed, so success also proves the close.
    assert!(outcome.success());
    assert_eq!(outcome.stdout.full.as_deref(), Some(&input[..]));
}

#[test]
fn stdin_is_null_by_default() {
    let outcome = Command::new("cat")
        .timeout(Duration::from_secs(10))
        .run()
        .expect("runs");
    assert!(outcome.success());
    assert_eq!(outcome.stdout.total_bytes, 0);
}

#[test]
fn env_clear_passes_exactly_what_is_set() {
    let outcome = Command::new("/usr/bin/env")
        .env_clear()
        .env("PAWL_ONLY", "yes")
        .capture_stdout(true)
        .run()
        .expect("runs");
    assert_eq!(
        outcome.stdout.full.as_deref(),
        Some(&b"PAWL_ONLY=yes\n"[..])
    );
}

#[test]
fn env_allow_list_passes_named_variables_only() {
    let outcome = Command::new("/usr/bin/env")
        .env_allow(["PATH", "PAWL_SURELY_UNSET_VARIABLE"])
        .env("EXTRA", "1")
        .env_remove("EXTRA_NEVER_SET")
        .capture_stdout(true)
        .run()
        .expect("runs");
    let text = String::from_utf8(outcome.stdout.full.expect("kept")).expect("utf8");
    let mut names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|p| p.0)
        .collect();
    names.sort_unstable();
    let expected: Vec<&str> = if std::env::var_os("PATH").is_some() {
        vec!["EXTRA", "PATH"]
    } else {
        vec!["EXTRA"]
    };
    assert_eq!(names, expected);
}

#[test]
fn env_remove_hides_an_inherited_variable() {
    // HOME is set for any test runner; removing it must make it invisible to the child.
    let outcome = sh("printf '%s' \"${HOME-unset}\"")
        .env_remove("HOME")
        .capture_stdout(true)
        .run()
        .expect("runs");
    assert_eq!(outcome.stdout.full.as_deref(), Some(&b"unset"[..]));
}

#[test]
fn current_dir_is_applied() {
    let dir = tempfile::tempdir().expect("tempdir");
    let outcome = sh("pwd -P")
        .current_dir(dir.path())
        .capture_stdout(true)
        .run()
        .expect("runs");
    let expected = dir.path().canonicalize().expect("canonical");
    let got = String::from_utf8(outcome.stdout.full.expect("kept")).expect("utf8");
    assert_eq!(got.trim_end(), expected.to_string_lossy());
}

/// Within a stream the order is exact. Across streams it is the order pawl observed, which
/// matches the write order only when the writes are paced (two pipes, two reader threads); the
/// sleeps make that so here.
#[test]
fn lines_arrive_in_order_per_stream_and_across_paced_streams() {
    let (tx, rx) = mpsc::channel();
    let outcome = sh(
        "i=0; while [ $i -lt 2000 ]; do echo \"o$i\"; i=$((i+1)); done; \
                      sleep 0.1; echo e1 >&2; sleep 0.1; echo o-after; sleep 0.1; printf 'e2-no-newline' >&2",
    )
    .line_sink(tx)
    .run()
    .expect("runs");
    assert!(outcome.success());
    let lines: Vec<(Stream, String)> = rx
        .iter()
        .map(|l| (l.stream, l.text().into_owned()))
        .collect();
    assert_eq!(lines.len(), 2003);
    for (i, (stream, text)) in lines.iter().take(2000).enumerate() {
        assert_eq!(
            (*stream, text.as_str()),
            (Stream::Stdout, format!("o{i}").as_str())
        );
    }
    assert_eq!(
        &lines[2000..],
        &[
            (Stream::Stderr, "e1".to_owned()),
            (Stream::Stdout, "o-after".to_owned()),
            (Stream::Stderr, "e2-no-newline".to_owned()),
        ]
    );
    let tail = outcome.combined_tail_text();
    assert!(
        tail.ends_with("err| e1\nout| o-after\nerr| e2-no-newline\n"),
        "{tail}"
    );
}

#[test]
fn lines_are_delivered_while_the_child_still_runs() {
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    let running = sh("echo first; sleep 2; echo second")
        .line_sink(tx)
        .spawn()
        .expect("spawn");
    let first = rx
        .recv_timeout(Duration::from_secs(1))
        .expect("first line before exit");
    assert_eq!(first.text(), "first");
    assert!(start.elapsed() < Duration::from_millis(1500));
    assert!(!running.is_finished());
    let outcome = running.wait().expect("waits");
    assert!(outcome.success());
    let rest: Vec<String> = rx.iter().map(|l| l.text().into_owned()).collect();
    assert_eq!(rest, ["second"]);
}
