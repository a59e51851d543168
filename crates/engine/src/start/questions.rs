//! Clarifying questions kept in the store (`pawl_store::StoredQuestion`) while they wait, so
//! that any front end can answer them: [`Kept`] wraps the asking front end's [`Answerer`] (a
//! terminal) and keeps each question pending in the store while it asks; [`FromStore`] is the
//! answerer of a front end that is not there when the question is asked (the dashboard): the
//! question waits in the store for an answer until a timeout, then the recommendation is taken,
//! as assumed. Either way the first answer given wins.
//!
//! Not here: which questions are asked and what their answers do (`super::spec`, the
//! pipeline's interview), answering from the dashboard (`pawl serve`, through
//! `Store::answer_question`).

use std::time::{Duration, Instant};

use pawl_core::pipeline::output::Question;
use pawl_store::Store;

use crate::pipeline::{Answer, Answerer};

/// Who answered when nobody did.
const TIMEOUT: &str = "timeout";

/// The asking front end's answerer, with each question kept in the store while it waits: an
/// answer given meanwhile from another front end wins over the asker's own.
pub struct Kept<'a> {
    /// A handle of its own on the run's store (`None`: nothing is kept, the asker answers).
    pub store: Option<Store>,
    pub run_id: String,
    /// Who the asker is (`terminal`).
    pub by: &'static str,
    pub inner: &'a mut dyn Answerer,
}

impl Answerer for Kept<'_> {
    fn answer(&mut self, q: &Question) -> Answer {
        let id = self.store.as_mut().and_then(|s| {
            s.ask_question(
                &self.run_id,
                &q.question,
                &q.recommended,
                q.category.as_deref(),
            )
            .ok()
        });
        let own = self.inner.answer(q);
        let (Some(store), Some(id)) = (self.store.as_mut(), id) else {
            return own;
        };
        let by = if own.assumed { TIMEOUT } else { self.by };
        settle(store, &self.run_id, id, own, by)
    }
}

/// Records `own` as question `id`'s answer unless another came first; the answer kept.
fn settle(store: &mut Store, run_id: &str, id: i64, own: Answer, by: &str) -> Answer {
    match store.answer_question(run_id, id, &own.text, own.assumed, by) {
        Ok(true) | Err(_) => own,
        Ok(false) => match store.question(run_id, id) {
            Ok(kept) => Answer {
                text: kept.answer.unwrap_or(own.text),
                assumed: kept.assumed,
            },
            Err(_) => own,
        },
    }
}

/// The answerer of a front end that is not there when a question is asked: the question waits
/// in the store for `timeout` (looked at every `poll`), then the recommendation is taken, as
/// assumed.
pub struct FromStore {
    pub store: Store,
    pub run_id: String,
    pub timeout: Duration,
    pub poll: Duration,
}

impl Answerer for FromStore {
    fn answer(&mut self, q: &Question) -> Answer {
        let recommended = Answer {
            text: q.recommended.clone(),
            assumed: true,
        };
        let Ok(id) = self.store.ask_question(
            &self.run_id,
            &q.question,
            &q.recommended,
            q.category.as_deref(),
        ) else {
            return recommended;
        };
        let until = Instant::now() + self.timeout;
        loop {
            if let Ok(kept) = self.store.question(&self.run_id, id)
                && let Some(text) = kept.answer
            {
                return Answer {
                    text,
                    assumed: kept.assumed,
                };
            }
            let now = Instant::now();
            if now >= until {
                break;
            }
            std::thread::sleep(self.poll.min(until - now));
        }
        settle(&mut self.store, &self.run_id, id, recommended, TIMEOUT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pawl_core::model::Driver;
    use pawl_store::NewRun;

    fn question() -> Question {
        Question {
            question: "which file holds the greeting?".into(),
            recommended: "greet.txt".into(),
            category: Some("scope".into()),
        }
    }

    fn new_run(db: &std::path::Path) -> String {
        let mut store = Store::open(db).expect("store");
        store
            .create_run(&NewRun {
                goal: "make it better".into(),
                driver: Driver::Headless,
                mode: None,
                settings: Default::default(),
                branch: None,
                pre_run_commit: None,
            })
            .expect("run")
            .id
    }

    /// A terminal nobody types at, while the dashboard answers the question it finds pending.
    struct SilentWhileDashboardAnswers(std::path::PathBuf, String);

    impl Answerer for SilentWhileDashboardAnswers {
        fn answer(&mut self, q: &Question) -> Answer {
            let mut dashboard = Store::open(&self.0).expect("store");
            let pending = dashboard.pending_questions(&self.1).expect("pending");
            assert_eq!(pending.len(), 1, "the question waits in the store");
            dashboard
                .answer_question(&self.1, pending[0].id, "hello.txt", false, "dashboard")
                .expect("answer");
            Answer {
                text: q.recommended.clone(),
                assumed: true,
            }
        }
    }

    #[test]
    fn an_answer_from_another_front_end_wins_over_the_askers_silence() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("pawl.db");
        let run = new_run(&db);
        let mut terminal = SilentWhileDashboardAnswers(db.clone(), run.clone());
        let mut kept = Kept {
            store: Some(Store::open(&db).expect("store")),
            run_id: run.clone(),
            by: "terminal",
            inner: &mut terminal,
        };
        let a = kept.answer(&question());
        assert_eq!(a.text, "hello.txt");
        assert!(!a.assumed);
        let store = Store::open(&db).expect("store");
        let qs = store.questions(&run).expect("questions");
        assert_eq!(qs.len(), 1);
        assert_eq!(qs[0].answered_by.as_deref(), Some("dashboard"));
    }

    #[test]
    fn a_question_kept_in_the_store_is_answered_later_or_assumed_after_the_timeout() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("pawl.db");
        let run = new_run(&db);
        // Answered from another handle while it waits.
        let answering = {
            let (db, run) = (db.clone(), run.clone());
            std::thread::spawn(move || {
                let mut store = Store::open(&db).expect("store");
                let until = Instant::now() + Duration::from_secs(60);
                while Instant::now() < until {
                    if let Some(q) = store.pending_questions(&run).expect("pending").first() {
                        return store
                            .answer_question(&run, q.id, "hello.txt", false, "dashboard")
                            .expect("answer");
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                false
            })
        };
        let mut waiting = FromStore {
            store: Store::open(&db).expect("store"),
            run_id: run.clone(),
            timeout: Duration::from_secs(60),
            poll: Duration::from_millis(10),
        };
        let a = waiting.answer(&question());
        assert!(answering.join().expect("thread"));
        assert_eq!(
            a,
            Answer {
                text: "hello.txt".into(),
                assumed: false
            }
        );
        // Nobody answers: the recommendation, assumed, recorded as taken on the timeout.
        waiting.timeout = Duration::from_millis(30);
        let a = waiting.answer(&question());
        assert_eq!(
            a,
            Answer {
                text: "greet.txt".into(),
                assumed: true
            }
        );
        let qs = waiting.store.questions(&run).expect("questions");
        assert_eq!(qs.len(), 2);
        assert_eq!(qs[1].answered_by.as_deref(), Some("timeout"));
        assert!(waiting.store.pending_questions(&run).expect("p").is_empty());
    }
}
