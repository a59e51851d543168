//! A fleet: many runs (many clones, many machines) sharing one store and one budget.
//!
//! A fleet's budget caps dollars and tokens over all its runs. Every agent step of a run in a
//! fleet holds part of the budget before it starts ([`Store::begin_iteration`] takes the hold in
//! the same transaction as the iteration) and settles it with what it spent
//! ([`Store::record_step_spend`]); a step cut off by a crash before its spend was known is
//! settled with its whole hold when its run is resumed (the spend is unknown: charged in full,
//! fail closed). Holds and totals change only under the store's write lock, so
//! `spent + held ≤ max` holds after every commit, and the fleet can exceed its cap only by what
//! steps in flight spend beyond their holds.
//!
//! Dollars are kept as integer micro-dollars: totals add up exactly.
//!
//! Not here: which fleet a process's runs join (the CLI's `PAWL_FLEET`, [`Store::set_scope`]),
//! what the engine does when a hold is refused (the run stops on its dollar or token limit).

use pawl_core::EventKind;
use serde::Serialize;
use serde_json::json;

use crate::db::{OptionalExtension, params};
use crate::{Result, Store, StoreError, Tx};

/// Dollars as integer micro-dollars (rounded to the nearest).
pub fn micro_usd(usd: f64) -> i64 {
    #[expect(clippy::cast_possible_truncation, reason = "bounded by the clamp")]
    let m = (usd * 1e6).round().clamp(0.0, 9e15) as i64;
    m
}

fn usd(micro: i64) -> f64 {
    #[expect(clippy::cast_precision_loss, reason = "micro-dollars well under 2^53")]
    let d = micro as f64 / 1e6;
    d
}

/// A fleet's budget as set by the user.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FleetBudget {
    pub max_usd: Option<f64>,
    pub max_tokens: Option<u64>,
    /// What one agent step holds while in flight (the most a step is expected to spend).
    pub step_usd: f64,
    pub step_tokens: u64,
}

/// A fleet's budget and where it stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FleetTotals {
    pub fleet: String,
    pub max_usd: Option<f64>,
    pub max_tokens: Option<u64>,
    pub step_usd: f64,
    pub step_tokens: u64,
    /// Spent by settled steps.
    pub spent_usd: f64,
    pub spent_tokens: u64,
    /// Held by steps in flight.
    pub held_usd: f64,
    pub held_tokens: u64,
    pub steps_in_flight: u64,
}

/// Which runs a handle works on: its clone (`host:path`) and the fleet its new runs join.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    pub clone: Option<String>,
    pub fleet: Option<String>,
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

impl Store {
    /// Sets (or changes) a fleet's budget: the user's decision, recorded as an event.
    pub fn set_fleet_budget(&mut self, fleet: &str, budget: &FleetBudget) -> Result<FleetTotals> {
        if fleet.is_empty() {
            return Err(StoreError::Refused("a fleet needs a name".into()));
        }
        let max_usd = budget.max_usd.map(micro_usd);
        let max_tokens = budget.max_tokens.map(to_i64);
        self.write(|tx| {
            tx.execute(
                "INSERT INTO fleets (id, max_micro_usd, max_tokens, step_micro_usd, step_tokens, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
                 ON CONFLICT (id) DO UPDATE SET max_micro_usd = excluded.max_micro_usd,
                   max_tokens = excluded.max_tokens, step_micro_usd = excluded.step_micro_usd,
                   step_tokens = excluded.step_tokens, updated_at = excluded.updated_at",
                params![fleet, max_usd, max_tokens, micro_usd(budget.step_usd), to_i64(budget.step_tokens), tx.now],
            )?;
            tx.event(
                None,
                EventKind::FleetBudget,
                json!({"fleet": fleet, "max_usd": budget.max_usd, "max_tokens": budget.max_tokens,
                       "step_usd": budget.step_usd, "step_tokens": budget.step_tokens}),
            )?;
            Ok(())
        })?;
        self.fleet_totals(fleet)?
            .ok_or_else(|| StoreError::NotFound {
                what: "fleet",
                id: fleet.into(),
                hint: String::new(),
            })
    }

    /// A fleet's budget and totals (`None`: no budget was set for it).
    pub fn fleet_totals(&self, fleet: &str) -> Result<Option<FleetTotals>> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, max_micro_usd, max_tokens, step_micro_usd, step_tokens, spent_micro_usd,
                   spent_tokens, held_micro_usd, held_tokens,
                   (SELECT COUNT(*) FROM fleet_holds h WHERE h.fleet = f.id AND h.settled_at IS NULL)
                 FROM fleets f WHERE id = ?1",
                [fleet],
                |r| {
                    Ok(FleetTotals {
                        fleet: r.get(0)?,
                        max_usd: r.get::<_, Option<i64>>(1)?.map(usd),
                        max_tokens: r.get::<_, Option<i64>>(2)?.map(to_u64),
                        step_usd: usd(r.get(3)?),
                        step_tokens: to_u64(r.get(4)?),
                        spent_usd: usd(r.get(5)?),
                        spent_tokens: to_u64(r.get(6)?),
                        held_usd: usd(r.get(7)?),
                        held_tokens: to_u64(r.get(8)?),
                        steps_in_flight: to_u64(r.get(9)?),
                    })
                },
            )
            .optional()?)
    }

    /// Every fleet with a budget.
    pub fn fleets(&self) -> Result<Vec<FleetTotals>> {
        let ids: Vec<String> = self
            .conn
            .prepare("SELECT id FROM fleets ORDER BY id")?
            .query_map((), |r| r.get(0))?
            .collect::<crate::db::DbResult<_>>()?;
        let mut out = Vec::new();
        for id in ids {
            out.extend(self.fleet_totals(&id)?);
        }
        Ok(out)
    }
}

