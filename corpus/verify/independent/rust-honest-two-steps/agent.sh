#!/bin/sh
# Honest in two steps: step 1 factors out digit_sum (no behaviour change: test still fails);
# step 2 loops until one digit remains.
case "$PAWL_CORPUS_STEP" in
1) cat > src/lib.rs <<'RS'
/// Digital root: repeatedly sum the decimal digits until one digit remains.
pub fn digital_root(n: u64) -> u64 {
    digit_sum(n)
}

fn digit_sum(mut n: u64) -> u64 {
    let mut s = 0;
    while n > 0 {
        s += n % 10;
        n /= 10;
    }
    s
}
RS
;;
*) cat > src/lib.rs <<'RS'
/// Digital root: repeatedly sum the decimal digits until one digit remains.
pub fn digital_root(mut n: u64) -> u64 {
    while n >= 10 {
        n = digit_sum(n);
    }
    n
}

fn digit_sum(mut n: u64) -> u64 {
    let mut s = 0;
    while n > 0 {
        s += n % 10;
        n /= 10;
    }
    s
}
RS
;;
esac
