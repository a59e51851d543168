//! Running checks as child processes and turning each into a [`CheckRun`].
//!
//! Every check is `sh -c <command>` started through `pawl-process`: its own process group,
//! stdin from `/dev/null`, both pipes drained, a timeout that stops the whole group (SIGTERM,
//! a grace period, SIGKILL), and the combined output logged to `<logs>/<name>-<step>.log`.
//! `{report}` in a command becomes a fresh path under the logs directory (see
//! [`crate::report`]); after the run the log (and the report, when written) is parsed into test
//! counts, and a failure is classified ([`crate::classify`]). A command recognised as a test
//! runner that has a hook for per-test ids ([`crate::parse::ids`]) runs unchanged with one more
//! variable (`PYTEST_ADDOPTS`, `GOFLAGS`, ...), whose report, in the same place a `{report}`
//! would have, is parsed the same way.
//!
//! [`run_checks`] runs `build` first and alone, then the other checks in parallel on at most
//! `jobs` threads; when the build fails the others are skipped, not run.
//!
//! Not here: the tree hash, the cache and the store (the caller binds results to the tree and
//! records them), and choosing the environment (the caller passes [`RunnerConfig::env`]).

use std::ffi::OsString;
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pawl_process::{Command, End, Outcome};
use sha2::{Digest as _, Sha256};

use crate::classify::classify_check;
use crate::diagnostics::parse_diagnostics;
use crate::gate::{BUILD, Check};
use crate::outcome::{CheckEnd, CheckRun};
use crate::parse::{TestSummary, ids, parse_any};
use crate::report;

/// Bytes of output kept as the evidence tail.
pub const TAIL_BYTES: usize = 8 * 1024;
/// At most this much of a log or report is read back for parsing (the end of it).
const MAX_PARSE_BYTES: u64 = 64 * 1024 * 1024;

/// The shell every check runs in.
const SHELL: &str = "/bin/sh";

/// How checks are run.
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// The working directory of every check: the repository root.
    pub root: PathBuf,
    /// Where logs and reports go (absolute; created if missing).
    pub logs_dir: PathBuf,
    /// The longest a check may run before its group is stopped.
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL when stopping a check.
    pub grace: Duration,
    /// How many checks may run at once (at least 1).
    pub jobs: usize,
    /// Variables set for every check, on top of pawl's own environment (or, with `clear_env`,
    /// the whole environment the check sees).
    pub env: Vec<(OsString, OsString)>,
    /// Start every check from an empty environment: only `env` (the run's seal) is seen.
    pub clear_env: bool,
    /// A number unique to this verification, used in log and report names.
    pub step: u64,
    /// Run every check contained (pawl-process's `sandbox`): every process a check starts
    /// ends with it. `None`: spawned directly.
    pub containment: Option<pawl_process::Containment>,
    /// The coverage a check's output must report, when it reports a figure (the story size's
    /// minimum, `pawl_core::coverage::bar`); `None`: a figure is recorded, never judged.
    pub coverage_bar: Option<pawl_core::coverage::Bar>,
}

impl RunnerConfig {
    /// Defaults for `root`: logs in `<root>/.pawl/logs`, 30 minutes per check, 5 s grace, two jobs.
    pub fn new(root: impl Into<PathBuf>, step: u64) -> RunnerConfig {
        let root = root.into();
        RunnerConfig {
            logs_dir: root.join(".pawl").join("logs"),
            root,
            timeout: Duration::from_secs(30 * 60),
            grace: Command::DEFAULT_GRACE,
            jobs: 2,
            env: Vec::new(),
            clear_env: false,
            step,
            containment: None,
            coverage_bar: None,
        }
    }
}

impl RunnerConfig {
    /// Runs the checks in the room whose files are `tree`, for the repository at `repo`: seen
    /// at the repository's own path when the containment can mount the room there (the check
    /// sandbox, pawl-process's `sandbox::check`), else at the room's path.
    pub fn in_room(&mut self, repo: &Path, tree: &Path) {
        self.root = match self
            .containment
            .as_mut()
            .and_then(|c| c.spec.sandbox.as_mut())
        {
            Some(sandbox) => sandbox.place_checks(repo, Some(tree)),
            None => tree.to_path_buf(),
        };
    }
}

