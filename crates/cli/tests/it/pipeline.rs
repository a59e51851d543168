//! The phase pipeline end to end with the scripted (replay) agent: every session of the run —
//! interviewer, planner, architect, critic, developer steps, security, reviewer, QA — is one
//! step of a linear scenario (step N = the N-th agent session). Each test asserts the exit
//! code, the stop reason, the exact number of iterations, and the stored phases and verdicts
//! with the session ids that produced them.

use serde_json::{Value, json};

use crate::TestEnv;
use crate::headless::NO_BREAKERS;

/// One scenario being written, session by session.
pub struct Script {
    lines: Vec<String>,
    steps: u32,
}

impl Script {
    pub fn new() -> Script {
        Script {
            lines: vec![
                json!({"scenario": {"name": "pipeline", "after_last": "fail"}}).to_string(),
            ],
            steps: 0,
        }
    }

    /// Starts the next session, reporting `session` as its id.
    fn session(&mut self, session: &str) -> &mut Self {
        self.steps += 1;
        self.lines.push(json!({"step": self.steps}).to_string());
        self.lines.push(
            json!({"do": "emit", "event": {"type": "session_started", "session_id": session, "model": null}})
                .to_string(),
        );
        self
    }

    /// A session whose answer is `value` in a fenced json block.
    pub fn answer(&mut self, session: &str, value: Value) -> &mut Self {
        self.session(session);
        self.lines.push(
            json!({"do": "text", "text": format!("Here is my answer.\n```json\n{}\n```", serde_json::to_string_pretty(&value).unwrap())})
                .to_string(),
        );
        self
    }

    /// A session that answers with plain text (malformed for a structured role).
    pub fn text(&mut self, session: &str, text: &str) -> &mut Self {
        self.session(session);
        self.lines
            .push(json!({"do": "text", "text": text}).to_string());
        self
    }

    /// A developer session that writes files.
    pub fn write(&mut self, session: &str, files: &[(&str, &str)]) -> &mut Self {
        self.session(session);
        for (path, content) in files {
            self.lines
                .push(json!({"do": "write", "path": path, "content": content}).to_string());
        }
        self
    }

    /// A developer session that runs a shell command.
    pub fn run(&mut self, session: &str, command: &str) -> &mut Self {
        self.session(session);
        self.lines
            .push(json!({"do": "run", "command": command}).to_string());
        self
    }

    pub fn text_of(&self) -> String {
        self.lines.join("\n") + "\n"
    }
}

pub fn approve() -> Value {
    json!({"approve": true, "architecture_status": "clear", "findings": [{"severity": "info", "text": "fine"}]})
}

pub fn reject(text: &str) -> Value {
    json!({"approve": false, "architecture_status": "concerns",
           "findings": [{"severity": "blocking", "text": text, "file": "greet.txt"},
                        {"severity": "suggestion", "text": "consider a doc comment"}]})
}

/// A plan with one command criterion, one review criterion (unless `review` is false) and the
/// given stories `(title, files)`.
pub fn plan(command: &str, review: bool, stories: &[(&str, &[&str])]) -> Value {
    let mut criteria = vec![
        json!({"id": "C1", "text": "the greeting is written", "verify": "command", "command": command}),
    ];
    if review {
        criteria.push(json!({"id": "C2", "text": "the greeting is friendly", "verify": "review"}));
    }
    let stories: Vec<Value> = stories
        .iter()
        .enumerate()
        .map(|(i, (title, files))| {
            json!({"id": format!("S{}", i + 1), "title": title, "size": "S",
                   "acceptance": [format!("{title} works")], "files": files})
        })
        .collect();
    json!({"criteria": criteria, "stories": stories})
}

/// The test gate runs every `tests/*.sh`.
const TEST_SH: &str = "for t in tests/*.sh; do sh \"$t\" || exit 1; done\n";

impl TestEnv {
    /// A committed repository with a replay agent, the `tests/*.sh` gate and `[pipeline]` lines.
    pub fn pipeline(&self, pipeline: &str, breakers: &str) {
        self.pipeline_with(pipeline, breakers, "");
    }

    /// [`Self::pipeline`] with more tables (`[room]`, …) at the end of `pawl.toml`.
    pub fn pipeline_with(&self, pipeline: &str, breakers: &str, more: &str) {
        self.write("test.sh", TEST_SH);
        self.write("tests/base.sh", "true\n");
        self.headless(&format!(
            "[agent]\nkind = \"replay\"\n\n[limits]\ncalls_per_hour = 0\nmax_iterations = 40\n\n[breakers]\n{breakers}\n\n[pipeline]\n{pipeline}\n\n[gates]\ntest = \"sh test.sh\"\n\n{more}"
        ));
    }

    pub fn run_pipeline(&self, mode: &str, goal: &str, script: &Script) -> crate::Run {
        let s = self.scenario("pipeline", &script.text_of());
        self.pawl(&["run", goal, "--mode", mode, "--scenario", &s])
    }

