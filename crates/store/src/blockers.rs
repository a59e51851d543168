//! Blockers: things only the user can clear, and the awaiting-user protocol.

use crate::db::{OptionalExtension, Row, params};
use pawl_core::EventKind;
use pawl_core::model::{BlockerStatus, RunStatus, Severity};
use pawl_core::record::Blocker;
use serde_json::json;

use crate::{OptionalNotFound, Result, Store, StoreError, parse_col};

const BLOCKER_COLUMNS: &str = "id, text, severity, status, instructions, check_command, resolution_notes, created_at, resolved_at";

fn blocker_from_row(r: &Row) -> crate::db::DbResult<Blocker> {
    Ok(Blocker {
        id: r.get(0)?,
        text: r.get(1)?,
        severity: parse_col(r.get(2)?, "blockers.severity")?,
        status: parse_col(r.get(3)?, "blockers.status")?,
        instructions: r.get(4)?,
        check_command: r.get(5)?,
        resolution_notes: r.get(6)?,
        created_at: r.get(7)?,
        resolved_at: r.get(8)?,
    })
}

impl Store {
    /// Adds an open blocker `B<n>`.
    pub fn add_blocker(&mut self, run_id: &str, text: &str, severity: Severity) -> Result<Blocker> {
        let id = self.write(|tx| {
            let seq = tx.next_seq("blockers", run_id)?;
            let id = format!("B{seq}");
            tx.execute(
                "INSERT INTO blockers (run_id, id, seq, text, severity, status, created_at) VALUES (?1, ?2, ?3, ?4, ?5, 'open', ?6)",
                params![run_id, id, seq, text, severity.as_str(), tx.now],
            )?;
            tx.event(Some(run_id), EventKind::BlockerAdded, json!({"id": id, "text": text, "severity": severity}))?;
            Ok(id)
        })?;
        self.blocker(run_id, &id)
    }

    pub fn blocker(&self, run_id: &str, id: &str) -> Result<Blocker> {
        let id = id.trim().to_ascii_uppercase();
        self.conn
            .query_row(
                &format!("SELECT {BLOCKER_COLUMNS} FROM blockers WHERE run_id = ?1 AND id = ?2"),
                params![run_id, id],
                blocker_from_row,
            )
            .or_not_found("blocker", &id)
    }

    pub fn blockers(&self, run_id: &str) -> Result<Vec<Blocker>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {BLOCKER_COLUMNS} FROM blockers WHERE run_id = ?1 ORDER BY seq"
        ))?;
        Ok(stmt
            .query_map([run_id], blocker_from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// Hands a blocker to the user: the run waits (awaiting-user) until `user_fixed`.
    pub fn await_user(
        &mut self,
        run_id: &str,
        blocker_id: &str,
        instructions: &str,
        check: Option<&str>,
    ) -> Result<Blocker> {
        let id = blocker_id.trim().to_ascii_uppercase();
        let b = self.blocker(run_id, &id)?;
        if b.status == BlockerStatus::Resolved {
            return Err(StoreError::Refused(format!(
                "blocker {id} is already resolved"
            )));
        }
        self.write(|tx| {
            tx.execute(
                "UPDATE blockers SET status = 'awaiting_user', instructions = ?3, check_command = ?4 WHERE run_id = ?1 AND id = ?2",
                params![run_id, id, instructions, check],
            )?;
            tx.changing_run(run_id, |tx| {
                Ok(tx.execute(
                    "UPDATE runs SET status = 'awaiting_user', stop_reason = 'awaiting_user', updated_at = ?2 WHERE id = ?1",
                    params![run_id, tx.now],
                )?)
            })?;
            tx.event(
                Some(run_id),
                EventKind::AwaitingUser,
                json!({"blocker": id, "instructions": instructions, "check": check}),
            )?;
            Ok(())
        })?;
        self.blocker(run_id, &id)
    }

    /// The blocker the run is waiting on, if any.
    pub fn awaited_blocker(&self, run_id: &str) -> Result<Option<Blocker>> {
        Ok(self
            .conn
            .query_row(
                &format!(
                    "SELECT {BLOCKER_COLUMNS} FROM blockers WHERE run_id = ?1 AND status = 'awaiting_user' ORDER BY seq LIMIT 1"
                ),
                [run_id],
                blocker_from_row,
            )
            .optional()?)
    }

    /// Records the outcome of a blocker's check command.
    pub fn record_check(
        &mut self,
        run_id: &str,
        blocker_id: &str,
        passed: bool,
        detail: serde_json::Value,
    ) -> Result<()> {
        self.write(|tx| {
            tx.event(
                Some(run_id),
                EventKind::UserFixChecked,
                json!({"blocker": blocker_id, "passed": passed, "detail": detail}),
            )?;
            Ok(())
        })
    }

    /// The user cleared what the run waits on: resolves the awaited blockers and makes the run
    /// active again.
    pub fn user_fixed(&mut self, run_id: &str, notes: Option<&str>) -> Result<Vec<Blocker>> {
        let waiting: Vec<Blocker> = self
            .blockers(run_id)?
            .into_iter()
            .filter(|b| b.status == BlockerStatus::AwaitingUser)
            .collect();
        let run = self.run(run_id)?;
        if waiting.is_empty() && run.status != RunStatus::AwaitingUser {
            return Err(StoreError::Refused(format!(
                "run {run_id} is not waiting for the user (it is {})",
                run.status
            )));
        }
        self.write(|tx| {
            for b in &waiting {
                tx.execute(
                    "UPDATE blockers SET status = 'resolved', resolution_notes = ?3, resolved_at = ?4 WHERE run_id = ?1 AND id = ?2",
                    params![run_id, b.id, notes, tx.now],
                )?;
            }
            tx.changing_run(run_id, |tx| {
                Ok(tx.execute(
                    "UPDATE runs SET status = 'active', stop_reason = NULL, updated_at = ?2 WHERE id = ?1 AND status = 'awaiting_user'",
                    params![run_id, tx.now],
                )?)
            })?;
            let ids: Vec<&str> = waiting.iter().map(|b| b.id.as_str()).collect();
            tx.event(Some(run_id), EventKind::UserFixed, json!({"blockers": ids, "notes": notes}))?;
            Ok(())
        })?;
        waiting
            .iter()
            .map(|b| self.blocker(run_id, &b.id))
            .collect()
    }
}
