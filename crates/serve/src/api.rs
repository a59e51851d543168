//! The JSON API under `/api/v1`: reads of every served run, and the four requests the daemon
//! may write (stop, resume with added budget, cancel, answer), each a compare-and-set on the
//! run's `version` (`If-Match`: 428 without one, 409 with the current state when stale),
//! written through the store's typed methods with `"origin": "dashboard"` on its event; and
//! the answer to a clarifying question the run's driver waits on in the store (the first
//! answer wins: the store's own compare-and-set).
//!
//! Not here: the checks in front of every route (`auth.rs`), the streams (`stream.rs`),
//! starting a run (`start.rs`).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pawl_core::model::RunStatus;
use pawl_core::record::Run;
use pawl_store::{Store, StoreError};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::monitor;
use crate::repos::Repo;

/// An error answer: `{"error": code, "message": ..., ...extra}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub extra: Option<Value>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            extra: None,
        }
    }

    pub(crate) fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    fn not_found(id: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no run `{id}` in the served repositories"),
        )
    }

    fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        let (status, code) = match &e {
            StoreError::NotFound { .. } => (StatusCode::NOT_FOUND, "not_found"),
            StoreError::Refused(_) | StoreError::Tampered(_) => {
                (StatusCode::UNPROCESSABLE_ENTITY, "refused")
            }
            StoreError::Conflict { .. } => (StatusCode::CONFLICT, "stale_version"),
            StoreError::LeaseHeld { .. } => (StatusCode::CONFLICT, "lease_held"),
            StoreError::ReadOnly { .. } | StoreError::WrongKey { .. } => {
                (StatusCode::SERVICE_UNAVAILABLE, "no_key")
            }
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "store"),
        };
        ApiError::new(status, code, e.to_string())
    }
}

impl From<pawl_engine::EngineError> for ApiError {
    fn from(e: pawl_engine::EngineError) -> ApiError {
        ApiError::internal(e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({"error": self.code, "message": self.message});
        if let (Some(Value::Object(extra)), Some(map)) = (self.extra, body.as_object_mut()) {
            map.extend(extra);
        }
        (self.status, Json(body)).into_response()
    }
}

type ApiResult<T = Response> = Result<T, ApiError>;

/// `Query` whose refusal is an [`ApiError`] (JSON, 400) like every other error.
pub struct Q<T>(pub T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> axum::extract::FromRequestParts<S> for Q<T> {
    type Rejection = ApiError;
    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, ApiError> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(v)| Q(v))
            .map_err(|e| ApiError::bad(e.body_text()))
    }
}

/// `Json` whose refusal is an [`ApiError`] with axum's status (400, 415, 422).
pub struct J<T>(pub T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> axum::extract::FromRequest<S> for J<T> {
    type Rejection = ApiError;
    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        Json::<T>::from_request(req, state)
            .await
            .map(|Json(v)| J(v))
            .map_err(|e| ApiError::new(e.status(), "bad_request", e.body_text()))
    }
}

/// A JSON number that must be a whole number in `0..=max` (JSON Schema's integers include
/// `3.0`).
fn whole(n: &serde_json::Number, name: &str, max: u64) -> ApiResult<u64> {
    let v = match n.as_u64() {
        Some(v) => Some(v),
        None => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= max as f64)
            .map(|f| f as u64),
    };
    v.filter(|v| *v <= max)
        .ok_or_else(|| ApiError::bad(format!("{name} must be a whole number from 0 to {max}")))
}

/// Runs store work (SQLite blocks) off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("worker failed: {e}")))?
}

fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

/// The run with the repository and store that hold it.
fn locate(state: &AppState, id: &str) -> ApiResult<(Repo, Store, Run)> {
    let (repo, store) = state
        .repos
        .find(id)?
        .ok_or_else(|| ApiError::not_found(id))?;
    let (run, _) = store.run_as_signed(id)?;
    Ok((repo, store, run))
}