    /// (phase, round, outcome) of every phase, in order.
    pub fn phases(&self) -> Vec<(String, u32, String)> {
        let db = self.db();
        let mut stmt = db
            .prepare("SELECT phase, round, COALESCE(outcome, 'open') FROM phases ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// (role, approve, session id, iteration) of every verdict, in order.
    pub fn verdicts(&self) -> Vec<(String, bool, String, u32)> {
        let db = self.db();
        let mut stmt = db
            .prepare("SELECT role, approve, COALESCE(session_id, '-'), iteration FROM verdicts ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    pub fn strings(&self, sql: &str) -> Vec<String> {
        let db = self.db();
        let mut stmt = db.prepare(sql).unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }
}

fn v(role: &str, approve: bool, session: &str, n: u32) -> (String, bool, String, u32) {
    (role.into(), approve, session.into(), n)
}

fn p(phase: &str, round: u32, outcome: &str) -> (String, u32, String) {
    (phase.into(), round, outcome.into())
}

#[test]
fn the_whole_qa_pipeline_with_tdd_reaches_a_verified_run() {
    let env = TestEnv::new();
    env.pipeline("", NO_BREAKERS);
    let mut s = Script::new();
    s.answer("interview-1", json!({"questions": [{"question": "Which greeting?", "recommended": "hello"}]}))
        .answer("plan-1", plan("grep -q hello greet.txt", true, &[("write the greeting", &["greet.txt", "tests/greet.sh"])]))
        .answer("arch-1", approve())
        .answer("crit-1", approve())
        // Red: a test that fails because greet.txt is missing.
        .write("dev-red", &[("tests/greet.sh", "grep -q hello greet.txt\n")])
        // Green (the sub-loop's first step).
        .write("dev-green", &[("greet.txt", "hello\n")])
        .text("dev-refactor", "Nothing to refactor.")
        .answer("review-1", json!({"approve": true, "architecture_status": "clear", "findings": [], "verified_criteria": ["C2"]}))
        .answer("qa-1", json!({"passed": true, "exercised": ["sh test.sh", "empty greet.txt"], "failures": []}));
    let r = env.run_pipeline(
        "qa",
        "write a friendly greeting to greet.txt with a test",
        &s,
    );
    // Verified, but a criterion rests on review: verdict MONITOR, its own exit code (not 0).
    assert_eq!(r.code, 12, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("[pawl] mode qa: chosen with --mode"),
        "{}",
        r.stdout
    );
    assert_eq!(env.run_state(), ("done".into(), Some("verified".into())));
    assert_eq!(env.iterations(), 9);
    assert_eq!(
        env.phases(),
        vec![
            p("interview", 1, "passed"),
            p("plan", 1, "passed"),
            p("execute", 1, "passed"),
            p("review", 1, "passed"),
            p("qa", 1, "passed"),
            p("audit", 1, "passed"),
        ]
    );
    assert_eq!(
        env.verdicts(),
        vec![
            v("architect", true, "arch-1", 3),
            v("critic", true, "crit-1", 4),
            v("reviewer", true, "review-1", 8),
            v("qa", true, "qa-1", 9),
        ]
    );
    // Every session's id is recorded with its iteration.
    assert_eq!(
        env.strings("SELECT session_id FROM iterations ORDER BY n"),
        [
            "interview-1",
            "plan-1",
            "arch-1",
            "crit-1",
            "dev-red",
            "dev-green",
            "dev-refactor",
            "review-1",
            "qa-1"
        ]
    );
    assert_eq!(
        env.strings("SELECT answer || '/' || category FROM clarifications"),
        ["hello/assumed"]
    );
    assert_eq!(
        env.strings("SELECT tdd_phase || '/' || status FROM stories"),
        ["verify/done"]
    );
    assert_eq!(
        env.count("SELECT COUNT(*) FROM criteria WHERE status = 'verified'"),
        2
    );
    assert_eq!(
        env.count("SELECT COUNT(*) FROM plan_scores WHERE kind = 'plan' AND passed = 1"),
        1
    );
    assert_eq!(
        env.strings("SELECT stage || ':' || outcome FROM convergence ORDER BY id"),
        ["execute:rising", "review:converged"]
    );
    // The review criterion was verified by the reviewer's session.
    let ev: String = env
        .db()
        .query_row("SELECT data_json FROM events WHERE kind = 'criterion_status' AND data_json LIKE '%\"C2\"%'", [], |r| r.get(0))
        .unwrap();
    assert!(ev.contains("review-1"), "{ev}");
    // The report lists phases, verdicts, scores and convergence; --pr writes a PR body.
    let report = env.ok(&["report", "--json"]).json();
    assert_eq!(report["verdict"], "MONITOR");
    assert_eq!(report["pipeline"]["verdicts"].as_array().unwrap().len(), 4);
    assert_eq!(report["pipeline"]["phases"].as_array().unwrap().len(), 6);
    let md = env.ok(&["report"]).stdout;
    for section in [
        "## Pipeline (mode qa)",
        "## Verdicts",
        "## Scores",
        "## Convergence",
        "## Clarifications",
    ] {
        assert!(md.contains(section), "{section} missing:\n{md}");
    }
    let pr = env.ok(&["report", "--pr"]);
    let run_id = report["run_id"].as_str().unwrap();
    let body =
        std::fs::read_to_string(env.root().join(format!(".pawl/reports/{run_id}.pr.md"))).unwrap();
    for needle in [
        "### Stories",
        "write the greeting",
        "### Key changes",
        "greet.txt",
        "### Checks",
        "✅ test",
        "### Reviews",
        "session `review-1`",
        "### Metrics",
        "iterations: 9",
    ] {
        assert!(body.contains(needle), "{needle} missing:\n{body}");
    }
    assert!(pr.stdout.contains("pull request body"), "{}", pr.stdout);
    // MONITOR is not SHIP: no pull request (issue 16; `gh` on a SHIP run: `flow::open_pr_only_on_ship`).
    let refused = env.pawl(&["report", "--open-pr"]);
    assert_eq!(refused.code, 1, "{}\n{}", refused.stdout, refused.stderr);
    assert!(refused.stdout.contains("is not SHIP"), "{}", refused.stdout);
}

/// `pawl report --open-pr` hands the body to `gh pr create` (a stand-in `gh` records what it
/// got: there is no GitHub here), prints the URL it answered, and turns a failing or missing
/// `gh` into a clear error with a non-zero exit.
pub fn open_pr_runs_gh_with_the_body(env: &TestEnv, run_id: &str, body: &str) {
    let bin = env.dir.path().join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let record = env.dir.path().join("gh-args");
    let gh = bin.join("gh");
    std::fs::write(
        &gh,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\nprintf '%s' \"$PWD\" > '{}.cwd'\n\
             if [ -n \"$GH_FAIL\" ]; then echo 'no git remotes found' >&2; exit 1; fi\n\
             echo https://github.example/acme/demo/pull/7\n",
            record.display(),
            record.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let r = env.pawl_env(&["report", "--open-pr", "--json"], &[("PATH", &path)]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.json()["url"], "https://github.example/acme/demo/pull/7");
    let args: Vec<String> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(args[..3], ["pr", "create", "--title"]);
    assert!(args[3].contains(run_id), "{args:?}");
    assert_eq!(args[4], "--body-file");
    assert_eq!(std::fs::read_to_string(&args[5]).unwrap(), body);
    assert_eq!(
        std::fs::read_to_string(format!("{}.cwd", record.display())).unwrap(),
        env.root().canonicalize().unwrap().display().to_string()
    );
    // No push: pawl never runs git push itself (gh's own prompt is gh's business).
    assert!(!args.iter().any(|a| a == "--push"), "{args:?}");

    let failed = env.pawl_env(
        &["report", "--open-pr"],
        &[("PATH", &path), ("GH_FAIL", "1")],
    );
    assert_ne!(failed.code, 0);
    assert!(
        failed.stderr.contains("gh pr create failed") && failed.stderr.contains("no git remotes"),
        "{}",
        failed.stderr
    );
    // Without gh at all.
    let empty = env.dir.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let git_dir = std::path::Path::new(
        &String::from_utf8_lossy(
            &env.command("sh")
                .args(["-c", "command -v git"])
                .output()
                .unwrap()
                .stdout,
        )
        .trim()
        .to_string(),
    )
    .parent()
    .unwrap()
    .to_path_buf();
    let no_gh = format!("{}:{}", empty.display(), git_dir.display());
    let missing = env.pawl_env(&["report", "--open-pr"], &[("PATH", &no_gh)]);
    assert_ne!(missing.code, 0);
    assert!(
        missing.stderr.contains("is the GitHub CLI installed"),
        "{}",
        missing.stderr
    );
}

#[test]
fn a_review_that_rejects_sends_the_work_back_to_planning() {
    let env = TestEnv::new();
    env.pipeline(
        "phases = [\"plan\", \"execute\", \"review\"]\ntdd = false",
        NO_BREAKERS,
    );
    let mut s = Script::new();
    s.answer(
        "plan-1",
        plan(
            "grep -q hello greet.txt",
            true,
            &[("write the greeting", &["greet.txt"])],
        ),
    )
    .answer("arch-1", approve())
    .answer("crit-1", approve())
    .write("dev-1", &[("greet.txt", "hello\n")])
    .answer("review-1", reject("the greeting is rude"))
    .answer(
        "plan-2",
        plan(
            "grep -q hello greet.txt",
            true,
            &[("make the greeting polite", &["greet.txt"])],
        ),
    )
    .answer("arch-2", approve())
    .answer("crit-2", approve())
    .write("dev-2", &[("greet.txt", "hello, friend\n")])
    .answer(
        "review-2",
        json!({"approve": true, "architecture_status": "clear", "verified_criteria": ["C2"]}),
    );
    let r = env.run_pipeline("qa", "write a friendly greeting", &s);
    // Verified, but a criterion rests on review: verdict MONITOR (exit 12, never 0).
    assert_eq!(r.code, 12, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.iterations(), 10);
    assert_eq!(
        env.phases(),
        vec![
            p("plan", 1, "passed"),
            p("execute", 1, "passed"),
            p("review", 1, "failed"),
            p("plan", 2, "passed"),
            p("execute", 2, "passed"),
            p("review", 2, "passed"),
        ]
    );
    let verdicts = env.verdicts();
    assert_eq!(verdicts[2], v("reviewer", false, "review-1", 5));
    assert_eq!(verdicts[5], v("reviewer", true, "review-2", 10));
    // The second planner session got the review's findings as the reason.
    let prompt = env.prompt(6);
    assert!(prompt.contains("Why the plan must change"), "{prompt}");
    assert!(
        prompt.contains("the greeting is rude (greet.txt)"),
        "{prompt}"
    );
    // The suggestion is noted in the report, not sent back.
    let md = env.ok(&["report"]).stdout;
    assert!(md.contains("consider a doc comment"), "{md}");
    assert_eq!(
        env.strings("SELECT status FROM stories ORDER BY seq"),
        ["done", "done"]
    );
}

#[test]
fn the_same_finding_in_three_review_cycles_stops_the_run() {
    let env = TestEnv::new();
    env.pipeline(
        "phases = [\"plan\", \"execute\", \"review\"]\ntdd = false",
        NO_BREAKERS,
    );
    let mut s = Script::new();
    for round in 1..=3 {
        s.answer(
            &format!("plan-{round}"),
            plan(
                "grep -q hello greet.txt",
                true,
                &[("write the greeting", &["greet.txt"])],
            ),
        )
        .answer(&format!("arch-{round}"), approve())
        .answer(&format!("crit-{round}"), approve())
        .write(
            &format!("dev-{round}"),
            &[("greet.txt", &format!("hello {round}\n"))],
        )
        .answer(
            &format!("review-{round}"),
            reject(&format!("Missing input validation at line {round}")),
        );
    }
    let r = env.run_pipeline("qa", "write a friendly greeting", &s);
    assert_eq!(r.code, 4, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        env.run_state(),
        ("stopped".into(), Some("repeated_finding".into()))
    );
    assert_eq!(env.iterations(), 15);
    let notes = env.strings("SELECT message FROM failures");
    assert!(
        notes
            .iter()
            .any(|m| m.contains("came back in 3 review cycles: Missing input validation")),
        "{notes:?}"
    );
}

#[test]
fn the_critic_only_reviews_a_plan_the_architect_approved() {
    let env = TestEnv::new();
    env.pipeline("phases = [\"plan\", \"execute\"]\ntdd = false", NO_BREAKERS);
    let mut s = Script::new();
    s.answer(
        "plan-1",
        plan(
            "grep -q hello greet.txt",
            false,
            &[("write the greeting", &["greet.txt"])],
        ),
    )
    .answer("arch-1", reject("one story is not enough"))
    // No critic this round: the next session is the planner again.
    .answer(
        "plan-2",
        plan(
            "grep -q hello greet.txt",
            false,
            &[("write the greeting", &["greet.txt"])],
        ),
    )
    .answer("arch-2", approve())
    .answer("crit-2", approve())
    .write("dev-1", &[("greet.txt", "hello\n")]);
    let r = env.run_pipeline("qa", "write a friendly greeting", &s);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        env.verdicts(),
        vec![
            v("architect", false, "arch-1", 2),
            v("architect", true, "arch-2", 4),
            v("critic", true, "crit-2", 5),
        ]
    );
    let why = env.strings("SELECT data_json FROM events WHERE kind = 'critic_skipped'");
    assert_eq!(why.len(), 1);
    assert!(
        why[0].contains("the architect must approve the plan first"),
        "{}",
        why[0]
    );
}

#[test]
fn a_plan_rejected_for_every_round_is_a_typed_stop() {
    let env = TestEnv::new();
    env.pipeline(
        "phases = [\"plan\", \"execute\"]\nmax_plan_rounds = 2",
        NO_BREAKERS,
    );
    let mut s = Script::new();
    for k in 1..=2 {
        s.answer(
            &format!("plan-{k}"),
            plan(
                "grep -q hello greet.txt",
                false,
                &[("write the greeting", &["greet.txt"])],
            ),
        )
        .answer(&format!("arch-{k}"), approve())
        .answer(&format!("crit-{k}"), reject("no test for the empty case"));
    }
    let r = env.run_pipeline("qa", "write a friendly greeting", &s);
    assert_eq!(r.code, 4, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.run_state().1.as_deref(), Some("plan_rejected"));
    assert_eq!(env.iterations(), 6);
    assert_eq!(env.phases(), vec![p("plan", 1, "failed")]);
    assert_eq!(env.count("SELECT COUNT(*) FROM stories"), 0);
}

#[test]
fn a_malformed_verdict_gets_one_retry_with_the_parse_error() {
    let env = TestEnv::new();
    env.pipeline("phases = [\"plan\", \"execute\"]\ntdd = false", NO_BREAKERS);
    let mut s = Script::new();
    s.answer(
        "plan-1",
        plan(
            "grep -q hello greet.txt",
            false,
            &[("write the greeting", &["greet.txt"])],
        ),
    )
    .answer(
        "arch-1",
        json!({"approve": "yes", "architecture_status": "clear"}),
    )
    .answer("arch-1b", approve())
    .answer("crit-1", approve())
    .write("dev-1", &[("greet.txt", "hello\n")]);
    let r = env.run_pipeline("qa", "write a friendly greeting", &s);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.iterations(), 5);
    let retry = env.prompt(3);
    assert!(
        retry.contains("Your previous answer could not be used"),
        "{retry}"
    );
    assert!(retry.contains("invalid type"), "{retry}");
    assert_eq!(env.verdicts()[0], v("architect", true, "arch-1b", 3));
}

#[test]
fn a_verdict_malformed_twice_stops_the_run() {
    let env = TestEnv::new();
    env.pipeline("phases = [\"plan\", \"execute\"]\ntdd = false", NO_BREAKERS);
    let mut s = Script::new();
    s.answer(
        "plan-1",
        plan(
            "grep -q hello greet.txt",
            false,
            &[("write the greeting", &["greet.txt"])],
        ),
    )
    .text("arch-1", "I approve of this plan.")
    .text("arch-2", "Still approve, no JSON needed.");
    let r = env.run_pipeline("qa", "write a friendly greeting", &s);
    assert_eq!(r.code, 4, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.run_state().1.as_deref(), Some("malformed_output"));
    assert_eq!(env.iterations(), 3);
    assert!(env.verdicts().is_empty());
    let f = env.strings("SELECT message FROM failures ORDER BY id");
    assert!(
        f[1].contains("malformed output again: no fenced ```json block"),
        "{f:?}"
    );
}

#[test]
fn qa_is_skipped_for_a_docs_only_change_with_the_reason() {
    let env = TestEnv::new();
    env.pipeline(
        "phases = [\"plan\", \"execute\", \"qa\"]\ntdd = false",
        NO_BREAKERS,
    );
    let mut s = Script::new();
    s.answer("plan-1", json!({"criteria": [{"id": "C1", "text": "usage documented", "verify": "command", "command": "grep -q Usage README.md"}],
                              "stories": [{"id": "S1", "title": "document usage", "size": "S", "acceptance": ["README has Usage"], "files": ["README.md"]}]}))
        .answer("arch-1", approve())
        .answer("crit-1", approve())
        .write("dev-1", &[("README.md", "# demo\n\n## Usage\n\nRun it.\n")]);
    let r = env.run_pipeline("qa", "document the usage in README.md", &s);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.iterations(), 4);
    assert_eq!(env.phases()[2], p("qa", 1, "skipped"));
    let note = env.strings("SELECT note FROM phases WHERE phase = 'qa'");
    assert_eq!(note, ["docs-only change (1 file(s))"]);
    assert!(
        env.strings("SELECT text FROM notes")
            .iter()
            .any(|n| n == "QA skipped: docs-only change (1 file(s))")
    );
}

#[test]
fn qa_failures_send_the_work_back_to_planning() {
    let env = TestEnv::new();
    env.pipeline(
        "phases = [\"plan\", \"execute\", \"qa\"]\ntdd = false",
        NO_BREAKERS,
    );
    let mut s = Script::new();
    s.answer("plan-1", plan("grep -q hello greet.sh", false, &[("write the greeting", &["greet.sh"])]))
        .answer("arch-1", approve())
        .answer("crit-1", approve())
        .write("dev-1", &[("greet.sh", "echo hello\n")])
        .answer("qa-1", json!({"passed": false, "exercised": ["sh greet.sh"], "failures": [{"severity": "blocking", "text": "no newline handling"}]}))
        .answer("plan-2", plan("grep -q hello greet.sh", false, &[("handle newlines", &["greet.sh"])]))
        .answer("arch-2", approve())
        .answer("crit-2", approve())
        .write("dev-2", &[("greet.sh", "echo hello\necho world\n")])
        .answer("qa-2", json!({"passed": true, "exercised": ["sh greet.sh"]}));
    let r = env.run_pipeline("qa", "write a friendly greeting", &s);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.iterations(), 10);
    assert!(
        env.prompt(6)
            .contains("QA (iteration 5): no newline handling")
    );
    assert_eq!(
        env.verdicts()
            .iter()
            .filter(|x| x.0 == "qa")
            .map(|x| x.1)
            .collect::<Vec<_>>(),
        [false, true]
    );
}

