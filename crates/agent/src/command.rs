//! `kind = "command"`: any program as the agent (`command = ["sh", "agent.sh"]`).
//!
//! The contract for the program: the prompt arrives on stdin and in `PAWL_PROMPT` (when it is
//! under [`MAX_ENV_PROMPT_BYTES`]; stdin always has all of it); `PAWL_RUN_ID` and
//! `PAWL_ITERATION` (1-based) are set, `PAWL_RESUME_SESSION` and `PAWL_MODEL` when known. Each
//! stdout line becomes a `Text` event, unless the line is a JSON object in pawl's own event
//! form (`{"type": "file_edited", "path": "src/x.rs"}`), which becomes that event. Exit 0 means
//! the step ended normally; anything else is an error step.
//!
//! What this module is not: a shell. The argv is run as given (use `["sh", "-c", "..."]` for a
//! shell line).

use pawl_core::config::AgentKind;

use crate::{Adapter, AgentError, AgentEvent, StepRequest, Usage, env};

/// Longest prompt also passed in `PAWL_PROMPT` (Linux refuses a single variable over 128 KiB).
pub const MAX_ENV_PROMPT_BYTES: usize = 100 * 1024;

/// The adapter for `kind = "command"`.
#[derive(Debug, Clone)]
pub struct CommandAdapter {
    argv: Vec<String>,
    extra_passthrough: Vec<String>,
    saw_result: bool,
    last_text: Option<String>,
}

impl CommandAdapter {
    /// `argv[0]` is the program (looked up in `PATH` when it has no `/`).
    pub fn new(argv: Vec<String>) -> Result<Self, AgentError> {
        if argv.first().is_none_or(|program| program.trim().is_empty()) {
            return Err(AgentError::Config(
                "[agent] kind = \"command\" needs command = [\"program\", \"arg\", ...]".into(),
            ));
        }
        Ok(CommandAdapter {
            argv,
            extra_passthrough: Vec::new(),
            saw_result: false,
            last_text: None,
        })
    }

    /// More variable names to pass through from pawl's environment.
    pub fn extra_passthrough(mut self, names: Vec<String>) -> Self {
        self.extra_passthrough = names;
        self
    }
}

impl Adapter for CommandAdapter {
    fn name(&self) -> &str {
        "command"
    }

    fn command(&self, req: &StepRequest) -> Result<pawl_process::Command, AgentError> {
        let (program, args) = self
            .argv
            .split_first()
            .ok_or_else(|| AgentError::Config("empty agent command".into()))?;
        let mut cmd = pawl_process::Command::new(program);
        cmd.args(args).current_dir(&req.cwd);
        env::apply(&mut cmd, AgentKind::Command, &self.extra_passthrough);
        if req.prompt.len() <= MAX_ENV_PROMPT_BYTES {
            cmd.env("PAWL_PROMPT", &req.prompt);
        }
        cmd.env("PAWL_RUN_ID", &req.run_id)
            .env("PAWL_ITERATION", req.iteration.to_string());
        if let Some(session) = &req.resume_session {
            cmd.env("PAWL_RESUME_SESSION", session);
        }
        if let Some(model) = &req.model {
            cmd.env("PAWL_MODEL", model);
        }
        cmd.envs(req.env.iter().map(|(k, v)| (k, v)))
            .stdin_bytes(req.prompt.as_bytes());
        Ok(cmd)
    }

    fn parse_stdout(&mut self, line: &str) -> Vec<AgentEvent> {
        let line = line.trim_end_matches(['\r', '\n']);
        if line.trim().is_empty() {
            return Vec::new();
        }
        let event = AgentEvent::from_json_line(line).unwrap_or_else(|| AgentEvent::Text {
            text: line.to_owned(),
        });
        match &event {
            AgentEvent::Result { .. } => self.saw_result = true,
            AgentEvent::Text { text } => self.last_text = Some(text.clone()),
            _ => {}
        }
        vec![event]
    }

