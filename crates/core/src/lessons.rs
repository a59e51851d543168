//! Knowledge across runs: the lessons pawl keeps per repository (a failure and what fixed it,
//! directions that failed, key decisions, the user's own) and the profile of each task type
//! (runs, iterations, retries, phase durations, thresholds used) — and which of them the next
//! run's prompts carry.
//!
//! Pure: the CLI reads and writes the book (`.pawl/lessons.json`) and gathers a finished run's
//! facts from the store; this module decides what a run teaches ([`learn`]), what is kept
//! ([`Book::absorb`]) and what a new run is told ([`relevant`], [`prompt_note`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// At most this many lessons go into a run's prompts.
pub const MAX_IN_PROMPT: usize = 5;
/// A lesson's text is cut to this many characters in a prompt.
pub const MAX_TEXT: usize = 240;
/// The note that carries lessons into a run starts with this (and is never learnt again as a
/// decision).
pub const NOTE_PREFIX: &str = "Lessons from earlier runs in this repository";

/// What a lesson is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LessonKind {
    /// A failure signature and what fixed it.
    Fix,
    /// A direction that failed (rolled back by convergence): not to retry.
    Rejected,
    /// A decision recorded during a run.
    Decision,
    /// Written by the user (`pawl lessons add`).
    User,
}

/// One lesson, cited in prompts by its id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    /// `L1`, `L2`, ... never reused.
    pub id: String,
    pub kind: LessonKind,
    /// The task type it was learnt on (`build`, `debug`, `refactor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// The failure signature, for a fix (what makes two failures the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    pub text: String,
    /// The run it was learnt from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    pub created_at: i64,
}

/// What one task type's runs looked like, for tuning what the next run expects.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub runs: u32,
    pub verified: u32,
    pub iterations: u64,
    /// Failed verifications (retries), all checkpoints together.
    pub retries: u64,
    /// Failed verifications per checkpoint (`mid`, `end`, `story`): how often each missed.
    #[serde(default)]
    pub checkpoint_misses: BTreeMap<String, u32>,
    /// Total milliseconds per phase.
    #[serde(default)]
    pub phase_ms: BTreeMap<String, u64>,
    /// The thresholds the last run used, by name (`plan`, `checkpoint_mid`, ...).
    #[serde(default)]
    pub thresholds: BTreeMap<String, f64>,
}

impl Profile {
    /// Mean iterations per run (0 without runs).
    pub fn mean_iterations(&self) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            self.iterations as f64 / f64::from(self.runs)
        }
    }
}

/// Every lesson and profile of a repository.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Book {
    #[serde(default)]
    pub lessons: Vec<Lesson>,
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
    /// The number of the next lesson id.
    #[serde(default = "one")]
    pub next: u32,
}

fn one() -> u32 {
    1
}

/// A lesson before it has an id.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLesson {
    pub kind: LessonKind,
    pub signature: Option<String>,
    pub text: String,
}

impl Book {
    /// Adds a lesson; returns its id.
    pub fn add(
        &mut self,
        new: NewLesson,
        task_type: Option<&str>,
        run: Option<&str>,
        now: i64,
    ) -> String {
        let id = format!("L{}", self.next.max(1));
        self.next = self.next.max(1) + 1;
        self.lessons.push(Lesson {
            id: id.clone(),
            kind: new.kind,
            task_type: task_type.map(str::to_owned),
            signature: new.signature,
            text: new.text,
            run: run.map(str::to_owned),
            created_at: now,
        });
        id
    }

    /// Takes in what a run taught: a fix for a signature already known replaces the older one
    /// (the latest fix is the one that worked last); the same text is not kept twice. Returns
    /// the ids added.
    pub fn absorb(&mut self, facts: &RunFacts, now: i64) -> Vec<String> {
        let mut ids = Vec::new();
        for new in learn(facts) {
            if let Some(sig) = &new.signature {
                self.lessons.retain(|l| l.signature.as_ref() != Some(sig));
            }
            if self.lessons.iter().any(|l| l.text == new.text) {
                continue;
            }
            ids.push(self.add(new, Some(&facts.task_type), Some(&facts.run_id), now));
        }
        let p = self.profiles.entry(facts.task_type.clone()).or_default();
        p.runs += 1;
        p.verified += u32::from(facts.verified);
        p.iterations += u64::from(facts.iterations);
        p.retries += facts.steps.iter().filter(|s| s.signature.is_some()).count() as u64;
        for (k, v) in &facts.checkpoint_misses {
            *p.checkpoint_misses.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &facts.phase_ms {
            *p.phase_ms.entry(k.clone()).or_default() += v;
        }
        p.thresholds
            .extend(facts.thresholds.iter().map(|(k, v)| (k.clone(), *v)));
        ids
    }

    /// Forgets a lesson; false when there is none with that id.
    pub fn forget(&mut self, id: &str) -> bool {
        let before = self.lessons.len();
        self.lessons.retain(|l| !l.id.eq_ignore_ascii_case(id));
        self.lessons.len() != before
    }

    /// Replaces a lesson's text; false when there is none with that id.
    pub fn edit(&mut self, id: &str, text: &str) -> bool {
        match self
            .lessons
            .iter_mut()
            .find(|l| l.id.eq_ignore_ascii_case(id))
        {
            Some(l) => {
                l.text = text.to_owned();
                true
            }
            None => false,
        }
    }
}

/// One agent step of a finished run, as learning needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct StepFacts {
    /// The failure signature after the step (`None`: its verification passed or none ran).
    pub signature: Option<String>,
    /// Files the step changed.
    pub files: Vec<String>,
}

