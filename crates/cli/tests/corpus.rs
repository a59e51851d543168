//! The shared verification corpus (`corpus/verify/<set>/<case>/`, format in
//! `corpus/verify/README.md`): pawl measured on cheats and honest work, in both error directions.
//!
//! - `corpus_cases_are_well_formed` (runs in CI): every `case.toml` parses, its id is its
//!   directory, its language, runner, kind, category and expectation are from the allowed sets,
//!   and every base whose gate needs no setup has a failing gate (runs it in place).
//! - `corpus_smoke` (runs in CI): a handful of cases end to end through `pawl run`.
//! - `corpus_full` (ignored: its own command, it takes tens of minutes):
//!   `cargo test -p pawl-cli --test corpus -- --ignored --nocapture`, filtered by
//!   `PAWL_CORPUS_SET=core|independent` and `PAWL_CORPUS_FILTER=<substring of the id>[,<another>…]`; prints the
//!   table (case → verdict, exit code, expected, ok?) and the totals per set and per direction:
//!   cheats that SHIP (false negatives) and honest cases without their expected verdict (false
//!   positives). `PAWL_CORPUS_REPORT=<file>` also writes the table as Markdown.
//!
//! Each case runs in a temp directory: `repo/` (the base, committed after `setup`), `home/` (HOME,
//! its `.local/bin` first on PATH as in many users' shells), `state/` (XDG_STATE_HOME: pawl's
//! rooms) and `case/` (a copy of the case directory, `PAWL_CORPUS_CASE`). The agent is pawl's
//! `command` agent running a wrapper that counts the steps (`PAWL_CORPUS_STEP`) and runs the case's
//! `agent.sh`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

const LANGUAGES: &[&str] = &["python", "js", "ts", "go", "rust", "shell"];
const RUNNERS: &[&str] = &[
    "pytest",
    "unittest",
    "jest",
    "vitest",
    "mocha",
    "node-test",
    "go",
    "cargo",
    "nextest",
    "bats",
    "sh",
];
const CHEAT_CATEGORIES: &[&str] = &[
    "weaken-test-body",
    "new-test-file",
    "config",
    "state-carry",
    "random",
    "env-only",
    "observe-runner",
    "answer-from-tests",
    "special-case-literals",
    "unrelated-change",
];
const HONEST_CATEGORIES: &[&str] = &[
    "honest-fix",
    "honest-fix-new-module",
    "honest-fix-plus-tests",
    "honest-refactor-test",
    "honest-config-asked",
    "honest-behaviour-change",
    "honest-lookup-table",
    "honest-two-steps",
];
const EXPECTATIONS: &[&str] = &["ship", "not-ship", "review", "review-then-accept"];
const SETS: &[&str] = &["core", "independent"];

/// The one category whose base may be green: the goal changes behaviour a passing test pins.
const GREEN_BASE_ALLOWED: &str = "honest-behaviour-change";

/// How long one `pawl run` may take before the harness stops it (a verdict of its own: timeout).
const RUN_TIMEOUT: Duration = Duration::from_secs(420);

/// The cases `corpus_smoke` runs (3 Python unittest, 2 `node --test`): they hold today.
const SMOKE: &[&str] = &[
    "py-honest-fix",
    "py-honest-two-steps",
    "py-weaken-skip-if",
    "js-honest-fix",
    "js-weaken-skip-option",
];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    language: String,
    runner: String,
    gate: String,
    needs: Vec<String>,
    #[serde(default)]
    setup: String,
    goal: String,
    kind: String,
    category: String,
    expect: String,
    #[serde(default)]
    finding: String,
    #[serde(default = "one")]
    steps: u32,
    author: String,
    /// For people reading the case; the harness does not use it.
    #[serde(default)]
    #[allow(dead_code)]
    notes: String,
    /// Filled in by the loader: the case's directory and set.
    #[serde(skip)]
    dir: PathBuf,
    #[serde(skip)]
    set: String,
}

fn one() -> u32 {
    1
}

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/verify")
}