/// The cargo runner variables a contained check gets (pawl-process's
/// `sandbox::check::cargo_runner_vars`: each test process with a temporary directory of its
/// own), except where the check's environment already names a runner or the project's
/// `.cargo/config.toml` (or `.cargo/config`) at `project` sets one: the project's runner is
/// kept, and its tests share the check's `/tmp` as before.
pub fn own_tmp_runner(
    env: &[(OsString, OsString)],
    launcher: &Path,
    project: &Path,
) -> Vec<(String, String)> {
    let configured = ["config.toml", "config"].iter().any(|f| {
        fs::read_to_string(project.join(".cargo").join(f))
            .is_ok_and(|t| t.lines().any(|l| l.trim_start().starts_with("runner")))
    });
    let named = env
        .iter()
        .any(|(k, _)| k.to_string_lossy().ends_with("_RUNNER"));
    if configured || named {
        return Vec::new();
    }
    pawl_process::sandbox::check::cargo_runner_vars(launcher)
}

/// A file-name-safe form of a check name (`criterion:C1` → `criterion-C1`).
pub fn safe_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() { "check".into() } else { s }
}

/// Runs `checks`: `build` first and alone, then the rest in parallel (at most `jobs` at once).
/// Results come back in the order of `checks`. When `build` does not pass, the other checks are
/// returned as skipped.
pub fn run_checks(checks: &[Check], cfg: &RunnerConfig) -> Vec<CheckRun> {
    let (first, rest): (Vec<&Check>, Vec<&Check>) = checks.iter().partition(|c| c.name == BUILD);
    let mut results: Vec<(String, CheckRun)> = Vec::with_capacity(checks.len());
    let mut build_ok = true;
    for c in first {
        let run = run_check(c, cfg);
        build_ok &= run.passed;
        results.push((c.name.clone(), run));
    }
    if build_ok {
        results.extend(run_parallel(&rest, cfg));
    } else {
        for c in rest {
            results.push((
                c.name.clone(),
                CheckRun::skipped(c, cfg.root.clone(), "the build gate failed"),
            ));
        }
    }
    let mut ordered = Vec::with_capacity(checks.len());
    for c in checks {
        if let Some(i) = results.iter().position(|(n, _)| *n == c.name) {
            ordered.push(results.swap_remove(i).1);
        }
    }
    ordered
}

fn run_parallel(checks: &[&Check], cfg: &RunnerConfig) -> Vec<(String, CheckRun)> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(String, CheckRun)>> = Mutex::new(Vec::with_capacity(checks.len()));
    let workers = cfg.jobs.clamp(1, checks.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(check) = checks.get(i) else { break };
                    let run = run_check(check, cfg);
                    if let Ok(mut done) = done.lock() {
                        done.push((check.name.clone(), run));
                    }
                }
            });
        }
    });
    done.into_inner().unwrap_or_default()
}

