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
}
