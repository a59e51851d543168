//! pawl-store: the durable run store, SQLite through rusqlite (bundled) in WAL mode.
//!
//! The only place SQL is written. Every change is one `BEGIN IMMEDIATE` transaction that also
//! appends an event, so the event log is a complete history and a crash leaves either the whole
//! change or none of it. The schema evolves through numbered migrations embedded in the binary;
//! a database written by a newer pawl is refused rather than misread.
//!
//! Opened with the user's key ([`Store::open_keyed`]), the store authenticates every row that
//! decides something (the run, its events, iterations, evidence, verdicts, criteria, session
//! arming and bindings) and never returns or signs over a row that fails its check
//! ([`StoreError::Tampered`] says which table, row and field): see `mac.rs`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pawl_core::EventKind;

pub use crate::db::Location;
use crate::db::{Db, DbError, OptionalExtension, Row};

mod artifacts;
mod blockers;
mod control;
pub mod db;
mod events;
mod evidence;
mod fleet;
mod history;
mod iterations;
mod leases;
pub mod mac;
mod pipeline;
mod questions;
mod runs;
mod session;
mod stories;
mod work;

pub use artifacts::{Artifact, NewArtifact};
pub use evidence::{Evidence, NewEvidence, TestCounts};
pub use fleet::{FleetBudget, FleetTotals, Scope, micro_usd};
pub use history::RunHistory;
pub use iterations::{IterationTrail, StepSpend};
pub use leases::LeaseOutcome;
pub use mac::{Finding, Tampering};
pub use pipeline::{
    ConvergenceRecord, FailedDirection, NewVerdict, PhaseRecord, PlanRecord, ScoreRecord,
    StoryPlan, VerdictRecord,
};
pub use questions::StoredQuestion;
pub use runs::NewRun;
pub use session::{Arming, NewArming, SessionBinding};
pub use stories::{NewStoryWork, Reclaim, StoryLease, StoryWork, StoryWorkChange};

/// The migrations, in order; schema version N means the first N have been applied.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_init.sql"),
    include_str!("../migrations/0002_evidence.sql"),
    include_str!("../migrations/0003_loop.sql"),
    include_str!("../migrations/0004_session.sql"),
    include_str!("../migrations/0005_pipeline.sql"),
    include_str!("../migrations/0006_transcripts.sql"),
    include_str!("../migrations/0007_event_kinds.sql"),
    include_str!("../migrations/0008_sealed_evidence.sql"),
    include_str!("../migrations/0009_authenticated_state.sql"),
    include_str!("../migrations/0010_fleet.sql"),
    include_str!("../migrations/0011_parallel.sql"),
    include_str!("../migrations/0012_artifacts.sql"),
    include_str!("../migrations/0013_story_leases.sql"),
    include_str!("../migrations/0014_questions.sql"),
];

/// The schema version at which rows start to carry authentication codes (`mac.rs`).
const SIGNED_SCHEMA: usize = 9;

/// The schema version at which the stories of a parallel run (`story_work`) are signed.
const SIGNED_STORIES_SCHEMA: usize = 13;

/// How long a writer waits for another process's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Prepared statements kept per connection (see `Store::configure_sqlite`).
const STATEMENT_CACHE: usize = 256;
/// WAL frames after which a commit checkpoints (SQLite's default: 1,000). Every hook is a new
/// process, and the first connection to a database rebuilds the WAL's index by reading and
/// checksumming every frame since the last checkpoint: with 1,000 frames (4 MB; a Stop writes
/// about 25) a cached Stop spent 2.5 ms more CPU than with a WAL under 250 frames (main's build,
/// 80 Stops, load 41). A checkpoint every ~10 Stops instead of ~40 keeps that read under 1 MB.
const WAL_AUTOCHECKPOINT: i64 = 250;

