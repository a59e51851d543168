//! The run's turn, once for every driver: conclude an iteration from pawl's verification, the
//! agent's usage and what it did, then decide what comes next — go on (with the continuation
//! prompt), or stop with a typed reason. The headless loop ([`crate::driver`]), the pipeline's
//! sessions ([`crate::pipeline`]) and the in-session Stop hook ([`crate::session`]) all call
//! these functions; the *order* of the decisions is one pure function, `pawl_core::turn::next`.
//!
//! What this module is not: running the agent ([`crate::attempt`]) or the checks
//! ([`crate::verify`]); the rules themselves (pawl-core).

use std::path::Path;

use pawl_core::EventKind;
use pawl_core::judge::{self, IterationFacts};
use pawl_core::model::RunStatus;
use pawl_core::proof::Outcome;
use pawl_core::record::{IterationEnd, RunSettings, Story};
use pawl_core::turn::{self as rules, Concluded, Next, TurnFacts};
use pawl_store::{Store, StoreError};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::loop_config::LoopEvent;
use crate::prompt::{self, PromptInput};
pub use crate::step::Did;
use crate::verify::VerifyReport;

/// One line saying what the verification found.
pub fn summary(report: Option<&VerifyReport>) -> String {
    let Some(r) = report else {
        return "stopped before verification".into();
    };
    if r.done {
        return "verified: every check passes".into();
    }
    match r.outcome {
        Some(Outcome::Nondeterministic) => {
            return format!(
                "every check passes, but the tests that decide answered differently when run again: {}",
                r.locked
                    .as_ref()
                    .map(|l| l.lines.join("; "))
                    .unwrap_or_default()
            );
        }
        Some(Outcome::Review) if r.locked.as_ref().is_some_and(|l| l.question().is_some()) => {
            return format!(
                "every check passes, but {}",
                r.locked
                    .as_ref()
                    .and_then(|l| l.question())
                    .unwrap_or_default()
            );
        }
        Some(Outcome::Review) if crate::verify::only_key_exposed(&r.findings) => {
            return format!("every check passes, but {}", r.findings.join("; "));
        }
        Some(Outcome::Review) if r.proof.as_ref().is_some_and(|p| p.tests_findings == 0) => {
            return format!("every check passes, but {}", r.findings.join("; "));
        }
        Some(Outcome::Review) => {
            return format!(
                "every check passes, but the tests were changed: {}",
                r.findings.join("; ")
            );
        }
        Some(Outcome::Unproven) => {
            return "every check passes, but nothing proves the goal: no check or test went from failing on the pre-run code to passing".into();
        }
        _ => {}
    }
    if r.failing.is_empty() {
        return format!(
            "every check passes; criteria not yet verified: {}",
            r.unmet.join(", ")
        );
    }
    let failing: Vec<String> = r
        .failing
        .iter()
        .map(|f| {
            if f.hidden {
                "a hidden check".to_string()
            } else if f.failing_tests.is_empty() {
                format!("{} ({})", f.name, f.end)
            } else {
                let shown: Vec<&str> = f.failing_tests.iter().take(5).map(String::as_str).collect();
                format!("{} (failing tests: {})", f.name, shown.join(", "))
            }
        })
        .collect();
    format!(
        "{} of {} checks failing: {}",
        r.failing.len(),
        r.checks.len(),
        failing.join("; ")
    )
}

/// The facts of one iteration: its verification and what the agent did.
pub fn facts(root: &Path, did: &Did<'_>, report: Option<&VerifyReport>) -> IterationFacts {
    let file_hashes = did
        .edits
        .keys()
        .map(|path| {
            let h = match std::fs::read(root.join(path)) {
                Ok(bytes) => format!("{:x}", Sha256::digest(&bytes)),
                Err(_) => "absent".to_string(),
            };
            (path.clone(), h)
        })
        .collect();
    IterationFacts {
        tree_hash: report.map(|r| r.tree_hash.clone()),
        verified: report.map(|r| r.verified.clone()).unwrap_or_default(),
        unmet: report.map(|r| r.unmet.clone()).unwrap_or_default(),
        failure_signature: report.and_then(|r| r.failing.first()).map(|f| {
            judge::failure_signature(
                &f.name,
                &f.failing_tests,
                f.first_failure.as_deref().or(Some(&f.end)),
            )
        }),
        edits: did.edits.clone(),
        file_hashes,
        agent_error: did.agent_error,
        permission_denials: did.permission_denials,
        output_fingerprint: did.output_fingerprint.clone(),
    }
}

