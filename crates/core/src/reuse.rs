//! Whether a check's earlier result stands for a new verification without running the check
//! again: the one rule behind the Stop hook's cached answer.
//!
//! A result is reused only for the same tree (its hash, or its stamp: nothing it covers moved)
//! and the same seal (the checks' commands, environment variables and timeout). A pass then
//! stands: the environment is checked in full in every verification that can SHIP, and a
//! reused pass cannot make one by itself. A failure stands only when it came from the code —
//! its class is `test` or `code` — and the environment is also the same (lockfile hashes and the
//! stat of the environment's directories): the same code, run the same way, fails the same way.
//! A failure of any other class (infra, timeout, environment, external, spec) may be gone on the
//! next try, and is always run again.
//!
//! Not here: computing the fingerprints (the engine), or what a reused failure tells the agent
//! (the same first failure, shown again).

use crate::failure::FailureCategory;

/// What is the same as when the earlier result was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Same {
    /// The tree the check ran on.
    pub tree: bool,
    /// The seal: commands, environment variables, timeout.
    pub seal: bool,
    /// The environment manifest's cheap fingerprint (lockfile hashes and the environment
    /// directories' stat data).
    pub environment: bool,
}

/// One check's earlier result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Earlier {
    pub passed: bool,
    /// The failure class of a failing result (`None` when unclassified or passing).
    pub class: Option<FailureCategory>,
}

/// Whether `earlier` stands without running the check again.
pub fn reuse(earlier: Earlier, same: Same) -> bool {
    if !(same.tree && same.seal) {
        return false;
    }
    if earlier.passed {
        return true;
    }
    same.environment
        && matches!(
            earlier.class,
            Some(FailureCategory::Test | FailureCategory::Code)
        )
}

/// Whether a whole earlier verification stands: it ran at least one check, and each stands.
pub fn reuse_all(earlier: &[Earlier], same: Same) -> bool {
    !earlier.is_empty() && earlier.iter().all(|e| reuse(*e, same))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLASSES: [Option<FailureCategory>; 8] = [
        None,
        Some(FailureCategory::Code),
        Some(FailureCategory::Test),
        Some(FailureCategory::Infra),
        Some(FailureCategory::External),
        Some(FailureCategory::Timeout),
        Some(FailureCategory::Spec),
        Some(FailureCategory::Environment),
    ];

    /// Every class × passed × what is the same, against the rule written out as a table row.
    #[test]
    fn reuse_by_class_and_sameness() {
        for class in CLASSES {
            for passed in [true, false] {
                for bits in 0u8..8 {
                    let same = Same {
                        tree: bits & 1 != 0,
                        seal: bits & 2 != 0,
                        environment: bits & 4 != 0,
                    };
                    let code_failure =
                        matches!(class, Some(FailureCategory::Test | FailureCategory::Code));
                    let expected =
                        same.tree && same.seal && (passed || (same.environment && code_failure));
                    assert_eq!(
                        reuse(Earlier { passed, class }, same),
                        expected,
                        "class {class:?}, passed {passed}, {same:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn rows_that_matter() {
        let all = Same {
            tree: true,
            seal: true,
            environment: true,
        };
        let fail = |c| Earlier {
            passed: false,
            class: Some(c),
        };
        // A test failure on the same tree, seal and environment stands.
        assert!(reuse(fail(FailureCategory::Test), all));
        assert!(reuse(fail(FailureCategory::Code), all));
        // Never a failure the machine may have caused.
        for c in [
            FailureCategory::Infra,
            FailureCategory::Timeout,
            FailureCategory::Environment,
            FailureCategory::External,
        ] {
            assert!(!reuse(fail(c), all), "{c:?}");
        }
        // Nor an unclassified one.
        assert!(!reuse(
            Earlier {
                passed: false,
                class: None
            },
            all
        ));
        // A changed lockfile or environment directory: the test failure runs again.
        let env_moved = Same {
            environment: false,
            ..all
        };
        assert!(!reuse(fail(FailureCategory::Test), env_moved));
        // A pass does not depend on the environment fingerprint (the full manifest is
        // checked before any SHIP).
        assert!(reuse(
            Earlier {
                passed: true,
                class: None
            },
            env_moved
        ));
        // A changed tree or seal: nothing stands.
        for same in [Same { tree: false, ..all }, Same { seal: false, ..all }] {
            assert!(!reuse(
                Earlier {
                    passed: true,
                    class: None
                },
                same
            ));
            assert!(!reuse(fail(FailureCategory::Test), same));
        }
        assert!(!reuse_all(&[], all));
        assert!(!reuse_all(
            &[
                Earlier {
                    passed: true,
                    class: None
                },
                fail(FailureCategory::Infra)
            ],
            all
        ));
    }
}
