//! Iterations and the ledger: what each agent step cost and did, and what the run has spent.
//!
//! A step is begun (row with no end) before the agent starts and finished after pawl verified.
//! A step cut off by a crash keeps its row without an end until the next driver marks it
//! `interrupted`: it counts as an iteration (limits are real) and is never counted twice.

use crate::db::{Row, params};
use pawl_core::EventKind;
use pawl_core::judge::Spent;
use pawl_core::record::{Iteration, IterationEnd};
use serde_json::json;

use crate::{OptionalNotFound, Result, Store, StoreError, Tx, json_col, mac};

const ITERATION_COLUMNS: &str = "n, story_id, started_at, ended_at, prompt, tokens_in, tokens_out, cost_usd, \
     cost_estimated, tool_calls, files_json, outcome, session_id, duration_ms, active_ms, facts_json, summary";

fn iteration_from_row(r: &Row) -> crate::db::DbResult<Iteration> {
    Ok(Iteration {
        n: r.get(0)?,
        story_id: r.get(1)?,
        started_at: r.get(2)?,
        ended_at: r.get(3)?,
        prompt: r.get(4)?,
        tokens_in: r.get::<_, i64>(5)?.max(0) as u64,
        tokens_out: r.get::<_, i64>(6)?.max(0) as u64,
        cost_usd: r.get(7)?,
        cost_estimated: r.get(8)?,
        tool_calls: r.get(9)?,
        files: json_col(r.get(10)?, "iterations.files_json")?,
        outcome: r.get(11)?,
        session_id: r.get(12)?,
        duration_ms: r.get::<_, Option<i64>>(13)?.map(|v| v.max(0) as u64),
        active_ms: r.get::<_, i64>(14)?.max(0) as u64,
        facts: r
            .get::<_, Option<String>>(15)?
            .map(|s| json_col(s, "iterations.facts_json"))
            .transpose()?,
        summary: r.get(16)?,
    })
}

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// What one agent step spent ([`Store::record_step_spend`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepSpend {
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost_usd: f64,
    pub cost_estimated: bool,
    pub session_id: Option<String>,
}

/// `data` with `key` added when there is a value (events of runs in no fleet stay as they were).
fn with(
    mut data: serde_json::Value,
    key: &str,
    value: Option<serde_json::Value>,
) -> serde_json::Value {
    if let (Some(v), Some(map)) = (value, data.as_object_mut()) {
        map.insert(key.into(), v);
    }
    data
}

