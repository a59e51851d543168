//! The stories of a plan run in parallel (`story_work`, migration 0011): each story's plan
//! (scope, dependencies, criteria), its branch and worktree, where it is (pending, working,
//! queued, merging, merged, failed), how many sessions worked on it and the merge queue's last
//! word with its evidence. Every change is one transaction with a `story_work` event.
//!
//! Not here: what a state change means (pawl-core's `parallel`) or doing it (pawl-engine).

use crate::db::{Row, params};
use pawl_core::EventKind;
use pawl_core::parallel::{MergeResult, PlannedStory, WorkState};
use serde::Serialize;
use serde_json::json;

use crate::{OptionalNotFound, Result, Store, json_col, parse_col};

/// One story of a run's plan as the parallel driver keeps it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoryWork {
    /// The story's id in the plan.
    pub story: String,
    /// The run's row in `stories`.
    pub story_id: String,
    pub plan: PlannedStory,
    /// The run's criterion ids of the story's criteria.
    pub criteria: Vec<String>,
    pub state: WorkState,
    pub attempts: u32,
    pub merge: MergeResult,
    pub evidence: serde_json::Value,
    pub feedback: Option<String>,
    pub branch: String,
    pub worktree: String,
    pub merged_commit: Option<String>,
    pub updated_at: i64,
}

/// A new story of the plan: where it will live, and what the store already holds for it.
#[derive(Debug, Clone)]
pub struct NewStoryWork {
    pub plan: PlannedStory,
    pub story_id: String,
    pub criteria: Vec<String>,
    pub branch: String,
    pub worktree: String,
}

/// A change to a story's row; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct StoryWorkChange {
    pub state: Option<WorkState>,
    /// One more session works on it.
    pub new_attempt: bool,
    pub merge: Option<MergeResult>,
    pub evidence: Option<serde_json::Value>,
    /// `Some(None)` clears it.
    pub feedback: Option<Option<String>>,
    pub merged_commit: Option<String>,
}

const COLUMNS: &str = "story, story_id, plan_json, criteria_json, state, attempts, merge_result, evidence_json, feedback, branch, worktree, merged_commit, updated_at";

fn from_row(r: &Row) -> crate::db::DbResult<StoryWork> {
    Ok(StoryWork {
        story: r.get(0)?,
        story_id: r.get(1)?,
        plan: json_col(r.get(2)?, "story_work.plan_json")?,
        criteria: json_col(r.get(3)?, "story_work.criteria_json")?,
        state: parse_col(r.get(4)?, "story_work.state")?,
        attempts: r.get(5)?,
        merge: parse_col(r.get(6)?, "story_work.merge_result")?,
        evidence: json_col(r.get(7)?, "story_work.evidence_json")?,
        feedback: r.get(8)?,
        branch: r.get(9)?,
        worktree: r.get(10)?,
        merged_commit: r.get(11)?,
        updated_at: r.get(12)?,
    })
}

impl Store {
    /// Records the stories of a run's plan, pending, in plan order (one transaction).
    pub fn add_story_work(&mut self, run_id: &str, stories: &[NewStoryWork]) -> Result<()> {
        self.write(|tx| {
            for (i, s) in stories.iter().enumerate() {
                let plan = serde_json::to_string(&s.plan).unwrap_or_default();
                let criteria = serde_json::to_string(&s.criteria).unwrap_or_default();
                tx.execute(
                    "INSERT INTO story_work (run_id, story, seq, story_id, plan_json, criteria_json, state, attempts, merge_result, evidence_json, branch, worktree, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', 0, 'pending', 'null', ?7, ?8, ?9)",
                    params![run_id, s.plan.id, i as i64 + 1, s.story_id, plan, criteria, s.branch, s.worktree, tx.now],
                )?;
                tx.event(
                    Some(run_id),
                    EventKind::StoryWork,
                    json!({"story": s.plan.id, "state": "pending", "branch": s.branch,
                           "worktree": s.worktree, "files": s.plan.files,
                           "depends_on": s.plan.depends_on}),
                )?;
            }
            Ok(())
        })
    }

    /// The run's planned stories, in plan order (none for a run without a plan).
    pub fn story_works(&self, run_id: &str) -> Result<Vec<StoryWork>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM story_work WHERE run_id = ?1 ORDER BY seq"
        ))?;
        Ok(stmt
            .query_map([run_id], from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    pub fn story_work(&self, run_id: &str, story: &str) -> Result<StoryWork> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM story_work WHERE run_id = ?1 AND story = ?2"),
                params![run_id, story],
                from_row,
            )
            .or_not_found("planned story", story)
    }

    /// Applies `change` to a story's row, with its event; returns the row as it is now.
    pub fn update_story_work(
        &mut self,
        run_id: &str,
        story: &str,
        change: &StoryWorkChange,
    ) -> Result<StoryWork> {
        self.write(|tx| {
            let n = tx.execute(
                "UPDATE story_work SET
                    state = COALESCE(?3, state),
                    attempts = attempts + ?4,
                    merge_result = COALESCE(?5, merge_result),
                    evidence_json = COALESCE(?6, evidence_json),
                    feedback = CASE WHEN ?7 = 1 THEN ?8 ELSE feedback END,
                    merged_commit = COALESCE(?9, merged_commit),
                    updated_at = ?10
                 WHERE run_id = ?1 AND story = ?2",
                params![
                    run_id,
                    story,
                    change.state.map(|s| s.as_str()),
                    i64::from(change.new_attempt),
                    change.merge.map(|m| m.as_str()),
                    change.evidence.as_ref().map(|e| e.to_string()),
                    i64::from(change.feedback.is_some()),
                    change.feedback.clone().flatten(),
                    change.merged_commit,
                    tx.now
                ],
            )?;
            if n == 0 {
                return Err(crate::StoreError::NotFound {
                    what: "planned story",
                    id: story.to_string(),
                    hint: format!(" in run {run_id}"),
                });
            }
            tx.event(
                Some(run_id),
                EventKind::StoryWork,
                json!({"story": story, "state": change.state, "new_attempt": change.new_attempt,
                       "merge": change.merge, "evidence": change.evidence,
                       "feedback": change.feedback, "merged_commit": change.merged_commit}),
            )?;
            Ok(())
        })?;
        self.story_work(run_id, story)
    }
}
