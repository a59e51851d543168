//! Secure by default: the token, Host and Origin, the one-time link and the browser's own
//! session (its cookie and CSRF key), the lock, loopback.

use std::os::unix::fs::PermissionsExt as _;

use crate::support::{self, start};

#[test]
fn no_token_is_401_on_the_api_and_the_streams() {
    let d = start();
    for path in [
        "/api/v1/runs",
        "/api/v1/events/stream",
        "/api/v1/openapi.json",
        "/api/v1/runs/x/events/stream",
    ] {
        let r = d.send("GET", path, &[], None);
        assert_eq!(r.status, 401, "{path}: {}", r.body);
        assert_eq!(r.json()["error"], "unauthorized");
    }
    let wrong = d.send(
        "GET",
        "/api/v1/runs",
        &[("Authorization", "Bearer 0123")],
        None,
    );
    assert_eq!(wrong.status, 401);
    for cookie in ["pawl_token=nope", "pawl_session=nope"] {
        let r = d.send(
            "GET",
            "/api/v1/runs",
            &[("Cookie", cookie), ("X-Pawl-Csrf", "nope")],
            None,
        );
        assert_eq!(r.status, 401, "{cookie}");
    }
    assert_eq!(d.get("/api/v1/runs").status, 200);
}

#[test]
fn a_wrong_host_is_refused_even_with_the_token() {
    let d = start();
    let auth = format!("Bearer {}", d.token);
    let port = d.host().rsplit_once(':').unwrap().1.to_string();
    for host in [
        format!("evil.example:{port}"),
        "127.0.0.1:1".to_string(),
        String::new(),
    ] {
        let r = d.send(
            "GET",
            "/api/v1/runs",
            &[("Host", &host), ("Authorization", &auth)],
            None,
        );
        assert_eq!(r.status, 403, "Host {host:?}: {}", r.body);
        assert_eq!(r.json()["error"], "host_refused");
    }
    // The dashboard page too: a rebound name gets nothing.
    let r = d.send(
        "GET",
        "/",
        &[("Host", &format!("evil.example:{port}"))],
        None,
    );
    assert_eq!(r.status, 403);
    let ok = d.send(
        "GET",
        "/api/v1/runs",
        &[
            ("Host", &format!("localhost:{port}")),
            ("Authorization", &auth),
        ],
        None,
    );
    assert_eq!(ok.status, 200);
}

