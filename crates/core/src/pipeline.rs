//! The pipeline's rules as pure functions: which phases a mode runs, which flags conflict, the
//! consensus order (architect, then critic), the plan score and its thresholds (and how pawl
//! tunes them from its own past runs, within bounds), convergence, the "same finding three
//! times" stop, ralph's skip rule, how TDD red/green checks are read, when QA may be skipped,
//! and the progress cadence.
//!
//! The engine gathers the facts (verdicts, verification reports, changed files) and asks here.
//! What this module is not: prompts, sessions or storage.

pub mod output;

use serde::{Deserialize, Serialize};

use crate::model::{Driver, ParseEnumError, Size, VerifyKind, str_enum};
use crate::spec::{Mode, ModeChoice};
use output::{Finding, FindingSeverity, PlanOutput, VerdictOutput};

str_enum!(
    /// A stage of the pipeline.
    Phase, "phase" {
        Interview => "interview",
        Plan => "plan",
        Execute => "execute",
        Review => "review",
        Qa => "qa",
        /// The cross-story audit at the end.
        Audit => "audit",
        /// Ralph's loop over the checklist.
        Ralph => "ralph",
    }
);

str_enum!(
    /// Who a pipeline session plays; each role has its own prompt.
    Role, "role" {
        Interviewer => "interviewer",
        Planner => "planner",
        Architect => "architect",
        Critic => "critic",
        Developer => "developer",
        Security => "security",
        Reviewer => "reviewer",
        Qa => "qa",
    }
);

str_enum!(
    /// `pawl run --mode`.
    ModeArg, "mode" {
        Auto => "auto",
        Simple => "simple",
        Work => "work",
        Qa => "qa",
        Ralph => "ralph",
    }
);

/// The phases of `mode = qa` when `[pipeline] phases` says nothing else.
pub const DEFAULT_PHASES: &[Phase] = &[
    Phase::Interview,
    Phase::Plan,
    Phase::Execute,
    Phase::Review,
    Phase::Qa,
    Phase::Audit,
];

/// Flags of `pawl run` that bear on the mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunFlags {
    pub mode: ModeArg,
    pub driver: Driver,
    /// `--interactive`: ask the interview's questions and the plan check-in on the terminal.
    pub interactive: bool,
    /// `--json`: machine output (no terminal questions).
    pub json: bool,
}

/// Two flags that can not go together; the CLI turns it into a usage error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FlagConflict(pub String);

/// Refuses combinations that can not mean anything.
pub fn check_flags(f: &RunFlags) -> Result<(), FlagConflict> {
    if f.mode != ModeArg::Auto && f.driver != Driver::Headless {
        return Err(FlagConflict(format!(
            "--mode {} needs the headless driver (pawl runs the pipeline's sessions itself); drop --driver {} or --mode",
            f.mode, f.driver
        )));
    }
    if f.interactive && f.driver != Driver::Headless {
        return Err(FlagConflict(
            "--interactive asks the interview's questions during a headless run; it does not go with --driver manual|session".into(),
        ));
    }
    if f.interactive && matches!(f.mode, ModeArg::Simple | ModeArg::Ralph) {
        return Err(FlagConflict(format!(
            "--interactive answers the interview (--mode qa) and the plan check-in (--mode work|qa, or auto choosing one); --mode {} has neither",
            f.mode
        )));
    }
    if f.interactive && f.json {
        return Err(FlagConflict(
            "--interactive asks on the terminal; --json is for machines: use one".into(),
        ));
    }
    Ok(())
}

/// The mode a run gets and why: the flag, or the analysis' choice for `auto`.
pub fn resolve_mode(arg: ModeArg, auto: &ModeChoice) -> ModeChoice {
    let fixed = |mode: Mode| ModeChoice {
        mode,
        reason: "chosen with --mode".into(),
    };
    match arg {
        ModeArg::Auto => auto.clone(),
        ModeArg::Simple => fixed(Mode::Simple),
        ModeArg::Work => fixed(Mode::Work),
        ModeArg::Qa => fixed(Mode::Qa),
        ModeArg::Ralph => fixed(Mode::Ralph),
    }
}

