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
