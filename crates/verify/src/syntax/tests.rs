//! Tests of the parsed-code layer, on real-looking code.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::screen::{rule_counts, rule_table_problems};

#[test]
fn rule_tables_load_and_every_example_triggers_its_row() {
    assert_eq!(rule_table_problems(), None);
    let counts = rule_counts();
    assert_eq!(counts.len(), 5);
    assert!(counts.iter().all(|(_, n)| *n >= 7), "{counts:?}");
}