/// The mode a run gets with its agent: [`resolve_mode`], then what the agent can do. A plain
/// text agent (a command agent) cannot answer the structured output the planner and reviewers
/// must give: `auto` runs it simple (saying why), an explicit mode that needs those roles is
/// refused before the run starts, naming what would work.
pub fn resolve_mode_for_agent(
    arg: ModeArg,
    auto: &ModeChoice,
    plain_agent: bool,
) -> Result<ModeChoice, FlagConflict> {
    let choice = resolve_mode(arg, auto);
    if !plain_agent || choice.mode == Mode::Simple {
        return Ok(choice);
    }
    if arg == ModeArg::Auto {
        return Ok(crate::spec::choose_mode(&crate::spec::ModeFacts {
            plain_agent: true,
            ..crate::spec::ModeFacts::default()
        }));
    }
    Err(FlagConflict(format!(
        "--mode {} needs structured answers (the planner's plan, the reviewers' verdicts), and a command agent answers in plain text: use --mode simple (or auto), or an agent that can (claude, codex, gemini, replay)",
        choice.mode.as_str()
    )))
}

/// The phases a mode runs, in order. `configured` is `[pipeline] phases` (for qa); execute is
/// always kept, and the order is always the canonical one whatever the file says.
pub fn phases(mode: Mode, configured: &[Phase]) -> Vec<Phase> {
    match mode {
        Mode::Simple => vec![Phase::Execute],
        Mode::Work => vec![Phase::Plan, Phase::Execute],
        Mode::Ralph => vec![Phase::Plan, Phase::Ralph],
        Mode::Qa => DEFAULT_PHASES
            .iter()
            .copied()
            .filter(|p| *p == Phase::Execute || configured.contains(p))
            .collect(),
    }
}

// ---- consensus: architect, then critic ----

/// The verdicts of one consensus round so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// The architect's approval, once given.
    pub architect: Option<bool>,
    pub critic: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum ConsensusError {
    #[error(
        "a critic verdict was refused: the architect must approve the plan first in the same round"
    )]
    CriticBeforeArchitect,
    #[error("a {0} verdict was already given in this round")]
    Duplicate(Role),
    #[error("{0} is not a plan reviewer (architect, critic)")]
    NotAReviewer(Role),
}

/// Whether a plan verdict from `role` may be taken in `round` (architect first, then critic;
/// a critic without the architect's approval in the same round is refused).
pub fn accept_plan_verdict(round: &Round, role: Role) -> Result<(), ConsensusError> {
    match role {
        Role::Architect if round.architect.is_some() => Err(ConsensusError::Duplicate(role)),
        Role::Architect => Ok(()),
        Role::Critic if round.critic.is_some() => Err(ConsensusError::Duplicate(role)),
        Role::Critic if round.architect != Some(true) => Err(ConsensusError::CriticBeforeArchitect),
        Role::Critic => Ok(()),
        other => Err(ConsensusError::NotAReviewer(other)),
    }
}

/// Where the plan stands after a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Consensus {
    /// Both approved.
    Approved,
    /// Revise with the findings and try another round.
    Revise,
    /// Out of rounds: a typed stop.
    Exhausted,
}

/// The outcome of round `round` (1-based) out of `max_rounds`.
pub fn consensus(r: &Round, round: u32, max_rounds: u32) -> Consensus {
    if r.architect == Some(true) && r.critic == Some(true) {
        Consensus::Approved
    } else if round >= max_rounds {
        Consensus::Exhausted
    } else {
        Consensus::Revise
    }
}

// ---- the plan score ----

/// Six dimensions, each 0.0–1.0, computed by pawl from the plan's structure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlanScore {
    pub completeness: f64,
    pub feasibility: f64,
    pub verifiability: f64,
    pub clarity: f64,
    pub risk: f64,
    pub dependencies: f64,
}

impl PlanScore {
    /// The mean of the six.
    pub fn overall(&self) -> f64 {
        (self.completeness
            + self.feasibility
            + self.verifiability
            + self.clarity
            + self.risk
            + self.dependencies)
            / 6.0
    }
}

