//! Who may talk to the daemon. Every request is checked in this order:
//!
//! 1. **Host**: the `Host` header must name the bound address, `localhost`, a loopback
//!    address or a name the user allowed, with the bound port. A page on another name that
//!    resolves to this machine (DNS rebinding) is refused.
//! 2. **Origin**: a request that carries an `Origin` must come from the server's own origin
//!    (`http://<its Host>`): another site's page cannot post to the API or read a stream. A
//!    client that sends no `Origin` (curl, scripts) is judged by what it presents next.
//! 3. **Who**: every `/api/` call, the event streams included, needs either the start's random
//!    token as `Authorization: Bearer <token>` (scripts, `pawl dashboard`), or the browser's
//!    own session: the `pawl_session` cookie (HttpOnly, SameSite=Strict, a bounded lifetime)
//!    **and** the session's CSRF key, sent by the page as the `X-Pawl-Csrf` header (an
//!    `EventSource` cannot send headers: a stream's GET may carry it as `?csrf=`). The browser
//!    gets both by opening a one-time link (`/auth?code=…`): the cookie in the answer, the key
//!    in the redirect's fragment (`/#csrf=…`), which the page keeps in its origin's storage.
//!    A cookie is sent to every port of 127.0.0.1; without the key it opens nothing, and it is
//!    never the API token.
//!
//! 4. **Starting a run** (`POST /api/v1/runs`) takes the browser's session only: the cookie and
//!    its CSRF key in the header, never the token. A run runs the checks it is given as the
//!    user; the token is for scripts that watch and steer runs (with `--public` it crosses the
//!    network in clear), while a session comes from a one-time link, is bound to its page's
//!    origin, and the form shows the checks for confirmation before it sends them. (A holder
//!    of the token can still ask for a link: the wall is against a stolen token doing it
//!    silently from a script, not against the user.)
//!
//! Which of these a request passes is [`decide`], a pure function; [`guard`] gathers its
//! inputs. Not here: what the API does (`api.rs`, `start.rs`).

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use crate::AppState;
use crate::api::ApiError;

/// The cookie the one-time link sets: the browser's session id (never the API token).
pub const COOKIE: &str = "pawl_session";
/// The header the page sends its session's CSRF key in.
pub const CSRF_HEADER: &str = "x-pawl-csrf";
/// How long a browser session lasts (the cookie's `Max-Age` and the daemon's own bound).
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 60 * 60);
/// How long a one-time link may wait to be opened.
pub const LINK_TTL: Duration = Duration::from_secs(15 * 60);
/// At most this many links, and this many sessions, are kept (the oldest goes first).
const KEPT: usize = 64;

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

/// Secrets that expire: at most [`KEPT`], each found by a whole-string comparison in time
/// that does not depend on where a guess differs.
#[derive(Debug)]
struct Expiring<T> {
    ttl: Duration,
    items: Mutex<Vec<(String, Instant, T)>>,
}

impl<T: Clone> Expiring<T> {
    fn new(ttl: Duration) -> Expiring<T> {
        Expiring {
            ttl,
            items: Mutex::new(Vec::new()),
        }
    }

    fn insert(&self, key: String, value: T) {
        if let Ok(mut items) = self.items.lock() {
            let now = Instant::now();
            items.retain(|(_, until, _)| *until > now);
            if items.len() >= KEPT {
                items.remove(0);
            }
            items.push((key, now + self.ttl, value));
        }
    }

    /// The value of an unexpired `key`; `take` removes it (a one-time link).
    fn find(&self, key: &str, take: bool) -> Option<T> {
        let mut items = self.items.lock().ok()?;
        let now = Instant::now();
        let mut found = None;
        for (i, (k, until, _)) in items.iter().enumerate() {
            if same_secret(k, key) && *until > now {
                found = Some(i);
            }
        }
        let i = found?;
        if take {
            Some(items.remove(i).2)
        } else {
            Some(items[i].2.clone())
        }
    }
}

/// One-time codes for the dashboard link: each opens the dashboard once, within [`LINK_TTL`].
#[derive(Debug)]
pub struct Links(Expiring<()>);

impl Links {
    pub fn new(ttl: Duration) -> Links {
        Links(Expiring::new(ttl))
    }

    pub fn issue(&self) -> std::io::Result<String> {
        let code = random_token()?;
        self.0.insert(code.clone(), ());
        Ok(code)
    }

    fn redeem(&self, code: &str) -> bool {
        self.0.find(code, true).is_some()
    }
}

impl Default for Links {
    fn default() -> Links {
        Links::new(LINK_TTL)
    }
}

/// The browsers' sessions: a session id (the cookie) and its CSRF key, for [`SESSION_TTL`].
#[derive(Debug)]
pub struct Sessions(Expiring<String>);

impl Sessions {
    pub fn new(ttl: Duration) -> Sessions {
        Sessions(Expiring::new(ttl))
    }

