//! Evidence: the stored record of one check pawl ran itself (a gate or a command criterion),
//! bound to the working-tree hash it ran on.
//!
//! What is stored is decided by the verification engine (`pawl-verify`) and the CLI; this module
//! only keeps it and answers three questions: is there passing evidence for exactly this tree,
//! check and command (the cache), what is the latest evidence per check of a run (status and
//! reports), and what does one record say. Evidence is append-only: a reused result is a new row
//! pointing at the row it reused, so a run's history stays complete.
//!
//! Each record carries an HMAC-SHA-256 over its canonical JSON (`mac_of`, with `mac::hmac`, the
//! one MAC function of the store): only records whose code verifies are reused, and the others
//! are findings of their run's check (`mac.rs`).

use crate::db::{OptionalExtension, Row, params};
use pawl_core::EventKind;
use pawl_core::failure::FailureCategory;
use pawl_core::record::TestOutcome;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::{OptionalNotFound, Result, Store, StoreError, Tx, json_col, parse_col};

/// Test counts parsed from a check's output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCounts {
    /// The runner whose output was parsed (`cargo-test`, `unittest`, ...), when known.
    pub runner: Option<String>,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

/// Evidence to record. `tree_hash` is the tree the check ran on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewEvidence {
    /// The run it belongs to; `None` for `pawl verify` outside a run.
    pub run_id: Option<String>,
    /// The gate name (`test`), or `criterion:<id>` for a command criterion.
    pub gate: String,
    /// The command exactly as configured (before `{report}` substitution): part of the cache key.
    pub command: String,
    /// The argv that ran.
    pub argv: Vec<String>,
    pub cwd: String,
    pub tree_hash: String,
    /// Set only when the working tree changed while the check ran.
    pub tree_after: Option<String>,
    pub passed: bool,
    /// How the check ended: `exited`, `signalled`, `timed_out`, `idle_timed_out`, `stopped`,
    /// `spawn_failed`, `skipped`, `unknown`.
    pub end: String,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub duration_ms: u64,
    pub tests: Option<TestCounts>,
    /// Failing test names, as the runner reported them.
    pub failing: Vec<String>,
    pub first_failure: Option<String>,
    /// The failure class when the check failed.
    pub failure_category: Option<FailureCategory>,
    /// SHA-256 over the check's stdout and stderr digests.
    pub output_digest: Option<String>,
    /// The last lines of output (bounded).
    pub tail: String,
    /// The full log, relative to the repository root.
    pub log_path: Option<String>,
    /// The `{report}` file, relative to the repository root.
    pub report_path: Option<String>,
    /// The evidence row whose result this one reuses (unchanged tree, same command).
    pub reused_from: Option<i64>,
    /// Every test's outcome by id, when the runner's output names them.
    #[serde(default)]
    pub outcomes: Vec<TestOutcome>,
    /// The fingerprint of the sealed check (command, environment, room) that produced it;
    /// `None` for evidence of unsealed checks.
    #[serde(default)]
    pub seal: Option<String>,
}

/// Stored evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub id: i64,
    #[serde(flatten)]
    pub data: NewEvidence,
    pub created_at: i64,
    /// The authentication code pawl wrote with the record (`None`: written without a key).
    #[serde(skip)]
    pub mac: Option<String>,
}

impl Evidence {
    /// True when this evidence may stand for its tree: it passed and the tree did not move
    /// under it.
    pub fn is_reusable(&self) -> bool {
        self.data.passed && self.data.tree_after.is_none()
    }
}

const COLUMNS: &str = "id, run_id, gate, command, argv_json, cwd, tree_hash, tree_after, passed, \
    end_kind, exit_code, signal, duration_ms, test_runner, tests_passed, tests_failed, \
    tests_skipped, failing_json, first_failure, failure_category, output_digest, tail, log_path, \
    report_path, reused_from, created_at, outcomes_json, seal, mac";

