//! Parallel stories: the wall time of a plan of 4 independent stories with 1 worker and with
//! 2 workers (docs/parallel.md), and their ratio, measured in the same run.
//!
//! Each story is one agent step that takes `PAWL_BENCH_STEP_MS` (default 1500 ms: a stand-in for
//! an agent's work) and writes its file; its criterion checks the file. What 2 workers save is
//! the agents' time running side by side; what they cannot save is pawl's own part: the merge
//! queue verifies one story at a time.
//!
//! `cargo bench -p pawl-cli --bench parallel` (harness = false: prints a small table).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const PAWL: &str = env!("CARGO_BIN_EXE_pawl");

fn command(program: &str, root: &Path, home: &Path) -> Command {
    let mut c = Command::new(program);
    c.current_dir(root)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .env("PAWL_PIPELINE_SPEC_GATE", "false");
    c
}

fn ok(mut c: Command) {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{c:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository with the plan of 4 stories; returns the plan's path.
fn project(dir: &Path, step_ms: u64) -> String {
    let root = dir.join("repo");
    let home = dir.join("home");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let git = |args: &[&str]| {
        let mut c = command("git", &root, &home);
        c.args(args);
        ok(c);
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(root.join("README.md"), "# bench\n").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "init"]);
    let mut init = command(PAWL, &root, &home);
    init.arg("init");
    ok(init);
    std::fs::write(
        root.join("pawl.toml"),
        "[agent]\nkind = \"command\"\ncommand = [\"sh\", \"agent.sh\"]\n\n[limits]\ncalls_per_hour = 0\nmax_time = \"1h\"\n\n[gates]\ntest = \"true\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("agent.sh"),
        format!(
            "sleep {:.3}\necho \"$PAWL_STORY\" > \"$PAWL_STORY.txt\"\n",
            step_ms as f64 / 1000.0
        ),
    )
    .unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "pawl config"]);
    let plan: String = (1..=4)
        .map(|i| {
            format!(
                "[[stories]]\nid = \"S{i}\"\ntitle = \"story {i}\"\nfiles = [\"S{i}.txt\"]\ncriteria = [\"test -f S{i}.txt\"]\n\n"
            )
        })
        .collect();
    let path = dir.join("plan.toml");
    std::fs::write(&path, plan).unwrap();
    path.display().to_string()
}

fn run(dir: &Path, plan: &str, workers: u32) -> Duration {
    let mut c = command(PAWL, &dir.join("repo"), &dir.join("home"));
    c.args([
        "run",
        "--plan",
        plan,
        "--workers",
        &workers.to_string(),
        "--check",
        "test -f S1.txt && test -f S2.txt && test -f S3.txt && test -f S4.txt",
        "bench: four stories",
    ]);
    let started = Instant::now();
    let out = c.output().unwrap();
    let wall = started.elapsed();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    wall
}

fn main() {
    let step_ms: u64 = std::env::var("PAWL_BENCH_STEP_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let tmp = tempfile::tempdir().unwrap();
    let mut walls = Vec::new();
    for workers in [1, 2] {
        let dir = tmp.path().join(format!("w{workers}"));
        std::fs::create_dir_all(&dir).unwrap();
        let plan = project(&dir, step_ms);
        walls.push((workers, run(&dir, &plan, workers)));
    }
    println!("pawl run --plan: 4 independent stories, one {step_ms} ms agent step each");
    for (workers, wall) in &walls {
        println!("  {workers} worker(s): {:>8.2} s wall", wall.as_secs_f64());
    }
    let ratio = walls[1].1.as_secs_f64() / walls[0].1.as_secs_f64();
    println!("  2 workers / 1 worker: {ratio:.2} of the time");
}