#[test]
fn a_cross_origin_post_is_refused_and_changes_nothing() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "goal");
    let version = store.run_version(&run.id).unwrap().to_string();
    let auth = format!("Bearer {}", d.token);
    let path = format!("/api/v1/runs/{}/cancel", run.id);
    let r = d.send(
        "POST",
        &path,
        &[
            ("Authorization", &auth),
            ("If-Match", &version),
            ("Origin", "http://evil.example"),
        ],
        None,
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(r.json()["error"], "origin_refused");
    assert_eq!(store.run(&run.id).unwrap().status.as_str(), "active");
    // The server's own origin is fine.
    let own = format!("http://{}", d.host());
    let r = d.send(
        "POST",
        &path,
        &[
            ("Authorization", &auth),
            ("If-Match", &version),
            ("Origin", &own),
        ],
        None,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(store.run(&run.id).unwrap().status.as_str(), "cancelled");
}

#[test]
fn the_one_time_link_opens_a_session_of_the_browser_s_own_once() {
    let d = start();
    let path = d
        .ready
        .dashboard
        .trim_start_matches(&d.ready.url)
        .to_string();
    let r = d.send("GET", &path, &[], None);
    assert_eq!(r.status, 303, "{}", r.body);
    let cookie = r.header("set-cookie").unwrap().to_string();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(cookie.contains("Path=/"), "{cookie}");
    // A bounded lifetime: the cookie's and the daemon's own (12 hours).
    let max_age: u64 = cookie
        .split(';')
        .find_map(|kv| kv.trim().strip_prefix("Max-Age="))
        .expect("Max-Age")
        .parse()
        .unwrap();
    assert_eq!(max_age, 12 * 60 * 60, "{cookie}");
    let pair = cookie.split(';').next().unwrap().to_string();
    let (name, id) = pair.split_once('=').unwrap();
    assert_eq!(name, "pawl_session");
    assert_eq!(id.len(), 64);
    assert_ne!(id, d.token, "the session is not the API token");
    let location = r.header("location").unwrap();
    let csrf = location.strip_prefix("/#csrf=").expect(location);
    assert_eq!(csrf.len(), 64);
    assert!(csrf != id && csrf != d.token);
    assert_eq!(
        d.send(
            "GET",
            "/api/v1/runs",
            &[("Cookie", &pair), ("X-Pawl-Csrf", csrf)],
            None
        )
        .status,
        200
    );
    // Used once: the same link opens nothing.
    let again = d.send("GET", &path, &[], None);
    assert_eq!(again.status, 401);
    assert!(again.header("set-cookie").is_none());
    // `pawl dashboard` asks for a new one: another session, with another key.
    let link = pawl_serve::dashboard_link(d.state.path()).unwrap();
    let path = link.trim_start_matches(&d.ready.url).to_string();
    let second = d.send("GET", &path, &[], None);
    assert_eq!(second.status, 303);
    let pair2 = second
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    assert_ne!(pair2, pair);
    // One session's cookie with another's key is refused.
    let crossed = d.send(
        "GET",
        "/api/v1/runs",
        &[("Cookie", &pair2), ("X-Pawl-Csrf", csrf)],
        None,
    );
    assert_eq!(crossed.status, 403, "{}", crossed.body);
}

/// A session ends after its lifetime, and an unopened link after its own.
#[test]
fn sessions_and_links_expire() {
    let d = support::start_with(|o| {
        o.session_ttl = std::time::Duration::from_millis(1500);
        o.link_ttl = std::time::Duration::from_millis(1500);
    });
    let (cookie, csrf) = browser_session(&d);
    let csrf = csrf.unwrap();
    let headers = [("Cookie", cookie.as_str()), ("X-Pawl-Csrf", csrf.as_str())];
    assert_eq!(d.send("GET", "/api/v1/runs", &headers, None).status, 200);
    let link = pawl_serve::dashboard_link(d.state.path()).unwrap();
    let path = link.trim_start_matches(&d.ready.url).to_string();
    std::thread::sleep(std::time::Duration::from_millis(1700));
    let over = d.send("GET", "/api/v1/runs", &headers, None);
    assert_eq!(over.status, 401, "{}", over.body);
    assert!(
        over.json()["message"]
            .as_str()
            .unwrap()
            .contains("pawl dashboard")
    );
    assert_eq!(d.send("GET", &path, &[], None).status, 401, "an old link");
}

#[test]
fn the_token_file_is_private_and_holds_the_bare_token() {
    let d = start();
    let meta = std::fs::metadata(&d.ready.token_file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let text = std::fs::read_to_string(&d.ready.token_file).unwrap();
    assert_eq!(text, format!("{}\n", d.token));
    assert_eq!(d.token.len(), 64);
}

#[test]
fn a_second_daemon_names_the_first() {
    let d = start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let options = pawl_serve::Options::new(d.state.path().to_path_buf(), Some(support::KEY));
    let err = rt
        .block_on(pawl_serve::Server::bind(options))
        .err()
        .unwrap();
    let text = err.to_string();
    assert!(text.contains(&d.ready.url), "{text}");
    assert!(text.contains(&format!("pid {}", d.ready.pid)), "{text}");
}

#[test]
fn another_address_needs_public() {
    let state = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut options = pawl_serve::Options::new(state.path().to_path_buf(), Some(support::KEY));
    options.bind = "0.0.0.0".parse().unwrap();
    let err = rt
        .block_on(pawl_serve::Server::bind(options))
        .err()
        .unwrap();
    assert!(err.to_string().contains("--public"), "{err}");
    assert!(!state.path().join("serve.token").exists());
}

#[test]
fn the_dashboard_is_embedded_with_a_strict_policy() {
    let d = start();
    let page = d.send("GET", "/", &[], None);
    assert_eq!(page.status, 200);
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("default-src 'self'"), "{csp}");
    assert!(
        !page.body.contains("https://"),
        "nothing from another origin"
    );
    assert_eq!(d.send("GET", "/assets/app.js", &[], None).status, 200);
    assert_eq!(d.send("GET", "/assets/nope.js", &[], None).status, 404);
}

/// Opens the dashboard the way a browser does: the one-time link, its cookie (`name=value`)
/// and the page's CSRF key (from the redirect's fragment; `None` when it carries none).
pub fn browser_session(d: &support::Daemon) -> (String, Option<String>) {
    let path = d
        .ready
        .dashboard
        .trim_start_matches(&d.ready.url)
        .to_string();
    let r = d.send("GET", &path, &[], None);
    assert_eq!(r.status, 303, "{}", r.body);
    let cookie = r.header("set-cookie").unwrap();
    let pair = cookie.split(';').next().unwrap().trim().to_string();
    let csrf = r
        .header("location")
        .and_then(|l| l.split_once("#csrf="))
        .map(|(_, k)| k.to_string());
    (pair, csrf)
}

/// A cookie is sent to every port of 127.0.0.1: any local server the browser visits gets it.
/// Stolen, it is worth nothing without the page's CSRF key — no read, no action — and the API
/// token is never a cookie.
#[test]
fn a_stolen_dashboard_cookie_without_the_csrf_key_reads_nothing_and_changes_nothing() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "goal");
    let version = store.run_version(&run.id).unwrap().to_string();
    let (cookie, csrf) = browser_session(&d);
    assert!(
        !cookie.contains(&d.token),
        "the browser's cookie is the API token: {cookie}"
    );
    // The attacker replays the cookie with curl (no Origin) or from its own page.
    let read = d.send("GET", "/api/v1/runs", &[("Cookie", &cookie)], None);
    assert_eq!(read.status, 403, "read with a stolen cookie: {}", read.body);
    assert_eq!(read.json()["error"], "csrf_refused");
    let stream = d.send("GET", "/api/v1/events/stream", &[("Cookie", &cookie)], None);
    assert_eq!(stream.status, 403, "stream with a stolen cookie");
    let path = format!("/api/v1/runs/{}/cancel", run.id);
    let act = d.send(
        "POST",
        &path,
        &[("Cookie", &cookie), ("If-Match", &version)],
        None,
    );
    assert_eq!(act.status, 403, "action with a stolen cookie: {}", act.body);
    assert_eq!(act.json()["error"], "csrf_refused");
    let wrong = d.send(
        "POST",
        &path,
        &[
            ("Cookie", &cookie),
            ("If-Match", &version),
            ("X-Pawl-Csrf", "0123"),
        ],
        None,
    );
    assert_eq!(wrong.status, 403, "a guessed key");
    assert_eq!(store.run(&run.id).unwrap().status.as_str(), "active");
    // The old cookie, the API token itself, opens nothing.
    let old = d.send(
        "GET",
        "/api/v1/runs",
        &[("Cookie", &format!("pawl_token={}", d.token))],
        None,
    );
    assert_eq!(old.status, 401, "the API token as a cookie");
    // The page itself, with its key: reads, follows and acts.
    let csrf = csrf.expect("the redirect carries the page's key");
    assert_ne!(csrf, d.token);
    let own = format!("http://{}", d.host());
    let read = d.send(
        "GET",
        "/api/v1/runs",
        &[("Cookie", &cookie), ("X-Pawl-Csrf", &csrf)],
        None,
    );
    assert_eq!(read.status, 200, "{}", read.body);
    let s = d.stream_as(
        &format!("/api/v1/events/stream?csrf={csrf}"),
        &[("Cookie", &cookie)],
    );
    assert!(
        s.status.contains(" 200 "),
        "an EventSource sends its key in the query: {}",
        s.status
    );
    drop(s);
    let act = d.send(
        "POST",
        &path,
        &[
            ("Cookie", &cookie),
            ("If-Match", &version),
            ("X-Pawl-Csrf", &csrf),
            ("Origin", &own),
        ],
        None,
    );
    assert_eq!(act.status, 200, "{}", act.body);
    assert_eq!(store.run(&run.id).unwrap().status.as_str(), "cancelled");
    // The key in the query is for the streams only: an action needs the header.
    let q = d.send(
        "POST",
        &format!("/api/v1/links?csrf={csrf}"),
        &[("Cookie", &cookie)],
        None,
    );
    assert_eq!(q.status, 403, "{}", q.body);
}

