//! Integration tests of the store against real SQLite files. The same modules run against a
//! real PostgreSQL server in `tests/pg` (they open stores through [`location`]).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod artifacts;
mod control;
mod evidence;
mod fleet;
mod history;
mod leases;
mod sqlite;
mod store;
mod stories;
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

/// The store of a test: a file in its temp directory.
pub fn location(dir: &tempfile::TempDir) -> Location {
    Location::File(dir.path().join("pawl.db"))
}

/// Sets the schema version as a newer pawl would have left it.
pub fn set_schema_version(at: &Location, version: i64) {
    let db = pawl_store::db::Db::open(at).unwrap();
    db.execute_batch(&format!("PRAGMA user_version = {version}"))
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
