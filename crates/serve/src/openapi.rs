//! `GET /api/v1/openapi.json`: the OpenAPI 3.1 document of the API, built from the table of
//! operations below (one row per route of `lib.rs::router`; a test checks that every route
//! is described and answers as described).

use axum::Json;
use serde_json::{Value, json};

/// One operation: method, path, summary, query parameters, whether it takes `If-Match` and a
/// body, the statuses it answers with besides 401/403.
struct Op {
    method: &'static str,
    path: &'static str,
    id: &'static str,
    summary: &'static str,
    query: &'static [(&'static str, &'static str)],
    body: Option<&'static str>,
    cas: bool,
    ok: &'static str,
    statuses: &'static [u16],
}

const RUN_STATUSES: &[u16] = &[200, 404];
const ACTION_STATUSES: &[u16] = &[200, 400, 404, 409, 422, 428];

const OPS: &[Op] = &[
    Op {
        method: "get",
        path: "/api/v1/repos",
        id: "listRepos",
        summary: "The served repositories",
        query: &[],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: &[200],
    },
    Op {
        method: "post",
        path: "/api/v1/links",
        id: "newLink",
        summary: "A new one-time dashboard link",
        query: &[],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: &[200],
    },
    Op {
        method: "get",
        path: "/api/v1/runs",
        id: "listRuns",
        summary: "Runs of every served repository, newest first, filtered and paged, with totals per day and repository",
        query: &[
            ("repo", "string"),
            ("status", "string"),
            ("verdict", "string"),
            ("limit", "integer"),
            ("offset", "integer"),
        ],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: &[200, 400],
    },
    Op {
        method: "post",
        path: "/api/v1/runs",
        id: "startRun",
        summary: "Start a run in a served repository: a detached `pawl run --await-answers` driver with the environment the repository joined with. The browser's session only (its cookie and X-Pawl-Csrf), never the token; checks need checks_confirmed",
        query: &[],
        body: Some("Start"),
        cas: false,
        ok: "application/json",
        statuses: &[202, 400, 415, 422, 503],
    },
    Op {
        method: "get",
        path: "/api/v1/starts/{id}",
        id: "getStart",
        summary: "A start's state: starting, started (with the run's id) or failed (exit code and last lines)",
        query: &[],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: &[200, 404],
    },
    Op {
        method: "get",
        path: "/api/v1/runs/{id}",
        id: "getRun",
        summary: "One run: goal, mode, driver, seal, limits, status, verdict, stop reason, cost, tokens, time and version (also its ETag)",
        query: &[],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: RUN_STATUSES,
    },
    Op {
        method: "get",
        path: "/api/v1/runs/{id}/iterations",
        id: "getIterations",
        summary: "The run's iterations",
        query: &[],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: RUN_STATUSES,
    },
    Op {
        method: "get",
        path: "/api/v1/runs/{id}/events",
        id: "getEvents",
        summary: "The run's events with id > after, oldest first",
        query: &[("after", "integer"), ("limit", "integer")],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: &[200, 400, 404],
    },
    Op {
        method: "get",
        path: "/api/v1/runs/{id}/events/stream",
        id: "streamRunEvents",
        summary: "Server-Sent Events of the run (resumable with Last-Event-ID)",
        query: &[("after", "integer")],
        body: None,
        cas: false,
        ok: "text/event-stream",
        statuses: &[200, 400, 404],
    },
    Op {
        method: "get",
        path: "/api/v1/runs/{id}/evidence",
        id: "getEvidence",
        summary: "The checks pawl ran for the run, bound to their tree hashes",
        query: &[],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: RUN_STATUSES,
    },
    Op {
        method: "get",
        path: "/api/v1/runs/{id}/verdicts",
        id: "getVerdicts",
        summary: "Reviewer verdicts with their session ids",
        query: &[],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: RUN_STATUSES,
    },
    Op {
        method: "get",
        path: "/api/v1/runs/{id}/report",
        id: "getReport",
        summary: "The run's report (JSON, or Markdown with format=markdown)",
        query: &[("format", "string")],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: &[200, 400, 404],
    },
    Op {
        method: "get",
        path: "/api/v1/runs/{id}/diff",
        id: "getDiff",
        summary: "The patch since the pre-run commit",
        query: &[],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: &[200, 404, 422],
    },
    Op {
        method: "post",
        path: "/api/v1/runs/{id}/stop",
        id: "stopRun",
        summary: "Ask the run's driver to stop after its current step",
        query: &[],
        body: None,
        cas: true,
        ok: "application/json",
        statuses: ACTION_STATUSES,
    },
    Op {
        method: "post",
        path: "/api/v1/runs/{id}/resume",
        id: "resumeRun",
        summary: "Raise the run's limits (add budget)",
        query: &[],
        body: Some("Resume"),
        cas: true,
        ok: "application/json",
        statuses: &[200, 400, 404, 409, 415, 422, 428],
    },
    Op {
        method: "post",
        path: "/api/v1/runs/{id}/cancel",
        id: "cancelRun",
        summary: "End the run for good",
        query: &[],
        body: None,
        cas: true,
        ok: "application/json",
        statuses: ACTION_STATUSES,
    },
    Op {
        method: "post",
        path: "/api/v1/runs/{id}/answer",
        id: "answerRun",
        summary: "Clear what the run waits on, with the user's answer",
        query: &[],
        body: Some("Answer"),
        cas: true,
        ok: "application/json",
        statuses: &[200, 400, 404, 409, 415, 422, 428],
    },
    Op {
        method: "post",
        path: "/api/v1/runs/{id}/questions/{question}",
        id: "answerQuestion",
        summary: "Answer a clarifying question the run waits on (the first answer wins)",
        query: &[],
        body: Some("Answer"),
        cas: false,
        ok: "application/json",
        statuses: &[200, 400, 404, 409, 415, 422],
    },
    Op {
        method: "get",
        path: "/api/v1/events/stream",
        id: "streamAllEvents",
        summary: "Server-Sent Events of every served run (resumable with Last-Event-ID)",
        query: &[],
        body: None,
        cas: false,
        ok: "text/event-stream",
        statuses: &[200],
    },
    Op {
        method: "get",
        path: "/api/v1/openapi.json",
        id: "openapi",
        summary: "This document",
        query: &[],
        body: None,
        cas: false,
        ok: "application/json",
        statuses: &[200],
    },
];

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Started: follow the start's handle",
        503 => "This daemon starts no runs",
        400 => "Bad request",
        404 => "No such run",
        409 => {
            "Stale version (the body has the run's current state), or a question answered already"
        }
        415 => "The body is not JSON",
        422 => {
            "Refused by the run's rules (or, starting a run: a repository not in the served set, or without a recorded environment)"
        }
        428 => "If-Match is missing",
        _ => "Error",
    }
}

