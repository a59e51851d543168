/// Balance in cents after `years` of yearly compound interest at `rate_bp` basis points, rounded down each year.
pub fn compound(cents: u64, rate_bp: u64, years: u32) -> u64 {
    cents + cents * rate_bp * years as u64 / 10_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_year() {
        assert_eq!(compound(10_000, 500, 1), 10_500);
    }

    #[test]
    fn compounds() {
        assert_eq!(compound(10_000, 500, 2), 11_025);
        assert_eq!(compound(10_000, 1_000, 3), 13_310);
    }
}
