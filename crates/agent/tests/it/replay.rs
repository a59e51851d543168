//! The replay agent as a real child process (the `pawl-replay` helper binary, which takes the
//! same arguments as the CLI's hidden `pawl __replay`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use pawl_agent::replay::ReplayAdapter;
use pawl_agent::{AgentEvent, Usage};
use pawl_process::End;

use crate::common::{request, run_step};

fn adapter(dir: &Path, scenario: &str) -> ReplayAdapter {
    let path = dir.join("scenario.jsonl");
    std::fs::write(&path, scenario).unwrap();
    ReplayAdapter::new(path)
        .unwrap()
        .program(PathBuf::from(env!("CARGO_BIN_EXE_pawl-replay")))
}

const TWO_STEPS: &str = r#"{"scenario": {"name": "two steps", "session_id": "sess-1", "after_last": "fail"}}
{"step": 1}
{"do": "text", "text": "Creating hello.txt."}
{"do": "write", "path": "hello.txt", "content": "hello\n"}
{"do": "usage", "input_tokens": 1200, "output_tokens": 34, "cost_usd": 0.01}
{"step": 2}
{"do": "edit", "path": "hello.txt", "old": "hello", "new": "bye"}
{"do": "rate_limited", "message": "slow down", "retry_after_secs": 2}
{"do": "permission_denied", "tool": "Bash", "detail": "rm -rf /"}
{"do": "claim_done", "text": "all done"}
{"do": "exit", "code": 4}
"#;

#[test]
fn steps_run_in_order_as_child_processes() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let mut adapter = adapter(dir.path(), TWO_STEPS);

    let one = run_step(&mut adapter, &request(&work, 1, "go"), |_| {});
    assert_eq!(one.code, Some(0), "{one:?}");
    assert_eq!(one.session_id(), Some("sess-1"));
    assert_eq!(
        std::fs::read_to_string(work.join("hello.txt")).unwrap(),
        "hello\n"
    );
    assert!(one.events.contains(&AgentEvent::FileEdited {
        path: "hello.txt".into()
    }));
    let Some(AgentEvent::Result {
        usage,
        cost_usd,
        is_error: false,
        ..
    }) = one.result()
    else {
        panic!("{one:?}")
    };
    assert_eq!(
        *usage,
        Usage {
            input_tokens: 1200,
            output_tokens: 34,
            ..Usage::default()
        }
    );
    assert_eq!(*cost_usd, Some(0.01));

    let two = run_step(&mut adapter, &request(&work, 2, "go on"), |_| {});
    assert_eq!(two.code, Some(4));
    assert_eq!(
        std::fs::read_to_string(work.join("hello.txt")).unwrap(),
        "bye\n"
    );
    assert!(two.events.contains(&AgentEvent::RateLimited {
        retry_after: Some(Duration::from_secs(2)),
        message: "slow down".into()
    }));
    assert!(two.events.contains(&AgentEvent::PermissionDenied {
        tool: "Bash".into(),
        detail: "rm -rf /".into()
    }));
    assert!(two.events.contains(&AgentEvent::ClaimDone {
        text: "all done".into()
    }));
    assert!(matches!(
        two.result(),
        Some(AgentEvent::Result { is_error: true, .. })
    ));

    // after_last = "fail": a third iteration is an error step.
    let three = run_step(&mut adapter, &request(&work, 3, "more"), |_| {});
    assert_eq!(three.code, Some(1));
    assert!(three.events.iter().any(|e| matches!(
        e,
        AgentEvent::Error {
            recoverable: false,
            ..
        }
    )));
}

#[test]
fn a_hanging_step_is_stopped_by_the_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // The idle clock starts at spawn, so on a loaded machine a short idle timeout can strike
    // before the helper has even printed its first event; that is load, not the behaviour under
    // test, so the timeout doubles until the first event makes it in.
    let mut idle = Duration::from_millis(700);
    let run = loop {
        let mut adapter = adapter(
            dir.path(),
            "{\"do\": \"text\", \"text\": \"thinking\"}\n{\"do\": \"hang\"}\n",
        );
        let run = run_step(&mut adapter, &request(dir.path(), 1, "go"), |cmd| {
            cmd.idle_timeout(idle).grace(Duration::from_millis(200));
        });
        let thinking = AgentEvent::Text {
            text: "thinking".into(),
        };
        if run.events.contains(&thinking) || idle >= Duration::from_secs(60) {
            break run;
        }
        idle *= 2;
    };
    assert_eq!(run.end, End::IdleTimedOut, "{run:?}");
    // What it printed before hanging arrived (it was flushed), and no result did.
    assert!(run.events.contains(&AgentEvent::Text {
        text: "thinking".into()
    }));
    assert!(run.result().is_none());
    assert!(run.wall >= idle, "{:?}", run.wall);
    // The step hangs for an hour: ending under this bound proves the idle timeout stopped it.
    assert!(run.wall < Duration::from_secs(120), "{:?}", run.wall);
}

#[test]
fn sleep_then_shell_command_then_silent_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut adapter = adapter(
        dir.path(),
        r#"{"do": "sleep", "ms": 50}
{"do": "run", "command": "printf '%s' \"$PAWL_ITERATION\" > iteration.txt"}
{"do": "exit", "code": 137, "silent": true}
"#,
    );
    let run = run_step(&mut adapter, &request(dir.path(), 1, "go"), |_| {});
    assert_eq!(run.code, Some(137));
    assert!(run.result().is_none(), "a silent exit prints no result");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("iteration.txt")).unwrap(),
        "1"
    );
}

#[test]
fn bad_scenario_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(
        &path,
        "{\"step\": 1}\n{\"do\": \"write\", \"path\": \"/etc/x\", \"content\": \"\"}\n",
    )
    .unwrap();
    let err = ReplayAdapter::new(&path).unwrap_err().to_string();
    assert!(err.contains("line 2") && err.contains("relative"), "{err}");
}
