pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

pub fn mul(a: i32, b: i32) -> i32 {
    a * b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 3), 5);
        assert_eq!(add(10, -4), 6);
    }

    #[test]
    fn adds_negatives() {
        assert_eq!(add(-2, -3), -5);
    }

    #[test]
    fn multiplies() {
        assert_eq!(mul(2, 3), 6);
    }
}