/// A finished run, as learning needs it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFacts {
    pub run_id: String,
    pub task_type: String,
    pub verified: bool,
    pub iterations: u32,
    /// The developer steps in order.
    pub steps: Vec<StepFacts>,
    /// Directions convergence rolled back.
    pub rejected: Vec<String>,
    /// Notes recorded during the run.
    pub decisions: Vec<String>,
    pub checkpoint_misses: BTreeMap<String, u32>,
    pub phase_ms: BTreeMap<String, u64>,
    pub thresholds: BTreeMap<String, f64>,
}

/// What a run teaches: each failure signature that a later step cleared (the fix: the files of
/// the step that cleared it), each rejected direction, each decision. A fix is learnt only from
/// a run that ended verified (a clearing that did not last is no lesson).
pub fn learn(facts: &RunFacts) -> Vec<NewLesson> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    if facts.verified {
        for (i, step) in facts.steps.iter().enumerate() {
            let Some(sig) = &step.signature else { continue };
            if !seen.insert(sig.clone()) {
                continue;
            }
            // The first later step whose failure is another one (or none) cleared it.
            let Some(fix) = facts.steps[i + 1..]
                .iter()
                .find(|s| s.signature.as_ref() != Some(sig))
            else {
                continue;
            };
            let how = if fix.files.is_empty() {
                "was cleared by a later step (no file recorded)".to_owned()
            } else {
                let files: Vec<String> = fix.files.iter().take(5).cloned().collect();
                format!("was fixed by changing {}", files.join(", "))
            };
            out.push(NewLesson {
                kind: LessonKind::Fix,
                signature: Some(sig.clone()),
                text: format!("failure `{}` {how}", readable(sig)),
            });
        }
    }
    for d in &facts.rejected {
        out.push(NewLesson {
            kind: LessonKind::Rejected,
            signature: None,
            text: format!("rejected direction (rolled back, do not retry): {d}"),
        });
    }
    for d in facts
        .decisions
        .iter()
        .filter(|d| !d.starts_with(NOTE_PREFIX))
    {
        out.push(NewLesson {
            kind: LessonKind::Decision,
            signature: None,
            text: format!("decision: {d}"),
        });
    }
    out
}