fn share(n: usize, of: usize) -> f64 {
    if of == 0 { 0.0 } else { n as f64 / of as f64 }
}

/// Scores a plan. completeness: it has criteria and stories, and every story has acceptance
/// criteria; feasibility: stories not sized XL; verifiability: criteria pawl can check
/// (command 1, review 0.75, observation 0.25, assumption 0); clarity: stories that name their
/// files; risk: for a security-sensitive goal, some story is flagged security; dependencies:
/// every dependency names a story of the plan and none is circular.
pub fn score_plan(plan: &PlanOutput, security_sensitive: bool) -> PlanScore {
    let stories = &plan.stories;
    let with_acceptance = stories.iter().filter(|s| !s.acceptance.is_empty()).count();
    let completeness = if plan.criteria.is_empty() || stories.is_empty() {
        0.0
    } else {
        share(with_acceptance, stories.len())
    };
    let feasibility = if stories.is_empty() {
        0.0
    } else {
        share(
            stories.iter().filter(|s| s.size != Size::XL).count(),
            stories.len(),
        )
    };
    let verifiability = if plan.criteria.is_empty() {
        0.0
    } else {
        plan.criteria
            .iter()
            .map(|c| match c.verify {
                VerifyKind::Command
                    if c.command.as_deref().is_some_and(|s| !s.trim().is_empty()) =>
                {
                    1.0
                }
                VerifyKind::Command => 0.0,
                VerifyKind::Review => 0.75,
                VerifyKind::Observation => 0.25,
                VerifyKind::Assumption => 0.0,
            })
            .sum::<f64>()
            / plan.criteria.len() as f64
    };
    let clarity = share(
        stories.iter().filter(|s| !s.files.is_empty()).count(),
        stories.len(),
    );
    let risk = if security_sensitive && !stories.iter().any(|s| s.security) {
        0.0
    } else {
        1.0
    };
    let labels: Vec<&str> = stories.iter().map(|s| s.id.as_str()).collect();
    let deps_total: usize = stories.iter().map(|s| s.depends_on.len()).sum();
    let deps_ok: usize = stories
        .iter()
        .map(|s| {
            s.depends_on
                .iter()
                .filter(|d| labels.contains(&d.as_str()) && *d != &s.id)
                .count()
        })
        .sum();
    let dependencies = if has_cycle(plan) {
        0.0
    } else if deps_total == 0 {
        1.0
    } else {
        share(deps_ok, deps_total)
    };
    PlanScore {
        completeness,
        feasibility,
        verifiability,
        clarity,
        risk,
        dependencies,
    }
}

fn has_cycle(plan: &PlanOutput) -> bool {
    // Depth-first search with colours over the labels.
    fn visit<'a>(
        id: &'a str,
        plan: &'a PlanOutput,
        state: &mut std::collections::BTreeMap<&'a str, u8>,
    ) -> bool {
        match state.get(id) {
            Some(1) => return true,
            Some(2) => return false,
            _ => {}
        }
        state.insert(id, 1);
        if let Some(s) = plan.stories.iter().find(|s| s.id == id) {
            for d in &s.depends_on {
                if visit(d, plan, state) {
                    return true;
                }
            }
        }
        state.insert(id, 2);
        false
    }
    let mut state = std::collections::BTreeMap::new();
    plan.stories.iter().any(|s| visit(&s.id, plan, &mut state))
}

/// The order stories run in: dependencies first, otherwise the plan's order. Unknown
/// dependencies are ignored (they cost the plan score already).
pub fn story_order(plan: &PlanOutput) -> Vec<String> {
    let mut done: Vec<String> = Vec::new();
    let mut left: Vec<&output::PlanStory> = plan.stories.iter().collect();
    while !left.is_empty() {
        let labels: Vec<&str> = plan.stories.iter().map(|s| s.id.as_str()).collect();
        let ready = left.iter().position(|s| {
            s.depends_on
                .iter()
                .all(|d| done.contains(d) || !labels.contains(&d.as_str()) || d == &s.id)
        });
        // A cycle: take the first left, in plan order.
        let i = ready.unwrap_or(0);
        let s = left.remove(i);
        done.push(s.id.clone());
    }
    done
}

