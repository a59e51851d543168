//! Verification overhead, on a generated repository of 10,000 files:
//! - the tree hash (pawl-git, warm index) unchanged and after a one-file edit;
//! - `pawl verify` when every gate's evidence is cached for the tree (the common "nothing
//!   changed" answer an agent gets);
//! - `pawl verify --fresh` against running the slowest gate alone: what pawl adds on top of the
//!   checks themselves (two tree hashes, spawning, logs, parsing, the store).
//!
//! - the clean room (pawl-engine `room`) on the same repository: the first sync (cold: every
//!   file written), a warm sync after a one-file edit and one to the same tree, and a warm
//!   `verify_checks` of one trivial check (`true`) in the room against the same in place,
//!   interleaved in the same run, with their ratio (target: the room at most 20% slower).
//!
//! `cargo bench -p pawl-cli --bench verify` (harness = false: prints a small table).
//! `PAWL_BENCH_FILES` changes the file count, `PAWL_BENCH_RUNS` the samples per figure.
//!
//! On a real project instead: `PAWL_BENCH_PROJECT=<a scratch git repository>` with
//! `PAWL_BENCH_CHECK=<the check command>` and optionally `PAWL_BENCH_EDIT=<a file to append a
//! comment line to>` and `PAWL_BENCH_COMMENT` (`#` by default; `//` for Rust) measures a fresh
//! verification cold and warm, in place and in a room, and after an edit. Cold in place
//! deletes the project's ignored files first (`git clean -fdX`): use a scratch copy. Run the
//! built bench binary without `CARGO_TARGET_DIR` in the environment, or cargo checks will share
//! one target directory between the places.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use pawl_engine::room::Room;
use pawl_engine::verify::{Plan, Workspace, verify_checks};
use pawl_store::Store;
use pawl_verify::gate::Check;

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
    if let Some(project) = std::env::var_os("PAWL_BENCH_PROJECT") {
        return project_bench(Path::new(&project));
    }
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

    room_bench(root, runs);
}

/// A fresh verification of `checks` through the library, in `room` or in place; logs go to
/// `state`.
fn verify(
    (root, state): (&Path, &Path),
    room: Option<&Path>,
    store: &mut Store,
    checks: &[Check],
) -> Duration {
    let mut ws = Workspace::new(root, state);
    ws.room = room.map(Path::to_path_buf);
    let mut plan = Plan::new(checks.to_vec());
    plan.fresh = true;
    let started = Instant::now();
    let v = verify_checks(&ws, store, None, &plan).unwrap();
    let took = started.elapsed();
    assert!(v.verified, "{v:#?}");
    took
}

