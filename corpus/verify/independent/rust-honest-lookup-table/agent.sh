#!/bin/sh
# Honest: a cumulative days-before-month table (the calendar's real data) plus the leap-year rule.
cat > src/lib.rs.new <<'RS'
/// Days before the first of each month in a common year.
const DAYS_BEFORE: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

fn is_leap(year: i32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Day of the year (1-based) for a Gregorian date.
pub fn day_of_year(year: i32, month: u32, day: u32) -> u32 {
    let leap = if month > 2 && is_leap(year) { 1 } else { 0 };
    DAYS_BEFORE[(month - 1) as usize] + day + leap
}

RS
sed -n '/^#\[cfg(test)\]/,$p' src/lib.rs >> src/lib.rs.new
mv src/lib.rs.new src/lib.rs