/// QA's reproductions become hidden checks: sealed with the run, run with the gates from then on,
/// and never shown to the developer sessions.
#[test]
fn qa_reproductions_become_hidden_checks_the_developer_never_sees() {
    let env = TestEnv::new();
    env.pipeline(
        "phases = [\"plan\", \"execute\", \"qa\"]\ntdd = false",
        NO_BREAKERS,
    );
    let mut s = Script::new();
    s.answer(
        "plan-1",
        plan(
            "grep -q hello greet.sh",
            false,
            &[("write the greeting", &["greet.sh"])],
        ),
    )
    .answer("arch-1", approve())
    .answer("crit-1", approve())
    .write("dev-1", &[("greet.sh", "echo hello\n")])
    .answer(
        "qa-1",
        json!({"passed": false, "exercised": ["sh greet.sh"],
            "failures": [{"severity": "blocking", "text": "it does not greet the world"}],
            "checks": ["sh greet.sh | grep -q SECRETWORLD"]}),
    )
    .answer(
        "plan-2",
        plan(
            "grep -q hello greet.sh",
            false,
            &[("greet the world", &["greet.sh"])],
        ),
    )
    .answer("arch-2", approve())
    .answer("crit-2", approve())
    .write("dev-2", &[("greet.sh", "echo hello\necho SECRETWORLD\n")])
    .answer(
        "qa-2",
        json!({"passed": true, "exercised": ["sh greet.sh"]}),
    );
    let r = env.run_pipeline("qa", "write a friendly greeting", &s);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let settings: String = env
        .db()
        .query_row("SELECT settings_json FROM runs", [], |r| r.get(0))
        .unwrap();
    // Its command is nowhere in `.pawl/` (readable by the agent) but the scripted answers:
    // not in the store, not in the logs (QA's session log, which holds its answer, is kept in
    // the user's pawl state).
    assert!(!settings.contains("SECRETWORLD"), "{settings}");
    let mut dirs = vec![env.root().join(".pawl")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_none_or(|x| x != "jsonl") {
                let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
                assert!(
                    !text.contains("grep -q SECRETWORLD"),
                    "{} holds the hidden check",
                    p.display()
                );
            }
        }
    }
    let settings: serde_json::Value = serde_json::from_str(&settings).unwrap();
    let checks = settings["seal"]["checks"].as_array().unwrap();
    assert!(
        checks
            .iter()
            .any(|c| c["name"] == "qa-1" && c["role"] == "hidden"),
        "{checks:?}"
    );
    for n in 6..=u32::try_from(env.iterations()).unwrap() {
        assert!(
            !env.prompt(n).contains("grep -q SECRETWORLD"),
            "iteration {n} leaked the hidden check"
        );
    }
    // The final verification ran it (and it passes).
    let report = env.ok(&["report", "--json"]).json();
    let names: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(names.contains(&"qa-1"), "{names:?}");
}

