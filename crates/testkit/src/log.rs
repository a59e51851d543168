//! The request log: every request the mock received, as tests assert on it.
//!
//! Records are kept in memory and, when asked, appended to a JSONL file as they arrive. Secrets are
//! masked (`authorization`, `x-api-key`, `x-goog-api-key`) so a log written while someone points a
//! real key at the mock does not keep it.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::scenario::Fault;

/// Which wire API a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    Anthropic,
    OpenAi,
    Gemini,
    /// Not a model API route (preflight, unknown endpoint).
    None,
}

/// What a request was, as far as the mock is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// A step of the agent loop: answered from the script.
    Main,
    /// A side request (title, topic, quota probe, next-speaker check): answered without consuming a
    /// scripted turn.
    Auxiliary,
    /// `HEAD`/`GET /api/hello`.
    Preflight,
    CountTokens,
    Models,
    /// A model route whose body was not JSON.
    BadRequest,
    /// Any other endpoint: answered 404.
    Unknown,
}

/// One request, as received and as answered.
#[derive(Debug, Clone, Serialize)]
pub struct RecordedRequest {
    /// 0-based arrival order among all requests.
    pub seq: usize,
    /// Milliseconds from server start to the arrival of this request (to check retry delays).
    pub at_ms: u64,
    pub method: String,
    /// The path without the query string.
    pub path: String,
    pub query: Option<String>,
    /// Lower-case header names; secret values masked.
    pub headers: BTreeMap<String, String>,
    /// The parsed JSON body, if it was JSON.
    pub body: Option<Value>,
    pub api: Api,
    pub kind: RequestKind,
    /// 0-based index among main requests (the index `request_faults` refer to).
    pub main_index: Option<usize>,
    /// The scripted turn that answered (index into `Scenario::turns`); `None` for the fallback turn
    /// and for non-main requests.
    pub turn: Option<usize>,
    /// The fault served instead of (or on the way to) the answer.
    pub fault: Option<Fault>,
    /// The HTTP status sent (200 for cut and stalled streams, which fail after the headers).
    pub status: u16,
    /// Texts of the user-side messages of the conversation, in order (tool results excluded).
    pub user_texts: Vec<String>,
    /// Tool outputs the client reported back, in order.
    pub tool_outputs: Vec<String>,
    /// Names of the tools the client offered.
    pub tools: Vec<String>,
}

impl RecordedRequest {
    /// The text of the last user-side message of this request's conversation.
    pub fn last_user_text(&self) -> Option<&str> {
        self.user_texts.last().map(String::as_str)
    }

    /// A header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// Whether this was a main model request (a step of the agent loop).
    pub fn is_main(&self) -> bool {
        self.kind == RequestKind::Main
    }
}

/// Masks a secret header value, keeping a short prefix so tests can still tell keys apart.
pub(crate) fn mask_header(name: &str, value: &str) -> String {
    const SECRET: [&str; 4] = ["authorization", "x-api-key", "x-goog-api-key", "api-key"];
    if SECRET.contains(&name) {
        let prefix: String = value.chars().take(12).collect();
        if prefix.len() < value.len() {
            format!("{prefix}...")
        } else {
            prefix
        }
    } else {
        value.to_owned()
    }
}

/// Each distinct user text across `requests`, in first-seen order.
pub(crate) fn distinct_user_texts(requests: &[RecordedRequest]) -> Vec<String> {
    let mut seen = Vec::<String>::new();
    for text in requests
        .iter()
        .flat_map(|request| request.user_texts.iter())
    {
        if !seen.contains(text) {
            seen.push(text.clone());
        }
    }
    seen
}
