//! [`MockServer`]: an HTTP server on 127.0.0.1 that plays a [`Scenario`] to Claude Code, Codex or
//! Gemini CLI, and records every request.
//!
//! It runs on its own thread with a single-threaded tokio runtime, so plain synchronous tests can
//! start it, run a CLI against it and read its log. Shutting down drops the runtime, which also ends
//! connections a `stall` fault keeps open.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Write as _;
use std::net::{SocketAddr, TcpListener as StdTcpListener};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::conversation::{Conversation, choose_turn, fallback_turn};
use crate::error::TestkitError;
use crate::log::{Api, RecordedRequest, RequestKind, distinct_user_texts, mask_header};
use crate::reply::{Delivery, Reply, into_response};
use crate::scenario::{Fault, Scenario, Turn, Usage};
use crate::{anthropic, gemini, openai};

/// How to run the server beyond its scenario.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Also append every request, as one JSON line, to this file.
    pub request_log: Option<PathBuf>,
}

/// A running mock model server. Dropping it shuts it down.
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct Shared {
    scenario: Scenario,
    started: Instant,
    state: Mutex<LogState>,
}

#[derive(Debug, Default)]
struct LogState {
    requests: Vec<RecordedRequest>,
    /// Next arrival number; reserved when a request arrives, so ids in replies are unique even
    /// when requests overlap.
    next_seq: usize,
    main_requests: usize,
    /// Attempts served per scripted turn, for per-turn faults.
    attempts: HashMap<usize, usize>,
    jsonl: Option<File>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, LogState> {
        // A panic while holding the lock cannot leave the log half-written in a way that matters
        // to a test; keep serving.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl MockServer {
    /// Starts a server for `scenario` on 127.0.0.1 and a free port.
    pub fn start(scenario: Scenario) -> Result<Self, TestkitError> {
        Self::start_with(scenario, ServerOptions::default())
    }

    /// Starts a server with explicit options.
    pub fn start_with(scenario: Scenario, options: ServerOptions) -> Result<Self, TestkitError> {
        let io = |context: String| move |source| TestkitError::Io { context, source };
        let jsonl = match &options.request_log {
            Some(path) => Some(
                File::options()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(io(format!("opening request log {}", path.display())))?,
            ),
            None => None,
        };
        // Binding here, before the thread starts, means base_url() is valid as soon as start returns.
        let listener = StdTcpListener::bind(("127.0.0.1", options.port))
            .map_err(io(format!("binding 127.0.0.1:{}", options.port)))?;
        listener
            .set_nonblocking(true)
            .map_err(io("setting the listener non-blocking".into()))?;
        let addr = listener
            .local_addr()
            .map_err(io("reading the bound address".into()))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(io("building the tokio runtime".into()))?;

        let shared = Arc::new(Shared {
            scenario,
            started: Instant::now(),
            state: Mutex::new(LogState {
                jsonl,
                ..LogState::default()
            }),
        });
        let app = Router::new()
            .fallback(handle)
            .layer(DefaultBodyLimit::max(64 * 1024 * 1024))
            .with_state(Arc::clone(&shared));
        let (shutdown, stop) = oneshot::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
        let thread = std::thread::Builder::new()
            .name(format!("pawl-mock-model-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => listener,
                        Err(err) => {
                            let _ = ready_tx.send(Err(err.to_string()));
                            return;
                        }
                    };
                    let _ = ready_tx.send(Ok(()));
                    // Not a graceful shutdown: a stalled request would keep it waiting forever.
                    tokio::select! {
                        result = axum::serve(listener, app) => {
                            if let Err(err) = result {
                                tracing::error!(%err, "mock model server stopped");
                            }
                        }
                        _ = stop => {}
                    }
                });
                // Dropping the runtime here cancels every connection task still running.
            })
            .map_err(io("spawning the server thread".into()))?;
        match ready_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(message)) => return Err(TestkitError::Start(message)),
            Err(_) => return Err(TestkitError::Start("server thread exited early".into())),
        }
        tracing::debug!(%addr, "mock model server listening");
        Ok(Self {
            addr,
            shared,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:<port>`, for `ANTHROPIC_BASE_URL` and `GOOGLE_GEMINI_BASE_URL`; Codex's
    /// provider `base_url` wants this plus `/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// The main model requests (steps of the agent loop) received so far.
    pub fn main_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(RecordedRequest::is_main)
            .collect()
    }

    /// The last user text of the last main request: what the CLI was last told.
    pub fn last_user_text(&self) -> Option<String> {
        self.main_requests()
            .last()
            .and_then(|request| request.last_user_text().map(str::to_owned))
    }

    /// Every distinct user text across all model requests, in first-seen order.
    pub fn all_user_texts(&self) -> Vec<String> {
        distinct_user_texts(&self.requests())
    }

    /// The usage the mock reported in successful main answers, summed: what a CLI's own token total
    /// should equal.
    pub fn reported_usage(&self) -> Usage {
        let state = self.shared.lock();
        let mut total = Usage {
            input_tokens: 0,
            output_tokens: 0,
            ..Usage::default()
        };
        for request in state
            .requests
            .iter()
            .filter(|r| r.is_main() && r.fault.is_none())
        {
            let turn = match request.turn {
                Some(index) => self.shared.scenario.turns.get(index).cloned(),
                None => Some(fallback_turn(&self.shared.scenario)),
            };
            if let Some(turn) = turn {
                total.input_tokens += turn.usage.input_tokens;
                total.output_tokens += turn.usage.output_tokens;
                total.cache_read_input_tokens += turn.usage.cache_read_input_tokens;
                total.cache_creation_input_tokens += turn.usage.cache_creation_input_tokens;
            }
        }
        total
    }

    /// Stops the server and waits for its thread. Also done on drop.
    pub fn shutdown(mut self) {
        self.stop();
    }

    /// Blocks until the server stops by itself (it does not, short of an error): for the binary.
    pub fn wait(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    fn stop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The single handler: routing by hand keeps logging uniform, unknown endpoints included.
async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    let json: Option<Value> = serde_json::from_slice(&body).ok();
    let seq = {
        let mut state = shared.lock();
        state.next_seq += 1;
        state.next_seq - 1
    };
    let mut record = RecordedRequest {
        seq,
        at_ms: u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        method: method.to_string(),
        path: path.clone(),
        query: uri.query().map(str::to_owned),
        headers: headers
            .iter()
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes());
                (name.as_str().to_owned(), mask_header(name.as_str(), &value))
            })
            .collect::<BTreeMap<_, _>>(),
        body: json.clone(),
        api: Api::None,
        kind: RequestKind::Unknown,
        main_index: None,
        turn: None,
        fault: None,
        status: 200,
        user_texts: Vec::new(),
        tool_outputs: Vec::new(),
        tools: Vec::new(),
    };

    let is_post = method == Method::POST;
    let is_get = method == Method::GET || method == Method::HEAD;
    let gemini_call = path
        .rsplit_once(':')
        .filter(|(prefix, _)| prefix.contains("/models/"));
    let anthropic_style =
        headers.contains_key("anthropic-version") || headers.contains_key("x-api-key");

    let (reply, delivery) = if is_get && path == "/api/hello" {
        record.kind = RequestKind::Preflight;
        (Reply::json(200, serde_json::json!({})), Delivery::Complete)
    } else if is_post && path.ends_with("/messages/count_tokens") {
        record.api = Api::Anthropic;
        record.kind = RequestKind::CountTokens;
        (anthropic::count_tokens(body.len()), Delivery::Complete)
    } else if is_post && path.ends_with("/messages") {
        record.api = Api::Anthropic;
        model_request(&shared, &mut record, json.as_ref(), |body| {
            Some(anthropic::conversation(body))
        })
    } else if is_post && path.ends_with("/responses") {
        record.api = Api::OpenAi;
        model_request(&shared, &mut record, json.as_ref(), |body| {
            Some(openai::conversation(body))
        })
    } else if let (true, Some((prefix, action))) = (is_post, gemini_call) {
        record.api = Api::Gemini;
        let model = prefix
            .rsplit('/')
            .next()
            .unwrap_or("gemini-mock")
            .to_owned();
        match action {
            "countTokens" => {
                record.kind = RequestKind::CountTokens;
                (gemini::count_tokens(body.len()), Delivery::Complete)
            }
            "streamGenerateContent" | "generateContent" => {
                let stream = action == "streamGenerateContent";
                model_request(&shared, &mut record, json.as_ref(), |body| {
                    Some(gemini::conversation(body, &model, stream))
                })
            }
            _ => (
                anthropic::not_found(method.as_str(), &path),
                Delivery::Complete,
            ),
        }
    } else if is_get && path.ends_with("/models") {
        record.kind = RequestKind::Models;
        let reply = if path.starts_with("/v1beta") {
            record.api = Api::Gemini;
            gemini::models()
        } else if anthropic_style {
            record.api = Api::Anthropic;
            anthropic::models()
        } else {
            record.api = Api::OpenAi;
            openai::models()
        };
        (reply, Delivery::Complete)
    } else {
        tracing::warn!(%method, %path, "mock model server: unknown endpoint");
        (
            anthropic::not_found(method.as_str(), &path),
            Delivery::Complete,
        )
    };
    record.status = reply.status;
    let stall_before_headers = matches!(record.fault, Some(Fault::Stall { after_events: None }));
    save(&shared, record);

    if stall_before_headers {
        // Accept and never answer; the runtime's shutdown ends this task.
        std::future::pending::<()>().await;
    }
    into_response(reply, delivery)
}

