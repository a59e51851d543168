//! Live: event streams that resume without a gap, the monitor's stalls and notifications.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::time::Duration;

use pawl_core::EventKind;
use pawl_core::config::Dur;
use pawl_core::record::RunSettings;
use serde_json::json;

use crate::support::{self, start, start_with, wait_for};

fn note(store: &mut pawl_store::Store, run: &str, i: i64) -> i64 {
    store
        .append_event(Some(run), EventKind::Note, json!({"i": i}))
        .unwrap()
}

#[test]
fn a_run_stream_starts_with_new_events_and_resumes_from_last_event_id() {
    let d = start();
    let mut store = d.store();
    let other = support::new_run(&mut store, "other");
    store
        .set_run_status(
            &other.id,
            pawl_core::model::RunStatus::Stopped,
            Some(pawl_core::StopReason::MaxUsd),
        )
        .unwrap();
    let run = support::new_run(&mut store, "goal");
    let old = note(&mut store, &run.id, 0);
    let path = format!("/api/v1/runs/{}/events/stream", run.id);

    let mut s = d.stream(&path, &[]);
    assert!(s.status.contains("200"), "{}", s.status);
    // Written after the connection: only these arrive, and only this run's.
    note(&mut store, &other.id, 99);
    let first = note(&mut store, &run.id, 1);
    let e = s.next_event();
    assert_eq!(e.id, first.to_string());
    assert_eq!(e.data["data"]["i"], 1);
    assert_eq!(e.data["run_id"], run.id.as_str());
    drop(s);

    // Missed while disconnected: delivered on reconnect, in order, then live ones.
    let missed: Vec<i64> = (2..5).map(|i| note(&mut store, &run.id, i)).collect();
    let mut s = d.stream(&path, &[("Last-Event-ID", &first.to_string())]);
    for want in &missed {
        assert_eq!(s.next_event().id, want.to_string());
    }
    let live = note(&mut store, &run.id, 5);
    assert_eq!(s.next_event().id, live.to_string());

    // `?after=` reads from a given id too.
    let mut s = d.stream(&format!("{path}?after={old}"), &[]);
    assert_eq!(s.next_event().id, first.to_string());
}

#[test]
fn the_all_runs_stream_resumes_with_its_cursor() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "goal");
    let mut s = d.stream("/api/v1/events/stream", &[]);
    let a = note(&mut store, &run.id, 1);
    let e = s.next_event();
    assert_eq!(e.data["id"], a);
    let cursor = e.id.clone();
    drop(s);
    let b = note(&mut store, &run.id, 2);
    let mut s = d.stream("/api/v1/events/stream", &[("Last-Event-ID", &cursor)]);
    assert_eq!(s.next_event().data["id"], b);
}

#[test]
fn fifty_clients_follow_one_run() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "goal");
    let path = format!("/api/v1/runs/{}/events/stream", run.id);
    let mut clients: Vec<_> = (0..50).map(|_| d.stream(&path, &[])).collect();
    let ids: Vec<i64> = (0..20).map(|i| note(&mut store, &run.id, i)).collect();
    for c in &mut clients {
        for want in &ids {
            assert_eq!(c.next_event().id, want.to_string());
        }
    }
}

/// A local webhook receiver: the JSON bodies it was sent.
fn receiver() -> (String, std::sync::mpsc::Receiver<serde_json::Value>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            let mut reader = BufReader::new(conn);
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; len];
            let _ = reader.read_exact(&mut body);
            let _ = reader
                .get_mut()
                .write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
            if let Ok(v) = serde_json::from_slice(&body)
                && tx.send(v).is_err()
            {
                return;
            }
        }
    });
    (url, rx)
}

fn next_notice(rx: &std::sync::mpsc::Receiver<serde_json::Value>) -> serde_json::Value {
    rx.recv_timeout(Duration::from_secs(60))
        .expect("a notification")
}

#[test]
fn the_webhook_hears_a_stall_a_wait_and_an_end() {
    let (url, rx) = receiver();
    let d = start_with(|o| o.notify.webhook = Some(url.clone()));
    let mut store = d.store();
    let mut settings = RunSettings::default();
    settings.stall.idle_timeout = Dur(Duration::from_secs(2));
    let run = support::new_run_with(&mut store, "goal", settings);

    // Silent past its idle timeout: shown stalled, and the user is told.
    let n = next_notice(&rx);
    assert_eq!(n["kind"], "stalled", "{n}");
    assert_eq!(n["run"], run.id.as_str());
    assert_eq!(
        d.get(&format!("/api/v1/runs/{}", run.id)).json()["stalled"],
        true
    );
    assert_eq!(d.get("/api/v1/runs?status=stalled").json()["total"], 1);

    let b = store
        .add_blocker(&run.id, "credentials", pawl_core::model::Severity::High)
        .unwrap();
    store.await_user(&run.id, &b.id, "log in", None).unwrap();
    assert_eq!(next_notice(&rx)["kind"], "awaiting_user");

    store.cancel_run(&run.id).unwrap();
    let n = next_notice(&rx);
    assert_eq!(n["kind"], "ended", "{n}");
    assert!(n["message"].as_str().unwrap().contains("cancelled"), "{n}");
}

