//! Verification overhead, on a generated repository of 10,000 files:
//! - the tree hash (pawl-git, warm index) unchanged and after a one-file edit;
//! - `pawl verify` when every gate's evidence is cached for the tree (the common "nothing
//!   changed" answer an agent gets);
//! - `pawl verify --fresh` against running the slowest gate alone: what pawl adds on top of the
//!   checks themselves (two tree hashes, spawning, logs, parsing, the store).
//!
//! `cargo bench -p pawl-cli --bench verify` (harness = false: prints a small table).
//! `PAWL_BENCH_FILES` changes the file count, `PAWL_BENCH_RUNS` the samples per figure.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn env_num(name: &str, default: usize) -> usize {
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

fn pawl(root: &Path, args: &[&str]) -> Duration {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_pawl"))
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "pawl {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn sh(root: &Path, command: &str) -> Duration {
    let started = Instant::now();
    let status = Command::new("sh")
        .args(["-c", command])
        .current_dir(root)
        .status()
        .unwrap();
    assert!(status.success());
    started.elapsed()
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let files = env_num("PAWL_BENCH_FILES", 10_000);
    let runs = env_num("PAWL_BENCH_RUNS", 5).max(1);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    let started = Instant::now();
    for i in 0..files {
        let d = root.join(format!("src/m{:03}", i % 100));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join(format!("f{i}.txt")),
            format!("file {i}\n{}\n", "x".repeat(i % 200)),
        )
        .unwrap();
    }
    std::fs::write(root.join(".gitignore"), ".pawl/\n").unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "bench"]);
    println!(
        "repository: {files} files, generated and committed in {}",
        ms(started.elapsed())
    );

    let repo = pawl_git::Repo::open(root).unwrap();
    repo.tree_hash().unwrap();
    let hash = median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                repo.tree_hash().unwrap();
                t.elapsed()
            })
            .collect(),
    );
    println!("tree hash, unchanged tree:            {}", ms(hash));
    let edited = median(
        (0..runs)
            .map(|i| {
                std::fs::write(root.join("src/m000/f0.txt"), format!("edit {i}\n")).unwrap();
                let t = Instant::now();
                repo.tree_hash().unwrap();
                t.elapsed()
            })
            .collect(),
    );
    println!("tree hash, one file edited:           {}", ms(edited));

    pawl(root, &["init"]);
    let slowest = "sleep 0.5";
    std::fs::write(
        root.join("pawl.toml"),
        format!("[gates]\ntest = \"{slowest}\"\nlint = \"sleep 0.2\"\n"),
    )
    .unwrap();
    pawl(root, &["verify"]);
    let hit = median((0..runs).map(|_| pawl(root, &["verify"])).collect());
    println!("pawl verify, all evidence cached:     {}", ms(hit));
    let fresh = median(
        (0..runs)
            .map(|_| pawl(root, &["verify", "--fresh"]))
            .collect(),
    );
    let alone = median((0..runs).map(|_| sh(root, slowest)).collect());
    println!("pawl verify --fresh (2 gates):        {}", ms(fresh));
    println!("slowest gate alone (`{slowest}`):    {}", ms(alone));
    println!(
        "overhead of pawl verify:              {}",
        ms(fresh.saturating_sub(alone))
    );
}
