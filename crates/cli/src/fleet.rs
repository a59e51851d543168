//! `pawl fleet plan`: a list of runs (`fleet.toml`) as the jobs of an existing engine — a GitHub
//! Actions workflow with a matrix (one job per run) and Kubernetes Jobs (one per run) — each job
//! one `pawl run` in a fresh clone, against the fleet's shared store (docs/fleet.md).
//!
//! pawl grows no scheduler: the engine runs the jobs, the shared store keeps the leases, the
//! budget and the one view of every run. The plan is data: [`parse`] checks the file (strict:
//! an unknown key or a missing field is an error naming it), [`workflow`] and [`k8s_jobs`] build
//! the documents as JSON values, [`yaml`] writes them (block style, every string quoted).
//!
//! Not here: running anything, the image (`Containerfile`, whose entrypoint `pawl-job` clones
//! `PAWL_REPO` at `PAWL_BRANCH` and runs `pawl run --yes "$PAWL_GOAL"`).

use serde::Deserialize;
use serde_json::{Value, json};

/// `fleet.toml`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FleetFile {
    #[serde(default)]
    pub fleet: FleetSection,
    #[serde(default)]
    pub runs: Vec<RunEntry>,
}

/// `[fleet]`: the name every run joins (its budget and totals) and the job image.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FleetSection {
    pub name: String,
    pub image: String,
    /// The GitHub Actions runner label.
    pub runs_on: String,
    /// Minutes a job may take before the engine ends it.
    pub timeout_minutes: u32,
    /// The Kubernetes secret holding `url` (the store) and `key` (the store's signing key).
    pub secret: String,
}

impl Default for FleetSection {
    fn default() -> Self {
        FleetSection {
            name: "fleet".into(),
            image: "ghcr.io/OWNER/pawl:latest".into(),
            runs_on: "ubuntu-latest".into(),
            timeout_minutes: 360,
            secret: "pawl-store".into(),
        }
    }
}

/// `[[runs]]`: one run of the fleet.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunEntry {
    /// A clone URL or a local path.
    pub repo: String,
    #[serde(default = "main")]
    pub branch: String,
    pub goal: String,
}

fn main() -> String {
    "main".into()
}

/// Parses and checks `fleet.toml` (`file` names it in errors).
pub fn parse(file: &str, text: &str) -> Result<FleetFile, String> {
    let plan: FleetFile = toml::from_str(text).map_err(|e| format!("{file}: {e}"))?;
    let name_ok = !plan.fleet.name.is_empty()
        && plan.fleet.name.len() <= 40
        && plan
            .fleet
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !plan.fleet.name.starts_with('-');
    if !name_ok {
        return Err(format!(
            "{file}: [fleet] name `{}` must be 1–40 lowercase letters, digits or `-` (it names Kubernetes Jobs)",
            plan.fleet.name
        ));
    }
    if plan.fleet.image.trim().is_empty() {
        return Err(format!("{file}: [fleet] image is empty"));
    }
    if plan.runs.is_empty() {
        return Err(format!(
            "{file}: no [[runs]]: list at least one (repo, branch, goal)"
        ));
    }
    for (i, r) in plan.runs.iter().enumerate() {
        for (field, value) in [("repo", &r.repo), ("branch", &r.branch), ("goal", &r.goal)] {
            if value.trim().is_empty() {
                return Err(format!("{file}: runs[{i}].{field} is empty"));
            }
        }
    }
    Ok(plan)
}

/// The job name of run `i`.
fn job_name(plan: &FleetFile, i: usize) -> String {
    format!("pawl-{}-{i}", plan.fleet.name)
}

/// The GitHub Actions workflow: one matrix job per run, the report uploaded as an artifact.
pub fn workflow(plan: &FleetFile) -> Value {
    let include: Vec<Value> = plan
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"name": job_name(plan, i), "repo": r.repo, "branch": r.branch, "goal": r.goal}))
        .collect();
    json!({
        "name": format!("pawl fleet {}", plan.fleet.name),
        "on": {"workflow_dispatch": {}},
        "permissions": {"contents": "read"},
        "jobs": {
            "run": {
                "name": "${{ matrix.name }}",
                "runs-on": plan.fleet.runs_on,
                "timeout-minutes": plan.fleet.timeout_minutes,
                "container": {"image": plan.fleet.image},
                "strategy": {"fail-fast": false, "matrix": {"include": include}},
                "env": {
                    "PAWL_STORE_URL": "${{ secrets.PAWL_STORE_URL }}",
                    "PAWL_STORE_KEY": "${{ secrets.PAWL_STORE_KEY }}",
                    "PAWL_STORE_FLEET": plan.fleet.name,
                    "PAWL_REPO": "${{ matrix.repo }}",
                    "PAWL_BRANCH": "${{ matrix.branch }}",
                    "PAWL_GOAL": "${{ matrix.goal }}",
                    "PAWL_ARTIFACTS": "/tmp/pawl-artifacts"
                },
                "steps": [
                    {"name": "pawl run", "run": "pawl-job"},
                    {
                        "name": "report",
                        "if": "${{ always() }}",
                        "uses": "actions/upload-artifact@v4",
                        "with": {"name": "pawl-report-${{ matrix.name }}", "path": "/tmp/pawl-artifacts", "if-no-files-found": "warn"}
                    }
                ]
            }
        }
    })
}

