//! Running one step of an adapter the way the engine does: spawn, stream lines, parse, finish.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use pawl_agent::{Adapter, AgentEvent, StepRequest};
use pawl_process::{End, Stream};

/// What one step produced.
#[derive(Debug)]
pub struct StepRun {
    pub events: Vec<AgentEvent>,
    pub end: End,
    pub code: Option<i32>,
    pub stderr: String,
    pub wall: Duration,
}

impl StepRun {
    pub fn session_id(&self) -> Option<&str> {
        self.events.iter().find_map(|e| match e {
            AgentEvent::SessionStarted { session_id, .. } => Some(session_id.as_str()),
            _ => None,
        })
    }

    pub fn result(&self) -> Option<&AgentEvent> {
        self.events
            .iter()
            .rev()
            .find(|e| matches!(e, AgentEvent::Result { .. }))
    }
}

pub fn request(cwd: &Path, iteration: u32, prompt: &str) -> StepRequest {
    StepRequest {
        prompt: prompt.into(),
        cwd: cwd.to_owned(),
        run_id: "run-test".into(),
        iteration,
        resume_session: None,
        session_spent_usd: None,
        model: None,
        env: Vec::new(),
    }
}

/// Spawns the adapter's command with `tweak` applied (timeouts), streams lines into the parser.
pub fn run_step(
    adapter: &mut dyn Adapter,
    req: &StepRequest,
    tweak: impl FnOnce(&mut pawl_process::Command),
) -> StepRun {
    let mut cmd = adapter.command(req).unwrap();
    tweak(&mut cmd);
    let (tx, rx) = mpsc::channel();
    cmd.line_sink(tx);
    let started = std::time::Instant::now();
    let running = cmd.spawn().unwrap();
    // The command holds a clone of the sender: drop it, or the line loop never ends.
    drop(cmd);
    let mut events = Vec::new();
    let mut stderr = String::new();
    for line in rx {
        let text = line.text().into_owned();
        match line.stream {
            Stream::Stdout => events.extend(adapter.parse_stdout(&text)),
            Stream::Stderr => {
                stderr.push_str(&text);
                stderr.push('\n');
                events.extend(adapter.parse_stderr(&text));
            }
        }
    }
    let outcome = running.wait().unwrap();
    let code = outcome.code();
    events.extend(adapter.finish(code));
    StepRun {
        events,
        end: outcome.end,
        code,
        stderr,
        wall: started.elapsed(),
    }
}
