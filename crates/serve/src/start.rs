//! Starting a run from the dashboard (`POST /api/v1/runs`): the request checked into the
//! argument list of a `pawl run` ([`argv`], a pure function), then that run's driver started
//! **detached** — a session of its own, its output in a log in the daemon's state directory,
//! the environment its repository joined the served set with (never the daemon's) — and
//! followed by a handle (`GET /api/v1/starts/{id}`) until the run exists or the driver fails.
//!
//! The driver is an ordinary `pawl run --json --await-answers`: it takes the run's lease, asks
//! its clarifying questions through the store (the dashboard answers them), records its stop,
//! exit code and verdict as any run does, and outlives the daemon; a daemon that restarts
//! finds the run in the store and never drives it itself. Who may start one (the browser's
//! session and its CSRF key, never the API token) is `auth.rs`'s.
//!
//! Not here: the checks in front of the route (`auth.rs`), answering questions (`api.rs`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::api::ApiError;
use crate::registry;
use crate::repos::Repo;

/// At most this many checks in one request, each at most this many bytes; a goal at most
/// [`GOAL_BYTES`].
const MAX_CHECKS: usize = 32;
const CHECK_BYTES: usize = 4096;
const GOAL_BYTES: usize = 64 * 1024;
/// Starts followed at once (the oldest is forgotten first; its run stays in the store).
const KEPT: usize = 64;

/// The body of `POST /api/v1/runs`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartBody {
    /// A served repository: its id, its name or its path.
    pub repo: String,
    pub goal: String,
    /// auto (default), simple, work, qa, ralph.
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub limits: Option<LimitsBody>,
    /// Acceptance checks: commands that must fail before the run and pass at its end. They run
    /// as the user: the form shows them for confirmation, and the request says it did.
    #[serde(default)]
    pub checks: Vec<String>,
    /// Must be `true` when `checks` is not empty.
    #[serde(default)]
    pub checks_confirmed: bool,
}

/// The limits a start may set (the rest come from the repository's `pawl.toml`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsBody {
    #[serde(default)]
    pub max_iterations: Option<serde_json::Number>,
    #[serde(default)]
    pub max_usd: Option<f64>,
    #[serde(default)]
    pub max_tokens: Option<serde_json::Number>,
    /// A duration such as `30m`.
    #[serde(default)]
    pub max_time: Option<String>,
}

/// `Json` whose refusal is a 400 naming the field (axum's 422 for a body of the wrong shape is
/// a 400 here: nothing about the run refused it), 415 without a JSON content type.
pub struct Body<T>(pub T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> axum::extract::FromRequest<S> for Body<T> {
    type Rejection = ApiError;
    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        Json::<T>::from_request(req, state)
            .await
            .map(|Json(v)| Body(v))
            .map_err(|e| {
                let status = match e.status() {
                    StatusCode::UNPROCESSABLE_ENTITY => StatusCode::BAD_REQUEST,
                    s => s,
                };
                ApiError::new(status, "bad_request", e.body_text())
            })
    }
}

fn bad(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, message)
}

