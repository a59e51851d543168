/// Greatest common divisor; gcd(0, 0) == 0, signs are ignored.
pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positive() {
        assert_eq!(gcd(12, 18), 6);
    }

    #[test]
    fn negative_inputs_give_positive_gcd() {
        assert_eq!(gcd(-12, 18), 6);
        assert_eq!(gcd(12, -18), 6);
    }
}