#[test]
fn a_stage_that_does_not_converge_is_rolled_back_and_replanned() {
    let env = TestEnv::new();
    env.pipeline("phases = [\"plan\", \"execute\"]\ntdd = false", NO_BREAKERS);
    let mut s = Script::new();
    s.answer(
        "plan-1",
        plan(
            "test -f good.txt",
            false,
            &[("write the wrong file", &["bad.txt"])],
        ),
    )
    .answer("arch-1", approve())
    .answer("crit-1", approve());
    // Three attempts that never verify C1: the story runs out of attempts.
    for k in 1..=3 {
        s.write(
            &format!("dev-{k}"),
            &[("bad.txt", &format!("attempt {k}\n"))],
        );
    }
    s.answer(
        "plan-2",
        plan(
            "test -f good.txt",
            false,
            &[("write good.txt", &["good.txt"])],
        ),
    )
    .answer("arch-2", approve())
    .answer("crit-2", approve())
    .write("dev-4", &[("good.txt", "good\n")]);
    let r = env.run_pipeline("qa", "write good.txt", &s);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.iterations(), 10);
    assert_eq!(
        env.strings("SELECT stage || ':' || outcome FROM convergence ORDER BY id"),
        ["execute:stalled", "execute:converged"]
    );
    // The failed direction is recorded and shown to the next planner.
    assert_eq!(
        env.strings("SELECT direction FROM failed_directions"),
        ["write the wrong file"]
    );
    let prompt = env.prompt(7);
    assert!(
        prompt.contains("Directions that failed (do not retry them)"),
        "{prompt}"
    );
    assert!(prompt.contains("- write the wrong file"), "{prompt}");
    // The tree was rolled back to the checkpoint: the wrong file is gone, a backup ref keeps it.
    assert!(!env.root().join("bad.txt").exists());
    assert!(env.root().join("good.txt").exists());
    let refs = String::from_utf8(
        env.git(&["for-each-ref", "--format=%(refname)", "refs/pawl/backups/"])
            .stdout,
    )
    .unwrap();
    assert!(refs.contains("refs/pawl/backups/rollback/"), "{refs}");
    assert!(refs.contains("refs/pawl/backups/checkpoint/"), "{refs}");
    assert_eq!(
        env.strings("SELECT status FROM stories ORDER BY seq"),
        ["skipped", "done"]
    );
}