/// The ledger's row for an iteration that ended (finished or interrupted): `tokens` in and out,
/// `usd` and whether it is estimated, the wall time.
fn ledger_iteration(
    tx: &crate::Tx<'_>,
    run_id: &str,
    n: u32,
    tokens: [i64; 2],
    usd: (f64, bool),
    wall_ms: i64,
) -> Result<()> {
    tx.execute(
        "INSERT INTO ledger (run_id, scope, scope_id, tokens_in, tokens_out, usd, usd_estimated, wall_ms, created_at)
         VALUES (?1, 'iteration', ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![run_id, n.to_string(), tokens[0], tokens[1], usd.0, usd.1, wall_ms, tx.now],
    )?;
    Ok(())
}

impl Store {
    /// Starts iteration `n = last + 1` and returns `n`.
    pub fn begin_iteration(
        &mut self,
        run_id: &str,
        story_id: Option<&str>,
        prompt: &str,
    ) -> Result<u32> {
        self.write(|tx| {
            let n: u32 = tx.query_row(
                "SELECT COALESCE(MAX(n), 0) + 1 FROM iterations WHERE run_id = ?1",
                [run_id],
                |r| r.get(0),
            )?;
            let rowid = tx.insert(
                "INSERT INTO iterations (run_id, n, story_id, started_at, prompt) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![run_id, n, story_id, tx.now, prompt],
            )?;
            tx.inserted(&mac::ITERATIONS, rowid, Some(run_id))?;
            // A run in a fleet holds its step's share of the fleet's budget (fleet.rs).
            let hold = tx.hold_fleet(run_id, n)?;
            tx.event(
                Some(run_id),
                EventKind::IterationStarted,
                with(json!({"n": n, "story": story_id}), "fleet_hold", hold),
            )?;
            Ok(n)
        })
    }

    /// Finishes an iteration: its record, the run's active time and the ledger, in one transaction.
    pub fn finish_iteration(&mut self, run_id: &str, n: u32, end: &IterationEnd) -> Result<()> {
        let files =
            serde_json::to_string(&end.files).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let facts =
            serde_json::to_string(&end.facts).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.write(|tx| {
            let rowid = tx
                .rowid("iterations", "run_id = ?1 AND n = ?2 AND ended_at IS NULL", &[&run_id, &n])?
                .ok_or_else(|| StoreError::Refused(format!("iteration {n} of run {run_id} is not open")))?;
            let updated = tx.changing(&mac::ITERATIONS, rowid, |tx| Ok(tx.execute(
                "UPDATE iterations SET ended_at = ?3, tokens_in = ?4, tokens_out = ?5, cost_usd = ?6, cost_estimated = ?7,
                   tool_calls = ?8, files_json = ?9, outcome = ?10, session_id = ?11, duration_ms = ?12, active_ms = ?13,
                   facts_json = ?14, summary = ?15
                 WHERE run_id = ?1 AND n = ?2 AND ended_at IS NULL",
                params![
                    run_id,
                    n,
                    tx.now,
                    to_i64(end.tokens_in),
                    to_i64(end.tokens_out),
                    end.cost_usd,
                    end.cost_estimated,
                    end.tool_calls,
                    files,
                    end.outcome,
                    end.session_id,
                    to_i64(end.duration_ms),
                    to_i64(end.active_ms),
                    facts,
                    end.summary,
                ],
            )?))?;
            if updated == 0 {
                return Err(StoreError::Refused(format!("iteration {n} of run {run_id} is not open")));
            }
            tx.changing_run(run_id, |tx| {
                Ok(tx.execute(
                    "UPDATE runs SET active_ms = active_ms + ?2, updated_at = ?3 WHERE id = ?1",
                    params![run_id, to_i64(end.active_ms), tx.now],
                )?)
            })?;
            tx.count(run_id, mac::ITERATIONS_ENDED, 1)?;
            ledger_iteration(
                tx,
                run_id,
                n,
                [to_i64(end.tokens_in), to_i64(end.tokens_out)],
                (end.cost_usd, end.cost_estimated),
                to_i64(end.duration_ms),
            )?;
            // Settled already when the step's spend was recorded; else with these figures.
            let settled = tx.settle_fleet(
                run_id,
                n,
                Some((end.cost_usd, end.tokens_in.saturating_add(end.tokens_out))),
            )?;
            tx.event(
                Some(run_id),
                EventKind::IterationFinished,
                with(json!({"n": n, "outcome": end.outcome, "tokens_in": end.tokens_in, "tokens_out": end.tokens_out,
                       "cost_usd": end.cost_usd, "cost_estimated": end.cost_estimated, "files": end.files,
                       "duration_ms": end.duration_ms, "summary": end.summary}), "fleet_settled", settled),
            )?;
            Ok(())
        })
    }

    /// Charges what an agent step spent to its still-open iteration, as soon as the step ends:
    /// if pawl dies while it verifies the step's work, the iteration is marked interrupted
    /// later, and what the agent spent stays charged. [`Store::finish_iteration`] writes the
    /// same figures again.
    pub fn record_step_spend(&mut self, run_id: &str, n: u32, spend: &StepSpend) -> Result<()> {
        let StepSpend {
            tokens_in,
            tokens_out,
            cost_usd,
            cost_estimated,
            session_id,
        } = spend;
        self.write(|tx| {
            let rowid = tx
                .rowid("iterations", "run_id = ?1 AND n = ?2 AND ended_at IS NULL", &[&run_id, &n])?
                .ok_or_else(|| StoreError::Refused(format!("iteration {n} of run {run_id} is not open")))?;
            tx.changing(&mac::ITERATIONS, rowid, |tx| {
                Ok(tx.execute(
                    "UPDATE iterations SET tokens_in = ?3, tokens_out = ?4, cost_usd = ?5, cost_estimated = ?6,
                       session_id = COALESCE(?7, session_id)
                     WHERE run_id = ?1 AND n = ?2 AND ended_at IS NULL",
                    params![
                        run_id,
                        n,
                        to_i64(*tokens_in),
                        to_i64(*tokens_out),
                        cost_usd,
                        cost_estimated,
                        session_id
                    ],
                )?)
            })?;
            let settled = tx.settle_fleet(
                run_id,
                n,
                Some((*cost_usd, tokens_in.saturating_add(*tokens_out))),
            )?;
            tx.event(
                Some(run_id),
                EventKind::StepSpent,
                with(
                    json!({"n": n, "tokens_in": tokens_in, "tokens_out": tokens_out, "cost_usd": cost_usd,
                           "cost_estimated": cost_estimated}),
                    "fleet_settled",
                    settled,
                ),
            )?;
            Ok(())
        })
    }

    /// Marks iterations left open by a crashed driver as interrupted. Their wall time (start to
    /// the last sign of life, capped by now) counts, so a crash can not buy extra budget.
    ///
    /// The open steps of a story that has a lease (`story_leases`) are not touched here: that
    /// story's worker may still live (another coordinator's); its steps are interrupted when
    /// its lease is taken over ([`Store::reclaim_story_work`]).
    pub fn interrupt_open_iterations(&mut self, run_id: &str) -> Result<Vec<u32>> {
        let open = open_iterations(&self.conn, run_id, None)?;
        if open.is_empty() {
            return Ok(Vec::new());
        }
        let last_alive: Option<i64> = self
            .conn
            .query_row(
                "SELECT heartbeat_at FROM leases WHERE run_id = ?1",
                [run_id],
                |r| r.get(0),
            )
            .ok();
        self.write(|tx| interrupt(tx, run_id, &open, last_alive))?;
        Ok(open.into_iter().map(|(n, ..)| n).collect())
    }

    pub fn iterations(&self, run_id: &str) -> Result<Vec<Iteration>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {ITERATION_COLUMNS} FROM iterations WHERE run_id = ?1 ORDER BY n"
        ))?;
        Ok(stmt
            .query_map([run_id], iteration_from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// Of every iteration of the run, oldest first: its number, the files it edited and its
    /// facts — what a Stop's breakers and prompt read, without the rest of each row.
    pub fn iteration_trail(&self, run_id: &str) -> Result<Vec<IterationTrail>> {
        let mut stmt = self.conn.prepare(
            "SELECT n, files_json, facts_json FROM iterations WHERE run_id = ?1 ORDER BY n",
        )?;
        Ok(stmt
            .query_map([run_id], |r| {
                Ok(IterationTrail {
                    n: r.get(0)?,
                    files: json_col(r.get(1)?, "iterations.files_json")?,
                    facts: r
                        .get::<_, Option<String>>(2)?
                        .map(|s| json_col(s, "iterations.facts_json"))
                        .transpose()?,
                })
            })?
            .collect::<crate::db::DbResult<_>>()?)
    }

    pub fn iteration(&self, run_id: &str, n: u32) -> Result<Iteration> {
        self.conn
            .query_row(
                &format!("SELECT {ITERATION_COLUMNS} FROM iterations WHERE run_id = ?1 AND n = ?2"),
                params![run_id, n],
                iteration_from_row,
            )
            .or_not_found("iteration", &n.to_string())
    }

    /// What the run has spent so far: iterations (interrupted ones included), active time,
    /// dollars and tokens. The dollars include the independent tester's session (its `tester`
    /// event's `cost_usd`, issue 33): it runs before the first step, an agent call of the run
    /// like any other, so it counts against `max_usd`.
    pub fn spent(&self, run_id: &str) -> Result<Spent> {
        let (iterations, usd, tokens): (u32, f64, i64) = self.conn.query_row(
            "SELECT COUNT(*), COALESCE(SUM(cost_usd), 0), CAST(COALESCE(SUM(tokens_in + tokens_out), 0) AS BIGINT)
             FROM iterations WHERE run_id = ?1",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let active_ms: i64 =
            self.conn
                .query_row("SELECT active_ms FROM runs WHERE id = ?1", [run_id], |r| {
                    r.get(0)
                })?;
        let tester_usd = self
            .last_event(run_id, EventKind::Tester)?
            .and_then(|e| e.data["cost_usd"].as_f64())
            .filter(|c| c.is_finite() && *c > 0.0)
            .unwrap_or(0.0);
        Ok(Spent {
            iterations,
            active_ms: active_ms.max(0) as u64,
            usd: usd + tester_usd,
            tokens: tokens.max(0) as u64,
        })
    }

    /// Start times of the run's agent calls since `since_ms` (for calls per hour).
    pub fn call_times_since(&self, run_id: &str, since_ms: i64) -> Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare("SELECT started_at FROM iterations WHERE run_id = ?1 AND started_at >= ?2 ORDER BY started_at")?;
        Ok(stmt
            .query_map(params![run_id, since_ms], |r| r.get(0))?
            .collect::<crate::db::DbResult<_>>()?)
    }
}

/// What [`Store::iteration_trail`] reads of an iteration (the same values as
/// [`Store::iterations`] gives for it).
#[derive(Debug, Clone, PartialEq)]
pub struct IterationTrail {
    pub n: u32,
    /// The files the iteration edited.
    pub files: Vec<String>,
    /// Its facts, once it ended.
    pub facts: Option<pawl_core::judge::IterationFacts>,
}

/// An open iteration, with what the step spent when it ended before the crash
/// ([`Store::record_step_spend`]): `(n, started_at, tokens_in, tokens_out, cost_usd, estimated)`.
pub(crate) type OpenIteration = (u32, i64, i64, i64, f64, bool);

/// The run's iterations left open: those of the story `story_id` only, or (`None`) all but those
/// of stories that have a lease.
pub(crate) fn open_iterations(
    conn: &crate::db::Db,
    run_id: &str,
    story_id: Option<&str>,
) -> Result<Vec<OpenIteration>> {
    let filter = match story_id {
        Some(_) => "AND story_id = ?2",
        None => {
            "AND (story_id IS NULL OR story_id NOT IN (SELECT w.story_id FROM story_work w, story_leases l WHERE w.run_id = ?1 AND l.run_id = ?1 AND l.story = w.story))"
        }
    };
    let mut stmt = conn.prepare(&format!(
        "SELECT n, started_at, tokens_in, tokens_out, cost_usd, cost_estimated FROM iterations
         WHERE run_id = ?1 AND ended_at IS NULL {filter} ORDER BY n"
    ))?;
    let row = |r: &crate::db::Row| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get::<_, Option<i64>>(2)?.unwrap_or(0),
            r.get::<_, Option<i64>>(3)?.unwrap_or(0),
            r.get::<_, Option<f64>>(4)?.unwrap_or(0.0),
            r.get::<_, Option<bool>>(5)?.unwrap_or(false),
        ))
    };
    Ok(match story_id {
        Some(story) => stmt.query_map(params![run_id, story], row)?,
        None => stmt.query_map([run_id], row)?,
    }
    .collect::<crate::db::DbResult<_>>()?)
}