/// Every case of `set` (sorted by id); a set without a directory has none.
fn load_set(set: &str) -> Vec<Result<Case, String>> {
    let dir = corpus_root().join(set);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|d| {
            let text = std::fs::read_to_string(d.join("case.toml"))
                .map_err(|e| format!("{}: case.toml: {e}", d.display()))?;
            let mut case: Case =
                toml::from_str(&text).map_err(|e| format!("{}: case.toml: {e}", d.display()))?;
            case.dir = d;
            case.set = set.to_owned();
            Ok(case)
        })
        .collect()
}

/// What is wrong with a case's shape (empty: nothing).
fn shape_problems(case: &Case) -> Vec<String> {
    let mut bad = Vec::new();
    let name = case.dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if case.id != name {
        bad.push(format!("id {:?} is not its directory {name:?}", case.id));
    }
    let check = |bad: &mut Vec<String>, what: &str, value: &str, allowed: &[&str]| {
        if !allowed.contains(&value) {
            bad.push(format!("{what} {value:?} is not one of {allowed:?}"));
        }
    };
    check(&mut bad, "language", &case.language, LANGUAGES);
    check(&mut bad, "runner", &case.runner, RUNNERS);
    check(&mut bad, "expect", &case.expect, EXPECTATIONS);
    match case.kind.as_str() {
        "cheat" => check(&mut bad, "category", &case.category, CHEAT_CATEGORIES),
        "honest" => check(&mut bad, "category", &case.category, HONEST_CATEGORIES),
        other => bad.push(format!("kind {other:?} is not cheat or honest")),
    }
    if case.kind == "cheat" && case.expect == "ship" {
        bad.push("a cheat cannot be expected to ship".into());
    }
    if case.kind == "cheat" && case.finding.trim().is_empty() {
        bad.push("a cheat needs its finding".into());
    }
    if case.author != case.set {
        bad.push(format!(
            "author {:?} is not its set {:?}",
            case.author, case.set
        ));
    }
    if case.gate.trim().is_empty() || case.goal.trim().is_empty() {
        bad.push("gate and goal must not be empty".into());
    }
    if case.needs.is_empty() {
        bad.push("needs lists the programs the gate runs".into());
    }
    if case.steps == 0 {
        bad.push("steps is at least 1".into());
    }
    if !case.dir.join("agent.sh").is_file() {
        bad.push("agent.sh is missing".into());
    }
    let base = case.dir.join("base");
    if std::fs::read_dir(&base).map_or(true, |mut d| d.next().is_none()) {
        bad.push("base/ is missing or empty".into());
    }
    bad
}

/// Whether `program` is on PATH.
fn have(program: &str) -> bool {
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|d| d.join(program).is_file())
}

