//! The in-session driver, hermetically: `pawl hook <agent> <event>` with JSON on stdin, asserting
//! the exact protocol answers and what the store recorded. The real CLIs are in `hooks_real.rs`.

use std::io::Write as _;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::TestEnv;

const CALC_BUG: &str = "def add(a, b):\n    return a - b\n";
const CALC_OK: &str = "def add(a, b):\n    return a + b\n";
const TEST_CALC: &str = "import unittest\nfrom calc import add\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n";

/// A repository with a python project whose test fails, `pawl init`ed and committed.
pub(crate) fn project(limits: &str, breakers: &str) -> TestEnv {
    let env = TestEnv::new();
    env.ok(&["init"]);
    env.write("calc.py", CALC_BUG);
    env.write("test_calc.py", TEST_CALC);
    env.write(
        "pawl.toml",
        &format!(
            "[agent]\nkind = \"claude\"\n\n[limits]\n{limits}\n\n[breakers]\n{breakers}\n\n[gates]\ntest = \"python3 -m unittest -q\"\n"
        ),
    );
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "project"]);
    env
}

/// Runs one hook; returns its stdout as JSON (every answer is JSON) after checking exit 0.
pub(crate) fn hook(env: &TestEnv, agent: &str, event: &str, input: Value) -> Value {
    hook_env(env, agent, event, input, &[])
}

