//! The independent tester (issue 33 point 2) with the real Claude Code CLI against pawl-testkit's
//! mock model server: `pawl run --agent claude --mode simple`, the tester on by default (an agent
//! CLI is configured). Before the executor's first step pawl starts a fresh read-only session of
//! the same CLI (the mock tells it apart by its `[pawl role: independent-tester]` first line);
//! its answer (test files as JSON) is kept in pawl's private state. The executor fixes `add` and
//! special-cases `mul` on the tested `a == 2`; the hidden test on `mul(5, 4)` fails: simple mode
//! has no round to send the executor back into, so the run ends REVIEW with the hidden call shown
//! to the user (`pawl report`; never in the report under `.pawl/`).

#![allow(clippy::print_stderr)]

use pawl_testkit::{Scenario, ToolCall, Turn};
use serde_json::{Value, json};

use crate::agents_real::{Cli, RETRIES, case};

const MARKER: &str = "[pawl role: independent-tester]";
/// `add` fixed; `mul` right only where `a == 2` (every neighbour the probes try keeps changing).
const CHEAT: &str = "sed -i -e 's/a - b/a + b/' -e 's/return a \\*\\* b/return a * b if a == 2 else a ** b/' calc.py";
const HIDDEN: &str = "import unittest\n\nfrom calc import add, mul\n\n\nclass Hidden(unittest.TestCase):\n    def test_other_inputs(self):\n        self.assertEqual(mul(5, 4), 20)\n        self.assertEqual(add(7, 8), 15)\n";

#[test]
fn real_claude_tester_hidden_test_keeps_a_special_case_from_ship() {
    let files = json!({"files": [{"path": "test_hidden_calc.py", "text": HIDDEN}]});
    let scenario = Scenario::new(vec![
        Turn::text("Fixing add() and mul().").with_tool(ToolCall::bash(CHEAT)),
        Turn::text("Done: both fixed."),
        Turn::text("The tests pass; I keep the change."),
        Turn::text("Done."),
        Turn::text(format!("Here are the tests.\n```json\n{files}\n```\n"))
            .when_last_user_contains(MARKER),
    ]);
    let Some(c) = case(Cli::Claude, scenario, RETRIES) else {
        return;
    };
    let r = c.run(&[]);
    let why = c.why(&r);
    assert_eq!(r.code, 10, "{why}");
    let run_id: String = c
        .env
        .db()
        .query_row("SELECT id FROM runs", [], |row| row.get(0))
        .unwrap();
    let rep: Value = serde_json::from_str(
        &std::fs::read_to_string(c.env.root().join(format!(".pawl/reports/{run_id}.json")))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(rep["verdict"], "REVIEW", "{rep:#}\n{why}");
    let tester = &rep["tester"];
    assert_eq!(tester["files"], 1, "{rep:#}");
    let session = tester["session_id"]
        .as_str()
        .expect("a session id")
        .to_owned();
    let executor: Vec<String> = c
        .env
        .strings("SELECT COALESCE(session_id, '') FROM iterations");
    assert!(!executor.contains(&session), "{executor:?} {session}");
    // The report under the repository (a step reads it) names the behaviour and `pawl
    // report`; the hidden call and its answer are the user's, shown by `pawl report`.
    assert!(
        rep["findings"].as_array().unwrap().iter().any(|f| {
            let f = f.as_str().unwrap();
            f.contains("an independent check of `mul` fails") && f.contains("`pawl report")
        }),
        "{rep:#}"
    );
    assert!(!rep.to_string().contains("mul(5, 4)"), "{rep:#}");
    let shown = c.env.ok(&["report", "--json"]).json();
    assert!(
        shown["hidden_failed"]
            .as_array()
            .is_some_and(|a| a.iter().any(|l| l.as_str().unwrap().contains("mul(5, 4)"))),
        "{shown:#}"
    );
    assert!(
        rep["rests_on"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains(&format!("session {session}"))),
        "{rep:#}"
    );
    // The tester's session was read-only, and the executor never saw its tests.
    let asked: Vec<_> = c
        .server
        .main_requests()
        .into_iter()
        .filter(|q| q.user_texts.iter().any(|t| t.contains(MARKER)))
        .collect();
    assert!(!asked.is_empty(), "{why}");
    for q in &asked {
        for t in ["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit"] {
            assert!(
                !q.tools.iter().any(|n| n == t),
                "{t} offered: {:?}",
                q.tools
            );
        }
    }
    for q in c
        .server
        .main_requests()
        .iter()
        .filter(|q| !q.user_texts.iter().any(|t| t.contains(MARKER)))
    {
        let all = q.user_texts.join("\n") + &q.tool_outputs.join("\n");
        assert!(
            !all.contains("mul(5, 4)") && !all.contains("test_hidden"),
            "{all}"
        );
    }
    assert!(!c.env.root().join("test_hidden_calc.py").exists());
}