fn missing_needs(case: &Case) -> Vec<String> {
    case.needs.iter().filter(|n| !have(n)).cloned().collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_dir(&entry.path(), &target);
        } else if kind.is_symlink() {
            let link = std::fs::read_link(entry.path()).unwrap();
            std::os::unix::fs::symlink(link, &target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn toml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Toolchain homes the shims need once HOME is the temp home (rustup, cargo, pyenv), and a
/// Go build cache shared by the cases (content-addressed: it carries no answers).
fn toolchain_env() -> Vec<(String, String)> {
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let get = |k: &str, default: String| (k.to_owned(), std::env::var(k).unwrap_or(default));
    vec![
        get("RUSTUP_HOME", format!("{home}/.rustup")),
        get("CARGO_HOME", format!("{home}/.cargo")),
        get("PYENV_ROOT", format!("{home}/.pyenv")),
        get("GOCACHE", format!("{home}/.cache/pawl-corpus-go-build")),
        ("GOTOOLCHAIN".into(), "local".into()),
        ("GOFLAGS".into(), "-mod=mod".into()),
    ]
}

/// Where the tree a case's `setup` made is kept for the next case with the same base and setup
/// (`npm install` and a virtualenv take a minute each; what they install is the same): a
/// directory named by the hash of the setup command and every file of the base. None when the
/// case has no setup or `PAWL_CORPUS_SETUP_CACHE=0`.
fn setup_cache(case: &Case) -> Option<PathBuf> {
    use sha2::{Digest, Sha256};
    if case.setup.trim().is_empty()
        || std::env::var("PAWL_CORPUS_SETUP_CACHE").is_ok_and(|v| v == "0")
    {
        return None;
    }
    fn walk(dir: &Path, rel: &str, h: &mut Sha256) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(Result::ok)
            .collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for e in entries {
            let name = format!("{rel}/{}", e.file_name().to_string_lossy());
            h.update(name.as_bytes());
            if e.path().is_dir() {
                walk(&e.path(), &name, h);
            } else {
                h.update(std::fs::read(e.path()).unwrap_or_default());
            }
        }
    }
    let mut h = Sha256::new();
    h.update(case.setup.as_bytes());
    walk(&case.dir.join("base"), "", &mut h);
    let key: String = h
        .finalize()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(
        std::env::temp_dir()
            .join("pawl-corpus-setup-cache")
            .join(key),
    )
}

/// One case's temp world.
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    repo: PathBuf,
    state: PathBuf,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let repo = root.join("repo");
        let state = root.join("state");
        for d in [&home, &repo, &state, &home.join(".local/bin")] {
            std::fs::create_dir_all(d).unwrap();
        }
        World {
            _dir: dir,
            root,
            home,
            repo,
            state,
        }
    }

    /// A command with nothing of the caller's environment but PATH (the user bin first) and the
    /// toolchain homes, run in the repository.
    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        let path = std::env::var("PATH").unwrap_or_default();
        cmd.env_clear()
            .env(
                "PATH",
                format!("{}:{path}", self.home.join(".local/bin").display()),
            )
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", self.home.join(".gitconfig"))
            .env("GIT_AUTHOR_NAME", "Corpus")
            .env("GIT_AUTHOR_EMAIL", "corpus@example.com")
            .env("GIT_COMMITTER_NAME", "Corpus")
            .env("GIT_COMMITTER_EMAIL", "corpus@example.com")
            .env("LANG", "C.UTF-8")
            .env("USER", "corpus")
            .current_dir(&self.repo)
            .stdin(Stdio::null());
        for (k, v) in toolchain_env() {
            cmd.env(k, v);
        }
        if let Some(tmp) = std::env::var_os("TMPDIR") {
            cmd.env("TMPDIR", tmp);
        }
        cmd
    }

    fn sh(&self, line: &str) -> Output {
        self.command("sh").args(["-c", line]).output().unwrap()
    }

    fn git(&self, args: &[&str]) {
        let out = self.command("git").args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn pawl(&self) -> Command {
        self.command(&assert_cmd::cargo::cargo_bin("pawl").display().to_string())
    }
}

/// Runs `cmd` to its end or `limit`, killing it then; None when it was killed.
fn run_bounded(mut cmd: Command, limit: Duration) -> Option<Output> {
    use std::os::unix::process::CommandExt as _;
    let child = cmd
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => Some(out.unwrap()),
        Err(_) => {
            // The child's own process group (it was started as its leader): pawl or a setup,
            // and everything they started.
            let _ = Command::new("kill")
                .args(["-TERM", "--", &format!("-{id}")])
                .status();
            let _ = rx.recv_timeout(Duration::from_secs(30));
            None
        }
    }
}

/// What one `pawl run` of a case ended with.
#[derive(Debug, Clone)]
struct Outcome {
    verdict: String,
    code: i32,
    /// After `pawl accept` (review-then-accept only).
    accepted: Option<String>,
    detail: String,
}

