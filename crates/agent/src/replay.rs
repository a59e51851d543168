//! The scripted agent: a JSONL scenario of events, file writes and edits, shell commands, sleeps,
//! hangs and exits, replayed one step per iteration.
//!
//! It is how pawl's own tests and `pawl demo` are deterministic, and how a user tries a
//! `pawl.toml` without spending tokens. The replay agent runs as a real child process (the CLI's
//! hidden `pawl __replay --scenario <file> --step <n>`, which calls [`execute`]), so timeouts,
//! process groups and kill -9 behave exactly as with a real agent. The child prints pawl's own
//! event stream: one [`AgentEvent`] per line in its serde form.
//!
//! The format is in [`scenario`] and, for users, in `crates/agent/README.md`.
//!
//! What this module is not: a model simulator (that is pawl-testkit's mock server, for driving
//! the real CLIs) or a sandbox: a scenario runs its shell commands for real.

pub mod scenario;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use pawl_core::config::AgentKind;

use crate::{Adapter, AgentError, AgentEvent, StepRequest, Usage, env};
use scenario::{Action, Choice};
pub use scenario::{AfterLast, Scenario, ScenarioError, parse};

/// The hidden CLI subcommand that runs one replay step.
pub const SUBCOMMAND: &str = "__replay";

/// The session id each step reports unless the scenario header names one.
pub const DEFAULT_SESSION_ID: &str = "replay";

/// Errors of one replay step (the scenario itself, or writing the event stream).
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("replay scenario: {0}")]
    Scenario(#[from] ScenarioError),
    #[error("replay step {0}: steps are numbered from 1")]
    StepZero(u32),
    #[error("replay: cannot write the event stream: {0}")]
    Output(#[source] io::Error),
}

/// The arguments after the program for one step: `__replay --scenario <file> --step <n>`.
pub fn args(scenario: &Path, step: u32) -> Vec<OsString> {
    vec![
        SUBCOMMAND.into(),
        "--scenario".into(),
        scenario.as_os_str().to_owned(),
        "--step".into(),
        step.to_string().into(),
    ]
}

/// Runs step `step_index` (1-based) of the scenario in `cwd`, printing pawl's event stream to
/// `out` (one JSON object per line, flushed after each). Returns the exit code the step ends
/// with. Never returns if the step hangs (that is what `{"do": "hang"}` is for).
///
/// Which step runs: step N for iteration N; past the last step, the header's `after_last`
/// decides (`repeat` the last step — the default —, `idle`, or `fail`).
pub fn execute(
    scenario_text: &str,
    step_index: u32,
    cwd: &Path,
    out: &mut impl Write,
) -> Result<i32, ReplayError> {
    let scenario = parse(scenario_text)?;
    if step_index == 0 {
        return Err(ReplayError::StepZero(step_index));
    }
    let mut step = Run {
        out,
        cwd,
        usage: Usage::default(),
        cost: None,
        last_text: None,
    };
    step.emit(&AgentEvent::SessionStarted {
        session_id: scenario
            .header
            .session_id
            .clone()
            .unwrap_or_else(|| DEFAULT_SESSION_ID.to_owned()),
        model: Some(
            scenario
                .header
                .model
                .clone()
                .unwrap_or_else(|| "replay".to_owned()),
        ),
    })?;
    let code = match scenario.choose(step_index) {
        Choice::Idle => 0,
        Choice::Fail => {
            step.emit(&AgentEvent::Error {
                message: format!(
                    "the replay scenario has {} step(s) and after_last = \"fail\"; step {step_index} was requested",
                    scenario.steps.len()
                ),
                recoverable: false,
            })?;
            1
        }
        Choice::Step(chosen) => {
            for located in &chosen.actions {
                match step.act(&located.action, located.line)? {
                    Flow::Continue => {}
                    Flow::Exit { code, silent: true } => return Ok(code),
                    Flow::Exit {
                        code,
                        silent: false,
                    } => return step.finish(code),
                }
            }
            0
        }
    };
    step.finish(code)
}

enum Flow {
    Continue,
    Exit { code: i32, silent: bool },
}

/// The state of one step while it runs.
struct Run<'a, W: Write> {
    out: &'a mut W,
    cwd: &'a Path,
    usage: Usage,
    cost: Option<f64>,
    last_text: Option<String>,
}

