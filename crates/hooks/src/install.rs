//! Merging pawl's hooks into an agent CLI's settings, and taking exactly them out again.
//!
//! Every function here is a text-to-text transformation (the CLI reads and writes the files):
//! the user's keys keep their order and values, pawl's handlers go into matcher groups of their
//! own, and a pawl handler is recognised by its command (`<path>/pawl hook <agent> <event>`), so
//! installing twice changes nothing and removing leaves what the user had. Containers (an event's
//! list, `hooks`, the file) that become empty because pawl's entries left are removed too.
//!
//! | agent | local file (default) | shared file (`--shared`) | events | timeout unit |
//! |---|---|---|---|---|
//! | Claude Code | `.claude/settings.local.json` | `.claude/settings.json` | SessionStart, PreToolUse, PostToolUse, Stop, PreCompact | seconds |
//! | Codex | `.codex/hooks.json` | the same file | the same names | seconds |
//! | Gemini CLI | `.gemini/settings.json` | the same file | SessionStart, BeforeTool, AfterTool, AfterAgent, PreCompress | milliseconds |
//!
//! Only Claude Code reads a project settings file meant to stay out of git; Codex (project
//! layers `.codex/config.toml`, `.codex/hooks.json`) and Gemini CLI (system, user, workspace)
//! have none, so the CLI keeps their project file out of git instead (`.git/info/exclude`).

use serde_json::{Map, Value, json};

use crate::{Agent, HookError, HookKind};

/// One handler pawl installs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handler {
    pub kind: HookKind,
    pub matcher: Option<&'static str>,
    /// Seconds. A Stop runs the checks (a test suite can take minutes); the rest answer at once.
    pub timeout_s: u64,
}

/// The Stop hook's timeout: the checks run inside it.
pub const STOP_TIMEOUT_S: u64 = 1800;
/// Every other hook's timeout.
pub const HOOK_TIMEOUT_S: u64 = 30;

/// Where pawl's hooks go: the agent's local settings of this machine, or the file a team
/// commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Not committed; the hooks may run this machine's pawl by its absolute path.
    #[default]
    Local,
    /// Committed; the hooks run `pawl` found on PATH, so they work on any machine.
    Shared,
}

/// The command prefix of hooks in a shared file: `pawl`, found on the agent's PATH.
pub const SHARED_PREFIX: &str = "pawl";

/// The committed (shared) settings file of `agent`, relative to the repository root.
pub fn settings_path(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => ".claude/settings.json",
        Agent::Codex => ".codex/hooks.json",
        Agent::Gemini => ".gemini/settings.json",
    }
}

/// The settings file of `agent` for `scope`, relative to the repository root. Only Claude Code
/// has a local file of its own; for the others it is the project file.
pub fn scoped_settings_path(agent: Agent, scope: Scope) -> &'static str {
    match (agent, scope) {
        (Agent::Claude, Scope::Local) => ".claude/settings.local.json",
        _ => settings_path(agent),
    }
}

/// Every settings file of `agent` that may hold pawl's hooks (local first).
pub fn settings_paths(agent: Agent) -> Vec<&'static str> {
    let local = scoped_settings_path(agent, Scope::Local);
    let shared = scoped_settings_path(agent, Scope::Shared);
    if local == shared {
        vec![local]
    } else {
        vec![local, shared]
    }
}

/// The handlers pawl installs for `agent`.
pub fn handlers(agent: Agent) -> Vec<Handler> {
    let (start, tools) = match agent {
        Agent::Claude => (
            Some("startup|resume|compact"),
            "Bash|Write|Edit|MultiEdit|NotebookEdit",
        ),
        // Codex reports its shell as `Bash` and patches as `apply_patch` (aliases Edit, Write).
        Agent::Codex => (None, "Bash|apply_patch|Edit|Write"),
        Agent::Gemini => (None, "run_shell_command|write_file|replace"),
    };
    HookKind::ALL
        .into_iter()
        .map(|kind| Handler {
            kind,
            matcher: match kind {
                HookKind::SessionStart => start,
                HookKind::PreToolUse | HookKind::PostToolUse => Some(tools),
                HookKind::Stop | HookKind::PreCompact => None,
            },
            timeout_s: if kind == HookKind::Stop {
                STOP_TIMEOUT_S
            } else {
                HOOK_TIMEOUT_S
            },
        })
        .collect()
}