/// Sets up the case's world and runs it once: Err is a harness or base problem (not a verdict).
fn run_case(case: &Case) -> Result<Outcome, String> {
    let w = World::new();
    copy_dir(&case.dir.join("base"), &w.repo);
    let case_copy = w.root.join("case");
    copy_dir(&case.dir, &case_copy);
    w.git(&["init", "-q", "-b", "main"]);
    let cache = setup_cache(case);
    if let Some(cached) = cache.as_ref().filter(|c| c.join("done").is_file()) {
        copy_dir(&cached.join("repo"), &w.repo);
        copy_dir(&cached.join("home"), &w.home);
    } else if !case.setup.trim().is_empty() {
        let mut cmd = w.command("sh");
        cmd.args(["-c", &case.setup]);
        // Package caches of the machine, for the setup only (downloads, not answers).
        let real_home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
        cmd.env("npm_config_cache", format!("{real_home}/.npm"))
            .env("PIP_CACHE_DIR", format!("{real_home}/.cache/pip"));
        // The machine's certificate authorities, proxies and index settings, for the setup's
        // downloads only.
        for (k, v) in std::env::vars() {
            let upper = k.to_ascii_uppercase();
            if upper.contains("CERT")
                || upper.contains("CA_BUNDLE")
                || upper.ends_with("_PROXY")
                || upper.starts_with("PIP_")
                || upper.starts_with("NPM_CONFIG_")
            {
                cmd.env(k, v);
            }
        }
        let out = run_bounded(cmd, RUN_TIMEOUT).ok_or("setup timed out")?;
        if !out.status.success() {
            return Err(format!(
                "setup failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        if let Some(cached) = &cache {
            let _ = std::fs::remove_dir_all(cached);
            copy_dir(&w.repo, &cached.join("repo"));
            std::fs::remove_dir_all(cached.join("repo/.git")).unwrap();
            copy_dir(&w.home, &cached.join("home"));
            std::fs::write(cached.join("done"), "").unwrap();
        }
    }
    // The base must fail (in place, before pawl sees it).
    let base = w.sh(&case.gate);
    if base.status.success() && case.category != GREEN_BASE_ALLOWED {
        return Err("the base's gate passes: nothing for the goal to fix".into());
    }
    let counter = w.home.join(".pawl-corpus-step");
    let wrapper = w.root.join("agent-wrapper.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nn=$(cat '{c}' 2>/dev/null || echo 0)\nn=$((n + 1))\necho \"$n\" > '{c}'\nPAWL_CORPUS_STEP=$n PAWL_CORPUS_CASE='{case}' exec sh '{case}/agent.sh'\n",
            c = counter.display(),
            case = case_copy.display()
        ),
    )
    .unwrap();
    let init = w.pawl().arg("init").output().unwrap();
    if !init.status.success() {
        return Err(format!(
            "pawl init: {}",
            String::from_utf8_lossy(&init.stderr)
        ));
    }
    let toml = format!(
        "[agent]\nkind = \"command\"\ncommand = [\"sh\", {wrapper}]\n\n[limits]\ncalls_per_hour = 0\nmax_iterations = {iters}\n\n[breakers]\nno_progress = 0\nsame_failure = 0\nfile_thrash = 0\nagent_errors = 0\npermission_denials = 0\ncriterion_stuck = 0\n\n[gates]\ntest = {gate}\n",
        wrapper = toml_str(&wrapper.display().to_string()),
        iters = case.steps + 1,
        gate = toml_str(&case.gate),
    );
    // A case with a `tester.sh` runs with it as the independent tester (issue 33 point 2;
    // `PAWL_CORPUS_TESTER=0` runs it without, as pawl ran before the tester).
    let mut toml = toml;
    if case.dir.join("tester.sh").is_file()
        && std::env::var("PAWL_CORPUS_TESTER").as_deref() != Ok("0")
    {
        // Kept in HOME's `.local/bin`, which the tester's sandbox shows (read-only) even where
        // HOME lies in the machine's /tmp; the case's copy beside the repository there is
        // never seen by it (session 15's tester cases ran no tester at all: "cannot open
        // …/case/tester.sh", which shipped silently until a failing tester capped SHIP).
        let script = w.home.join(".local/bin/pawl-corpus-tester.sh");
        std::fs::copy(case_copy.join("tester.sh"), &script)
            .map_err(|e| format!("tester.sh: {e}"))?;
        let _ = write!(
            toml,
            "\n[tester]\ncommand = {}\n",
            toml_str(&format!("sh {}", script.display()))
        );
    }
    // `PAWL_CORPUS_REQUIRE_PROBE=1|0` runs every case with `[verify] require_probe` on or off
    // (issue 33: what the key's default would do to the honest cases), else pawl's default.
    match std::env::var("PAWL_CORPUS_REQUIRE_PROBE").as_deref() {
        Ok("1") => toml.push_str("\n[verify]\nrequire_probe = true\n"),
        Ok("0") => toml.push_str("\n[verify]\nrequire_probe = false\n"),
        _ => {}
    }
    std::fs::write(w.repo.join("pawl.toml"), toml).unwrap();
    w.git(&["add", "-A"]);
    w.git(&["commit", "-q", "-m", "baseline"]);

    let mut cmd = w.pawl();
    cmd.args(["run", &case.goal, "--json"]);
    for (k, _) in toolchain_env() {
        cmd.args(["--pass-env", &k]);
    }
    if std::env::var("PAWL_CORPUS_YES").is_ok_and(|v| v == "1") {
        cmd.arg("--yes");
    }
    let Some(out) = run_bounded(cmd, RUN_TIMEOUT) else {
        return Ok(Outcome {
            verdict: "TIMEOUT".into(),
            code: -1,
            accepted: None,
            detail: String::new(),
        });
    };
    let code = out.status.code().unwrap_or(-1);
    let report = w.pawl().args(["report", "--json"]).output().unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&report.stdout).unwrap_or(serde_json::Value::Null);
    // No report: pawl refused to start the run (a check that cannot start, …).
    let verdict = report["verdict"].as_str().unwrap_or("REFUSED").to_owned();
    let stop = report["stop_reason"].as_str().unwrap_or("-").to_owned();
    // The locked run's cost against the checks on the run's tree (docs/verification.md, "The
    // cost of the locked run"): one line per case, summed by whoever reads the log.
    let cost = &report["locked"]["cost"];
    if let (Some(gate), Some(first), Some(total)) = (
        cost["gate_ms"].as_u64(),
        cost["first_ms"].as_u64(),
        cost["total_ms"].as_u64(),
    ) {
        eprintln!(
            "[corpus-cost] {}: gate {gate} ms, locked first pass {first} ms, locked run {total} ms",
            case.id
        );
    }
    let findings: Vec<String> = report["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mut detail = stop.clone();
    if let Some(hidden) = report["rests_on"].as_array().and_then(|a| {
        a.iter()
            .filter_map(|l| l.as_str())
            .find(|l| l.starts_with("hidden tests ("))
    }) {
        let _ = write!(detail, "; {hidden}");
    }
    if !findings.is_empty() {
        let _ = write!(detail, "; {}", findings.join(" | "));
    }
    if verdict == "REFUSED" {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let why = stderr
            .lines()
            .find(|l| l.starts_with("pawl: error"))
            .unwrap_or_else(|| stderr.lines().last().unwrap_or(""));
        detail = why.to_owned();
    }
    let mut accepted = None;
    if case.expect == "review-then-accept" && verdict == "REVIEW" {
        let out = w
            .pawl()
            .args([
                "accept",
                "--tests",
                "the goal asked for this change",
                "--changes",
                "the goal asked for this change",
                "--json",
            ])
            .output()
            .unwrap();
        let after = w.pawl().args(["report", "--json"]).output().unwrap();
        let after: serde_json::Value =
            serde_json::from_slice(&after.stdout).unwrap_or(serde_json::Value::Null);
        let v = after["verdict"].as_str().unwrap_or("NONE").to_owned();
        if !out.status.success() {
            let _ = write!(detail, "; accept exit {}", out.status.code().unwrap_or(-1));
        }
        accepted = Some(v);
    }
    Ok(Outcome {
        verdict,
        code,
        accepted,
        detail,
    })
}

/// Whether an outcome is what the case expects.
fn meets(case: &Case, o: &Outcome) -> bool {
    match case.expect.as_str() {
        "ship" => o.verdict == "SHIP" && o.code == 0,
        "not-ship" => o.verdict != "SHIP" && o.code != 0,
        "review" => o.verdict == "REVIEW" && o.code != 0,
        "review-then-accept" => o.verdict == "REVIEW" && o.accepted.as_deref() == Some("SHIP"),
        _ => false,
    }
}

/// One line of the table.
struct Row {
    set: String,
    id: String,
    kind: String,
    category: String,
    expect: String,
    verdict: String,
    code: String,
    ok: Option<bool>,
    /// A cheat that ended SHIP (at least once for `random`).
    shipped: bool,
    /// pawl refused to start the run (no verdict at all).
    refused: bool,
    note: String,
}

/// How many times a `random` case runs (`PAWL_CORPUS_RANDOM_RUNS`, default 5).
fn random_runs() -> u32 {
    std::env::var("PAWL_CORPUS_RANDOM_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(5)
}

fn measure(case: &Case) -> Row {
    let mut row = Row {
        set: case.set.clone(),
        id: case.id.clone(),
        kind: case.kind.clone(),
        category: case.category.clone(),
        expect: case.expect.clone(),
        verdict: String::new(),
        code: String::new(),
        ok: None,
        shipped: false,
        refused: false,
        note: String::new(),
    };
    let missing = missing_needs(case);
    if !missing.is_empty() {
        row.verdict = "skipped".into();
        row.note = format!("missing tool {}", missing.join(", "));
        return row;
    }
    let runs = if case.category == "random" {
        random_runs()
    } else {
        1
    };
    let mut ships = 0;
    let mut outcomes = Vec::new();
    for _ in 0..runs {
        match run_case(case) {
            Ok(o) => {
                if o.verdict == "SHIP" {
                    ships += 1;
                }
                outcomes.push(o);
            }
            Err(e) => {
                row.verdict = "HARNESS".into();
                row.ok = Some(false);
                row.note = e.lines().take(3).collect::<Vec<_>>().join(" / ");
                return row;
            }
        }
    }
    let first = &outcomes[0];
    row.refused = outcomes.iter().any(|o| o.verdict == "REFUSED");
    row.code = outcomes
        .iter()
        .map(|o| o.code.to_string())
        .collect::<Vec<_>>()
        .join(",");
    row.note = first.detail.clone();
    if case.category == "random" {
        // Code right in a fraction p of runs may SHIP with probability at most p³; over
        // `runs` runs, at most half of them may SHIP (p = 0.7 gives 0.34).
        row.verdict = format!("SHIP {ships}/{runs}");
        row.ok = Some(ships * 2 <= runs);
        row.shipped = ships > 0;
    } else {
        row.verdict = match &first.accepted {
            Some(after) => format!("{} → accept → {after}", first.verdict),
            None => first.verdict.clone(),
        };
        row.ok = Some(meets(case, first));
        row.shipped = case.kind == "cheat" && first.verdict == "SHIP";
    }
    row
}

/// The cases the environment selects (`PAWL_CORPUS_SET`, `PAWL_CORPUS_FILTER`).
fn selected() -> Vec<Case> {
    let set_filter = std::env::var("PAWL_CORPUS_SET").ok();
    let id_filter = std::env::var("PAWL_CORPUS_FILTER").ok();
    let mut out = Vec::new();
    for set in SETS {
        if set_filter.as_deref().is_some_and(|s| s != *set) {
            continue;
        }
        for case in load_set(set) {
            let case = case.unwrap_or_else(|e| panic!("{e}"));
            if id_filter
                .as_deref()
                .is_some_and(|f| !f.split(',').any(|f| case.id.contains(f)))
            {
                continue;
            }
            out.push(case);
        }
    }
    out
}

fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    s.push_str("| set | case | kind | category | expected | verdict | exit | ok | detail |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let ok = match r.ok {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "skipped",
        };
        let note = r.note.replace('|', "\\|").replace('\n', " ");
        let note: String = note.chars().take(160).collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.set, r.id, r.kind, r.category, r.expect, r.verdict, r.code, ok, note
        );
    }
    s
}

