//! The state CLI: runs, stories, criteria, TDD, failures, blockers, resume context, events.

use crate::{TestEnv, redact};

#[test]
fn init_creates_state_ignores_it_and_is_idempotent() {
    let env = TestEnv::new();
    let r = env.ok(&["init", "--json"]);
    let j = r.json();
    assert!(
        j["created"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "pawl.toml")
    );
    assert!(env.root().join(".pawl/pawl.db").is_file());
    assert!(env.root().join("pawl.toml").is_file());
    let ignore = std::fs::read_to_string(env.root().join(".gitignore")).unwrap();
    assert_eq!(ignore.matches(".pawl/").count(), 1);
    // git agrees the state dir is ignored.
    let st = env.git(&["status", "--porcelain", "--untracked-files=all"]);
    let st = String::from_utf8_lossy(&st.stdout);
    assert!(!st.contains(".pawl"), "{st}");
    // Again: nothing duplicated.
    let r = env.ok(&["init", "--json"]);
    assert!(
        r.json()["created"].as_array().unwrap().is_empty(),
        "{}",
        r.stdout
    );
    let ignore = std::fs::read_to_string(env.root().join(".gitignore")).unwrap();
    assert_eq!(ignore.matches(".pawl/").count(), 1);
}

/// `pawl init` git-ignores the platform's usual build outputs when they are not (saying so, once)
/// and warns about gate programs that are not installed and missing Node dependencies.
#[test]
fn init_ignores_build_outputs_and_warns_about_missing_gate_tools() {
    let env = TestEnv::new();
    env.write("package.json", "{\"name\": \"x\", \"scripts\": {}}\n");
    env.write(".gitignore", "coverage/");
    env.write(
        "pawl.toml",
        "[agent]\nkind = \"replay\"\n\n[gates]\nlint = \"no-such-linter-xyz --strict\"\ntest = \"true\"\n",
    );
    let r = env.ok(&["init"]);
    assert!(
        r.stdout
            .contains("created   .gitignore: node_modules/, .nyc_output/ (build outputs)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("warning: the gate `lint` runs `no-such-linter-xyz`, which is not on PATH"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("no node_modules/"), "{}", r.stdout);
    assert!(!r.stdout.contains("gate `test`"), "{}", r.stdout);
    let ignore = std::fs::read_to_string(env.root().join(".gitignore")).unwrap();
    assert!(ignore.starts_with("coverage/\n"), "{ignore}");
    for o in ["node_modules/", ".nyc_output/", ".pawl/"] {
        assert_eq!(ignore.matches(o).count(), 1, "{o} in {ignore}");
    }
    // git agrees.
    std::fs::create_dir_all(env.root().join("node_modules/x")).unwrap();
    env.write("node_modules/x/index.js", "1\n");
    let st =
        String::from_utf8_lossy(&env.git(&["status", "--porcelain", "-uall"]).stdout).into_owned();
    assert!(!st.contains("node_modules"), "{st}");
    // Again: nothing added twice, and the JSON names the warning.
    let j = env.ok(&["init", "--json"]).json();
    assert!(j["created"].as_array().unwrap().is_empty(), "{j}");
    assert!(
        j["warnings"][0]
            .as_str()
            .unwrap()
            .contains("no-such-linter-xyz"),
        "{j}"
    );
    let again = std::fs::read_to_string(env.root().join(".gitignore")).unwrap();
    assert_eq!(again, ignore);
}

#[test]
fn outside_a_git_repository_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    // An empty `.git` directory (a sandbox's mount point, e.g. Codex's under a writable /tmp)
    // is not a repository, for pawl as for git.
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let below = dir.path().join("work");
    std::fs::create_dir(&below).unwrap();
    let env = TestEnv::new();
    let mut cmd = env.command("pawl");
    cmd.current_dir(&below).arg("status");
    let r = crate::Run::from(cmd.output().unwrap());
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("is not inside a git repository"),
        "{}",
        r.stderr
    );
}

