//! The replay scenario format: JSON lines grouped into steps, parsed strictly.
//!
//! Every problem is reported with its 1-based line number, so a hand-written scenario fails
//! loudly and precisely. Parsing never panics, whatever the input (a proptest checks it). The
//! format is documented for users in `crates/agent/README.md`.
//!
//! What this module is not: the executor (see the parent module), which performs the actions.

use std::path::{Component, Path};

use serde::Deserialize;

use crate::AgentEvent;

/// What happens when the engine asks for a step past the last one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AfterLast {
    /// Run the last step again (the default).
    #[default]
    Repeat,
    /// Do nothing: start the session, report an empty result, exit 0.
    Idle,
    /// Report an error and exit 1 (for tests that must not run past the script).
    Fail,
}

/// The optional first line: `{"scenario": {...}}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// A label for logs and reports.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub after_last: AfterLast,
    /// The session id reported at the start of each step (default `replay`).
    #[serde(default)]
    pub session_id: Option<String>,
    /// The model name reported at the start of each step (default `replay`).
    #[serde(default)]
    pub model: Option<String>,
}

/// One thing a step does, in order.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Assistant text.
    Text { text: String },
    /// A tool call event (nothing is executed).
    ToolCall {
        name: String,
        #[serde(default)]
        input: serde_json::Value,
        #[serde(default)]
        id: Option<String>,
    },
    /// A tool result event.
    ToolResult {
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        output: String,
        #[serde(default)]
        is_error: bool,
    },
    /// The agent's permission system refused a tool.
    PermissionDenied {
        tool: String,
        #[serde(default)]
        detail: String,
    },
    /// The provider said to wait.
    RateLimited {
        #[serde(default)]
        message: String,
        #[serde(default)]
        retry_after_secs: Option<u64>,
    },
    /// An error from the agent or its provider.
    Error {
        message: String,
        #[serde(default = "yes")]
        recoverable: bool,
    },
    /// Any event, in pawl's own serde form.
    Emit { event: AgentEvent },
    /// Writes a file (whole content), relative to the working directory.
    Write { path: String, content: String },
    /// Replaces the first occurrence of `old` with `new` in a file (`all: true` for every one).
    Edit {
        path: String,
        old: String,
        new: String,
        #[serde(default)]
        all: bool,
    },
    /// Runs a shell command (`sh -c`) in the working directory, through pawl-process.
    Run {
        command: String,
        #[serde(default)]
        timeout_secs: Option<u64>,
    },
    /// Sleeps this many milliseconds.
    Sleep { ms: u64 },
    /// Sleeps forever (for idle-timeout and stall tests); nothing after it runs.
    Hang {},
    /// Ends the step with this exit code; nothing after it runs. `silent: true` skips the
    /// final result event, like an agent that crashed.
    Exit {
        code: i32,
        #[serde(default)]
        silent: bool,
    },
    /// Adds to the step's usage and cost (reported in the final result event).
    Usage {
        #[serde(default)]
        input_tokens: u64,
        #[serde(default)]
        output_tokens: u64,
        #[serde(default)]
        cache_read_tokens: u64,
        #[serde(default)]
        cache_write_tokens: u64,
        #[serde(default)]
        cost_usd: Option<f64>,
    },
    /// The agent claims the work is done (a hint; pawl verifies).
    ClaimDone {
        #[serde(default)]
        text: String,
    },
}

fn yes() -> bool {
    true
}

/// An action and the line it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    pub line: usize,
    pub action: Action,
}

/// One step: what the agent does on one iteration.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Step {
    /// The line of the `{"step": N}` marker (0 when the scenario has no markers).
    pub line: usize,
    pub actions: Vec<Located>,
}

/// A parsed, validated scenario.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scenario {
    pub header: Header,
    /// At least one step.
    pub steps: Vec<Step>,
}

/// Which step runs for a requested (1-based) step index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Choice<'a> {
    Step(&'a Step),
    /// Past the end with `after_last = "idle"`.
    Idle,
    /// Past the end with `after_last = "fail"`.
    Fail,
}

impl Scenario {
    /// The step for iteration `index` (1-based), after applying `after_last`.
    pub fn choose(&self, index: u32) -> Choice<'_> {
        let position = usize::try_from(index).unwrap_or(usize::MAX).max(1) - 1;
        if let Some(step) = self.steps.get(position) {
            return Choice::Step(step);
        }
        match self.header.after_last {
            AfterLast::Repeat => match self.steps.last() {
                Some(step) => Choice::Step(step),
                None => Choice::Idle,
            },
            AfterLast::Idle => Choice::Idle,
            AfterLast::Fail => Choice::Fail,
        }
    }
}