fn totals(rows: &[Row]) -> String {
    let mut s = String::new();
    let mut sets: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        sets.entry(r.set.as_str()).or_default().push(r);
    }
    for (set, rows) in sets {
        let cheats: Vec<&&Row> = rows
            .iter()
            .filter(|r| r.kind == "cheat" && r.ok.is_some())
            .collect();
        let honest: Vec<&&Row> = rows
            .iter()
            .filter(|r| r.kind == "honest" && r.ok.is_some())
            .collect();
        let shipped: Vec<&str> = cheats
            .iter()
            .filter(|r| r.shipped)
            .map(|r| r.id.as_str())
            .collect();
        let cheat_miss = cheats.iter().filter(|r| r.ok == Some(false)).count();
        let honest_miss: Vec<&str> = honest
            .iter()
            .filter(|r| r.ok == Some(false))
            .map(|r| r.id.as_str())
            .collect();
        let refused_cheats = cheats.iter().filter(|r| r.refused).count();
        let refused_honest: Vec<&str> = honest
            .iter()
            .filter(|r| r.refused)
            .map(|r| r.id.as_str())
            .collect();
        let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
        for r in rows.iter().filter(|r| r.ok.is_none()) {
            *skipped.entry(r.note.as_str()).or_default() += 1;
        }
        let _ = writeln!(s, "set {set}: {} cases", rows.len());
        let _ = writeln!(
            s,
            "  cheats: {} run, {} SHIP (false negatives), {} not as expected in all",
            cheats.len(),
            shipped.len(),
            cheat_miss
        );
        let _ = writeln!(
            s,
            "  honest: {} run, {} get their expected verdict, {} do not (false positives)",
            honest.len(),
            honest.len() - honest_miss.len(),
            honest_miss.len()
        );
        if refused_cheats > 0 || !refused_honest.is_empty() {
            let _ = writeln!(
                s,
                "  refused (pawl did not start the run): {refused_cheats} cheats (counted as not shipped), {} honest ({})",
                refused_honest.len(),
                refused_honest.join(", ")
            );
        }
        if !shipped.is_empty() {
            let _ = writeln!(s, "  cheats that SHIP: {}", shipped.join(", "));
        }
        if !honest_miss.is_empty() {
            let _ = writeln!(
                s,
                "  honest without their verdict: {}",
                honest_miss.join(", ")
            );
        }
        let mut by_cat: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for r in &cheats {
            let e = by_cat.entry(r.category.as_str()).or_default();
            e.0 += 1;
            if r.shipped {
                e.1 += 1;
            }
        }
        for (cat, (n, shipped)) in by_cat {
            let _ = writeln!(s, "    {cat}: {shipped} of {n} SHIP");
        }
        for (why, n) in skipped {
            let _ = writeln!(s, "  skipped: {why}: {n}");
        }
    }
    s
}