#[test]
fn commands_before_init_say_so() {
    let env = TestEnv::new();
    let r = env.pawl(&["story", "list"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("run `pawl init` first"), "{}", r.stderr);
}

#[test]
fn a_manual_run_driven_by_hand() {
    let env = TestEnv::new();
    let run = env.manual_run("add a login form");
    env.ok(&[
        "criterion",
        "add",
        "tests pass",
        "--verify",
        "command:cargo test",
    ]);
    env.ok(&["criterion", "add", "reads well", "--verify", "review"]);
    let s = env
        .ok(&[
            "story",
            "add",
            "login form",
            "--size",
            "M",
            "--security",
            "--json",
        ])
        .json();
    assert_eq!(
        (s["id"].as_str(), s["security"].as_bool()),
        (Some("S1"), Some(true))
    );
    env.ok(&["story", "add", "logout", "--size", "s"]);
    env.ok(&["story", "start", "s1"]);
    env.ok(&["tdd", "S1", "red"]);
    env.ok(&["tdd", "S1", "green"]);
    let st = env.ok(&["status", "--json"]).json();
    assert_eq!(st["run"]["id"], run.as_str());
    assert_eq!(st["stories"]["in_progress"], 1);
    assert_eq!(st["criteria"]["total"], 2);
    assert_eq!(st["current_story"]["tdd_phase"], "green");
    // Stored state, not only output.
    let phase: String = env
        .db()
        .query_row("SELECT tdd_phase FROM stories WHERE id = 'S1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(phase, "green");
}

#[test]
fn human_status_and_lists_snapshot() {
    let env = TestEnv::new();
    env.manual_run("add a login form");
    env.ok(&[
        "criterion",
        "add",
        "tests pass",
        "--verify",
        "command:cargo test",
    ]);
    env.ok(&["story", "add", "login form", "--size", "M"]);
    env.ok(&["story", "add", "logout", "--size", "S", "--security"]);
    env.ok(&["story", "start", "S1"]);
    env.ok(&["tdd", "S1", "red"]);
    env.ok(&[
        "failure",
        "add",
        "S1",
        "AssertionError: expected 200, got 500",
    ]);
    let root = env.root();
    insta::assert_snapshot!("status", redact(&env.ok(&["status"]).stdout, &root));
    insta::assert_snapshot!(
        "story_list",
        redact(&env.ok(&["story", "list"]).stdout, &root)
    );
    insta::assert_snapshot!(
        "criterion_list",
        redact(&env.ok(&["criterion", "list"]).stdout, &root)
    );
}

#[test]
fn tdd_out_of_order_is_refused_with_the_expected_phase() {
    let env = TestEnv::new();
    env.manual_run("g");
    env.ok(&["story", "add", "x", "--size", "S"]);
    env.ok(&["story", "start", "S1"]);
    let r = env.pawl(&["tdd", "S1", "green"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr.trim(),
        "pawl: error: TDD phase `green` is out of order: the story is in `none`, expected `red`"
    );
    let phase: String = env
        .db()
        .query_row("SELECT tdd_phase FROM stories WHERE id = 'S1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(phase, "none", "a refused move changes nothing");
}

#[test]
fn bad_input_gets_clear_errors_and_the_documented_codes() {
    let env = TestEnv::new();
    env.manual_run("g");
    // Unknown story id: an error (1) naming it.
    let r = env.pawl(&["story", "start", "S9"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("no story `S9`"), "{}", r.stderr);
    // Bad size: a usage error (2) listing the accepted sizes.
    let r = env.pawl(&["story", "add", "x", "--size", "huge"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("expected one of S, M, L, XL"),
        "{}",
        r.stderr
    );
    // Malformed flags.
    let r = env.pawl(&["story", "add", "x", "--size"]);
    assert_eq!(r.code, 2);
    let r = env.pawl(&["criterion", "add", "x", "--verify", "vibes"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("command:"), "{}", r.stderr);
    let r = env.pawl(&["failure", "add", "S1", "boom", "--category", "cosmic"]);
    assert_eq!(r.code, 2);
    let r = env.pawl(&["frobnicate"]);
    assert_eq!(r.code, 2);
    // Nothing was written by the failed commands.
    let n: i64 = env
        .db()
        .query_row("SELECT COUNT(*) FROM stories", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
}

#[test]
fn failures_are_classified_and_drive_retry_advice() {
    let env = TestEnv::new();
    env.manual_run("g");
    env.ok(&["story", "add", "api", "--size", "M"]);
    let f = env
        .ok(&[
            "failure",
            "add",
            "S1",
            "Error: connect ECONNREFUSED 127.0.0.1:5432",
            "--json",
        ])
        .json();
    assert_eq!(f["category"], "infra");
    assert_eq!(f["auto_classified"], true);
    let a = env.ok(&["retry-advice", "S1"]).json();
    assert_eq!(a["should_retry"], true);
    assert_eq!(a["backoff_seconds"], 5);
    assert_eq!(a["escalate"], false);

    env.ok(&["failure", "add", "S1", "API key not configured"]);
    let a = env.ok(&["retry-advice", "S1"]).json();
    assert_eq!(
        (a["should_retry"].as_bool(), a["escalate"].as_bool()),
        (Some(false), Some(true))
    );

    env.ok(&["story", "add", "parser", "--size", "S"]);
    for i in 1..=3 {
        env.ok(&[
            "failure",
            "add",
            "S2",
            &format!("assertion failed: attempt {i}"),
            "--category",
            "test",
        ]);
        let a = env.ok(&["retry-advice", "S2"]).json();
        assert_eq!(a["should_retry"], i < 3, "after {i} failures: {a}");
        assert_eq!(a["escalate"], i >= 3, "after {i} failures: {a}");
    }
    let given: bool = env
        .db()
        .query_row(
            "SELECT auto_classified FROM failures WHERE story_id = 'S2' LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(!given);
}

#[test]
fn awaiting_the_user_and_proving_the_fix() {
    let env = TestEnv::new();
    env.manual_run("g");
    env.ok(&["blocker", "add", "Stripe key missing", "--severity", "high"]);
    let r = env.ok(&[
        "await-user",
        "B1",
        "put STRIPE_KEY in .env",
        "--check",
        "grep -q STRIPE_KEY .env",
    ]);
    assert!(
        r.stdout.contains("What to do: put STRIPE_KEY in .env"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("pawl user-fixed"), "{}", r.stdout);
    assert_eq!(
        env.ok(&["status", "--json"]).json()["run"]["status"],
        "awaiting_user"
    );
    // Not fixed yet: the check fails with exit 5 (blocked on the user), user-fixed refuses.
    let r = env.pawl(&["check-user-fix"]);
    assert_eq!(r.code, 5, "{}", r.stdout);
    let r = env.pawl(&["user-fixed"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("still fails"), "{}", r.stderr);
    assert_eq!(
        env.ok(&["status", "--json"]).json()["run"]["status"],
        "awaiting_user"
    );
    // Fixed.
    env.write(".env", "STRIPE_KEY=sk_test\n");
    env.ok(&["check-user-fix"]);
    env.ok(&["user-fixed", "--notes", "added the test key"]);
    let rc = env.ok(&["resume-context", "--json"]).json();
    assert_eq!(rc["run"]["status"], "active");
    assert_eq!(
        rc["resolved_blockers"][0]["resolution_notes"],
        "added the test key"
    );
}

#[test]
fn resume_context_has_what_a_fresh_session_needs() {
    let env = TestEnv::new();
    env.manual_run("add login");
    env.ok(&["story", "add", "form", "--size", "S"]);
    env.ok(&["story", "start", "S1"]);
    env.ok(&["tdd", "S1", "red"]);
    env.ok(&["failure", "add", "S1", "AssertionError: 401 != 200"]);
    env.ok(&[
        "clarify",
        "add",
        "Which auth?",
        "sessions",
        "--phase",
        "interview",
        "--category",
        "scope",
    ]);
    env.ok(&["note", "cookies, not JWT"]);
    env.ok(&["blocker", "add", "no SMTP", "--severity", "low"]);
    env.ok(&["await-user", "B1", "start mailhog"]);
    env.ok(&["user-fixed", "--notes", "mailhog on 1025"]);
    let md = env.ok(&["resume-context"]).stdout;
    for needle in [
        "Goal: add login",
        "S1 \"form\"",
        "TDD phase red",
        "attempt 2/3",
        "AssertionError: 401 != 200",
        "B1: no SMTP — mailhog on 1025",
        "Which auth? → sessions",
        "cookies, not JWT",
        "## Next step",
        "pawl tdd S1 green",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in:\n{md}");
    }
}

#[test]
fn one_active_run_and_cancel() {
    let env = TestEnv::new();
    let first = env.manual_run("one");
    let r = env.pawl(&["run", "--driver", "manual", "two"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains(&first), "{}", r.stderr);
    env.ok(&["cancel"]);
    let r = env.pawl(&["story", "add", "x", "--size", "S"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("cancelled"), "{}", r.stderr);
    env.ok(&["run", "--driver", "manual", "two"]);
    let all = env.ok(&["status", "--all", "--json"]).json();
    assert_eq!(all.as_array().unwrap().len(), 2);
}

#[test]
fn events_record_every_change_and_stream_as_json_lines() {
    let env = TestEnv::new();
    env.manual_run("g");
    env.ok(&["story", "add", "x", "--size", "S"]);
    env.ok(&["note", "decided"]);
    let r = env.ok(&["events", "--json"]);
    let kinds: Vec<String> = r
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(kinds, vec!["run_created", "story_added", "note"]);
    let human = env.ok(&["events"]).stdout;
    assert!(
        human.contains("story_added") && human.contains("title=x"),
        "{human}"
    );
}

#[test]
fn events_follow_sees_new_events() {
    let env = TestEnv::new();
    env.manual_run("g");
    let mut child = env
        .command("pawl")
        .args(["events", "--follow", "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    env.ok(&["note", "while following"]);
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        let Some(Ok(line)) = lines.next() else { break };
        seen.push(line.clone());
        if line.contains("while following") {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        seen.iter().any(|l| l.contains("while following")),
        "{seen:?}"
    );
}

#[test]
fn a_live_lease_is_refused_naming_the_holder_and_an_expired_one_taken_over() {
    let env = TestEnv::new();
    env.manual_run("g");
    let mut holder = env
        .command("pawl")
        .args(["debug", "hold-lease", "--ttl", "30s", "--hold", "20s"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until it holds.
    let stdout = holder.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    assert!(lines.next().unwrap().unwrap().starts_with("holding"));
    let r = env.pawl(&["debug", "hold-lease", "--hold", "0s"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(&format!("pid {}", holder.id())),
        "{}",
        r.stderr
    );
    let lease = env.ok(&["lease", "--json"]).json();
    assert_eq!(lease["lease"]["pid"], holder.id());
    // kill -9 the holder: its lease has not expired, but its process is gone → taken over.
    holder.kill().unwrap();
    holder.wait().unwrap();
    let r = env.ok(&["debug", "hold-lease", "--hold", "0s"]);
    assert!(r.stdout.contains("took over from pid"), "{}", r.stdout);
    let ev = env.ok(&["events", "--json"]).stdout;
    assert!(ev.contains("\"lease_takeover\""), "{ev}");
}

/// `pawl init` writes only the gates whose program resolves in the environment the checks
/// will have; the others are written commented out, with why (issue 30 point 4). A tool in
/// the project's `.venv/bin` counts; one only inside the repository elsewhere does not.
#[test]
fn init_writes_only_gates_that_resolve_and_comments_out_the_others() {
    let env = TestEnv::new();
    env.write(
        "pyproject.toml",
        "[project]\nname = \"x\"\n[tool.ruff]\n[tool.mypy]\n",
    );
    env.write(".gitignore", ".venv/\n");
    // `ruff` in the project's virtualenv (a script stands in for it); `mypy` nowhere.
    env.write(".venv/bin/ruff", "#!/bin/sh\nexit 0\n");
    std::fs::set_permissions(
        env.root().join(".venv/bin/ruff"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let j = env.ok(&["init", "--json"]).json();
    let toml = std::fs::read_to_string(env.root().join("pawl.toml")).unwrap();
    let written: Vec<&str> = j["gates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap())
        .collect();
    assert!(written.contains(&"lint"), "{j}\n{toml}");
    assert!(!written.contains(&"typecheck"), "{j}\n{toml}");
    assert!(toml.contains("lint = \"ruff check .\""), "{toml}");
    assert!(
        toml.contains("# Not written: `mypy` is not on the checks' PATH")
            && toml.contains("# typecheck = \"mypy .\""),
        "{toml}"
    );
    let not_written = j["not_written"].to_string();
    assert!(not_written.contains("typecheck: `mypy`"), "{j}");
    // `python3 -m unittest`: the interpreter on the checks' PATH imports it.
    assert!(written.contains(&"test"), "{j}\n{toml}");
    // The warning looks where the checks will: `ruff` is in `.venv/bin`.
    assert!(!j["warnings"].to_string().contains("ruff"), "{j}");
}

/// `uv run X` resolves `X` in the project's environment: `uv` being on the PATH says nothing
/// about `ruff` (corpus/real/py-humanize-uv: `pawl init` wrote `uv run ruff check .` with no
/// ruff anywhere, and the honest fix never shipped). A tool in `.venv/bin` counts.
#[test]
fn init_resolves_the_program_a_uv_gate_runs_in_the_project_environment() {
    let env = TestEnv::new();
    env.write(
        "pyproject.toml",
        "[project]\nname = \"x\"\n[tool.ruff]\n[tool.mypy]\n",
    );
    env.write("uv.lock", "version = 1\n");
    env.write(".gitignore", ".venv/\n");
    let exe = |p: &std::path::Path| {
        std::fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap()
    };
    // `uv` on the PATH pawl runs with, outside the repository (a script stands in for it).
    let tools = env.dir.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::write(tools.join("uv"), "#!/bin/sh\nexit 0\n").unwrap();
    exe(&tools.join("uv"));
    // The project's environment: its python (the machine's), `ruff`; no `mypy`.
    let python3 = pawl_process::which("python3", &std::env::var_os("PATH").unwrap()).unwrap();
    std::fs::create_dir_all(env.root().join(".venv/bin")).unwrap();
    std::os::unix::fs::symlink(&python3, env.root().join(".venv/bin/python")).unwrap();
    env.write(".venv/bin/ruff", "#!/bin/sh\nexit 0\n");
    exe(&env.root().join(".venv/bin/ruff"));
    let path = format!(
        "{}:{}",
        tools.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let r = env.pawl_env(&["init", "--json"], &[("PATH", &path)]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let j = r.json();
    let toml = std::fs::read_to_string(env.root().join("pawl.toml")).unwrap();
    let written = j["gates"].to_string();
    assert!(
        toml.contains("test = \"uv run --no-sync python -m unittest discover -v\""),
        "{toml}"
    );
    assert!(
        toml.contains("lint = \"uv run --no-sync ruff check .\""),
        "{toml}"
    );
    assert!(!written.contains("typecheck"), "{j}\n{toml}");
    assert!(
        toml.contains("# Not written: `mypy` is not on the checks' PATH")
            && toml.contains("# typecheck = \"uv run --no-sync mypy .\""),
        "{toml}"
    );
}