fn from_row(r: &Row) -> crate::db::DbResult<Evidence> {
    let tests = match (
        r.get::<_, Option<i64>>(14)?,
        r.get::<_, Option<i64>>(15)?,
        r.get::<_, Option<i64>>(16)?,
    ) {
        (Some(p), Some(f), Some(s)) => Some(TestCounts {
            runner: r.get(13)?,
            passed: u64::try_from(p).unwrap_or(0),
            failed: u64::try_from(f).unwrap_or(0),
            skipped: u64::try_from(s).unwrap_or(0),
        }),
        _ => None,
    };
    let category: Option<String> = r.get(19)?;
    Ok(Evidence {
        id: r.get(0)?,
        data: NewEvidence {
            run_id: r.get(1)?,
            gate: r.get(2)?,
            command: r.get(3)?,
            argv: json_col(r.get(4)?, "evidence.argv_json")?,
            cwd: r.get(5)?,
            tree_hash: r.get(6)?,
            tree_after: r.get(7)?,
            passed: r.get(8)?,
            end: r.get(9)?,
            exit_code: r.get(10)?,
            signal: r.get(11)?,
            duration_ms: u64::try_from(r.get::<_, i64>(12)?).unwrap_or(0),
            tests,
            failing: json_col(r.get(17)?, "evidence.failing_json")?,
            first_failure: r.get(18)?,
            failure_category: category
                .map(|c| parse_col(c, "evidence.failure_category"))
                .transpose()?,
            output_digest: r.get(20)?,
            tail: r.get(21)?,
            log_path: r.get(22)?,
            report_path: r.get(23)?,
            reused_from: r.get(24)?,
            outcomes: r
                .get::<_, Option<String>>(26)?
                .map(|t| json_col(t, "evidence.outcomes_json"))
                .transpose()?
                .unwrap_or_default(),
            seal: r.get(27)?,
        },
        created_at: r.get(25)?,
        mac: r.get(28)?,
    })
}

/// The authentication code of a record (over its canonical JSON).
fn mac_of(key: &[u8; 32], e: &NewEvidence) -> String {
    crate::mac::hmac(key, serde_json::to_string(e).unwrap_or_default().as_bytes())
}

/// Findings for the evidence of a run that pawl did not write (its code does not verify).
pub(crate) fn unauthentic_of_run(
    conn: &crate::db::Db,
    key: &[u8; 32],
    run_id: &str,
) -> Result<Vec<crate::mac::Finding>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM evidence WHERE run_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt
        .query_map(params![run_id], from_row)?
        .collect::<crate::db::DbResult<Vec<Evidence>>>()?;
    Ok(rows
        .into_iter()
        .filter(|e| e.mac.as_deref() != Some(mac_of(key, &e.data).as_str()))
        .map(|e| crate::mac::Finding {
            table: "evidence".into(),
            row: format!("id={} gate={}", e.id, e.data.gate),
            field: None,
            what: format!(
                "{} evidence for tree {} not written by pawl (its code does not verify): never reused",
                if e.data.passed { "passing" } else { "failing" },
                e.data.tree_hash
            ),
        })
        .collect())
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn insert(tx: &Tx<'_>, e: &NewEvidence, mac: Option<String>) -> Result<i64> {
    let argv = serde_json::to_string(&e.argv).map_err(|x| StoreError::Corrupt(x.to_string()))?;
    let failing =
        serde_json::to_string(&e.failing).map_err(|x| StoreError::Corrupt(x.to_string()))?;
    let outcomes = (!e.outcomes.is_empty())
        .then(|| serde_json::to_string(&e.outcomes))
        .transpose()
        .map_err(|x| StoreError::Corrupt(x.to_string()))?;
    let tests = e.tests.as_ref();
    let rowid = tx.insert(
        &format!(
            "INSERT INTO evidence ({}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, \
             ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)",
            // The id is the database's to give.
            COLUMNS.trim_start_matches("id, ")
        ),
        params![
            e.run_id,
            e.gate,
            e.command,
            argv,
            e.cwd,
            e.tree_hash,
            e.tree_after,
            e.passed,
            e.end,
            e.exit_code,
            e.signal,
            to_i64(e.duration_ms),
            tests.and_then(|t| t.runner.clone()),
            tests.map(|t| to_i64(t.passed)),
            tests.map(|t| to_i64(t.failed)),
            tests.map(|t| to_i64(t.skipped)),
            failing,
            e.first_failure,
            e.failure_category.map(|c| c.as_str()),
            e.output_digest,
            e.tail,
            e.log_path,
            e.report_path,
            e.reused_from,
            tx.now,
            outcomes,
            e.seal,
            mac,
        ],
    )?;
    Ok(rowid)
}