/// Errors from the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the pawl database {path}: {source}")]
    Open { path: PathBuf, source: DbError },
    #[error(
        "the pawl database {path} was written by a newer pawl (schema {found}; this pawl knows up to {known}): upgrade pawl to use it"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("database error: {0}")]
    Db(#[from] DbError),
    #[error("no {what} `{id}`{hint}")]
    NotFound {
        what: &'static str,
        id: String,
        hint: String,
    },
    /// A rule refused the change; the message says why and what to do.
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Tdd(#[from] pawl_core::tdd::TddOrderError),
    #[error(transparent)]
    Story(#[from] pawl_core::model::StoryTransitionError),
    #[error(
        "run {run_id} is driven by another pawl process (pid {pid} on {host}, lease expires in {expires_in_s}s); stop it first (`pawl stop`) or wait for its lease to expire"
    )]
    LeaseHeld {
        run_id: String,
        pid: u32,
        host: String,
        expires_in_s: i64,
    },
    #[error("the lease on run {0} was lost to another process")]
    LeaseLost(String),
    /// A story of a parallel run is worked on by another live worker (`story_leases`).
    #[error(
        "story {story} of run {run_id} is worked on by another pawl worker (pid {pid} on {host}, its lease expires in {expires_in_s}s): it is not started twice"
    )]
    StoryLeaseHeld {
        run_id: String,
        story: String,
        pid: u32,
        host: String,
        expires_in_s: i64,
    },
    /// The worker's lease on a story was taken over (it expired): what it did is not recorded.
    #[error("the lease on story {story} of run {run_id} was lost to another worker")]
    StoryLeaseLost { run_id: String, story: String },
    #[error("corrupt value in the database: {0}")]
    Corrupt(String),
    #[error(
        "the pawl database {path} is signed with another key than this pawl's: pawl cannot check what it holds. Run pawl with the HOME (or XDG_STATE_HOME) of the pawl that started its runs — the key is in that user's pawl state directory"
    )]
    WrongKey { path: PathBuf },
    #[error(
        "the pawl database {path} is signed, and this pawl has no key to sign what it writes (no HOME or XDG_STATE_HOME): it only reads it"
    )]
    ReadOnly { path: PathBuf },
    /// A compare-and-set found the run at another version than the caller saw
    /// ([`Store::expect_version`]): nothing was written.
    #[error("run {run_id} changed: it is at version {current}, not {expected}")]
    Conflict {
        run_id: String,
        expected: i64,
        current: i64,
    },
    /// A fleet's budget has no room for another step: spent plus held by steps in flight would
    /// pass its cap. Nothing was written.
    #[error(
        "fleet {fleet}'s {what} budget has no room for another step: {detail}; the user raises it (`pawl fleet budget`)"
    )]
    FleetBudget {
        fleet: String,
        what: &'static str,
        detail: String,
    },
    /// Rows of a run failed their authentication check: something other than pawl changed,
    /// added or removed them. The value says which table, row and field.
    #[error("{0}")]
    Tampered(Tampering),
}

impl StoreError {
    /// The tampering this error reports, if it is one.
    pub fn tampering(&self) -> Option<&Tampering> {
        match self {
            StoreError::Tampered(t) => Some(t),
            _ => None,
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// A source of the current time, so tests can fix it.
pub trait Clock: Send {
    fn now_ms(&self) -> i64;
}

/// The system clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        jiff::Timestamp::now().as_millisecond()
    }
}

/// A handle on the store: `.pawl/pawl.db`, or a PostgreSQL database shared by a fleet.
pub struct Store {
    conn: Db,
    clock: Box<dyn Clock>,
    path: PathBuf,
    /// The key rows are authenticated with (`None`: nothing is signed or checked — tests and
    /// library users; the CLI always passes one, or refuses to drive a run).
    key: Option<[u8; 32]>,
    /// Opened without a key on a database that is signed: reads only.
    read_only: bool,
    /// The last run whose state checked clean, with the database's `data_version` then: until
    /// another connection commits, only this one wrote (signed, checked), so the check holds.
    checked: std::cell::RefCell<Option<(String, i64)>>,
    /// Who writes through this handle (`"dashboard"` for the daemon): added to the data of
    /// every event it appends.
    origin: Option<String>,
    /// The run and version the next write expects (a compare-and-set, `control.rs`).
    expect: Option<(String, i64)>,
    /// Which clone's runs this handle works on, and the fleet its new runs join (`fleet.rs`).
    scope: fleet::Scope,
    /// Inside [`Store::batch`]: each write is a savepoint of the batch's one transaction.
    batch: bool,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_with_clock(path, Box::new(SystemClock))
    }

    pub fn open_with_clock(path: &Path, clock: Box<dyn Clock>) -> Result<Store> {
        Store::open_with(path, clock, None)
    }

    /// Opens the database with the key that authenticates its rows (see `mac.rs`). The key is
    /// needed already while migrating: rows written before the store signed them are signed by
    /// the first keyed pawl that migrates the database (see migration 0009).
    pub fn open_keyed(path: &Path, key: [u8; 32]) -> Result<Store> {
        Store::open_with(path, Box::new(SystemClock), Some(key))
    }

