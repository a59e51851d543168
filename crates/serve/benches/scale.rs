//! `cargo bench -p pawl-serve --bench scale`: pawl serve at scale. Builds a store with 1,000
//! runs and 1,000,000 events (through the store's own typed methods, signed like any pawl
//! store; it takes a while), serves it, and prints:
//!
//! - listing runs (`GET /api/v1/runs`, all 1,000 considered): right at start, the first time
//!   after start, and warm;
//! - an event page (`GET runs/{id}/events?after=…&limit=100`) at the start and at the end of
//!   the log, for the first run and for the last (whose events are the last million's end);
//! - appending to one run with 0 and with 50 stream clients following it, and how long the
//!   last event took to reach every client.
//!
//! A bench prints figures; it asserts nothing about time (the machine's load is not ours).
//! `PAWL_BENCH_EVENTS` and `PAWL_BENCH_RUNS` make it smaller.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use pawl_core::EventKind;
use pawl_core::model::Driver;
use pawl_core::record::RunSettings;
use pawl_serve::{Options, Server};
use pawl_store::{NewRun, Store};

const KEY: [u8; 32] = [9; 32];

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn get(host: &str, token: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(host).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let status = raw
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, raw)
}

fn timed(host: &str, token: &str, path: &str, times: usize) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..times {
        let t = Instant::now();
        let (status, body) = get(host, token, path);
        assert_eq!(status, 200, "{path}: {body}");
        best = best.min(t.elapsed());
    }
    best
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let runs = env_num("PAWL_BENCH_RUNS", 1_000);
    let events = env_num("PAWL_BENCH_EVENTS", 1_000_000);
    let per_run = events / runs;
    let state = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join(".pawl")).unwrap();
    let mut store = Store::open_keyed(&repo.path().join(".pawl/pawl.db"), KEY).unwrap();
    let built = Instant::now();
    let mut ids = Vec::new();
    for i in 0..runs {
        let new = NewRun {
            goal: format!("goal {i}"),
            driver: Driver::Headless,
            mode: None,
            settings: RunSettings::default(),
            branch: None,
            pre_run_commit: None,
        };
        // A run id is its second and a 16-bit salt: runs made this fast can meet one; a new
        // salt is drawn per attempt.
        let run = (0..5)
            .find_map(|_| store.create_run(&new).ok())
            .expect("a run");
        for j in 0..per_run.saturating_sub(3) {
            store
                .append_event(Some(&run.id), EventKind::Note, serde_json::json!({"j": j}))
                .unwrap();
        }
        if i + 1 < runs {
            store.cancel_run(&run.id).unwrap();
        }
        ids.push(run.id);
    }
    let total = store.last_event_seq().unwrap();
    println!(
        "store: {runs} runs, {total} events, built in {:.0} s",
        built.elapsed().as_secs_f64()
    );
    pawl_serve::registry::register(state.path(), repo.path()).unwrap();

    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let mut options = Options::new(state.path().to_path_buf(), Some(KEY));
    options.poll = Duration::from_millis(20);
    let server = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let server = Server::bind(options).await.unwrap();
            ready_tx.send(server.ready().clone()).unwrap();
            server
                .run(async move {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap();
        });
    });
    let ready = ready_rx.recv().unwrap();
    let host = ready.url.trim_start_matches("http://").to_string();
    let token = std::fs::read_to_string(&ready.token_file)
        .unwrap()
        .trim()
        .to_string();

    // The first page at once (racing the daemon's start-up pass over every run), the second
    // page once that is done (its verdicts not cached either), then the first again (cached).
    let cold = timed(&host, &token, "/api/v1/runs?limit=100", 1);
    std::thread::sleep(Duration::from_secs(3));
    let settled = timed(&host, &token, "/api/v1/runs?limit=100&offset=100", 1);
    let warm = timed(&host, &token, "/api/v1/runs?limit=100", 10);
    println!(
        "list runs ({runs} runs): first page right at start {} · another page, first time, after start {} · warm best of 10 {}",
        ms(cold),
        ms(settled),
        ms(warm)
    );

    let first = &ids[0];
    let last = ids.last().unwrap();
    let first_events = store.run_events_after(first, 0, usize::MAX).unwrap();
    let last_events = store.run_events_after(last, 0, usize::MAX).unwrap();
    let near_end = |v: &Vec<pawl_core::record::Event>| {
        v.get(v.len().saturating_sub(101))
            .map(|e| e.seq)
            .unwrap_or(0)
    };
    for (name, id, after) in [
        ("first run, start of its log", first, 0),
        ("first run, end of its log", first, near_end(&first_events)),
        (
            "last run, start of its log (seq near the end of the whole log)",
            last,
            0,
        ),
        ("last run, end of its log", last, near_end(&last_events)),
    ] {
        let d = timed(
            &host,
            &token,
            &format!("/api/v1/runs/{id}/events?after={after}&limit=100"),
            10,
        );
        println!("event page of 100 — {name}: best of 10 {}", ms(d));
    }

    // Appending to the live run with 0, then 50 clients following it.
    let n = 500;
    for clients in [0usize, 50] {
        let mut streams = Vec::new();
        for _ in 0..clients {
            let mut s = TcpStream::connect(&host).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
            write!(
                s,
                "GET /api/v1/runs/{last}/events/stream HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\r\n"
            )
            .unwrap();
            let mut r = BufReader::new(s);
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            assert!(line.contains("200"), "{line}");
            streams.push(r);
        }
        let t = Instant::now();
        let mut seq = 0;
        for i in 0..n {
            seq = store
                .append_event(Some(last), EventKind::Note, serde_json::json!({"live": i}))
                .unwrap();
        }
        let write = t.elapsed();
        let readers: Vec<_> = streams
            .into_iter()
            .map(|mut r| {
                let want = format!("id: {seq}");
                std::thread::spawn(move || {
                    let mut line = String::new();
                    let mut got = 0;
                    loop {
                        line.clear();
                        if r.read_line(&mut line).unwrap_or(0) == 0 {
                            return got;
                        }
                        if line.starts_with("id:") {
                            got += 1;
                        }
                        if line.trim_end() == want {
                            return got;
                        }
                    }
                })
            })
            .collect();
        let delivered: Vec<usize> = readers.into_iter().map(|h| h.join().unwrap()).collect();
        let all = t.elapsed();
        println!(
            "append {n} events to the followed run with {clients:>2} stream clients: {} ({:.0} µs/event){}",
            ms(write),
            write.as_secs_f64() * 1e6 / n as f64,
            if clients > 0 {
                format!(
                    "; every client had all {n} after {} (min {} / max {} events delivered)",
                    ms(all),
                    delivered.iter().min().unwrap(),
                    delivered.iter().max().unwrap()
                )
            } else {
                String::new()
            }
        );
    }
    let _ = stop_tx.send(());
    server.join().unwrap();
}
