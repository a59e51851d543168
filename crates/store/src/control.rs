//! What a process that watches runs from outside needs (`pawl serve`): a run's version for
//! compare-and-set, the origin stamped on the events a handle writes, and one run's events
//! paged by id through the `(run_id, seq)` index.
//!
//! Not here: the requests themselves (stop, limits, answers), which are the same typed methods
//! the CLI calls.

use crate::db::{Db, params};
use pawl_core::EventKind;
use pawl_core::record::Event;

use crate::{Result, Store, json_col};

/// The kinds of events that change what an action on a run is decided on: its status, its
/// limits, what it waits for, a stop asked of it. A run's version is the id of its newest event
/// of one of these kinds, so it moves when its state does and not with every step's chatter.
pub const VERSION_KINDS: &[EventKind] = &[
    EventKind::RunCreated,
    EventKind::RunStatus,
    EventKind::LimitsChanged,
    EventKind::AwaitingUser,
    EventKind::UserFixed,
    EventKind::BlockerAdded,
    EventKind::StopRequested,
    EventKind::Tampered,
];

/// The run's version read inside a transaction (0: no such run or no event yet).
pub(crate) fn version_in(conn: &Db, run_id: &str) -> Result<i64> {
    let mut best = 0i64;
    // One indexed lookup per kind on `events_run_kind (run_id, kind, seq)`.
    let mut stmt = conn.prepare_cached(
        "SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = ?1 AND kind = ?2",
    )?;
    for kind in VERSION_KINDS {
        let seq: i64 = stmt.query_row(params![run_id, kind.as_str()], |r| r.get(0))?;
        best = best.max(seq);
    }
    Ok(best)
}

impl Store {
    /// The run's version: an integer that grows whenever its status, limits, blockers or stop
    /// requests change (see [`VERSION_KINDS`]).
    pub fn run_version(&self, run_id: &str) -> Result<i64> {
        version_in(&self.conn, run_id)
    }

    /// Marks every event this handle appends from now on with `"origin": origin`.
    pub fn set_origin(&mut self, origin: Option<&str>) {
        self.origin = origin.map(str::to_string);
    }

    /// Makes the next write a compare-and-set: it is refused with
    /// [`crate::StoreError::Conflict`] (and writes nothing) unless the run is still at
    /// `version` when its transaction starts.
    pub fn expect_version(&mut self, run_id: &str, version: i64) {
        self.expect = Some((run_id.to_string(), version));
    }

    /// Forgets an expectation no write consumed.
    pub fn clear_expectation(&mut self) {
        self.expect = None;
    }

    /// The run's events with `seq > after`, oldest first, at most `limit`: one range of the
    /// `(run_id, seq)` index, as fast at the end of a long log as at its start.
    pub fn run_events_after(&self, run_id: &str, after: i64, limit: usize) -> Result<Vec<Event>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, run_id, at, kind, data_json FROM events
             WHERE run_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        Ok(stmt
            .query_map(params![run_id, after, limit], |r| {
                Ok(Event {
                    seq: r.get(0)?,
                    run_id: r.get(1)?,
                    at: r.get(2)?,
                    kind: r.get(3)?,
                    data: json_col(r.get(4)?, "events.data_json")?,
                })
            })?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// The id of the newest event in the store (0 when there is none).
    pub fn last_event_seq(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("SELECT COALESCE(MAX(seq), 0) FROM events", (), |r| r.get(0))?)
    }

    /// When the run last did anything (its newest event), in ms.
    pub fn last_activity(&self, run_id: &str) -> Result<Option<i64>> {
        Ok(self
            .conn
            .query_row(
                "SELECT at FROM events WHERE run_id = ?1 ORDER BY seq DESC LIMIT 1",
                [run_id],
                |r| r.get(0),
            )
            .or_else(|e| match e {
                crate::db::DbError::NoRows => Ok(None),
                e => Err(e),
            })?)
    }

    /// Appends a request made from outside the run's driver (a stop asked from the dashboard)
    /// as an event of the run.
    pub fn record_stop_request(&mut self, run_id: &str) -> Result<i64> {
        let run = self.run(run_id)?;
        self.append_event(
            Some(&run.id),
            EventKind::StopRequested,
            serde_json::json!({"run": run.id}),
        )
    }
}