/// Records a concluded iteration — the iteration row (accounting, facts, summary), then its
/// verification as an event — and tells the observer. `extra` is merged into the verification
/// event (the Stop hook keeps the fingerprints of its checks, tree stamp and environment there).
#[allow(clippy::too_many_arguments)]
pub fn record(
    store: &mut Store,
    run_id: &str,
    settings: &RunSettings,
    n: u32,
    end: &IterationEnd,
    report: Option<&VerifyReport>,
    extra: &[(&str, serde_json::Value)],
    observer: &mut dyn FnMut(&LoopEvent),
) -> Result<(), StoreError> {
    record_rows(store, run_id, n, end, report, extra)?;
    let spent = store.spent(run_id)?;
    observer(&LoopEvent::Iteration {
        n,
        max: settings.limits.max_iterations,
        outcome: end.outcome.clone(),
        checks_passing: report
            .map(|r| r.checks.len() - r.failing.len())
            .unwrap_or(0),
        checks_total: report.map(|r| r.checks.len()).unwrap_or(0),
        usd: spent.usd,
        max_usd: settings.limits.max_usd,
        active_ms: spent.active_ms,
        summary: end.summary.clone(),
    });
    Ok(())
}

/// What [`record`] writes (the iteration row, the verification event), with no one to tell:
/// the Stop hook's turn.
pub fn record_rows(
    store: &mut Store,
    run_id: &str,
    n: u32,
    end: &IterationEnd,
    report: Option<&VerifyReport>,
    extra: &[(&str, serde_json::Value)],
) -> Result<(), StoreError> {
    // The independent reviewer's session (asked during this iteration's verification) is an
    // agent call of the run: its cost counts against the run's budget like the step's.
    let reviewer_usd = report
        .and_then(|r| r.reviewer.as_ref())
        .map_or(0.0, |r| r.charge_usd());
    if reviewer_usd > 0.0 {
        let mut charged = end.clone();
        charged.cost_usd += reviewer_usd;
        store.finish_iteration(run_id, n, &charged)?;
    } else {
        store.finish_iteration(run_id, n, end)?;
    }
    if let Some(r) = report {
        let mut event = serde_json::to_value(r).unwrap_or(json!({}));
        if let Some(o) = event.as_object_mut() {
            for (k, v) in extra {
                o.insert((*k).to_string(), v.clone());
            }
        }
        store.append_event(Some(run_id), EventKind::Verification, event)?;
    }
    Ok(())
}

/// Commits the tree the verification of iteration `n` judged on the branch checked out — the
/// run's branch (the sandbox branch when the run started on a protected one) — so that every
/// verified iteration is a commit a reviewer can walk and `pawl merge` can take
/// (`[git] commit_iterations`). The message carries the verification. Nothing changed since the
/// last commit: no commit. A commit that fails is recorded (the work stays in the tree), never a
/// stop; a committed tree other than the verified one (something wrote after the checks) says so
/// in the event.
pub fn commit_iteration(
    store: &mut Store,
    root: &Path,
    run_id: &str,
    settings: &RunSettings,
    n: u32,
    report: Option<&VerifyReport>,
) -> Result<(), StoreError> {
    let Some(report) = report else {
        return Ok(());
    };
    if !settings.git.commit_iterations {
        return Ok(());
    }
    let passing = report.checks.len() - report.failing.len();
    let state = if report.done {
        "verified done".to_string()
    } else if report.failing.is_empty() {
        format!("{passing}/{} checks pass", report.checks.len())
    } else {
        let names: Vec<&str> = report
            .failing
            .iter()
            .map(|c| {
                if c.hidden {
                    "a hidden check"
                } else {
                    c.name.as_str()
                }
            })
            .collect();
        format!(
            "{passing}/{} checks pass; failing: {}",
            report.checks.len(),
            names.join(", ")
        )
    };
    let message = format!(
        "pawl: iteration {n} — {state}\n\nPawl-Run: {run_id}\nPawl-Iteration: {n}\nPawl-Verified-Tree: {}\n",
        report.tree_hash
    );
    // Nothing to commit when HEAD (read in-process) is still the commit pawl last found or
    // made for this very tree: no git process. `.pawl/cache/head-tree` is bookkeeping only (a
    // wrong one can at most skip a commit of an unchanged tree; the evidence is bound to the
    // tree hash, not to commits).
    let cache = root.join(".pawl").join("cache").join("head-tree");
    let repo = pawl_git::Repo::open(root);
    let head = repo.as_ref().ok().and_then(|r| r.head_commit_read());
    if let Some(head) = &head
        && std::fs::read_to_string(&cache).ok().as_deref()
            == Some(format!("{head} {}\n", report.tree_hash).as_str())
    {
        return Ok(());
    }
    let remember = |commit: Option<pawl_git::CommitId>, tree: &str| {
        if let Some(c) = commit
            && let Some(dir) = cache.parent()
            && std::fs::create_dir_all(dir).is_ok()
        {
            let _ = std::fs::write(&cache, format!("{c} {tree}\n"));
        }
    };
    let committed = repo.and_then(|repo| {
        let commit = repo.commit_all(&message)?;
        let tree = match &commit {
            Some(_) => Some(repo.tree_hash()?.to_string()),
            None => None,
        };
        if commit.is_none() {
            // The tree HEAD holds now: what nothing-to-commit was found for.
            if let Ok(now) = repo.tree_hash() {
                remember(repo.head_commit_read(), now.as_str());
            }
        } else if let Some(t) = &tree {
            remember(commit.clone(), t);
        }
        Ok((commit, tree))
    });
    let data = match committed {
        Ok((None, _)) => return Ok(()),
        Ok((Some(commit), tree)) => json!({
            "iteration": n,
            "commit": commit.as_str(),
            "verified_tree": report.tree_hash,
            "same_tree": tree.as_deref() == Some(report.tree_hash.as_str()),
            "done": report.done,
        }),
        Err(e) => json!({"iteration": n, "error": e.to_string()}),
    };
    store.append_event(Some(run_id), EventKind::IterationCommitted, data)?;
    Ok(())
}

