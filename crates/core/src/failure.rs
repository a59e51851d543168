//! Failure classes, the one table that classifies a failure message, and retry advice.
//!
//! The table is data (ordered rules, first match wins) so that it reads as a policy and every rule
//! has a test. Both the state CLI (`pawl failure add` without `--category`) and the verification
//! engine (a failing gate) classify through [`classify`].

use serde::{Deserialize, Serialize};

use crate::model::{ParseEnumError, str_enum};

str_enum!(
    /// The class of a failure; decides how pawl retries.
    FailureCategory, "failure category" {
        /// The code is wrong: compile errors, type errors, crashes in the code under change.
        Code => "code",
        /// A test failed: assertions, expected/actual mismatches.
        Test => "test",
        /// Infrastructure: connections refused or reset, DNS, disk full, 5xx from a dependency.
        Infra => "infra",
        /// An external service or credential only the user can fix.
        External => "external",
        /// Something took too long.
        Timeout => "timeout",
        /// The spec contradicts itself or the code; needs a decision.
        Spec => "spec" | "spec-conflict" | "spec_conflict",
        /// A tool, package or file the environment lacks.
        Environment => "environment" | "env",
    }
);

/// One classification rule: if any needle occurs in the lowercased message, the category applies.
pub struct Rule {
    pub category: FailureCategory,
    pub needles: &'static [&'static str],
}

/// The classification table, in priority order: the first rule with a matching needle wins.
///
/// Order matters: "connection timed out" is a timeout (retried with backoff either way), an
/// "API key not configured" message that also says "error" must be external, not code, and a
/// compile error ("SyntaxError: Unexpected token") is code even though it contains "expected".
pub const RULES: &[Rule] = &[
    Rule {
        category: FailureCategory::External,
        needles: &[
            "api key",
            "api_key",
            "apikey",
            "not configured",
            "invalid credentials",
            "missing credentials",
            "401 unauthorized",
            "http 401",
            "status 401",
            "403 forbidden",
            "authentication failed",
            "quota exceeded",
            "billing",
            "subscription",
            "access token",
            "oauth",
        ],
    },
    Rule {
        category: FailureCategory::Environment,
        needles: &[
            "command not found",
            ": not found",
            "no such file or directory (os error 2)",
            "is not installed",
            "not installed",
            "modulenotfounderror",
            "no module named",
            "cannot find module",
            "could not find executable",
            "executable file not found",
            "enoent",
            "missing toolchain",
            "unsupported platform",
        ],
    },
    Rule {
        category: FailureCategory::Timeout,
        needles: &[
            "timed out",
            "timeout",
            "time out",
            "deadline exceeded",
            "took too long",
        ],
    },
    Rule {
        category: FailureCategory::Infra,
        needles: &[
            "connection refused",
            "econnrefused",
            "connection reset",
            "econnreset",
            "could not resolve host",
            "name resolution",
            "network is unreachable",
            "no route to host",
            "service unavailable",
            "502 bad gateway",
            "503",
            "504",
            "no space left on device",
            "out of memory",
            "broken pipe",
            "too many open files",
            "tls handshake",
        ],
    },
    Rule {
        category: FailureCategory::Spec,
        needles: &[
            "spec conflict",
            "conflicting requirement",
            "contradicts the spec",
            "contradictory requirement",
            "ambiguous requirement",
            "requirements conflict",
        ],
    },
    Rule {
        category: FailureCategory::Code,
        needles: &[
            "error[e",
            "syntax error",
            "syntaxerror",
            "typeerror",
            "nameerror",
            "referenceerror",
            "undefined reference",
            "compilation failed",
            "could not compile",
            "unresolved import",
            "segmentation fault",
            "null pointer",
        ],
    },
    Rule {
        category: FailureCategory::Test,
        needles: &[
            "assertion",
            "assert",
            "expected",
            "test failed",
            "tests failed",
            "failed test",
            "test result: failed",
            "--- fail",
            "panicked at",
            "snapshot mismatch",
        ],
    },
];

