//! Live events. One watcher thread follows every served store (new events by id, the registry
//! for new repositories) and posts each new event on a broadcast bus; it also runs the monitor
//! (stalls, notifications). Each SSE client first catches up from the store — from its
//! `Last-Event-ID`, or `?after=` — then follows the bus, re-reading the store if it fell
//! behind: a client that reconnects misses nothing, and 50 clients cost the store nothing more.
//!
//! Per run, the SSE `id` is the event's id (the one `events?after=` pages by). For all runs,
//! it is a cursor over the repositories, `<repo>:<id>,<repo>:<id>`, sent back as
//! `Last-Event-ID` the same way.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use pawl_core::record::Event;
use pawl_store::Store;
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

use crate::AppState;
use crate::api::ApiError;
use crate::monitor::{self, Notice, NoticeKind, Seen};
use crate::notify::Notify;
use crate::repos::Repo;

/// One new event of one repository.
#[derive(Debug)]
pub struct Posted {
    pub repo: String,
    pub event: Event,
    /// The SSE data of the event, made once for every client that follows it.
    pub data: String,
}

const PAGE: usize = 500;

/// The watcher thread's name (what `ps -L`/`top -H` show; Linux keeps 15 bytes of it).
pub const WATCHER: &str = "pawl-watcher";

/// Follows the stores until `stop`.
pub fn spawn_watcher(
    state: AppState,
    poll: Duration,
    notify: Notify,
    stop: Arc<AtomicBool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let thread = std::thread::Builder::new().name(WATCHER.into());
    thread.spawn(move || {
        lower_priority();
        let mut stores: HashMap<String, (Repo, Store)> = HashMap::new();
        let mut cursors: HashMap<String, i64> = HashMap::new();
        let mut seen: HashMap<(String, String), Seen> = HashMap::new();
        let mut first = true;
        let mut last_monitor: Option<Instant> = None;
        // What the monitor's next pass looks at beside the open runs: every run of a repository
        // that just appeared, and each run with new events (a run's status changes with one).
        let mut changed = Changed::default();
        while !stop.load(Ordering::SeqCst) {
            for repo in state.repos.list() {
                if !stores.contains_key(&repo.id) {
                    let Ok(Some(store)) = state.repos.open(&repo) else {
                        continue;
                    };
                    // Repositories there at start: only what happens from now on is news.
                    // One that appears later: everything in it is.
                    let start = if first {
                        store.last_event_seq().unwrap_or(0)
                    } else {
                        0
                    };
                    cursors.insert(repo.id.clone(), start);
                    stores.insert(repo.id.clone(), (repo.clone(), store));
                    changed.repos.insert(repo.id.clone());
                }
                let (Some((_, store)), Some(cursor)) =
                    (stores.get(&repo.id), cursors.get_mut(&repo.id))
                else {
                    continue;
                };
                loop {
                    let Ok(batch) = store.events_after(None, *cursor, PAGE) else {
                        break;
                    };
                    let n = batch.len();
                    for event in batch {
                        *cursor = event.seq;
                        if let Some(run) = &event.run_id {
                            changed.runs.insert((repo.id.clone(), run.clone()));
                        }
                        let data = sse_data(&repo.id, &event);
                        let _ = state.bus.send(Arc::new(Posted {
                            repo: repo.id.clone(),
                            event,
                            data,
                        }));
                    }
                    if n < PAGE {
                        break;
                    }
                }
            }
            first = false;
            if last_monitor.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                last_monitor = Some(Instant::now());
                watch_runs(&stores, &changed, &mut seen, &notify);
                changed = Changed::default();
            }
            std::thread::sleep(poll);
        }
    })
}

/// The watcher is background work: it yields the CPU to requests (the dashboard's listing right
/// at start races its first pass over every run) and to the runs it follows. On Linux the nice
/// value is per thread, so only this thread is lowered; elsewhere it would be the whole daemon,
/// so it is left alone.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    if let Ok(now) = rustix::process::getpriority_process(None) {
        let _ = rustix::process::setpriority_process(None, (now + 10).min(19));
    }
}

/// What changed since the monitor's last pass.
#[derive(Default)]
struct Changed {
    /// Repositories that appeared: every run is looked at.
    repos: std::collections::HashSet<String>,
    /// Runs with new events, by repository.
    runs: std::collections::HashSet<(String, String)>,
}