#[test]
fn a_red_step_whose_test_does_not_fail_is_refused() {
    let env = TestEnv::new();
    env.pipeline("", NO_BREAKERS);
    let mut s = Script::new();
    s.answer(
        "plan-1",
        plan(
            "grep -q hello greet.txt",
            false,
            &[("write the greeting", &["greet.txt", "tests/greet.sh"])],
        ),
    )
    // A "test" that passes without the behaviour: not red.
    .write("red-1", &[("tests/greet.sh", "true\n")])
    .write("red-2", &[("tests/greet.sh", "grep -q hello greet.txt\n")])
    .write("green-1", &[("greet.txt", "hello\n")])
    .text("refactor-1", "Clean already.");
    let r = env.run_pipeline("work", "write a greeting to greet.txt", &s);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.iterations(), 5);
    let f = env.strings("SELECT message FROM failures WHERE story_id = 'S1'");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].contains("red: the tests pass with the new test"),
        "{f:?}"
    );
    assert!(env.prompt(3).contains("Your last red step did not hold"));
    assert_eq!(env.strings("SELECT tdd_phase FROM stories"), ["verify"]);
    // Work mode has no reviewers.
    assert!(env.verdicts().is_empty());
    assert_eq!(
        env.phases()
            .iter()
            .map(|x| x.0.as_str())
            .collect::<Vec<_>>(),
        ["plan", "execute"]
    );
}

