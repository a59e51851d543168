//! Parallel stories (issue 19, docs/parallel.md): `pawl run --plan plan.toml` with the command
//! agent, each story in its own worktree on its own branch, merged one at a time by the merge
//! queue that re-verifies the merged tree. Every test asserts the exit code, what the run's
//! branch holds, the stories' rows in the store and the report's `stories[]`, and that no
//! worktree or story branch is left behind.

use crate::TestEnv;

/// A `pawl.toml` for a command agent that runs `agent.sh` (committed beside it): no limits in
/// the way unless `limits` says so, every breaker off, the gate `gate`.
fn config(workers: u32, limits: &str, gate: &str) -> String {
    format!(
        "[agent]\nkind = \"command\"\ncommand = [\"sh\", \"agent.sh\"]\n\n[limits]\ncalls_per_hour = 0\n{limits}\n\n[breakers]\n{}\n[parallel]\nworkers = {workers}\n\n[gates]\ntest = \"{}\"\n",
        crate::headless::NO_BREAKERS,
        gate.replace('"', "\\\"")
    )
}

/// One planned story: `(id, files, depends_on, criteria)`.
type Row<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);

/// `[[stories]]` for the rows.
fn plan(stories: &[Row<'_>]) -> String {
    let list = |v: &[&str]| {
        v.iter()
            .map(|s| format!("{:?}", s))
            .collect::<Vec<_>>()
            .join(", ")
    };
    stories
        .iter()
        .map(|(id, files, deps, criteria)| {
            format!(
                "[[stories]]\nid = \"{id}\"\ntitle = \"story {id}\"\nfiles = [{}]\ndepends_on = [{}]\ncriteria = [{}]\n\n",
                list(files),
                list(deps),
                list(criteria)
            )
        })
        .collect()
}

impl TestEnv {
    /// `pawl init`, this config and agent script committed; the plan written outside the tree.
    fn planned(&self, toml: &str, agent_sh: &str, plan_toml: &str) -> String {
        self.ok(&["init"]);
        self.write("pawl.toml", toml);
        self.write("agent.sh", agent_sh);
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", "pawl config"]);
        let p = self.dir.path().join("plan.toml");
        std::fs::write(&p, plan_toml).unwrap();
        p.display().to_string()
    }

    fn report_json(&self, run: &str) -> serde_json::Value {
        let text =
            std::fs::read_to_string(self.root().join(format!(".pawl/reports/{run}.json"))).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn only_run(&self) -> String {
        self.db()
            .query_row("SELECT id FROM runs", [], |r| r.get(0))
            .unwrap()
    }

    /// `git worktree list --porcelain`: the paths.
    fn worktrees(&self) -> Vec<String> {
        let out = self.git(&["worktree", "list", "--porcelain"]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("worktree "))
            .map(str::to_string)
            .collect()
    }

    fn branches(&self) -> Vec<String> {
        let out = self.git(&["for-each-ref", "--format=%(refname:short)", "refs/heads/"]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// `(story, state, attempts, merge)` of every planned story.
    fn story_rows(&self) -> Vec<(String, String, u32, String)> {
        let db = self.db();
        let mut stmt = db
            .prepare("SELECT story, state, attempts, merge_result FROM story_work ORDER BY seq")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }
}

/// The agent: writes `<story>.txt` in its working directory (the story's worktree), after
/// leaving a mark that names the directory it ran in.
const WRITE_OWN_FILE: &str = "echo \"$PAWL_STORY $(pwd)\" >> \"$HOME/marks/cwd\"\necho \"$PAWL_STORY\" > \"$PAWL_STORY.txt\"\n";

/// The first two stories each wait (up to a minute) until both have started: with two workers
/// they run side by side; one after the other, the first gives up waiting and says so.
const SIDE_BY_SIDE: &str = "touch \"$HOME/marks/started-$PAWL_STORY\"\ncase $PAWL_STORY in S1|S2) n=0; while [ ! -e \"$HOME/marks/started-S1\" ] || [ ! -e \"$HOME/marks/started-S2\" ]; do n=$((n+1)); if [ $n -gt 1200 ]; then touch \"$HOME/marks/alone\"; break; fi; sleep 0.05; done;; esac\n";

#[test]
fn four_independent_stories_on_two_workers_are_all_merged() {
    let env = TestEnv::new();
    // `[parallel] workers = 1`, `--workers 2` on the command line: the flag wins.
    let plan_path = env.planned(
        &config(1, "", "true"),
        &format!("{SIDE_BY_SIDE}{WRITE_OWN_FILE}"),
        &plan(&[
            ("S1", &["S1.txt"], &[], &["test -f S1.txt"]),
            ("S2", &["S2.txt"], &[], &["test -f S2.txt"]),
            ("S3", &["S3.txt"], &[], &["test -f S3.txt"]),
            ("S4", &["S4.txt"], &[], &["test -f S4.txt"]),
        ]),
    );
    let r = env.pawl(&[
        "run",
        "--plan",
        &plan_path,
        "--workers",
        "2",
        "--check",
        "test -f S1.txt && test -f S2.txt && test -f S3.txt && test -f S4.txt",
        "write the four files",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let run = env.only_run();
    // The run's branch holds every story's file, in the main working tree.
    for s in ["S1", "S2", "S3", "S4"] {
        assert_eq!(
            std::fs::read_to_string(env.root().join(format!("{s}.txt"))).unwrap(),
            format!("{s}\n")
        );
    }
    let rows = env.story_rows();
    assert_eq!(rows.len(), 4);
    for (story, state, attempts, merge) in &rows {
        assert_eq!(
            (state.as_str(), *attempts, merge.as_str()),
            ("merged", 1, "merged"),
            "{story}"
        );
    }
    // No worktree or story branch is left; the run's branch stays for review.
    assert_eq!(env.worktrees().len(), 1, "{:?}", env.worktrees());
    let branches = env.branches();
    assert!(
        !branches
            .iter()
            .any(|b| b.starts_with(&format!("pawl/{run}-"))),
        "{branches:?}"
    );
    // Each story's agent ran in its own worktree, outside the repository.
    let marks = std::fs::read_to_string(env.dir.path().join("home/marks/cwd")).unwrap();
    let root = env.root().display().to_string();
    for s in ["S1", "S2", "S3", "S4"] {
        let line = marks
            .lines()
            .find(|l| l.starts_with(&format!("{s} ")))
            .unwrap_or_else(|| panic!("{s} never ran: {marks}"));
        let cwd = &line[s.len() + 1..];
        assert!(
            cwd.ends_with(&format!("/{run}/{s}")) && !cwd.starts_with(&root),
            "{line}"
        );
    }
    let report = env.report_json(&run);
    let stories = report["stories"].as_array().unwrap();
    assert_eq!(stories.len(), 4);
    for s in stories {
        assert_eq!(s["merge"], "merged", "{s}");
        assert_eq!(s["attempts"], 1, "{s}");
        let checks = s["evidence"]["checks"].as_array().unwrap();
        assert!(
            checks.iter().all(|c| c["passed"] == true) && !checks.is_empty(),
            "{s}"
        );
    }
    assert_eq!(report["verdict"], "SHIP", "{report}");
    assert_eq!(report["parallel"]["workers"], 2, "{report}");
    assert!(
        !env.dir.path().join("home/marks/alone").exists(),
        "the first two stories did not run side by side"
    );
}

/// How many times the event log says the merge queue gave `story` the result `merge`.
fn merge_events(env: &TestEnv, story: &str, merge: &str) -> i64 {
    env.db()
        .query_row(
            "SELECT COUNT(*) FROM events WHERE kind = 'story_work' AND json_extract(data_json, '$.story') = ?1 AND json_extract(data_json, '$.merge') = ?2",
            [story, merge],
            |r| r.get(0),
        )
        .unwrap()
}

#[test]
fn two_stories_that_conflict_one_is_merged_the_other_sent_back_and_redone() {
    let env = TestEnv::new();
    env.write("shared.txt", "base\n");
    // Declared apart, both edit the same line of shared.txt: an overlap that slips through the
    // schedule and is the merge queue's job. Sent back, the agent finds git's conflict markers
    // in its worktree and keeps both sides.
    let agent = r#"if grep -q '^<<<<<<<' shared.txt; then
  grep -v -e '^<<<<<<<' -e '^=======' -e '^>>>>>>>' -e '^base$' shared.txt > shared.tmp && mv shared.tmp shared.txt
  echo "$PAWL_STORY" >> "$HOME/marks/resolved"
else
  echo "$PAWL_STORY" > shared.txt
  echo x > "$PAWL_STORY.txt"
fi
"#;
    let plan_path = env.planned(
        &config(2, "", "true"),
        agent,
        &plan(&[
            ("S1", &["S1.txt"], &[], &["grep -qx S1 shared.txt"]),
            ("S2", &["S2.txt"], &[], &["grep -qx S2 shared.txt"]),
        ]),
    );
    let r = env.pawl(&["run", "--plan", &plan_path, "both stories"]);
    // Both merged, green on the merged tree, their criteria red to green.
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let shared = std::fs::read_to_string(env.root().join("shared.txt")).unwrap();
    let mut lines: Vec<&str> = shared.lines().collect();
    lines.sort();
    assert_eq!(lines, vec!["S1", "S2"], "{shared}");
    let rows = env.story_rows();
    let resolved = std::fs::read_to_string(env.dir.path().join("home/marks/resolved")).unwrap();
    let redone = resolved.trim();
    assert!(redone == "S1" || redone == "S2", "{resolved}");
    let first = if redone == "S1" { "S2" } else { "S1" };
    for (story, state, attempts, merge) in &rows {
        let want = if story == redone { 2 } else { 1 };
        assert_eq!(
            (state.as_str(), *attempts, merge.as_str()),
            ("merged", want, "merged"),
            "{story}"
        );
    }
    // Never reported merged while it conflicted: one conflict, then one merge, for the story
    // that was redone; the other merged once.
    assert_eq!(merge_events(&env, redone, "conflict"), 1);
    assert_eq!(merge_events(&env, redone, "merged"), 1);
    assert_eq!(merge_events(&env, first, "conflict"), 0);
    assert_eq!(merge_events(&env, first, "merged"), 1);
    assert_eq!(env.worktrees().len(), 1);
    let run = env.only_run();
    let report = env.report_json(&run);
    let line = report["stories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == redone)
        .unwrap()
        .clone();
    assert_eq!(line["attempts"], 2, "{line}");
    assert_eq!(line["merge"], "merged", "{line}");
}

/// The attack: sent back for a conflict, the agent leaves git's markers in the file and its
/// checks (which do not read the markers) pass. The merge queue sends it back again; only a
/// resolved file is merged.
#[test]
fn a_story_that_leaves_conflict_markers_is_never_merged_with_them() {
    let env = TestEnv::new();
    env.write("shared.txt", "base\n");
    let agent = r#"if grep -q '^<<<<<<<' shared.txt; then
  if [ ! -e "$HOME/marks/left-once" ]; then
    touch "$HOME/marks/left-once"
  else
    grep -v -e '^<<<<<<<' -e '^=======' -e '^>>>>>>>' -e '^base$' shared.txt > shared.tmp && mv shared.tmp shared.txt
    echo "$PAWL_STORY" >> "$HOME/marks/resolved"
  fi
else
  echo "$PAWL_STORY" > shared.txt
fi
"#;
    let plan_path = env.planned(
        &config(2, "", "true"),
        agent,
        &plan(&[
            ("S1", &["S1.txt"], &[], &["grep -q S1 shared.txt"]),
            ("S2", &["S2.txt"], &[], &["grep -q S2 shared.txt"]),
        ]),
    );
    let r = env.pawl(&["run", "--plan", &plan_path, "both stories"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let shared = std::fs::read_to_string(env.root().join("shared.txt")).unwrap();
    assert!(
        !shared.contains("<<<<<<<") && !shared.contains(">>>>>>>"),
        "{shared}"
    );
    let resolved = std::fs::read_to_string(env.dir.path().join("home/marks/resolved")).unwrap();
    let redone = resolved.trim();
    assert_eq!(merge_events(&env, redone, "conflict"), 2, "{}", r.stdout);
    assert_eq!(merge_events(&env, redone, "merged"), 1);
    let rows = env.story_rows();
    let row = rows.iter().find(|r| r.0 == redone).unwrap();
    assert_eq!((row.1.as_str(), row.2), ("merged", 3), "{rows:?}");
    assert!(r.stdout.contains("conflict markers"), "{}", r.stdout);
}

#[test]
fn a_story_whose_checks_fail_only_on_the_merged_tree_is_sent_back_with_the_evidence() {
    let env = TestEnv::new();
    // Each story defines NAME=foo in a file of its own: fine alone, a duplicate once both are
    // merged (the gate). Sent back, the agent renames its definition.
    env.write(
        "check.sh",
        "test -z \"$(cat *.def 2>/dev/null | sort | uniq -d)\"\n",
    );
    let agent = r#"f="$PAWL_STORY.def"
if [ -f "$f" ] && [ -n "$(ls *.def | grep -v "$f")" ]; then
  echo "NAME=$PAWL_STORY" > "$f"
  printf '%s\n' "$PAWL_PROMPT" > "$HOME/marks/prompt-$PAWL_STORY"
else
  echo "NAME=foo" > "$f"
fi
"#;
    let plan_path = env.planned(
        &config(2, "", "sh check.sh"),
        agent,
        &plan(&[
            ("S1", &["S1.def"], &[], &["test -f S1.def"]),
            ("S2", &["S2.def"], &[], &["test -f S2.def"]),
        ]),
    );
    let r = env.pawl(&["run", "--plan", &plan_path, "two definitions"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let rows = env.story_rows();
    let red: Vec<&(String, String, u32, String)> = rows.iter().filter(|r| r.2 == 2).collect();
    assert_eq!(red.len(), 1, "{rows:?}");
    let redone = red[0].0.clone();
    assert!(
        rows.iter().all(|r| r.1 == "merged" && r.3 == "merged"),
        "{rows:?}"
    );
    assert_eq!(merge_events(&env, &redone, "red"), 1);
    assert_eq!(merge_events(&env, &redone, "merged"), 1);
    // The agent was told which check failed on the merged tree.
    let prompt =
        std::fs::read_to_string(env.dir.path().join(format!("home/marks/prompt-{redone}")))
            .unwrap();
    assert!(
        prompt.contains("on the merged tree these checks fail: test"),
        "{prompt}"
    );
    // The run's branch is green: two distinct names.
    let out = env.command("sh").arg("check.sh").output().unwrap();
    assert!(out.status.success());
    // The red evidence was recorded before the story went back.
    let red_checks: String = env
        .db()
        .query_row(
            "SELECT data_json FROM events WHERE kind = 'story_work' AND json_extract(data_json, '$.merge') = 'red'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(red_checks.contains("\"passed\":false"), "{red_checks}");
}

/// A gate that holds (until the test writes `<marks>/go`; `{ask}` is the service's asker, put in
/// by [`kill_9_then_resume`]) the first check that sees `files` of the stories'
/// files. Every room is seen at the repository's path (issue 30 point 1), so a check cannot
/// tell its room by its path: one file is first seen by a story's own verification (a story
/// is merged only after its checks pass), both files only by the merge queue's verification of
/// the second story.
fn holding_gate(files: usize) -> String {
    format!(
        "if [ \"$(ls S*.txt 2>/dev/null | wc -l)\" -eq {files} ] && [ \"$({{ask}} go)\" != yes ]; then {{ask}} held >/dev/null; while [ \"$({{ask}} go)\" != yes ]; do sleep 0.05; done; fi\nexit 0\n"
    )
}

/// kill -9 pawl once `<marks>/held` exists, then `pawl resume`: every story merged exactly once,
/// no worktree or story branch left.
fn kill_9_then_resume(gate: &str, agent: &str, state_at_kill: &[&str]) {
    let env = TestEnv::new();
    let marks = env.dir.path().join("home/marks");
    // A gate that holds tells the test through a service on the host (nothing a check writes
    // outside its room outlives it) and asks it whether to go on.
    let at = marks.clone();
    let service = crate::service::Service::start(move |_, line| match line {
        "held" => {
            std::fs::write(at.join("held"), "").unwrap();
            "ok".into()
        }
        _ if at.join("go").exists() => "yes".into(),
        _ => "no".into(),
    });
    env.write("gate.sh", &gate.replace("{ask}", &service.asker()));
    let plan_path = env.planned(
        &format!(
            "{}\n{}",
            config(2, "", "sh gate.sh"),
            crate::service::ROOM_NETWORK
        ),
        agent,
        &plan(&[
            ("S1", &["S1.txt"], &[], &["test -f S1.txt"]),
            ("S2", &["S2.txt"], &[], &["test -f S2.txt"]),
        ]),
    );
    let mut child = env
        .command("pawl")
        .args([
            "run",
            "--plan",
            &plan_path,
            "--check",
            "test -f S1.txt && test -f S2.txt",
            "two files",
        ])
        .stdout(std::fs::File::create(env.dir.path().join("run.out")).unwrap())
        .stderr(std::fs::File::create(env.dir.path().join("run.err")).unwrap())
        .spawn()
        .unwrap();
    let patience = std::time::Instant::now();
    while !marks.join("held").exists() {
        assert!(
            patience.elapsed() < std::time::Duration::from_secs(180),
            "never held"
        );
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "pawl ended before it was held: {status}\n{}\n{}",
                std::fs::read_to_string(env.dir.path().join("run.out")).unwrap_or_default(),
                std::fs::read_to_string(env.dir.path().join("run.err")).unwrap_or_default()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SIGKILL: no chance to clean up.
    child.kill().unwrap();
    child.wait().unwrap();
    let rows = env.story_rows();
    assert!(
        rows.iter().any(|r| state_at_kill.contains(&r.1.as_str())),
        "{rows:?}"
    );
    std::fs::write(marks.join("go"), "").unwrap();
    let r = env.pawl(&["resume"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let rows = env.story_rows();
    for (story, state, _, merge) in &rows {
        assert_eq!(
            (state.as_str(), merge.as_str()),
            ("merged", "merged"),
            "{story}"
        );
        assert_eq!(merge_events(&env, story, "merged"), 1, "{story}");
    }
    for s in ["S1", "S2"] {
        assert!(env.root().join(format!("{s}.txt")).is_file());
    }
    // No orphaned worktree (the merge queue's scratch checkout included), no story branch.
    assert_eq!(env.worktrees().len(), 1, "{:?}", env.worktrees());
    let run = env.only_run();
    assert!(
        !env.branches()
            .iter()
            .any(|b| b.starts_with(&format!("pawl/{run}-"))),
        "{:?}",
        env.branches()
    );
    let report = env.report_json(&run);
    assert_eq!(report["verdict"], "SHIP", "{report}");
}

#[test]
fn kill_9_mid_merge_then_resume_merges_every_story_exactly_once() {
    // The merge queue's checks of the second story (the merged tree has both files).
    let gate = holding_gate(2);
    kill_9_then_resume(&gate, WRITE_OWN_FILE, &["merging"]);
}

#[test]
fn kill_9_mid_verification_then_resume_merges_every_story_exactly_once() {
    // A story's own checks (the first to see one story's file).
    let gate = holding_gate(1);
    kill_9_then_resume(&gate, WRITE_OWN_FILE, &["working"]);
}

#[test]
fn kill_9_mid_step_then_resume_merges_every_story_exactly_once() {
    // The agent's step holds after writing its file (the tree is changed, nothing verified).
    let agent = format!(
        "{WRITE_OWN_FILE}if [ ! -e \"$HOME/marks/go\" ]; then touch \"$HOME/marks/held\"; while [ ! -e \"$HOME/marks/go\" ]; do sleep 0.05; done; fi\n"
    );
    kill_9_then_resume("exit 0\n", &agent, &["working"]);
}

/// The agent of a story that needs two steps: `<story>.txt` first, `<story>.done` next.
const TWO_STEPS: &str = "if [ -f \"$PAWL_STORY.txt\" ]; then echo done > \"$PAWL_STORY.done\"; else echo \"$PAWL_STORY\" > \"$PAWL_STORY.txt\"; fi\n";

fn four_two_step_stories() -> String {
    plan(&[
        ("S1", &["S1.*"], &[], &["test -f S1.done"]),
        ("S2", &["S2.*"], &[], &["test -f S2.done"]),
        ("S3", &["S3.*"], &[], &["test -f S3.done"]),
        ("S4", &["S4.*"], &[], &["test -f S4.done"]),
    ])
}

#[test]
fn the_run_s_iteration_limit_counts_every_worker_and_stops_them_all() {
    let env = TestEnv::new();
    let plan_path = env.planned(
        &config(2, "max_iterations = 3", "true"),
        TWO_STEPS,
        &four_two_step_stories(),
    );
    let r = env.pawl(&["run", "--plan", &plan_path, "eight steps of work"]);
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    // Counted across the workers: at most the steps in flight (one per other worker) past it.
    let n = env.iterations();
    assert!((3..=4).contains(&n), "{n} iterations");
    let rows = env.story_rows();
    assert!(
        rows.iter().all(|r| r.1 != "working" && r.1 != "merging"),
        "every worker stopped: {rows:?}"
    );
    let run = env.only_run();
    let report = env.report_json(&run);
    assert!(
        report["parallel"]["overshoot"]
            .as_str()
            .unwrap()
            .contains("at most 1 step(s) already in flight"),
        "{report}"
    );
    // Raised by the user, the run finishes: every story merged once, nothing left behind.
    let r = env.pawl(&["resume", "--add-iterations", "20"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(env.story_rows().iter().all(|r| r.1 == "merged"));
    assert_eq!(env.worktrees().len(), 1, "{:?}", env.worktrees());
}

#[test]
fn pawl_stop_stops_every_worker_and_clean_keeps_unmerged_work_unless_forced() {
    let env = TestEnv::new();
    // Each story's first step waits until the test lets it go.
    let agent = String::from(
        "if [ ! -f \"$PAWL_STORY.txt\" ]; then touch \"$HOME/marks/started-$PAWL_STORY\"; while [ ! -e \"$HOME/marks/go\" ]; do sleep 0.05; done; echo \"$PAWL_STORY\" > \"$PAWL_STORY.txt\"; else echo done > \"$PAWL_STORY.done\"; fi\n",
    );
    let plan_path = env.planned(
        &config(2, "", "true"),
        &agent,
        &plan(&[
            ("S1", &["S1.*"], &[], &["test -f S1.done"]),
            ("S2", &["S2.*"], &[], &["test -f S2.done"]),
        ]),
    );
    let child = env
        .command("pawl")
        .args(["run", "--plan", &plan_path, "two stories"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let marks = env.dir.path().join("home/marks");
    let patience = std::time::Instant::now();
    while !(marks.join("started-S1").exists() && marks.join("started-S2").exists()) {
        assert!(
            patience.elapsed() < std::time::Duration::from_secs(180),
            "the steps never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    env.ok(&["stop"]);
    std::fs::write(marks.join("go"), "").unwrap();
    let r = crate::Run::from(child.wait_with_output().unwrap());
    assert_eq!(r.code, 6, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.iterations(), 2, "one step per worker, then the stop");
    let rows = env.story_rows();
    assert!(rows.iter().all(|r| r.1 == "pending"), "{rows:?}");
    // Nothing lost: both worktrees and branches are still there, with the steps' work.
    let run = env.only_run();
    assert_eq!(env.worktrees().len(), 3, "{:?}", env.worktrees());
    // A dry run lists what it would remove and why: nothing of the unmerged stories.
    let dry = env.ok(&["clean", "--dry-run", "--json"]).json();
    let stories = dry["stories"].as_array().unwrap();
    assert_eq!(stories.len(), 2, "{dry}");
    for s in stories {
        assert_eq!(s["action"], "kept", "{s}");
        assert!(s["why"].as_str().unwrap().contains("pawl resume"), "{s}");
    }
    env.ok(&["clean"]);
    assert_eq!(
        env.worktrees().len(),
        3,
        "clean without --force removed unmerged work"
    );
    // --force: each story's work kept under a backup ref first, then removed.
    let forced = env.ok(&["clean", "--force", "--json"]).json();
    for s in forced["stories"].as_array().unwrap() {
        assert_eq!(s["action"], "removed", "{s}");
        let backup = s["backup_ref"].as_str().unwrap();
        let story = s["story"].as_str().unwrap();
        let out = env.git(&["show", &format!("{backup}:{story}.txt")]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{story}\n"));
    }
    assert_eq!(env.worktrees().len(), 1, "{:?}", env.worktrees());
    assert!(
        !env.branches()
            .iter()
            .any(|b| b.starts_with(&format!("pawl/{run}-"))),
        "{:?}",
        env.branches()
    );
}

#[test]
fn status_shows_the_stories_worktrees_and_their_disk_use() {
    let env = TestEnv::new();
    let plan_path = env.planned(
        &config(2, "max_iterations = 2", "true"),
        TWO_STEPS,
        &plan(&[
            ("S1", &["S1.*"], &[], &["test -f S1.done"]),
            ("S2", &["S2.*"], &[], &["test -f S2.done"]),
        ]),
    );
    let r = env.pawl(&["run", "--plan", &plan_path, "two stories"]);
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    let status = env.ok(&["status", "--json"]).json();
    let stories = status["parallel"]["stories"].as_array().unwrap();
    assert_eq!(stories.len(), 2, "{status}");
    for s in stories {
        assert_eq!(s["exists"], true, "{s}");
        assert!(s["disk_bytes"].as_u64().unwrap() > 0, "{s}");
        assert!(std::path::Path::new(s["worktree"].as_str().unwrap()).is_dir());
    }
    assert!(status["parallel"]["worktrees_bytes"].as_u64().unwrap() > 0);
    let human = env.ok(&["status"]).stdout;
    assert!(
        human.contains("worktrees: ") && human.contains("story S1 pending"),
        "{human}"
    );
}

/// `pawl status` names who holds each story being worked on: its worker's pid and host and when
/// its lease expires unless renewed; once the story is merged, no one.
#[test]
fn status_shows_who_holds_each_story_and_until_when() {
    let env = TestEnv::new();
    let agent = "echo \"start $$\" >> \"$HOME/marks/starts-$PAWL_STORY\"\nwhile [ ! -e \"$HOME/marks/go\" ]; do sleep 0.05; done\necho \"$PAWL_STORY\" > \"$PAWL_STORY.txt\"\n";
    let plan_path = env.planned(
        &config(1, "", "true"),
        agent,
        &plan(&[("S1", &["S1.txt"], &[], &["test -f S1.txt"])]),
    );
    let marks = env.dir.path().join("home/marks");
    let mut run = env
        .command("pawl")
        .args(["run", "--plan", &plan_path, "one file"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let patience = std::time::Instant::now();
    while starts(&marks, "S1") == 0 {
        assert!(
            patience.elapsed() < std::time::Duration::from_secs(180),
            "S1 never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = env.ok(&["status", "--json"]).json();
    let human = env.ok(&["status"]).stdout;
    std::fs::write(marks.join("go"), "").unwrap();
    let ended = run.wait().unwrap();
    let s1 = &status["parallel"]["stories"][0];
    assert_eq!(s1["state"], "working", "{status}");
    // The worker is a thread of the pawl that runs the run.
    assert_eq!(s1["lease"]["pid"], run.id(), "{status}");
    let host = s1["lease"]["host"].as_str().unwrap_or("");
    assert!(!host.is_empty(), "{status}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let expires = s1["lease"]["expires_at"].as_i64().unwrap();
    assert!(
        expires > s1["lease"]["heartbeat_at"].as_i64().unwrap(),
        "{status}"
    );
    assert!(expires < now + 10 * 60 * 1000, "{status}");
    assert!(
        human.contains(&format!(
            "story S1 working · merge pending · sessions 1 · held by pid {}@{host} until ",
            run.id()
        )),
        "{human}"
    );
    assert!(ended.success(), "{ended}");
    let after = env.ok(&["status", "--json"]).json();
    assert_eq!(
        after["parallel"]["stories"][0]["state"], "merged",
        "{after}"
    );
    assert!(
        after["parallel"]["stories"][0]["lease"].is_null(),
        "{after}"
    );
    assert!(!env.ok(&["status"]).stdout.contains("held by"));
}

/// The attack: with a key of its own (its own state directory), the agent starts a run from its
/// worktree. Refused: pawl in a story's worktree is in the run's step (the run's store is
/// read-only there).
#[test]
fn an_agent_inside_a_story_cannot_start_runs() {
    let env = TestEnv::new();
    let agent = format!(
        "XDG_STATE_HOME=\"$HOME/own-state\" '{}' run --driver manual \"a run of my own\" > \"$HOME/marks/nested-$PAWL_STORY\" 2>&1; echo \"exit $?\" >> \"$HOME/marks/nested-$PAWL_STORY\"\necho \"$PAWL_STORY\" > \"$PAWL_STORY.txt\"\n",
        crate::headless::pawl_bin()
    );
    let plan_path = env.planned(
        &config(1, "", "true"),
        &agent,
        &plan(&[("S1", &["S1.txt"], &[], &["test -f S1.txt"])]),
    );
    let r = env.pawl(&["run", "--plan", &plan_path, "one story"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let said = std::fs::read_to_string(env.dir.path().join("home/marks/nested-S1")).unwrap();
    assert!(!said.ends_with("exit 0\n"), "{said}");
    assert!(said.contains("from inside a pawl agent step"), "{said}");
    let runs: i64 = env
        .db()
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 1);
}

/// The real Claude Code (pinned, offline against pawl-testkit's mock model server) in two
/// worktrees at once: each story's session is asked about its story (the preamble names it),
/// writes its file with its Bash tool through pawl's guard hook, and both are merged.
#[test]
fn real_claude_code_works_two_stories_in_two_worktrees() {
    use pawl_testkit::{MockServer, Scenario, ToolCall, Turn};
    let Some(bin) = crate::agents_real::find(crate::agents_real::Cli::Claude) else {
        return;
    };
    let server = MockServer::start(Scenario::new(vec![
        Turn::text("Writing S1.txt.")
            .with_tool(ToolCall::bash("echo S1 > S1.txt"))
            .when_last_user_contains("Story S1"),
        Turn::text("Done: S1.txt is there."),
        Turn::text("Writing S2.txt.")
            .with_tool(ToolCall::bash("echo S2 > S2.txt"))
            .when_last_user_contains("Story S2"),
        Turn::text("Done: S2.txt is there."),
    ]))
    .unwrap();
    let env = TestEnv::new();
    let toml = format!(
        "[agent]\nkind = \"claude\"\ncommand = [\"{}\"]\n\n[limits]\ncalls_per_hour = 0\nmax_iterations = 6\n\n[breakers]\n{}\n[stall]\nidle_timeout = \"90s\"\nstep_timeout = \"180s\"\n\n[parallel]\nworkers = 2\n\n[gates]\ntest = \"true\"\n",
        bin.display(),
        crate::headless::NO_BREAKERS
    );
    let plan_path = env.planned(
        &toml,
        "",
        &plan(&[
            ("S1", &["S1.txt"], &[], &["grep -qx S1 S1.txt"]),
            ("S2", &["S2.txt"], &[], &["grep -qx S2 S2.txt"]),
        ]),
    );
    let tmp = env.dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let base_url = server.base_url();
    let r = env.pawl_env(
        &[
            "run",
            "--plan",
            &plan_path,
            "--check",
            "test -f S1.txt && test -f S2.txt",
            "write S1.txt and S2.txt",
        ],
        &[
            ("ANTHROPIC_BASE_URL", base_url.as_str()),
            ("ANTHROPIC_API_KEY", "dummy"),
            ("TMPDIR", &tmp.display().to_string()),
            ("TERM", "dumb"),
        ],
    );
    let requests: Vec<String> = server
        .requests()
        .iter()
        .map(|q| {
            format!(
                "#{} {} status {} turn {:?} last user {:?}",
                q.seq, q.path, q.status, q.turn, q.tool_outputs
            )
        })
        .collect();
    let why = format!(
        "exit {}\n--- stdout\n{}\n--- stderr\n{}\n--- requests\n{}",
        r.code,
        r.stdout,
        r.stderr,
        requests.join("\n")
    );
    assert_eq!(r.code, 0, "{why}");
    for s in ["S1", "S2"] {
        assert_eq!(
            std::fs::read_to_string(env.root().join(format!("{s}.txt"))).unwrap(),
            format!("{s}\n"),
            "{why}"
        );
    }
    let rows = env.story_rows();
    assert!(
        rows.iter().all(|r| r.1 == "merged" && r.3 == "merged"),
        "{rows:?}\n{why}"
    );
    assert_eq!(env.worktrees().len(), 1, "{why}");
    let report = env.report_json(&env.only_run());
    assert_eq!(report["verdict"], "SHIP", "{why}");
}

/// The real Codex CLI (pinned, offline against pawl-testkit's mock model server, Responses API)
/// in two worktrees at once: each story's session is asked about its story, writes its file
/// with its shell tool in its worktree, and both are merged.
#[test]
fn real_codex_works_two_stories_in_two_worktrees() {
    use pawl_testkit::{MockServer, Scenario, ToolCall, Turn};
    let Some(bin) = crate::agents_real::find(crate::agents_real::Cli::Codex) else {
        return;
    };
    let server = MockServer::start(Scenario::new(vec![
        Turn::text("Writing S1.txt.")
            .with_tool(ToolCall::bash("echo S1 > S1.txt"))
            .when_last_user_contains("Story S1"),
        Turn::text("Done: S1.txt is there."),
        Turn::text("Writing S2.txt.")
            .with_tool(ToolCall::bash("echo S2 > S2.txt"))
            .when_last_user_contains("Story S2"),
        Turn::text("Done: S2.txt is there."),
    ]))
    .unwrap();
    let env = TestEnv::new();
    let toml = format!(
        "[agent]\nkind = \"codex\"\ncommand = [\"{}\"]\nmodel = \"gpt-5.5\"\n\n[limits]\ncalls_per_hour = 0\nmax_iterations = 6\n\n[breakers]\n{}\n[stall]\nidle_timeout = \"90s\"\nstep_timeout = \"180s\"\n\n[parallel]\nworkers = 2\n\n[gates]\ntest = \"true\"\n",
        bin.display(),
        crate::headless::NO_BREAKERS
    );
    let plan_path = env.planned(
        &toml,
        "",
        &plan(&[
            ("S1", &["S1.txt"], &[], &["grep -qx S1 S1.txt"]),
            ("S2", &["S2.txt"], &[], &["grep -qx S2 S2.txt"]),
        ]),
    );
    let tmp = env.dir.path().join("tmp");
    // Not under TMPDIR: Codex refuses helper binaries there.
    let codex_home = env.dir.path().join("codex_home");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\ncheck_for_update_on_startup = false\n\n[model_providers.mock]\nname = \"Mock\"\nbase_url = \"{}/v1\"\nenv_key = \"MOCK_API_KEY\"\nwire_api = \"responses\"\nrequest_max_retries = 3\nstream_max_retries = 3\n\n[analytics]\nenabled = false\n\n[features]\nplugins = false\n",
            server.base_url()
        ),
    )
    .unwrap();
    let r = env.pawl_env(
        &[
            "run",
            "--plan",
            &plan_path,
            "--check",
            "test -f S1.txt && test -f S2.txt",
            "write S1.txt and S2.txt",
        ],
        &[
            ("CODEX_HOME", &codex_home.display().to_string()),
            ("MOCK_API_KEY", "dummy"),
            ("TMPDIR", &tmp.display().to_string()),
            ("TERM", "dumb"),
        ],
    );
    let requests: Vec<String> = server
        .requests()
        .iter()
        .map(|q| {
            format!(
                "#{} {} status {} turn {:?} user {:?} tool outputs {:?}",
                q.seq, q.path, q.status, q.turn, q.user_texts, q.tool_outputs
            )
        })
        .collect();
    let why = format!(
        "exit {}\n--- stdout\n{}\n--- stderr\n{}\n--- requests\n{}",
        r.code,
        r.stdout,
        r.stderr,
        requests.join("\n")
    );
    assert_eq!(r.code, 0, "{why}");
    for s in ["S1", "S2"] {
        assert_eq!(
            std::fs::read_to_string(env.root().join(format!("{s}.txt"))).unwrap(),
            format!("{s}\n"),
            "{why}"
        );
    }
    let rows = env.story_rows();
    assert!(
        rows.iter().all(|r| r.1 == "merged" && r.3 == "merged"),
        "{rows:?}\n{why}"
    );
    // Both sessions went through the mock: each asked about its own story, each ran its tool.
    let seen = server.requests();
    for story in ["Story S1", "Story S2"] {
        assert!(
            seen.iter()
                .any(|q| q.user_texts.iter().any(|t| t.contains(story))),
            "{story}\n{why}"
        );
    }
    assert!(
        seen.iter().filter(|q| !q.tool_outputs.is_empty()).count() >= 2,
        "{why}"
    );
    // Each session ran in its story's worktree, outside the repository (Codex's session
    // metadata names it), and none is left.
    let run = env.only_run();
    fn texts(dir: &std::path::Path, out: &mut String) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                texts(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    let mut rollouts = String::new();
    texts(&codex_home.join("sessions"), &mut rollouts);
    for s in ["S1", "S2"] {
        assert!(
            rollouts.contains(&format!("/{run}/{s}\"")),
            "{s}'s session did not run in its worktree\n{why}"
        );
    }
    assert_eq!(env.worktrees().len(), 1, "{why}");
    let report = env.report_json(&run);
    assert_eq!(report["verdict"], "SHIP", "{why}");
    assert_eq!(env.iterations(), 2, "one Codex session per story\n{why}");
}

#[test]
fn a_bad_plan_is_refused_before_anything_is_written() {
    let env = TestEnv::new();
    let plan_path = env.planned(
        &config(2, "", "true"),
        WRITE_OWN_FILE,
        "[[stories]]\nid = \"S1\"\ntitle = \"one\"\ndepends_on = [\"S9\"]\n",
    );
    let r = env.pawl(&["run", "--plan", &plan_path, "a plan"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("plan.toml: story `S1` depends on `S9`, which the plan does not have"),
        "{}",
        r.stderr
    );
    let runs: i64 = env
        .db()
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 0);
    assert_eq!(env.branches(), vec!["main".to_string()]);
    // A missing file and nonsense flags say so too.
    let r = env.pawl(&["run", "--plan", "no-such-plan.toml", "a plan"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("cannot read the plan"), "{}", r.stderr);
    let r = env.pawl(&["run", "--plan", &plan_path, "--workers", "0", "a plan"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--workers 0"), "{}", r.stderr);
    let r = env.pawl(&["run", "--plan", &plan_path, "--driver", "session", "a plan"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("--plan runs the stories headless"),
        "{}",
        r.stderr
    );
}

/// A planned run (`--mode work`, TDD off) with the replay agent: the planner's session (step 1)
/// answers with two independent stories and one run criterion that needs both; the next two sessions,
/// one per story and in either order, write their story's file where they run, side by side.
/// No other session may happen (the scenario fails past its last step).
fn planned_script() -> crate::pipeline::Script {
    let mut s = crate::pipeline::Script::new();
    s.answer(
        "plan-1",
        crate::pipeline::plan(
            "test -f S1.txt && test -f S2.txt",
            false,
            &[("write S1.txt", &["S1.txt"]), ("write S2.txt", &["S2.txt"])],
        ),
    );
    for n in 1..=2 {
        s.run(
            &format!("dev-{n}"),
            &format!("{SIDE_BY_SIDE}{WRITE_OWN_FILE}"),
        );
    }
    s
}

#[test]
fn a_planned_work_run_on_two_workers_merges_the_planner_s_stories_from_worktrees() {
    let env = TestEnv::new();
    env.pipeline("tdd = false", crate::headless::NO_BREAKERS);
    let scenario = env.scenario("pipeline", &planned_script().text_of());
    let r = env.pawl(&[
        "run",
        "write S1.txt and S2.txt",
        "--mode",
        "work",
        "--workers",
        "2",
        "--scenario",
        &scenario,
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let run = env.only_run();
    assert!(
        !env.dir.path().join("home/marks/alone").exists(),
        "the two stories did not run side by side"
    );
    // The run's branch holds both stories' files.
    for s in ["S1", "S2"] {
        assert_eq!(
            std::fs::read_to_string(env.root().join(format!("{s}.txt"))).unwrap(),
            format!("{s}\n")
        );
    }
    // Each story was merged exactly once by the merge queue, after one session.
    assert_eq!(
        env.story_rows(),
        vec![
            ("S1".into(), "merged".into(), 1, "merged".into()),
            ("S2".into(), "merged".into(), 1, "merged".into()),
        ]
    );
    // Each developer session ran in its story's worktree, outside the repository, on the
    // story's branch (named in the store's events); none of them is left.
    let marks = std::fs::read_to_string(env.dir.path().join("home/marks/cwd")).unwrap();
    let root = env.root().display().to_string();
    for s in ["S1", "S2"] {
        let line = marks
            .lines()
            .find(|l| l.starts_with(&format!("{s} ")))
            .unwrap_or_else(|| panic!("{s} never ran: {marks}"));
        let cwd = &line[s.len() + 1..];
        assert!(
            cwd.ends_with(&format!("/{run}/{s}")) && !cwd.starts_with(&root),
            "{line}"
        );
        let branch: String = env
            .db()
            .query_row(
                "SELECT json_extract(data_json, '$.branch') FROM events WHERE kind = 'story_work' AND json_extract(data_json, '$.story') = ?1 AND json_extract(data_json, '$.state') = 'pending'",
                [s],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(branch, format!("pawl/{run}-{s}"));
    }
    assert_eq!(env.worktrees().len(), 1, "{:?}", env.worktrees());
    let branches = env.branches();
    assert!(
        !branches
            .iter()
            .any(|b| b.starts_with(&format!("pawl/{run}-"))),
        "{branches:?}"
    );
    // The planned run is still a work run: its plan and execute phases, the stories done.
    assert_eq!(env.strings("SELECT mode FROM runs"), ["work"]);
    assert_eq!(
        env.phases(),
        vec![
            ("plan".to_string(), 1, "passed".to_string()),
            ("execute".to_string(), 1, "passed".to_string()),
        ]
    );
    assert_eq!(env.iterations(), 3, "the planner and one session per story");
    assert_eq!(
        env.strings("SELECT title || ':' || status FROM stories ORDER BY id"),
        ["write S1.txt:done", "write S2.txt:done"]
    );
    let report = env.report_json(&run);
    let stories = report["stories"].as_array().unwrap();
    assert_eq!(stories.len(), 2, "{report}");
    for s in stories {
        assert_eq!(s["merge"], "merged", "{s}");
        let checks = s["evidence"]["checks"].as_array().unwrap();
        assert!(
            !checks.is_empty() && checks.iter().all(|c| c["passed"] == true),
            "{s}"
        );
    }
    assert_eq!(report["parallel"]["workers"], 2, "{report}");
}

/// qa shares the execute phase: the plan with consensus (architect, critic), then the stories in
/// worktrees side by side. TDD is off here (the story flow in a worktree is the subject of the
/// `story_flow_*` tests): one session per story.
#[test]
fn a_planned_qa_run_on_two_workers_runs_its_stories_in_worktrees_after_consensus() {
    let env = TestEnv::new();
    env.pipeline(
        "phases = [\"plan\", \"execute\"]\ntdd = false",
        crate::headless::NO_BREAKERS,
    );
    let mut s = crate::pipeline::Script::new();
    s.answer(
        "plan-1",
        crate::pipeline::plan(
            "test -f S1.txt && test -f S2.txt",
            false,
            &[("write S1.txt", &["S1.txt"]), ("write S2.txt", &["S2.txt"])],
        ),
    )
    .answer("arch-1", crate::pipeline::approve())
    .answer("crit-1", crate::pipeline::approve());
    for n in 1..=2 {
        s.run(
            &format!("dev-{n}"),
            &format!("{SIDE_BY_SIDE}{WRITE_OWN_FILE}"),
        );
    }
    let scenario = env.scenario("pipeline", &s.text_of());
    let r = env.pawl(&[
        "run",
        "write S1.txt and S2.txt",
        "--mode",
        "qa",
        "--workers",
        "2",
        "--scenario",
        &scenario,
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let run = env.only_run();
    assert!(!env.dir.path().join("home/marks/alone").exists());
    assert_eq!(
        env.iterations(),
        5,
        "planner, architect, critic, two stories"
    );
    assert_eq!(env.verdicts().len(), 2, "{:?}", env.verdicts());
    assert_eq!(
        env.story_rows(),
        vec![
            ("S1".into(), "merged".into(), 1, "merged".into()),
            ("S2".into(), "merged".into(), 1, "merged".into()),
        ]
    );
    for s in ["S1", "S2"] {
        assert!(env.root().join(format!("{s}.txt")).is_file());
    }
    assert_eq!(env.worktrees().len(), 1, "{:?}", env.worktrees());
    assert!(
        !env.branches()
            .iter()
            .any(|b| b.starts_with(&format!("pawl/{run}-"))),
        "{:?}",
        env.branches()
    );
    let report = env.report_json(&run);
    assert_eq!(report["stories"].as_array().unwrap().len(), 2, "{report}");
}

/// A planned work run on two workers stopped while both stories' sessions run: nothing is
/// merged, each story keeps its worktree; `pawl resume` goes on from the stories' rows (no
/// planner session, no story recorded twice) and merges both.
#[test]
fn a_planned_work_run_stopped_mid_stories_resumes_and_merges_each_story_once() {
    let env = TestEnv::new();
    env.pipeline("tdd = false", crate::headless::NO_BREAKERS);
    // Both sessions are under way before the test stops the run: each waits for the other, then
    // for the test.
    let wait = "touch \"$HOME/marks/started-$PAWL_STORY\"\nwhile [ ! -e \"$HOME/marks/started-S1\" ] || [ ! -e \"$HOME/marks/started-S2\" ]; do sleep 0.05; done\ntouch \"$HOME/marks/step-started\"; while [ ! -e \"$HOME/marks/go\" ]; do sleep 0.05; done\n";
    let mut s = crate::pipeline::Script::new();
    s.answer(
        "plan-1",
        crate::pipeline::plan(
            "test -f S1.txt && test -f S2.txt",
            false,
            &[("write S1.txt", &["S1.txt"]), ("write S2.txt", &["S2.txt"])],
        ),
    );
    for n in 1..=2 {
        s.run(&format!("dev-{n}"), &format!("{wait}{WRITE_OWN_FILE}"));
    }
    let scenario = env.scenario("pipeline", &s.text_of());
    let first = env.pawl_during_step(
        &[
            "run",
            "write S1.txt and S2.txt",
            "--mode",
            "work",
            "--workers",
            "2",
            "--scenario",
            &scenario,
        ],
        || std::fs::write(env.root().join(".pawl/stop"), "").unwrap(),
    );
    assert_eq!(first.code, 6, "{}\n{}", first.stdout, first.stderr);
    let run = env.only_run();
    let rows = env.story_rows();
    assert_eq!(rows.len(), 2, "{rows:?}");
    // Both sessions ended with their checks passing: queued, not merged (the merge queue takes
    // nothing once a stop is decided); their worktrees are kept.
    assert_eq!(
        rows.iter()
            .map(|r| (r.0.as_str(), r.1.as_str(), r.3.as_str()))
            .collect::<Vec<_>>(),
        vec![("S1", "queued", "pending"), ("S2", "queued", "pending")]
    );
    assert_eq!(env.worktrees().len(), 3, "{:?}", env.worktrees());
    assert_eq!(env.iterations(), 3);
    let r = env.pawl(&["resume"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.run_state(), ("done".into(), Some("verified".into())));
    assert_eq!(env.count("SELECT COUNT(*) FROM plans"), 1);
    assert_eq!(
        env.story_rows()
            .into_iter()
            .map(|r| (r.0, r.1, r.3))
            .collect::<Vec<_>>(),
        vec![
            ("S1".into(), "merged".into(), "merged".into()),
            ("S2".into(), "merged".into(), "merged".into()),
        ]
    );
    assert_eq!(
        merge_events(&env, "S1", "merged") + merge_events(&env, "S2", "merged"),
        2,
        "each story merged exactly once"
    );
    assert_eq!(
        env.iterations(),
        3,
        "no session after the resume: both were queued"
    );
    for s in ["S1", "S2"] {
        assert!(env.root().join(format!("{s}.txt")).is_file());
    }
    assert_eq!(env.worktrees().len(), 1, "{:?}", env.worktrees());
    assert!(
        !env.branches()
            .iter()
            .any(|b| b.starts_with(&format!("pawl/{run}-"))),
        "{:?}",
        env.branches()
    );
}

/// A planner's `files` with a path that is not a glob: the story's scope is unknown (it runs
/// alone, never beside another) instead of narrower, and the run goes on to merge both stories.
#[test]
fn a_planner_s_story_whose_files_are_not_globs_runs_alone_and_is_merged() {
    let env = TestEnv::new();
    env.pipeline("tdd = false", crate::headless::NO_BREAKERS);
    let mut s = crate::pipeline::Script::new();
    s.answer(
        "plan-1",
        crate::pipeline::plan(
            "test -f S1.txt && test -f S2.txt",
            false,
            &[
                ("write S1.txt", &["S1.txt", "src/[x"]),
                ("write S2.txt", &["S2.txt"]),
            ],
        ),
    );
    for n in 1..=2 {
        s.run(
            &format!("dev-{n}"),
            &format!("touch \"$HOME/marks/in-$PAWL_STORY\"\nls \"$HOME/marks\" | grep -c '^in-' >> \"$HOME/marks/at-once\"\n{WRITE_OWN_FILE}rm \"$HOME/marks/in-$PAWL_STORY\"\n"),
        );
    }
    let scenario = env.scenario("pipeline", &s.text_of());
    let r = env.pawl(&[
        "run",
        "write S1.txt and S2.txt",
        "--mode",
        "work",
        "--workers",
        "2",
        "--scenario",
        &scenario,
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let files: Vec<String> =
        env.strings("SELECT json_extract(plan_json, '$.files') FROM story_work ORDER BY seq");
    assert_eq!(files, ["[]", "[\"S2.txt\"]"]);
    let at_once = std::fs::read_to_string(env.dir.path().join("home/marks/at-once")).unwrap();
    assert_eq!(
        at_once, "1\n1\n",
        "the story with an unknown scope ran beside another"
    );
    assert_eq!(
        env.story_rows()
            .into_iter()
            .map(|r| (r.0, r.1))
            .collect::<Vec<_>>(),
        vec![
            ("S1".into(), "merged".into()),
            ("S2".into(), "merged".into()),
        ]
    );
    assert_eq!(env.worktrees().len(), 1, "{:?}", env.worktrees());
}

/// The guard in a story's worktree (docs/parallel.md "What the guard sees in a story"): a
/// story's agent asks the run's hook, as Claude Code's PreToolUse hook would from inside the
/// sandboxed step, about commands the guard denies in the repository. Judged with the worktree
/// as the repository (its own index), they are denied there too; the run's repository itself is
/// out of bounds; ordinary work in the worktree (a file of its own, cleaning build outputs, a
/// commit on its branch) is allowed.
#[test]
fn the_guard_judges_a_story_s_commands_in_its_worktree() {
    let env = TestEnv::new();
    let main = env.root().display().to_string();
    // `h NAME COMMAND`: the hook's answer to a Bash call of COMMAND from the worktree, kept as
    // marks/hook-NAME.
    let agent = format!(
        r#"h() {{ printf '{{"session_id":"s1","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"%s"}},"tool_use_id":"t"}}' "$(pwd)" "$2" | '{bin}' hook claude pre-tool-use > "$HOME/marks/hook-$1" 2>/dev/null; }}
h clobber 'echo x > agent.sh'
h config 'echo x > pawl.toml'
h checkout 'git checkout .'
h restore 'git checkout agent.sh'
h null 'cp /dev/null README.md'
h away 'rm -rf .git'
h twofiles 'rm -f README.md agent.sh'
h main 'echo x >> {main}/README.md'
h mainnew 'echo x > {main}/new.txt'
h runbranch "git update-ref refs/heads/pawl/$PAWL_RUN_ID HEAD"
h fetch "git fetch -q . HEAD:pawl/$PAWL_RUN_ID"
h own 'echo S1 > S1.txt'
h debris 'rm -rf target'
h commit 'git commit -q -m wip'
h sed 'sed -i s/demo/story/ README.md'
echo "$PAWL_STORY" > "$PAWL_STORY.txt"
"#,
        bin = crate::headless::pawl_bin()
    );
    let plan_path = env.planned(
        &config(1, "", "true"),
        &agent,
        &plan(&[("S1", &["S1.txt"], &[], &["test -f S1.txt"])]),
    );
    let r = env.pawl(&["run", "--plan", &plan_path, "one story"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let answer = |name: &str| {
        let text = std::fs::read_to_string(env.dir.path().join(format!("home/marks/hook-{name}")))
            .unwrap_or_else(|e| panic!("hook-{name}: {e}"));
        let v: serde_json::Value = serde_json::from_str(text.trim())
            .unwrap_or_else(|e| panic!("hook-{name}: {e}: {text}"));
        let decision = v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("allow")
            .to_string();
        (decision, v.to_string())
    };
    let mut wrong = Vec::new();
    for (name, rule) in [
        ("config", "protected-path"),
        ("checkout", "git-destructive"),
        ("away", "*"),
        ("main", "protected-path"),
        ("mainnew", "protected-path"),
        ("runbranch", "protected-branch"),
        ("fetch", "protected-branch"),
    ] {
        let (decision, text) = answer(name);
        if decision != "deny" || !(rule == "*" || text.contains(&format!("pawl guard [{rule}]"))) {
            wrong.push(format!("{name}: expected deny [{rule}], got {text}"));
        }
    }
    // Overwriting a tracked file is as undoable as `sed -i`: pawl checkpoints before every
    // step (issue 36's principle, docs/guard.md); so are restoring a named tracked file and
    // removing named tracked files (session 19).
    for name in [
        "own", "debris", "commit", "sed", "clobber", "null", "restore", "twofiles",
    ] {
        let (decision, text) = answer(name);
        if decision != "allow" {
            wrong.push(format!("{name}: expected allow, got {text}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The denials reached the run's store through the step's mailbox.
    let denied: i64 = env
        .db()
        .query_row(
            "SELECT COUNT(*) FROM events WHERE kind = 'guard_denied'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(denied, 7);
}

/// The lines of `<marks>/starts-<story>`: one per agent step that began on the story.
fn starts(marks: &std::path::Path, story: &str) -> usize {
    std::fs::read_to_string(marks.join(format!("starts-{story}")))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

/// Two coordinators on one run: the first (A) is stalled (SIGSTOP) while its worker's agent
/// works on S1, long enough for the run's lease to expire; a `pawl resume` (B) takes the run
/// over. S1's lease is still held by A's worker, which lives: B must not start S1 a second time
/// in the same worktree (attack: before story leases, B reset S1 to pending and a second agent
/// began on it beside the first). A, woken, finds its run lease lost and stops once its worker
/// has recorded S1; B merges S1 exactly once.
#[test]
fn a_story_held_by_a_live_worker_is_not_started_twice_by_a_second_coordinator() {
    let env = TestEnv::new();
    let agent = "echo \"start $$\" >> \"$HOME/marks/starts-$PAWL_STORY\"\nwhile [ ! -e \"$HOME/marks/go\" ]; do sleep 0.05; done\necho \"$PAWL_STORY\" > \"$PAWL_STORY.txt\"\n";
    let plan_path = env.planned(
        &config(1, "", "true"),
        agent,
        &plan(&[("S1", &["S1.txt"], &[], &["test -f S1.txt"])]),
    );
    let marks = env.dir.path().join("home/marks");
    let out = |name: &str| std::fs::File::create(env.dir.path().join(name)).unwrap();
    let read = |name: &str| std::fs::read_to_string(env.dir.path().join(name)).unwrap_or_default();
    let mut a = env
        .command("pawl")
        .args([
            "run",
            "--plan",
            &plan_path,
            "--check",
            "test -f S1.txt",
            "one file",
        ])
        .stdout(out("a.out"))
        .stderr(out("a.err"))
        .spawn()
        .unwrap();
    let patience = std::time::Instant::now();
    while starts(&marks, "S1") == 0 {
        assert!(
            patience.elapsed() < std::time::Duration::from_secs(180),
            "S1 never started\n{}\n{}",
            read("a.out"),
            read("a.err")
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // A stalls (its agent, in its own process group, goes on) past its run lease's expiry.
    let signal = |sig: &str, pid: u32| {
        let ok = std::process::Command::new("kill")
            .args([sig, &pid.to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
    };
    signal("-STOP", a.id());
    env.db()
        .execute("UPDATE leases SET expires_at = 0", [])
        .unwrap();
    let mut b = env
        .command("pawl")
        .args(["resume"])
        .stdout(out("b.out"))
        .stderr(out("b.err"))
        .spawn()
        .unwrap();
    // B either starts S1 again (the attack) or says it waits for S1's holder.
    let waits = || -> i64 {
        env.db()
            .query_row(
                "SELECT COUNT(*) FROM events WHERE kind = 'story_work' AND data_json LIKE '%\"held_by\"%'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    };
    let patience = std::time::Instant::now();
    while starts(&marks, "S1") < 2 && waits() == 0 {
        assert!(
            patience.elapsed() < std::time::Duration::from_secs(180),
            "B neither started S1 nor waited for it\n{}\n{}",
            read("b.out"),
            read("b.err")
        );
        if let Ok(Some(status)) = b.try_wait() {
            panic!("B ended: {status}\n{}\n{}", read("b.out"), read("b.err"));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let started_twice = starts(&marks, "S1");
    signal("-CONT", a.id());
    std::fs::write(marks.join("go"), "").unwrap();
    let a_status = a.wait().unwrap();
    let b_status = b.wait().unwrap();
    let why = format!(
        "--- A {a_status}\n{}\n{}\n--- B {b_status}\n{}\n{}",
        read("a.out"),
        read("a.err"),
        read("b.out"),
        read("b.err")
    );
    assert_eq!(started_twice, 1, "S1 was started twice at once\n{why}");
    assert_eq!(starts(&marks, "S1"), 1, "{why}");
    assert_eq!(b_status.code(), Some(0), "{why}");
    // A lost the run: it says so and stops without deciding the run's end.
    assert_ne!(a_status.code(), Some(0), "{why}");
    assert!(read("a.err").contains("lease"), "{why}");
    let rows = env.story_rows();
    assert_eq!(rows[0].1, "merged", "{rows:?}\n{why}");
    assert_eq!(rows[0].2, 1, "one session worked on S1\n{why}");
    assert_eq!(merge_events(&env, "S1", "merged"), 1, "{why}");
    let leases: i64 = env
        .db()
        .query_row("SELECT COUNT(*) FROM story_leases", [], |r| r.get(0))
        .unwrap_or(-1);
    assert_eq!(leases, 0, "every story lease released\n{why}");
    assert_eq!(env.worktrees().len(), 1, "{why}");
    assert_eq!(env.report_json(&env.only_run())["verdict"], "SHIP", "{why}");
}

/// `--workers N` asks for stories run at once: with a mode that has none (simple, ralph) it is
/// refused before anything is written, naming the flag and what to give instead — not ignored.
/// (`[parallel] workers` in pawl.toml stays a default for the runs that have stories.)
#[test]
fn workers_with_a_mode_that_has_no_stories_is_refused_not_ignored() {
    let env = TestEnv::new();
    env.planned(&config(2, "", "true"), WRITE_OWN_FILE, "");
    for mode in ["simple", "ralph"] {
        let r = env.pawl(&["run", "--workers", "3", "--mode", mode, "write the file"]);
        assert_eq!(r.code, 2, "{mode}: {}\n{}", r.stdout, r.stderr);
        for said in [
            "--workers 3",
            &format!("--mode {mode}"),
            "--plan",
            "--mode work",
        ] {
            assert!(r.stderr.contains(said), "{mode}: {said}: {}", r.stderr);
        }
    }
    let runs: i64 = env
        .db()
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 0, "nothing written");
}

/// The stories' rows are signed like the rest of the run's state: a story marked merged in the
/// store by someone other than pawl (the merge queue would never merge it, nor check it on the
/// merged tree), or its criteria emptied, is found, and `pawl resume` stops the run `tampered`
/// (exit 1) naming the table — before, the forged row was used as it was.
#[test]
fn a_story_row_forged_in_the_store_stops_the_run_tampered() {
    for forgery in [
        "UPDATE story_work SET state = 'merged', merge_result = 'merged' WHERE story = 'S2'",
        "UPDATE story_work SET criteria_json = '[]', plan_json = replace(plan_json, 'test -f S2.txt', 'true') WHERE story = 'S2'",
    ] {
        let env = TestEnv::new();
        let agent = "touch \"$HOME/marks/started-$PAWL_STORY\"\nwhile [ ! -e \"$HOME/marks/go\" ]; do sleep 0.05; done\necho \"$PAWL_STORY\" > \"$PAWL_STORY.txt\"\n";
        let plan_path = env.planned(
            &config(2, "", "true"),
            agent,
            &plan(&[
                ("S1", &["S1.txt"], &[], &["test -f S1.txt"]),
                ("S2", &["S2.txt"], &[], &["test -f S2.txt"]),
            ]),
        );
        let child = env
            .command("pawl")
            .args(["run", "--plan", &plan_path, "two stories"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let marks = env.dir.path().join("home/marks");
        let patience = std::time::Instant::now();
        while !(marks.join("started-S1").exists() && marks.join("started-S2").exists()) {
            assert!(
                patience.elapsed() < std::time::Duration::from_secs(180),
                "the steps never started"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        env.ok(&["stop"]);
        std::fs::write(marks.join("go"), "").unwrap();
        let r = crate::Run::from(child.wait_with_output().unwrap());
        assert_eq!(r.code, 6, "{}\n{}", r.stdout, r.stderr);
        env.db().execute(forgery, []).unwrap();
        let r = env.pawl(&["resume"]);
        let why = format!("{forgery}\n{}\n{}", r.stdout, r.stderr);
        assert_eq!(r.code, 1, "{why}");
        let (status, reason): (String, Option<String>) = env
            .db()
            .query_row("SELECT status, stop_reason FROM runs", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(
            (status.as_str(), reason.as_deref()),
            ("stopped", Some("tampered")),
            "{why}"
        );
        let found: String = env
            .db()
            .query_row(
                "SELECT data_json FROM events WHERE kind = 'tampered' ORDER BY seq DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(
            found.contains("story_work") && found.contains("S2"),
            "{found}\n{why}"
        );
        // Nothing of S2 was merged on the forged word.
        assert!(!env.root().join("S2.txt").exists(), "{why}");
    }
}

/// A planned run that re-plans while stories of its first plan are not merged (docs/parallel.md,
/// "Planned runs"): S1 never passes its checks in its worktree and runs out of attempts; S2,
/// which depends on it, never starts; the stage is rolled back and re-planned. The old plan's
/// unmerged story is marked `failed` ("superseded") and not worked on again; the new plan's
/// story is worked on in its worktree and merged.
#[test]
fn a_re_plan_marks_the_old_plan_s_unmerged_stories_superseded() {
    use crate::pipeline::{Script, approve};
    let env = TestEnv::new();
    env.pipeline(
        "phases = [\"plan\", \"execute\"]\ntdd = false",
        crate::headless::NO_BREAKERS,
    );
    let plan_1 = serde_json::json!({
        "criteria": [{"id": "C1", "text": "good.txt is there", "verify": "command", "command": "test -f good.txt"}],
        "stories": [
            {"id": "S1", "title": "break the tests", "size": "S", "acceptance": ["it works"], "files": ["tests/bad.sh"]},
            {"id": "S2", "title": "after S1", "size": "S", "acceptance": ["it works"], "files": ["later.txt"], "depends_on": ["S1"]},
        ],
    });
    let plan_2 = crate::pipeline::plan(
        "test -f good.txt",
        false,
        &[("write good.txt", &["good.txt"])],
    );
    let mut s = Script::new();
    s.answer("plan-1", plan_1)
        .answer("arch-1", approve())
        .answer("crit-1", approve());
    // Three sessions in its worktree, each leaving the tests red: out of attempts.
    for k in 1..=3 {
        s.write(&format!("dev-{k}"), &[("tests/bad.sh", "exit 1\n")]);
    }
    s.answer("plan-2", plan_2)
        .answer("arch-2", approve())
        .answer("crit-2", approve())
        .write("dev-good", &[("good.txt", "good\n")]);
    let scenario = env.scenario("pipeline", &s.text_of());
    let r = env.pawl(&[
        "run",
        "write good.txt",
        "--mode",
        "qa",
        "--workers",
        "2",
        "--scenario",
        &scenario,
    ]);
    let rows = env.story_rows();
    let why = format!("{rows:?}\n{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.code, 0, "{why}");
    let state_of = |story: &str| {
        rows.iter()
            .find(|r| r.0 == story)
            .map(|r| r.1.clone())
            .unwrap_or_default()
    };
    assert_eq!(state_of("S1"), "failed", "{why}");
    assert_eq!(state_of("S2"), "failed", "{why}");
    let feedback: Option<String> = env
        .db()
        .query_row(
            "SELECT feedback FROM story_work WHERE story = 'S2'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        feedback.as_deref().unwrap_or("").contains("superseded"),
        "{feedback:?}\n{why}"
    );
    // S2 never had a session; the new plan's story was merged from its worktree.
    assert_eq!(rows.iter().find(|r| r.0 == "S2").unwrap().2, 0, "{why}");
    let new = rows.iter().find(|r| r.0 != "S1" && r.0 != "S2").unwrap();
    assert_eq!(
        (new.1.as_str(), new.3.as_str()),
        ("merged", "merged"),
        "{why}"
    );
    assert!(env.root().join("good.txt").is_file(), "{why}");
    assert!(!env.root().join("tests/bad.sh").exists(), "{why}");
    // It went through the re-plan: the stalled stage, then the plan's second round.
    assert_eq!(
        env.strings("SELECT stage || ':' || outcome FROM convergence ORDER BY id"),
        ["execute:stalled", "execute:converged"],
        "{why}"
    );
    assert_eq!(env.iterations(), 10, "{why}");
}

/// A spec failure in a story's worktree (issue 19, docs/parallel.md "Planned runs"): S1 and S2
/// of the first plan run side by side; S2's work makes a check fail with a spec conflict. As on
/// one worker, the plan goes back to the planner: no new story starts, S1 (its checks pass) is
/// still merged, S2 is superseded, and the second plan's story is merged. The same scenario on
/// one worker ends the same way (S1 done in the run's tree before S2's spec failure).
fn spec_failure_run(workers: &str) -> TestEnv {
    use crate::pipeline::{Script, plan};
    let env = TestEnv::new();
    // The check that says the plan contradicts itself, while S2.txt says "informal".
    // It leaves a mark when it fails.
    let marks = env.dir.path().join("home/marks");
    std::fs::create_dir_all(&marks).unwrap();
    // The check tells the test through a service on the host (nothing it writes outside its
    // room outlives it); the service leaves the mark where S1's session looks.
    let failed = marks.join("spec-failed");
    let service = crate::service::Service::start(move |_, _| {
        std::fs::write(&failed, "").unwrap();
        "ok".into()
    });
    env.write(
        "tests/spec.sh",
        &format!(
            "if grep -qs informal S2.txt; then {} >/dev/null; echo 'spec conflict: the greeting must be formal and informal'; exit 1; fi\n",
            service.ask("spec-failed")
        ),
    );
    env.pipeline_with(
        "tdd = false",
        crate::headless::NO_BREAKERS,
        crate::service::ROOM_NETWORK,
    );
    // Steps 2 and 3 are S1's and S2's sessions, in either order on two workers (`PAWL_STORY`
    // names the story); on one worker S1 runs first in the run's tree. In a worktree S1's
    // session waits (up to a minute) until S2's check has failed: it is still running then.
    let dev = format!(
        "story=\"${{PAWL_STORY:-$(test -f S1.txt && echo S2 || echo S1)}}\"\ncase $story in S1) if [ -n \"$PAWL_STORY\" ]; then n=0; while [ ! -e {m}/spec-failed ] && [ $n -lt 1200 ]; do n=$((n+1)); sleep 0.05; done; [ -e {m}/spec-failed ] && touch {m}/s1-after; fi; echo S1 > S1.txt;; S2) echo informal > S2.txt;; esac\n",
        m = marks.display()
    );
    let dev = dev.as_str();
    let mut s = Script::new();
    s.answer(
        "plan-1",
        plan(
            "test -f S1.txt",
            false,
            &[("write S1.txt", &["S1.txt"]), ("write S2.txt", &["S2.txt"])],
        ),
    )
    .run("dev-a", dev)
    .run("dev-b", dev)
    .answer(
        "plan-2",
        plan(
            "test -f decided.txt",
            false,
            &[("decide: formal", &["S2.txt", "decided.txt"])],
        ),
    )
    .write(
        "dev-decide",
        &[("S2.txt", "formal\n"), ("decided.txt", "formal\n")],
    );
    let scenario = env.scenario("pipeline", &s.text_of());
    let r = env.pawl(&[
        "run",
        "write the greetings",
        "--mode",
        "work",
        "--workers",
        workers,
        "--scenario",
        &scenario,
    ]);
    let why = format!(
        "on {workers} worker(s): {:?}\n{}\n{}",
        env.story_rows(),
        r.stdout,
        r.stderr
    );
    assert_eq!(r.code, 0, "{why}");
    // The plan went back with the spec failure, and the second planner was told why.
    assert_eq!(
        env.phases()
            .iter()
            .map(|(p, r, o)| format!("{p}/{r}/{o}"))
            .collect::<Vec<_>>(),
        [
            "plan/1/passed",
            "execute/1/failed",
            "plan/2/passed",
            "execute/2/passed"
        ],
        "{why}"
    );
    let actions = env.events_of("failure_action");
    assert!(
        actions
            .iter()
            .any(|a| a["action"] == "replan" && a["category"] == "spec"),
        "{actions:?}\n{why}"
    );
    assert!(env.prompt(4).contains("spec conflict"), "{}", env.prompt(4));
    assert_eq!(env.iterations(), 5, "{why}");
    // The report and the convergence record show the re-plan: the first execute phase failed
    // for the spec failure, the second round's stage converged.
    let run = env.only_run();
    let report = env.report_json(&run);
    let phases = report["pipeline"]["phases"].as_array().unwrap();
    assert!(
        phases[1]["phase"] == "execute"
            && phases[1]["outcome"] == "failed"
            && phases[1]["note"]
                .as_str()
                .unwrap_or("")
                .contains("spec failure (test: exit 1: spec conflict"),
        "{report}"
    );
    assert_eq!(
        env.strings("SELECT stage || ':' || round || ':' || outcome FROM convergence ORDER BY id"),
        ["execute:2:converged"],
        "{why}"
    );
    assert_eq!(report["verdict"], "SHIP", "{report}");
    // S1 done, S2 superseded, the second plan's story done; the run's branch holds their work.
    assert_eq!(
        env.strings("SELECT title || ':' || status FROM stories ORDER BY seq"),
        [
            "write S1.txt:done",
            "write S2.txt:skipped",
            "decide: formal:done"
        ],
        "{why}"
    );
    for (f, text) in [
        ("S1.txt", "S1\n"),
        ("S2.txt", "formal\n"),
        ("decided.txt", "formal\n"),
    ] {
        assert_eq!(
            std::fs::read_to_string(env.root().join(f)).unwrap_or_default(),
            text,
            "{f}: {why}"
        );
    }
    env
}

#[test]
fn a_spec_failure_in_a_story_s_worktree_sends_the_plan_back_as_on_one_worker() {
    let env = spec_failure_run("2");
    let why = format!("{:?}", env.story_rows());
    let rows = env.story_rows();
    let row = |story: &str| rows.iter().find(|r| r.0 == story).cloned().unwrap();
    // S1 was merged, though the plan went back while (or after) it ran; S2 is not, and is
    // marked superseded; the second plan's story was merged from its worktree.
    assert!(
        env.dir.path().join("home/marks/s1-after").exists(),
        "S1's session did not outlast S2's spec failure"
    );
    assert_eq!(
        (row("S1").1, row("S1").3),
        ("merged".into(), "merged".into()),
        "{why}"
    );
    assert_eq!(row("S2").1, "failed", "{why}");
    let feedback: Option<String> = env
        .db()
        .query_row(
            "SELECT feedback FROM story_work WHERE story = 'S2'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        feedback.as_deref().unwrap_or("").contains("spec failure"),
        "{feedback:?}\n{why}"
    );
    let new = rows.iter().find(|r| r.0 != "S1" && r.0 != "S2").unwrap();
    assert_eq!(
        (new.1.as_str(), new.3.as_str()),
        ("merged", "merged"),
        "{why}"
    );
    // S2's work is not lost: its branch is kept (until `pawl clean`).
    let run = env.only_run();
    assert!(
        env.branches().contains(&format!("pawl/{run}-S2")),
        "{:?}",
        env.branches()
    );
    let report = env.report_json(&run);
    let merged = report["stories"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["merge"] == "merged")
        .count();
    assert_eq!(merged, 2, "{report}");
}

#[test]
fn a_spec_failure_on_one_worker_sends_the_plan_back_the_same_way() {
    let env = spec_failure_run("1");
    // No story ran in a worktree.
    assert!(env.story_rows().is_empty(), "{:?}", env.story_rows());
}

/// Issue 30 point 1, every room at the repository's own path: a story's checks ran in its
/// room at the room's own path (`…/.room-S1/tree`), so a virtualenv's shebangs, an editable
/// install or any absolute path into the repository led them to the live tree, not the story's.
/// Now they see the story's room at the main repository's path, as the run's own checks do:
/// the check runs there and finds there the file only the story's tree has.
#[test]
fn a_story_s_checks_see_its_room_at_the_repository_s_own_path() {
    let env = TestEnv::new();
    let root = std::fs::canonicalize(env.root()).unwrap();
    let root = root.display().to_string();
    let at_root = |file: &str| format!("test \"$(pwd)\" = '{root}' && test -f '{root}/{file}'");
    let plan_path = env.planned(
        &config(2, "", &format!("test \"$(pwd)\" = '{root}'")),
        WRITE_OWN_FILE,
        &plan(&[
            ("S1", &["S1.txt"], &[], &[&at_root("S1.txt")]),
            ("S2", &["S2.txt"], &[], &[&at_root("S2.txt")]),
        ]),
    );
    let r = env.pawl(&[
        "run",
        "--plan",
        &plan_path,
        "--check",
        "test -f S1.txt && test -f S2.txt",
        "write the two files",
    ]);
    if !r.stdout.contains("landlock+namespaces") {
        let msg = format!(
            "this machine cannot mount the room over the repository:\n{}",
            r.stdout
        );
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        #[allow(clippy::print_stderr)]
        {
            eprintln!("SKIPPED: {msg}");
        }
        return;
    }
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let rows = env.story_rows();
    assert_eq!(rows.len(), 2);
    for (story, state, attempts, merge) in &rows {
        assert_eq!(
            (state.as_str(), *attempts, merge.as_str()),
            ("merged", 1, "merged"),
            "{story}"
        );
    }
    let report = env.report_json(&env.only_run());
    for s in report["stories"].as_array().unwrap() {
        let checks = s["evidence"]["checks"].as_array().unwrap();
        assert!(
            checks.iter().any(|c| c["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("criterion")))
                && checks.iter().all(|c| c["passed"] == true),
            "{s}"
        );
    }
    assert_eq!(report["verdict"], "SHIP", "{report}");
}