/// Classifies a failure message with [`RULES`]; anything unrecognised is `code`, the class an
/// agent can act on.
pub fn classify(message: &str) -> FailureCategory {
    classify_with_rule(message).0
}

/// Like [`classify`], also returning the needle that matched (for explanations).
pub fn classify_with_rule(message: &str) -> (FailureCategory, Option<&'static str>) {
    let lower = message.to_lowercase();
    for rule in RULES {
        if let Some(needle) = rule.needles.iter().find(|n| lower.contains(*n)) {
            return (rule.category, Some(needle));
        }
    }
    (FailureCategory::Code, None)
}

/// Retries allowed for transient classes (infra, timeout) before pawl escalates anyway: a
/// dependency that stays down for five backoffs needs a human.
pub const TRANSIENT_RETRY_LIMIT: u32 = 5;
/// Backoff for the first transient retry; doubles each time.
pub const BACKOFF_BASE_SECONDS: u64 = 5;
/// Ceiling of the exponential backoff.
pub const BACKOFF_MAX_SECONDS: u64 = 300;

/// What to do after a failure: `pawl retry-advice`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryAdvice {
    pub should_retry: bool,
    pub backoff_seconds: u64,
    pub escalate: bool,
    pub reason: String,
}

/// Advice for a story whose latest failure is `category`, after `failed_attempts` failures so
/// far (counting this one) out of `max_attempts`.
pub fn retry_advice(
    category: FailureCategory,
    failed_attempts: u32,
    max_attempts: u32,
) -> RetryAdvice {
    use FailureCategory::*;
    match category {
        Infra | Timeout => {
            if failed_attempts > TRANSIENT_RETRY_LIMIT {
                return RetryAdvice {
                    should_retry: false,
                    backoff_seconds: 0,
                    escalate: true,
                    reason: format!(
                        "{category} failure persisted through {TRANSIENT_RETRY_LIMIT} retries; a human should look"
                    ),
                };
            }
            let exp = failed_attempts.saturating_sub(1).min(16);
            let backoff = BACKOFF_BASE_SECONDS
                .saturating_mul(1u64 << exp)
                .min(BACKOFF_MAX_SECONDS);
            RetryAdvice {
                should_retry: true,
                backoff_seconds: backoff,
                escalate: false,
                reason: format!(
                    "{category} failures are usually transient: retry {failed_attempts}/{TRANSIENT_RETRY_LIMIT} after {backoff}s"
                ),
            }
        }
        External => RetryAdvice {
            should_retry: false,
            backoff_seconds: 0,
            escalate: true,
            reason: "an external service or credential is needed: only the user can fix this"
                .to_string(),
        },
        Spec => RetryAdvice {
            should_retry: false,
            backoff_seconds: 0,
            escalate: true,
            reason: "the spec conflicts: a decision is needed before more work".to_string(),
        },
        Environment if failed_attempts > 1 => RetryAdvice {
            should_retry: false,
            backoff_seconds: 0,
            escalate: true,
            reason: format!(
                "the environment is still missing something after {failed_attempts} attempts"
            ),
        },
        Environment => RetryAdvice {
            should_retry: true,
            backoff_seconds: 0,
            escalate: false,
            reason: "the environment lacks a tool or module: one attempt to provide it".to_string(),
        },
        Code | Test if failed_attempts < max_attempts => RetryAdvice {
            should_retry: true,
            backoff_seconds: 0,
            escalate: false,
            reason: format!(
                "attempt {failed_attempts}/{max_attempts} failed: retry with the failure"
            ),
        },
        Code | Test => RetryAdvice {
            should_retry: false,
            backoff_seconds: 0,
            escalate: true,
            reason: format!("{failed_attempts}/{max_attempts} attempts used: escalate"),
        },
    }
}