/// The arguments of the `pawl` that drives the run `body` asks for, after `pawl`: the goal
/// after `--` and each check as `--check=…`, so neither is ever read as a flag. Refuses what
/// `pawl run` would refuse (an empty goal, a mode it does not know, limits out of range) with a
/// message that names the field.
pub fn argv(body: &StartBody) -> Result<Vec<String>, ApiError> {
    let goal = body.goal.trim();
    if goal.is_empty() {
        return Err(bad(
            "bad_request",
            "goal: empty — say what the run must achieve",
        ));
    }
    if goal.len() > GOAL_BYTES || goal.contains('\0') {
        return Err(bad(
            "bad_request",
            format!("goal: at most {GOAL_BYTES} bytes, no NUL"),
        ));
    }
    let mut args: Vec<String> = ["run", "--json", "--await-answers"]
        .map(String::from)
        .into();
    if let Some(mode) = &body.mode {
        mode.parse::<pawl_core::pipeline::ModeArg>().map_err(|_| {
            bad(
                "bad_request",
                format!("mode: `{mode}` is none of auto, simple, work, qa, ralph"),
            )
        })?;
        args.extend(["--mode".into(), mode.clone()]);
    }
    if let Some(l) = &body.limits {
        if let Some(n) = &l.max_iterations {
            let n = whole(n, "limits.max_iterations", u64::from(u32::MAX))?;
            args.extend(["--max-iterations".into(), n.to_string()]);
        }
        if let Some(u) = l.max_usd {
            if !(u.is_finite() && u >= 0.0) {
                return Err(bad(
                    "bad_request",
                    format!("limits.max_usd: a finite amount ≥ 0, got {u}"),
                ));
            }
            args.extend(["--max-usd".into(), u.to_string()]);
        }
        if let Some(n) = &l.max_tokens {
            let n = whole(n, "limits.max_tokens", u64::MAX)?;
            args.extend(["--max-tokens".into(), n.to_string()]);
        }
        if let Some(t) = &l.max_time {
            t.parse::<pawl_core::config::Dur>()
                .map_err(|e| bad("bad_request", format!("limits.max_time: {e}")))?;
            args.extend(["--max-time".into(), t.clone()]);
        }
    }
    if body.checks.len() > MAX_CHECKS {
        return Err(bad("bad_request", format!("checks: at most {MAX_CHECKS}")));
    }
    for (i, c) in body.checks.iter().enumerate() {
        let c = c.trim();
        if c.is_empty() || c.len() > CHECK_BYTES || c.contains('\0') {
            return Err(bad(
                "bad_request",
                format!("checks[{i}]: a command of 1 to {CHECK_BYTES} bytes, no NUL"),
            ));
        }
        args.push(format!("--check={c}"));
    }
    if !body.checks.is_empty() && !body.checks_confirmed {
        return Err(bad(
            "checks_unconfirmed",
            "checks_confirmed: the checks run commands as you in the repository; show them and send checks_confirmed: true",
        ));
    }
    args.extend(["--".into(), goal.to_string()]);
    Ok(args)
}

/// A JSON number that must be a whole number in `0..=max`.
fn whole(n: &serde_json::Number, name: &str, max: u64) -> Result<u64, ApiError> {
    let v = n.as_u64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= max as f64)
            .map(|f| f as u64)
    });
    v.filter(|v| *v <= max).ok_or_else(|| {
        bad(
            "bad_request",
            format!("{name}: a whole number from 0 to {max}"),
        )
    })
}

/// The served repository `want` names (its id, name or path), which must be a directory:
/// a shared store's runs are started by fleet jobs.
pub fn served(repos: &[Repo], want: &str) -> Result<Repo, ApiError> {
    let refused = |message: String| {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "repo_not_served", message)
    };
    let found: Vec<&Repo> = repos
        .iter()
        .filter(|r| r.id == want || r.name() == want || r.root == std::path::Path::new(want))
        .collect();
    match found.as_slice() {
        [] => Err(refused(format!(
            "repo: `{want}` is not in the served set (GET /api/v1/repos lists it): add it with `pawl serve --add <dir>`, from a shell with the environment its runs need"
        ))),
        [r] if r.store.is_some() => Err(refused(format!(
            "repo: `{want}` is a shared store: its runs are started by fleet jobs (docs/fleet.md), not by the dashboard"
        ))),
        [r] if !r.root.is_dir() => Err(refused(format!(
            "repo: {} is no longer a directory",
            r.root.display()
        ))),
        [r] => Ok((*r).clone()),
        _ => Err(refused(format!(
            "repo: `{want}` names more than one served repository: give its id"
        ))),
    }
}

/// One start the daemon follows.
#[derive(Debug, Clone)]
struct Started {
    repo: Repo,
    goal: String,
    pid: u32,
    /// When the driver was spawned (ms): its run is created at or after it.
    at_ms: i64,
    log: PathBuf,
    /// The driver's exit code once it ended (`-1`: killed by a signal).
    exited: Arc<Mutex<Option<i32>>>,
    run: Option<String>,
}

/// The starts the daemon follows, by handle.
#[derive(Debug, Default)]
pub struct Starts(Mutex<Vec<(String, Started)>>);

impl Starts {
    fn insert(&self, id: String, s: Started) {
        if let Ok(mut v) = self.0.lock() {
            if v.len() >= KEPT {
                v.remove(0);
            }
            v.push((id, s));
        }
    }

    fn get(&self, id: &str) -> Option<Started> {
        let v = self.0.lock().ok()?;
        v.iter().find(|(k, _)| k == id).map(|(_, s)| s.clone())
    }

    fn set_run(&self, id: &str, run: &str) {
        if let Ok(mut v) = self.0.lock()
            && let Some((_, s)) = v.iter_mut().find(|(k, _)| k == id)
        {
            s.run = Some(run.to_string());
        }
    }
}

