//! The stories of a plan run in parallel (`story_work`, migration 0011): each story's plan
//! (scope, dependencies, criteria), its branch and worktree, where it is (pending, working,
//! queued, merging, merged, failed), how many sessions worked on it and the merge queue's last
//! word with its evidence. Every change is one transaction with a `story_work` event; every row
//! is signed and counted in its run's row (`mac.rs`, schema 13), so a row edited, added or
//! removed outside pawl is found and never used.
//!
//! A story being worked on has a lease (`story_leases`, schema 13): the worker's process and
//! host, renewed by its heartbeat, with an expiry. It is taken in the transaction that starts
//! the story ([`Store::start_story_work`]) and released in the one that records how its session
//! ended (`StoryWorkChange::release`); a story held by a live worker is never started again,
//! one whose worker is gone or stopped renewing is taken back ([`Store::reclaim_story_work`]).
//!
//! Not here: what a state change means (pawl-core's `parallel`) or doing it (pawl-engine).

use crate::db::{OptionalExtension, Row, params};
use pawl_core::EventKind;
use pawl_core::parallel::{MergeResult, PlannedStory, WorkState};
use pawl_core::record::{Lease, LeaseClaim};
use serde::Serialize;
use serde_json::json;

use crate::{OptionalNotFound, Result, Store, StoreError, Tx, json_col, mac, parse_col};

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
    /// Releases the story's lease held with this token, in the same transaction; when the
    /// token no longer holds it (the lease was taken over), nothing is written
    /// ([`StoreError::StoryLeaseLost`]).
    pub release: Option<String>,
}

/// Who works on a story right now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoryLease {
    pub run_id: String,
    pub story: String,
    pub pid: u32,
    pub host: String,
    pub token: String,
    pub acquired_at: i64,
    pub heartbeat_at: i64,
    pub expires_at: i64,
}

impl StoryLease {
    /// As a run's lease, for the one rule that judges both ([`Lease::claim`]).
    fn as_lease(&self) -> Lease {
        Lease {
            run_id: self.run_id.clone(),
            pid: self.pid,
            host: self.host.clone(),
            token: self.token.clone(),
            acquired_at: self.acquired_at,
            heartbeat_at: self.heartbeat_at,
            expires_at: self.expires_at,
            sessions: Vec::new(),
        }
    }
}

/// What [`Store::reclaim_story_work`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum Reclaim {
    /// The story is not being worked on (nothing to take back).
    NotWorking,
    /// A live worker holds it: it is left alone.
    Held(StoryLease),
    /// Its worker is gone or stopped renewing: the story waits for a worker again, its steps
    /// left open are interrupted (their numbers).
    Reclaimed {
        work: Box<StoryWork>,
        interrupted: Vec<u32>,
    },
}

const LEASE_COLUMNS: &str =
    "run_id, story, pid, host, token, acquired_at, heartbeat_at, expires_at";

fn lease_from_row(r: &Row) -> crate::db::DbResult<StoryLease> {
    Ok(StoryLease {
        run_id: r.get(0)?,
        story: r.get(1)?,
        pid: r.get(2)?,
        host: r.get(3)?,
        token: r.get(4)?,
        acquired_at: r.get(5)?,
        heartbeat_at: r.get(6)?,
        expires_at: r.get(7)?,
    })
}

fn lease_of(tx: &crate::db::Db, run_id: &str, story: &str) -> Result<Option<StoryLease>> {
    Ok(tx
        .query_row(
            &format!("SELECT {LEASE_COLUMNS} FROM story_leases WHERE run_id = ?1 AND story = ?2"),
            params![run_id, story],
            lease_from_row,
        )
        .optional()?)
}