/// What the loop does after a verification failed, by the class of its first failure: the
/// rules of the workflow, applied (not only advised). One pure function; the engine gathers the
/// facts and carries the action out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopAction {
    /// Another step, with the failure in the continuation prompt.
    Retry,
    /// Another step, asking for a different approach and naming the one that failed twice.
    ChangeApproach,
    /// Wait (the transient backoff) and verify again, without an agent step: nothing the agent
    /// could do fixes a dependency that is down.
    BackOff,
    /// A blocker for the user (what to do, how pawl will check): the run waits (`awaiting_user`).
    AwaitUser,
    /// Back to planning: the plan, not the code, is wrong.
    Replan,
}

impl LoopAction {
    pub fn as_str(self) -> &'static str {
        match self {
            LoopAction::Retry => "retry",
            LoopAction::ChangeApproach => "change_approach",
            LoopAction::BackOff => "back_off",
            LoopAction::AwaitUser => "await_user",
            LoopAction::Replan => "replan",
        }
    }
}

/// What [`loop_action`] looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopFailure {
    pub category: FailureCategory,
    /// Consecutive iterations (this one included) that ended with the same failure signature.
    pub same_in_a_row: u32,
    /// Transient backoffs already spent on this verification.
    pub backoffs: u32,
    /// The run's mode has a plan phase to go back to.
    pub plans: bool,
}

/// A failure of the same signature this many times in a row asks for a different approach.
pub const CHANGE_APPROACH_AFTER: u32 = 2;

/// The loop's action after a failed verification. Code and test failures escalate through the
/// story's attempts and the breakers (which the turn applies), not here.
pub fn loop_action(f: &LoopFailure) -> LoopAction {
    use FailureCategory::*;
    match f.category {
        External => LoopAction::AwaitUser,
        Infra | Timeout if f.backoffs < TRANSIENT_RETRY_LIMIT => LoopAction::BackOff,
        // A dependency down through every backoff: a human should look.
        Infra | Timeout => LoopAction::AwaitUser,
        Spec if f.plans => LoopAction::Replan,
        Spec => LoopAction::AwaitUser,
        Environment if f.same_in_a_row >= CHANGE_APPROACH_AFTER => LoopAction::AwaitUser,
        Environment => LoopAction::Retry,
        Code | Test if f.same_in_a_row >= CHANGE_APPROACH_AFTER => LoopAction::ChangeApproach,
        Code | Test => LoopAction::Retry,
    }
}

/// What the user is told to do about a failure handed to them, and how pawl will check it.
pub fn user_instructions(category: FailureCategory, check: &str, message: &str) -> String {
    let what = match category {
        FailureCategory::External => {
            "provide the credential or service the check needs (only you can: pawl never asks the agent to invent one)"
        }
        FailureCategory::Infra | FailureCategory::Timeout => {
            "bring back the service or resource the check depends on (it stayed unavailable through every backoff)"
        }
        FailureCategory::Spec => {
            "decide what the goal means where the spec conflicts, and say so with `pawl note`"
        }
        FailureCategory::Environment => "install the tool or module the check needs",
        FailureCategory::Code | FailureCategory::Test => "look at the failure",
    };
    format!(
        "{what}. The check `{check}` failed with: {}",
        first_line(message)
    )
}

