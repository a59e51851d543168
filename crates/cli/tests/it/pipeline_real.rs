//! The whole qa pipeline with the real Claude Code CLI, offline, against pawl-testkit's mock
//! model server: `pawl run --agent claude --mode qa`. Every session pawl starts is a fresh
//! `claude -p` process; the mock answers each by the role marker (or the TDD step) in its prompt.
//!
//! The CLI comes from `PAWL_CLAUDE_BIN` or the cache `.ci/install-agents.sh` fills. A missing CLI
//! fails the test under `CI=true` and skips it loudly otherwise.

#![allow(clippy::print_stderr)]

use std::path::PathBuf;
use std::time::Instant;

use pawl_testkit::{MockServer, Scenario, ToolCall, Turn};
use serde_json::json;

use crate::TestEnv;
use crate::headless::NO_BREAKERS;

/// The tested version, from `.ci/agent-versions`.
fn claude_version() -> &'static str {
    pawl_agent::pins::tested("claude").expect("claude pinned in .ci/agent-versions")
}

fn claude_bin() -> Option<PathBuf> {
    let cached = || {
        let cache = match std::env::var_os("PAWL_AGENT_CACHE") {
            Some(d) => PathBuf::from(d),
            None => PathBuf::from(std::env::var_os("HOME")?).join(".cache/pawl-agents"),
        };
        let modules = cache.join(format!("claude-code-{}/node_modules", claude_version()));
        let wrapper = modules.join(".bin/claude");
        // Without its postinstall the wrapper is a small stub; the platform package has the binary.
        if std::fs::metadata(&wrapper).is_ok_and(|m| m.len() > 100_000) {
            return Some(wrapper);
        }
        std::fs::read_dir(modules.join("@anthropic-ai"))
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path().join("claude"))
            .find(|p| p.is_file())
    };
    let path = std::env::var_os("PAWL_CLAUDE_BIN")
        .map(PathBuf::from)
        .or_else(cached);
    if let Some(p) = path.filter(|p| p.is_file()) {
        return Some(p);
    }
    let msg = "Claude CLI not found: set PAWL_CLAUDE_BIN or run `source .ci/install-agents.sh`";
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{msg}");
    }
    eprintln!("SKIPPED (real-CLI test): {msg}");
    None
}

fn fenced(v: serde_json::Value) -> String {
    format!("My answer:\n```json\n{v}\n```")
}

/// One turn per session, matched by the role marker or the TDD step in pawl's prompt; a
/// developer turn that writes a file is followed by its closing turn.
fn scenario() -> Scenario {
    let approve = json!({"approve": true, "architecture_status": "clear", "findings": []});
    Scenario::new(vec![
        Turn::text(fenced(json!({"questions": [{"question": "Which greeting?", "recommended": "hello"}]})))
            .when_last_user_contains("[pawl role: interviewer]"),
        Turn::text(fenced(json!({
            "criteria": [
                {"id": "C1", "text": "greet.txt says hello", "verify": "command", "command": "grep -q hello greet.txt"},
                {"id": "C2", "text": "the greeting is friendly", "verify": "review"}],
            "stories": [{"id": "S1", "title": "write the greeting", "size": "S",
                         "acceptance": ["greet.txt says hello"], "files": ["greet.txt", "tests/greet.sh"]}]})))
        .when_last_user_contains("[pawl role: planner]"),
        Turn::text(fenced(approve.clone())).when_last_user_contains("[pawl role: architect]"),
        Turn::text(fenced(approve.clone())).when_last_user_contains("[pawl role: critic]"),
        Turn::text("Writing the failing test.")
            .with_tool(ToolCall::Write {
                path: "tests/greet.sh".into(),
                content: "grep -q hello greet.txt\n".into(),
            })
            .when_last_user_contains("TDD, red step"),
        Turn::text("The test fails now."),
        Turn::text("Nothing to refactor.").when_last_user_contains("TDD, refactor step"),
        Turn::text("Implementing.")
            .with_tool(ToolCall::Write {
                path: "greet.txt".into(),
                content: "hello\n".into(),
            })
            .when_last_user_contains("TDD, green step"),
        Turn::text("Done."),
        Turn::text(fenced(json!({"approve": true, "architecture_status": "clear",
                                 "findings": [{"severity": "suggestion", "text": "add a trailing exclamation mark"}],
                                 "verified_criteria": ["C2"]})))
            .when_last_user_contains("[pawl role: reviewer]"),
        Turn::text(fenced(json!({"passed": true, "exercised": ["sh test.sh"], "failures": []})))
            .when_last_user_contains("[pawl role: qa]"),
        // The independent reviewer (qa mode with a real agent: on by default).
        Turn::text(fenced(json!({"special_cases": false, "findings": []})))
            .when_last_user_contains("[pawl role: independent-reviewer]"),
    ])
}