/// The Kubernetes Jobs, one per run (the store's URL and key from the fleet's secret).
pub fn k8s_jobs(plan: &FleetFile) -> Vec<Value> {
    plan.runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let secret = |key: &str| json!({"secretKeyRef": {"name": plan.fleet.secret, "key": key}});
            json!({
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {
                    "name": job_name(plan, i),
                    "labels": {"app.kubernetes.io/name": "pawl", "pawl.dev/fleet": plan.fleet.name}
                },
                "spec": {
                    "backoffLimit": 0,
                    "activeDeadlineSeconds": u64::from(plan.fleet.timeout_minutes) * 60,
                    "template": {
                        "metadata": {"labels": {"app.kubernetes.io/name": "pawl", "pawl.dev/fleet": plan.fleet.name}},
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [{
                                "name": "pawl",
                                "image": plan.fleet.image,
                                "env": [
                                    {"name": "PAWL_STORE_URL", "valueFrom": secret("url")},
                                    {"name": "PAWL_STORE_KEY", "valueFrom": secret("key")},
                                    {"name": "PAWL_STORE_FLEET", "value": plan.fleet.name},
                                    {"name": "PAWL_REPO", "value": r.repo},
                                    {"name": "PAWL_BRANCH", "value": r.branch},
                                    {"name": "PAWL_GOAL", "value": r.goal},
                                    {"name": "PAWL_ARTIFACTS", "value": "/artifacts"}
                                ],
                                "volumeMounts": [{"name": "artifacts", "mountPath": "/artifacts"}]
                            }],
                            "volumes": [{"name": "artifacts", "emptyDir": {}}]
                        }
                    }
                }
            })
        })
        .collect()
}

/// A JSON value as block-style YAML. Every string is written double-quoted with JSON's escapes
/// (a valid YAML double-quoted scalar), so no value is ever read back as another type (`on`,
/// `no`, `1.0`); keys are plain only when they are plain words.
pub fn yaml(v: &Value) -> String {
    let mut out = String::new();
    write_block(v, 0, &mut out);
    out
}

fn key(k: &str) -> String {
    let plain = k
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && k.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && !matches!(
            k.to_ascii_lowercase().as_str(),
            "on" | "off" | "yes" | "no" | "y" | "n" | "true" | "false" | "null"
        );
    if plain {
        k.to_string()
    } else {
        scalar(&Value::String(k.into()))
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Object(m) if m.is_empty() => "{}".into(),
        Value::Array(a) if a.is_empty() => "[]".into(),
        other => other.to_string(),
    }
}

fn is_block(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

fn write_block(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, val) in m {
                if is_block(val) {
                    out.push_str(&format!("{pad}{}:\n", key(k)));
                    write_block(val, indent + 2, out);
                } else {
                    out.push_str(&format!("{pad}{}: {}\n", key(k), scalar(val)));
                }
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for item in a {
                if is_block(item) {
                    // The first line of the item after `- `, the rest indented under it.
                    let mut inner = String::new();
                    write_block(item, indent + 2, &mut inner);
                    let body = inner.get(indent + 2..).unwrap_or_default();
                    out.push_str(&format!("{pad}- {body}"));
                } else {
                    out.push_str(&format!("{pad}- {}\n", scalar(item)));
                }
            }
        }
        other => out.push_str(&format!("{pad}{}\n", scalar(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLEET: &str = r#"
[fleet]
name = "nightly"
image = "registry.example/pawl:1"

[[runs]]
repo = "https://github.com/org/app.git"
goal = "fix the date parser (issue 12)"

[[runs]]
repo = "/srv/clones/app"
branch = "release"
goal = "say \"yes\": on"
"#;

    #[test]
    fn a_fleet_file_is_read_with_defaults() {
        let p = parse("fleet.toml", FLEET).unwrap();
        assert_eq!(p.runs.len(), 2);
        assert_eq!(p.runs[0].branch, "main");
        assert_eq!(p.fleet.runs_on, "ubuntu-latest");
    }

    #[test]
    fn bad_fleet_files_are_refused_naming_what_is_wrong() {
        for (text, says) in [
            ("[[runs]]\nrepo = \"r\"\n", "goal"),
            (
                "[[runs]]\nrepo = \"r\"\ngoal = \"g\"\ncolour = 1\n",
                "colour",
            ),
            (
                "[fleet]\nname = \"Big Fleet\"\n[[runs]]\nrepo = \"r\"\ngoal = \"g\"\n",
                "name",
            ),
            ("[fleet]\nname = \"f\"\n", "no [[runs]]"),
            (
                "[[runs]]\nrepo = \"\"\ngoal = \"g\"\n",
                "runs[0].repo is empty",
            ),
        ] {
            let err = parse("fleet.toml", text).unwrap_err();
            assert!(
                err.contains(says) && err.starts_with("fleet.toml"),
                "{text:?}: {err}"
            );
        }
    }

    #[test]
    fn every_string_is_quoted_and_blocks_nest() {
        let y = yaml(
            &json!({"on": {"workflow_dispatch": {}}, "a": [{"b": "no", "c": [1, "x"]}], "count": 3}),
        );
        assert_eq!(
            y,
            "\"on\":\n  workflow_dispatch: {}\na:\n  - b: \"no\"\n    c:\n      - 1\n      - \"x\"\ncount: 3\n"
        );
    }
}