fn first_line(s: &str) -> &str {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::FailureCategory::*;
    use super::*;

    #[test]
    fn classification_table() {
        let cases = [
            ("Error: connect ECONNREFUSED 127.0.0.1:5432", Infra),
            ("psql: Connection refused", Infra),
            ("curl: (6) Could not resolve host: example.com", Infra),
            ("write failed: No space left on device", Infra),
            ("API key not configured", External),
            ("Stripe: invalid API_KEY", External),
            ("HTTP 401 Unauthorized", External),
            // Regression: a bare status code inside an assertion is a test failure.
            ("AssertionError: expected 200 got 401", Test),
            ("operation timed out after 30s", Timeout),
            ("connection timed out", Timeout),
            ("context deadline exceeded", Timeout),
            ("bash: cargo-nextest: command not found", Environment),
            ("sh: 1: pytest: not found", Environment),
            (
                "ModuleNotFoundError: No module named 'requests'",
                Environment,
            ),
            ("Error: Cannot find module 'vitest'", Environment),
            ("AssertionError: assert 2 == 3", Test),
            ("thread 'add' panicked at src/lib.rs:4:5", Test),
            ("expected 4, got 5", Test),
            ("test result: FAILED. 1 passed; 1 failed", Test),
            ("error[E0425]: cannot find value `x` in this scope", Code),
            ("SyntaxError: Unexpected token", Code),
            ("spec conflict: R2 contradicts R5", Spec),
            ("something odd happened", Code),
        ];
        for (msg, want) in cases {
            assert_eq!(classify(msg), want, "classifying {msg:?}");
        }
    }

    #[test]
    fn every_rule_has_a_reachable_needle() {
        // A rule shadowed entirely by earlier rules would be dead policy.
        for rule in RULES {
            let reachable = rule.needles.iter().any(|n| classify(n) == rule.category);
            assert!(reachable, "rule for {} is shadowed", rule.category);
        }
    }

    #[test]
    fn infra_and_timeout_back_off_exponentially_then_escalate() {
        let b: Vec<u64> = (1..=5)
            .map(|n| retry_advice(Infra, n, 3).backoff_seconds)
            .collect();
        assert_eq!(b, vec![5, 10, 20, 40, 80]);
        assert!(retry_advice(Timeout, 5, 3).should_retry);
        let last = retry_advice(Timeout, 6, 3);
        assert!(!last.should_retry && last.escalate);
        assert_eq!(retry_advice(Infra, 40, 3).backoff_seconds, 0);
    }

    #[test]
    fn external_and_spec_escalate_at_once() {
        let a = retry_advice(External, 1, 3);
        assert!(!a.should_retry && a.escalate);
        assert!(retry_advice(Spec, 1, 3).escalate);
    }

    #[test]
    fn code_and_test_retry_up_to_the_attempt_limit() {
        assert!(retry_advice(Code, 1, 3).should_retry);
        assert!(retry_advice(Test, 2, 3).should_retry);
        let a = retry_advice(Test, 3, 3);
        assert!(!a.should_retry && a.escalate, "{a:?}");
    }

    #[test]
    fn environment_gets_one_attempt() {
        assert!(retry_advice(Environment, 1, 3).should_retry);
        assert!(retry_advice(Environment, 2, 3).escalate);
    }

    #[test]
    fn backoff_never_overflows() {
        for n in 0..100 {
            assert!(retry_advice(Infra, n, 3).backoff_seconds <= BACKOFF_MAX_SECONDS);
        }
    }

    #[test]
    fn loop_actions_by_class() {
        // (category, same failure in a row, backoffs spent, the mode plans) -> action
        use LoopAction::*;
        let rows = [
            (External, 1, 0, false, AwaitUser),
            (External, 1, 0, true, AwaitUser),
            (Infra, 1, 0, false, BackOff),
            (Timeout, 3, 4, true, BackOff),
            (Infra, 1, TRANSIENT_RETRY_LIMIT, false, AwaitUser),
            (Spec, 1, 0, true, Replan),
            (Spec, 1, 0, false, AwaitUser),
            (Environment, 1, 0, false, Retry),
            (Environment, 2, 0, false, AwaitUser),
            (Code, 1, 0, false, Retry),
            (Test, 1, 0, true, Retry),
            (Code, 2, 0, false, ChangeApproach),
            (Test, 3, 0, true, ChangeApproach),
        ];
        for (category, same_in_a_row, backoffs, plans, want) in rows {
            let f = LoopFailure {
                category,
                same_in_a_row,
                backoffs,
                plans,
            };
            assert_eq!(loop_action(&f), want, "{f:?}");
        }
    }

    #[test]
    fn instructions_name_the_check_and_the_failure() {
        let s = user_instructions(External, "test", "\nError: API key not configured\nmore");
        assert!(s.contains("credential"), "{s}");
        assert!(
            s.contains("`test`") && s.ends_with("API key not configured"),
            "{s}"
        );
    }
}
