//! The structured outputs of the pipeline's agent sessions: what each role must return in ONE
//! fenced ```json block. Strict serde types (unknown fields are refused), so a malformed answer
//! is a parse error pawl can quote back to the session when it asks once more.
//!
//! What this module is not: the extraction from agent text or the prompts (pawl-engine).

use serde::{Deserialize, Serialize};

use crate::model::{Size, VerifyKind};

/// The interviewer: questions, each with the answer it recommends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterviewOutput {
    pub questions: Vec<Question>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub question: String,
    /// What pawl takes when nobody answers (autonomous runs, or 5 minutes of silence).
    pub recommended: String,
    #[serde(default)]
    pub category: Option<String>,
}

/// The planner: criteria (each with how it is verified) and stories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanOutput {
    pub criteria: Vec<PlanCriterion>,
    pub stories: Vec<PlanStory>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanCriterion {
    /// The planner's label (`C1`); pawl assigns the stored id.
    pub id: String,
    pub text: String,
    /// command | review | observation | assumption
    pub verify: VerifyKind,
    /// The shell command for `verify = "command"`.
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default = "yes")]
    pub required: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanStory {
    /// The planner's label (`S1`); pawl assigns the stored id.
    pub id: String,
    pub title: String,
    pub size: Size,
    #[serde(default)]
    pub security: bool,
    pub acceptance: Vec<String>,
    #[serde(default)]
    pub files: Vec<String>,
    /// Labels of stories that must be done first.
    #[serde(default)]
    pub depends_on: Vec<String>,
}

fn yes() -> bool {
    true
}

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingSeverity {
    /// The work goes back with it.
    Blocking,
    /// Noted in the report.
    Suggestion,
    /// Noted in the report.
    Info,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub severity: FindingSeverity,
    pub text: String,
    #[serde(default)]
    pub file: Option<String>,
}

/// The architecture status a reviewer reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArchitectureStatus {
    Clear,
    Concerns,
    Blocked,
}

/// Every reviewer (architect, critic, security, code review) answers with a verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictOutput {
    pub approve: bool,
    pub architecture_status: ArchitectureStatus,
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// Code review only: the ids of `review` criteria this review verifies (only counted when
    /// the review is clean).
    #[serde(default)]
    pub verified_criteria: Vec<String>,
    /// Code review only: the run changed its own tests (pawl lists the findings) and the reviewer
    /// accepts those changes, saying why. Counted only when the review is clean.
    #[serde(default)]
    pub accept_test_changes: Option<String>,
}

impl VerdictOutput {
    pub fn blocking(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == FindingSeverity::Blocking)
    }

    /// An approval is an approval only without blocking findings.
    pub fn approves(&self) -> bool {
        self.approve && self.blocking().next().is_none()
    }

    /// Clean for the code review: approved, architecture clear, nothing blocking.
    pub fn clean(&self) -> bool {
        self.approves() && self.architecture_status == ArchitectureStatus::Clear
    }
}

/// The adversarial QA session: what it exercised and what failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QaOutput {
    pub passed: bool,
    #[serde(default)]
    pub exercised: Vec<String>,
    #[serde(default)]
    pub failures: Vec<Finding>,
    /// Shell commands that reproduce the failures (fail now, pass once fixed). pawl seals them
    /// as hidden checks: the developer must make them pass without ever seeing them.
    #[serde(default)]
    pub checks: Vec<String>,
}
