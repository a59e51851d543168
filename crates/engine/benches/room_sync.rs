//! What starting every verification from the seal's snapshot costs (issue 32 point 5), on a
//! synthetic project: 300 tracked files, a `.venv` of 2,500 files and a `target/` seed of 3,000
//! files taken at the seal. Prints the median of each operation:
//!
//! - a sync of an unchanged tree, with and without the environment (the difference is the
//!   fingerprint check of the taken directories);
//! - a sync after a check without the overlay wrote a cache and a `.pth` into the room's
//!   virtualenv (the virtualenv is copied again);
//! - a sync that keeps 500 files the `build` check wrote below `target/`;
//! - `env_changes` (the repository's environment by content, cached by stat; the places outside
//!   by stat).
//!
//! A benchmark, not a timed test: `cargo bench -p pawl-engine --bench room_sync`.

#![allow(clippy::print_stdout, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use pawl_engine::Room;
use pawl_git::{Options, Repo};

const RUNS: usize = 7;

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

fn median(mut f: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS).map(|_| f()).collect();
    times.sort();
    times[RUNS / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let tmp = tempfile::Builder::new()
        .prefix("room-sync-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("tmp");
    let root = tmp.path().join("repo");
    std::fs::create_dir(&root).expect("repo");
    let options = Options {
        env: vec![
            ("HOME".into(), tmp.path().as_os_str().to_owned()),
            ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
        ],
        ..Options::default()
    };
    let repo = Repo::init(&root, options).expect("git init");
    write(&root.join(".gitignore"), b".venv/\ntarget/\n.pawl/\n");
    let kb = vec![b'x'; 8 * 1024];
    for i in 0..300 {
        write(
            &root.join(format!("src/m{}/f{i}.py", i % 20)),
            format!("x = {i}\n").as_bytes(),
        );
    }
    for i in 0..2500 {
        write(
            &root.join(format!(
                ".venv/lib/python3.11/site-packages/p{}/f{i}.py",
                i % 100
            )),
            &kb,
        );
    }
    write(&root.join(".venv/pyvenv.cfg"), b"home = /usr/bin\n");
    for i in 0..3000 {
        write(
            &root.join(format!("target/debug/deps/f{i}.rlib")),
            &kb[..4096],
        );
    }
    let env = pawl_verify::platform::Descriptors::builtin()
        .expect("descriptors")
        .environment();
    let tree = repo.tree_hash().expect("tree");

    // The same room without an environment: what a sync costs anyway.
    let bare_dir = tmp.path().join("bare-room");
    let mut bare = Room::open(&repo, &bare_dir).expect("room");
    bare.sync(&repo, &tree).expect("sync");
    let bare_noop = median(|| {
        let t = Instant::now();
        bare.sync(&repo, &tree).expect("sync");
        t.elapsed()
    });
    drop(bare);

    let seal = pawl_core::seal::Seal {
        env: [("HOME".to_owned(), tmp.path().display().to_string())].into(),
        ..pawl_core::seal::Seal::default()
    };
    let mut room = Room::open(&repo, &tmp.path().join("room")).expect("room");
    room.sync(&repo, &tree).expect("sync");
    let t = Instant::now();
    room.take_environment(&repo, &env).expect("take");
    room.seal_outside(&seal.env, &root).expect("outside");
    let take = t.elapsed();
    let noop = median(|| {
        let t = Instant::now();
        let s = room.sync(&repo, &tree).expect("sync");
        assert!(s.is_noop(), "{s:?}");
        t.elapsed()
    });
    let sp = room.root().join(".venv/lib/python3.11/site-packages");
    let undo = median(|| {
        for i in 0..20 {
            write(&room.root().join(format!(".pytest_cache/v/f{i}")), b"x");
        }
        write(&sp.join("evil.pth"), b"import os\n");
        let t = Instant::now();
        let s = room.sync(&repo, &tree).expect("sync");
        assert_eq!(s.env_restored, [".venv"], "{s:?}");
        t.elapsed()
    });
    let scratch = room.dir().join(pawl_process::sandbox::check::ROOM_SCRATCH);
    let mut round = 0;
    let keep = median(|| {
        round += 1;
        for i in 0..500 {
            write(
                &scratch.join(format!(
                    "kept-build/upper/target/debug/incremental/r{round}/f{i}"
                )),
                &kb,
            );
        }
        let t = Instant::now();
        room.sync(&repo, &tree).expect("sync");
        t.elapsed()
    });
    drop(room);

    let mut ws = pawl_engine::Workspace::new(&root, root.join(".pawl"));
    ws.room = Some(tmp.path().join("room"));
    let t = Instant::now();
    let first = pawl_engine::room::env::env_changes(&ws, &seal);
    let changes_cold = t.elapsed();
    let changes_warm = median(|| {
        let t = Instant::now();
        pawl_engine::room::env::env_changes(&ws, &seal);
        t.elapsed()
    });
    println!(
        "take the environment at the seal (2,500 + 3,000 files): {:>8.1} ms",
        ms(take)
    );
    println!(
        "sync, unchanged tree, no environment:                  {:>8.1} ms",
        ms(bare_noop)
    );
    println!(
        "sync, unchanged tree, environment checked:            {:>8.1} ms",
        ms(noop)
    );
    println!(
        "sync undoing a check's cache and .pth (no overlay):   {:>8.1} ms",
        ms(undo)
    );
    println!(
        "sync keeping 500 files the build check wrote:          {:>8.1} ms",
        ms(keep)
    );
    println!(
        "env_changes, first (hashes the live .venv):            {:>8.1} ms",
        ms(changes_cold)
    );
    println!(
        "env_changes, again (cached by stat):                   {:>8.1} ms",
        ms(changes_warm)
    );
    println!(
        "  ({} changes seen: the seal's own environment)",
        first.len()
    );
}
