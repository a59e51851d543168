//! Inputs found by fuzzing, pinned.

use std::time::{Duration, Instant};

use crate::support::decide;

#[test]
fn fuzz_timeout_many_open_braces_in_one_word() {
    let input = "re d\0a\0\0t 1\0\0\0\0{{{{{{{{{{{{{{{{,'push.run([&git'\u{1}\0\0\0\0rktrg\u{1b}z\u{1b}ee src/";
    let start = Instant::now();
    let d = decide(input);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(!d.reason.is_empty());
}
