//! The API: reads, paging, compare-and-set actions through the store's typed methods.

use pawl_core::EventKind;
use pawl_core::model::{RunStatus, Severity};

use crate::support::{self, start};

#[test]
fn runs_are_listed_filtered_and_paged_with_totals() {
    let d = start();
    let mut store = d.store();
    let mut ids = Vec::new();
    for i in 0..5 {
        let run = support::new_run(&mut store, &format!("goal {i}"));
        if i < 4 {
            store.cancel_run(&run.id).unwrap();
        }
        ids.push(run.id);
    }
    let all = d.get("/api/v1/runs").json();
    assert_eq!(all["total"], 5);
    assert_eq!(all["totals"]["by_repo"][0]["runs"], 5);
    let active = d.get("/api/v1/runs?status=active").json();
    assert_eq!(active["total"], 1);
    assert_eq!(active["runs"][0]["id"], ids[4].as_str());
    let page = d.get("/api/v1/runs?limit=2&offset=2").json();
    assert_eq!(page["runs"].as_array().unwrap().len(), 2);
    assert_eq!(page["next_offset"], 4);
    let repo_id = all["runs"][0]["repo"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        d.get(&format!("/api/v1/runs?repo={repo_id}")).json()["total"],
        5
    );
    assert_eq!(d.get("/api/v1/runs?repo=elsewhere").json()["total"], 0);
    assert_eq!(d.get("/api/v1/runs?verdict=SHIP").json()["total"], 0);
    assert_eq!(d.get("/api/v1/runs?limit=abc").status, 400);
}

#[test]
fn a_run_has_its_version_as_etag_and_its_details() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "make it so");
    let r = d.get(&format!("/api/v1/runs/{}", run.id));
    assert_eq!(r.status, 200);
    let v = r.json();
    let version = store.run_version(&run.id).unwrap();
    assert_eq!(v["version"], version);
    assert_eq!(r.header("etag"), Some(format!("\"{version}\"").as_str()));
    assert_eq!(v["goal"], "make it so");
    assert_eq!(v["status"], "active");
    assert_eq!(v["limits"]["max_iterations"], 20);
    for sub in ["iterations", "evidence", "verdicts", "report", "events"] {
        let r = d.get(&format!("/api/v1/runs/{}/{sub}", run.id));
        assert_eq!(r.status, 200, "{sub}: {}", r.body);
    }
    let md = d.get(&format!("/api/v1/runs/{}/report?format=markdown", run.id));
    assert_eq!(md.status, 200);
    assert!(
        md.header("content-type")
            .unwrap()
            .starts_with("text/markdown")
    );
    assert!(md.body.contains(&run.id));
    assert_eq!(
        d.get(&format!("/api/v1/runs/{}/report?format=pdf", run.id))
            .status,
        400
    );
    // No pre-run commit: a diff is refused with a reason, not a crash.
    assert_eq!(d.get(&format!("/api/v1/runs/{}/diff", run.id)).status, 422);
    assert_eq!(d.get("/api/v1/runs/no-such-run").status, 404);
}

#[test]
fn events_page_by_id() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "goal");
    for i in 0..25 {
        store
            .append_event(Some(&run.id), EventKind::Note, serde_json::json!({"i": i}))
            .unwrap();
    }
    let all: Vec<i64> = store
        .run_events_after(&run.id, 0, 1000)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    let mut seen = Vec::new();
    let mut after = 0;
    loop {
        let page = d
            .get(&format!(
                "/api/v1/runs/{}/events?after={after}&limit=10",
                run.id
            ))
            .json();
        let events = page["events"].as_array().unwrap();
        seen.extend(events.iter().map(|e| e["seq"].as_i64().unwrap()));
        after = page["next_after"].as_i64().unwrap();
        if !page["more"].as_bool().unwrap() {
            break;
        }
    }
    assert_eq!(seen, all);
}

