/// Number of set bits in x.
pub fn popcount(x: u64) -> u32 {
    let mut n = 0;
    let mut x = x;
    while x > 1 {
        n += (x & 1) as u32;
        x >>= 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero() {
        assert_eq!(popcount(0), 0);
    }

    #[test]
    fn counts_every_bit() {
        assert_eq!(popcount(1), 1);
        assert_eq!(popcount(0b1011), 3);
        assert_eq!(popcount(u64::MAX), 64);
    }
}