    /// [`Store::open_keyed`] with a clock of the caller's (tests).
    pub fn open_with(path: &Path, clock: Box<dyn Clock>, key: Option<[u8; 32]>) -> Result<Store> {
        Store::open_at(&Location::File(path.to_path_buf()), clock, key)
    }

    /// Opens the store at `location`, a SQLite file or a PostgreSQL database, and brings its
    /// schema up to date (the same migrations on both: `db.rs`).
    pub fn open_at(
        location: &Location,
        clock: Box<dyn Clock>,
        key: Option<[u8; 32]>,
    ) -> Result<Store> {
        let path = location.display();
        let open_err = |source: DbError| StoreError::Open {
            path: path.clone(),
            source,
        };
        let conn = Db::open(location).map_err(open_err)?;
        if let Some(lite) = conn.sqlite_conn() {
            Store::configure_sqlite(lite).map_err(|e| open_err(e.into()))?;
        }
        let mut store = Store {
            conn,
            clock,
            path: path.clone(),
            key,
            read_only: false,
            checked: std::cell::RefCell::new(None),
            origin: None,
            expect: None,
            scope: fleet::Scope::default(),
            batch: false,
        };
        store.migrate()?;
        store.check_key()?;
        Ok(store)
    }

    fn configure_sqlite(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // Every statement is prepared once per connection (`Db::rows` asks the cache): a Stop
        // runs more distinct statements than rusqlite's default 16, and preparing one again
        // costs a parse of its SQL against the schema.
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        // WAL: readers never block the writer. NORMAL sync: a committed transaction is in the
        // WAL before the call returns, so it survives any crash of pawl (kill -9 included, which
        // the fault-injection test checks); only an OS crash or power loss can roll back the
        // last commits, never corrupt the database. FULL would fsync every commit, and the hook
        // path (several commits per Stop) must answer in milliseconds.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // Hooks open and close the store on every call: closing must not checkpoint the WAL
        // (two fsyncs, then the next call recreates the file). SQLite still checkpoints on its
        // own as the WAL grows; committed data is durable in the WAL either way.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )?;
        Ok(())
    }

    /// Whether this store is shared (PostgreSQL): many clones and machines write to it.
    pub fn is_shared(&self) -> bool {
        self.conn.is_postgres()
    }

    /// Which clone (`host:path`) this handle works for, and the fleet its new runs join. The
    /// clone scopes what "the current run" and "another open run" mean (one open run per clone,
    /// however many clones share the store; runs from before clones were recorded belong to
    /// every clone); every run is still found by its id.
    pub fn set_scope(&mut self, scope: Scope) {
        self.scope = scope;
    }

    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The filter of the runs this handle's clone owns (all of them without a scope).
    fn clone_filter(&self) -> (&'static str, Vec<db::Value>) {
        match &self.scope.clone {
            Some(clone) => (
                "(clone IS NULL OR clone = ?1)",
                vec![db::Value::Text(clone.clone())],
            ),
            _ => ("1 = 1", Vec::new()),
        }
    }

    /// The database's key fingerprint against ours: recorded on the first keyed open, another
    /// key is refused, and no key makes a signed database read-only.
    fn check_key(&mut self) -> Result<()> {
        let found: Option<String> = self
            .conn
            .query_row("SELECT fingerprint FROM store_key LIMIT 1", (), |r| {
                r.get(0)
            })
            .optional()?;
        match (&self.key, found) {
            (Some(key), None) => {
                self.conn.execute(
                    "INSERT INTO store_key (fingerprint) VALUES (?1)",
                    [mac::fingerprint(key)],
                )?;
            }
            (Some(key), Some(f)) if f != mac::fingerprint(key) => {
                return Err(StoreError::WrongKey {
                    path: self.path.clone(),
                });
            }
            (None, Some(_)) => self.read_only = true,
            _ => {}
        }
        Ok(())
    }

    /// Opened without a key on a signed database: what it reads is not checked, and it writes
    /// nothing.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Whether this store signs and checks its rows.
    pub fn is_keyed(&self) -> bool {
        self.key.is_some()
    }

    pub(crate) fn key(&self) -> Option<&[u8; 32]> {
        self.key.as_ref()
    }

    /// The schema version this pawl writes.
    pub fn known_schema() -> i64 {
        MIGRATIONS.len() as i64
    }