/// The thresholds scores must reach.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    pub plan: f64,
    /// Share of verified criteria half-way through execution.
    pub checkpoint_mid: f64,
    /// Share of verified criteria at the end of execution.
    pub checkpoint_end: f64,
}

/// How far pawl may move a threshold from the configured one, and the hard floor and ceiling.
pub const TUNE_BOUND: f64 = 0.10;
pub const TUNE_FLOOR: f64 = 0.50;
pub const TUNE_CEIL: f64 = 0.95;
pub const TUNE_UP: f64 = 0.02;
pub const TUNE_DOWN: f64 = 0.01;

/// How a past run of the same task type ended, as far as its plan is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PastRun {
    pub plan_score: f64,
    pub threshold: f64,
    pub verified: bool,
}

/// A threshold change with its reason (recorded in the store).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tuning {
    pub before: f64,
    pub after: f64,
    pub reason: String,
}

/// Tunes the plan threshold for a task type after a run: a plan that passed but whose run was
/// not verified raises it by 0.02 (plans that good were not good enough); a verified run whose
/// plan passed with a margin under 0.05 lowers it by 0.01 (the bar held). Always within
/// `base ± 0.10` and `[0.50, 0.95]`. `None` when nothing changes.
pub fn tune_threshold(base: f64, current: f64, run: &PastRun) -> Option<Tuning> {
    let lo = (base - TUNE_BOUND).max(TUNE_FLOOR);
    let hi = (base + TUNE_BOUND).min(TUNE_CEIL);
    let passed = run.plan_score >= run.threshold;
    let (target, reason) = if passed && !run.verified {
        (
            current + TUNE_UP,
            format!(
                "a plan scoring {:.2} passed {:.2} but its run was not verified",
                run.plan_score, run.threshold
            ),
        )
    } else if passed && run.verified && run.plan_score - run.threshold < 0.05 {
        (
            current - TUNE_DOWN,
            format!(
                "a plan scoring {:.2}, just over {:.2}, led to a verified run",
                run.plan_score, run.threshold
            ),
        )
    } else {
        return None;
    };
    let after = (target.clamp(lo, hi) * 1000.0).round() / 1000.0;
    ((after - current).abs() > 1e-9).then_some(Tuning {
        before: current,
        after,
        reason,
    })
}

/// The lowest a tuned checkpoint threshold goes.
pub const CHECKPOINT_FLOOR: f64 = 0.30;

/// The key a checkpoint threshold is tuned under, per task type: `build:checkpoint_end`.
pub fn checkpoint_key(task_type: &str, kind: &str) -> String {
    format!("{task_type}:{kind}")
}

/// Tunes a checkpoint threshold (`checkpoint_mid`, `checkpoint_end`) for a task type after a
/// run: a met checkpoint whose run was not verified raises it by 0.02 (the bar let work through
/// that did not make it); a missed one whose run was verified all the same lowers it by 0.02
/// (the bar asked more than the work needed at that point). Always within `base ± 0.10` and
/// `[0.30, 0.95]`. `None` when nothing changes.
pub fn tune_checkpoint(base: f64, current: f64, met: bool, verified: bool) -> Option<Tuning> {
    let lo = (base - TUNE_BOUND).max(CHECKPOINT_FLOOR);
    let hi = (base + TUNE_BOUND).min(TUNE_CEIL);
    let (target, reason) = match (met, verified) {
        (true, false) => (
            current + TUNE_UP,
            format!("the checkpoint at {current:.2} was met but the run was not verified"),
        ),
        (false, true) => (
            current - TUNE_UP,
            format!("the checkpoint at {current:.2} was missed but the run was verified"),
        ),
        _ => return None,
    };
    let after = (target.clamp(lo, hi) * 1000.0).round() / 1000.0;
    ((after - current).abs() > 1e-9).then_some(Tuning {
        before: current,
        after,
        reason,
    })
}

// ---- convergence ----

/// The share of verified criteria.
pub fn verified_share(verified: usize, total: usize) -> f64 {
    share(verified, total)
}

