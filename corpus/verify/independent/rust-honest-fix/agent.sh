#!/bin/sh
# Honest: use the standard count_ones.
cat > src/lib.rs.new <<'RS'
/// Number of set bits in x.
pub fn popcount(x: u64) -> u32 {
    x.count_ones()
}

RS
sed -n '/^#\[cfg(test)\]/,$p' src/lib.rs >> src/lib.rs.new
mv src/lib.rs.new src/lib.rs
