/// Day of the year (1-based) for a Gregorian date.
pub fn day_of_year(year: i32, month: u32, day: u32) -> u32 {
    (month - 1) * 30 + day
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn january() {
        assert_eq!(day_of_year(2023, 1, 17), 17);
    }

    #[test]
    fn later_months() {
        assert_eq!(day_of_year(2023, 3, 1), 60);
        assert_eq!(day_of_year(2024, 3, 1), 61);
        assert_eq!(day_of_year(2023, 12, 31), 365);
    }
}
