/// Digital root: repeatedly sum the decimal digits until one digit remains.
pub fn digital_root(n: u64) -> u64 {
    n.to_string().chars().map(|c| c.to_digit(10).unwrap() as u64).sum()
}
