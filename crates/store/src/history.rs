//! A repository's run history, read in bulk: every run with what it spent (`pawl runs`), and the
//! check logs each run's evidence names (`pawl clean`).
//!
//! Not here: one run's spending while it runs ([`Store::spent`], which the loop reads), or
//! anything that writes.

use std::collections::HashMap;

use pawl_core::judge::Spent;
use pawl_core::record::Run;

use crate::{Result, Store};

/// One run of the history and what it spent.
#[derive(Debug, Clone)]
pub struct RunHistory {
    pub run: Run,
    pub spent: Spent,
    /// The clone that started it (`host:path`), when recorded (schema 10).
    pub clone: Option<String>,
    /// The fleet it belongs to, if any.
    pub fleet: Option<String>,
}

impl Store {
    /// Every run, newest first, each with its iterations, active time, dollars and tokens (the
    /// same sums as [`Store::spent`], in three queries whatever the number of runs).
    pub fn run_history(&self) -> Result<Vec<RunHistory>> {
        let mut sums: HashMap<String, (u32, f64, i64)> = HashMap::new();
        {
            let mut stmt = self.conn.prepare(
                "SELECT run_id, COUNT(*), COALESCE(SUM(cost_usd), 0), CAST(COALESCE(SUM(tokens_in + tokens_out), 0) AS BIGINT)
                 FROM iterations GROUP BY run_id",
            )?;
            let rows = stmt.query_map((), |r| {
                Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get(2)?, r.get(3)?)))
            })?;
            for row in rows {
                let (id, s) = row?;
                sums.insert(id, s);
            }
        }
        type Facts = (i64, Option<String>, Option<String>);
        let mut facts: HashMap<String, Facts> = HashMap::new();
        {
            let mut stmt = self
                .conn
                .prepare("SELECT id, active_ms, clone, fleet FROM runs")?;
            let rows = stmt.query_map((), |r| {
                Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get(2)?, r.get(3)?)))
            })?;
            for row in rows {
                let (id, f) = row?;
                facts.insert(id, f);
            }
        }
        Ok(self
            .runs()?
            .into_iter()
            .map(|run| {
                let (iterations, usd, tokens) = sums.get(&run.id).copied().unwrap_or_default();
                let (active_ms, clone, fleet) = facts.remove(&run.id).unwrap_or_default();
                RunHistory {
                    clone,
                    fleet,
                    spent: Spent {
                        iterations,
                        active_ms: active_ms.max(0) as u64,
                        usd,
                        tokens: tokens.max(0) as u64,
                    },
                    run,
                }
            })
            .collect())
    }

    /// The check logs the evidence names, with the run each belongs to (`None`: a verification
    /// outside any run), one row per distinct (run, log).
    pub fn evidence_logs(&self) -> Result<Vec<(Option<String>, String)>> {
        let mut stmt = self.conn.prepare(
            "SELECT DISTINCT run_id, log_path FROM evidence WHERE log_path IS NOT NULL ORDER BY run_id, log_path",
        )?;
        let rows = stmt
            .query_map((), |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<crate::db::DbResult<Vec<_>>>()?;
        Ok(rows)
    }
}