/// The document.
pub fn build() -> Value {
    let mut paths = serde_json::Map::new();
    for op in OPS {
        let mut params: Vec<Value> = Vec::new();
        if op.path.contains("{id}") {
            params.push(
                json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}),
            );
        }
        if op.path.contains("{question}") {
            params.push(
                json!({"name": "question", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1, "maximum": i64::MAX}}),
            );
        }
        for (name, ty) in op.query {
            let schema = match (*name, *ty) {
                ("after", _) => json!({"type": "integer", "minimum": 0, "maximum": i64::MAX}),
                (_, "integer") => json!({"type": "integer", "minimum": 0, "maximum": u32::MAX}),
                ("format", _) => json!({"type": "string", "enum": ["json", "markdown"]}),
                _ => json!({"type": "string"}),
            };
            params.push(json!({"name": name, "in": "query", "required": false, "schema": schema}));
        }
        if op.cas {
            params.push(json!({"name": "If-Match", "in": "header", "required": true,
                "description": "The run's version, raw (12) or as an entity tag (\"12\")",
                "schema": {"type": "string", "pattern": "^(W/)?\"?[0-9]{1,18}\"?$"}}));
        }
        let mut responses = serde_json::Map::new();
        for s in op.statuses {
            let content = if *s < 300 {
                if op.ok == "text/event-stream" {
                    json!({"text/event-stream": {"schema": {"type": "string"}}})
                } else if op.id == "getReport" {
                    json!({"application/json": {"schema": {"type": "object"}},
                           "text/markdown": {"schema": {"type": "string"}}})
                } else {
                    json!({op.ok: {"schema": {"type": "object"}}})
                }
            } else {
                json!({"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}})
            };
            let mut response = json!({"description": reason(*s), "content": content});
            if *s == 200
                && op.id == "listRuns"
                && let Some(m) = response.as_object_mut()
            {
                // Links: where a run's id comes from, for clients and stateful API testers.
                let links: serde_json::Map<String, Value> = OPS
                    .iter()
                    .filter(|o| {
                        o.path.starts_with("/api/v1/runs/{id}") && !o.path.contains("{question}")
                    })
                    .map(|o| {
                        (
                            o.id.to_string(),
                            json!({"operationId": o.id, "parameters": {"id": "$response.body#/runs/0/id"}}),
                        )
                    })
                    .collect();
                m.insert("links".into(), Value::Object(links));
            }
            responses.insert(s.to_string(), response);
        }
        for s in [401u16, 403] {
            responses.insert(
                s.to_string(),
                json!({"description": if s == 401 { "No or wrong token" } else { "Host or Origin refused (host_refused, origin_refused), the dashboard's session cookie without its CSRF key (csrf_refused), or the token on a route that takes the dashboard's session only (session_required)" },
                       "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}),
            );
        }
        let mut operation = json!({
            "operationId": op.id,
            "summary": op.summary,
            "parameters": params,
            "responses": responses,
        });
        if op.id == "startRun"
            && let Some(m) = operation.as_object_mut()
        {
            m.insert("security".into(), json!([{"session": [], "csrf": []}]));
        }
        if let (Some(body), Some(m)) = (op.body, operation.as_object_mut()) {
            m.insert(
                "requestBody".into(),
                json!({"required": true, "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{body}")}}}}),
            );
        }
        let entry = paths
            .entry(op.path.to_string())
            .or_insert_with(|| json!({}));
        if let Some(m) = entry.as_object_mut() {
            m.insert(op.method.to_string(), operation);
        }
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "pawl serve",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The runs of every repository where pawl has run. Every call needs the token (Bearer), or the dashboard's session: its cookie with its CSRF key (the X-Pawl-Csrf header; a stream's GET may send it as ?csrf=); actions are compare-and-set on the run's version (If-Match).",
        },
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}, {"session": [], "csrf": []}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "session": {"type": "apiKey", "in": "cookie", "name": crate::auth::COOKIE},
                "csrf": {"type": "apiKey", "in": "header", "name": "X-Pawl-Csrf"},
            },
            "schemas": {
                "Error": {"type": "object", "required": ["error", "message"],
                          "properties": {"error": {"type": "string"}, "message": {"type": "string"}}},
                "Resume": {"type": "object", "additionalProperties": false, "properties": {
                    "add_usd": {"type": "number", "minimum": 0},
                    "add_iterations": {"type": "integer", "minimum": 0, "maximum": u32::MAX},
                    "add_tokens": {"type": "integer", "minimum": 0, "maximum": u64::MAX},
                    "add_time": {"type": "string", "pattern": "^[0-9]{1,9}(s|m|h)?$", "examples": ["10m"]},
                }},
                "Start": {"type": "object", "additionalProperties": false, "required": ["repo", "goal"], "properties": {
                    "repo": {"type": "string", "description": "A served repository's id, name or path (GET /api/v1/repos)"},
                    "goal": {"type": "string", "pattern": "\\S"},
                    "mode": {"type": "string", "enum": ["auto", "simple", "work", "qa", "ralph"]},
                    "limits": {"type": "object", "additionalProperties": false, "properties": {
                        "max_iterations": {"type": "integer", "minimum": 0, "maximum": u32::MAX},
                        "max_usd": {"type": "number", "minimum": 0},
                        "max_tokens": {"type": "integer", "minimum": 0, "maximum": u64::MAX},
                        "max_time": {"type": "string", "pattern": "^[0-9]{1,9}(s|m|h)?$", "examples": ["30m"]},
                    }},
                    "checks": {"type": "array", "maxItems": 32, "items": {"type": "string", "pattern": "\\S", "maxLength": 4096},
                               "description": "Acceptance checks: commands run as the user, shown for confirmation"},
                    "checks_confirmed": {"type": "boolean", "description": "true: the checks were shown to the user and confirmed (required with checks)"},
                }},
                "Answer": {"type": "object", "additionalProperties": false, "required": ["answer"],
                           "properties": {"answer": {"type": "string", "pattern": "\\S"}}},
            },
        },
    })
}

pub async fn document() -> Json<Value> {
    Json(build())
}
