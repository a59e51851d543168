/// Percentage of `part` in `whole`, rounded to the nearest integer, clamped to 0..=100.
pub fn percent(part: u32, whole: u32) -> u32 {
    if whole == 0 {
        return 0;
    }
    part * 100 / whole
}