/// The monitor's pass: a run's state against the last look, a notice for each change. It looks
/// at every run of a repository that appeared, at each run with new events, and at the open
/// runs (time alone can stall them) — not at every run every time.
fn watch_runs(
    stores: &HashMap<String, (Repo, Store)>,
    changed: &Changed,
    seen: &mut HashMap<(String, String), Seen>,
    notify: &Notify,
) {
    let now = jiff::Timestamp::now().as_millisecond();
    for (repo, store) in stores.values() {
        let runs = if changed.repos.contains(&repo.id) {
            let Ok(runs) = store.runs() else { continue };
            runs
        } else {
            let open = seen
                .iter()
                .filter(|((r, _), s)| *r == repo.id && !s.status.is_terminal())
                .map(|((_, id), _)| id);
            let touched = changed
                .runs
                .iter()
                .filter(|(r, _)| *r == repo.id)
                .map(|(_, id)| id);
            let ids: std::collections::BTreeSet<&String> = open.chain(touched).collect();
            ids.into_iter()
                .filter_map(|id| store.run(id).ok())
                .collect()
        };
        for run in runs {
            let key = (repo.id.clone(), run.id.clone());
            let before = seen.get(&key).copied();
            if before.is_some_and(|b| b.status.is_terminal()) && run.status.is_terminal() {
                continue;
            }
            // Only an active run can stall: the others cost no query.
            let stalled = (run.status == pawl_core::model::RunStatus::Active)
                .then(|| monitor::stalled(&run, monitor::last_sign(store, &run.id), now))
                .flatten();
            let now_seen = Seen {
                status: run.status,
                stalled: stalled.is_some(),
            };
            if let Some(kind) = monitor::notice(before, now_seen) {
                let message = match kind {
                    NoticeKind::Ended => format!(
                        "run {} ({}) ended: {}{}",
                        run.id,
                        repo.name(),
                        run.status,
                        run.stop_reason
                            .map(|r| format!(" ({r})"))
                            .unwrap_or_default()
                    ),
                    NoticeKind::Stalled => format!(
                        "run {} ({}) is stalled: nothing from its agent for {}s",
                        run.id,
                        repo.name(),
                        stalled.unwrap_or(0) / 1000
                    ),
                    NoticeKind::AwaitingUser => {
                        format!("run {} ({}) is waiting for you", run.id, repo.name())
                    }
                };
                notify.send(&Notice {
                    kind,
                    run: run.id.clone(),
                    repo: repo.root.display().to_string(),
                    message,
                });
            }
            seen.insert(key, now_seen);
        }
    }
}

fn sse_data(repo: &str, e: &Event) -> String {
    serde_json::json!({
        "id": e.seq, "repo": repo, "run_id": e.run_id, "at": e.at, "kind": e.kind, "data": e.data,
    })
    .to_string()
}

fn sse_event(repo: &str, e: &Event, id: String) -> SseEvent {
    SseEvent::default().id(id).data(sse_data(repo, e))
}

/// A followed event, from the data made once for every client.
fn posted_event(p: &Posted, id: String) -> SseEvent {
    SseEvent::default().id(id).data(&p.data)
}

fn last_event_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

type Tx = mpsc::Sender<Result<SseEvent, Infallible>>;

