//! The prompts pawl sends: the first one states the goal and the rules; a continuation carries
//! only what helps the next step — unmet criteria, compact failing evidence, the retry context and
//! the decisions noted so far.

use pawl_core::record::{Criterion, Failure, Note, Story};

use crate::verify::VerifyReport;

/// What the continuation prompt is built from.
pub struct PromptInput<'a> {
    pub goal: &'a str,
    pub run_id: &'a str,
    pub iteration: u32,
    pub max_iterations: u32,
    pub story: Option<&'a Story>,
    pub criteria: &'a [Criterion],
    pub last: Option<&'a VerifyReport>,
    pub recent_failures: &'a [Failure],
    pub files_changed: &'a [String],
    pub decisions: &'a [Note],
    pub agent_claimed_done: bool,
    /// The same failure came back: the approach that failed (pawl-core's `ChangeApproach`).
    pub change_approach: Option<&'a str>,
}

const RULES: &str = "pawl decides when the work is done: it runs the checks itself after each step. \
Saying \"done\" changes nothing; passing checks do. Report through pawl's CLI when useful \
(`pawl story add|start`, `pawl note \"<decision>\"`, `pawl blocker add \"<what>\"`).";

pub fn initial(input: &PromptInput<'_>) -> String {
    let mut p = format!("Goal: {}\n\n{RULES}\n", input.goal);
    push_criteria(&mut p, input.criteria);
    if let Some(s) = input.story {
        p.push_str(&format!(
            "\nCurrent story: {} \"{}\" (size {}).\n",
            s.id, s.title, s.size
        ));
    }
    push_checks(&mut p, input.last);
    // What was settled before the first step (the spec gate's assumptions or answers).
    if !input.decisions.is_empty() {
        p.push_str("\nKey decisions so far:\n");
        for n in input.decisions {
            p.push_str(&format!("- {}\n", n.text));
        }
    }
    p
}

pub fn continuation(input: &PromptInput<'_>) -> String {
    let mut p = format!(
        "Goal: {}\n\nIteration {}/{} of pawl run {}. The work is not verified yet.\n",
        input.goal, input.iteration, input.max_iterations, input.run_id
    );
    if input.agent_claimed_done {
        if input.last.is_some_and(|r| r.failing.is_empty()) {
            p.push_str("You said the work was done; pawl does not accept it yet (see below).\n");
        } else {
            p.push_str(
                "You said the work was done, but pawl's checks do not pass on the current tree: it is not done.\n",
            );
        }
    }
    if let Some(r) = input.last
        && !r.failing.is_empty()
    {
        p.push_str("\nFailing checks (pawl ran them on the current tree):\n");
        let hidden = r.failing.iter().filter(|f| f.hidden).count();
        if hidden > 0 {
            p.push_str(&format!(
                "- {hidden} hidden check(s) fail: pawl does not show them; make the goal hold in general, not for the visible tests only\n"
            ));
        }
        for f in r.failing.iter().filter(|f| !f.hidden) {
            p.push_str(&format!("- {}: {}", f.name, f.end));
            if !f.failing_tests.is_empty() {
                // Evidence stored before the parsers stripped terminal escapes may hold them.
                let shown: Vec<String> = f
                    .failing_tests
                    .iter()
                    .take(10)
                    .map(|t| pawl_verify::text::strip_ansi(t).into_owned())
                    .collect();
                p.push_str(&format!("; failing tests: {}", shown.join(", ")));
                if f.failing_tests.len() > 10 {
                    p.push_str(&format!(" (+{} more)", f.failing_tests.len() - 10));
                }
            }
            p.push('\n');
            if let Some(m) = &f.first_failure {
                let m = pawl_verify::text::strip_ansi(m);
                p.push_str(&format!("  first failure: {}\n", indent(&m)));
            }
            if let Some(log) = &f.log {
                p.push_str(&format!("  log: {log}\n"));
            }
        }
    }
    if let Some(r) = input.last {
        if r.outcome == Some(pawl_core::proof::Outcome::Unproven) {
            p.push_str(
                "\nEvery check passes, but nothing proves the goal: no check and no test went from \
                 failing on the code the run started from to passing. Add a test that fails without \
                 your change and passes with it (pawl runs your new tests against the pre-run code).\n",
            );
        }
        // Sent back by the independent tester's hidden tests (or resumed after a REVIEW on
        // them): under a heading of its own, the one line that names the behaviour, never the
        // inputs (`pawl_core::tester::send_back`); the user's REVIEW finding is not for it.
        if let Some(told) = &r.sent_back {
            p.push_str(&format!(
                "\nEvery check passes, but an independent check fails (tests pawl keeps hidden from you):\n- {told}\n"
            ));
        }
        let others: Vec<&String> = r
            .findings
            .iter()
            .filter(|f| Some(*f) != r.sent_back.as_ref() && Some(*f) != r.hidden_review.as_ref())
            .collect();
        if !others.is_empty() {
            p.push_str(
                "\nThe tests themselves were changed (pawl compares them with the run's start):\n",
            );
            for f in others.iter().take(10) {
                p.push_str(&format!("- {f}\n"));
            }
            p.push_str("Restore them: the goal is met by code that passes the original tests.\n");
        }
    }
    if let Some(failed) = input.change_approach {
        p.push_str(&format!(
            "\nThe same failure came back after the last two steps: that approach does not work. \
             Take a different approach — rethink the cause instead of adjusting the same change. \
             The approach that failed: {failed}.\n"
        ));
    }
    push_criteria(&mut p, input.criteria);
    if let Some(s) = input.story {
        p.push_str(&format!(
            "\nRetry context: story {} \"{}\", attempt {}/{}.\n",
            s.id,
            s.title,
            s.attempts + 1,
            s.max_attempts
        ));
    }
    let earlier: Vec<&Failure> = input.recent_failures.iter().skip(1).take(3).collect();
    if !earlier.is_empty() {
        p.push_str("What failed before:\n");
        for f in earlier {
            p.push_str(&format!("- [{}] {}\n", f.category, first_line(&f.message)));
        }
    }
    if !input.files_changed.is_empty() {
        let shown: Vec<&str> = input
            .files_changed
            .iter()
            .take(20)
            .map(String::as_str)
            .collect();
        p.push_str(&format!("Files changed so far: {}\n", shown.join(", ")));
    }
    push_checks(&mut p, input.last);
    if !input.decisions.is_empty() {
        p.push_str("\nKey decisions so far:\n");
        for n in input.decisions {
            p.push_str(&format!("- {}\n", n.text));
        }
    }
    p.push_str("\nFix what fails. pawl verifies again after this step.\n");
    p
}

