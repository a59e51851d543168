//! Parallel stories: the plan a user gives (`pawl run --plan plan.toml`), which stories may run
//! at once (their dependencies merged, their declared scopes apart from every story in flight),
//! and the words of the merge queue. Pure functions; the engine's `parallel` module acts on them.
//!
//! Not here: worktrees, merges and checks (pawl-engine, pawl-git), where a story's state is kept
//! (pawl-store's `stories.rs`).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::model::{ParseEnumError, str_enum};

/// How many times a story is worked on (its first session and every send-back by the merge
/// queue) before the run gives up on it (`no_story_can_progress`).
pub const MAX_STORY_ATTEMPTS: u32 = 4;

/// One story of a plan file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedStory {
    /// The story's id in the plan (`S1`, `parser`): its branch, its worktree and `PAWL_STORY`.
    pub id: String,
    pub title: String,
    /// The files the story is expected to touch (globs). It schedules stories; it forbids no
    /// edit. Empty: unknown, which overlaps every other story.
    #[serde(default)]
    pub files: Vec<String>,
    /// Stories that must be merged before this one starts.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Commands that must pass for the story to be done (command criteria; pawl runs them).
    #[serde(default)]
    pub criteria: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    #[serde(default)]
    stories: Vec<PlannedStory>,
}

/// A plan that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PlanError(pub String);

/// Reads and checks a plan file's text (`origin` names it in errors): at least one story;
/// ids of letters, digits, `-` and `_`, unique; a title; dependencies on stories of the plan,
/// without a cycle; scopes that are valid globs.
pub fn parse_plan(text: &str, origin: &str) -> Result<Vec<PlannedStory>, PlanError> {
    let file: PlanFile =
        toml::from_str(text).map_err(|e| PlanError(format!("{origin}: {}", e.message())))?;
    check_plan(&file.stories).map_err(|e| PlanError(format!("{origin}: {}", e.0)))?;
    Ok(file.stories)
}