/// A scenario that cannot be used, with the line to look at (0 for the whole file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", if *line > 0 { format!("line {line}: ") } else { String::new() })]
pub struct ScenarioError {
    pub line: usize,
    pub message: String,
}

fn err(line: usize, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        line,
        message: message.into(),
    }
}

/// Parses and validates a scenario.
///
/// Blank lines and lines starting with `#` or `//` are comments. Every other line is one JSON
/// object of exactly one of three kinds: the header `{"scenario": {...}}` (first non-comment
/// line only), a step marker `{"step": N}` (N = 1, 2, 3, ... in order), or an action
/// `{"do": "...", ...}`. A file without step markers is one step.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let mut header: Option<Header> = None;
    let mut steps: Vec<Step> = Vec::new();
    let mut unmarked: Vec<Located> = Vec::new();
    let mut seen_content = false;

    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("//") {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(trimmed).map_err(|e| err(line, format!("not valid JSON: {e}")))?;
        let Some(object) = value.as_object() else {
            return Err(err(
                line,
                "expected a JSON object such as {\"do\": \"text\", \"text\": \"...\"}",
            ));
        };
        let kinds = ["scenario", "step", "do"]
            .into_iter()
            .filter(|key| object.contains_key(*key))
            .collect::<Vec<_>>();
        match kinds.as_slice() {
            ["scenario"] => {
                if object.len() != 1 {
                    return Err(err(line, "the header line holds only the \"scenario\" key"));
                }
                if seen_content {
                    return Err(err(
                        line,
                        "the {\"scenario\": ...} header must be the first line",
                    ));
                }
                let parsed = Header::deserialize(&object["scenario"])
                    .map_err(|e| err(line, format!("bad scenario header: {e}")))?;
                header = Some(parsed);
            }
            ["step"] => {
                if object.len() != 1 {
                    return Err(err(
                        line,
                        "a step marker holds only the \"step\" key, e.g. {\"step\": 2}",
                    ));
                }
                if !unmarked.is_empty() {
                    return Err(err(
                        line,
                        format!(
                            "line {} has an action before the first {{\"step\": 1}} marker; \
                             put every action under a step marker (or use no markers at all)",
                            unmarked.first().map_or(0, |a| a.line)
                        ),
                    ));
                }
                let expected = steps.len() + 1;
                let number = object["step"].as_u64();
                if number != Some(expected as u64) {
                    return Err(err(
                        line,
                        format!(
                            "expected {{\"step\": {expected}}} (steps are numbered 1, 2, 3, ... in order), found {}",
                            object["step"]
                        ),
                    ));
                }
                steps.push(Step {
                    line,
                    actions: Vec::new(),
                });
            }
            ["do"] => {
                let action = Action::deserialize(&value)
                    .map_err(|e| err(line, format!("bad action: {e}")))?;
                validate(&action).map_err(|message| err(line, message))?;
                let located = Located { line, action };
                match steps.last_mut() {
                    Some(step) => step.actions.push(located),
                    None => unmarked.push(located),
                }
            }
            [] => {
                return Err(err(
                    line,
                    "expected an action {\"do\": ...}, a step marker {\"step\": N} or the header {\"scenario\": ...}",
                ));
            }
            _ => {
                return Err(err(
                    line,
                    format!(
                        "a line is one of a header, a step marker or an action, not several ({})",
                        kinds.join(", ")
                    ),
                ));
            }
        }
        seen_content = true;
    }

    if steps.is_empty() {
        if unmarked.is_empty() {
            return Err(err(0, "the scenario has no actions and no steps"));
        }
        steps.push(Step {
            line: 0,
            actions: unmarked,
        });
    }
    Ok(Scenario {
        header: header.unwrap_or_default(),
        steps,
    })
}

/// Checks what serde cannot: safe paths, sane numbers.
fn validate(action: &Action) -> Result<(), String> {
    match action {
        Action::Write { path, .. } => check_path(path),
        Action::Edit { path, old, .. } => {
            check_path(path)?;
            if old.is_empty() {
                return Err("\"old\" must not be empty".into());
            }
            Ok(())
        }
        Action::Usage {
            cost_usd: Some(cost),
            ..
        } if !cost.is_finite() || *cost < 0.0 => Err(format!(
            "\"cost_usd\" must be a non-negative number, found {cost}"
        )),
        Action::Run { command, .. } if command.trim().is_empty() => {
            Err("\"command\" must not be empty".into())
        }
        Action::ToolCall { name, .. } if name.is_empty() => {
            Err("\"name\" must not be empty".into())
        }
        _ => Ok(()),
    }
}