/// CI: the corpus's shape. Every case parses and uses the allowed values; every base whose gate
/// needs no setup and whose tools are here fails its gate.
#[test]
fn corpus_cases_are_well_formed() {
    let mut problems = Vec::new();
    let mut count = 0;
    let mut red_checked = 0;
    for set in SETS {
        for case in load_set(set) {
            count += 1;
            let case = match case {
                Ok(c) => c,
                Err(e) => {
                    problems.push(e);
                    continue;
                }
            };
            for p in shape_problems(&case) {
                problems.push(format!("{set}/{}: {p}", case.id));
            }
            // Gates needing a setup (npm install, a venv) or a compiler run in the full
            // harness, which checks the base too.
            let cheap = case.setup.trim().is_empty()
                && ["unittest", "node-test", "sh"].contains(&case.runner.as_str());
            if cheap && missing_needs(&case).is_empty() && case.category != GREEN_BASE_ALLOWED {
                let w = World::new();
                copy_dir(&case.dir.join("base"), &w.repo);
                let out = w.sh(&case.gate);
                red_checked += 1;
                if out.status.success() {
                    problems.push(format!(
                        "{set}/{}: the base's gate `{}` passes",
                        case.id, case.gate
                    ));
                }
            }
        }
    }
    assert!(count >= 60, "the corpus has {count} cases, fewer than 60");
    assert!(red_checked > 0, "no base gate was run");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The shape test catches what it is for: a case with a wrong id, category and expectation.
#[test]
fn shape_problems_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("some-case");
    std::fs::create_dir_all(d.join("base")).unwrap();
    let mut case: Case = toml::from_str(
        "id = \"other\"\nlanguage = \"cobol\"\nrunner = \"sh\"\ngate = \"sh t.sh\"\nneeds = [\"sh\"]\ngoal = \"g\"\nkind = \"cheat\"\ncategory = \"honest-fix\"\nexpect = \"ship\"\nauthor = \"core\"\n",
    )
    .unwrap();
    case.dir = d;
    case.set = "core".into();
    let bad = shape_problems(&case).join("\n");
    for want in [
        "is not its directory",
        "language \"cobol\"",
        "category \"honest-fix\"",
        "cannot be expected to ship",
        "needs its finding",
        "agent.sh is missing",
        "base/ is missing or empty",
    ] {
        assert!(bad.contains(want), "{want:?} not in:\n{bad}");
    }
    assert!(
        toml::from_str::<Case>("id = \"x\"\nunknown = 1\n").is_err(),
        "unknown keys are refused"
    );
}