/// What convergence says after a stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Convergence {
    /// At or above the bar with every required criterion verified.
    Converged,
    /// The share rose: go on.
    Rising,
    /// The share did not rise: roll back to the stage's checkpoint and re-plan.
    Stalled,
}

/// `before` is the share at the stage's checkpoint, `after` at its end (each measured over the
/// criteria the stage can verify). A stage that started with nothing left to verify by its
/// measure can not raise it, so it is not stalled.
pub fn convergence(
    before: f64,
    after: f64,
    required_all_verified: bool,
    done_at: f64,
) -> Convergence {
    if after >= done_at && required_all_verified {
        Convergence::Converged
    } else if after > before + 1e-9 || before >= 1.0 - 1e-9 {
        Convergence::Rising
    } else {
        Convergence::Stalled
    }
}

// ---- review: the same finding in N cycles ----

/// A finding's identity across review cycles: its file and its words, lower-cased, numbers
/// and punctuation dropped (a line number that moved is the same finding).
pub fn finding_key(f: &Finding) -> String {
    let words: Vec<String> = f
        .text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect();
    format!("{}|{}", f.file.as_deref().unwrap_or(""), words.join(" "))
}

/// The blocking finding that appeared in `limit` review cycles (each cycle's findings are
/// counted once), if any.
pub fn repeated_finding(cycles: &[Vec<Finding>], limit: u32) -> Option<Finding> {
    if limit == 0 {
        return None;
    }
    let mut counts: Vec<(String, u32, Finding)> = Vec::new();
    for cycle in cycles {
        let mut seen: Vec<String> = Vec::new();
        for f in cycle
            .iter()
            .filter(|f| f.severity == FindingSeverity::Blocking)
        {
            let k = finding_key(f);
            if seen.contains(&k) {
                continue;
            }
            seen.push(k.clone());
            match counts.iter_mut().find(|(key, _, _)| *key == k) {
                Some(entry) => entry.1 += 1,
                None => counts.push((k, 1, f.clone())),
            }
        }
    }
    counts
        .into_iter()
        .find(|(_, n, _)| *n >= limit)
        .map(|(_, _, f)| f)
}

/// The blocking findings of a verdict, as the reason a story or the plan goes back.
pub fn blocking_reason(v: &VerdictOutput) -> String {
    let lines: Vec<String> = v
        .blocking()
        .map(|f| match &f.file {
            Some(file) => format!("{} ({file})", f.text),
            None => f.text.clone(),
        })
        .collect();
    if lines.is_empty() {
        format!("not approved (architecture {:?})", v.architecture_status).to_lowercase()
    } else {
        lines.join("; ")
    }
}

// ---- ralph ----

/// One checklist item as ralph sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RalphItem {
    pub id: String,
    pub verified: bool,
    /// Failed loops on this item in a row.
    pub fails_in_a_row: u32,
    pub skipped: bool,
}

/// Ralph's limits.
pub const RALPH_MAX_LOOPS: u32 = 50;
pub const RALPH_PER_HOUR: u32 = 100;
pub const RALPH_SKIP_AFTER: u32 = 3;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "next", rename_all = "snake_case")]
pub enum RalphNext {
    /// Work on this item.
    Item { id: String },
    /// Every item is verified.
    Done,
    /// Nothing verified is left to try: every unverified item was skipped.
    AllSkipped,
    /// Out of loops.
    MaxLoops,
}

/// The next item: the first unverified, not skipped one.
pub fn ralph_next(items: &[RalphItem], loops: u32, max_loops: u32) -> RalphNext {
    if items.iter().all(|i| i.verified) {
        return RalphNext::Done;
    }
    if loops >= max_loops {
        return RalphNext::MaxLoops;
    }
    match items.iter().find(|i| !i.verified && !i.skipped) {
        Some(i) => RalphNext::Item { id: i.id.clone() },
        None => RalphNext::AllSkipped,
    }
}

/// After a loop on `item`: counts the failure (or resets it) and skips the item at `skip_after`
/// failures in a row. Returns true when the item was skipped now.
pub fn ralph_after(item: &mut RalphItem, verified_now: bool, skip_after: u32) -> bool {
    if verified_now {
        item.verified = true;
        item.fails_in_a_row = 0;
        return false;
    }
    item.fails_in_a_row += 1;
    if skip_after > 0 && item.fails_in_a_row >= skip_after && !item.skipped {
        item.skipped = true;
        return true;
    }
    false
}

