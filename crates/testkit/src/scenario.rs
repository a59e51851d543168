//! The scenario a mock model server plays: scripted turns, usage, and injected failures.
//!
//! A scenario is plain data (JSON, documented in the crate README). It says nothing about wire
//! formats: the API modules (`anthropic`, `openai`, `gemini`) render a [`Turn`] into whatever the
//! calling CLI expects, adapting tool calls to the tools that CLI offered.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::TestkitError;

/// A whole script: the turns the model plays, plus failures pinned to request indices.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label for logs; not used for matching.
    #[serde(default)]
    pub name: Option<String>,
    /// The scripted model turns, in order.
    #[serde(default)]
    pub turns: Vec<Turn>,
    /// What a main request gets once the script has run out (default: the text "Done.").
    #[serde(default)]
    pub fallback: Option<Turn>,
    /// Failures applied by the index of the main model request (0-based, counting every main request
    /// the server received, retries included), before any per-turn failure.
    #[serde(default)]
    pub request_faults: Vec<RequestFault>,
    /// Text answered to auxiliary requests (title generation, quota probes, ...) when no better answer
    /// is known; see the README for how auxiliary requests are recognised.
    #[serde(default)]
    pub auxiliary_text: Option<String>,
}

/// One model turn: text and/or tool calls, the usage to report, and failures to serve first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Start this turn when the last user text of the conversation contains this string. The turns
    /// after it then follow in order, one per model turn answered since that user text.
    #[serde(default)]
    pub when_last_user_contains: Option<String>,
    /// Assistant text, sent before any tool call.
    #[serde(default)]
    pub text: Option<String>,
    /// Tool calls, in order.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Token usage reported for this turn.
    #[serde(default)]
    pub usage: Usage,
    /// Override of the stop reason (Anthropic `stop_reason`); by default `tool_use` when the turn has
    /// tool calls and `end_turn` otherwise.
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Failures served to the first attempts at this turn: attempt `i` gets `faults[i]`; the attempt
    /// after the last fault gets the real answer. Turn selection is history-based, so a CLI's retry
    /// of the same request lands on the same turn.
    #[serde(default)]
    pub faults: Vec<Fault>,
}

impl Turn {
    /// A plain text turn with default usage.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// Builder-style: add a tool call.
    #[must_use]
    pub fn with_tool(mut self, call: ToolCall) -> Self {
        self.tool_calls.push(call);
        self
    }

    /// Builder-style: set usage.
    #[must_use]
    pub fn with_usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = Usage {
            input_tokens,
            output_tokens,
            ..Usage::default()
        };
        self
    }

    /// Builder-style: add a failure served before the real answer.
    #[must_use]
    pub fn with_fault(mut self, fault: Fault) -> Self {
        self.faults.push(fault);
        self
    }

    /// Builder-style: match on the last user text.
    #[must_use]
    pub fn when_last_user_contains(mut self, needle: impl Into<String>) -> Self {
        self.when_last_user_contains = Some(needle.into());
        self
    }
}

/// Token usage reported for one turn. Every API gets the same numbers in its own shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
}

impl Default for Usage {
    fn default() -> Self {
        Self {
            input_tokens: 100,
            output_tokens: 20,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
        }
    }
}

/// A tool call in API-neutral terms; each API module maps it onto the tools the CLI offered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolCall {
    /// Run a shell command: Claude `Bash`, Codex `exec_command` / `shell_command` / `shell`,
    /// Gemini `run_shell_command`.
    Bash {
        command: String,
        #[serde(default)]
        description: Option<String>,
    },
    /// Create or overwrite a file: Claude `Write`, Codex `apply_patch` (Add File), Gemini
    /// `write_file`. A relative path is resolved against the working directory named in the request.
    Write { path: String, content: String },
    /// Replace text in a file: Claude `Edit`, Codex `apply_patch` (Update File), Gemini `replace`.
    /// Claude Code refuses an Edit of a file it has not Read in the same session.
    Edit {
        path: String,
        old: String,
        new: String,
    },
    /// Read a file: Claude `Read`, Codex `exec_command` with `cat`, Gemini `read_file`.
    Read { path: String },
    /// A raw Codex `apply_patch` body (`*** Begin Patch` ... `*** End Patch`).
    ApplyPatch { patch: String },
    /// Any tool by name with the given JSON input, passed through as is.
    Raw {
        name: String,
        input: serde_json::Value,
    },
}

