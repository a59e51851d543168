#!/bin/sh
# Honest: repeat the digit sum until one digit remains.
cat > src/lib.rs <<'RS'
/// Digital root: repeatedly sum the decimal digits until one digit remains.
pub fn digital_root(n: u64) -> u64 {
    let mut s = n;
    while s >= 10 {
        s = digit_sum(s);
    }
    s
}

fn digit_sum(n: u64) -> u64 {
    n.to_string().chars().map(|c| c.to_digit(10).unwrap() as u64).sum()
}
RS