/// A story id: 1 to 40 letters, digits, `-` or `_` (it names a branch and a directory).
pub fn is_story_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 40
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The checks of [`parse_plan`] on stories already read (a planner's too).
pub fn check_plan(stories: &[PlannedStory]) -> Result<(), PlanError> {
    if stories.is_empty() {
        return Err(PlanError(
            "the plan has no [[stories]]: give at least one (id, title, files, depends_on, criteria)"
                .into(),
        ));
    }
    let mut seen = BTreeSet::new();
    for s in stories {
        let id = s.id.as_str();
        if !is_story_id(id) {
            return Err(PlanError(format!(
                "story id {id:?}: use 1 to 40 letters, digits, `-` or `_` (it names a git branch)"
            )));
        }
        if !seen.insert(id) {
            return Err(PlanError(format!("story `{id}` is in the plan twice")));
        }
        if s.title.trim().is_empty() {
            return Err(PlanError(format!("story `{id}` has no title")));
        }
        for g in &s.files {
            if !valid_scope(g) {
                return Err(PlanError(format!(
                    "story `{id}`: files: {g:?} is not a glob"
                )));
            }
        }
        for c in &s.criteria {
            if c.trim().is_empty() {
                return Err(PlanError(format!("story `{id}`: an empty criterion")));
            }
        }
    }
    for s in stories {
        for d in &s.depends_on {
            if d == &s.id {
                return Err(PlanError(format!("story `{}` depends on itself", s.id)));
            }
            if !seen.contains(d.as_str()) {
                return Err(PlanError(format!(
                    "story `{}` depends on `{d}`, which the plan does not have",
                    s.id
                )));
            }
        }
    }
    if let Some(id) = cycle(stories) {
        return Err(PlanError(format!(
            "story `{id}` depends on itself through other stories (a cycle): no order can start it"
        )));
    }
    Ok(())
}

/// Whether `glob` can be part of a story's declared scope (`files`): a glob, not blank.
pub fn valid_scope(glob: &str) -> bool {
    !glob.trim().is_empty() && globset::Glob::new(glob).is_ok()
}

/// A story on a dependency cycle, if there is one.
fn cycle(stories: &[PlannedStory]) -> Option<String> {
    let deps: BTreeMap<&str, &[String]> = stories
        .iter()
        .map(|s| (s.id.as_str(), s.depends_on.as_slice()))
        .collect();
    // Kahn: what never becomes free is on (or behind) a cycle.
    let mut done: BTreeSet<&str> = BTreeSet::new();
    loop {
        let free: Vec<&str> = deps
            .iter()
            .filter(|(id, d)| !done.contains(*id) && d.iter().all(|x| done.contains(x.as_str())))
            .map(|(id, _)| *id)
            .collect();
        if free.is_empty() {
            break;
        }
        done.extend(free);
    }
    deps.keys()
        .find(|id| !done.contains(*id))
        .map(|s| s.to_string())
}

/// The literal part of a glob before its first pattern character.
fn literal_prefix(glob: &str) -> &str {
    let end = glob.find(['*', '?', '[', '{']).unwrap_or(glob.len());
    &glob[..end]
}

/// Whether two declared scopes may touch the same file. Conservative: an empty scope is
/// unknown and overlaps everything; two globs overlap when the literal part of one starts the
/// literal part of the other (`src/**` and `src/parser.rs` do; `src/a/*.rs` and `src/b/*.rs` do
/// not).
pub fn scopes_overlap(a: &[String], b: &[String]) -> bool {
    if a.is_empty() || b.is_empty() {
        return true;
    }
    a.iter().any(|x| {
        b.iter().any(|y| {
            let (px, py) = (literal_prefix(x), literal_prefix(y));
            let exact_x = px.len() == x.len();
            let exact_y = py.len() == y.len();
            match (exact_x, exact_y) {
                (true, true) => x == y,
                (true, false) => px.starts_with(py),
                (false, true) => py.starts_with(px),
                (false, false) => px.starts_with(py) || py.starts_with(px),
            }
        })
    })
}

str_enum!(
    /// Where a story is in its life under the parallel driver.
    WorkState, "story work state" {
        /// Not started, or sent back by the merge queue and waiting for a worker.
        Pending => "pending",
        /// A worker's agent is on it in its worktree.
        Working => "working",
        /// Its checks passed in its worktree: waiting for the merge queue.
        Queued => "queued",
        /// The merge queue is merging it (rebased onto the run's branch, re-verified).
        Merging => "merging",
        /// Merged into the run's branch, re-verified there.
        Merged => "merged",
        /// Out of attempts: the run cannot finish it.
        Failed => "failed",
    }
);

impl WorkState {
    /// Its changes are not merged yet but are being made or are waiting: an overlapping story
    /// does not start beside it.
    pub fn in_flight(self) -> bool {
        matches!(
            self,
            WorkState::Working | WorkState::Queued | WorkState::Merging
        )
    }
}

str_enum!(
    /// The merge queue's last word on a story (the report's `merge`).
    MergeResult, "merge result" {
        /// Not through the queue yet.
        Pending => "pending",
        /// On the run's branch, with the sealed checks green on the merged tree.
        Merged => "merged",
        /// It conflicts with what the run's branch gained meanwhile: sent back.
        Conflict => "conflict",
        /// The merged tree fails a check: sent back with the evidence.
        Red => "red",
    }
);

/// The stories that may start now, in plan order, at most `free` of them: pending, every
/// dependency merged, and a scope apart from every story in flight (and from each other).
pub fn startable(stories: &[(&PlannedStory, WorkState)], free: usize) -> Vec<String> {
    let state: BTreeMap<&str, WorkState> =
        stories.iter().map(|(s, w)| (s.id.as_str(), *w)).collect();
    let mut busy: Vec<&[String]> = stories
        .iter()
        .filter(|(_, w)| w.in_flight())
        .map(|(s, _)| s.files.as_slice())
        .collect();
    let mut out = Vec::new();
    for (s, w) in stories {
        if out.len() >= free {
            break;
        }
        if *w != WorkState::Pending {
            continue;
        }
        let ready = s
            .depends_on
            .iter()
            .all(|d| state.get(d.as_str()) == Some(&WorkState::Merged));
        if !ready || busy.iter().any(|b| scopes_overlap(b, &s.files)) {
            continue;
        }
        busy.push(&s.files);
        out.push(s.id.clone());
    }
    out
}

/// The git branch of a story: `pawl/<run>-<story>` (a ref under `pawl/<run>/` cannot exist
/// beside the run's branch `pawl/<run>`).
pub fn story_branch(run_id: &str, story: &str) -> String {
    format!("pawl/{run_id}-{story}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn story(id: &str, files: &[&str], deps: &[&str]) -> PlannedStory {
        PlannedStory {
            id: id.into(),
            title: format!("story {id}"),
            files: files.iter().map(|s| s.to_string()).collect(),
            depends_on: deps.iter().map(|s| s.to_string()).collect(),
            criteria: Vec::new(),
        }
    }

    #[test]
    fn a_plan_file_reads_and_bad_ones_say_where_and_why() {
        let ok = parse_plan(
            "[[stories]]\nid = \"S1\"\ntitle = \"add the parser\"\nfiles = [\"src/parser.rs\"]\ndepends_on = []\ncriteria = [\"cargo test parser\"]\n",
            "plan.toml",
        )
        .unwrap();
        assert_eq!(ok[0].criteria, vec!["cargo test parser".to_string()]);
        let rows: &[(&str, &str)] = &[
            ("", "has no [[stories]]"),
            ("[[stories]]\nid = \"S1\"\n", "missing field `title`"),
            (
                "[[stories]]\nid = \"S 1\"\ntitle = \"t\"\n",
                "names a git branch",
            ),
            (
                "[[stories]]\nid = \"S1\"\ntitle = \"t\"\n[[stories]]\nid = \"S1\"\ntitle = \"u\"\n",
                "in the plan twice",
            ),
            (
                "[[stories]]\nid = \"S1\"\ntitle = \"t\"\ndepends_on = [\"S9\"]\n",
                "depends on `S9`, which the plan does not have",
            ),
            (
                "[[stories]]\nid = \"A\"\ntitle = \"t\"\ndepends_on = [\"B\"]\n[[stories]]\nid = \"B\"\ntitle = \"u\"\ndepends_on = [\"A\"]\n",
                "a cycle",
            ),
            (
                "[[stories]]\nid = \"S1\"\ntitle = \"t\"\nfiles = [\"a[\"]\n",
                "is not a glob",
            ),
            (
                "[[stories]]\nid = \"S1\"\ntitle = \"t\"\nsize = 3\n",
                "unknown field `size`",
            ),
        ];
        for (text, want) in rows {
            let err = parse_plan(text, "plan.toml").unwrap_err().0;
            assert!(err.starts_with("plan.toml: "), "{err}");
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn scopes_overlap_conservatively() {
        let rows: &[(&[&str], &[&str], bool)] = &[
            (&["src/parser.rs"], &["src/parser.rs"], true),
            (&["src/parser.rs"], &["src/lexer.rs"], false),
            (&["src/**"], &["src/parser.rs"], true),
            (&["src/a/*.rs"], &["src/b/*.rs"], false),
            (&["*.rs"], &["src/x.rs"], true),
            (&[], &["src/x.rs"], true),
            (&["a.txt", "tests/a.rs"], &["b.txt", "tests/b.rs"], false),
            (&["docs/**"], &["docs/api/*.md"], true),
        ];
        for (a, b, want) in rows {
            let a: Vec<String> = a.iter().map(|s| s.to_string()).collect();
            let b: Vec<String> = b.iter().map(|s| s.to_string()).collect();
            assert_eq!(scopes_overlap(&a, &b), *want, "{a:?} {b:?}");
            assert_eq!(scopes_overlap(&b, &a), *want, "{b:?} {a:?}");
        }
    }

    #[test]
    fn a_story_starts_when_its_dependencies_are_merged_and_its_scope_is_free() {
        let s1 = story("S1", &["a.txt"], &[]);
        let s2 = story("S2", &["b.txt"], &[]);
        let s3 = story("S3", &["a.txt"], &[]);
        let s4 = story("S4", &["d.txt"], &["S1"]);
        use WorkState::*;
        let rows: &[(&[WorkState; 4], usize, &[&str])] = &[
            (&[Pending, Pending, Pending, Pending], 2, &["S1", "S2"]),
            (&[Pending, Pending, Pending, Pending], 4, &["S1", "S2"]),
            (&[Working, Pending, Pending, Pending], 1, &["S2"]),
            (&[Queued, Merged, Pending, Pending], 2, &[]),
            (&[Merged, Merged, Pending, Pending], 2, &["S3", "S4"]),
            (&[Merged, Working, Pending, Pending], 0, &[]),
            (&[Failed, Merged, Pending, Pending], 2, &["S3"]),
        ];
        for (states, free, want) in rows {
            let all: Vec<(&PlannedStory, WorkState)> = [&s1, &s2, &s3, &s4]
                .into_iter()
                .zip(states.iter().copied())
                .collect();
            assert_eq!(startable(&all, *free), *want, "{states:?} free {free}");
        }
    }

    #[test]
    fn a_story_branch_is_beside_the_run_branch() {
        assert_eq!(story_branch("r1", "S1"), "pawl/r1-S1");
    }
}