// ---- TDD ----

/// A TDD check that did not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum TddViolation {
    #[error(
        "red: no new or changed test file (a failing test must come before the implementation)"
    )]
    NoNewTest,
    #[error("red: the tests pass with the new test, so it does not test the missing behaviour")]
    RedDidNotFail,
    #[error("green: the tests still fail after the implementation step")]
    GreenStillFails,
    /// Something fails, but nothing new: every failing test already failed on the pre-run
    /// code (or the new test is not one the gates run).
    #[error(
        "red: no new failing test — what fails ({0}) already failed before the story; add a test that the test gate runs and that fails because the story's behaviour is missing"
    )]
    RedNotNew(String),
}

/// A test check as red sees it: how it ends now and how it ended at the run's baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedCheck {
    pub name: String,
    pub passed: bool,
    /// Failing test ids now (as the runner reports them).
    pub failing: Vec<String>,
    /// At the baseline: passed, and the failing test ids. `None`: no baseline for it.
    pub baseline: Option<(bool, Vec<String>)>,
}

/// A story gets a checkpoint commit before it when the goal's reversibility class is
/// irreversible or the story touches security: the risky step can be rolled back to.
pub fn checkpoint_before_story(reversibility: crate::spec::Reversibility, security: bool) -> bool {
    reversibility == crate::spec::Reversibility::Irreversible || security
}

/// The reason a plan goes back when its command criteria already pass before any work: they
/// cannot tell the goal done from not done.
pub fn criteria_passing_before_work(criteria: &[String]) -> String {
    format!(
        "criteria that already pass before any work prove nothing: {} — give criteria that fail on the code as it is and pass once the goal holds",
        criteria.join(", ")
    )
}

/// Red, by test id against the baseline: the step touched a test file, and a test that the
/// test gates run fails now and did not fail on the pre-run code (a check that reports no test
/// ids counts as one test: failing now, passing at the baseline). Returns the new failing tests
/// (`check: id`). A run without a baseline falls back to [`check_red`].
pub fn check_red_by_id(
    changed_files: &[String],
    checks: &[RedCheck],
) -> Result<Vec<String>, TddViolation> {
    if !changed_files.iter().any(|f| is_test_file(f)) {
        return Err(TddViolation::NoNewTest);
    }
    if checks.iter().all(|c| c.passed) {
        return Err(TddViolation::RedDidNotFail);
    }
    let mut new = Vec::new();
    let mut old = Vec::new();
    for c in checks.iter().filter(|c| !c.passed) {
        match &c.baseline {
            None => new.push(c.name.clone()),
            Some((passed_before, failing_before)) => {
                if c.failing.is_empty() {
                    if *passed_before {
                        new.push(c.name.clone());
                    } else {
                        old.push(c.name.clone());
                    }
                    continue;
                }
                for id in &c.failing {
                    if failing_before.contains(id) {
                        old.push(format!("{}: {id}", c.name));
                    } else {
                        new.push(format!("{}: {id}", c.name));
                    }
                }
            }
        }
    }
    if new.is_empty() {
        let shown: Vec<String> = old.iter().take(5).cloned().collect();
        return Err(TddViolation::RedNotNew(shown.join(", ")));
    }
    Ok(new)
}

/// Whether a path is a test file (by the usual conventions).
pub fn is_test_file(path: &str) -> bool {
    let p = path.replace('\\', "/").to_ascii_lowercase();
    let name = p.rsplit('/').next().unwrap_or(&p);
    p.starts_with("tests/")
        || p.contains("/tests/")
        || p.starts_with("test/")
        || p.contains("/test/")
        || p.contains("__tests__/")
        || name.starts_with("test_")
        || name.contains("_test.")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name.ends_with("_spec.rb")
}

/// Red holds when the step touched a test file and pawl's test run fails.
pub fn check_red(changed_files: &[String], tests_passed: bool) -> Result<(), TddViolation> {
    if !changed_files.iter().any(|f| is_test_file(f)) {
        return Err(TddViolation::NoNewTest);
    }
    if tests_passed {
        return Err(TddViolation::RedDidNotFail);
    }
    Ok(())
}

