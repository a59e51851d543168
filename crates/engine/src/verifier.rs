//! How the loop asks for verification: pawl runs the checks itself on the current tree.
//!
//! The engine depends on this interface, not on a particular runner, so tests can script it and
//! the CLI can plug in the gate runner with its evidence cache.

use pawl_store::Store;
use serde::{Deserialize, Serialize};

/// One check's result as the loop needs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckSummary {
    pub name: String,
    pub passed: bool,
    /// How it ended, e.g. "exited with code 1", "timed out".
    pub end: String,
    pub failing_tests: Vec<String>,
    pub first_failure: Option<String>,
    pub log: Option<String>,
    /// The failure class (pawl-core) for a failing check.
    pub category: Option<pawl_core::FailureCategory>,
    /// Reused from a cached run on the same tree.
    pub cached: bool,
}

/// The outcome of verifying the current tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct VerifyReport {
    pub tree_hash: String,
    /// Gates and command criteria, in order.
    pub checks: Vec<CheckSummary>,
    /// The failing ones (a subset of `checks`).
    pub failing: Vec<CheckSummary>,
    /// Criteria verified / unmet after this verification (ids).
    pub verified: Vec<String>,
    pub unmet: Vec<String>,
    /// Every gate passed and every criterion is verified: the run may be done.
    pub done: bool,
}

/// Runs verification for a run and records the evidence.
pub trait Verifier: Send {
    fn verify(&mut self, store: &mut Store, run_id: &str) -> Result<VerifyReport, String>;
}