/// Answers a model request: auxiliary canned text, or a scripted turn with its faults.
fn model_request(
    shared: &Shared,
    record: &mut RecordedRequest,
    body: Option<&Value>,
    digest: impl FnOnce(&Value) -> Option<Conversation>,
) -> (Reply, Delivery) {
    let Some(conversation) = body.and_then(digest) else {
        record.kind = RequestKind::BadRequest;
        return (
            Reply::json(
                400,
                serde_json::json!({"type": "error", "error": {
                "type": "invalid_request_error", "message": "mock: request body is not JSON"}}),
            ),
            Delivery::Complete,
        );
    };
    record.user_texts = conversation.user_texts.clone();
    record.tool_outputs = conversation.tool_outputs.clone();
    record.tools = conversation
        .tools
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    let api = record.api;
    let seq = record.seq;
    let render = |turn: &Turn| match api {
        Api::OpenAi => openai::render(turn, &conversation, seq),
        Api::Gemini => gemini::render(turn, &conversation, seq),
        Api::Anthropic | Api::None => anthropic::render(turn, &conversation, seq),
    };

    if conversation.auxiliary {
        record.kind = RequestKind::Auxiliary;
        let text = auxiliary_text(&shared.scenario, &conversation, api);
        return (render(&side_turn(text)), Delivery::Complete);
    }

    // pawl's independent tester (pawl-core `tester::MARKER`), when the scenario does not script
    // it: answered like a side request (no hidden tests), without consuming a scripted turn, a
    // main index or usage, so that runs that start a tester keep their scripts.
    if conversation
        .user_texts
        .iter()
        .any(|t| t.contains(TESTER_MARKER))
        && !shared.scenario.turns.iter().any(|t| {
            t.when_last_user_contains
                .as_deref()
                .is_some_and(|n| n.contains(TESTER_MARKER))
        })
    {
        record.kind = RequestKind::Auxiliary;
        let turn = side_turn("```json\n{\"files\": []}\n```".to_owned());
        return (render(&turn), Delivery::Complete);
    }

    record.kind = RequestKind::Main;
    let scenario = &shared.scenario;
    let turn_index = choose_turn(scenario, &conversation);
    let fault = {
        let mut state = shared.lock();
        let main_index = state.main_requests;
        state.main_requests += 1;
        record.main_index = Some(main_index);
        let pinned = scenario
            .request_faults
            .iter()
            .find(|pinned| pinned.request == main_index)
            .map(|pinned| pinned.fault.clone());
        let per_turn = turn_index.and_then(|index| {
            let attempt = state.attempts.entry(index).or_insert(0);
            let fault = scenario
                .turns
                .get(index)
                .and_then(|turn| turn.faults.get(*attempt))
                .cloned();
            *attempt += 1;
            fault
        });
        pinned.or(per_turn)
    };
    record.turn = turn_index;
    let turn = turn_index
        .and_then(|index| scenario.turns.get(index).cloned())
        .unwrap_or_else(|| fallback_turn(scenario));
    let answer = render(&turn);
    record.fault = fault.clone();
    let Some(fault) = fault else {
        return (answer, Delivery::Complete);
    };
    let http_fault = match api {
        Api::OpenAi => openai::fault_reply(&fault),
        Api::Gemini => gemini::fault_reply(&fault),
        Api::Anthropic | Api::None => anthropic::fault_reply(&fault),
    };
    match (http_fault, fault) {
        (Some(reply), _) => (reply, Delivery::Complete),
        (None, Fault::CutStream { after_events }) => (answer, Delivery::CutAfter(after_events)),
        (
            None,
            Fault::Stall {
                after_events: Some(n),
            },
        ) => (answer, Delivery::StallAfter(n)),
        // A stall before the headers is handled by the caller, after the request is logged.
        (None, _) => (answer, Delivery::StallAfter(0)),
    }
}

