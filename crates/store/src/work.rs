//! Criteria, stories, TDD phases, failures, clarifications and notes.

use crate::db::{OptionalExtension, Row, params};
use pawl_core::EventKind;
use pawl_core::failure::FailureCategory;
use pawl_core::model::{CriterionStatus, Size, StoryStatus, Verification, story_transition};
use pawl_core::record::{Clarification, Criterion, Failure, Note, Story};
use pawl_core::tdd::{self, TddPhase};
use serde_json::json;

use crate::{OptionalNotFound, Result, Store, StoreError, Tx, parse_col};

const CRITERION_COLUMNS: &str =
    "id, text, verify_kind, verify_command, status, created_at, updated_at";
const STORY_COLUMNS: &str =
    "id, title, size, security, status, tdd_phase, attempts, max_attempts, created_at, updated_at";

fn criterion_from_row(r: &Row) -> crate::db::DbResult<Criterion> {
    Ok(Criterion {
        id: r.get(0)?,
        text: r.get(1)?,
        verification: Verification {
            kind: parse_col(r.get(2)?, "criteria.verify_kind")?,
            command: r.get(3)?,
        },
        status: parse_col(r.get(4)?, "criteria.status")?,
        created_at: r.get(5)?,
        updated_at: r.get(6)?,
    })
}

fn story_from_row(r: &Row) -> crate::db::DbResult<Story> {
    Ok(Story {
        id: r.get(0)?,
        title: r.get(1)?,
        size: parse_col(r.get(2)?, "stories.size")?,
        security: r.get(3)?,
        status: parse_col(r.get(4)?, "stories.status")?,
        tdd_phase: parse_col(r.get(5)?, "stories.tdd_phase")?,
        attempts: r.get(6)?,
        max_attempts: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
    })
}

fn failure_from_row(r: &Row) -> crate::db::DbResult<Failure> {
    Ok(Failure {
        id: r.get(0)?,
        story_id: r.get(1)?,
        message: r.get(2)?,
        category: parse_col(r.get(3)?, "failures.category")?,
        auto_classified: r.get(4)?,
        created_at: r.get(5)?,
    })
}

/// Story and criterion ids are typed by people: accept `s2` for `S2`.
fn normalise_id(id: &str) -> String {
    id.trim().to_ascii_uppercase()
}

fn story_in(tx: &Tx<'_>, run_id: &str, id: &str) -> Result<Story> {
    tx.query_row(
        &format!("SELECT {STORY_COLUMNS} FROM stories WHERE run_id = ?1 AND id = ?2"),
        params![run_id, id],
        story_from_row,
    )
    .optional()?
    .ok_or_else(|| StoreError::NotFound {
        what: "story",
        id: id.into(),
        hint: format!(" in run {run_id}: see `pawl story list`"),
    })
}

impl Store {
    // ---- criteria ----

    /// Adds a criterion `C<n>`.
    pub fn add_criterion(
        &mut self,
        run_id: &str,
        text: &str,
        verification: &Verification,
    ) -> Result<Criterion> {
        let id = self.write(|tx| {
            let seq = tx.next_seq("criteria", run_id)?;
            let id = format!("C{seq}");
            let rowid = tx.insert(
                "INSERT INTO criteria (run_id, id, seq, text, verify_kind, verify_command, status, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'unverified', ?7, ?7)",
                params![run_id, id, seq, text, verification.kind.as_str(), verification.command, tx.now],
            )?;
            tx.inserted(&crate::mac::CRITERIA, rowid, Some(run_id))?;
            tx.event(Some(run_id), EventKind::CriterionAdded, json!({"id": id, "text": text, "verification": verification}))?;
            Ok(id)
        })?;
        self.criterion(run_id, &id)
    }

    pub fn criterion(&self, run_id: &str, id: &str) -> Result<Criterion> {
        let id = normalise_id(id);
        self.check_run_rows(&crate::mac::CRITERIA, run_id)?;
        self.conn
            .query_row(
                &format!("SELECT {CRITERION_COLUMNS} FROM criteria WHERE run_id = ?1 AND id = ?2"),
                params![run_id, id],
                criterion_from_row,
            )
            .or_not_found("criterion", &id)
    }

