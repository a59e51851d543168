//! Hook round trips, from process start to answer (what an agent CLI waits for on every event),
//! on a realistic repository built here: 10,000 tracked files in 100 directories, an ignored
//! `node_modules` of 5,000 files, and a session-driven run that has already recorded 200
//! iterations of signed rows (`PAWL_BENCH_ITERATIONS`) before anything is measured.
//!
//! Lines:
//! - a session that belongs to no run (no `.pawl/`), and one in a repository whose armed run
//!   belongs to another session (the marker is read);
//! - PreToolUse on a plain command in a bound session (the guard, config read, no git);
//! - PreToolUse in the armed-and-bound session on a git command that writes files (the branch
//!   from HEAD, the tracked set from the index read in-process: still no git process);
//! - Stop with cached evidence (every gate's evidence reused for the tree; a review criterion
//!   keeps the run open, so each Stop records an iteration and blocks), once the index is
//!   settled (`git status` rewrote it a second after the last change, the usual state of a
//!   repository an agent works in);
//! - Stop after a one-file edit (the tree's hash taken, the gate run, the iteration committed):
//!   no bound, what a changed tree costs next to `git status -uno`.
//!
//! Every line spawns `/bin/true` alternately with its own samples, through the same pipes with
//! the same stdin, and its ratio is against that median: both see the same load. The Stop line
//! also runs `git status -uno` on the same repository alongside (the issue's bound: at most
//! 10 ms, or the time of `git status -uno` when that is more).
//!
//! Before and after in the same run: `PAWL_BENCH_BEFORE=/path/to/an/older/pawl` builds a second
//! repository the same way for that binary, and every line measures both binaries in turn
//! (sample by sample), each on its own repository.
//!
//! The load average is printed before and after: on a busy machine the figures are not
//! comparable (the targets are for a quiet one).
//!
//! `cargo bench -p pawl-cli --bench hooks` (harness = false: prints a small table).
//! `PAWL_BENCH_RUNS` sets the samples per figure (default 200); the cached Stop takes
//! `PAWL_BENCH_STOP_RUNS` (default a quarter of them), the Stop after an edit
//! `PAWL_BENCH_EDIT_RUNS` (default an eighth; 0 leaves that line out).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
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

