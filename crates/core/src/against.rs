//! Judged against the baseline: a check that failed before the run and that the goal does not
//! target passes when it is no worse — its failure items after the run are the same as before,
//! or a subset. Items are matched by tool, rule, file, message and count, never by line number,
//! so a fix that moves lines does not fail; a new item (or one more of the same) blocks.
//!
//! What this is not: reading the items out of a tool's output (pawl-verify's `parse::items`),
//! deciding which failures the goal targets (`spec::facts`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The rule of an item that stands for a whole file: a formatter's "this file would be
/// reformatted" (`ruff format --check`, `black --check`, `prettier --check`, `cargo fmt
/// --check`). Such an item says nothing about which lines are at fault, so in a file the run
/// changed it cannot be shown to be the same as before: it counts as new there. In a file the
/// run did not touch it is pre-existing like any other item.
pub const WHOLE_FILE: &str = "unformatted";

/// One thing a check reported as wrong: a lint warning, a type error, a failing test.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FailureItem {
    /// `clippy`, `rustc`, `eslint`, `ruff`, `mypy`, `pyright`, `tsc`, `tests`.
    pub tool: String,
    /// `clippy::needless_return`, `F401`, `no-unused-vars`, `TS2322`, `failed` (a test).
    pub rule: String,
    /// Relative path as the tool printed it (empty when it named none).
    pub file: String,
    /// The message, or the test's id.
    pub message: String,
}

impl FailureItem {
    /// `clippy clippy::needless_return src/lib.rs: unneeded `return` statement`.
    pub fn line(&self) -> String {
        let file = if self.file.is_empty() {
            String::new()
        } else {
            format!(" {}", self.file)
        };
        format!("{} {}{file}: {}", self.tool, self.rule, self.message)
    }
}

/// How a baseline-failing check compares with its baseline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "judgement", rename_all = "snake_case")]
pub enum Judgement {
    /// The same items or fewer: passes as no worse. `kept` are the pre-existing items still
    /// there, `gone` the ones fixed.
    NoWorse {
        before: usize,
        kept: Vec<FailureItem>,
        gone: usize,
    },
    /// Items the baseline did not have (or more of one), targeted items still failing, and
    /// whole-file items ([`WHOLE_FILE`]) in files the run changed.
    Worse {
        new: Vec<FailureItem>,
        targeted: Vec<FailureItem>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        touched: Vec<FailureItem>,
    },
    /// The items could not be read on one side: it cannot be compared, so it fails.
    Unknown,
}

impl Judgement {
    pub fn passes(&self) -> bool {
        matches!(self, Judgement::NoWorse { .. })
    }

    /// `lint (ruff): 3 pre-existing item(s) before, the same 3 after` / `… 2 before, 1 after
    /// (1 fixed)`: the check, the tools that reported the items still there (when they are not
    /// the check's own name), before and after.
    pub fn describe(&self, check: &str) -> String {
        match self {
            Judgement::NoWorse { before, kept, gone } => {
                let mut tools: Vec<&str> = kept.iter().map(|i| i.tool.as_str()).collect();
                tools.sort_unstable();
                tools.dedup();
                let name = if tools.is_empty() || tools == [check] {
                    check.to_string()
                } else {
                    format!("{check} ({})", tools.join(", "))
                };
                if *gone == 0 {
                    format!(
                        "{name}: {before} pre-existing item(s) before, the same {} after",
                        kept.len()
                    )
                } else {
                    format!(
                        "{name}: {before} pre-existing item(s) before, {} after ({gone} fixed)",
                        kept.len()
                    )
                }
            }
            Judgement::Worse {
                new,
                targeted,
                touched,
            } => {
                let mut parts = Vec::new();
                if !touched.is_empty() {
                    parts.push(format!(
                        "{} file(s) the run changed are reported as a whole: {}",
                        touched.len(),
                        touched
                            .iter()
                            .take(3)
                            .map(FailureItem::line)
                            .collect::<Vec<_>>()
                            .join("; ")
                    ));
                }
                if !new.is_empty() {
                    parts.push(format!(
                        "{} new item(s): {}",
                        new.len(),
                        new.iter()
                            .take(3)
                            .map(FailureItem::line)
                            .collect::<Vec<_>>()
                            .join("; ")
                    ));
                }
                if !targeted.is_empty() {
                    parts.push(format!(
                        "{} targeted item(s) still failing: {}",
                        targeted.len(),
                        targeted
                            .iter()
                            .take(3)
                            .map(FailureItem::line)
                            .collect::<Vec<_>>()
                            .join("; ")
                    ));
                }
                format!("{check}: worse than at the baseline — {}", parts.join("; "))
            }
            Judgement::Unknown => format!(
                "{check}: failed at the baseline, and its output could not be read into items to compare"
            ),
        }
    }
}

