//! Human renderings shared by several commands and the hooks: times, tables, one-line
//! summaries, the resume context as Markdown (`pawl resume-context`, the SessionStart hook).
//!
//! Not here: renderings only one command uses (they stay in that command's file) and JSON (the
//! records serialize themselves).

use pawl_core::model::CriterionStatus;
use pawl_core::record::{Criterion, Event, Failure, Run, Story};
use pawl_core::resume::ResumeContext;

/// `2026-11-21 06:45:01Z`
pub fn time(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.strftime("%Y-%m-%d %H:%M:%SZ").to_string())
        .unwrap_or_else(|_| ms.to_string())
}

/// `06:45:01`
pub fn clock(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.strftime("%H:%M:%S").to_string())
        .unwrap_or_else(|_| ms.to_string())
}

pub fn story_line(s: &Story) -> String {
    let sec = if s.security { " [security]" } else { "" };
    format!(
        "{:<4} {:<11} {:<2}  tdd:{:<8} attempts {}/{}  {}{sec}",
        s.id, s.status, s.size, s.tdd_phase, s.attempts, s.max_attempts, s.title
    )
}

pub fn criterion_line(c: &Criterion) -> String {
    let how = match &c.verification.command {
        Some(cmd) => format!("command: {cmd}"),
        None => c.verification.kind.to_string(),
    };
    let mark = match c.status {
        CriterionStatus::Verified => "✓",
        CriterionStatus::Failed => "✗",
        CriterionStatus::Unverified => "·",
    };
    format!("{mark} {:<4} {:<10} {}  ({how})", c.id, c.status, c.text)
}

pub fn failure_line(f: &Failure) -> String {
    let story = f.story_id.as_deref().unwrap_or("-");
    let how = if f.auto_classified {
        "classified"
    } else {
        "given"
    };
    format!(
        "#{:<3} {:<4} {:<11} ({how})  {}",
        f.id,
        story,
        f.category,
        first_line(&f.message)
    )
}

pub fn run_line(r: &Run) -> String {
    let reason = r.stop_reason.map(|s| format!(" ({s})")).unwrap_or_default();
    format!(
        "{}  {:<13} {:<8} {}{reason}",
        r.id, r.status, r.driver, r.goal
    )
}

pub fn event_line(e: &Event) -> String {
    let run = e
        .run_id
        .as_deref()
        .map(|r| r.rsplit('-').next().unwrap_or(r))
        .unwrap_or("-");
    let data = compact(&e.data);
    format!(
        "{:>5} {} {:<5} {:<18} {data}",
        e.seq,
        clock(e.at),
        run,
        e.kind
    )
}

/// A short `key=value` rendering of an event's data.
fn compact(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(map) => map
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}={}", quote_if_needed(s)),
                other => format!("{k}={other}"),
            })
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

fn quote_if_needed(s: &str) -> String {
    let s = first_line(s);
    if s.contains(' ') || s.is_empty() {
        format!("{s:?}")
    } else {
        s.to_string()
    }
}

pub fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// The resume context as Markdown: what the SessionStart hook and prompts inject.
pub fn resume_markdown(rc: &ResumeContext) -> String {
    let r = &rc.run;
    let mut out = format!(
        "# pawl run {}\n\nGoal: {}\nStatus: {}",
        r.id, r.goal, r.status
    );
    if let Some(p) = &r.phase {
        out.push_str(&format!(" · phase {p}"));
    }
    out.push('\n');
    if let Some(s) = &rc.current_story {
        out.push_str(&format!(
            "\n## Current story\n{} \"{}\" ({}{}) · TDD phase {} · attempt {}/{}\n",
            s.id,
            s.title,
            s.size,
            if s.security { ", security" } else { "" },
            s.tdd_phase,
            s.attempts + 1,
            s.max_attempts
        ));
    }
    if !rc.stories.is_empty() {
        out.push_str("\n## Stories\n");
        for s in &rc.stories {
            out.push_str(&format!("- {}\n", story_line(s)));
        }
    }
    if !rc.criteria.is_empty() {
        out.push_str("\n## Criteria\n");
        for c in &rc.criteria {
            out.push_str(&format!("- {}\n", criterion_line(c)));
        }
    }
    if !rc.recent_failures.is_empty() {
        out.push_str("\n## Recent failures (newest first)\n");
        for f in &rc.recent_failures {
            out.push_str(&format!("- {}\n", failure_line(f)));
        }
    }
    if !rc.open_blockers.is_empty() {
        out.push_str("\n## Open blockers\n");
        for b in &rc.open_blockers {
            out.push_str(&format!(
                "- {} ({}, {}): {}\n",
                b.id, b.severity, b.status, b.text
            ));
        }
    }
    if !rc.resolved_blockers.is_empty() {
        out.push_str("\n## Resolved blockers\n");
        for b in &rc.resolved_blockers {
            let notes = b.resolution_notes.as_deref().unwrap_or("no notes");
            out.push_str(&format!("- {}: {} — {}\n", b.id, b.text, notes));
        }
    }
    if !rc.clarifications.is_empty() {
        out.push_str("\n## Clarifications\n");
        for c in &rc.clarifications {
            out.push_str(&format!(
                "- [{}/{}] {} → {}\n",
                c.phase, c.category, c.question, c.answer
            ));
        }
    }
    if !rc.decisions.is_empty() {
        out.push_str("\n## Key decisions\n");
        for n in &rc.decisions {
            out.push_str(&format!("- {}\n", n.text));
        }
    }
    out.push_str(&format!("\n## Next step\n{}", rc.next_step));
    out
}
