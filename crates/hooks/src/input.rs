//! A hook's stdin JSON, typed. Claude Code and Codex share one shape (Codex adds `turn_id` and
//! `model`); Gemini CLI names its events differently (`BeforeTool`, `AfterAgent`, ...). Each wire
//! format is a tagged enum with an `Unknown` fallback, and unknown fields are ignored: a newer CLI
//! that adds an event or a field is answered, never crashed on.

use serde::Deserialize;
use serde_json::Value;

use crate::{Agent, HookError, patch};

/// One hook invocation, as pawl sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub transcript_path: Option<String>,
    pub event: Event,
}

/// The event, in pawl's words.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `source`: `startup`, `resume`, `compact`, `clear`, ... (as the CLI says it).
    SessionStart {
        source: String,
    },
    PreToolUse(ToolCall),
    PostToolUse(ToolCall),
    /// The agent wants to end its turn. `last_message` is its final text when the CLI says it.
    Stop {
        stop_hook_active: bool,
        last_message: Option<String>,
    },
    PreCompact {
        trigger: Option<String>,
    },
    /// An event pawl does not handle (or a new one): answered with "allow".
    Unknown {
        name: String,
    },
}

/// A tool call, reduced to what the guard and the thrash count need.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCall {
    /// A shell command line.
    Shell { tool: String, command: String },
    /// A file-writing tool and the paths it writes (as given: absolute or relative to cwd).
    FileWrite { tool: String, paths: Vec<String> },
    /// A file-writing tool whose target pawl could not find: denied while a run is active.
    Unreadable { tool: String, why: String },
    /// Anything else (reads, searches, web, MCP): not the guard's business.
    Other { tool: String },
}

impl ToolCall {
    pub fn tool(&self) -> &str {
        match self {
            ToolCall::Shell { tool, .. }
            | ToolCall::FileWrite { tool, .. }
            | ToolCall::Unreadable { tool, .. }
            | ToolCall::Other { tool } => tool,
        }
    }

    /// What the guard is asked about this call.
    pub fn guard_inputs(&self) -> Vec<pawl_guard::Input> {
        match self {
            ToolCall::Shell { command, .. } => vec![pawl_guard::Input::shell(command.clone())],
            ToolCall::FileWrite { paths, .. } => paths
                .iter()
                .map(|p| pawl_guard::Input::file_write(p.clone()))
                .collect(),
            ToolCall::Unreadable { .. } | ToolCall::Other { .. } => Vec::new(),
        }
    }

    /// The files this call writes (for the per-file edit count).
    pub fn written_paths(&self) -> &[String] {
        match self {
            ToolCall::FileWrite { paths, .. } => paths,
            _ => &[],
        }
    }
}

/// Claude Code's and Codex's stdin (same event names and fields).
#[derive(Debug, Deserialize)]
#[serde(tag = "hook_event_name")]
enum ClaudeWire {
    SessionStart {
        #[serde(default)]
        source: Option<String>,
    },
    PreToolUse {
        #[serde(default)]
        tool_name: String,
        #[serde(default)]
        tool_input: Value,
    },
    PostToolUse {
        #[serde(default)]
        tool_name: String,
        #[serde(default)]
        tool_input: Value,
    },
    Stop {
        #[serde(default)]
        stop_hook_active: bool,
        #[serde(default)]
        last_assistant_message: Option<String>,
    },
    PreCompact {
        #[serde(default)]
        trigger: Option<String>,
    },
    #[serde(other)]
    Unknown,
}

/// Gemini CLI's stdin.
#[derive(Debug, Deserialize)]
#[serde(tag = "hook_event_name")]
enum GeminiWire {
    SessionStart {
        #[serde(default)]
        source: Option<String>,
    },
    BeforeTool {
        #[serde(default)]
        tool_name: String,
        #[serde(default)]
        tool_input: Value,
    },
    AfterTool {
        #[serde(default)]
        tool_name: String,
        #[serde(default)]
        tool_input: Value,
    },
    AfterAgent {
        #[serde(default)]
        stop_hook_active: bool,
        #[serde(default)]
        prompt_response: Option<String>,
    },
    PreCompress {
        #[serde(default)]
        trigger: Option<String>,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Deserialize, Default)]