fn counts(items: &[FailureItem]) -> BTreeMap<&FailureItem, usize> {
    let mut m = BTreeMap::new();
    for i in items {
        *m.entry(i).or_insert(0) += 1;
    }
    m
}

/// The rule: `after` must hold no item `before` did not, no more of any item than `before`
/// did, none that `targeted` says the goal targets, and no whole-file item ([`WHOLE_FILE`]) in
/// a file `changed` says the run changed. `None` on either side (output that no parser read)
/// is [`Judgement::Unknown`].
pub fn judge(
    before: Option<&[FailureItem]>,
    after: Option<&[FailureItem]>,
    targeted: &dyn Fn(&FailureItem) -> bool,
    changed: &dyn Fn(&str) -> bool,
) -> Judgement {
    let (Some(before), Some(after)) = (before, after) else {
        return Judgement::Unknown;
    };
    // A failing check with no item read cannot be told apart from one whose output changed
    // shape: it is not compared.
    if after.is_empty() && before.is_empty() {
        return Judgement::Unknown;
    }
    let b = counts(before);
    let a = counts(after);
    let mut new = Vec::new();
    let mut targeted_left = Vec::new();
    let mut kept = Vec::new();
    let mut touched = Vec::new();
    for (item, n) in &a {
        let was = b.get(item).copied().unwrap_or(0);
        for _ in was..*n {
            new.push((*item).clone());
        }
        if item.rule == WHOLE_FILE && was > 0 && changed(&item.file) {
            touched.push((*item).clone());
        } else if targeted(item) {
            targeted_left.push((*item).clone());
        } else {
            for _ in 0..(*n).min(was) {
                kept.push((*item).clone());
            }
        }
    }
    if !new.is_empty() || !targeted_left.is_empty() || !touched.is_empty() {
        return Judgement::Worse {
            new,
            targeted: targeted_left,
            touched,
        };
    }
    Judgement::NoWorse {
        before: before.len(),
        gone: before.len().saturating_sub(kept.len()),
        kept,
    }
}

/// How re-checking a finished run ends (`pawl verify --run <id>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecheckVerdict {
    /// The run ended done, and its sealed checks hold again on its final tree: each passes, or
    /// is no worse than at the baseline, as the verification judged it.
    Confirmed,
    /// The run ended done, but a sealed check fails on its final tree and is not no worse.
    FalseDone,
    /// The re-check could not be made, or there is no "done" to confirm.
    Unverifiable,
}

/// One sealed check as a re-check saw it.
#[derive(Debug, Clone)]
pub struct Rechecked<'a> {
    pub name: &'a str,
    pub passed: bool,
    /// A failed check that failed at the baseline too (both by exiting): its judgement against
    /// the baseline ([`judge`]). `None`: it passed at the baseline, or did not end by exiting.
    pub against: Option<&'a Judgement>,
}

