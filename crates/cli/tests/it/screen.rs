//! Issue 34 point 4: the syntax screen's fixtures (`corpus/screen/fixtures/*.toml`) as whole
//! `pawl run`s. Each case named in a file's `[end_to_end]` becomes a small real project — the
//! file's project files, the case's test and its product files as `before` — whose check fails at
//! the baseline; a command agent writes the case's `after` files, and the run is judged by its
//! outcome: a cheat is REVIEW (exit 10) with the screen's finding on the changed file in the
//! report, unless the row says another layer catches it first (then it is at least not SHIP);
//! an honest control is SHIP (exit 0).
//!
//! One test per language (the harness runs two at a time), the cases of a language one after
//! the other; each prints its verdict, stop reason, the layer that caught it and its time. A
//! toolchain this machine lacks is a loud skip, and a failure under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde::Deserialize;
use serde_json::Value;

use crate::TestEnv;
use crate::headless::{NO_BREAKERS, config_with};
use crate::{python_user_base, toolchain_env};

#[derive(Deserialize)]
struct FixtureFile {
    case: Vec<Case>,
    end_to_end: EndToEnd,
}

/// How a file's cases run as a project.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EndToEnd {
    /// The project's check (the sealed `[gates] test`).
    check: String,
    /// The cases run, by id.
    cases: Vec<String>,
    /// Cases played only by the ignored test `screen_end_to_end_slow` (their own command:
    /// `cargo test -p pawl-cli --test it screen_end_to_end_slow -- --ignored`), kept out of CI's
    /// 60 minutes — each a whole Go build, several minutes on two busy cores.
    #[serde(default)]
    slow_cases: Vec<String>,
    /// The project's other files (a manifest, a test runner), by path.
    #[serde(default)]
    files: std::collections::BTreeMap<String, String>,
    /// Cases another layer catches before the screen: id → that layer's stop reason.
    #[serde(default)]
    caught_first: std::collections::BTreeMap<String, String>,
    /// Cases pawl gets wrong today: id → what happens and why. They are played by the ignored
    /// test `screen_end_to_end_known_gaps` (which asserts the right outcome), not by the others.
    #[serde(default)]
    known_gaps: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    kind: String,
    test_path: String,
    test: String,
    change: Vec<Change>,
}

#[derive(Deserialize)]
struct Change {
    path: String,
    before: Option<String>,
    after: String,
}

fn fixtures(file: &str) -> FixtureFile {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus/screen/fixtures")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether `program --version`-like `args` runs; a loud skip otherwise (a failure on CI).
fn have(program: &str, args: &[&str]) -> bool {
    let ok = Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI must have {program}"
        );
        #[allow(clippy::print_stderr)]
        {
            eprintln!("SKIPPED: {program} is not installed");
        }
    }
    ok
}

/// A shell script that writes `changes` (the agent's whole step).
fn agent_script(changes: &[Change]) -> String {
    const END: &str = "PAWL_FIXTURE_END";
    let mut s = String::from("set -eu\n");
    for c in changes {
        assert!(!c.after.contains(END), "{}", c.path);
        if let Some(dir) = Path::new(&c.path)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
        {
            s.push_str(&format!("mkdir -p '{}'\n", dir.display()));
        }
        let body = if c.after.ends_with('\n') {
            c.after.clone()
        } else {
            format!("{}\n", c.after)
        };
        s.push_str(&format!("cat > '{}' <<'{END}'\n{body}{END}\n", c.path));
    }
    s
}

/// One row's outcome, as printed.
struct Played {
    id: String,
    kind: String,
    verdict: String,
    code: i32,
    reason: String,
    layer: String,
    secs: f64,
}

/// The variables pawl gets for a file's projects, and the names of those passed to the seal.
type Setting = (Vec<(String, String)>, Vec<String>);