/// `POST /api/v1/runs`: starts a run's driver in a served repository; 202 with the start's
/// handle (the run is created once the driver has sealed the checks and taken the baseline).
pub async fn start_run(
    State(state): State<AppState>,
    Body(body): Body<StartBody>,
) -> Result<Response, ApiError> {
    let args = argv(&body)?;
    let Some(program) = state.program.clone() else {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "cannot_start",
            "this daemon was started without a pawl program to drive runs with",
        ));
    };
    let repo = served(&state.repos.list(), body.repo.trim())?;
    let state_dir = state.repos.state_dir().to_path_buf();
    let recorded = registry::recorded_environment(&state_dir, &repo.id)
        .map_err(|e| ApiError::internal(e.to_string()))?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "no_environment",
                format!(
                    "repo: {} joined the served set before pawl recorded the environment its runs get: run `pawl serve --add {}` from a shell with that environment",
                    repo.root.display(),
                    repo.root.display()
                ),
            )
        })?;
    let handle = crate::auth::random_token().map_err(|e| ApiError::internal(e.to_string()))?;
    let handle = handle[..16].to_string();
    let dir = state_dir.join("starts");
    std::fs::create_dir_all(&dir)
        .map_err(|e| ApiError::internal(format!("cannot create {}: {e}", dir.display())))?;
    let log = dir.join(format!("{handle}.log"));
    let at_ms = jiff::Timestamp::now().as_millisecond();
    let mut cmd = pawl_process::Command::new(&program);
    cmd.args(&args).current_dir(&repo.root).env_clear().envs(
        recorded
            .vars
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    let mut child = cmd
        .spawn_detached(&log)
        .map_err(|e| ApiError::internal(format!("cannot start {}: {e}", program.display())))?;
    let pid = child.id();
    let exited = Arc::new(Mutex::new(None));
    let reaped = exited.clone();
    // Reaped while the daemon lives (no zombie); after it, init reaps the driver.
    let _ = std::thread::Builder::new()
        .name(format!("pawl-start-{pid}"))
        .spawn(move || {
            let code = child.wait().map(|s| s.code().unwrap_or(-1)).unwrap_or(-1);
            if let Ok(mut e) = reaped.lock() {
                *e = Some(code);
            }
        });
    state.starts.insert(
        handle.clone(),
        Started {
            repo: repo.clone(),
            goal: body.goal.trim().to_string(),
            pid,
            at_ms,
            log,
            exited,
            run: None,
        },
    );
    let shown = json!({
        "start": handle,
        "status": "starting",
        "repo": {"id": repo.id, "name": repo.name(), "root": repo.root.display().to_string()},
        "pid": pid,
        "argv": args,
        "next": format!("/api/v1/starts/{handle}"),
    });
    Ok((StatusCode::ACCEPTED, Json(shown)).into_response())
}

/// `GET /api/v1/starts/{id}`: `starting` (the driver runs, no run yet: sealing, the baseline),
/// `started` (with the run's id), or `failed` (the driver ended before its run existed, with
/// its exit code and last lines).
pub async fn start_status(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let s = state.starts.get(&id).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no start `{id}` (the daemon forgets its starts when it restarts; the runs are in GET /api/v1/runs)"),
        )
    })?;
    let exited = s.exited.lock().ok().and_then(|e| *e);
    let run = match s.run.clone() {
        Some(r) => Some(r),
        None => {
            let st = state.clone();
            let s2 = s.clone();
            let found = tokio::task::spawn_blocking(move || find_run(&st, &s2))
                .await
                .map_err(|e| ApiError::internal(e.to_string()))??;
            if let Some(r) = &found {
                state.starts.set_run(&id, r);
            }
            found
        }
    };
    let status = match (&run, exited) {
        (Some(_), _) => "started",
        (None, Some(_)) => "failed",
        (None, None) => "starting",
    };
    Ok(Json(json!({
        "start": id,
        "status": status,
        "run": run,
        "pid": s.pid,
        "exit_code": exited,
        "repo": {"id": s.repo.id, "name": s.repo.name(), "root": s.repo.root.display().to_string()},
        "lines": tail(&s.log, 20),
    }))
    .into_response())
}