#[test]
fn real_claude_runs_the_whole_qa_pipeline() {
    let Some(bin) = claude_bin() else { return };
    let server = MockServer::start(scenario()).unwrap();
    let env = TestEnv::new();
    env.write(
        "test.sh",
        "for t in tests/*.sh; do sh \"$t\" || exit 1; done\n",
    );
    env.write("tests/base.sh", "true\n");
    env.headless(&format!(
        "[agent]\nkind = \"claude\"\ncommand = [\"{}\"]\n\n[limits]\ncalls_per_hour = 0\nmax_iterations = 20\n\n\
         [breakers]\n{NO_BREAKERS}\n[stall]\nidle_timeout = \"90s\"\nstep_timeout = \"180s\"\n\n[gates]\ntest = \"sh test.sh\"\n\n\
         [tester]\non = \"off\"\n",
        bin.display()
    ));
    let tmp = env.dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let started = Instant::now();
    let r = env.pawl_env(
        &[
            "run",
            "--agent",
            "claude",
            "--mode",
            "qa",
            "write a friendly greeting to greet.txt",
        ],
        &[
            ("ANTHROPIC_BASE_URL", &server.base_url()),
            ("ANTHROPIC_API_KEY", "dummy"),
            ("TMPDIR", tmp.to_str().unwrap()),
        ],
    );
    let wall = started.elapsed();
    eprintln!("real Claude qa pipeline: {wall:?}");
    // Verified, but a criterion rests on review: verdict MONITOR, exit 12 (never 0).
    assert_eq!(r.code, 12, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(env.run_state(), ("done".into(), Some("verified".into())));
    // interview, plan, architect, critic, red, green, refactor, review, qa.
    assert_eq!(env.iterations(), 9, "{}", r.stdout);
    assert_eq!(
        std::fs::read_to_string(env.root().join("greet.txt")).unwrap(),
        "hello\n"
    );
    let verdicts = env.verdicts();
    let roles: Vec<&str> = verdicts.iter().map(|v| v.0.as_str()).collect();
    assert_eq!(roles, ["architect", "critic", "reviewer", "qa"]);
    // Each verdict carries the real session id of the claude process that gave it, all distinct.
    let sessions: Vec<&str> = verdicts.iter().map(|v| v.2.as_str()).collect();
    assert!(sessions.iter().all(|s| s.len() >= 32), "{sessions:?}");
    let mut unique = sessions.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 4, "{sessions:?}");
    assert_eq!(
        env.strings("SELECT tdd_phase || '/' || status FROM stories"),
        ["verify/done"]
    );
    assert_eq!(
        env.count("SELECT COUNT(*) FROM criteria WHERE status = 'verified'"),
        2
    );
    // Every role was asked by its own prompt.
    let asked = server.all_user_texts().join("\n");
    for marker in [
        "[pawl role: interviewer]",
        "[pawl role: planner]",
        "[pawl role: architect]",
        "[pawl role: critic]",
        "TDD, red step",
        "TDD, green step",
        "TDD, refactor step",
        "[pawl role: reviewer]",
        "[pawl role: qa]",
    ] {
        assert!(asked.contains(marker), "{marker} never reached the model");
    }
    let md = env.ok(&["report"]).stdout;
    assert!(md.contains("add a trailing exclamation mark"), "{md}");
    // The independent reviewer ran (qa mode, `[verify] reviewer = "auto"`) and found it clear.
    assert!(
        asked.contains("[pawl role: independent-reviewer]"),
        "{asked}"
    );
    assert!(md.contains("**Independent reviewer**: on"), "{md}");
    assert!(md.contains("**clear**"), "{md}");
}
