//! Secure by default: the token, Host and Origin, the one-time link, the lock, loopback.

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
    let cookie = d.send(
        "GET",
        "/api/v1/runs",
        &[("Cookie", "pawl_token=nope")],
        None,
    );
    assert_eq!(cookie.status, 401);
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
fn the_one_time_link_sets_a_strict_http_only_cookie_once() {
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
    let pair = cookie.split(';').next().unwrap().to_string();
    assert_eq!(pair, format!("pawl_token={}", d.token));
    assert_eq!(
        d.send("GET", "/api/v1/runs", &[("Cookie", &pair)], None)
            .status,
        200
    );
    // Used once: the same link opens nothing.
    let again = d.send("GET", &path, &[], None);
    assert_eq!(again.status, 401);
    assert!(again.header("set-cookie").is_none());
    // `pawl dashboard` asks for a new one.
    let link = pawl_serve::dashboard_link(d.state.path()).unwrap();
    let path = link.trim_start_matches(&d.ready.url).to_string();
    assert_eq!(d.send("GET", &path, &[], None).status, 303);
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