impl ToolCall {
    /// A shell command without description.
    pub fn bash(command: impl Into<String>) -> Self {
        Self::Bash {
            command: command.into(),
            description: None,
        }
    }
}

/// An injected failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// HTTP 429 with `retry-after` and the API's rate-limit error body.
    RateLimit {
        #[serde(default = "default_retry_after")]
        retry_after_secs: u64,
        /// Replaces the default error message.
        #[serde(default)]
        message: Option<String>,
    },
    /// Overloaded: HTTP 529 `overloaded_error` for Anthropic, 503 for the other APIs.
    Overloaded,
    /// HTTP 5xx (default 500) with the API's server-error body.
    ServerError {
        #[serde(default = "default_server_status")]
        status: u16,
    },
    /// Any status with a literal JSON body and optional headers (usage-limit bodies and the like).
    Http {
        status: u16,
        body: serde_json::Value,
        #[serde(default)]
        headers: Vec<(String, String)>,
    },
    /// Answer 200 and stream the first `after_events` SSE events, then drop the connection.
    CutStream {
        #[serde(default)]
        after_events: usize,
    },
    /// Accept the request and never answer. With `after_events`, send the 200 headers and that many
    /// SSE events first, then go silent.
    Stall {
        #[serde(default)]
        after_events: Option<usize>,
    },
}

fn default_retry_after() -> u64 {
    1
}

fn default_server_status() -> u16 {
    500
}

/// A failure pinned to the index of a main model request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestFault {
    /// 0-based index among main model requests.
    pub request: usize,
    pub fault: Fault,
}

impl Scenario {
    /// A scenario of the given turns.
    pub fn new(turns: Vec<Turn>) -> Self {
        Self {
            turns,
            ..Self::default()
        }
    }

    /// Parses a scenario from JSON text.
    pub fn from_json(text: &str) -> Result<Self, TestkitError> {
        serde_json::from_str(text).map_err(|source| TestkitError::Scenario {
            origin: "<inline>".to_owned(),
            source,
        })
    }

    /// Reads a scenario from a JSON file.
    pub fn from_file(path: &Path) -> Result<Self, TestkitError> {
        let text = std::fs::read_to_string(path).map_err(|source| TestkitError::Io {
            context: format!("reading scenario {}", path.display()),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| TestkitError::Scenario {
            origin: path.display().to_string(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example() {
        let text = r#"{
          "name": "basic",
          "turns": [
            {"when_last_user_contains": "create hello",
             "text": "Creating it.",
             "tool_calls": [{"type": "bash", "command": "echo hello > hello.txt"}],
             "usage": {"input_tokens": 1200, "output_tokens": 34},
             "faults": [{"type": "overloaded"}, {"type": "rate_limit", "retry_after_secs": 2}]},
            {"text": "Done.", "usage": {"input_tokens": 1300, "output_tokens": 5}}
          ],
          "request_faults": [{"request": 5, "fault": {"type": "stall"}}]
        }"#;
        let scenario = Scenario::from_json(text).unwrap();
        assert_eq!(scenario.turns.len(), 2);
        assert_eq!(
            scenario.turns[0].faults[1],
            Fault::RateLimit {
                retry_after_secs: 2,
                message: None
            }
        );
        assert_eq!(scenario.turns[1].usage.cache_read_input_tokens, 0);
        assert_eq!(
            scenario.request_faults[0].fault,
            Fault::Stall { after_events: None }
        );
    }

    #[test]
    fn rejects_unknown_keys() {
        let err = Scenario::from_json(r#"{"turns": [{"txt": "typo"}]}"#).unwrap_err();
        assert!(err.to_string().contains("txt"), "{err}");
    }
}
