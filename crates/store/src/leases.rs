//! Run ownership: which process (and which agent sessions) drive a run right now.
//!
//! A lease has a heartbeat and an expiry. Acquiring a lease that is held and alive is refused
//! with the holder named; an expired lease, or one whose process is known dead, is taken over and
//! the takeover is an event. Liveness of a pid is the caller's question (the store does no
//! process I/O), passed in as a closure.

use crate::db::{OptionalExtension, Row, params};
use pawl_core::EventKind;
use pawl_core::record::{Lease, LeaseClaim};
use serde_json::json;

use crate::{Result, Store, StoreError, json_col};

/// A successful acquisition.
#[derive(Debug, Clone)]
pub struct LeaseOutcome {
    pub lease: Lease,
    /// The previous holder, when this was a takeover.
    pub took_over: Option<Lease>,
}

fn lease_from_row(r: &Row) -> crate::db::DbResult<Lease> {
    Ok(Lease {
        run_id: r.get(0)?,
        pid: r.get(1)?,
        host: r.get(2)?,
        token: r.get(3)?,
        acquired_at: r.get(4)?,
        heartbeat_at: r.get(5)?,
        expires_at: r.get(6)?,
        sessions: json_col(r.get(7)?, "leases.sessions_json")?,
    })
}

const LEASE_COLUMNS: &str =
    "run_id, pid, host, token, acquired_at, heartbeat_at, expires_at, sessions_json";

impl Store {
    pub fn lease(&self, run_id: &str) -> Result<Option<Lease>> {
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {LEASE_COLUMNS} FROM leases WHERE run_id = ?1"),
                [run_id],
                lease_from_row,
            )
            .optional()?)
    }

    /// Takes the lease on a run for `pid`@`host` for `ttl_ms`. `is_alive` answers whether a
    /// holder's process still runs (only asked for holders on this host).
    pub fn acquire_lease(
        &mut self,
        run_id: &str,
        pid: u32,
        host: &str,
        ttl_ms: i64,
        is_alive: &dyn Fn(&Lease) -> bool,
    ) -> Result<LeaseOutcome> {
        self.run(run_id)?;
        let token = format!("{pid}-{}-{}", host, self.now());
        self.write(|tx| {
            let held = tx
                .query_row(&format!("SELECT {LEASE_COLUMNS} FROM leases WHERE run_id = ?1"), [run_id], lease_from_row)
                .optional()?;
            let mut took_over = None;
            if let Some(h) = held {
                let claim = h.claim(tx.now, pid, host, is_alive);
                if claim == LeaseClaim::Held {
                    return Err(StoreError::LeaseHeld {
                        run_id: run_id.into(),
                        pid: h.pid,
                        host: h.host.clone(),
                        expires_in_s: (h.expires_at - tx.now + 999) / 1000,
                    });
                }
                if let Some(why) = claim.takeover_why() {
                    tx.event(
                        Some(run_id),
                        EventKind::LeaseTakeover,
                        json!({"from": {"pid": h.pid, "host": h.host, "expires_at": h.expires_at},
                               "to": {"pid": pid, "host": host},
                               "why": why}),
                    )?;
                    took_over = Some(h);
                }
            }
            tx.execute(
                "INSERT INTO leases (run_id, pid, host, token, acquired_at, heartbeat_at, expires_at, sessions_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, '[]')
                 ON CONFLICT(run_id) DO UPDATE SET pid = ?2, host = ?3, token = ?4, acquired_at = ?5,
                   heartbeat_at = ?5, expires_at = ?6, sessions_json = '[]'",
                params![run_id, pid, host, token, tx.now, tx.now + ttl_ms],
            )?;
            tx.event(Some(run_id), EventKind::LeaseAcquired, json!({"pid": pid, "host": host, "ttl_ms": ttl_ms}))?;
            let lease = tx.query_row(
                &format!("SELECT {LEASE_COLUMNS} FROM leases WHERE run_id = ?1"),
                [run_id],
                lease_from_row,
            )?;
            Ok(LeaseOutcome { lease, took_over })
        })
    }

    /// Extends a lease we hold. Fails with `LeaseLost` if someone took it over.
    /// Heartbeats are not events: they would drown the log.
    pub fn heartbeat(&mut self, run_id: &str, token: &str, ttl_ms: i64) -> Result<()> {
        let now = self.now();
        let n = self.conn.execute(
            "UPDATE leases SET heartbeat_at = ?3, expires_at = ?4 WHERE run_id = ?1 AND token = ?2",
            params![run_id, token, now, now + ttl_ms],
        )?;
        if n == 0 {
            return Err(StoreError::LeaseLost(run_id.into()));
        }
        Ok(())
    }

    /// Gives a lease up (if we still hold it).
    pub fn release_lease(&mut self, run_id: &str, token: &str) -> Result<()> {
        self.write(|tx| {
            let n = tx.execute(
                "DELETE FROM leases WHERE run_id = ?1 AND token = ?2",
                params![run_id, token],
            )?;
            if n > 0 {
                tx.event(Some(run_id), EventKind::LeaseReleased, json!({}))?;
            }
            Ok(())
        })
    }

    /// Binds an agent session id to the run's lease.
    pub fn bind_session(&mut self, run_id: &str, session_id: &str) -> Result<Lease> {
        self.write(|tx| {
            let lease = tx
                .query_row(
                    &format!("SELECT {LEASE_COLUMNS} FROM leases WHERE run_id = ?1"),
                    [run_id],
                    lease_from_row,
                )
                .optional()?
                .ok_or_else(|| {
                    StoreError::Refused(format!("run {run_id} has no lease to bind a session to"))
                })?;
            let mut sessions = lease.sessions.clone();
            if !sessions.iter().any(|s| s == session_id) {
                sessions.push(session_id.to_string());
                let text = serde_json::to_string(&sessions)
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?;
                tx.execute(
                    "UPDATE leases SET sessions_json = ?2 WHERE run_id = ?1",
                    params![run_id, text],
                )?;
                tx.event(
                    Some(run_id),
                    EventKind::SessionBound,
                    json!({"session": session_id}),
                )?;
            }
            Ok(Lease { sessions, ..lease })
        })
    }
}
