//! `pawl resume-context`: everything a fresh agent session needs, as Markdown or JSON.

use pawl_core::ExitCode;
use pawl_core::resume::ResumeContext;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::render;

pub fn run(ctx: &mut Ctx) -> CliResult<ExitCode> {
    let store = ctx.store()?;
    let run = store.resolve_run(ctx.run_flag.as_deref())?;
    let rc = store.resume_context(&run.id)?;
    ctx.emit(&rc, || markdown(&rc))?;
    Ok(ExitCode::Done)
}

/// The resume context as Markdown: what the SessionStart hook and prompts inject.
pub fn markdown(rc: &ResumeContext) -> String {
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
            out.push_str(&format!("- {}\n", render::story_line(s)));
        }
    }
    if !rc.criteria.is_empty() {
        out.push_str("\n## Criteria\n");
        for c in &rc.criteria {
            out.push_str(&format!("- {}\n", render::criterion_line(c)));
        }
    }
    if !rc.recent_failures.is_empty() {
        out.push_str("\n## Recent failures (newest first)\n");
        for f in &rc.recent_failures {
            out.push_str(&format!("- {}\n", render::failure_line(f)));
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
