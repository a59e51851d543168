//! After a run (issue 17, points 8 and 11): the history (`pawl runs`), what a run changed
//! (`pawl diff`), its step logs (`pawl logs`, `-f`), merging it after pawl re-verified what the
//! target becomes (`pawl merge`), cleaning up (`pawl clean`), and discovering pawl (`pawl
//! doctor`, `completions`, `man`, `help <verb>`, `schema`). Every test runs the real binary on a
//! temp repository and asserts exit codes, git state, files and JSON.

use std::io::BufRead;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::TestEnv;
use crate::headless::{NO_BREAKERS, config, config_with};

const WRITE_DONE: &str = "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"writing it\"}\n{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\\n\"}\n";
const IDLE: &str = "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"thinking\"}\n";

impl TestEnv {
    /// A headless run of `scenario` with `pawl.toml` already committed; returns (exit, run id).
    fn replay_run(&self, name: &str, scenario: &str) -> (i32, String) {
        let s = self.scenario(name, scenario);
        let r = self.pawl(&["run", "make done.txt", "--scenario", &s]);
        let id: String = self
            .db()
            .query_row("SELECT id FROM runs ORDER BY seq DESC LIMIT 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        (r.code, id)
    }

    fn out(&self, args: &[&str]) -> String {
        String::from_utf8(self.git(args).stdout)
            .unwrap()
            .trim()
            .to_owned()
    }

    fn head(&self, rev: &str) -> String {
        self.out(&["rev-parse", rev])
    }

    /// Commits everything on the checked-out branch, as a user reviewing the run would (nothing
    /// when everything is committed: pawl commits every verified iteration).
    fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        if !self.out(&["status", "--porcelain"]).is_empty() {
            self.git(&["commit", "-q", "-m", message]);
        }
    }
}