/// The re-check's rule is the verification's: a sealed check holds when it passes, or when it
/// failed at the baseline and is no worse now (the same items or fewer). A done run whose
/// checks all hold is confirmed; one with a check that does not is a false "done". The reason
/// names the checks kept as no worse, or those that fail now (with what is worse).
pub fn recheck(
    done: bool,
    status: &str,
    tree: &str,
    checks: &[Rechecked<'_>],
) -> (RecheckVerdict, String) {
    if !done {
        return (
            RecheckVerdict::Unverifiable,
            format!("the run did not end done (status {status}): there is no \"done\" to confirm"),
        );
    }
    let mut kept = Vec::new();
    let mut failing = Vec::new();
    for c in checks.iter().filter(|c| !c.passed) {
        match c.against {
            Some(j) if j.passes() => kept.push(j.describe(c.name)),
            Some(j) => failing.push(j.describe(c.name)),
            None => failing.push(c.name.to_owned()),
        }
    }
    if !failing.is_empty() {
        return (
            RecheckVerdict::FalseDone,
            format!(
                "the run ended done, but on its final tree these fail now: {}",
                failing.join(", ")
            ),
        );
    }
    let mut why = format!("every sealed check passes again on tree {tree}");
    if !kept.is_empty() {
        why = format!(
            "every sealed check holds again on tree {tree} (passes, or is no worse than at the baseline: {})",
            kept.join("; ")
        );
    }
    (RecheckVerdict::Confirmed, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(code: &str) -> FailureItem {
        // `rule@file#message`
        let (rule, rest) = code.split_once('@').unwrap_or((code, ""));
        let (file, message) = rest.split_once('#').unwrap_or((rest, ""));
        FailureItem {
            tool: "clippy".into(),
            rule: rule.into(),
            file: file.into(),
            message: message.into(),
        }
    }

    fn items(codes: &str) -> Vec<FailureItem> {
        codes.split_whitespace().map(item).collect()
    }

    /// (before, after, targeted rule or "", passes, kept).
    const ROWS: &[(&str, &str, &str, bool, usize)] = &[
        // The same three after: no worse.
        ("a@x#m b@x#m c@y#m", "a@x#m b@x#m c@y#m", "", true, 3),
        // A subset: one fixed.
        ("a@x#m b@x#m c@y#m", "a@x#m c@y#m", "", true, 2),
        // In another order (lines moved: no line numbers in items).
        ("a@x#m b@x#m", "b@x#m a@x#m", "", true, 2),
        // A new item blocks.
        ("a@x#m", "a@x#m d@x#m", "", false, 0),
        // One more of the same blocks (count).
        ("a@x#m", "a@x#m a@x#m", "", false, 0),
        // Same rule, another file: new.
        ("a@x#m", "a@z#m", "", false, 0),
        // Same rule and file, another message: new.
        ("a@x#m", "a@x#n", "", false, 0),
        // A targeted item still there blocks.
        ("a@x#m b@x#m", "a@x#m b@x#m", "b", false, 0),
        // Targeted and fixed: passes, the rest kept.
        ("a@x#m b@x#m", "a@x#m", "b", true, 1),
    ];

    #[test]
    fn no_worse_than_the_baseline() {
        for (before, after, targeted, passes, kept) in ROWS {
            let b = items(before);
            let a = items(after);
            let j = judge(
                Some(&b),
                Some(&a),
                &|i: &FailureItem| i.rule == *targeted,
                &|_| false,
            );
            assert_eq!(j.passes(), *passes, "{before} -> {after}: {j:?}");
            if let Judgement::NoWorse { kept: k, .. } = &j {
                assert_eq!(k.len(), *kept, "{before} -> {after}: {j:?}");
            }
        }
    }

    /// A formatter's item stands for a whole file: kept where the run did not touch the file,
    /// blocking where it did (the file may hide new unformatted code under the same item).
    #[test]
    fn a_whole_file_item_in_a_changed_file_is_not_no_worse() {
        let fmt = |file: &str| FailureItem {
            tool: "black".into(),
            rule: WHOLE_FILE.into(),
            file: file.into(),
            message: "would reformat".into(),
        };
        let before = vec![fmt("old.py"), fmt("calc.py")];
        let changed = |f: &str| f == "calc.py" || f == "new.py";
        // The run changed calc.py (unformatted before and after): blocks.
        let j = judge(Some(&before), Some(&before), &|_| false, &changed);
        assert!(
            matches!(&j, Judgement::Worse { touched, new, .. } if touched == &[fmt("calc.py")] && new.is_empty()),
            "{j:?}"
        );
        assert!(
            j.describe("fmt").contains("black unformatted calc.py"),
            "{}",
            j.describe("fmt")
        );
        // calc.py formatted by the run: old.py, untouched, is pre-existing.
        let j = judge(Some(&before), Some(&before[..1]), &|_| false, &changed);
        assert_eq!(
            j.describe("fmt"),
            "fmt (black): 2 pre-existing item(s) before, 1 after (1 fixed)"
        );
        // A file formatted before and left unformatted: new.
        let j = judge(
            Some(&before[..1]),
            Some(&[fmt("old.py"), fmt("new.py")]),
            &|_| false,
            &changed,
        );
        assert!(
            matches!(&j, Judgement::Worse { new, .. } if new == &[fmt("new.py")]),
            "{j:?}"
        );
        // Any other item in a changed file is compared as usual.
        let lint = item("a@calc.py#m");
        let j = judge(
            Some(std::slice::from_ref(&lint)),
            Some(std::slice::from_ref(&lint)),
            &|_| false,
            &changed,
        );
        assert!(j.passes(), "{j:?}");
    }

    #[test]
    fn unread_output_is_never_no_worse() {
        let b = items("a@x#m");
        assert_eq!(
            judge(None, Some(&b), &|_| false, &|_| false),
            Judgement::Unknown
        );
        assert_eq!(
            judge(Some(&b), None, &|_| false, &|_| false),
            Judgement::Unknown
        );
        assert_eq!(
            judge(Some(&[]), Some(&[]), &|_| false, &|_| false),
            Judgement::Unknown
        );
    }

    #[test]
    fn the_report_line_says_before_and_after() {
        let b = items("a@x#m b@x#m c@y#m");
        let j = judge(Some(&b), Some(&b), &|_| false, &|_| false);
        assert_eq!(
            j.describe("clippy"),
            "clippy: 3 pre-existing item(s) before, the same 3 after"
        );
        // A gate named otherwise says which tool reported the items.
        assert_eq!(
            j.describe("lint"),
            "lint (clippy): 3 pre-existing item(s) before, the same 3 after"
        );
        let one_fixed = judge(Some(&b), Some(&b[..2]), &|_| false, &|_| false);
        assert_eq!(
            one_fixed.describe("lint"),
            "lint (clippy): 3 pre-existing item(s) before, 2 after (1 fixed)"
        );
    }
    /// The re-check judges as the verification: pre-existing items kept confirm, a new one
    /// does not, nor does a check that passed at the baseline and fails now.
    #[test]
    fn a_recheck_holds_a_check_no_worse_than_the_baseline() {
        let b = items("a@x#m b@x#m");
        let same = judge(Some(&b), Some(&b), &|_| false, &|_| false);
        let worse = judge(
            Some(&b),
            Some(&items("a@x#m b@x#m d@x#m")),
            &|_| false,
            &|_| false,
        );
        let test = Rechecked {
            name: "test",
            passed: true,
            against: None,
        };
        let lint = |against| Rechecked {
            name: "lint",
            passed: false,
            against,
        };
        let (v, why) = recheck(true, "done", "t1", &[test.clone(), lint(Some(&same))]);
        assert_eq!(v, RecheckVerdict::Confirmed, "{why}");
        assert!(
            why.contains("lint (clippy): 2 pre-existing item(s) before, the same 2 after"),
            "{why}"
        );
        let (v, why) = recheck(true, "done", "t1", &[test.clone(), lint(Some(&worse))]);
        assert_eq!(v, RecheckVerdict::FalseDone, "{why}");
        assert!(why.contains("1 new item(s): clippy d x: m"), "{why}");
        let (v, why) = recheck(true, "done", "t1", &[test.clone(), lint(None)]);
        assert_eq!(v, RecheckVerdict::FalseDone, "{why}");
        assert!(why.ends_with("fail now: lint"), "{why}");
        let (v, why) = recheck(true, "done", "t1", std::slice::from_ref(&test));
        assert_eq!(v, RecheckVerdict::Confirmed);
        assert_eq!(why, "every sealed check passes again on tree t1");
        let (v, _) = recheck(false, "failed", "t1", &[test, lint(Some(&same))]);
        assert_eq!(v, RecheckVerdict::Unverifiable);
    }
}