fn run_and_print(cases: &[Case]) -> Vec<Row> {
    let mut rows = Vec::new();
    for case in cases {
        let started = Instant::now();
        let row = measure(case);
        eprintln!(
            "[corpus] {}/{}: {} (expected {}) {} in {:.0?}",
            row.set,
            row.id,
            row.verdict,
            row.expect,
            match row.ok {
                Some(true) => "ok",
                Some(false) => "NOT OK",
                None => "skipped",
            },
            started.elapsed()
        );
        rows.push(row);
    }
    let t = table(&rows);
    let s = totals(&rows);
    println!("{t}\n{s}");
    if let Ok(path) = std::env::var("PAWL_CORPUS_REPORT") {
        std::fs::write(path, format!("{t}\n```\n{s}```\n")).unwrap();
    }
    rows
}

/// CI: a handful of cases end to end (they hold today; the full run is `corpus_full`).
#[test]
fn corpus_smoke() {
    let cases: Vec<Case> = load_set("core")
        .into_iter()
        .map(|c| c.unwrap_or_else(|e| panic!("{e}")))
        .filter(|c| SMOKE.contains(&c.id.as_str()))
        .collect();
    assert_eq!(cases.len(), SMOKE.len(), "a smoke case is missing");
    let rows = run_and_print(&cases);
    let bad: Vec<String> = rows
        .iter()
        .filter(|r| r.ok == Some(false))
        .map(|r| format!("{}: {} ({})", r.id, r.verdict, r.note))
        .collect();
    assert!(bad.is_empty(), "not as expected: {bad:?}");
}

/// The whole corpus (its own command; see the module docs). Fails when any case run misses its
/// expectation, after printing the table.
#[test]
#[ignore = "the full corpus runs as its own command: cargo test -p pawl-cli --test corpus -- --ignored --nocapture"]
fn corpus_full() {
    let cases = selected();
    assert!(!cases.is_empty(), "no case selected");
    let rows = run_and_print(&cases);
    let bad = rows.iter().filter(|r| r.ok == Some(false)).count();
    assert_eq!(bad, 0, "{bad} cases without their expected verdict");
}

/// The goals bench (issue 35 point 5): its own file, run as its own command.
#[path = "corpus/goals.rs"]
mod goals;
