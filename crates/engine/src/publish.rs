//! What a run leaves that only its clone holds — its final report (with the files it changed and
//! where its transcripts are) and its diff — kept in the store when it stops, and read back where
//! the clone is not: a fleet job's clone is gone when the job ends, and `pawl serve --add
//! postgres://…` on another machine still shows the run's report and diff (docs/fleet.md).
//!
//! Not here: the rows themselves (the store's `artifacts.rs`), when a driver publishes (the CLI,
//! right after the stop is recorded).

use std::path::Path;

use pawl_core::record::Run;
use pawl_store::{NewArtifact, Store};
use serde_json::{Value, json};

use crate::EngineError;
use crate::report::{FileChange, Report, Transcript};

/// The most bytes of a run's patch kept in the store: beyond it the patch is cut at a line end
/// and ends with [`TRUNCATED`]'s line.
pub const DIFF_KEPT: usize = 1 << 20;

/// The start of the line that ends a patch cut to [`DIFF_KEPT`].
pub const TRUNCATED: &str = "[pawl: diff truncated";

/// A run's change: from its pre-run commit to its branch's head, with the working tree when the
/// run's branch is the one checked out (what `pawl diff` shows).
#[derive(Debug, Clone)]
pub struct RunDiff {
    pub branch: String,
    pub from: String,
    pub to: String,
    pub working_tree: bool,
    pub patch: String,
}

/// The change of `run` in the clone at `root`, or why it cannot be read there.
pub fn run_diff(root: &Path, run: &Run) -> Result<RunDiff, String> {
    let from = run
        .pre_run_commit
        .clone()
        .ok_or_else(|| format!("run {} recorded no pre-run commit", run.id))?;
    let branch = run
        .branch
        .clone()
        .ok_or_else(|| format!("run {} recorded no branch", run.id))?;
    let git = pawl_git::Repo::open(root).map_err(|e| e.to_string())?;
    let head = git
        .branch_head(&branch)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("branch {branch} no longer exists"))?;
    let working_tree =
        git.current_branch().map_err(|e| e.to_string())?.as_deref() == Some(branch.as_str());
    let to = if working_tree {
        git.tree_hash().map_err(|e| e.to_string())?.to_string()
    } else {
        head.to_string()
    };
    let patch = git.diff_patch(&from, &to).map_err(|e| e.to_string())?;
    Ok(RunDiff {
        branch,
        from,
        to,
        working_tree,
        patch: String::from_utf8_lossy(&patch).into_owned(),
    })
}

/// `patch` cut to at most `limit` bytes at a line end, with a last line saying how much of it
/// is kept; `true` when it was cut.
pub fn bounded(patch: &str, limit: usize) -> (String, bool) {
    if patch.len() <= limit {
        return (patch.to_string(), false);
    }
    let mut end = patch.as_bytes()[..limit]
        .iter()
        .rposition(|b| *b == b'\n')
        .map(|i| i + 1)
        .unwrap_or(limit);
    while !patch.is_char_boundary(end) {
        end -= 1;
    }
    let mut kept = patch[..end].to_string();
    if !kept.is_empty() && !kept.ends_with('\n') {
        kept.push('\n');
    }
    kept.push_str(&format!(
        "{TRUNCATED}: the first {end} of {} bytes are kept in the store; the rest was only in the run's clone]\n",
        patch.len()
    ));
    (kept, true)
}