impl<W: Write> Run<'_, W> {
    fn emit(&mut self, event: &AgentEvent) -> Result<(), ReplayError> {
        writeln!(self.out, "{}", event.to_json_line()).map_err(ReplayError::Output)?;
        self.out.flush().map_err(ReplayError::Output)
    }

    fn finish(&mut self, code: i32) -> Result<i32, ReplayError> {
        self.emit(&AgentEvent::Result {
            is_error: code != 0,
            subtype: Some(if code == 0 { "success" } else { "error" }.to_owned()),
            text: self.last_text.clone(),
            usage: self.usage,
            cost_usd: self.cost,
            cost_estimated: false,
            num_turns: Some(1),
        })?;
        Ok(code)
    }

    fn act(&mut self, action: &Action, line: usize) -> Result<Flow, ReplayError> {
        let call_id = Some(format!("replay-{line}"));
        match action {
            Action::Text { text } => {
                self.last_text = Some(text.clone());
                self.emit(&AgentEvent::Text { text: text.clone() })?;
            }
            Action::ToolCall { name, input, id } => self.emit(&AgentEvent::ToolCall {
                id: id.clone(),
                name: name.clone(),
                input: input.clone(),
            })?,
            Action::ToolResult {
                id,
                output,
                is_error,
            } => self.emit(&AgentEvent::ToolResult {
                id: id.clone(),
                is_error: *is_error,
                output: output.clone(),
            })?,
            Action::PermissionDenied { tool, detail } => {
                self.emit(&AgentEvent::PermissionDenied {
                    tool: tool.clone(),
                    detail: detail.clone(),
                })?;
            }
            Action::RateLimited {
                message,
                retry_after_secs,
            } => self.emit(&AgentEvent::RateLimited {
                retry_after: retry_after_secs.map(Duration::from_secs),
                message: message.clone(),
            })?,
            Action::Error {
                message,
                recoverable,
            } => self.emit(&AgentEvent::Error {
                message: message.clone(),
                recoverable: *recoverable,
            })?,
            Action::Emit { event } => self.emit(event)?,
            Action::Write { path, content } => {
                self.emit(&AgentEvent::ToolCall {
                    id: call_id.clone(),
                    name: "Write".into(),
                    input: serde_json::json!({ "file_path": path, "content": content }),
                })?;
                let result = write_file(&self.cwd.join(path), content);
                self.tool_outcome(call_id, path, result)?;
            }
            Action::Edit {
                path,
                old,
                new,
                all,
            } => {
                self.emit(&AgentEvent::ToolCall {
                    id: call_id.clone(),
                    name: "Edit".into(),
                    input: serde_json::json!({
                        "file_path": path, "old_string": old, "new_string": new, "replace_all": all,
                    }),
                })?;
                let result = edit_file(&self.cwd.join(path), old, new, *all);
                self.tool_outcome(call_id, path, result)?;
            }
            Action::Run {
                command,
                timeout_secs,
            } => {
                self.emit(&AgentEvent::ToolCall {
                    id: call_id.clone(),
                    name: "Bash".into(),
                    input: serde_json::json!({ "command": command }),
                })?;
                let (is_error, output) = run_shell(command, self.cwd, *timeout_secs);
                self.emit(&AgentEvent::ToolResult {
                    id: call_id,
                    is_error,
                    output,
                })?;
            }
            Action::Sleep { ms } => std::thread::sleep(Duration::from_millis(*ms)),
            Action::Hang {} => loop {
                // The events so far are flushed; the engine's idle timeout or a kill ends this.
                std::thread::sleep(Duration::from_secs(3600));
            },
            Action::Exit { code, silent } => {
                return Ok(Flow::Exit {
                    code: *code,
                    silent: *silent,
                });
            }
            Action::Usage {
                input_tokens,
                output_tokens,
                cache_read_tokens,
                cache_write_tokens,
                cost_usd,
            } => {
                self.usage.add(&Usage {
                    input_tokens: *input_tokens,
                    output_tokens: *output_tokens,
                    cache_read_tokens: *cache_read_tokens,
                    cache_write_tokens: *cache_write_tokens,
                });
                if let Some(cost) = cost_usd {
                    self.cost = Some(self.cost.unwrap_or(0.0) + cost);
                }
            }
            Action::ClaimDone { text } => {
                self.emit(&AgentEvent::ClaimDone { text: text.clone() })?;
            }
        }
        Ok(Flow::Continue)
    }

    /// A file tool's result: `FileEdited` then an ok result, or an error result (like a real
    /// agent's failed tool call, the step goes on).
    fn tool_outcome(
        &mut self,
        id: Option<String>,
        path: &str,
        result: Result<String, String>,
    ) -> Result<(), ReplayError> {
        match result {
            Ok(output) => {
                self.emit(&AgentEvent::FileEdited {
                    path: path.to_owned(),
                })?;
                self.emit(&AgentEvent::ToolResult {
                    id,
                    is_error: false,
                    output,
                })
            }
            Err(output) => self.emit(&AgentEvent::ToolResult {
                id,
                is_error: true,
                output,
            }),
        }
    }
}

