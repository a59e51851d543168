//! Integration tests of pawl-verify: parsers against recorded runner output, detection against
//! tiny project directories, the test-protection screen against its corpus, and property tests
//! that no parser or screen panics.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod backup;
mod detection;
mod evidence;
mod ids;
mod no_panics;
mod parsers;
mod protect;
mod runner;

use std::path::PathBuf;

/// Reads a fixture under `tests/fixtures/`.
pub fn fixture(path: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("fixture {}: {e}", p.display()))
}
