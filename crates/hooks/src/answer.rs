//! pawl's answer to a hook, written in each CLI's protocol. pawl always exits 0 and lets the JSON
//! decide: exit 2 means "block" on some events and is never used, so a crash can not block.
//!
//! | answer | Claude Code / Codex | Gemini CLI |
//! |---|---|---|
//! | allow | `{}` (Codex needs JSON even to allow) | `{}` |
//! | allow + message | `{"systemMessage": m}` | `{"systemMessage": m}` |
//! | deny a tool | `hookSpecificOutput.permissionDecision: "deny"` + reason | `{"decision": "deny", "reason": r}` |
//! | block a stop | `{"decision": "block", "reason": r}` | `{"decision": "deny", "reason": r}` |
//! | add context | `hookSpecificOutput.additionalContext` | same |

use serde_json::{Value, json};

use crate::{Agent, HookKind};

/// Longest text pawl puts in one answer: the CLIs cap hook output near 10,000 characters and
/// spill or cut the rest, so pawl cuts first and says so.
pub const MAX_TEXT: usize = 9_000;

/// What pawl decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Nothing to say: proceed as if pawl were not there.
    Allow,
    /// Proceed, and show the user a message (e.g. why a run ended).
    AllowWithMessage(String),
    /// PreToolUse: the tool must not run; the reason goes to the model.
    Deny(String),
    /// Stop: the turn must not end; the reason is the continuation prompt.
    Block(String),
    /// SessionStart: add this to the model's context.
    Context(String),
}

impl Answer {
    /// The JSON text to print on stdout for `event` of `agent`.
    pub fn render(&self, agent: Agent, event: HookKind) -> String {
        self.to_json(agent, event).to_string()
    }

    pub fn to_json(&self, agent: Agent, event: HookKind) -> Value {
        match self {
            Answer::Allow => json!({}),
            Answer::AllowWithMessage(m) => json!({"systemMessage": cut(m)}),
            Answer::Deny(r) => match agent {
                Agent::Gemini => json!({"decision": "deny", "reason": cut(r)}),
                Agent::Claude | Agent::Codex => json!({"hookSpecificOutput": {
                    "hookEventName": event.event_name(agent),
                    "permissionDecision": "deny",
                    "permissionDecisionReason": cut(r),
                }}),
            },
            Answer::Block(r) => match agent {
                Agent::Gemini => json!({"decision": "deny", "reason": cut(r)}),
                Agent::Claude | Agent::Codex => json!({"decision": "block", "reason": cut(r)}),
            },
            Answer::Context(c) => json!({"hookSpecificOutput": {
                "hookEventName": event.event_name(agent),
                "additionalContext": cut(c),
            }}),
        }
    }
}

/// Cuts `s` to [`MAX_TEXT`] characters (on a char boundary), keeping the head and the tail.
pub fn cut(s: &str) -> String {
    let n = s.chars().count();
    if n <= MAX_TEXT {
        return s.to_string();
    }
    let keep = MAX_TEXT / 2 - 40;
    let head: String = s.chars().take(keep).collect();
    let tail: String = s.chars().skip(n - keep).collect();
    format!(
        "{head}\n[... {} characters cut by pawl ...]\n{tail}",
        n - 2 * keep
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_forms() {
        assert_eq!(
            Answer::Allow.render(Agent::Codex, HookKind::Stop),
            "{}",
            "Codex needs JSON even to allow"
        );
        assert_eq!(
            Answer::Block("fix it".into()).render(Agent::Claude, HookKind::Stop),
            r#"{"decision":"block","reason":"fix it"}"#
        );
        assert_eq!(
            Answer::Block("fix it".into()).render(Agent::Gemini, HookKind::Stop),
            r#"{"decision":"deny","reason":"fix it"}"#
        );
        assert_eq!(
            Answer::Deny("no".into()).render(Agent::Claude, HookKind::PreToolUse),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#
        );
        assert_eq!(
            Answer::Context("ctx".into()).render(Agent::Gemini, HookKind::SessionStart),
            r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}"#
        );
    }

    #[test]
    fn long_text_is_cut_with_head_and_tail() {
        let s = format!("HEAD{}TAIL", "é".repeat(20_000));
        let c = cut(&s);
        assert!(c.chars().count() <= MAX_TEXT);
        assert!(c.starts_with("HEAD") && c.ends_with("TAIL"));
        assert!(c.contains("characters cut by pawl"));
    }
}