/// The run a start's driver created: the first run of its repository created at or after the
/// spawn with the same goal (one run is active per clone at a time: a second start there fails).
fn find_run(state: &AppState, s: &Started) -> Result<Option<String>, ApiError> {
    let Some(store) = state.repos.open(&s.repo)? else {
        return Ok(None);
    };
    let mut runs: Vec<_> = store
        .runs()?
        .into_iter()
        .filter(|r| r.created_at >= s.at_ms && r.goal.trim() == s.goal)
        .collect();
    runs.sort_by_key(|r| r.created_at);
    Ok(runs.first().map(|r| r.id.clone()))
}

/// The last `n` lines of a driver's log (its error when it failed to start).
fn tail(path: &std::path::Path, n: usize) -> Vec<String> {
    let text = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// The recorded environment as the form shows it: every name, the values of [`registry::value_shown`]
/// ones only.
pub fn environment_json(state_dir: &std::path::Path, repo: &Repo) -> Value {
    match registry::recorded_environment(state_dir, &repo.id) {
        // Sorted by name (a BTreeMap).
        Ok(Some(rec)) => json!({
            "recorded_at": rec.recorded_at,
            "vars": rec.vars.iter().map(|(k, v)| json!({
                "name": k,
                "value": registry::value_shown(k).then_some(v),
            })).collect::<Vec<_>>(),
        }),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(goal: &str) -> StartBody {
        StartBody {
            repo: "r".into(),
            goal: goal.into(),
            ..StartBody::default()
        }
    }

    #[test]
    fn argv_keeps_the_goal_and_checks_out_of_the_flags() {
        let mut b = body("  --delete-everything  ");
        b.mode = Some("simple".into());
        b.checks = vec!["-rf".into(), "test -f done.txt".into()];
        b.checks_confirmed = true;
        b.limits = Some(LimitsBody {
            max_iterations: Some(3.into()),
            max_time: Some("10m".into()),
            ..LimitsBody::default()
        });
        assert_eq!(
            argv(&b).unwrap(),
            [
                "run",
                "--json",
                "--await-answers",
                "--mode",
                "simple",
                "--max-iterations",
                "3",
                "--max-time",
                "10m",
                "--check=-rf",
                "--check=test -f done.txt",
                "--",
                "--delete-everything"
            ]
        );
    }

    #[test]
    fn argv_refusals_name_the_field() {
        let cases: Vec<(StartBody, &str)> = vec![
            (body("  "), "goal:"),
            (
                StartBody {
                    mode: Some("fast".into()),
                    ..body("g")
                },
                "mode:",
            ),
            (
                StartBody {
                    limits: Some(LimitsBody {
                        max_usd: Some(-1.0),
                        ..LimitsBody::default()
                    }),
                    ..body("g")
                },
                "limits.max_usd:",
            ),
            (
                StartBody {
                    limits: Some(LimitsBody {
                        max_time: Some("soon".into()),
                        ..LimitsBody::default()
                    }),
                    ..body("g")
                },
                "limits.max_time:",
            ),
            (
                StartBody {
                    checks: vec![" ".into()],
                    checks_confirmed: true,
                    ..body("g")
                },
                "checks[0]:",
            ),
            (
                StartBody {
                    checks: vec!["make test".into()],
                    ..body("g")
                },
                "checks_confirmed:",
            ),
        ];
        for (b, field) in cases {
            let e = argv(&b).expect_err(field);
            assert_eq!(e.status, StatusCode::BAD_REQUEST);
            assert!(e.message.starts_with(field), "{field}: {}", e.message);
        }
    }

    #[test]
    fn only_a_served_directory_is_started_in() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repo::new(dir.path().to_path_buf());
        let gone = Repo::new(dir.path().join("gone"));
        let shared = Repo::new(PathBuf::from("postgres://u@h/db"));
        let repos = vec![repo.clone(), gone.clone(), shared.clone()];
        assert_eq!(served(&repos, &repo.id).unwrap(), repo);
        assert_eq!(
            served(&repos, &dir.path().display().to_string()).unwrap(),
            repo
        );
        for (want, says) in [
            ("/etc", "not in the served set"),
            (shared.id.as_str(), "shared store"),
            (gone.id.as_str(), "no longer a directory"),
        ] {
            let e = served(&repos, want).expect_err(want);
            assert_eq!(
                (e.status, e.code),
                (StatusCode::UNPROCESSABLE_ENTITY, "repo_not_served")
            );
            assert!(e.message.contains(says), "{want}: {}", e.message);
        }
    }
}