/// The story's row in `tx`, by its rowid (checked by the caller's `changing`).
fn row_of(tx: &crate::db::Db, run_id: &str, story: &str) -> Result<(i64, StoryWork)> {
    tx.query_row(
        &format!("SELECT rowid, {COLUMNS} FROM story_work WHERE run_id = ?1 AND story = ?2"),
        params![run_id, story],
        |r| Ok((r.get(0)?, from_row_at(r, 1)?)),
    )
    .optional()?
    .ok_or_else(|| StoreError::NotFound {
        what: "planned story",
        id: story.to_string(),
        hint: format!(" in run {run_id}"),
    })
}

/// Moves a story to `state` in `tx` (signed), counting a session when `new_attempt`.
fn set_state(tx: &Tx<'_>, rowid: i64, state: WorkState, new_attempt: bool) -> Result<()> {
    tx.changing(&mac::STORY_WORK, rowid, |tx| {
        Ok(tx.execute(
            "UPDATE story_work SET state = ?2, attempts = attempts + ?3, updated_at = ?4 WHERE rowid = ?1",
            params![rowid, state.as_str(), i64::from(new_attempt), tx.now],
        )?)
    })?;
    Ok(())
}

const COLUMNS: &str = "story, story_id, plan_json, criteria_json, state, attempts, merge_result, evidence_json, feedback, branch, worktree, merged_commit, updated_at";

fn from_row(r: &Row) -> crate::db::DbResult<StoryWork> {
    from_row_at(r, 0)
}

fn from_row_at(r: &Row, o: usize) -> crate::db::DbResult<StoryWork> {
    Ok(StoryWork {
        story: r.get(o)?,
        story_id: r.get(o + 1)?,
        plan: json_col(r.get(o + 2)?, "story_work.plan_json")?,
        criteria: json_col(r.get(o + 3)?, "story_work.criteria_json")?,
        state: parse_col(r.get(o + 4)?, "story_work.state")?,
        attempts: r.get(o + 5)?,
        merge: parse_col(r.get(o + 6)?, "story_work.merge_result")?,
        evidence: json_col(r.get(o + 7)?, "story_work.evidence_json")?,
        feedback: r.get(o + 8)?,
        branch: r.get(o + 9)?,
        worktree: r.get(o + 10)?,
        merged_commit: r.get(o + 11)?,
        updated_at: r.get(o + 12)?,
    })
}