/// The first line of pawl's prompt to its independent tester (pawl-core `tester::MARKER`).
pub const TESTER_MARKER: &str = "[pawl role: independent-tester]";

/// A side request's answer: `text`, no usage (it spends nothing of a scripted run).
fn side_turn(text: String) -> Turn {
    Turn {
        text: Some(text),
        usage: Usage {
            input_tokens: 0,
            output_tokens: 0,
            ..Usage::default()
        },
        ..Turn::default()
    }
}

/// The canned answer to an auxiliary request. Claude Code's title and topic prompts ask for JSON.
fn auxiliary_text(scenario: &Scenario, conversation: &Conversation, api: Api) -> String {
    if api == Api::Gemini
        && let Some(text) = gemini::auxiliary_text(conversation)
    {
        return text;
    }
    let hint = &conversation.auxiliary_hint;
    if hint.contains("isNewTopic") {
        return serde_json::json!({"isNewTopic": false, "title": null}).to_string();
    }
    if hint.to_ascii_lowercase().contains("title") {
        return serde_json::json!({"title": "Mock session"}).to_string();
    }
    scenario
        .auxiliary_text
        .clone()
        .unwrap_or_else(|| "OK".to_owned())
}

fn save(shared: &Shared, record: RecordedRequest) {
    let mut state = shared.lock();
    if let Some(file) = state.jsonl.as_mut() {
        match serde_json::to_string(&record) {
            Ok(line) => {
                if let Err(err) = writeln!(file, "{line}") {
                    tracing::warn!(%err, "mock model server: writing the request log failed");
                }
            }
            Err(err) => tracing::warn!(%err, "mock model server: serializing a request failed"),
        }
    }
    state.requests.push(record);
}