    /// The database's schema version.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(schema_version_of(&self.conn)?)
    }

    fn migrate(&mut self) -> Result<()> {
        let known = Store::known_schema();
        let found = self.schema_version()?;
        if found > known {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found,
                known,
            });
        }
        if found == known {
            return Ok(());
        }
        let tx = Guard::begin(&self.conn)?;
        if self.conn.is_postgres() {
            // PostgreSQL keeps the version in a table (SQLite in `PRAGMA user_version`).
            self.conn.execute_batch(
                "CREATE TABLE IF NOT EXISTS pawl_schema (version BIGINT NOT NULL);
                 INSERT INTO pawl_schema (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM pawl_schema);",
            )?;
        }
        // Re-read under the write lock: another process may have migrated meanwhile.
        let found = schema_version_of(&self.conn)?;
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
            let version = (i + 1) as i64;
            if self.conn.is_postgres() {
                self.conn.execute_batch(&db::pg_ddl(sql))?;
                self.conn
                    .execute("UPDATE pawl_schema SET version = ?1", [version])?;
            } else {
                self.conn.execute_batch(sql)?;
                self.conn
                    .execute_batch(&format!("PRAGMA user_version = {version}"))?;
            }
            if i + 1 == SIGNED_SCHEMA
                && let Some(key) = &self.key
            {
                // Rows written before pawl signed them are taken as they are, once, by the
                // pawl that migrates with the key (the same trust they had before).
                mac::sign_legacy(&self.conn, key)?;
            }
            if i + 1 == SIGNED_STORIES_SCHEMA
                && let Some(key) = &self.key
            {
                mac::sign_legacy_stories(&self.conn, key)?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// `PRAGMA integrity_check`: "ok" when the database is sound (PostgreSQL checks its own
    /// pages; a connection that answers is "ok").
    pub fn integrity_check(&self) -> Result<String> {
        if self.conn.is_postgres() {
            self.conn
                .query_row("SELECT 1", (), |r| r.get::<_, i64>(0))?;
            return Ok("ok".into());
        }
        let rows: Vec<String> = self
            .conn
            .prepare("PRAGMA integrity_check")?
            .query_map((), |r| r.get(0))?
            .collect::<db::DbResult<_>>()?;
        Ok(rows.join("\n"))
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Runs `f` in one immediate transaction; the events it appends commit with it. Inside a
    /// [`Store::batch`], in a savepoint of the batch's transaction instead: all of it or none of
    /// it, as alone.
    fn write<T>(&mut self, f: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        if self.read_only {
            return Err(StoreError::ReadOnly {
                path: self.path.clone(),
            });
        }
        let now = self.clock.now_ms();
        // A compare-and-set holds for the first write after it only (an action that writes
        // twice, like cancelling a tampered run, is checked once, before anything it writes).
        let expect = self.expect.take();
        let tx = if self.batch {
            self.conn.execute("SAVEPOINT pawl_write", ())?;
            None
        } else {
            Some(Guard::begin(&self.conn)?)
        };
        let out = self.write_in(now, expect, f);
        match (tx, &out) {
            (Some(tx), Ok(_)) => tx.commit()?,
            // Dropped: rolled back.
            (Some(_), Err(_)) => {}
            (None, Ok(_)) => {
                self.conn.execute("RELEASE pawl_write", ())?;
            }
            (None, Err(_)) => {
                let _ = self.conn.execute("ROLLBACK TO pawl_write", ());
                let _ = self.conn.execute("RELEASE pawl_write", ());
            }
        }
        out
    }

    /// The body of [`Store::write`], its transaction or savepoint begun.
    fn write_in<T>(
        &self,
        now: i64,
        expect: Option<(String, i64)>,
        f: impl FnOnce(&Tx<'_>) -> Result<T>,
    ) -> Result<T> {
        if let Some((run_id, expected)) = expect {
            let current = control::version_in(&self.conn, &run_id)?;
            if current != expected {
                return Err(StoreError::Conflict {
                    run_id,
                    expected,
                    current,
                });
            }
        }
        let t = Tx {
            tx: &self.conn,
            now,
            key: self.key,
            origin: self.origin.clone(),
            clean: self.clean_run(),
        };
        f(&t)
    }

    /// Runs `f` with every write it makes through this handle in one transaction (on SQLite:
    /// one commit, each page the writes touch written to the WAL once), each write still all or
    /// nothing as alone (a savepoint). What `f` wrote before an error it returns is committed, as
    /// it would have been without the batch; a panic rolls the whole batch back. The database's
    /// write lock is held until `f` returns: for a few writes that follow each other, never
    /// around a check or a git process. PostgreSQL, a nested batch or a read-only handle: `f`
    /// runs as it is.
    pub fn batch<T, E: From<StoreError>>(
        &mut self,
        f: impl FnOnce(&mut Store) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        if self.batch || self.read_only || self.conn.is_postgres() {
            return f(self);
        }
        self.conn
            .begin_write()
            .map_err(|e| E::from(StoreError::from(e)))?;
        self.batch = true;
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self)));
        self.batch = false;
        match out {
            Ok(out) => {
                self.conn
                    .commit()
                    .map_err(|e| E::from(StoreError::from(e)))?;
                out
            }
            Err(panic) => {
                let _ = self.conn.rollback();
                std::panic::resume_unwind(panic)
            }
        }
    }
}

