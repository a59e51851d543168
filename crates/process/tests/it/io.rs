//! What the child sees (stdin, environment, cwd) and how lines reach the caller.

use std::sync::mpsc;

use pawl_process::{Command, Stream};

use crate::{PATIENCE, release, sh, wait_for_file_script};

#[test]
fn stdin_bytes_are_fed_then_closed() {
    let input: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let outcome = Command::new("cat")
        .stdin_bytes(input.clone())
        .capture_stdout(true)
        .timeout(PATIENCE)
        .run()
        .expect("runs");
    // `cat` only exits once stdin is closed, so success also proves the close.
    assert!(outcome.success());
    assert_eq!(outcome.stdout.full.as_deref(), Some(&input[..]));
}

#[test]
fn stdin_is_null_by_default() {
    let outcome = Command::new("cat").timeout(PATIENCE).run().expect("runs");
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
/// matches the write order only when the writes are paced (two pipes, two reader threads). Here
/// the pacing is a handshake, not a sleep: before switching streams the child waits until the
/// test has received the previous line.
#[test]
fn lines_arrive_in_order_per_stream_and_across_paced_streams() {
    let dir = tempfile::tempdir().expect("tempdir");
    let [m1, m2, m3] = ["m1", "m2", "m3"].map(|name| dir.path().join(name));
    let script = format!(
        "i=0; while [ $i -lt 2000 ]; do echo \"o$i\"; i=$((i+1)); done; \
         {}; echo e1 >&2; {}; echo o-after; {}; printf 'e2-no-newline' >&2",
        wait_for_file_script(&m1),
        wait_for_file_script(&m2),
        wait_for_file_script(&m3),
    );
    let (tx, rx) = mpsc::channel();
    let running = sh(&script).line_sink(tx).spawn().expect("spawn");
    let next = || {
        let line = rx.recv_timeout(PATIENCE).expect("a line");
        (line.stream, line.text().into_owned())
    };
    let mut lines: Vec<(Stream, String)> = (0..2000).map(|_| next()).collect();
    for marker in [&m1, &m2] {
        release(marker);
        lines.push(next());
    }
    release(&m3);
    let outcome = running.wait().expect("waits");
    assert!(outcome.success());
    lines.extend(rx.iter().map(|l| (l.stream, l.text().into_owned())));
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
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("go");
    let (tx, rx) = mpsc::channel();
    let running = sh(&format!(
        "echo first; {}; echo second",
        wait_for_file_script(&marker)
    ))
    .line_sink(tx)
    .spawn()
    .expect("spawn");
    let first = rx.recv_timeout(PATIENCE).expect("first line before exit");
    assert_eq!(first.text(), "first");
    // The child cannot get past the marker yet, so the line was delivered while it ran.
    assert!(!running.is_finished());
    release(&marker);
    let outcome = running.wait().expect("waits");
    assert!(outcome.success());
    let rest: Vec<String> = rx.iter().map(|l| l.text().into_owned()).collect();
    assert_eq!(rest, ["second"]);
}
