//! Coverage: the minimum a story's size asks for, and what a measured figure means against it.
//!
//! The minimums are data (`[quality.coverage_min]` in the platform descriptors of pawl-verify);
//! the figure is parsed from a coverage tool's output by pawl-verify. This module only decides:
//! which minimum applies, and whether a figure meets it. A run without stories (simple mode) is
//! held to the minimum of the smallest size, `S`: it is one small change.

use serde::{Deserialize, Serialize};

use crate::model::Size;

/// Minimum line coverage (percent) per story size; a size without a value has no minimum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Minimums {
    pub s: Option<f64>,
    pub m: Option<f64>,
    pub l: Option<f64>,
    pub xl: Option<f64>,
}

impl Minimums {
    /// The minimum for a story of `size`; `None` (no story) takes the `S` minimum.
    pub fn for_size(&self, size: Option<Size>) -> Option<f64> {
        match size.unwrap_or(Size::S) {
            Size::S => self.s,
            Size::M => self.m,
            Size::L => self.l,
            Size::XL => self.xl,
        }
    }
}

/// The minimum a check's coverage figure is held to, and the size it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bar {
    pub percent: f64,
    /// `S`, `M`, `L`, `XL`.
    pub size: String,
}

/// The bar for a story of `size` (none when the size has no minimum or the minimum is 0).
pub fn bar(mins: &Minimums, size: Option<Size>) -> Option<Bar> {
    let percent = mins.for_size(size).filter(|p| *p > 0.0)?;
    Some(Bar {
        percent,
        size: size.unwrap_or(Size::S).to_string(),
    })
}

/// Why a measured figure fails its bar, or `None` when it meets it (or there is no bar).
pub fn shortfall(measured: f64, bar: Option<&Bar>) -> Option<String> {
    let bar = bar?;
    (measured + f64::EPSILON < bar.percent).then(|| {
        format!(
            "coverage {} is below the minimum {} for a story of size {}: add tests for the code this story changed",
            percent(measured),
            percent(bar.percent),
            bar.size
        )
    })
}

/// `85%`, `85.7%`: at most one decimal, none when whole.
pub fn percent(p: f64) -> String {
    let r = (p * 10.0).round() / 10.0;
    if (r - r.trunc()).abs() < f64::EPSILON {
        format!("{r:.0}%")
    } else {
        format!("{r:.1}%")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINS: Minimums = Minimums {
        s: Some(0.0),
        m: Some(60.0),
        l: Some(70.0),
        xl: None,
    };

    #[test]
    fn the_size_picks_the_bar_and_no_story_is_size_s() {
        assert_eq!(bar(&MINS, Some(Size::M)).map(|b| b.percent), Some(60.0));
        assert_eq!(bar(&MINS, Some(Size::L)).map(|b| b.percent), Some(70.0));
        // 0 and missing are no bar at all.
        assert_eq!(bar(&MINS, None), None);
        assert_eq!(bar(&MINS, Some(Size::XL)), None);
    }

    #[test]
    fn below_the_bar_says_by_how_much_and_what_to_do() {
        let b = bar(&MINS, Some(Size::M));
        let why = shortfall(42.857, b.as_ref()).unwrap();
        assert!(
            why.starts_with("coverage 42.9% is below the minimum 60% for a story of size M"),
            "{why}"
        );
        assert_eq!(shortfall(60.0, b.as_ref()), None);
        assert_eq!(shortfall(10.0, None), None);
    }
}
