//! What the mock needs to know about a model request, whatever API it came through, and the rule
//! that picks the scripted turn from it.
//!
//! Turn selection looks only at the conversation history the client sent, never at arrival order,
//! so a client retrying a request (after a 429, a 529, a cut stream) gets the same turn again.

use crate::scenario::{Scenario, Turn};

/// The API-neutral digest of one model request.
#[derive(Debug, Clone, Default)]
pub(crate) struct Conversation {
    /// Text of every user-side message that carries text, in order (tool results excluded).
    pub user_texts: Vec<String>,
    /// Outputs of tool calls the client reports back (tool_result / function_call_output /
    /// functionResponse), in order.
    pub tool_outputs: Vec<String>,
    /// Model turns already in the history.
    pub assistant_turns: usize,
    /// Model turns after the last user prompt (a user message with text and no tool results).
    pub assistant_turns_since_prompt: usize,
    /// Text of that last user prompt.
    pub last_prompt: Option<String>,
    /// Tools the client offered.
    pub tools: Vec<OfferedTool>,
    /// The working directory the client announced in its prompt, if any.
    pub cwd: Option<String>,
    /// A request that is not a step of the agent loop (title, topic, quota probe, next-speaker check).
    pub auxiliary: bool,
    /// Text that hints what an auxiliary request wants (system prompt, schema), for its canned answer.
    pub auxiliary_hint: String,
    /// The model the client asked for.
    pub model: Option<String>,
    /// Whether the client asked for a streamed answer.
    pub stream: bool,
}

/// A tool the client offered, with the wire kind that decides how to call it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OfferedTool {
    pub name: String,
    /// `function`, `custom` (OpenAI freeform tools such as apply_patch), or the API's own word.
    pub kind: String,
}

impl Conversation {
    pub(crate) fn offers(&self, name: &str) -> bool {
        self.tools.iter().any(|tool| tool.name == name)
    }

    pub(crate) fn tool_kind(&self, name: &str) -> Option<&str> {
        self.tools
            .iter()
            .find(|tool| tool.name == name)
            .map(|tool| tool.kind.as_str())
    }

    /// Resolves a scenario path against the announced working directory, for tools (Claude's Write,
    /// Edit, Read) that insist on absolute paths.
    pub(crate) fn absolute(&self, path: &str) -> String {
        match &self.cwd {
            Some(cwd) if !path.starts_with('/') => {
                format!("{}/{}", cwd.trim_end_matches('/'), path)
            }
            _ => path.to_owned(),
        }
    }
}

/// Which turn of the scenario answers a main request: `Some(index)` into `scenario.turns`, or `None`
/// when the script has run out (the fallback turn answers).
///
/// A turn with `when_last_user_contains` that matches the last prompt starts a sequence there: the
/// answer is that turn plus one per model turn since the prompt. Without a match, the answer is the
/// turn numbered by the model turns in the whole history.
pub(crate) fn choose_turn(scenario: &Scenario, conversation: &Conversation) -> Option<usize> {
    let matched = conversation.last_prompt.as_deref().and_then(|prompt| {
        scenario.turns.iter().position(|turn| {
            turn.when_last_user_contains
                .as_deref()
                .is_some_and(|needle| prompt.contains(needle))
        })
    });
    let index = match matched {
        Some(start) => start + conversation.assistant_turns_since_prompt,
        None => conversation.assistant_turns,
    };
    (index < scenario.turns.len()).then_some(index)
}

/// The turn served when the script has run out.
pub(crate) fn fallback_turn(scenario: &Scenario) -> Turn {
    scenario
        .fallback
        .clone()
        .unwrap_or_else(|| Turn::text("Done."))
}

/// Finds `marker` in any of `texts` and returns the rest of that line, trimmed.
pub(crate) fn find_line_after<'a>(
    texts: impl IntoIterator<Item = &'a str>,
    marker: &str,
) -> Option<String> {
    texts.into_iter().find_map(|text| {
        let start = text.find(marker)? + marker.len();
        let rest = &text[start..];
        let line = rest.split(['\n', '<']).next().unwrap_or(rest).trim();
        (!line.is_empty()).then(|| line.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> Scenario {
        Scenario::new(vec![
            Turn::text("zero"),
            Turn::text("one"),
            Turn::text("stop feedback").when_last_user_contains("Stop hook feedback"),
            Turn::text("three"),
        ])
    }

    #[test]
    fn sequential_by_model_turns_in_history() {
        let conversation = Conversation {
            assistant_turns: 1,
            assistant_turns_since_prompt: 1,
            last_prompt: Some("create hello.txt".into()),
            ..Conversation::default()
        };
        assert_eq!(choose_turn(&scenario(), &conversation), Some(1));
    }

    #[test]
    fn matched_prompt_starts_a_sequence() {
        let mut conversation = Conversation {
            assistant_turns: 2,
            assistant_turns_since_prompt: 0,
            last_prompt: Some("Stop hook feedback:\ntests fail".into()),
            ..Conversation::default()
        };
        assert_eq!(choose_turn(&scenario(), &conversation), Some(2));
        conversation.assistant_turns_since_prompt = 1;
        assert_eq!(choose_turn(&scenario(), &conversation), Some(3));
        conversation.assistant_turns_since_prompt = 2;
        assert_eq!(choose_turn(&scenario(), &conversation), None);
    }

    #[test]
    fn finds_the_working_directory_line() {
        let texts = [
            "intro",
            " - Primary working directory: /tmp/x/repo\n - Is a git repository",
        ];
        assert_eq!(
            find_line_after(texts, "working directory:").as_deref(),
            Some("/tmp/x/repo")
        );
        assert_eq!(
            find_line_after(["<cwd>/r</cwd>"], "<cwd>").as_deref(),
            Some("/r")
        );
    }
}