#[test]
fn actions_are_compare_and_set_on_the_version() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "goal");
    let stop = format!("/api/v1/runs/{}/stop", run.id);
    let version = store.run_version(&run.id).unwrap();

    let missing = d.post(&stop, None, None);
    assert_eq!(missing.status, 428, "{}", missing.body);
    assert_eq!(missing.json()["version"], version);
    let garbage = d.post(&stop, Some("\"twelve\""), None);
    assert_eq!(garbage.status, 400);

    let stale = d.post(&stop, Some(&(version - 1).to_string()), None);
    assert_eq!(stale.status, 409, "{}", stale.body);
    assert_eq!(stale.json()["run"]["version"], version);
    assert!(!d.repo_path().join(".pawl/stop").exists());

    // A quoted entity tag, as a browser sends it back.
    let ok = d.post(&stop, Some(&format!("\"{version}\"")), None);
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(
        std::fs::read_to_string(d.repo_path().join(".pawl/stop")).unwrap(),
        run.id
    );
    let event = store
        .last_event(&run.id, EventKind::StopRequested)
        .unwrap()
        .unwrap();
    assert_eq!(event.data["origin"], "dashboard");
    let new_version = ok.json()["version"].as_i64().unwrap();
    assert!(new_version > version);
    // The same version again is stale now.
    assert_eq!(d.post(&stop, Some(&version.to_string()), None).status, 409);
}

#[test]
fn a_run_nobody_drives_is_not_left_a_stop_request() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "goal");
    store
        .set_run_status(
            &run.id,
            RunStatus::Stopped,
            Some(pawl_core::StopReason::MaxUsd),
        )
        .unwrap();
    let v = store.run_version(&run.id).unwrap().to_string();
    let r = d.post(&format!("/api/v1/runs/{}/stop", run.id), Some(&v), None);
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(!d.repo_path().join(".pawl/stop").exists());
    assert!(
        store
            .last_event(&run.id, EventKind::StopRequested)
            .unwrap()
            .is_none()
    );
}