    /// The program printed no result of its own: report one from the exit code.
    fn finish(&mut self, exit_code: Option<i32>) -> Vec<AgentEvent> {
        let saw_result = std::mem::take(&mut self.saw_result);
        let last_text = self.last_text.take();
        if saw_result {
            return Vec::new();
        }
        let ok = exit_code == Some(0);
        vec![AgentEvent::Result {
            is_error: !ok,
            subtype: Some(match exit_code {
                Some(0) => "success".to_owned(),
                Some(code) => format!("exit_{code}"),
                None => "killed".to_owned(),
            }),
            text: last_text,
            usage: Usage::default(),
            cost_usd: None,
            cost_estimated: false,
            num_turns: None,
        }]
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn request(prompt: &str) -> StepRequest {
        StepRequest {
            prompt: prompt.into(),
            cwd: std::env::temp_dir(),
            run_id: "run-1".into(),
            iteration: 2,
            resume_session: None,
            session_spent_usd: None,
            model: Some("m".into()),
            env: Vec::new(),
        }
    }

    #[test]
    fn empty_argv_is_a_config_error() {
        assert!(matches!(
            CommandAdapter::new(vec![]),
            Err(AgentError::Config(_))
        ));
        assert!(CommandAdapter::new(vec![" ".into()]).is_err());
    }

    #[test]
    fn lines_are_text_unless_they_are_pawl_events() {
        let mut adapter = CommandAdapter::new(vec!["sh".into()]).unwrap();
        assert_eq!(
            adapter.parse_stdout("hello world\n"),
            vec![AgentEvent::Text {
                text: "hello world".into()
            }]
        );
        assert_eq!(
            adapter.parse_stdout(r#"{"type":"file_edited","path":"a.rs"}"#),
            vec![AgentEvent::FileEdited {
                path: "a.rs".into()
            }]
        );
        // JSON that is not one of pawl's events is just text.
        assert_eq!(
            adapter.parse_stdout(r#"{"hello": 1}"#),
            vec![AgentEvent::Text {
                text: r#"{"hello": 1}"#.into()
            }]
        );
        assert!(adapter.parse_stdout("   ").is_empty());
        let finish = adapter.finish(Some(3));
        assert!(matches!(
            &finish[..],
            [AgentEvent::Result { is_error: true, subtype: Some(s), text: Some(t), .. }]
                if s == "exit_3" && t.contains("hello")
        ));
        // The state is per step.
        assert!(matches!(
            &adapter.finish(Some(0))[..],
            [AgentEvent::Result {
                is_error: false,
                text: None,
                ..
            }]
        ));
    }

    #[test]
    fn a_reported_result_is_not_doubled() {
        let mut adapter = CommandAdapter::new(vec!["sh".into()]).unwrap();
        let line = AgentEvent::Result {
            is_error: false,
            subtype: None,
            text: None,
            usage: Usage::default(),
            cost_usd: Some(0.1),
            cost_estimated: false,
            num_turns: None,
        }
        .to_json_line();
        assert_eq!(adapter.parse_stdout(&line).len(), 1);
        assert!(adapter.finish(Some(0)).is_empty());
    }

    #[test]
    fn prompt_goes_to_env_and_stdin() {
        let adapter = CommandAdapter::new(vec!["sh".into(), "agent.sh".into()]).unwrap();
        let cmd = adapter.command(&request("do it")).unwrap();
        let envs: Vec<_> = cmd
            .get_envs()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.map(|v| v.to_string_lossy().into_owned()),
                )
            })
            .collect();
        for (k, v) in [
            ("PAWL_PROMPT", "do it"),
            ("PAWL_RUN_ID", "run-1"),
            ("PAWL_ITERATION", "2"),
            ("PAWL_MODEL", "m"),
        ] {
            assert!(envs.contains(&(k.into(), Some(v.into()))), "{k}: {envs:?}");
        }
        let huge = "x".repeat(MAX_ENV_PROMPT_BYTES + 1);
        let cmd = adapter.command(&request(&huge)).unwrap();
        assert!(!cmd.get_envs().any(|(k, _)| k == "PAWL_PROMPT"));
    }
}