/// The verdict of a run and why (cached for runs that ended: it no longer changes).
fn verdict(state: &AppState, repo: &Repo, store: &Store, run: &Run) -> (Value, String) {
    let key = (repo.id.clone(), run.id.clone());
    let stamp = (run.ended_at, run.updated_at);
    if run.status.is_terminal()
        && let Ok(cache) = state.repos.verdicts.lock()
        && let Some((s, v, why)) = cache.get(&key)
        && *s == stamp
    {
        return (v.clone(), why.clone());
    }
    let (v, why) = match pawl_engine::report::verdict_for(store, run) {
        Ok((v, why)) => (serde_json::to_value(v).unwrap_or(Value::Null), why),
        Err(e) => (Value::Null, e.to_string()),
    };
    if run.status.is_terminal()
        && let Ok(mut cache) = state.repos.verdicts.lock()
    {
        cache.insert(key, (stamp, v.clone(), why.clone()));
    }
    (v, why)
}

fn repo_json(repo: &Repo) -> Value {
    json!({"id": repo.id, "name": repo.name(), "root": repo.root.display().to_string()})
}

/// Whether an active run is stalled, and for how long it has been silent.
fn stall_of(store: &Store, run: &Run) -> Option<u64> {
    if run.status != RunStatus::Active {
        return None;
    }
    monitor::stalled(run, monitor::last_sign(store, &run.id), now_ms())
}

/// The short form of a run in lists.
fn run_summary(
    state: &AppState,
    repo: &Repo,
    store: &Store,
    run: &Run,
    spent: &pawl_core::judge::Spent,
) -> Value {
    let (verdict, _) = verdict(state, repo, store, run);
    let stalled = stall_of(store, run);
    json!({
        "id": run.id,
        "repo": repo_json(repo),
        "goal": run.goal,
        "status": run.status,
        "stalled": stalled.is_some(),
        "verdict": verdict,
        "stop_reason": run.stop_reason,
        "driver": run.driver,
        "mode": run.mode,
        "created_at": run.created_at,
        "ended_at": run.ended_at,
        "iterations": spent.iterations,
        "max_iterations": run.settings.limits.max_iterations,
        "cost_usd": spent.usd,
        "tokens": spent.tokens,
        "active_ms": spent.active_ms,
    })
}

/// The full form of one run.
fn run_detail(state: &AppState, repo: &Repo, store: &Store, run: &Run) -> ApiResult<Value> {
    let spent = store.spent(&run.id)?;
    let (verdict, verdict_reason) = verdict(state, repo, store, run);
    let version = store.run_version(&run.id)?;
    let tampering = store.tampering(&run.id)?;
    let lease = store.lease(&run.id)?;
    let awaiting = store.awaited_blocker(&run.id).ok().flatten();
    let stalled = stall_of(store, run);
    Ok(json!({
        "id": run.id,
        "repo": repo_json(repo),
        "goal": run.goal,
        "mode": run.mode,
        "driver": run.driver,
        "phase": run.phase,
        "status": run.status,
        "stalled": stalled.is_some(),
        "idle_ms": stalled,
        "verdict": verdict,
        "verdict_reason": verdict_reason,
        "stop_reason": run.stop_reason,
        "exit_code": run.stop_reason.map(|r| {
            serde_json::from_value::<pawl_core::Verdict>(verdict.clone())
                .map_or(r.exit_code(), |v| pawl_core::run_exit_code(r, v))
                .code()
        }),
        "created_at": run.created_at,
        "updated_at": run.updated_at,
        "ended_at": run.ended_at,
        "limits": run.settings.limits,
        "stall": run.settings.stall,
        "seal": run.settings.seal,
        "branch": run.branch,
        "pre_run_commit": run.pre_run_commit,
        "spent": spent,
        "cost_usd": spent.usd,
        "tokens": spent.tokens,
        "active_ms": spent.active_ms,
        "version": version,
        "lease": lease,
        "awaiting": awaiting,
        "questions": store.questions(&run.id)?,
        "tampered": tampering.map(|t| t.to_string()),
    }))
}

fn with_etag(value: Value, version: i64) -> Response {
    let mut resp = Json(value).into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("\"{version}\"")) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    resp
}

pub async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such route")
}

/// `POST /api/v1/links`: a new one-time dashboard link (`pawl dashboard`).
pub async fn new_link(State(state): State<AppState>) -> ApiResult {
    let code = state
        .links
        .issue()
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Json(json!({"dashboard": format!("{}/auth?code={code}", state.url)})).into_response())
}

