//! The headless loop's own overhead per iteration, and its peak memory.
//!
//! A replay agent that does nothing, one passing gate whose evidence is cached after the first
//! verification (the tree never changes), a review criterion that keeps the run open (no
//! reviewer runs in this build), every breaker off: what is left per iteration is pawl's
//! loop — the store's transactions, the tree hash, the verification lookup, the prompt, the lease
//! heartbeat — plus spawning the agent process. The agent spawn is measured on its own and
//! subtracted, so the "loop overhead" figure is pawl's part only.
//!
//! `cargo bench -p pawl-cli --bench loop` (harness = false: prints a small table).
//! `PAWL_BENCH_ITERATIONS` sets the iterations of the long run (default 200).
//! `PAWL_BENCH_BIN=/path/to/pawl` measures another binary (an older one, for a figure before a
//! change: run the bench twice, once with it, in the same session).
//! Peak memory comes from `/usr/bin/time -v` (maximum resident set size) when it exists.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn env_num(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The binary measured: `PAWL_BENCH_BIN`, else the one this bench was built with.
fn pawl_bin() -> String {
    std::env::var("PAWL_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_pawl").to_string())
}

/// A repository ready for `pawl run` with a do-nothing replay agent; returns the scenario path.
fn project(root: &Path, iterations: u32) -> String {
    std::fs::create_dir_all(root).unwrap();
    git(root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("README.md"), "# bench\n").unwrap();
    let out = Command::new(pawl_bin())
        .arg("init")
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(
        root.join("pawl.toml"),
        format!(
            "[agent]\nkind = \"replay\"\n\n[limits]\nmax_iterations = {iterations}\nmax_time = \"1h\"\ncalls_per_hour = 0\n\n\
             [breakers]\nno_progress = 0\nsame_failure = 0\nfile_thrash = 0\nagent_errors = 0\npermission_denials = 0\ncriterion_stuck = 0\n\n\
             [gates]\ntest = \"true\"\n"
        ),
    )
    .unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "bench project"]);
    let scenario = root.join(".pawl/bench.jsonl");
    std::fs::write(&scenario, "{\"do\": \"usage\", \"input_tokens\": 1}\n").unwrap();
    let scenario = scenario.display().to_string();
    // Create the run stopped before its first iteration, add the criterion, then `resume` is
    // what gets measured.
    std::fs::write(root.join(".pawl/stop"), "").unwrap();
    let pawl = |args: &[&str]| {
        Command::new(pawl_bin())
            .args(args)
            .current_dir(root)
            .output()
            .unwrap()
    };
    let out = pawl(&["run", "bench: do nothing", "--scenario", &scenario]);
    assert_eq!(out.status.code(), Some(6), "{out:?}");
    let out = pawl(&[
        "criterion",
        "add",
        "a reviewer approves",
        "--verify",
        "review",
    ]);
    assert!(out.status.success(), "{out:?}");
    scenario
}

struct Measured {
    wall: Duration,
    max_rss_kb: Option<u64>,
    cached_checks: bool,
}

/// `pawl resume` to its `max_iterations` stop, under `/usr/bin/time -v` when available.
fn run(root: &Path) -> Measured {
    let time = Path::new("/usr/bin/time");
    let mut cmd = if time.exists() {
        let mut c = Command::new(time);
        c.arg("-v").arg(pawl_bin());
        c
    } else {
        Command::new(pawl_bin())
    };
    cmd.args(["resume", "--json"]).current_dir(root);
    let started = Instant::now();
    let out = cmd.output().unwrap();
    let wall = started.elapsed();
    assert_eq!(
        out.status.code(),
        Some(3),
        "expected the iteration limit:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let max_rss_kb = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok());
    let report = Command::new(pawl_bin())
        .args(["report", "--json"])
        .current_dir(root)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    let cached_checks = report["checks"]
        .as_array()
        .is_some_and(|c| c.iter().all(|c| c["cached"] == true));
    Measured {
        wall,
        max_rss_kb,
        cached_checks,
    }
}

/// Mean wall time of one replay agent step on its own (the process pawl spawns per iteration).
fn agent_alone(root: &Path, scenario: &str, samples: u32) -> Duration {
    let started = Instant::now();
    for _ in 0..samples {
        let out = Command::new(pawl_bin())
            .args(["__replay", "--scenario", scenario, "--step", "1"])
            .current_dir(root)
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    started.elapsed() / samples
}

fn per_iteration(total: Duration, n: u32) -> Duration {
    total / n
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let long = env_num("PAWL_BENCH_ITERATIONS", 200).max(20);
    let short = 10;
    let tmp = tempfile::tempdir().unwrap();

    let root_short = tmp.path().join("short");
    project(&root_short, short);
    let m_short = run(&root_short);

    let root_long = tmp.path().join("long");
    let s_long = project(&root_long, long);
    let m_long = run(&root_long);

    let agent = agent_alone(&root_long, &s_long, 50);
    // Startup and the report are paid once per run: the marginal cost of an iteration is the
    // difference between the two runs, divided by the extra iterations.
    let marginal = m_long.wall.saturating_sub(m_short.wall) / (long - short);
    let overhead = marginal.saturating_sub(agent);

    println!("pawl headless loop: replay agent doing nothing, gate evidence cached");
    println!(
        "  gate evidence reused on the final tree: {}",
        m_long.cached_checks
    );
    println!(
        "  run of {short:>4} iterations: {:>10} total, {:>10} per iteration",
        ms(m_short.wall),
        ms(per_iteration(m_short.wall, short))
    );
    println!(
        "  run of {long:>4} iterations: {:>10} total, {:>10} per iteration",
        ms(m_long.wall),
        ms(per_iteration(m_long.wall, long))
    );
    println!(
        "  marginal cost of one iteration:      {:>10}",
        ms(marginal)
    );
    println!("  replay agent process alone:          {:>10}", ms(agent));
    println!(
        "  loop overhead per iteration (pawl):  {:>10}",
        ms(overhead)
    );
    match (m_short.max_rss_kb, m_long.max_rss_kb) {
        (Some(a), Some(b)) => println!(
            "  peak RSS: {:.1} MiB after {short} iterations, {:.1} MiB after {long}",
            a as f64 / 1024.0,
            b as f64 / 1024.0
        ),
        _ => println!("  peak RSS: /usr/bin/time not available"),
    }
}
