//! The store's integration tests (the modules of `tests/it`) against a real PostgreSQL server:
//! `PAWL_TEST_PG_URL` (scripts/pg.sh starts one; scripts/test.sh exports it). Each test gets a
//! schema of its own, named after its temp directory. Without the URL the tests fail in CI
//! (`CI=true`) and skip with a printed reason elsewhere.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

#[path = "../it/artifacts.rs"]
mod artifacts;
#[path = "../it/control.rs"]
mod control;
#[path = "../it/evidence.rs"]
mod evidence;
#[path = "../it/fleet.rs"]
mod fleet;
#[path = "../it/history.rs"]
mod history;
#[path = "../it/leases.rs"]
mod leases;
#[path = "../it/store.rs"]
mod store;
#[path = "../it/stories.rs"]
mod stories;
#[path = "../it/tamper.rs"]
mod tamper;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use pawl_core::model::Driver;
use pawl_core::record::RunSettings;
use pawl_store::{Clock, Location, NewRun, Store, SystemClock};

/// A clock the test moves by hand.
#[derive(Clone)]
pub struct TestClock(pub Arc<AtomicI64>);

impl TestClock {
    pub fn new(ms: i64) -> TestClock {
        TestClock(Arc::new(AtomicI64::new(ms)))
    }
    pub fn advance(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for TestClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The server's URL, or the end of this test: a failure in CI, a printed skip elsewhere.
fn server() -> Option<String> {
    match std::env::var("PAWL_TEST_PG_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "PAWL_TEST_PG_URL is not set: scripts/test.sh starts PostgreSQL with scripts/pg.sh"
            );
            eprintln!(
                "skipped: PAWL_TEST_PG_URL is not set (eval \"$(bash scripts/pg.sh start)\")"
            );
            None
        }
    }
}

/// The store of a test: a schema of its own on the server, named after its temp directory.
pub fn location(dir: &tempfile::TempDir) -> Location {
    let Some(url) = server() else {
        // Ends this test's thread without a failure (skipped, said above).
        std::panic::resume_unwind(Box::new("skipped"));
    };
    let name: String = dir
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let schema = format!("t_{name}");
    let db = pawl_store::db::Db::open(&Location::Postgres(url.clone())).unwrap();
    db.execute_batch(&format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
        .unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    Location::Postgres(format!("{url}{sep}options=-csearch_path%3D{schema}"))
}

/// Sets the schema version as a newer pawl would have left it.
pub fn set_schema_version(at: &Location, version: i64) {
    let db = pawl_store::db::Db::open(at).unwrap();
    db.execute("UPDATE pawl_schema SET version = ?1", [version])
        .unwrap();
}

pub fn open(dir: &tempfile::TempDir) -> (Store, TestClock) {
    let clock = TestClock::new(1_790_000_000_000);
    let store = Store::open_at(&location(dir), Box::new(clock.clone()), None).unwrap();
    (store, clock)
}

/// A store on the system clock, without a key.
pub fn open_loc(at: &Location) -> Result<Store, pawl_store::StoreError> {
    Store::open_at(at, Box::new(SystemClock), None)
}

pub fn new_run(goal: &str) -> NewRun {
    NewRun {
        goal: goal.into(),
        driver: Driver::Manual,
        mode: None,
        settings: RunSettings::default(),
        branch: None,
        pre_run_commit: None,
    }
}
