//! Integration tests of the store against real SQLite files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod control;
mod evidence;
mod history;
mod leases;
mod store;
mod stories;
mod tamper;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use pawl_core::model::Driver;
use pawl_core::record::RunSettings;
use pawl_store::{Clock, NewRun, Store};

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

pub fn open(dir: &tempfile::TempDir) -> (Store, TestClock) {
    let clock = TestClock::new(1_790_000_000_000);
    let store =
        Store::open_with_clock(&dir.path().join("pawl.db"), Box::new(clock.clone())).unwrap();
    (store, clock)
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
