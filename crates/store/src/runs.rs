//! Runs: creation, lookup by id or prefix, status changes and persisted limits.

use std::hash::BuildHasher;

use crate::db::Value;
use crate::db::params;
use pawl_core::EventKind;
use pawl_core::StopReason;
use pawl_core::model::{Driver, RunStatus};
use pawl_core::record::{Run, RunSettings};
use serde_json::json;

use crate::{Result, Store, StoreError, mac};

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

/// A run from its row's values, in [`mac::RUNS`] order.
pub(crate) fn run_from_values(v: &[Value]) -> Result<Run> {
    let col = |i: usize| v.get(i).cloned().unwrap_or(Value::Null);
    let corrupt = |what: &str| StoreError::Corrupt(format!("runs.{what}"));
    let text = |i: usize, what: &str| match col(i) {
        Value::Text(s) => Ok(s),
        _ => Err(corrupt(what)),
    };
    let opt_text = |i: usize| match col(i) {
        Value::Text(s) => Some(s),
        _ => None,
    };
    let int = |i: usize, what: &str| match col(i) {
        Value::Integer(n) => Ok(n),
        _ => Err(corrupt(what)),
    };
    let opt_int = |i: usize| match col(i) {
        Value::Integer(n) => Some(n),
        _ => None,
    };
    Ok(Run {
        id: text(0, "id")?,
        goal: text(2, "goal")?,
        status: parse_enum(text(3, "status")?, "status")?,
        driver: parse_enum(text(4, "driver")?, "driver")?,
        mode: opt_text(5),
        phase: opt_text(6),
        created_at: int(7, "created_at")?,
        updated_at: int(8, "updated_at")?,
        ended_at: opt_int(9),
        stop_reason: opt_text(10)
            .map(|s| {
                StopReason::parse(&s)
                    .ok_or_else(|| StoreError::Corrupt(format!("unknown stop reason `{s}`")))
            })
            .transpose()?,
        settings: serde_json::from_str(&text(11, "settings_json")?)
            .map_err(|e| StoreError::Corrupt(format!("runs.settings_json: {e}")))?,
        branch: opt_text(12),
        pre_run_commit: opt_text(13),
    })
}

fn args_of(values: &[Value]) -> Vec<&dyn crate::db::ToValue> {
    values
        .iter()
        .map(|v| v as &dyn crate::db::ToValue)
        .collect()
}

fn parse_enum<T: std::str::FromStr>(s: String, what: &str) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    s.parse()
        .map_err(|e| StoreError::Corrupt(format!("runs.{what}: {e}")))
}

/// The status pawl last signed for a row (`None`: it cannot be known).
fn signed_status(row: &mac::RunRow) -> Option<RunStatus> {
    match row.signed.as_ref()?.get(3)? {
        Value::Text(s) => s.parse().ok(),
        _ => None,
    }
}

fn seq_of(row: &mac::RunRow) -> i64 {
    match row.values.get(1) {
        Some(Value::Integer(n)) => *n,
        _ => 0,
    }
}

fn id_of(row: &mac::RunRow) -> String {
    match row.values.first() {
        Some(Value::Text(s)) => s.clone(),
        _ => String::new(),
    }
}

/// A run that is still being worked on, by what pawl signed: active or waiting for the user. A
/// row changed outside pawl counts as open (fail closed) until it is marked tampered.
fn is_open(row: &mac::RunRow) -> bool {
    !row.findings.is_empty()
        || matches!(
            signed_status(row),
            Some(RunStatus::Active | RunStatus::AwaitingUser)
        )
}

fn new_run_id(now_ms: i64, shared: bool) -> String {
    let stamp = jiff::Timestamp::from_millisecond(now_ms)
        .map(|t| t.strftime("%Y%m%d-%H%M%S").to_string())
        .unwrap_or_else(|_| now_ms.to_string());
    // RandomState is seeded per process: enough to keep two runs started in the same second apart.
    let salt =
        std::collections::hash_map::RandomState::new().hash_one((now_ms, std::process::id()));
    if shared {
        // Hundreds of runs start in the same second against a shared store.
        format!("{stamp}-{:08x}", salt & 0xffff_ffff)
    } else {
        format!("{stamp}-{:04x}", salt & 0xffff)
    }
}

