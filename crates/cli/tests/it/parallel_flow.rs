//! A planned run's story flow in worktrees (issue 19, docs/parallel.md "Planned runs"): with two
//! workers each planner's story goes through the same flow as with one — the TDD red step and
//! its gate, green, refactor, the developer role prompt and the story's acceptance lines, the
//! security review — in its own worktree. The same scripted agent runs the same goal on one
//! worker and on two; the stories, their failures, the verdicts, the sessions per story and the
//! report's story fields must be the same. S2 depends on S1, so the replay's sessions come in
//! one order on two workers too (the replay agent answers by session number, not by prompt).

use serde_json::json;

use crate::TestEnv;
use crate::pipeline::{Script, approve};

/// The whole run, session by session: the planner's two stories (S2 touches security and waits
/// for S1); S1's first red step writes a test that passes without the behaviour (not red), the
/// second a failing one, then green and refactor; S2's red, green, refactor, a security review
/// that blocks, the developer's fix, a security review that approves.
fn script() -> Script {
    let mut s = Script::new();
    s.answer(
        "plan-1",
        // One run criterion, which S1 meets: one that needs both stories would fail S1's own
        // checks on one worker (its sub-loop runs the run's criteria), not in its worktree.
        json!({"criteria": [{"id": "C1", "text": "S1.txt is written", "verify": "command",
                             "command": "test -f S1.txt"}],
               "stories": [
                 {"id": "S1", "title": "write S1.txt", "size": "S", "acceptance": ["S1.txt holds S1"],
                  "files": ["S1.txt", "tests/S1.sh"]},
                 {"id": "S2", "title": "write S2.txt", "size": "S", "security": true,
                  "acceptance": ["S2.txt holds S2"], "files": ["S2.txt", "tests/S2.sh"],
                  "depends_on": ["S1"]}]}),
    )
    .write("s1-red-1", &[("tests/S1.sh", "true\n")])
    .write("s1-red-2", &[("tests/S1.sh", "grep -q S1 S1.txt\n")])
    .write("s1-green", &[("S1.txt", "S1\n")])
    .text("s1-refactor", "Clean already.")
    .write("s2-red", &[("tests/S2.sh", "grep -q S2 S2.txt\n")])
    .write("s2-green", &[("S2.txt", "S2 token logged\n")])
    .text("s2-refactor", "Clean already.")
    .answer(
        "s2-sec-1",
        json!({"approve": false, "architecture_status": "clear",
               "findings": [{"severity": "blocking", "text": "the token is logged", "file": "S2.txt"}]}),
    )
    .write("s2-fix", &[("S2.txt", "S2\n")])
    .answer("s2-sec-2", approve());
    s
}

/// A committed repository with the replay agent, the `tests/*.sh` gate and TDD on; the goal run
/// in work mode on `workers` with `script`, asserted to end verified (exit 0).
fn run_on(workers: &str, script: &Script) -> TestEnv {
    let env = TestEnv::new();
    env.pipeline("", crate::headless::NO_BREAKERS);
    let scenario = env.scenario("pipeline", &script.text_of());
    let r = env.pawl(&[
        "run",
        "write S1.txt and S2.txt",
        "--mode",
        "work",
        "--workers",
        workers,
        "--scenario",
        &scenario,
    ]);
    assert_eq!(
        r.code, 0,
        "on {workers} worker(s):\n{}\n{}",
        r.stdout, r.stderr
    );
    env
}

/// What the story flow left in the store, comparable across modes (iteration numbers differ).
#[derive(Debug, PartialEq)]
struct Flow {
    stories: Vec<String>,
    failures: Vec<String>,
    verdicts: Vec<String>,
    sessions: Vec<String>,
    checkpoints: Vec<String>,
    notes: Vec<String>,
    report: Vec<serde_json::Value>,
}

fn flow(env: &TestEnv) -> Flow {
    // Iteration numbers differ between modes: out of the messages (after the story's id).
    let no_digits = |v: Vec<String>| -> Vec<String> {
        v.into_iter()
            .map(|s| {
                let (story, message) = s.split_once(' ').unwrap_or((&s, ""));
                let message: String = message.chars().filter(|c| !c.is_ascii_digit()).collect();
                format!("{story} {message}")
            })
            .collect()
    };
    let run: String = env
        .db()
        .query_row("SELECT id FROM runs", [], |r| r.get(0))
        .unwrap();
    let text =
        std::fs::read_to_string(env.root().join(format!(".pawl/reports/{run}.json"))).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    Flow {
        stories: env.strings(
            "SELECT id || ':' || status || ':' || tdd_phase || ':' || security FROM stories ORDER BY id",
        ),
        failures: no_digits(env.strings(
            "SELECT story_id || ' ' || message FROM failures WHERE story_id IS NOT NULL ORDER BY story_id, id",
        )),
        verdicts: env.strings(
            "SELECT COALESCE(story_id, '-') || ' ' || role || ' ' || approve FROM verdicts ORDER BY story_id, id",
        ),
        sessions: env.strings(
            "SELECT COALESCE(story_id, '-') || ' ' || COUNT(*) FROM iterations GROUP BY story_id ORDER BY story_id",
        ),
        checkpoints: env.strings(
            "SELECT kind || ' ' || round || ' ' || overall || ' ' || passed FROM plan_scores WHERE kind LIKE 'checkpoint%' ORDER BY id",
        ),
        notes: env.strings("SELECT text FROM notes ORDER BY id"),
        report: report["stories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                serde_json::json!({"id": s["id"], "title": s["title"], "size": s["size"],
                    "security": s["security"], "status": s["status"], "tdd_phase": s["tdd_phase"]})
            })
            .collect(),
    }
}