/// Keeps `report` (built in the clone at `root`) and the run's diff there in the store: the
/// driver calls it right after it records the stop. A diff that cannot be read is kept as why.
pub fn publish(store: &mut Store, report: &Report, root: &Path) -> Result<(), EngineError> {
    let (run, _) = store.run_as_signed(&report.run_id)?;
    let text = serde_json::to_string(report).unwrap_or_default();
    let mut artifacts = vec![NewArtifact {
        name: "report".into(),
        bytes: text.len() as u64,
        body: text,
        truncated: false,
    }];
    let diff = match run_diff(root, &run) {
        Ok(d) => {
            let (patch, truncated) = bounded(&d.patch, DIFF_KEPT);
            let body = json!({"branch": d.branch, "from": d.from, "to": d.to,
                "working_tree": d.working_tree, "patch": patch,
                "patch_bytes": d.patch.len(), "truncated": truncated});
            NewArtifact {
                name: "diff".into(),
                body: body.to_string(),
                bytes: d.patch.len() as u64,
                truncated,
            }
        }
        Err(why) => NewArtifact {
            name: "diff".into(),
            body: json!({ "unavailable": why }).to_string(),
            bytes: 0,
            truncated: false,
        },
    };
    artifacts.push(diff);
    store.publish(&report.run_id, &artifacts)?;
    Ok(())
}

/// Publishes `run_id` from the clone at `root` when it has stopped and has not published since:
/// a driver killed between recording the stop and publishing (its resume, or `pawl report` in
/// its clone, fills it in). Only the clone `clone` that ran it can (its branch is there).
pub fn publish_if_missing(
    store: &mut Store,
    run_id: &str,
    root: &Path,
    clone: &str,
) -> Result<bool, EngineError> {
    let (run, _) = store.run_as_signed(run_id)?;
    let open = matches!(
        run.status,
        pawl_core::model::RunStatus::Active | pawl_core::model::RunStatus::AwaitingUser
    );
    if open
        || store.clone_of(run_id)?.as_deref() != Some(clone)
        || store.published_since_stop(run_id)?
    {
        return Ok(false);
    }
    let report = crate::report::build(store, run_id, root)?;
    publish(store, &report, root)?;
    Ok(true)
}

/// The report of a run whose clone is not here: rebuilt from the store (verdict, checks, costs
/// as they stand now), with the files it changed and its transcripts as it published them.
/// `false` when it published nothing (those are then empty).
pub fn report_from_store(store: &Store, run_id: &str) -> Result<(Report, bool), EngineError> {
    let mut report = crate::report::build_at(store, run_id, None)?;
    let Some(kept) = store.artifact(run_id, "report")? else {
        return Ok((report, false));
    };
    let value: Value = serde_json::from_str(&kept.body)
        .map_err(|e| pawl_store::StoreError::Corrupt(format!("artifacts.report: {e}")))?;
    let field = |name: &str| value.get(name).cloned().unwrap_or(Value::Null);
    report.files_changed =
        serde_json::from_value::<Vec<FileChange>>(field("files_changed")).unwrap_or_default();
    report.transcripts =
        serde_json::from_value::<Vec<Transcript>>(field("transcripts")).unwrap_or_default();
    Ok((report, true))
}

/// The diff `run_id` published (`branch`, `from`, `to`, `working_tree`, `patch`, `patch_bytes`,
/// `truncated`; or `unavailable`: why its clone could not give it), `None` when it published none.
pub fn published_diff(store: &Store, run_id: &str) -> Result<Option<Value>, EngineError> {
    let Some(kept) = store.artifact(run_id, "diff")? else {
        return Ok(None);
    };
    let value: Value = serde_json::from_str(&kept.body)
        .map_err(|e| pawl_store::StoreError::Corrupt(format!("artifacts.diff: {e}")))?;
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_within_the_bound_is_kept_whole() {
        assert_eq!(bounded("+a\n+b\n", 6), ("+a\n+b\n".to_string(), false));
    }

    #[test]
    fn a_long_patch_is_cut_at_a_line_end_and_says_so() {
        let patch = "+aaaa\n+bbbb\n+cccc\n";
        let (kept, cut) = bounded(patch, 8);
        assert!(cut);
        assert!(kept.starts_with("+aaaa\n"), "{kept}");
        assert!(!kept.contains("bbbb"), "{kept}");
        assert!(
            kept.ends_with("[pawl: diff truncated: the first 6 of 18 bytes are kept in the store; the rest was only in the run's clone]\n"),
            "{kept}"
        );
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let patch = "ééééé";
        let (kept, cut) = bounded(patch, 4);
        assert!(cut);
        assert!(kept.starts_with("éé\n"), "{kept}");
    }
}
