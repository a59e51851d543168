//! `pawl` itself, run by the agent: it may report through pawl (stories, notes, blockers,
//! criteria, status) but not steer the run it is part of — stopping, cancelling, resuming,
//! re-arming, rolling back, raising limits, editing the configuration or hooks, or starting
//! another run are the user's.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::rules::{self, Spec};
use crate::walk::Judged;
use crate::walk::{Frame, Shell, Walker};
use crate::words::Arg;

/// `pawl` subcommands an agent may run during a run: reporting and reading.
#[rustfmt::skip]
const AGENT_SUBCOMMANDS: &[&str] = &[
    "status", "story", "criterion", "tdd", "failure", "retry-advice", "blocker", "await-user",
    "check-user-fix", "clarify", "note", "resume-context", "events", "verify", "detect", "analyze",
    "report", "runs", "diff", "logs", "doctor", "schema", "config", "guard", "help", "--help",
    "-h", "--version", "-V",
];

/// Options of `pawl` that take a value before the subcommand.
const GLOBAL_VALUES: &[&str] = &["--run", "--dir", "-C", "--color"];

impl Walker<'_> {
    /// Judges `pawl <args>` run by the agent.
    pub(crate) fn pawl(&mut self, args: &[Arg], _shell: &mut Shell, frame: &Frame) -> Judged {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "C",
                long_values: GLOBAL_VALUES,
                stop_at_operand: true,
            },
        );
        let Some(sub) = p.operands.first() else {
            return Continue(());
        };
        let Some(name) = sub.exact() else {
            return self.fail_closed(
                frame,
                RuleId::RunControl,
                format!(
                    "`pawl {}`: the subcommand is not statically known",
                    sub.text
                ),
            );
        };
        if AGENT_SUBCOMMANDS.contains(&name) {
            // `pawl report --open-pr` opens a pull request: the user's call.
            if name == "report" && p.operands.iter().any(|a| a.text.starts_with("--open-pr")) {
                self.deny(
                    frame,
                    RuleId::RunControl,
                    "`pawl report --open-pr` opens a pull request; only the user does that",
                )?;
            }
            // `pawl guard` only evaluates; `pawl verify --fix-lint` changes files like any
            // formatter, which is the agent's work.
            return Continue(());
        }
        self.deny(
            frame,
            RuleId::RunControl,
            format!(
                "`pawl {name}` steers the run (stop, cancel, resume, limits, configuration, hooks, rollback); \
                 only the user does that. Report through `pawl story`, `pawl note`, `pawl blocker add`"
            ),
        )
    }
}