fn write_file(path: &Path, content: &str) -> Result<String, String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, content).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(format!(
        "wrote {} bytes to {}",
        content.len(),
        path.display()
    ))
}

fn edit_file(path: &Path, old: &str, new: &str, all: bool) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let count = text.matches(old).count();
    if count == 0 {
        return Err(format!(
            "the text to replace was not found in {}",
            path.display()
        ));
    }
    let edited = if all {
        text.replace(old, new)
    } else {
        text.replacen(old, new, 1)
    };
    std::fs::write(path, edited).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let replaced = if all { count } else { 1 };
    Ok(format!(
        "replaced {replaced} occurrence(s) in {}",
        path.display()
    ))
}

/// Runs `sh -c command` through pawl-process; returns (is_error, output tail).
fn run_shell(command: &str, cwd: &Path, timeout_secs: Option<u64>) -> (bool, String) {
    let mut cmd = pawl_process::Command::new("sh");
    cmd.args(["-c", command]).current_dir(cwd);
    if let Some(secs) = timeout_secs {
        cmd.timeout(Duration::from_secs(secs));
    }
    match cmd.run() {
        Ok(outcome) => {
            let mut output = outcome.combined_tail_text();
            if !outcome.success() {
                output.push_str(&format!("\n[{:?}]", outcome.end));
            }
            (!outcome.success(), output)
        }
        Err(err) => (true, err.to_string()),
    }
}

/// The adapter for `kind = "replay"`: runs one scenario step per iteration as a child process.
#[derive(Debug, Clone)]
pub struct ReplayAdapter {
    scenario: PathBuf,
    program: Option<PathBuf>,
    extra_passthrough: Vec<String>,
}

impl ReplayAdapter {
    /// Reads and validates the scenario now, so a bad file fails before the run starts. The path
    /// is made absolute (the child runs in the step's working directory).
    pub fn new(scenario_path: impl Into<PathBuf>) -> Result<Self, AgentError> {
        let path: PathBuf = scenario_path.into();
        let scenario_error = |message: String| AgentError::Scenario {
            path: path.clone(),
            message,
        };
        let text = std::fs::read_to_string(&path).map_err(|e| scenario_error(e.to_string()))?;
        parse(&text).map_err(|e| scenario_error(e.to_string()))?;
        let absolute = std::fs::canonicalize(&path).map_err(|e| scenario_error(e.to_string()))?;
        Ok(ReplayAdapter {
            scenario: absolute,
            program: None,
            extra_passthrough: Vec::new(),
        })
    }

    /// The program that understands `__replay` (default: pawl's own executable).
    pub fn program(mut self, program: impl Into<PathBuf>) -> Self {
        self.program = Some(program.into());
        self
    }

    /// More variable names to pass through from pawl's environment.
    pub fn extra_passthrough(mut self, names: Vec<String>) -> Self {
        self.extra_passthrough = names;
        self
    }

    pub fn scenario_path(&self) -> &Path {
        &self.scenario
    }
}

impl Adapter for ReplayAdapter {
    fn name(&self) -> &str {
        "replay"
    }