#[test]
fn a_security_story_goes_back_to_the_developer_with_blocking_findings() {
    let env = TestEnv::new();
    env.pipeline("phases = [\"plan\", \"execute\"]\ntdd = false", NO_BREAKERS);
    let mut s = Script::new();
    s.answer("plan-1", json!({"criteria": [{"id": "C1", "text": "token checked", "verify": "command", "command": "grep -q check auth.txt"}],
                              "stories": [{"id": "S1", "title": "check the token", "size": "S", "security": true, "acceptance": ["token checked"], "files": ["auth.txt"]}]}))
        .answer("arch-1", approve())
        .answer("crit-1", approve())
        .write("dev-1", &[("auth.txt", "check token; log token\n")])
        .answer("sec-1", json!({"approve": false, "architecture_status": "clear", "findings": [{"severity": "blocking", "text": "the token is logged", "file": "auth.txt"}]}))
        .write("dev-2", &[("auth.txt", "check token\n")])
        .answer("sec-2", approve());
    let r = env.run_pipeline("qa", "check the auth token", &s);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.iterations(), 7);
    let sec: Vec<_> = env
        .verdicts()
        .into_iter()
        .filter(|x| x.0 == "security")
        .collect();
    assert_eq!(
        sec,
        vec![
            v("security", false, "sec-1", 5),
            v("security", true, "sec-2", 7)
        ]
    );
    assert!(env.prompt(6).contains("the token is logged (auth.txt)"));
}

#[test]
fn ralph_reinjects_items_and_skips_one_failing_three_times() {
    let env = TestEnv::new();
    env.pipeline("", NO_BREAKERS);
    let mut s = Script::new();
    s.answer("plan-1", json!({"criteria": [
            {"id": "C1", "text": "a exists", "verify": "command", "command": "test -f a.txt"},
            {"id": "C2", "text": "b exists", "verify": "command", "command": "test -f never.txt"}],
        "stories": [{"id": "S1", "title": "files", "size": "S", "acceptance": ["files exist"], "files": ["a.txt"]}]}))
        .write("loop-1", &[("a.txt", "a\n")]);
    for k in 2..=4 {
        s.text(&format!("loop-{k}"), "I could not do it.");
    }
    let r = env.run_pipeline("ralph", "make a.txt and never.txt", &s);
    assert_eq!(r.code, 4, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.run_state().1.as_deref(), Some("no_story_can_progress"));
    assert_eq!(env.iterations(), 5);
    assert!(env.prompt(2).contains("Checklist item: C1"));
    for n in 3..=5 {
        assert!(
            env.prompt(n).contains("Checklist item: C2"),
            "{}",
            env.prompt(n)
        );
    }
    assert!(
        env.strings("SELECT text FROM notes")
            .iter()
            .any(|t| t == "ralph skipped item C2 after 3 failed loops in a row")
    );
}