struct Common {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    transcript_path: Option<String>,
    #[serde(default)]
    hook_event_name: Option<String>,
}

/// Parses a hook's stdin for `agent`. Only text that is not JSON at all is an error; a JSON
/// value of an unexpected shape is an [`Event::Unknown`].
pub fn parse(agent: Agent, text: &str) -> Result<HookInput, HookError> {
    let value: Value = serde_json::from_str(text).map_err(HookError::InputNotJson)?;
    let common = Common::deserialize(&value).unwrap_or_default();
    let name = common.hook_event_name.clone().unwrap_or_default();
    let unknown = || Event::Unknown { name: name.clone() };
    let event = match agent {
        Agent::Claude | Agent::Codex => match ClaudeWire::deserialize(&value) {
            Ok(ClaudeWire::SessionStart { source }) => Event::SessionStart {
                source: source.unwrap_or_else(|| "startup".into()),
            },
            Ok(ClaudeWire::PreToolUse {
                tool_name,
                tool_input,
            }) => Event::PreToolUse(tool_call(&tool_name, &tool_input)),
            Ok(ClaudeWire::PostToolUse {
                tool_name,
                tool_input,
            }) => Event::PostToolUse(tool_call(&tool_name, &tool_input)),
            Ok(ClaudeWire::Stop {
                stop_hook_active,
                last_assistant_message,
            }) => Event::Stop {
                stop_hook_active,
                last_message: last_assistant_message,
            },
            Ok(ClaudeWire::PreCompact { trigger }) => Event::PreCompact { trigger },
            Ok(ClaudeWire::Unknown) | Err(_) => unknown(),
        },
        Agent::Gemini => match GeminiWire::deserialize(&value) {
            Ok(GeminiWire::SessionStart { source }) => Event::SessionStart {
                source: source.unwrap_or_else(|| "startup".into()),
            },
            Ok(GeminiWire::BeforeTool {
                tool_name,
                tool_input,
            }) => Event::PreToolUse(tool_call(&tool_name, &tool_input)),
            Ok(GeminiWire::AfterTool {
                tool_name,
                tool_input,
            }) => Event::PostToolUse(tool_call(&tool_name, &tool_input)),
            Ok(GeminiWire::AfterAgent {
                stop_hook_active,
                prompt_response,
            }) => Event::Stop {
                stop_hook_active,
                last_message: prompt_response,
            },
            Ok(GeminiWire::PreCompress { trigger }) => Event::PreCompact { trigger },
            Ok(GeminiWire::Unknown) | Err(_) => unknown(),
        },
    };
    Ok(HookInput {
        session_id: common.session_id.filter(|s| !s.is_empty()),
        cwd: common.cwd,
        transcript_path: common.transcript_path,
        event,
    })
}

/// Shell tools across the CLIs (Claude `Bash`/`PowerShell`, Codex `Bash` as reported to hooks and
/// its raw tool names, Gemini `run_shell_command`).
const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "PowerShell",
    "run_shell_command",
    "shell",
    "shell_command",
    "exec_command",
    "local_shell",
];

/// File-writing tools: Claude `Write`/`Edit`/`MultiEdit`/`NotebookEdit`, Codex `apply_patch`
/// (hook aliases `Edit`/`Write`), Gemini `write_file`/`replace`.
const FILE_TOOLS: &[&str] = &[
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "apply_patch",
    "write_file",
    "replace",
];

