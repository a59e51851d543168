//! The loop's decisions: limits, circuit breakers and the wait for calls-per-hour, as pure
//! functions over what happened so far.
//!
//! Each limit and breaker trips at exactly its threshold: with `max_iterations = 3` the third
//! iteration is the last; with `same_failure = 3` the third identical failure in a row stops the
//! run. The engine records facts ([`IterationFacts`]); this module decides.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::{Breakers, Limits};
use crate::exit::StopReason;

/// What the loop has spent so far (persisted with the run, so resumes continue the count).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spent {
    pub iterations: u32,
    /// Active wall time: waiting for a provider's rate limit does not count.
    pub active_ms: u64,
    pub usd: f64,
    pub tokens: u64,
}

/// The limit already reached before another iteration may start, if any.
pub fn limit_reached(limits: &Limits, spent: &Spent) -> Option<StopReason> {
    if spent.iterations >= limits.max_iterations {
        return Some(StopReason::MaxIterations);
    }
    if u128::from(spent.active_ms) >= limits.max_time.0.as_millis() {
        return Some(StopReason::MaxTime);
    }
    if limits.max_usd > 0.0 && spent.usd >= limits.max_usd {
        return Some(StopReason::MaxUsd);
    }
    if limits.max_tokens > 0 && spent.tokens >= limits.max_tokens {
        return Some(StopReason::MaxTokens);
    }
    None
}

/// How long to wait before the next agent call so that at most `per_hour` calls start in any
/// rolling hour. `recent_calls_ms` are start times (any order); `now_ms` is the current time.
pub fn calls_per_hour_wait(
    recent_calls_ms: &[i64],
    per_hour: u32,
    now_ms: i64,
) -> Option<Duration> {
    if per_hour == 0 {
        return None;
    }
    const HOUR: i64 = 3_600_000;
    let mut in_window: Vec<i64> = recent_calls_ms
        .iter()
        .copied()
        .filter(|t| now_ms - t < HOUR)
        .collect();
    if in_window.len() < per_hour as usize {
        return None;
    }
    in_window.sort_unstable();
    // The call that must leave the window before another may start.
    let idx = in_window.len() - per_hour as usize;
    let oldest = in_window.get(idx).copied().unwrap_or(now_ms);
    let wait = (oldest + HOUR - now_ms).max(0);
    Some(Duration::from_millis(wait as u64))
}

/// The facts of one finished iteration that breakers look at.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IterationFacts {
    /// Tree hash after the iteration's verification.
    pub tree_hash: Option<String>,
    /// Criteria verified after this iteration.
    pub verified: Vec<String>,
    /// Criteria still unmet after this iteration.
    pub unmet: Vec<String>,
    /// Normalised failure signature (gate + failing tests + first error), if verification failed.
    pub failure_signature: Option<String>,
    /// Edits per file during this iteration.
    pub edits: BTreeMap<String, u32>,
    /// Content hash per file at the end of this iteration (for A→B→A oscillation).
    pub file_hashes: BTreeMap<String, String>,
    /// The agent step ended in an error.
    pub agent_error: bool,
    /// Permission denials during the step.
    pub permission_denials: u32,
    /// A fingerprint of the agent's output (for reasoning loops).
    pub output_fingerprint: Option<String>,
}

/// Repeated identical output this many times in a row is a reasoning loop.
pub const REASONING_LOOP_REPEATS: usize = 3;

/// Whether iteration `i` made progress over the one before it: a newly verified criterion or a
/// changed tree. The first iteration is compared with the state before the run (`baseline`).
pub fn made_progress(
    prev: Option<&IterationFacts>,
    baseline_tree: Option<&str>,
    cur: &IterationFacts,
) -> bool {
    let prev_tree = prev
        .map(|p| p.tree_hash.as_deref())
        .unwrap_or(baseline_tree);
    let tree_changed = cur.tree_hash.as_deref() != prev_tree;
    let newly_verified = match prev {
        Some(p) => cur.verified.iter().any(|c| !p.verified.contains(c)),
        None => !cur.verified.is_empty(),
    };
    tree_changed || newly_verified
}

/// The breaker that opens after the latest iteration in `history` (oldest first), if any.
pub fn breaker_tripped(
    b: &Breakers,
    history: &[IterationFacts],
    baseline_tree: Option<&str>,
) -> Option<StopReason> {
    let last = history.last()?;
    let tail = |n: u32| -> Option<&[IterationFacts]> {
        let n = n as usize;
        (n > 0 && history.len() >= n)
            .then(|| history.get(history.len() - n..))
            .flatten()
    };

    // Thrash inside one iteration.
    if b.file_thrash > 0 && last.edits.values().any(|&n| n >= b.file_thrash) {
        return Some(StopReason::FileThrash);
    }
    // Oscillation A → B → A across iterations.
    if history.len() >= 3 {
        let n = history.len();
        if let (Some(a), Some(bb), Some(c)) =
            (history.get(n - 3), history.get(n - 2), history.get(n - 1))
        {
            let osc = c.file_hashes.iter().any(|(path, h)| {
                a.file_hashes.get(path) == Some(h)
                    && bb.file_hashes.get(path).is_some_and(|mid| mid != h)
            });
            if osc {
                return Some(StopReason::FileThrash);
            }
        }
    }
    if let Some(t) = tail(b.agent_errors)
        && t.iter().all(|f| f.agent_error)
    {
        return Some(StopReason::AgentErrors);
    }
    if let Some(t) = tail(b.permission_denials)
        && t.iter().all(|f| f.permission_denials > 0)
    {
        return Some(StopReason::PermissionDenials);
    }
    if let Some(t) = tail(b.same_failure)
        && let Some(sig) = &last.failure_signature
        && t.iter().all(|f| f.failure_signature.as_ref() == Some(sig))
    {
        return Some(StopReason::SameFailure);
    }
    if history.len() >= REASONING_LOOP_REPEATS
        && let Some(fp) = &last.output_fingerprint
        && history[history.len() - REASONING_LOOP_REPEATS..]
            .iter()
            .all(|f| f.output_fingerprint.as_ref() == Some(fp))
    {
        return Some(StopReason::ReasoningLoop);
    }
    if b.no_progress > 0 && history.len() >= b.no_progress as usize {
        let start = history.len() - b.no_progress as usize;
        let stalled = (start..history.len()).all(|i| {
            let prev = if i == 0 { None } else { history.get(i - 1) };
            history
                .get(i)
                .is_some_and(|cur| !made_progress(prev, baseline_tree, cur))
        });
        if stalled {
            return Some(StopReason::NoProgress);
        }
    }
    if let Some(t) = tail(b.criterion_stuck)
        && last
            .unmet
            .iter()
            .any(|c| t.iter().all(|f| f.unmet.contains(c)))
    {
        return Some(StopReason::CriterionStuck);
    }
    None
}

/// A failure signature that ignores noise (numbers such as durations, addresses, line:col) so
/// the same failure is recognised across iterations.
pub fn failure_signature(
    gate: &str,
    failing_tests: &[String],
    first_error: Option<&str>,
) -> String {
    let mut tests = failing_tests.to_vec();
    tests.sort();
    let err = first_error.map(normalise).unwrap_or_default();
    format!("{gate}|{}|{err}", tests.join(","))
}

fn normalise(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_digits = false;
    for c in s.trim().chars().take(400) {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