/// One hook invocation of `bin`: spawn, feed stdin, wait for the answer.
fn hook(bin: &Path, root: &Path, event: &str, input: &str) -> (Duration, String) {
    let t = Instant::now();
    let mut child = Command::new(bin);
    child
        .current_dir(root)
        .args(["hook", "claude", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = child.spawn().unwrap();
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

/// `git status -uno --porcelain` on `root`, timed.
fn git_status_once(root: &Path) -> Duration {
    let t = Instant::now();
    let out = cmd("git", root)
        .args(["status", "-uno", "--porcelain"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    t.elapsed()
}

fn median_ms(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

fn p90_ms(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() * 9 / 10].as_secs_f64() * 1000.0
}

/// The agent session bound to a subject's run: one per binary (`bound-before`, `bound-after`).
/// One shared name made the two runs take the session from each other at every Stop of the
/// before-and-after mode, and both binaries measured the rebinding (120+ ms), not the cached
/// Stop.
fn session_of(label: &str) -> String {
    format!("bound-{label}")
}

/// A binary under measure and the repository it answers for.
struct Subject {
    label: &'static str,
    bin: PathBuf,
    root: PathBuf,
}

impl Subject {
    fn input(&self, template: &str, n: &str) -> String {
        template
            .replace("{root}", &self.root.display().to_string())
            .replace("{n}", n)
            .replace("\"bound\"", &format!("\"{}\"", session_of(self.label)))
    }
}

/// One line: every subject's samples, taken in turn with `/bin/true` (and, for `with_status`,
/// `git status -uno` on the first subject's repository) so that all see the same load.
/// `{root}` in the input becomes the subject's repository, `{n}` the sample number (a Stop that
/// says the same thing three times in a row is a reasoning loop, and the run would end).
/// Returns the medians (ms) of the subjects, in order.
#[allow(clippy::too_many_arguments)]
fn measure(
    name: &str,
    runs: usize,
    subjects: &[Subject],
    event: &str,
    input: &str,
    expect: &str,
    target_ms: f64,
    with_status: bool,
    before_each: &dyn Fn(&Path, &str),
) -> Vec<f64> {
    for s in subjects {
        let (_, first) = hook(&s.bin, &s.root, event, &s.input(input, "warm"));
        assert!(
            first.contains(expect),
            "{name} ({}): unexpected answer {first}",
            s.label
        );
    }
    let mut floor = Vec::with_capacity(runs);
    let mut status = Vec::with_capacity(runs);
    let mut times: Vec<Vec<Duration>> = subjects.iter().map(|_| Vec::new()).collect();
    for i in 0..runs {
        floor.push(floor_once(
            &subjects[0].root,
            &subjects[0].input(input, "0"),
        ));
        if with_status {
            status.push(git_status_once(&subjects[0].root));
        }
        for (s, t) in subjects.iter().zip(times.iter_mut()) {
            before_each(&s.root, &i.to_string());
            let (d, out) = hook(&s.bin, &s.root, event, &s.input(input, &i.to_string()));
            assert!(
                out.contains(expect),
                "{name} ({}): unexpected answer {out}",
                s.label
            );
            t.push(d);
        }
    }
    let floor = median_ms(floor);
    let status = (!status.is_empty()).then(|| median_ms(status));
    let bound = status.map_or(target_ms, |s| s.max(target_ms));
    let mut medians = Vec::new();
    for (s, t) in subjects.iter().zip(times) {
        let median = median_ms(t.clone());
        let p90 = p90_ms(t.clone());
        let min = t.iter().min().unwrap().as_secs_f64() * 1000.0;
        println!(
            "{:<46} {:<6} median {median:>7.2} ms  p90 {p90:>7.2} ms  min {min:>6.2} ms  {:>5.2}x /bin/true ({floor:.2} ms){}  (n={runs}, bound {bound:.2} ms: {})",
            name,
            s.label,
            median / floor,
            status
                .map(|st| format!(", {:.2}x git status -uno ({st:.2} ms)", median / st))
                .unwrap_or_default(),
            if median <= bound { "met" } else { "MISSED" }
        );
        medians.push(median);
    }
    medians
}

/// The realistic repository: 10,000 tracked files in 100 directories, an ignored
/// `node_modules` of 5,000 files, pawl initialised with one passing gate, a session-driven run
/// bound to session `bound` with a review criterion (the run stays open), and `iterations`
/// Stops already answered (each an iteration with its signed rows).
fn repository(bin: &Path, root: &Path, iterations: usize, session: &str) {
    std::fs::create_dir_all(root).unwrap();
    ok("git", root, &["init", "-q", "-b", "main"], &[]);
    for d in 0..100 {
        let dir = root.join(format!("src/m{d:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(
                dir.join(format!("f{f:03}.py")),
                format!("def f_{d}_{f}():\n    return {}\n", d * 100 + f),
            )
            .unwrap();
        }
    }
    for p in 0..200 {
        let dir = root.join(format!("node_modules/pkg{p:03}/lib"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..25 {
            std::fs::write(dir.join(format!("m{f:02}.js")), "module.exports = 1;\n").unwrap();
        }
    }
    std::fs::write(root.join(".gitignore"), "node_modules/\n").unwrap();
    std::fs::write(root.join("package-lock.json"), "{\"lockfileVersion\": 3}\n").unwrap();
    ok("git", root, &["add", "-A"], &[]);
    ok("git", root, &["commit", "-q", "-m", "init"], &[]);
    ok(bin.to_str().unwrap(), root, &["init"], &[]);
    std::fs::write(
        root.join("pawl.toml"),
        "[limits]\nmax_iterations = 1000000\nmax_time = \"1000h\"\n\n[breakers]\nno_progress = 0\nsame_failure = 0\nfile_thrash = 0\ncriterion_stuck = 0\npermission_denials = 0\n\n[gates]\ntest = \"true\"\n",
    )
    .unwrap();
    ok("git", root, &["add", "-A"], &[]);
    ok("git", root, &["commit", "-q", "-m", "pawl"], &[]);
    ok(
        bin.to_str().unwrap(),
        root,
        &["run", "--driver", "session", "bench goal"],
        &[("CLAUDE_CODE_SESSION_ID", session)],
    );
    ok(
        bin.to_str().unwrap(),
        root,
        &[
            "criterion",
            "add",
            "a reviewer approves",
            "--verify",
            "review",
        ],
        &[],
    );
    for i in 0..iterations {
        let (_, out) = hook(
            bin,
            root,
            "stop",
            &STOP
                .replace("{root}", &root.display().to_string())
                .replace("{n}", &format!("setup {i}"))
                .replace("\"bound\"", &format!("\"{session}\"")),
        );
        assert!(out.contains("\"decision\":\"block\""), "setup stop: {out}");
    }
    // Settled: the index rewritten a second after the last change.
    std::thread::sleep(Duration::from_millis(1100));
    ok("git", root, &["status", "--porcelain"], &[]);
}

const STOP: &str = r#"{"session_id":"bound","cwd":"{root}","hook_event_name":"Stop","stop_hook_active":true,"last_assistant_message":"Done {n}."}"#;

fn main() {
    let runs = env_num("PAWL_BENCH_RUNS", 200);
    let iterations = env_num("PAWL_BENCH_ITERATIONS", 200);
    let dir = tempfile::tempdir().unwrap();
    let before = std::env::var_os("PAWL_BENCH_BEFORE").map(PathBuf::from);

    // The inert line first: a repository with no `.pawl/`.
    let plain = dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    ok("git", &plain, &["init", "-q", "-b", "main"], &[]);
    let mut subjects = Vec::new();
    if let Some(b) = &before {
        subjects.push(Subject {
            label: "before",
            bin: b.clone(),
            root: plain.clone(),
        });
    }
    subjects.push(Subject {
        label: "after",
        bin: PAWL.into(),
        root: plain.clone(),
    });

    println!(
        "pawl hook round trips (process start to answer), {runs} samples; load average {}",
        load_average()
    );
    let floor_ms = median_ms((0..runs).map(|_| floor_once(&plain, "")).collect());
    println!(
        "{:<46} median {floor_ms:>6.2} ms  (the cost of any process, for comparison)",
        "spawning /bin/true",
    );
    let stop_of = |s: &str| STOP.replace("\"bound\"", &format!("\"{s}\""));
    let pre = |s: &str| {
        format!(
            r#"{{"session_id":"{s}","cwd":"{{root}}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls -la src | head -5"}}}}"#
        )
    };
    measure(
        "unbound session, no .pawl/ (Stop)",
        runs,
        &subjects,
        "stop",
        &stop_of("x"),
        "{}",
        3.0,
        false,
        &|_, _| {},
    );

    // The realistic repositories, one per binary.
    let started = Instant::now();
    let mut subjects = Vec::new();
    if let Some(b) = &before {
        let root = dir.path().join("before");
        repository(b, &root, iterations, &session_of("before"));
        subjects.push(Subject {
            label: "before",
            bin: b.clone(),
            root,
        });
    }
    let root = dir.path().join("after");
    repository(Path::new(PAWL), &root, iterations, &session_of("after"));
    subjects.push(Subject {
        label: "after",
        bin: PAWL.into(),
        root,
    });
    println!(
        "realistic repositories built in {:.1} s: 10,000 tracked files, node_modules of 5,000 ignored files, {iterations} iterations recorded",
        started.elapsed().as_secs_f64()
    );

    measure(
        "unbound session, another session's run armed",
        runs,
        &subjects,
        "pre-tool-use",
        &pre("other"),
        "{}",
        3.0,
        false,
        &|_, _| {},
    );
    measure(
        "bound session: PreToolUse on a plain command",
        runs,
        &subjects,
        "pre-tool-use",
        &pre("bound"),
        "{}",
        3.0,
        false,
        &|_, _| {},
    );
    let git_line = r#"{"session_id":"bound","cwd":"{root}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status --short && git diff --stat && echo done >> src/m01/f001.py && cat src/m02/f002.py > /tmp/pawl-bench-out"}}"#;
    measure(
        "armed and bound: PreToolUse, git + tracked",
        runs,
        &subjects,
        "pre-tool-use",
        git_line,
        "{}",
        3.0,
        false,
        &|_, _| {},
    );
    measure(
        "bound session: Stop with cached evidence",
        env_num("PAWL_BENCH_STOP_RUNS", (runs / 4).max(10)).max(1),
        &subjects,
        "stop",
        STOP,
        "\"decision\":\"block\"",
        10.0,
        true,
        &|_, _| {},
    );
    // A Stop after an edit: the tree changed, so its hash is taken (the checks run too: the
    // gate is `true`). Not a bound of the issue; what a changed tree costs next to `git status`.
    let edits = env_num("PAWL_BENCH_EDIT_RUNS", (runs / 8).max(5));
    if edits == 0 {
        println!("load average {}", load_average());
        return;
    }
    measure(
        "bound session: Stop after a one-file edit",
        edits,
        &subjects,
        "stop",
        STOP,
        "\"decision\":\"block\"",
        f64::INFINITY,
        true,
        &|root, n| {
            std::fs::write(
                root.join("src/m07/f007.py"),
                format!("def f_7_7():\n    return {n}\n"),
            )
            .unwrap();
        },
    );
    println!("load average {}", load_average());
}

/// The 1, 5 and 15 minute load averages (Linux), or `?`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