impl Store {
    /// Creates a run. Refused while another run is active or waiting for the user: one driver
    /// per repository at a time.
    pub fn create_run(&mut self, new: &NewRun) -> Result<Run> {
        let id = new_run_id(self.now(), self.is_shared());
        let key = self.key;
        let (filter, args) = self.clone_filter();
        let scope = self.scope.clone();
        self.write(|tx| {
            let rows = mac::run_rows(tx, key.as_ref(), filter, &args_of(&args))?;
            if let Some(other) = rows.iter().rev().find(|r| is_open(r)) {
                let other_id = id_of(other);
                return Err(StoreError::Refused(if other.findings.is_empty() {
                    format!(
                        "run {other_id} is still {}: finish it, `pawl cancel` it, or `pawl stop` it before starting another",
                        signed_status(other).map(|s| s.to_string()).unwrap_or_default()
                    )
                } else {
                    format!(
                        "run {other_id} was modified outside pawl (tampered): `pawl report {other_id}` says what; `pawl cancel {other_id}` ends it before starting another"
                    )
                }));
            }
            let seq: i64 = tx.query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM runs", (), |r| r.get(0))?;
            let settings = serde_json::to_string(&new.settings)
                .map_err(|e| StoreError::Corrupt(e.to_string()))?;
            let rowid = tx.insert(
                "INSERT INTO runs (id, seq, goal, status, driver, mode, phase, created_at, updated_at, settings_json, branch, pre_run_commit)
                 VALUES (?1, ?2, ?3, 'active', ?4, ?5, NULL, ?6, ?6, ?7, ?8, ?9)",
                params![id, seq, new.goal, new.driver.as_str(), new.mode, tx.now, settings, new.branch, new.pre_run_commit],
            )?;
            tx.sign(&mac::RUNS, rowid)?;
            tx.execute(
                "UPDATE runs SET clone = ?2, fleet = ?3 WHERE id = ?1",
                params![id, scope.clone, scope.fleet],
            )?;
            tx.execute("INSERT INTO spec (run_id, goal_text) VALUES (?1, ?2)", params![id, new.goal])?;
            tx.event(
                Some(&id),
                EventKind::RunCreated,
                {
                    let mut data = json!({"goal": new.goal, "driver": new.driver, "mode": new.mode, "settings": new.settings,
                                          "branch": new.branch, "pre_run_commit": new.pre_run_commit});
                    if let Some(fleet) = &scope.fleet {
                        data["fleet"] = json!(fleet);
                    }
                    data
                },
            )?;
            Ok(())
        })?;
        self.run(&id)
    }

    /// The run with exactly this id, as pawl wrote it: a row changed outside pawl is never
    /// returned (`Err(StoreError::Tampered)` says what changed).
    pub fn run(&self, id: &str) -> Result<Run> {
        // A run known clean (its whole state checked, nothing committed by another connection
        // since) is read without computing its row's code again.
        let key = if self.known_clean(id) {
            None
        } else {
            self.key()
        };
        let row = mac::run_rows(&self.conn, key, "id = ?1", &[&id])?
            .into_iter()
            .next()
            .ok_or_else(|| StoreError::NotFound {
                what: "run",
                id: id.to_string(),
                hint: String::new(),
            })?;
        if !row.findings.is_empty() {
            return Err(StoreError::Tampered(mac::Tampering {
                run_id: id.to_string(),
                findings: row.findings,
            }));
        }
        run_from_values(&row.values)
    }

    /// The run's status, as [`Store::run`] gives it: read alone (its settings not parsed) when
    /// the run is known clean.
    pub fn run_status(&self, id: &str) -> Result<RunStatus> {
        if !self.known_clean(id) {
            return Ok(self.run(id)?.status);
        }
        let status: Option<String> = crate::db::OptionalExtension::optional(self.conn.query_row(
            "SELECT status FROM runs WHERE id = ?1",
            [id],
            |r| r.get(0),
        ))?;
        let status = status.ok_or_else(|| StoreError::NotFound {
            what: "run",
            id: id.to_string(),
            hint: String::new(),
        })?;
        parse_enum(status, "status")
    }

    /// All runs, newest first, each as pawl last signed it when that can be known (for listing;
    /// a command that works on a run reads it with [`Store::run`]).
    pub fn runs(&self) -> Result<Vec<Run>> {
        let (filter, args) = self.clone_filter();
        let mut rows = mac::run_rows(&self.conn, self.key(), filter, &args_of(&args))?;
        rows.sort_by_key(|r| std::cmp::Reverse(seq_of(r)));
        rows.iter()
            .map(|r| run_from_values(r.signed.as_deref().unwrap_or(&r.values)))
            .collect()
    }

    /// The run as pawl last signed it (as stored, when that cannot be known), with what was
    /// modified in its state: for showing a run (status, report), never for driving it.
    pub fn run_as_signed(&self, id: &str) -> Result<(Run, Option<mac::Tampering>)> {
        let row = mac::run_rows(&self.conn, self.key(), "id = ?1", &[&id])?
            .into_iter()
            .next()
            .ok_or_else(|| StoreError::NotFound {
                what: "run",
                id: id.to_string(),
                hint: String::new(),
            })?;
        let run = run_from_values(row.signed.as_deref().unwrap_or(&row.values))?;
        Ok((run, self.tampering(id)?))
    }