/// What the iteration that just ended showed, for [`decide`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Signals<'a> {
    pub hard_stop: bool,
    /// The verification (none after a hard stop).
    pub report: Option<&'a VerifyReport>,
    /// A sub-loop ends as soon as every check passes (the pipeline decides the rest).
    pub until_checks_pass: bool,
    pub stall_exhausted: bool,
    /// The story the iteration worked on.
    pub story: Option<&'a str>,
    /// The iteration is part of a sub-loop on that story alone.
    pub scoped: bool,
    /// The step broke a "must not" rule of the run.
    pub must_not_violated: bool,
    /// The iteration's failure was handed to the user (a blocker awaits them).
    pub handed_to_user: bool,
}

/// What a driver keeps between iterations for the breakers.
#[derive(Debug, Clone, Default)]
pub struct Window {
    /// The facts of the iterations the breakers judge, oldest first.
    pub history: Vec<IterationFacts>,
    /// The tree before the first of them.
    pub baseline_tree: Option<String>,
}

/// Applies what the turn's rules imply (a story out of attempts is skipped) and decides what
/// comes next, in the one order of `pawl_core::turn::next`. `after` is `None` before an
/// iteration starts (then only requests from outside and the limits count).
///
/// First of all, the run's state is checked (`Store::tampering`: every signed row, every
/// count): if anything in it was modified outside pawl, the run is marked tampered (what was
/// found is an event) and nothing else is read from it.
/// A stop recorded in the store since this driver took the run's lease: what `pawl serve`'s Stop
/// asks of a run that another machine drives (a shared store has no `.pawl/stop` file to write).
/// One recorded before the lease was taken was for an earlier driver: a resume is not stopped by
/// it.
fn stop_recorded(store: &Store, run_id: &str) -> Result<bool, StoreError> {
    let Some(stop) = store.last_event(run_id, EventKind::StopRequested)? else {
        return Ok(false);
    };
    let mut since = 0;
    for kind in [EventKind::LeaseAcquired, EventKind::LeaseTakeover] {
        if let Some(e) = store.last_event(run_id, kind)? {
            since = since.max(e.seq);
        }
    }
    Ok(stop.seq > since)
}

pub fn decide(
    store: &mut Store,
    run_id: &str,
    settings: &RunSettings,
    window: &Window,
    after: Option<Signals<'_>>,
    stop_requested: bool,
    observer: &mut dyn FnMut(&LoopEvent),
) -> Result<Next, StoreError> {
    if let Some(t) = store.tampering(run_id)? {
        store.mark_tampered(&t)?;
        return Ok(rules::next(&TurnFacts {
            tampered: true,
            ..TurnFacts::default()
        }));
    }
    let concluded = match after {
        None => None,
        Some(s) => Some(conclude(store, run_id, settings, window, &s, observer)?),
    };
    let facts = TurnFacts {
        tampered: false,
        concluded,
        stop_requested: stop_requested || stop_recorded(store, run_id)?,
        cancelled: store.run_status(run_id)? == RunStatus::Cancelled,
        awaiting_user: store.awaited_blocker(run_id)?.is_some(),
        limit: judge::limit_reached(&settings.limits, &store.spent(run_id)?),
    };
    Ok(rules::next(&facts))
}