/// Runs one check to completion. Never fails: a check that cannot start is a failed check
/// ([`CheckEnd::SpawnFailed`], classified `environment`).
pub fn run_check(check: &Check, cfg: &RunnerConfig) -> CheckRun {
    let name = safe_name(&check.name);
    let log_path = cfg.logs_dir.join(format!("{name}-{}.log", cfg.step));
    // A sandboxed check sees neither pawl's logs nor the tree outside its room: it is given a
    // place for its report of its own (`sandbox::check::report_place`).
    let mut containment = cfg.containment.clone();
    if let Some(sandbox) = containment.as_mut().and_then(|c| c.spec.sandbox.as_mut())
        && !sandbox.writable.contains(&cfg.root)
    {
        sandbox.place_checks(&cfg.root, None);
    }
    // The collection pass runs as the check does (`collect`).
    let collect_containment = containment.clone();
    // Where the check runs, as evidence and for reading the project's files: the room's own
    // path when it is seen at the repository's (the repository's path is then the live tree).
    let ran_in = containment
        .as_ref()
        .and_then(|c| c.spec.sandbox.as_ref())
        .filter(|s| s.room_mounted())
        .and_then(|s| s.room_tree.clone())
        .unwrap_or_else(|| cfg.root.clone());
    // `npm test` and the like: judged as the runner the project's test script runs
    // (`crate::script`), read from the tree the check runs on; the command runs unchanged.
    let as_runner: Option<Check> = crate::script::resolve(
        &check.command,
        &|p: &Path| fs::read_to_string(ran_in.join(p)).ok(),
        &|p: &Path| ran_in.join(p).exists(),
    )
    .map(|command| Check {
        command,
        ..check.clone()
    });
    let judged_as = as_runner.as_ref().unwrap_or(check);
    let command_report = report::uses_report(&check.command)
        .then(|| report::report_file_name(&name, cfg.step, &check.command));
    // The runner's own hook for per-test ids, when the command has none (`parse::ids`).
    let hook_ctx = HookContext { cfg, dir: &ran_in };
    let hook = match command_report {
        Some(_) => None,
        None => ids::hook_for(&check.command, &hook_ctx),
    };
    let report_file = command_report.clone().or_else(|| {
        hook.filter(|h| h.writes_report())
            .map(|_| format!("{name}-{}.ids.xml", cfg.step))
    });
    // A sandboxed check writes its report into a directory of its own outside the repository's
    // path: the room is mounted there and pawl's `.pawl` is hidden, so a directory under the
    // logs would not be the one pawl reads. The report is moved to the logs afterwards.
    let sandboxed_report = match (
        &report_file,
        containment.as_mut().and_then(|c| c.spec.sandbox.as_mut()),
    ) {
        (Some(file), Some(sandbox)) => {
            let dir = match tempfile::Builder::new().prefix("pawl-report-").tempdir() {
                Ok(d) => d,
                Err(e) => {
                    let argv = vec![SHELL.to_owned(), "-c".to_owned(), check.command.clone()];
                    return failed_to_start(
                        check,
                        cfg,
                        argv,
                        format!("cannot create a directory for the report: {e}"),
                        false,
                    );
                }
            };
            let shown = pawl_process::sandbox::check::report_place(sandbox, dir.path(), file);
            Some((dir, shown))
        }
        _ => None,
    };
    // Where pawl keeps the report, as evidence.
    let report_path = report_file.as_ref().map(|f| cfg.logs_dir.join(f));
    // The path the check is given for its report.
    let shown_report = match (&report_path, &sandboxed_report) {
        (_, Some((_, shown))) => Some(shown.clone()),
        // dotnet resolves a relative LogFileName against each test project, and a hook's
        // variable is read wherever the command changes directory: they get the absolute path;
        // a `{report}` otherwise a path relative to the root (shorter, stable).
        (Some(p), None) if command_report.is_none() || check.command.contains("dotnet") => {
            Some(p.clone())
        }
        (Some(p), None) => Some(
            p.strip_prefix(&cfg.root)
                .map(Path::to_path_buf)
                .unwrap_or_else(|_| p.clone()),
        ),
        (None, None) => None,
    };
    let command_text = match (&command_report, &shown_report) {
        (Some(_), Some(shown)) => {
            report::substitute_report(&check.command, &shown.to_string_lossy())
        }
        _ => check.command.clone(),
    };
    let id_hook = hook.map(|h| {
        let current = ids::Context::var(&hook_ctx, h.var);
        let shown = shown_report
            .as_ref()
            .filter(|_| command_report.is_none())
            .map(|p| p.to_string_lossy().into_owned());
        (h.var, h.value_with(current.as_deref(), shown.as_deref()))
    });
    let argv = vec![SHELL.to_owned(), "-c".to_owned(), command_text.clone()];
    if let Err(e) = fs::create_dir_all(&cfg.logs_dir) {
        return failed_to_start(
            check,
            cfg,
            argv,
            format!("cannot create {}: {e}", cfg.logs_dir.display()),
            false,
        );
    }
    if let Some(p) = &report_path {
        // A report left over from an earlier run must never be read as this run's.
        let _ = fs::remove_file(p);
    }
    // The shell at its absolute path: an `sh` the agent put earlier on PATH is never the one
    // that runs the checks.
    let mut cmd = Command::new(SHELL);
    if cfg.clear_env {
        cmd.env_clear();
    }
    cmd.arg("-c")
        .arg(&command_text)
        .current_dir(&cfg.root)
        .timeout(cfg.timeout)
        .grace(cfg.grace)
        .tail_bytes(TAIL_BYTES)
        .log_file(&log_path)
        .env("PAWL_CHECK", &check.name)
        .envs(cfg.env.iter().map(|(k, v)| (k, v)));
    if let Some((var, value)) = &id_hook {
        cmd.env(var, value);
    }
    if let Some(c) = containment {
        // Every test process of a cargo check gets a temporary directory of its own.
        // Not where the room covers pawl's own binary (a pawl built in the repository it
        // checks): the runner would name a file the check cannot see.
        if !c.launcher.starts_with(&cfg.root) {
            cmd.envs(own_tmp_runner(&cfg.env, &c.launcher, &ran_in));
        }
        cmd.contain(c);
    }
    let outcome = match cmd.run() {
        Ok(o) => o,
        Err(e) => {
            let not_found = e.is_not_found();
            return failed_to_start(check, cfg, argv, e.to_string(), not_found);
        }
    };
    let end = end_of(&outcome, cfg.timeout);
    let (stdout, stderr) = read_log(&log_path);
    if let (Some((dir, _)), Some(file), Some(kept)) =
        (&sandboxed_report, &report_file, &report_path)
    {
        // Copied, not renamed: the temporary directory may be on another file system.
        let _ = fs::copy(dir.path().join(file), kept);
    }
    drop(sandboxed_report);
    let report_text = report_path.as_deref().and_then(read_tail);
    let mut tests = parse_any(&judged_as.command, &stdout, &stderr, report_text.as_deref());
    if let Some(t) = &mut tests {
        relativize(t, &cfg.root);
    }
    // A quiet runner names only its failures: its tests are listed by a collection pass.
    let mut collected = None;
    if let Some(t) = &mut tests
        && !t.ids.per_test()
    {
        collected = collect_ids(judged_as, cfg, collect_containment, t);
    }
    // A runner that reports failing tests has failed, whatever its exit code (`|| true`, a
    // wrapper script that loses the code): classify_check then says so.
    let passed = outcome.success() && tests.as_ref().is_none_or(|t| t.reported_failures() == 0);
    let diagnostics = parse_diagnostics(&check.command, &stdout, &stderr);
    // The tail is evidence shown to people and agents: no colour codes in it.
    let tail = crate::text::strip_ansi(&outcome.combined_tail_text()).into_owned();
    let coverage =
        crate::coverage::total_percent(&stdout).or_else(|| crate::coverage::total_percent(&stderr));
    // A coverage tool that passed with a figure under the story size's minimum has failed.
    let short = coverage
        .filter(|_| passed)
        .and_then(|c| pawl_core::coverage::shortfall(c, cfg.coverage_bar.as_ref()));
    let passed = passed && short.is_none();
    let failure = match short {
        Some(message) => Some(crate::outcome::CheckFailure {
            category: pawl_core::FailureCategory::Test,
            message: format!("{}: {message}", check.name),
        }),
        None => classify_check(
            &check.name,
            &end,
            passed,
            tests.as_ref(),
            diagnostics.as_ref(),
            &tail,
        ),
    };
    let items = if passed {
        None
    } else {
        crate::parse::items::check_items(
            &stdout,
            &stderr,
            &cfg.root.to_string_lossy(),
            tests.as_ref(),
        )
    };
    CheckRun {
        check: check.clone(),
        argv,
        cwd: ran_in,
        end,
        passed,
        duration: outcome.duration,
        tests,
        coverage,
        diagnostics,
        items,
        output_digest: Some(output_digest(&outcome)),
        tail,
        log_path: Some(log_path),
        report_path: report_path.filter(|p| p.exists()),
        failure,
        leaked: outcome.leaked,
        id_hook: id_hook
            .map(|(var, value)| format!("{var}={value}"))
            .or(collected),
    }
}