    /// A new session: its id and its CSRF key.
    pub fn open(&self) -> std::io::Result<(String, String)> {
        let (id, csrf) = (random_token()?, random_token()?);
        self.0.insert(id.clone(), csrf.clone());
        Ok((id, csrf))
    }

    /// The CSRF key of a live session.
    fn csrf(&self, id: &str) -> Option<String> {
        self.0.find(id, false)
    }

    fn ttl(&self) -> Duration {
        self.0.ttl
    }
}

impl Default for Sessions {
    fn default() -> Sessions {
        Sessions::new(SESSION_TTL)
    }
}

/// What an `/api/` request presents, gathered by [`guard`] for [`decide`].
#[derive(Debug, Default)]
pub struct Presented<'a> {
    /// Whether it changes nothing (GET, HEAD).
    pub safe: bool,
    /// Whether it is an event stream's GET (an `EventSource` sends no headers).
    pub stream: bool,
    /// `Authorization: Bearer …`.
    pub bearer: Option<&'a str>,
    /// The CSRF key of the live session its cookie names (`None`: no cookie, or a session
    /// that is unknown or expired).
    pub session_csrf: Option<&'a str>,
    /// Whether it carried a session cookie at all.
    pub cookie: bool,
    /// The `X-Pawl-Csrf` header.
    pub csrf_header: Option<&'a str>,
    /// The `csrf` query parameter.
    pub csrf_query: Option<&'a str>,
    /// Whether the route takes the browser's session only (starting a run).
    pub session_only: bool,
}

/// Whether a route takes the browser's session only, never the token: starting a run.
pub fn session_only(method: &Method, path: &str) -> bool {
    *method == Method::POST && path.trim_end_matches('/') == "/api/v1/runs"
}

/// Why an `/api/` request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// 401: no token, a wrong one, or a session that is unknown or over.
    Unauthorized,
    /// 403: a live session's cookie without its CSRF key.
    Csrf,
    /// 403: the token on a route that takes the browser's session only.
    SessionRequired,
}

/// Whether an `/api/` request may proceed: the API token as a Bearer header, or a live
/// session's cookie with the session's CSRF key — in the header, or (a stream's GET only) in
/// the query. A request with a Bearer header is judged by it alone — except on a
/// session-only route, which never reads the token.
pub fn decide(token: &str, p: &Presented<'_>) -> Result<(), Refusal> {
    if p.session_only {
        if p.session_csrf.is_none() && p.bearer.is_some() {
            return Err(Refusal::SessionRequired);
        }
    } else if let Some(t) = p.bearer {
        return if same_secret(t, token) {
            Ok(())
        } else {
            Err(Refusal::Unauthorized)
        };
    }
    let Some(key) = p.session_csrf else {
        return Err(Refusal::Unauthorized);
    };
    let query = p.csrf_query.filter(|_| p.safe && p.stream);
    match p.csrf_header.or(query) {
        Some(k) if same_secret(k, key) => Ok(()),
        _ => Err(Refusal::Csrf),
    }
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The Bearer token a request carries.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    header_str(headers, header::AUTHORIZATION)
        .and_then(|a| a.strip_prefix("Bearer "))
        .map(str::trim)
}

/// The session cookie's value.
fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v)
}

/// The `csrf` query parameter (64 hex digits need no decoding).
fn csrf_query(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|kv| kv.strip_prefix("csrf="))
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
        let cookie = session_cookie(headers);
        let session_csrf = cookie.and_then(|id| state.sessions.csrf(id));
        let presented = Presented {
            safe: matches!(*req.method(), Method::GET | Method::HEAD),
            stream: req.uri().path().ends_with("/stream"),
            bearer: bearer(headers),
            session_csrf: session_csrf.as_deref(),
            cookie: cookie.is_some(),
            csrf_header: header_str(headers, header::HeaderName::from_static(CSRF_HEADER)),
            csrf_query: csrf_query(req.uri().query()),
            session_only: session_only(req.method(), req.uri().path()),
        };
        match decide(&state.token, &presented) {
            Ok(()) => {}
            Err(Refusal::SessionRequired) => {
                return ApiError::new(
                    StatusCode::FORBIDDEN,
                    "session_required",
                    "a run is started from the dashboard's own session (its cookie and the X-Pawl-Csrf header), never with the API token: open the dashboard (`pawl dashboard`), or run `pawl run` in the repository",
                )
                .into_response();
            }
            Err(Refusal::Csrf) => {
                return ApiError::new(
                    StatusCode::FORBIDDEN,
                    "csrf_refused",
                    "the dashboard's session cookie works only with its page's CSRF key (the X-Pawl-Csrf header): reload the page, or run `pawl dashboard` for a new link",
                )
                .into_response();
            }
            Err(Refusal::Unauthorized) => {
                let message = if presented.cookie {
                    "this dashboard session is over or unknown: run `pawl dashboard` for a new link"
                } else {
                    "a token is needed: `Authorization: Bearer <token>` (the token file `pawl serve` printed), or the dashboard's session (run `pawl dashboard`)"
                };
                let mut resp = ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
                    .into_response();
                resp.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    header::HeaderValue::from_static("Bearer"),
                );
                return resp;
            }
        }
    }
    next.run(req).await
}