fn conclude(
    store: &mut Store,
    run_id: &str,
    settings: &RunSettings,
    window: &Window,
    s: &Signals<'_>,
    observer: &mut dyn FnMut(&LoopEvent),
) -> Result<Concluded, StoreError> {
    let verified = s
        .report
        .is_some_and(|r| r.done || (s.until_checks_pass && r.failing.is_empty()));
    // The verifier recorded the failure on the story; a story out of attempts is skipped and
    // the run moves on.
    let mut scoped_out = false;
    if !verified
        && s.report.is_some()
        && let Some(id) = s.story
    {
        let story = store.story(run_id, id)?;
        if rules::story_out_of_attempts(&story) {
            store.set_story_status(
                run_id,
                id,
                pawl_core::model::StoryStatus::Skipped,
                Some("attempt limit reached"),
            )?;
            observer(&LoopEvent::StorySkipped {
                story: id.to_string(),
                attempts: story.attempts,
            });
        }
        scoped_out =
            s.scoped && store.story(run_id, id)?.status == pawl_core::model::StoryStatus::Skipped;
    }
    let outcome = s.report.and_then(|r| r.outcome);
    Ok(Concluded {
        hard_stop: s.hard_stop,
        must_not_violated: s.must_not_violated,
        handed_to_user: s.handed_to_user,
        verified,
        // A sub-loop's goal is passing checks; the run's end judges the tests and the proof.
        // (as do passing checks that depend on the run's other changes, and a proof whose
        // deciding tests answered differently when repeated: the user decides)
        // A verification the run's stop or cancel cut short (its reviewer ended unasked or
        // killed) did not finish: it ends nothing, and the stop or cancel does.
        for_review: if !s.until_checks_pass
            && matches!(outcome, Some(Outcome::Review | Outcome::Nondeterministic))
            && !s
                .report
                .and_then(|r| r.reviewer.as_ref())
                .is_some_and(|r| r.stopped())
        {
            s.report
                .and_then(|r| r.proof.as_ref())
                .and_then(pawl_core::proof::stop_reason)
        } else {
            None
        },
        // Passing checks that prove nothing end the run only when the run changed nothing:
        // otherwise the agent is asked to prove its change (a test that fails without it).
        unproven: !s.until_checks_pass
            && outcome == Some(Outcome::Unproven)
            && s.report
                .and_then(|r| r.proof.as_ref())
                .is_some_and(|p| !p.tree_changed),
        stall_exhausted: s.stall_exhausted,
        breaker: judge::breaker_tripped(
            &settings.breakers,
            &window.history,
            window.baseline_tree.as_deref(),
        ),
        scoped_story_out_of_attempts: scoped_out,
        no_story_can_progress: rules::no_story_can_progress(&store.stories(run_id)?),
    })
}

/// The story in progress, or the next pending one (started now).
pub fn current_or_next_story(store: &mut Store, run_id: &str) -> Result<Option<Story>, StoreError> {
    let stories = store.stories(run_id)?;
    if let Some(s) = stories
        .iter()
        .find(|s| s.status == pawl_core::model::StoryStatus::InProgress)
    {
        return Ok(Some(s.clone()));
    }
    if let Some(s) = stories
        .iter()
        .find(|s| s.status == pawl_core::model::StoryStatus::Pending)
    {
        return Ok(Some(store.set_story_status(
            run_id,
            &s.id,
            pawl_core::model::StoryStatus::InProgress,
            Some("next story"),
        )?));
    }
    Ok(None)
}

/// What the next prompt is built from, besides what the store holds.
pub struct NextPrompt<'a> {
    pub goal: &'a str,
    /// The iteration the prompt is for.
    pub iteration: u32,
    pub story: Option<&'a Story>,
    pub last: Option<&'a VerifyReport>,
    pub files_changed: &'a [String],
    pub agent_claimed_done: bool,
    /// The first prompt of a run states the goal and the rules; later ones continue.
    pub initial: bool,
    /// The same failure came back: the approach that failed, to be named and not repeated.
    pub change_approach: Option<&'a str>,
}

/// The prompt for the next step: the goal (first) or the continuation — unmet criteria, the
/// failing evidence, recent failures of the story, the decisions noted so far.
pub fn next_prompt(
    store: &Store,
    run_id: &str,
    settings: &RunSettings,
    p: &NextPrompt<'_>,
) -> Result<String, StoreError> {
    let criteria = store.criteria(run_id)?;
    let failures = store.failures(run_id, p.story.map(|s| s.id.as_str()), 4)?;
    let decisions = store.notes(run_id)?;
    let input = PromptInput {
        goal: p.goal,
        run_id,
        iteration: p.iteration,
        max_iterations: settings.limits.max_iterations,
        story: p.story,
        criteria: &criteria,
        last: p.last,
        recent_failures: &failures,
        files_changed: p.files_changed,
        decisions: &decisions,
        agent_claimed_done: p.agent_claimed_done,
        change_approach: p.change_approach,
    };
    Ok(if p.initial {
        prompt::initial(&input)
    } else {
        prompt::continuation(&input)
    })
}
