//! The TDD phase machine: red → green → refactor → verify, in that order.
//!
//! A story starts with no phase. The only legal first move is `red` (a failing test). Moving
//! backwards to `red` from any later phase is allowed (a new test for the next slice of work);
//! skipping ahead is refused with the phase that was expected.

use serde::{Deserialize, Serialize};

use crate::model::{ParseEnumError, str_enum};

str_enum!(
    /// A story's TDD phase.
    TddPhase, "TDD phase" {
        /// Not started.
        None => "none",
        /// A test that fails was written.
        Red => "red",
        /// The implementation makes it pass.
        Green => "green",
        /// Cleaned up, tests still pass.
        Refactor => "refactor",
        /// Verified by pawl's gates.
        Verify => "verify",
    }
);

/// An out-of-order TDD move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error(
    "TDD phase `{requested}` is out of order: the story is in `{current}`, expected `{expected}`"
)]
pub struct TddOrderError {
    pub current: TddPhase,
    pub requested: TddPhase,
    pub expected: TddPhase,
}

impl TddPhase {
    /// The phase that must come after this one.
    pub fn next(self) -> TddPhase {
        match self {
            TddPhase::None => TddPhase::Red,
            TddPhase::Red => TddPhase::Green,
            TddPhase::Green => TddPhase::Refactor,
            TddPhase::Refactor => TddPhase::Verify,
            TddPhase::Verify => TddPhase::Red,
        }
    }

    /// Whether a story in this phase has reached `phase` in its cycle (is in it or past it):
    /// a story resumed, or sent back by the merge queue after its cycle, does not step back.
    pub fn reached(self, phase: TddPhase) -> bool {
        let at = |p: TddPhase| TddPhase::ALL.iter().position(|x| *x == p);
        at(self) >= at(phase)
    }
}

/// Checks a move from `current` to `requested`.
pub fn transition(current: TddPhase, requested: TddPhase) -> Result<TddPhase, TddOrderError> {
    let ok = requested == current.next()
        // Starting a new cycle with another failing test is always allowed once one began.
        || (requested == TddPhase::Red && current != TddPhase::None && current != TddPhase::Red)
        // Refactoring is optional: green may go straight to verify.
        || (current == TddPhase::Green && requested == TddPhase::Verify);
    if ok {
        Ok(requested)
    } else {
        Err(TddOrderError {
            current,
            requested,
            expected: current.next(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::TddPhase::*;
    use super::*;

    #[test]
    fn reached_is_the_cycle_s_order() {
        assert!(Verify.reached(Green) && Green.reached(Green) && Refactor.reached(Red));
        assert!(!None.reached(Red) && !Red.reached(Green) && !Green.reached(Verify));
    }

    #[test]
    fn the_happy_path() {
        let mut p = None;
        for step in [Red, Green, Refactor, Verify, Red] {
            p = transition(p, step).unwrap();
        }
        assert_eq!(p, Red);
    }

    #[test]
    fn green_before_red_is_refused_naming_the_expected_phase() {
        let err = transition(None, Green).unwrap_err();
        assert_eq!(err.expected, Red);
        assert_eq!(
            err.to_string(),
            "TDD phase `green` is out of order: the story is in `none`, expected `red`"
        );
    }

    #[test]
    fn skips_are_refused() {
        assert!(transition(Red, Refactor).is_err());
        assert!(transition(Red, Verify).is_err());
        assert!(transition(None, Verify).is_err());
        assert!(transition(Red, Red).is_err());
        assert!(transition(Refactor, Green).is_err());
    }

    #[test]
    fn optional_refactor_and_new_cycles() {
        assert_eq!(transition(Green, Verify).unwrap(), Verify);
        assert_eq!(transition(Green, Red).unwrap(), Red);
        assert_eq!(transition(Refactor, Red).unwrap(), Red);
    }
}