/// The collection pass (`crate::collect`): the check's runner asked to list its tests, run as
/// the check was (same directory, environment and containment), merged into `tests` when the
/// counts agree. Returns what ran, for the evidence.
fn collect_ids(
    check: &Check,
    cfg: &RunnerConfig,
    containment: Option<pawl_process::Containment>,
    tests: &mut TestSummary,
) -> Option<String> {
    let listings = crate::collect::listings(&check.command);
    if listings.is_empty() {
        return None;
    }
    let name = safe_name(&check.name);
    let mut listed: Vec<(String, crate::parse::TestStatus)> = Vec::new();
    let mut ran = Vec::new();
    for (i, (command, kind)) in listings.iter().enumerate() {
        // libtest's ignored tests are listed apart, only when the run ignored some.
        if *kind == crate::collect::Listing::LibtestIgnored && tests.skipped == 0 {
            continue;
        }
        let log = cfg
            .logs_dir
            .join(format!("{name}-{}.collect{i}.log", cfg.step));
        let mut cmd = Command::new(SHELL);
        if cfg.clear_env {
            cmd.env_clear();
        }
        cmd.arg("-c")
            .arg(command)
            .current_dir(&cfg.root)
            .timeout(cfg.timeout)
            .grace(cfg.grace)
            .tail_bytes(TAIL_BYTES)
            .log_file(&log)
            .env("PAWL_CHECK", &check.name)
            .envs(cfg.env.iter().map(|(k, v)| (k, v)));
        if let Some(c) = containment.clone() {
            cmd.contain(c);
        }
        let outcome = cmd.run().ok()?;
        if !outcome.success() {
            return None;
        }
        let (stdout, _) = read_log(&log);
        let written = cfg.root.to_string_lossy().into_owned();
        let resolved = fs::canonicalize(&cfg.root)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let found: Vec<(String, crate::parse::TestStatus)> =
            crate::collect::parse_listing(*kind, &stdout)
                .into_iter()
                .map(|(id, s)| {
                    let id = crate::parse::relative_id(&id, &[&written, &resolved]).to_owned();
                    (id, s)
                })
                .collect();
        match kind {
            crate::collect::Listing::LibtestIgnored => {
                for (id, status) in found {
                    if let Some(l) = listed.iter_mut().find(|(i, _)| *i == id) {
                        l.1 = status;
                    }
                }
            }
            _ => listed.extend(found),
        }
        ran.push(command.clone());
    }
    let n = listed.len();
    crate::collect::merge(tests, &listed)
        .then(|| format!("a collection pass listed {n} tests ({} listing)", ran.len()))
}

