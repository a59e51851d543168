//! Who may talk to the daemon. Every request is checked in this order:
//!
//! 1. **Host**: the `Host` header must name the bound address, `localhost`, a loopback
//!    address or a name the user allowed, with the bound port. A page on another name that
//!    resolves to this machine (DNS rebinding) is refused.
//! 2. **Origin**: a request that carries an `Origin` must come from the server's own origin
//!    (`http://<its Host>`): another site's page cannot post to the API or read a stream. A
//!    client that sends no `Origin` (curl, scripts) is judged by the token alone.
//! 3. **Token**: every `/api/` call, the event streams included, needs the start's random
//!    token, as `Authorization: Bearer <token>` or the `pawl_token` cookie. The browser gets
//!    the cookie (HttpOnly, SameSite=Strict) by opening a one-time link (`/auth?code=…`).
//!
//! Not here: what the API does (`api.rs`). No endpoint runs a command.

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::Mutex;

use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use crate::AppState;
use crate::api::ApiError;

/// The cookie the one-time link sets.
pub const COOKIE: &str = "pawl_token";

/// 32 random bytes from the kernel, as 64 hex digits.
pub fn random_token() -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Equal strings, compared in time that does not depend on where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The names the Host header may carry.
#[derive(Debug)]
pub struct Hosts {
    names: HashSet<String>,
    port: u16,
}

impl Hosts {
    pub fn new(bind: IpAddr, port: u16, extra: &[String]) -> Hosts {
        let mut names: HashSet<String> = ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        names.insert(match bind {
            IpAddr::V4(a) => a.to_string(),
            IpAddr::V6(a) => format!("[{a}]"),
        });
        names.extend(extra.iter().map(|h| h.to_ascii_lowercase()));
        Hosts { names, port }
    }

    /// Whether a `Host` header value names this server.
    pub fn allows(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let (name, port) = match host.rsplit_once(':') {
            // `[::1]` alone has colons but no port.
            Some((name, port)) if !port.contains(']') => (name.to_string(), port.parse().ok()),
            _ => (host.clone(), Some(80)),
        };
        port == Some(self.port) && self.names.contains(&name)
    }
}

/// One-time codes for the dashboard link: each opens the dashboard once.
#[derive(Debug, Default)]
pub struct Links {
    codes: Mutex<HashSet<String>>,
}

impl Links {
    pub fn issue(&self) -> std::io::Result<String> {
        let code = random_token()?;
        if let Ok(mut codes) = self.codes.lock() {
            // Bounded: an old unused link is dropped rather than kept forever.
            if codes.len() >= 64 {
                codes.clear();
            }
            codes.insert(code.clone());
        }
        Ok(code)
    }

    fn redeem(&self, code: &str) -> bool {
        self.codes
            .lock()
            .map(|mut c| c.remove(code))
            .unwrap_or(false)
    }
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The token a request carries, from its Authorization header or its cookie.
fn presented_token(headers: &HeaderMap) -> Option<String> {
    if let Some(auth) = header_str(headers, header::AUTHORIZATION)
        && let Some(t) = auth.strip_prefix("Bearer ")
    {
        return Some(t.trim().to_string());
    }
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
}

/// The checks above, in front of every route.
pub async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let Some(host) = header_str(headers, header::HOST).filter(|h| state.hosts.allows(h)) else {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "host_refused",
            "this server answers only to its own address (the Host header names another)",
        )
        .into_response();
    };
    if let Some(origin) = headers.get(header::ORIGIN) {
        let own = format!("http://{host}");
        if origin.to_str().ok() != Some(own.as_str()) {
            return ApiError::new(
                StatusCode::FORBIDDEN,
                "origin_refused",
                "requests from another site's page are refused",
            )
            .into_response();
        }
    }
    if req.uri().path().starts_with("/api/") {
        let ok = presented_token(headers).is_some_and(|t| same_secret(&t, &state.token));
        if !ok {
            let mut resp = ApiError::new(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "a token is needed: `Authorization: Bearer <token>` (the token file `pawl serve` printed) or the cookie of the dashboard link",
            )
            .into_response();
            resp.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
            return resp;
        }
    }
    next.run(req).await
}

#[derive(Debug, Deserialize)]
pub struct Code {
    code: Option<String>,
}

/// `GET /auth?code=…`: a one-time link exchanged for the token cookie.
pub async fn redeem(State(state): State<AppState>, Query(q): Query<Code>) -> Response {
    if !q.code.is_some_and(|c| state.links.redeem(&c)) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "This link was already used or is unknown. Run `pawl dashboard` for a new one.\n",
        )
            .into_response();
    }
    let cookie = format!(
        "{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/",
        state.token
    );
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, cookie),
            (header::LOCATION, "/".to_string()),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_allow_only_this_server() {
        let h = Hosts::new("127.0.0.1".parse().unwrap(), 8080, &[]);
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "[::1]:8080",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "127.0.0.1:8081",
            "127.0.0.1",
            "localhost",
            "",
            "[::1]",
            "127.0.0.1.evil.example:8080",
        ] {
            assert!(!h.allows(bad), "{bad}");
        }
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "abcd"));
    }

    #[test]
    fn links_open_once() {
        let l = Links::default();
        let code = l.issue().unwrap();
        assert!(l.redeem(&code));
        assert!(!l.redeem(&code));
    }
}