fn push_criteria(p: &mut String, criteria: &[Criterion]) {
    let unmet: Vec<&Criterion> = criteria
        .iter()
        .filter(|c| c.status != pawl_core::model::CriterionStatus::Verified)
        .collect();
    if !unmet.is_empty() {
        p.push_str("\nUnmet criteria:\n");
        for c in unmet {
            p.push_str(&format!(
                "- {} {} ({})\n",
                c.id, c.text, c.verification.kind
            ));
        }
    }
}

fn push_checks(p: &mut String, last: Option<&VerifyReport>) {
    let Some(r) = last else { return };
    if r.checks.is_empty() {
        return;
    }
    p.push_str("\nVerification status:\n| check | result |\n|---|---|\n");
    for c in r.checks.iter().filter(|c| !c.hidden) {
        p.push_str(&format!(
            "| {} | {} |\n",
            c.name,
            if c.passed { "pass" } else { "FAIL" }
        ));
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

fn indent(s: &str) -> String {
    s.trim().lines().take(12).collect::<Vec<_>>().join("\n    ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run resumed after a REVIEW on the independent tester's hidden tests: the executor's
    /// next prompt says what a send-back says (the behaviour), under its heading, and nothing of
    /// the user's REVIEW finding (session 16 carried the hidden call and answer into it).
    #[test]
    fn a_resumed_run_is_told_the_hidden_behaviour_as_on_the_send_back() {
        let review = pawl_core::tester::review(&["double".into()], "command `t`", false, "r1");
        let told = pawl_core::tester::send_back(&["double".into()]);
        let last = VerifyReport {
            findings: vec![review.clone()],
            hidden_review: Some(review),
            sent_back: Some(told.clone()),
            ..VerifyReport::default()
        };
        let p = continuation(&PromptInput {
            goal: "make double(n) return twice n",
            run_id: "r1",
            iteration: 2,
            max_iterations: 2,
            story: None,
            criteria: &[],
            last: Some(&last),
            recent_failures: &[],
            files_changed: &[],
            decisions: &[],
            agent_claimed_done: false,
            change_approach: None,
        });
        assert!(
            p.contains(&format!(
                "an independent check fails (tests pawl keeps hidden from you):\n- {told}\n"
            )),
            "{p}"
        );
        assert_eq!(p.matches("independent check of").count(), 1, "{p}");
        assert!(!p.contains("pawl report"), "{p}");
        assert!(!p.contains("tests themselves were changed"), "{p}");
    }
}
