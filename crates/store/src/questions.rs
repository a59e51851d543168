//! A run's clarifying questions, kept from the moment they are asked until they are answered
//! (migration 0014): the front end that asks (a terminal) and any other (the dashboard) can
//! answer; the first answer given wins. Asking and answering are each one transaction with its
//! event (`question_asked`, `question_answered`: what a dashboard follows).
//!
//! Not here: what is asked and what an answer does to the run (pawl-engine's spec gate and
//! interview).

use crate::db::{Row, params};
use pawl_core::EventKind;
use serde_json::json;

use crate::{OptionalNotFound, Result, Store};

/// One question of a run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoredQuestion {
    pub id: i64,
    pub run_id: String,
    pub question: String,
    /// What is taken when nobody answers.
    pub recommended: String,
    pub category: Option<String>,
    pub asked_at: i64,
    /// `None` while the question waits for an answer.
    pub answer: Option<String>,
    /// The recommendation was taken without anybody answering.
    pub assumed: bool,
    /// Who answered (`terminal`, `dashboard`, `timeout`...).
    pub answered_by: Option<String>,
    pub answered_at: Option<i64>,
}

impl StoredQuestion {
    pub fn pending(&self) -> bool {
        self.answer.is_none()
    }
}

const COLUMNS: &str = "id, run_id, question, recommended, category, asked_at, answer, assumed, answered_by, answered_at";

fn from_row(r: &Row) -> crate::db::DbResult<StoredQuestion> {
    let assumed: Option<i64> = r.get(7)?;
    Ok(StoredQuestion {
        id: r.get(0)?,
        run_id: r.get(1)?,
        question: r.get(2)?,
        recommended: r.get(3)?,
        category: r.get(4)?,
        asked_at: r.get(5)?,
        answer: r.get(6)?,
        assumed: assumed.unwrap_or(0) != 0,
        answered_by: r.get(8)?,
        answered_at: r.get(9)?,
    })
}

impl Store {
    /// Keeps a question of the run as waiting for an answer; its id.
    pub fn ask_question(
        &mut self,
        run_id: &str,
        question: &str,
        recommended: &str,
        category: Option<&str>,
    ) -> Result<i64> {
        self.run(run_id)?;
        self.write(|tx| {
            let id = tx.insert(
                "INSERT INTO questions (run_id, question, recommended, category, asked_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![run_id, question, recommended, category, tx.now],
            )?;
            tx.event(
                Some(run_id),
                EventKind::QuestionAsked,
                json!({"id": id, "question": question, "recommended": recommended, "category": category}),
            )?;
            Ok(id)
        })
    }

    /// Answers question `id` of the run, if it still waits: `true` when this answer is the one
    /// kept (the first answer wins; a later one changes nothing). `assumed`: the recommendation
    /// taken without anybody answering.
    pub fn answer_question(
        &mut self,
        run_id: &str,
        id: i64,
        answer: &str,
        assumed: bool,
        by: &str,
    ) -> Result<bool> {
        self.question(run_id, id)?;
        self.write(|tx| {
            let changed = tx.execute(
                "UPDATE questions SET answer = ?1, assumed = ?2, answered_by = ?3, answered_at = ?4
                 WHERE run_id = ?5 AND id = ?6 AND answer IS NULL",
                params![answer, i64::from(assumed), by, tx.now, run_id, id],
            )?;
            if changed > 0 {
                tx.event(
                    Some(run_id),
                    EventKind::QuestionAnswered,
                    json!({"id": id, "answer": answer, "assumed": assumed, "by": by}),
                )?;
            }
            Ok(changed > 0)
        })
    }

    /// Question `id` of the run.
    pub fn question(&self, run_id: &str, id: i64) -> Result<StoredQuestion> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM questions WHERE run_id = ?1 AND id = ?2"),
                params![run_id, id],
                from_row,
            )
            .or_not_found("question", &id.to_string())
    }

    /// The run's questions, oldest first.
    pub fn questions(&self, run_id: &str) -> Result<Vec<StoredQuestion>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM questions WHERE run_id = ?1 ORDER BY id"
        ))?;
        Ok(stmt
            .query_map([run_id], from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// The run's questions that wait for an answer, oldest first.
    pub fn pending_questions(&self, run_id: &str) -> Result<Vec<StoredQuestion>> {
        Ok(self
            .questions(run_id)?
            .into_iter()
            .filter(StoredQuestion::pending)
            .collect())
    }
}
