//! The in-session driver's state: a run armed for an interactive agent session, the agent
//! sessions bound to it, when the current turn of work began, and the file edits made since the
//! last Stop (for the thrash breaker).
//!
//! What the hooks decide lives in the CLI and pawl-hooks; this module only remembers.

use std::collections::BTreeMap;

use crate::db::{OptionalExtension, Row, params};
use pawl_core::EventKind;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::{Result, Store, StoreError, Tx, json_col, mac};

/// The current turn of agent work starts now (the arming row, checked and signed again).
fn set_turn_start(tx: &Tx<'_>, run_id: &str) -> Result<()> {
    if let Some(rowid) = tx.rowid("session_arming", "run_id = ?1", &[&run_id])? {
        tx.changing(&mac::ARMING, rowid, |tx| {
            Ok(tx.execute(
                "UPDATE session_arming SET turn_started_at = ?2 WHERE run_id = ?1",
                params![run_id, tx.now],
            )?)
        })?;
    }
    Ok(())
}

/// What arming a run for a session records.
#[derive(Debug, Clone, Default)]
pub struct NewArming {
    /// The agent the session is expected to be (`claude`, `codex`, `gemini`), if known.
    pub agent: Option<String>,
    /// An armed run that no session takes by then expires.
    pub expires_at: i64,
    pub baseline_tree: Option<String>,
    /// Settings entries pawl merged for `--autonomous` (removed again at the end).
    pub autonomous: Vec<String>,
}

/// A run's session-mode record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Arming {
    pub run_id: String,
    pub agent: Option<String>,
    pub armed_at: i64,
    pub expires_at: i64,
    pub baseline_tree: Option<String>,
    pub autonomous: Vec<String>,
    pub turn_started_at: i64,
    pub ended_at: Option<i64>,
    pub end_why: Option<String>,
}

/// An agent session bound to a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionBinding {
    pub session_id: String,
    pub run_id: String,
    pub agent: String,
    pub bound_at: i64,
    pub last_seen_at: i64,
}

const ARMING_COLUMNS: &str = "run_id, agent, armed_at, expires_at, baseline_tree, autonomous_json, \
     turn_started_at, ended_at, end_why";

fn arming_from_row(r: &Row) -> crate::db::DbResult<Arming> {
    Ok(Arming {
        run_id: r.get(0)?,
        agent: r.get(1)?,
        armed_at: r.get(2)?,
        expires_at: r.get(3)?,
        baseline_tree: r.get(4)?,
        autonomous: json_col(r.get(5)?, "session_arming.autonomous_json")?,
        turn_started_at: r.get(6)?,
        ended_at: r.get(7)?,
        end_why: r.get(8)?,
    })
}

fn binding_from_row(r: &Row) -> crate::db::DbResult<SessionBinding> {
    Ok(SessionBinding {
        session_id: r.get(0)?,
        run_id: r.get(1)?,
        agent: r.get(2)?,
        bound_at: r.get(3)?,
        last_seen_at: r.get(4)?,
    })
}

