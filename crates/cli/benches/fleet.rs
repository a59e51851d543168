//! The fleet at scale (issue 20): 200 `pawl run` processes, each in its own clone, against one
//! PostgreSQL server on this machine, 20 of them killed -9 mid-step and resumed by new
//! processes; then the same outcome checks as the test (`tests/it/fleet_harness.rs`). Prints the
//! fleet's throughput, then the store's write latency under 200 concurrent writers (p50, p99)
//! against one writer alone, measured in the same run.
//!
//! `PAWL_TEST_PG_URL` names the server (`eval "$(bash scripts/pg.sh start)"`); `FLEET_RUNS`
//! changes the number of runs. Run with `cargo bench -p pawl-cli --bench fleet`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

#[path = "../tests/it/fleet_harness.rs"]
mod fleet_harness;

use std::time::{Duration, Instant};

use pawl_core::EventKind;
use pawl_store::{Location, Scope, Store};

fn pct(sorted: &[Duration], p: f64) -> Duration {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

/// `writers` threads, each with its own connection and run, each appending `per` events; the
/// latency of every write.
fn write_latency(url: &str, tag: &str, writers: usize, per: usize) -> (Vec<Duration>, Duration) {
    let started = Instant::now();
    let handles: Vec<_> = (0..writers)
        .map(|w| {
            let url = url.to_string();
            let clone = format!("bench:/{tag}/w{w}");
            std::thread::spawn(move || {
                let mut s = Store::open_at(
                    &Location::Postgres(url),
                    Box::new(pawl_store::SystemClock),
                    Some([9; 32]),
                )
                .unwrap();
                s.set_scope(Scope {
                    clone: Some(clone),
                    fleet: None,
                });
                let run = s.create_run(&new_run()).unwrap();
                let mut lat = Vec::with_capacity(per);
                for i in 0..per {
                    let t = Instant::now();
                    s.append_event(Some(&run.id), EventKind::Note, serde_json::json!({"i": i}))
                        .unwrap();
                    lat.push(t.elapsed());
                }
                lat
            })
        })
        .collect();
    let mut all: Vec<Duration> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    all.sort();
    (all, started.elapsed())
}

fn new_run() -> pawl_store::NewRun {
    pawl_store::NewRun {
        goal: "bench".into(),
        driver: pawl_core::model::Driver::Manual,
        mode: None,
        settings: pawl_core::record::RunSettings::default(),
        branch: None,
        pre_run_commit: None,
    }
}

fn main() {
    let n: usize = std::env::var("FLEET_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let Some(url) = fleet_harness::server_schema("bench") else {
        return;
    };
    if n > 0 {
        fleet_phase(&url, n);
    }

    latency_phase();
}

/// 200 `pawl run` processes, a tenth of them killed -9 mid-step and resumed.
fn fleet_phase(url: &str, n: usize) {
    let pawl = env!("CARGO_BIN_EXE_pawl").to_string();
    let victims: Vec<usize> = (0..n).filter(|i| i % 10 == 3).collect();
    let fleet = fleet_harness::setup(&pawl, url.to_string(), n, victims.clone());
    let outcome = fleet_harness::drive(&fleet, &pawl);
    fleet_harness::check(&fleet);
    let secs = outcome.wall.as_secs_f64();
    println!(
        "fleet: {} runs ({} killed -9 and resumed) in {secs:.1}s: {:.2} runs/s, {} events, {:.0} events/s — all checks hold",
        outcome.runs,
        victims.len(),
        outcome.runs as f64 / secs,
        outcome.events,
        outcome.events as f64 / secs
    );
}

/// The store's write latency: one writer alone, then many at once, each on its own connection.
fn latency_phase() {
    let Some(url) = fleet_harness::server_schema("latency") else {
        return;
    };
    let writers: usize = std::env::var("FLEET_WRITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let (one, one_wall) = write_latency(&url, "one", 1, 400);
    let (many, many_wall) = write_latency(&url, "many", writers, 20);
    println!(
        "writes, 1 writer: {} in {:.2}s ({:.0}/s), p50 {:.2} ms, p99 {:.2} ms",
        one.len(),
        one_wall.as_secs_f64(),
        one.len() as f64 / one_wall.as_secs_f64(),
        pct(&one, 0.5).as_secs_f64() * 1e3,
        pct(&one, 0.99).as_secs_f64() * 1e3
    );
    println!(
        "writes, {writers} writers: {} in {:.2}s ({:.0}/s), p50 {:.2} ms, p99 {:.2} ms (p50 ×{:.1} of one writer's)",
        many.len(),
        many_wall.as_secs_f64(),
        many.len() as f64 / many_wall.as_secs_f64(),
        pct(&many, 0.5).as_secs_f64() * 1e3,
        pct(&many, 0.99).as_secs_f64() * 1e3,
        pct(&many, 0.5).as_secs_f64() / pct(&one, 0.5).as_secs_f64().max(1e-9)
    );
}
