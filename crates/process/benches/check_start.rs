//! What containing a check costs at its start (issue 31 point 7: at most 5 ms per check start):
//! `/bin/true` spawned directly, in its own pid namespace (how checks ran before the check
//! sandbox), under the full check sandbox (room mounted over the repository's path, pawl's
//! state and the user's configuration hidden, private temp dirs and network, Landlock), and
//! under the Landlock-only fallback. A benchmark, not a timed test:
//! `cargo bench -p pawl-process --bench check_start`. Prints the median and the mean of each
//! (the rows interleaved, so the same load weighs on each) and the figure: what the full check
//! sandbox adds per check start, in ms and as a ratio.

#![allow(clippy::print_stdout, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use pawl_process::sandbox::check::{CheckWorld, check_sandbox};
use pawl_process::sandbox::{self, LaunchSpec};
use pawl_process::{Command, Containment};

const RUNS: usize = 60;

fn main() {
    let launcher = PathBuf::from(env!("CARGO_BIN_EXE_pawl-step"));
    let dir = tempfile::Builder::new()
        .prefix("check-start-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let (home, repo) = (root.join("home"), root.join("repo"));
    let tree = home.join(".local/state/pawl/rooms/r/tree");
    for d in [&repo, &tree] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let world = CheckWorld {
        repo: repo.clone(),
        state: vec![home.join(".local/state/pawl"), repo.join(".pawl")],
        home: Some(home.clone()),
        ..CheckWorld::default()
    };
    let full = LaunchSpec {
        namespaces: true,
        sandbox: Some(check_sandbox(&world)),
    };
    let fallback = LaunchSpec {
        namespaces: false,
        sandbox: Some(check_sandbox(&world)),
    };
    let placed = |wanted: &LaunchSpec| {
        let e = sandbox::probe(&launcher, wanted).expect("probe");
        let mut spec = e.allowed(wanted);
        if let Some(s) = spec.sandbox.as_mut() {
            s.place_checks(&repo, Some(&tree));
        }
        println!("  probe {}: {}", wanted.namespaces, e.summary());
        spec
    };
    let rows: Vec<(&str, Option<LaunchSpec>)> = vec![
        ("direct spawn", None),
        (
            "pid+mount namespaces, no sandbox (before)",
            Some(LaunchSpec {
                namespaces: true,
                sandbox: None,
            }),
        ),
        (
            "check sandbox, full, room bound (no overlay)",
            Some(placed(&LaunchSpec {
                namespaces: true,
                sandbox: full.sandbox.clone().map(|s| sandbox::SandboxSpec {
                    room_overlay: false,
                    ..s
                }),
            })),
        ),
        ("check sandbox, full (room overlay)", Some(placed(&full))),
        (
            "check sandbox, full, with [room] network",
            Some(placed(&LaunchSpec {
                namespaces: true,
                sandbox: Some(check_sandbox(&CheckWorld {
                    network: true,
                    ..world.clone()
                })),
            })),
        ),
        ("check sandbox, Landlock fallback", Some(placed(&fallback))),
    ];
    // Interleaved: one start of each row per round, so a machine whose load drifts during
    // the run charges every row alike (the rows are compared within the same run).
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(RUNS); rows.len()];
    for _ in 0..RUNS {
        for (i, (name, spec)) in rows.iter().enumerate() {
            let mut cmd = Command::new("/bin/true");
            cmd.current_dir(&repo);
            if let Some(spec) = spec {
                cmd.contain(Containment {
                    launcher: launcher.clone(),
                    spec: spec.clone(),
                    record_dir: None,
                });
            }
            let start = Instant::now();
            let o = cmd.run().expect("runs");
            assert!(o.success(), "{name}: {o:?}");
            times[i].push(start.elapsed());
        }
    }
    let mut medians = Vec::new();
    for ((name, _), t) in rows.iter().zip(times.iter_mut()) {
        t.sort();
        let mean = t.iter().sum::<Duration>() / u32::try_from(RUNS).unwrap_or(1);
        let median = ms(t[RUNS / 2]);
        medians.push(median);
        println!(
            "{name:<45} median {median:>6.2} ms  mean {:>6.2} ms",
            ms(mean)
        );
    }
    // The figure of issue 31 point 7: what the check sandbox (full, room overlay) adds to a
    // check start over how checks were started before it, and over a bare spawn.
    let (direct, before, contained) = (medians[0], medians[1], medians[3]);
    println!(
        "containing a check: +{:.2} ms per check start over its own pid namespace ({:.2}x), +{:.2} ms over a bare spawn ({:.2}x); budget 5 ms: {}",
        contained - before,
        contained / before,
        contained - direct,
        contained / direct,
        if contained - before <= 5.0 {
            "within"
        } else {
            "OVER"
        }
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