impl Store {
    /// Arms `run_id` for the next agent session (re-arming replaces the previous record).
    pub fn arm_session(&mut self, run_id: &str, new: &NewArming) -> Result<Arming> {
        self.run(run_id)?;
        let autonomous = serde_json::to_string(&new.autonomous)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.write(|tx| {
            let upsert = |tx: &Tx<'_>| -> Result<usize> {
                Ok(tx.execute(
                    "INSERT INTO session_arming (run_id, agent, armed_at, expires_at, baseline_tree, autonomous_json, turn_started_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?3)
                     ON CONFLICT(run_id) DO UPDATE SET agent = ?2, armed_at = ?3, expires_at = ?4, baseline_tree = ?5,
                       autonomous_json = ?6, turn_started_at = ?3, ended_at = NULL, end_why = NULL",
                    params![run_id, new.agent, tx.now, new.expires_at, new.baseline_tree, autonomous],
                )?)
            };
            match tx.rowid("session_arming", "run_id = ?1", &[&run_id])? {
                Some(rowid) => {
                    tx.changing(&mac::ARMING, rowid, upsert)?;
                }
                None => {
                    upsert(tx)?;
                    tx.inserted(&mac::ARMING, tx.rowid("session_arming", "run_id = ?1", &[&run_id])?.unwrap_or(0), Some(run_id))?;
                }
            }
            tx.event(
                Some(run_id),
                EventKind::SessionArmed,
                json!({"agent": new.agent, "expires_at": new.expires_at, "autonomous": new.autonomous}),
            )?;
            Ok(())
        })?;
        self.arming(run_id)?.ok_or_else(|| StoreError::NotFound {
            what: "session arming of run",
            id: run_id.into(),
            hint: String::new(),
        })
    }

    /// The run's session-mode record, if it was ever armed, as pawl wrote it
    /// (`Err(StoreError::Tampered)` otherwise).
    pub fn arming(&self, run_id: &str) -> Result<Option<Arming>> {
        self.check_run_rows(&mac::ARMING, run_id)?;
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {ARMING_COLUMNS} FROM session_arming WHERE run_id = ?1"),
                [run_id],
                arming_from_row,
            )
            .optional()?)
    }

    /// Binds an agent session to the run (idempotent) and starts its turn clock. The session
    /// is also added to the run's lease when one is held.
    pub fn bind_agent_session(
        &mut self,
        run_id: &str,
        session_id: &str,
        agent: &str,
        source: &str,
    ) -> Result<SessionBinding> {
        let has_lease = self.lease(run_id)?.is_some();
        self.write(|tx| {
            let existing: Option<String> = tx
                .query_row(
                    "SELECT run_id FROM session_bindings WHERE session_id = ?1",
                    [session_id],
                    |r| r.get(0),
                )
                .optional()?;
            match existing {
                Some(other) if other != run_id => {
                    return Err(StoreError::Refused(format!(
                        "session {session_id} is already bound to run {other}"
                    )));
                }
                Some(_) => {
                    tx.execute(
                        "UPDATE session_bindings SET last_seen_at = ?2 WHERE session_id = ?1",
                        params![session_id, tx.now],
                    )?;
                }
                None => {
                    let rowid = tx.insert(
                        "INSERT INTO session_bindings (session_id, run_id, agent, bound_at, last_seen_at)
                         VALUES (?1, ?2, ?3, ?4, ?4)",
                        params![session_id, run_id, agent, tx.now],
                    )?;
                    tx.inserted(&mac::BINDINGS, rowid, Some(run_id))?;
                    set_turn_start(tx, run_id)?;
                    tx.event(
                        Some(run_id),
                        EventKind::SessionBound,
                        json!({"session": session_id, "agent": agent, "source": source}),
                    )?;
                }
            }
            Ok(())
        })?;
        if has_lease {
            self.bind_session(run_id, session_id)?;
        }
        self.session_binding(session_id)?
            .ok_or_else(|| StoreError::Corrupt(format!("binding of {session_id} vanished")))
    }

    pub fn session_binding(&self, session_id: &str) -> Result<Option<SessionBinding>> {
        if let Some(run_id) = self.binding_run(session_id)? {
            self.check_run_rows(&mac::BINDINGS, &run_id)?;
        }
        Ok(self
            .conn
            .query_row(
                "SELECT session_id, run_id, agent, bound_at, last_seen_at FROM session_bindings WHERE session_id = ?1",
                [session_id],
                binding_from_row,
            )
            .optional()?)
    }

    fn binding_run(&self, session_id: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT run_id FROM session_bindings WHERE session_id = ?1",
                [session_id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The sessions bound to a run, oldest first, as pawl bound them
    /// (`Err(StoreError::Tampered)` otherwise).
    pub fn session_bindings(&self, run_id: &str) -> Result<Vec<SessionBinding>> {
        self.check_run_rows(&mac::BINDINGS, run_id)?;
        let mut stmt = self.conn.prepare(
            "SELECT session_id, run_id, agent, bound_at, last_seen_at FROM session_bindings
             WHERE run_id = ?1 ORDER BY bound_at, session_id",
        )?;
        Ok(stmt
            .query_map([run_id], binding_from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// Where the last Stop of `session_id` stopped reading its transcript (JSON, opaque to the
    /// store), if it read it at all.
    pub fn transcript_cursor(&self, session_id: &str) -> Result<Option<String>> {
        // What a turn is charged rests on it: a cursor moved outside pawl is never used.
        if let Some(run_id) = self.binding_run(session_id)? {
            self.check_run_rows(&mac::BINDINGS, &run_id)?;
        }
        Ok(self
            .conn
            .query_row(
                "SELECT transcript_cursor FROM session_bindings WHERE session_id = ?1",
                [session_id],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()?
            .flatten())
    }

    /// Records where the transcript of `session_id` was read up to.
    pub fn set_transcript_cursor(&mut self, session_id: &str, cursor: &str) -> Result<()> {
        self.write(|tx| {
            let Some(rowid) = tx.rowid("session_bindings", "session_id = ?1", &[&session_id])?
            else {
                return Ok(());
            };
            tx.changing(&mac::BINDINGS, rowid, |tx| {
                Ok(tx.execute(
                    "UPDATE session_bindings SET transcript_cursor = ?2 WHERE session_id = ?1",
                    params![session_id, cursor],
                )?)
            })?;
            Ok(())
        })
    }

    /// A sign of life from a bound session (not an event: it would drown the log).
    pub fn touch_session(&mut self, session_id: &str) -> Result<()> {
        let now = self.now();
        self.conn.execute(
            "UPDATE session_bindings SET last_seen_at = ?2 WHERE session_id = ?1",
            params![session_id, now],
        )?;
        Ok(())
    }

    /// Counts one edit of `path` in the run's current turn.
    pub fn record_session_edit(&mut self, run_id: &str, path: &str) -> Result<u32> {
        self.conn.execute(
            "INSERT INTO session_edits (run_id, path, count) VALUES (?1, ?2, 1)
             ON CONFLICT(run_id, path) DO UPDATE SET count = count + 1",
            params![run_id, path],
        )?;
        Ok(self.conn.query_row(
            "SELECT count FROM session_edits WHERE run_id = ?1 AND path = ?2",
            params![run_id, path],
            |r| r.get(0),
        )?)
    }

    /// The edits of the current turn, per file; reading them ends the turn's count.
    pub fn take_session_edits(&mut self, run_id: &str) -> Result<BTreeMap<String, u32>> {
        let any: bool = self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM session_edits WHERE run_id = ?1)",
            [run_id],
            |r| r.get(0),
        )?;
        if !any {
            // No write transaction (and no fsync) for a turn without edits.
            return Ok(BTreeMap::new());
        }
        self.write(|tx| {
            let edits: BTreeMap<String, u32> = {
                let mut stmt =
                    tx.prepare("SELECT path, count FROM session_edits WHERE run_id = ?1")?;
                stmt.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<crate::db::DbResult<_>>()?
            };
            tx.execute("DELETE FROM session_edits WHERE run_id = ?1", [run_id])?;
            Ok(edits)
        })
    }

    /// A new turn of agent work begins now (after a blocked Stop).
    pub fn start_session_turn(&mut self, run_id: &str) -> Result<()> {
        self.write(|tx| set_turn_start(tx, run_id))
    }

    /// Ends session mode for the run (`pawl off`, the run's end, expiry). Returns the record as
    /// it was, so the caller can undo what arming changed; `None` when it was never armed or
    /// already ended.
    ///
    /// An arming row changed outside pawl is left as it is (pawl never signs over it): session
    /// mode ends all the same (the event says so), and `None` is returned — nothing it lists is
    /// undone.
    pub fn end_session_mode(&mut self, run_id: &str, why: &str) -> Result<Option<Arming>> {
        let arming = match self.arming(run_id) {
            Ok(a) => a,
            Err(StoreError::Tampered(_)) => {
                self.append_event(
                    Some(run_id),
                    EventKind::SessionModeEnded,
                    json!({"why": why, "arming": "tampered: left as found"}),
                )?;
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let Some(arming) = arming else {
            return Ok(None);
        };
        if arming.ended_at.is_some() {
            return Ok(None);
        }
        self.write(|tx| {
            if let Some(rowid) = tx.rowid("session_arming", "run_id = ?1", &[&run_id])? {
                tx.changing(&mac::ARMING, rowid, |tx| {
                    Ok(tx.execute(
                        "UPDATE session_arming SET ended_at = ?2, end_why = ?3 WHERE run_id = ?1",
                        params![run_id, tx.now, why],
                    )?)
                })?;
            }
            tx.execute("DELETE FROM session_edits WHERE run_id = ?1", [run_id])?;
            tx.event(
                Some(run_id),
                EventKind::SessionModeEnded,
                json!({"why": why}),
            )?;
            Ok(())
        })?;
        Ok(Some(arming))
    }

    /// The time the store's clock says it is (ms since the epoch).
    pub fn now_ms(&self) -> i64 {
        self.now()
    }
}