fn sse(rx: mpsc::Receiver<Result<SseEvent, Infallible>>) -> Response {
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

async fn read_page(
    state: &AppState,
    repo: &Repo,
    run: Option<&str>,
    after: i64,
) -> Option<Vec<Event>> {
    let (state, repo, run) = (state.clone(), repo.clone(), run.map(str::to_string));
    tokio::task::spawn_blocking(move || {
        let store = state.repos.open(&repo).ok()??;
        match &run {
            Some(r) => store.run_events_after(r, after, PAGE).ok(),
            None => store.events_after(None, after, PAGE).ok(),
        }
    })
    .await
    .ok()
    .flatten()
}

#[derive(Debug, Deserialize)]
pub struct StreamQuery {
    after: Option<i64>,
}

/// `GET /api/v1/runs/{id}/events/stream`.
pub async fn run_stream(
    State(state): State<AppState>,
    Path(id): Path<String>,
    crate::api::Q(q): crate::api::Q<StreamQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    // Subscribed before the store is read: nothing falls between the two.
    let mut sub = state.bus.subscribe();
    let (st, run_id) = (state.clone(), id.clone());
    let found = tokio::task::spawn_blocking(move || -> Result<_, ApiError> {
        let (repo, store) = st.repos.find(&run_id)?.ok_or_else(|| {
            ApiError::new(
                axum::http::StatusCode::NOT_FOUND,
                "not_found",
                format!("no run `{run_id}` in the served repositories"),
            )
        })?;
        let tail = store.last_event_seq()?;
        Ok((repo, tail))
    })
    .await
    .map_err(|e| {
        ApiError::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            e.to_string(),
        )
    })??;
    let (repo, tail) = found;
    let start = match last_event_id(&headers) {
        Some(h) => h.trim().parse::<i64>().map_err(|_| {
            ApiError::new(
                axum::http::StatusCode::BAD_REQUEST,
                "bad_request",
                "Last-Event-ID must be an event id",
            )
        })?,
        None => q.after.unwrap_or(tail),
    };
    let (tx, rx) = mpsc::channel(256);
    tokio::spawn(async move {
        let mut last = start;
        let catch_up = |last: i64| {
            let (state, repo, id) = (state.clone(), repo.clone(), id.clone());
            async move { read_page(&state, &repo, Some(&id), last).await }
        };
        if !send_pages(&tx, &repo.id, &mut last, &catch_up, |l| l.to_string()).await {
            return;
        }
        loop {
            tokio::select! {
                _ = tx.closed() => return,
                got = sub.recv() => match got {
                    Ok(p) => {
                        if p.repo == repo.id && p.event.run_id.as_deref() == Some(id.as_str()) && p.event.seq > last {
                            last = p.event.seq;
                            if tx.send(Ok(posted_event(&p, last.to_string()))).await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(RecvError::Lagged(_)) => {
                        if !send_pages(&tx, &repo.id, &mut last, &catch_up, |l| l.to_string()).await {
                            return;
                        }
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        }
    });
    Ok(sse(rx))
}

/// Sends the store's pages after `last` until the end; false when the client is gone.
async fn send_pages<F, Fut>(
    tx: &Tx,
    repo: &str,
    last: &mut i64,
    read: &F,
    id_of: impl Fn(i64) -> String,
) -> bool
where
    F: Fn(i64) -> Fut,
    Fut: std::future::Future<Output = Option<Vec<Event>>>,
{
    loop {
        let page = read(*last).await.unwrap_or_default();
        let n = page.len();
        for e in page {
            *last = e.seq;
            if tx
                .send(Ok(sse_event(repo, &e, id_of(e.seq))))
                .await
                .is_err()
            {
                return false;
            }
        }
        if n < PAGE {
            return true;
        }
    }
}

/// A cursor over repositories: `<repo>:<id>,...`.
fn encode(cursor: &BTreeMap<String, i64>) -> String {
    cursor
        .iter()
        .map(|(r, s)| format!("{r}:{s}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn decode(text: &str) -> BTreeMap<String, i64> {
    text.split(',')
        .filter_map(|part| part.trim().split_once(':'))
        .filter_map(|(r, s)| Some((r.to_string(), s.parse().ok()?)))
        .collect()
}

/// `GET /api/v1/events/stream`: every served run's events.
pub async fn all_stream(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let mut sub = state.bus.subscribe();
    let given = last_event_id(&headers)
        .map(|h| decode(&h))
        .unwrap_or_default();
    let st = state.clone();
    let (repos, cursor) = tokio::task::spawn_blocking(move || {
        let repos = st.repos.list();
        let mut cursor = BTreeMap::new();
        for repo in &repos {
            let at = match given.get(&repo.id) {
                Some(s) => *s,
                None => st
                    .repos
                    .open(repo)
                    .ok()
                    .flatten()
                    .and_then(|s| s.last_event_seq().ok())
                    .unwrap_or(0),
            };
            cursor.insert(repo.id.clone(), at);
        }
        (repos, cursor)
    })
    .await
    .map_err(|e| {
        ApiError::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            e.to_string(),
        )
    })?;
    let (tx, rx) = mpsc::channel(256);
    tokio::spawn(async move {
        let mut cursor = cursor;
        let catch_up_all = |cursor: &mut BTreeMap<String, i64>| {
            let (state, repos) = (state.clone(), repos.clone());
            let tx = tx.clone();
            let mut c = cursor.clone();
            async move {
                for repo in &repos {
                    let mut last = c.get(&repo.id).copied().unwrap_or(0);
                    loop {
                        let page = read_page(&state, repo, None, last)
                            .await
                            .unwrap_or_default();
                        let n = page.len();
                        for e in page {
                            last = e.seq;
                            c.insert(repo.id.clone(), last);
                            if tx
                                .send(Ok(sse_event(&repo.id, &e, encode(&c))))
                                .await
                                .is_err()
                            {
                                return None;
                            }
                        }
                        if n < PAGE {
                            break;
                        }
                    }
                }
                Some(c)
            }
        };
        match catch_up_all(&mut cursor).await {
            Some(c) => cursor = c,
            None => return,
        }
        loop {
            tokio::select! {
                _ = tx.closed() => return,
                got = sub.recv() => match got {
                    Ok(p) => {
                        let at = cursor.get(&p.repo).copied().unwrap_or(0);
                        if p.event.seq > at {
                            cursor.insert(p.repo.clone(), p.event.seq);
                            if tx.send(Ok(posted_event(&p, encode(&cursor)))).await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(RecvError::Lagged(_)) => match catch_up_all(&mut cursor).await {
                        Some(c) => cursor = c,
                        None => return,
                    },
                    Err(RecvError::Closed) => return,
                }
            }
        }
    });
    Ok(sse(rx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_read_back_and_ignore_garbage() {
        let mut c = BTreeMap::new();
        c.insert("abc".to_string(), 12);
        c.insert("def".to_string(), 3);
        assert_eq!(decode(&encode(&c)), c);
        assert!(decode("nonsense,x:y,:").is_empty());
    }
}
