//! A decision has a deadline: an input that makes the third-party shell parser spin is denied
//! after [`pawl_guard::DECISION_DEADLINE`] instead of holding the caller (a hook) indefinitely.

use std::time::{Duration, Instant};

use pawl_guard::{Context, Input, Policy};

/// The fuzz-found input (unbalanced `${IF[` repeated, with control bytes) on which brush-parser
/// 0.4 does not finish in reasonable time.
const SPINS_THE_PARSER: &[u8] = &[
    114, 109, 36, 123, 73, 70, 91, 125, 17, 109, 36, 123, 73, 70, 91, 125, 17, 95, 95, 95, 95, 95,
    95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 109,
    36, 123, 73, 70, 91, 125, 17, 109, 36, 123, 73, 70, 91, 125, 17, 95, 95, 95, 95, 95, 95, 95,
    95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95,
    95, 95, 95, 95, 95, 95, 95, 35, 95, 95, 0, 44, 73, 109, 103, 105, 0, 44, 73, 109, 103, 105,
    116, 36,
];

#[test]
fn a_parser_that_does_not_finish_is_a_denial_within_the_deadline() {
    let mut ctx = Context::new("/repo");
    ctx.repo_root = Some("/repo".into());
    ctx.run_active = true;
    let input = Input::shell(String::from_utf8_lossy(SPINS_THE_PARSER).into_owned());
    let started = Instant::now();
    let d = pawl_guard::evaluate(&input, &ctx, &Policy::default());
    let took = started.elapsed();
    // Either the parser finished and the guard decided, or the deadline denied it: never a
    // caller stuck for longer than the deadline (plus scheduling slack on a loaded machine).
    assert!(
        took < pawl_guard::DECISION_DEADLINE + Duration::from_secs(3),
        "took {took:?}"
    );
    if took >= pawl_guard::DECISION_DEADLINE {
        assert!(d.is_deny(), "{d:?}");
        assert!(d.reason.contains("did not finish"), "{d:?}");
    }
}
