/// Metres to kilometres.
pub fn m_to_km(m: f64) -> f64 {
    m / 1000.0
}

/// Imperial conversions, behind the `imperial` feature.
#[cfg(feature = "imperial")]
pub mod imperial {
    /// Miles to kilometres.
    pub fn miles_to_km(mi: f64) -> f64 {
        mi * 1.609344
    }
}