impl Store {
    /// Records the stories of a run's plan, pending, in plan order (one transaction).
    pub fn add_story_work(&mut self, run_id: &str, stories: &[NewStoryWork]) -> Result<()> {
        self.write(|tx| {
            for (i, s) in stories.iter().enumerate() {
                let plan = serde_json::to_string(&s.plan).unwrap_or_default();
                let criteria = serde_json::to_string(&s.criteria).unwrap_or_default();
                let rowid = tx.insert(
                    "INSERT INTO story_work (run_id, story, seq, story_id, plan_json, criteria_json, state, attempts, merge_result, evidence_json, branch, worktree, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', 0, 'pending', 'null', ?7, ?8, ?9)",
                    params![run_id, s.plan.id, i as i64 + 1, s.story_id, plan, criteria, s.branch, s.worktree, tx.now],
                )?;
                tx.inserted(&mac::STORY_WORK, rowid, Some(run_id))?;
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

    /// The run's planned stories, in plan order (none for a run without a plan). Fails with
    /// [`StoreError::Tampered`] when a row was modified outside pawl: none is ever used then.
    pub fn story_works(&self, run_id: &str) -> Result<Vec<StoryWork>> {
        self.check_run_rows(&mac::STORY_WORK, run_id)?;
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM story_work WHERE run_id = ?1 ORDER BY seq"
        ))?;
        Ok(stmt
            .query_map([run_id], from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    pub fn story_work(&self, run_id: &str, story: &str) -> Result<StoryWork> {
        self.check_run_rows(&mac::STORY_WORK, run_id)?;
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
            let (rowid, _) = row_of(tx, run_id, story)?;
            if let Some(token) = &change.release {
                let n = tx.execute(
                    "DELETE FROM story_leases WHERE run_id = ?1 AND story = ?2 AND token = ?3",
                    params![run_id, story, token],
                )?;
                if n == 0 {
                    return Err(StoreError::StoryLeaseLost {
                        run_id: run_id.into(),
                        story: story.into(),
                    });
                }
            }
            tx.changing(&mac::STORY_WORK, rowid, |tx| {
                Ok(tx.execute(
                    "UPDATE story_work SET
                        state = COALESCE(?2, state),
                        attempts = attempts + ?3,
                        merge_result = COALESCE(?4, merge_result),
                        evidence_json = COALESCE(?5, evidence_json),
                        feedback = CASE WHEN ?6 = 1 THEN ?7 ELSE feedback END,
                        merged_commit = COALESCE(?8, merged_commit),
                        updated_at = ?9
                     WHERE rowid = ?1",
                    params![
                        rowid,
                        change.state.map(|s| s.as_str()),
                        i64::from(change.new_attempt),
                        change.merge.map(|m| m.as_str()),
                        change.evidence.as_ref().map(|e| e.to_string()),
                        i64::from(change.feedback.is_some()),
                        change.feedback.clone().flatten(),
                        change.merged_commit,
                        tx.now
                    ],
                )?)
            })?;
            tx.event(
                Some(run_id),
                EventKind::StoryWork,
                json!({"story": story, "state": change.state, "new_attempt": change.new_attempt,
                       "merge": change.merge, "evidence": change.evidence,
                       "feedback": change.feedback, "merged_commit": change.merged_commit,
                       "released": change.release.is_some()}),
            )?;
            Ok(())
        })?;
        self.story_work(run_id, story)
    }

    /// Starts a pending story for the worker `pid` on `host`, in one transaction: its lease
    /// taken for `ttl_ms` (a takeover when the last holder's lease expired or its process is
    /// gone, as an event), the story `working`, one more session counted. Refused, with nothing
    /// written, when the story is not pending ([`StoreError::Refused`]: another coordinator
    /// started it) or a live worker holds its lease ([`StoreError::StoryLeaseHeld`]). Returns
    /// the row and the lease's token.
    pub fn start_story_work(
        &mut self,
        run_id: &str,
        story: &str,
        pid: u32,
        host: &str,
        ttl_ms: i64,
        is_alive: &dyn Fn(&Lease) -> bool,
    ) -> Result<(StoryWork, String)> {
        let token = self.write(|tx| {
            let (rowid, w) = row_of(tx, run_id, story)?;
            if w.state != WorkState::Pending {
                return Err(StoreError::Refused(format!(
                    "story {story} of run {run_id} is {}, not pending: it is not started again",
                    w.state
                )));
            }
            if let Some(h) = lease_of(tx, run_id, story)? {
                let claim = h.as_lease().claim(tx.now, pid, host, is_alive);
                if claim == LeaseClaim::Held {
                    return Err(StoreError::StoryLeaseHeld {
                        run_id: run_id.into(),
                        story: story.into(),
                        pid: h.pid,
                        host: h.host,
                        expires_in_s: (h.expires_at - tx.now + 999) / 1000,
                    });
                }
                if let Some(why) = claim.takeover_why() {
                    tx.event(
                        Some(run_id),
                        EventKind::LeaseTakeover,
                        json!({"story": story,
                               "from": {"pid": h.pid, "host": h.host, "expires_at": h.expires_at},
                               "to": {"pid": pid, "host": host}, "why": why}),
                    )?;
                }
            }
            let token = format!("{pid}-{host}-{}-{story}", tx.now);
            tx.execute(
                "INSERT INTO story_leases (run_id, story, pid, host, token, acquired_at, heartbeat_at, expires_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7)
                 ON CONFLICT (run_id, story) DO UPDATE SET pid = ?3, host = ?4, token = ?5,
                   acquired_at = ?6, heartbeat_at = ?6, expires_at = ?7",
                params![run_id, story, pid, host, token, tx.now, tx.now + ttl_ms],
            )?;
            set_state(tx, rowid, WorkState::Working, true)?;
            tx.event(
                Some(run_id),
                EventKind::StoryWork,
                json!({"story": story, "state": WorkState::Working, "new_attempt": true,
                       "lease": {"pid": pid, "host": host, "ttl_ms": ttl_ms}}),
            )?;
            Ok(token)
        })?;
        Ok((self.story_work(run_id, story)?, token))
    }

    /// Renews a story's lease held with `token` for `ttl_ms` more. Fails with
    /// [`StoreError::StoryLeaseLost`] when another worker took it over. Not an event.
    pub fn heartbeat_story(
        &mut self,
        run_id: &str,
        story: &str,
        token: &str,
        ttl_ms: i64,
    ) -> Result<()> {
        let now = self.now();
        let n = self.conn.execute(
            "UPDATE story_leases SET heartbeat_at = ?4, expires_at = ?5 WHERE run_id = ?1 AND story = ?2 AND token = ?3",
            params![run_id, story, token, now, now + ttl_ms],
        )?;
        if n == 0 {
            return Err(StoreError::StoryLeaseLost {
                run_id: run_id.into(),
                story: story.into(),
            });
        }
        Ok(())
    }

    /// Who works on a story right now (a lease that may have expired), if anyone.
    pub fn story_lease(&self, run_id: &str, story: &str) -> Result<Option<StoryLease>> {
        lease_of(&self.conn, run_id, story)
    }

    /// Takes back a story recorded as being worked on, for `pid` on `host` (a coordinator
    /// resuming the run), in one transaction: left alone when a live worker holds its lease
    /// ([`Reclaim::Held`]); otherwise its lease goes (a takeover event when it had one), its
    /// steps left open are interrupted (their time up to the lease's last heartbeat counts) and
    /// it waits for a worker again.
    pub fn reclaim_story_work(
        &mut self,
        run_id: &str,
        story: &str,
        pid: u32,
        host: &str,
        is_alive: &dyn Fn(&Lease) -> bool,
    ) -> Result<Reclaim> {
        let found = self.write(|tx| {
            let (rowid, w) = row_of(tx, run_id, story)?;
            if w.state != WorkState::Working {
                return Ok(None);
            }
            let held = lease_of(tx, run_id, story)?;
            let mut last_alive = None;
            if let Some(h) = held {
                let claim = h.as_lease().claim(tx.now, pid, host, is_alive);
                if claim == LeaseClaim::Held {
                    return Ok(Some(Err(h)));
                }
                tx.execute(
                    "DELETE FROM story_leases WHERE run_id = ?1 AND story = ?2",
                    params![run_id, story],
                )?;
                if let Some(why) = claim.takeover_why() {
                    tx.event(
                        Some(run_id),
                        EventKind::LeaseTakeover,
                        json!({"story": story,
                               "from": {"pid": h.pid, "host": h.host, "expires_at": h.expires_at},
                               "to": {"pid": pid, "host": host}, "why": why}),
                    )?;
                }
                last_alive = Some(h.heartbeat_at);
            }
            let open = crate::iterations::open_iterations(tx, run_id, Some(&w.story_id))?;
            crate::iterations::interrupt(tx, run_id, &open, last_alive)?;
            set_state(tx, rowid, WorkState::Pending, false)?;
            tx.event(
                Some(run_id),
                EventKind::StoryWork,
                json!({"story": story, "state": WorkState::Pending, "reclaimed": true}),
            )?;
            Ok(Some(Ok(open
                .into_iter()
                .map(|(n, ..)| n)
                .collect::<Vec<u32>>())))
        })?;
        Ok(match found {
            None => Reclaim::NotWorking,
            Some(Err(lease)) => Reclaim::Held(lease),
            Some(Ok(interrupted)) => Reclaim::Reclaimed {
                work: Box::new(self.story_work(run_id, story)?),
                interrupted,
            },
        })
    }
}
