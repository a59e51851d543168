//! Runs: creation, lookup by id or prefix, status changes and persisted limits.

use std::hash::BuildHasher;

use pawl_core::EventKind;
use pawl_core::StopReason;
use pawl_core::model::{Driver, RunStatus};
use pawl_core::record::{Run, RunSettings};
use rusqlite::{OptionalExtension, Row, params};
use serde_json::json;

use crate::{OptionalNotFound, Result, Store, StoreError, json_col, parse_col};

/// What a new run starts with.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub goal: String,
    pub driver: Driver,
    pub mode: Option<String>,
    pub settings: RunSettings,
    pub branch: Option<String>,
    pub pre_run_commit: Option<String>,
}

const RUN_COLUMNS: &str = "id, goal, status, driver, mode, phase, created_at, updated_at, ended_at, \
     stop_reason, settings_json, branch, pre_run_commit";

pub(crate) fn run_from_row(r: &Row<'_>) -> rusqlite::Result<Run> {
    Ok(Run {
        id: r.get(0)?,
        goal: r.get(1)?,
        status: parse_col(r.get(2)?, "runs.status")?,
        driver: parse_col(r.get(3)?, "runs.driver")?,
        mode: r.get(4)?,
        phase: r.get(5)?,
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
        ended_at: r.get(8)?,
        stop_reason: r
            .get::<_, Option<String>>(9)?
            .map(|s| {
                StopReason::parse(&s).ok_or_else(|| {
                    rusqlite::Error::FromSqlConversionFailure(
                        9,
                        rusqlite::types::Type::Text,
                        format!("unknown stop reason `{s}`").into(),
                    )
                })
            })
            .transpose()?,
        settings: json_col(r.get(10)?, "runs.settings_json")?,
        branch: r.get(11)?,
        pre_run_commit: r.get(12)?,
    })
}

fn new_run_id(now_ms: i64) -> String {
    let stamp = jiff::Timestamp::from_millisecond(now_ms)
        .map(|t| t.strftime("%Y%m%d-%H%M%S").to_string())
        .unwrap_or_else(|_| now_ms.to_string());
    // RandomState is seeded per process: enough to keep two runs started in the same second apart.
    let salt =
        std::collections::hash_map::RandomState::new().hash_one((now_ms, std::process::id()));
    format!("{stamp}-{:04x}", salt & 0xffff)
}

impl Store {
    /// Creates a run. Refused while another run is active or waiting for the user: one driver
    /// per repository at a time.
    pub fn create_run(&mut self, new: &NewRun) -> Result<Run> {
        let id = new_run_id(self.now());
        self.write(|tx| {
            let busy: Option<(String, String)> = tx
                .query_row(
                    "SELECT id, status FROM runs WHERE status IN ('active', 'awaiting_user') ORDER BY seq DESC LIMIT 1",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            if let Some((other, status)) = busy {
                return Err(StoreError::Refused(format!(
                    "run {other} is still {status}: finish it, `pawl cancel` it, or `pawl stop` it before starting another"
                )));
            }
            let seq: i64 = tx.query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM runs", [], |r| r.get(0))?;
            let settings = serde_json::to_string(&new.settings)
                .map_err(|e| StoreError::Corrupt(e.to_string()))?;
            tx.execute(
                "INSERT INTO runs (id, seq, goal, status, driver, mode, phase, created_at, updated_at, settings_json, branch, pre_run_commit)
                 VALUES (?1, ?2, ?3, 'active', ?4, ?5, NULL, ?6, ?6, ?7, ?8, ?9)",
                params![id, seq, new.goal, new.driver.as_str(), new.mode, tx.now, settings, new.branch, new.pre_run_commit],
            )?;
            tx.execute("INSERT INTO spec (run_id, goal_text) VALUES (?1, ?2)", params![id, new.goal])?;
            tx.event(
                Some(&id),
                EventKind::RunCreated,
                json!({"goal": new.goal, "driver": new.driver, "mode": new.mode, "settings": new.settings,
                       "branch": new.branch, "pre_run_commit": new.pre_run_commit}),
            )?;
            Ok(())
        })?;
        self.run(&id)
    }

    /// The run with exactly this id.
    pub fn run(&self, id: &str) -> Result<Run> {
        self.conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"),
                [id],
                run_from_row,
            )
            .or_not_found("run", id)
    }