/// `GET /api/v1/repos`.
pub async fn list_repos(State(state): State<AppState>) -> ApiResult {
    let repos = state.repos.list();
    let list: Vec<Value> = repos
        .iter()
        .map(|r| {
            let mut v = repo_json(r);
            if let Some(m) = v.as_object_mut() {
                m.insert(
                    "has_store".into(),
                    Value::Bool(r.store.is_some() || r.db().is_file()),
                );
                // What a run started here from the dashboard gets (a shared store's runs are
                // started by fleet jobs).
                m.insert("can_start".into(), Value::Bool(r.store.is_none()));
                m.insert(
                    "environment".into(),
                    crate::start::environment_json(state.repos.state_dir(), r),
                );
            }
            v
        })
        .collect();
    Ok(Json(json!({"repos": list})).into_response())
}

#[derive(Debug, Deserialize)]
pub struct RunsQuery {
    repo: Option<String>,
    status: Option<String>,
    verdict: Option<String>,
    limit: Option<u32>,
    offset: Option<u32>,
}

/// `GET /api/v1/runs`: every served run, newest first, filtered and paged, with totals per
/// day and per repository over the filtered set.
pub async fn list_runs(State(state): State<AppState>, Q(q): Q<RunsQuery>) -> ApiResult {
    let limit = q.limit.unwrap_or(100).clamp(1, 1000) as usize;
    let offset = q.offset.unwrap_or(0) as usize;
    blocking(move || {
        // Filtered on what the rows hold; the summaries (verdicts, stalls) are made for the
        // page only, or for every candidate when the filter asks for them.
        let mut served = Vec::new();
        let mut all: Vec<(i64, usize, pawl_store::RunHistory)> = Vec::new();
        for repo in state.repos.list() {
            if let Some(want) = &q.repo
                && *want != repo.id
                && *want != repo.name()
                && std::path::Path::new(want) != repo.root
            {
                continue;
            }
            let Some(store) = state.repos.open(&repo)? else {
                continue;
            };
            for h in store.run_history()? {
                if let Some(s) = &q.status
                    && *s != h.run.status.as_str()
                    && !(s == "stalled" && h.run.status == RunStatus::Active)
                {
                    continue;
                }
                if q.status.as_deref() == Some("stalled") && stall_of(&store, &h.run).is_none() {
                    continue;
                }
                if let Some(want) = &q.verdict {
                    let (v, _) = verdict(&state, &repo, &store, &h.run);
                    if !v.as_str().is_some_and(|s| s.eq_ignore_ascii_case(want)) {
                        continue;
                    }
                }
                all.push((h.run.created_at, served.len(), h));
            }
            served.push((repo, store));
        }
        all.sort_by_key(|b| std::cmp::Reverse(b.0));
        let total = all.len();
        let mut by_day: BTreeMap<String, (u32, f64, u64)> = BTreeMap::new();
        let mut by_repo: BTreeMap<String, (u32, f64, u64)> = BTreeMap::new();
        for (created, at, h) in &all {
            let day = jiff::Timestamp::from_millisecond(*created)
                .map(|t| t.strftime("%Y-%m-%d").to_string())
                .unwrap_or_default();
            let repo = served[*at].0.name().to_string();
            for (map, k) in [(&mut by_day, day), (&mut by_repo, repo)] {
                let e = map.entry(k).or_default();
                e.0 += 1;
                e.1 += h.spent.usd;
                e.2 += h.spent.tokens;
            }
        }
        let totals = |m: BTreeMap<String, (u32, f64, u64)>, key: &str| -> Vec<Value> {
            m.into_iter()
                .map(|(k, (runs, usd, tokens))| json!({key: k, "runs": runs, "cost_usd": usd, "tokens": tokens}))
                .collect()
        };
        let page: Vec<Value> = all
            .iter()
            .skip(offset)
            .take(limit)
            .map(|(_, at, h)| {
                let (repo, store) = &served[*at];
                run_summary(&state, repo, store, &h.run, &h.spent)
            })
            .collect();
        let next = (offset + page.len() < total).then_some(offset + page.len());
        Ok(Json(json!({
            "runs": page,
            "total": total,
            "offset": offset,
            "next_offset": next,
            "totals": {"by_day": totals(by_day, "day"), "by_repo": totals(by_repo, "repo")},
        }))
        .into_response())
    })
    .await
}

