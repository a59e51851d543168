//! Parallel stories on this machine (docs/parallel.md): where a run's worktrees live (the
//! user's state directory, beside pawl's own state, which agent steps cannot see — never in
//! `.pawl/`, which they may not write), recording a plan file's stories, the repository a story
//! worktree belongs to, and what a run's worktrees hold on disk.
//!
//! Not here: scheduling, worktrees' life and the merge queue (pawl-engine's `parallel`), the
//! plan file's rules (pawl-core's `parallel`).

use std::path::{Path, PathBuf};

use pawl_core::model::{Size, Verification, VerifyKind};
use pawl_core::parallel::{PlannedStory, story_branch};
use pawl_store::{NewStoryWork, Store};

use crate::error::{CliError, CliResult};

/// Where the worktrees of the repository at `root` live: `$XDG_STATE_HOME/pawl-worktrees/<repo>-<hash>`
/// (one directory per run below it, one per story below that). Beside the user's pawl state
/// rather than in it: that directory is hidden from agent steps, and a story's agent works in
/// its worktree.
pub fn repo_worktrees(root: &Path) -> Option<PathBuf> {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(root.as_os_str().as_encoded_bytes());
    let name: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let base = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into());
    Some(worktrees_home()?.join(format!("{base}-{name}")))
}

/// Where pawl keeps every repository's story worktrees: `pawl-worktrees` beside the user's pawl
/// state directory.
pub fn worktrees_home() -> Option<PathBuf> {
    Some(crate::state::user_state_dir()?.with_file_name("pawl-worktrees"))
}

/// The worktrees directory of run `run_id`.
pub fn run_worktrees(root: &Path, run_id: &str) -> CliResult<PathBuf> {
    repo_worktrees(root).map(|d| d.join(run_id)).ok_or_else(|| {
        CliError::Failed(
            "no user state directory (HOME or XDG_STATE_HOME) to keep the stories' worktrees in"
                .into(),
        )
    })
}

/// Reads and checks a plan file (nothing is written).
pub fn read_plan(path: &Path) -> CliResult<Vec<PlannedStory>> {
    let text = std::fs::read_to_string(path).map_err(CliError::io(format!(
        "cannot read the plan {}",
        path.display()
    )))?;
    pawl_core::parallel::parse_plan(&text, &path.display().to_string())
        .map_err(|e| CliError::Failed(e.to_string()))
}

/// Records a plan's stories on a new run: a story and its command criteria each, and where
/// each story will be worked on.
pub fn record_plan(
    store: &mut Store,
    root: &Path,
    run_id: &str,
    plan: &[PlannedStory],
) -> CliResult {
    let dir = run_worktrees(root, run_id)?;
    let mut rows = Vec::new();
    for s in plan {
        let story = store.add_story(run_id, &s.title, Size::M, false, 3)?;
        let mut criteria = Vec::new();
        for c in &s.criteria {
            let added = store.add_criterion(
                run_id,
                &format!("{}: {c}", s.id),
                &Verification {
                    kind: VerifyKind::Command,
                    command: Some(c.clone()),
                },
            )?;
            criteria.push(added.id);
        }
        rows.push(NewStoryWork {
            plan: s.clone(),
            story_id: story.id,
            criteria,
            branch: story_branch(run_id, &s.id),
            worktree: dir.join(&s.id).display().to_string(),
        });
    }
    store.add_story_work(run_id, &rows)?;
    Ok(())
}

/// The main working tree of the linked worktree at or above `dir`, when that repository has
/// pawl's state: how pawl inside a story's worktree finds the run's repository (its store, its
/// step mailbox, the sandbox's read-only store that refuses run control).
pub fn main_root_of_worktree(dir: &Path) -> Option<PathBuf> {
    let top = dir.ancestors().find(|d| d.join(".git").exists())?;
    let main = crate::session_mode::main_checkout_of(top)?;
    main.join(crate::ctx::STATE_DIR)
        .join("pawl.db")
        .is_file()
        .then_some(main)
}

/// `12.3 MiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}
