//! `pawl fleet plan`: the workflow and the Kubernetes Jobs it writes are valid against the
//! official schemas (vendored in tests/data/schemas, offline), one job per run.

use serde_json::Value;

const FLEET: &str = r#"
[fleet]
name = "nightly"
image = "registry.example/pawl:1"

[[runs]]
repo = "https://github.com/org/app.git"
branch = "main"
goal = "fix the date parser (issue 12)"

[[runs]]
repo = "/srv/clones/app"
goal = "on: say \"yes\" — 100% ${{ not an expression }}"

[[runs]]
repo = "git@example.org:org/lib.git"
branch = "release/2.x"
goal = "no"
"#;

fn schema(name: &str) -> jsonschema::Validator {
    let path = format!("{}/tests/data/schemas/{name}", env!("CARGO_MANIFEST_DIR"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

/// A YAML document as JSON, read by a real YAML parser (not by pawl's writer).
fn to_json(y: &yaml_rust2::Yaml) -> Value {
    use yaml_rust2::Yaml;
    match y {
        Yaml::Real(r) => serde_json::json!(r.parse::<f64>().unwrap()),
        Yaml::Integer(i) => serde_json::json!(i),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        Yaml::Hash(h) => Value::Object(
            h.iter()
                .map(|(k, v)| (k.as_str().expect("string keys").to_string(), to_json(v)))
                .collect(),
        ),
        Yaml::Null => Value::Null,
        other => panic!("unexpected YAML node {other:?}"),
    }
}

fn load(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    yaml_rust2::YamlLoader::load_from_str(&text)
        .unwrap()
        .iter()
        .filter(|d| !d.is_null())
        .map(to_json)
        .collect()
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn plan(dir: &tempfile::TempDir, text: &str) -> std::process::Output {
    std::fs::write(dir.path().join("fleet.toml"), text).unwrap();
    assert_cmd::Command::cargo_bin("pawl")
        .unwrap()
        .current_dir(dir.path())
        .args(["fleet", "plan", "fleet.toml", "--out", "out"])
        .output()
        .unwrap()
}

#[test]
fn the_plan_is_a_valid_workflow_and_valid_jobs_one_per_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = plan(&dir, FLEET);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let workflow = load(&dir.path().join("out/github-workflow.yml"));
    assert_eq!(workflow.len(), 1);
    let wf_schema = schema("github-workflow.schema.json");
    assert_eq!(errors(&wf_schema, &workflow[0]), Vec::<String>::new());
    let include = workflow[0]["jobs"]["run"]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap();
    let goals: Vec<&str> = include
        .iter()
        .map(|r| r["goal"].as_str().unwrap())
        .collect();
    assert_eq!(
        goals,
        [
            "fix the date parser (issue 12)",
            "on: say \"yes\" — 100% ${{ not an expression }}",
            "no"
        ]
    );
    assert_eq!(include[1]["branch"], "main");
    assert_eq!(
        workflow[0]["jobs"]["run"]["env"]["PAWL_STORE_FLEET"],
        "nightly"
    );

    let jobs = load(&dir.path().join("out/k8s-jobs.yml"));
    assert_eq!(jobs.len(), 3);
    let job_schema = schema("k8s-job-batch-v1.schema.json");
    for (i, job) in jobs.iter().enumerate() {
        assert_eq!(errors(&job_schema, job), Vec::<String>::new(), "job {i}");
        assert_eq!(job["metadata"]["name"], format!("pawl-nightly-{i}"));
        let env = job["spec"]["template"]["spec"]["containers"][0]["env"]
            .as_array()
            .unwrap();
        let goal = env.iter().find(|e| e["name"] == "PAWL_GOAL").unwrap();
        assert_eq!(goal["value"].as_str(), Some(goals[i]));
    }

    // The schemas do judge: a job without its containers, a workflow job without a runner, are
    // refused.
    let mut broken = jobs[0].clone();
    broken["spec"]["template"]["spec"]["containers"] = Value::String("none".into());
    assert!(!errors(&job_schema, &broken).is_empty());
    let mut broken = workflow[0].clone();
    broken["jobs"]["run"]["strategy"] = Value::String("fast".into());
    assert!(!errors(&wf_schema, &broken).is_empty());
}

#[test]
fn a_bad_fleet_file_is_refused_naming_the_field_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = plan(&dir, "[[runs]]\nrepo = \"r\"\ngoals = \"typo\"\n");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fleet.toml") && err.contains("goals"), "{err}");
    assert!(!dir.path().join("out").exists());
}

/// A dozen runs as separate processes, each in its own clone (no `pawl init`), against one
/// PostgreSQL store and one fleet budget; three are killed -9 inside their first agent step and
/// resumed by new processes. Nothing is lost or counted twice, every lease is released, the
/// budget settles to the micro-dollar. (The bench `fleet` does the same with 200 runs.)
#[test]
fn a_fleet_of_runs_shares_one_store_through_kills_and_resumes() {
    let Some(url) = crate::fleet_harness::server_schema("it") else {
        return;
    };
    let pawl = crate::headless::pawl_bin();
    let fleet = crate::fleet_harness::setup(&pawl, url, 12, vec![1, 5, 9]);
    let outcome = crate::fleet_harness::drive(&fleet, &pawl);
    crate::fleet_harness::check(&fleet);
    assert!(outcome.events > 12 * 10, "{} events", outcome.events);
    // One view: `pawl runs --store` lists every run of the fleet with the fleet's totals.
    let out = fleet
        .command(&pawl, fleet.dir.path())
        .args(["runs", "--store", &fleet.url, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runs"].as_array().unwrap().len(), 12);
    assert_eq!(v["totals"]["fleets"]["scale"]["runs"], 12);
    assert!(
        v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["verdict"] == "SHIP"),
        "{v}"
    );
    let budget = &v["totals"]["fleets"]["scale"]["budget"];
    assert_eq!(budget["held_usd"], 0.0);
}

/// The image installs the agent CLIs at the versions the real-client tests pin: it reads them
/// from `.ci/agent-versions`, as `.ci/install-agents.sh` does, and writes none itself.
#[test]
fn the_containerfile_pins_the_agent_clis_the_tests_use() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let containerfile = std::fs::read_to_string(root.join("Containerfile")).unwrap();
    let script = std::fs::read_to_string(root.join(".ci/install-agents.sh")).unwrap();
    assert!(
        containerfile.contains("COPY .ci/agent-versions /tmp/agent-versions"),
        "{containerfile}"
    );
    assert!(containerfile.contains(". /tmp/agent-versions"));
    assert!(
        script.contains("/agent-versions\""),
        "the script sources the pins"
    );
    for (var, package) in [
        ("PAWL_CLAUDE_VERSION", "@anthropic-ai/claude-code"),
        ("PAWL_CODEX_VERSION", "@openai/codex"),
        ("PAWL_GEMINI_VERSION", "@google/gemini-cli"),
    ] {
        assert!(
            containerfile.contains(&format!("\"{package}@${{{var}}}\"")),
            "{var}"
        );
        let pinned = pawl_agent::pins::pinned(pawl_agent::pins::PINS_FILE, var).unwrap();
        // No version written anywhere else: neither file names the pinned value itself.
        assert!(
            !containerfile.contains(pinned),
            "{var} written in the Containerfile"
        );
        assert!(
            !script.contains(pinned),
            "{var} written in install-agents.sh"
        );
        assert!(
            !script.contains(&format!("{var}=")),
            "{var} set in install-agents.sh"
        );
    }
    assert!(containerfile.contains("ENTRYPOINT [\"pawl-job\"]"));
}

/// The READMEs name the versions the tests run, as pinned.
#[test]
fn the_readmes_name_the_pinned_agent_cli_versions() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let agent_readme = std::fs::read_to_string(root.join("crates/agent/README.md")).unwrap();
    let v = |p| pawl_agent::pins::tested(p).unwrap();
    for (name, program) in [
        ("Claude Code", "claude"),
        ("Codex", "codex"),
        ("Gemini CLI", "gemini"),
    ] {
        let claim = format!("**{name} {}, the real CLI**", v(program));
        assert!(readme.contains(&claim), "README.md lacks {claim}");
        let claim = format!("{name} {} against the mock", v(program));
        assert!(
            agent_readme.contains(&claim),
            "crates/agent/README.md lacks {claim}"
        );
    }
}

/// The image's entrypoint, run here as it runs in a job: a fresh clone, `pawl run` against the
/// shared store with the fleet's key, the report left as an artifact, pawl's exit code kept.
#[test]
fn a_fleet_job_clones_runs_and_leaves_its_report_with_a_typed_exit() {
    let Some(url) = crate::fleet_harness::server_schema("job") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pawl-job");
    let pawl = crate::headless::pawl_bin();
    let bin_dir = std::path::Path::new(&pawl).parent().unwrap().to_path_buf();
    let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="; // base64 of bytes 0..32
    let origin = |name: &str, agent: &str| {
        let o = dir.path().join(name);
        std::fs::create_dir_all(&o).unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(args)
                .current_dir(&o)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", dir.path())
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@e")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@e")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        git(&["init", "-q", "-b", "main"]);
        std::fs::write(
            o.join("pawl.toml"),
            format!("[agent]\nkind = \"command\"\ncommand = [\"sh\", \"-c\", \"{agent}\"]\n\n[limits]\nmax_iterations = 1\ncalls_per_hour = 0\n\n[gates]\ntest = \"test -f done.txt\"\n"),
        )
        .unwrap();
        git(&["add", "-A"]);
        git(&["commit", "-q", "-m", "init"]);
        o
    };
    let job = |repo: &std::path::Path, artifacts: &std::path::Path| {
        std::process::Command::new("bash")
            .arg(&script)
            .env_clear()
            .env(
                "PATH",
                format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap()),
            )
            .env("HOME", dir.path().join("job-home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@e")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@e")
            .env("PAWL_REPO", repo)
            .env("PAWL_GOAL", "make done.txt")
            .env("PAWL_STORE_URL", &url)
            .env("PAWL_STORE_FLEET", "jobs")
            .env("PAWL_STORE_KEY", key)
            .env("PAWL_ARTIFACTS", artifacts)
            .output()
            .unwrap()
    };
    let done = origin("done", "echo ok > done.txt");
    let idle = origin("idle", "true");
    let out = job(&done, &dir.path().join("a1"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<_> = std::fs::read_dir(dir.path().join("a1"))
        .unwrap()
        .flatten()
        .collect();
    assert!(
        reports
            .iter()
            .any(|e| e.path().extension().is_some_and(|x| x == "md"))
    );
    // An agent that does nothing, one iteration allowed: a limit reached, exit 3, report kept.
    let out = job(&idle, &dir.path().join("a2"));
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read_dir(dir.path().join("a2"))
            .unwrap()
            .next()
            .is_some()
    );
    // Both runs are in the shared store, signed with the fleet's key.
    let store = pawl_store::Store::open_at(
        &pawl_store::Location::Postgres(url.clone()),
        Box::new(pawl_store::SystemClock),
        Some(std::array::from_fn(|i| u8::try_from(i).unwrap())),
    )
    .unwrap();
    let runs = store.run_history().unwrap();
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|h| h.fleet.as_deref() == Some("jobs")));
    for h in &runs {
        assert_eq!(store.tampering(&h.run.id).unwrap(), None);
    }
    // A key that is not 32 bytes is refused before anything runs.
    let bad = std::process::Command::new("bash")
        .arg(&script)
        .env("PAWL_REPO", &done)
        .env("PAWL_GOAL", "g")
        .env("PAWL_STORE_URL", &url)
        .env("PAWL_STORE_KEY", "c2hvcnQ=")
        .env("HOME", dir.path().join("bad-home"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// Session mode's hooks read the clone's own store: with a shared store configured, `--driver
/// session` is refused before anything is written (a usage error naming what to do).
#[test]
fn session_mode_is_refused_on_a_shared_store() {
    let env = crate::TestEnv::new();
    env.ok(&["init"]);
    let r = env.pawl_env(
        &["run", "--driver", "session", "make done.txt"],
        &[("PAWL_STORE_URL", "postgres://nobody@127.0.0.1:1/none")],
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("--driver session"), "{}", r.stderr);
    assert!(!env.root().join(".pawl/session.json").exists());
}

/// An agent step in a fleet clone (no `pawl init`, no `.pawl/pawl.db`: the runs are in the shared
/// store) reports through pawl's CLI as anywhere else: its `pawl blocker add` and `pawl
/// await-user` go to the step's mailbox and reach the shared store after the step, and the run
/// stops waiting for the user (exit 5). Regression: the step was not recognised as one without
/// the database file, and the agent's pawl wrote to a store of its own.
#[test]
fn an_agent_in_a_fleet_clone_reports_through_the_mailbox_to_the_shared_store() {
    let Some(url) = crate::fleet_harness::server_schema("mail") else {
        return;
    };
    let env = crate::TestEnv::new();
    env.write(
        "pawl.toml",
        &crate::headless::config("", crate::headless::NO_BREAKERS, ""),
    );
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl config"]);
    let scenario = env.dir.path().join("home/s.jsonl");
    std::fs::write(
        &scenario,
        format!(
            r#"{{"step": 1}}
{{"do": "run", "command": "{pawl} blocker add 'the API key is missing' && {pawl} await-user B1 'export API_KEY=...'"}}
{{"step": 2}}
{{"do": "write", "path": "done.txt", "content": "ok"}}
"#,
            pawl = crate::headless::pawl_bin()
        ),
    )
    .unwrap();
    let store_env = [("PAWL_STORE_URL", url.as_str())];
    let r = env.pawl_env(
        &["run", "g", "--scenario", scenario.to_str().unwrap()],
        &store_env,
    );
    assert_eq!(r.code, 5, "{}{}", r.stdout, r.stderr);
    assert!(!env.root().join(".pawl/pawl.db").exists());
    let store = crate::fleet_harness::Fleet::open_store(&url, &env.home);
    let run = &store.runs().unwrap()[0];
    assert_eq!(run.status.to_string(), "awaiting_user");
    assert_eq!(store.blockers(&run.id).unwrap().len(), 1);
}

/// A stop asked through the shared store (what `pawl serve`'s Stop button records for a run that
/// another machine drives: there is no `.pawl/stop` file to write there) stops the run after its
/// current step, exit 6, its work kept. Regression: the job watched only its own stop file and
/// went on to verified.
#[test]
fn a_stop_recorded_in_the_shared_store_stops_the_job_after_its_step() {
    let Some(url) = crate::fleet_harness::server_schema("stop") else {
        return;
    };
    let env = crate::TestEnv::new();
    env.write(
        "pawl.toml",
        &crate::headless::config("", crate::headless::NO_BREAKERS, ""),
    );
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl config"]);
    let marks = env.dir.path().join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    let scenario = env.dir.path().join("home/s.jsonl");
    std::fs::write(
        &scenario,
        format!(
            r#"{{"step": 1}}
{{"do": "run", "command": "touch {m}/in-step; while [ ! -e {m}/go ]; do sleep 0.05; done"}}
{{"step": 2}}
{{"do": "write", "path": "done.txt", "content": "ok"}}
"#,
            m = marks.display()
        ),
    )
    .unwrap();
    let mut child = env
        .command("pawl")
        .args(["run", "g", "--scenario", scenario.to_str().unwrap()])
        .env("PAWL_STORE_URL", &url)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    while !marks.join("in-step").exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "pawl ended before its first step"
        );
        assert!(std::time::Instant::now() < deadline, "the step never began");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let mut store = crate::fleet_harness::Fleet::open_store(&url, &env.home);
    let run = store.runs().unwrap().remove(0);
    store.record_stop_request(&run.id).unwrap();
    std::fs::write(marks.join("go"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(6), "{stdout}{stderr}");
    let run = store.run(&run.id).unwrap();
    assert_eq!(run.status.to_string(), "stopped", "{stdout}{stderr}");
    assert!(!env.root().join("done.txt").exists(), "step 2 ran");
}

/// A run killed between recording its stop and publishing its report and diff (here: its stop
/// recorded again through the store, nothing published after it) is published by the next
/// `pawl report` in its clone; a clone with its own store publishes nothing.
#[test]
fn a_run_stopped_without_publishing_is_published_by_the_next_report_in_its_clone() {
    let env = crate::TestEnv::new();
    env.write(
        "pawl.toml",
        &crate::headless::config("max_iterations = 1", crate::headless::NO_BREAKERS, ""),
    );
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl config"]);
    let store_path = env.dir.path().join("fleet.db");
    let url = store_path.to_str().unwrap();
    let s = env.dir.path().join("home/s.jsonl");
    std::fs::write(
        &s,
        r#"{"do": "write", "path": "half.txt", "content": "ok"}"#,
    )
    .unwrap();
    let r = env.pawl_env(
        &["run", "g", "--scenario", s.to_str().unwrap()],
        &[("PAWL_STORE_URL", url)],
    );
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    let key = std::fs::read(env.home.join(".local/state/pawl/key")).unwrap();
    let mut store = pawl_store::Store::open_at(
        &pawl_store::Location::File(store_path.clone()),
        Box::new(pawl_store::SystemClock),
        Some(<[u8; 32]>::try_from(key.as_slice()).unwrap()),
    )
    .unwrap();
    let run = store.runs().unwrap().remove(0);
    assert!(store.published_since_stop(&run.id).unwrap());
    let diff = pawl_engine::publish::published_diff(&store, &run.id)
        .unwrap()
        .unwrap();
    assert!(
        diff["patch"].as_str().unwrap().contains("+++ b/half.txt"),
        "{diff}"
    );
    let published = |store: &pawl_store::Store| {
        store
            .events_after(Some(&run.id), 0, usize::MAX)
            .unwrap()
            .iter()
            .filter(|e| e.kind == "published")
            .count()
    };
    assert_eq!(published(&store), 1);
    // Resumed, then stopped again and killed before publishing.
    store
        .set_run_status(&run.id, pawl_core::model::RunStatus::Active, None)
        .unwrap();
    store
        .set_run_status(
            &run.id,
            pawl_core::model::RunStatus::Stopped,
            Some(pawl_core::StopReason::Stopped),
        )
        .unwrap();
    assert!(!store.published_since_stop(&run.id).unwrap());
    let r = env.pawl_env(&["report", &run.id, "--json"], &[("PAWL_STORE_URL", url)]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(store.published_since_stop(&run.id).unwrap());
    assert_eq!(published(&store), 2);
    // Once published, a report publishes nothing more.
    let r = env.pawl_env(&["report", &run.id, "--json"], &[("PAWL_STORE_URL", url)]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(published(&store), 2);
}

/// The guard's denial in a fleet clone whose agent runs without the sandbox (`[sandbox] enabled =
/// false`): the hook, called as Claude Code calls it from the step, denies, and the denial
/// reaches the run's store (through the step's mailbox, after the step) — the report counts it —
/// and no store of the clone's own is made. Regression: the hook opened (and created)
/// `.pawl/pawl.db` in the clone, the run was not there, and the denial was lost.
fn a_denial_without_the_sandbox_reaches_the_run_s_store(store: &str) {
    let env = crate::TestEnv::new();
    env.write(
        "pawl.toml",
        &format!(
            "{}\n[sandbox]\nenabled = false\n",
            crate::headless::config("", crate::headless::NO_BREAKERS, "")
        ),
    );
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl config"]);
    let marks = env.home.join("marks");
    let script = env.home.join("deny.sh");
    std::fs::write(
        &script,
        format!(
            r#"printf '{{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"rm -rf .git"}},"cwd":"%s"}}' "$PWD" | {pawl} hook claude pre-tool-use > {marks}/answer.json
"#,
            pawl = crate::headless::pawl_bin(),
            marks = marks.display()
        ),
    )
    .unwrap();
    let scenario = env.home.join("s.jsonl");
    std::fs::write(
        &scenario,
        format!(
            "{}\n{}\n",
            serde_json::json!({"do": "run", "command": format!("sh {}", script.display())}),
            serde_json::json!({"do": "write", "path": "done.txt", "content": "ok"})
        ),
    )
    .unwrap();
    let r = env.pawl_env(
        &["run", "g", "--scenario", scenario.to_str().unwrap()],
        &[("PAWL_STORE_URL", store)],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("sandbox: off"), "{}", r.stdout);
    let answer = std::fs::read_to_string(marks.join("answer.json")).unwrap();
    assert!(answer.contains("deny"), "{answer}");
    assert!(!env.root().join(".pawl/pawl.db").exists());
    let report = env
        .pawl_env(&["report", "--json"], &[("PAWL_STORE_URL", store)])
        .json();
    assert_eq!(report["guard_denials"], 1, "{report}");
    let events = env
        .pawl_env(&["events", "--json"], &[("PAWL_STORE_URL", store)])
        .stdout;
    assert!(
        events.contains("guard_denied") && events.contains("rm -rf .git"),
        "{events}"
    );
}

#[test]
fn a_denial_without_the_sandbox_reaches_a_postgres_store() {
    let Some(url) = crate::fleet_harness::server_schema("deny") else {
        return;
    };
    a_denial_without_the_sandbox_reaches_the_run_s_store(&url);
}

#[test]
fn a_denial_without_the_sandbox_reaches_a_sqlite_store_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("fleet.db");
    a_denial_without_the_sandbox_reaches_the_run_s_store(store.to_str().unwrap());
}

/// `pawl runs --store` in pages: `--limit` runs at a time, newest first, the next page `--after`
/// the `next` of the one before; every run listed once across the pages, the totals those of
/// every run on each page; an unknown cursor is a usage error naming it.
#[test]
fn runs_of_a_store_are_listed_in_pages_with_totals_over_every_run() {
    let env = crate::TestEnv::new();
    let key = [9u8; 32];
    let state = env.home.join(".local/state/pawl");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("key"), key).unwrap();
    let path = env.dir.path().join("fleet.db");
    let mut store = pawl_store::Store::open_at(
        &pawl_store::Location::File(path.clone()),
        Box::new(pawl_store::SystemClock),
        Some(key),
    )
    .unwrap();
    let mut made = Vec::new();
    for i in 0..7 {
        let run = store
            .create_run(&pawl_store::NewRun {
                goal: format!("goal {i}"),
                driver: pawl_core::model::Driver::Manual,
                mode: None,
                settings: pawl_core::record::RunSettings::default(),
                branch: None,
                pre_run_commit: None,
            })
            .unwrap();
        let n = store.begin_iteration(&run.id, None, "p").unwrap();
        store
            .finish_iteration(
                &run.id,
                n,
                &pawl_core::record::IterationEnd {
                    tokens_in: 10,
                    outcome: "completed".into(),
                    ..Default::default()
                },
            )
            .unwrap();
        store
            .set_run_status(
                &run.id,
                pawl_core::model::RunStatus::Stopped,
                Some(pawl_core::StopReason::Stopped),
            )
            .unwrap();
        made.push(run.id);
    }
    let url = path.to_str().unwrap();
    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = vec!["runs", "--store", url, "--limit", "3", "--json"];
        if let Some(a) = &after {
            args.extend(["--after", a.as_str()]);
        }
        let v = env.ok(&args).json();
        pages += 1;
        assert_eq!(v["totals"]["runs"], 7, "{v}");
        assert_eq!(v["totals"]["tokens"], 70, "{v}");
        let ids: Vec<String> = v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        assert!(ids.len() <= 3 && !ids.is_empty(), "{v}");
        seen.extend(ids.iter().cloned());
        match v["next"].as_str() {
            Some(next) => {
                assert_eq!(next, ids.last().unwrap());
                after = Some(next.to_string());
            }
            None => break,
        }
    }
    assert_eq!(pages, 3);
    made.reverse();
    assert_eq!(seen, made, "every run once, newest first");
    let human = env.ok(&["runs", "--store", url, "--limit", "3"]).stdout;
    assert!(
        human.contains(&format!("pawl runs --after {}", made[2])),
        "{human}"
    );
    let r = env.pawl(&["runs", "--store", url, "--after", "no-such-run"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no-such-run"), "{}", r.stderr);
}

/// `pawl runs` with `PAWL_STORE_URL` set, outside any clone and in a clone that started none of
/// the store's runs: the store's runs are listed and the listing says so; never a silent 0.
#[test]
fn pawl_runs_outside_a_clone_lists_the_shared_store_and_says_so() {
    let env = crate::TestEnv::new();
    env.headless(&crate::headless::config(
        "max_iterations = 2",
        crate::headless::NO_BREAKERS,
        "",
    ));
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("fleet.db");
    let store = store.to_str().unwrap();
    let fix = env.scenario(
        "fix",
        "{\"step\": 1}\n{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\\n\"}\n",
    );
    let with_store = [("PAWL_STORE_URL", store)];
    let r = env.pawl_env(&["run", "make done.txt", "--scenario", &fix], &with_store);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let id = env.pawl_env(&["runs", "--json"], &with_store).json()["runs"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Outside any git clone.
    let elsewhere = env.dir.path().join("not-a-clone");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let r = env.pawl_env(
        &["-C", elsewhere.to_str().unwrap(), "runs", "--json"],
        &with_store,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["runs"][0]["id"], id.as_str(), "{}", r.stdout);
    assert!(r.stderr.contains("not in a git clone"), "{}", r.stderr);
    assert!(
        !elsewhere.join(".pawl").exists(),
        "nothing written outside a clone"
    );
    let r = env.pawl_env(&["-C", elsewhere.to_str().unwrap(), "runs"], &with_store);
    assert!(r.stdout.contains(&id), "{}", r.stdout);

    // In another clone that started none of the store's runs.
    let other = env.dir.path().join("observer");
    let git = |args: &[&str]| {
        let out = env
            .command("git")
            .args(args)
            .current_dir(&other)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    std::fs::create_dir_all(&other).unwrap();
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(other.join("x"), "x").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "x"]);
    let r = env.pawl_env(
        &["-C", other.to_str().unwrap(), "runs", "--json"],
        &with_store,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["runs"][0]["id"], id.as_str(), "{}", r.stdout);
    assert!(r.stderr.contains("started no run"), "{}", r.stderr);

    // Without the variable, outside a clone: the error says why.
    let r = env.pawl(&["-C", elsewhere.to_str().unwrap(), "runs"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("not inside a git repository"),
        "{}",
        r.stderr
    );
}
