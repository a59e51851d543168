//! `pawl analyze "<goal>"`: the spec analysis pawl runs before work starts — clarity, the
//! pre-execution gate, size, workflow, reversibility, security, external services, and the mode.

use clap::Args;
use pawl_core::ExitCode;
use pawl_core::spec::{self, Analysis, Shape};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::project;

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// The goal, as you would give it to `pawl run`.
    pub goal: String,
}

pub fn run(ctx: &mut Ctx, args: &AnalyzeArgs) -> CliResult<ExitCode> {
    if args.goal.trim().is_empty() {
        return Err(CliError::Usage("the goal is empty".into()));
    }
    let facts = project::spec_facts(ctx)?;
    let a = spec::analyze(&args.goal, &facts);
    ctx.emit(&a, || render(&a))?;
    Ok(ExitCode::Done)
}

pub fn render(a: &Analysis) -> String {
    let c = &a.clarity;
    let shape = match a.shape {
        Shape::Tool => "tool: run silently",
        Shape::Colleague => "colleague: check in at the gates unless told to proceed",
        Shape::Intent => "intent: clarify first",
    };
    let mut o = format!("goal: {}\n", a.goal);
    o.push_str(&format!(
        "clarity {}/10 (outcome {} · scope {} · constraints {} · success {} · done {}) → {shape}\n",
        c.total, c.outcome, c.scope, c.constraints, c.success, c.done
    ));
    o.push_str(&format!(
        "gate: {} — {}\n",
        if a.gate.proceed {
            "proceed"
        } else {
            "clarify first"
        },
        a.gate.reason
    ));
    if a.simple {
        o.push_str("class: simple\n");
    } else {
        o.push_str(&format!(
            "class: complex ({})\n",
            a.simple_reasons.join("; ")
        ));
    }
    let security = if a.security_sensitive {
        format!("yes ({})", a.security_terms.join(", "))
    } else {
        "no".into()
    };
    o.push_str(
        &format!(
            "workflow: {:?} · reversibility: {:?} · security-sensitive: {security}\n",
            a.workflow, a.reversibility
        )
        .to_lowercase(),
    );
    for e in &a.external {
        o.push_str(&format!(
            "external: {} ({}) → mock: {}\n",
            e.category,
            e.terms.join(", "),
            e.mock_strategy
        ));
    }
    o.push_str(&format!(
        "mode: {} — {}",
        a.mode.mode.as_str(),
        a.mode.reason
    ));
    if let Some(s) = &a.split_suggestion {
        o.push_str(&format!("\nsuggestion: {s}"));
    }
    o
}
