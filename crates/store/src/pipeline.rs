//! The phase pipeline's records: phases as they ran, verdicts with the session that produced
//! them, plans (which also create the run's criteria and stories, in the same transaction),
//! plan scores, the convergence history, failed directions and threshold tuning.

use std::collections::BTreeMap;

use crate::db::{OptionalExtension, Row, params};
use pawl_core::EventKind;
use pawl_core::model::Size;
use pawl_core::pipeline::output::{Finding, PlanOutput, VerdictOutput};
use pawl_core::pipeline::{Phase, PlanScore, Role, Tuning};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::{Result, Store, StoreError, json_col, parse_col};

/// One phase as it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseRecord {
    pub id: i64,
    pub phase: Phase,
    pub round: u32,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub outcome: Option<String>,
    pub note: Option<String>,
}

/// A verdict to record.
#[derive(Debug, Clone)]
pub struct NewVerdict<'a> {
    pub phase: Phase,
    pub role: Role,
    pub round: u32,
    pub story_id: Option<&'a str>,
    pub session_id: Option<&'a str>,
    pub iteration: u32,
    pub output: &'a VerdictOutput,
}

/// A stored verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictRecord {
    pub id: i64,
    pub phase: Phase,
    pub role: Role,
    pub round: u32,
    pub story_id: Option<String>,
    pub session_id: Option<String>,
    pub iteration: u32,
    pub approve: bool,
    pub clean: bool,
    pub architecture_status: Option<String>,
    pub findings: Vec<Finding>,
    pub created_at: i64,
}

/// A plan as stored, with the ids pawl gave its labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanRecord {
    pub round: u32,
    pub session_id: Option<String>,
    pub iteration: u32,
    pub plan: PlanOutput,
    /// Planner label (`S1`, `C1`) → stored id.
    pub ids: BTreeMap<String, String>,
    pub created_at: i64,
}

/// What the plan said about a stored story.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoryPlan {
    pub story_id: String,
    pub acceptance: Vec<String>,
    pub files: Vec<String>,
    /// Stored ids of the stories it depends on.
    pub depends_on: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreRecord {
    pub round: u32,
    /// plan | checkpoint_mid | checkpoint_end
    pub kind: String,
    pub task_type: String,
    pub scores: Option<PlanScore>,
    pub overall: f64,
    pub threshold: f64,
    pub passed: bool,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConvergenceRecord {
    pub stage: String,
    pub round: u32,
    pub before: f64,
    pub after: f64,
    pub verified: u32,
    pub total: u32,
    pub outcome: String,
    pub checkpoint: Option<String>,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailedDirection {
    pub stage: String,
    pub round: u32,
    pub direction: String,
    pub reason: String,
    pub created_at: i64,
}

fn phase_from_row(r: &Row) -> crate::db::DbResult<PhaseRecord> {
    Ok(PhaseRecord {
        id: r.get(0)?,
        phase: parse_col(r.get(1)?, "phases.phase")?,
        round: r.get(2)?,
        started_at: r.get(3)?,
        ended_at: r.get(4)?,
        outcome: r.get(5)?,
        note: r.get(6)?,
    })
}

fn verdict_from_row(r: &Row) -> crate::db::DbResult<VerdictRecord> {
    Ok(VerdictRecord {
        id: r.get(0)?,
        phase: parse_col(r.get(1)?, "verdicts.phase")?,
        role: parse_col(r.get(2)?, "verdicts.role")?,
        round: r.get(3)?,
        story_id: r.get(4)?,
        session_id: r.get(5)?,
        iteration: r.get(6)?,
        approve: r.get(7)?,
        clean: r.get(8)?,
        architecture_status: r.get(9)?,
        findings: json_col(r.get(10)?, "verdicts.findings_json")?,
        created_at: r.get(11)?,
    })
}

fn to_json<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| StoreError::Corrupt(e.to_string()))
}

impl Store {
    // ---- phases ----

