//! Long sessions: an interactive agent session that has compacted its context too often, or
//! made too many tool calls, is asked to wrap up the story in progress (the Stop hook's reason)
//! before it carries on, so the run's state stays something a fresh session can resume.
//!
//! Pure: the hooks count compactions (PreCompact) and tool calls (PostToolUse); this decides.

use serde::{Deserialize, Serialize};

/// The workflow's limits of one run's sessions (`[pipeline] session_compactions`,
/// `session_tool_calls`); 0 is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    pub compactions: u32,
    pub tool_calls: u32,
}

/// What the run's sessions did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub compactions: u32,
    pub tool_calls: u32,
}

/// The request to wrap up when a limit is reached (`None` below every limit).
pub fn wrap_up(counts: Counts, limits: Limits, story: Option<&str>) -> Option<String> {
    let past = |n: u32, max: u32| max > 0 && n >= max;
    let mut why = Vec::new();
    if past(counts.compactions, limits.compactions) {
        why.push(format!(
            "{} compaction(s) (limit {})",
            counts.compactions, limits.compactions
        ));
    }
    if past(counts.tool_calls, limits.tool_calls) {
        why.push(format!(
            "{} tool calls (limit {})",
            counts.tool_calls, limits.tool_calls
        ));
    }
    if why.is_empty() {
        return None;
    }
    let what = match story {
        Some(id) => format!("story {id}"),
        None => "the current change".to_owned(),
    };
    Some(format!(
        "This session is long ({}): wrap up {what} now — make its checks pass, record what is left with `pawl note`, and do not start new work in this session; a fresh session resumes from pawl's state.",
        why.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_a_limit_the_session_is_asked_to_wrap_up_the_story() {
        let limits = Limits {
            compactions: 2,
            tool_calls: 100,
        };
        let c = |compactions, tool_calls| Counts {
            compactions,
            tool_calls,
        };
        assert_eq!(wrap_up(c(1, 99), limits, Some("S1")), None);
        let t = wrap_up(c(2, 10), limits, Some("S1")).unwrap();
        assert!(
            t.contains("2 compaction(s) (limit 2)") && t.contains("wrap up story S1"),
            "{t}"
        );
        let t = wrap_up(c(0, 100), limits, None).unwrap();
        assert!(t.contains("100 tool calls (limit 100)"), "{t}");
        // 0 is no limit.
        assert_eq!(wrap_up(c(50, 5000), Limits::default(), None), None);
    }
}
