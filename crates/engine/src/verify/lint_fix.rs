//! The lint-fix loop of `pawl verify --fix-lint`: when only `lint` failed and `[gates] lint_fix`
//! exists, apply the fix, verify every check again, keep the change only if everything passes,
//! otherwise restore the tree exactly.

use pawl_core::record::Run;
use pawl_git::Repo;
use pawl_store::Store;
use pawl_verify::backup::TreeBackup;
use pawl_verify::gate::{Check, LINT, LINT_FIX};
use pawl_verify::run_check;
use serde::Serialize;

use super::{Plan, Verification, VerifyError, Workspace, new_evidence, now_ms, runner_config};

/// What `--fix-lint` did.
#[derive(Debug, Clone, Serialize)]
pub struct LintFix {
    /// `not_applicable`, `kept` or `reverted`.
    pub result: &'static str,
    pub outcome: String,
    /// The tree before the fix, to which a reverted fix restored exactly.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree_before: Option<String>,
    /// The ref keeping a snapshot of the tree before the fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup_ref: Option<String>,
}

impl LintFix {
    fn not_applicable(why: impl Into<String>) -> LintFix {
        LintFix {
            result: "not_applicable",
            outcome: why.into(),
            tree_before: None,
            backup_ref: None,
        }
    }
}

/// Returns what happened and, when a fix was tried and kept, the new verification. `fix_cmd` is
/// the configured `[gates] lint_fix` command, if any.
pub fn lint_fix(
    ws: &Workspace,
    store: &mut Store,
    run: Option<&Run>,
    plan: &Plan,
    v: &Verification,
    fix_cmd: Option<&str>,
) -> Result<(LintFix, Option<Verification>), VerifyError> {
    let failing: Vec<&str> = v
        .items
        .iter()
        .filter(|i| !i.passed())
        .map(|i| i.name.as_str())
        .collect();
    if failing != [LINT] || v.tree_after.is_some() {
        return Ok((
            LintFix::not_applicable(format!(
                "not applied: it applies only when `lint` is the only failing check (failing: {})",
                failing.join(", ")
            )),
            None,
        ));
    }
    let Some(fix_cmd) = fix_cmd.filter(|c| !c.trim().is_empty()) else {
        return Ok((
            LintFix::not_applicable("not applied: no `lint_fix` command in [gates]"),
            None,
        ));
    };
    let repo = Repo::open(&ws.root)?;
    let step = now_ms();
    let scratch = ws.state_dir.join("tmp").join(format!("lint-fix-{step}"));
    let backup = TreeBackup::take(&repo, &scratch)?;

    let cfg = runner_config(ws, plan, step);
    let fix_run = run_check(&Check::gate(LINT_FIX, fix_cmd.to_string()), &cfg);
    let after_fix = repo.tree_hash()?.to_string();
    let tree_before = backup.tree.to_string();
    let moved = (after_fix != tree_before).then_some(after_fix.as_str());
    // Not a sealed check: its evidence carries no seal fingerprint.
    let unsealed = Plan::new(Vec::new());
    store.record_evidence(&[new_evidence(
        ws,
        run,
        &unsealed,
        &fix_run,
        &tree_before,
        moved,
    )])?;

    // Every check again on the fixed tree (build, tests, lint, criteria); no failure is recorded
    // for this trial: a reverted fix leaves the story as the first verification found it.
    let mut recheck = plan.clone();
    recheck.record_failure = false;
    recheck.fresh = false;
    let backup_ref = backup.backup_ref.clone();
    let second = if fix_run.passed {
        Some(super::verify_checks(ws, store, run, &recheck)?)
    } else {
        None
    };
    if let Some(second) = second.filter(|s| s.verified) {
        backup.discard()?;
        let fix = LintFix {
            result: "kept",
            outcome: format!(
                "`{fix_cmd}` fixed the lint; every check passes on tree {}: the change is kept",
                second.tree.get(..10).unwrap_or(&second.tree)
            ),
            tree_before: Some(tree_before),
            backup_ref: Some(backup_ref),
        };
        return Ok((fix, Some(second)));
    }
    let why = if fix_run.passed {
        "the gates did not all pass after it".to_owned()
    } else {
        format!("`{fix_cmd}` itself failed ({})", fix_run.end.describe())
    };
    backup.restore(&repo)?;
    backup.discard()?;
    Ok((
        LintFix {
            result: "reverted",
            outcome: format!(
                "reverted: {why}; the tree is restored exactly to {} (snapshot kept in {backup_ref})",
                tree_before.get(..10).unwrap_or(&tree_before)
            ),
            tree_before: Some(tree_before),
            backup_ref: Some(backup_ref),
        },
        None,
    ))
}
