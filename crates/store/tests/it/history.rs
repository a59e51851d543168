//! The run history: every run with the same sums `spent` gives, newest first.

use pawl_store::StepSpend;

use crate::{new_run, open};

#[test]
fn the_history_sums_each_run_as_spent_does() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, clock) = open(&dir);
    let first = store.create_run(&new_run("first")).unwrap();
    for (tokens, usd) in [(100, 0.25), (50, 0.5)] {
        let n = store.begin_iteration(&first.id, None, "p").unwrap();
        let spend = StepSpend {
            tokens_in: tokens,
            tokens_out: 1,
            cost_usd: usd,
            ..StepSpend::default()
        };
        store.record_step_spend(&first.id, n, &spend).unwrap();
    }
    store.cancel_run(&first.id).unwrap();
    clock.advance(1000);
    let second = store.create_run(&new_run("second")).unwrap();

    let history = store.run_history().unwrap();
    let ids: Vec<&str> = history.iter().map(|h| h.run.id.as_str()).collect();
    assert_eq!(ids, [second.id.as_str(), first.id.as_str()]);
    assert_eq!(history[1].spent, store.spent(&first.id).unwrap());
    assert_eq!(
        (history[1].spent.iterations, history[1].spent.tokens),
        (2, 152)
    );
    assert!((history[1].spent.usd - 0.75).abs() < 1e-9);
    assert_eq!(history[0].spent, store.spent(&second.id).unwrap());
    assert_eq!(history[0].spent.iterations, 0);
}
