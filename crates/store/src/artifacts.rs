//! What a run leaves that only its clone holds — its final report, its diff — kept in the store
//! when the run stops, so that a run whose clone is gone (a fleet job's, on another machine) can
//! still be reviewed from the store (`pawl serve --add postgres://…`, docs/fleet.md).
//!
//! Not here: what goes into an artifact, and its bound (the engine's `report::publish`).

use pawl_core::EventKind;
use sha2::Digest as _;

use crate::db::{OptionalExtension, params};
use crate::{Result, Store, StoreError, mac};

/// An artifact to keep.
#[derive(Debug, Clone)]
pub struct NewArtifact {
    /// `report` or `diff`.
    pub name: String,
    /// What is kept (already cut to its bound when `truncated`).
    pub body: String,
    /// The size of the whole artifact before any cut, in bytes.
    pub bytes: u64,
    pub truncated: bool,
}

/// An artifact as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub name: String,
    pub body: String,
    pub bytes: u64,
    pub truncated: bool,
    pub created_at: i64,
}

impl Store {
    /// Keeps `artifacts` for `run_id` in one transaction, replacing any of the same names (a run
    /// publishes again each time it stops), with a `published` event naming each one's size and
    /// SHA-256.
    pub fn publish(&mut self, run_id: &str, artifacts: &[NewArtifact]) -> Result<()> {
        self.run_as_signed(run_id)?;
        self.write(|tx| {
            let mut named = Vec::new();
            for a in artifacts {
                tx.execute(
                    "DELETE FROM artifacts WHERE run_id = ?1 AND name = ?2",
                    params![run_id, a.name],
                )?;
                let rowid = tx.insert(
                    "INSERT INTO artifacts (run_id, name, body, bytes, truncated, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![
                        run_id,
                        a.name,
                        a.body,
                        i64::try_from(a.bytes).unwrap_or(i64::MAX),
                        i64::from(a.truncated),
                        tx.now
                    ],
                )?;
                tx.inserted(&mac::ARTIFACTS, rowid, Some(run_id))?;
                let digest = sha2::Sha256::digest(a.body.as_bytes());
                let sha256: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                named.push(serde_json::json!({
                    "name": a.name, "kept_bytes": a.body.len(), "bytes": a.bytes,
                    "truncated": a.truncated, "sha256": sha256,
                }));
            }
            tx.event(
                Some(run_id),
                EventKind::Published,
                serde_json::json!({ "artifacts": named }),
            )?;
            Ok(())
        })
    }

    /// The artifact `name` of `run_id`, if the run published one. A row that fails its check
    /// is [`StoreError::Tampered`], never returned.
    pub fn artifact(&self, run_id: &str, name: &str) -> Result<Option<Artifact>> {
        let row = self
            .conn
            .query_row(
                "SELECT rowid, body, bytes, truncated, created_at FROM artifacts
                 WHERE run_id = ?1 AND name = ?2",
                params![run_id, name],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, i64>(4)?,
                    ))
                },
            )
            .optional()?;
        let Some((rowid, body, bytes, truncated, created_at)) = row else {
            return Ok(None);
        };
        mac::check_row(&self.conn, self.key(), &mac::ARTIFACTS, rowid)?;
        Ok(Some(Artifact {
            name: name.to_string(),
            body,
            bytes: u64::try_from(bytes).unwrap_or_default(),
            truncated: truncated == 1,
            created_at,
        }))
    }

    /// The clone that started `run_id` (`host#boot:path`), when recorded (schema 10).
    pub fn clone_of(&self, run_id: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT clone FROM runs WHERE id = ?1", [run_id], |r| {
                r.get::<_, Option<String>>(0)
            })
            .optional()?
            .flatten())
    }

    /// Whether `run_id` published its artifacts since it last stopped: a `published` event after
    /// its last status change. A run killed between recording its stop and publishing has not
    /// (its resume, or any later `pawl report` in its clone, publishes then).
    pub fn published_since_stop(&self, run_id: &str) -> Result<bool> {
        let last = |kind: EventKind| -> Result<i64> {
            self.conn
                .query_row(
                    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = ?1 AND kind = ?2",
                    params![run_id, kind.as_str()],
                    |r| r.get(0),
                )
                .map_err(StoreError::from)
        };
        let published = last(EventKind::Published)?;
        Ok(published > 0 && published > last(EventKind::RunStatus)?)
    }
}
