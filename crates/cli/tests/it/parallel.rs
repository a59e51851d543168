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