/// The prompts of a story's sessions, in order.
fn prompts(env: &TestEnv, story: &str) -> Vec<String> {
    let db = env.db();
    let mut stmt = db
        .prepare("SELECT prompt FROM iterations WHERE story_id = ?1 ORDER BY n")
        .unwrap();
    stmt.query_map([story], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn story_flow_on_two_workers_is_the_sequential_story_flow_in_worktrees() {
    let one = run_on("1", &script());
    let two = run_on("2", &script());
    let (a, b) = (flow(&one), flow(&two));
    assert_eq!(a, b, "one worker (left) and two workers (right) differ");
    // What both did, story by story: the full TDD cycle, S1's first red refused, S2's first
    // security review sent back to its developer.
    assert_eq!(b.stories, ["S1:done:verify:0", "S2:done:verify:1"]);
    assert_eq!(
        b.sessions,
        ["- 1", "S1 4", "S2 6"],
        "planner; red ×2, green, refactor; red, green, refactor, security, green, security"
    );
    assert!(
        b.failures
            .iter()
            .any(|f| f.starts_with("S1 TDD red: the tests pass with the new test")),
        "{:?}",
        b.failures
    );
    assert!(
        b.failures
            .iter()
            .any(|f| f.starts_with("S2 security review") && f.contains("the token is logged")),
        "{:?}",
        b.failures
    );
    assert_eq!(b.verdicts, ["S2 security 0", "S2 security 1"]);
    assert_eq!(
        b.checkpoints,
        ["checkpoint_mid 1 1.0 1", "checkpoint_end 1 1.0 1"],
        "the mid-way checkpoint after S1, the end one after S2"
    );
    // On two workers: each story's sessions ran in its worktree with the developer's role, the
    // story's acceptance line and where it works; the red step that did not hold was said so.
    for (story, acceptance) in [("S1", "- S1.txt holds S1"), ("S2", "- S2.txt holds S2")] {
        let ps = prompts(&two, story);
        for p in ps.iter().filter(|p| !p.contains("[pawl role: security]")) {
            assert!(p.contains("[pawl role: developer]"), "{p}");
            assert!(p.contains(acceptance), "{p}");
            assert!(p.contains("in its own git worktree"), "{p}");
        }
        assert!(ps[0].contains("TDD, red step"), "{}", ps[0]);
    }
    // The scenario's sessions in its order (S2 waited for S1 to be merged).
    let s1 = prompts(&two, "S1");
    assert!(
        s1[1].contains("Your last red step did not hold"),
        "{}",
        s1[1]
    );
    let s2 = prompts(&two, "S2");
    assert!(s2[3].contains("[pawl role: security]"), "{}", s2[3]);
    assert!(s2[4].contains("the token is logged (S2.txt)"), "{}", s2[4]);
    // Both stories merged by the merge queue, each test and file on the run's branch.
    let rows = two.strings(
        "SELECT story || ':' || state || ':' || merge_result FROM story_work ORDER BY seq",
    );
    assert_eq!(rows, ["S1:merged:merged", "S2:merged:merged"]);
    for s in ["S1", "S2"] {
        assert_eq!(
            std::fs::read_to_string(two.root().join(format!("{s}.txt"))).unwrap(),
            format!("{s}\n")
        );
        assert!(two.root().join(format!("tests/{s}.sh")).is_file());
    }
    assert!(
        one.strings("SELECT story FROM story_work").is_empty(),
        "one worker runs in the tree"
    );
}

/// The mid-way checkpoint acts on two workers as on one: S1's red step never fails (its story is
/// out of attempts after three), so half the stories are through with the run's criterion unmet;
/// the checkpoint, taken on the run's tree, is under its threshold and S2's developer is told
/// what to fix, and does. The run ends the same way on both.
#[test]
fn story_flow_on_two_workers_takes_the_mid_way_checkpoint_and_tells_the_stories_left() {
    let mut s = Script::new();
    s.answer(
        "plan-1",
        // No files: each story's scope is unknown, so they run one at a time, S1 first.
        json!({"criteria": [{"id": "C1", "text": "S1.txt is written", "verify": "command",
                             "command": "test -f S1.txt"}],
               "stories": [
                 {"id": "S1", "title": "write S1.txt", "size": "S", "acceptance": ["S1.txt holds S1"]},
                 {"id": "S2", "title": "write S2.txt", "size": "S", "acceptance": ["S2.txt holds S2"]}]}),
    );
    for n in 1..=3 {
        s.write(&format!("s1-red-{n}"), &[("tests/S1.sh", "true\n")]);
    }
    s.write("s2-red", &[("tests/S2.sh", "grep -q S2 S2.txt\n")])
        // Told by the checkpoint, S2's developer also writes what S1 did not.
        .write("s2-green", &[("S2.txt", "S2\n"), ("S1.txt", "S1\n")])
        .text("s2-refactor", "Clean already.");
    // Verified on both, S1 skipped.
    let one = run_on("1", &s);
    let two = run_on("2", &s);
    let (a, b) = (flow(&one), flow(&two));
    assert_eq!(a, b, "one worker (left) and two workers (right) differ");
    assert_eq!(b.stories, ["S1:skipped:none:0", "S2:done:verify:0"]);
    assert_eq!(b.sessions, ["- 1", "S1 3", "S2 3"]);
    assert_eq!(
        b.checkpoints[0], "checkpoint_mid 1 0.0 0",
        "{:?}",
        b.checkpoints
    );
    let note = "mid-way checkpoint: 0.00 of the command criteria verified";
    assert!(
        b.notes
            .iter()
            .any(|n| n.starts_with(note) && n.contains("C1 `test -f S1.txt`")),
        "{:?}",
        b.notes
    );
    // S2's green step (a sub-loop session, whose prompt carries the run's notes) was told.
    let s2 = prompts(&two, "S2");
    assert!(
        s2[1].contains("TDD, green step") && s2[1].contains(note),
        "{}",
        s2[1]
    );
    assert_eq!(
        two.strings("SELECT story || ':' || state FROM story_work ORDER BY seq"),
        ["S1:failed", "S2:merged"]
    );
}

/// A planned story sent back by the merge queue goes through the story flow again in its
/// worktree: the developer's role, its acceptance line and the merge queue's reason in the
/// prompt. Declared apart, both stories edit shared.txt side by side (TDD off: each session is the
/// same script, whatever story or order); the one merged second conflicts, finds git's markers in
/// its worktree and keeps both sides.
#[test]
fn a_planned_story_sent_back_by_the_merge_queue_is_redone_with_its_story_flow() {
    let env = TestEnv::new();
    env.write("shared.txt", "base\n");
    env.pipeline("tdd = false", crate::headless::NO_BREAKERS);
    let mut s = Script::new();
    s.answer(
        "plan-1",
        json!({"criteria": [{"id": "C1", "text": "both stories wrote shared.txt", "verify": "command",
                             "command": "grep -qx S1 shared.txt && grep -qx S2 shared.txt"}],
               "stories": [
                 {"id": "S1", "title": "S1 in shared.txt", "size": "S", "acceptance": ["shared.txt names S1"], "files": ["S1.txt"]},
                 {"id": "S2", "title": "S2 in shared.txt", "size": "S", "acceptance": ["shared.txt names S2"], "files": ["S2.txt"]}]}),
    );
    let agent = r#"if grep -q '^<<<<<<<' shared.txt; then
  grep -v -e '^<<<<<<<' -e '^=======' -e '^>>>>>>>' -e '^base$' shared.txt > shared.tmp && mv shared.tmp shared.txt
  echo "$PAWL_STORY" >> "$HOME/marks/resolved"
else
  echo "$PAWL_STORY" > shared.txt
  echo x > "$PAWL_STORY.txt"
fi
"#;
    for n in 1..=3 {
        s.run(&format!("dev-{n}"), agent);
    }
    let scenario = env.scenario("pipeline", &s.text_of());
    let r = env.pawl(&[
        "run",
        "both stories in shared.txt",
        "--mode",
        "work",
        "--workers",
        "2",
        "--scenario",
        &scenario,
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let shared = std::fs::read_to_string(env.root().join("shared.txt")).unwrap();
    let mut lines: Vec<&str> = shared.lines().collect();
    lines.sort();
    assert_eq!(lines, ["S1", "S2"], "{shared}");
    let resolved = std::fs::read_to_string(env.dir.path().join("home/marks/resolved")).unwrap();
    let redone = resolved.trim();
    assert!(redone == "S1" || redone == "S2", "{resolved}");
    assert_eq!(
        env.strings("SELECT story || ':' || state || ':' || attempts FROM story_work ORDER BY seq"),
        ["S1", "S2"].map(|s| format!("{s}:merged:{}", if s == redone { 2 } else { 1 }))
    );
    assert_eq!(
        env.strings("SELECT id || ':' || status FROM stories ORDER BY id"),
        ["S1:done", "S2:done"]
    );
    let ps = prompts(&env, redone);
    assert_eq!(ps.len(), 2, "{ps:?}");
    let again = &ps[1];
    assert!(again.contains("[pawl role: developer]"), "{again}");
    assert!(
        again.contains(&format!("- shared.txt names {redone}")),
        "{again}"
    );
    assert!(
        again.contains("Sent back by the merge queue: your work conflicts"),
        "{again}"
    );
    assert!(!ps[0].contains("Sent back"), "{}", ps[0]);
}