/// Marks the `open` iterations interrupted in `tx`: their time up to `last_alive` (the last sign
/// of life of their driver, capped by now) counts, and what they spent is in the ledger once.
pub(crate) fn interrupt(
    tx: &Tx<'_>,
    run_id: &str,
    open: &[OpenIteration],
    last_alive: Option<i64>,
) -> Result<()> {
    for (n, started, tokens_in, tokens_out, usd, estimated) in open {
        let end = last_alive
            .filter(|t| t >= started)
            .unwrap_or(tx.now)
            .min(tx.now);
        let ms = (end - started).max(0);
        // What the step spent is in the ledger once, as a finished iteration's is.
        ledger_iteration(
            tx,
            run_id,
            *n,
            [*tokens_in, *tokens_out],
            (*usd, *estimated),
            ms,
        )?;
        let Some(rowid) = tx.rowid("iterations", "run_id = ?1 AND n = ?2", &[&run_id, n])? else {
            continue;
        };
        tx.changing(&mac::ITERATIONS, rowid, |tx| Ok(tx.execute(
            "UPDATE iterations SET ended_at = ?3, outcome = 'interrupted', duration_ms = ?4, active_ms = ?4,
               summary = 'cut off by a crash of the driver' WHERE run_id = ?1 AND n = ?2",
            params![run_id, n, tx.now, ms],
        )?))?;
        tx.changing_run(run_id, |tx| {
            Ok(tx.execute(
                "UPDATE runs SET active_ms = active_ms + ?2 WHERE id = ?1",
                params![run_id, ms],
            )?)
        })?;
        tx.count(run_id, mac::ITERATIONS_ENDED, 1)?;
        // A hold still open: the step was cut off before its spend was known.
        let settled = tx.settle_fleet(run_id, *n, None)?;
        tx.event(
            Some(run_id),
            EventKind::IterationInterrupted,
            with(json!({"n": n, "counted_ms": ms}), "fleet_settled", settled),
        )?;
    }
    Ok(())
}