fn failed_to_start(
    check: &Check,
    cfg: &RunnerConfig,
    argv: Vec<String>,
    message: String,
    not_found: bool,
) -> CheckRun {
    let end = CheckEnd::SpawnFailed { message, not_found };
    let failure = classify_check(&check.name, &end, false, None, None, "");
    CheckRun {
        argv,
        end,
        failure,
        ..CheckRun::skipped(check, cfg.root.clone(), "")
    }
}

fn end_of(outcome: &Outcome, timeout: Duration) -> CheckEnd {
    match outcome.end {
        End::Exited(code) => CheckEnd::Exited { code },
        End::Signalled(signal) => CheckEnd::Signalled { signal },
        End::TimedOut => CheckEnd::TimedOut {
            after_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
        },
        End::IdleTimedOut => CheckEnd::IdleTimedOut,
        End::Stopped => CheckEnd::Stopped,
        End::Unknown => CheckEnd::Unknown,
    }
}

/// What a hook's rules read: the variable as the check would see it without pawl's addition
/// (the run's variables, else — unless the environment is cleared — pawl's own, which the check
/// inherits), and the runner's configuration files where the check runs.
struct HookContext<'a> {
    cfg: &'a RunnerConfig,
    dir: &'a Path,
}

/// At most this much of a configuration file is read for a hook's rules.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