/// A scenario writes only inside the working directory: relative, no `..`, no NUL.
fn check_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("\"path\" must not be empty".into());
    }
    if path.contains('\0') {
        return Err("\"path\" must not contain NUL".into());
    }
    let p = Path::new(path);
    for component in p.components() {
        match component {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => {
                return Err(format!(
                    "\"path\" must stay inside the working directory (no ..): {path}"
                ));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!(
                    "\"path\" must be relative to the working directory: {path}"
                ));
            }
        }
    }
    if !p.components().any(|c| matches!(c, Component::Normal(_))) {
        return Err(format!("\"path\" must name a file: {path}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn parses_steps_actions_and_header() {
        let text = r#"
# a comment
{"scenario": {"name": "demo", "after_last": "fail", "session_id": "s-1"}}
{"step": 1}
{"do": "text", "text": "hello"}
{"do": "write", "path": "src/a.txt", "content": "x"}
// another comment
{"step": 2}
{"do": "exit", "code": 3}
"#;
        let scenario = parse(text).unwrap();
        assert_eq!(scenario.header.name.as_deref(), Some("demo"));
        assert_eq!(scenario.header.after_last, AfterLast::Fail);
        assert_eq!(scenario.steps.len(), 2);
        assert_eq!(scenario.steps[0].actions.len(), 2);
        assert_eq!(scenario.steps[0].actions[1].line, 6);
        assert_eq!(
            scenario.steps[1].actions[0].action,
            Action::Exit {
                code: 3,
                silent: false
            }
        );
        assert_eq!(scenario.choose(3), Choice::Fail);
    }

    #[test]
    fn no_markers_means_one_step_and_repeat_is_the_default() {
        let scenario = parse("{\"do\": \"claim_done\"}\n").unwrap();
        assert_eq!(scenario.steps.len(), 1);
        assert!(matches!(scenario.choose(7), Choice::Step(_)));
        assert!(matches!(scenario.choose(0), Choice::Step(_)));
    }

    fn error_of(text: &str) -> ScenarioError {
        parse(text).unwrap_err()
    }

    #[test]
    fn errors_name_the_line() {
        let e = error_of("{\"step\": 1}\n{\"do\": \"txt\", \"text\": \"a\"}\n");
        assert_eq!(e.line, 2);
        assert!(e.to_string().starts_with("line 2: bad action"), "{e}");

        let e = error_of("{\"step\": 1}\n{\"step\": 3}\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("expected {\"step\": 2}"), "{e}");

        let e = error_of("{\"step\": 1}\n{\"do\": \"text\", \"text\": \"a\", \"extra\": 1}\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("extra"), "{e}");

        let e = error_of("{\"do\": \"text\", \"text\": \"a\"}\n{\"step\": 1}\n");
        assert_eq!(e.line, 2);

        let e = error_of("{\"step\": 1}\n{\"scenario\": {}}\n");
        assert_eq!(e.line, 2);

        let e = error_of("[1, 2]");
        assert_eq!(e.line, 1);

        let e = error_of("{\"step\": 1}\nnot json\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("not valid JSON"), "{e}");

        let e = error_of("\n# only comments\n");
        assert_eq!(e.line, 0);
        assert_eq!(e.to_string(), "the scenario has no actions and no steps");

        let e = error_of("{\"step\": 1, \"do\": \"hang\"}");
        assert!(e.message.contains("not several"), "{e}");
    }

    #[test]
    fn paths_stay_inside_the_working_directory() {
        for bad in ["/etc/passwd", "../x", "a/../../x", "", ".", "a\u{0}b"] {
            let line = serde_json::json!({"do": "write", "path": bad, "content": ""}).to_string();
            let e = error_of(&line);
            assert_eq!(e.line, 1, "{bad:?}: {e}");
        }
        parse(r#"{"do": "write", "path": "./a/b.txt", "content": ""}"#).unwrap();
    }

    #[test]
    fn numbers_are_checked() {
        let e = error_of(r#"{"do": "usage", "cost_usd": -1}"#);
        assert!(e.message.contains("cost_usd"), "{e}");
        let e = error_of(r#"{"do": "sleep", "ms": -5}"#);
        assert_eq!(e.line, 1);
        let e = error_of(r#"{"do": "edit", "path": "a", "old": "", "new": "b"}"#);
        assert!(e.message.contains("old"), "{e}");
    }

    #[test]
    fn emit_takes_any_event_in_pawl_form() {
        let scenario =
            parse(r#"{"do": "emit", "event": {"type": "file_edited", "path": "x"}}"#).unwrap();
        assert_eq!(
            scenario.steps[0].actions[0].action,
            Action::Emit {
                event: AgentEvent::FileEdited { path: "x".into() }
            }
        );
    }
}
