//! Hook round trips, from process start to answer (what an agent CLI waits for on every event):
//! - a session that belongs to no run (no `.pawl/`), and one in a repository whose armed run
//!   belongs to another session (the marker is read);
//! - PreToolUse on a plain command in a bound session (the guard, config read, no git);
//! - PreToolUse in the armed-and-bound session on a git command that writes files (the branch
//!   from HEAD, the tracked set from the index read in-process: still no git process), with its
//!   ratio to spawning `/bin/true` side by side (the target: at most 2×), and the inert lines'
//!   ratios too (same target). Every line spawns `/bin/true` alternately with its own samples,
//!   through the same pipes with the same stdin, and its ratio is against that median: both
//!   see the same load;
//! - Stop with cached evidence (every gate's evidence reused for the tree; a review criterion
//!   keeps the run open, so each Stop records an iteration and blocks): first right after the
//!   setup, when every index entry is as new as the index ("racily clean": git re-reads each
//!   file and drops its cache tree on every hash), then after `git status` rewrote the index a
//!   second later, the usual state of a repository an agent works in (the cache tree answers).
//!
//! The load average is printed before and after: on a busy machine the figures are not
//! comparable (the targets are for a quiet one).
//!
//! `cargo bench -p pawl-cli --bench hooks` (harness = false: prints a small table).
//! `PAWL_BENCH_RUNS` sets the samples per figure (default 200; Stop uses a quarter).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const PAWL: &str = env!("CARGO_BIN_EXE_pawl");

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn cmd(program: &str, root: &Path) -> Command {
    let mut c = Command::new(program);
    c.current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com");
    c
}

