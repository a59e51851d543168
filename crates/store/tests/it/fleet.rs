//! A store shared by a fleet: one open run per clone, and a fleet budget held and settled per
//! agent step (the same tests on SQLite and PostgreSQL).

use pawl_store::{FleetBudget, Scope, StepSpend, Store, StoreError};

use crate::{new_run, open};

fn scoped(mut s: Store, clone: &str, fleet: Option<&str>) -> Store {
    s.set_scope(Scope {
        clone: Some(clone.into()),
        fleet: fleet.map(str::to_string),
    });
    s
}

fn spend(usd: f64, tokens: u64) -> StepSpend {
    StepSpend {
        tokens_in: tokens,
        tokens_out: 0,
        cost_usd: usd,
        cost_estimated: false,
        session_id: None,
    }
}

#[test]
fn one_open_run_per_clone_on_a_shared_store() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = scoped(open(&dir).0, "host1:/work/app", None);
    let mut b = scoped(open(&dir).0, "host2:/work/app", None);
    let ra = a.create_run(&new_run("a")).unwrap();
    let rb = b.create_run(&new_run("b")).unwrap();
    assert_eq!(a.current_run().unwrap().unwrap().id, ra.id);
    assert_eq!(b.current_run().unwrap().unwrap().id, rb.id);
    assert_eq!(a.runs().unwrap().len(), 1);
    let err = a.create_run(&new_run("a2")).unwrap_err();
    assert!(err.to_string().contains(&ra.id), "{err}");
    // Every run is still found by its id, from any clone; a handle without a clone sees all.
    assert_eq!(a.run(&rb.id).unwrap().goal, "b");
    assert_eq!(open(&dir).0.runs().unwrap().len(), 2);
}

#[test]
fn a_fleet_budget_is_held_per_step_and_settled_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open(&dir).0;
    s.set_fleet_budget(
        "f1",
        &FleetBudget {
            max_usd: Some(1.0),
            max_tokens: Some(10_000),
            step_usd: 0.4,
            step_tokens: 1_000,
        },
    )
    .unwrap();
    let mut runs = Vec::new();
    for i in 0..3 {
        let dir_i = format!("h:/clone{i}");
        let mut h = scoped(open(&dir).0, &dir_i, Some("f1"));
        let run = h.create_run(&new_run("g")).unwrap();
        runs.push((h, run.id));
    }
    let id0 = runs[0].1.clone();
    let n0 = runs[0].0.begin_iteration(&id0, None, "p").unwrap();
    let id1 = runs[1].1.clone();
    runs[1].0.begin_iteration(&id1, None, "p").unwrap();
    let id2 = runs[2].1.clone();
    // 0.8 held; another 0.4 would pass the cap of 1.0: refused, and nothing written.
    let err = runs[2].0.begin_iteration(&id2, None, "p").unwrap_err();
    assert!(
        matches!(&err, StoreError::FleetBudget { fleet, what: "dollar", .. } if fleet == "f1"),
        "{err}"
    );
    assert!(runs[2].0.iterations(&id2).unwrap().is_empty());
    let t = s.fleet_totals("f1").unwrap().unwrap();
    assert_eq!((t.held_usd, t.spent_usd, t.steps_in_flight), (0.8, 0.0, 2));
    // The first step spent 0.1: its hold becomes 0.1 spent, and there is room again.
    let id0 = runs[0].1.clone();
    runs[0]
        .0
        .record_step_spend(&id0, n0, &spend(0.1, 300))
        .unwrap();
    let t = s.fleet_totals("f1").unwrap().unwrap();
    assert_eq!((t.held_usd, t.spent_usd, t.spent_tokens), (0.4, 0.1, 300));
    runs[2].0.begin_iteration(&id2, None, "p").unwrap();
    let t = s.fleet_totals("f1").unwrap().unwrap();
    assert!(
        (t.held_usd - 0.8).abs() < 1e-9 && t.steps_in_flight == 2,
        "{t:?}"
    );
    // The holder of run 1 dies mid-step: its resume settles the hold in full (spend unknown).
    runs[1].0.interrupt_open_iterations(&id1).unwrap();
    let t = s.fleet_totals("f1").unwrap().unwrap();
    assert_eq!((t.held_usd, t.spent_usd, t.steps_in_flight), (0.4, 0.5, 1));
    let kinds: Vec<String> = s
        .events_after(Some(&id1), 0, 100)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == "iteration_interrupted")
        .map(|e| e.data["fleet_settled"]["charged_in_full"].to_string())
        .collect();
    assert_eq!(kinds, ["true"]);
}

#[test]
fn runs_outside_any_fleet_hold_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open(&dir).0;
    let run = s.create_run(&new_run("g")).unwrap();
    let n = s.begin_iteration(&run.id, None, "p").unwrap();
    s.record_step_spend(&run.id, n, &spend(5.0, 10)).unwrap();
    assert!(s.fleets().unwrap().is_empty());
    let started = s.events_after(Some(&run.id), 0, 100).unwrap();
    assert!(started.iter().all(|e| e.data.get("fleet_hold").is_none()));
}

/// Many writers from as many connections: the budget is never overdrawn and every settled
/// dollar is counted once.
#[test]
fn concurrent_steps_never_overdraw_the_fleet() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open(&dir).0;
    s.set_fleet_budget(
        "f",
        &FleetBudget {
            max_usd: Some(3.0),
            max_tokens: None,
            step_usd: 0.5,
            step_tokens: 0,
        },
    )
    .unwrap();
    let handles: Vec<_> = (0..6)
        .map(|t| {
            let mut h = scoped(open(&dir).0, &format!("h:/c{t}"), Some("f"));
            std::thread::spawn(move || {
                let run = h.create_run(&new_run("g")).unwrap();
                let mut spent = 0.0;
                for _ in 0..10 {
                    match h.begin_iteration(&run.id, None, "p") {
                        Ok(n) => {
                            h.record_step_spend(&run.id, n, &spend(0.25, 1)).unwrap();
                            spent += 0.25;
                        }
                        Err(StoreError::FleetBudget { .. }) => break,
                        Err(e) => panic!("{e}"),
                    }
                }
                spent
            })
        })
        .collect();
    let total: f64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    let t = s.fleet_totals("f").unwrap().unwrap();
    assert_eq!(t.held_usd, 0.0);
    assert!((t.spent_usd - total).abs() < 1e-9, "{t:?} vs {total}");
    assert!(t.spent_usd <= 3.0, "{t:?}");
    // 0.25 per step, a step needs 0.5 of room: the fleet stops at 2.75 or 3.0 spent.
    assert!(t.spent_usd >= 2.75, "{t:?}");
}
