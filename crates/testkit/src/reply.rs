//! A reply the mock has decided on, and how it is delivered: whole, cut after some SSE events, or
//! stalled.
//!
//! The API modules only build [`Reply`] values; this module turns them into HTTP responses, so the
//! fault behaviour (cut, stall) is the same for every API.

use std::collections::VecDeque;
use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::Value;

/// What to send: a status, extra headers and a JSON or SSE body.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: ReplyBody,
}

#[derive(Debug, Clone)]
pub(crate) enum ReplyBody {
    Json(Value),
    /// Complete SSE frames, each ending in a blank line.
    Sse(Vec<String>),
}

impl Reply {
    pub(crate) fn json(status: u16, body: Value) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: ReplyBody::Json(body),
        }
    }

    pub(crate) fn sse(frames: Vec<String>) -> Self {
        Self {
            status: 200,
            headers: Vec::new(),
            body: ReplyBody::Sse(frames),
        }
    }

    #[must_use]
    pub(crate) fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }
}

/// How much of a reply reaches the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    Complete,
    /// Send the headers and this many SSE events (a JSON body counts as one), then drop the
    /// connection without finishing the chunked body.
    CutAfter(usize),
    /// Send the headers and this many events, then stay silent until the server shuts down.
    StallAfter(usize),
}

/// One SSE frame with a named event, as Anthropic and OpenAI send them.
pub(crate) fn sse_event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// One SSE frame with data only, as Gemini's `alt=sse` sends them.
pub(crate) fn sse_data(data: &Value) -> String {
    format!("data: {data}\n\n")
}

/// Builds the HTTP response for `reply`, delivered as `delivery` says.
pub(crate) fn into_response(reply: Reply, delivery: Delivery) -> Response {
    let (content_type, chunks): (&str, Vec<Bytes>) = match reply.body {
        ReplyBody::Json(value) => ("application/json", vec![Bytes::from(value.to_string())]),
        ReplyBody::Sse(frames) => (
            "text/event-stream",
            frames.into_iter().map(Bytes::from).collect(),
        ),
    };
    let body = match delivery {
        // A complete body is sent in one piece with a content-length: simplest for every client.
        Delivery::Complete => Body::from(chunks.concat()),
        Delivery::CutAfter(n) => streamed(chunks, n, End::Cut),
        Delivery::StallAfter(n) => streamed(chunks, n, End::Stall),
    };
    let mut response = Response::new(body);
    *response.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if content_type == "text/event-stream" {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    }
    for (name, value) in reply.headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            headers.insert(name, value);
        }
    }
    response
}

#[derive(Debug, Clone, Copy)]
enum End {
    Cut,
    Stall,
}

/// A chunked body that yields the first `keep` chunks and then ends abnormally.
fn streamed(chunks: Vec<Bytes>, keep: usize, end: End) -> Body {
    let queue: VecDeque<Bytes> = chunks.into_iter().take(keep).collect();
    let stream = futures_util::stream::unfold(Some(queue), move |state| async move {
        let mut queue = state?;
        if let Some(chunk) = queue.pop_front() {
            return Some((Ok::<Bytes, StreamEnded>(chunk), Some(queue)));
        }
        match end {
            // An error from the body makes hyper abort the connection mid-body, which is what a
            // client sees when a real stream is cut.
            End::Cut => {
                // Give hyper time to flush what was sent; an error while the data still sits in
                // its write buffer would drop the connection before any of it left.
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                Some((Err(StreamEnded), None))
            }
            End::Stall => {
                std::future::pending::<Infallible>().await;
                None
            }
        }
    });
    Body::from_stream(stream)
}

/// The error that ends a deliberately cut stream.
#[derive(Debug, thiserror::Error)]
#[error("mock model server: stream cut by the scenario")]
struct StreamEnded;
