//! Properties on hostile input: evaluation never panics, always returns,
//! and stays within a time bound on deeply nested and random input.

use std::time::{Duration, Instant};

use proptest::prelude::*;

use crate::support::decide;

/// Generous for debug builds on a loaded 2-core machine; release runs are
/// around a thousand times faster.
const BOUND: Duration = Duration::from_secs(3);

fn timed(command: &str) -> Duration {
    let start = Instant::now();
    let d = decide(command);
    let spent = start.elapsed();
    assert!(!d.reason.is_empty());
    spent
}

fn nest(depth: usize, open: &str, close: &str, core: &str) -> String {
    format!("{}{core}{}", open.repeat(depth), close.repeat(depth))
}

#[test]
fn deep_nesting_of_each_construct_is_bounded() {
    for depth in [1usize, 8, 23, 24, 25, 64, 1_000, 20_000] {
        for command in [
            nest(depth, "(", ")", "git push"),
            nest(depth, "{ ", "; }", "git push"),
            nest(depth, "$(", ")", "git push"),
            nest(depth, "if true; then ", "; fi", "git push"),
            nest(depth, "while true; do ", "; done", "git push"),
            nest(depth, "bash -c \"", "\"", "git push"),
            nest(depth, "eval ", "", "git push"),
            nest(depth, "sudo ", "", "git push"),
            nest(depth, "<(", ")", "git push"),
            nest(depth, "${X:-", "}", "x"),
            nest(depth, "[[ ", " ]]", "-n x"),
            nest(depth, "`", "`", "x"),
        ] {
            let spent = timed(&command);
            assert!(
                spent < BOUND,
                "{spent:?} for depth {depth}: {}",
                &command[..command.len().min(80)]
            );
        }
    }
}

#[test]
fn long_flat_inputs_are_bounded() {
    for command in [
        "echo a; ".repeat(7_000),
        "a | ".repeat(5_000) + "b",
        "x".repeat(64 * 1024),
        "'".repeat(10_000),
        "{a,b}".repeat(30),
        "f() { f; }; ".repeat(500) + "f",
        "alias a=b; alias b=a; a".into(),
        "X=$X$X; ".repeat(2_000),
    ] {
        let spent = timed(&command);
        assert!(
            spent < BOUND,
            "{spent:?} for {}",
            &command[..command.len().min(80)]
        );
    }
}

fn shellish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "git", "push", "rm", "-rf", "src", "bash", "-c", "'", "\"", "$(", ")", "`", "(", "{", "}",
        ";", "&&", "||", "|", "<<EOF\n", "\nEOF\n", "<<<", ">", ">>", "$X", "${X:-", "eval",
        "xargs", "find", "-exec", "\\;", "sudo", "env", "if", "then", "fi", "for", "do", "done",
        "case", "in", "esac", "\\", "\n", " ", "$'\\x72'", "{a,b}", "*", "alias", "f()", "python3",
        "-e", "=",
    ]);
    prop::collection::vec(atoms, 0..60).prop_map(|v| v.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_shellish_input_never_panics_and_is_bounded(command in shellish()) {
        let spent = timed(&command);
        prop_assert!(spent < BOUND, "{spent:?}");
    }

    #[test]
    fn arbitrary_unicode_never_panics(command in "\\PC{0,400}") {
        let spent = timed(&command);
        prop_assert!(spent < BOUND, "{spent:?}");
    }

    #[test]
    fn appending_a_push_is_never_allowed(prefix in "[a-z ;|&]{0,30}") {
        // Whatever harmless-looking prefix, a trailing push is caught
        // (or the whole input is refused).
        let command = format!("{prefix}\ngit push");
        prop_assert!(decide(&command).is_deny());
    }
}