#[test]
fn resume_raises_the_limits_with_the_dashboard_as_origin() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "goal");
    let run = store
        .set_run_status(
            &run.id,
            RunStatus::Stopped,
            Some(pawl_core::StopReason::MaxUsd),
        )
        .unwrap();
    let v = store.run_version(&run.id).unwrap().to_string();
    let path = format!("/api/v1/runs/{}/resume", run.id);
    let r = d.post(
        &path,
        Some(&v),
        Some(r#"{"add_usd": 5, "add_iterations": 3}"#),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let after = store.run(&run.id).unwrap();
    assert!((after.settings.limits.max_usd - (run.settings.limits.max_usd + 5.0)).abs() < 1e-9);
    assert_eq!(
        after.settings.limits.max_iterations,
        run.settings.limits.max_iterations + 3
    );
    let e = store
        .last_event(&run.id, EventKind::LimitsChanged)
        .unwrap()
        .unwrap();
    assert_eq!(e.data["origin"], "dashboard");
    assert_eq!(r.json()["next"], format!("pawl resume {}", run.id));
    // Bad bodies are refused, not crashed on.
    let v = store.run_version(&run.id).unwrap().to_string();
    assert_eq!(
        d.post(&path, Some(&v), Some(r#"{"add_usd": -1}"#)).status,
        400
    );
    assert_eq!(d.post(&path, Some(&v), Some(r#"{"nope": 1}"#)).status, 422);
    assert_eq!(d.post(&path, Some(&v), Some("{not json")).status, 400);
    assert_eq!(d.post(&path, Some(&v), Some("{}")).status, 400);
}

#[test]
fn answer_clears_what_the_run_waits_on_and_cancel_ends_it() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "goal");
    let b = store
        .add_blocker(&run.id, "needs a key", Severity::High)
        .unwrap();
    store
        .await_user(&run.id, &b.id, "put the key in .env", None)
        .unwrap();
    let v = store.run_version(&run.id).unwrap().to_string();
    let r = d.post(
        &format!("/api/v1/runs/{}/answer", run.id),
        Some(&v),
        Some(r#"{"answer": "the key is in place"}"#),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(store.run(&run.id).unwrap().status, RunStatus::Active);
    let e = store
        .last_event(&run.id, EventKind::UserFixed)
        .unwrap()
        .unwrap();
    assert_eq!(e.data["origin"], "dashboard");
    assert_eq!(e.data["notes"], "the key is in place");

    let v = store.run_version(&run.id).unwrap().to_string();
    let cancel = format!("/api/v1/runs/{}/cancel", run.id);
    assert_eq!(d.post(&cancel, Some(&v), None).status, 200);
    assert_eq!(store.run(&run.id).unwrap().status, RunStatus::Cancelled);
    let v = store.run_version(&run.id).unwrap().to_string();
    assert_eq!(d.post(&cancel, Some(&v), None).status, 422);
}

#[test]
fn the_openapi_document_describes_every_route() {
    let d = start();
    let doc = d.get("/api/v1/openapi.json").json();
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    assert_eq!(paths.len(), 19);
    for (path, ops) in paths {
        for method in ops.as_object().unwrap().keys() {
            if path.ends_with("/stream") {
                continue;
            }
            let p = path
                .replace("{id}", "no-such-run")
                .replace("{question}", "1");
            let r = if method == "get" {
                d.get(&p)
            } else {
                d.post(&p, Some("1"), Some("{}"))
            };
            let documented = ops[method]["responses"].as_object().unwrap();
            assert!(
                documented.contains_key(&r.status.to_string()),
                "{method} {path} answered {} ({}), documented: {:?}",
                r.status,
                r.body,
                documented.keys().collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn a_repository_added_while_serving_is_followed() {
    let d = start();
    let other = tempfile::tempdir().unwrap();
    let mut store = support::make_repo(other.path());
    let run = support::new_run(&mut store, "elsewhere");
    assert_eq!(d.get(&format!("/api/v1/runs/{}", run.id)).status, 404);
    pawl_serve::registry::register(d.state.path(), other.path()).unwrap();
    assert_eq!(d.get(&format!("/api/v1/runs/{}", run.id)).status, 200);
    assert_eq!(
        d.get("/api/v1/repos").json()["repos"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

/// The dashboard's user sees what the independent tester's hidden tests called and got once the
/// run ended, as `pawl report` shows it: read from the user's private directory (the vault under
/// the daemon's state), never from the store — which keeps only the behaviour's name.
#[test]
fn the_report_shows_the_user_the_hidden_tests_that_failed_once_the_run_ended() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "make double(n) return twice n");
    let mut report = serde_json::to_value(pawl_engine::VerifyReport::default()).unwrap();
    report["locked"] = serde_json::json!({
        "result": serde_json::to_value(pawl_core::proof::Locked::Holds).unwrap(),
        "from_tree": "f", "base_tree": "b", "tree": "t1",
        "taken": [], "left_out": [], "lines": [], "runs": 3,
        "hidden": {"from": "tester", "files": 1, "calls": 1, "probed": 1, "failing": ["double"],
                   "not_run": ["1 test(s): not a call with literal arguments"], "ms": 1}
    });
    store
        .append_event(Some(&run.id), EventKind::Verification, report)
        .unwrap();
    let private = d.state.path().join("hidden/tester").join(&run.id);
    std::fs::create_dir_all(&private).unwrap();
    std::fs::write(
        private.join("failed-t1.txt"),
        "`double`: double(4321) expects 8642, gives 8643\nnot run: test_hidden.py: Hidden.test_named_far",
    )
    .unwrap();
    let path = format!("/api/v1/runs/{}/report", run.id);
    // While the run is active, nothing: a step could be reading.
    let active = d.get(&path).json();
    assert!(active.get("hidden_failed").is_none(), "{active}");
    store
        .set_run_status(
            &run.id,
            RunStatus::Stopped,
            Some(pawl_core::StopReason::Review),
        )
        .unwrap();
    let ended = d.get(&path).json();
    let shown = ended["hidden_failed"].to_string();
    assert!(shown.contains("double(4321) expects 8642"), "{ended}");
    assert!(shown.contains("test_named_far"), "{ended}");
    let md = d.get(&format!("{path}?format=markdown")).body;
    assert!(md.contains("double(4321)"), "{md}");
    // The store has the behaviour, never the call.
    let events = store.events_after(Some(&run.id), 0, usize::MAX).unwrap();
    assert!(
        !events
            .iter()
            .any(|e| e.data.to_string().contains("double(4321)")),
    );
}