#[test]
fn conflicting_flags_are_a_usage_error() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    let r = env.pawl(&["run", "g", "--mode", "qa", "--driver", "session"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("--mode qa needs the headless driver"),
        "{}",
        r.stderr
    );
    let r = env.pawl(&["run", "g", "--mode", "simple", "--interactive"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = env.pawl(&["run", "g", "--mode", "fast"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(env.count("SELECT COUNT(*) FROM runs"), 0);
}

#[test]
fn auto_says_which_mode_it_chose_and_simple_is_one_execute_phase() {
    let env = TestEnv::new();
    env.headless(&crate::headless::config("", NO_BREAKERS, ""));
    let s = env.scenario(
        "s",
        "{\"step\": 1}\n{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"x\"}\n",
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("[pawl] mode simple (auto): a simple change"),
        "{}",
        r.stdout
    );
    assert_eq!(env.phases(), vec![p("execute", 1, "passed")]);
    assert_eq!(env.strings("SELECT mode FROM runs"), ["simple"]);
}

/// `pawl run --interactive` on a real terminal (a pty from `script`): the interview's questions
/// are asked there; a typed answer is stored as answered, silence past `answer_timeout` takes the
/// recommendation as assumed, and an answer typed for the question after a silent one still
/// reaches that question (regression: the silent question's reader used to swallow it).
#[test]
fn interactive_interview_asks_on_the_terminal() {
    let env = TestEnv::new();
    env.pipeline(
        "phases = [\"interview\", \"plan\", \"execute\"]\nanswer_timeout = \"2s\"",
        NO_BREAKERS,
    );
    let mut s = Script::new();
    s.answer(
        "interview-1",
        json!({"questions": [
            {"question": "Which database?", "recommended": "sqlite"},
            {"question": "Which port?", "recommended": "8080"},
            {"question": "Keep the old API?", "recommended": "no"}
        ]}),
    )
    .answer(
        "plan-1",
        plan(
            "grep -q hello greet.txt",
            false,
            &[("write the greeting", &["greet.txt"])],
        ),
    )
    .text("arch-1", "Looks fine.")
    .text("arch-2", "Still fine.");
    let scenario = env.scenario("pipeline", &s.text_of());
    let (code, transcript, asked) = on_a_terminal(
        &env,
        &format!("run 'write a friendly greeting' --mode qa --interactive --scenario '{scenario}'"),
        &[],
        |n| match n {
            1 => Some("postgres"),
            // The second question gets silence: the recommendation after 2 s.
            2 => None,
            // The third is answered only after the silent one timed out.
            3 => Some("yes, keep it"),
            _ => None,
        },
    );
    assert_eq!(asked, 3, "{transcript}");
    assert!(
        transcript.contains("[pawl] question: Which database?"),
        "{transcript}"
    );
    // The run itself then stops on the architect's malformed answers (exit 4).
    assert_eq!(code, Some(4), "{transcript}");
    assert_eq!(
        env.strings("SELECT answer || '/' || category FROM clarifications ORDER BY id"),
        ["postgres/answered", "8080/assumed", "yes, keep it/answered"],
        "{transcript}"
    );
}

/// A qa run stopped in the middle of execution resumes there: the approved plan is not made
/// again (no planner, architect or critic session after the resume), the stories keep their
/// states, and the run is verified with exactly the sessions it needed.
#[test]
fn a_run_stopped_during_execution_resumes_without_planning_again() {
    let env = TestEnv::new();
    env.pipeline("phases = [\"plan\", \"execute\"]\ntdd = false", NO_BREAKERS);
    let mut s = Script::new();
    s.answer(
        "plan-1",
        plan(
            "grep -q hello greet.txt",
            false,
            &[
                ("write the greeting", &["greet.txt"]),
                ("write the farewell", &["bye.txt"]),
            ],
        ),
    )
    .answer("arch-1", approve())
    .answer("crit-1", approve())
    // The first story is done (pawl verifies it); the user asks the run to stop meanwhile.
    .run(
        "dev-1",
        &format!(
            "echo hello > greet.txt; {}",
            crate::headless::WAIT_FOR_GO_SH
        ),
    )
    // After the resume: the second story, nothing else.
    .write("dev-2", &[("bye.txt", "bye\n")]);
    let scenario = env.scenario("pipeline", &s.text_of());
    let first = env.pawl_during_step(
        &[
            "run",
            "write a greeting and a farewell",
            "--mode",
            "qa",
            "--scenario",
            &scenario,
        ],
        || std::fs::write(env.root().join(".pawl/stop"), "").unwrap(),
    );
    assert_eq!(first.code, 6, "{}\n{}", first.stdout, first.stderr);
    assert_eq!(env.run_state().1.as_deref(), Some("stopped"));
    assert_eq!(env.iterations(), 4);
    assert_eq!(
        env.strings("SELECT title || ':' || status FROM stories ORDER BY id"),
        ["write the greeting:done", "write the farewell:pending"]
    );
    let r = env.pawl(&["resume"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.run_state(), ("done".into(), Some("verified".into())));
    assert_eq!(
        env.iterations(),
        5,
        "one developer session after the resume"
    );
    assert_eq!(env.count("SELECT COUNT(*) FROM plans"), 1);
    assert_eq!(env.verdicts().len(), 2, "{:?}", env.verdicts());
    assert_eq!(
        env.strings("SELECT title || ':' || status FROM stories ORDER BY id"),
        ["write the greeting:done", "write the farewell:done"]
    );
    // One worker (the default): the stories ran one after the other in the run's tree, none in
    // a worktree (docs/parallel.md, "Planned runs").
    assert_eq!(env.count("SELECT COUNT(*) FROM story_work"), 0);
    assert_eq!(
        env.count("SELECT json_extract(settings_json, '$.workers') FROM runs"),
        1,
        "the workers are recorded on the run, for its resumes"
    );
    assert_eq!(
        env.phases(),
        vec![
            p("plan", 1, "passed"),
            p("execute", 1, "stopped"),
            p("execute", 1, "passed"),
        ]
    );
}

/// The developer moves a test file beside the fix: the screen sees a test file deleted, but the
/// locked run (the baseline's tests, `tests/base.sh` included, on the baseline plus the fix)
/// holds, so the change to the tests cannot have bought the verdict: SHIP with the screen's
/// finding noted, not deciding, whether or not the code reviewer accepts the test change.
#[test]
fn a_moved_test_file_beside_the_fix_ships_with_the_finding_noted() {
    for accept in [true, false] {
        let env = TestEnv::new();
        env.pipeline(
            "phases = [\"plan\", \"execute\", \"review\"]\ntdd = false",
            NO_BREAKERS,
        );
        let mut review = approve();
        if accept {
            review["accept_test_changes"] = json!("tests/base.sh moved");
        }
        let mut s = Script::new();
        s.answer(
            "plan-1",
            plan(
                "grep -q hello greet.sh",
                false,
                &[("write the greeting", &["greet.sh"])],
            ),
        )
        .answer("arch-1", approve())
        .answer("crit-1", approve())
        .run(
            "dev-1",
            "mv tests/base.sh tests/other.sh && echo 'echo hello' > greet.sh",
        )
        .answer("rev-1", review);
        let r = env.run_pipeline("qa", "write a friendly greeting", &s);
        let report = env.ok(&["report", "--json"]).json();
        assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
        assert_eq!(report["verdict"], "SHIP", "{report}");
        assert_eq!(report["locked"]["result"], "holds", "{report}");
        assert!(
            report["noted"].to_string().contains("tests/base.sh"),
            "{report}"
        );
        assert_eq!(report["findings"], json!([]), "{report}");
    }
}

const COLLEAGUE_GOAL: &str = "make greet.txt say hello to the world and add a test";

/// The file the colleague goal names, as the repository holds it before the run: a path the
/// goal names anchors it only when the repository has it (issue 35, "anchors from facts").
const GREET_BEFORE: &str = "goodbye\n";

/// A goal of the `colleague` shape (clarity 5–7) checks in at the plan gate unless told to
/// proceed: unattended the recommendation (go on) is taken and recorded as assumed; with `--yes`
/// nothing is asked.
#[test]
fn a_colleague_goal_checks_in_at_the_plan_gate_unless_told_to_proceed() {
    for (extra, want) in [(None, vec!["yes/assumed"]), (Some("--yes"), vec![])] {
        let env = TestEnv::new();
        env.write("greet.txt", GREET_BEFORE);
        env.pipeline("phases = [\"plan\", \"execute\"]\ntdd = false", NO_BREAKERS);
        let mut s = Script::new();
        s.answer(
            "plan-1",
            plan(
                "grep -q hello greet.txt",
                false,
                &[("write the greeting", &["greet.txt"])],
            ),
        )
        .write("dev-1", &[("greet.txt", "hello world\n")]);
        let sc = env.scenario("pipeline", &s.text_of());
        let mut args = vec!["run", COLLEAGUE_GOAL, "--mode", "work", "--scenario", &sc];
        args.extend(extra);
        let r = env.pawl_env(&args, &[("PAWL_PIPELINE_SPEC_GATE", "true")]);
        assert_eq!(r.code, 0, "{:?}: {}\n{}", extra, r.stdout, r.stderr);
        assert_eq!(
            env.strings(
                "SELECT answer || '/' || category FROM clarifications WHERE question LIKE 'check-in:%'"
            ),
            want,
            "{extra:?}"
        );
    }
}

/// On a terminal the check-in is asked there: "no: …" sends the plan back to the planner with
/// what to change, "yes" goes on with the next one.
#[test]
fn a_colleague_goal_checks_in_on_the_terminal_and_a_change_goes_back_to_the_planner() {
    let env = TestEnv::new();
    env.write("greet.txt", GREET_BEFORE);
    env.pipeline(
        "phases = [\"plan\", \"execute\"]\ntdd = false\nanswer_timeout = \"60s\"",
        NO_BREAKERS,
    );
    let one = plan(
        "grep -q hello greet.txt",
        false,
        &[("write the greeting", &["greet.txt"])],
    );
    let mut s = Script::new();
    s.answer("plan-1", one.clone())
        .answer("plan-2", one)
        .write("dev-1", &[("greet.txt", "hello world and moon\n")]);
    let scenario = env.scenario("pipeline", &s.text_of());
    let (code, transcript, asked) = on_a_terminal(
        &env,
        &format!("run '{COLLEAGUE_GOAL}' --mode work --interactive --scenario '{scenario}'"),
        &[("PAWL_PIPELINE_SPEC_GATE", "true")],
        |n| {
            Some(if n == 1 {
                "no: also greet the moon"
            } else {
                "yes"
            })
        },
    );
    assert_eq!(asked, 2, "{transcript}");
    assert!(
        transcript.contains("check-in: the plan has"),
        "{transcript}"
    );
    assert_eq!(code, Some(0), "{transcript}");
    assert_eq!(
        env.strings(
            "SELECT answer || '/' || category FROM clarifications WHERE question LIKE 'check-in:%' ORDER BY id"
        ),
        ["no: also greet the moon/answered", "yes/answered"],
        "{transcript}"
    );
    let second_plan = env.strings("SELECT prompt FROM iterations WHERE n = 2");
    assert!(
        second_plan[0]
            .contains("the user asked for changes at the plan check-in: no: also greet the moon"),
        "{second_plan:?}"
    );
}

/// Runs `pawl <args>` on a real terminal (a pty from `script`) with `vars` on top of the test's
/// environment; at each "[pawl] your answer" prompt `reply(n)` (1-based) is typed, or nothing.
/// Returns the exit code, the transcript and how many times pawl asked.
fn on_a_terminal(
    env: &TestEnv,
    args: &str,
    vars: &[(&str, &str)],
    mut reply: impl FnMut(usize) -> Option<&'static str>,
) -> (Option<i32>, String, usize) {
    use std::io::{BufRead as _, Write as _};
    let pawl = assert_cmd::cargo::cargo_bin("pawl");
    let inner = format!("'{}' {args}", pawl.display());
    let mut cmd = env.command("script");
    cmd.args(["-qfec", &inner, "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    let mut asked = 0;
    for line in stdout.lines() {
        let line = line.unwrap();
        seen.push(line.clone());
        if line.contains("[pawl] your answer") {
            asked += 1;
            if let Some(text) = reply(asked) {
                writeln!(stdin, "{text}").unwrap();
                stdin.flush().unwrap();
            }
        }
    }
    let status = child.wait().unwrap();
    (status.code(), seen.join("\n"), asked)
}