    /// The run's criteria, as pawl wrote them (`Err(StoreError::Tampered)` otherwise: whether
    /// the run is done rests on them).
    pub fn criteria(&self, run_id: &str) -> Result<Vec<Criterion>> {
        self.check_run_rows(&crate::mac::CRITERIA, run_id)?;
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {CRITERION_COLUMNS} FROM criteria WHERE run_id = ?1 ORDER BY seq"
        ))?;
        Ok(stmt
            .query_map([run_id], criterion_from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// Records a criterion's verification outcome with the evidence that decided it.
    pub fn set_criterion_status(
        &mut self,
        run_id: &str,
        id: &str,
        status: CriterionStatus,
        evidence: serde_json::Value,
    ) -> Result<Criterion> {
        let id = normalise_id(id);
        self.criterion(run_id, &id)?;
        self.write(|tx| {
            let rowid = tx
                .rowid("criteria", "run_id = ?1 AND id = ?2", &[&run_id, &id])?
                .ok_or_else(|| StoreError::NotFound {
                    what: "criterion",
                    id: id.clone(),
                    hint: String::new(),
                })?;
            tx.changing(&crate::mac::CRITERIA, rowid, |tx| {
                Ok(tx.execute(
                    "UPDATE criteria SET status = ?3, updated_at = ?4 WHERE run_id = ?1 AND id = ?2",
                    params![run_id, id, status.as_str(), tx.now],
                )?)
            })?;
            tx.event(
                Some(run_id),
                EventKind::CriterionStatus,
                json!({"id": id, "status": status, "evidence": evidence}),
            )?;
            Ok(())
        })?;
        self.criterion(run_id, &id)
    }

    // ---- stories ----

    /// Adds a story `S<n>`.
    pub fn add_story(
        &mut self,
        run_id: &str,
        title: &str,
        size: Size,
        security: bool,
        max_attempts: u32,
    ) -> Result<Story> {
        let id = self.write(|tx| {
            let seq = tx.next_seq("stories", run_id)?;
            let id = format!("S{seq}");
            tx.execute(
                "INSERT INTO stories (run_id, id, seq, title, size, security, status, tdd_phase, attempts, max_attempts, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', 'none', 0, ?7, ?8, ?8)",
                params![run_id, id, seq, title, size.as_str(), security, max_attempts, tx.now],
            )?;
            tx.event(
                Some(run_id),
                EventKind::StoryAdded,
                json!({"id": id, "title": title, "size": size, "security": security}),
            )?;
            Ok(id)
        })?;
        self.story(run_id, &id)
    }

    pub fn story(&self, run_id: &str, id: &str) -> Result<Story> {
        let id = normalise_id(id);
        self.conn
            .query_row(
                &format!("SELECT {STORY_COLUMNS} FROM stories WHERE run_id = ?1 AND id = ?2"),
                params![run_id, id],
                story_from_row,
            )
            .or_not_found("story", &id)
            .map_err(|e| match e {
                StoreError::NotFound { what, id, .. } => StoreError::NotFound {
                    what,
                    id,
                    hint: format!(" in run {run_id}: see `pawl story list`"),
                },
                other => other,
            })
    }

    pub fn stories(&self, run_id: &str) -> Result<Vec<Story>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {STORY_COLUMNS} FROM stories WHERE run_id = ?1 ORDER BY seq"
        ))?;
        Ok(stmt
            .query_map([run_id], story_from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// Moves a story along its lifecycle (rules in `pawl_core::model::story_transition`).
    pub fn set_story_status(
        &mut self,
        run_id: &str,
        id: &str,
        to: StoryStatus,
        reason: Option<&str>,
    ) -> Result<Story> {
        let id = normalise_id(id);
        self.write(|tx| {
            let story = story_in(tx, run_id, &id)?;
            story_transition(story.status, to)?;
            tx.execute(
                "UPDATE stories SET status = ?3, updated_at = ?4 WHERE run_id = ?1 AND id = ?2",
                params![run_id, id, to.as_str(), tx.now],
            )?;
            tx.event(
                Some(run_id),
                EventKind::StoryStatus,
                json!({"id": id, "from": story.status, "to": to, "reason": reason}),
            )?;
            Ok(())
        })?;
        self.story(run_id, &id)
    }

    /// Moves a story's TDD phase, refusing out-of-order moves (rules in `pawl_core::tdd`).
    /// Read, check and write happen in one transaction, so two agents cannot both advance.
    pub fn advance_tdd(&mut self, run_id: &str, id: &str, requested: TddPhase) -> Result<Story> {
        let id = normalise_id(id);
        self.write(|tx| {
            let story = story_in(tx, run_id, &id)?;
            if matches!(story.status, StoryStatus::Done | StoryStatus::Skipped) {
                return Err(StoreError::Refused(format!(
                    "story {id} is {}: its TDD cycle is over",
                    story.status
                )));
            }
            let next = tdd::transition(story.tdd_phase, requested)?;
            tx.execute(
                "UPDATE stories SET tdd_phase = ?3, updated_at = ?4 WHERE run_id = ?1 AND id = ?2",
                params![run_id, id, next.as_str(), tx.now],
            )?;
            tx.event(
                Some(run_id),
                EventKind::TddPhase,
                json!({"story": id, "from": story.tdd_phase, "to": next}),
            )?;
            Ok(())
        })?;
        self.story(run_id, &id)
    }

    // ---- failures ----

    /// Records a classified failure; a failure on a story counts as one failed attempt.
    pub fn add_failure(
        &mut self,
        run_id: &str,
        story_id: Option<&str>,
        message: &str,
        category: FailureCategory,
        auto_classified: bool,
    ) -> Result<Failure> {
        let story_id = story_id.map(normalise_id);
        let id = self.write(|tx| {
            if let Some(sid) = &story_id {
                story_in(tx, run_id, sid)?;
                tx.execute(
                    "UPDATE stories SET attempts = attempts + 1, updated_at = ?3 WHERE run_id = ?1 AND id = ?2",
                    params![run_id, sid, tx.now],
                )?;
            }
            let rowid = tx.insert(
                "INSERT INTO failures (run_id, story_id, message, category, auto_classified, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![run_id, story_id, message, category.as_str(), auto_classified, tx.now],
            )?;
            let id = rowid;
            tx.event(
                Some(run_id),
                EventKind::Failure,
                json!({"id": id, "story": story_id, "category": category, "auto_classified": auto_classified, "message": message}),
            )?;
            Ok(id)
        })?;
        self.conn
            .query_row(
                "SELECT id, story_id, message, category, auto_classified, created_at FROM failures WHERE id = ?1",
                [id],
                failure_from_row,
            )
            .or_not_found("failure", &id.to_string())
    }

    /// Failures, most recent first, optionally of one story.
    pub fn failures(
        &self,
        run_id: &str,
        story_id: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Failure>> {
        let story_id = story_id.map(normalise_id);
        let mut stmt = self.conn.prepare(
            "SELECT id, story_id, message, category, auto_classified, created_at FROM failures
             WHERE run_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR story_id = ?2) ORDER BY id DESC LIMIT ?3",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        Ok(stmt
            .query_map(params![run_id, story_id, limit], failure_from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    // ---- clarifications and notes ----

    pub fn add_clarification(
        &mut self,
        run_id: &str,
        question: &str,
        answer: &str,
        phase: &str,
        category: &str,
    ) -> Result<Clarification> {
        let id = self.write(|tx| {
            let rowid = tx.insert(
                "INSERT INTO clarifications (run_id, question, answer, phase, category, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![run_id, question, answer, phase, category, tx.now],
            )?;
            let id = rowid;
            tx.event(
                Some(run_id),
                EventKind::Clarification,
                json!({"id": id, "question": question, "answer": answer, "phase": phase, "category": category}),
            )?;
            Ok(id)
        })?;
        self.clarifications(run_id)?
            .into_iter()
            .find(|c| c.id == id)
            .ok_or_else(|| StoreError::Corrupt("clarification vanished".into()))
    }

    pub fn clarifications(&self, run_id: &str) -> Result<Vec<Clarification>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, question, answer, phase, category, created_at FROM clarifications WHERE run_id = ?1 ORDER BY id",
        )?;
        Ok(stmt
            .query_map([run_id], |r| {
                Ok(Clarification {
                    id: r.get(0)?,
                    question: r.get(1)?,
                    answer: r.get(2)?,
                    phase: r.get(3)?,
                    category: r.get(4)?,
                    created_at: r.get(5)?,
                })
            })?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// Records a key decision.
    pub fn add_note(&mut self, run_id: &str, text: &str) -> Result<Note> {
        let id = self.write(|tx| {
            let rowid = tx.insert(
                "INSERT INTO notes (run_id, text, created_at) VALUES (?1, ?2, ?3)",
                params![run_id, text, tx.now],
            )?;
            let id = rowid;
            tx.event(
                Some(run_id),
                EventKind::Note,
                json!({"id": id, "text": text}),
            )?;
            Ok(id)
        })?;
        Ok(Note {
            id,
            text: text.to_string(),
            created_at: self.note_time(id)?,
        })
    }

    fn note_time(&self, id: i64) -> Result<i64> {
        self.conn
            .query_row("SELECT created_at FROM notes WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .or_not_found("note", &id.to_string())
    }

    pub fn notes(&self, run_id: &str) -> Result<Vec<Note>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, text, created_at FROM notes WHERE run_id = ?1 ORDER BY id")?;
        Ok(stmt
            .query_map([run_id], |r| {
                Ok(Note {
                    id: r.get(0)?,
                    text: r.get(1)?,
                    created_at: r.get(2)?,
                })
            })?
            .collect::<crate::db::DbResult<_>>()?)
    }
}