    /// Starts a phase (and sets the run's current phase); returns its id.
    pub fn begin_phase(&mut self, run_id: &str, phase: Phase, round: u32) -> Result<i64> {
        self.write(|tx| {
            let rowid = tx.insert(
                "INSERT INTO phases (run_id, phase, round, started_at) VALUES (?1, ?2, ?3, ?4)",
                params![run_id, phase.as_str(), round, tx.now],
            )?;
            let id = rowid;
            tx.changing_run(run_id, |tx| {
                Ok(tx.execute(
                    "UPDATE runs SET phase = ?2, updated_at = ?3 WHERE id = ?1",
                    params![run_id, phase.as_str(), tx.now],
                )?)
            })?;
            tx.event(
                Some(run_id),
                EventKind::PhaseStarted,
                json!({"id": id, "phase": phase, "round": round}),
            )?;
            Ok(id)
        })
    }

    /// Ends a phase with its outcome (`passed`, `failed`, `skipped`, `stopped`) and a note.
    pub fn end_phase(&mut self, run_id: &str, id: i64, outcome: &str, note: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE phases SET ended_at = ?3, outcome = ?4, note = ?5 WHERE run_id = ?1 AND id = ?2",
                params![run_id, id, tx.now, outcome, note],
            )?;
            tx.event(
                Some(run_id),
                EventKind::PhaseEnded,
                json!({"id": id, "outcome": outcome, "note": note}),
            )?;
            Ok(())
        })
    }

    pub fn phases(&self, run_id: &str) -> Result<Vec<PhaseRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, phase, round, started_at, ended_at, outcome, note FROM phases WHERE run_id = ?1 ORDER BY id",
        )?;
        Ok(stmt
            .query_map([run_id], phase_from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    // ---- verdicts ----

    /// Records a reviewer's verdict with the session that produced it.
    pub fn add_verdict(&mut self, run_id: &str, v: &NewVerdict<'_>) -> Result<i64> {
        let findings = to_json(&v.output.findings)?;
        let output = to_json(v.output)?;
        let arch = serde_json::to_value(v.output.architecture_status)
            .ok()
            .and_then(|a| a.as_str().map(str::to_string));
        self.write(|tx| {
            let rowid = tx.insert(
                "INSERT INTO verdicts (run_id, phase, role, round, story_id, session_id, iteration, approve, clean,
                   architecture_status, findings_json, output_json, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    run_id,
                    v.phase.as_str(),
                    v.role.as_str(),
                    v.round,
                    v.story_id,
                    v.session_id,
                    v.iteration,
                    v.output.approves(),
                    v.output.clean(),
                    arch,
                    findings,
                    output,
                    tx.now
                ],
            )?;
            let id = rowid;
            tx.inserted(&crate::mac::VERDICTS, id, Some(run_id))?;
            tx.event(
                Some(run_id),
                EventKind::Verdict,
                json!({"id": id, "phase": v.phase, "role": v.role, "round": v.round, "story": v.story_id,
                       "session_id": v.session_id, "iteration": v.iteration, "approve": v.output.approves(),
                       "clean": v.output.clean(), "findings": v.output.findings}),
            )?;
            Ok(id)
        })
    }

    /// The run's verdicts, as pawl recorded them (`Err(StoreError::Tampered)` otherwise).
    pub fn verdicts(&self, run_id: &str) -> Result<Vec<VerdictRecord>> {
        self.check_run_rows(&crate::mac::VERDICTS, run_id)?;
        let mut stmt = self.conn.prepare(
            "SELECT id, phase, role, round, story_id, session_id, iteration, approve, clean, architecture_status,
                    findings_json, created_at FROM verdicts WHERE run_id = ?1 ORDER BY id",
        )?;
        Ok(stmt
            .query_map([run_id], verdict_from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    // ---- plans ----

    /// Stores a plan round and creates its criteria and stories in one transaction. Criteria
    /// whose text already exists are reused; stories still pending from an earlier plan are
    /// skipped as superseded. Returns the label → id map.
    pub fn save_plan(
        &mut self,
        run_id: &str,
        round: u32,
        session_id: Option<&str>,
        iteration: u32,
        plan: &PlanOutput,
        max_attempts: u32,
    ) -> Result<BTreeMap<String, String>> {
        let plan_json = to_json(plan)?;
        self.write(|tx| {
            let mut ids: BTreeMap<String, String> = BTreeMap::new();
            let superseded: Vec<String> = {
                let mut stmt = tx.prepare(
                    "SELECT id FROM stories WHERE run_id = ?1 AND status = 'pending' ORDER BY seq",
                )?;
                stmt.query_map([run_id], |r| r.get(0))?
                    .collect::<crate::db::DbResult<_>>()?
            };
            for id in &superseded {
                tx.execute(
                    "UPDATE stories SET status = 'skipped', updated_at = ?3 WHERE run_id = ?1 AND id = ?2",
                    params![run_id, id, tx.now],
                )?;
                tx.event(
                    Some(run_id),
                    EventKind::StoryStatus,
                    json!({"id": id, "from": "pending", "to": "skipped", "reason": format!("superseded by plan round {round}")}),
                )?;
            }
            for c in &plan.criteria {
                let existing: Option<String> = tx
                    .query_row(
                        "SELECT id FROM criteria WHERE run_id = ?1 AND text = ?2",
                        params![run_id, c.text],
                        |r| r.get(0),
                    )
                    .optional()?;
                let id = match existing {
                    Some(id) => id,
                    None => {
                        let seq = tx.next_seq("criteria", run_id)?;
                        let id = format!("C{seq}");
                        let rowid = tx.insert(
                            "INSERT INTO criteria (run_id, id, seq, text, verify_kind, verify_command, status, created_at, updated_at)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'unverified', ?7, ?7)",
                            params![run_id, id, seq, c.text, c.verify.as_str(), c.command, tx.now],
                        )?;
                        tx.inserted(&crate::mac::CRITERIA, rowid, Some(run_id))?;
                        tx.event(
                            Some(run_id),
                            EventKind::CriterionAdded,
                            json!({"id": id, "text": c.text, "verification": {"kind": c.verify, "command": c.command}, "plan_round": round}),
                        )?;
                        id
                    }
                };
                tx.execute(
                    "INSERT INTO criterion_plan (run_id, criterion_id, required) VALUES (?1, ?2, ?3)
                     ON CONFLICT (run_id, criterion_id) DO UPDATE SET required = excluded.required",
                    params![run_id, id, c.required],
                )?;
                ids.insert(c.id.clone(), id);
            }
            for s in &plan.stories {
                let seq = tx.next_seq("stories", run_id)?;
                let id = format!("S{seq}");
                tx.execute(
                    "INSERT INTO stories (run_id, id, seq, title, size, security, status, tdd_phase, attempts, max_attempts, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', 'none', 0, ?7, ?8, ?8)",
                    params![run_id, id, seq, s.title, s.size.as_str(), s.security, max_attempts, tx.now],
                )?;
                tx.event(
                    Some(run_id),
                    EventKind::StoryAdded,
                    json!({"id": id, "title": s.title, "size": s.size, "security": s.security, "plan_round": round}),
                )?;
                ids.insert(s.id.clone(), id);
            }
            for s in &plan.stories {
                let Some(id) = ids.get(&s.id) else { continue };
                let deps: Vec<&String> = s.depends_on.iter().filter_map(|d| ids.get(d)).collect();
                tx.execute(
                    "INSERT INTO story_plan (run_id, story_id, acceptance_json, files_json, depends_json) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![run_id, id, to_json(&s.acceptance)?, to_json(&s.files)?, to_json(&deps)?],
                )?;
            }
            tx.execute(
                "INSERT INTO plans (run_id, round, session_id, iteration, plan_json, ids_json, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (run_id, round) DO UPDATE SET session_id = excluded.session_id, iteration = excluded.iteration,
                   plan_json = excluded.plan_json, ids_json = excluded.ids_json, created_at = excluded.created_at",
                params![run_id, round, session_id, iteration, plan_json, to_json(&ids)?, tx.now],
            )?;
            tx.event(
                Some(run_id),
                EventKind::Plan,
                json!({"round": round, "session_id": session_id, "iteration": iteration, "ids": ids,
                       "stories": plan.stories.len(), "criteria": plan.criteria.len()}),
            )?;
            Ok(ids)
        })
    }

    pub fn plans(&self, run_id: &str) -> Result<Vec<PlanRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT round, session_id, iteration, plan_json, ids_json, created_at FROM plans WHERE run_id = ?1 ORDER BY round",
        )?;
        Ok(stmt
            .query_map([run_id], |r| {
                Ok(PlanRecord {
                    round: r.get(0)?,
                    session_id: r.get(1)?,
                    iteration: r.get(2)?,
                    plan: json_col(r.get(3)?, "plans.plan_json")?,
                    ids: json_col(r.get(4)?, "plans.ids_json")?,
                    created_at: r.get(5)?,
                })
            })?
            .collect::<crate::db::DbResult<_>>()?)
    }

    pub fn story_plan(&self, run_id: &str, story_id: &str) -> Result<Option<StoryPlan>> {
        Ok(self
            .conn
            .query_row(
                "SELECT story_id, acceptance_json, files_json, depends_json FROM story_plan WHERE run_id = ?1 AND story_id = ?2",
                params![run_id, story_id],
                |r| {
                    Ok(StoryPlan {
                        story_id: r.get(0)?,
                        acceptance: json_col(r.get(1)?, "story_plan.acceptance_json")?,
                        files: json_col(r.get(2)?, "story_plan.files_json")?,
                        depends_on: json_col(r.get(3)?, "story_plan.depends_json")?,
                    })
                },
            )
            .optional()?)
    }

    /// Criterion id → required (criteria no plan mentioned are required).
    pub fn criteria_required(&self, run_id: &str) -> Result<BTreeMap<String, bool>> {
        let mut stmt = self
            .conn
            .prepare("SELECT criterion_id, required FROM criterion_plan WHERE run_id = ?1")?;
        Ok(stmt
            .query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<crate::db::DbResult<_>>()?)
    }

    // ---- scores, convergence, directions, tuning ----

    #[allow(clippy::too_many_arguments)]
    pub fn add_score(
        &mut self,
        run_id: &str,
        round: u32,
        kind: &str,
        task_type: &str,
        scores: Option<&PlanScore>,
        overall: f64,
        threshold: f64,
    ) -> Result<bool> {
        let passed = overall + 1e-9 >= threshold;
        let scores_json = to_json(&scores)?;
        self.write(|tx| {
            tx.execute(
                "INSERT INTO plan_scores (run_id, round, kind, task_type, scores_json, overall, threshold, passed, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![run_id, round, kind, task_type, scores_json, overall, threshold, passed, tx.now],
            )?;
            tx.event(
                Some(run_id),
                EventKind::Score,
                json!({"round": round, "kind": kind, "task_type": task_type, "scores": scores,
                       "overall": overall, "threshold": threshold, "passed": passed}),
            )?;
            Ok(passed)
        })
    }

    pub fn scores(&self, run_id: &str) -> Result<Vec<ScoreRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT round, kind, task_type, scores_json, overall, threshold, passed, created_at FROM plan_scores
             WHERE run_id = ?1 ORDER BY id",
        )?;
        Ok(stmt
            .query_map([run_id], |r| {
                Ok(ScoreRecord {
                    round: r.get(0)?,
                    kind: r.get(1)?,
                    task_type: r.get(2)?,
                    scores: json_col(r.get(3)?, "plan_scores.scores_json")?,
                    overall: r.get(4)?,
                    threshold: r.get(5)?,
                    passed: r.get(6)?,
                    created_at: r.get(7)?,
                })
            })?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// Records one convergence check.
    pub fn add_convergence(&mut self, run_id: &str, c: &ConvergenceRecord) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO convergence (run_id, stage, round, before_share, after_share, verified, total, outcome, checkpoint, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![run_id, c.stage, c.round, c.before, c.after, c.verified, c.total, c.outcome, c.checkpoint, tx.now],
            )?;
            tx.event(Some(run_id), EventKind::Convergence, json!(c))?;
            Ok(())
        })
    }

    pub fn convergence_history(&self, run_id: &str) -> Result<Vec<ConvergenceRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT stage, round, before_share, after_share, verified, total, outcome, checkpoint, created_at
             FROM convergence WHERE run_id = ?1 ORDER BY id",
        )?;
        Ok(stmt
            .query_map([run_id], |r| {
                Ok(ConvergenceRecord {
                    stage: r.get(0)?,
                    round: r.get(1)?,
                    before: r.get(2)?,
                    after: r.get(3)?,
                    verified: r.get(4)?,
                    total: r.get(5)?,
                    outcome: r.get(6)?,
                    checkpoint: r.get(7)?,
                    created_at: r.get(8)?,
                })
            })?
            .collect::<crate::db::DbResult<_>>()?)
    }

    pub fn add_failed_direction(
        &mut self,
        run_id: &str,
        stage: &str,
        round: u32,
        direction: &str,
        reason: &str,
    ) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO failed_directions (run_id, stage, round, direction, reason, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![run_id, stage, round, direction, reason, tx.now],
            )?;
            tx.event(
                Some(run_id),
                EventKind::FailedDirection,
                json!({"stage": stage, "round": round, "direction": direction, "reason": reason}),
            )?;
            Ok(())
        })
    }

    pub fn failed_directions(&self, run_id: &str) -> Result<Vec<FailedDirection>> {
        let mut stmt = self.conn.prepare(
            "SELECT stage, round, direction, reason, created_at FROM failed_directions WHERE run_id = ?1 ORDER BY id",
        )?;
        Ok(stmt
            .query_map([run_id], |r| {
                Ok(FailedDirection {
                    stage: r.get(0)?,
                    round: r.get(1)?,
                    direction: r.get(2)?,
                    reason: r.get(3)?,
                    created_at: r.get(4)?,
                })
            })?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// The tuned plan threshold of a task type, if pawl tuned it.
    pub fn tuned_threshold(&self, task_type: &str) -> Result<Option<f64>> {
        Ok(self
            .conn
            .query_row(
                "SELECT after_value FROM threshold_tuning WHERE task_type = ?1 ORDER BY id DESC LIMIT 1",
                [task_type],
                |r| r.get(0),
            )
            .optional()?)
    }

    pub fn record_tuning(
        &mut self,
        task_type: &str,
        tuning: &Tuning,
        run_id: Option<&str>,
    ) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO threshold_tuning (task_type, before_value, after_value, reason, run_id, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![task_type, tuning.before, tuning.after, tuning.reason, run_id, tx.now],
            )?;
            tx.event(
                run_id,
                EventKind::ThresholdTuned,
                json!({"task_type": task_type, "before": tuning.before, "after": tuning.after, "reason": tuning.reason}),
            )?;
            Ok(())
        })
    }

    /// Adds a story outside a plan (simple mode's single story); a thin wrapper kept here so
    /// the pipeline needs no other story API.
    pub fn add_pipeline_story(
        &mut self,
        run_id: &str,
        title: &str,
        max_attempts: u32,
    ) -> Result<String> {
        Ok(self
            .add_story(run_id, title, Size::M, false, max_attempts)?
            .id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NewRun;
    use pawl_core::model::{Driver, StoryStatus, VerifyKind};
    use pawl_core::pipeline::output::*;

    fn store() -> (tempfile::TempDir, Store, String) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("pawl.db")).unwrap();
        let run = s
            .create_run(&NewRun {
                goal: "g".into(),
                driver: Driver::Headless,
                mode: Some("qa".into()),
                settings: Default::default(),
                branch: None,
                pre_run_commit: None,
            })
            .unwrap();
        (dir, s, run.id)
    }

    fn plan(titles: &[&str]) -> PlanOutput {
        PlanOutput {
            criteria: vec![PlanCriterion {
                id: "C1".into(),
                text: "file exists".into(),
                verify: VerifyKind::Command,
                command: Some("test -f a".into()),
                required: true,
            }],
            stories: titles
                .iter()
                .enumerate()
                .map(|(i, t)| PlanStory {
                    id: format!("S{}", i + 1),
                    title: t.to_string(),
                    size: Size::S,
                    security: false,
                    acceptance: vec!["ok".into()],
                    files: vec!["a".into()],
                    depends_on: if i > 0 { vec!["S1".into()] } else { vec![] },
                })
                .collect(),
        }
    }

    #[test]
    fn a_replan_supersedes_pending_stories_and_reuses_criteria() {
        let (_d, mut s, run) = store();
        let ids = s
            .save_plan(&run, 1, Some("p1"), 1, &plan(&["a", "b"]), 3)
            .unwrap();
        assert_eq!(ids["S2"], "S2");
        assert_eq!(
            s.story_plan(&run, "S2").unwrap().unwrap().depends_on,
            vec!["S1"]
        );
        let ids2 = s
            .save_plan(&run, 2, Some("p2"), 5, &plan(&["c"]), 3)
            .unwrap();
        assert_eq!(ids2["S1"], "S3");
        assert_eq!(ids2["C1"], "C1");
        let stories = s.stories(&run).unwrap();
        assert_eq!(stories.len(), 3);
        assert_eq!(stories[0].status, StoryStatus::Skipped);
        assert_eq!(s.criteria(&run).unwrap().len(), 1);
        assert_eq!(s.plans(&run).unwrap().len(), 2);
        assert!(s.criteria_required(&run).unwrap()["C1"]);
    }

    #[test]
    fn verdicts_keep_their_session() {
        let (_d, mut s, run) = store();
        let out = VerdictOutput {
            approve: true,
            architecture_status: ArchitectureStatus::Clear,
            findings: vec![Finding {
                severity: FindingSeverity::Suggestion,
                text: "t".into(),
                file: None,
            }],
            verified_criteria: vec![],
            accept_test_changes: None,
        };
        s.add_verdict(
            &run,
            &NewVerdict {
                phase: Phase::Plan,
                role: Role::Architect,
                round: 1,
                story_id: None,
                session_id: Some("arch-1"),
                iteration: 2,
                output: &out,
            },
        )
        .unwrap();
        let v = &s.verdicts(&run).unwrap()[0];
        assert_eq!(v.session_id.as_deref(), Some("arch-1"));
        assert_eq!(v.role, Role::Architect);
        assert!(v.approve && v.clean);
        let id = s.begin_phase(&run, Phase::Plan, 1).unwrap();
        s.end_phase(&run, id, "passed", "approved").unwrap();
        assert_eq!(
            s.phases(&run).unwrap()[0].outcome.as_deref(),
            Some("passed")
        );
        assert_eq!(s.run(&run).unwrap().phase.as_deref(), Some("plan"));
        assert!(
            s.add_score(&run, 1, "plan", "build", None, 0.7, 0.7)
                .unwrap()
        );
        assert!(
            !s.add_score(&run, 1, "plan", "build", None, 0.69, 0.7)
                .unwrap()
        );
        s.record_tuning(
            "build",
            &Tuning {
                before: 0.7,
                after: 0.72,
                reason: "r".into(),
            },
            Some(&run),
        )
        .unwrap();
        assert_eq!(s.tuned_threshold("build").unwrap(), Some(0.72));
        assert_eq!(s.tuned_threshold("debug").unwrap(), None);
    }
}