    /// The run a command without `--run` means: the one being worked on (active or awaiting the
    /// user; there is at most one — a run whose row was changed outside pawl counts as one),
    /// else the newest one. A run stopped before a newer one started is not "current" any
    /// more: name it with `--run`.
    pub fn current_run(&self) -> Result<Option<Run>> {
        let (filter, args) = self.clone_filter();
        let mut rows = mac::run_rows(&self.conn, self.key(), filter, &args_of(&args))?;
        rows.sort_by_key(|r| std::cmp::Reverse(seq_of(r)));
        let open = rows.iter().find(|r| {
            !r.findings.is_empty()
                || signed_status(r)
                    .is_some_and(|s| matches!(s, RunStatus::Active | RunStatus::AwaitingUser))
        });
        match open.or(rows.first()) {
            Some(r) => self.run(&id_of(r)).map(Some),
            None => Ok(None),
        }
    }

    /// The id `--run <id>` (or, without it, the current run) means, whatever state the run is
    /// in: for the commands that show a run or end it, which must work on a tampered run too.
    pub fn resolve_run_id(&self, id: Option<&str>) -> Result<String> {
        match self.resolve_run(id) {
            Ok(run) => Ok(run.id),
            Err(StoreError::Tampered(t)) => Ok(t.run_id),
            Err(e) => Err(e),
        }
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
        match self.run(id) {
            Ok(run) => return Ok(run),
            Err(StoreError::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
        let matches: Vec<Run> = self
            .runs()?
            .into_iter()
            .filter(|r| r.id.starts_with(id) || r.id.ends_with(id))
            .collect();
        match matches.len() {
            1 => match matches.first() {
                Some(r) => self.run(&r.id),
                None => Err(StoreError::Corrupt("vanished".into())),
            },
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
        let from = self.run(id)?;
        self.write(|tx| {
            tx.changing_run(id, |tx| {
                let (from, was) = tx.query_row(
                    "SELECT status, stop_reason FROM runs WHERE id = ?1",
                    [id],
                    |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)),
                )?;
                let from: RunStatus =
                    from.parse().map_err(|e| StoreError::Corrupt(format!("{e}")))?;
                if from.is_terminal() {
                    return Err(StoreError::Refused(format!("run {id} is already {from}")));
                }
                // A tampered run is never driven again; the user can only cancel it.
                if was.as_deref() == Some(StopReason::Tampered.as_str())
                    && status != RunStatus::Cancelled
                {
                    return Err(StoreError::Refused(format!(
                        "run {id} stopped because its state was modified outside pawl (tampered): it cannot be resumed; `pawl report {id}` says what was modified, and a new run starts over (its work stays on its branch)"
                    )));
                }
                let ended = status.is_terminal().then_some(tx.now);
                tx.execute(
                    "UPDATE runs SET status = ?2, stop_reason = ?3, updated_at = ?4, ended_at = COALESCE(?5, ended_at) WHERE id = ?1",
                    params![id, status.as_str(), reason.map(StopReason::as_str), tx.now, ended],
                )?;
                Ok(())
            })?;
            tx.event(Some(id), EventKind::RunStatus, json!({"from": from.status, "to": status, "reason": reason}))?;
            Ok(())
        })?;
        self.run(id)
    }

    /// Cancels a run: terminal; its work stays on its branch. A run whose state was modified
    /// outside pawl is marked tampered first (the event says what), then cancelled.
    pub fn cancel_run(&mut self, id: &str) -> Result<Run> {
        if let Some(t) = self.tampering(id)? {
            let run = self.mark_tampered(&t)?;
            if run.status.is_terminal() {
                return Ok(run);
            }
        }
        self.set_run_status(id, RunStatus::Cancelled, Some(StopReason::Cancelled))
    }

    /// Raises limits (the only way they change); records what changed and why.
    pub fn update_settings(&mut self, id: &str, settings: &RunSettings, why: &str) -> Result<Run> {
        let before = self.run(id)?.settings;
        self.write(|tx| {
            let text =
                serde_json::to_string(settings).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            tx.changing_run(id, |tx| {
                Ok(tx.execute(
                    "UPDATE runs SET settings_json = ?2, updated_at = ?3 WHERE id = ?1",
                    params![id, text, tx.now],
                )?)
            })?;
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
            tx.changing_run(id, |tx| {
                Ok(tx.execute(
                    "UPDATE runs SET branch = ?2, pre_run_commit = ?3, updated_at = ?4 WHERE id = ?1",
                    params![id, branch, pre_run_commit, tx.now],
                )?)
            })?;
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
            let n = tx.changing_run(id, |tx| {
                Ok(tx.execute(
                    "UPDATE runs SET phase = ?2, updated_at = ?3 WHERE id = ?1",
                    params![id, phase, tx.now],
                )?)
            })?;
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