/// The command a handler runs: `<prefix> hook <agent> <event>`. `prefix` is the pawl binary,
/// already quoted for the shell ([`shell_quote`]).
pub fn hook_command(prefix: &str, agent: Agent, kind: HookKind) -> String {
    format!("{prefix} hook {} {}", agent.as_str(), kind.as_arg())
}

/// Quotes a path for `sh -c` when it needs it.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Whether a handler's command is one pawl installed: the program's file name is `pawl` and
/// it is followed by `hook <agent> <event>` and nothing else.
pub fn is_pawl_command(cmd: &str) -> bool {
    let words: Vec<String> = cmd
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"').to_string())
        .collect();
    let Some(i) = words.iter().rposition(|w| w == "hook") else {
        return false;
    };
    if i == 0 || words.len() != i + 3 {
        return false;
    }
    let program = words.get(i - 1).map(String::as_str).unwrap_or("");
    let name = program.rsplit('/').next().unwrap_or(program);
    let agent_ok = words.get(i + 1).is_some_and(|a| Agent::parse(a).is_some());
    let event_ok = words
        .get(i + 2)
        .is_some_and(|e| HookKind::parse(e).is_some());
    matches!(name, "pawl" | "pawl.exe") && agent_ok && event_ok
}

/// The program a pawl handler's command runs (`/abs/pawl` of `'/abs/pawl' hook claude stop`),
/// unquoted; `None` for any other command.
pub fn pawl_program(cmd: &str) -> Option<String> {
    if !is_pawl_command(cmd) {
        return None;
    }
    let at = cmd.rfind(" hook ")?;
    let program = cmd[..at].trim();
    let unquoted = match program
        .strip_prefix('\'')
        .and_then(|p| p.strip_suffix('\''))
    {
        Some(inner) => inner.replace("'\\''", "'"),
        None => program.trim_matches('"').to_owned(),
    };
    Some(unquoted)
}

/// The programs of every pawl handler in a settings text (any agent's shape: every
/// `"command"` string in it is looked at).
pub fn pawl_programs(text: &str) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("command", Value::String(c)) => {
                            if let Some(p) = pawl_program(c)
                                && !out.contains(&p)
                            {
                                out.push(p);
                            }
                        }
                        _ => walk(x, out),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        walk(&v, &mut out);
    }
    out
}

/// The result of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    /// False when the file already had exactly pawl's hooks.
    pub changed: bool,
}

/// Merges pawl's hooks for `agent` into the settings text `existing` (`None`: no file yet).
/// `file` names the file in errors.
pub fn merge(
    agent: Agent,
    file: &str,
    existing: Option<&str>,
    prefix: &str,
) -> Result<Merged, HookError> {
    let mut root = parse_object(file, existing)?;
    let before = root.clone();
    let hooks = object_entry(&mut root, "hooks", file)?;
    for h in handlers(agent) {
        let event = h.kind.event_name(agent);
        let list = array_entry(hooks, event, file)?;
        let command = hook_command(prefix, agent, h.kind);
        let group = group_json(agent, &h, &command);
        let ours = list.iter().position(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().any(|x| handler_is_pawl(x, agent, h.kind)))
        });
        match ours {
            Some(i) => {
                if let Some(slot) = list.get_mut(i) {
                    *slot = group;
                }
            }
            None => list.push(group),
        }
    }
    let changed = root != before;
    Ok(Merged {
        text: render(&root),
        changed,
    })
}

/// The result of a removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// The new text; `None` when nothing but pawl's hooks was in the file (delete it).
    pub text: Option<String>,
    /// How many handlers were taken out.
    pub removed: usize,
}