    fn command(&self, req: &StepRequest) -> Result<pawl_process::Command, AgentError> {
        let program = match &self.program {
            Some(program) => program.clone(),
            None => std::env::current_exe().map_err(|e| {
                AgentError::Config(format!(
                    "cannot find pawl's own executable to run the replay agent: {e}"
                ))
            })?,
        };
        let mut cmd = pawl_process::Command::new(program);
        cmd.args(args(&self.scenario, req.iteration))
            .current_dir(&req.cwd);
        env::apply(&mut cmd, AgentKind::Replay, &self.extra_passthrough);
        cmd.env("PAWL_RUN_ID", &req.run_id)
            .env("PAWL_ITERATION", req.iteration.to_string())
            .envs(req.env.iter().map(|(k, v)| (k, v)));
        Ok(cmd)
    }

    fn parse_stdout(&mut self, line: &str) -> Vec<AgentEvent> {
        if line.trim().is_empty() {
            return Vec::new();
        }
        vec![
            AgentEvent::from_json_line(line).unwrap_or_else(|| AgentEvent::Unknown {
                raw: line.to_owned(),
            }),
        ]
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn run(text: &str, step: u32, cwd: &Path) -> (i32, Vec<AgentEvent>) {
        let mut out = Vec::new();
        let code = execute(text, step, cwd, &mut out).unwrap();
        let events = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (code, events)
    }

    #[test]
    fn a_step_writes_edits_and_reports() {
        let dir = tempfile::tempdir().unwrap();
        let text = r#"
{"step": 1}
{"do": "text", "text": "writing"}
{"do": "write", "path": "src/a.txt", "content": "one two one"}
{"do": "edit", "path": "src/a.txt", "old": "one", "new": "1", "all": true}
{"do": "usage", "input_tokens": 10, "output_tokens": 2, "cost_usd": 0.25}
{"do": "usage", "input_tokens": 5, "cost_usd": 0.5}
{"do": "claim_done", "text": "done"}
"#;
        let (code, events) = run(text, 1, dir.path());
        assert_eq!(code, 0);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/a.txt")).unwrap(),
            "1 two 1"
        );
        assert_eq!(
            events[0],
            AgentEvent::SessionStarted {
                session_id: "replay".into(),
                model: Some("replay".into())
            }
        );
        let edited: Vec<_> = events
            .iter()
            .filter(|e| matches!(e, AgentEvent::FileEdited { .. }))
            .collect();
        assert_eq!(edited.len(), 2);
        assert!(events.contains(&AgentEvent::ClaimDone {
            text: "done".into()
        }));
        let Some(AgentEvent::Result {
            is_error,
            usage,
            cost_usd,
            text,
            ..
        }) = events.last()
        else {
            panic!("{events:?}")
        };
        assert!(!is_error);
        assert_eq!(usage.input_tokens, 15);
        assert_eq!(usage.output_tokens, 2);
        assert_eq!(*cost_usd, Some(0.75));
        assert_eq!(text.as_deref(), Some("writing"));
    }

    #[test]
    fn exit_stops_the_step_and_silent_skips_the_result() {
        let dir = tempfile::tempdir().unwrap();
        let text = "{\"step\": 1}\n{\"do\": \"exit\", \"code\": 7}\n{\"do\": \"text\", \"text\": \"never\"}\n{\"step\": 2}\n{\"do\": \"exit\", \"code\": 9, \"silent\": true}\n";
        let (code, events) = run(text, 1, dir.path());
        assert_eq!(code, 7);
        assert_eq!(events.len(), 2);
        assert!(matches!(
            events[1],
            AgentEvent::Result { is_error: true, .. }
        ));
        let (code, events) = run(text, 2, dir.path());
        assert_eq!(code, 9);
        assert_eq!(events.len(), 1, "{events:?}");
    }

    #[test]
    fn past_the_last_step() {
        let dir = tempfile::tempdir().unwrap();
        let body = "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"only\"}\n";
        let (code, events) = run(body, 5, dir.path());
        assert_eq!(code, 0);
        assert!(events.contains(&AgentEvent::Text {
            text: "only".into()
        }));

        let idle = format!("{{\"scenario\": {{\"after_last\": \"idle\"}}}}\n{body}");
        let (code, events) = run(&idle, 2, dir.path());
        assert_eq!((code, events.len()), (0, 2));

        let fail = format!("{{\"scenario\": {{\"after_last\": \"fail\"}}}}\n{body}");
        let (code, events) = run(&fail, 2, dir.path());
        assert_eq!(code, 1);
        assert!(matches!(
            events[1],
            AgentEvent::Error {
                recoverable: false,
                ..
            }
        ));
    }

