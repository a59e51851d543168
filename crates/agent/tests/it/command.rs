//! The command agent with `sh -c`: prompt on stdin and in the environment, lines to events.

use pawl_agent::AgentEvent;
use pawl_agent::command::CommandAdapter;

use crate::common::{request, run_step};

#[test]
fn a_shell_agent_gets_the_prompt_and_its_lines_become_events() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
read -r line
echo "stdin: $line"
echo "env: $PAWL_PROMPT / $PAWL_RUN_ID / $PAWL_ITERATION"
echo '{"type":"file_edited","path":"src/lib.rs"}'
env | grep -c '^CARGO_' | sed 's/^/cargo vars: /'
echo oops >&2
"#;
    let mut adapter = CommandAdapter::new(vec!["sh".into(), "-c".into(), script.into()]).unwrap();
    let run = run_step(
        &mut adapter,
        &request(dir.path(), 3, "fix the tests"),
        |_| {},
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let texts: Vec<&str> = run
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        texts,
        [
            "stdin: fix the tests",
            "env: fix the tests / run-test / 3",
            "cargo vars: 0"
        ]
    );
    assert!(run.events.contains(&AgentEvent::FileEdited {
        path: "src/lib.rs".into()
    }));
    assert!(run.stderr.contains("oops"));
    assert!(matches!(
        run.result(),
        Some(AgentEvent::Result {
            is_error: false,
            ..
        })
    ));
}

#[test]
fn a_failing_command_is_an_error_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut adapter =
        CommandAdapter::new(vec!["sh".into(), "-c".into(), "echo nope; exit 5".into()]).unwrap();
    let run = run_step(&mut adapter, &request(dir.path(), 1, "x"), |_| {});
    assert_eq!(run.code, Some(5));
    assert!(matches!(
        run.result(),
        Some(AgentEvent::Result { is_error: true, subtype: Some(s), .. }) if s == "exit_5"
    ));
}