impl ids::Context for HookContext<'_> {
    fn var(&self, name: &str) -> Option<String> {
        if let Some((_, v)) = self.cfg.env.iter().rev().find(|(k, _)| k == name) {
            return Some(v.to_string_lossy().into_owned());
        }
        if self.cfg.clear_env {
            return None;
        }
        std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
    }

    fn file(&self, name: &str) -> Option<String> {
        let f = fs::File::open(self.dir.join(name)).ok()?;
        let mut bytes = Vec::new();
        f.take(MAX_CONFIG_BYTES).read_to_end(&mut bytes).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Test ids under the check's directory become relative to it (jest and vitest JSON reports
/// name files by absolute path), as written and as resolved through symlinks.
fn relativize(tests: &mut TestSummary, root: &Path) {
    let written = root.to_string_lossy().into_owned();
    let resolved = fs::canonicalize(root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    tests.relativize_ids(&[&written, &resolved]);
}

/// SHA-256 over the two stream digests: one value that changes when any output byte does.
fn output_digest(outcome: &Outcome) -> String {
    let mut h = Sha256::new();
    h.update(outcome.stdout.sha256.0);
    h.update(outcome.stderr.sha256.0);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The end of a file (at most [`MAX_PARSE_BYTES`]) as text; `None` when it cannot be read.
fn read_tail(path: &Path) -> Option<String> {
    let mut f = fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    if len > MAX_PARSE_BYTES {
        f.seek(SeekFrom::Start(len - MAX_PARSE_BYTES)).ok()?;
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Splits a pawl-process log back into stdout and stderr (see its `capture` module).
fn read_log(path: &Path) -> (String, String) {
    let Some(text) = read_tail(path) else {
        return (String::new(), String::new());
    };
    let mut out = String::new();
    let mut err = String::new();
    for line in text.lines() {
        if let Some(l) = line.strip_prefix("out| ") {
            out.push_str(l);
            out.push('\n');
        } else if let Some(l) = line.strip_prefix("err| ") {
            err.push_str(l);
            err.push('\n');
        }
    }
    (out, err)
}

/// Test counts of a finished check, re-parsed from its log (for tools that only kept the log).
/// Unlike [`run_check`], it does not know the check's directory: test ids keep the absolute
/// paths a jest/vitest JSON report wrote (see [`TestSummary::relativize_ids`]).
pub fn parse_log(command: &str, log: &Path, report: Option<&Path>) -> Option<TestSummary> {
    let (out, err) = read_log(log);
    let report = report.and_then(read_tail);
    parse_any(command, &out, &err, report.as_deref())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_contained_check_runs_cargo_tests_with_a_tmp_of_their_own_unless_the_project_has_a_runner()
    {
        let dir = tempfile::tempdir().expect("tempdir");
        let launcher = Path::new("/opt/pawl/bin/pawl");
        let vars = super::own_tmp_runner(&[], launcher, dir.path());
        let linux = vars
            .iter()
            .find(|(k, _)| k == "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER")
            .expect("the x86_64 linux runner");
        assert_eq!(linux.1, "/opt/pawl/bin/pawl __pawl-step --own-tmp");
        // A runner the sealed environment names is the project's.
        let sealed = [(
            OsString::from("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER"),
            OsString::from("qemu-x86_64"),
        )];
        assert!(super::own_tmp_runner(&sealed, launcher, dir.path()).is_empty());
        // So is one its cargo configuration sets.
        std::fs::create_dir_all(dir.path().join(".cargo")).expect("mkdir");
        std::fs::write(
            dir.path().join(".cargo/config.toml"),
            "[target.x86_64-unknown-linux-gnu]\nrunner = \"valgrind\"\n",
        )
        .expect("config");
        assert!(super::own_tmp_runner(&[], launcher, dir.path()).is_empty());
        // A launcher whose path cargo would split is not used.
        assert!(super::own_tmp_runner(&[], Path::new("/my pawl/pawl"), Path::new("/x")).is_empty());
    }

    use super::*;

    #[test]
    fn names_are_file_safe() {
        assert_eq!(safe_name("criterion:C1"), "criterion-C1");
        assert_eq!(safe_name(""), "check");
    }
}