    #[test]
    fn a_failed_edit_is_a_tool_error_not_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        let (code, events) = run(
            r#"{"do": "edit", "path": "missing.txt", "old": "a", "new": "b"}"#,
            1,
            dir.path(),
        );
        assert_eq!(code, 0);
        assert!(
            events
                .iter()
                .any(|e| matches!(e, AgentEvent::ToolResult { is_error: true, .. }))
        );
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, AgentEvent::FileEdited { .. }))
        );
    }

    #[test]
    fn run_goes_through_the_shell_in_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let (code, events) = run(
            r#"{"do": "run", "command": "echo hi > out.txt && echo printed; exit 3"}"#,
            1,
            dir.path(),
        );
        assert_eq!(code, 0);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
            "hi\n"
        );
        let result = events
            .iter()
            .find_map(|e| match e {
                AgentEvent::ToolResult {
                    is_error, output, ..
                } => Some((*is_error, output.clone())),
                _ => None,
            })
            .unwrap();
        assert!(result.0);
        assert!(result.1.contains("printed"), "{}", result.1);
    }

    #[test]
    fn huge_usage_saturates_instead_of_overflowing() {
        let dir = tempfile::tempdir().unwrap();
        let line = format!("{{\"do\": \"usage\", \"input_tokens\": {}}}", u64::MAX);
        let (_, events) = run(&format!("{line}\n{line}\n"), 1, dir.path());
        assert!(matches!(
            events.last(),
            Some(AgentEvent::Result { usage, .. }) if usage.input_tokens == u64::MAX
        ));
    }

    #[test]
    fn step_zero_and_bad_scenarios_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = Vec::new();
        assert!(matches!(
            execute("{\"do\": \"hang\"}", 0, dir.path(), &mut out),
            Err(ReplayError::StepZero(0))
        ));
        let err = execute("{\"do\": \"nope\"}", 1, dir.path(), &mut out).unwrap_err();
        assert!(err.to_string().contains("line 1"), "{err}");
    }

    #[test]
    fn adapter_builds_the_hidden_subcommand() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"do\": \"claim_done\"}\n").unwrap();
        let adapter = ReplayAdapter::new(&path).unwrap().program("/bin/pawl");
        let req = StepRequest {
            prompt: "p".into(),
            cwd: dir.path().to_owned(),
            run_id: "r1".into(),
            iteration: 3,
            resume_session: None,
            session_spent_usd: None,
            model: None,
            env: vec![("EXTRA".into(), "1".into())],
        };
        let cmd = adapter.command(&req).unwrap();
        assert_eq!(cmd.get_program(), "/bin/pawl");
        let args: Vec<_> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(args[0], "__replay");
        assert_eq!(args[1], "--scenario");
        assert!(Path::new(&args[2]).is_absolute());
        assert_eq!(&args[3..], ["--step", "3"]);
        let envs: Vec<_> = cmd
            .get_envs()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.map(|v| v.to_string_lossy().into_owned()),
                )
            })
            .collect();
        assert!(envs.contains(&("PAWL_ITERATION".into(), Some("3".into()))));
        assert!(envs.contains(&("EXTRA".into(), Some("1".into()))));

        std::fs::write(&path, "{\"do\": \"bogus\"}\n").unwrap();
        let err = ReplayAdapter::new(&path).unwrap_err();
        assert!(err.to_string().contains("line 1"), "{err}");
    }

    #[test]
    fn adapter_parses_its_own_stream() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"do\": \"claim_done\"}\n").unwrap();
        let mut adapter = ReplayAdapter::new(&path).unwrap();
        assert_eq!(
            adapter.parse_stdout("{\"type\":\"text\",\"text\":\"hi\"}"),
            vec![AgentEvent::Text { text: "hi".into() }]
        );
        assert_eq!(
            adapter.parse_stdout("garbage"),
            vec![AgentEvent::Unknown {
                raw: "garbage".into()
            }]
        );
        assert!(adapter.parse_stdout("").is_empty());
    }
}