/// A signature as people read it: `gate||tests||error` → `gate · tests · error`.
fn readable(sig: &str) -> String {
    sig.split("||")
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The lessons a run on `goal` of `task_type` is told, best first, at most [`MAX_IN_PROMPT`]:
/// the user's own first, then those sharing words with the goal or its task type, newest first.
pub fn relevant<'a>(book: &'a Book, goal: &str, task_type: &str) -> Vec<&'a Lesson> {
    let words = |t: &str| -> BTreeSet<String> {
        t.split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|w| w.len() >= 4)
            .map(str::to_lowercase)
            .collect()
    };
    let goal_words = words(goal);
    let mut scored: Vec<(u32, i64, &Lesson)> = book
        .lessons
        .iter()
        .map(|l| {
            let shared = words(&l.text).intersection(&goal_words).count() as u32;
            let score = shared
                + u32::from(l.task_type.as_deref() == Some(task_type))
                + if l.kind == LessonKind::User { 100 } else { 0 };
            (score, l.created_at, l)
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    scored
        .into_iter()
        .take(MAX_IN_PROMPT)
        .map(|(_, _, l)| l)
        .collect()
}

/// The note a new run's prompts carry, citing each lesson by id (and the run it came from).
pub fn prompt_note(lessons: &[&Lesson]) -> Option<String> {
    if lessons.is_empty() {
        return None;
    }
    let items: Vec<String> = lessons
        .iter()
        .map(|l| {
            let text: String = l.text.chars().take(MAX_TEXT).collect();
            match &l.run {
                Some(run) => format!("[{}] {text} (run {run})", l.id),
                None => format!("[{}] {text}", l.id),
            }
        })
        .collect();
    Some(format!(
        "{NOTE_PREFIX} (cite them by id; `pawl lessons` lists them): {}",
        items.join("; ")
    ))
}

/// The fix sessions a missed end checkpoint gets for a task type, adapted from its profile: a
/// type whose end checkpoint was missed in at least half of two or more past runs gets one
/// more than configured (its work needs the extra pass more often than not); never more than
/// the configured number + 1.
pub fn checkpoint_retries(base: u32, profile: Option<&Profile>) -> u32 {
    let Some(p) = profile else { return base };
    let missed = p
        .checkpoint_misses
        .get("checkpoint_end")
        .copied()
        .unwrap_or(0);
    if p.runs >= 2 && missed * 2 >= p.runs {
        base + 1
    } else {
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(sig: Option<&str>, files: &[&str]) -> StepFacts {
        StepFacts {
            signature: sig.map(str::to_owned),
            files: files.iter().map(|f| f.to_string()).collect(),
        }
    }

    fn facts(verified: bool) -> RunFacts {
        RunFacts {
            run_id: "r1".into(),
            task_type: "build".into(),
            verified,
            iterations: 3,
            steps: vec![
                step(Some("test||t::a||assert #"), &["a.rs"]),
                step(Some("test||t::a||assert #"), &["a.rs"]),
                step(None, &["b.rs", "a.rs"]),
            ],
            rejected: vec!["S1 rewrite the parser".into()],
            decisions: vec!["use serde".into(), format!("{NOTE_PREFIX}: [L1] old")],
            ..RunFacts::default()
        }
    }

    #[test]
    fn a_verified_run_teaches_the_fix_of_each_cleared_failure() {
        let l = learn(&facts(true));
        assert_eq!(l[0].kind, LessonKind::Fix);
        assert_eq!(
            l[0].text,
            "failure `test · t::a · assert #` was fixed by changing b.rs, a.rs"
        );
        assert_eq!(l[1].kind, LessonKind::Rejected);
        assert_eq!(l[2].text, "decision: use serde");
        // The lessons note itself is not learnt back.
        assert_eq!(l.len(), 3);
        // A run that did not end verified teaches no fix.
        assert!(
            learn(&facts(false))
                .iter()
                .all(|l| l.kind != LessonKind::Fix)
        );
    }

    #[test]
    fn the_book_replaces_a_known_fix_and_keeps_a_profile() {
        let mut b = Book::default();
        assert_eq!(b.absorb(&facts(true), 1), ["L1", "L2", "L3"]);
        // The same run again: nothing new but the replaced fix.
        assert_eq!(b.absorb(&facts(true), 2), ["L4"]);
        assert_eq!(b.lessons.len(), 3);
        let p = &b.profiles["build"];
        assert_eq!((p.runs, p.verified, p.iterations, p.retries), (2, 2, 6, 4));
        assert!(b.forget("l2"));
        assert!(!b.forget("L2"));
        assert!(b.edit("L3", "decision: use serde_json"));
    }

    #[test]
    fn a_type_that_often_misses_its_end_checkpoint_gets_one_more_fix_session() {
        let p = |runs, missed| Profile {
            runs,
            checkpoint_misses: BTreeMap::from([("checkpoint_end".to_owned(), missed)]),
            ..Profile::default()
        };
        assert_eq!(checkpoint_retries(1, None), 1);
        assert_eq!(checkpoint_retries(1, Some(&p(1, 1))), 1);
        assert_eq!(checkpoint_retries(1, Some(&p(2, 1))), 2);
        assert_eq!(checkpoint_retries(1, Some(&p(4, 1))), 1);
    }

    #[test]
    fn prompts_get_the_users_lessons_first_bounded_and_cited() {
        let mut b = Book::default();
        b.absorb(&facts(true), 1);
        for i in 0..10 {
            b.add(
                NewLesson {
                    kind: LessonKind::Decision,
                    signature: None,
                    text: format!("decision {i}"),
                },
                Some("debug"),
                None,
                10 + i,
            );
        }
        b.add(
            NewLesson {
                kind: LessonKind::User,
                signature: None,
                text: "run make fmt".into(),
            },
            None,
            None,
            0,
        );
        let picked = relevant(&b, "fix the parser", "build");
        assert_eq!(picked.len(), MAX_IN_PROMPT);
        assert_eq!(picked[0].text, "run make fmt");
        // Shares "parser" with the goal.
        assert!(picked[1].text.contains("rewrite the parser"), "{picked:?}");
        let note = prompt_note(&picked).unwrap();
        assert!(note.starts_with(NOTE_PREFIX), "{note}");
        assert!(note.contains("[L2] rejected direction"), "{note}");
        assert!(note.contains("(run r1)"), "{note}");
        assert_eq!(prompt_note(&[]), None);
    }
}
