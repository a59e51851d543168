//! What a report says of one criterion: a criterion is "verified" only with its evidence in the
//! report (issue 35 point 2). The evidence a criterion's kind accepts is found by the engine —
//! for a command criterion, its check in the final verification; for a review, the reviewer's
//! verdict; for an assumption, the fact of the run that checked it — and given here as text.
//! A criterion marked verified with none is shown as not verified and does not count.
//!
//! What this is not: finding the evidence (pawl-engine's `report`), deciding the verdict
//! (`report::verdict`, which asks [`Shown::counts`]).

use serde::Serialize;

use crate::model::{CriterionStatus, VerifyKind};

/// A criterion as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shown {
    /// `verified`, `assumed, then verified by pawl`, `assumed, not verified`, `verified
    /// without evidence: not counted`, `unverified`, `failed`.
    pub status: String,
    /// What it rests on, or what is missing.
    pub evidence: String,
    /// It counts as verified: verified (or a checked assumption) with its evidence.
    pub counts: bool,
}

/// The rule: `evidence` is what the criterion's kind accepts, found for this run's final tree.
pub fn shown(kind: VerifyKind, status: CriterionStatus, evidence: Option<&str>) -> Shown {
    let evidence = evidence.map(str::trim).filter(|e| !e.is_empty());
    let (status, evidence, counts) = match (kind, status, evidence) {
        (VerifyKind::Assumption, _, Some(e)) => ("assumed, then verified by pawl", e, true),
        (VerifyKind::Assumption, _, None) => (
            "assumed, not verified",
            "none (an assumption proves nothing)",
            false,
        ),
        (_, CriterionStatus::Verified, Some(e)) => ("verified", e, true),
        (_, CriterionStatus::Verified, None) => (
            "verified without evidence: not counted",
            "none on the final tree",
            false,
        ),
        (_, CriterionStatus::Unverified, e) => ("unverified", e.unwrap_or("-"), false),
        (_, CriterionStatus::Failed, e) => ("failed", e.unwrap_or("-"), false),
    };
    Shown {
        status: status.to_string(),
        evidence: evidence.to_string(),
        counts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verified_only_with_its_evidence() {
        use CriterionStatus::{Failed, Unverified, Verified};
        use VerifyKind::{Assumption, Command, Observation, Review};
        // (kind, status, evidence, shown status, counts)
        let rows: &[(VerifyKind, CriterionStatus, Option<&str>, &str, bool)] = &[
            (
                Command,
                Verified,
                Some("criterion:C1 (pass)"),
                "verified",
                true,
            ),
            // Marked verified, nothing to show for it: never "verified".
            (
                Command,
                Verified,
                None,
                "verified without evidence: not counted",
                false,
            ),
            (
                Command,
                Verified,
                Some("  "),
                "verified without evidence: not counted",
                false,
            ),
            (
                Review,
                Verified,
                None,
                "verified without evidence: not counted",
                false,
            ),
            (Review, Verified, Some("review verdict 7"), "verified", true),
            (
                Observation,
                Verified,
                None,
                "verified without evidence: not counted",
                false,
            ),
            // An assumption is verified only by the fact that checked it, whatever its status.
            (Assumption, Verified, None, "assumed, not verified", false),
            (
                Assumption,
                Verified,
                Some("every baseline-passing test passes"),
                "assumed, then verified by pawl",
                true,
            ),
            (
                Command,
                Failed,
                Some("criterion:C1 (fail)"),
                "failed",
                false,
            ),
            (Command, Unverified, None, "unverified", false),
        ];
        for (kind, status, ev, want, counts) in rows {
            let s = shown(*kind, *status, *ev);
            assert_eq!(s.status, *want, "{kind:?} {status:?} {ev:?}");
            assert_eq!(s.counts, *counts, "{kind:?} {status:?} {ev:?}");
            if s.status.starts_with("verified") || s.status.ends_with("verified by pawl") {
                assert!(
                    !s.evidence.is_empty() && s.evidence != "-",
                    "{kind:?} {status:?}: {s:?}"
                );
            }
        }
    }
}