/// Each run's notices go where its own repository's `[notify]` says, not where the repository
/// the daemon started in says.
#[test]
fn each_repository_notifies_through_its_own_webhook() {
    let (url_a, rx_a) = receiver();
    let (url_b, rx_b) = receiver();
    let d = start();
    let other = tempfile::tempdir().unwrap();
    let mut store_b = support::make_repo(other.path());
    for (root, url) in [
        (d.repo_path(), &url_a),
        (other.path().to_path_buf(), &url_b),
    ] {
        std::fs::write(
            root.join("pawl.toml"),
            format!("[notify]\nwebhook = \"{url}\"\ndesktop = false\n"),
        )
        .unwrap();
    }
    pawl_serve::registry::register(d.state.path(), other.path()).unwrap();
    wait_for("the second repository to be served", || {
        d.get("/api/v1/repos").json()["repos"]
            .as_array()
            .is_some_and(|r| r.len() == 2)
    });

    let mut settings = RunSettings::default();
    settings.stall.idle_timeout = Dur(Duration::from_secs(1));
    let mut store_a = d.store();
    for (store, rx) in [(&mut store_a, &rx_a), (&mut store_b, &rx_b)] {
        let run = support::new_run_with(store, "goal", settings.clone());
        // Seen stalled (so the monitor knows it), then ended: both told to its repository's.
        for kind in ["stalled", "ended"] {
            if kind == "ended" {
                store.cancel_run(&run.id).unwrap();
            }
            let n = next_notice(rx);
            assert_eq!(n["kind"], kind, "{n}");
            assert_eq!(n["run"], run.id.as_str(), "{n}");
        }
    }

    // Neither receiver heard the other repository's run.
    assert!(rx_a.try_recv().is_err() && rx_b.try_recv().is_err());
}

#[test]
fn a_busy_run_is_not_stalled() {
    let d = start();
    let mut store = d.store();
    let mut settings = RunSettings::default();
    settings.stall.idle_timeout = Dur(Duration::from_secs(600));
    let run = support::new_run_with(&mut store, "goal", settings);
    wait_for("the run to be listed", || {
        d.get("/api/v1/runs").json()["total"] == 1
    });
    assert_eq!(
        d.get(&format!("/api/v1/runs/{}", run.id)).json()["stalled"],
        false
    );
}

#[test]
fn the_desktop_hears_through_notify_send() {
    // A stand-in for notify-send that records its arguments.
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("calls");
    let program = bin.path().join("notify-send");
    std::fs::write(
        &program,
        format!("#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{}'\n", log.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let d = start_with(|o| o.notify.desktop = Some(program.clone()));
    let mut store = d.store();
    let mut settings = RunSettings::default();
    settings.stall.idle_timeout = Dur(Duration::from_secs(1));
    let run = support::new_run_with(&mut store, "goal", settings);
    let seen = || std::fs::read_to_string(&log).unwrap_or_default();
    wait_for("notify-send to be called", || seen().contains("stalled"));
    let text = seen();
    assert!(text.contains(&format!("pawl: run {}", run.id)), "{text}");
    assert!(text.contains("--app-name=pawl"), "{text}");
}

/// The watcher (the store follower and the monitor) is background work: on Linux its thread runs
/// ten nice levels below the daemon's others, so a request — the dashboard's first listing while
/// the watcher's first pass reads every run — and the runs it follows get the CPU first.
#[cfg(target_os = "linux")]
#[test]
fn the_watcher_yields_the_cpu_to_requests() {
    let _d = start();
    let nice_of = |comm: &str| -> Option<i64> {
        for task in std::fs::read_dir("/proc/self/task").ok()? {
            let dir = task.ok()?.path();
            let name = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
            if name.trim() == comm {
                let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
                // Fields after the command's closing parenthesis; nice is field 19 of stat.
                let rest = stat.rsplit_once(')')?.1;
                return rest.split_whitespace().nth(16)?.parse().ok();
            }
        }
        None
    };
    let mut watcher = None;
    wait_for("the watcher thread", || {
        watcher = nice_of(pawl_serve::WATCHER);
        watcher.is_some()
    });
    let base = std::fs::read_to_string("/proc/self/stat")
        .unwrap()
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .nth(16)
        .unwrap()
        .parse::<i64>()
        .unwrap();
    assert_eq!(watcher, Some((base + 10).min(19)));
}