/// Another site's page posts a form to the daemon: the browser adds the session cookie
/// (SameSite=Strict still sends it from another port of 127.0.0.1, which is the same site),
/// but a form cannot send the CSRF header.
#[test]
fn a_cross_site_form_post_with_the_session_cookie_is_refused() {
    let d = start();
    let mut store = d.store();
    let run = support::new_run(&mut store, "goal");
    let (cookie, _) = browser_session(&d);
    let form = "application/x-www-form-urlencoded";
    for origin in [None, Some("http://127.0.0.1:1"), Some("null")] {
        for path in [
            "/api/v1/links".to_string(),
            format!("/api/v1/runs/{}/cancel", run.id),
            format!("/api/v1/runs/{}/stop", run.id),
        ] {
            let mut headers = vec![("Cookie", cookie.as_str()), ("Content-Type", form)];
            if let Some(o) = origin {
                headers.push(("Origin", o));
            }
            let r = d.send("POST", &path, &headers, Some("a=1"));
            assert_eq!(r.status, 403, "{path} from {origin:?}: {}", r.body);
            let code = r.json()["error"].as_str().unwrap().to_string();
            let want = if origin.is_some() {
                "origin_refused"
            } else {
                "csrf_refused"
            };
            assert_eq!(code, want, "{path} from {origin:?}");
        }
    }
    assert_eq!(store.run(&run.id).unwrap().status.as_str(), "active");
    let stops = store
        .run_events_after(&run.id, 0, 1000)
        .unwrap()
        .iter()
        .filter(|e| e.kind == "stop_requested")
        .count();
    assert_eq!(stops, 0, "a stop request was written");
}
