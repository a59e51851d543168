//! Git rails around every headless run: a dirty tree stops the run unless allowed (and then is
//! snapshotted), a protected branch gets a sandbox branch, and rollback keeps a backup of what it
//! replaces.

use crate::TestEnv;

/// A project whose gate passes once `fixed.txt` exists, and a replay agent that creates it.
fn project(env: &TestEnv) -> std::path::PathBuf {
    env.write(
        "pawl.toml",
        "[agent]\nkind = \"replay\"\n\n[gates]\ntest = \"test -f fixed.txt\"\n",
    );
    env.ok(&["init"]);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl"]);
    let scenario = env.dir.path().join("fix.jsonl");
    std::fs::write(
        &scenario,
        "{\"step\": 1}\n{\"do\": \"write\", \"path\": \"fixed.txt\", \"content\": \"ok\\n\"}\n{\"do\": \"edit\", \"path\": \"README.md\", \"old\": \"# demo\", \"new\": \"# demo (fixed)\"}\n",
    )
    .unwrap();
    scenario
}

fn head(env: &TestEnv) -> String {
    String::from_utf8(env.git(&["rev-parse", "HEAD"]).stdout)
        .unwrap()
        .trim()
        .to_string()
}

fn branch(env: &TestEnv) -> String {
    String::from_utf8(env.git(&["branch", "--show-current"]).stdout)
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn a_dirty_tree_stops_the_run_before_anything_is_written() {
    let env = TestEnv::new();
    let scenario = project(&env);
    env.write("README.md", "# local edits\n");
    let r = env.pawl(&["run", "g", "--scenario", scenario.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("commit or stash your changes first"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("README.md"), "{}", r.stderr);
    let n: i64 = env
        .db()
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
    assert_eq!(
        std::fs::read_to_string(env.root().join("README.md")).unwrap(),
        "# local edits\n"
    );
}

#[test]
fn a_protected_branch_gets_a_sandbox_branch_and_the_report_has_the_diff_and_rollback() {
    let env = TestEnv::new();
    let scenario = project(&env);
    let pre = head(&env);
    let r = env.pawl(&[
        "run",
        "make it pass",
        "--scenario",
        scenario.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let run: String = env
        .db()
        .query_row("SELECT id FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(branch(&env), format!("pawl/{run}"));
    let (b, p): (String, String) = env
        .db()
        .query_row("SELECT branch, pre_run_commit FROM runs", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(
        (b.as_str(), p.as_str()),
        (format!("pawl/{run}").as_str(), pre.as_str())
    );
    // main is untouched.
    let main = String::from_utf8(env.git(&["rev-parse", "main"]).stdout).unwrap();
    assert_eq!(main.trim(), pre);
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(env.root().join(format!(".pawl/reports/{run}.json"))).unwrap(),
    )
    .unwrap();
    let files: Vec<&str> = report["files_changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        files.contains(&"fixed.txt") && files.contains(&"README.md"),
        "{files:?}"
    );
    assert_eq!(
        report["rollback_command"],
        format!("pawl rollback --run {run}")
    );
    assert_eq!(report["verdict"], "SHIP");
}

#[test]
fn rollback_restores_the_pre_run_state_and_keeps_a_backup() {
    let env = TestEnv::new();
    let scenario = project(&env);
    let r = env.pawl(&[
        "run",
        "make it pass",
        "--scenario",
        scenario.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // Some extra uncommitted work after the run, which rollback must not destroy.
    env.write("notes.txt", "my notes\n");
    // No terminal and no --yes: refused, nothing changed.
    let r = env.pawl(&["rollback"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(env.root().join("fixed.txt").exists());
    let r = env.pawl(&["rollback", "--yes", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let backup = r.json()["backup_ref"].as_str().unwrap().to_string();
    assert!(!env.root().join("fixed.txt").exists());
    assert!(!env.root().join("notes.txt").exists());
    assert_eq!(
        std::fs::read_to_string(env.root().join("README.md")).unwrap(),
        "# demo\n"
    );
    // Everything replaced is in the backup ref.
    let notes = env.git(&["show", &format!("{backup}:notes.txt")]);
    assert_eq!(String::from_utf8_lossy(&notes.stdout), "my notes\n");
    let fixed = env.git(&["show", &format!("{backup}:fixed.txt")]);
    assert_eq!(String::from_utf8_lossy(&fixed.stdout), "ok\n");
    let ev = env.ok(&["events", "--json"]).stdout;
    assert!(ev.contains("\"rollback\""), "{ev}");
}

/// After the run the agent (or anyone with the repository) makes git show a weakened commit
/// for the pre-run one (`git replace`, a graft). `pawl rollback` reads the objects themselves:
/// it restores the true pre-run state and says so.
#[test]
fn after_git_replace_rollback_restores_the_true_pre_run_commit() {
    let env = TestEnv::new();
    let scenario = project(&env);
    let pre = head(&env);
    let r = env.pawl(&[
        "run",
        "make it pass",
        "--scenario",
        scenario.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    env.write("README.md", "# weakened\n");
    env.git(&["commit", "-q", "-am", "weaken"]);
    let weakened = head(&env);
    env.git(&["replace", "-f", &pre, &weakened]);
    std::fs::write(env.root().join(".git/info/grafts"), format!("{weakened}\n")).unwrap();
    // Control: plain git now shows the weakened README at the pre-run commit.
    let shown = env.git(&["show", &format!("{pre}:README.md")]);
    assert_eq!(String::from_utf8_lossy(&shown.stdout), "# weakened\n");

    let r = env.pawl(&["rollback", "--yes", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(env.root().join("README.md")).unwrap(),
        "# demo\n"
    );
    assert!(!env.root().join("fixed.txt").exists());
}

#[test]
fn allow_dirty_snapshots_the_dirty_state_as_the_pre_run_commit() {
    let env = TestEnv::new();
    let scenario = project(&env);
    env.write("wip.txt", "work in progress\n");
    let r = env.pawl(&[
        "run",
        "g",
        "--scenario",
        scenario.to_str().unwrap(),
        "--allow-dirty",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let pre: String = env
        .db()
        .query_row("SELECT pre_run_commit FROM runs", [], |r| r.get(0))
        .unwrap();
    // The snapshot holds the dirty file, and a ref keeps it alive.
    let wip = env.git(&["show", &format!("{pre}:wip.txt")]);
    assert_eq!(String::from_utf8_lossy(&wip.stdout), "work in progress\n");
    let refs = String::from_utf8(
        env.git(&["for-each-ref", "--format=%(refname)", "refs/pawl/"])
            .stdout,
    )
    .unwrap();
    assert!(refs.contains("pre-run/"), "{refs}");
    // Rolling back returns to the dirty state, not to HEAD.
    env.ok(&["rollback", "--yes"]);
    assert_eq!(
        std::fs::read_to_string(env.root().join("wip.txt")).unwrap(),
        "work in progress\n"
    );
    assert!(!env.root().join("fixed.txt").exists());
}

#[test]
fn the_run_prints_its_expected_scope_and_allow_unsafe_is_loud_and_on_the_record() {
    let env = TestEnv::new();
    env.write(
        "pawl.toml",
        "[agent]\nkind = \"replay\"\n\n[guard]\nallow_unsafe = true\n\n[gates]\ntest = \"test -f fixed.txt\"\n",
    );
    env.ok(&["init"]);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl"]);
    let scenario = env.dir.path().join("fix.jsonl");
    std::fs::write(
        &scenario,
        "{\"step\": 1}\n{\"do\": \"write\", \"path\": \"fixed.txt\", \"content\": \"ok\\n\"}\n",
    )
    .unwrap();
    let r = env.pawl(&[
        "run",
        "create fixed.txt",
        "--mode",
        "simple",
        "--scenario",
        scenario.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("[pawl] expected scope: fixed.txt"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("the safety guard is OFF"), "{}", r.stderr);
    let run: String = env
        .db()
        .query_row("SELECT id FROM runs", [], |r| r.get(0))
        .unwrap();
    let report =
        std::fs::read_to_string(env.root().join(format!(".pawl/reports/{run}.md"))).unwrap();
    assert!(report.contains("**Guard: OFF**"), "{report}");
    let ev = env.ok(&["events", "--json"]).stdout;
    assert!(ev.contains("\"guard_off\""), "{ev}");
}

#[test]
fn auto_commit_commits_each_completed_story_with_a_clear_message() {
    let env = TestEnv::new();
    env.write(
        "pawl.toml",
        "[git]\nauto_commit = true\n\n[gates]\ntest = \"test -f feature.txt\"\n",
    );
    env.ok(&["init"]);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl"]);
    env.git(&["switch", "-q", "-c", "feat/x"]);
    let run = env.manual_run("add the feature");
    env.ok(&["story", "add", "feature file", "--size", "S"]);
    env.ok(&["story", "start", "S1"]);
    env.write("feature.txt", "done\n");
    env.ok(&["story", "done", "S1"]);
    let log = String::from_utf8(env.git(&["log", "-1", "--format=%s"]).stdout).unwrap();
    assert_eq!(log.trim(), format!("pawl: S1 feature file (run {run})"));
    let files = String::from_utf8(
        env.git(&["show", "--name-only", "--format=", "HEAD"])
            .stdout,
    )
    .unwrap();
    assert!(files.contains("feature.txt"), "{files}");
    let ev = env.ok(&["events", "--json"]).stdout;
    assert!(ev.contains("\"story_committed\""), "{ev}");
    // Off by default: no commit.
    let env = TestEnv::new();
    env.write("pawl.toml", "[gates]\ntest = \"test -f feature.txt\"\n");
    env.ok(&["init"]);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl"]);
    env.manual_run("g");
    env.ok(&["story", "add", "f", "--size", "S"]);
    env.ok(&["story", "start", "S1"]);
    env.write("feature.txt", "done\n");
    env.ok(&["story", "done", "S1"]);
    let log = String::from_utf8(env.git(&["log", "-1", "--format=%s"]).stdout).unwrap();
    assert_eq!(log.trim(), "pawl");
}

// ---------------------------------------------------------------- the session driver

/// A project armed for Claude Code sessions, whose gate passes once `fixed.txt` exists,
/// committed on `main` (protected by default). `pawl init` is left to `init`.
fn session_project(env: &TestEnv, init: bool) {
    env.write(
        "pawl.toml",
        "[agent]\nkind = \"claude\"\n\n[gates]\ntest = \"test -f fixed.txt\"\n",
    );
    if init {
        env.ok(&["init"]);
    }
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl"]);
}

/// The current run as `pawl status --json` reports it (`null` when there is none).
fn status_run(env: &TestEnv) -> serde_json::Value {
    env.ok(&["status", "--json"]).json()["run"].clone()
}

#[test]
fn a_session_run_on_a_dirty_tree_is_refused_before_anything_is_written() {
    let env = TestEnv::new();
    session_project(&env, false);
    env.write("README.md", "# local edits\n");
    let r = env.pawl(&["run", "--driver", "session", "make it pass"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("commit or stash your changes first") && r.stderr.contains("README.md"),
        "{}",
        r.stderr
    );
    // Nothing written: no state directory, no .gitignore entry, the edit untouched, still on main.
    assert!(!env.root().join(".pawl").exists());
    assert!(!env.root().join(".gitignore").exists());
    assert_eq!(
        std::fs::read_to_string(env.root().join("README.md")).unwrap(),
        "# local edits\n"
    );
    assert_eq!(branch(&env), "main");
    // With pawl's state in place: still no run, no marker.
    env.ok(&["init"]);
    let r = env.pawl(&["run", "--driver", "session", "make it pass", "--json"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(status_run(&env), serde_json::Value::Null);
    assert!(!env.root().join(".pawl/session.json").exists());
    assert_eq!(branch(&env), "main");
}

#[test]
fn a_session_run_on_a_protected_branch_works_on_a_sandbox_branch() {
    let env = TestEnv::new();
    session_project(&env, true);
    let pre = head(&env);
    let r = env.ok(&["run", "--driver", "session", "make it pass"]);
    let run = status_run(&env);
    let id = run["id"].as_str().unwrap().to_string();
    let sandbox = format!("pawl/{id}");
    assert!(
        r.stdout.contains(&format!(
            "[pawl] main is protected: working on the sandbox branch {sandbox}"
        )),
        "{}",
        r.stdout
    );
    assert_eq!(branch(&env), sandbox);
    assert_eq!(run["branch"], sandbox.as_str());
    assert_eq!(run["pre_run_commit"], pre.as_str());
    // --json names the branch too; a run on a branch that is not protected stays there.
    env.ok(&["off"]);
    env.git(&["switch", "-q", "-c", "feat/x"]);
    let r = env.ok(&["run", "--driver", "session", "make it pass", "--json"]);
    let out = r.json();
    assert_eq!(out["branch"], "feat/x", "{out}");
    assert_eq!(branch(&env), "feat/x");
    assert_eq!(status_run(&env)["branch"], "feat/x");
    env.ok(&["off"]);
    env.git(&["switch", "-q", "main"]);
    let r = env.ok(&["run", "--driver", "session", "make it pass", "--json"]);
    let out = r.json();
    let id = out["run_id"].as_str().unwrap();
    assert_eq!(out["branch"], format!("pawl/{id}"), "{out}");
    assert_eq!(out["pre_run_commit"], pre.as_str(), "{out}");
    assert_eq!(branch(&env), format!("pawl/{id}"));
    // main never moved.
    let main = String::from_utf8(env.git(&["rev-parse", "main"]).stdout).unwrap();
    assert_eq!(main.trim(), pre);
}

#[test]
fn allow_dirty_snapshots_a_session_run_and_rollback_returns_to_it() {
    let env = TestEnv::new();
    session_project(&env, true);
    env.write("wip.txt", "work in progress\n");
    let r = env.ok(&["run", "--driver", "session", "g", "--allow-dirty", "--json"]);
    let id = r.json()["run_id"].as_str().unwrap().to_string();
    let pre = status_run(&env)["pre_run_commit"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(
        pre,
        head(&env),
        "the pre-run commit is the snapshot, not HEAD"
    );
    let wip = env.git(&["show", &format!("{pre}:wip.txt")]);
    assert_eq!(String::from_utf8_lossy(&wip.stdout), "work in progress\n");
    let backup = env.git(&["rev-parse", &format!("refs/pawl/backups/pre-run/{id}")]);
    assert_eq!(String::from_utf8_lossy(&backup.stdout).trim(), pre);
    // The session's work, then a rollback once session mode is off: back to the dirty state.
    env.write("fixed.txt", "ok\n");
    env.write("wip.txt", "rewritten by the agent\n");
    env.ok(&["off"]);
    env.ok(&["rollback", "--yes"]);
    assert_eq!(
        std::fs::read_to_string(env.root().join("wip.txt")).unwrap(),
        "work in progress\n"
    );
    assert!(!env.root().join("fixed.txt").exists());
}

#[test]
fn rollback_of_a_session_run_restores_the_pre_run_tree_and_keeps_a_backup() {
    let env = TestEnv::new();
    session_project(&env, true);
    let pre = head(&env);
    let id = env
        .ok(&["run", "--driver", "session", "make it pass", "--json"])
        .json()["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    // What a session does on the run's branch: edits, a commit, more uncommitted work.
    env.write("fixed.txt", "ok\n");
    env.write("README.md", "# demo (fixed)\n");
    env.git(&["commit", "-q", "-am", "agent: fix"]);
    env.git(&["add", "fixed.txt"]);
    env.git(&["commit", "-q", "-m", "agent: add fixed.txt"]);
    env.write("notes.txt", "uncommitted\n");
    // While the session drives the run, rollback says how to end it (`pawl stop` does not).
    let r = env.pawl(&["rollback", "--yes"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("pawl off"), "{}", r.stderr);
    assert!(env.root().join("fixed.txt").exists());
    env.ok(&["off"]);
    let r = env.ok(&["rollback", "--yes", "--json"]);
    let backup = r.json()["backup_ref"].as_str().unwrap().to_string();
    assert_eq!(branch(&env), format!("pawl/{id}"));
    assert_eq!(head(&env), pre);
    assert!(!env.root().join("fixed.txt").exists());
    assert!(!env.root().join("notes.txt").exists());
    assert_eq!(
        std::fs::read_to_string(env.root().join("README.md")).unwrap(),
        "# demo\n"
    );
    // Nothing lost: the session's commits and its uncommitted file are in the backup.
    let notes = env.git(&["show", &format!("{backup}:notes.txt")]);
    assert_eq!(String::from_utf8_lossy(&notes.stdout), "uncommitted\n");
    let fixed = env.git(&["show", &format!("{backup}:fixed.txt")]);
    assert_eq!(String::from_utf8_lossy(&fixed.stdout), "ok\n");
    let main = String::from_utf8(env.git(&["rev-parse", "main"]).stdout).unwrap();
    assert_eq!(main.trim(), pre);
}

/// Every verified iteration is a commit on the run's branch, its message the verification; the
/// last one holds exactly the tree pawl verified, and nothing is left uncommitted. With
/// `[git] commit_iterations = false` the work stays uncommitted.
#[test]
fn every_verified_iteration_is_a_commit_on_the_runs_branch() {
    let env = TestEnv::new();
    env.write(
        "pawl.toml",
        "[agent]\nkind = \"replay\"\n\n[gates]\ntest = \"test -f fixed.txt\"\n",
    );
    env.ok(&["init"]);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl"]);
    let pre = head(&env);
    let scenario = env.dir.path().join("two.jsonl");
    std::fs::write(
        &scenario,
        "{\"step\": 1}\n{\"do\": \"write\", \"path\": \"half.txt\", \"content\": \"1\\n\"}\n\
         {\"step\": 2}\n{\"do\": \"write\", \"path\": \"fixed.txt\", \"content\": \"ok\\n\"}\n",
    )
    .unwrap();
    let r = env.pawl(&[
        "run",
        "make it pass",
        "--scenario",
        scenario.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let log = String::from_utf8(
        env.git(&["log", "--format=%s", &format!("{pre}..HEAD")])
            .stdout,
    )
    .unwrap();
    let subjects: Vec<&str> = log.lines().collect();
    assert_eq!(subjects.len(), 2, "{log}");
    assert!(
        subjects[0].starts_with("pawl: iteration 2 — verified done"),
        "{log}"
    );
    assert!(
        subjects[1].starts_with("pawl: iteration 1 — 0/1 checks pass; failing: test"),
        "{log}"
    );
    let status = String::from_utf8(env.git(&["status", "--porcelain"]).stdout).unwrap();
    assert!(status.trim().is_empty(), "left uncommitted: {status}");
    let verified: String = env
        .db()
        .query_row(
            "SELECT json_extract(data_json, '$.tree_hash') FROM events WHERE kind = 'verification' ORDER BY seq DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let tree = String::from_utf8(env.git(&["rev-parse", "HEAD^{tree}"]).stdout).unwrap();
    assert_eq!(tree.trim(), verified);
    let body = String::from_utf8(env.git(&["log", "-1", "--format=%b"]).stdout).unwrap();
    assert!(
        body.contains(&format!("Pawl-Verified-Tree: {verified}")),
        "{body}"
    );

    // Off: nothing is committed.
    let env = TestEnv::new();
    env.write(
        "pawl.toml",
        "[agent]\nkind = \"replay\"\n\n[gates]\ntest = \"test -f fixed.txt\"\n\n[git]\ncommit_iterations = false\n",
    );
    env.ok(&["init"]);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl"]);
    let pre = head(&env);
    let r = env.pawl(&[
        "run",
        "make it pass",
        "--scenario",
        scenario.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(head(&env), pre);
    let status = String::from_utf8(env.git(&["status", "--porcelain"]).stdout).unwrap();
    assert!(status.contains("fixed.txt"), "{status}");
}