fn room_bench(root: &Path, runs: usize) {
    let rooms = tempfile::tempdir().unwrap();
    let dir = rooms.path().join("room");
    let repo = pawl_git::Repo::open(root).unwrap();
    let tree = repo.tree_hash().unwrap();
    let cold = median(
        (0..runs)
            .map(|_| {
                let _ = std::fs::remove_dir_all(&dir);
                let mut room = Room::open(&repo, &dir).unwrap();
                let stats = room.sync(&repo, &tree).unwrap();
                assert!(stats.rebuilt.is_some());
                stats.duration
            })
            .collect(),
    );
    println!("room: first sync (cold, every file):  {}", ms(cold));
    let edit = median(
        (0..runs)
            .map(|i| {
                std::fs::write(root.join("src/m001/f1.txt"), format!("room edit {i}\n")).unwrap();
                let tree = repo.tree_hash().unwrap();
                let mut room = Room::open(&repo, &dir).unwrap();
                let stats = room.sync(&repo, &tree).unwrap();
                assert_eq!(
                    (stats.rebuilt.clone(), stats.changed),
                    (None, 1),
                    "{stats:?}"
                );
                stats.duration
            })
            .collect(),
    );
    println!("room: warm sync, one file edited:     {}", ms(edit));
    let tree = repo.tree_hash().unwrap();
    let same = median(
        (0..runs)
            .map(|_| {
                let mut room = Room::open(&repo, &dir).unwrap();
                let stats = room.sync(&repo, &tree).unwrap();
                assert!(stats.is_noop(), "{stats:?}");
                stats.duration
            })
            .collect(),
    );
    println!("room: warm sync, same tree:           {}", ms(same));

    let state = root.join(".pawl");
    let at = (root, state.as_path());
    let mut store = Store::open(&state.join("bench-room.db")).unwrap();
    let checks = [Check::gate("trivial", "true")];
    verify(at, None, &mut store, &checks);
    verify(at, Some(&dir), &mut store, &checks);
    let (mut in_place, mut in_room) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(5) {
        in_place.push(verify(at, None, &mut store, &checks));
        in_room.push(verify(at, Some(&dir), &mut store, &checks));
    }
    let (in_place, in_room) = (median(in_place), median(in_room));
    println!("verify_checks `true`, in place:       {}", ms(in_place));
    println!("verify_checks `true`, in the room:    {}", ms(in_room));
    println!(
        "room / in place:                      {:.2} (target <= 1.20)",
        in_room.as_secs_f64() / in_place.as_secs_f64()
    );
    // The same after a one-file edit each time (the room syncs the edit; in place hashes it).
    let edited = root.join("src/m002/f2.txt");
    let (mut in_place, mut in_room) = (Vec::new(), Vec::new());
    for i in 0..runs.max(5) {
        std::fs::write(&edited, format!("in place {i}\n")).unwrap();
        in_place.push(verify(at, None, &mut store, &checks));
        std::fs::write(&edited, format!("room {i}\n")).unwrap();
        in_room.push(verify(at, Some(&dir), &mut store, &checks));
    }
    let (in_place, in_room) = (median(in_place), median(in_room));
    println!("  after a one-file edit, in place:    {}", ms(in_place));
    println!("  after a one-file edit, in the room: {}", ms(in_room));
    println!(
        "  room / in place:                    {:.2}",
        in_room.as_secs_f64() / in_place.as_secs_f64()
    );
}

/// Cold and warm verifications of a real project, in place and in a room.
fn project_bench(root: &Path) {
    let check = std::env::var("PAWL_BENCH_CHECK").expect("PAWL_BENCH_CHECK: the check command");
    let edit = std::env::var("PAWL_BENCH_EDIT").ok();
    let comment = std::env::var("PAWL_BENCH_COMMENT").unwrap_or_else(|_| "#".into());
    let runs = env_num("PAWL_BENCH_RUNS", 3).max(1);
    let rooms = tempfile::tempdir().unwrap();
    let dir = rooms.path().join("room");
    let state = tempfile::tempdir().unwrap();
    let mut store = Store::open(&state.path().join("bench.db")).unwrap();
    let at = (root, state.path());
    let checks = [Check::gate("test", check.as_str())];
    let row = |name: &str, d: Duration| println!("{name:<40} {:>10}", ms(d));
    println!("project {} — check `{check}`", root.display());

    git(root, &["clean", "-q", "-f", "-d", "-X"]);
    row("in place, cold", verify(at, None, &mut store, &checks));
    row(
        "in place, warm",
        median(
            (0..runs)
                .map(|_| verify(at, None, &mut store, &checks))
                .collect(),
        ),
    );
    row("room, cold", verify(at, Some(&dir), &mut store, &checks));
    row(
        "room, warm",
        median(
            (0..runs)
                .map(|_| verify(at, Some(&dir), &mut store, &checks))
                .collect(),
        ),
    );
    if let Some(edit) = edit {
        let path = root.join(&edit);
        let original = std::fs::read(&path).unwrap();
        let (mut in_place, mut in_room) = (Vec::new(), Vec::new());
        for i in 0..runs {
            let mut bytes = original.clone();
            bytes.extend_from_slice(format!("\n{comment} bench edit {i}\n").as_bytes());
            std::fs::write(&path, &bytes).unwrap();
            in_place.push(verify(at, None, &mut store, &checks));
            in_room.push(verify(at, Some(&dir), &mut store, &checks));
        }
        std::fs::write(&path, &original).unwrap();
        row(&format!("in place, warm, {edit} edited"), median(in_place));
        row(&format!("room, warm, {edit} edited"), median(in_room));
    }
}