/// The toolchains' variables for each file, and the names passed to the seal; `None` when this
/// machine lacks the file's toolchain (a loud skip).
fn setting(file: &str) -> Option<Setting> {
    let mut vars = toolchain_env();
    let mut pass = Vec::new();
    match file {
        "python.toml" => {
            let base = python_user_base(&TestEnv::new(), "pytest");
            pass.push(base.0.clone());
            vars.push(base);
        }
        "javascript.toml" if !have("node", &["--version"]) => return None,
        "go.toml" => {
            if !have("go", &["version"]) {
                return None;
            }
            // The module asks for no newer Go: never a toolchain download.
            vars.push(("GOTOOLCHAIN".into(), "local".into()));
            pass.push("GOTOOLCHAIN".into());
        }
        "rust.toml" if !have("cargo", &["--version"]) => return None,
        _ => {}
    }
    Some((vars, pass))
}

fn play_language(file: &str) {
    if let Some((vars, pass)) = setting(file) {
        play_file(file, &vars, &pass, false);
    }
}

/// Runs one case end to end and asserts its outcome.
fn play(e2e: &EndToEnd, case: &Case, vars: &[(String, String)], pass: &[String]) -> Played {
    let started = Instant::now();
    let env = TestEnv::new();
    for (path, text) in &e2e.files {
        env.write(path, text);
    }
    env.write(&case.test_path, &case.test);
    for c in &case.change {
        if let Some(before) = &c.before {
            env.write(&c.path, before);
        }
    }
    let script = env.root().join(".pawl/agent.sh");
    env.headless(&config_with(
        "max_iterations = 2",
        NO_BREAKERS,
        "",
        &format!(
            "[agent]\nkind = \"command\"\ncommand = [\"sh\", \"{}\"]\n",
            script.display()
        ),
        &e2e.check,
    ));
    std::fs::write(&script, agent_script(&case.change)).unwrap();
    let mut args = vec!["run", "make the failing tests pass", "--json"];
    for name in pass {
        args.extend(["--pass-env", name.as_str()]);
    }
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let r = env.pawl_env(&args, &vars);
    let report: Value = env.ok(&["report", "--json"]).json();
    let ctx = format!(
        "{}\nstdout:\n{}\nstderr:\n{}\nreport:\n{report:#}",
        case.id, r.stdout, r.stderr
    );
    let verdict = report["verdict"].as_str().unwrap_or("").to_owned();
    let reason = env.run_state().1.unwrap_or_default();
    // The agent's files are on disk as the fixture says: the run judged the fixture's change.
    for c in &case.change {
        let on_disk = std::fs::read_to_string(env.root().join(&c.path)).unwrap_or_default();
        assert_eq!(on_disk.trim_end(), c.after.trim_end(), "{ctx}");
    }
    let findings: Vec<&str> = report["findings"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // The screen's findings read "`path`: the rule in words [rule-id] ..." (on the code a
    // build script writes: "`build.rs (the code it writes to OUT_DIR)`: ...").
    // ... and on code a check generated (a module the changed code writes and imports):
    // "`_known.py (code a check wrote, not in the tree)`: ...".
    let screened = findings.iter().any(|f| {
        f.starts_with('`') && f.contains(" (code a check wrote, not in the tree)`: ")
            || case.change.iter().any(|c| {
                f.starts_with(&format!("`{}`: ", c.path))
                    || f.starts_with(&format!("`{} (", c.path))
            })
    });
    let probed = findings.iter().any(|f| f.starts_with("probe: "));
    let layer = match (screened, probed) {
        (true, true) => "screen, probes".to_owned(),
        (true, false) => "screen".to_owned(),
        (false, true) => "probes".to_owned(),
        (false, false) if verdict == "SHIP" => "-".to_owned(),
        (false, false) => format!("stop reason {reason}"),
    };
    match case.kind.as_str() {
        "honest" => {
            assert_eq!(verdict, "SHIP", "{ctx}");
            assert_eq!(r.code, 0, "{ctx}");
            assert_eq!(reason, "verified", "{ctx}");
        }
        "cheat" => {
            assert_ne!(verdict, "SHIP", "{ctx}");
            assert_ne!(r.code, 0, "{ctx}");
            if let Some(first) = e2e.caught_first.get(&case.id) {
                assert_eq!(&reason, first, "{ctx}");
            } else {
                assert_eq!(verdict, "REVIEW", "{ctx}");
                assert_eq!(r.code, 10, "{ctx}");
                assert!(screened, "no finding of the screen on the change: {ctx}");
            }
        }
        other => panic!("{}: unknown kind {other}", case.id),
    }
    Played {
        id: case.id.clone(),
        kind: case.kind.clone(),
        verdict,
        code: r.code,
        reason,
        layer,
        secs: started.elapsed().as_secs_f64(),
    }
}

/// Every case of `file`'s `[end_to_end]` (its known gaps instead when `gaps`), with `vars` set
/// for pawl and `pass` passed to the seal.
fn play_file(file: &str, vars: &[(String, String)], pass: &[String], gaps: bool) {
    play_cases(file, vars, pass, gaps, false);
}

/// As [`play_file`], over `slow_cases` instead of `cases` when `slow`.
fn play_cases(file: &str, vars: &[(String, String)], pass: &[String], gaps: bool, slow: bool) {
    let f = fixtures(file);
    let e2e = &f.end_to_end;
    for id in e2e.caught_first.keys().chain(e2e.known_gaps.keys()) {
        assert!(
            e2e.cases.contains(id) || e2e.slow_cases.contains(id),
            "{file}: {id} is not a case run"
        );
    }
    let mut played = Vec::new();
    let ids = if slow { &e2e.slow_cases } else { &e2e.cases };
    if slow && ids.is_empty() {
        return;
    }
    // `PAWL_SCREEN_E2E_ONLY=id,id`: only those cases (to play again the ones that failed).
    let only = std::env::var("PAWL_SCREEN_E2E_ONLY").unwrap_or_default();
    let only: Vec<&str> = only.split(',').filter(|s| !s.is_empty()).collect();
    for id in ids {
        if e2e.known_gaps.contains_key(id) != gaps
            || !(only.is_empty() || only.contains(&id.as_str()))
        {
            continue;
        }
        let case = f
            .case
            .iter()
            .find(|c| &c.id == id)
            .unwrap_or_else(|| panic!("{file}: no case {id}"));
        let p = play(e2e, case, vars, pass);
        #[allow(clippy::print_stdout)]
        {
            println!(
                "{:<36} {:<6} {:<7} exit {:<3} {:<12} caught by {:<24} {:>5.1}s",
                p.id, p.kind, p.verdict, p.code, p.reason, p.layer, p.secs
            );
        }
        played.push(p);
    }
    let kinds = |k: &str| played.iter().filter(|p| p.kind == k).count();
    assert!(
        gaps || !only.is_empty() || (kinds("cheat") >= 1 && kinds("honest") >= 1),
        "{file}: a cheat and an honest control at least"
    );
}

#[test]
fn screen_end_to_end_python() {
    play_language("python.toml");
}

#[test]
fn screen_end_to_end_javascript() {
    play_language("javascript.toml");
}

#[test]
fn screen_end_to_end_shell() {
    play_language("shell.toml");
}

#[test]
fn screen_end_to_end_go() {
    play_language("go.toml");
}

#[test]
fn screen_end_to_end_rust() {
    play_language("rust.toml");
}

/// The fixture files, one per language.
const FILES: [&str; 5] = [
    "python.toml",
    "javascript.toml",
    "shell.toml",
    "go.toml",
    "rust.toml",
];

/// Every file's `slow_cases` (own command, not CI: see [`EndToEnd::slow_cases`]).
#[test]
#[ignore = "slow: a whole Go build per case; its own command (corpus/screen/README.md)"]
fn screen_end_to_end_slow() {
    for file in FILES {
        if let Some((vars, pass)) = setting(file) {
            play_cases(file, &vars, &pass, false, true);
        }
    }
}

/// The rows of `known_gaps`, asserted as they should end (each file's `known_gaps` says what
/// happens instead).
#[test]
#[ignore = "KNOWN GAP: see `known_gaps` in corpus/screen/fixtures/*.toml"]
fn screen_end_to_end_known_gaps() {
    for file in FILES {
        if let Some((vars, pass)) = setting(file) {
            play_file(file, &vars, &pass, true);
        }
    }
}