impl Tx<'_> {
    /// Holds a step's share of its run's fleet budget (nothing when the run is in no fleet with
    /// a budget). Refused when the hold would take spent + held over a cap.
    pub(crate) fn hold_fleet(&self, run_id: &str, n: u32) -> Result<Option<serde_json::Value>> {
        let fleet: Option<String> = self
            .query_row("SELECT fleet FROM runs WHERE id = ?1", [run_id], |r| {
                r.get(0)
            })
            .optional()?
            .flatten();
        let Some(fleet) = fleet else {
            return Ok(None);
        };
        type Row = (Option<i64>, Option<i64>, i64, i64, i64, i64, i64, i64);
        let row: Option<Row> = self
            .query_row(
                "SELECT max_micro_usd, max_tokens, step_micro_usd, step_tokens, spent_micro_usd,
                   spent_tokens, held_micro_usd, held_tokens FROM fleets WHERE id = ?1",
                [&fleet],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                    ))
                },
            )
            .optional()?;
        let Some((
            max_usd,
            max_tokens,
            step_usd,
            step_tokens,
            spent_usd,
            spent_tokens,
            held_usd,
            held_tokens,
        )) = row
        else {
            return Ok(None);
        };
        if let Some(max) = max_usd
            && spent_usd + held_usd + step_usd > max
        {
            return Err(StoreError::FleetBudget {
                fleet,
                what: "dollar",
                detail: format!(
                    "${:.2} spent and ${:.2} held by steps in flight of ${:.2}; a step holds ${:.2}",
                    usd(spent_usd),
                    usd(held_usd),
                    usd(max),
                    usd(step_usd)
                ),
            });
        }
        if let Some(max) = max_tokens
            && spent_tokens + held_tokens + step_tokens > max
        {
            return Err(StoreError::FleetBudget {
                fleet,
                what: "token",
                detail: format!(
                    "{spent_tokens} spent and {held_tokens} held by steps in flight of {max}; a step holds {step_tokens}"
                ),
            });
        }
        self.execute(
            "INSERT INTO fleet_holds (fleet, run_id, n, held_micro_usd, held_tokens, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![fleet, run_id, n, step_usd, step_tokens, self.now],
        )?;
        self.execute(
            "UPDATE fleets SET held_micro_usd = held_micro_usd + ?2, held_tokens = held_tokens + ?3,
               updated_at = ?4 WHERE id = ?1",
            params![fleet, step_usd, step_tokens, self.now],
        )?;
        Ok(Some(
            json!({"fleet": fleet, "held_usd": usd(step_usd), "held_tokens": step_tokens}),
        ))
    }

    /// Settles iteration `n`'s open hold with what it spent (`None`: unknown — the hold is
    /// charged in full). Nothing when it holds nothing.
    pub(crate) fn settle_fleet(
        &self,
        run_id: &str,
        n: u32,
        spent: Option<(f64, u64)>,
    ) -> Result<Option<serde_json::Value>> {
        let hold: Option<(i64, String, i64, i64)> = self
            .query_row(
                "SELECT id, fleet, held_micro_usd, held_tokens FROM fleet_holds
                 WHERE run_id = ?1 AND n = ?2 AND settled_at IS NULL",
                params![run_id, n],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?;
        let Some((id, fleet, held_usd, held_tokens)) = hold else {
            return Ok(None);
        };
        let (spent_usd, spent_tokens) = match spent {
            Some((usd, tokens)) => (micro_usd(usd), to_i64(tokens)),
            None => (held_usd, held_tokens),
        };
        self.execute(
            "UPDATE fleet_holds SET spent_micro_usd = ?2, spent_tokens = ?3, settled_at = ?4 WHERE id = ?1",
            params![id, spent_usd, spent_tokens, self.now],
        )?;
        self.execute(
            "UPDATE fleets SET held_micro_usd = held_micro_usd - ?2, held_tokens = held_tokens - ?3,
               spent_micro_usd = spent_micro_usd + ?4, spent_tokens = spent_tokens + ?5, updated_at = ?6
             WHERE id = ?1",
            params![fleet, held_usd, held_tokens, spent_usd, spent_tokens, self.now],
        )?;
        Ok(Some(
            json!({"fleet": fleet, "spent_usd": usd(spent_usd), "spent_tokens": spent_tokens,
                       "charged_in_full": spent.is_none()}),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_are_exact_micro_dollars() {
        assert_eq!(micro_usd(0.1) + micro_usd(0.2), micro_usd(0.3));
        assert_eq!(micro_usd(-1.0), 0);
        assert!((usd(micro_usd(12.345678)) - 12.345678).abs() < 1e-12);
    }
}
