//! Starting a run from the dashboard (`POST /api/v1/runs`), against a stand-in `pawl` that
//! records how it was started: the attacks first (the token, a missing CSRF key, another
//! origin, a repository outside the served set, bodies of the wrong shape — none starts
//! anything), then a start: the driver detached in the repository with the environment the
//! repository joined with, followed to its run or its failure. The real `pawl run` started
//! this way is the CLI's test (`crates/cli/tests/it/serve.rs`).

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use crate::security::browser_session;
use crate::support::{self, Daemon, wait_for};

/// A stand-in `pawl`: writes its arguments (one a line), working directory, environment and
/// whether it leads a session of its own into `marks/`, says something on stderr and exits
/// with `marks/exit` (0 when absent) once `marks/go` exists (or after about a minute: a test
/// that failed leaves nothing running).
fn stand_in(dir: &Path) -> (PathBuf, PathBuf) {
    let marks = dir.join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    let script = dir.join("pawl");
    let m = marks.display();
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '{m}/argv.tmp'\npwd > '{m}/cwd'\nenv > '{m}/env'\nsid=$(cut -d' ' -f6 /proc/$$/stat)\n[ \"$sid\" = \"$$\" ] && echo leader > '{m}/session'\nmv '{m}/argv.tmp' '{m}/argv'\necho 'no run here: the stand-in' >&2\nn=0; while [ ! -e '{m}/go' ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done\nexit $(cat '{m}/exit' 2>/dev/null || echo 0)\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, marks)
}

fn daemon(dir: &Path) -> (Daemon, PathBuf) {
    let (script, marks) = stand_in(dir);
    let d = support::start_with(|o| o.program = Some(script));
    pawl_serve::registry::record_environment(
        d.state.path(),
        d.repo.path(),
        [
            (OsString::from("MARK"), OsString::from("joined")),
            (OsString::from("PATH"), OsString::from("/usr/bin:/bin")),
            (OsString::from("SECRET_TOKEN"), OsString::from("s3cret")),
        ],
        1,
        true,
    )
    .unwrap();
    (d, marks)
}

fn repo_id(d: &Daemon) -> String {
    d.get("/api/v1/repos").json()["repos"][0]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn starting_a_run_is_refused_to_the_token_a_missing_key_another_origin_and_a_stranger() {
    let dir = tempfile::tempdir().unwrap();
    let (d, marks) = daemon(dir.path());
    let body = format!(r#"{{"repo": "{}", "goal": "make done.txt"}}"#, repo_id(&d));
    let own = format!("http://{}", d.host());
    let json = ("Content-Type", "application/json");
    let (cookie, csrf) = browser_session(&d);
    let csrf = csrf.unwrap();
    let bearer = format!("Bearer {}", d.token);

    // The API token, right as it is, starts nothing: the browser's session only.
    let r = d.send(
        "POST",
        "/api/v1/runs",
        &[("Authorization", &bearer), json],
        Some(&body),
    );
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (403, Some("session_required")),
        "{}",
        r.body
    );
    // The token from another site's page.
    let r = d.send(
        "POST",
        "/api/v1/runs",
        &[
            ("Authorization", &bearer),
            ("Origin", "http://evil.example"),
            json,
        ],
        Some(&body),
    );
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (403, Some("origin_refused")),
        "{}",
        r.body
    );
    // The session's cookie without its CSRF key (a form on another page, a stolen cookie).
    let r = d.send(
        "POST",
        "/api/v1/runs",
        &[("Cookie", &cookie), json],
        Some(&body),
    );
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (403, Some("csrf_refused")),
        "{}",
        r.body
    );
    let r = d.send(
        "POST",
        &format!("/api/v1/runs?csrf={csrf}"),
        &[("Cookie", &cookie), json],
        Some(&body),
    );
    assert_eq!(
        r.status, 403,
        "the key in the query is for streams: {}",
        r.body
    );
    // The whole session from another origin.
    let session = [
        ("Cookie", cookie.as_str()),
        ("X-Pawl-Csrf", csrf.as_str()),
        json,
    ];
    let mut cross = session.to_vec();
    cross.push(("Origin", "http://127.0.0.1:1"));
    let r = d.send("POST", "/api/v1/runs", &cross, Some(&body));
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (403, Some("origin_refused")),
        "{}",
        r.body
    );
    // A repository outside the served set, by path or id.
    for stranger in ["/etc", "0123456789ab"] {
        let b = format!(r#"{{"repo": "{stranger}", "goal": "make done.txt"}}"#);
        let r = d.send("POST", "/api/v1/runs", &session, Some(&b));
        assert_eq!(r.status, 422, "{}", r.body);
        assert_eq!(r.json()["error"], "repo_not_served");
        assert!(
            r.json()["message"]
                .as_str()
                .unwrap()
                .contains("not in the served set"),
            "{}",
            r.body
        );
    }
    // Bodies of the wrong shape: 400, naming the field.
    for (bad, field) in [
        (r#"{"repo": 3, "goal": "g"}"#.to_string(), "repo"),
        (r#"{"repo": "r"}"#.to_string(), "goal"),
        (
            format!(
                r#"{{"repo": "{}", "goal": "g", "shell": "rm -rf /"}}"#,
                repo_id(&d)
            ),
            "shell",
        ),
        (
            format!(
                r#"{{"repo": "{}", "goal": "g", "limits": {{"max_iterations": -1}}}}"#,
                repo_id(&d)
            ),
            "max_iterations",
        ),
        (
            format!(
                r#"{{"repo": "{}", "goal": "g", "mode": "fast"}}"#,
                repo_id(&d)
            ),
            "mode",
        ),
        (
            format!(r#"{{"repo": "{}", "goal": "   "}}"#, repo_id(&d)),
            "goal",
        ),
        (
            format!(
                r#"{{"repo": "{}", "goal": "g", "checks": ["make test"]}}"#,
                repo_id(&d)
            ),
            "checks_confirmed",
        ),
        ("{not json".to_string(), ""),
    ] {
        let r = d.send("POST", "/api/v1/runs", &session, Some(&bad));
        assert_eq!(r.status, 400, "{bad}: {}", r.body);
        assert!(
            r.json()["message"].as_str().unwrap().contains(field),
            "{bad}: {}",
            r.body
        );
    }
    let r = d.send(
        "POST",
        "/api/v1/runs",
        &[
            ("Cookie", cookie.as_str()),
            ("X-Pawl-Csrf", csrf.as_str()),
            ("Content-Type", "text/plain"),
        ],
        Some(&body),
    );
    assert_eq!(r.status, 415, "{}", r.body);
    // Nothing was started by any of them.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        !marks.join("argv").exists(),
        "a refused request started pawl"
    );

    // The page itself: started, detached, in the repository, with the environment the
    // repository joined with — never the daemon's own.
    let mut page = session.to_vec();
    page.push(("Origin", own.as_str()));
    let b = format!(
        r#"{{"repo": "{}", "goal": "--help me", "mode": "simple", "limits": {{"max_iterations": 4}}, "checks": ["test -f done.txt"], "checks_confirmed": true}}"#,
        repo_id(&d)
    );
    let r = d.send("POST", "/api/v1/runs", &page, Some(&b));
    assert_eq!(r.status, 202, "{}", r.body);
    let handle = r.json()["start"].as_str().unwrap().to_string();
    wait_for("the driver", || marks.join("argv").exists());
    let argv = std::fs::read_to_string(marks.join("argv")).unwrap();
    assert_eq!(
        argv.lines().collect::<Vec<_>>(),
        [
            "run",
            "--json",
            "--await-answers",
            "--mode",
            "simple",
            "--max-iterations",
            "4",
            "--check=test -f done.txt",
            "--",
            "--help me"
        ]
    );
    let cwd = std::fs::read_to_string(marks.join("cwd")).unwrap();
    assert_eq!(Path::new(cwd.trim()), d.repo.path().canonicalize().unwrap());
    let env = std::fs::read_to_string(marks.join("env")).unwrap();
    assert!(env.lines().any(|l| l == "MARK=joined"), "{env}");
    assert!(
        !env.contains("CARGO_MANIFEST_DIR"),
        "the daemon's own environment reached the run: {env}"
    );
    assert!(
        marks.join("session").exists(),
        "the driver leads a session of its own"
    );
    let s = d.get(&format!("/api/v1/starts/{handle}")).json();
    assert_eq!(s["status"], "starting", "{s}");
    // It ends without making a run: failed, with its exit code and what it said.
    std::fs::write(marks.join("exit"), "3").unwrap();
    std::fs::write(marks.join("go"), "").unwrap();
    wait_for("the failure", || {
        d.get(&format!("/api/v1/starts/{handle}")).json()["status"] == "failed"
    });
    let s = d.get(&format!("/api/v1/starts/{handle}")).json();
    assert_eq!(s["exit_code"], 3, "{s}");
    assert!(s["lines"].to_string().contains("no run here"), "{s}");
    assert_eq!(d.get("/api/v1/starts/nope").status, 404);

    // The form shows the recorded environment: every name, the values of the harmless ones.
    let repos = d.get("/api/v1/repos").json();
    let vars = repos["repos"][0]["environment"]["vars"]
        .as_array()
        .unwrap()
        .clone();
    let value = |name: &str| {
        vars.iter()
            .find(|v| v["name"] == name)
            .map(|v| v["value"].clone())
    };
    assert_eq!(value("PATH"), Some(serde_json::json!("/usr/bin:/bin")));
    assert_eq!(
        value("SECRET_TOKEN"),
        Some(serde_json::Value::Null),
        "{repos}"
    );
    assert!(!repos.to_string().contains("s3cret"));
}

#[test]
fn a_start_is_followed_to_its_run_and_a_repository_without_an_environment_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (d, marks) = daemon(dir.path());
    let (cookie, csrf) = browser_session(&d);
    let csrf = csrf.unwrap();
    let session = [
        ("Cookie", cookie.as_str()),
        ("X-Pawl-Csrf", csrf.as_str()),
        ("Content-Type", "application/json"),
    ];
    let body = format!(r#"{{"repo": "{}", "goal": "make done.txt"}}"#, repo_id(&d));
    let r = d.send("POST", "/api/v1/runs", &session, Some(&body));
    assert_eq!(r.status, 202, "{}", r.body);
    let handle = r.json()["start"].as_str().unwrap().to_string();
    wait_for("the driver", || marks.join("argv").exists());
    // The driver creates its run (here: the test, as the stand-in cannot sign one).
    let mut store = d.store();
    let run = support::new_run(&mut store, "make done.txt");
    wait_for("the run", || {
        d.get(&format!("/api/v1/starts/{handle}")).json()["status"] == "started"
    });
    assert_eq!(
        d.get(&format!("/api/v1/starts/{handle}")).json()["run"],
        run.id.as_str()
    );
    std::fs::write(marks.join("go"), "").unwrap();

    // A repository that joined before environments were recorded.
    let other = tempfile::tempdir().unwrap();
    drop(support::make_repo(other.path()));
    pawl_serve::registry::register(d.state.path(), other.path()).unwrap();
    let b = format!(
        r#"{{"repo": "{}", "goal": "g"}}"#,
        other.path().canonicalize().unwrap().display()
    );
    let r = d.send("POST", "/api/v1/runs", &session, Some(&b));
    assert_eq!(
        (r.status, r.json()["error"].as_str()),
        (422, Some("no_environment")),
        "{}",
        r.body
    );
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .contains("pawl serve --add"),
        "{}",
        r.body
    );
}

#[test]
fn a_question_the_run_waits_on_is_answered_once_from_the_dashboard() {
    let d = support::start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "make it better");
    let q = store
        .ask_question(&run.id, "which file?", "greet.txt", None)
        .unwrap();
    let shown = d.get(&format!("/api/v1/runs/{}", run.id)).json();
    assert_eq!(shown["questions"][0]["question"], "which file?", "{shown}");
    assert!(shown["questions"][0]["answer"].is_null());
    let path = format!("/api/v1/runs/{}/questions/{q}", run.id);
    let r = d.post(&path, None, Some(r#"{"answer": "hello.txt"}"#));
    assert_eq!(r.status, 200, "{}", r.body);
    let kept = store.question(&run.id, q).unwrap();
    assert_eq!(
        (
            kept.answer.as_deref(),
            kept.assumed,
            kept.answered_by.as_deref()
        ),
        (Some("hello.txt"), false, Some("dashboard"))
    );
    assert!(store.pending_questions(&run.id).unwrap().is_empty());
    // The first answer wins: a second (another tab) is told what was kept.
    let r = d.post(&path, None, Some(r#"{"answer": "other.txt"}"#));
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(r.json()["question"]["answer"], "hello.txt");
    assert_eq!(
        store.question(&run.id, q).unwrap().answer.as_deref(),
        Some("hello.txt")
    );
    let origin = store
        .run_events_after(&run.id, 0, 1000)
        .unwrap()
        .into_iter()
        .find(|e| e.kind == "question_answered")
        .unwrap();
    assert_eq!(origin.data["origin"], "dashboard", "{:?}", origin.data);
    for (p, body, status) in [
        (
            format!("/api/v1/runs/{}/questions/x", run.id),
            r#"{"answer": "a"}"#,
            400,
        ),
        (
            format!("/api/v1/runs/{}/questions/99", run.id),
            r#"{"answer": "a"}"#,
            404,
        ),
        (path.clone(), r#"{"answer": "  "}"#, 400),
        (path.clone(), r#"{"reply": "a"}"#, 422),
    ] {
        assert_eq!(d.post(&p, None, Some(body)).status, status, "{p} {body}");
    }
}
