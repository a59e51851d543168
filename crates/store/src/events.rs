//! The append-only event log: read side, plus events that are not a side effect of another write.

use crate::db::OptionalExtension;
use crate::db::{Row, params};
use pawl_core::EventKind;
use pawl_core::model::BlockerStatus;
use pawl_core::record::Event;
use pawl_core::resume::{self, ResumeContext};

use crate::{Result, Store, StoreError, json_col, mac};

fn event_from_row(r: &Row) -> crate::db::DbResult<Event> {
    Ok(Event {
        seq: r.get(0)?,
        run_id: r.get(1)?,
        at: r.get(2)?,
        kind: r.get(3)?,
        data: json_col(r.get(4)?, "events.data_json")?,
    })
}

impl Store {
    /// Appends an event on its own (for things that change no other table).
    pub fn append_event(
        &mut self,
        run_id: Option<&str>,
        kind: EventKind,
        data: serde_json::Value,
    ) -> Result<i64> {
        self.write(|tx| tx.event(run_id, kind, data))
    }

    /// Events with `seq > after`, oldest first, optionally of one run.
    pub fn events_after(
        &self,
        run_id: Option<&str>,
        after: i64,
        limit: usize,
    ) -> Result<Vec<Event>> {
        let mut stmt = self.conn.prepare(
            "SELECT seq, run_id, at, kind, data_json FROM events
             WHERE seq > ?1 AND (CAST(?2 AS TEXT) IS NULL OR run_id = ?2) ORDER BY seq LIMIT ?3",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        Ok(stmt
            .query_map(params![after, run_id, limit], event_from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// The run's most recent event of `kind`, as pawl wrote it: an event that fails its check
    /// is never used (`Err(StoreError::Tampered)`: a baseline, an acceptance of changed tests or
    /// a verification is what a run's end rests on).
    pub fn last_event(&self, run_id: &str, kind: EventKind) -> Result<Option<Event>> {
        let event = self
            .conn
            .query_row(
                "SELECT seq, run_id, at, kind, data_json FROM events
                 WHERE run_id = ?1 AND kind = ?2 ORDER BY seq DESC LIMIT 1",
                params![run_id, kind.as_str()],
                event_from_row,
            )
            .optional()?;
        if let Some(e) = &event {
            self.check_events(run_id, &[e.seq])?;
        }
        Ok(event)
    }

    /// The run's events of `kind`, oldest first, each checked as [`Store::last_event`] checks
    /// its one.
    pub fn events_of_kind(&self, run_id: &str, kind: EventKind) -> Result<Vec<Event>> {
        let events: Vec<Event> = {
            let mut stmt = self.conn.prepare(
                "SELECT seq, run_id, at, kind, data_json FROM events
                 WHERE run_id = ?1 AND kind = ?2 ORDER BY seq",
            )?;
            stmt.query_map(params![run_id, kind.as_str()], event_from_row)?
                .collect::<crate::db::DbResult<_>>()?
        };
        let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
        self.check_events(run_id, &seqs)?;
        Ok(events)
    }

    /// How many of the run's events of `kind` happened at or after `since_ms` (each checked).
    pub fn count_events_since(&self, run_id: &str, kind: EventKind, since_ms: i64) -> Result<u32> {
        let seqs: Vec<i64> = {
            let mut stmt = self.conn.prepare(
                "SELECT seq FROM events WHERE run_id = ?1 AND kind = ?2 AND at >= ?3 ORDER BY seq",
            )?;
            stmt.query_map(params![run_id, kind.as_str(), since_ms], |r| r.get(0))?
                .collect::<crate::db::DbResult<_>>()?
        };
        self.check_events(run_id, &seqs)?;
        Ok(u32::try_from(seqs.len()).unwrap_or(u32::MAX))
    }

    fn check_events(&self, run_id: &str, seqs: &[i64]) -> Result<()> {
        // Every event of a run known clean was read and checked by its whole check.
        if seqs.is_empty() || self.known_clean(run_id) {
            return Ok(());
        }
        let mut findings = Vec::new();
        for seq in seqs {
            findings.extend(mac::event_authentic(&self.conn, self.key(), *seq)?);
        }
        if findings.is_empty() {
            return Ok(());
        }
        Err(StoreError::Tampered(mac::Tampering {
            run_id: run_id.into(),
            findings,
        }))
    }

    /// Everything a fresh agent session needs to pick the run up.
    pub fn resume_context(&self, run_id: &str) -> Result<ResumeContext> {
        let run = self.run(run_id)?;
        let stories = self.stories(run_id)?;
        let criteria = self.criteria(run_id)?;
        let recent_failures = self.failures(run_id, None, 5)?;
        let blockers = self.blockers(run_id)?;
        let next_step = resume::next_step(&run, &stories, &criteria, &recent_failures, &blockers);
        let (resolved_blockers, open_blockers): (Vec<_>, Vec<_>) = blockers
            .into_iter()
            .partition(|b| b.status == BlockerStatus::Resolved);
        Ok(ResumeContext {
            current_story: resume::current_story(&stories).cloned(),
            stories,
            criteria,
            recent_failures,
            open_blockers,
            resolved_blockers,
            clarifications: self.clarifications(run_id)?,
            decisions: self.notes(run_id)?,
            next_step,
            run,
        })
    }
}
