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

/// `[[stories]]` for `(id, files, depends_on, criteria)`.
fn plan(stories: &[(&str, &[&str], &[&str], &[&str])]) -> String {
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

#[test]
fn four_independent_stories_on_two_workers_are_all_merged() {
    let env = TestEnv::new();
    let plan_path = env.planned(
        &config(2, "", "true"),
        WRITE_OWN_FILE,
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

#[test]
fn kill_9_mid_merge_then_resume_merges_every_story_exactly_once() {
    let env = TestEnv::new();
    let marks = env.dir.path().join("home/marks");
    // The gate holds the merge queue's first check (the tree has a story's file, the checks run
    // in the repository's room) until the test lets it go.
    env.write(
        "gate.sh",
        &format!(
            "case \"$PWD\" in */rooms/*) if ls S*.txt >/dev/null 2>&1 && [ ! -e {m}/go ]; then touch {m}/merging; while [ ! -e {m}/go ]; do sleep 0.05; done; fi;; esac\nexit 0\n",
            m = marks.display()
        ),
    );
    let plan_path = env.planned(
        &config(2, "", "sh gate.sh"),
        WRITE_OWN_FILE,
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
    while !marks.join("merging").exists() {
        assert!(
            patience.elapsed() < std::time::Duration::from_secs(180),
            "the merge never started"
        );
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "pawl ended before the merge: {status}\n{}\n{}",
                std::fs::read_to_string(env.dir.path().join("run.out")).unwrap_or_default(),
                std::fs::read_to_string(env.dir.path().join("run.err")).unwrap_or_default()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SIGKILL mid-merge: no chance to clean up.
    child.kill().unwrap();
    child.wait().unwrap();
    let rows = env.story_rows();
    assert!(rows.iter().any(|r| r.1 == "merging"), "{rows:?}");
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
}