fn ok(program: &str, root: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut c = cmd(program, root);
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One hook invocation: spawn, feed stdin, wait for the answer.
fn hook(root: &Path, agent: &str, event: &str, input: &str) -> (Duration, String) {
    let t = Instant::now();
    let mut child = cmd(PAWL, root)
        .args(["hook", agent, event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        t.elapsed(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// `/bin/true` spawned as a hook is, through the same pipes, with the same stdin written to it
/// (it may exit before reading: the write's error is ignored).
fn floor_once(root: &Path, input: &str) -> Duration {
    let t = Instant::now();
    let mut child = cmd("/bin/true", root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    t.elapsed()
}

/// A hook line's median, and the median of `/bin/true` spawned alternately with it (one
/// `/bin/true` before each sample, same stdin): both see the same load.
struct Line {
    median: f64,
    floor: f64,
}

impl Line {
    fn ratio(&self) -> f64 {
        self.median / self.floor
    }
}

fn median_ms(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

fn measure(
    name: &str,
    runs: usize,
    root: &Path,
    event: &str,
    input: &str,
    expect: &str,
    target_ms: f64,
) -> Line {
    // Warm the page cache and the store once.
    // `{n}` in the input becomes the sample number (a Stop that says the same thing three
    // times in a row is a reasoning loop, and the run would end).
    let (_, first) = hook(root, "claude", event, &input.replace("{n}", "warm"));
    assert!(first.contains(expect), "{name}: unexpected answer {first}");
    let mut floor = Vec::with_capacity(runs);
    let mut times: Vec<Duration> = (0..runs)
        .map(|i| {
            let input = input.replace("{n}", &i.to_string());
            floor.push(floor_once(root, &input));
            let (d, out) = hook(root, "claude", event, &input);
            assert!(out.contains(expect), "{name}: unexpected answer {out}");
            d
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = ms(times[times.len() / 2]);
    let p90 = ms(times[times.len() * 9 / 10]);
    let floor = median_ms(floor);
    println!(
        "{name:<44} median {median:>6.2} ms  p90 {p90:>6.2} ms  min {:>6.2} ms  /bin/true alongside {floor:.2} ms: {:.2}x  (n={runs}, target < {target_ms} ms: {})",
        ms(times[0]),
        median / floor,
        if median < target_ms { "met" } else { "MISSED" }
    );
    Line { median, floor }
}

fn main() {
    let runs = env_num("PAWL_BENCH_RUNS", 200);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    ok("git", &root, &["init", "-q", "-b", "main"], &[]);
    for i in 0..200 {
        std::fs::write(root.join(format!("f{i}.txt")), format!("{i}\n")).unwrap();
    }
    ok("git", &root, &["add", "-A"], &[]);
    ok("git", &root, &["commit", "-q", "-m", "init"], &[]);

    let stop = |s: &str| {
        format!(
            r#"{{"session_id":"{s}","cwd":"{}","hook_event_name":"Stop","stop_hook_active":true,"last_assistant_message":"Done {{n}}."}}"#,
            root.display()
        )
    };
    let pre = |s: &str| {
        format!(
            r#"{{"session_id":"{s}","cwd":"{}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls -la src | head -5"}}}}"#,
            root.display()
        )
    };

    println!(
        "pawl hook round trips (process start to answer), {runs} samples; load average {}",
        load_average()
    );
    // The floor: spawning a process that does nothing, through the same pipes. Each hook line
    // also spawns it alternately with its own samples, and its ratio is against that.
    let floor_ms = median_ms((0..runs).map(|_| floor_once(&root, "")).collect());
    println!(
        "{:<44} median {floor_ms:>6.2} ms  (the cost of any process, for comparison)",
        "spawning /bin/true",
    );
    let inert = measure(
        "unbound session, no .pawl/ (Stop)",
        runs,
        &root,
        "stop",
        &stop("x"),
        "{}",
        3.0,
    );

    ok(PAWL, &root, &["init"], &[]);
    std::fs::write(
        root.join("pawl.toml"),
        "[limits]\nmax_iterations = 1000000\nmax_time = \"1000h\"\n\n[breakers]\nno_progress = 0\nsame_failure = 0\nfile_thrash = 0\ncriterion_stuck = 0\npermission_denials = 0\n\n[gates]\ntest = \"true\"\n",
    )
    .unwrap();
    ok("git", &root, &["add", "-A"], &[]);
    ok("git", &root, &["commit", "-q", "-m", "pawl"], &[]);
    ok(
        PAWL,
        &root,
        &["run", "--driver", "session", "bench goal"],
        &[("CLAUDE_CODE_SESSION_ID", "bound")],
    );
    ok(
        PAWL,
        &root,
        &[
            "criterion",
            "add",
            "a reviewer approves",
            "--verify",
            "review",
        ],
        &[],
    );
    let inert_armed = measure(
        "unbound session, another session's run armed",
        runs,
        &root,
        "pre-tool-use",
        &pre("other"),
        "{}",
        3.0,
    );
    let plain = measure(
        "bound session: PreToolUse on a plain command",
        runs,
        &root,
        "pre-tool-use",
        &pre("bound"),
        "{}",
        3.0,
    );
    let git_line = |s: &str| {
        format!(
            r#"{{"session_id":"{s}","cwd":"{}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"git status --short && git diff --stat && echo done >> f1.txt && cat f2.txt > /tmp/pawl-bench-out"}}}}"#,
            root.display()
        )
    };
    let guarded = measure(
        "armed and bound: PreToolUse, git + tracked files",
        runs,
        &root,
        "pre-tool-use",
        &git_line("bound"),
        "{}",
        3.0,
    );
    println!(
        "{:<44} /bin/true alongside {:.2} / {:.2} ms; plain {:.2}x, git + tracked {:.2}x (target <= 2x)",
        "armed and bound vs /bin/true (side by side)",
        plain.floor,
        guarded.floor,
        plain.ratio(),
        guarded.ratio(),
    );
    println!(
        "{:<44} no .pawl/ {:.2}x, another session's run armed {:.2}x (target <= 2x)",
        "inert vs /bin/true (side by side)",
        inert.ratio(),
        inert_armed.ratio(),
    );
    measure(
        "bound session: Stop with cached evidence",
        (runs / 4).max(10),
        &root,
        "stop",
        &stop("bound"),
        "\"decision\":\"block\"",
        10.0,
    );
    std::thread::sleep(Duration::from_millis(1100));
    ok("git", &root, &["status", "--porcelain"], &[]);
    measure(
        "bound session: Stop, cached evidence, settled",
        (runs / 4).max(10),
        &root,
        "stop",
        &stop("bound"),
        "\"decision\":\"block\"",
        10.0,
    );
    println!("load average {}", load_average());
}

/// The 1, 5 and 15 minute load averages (Linux), or `?`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