impl Store {
    /// Records the evidence of one verification (every check it ran or reused) in one
    /// transaction, with one `evidence` event per record. Returns the stored records in order.
    pub fn record_evidence(&mut self, list: &[NewEvidence]) -> Result<Vec<Evidence>> {
        let macs: Vec<Option<String>> = list
            .iter()
            .map(|e| self.key().map(|k| mac_of(k, e)))
            .collect();
        let ids = self.write(|tx| {
            let mut ids = Vec::with_capacity(list.len());
            for (e, mac) in list.iter().zip(macs) {
                if let Some(run_id) = &e.run_id {
                    let exists: Option<i64> = tx
                        .query_row("SELECT 1 FROM runs WHERE id = ?1", [run_id], |r| r.get(0))
                        .optional()?;
                    if exists.is_none() {
                        return Err(StoreError::NotFound {
                            what: "run",
                            id: run_id.clone(),
                            hint: String::new(),
                        });
                    }
                }
                let id = insert(tx, e, mac)?;
                tx.event(
                    e.run_id.as_deref(),
                    EventKind::Evidence,
                    json!({
                        "id": id,
                        "gate": e.gate,
                        "tree": e.tree_hash,
                        "tree_after": e.tree_after,
                        "passed": e.passed,
                        "end": e.end,
                        "category": e.failure_category,
                        "reused_from": e.reused_from,
                    }),
                )?;
                ids.push(id);
            }
            Ok(ids)
        })?;
        ids.into_iter().map(|id| self.evidence(id)).collect()
    }

    /// One evidence record.
    pub fn evidence(&self, id: i64) -> Result<Evidence> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM evidence WHERE id = ?1"),
                [id],
                from_row,
            )
            .or_not_found("evidence", &id.to_string())
    }

    /// The latest passing evidence for exactly this tree, check and command whose tree did not
    /// change while it ran: the result an unchanged tree may reuse. Reused rows point back to
    /// the original, which is returned instead.
    pub fn cached_evidence(
        &self,
        tree_hash: &str,
        gate: &str,
        command: &str,
        seal: Option<&str>,
    ) -> Result<Option<Evidence>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM evidence
             WHERE tree_hash = ?1 AND gate = ?2 AND command = ?3 AND passed = 1
               AND tree_after IS NULL AND reused_from IS NULL AND seal IS NOT DISTINCT FROM ?4
             ORDER BY id DESC LIMIT 16"
        ))?;
        let rows = stmt
            .query_map(params![tree_hash, gate, command, seal], from_row)?
            .collect::<crate::db::DbResult<Vec<Evidence>>>()?;
        Ok(rows.into_iter().find(|e| self.authentic(e)))
    }

    /// Whether pawl wrote this record: with a key, its code must verify; without one, every
    /// record is taken as it is.
    pub fn authentic(&self, e: &Evidence) -> bool {
        match self.key() {
            None => true,
            Some(k) => e.mac.as_deref() == Some(mac_of(k, &e.data).as_str()),
        }
    }

    /// Passing records for a tree that pawl did not write (their code does not verify): what
    /// someone else put into the store, reported and never reused.
    pub fn unauthentic_evidence(&self, tree_hash: &str) -> Result<Vec<Evidence>> {
        if self.key().is_none() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM evidence WHERE tree_hash = ?1 AND passed = 1 ORDER BY id"
        ))?;
        let rows = stmt
            .query_map(params![tree_hash], from_row)?
            .collect::<crate::db::DbResult<Vec<Evidence>>>()?;
        Ok(rows.into_iter().filter(|e| !self.authentic(e)).collect())
    }

    /// The latest evidence for each check of a run (`None`: evidence recorded outside any run),
    /// ordered by check name.
    pub fn latest_evidence(&self, run_id: Option<&str>) -> Result<Vec<Evidence>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM evidence e
             WHERE run_id IS NOT DISTINCT FROM ?1
               AND id = (SELECT MAX(id) FROM evidence x WHERE x.run_id IS NOT DISTINCT FROM ?1 AND x.gate = e.gate)
             ORDER BY gate"
        ))?;
        Ok(stmt
            .query_map([run_id], from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }

    /// Every evidence record of a run, oldest first (`None`: outside any run).
    pub fn evidence_of_run(&self, run_id: Option<&str>) -> Result<Vec<Evidence>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM evidence WHERE run_id IS NOT DISTINCT FROM ?1 ORDER BY id"
        ))?;
        Ok(stmt
            .query_map([run_id], from_row)?
            .collect::<crate::db::DbResult<_>>()?)
    }
}