/// `GET /api/v1/runs/{id}` (with the version as `ETag`).
pub async fn get_run(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult {
    blocking(move || {
        let (repo, store, run) = locate(&state, &id)?;
        let v = run_detail(&state, &repo, &store, &run)?;
        let version = v["version"].as_i64().unwrap_or(0);
        Ok(with_etag(v, version))
    })
    .await
}

/// `GET /api/v1/runs/{id}/iterations`.
pub async fn iterations(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult {
    blocking(move || {
        let (_, store, run) = locate(&state, &id)?;
        let its = store.iterations(&run.id)?;
        Ok(Json(json!({"run": run.id, "iterations": its})).into_response())
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct EventsQuery {
    after: Option<i64>,
    limit: Option<u32>,
}

/// `GET /api/v1/runs/{id}/events?after=&limit=`: paged by event id.
pub async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Q(q): Q<EventsQuery>,
) -> ApiResult {
    let after = q.after.unwrap_or(0).max(0);
    let limit = q.limit.unwrap_or(100).clamp(1, 1000) as usize;
    blocking(move || {
        let (_, store, run) = locate(&state, &id)?;
        let events = store.run_events_after(&run.id, after, limit)?;
        let next_after = events.last().map(|e| e.seq).unwrap_or(after);
        let more = events.len() == limit;
        Ok(
            Json(json!({"run": run.id, "events": events, "next_after": next_after, "more": more}))
                .into_response(),
        )
    })
    .await
}

/// `GET /api/v1/runs/{id}/evidence`.
pub async fn evidence(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult {
    blocking(move || {
        let (_, store, run) = locate(&state, &id)?;
        let ev = store.evidence_of_run(Some(&run.id))?;
        Ok(Json(json!({"run": run.id, "evidence": ev})).into_response())
    })
    .await
}

/// `GET /api/v1/runs/{id}/verdicts`.
pub async fn verdicts(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult {
    blocking(move || {
        let (_, store, run) = locate(&state, &id)?;
        let v = store.verdicts(&run.id)?;
        Ok(Json(json!({"run": run.id, "verdicts": v})).into_response())
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct ReportQuery {
    format: Option<String>,
}

/// `GET /api/v1/runs/{id}/report`: JSON, or Markdown with `?format=markdown` (or
/// `Accept: text/markdown`).
pub async fn report(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Q(q): Q<ReportQuery>,
    headers: HeaderMap,
) -> ApiResult {
    let markdown = q.format.as_deref() == Some("markdown")
        || headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("text/markdown"));
    if let Some(f) = q.format.as_deref()
        && f != "markdown"
        && f != "json"
    {
        return Err(ApiError::bad(format!(
            "format must be json or markdown, not `{f}`"
        )));
    }
    blocking(move || {
        let (repo, store, run) = locate(&state, &id)?;
        // The clone here: built as `pawl report` builds it. Elsewhere (a fleet job's, gone):
        // from the store, with what the run published when it stopped.
        let mut report = match clone_here(&repo, &store, &run) {
            Some(root) => pawl_engine::report::build(&store, &run.id, &root)?,
            None => pawl_engine::publish::report_from_store(&store, &run.id)?.0,
        };
        // The user (this API's token or browser session) sees what the independent tester's
        // hidden tests called and got once the run ended, as with `pawl report`.
        pawl_engine::report::reveal(&mut report, state.repos.vault().as_ref());
        if markdown {
            return Ok((
                [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
                pawl_engine::report::markdown(&report),
            )
                .into_response());
        }
        Ok(Json(report).into_response())
    })
    .await
}

/// `GET /api/v1/runs/{id}/diff`: the patch from the pre-run commit to the run branch's head —
/// from the run's clone when it is on this machine (`"source": "clone"`), else as the run
/// published it when it stopped (`"source": "store"`, cut to `pawl_engine::publish::DIFF_KEPT`
/// bytes with `"truncated": true` and a last line saying so).
pub async fn diff(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult {
    blocking(move || {
        let (repo, store, run) = locate(&state, &id)?;
        let unavailable =
            |why: String| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "no_diff", why);
        let Some(root) = clone_here(&repo, &store, &run) else {
            let kept = pawl_engine::publish::published_diff(&store, &run.id)?.ok_or_else(|| {
                unavailable(format!(
                    "run {}'s clone is not on this machine, and the run has not published its diff into the store (it is still running, or it stopped before pawl kept it: `pawl report {}` in its clone keeps it)",
                    run.id, run.id
                ))
            })?;
            if let Some(why) = kept.get("unavailable").and_then(Value::as_str) {
                return Err(unavailable(format!(
                    "run {}'s clone could not give its diff when it stopped: {why}",
                    run.id
                )));
            }
            let field = |name: &str| kept.get(name).cloned().unwrap_or(Value::Null);
            return Ok(Json(json!({
                "run": run.id, "branch": field("branch"), "from": field("from"),
                "to": field("to"), "patch": field("patch"), "source": "store",
                "truncated": kept.get("truncated").and_then(Value::as_bool).unwrap_or(false),
                "patch_bytes": field("patch_bytes"),
            }))
            .into_response());
        };
        let pre = run
            .pre_run_commit
            .clone()
            .ok_or_else(|| unavailable(format!("run {} recorded no pre-run commit", run.id)))?;
        let branch = run
            .branch
            .clone()
            .ok_or_else(|| unavailable(format!("run {} recorded no branch", run.id)))?;
        let git = pawl_git::Repo::open(&root).map_err(|e| unavailable(e.to_string()))?;
        let head = git
            .branch_head(&branch)
            .map_err(|e| unavailable(e.to_string()))?
            .ok_or_else(|| unavailable(format!("branch {branch} no longer exists")))?;
        let patch = git
            .diff_patch(&pre, head.as_str())
            .map_err(|e| unavailable(e.to_string()))?;
        Ok(Json(json!({
            "run": run.id, "branch": branch, "from": pre, "to": head.as_str(),
            "patch": String::from_utf8_lossy(&patch), "source": "clone", "truncated": false,
            "patch_bytes": patch.len(),
        }))
        .into_response())
    })
    .await
}

/// Where run `run`'s clone is on this machine, if it is: the served repository itself, or — for
/// a run of a store many clones share — the path its clone id (`host#boot:path`) names, when the
/// repository there holds the run's branch (named after the run, so no other clone has it).
fn clone_here(repo: &Repo, store: &Store, run: &Run) -> Option<std::path::PathBuf> {
    if repo.store.is_none() {
        return Some(repo.root.clone());
    }
    let clone = store.clone_of(&run.id).ok()??;
    let path = std::path::PathBuf::from(clone.split_once(':')?.1);
    let git = pawl_git::Repo::open(&path).ok()?;
    git.branch_head(run.branch.as_deref()?).ok()??;
    Some(path)
}

// ---- actions ----

/// The version an action was decided on, from `If-Match` (`12`, `"12"` or `W/"12"`).
fn if_match(headers: &HeaderMap) -> ApiResult<Option<i64>> {
    let Some(raw) = headers.get(header::IF_MATCH) else {
        return Ok(None);
    };
    let text = raw
        .to_str()
        .map_err(|_| ApiError::bad("If-Match is not text"))?
        .trim();
    let text = text.strip_prefix("W/").unwrap_or(text);
    let text = text.trim_matches('"');
    text.parse::<i64>().map(Some).map_err(|_| {
        ApiError::bad(format!(
            "If-Match must be the run's version (an integer), not `{text}`"
        ))
    })
}

/// Runs `act` on the run as a compare-and-set on its version: 428 without `If-Match`, 409 with
/// the current state when the run changed since the caller looked.
async fn action<F>(state: AppState, id: String, headers: HeaderMap, act: F) -> ApiResult
where
    F: FnOnce(&Repo, &mut Store, &Run) -> ApiResult<Value> + Send + 'static,
{
    let expected = if_match(&headers)?;
    blocking(move || {
        let (repo, mut store, run) = locate(&state, &id)?;
        let current = store.run_version(&run.id)?;
        let Some(expected) = expected else {
            let mut e = ApiError::new(
                StatusCode::PRECONDITION_REQUIRED,
                "precondition_required",
                "send the run's version as If-Match (GET the run: its `version`, or its ETag)",
            );
            e.extra = Some(json!({"version": current}));
            return Err(e);
        };
        let conflict = |store: &Store, run: &Run| -> ApiError {
            let mut e = ApiError::new(
                StatusCode::CONFLICT,
                "stale_version",
                format!(
                    "run {} changed since version {expected}: look at its state and try again",
                    run.id
                ),
            );
            e.extra =
                Some(json!({"run": run_detail(&state, &repo, store, run).unwrap_or(Value::Null)}));
            e
        };
        if current != expected {
            return Err(conflict(&store, &run));
        }
        store.set_origin(Some("dashboard"));
        store.expect_version(&run.id, expected);
        let out = act(&repo, &mut store, &run);
        store.clear_expectation();
        match out {
            Ok(extra) => {
                let (run, _) = store.run_as_signed(&run.id)?;
                let mut v = run_detail(&state, &repo, &store, &run)?;
                if let (Some(m), Value::Object(extra)) = (v.as_object_mut(), extra) {
                    m.extend(extra);
                }
                let version = v["version"].as_i64().unwrap_or(0);
                Ok(with_etag(v, version))
            }
            Err(e) if e.code == "stale_version" => {
                let (run, _) = store.run_as_signed(&run.id)?;
                Err(conflict(&store, &run))
            }
            Err(e) => Err(e),
        }
    })
    .await
}

fn refuse_ended(run: &Run, what: &str) -> ApiResult<()> {
    if run.status.is_terminal() {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "refused",
            format!("run {} is {}: nothing to {what}", run.id, run.status),
        ));
    }
    Ok(())
}

/// `POST /api/v1/runs/{id}/stop`: the request `pawl stop` writes (the driver stops after its
/// current step and leaves the run resumable).
pub async fn stop(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult {
    action(state, id, headers, |repo, store, run| {
        // A stop request left for a run nobody drives would stop its next `pawl resume` at once.
        if !matches!(run.status, RunStatus::Active | RunStatus::AwaitingUser) {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "refused",
                format!("run {} is {}: nothing to stop", run.id, run.status),
            ));
        }
        store.record_stop_request(&run.id)?;
        // A run of a shared store is driven elsewhere: the request in the store is all there is.
        if repo.store.is_none() {
            let flag = repo.stop_file();
            std::fs::write(&flag, &run.id)
                .map_err(|e| ApiError::internal(format!("cannot write {}: {e}", flag.display())))?;
        }
        Ok(json!({"stop_requested": true}))
    })
    .await
}

/// `POST /api/v1/runs/{id}/cancel`: ends the run for good (its work stays on its branch).
pub async fn cancel(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult {
    action(state, id, headers, |_, store, run| {
        refuse_ended(run, "cancel")?;
        store.cancel_run(&run.id)?;
        Ok(json!({"cancelled": true}))
    })
    .await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResumeBody {
    add_usd: Option<f64>,
    add_iterations: Option<serde_json::Number>,
    add_tokens: Option<serde_json::Number>,
    /// A duration such as `10m`.
    add_time: Option<String>,
}

/// `POST /api/v1/runs/{id}/resume`: raises the run's limits (as `pawl resume --add-*` does);
/// a run waiting only for budget is then resumed by its driver or `pawl resume`.
pub async fn resume(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    J(body): J<ResumeBody>,
) -> ApiResult {
    if let Some(u) = body.add_usd
        && !(u.is_finite() && u >= 0.0)
    {
        return Err(ApiError::bad(format!(
            "add_usd must be a finite amount ≥ 0, got {u}"
        )));
    }
    let add_iterations = match &body.add_iterations {
        Some(n) => Some(whole(n, "add_iterations", u64::from(u32::MAX))? as u32),
        None => None,
    };
    let add_tokens = match &body.add_tokens {
        Some(n) => Some(whole(n, "add_tokens", u64::MAX)?),
        None => None,
    };
    let add_time = match &body.add_time {
        Some(t) => Some(t.parse::<pawl_core::config::Dur>().map_err(ApiError::bad)?),
        None => None,
    };
    action(state, id, headers, move |_, store, run| {
        refuse_ended(run, "resume")?;
        if run.stop_reason == Some(pawl_core::StopReason::Tampered) {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "refused",
                format!("run {} was modified outside pawl (tampered): it is never resumed", run.id),
            ));
        }
        let mut settings = run.settings.clone();
        let mut raised = Vec::new();
        if let Some(u) = body.add_usd {
            settings.limits.max_usd += u;
            raised.push(format!("--add-usd {u}"));
        }
        if let Some(n) = add_iterations {
            settings.limits.max_iterations = settings.limits.max_iterations.saturating_add(n);
            raised.push(format!("--add-iterations {n}"));
        }
        if let Some(n) = add_tokens {
            settings.limits.max_tokens = settings.limits.max_tokens.saturating_add(n);
            raised.push(format!("--add-tokens {n}"));
        }
        if let (Some(d), Some(text)) = (add_time, &body.add_time) {
            let total = settings.limits.max_time.0.checked_add(d.0).ok_or_else(|| ApiError::bad("add_time is too large"))?;
            settings.limits.max_time = pawl_core::config::Dur(total);
            raised.push(format!("--add-time {text}"));
        }
        if !settings.limits.max_usd.is_finite() {
            return Err(ApiError::bad("add_usd is too large"));
        }
        if raised.is_empty() {
            return Err(ApiError::bad("say what to add: add_usd, add_iterations, add_tokens or add_time"));
        }
        store.update_settings(&run.id, &settings, &format!("dashboard: {}", raised.join(" ")))?;
        let driven = store.lease(&run.id)?.is_some();
        Ok(json!({
            "raised": raised,
            "next": if driven { Value::Null } else { Value::String(format!("pawl resume {}", run.id)) },
        }))
    })
    .await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerBody {
    answer: String,
}

/// `POST /api/v1/runs/{id}/answer`: clears what the run waits on (as `pawl user-fixed --notes`).
pub async fn answer(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    J(body): J<AnswerBody>,
) -> ApiResult {
    if body.answer.trim().is_empty() {
        return Err(ApiError::bad("the answer is empty"));
    }
    action(state, id, headers, move |_, store, run| {
        let cleared = store.user_fixed(&run.id, Some(body.answer.trim()))?;
        Ok(json!({"cleared": cleared.iter().map(|b| b.id.clone()).collect::<Vec<_>>()}))
    })
    .await
}

/// `POST /api/v1/runs/{id}/questions/{question}`: the answer to a clarifying question the
/// run waits on (`pawl run --await-answers` reads it from the store). The first answer wins:
/// a question answered already (by another tab, a terminal, or its timeout) is 409 with the
/// answer it kept.
pub async fn answer_question(
    State(state): State<AppState>,
    Path((id, question)): Path<(String, String)>,
    J(body): J<AnswerBody>,
) -> ApiResult {
    let text = body.answer.trim().to_string();
    if text.is_empty() {
        return Err(ApiError::bad("answer: empty"));
    }
    let qid: i64 = question
        .parse()
        .map_err(|_| ApiError::bad(format!("question: `{question}` is not a question's id")))?;
    blocking(move || {
        let (_, mut store, run) = locate(&state, &id)?;
        store.question(&run.id, qid)?;
        refuse_ended(&run, "answer")?;
        store.set_origin(Some("dashboard"));
        let first = store.answer_question(&run.id, qid, &text, false, "dashboard");
        store.set_origin(None);
        let kept = store.question(&run.id, qid)?;
        if !first? {
            let mut e = ApiError::new(
                StatusCode::CONFLICT,
                "already_answered",
                format!("question {qid} of run {} was answered already", run.id),
            );
            e.extra = Some(json!({"question": kept}));
            return Err(e);
        }
        Ok(Json(json!({"run": run.id, "question": kept})).into_response())
    })
    .await
}