/// Maps one tool call onto pawl's view of it.
pub fn tool_call(name: &str, input: &Value) -> ToolCall {
    let tool = name.to_string();
    if SHELL_TOOLS.contains(&name) {
        return match shell_command(input) {
            Some(command) => ToolCall::Shell { tool, command },
            None => ToolCall::Unreadable {
                tool,
                why: "the shell tool's input has no command".into(),
            },
        };
    }
    if !FILE_TOOLS.contains(&name) {
        return ToolCall::Other { tool };
    }
    for key in ["file_path", "notebook_path", "absolute_path", "path"] {
        if let Some(p) = input.get(key).and_then(Value::as_str)
            && !p.is_empty()
        {
            return ToolCall::FileWrite {
                tool,
                paths: vec![p.to_string()],
            };
        }
    }
    // apply_patch carries the patch body: as `command` when reported to hooks, else `input`/`patch`.
    let body = ["command", "input", "patch"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .or_else(|| input.as_str());
    match body.map(patch::paths) {
        Some(paths) if !paths.is_empty() => ToolCall::FileWrite { tool, paths },
        Some(_) => ToolCall::Unreadable {
            tool,
            why: "no file path found in the patch".into(),
        },
        None => ToolCall::Unreadable {
            tool,
            why: "the file tool's input names no file".into(),
        },
    }
}

/// The command line of a shell tool call: a string, or an argv array (`["bash","-lc","ls"]`).
fn shell_command(input: &Value) -> Option<String> {
    let v = input.get("command").or_else(|| input.get("cmd"))?;
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            if words.len() != items.len() || words.is_empty() {
                return None;
            }
            // `bash -lc "<script>"`: the script is the command line.
            if let [shell, flag, script] = words.as_slice()
                && matches!(*shell, "bash" | "sh" | "zsh" | "/bin/bash" | "/bin/sh")
                && flag.starts_with('-')
                && flag.contains('c')
            {
                return Some((*script).to_string());
            }
            Some(words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" "))
        }
        _ => None,
    }
}

fn quote(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_event_and_garbage_fields_are_unknown_not_errors() {
        let i = parse(
            Agent::Claude,
            r#"{"hook_event_name":"Brand New","session_id":"s","x":1}"#,
        )
        .unwrap();
        assert_eq!(
            i.event,
            Event::Unknown {
                name: "Brand New".into()
            }
        );
        assert_eq!(i.session_id.as_deref(), Some("s"));
        let i = parse(Agent::Codex, r#"[1,2]"#).unwrap();
        assert!(matches!(i.event, Event::Unknown { .. }));
        assert!(parse(Agent::Gemini, "not json").is_err());
    }

    #[test]
    fn shell_argv_forms() {
        let t = tool_call("shell", &json!({"command": ["bash", "-lc", "rm -rf /"]}));
        assert_eq!(
            t,
            ToolCall::Shell {
                tool: "shell".into(),
                command: "rm -rf /".into()
            }
        );
        let t = tool_call("exec_command", &json!({"cmd": "ls"}));
        assert!(matches!(t, ToolCall::Shell { command, .. } if command == "ls"));
        let t = tool_call("shell", &json!({"command": ["git", "push", "a b"]}));
        assert!(matches!(t, ToolCall::Shell { command, .. } if command == "git push 'a b'"));
    }

    #[test]
    fn file_tools_of_every_cli() {
        let t = tool_call("Write", &json!({"file_path": "/r/a.rs", "content": "x"}));
        assert_eq!(t.written_paths(), ["/r/a.rs"]);
        let t = tool_call("replace", &json!({"file_path": "b.rs"}));
        assert_eq!(t.written_paths(), ["b.rs"]);
        let t = tool_call(
            "apply_patch",
            &json!({"command": "*** Begin Patch\n*** Add File: c.txt\n+hi\n*** End Patch\n"}),
        );
        assert_eq!(t.written_paths(), ["c.txt"]);
        let t = tool_call("Edit", &json!({}));
        assert!(matches!(t, ToolCall::Unreadable { .. }));
        let t = tool_call("Read", &json!({"file_path": "/etc/passwd"}));
        assert!(matches!(t, ToolCall::Other { .. }));
    }
}