/// Takes every pawl handler (of any agent) out of the settings text.
pub fn remove(file: &str, existing: &str) -> Result<Removed, HookError> {
    let mut root = parse_object(file, Some(existing))?;
    let mut removed = 0;
    let mut hooks_now_empty = false;
    if let Some(Value::Object(hooks)) = root.get_mut("hooks") {
        let events: Vec<String> = hooks.keys().cloned().collect();
        for event in events {
            let Some(Value::Array(groups)) = hooks.get_mut(&event) else {
                continue;
            };
            let mut removed_here = 0;
            groups.retain_mut(|g| {
                let Some(Value::Array(hs)) = g.get_mut("hooks") else {
                    return true;
                };
                let n = hs.len();
                hs.retain(|x| {
                    !x.get("command")
                        .and_then(Value::as_str)
                        .is_some_and(is_pawl_command)
                });
                let gone = n - hs.len();
                removed_here += gone;
                !(gone > 0 && hs.is_empty())
            });
            removed += removed_here;
            if removed_here > 0 && groups.is_empty() {
                hooks.shift_remove(&event);
            }
        }
        hooks_now_empty = hooks.is_empty();
    }
    if removed > 0 && hooks_now_empty {
        root.shift_remove("hooks");
    }
    let text = if removed > 0 && root.is_empty() {
        None
    } else {
        Some(render(&root))
    };
    Ok(Removed { text, removed })
}

/// Adds `entries` to Claude Code's `permissions.allow` (for `--autonomous`). Returns the new
/// text and the entries that were not there before (exactly those are removed later).
pub fn merge_permissions(
    file: &str,
    existing: Option<&str>,
    entries: &[String],
) -> Result<(String, Vec<String>), HookError> {
    merge_permission_list(file, existing, "allow", entries)
}

/// Takes exactly `entries` out of `permissions.allow`; `None` when the file is left empty.
pub fn remove_permissions(
    file: &str,
    existing: &str,
    entries: &[String],
) -> Result<Option<String>, HookError> {
    remove_permission_list(file, existing, "allow", entries)
}

/// Adds `entries` to Claude Code's `permissions.<list>` (`allow`, `deny`). Returns the new text
/// and the entries that were not there before.
pub fn merge_permission_list(
    file: &str,
    existing: Option<&str>,
    list: &str,
    entries: &[String],
) -> Result<(String, Vec<String>), HookError> {
    let mut root = parse_object(file, existing)?;
    let perms = object_entry(&mut root, "permissions", file)?;
    let values = array_entry(perms, list, file)?;
    let mut added = Vec::new();
    for e in entries {
        if !values.iter().any(|v| v.as_str() == Some(e.as_str())) {
            values.push(Value::String(e.clone()));
            added.push(e.clone());
        }
    }
    Ok((render(&root), added))
}

/// Takes exactly `entries` out of `permissions.<list>`; `None` when the file is left empty.
pub fn remove_permission_list(
    file: &str,
    existing: &str,
    list: &str,
    entries: &[String],
) -> Result<Option<String>, HookError> {
    let mut root = parse_object(file, Some(existing))?;
    let mut removed = 0;
    let mut perms_empty = false;
    if let Some(Value::Object(perms)) = root.get_mut("permissions") {
        if let Some(Value::Array(values)) = perms.get_mut(list) {
            let n = values.len();
            values.retain(|v| !v.as_str().is_some_and(|s| entries.iter().any(|e| e == s)));
            removed = n - values.len();
            if removed > 0 && values.is_empty() {
                perms.shift_remove(list);
            }
        }
        perms_empty = perms.is_empty();
    }
    if removed > 0 && perms_empty {
        root.shift_remove("permissions");
    }
    Ok(if removed > 0 && root.is_empty() {
        None
    } else {
        Some(render(&root))
    })
}

/// A Claude Code plugin that runs pawl's hooks: `(relative path, text)` for
/// `.claude-plugin/plugin.json` and `hooks/hooks.json`.
pub fn plugin_files(prefix: &str, version: &str) -> Vec<(&'static str, String)> {
    let manifest = json!({
        "name": "pawl",
        "version": version,
        "description": "pawl keeps the agent working until pawl's own checks pass: Stop runs them, PreToolUse is the safety guard, SessionStart restores the run's context.",
    });
    let mut hooks = Map::new();
    for h in handlers(Agent::Claude) {
        let command = hook_command(prefix, Agent::Claude, h.kind);
        hooks.insert(
            h.kind.event_name(Agent::Claude).to_string(),
            Value::Array(vec![group_json(Agent::Claude, &h, &command)]),
        );
    }
    let hooks_json = json!({
        "description": "pawl's in-session driver (no-op for sessions that belong to no pawl run)",
        "hooks": Value::Object(hooks),
    });
    vec![
        (".claude-plugin/plugin.json", render_value(&manifest)),
        ("hooks/hooks.json", render_value(&hooks_json)),
    ]
}