#[test]
fn runs_lists_every_run_with_the_reports_verdict_and_totals() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let (code, stopped) = env.replay_run("idle", IDLE);
    assert_eq!(code, 3);
    env.git(&["checkout", "-q", "main"]);
    let (code, shipped) = env.replay_run("fix", WRITE_DONE);
    assert_eq!(code, 0);

    let json = env.ok(&["runs", "--json"]).json();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["runs", "next", "totals"]);
    assert_eq!(json["next"], Value::Null, "one page: every run");
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["id"], shipped.as_str(), "newest first");
    assert_eq!(runs[1]["id"], stopped.as_str());
    let mut fields: Vec<&str> = runs[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    fields.sort();
    assert_eq!(
        fields,
        [
            "cost_usd",
            "ended_at",
            "goal",
            "id",
            "iterations",
            "repo",
            "started_at",
            "status",
            "stop_reason",
            "tokens",
            "verdict"
        ]
    );
    for (row, id) in [(&runs[0], &shipped), (&runs[1], &stopped)] {
        // The verdict is the report's, for every run.
        let report = env.ok(&["report", id, "--json"]).json();
        assert_eq!(row["verdict"], report["verdict"], "{id}");
        assert_eq!(row["stop_reason"], report["stop_reason"]);
        assert_eq!(
            row["iterations"].as_u64().unwrap() as usize,
            report["iterations"].as_array().unwrap().len()
        );
        assert_eq!(row["tokens"], report["tokens"]);
        assert_eq!(
            Path::new(row["repo"].as_str().unwrap())
                .canonicalize()
                .unwrap(),
            env.root().canonicalize().unwrap()
        );
    }
    assert_eq!(runs[0]["verdict"], "SHIP");
    assert_eq!(runs[1]["stop_reason"], "max_iterations");
    assert_eq!(json["totals"]["runs"], 2);
    let tokens: u64 = runs.iter().map(|r| r["tokens"].as_u64().unwrap()).sum();
    assert_eq!(json["totals"]["tokens"], tokens);

    // An open run has no verdict yet; --limit keeps the newest.
    env.git(&["checkout", "-q", "main"]);
    let open = env
        .ok(&["run", "--driver", "manual", "by hand", "--json"])
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let json = env.ok(&["runs", "--limit", "1", "--json"]).json();
    assert_eq!(json["runs"].as_array().unwrap().len(), 1);
    assert_eq!(json["runs"][0]["id"], open.as_str());
    assert_eq!(json["runs"][0]["verdict"], Value::Null);
    // The totals stay those of every run; the next page follows the last run shown.
    assert_eq!(json["totals"]["runs"], 3);
    assert_eq!(json["next"], open.as_str());

    let human = env.ok(&["runs"]).stdout;
    assert!(
        human.contains(&shipped) && human.contains("SHIP"),
        "{human}"
    );
    assert!(human.contains(": 3 runs · "), "per day: {human}");
    assert!(human.contains("total ("), "{human}");
    let r = env.pawl(&["runs", "--limit", "0"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn diff_is_the_runs_change_with_the_working_tree_when_its_branch_is_checked_out() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 2", NO_BREAKERS, ""));
    let (code, id) = env.replay_run("fix", WRITE_DONE);
    assert_eq!(code, 0);
    let branch = format!("pawl/{id}");
    assert_eq!(env.out(&["branch", "--show-current"]), branch);

    // The work is committed on the run's branch (every verified iteration is a commit); what is
    // left uncommitted there is part of the diff too.
    let stat = env.ok(&["diff", "--stat", "--json"]).json();
    assert_eq!(stat["working_tree"], true);
    assert_eq!(env.out(&["status", "--porcelain"]), "");
    assert_eq!(stat["branch"], branch.as_str());
    assert_eq!(stat["files"][0]["path"], "done.txt");
    assert_eq!(
        (stat["insertions"].as_u64(), stat["deletions"].as_u64()),
        (Some(1), Some(0))
    );
    let patch = env.ok(&["diff"]).stdout;
    assert!(
        patch.contains("+++ b/done.txt") && patch.contains("\n+ok\n"),
        "{patch}"
    );

    // Committed on its branch, seen from main: the branch head, not main's working tree.
    env.commit_all("the run's work");
    env.git(&["checkout", "-q", "main"]);
    env.write("unrelated.txt", "not the run's\n");
    let stat = env.ok(&["diff", "--run", &id, "--stat", "--json"]).json();
    assert_eq!(stat["working_tree"], false);
    let paths: Vec<&str> = stat["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["done.txt"]);
    let human = env.ok(&["diff", "--stat"]).stdout;
    assert!(
        human.contains("1 file changed, 1 insertion(+), 0 deletions(-)"),
        "{human}"
    );
    // The patch applies as printed.
    std::fs::remove_file(env.root().join("unrelated.txt")).unwrap();
    let patch = env.ok(&["diff"]).stdout;
    let mut apply = env
        .command("git")
        .args(["apply", "-"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut apply.stdin.take().unwrap(), patch.as_bytes()).unwrap();
    assert!(apply.wait().unwrap().success());
    assert_eq!(
        std::fs::read_to_string(env.root().join("done.txt")).unwrap(),
        "ok\n"
    );

    // A branch that is gone is named.
    env.git(&["checkout", "-q", "--", "."]);
    std::fs::remove_file(env.root().join("done.txt")).unwrap();
    env.git(&["branch", "-D", &branch]);
    let r = env.pawl(&["diff"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(&format!("{branch} no longer exists")),
        "{}",
        r.stderr
    );
}

#[test]
fn logs_print_each_steps_output_without_the_stream_prefixes_unless_raw() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 2", NO_BREAKERS, ""));
    let scenario = "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"looking around\"}\n{\"do\": \"run\", \"command\": \"echo to-stderr >&2\"}\n{\"step\": 2}\n{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\\n\"}\n";
    let (code, id) = env.replay_run("two", scenario);
    assert_eq!(code, 0);

    let all = env.ok(&["logs"]).stdout;
    assert!(all.contains("== iteration 1 (.pawl/logs/"), "{all}");
    assert!(all.contains("== iteration 2 ("), "{all}");
    assert!(
        all.contains("{\"type\":\"text\",\"text\":\"looking around\"}"),
        "{all}"
    );
    assert!(!all.contains("out| "), "prefixes stripped: {all}");
    let raw = env.ok(&["logs", "--iteration", "1", "--raw"]).stdout;
    assert!(
        raw.contains("out| {\"type\":\"text\",\"text\":\"looking around\"}"),
        "{raw}"
    );
    assert!(!raw.contains("iteration 2"), "{raw}");
    let lines: Vec<Value> = env
        .ok(&["logs", "--run", &id, "--iteration", "2", "--json"])
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.iter().all(|l| l["iteration"] == 2), "{lines:?}");
    assert!(lines.iter().any(|l| l["stream"] == "out"));
    assert!(lines.iter().any(|l| l["stream"] == "pawl"));

    let r = env.pawl(&["logs", "--iteration", "7"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("no log for iteration 7") && r.stderr.contains("iterations 1 to 2"),
        "{}",
        r.stderr
    );
    let r = env.pawl(&["logs", "--iteration", "0"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// `-f` prints what the running step writes, and ends by itself when the run does: the test
/// moves the run on by a condition (a file it creates), never by sleeping.
#[test]
fn logs_follow_prints_the_running_step_and_ends_with_the_run() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 2", NO_BREAKERS, ""));
    let go = env.dir.path().join("go");
    let scenario = format!(
        "{{\"step\": 1}}\n{{\"do\": \"text\", \"text\": \"first-line\"}}\n{{\"do\": \"run\", \"command\": \"while [ ! -f {} ]; do sleep 0.05; done\", \"timeout_secs\": 120}}\n{{\"do\": \"text\", \"text\": \"second-line\"}}\n{{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\\n\"}}\n",
        go.display()
    );
    let s = env.scenario("wait", &scenario);
    let mut run = env
        .command("pawl")
        .args(["run", "make done.txt", "--scenario", &s])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    // The run exists (its first step is writing).
    while env.count("SELECT COUNT(*) FROM iterations") == 0 {
        assert!(Instant::now() < deadline, "the run never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut follow = env
        .command("pawl")
        .args(["logs", "-f"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stdout = follow.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| l.contains("first-line")) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => seen.push(line),
            Err(e) => panic!("no first line ({e}): {seen:?}"),
        }
    }
    assert!(!seen.iter().any(|l| l.contains("second-line")));
    std::fs::write(&go, "").unwrap();
    // Both end by themselves.
    let status = loop {
        if let Some(s) = follow.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "logs -f did not end with the run"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    assert!(run.wait().unwrap().success());
    reader.join().unwrap();
    seen.extend(rx.try_iter());
    assert!(seen.iter().any(|l| l.contains("second-line")), "{seen:?}");
    assert!(
        seen.iter()
            .any(|l| l.starts_with("# end: exited with code 0")),
        "{seen:?}"
    );
}

#[test]
fn merge_refuses_open_runs_and_dirty_branches_then_fast_forwards_after_verifying() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 2", NO_BREAKERS, ""));
    let (code, id) = env.replay_run("fix", WRITE_DONE);
    assert_eq!(code, 0);
    let branch = format!("pawl/{id}");
    let main_before = env.head("main");

    // The run's work is committed on its branch; an edit made there since is not: nothing to
    // merge until it is committed too.
    env.write("later.txt", "an edit after the run\n");
    let r = env.pawl(&["merge"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("has uncommitted changes") && r.stderr.contains("later.txt"),
        "{}",
        r.stderr
    );
    assert_eq!(env.head("main"), main_before);
    std::fs::remove_file(env.root().join("later.txt")).unwrap();
    // The target checked out with uncommitted changes is refused too.
    env.git(&["checkout", "-q", "main"]);
    env.write("README.md", "# edited\n");
    let r = env.pawl(&["merge", "--run", &id]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("main has uncommitted changes") && r.stderr.contains("README.md"),
        "{}",
        r.stderr
    );
    env.git(&["checkout", "-q", "--", "README.md"]);

    // The sandbox recorded where it came from: that is the default target.
    assert_eq!(
        env.count("SELECT COUNT(*) FROM events WHERE kind = 'sandbox_branch' AND json_extract(data_json, '$.from') = 'main'"),
        1
    );
    let r = env.pawl(&["merge", "--into", &branch]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("nothing to merge it into"),
        "{}",
        r.stderr
    );
    let r = env.pawl(&["merge", "--into", "no-such-branch"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("no local branch `no-such-branch`"),
        "{}",
        r.stderr
    );
    // Never from inside an agent step.
    let r = env.pawl_env(&["merge"], &[("PAWL_RUN_ID", &id)]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("the user's decision"), "{}", r.stderr);
    assert_eq!(env.head("main"), main_before);

    // Checked out and clean: verified, then fast-forwarded, files included.
    let r = env.pawl(&["merge", "--json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let json = r.json();
    assert_eq!(json["merged"], true);
    assert_eq!(json["how"], "fast-forward");
    assert_eq!(json["into"], "main");
    assert_eq!(env.head("main"), env.head(&branch));
    assert_eq!(
        std::fs::read_to_string(env.root().join("done.txt")).unwrap(),
        "ok\n"
    );
    assert_eq!(env.out(&["status", "--porcelain"]), "");
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(*) FROM events WHERE kind = 'merged' AND run_id = '{id}'"
        )),
        1
    );
    // Nothing is left of the scratch worktree.
    assert_eq!(
        env.out(&["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
    let r = env.ok(&["merge"]);
    assert!(r.stdout.contains("Nothing to merge"), "{}", r.stdout);

    // An open run is refused.
    env.ok(&["run", "--driver", "manual", "by hand"]);
    let r = env.pawl(&["merge"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("still being worked on"), "{}", r.stderr);
}

#[test]
fn merge_verifies_what_the_target_becomes_and_refuses_a_failing_or_conflicting_merge() {
    let env = TestEnv::new();
    let gate = "test -f done.txt && ! test -f broken.txt";
    env.headless(&config_with(
        "max_iterations = 2",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        gate,
    ));
    let (code, id) = env.replay_run("fix", WRITE_DONE);
    assert_eq!(code, 0);
    let branch = format!("pawl/{id}");
    env.commit_all("the run's work");
    // main moves on: each part passes alone, together they fail the run's sealed check.
    env.git(&["checkout", "-q", "main"]);
    env.write("broken.txt", "x\n");
    env.commit_all("main moves on");
    let main_before = env.head("main");
    env.git(&["checkout", "-q", &branch]);
    let r = env.pawl(&["merge"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("✗ test"), "{}", r.stdout);
    assert!(r.stderr.contains("NOT merged"), "{}", r.stderr);
    assert_eq!(env.head("main"), main_before, "main moved");

    // Fixed on main: a real merge, verified, made, main not checked out (its ref moves).
    env.git(&["checkout", "-q", "main"]);
    env.git(&["rm", "-q", "broken.txt"]);
    env.commit_all("main fixed");
    let main_before = env.head("main");
    env.git(&["checkout", "-q", &branch]);
    let json = env.ok(&["merge", "--json"]).json();
    assert_eq!(json["how"], "merge");
    let merged = env.head("main");
    assert_ne!(merged, main_before);
    assert_eq!(env.out(&["rev-parse", "main^1"]), main_before);
    assert_eq!(env.out(&["rev-parse", "main^2"]), env.head(&branch));
    assert_eq!(env.out(&["show", "main:done.txt"]), "ok");
    assert_eq!(
        env.out(&["branch", "--show-current"]),
        branch,
        "still on the run's branch"
    );

    // A conflict is refused before anything is verified or moved.
    let (code, id2) = {
        env.git(&["checkout", "-q", "main"]);
        env.git(&["rm", "-q", "done.txt"]);
        env.commit_all("start again");
        env.replay_run("fix2", WRITE_DONE)
    };
    assert_eq!(code, 0);
    env.commit_all("second run's work");
    env.git(&["checkout", "-q", "main"]);
    env.write("done.txt", "other\n");
    env.commit_all("main writes done.txt too");
    let main_before = env.head("main");
    let r = env.pawl(&["merge", "--run", &id2]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("conflict in done.txt"), "{}", r.stderr);
    assert_eq!(env.head("main"), main_before);
    assert_eq!(env.out(&["status", "--porcelain"]), "");
}

#[test]
fn clean_deletes_merged_branches_and_finished_runs_logs_never_unmerged_work_without_force() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let (code, unmerged) = env.replay_run("idle", IDLE);
    assert_eq!(code, 3);
    let unmerged_branch = format!("pawl/{unmerged}");
    env.write("wip.txt", "work only this branch has\n");
    env.commit_all("wip");
    let wip = env.head(&unmerged_branch);
    env.git(&["checkout", "-q", "main"]);
    let (code, merged) = env.replay_run("fix", WRITE_DONE);
    assert_eq!(code, 0);
    let merged_branch = format!("pawl/{merged}");
    env.commit_all("the run's work");
    env.git(&["checkout", "-q", "main"]);
    env.ok(&["merge", "--run", &merged]);
    let logs = |id: &str| -> usize {
        std::fs::read_dir(env.root().join(".pawl/logs"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(id)
            })
            .count()
    };
    assert!(logs(&merged) > 0 && logs(&unmerged) > 0);
    let rooms = env.dir.path().join("home/.local/state/pawl/rooms");
    assert!(
        std::fs::read_dir(&rooms).unwrap().count() > 0,
        "the runs used a room"
    );

    let plan = env.ok(&["clean", "--dry-run", "--json"]).json();
    let action = |v: &Value, branch: &str| -> String {
        v["branches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["branch"] == branch)
            .map(|b| b["action"].as_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    assert_eq!(action(&plan, &merged_branch), "would_delete");
    assert_eq!(action(&plan, &unmerged_branch), "kept");
    assert!(!plan["logs"].as_array().unwrap().is_empty());
    // A dry run changes nothing.
    assert!(env.head(&merged_branch).len() == 40 && logs(&merged) > 0);
    assert!(std::fs::read_dir(&rooms).unwrap().count() > 0);

    let r = env.ok(&["clean"]);
    assert!(
        r.stdout.contains(&format!("deleted {merged_branch}")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(&format!("kept {unmerged_branch}")) && r.stdout.contains("--force"),
        "{}",
        r.stdout
    );
    let branches = env.out(&["branch", "--list"]);
    assert!(!branches.contains(&merged_branch), "{branches}");
    assert_eq!(env.head(&unmerged_branch), wip, "unmerged work is kept");
    assert_eq!((logs(&merged), logs(&unmerged)), (0, 0));
    assert_eq!(
        std::fs::read_dir(&rooms).unwrap().count(),
        0,
        "rooms removed"
    );
    assert!(
        env.root().join(".pawl/reports").read_dir().unwrap().count() > 0,
        "reports kept"
    );
    assert_eq!(
        env.count("SELECT COUNT(*) FROM events WHERE kind = 'cleaned'"),
        1
    );

    // --force deletes it, keeping its head under a backup ref.
    let json = env.ok(&["clean", "--force", "--json"]).json();
    assert_eq!(action(&json, &unmerged_branch), "deleted");
    let backup = format!("refs/pawl/backups/clean/{unmerged}");
    assert_eq!(json["branches"][0]["backup_ref"], backup.as_str());
    assert!(!env.out(&["branch", "--list"]).contains(&unmerged_branch));
    assert_eq!(env.head(&backup), wip);
    let r = env.ok(&["clean"]);
    assert!(r.stdout.contains("Nothing to clean"), "{}", r.stdout);

    // While a run is open, the room stays.
    env.ok(&["run", "--driver", "manual", "by hand"]);
    let r = env.ok(&["clean"]);
    assert!(r.stdout.contains("a run is open"), "{}", r.stdout);
}

/// Fake agent CLIs on PATH that answer `--version`.
fn fake_bin(env: &TestEnv, programs: &[(&str, &str)]) -> String {
    use std::os::unix::fs::PermissionsExt;
    let bin = env.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, version) in programs {
        let p = bin.join(name);
        std::fs::write(&p, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The pinned versions in `.ci/agent-versions` (the one file that pins them), by program.
fn pinned_versions() -> Vec<(String, String)> {
    let pins = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/agent-versions"),
    )
    .unwrap();
    let v: Vec<(String, String)> = pins
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("PAWL_")?;
            let (name, value) = rest.split_once("_VERSION=")?;
            Some((name.to_lowercase(), value.trim_matches('"').to_owned()))
        })
        .collect();
    assert_eq!(v.len(), 3, "{pins}");
    v
}

fn pinned(program: &str) -> String {
    pinned_versions()
        .into_iter()
        .find(|(p, _)| p == program)
        .map(|(_, v)| v)
        .unwrap()
}

#[test]
fn doctor_checks_agents_credentials_tools_and_fails_only_on_what_breaks_runs() {
    let env = TestEnv::new();
    let agent = "[agent]\nkind = \"claude\"\n";
    env.headless(&config_with("", NO_BREAKERS, "", agent, "test -f done.txt"));
    let mut toml = std::fs::read_to_string(env.root().join("pawl.toml")).unwrap();
    toml.push_str("lint = \"no-such-linter-xyz --check\"\n");
    env.write("pawl.toml", &toml);
    env.write("package.json", "{\"name\": \"x\"}\n");
    let claude_says = format!("{} (Claude Code)", pinned("claude"));
    let path = fake_bin(
        &env,
        &[("claude", &claude_says), ("codex", "codex-cli 0.1.0")],
    );
    let check = doctor_check;

    let r = env.pawl_env(&["doctor", "--json"], &[("PATH", &path)]);
    assert_eq!(r.code, 1, "a gate's program is missing: {}", r.stdout);
    let json = r.json();
    // The tested versions are the ones CI pins.
    for (program, pinned) in pinned_versions() {
        assert_eq!(
            check(&json, &program)["tested"],
            pinned.as_str(),
            "{program}"
        );
    }
    let claude = check(&json, "claude");
    assert_eq!(claude["status"], "ok", "{claude}");
    assert_eq!(claude["version"], claude_says.as_str());
    let codex = check(&json, "codex");
    assert_eq!(codex["status"], "warn", "an untested version: {codex}");
    assert!(
        codex["fix"].as_str().unwrap().contains("@openai/codex@"),
        "{codex}"
    );
    assert_ne!(check(&json, "gemini")["status"], "fail", "not configured");
    assert_eq!(check(&json, "claude credentials")["status"], "warn");
    let lint = check(&json, "gate lint");
    assert_eq!(lint["status"], "fail");
    assert!(
        lint["detail"]
            .as_str()
            .unwrap()
            .contains("no-such-linter-xyz"),
        "{lint}"
    );
    assert_eq!(check(&json, "gate test")["status"], "ok");
    assert_eq!(check(&json, "node_modules")["status"], "warn");
    let ignored = check(&json, "ignored outputs");
    assert_eq!(ignored["status"], "warn");
    assert!(
        ignored["detail"]
            .as_str()
            .unwrap()
            .contains("node_modules/"),
        "{ignored}"
    );
    assert_eq!(json["fail"], 1);

    // Credentials are named, never shown; without the failing gate, exit 0.
    env.write(
        "pawl.toml",
        &toml.replace("lint = \"no-such-linter-xyz --check\"\n", ""),
    );
    let r = env.pawl_env(
        &["doctor"],
        &[
            ("PATH", &path),
            ("ANTHROPIC_API_KEY", "sk-very-secret-value"),
        ],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("ANTHROPIC_API_KEY is set"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("sk-very-secret-value"));
    assert!(
        r.stdout.contains("→ "),
        "warnings say what to do: {}",
        r.stdout
    );

    // The configured agent missing is a failure; outside a repository, so is the repository.
    let r = env.pawl_env(&["doctor", "--json"], &[("PATH", "/usr/bin:/bin")]);
    assert_eq!(r.code, 1);
    assert_eq!(check(&r.json(), "claude")["status"], "fail");
    let outside = env.dir.path().join("home");
    let r = env.pawl(&["-C", outside.to_str().unwrap(), "doctor", "--json"]);
    assert_eq!(r.code, 1);
    assert_eq!(check(&r.json(), "repository")["status"], "fail");
}

/// `pawl doctor` names the tested version and says whether an installed CLI is older or newer;
/// it says what a Gemini CLI account can do, and that pawl does not drive the Antigravity CLI.
/// `pawl doctor` looks a gate's program up where the checks will: the project's own environment
/// (`node_modules/.bin`) counts, and a `python3 -m MOD` gate fails when that interpreter cannot
/// import MOD — the PATH pawl was started with is not what the checks see. The dry preflight
/// starts each gate's program in a room: a `node_modules` git does not ignore is not taken.
#[test]
fn doctor_checks_the_gates_in_the_environment_the_checks_will_have() {
    let env = TestEnv::new();
    env.headless(&config_with(
        "",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        "localtool --run",
    ));
    let mut toml = std::fs::read_to_string(env.root().join("pawl.toml")).unwrap();
    toml.push_str("lint = \"python3 -m no_such_module_xyz\"\n");
    env.write("pawl.toml", &toml);
    env.write("node_modules/.bin/localtool", "#!/bin/sh\nexit 0\n");
    let tool = env.root().join("node_modules/.bin/localtool");
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // Not git-ignored, the room does not take it: the dry preflight in the room says so.
    let r = env.pawl(&["doctor", "--json"]);
    let test = doctor_check(&r.json(), "gate test");
    assert_eq!(test["status"], "fail", "{test}");
    assert!(
        test["detail"]
            .as_str()
            .unwrap()
            .contains("does not start in the room"),
        "{test}"
    );
    let ignore = std::fs::read_to_string(env.root().join(".gitignore")).unwrap_or_default();
    env.write(".gitignore", &format!("{ignore}node_modules/\n"));
    let r = env.pawl(&["doctor", "--json"]);
    let json = r.json();
    let check = |name: &str| doctor_check(&json, name);
    let test = check("gate test");
    assert_eq!(test["status"], "ok", "{test}");
    assert!(
        test["detail"]
            .as_str()
            .unwrap()
            .contains("node_modules/.bin/localtool"),
        "{test}"
    );
    let lint = check("gate lint");
    assert_eq!(lint["status"], "fail", "{lint}");
    assert!(
        lint["detail"]
            .as_str()
            .unwrap()
            .contains("no_such_module_xyz"),
        "{lint}"
    );
}

#[test]
fn doctor_flags_an_agent_cli_older_or_newer_than_tested_and_the_gemini_account() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    let bump = |v: &str, by: i64| -> String {
        let mut parts: Vec<i64> = v.split('.').map(|p| p.parse().unwrap()).collect();
        parts[2] += by;
        if parts[2] < 0 {
            parts[2] = 0;
            parts[1] -= 1;
        }
        parts
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(".")
    };
    let (claude, codex, gemini) = (pinned("claude"), pinned("codex"), pinned("gemini"));
    let older = format!("{} (Claude Code)", bump(&claude, -1));
    let newer = format!("codex-cli {}", bump(&codex, 1));
    let path = fake_bin(
        &env,
        &[
            ("claude", &older),
            ("codex", &newer),
            ("gemini", &gemini),
            ("agy", "1.1.11"),
        ],
    );
    let home = env.dir.path().join("home");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::write(home.join(".gemini/oauth_creds.json"), "{}").unwrap();
    let home = home.to_str().unwrap();
    let vars = [
        ("PATH", path.as_str()),
        ("HOME", home),
        ("GEMINI_API_KEY", ""),
        ("GOOGLE_API_KEY", ""),
        ("GOOGLE_GENAI_USE_VERTEXAI", ""),
    ];
    let json = env.pawl_env(&["doctor", "--json"], &vars).json();
    let check = |name: &str| doctor_check(&json, name);
    let c = check("claude");
    assert_eq!(c["status"], "warn", "{c}");
    assert_eq!(c["tested"], claude.as_str());
    let detail = c["detail"].as_str().unwrap();
    assert!(detail.contains("older than"), "{c}");
    assert!(detail.contains(&claude), "names the tested version: {c}");
    let c = check("codex");
    assert_eq!(c["status"], "warn", "{c}");
    assert!(c["detail"].as_str().unwrap().contains("newer than"), "{c}");
    assert!(
        c["fix"]
            .as_str()
            .unwrap()
            .contains(&format!("@openai/codex@{codex}")),
        "{c}"
    );
    let c = check("gemini");
    assert_eq!(c["status"], "ok", "{c}");
    assert!(
        c["detail"].as_str().unwrap().contains("the tested version"),
        "{c}"
    );
    // Only a Google sign-in: Gemini CLI no longer serves individual accounts.
    let c = check("gemini account");
    assert_eq!(c["status"], "warn", "not the configured agent: {c}");
    assert!(c["detail"].as_str().unwrap().contains("2026-06-18"), "{c}");
    assert!(c["fix"].as_str().unwrap().contains("GEMINI_API_KEY"), "{c}");
    let c = check("agy");
    assert!(
        c["detail"].as_str().unwrap().contains("does not drive it"),
        "{c}"
    );

    // With an API key the account works; with Gemini configured and only the sign-in, it fails.
    let mut with_key = vars;
    with_key[2] = ("GEMINI_API_KEY", "k");
    let json = env.pawl_env(&["doctor", "--json"], &with_key).json();
    let account = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "gemini account")
        .cloned()
        .unwrap();
    assert_eq!(account["status"], "ok", "{account}");
    let mut configured = vars.to_vec();
    configured.push(("PAWL_AGENT_KIND", "gemini"));
    let r = env.pawl_env(&["doctor", "--json"], &configured);
    let json = r.json();
    let account = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "gemini account")
        .cloned()
        .unwrap();
    assert_eq!(account["status"], "fail", "{account}");
    assert_eq!(r.code, 1);
}

#[test]
fn hooks_installed_are_found_and_a_missing_pawl_behind_them_fails() {
    let env = TestEnv::new();
    env.ok(&["init", "--agent", "claude"]);
    let json = env.pawl(&["doctor", "--json"]).json();
    let hooks = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "claude hooks")
        .cloned()
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(hooks["status"], "ok", "{hooks}");
    // The settings name a pawl that is gone (another machine's path).
    for entry in std::fs::read_dir(env.root().join(".claude")).unwrap() {
        let p = entry.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        let exe = assert_cmd::cargo::cargo_bin("pawl").canonicalize().unwrap();
        std::fs::write(&p, text.replace(exe.to_str().unwrap(), "/nowhere/bin/pawl")).unwrap();
    }
    let json = env.pawl(&["doctor", "--json"]).json();
    let hooks = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "claude hooks")
        .cloned()
        .unwrap();
    assert_eq!(hooks["status"], "fail", "{hooks}");
    assert!(
        hooks["detail"]
            .as_str()
            .unwrap()
            .contains("/nowhere/bin/pawl")
    );
}

#[test]
fn completions_man_pages_and_help_work_outside_a_repository() {
    let env = TestEnv::new();
    let outside = env.dir.path().join("home");
    let pawl = |args: &[&str]| -> crate::Run {
        crate::Run::from(
            env.command("pawl")
                .args(args)
                .current_dir(&outside)
                .output()
                .unwrap(),
        )
    };
    let bash = pawl(&["completions", "bash"]);
    assert_eq!(bash.code, 0, "{}", bash.stderr);
    assert!(
        bash.stdout.contains("_pawl()") && bash.stdout.contains("merge"),
        "bash"
    );
    let zsh = pawl(&["completions", "zsh"]).stdout;
    assert!(
        zsh.starts_with("#compdef pawl"),
        "{}",
        &zsh[..zsh.len().min(80)]
    );
    let fish = pawl(&["completions", "fish"]).stdout;
    assert!(fish.contains("complete -c pawl") && fish.contains("doctor"));
    assert_eq!(pawl(&["completions", "tcsh"]).code, 2);

    let help = pawl(&["help", "merge"]);
    assert_eq!(help.code, 0, "{}", help.stderr);
    assert!(help.stdout.contains("--into <BRANCH>"), "{}", help.stdout);
    assert!(pawl(&["help"]).stdout.contains("Commands:"));

    let man = pawl(&["man"]);
    assert_eq!(man.code, 0, "{}", man.stderr);
    assert!(man.stdout.contains(".TH pawl"), "{}", man.stdout);
    let dir = env.dir.path().join("man1");
    let r = pawl(&["man", "--out", dir.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for page in [
        "pawl.1",
        "pawl-merge.1",
        "pawl-doctor.1",
        "pawl-story-add.1",
    ] {
        let text =
            std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH"), "{page}");
    }
    assert!(
        !dir.join("pawl-__replay.1").exists(),
        "hidden commands have no page"
    );
}

/// `cargo install --path crates/cli` (the README's install) builds the `pawl` binary of this
/// package: checked from the manifest, since a release build is minutes of CI time.
#[test]
fn the_package_installs_a_binary_named_pawl() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pkg = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "pawl-cli")
        .unwrap();
    let bins: Vec<&str> = pkg["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "bin"))
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(bins, ["pawl"]);
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    assert!(
        readme.contains("cargo install --path crates/cli"),
        "the README says how to install"
    );
}

// ---------------------------------------------------------------- schemas

/// A JSON Schema validator for the subset pawl's schemas use (type, enum, properties, required,
/// additionalProperties, items, minimum, anyOf, local $ref): a full validator crate costs more
/// compile time than these four files are worth. Returns every violation with its path.
fn validate(schema: &Value, root: &Value, v: &Value, path: &str, errors: &mut Vec<String>) {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let target = r
            .strip_prefix("#/")
            .unwrap()
            .split('/')
            .fold(root, |s, key| &s[key]);
        assert!(!target.is_null(), "unresolved {r}");
        validate(target, root, v, path, errors);
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let ok = any.iter().any(|s| {
            let mut e = Vec::new();
            validate(s, root, v, path, &mut e);
            e.is_empty()
        });
        if !ok {
            errors.push(format!("{path}: matches none of anyOf"));
        }
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => panic!("bad type {t}"),
        };
        let is = |t: &str| match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            "number" => v.is_number(),
            "integer" => v.is_i64() || v.is_u64(),
            other => panic!("unknown type {other}"),
        };
        if !types.iter().any(|t| is(t)) {
            errors.push(format!("{path}: {v} is not {types:?}"));
            return;
        }
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        errors.push(format!("{path}: {v} not in {e:?}"));
    }
    if let (Some(min), Some(n)) = (schema.get("minimum").and_then(Value::as_f64), v.as_f64())
        && n < min
    {
        errors.push(format!("{path}: {n} < {min}"));
    }
    if let Some(obj) = v.as_object() {
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = key.as_str().unwrap();
            if !obj.contains_key(key) {
                errors.push(format!("{path}: missing `{key}`"));
            }
        }
        let props = schema.get("properties").and_then(Value::as_object);
        for (k, x) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(s) => validate(s, root, x, &format!("{path}.{k}"), errors),
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => errors.push(format!("{path}: unexpected `{k}`")),
                    Some(s @ Value::Object(_)) => {
                        validate(s, root, x, &format!("{path}.{k}"), errors)
                    }
                    _ => {}
                },
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), v.as_array()) {
        for (i, x) in arr.iter().enumerate() {
            validate(items, root, x, &format!("{path}[{i}]"), errors);
        }
    }
}

fn assert_valid(schema: &Value, v: &Value, what: &str) {
    let mut errors = Vec::new();
    validate(schema, schema, v, "$", &mut errors);
    assert!(errors.is_empty(), "{what}:\n{}\n{v}", errors.join("\n"));
}

#[test]
fn the_schemas_describe_the_real_json_outputs() {
    let env = TestEnv::new();
    let schema = |of: &str| -> Value {
        let r = env.ok(&["schema", of]);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
        v
    };
    let (report, status, events, runs) = (
        schema("report"),
        schema("status"),
        schema("events"),
        schema("runs"),
    );
    assert_eq!(env.pawl(&["schema", "nope"]).code, 2);

    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    assert_valid(
        &status,
        &env.ok(&["status", "--json"]).json(),
        "status, no run",
    );
    assert_valid(&runs, &env.ok(&["runs", "--json"]).json(), "runs, none");
    let (_, stopped) = env.replay_run("idle", IDLE);
    env.git(&["checkout", "-q", "main"]);
    let (_, shipped) = env.replay_run("fix", WRITE_DONE);
    env.git(&["checkout", "-q", "main"]);
    env.ok(&["run", "--driver", "manual", "by hand"]);
    env.ok(&[
        "criterion",
        "add",
        "done exists",
        "--verify",
        "command:test -f done.txt",
    ]);
    env.ok(&["story", "add", "make it", "--size", "S"]);
    env.ok(&["story", "start", "S1"]);
    for id in [&stopped, &shipped] {
        assert_valid(&report, &env.ok(&["report", id, "--json"]).json(), "report");
        assert_valid(
            &status,
            &env.ok(&["status", "--run", id, "--json"]).json(),
            "status",
        );
    }
    assert_valid(
        &report,
        &env.ok(&["report", "--json"]).json(),
        "report, open run",
    );
    assert_valid(
        &status,
        &env.ok(&["status", "--json"]).json(),
        "status, open run",
    );
    assert_valid(&runs, &env.ok(&["runs", "--json"]).json(), "runs");
    let lines = env.ok(&["events", "--all", "--json"]).stdout;
    assert!(lines.lines().count() > 20);
    for line in lines.lines() {
        assert_valid(&events, &serde_json::from_str(line).unwrap(), "event");
    }
    // The check can fail: an output missing a field, or with a wrong type, is caught.
    let mut broken = env.ok(&["report", &shipped, "--json"]).json();
    broken.as_object_mut().unwrap().remove("verdict");
    broken["tokens"] = Value::from("many");
    let mut errors = Vec::new();
    validate(&report, &report, &broken, "$", &mut errors);
    assert_eq!(errors.len(), 2, "{errors:?}");
}

/// `--verbose` streams what the agent says and does, and names the checks pawl runs.
#[test]
fn verbose_streams_the_agents_messages_and_tool_calls() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 2", NO_BREAKERS, ""));
    let s = env.scenario("fix", WRITE_DONE);
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s, "--verbose"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("[agent 1] writing it"), "{}", r.stdout);
    assert!(
        r.stdout
            .lines()
            .any(|l| l.starts_with("[agent 1] ▸ ") && l.contains("done.txt")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("[pawl] iteration 1: pawl runs the checks (test)"),
        "{}",
        r.stdout
    );
    // Without it: none of that.
    env.git(&["checkout", "-q", "main"]);
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("[agent 1]"), "{}", r.stdout);
}

/// Reports carry test counts (markdown, JSON, PR body) and link the agent's transcripts; the PR
/// body links nothing that exists only on this machine.
#[test]
fn reports_carry_test_counts_and_transcripts_and_the_pr_body_nothing_local() {
    let env = TestEnv::new();
    env.write(
        "test_calc.py",
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_done(self):\n        import os\n        self.assertTrue(os.path.exists('done.txt'))\n\n    def test_one(self):\n        self.assertEqual(1, 1)\n",
    );
    env.headless(&config_with(
        "max_iterations = 2",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        "python3 -m unittest -v",
    ));
    let (code, id) = env.replay_run("fix", WRITE_DONE);
    let json = env.ok(&["report", "--json"]).json();
    assert_eq!(code, 0, "{json}");
    let test = &json["checks"][0];
    assert_eq!(
        (
            test["tests"]["passed"].as_u64(),
            test["tests"]["failed"].as_u64()
        ),
        (Some(2), Some(0)),
        "{json}"
    );
    assert_eq!(json["transcripts"][0]["iteration"], 1, "{json}");
    let log = json["transcripts"][0]["log"].as_str().unwrap();
    assert!(env.root().join(log).is_file(), "{log}");
    let md = std::fs::read_to_string(env.root().join(format!(".pawl/reports/{id}.md"))).unwrap();
    assert!(md.contains("| test | pass | 2 passed, 0 failed |"), "{md}");
    assert!(md.contains("## Agent transcripts"), "{md}");
    assert!(
        md.contains(&format!("pawl logs --run {id} --iteration 1")),
        "{md}"
    );
    let pr = env.ok(&["report", "--pr", "--json"]).json();
    let body = pr["body"].as_str().unwrap();
    assert!(body.contains("tests: 2 passed, 0 failed"), "{body}");
    assert!(!body.contains(".pawl/"), "{body}");
    let root = env.root().display().to_string();
    assert!(!body.contains(&root) && !body.contains("/tmp/"), "{body}");
}

/// The check `name` of `pawl doctor --json`'s output.
fn doctor_check(json: &Value, name: &str) -> Value {
    json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no check {name}: {json}"))
}

/// `pawl doctor` says up front whether the checks can read pawl's key (issue 31, point 1):
/// where they can (no namespaces, here forced with `PAWL_CHECKS_WITHOUT_NAMESPACES=1`), a
/// verification whose checks pass is at most REVIEW on this machine, and doctor says so.
#[test]
fn doctor_says_whether_the_checks_can_read_pawls_key() {
    let env = TestEnv::new();
    env.headless(&config_with(
        "",
        NO_BREAKERS,
        "",
        "[agent]\nkind = \"replay\"\n",
        "true",
    ));
    let r = env.pawl(&["doctor", "--json"]);
    let json = r.json();
    let namespaces = doctor_check(&json, "user and mount namespaces");
    let key = doctor_check(&json, "pawl's key hidden from the checks");
    assert_eq!(key["status"], namespaces["status"], "{key} {namespaces}");

    let r = env.pawl_env(
        &["doctor", "--json"],
        &[("PAWL_CHECKS_WITHOUT_NAMESPACES", "1")],
    );
    let key = doctor_check(&r.json(), "pawl's key hidden from the checks");
    assert_eq!(key["status"], "warn", "{key}");
    let detail = key["detail"].as_str().unwrap();
    assert!(detail.contains("at most REVIEW"), "{key}");
    assert!(!key["fix"].as_str().unwrap().is_empty(), "{key}");
}