#[derive(Debug, Deserialize)]
pub struct Code {
    code: Option<String>,
}

/// `GET /auth?code=…`: a one-time link exchanged for a session of the browser's own (its cookie, and
/// its CSRF key in the redirect's fragment).
pub async fn redeem(State(state): State<AppState>, Query(q): Query<Code>) -> Response {
    if !q.code.is_some_and(|c| state.links.redeem(&c)) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "This link was already used or is unknown. Run `pawl dashboard` for a new one.\n",
        )
            .into_response();
    }
    let Ok((id, csrf)) = state.sessions.open() else {
        return ApiError::internal("cannot read /dev/urandom".to_string()).into_response();
    };
    let cookie = format!(
        "{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}",
        state.sessions.ttl().as_secs()
    );
    // The key travels in the fragment: the browser keeps it and never sends it back in a
    // request line; the page moves it into its origin's storage and clears the address.
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, cookie),
            (header::LOCATION, format!("/#csrf={csrf}")),
            (header::CACHE_CONTROL, "no-store".to_string()),
            (header::REFERRER_POLICY, "no-referrer".to_string()),
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
        assert!(!l.redeem("0123"));
        assert!(l.redeem(&code));
        assert!(!l.redeem(&code));
    }

    #[test]
    fn sessions_are_bounded_in_number_and_time() {
        let s = Sessions::default();
        let (first, key) = s.open().unwrap();
        assert_eq!(s.csrf(&first).as_deref(), Some(key.as_str()));
        for _ in 0..KEPT {
            s.open().unwrap();
        }
        assert_eq!(s.csrf(&first), None, "the oldest goes first");
        let short = Sessions::new(Duration::ZERO);
        let (id, _) = short.open().unwrap();
        assert_eq!(short.csrf(&id), None, "expired");
    }

    #[test]
    fn decide_asks_a_session_for_its_key_and_a_script_for_the_token() {
        let token = "t".repeat(64);
        let key = "k".repeat(64);
        let session = |safe, stream, header, query| Presented {
            safe,
            stream,
            session_csrf: Some(&key),
            cookie: true,
            csrf_header: header,
            csrf_query: query,
            ..Presented::default()
        };
        let bearer = |t| Presented {
            bearer: Some(t),
            ..Presented::default()
        };
        assert_eq!(decide(&token, &bearer(&token)), Ok(()));
        assert_eq!(
            decide(&token, &bearer("x")),
            Err(Refusal::Unauthorized),
            "a wrong token is not rescued by a cookie"
        );
        assert_eq!(
            decide(&token, &Presented::default()),
            Err(Refusal::Unauthorized)
        );
        assert_eq!(
            decide(&token, &session(false, false, Some(&key), None)),
            Ok(())
        );
        assert_eq!(
            decide(&token, &session(true, false, None, None)),
            Err(Refusal::Csrf)
        );
        assert_eq!(
            decide(&token, &session(false, false, Some("kk"), None)),
            Err(Refusal::Csrf)
        );
        // The query carries the key for a stream's GET only.
        assert_eq!(
            decide(&token, &session(true, true, None, Some(&key))),
            Ok(())
        );
        for (safe, stream) in [(true, false), (false, true), (false, false)] {
            assert_eq!(
                decide(&token, &session(safe, stream, None, Some(&key))),
                Err(Refusal::Csrf),
                "safe {safe} stream {stream}"
            );
        }
        // Starting a run: the session with its key only; the token, right or wrong, is refused.
        let start = |bearer, header| Presented {
            session_only: true,
            bearer,
            session_csrf: Some(&key),
            cookie: true,
            csrf_header: header,
            ..Presented::default()
        };
        assert_eq!(decide(&token, &start(None, Some(&key))), Ok(()));
        assert_eq!(
            decide(&token, &start(Some(&token), Some(&key))),
            Ok(()),
            "the session decides; the token is not read"
        );
        assert_eq!(
            decide(&token, &start(Some(&token), None)),
            Err(Refusal::Csrf)
        );
        let token_only = Presented {
            session_only: true,
            bearer: Some(&token),
            ..Presented::default()
        };
        assert_eq!(decide(&token, &token_only), Err(Refusal::SessionRequired));
        let nothing = Presented {
            session_only: true,
            ..Presented::default()
        };
        assert_eq!(decide(&token, &nothing), Err(Refusal::Unauthorized));
        assert!(session_only(&Method::POST, "/api/v1/runs"));
        assert!(session_only(&Method::POST, "/api/v1/runs/"));
        assert!(!session_only(&Method::GET, "/api/v1/runs"));
        assert!(!session_only(&Method::POST, "/api/v1/runs/x/stop"));
        // A cookie of an unknown or expired session.
        let gone = Presented {
            cookie: true,
            csrf_header: Some(&key),
            ..Presented::default()
        };
        assert_eq!(decide(&token, &gone), Err(Refusal::Unauthorized));
    }
}