/// The database's schema version: `PRAGMA user_version` on SQLite, `pawl_schema` on PostgreSQL.
fn schema_version_of(conn: &Db) -> db::DbResult<i64> {
    if !conn.is_postgres() {
        return conn.query_row("PRAGMA user_version", (), |r| r.get(0));
    }
    let exists: i64 = conn.query_row(
        "SELECT CAST(COUNT(*) AS BIGINT) FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_name = 'pawl_schema'",
        (),
        |r| r.get(0),
    )?;
    if exists == 0 {
        return Ok(0);
    }
    conn.query_row(
        "SELECT COALESCE(MAX(version), 0) FROM pawl_schema",
        (),
        |r| r.get(0),
    )
}

/// An open write transaction: rolled back unless committed (an error, a panic).
struct Guard<'a> {
    db: &'a Db,
    done: bool,
}

impl<'a> Guard<'a> {
    fn begin(db: &'a Db) -> db::DbResult<Guard<'a>> {
        db.begin_write()?;
        Ok(Guard { db, done: false })
    }

    fn commit(mut self) -> db::DbResult<()> {
        self.done = true;
        self.db.commit()
    }
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        if !self.done {
            // The connection is unusable for writes until this succeeds; a failure here
            // surfaces on the next statement.
            let _ = self.db.rollback();
        }
    }
}

/// A write transaction with the time it started.
pub(crate) struct Tx<'a> {
    tx: &'a Db,
    now: i64,
    key: Option<[u8; 32]>,
    origin: Option<String>,
    /// The run whose signed rows are known to be as pawl wrote them ([`Store::clean_run`]):
    /// they are not checked again before they change.
    clean: Option<String>,
}

impl Tx<'_> {
    /// Appends an event in this transaction: signed, and counted in its run's row.
    fn event(
        &self,
        run_id: Option<&str>,
        kind: EventKind,
        mut data: serde_json::Value,
    ) -> Result<i64> {
        if let (Some(origin), Some(map)) = (&self.origin, data.as_object_mut()) {
            map.insert("origin".into(), serde_json::Value::String(origin.clone()));
        }
        let seq = self.tx.insert(
            "INSERT INTO events (run_id, at, kind, data_json) VALUES (?1, ?2, ?3, ?4)",
            params![run_id, self.now, kind.as_str(), data.to_string()],
        )?;
        self.inserted(&mac::EVENTS, seq, run_id)?;
        Ok(seq)
    }

    fn next_seq(&self, table: &str, run_id: &str) -> Result<i64> {
        // `table` is always one of our own constants, never user input.
        let sql = format!("SELECT COALESCE(MAX(seq), 0) + 1 FROM {table} WHERE run_id = ?1");
        Ok(self.tx.query_row(&sql, [run_id], |r: &Row| r.get(0))?)
    }
}

impl std::ops::Deref for Tx<'_> {
    type Target = Db;
    fn deref(&self) -> &Db {
        self.tx
    }
}

/// Parses a stored enum spelling inside a row mapper.
fn parse_col<T: std::str::FromStr>(value: String, column: &str) -> db::DbResult<T>
where
    T::Err: std::fmt::Display,
{
    value.parse::<T>().map_err(|e| DbError::column(column, e))
}

fn json_col<T: serde::de::DeserializeOwned>(value: String, column: &str) -> db::DbResult<T> {
    serde_json::from_str(&value).map_err(|e| DbError::column(column, e))
}

trait OptionalNotFound<T> {
    fn or_not_found(self, what: &'static str, id: &str) -> Result<T>;
}

impl<T> OptionalNotFound<T> for db::DbResult<T> {
    fn or_not_found(self, what: &'static str, id: &str) -> Result<T> {
        self.optional()?.ok_or_else(|| StoreError::NotFound {
            what,
            id: id.to_string(),
            hint: String::new(),
        })
    }
}