/// Green holds when pawl's tests pass.
pub fn check_green(tests_passed: bool) -> Result<(), TddViolation> {
    if tests_passed {
        Ok(())
    } else {
        Err(TddViolation::GreenStillFails)
    }
}

// ---- QA skip ----

/// Why QA may be skipped for these changed files, if it may: nothing changed, only docs, or
/// nothing that runs (CI, editor and licence files).
pub fn qa_skip_reason(changed_files: &[String]) -> Option<String> {
    if changed_files.is_empty() {
        return Some("no files changed".into());
    }
    let is_doc = |f: &str| {
        let l = f.to_ascii_lowercase();
        l.ends_with(".md")
            || l.ends_with(".rst")
            || l.ends_with(".txt")
            || l.ends_with(".adoc")
            || l.starts_with("docs/")
            || l.starts_with("doc/")
            || l.rsplit('/')
                .next()
                .is_some_and(|n| n.starts_with("license") || n.starts_with("changelog"))
    };
    let non_runtime = |f: &str| {
        let l = f.to_ascii_lowercase();
        is_doc(f)
            || l.starts_with(".github/")
            || l.starts_with(".vscode/")
            || l.starts_with(".idea/")
            || l == ".gitignore"
            || l == ".editorconfig"
    };
    if changed_files.iter().all(|f| is_doc(f)) {
        Some(format!(
            "docs-only change ({} file(s))",
            changed_files.len()
        ))
    } else if changed_files.iter().all(|f| non_runtime(f)) {
        Some("no runtime change (docs, CI and editor files only)".into())
    } else {
        None
    }
}

// ---- progress ----

pub const PROGRESS_EVERY_STORIES: u32 = 3;
pub const PROGRESS_EVERY_MS: u64 = 30 * 60 * 1000;

/// A progress report is due every 3 stories or every 30 minutes.
pub fn progress_due(stories_since: u32, ms_since: u64) -> bool {
    stories_since >= PROGRESS_EVERY_STORIES || ms_since >= PROGRESS_EVERY_MS
}

// ---- resume ----

/// Where a staged run that is resumed picks up its current round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// Nothing of the round ran (a new run, or a stop before its plan was approved).
    Fresh,
    /// The round's plan was approved and nothing sent the work back since: execute it.
    PlanApproved,
    /// The round was sent back (a failed review or QA, or a stalled stage): plan again, with
    /// this reason.
    RoundOver(String),
}

/// One phase of the round as stored: which, how it ended (`None`: still open), its note.
#[derive(Debug, Clone, Copy)]
pub struct PhaseState<'a> {
    pub phase: Phase,
    pub outcome: Option<&'a str>,
    pub note: Option<&'a str>,
}

/// A stage of the round whose share of verified criteria did not rise: stage, before, after.
#[derive(Debug, Clone, Copy)]
pub struct Stalled<'a> {
    pub stage: &'a str,
    pub before: f64,
    pub after: f64,
}

/// Decides where a resumed round goes on from its phases and a stalled stage, if any.
pub fn resume_point(phases: &[PhaseState<'_>], stalled: Option<Stalled<'_>>) -> Resume {
    if let Some(c) = stalled {
        return Resume::RoundOver(format!(
            "convergence: the share of verified criteria did not rise during {} ({:.2} → {:.2})",
            c.stage, c.before, c.after
        ));
    }
    let sent_back = phases
        .iter()
        .find(|p| matches!(p.phase, Phase::Review | Phase::Qa) && p.outcome == Some("failed"));
    if let Some(p) = sent_back {
        return Resume::RoundOver(
            p.note
                .map(str::to_owned)
                .unwrap_or_else(|| format!("the {} sent the work back", p.phase)),
        );
    }
    if phases
        .iter()
        .any(|p| p.phase == Phase::Plan && p.outcome == Some("passed"))
    {
        Resume::PlanApproved
    } else {
        Resume::Fresh
    }
}

#[cfg(test)]
mod tests;
