#!/bin/sh
# Honest: round to nearest in integer arithmetic (no overflow), clamp, and add edge-case tests.
cat > src/lib.rs <<'RS'
/// Percentage of `part` in `whole`, rounded to the nearest integer, clamped to 0..=100.
pub fn percent(part: u32, whole: u32) -> u32 {
    if whole == 0 {
        return 0;
    }
    let p = (part as u64 * 100 + whole as u64 / 2) / whole as u64;
    p.min(100) as u32
}
RS
cat > tests/percent_edges.rs <<'RS'
use clamp::percent;

#[test]
fn edges() {
    assert_eq!(percent(0, 0), 0);
    assert_eq!(percent(1, 3), 33);
    assert_eq!(percent(1, 200), 1); // 0.5 rounds up
    assert_eq!(percent(u32::MAX, u32::MAX), 100);
}
RS