pub(crate) fn hook_env(
    env: &TestEnv,
    agent: &str,
    event: &str,
    input: Value,
    vars: &[(&str, &str)],
) -> Value {
    let mut cmd = env.command("pawl");
    cmd.args(["hook", agent, event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a hook always exits 0\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "hook answer is not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

pub(crate) fn session_start(env: &TestEnv, session: &str, source: &str) -> Value {
    json!({"session_id": session, "transcript_path": "/t", "cwd": env.root(), "hook_event_name": "SessionStart", "source": source})
}

pub(crate) fn bash(env: &TestEnv, session: &str, command: &str) -> Value {
    json!({"session_id": session, "cwd": env.root(), "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": {"command": command}, "tool_use_id": "t1"})
}

fn stop(env: &TestEnv, session: &str, active: bool, msg: &str) -> Value {
    json!({"session_id": session, "cwd": env.root(), "hook_event_name": "Stop", "stop_hook_active": active,
           "last_assistant_message": msg})
}

pub(crate) fn arm(env: &TestEnv, extra: &[&str]) -> String {
    let mut args = vec!["run", "--driver", "session", "make add() add", "--json"];
    args.extend_from_slice(extra);
    let r = env.ok(&args);
    r.json()["run_id"].as_str().unwrap().to_string()
}

fn status(env: &TestEnv, run: &str) -> (String, Option<String>) {
    env.db()
        .query_row(
            "SELECT status, stop_reason FROM runs WHERE id = ?1",
            [run],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

fn event_count(env: &TestEnv, run: &str, kind: &str) -> i64 {
    env.db()
        .query_row(
            "SELECT COUNT(*) FROM events WHERE run_id = ?1 AND kind = ?2",
            [run, kind],
            |r| r.get(0),
        )
        .unwrap()
}

#[test]
fn a_session_that_belongs_to_no_run_is_allowed_at_once() {
    let env = TestEnv::new();
    // No .pawl at all.
    for agent in ["claude", "codex", "gemini"] {
        assert_eq!(
            hook(&env, agent, "stop", stop(&env, "s", false, "Done.")),
            json!({})
        );
        assert_eq!(
            hook(&env, agent, "pre-tool-use", bash(&env, "s", "rm -rf /")),
            json!({})
        );
    }
    // pawl initialised, a manual run active, but nothing armed for a session.
    env.manual_run("goal");
    assert_eq!(
        hook(&env, "claude", "stop", stop(&env, "s", false, "Done.")),
        json!({})
    );
    // Garbage on stdin and unknown names: still `{}` and exit 0, never exit 2.
    let mut cmd = env.command("pawl");
    let out = cmd.args(["hook", "nobody", "whatever"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "{}");
}

#[test]
fn arming_binds_the_next_session_and_leaves_others_alone() {
    let env = project("", "");
    let run = arm(&env, &[]);
    let marker: Value = serde_json::from_str(
        &std::fs::read_to_string(env.root().join(".pawl/session.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(marker["run_id"], run.as_str());
    assert_eq!(marker["agent"], "claude");

    // Before any session starts, a hook from a session that did not start here is untouched.
    assert_eq!(
        hook(
            &env,
            "claude",
            "pre-tool-use",
            bash(&env, "early", "rm -rf .")
        ),
        json!({})
    );

    let a = hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    let ctx = a["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert_eq!(a["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        ctx.contains(&run) && ctx.contains("make add() add"),
        "{ctx}"
    );
    let bound: String = env
        .db()
        .query_row(
            "SELECT run_id FROM session_bindings WHERE session_id = 's1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(bound, run);
    let lease_sessions: String = env
        .db()
        .query_row(
            "SELECT sessions_json FROM leases WHERE run_id = ?1",
            [&run],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(lease_sessions, r#"["s1"]"#, "store.bind_session ran too");

    // A second session is not bound and never blocked.
    assert_eq!(
        hook(
            &env,
            "claude",
            "session-start",
            session_start(&env, "s2", "startup")
        ),
        json!({})
    );
    assert_eq!(
        hook(&env, "claude", "stop", stop(&env, "s2", false, "Done.")),
        json!({})
    );
    assert_eq!(
        hook(
            &env,
            "claude",
            "pre-tool-use",
            bash(&env, "s2", "rm -rf .git")
        ),
        json!({})
    );
    // A resumed s1 gets the context again.
    let again = hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "resume"),
    );
    assert!(
        again["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains(&run)
    );
}

#[test]
fn arming_from_inside_a_session_binds_that_session() {
    let env = project("", "");
    let r = env.pawl_env(
        &["run", "--driver", "session", "goal", "--json"],
        &[("CLAUDE_CODE_SESSION_ID", "inside-1")],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["bound_session"], "inside-1");
    let a = hook(
        &env,
        "claude",
        "stop",
        stop(&env, "inside-1", false, "Done."),
    );
    assert_eq!(a["decision"], "block", "{a}");
}

/// Issue 36 point 3: the same call denied twice in a row in one session reaches the user once
/// (one `guard_denied` event); the agent is told each time. Another call, or the same call in
/// another session, is reported again.
#[test]
fn the_same_denial_in_a_row_is_reported_to_the_user_once() {
    let env = project("", "");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c1", "startup"),
    );
    let deny = |session: &str, command: &str| {
        let d = hook(&env, "claude", "pre-tool-use", bash(&env, session, command));
        assert_eq!(
            d["hookSpecificOutput"]["permissionDecision"], "deny",
            "{command}: {d}"
        );
    };
    deny("c1", "git push origin HEAD");
    deny("c1", "git push origin HEAD");
    deny("c1", "git push origin HEAD");
    assert_eq!(event_count(&env, &run, "guard_denied"), 1);
    // Another call in between: the same call after it is reported again.
    deny("c1", "rm -rf .git");
    deny("c1", "git push origin HEAD");
    assert_eq!(event_count(&env, &run, "guard_denied"), 3);
}

/// Issue 36 point 1: pawl keeps untracked files in a commit before every step, so removing an
/// untracked directory is allowed — unless it holds a file git ignores (a `.env`, a local
/// database), which no checkpoint keeps. Asked of the real repository by the hook.
#[test]
fn removing_an_untracked_directory_is_allowed_unless_it_holds_ignored_files() {
    let env = project("", "");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c1", "startup"),
    );
    std::fs::create_dir_all(env.root().join("frontend/src")).unwrap();
    std::fs::write(env.root().join("frontend/src/app.js"), "x\n").unwrap();
    std::fs::create_dir_all(env.root().join("scratch")).unwrap();
    std::fs::write(env.root().join("scratch/local.db"), "x\n").unwrap();
    let gitignore = env.root().join(".gitignore");
    let mut text = std::fs::read_to_string(&gitignore).unwrap_or_default();
    text.push_str("\n*.db\n");
    std::fs::write(&gitignore, text).unwrap();
    // A nested repository with a commit of its own: the checkpoint would hold it as a pointer,
    // not its files and commit (allowed before session 19's second helper).
    let nested = env.root().join("vendored/lib");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(nested.join("a.txt"), "y\n").unwrap();
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.email=a@b",
            "-c",
            "user.name=a",
            "commit",
            "-qm",
            "nested",
        ],
    ] {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(&nested)
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }
    let decide = |command: &str| {
        let d = hook(&env, "claude", "pre-tool-use", bash(&env, "c1", command));
        d["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("allow")
            .to_string()
            + " "
            + d["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap_or("")
    };
    assert!(decide("rm -rf frontend").starts_with("allow"));
    let db = decide("rm -rf scratch");
    assert!(db.starts_with("deny pawl guard [recursive-delete]"), "{db}");
    assert!(db.contains("git ignores"), "{db}");
    for command in ["rm -rf vendored", "rm -rf vendored/lib"] {
        let d = decide(command);
        assert!(d.starts_with("deny pawl guard [recursive-delete]"), "{d}");
        assert!(d.contains("nested git repository"), "{d}");
    }
    assert!(nested.join("a.txt").exists());
    // Tracked files stay denied (their directory is the repository's).
    assert!(decide("rm -rf .").starts_with("deny"));
    assert_eq!(event_count(&env, &run, "guard_denied"), 4);
}

/// Issue 36 (session 20): a glob of keys or certificates over the repository's top is held by
/// the checkpoint like one over a subdirectory when nothing there is ignored. The hook's
/// `holds_ignored` counted the repository's own `.git` as a nested repository, and `.pawl/`
/// (ignored in every pawl repository) as an ignored file, so it never was; a glob that cannot
/// match a dot-led name does not reach either. An ignored key at the top, or a nested
/// repository, keeps it denied.
#[test]
fn a_glob_of_keys_at_the_repository_top_is_held_when_nothing_there_is_ignored() {
    let env = project("", "");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c1", "startup"),
    );
    std::fs::write(env.root().join("server.pem"), "cert\n").unwrap();
    std::fs::write(env.root().join("server-key.pem"), "key\n").unwrap();
    let decide = |command: &str| {
        let d = hook(&env, "claude", "pre-tool-use", bash(&env, "c1", command));
        d["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("allow")
            .to_string()
            + " "
            + d["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap_or("")
    };
    let d = decide("rm -f server*.pem");
    assert!(d.starts_with("allow"), "{d}");
    // A nested repository below the top: the checkpoint holds it as a pointer.
    let nested = env.root().join("vendored");
    std::fs::create_dir_all(nested.join(".git")).unwrap();
    let d = decide("rm -f server*.pem");
    assert!(d.starts_with("deny pawl guard [protected-path]"), "{d}");
    std::fs::remove_dir_all(&nested).unwrap();
    assert!(decide("rm -f server*.pem").starts_with("allow"));
    // An ignored key at the top: no checkpoint holds it.
    let gitignore = env.root().join(".gitignore");
    let mut text = std::fs::read_to_string(&gitignore).unwrap_or_default();
    text.push_str("\nlocal*.pem\n");
    std::fs::write(&gitignore, text).unwrap();
    std::fs::write(env.root().join("local-server.pem"), "key\n").unwrap();
    let d = decide("rm -f *server*.pem");
    assert!(d.starts_with("deny pawl guard [protected-path]"), "{d}");
    // A dot-led glob reaches `.pawl/`, which git ignores.
    assert!(decide("rm -f .*.pem").starts_with("deny"));
    assert!(env.root().join("server.pem").exists());
    assert_eq!(event_count(&env, &run, "guard_denied"), 3);
}

/// Issue 36 (session 20): a tracked directory is held by the checkpoint (each tracked file is
/// in it, as `rm` of a tracked file is allowed under it) unless it holds a submodule: the
/// checkpoint commits a gitlink, not the submodule's tree. The hook reads the modes from the
/// index (mode 160000).
#[test]
fn removing_a_tracked_directory_is_allowed_unless_it_holds_a_submodule() {
    let env = project("", "");
    std::fs::create_dir_all(env.root().join("material/templates")).unwrap();
    std::fs::write(env.root().join("material/__init__.py"), "x\n").unwrap();
    std::fs::write(env.root().join("material/templates/base.html"), "y\n").unwrap();
    std::fs::create_dir_all(env.root().join("docs")).unwrap();
    std::fs::write(env.root().join("docs/index.md"), "z\n").unwrap();
    env.git(&["add", "-A"]);
    // A submodule's pointer under docs/ (its commit need not exist for the index to hold it;
    // an empty directory is how git leaves a submodule not checked out).
    std::fs::create_dir_all(env.root().join("docs/theme")).unwrap();
    env.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        "160000,0123456789abcdef0123456789abcdef01234567,docs/theme",
    ]);
    env.git(&["commit", "-q", "-m", "tracked directories"]);
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c1", "startup"),
    );
    let decide = |command: &str| {
        let d = hook(&env, "claude", "pre-tool-use", bash(&env, "c1", command));
        d["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("allow")
            .to_string()
            + " "
            + d["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap_or("")
    };
    for command in ["rm -rf material", "rm -r material/templates"] {
        let d = decide(command);
        assert!(d.starts_with("allow"), "{command}: {d}");
    }
    for command in ["rm -rf docs", "rm -rf docs/theme", "rm -rf docs/theme/src"] {
        let d = decide(command);
        assert!(
            d.starts_with("deny pawl guard [recursive-delete]"),
            "{command}: {d}"
        );
        assert!(d.contains("submodule"), "{command}: {d}");
    }
    assert!(env.root().join("material/__init__.py").exists());
    assert_eq!(event_count(&env, &run, "guard_denied"), 3);
}

/// Issue 36: a variable the agent's command does not assign has the value of the environment
/// the hook and the agent's shell both inherit from the agent CLI, and is judged by it; absent,
/// it stays unknown (denied where it decides the effect). What the agent CLI sets only for hooks
/// is not taken for the shell's.
#[test]
fn a_variable_from_the_inherited_environment_is_judged_by_its_value() {
    let env = project("", "");
    arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c1", "startup"),
    );
    let decide = |command: &str, vars: &[(&str, &str)]| {
        let d = hook_env(
            &env,
            "claude",
            "pre-tool-use",
            bash(&env, "c1", command),
            vars,
        );
        d["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("allow")
            .to_string()
    };
    let write = r#"echo done > "$STAMP_DIR/stamp""#;
    assert_eq!(decide(write, &[]), "deny");
    assert_eq!(decide(write, &[("STAMP_DIR", "build")]), "allow");
    let home = env.home.display().to_string();
    let ssh = format!("{home}/.ssh");
    assert_eq!(decide(write, &[("STAMP_DIR", ssh.as_str())]), "deny");
    assert_eq!(
        decide(
            r#"echo done > "$CLAUDE_PROJECT_DIR/stamp""#,
            &[("CLAUDE_PROJECT_DIR", "build")]
        ),
        "deny"
    );
    assert_eq!(decide(r#""$BIN" --version"#, &[]), "allow");
}

#[test]
fn the_guard_denies_in_each_protocol_and_allows_plain_commands() {
    let env = project("", "");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c1", "startup"),
    );
    let d = hook(&env, "claude", "pre-tool-use", bash(&env, "c1", "rm -rf ."));
    assert_eq!(d["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(d["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        d["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .starts_with("pawl guard [")
    );
    assert_eq!(
        hook(
            &env,
            "claude",
            "pre-tool-use",
            bash(&env, "c1", "python3 -m unittest -q")
        ),
        json!({})
    );
    assert_eq!(
        hook(
            &env,
            "claude",
            "pre-tool-use",
            bash(&env, "c1", "git status")
        ),
        json!({})
    );
    let w = hook(
        &env,
        "claude",
        "pre-tool-use",
        json!({"session_id": "c1", "cwd": env.root(), "hook_event_name": "PreToolUse", "tool_name": "Write",
               "tool_input": {"file_path": env.root().join(".git/config"), "content": "x"}}),
    );
    assert_eq!(w["hookSpecificOutput"]["permissionDecision"], "deny", "{w}");
    assert_eq!(event_count(&env, &run, "guard_denied"), 2);

    // Codex: same JSON shape; apply_patch paths are judged as writes.
    env.ok(&["off"]);
    let env2 = project("", "");
    env2.ok(&["run", "--driver", "session", "g", "--agent", "codex"]);
    hook(
        &env2,
        "codex",
        "session-start",
        session_start(&env2, "x1", "startup"),
    );
    let p = hook(
        &env2,
        "codex",
        "pre-tool-use",
        json!({"session_id": "x1", "turn_id": "t", "transcript_path": null, "cwd": env2.root(), "hook_event_name": "PreToolUse",
               "model": "gpt-5.5", "tool_name": "apply_patch", "tool_use_id": "c",
               "tool_input": {"command": "*** Begin Patch\n*** Update File: .git/HEAD\n@@\n-a\n+b\n*** End Patch\n"}}),
    );
    assert_eq!(p["hookSpecificOutput"]["permissionDecision"], "deny", "{p}");

    // Gemini: its own event names and `decision: deny`.
    let env3 = project("", "");
    env3.ok(&["run", "--driver", "session", "g", "--agent", "gemini"]);
    hook(
        &env3,
        "gemini",
        "session-start",
        session_start(&env3, "g1", "startup"),
    );
    let g = hook(
        &env3,
        "gemini",
        "pre-tool-use",
        json!({"session_id": "g1", "cwd": env3.root(), "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
               "tool_input": {"command": "git push --force origin main"}}),
    );
    assert_eq!(g["decision"], "deny", "{g}");
    assert!(g["reason"].as_str().unwrap().contains("pawl guard"));
}

#[test]
fn stop_blocks_with_the_failing_test_then_allows_once_pawl_verifies() {
    let env = project("", "");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    let b = hook(&env, "claude", "stop", stop(&env, "s1", false, "Done."));
    assert_eq!(b["decision"], "block", "{b}");
    let reason = b["reason"].as_str().unwrap();
    assert!(
        reason.contains("test_add"),
        "the failing test is named: {reason}"
    );
    assert!(reason.contains("You said the work was done"), "{reason}");
    assert!(reason.contains("Budget left: 19 iteration(s)"), "{reason}");
    let (st, _) = status(&env, &run);
    assert_eq!(st, "active");

    // Codex gets the same block shape.
    let c = hook(&env, "codex", "stop", stop(&env, "s1", true, "Done."));
    assert_eq!(c["decision"], "block");

    env.write("calc.py", CALC_OK);
    let a = hook(&env, "claude", "stop", stop(&env, "s1", true, "Fixed."));
    let msg = a["systemMessage"].as_str().unwrap_or_default();
    assert!(a.get("decision").is_none(), "{a}");
    assert!(msg.contains("done, verified by pawl"), "{a}");
    assert_eq!(status(&env, &run), ("done".into(), Some("verified".into())));
    let iterations: i64 = env
        .db()
        .query_row(
            "SELECT COUNT(*) FROM iterations WHERE run_id = ?1 AND ended_at IS NOT NULL",
            [&run],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(iterations, 3, "each Stop is one iteration");
    // The verified fix is a commit on the session's branch.
    let subject = String::from_utf8(env.git(&["log", "-1", "--format=%s"]).stdout).unwrap();
    assert!(
        subject.starts_with("pawl: iteration 3 — verified done"),
        "{subject}"
    );
    let status_out = String::from_utf8(env.git(&["status", "--porcelain"]).stdout).unwrap();
    assert!(!status_out.contains("calc.py"), "{status_out}");
    assert!(env.root().join(format!(".pawl/reports/{run}.md")).is_file());
    assert!(
        !env.root().join(".pawl/session.json").exists(),
        "session mode ends with the run"
    );
    // The session is free again: nothing blocks it any more.
    assert_eq!(
        hook(&env, "claude", "stop", stop(&env, "s1", false, "bye")),
        json!({})
    );
}

#[test]
fn a_stop_limit_ends_an_always_failing_session_with_its_reason() {
    let env = project(
        "max_iterations = 2",
        "no_progress = 0\nsame_failure = 0\ncriterion_stuck = 0",
    );
    let run = arm(&env, &[]);
    hook(
        &env,
        "codex",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    // The run expects claude (pawl.toml): a codex session does not bind...
    assert_eq!(
        hook(&env, "codex", "stop", stop(&env, "s1", false, "Done.")),
        json!({})
    );
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    let first = hook(&env, "claude", "stop", stop(&env, "s1", false, "Done."));
    assert_eq!(first["decision"], "block");
    let second = hook(
        &env,
        "claude",
        "stop",
        stop(&env, "s1", true, "Done, really."),
    );
    assert!(
        second.get("decision").is_none(),
        "the limit allows the stop: {second}"
    );
    assert!(
        second["systemMessage"]
            .as_str()
            .unwrap()
            .contains("max_iterations"),
        "{second}"
    );
    assert_eq!(
        status(&env, &run),
        ("stopped".into(), Some("max_iterations".into()))
    );
}

#[test]
fn a_breaker_ends_the_session_too_same_failure() {
    let env = project("", "same_failure = 2\nno_progress = 0");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    assert_eq!(
        hook(&env, "claude", "stop", stop(&env, "s1", false, "a"))["decision"],
        "block"
    );
    let end = hook(&env, "claude", "stop", stop(&env, "s1", true, "b"));
    assert!(
        end["systemMessage"]
            .as_str()
            .unwrap()
            .contains("same_failure"),
        "{end}"
    );
    assert_eq!(status(&env, &run).1.as_deref(), Some("same_failure"));
}

#[test]
fn post_tool_use_counts_edits_per_file_and_the_thrash_breaker_trips() {
    let env = project("", "file_thrash = 3\nno_progress = 0\nsame_failure = 0");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    for _ in 0..3 {
        let a = hook(
            &env,
            "claude",
            "post-tool-use",
            json!({"session_id": "s1", "cwd": env.root(), "hook_event_name": "PostToolUse", "tool_name": "Edit",
                   "tool_input": {"file_path": env.root().join("calc.py")}, "tool_response": {"success": true}}),
        );
        assert_eq!(a, json!({}));
    }
    let count: i64 = env
        .db()
        .query_row(
            "SELECT count FROM session_edits WHERE run_id = ?1 AND path = 'calc.py'",
            [&run],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(count, 3);
    let end = hook(&env, "claude", "stop", stop(&env, "s1", false, "Done."));
    assert!(
        end["systemMessage"]
            .as_str()
            .unwrap()
            .contains("file_thrash"),
        "{end}"
    );
}

#[test]
fn pre_compact_saves_the_summary_and_session_start_compact_brings_it_back() {
    let env = project("", "");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    env.ok(&["note", "add() must stay pure"]);
    hook(&env, "claude", "stop", stop(&env, "s1", false, "Done."));
    let a = hook(
        &env,
        "claude",
        "pre-compact",
        json!({"session_id": "s1", "cwd": env.root(), "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""}),
    );
    assert_eq!(a, json!({}));
    assert_eq!(event_count(&env, &run, "precompact_snapshot"), 1);
    let ctx = hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "compact"),
    );
    let text = ctx["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(text.contains("Saved before the compaction"), "{text}");
    assert!(
        text.contains("test_add"),
        "the last verification survives: {text}"
    );
    assert!(
        text.contains("add() must stay pure"),
        "decisions survive: {text}"
    );
}

#[test]
fn internal_errors_fail_closed_for_tools_and_open_for_stop() {
    let env = project("", "");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    env.write("pawl.toml", "this is [ not toml");
    // The guard judges by the policy the run started with: a broken pawl.toml changes nothing.
    let d = hook(&env, "claude", "pre-tool-use", bash(&env, "s1", "ls"));
    assert_eq!(d, json!({}), "{d}");
    let d = hook(&env, "claude", "pre-tool-use", bash(&env, "s1", "git push"));
    assert_eq!(d["hookSpecificOutput"]["permissionDecision"], "deny", "{d}");
    // An internal error in the guard (git cannot read HEAD) fails closed.
    let head = env.root().join(".git/HEAD");
    let saved = std::fs::read(&head).unwrap();
    std::fs::write(&head, "garbage\n").unwrap();
    let d = hook(
        &env,
        "claude",
        "pre-tool-use",
        bash(&env, "s1", "git status"),
    );
    std::fs::write(&head, &saved).unwrap();
    assert_eq!(d["hookSpecificOutput"]["permissionDecision"], "deny", "{d}");
    assert!(
        d["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("fail closed"),
        "{d}"
    );
    // The Stop verifies with the run's seal: a broken pawl.toml (the agent can edit it) changes
    // nothing — the stop is blocked with the failing evidence.
    let s = hook(&env, "claude", "stop", stop(&env, "s1", false, "Done."));
    assert_eq!(s["decision"], "block", "{s}");
    // An internal error in Stop (git cannot read the index: the tree cannot be hashed, nothing
    // can be verified) fails open: the stop is allowed, loudly.
    let index = env.root().join(".git/index");
    let saved_index = std::fs::read(&index).unwrap();
    std::fs::write(&index, "garbage\n").unwrap();
    let s = hook(&env, "claude", "stop", stop(&env, "s1", false, "Done."));
    std::fs::write(&index, &saved_index).unwrap();
    assert!(s.get("decision").is_none(), "{s}");
    assert!(
        s["systemMessage"]
            .as_str()
            .unwrap()
            .contains("stop is allowed"),
        "{s}"
    );
    assert!(event_count(&env, &run, "hook_error") >= 2);
    // Sessions of no run stay untouched even with a broken config.
    assert_eq!(
        hook(&env, "claude", "pre-tool-use", bash(&env, "other", "ls")),
        json!({})
    );
}

#[test]
fn off_ends_session_mode_and_takes_out_exactly_what_autonomous_added() {
    let env = project("", "");
    let user = "{\n  \"permissions\": {\n    \"allow\": [\"Read\", \"Bash\"]\n  },\n  \"model\": \"opus\"\n}\n";
    env.write(".claude/settings.json", user);
    // The user's settings file is not committed: the run starts from a snapshot of it.
    let run = arm(&env, &["--autonomous", "--allow-dirty"]);
    let during: Value = serde_json::from_str(
        &std::fs::read_to_string(env.root().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        during["permissions"]["allow"],
        json!(["Read", "Bash", "Edit", "Write", "MultiEdit"])
    );
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    let r = env.ok(&["off", "--json"]);
    assert_eq!(
        r.json()["autonomous_removed"],
        json!(["Edit", "Write", "MultiEdit"])
    );
    let after: Value = serde_json::from_str(
        &std::fs::read_to_string(env.root().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(after, serde_json::from_str::<Value>(user).unwrap());
    assert_eq!(
        status(&env, &run),
        ("stopped".into(), Some("stopped".into()))
    );
    assert_eq!(
        hook(&env, "claude", "stop", stop(&env, "s1", false, "Done.")),
        json!({})
    );
    assert_eq!(
        hook(
            &env,
            "claude",
            "pre-tool-use",
            bash(&env, "s1", "rm -rf .git")
        ),
        json!({})
    );
}

#[test]
fn an_armed_run_that_no_session_takes_expires() {
    let env = project("", "");
    // Armed for no time at all (the store's rows are signed: the test does not edit them).
    let r = env.pawl_env(
        &["run", "--driver", "session", "make add() add", "--json"],
        &[("PAWL_TEST_ARMING_TTL_MS", "0")],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let run = r.json()["run_id"].as_str().unwrap().to_string();
    let path = env.root().join(".pawl/session.json");
    assert_eq!(
        hook(
            &env,
            "claude",
            "session-start",
            session_start(&env, "late", "startup")
        ),
        json!({})
    );
    assert_eq!(
        status(&env, &run),
        ("stopped".into(), Some("stopped".into()))
    );
    assert_eq!(event_count(&env, &run, "session_arming_expired"), 1);
    assert!(!path.exists());
}

#[test]
fn init_agent_merges_idempotently_and_remove_restores() {
    let env = TestEnv::new();
    let user = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"./mine.sh\"}]}\n    ]\n  }\n}\n";
    env.write(".claude/settings.local.json", user);
    env.ok(&[
        "init", "--agent", "claude", "--agent", "codex", "--agent", "gemini",
    ]);
    let claude: Value = serde_json::from_str(
        &std::fs::read_to_string(env.root().join(".claude/settings.local.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        claude["hooks"]["Stop"][0]["hooks"][0]["command"],
        "./mine.sh"
    );
    let cmd = claude["hooks"]["Stop"][1]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    let bin = cmd.strip_suffix(" hook claude stop").unwrap();
    assert!(
        std::path::Path::new(bin.trim_matches('\'')).is_absolute(),
        "{cmd}"
    );
    assert!(env.root().join(".codex/hooks.json").is_file());
    assert!(env.root().join(".gemini/settings.json").is_file());
    let before = std::fs::read_to_string(env.root().join(".claude/settings.local.json")).unwrap();
    let r = env.ok(&["init", "--agent", "claude", "--json"]);
    assert!(
        r.json()["unchanged"]
            .to_string()
            .contains(".claude/settings.local.json")
    );
    assert_eq!(
        before,
        std::fs::read_to_string(env.root().join(".claude/settings.local.json")).unwrap()
    );

    env.ok(&["init", "--plugin"]);
    let plugin = env.root().join(".pawl/claude-plugin");
    assert!(plugin.join(".claude-plugin/plugin.json").is_file());
    assert!(
        std::fs::read_to_string(plugin.join("hooks/hooks.json"))
            .unwrap()
            .contains(" hook claude stop")
    );

    env.ok(&["init", "--remove"]);
    // Nothing else changed the file: it is back byte for byte.
    assert_eq!(
        std::fs::read_to_string(env.root().join(".claude/settings.local.json")).unwrap(),
        user
    );
    assert!(
        !env.root().join(".codex").exists(),
        "pawl created .codex/hooks.json: it goes"
    );
    assert!(!env.root().join(".gemini").exists());
    env.ok(&["init", "--remove", "--plugin"]);
    assert!(!plugin.exists());
}

/// A headless run's agent carries `PAWL_DRIVER=headless` and `PAWL_RUN_ID`: its hooks get the
/// guard (no session marker needed) and its Stop is left to the loop.
#[test]
fn headless_agents_are_guarded_through_their_environment() {
    let env = TestEnv::new();
    let run = env.manual_run("headless guard");
    let vars = [("PAWL_DRIVER", "headless"), ("PAWL_RUN_ID", run.as_str())];
    let d = hook_env(
        &env,
        "claude",
        "PreToolUse",
        bash(&env, "h1", "git push --force"),
        &vars,
    );
    assert_eq!(d["hookSpecificOutput"]["permissionDecision"], "deny", "{d}");
    let d = hook_env(
        &env,
        "claude",
        "PreToolUse",
        bash(&env, "h1", "ls -la"),
        &vars,
    );
    assert_ne!(d["hookSpecificOutput"]["permissionDecision"], "deny", "{d}");
    let d = hook_env(
        &env,
        "claude",
        "Stop",
        stop(&env, "h1", false, "Done."),
        &vars,
    );
    assert_ne!(d["decision"], "block", "{d}");
    // Without the variables the same session belongs to no run: untouched.
    let d = hook(
        &env,
        "claude",
        "PreToolUse",
        bash(&env, "h1", "git push --force"),
    );
    assert_ne!(d["hookSpecificOutput"]["permissionDecision"], "deny", "{d}");
    let ev = env.ok(&["events", "--json"]).stdout;
    assert!(ev.contains("\"guard_denied\""), "{ev}");
}

/// `pawl resume` arms a stopped session run again: a new session takes it, with the run's
/// limits raised only by `--add-*`.
#[test]
fn resume_rearms_a_stopped_session_run_for_the_next_session() {
    let env = project("max_iterations = 2", "");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c1", "startup"),
    );
    let d = hook(&env, "claude", "stop", stop(&env, "c1", false, "Done."));
    assert_eq!(d["decision"], "block", "{d}");
    env.ok(&["off"]);
    assert_eq!(status(&env, &run).0, "stopped");
    // A new session is untouched while the run is off.
    let d = hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c2", "startup"),
    );
    assert!(d.get("hookSpecificOutput").is_none(), "{d}");

    let r = env.ok(&["resume", "--add-iterations", "3", "--json"]);
    assert_eq!(r.json()["rearmed"], true, "{}", r.stdout);
    assert_eq!(status(&env, &run).0, "active");
    let max: String = env
        .db()
        .query_row(
            "SELECT settings_json FROM runs WHERE id = ?1",
            [&run],
            |r| r.get(0),
        )
        .unwrap();
    assert!(max.contains("\"max_iterations\":5"), "{max}");
    // The next session binds and is driven: its stop is blocked with the failing evidence.
    let d = hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c3", "startup"),
    );
    assert!(
        d["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or("")
            .contains(&run),
        "{d}"
    );
    let d = hook(&env, "claude", "stop", stop(&env, "c3", false, "Done."));
    assert_eq!(d["decision"], "block", "{d}");
}

/// The Stop's cached verification must follow the exact tree: a one-byte, same-size edit made
/// right after a Stop that reused everything (the tree hash answered from git's cache tree, in
/// the same second) is seen, and the gate runs again on the new tree.
#[test]
fn a_same_size_edit_right_after_a_cached_stop_is_verified_again() {
    let env = project("", "no_progress = 0\nsame_failure = 0");
    env.write("calc.py", CALC_OK);
    // Files older than the index, as in a repository an agent works in: no "racily clean"
    // entry, so git keeps the cache tree and pawl answers the tree hash from it.
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(10);
    for f in ["calc.py", "test_calc.py", "pawl.toml", ".gitignore"] {
        let file = std::fs::File::options()
            .write(true)
            .open(env.root().join(f))
            .unwrap();
        file.set_modified(past).unwrap();
    }
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "fixed"]);
    let run = arm(&env, &[]);
    env.ok(&[
        "criterion",
        "add",
        "a reviewer approves",
        "--verify",
        "review",
    ]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    let last_verification = || -> Value {
        let data: String = env
            .db()
            .query_row(
                "SELECT data_json FROM events WHERE run_id = ?1 AND kind = 'verification' ORDER BY seq DESC LIMIT 1",
                [&run],
                |r| r.get(0),
            )
            .unwrap();
        serde_json::from_str(&data).unwrap()
    };
    // First Stop: the gate runs and passes; the review criterion keeps the run open.
    let b = hook(&env, "claude", "stop", stop(&env, "s1", false, "Done 1."));
    assert_eq!(b["decision"], "block", "{b}");
    let first = last_verification();
    assert_eq!(first["checks"][0]["passed"], true, "{first}");
    // Second Stop on the same tree: everything is reused.
    let b = hook(&env, "claude", "stop", stop(&env, "s1", true, "Done 2."));
    assert_eq!(b["decision"], "block", "{b}");
    let second = last_verification();
    assert_eq!(second["checks"][0]["cached"], true, "{second}");
    assert_eq!(second["tree_hash"], first["tree_hash"]);

    // One byte, same size, at once.
    assert_eq!(CALC_OK.len(), CALC_BUG.len());
    env.write("calc.py", CALC_BUG);
    let b = hook(&env, "claude", "stop", stop(&env, "s1", true, "Done 3."));
    assert_eq!(b["decision"], "block", "{b}");
    let third = last_verification();
    assert_ne!(third["tree_hash"], second["tree_hash"], "{third}");
    assert_eq!(third["checks"][0]["passed"], false, "{third}");
    assert_eq!(third["checks"][0]["cached"], false, "{third}");
    assert!(b["reason"].as_str().unwrap().contains("test_add"), "{b}");
}

/// One Claude Code transcript line: an assistant message with its usage and text.
fn assistant_line(id: &str, text: &str, input: u64, output: u64) -> String {
    json!({"type": "assistant", "uuid": format!("u-{id}"), "message": {"id": id, "model": "claude-sonnet-4-5",
           "role": "assistant", "content": [{"type": "text", "text": text}],
           "usage": {"input_tokens": input, "output_tokens": output,
                     "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
    .to_string()
        + "\n"
}

fn append(path: &std::path::Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[test]
fn session_turns_are_charged_from_the_transcript_and_a_dollar_limit_ends_the_run() {
    // $0.05 at Sonnet list prices ($3 in / $15 out per million): each turn below costs
    // 10,000 × 3 + 1,000 × 15 = $0.045, so the second Stop reaches the limit.
    let env = project(
        "max_iterations = 10\nmax_usd = 0.05",
        "no_progress = 0\nsame_failure = 0\ncriterion_stuck = 0",
    );
    let run = arm(&env, &[]);
    let transcript = env.dir.path().join("session.jsonl");
    // A resumed conversation: what the transcript holds before the session starts is not the
    // run's.
    append(
        &transcript,
        &assistant_line("old", "Earlier work.", 900_000, 90_000),
    );
    let with_transcript = |mut v: Value| {
        v["transcript_path"] = json!(transcript);
        v
    };
    hook(
        &env,
        "claude",
        "session-start",
        with_transcript(session_start(&env, "s1", "resume")),
    );
    // Turn 1: a message over two lines (text, then a tool call) repeating its usage, then the
    // final one.
    append(&transcript, &assistant_line("m1", "Looking.", 5_000, 500));
    append(&transcript, &assistant_line("m1", "Looking.", 5_000, 500));
    append(&transcript, &assistant_line("m2", "Done.", 5_000, 500));
    let first = hook(
        &env,
        "claude",
        "stop",
        with_transcript(stop(&env, "s1", false, "Done.")),
    );
    assert_eq!(first["decision"], "block", "{first}");
    let charged = |n: i64| -> (i64, i64, f64, bool) {
        env.db()
            .query_row(
                "SELECT tokens_in, tokens_out, cost_usd, cost_estimated FROM iterations
                 WHERE run_id = ?1 AND n = ?2",
                rusqlite::params![run, n],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap()
    };
    let (tin, tout, usd, estimated) = charged(1);
    assert_eq!((tin, tout), (10_000, 1_000));
    assert!((usd - 0.045).abs() < 1e-9 && estimated, "{usd}");
    // Turn 2 costs the same; the limit is reached and the stop allowed with the reason.
    append(
        &transcript,
        &assistant_line("m3", "Done again.", 10_000, 1_000),
    );
    let second = hook(
        &env,
        "claude",
        "stop",
        with_transcript(stop(&env, "s1", true, "Done again.")),
    );
    assert!(second.get("decision").is_none(), "{second}");
    assert!(
        second["systemMessage"]
            .as_str()
            .unwrap()
            .contains("max_usd"),
        "{second}"
    );
    assert_eq!(
        status(&env, &run),
        ("stopped".into(), Some("max_usd".into()))
    );
    assert_eq!(charged(2).0, 10_000);
    let total: f64 = env
        .db()
        .query_row(
            "SELECT SUM(cost_usd) FROM iterations WHERE run_id = ?1",
            [&run],
            |r| r.get(0),
        )
        .unwrap();
    assert!((total - 0.09).abs() < 1e-9, "{total}");
}

#[test]
fn an_unreadable_transcript_charges_nothing_and_says_so() {
    let env = project("max_iterations = 3", "no_progress = 0\nsame_failure = 0");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    // A directory where the transcript should be.
    let dir = env.dir.path().join("not-a-file");
    std::fs::create_dir(&dir).unwrap();
    let mut input = stop(&env, "s1", false, "Done.");
    input["transcript_path"] = json!(dir);
    let answer = hook(&env, "claude", "stop", input);
    assert_eq!(answer["decision"], "block", "{answer}");
    assert_eq!(event_count(&env, &run, "usage_unknown"), 1);
    let tokens: i64 = env
        .db()
        .query_row(
            "SELECT tokens_in + tokens_out FROM iterations WHERE run_id = ?1",
            [&run],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tokens, 0);
}

/// The guard of a run judges by the policy the run started with: an agent that rewrites
/// pawl.toml (`allow_unsafe = true`, an allowance for everything) loosens nothing.
#[test]
fn editing_pawl_toml_during_a_run_does_not_loosen_its_guard() {
    let env = project("max_iterations = 5", "no_progress = 0");
    arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    let push = bash(&env, "s1", "git push --force origin HEAD");
    let denied = |answer: &Value| answer["hookSpecificOutput"]["permissionDecision"] == "deny";
    assert!(denied(&hook(&env, "claude", "pre-tool-use", push.clone())));
    // What a bypass of the protected-path rule would leave behind.
    let toml = std::fs::read_to_string(env.root().join("pawl.toml")).unwrap();
    env.write(
        "pawl.toml",
        &format!("{toml}\n[guard]\nallow_unsafe = true\nallowances = [\"**\"]\n"),
    );
    let answer = hook(&env, "claude", "pre-tool-use", push);
    assert!(denied(&answer), "{answer}");
    // (Outside the repository: an untracked directory inside it is now removable anyway, the
    // checkpoint keeping it.)
    let rm = hook(
        &env,
        "claude",
        "pre-tool-use",
        bash(&env, "s1", "rm -rf /opt/projects"),
    );
    assert!(denied(&rm), "{rm}");
    // The file itself did change: `pawl guard check` (the user's tool, current configuration)
    // now allows, which is what a new run would start with.
    assert_eq!(env.pawl(&["guard", "check", "--", "git push"]).code, 0);
}

/// Cleaning build debris through the hook: the guard asks the repository's real index whether
/// a glob or a `find` selects tracked files (the hook forwards the listing lazily).
#[test]
fn the_hook_lets_the_agent_clean_build_debris_but_not_tracked_files() {
    let env = project("max_iterations = 5", "no_progress = 0");
    env.write("pkg/a/node_modules/x.js", "x\n");
    env.write("pkg/b/node_modules/y.js", "y\n");
    env.write("cache/old.pyc", "c\n");
    // Untracked debris makes the tree dirty: the run starts from a snapshot of it.
    arm(&env, &["--allow-dirty"]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    let decision = |cmd: &str| {
        let a = hook(&env, "claude", "pre-tool-use", bash(&env, "s1", cmd));
        a["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("allow")
            .to_string()
    };
    assert_eq!(decision("find . -name '*.pyc' -delete"), "allow");
    assert_eq!(decision("rm -rf pkg/*/node_modules"), "allow");
    // Once a .pyc and a node_modules file are tracked, the same commands would lose work.
    env.git(&["add", "-f", "cache/old.pyc", "pkg/a/node_modules/x.js"]);
    env.git(&["commit", "-q", "-m", "vendored"]);
    assert_eq!(decision("find . -name '*.pyc' -delete"), "deny");
    assert_eq!(decision("rm -rf pkg/*/node_modules"), "deny");
}

/// The session driver's git rails as the agent meets them: armed on `main` (protected), the run
/// works on `pawl/<run>`, where writing and committing tracked files is ordinary work; a commit
/// or a push onto `main` is denied with a reason naming the branch the run really works on.
#[test]
fn a_session_works_on_the_sandbox_branch_and_the_guard_names_it() {
    let env = project("max_iterations = 5", "no_progress = 0");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    let sandbox = format!("pawl/{run}");
    let current = String::from_utf8(env.git(&["branch", "--show-current"]).stdout).unwrap();
    assert_eq!(current.trim(), sandbox, "the session must not work on main");
    let write = json!({"session_id": "s1", "cwd": env.root(), "hook_event_name": "PreToolUse", "tool_name": "Write",
                       "tool_input": {"file_path": env.root().join("calc.py"), "content": CALC_OK}});
    assert_eq!(hook(&env, "claude", "pre-tool-use", write), json!({}));
    assert_eq!(
        hook(
            &env,
            "claude",
            "pre-tool-use",
            bash(&env, "s1", "git commit -am 'fix add'")
        ),
        json!({})
    );
    for cmd in [
        "git checkout main && git commit -am 'fix add'",
        "git push origin main",
    ] {
        let d = hook(&env, "claude", "pre-tool-use", bash(&env, "s1", cmd));
        assert_eq!(
            d["hookSpecificOutput"]["permissionDecision"], "deny",
            "{cmd}: {d}"
        );
        let reason = d["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(reason.contains(&format!("`{sandbox}`")), "{cmd}: {reason}");
        assert!(!reason.contains("pawl publishes"), "{cmd}: {reason}");
    }
}

/// A session bound to a run that works in a linked worktree of the run's repository: the guard
/// judges its commands with that worktree as the repository (its own index), so what it denies
/// in the repository it denies there; the repository itself is out of bounds from there; and
/// ordinary work in the worktree is allowed.
#[test]
fn a_bound_session_in_a_linked_worktree_is_judged_in_that_worktree() {
    let env = project("", "");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c1", "startup"),
    );
    let wt = env.dir.path().join("side");
    env.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        &wt.display().to_string(),
    ]);
    let main = env.root().display().to_string();
    let in_wt = |command: &str| {
        let d = hook(
            &env,
            "claude",
            "pre-tool-use",
            json!({"session_id": "c1", "cwd": wt, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                   "tool_input": {"command": command}, "tool_use_id": "t1"}),
        );
        d["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("allow")
            .to_string()
            + " "
            + d["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap_or("")
    };
    let mut wrong = Vec::new();
    for (command, rule) in [
        (
            "printf '[guard]\\nallow_unsafe = true\\n' > pawl.toml",
            "protected-path",
        ),
        ("git checkout .", "git-destructive"),
        (&format!("echo x >> {main}/calc.py"), "protected-path"),
    ] {
        let got = in_wt(command);
        if !got.starts_with(&format!("deny pawl guard [{rule}]")) {
            wrong.push(format!("{command}: expected deny [{rule}], got {got}"));
        }
    }
    // Overwriting a tracked file is as undoable as `sed -i`: pawl checkpoints before every
    // step (issue 36's principle, docs/guard.md).
    for command in [
        "echo x > calc.py",
        "cp /dev/null test_calc.py",
        "python3 -c 'open(\"test_calc.py\", \"w\")'",
        "sed -i 's/a - b/a + b/' calc.py",
        "echo more >> notes.txt",
        // Restoring a named tracked file from the index: the checkpoint holds its work
        // (session 19; the whole tree, `git checkout .`, stays denied above).
        "git checkout test_calc.py",
        "rm -rf target",
        "python3 -m unittest -q",
        "git add -A && git commit -q -m fix",
    ] {
        let got = in_wt(command);
        if !got.starts_with("allow") {
            wrong.push(format!("{command}: expected allow, got {got}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(event_count(&env, &run, "guard_denied"), 3);
}

/// A session bound to a run, working in the run's repository, writing into a story's worktree
/// (where pawl keeps them, `pawl-worktrees` beside the user's pawl state): that is another
/// agent's work, merged only by the merge queue. Before, the path was judged as a place outside
/// the repository and the writes were allowed; now the worktrees are out of bounds as a whole
/// (`protected-path`), reading them is allowed, and work in the repository goes on.
#[test]
fn a_bound_session_in_the_repository_cannot_write_into_a_story_s_worktree() {
    let env = project("", "");
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c1", "startup"),
    );
    let wt = env
        .dir
        .path()
        .join("home/.local/state/pawl-worktrees/repo-0123456789abcdef/r-1/S1");
    std::fs::create_dir_all(wt.parent().unwrap()).unwrap();
    env.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "pawl/r-1-S1",
        &wt.display().to_string(),
    ]);
    let w = wt.display().to_string();
    let in_repo = |command: &str| {
        let d = hook(
            &env,
            "claude",
            "pre-tool-use",
            json!({"session_id": "c1", "cwd": env.root(), "hook_event_name": "PreToolUse", "tool_name": "Bash",
                   "tool_input": {"command": command}, "tool_use_id": "t1"}),
        );
        d["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("allow")
            .to_string()
            + " "
            + d["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap_or("")
    };
    let mut wrong = Vec::new();
    let denied = [
        format!("echo x > {w}/calc.py"),
        format!("echo x >> {w}/notes.txt"),
        format!("cp calc.py {w}/calc.py"),
        format!("sed -i 's/a - b/a + b/' {w}/calc.py"),
        format!("rm -rf {w}"),
    ];
    for command in &denied {
        let got = in_repo(command);
        // `rm -rf` of it is refused as a recursive delete of something that is not debris.
        let rule = if command.starts_with("rm -rf") {
            "recursive-delete"
        } else {
            "protected-path"
        };
        if !got.starts_with(&format!("deny pawl guard [{rule}]")) {
            wrong.push(format!("{command}: expected deny [{rule}], got {got}"));
        }
    }
    // Other ways to the same end: from inside it, through a link, through git, through an
    // interpreter, through a program that writes its output file.
    let other_ways = [
        format!("cd {w} && echo x > calc.py"),
        format!("ln -s {w} wt && echo x > wt/calc.py"),
        format!("git -C {w} checkout -- calc.py"),
        format!("python3 -c \"open('{w}/calc.py', 'w').write('x')\""),
        format!("echo x | tee {w}/calc.py"),
        format!("mv calc.py {w}/calc.py"),
    ];
    for command in &other_ways {
        let got = in_repo(command);
        if !got.starts_with("deny") {
            wrong.push(format!("{command}: expected deny, got {got}"));
        }
    }
    for command in [
        format!("cat {w}/calc.py"),
        format!("diff calc.py {w}/calc.py"),
        "echo more >> notes.txt".to_string(),
    ] {
        let got = in_repo(&command);
        if !got.starts_with("allow") {
            wrong.push(format!("{command}: expected allow, got {got}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        event_count(&env, &run, "guard_denied"),
        (denied.len() + other_ways.len()) as i64
    );
}

/// A story's agent whose worktree pawl cannot find (or whose `PAWL_STORY` names no story): the
/// guard cannot tell what the command would touch, so every tool call is denied (fail closed).
#[test]
fn a_story_whose_worktree_cannot_be_read_is_denied_everything() {
    let env = TestEnv::new();
    let run = env.manual_run("headless guard");
    for story in ["S9", "../S9"] {
        let vars = [
            ("PAWL_DRIVER", "headless"),
            ("PAWL_RUN_ID", run.as_str()),
            ("PAWL_STORY", story),
        ];
        let d = hook_env(
            &env,
            "claude",
            "PreToolUse",
            bash(&env, "h1", "ls -la"),
            &vars,
        );
        assert_eq!(d["hookSpecificOutput"]["permissionDecision"], "deny", "{d}");
        let why = d["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(why.contains("fail closed"), "{why}");
    }
}

/// A session started in a linked worktree inside the repository (where Claude Code's
/// `--worktree` makes them) while a run is armed in the main checkout: it works on the
/// worktree's tree, so it is not that run's session — before, the walk up from its directory
/// found the main checkout's marker and bound it to a run whose checks look at another tree.
/// A session of the worktree's own run is found from the worktree's directory.
#[test]
fn a_session_in_a_linked_worktree_finds_the_worktree_s_run_not_the_main_checkout_s() {
    let env = project("", "");
    env.write(".gitignore", ".wt/\n");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "ignore worktrees"]);
    let main_run = arm(&env, &[]);
    let wt = env.root().join(".wt/side");
    env.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        &wt.display().to_string(),
    ]);
    let start_in = |session: &str| json!({"session_id": session, "transcript_path": "/t", "cwd": wt, "hook_event_name": "SessionStart", "source": "startup"});
    let bound = |session: &str| -> i64 {
        env.db()
            .query_row(
                "SELECT COUNT(*) FROM session_bindings WHERE session_id = ?1",
                [session],
                |r| r.get(0),
            )
            .unwrap()
    };
    assert_eq!(
        hook(&env, "claude", "session-start", start_in("w1")),
        json!({}),
        "the main checkout's run took a session of the worktree"
    );
    assert_eq!(bound("w1"), 0);
    // Its tools are not judged by the main checkout's run either.
    let call = json!({"session_id": "w1", "cwd": wt, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": "echo x > calc.py"}, "tool_use_id": "t1"});
    assert_eq!(hook(&env, "claude", "pre-tool-use", call), json!({}));
    assert_eq!(event_count(&env, &main_run, "guard_denied"), 0);
    // The main checkout's own sessions still bind to it.
    let a = hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "m1", "startup"),
    );
    assert!(
        a["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .is_some_and(|c| c.contains(&main_run)),
        "{a}"
    );
    // A run armed in the worktree (pawl.toml is tracked; Claude Code reads the worktree's own
    // settings, so the hooks go there) is found from there.
    env.ok(&["-C", &wt.display().to_string(), "init", "--agent", "claude"]);
    let r = env.ok(&[
        "-C",
        &wt.display().to_string(),
        "run",
        "--driver",
        "session",
        "make add() add",
        "--json",
        "--allow-dirty",
    ]);
    let wt_run = r.json()["run_id"].as_str().unwrap().to_string();
    let a = hook(&env, "claude", "session-start", start_in("w2"));
    assert!(
        a["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .is_some_and(|c| c.contains(&wt_run)),
        "{a}"
    );
    let in_wt: String = rusqlite::Connection::open(wt.join(".pawl/pawl.db"))
        .unwrap()
        .query_row(
            "SELECT run_id FROM session_bindings WHERE session_id = 'w2'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(in_wt, wt_run);
    assert_eq!(bound("w2"), 0, "not the main checkout's");
}

/// Arming in a linked worktree where the agent's CLI will not load pawl's hooks — Codex reads
/// a worktree's project hooks from the main checkout only; Claude Code reads the worktree's
/// own settings, which it lacks when they are not tracked — is refused with where they must
/// go, before anything is armed; once installed there, it arms.
#[test]
fn arming_in_a_linked_worktree_needs_the_hooks_where_the_agent_cli_loads_them() {
    for agent in ["codex", "claude"] {
        let env = TestEnv::new();
        env.write("calc.py", CALC_BUG);
        env.write("test_calc.py", TEST_CALC);
        env.write(
            "pawl.toml",
            &format!("[agent]\nkind = \"{agent}\"\n\n[gates]\ntest = \"python3 -m unittest -q\"\n"),
        );
        env.write(".gitignore", ".pawl/\n.codex/\n.claude/\n");
        env.git(&["add", "-A"]);
        env.git(&["commit", "-q", "-m", "project"]);
        let wt = env.dir.path().join("side");
        let wt_s = wt.display().to_string();
        env.git(&["worktree", "add", "-q", "-b", "side", &wt_s]);
        // Codex: hooks installed in the worktree only (which Codex ignores). Claude: in the
        // main checkout only (untracked: the worktree has none).
        let installed_in = if agent == "codex" {
            wt_s.clone()
        } else {
            env.root().display().to_string()
        };
        env.ok(&["-C", &installed_in, "init", "--agent", agent]);
        let args = ["-C", &wt_s, "run", "--driver", "session", "make add() add"];
        let r = env.pawl(&args);
        assert_ne!(r.code, 0, "{agent}: armed without hooks\n{}", r.stdout);
        let wanted = if agent == "codex" {
            env.root().join(".codex/hooks.json")
        } else {
            wt.join(".claude/settings.json")
        };
        assert!(
            r.stderr.contains("linked worktree")
                && r.stderr.contains(&wanted.display().to_string()),
            "{agent}: {}",
            r.stderr
        );
        assert!(!wt.join(".pawl/session.json").exists(), "{agent}: armed");
        // Installed where the CLI loads them: it arms.
        let there = if agent == "codex" {
            env.root().display().to_string()
        } else {
            wt_s.clone()
        };
        env.ok(&["-C", &there, "init", "--agent", agent]);
        let r = env.ok(&args);
        assert!(r.stdout.contains("armed"), "{agent}: {}", r.stdout);
        assert!(wt.join(".pawl/session.json").exists());
        if agent == "codex" {
            // The worktree's own `.codex/` folder, without which Codex loads no project hooks.
            assert!(wt.join(".codex").is_dir());
        }
    }
}

/// `pawl resume` of a session run in a linked worktree arms it again only where the agent's
/// CLI will load pawl's hooks, as the first arming does.
#[test]
fn resuming_in_a_linked_worktree_needs_the_hooks_where_the_agent_cli_loads_them() {
    let env = TestEnv::new();
    env.write("calc.py", CALC_BUG);
    env.write("test_calc.py", TEST_CALC);
    env.write(
        "pawl.toml",
        "[agent]\nkind = \"codex\"\n\n[gates]\ntest = \"python3 -m unittest -q\"\n",
    );
    env.write(".gitignore", ".pawl/\n.codex/\n");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "project"]);
    let wt = env.dir.path().join("side");
    let wt_s = wt.display().to_string();
    env.git(&["worktree", "add", "-q", "-b", "side", &wt_s]);
    env.ok(&["init", "--agent", "codex"]);
    let r = env.ok(&[
        "-C",
        &wt_s,
        "run",
        "--driver",
        "session",
        "make add() add",
        "--json",
    ]);
    let run = r.json()["run_id"].as_str().unwrap().to_string();
    env.ok(&["-C", &wt_s, "off"]);
    assert!(!wt.join(".pawl/session.json").exists());
    // The hooks leave the main checkout: a resumed session would run unguarded.
    env.ok(&["init", "--remove", "--agent", "codex"]);
    let r = env.pawl(&["-C", &wt_s, "resume", &run]);
    assert_ne!(r.code, 0, "re-armed without hooks\n{}", r.stdout);
    assert!(r.stderr.contains("linked worktree"), "{}", r.stderr);
    assert!(!wt.join(".pawl/session.json").exists(), "re-armed");
    env.ok(&["init", "--agent", "codex"]);
    env.ok(&["-C", &wt_s, "resume", &run]);
    assert!(wt.join(".pawl/session.json").exists());
}

/// How many times the `test` gate of `run` actually ran (evidence rows not reused from
/// another): the check's own record of each run. (The checks run contained in the room, where
/// nothing they write outside it survives: their evidence is what counts them.)
fn gate_runs(env: &TestEnv, run: &str) -> i64 {
    env.db()
        .query_row(
            "SELECT COUNT(*) FROM evidence WHERE run_id = ?1 AND gate = 'test' AND reused_from IS NULL",
            [run],
            |r| r.get(0),
        )
        .unwrap()
}

fn last_verification(env: &TestEnv, run: &str) -> Value {
    let data: String = env
        .db()
        .query_row(
            "SELECT data_json FROM events WHERE run_id = ?1 AND kind = 'verification' ORDER BY seq DESC LIMIT 1",
            [run],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str(&data).unwrap()
}

/// Files older than the index, as in a repository an agent works in (no racily clean entry).
fn settle(env: &TestEnv, files: &[&str]) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(10);
    for f in files {
        std::fs::File::options()
            .write(true)
            .open(env.root().join(f))
            .unwrap()
            .set_modified(past)
            .unwrap();
    }
}

/// A `test`-class failure on the same tree, seal and environment is the same failure: the
/// Stop shows it again (its first failure) without running the check. A tampered tree (a
/// same-size edit with its mtime put back) or a changed environment runs it again.
#[test]
fn a_failing_test_check_on_an_unchanged_tree_is_not_run_again_at_each_stop() {
    let env = project("", "no_progress = 0\nsame_failure = 0");
    env.write(".gitignore", ".pawl/\n.venv/\n");
    settle(
        &env,
        &["calc.py", "test_calc.py", "pawl.toml", ".gitignore"],
    );
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "ignore the environment"]);
    let run = arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "s1", "startup"),
    );
    let b = hook(&env, "claude", "stop", stop(&env, "s1", false, "Done 1."));
    assert_eq!(b["decision"], "block", "{b}");
    assert_eq!(gate_runs(&env, &run), 1);
    let first = last_verification(&env, &run);
    assert_eq!(first["checks"][0]["category"], "test", "{first}");
    assert!(
        first["tree_stamp"].is_string(),
        "a settled tree is stamped: {first}"
    );

    for n in 2..4 {
        let b = hook(
            &env,
            "claude",
            "stop",
            stop(&env, "s1", true, &format!("Done {n}.")),
        );
        assert_eq!(b["decision"], "block", "{b}");
        let reason = b["reason"].as_str().unwrap();
        assert!(
            reason.contains("test_add"),
            "the failure is shown again: {reason}"
        );
        let v = last_verification(&env, &run);
        assert_eq!(
            gate_runs(&env, &run),
            1,
            "stop {n} ran the failing check again: tree {} / {}, stamp {} / {}, environment {} / {}",
            first["tree_hash"],
            v["tree_hash"],
            first["tree_stamp"],
            v["tree_stamp"],
            first["env_print"],
            v["env_print"]
        );
        assert_eq!(v["checks"][0]["cached"], true, "{v}");
        assert_eq!(
            v["checks"][0]["first_failure"],
            first["checks"][0]["first_failure"]
        );
    }

    // The environment changed (a virtualenv appeared): the failure may be gone, run again.
    std::fs::create_dir_all(env.root().join(".venv/lib")).unwrap();
    let b = hook(&env, "claude", "stop", stop(&env, "s1", true, "Done env."));
    assert_eq!(b["decision"], "block", "{b}");
    assert_eq!(
        gate_runs(&env, &run),
        2,
        "a changed environment runs the check again"
    );

    // A same-size edit with the old mtime put back: the tree is not the stamped one.
    std::thread::sleep(std::time::Duration::from_millis(50));
    let b = hook(
        &env,
        "claude",
        "stop",
        stop(&env, "s1", true, "Done settled."),
    );
    assert_eq!(b["decision"], "block", "{b}");
    assert_eq!(gate_runs(&env, &run), 2);
    let test_file = env.root().join("test_calc.py");
    let mtime = std::fs::metadata(&test_file).unwrap().modified().unwrap();
    env.write("test_calc.py", &TEST_CALC.replace("(2, 3), 5", "(2, 3), 6"));
    std::fs::File::options()
        .write(true)
        .open(&test_file)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let b = hook(
        &env,
        "claude",
        "stop",
        stop(&env, "s1", true, "Done tampered."),
    );
    assert_eq!(b["decision"], "block", "{b}");
    assert_eq!(
        gate_runs(&env, &run),
        3,
        "a tampered tree runs the check again"
    );
    let v = last_verification(&env, &run);
    assert_ne!(v["tree_hash"], first["tree_hash"], "{v}");
}

/// A failure the machine may have caused (infra, timeout) is never reused: the Stop hands it to
/// the user, and once the user resumes the run, the next Stop on the very same tree runs the
/// check again.
#[test]
fn a_failing_infra_or_timeout_check_is_run_again_on_the_same_tree() {
    for (output, class) in [
        ("upstream: connection reset by peer", "infra"),
        ("error: operation timed out after 30s", "timeout"),
    ] {
        let env = TestEnv::new();
        env.ok(&["init"]);
        env.write(
            "pawl.toml",
            &format!(
                "[agent]\nkind = \"claude\"\n\n[breakers]\nno_progress = 0\nsame_failure = 0\n\n[gates]\ntest = \"echo '{output}' >&2; exit 1\"\n"
            ),
        );
        settle(&env, &["pawl.toml", "README.md"]);
        env.git(&["add", "-A"]);
        env.git(&["commit", "-q", "-m", "project"]);
        let run = arm(&env, &[]);
        let mut trees = Vec::new();
        for n in 1..3 {
            if n > 1 {
                // The user says the service is back (the check is run again by pawl anyway).
                env.ok(&["user-fixed", "--force", "--notes", "the service is back"]);
                env.pawl(&["resume", "--json"]);
                assert_eq!(status(&env, &run).0, "active");
            }
            let session = format!("s{n}");
            hook(
                &env,
                "claude",
                "session-start",
                session_start(&env, &session, "startup"),
            );
            let before = gate_runs(&env, &run);
            let b = hook(&env, "claude", "stop", stop(&env, &session, false, "Done."));
            assert!(b.is_object(), "{b}");
            let v = last_verification(&env, &run);
            assert_eq!(v["checks"][0]["category"], class, "{v}");
            assert_eq!(v["checks"][0]["cached"], false, "{v}");
            assert_eq!(
                gate_runs(&env, &run),
                before + 1,
                "{class}: stop {n} did not run the check: {b} {:?}",
                status(&env, &run)
            );
            trees.push(v["tree_hash"].clone());
        }
        assert_eq!(trees[0], trees[1], "{class}: the same tree both times");
    }
}