    /// All runs, newest first.
    pub fn runs(&self) -> Result<Vec<Run>> {
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT {RUN_COLUMNS} FROM runs ORDER BY seq DESC"))?;
        let rows = stmt
            .query_map([], run_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The run a command without `--run` means: the one being worked on (active or awaiting the
    /// user; there is at most one), else the newest one. A run stopped before a newer one
    /// started is not "current" any more: name it with `--run`.
    pub fn current_run(&self) -> Result<Option<Run>> {
        let open = self
            .conn
            .query_row(
                &format!(
                    "SELECT {RUN_COLUMNS} FROM runs WHERE status IN ('active', 'awaiting_user') ORDER BY seq DESC LIMIT 1"
                ),
                [],
                run_from_row,
            )
            .optional()?;
        if open.is_some() {
            return Ok(open);
        }
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs ORDER BY seq DESC LIMIT 1"),
                [],
                run_from_row,
            )
            .optional()?)
    }

    /// Resolves `--run <id>` (a full id, a unique prefix or suffix) or, without it, the current run.
    pub fn resolve_run(&self, id: Option<&str>) -> Result<Run> {
        let Some(id) = id else {
            return self.current_run()?.ok_or_else(|| StoreError::NotFound {
                what: "run",
                id: "(current)".into(),
                hint: ": start one with `pawl run \"<goal>\"`".into(),
            });
        };
        if let Ok(run) = self.run(id) {
            return Ok(run);
        }
        let matches: Vec<Run> = self
            .runs()?
            .into_iter()
            .filter(|r| r.id.starts_with(id) || r.id.ends_with(id))
            .collect();
        match matches.len() {
            1 => matches
                .into_iter()
                .next()
                .ok_or_else(|| StoreError::Corrupt("vanished".into())),
            0 => Err(StoreError::NotFound {
                what: "run",
                id: id.into(),
                hint: ": see `pawl status --all`".into(),
            }),
            n => Err(StoreError::Refused(format!(
                "`{id}` matches {n} runs: give more of the id"
            ))),
        }
    }

    /// Resolves a run that can still be worked on.
    pub fn resolve_open_run(&self, id: Option<&str>) -> Result<Run> {
        let run = self.resolve_run(id)?;
        if run.status.is_terminal() {
            return Err(StoreError::Refused(format!(
                "run {} is {}: start a new run with `pawl run \"<goal>\"`",
                run.id, run.status
            )));
        }
        Ok(run)
    }

    /// Moves a run to `status`, recording the stop reason for stops.
    pub fn set_run_status(
        &mut self,
        id: &str,
        status: RunStatus,
        reason: Option<StopReason>,
    ) -> Result<Run> {
        self.write(|tx| {
            let from: String = tx
                .query_row("SELECT status FROM runs WHERE id = ?1", [id], |r| r.get(0))
                .or_not_found("run", id)?;
            let from: RunStatus = from.parse().map_err(|e| StoreError::Corrupt(format!("{e}")))?;
            if from.is_terminal() {
                return Err(StoreError::Refused(format!("run {id} is already {from}")));
            }
            let ended = status.is_terminal().then_some(tx.now);
            tx.execute(
                "UPDATE runs SET status = ?2, stop_reason = ?3, updated_at = ?4, ended_at = COALESCE(?5, ended_at) WHERE id = ?1",
                params![id, status.as_str(), reason.map(StopReason::as_str), tx.now, ended],
            )?;
            tx.event(Some(id), EventKind::RunStatus, json!({"from": from, "to": status, "reason": reason}))?;
            Ok(())
        })?;
        self.run(id)
    }

    /// Cancels a run: terminal; its work stays on its branch.
    pub fn cancel_run(&mut self, id: &str) -> Result<Run> {
        self.set_run_status(id, RunStatus::Cancelled, Some(StopReason::Cancelled))
    }

    /// Raises limits (the only way they change); records what changed and why.
    pub fn update_settings(&mut self, id: &str, settings: &RunSettings, why: &str) -> Result<Run> {
        let before = self.run(id)?.settings;
        self.write(|tx| {
            let text =
                serde_json::to_string(settings).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            tx.execute(
                "UPDATE runs SET settings_json = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, text, tx.now],
            )?;
            tx.event(
                Some(id),
                EventKind::LimitsChanged,
                json!({"before": before, "after": settings, "why": why}),
            )?;
            Ok(())
        })?;
        self.run(id)
    }

    /// Records where a run started in git: its (sandbox) branch and pre-run commit.
    pub fn set_run_git(
        &mut self,
        id: &str,
        branch: Option<&str>,
        pre_run_commit: Option<&str>,
    ) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE runs SET branch = ?2, pre_run_commit = ?3, updated_at = ?4 WHERE id = ?1",
                params![id, branch, pre_run_commit, tx.now],
            )?;
            tx.event(
                Some(id),
                EventKind::GitPreflight,
                json!({"branch": branch, "pre_run_commit": pre_run_commit}),
            )?;
            Ok(())
        })
    }

    /// Sets the pipeline phase.
    pub fn set_phase(&mut self, id: &str, phase: &str) -> Result<()> {
        self.write(|tx| {
            let n = tx.execute(
                "UPDATE runs SET phase = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, phase, tx.now],
            )?;
            if n == 0 {
                return Err(StoreError::NotFound {
                    what: "run",
                    id: id.into(),
                    hint: String::new(),
                });
            }
            tx.event(Some(id), EventKind::Phase, json!({"phase": phase}))?;
            Ok(())
        })
    }
}