fn handler_is_pawl(x: &Value, agent: Agent, kind: HookKind) -> bool {
    x.get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| is_pawl_command(c) && c.ends_with(&format!(" hook {agent} {kind}")))
}

fn group_json(agent: Agent, h: &Handler, command: &str) -> Value {
    let mut handler = Map::new();
    if agent == Agent::Gemini {
        // Gemini fingerprints project hooks by name + command; timeouts are milliseconds.
        handler.insert("name".into(), json!(format!("pawl-{}", h.kind.as_arg())));
    }
    handler.insert("type".into(), json!("command"));
    handler.insert("command".into(), json!(command));
    let timeout = match agent {
        Agent::Gemini => h.timeout_s * 1000,
        Agent::Claude | Agent::Codex => h.timeout_s,
    };
    handler.insert("timeout".into(), json!(timeout));
    let mut group = Map::new();
    if let Some(m) = h.matcher {
        group.insert("matcher".into(), json!(m));
    }
    group.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
    Value::Object(group)
}

fn parse_object(file: &str, text: Option<&str>) -> Result<Map<String, Value>, HookError> {
    let text = text.unwrap_or("").trim();
    if text.is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(HookError::SettingsShape {
            file: file.into(),
            key: "(top level)".into(),
            expected: "a JSON object",
        }),
        Err(source) => Err(HookError::SettingsNotJson {
            file: file.into(),
            source,
        }),
    }
}

fn object_entry<'a>(
    m: &'a mut Map<String, Value>,
    key: &str,
    file: &str,
) -> Result<&'a mut Map<String, Value>, HookError> {
    let v = m
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    v.as_object_mut().ok_or_else(|| HookError::SettingsShape {
        file: file.into(),
        key: key.into(),
        expected: "an object",
    })
}

fn array_entry<'a>(
    m: &'a mut Map<String, Value>,
    key: &str,
    file: &str,
) -> Result<&'a mut Vec<Value>, HookError> {
    let v = m
        .entry(key.to_string())
        .or_insert_with(|| Value::Array(Vec::new()));
    v.as_array_mut().ok_or_else(|| HookError::SettingsShape {
        file: file.into(),
        key: key.into(),
        expected: "a list",
    })
}

fn render(m: &Map<String, Value>) -> String {
    render_value(&Value::Object(m.clone()))
}

fn render_value(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_pawl_commands_only() {
        assert!(is_pawl_command("/usr/local/bin/pawl hook claude stop"));
        assert!(is_pawl_command("'/my dir/pawl' hook codex pre-tool-use"));
        assert!(is_pawl_command("pawl hook gemini session-start"));
        assert!(!is_pawl_command("/x/pawlish hook claude stop"));
        assert!(!is_pawl_command("pawl hook claude stop --extra"));
        assert!(!is_pawl_command("python3 hooks/stop.py"));
        assert!(!is_pawl_command("pawl hook nobody stop"));
    }

    #[test]
    fn finds_the_program_of_pawl_handlers() {
        assert_eq!(
            pawl_program("/usr/local/bin/pawl hook claude stop").as_deref(),
            Some("/usr/local/bin/pawl")
        );
        assert_eq!(
            pawl_program("'/my dir/pawl' hook codex pre-tool-use").as_deref(),
            Some("/my dir/pawl")
        );
        assert_eq!(pawl_program("python3 hooks/stop.py"), None);
        let merged = merge(Agent::Gemini, "f", None, "'/opt/p q/pawl'").map(|m| m.text);
        assert_eq!(
            merged.map(|t| pawl_programs(&t)).unwrap_or_default(),
            vec!["/opt/p q/pawl".to_string()]
        );
    }
}
